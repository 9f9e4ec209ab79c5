/* model_inspect.c - reading the stages: labels and ids of the rows and
 * columns, the arithmetic of one cell, entropy and asymmetry of a head. */
#include "model_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "rowops.h"

// ----------------------------------------------------------------------------
// a head as a whole

double model_asymmetry(const Model *m, int h) {
    const HeadData *hd = &m->head[h];
    int n = m->n_k;
    double asym = 0;
    enum { T = 64 }; /* tiles, so that S[j][i] is read from the cache */
    if (m->n_q == n)
        for (int bi = 0; bi < n; bi += T)
            for (int bj = bi; bj < n; bj += T)
                for (int i = bi; i < bi + T && i < n; i++)
                    for (int j = bj > i + 1 ? bj : i + 1; j < bj + T && j < n; j++) {
                        double d = fabs((double)hd->scores[(size_t)i * n + j] - hd->scores[(size_t)j * n + i]);
                        if (d > asym) asym = d;
                    }
    return asym;
}

void model_mean_entropy(const Model *m, int h, double *mean, double *max) {
    model_head_entropy(m, &m->head[h], mean, max);
}

void model_head_entropy(const Model *m, const HeadData *hd, double *mean, double *max) {
    double s = 0.0, mx = 0.0;
    for (int i = 0; i < m->n_q; i++) {
        s += hd->entropy[i];
        if (m->n_allowed[i] > 0) mx += log2((double)m->n_allowed[i]);
    }
    *mean = m->n_q ? s / m->n_q : 0.0;
    *max = m->n_q ? mx / m->n_q : 0.0;
}

// ----------------------------------------------------------------------------
// labels, ids and the detail of a cell

const char *model_query_text(const Model *m, int i, size_t *len) { return m->src->query_text(m, i, len); }

const char *model_key_text(const Model *m, int j, size_t *len) { return m->src->key_text(m, j, len); }

/* (The length is not wanted: the label ends at its first NUL. cppcheck
 * cannot see through the source's function pointer and takes the returned
 * text for &len.) */
const char *model_query_label(const Model *m, int i) {
    size_t len;
    // cppcheck-suppress returnDanglingLifetime
    return model_query_text(m, i, &len);
}

const char *model_key_label(const Model *m, int j) {
    size_t len;
    // cppcheck-suppress returnDanglingLifetime
    return model_key_text(m, j, &len);
}

int model_key_id(const Model *m, int j) { return m->src->key_id(m, j); }

// ----------------------------------------------------------------------------
// a trained model (trained.h)

const TrainedInfo *model_trained(const Model *m) { return m->src->trained ? m->src->trained(m) : NULL; }

int model_layer_chain(const Model *m, int l, LayerChain *out, AvError *err) {
    const TrainedInfo *t = model_trained(m);
    if (!t || !m->src->chain) return av_errorf(err, _("the chain of a layer is a trained model's (--model)"));
    if (l < 0 || l >= t->n_layers) return av_errorf(err, _("layer %d: the model has %d"), l + 1, t->n_layers);
    return m->src->chain(m, l, out, err);
}

const char *model_token_piece(const Model *m, int id, size_t *len) {
    if (m->src->piece) return m->src->piece(m, id, len);
    *len = 0;
    return "";
}

const char *model_token_decode(const Model *m, int prev, int id, size_t *len) {
    if (m->src->decode) return m->src->decode(m, prev, id, len);
    return model_token_piece(m, id, len);
}

int model_generate(const Model *m, int steps, int *out, AvError *err) {
    if (!m->src->generate) return av_errorf(err, _("--generate: needs a trained model (--model)"));
    return m->src->generate(m, steps, out, err);
}

int model_set_ablation(Model *m, const HeadAblation *list, int n, AvError *err) {
    if (!m->src->ablate) return av_errorf(err, _("ablation switches off a trained model's heads (--model)"));
    return m->src->ablate(m, list, n, err);
}

int model_ablation(const Model *m, HeadAblation *out, int cap) {
    return m->src->ablated ? m->src->ablated(m, out, cap) : 0;
}

void model_want_next(Model *m, int row) {
    if (row != m->next_row) m->next_row = row, m->next_ready = 0;
}

int model_next_ready(const Model *m, int row) {
    if (!m->src->predict || m->n_q == 0) return 1;
    if (row >= m->n_q) row = m->n_q - 1;
    return m->next_ready && m->next_row == row && m->stale == STAGE_NONE;
}

void model_cell_detail(const Model *m, int h, int i, int j, CellDetail *out) {
    const HeadData *hd = &m->head[h];
    const ModelConfig *c = &m->cfg;
    size_t nk = (size_t)m->n_k, at = (size_t)i * nk + j;
    const float *row = hd->masked + (size_t)i * nk;
    const float *q = hd->q + (size_t)i * c->d_k, *k = hd->k + (size_t)j * c->d_k;
    memset(out, 0, sizeof *out);
    out->kind = c->score;
    out->raw = hd->scores[at];
    out->dot = vec_dot(q, k, c->d_k);
    out->q_norm = model_norm(q, c->d_k);
    out->k_norm = model_norm(k, c->d_k);
    for (int p = 0; p < c->d_k; p++) out->dist2 += ((double)q[p] - k[p]) * ((double)q[p] - k[p]);
    double f = model_scale_factor(c);
    out->divisor = f == 1.0 ? 1.0 : 1.0 / f;
    out->scaled = hd->scaled[at];
    out->allowed = m->allowed[at];
    out->row_allowed = m->n_allowed[i];
    out->weight = hd->weights[at];
    /* The softmax's own numbers: its exp and its denominator (rowops.c). */
    float max = -INFINITY;
    for (size_t col = 0; col < nk; col++)
        if (row[col] > max) max = row[col];
    out->row_max = max;
    if (max == -INFINITY) return;
    float *e = malloc(sizeof(float) * nk);
    if (!e) return;
    attn_exp_row(e, row, max, (int)nk);
    out->denom = attn_sum(e, (int)nk);
    out->exp = e[j];
    free(e);
}
