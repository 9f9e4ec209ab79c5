/* test_rng.c - the random streams: determinism, keys, prefix stability, and
 * the distribution of the normals. */
#include "testutil.h"

#include <math.h>

#include "rng.h"

static void test_same_key_same_numbers(void **state) {
    (void)state;
    RngStream a, b;
    rng_init(&a, 123), rng_init(&b, 123);
    for (int i = 0; i < 1000; i++) assert_true(rng_next(&a) == rng_next(&b));
}

/* Pins the generator: if any of these change, every seed's numbers change,
 * which breaks the numeric contract of DESIGN.md §2. */
static void test_known_values(void **state) {
    (void)state;
    uint64_t s = 0;
    assert_true(rng_splitmix64(&s) == 0xE220A8397B1DCDAFull);
    assert_true(rng_hash_text("a", 1) == 0xAF63DC4C8601EC8Cull);
    RngStream r;
    rng_init(&r, 0);
    uint64_t first = rng_next(&r);
    RngStream r2;
    rng_init(&r2, 0);
    assert_true(first == rng_next(&r2));
    double u = rng_uniform(&r);
    assert_true(u >= 0.0 && u < 1.0);
}

static void test_keys_differ(void **state) {
    (void)state;
    uint64_t k = rng_key(42, RNG_KIND_WQ, 0, 0);
    assert_true(k != rng_key(43, RNG_KIND_WQ, 0, 0));
    assert_true(k != rng_key(42, RNG_KIND_WK, 0, 0));
    assert_true(k != rng_key(42, RNG_KIND_WQ, 1, 0));
    assert_true(k != rng_key(42, RNG_KIND_WQ, 0, 1));
    assert_true(rng_key_text(42, "cat", 3) == rng_key_text(42, "cat", 3));
    assert_true(rng_key_text(42, "cat", 3) != rng_key_text(42, "cap", 3));
    assert_true(rng_key_text(42, "cat", 3) != rng_key_text(7, "cat", 3));
}

static void test_normal_moments(void **state) {
    (void)state;
    RngStream r;
    rng_init(&r, 99);
    double sum = 0, sq = 0;
    int n = 200000;
    for (int i = 0; i < n; i++) {
        double x = rng_normal(&r);
        assert_true(isfinite(x));
        sum += x, sq += x * x;
    }
    double mean = sum / n, var = sq / n - mean * mean;
    assert_near(mean, 0.0, 0.01);
    assert_near(var, 1.0, 0.02);
}

/* A stream drawn further only appends: the first values never change. */
static void test_stream_prefix(void **state) {
    (void)state;
    RngStream a, b;
    rng_init(&a, 5), rng_init(&b, 5);
    double first[7];
    for (int i = 0; i < 7; i++) first[i] = rng_normal(&a);
    for (int i = 0; i < 7; i++) assert_true(rng_normal(&b) == first[i]);
}

/* rng_normals gives the bits of rng_normal called n times, and leaves the
 * stream (and its spare) where those calls would, at every length and with
 * a spare waiting or not. */
static void test_normals_batch(void **state) {
    (void)state;
    static const int lens[] = {0, 1, 2, 3, 7, 63, 64, 65, 127, 128, 129, 130, 511, 1000};
    for (int start = 0; start < 2; start++)
        for (size_t li = 0; li < sizeof lens / sizeof *lens; li++) {
            int n = lens[li];
            RngStream a, b;
            rng_init(&a, rng_key(7, RNG_KIND_WQ, 3, (uint32_t)li));
            rng_init(&b, rng_key(7, RNG_KIND_WQ, 3, (uint32_t)li));
            if (start) (void)rng_normal(&a), (void)rng_normal(&b); /* a spare waits */
            double got[1000], want[1000];
            rng_normals(&a, got, n);
            for (int i = 0; i < n; i++) want[i] = rng_normal(&b);
            assert_memory_equal(got, want, sizeof(double) * (size_t)n);
            for (int i = 0; i < 5; i++) { /* and the stream goes on the same */
                double x = rng_normal(&a), y = rng_normal(&b);
                assert_memory_equal(&x, &y, sizeof x);
            }
        }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_key_same_numbers), cmocka_unit_test(test_known_values),
        cmocka_unit_test(test_keys_differ),           cmocka_unit_test(test_normal_moments),
        cmocka_unit_test(test_stream_prefix),         cmocka_unit_test(test_normals_batch),
    };
    return cmocka_run_group_tests_name("rng", tests, NULL, NULL);
}
