/* maskname.h - a mask's name as the screen says it, in the reader's
 * language ("causal", "window:3"; in Korean "인과", "윈도:3"). The status
 * line and every file write the option's own spelling (model_mask_name). */
#ifndef ATTNVIZ_MASKNAME_H
#define ATTNVIZ_MASKNAME_H

#include <stddef.h>

#include "model.h"

/* Writes the name of c's mask into buf (capacity cap, NUL-terminated). */
void mask_shown_name(const ModelConfig *c, char *buf, size_t cap);

#endif
