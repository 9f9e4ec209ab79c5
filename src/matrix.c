/* matrix.c - see matrix.h for the numeric rule every kernel follows.
 *
 * The product is blocked as in BLIS: b is packed into panels of NR columns
 * and KC rows; a is read in place, MR rows at a time; a micro-kernel keeps an
 * MR x NR tile of c in registers over KC steps of k. A tile is stored and
 * loaded again between KC blocks: storing a float accumulator is exact, so
 * blocking never changes the order of the sums. */
#include "matrix.h"

#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { KC = 256, MR_MAX = 8 };

// ----------------------------------------------------------------------------
// references and helpers

static float to_float_saturated(double v) {
    if (v > FLT_MAX) return FLT_MAX;
    if (v < -FLT_MAX) return -FLT_MAX;
    return (float)v;
}

double vec_dot(const float *a, const float *b, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++) s += (double)a[i] * (double)b[i];
    return s;
}

void mat_mul_ref(float *c, int ldc, const float *a, int lda, const float *b, int ldb, int m, int k, int n) {
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double s = 0.0;
            for (int p = 0; p < k; p++) s += (double)a[(size_t)i * lda + p] * (double)b[(size_t)p * ldb + j];
            c[(size_t)i * ldc + j] = to_float_saturated(s);
        }
}

void mat_mul_bt_ref(float *c, int ldc, const float *a, int lda, const float *b, int ldb, int m, int k, int n) {
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            c[(size_t)i * ldc + j] = to_float_saturated(vec_dot(a + (size_t)i * lda, b + (size_t)j * ldb, k));
}

/* A zero row that stands in for the rows of a tile beyond the matrix. */
static const float zero_row[KC];

// ----------------------------------------------------------------------------
// micro-kernels: c[0..mr)[0..nr) (+)= sum over p < kc of arow[i][p] * bp[p][j]

typedef void (*MicroKernel)(int kc, const float *const *arow, const float *bp, float *c, int ldc, int mr, int nr,
                            int first);

/* Portable: fmaf is correctly rounded, so it gives the same bits as the FMA
 * instructions of the SIMD kernels. */
static void mk_portable(int kc, const float *const *arow, const float *bp, float *c, int ldc, int mr, int nr,
                        int first) {
    enum { NR = 8 };
    for (int i = 0; i < mr; i++) {
        float acc[NR];
        for (int j = 0; j < NR; j++) acc[j] = first || j >= nr ? 0.0f : c[(size_t)i * ldc + j];
        const float *a = arow[i];
        for (int p = 0; p < kc; p++) {
            float av = a[p];
            const float *b = bp + (size_t)p * NR;
            for (int j = 0; j < NR; j++) acc[j] = fmaf(av, b[j], acc[j]);
        }
        for (int j = 0; j < nr; j++) c[(size_t)i * ldc + j] = acc[j];
    }
}

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define HAVE_X86 1
#include <immintrin.h>

/* AVX2 + FMA: 6 rows x 16 columns, 12 accumulators. */
__attribute__((target("avx2,fma"))) static void mk_avx2(int kc, const float *const *arow, const float *bp, float *c,
                                                        int ldc, int mr, int nr, int first) {
    enum { MR = 6, NR = 16 };
    __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    __m256i m0 = _mm256_cmpgt_epi32(_mm256_set1_epi32(nr), lane);
    __m256i m1 = _mm256_cmpgt_epi32(_mm256_set1_epi32(nr - 8), lane);
    __m256 acc[MR][2];
#pragma GCC unroll 6
    for (int i = 0; i < MR; i++) {
        if (first || i >= mr) {
            acc[i][0] = acc[i][1] = _mm256_setzero_ps();
        } else {
            acc[i][0] = _mm256_maskload_ps(c + (size_t)i * ldc, m0);
            acc[i][1] = _mm256_maskload_ps(c + (size_t)i * ldc + 8, m1);
        }
    }
    const float *a0 = arow[0], *a1 = arow[1], *a2 = arow[2], *a3 = arow[3], *a4 = arow[4], *a5 = arow[5];
    for (int p = 0; p < kc; p++) {
        __m256 b0 = _mm256_loadu_ps(bp + (size_t)p * NR), b1 = _mm256_loadu_ps(bp + (size_t)p * NR + 8);
        __m256 a;
        a = _mm256_broadcast_ss(a0 + p), acc[0][0] = _mm256_fmadd_ps(a, b0, acc[0][0]),
        acc[0][1] = _mm256_fmadd_ps(a, b1, acc[0][1]);
        a = _mm256_broadcast_ss(a1 + p), acc[1][0] = _mm256_fmadd_ps(a, b0, acc[1][0]),
        acc[1][1] = _mm256_fmadd_ps(a, b1, acc[1][1]);
        a = _mm256_broadcast_ss(a2 + p), acc[2][0] = _mm256_fmadd_ps(a, b0, acc[2][0]),
        acc[2][1] = _mm256_fmadd_ps(a, b1, acc[2][1]);
        a = _mm256_broadcast_ss(a3 + p), acc[3][0] = _mm256_fmadd_ps(a, b0, acc[3][0]),
        acc[3][1] = _mm256_fmadd_ps(a, b1, acc[3][1]);
        a = _mm256_broadcast_ss(a4 + p), acc[4][0] = _mm256_fmadd_ps(a, b0, acc[4][0]),
        acc[4][1] = _mm256_fmadd_ps(a, b1, acc[4][1]);
        a = _mm256_broadcast_ss(a5 + p), acc[5][0] = _mm256_fmadd_ps(a, b0, acc[5][0]),
        acc[5][1] = _mm256_fmadd_ps(a, b1, acc[5][1]);
    }
#pragma GCC unroll 6
    for (int i = 0; i < MR; i++) {
        if (i >= mr) break;
        _mm256_maskstore_ps(c + (size_t)i * ldc, m0, acc[i][0]);
        _mm256_maskstore_ps(c + (size_t)i * ldc + 8, m1, acc[i][1]);
    }
}

/* AVX-512: 8 rows x 32 columns, 16 accumulators (the broadcasts fold into
 * the FMAs). */
__attribute__((target("avx512f"))) static void mk_avx512(int kc, const float *const *arow, const float *bp, float *c,
                                                         int ldc, int mr, int nr, int first) {
    enum { MR = 8, NR = 32 };
    __mmask16 m0 = (__mmask16)(nr >= 16 ? 0xFFFF : (1u << nr) - 1);
    __mmask16 m1 = (__mmask16)(nr >= 32 ? 0xFFFF : nr > 16 ? (1u << (nr - 16)) - 1 : 0);
    __m512 acc[MR][2];
#pragma GCC unroll 8
    for (int i = 0; i < MR; i++) {
        if (first || i >= mr) {
            acc[i][0] = acc[i][1] = _mm512_setzero_ps();
        } else {
            acc[i][0] = _mm512_maskz_loadu_ps(m0, c + (size_t)i * ldc);
            acc[i][1] = _mm512_maskz_loadu_ps(m1, c + (size_t)i * ldc + 16);
        }
    }
    const float *a0 = arow[0], *a1 = arow[1], *a2 = arow[2], *a3 = arow[3];
    const float *a4 = arow[4], *a5 = arow[5], *a6 = arow[6], *a7 = arow[7];
    for (int p = 0; p < kc; p++) {
        __m512 b0 = _mm512_loadu_ps(bp + (size_t)p * NR), b1 = _mm512_loadu_ps(bp + (size_t)p * NR + 16);
        __m512 a;
#define ROW(r, ar)                                                                                                     \
    a = _mm512_set1_ps(ar[p]), acc[r][0] = _mm512_fmadd_ps(a, b0, acc[r][0]),                                          \
    acc[r][1] = _mm512_fmadd_ps(a, b1, acc[r][1])
        ROW(0, a0);
        ROW(1, a1);
        ROW(2, a2);
        ROW(3, a3);
        ROW(4, a4);
        ROW(5, a5);
        ROW(6, a6);
        ROW(7, a7);
#undef ROW
    }
#pragma GCC unroll 8
    for (int i = 0; i < MR; i++) {
        if (i >= mr) break;
        _mm512_mask_storeu_ps(c + (size_t)i * ldc, m0, acc[i][0]);
        _mm512_mask_storeu_ps(c + (size_t)i * ldc + 16, m1, acc[i][1]);
    }
}
#endif

// ----------------------------------------------------------------------------
// dispatch

typedef struct {
    const char *name;
    MicroKernel fn;
    int mr, nr;
} Kernel;

static const Kernel k_portable = {"portable", mk_portable, 4, 8};
#ifdef HAVE_X86
static const Kernel k_avx2 = {"avx2", mk_avx2, 6, 16};
static const Kernel k_avx512 = {"avx512", mk_avx512, 8, 32};
#endif
static const Kernel *kernel;

static const Kernel *best_kernel(void) {
#ifdef HAVE_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return &k_avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return &k_avx2;
#endif
    return &k_portable;
}

static const Kernel *active(void) {
    if (!kernel) kernel = best_kernel();
    return kernel;
}

const char *mat_kernel_name(void) { return active()->name; }

int mat_set_kernel(const char *name) {
    if (!name) { /* the best the CPU has */
        kernel = best_kernel();
        return 0;
    }
    if (strcmp(name, "portable") == 0) {
        kernel = &k_portable;
        return 0;
    }
#ifdef HAVE_X86
    __builtin_cpu_init();
    if (strcmp(name, "avx2") == 0 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        kernel = &k_avx2;
        return 0;
    }
    if (strcmp(name, "avx512") == 0 && __builtin_cpu_supports("avx512f")) {
        kernel = &k_avx512;
        return 0;
    }
#endif
    return -1;
}

// ----------------------------------------------------------------------------
// packing and the blocked product

enum { NR_MAX = 32 };

size_t mat_packed_floats(int k, int n) {
    size_t cols = (size_t)((n + NR_MAX - 1) / NR_MAX) * NR_MAX;
    return cols * (size_t)(k > 0 ? k : 1);
}

void mat_pack_into(MatPacked *p, float *buf, const float *b, int ldb, int k, int n, int transposed) {
    const Kernel *kn = active();
    int nr = kn->nr;
    memset(p, 0, sizeof *p);
    p->k = k, p->n = n, p->nr = nr, p->kc = KC, p->data = buf;
    /* Layout: KC block by KC block; inside one, panel by panel, kc rows of nr. */
    float *out = buf;
    for (int p0 = 0; p0 < k; p0 += KC) {
        int kc = k - p0 < KC ? k - p0 : KC;
        for (int j0 = 0; j0 < n; j0 += nr) {
            int nrv = n - j0 < nr ? n - j0 : nr;
            for (int q = 0; q < kc; q++) {
                if (transposed)
                    for (int j = 0; j < nrv; j++) out[j] = b[(size_t)(j0 + j) * ldb + p0 + q];
                else memcpy(out, b + (size_t)(p0 + q) * ldb + j0, sizeof(float) * (size_t)nrv);
                for (int j = nrv; j < nr; j++) out[j] = 0.0f;
                out += nr;
            }
        }
    }
}

int mat_pack(MatPacked *p, const float *b, int ldb, int k, int n, int transposed) {
    float *buf = malloc(sizeof(float) * mat_packed_floats(k, n));
    if (!buf) {
        memset(p, 0, sizeof *p);
        return -1;
    }
    mat_pack_into(p, buf, b, ldb, k, n, transposed);
    p->owned = 1;
    return 0;
}

int mat_packed_current(const MatPacked *p) { return p->data && p->nr == active()->nr; }

void mat_packed_free(MatPacked *p) {
    if (!p) return;
    if (p->owned) free(p->data);
    p->data = NULL;
    p->owned = 0;
}

/* 1 when every x[0..n) is finite: the exponent bits are not all ones. */
static int all_finite_portable(const float *x, int n) {
    uint32_t bad = 0;
    for (int j = 0; j < n; j++) {
        uint32_t b;
        memcpy(&b, &x[j], sizeof b);
        bad |= (b & 0x7F800000u) == 0x7F800000u;
    }
    return !bad;
}

#ifdef HAVE_X86
__attribute__((target("avx512f"))) static int all_finite_avx512(const float *x, int n) {
    const __m512i expo = _mm512_set1_epi32(0x7F800000);
    __mmask16 bad = 0;
    int j = 0;
    for (; j + 16 <= n; j += 16)
        bad |= _mm512_cmpeq_epi32_mask(_mm512_and_si512(_mm512_loadu_si512(x + j), expo), expo);
    return !bad && all_finite_portable(x + j, n - j);
}
#endif

static int all_finite(const float *x, int n) {
#ifdef HAVE_X86
    if (active() == &k_avx512) return all_finite_avx512(x, n);
#endif
    return all_finite_portable(x, n);
}

/* An element whose float sum left the range (or met inf - inf) is summed
 * again in double, which cannot overflow for float inputs of this size, and
 * saturates. The same rule on every kernel keeps the bits identical. */
static void fix_overflow(float *c, int ldc, const float *a, int lda, const MatPacked *p, int row0, int rows, int c0,
                         int c1) {
    for (int i = row0; i < row0 + rows; i++) {
        if (all_finite(c + (size_t)i * ldc + c0, c1 - c0)) continue; /* the common case, checked fast */
        for (int j = c0; j < c1; j++) {
            float *cij = &c[(size_t)i * ldc + j];
            if (isfinite(*cij)) continue;
            /* b(p, j) from the packed layout */
            double s = 0.0;
            int nr = p->nr, panels = (p->n + nr - 1) / nr;
            for (int q = 0; q < p->k; q++) {
                int kb = q / KC, kc = p->k - kb * KC < KC ? p->k - kb * KC : KC;
                const float *blk = p->data + (size_t)kb * KC * panels * nr;
                float bv = blk[((size_t)(j / nr) * kc + (q - kb * KC)) * nr + j % nr];
                s += (double)a[(size_t)i * lda + q] * bv;
            }
            *cij = to_float_saturated(s);
        }
    }
}

/* The blocked product over rows [row0, row0 + rows), panels [jp0, jp1) and
 * k < kmax. */
static void mul_block(float *c, int ldc, const float *a, int lda, const MatPacked *p, int row0, int rows, int jp0,
                      int jp1, int kmax) {
    const Kernel *kn = active();
    int nr = p->nr, mr = kn->mr, panels = (p->n + nr - 1) / nr;
    assert(nr == kn->nr); /* packed for another kernel: a caller's bug (mat_packed_current says) */
    if (jp1 > panels) jp1 = panels;
    int k = kmax < p->k ? kmax : p->k;
    if (k <= 0) {
        int c0 = jp0 * nr, c1 = jp1 * nr < p->n ? jp1 * nr : p->n;
        for (int i = row0; i < row0 + rows; i++)
            if (c1 > c0) memset(c + (size_t)i * ldc + c0, 0, sizeof(float) * (size_t)(c1 - c0));
        return;
    }
    for (int p0 = 0; p0 < k; p0 += KC) {
        /* The panels of a KC block are kc deep (the packed depth, even when
         * only the first k - p0 rows of the last block are used). */
        int kc = p->k - p0 < KC ? p->k - p0 : KC, kuse = k - p0 < kc ? k - p0 : kc;
        const float *blk = p->data + (size_t)(p0 / KC) * KC * panels * nr;
        for (int jp = jp0; jp < jp1; jp++) {
            const float *bp = blk + (size_t)jp * kc * nr;
            int j0 = jp * nr, nrv = p->n - j0 < nr ? p->n - j0 : nr;
            for (int i0 = row0; i0 < row0 + rows; i0 += mr) {
                int mrv = row0 + rows - i0 < mr ? row0 + rows - i0 : mr;
                const float *arow[MR_MAX];
                for (int r = 0; r < MR_MAX; r++) arow[r] = r < mrv ? a + (size_t)(i0 + r) * lda + p0 : zero_row;
                kn->fn(kuse, arow, bp, c + (size_t)i0 * ldc + j0, ldc, mrv, nrv, p0 == 0);
            }
        }
    }
    fix_overflow(c, ldc, a, lda, p, row0, rows, jp0 * nr, jp1 * nr < p->n ? jp1 * nr : p->n);
}

void mat_mul_rows_k(float *c, int ldc, const float *a, int lda, const MatPacked *p, int row0, int rows, int kmax) {
    mul_block(c, ldc, a, lda, p, row0, rows, 0, (p->n + p->nr - 1) / (p->nr ? p->nr : 1), kmax);
}

void mat_mul_block(float *c, int ldc, const float *a, int lda, const MatPacked *p, int row0, int rows, int col0,
                   int cols) {
    if (!p->nr) return;
    assert(col0 % p->nr == 0); /* whole panels, or two tasks would write the same columns */
    mul_block(c, ldc, a, lda, p, row0, rows, col0 / p->nr, (col0 + cols + p->nr - 1) / p->nr, p->k);
}

void mat_mul_rows(float *c, int ldc, const float *a, int lda, const MatPacked *p, int row0, int rows) {
    mat_mul_rows_k(c, ldc, a, lda, p, row0, rows, p->k);
}

/* Without memory to pack: the same sums (fmaf in ascending k), unblocked. */
static void mul_unpacked(float *c, int ldc, const float *a, int lda, const float *b, int ldb, int m, int k, int n,
                         int transposed) {
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            float acc = 0.0f;
            double d = 0.0;
            for (int p = 0; p < k; p++) {
                float bv = transposed ? b[(size_t)j * ldb + p] : b[(size_t)p * ldb + j];
                acc = fmaf(a[(size_t)i * lda + p], bv, acc);
                d += (double)a[(size_t)i * lda + p] * bv;
            }
            c[(size_t)i * ldc + j] = isfinite(acc) ? acc : to_float_saturated(d);
        }
}

/* C = A B (transposed: A B^T) through a packed copy of B; if that copy cannot
 * be allocated, the plain loop gives the same bits without it. */
static void mul_any(float *c, int ldc, const float *a, int lda, const float *b, int ldb, int m, int k, int n,
                    int transposed) {
    MatPacked p;
    if (mat_pack(&p, b, ldb, k, n, transposed)) {
        mul_unpacked(c, ldc, a, lda, b, ldb, m, k, n, transposed);
        return;
    }
    mat_mul_rows(c, ldc, a, lda, &p, 0, m);
    mat_packed_free(&p);
}

void mat_mul(float *c, int ldc, const float *a, int lda, const float *b, int ldb, int m, int k, int n) {
    mul_any(c, ldc, a, lda, b, ldb, m, k, n, 0);
}

void mat_mul_bt(float *c, int ldc, const float *a, int lda, const float *b, int ldb, int m, int k, int n) {
    mul_any(c, ldc, a, lda, b, ldb, m, k, n, 1);
}
