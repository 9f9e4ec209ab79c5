/* test_pca.c - the two leading principal axes: a point set with known axes
 * and variances, the degenerate inputs (d == 1, n == 1, n == 2, identical
 * rows), the sign convention, determinism, and the projection. */
#include "testutil.h"

#include <math.h>
#include <stdlib.h>

#include "pca.h"

/* Points c + t (1,1,0) + s (1,-1,0) on a grid t in {-3,-1,1,3}, s in
 * {-1,0,1}: exact in float, sum t = sum s = sum t s = 0, so the axes are
 * (1,1,0)/sqrt2 and (1,-1,0)/sqrt2 with variances 2 sum t^2 / 11 = 120/11
 * and 2 sum s^2 / 11 = 16/11 (n - 1 = 11). */
enum { GRID_N = 12 };
static void grid_points(float *x /* (12, 3) */) {
    static const float ts[4] = {-3, -1, 1, 3}, ss[3] = {-1, 0, 1};
    int i = 0;
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 3; b++, i++) {
            x[3 * i + 0] = 5 + ts[a] + ss[b];
            x[3 * i + 1] = -2 + ts[a] - ss[b];
            x[3 * i + 2] = 7;
        }
}

static void test_known_axes(void **state) {
    (void)state;
    float x[GRID_N * 3], axes[6];
    double var[2];
    grid_points(x);
    AvError err = {0};
    assert_int_equal(pca_top2(axes, var, x, GRID_N, 3, &err), 0);
    double r = 1 / sqrt(2.0);
    assert_near(axes[0], r, 1e-6);
    assert_near(axes[1], r, 1e-6);
    assert_near(axes[2], 0, 1e-6);
    /* (1,-1,0): a tie of magnitudes, resolved towards the first component. */
    assert_near(axes[3], r, 1e-6);
    assert_near(axes[4], -r, 1e-6);
    assert_near(axes[5], 0, 1e-6);
    assert_near(var[0], 120.0 / 11, 1e-6);
    assert_near(var[1], 16.0 / 11, 1e-6);

    float mean[3];
    pca_mean(mean, x, GRID_N, 3);
    assert_near(mean[0], 5, 1e-6);
    assert_near(mean[1], -2, 1e-6);
    assert_near(mean[2], 7, 1e-6);
    /* The variances of the axes sum to the total: nothing else varies. */
    assert_near(pca_total_variance(x, mean, GRID_N, 3), 136.0 / 11, 1e-6);

    /* Projection: the point t = 3, s = 1 lands at (3 sqrt2, 1 sqrt2). */
    float p[GRID_N * 2];
    pca_project(p, x, mean, axes, GRID_N, 3);
    assert_near(p[2 * 11], 3 * sqrt(2.0), 1e-5);
    assert_near(p[2 * 11 + 1], 1 * sqrt(2.0), 1e-5);
    double s0 = 0, s1 = 0;
    for (int i = 0; i < GRID_N; i++) s0 += p[2 * i], s1 += p[2 * i + 1];
    assert_near(s0, 0, 1e-5);
    assert_near(s1, 0, 1e-5);
}

/* A direction orthogonal to the all-ones vector, stronger than one that is
 * not: an all-ones start would find the weaker one. */
static void test_axis_orthogonal_to_ones(void **state) {
    (void)state;
    /* 3 (1,-1,0) t + (0,0,1) s with t, s uncorrelated: var 18 sum t^2 / 3, ... */
    static const float ts[4] = {-1, -1, 1, 1}, ss[4] = {-1, 1, -1, 1};
    float x[12], axes[6];
    double var[2];
    for (int i = 0; i < 4; i++) {
        x[3 * i] = 3 * ts[i];
        x[3 * i + 1] = -3 * ts[i];
        x[3 * i + 2] = ss[i];
    }
    assert_int_equal(pca_top2(axes, var, x, 4, 3, NULL), 0);
    double r = 1 / sqrt(2.0);
    assert_near(axes[0], r, 1e-6);
    assert_near(axes[1], -r, 1e-6);
    assert_near(axes[2], 0, 1e-6);
    assert_near(axes[3], 0, 1e-6);
    assert_near(axes[4], 0, 1e-6);
    assert_near(axes[5], 1, 1e-6);
    assert_near(var[0], 18.0 * 4 / 3, 1e-6);
    assert_near(var[1], 4.0 / 3, 1e-6);
}

static void test_d1(void **state) {
    (void)state;
    float x[4] = {1, 2, 3, 6}, axes[2] = {9, 9};
    double var[2] = {-1, -1};
    assert_int_equal(pca_top2(axes, var, x, 4, 1, NULL), 0);
    assert_true(axes[0] == 1.0f);
    assert_true(axes[1] == 0.0f);        /* no second axis in one dimension */
    assert_near(var[0], 14.0 / 3, 1e-9); /* deviations -2 -1 0 3 */
    assert_true(var[1] == 0);
}

static void assert_e1_e2(const float *axes, const double *var, int d) {
    for (int j = 0; j < d; j++) {
        assert_true(axes[j] == (j == 0 ? 1.0f : 0.0f));
        assert_true(axes[d + j] == (j == 1 ? 1.0f : 0.0f));
    }
    assert_true(var[0] == 0 && var[1] == 0);
}

static void test_n1(void **state) {
    (void)state;
    float x[3] = {0.5f, -2, 7}, axes[6];
    double var[2];
    assert_int_equal(pca_top2(axes, var, x, 1, 3, NULL), 0);
    assert_e1_e2(axes, var, 3);
    /* n == 0 as well, and the mean of nothing is 0. */
    assert_int_equal(pca_top2(axes, var, x, 0, 3, NULL), 0);
    assert_e1_e2(axes, var, 3);
    float mean[3] = {1, 1, 1};
    pca_mean(mean, x, 0, 3);
    assert_true(mean[0] == 0 && mean[1] == 0 && mean[2] == 0);
    assert_true(pca_total_variance(x, mean, 1, 3) == 0);
}

static void test_identical_rows(void **state) {
    (void)state;
    float x[5 * 4], axes[8];
    double var[2];
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 4; j++) x[4 * i + j] = 0.1f * (float)(j + 1) - 3.3f;
    assert_int_equal(pca_top2(axes, var, x, 5, 4, NULL), 0);
    assert_e1_e2(axes, var, 4);
    float mean[4], p[10];
    pca_mean(mean, x, 5, 4);
    pca_project(p, x, mean, axes, 5, 4);
    for (int k = 0; k < 10; k++) assert_true(p[k] == 0);
}

/* Two points: rank 1; axis 2 is a unit vector orthogonal to axis 1, no NaN. */
static void test_rank1(void **state) {
    (void)state;
    float x[6] = {0, 0, 0, 2, 1, 0}, axes[6];
    double var[2];
    assert_int_equal(pca_top2(axes, var, x, 2, 3, NULL), 0);
    double n5 = sqrt(5.0);
    assert_near(axes[0], 2 / n5, 1e-6);
    assert_near(axes[1], 1 / n5, 1e-6);
    assert_near(var[0], 2.5, 1e-6); /* deviations +-sqrt5/2, squared sum 2.5, / 1 */
    assert_true(var[1] == 0);
    double len = 0, dt = 0;
    for (int j = 0; j < 3; j++) {
        assert_false(isnan(axes[3 + j]));
        len += axes[3 + j] * axes[3 + j];
        dt += axes[j] * axes[3 + j];
    }
    assert_near(len, 1, 1e-6);
    assert_near(dt, 0, 1e-6);
}

/* The largest-magnitude component is positive, whatever the data's sign. */
static void test_sign_convention(void **state) {
    (void)state;
    /* Spread along (-3, 1, 0): the axis must come out as (3, -1, 0)/sqrt10. */
    float x[5 * 3], neg[5 * 3], axes[6], axes_neg[6];
    double var[2], var_neg[2];
    for (int i = 0; i < 5; i++) {
        float t = (float)(i - 2);
        x[3 * i] = -3 * t;
        x[3 * i + 1] = t;
        x[3 * i + 2] = (i % 2) ? 0.25f : -0.25f; /* a little spread in z */
    }
    for (int k = 0; k < 15; k++) neg[k] = -x[k];
    assert_int_equal(pca_top2(axes, var, x, 5, 3, NULL), 0);
    assert_int_equal(pca_top2(axes_neg, var_neg, neg, 5, 3, NULL), 0);
    double r10 = sqrt(10.0);
    assert_near(axes[0], 3 / r10, 1e-5);
    assert_near(axes[1], -1 / r10, 1e-5);
    for (int a = 0; a < 2; a++) {
        int big = 0;
        for (int j = 1; j < 3; j++)
            if (fabsf(axes[3 * a + j]) > fabsf(axes[3 * a + big])) big = j;
        assert_true(axes[3 * a + big] > 0);
    }
    for (int k = 0; k < 6; k++) assert_near(axes_neg[k], axes[k], 1e-6);
    assert_near(var_neg[0], var[0], 1e-9);
    assert_near(var_neg[1], var[1], 1e-9);
}

/* Same input, bit-identical output; and the variances sort largest first on
 * a random-looking set. */
static void test_determinism(void **state) {
    (void)state;
    enum { N = 37, D = 19 };
    float *x = malloc(sizeof(float) * N * D);
    assert_non_null(x);
    uint64_t s = 12345;
    for (int k = 0; k < N * D; k++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        x[k] = (float)((double)(s >> 11) / 9007199254740992.0 * 2 - 1);
    }
    float a1[2 * D], a2[2 * D];
    double v1[2], v2[2];
    assert_int_equal(pca_top2(a1, v1, x, N, D, NULL), 0);
    assert_int_equal(pca_top2(a2, v2, x, N, D, NULL), 0);
    assert_memory_equal(a1, a2, sizeof a1);
    assert_memory_equal(v1, v2, sizeof v1);
    assert_true(v1[0] >= v1[1] && v1[1] > 0);
    /* Unit, orthogonal, and really the leading direction: no coordinate axis
     * has more variance than axis 1. */
    double n0 = 0, n1 = 0, dt = 0;
    for (int j = 0; j < D; j++) n0 += a1[j] * a1[j], n1 += a1[D + j] * a1[D + j], dt += a1[j] * a1[D + j];
    assert_near(n0, 1, 1e-6);
    assert_near(n1, 1, 1e-6);
    assert_near(dt, 0, 1e-6);
    float mean[D];
    pca_mean(mean, x, N, D);
    for (int j = 0; j < D; j++) {
        double cv = 0;
        for (int i = 0; i < N; i++) cv += ((double)x[i * D + j] - mean[j]) * ((double)x[i * D + j] - mean[j]);
        assert_true(cv / (N - 1) <= v1[0] + 1e-9);
    }
    assert_true(v1[0] + v1[1] <= pca_total_variance(x, mean, N, D) + 1e-9);
    free(x);
}

static void test_errors(void **state) {
    (void)state;
    float x[4] = {1, 2, NAN, 4}, axes[4];
    double var[2];
    AvError err = {0};
    assert_int_equal(pca_top2(axes, var, x, 2, 0, &err), -1);
    assert_non_null(strstr(err.msg, "d >= 1"));
    assert_int_equal(pca_top2(axes, var, x, 2, 2, &err), -1);
    assert_non_null(strstr(err.msg, "row 1, column 0"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_axes),
        cmocka_unit_test(test_axis_orthogonal_to_ones),
        cmocka_unit_test(test_d1),
        cmocka_unit_test(test_n1),
        cmocka_unit_test(test_identical_rows),
        cmocka_unit_test(test_rank1),
        cmocka_unit_test(test_sign_convention),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
