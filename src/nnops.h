/* nnops.h - the element-wise steps the transformer engines share (llama.c
 * for llama2.c checkpoints, hfmodel.c for Hugging Face ones): computed in
 * double, rounded once, saturating at +-FLT_MAX so that finite weights never
 * give inf or NaN. One definition, so both engines give the same bits. */
#ifndef ATTNVIZ_NNOPS_H
#define ATTNVIZ_NNOPS_H

#include <float.h>
#include <math.h>
#include <stddef.h>

/* The k most likely of v logits z after a softmax (in double), most likely
 * first, the lower id first among equal ones: ids and probabilities into
 * ids[0..k), probs[0..k); returns how many (<= k). The next-token panels of
 * both engines' sources. */
static inline int nn_top_k_softmax(const float *z, int v, int k, int *ids, double *probs) {
    int got = 0;
    double mx = -INFINITY, sum = 0;
    for (int t = 0; t < v; t++) mx = z[t] > mx ? z[t] : mx;
    for (int t = 0; t < v; t++) sum += exp((double)z[t] - mx);
    for (int t = 0; t < v; t++) { /* insertion into the k best */
        double p = exp((double)z[t] - mx) / sum;
        int at = got < k ? got : k;
        while (at > 0 && probs[at - 1] < p) at--;
        if (at >= k) continue;
        int last = got < k ? got : k - 1;
        for (int s = last; s > at; s--) ids[s] = ids[s - 1], probs[s] = probs[s - 1];
        ids[at] = t, probs[at] = p;
        if (got < k) got++;
    }
    return got;
}

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
