/* mask.c - see mask.h. */
#include "mask.h"

#include <string.h>

static const char *const names[MASK_KIND_COUNT] = {"none", "causal"};

const char *mask_name(MaskKind k) { return (unsigned)k < MASK_KIND_COUNT ? names[k] : "?"; }

int mask_parse(const char *s, MaskKind *out, AvError *err) {
    for (int k = 0; k < MASK_KIND_COUNT; k++)
        if (strcmp(s, names[k]) == 0) {
            *out = (MaskKind)k;
            return 0;
        }
    return av_errorf(err, "unknown mask '%s' (expected none or causal)", s);
}

void mask_fill(unsigned char *allowed, MaskKind kind, int n_q, int n_k) {
    for (int i = 0; i < n_q; i++)
        for (int j = 0; j < n_k; j++) {
            int ok = 1;
            if (kind == MASK_CAUSAL) ok = j <= i;
            allowed[(size_t)i * n_k + j] = (unsigned char)ok;
        }
}
