/* transformer_linear.c - the engine's products (transformer_internal.h):
 * out (rows, n_out) = x (rows, n_in) W^T (+ bias), W a view of a tensor in
 * its file's type, read in blocks of TF_W_BLOCK output rows, each block
 * finished (bias, GELU, SwiGLU, residual) in the task that computed it. */
#include "i18n.h"
#include "transformer_internal.h"

#include "nnops.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "parallel.h"

enum { RIGHT_CHUNK = 64, PF_ROWS = 12 };

// ----------------------------------------------------------------------------
// products: out (rows, n_out; ld_out) = x (rows, n_in; ld_x) W^T (+ bias)
//
// W is read in blocks of TF_W_BLOCK output rows, in one of two ways that give
// the same bits (every element is the same FMA sum over k, matrix.h):
//   left:  nn.Linear's (out, in): the block is the left matrix of W_blk x^T,
//          in place when F32, x^T packed once for every block;
//   right: Conv1D's (in, out): out[:, blk] = x W_blk^T, the block's rows
//          (in place when F32) packed as the right matrix.

/* 1 when the host stores floats as the files do (little-endian). */
static int host_little_endian(void) {
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

/* 1 when w's elements can be read in place as floats. */
static int f32_in_place(const TfMat *w) {
    return w->t->dtype == ST_F32 && (uintptr_t)w->t->data % sizeof(float) == 0 && host_little_endian();
}

#ifdef NN_X86
__attribute__((target("avx512f"))) static size_t bf16_avx512(float *out, const unsigned char *p, size_t n) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512i v = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(const void *)(p + 2 * i)));
        _mm512_storeu_ps(out + i, _mm512_castsi512_ps(_mm512_slli_epi32(v, 16)));
    }
    return i;
}

__attribute__((target("avx2,fma"))) static size_t bf16_avx2(float *out, const unsigned char *p, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i v = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)(p + 2 * i)));
        _mm256_storeu_ps(out + i, _mm256_castsi256_ps(_mm256_slli_epi32(v, 16)));
    }
    return i;
}
#endif

/* Exact: BF16 is a float's top half, widened in SIMD on x86
 * (little-endian); the rest by st_to_f32. */
void tf_to_f32(const StTensor *t, size_t first, size_t n, float *out) {
    size_t done = 0;
    if (t->dtype == ST_F32 && host_little_endian()) {
        memcpy(out, t->data + 4 * first, sizeof(float) * n);
        return;
    }
#ifdef NN_X86
    if (t->dtype == ST_BF16) {
        NnPath path = nn_path();
        if (path == NN_AVX512) done = bf16_avx512(out, t->data + 2 * first, n);
        else if (path == NN_AVX2) done = bf16_avx2(out, t->data + 2 * first, n);
    }
#endif
    if (done < n) st_to_f32(t, first + done, n - done, out + done);
}

const float *tf_mat_block(const TfMat *w, int o0, int wrows, int n_in, float *buf, int *ld) {
    const StTensor *t = w->t;
    if (!w->transposed && f32_in_place(w)) {
        *ld = w->ld;
        return (const float *)(const void *)t->data + w->off + (size_t)o0 * w->ld;
    }
    *ld = n_in;
    if (!w->transposed) {
        for (int c = 0; c < wrows; c++)
            tf_to_f32(t, w->off + (size_t)(o0 + c) * w->ld, (size_t)n_in, buf + (size_t)c * n_in);
        return buf;
    }
    float col[TF_W_BLOCK];
    for (int i = 0; i < n_in; i++) {
        tf_to_f32(t, w->off + (size_t)i * w->ld + o0, (size_t)wrows, col);
        for (int c = 0; c < wrows; c++) buf[(size_t)c * n_in + i] = col[c];
    }
    return buf;
}

int tf_in_max(const TfConfig *c) {
    int m = c->dim > c->hidden_dim ? c->dim : c->hidden_dim;
    return m > c->q_dim ? m : c->q_dim;
}

size_t tf_tile_floats(const TfRun *r) {
    size_t tile = (size_t)TF_W_BLOCK * r->cap, packed = mat_packed_floats(tf_in_max(r->cfg), TF_W_BLOCK);
    return tile > packed ? tile : packed;
}

/* Element i of rows: a float, or a BF16 (little-endian host) widened. */
static inline float row_at(const unsigned char *rows, int bf16, size_t i) {
    float v;
    if (!bf16) memcpy(&v, rows + 4 * i, sizeof v);
    else {
        uint32_t b = (uint32_t)(rows[2 * i] | rows[2 * i + 1] << 8) << 16;
        memcpy(&v, &b, sizeof v);
    }
    return v;
}

/* One row of x times W's rows (gemv): out[c] = x . row c for c < wrows,
 * rows (wrows, n_in; ld) as floats or BF16. Each an FMA sum over k in
 * ascending order from 0, a result out of the float range summed again in
 * double and saturated (matrix.h's rule: the bits of the product with more
 * rows). The product would pad x^T's one column to a panel of 32; here 16
 * (8) rows of W are turned into columns in registers and the lanes run 16
 * (8) rows' sums side by side. */
#ifdef NN_X86
/* r0..r15 = the columns of the 16 x 16 block in r0..r15 (t0..t15 scratch) */
#define TR16(r, t)                                                                                                     \
    t##0 = _mm512_unpacklo_ps(r##0, r##1), t##1 = _mm512_unpackhi_ps(r##0, r##1);                                      \
    t##2 = _mm512_unpacklo_ps(r##2, r##3), t##3 = _mm512_unpackhi_ps(r##2, r##3);                                      \
    t##4 = _mm512_unpacklo_ps(r##4, r##5), t##5 = _mm512_unpackhi_ps(r##4, r##5);                                      \
    t##6 = _mm512_unpacklo_ps(r##6, r##7), t##7 = _mm512_unpackhi_ps(r##6, r##7);                                      \
    t##8 = _mm512_unpacklo_ps(r##8, r##9), t##9 = _mm512_unpackhi_ps(r##8, r##9);                                      \
    t##10 = _mm512_unpacklo_ps(r##10, r##11), t##11 = _mm512_unpackhi_ps(r##10, r##11);                                \
    t##12 = _mm512_unpacklo_ps(r##12, r##13), t##13 = _mm512_unpackhi_ps(r##12, r##13);                                \
    t##14 = _mm512_unpacklo_ps(r##14, r##15), t##15 = _mm512_unpackhi_ps(r##14, r##15);                                \
    r##0 = _mm512_shuffle_ps(t##0, t##2, 0x44), r##1 = _mm512_shuffle_ps(t##0, t##2, 0xEE);                            \
    r##2 = _mm512_shuffle_ps(t##1, t##3, 0x44), r##3 = _mm512_shuffle_ps(t##1, t##3, 0xEE);                            \
    r##4 = _mm512_shuffle_ps(t##4, t##6, 0x44), r##5 = _mm512_shuffle_ps(t##4, t##6, 0xEE);                            \
    r##6 = _mm512_shuffle_ps(t##5, t##7, 0x44), r##7 = _mm512_shuffle_ps(t##5, t##7, 0xEE);                            \
    r##8 = _mm512_shuffle_ps(t##8, t##10, 0x44), r##9 = _mm512_shuffle_ps(t##8, t##10, 0xEE);                          \
    r##10 = _mm512_shuffle_ps(t##9, t##11, 0x44), r##11 = _mm512_shuffle_ps(t##9, t##11, 0xEE);                        \
    r##12 = _mm512_shuffle_ps(t##12, t##14, 0x44), r##13 = _mm512_shuffle_ps(t##12, t##14, 0xEE);                      \
    r##14 = _mm512_shuffle_ps(t##13, t##15, 0x44), r##15 = _mm512_shuffle_ps(t##13, t##15, 0xEE);                      \
    t##0 = _mm512_shuffle_f32x4(r##0, r##4, 0x88), t##1 = _mm512_shuffle_f32x4(r##1, r##5, 0x88);                      \
    t##2 = _mm512_shuffle_f32x4(r##2, r##6, 0x88), t##3 = _mm512_shuffle_f32x4(r##3, r##7, 0x88);                      \
    t##4 = _mm512_shuffle_f32x4(r##0, r##4, 0xdd), t##5 = _mm512_shuffle_f32x4(r##1, r##5, 0xdd);                      \
    t##6 = _mm512_shuffle_f32x4(r##2, r##6, 0xdd), t##7 = _mm512_shuffle_f32x4(r##3, r##7, 0xdd);                      \
    t##8 = _mm512_shuffle_f32x4(r##8, r##12, 0x88), t##9 = _mm512_shuffle_f32x4(r##9, r##13, 0x88);                    \
    t##10 = _mm512_shuffle_f32x4(r##10, r##14, 0x88), t##11 = _mm512_shuffle_f32x4(r##11, r##15, 0x88);                \
    t##12 = _mm512_shuffle_f32x4(r##8, r##12, 0xdd), t##13 = _mm512_shuffle_f32x4(r##9, r##13, 0xdd);                  \
    t##14 = _mm512_shuffle_f32x4(r##10, r##14, 0xdd), t##15 = _mm512_shuffle_f32x4(r##11, r##15, 0xdd);                \
    r##0 = _mm512_shuffle_f32x4(t##0, t##8, 0x88), r##1 = _mm512_shuffle_f32x4(t##1, t##9, 0x88);                      \
    r##2 = _mm512_shuffle_f32x4(t##2, t##10, 0x88), r##3 = _mm512_shuffle_f32x4(t##3, t##11, 0x88);                    \
    r##4 = _mm512_shuffle_f32x4(t##4, t##12, 0x88), r##5 = _mm512_shuffle_f32x4(t##5, t##13, 0x88);                    \
    r##6 = _mm512_shuffle_f32x4(t##6, t##14, 0x88), r##7 = _mm512_shuffle_f32x4(t##7, t##15, 0x88);                    \
    r##8 = _mm512_shuffle_f32x4(t##0, t##8, 0xdd), r##9 = _mm512_shuffle_f32x4(t##1, t##9, 0xdd);                      \
    r##10 = _mm512_shuffle_f32x4(t##2, t##10, 0xdd), r##11 = _mm512_shuffle_f32x4(t##3, t##11, 0xdd);                  \
    r##12 = _mm512_shuffle_f32x4(t##4, t##12, 0xdd), r##13 = _mm512_shuffle_f32x4(t##5, t##13, 0xdd);                  \
    r##14 = _mm512_shuffle_f32x4(t##6, t##14, 0xdd), r##15 = _mm512_shuffle_f32x4(t##7, t##15, 0xdd)

/* 16 elements of a row at p: floats, or BF16 widened */
__attribute__((target("avx512f"))) static inline __m512 load16(const unsigned char *p, int bf16) {
    if (!bf16) return _mm512_loadu_ps((const float *)(const void *)p);
    __m512i v = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(const void *)p));
    return _mm512_castsi512_ps(_mm512_slli_epi32(v, 16));
}

__attribute__((target("avx512f"))) static int gemv_avx512(float *out, const float *x, const unsigned char *rows,
                                                          int bf16, int ld, int wrows, int n_in) {
    size_t es = bf16 ? 2 : 4, l = (size_t)ld * es;
    int c0 = 0;
    for (; c0 + 16 <= wrows; c0 += 16) {
        const unsigned char *w = rows + (size_t)c0 * l;
        __m512 acc = _mm512_setzero_ps();
        int k = 0;
        for (; k + 16 <= n_in; k += 16) {
            const unsigned char *p = w + k * es;
            __m512 r0 = load16(p, bf16), r1 = load16(p + l, bf16), r2 = load16(p + 2 * l, bf16);
            __m512 r3 = load16(p + 3 * l, bf16), r4 = load16(p + 4 * l, bf16), r5 = load16(p + 5 * l, bf16);
            __m512 r6 = load16(p + 6 * l, bf16), r7 = load16(p + 7 * l, bf16), r8 = load16(p + 8 * l, bf16);
            __m512 r9 = load16(p + 9 * l, bf16), r10 = load16(p + 10 * l, bf16), r11 = load16(p + 11 * l, bf16);
            __m512 r12 = load16(p + 12 * l, bf16), r13 = load16(p + 13 * l, bf16), r14 = load16(p + 14 * l, bf16);
            __m512 r15 = load16(p + 15 * l, bf16);
            __m512 t0, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15;
            TR16(r, t);
            const float *xk = x + k;
            acc = _mm512_fmadd_ps(_mm512_set1_ps(xk[0]), r0, acc);
            acc = _mm512_fmadd_ps(_mm512_set1_ps(xk[1]), r1, acc);
            acc = _mm512_fmadd_ps(_mm512_set1_ps(xk[2]), r2, acc);
            acc = _mm512_fmadd_ps(_mm512_set1_ps(xk[3]), r3, acc);
            acc = _mm512_fmadd_ps(_mm512_set1_ps(xk[4]), r4, acc);
            acc = _mm512_fmadd_ps(_mm512_set1_ps(xk[5]), r5, acc);
            acc = _mm512_fmadd_ps(_mm512_set1_ps(xk[6]), r6, acc);
            acc = _mm512_fmadd_ps(_mm512_set1_ps(xk[7]), r7, acc);
            acc = _mm512_fmadd_ps(_mm512_set1_ps(xk[8]), r8, acc);
            acc = _mm512_fmadd_ps(_mm512_set1_ps(xk[9]), r9, acc);
            acc = _mm512_fmadd_ps(_mm512_set1_ps(xk[10]), r10, acc);
            acc = _mm512_fmadd_ps(_mm512_set1_ps(xk[11]), r11, acc);
            acc = _mm512_fmadd_ps(_mm512_set1_ps(xk[12]), r12, acc);
            acc = _mm512_fmadd_ps(_mm512_set1_ps(xk[13]), r13, acc);
            acc = _mm512_fmadd_ps(_mm512_set1_ps(xk[14]), r14, acc);
            acc = _mm512_fmadd_ps(_mm512_set1_ps(xk[15]), r15, acc);
        }
        _mm512_storeu_ps(out + c0, acc);
        for (int c = c0; c < c0 + 16; c++)
            for (int q = k; q < n_in; q++) out[c] = fmaf(x[q], row_at(rows, bf16, (size_t)c * ld + q), out[c]);
    }
    return c0;
}

#undef TR16

__attribute__((target("avx2,fma"))) static inline __m256 load8(const unsigned char *p, int bf16) {
    if (!bf16) return _mm256_loadu_ps((const float *)(const void *)p);
    __m256i v = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)p));
    return _mm256_castsi256_ps(_mm256_slli_epi32(v, 16));
}

__attribute__((target("avx2,fma"))) static int gemv_avx2(float *out, const float *x, const unsigned char *rows,
                                                         int bf16, int ld, int wrows, int n_in) {
    size_t es = bf16 ? 2 : 4, l = (size_t)ld * es;
    int c0 = 0;
    for (; c0 + 8 <= wrows; c0 += 8) {
        const unsigned char *w = rows + (size_t)c0 * l;
        __m256 acc = _mm256_setzero_ps();
        int k = 0;
        for (; k + 8 <= n_in; k += 8) {
            const unsigned char *p = w + k * es;
            __m256 r[8];
            for (int q = 0; q < 8; q++) r[q] = load8(p + q * l, bf16);
            nn_transpose8(r); /* r[q]: element k + q of the 8 rows */
            const float *xk = x + k;
            for (int q = 0; q < 8; q++) acc = _mm256_fmadd_ps(_mm256_set1_ps(xk[q]), r[q], acc);
        }
        _mm256_storeu_ps(out + c0, acc);
        for (int c = c0; c < c0 + 8; c++)
            for (int q = k; q < n_in; q++) out[c] = fmaf(x[q], row_at(rows, bf16, (size_t)c * ld + q), out[c]);
    }
    return c0;
}
#endif

static void gemv_rows(float *out, const float *x, const unsigned char *rows, int bf16, int ld, int wrows, int n_in) {
    int c0 = 0;
#ifdef NN_X86
    NnPath path = nn_path();
    if (path == NN_AVX512) c0 = gemv_avx512(out, x, rows, bf16, ld, wrows, n_in);
    else if (path == NN_AVX2) c0 = gemv_avx2(out, x, rows, bf16, ld, wrows, n_in);
#endif
    for (int c = c0; c < wrows; c++) {
        float acc = 0.0f;
        for (int q = 0; q < n_in; q++) acc = fmaf(x[q], row_at(rows, bf16, (size_t)c * ld + q), acc);
        out[c] = acc;
    }
    for (int c = 0; c < wrows; c++) {
        if (isfinite(out[c])) continue;
        double sum = 0.0;
        for (int q = 0; q < n_in; q++) sum += (double)x[q] * row_at(rows, bf16, (size_t)c * ld + q);
        out[c] = nn_sat(sum);
    }
}

/* One row of x times W^T's columns, W^T (n_in, wrows; ld) a Conv1D's rows as
 * floats or BF16: out[c] = sum over k of x[k] W^T[k][c], the same FMA sums in k
 * order (each lane one column). */
#ifdef NN_X86
__attribute__((target("avx512f"))) static int gemv_t_avx512(float *out, const float *x, const unsigned char *rows,
                                                            int bf16, int ld, int wrows, int n_in) {
    size_t es = bf16 ? 2 : 4, l = (size_t)ld * es;
    int c0 = 0;
    for (; c0 + 64 <= wrows; c0 += 64) {
        __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
        const unsigned char *p = rows + (size_t)c0 * es;
        for (int k = 0; k < n_in; k++, p += l) {
            __m512 xk = _mm512_set1_ps(x[k]);
            a0 = _mm512_fmadd_ps(xk, load16(p, bf16), a0);
            a1 = _mm512_fmadd_ps(xk, load16(p + 16 * es, bf16), a1);
            a2 = _mm512_fmadd_ps(xk, load16(p + 32 * es, bf16), a2);
            a3 = _mm512_fmadd_ps(xk, load16(p + 48 * es, bf16), a3);
        }
        _mm512_storeu_ps(out + c0, a0), _mm512_storeu_ps(out + c0 + 16, a1);
        _mm512_storeu_ps(out + c0 + 32, a2), _mm512_storeu_ps(out + c0 + 48, a3);
    }
    for (; c0 + 16 <= wrows; c0 += 16) {
        __m512 a0 = _mm512_setzero_ps();
        const unsigned char *p = rows + (size_t)c0 * es;
        for (int k = 0; k < n_in; k++, p += l) a0 = _mm512_fmadd_ps(_mm512_set1_ps(x[k]), load16(p, bf16), a0);
        _mm512_storeu_ps(out + c0, a0);
    }
    return c0;
}

__attribute__((target("avx2,fma"))) static int gemv_t_avx2(float *out, const float *x, const unsigned char *rows,
                                                           int bf16, int ld, int wrows, int n_in) {
    size_t es = bf16 ? 2 : 4, l = (size_t)ld * es;
    int c0 = 0;
    for (; c0 + 32 <= wrows; c0 += 32) {
        __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
        const unsigned char *p = rows + (size_t)c0 * es;
        for (int k = 0; k < n_in; k++, p += l) {
            __m256 xk = _mm256_set1_ps(x[k]);
            a0 = _mm256_fmadd_ps(xk, load8(p, bf16), a0);
            a1 = _mm256_fmadd_ps(xk, load8(p + 8 * es, bf16), a1);
            a2 = _mm256_fmadd_ps(xk, load8(p + 16 * es, bf16), a2);
            a3 = _mm256_fmadd_ps(xk, load8(p + 24 * es, bf16), a3);
        }
        _mm256_storeu_ps(out + c0, a0), _mm256_storeu_ps(out + c0 + 8, a1);
        _mm256_storeu_ps(out + c0 + 16, a2), _mm256_storeu_ps(out + c0 + 24, a3);
    }
    for (; c0 + 8 <= wrows; c0 += 8) {
        __m256 a0 = _mm256_setzero_ps();
        const unsigned char *p = rows + (size_t)c0 * es;
        for (int k = 0; k < n_in; k++, p += l) a0 = _mm256_fmadd_ps(_mm256_set1_ps(x[k]), load8(p, bf16), a0);
        _mm256_storeu_ps(out + c0, a0);
    }
    return c0;
}
#endif

static void gemv_t_rows(float *out, const float *x, const unsigned char *rows, int bf16, int ld, int wrows, int n_in) {
    int c0 = 0;
#ifdef NN_X86
    NnPath path = nn_path();
    if (path == NN_AVX512) c0 = gemv_t_avx512(out, x, rows, bf16, ld, wrows, n_in);
    else if (path == NN_AVX2) c0 = gemv_t_avx2(out, x, rows, bf16, ld, wrows, n_in);
#endif
    for (int c = c0; c < wrows; c++) {
        float acc = 0.0f;
        for (int q = 0; q < n_in; q++) acc = fmaf(x[q], row_at(rows, bf16, (size_t)q * ld + c), acc);
        out[c] = acc;
    }
    for (int c = 0; c < wrows; c++) {
        if (isfinite(out[c])) continue;
        double sum = 0.0;
        for (int q = 0; q < n_in; q++) sum += (double)x[q] * row_at(rows, bf16, (size_t)q * ld + c);
        out[c] = nn_sat(sum);
    }
}

/* Asks for bytes [p, p + n) in cache. */
static void prefetch_bytes(const unsigned char *p, size_t n) {
    for (size_t b = 0; b < n; b += 64) __builtin_prefetch(p + b);
    __builtin_prefetch(p + n - 1);
}

/* Rows [i0, i1) of block o0 of o, computed: the bias, GELU and residual. */
static void block_post(const Linear *j, const LinOut *o, int o0, int wrows, int i0, int i1) {
    for (int i = i0; i < i1; i++) {
        float *oi = o->out + (size_t)i * o->ld + o0;
        if (o->bias) nn_residual(oi, oi, o->bias + o0, (size_t)wrows);
        if (j->act == ACT_GELU) nn_gelu(oi, (size_t)wrows);
        if (o->sum) nn_residual(o->sum + (size_t)i * o->ld + o0, o->add + (size_t)i * o->ld + o0, oi, (size_t)wrows);
    }
}

/* Block o0 of o: out[:, o0 .. o0 + wrows), chunk of rows by chunk of rows
 * (each finished while in cache). */
static void linear_block(const Linear *j, float *scratch, const LinOut *o, int o0) {
    const TfRun *r = j->r;
    const TfMat *w = o->w;
    const StTensor *t = w->t;
    int wrows = o->n_out - o0 < TF_W_BLOCK ? o->n_out - o0 : TF_W_BLOCK, n_in = j->n_in;
    float *tile = scratch;                     /* (TF_W_BLOCK, chunk), or the packed block */
    float *conv = scratch + tf_tile_floats(r); /* a block converted: (TF_W_BLOCK, n_in) or (n_in, wrows) */
    int bf16 = t->dtype == ST_BF16 && host_little_endian();
    if (w->transposed && j->rows == 1 && (bf16 || f32_in_place(w))) { /* one row: in place */
        gemv_t_rows(o->out + o0, j->x, t->data + (w->off + (size_t)o0) * (bf16 ? 2 : 4), bf16, w->ld, wrows, n_in);
        block_post(j, o, o0, wrows, 0, 1);
        return;
    }
    if (w->transposed) { /* right */
        /* the block's rows (in, wrows) into conv, PF_ROWS rows read ahead:
         * the weights come from memory, a few hundred bytes a row */
        size_t esize = st_dtype_size(t->dtype), rbytes = (size_t)wrows * esize;
        const unsigned char *row0 = t->data + (w->off + (size_t)o0) * esize;
        for (int i = 0; i < PF_ROWS && i < n_in; i++) prefetch_bytes(row0 + (size_t)i * w->ld * esize, rbytes);
        for (int i = 0; i < n_in; i++) {
            if (i + PF_ROWS < n_in) prefetch_bytes(row0 + (size_t)(i + PF_ROWS) * w->ld * esize, rbytes);
            tf_to_f32(t, w->off + (size_t)i * w->ld + o0, (size_t)wrows, conv + (size_t)i * wrows);
        }
        const float *src = conv;
        int lds = wrows;
        MatPacked wb;
        mat_pack_into(&wb, tile, src, lds, n_in, wrows, 0);
        for (int i0 = 0; i0 < j->rows; i0 += RIGHT_CHUNK) {
            int n = j->rows - i0 < RIGHT_CHUNK ? j->rows - i0 : RIGHT_CHUNK;
            mat_mul_rows(o->out + o0, o->ld, j->x, j->ld_x, &wb, i0, n);
            block_post(j, o, o0, wrows, i0, i0 + n);
        }
        return;
    }
    /* left */
    if (j->rows == 1 && (bf16 || f32_in_place(w))) { /* in place */
        gemv_rows(o->out + o0, j->x, t->data + (w->off + (size_t)o0 * w->ld) * (bf16 ? 2 : 4), bf16, w->ld, wrows,
                  n_in);
        block_post(j, o, o0, wrows, 0, 1);
        return;
    }
    const float *wp = conv;
    int ldw = n_in;
    if (f32_in_place(w)) wp = (const float *)(const void *)t->data + w->off + (size_t)o0 * w->ld, ldw = w->ld;
    else
        for (int c = 0; c < wrows; c++)
            tf_to_f32(t, w->off + (size_t)(o0 + c) * w->ld, (size_t)n_in, conv + (size_t)c * n_in);
    if (j->rows == 1) {
        gemv_rows(o->out + o0, j->x, (const unsigned char *)wp, 0, ldw, wrows, n_in);
        block_post(j, o, o0, wrows, 0, 1);
        return;
    }
    for (int ch = 0; ch < j->nchunks; ch++) {
        int i0 = ch * j->chunk, n = j->rows - i0 < j->chunk ? j->rows - i0 : j->chunk;
        mat_mul_rows(tile, n, wp, ldw, &j->xt[ch], 0, wrows);
        nn_tile_out(o->out + (size_t)i0 * o->ld + o0, o->ld, tile, (size_t)n, n, wrows);
        block_post(j, o, o0, wrows, i0, i0 + n);
    }
}

static void linear_task(void *ctx, int lane) {
    Linear *j = ctx;
    float *scratch = j->r->scratch + (size_t)lane * j->r->lane_floats;
    for (int t; (t = atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed)) < j->items;) {
        int k = 0, b = t;
        if (j->act != ACT_SWIGLU)
            while (b >= (j->outs[k].n_out + TF_W_BLOCK - 1) / TF_W_BLOCK)
                b -= (j->outs[k++].n_out + TF_W_BLOCK - 1) / TF_W_BLOCK;
        int o0 = b * TF_W_BLOCK;
        linear_block(j, scratch, &j->outs[k], o0);
        if (j->act == ACT_SWIGLU) {
            const LinOut *g = &j->outs[0], *u = &j->outs[1];
            int wrows = g->n_out - o0 < TF_W_BLOCK ? g->n_out - o0 : TF_W_BLOCK;
            linear_block(j, scratch, u, o0);
            for (int i = 0; i < j->rows; i++)
                nn_swiglu(g->out + (size_t)i * g->ld + o0, u->out + (size_t)i * u->ld + o0, (size_t)wrows);
        }
    }
}

/* Chunks of x^T packed, taken from the counter: a chunk of up to
 * TF_W_BLOCK rows turned into (n_in, n) in the lane's scratch first (8 x 8
 * blocks in registers), then packed by rows (copies), both faster than the
 * packing's element-by-element gather. */
static void pack_task(void *ctx, int lane) {
    Linear *j = ctx;
    float *xt = j->r->scratch + (size_t)lane * j->r->lane_floats + tf_tile_floats(j->r); /* (n_in, chunk) */
    for (int ch; (ch = atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed)) < j->nchunks;) {
        int i0 = ch * j->chunk, n = j->rows - i0 < j->chunk ? j->rows - i0 : j->chunk;
        float *buf = j->r->pack + mat_packed_floats(j->n_in, j->chunk) * (size_t)ch;
        const float *x = j->x + (size_t)i0 * j->ld_x;
        if (j->chunk <= TF_W_BLOCK) {
            nn_tile_out(xt, n, x, (size_t)j->ld_x, j->n_in, n);
            mat_pack_into(&j->xt[ch], buf, xt, n, j->n_in, n, 0);
        } else mat_pack_into(&j->xt[ch], buf, x, j->ld_x, j->n_in, n, 1);
    }
}

/* The products of j (outs set), on the pool. */
void tf_linear_run(Linear *j) {
    int left = 0;
    j->items = 0;
    for (int k = 0; k < j->nouts; k++) {
        left |= !j->outs[k].w->transposed;
        if (j->act != ACT_SWIGLU || k == 0) j->items += (j->outs[k].n_out + TF_W_BLOCK - 1) / TF_W_BLOCK;
    }
    if (left && j->rows > 1) { /* x^T in chunks of rows packed on the pool: a
                                  product sums over k alike in any */
        int per = (j->rows + XT_CHUNKS - 1) / XT_CHUNKS;
        j->chunk = per < 64 ? 64 : (per + 31) / 32 * 32;
        j->nchunks = (j->rows + j->chunk - 1) / j->chunk;
        atomic_init(&j->next, 0);
        par_for_work(j->r->lanes < j->nchunks ? j->r->lanes : j->nchunks, pack_task, j, 2.0 * j->rows * j->n_in);
    }
    double flops = 0;
    for (int k = 0; k < j->nouts; k++) flops += 2.0 * j->rows * j->n_in * j->outs[k].n_out;
    atomic_init(&j->next, 0);
    par_for_work(j->r->lanes < j->items ? j->r->lanes : j->items, linear_task, j, flops);
}

/* out (rows, n_out; ld_out) = x W^T + bias, alone. */
void tf_linear_forward(TfRun *r, float *out, int ld_out, const float *x, int ld_x, const TfMat *w, const float *bias,
                       int rows, int n_in, int n_out) {
    Linear j = {.r = r, .x = x, .ld_x = ld_x, .rows = rows, .n_in = n_in, .nouts = 1};
    j.outs[0] = (LinOut){.w = w, .bias = bias, .out = out, .ld = ld_out, .n_out = n_out};
    tf_linear_run(&j);
}
