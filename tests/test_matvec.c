/* test_matvec.c - mat_vec_rows gives the bits of the packed product
 * (matrix.h) on every kernel: shapes at every edge of its blocks, strides,
 * and elements that leave the float range. */
#include "testutil.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "matrix.h"
#include "matvec.h"

static uint64_t rs = 88172645463325252ull;
static float rnd(void) {
    rs ^= rs << 13, rs ^= rs >> 7, rs ^= rs << 17;
    return (float)((double)(rs >> 11) * 0x1.0p-53 * 2.0 - 1.0);
}

static const char *kernels[] = {"portable", "avx2", "avx512"};

/* c = a b by mat_vec_rows and by mat_mul on the same kernel, compared with
 * memcmp; a, b, c with leading dimensions wider than their rows. */
static void check(int m, int k, int n, float big) {
    int lda = k + 3, ldb = n + 5, ldc = n + 2;
    float *a = malloc(sizeof(float) * (size_t)(m ? m : 1) * lda),
          *b = malloc(sizeof(float) * (size_t)(k ? k : 1) * ldb);
    float *c1 = malloc(sizeof(float) * (size_t)(m ? m : 1) * ldc),
          *c2 = malloc(sizeof(float) * (size_t)(m ? m : 1) * ldc);
    assert_non_null(a), assert_non_null(b), assert_non_null(c1), assert_non_null(c2);
    for (int i = 0; i < m * lda; i++) a[i] = rnd();
    for (int i = 0; i < k * ldb; i++) b[i] = rnd();
    if (big != 0 && m > 0 && k > 1 && n > 0) { /* one element past the float range, one summing back into it */
        a[0] = big, b[0] = big, a[1] = big, b[ldb] = big;
        b[1] = big, b[ldb + 1] = -big;
    }
    for (size_t q = 0; q < sizeof kernels / sizeof *kernels; q++) {
        if (mat_set_kernel(kernels[q])) continue;
        memset(c1, 0x7F, sizeof(float) * (size_t)(m ? m : 1) * ldc);
        memcpy(c2, c1, sizeof(float) * (size_t)(m ? m : 1) * ldc);
        mat_vec_rows(c1, ldc, a, lda, b, ldb, m, k, n);
        mat_mul(c2, ldc, a, lda, b, ldb, m, k, n);
        for (int i = 0; i < m; i++) {
            if (memcmp(c1 + (size_t)i * ldc, c2 + (size_t)i * ldc, sizeof(float) * (size_t)n) != 0)
                fail_msg("kernel %s, m=%d k=%d n=%d big=%g: row %d differs", kernels[q], m, k, n, (double)big, i);
            for (int j = 0; j < n; j++) assert_true(isfinite(c1[(size_t)i * ldc + j]));
        }
    }
    mat_set_kernel(NULL);
    free(a), free(b), free(c1), free(c2);
}

static void test_shapes(void **state) {
    (void)state;
    static const int ms[] = {0, 1, 2, 3, 4, 5, 8, 9};
    static const int ks[] = {0, 1, 7, 64, 255, 257, 769};
    static const int ns[] = {1, 7, 8, 15, 16, 31, 32, 33, 63, 64, 65, 100, 129};
    for (size_t i = 0; i < sizeof ms / sizeof *ms; i++)
        for (size_t j = 0; j < sizeof ks / sizeof *ks; j++)
            for (size_t l = 0; l < sizeof ns / sizeof *ns; l++) check(ms[i], ks[j], ns[l], 0.0f);
}

static void test_out_of_range(void **state) {
    (void)state;
    for (int m = 1; m <= 5; m++) check(m, 9, 40, 3e38f);
    check(1, 768, 2304, 1e30f);
    check(2, 3, 4096 + 17, 0.0f); /* past a chunk of columns */
    check(5, 2, 8192 + 40, 3e38f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_out_of_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
