/* model_budget.c - the budgets of a configuration (model.h: attention cells,
 * bytes, multiply-adds of a pass), checked before any storage is made. */
#include "model_internal.h"

#include <stdio.h>

#include "i18n.h"

// ----------------------------------------------------------------------------
// budgets

int model_check_budget(const ModelConfig *c, int n_q, int n_k, const Source *src, AvError *err) {
    /* Every layer keeps its heads' stages: a layer counts as heads more. */
    int64_t h = (int64_t)c->heads * (c->layers > 0 ? c->layers : 1), dm = c->d_model, dk = c->d_k, dv = c->d_v;
    int64_t cells = (int64_t)n_q * n_k * h;
    if (cells > MODEL_MAX_CELLS)
        return av_errorf(err,
                         _("too large: %d x %d tokens x %lld heads = %lld attention cells, the "
                           "limit is %lld (use fewer heads or a shorter text)"),
                         n_q, n_k, (long long)h, (long long)cells, (long long)MODEL_MAX_CELLS);
    int64_t floats = h * ((int64_t)n_q * dk + (int64_t)n_k * (dk + dv) + (int64_t)n_q * dv);
    int text = (src->caps & SRC_WEIGHTS) != 0;
    if (text) floats += 3 * (int64_t)n_k * dm + h * dm * (2 * dk + dv) + h * dv * dm + (int64_t)n_q * (h * dv + dm);
    int64_t bytes = floats * 4;
    /* What the arenas really take (packed copies, the products before they are
     * split into heads, W_O's normals in double, padding), less the four
     * (n_q, n_k) stages that MODEL_MAX_CELLS budgets. */
    int64_t arenas = (int64_t)model_stages_bytes(c, n_q, n_k, src) - cells * 16;
    if (text) arenas += (int64_t)model_embed_bytes(c, n_q, n_k, 1) + (int64_t)model_weights_bytes(c);
    if (arenas > bytes) bytes = arenas;
    char tokens[48] = "";
    /* TRANSLATORS: after "d_v=16" in the "too large" and "too slow" messages */
    if (n_k > 0) snprintf(tokens, sizeof tokens, _(" and %d tokens"), n_k);

    if (bytes > MODEL_MAX_BYTES)
        return av_errorf(err,
                         _("too large: d_model=%d heads=%d d_k=%d d_v=%d%s need %lld MiB of "
                           "weights and stages, the limit is %lld MiB"),
                         c->d_model, c->heads, c->d_k, c->d_v, tokens, (long long)(bytes >> 20),
                         (long long)(MODEL_MAX_BYTES >> 20));
    /* Memory is not the only limit: a recompute must stay a matter of
     * seconds, or the screen freezes. Count the multiply-adds of a full pass
     * and the random numbers drawn. */
    /* A random normal (the polar method: a log and a root per pair) costs about as much
     * as 64 multiply-adds of the kernels. */
    const int64_t normal = 64;
    int64_t ops = h * ((int64_t)n_q * n_k * (dk + dv));
    if (c->score == SCORE_ADDITIVE)
        ops += h * ((int64_t)n_q * n_k * dk * 8 /* tanh */ + 2 * dk * dk * normal + (int64_t)(n_q + n_k) * dk * dk);
    if (text)
        ops += h * (int64_t)n_k * dm * (2 * dk + dv) + (int64_t)n_q * h * dv * dm +
               normal * (h * dm * (2 * dk + dv) + h * dv * dm + (int64_t)(n_q + n_k) * dm);
    if (ops > MODEL_MAX_OPS)
        return av_errorf(err,
                         _("too slow: d_model=%d heads=%d d_k=%d d_v=%d%s need %lld million "
                           "multiply-adds a pass, the limit is %lld million"),
                         c->d_model, c->heads, c->d_k, c->d_v, tokens, (long long)(ops / 1000000),
                         (long long)(MODEL_MAX_OPS / 1000000));
    return 0;
}
