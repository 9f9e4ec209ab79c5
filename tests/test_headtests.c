/* test_headtests.c - the field's head tests (src/trained/headtests.c) on weights set
 * by hand, where each score is known: TransformerLens's detection patterns
 * (previous, duplicate, induction) and its "mul" score with and without the
 * BOS and current-token exclusions, the induction stripe of a repeated random
 * sequence, the sink, and the seeded batteries (uniform over the range, the
 * second half a copy of the first, the same ids for the same seed). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "battery.h"
#include "headtests.h"

/* tokens: a b a b  (ids 7 8 7 8) */
static const int TOK[4] = {7, 8, 7, 8};

static void test_patterns(void **state) {
    (void)state;
    /* previous: (1,0) (2,1) (3,2) */
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) assert_int_equal(headtest_pattern(HEADTEST_PREV, TOK, i, j), j == i - 1);
    /* duplicate: (2,0) (3,1) */
    assert_true(headtest_pattern(HEADTEST_DUPLICATE, TOK, 2, 0));
    assert_true(headtest_pattern(HEADTEST_DUPLICATE, TOK, 3, 1));
    assert_false(headtest_pattern(HEADTEST_DUPLICATE, TOK, 2, 2)); /* not itself */
    assert_false(headtest_pattern(HEADTEST_DUPLICATE, TOK, 0, 2)); /* not the future */
    /* induction: tok[i] = tok[j-1]: (2,1) since tok[0] = a; (3,2) since tok[1] = b;
     * and (3,?) j-1 = 3 would be j = 4: out of range */
    int count = 0;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) count += headtest_pattern(HEADTEST_INDUCTION, TOK, i, j);
    assert_int_equal(count, 2);
    assert_true(headtest_pattern(HEADTEST_INDUCTION, TOK, 2, 1));
    assert_true(headtest_pattern(HEADTEST_INDUCTION, TOK, 3, 2));
}

static void test_mul_scores(void **state) {
    (void)state;
    /* a previous-token head: row 0 on itself, every other row on i - 1 */
    const float prev[16] = {1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
    /* 3 of the 4 units of weight are on i - 1 */
    assert_true(fabs(headtest_mul(prev, 4, TOK, HEADTEST_PREV, 0, 0) - 0.75) < 1e-12);
    /* excluding the current token removes row 0's weight: 3 / 3 */
    assert_true(fabs(headtest_mul(prev, 4, TOK, HEADTEST_PREV, 0, 1) - 1.0) < 1e-12);
    /* excluding BOS removes (0,0) and (1,0): 2 / 2 */
    assert_true(fabs(headtest_mul(prev, 4, TOK, HEADTEST_PREV, 1, 0) - 1.0) < 1e-12);
    /* the same head scores for induction where i - 1 is the induction key:
     * (2,1) and (3,2): 2 / 4 */
    assert_true(fabs(headtest_mul(prev, 4, TOK, HEADTEST_INDUCTION, 0, 0) - 0.5) < 1e-12);
    /* a uniform causal head: rows 1, 1/2 1/2, 1/3.., 1/4.. */
    float uni[16] = {0};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j <= i; j++) uni[i * 4 + j] = 1.0f / (float)(i + 1);
    /* duplicate keys: (2,0) 1/3, (3,1) 1/4; sum of A = 4 */
    double want = (1.0 / 3 + 1.0 / 4) / 4;
    assert_true(fabs(headtest_mul(uni, 4, TOK, HEADTEST_DUPLICATE, 0, 0) - want) < 1e-7);
    /* nothing left after both exclusions on a 1-token sequence: 0, not NaN */
    const float one[1] = {1};
    assert_true(headtest_mul(one, 1, TOK, HEADTEST_PREV, 1, 1) == 0);
}

static void test_stripe_and_sink(void **state) {
    (void)state;
    /* s = 2: [BOS] r1 r2 r1 r2, n = 5; stripe offset -(s-1) = -1: A[i][i-1]
     * for i = 1..4 */
    enum { S = 2, N = 2 * S + 1 };
    float a[N * N] = {0};
    a[0] = 1;
    for (int i = 1; i < N; i++) a[i * N + (i - 1)] = 0.5f, a[i * N + 0] += 0.5f;
    /* (1,0) holds 1.0 (both halves land on 0): stripe (1 + .5 + .5 + .5) / 4 */
    assert_true(fabs(headtest_induction_stripe(a, N, S) - 0.625) < 1e-7);
    /* sink: rows 1..4 on position 0: 1, .5, .5, .5 */
    assert_true(fabs(headtest_sink(a, N) - 0.625) < 1e-7);
    /* s = 3, n = 7: stripe offset -2, i = 2..6: 5 entries */
    enum { S3 = 3, N3 = 2 * S3 + 1 };
    float b[N3 * N3] = {0};
    for (int i = 2; i < N3; i++) b[i * N3 + i - 2] = 1;
    assert_true(fabs(headtest_induction_stripe(b, N3, S3) - 1.0) < 1e-12);
}

static void test_repeated_random(void **state) {
    (void)state;
    enum { S = 50 };
    int a[2 * S + 1], b[2 * S + 1], c[2 * S + 1];
    headtest_repeated_random(42, 0, S, 1, 3, 512, a);
    headtest_repeated_random(42, 0, S, 1, 3, 512, b);
    headtest_repeated_random(42, 1, S, 1, 3, 512, c);
    assert_int_equal(a[0], 1);
    assert_memory_equal(a, b, sizeof a);
    assert_true(memcmp(a, c, sizeof a) != 0);
    for (int k = 0; k < S; k++) {
        assert_true(a[1 + k] >= 3 && a[1 + k] < 512);
        assert_int_equal(a[1 + k], a[1 + S + k]);
    }
    /* uniform: 20000 draws over 4 values, each within 5% of a quarter */
    int hist[4] = {0}, x[2 * 100 + 1];
    for (int t = 0; t < 200; t++) {
        headtest_repeated_random(7, t, 100, 0, 10, 14, x);
        for (int k = 1; k <= 100; k++) hist[x[k] - 10]++;
    }
    for (int v = 0; v < 4; v++) assert_true(abs(hist[v] - 5000) < 250);
    /* the README's definition, computed in Python (tests/support/batteries.py: repeat_random(0, 6, 7,
     * range(1000))): xoshiro256** keyed by the seed, kind 9, 0 and the index, with rejection */
    const int want[13] = {7, 241, 816, 929, 371, 967, 387, 241, 816, 929, 371, 967, 387};
    int got[13];
    headtest_repeated_random(42, 0, 6, 7, 0, 1000, got);
    assert_memory_equal(got, want, sizeof want);
}

static void test_batteries(void **state) {
    (void)state;
    for (int k = 0; k < BATTERY_COUNT; k++) {
        const BatteryInfo *b = battery_info((BatteryKind)k);
        assert_non_null(b);
        assert_true(b->count >= 10); /* the "at least 10 sequences" */
        for (int i = 0; k != BATTERY_REPEAT_RANDOM && i < b->count; i++) {
            const char *t = battery_sentence((BatteryKind)k, i);
            assert_non_null(t);
            assert_true(strlen(t) > 40);
        }
        assert_null(battery_sentence((BatteryKind)k, b->count));
    }
    assert_null(battery_info(BATTERY_COUNT));
    assert_int_equal(battery_repeat_s(2048), 50);
    assert_int_equal(battery_repeat_s(64), 31); /* (64 - 1) / 2 */
    assert_int_equal(battery_repeat_s(3), 2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_patterns),        cmocka_unit_test(test_mul_scores),
        cmocka_unit_test(test_stripe_and_sink), cmocka_unit_test(test_repeated_random),
        cmocka_unit_test(test_batteries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
