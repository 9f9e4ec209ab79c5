/* rowops.c - see rowops.h: exp and the portable row operations, the choice
 * of the versions the CPU runs (the AVX2 ones in rowops_avx2.c, the AVX-512
 * ones in rowops_avx512.c: rowops_internal.h), and the softmax built on
 * them. */
#include "rowops_internal.h"

#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

// ----------------------------------------------------------------------------
// exp: the sequence every version follows (its constants: rowops_internal.h)

float attn_expf(float x) {
    if (!(x >= EXP_LO)) return 0.0f; /* also -inf */
    if (x > 88.0f) x = 88.0f;
    float t = x * EXP_LOG2E;
    float n = nearbyintf(t); /* to nearest, ties to even: as the SIMD rounding */
    float r = fmaf(n, -EXP_LN2_HI, x);
    r = fmaf(n, -EXP_LN2_LO, r);
    float z = r * r;
    float y = EXP_P0;
    y = fmaf(y, r, EXP_P1);
    y = fmaf(y, r, EXP_P2);
    y = fmaf(y, r, EXP_P3);
    y = fmaf(y, r, EXP_P4);
    y = fmaf(y, r, EXP_P5);
    y = fmaf(y, z, r);
    y = y + 1.0f;
    int32_t bits = ((int32_t)n + 127) << 23;
    float scale;
    memcpy(&scale, &bits, sizeof scale);
    return y * scale;
}

static void exp_row_portable(float *e, const float *s, float max, int n) {
    for (int j = 0; j < n; j++) e[j] = s[j] == -INFINITY ? 0.0f : attn_expf(s[j] - max);
}

/* chosen at the first call, which may come from several worker threads at once */
static _Atomic(ExpRow) exp_row;

static ExpRow best_exp(void);

void attn_exp_row(float *e, const float *s, float max, int n) {
    ExpRow f = atomic_load_explicit(&exp_row, memory_order_relaxed);
    if (!f) {
        f = best_exp();
        atomic_store_explicit(&exp_row, f, memory_order_relaxed);
    }
    f(e, s, max, n);
}

// ----------------------------------------------------------------------------
// the other row operations, portable (the SIMD versions do the same
// operations element by element; sums: the same eight lanes)

static double sum_portable(const float *x, int n) {
    double t[8] = {0};
    for (int j = 0; j < n; j++) t[j & 7] += x[j];
    return combine8(t);
}

static float max_portable(const float *x, int n) {
    float m = -INFINITY;
    for (int j = 0; j < n; j++)
        if (x[j] > m) m = x[j];
    return m;
}

/* w[j] = (float)(w[j] * inv); returns the largest. */
float rowops_normalize_portable(float *w, int n, double inv) {
    float mx = 0.0f;
    for (int j = 0; j < n; j++) {
        w[j] = (float)((double)w[j] * inv);
        if (w[j] > mx) mx = w[j];
    }
    return mx;
}

/* sum over the unmasked j of w[j] * (s[j] - max), in eight lanes. */
static double wdot_portable(const float *w, const float *s, float max, int n) {
    double t[8] = {0};
    for (int j = 0; j < n; j++)
        if (s[j] != -INFINITY && w[j] != 0.0f) t[j & 7] += (double)w[j] * (double)(s[j] - max);
    return combine8(t);
}

/* The fused passes of the softmax: e = exp(s - max) with its sum; w = e *
 * inv with its sum, its largest value and the entropy's dot, each the same
 * operations in the same order as the separate passes. */
static double exp_sum_portable(float *e, const float *s, float max, int n) {
    exp_row_portable(e, s, max, n);
    return sum_portable(e, n);
}

static float norm_stats_portable(float *w, const float *s, float max, int n, double inv, double *sum, double *wdot) {
    float mx = rowops_normalize_portable(w, n, inv);
    *sum = sum_portable(w, n);
    *wdot = wdot_portable(w, s, max, n);
    return mx;
}

static float clampf(float v) { return v > FLT_MAX ? FLT_MAX : v < -FLT_MAX ? -FLT_MAX : v; }

/* 1 when scaling by `by` is a float multiply by *f with the same bits as
 * the double operation: by (or 1 / by for a division) a power of two whose
 * float is a normal number. The double product or quotient is then exact
 * and rounded once to float; the float product rounds the same exact value
 * once (1/sqrt(d_k) for d_k 4, 16, 64, 256). */
static int pow2_factor(ScaleOp op, double by, float *f) {
    if (op != SCALE_MULTIPLY && op != SCALE_DIVIDE) return 0;
    uint64_t bits;
    memcpy(&bits, &by, sizeof bits);
    int e = (int)(bits >> 52) - 1023; /* by = 2^e: positive, no fraction bits, a normal float both ways */
    if ((bits >> 63) || (bits & ((1ull << 52) - 1)) || e < -125 || e > 125) return 0;
    *f = op == SCALE_MULTIPLY ? (float)by : (float)(1.0 / by);
    return 1;
}

void rowops_scale_portable(float *out, const float *raw, int n, ScaleOp op, double by) {
    float f;
    if (pow2_factor(op, by, &f)) {
        for (int j = 0; j < n; j++) out[j] = op == SCALE_MULTIPLY ? clampf(raw[j] * f) : raw[j] * f;
        return;
    }
    for (int j = 0; j < n; j++) {
        if (op == SCALE_DIVIDE) out[j] = (float)((double)raw[j] / by);
        else if (op == SCALE_MULTIPLY) out[j] = clampf((float)((double)raw[j] * by));
        else out[j] = raw[j];
    }
}

void rowops_mask_portable(float *out, const float *s, const unsigned char *ok, int n) {
    for (int j = 0; j < n; j++) out[j] = ok[j] ? s[j] : -INFINITY;
}

/* The scaling by a power of two (pow2_factor's f) and the mask in one pass
 * over whole vectors: the values scale_* and mask_* store. Returns how many
 * it did. */
static int scale_mask_pow2_portable(float *sc, float *mk, const float *raw, const unsigned char *ok, int n, ScaleOp op,
                                    float f) {
    (void)sc, (void)mk, (void)raw, (void)ok, (void)n, (void)op, (void)f;
    return 0;
}

// ----------------------------------------------------------------------------
// the choice: the best the CPU has, or the one asked for

static const RowOps ops_portable = {
    .sum = sum_portable,
    .max = max_portable,
    .normalize = rowops_normalize_portable,
    .wdot = wdot_portable,
    .scale = rowops_scale_portable,
    .mask = rowops_mask_portable,
    .exp_sum = exp_sum_portable,
    .norm_stats = norm_stats_portable,
    .scale_mask_pow2 = scale_mask_pow2_portable,
};
static _Atomic(const RowOps *) row_ops;

static const RowOps *best_ops(void) {
#ifdef HAVE_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw"))
        return &rowops_avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return &rowops_avx2;
#endif
    return &ops_portable;
}

static const RowOps *ops(void) {
    const RowOps *o = atomic_load_explicit(&row_ops, memory_order_relaxed);
    if (!o) {
        o = best_ops();
        atomic_store_explicit(&row_ops, o, memory_order_relaxed);
    }
    return o;
}

static ExpRow best_exp(void) {
#ifdef HAVE_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return rowops_exp_row_avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return rowops_exp_row_avx2;
#endif
    return exp_row_portable;
}

int attn_set_rowops(const char *name) {
    const RowOps *o = NULL;
    ExpRow e = NULL;
    if (!name) o = best_ops(), e = best_exp();
    else if (strcmp(name, "portable") == 0) o = &ops_portable, e = exp_row_portable;
#ifdef HAVE_X86
    else if (strcmp(name, "avx2") == 0 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        o = &rowops_avx2, e = rowops_exp_row_avx2;
    else if (strcmp(name, "avx512") == 0 && best_ops() == &rowops_avx512) o = &rowops_avx512, e = rowops_exp_row_avx512;
#endif
    if (!o) return -1;
    atomic_store_explicit(&row_ops, o, memory_order_relaxed);
    atomic_store_explicit(&exp_row, e, memory_order_relaxed);
    return 0;
}

const char *attn_rowops_name(void) {
    const RowOps *o = ops();
#ifdef HAVE_X86
    if (o == &rowops_avx512) return "avx512";
    if (o == &rowops_avx2) return "avx2";
#endif
    return "portable";
}

// ----------------------------------------------------------------------------
// sums and the softmax

double attn_sum(const float *x, int n) { return ops()->sum(x, n); }

void attn_scale_mask_row(float *scaled, float *masked, const float *raw, const unsigned char *allowed, int n,
                         ScaleOp op, double by) {
    const RowOps *o = ops();
    int j0 = 0;
    float f;
    if (pow2_factor(op, by, &f)) j0 = o->scale_mask_pow2(scaled, masked, raw, allowed, n, op, f); /* one pass */
    /* In blocks that stay in the L1 cache between the two passes. */
    for (int j = j0; j < n; j += 256) {
        int len = n - j < 256 ? n - j : 256;
        o->scale(scaled + j, raw + j, len, op, by);
        o->mask(masked + j, scaled + j, allowed + j, len);
    }
}

void attn_mask_row(float *masked, const float *scaled, const unsigned char *allowed, int n) {
    ops()->mask(masked, scaled, allowed, n);
}

void attn_softmax(float *w, const float *s, int n, SoftmaxRow *out) {
    const RowOps *o = ops();
    memset(out, 0, sizeof *out);
    float max = o->max(s, n);
    out->max_score = max;
    if (max == -INFINITY) {
        memset(w, 0, sizeof(float) * (size_t)n);
        return;
    }
    /* Three passes: the max; exp and its sum; the weights with their sum,
     * largest and the entropy's dot (each as the separate passes were). */
    double denom = o->exp_sum(w, s, max, n), sum, dot;
    out->max_weight = o->norm_stats(w, s, max, n, 1.0 / denom, &sum, &dot);
    /* The entropy in one log: H = ln(denom) - sum w (s - max), in nats. */
    double h = (log(denom) - dot) / log(2.0);
    out->denom = denom;
    out->sum = sum;
    out->entropy = h > 0 ? h : 0.0;
}

void attn_softmax_rows(float *w, const float *s, int ld, int rows, const int *len, SoftmaxRow *out) {
    const RowOps *o = ops();
    for (int r = 0; r < rows; r++) {
        memset(&out[r], 0, sizeof out[r]);
        out[r].max_score = o->max(s + (size_t)r * ld, len[r]);
    }
    for (int r = 0; r < rows; r++) {
        float *wr = w + (size_t)r * ld;
        if (out[r].max_score == -INFINITY) memset(wr, 0, sizeof(float) * (size_t)len[r]);
        else out[r].denom = o->exp_sum(wr, s + (size_t)r * ld, out[r].max_score, len[r]);
        if (len[r] < ld) memset(wr + len[r], 0, sizeof(float) * (size_t)(ld - len[r]));
    }
    for (int r = 0; r < rows; r++) {
        if (out[r].max_score == -INFINITY) continue;
        double sum, dot;
        out[r].max_weight = o->norm_stats(w + (size_t)r * ld, s + (size_t)r * ld, out[r].max_score, len[r],
                                          1.0 / out[r].denom, &sum, &dot);
        double h = (log(out[r].denom) - dot) / log(2.0);
        out[r].sum = sum;
        out[r].entropy = h > 0 ? h : 0.0;
    }
}
