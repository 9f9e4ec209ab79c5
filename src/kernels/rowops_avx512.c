/* rowops_avx512.c - the row operations with AVX-512 (rowops_internal.h):
 * the same operations element by element as the portable ones, the eight
 * lanes of a sum in one vector of eight doubles. */
#include "rowops_internal.h"

#include <float.h>
#include <math.h>
#include <string.h>

#ifdef HAVE_X86
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

__attribute__((target("avx512f"))) void rowops_exp_row_avx512(float *e, const float *s, float max, int n) {
    __m512 vmax = _mm512_set1_ps(max);
    int j = 0;
    for (; j + 16 <= n; j += 16) _mm512_storeu_ps(e + j, exp16(_mm512_loadu_ps(s + j), vmax));
    if (j < n) {
        __mmask16 k = (__mmask16)((1u << (n - j)) - 1);
        _mm512_mask_storeu_ps(e + j, k, exp16(_mm512_mask_loadu_ps(_mm512_set1_ps(-INFINITY), k, s + j), vmax));
    }
}

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
    float rest = rowops_normalize_portable(w + j, n - j, inv);
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
    rowops_scale_portable(out + j, raw + j, n - j, op, by);
}

__attribute__((target("avx512f,avx512vl,avx512bw"))) static void mask_avx512(float *out, const float *s,
                                                                             const unsigned char *ok, int n) {
    __m512 ninf = _mm512_set1_ps(-INFINITY);
    int j = 0;
    for (; j + 16 <= n; j += 16) {
        __mmask16 k = _mm_test_epi8_mask(_mm_loadu_si128((const __m128i *)(ok + j)), _mm_set1_epi8(-1));
        _mm512_storeu_ps(out + j, _mm512_mask_blend_ps(k, ninf, _mm512_loadu_ps(s + j)));
    }
    rowops_mask_portable(out + j, s + j, ok + j, n - j);
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

const RowOps rowops_avx512 = {
    .sum = sum_avx512,
    .max = max_avx512,
    .normalize = normalize_avx512,
    .wdot = wdot_avx512,
    .scale = scale_avx512,
    .mask = mask_avx512,
    .exp_sum = exp_sum_avx512,
    .norm_stats = norm_stats_avx512,
    .scale_mask_pow2 = scale_mask_pow2_avx512,
};
#endif
