/* matvec.c - see matvec.h. Up to MATVEC_ROWS rows at a time: each step of
 * k adds a row of b, times each row's a[r][p], into the accumulators; b
 * streams through once per group of rows. */
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

/* Columns in chunks of up to CHUNK (a whole row of the weights of a layer),
 * their accumulators in L1/L2 between the steps of k, so that each step
 * reads a long run of b: blocks of 64 columns, jumping a row of b each
 * step, read 6 GB/s where the memory gives 28; chunks of 512, 8 GB/s; whole
 * rows of 3072, 18 GB/s. The order of every element's sum is the same. */
enum { CHUNK = 4096 };

__attribute__((target("avx512f"))) static void rows_avx512(float *c, int ldc, const float *a, int lda, const float *b,
                                                           int ldb, int m, int k, int n) {
    float acc[MATVEC_ROWS][CHUNK] __attribute__((aligned(64)));
    for (int j0 = 0; j0 < n; j0 += CHUNK) {
        int w = n - j0 < CHUNK ? n - j0 : CHUNK, full = w / 16 * 16;
        __mmask16 tail = (__mmask16)((1u << (w - full)) - 1);
        for (int r = 0; r < m; r++) memset(acc[r], 0, sizeof(float) * (size_t)((w + 15) / 16 * 16));
        for (int p = 0; p < k; p++) {
            const float *bp = b + (size_t)p * ldb + j0;
            __m512 av[MATVEC_ROWS];
            for (int r = 0; r < m; r++) av[r] = _mm512_set1_ps(a[(size_t)r * lda + p]);
            int j = 0;
            for (; j < full; j += 16) {
                __m512 bv = _mm512_loadu_ps(bp + j);
                for (int r = 0; r < m; r++)
                    _mm512_store_ps(acc[r] + j, _mm512_fmadd_ps(av[r], bv, _mm512_load_ps(acc[r] + j)));
            }
            if (tail) {
                __m512 bv = _mm512_maskz_loadu_ps(tail, bp + j);
                for (int r = 0; r < m; r++)
                    _mm512_store_ps(acc[r] + j, _mm512_fmadd_ps(av[r], bv, _mm512_load_ps(acc[r] + j)));
            }
        }
        for (int r = 0; r < m; r++) memcpy(c + (size_t)r * ldc + j0, acc[r], sizeof(float) * (size_t)w);
    }
}

__attribute__((target("avx2,fma"))) static void rows_avx2(float *c, int ldc, const float *a, int lda, const float *b,
                                                          int ldb, int m, int k, int n) {
    float acc[MATVEC_ROWS][CHUNK] __attribute__((aligned(32)));
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for (int j0 = 0; j0 < n; j0 += CHUNK) {
        int w = n - j0 < CHUNK ? n - j0 : CHUNK, full = w / 8 * 8;
        __m256i tail = _mm256_cmpgt_epi32(_mm256_set1_epi32(w - full), lane);
        for (int r = 0; r < m; r++) memset(acc[r], 0, sizeof(float) * (size_t)((w + 7) / 8 * 8));
        for (int p = 0; p < k; p++) {
            const float *bp = b + (size_t)p * ldb + j0;
            __m256 av[MATVEC_ROWS];
            for (int r = 0; r < m; r++) av[r] = _mm256_broadcast_ss(a + (size_t)r * lda + p);
            int j = 0;
            for (; j < full; j += 8) {
                __m256 bv = _mm256_loadu_ps(bp + j);
                for (int r = 0; r < m; r++)
                    _mm256_store_ps(acc[r] + j, _mm256_fmadd_ps(av[r], bv, _mm256_load_ps(acc[r] + j)));
            }
            if (w > full) {
                __m256 bv = _mm256_maskload_ps(bp + j, tail);
                for (int r = 0; r < m; r++)
                    _mm256_store_ps(acc[r] + j, _mm256_fmadd_ps(av[r], bv, _mm256_load_ps(acc[r] + j)));
            }
        }
        for (int r = 0; r < m; r++) memcpy(c + (size_t)r * ldc + j0, acc[r], sizeof(float) * (size_t)w);
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
