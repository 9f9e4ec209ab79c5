/* cancel.c - see cancel.h. */
#include "cancel.h"

atomic_int av_cancel_flag = 0;

/* A flag set from a signal handler must not need a lock. */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "atomic_int must be lock-free");
