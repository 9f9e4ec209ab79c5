/* rng.h - keyed, prefix-stable random streams, the same on every platform.
 *
 * The generator (DESIGN.md §2):
 *   key    = splitmix64-mix of (seed, kind, head, index), or of (seed, FNV-1a-64
 *            hash of a token's UTF-8 text) for embeddings;
 *   stream = xoshiro256** seeded by four successive splitmix64 outputs of key;
 *   uniform= the top 53 bits of a xoshiro256** output, in [0, 1);
 *   normal = Marsaglia's polar method: u, v = 2 uniform - 1 until
 *            0 < s = u^2 + v^2 < 1, then u f and (the next value) v f with
 *            f = sqrt(-2 ln s / s).
 * Every random matrix column (or row) has a stream of its own and draws its
 * entries in order, so growing a dimension only appends: d_k+1 adds a column,
 * a new head adds streams, a larger d_model makes each stream draw further. */
#ifndef ATTNVIZ_RNG_H
#define ATTNVIZ_RNG_H

#include <stddef.h>
#include <stdint.h>

/* What a stream is for: part of its key, so that, say, W_Q and W_K of the same
 * head and column draw different numbers. Values are part of the numeric
 * contract: never renumber them. */
typedef enum {
    RNG_KIND_EMBED = 1,
    RNG_KIND_WQ = 2,
    RNG_KIND_WK = 3,
    RNG_KIND_WV = 4,
    RNG_KIND_WO = 5,
    RNG_KIND_ADD_W1 = 6, /* additive attention's W1, W2 and v */
    RNG_KIND_ADD_W2 = 7,
    RNG_KIND_ADD_V = 8,
    RNG_KIND_BATTERY = 9, /* head tests' random token sequences (headtests.h) */
} RngKind;

typedef struct {
    uint64_t s[4]; /* xoshiro256** state */
    double spare;  /* the second normal of the last pair */
    int has_spare;
} RngStream;

uint64_t rng_splitmix64(uint64_t *state);
uint64_t rng_hash_text(const char *text, size_t len); /* FNV-1a 64 */

/* Key of the stream of matrix `kind`, head `head`, column/row `index`. */
uint64_t rng_key(uint64_t seed, RngKind kind, uint32_t head, uint32_t index);
/* Key of the embedding stream of a token text. */
uint64_t rng_key_text(uint64_t seed, const char *text, size_t len);

void rng_init(RngStream *r, uint64_t key);
uint64_t rng_next(RngStream *r);
double rng_uniform(RngStream *r); /* [0, 1) */
double rng_normal(RngStream *r);  /* N(0, 1) */
/* out[0..n) = n calls of rng_normal (the same bits, the same stream after). */
void rng_normals(RngStream *r, double *out, int n);

#endif
