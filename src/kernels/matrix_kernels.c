/* matrix_kernels.c - the micro-kernels of the blocked product (matrix.c),
 * one per instruction set (portable fmaf, AVX2 + FMA, AVX-512), each the
 * same sums in the same order (matrix.h), and the choice among them from
 * the CPU. */
#include "matrix_internal.h"

#include <math.h>
#include <string.h>

/* Portable: fmaf is correctly rounded, so it gives the same bits as the FMA
 * instructions of the SIMD kernels. */
static int mk_portable(int kc, const float *const *arow, const float *ap, const float *bp, const char *pf,
                       ptrdiff_t pf_bytes, float *c, int ldc, int mr, int nr, int flags) {
    (void)pf, (void)pf_bytes;
    enum { MR = 4, NR = 8 };
    int bad = 0;
    for (int i = 0; i < mr; i++) {
        float acc[NR];
        for (int j = 0; j < NR; j++) acc[j] = flags & TILE_FIRST || j >= nr ? 0.0f : c[(size_t)i * ldc + j];
        const float *a = ap ? ap + i : arow[i];
        ptrdiff_t as = ap ? MR : 1;
        for (int p = 0; p < kc; p++) {
            float av = a[p * as];
            const float *b = bp + (size_t)p * NR;
            for (int j = 0; j < NR; j++) acc[j] = fmaf(av, b[j], acc[j]);
        }
        for (int j = 0; j < nr; j++) c[(size_t)i * ldc + j] = acc[j], bad |= !isfinite(acc[j]);
    }
    return flags & TILE_CHECK ? bad : 0;
}

#ifdef HAVE_X86
/* The k loop of a SIMD kernel, for a's element of row r at step p given by
 * AV(r) (a pointer): loads b's row p, then one FMA per accumulator. */
#define K_LOOP(ROWS, LOADB, AV)                                                                                        \
    for (ptrdiff_t p = 0; p < kc; p++) {                                                                               \
        if (!(p & 3) && (p >> 2) * 64 < pf_bytes) __builtin_prefetch(pf + (p >> 2) * 64, 0, 2);                        \
        LOADB;                                                                                                         \
        ROWS(AV);                                                                                                      \
    }

/* AVX2 + FMA: 6 rows x 16 columns, 12 accumulators. */
__attribute__((target("avx2,fma"))) static int mk_avx2(int kc, const float *const *arow, const float *ap,
                                                       const float *bp, const char *pf, ptrdiff_t pf_bytes, float *c,
                                                       int ldc, int mr, int nr, int flags) {
    enum { MR = 6, NR = 16 };
    __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    __m256i m0 = _mm256_cmpgt_epi32(_mm256_set1_epi32(nr), lane);
    __m256i m1 = _mm256_cmpgt_epi32(_mm256_set1_epi32(nr - 8), lane);
    __m256 c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51;
    c00 = c01 = c10 = c11 = c20 = c21 = c30 = c31 = c40 = c41 = c50 = c51 = _mm256_setzero_ps();
    if (!(flags & TILE_FIRST)) {
#define LOADC(r, x0, x1)                                                                                               \
    if (r < mr && nr == NR) x0 = _mm256_loadu_ps(c + (size_t)r * ldc), x1 = _mm256_loadu_ps(c + (size_t)r * ldc + 8);  \
    else if (r < mr)                                                                                                   \
    x0 = _mm256_maskload_ps(c + (size_t)r * ldc, m0), x1 = _mm256_maskload_ps(c + (size_t)r * ldc + 8, m1)
        LOADC(0, c00, c01);
        LOADC(1, c10, c11);
        LOADC(2, c20, c21);
        LOADC(3, c30, c31);
        LOADC(4, c40, c41);
        LOADC(5, c50, c51);
#undef LOADC
    }
    __m256 b0, b1, a;
#define LOADB           b0 = _mm256_loadu_ps(bp + p * NR), b1 = _mm256_loadu_ps(bp + p * NR + 8)
#define ROW(x0, x1, av) a = _mm256_broadcast_ss(av), x0 = _mm256_fmadd_ps(a, b0, x0), x1 = _mm256_fmadd_ps(a, b1, x1)
#define ROWS(AV)                                                                                                       \
    ROW(c00, c01, AV(0));                                                                                              \
    ROW(c10, c11, AV(1));                                                                                              \
    ROW(c20, c21, AV(2));                                                                                              \
    ROW(c30, c31, AV(3));                                                                                              \
    ROW(c40, c41, AV(4));                                                                                              \
    ROW(c50, c51, AV(5))
    /* A tile of at most 8 columns takes only the first half of b's row. */
#define LOADB_HALF           b0 = _mm256_loadu_ps(bp + p * NR)
#define ROW_HALF(x0, x1, av) a = _mm256_broadcast_ss(av), x0 = _mm256_fmadd_ps(a, b0, x0)
#define ROWS_HALF(AV)                                                                                                  \
    ROW_HALF(c00, c01, AV(0));                                                                                         \
    ROW_HALF(c10, c11, AV(1));                                                                                         \
    ROW_HALF(c20, c21, AV(2));                                                                                         \
    ROW_HALF(c30, c31, AV(3));                                                                                         \
    ROW_HALF(c40, c41, AV(4));                                                                                         \
    ROW_HALF(c50, c51, AV(5))
#define AV_PACKED(r) (ap + p * MR + r)
#define AV_ROWS(r)   (a##r + p)
    if (ap) {
        if (nr <= 8) K_LOOP(ROWS_HALF, LOADB_HALF, AV_PACKED)
        else K_LOOP(ROWS, LOADB, AV_PACKED)
    } else {
        const float *a0 = arow[0], *a1 = arow[1], *a2 = arow[2], *a3 = arow[3], *a4 = arow[4], *a5 = arow[5];
        if (nr <= 8) K_LOOP(ROWS_HALF, LOADB_HALF, AV_ROWS)
        else K_LOOP(ROWS, LOADB, AV_ROWS)
    }
#undef ROWS_HALF
#undef ROW_HALF
#undef LOADB_HALF
#undef ROWS
#undef ROW
#undef LOADB
    /* full tiles store plainly (vmaskmovps stores are slow on older AMD cores) */
#define STOREC(r, x0, x1)                                                                                              \
    if (r < mr && nr == NR) _mm256_storeu_ps(c + (size_t)r * ldc, x0), _mm256_storeu_ps(c + (size_t)r * ldc + 8, x1);  \
    else if (r < mr)                                                                                                   \
    _mm256_maskstore_ps(c + (size_t)r * ldc, m0, x0), _mm256_maskstore_ps(c + (size_t)r * ldc + 8, m1, x1)
    STOREC(0, c00, c01);
    STOREC(1, c10, c11);
    STOREC(2, c20, c21);
    STOREC(3, c30, c31);
    STOREC(4, c40, c41);
    STOREC(5, c50, c51);
#undef STOREC
    if (!(flags & TILE_CHECK)) return 0;
        /* x - x is 0 for a finite x, NaN for inf or NaN */
#define Z(x) _mm256_sub_ps(x, x)
    __m256 z = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(Z(c00), Z(c01)), _mm256_add_ps(Z(c10), Z(c11))),
                             _mm256_add_ps(_mm256_add_ps(Z(c20), Z(c21)), _mm256_add_ps(Z(c30), Z(c31))));
    z = _mm256_add_ps(z, _mm256_add_ps(_mm256_add_ps(Z(c40), Z(c41)), _mm256_add_ps(Z(c50), Z(c51))));
#undef Z
    return _mm256_movemask_ps(_mm256_cmp_ps(z, z, _CMP_UNORD_Q)) != 0;
}

/* AVX-512: 8 rows x 32 columns, 16 accumulators (the broadcasts fold into
 * the FMAs). */
__attribute__((target("avx512f"))) static int mk_avx512(int kc, const float *const *arow, const float *ap,
                                                        const float *bp, const char *pf, ptrdiff_t pf_bytes, float *c,
                                                        int ldc, int mr, int nr, int flags) {
    enum { MR = 8, NR = 32 };
    __mmask16 m0 = (__mmask16)(nr >= 16 ? 0xFFFF : (1u << nr) - 1);
    __mmask16 m1 = (__mmask16)(nr >= 32 ? 0xFFFF : nr > 16 ? (1u << (nr - 16)) - 1 : 0);
    __m512 c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51, c60, c61, c70, c71;
    c00 = c01 = c10 = c11 = c20 = c21 = c30 = c31 = _mm512_setzero_ps();
    c40 = c41 = c50 = c51 = c60 = c61 = c70 = c71 = _mm512_setzero_ps();
    if (!(flags & TILE_FIRST)) {
#define LOADC(r, x0, x1)                                                                                               \
    if (r < mr)                                                                                                        \
    x0 = _mm512_maskz_loadu_ps(m0, c + (size_t)r * ldc), x1 = _mm512_maskz_loadu_ps(m1, c + (size_t)r * ldc + 16)
        LOADC(0, c00, c01);
        LOADC(1, c10, c11);
        LOADC(2, c20, c21);
        LOADC(3, c30, c31);
        LOADC(4, c40, c41);
        LOADC(5, c50, c51);
        LOADC(6, c60, c61);
        LOADC(7, c70, c71);
#undef LOADC
    }
    __m512 b0, b1, a;
#define LOADB           b0 = _mm512_loadu_ps(bp + p * NR), b1 = _mm512_loadu_ps(bp + p * NR + 16)
#define ROW(x0, x1, av) a = _mm512_set1_ps(*(av)), x0 = _mm512_fmadd_ps(a, b0, x0), x1 = _mm512_fmadd_ps(a, b1, x1)
#define ROWS(AV)                                                                                                       \
    ROW(c00, c01, AV(0));                                                                                              \
    ROW(c10, c11, AV(1));                                                                                              \
    ROW(c20, c21, AV(2));                                                                                              \
    ROW(c30, c31, AV(3));                                                                                              \
    ROW(c40, c41, AV(4));                                                                                              \
    ROW(c50, c51, AV(5));                                                                                              \
    ROW(c60, c61, AV(6));                                                                                              \
    ROW(c70, c71, AV(7))
    /* A tile of at most 16 columns (d_v 16, a last panel) takes only the
     * first half of b's row: half the FMAs, the same sums. */
#define LOADB_HALF           b0 = _mm512_loadu_ps(bp + p * NR)
#define ROW_HALF(x0, x1, av) a = _mm512_set1_ps(*(av)), x0 = _mm512_fmadd_ps(a, b0, x0)
#define ROWS_HALF(AV)                                                                                                  \
    ROW_HALF(c00, c01, AV(0));                                                                                         \
    ROW_HALF(c10, c11, AV(1));                                                                                         \
    ROW_HALF(c20, c21, AV(2));                                                                                         \
    ROW_HALF(c30, c31, AV(3));                                                                                         \
    ROW_HALF(c40, c41, AV(4));                                                                                         \
    ROW_HALF(c50, c51, AV(5));                                                                                         \
    ROW_HALF(c60, c61, AV(6));                                                                                         \
    ROW_HALF(c70, c71, AV(7))
    if (ap) {
        if (nr <= 16) K_LOOP(ROWS_HALF, LOADB_HALF, AV_PACKED)
        else K_LOOP(ROWS, LOADB, AV_PACKED)
    } else {
        const float *a0 = arow[0], *a1 = arow[1], *a2 = arow[2], *a3 = arow[3];
        const float *a4 = arow[4], *a5 = arow[5], *a6 = arow[6], *a7 = arow[7];
        if (nr <= 16) K_LOOP(ROWS_HALF, LOADB_HALF, AV_ROWS)
        else K_LOOP(ROWS, LOADB, AV_ROWS)
    }
#undef ROWS_HALF
#undef ROW_HALF
#undef LOADB_HALF
#undef ROWS
#undef ROW
#undef LOADB
#define STOREC(r, x0, x1)                                                                                              \
    if (r < mr)                                                                                                        \
    _mm512_mask_storeu_ps(c + (size_t)r * ldc, m0, x0), _mm512_mask_storeu_ps(c + (size_t)r * ldc + 16, m1, x1)
    STOREC(0, c00, c01);
    STOREC(1, c10, c11);
    STOREC(2, c20, c21);
    STOREC(3, c30, c31);
    STOREC(4, c40, c41);
    STOREC(5, c50, c51);
    STOREC(6, c60, c61);
    STOREC(7, c70, c71);
#undef STOREC
    if (!(flags & TILE_CHECK)) return 0;
        /* x - x is 0 for a finite x, NaN for inf or NaN */
#define Z(x) _mm512_sub_ps(x, x)
    __m512 z = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(Z(c00), Z(c01)), _mm512_add_ps(Z(c10), Z(c11))),
                             _mm512_add_ps(_mm512_add_ps(Z(c20), Z(c21)), _mm512_add_ps(Z(c30), Z(c31))));
    __m512 y = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(Z(c40), Z(c41)), _mm512_add_ps(Z(c50), Z(c51))),
                             _mm512_add_ps(_mm512_add_ps(Z(c60), Z(c61)), _mm512_add_ps(Z(c70), Z(c71))));
#undef Z
    z = _mm512_add_ps(z, y);
    return _mm512_cmp_ps_mask(z, z, _CMP_UNORD_Q) != 0;
}
#undef AV_PACKED
#undef AV_ROWS
#undef K_LOOP
#endif

// ----------------------------------------------------------------------------
// dispatch

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

const Kernel *mat_active_kernel(void) {
    if (!kernel) kernel = best_kernel();
    return kernel;
}

const char *mat_kernel_name(void) { return mat_active_kernel()->name; }

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
