/* cancel.c - see cancel.h. */
#include "cancel.h"

volatile sig_atomic_t av_cancel_flag = 0;
