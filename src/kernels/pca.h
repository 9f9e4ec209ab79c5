/* pca.h - the two leading principal axes of a small point set, for drawing
 * high-dimensional vectors (token embeddings) on a 2-D plot.
 *
 * Method (deterministic, no random numbers, sums in double):
 *   - centre x by its column means;
 *   - axis 1: power iteration on the covariance C = Xc^T Xc / (n - 1): formed
 *     once when d <= n (each step then d^2), else never formed (each step
 *     w = Xc^T (Xc v), 2 n d);
 *   - axis 2: the same with axis 1 projected out of every step (deflation);
 *   - start vector v_j = 1 + frac((j + 1) * 0.618...) (normalized): all ones
 *     with a fixed Weyl-sequence ripple, because plain all-ones is exactly
 *     orthogonal to directions like (1, -1, 0) that small examples love. If
 *     the start still sees no variance, it restarts from the coordinate axis
 *     e_j of the largest (deflated) column variance, which always does;
 *   - stop when no component of the unit vector changes by more than
 *     PCA_TOL between two steps, or after PCA_MAX_ITER steps (fewer for big
 *     inputs: at most PCA_MAX_OPS multiply-adds per axis, at least
 *     PCA_MIN_ITER steps; a big input may then get directions of high
 *     rather than highest variance, and the variance shown is theirs);
 *   - sign: the first component whose magnitude is within a relative 1e-6 of
 *     the largest is made positive (so exact ties, as in (1, -1, 0)/sqrt 2,
 *     do not depend on rounding);
 *   - variance of an axis: ||Xc a||^2 / (n - 1) (as sklearn's
 *     explained_variance_).
 *
 * Degenerate inputs give numbers, never NaN: n < 2 or all rows equal -> axes
 * e1, e2 with variance 0; d == 1 -> axis 2 is the zero vector with variance
 * 0; rank 1 (e.g. n == 2) -> axis 2 is a unit vector orthogonal to axis 1
 * (the coordinate axis least aligned with it) with variance 0. */
#ifndef ATTNVIZ_PCA_H
#define ATTNVIZ_PCA_H

#include "error.h"

#define PCA_MAX_ITER 1000
#define PCA_MIN_ITER 20
#define PCA_TOL      1e-10
#define PCA_MAX_OPS  ((double)(1 << 23))

/* The column means of x (n, d) into out_mean (d); zeros when n == 0. */
void pca_mean(float *out_mean, const float *x, int n, int d);

/* The two leading principal axes of the rows of x (n, d) into out_axes
 * (2, d) row-major, unit vectors (axis 2 may be zero, see above), and their
 * variances into out_var (2), largest first. Returns 0, or -1 with err set
 * for n < 0, d < 1 or out of memory (then nothing is written), or when a
 * cancel request (cancel.h) stopped it (the axes written are then not the
 * principal ones). */
int pca_top2(float *out_axes, double *out_var, const float *x, int n, int d, AvError *err);

/* Total variance of x: sum over rows and columns of (x - mean)^2 / (n - 1),
 * the denominator of "variance explained"; 0 when n < 2. mean is (d). */
double pca_total_variance(const float *x, const float *mean, int n, int d);

/* out (n, 2): row i is ((x_i - mean) . axes_0, (x_i - mean) . axes_1), summed
 * in double. x (n, d), mean (d), axes (2, d). */
void pca_project(float *out, const float *x, const float *mean, const float *axes, int n, int d);

#endif
