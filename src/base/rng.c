/* rng.c - see rng.h for the specification of every number drawn here. */
#include "rng.h"

#include <math.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

uint64_t rng_splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint64_t rng_hash_text(const char *text, size_t len) {
    uint64_t h = 0xCBF29CE484222325ull;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)text[i];
        h *= 0x100000001B3ull;
    }
    return h;
}

/* Folds one more word into a key: splitmix64 of (key xor word) so that every
 * field changes every bit of the result. */
static uint64_t mix(uint64_t key, uint64_t word) {
    uint64_t s = key ^ word;
    return rng_splitmix64(&s);
}

uint64_t rng_key(uint64_t seed, RngKind kind, uint32_t head, uint32_t index) {
    uint64_t k = mix(seed, (uint64_t)kind);
    k = mix(k, head);
    return mix(k, index);
}

uint64_t rng_key_text(uint64_t seed, const char *text, size_t len) {
    return mix(mix(seed, RNG_KIND_EMBED), rng_hash_text(text, len));
}

void rng_init(RngStream *r, uint64_t key) {
    uint64_t s = key;
    for (int i = 0; i < 4; i++) r->s[i] = rng_splitmix64(&s);
    r->spare = 0;
    r->has_spare = 0;
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t rng_next(RngStream *r) {
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double rng_uniform(RngStream *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }

/* Marsaglia's polar method: a point uniform in the unit disc (by rejection,
 * about 21% of the draws) gives two normals with one log and one sqrt, no
 * sine or cosine. */
double rng_normal(RngStream *r) {
    if (r->has_spare) {
        r->has_spare = 0;
        return r->spare;
    }
    double u, v, s;
    do {
        u = 2.0 * rng_uniform(r) - 1.0;
        v = 2.0 * rng_uniform(r) - 1.0;
        s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    double f = sqrt(-2.0 * log(s) / s);
    r->spare = v * f;
    r->has_spare = 1;
    return u * f;
}

/* The same numbers as n calls of rng_normal, faster: the candidate points
 * are drawn first (a rejected one is overwritten, not branched on), then
 * their logs, then the scale factors, in loops without a dependence from one
 * pair to the next. Every operation is the one rng_normal does (log, then
 * the correctly rounded product, quotient and square root), so the bits are
 * the same. */
enum { NORMAL_BATCH = 64 };

void rng_normals(RngStream *r, double *out, int n) {
    int k = 0;
    if (n > 0 && r->has_spare) {
        r->has_spare = 0;
        out[k++] = r->spare;
    }
    double u[NORMAL_BATCH + 1], v[NORMAL_BATCH + 1], s[NORMAL_BATCH + 1], f[NORMAL_BATCH];
    while (k < n) {
        int pairs = (n - k + 1) / 2;
        if (pairs > NORMAL_BATCH) pairs = NORMAL_BATCH;
        int got = 0;
        while (got < pairs) { /* slot `got` is kept only when the point is inside the disc */
            double a = 2.0 * rng_uniform(r) - 1.0, b = 2.0 * rng_uniform(r) - 1.0, q = a * a + b * b;
            u[got] = a, v[got] = b, s[got] = q;
            got += q < 1.0 && q != 0.0;
        }
        for (int i = 0; i < pairs; i++) f[i] = log(s[i]);
        int i = 0;
#ifdef __SSE2__
        /* two at a time (without -fno-math-errno the compiler keeps sqrt scalar) */
        for (const __m128d m2 = _mm_set1_pd(-2.0); i + 2 <= pairs; i += 2)
            _mm_storeu_pd(f + i, _mm_sqrt_pd(_mm_div_pd(_mm_mul_pd(m2, _mm_loadu_pd(f + i)), _mm_loadu_pd(s + i))));
#endif
        for (; i < pairs; i++) f[i] = sqrt(-2.0 * f[i] / s[i]);
        for (int i = 0; i < pairs; i++) {
            out[k++] = u[i] * f[i];
            if (k < n) out[k++] = v[i] * f[i];
            else r->spare = v[i] * f[i], r->has_spare = 1;
        }
    }
}
