/* headtests.h - the field's head tests, computed on batteries of inputs, not
 * on one sentence (TransformerLens head_detector.py; Olsson et al. 2022,
 * "In-context learning and induction heads").
 *
 * Detection patterns P (n x n, lower triangular) of a token sequence tok:
 *   previous-token   P[i][j] = 1 iff j = i - 1
 *   duplicate-token  P[i][j] = 1 iff tok[i] = tok[j] and j < i
 *   induction        P[i][j] = 1 iff tok[i] = tok[j - 1] and j - 1 < i (j <= i)
 * and the "mul" score of a head's weights A (rows sum to 1, causal):
 *   score = sum(A * P) / sum(A), after A[:, 0] = 0 when exclude_bos and
 *   A[i][i] = 0 when exclude_current_token (TransformerLens's defaults: both
 *   off), averaged over the sequences of a battery.
 *
 * The induction (prefix-matching) score of Olsson et al. on a repeated random
 * sequence [BOS] r1..rS r1..rS (n = 2S + 1): the mean of A's diagonal at
 * offset -(S - 1), A[i][i - S + 1] for i = S - 1 .. 2S, as TransformerLens's
 * induction demo computes it. A head counts as an induction head above
 * HEADTEST_INDUCTION_MIN.
 *
 * The attention sink: the mean weight on position 0 over rows i >= 1. */
#ifndef ATTNVIZ_HEADTESTS_H
#define ATTNVIZ_HEADTESTS_H

#include <stdint.h>

#define HEADTEST_INDUCTION_MIN 0.4

typedef enum { HEADTEST_PREV, HEADTEST_DUPLICATE, HEADTEST_INDUCTION } HeadPattern;

/* 1 when P[i][j] of the pattern is 1 for the sequence tok (n tokens). */
int headtest_pattern(HeadPattern p, const int *tok, int i, int j);

/* The "mul" score of A (n x n, row-major, row i's weights over keys 0..n-1)
 * against the pattern; 0 when A sums to 0 after the exclusions. */
double headtest_mul(const float *a, int n, const int *tok, HeadPattern p, int exclude_bos, int exclude_current);

/* The mean of A's diagonal at offset -(s - 1) (n = 2 s + 1). */
double headtest_induction_stripe(const float *a, int n, int s);

/* The mean of A[i][0] over rows 1..n-1 (0 when n < 2). */
double headtest_sink(const float *a, int n);

/* A repeated random sequence into out (2 s + 1 ids): bos, then s ids drawn
 * uniformly from [lo, hi) by sequence `index` of `seed`, then the same s ids
 * again. The same (seed, index, s, lo, hi) gives the same ids everywhere. */
void headtest_repeated_random(uint64_t seed, int index, int s, int bos, int lo, int hi, int *out);

#endif
