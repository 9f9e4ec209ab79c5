/* tensor.c - the catalogue's entries and where each tensor's data lives (see
 * tensor.h). */
#include "tensor.h"

static const TensorInfo catalogue[TENSOR_COUNT] = {
#define TENSOR_ENTRY(id, name, shown, stage, scope, rows, cols, flags, cycle)                                          \
    [TENSOR_##id] = {name, shown, stage, scope, rows, cols, flags, cycle},
    AV_TENSORS(TENSOR_ENTRY)
#undef TENSOR_ENTRY
};

const TensorInfo *tensor_info(Tensor t) { return &catalogue[(unsigned)t < TENSOR_COUNT ? t : 0]; }

int tensor_side_len(const Model *m, TensorSide s) {
    const ModelConfig *c = &m->cfg;
    switch (s) {
    case SIDE_QUERIES: return m->n_q;
    case SIDE_KEYS: return m->n_k;
    case SIDE_D_MODEL: return c->d_model;
    case SIDE_D_K: return c->d_k;
    case SIDE_D_V: return c->d_v;
    case SIDE_HEADS_D_V: return c->heads * c->d_v;
    case SIDE_ONE: return 1;
    }
    return 0;
}

int tensor_available(const Model *m, Tensor t) {
    unsigned f = tensor_info(t)->flags;
    if ((f & TF_NEEDS_EMBED) && !model_can(m, SRC_EMBED)) return 0;
    if ((f & TF_NEEDS_WEIGHTS) && !model_can(m, SRC_WEIGHTS)) return 0;
    if ((f & TF_NEEDS_POS) && m->cfg.pos == POS_NONE) return 0;
    if ((f & TF_NEEDS_ADDITIVE) && m->cfg.score != SCORE_ADDITIVE) return 0;
    return (unsigned)t < TENSOR_COUNT;
}

const float *tensor_data(const Model *m, Tensor t, int layer, int head) {
    if (!tensor_available(m, t)) return NULL;
    if (layer < 0 || layer >= m->cfg.layers || head < 0 || head >= m->cfg.heads) return NULL;
    const HeadData *hd = &model_layer_heads(m, layer)[head];
    switch (t) {
    case TENSOR_E: return m->embed;
    case TENSOR_PE: return m->pe;
    case TENSOR_X: return m->x;
    case TENSOR_WQ: return hd->wq;
    case TENSOR_WK: return m->cfg.tie_qk ? hd->wq : hd->wk; /* tied: W_K is W_Q */
    case TENSOR_WV: return hd->wv;
    case TENSOR_WO: return m->wo;
    case TENSOR_Q: return hd->q;
    case TENSOR_K: return hd->k;
    case TENSOR_V: return hd->v;
    case TENSOR_W1: return hd->w1;
    case TENSOR_W2: return hd->w2;
    case TENSOR_VA: return hd->va;
    case TENSOR_SCORES: return hd->scores;
    case TENSOR_SCALED: return hd->scaled;
    case TENSOR_MASKED: return hd->masked;
    case TENSOR_WEIGHTS: return hd->weights;
    case TENSOR_OUTPUT: return hd->out;
    case TENSOR_CONCAT: return m->concat;
    case TENSOR_Y: return m->y;
    case TENSOR_COUNT: break;
    }
    return NULL;
}

/* The cycle's order, from the cycle column (a scan of a dozen entries). */
int tensor_cycle_len(void) {
    int n = 0;
    for (int t = 0; t < TENSOR_COUNT; t++) n += catalogue[t].cycle > 0;
    return n;
}

Tensor tensor_cycle_at(int k) {
    for (int t = 0; t < TENSOR_COUNT; t++)
        if (catalogue[t].cycle == k + 1) return (Tensor)t;
    return TENSOR_WEIGHTS;
}
