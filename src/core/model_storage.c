/* model_storage.c - where the model's matrices live: three arenas (E, PE, X;
 * the weights; the stages), each one allocation, and the reshape that makes
 * room for new shapes all or nothing. */
#include "model_internal.h"

#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "parallel.h"

// ----------------------------------------------------------------------------
// storage: three arenas, each one allocation (llm.c), replaced all or nothing

/* Which arenas a change of shape needs anew. */
enum { AR_EMBED = 1, AR_WEIGHTS = 2, AR_STAGES = 4, AR_HEADS = 8 };

typedef struct {
    void *embed;     /* E, PE, X: n_k x d_model each (SRC_EMBED) */
    void *weights;   /* W_Q, W_K, W_V of every head, W_O (SRC_WEIGHTS) */
    void *stages;    /* per-head stages of every layer, the mask, concat, Y */
    HeadData *heads; /* layers * heads entries */
    size_t stages_bytes, weights_bytes;
} Storage;

/* Bump allocation inside an arena: every piece 16-byte aligned and followed
 * by 320 bytes, so that rows of different matrices (n x n floats, a multiple
 * of 4 KiB) do not all start at the same offset in a page: loads and stores
 * at equal page offsets stall each other (4K aliasing). */
static size_t round16(size_t n) { return ((n + 15) & ~(size_t)15) + 320; }

/* The walk over an arena's pieces: base NULL counts their bytes, an arena's
 * base also carves them. */
typedef struct {
    char *base;  /* the arena, or NULL when counting */
    size_t used; /* bytes of the pieces so far */
} Cursor;

static void *take(Cursor *cur, size_t bytes) {
    void *at = cur->base ? cur->base + cur->used : NULL;
    cur->used += round16(bytes);
    return at;
}

/* One piece of an arena: counted, and when there is an owner (the model or
 * its head: NULL when counting) pointed at from lhs. */
#define PIECE(owner, lhs, bytes)                                                                                       \
    do {                                                                                                               \
        void *at_ = take(&cur, (bytes));                                                                               \
        if (owner) (lhs) = at_;                                                                                        \
    } while (0)

/* The shape the arenas are laid out for. */
typedef struct {
    const ModelConfig *c;
    int n_q, n_k;
    unsigned caps; /* the source's SRC_* */
    int two_sides; /* the queries' sentence is another: its own E, PE, X */
    int room;      /* the stages' pieces are made for max(room, n) rows and keys (model.h) */
} Shape;

/* Each layout walks one arena's list of pieces, once for both uses: with m
 * NULL it returns the bytes the arena needs; with a model it also points m's
 * matrices into base (m->heads allocated for s's layers and heads). */

/* E, PE, X of the keys' sentence, and of the queries' when it is another. */
static size_t layout_embed(Model *m, char *base, const Shape *s) {
    Cursor cur = {base, 0};
    size_t nq = (size_t)s->n_q, nk = (size_t)s->n_k, dm = (size_t)s->c->d_model, f = sizeof(float);
    PIECE(m, m->embed, f * nk * dm); /* (n_k, d_model) */
    PIECE(m, m->pe, f * nk * dm);
    PIECE(m, m->x, f * nk * dm);
    if (s->two_sides) {
        PIECE(m, m->embed_q, f * nq * dm); /* (n_q, d_model) */
        PIECE(m, m->pe_q, f * nq * dm);
        PIECE(m, m->xq, f * nq * dm);
    } else if (m) {
        m->embed_q = m->embed, m->pe_q = m->pe, m->xq = m->x;
    }
    return cur.used;
}

/* W_Q, W_K, W_V of every head, W_O with its unit normals, the packed copies. */
static size_t layout_weights(Model *m, char *base, const Shape *s) {
    const ModelConfig *c = s->c;
    Cursor cur = {base, 0};
    size_t dm = (size_t)c->d_model, f = sizeof(float);
    for (int h = 0; h < c->heads; h++) {
        HeadData *hd = m ? &m->heads[h] : NULL; /* one layer */
        PIECE(hd, hd->wq, f * dm * c->d_k);     /* (d_model, d_k) */
        PIECE(hd, hd->wk, f * dm * c->d_k);
        PIECE(hd, hd->wv, f * dm * c->d_v); /* (d_model, d_v) */
    }
    PIECE(m, m->wo, f * (size_t)c->heads * c->d_v * dm); /* (heads * d_v, d_model) */
    PIECE(m, m->wo_normals, sizeof(double) * (size_t)c->heads * c->d_v * dm);
    /* the packed weights: filled when the weights are drawn */
    if (m) memset(&m->po, 0, sizeof m->po), memset(&m->pq, 0, sizeof m->pq), memset(&m->pkv, 0, sizeof m->pkv);
    PIECE(m, m->po.data, f * mat_packed_floats(c->heads * c->d_v, c->d_model));
    PIECE(m, m->pq.data, f * mat_packed_floats(c->d_model, c->heads * c->d_k));
    PIECE(m, m->pkv.data, f * mat_packed_floats(c->d_model, c->heads * (c->d_k + c->d_v)));
    return cur.used;
}

/* The stages of every head of every layer, the mask, and (with weights) the
 * products before they are split into heads, concat and Y. */
static size_t layout_stages(Model *m, char *base, const Shape *s) {
    const ModelConfig *c = s->c;
    Cursor cur = {base, 0};
    /* pieces of room rows: a sentence that grows into it keeps its place */
    int rq = s->room > s->n_q ? s->room : s->n_q, rk = s->room > s->n_k ? s->room : s->n_k;
    size_t nq = (size_t)rq, nk = (size_t)rk, dm = (size_t)c->d_model, f = sizeof(float);
    for (int h = 0; h < c->layers * c->heads; h++) {
        HeadData *hd = m ? &m->heads[h] : NULL;
        PIECE(hd, hd->row_sums, sizeof(double) * nq); /* (n_q) */
        PIECE(hd, hd->entropy, sizeof(double) * nq);
        PIECE(hd, hd->q, f * nq * c->d_k);  /* (n_q, d_k) */
        PIECE(hd, hd->k, f * nk * c->d_k);  /* (n_k, d_k) */
        PIECE(hd, hd->v, f * nk * c->d_v);  /* (n_k, d_v) */
        PIECE(hd, hd->scores, f * nq * nk); /* (n_q, n_k) */
        PIECE(hd, hd->scaled, f * nq * nk);
        PIECE(hd, hd->masked, f * nq * nk);
        PIECE(hd, hd->weights, f * nq * nk);
        PIECE(hd, hd->max_weight, f * nq);
        PIECE(hd, hd->out, f * nq * c->d_v); /* (n_q, d_v) */
        PIECE(hd, hd->pack_k, f * mat_packed_floats(c->d_k, rk));
        PIECE(hd, hd->pack_v, f * mat_packed_floats(rk, c->d_v));
        if (c->score == SCORE_ADDITIVE) {
            PIECE(hd, hd->w1, f * c->d_k * c->d_k); /* (d_k, d_k) */
            PIECE(hd, hd->w2, f * c->d_k * c->d_k);
            PIECE(hd, hd->va, f * c->d_k);                      /* (d_k) */
            PIECE(hd, hd->add_a, sizeof(double) * nq * c->d_k); /* (n_q, d_k) */
            PIECE(hd, hd->add_b, sizeof(double) * nk * c->d_k); /* (n_k, d_k) */
        } else if (hd) {
            hd->w1 = hd->w2 = hd->va = NULL;
            hd->add_a = hd->add_b = NULL;
        }
    }
    PIECE(m, m->n_allowed, sizeof(int) * nq); /* (n_q) */
    PIECE(m, m->keys_end, sizeof(int) * nq);  /* (n_q) */
    PIECE(m, m->allowed, nq * nk);            /* (n_q, n_k) */
    PIECE(m, m->pad_key, nk);                 /* (n_k) */
    if (s->caps & SRC_WEIGHTS) {
        PIECE(m, m->concat, f * nq * c->heads * c->d_v);         /* (n_q, heads * d_v) */
        PIECE(m, m->y, f * nq * dm);                             /* (n_q, d_model) */
        PIECE(m, m->tq, f * nq * c->heads * c->d_k);             /* (n_q, heads * d_k) */
        PIECE(m, m->tkv, f * nk * c->heads * (c->d_k + c->d_v)); /* (n_k, heads * (d_k + d_v)) */
    } else if (m) {
        m->concat = m->y = m->tq = m->tkv = NULL;
    }
    return cur.used;
}

#undef PIECE

size_t model_embed_bytes(const ModelConfig *c, int n_q, int n_k, int two_sides) {
    Shape s = {c, n_q, n_k, SRC_EMBED, two_sides, 0};
    return layout_embed(NULL, NULL, &s);
}

size_t model_weights_bytes(const ModelConfig *c) {
    Shape s = {c, 0, 0, SRC_WEIGHTS, 0, 0};
    return layout_weights(NULL, NULL, &s);
}

size_t model_stages_bytes(const ModelConfig *c, int n_q, int n_k, const Source *src) {
    Shape s = {c, n_q, n_k, src->caps, 0, 0};
    return layout_stages(NULL, NULL, &s);
}

static void storage_free(Storage *s) {
    free(s->embed), free(s->weights), free(s->stages), free(s->heads);
    memset(s, 0, sizeof *s);
}

/* Allocates the arenas named in `which` for shape sh; all or nothing. */
static int storage_alloc(Storage *s, int which, const Shape *sh, Model *m) {
    memset(s, 0, sizeof *s);
    int embed = (sh->caps & SRC_EMBED) != 0, weights = (sh->caps & SRC_WEIGHTS) != 0;
    if ((which & AR_EMBED) && embed) s->embed = calloc(1, layout_embed(NULL, NULL, sh) + 16);
    /* every weight is drawn, copied or packed before it is read: no need to
     * zero; the arena of the shape before the last one is taken again when
     * the new weights fit in it (d_k doubled then halved: no fresh pages) */
    if ((which & AR_WEIGHTS) && weights) {
        size_t need = layout_weights(NULL, NULL, sh) + 16;
        if (m->weights_spare && need <= m->weights_spare_cap && need >= m->weights_spare_cap / 4) {
            s->weights = m->weights_spare, s->weights_bytes = m->weights_spare_cap;
            m->weights_spare = NULL, m->weights_spare_cap = 0; /* a failure below frees it */
        } else {
            s->weights = malloc(need), s->weights_bytes = need;
        }
    }
    if (which & AR_STAGES) s->stages = calloc(1, s->stages_bytes = layout_stages(NULL, NULL, sh) + 16);
    if (which & AR_HEADS) s->heads = calloc((size_t)sh->c->layers * (size_t)sh->c->heads, sizeof *s->heads);
    if (((which & AR_EMBED) && embed && !s->embed) || ((which & AR_WEIGHTS) && weights && !s->weights) ||
        ((which & AR_STAGES) && !s->stages) || ((which & AR_HEADS) && !s->heads)) {
        storage_free(s);
        return -1;
    }
    return 0;
}

/* Points the model's matrices into its arenas (after a change of shape), by
 * the same layouts that counted their bytes. */
static void storage_point(Model *m) {
    Shape s = {&m->cfg, m->n_q, m->n_k, m->src->caps, m->q_target != m->k_target, m->room};
    if (m->embed_arena) layout_embed(m, m->embed_arena, &s);
    else m->embed = m->pe = m->x = m->embed_q = m->pe_q = m->xq = NULL;
    if (m->weights_arena) {
        layout_weights(m, m->weights_arena, &s);
    } else {
        for (int h = 0; h < m->cfg.layers * m->cfg.heads; h++) m->heads[h].wq = m->heads[h].wk = m->heads[h].wv = NULL;
        m->wo = NULL;
        m->wo_normals = NULL;
        memset(&m->po, 0, sizeof m->po), memset(&m->pq, 0, sizeof m->pq), memset(&m->pkv, 0, sizeof m->pkv);
    }
    layout_stages(m, m->stages_arena, &s);
}

/* Makes room for configuration c with n_q x n_k tokens from src: the arenas
 * whose shape changes are allocated anew; on failure nothing changes. On
 * success the configuration, sizes and source are the new ones (the caller
 * commits its own tokens or matrices) and m->stale says where to
 * recompute from. */
int model_reshape(Model *m, const ModelConfig *c, int n_q, int n_k, const Source *src, int q_target, int k_target,
                  AvError *err) {
    /* the same tokens keep the room they had; other tokens have none */
    int room = n_q == m->n_q && n_k == m->n_k ? m->room : 0;
    return model_reshape_room(m, c, n_q, n_k, room, src, q_target, k_target, err);
}

/* The arenas (AR_*) whose shape a change to configuration c, n_q x n_k
 * tokens (room: room, 0 or more than both) from src changes; 0 when every
 * shape stays. */
static int reshape_arenas(const Model *m, const ModelConfig *c, int n_q, int n_k, int room, const Source *src,
                          int q_target, int k_target) {
    const ModelConfig *o = &m->cfg;
    int fresh = !m->stages_arena, src_changed = src != m->src;
    int dims = c->d_model != o->d_model, heads = c->heads != o->heads || c->layers != o->layers,
        dkv = c->d_k != o->d_k || c->d_v != o->d_v;
    int tokens = n_q != m->n_q || n_k != m->n_k || room != m->room;
    int sides = q_target != m->q_target || k_target != m->k_target;
    int additive = (c->score == SCORE_ADDITIVE) != (o->score == SCORE_ADDITIVE);
    int which = 0;
    if (fresh || src_changed || heads) which |= AR_HEADS;
    if (fresh || src_changed || dims || tokens || sides) which |= AR_EMBED;
    if (fresh || src_changed || dims || heads || dkv) which |= AR_WEIGHTS;
    if (fresh || src_changed || dims || heads || dkv || tokens || sides || additive) which |= AR_STAGES;
    if (which & AR_HEADS) which |= AR_WEIGHTS | AR_STAGES; /* their pointers live in the heads */
    return which;
}

/* The weights that survive a change of heads, d_k or d_v (prefix
 * stability), copied from their old places into the new arena (m->cfg is
 * the new configuration): old_w holds wq, wk, wv of each of the oh old
 * heads, odk and odv wide, old_won their W_O normals. Sets m->keep_*. */
static void reshape_keep_weights(Model *m, const float *const *old_w, const double *old_won, int oh, int odk, int odv) {
    const ModelConfig *c = &m->cfg;
    int kh = oh < c->heads ? oh : c->heads, kdk = odk < c->d_k ? odk : c->d_k, kdv = odv < c->d_v ? odv : c->d_v;
    size_t dm = (size_t)c->d_model;
    for (int h = 0; h < kh; h++) {
        HeadData *hd = &m->heads[h];
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

/* The weights arena a reshape replaced: kept as the spare for the next one,
 * up to 128 MB, else freed. */
static void reshape_spare(Model *m, void *old_weights, size_t old_weights_cap) {
    free(m->weights_spare);
    m->weights_spare = NULL, m->weights_spare_cap = 0;
    if (old_weights && old_weights_cap <= ((size_t)128 << 20))
        m->weights_spare = old_weights, m->weights_spare_cap = old_weights_cap;
    else free(old_weights);
}

int model_reshape_room(Model *m, const ModelConfig *c, int n_q, int n_k, int room, const Source *src, int q_target,
                       int k_target, AvError *err) {
    const ModelConfig *o = &m->cfg;
    int src_changed = src != m->src;
    if (room <= n_q || room <= n_k) room = 0;
    int which = reshape_arenas(m, c, n_q, n_k, room, src, q_target, k_target), reuse_stages = 0;
    if (!which) {
        m->cfg = *c; /* same shapes: nothing to allocate */
        return 0;
    }
    Storage s;
    Shape sh = {c, n_q, n_k, src->caps, q_target != k_target, room};
    /* The stages arena is kept when the new shape fits in it and uses at
     * least a quarter of it: a change of d_k or of the sentence then costs
     * no fresh pages (for 1024 tokens and 12 heads the arena is about 200 MB,
     * whose page faults and zeroing took longer than the recompute). Every
     * stage is written before it is read (the whole model is stale after a
     * reshape); the sanitizer build fills a kept arena with NaNs to prove it. */
    if (which & AR_STAGES) {
        size_t need = layout_stages(NULL, NULL, &sh) + 16;
        if (m->stages_arena && need <= m->stages_cap && need >= m->stages_cap / 4) {
            reuse_stages = 1;
            which &= ~AR_STAGES;
        }
    }
    if (storage_alloc(&s, which, &sh, m)) {
        /* Q/K/V without embeddings have no d_model (cfg keeps the default 64). */
        if (!(src->caps & SRC_EMBED))
            return av_error_nomem(err, _("out of memory for Q/K/V of %d x %d tokens, d_k=%d d_v=%d"), n_q, n_k, c->d_k,
                                  c->d_v);
        return av_error_nomem(err, _("out of memory for d_model=%d heads=%d d_k=%d d_v=%d and %d tokens"), c->d_model,
                              c->heads, c->d_k, c->d_v, n_k);
    }
    /* The weights that survive a change of heads, d_k or d_v (prefix
     * stability): copied into the new arena below, so that only new columns
     * and heads are drawn. Their old places, before the arenas move. */
    int keep = (which & AR_WEIGHTS) && m->weights_arena && !m->weights_stale && (src->caps & SRC_WEIGHTS) &&
               !src_changed && c->seed == o->seed && c->d_model == o->d_model;
    int oh = o->heads, odk = o->d_k, odv = o->d_v;
    void *old_weights = m->weights_arena;
    const float **old_w = keep ? malloc(sizeof(float *) * 3 * (size_t)oh) : NULL;
    const double *old_won = m->wo_normals;
    if (keep && !old_w) keep = 0;
    for (int h = 0; keep && h < oh; h++)
        old_w[3 * h] = m->heads[h].wq, old_w[3 * h + 1] = m->heads[h].wk, old_w[3 * h + 2] = m->heads[h].wv;
    if (which & AR_EMBED) free(m->embed_arena), m->embed_arena = s.embed;
    size_t old_weights_cap = m->weights_cap;
    if (which & AR_WEIGHTS) m->weights_arena = s.weights, m->weights_cap = s.weights_bytes, m->weights_stale = 1;
    if (which & AR_STAGES)
        free(m->stages_arena), m->stages_arena = s.stages, m->stages_cap = s.stages_bytes, m->additive_stale = 1;
    if (reuse_stages) {
        m->additive_stale = 1;
#if defined(__SANITIZE_ADDRESS__)
        memset(m->stages_arena, 0xFF, m->stages_cap);
#endif
    }
    if (which & AR_HEADS) free(m->heads), m->heads = s.heads;
    if (!(src->caps & SRC_EMBED)) free(m->embed_arena), m->embed_arena = NULL;
    if (!(src->caps & SRC_WEIGHTS)) free(m->weights_arena), m->weights_arena = NULL, m->weights_cap = 0;
    m->cfg = *c;
    m->n_q = n_q;
    m->n_k = n_k;
    m->room = room;
    m->src = src;
    m->q_target = q_target;
    m->k_target = k_target;
    if (m->layer >= c->layers) m->layer = c->layers - 1;
    m->head = model_layer_heads(m, m->layer);
    storage_point(m);
    if (which & AR_WEIGHTS) {
        m->keep_heads = m->keep_dk = m->keep_dv = 0;
        if (keep) reshape_keep_weights(m, old_w, old_won, oh, odk, odv);
        if (old_weights != m->weights_arena) reshape_spare(m, old_weights, old_weights_cap);
    }
    free(old_w);
    /* Everything after a change of shape is recomputed. */
    model_mark_stale(m, (which & AR_EMBED) ? STAGE_EMBED : STAGE_PROJECT);
    return 0;
}

/* Rows [0, keep) of an (n, n) stage in place as rows of an (n2, n2) one:
 * row i's first keep floats move from i * n to i * n2 (from the last row
 * when the rows grow, from the first when they shrink). */
static void restride(float *x, int n, int n2, int keep) {
    if (n2 > n)
        for (int i = keep - 1; i >= 1; i--) memmove(x + (size_t)i * n2, x + (size_t)i * n, sizeof(float) * keep);
    else if (n2 < n)
        for (int i = 1; i < keep; i++) memmove(x + (size_t)i * n2, x + (size_t)i * n, sizeof(float) * keep);
}

typedef struct {
    Model *m;
    int n, keep;
} Resize;

static void resize_head_task(void *ctx, int h) {
    const Resize *r = ctx;
    HeadData *hd = &r->m->heads[h];
    float *stages[] = {hd->scores, hd->scaled, hd->masked, hd->weights};
    for (size_t s = 0; s < sizeof stages / sizeof *stages; s++) restride(stages[s], r->m->n_k, r->n, r->keep);
}

int model_resize_rows(Model *m, int n, int keep, AvError *err) {
    int room = m->room > m->n_q ? m->room : m->n_q;
    if (m->q_target || m->k_target || m->n_q != m->n_k || n < 1 || n > room || keep < 0 || keep > n || keep > m->n_q)
        return av_errorf(err, _("%d rows keeping %d: the stages hold %d of room %d"), n, keep, m->n_q, room);
    if (model_check_budget(&m->cfg, n, n, m->src, err)) return -1;
    if (keep > 0 && n != m->n_k) {
        Resize r = {m, n, keep};
        par_for(m->cfg.layers * m->cfg.heads, resize_head_task, &r);
    }
    m->room = room > n ? room : 0;
    m->n_q = m->n_k = n;
    storage_point(m);
    model_mark_stale(m, STAGE_PROJECT);
    m->keep_rows = keep;
    return 0;
}
