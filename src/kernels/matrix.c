/* matrix.c - see matrix.h for the numeric rule every kernel follows.
 *
 * The product is blocked as in BLIS: b is packed into panels of NR columns
 * and kc rows (all of k up to KC_MAX, else equal blocks of at most KC_MAX);
 * a block of MC rows of a is packed into micro-panels of MR rows when enough
 * panels of b use it (else read in place); a micro-kernel keeps an MR x NR
 * tile of c in registers over kc steps of k. A tile is stored and loaded
 * again between blocks of k: storing a float accumulator is exact, so
 * blocking never changes the order of the sums. The micro-kernels, one per
 * instruction set, and the choice among them are in matrix_kernels.c. */
#include "matrix.h"

#include <assert.h>
#include <pthread.h>
#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "matrix_internal.h"

/* KC_MAX: the deepest block of k (a tile of c is stored and loaded again
 * between blocks: few blocks, few passes over c). a's packed block (MC x kc
 * floats) takes 9/16 of the L2 cache, at most A_BLOCK_MAX floats; MC is a
 * multiple of every MR (4, 6, 8), at most MC_MAX. PACK_A_PANELS: the panels
 * of b that make packing a's block worth its copy (which costs about a
 * quarter of one panel's products: packed for 4 panels, A V of a head was 6%
 * slower on AVX2). */
enum { KC_MAX = 768, MR_MAX = 8, MC_MAX = 384, A_BLOCK_MAX = 192 * 768, PACK_A_PANELS = 8 };

/* a's block packed into micro-panels, per thread (callers multiply row
 * ranges from several threads at once), allocated at a thread's first
 * packed product and freed when it ends (a static thread-local array of
 * 576 KB was zeroed at the start of every thread: the frame thread starts
 * once per recompute); 8 floats of slack for the AVX2 packing's last store.
 * NULL when out of memory: the products then read a in place (the same
 * bits). */
static pthread_key_t a_key;
static pthread_once_t a_once = PTHREAD_ONCE_INIT;
static int a_key_ok;
static void a_key_make(void) { a_key_ok = pthread_key_create(&a_key, free) == 0; }

static float *a_panels(void) {
    static _Thread_local float *buf;
    if (!buf) {
        pthread_once(&a_once, a_key_make);
        if (!a_key_ok) return NULL;
        buf = aligned_alloc(64, (sizeof(float) * (A_BLOCK_MAX + 8) + 63) / 64 * 64);
        if (buf && pthread_setspecific(a_key, buf) != 0) free(buf), buf = NULL;
    }
    return buf;
}

/* The floats of a's packed block: 9/16 of L2 (512 KB when unknown). */
static int a_block_floats(void) {
    static _Atomic int floats;
    int f = atomic_load_explicit(&floats, memory_order_relaxed);
    if (!f) {
        long l2 = 0;
#ifdef _SC_LEVEL2_CACHE_SIZE /* glibc */
        l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
        if (l2 <= 0) l2 = 512 * 1024;
        f = l2 / 4 * 9 / 16 < A_BLOCK_MAX ? (int)(l2 / 4 * 9 / 16) : A_BLOCK_MAX;
        if (f < MC_MAX / 16 * KC_MAX) f = MC_MAX / 16 * KC_MAX; /* 24 rows deep */
        atomic_store_explicit(&floats, f, memory_order_relaxed);
    }
    return f;
}

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

// ----------------------------------------------------------------------------
// packing and the blocked product

enum { NR_MAX = 32 };

size_t mat_packed_floats(int k, int n) {
    size_t cols = (size_t)((n + NR_MAX - 1) / NR_MAX) * NR_MAX;
    return cols * (size_t)(k > 0 ? k : 1);
}

/* The depth of the blocks of k that a (k, n) matrix is packed in. */
static int block_depth(int k) {
    if (k <= KC_MAX) return k > 0 ? k : 1;
    int blocks = (k + KC_MAX - 1) / KC_MAX, kc = (k + blocks - 1) / blocks;
    return (kc + 7) / 8 * 8; /* at most KC_MAX, a multiple of 8 */
}

#ifdef HAVE_X86
/* Transposes the 8x8 block whose rows are r0..r7 (8 floats each) into
 * out[t * ldo + i] = r_i[t], storing t = 0..7 in that order. */
__attribute__((target("avx2"))) static inline void transpose8(float *out, size_t ldo, const float *const *r) {
    __m256 x0 = _mm256_loadu_ps(r[0]), x1 = _mm256_loadu_ps(r[1]), x2 = _mm256_loadu_ps(r[2]);
    __m256 x3 = _mm256_loadu_ps(r[3]), x4 = _mm256_loadu_ps(r[4]), x5 = _mm256_loadu_ps(r[5]);
    __m256 x6 = _mm256_loadu_ps(r[6]), x7 = _mm256_loadu_ps(r[7]);
    __m256 t0 = _mm256_unpacklo_ps(x0, x1), t1 = _mm256_unpackhi_ps(x0, x1);
    __m256 t2 = _mm256_unpacklo_ps(x2, x3), t3 = _mm256_unpackhi_ps(x2, x3);
    __m256 t4 = _mm256_unpacklo_ps(x4, x5), t5 = _mm256_unpackhi_ps(x4, x5);
    __m256 t6 = _mm256_unpacklo_ps(x6, x7), t7 = _mm256_unpackhi_ps(x6, x7);
    __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
    __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
    __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
    __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
    _mm256_storeu_ps(out + 0 * ldo, _mm256_permute2f128_ps(u0, u4, 0x20));
    _mm256_storeu_ps(out + 1 * ldo, _mm256_permute2f128_ps(u1, u5, 0x20));
    _mm256_storeu_ps(out + 2 * ldo, _mm256_permute2f128_ps(u2, u6, 0x20));
    _mm256_storeu_ps(out + 3 * ldo, _mm256_permute2f128_ps(u3, u7, 0x20));
    _mm256_storeu_ps(out + 4 * ldo, _mm256_permute2f128_ps(u0, u4, 0x31));
    _mm256_storeu_ps(out + 5 * ldo, _mm256_permute2f128_ps(u1, u5, 0x31));
    _mm256_storeu_ps(out + 6 * ldo, _mm256_permute2f128_ps(u2, u6, 0x31));
    _mm256_storeu_ps(out + 7 * ldo, _mm256_permute2f128_ps(u3, u7, 0x31));
}

/* One panel of b^T: out[q * nr + j] = b[j][q] for j < nr, q < kc, in 8x8
 * blocks (nr a multiple of 8, all nr rows of b present). */
__attribute__((target("avx2"))) static void pack_panel_t_avx2(float *out, const float *b, int ldb, int kc, int nr) {
    int q = 0;
    for (; q + 8 <= kc; q += 8)
        for (int j = 0; j < nr; j += 8) {
            const float *r[8];
            for (int i = 0; i < 8; i++) r[i] = b + (size_t)(j + i) * ldb + q;
            transpose8(out + (size_t)q * nr + j, (size_t)nr, r);
        }
    for (; q < kc; q++)
        for (int j = 0; j < nr; j++) out[(size_t)q * nr + j] = b[(size_t)j * ldb + q];
}

static int have_avx2(void) {
    static _Atomic int known; /* 0 unknown, 1 no, 2 yes */
    int k = atomic_load_explicit(&known, memory_order_relaxed);
    if (!k) {
        __builtin_cpu_init();
        k = __builtin_cpu_supports("avx2") ? 2 : 1;
        atomic_store_explicit(&known, k, memory_order_relaxed);
    }
    return k == 2;
}
#endif

void mat_pack_into(MatPacked *p, float *buf, const float *b, int ldb, int k, int n, int transposed) {
    const Kernel *kn = mat_active_kernel();
    int nr = kn->nr, kcb = block_depth(k);
    memset(p, 0, sizeof *p);
    p->k = k, p->n = n, p->nr = nr, p->kc = kcb, p->data = buf;
    /* Layout: block of k by block of k; inside one, panel by panel, kc rows
     * of nr. */
    float *out = buf;
    for (int p0 = 0; p0 < k; p0 += kcb) {
        int kc = k - p0 < kcb ? k - p0 : kcb;
        for (int j0 = 0; j0 < n; j0 += nr) {
            int nrv = n - j0 < nr ? n - j0 : nr;
#ifdef HAVE_X86
            if (transposed && nrv == nr && nr % 8 == 0 && have_avx2()) {
                pack_panel_t_avx2(out, b + (size_t)j0 * ldb + p0, ldb, kc, nr);
                out += (size_t)kc * nr;
                continue;
            }
#endif
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

int mat_packed_current(const MatPacked *p) { return p->data && p->nr == mat_active_kernel()->nr; }

void mat_packed_free(MatPacked *p) {
    if (!p) return;
    if (p->owned) free(p->data);
    p->data = NULL;
    p->owned = 0;
}

/* 1 when every x[0..n) is finite: the exponent bits are not all ones. */
static int all_finite(const float *x, int n) {
    uint32_t bad = 0;
    for (int j = 0; j < n; j++) {
        uint32_t b;
        memcpy(&b, &x[j], sizeof b);
        bad |= (b & 0x7F800000u) == 0x7F800000u;
    }
    return !bad;
}

/* An element of the tile whose float sum (over k < kmax) left the range (or
 * met inf - inf) is summed again in double, which cannot overflow for float
 * inputs of this size, and saturates. The same rule on every kernel keeps
 * the bits identical. */
static void fix_overflow(float *c, int ldc, const float *a, int lda, const MatPacked *p, int kmax, int row0, int rows,
                         int c0, int c1) {
    for (int i = row0; i < row0 + rows; i++) {
        if (all_finite(c + (size_t)i * ldc + c0, c1 - c0)) continue;
        for (int j = c0; j < c1; j++) {
            float *cij = &c[(size_t)i * ldc + j];
            if (isfinite(*cij)) continue;
            /* b(p, j) from the packed layout */
            double s = 0.0;
            int nr = p->nr, panels = (p->n + nr - 1) / nr;
            for (int q = 0; q < kmax; q++) {
                int kb = q / p->kc, kc = p->k - kb * p->kc < p->kc ? p->k - kb * p->kc : p->kc;
                const float *blk = p->data + (size_t)kb * p->kc * panels * nr;
                float bv = blk[((size_t)(j / nr) * kc + (q - kb * p->kc)) * nr + j % nr];
                s += (double)a[(size_t)i * lda + q] * bv;
            }
            *cij = to_float_saturated(s);
        }
    }
}

/* a (rows, kc; lda) into micro-panels of mr rows: panel t holds
 * ap[t * kc * mr + p * mr + r] = a[t * mr + r][p]; the rows beyond the
 * matrix repeat its last row (their sums are computed and never stored). */
static void pack_a_portable(float *ap, const float *const *arow, int kc, int mr) {
    for (int p = 0; p < kc; p++)
        for (int r = 0; r < mr; r++) ap[(size_t)p * mr + r] = arow[r][p];
}

#ifdef HAVE_X86
/* The same for mr 8 (8x8 transposes) or 6 (the 2 extra rows of each
 * transposed column are overwritten by the next one: writes up to 2 floats
 * beyond the panel). */
__attribute__((target("avx2"))) static void pack_a_avx2(float *ap, const float *const *arow, int kc, int mr) {
    int p = 0;
    if (mr == 8)
        for (; p + 8 <= kc; p += 8) {
            const float *r[8];
            for (int i = 0; i < 8; i++) r[i] = arow[i] + p;
            transpose8(ap + (size_t)p * 8, 8, r);
        }
    else if (mr == 6)
        for (; p + 8 <= kc; p += 8) {
            const float *r[8];
            for (int i = 0; i < 8; i++) r[i] = arow[i < 6 ? i : 5] + p;
            transpose8(ap + (size_t)p * 6, 6, r); /* stores in order: each overwrites the last one's extra */
        }
    for (; p < kc; p++)
        for (int r = 0; r < mr; r++) ap[(size_t)p * mr + r] = arow[r][p];
}
#endif

static void pack_a(float *ap, const float *a, int lda, int rows, int kc, int mr) {
    for (int i0 = 0; i0 < rows; i0 += mr) {
        const float *arow[MR_MAX];
        for (int r = 0; r < mr; r++) arow[r] = a + (size_t)(i0 + r < rows ? i0 + r : rows - 1) * lda;
#ifdef HAVE_X86
        if ((mr == 8 || mr == 6) && have_avx2()) pack_a_avx2(ap, arow, kc, mr);
        else
#endif
            pack_a_portable(ap, arow, kc, mr);
        ap += (size_t)kc * mr;
    }
}

#ifdef __GNUC__
#define PREFETCH_WRITE(p) __builtin_prefetch(p, 1, 3)
#else
#define PREFETCH_WRITE(p) (void)(p)
#endif

/* Asks for the cache lines of a tile of c: min(rows, mr) rows of cols floats. */
static void prefetch_tile(const float *c, int ldc, int rows, int mr, int cols) {
    if (rows > mr) rows = mr;
    for (int r = 0; r < rows; r++) {
        const char *row = (const char *)(c + (size_t)r * ldc);
        for (int off = 0; off < cols * 4; off += 64) PREFETCH_WRITE(row + off);
        PREFETCH_WRITE(row + cols * 4 - 1);
    }
}

/* What the tiles of one block of k share. */
typedef struct {
    const Kernel *kn;
    float *c;
    int ldc;
    const float *a; /* in place */
    int lda;
    const MatPacked *p;
    const float *blk;    /* b's block of k */
    int kc, kuse, p0, k; /* its packed depth, the rows used, its first row; the k summed in all */
} Block;

/* Rows [ib, ib + mcv) of c (+)= a's rows times panels [jg0, jg1) of one
 * block of k; ap: a's rows packed into micro-panels (NULL: read in place). */
static void mul_panels(const Block *bk, const float *ap, int ib, int mcv, int jg0, int jg1) {
    const Kernel *kn = bk->kn;
    int mr = kn->mr, nr = bk->p->nr, n = bk->p->n, ldc = bk->ldc;
    int flags = (bk->p0 == 0 ? TILE_FIRST : 0) | (bk->p0 + bk->kuse >= bk->k ? TILE_CHECK : 0);
    /* the next panel of b is fetched into L2 a piece per tile, by the
     * kernels (spread over their k loop: not a burst of misses) */
    size_t panel_bytes = sizeof(float) * (size_t)bk->kuse * nr, tiles = (size_t)(mcv + mr - 1) / mr;
    size_t piece = (panel_bytes + tiles - 1) / tiles;
    for (int jp = jg0; jp < jg1; jp++) {
        const float *bp = bk->blk + (size_t)jp * bk->kc * nr;
        int j0 = jp * nr, nrv = n - j0 < nr ? n - j0 : nr;
        for (int i0 = 0; i0 < mcv; i0 += mr) {
            const char *pf = NULL;
            ptrdiff_t pf_bytes = 0;
            if (jp + 1 < jg1) {
                size_t from = (size_t)(i0 / mr) * piece, to = from + piece < panel_bytes ? from + piece : panel_bytes;
                pf = (const char *)(bp + (size_t)bk->kc * nr) + from, pf_bytes = to > from ? (ptrdiff_t)(to - from) : 0;
            }
            int mrv = mcv - i0 < mr ? mcv - i0 : mr;
            const float *arow[MR_MAX];
            if (!ap)
                for (int r = 0; r < MR_MAX; r++)
                    arow[r] = bk->a + (size_t)(ib + i0 + (r < mrv ? r : mrv - 1)) * bk->lda + bk->p0;
            /* the next tile's c, fetched while this one is computed */
            float *ct = bk->c + (size_t)(ib + i0) * ldc + j0;
            if (i0 + mr < mcv) prefetch_tile(ct + (size_t)mr * ldc, ldc, mcv - i0 - mr, mr, nrv);
            else if (jp + 1 < jg1)
                prefetch_tile(bk->c + (size_t)ib * ldc + j0 + nr, ldc, mcv, mr, n - j0 - nr < nr ? n - j0 - nr : nr);
            if (kn->fn(bk->kuse, arow, ap ? ap + (size_t)i0 * bk->kuse : NULL, bp, pf, pf_bytes, ct, ldc, mrv, nrv,
                       flags))
                fix_overflow(bk->c, ldc, bk->a, bk->lda, bk->p, bk->k, ib + i0, mrv, j0, j0 + nrv);
        }
    }
}

/* The blocked product over rows [row0, row0 + rows), panels [jp0, jp1) and
 * k < kmax. Loops, outer to inner: blocks of k; MC blocks of rows (a's
 * block stays in L2), packed into micro-panels when enough panels use it;
 * panels; MR-row tiles. Every element still sums its k in ascending order:
 * the blocks of k are the outer loop. */
static void mul_block(float *c, int ldc, const float *a, int lda, const MatPacked *p, int row0, int rows, int jp0,
                      int jp1, int kmax) {
    const Kernel *kn = mat_active_kernel();
    int nr = p->nr, mr = kn->mr, panels = (p->n + nr - 1) / nr;
    assert(nr == kn->nr); /* packed for another kernel: a caller's bug (mat_packed_current says) */
    if (jp1 > panels) jp1 = panels;
    int k = kmax < p->k ? kmax : p->k;
    if (k <= 0 || rows <= 0) {
        int c0 = jp0 * nr, c1 = jp1 * nr < p->n ? jp1 * nr : p->n;
        for (int i = row0; i < row0 + rows; i++)
            if (c1 > c0) memset(c + (size_t)i * ldc + c0, 0, sizeof(float) * (size_t)(c1 - c0));
        return;
    }
    float *ap = jp1 - jp0 >= PACK_A_PANELS ? a_panels() : NULL;
    int kcb = p->kc, pack = ap != NULL;
    /* rows of a's block: as many as fit, a multiple of 24 */
    int mc = a_block_floats() / (kcb < k ? kcb : k) / 24 * 24;
    if (mc > MC_MAX) mc = MC_MAX;
    for (int p0 = 0; p0 < k; p0 += kcb) {
        /* The panels of a block of k are kc deep (the packed depth, even when
         * only the first k - p0 rows of the last block are used). */
        int kc = p->k - p0 < kcb ? p->k - p0 : kcb, kuse = k - p0 < kc ? k - p0 : kc;
        Block bk = {kn, c, ldc, a, lda, p, p->data + (size_t)(p0 / kcb) * kcb * panels * nr, kc, kuse, p0, k};
        for (int ib = row0; ib < row0 + rows; ib += mc) {
            int mcv = row0 + rows - ib < mc ? row0 + rows - ib : mc;
            if (pack) pack_a(ap, a + (size_t)ib * lda + p0, lda, mcv, kuse, mr);
            mul_panels(&bk, ap, ib, mcv, jp0, jp1);
        }
    }
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
