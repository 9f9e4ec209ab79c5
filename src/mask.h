/* mask.h - which keys each query may attend to. */
#ifndef ATTNVIZ_MASK_H
#define ATTNVIZ_MASK_H

#include "error.h"

typedef enum { MASK_NONE, MASK_CAUSAL, MASK_KIND_COUNT } MaskKind;

const char *mask_name(MaskKind k);                 /* "none", "causal" */
int mask_parse(const char *s, MaskKind *out, AvError *err);

/* allowed (n_q, n_k): 1 where query i may attend to key j, 0 where the mask
 * forbids it. causal: key j is allowed for query i when j <= i (top-left
 * aligned, as PyTorch's is_causal). */
void mask_fill(unsigned char *allowed, MaskKind kind, int n_q, int n_k);

#endif
