/* rowops_avx2.c - the row operations with AVX2 and FMA
 * (rowops_internal.h): the same operations element by element as the
 * portable ones, the eight lanes of a sum in two vectors of four doubles
 * (elements j..j+3 and j+4..j+7). */
#include "rowops_internal.h"

#include <float.h>
#include <math.h>
#include <string.h>

#ifdef HAVE_X86
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

__attribute__((target("avx2,fma"))) void rowops_exp_row_avx2(float *e, const float *s, float max, int n) {
    __m256 vmax = _mm256_set1_ps(max);
    int j = 0;
    for (; j + 8 <= n; j += 8) _mm256_storeu_ps(e + j, exp8(_mm256_loadu_ps(s + j), vmax));
    if (j < n) {
        __m256i k = _mm256_cmpgt_epi32(_mm256_set1_epi32(n - j), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        __m256 sv = _mm256_blendv_ps(_mm256_set1_ps(-INFINITY), _mm256_maskload_ps(s + j, k), _mm256_castsi256_ps(k));
        _mm256_maskstore_ps(e + j, k, exp8(sv, vmax));
    }
}

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
    float rest = rowops_normalize_portable(w + j, n - j, inv);
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
    rowops_scale_portable(out + j, raw + j, n - j, op, by);
}

__attribute__((target("avx2,fma"))) static void mask_avx2(float *out, const float *s, const unsigned char *ok, int n) {
    __m256 ninf = _mm256_set1_ps(-INFINITY);
    int j = 0;
    for (; j + 8 <= n; j += 8) {
        __m256i b = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(ok + j)));
        __m256 keep = _mm256_castsi256_ps(_mm256_cmpgt_epi32(b, _mm256_setzero_si256()));
        _mm256_storeu_ps(out + j, _mm256_blendv_ps(ninf, _mm256_loadu_ps(s + j), keep));
    }
    rowops_mask_portable(out + j, s + j, ok + j, n - j);
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

const RowOps rowops_avx2 = {
    .sum = sum_avx2,
    .max = max_avx2,
    .normalize = normalize_avx2,
    .wdot = wdot_avx2,
    .scale = scale_avx2,
    .mask = mask_avx2,
    .exp_sum = exp_sum_avx2,
    .norm_stats = norm_stats_avx2,
    .scale_mask_pow2 = scale_mask_pow2_avx2,
};
#endif
