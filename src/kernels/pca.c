/* pca.c - the two leading principal axes by power iteration with deflation;
 * the method is described in pca.h. */
#include "pca.h"

#include "cancel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "matrix.h"

/* Fractional part of the golden ratio: the step of the start vector's ripple. */
#define PCA_WEYL 0.6180339887498949

/* s (d) = the column sums of x (n, d), each summed over i in ascending order,
 * row by row (walking a column of a 4096-wide matrix misses the cache on
 * every element: seconds, where this takes milliseconds). */
static void column_sums(double *s, const float *x, int n, int d) {
    for (int j = 0; j < d; j++) s[j] = 0;
    for (int i = 0; i < n; i++) {
        const float *row = x + (size_t)i * d;
        for (int j = 0; j < d; j++) s[j] += row[j];
    }
}

void pca_mean(float *out_mean, const float *x, int n, int d) {
    double *s = malloc(sizeof(double) * (size_t)(d > 0 ? d : 1));
    if (s) column_sums(s, x, n, d);
    for (int j = 0; j < d; j++) {
        double sum = 0;
        if (s) sum = s[j];
        else
            for (int i = 0; i < n; i++) sum += x[(size_t)i * d + j];
        out_mean[j] = n > 0 ? (float)(sum / n) : 0.0f;
    }
    free(s);
}

double pca_total_variance(const float *x, const float *mean, int n, int d) {
    if (n < 2) return 0;
    double ss = 0;
    for (int i = 0; i < n; i++) {
        const float *row = x + (size_t)i * d;
        for (int j = 0; j < d; j++) {
            double c = (double)row[j] - mean[j];
            ss += c * c;
        }
    }
    return ss / (n - 1);
}

void pca_project(float *out, const float *x, const float *mean, const float *axes, int n, int d) {
    for (int i = 0; i < n; i++) {
        const float *row = x + (size_t)i * d;
        double p0 = 0, p1 = 0;
        for (int j = 0; j < d; j++) {
            double c = (double)row[j] - mean[j];
            p0 += c * axes[j];
            p1 += c * axes[d + j];
        }
        out[2 * i] = (float)p0;
        out[2 * i + 1] = (float)p1;
    }
}

// ----------------------------------------------------------------------------
// power iteration

/* What one power iteration works on: the centred data, never copied. */
typedef struct {
    const float *x;     /* (n, d) */
    const double *mean; /* (d) column means */
    int n, d;
    double *t;         /* (n) scratch */
    const double *cov; /* (d, d) Xc^T Xc, or NULL: steps go through the data */
} Data;

static double xc(const Data *D, int i, int j) { return (double)D->x[(size_t)i * D->d + j] - D->mean[j]; }

/* t (n) = Xc v; returns ||t||^2. */
static double times_x(const Data *D, const double *v) {
    double ss = 0;
    for (int i = 0; i < D->n; i++) {
        double s = 0;
        for (int j = 0; j < D->d; j++) s += xc(D, i, j) * v[j];
        D->t[i] = s;
        ss += s * s;
    }
    return ss;
}

/* w (d) = Xc^T (Xc v) = (n - 1) C v: with the d x d matrix Xc^T Xc when it
 * was formed (d <= n: each step d^2 instead of 2 n d), else from the data. */
static void times_cov(const Data *D, double *w, const double *v) {
    if (D->cov) {
        int d = D->d;
        for (int i = 0; i < d; i++) {
            const double *row = D->cov + (size_t)i * d;
            double s = 0;
            for (int j = 0; j < d; j++) s += row[j] * v[j];
            w[i] = s;
        }
        return;
    }
    times_x(D, v);
    for (int j = 0; j < D->d; j++) w[j] = 0;
    for (int i = 0; i < D->n; i++) {
        double ti = D->t[i];
        for (int j = 0; j < D->d; j++) w[j] += xc(D, i, j) * ti;
    }
}

static double dot(const double *a, const double *b, int d) {
    double s = 0;
    for (int j = 0; j < d; j++) s += a[j] * b[j];
    return s;
}

/* v -= (v . a) a: removes the direction of the unit vector a (deflation). */
static void deflate(double *v, const double *a, int d) {
    if (!a) return;
    double p = dot(v, a, d);
    for (int j = 0; j < d; j++) v[j] -= p * a[j];
}

/* Scales v to unit length; returns its former length (v unchanged when 0). */
static double normalize(double *v, int d) {
    double nrm = sqrt(dot(v, v, d));
    if (nrm > 0)
        for (int j = 0; j < d; j++) v[j] /= nrm;
    return nrm;
}

/* The coordinate axis e_j (with a's direction removed) along which the
 * (deflated) data spread most, as a unit vector in v. Returns 0 when no
 * column has more than `zero` of squared spread. */
static int restart_vector(const Data *D, double *v, const double *a, double zero) {
    if (a) times_x(D, a); /* t = Xc a */
    int best = -1;
    double best_ss = zero;
    for (int j = 0; j < D->d; j++) {
        /* Xc (e_j - a_j a) = column j of Xc - a_j (Xc a). */
        double ss = 0, aj = a ? a[j] : 0;
        for (int i = 0; i < D->n; i++) {
            double c = xc(D, i, j) - (a ? aj * D->t[i] : 0);
            ss += c * c;
        }
        if (ss > best_ss) best_ss = ss, best = j;
    }
    if (best < 0) return 0;
    for (int j = 0; j < D->d; j++) v[j] = j == best;
    deflate(v, a, D->d);
    return normalize(v, D->d) > 0;
}

/* Power iteration for the leading axis of the data with `a` (a unit vector,
 * or NULL) projected out, into v (d). w is (d) scratch. `zero` is the
 * length of Xc^T Xc v below which a direction counts as having no variance.
 * Returns 1, or 0 when no variance is left (v then undefined). */
static int power(const Data *D, double *v, double *w, const double *a, int iters, double zero) {
    int d = D->d;
    for (int j = 0; j < d; j++) {
        double r = (j + 1) * PCA_WEYL;
        v[j] = 1.0 + (r - floor(r));
    }
    deflate(v, a, d);
    if (normalize(v, d) == 0 && !restart_vector(D, v, a, zero)) return 0;
    int restarted = 0;
    for (int it = 0; it < iters && !av_cancelled(); it++) {
        times_cov(D, w, v);
        deflate(w, a, d);
        double nrm = normalize(w, d);
        if (nrm <= zero) {
            /* The start saw no variance: take the column that surely does. */
            if (restarted || !restart_vector(D, v, a, zero)) return 0;
            restarted = 1;
            continue;
        }
        double delta = 0;
        for (int j = 0; j < d; j++) {
            double c = fabs(w[j] - v[j]);
            if (c > delta) delta = c;
            v[j] = w[j];
        }
        if (delta <= PCA_TOL) break;
    }
    deflate(v, a, d); /* exactly orthogonal to axis 1, whatever rounding did */
    return normalize(v, d) > 0;
}

/* Xc^T Xc (d, d) in double: exact sums for small inputs; for big ones the
 * float products of matrix.h (deterministic, a relative 1e-6 off, which no
 * plot can show). NULL when out of memory (the steps then use the data). */
static double *covariance(const Data *D) {
    int n = D->n, d = D->d;
    double *c = malloc(sizeof(double) * (size_t)d * d);
    if (!c) return NULL;
    if ((double)n * d * d <= (double)(1 << 24)) {
        for (int i = 0; i < d; i++)
            for (int j = i; j < d; j++) {
                double s = 0;
                for (int k = 0; k < n; k++) s += xc(D, k, i) * xc(D, k, j);
                c[(size_t)i * d + j] = c[(size_t)j * d + i] = s;
            }
        return c;
    }
    float *xt = malloc(sizeof(float) * (size_t)d * n), *cf = malloc(sizeof(float) * (size_t)d * d);
    if (!xt || !cf) {
        free(xt), free(cf), free(c);
        return NULL;
    }
    /* The transpose by 32 x 32 tiles: both sides stay in the cache. */
    for (int k0 = 0; k0 < n; k0 += 32)
        for (int j0 = 0; j0 < d; j0 += 32)
            for (int k = k0; k < n && k < k0 + 32; k++)
                for (int j = j0; j < d && j < j0 + 32; j++) xt[(size_t)j * n + k] = (float)xc(D, k, j);
    /* (Xc^T)(Xc^T)^T, packed once and multiplied by blocks of rows (the same
     * bits as one product: each element is its own chain), so that a cancel
     * request is seen within a block. */
    MatPacked pk;
    if (mat_pack(&pk, xt, n, n, d, 1)) {
        free(xt), free(cf), free(c);
        return NULL;
    }
    for (int r0 = 0; r0 < d && !av_cancelled(); r0 += 64) {
        int rows = d - r0 < 64 ? d - r0 : 64;
        mat_mul_rows(cf, d, xt, n, &pk, r0, rows);
    }
    mat_packed_free(&pk);
    for (size_t i = 0; i < (size_t)d * d; i++) c[i] = cf[i];
    /* symmetric to the bit, so that power iteration is */
    for (int i = 0; i < d; i++)
        for (int j = i + 1; j < d; j++) c[(size_t)j * d + i] = c[(size_t)i * d + j];
    free(xt), free(cf);
    return c;
}

/* Makes the first component within a relative 1e-6 of the largest magnitude
 * positive. */
static void fix_sign(double *v, int d) {
    double big = 0;
    for (int j = 0; j < d; j++)
        if (fabs(v[j]) > big) big = fabs(v[j]);
    for (int j = 0; j < d; j++) {
        if (fabs(v[j]) >= big * (1 - 1e-6)) {
            if (v[j] < 0)
                for (int k = 0; k < d; k++) v[k] = -v[k];
            return;
        }
    }
}

int pca_top2(float *out_axes, double *out_var, const float *x, int n, int d, AvError *err) {
    if (n < 0 || d < 1) return av_errorf(err, _("pca: need n >= 0 and d >= 1, got n=%d d=%d"), n, d);
    for (size_t k = 0; k < (size_t)n * d; k++)
        if (!isfinite(x[k]))
            return av_errorf(err, _("pca: row %zu, column %zu is not a finite number"), k / (size_t)d, k % (size_t)d);
    double *mem = malloc(sizeof(double) * (4 * (size_t)d + (size_t)n + 1));
    if (!mem) return av_error_nomem(err, _("pca: out of memory for %d x %d"), n, d);
    double *mean = mem, *a1 = mean + d, *a2 = a1 + d, *w = a2 + d, *t = w + d;
    Data D = {x, mean, n, d, t, NULL};

    double ss = 0; /* total sum of squares of the centred data */
    column_sums(mean, x, n, d);
    for (int j = 0; j < d; j++) mean[j] = n > 0 ? mean[j] / n : 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < d; j++) ss += xc(&D, i, j) * xc(&D, i, j);

    /* Default: the coordinate axes e1, e2 (e2 zero when d == 1), no variance. */
    for (int j = 0; j < d; j++) a1[j] = j == 0, a2[j] = j == 1;
    double var1 = 0, var2 = 0;
    double *cov = NULL;
    if (n >= 2 && ss > 0 && d <= n && (double)d * d < 2.0 * n * d) cov = covariance(&D);
    D.cov = cov;
    if (n >= 2 && ss > 0) {
        double zero = 1e-10 * ss;
        double ops = cov ? (double)d * d : 2.0 * n * d;
        int iters = PCA_MAX_ITER;
        if (ops * iters > PCA_MAX_OPS) iters = (int)(PCA_MAX_OPS / ops);
        if (iters < PCA_MIN_ITER) iters = PCA_MIN_ITER;
        if (power(&D, a1, w, NULL, iters, zero)) {
            fix_sign(a1, d);
            var1 = times_x(&D, a1) / (n - 1);
            if (d >= 2) {
                if (power(&D, a2, w, a1, iters, zero)) {
                    var2 = times_x(&D, a2) / (n - 1);
                } else {
                    /* Rank 1: any unit vector orthogonal to axis 1; take the
                     * coordinate axis least aligned with it. */
                    int best = 0;
                    for (int j = 1; j < d; j++)
                        if (fabs(a1[j]) < fabs(a1[best])) best = j;
                    for (int j = 0; j < d; j++) a2[j] = j == best;
                    deflate(a2, a1, d);
                    normalize(a2, d);
                }
                fix_sign(a2, d);
            }
        } else {
            for (int j = 0; j < d; j++) a1[j] = j == 0;
        }
    }
    for (int j = 0; j < d; j++) {
        out_axes[j] = (float)a1[j];
        out_axes[d + j] = (float)a2[j];
    }
    out_var[0] = var1;
    out_var[1] = var2;
    free(cov);
    free(mem);
    /* Stopped early: the axes are not the principal ones; say so. */
    if (av_cancelled()) return av_errorf(err, _("pca: cancelled"));
    return 0;
}
