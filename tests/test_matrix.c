/* test_matrix.c - the matrix kernels: every kernel the CPU has gives the same
 * bits as the portable one and agrees with the double-precision reference,
 * on random and odd shapes; leading dimensions; overflow saturates. */
#include "testutil.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
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

/* The blocking's edges: m past the row blocks (96 to 384 rows) and not a
 * multiple of any MR (4, 6, 8); n from one panel to many, not a multiple of
 * any NR (8, 16, 32), on both sides of the count of panels from which a's
 * block is packed (8); k past the deepest block of k (768: 769, 1000 and
 * 1537 are packed in 2 or 3 equal blocks), not a multiple of 8 (the 8x8
 * transposes).
 * Every kernel gives the portable kernel's bits, which agree with the
 * double-precision reference. */
static void check_edges(int bt) {
    static const int shapes[][3] = {
        {13, 769, 70},    {400, 100, 97}, {7, 1537, 33},  {200, 800, 130}, {385, 64, 257}, {97, 1000, 16},
        {6, 768, 64},     {8, 2, 32},     {50, 17, 100},  {1, 5, 1},       {390, 9, 3},    {25, 1536, 96},
        {203, 1537, 260}, {70, 769, 300}, {390, 33, 255}, {9, 300, 225},
    };
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        int m = shapes[s][0], k = shapes[s][1], n = shapes[s][2];
        float *a = random_matrix(m, k, 101 + s), *b = random_matrix(bt ? n : k, bt ? k : n, 202 + s);
        float *ref = calloc((size_t)m * n, sizeof(float));
        if (bt) mat_mul_bt_ref(ref, n, a, k, b, k, m, k, n);
        else mat_mul_ref(ref, n, a, k, b, n, m, k, n);
        float *port = product("portable", a, b, m, k, n, bt);
        for (size_t i = 0; i < (size_t)m * n; i++)
            if (fabs(port[i] - ref[i]) > 1e-5 * k + 1e-6)
                fail_msg("%dx%dx%d: portable %g vs reference %g", m, k, n, port[i], ref[i]);
        for (size_t kk = 1; kk < sizeof kernels / sizeof *kernels; kk++) {
            float *c = product(kernels[kk], a, b, m, k, n, bt);
            if (!c) continue;
            if (memcmp(c, port, sizeof(float) * (size_t)m * n) != 0)
                fail_msg("%dx%dx%d%s: kernel %s differs from portable", m, k, n, bt ? " (b^T)" : "", kernels[kk]);
            free(c);
        }
        free(a), free(b), free(ref), free(port);
    }
    mat_set_kernel(NULL);
}

static void test_blocking_edges(void **state) {
    (void)state;
    check_edges(0);
}

static void test_blocking_edges_bt(void **state) {
    (void)state;
    check_edges(1);
}

/* mat_mul_rows_k sums over k < kmax only: a's columns from kmax on are
 * never read (NaN there changes nothing), the same bits on every kernel, the
 * values of the full product of a zeroed from kmax. */
static void test_rows_k(void **state) {
    (void)state;
    static const int shapes[][4] = {{40, 300, 70, 1},    {40, 300, 70, 137}, {17, 1000, 50, 800},
                                    {17, 1000, 50, 769}, {9, 64, 33, 64},    {100, 900, 96, 5}};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        int m = shapes[s][0], k = shapes[s][1], n = shapes[s][2], kmax = shapes[s][3];
        float *a = random_matrix(m, k, 7 + s), *b = random_matrix(k, n, 8 + s);
        float *az = malloc(sizeof(float) * (size_t)m * k);
        for (int i = 0; i < m; i++)
            for (int q = 0; q < k; q++) {
                az[(size_t)i * k + q] = q < kmax ? a[(size_t)i * k + q] : 0.0f;
                if (q >= kmax) a[(size_t)i * k + q] = NAN; /* never read */
            }
        float *port = NULL;
        for (size_t kk = 0; kk < sizeof kernels / sizeof *kernels; kk++) {
            if (mat_set_kernel(kernels[kk])) continue;
            MatPacked p;
            assert_int_equal(mat_pack(&p, b, n, k, n, 0), 0);
            float *c = calloc((size_t)m * n, sizeof(float)), *full = calloc((size_t)m * n, sizeof(float));
            mat_mul_rows_k(c, n, a, k, &p, 0, m, kmax);
            mat_mul_rows(full, n, az, k, &p, 0, m);
            for (size_t i = 0; i < (size_t)m * n; i++)
                if (c[i] != full[i])
                    fail_msg("%dx%dx%d kmax %d, %s: %g vs %g", m, k, n, kmax, kernels[kk], c[i], full[i]);
            if (!port) port = c;
            else {
                if (memcmp(c, port, sizeof(float) * (size_t)m * n) != 0)
                    fail_msg("%dx%dx%d kmax %d: kernel %s differs from portable", m, k, n, kmax, kernels[kk]);
                free(c);
            }
            free(full);
            mat_packed_free(&p);
        }
        free(port), free(a), free(az), free(b);
    }
    mat_set_kernel(NULL);
}

/* mat_mul_block: blocks of rows and columns (col0 a multiple of 32), in any
 * order, give the bits of the whole product and write only their block. */
static void test_mul_block_pieces(void **state) {
    (void)state;
    int m = 70, k = 800, n = 200, ldc = 210;
    float *a = random_matrix(m, k, 31), *b = random_matrix(k, n, 32);
    for (size_t kk = 0; kk < sizeof kernels / sizeof *kernels; kk++) {
        if (mat_set_kernel(kernels[kk])) continue;
        MatPacked p;
        assert_int_equal(mat_pack(&p, b, n, k, n, 0), 0);
        float *whole = calloc((size_t)m * ldc, sizeof(float)), *pieces = malloc(sizeof(float) * (size_t)m * ldc);
        mat_mul_rows(whole, ldc, a, k, &p, 0, m);
        for (int i = 0; i < m * ldc; i++) pieces[i] = 3.0f;
        const int col_steps[] = {32, 64, 96};
        for (int r0 = m, step = 0; r0 > 0; step++) { /* rows from the bottom up, in pieces of 1..23 */
            int rows = 1 + step * 11 % 23;
            if (rows > r0) rows = r0;
            r0 -= rows;
            int cs = col_steps[step % 3];
            for (int col0 = 0; col0 < n; col0 += cs)
                mat_mul_block(pieces, ldc, a, k, &p, r0, rows, col0, n - col0 < cs ? n - col0 : cs);
        }
        for (int i = 0; i < m; i++) {
            assert_memory_equal(whole + (size_t)i * ldc, pieces + (size_t)i * ldc, sizeof(float) * (size_t)n);
            for (int j = n; j < ldc; j++) assert_true(pieces[(size_t)i * ldc + j] == 3.0f); /* untouched */
        }
        free(whole), free(pieces);
        mat_packed_free(&p);
    }
    mat_set_kernel(NULL);
    free(a), free(b);
}

/* Several threads multiplying row ranges with one packed matrix at once (as
 * the thread pool does: a's packed blocks are per thread) give the bits of
 * one call. */
typedef struct {
    float *c;
    const float *a;
    const MatPacked *p;
    int m, k, n, part, parts;
} RowsJob;

static void *rows_job(void *arg) {
    RowsJob *j = arg;
    for (int rep = 0; rep < 2; rep++)
        for (int r0 = j->part * 5; r0 < j->m; r0 += 5 * j->parts)
            mat_mul_rows(j->c, j->n, j->a, j->k, j->p, r0, j->m - r0 < 5 ? j->m - r0 : 5);
    return NULL;
}

static void test_rows_threads(void **state) {
    (void)state;
    int m = 151, k = 900, n = 260; /* 9 panels of 32: a's blocks packed */
    float *a = random_matrix(m, k, 41), *b = random_matrix(k, n, 42);
    for (size_t kk = 0; kk < sizeof kernels / sizeof *kernels; kk++) {
        if (mat_set_kernel(kernels[kk])) continue;
        MatPacked p;
        assert_int_equal(mat_pack(&p, b, n, k, n, 0), 0);
        float *whole = calloc((size_t)m * n, sizeof(float)), *threaded = calloc((size_t)m * n, sizeof(float));
        mat_mul_rows(whole, n, a, k, &p, 0, m);
        enum { THREADS = 4 };
        pthread_t t[THREADS];
        RowsJob jobs[THREADS];
        for (int i = 0; i < THREADS; i++) {
            jobs[i] = (RowsJob){threaded, a, &p, m, k, n, i, THREADS};
            assert_int_equal(pthread_create(&t[i], NULL, rows_job, &jobs[i]), 0);
        }
        for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
        assert_memory_equal(whole, threaded, sizeof(float) * (size_t)m * n);
        free(whole), free(threaded);
        mat_packed_free(&p);
    }
    mat_set_kernel(NULL);
    free(a), free(b);
}

/* Overflow inside a large product (packed blocks of a, several blocks of
 * k): the tiles that overflow are fixed, the same on every kernel. */
static void test_overflow_in_blocks(void **state) {
    (void)state;
    int m = 100, k = 1000, n = 100;
    float *a = random_matrix(m, k, 51), *b = random_matrix(k, n, 52);
    for (int q = 0; q < k; q++) a[(size_t)37 * k + q] = 1e36f; /* row 37: sums of 1e36 * N(0,1) leave the range */
    a[(size_t)80 * k + 999] = 3e38f;                           /* row 80: overflows in the last block only */
    float *ref = calloc((size_t)m * n, sizeof(float));
    mat_mul_ref(ref, n, a, k, b, n, m, k, n);
    float *port = product("portable", a, b, m, k, n, 0);
    for (size_t kk = 0; kk < sizeof kernels / sizeof *kernels; kk++) {
        float *c = product(kernels[kk], a, b, m, k, n, 0);
        if (!c) continue;
        for (size_t i = 0; i < (size_t)m * n; i++) {
            assert_true(isfinite(c[i]));
            if (fabs(ref[i]) >= FLT_MAX) assert_true(c[i] == ref[i]); /* saturated */
        }
        if (memcmp(c, port, sizeof(float) * (size_t)m * n) != 0)
            fail_msg("kernel %s differs from portable", kernels[kk]);
        free(c);
    }
    mat_set_kernel(NULL);
    free(a), free(b), free(ref), free(port);
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
        cmocka_unit_test(test_mul_all_kernels),
        cmocka_unit_test(test_mul_bt_all_kernels),
        cmocka_unit_test(test_leading_dimensions),
        cmocka_unit_test(test_rows_in_pieces),
        cmocka_unit_test(test_overflow_saturates),
        cmocka_unit_test(test_kernel_names),
        cmocka_unit_test(test_blocking_edges),
        cmocka_unit_test(test_blocking_edges_bt),
        cmocka_unit_test(test_rows_k),
        cmocka_unit_test(test_mul_block_pieces),
        cmocka_unit_test(test_rows_threads),
        cmocka_unit_test(test_overflow_in_blocks),
    };
    return cmocka_run_group_tests_name("matrix", tests, NULL, NULL);
}
