/* rowops.h - the softmax of a row of scores, fast and the same bits on every
 * machine (as the products of matrix.h).
 *
 * exp is computed in float by one fixed sequence of correctly rounded
 * operations (Cody-Waite reduction by ln 2, a degree-5 polynomial with fused
 * multiply-adds, scaling by 2^n); the AVX-512, AVX2 and portable versions run
 * the same sequence, so they agree to the bit. Sums (the softmax denominator,
 * the row sum, the entropy) accumulate in double in eight interleaved
 * partial sums combined in a fixed order. */
#ifndef ATTNVIZ_ROWOPS_H
#define ATTNVIZ_ROWOPS_H

/* e^x in float for x <= 0 (exactly 0 below -87.33, where e^x leaves the
 * normal floats); within 2 ulp of the true value. */
float attn_expf(float x);

/* e[j] = attn_expf(s[j] - max) for every j; 0 where s[j] is -inf. */
void attn_exp_row(float *e, const float *s, float max, int n);

/* The double sum of x[0..n) in eight partial sums (element j goes to sum
 * j mod 8), combined as ((s0+s1)+(s2+s3))+((s4+s5)+(s6+s7)). */
double attn_sum(const float *x, int n);

typedef struct {
    double denom;   /* sum of exp(s - max) over the allowed keys */
    double sum;     /* sum of the stored weights: 1, or 0 for a fully masked row */
    double entropy; /* in bits: (ln denom - sum w (s - max)) / ln 2, at least 0 */
    float max_weight;
    float max_score; /* the row's largest score (-inf when fully masked) */
} SoftmaxRow;

/* Stable softmax of one row of n scores (-inf = masked) into w. A fully
 * masked row has all weights 0 and sum 0 (as PyTorch >= 2.5). */
void attn_softmax(float *w, const float *s, int n, SoftmaxRow *out);

/* attn_softmax of `rows` rows ld floats apart, row r over its first len[r]
 * scores, its weights from len[r] to ld set to 0: the same bits as one row
 * at a time, each pass done for every row before the next, so the rows'
 * chains of reductions overlap. */
void attn_softmax_rows(float *w, const float *s, int ld, int rows, const int *len, SoftmaxRow *out);

/* How the scaling stage turns raw scores into scaled ones. */
typedef enum { SCALE_COPY, SCALE_DIVIDE, SCALE_MULTIPLY } ScaleOp;

/* The scaling then the mask, in one pass over the row: scaled[j] = raw[j]
 * (copy), (float)(raw[j] / by) in double (divide), or raw[j] * by in double,
 * saturated at +-FLT_MAX (multiply); masked[j] = scaled[j], or -inf where
 * allowed[j] is 0. */
void attn_scale_mask_row(float *scaled, float *masked, const float *raw, const unsigned char *allowed, int n,
                         ScaleOp op, double by);

/* masked[j] = allowed[j] ? scaled[j] : -inf. */
void attn_mask_row(float *masked, const float *scaled, const unsigned char *allowed, int n);
/* The row operations in use: "avx512", "avx2" or "portable", chosen from the
 * CPU at the first call; attn_set_rowops forces one by name (tests,
 * benchmarks; NULL: the best), -1 when the CPU lacks it. Every one gives
 * the same bits. Not thread-safe against rows being computed. */
const char *attn_rowops_name(void);
int attn_set_rowops(const char *name);

#endif
