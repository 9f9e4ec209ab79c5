/* nnops.h - the element-wise steps of the transformer engine
 * (transformer.c, transformer_linear.c): computed in double, rounded once,
 * saturating at +-FLT_MAX so that finite weights never give inf or NaN.
 *
 * The steps over arrays have AVX-512, AVX2 and portable versions, chosen by
 * the matrix kernel in use (matrix.h: mat_set_kernel("avx2") forces the AVX2
 * ones). They do the same IEEE operations in the same order (a fused
 * multiply-add where the portable version calls fma), so they give the same
 * bits. exp is nn_exp's polynomial, not libm's: within about an ulp of
 * double, the same on every machine. */
#ifndef ATTNVIZ_NNOPS_H
#define ATTNVIZ_NNOPS_H

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "matrix.h"

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define NN_X86 1
#include <immintrin.h>
#endif

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

// ----------------------------------------------------------------------------
// the path, and exp

typedef enum { NN_PORTABLE, NN_AVX2, NN_AVX512 } NnPath;

/* The path of the matrix kernel in use. */
static inline NnPath nn_path(void) {
    const char *k = mat_kernel_name();
    return k[0] != 'a' ? NN_PORTABLE : k[3] == '5' ? NN_AVX512 : NN_AVX2;
}

#define NN_EXP_MAX   700.0                      /* the argument is clamped to +-this: e^700 < DBL_MAX */
#define NN_EXP_SHIFT 0x1.8p52                   /* t + this rounds t to an integer, kept in the low bits */
#define NN_LOG2E     1.4426950408889634         /* log2(e) */
#define NN_LN2_HI    6.93147180369123816490e-01 /* ln 2 = HI + LO, HI with 21 trailing zero bits: n HI exact (fdlibm) */
#define NN_LN2_LO    1.90821492927058770002e-10
/* The series of e^r on |r| <= ln2/2, Horner's order: 1/k! for k = 13 down
 * to 0 (truncated at 4e-18). */
static const double NN_EXP_C[14] = {1.0 / 6227020800.0,
                                    1.0 / 479001600.0,
                                    1.0 / 39916800.0,
                                    1.0 / 3628800.0,
                                    1.0 / 362880.0,
                                    1.0 / 40320.0,
                                    1.0 / 5040.0,
                                    1.0 / 720.0,
                                    1.0 / 120.0,
                                    1.0 / 24.0,
                                    1.0 / 6.0,
                                    0.5,
                                    1.0,
                                    1.0};

/* e^t for t clamped to +-NN_EXP_MAX: t = n ln2 + r, e^r by the series, 2^n
 * set in the exponent bits. */
static inline double nn_exp(double t) {
    t = t < -NN_EXP_MAX ? -NN_EXP_MAX : t;
    t = t > NN_EXP_MAX ? NN_EXP_MAX : t;
    double tn = t * NN_LOG2E + NN_EXP_SHIFT, n = tn - NN_EXP_SHIFT;
    double r = fma(n, -NN_LN2_HI, t);
    r = fma(n, -NN_LN2_LO, r);
    double p = 0.0;
    for (int k = 0; k < 14; k++) p = fma(p, r, NN_EXP_C[k]);
    double shift = NN_EXP_SHIFT, scale;
    int64_t ti, si;
    memcpy(&ti, &tn, sizeof ti);
    memcpy(&si, &shift, sizeof si);
    uint64_t bits = (uint64_t)(ti - si + 1023) << 52;
    memcpy(&scale, &bits, sizeof scale);
    return p * scale;
}

#ifdef NN_X86
__attribute__((target("avx512f"))) static inline __m512d nn_exp_avx512(__m512d t) {
    const __m512d shift = _mm512_set1_pd(NN_EXP_SHIFT);
    t = _mm512_max_pd(t, _mm512_set1_pd(-NN_EXP_MAX));
    t = _mm512_min_pd(t, _mm512_set1_pd(NN_EXP_MAX));
    __m512d tn = _mm512_add_pd(_mm512_mul_pd(t, _mm512_set1_pd(NN_LOG2E)), shift), n = _mm512_sub_pd(tn, shift);
    __m512d r = _mm512_fmadd_pd(n, _mm512_set1_pd(-NN_LN2_HI), t);
    r = _mm512_fmadd_pd(n, _mm512_set1_pd(-NN_LN2_LO), r);
    __m512d p = _mm512_setzero_pd();
    for (int k = 0; k < 14; k++) p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(NN_EXP_C[k]));
    __m512i e = _mm512_sub_epi64(_mm512_castpd_si512(tn), _mm512_castpd_si512(shift));
    __m512i bits = _mm512_slli_epi64(_mm512_add_epi64(e, _mm512_set1_epi64(1023)), 52);
    return _mm512_mul_pd(p, _mm512_castsi512_pd(bits));
}

__attribute__((target("avx2,fma"))) static inline __m256d nn_exp_avx2(__m256d t) {
    const __m256d shift = _mm256_set1_pd(NN_EXP_SHIFT);
    t = _mm256_max_pd(t, _mm256_set1_pd(-NN_EXP_MAX));
    t = _mm256_min_pd(t, _mm256_set1_pd(NN_EXP_MAX));
    __m256d tn = _mm256_add_pd(_mm256_mul_pd(t, _mm256_set1_pd(NN_LOG2E)), shift), n = _mm256_sub_pd(tn, shift);
    __m256d r = _mm256_fmadd_pd(n, _mm256_set1_pd(-NN_LN2_HI), t);
    r = _mm256_fmadd_pd(n, _mm256_set1_pd(-NN_LN2_LO), r);
    __m256d p = _mm256_setzero_pd();
    for (int k = 0; k < 14; k++) p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(NN_EXP_C[k]));
    __m256i e = _mm256_sub_epi64(_mm256_castpd_si256(tn), _mm256_castpd_si256(shift));
    __m256i bits = _mm256_slli_epi64(_mm256_add_epi64(e, _mm256_set1_epi64x(1023)), 52);
    return _mm256_mul_pd(p, _mm256_castsi256_pd(bits));
}
#endif

// ----------------------------------------------------------------------------
// the steps over arrays

/* out = a + b in float (what double then one rounding gives: 53 >= 2 * 24 + 2
 * bits), saturated at +-FLT_MAX; n elements (out may be a or b). */
#ifdef NN_X86
__attribute__((target("avx512f"))) static inline size_t nn_add_avx512(float *out, const float *a, const float *b,
                                                                      size_t n) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512 s = _mm512_add_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i));
        _mm512_storeu_ps(out + i, _mm512_min_ps(_mm512_max_ps(s, _mm512_set1_ps(-FLT_MAX)), _mm512_set1_ps(FLT_MAX)));
    }
    return i;
}

__attribute__((target("avx2,fma"))) static inline size_t nn_add_avx2(float *out, const float *a, const float *b,
                                                                     size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 s = _mm256_add_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i));
        _mm256_storeu_ps(out + i, _mm256_min_ps(_mm256_max_ps(s, _mm256_set1_ps(-FLT_MAX)), _mm256_set1_ps(FLT_MAX)));
    }
    return i;
}
#endif

static inline void nn_residual(float *out, const float *a, const float *b, size_t n) {
    size_t i = 0;
#ifdef NN_X86
    NnPath path = nn_path();
    if (path == NN_AVX512) i = nn_add_avx512(out, a, b, n);
    else if (path == NN_AVX2) i = nn_add_avx2(out, a, b, n);
#endif
    for (; i < n; i++) {
        float s = a[i] + b[i];
        out[i] = s < -FLT_MAX ? -FLT_MAX : s > FLT_MAX ? FLT_MAX : s;
    }
}

/* The double of a float, rounded back to float saturated at +-FLT_MAX. */
#ifdef NN_X86
__attribute__((target("avx512f"))) static inline __m256 nn_sat_avx512(__m512d v) {
    v = _mm512_min_pd(_mm512_max_pd(v, _mm512_set1_pd(-FLT_MAX)), _mm512_set1_pd(FLT_MAX));
    return _mm512_cvtpd_ps(v);
}
__attribute__((target("avx2,fma"))) static inline __m128 nn_sat_avx2(__m256d v) {
    v = _mm256_min_pd(_mm256_max_pd(v, _mm256_set1_pd(-FLT_MAX)), _mm256_set1_pd(FLT_MAX));
    return _mm256_cvtpd_ps(v);
}
#endif

/* h1 = silu(h1) * h3 = h1 / (1 + e^-h1) * h3 (SwiGLU), n elements. */
static inline float nn_swiglu1(float h1, float h3) {
    double x = h1;
    return nn_sat(x / (1.0 + nn_exp(0.0 - x)) * h3);
}

#ifdef NN_X86
__attribute__((target("avx512f"))) static inline void nn_swiglu8_avx512(float *h1, const float *h3) {
    __m512d x = _mm512_cvtps_pd(_mm256_loadu_ps(h1));
    __m512d e = nn_exp_avx512(_mm512_sub_pd(_mm512_setzero_pd(), x));
    __m512d g = _mm512_div_pd(x, _mm512_add_pd(_mm512_set1_pd(1.0), e));
    _mm256_storeu_ps(h1, nn_sat_avx512(_mm512_mul_pd(g, _mm512_cvtps_pd(_mm256_loadu_ps(h3)))));
}

__attribute__((target("avx2,fma"))) static inline void nn_swiglu4_avx2(float *h1, const float *h3) {
    __m256d x = _mm256_cvtps_pd(_mm_loadu_ps(h1));
    __m256d e = nn_exp_avx2(_mm256_sub_pd(_mm256_setzero_pd(), x));
    __m256d g = _mm256_div_pd(x, _mm256_add_pd(_mm256_set1_pd(1.0), e));
    _mm_storeu_ps(h1, nn_sat_avx2(_mm256_mul_pd(g, _mm256_cvtps_pd(_mm_loadu_ps(h3)))));
}

__attribute__((target("avx512f"))) static inline size_t nn_swiglu_avx512(float *h1, const float *h3, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) nn_swiglu8_avx512(h1 + i, h3 + i);
    return i;
}

__attribute__((target("avx2,fma"))) static inline size_t nn_swiglu_avx2(float *h1, const float *h3, size_t n) {
    size_t i = 0;
    for (; i + 4 <= n; i += 4) nn_swiglu4_avx2(h1 + i, h3 + i);
    return i;
}
#endif

static inline void nn_swiglu(float *h1, const float *h3, size_t n) {
    size_t i = 0;
#ifdef NN_X86
    NnPath path = nn_path();
    if (path == NN_AVX512) i = nn_swiglu_avx512(h1, h3, n);
    else if (path == NN_AVX2) i = nn_swiglu_avx2(h1, h3, n);
#endif
    for (; i < n; i++) h1[i] = nn_swiglu1(h1[i], h3[i]);
}

/* GELU, tanh approximation (HF's gelu_new), as x / (1 + e^-2u) with
 * u = sqrt(2/pi) (x + 0.044715 x^3): 0.5 x (1 + tanh u) without the
 * cancellation of 1 + tanh u for negative x. n elements. */
#define NN_GELU_K 0.79788456080286535588 /* sqrt(2 / pi) */
static inline float nn_gelu1(float h) {
    double x = h, u = NN_GELU_K * (x + 0.044715 * x * x * x);
    return (float)(x / (1.0 + nn_exp(-2.0 * u))); /* |result| <= |x|: no saturation */
}

#ifdef NN_X86
__attribute__((target("avx512f"))) static inline void nn_gelu8_avx512(float *h) {
    __m512d x = _mm512_cvtps_pd(_mm256_loadu_ps(h));
    __m512d x3 = _mm512_mul_pd(_mm512_mul_pd(_mm512_mul_pd(_mm512_set1_pd(0.044715), x), x), x);
    __m512d u = _mm512_mul_pd(_mm512_set1_pd(NN_GELU_K), _mm512_add_pd(x, x3));
    __m512d e = nn_exp_avx512(_mm512_mul_pd(_mm512_set1_pd(-2.0), u));
    _mm256_storeu_ps(h, _mm512_cvtpd_ps(_mm512_div_pd(x, _mm512_add_pd(_mm512_set1_pd(1.0), e))));
}

__attribute__((target("avx2,fma"))) static inline void nn_gelu4_avx2(float *h) {
    __m256d x = _mm256_cvtps_pd(_mm_loadu_ps(h));
    __m256d x3 = _mm256_mul_pd(_mm256_mul_pd(_mm256_mul_pd(_mm256_set1_pd(0.044715), x), x), x);
    __m256d u = _mm256_mul_pd(_mm256_set1_pd(NN_GELU_K), _mm256_add_pd(x, x3));
    __m256d e = nn_exp_avx2(_mm256_mul_pd(_mm256_set1_pd(-2.0), u));
    _mm_storeu_ps(h, _mm256_cvtpd_ps(_mm256_div_pd(x, _mm256_add_pd(_mm256_set1_pd(1.0), e))));
}

__attribute__((target("avx512f"))) static inline size_t nn_gelu_avx512(float *h, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) nn_gelu8_avx512(h + i);
    return i;
}

__attribute__((target("avx2,fma"))) static inline size_t nn_gelu_avx2(float *h, size_t n) {
    size_t i = 0;
    for (; i + 4 <= n; i += 4) nn_gelu4_avx2(h + i);
    return i;
}
#endif

static inline void nn_gelu(float *h, size_t n) {
    size_t i = 0;
#ifdef NN_X86
    NnPath path = nn_path();
    if (path == NN_AVX512) i = nn_gelu_avx512(h, n);
    else if (path == NN_AVX2) i = nn_gelu_avx2(h, n);
#endif
    for (; i < n; i++) h[i] = nn_gelu1(h[i]);
}

// ----------------------------------------------------------------------------
// norms (double inside, rounded once, saturating)

/* The sums of a row for a norm, in double over 8 lanes (element j in lane
 * j % 8, the lanes added pairwise at the end): the same bits on every path.
 * Of x[j] when squares is 0, else of (x[j] - mean)^2. */
static inline double nn_lane_total(const double *lane) {
    return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

static inline void nn_row_sum_tail(double *lane, const float *x, int j, int n, double mean, int squares) {
    for (; j < n; j++) {
        double d = (double)x[j] - mean;
        lane[j % 8] += squares ? d * d : (double)x[j];
    }
}

#ifdef NN_X86
__attribute__((target("avx512f"))) static inline double nn_row_sum_avx512(const float *x, int n, double mean,
                                                                          int squares) {
    __m512d acc = _mm512_setzero_pd(), m = _mm512_set1_pd(mean);
    int j = 0;
    for (; j + 8 <= n; j += 8) {
        __m512d v = _mm512_cvtps_pd(_mm256_loadu_ps(x + j));
        if (squares) v = _mm512_sub_pd(v, m), v = _mm512_mul_pd(v, v);
        acc = _mm512_add_pd(acc, v);
    }
    double lane[8];
    _mm512_storeu_pd(lane, acc);
    nn_row_sum_tail(lane, x, j, n, mean, squares);
    return nn_lane_total(lane);
}

__attribute__((target("avx2,fma"))) static inline double nn_row_sum_avx2(const float *x, int n, double mean,
                                                                         int squares) {
    __m256d acc0 = _mm256_setzero_pd(), acc1 = _mm256_setzero_pd(), m = _mm256_set1_pd(mean);
    int j = 0;
    for (; j + 8 <= n; j += 8) {
        __m256d v0 = _mm256_cvtps_pd(_mm_loadu_ps(x + j)), v1 = _mm256_cvtps_pd(_mm_loadu_ps(x + j + 4));
        if (squares) {
            v0 = _mm256_sub_pd(v0, m), v0 = _mm256_mul_pd(v0, v0);
            v1 = _mm256_sub_pd(v1, m), v1 = _mm256_mul_pd(v1, v1);
        }
        acc0 = _mm256_add_pd(acc0, v0), acc1 = _mm256_add_pd(acc1, v1);
    }
    double lane[8];
    _mm256_storeu_pd(lane, acc0);
    _mm256_storeu_pd(lane + 4, acc1);
    nn_row_sum_tail(lane, x, j, n, mean, squares);
    return nn_lane_total(lane);
}

/* o[0..n) = sat((x - mean) * inv * w + b) in double (b NULL: + 0) */
__attribute__((target("avx512f"))) static inline int
nn_norm_out_avx512(float *o, const float *x, const float *w, const float *b, double mean, double inv, int n) {
    __m512d m = _mm512_set1_pd(mean), s = _mm512_set1_pd(inv);
    int j = 0;
    for (; j + 8 <= n; j += 8) {
        __m512d v = _mm512_mul_pd(_mm512_sub_pd(_mm512_cvtps_pd(_mm256_loadu_ps(x + j)), m), s);
        v = _mm512_mul_pd(v, _mm512_cvtps_pd(_mm256_loadu_ps(w + j)));
        v = _mm512_add_pd(v, b ? _mm512_cvtps_pd(_mm256_loadu_ps(b + j)) : _mm512_setzero_pd());
        _mm256_storeu_ps(o + j, nn_sat_avx512(v));
    }
    return j;
}

__attribute__((target("avx2,fma"))) static inline int nn_norm_out_avx2(float *o, const float *x, const float *w,
                                                                       const float *b, double mean, double inv, int n) {
    __m256d m = _mm256_set1_pd(mean), s = _mm256_set1_pd(inv);
    int j = 0;
    for (; j + 4 <= n; j += 4) {
        __m256d v = _mm256_mul_pd(_mm256_sub_pd(_mm256_cvtps_pd(_mm_loadu_ps(x + j)), m), s);
        v = _mm256_mul_pd(v, _mm256_cvtps_pd(_mm_loadu_ps(w + j)));
        v = _mm256_add_pd(v, b ? _mm256_cvtps_pd(_mm_loadu_ps(b + j)) : _mm256_setzero_pd());
        _mm_storeu_ps(o + j, nn_sat_avx2(v));
    }
    return j;
}
#endif

static inline double nn_row_sum(const float *x, int n, double mean, int squares) {
#ifdef NN_X86
    NnPath path = nn_path();
    if (path == NN_AVX512) return nn_row_sum_avx512(x, n, mean, squares);
    if (path == NN_AVX2) return nn_row_sum_avx2(x, n, mean, squares);
#endif
    double lane[8] = {0};
    nn_row_sum_tail(lane, x, 0, n, mean, squares);
    return nn_lane_total(lane);
}

/* o (n) = LayerNorm(x) * w + b (b NULL: RMSNorm * w) (transformer.c). */
static inline void nn_norm_row(float *o, const float *x, const float *w, const float *b, double eps, int n) {
    double mean = b ? nn_row_sum(x, n, 0.0, 0) / n : 0.0;
    double inv = 1.0 / sqrt(nn_row_sum(x, n, mean, 1) / n + eps);
    int j = 0;
#ifdef NN_X86
    NnPath path = nn_path();
    if (path == NN_AVX512) j = nn_norm_out_avx512(o, x, w, b, mean, inv, n);
    else if (path == NN_AVX2) j = nn_norm_out_avx2(o, x, w, b, mean, inv, n);
#endif
    for (; j < n; j++) o[j] = nn_sat(((double)x[j] - mean) * inv * w[j] + (b ? b[j] : 0.0));
}

// ----------------------------------------------------------------------------
// a product's tile turned into the output's rows

/* r[k] = column k of the 8 x 8 block whose row j is r[j] (moves only). */
#ifdef NN_X86
__attribute__((target("avx2,fma"))) static inline void nn_transpose8(__m256 r[8]) {
    __m256 u0 = _mm256_unpacklo_ps(r[0], r[1]), u1 = _mm256_unpackhi_ps(r[0], r[1]);
    __m256 u2 = _mm256_unpacklo_ps(r[2], r[3]), u3 = _mm256_unpackhi_ps(r[2], r[3]);
    __m256 u4 = _mm256_unpacklo_ps(r[4], r[5]), u5 = _mm256_unpackhi_ps(r[4], r[5]);
    __m256 u6 = _mm256_unpacklo_ps(r[6], r[7]), u7 = _mm256_unpackhi_ps(r[6], r[7]);
    __m256 s0 = _mm256_shuffle_ps(u0, u2, 0x44), s1 = _mm256_shuffle_ps(u0, u2, 0xEE);
    __m256 s2 = _mm256_shuffle_ps(u1, u3, 0x44), s3 = _mm256_shuffle_ps(u1, u3, 0xEE);
    __m256 s4 = _mm256_shuffle_ps(u4, u6, 0x44), s5 = _mm256_shuffle_ps(u4, u6, 0xEE);
    __m256 s6 = _mm256_shuffle_ps(u5, u7, 0x44), s7 = _mm256_shuffle_ps(u5, u7, 0xEE);
    r[0] = _mm256_permute2f128_ps(s0, s4, 0x20), r[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
    r[2] = _mm256_permute2f128_ps(s2, s6, 0x20), r[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
    r[4] = _mm256_permute2f128_ps(s0, s4, 0x31), r[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
    r[6] = _mm256_permute2f128_ps(s2, s6, 0x31), r[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
}
#endif

/* out[i * ld + c] = tile[c * ldt + i] for c < wrows, i < rows: a left
 * product's tile (wrows, rows) into out's rows (transformer_linear.c); 8 x 8 blocks in AVX
 * registers (moves only: the bits are the tile's). */
#ifdef NN_X86
__attribute__((target("avx2,fma"))) static inline int nn_tile_out_avx(float *out, int ld, const float *tile, size_t n,
                                                                      int rows, int wrows) {
    int c0 = 0;
    for (; c0 + 8 <= wrows; c0 += 8) {
        int i0 = 0;
        for (; i0 + 8 <= rows; i0 += 8) {
            const float *t0 = tile + (size_t)c0 * n + i0;
            __m256 r[8];
            for (int k = 0; k < 8; k++) r[k] = _mm256_loadu_ps(t0 + (size_t)k * n);
            nn_transpose8(r);
            float *o = out + (size_t)i0 * ld + c0; /* row i0 + k: tile column i0 + k */
            for (int k = 0; k < 8; k++) _mm256_storeu_ps(o + (size_t)k * ld, r[k]);
        }
        for (; i0 < rows; i0++)
            for (int c = c0; c < c0 + 8; c++) out[(size_t)i0 * ld + c] = tile[(size_t)c * n + i0];
    }
    return c0;
}
#endif

static inline void nn_tile_out(float *out, int ld, const float *tile, size_t ldt, int rows, int wrows) {
    int c0 = 0;
#ifdef NN_X86
    if (nn_path() != NN_PORTABLE) c0 = nn_tile_out_avx(out, ld, tile, ldt, rows, wrows);
#endif
    for (int i = 0; i < rows; i++)
        for (int c = c0; c < wrows; c++) out[(size_t)i * ld + c] = tile[(size_t)c * ldt + i];
}

#endif
