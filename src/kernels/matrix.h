/* matrix.h - dense row-major float32 matrix products, fast and the same bits
 * on every machine.
 *
 * Every element of a product is one float sum of fused multiply-adds over k in
 * ascending order: acc = 0; acc = fma(a[i][p], b[p][j], acc) for p = 0..k-1.
 * The AVX-512, AVX2 and portable (fmaf) kernels all compute exactly that, so
 * the kernel, the blocking and the number of threads never change a bit.
 * A result that leaves the float range (or would be inf - inf) is computed
 * again in double and saturates at +-FLT_MAX: products never hold inf or NaN.
 *
 * Matrices have a leading dimension (the distance in floats between rows),
 * so a head's columns inside a wider matrix can be used without copying.
 * Argument order: outputs, inputs, then dimensions (llm.c). */
#ifndef ATTNVIZ_MATRIX_H
#define ATTNVIZ_MATRIX_H

#include <stddef.h>

/* The right-hand matrix of a product, packed for the kernel in use: panels of
 * NR columns, kc rows at a time (all of k up to 768). Packing is done once
 * and shared read-only by every thread that multiplies rows with it. */
typedef struct {
    float *data; /* the panels (owned unless packed into the caller's buffer) */
    int k, n;    /* the (k, n) matrix it holds */
    int nr, kc;  /* panel width of the kernel it was packed for; depth of a block of k */
    int owned;   /* data was allocated by mat_pack */
} MatPacked;

/* Floats a packed (k, n) matrix needs, for any kernel. */
size_t mat_packed_floats(int k, int n);

/* Packs into buf (mat_packed_floats(k, n) floats, owned by the caller). */
void mat_pack_into(MatPacked *p, float *buf, const float *b, int ldb, int k, int n, int transposed);

/* 1 when p was packed for the kernel in use (else it must be packed again). */
int mat_packed_current(const MatPacked *p);

/* Packs b (k, n; ldb), or, with transposed, b^T where b is (n, k; ldb).
 * Returns -1 when out of memory. Free with mat_packed_free (NULL-safe). */
int mat_pack(MatPacked *p, const float *b, int ldb, int k, int n, int transposed);
void mat_packed_free(MatPacked *p);

/* Rows [row0, row0 + rows) of c (m, n; ldc) = a (m, k; lda) * p. */
void mat_mul_rows(float *c, int ldc, const float *a, int lda, const MatPacked *p, int row0, int rows);

/* Rows [row0, row0 + rows) and columns [col0, col0 + cols) of the product;
 * col0 a multiple of 32 (every kernel's panel width divides it). */
void mat_mul_block(float *c, int ldc, const float *a, int lda, const MatPacked *p, int row0, int rows, int col0,
                   int cols);

/* The same, summing only over k < kmax: for a left matrix known to be 0 from
 * column kmax on (causal attention weights), whose products would add
 * nothing. */
void mat_mul_rows_k(float *c, int ldc, const float *a, int lda, const MatPacked *p, int row0, int rows, int kmax);

/* c (m, n; ldc) = a (m, k; lda) * b (k, n; ldb). */
void mat_mul(float *c, int ldc, const float *a, int lda, const float *b, int ldb, int m, int k, int n);

/* c (m, n; ldc) = a (m, k; lda) * b^T where b is (n, k; ldb). */
void mat_mul_bt(float *c, int ldc, const float *a, int lda, const float *b, int ldb, int m, int k, int n);

/* References for tests: the plain loops, accumulated in double. */
void mat_mul_ref(float *c, int ldc, const float *a, int lda, const float *b, int ldb, int m, int k, int n);
void mat_mul_bt_ref(float *c, int ldc, const float *a, int lda, const float *b, int ldb, int m, int k, int n);

/* Dot product of two float vectors, accumulated in double. */
double vec_dot(const float *a, const float *b, int n);

/* The kernel in use: "avx512", "avx2" or "portable", chosen at the first
 * product from the CPU. */
const char *mat_kernel_name(void);
/* Forces a kernel by name (tests, benchmarks; NULL: the best one); -1 when
 * the CPU lacks it.
 * Products packed for one kernel must be multiplied with the same one. */
int mat_set_kernel(const char *name);

#endif
