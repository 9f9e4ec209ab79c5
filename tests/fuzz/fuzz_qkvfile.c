/* fuzz_qkvfile.c - libFuzzer target for the Q/K/V file parser (src/formats/qkvfile.h)
 * and the model fed from it (src/core/model.h).
 *
 * qkv_parse gets the raw bytes. On failure: *out is zeroed and the message is
 * NUL-terminated, one line, and terminal-safe (no C0 control, DEL or C1
 * control: the parser quotes words and the file name escaped). On success:
 * the shapes are positive, every number is finite with |x| <= FLT_MAX and
 * every label is a non-empty string; then the data goes into a model
 * (model_set_qkv) and is computed with the mask none and causal, with scaling
 * on and off: no stage holds a NaN, weights are in [0, 1], a row's sum is 1
 * (+-1e-5) when it has an allowed key and exactly 0 when it has none, and each
 * output is a convex combination of V's rows: inside the range of V's column
 * within (n_k + 2) * FLT_EPSILON * max|v| (the float error bound, check_model). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "model.h"
#include "qkvfile.h"

/* A file name with an escape sequence and a C1 CSI: messages must escape it. */
static const char FUZZ_NAME[] = "fu\x1b[31mzz\xc2\x9b"
                                "2J.qkv";

static void check_floats(const char *what, const float *x, size_t n, int allow_neg_inf) {
    for (size_t i = 0; i < n; i++) {
        FUZZ_CHECK(!isnan(x[i]), "%s[%zu] is NaN", what, i);
        FUZZ_CHECK(fabsf(x[i]) <= FLT_MAX || (allow_neg_inf && x[i] == -INFINITY), "%s[%zu] = %g", what, i,
                   (double)x[i]);
    }
}

static void check_message(const AvError *err) {
    size_t n = fuzz_msg_len(err->msg, sizeof err->msg);
    FUZZ_CHECK(n > 0, "failure without a message");
    long bad = fuzz_first_unsafe(err->msg, n, NULL);
    if (bad >= 0) fuzz_dump("message", err->msg, n);
    FUZZ_CHECK(bad < 0, "message has an unsafe byte at %ld", bad);
}

static void check_model(const Model *m) {
    const HeadData *hd = &m->head[0];
    int nq = m->n_q, nk = m->n_k, dk = m->cfg.d_k, dv = m->cfg.d_v;
    size_t cells = (size_t)nq * nk;
    FUZZ_CHECK(m->cfg.heads == 1 && m->stale == STAGE_NONE, "model not fresh after update");
    check_floats("q", hd->q, (size_t)nq * dk, 0);
    check_floats("k", hd->k, (size_t)nk * dk, 0);
    check_floats("v", hd->v, (size_t)nk * dv, 0);
    check_floats("scores", hd->scores, cells, 0);
    check_floats("scaled", hd->scaled, cells, 0);
    check_floats("masked", hd->masked, cells, 1);
    check_floats("weights", hd->weights, cells, 0);
    check_floats("max_weight", hd->max_weight, (size_t)nq, 0);
    check_floats("out", hd->out, (size_t)nq * dv, 0);
    for (int i = 0; i < nq; i++) {
        int allowed = 0;
        for (int j = 0; j < nk; j++) {
            size_t at = (size_t)i * nk + j;
            float w = hd->weights[at];
            FUZZ_CHECK(w >= 0.0f && w <= 1.0f, "weight [%d][%d] = %.9g", i, j, (double)w);
            if (!m->allowed[at]) {
                FUZZ_CHECK(w == 0.0f && hd->masked[at] == -INFINITY, "masked cell [%d][%d] has weight %g", i, j,
                           (double)w);
            } else {
                allowed++;
                FUZZ_CHECK(hd->masked[at] == hd->scaled[at], "allowed cell [%d][%d] changed by the mask", i, j);
            }
        }
        FUZZ_CHECK(allowed == m->n_allowed[i], "row %d: n_allowed %d, counted %d", i, m->n_allowed[i], allowed);
        double s = hd->row_sums[i];
        FUZZ_CHECK(!isnan(s) && !isnan(hd->entropy[i]), "row %d: NaN sum or entropy", i);
        if (allowed) FUZZ_CHECK(fabs(s - 1.0) <= 1e-5, "row %d: sum %.12g, expected 1", i, s);
        else FUZZ_CHECK(s == 0.0, "row %d: fully masked, sum %.12g, expected 0", i, s);
        FUZZ_CHECK(hd->entropy[i] >= 0.0 && hd->entropy[i] <= log2((double)nk) + 1e-6,
                   "row %d: entropy %g bits over %d keys", i, hd->entropy[i], nk);
        /* O[i] = sum_j A[i][j] V[j]: inside the range of V's column, up to the
         * error of float arithmetic. The weights are float32 quotients of a
         * double denominator (their sum is 1 within u = 2^-24) and the product
         * is one float FMA chain of nk terms (each step rounds by at most u of
         * a partial sum <= max|v|): the error is at most (nk + 1) u max|v|.
         * The check allows (nk + 2) * FLT_EPSILON = 2 (nk + 2) u, a margin of
         * 2; a wrong weight or index is off by far more. A fixed 1e-5 failed
         * for 712 weights of 1/712 over V = 1 (regress/qkvfile/v-ones-1000). */
        if (!allowed) continue;
        for (int d = 0; d < dv; d++) {
            double lo = INFINITY, hi = -INFINITY;
            for (int j = 0; j < nk; j++) {
                double v = hd->v[(size_t)j * dv + d];
                if (v < lo) lo = v;
                if (v > hi) hi = v;
            }
            /* 1e-30: the absolute error of products in the subnormal range. */
            double o = hd->out[(size_t)i * dv + d];
            double tol = (nk + 2.0) * FLT_EPSILON * fmax(fabs(lo), fabs(hi)) + 1e-30;
            FUZZ_CHECK(o >= lo - tol && o <= hi + tol, "out[%d][%d] = %.9g outside V's column [%.9g, %.9g]", i, d, o,
                       lo, hi);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* A heap copy of exactly `size` bytes (not NUL-terminated), so that ASan
     * sees a read past the end. */
    char *buf = malloc(size ? size : 1);
    FUZZ_CHECK(buf != NULL, "out of memory");
    if (size) memcpy(buf, data, size);

    QkvData d;
    AvError err = {0};
    memset(&d, 0x5A, sizeof d);
    int rc = qkv_parse(&d, buf, size, FUZZ_NAME, &err);
    free(buf); /* the result must not point into the buffer */
    if (rc != 0) {
        FUZZ_CHECK(rc == -1, "qkv_parse returned %d", rc);
        check_message(&err);
        static const QkvData zero;
        FUZZ_CHECK(memcmp(&d, &zero, sizeof d) == 0, "failed parse did not zero *out");
        return 0;
    }
    FUZZ_CHECK(d.n_q > 0 && d.n_k > 0 && d.d_k > 0 && d.d_v > 0, "shapes n_q=%d n_k=%d d_k=%d d_v=%d", d.n_q, d.n_k,
               d.d_k, d.d_v);
    FUZZ_CHECK(d.q && d.k && d.v && d.key_tokens && d.query_tokens, "NULL matrix or label array");
    check_floats("Q", d.q, (size_t)d.n_q * d.d_k, 0);
    check_floats("K", d.k, (size_t)d.n_k * d.d_k, 0);
    check_floats("V", d.v, (size_t)d.n_k * d.d_v, 0);
    for (int j = 0; j < d.n_k; j++)
        FUZZ_CHECK(d.key_tokens[j] && d.key_tokens[j][0], "key label %d is NULL or empty", j);
    for (int i = 0; i < d.n_q; i++)
        FUZZ_CHECK(d.query_tokens[i] && d.query_tokens[i][0], "query label %d is NULL or empty", i);

    Model *m = model_new();
    FUZZ_CHECK(m != NULL, "out of memory");
    if (model_set_qkv(m, &d, &err) != 0) {
        check_message(&err); /* a budget; d is still ours */
        qkv_free(&d);
        model_free(m);
        return 0;
    }
    FUZZ_CHECK(d.q == NULL && d.key_tokens == NULL, "model_set_qkv did not take the data");
    FUZZ_CHECK(model_update(m, &err) == 0, "model_update: %s", err.msg);
    check_model(m);
    static const struct {
        MaskKind mask;
        int scale;
    } steps[] = {{MASK_CAUSAL, 1}, {MASK_CAUSAL, 0}, {MASK_NONE, 0}, {MASK_NONE, 1}};
    for (size_t s = 0; s < sizeof steps / sizeof *steps; s++) {
        ModelConfig c = m->cfg;
        c.mask = steps[s].mask;
        c.scale = steps[s].scale;
        FUZZ_CHECK(model_set_config(m, &c, &err) == 0, "model_set_config(mask %d, scale %d): %s", (int)c.mask, c.scale,
                   err.msg);
        FUZZ_CHECK(model_update(m, &err) == 0, "model_update: %s", err.msg);
        check_model(m);
    }
    /* A change of shape must be refused for a file's data. */
    ModelConfig c = m->cfg;
    c.heads = 2;
    FUZZ_CHECK(model_set_config(m, &c, &err) != 0, "model_set_config changed the heads of a Q/K/V file");
    model_free(m);
    return 0;
}
