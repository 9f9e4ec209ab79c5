/* matrix.c - see matrix.h. Sums accumulate in double (DESIGN.md §2); the
 * results are rounded to float32 once, at the end. */
#include "matrix.h"

#include <float.h>

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

void mat_mul_ref(float *c, int ldc, const float *a, int lda, const float *b, int ldb, int m,
                 int k, int n) {
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double s = 0.0;
            for (int p = 0; p < k; p++) s += (double)a[(size_t)i * lda + p] * (double)b[(size_t)p * ldb + j];
            c[(size_t)i * ldc + j] = to_float_saturated(s);
        }
}

void mat_mul_bt_ref(float *c, int ldc, const float *a, int lda, const float *b, int ldb, int m,
                    int k, int n) {
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            c[(size_t)i * ldc + j] =
                to_float_saturated(vec_dot(a + (size_t)i * lda, b + (size_t)j * ldb, k));
}

/* i-k-j order: the inner loop runs along contiguous rows of b and of a double
 * accumulator row, which the compiler vectorizes. */
void mat_mul(float *c, int ldc, const float *a, int lda, const float *b, int ldb, int m, int k,
             int n) {
    enum { JB = 256 };
    double acc[JB];
    for (int i = 0; i < m; i++) {
        const float *arow = a + (size_t)i * lda;
        for (int j0 = 0; j0 < n; j0 += JB) {
            int jn = n - j0 < JB ? n - j0 : JB;
            for (int j = 0; j < jn; j++) acc[j] = 0.0;
            for (int p = 0; p < k; p++) {
                double av = arow[p];
                const float *brow = b + (size_t)p * ldb + j0;
                for (int j = 0; j < jn; j++) acc[j] += av * (double)brow[j];
            }
            float *crow = c + (size_t)i * ldc + j0;
            for (int j = 0; j < jn; j++) crow[j] = to_float_saturated(acc[j]);
        }
    }
}

void mat_mul_bt(float *c, int ldc, const float *a, int lda, const float *b, int ldb, int m,
                int k, int n) {
    mat_mul_bt_ref(c, ldc, a, lda, b, ldb, m, k, n);
}
