/* rowops.c - see rowops.h. */
#include "rowops.h"

#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

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

float attn_expf(float x) {
    if (!(x >= EXP_LO)) return 0.0f; /* also -inf */
    if (x > 88.0f) x = 88.0f;
    float t = x * EXP_LOG2E;
    float n = nearbyintf(t); /* to nearest, ties to even: as the SIMD rounding */
    float r = fmaf(n, -EXP_LN2_HI, x);
    r = fmaf(n, -EXP_LN2_LO, r);
    float z = r * r;
    float y = EXP_P0;
    y = fmaf(y, r, EXP_P1);
    y = fmaf(y, r, EXP_P2);
    y = fmaf(y, r, EXP_P3);
    y = fmaf(y, r, EXP_P4);
    y = fmaf(y, r, EXP_P5);
    y = fmaf(y, z, r);
    y = y + 1.0f;
    int32_t bits = ((int32_t)n + 127) << 23;
    float scale;
    memcpy(&scale, &bits, sizeof scale);
    return y * scale;
}

static void exp_row_portable(float *e, const float *s, float max, int n) {
    for (int j = 0; j < n; j++) e[j] = s[j] == -INFINITY ? 0.0f : attn_expf(s[j] - max);
}

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define HAVE_X86 1
#include <immintrin.h>

/* exp16 and exp8 (below) are the one sequence, 16 or 8 at a time. */
__attribute__((target("avx512f"))) static inline __m512 exp16(__m512 sv, __m512 vmax);
__attribute__((target("avx2,fma"))) static inline __m256 exp8(__m256 sv, __m256 vmax);

__attribute__((target("avx512f"))) static void exp_row_avx512(float *e, const float *s, float max, int n) {
    __m512 vmax = _mm512_set1_ps(max);
    int j = 0;
    for (; j + 16 <= n; j += 16) _mm512_storeu_ps(e + j, exp16(_mm512_loadu_ps(s + j), vmax));
    if (j < n) {
        __mmask16 k = (__mmask16)((1u << (n - j)) - 1);
        _mm512_mask_storeu_ps(e + j, k, exp16(_mm512_mask_loadu_ps(_mm512_set1_ps(-INFINITY), k, s + j), vmax));
    }
}

__attribute__((target("avx2,fma"))) static void exp_row_avx2(float *e, const float *s, float max, int n) {
    __m256 vmax = _mm256_set1_ps(max);
    int j = 0;
    for (; j + 8 <= n; j += 8) _mm256_storeu_ps(e + j, exp8(_mm256_loadu_ps(s + j), vmax));
    if (j < n) {
        __m256i k = _mm256_cmpgt_epi32(_mm256_set1_epi32(n - j), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        __m256 sv = _mm256_blendv_ps(_mm256_set1_ps(-INFINITY), _mm256_maskload_ps(s + j, k), _mm256_castsi256_ps(k));
        _mm256_maskstore_ps(e + j, k, exp8(sv, vmax));
    }
}
#endif

typedef void (*ExpRow)(float *, const float *, float, int);
/* chosen at the first call, which may come from several worker threads at once */
static _Atomic(ExpRow) exp_row;

static ExpRow best_exp(void);

void attn_exp_row(float *e, const float *s, float max, int n) {
    ExpRow f = atomic_load_explicit(&exp_row, memory_order_relaxed);
    if (!f) {
        f = best_exp();
        atomic_store_explicit(&exp_row, f, memory_order_relaxed);
    }
    f(e, s, max, n);
}

// ----------------------------------------------------------------------------
// the other row operations: a portable version and an AVX-512 one that does
// the same operations element by element (sums: the same eight lanes)

static double combine8(const double t[8]) { return ((t[0] + t[1]) + (t[2] + t[3])) + ((t[4] + t[5]) + (t[6] + t[7])); }

static double sum_portable(const float *x, int n) {
    double t[8] = {0};
    for (int j = 0; j < n; j++) t[j & 7] += x[j];
    return combine8(t);
}

static float max_portable(const float *x, int n) {
    float m = -INFINITY;
    for (int j = 0; j < n; j++)
        if (x[j] > m) m = x[j];
    return m;
}

/* w[j] = (float)(w[j] * inv); returns the largest. */
static float normalize_portable(float *w, int n, double inv) {
    float mx = 0.0f;
    for (int j = 0; j < n; j++) {
        w[j] = (float)((double)w[j] * inv);
        if (w[j] > mx) mx = w[j];
    }
    return mx;
}

/* sum over the unmasked j of w[j] * (s[j] - max), in eight lanes. */
static double wdot_portable(const float *w, const float *s, float max, int n) {
    double t[8] = {0};
    for (int j = 0; j < n; j++)
        if (s[j] != -INFINITY && w[j] != 0.0f) t[j & 7] += (double)w[j] * (double)(s[j] - max);
    return combine8(t);
}

/* The fused passes of the softmax: e = exp(s - max) with its sum; w = e *
 * inv with its sum, its largest value and the entropy's dot, each the same
 * operations in the same order as the separate passes. */
static double exp_sum_portable(float *e, const float *s, float max, int n) {
    exp_row_portable(e, s, max, n);
    return sum_portable(e, n);
}

static float norm_stats_portable(float *w, const float *s, float max, int n, double inv, double *sum, double *wdot) {
    float mx = normalize_portable(w, n, inv);
    *sum = sum_portable(w, n);
    *wdot = wdot_portable(w, s, max, n);
    return mx;
}

static float clampf(float v) { return v > FLT_MAX ? FLT_MAX : v < -FLT_MAX ? -FLT_MAX : v; }

/* 1 when scaling by `by` is a float multiply by *f with the same bits as
 * the double operation: by (or 1 / by for a division) a power of two whose
 * float is a normal number. The double product or quotient is then exact
 * and rounded once to float; the float product rounds the same exact value
 * once (1/sqrt(d_k) for d_k 4, 16, 64, 256). */
static int pow2_factor(ScaleOp op, double by, float *f) {
    if (op != SCALE_MULTIPLY && op != SCALE_DIVIDE) return 0;
    uint64_t bits;
    memcpy(&bits, &by, sizeof bits);
    int e = (int)(bits >> 52) - 1023; /* by = 2^e: positive, no fraction bits, a normal float both ways */
    if ((bits >> 63) || (bits & ((1ull << 52) - 1)) || e < -125 || e > 125) return 0;
    *f = op == SCALE_MULTIPLY ? (float)by : (float)(1.0 / by);
    return 1;
}

static void scale_portable(float *out, const float *raw, int n, ScaleOp op, double by) {
    float f;
    if (pow2_factor(op, by, &f)) {
        for (int j = 0; j < n; j++) out[j] = op == SCALE_MULTIPLY ? clampf(raw[j] * f) : raw[j] * f;
        return;
    }
    for (int j = 0; j < n; j++) {
        if (op == SCALE_DIVIDE) out[j] = (float)((double)raw[j] / by);
        else if (op == SCALE_MULTIPLY) out[j] = clampf((float)((double)raw[j] * by));
        else out[j] = raw[j];
    }
}

static void mask_portable(float *out, const float *s, const unsigned char *ok, int n) {
    for (int j = 0; j < n; j++) out[j] = ok[j] ? s[j] : -INFINITY;
}

#ifdef HAVE_X86
__attribute__((target("avx512f,avx512vl,avx512bw"))) static double sum_avx512(const float *x, int n) {
    __m512d acc = _mm512_setzero_pd();
    int j = 0;
    for (; j + 8 <= n; j += 8) acc = _mm512_add_pd(acc, _mm512_cvtps_pd(_mm256_loadu_ps(x + j)));
    double t[8];
    _mm512_storeu_pd(t, acc);
    for (; j < n; j++) t[j & 7] += x[j];
    return combine8(t);
}

__attribute__((target("avx512f,avx512vl,avx512bw"))) static float max_avx512(const float *x, int n) {
    __m512 m = _mm512_set1_ps(-INFINITY);
    int j = 0;
    for (; j + 16 <= n; j += 16) m = _mm512_max_ps(m, _mm512_loadu_ps(x + j));
    if (j < n) m = _mm512_max_ps(m, _mm512_mask_loadu_ps(m, (__mmask16)((1u << (n - j)) - 1), x + j));
    return _mm512_reduce_max_ps(m);
}

__attribute__((target("avx512f,avx512vl,avx512bw"))) static float normalize_avx512(float *w, int n, double inv) {
    __m512d vinv = _mm512_set1_pd(inv);
    __m256 mx = _mm256_setzero_ps();
    int j = 0;
    for (; j + 8 <= n; j += 8) {
        __m256 v = _mm512_cvtpd_ps(_mm512_mul_pd(_mm512_cvtps_pd(_mm256_loadu_ps(w + j)), vinv));
        _mm256_storeu_ps(w + j, v);
        mx = _mm256_max_ps(mx, v);
    }
    float t[8], r = 0.0f;
    _mm256_storeu_ps(t, mx);
    for (int l = 0; l < 8; l++)
        if (t[l] > r) r = t[l];
    float rest = normalize_portable(w + j, n - j, inv);
    return rest > r ? rest : r;
}

__attribute__((target("avx512f,avx512vl,avx512bw"))) static double wdot_avx512(const float *w, const float *s,
                                                                               float max, int n) {
    __m512d acc = _mm512_setzero_pd();
    __m256 vmax = _mm256_set1_ps(max), ninf = _mm256_set1_ps(-INFINITY);
    int j = 0;
    for (; j + 8 <= n; j += 8) {
        __m256 sv = _mm256_loadu_ps(s + j);
        __m256 wf = _mm256_loadu_ps(w + j);
        /* a weight of 0 adds nothing (and 0 * -inf, when s - max leaves the float range, would be NaN) */
        __mmask8 ok =
            _mm256_cmp_ps_mask(sv, ninf, _CMP_NEQ_OQ) & _mm256_cmp_ps_mask(wf, _mm256_setzero_ps(), _CMP_NEQ_OQ);
        __m512d d = _mm512_cvtps_pd(_mm256_sub_ps(sv, vmax));
        __m512d wv = _mm512_cvtps_pd(wf);
        acc = _mm512_mask_add_pd(acc, ok, acc, _mm512_mul_pd(wv, d));
    }
    double t[8];
    _mm512_storeu_pd(t, acc);
    for (; j < n; j++)
        if (s[j] != -INFINITY && w[j] != 0.0f) t[j & 7] += (double)w[j] * (double)(s[j] - max);
    return combine8(t);
}

__attribute__((target("avx512f,avx512vl,avx512bw"))) static void scale_avx512(float *out, const float *raw, int n,
                                                                              ScaleOp op, double by) {
    if (op == SCALE_COPY) {
        memcpy(out, raw, sizeof(float) * (size_t)n);
        return;
    }
    __m512d vby = _mm512_set1_pd(by);
    __m256 lim = _mm256_set1_ps(FLT_MAX);
    int j = 0;
    for (; j + 8 <= n; j += 8) {
        __m512d x = _mm512_cvtps_pd(_mm256_loadu_ps(raw + j));
        __m256 v;
        if (op == SCALE_DIVIDE) {
            v = _mm512_cvtpd_ps(_mm512_div_pd(x, vby));
        } else {
            v = _mm512_cvtpd_ps(_mm512_mul_pd(x, vby));
            v = _mm256_max_ps(_mm256_min_ps(v, lim), _mm256_sub_ps(_mm256_setzero_ps(), lim));
        }
        _mm256_storeu_ps(out + j, v);
    }
    scale_portable(out + j, raw + j, n - j, op, by);
}

__attribute__((target("avx512f,avx512vl,avx512bw"))) static void mask_avx512(float *out, const float *s,
                                                                             const unsigned char *ok, int n) {
    __m512 ninf = _mm512_set1_ps(-INFINITY);
    int j = 0;
    for (; j + 16 <= n; j += 16) {
        __mmask16 k = _mm_test_epi8_mask(_mm_loadu_si128((const __m128i *)(ok + j)), _mm_set1_epi8(-1));
        _mm512_storeu_ps(out + j, _mm512_mask_blend_ps(k, ninf, _mm512_loadu_ps(s + j)));
    }
    mask_portable(out + j, s + j, ok + j, n - j);
}

/* exp of 16 scores (attn_expf's sequence), masked ones 0. */
__attribute__((target("avx512f"))) static inline __m512 exp16(__m512 sv, __m512 vmax) {
    const __m512 lo = _mm512_set1_ps(EXP_LO), hi = _mm512_set1_ps(88.0f);
    __mmask16 ok = _mm512_cmp_ps_mask(sv, _mm512_set1_ps(-INFINITY), _CMP_NEQ_OQ);
    __m512 x = _mm512_sub_ps(sv, vmax);
    ok &= _mm512_cmp_ps_mask(x, lo, _CMP_GE_OQ);
    x = _mm512_min_ps(x, hi);
    __m512 t = _mm512_mul_ps(x, _mm512_set1_ps(EXP_LOG2E));
    __m512 nn = _mm512_roundscale_ps(t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fmadd_ps(nn, _mm512_set1_ps(-EXP_LN2_HI), x);
    r = _mm512_fmadd_ps(nn, _mm512_set1_ps(-EXP_LN2_LO), r);
    __m512 z = _mm512_mul_ps(r, r);
    __m512 y = _mm512_set1_ps(EXP_P0);
    y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(EXP_P1));
    y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(EXP_P2));
    y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(EXP_P3));
    y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(EXP_P4));
    y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(EXP_P5));
    y = _mm512_fmadd_ps(y, z, r);
    y = _mm512_add_ps(y, _mm512_set1_ps(1.0f));
    __m512i bits = _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(nn), _mm512_set1_epi32(127)), 23);
    return _mm512_maskz_mov_ps(ok, _mm512_mul_ps(y, _mm512_castsi512_ps(bits)));
}

__attribute__((target("avx512f,avx512vl,avx512bw"))) static double exp_sum_avx512(float *e, const float *s, float max,
                                                                                  int n) {
    __m512 vmax = _mm512_set1_ps(max);
    __m512d acc = _mm512_setzero_pd();
    int j = 0;
    for (; j + 16 <= n; j += 16) {
        __m512 y = exp16(_mm512_loadu_ps(s + j), vmax);
        _mm512_storeu_ps(e + j, y);
        acc = _mm512_add_pd(acc, _mm512_cvtps_pd(_mm512_castps512_ps256(y)));
        acc = _mm512_add_pd(acc, _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(y), 1))));
    }
    if (j < n) { /* the tail in one masked vector: the keys past n are -inf, their exp 0 adds nothing */
        __mmask16 k = (__mmask16)((1u << (n - j)) - 1);
        __m512 y = exp16(_mm512_mask_loadu_ps(_mm512_set1_ps(-INFINITY), k, s + j), vmax);
        _mm512_mask_storeu_ps(e + j, k, y);
        acc = _mm512_add_pd(acc, _mm512_cvtps_pd(_mm512_castps512_ps256(y)));
        acc = _mm512_add_pd(acc, _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(y), 1))));
    }
    double t[8];
    _mm512_storeu_pd(t, acc);
    return combine8(t);
}

__attribute__((target("avx512f,avx512vl,avx512bw"))) static float
norm_stats_avx512(float *w, const float *s, float max, int n, double inv, double *sum, double *wdot) {
    __m512d vinv = _mm512_set1_pd(inv), acc = _mm512_setzero_pd(), dot = _mm512_setzero_pd();
    __m256 mx = _mm256_setzero_ps(), vmax = _mm256_set1_ps(max), ninf = _mm256_set1_ps(-INFINITY);
    for (int j = 0; j < n; j += 8) {
        /* the tail in one masked vector: weight 0 and score -inf past n add nothing */
        __mmask8 k = n - j >= 8 ? 0xFF : (__mmask8)((1u << (n - j)) - 1);
        __m256 v = _mm512_cvtpd_ps(_mm512_mul_pd(_mm512_cvtps_pd(_mm256_maskz_loadu_ps(k, w + j)), vinv));
        _mm256_mask_storeu_ps(w + j, k, v);
        mx = _mm256_max_ps(mx, v);
        __m512d vd = _mm512_cvtps_pd(v);
        acc = _mm512_add_pd(acc, vd);
        __m256 sv = _mm256_mask_loadu_ps(ninf, k, s + j);
        __mmask8 ok =
            _mm256_cmp_ps_mask(sv, ninf, _CMP_NEQ_OQ) & _mm256_cmp_ps_mask(v, _mm256_setzero_ps(), _CMP_NEQ_OQ);
        dot = _mm512_mask_add_pd(dot, ok, dot, _mm512_mul_pd(vd, _mm512_cvtps_pd(_mm256_sub_ps(sv, vmax))));
    }
    float t[8], r = 0.0f;
    _mm256_storeu_ps(t, mx);
    for (int l = 0; l < 8; l++)
        if (t[l] > r) r = t[l];
    double ts[8], td[8];
    _mm512_storeu_pd(ts, acc);
    _mm512_storeu_pd(td, dot);
    *sum = combine8(ts);
    *wdot = combine8(td);
    return r;
}

/* AVX2: the same operations element by element, the eight lanes of a sum in
 * two vectors of four doubles (elements j..j+3 and j+4..j+7). */
__attribute__((target("avx2,fma"))) static double sum_avx2(const float *x, int n) {
    __m256d lo = _mm256_setzero_pd(), hi = _mm256_setzero_pd();
    int j = 0;
    for (; j + 8 <= n; j += 8) {
        lo = _mm256_add_pd(lo, _mm256_cvtps_pd(_mm_loadu_ps(x + j)));
        hi = _mm256_add_pd(hi, _mm256_cvtps_pd(_mm_loadu_ps(x + j + 4)));
    }
    double t[8];
    _mm256_storeu_pd(t, lo);
    _mm256_storeu_pd(t + 4, hi);
    for (; j < n; j++) t[j & 7] += x[j];
    return combine8(t);
}

__attribute__((target("avx2,fma"))) static float max_avx2(const float *x, int n) {
    __m256 m = _mm256_set1_ps(-INFINITY);
    int j = 0;
    for (; j + 8 <= n; j += 8) m = _mm256_max_ps(m, _mm256_loadu_ps(x + j));
    float t[8], r = -INFINITY;
    _mm256_storeu_ps(t, m);
    for (int l = 0; l < 8; l++)
        if (t[l] > r) r = t[l];
    for (; j < n; j++)
        if (x[j] > r) r = x[j];
    return r;
}

__attribute__((target("avx2,fma"))) static float normalize_avx2(float *w, int n, double inv) {
    __m256d vinv = _mm256_set1_pd(inv);
    __m128 mx = _mm_setzero_ps();
    int j = 0;
    for (; j + 4 <= n; j += 4) {
        __m128 v = _mm256_cvtpd_ps(_mm256_mul_pd(_mm256_cvtps_pd(_mm_loadu_ps(w + j)), vinv));
        _mm_storeu_ps(w + j, v);
        mx = _mm_max_ps(mx, v);
    }
    float t[4], r = 0.0f;
    _mm_storeu_ps(t, mx);
    for (int l = 0; l < 4; l++)
        if (t[l] > r) r = t[l];
    float rest = normalize_portable(w + j, n - j, inv);
    return rest > r ? rest : r;
}

/* The masked-out lanes add +0 (their product, maybe 0 * -inf, is cleared):
 * a sum that starts at +0 is unchanged by it, as by the skip of the others. */
__attribute__((target("avx2,fma"))) static __m256d wdot4(__m256d acc, const float *w, const float *s, __m128 vmax) {
    __m128 sv = _mm_loadu_ps(s), wf = _mm_loadu_ps(w);
    __m128 ok = _mm_and_ps(_mm_cmpneq_ps(sv, _mm_set1_ps(-INFINITY)), _mm_cmpneq_ps(wf, _mm_setzero_ps()));
    __m256d prod = _mm256_mul_pd(_mm256_cvtps_pd(wf), _mm256_cvtps_pd(_mm_sub_ps(sv, vmax)));
    __m256d okd = _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm_castps_si128(ok)));
    return _mm256_add_pd(acc, _mm256_and_pd(prod, okd));
}

__attribute__((target("avx2,fma"))) static double wdot_avx2(const float *w, const float *s, float max, int n) {
    __m256d lo = _mm256_setzero_pd(), hi = _mm256_setzero_pd();
    __m128 vmax = _mm_set1_ps(max);
    int j = 0;
    for (; j + 8 <= n; j += 8) {
        lo = wdot4(lo, w + j, s + j, vmax);
        hi = wdot4(hi, w + j + 4, s + j + 4, vmax);
    }
    double t[8];
    _mm256_storeu_pd(t, lo);
    _mm256_storeu_pd(t + 4, hi);
    for (; j < n; j++)
        if (s[j] != -INFINITY && w[j] != 0.0f) t[j & 7] += (double)w[j] * (double)(s[j] - max);
    return combine8(t);
}

/* exp of 8 scores (attn_expf's sequence), masked ones 0. */
__attribute__((target("avx2,fma"))) static inline __m256 exp8(__m256 sv, __m256 vmax) {
    const __m256 lo = _mm256_set1_ps(EXP_LO), hi = _mm256_set1_ps(88.0f);
    __m256 ok = _mm256_cmp_ps(sv, _mm256_set1_ps(-INFINITY), _CMP_NEQ_OQ);
    __m256 x = _mm256_sub_ps(sv, vmax);
    ok = _mm256_and_ps(ok, _mm256_cmp_ps(x, lo, _CMP_GE_OQ));
    x = _mm256_min_ps(x, hi);
    __m256 t = _mm256_mul_ps(x, _mm256_set1_ps(EXP_LOG2E));
    __m256 nn = _mm256_round_ps(t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fmadd_ps(nn, _mm256_set1_ps(-EXP_LN2_HI), x);
    r = _mm256_fmadd_ps(nn, _mm256_set1_ps(-EXP_LN2_LO), r);
    __m256 z = _mm256_mul_ps(r, r);
    __m256 y = _mm256_set1_ps(EXP_P0);
    y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(EXP_P1));
    y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(EXP_P2));
    y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(EXP_P3));
    y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(EXP_P4));
    y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(EXP_P5));
    y = _mm256_fmadd_ps(y, z, r);
    y = _mm256_add_ps(y, _mm256_set1_ps(1.0f));
    __m256i bits = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(nn), _mm256_set1_epi32(127)), 23);
    return _mm256_and_ps(ok, _mm256_mul_ps(y, _mm256_castsi256_ps(bits)));
}

__attribute__((target("avx2,fma"))) static double exp_sum_avx2(float *e, const float *s, float max, int n) {
    __m256 vmax = _mm256_set1_ps(max);
    __m256d lo = _mm256_setzero_pd(), hi = _mm256_setzero_pd();
    int j = 0;
    for (; j + 8 <= n; j += 8) {
        __m256 y = exp8(_mm256_loadu_ps(s + j), vmax);
        _mm256_storeu_ps(e + j, y);
        lo = _mm256_add_pd(lo, _mm256_cvtps_pd(_mm256_castps256_ps128(y)));
        hi = _mm256_add_pd(hi, _mm256_cvtps_pd(_mm256_extractf128_ps(y, 1)));
    }
    if (j < n) { /* the tail in one masked vector, as exp_sum_avx512's */
        __m256i k = _mm256_cmpgt_epi32(_mm256_set1_epi32(n - j), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        __m256 sv = _mm256_blendv_ps(_mm256_set1_ps(-INFINITY), _mm256_maskload_ps(s + j, k), _mm256_castsi256_ps(k));
        __m256 y = exp8(sv, vmax);
        _mm256_maskstore_ps(e + j, k, y);
        lo = _mm256_add_pd(lo, _mm256_cvtps_pd(_mm256_castps256_ps128(y)));
        hi = _mm256_add_pd(hi, _mm256_cvtps_pd(_mm256_extractf128_ps(y, 1)));
    }
    double t[8];
    _mm256_storeu_pd(t, lo);
    _mm256_storeu_pd(t + 4, hi);
    return combine8(t);
}

__attribute__((target("avx2,fma"))) static float norm_stats_avx2(float *w, const float *s, float max, int n, double inv,
                                                                 double *sum, double *wdot) {
    __m256d vinv = _mm256_set1_pd(inv), s0 = _mm256_setzero_pd(), s1 = _mm256_setzero_pd();
    __m256d d0 = _mm256_setzero_pd(), d1 = _mm256_setzero_pd();
    __m128 mx = _mm_setzero_ps(), vmax = _mm_set1_ps(max);
    for (int j = 0; j < n; j += 8) {
        /* the tail through a padded copy: weight 0 and score -inf past n add nothing */
        float wt[8] = {0}, st[8];
        float *wp = w + j;
        const float *sp = s + j;
        if (n - j < 8) {
            for (int l = 0; l < 8; l++) st[l] = l < n - j ? s[j + l] : -INFINITY;
            memcpy(wt, w + j, sizeof(float) * (size_t)(n - j));
            wp = wt, sp = st;
        }
        __m128 v0 = _mm256_cvtpd_ps(_mm256_mul_pd(_mm256_cvtps_pd(_mm_loadu_ps(wp)), vinv));
        __m128 v1 = _mm256_cvtpd_ps(_mm256_mul_pd(_mm256_cvtps_pd(_mm_loadu_ps(wp + 4)), vinv));
        _mm_storeu_ps(wp, v0);
        _mm_storeu_ps(wp + 4, v1);
        mx = _mm_max_ps(_mm_max_ps(mx, v0), v1);
        s0 = _mm256_add_pd(s0, _mm256_cvtps_pd(v0));
        s1 = _mm256_add_pd(s1, _mm256_cvtps_pd(v1));
        d0 = wdot4(d0, wp, sp, vmax);
        d1 = wdot4(d1, wp + 4, sp + 4, vmax);
        if (wp == wt) memcpy(w + j, wt, sizeof(float) * (size_t)(n - j));
    }
    float t[4], r = 0.0f;
    _mm_storeu_ps(t, mx);
    for (int l = 0; l < 4; l++)
        if (t[l] > r) r = t[l];
    double ts[8], td[8];
    _mm256_storeu_pd(ts, s0);
    _mm256_storeu_pd(ts + 4, s1);
    _mm256_storeu_pd(td, d0);
    _mm256_storeu_pd(td + 4, d1);
    *sum = combine8(ts);
    *wdot = combine8(td);
    return r;
}

__attribute__((target("avx2,fma"))) static void scale_avx2(float *out, const float *raw, int n, ScaleOp op, double by) {
    if (op == SCALE_COPY) {
        memcpy(out, raw, sizeof(float) * (size_t)n);
        return;
    }
    __m256d vby = _mm256_set1_pd(by);
    __m128 lim = _mm_set1_ps(FLT_MAX);
    int j = 0;
    for (; j + 4 <= n; j += 4) {
        __m256d x = _mm256_cvtps_pd(_mm_loadu_ps(raw + j));
        __m128 v;
        if (op == SCALE_DIVIDE) {
            v = _mm256_cvtpd_ps(_mm256_div_pd(x, vby));
        } else {
            v = _mm256_cvtpd_ps(_mm256_mul_pd(x, vby));
            v = _mm_max_ps(_mm_min_ps(v, lim), _mm_sub_ps(_mm_setzero_ps(), lim));
        }
        _mm_storeu_ps(out + j, v);
    }
    scale_portable(out + j, raw + j, n - j, op, by);
}

__attribute__((target("avx2,fma"))) static void mask_avx2(float *out, const float *s, const unsigned char *ok, int n) {
    __m256 ninf = _mm256_set1_ps(-INFINITY);
    int j = 0;
    for (; j + 8 <= n; j += 8) {
        __m256i b = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(ok + j)));
        __m256 keep = _mm256_castsi256_ps(_mm256_cmpgt_epi32(b, _mm256_setzero_si256()));
        _mm256_storeu_ps(out + j, _mm256_blendv_ps(ninf, _mm256_loadu_ps(s + j), keep));
    }
    mask_portable(out + j, s + j, ok + j, n - j);
}
#endif

/* The scaling by a power of two (pow2_factor's f) and the mask in one pass
 * over whole vectors: the values scale_* and mask_* store. Returns how many
 * it did. */
static int scale_mask_pow2_portable(float *sc, float *mk, const float *raw, const unsigned char *ok, int n, ScaleOp op,
                                    float f) {
    (void)sc, (void)mk, (void)raw, (void)ok, (void)n, (void)op, (void)f;
    return 0;
}

#ifdef HAVE_X86
__attribute__((target("avx512f,avx512vl,avx512bw"))) static int
scale_mask_pow2_avx512(float *sc, float *mk, const float *raw, const unsigned char *ok, int n, ScaleOp op, float f) {
    __m512 vf = _mm512_set1_ps(f), hi = _mm512_set1_ps(FLT_MAX), lo = _mm512_set1_ps(-FLT_MAX);
    __m512 ninf = _mm512_set1_ps(-INFINITY);
    int j = 0;
    for (; j + 16 <= n; j += 16) {
        __m512 v = _mm512_mul_ps(_mm512_loadu_ps(raw + j), vf);
        if (op == SCALE_MULTIPLY) v = _mm512_max_ps(_mm512_min_ps(v, hi), lo);
        _mm512_storeu_ps(sc + j, v);
        __mmask16 k = _mm_test_epi8_mask(_mm_loadu_si128((const __m128i *)(ok + j)), _mm_set1_epi8(-1));
        _mm512_storeu_ps(mk + j, _mm512_mask_blend_ps(k, ninf, v));
    }
    return j;
}

__attribute__((target("avx2,fma"))) static int
scale_mask_pow2_avx2(float *sc, float *mk, const float *raw, const unsigned char *ok, int n, ScaleOp op, float f) {
    __m256 vf = _mm256_set1_ps(f), hi = _mm256_set1_ps(FLT_MAX), lo = _mm256_set1_ps(-FLT_MAX);
    __m256 ninf = _mm256_set1_ps(-INFINITY);
    int j = 0;
    for (; j + 8 <= n; j += 8) {
        __m256 v = _mm256_mul_ps(_mm256_loadu_ps(raw + j), vf);
        if (op == SCALE_MULTIPLY) v = _mm256_max_ps(_mm256_min_ps(v, hi), lo);
        _mm256_storeu_ps(sc + j, v);
        __m256i b = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(ok + j)));
        __m256 keep = _mm256_castsi256_ps(_mm256_cmpgt_epi32(b, _mm256_setzero_si256()));
        _mm256_storeu_ps(mk + j, _mm256_blendv_ps(ninf, v, keep));
    }
    return j;
}
#endif

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

static const RowOps ops_portable = {sum_portable,     max_portable,        normalize_portable,
                                    wdot_portable,    scale_portable,      mask_portable,
                                    exp_sum_portable, norm_stats_portable, scale_mask_pow2_portable};
#ifdef HAVE_X86
static const RowOps ops_avx512 = {sum_avx512,  max_avx512,     normalize_avx512,  wdot_avx512,           scale_avx512,
                                  mask_avx512, exp_sum_avx512, norm_stats_avx512, scale_mask_pow2_avx512};
static const RowOps ops_avx2 = {sum_avx2,  max_avx2,     normalize_avx2,  wdot_avx2,           scale_avx2,
                                mask_avx2, exp_sum_avx2, norm_stats_avx2, scale_mask_pow2_avx2};
#endif
static _Atomic(const RowOps *) row_ops;

static const RowOps *best_ops(void) {
#ifdef HAVE_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw"))
        return &ops_avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return &ops_avx2;
#endif
    return &ops_portable;
}

static const RowOps *ops(void) {
    const RowOps *o = atomic_load_explicit(&row_ops, memory_order_relaxed);
    if (!o) {
        o = best_ops();
        atomic_store_explicit(&row_ops, o, memory_order_relaxed);
    }
    return o;
}

static ExpRow best_exp(void) {
#ifdef HAVE_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return exp_row_avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return exp_row_avx2;
#endif
    return exp_row_portable;
}

int attn_set_rowops(const char *name) {
    const RowOps *o = NULL;
    ExpRow e = NULL;
    if (!name) o = best_ops(), e = best_exp();
    else if (strcmp(name, "portable") == 0) o = &ops_portable, e = exp_row_portable;
#ifdef HAVE_X86
    else if (strcmp(name, "avx2") == 0 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        o = &ops_avx2, e = exp_row_avx2;
    else if (strcmp(name, "avx512") == 0 && best_ops() == &ops_avx512) o = &ops_avx512, e = exp_row_avx512;
#endif
    if (!o) return -1;
    atomic_store_explicit(&row_ops, o, memory_order_relaxed);
    atomic_store_explicit(&exp_row, e, memory_order_relaxed);
    return 0;
}

const char *attn_rowops_name(void) {
    const RowOps *o = ops();
#ifdef HAVE_X86
    if (o == &ops_avx512) return "avx512";
    if (o == &ops_avx2) return "avx2";
#endif
    return "portable";
}

// ----------------------------------------------------------------------------
// sums and the softmax

double attn_sum(const float *x, int n) { return ops()->sum(x, n); }

void attn_scale_mask_row(float *scaled, float *masked, const float *raw, const unsigned char *allowed, int n,
                         ScaleOp op, double by) {
    const RowOps *o = ops();
    int j0 = 0;
    float f;
    if (pow2_factor(op, by, &f)) j0 = o->scale_mask_pow2(scaled, masked, raw, allowed, n, op, f); /* one pass */
    /* In blocks that stay in the L1 cache between the two passes. */
    for (int j = j0; j < n; j += 256) {
        int len = n - j < 256 ? n - j : 256;
        o->scale(scaled + j, raw + j, len, op, by);
        o->mask(masked + j, scaled + j, allowed + j, len);
    }
}

void attn_mask_row(float *masked, const float *scaled, const unsigned char *allowed, int n) {
    ops()->mask(masked, scaled, allowed, n);
}

void attn_softmax(float *w, const float *s, int n, SoftmaxRow *out) {
    const RowOps *o = ops();
    memset(out, 0, sizeof *out);
    float max = o->max(s, n);
    out->max_score = max;
    if (max == -INFINITY) {
        memset(w, 0, sizeof(float) * (size_t)n);
        return;
    }
    /* Three passes: the max; exp and its sum; the weights with their sum,
     * largest and the entropy's dot (each as the separate passes were). */
    double denom = o->exp_sum(w, s, max, n), sum, dot;
    out->max_weight = o->norm_stats(w, s, max, n, 1.0 / denom, &sum, &dot);
    /* The entropy in one log: H = ln(denom) - sum w (s - max), in nats. */
    double h = (log(denom) - dot) / log(2.0);
    out->denom = denom;
    out->sum = sum;
    out->entropy = h > 0 ? h : 0.0;
}

void attn_softmax_rows(float *w, const float *s, int ld, int rows, const int *len, SoftmaxRow *out) {
    const RowOps *o = ops();
    for (int r = 0; r < rows; r++) {
        memset(&out[r], 0, sizeof out[r]);
        out[r].max_score = o->max(s + (size_t)r * ld, len[r]);
    }
    for (int r = 0; r < rows; r++) {
        float *wr = w + (size_t)r * ld;
        if (out[r].max_score == -INFINITY) memset(wr, 0, sizeof(float) * (size_t)len[r]);
        else out[r].denom = o->exp_sum(wr, s + (size_t)r * ld, out[r].max_score, len[r]);
        if (len[r] < ld) memset(wr + len[r], 0, sizeof(float) * (size_t)(ld - len[r]));
    }
    for (int r = 0; r < rows; r++) {
        if (out[r].max_score == -INFINITY) continue;
        double sum, dot;
        out[r].max_weight = o->norm_stats(w + (size_t)r * ld, s + (size_t)r * ld, out[r].max_score, len[r],
                                          1.0 / out[r].denom, &sum, &dot);
        double h = (log(out[r].denom) - dot) / log(2.0);
        out[r].sum = sum;
        out[r].entropy = h > 0 ? h : 0.0;
    }
}
