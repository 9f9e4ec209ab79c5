/* model_storage.c - where the model's matrices live: three arenas (E, PE, X;
 * the weights; the stages), each one allocation, and the reshape that makes
 * room for new shapes all or nothing. */
#include "model_internal.h"

#include <stdlib.h>
#include <string.h>

// ----------------------------------------------------------------------------
// storage: three arenas, each one allocation (llm.c), replaced all or nothing

/* Which arenas a change of shape needs anew. */
enum { AR_EMBED = 1, AR_WEIGHTS = 2, AR_STAGES = 4, AR_HEADS = 8 };

typedef struct {
    void *embed;    /* E, PE, X: n_k x d_model each (text only) */
    void *weights;  /* W_Q, W_K, W_V of every head, W_O (text only) */
    void *stages;   /* per-head stages, the mask, concat, Y */
    HeadData *head; /* heads entries */
} Storage;

/* Bump allocation inside an arena: every piece 16-byte aligned and followed
 * by 320 bytes, so that rows of different matrices (n x n floats, a multiple
 * of 4 KiB) do not all start at the same offset in a page: loads and stores
 * at equal page offsets stall each other (4K aliasing). */
static size_t round16(size_t n) { return ((n + 15) & ~(size_t)15) + 320; }
static void *carve(char **p, size_t bytes) {
    void *r = *p;
    *p += round16(bytes);
    return r;
}

/* E, PE, X of the keys' sentence, and of the queries' when it is another. */
size_t model_embed_bytes(const ModelConfig *c, int n_q, int n_k, int two_sides) {
    size_t b = 3 * round16(sizeof(float) * (size_t)n_k * c->d_model);
    if (two_sides) b += 3 * round16(sizeof(float) * (size_t)n_q * c->d_model);
    return b;
}

size_t model_weights_bytes(const ModelConfig *c) {
    size_t dm = (size_t)c->d_model, f = sizeof(float);
    size_t per_head = 2 * round16(f * dm * c->d_k) + round16(f * dm * c->d_v);
    return (size_t)c->heads * per_head + round16(f * (size_t)c->heads * c->d_v * dm) +
           round16(sizeof(double) * (size_t)c->heads * c->d_v * dm) +
           round16(f * mat_packed_floats(c->heads * c->d_v, c->d_model)) +
           round16(f * mat_packed_floats(c->d_model, c->heads * c->d_k)) +
           round16(f * mat_packed_floats(c->d_model, c->heads * (c->d_k + c->d_v)));
}

size_t model_stages_bytes(const ModelConfig *c, int n_q, int n_k, ModelSource src) {
    size_t nq = (size_t)n_q, nk = (size_t)n_k, f = sizeof(float);
    size_t per_head = round16(f * nq * c->d_k) + round16(f * nk * c->d_k) + round16(f * nk * c->d_v) +
                      4 * round16(f * nq * nk) + 2 * round16(sizeof(double) * nq) + round16(f * nq) +
                      round16(f * nq * c->d_v);
    if (c->score == SCORE_ADDITIVE)
        per_head += 2 * round16(f * c->d_k * c->d_k) + round16(f * c->d_k) + round16(f * nq * c->d_k) +
                    round16(f * nk * c->d_k);
    per_head += round16(f * mat_packed_floats(c->d_k, n_k)) + round16(f * mat_packed_floats(n_k, c->d_v));
    size_t total = (size_t)c->heads * per_head + round16(nq * nk) + round16(sizeof(int) * nq) + round16(nk);
    if (src == SOURCE_TEXT)
        total += round16(f * nq * c->heads * c->d_k) + round16(f * nk * c->heads * (c->d_k + c->d_v));
    if (src == SOURCE_TEXT) total += round16(f * nq * c->heads * c->d_v) + round16(f * nq * c->d_model);
    return total;
}

static void storage_free(Storage *s) {
    free(s->embed), free(s->weights), free(s->stages), free(s->head);
    memset(s, 0, sizeof *s);
}

/* Allocates the arenas named in `which` for configuration c; all or nothing. */
static int storage_alloc(Storage *s, int which, const ModelConfig *c, int n_q, int n_k, ModelSource src,
                         int two_sides) {
    memset(s, 0, sizeof *s);
    int text = src == SOURCE_TEXT;
    if ((which & AR_EMBED) && text) s->embed = calloc(1, model_embed_bytes(c, n_q, n_k, two_sides) + 16);
    /* every weight is drawn, copied or packed before it is read: no need to zero */
    if ((which & AR_WEIGHTS) && text) s->weights = malloc(model_weights_bytes(c) + 16);
    if (which & AR_STAGES) s->stages = calloc(1, model_stages_bytes(c, n_q, n_k, src) + 16);
    if (which & AR_HEADS) s->head = calloc((size_t)c->heads, sizeof *s->head);
    if (((which & AR_EMBED) && text && !s->embed) || ((which & AR_WEIGHTS) && text && !s->weights) ||
        ((which & AR_STAGES) && !s->stages) || ((which & AR_HEADS) && !s->head)) {
        storage_free(s);
        return -1;
    }
    return 0;
}

/* Points the model's matrices into its arenas (after a change of shape). */
static void storage_point(Model *m) {
    const ModelConfig *c = &m->cfg;
    size_t nq = (size_t)m->n_q, nk = (size_t)m->n_k, dm = (size_t)c->d_model, f = sizeof(float);
    char *p;
    if (m->embed_arena) {
        p = m->embed_arena;
        m->embed = carve(&p, f * nk * dm);
        m->pe = carve(&p, f * nk * dm);
        m->x = carve(&p, f * nk * dm);
        if (m->q_target != m->k_target) {
            m->embed_q = carve(&p, f * nq * dm);
            m->pe_q = carve(&p, f * nq * dm);
            m->xq = carve(&p, f * nq * dm);
        } else {
            m->embed_q = m->embed, m->pe_q = m->pe, m->xq = m->x;
        }
    } else {
        m->embed = m->pe = m->x = m->embed_q = m->pe_q = m->xq = NULL;
    }
    if (m->weights_arena) {
        p = m->weights_arena;
        for (int h = 0; h < c->heads; h++) {
            HeadData *hd = &m->head[h];
            hd->wq = carve(&p, f * dm * c->d_k);
            hd->wk = carve(&p, f * dm * c->d_k);
            hd->wv = carve(&p, f * dm * c->d_v);
        }
        m->wo = carve(&p, f * (size_t)c->heads * c->d_v * dm);
        m->wo_normals = carve(&p, sizeof(double) * (size_t)c->heads * c->d_v * dm);
        /* the packed weights: filled when the weights are drawn */
        memset(&m->po, 0, sizeof m->po), memset(&m->pq, 0, sizeof m->pq), memset(&m->pkv, 0, sizeof m->pkv);
        m->po.data = carve(&p, f * mat_packed_floats(c->heads * c->d_v, c->d_model));
        m->pq.data = carve(&p, f * mat_packed_floats(c->d_model, c->heads * c->d_k));
        m->pkv.data = carve(&p, f * mat_packed_floats(c->d_model, c->heads * (c->d_k + c->d_v)));
    } else {
        for (int h = 0; h < c->heads; h++) m->head[h].wq = m->head[h].wk = m->head[h].wv = NULL;
        m->wo = NULL;
        m->wo_normals = NULL;
        memset(&m->po, 0, sizeof m->po), memset(&m->pq, 0, sizeof m->pq), memset(&m->pkv, 0, sizeof m->pkv);
    }
    p = m->stages_arena;
    for (int h = 0; h < c->heads; h++) {
        HeadData *hd = &m->head[h];
        hd->row_sums = carve(&p, sizeof(double) * nq);
        hd->entropy = carve(&p, sizeof(double) * nq);
        hd->q = carve(&p, f * nq * c->d_k);
        hd->k = carve(&p, f * nk * c->d_k);
        hd->v = carve(&p, f * nk * c->d_v);
        hd->scores = carve(&p, f * nq * nk);
        hd->scaled = carve(&p, f * nq * nk);
        hd->masked = carve(&p, f * nq * nk);
        hd->weights = carve(&p, f * nq * nk);
        hd->max_weight = carve(&p, f * nq);
        hd->out = carve(&p, f * nq * c->d_v);
        hd->pack_k = carve(&p, f * mat_packed_floats(c->d_k, (int)nk));
        hd->pack_v = carve(&p, f * mat_packed_floats((int)nk, c->d_v));
        if (c->score == SCORE_ADDITIVE) {
            hd->w1 = carve(&p, f * c->d_k * c->d_k);
            hd->w2 = carve(&p, f * c->d_k * c->d_k);
            hd->va = carve(&p, f * c->d_k);
            hd->add_a = carve(&p, f * nq * c->d_k);
            hd->add_b = carve(&p, f * nk * c->d_k);
        } else {
            hd->w1 = hd->w2 = hd->va = hd->add_a = hd->add_b = NULL;
        }
    }
    m->n_allowed = carve(&p, sizeof(int) * nq);
    m->allowed = carve(&p, nq * nk);
    m->pad_key = carve(&p, nk);
    if (m->source == SOURCE_TEXT) {
        m->concat = carve(&p, f * nq * c->heads * c->d_v);
        m->y = carve(&p, f * nq * dm);
        m->tq = carve(&p, f * nq * c->heads * c->d_k);
        m->tkv = carve(&p, f * nk * c->heads * (c->d_k + c->d_v));
    } else {
        m->concat = m->y = m->tq = m->tkv = NULL;
    }
}

/* Makes room for configuration c with n_q x n_k tokens from src: the arenas
 * whose shape changes are allocated anew; on failure nothing changes. On
 * success the configuration, sizes and source are the new ones (the caller
 * commits its own tokens or matrices) and m->stale says where to
 * recompute from. */
int model_reshape(Model *m, const ModelConfig *c, int n_q, int n_k, ModelSource src, int q_target, int k_target,
                  AvError *err) {
    const ModelConfig *o = &m->cfg;
    int fresh = !m->stages_arena, src_changed = src != m->source;
    int dims = c->d_model != o->d_model, heads = c->heads != o->heads, dkv = c->d_k != o->d_k || c->d_v != o->d_v;
    int tokens = n_q != m->n_q || n_k != m->n_k;
    int sides = q_target != m->q_target || k_target != m->k_target;
    int additive = (c->score == SCORE_ADDITIVE) != (o->score == SCORE_ADDITIVE);
    int which = 0;
    if (fresh || src_changed || heads) which |= AR_HEADS;
    if (fresh || src_changed || dims || tokens || sides) which |= AR_EMBED;
    if (fresh || src_changed || dims || heads || dkv) which |= AR_WEIGHTS;
    if (fresh || src_changed || dims || heads || dkv || tokens || sides || additive) which |= AR_STAGES;
    if (which & AR_HEADS) which |= AR_WEIGHTS | AR_STAGES; /* their pointers live in the heads */
    if (!which) {
        m->cfg = *c; /* same shapes: nothing to allocate */
        return 0;
    }
    Storage s;
    if (storage_alloc(&s, which, c, n_q, n_k, src, q_target != k_target)) {
        /* Q/K/V from a file have no d_model (cfg keeps the default 64). */
        if (src != SOURCE_TEXT)
            return av_error_nomem(err, "out of memory for Q/K/V of %d x %d tokens, d_k=%d d_v=%d", n_q, n_k, c->d_k,
                                  c->d_v);
        return av_error_nomem(err, "out of memory for d_model=%d heads=%d d_k=%d d_v=%d and %d tokens", c->d_model,
                              c->heads, c->d_k, c->d_v, n_k);
    }
    /* The weights that survive a change of heads, d_k or d_v (prefix
     * stability): copied into the new arena below, so that only new columns
     * and heads are drawn. Their old places, before the arenas move. */
    int keep = (which & AR_WEIGHTS) && m->weights_arena && !m->weights_stale && src == SOURCE_TEXT && !src_changed &&
               c->seed == o->seed && c->d_model == o->d_model;
    int oh = o->heads, odk = o->d_k, odv = o->d_v;
    void *old_weights = m->weights_arena;
    const float **old_w = keep ? malloc(sizeof(float *) * 3 * (size_t)oh) : NULL;
    const double *old_won = m->wo_normals;
    if (keep && !old_w) keep = 0;
    for (int h = 0; keep && h < oh; h++)
        old_w[3 * h] = m->head[h].wq, old_w[3 * h + 1] = m->head[h].wk, old_w[3 * h + 2] = m->head[h].wv;
    if (which & AR_EMBED) free(m->embed_arena), m->embed_arena = s.embed;
    if (which & AR_WEIGHTS) m->weights_arena = s.weights, m->weights_stale = 1;
    if (which & AR_STAGES) free(m->stages_arena), m->stages_arena = s.stages;
    if (which & AR_HEADS) free(m->head), m->head = s.head;
    if (src != SOURCE_TEXT) {
        free(m->embed_arena), free(m->weights_arena);
        m->embed_arena = m->weights_arena = NULL;
    }
    m->cfg = *c;
    m->n_q = n_q;
    m->n_k = n_k;
    m->source = src;
    m->q_target = q_target;
    m->k_target = k_target;
    storage_point(m);
    if (which & AR_WEIGHTS) {
        m->keep_heads = m->keep_dk = m->keep_dv = 0;
        if (keep) {
            int kh = oh < c->heads ? oh : c->heads, kdk = odk < c->d_k ? odk : c->d_k,
                kdv = odv < c->d_v ? odv : c->d_v;
            size_t dm = (size_t)c->d_model;
            for (int h = 0; h < kh; h++) {
                HeadData *hd = &m->head[h];
                for (size_t r = 0; r < dm; r++) {
                    memcpy(hd->wq + r * c->d_k, old_w[3 * h] + r * odk, sizeof(float) * (size_t)kdk);
                    memcpy(hd->wk + r * c->d_k, old_w[3 * h + 1] + r * odk, sizeof(float) * (size_t)kdk);
                    memcpy(hd->wv + r * c->d_v, old_w[3 * h + 2] + r * odv, sizeof(float) * (size_t)kdv);
                }
                for (int col = 0; col < kdv; col++)
                    memcpy(m->wo_normals + ((size_t)h * c->d_v + col) * dm, old_won + ((size_t)h * odv + col) * dm,
                           sizeof(double) * dm);
            }
            m->keep_heads = kh, m->keep_dk = kdk, m->keep_dv = kdv;
        }
        if (old_weights != m->weights_arena) free(old_weights);
    }
    free(old_w);
    /* Everything after a change of shape is recomputed. */
    Stage from = (which & AR_EMBED) ? STAGE_EMBED : STAGE_PROJECT;
    if (m->stale > from) m->stale = from;
    return 0;
}
