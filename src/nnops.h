/* nnops.h - the element-wise steps the transformer engines share (llama.c
 * for llama2.c checkpoints, hfmodel.c for Hugging Face ones): computed in
 * double, rounded once, saturating at +-FLT_MAX so that finite weights never
 * give inf or NaN. One definition, so both engines give the same bits. */
#ifndef ATTNVIZ_NNOPS_H
#define ATTNVIZ_NNOPS_H

#include <float.h>
#include <math.h>
#include <stddef.h>

/* v rounded to float, saturated at +-FLT_MAX. */
static inline float nn_sat(double v) {
    if (v > FLT_MAX) return FLT_MAX;
    if (v < -FLT_MAX) return -FLT_MAX;
    return (float)v;
}

/* out = a + b, n elements. */
static inline void nn_residual(float *out, const float *a, const float *b, size_t n) {
    for (size_t i = 0; i < n; i++) out[i] = nn_sat((double)a[i] + b[i]);
}

/* h1 = silu(h1) * h3 (SwiGLU), n elements. */
static inline void nn_swiglu(float *h1, const float *h3, size_t n) {
    for (size_t i = 0; i < n; i++) {
        double x = h1[i];
        h1[i] = nn_sat(x / (1.0 + exp(-x)) * h3[i]);
    }
}

#endif
