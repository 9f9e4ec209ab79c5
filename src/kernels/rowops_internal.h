/* rowops_internal.h - what the row operations of every instruction set
 * share, for them alone: rowops.c (the portable versions, the choice among
 * them, the softmax), rowops_avx2.c and rowops_avx512.c. */
#ifndef ATTNVIZ_ROWOPS_INTERNAL_H
#define ATTNVIZ_ROWOPS_INTERNAL_H

#include "rowops.h"

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define HAVE_X86 1
#include <immintrin.h>
#endif

// ----------------------------------------------------------------------------
// exp: the constants and the sequence every version follows

#define EXP_LO     (-87.33654f) /* below: 0 (e^x < FLT_MIN) */
#define EXP_LOG2E  1.44269504088896341f
#define EXP_LN2_HI 0.693359375f /* ln 2 = HI - LO, HI exact in 10 bits */
#define EXP_LN2_LO (-2.12194440e-4f)
#define EXP_P0     1.9875691500e-4f /* Cephes expf */
#define EXP_P1     1.3981999507e-3f
#define EXP_P2     8.3334519073e-3f
#define EXP_P3     4.1665795894e-2f
#define EXP_P4     1.6666665459e-1f
#define EXP_P5     5.0000001201e-1f

/* e[j] = exp(s[j] - max), 0 where s[j] is -inf (attn_exp_row). */
typedef void (*ExpRow)(float *, const float *, float, int);

/* The row operations of one instruction set, each the same operations
 * element by element as the portable one (sums: the same eight lanes). */
typedef struct {
    double (*sum)(const float *, int);
    float (*max)(const float *, int);
    float (*normalize)(float *, int, double);
    double (*wdot)(const float *, const float *, float, int);
    void (*scale)(float *, const float *, int, ScaleOp, double);
    void (*mask)(float *, const float *, const unsigned char *, int);
    double (*exp_sum)(float *, const float *, float, int);
    float (*norm_stats)(float *, const float *, float, int, double, double *, double *);
    int (*scale_mask_pow2)(float *, float *, const float *, const unsigned char *, int, ScaleOp, float);
} RowOps;

/* The eight lanes of a sum combined in their fixed order. */
static inline double combine8(const double t[8]) {
    return ((t[0] + t[1]) + (t[2] + t[3])) + ((t[4] + t[5]) + (t[6] + t[7]));
}

/* The portable versions the SIMD ones finish a row's tail with. */
float rowops_normalize_portable(float *w, int n, double inv);
void rowops_scale_portable(float *out, const float *raw, int n, ScaleOp op, double by);
void rowops_mask_portable(float *out, const float *s, const unsigned char *ok, int n);

#ifdef HAVE_X86
extern const RowOps rowops_avx512;                                      /* needs avx512f, avx512vl, avx512bw */
extern const RowOps rowops_avx2;                                        /* needs avx2, fma */
void rowops_exp_row_avx512(float *e, const float *s, float max, int n); /* needs avx512f */
void rowops_exp_row_avx2(float *e, const float *s, float max, int n);   /* needs avx2, fma */
#endif

#endif
