/* matrix.h - dense row-major float32 kernels with double accumulation.
 *
 * Every matrix is row-major `rows x cols` with a leading dimension (the
 * distance in floats between two rows), so a head's columns inside a wider
 * matrix can be used without copying. Argument order: outputs, inputs, then
 * dimensions (llm.c). */
#ifndef ATTNVIZ_MATRIX_H
#define ATTNVIZ_MATRIX_H

#include <stddef.h>

/* A read-only view of a matrix: element (i, j) is data[i * ld + j]. */
typedef struct {
    const float *data;
    int rows, cols;
    int ld;
} MatView;

static inline float mat_at(MatView m, int i, int j) { return m.data[(size_t)i * (size_t)m.ld + (size_t)j]; }
static inline MatView mat_view(const float *data, int rows, int cols, int ld) {
    MatView v = {data, rows, cols, ld};
    return v;
}

/* c (m, n; ldc) = a (m, k; lda) * b (k, n; ldb). */
void mat_mul(float *c, int ldc, const float *a, int lda, const float *b, int ldb, int m, int k,
             int n);

/* c (m, n; ldc) = a (m, k; lda) * b^T where b is (n, k; ldb). Results beyond
 * the float range saturate at +-FLT_MAX instead of becoming infinite. */
void mat_mul_bt(float *c, int ldc, const float *a, int lda, const float *b, int ldb, int m,
                int k, int n);

/* Reference versions: the plain triple loop, for tests of the kernels above. */
void mat_mul_ref(float *c, int ldc, const float *a, int lda, const float *b, int ldb, int m,
                 int k, int n);
void mat_mul_bt_ref(float *c, int ldc, const float *a, int lda, const float *b, int ldb, int m,
                    int k, int n);

/* Dot product of two float vectors, accumulated in double. */
double vec_dot(const float *a, const float *b, int n);

#endif
