/* source_qkv.c - a Q/K/V file (qkvfile.h) as a source (source.h): one layer
 * of one head whose Q, K and V are the file's, with its token labels. No
 * embeddings, weights or Y. */
#include "model_internal.h"

#include <stdlib.h>
#include <string.h>

#include "i18n.h"

static const QkvData *qkv_of(const Model *m) { return m->src_data; }

static void qkv_forward(Model *m, int layer, int from) {
    (void)from; /* the file is the projections */
    const QkvData *d = qkv_of(m);
    const ModelConfig *c = &m->cfg;
    HeadData *hd = model_layer_heads(m, layer);
    memcpy(hd->q, d->q, sizeof(float) * (size_t)m->n_q * c->d_k);
    memcpy(hd->k, d->k, sizeof(float) * (size_t)m->n_k * c->d_k);
    memcpy(hd->v, d->v, sizeof(float) * (size_t)m->n_k * c->d_v);
}

static const char *qkv_query(const Model *m, int i, size_t *len) {
    const char *s = qkv_of(m)->query_tokens[i];
    *len = strlen(s);
    return s;
}

static const char *qkv_key(const Model *m, int j, size_t *len) {
    const char *s = qkv_of(m)->key_tokens[j];
    *len = strlen(s);
    return s;
}

static int qkv_key_id(const Model *m, int j) {
    (void)m;
    return j;
}

static void qkv_data_free(void *data) {
    qkv_free(data);
    free(data);
}

const Source source_qkv = {
    .name = "qkv",
    .fixed = N_("Q, K and V come from a file"),
    /* TRANSLATORS: where the rows come from, on the size line: "3 x 3 from file" */
    .what = N_("file"),
    .caps = SRC_SCORE_KINDS,
    .forward = qkv_forward,
    .final = NULL,
    .query_text = qkv_query,
    .key_text = qkv_key,
    .key_id = qkv_key_id,
    .free = qkv_data_free,
};
