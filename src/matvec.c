/* matvec.c - see matvec.h. Columns in blocks of a few vectors, up to
 * MATVEC_ROWS rows at a time: each step of k loads the block's piece of a
 * row of b once and adds it, times each row's a[r][p], into the
 * accumulators; b streams through once per group of rows. */
#include "matvec.h"

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "matrix.h"

static float saturate(double v) {
    if (v > FLT_MAX) return FLT_MAX;
    if (v < -FLT_MAX) return -FLT_MAX;
    return (float)v;
}

/* Elements of rows [0, m) and columns [j0, j1) that left the float range:
 * summed again in double (matrix.h's rule). */
static void fix_range(float *c, int ldc, const float *a, int lda, const float *b, int ldb, int m, int k, int j0,
                      int j1) {
    for (int i = 0; i < m; i++)
        for (int j = j0; j < j1; j++) {
            float *cij = &c[(size_t)i * ldc + j];
            if (isfinite(*cij)) continue;
            double s = 0.0;
            for (int p = 0; p < k; p++) s += (double)a[(size_t)i * lda + p] * (double)b[(size_t)p * ldb + j];
            *cij = saturate(s);
        }
}

static void rows_portable(float *c, int ldc, const float *a, int lda, const float *b, int ldb, int m, int k, int n) {
    enum { NB = 16 };
    for (int j0 = 0; j0 < n; j0 += NB) {
        int nb = n - j0 < NB ? n - j0 : NB;
        float acc[MATVEC_ROWS][NB];
        memset(acc, 0, sizeof acc);
        for (int p = 0; p < k; p++) {
            const float *bp = b + (size_t)p * ldb + j0;
            for (int r = 0; r < m; r++) {
                float av = a[(size_t)r * lda + p];
                for (int j = 0; j < nb; j++) acc[r][j] = fmaf(av, bp[j], acc[r][j]);
            }
        }
        for (int r = 0; r < m; r++) memcpy(c + (size_t)r * ldc + j0, acc[r], sizeof(float) * (size_t)nb);
    }
}

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#define HAVE_X86 1

/* 64 columns (four vectors) per block; the last block masked. */
__attribute__((target("avx512f"))) static void rows_avx512(float *c, int ldc, const float *a, int lda, const float *b,
                                                           int ldb, int m, int k, int n) {
    for (int j0 = 0; j0 < n; j0 += 64) {
        __mmask16 mk[4];
        for (int v = 0; v < 4; v++) {
            int left = n - j0 - 16 * v;
            mk[v] = (__mmask16)(left >= 16 ? 0xFFFF : left > 0 ? (1u << left) - 1 : 0);
        }
        __m512 acc[MATVEC_ROWS][4];
        for (int r = 0; r < MATVEC_ROWS; r++)
            for (int v = 0; v < 4; v++) acc[r][v] = _mm512_setzero_ps();
        for (int p = 0; p < k; p++) {
            const float *bp = b + (size_t)p * ldb + j0;
            if (p + 8 < k) _mm_prefetch((const char *)(bp + (size_t)8 * ldb), _MM_HINT_T0);
            __m512 b0 = _mm512_maskz_loadu_ps(mk[0], bp), b1 = _mm512_maskz_loadu_ps(mk[1], bp + 16);
            __m512 b2 = _mm512_maskz_loadu_ps(mk[2], bp + 32), b3 = _mm512_maskz_loadu_ps(mk[3], bp + 48);
            for (int r = 0; r < m; r++) {
                __m512 av = _mm512_set1_ps(a[(size_t)r * lda + p]);
                acc[r][0] = _mm512_fmadd_ps(av, b0, acc[r][0]);
                acc[r][1] = _mm512_fmadd_ps(av, b1, acc[r][1]);
                acc[r][2] = _mm512_fmadd_ps(av, b2, acc[r][2]);
                acc[r][3] = _mm512_fmadd_ps(av, b3, acc[r][3]);
            }
        }
        for (int r = 0; r < m; r++)
            for (int v = 0; v < 4; v++) _mm512_mask_storeu_ps(c + (size_t)r * ldc + j0 + 16 * v, mk[v], acc[r][v]);
    }
}

/* 32 columns (four vectors) per block; the last block masked. */
__attribute__((target("avx2,fma"))) static void rows_avx2(float *c, int ldc, const float *a, int lda, const float *b,
                                                          int ldb, int m, int k, int n) {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for (int j0 = 0; j0 < n; j0 += 32) {
        __m256i mk[4];
        for (int v = 0; v < 4; v++) mk[v] = _mm256_cmpgt_epi32(_mm256_set1_epi32(n - j0 - 8 * v), lane);
        __m256 acc[MATVEC_ROWS][4];
        for (int r = 0; r < MATVEC_ROWS; r++)
            for (int v = 0; v < 4; v++) acc[r][v] = _mm256_setzero_ps();
        for (int p = 0; p < k; p++) {
            const float *bp = b + (size_t)p * ldb + j0;
            if (p + 8 < k) _mm_prefetch((const char *)(bp + (size_t)8 * ldb), _MM_HINT_T0);
            __m256 b0 = _mm256_maskload_ps(bp, mk[0]), b1 = _mm256_maskload_ps(bp + 8, mk[1]);
            __m256 b2 = _mm256_maskload_ps(bp + 16, mk[2]), b3 = _mm256_maskload_ps(bp + 24, mk[3]);
            for (int r = 0; r < m; r++) {
                __m256 av = _mm256_broadcast_ss(a + (size_t)r * lda + p);
                acc[r][0] = _mm256_fmadd_ps(av, b0, acc[r][0]);
                acc[r][1] = _mm256_fmadd_ps(av, b1, acc[r][1]);
                acc[r][2] = _mm256_fmadd_ps(av, b2, acc[r][2]);
                acc[r][3] = _mm256_fmadd_ps(av, b3, acc[r][3]);
            }
        }
        for (int r = 0; r < m; r++)
            for (int v = 0; v < 4; v++) _mm256_maskstore_ps(c + (size_t)r * ldc + j0 + 8 * v, mk[v], acc[r][v]);
    }
}
#endif

void mat_vec_rows(float *c, int ldc, const float *a, int lda, const float *b, int ldb, int m, int k, int n) {
    const char *kn = mat_kernel_name();
    for (int r0 = 0; r0 < m; r0 += MATVEC_ROWS) {
        int rows = m - r0 < MATVEC_ROWS ? m - r0 : MATVEC_ROWS;
        float *cr = c + (size_t)r0 * ldc;
        const float *ar = a + (size_t)r0 * lda;
#ifdef HAVE_X86
        if (strcmp(kn, "avx512") == 0) rows_avx512(cr, ldc, ar, lda, b, ldb, rows, k, n);
        else if (strcmp(kn, "avx2") == 0) rows_avx2(cr, ldc, ar, lda, b, ldb, rows, k, n);
        else rows_portable(cr, ldc, ar, lda, b, ldb, rows, k, n);
#else
        (void)kn;
        rows_portable(cr, ldc, ar, lda, b, ldb, rows, k, n);
#endif
        fix_range(cr, ldc, ar, lda, b, ldb, rows, k, 0, n);
    }
}
