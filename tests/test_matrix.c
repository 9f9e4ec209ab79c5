/* test_matrix.c - the matrix kernels: every kernel the CPU has gives the same
 * bits as the portable one and agrees with the double-precision reference,
 * on random and odd shapes; leading dimensions; overflow saturates. */
#include "testutil.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "matrix.h"
#include "rng.h"

static float *random_matrix(int rows, int cols, uint64_t key) {
    float *m = malloc(sizeof(float) * (size_t)(rows > 0 ? rows : 1) * (size_t)(cols > 0 ? cols : 1));
    RngStream r;
    rng_init(&r, key);
    for (size_t i = 0; i < (size_t)rows * cols; i++) m[i] = (float)rng_normal(&r);
    return m;
}

static const char *const kernels[] = {"portable", "avx2", "avx512"};

/* c = a b with the named kernel; NULL when the CPU lacks it. */
static float *product(const char *kernel, const float *a, const float *b, int m, int k, int n, int bt) {
    if (mat_set_kernel(kernel)) return NULL;
    float *c = calloc((size_t)(m > 0 ? m : 1) * (size_t)(n > 0 ? n : 1), sizeof(float));
    if (bt) mat_mul_bt(c, n, a, k, b, k, m, k, n);
    else mat_mul(c, n, a, k, b, n, m, k, n);
    return c;
}

static void check_shapes(int bt) {
    const int sizes[] = {1, 3, 17, 63, 65, 257};
    int ns = (int)(sizeof sizes / sizeof *sizes);
    for (int x = 0; x < ns; x++)
        for (int y = 0; y < ns; y++)
            for (int z = 0; z < ns; z += 2) {
                int m = sizes[x], k = sizes[y], n = sizes[(z + x) % ns];
                float *a = random_matrix(m, k, 11 + (uint64_t)m * 1000 + k);
                float *b = bt ? random_matrix(n, k, 17 + (uint64_t)k * 1000 + n)
                              : random_matrix(k, n, 17 + (uint64_t)k * 1000 + n);
                float *ref = calloc((size_t)m * n, sizeof(float));
                if (bt) mat_mul_bt_ref(ref, n, a, k, b, k, m, k, n);
                else mat_mul_ref(ref, n, a, k, b, n, m, k, n);
                float *port = product("portable", a, b, m, k, n, bt);
                for (size_t i = 0; i < (size_t)m * n; i++) {
                    /* float sums of k products of N(0,1) values: error ~ k * eps * |terms| */
                    double tol = 1e-5 * k + 1e-6;
                    if (fabs(port[i] - ref[i]) > tol)
                        fail_msg("%dx%dx%d: portable %g vs reference %g", m, k, n, port[i], ref[i]);
                }
                for (size_t kk = 1; kk < sizeof kernels / sizeof *kernels; kk++) {
                    float *c = product(kernels[kk], a, b, m, k, n, bt);
                    if (!c) continue;
                    if (memcmp(c, port, sizeof(float) * (size_t)m * n) != 0)
                        fail_msg("%dx%dx%d: kernel %s differs from portable", m, k, n, kernels[kk]);
                    free(c);
                }
                free(a), free(b), free(ref), free(port);
            }
    mat_set_kernel(NULL);
}

static void test_mul_all_kernels(void **state) {
    (void)state;
    check_shapes(0);
}

static void test_mul_bt_all_kernels(void **state) {
    (void)state;
    check_shapes(1);
}

/* Leading dimensions: a head's columns inside a wider matrix. */
static void test_leading_dimensions(void **state) {
    (void)state;
    int m = 9, k = 70, n = 33, lda = 80, ldb = 40, ldc = 50;
    float *a = random_matrix(m, lda, 1), *b = random_matrix(k, ldb, 2);
    float *c = calloc((size_t)m * ldc, sizeof(float)), *ref = calloc((size_t)m * ldc, sizeof(float));
    for (size_t kk = 0; kk < sizeof kernels / sizeof *kernels; kk++) {
        if (mat_set_kernel(kernels[kk])) continue;
        for (int i = 0; i < m * ldc; i++) c[i] = 7.0f;
        mat_mul(c, ldc, a, lda, b, ldb, m, k, n);
        mat_mul_ref(ref, ldc, a, lda, b, ldb, m, k, n);
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) assert_near(c[i * ldc + j], ref[i * ldc + j], 1e-4);
            for (int j = n; j < ldc; j++) assert_true(c[i * ldc + j] == 7.0f); /* untouched */
        }
    }
    mat_set_kernel(NULL);
    free(a), free(b), free(c), free(ref);
}

/* Rows computed in separate calls (as threads do) give the same bits. */
static void test_rows_in_pieces(void **state) {
    (void)state;
    int m = 100, k = 300, n = 45;
    float *a = random_matrix(m, k, 5), *b = random_matrix(k, n, 6);
    float *whole = calloc((size_t)m * n, sizeof(float)), *pieces = calloc((size_t)m * n, sizeof(float));
    MatPacked p;
    assert_int_equal(mat_pack(&p, b, n, k, n, 0), 0);
    mat_mul_rows(whole, n, a, k, &p, 0, m);
    for (int r = 0; r < m; r += 7) mat_mul_rows(pieces, n, a, k, &p, r, m - r < 7 ? m - r : 7);
    assert_memory_equal(whole, pieces, sizeof(float) * (size_t)m * n);
    mat_packed_free(&p);
    free(a), free(b), free(whole), free(pieces);
}

/* Sums beyond the float range saturate; inf - inf never makes a NaN. */
static void test_overflow_saturates(void **state) {
    (void)state;
    float a[4] = {1e30f, 1e30f, -1e30f, 1e30f};
    float b[4] = {1e30f, 1e30f, 1e30f, -1e30f}; /* b^T rows */
    for (size_t kk = 0; kk < sizeof kernels / sizeof *kernels; kk++) {
        if (mat_set_kernel(kernels[kk])) continue;
        float c[4];
        mat_mul_bt(c, 2, a, 2, b, 2, 2, 2, 2);
        assert_true(c[0] == FLT_MAX); /* 2e60 */
        assert_true(c[1] == 0.0f);    /* 1e60 - 1e60: inf - inf in float, 0 in double */
        assert_true(c[2] == 0.0f);
        assert_true(c[3] == -FLT_MAX);
    }
    mat_set_kernel(NULL);
}

static void test_kernel_names(void **state) {
    (void)state;
    const char *best = mat_kernel_name();
    assert_true(strcmp(best, "portable") == 0 || strcmp(best, "avx2") == 0 || strcmp(best, "avx512") == 0);
    assert_int_equal(mat_set_kernel("portable"), 0);
    assert_string_equal(mat_kernel_name(), "portable");
    assert_int_equal(mat_set_kernel("sse9"), -1);
    mat_set_kernel(best);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mul_all_kernels),    cmocka_unit_test(test_mul_bt_all_kernels),
        cmocka_unit_test(test_leading_dimensions), cmocka_unit_test(test_rows_in_pieces),
        cmocka_unit_test(test_overflow_saturates), cmocka_unit_test(test_kernel_names),
    };
    return cmocka_run_group_tests_name("matrix", tests, NULL, NULL);
}
