/* model.c - configuration, seeded weights, the stage cache and the forward
 * pass of one attention layer. See model.h for the pipeline and DESIGN.md §2
 * for every numeric choice made here. */
#include "model.h"

#include "cancel.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parallel.h"
#include "rng.h"
#include "rowops.h"

// ----------------------------------------------------------------------------
// names

static const char *const pos_names[POS_KIND_COUNT] = {"none", "sinusoidal"};

const char *pos_name(PosKind p) { return (unsigned)p < POS_KIND_COUNT ? pos_names[p] : "?"; }

int pos_parse(const char *s, PosKind *out, AvError *err) {
    for (int p = 0; p < POS_KIND_COUNT; p++)
        if (strcmp(s, pos_names[p]) == 0) {
            *out = (PosKind)p;
            return 0;
        }
    return av_errorf(err, "unknown positional encoding '%s' (expected none or sinusoidal)", s);
}

static const char *const attn_names[ATTN_MODE_COUNT] = {"self", "causal-self", "cross"};

const char *attn_mode_name(AttnMode a) { return (unsigned)a < ATTN_MODE_COUNT ? attn_names[a] : "?"; }

int attn_mode_parse(const char *s, AttnMode *out, AvError *err) {
    for (int a = 0; a < ATTN_MODE_COUNT; a++)
        if (strcmp(s, attn_names[a]) == 0) {
            *out = (AttnMode)a;
            return 0;
        }
    return av_errorf(err, "unknown attention '%s' (expected self, causal-self or cross)", s);
}

const char *score_name(ScoreKind k, int scale) {
    switch (k) {
    case SCORE_DOT: return scale ? "scaled" : "dot";
    case SCORE_COSINE: return "cosine";
    case SCORE_DISTANCE: return "distance";
    case SCORE_ADDITIVE: return "additive";
    default: return "?";
    }
}

int score_parse(const char *s, ScoreKind *kind, int *scale, AvError *err) {
    if (strcmp(s, "scaled") == 0) *kind = SCORE_DOT, *scale = 1;
    else if (strcmp(s, "dot") == 0) *kind = SCORE_DOT, *scale = 0;
    else if (strcmp(s, "cosine") == 0) *kind = SCORE_COSINE;
    else if (strcmp(s, "distance") == 0) *kind = SCORE_DISTANCE;
    else if (strcmp(s, "additive") == 0) *kind = SCORE_ADDITIVE;
    else return av_errorf(err, "unknown score '%s' (expected dot, scaled, cosine, distance or additive)", s);
    return 0;
}

void model_mask_name(const ModelConfig *c, char *buf, size_t cap) {
    mask_format(buf, cap, c->mask, c->window, c->prefix);
}

static const char *const stage_names[STAGE_COUNT] = {"embed",  "project", "scores", "scaled",
                                                     "masked", "weights", "output", "final"};

const char *stage_name(Stage s) { return (unsigned)s < STAGE_COUNT ? stage_names[s] : "none"; }

// ----------------------------------------------------------------------------
// configuration

void model_config_default(ModelConfig *c) {
    c->d_model = 64;
    c->heads = 4;
    c->d_k = 16;
    c->d_v = 16;
    c->seed = 42;
    c->mask = MASK_NONE;
    c->window = 3;
    c->prefix = 2;
    c->scale = 1;
    c->pos = POS_NONE;
    c->score = SCORE_DOT;
    c->tie_qk = 0;
    c->attn = ATTN_SELF;
}

int model_config_check(const ModelConfig *c, AvError *err) {
    if (c->d_model < 1 || c->d_model > MODEL_MAX_DIM)
        return av_errorf(err, "d_model %d is out of range 1..%d", c->d_model, MODEL_MAX_DIM);
    if (c->heads < 1 || c->heads > MODEL_MAX_HEADS)
        return av_errorf(err, "heads %d is out of range 1..%d", c->heads, MODEL_MAX_HEADS);
    if (c->d_k < 1 || c->d_k > MODEL_MAX_DIM)
        return av_errorf(err, "d_k %d is out of range 1..%d", c->d_k, MODEL_MAX_DIM);
    if (c->d_v < 1 || c->d_v > MODEL_MAX_DIM)
        return av_errorf(err, "d_v %d is out of range 1..%d", c->d_v, MODEL_MAX_DIM);
    if ((unsigned)c->mask >= MASK_KIND_COUNT) return av_errorf(err, "unknown mask kind");
    if (c->window < 1 || c->window > MASK_MAX_PARAM)
        return av_errorf(err, "window %d is out of range 1..%d", c->window, MASK_MAX_PARAM);
    if (c->prefix < 0 || c->prefix > MASK_MAX_PARAM)
        return av_errorf(err, "prefix %d is out of range 0..%d", c->prefix, MASK_MAX_PARAM);
    if ((unsigned)c->pos >= POS_KIND_COUNT) return av_errorf(err, "unknown positional encoding");
    if ((unsigned)c->score >= SCORE_KIND_COUNT) return av_errorf(err, "unknown score kind");
    if ((unsigned)c->attn >= ATTN_MODE_COUNT) return av_errorf(err, "unknown attention mode");
    return 0;
}

static size_t embed_bytes(const ModelConfig *c, int n_q, int n_k, int two_sides);
static size_t weights_bytes(const ModelConfig *c);
static size_t stages_bytes(const ModelConfig *c, int n_q, int n_k, ModelSource src);

int model_check_budget(const ModelConfig *c, int n_q, int n_k, ModelSource src, AvError *err) {
    int64_t h = c->heads, dm = c->d_model, dk = c->d_k, dv = c->d_v;
    int64_t cells = (int64_t)n_q * n_k * h;
    if (cells > MODEL_MAX_CELLS)
        return av_errorf(err,
                         "too large: %d x %d tokens x %d heads = %lld attention cells, the "
                         "limit is %lld (use fewer heads or a shorter text)",
                         n_q, n_k, c->heads, (long long)cells, (long long)MODEL_MAX_CELLS);
    int64_t floats = h * ((int64_t)n_q * dk + (int64_t)n_k * (dk + dv) + (int64_t)n_q * dv);
    if (src == SOURCE_TEXT)
        floats += 3 * (int64_t)n_k * dm + h * dm * (2 * dk + dv) + h * dv * dm + (int64_t)n_q * (h * dv + dm);
    int64_t bytes = floats * 4;
    /* What the arenas really take (packed copies, the products before they are
     * split into heads, W_O's normals in double, padding), less the four
     * (n_q, n_k) stages that MODEL_MAX_CELLS budgets. */
    int64_t arenas = (int64_t)stages_bytes(c, n_q, n_k, src) - cells * 16;
    if (src == SOURCE_TEXT) arenas += (int64_t)embed_bytes(c, n_q, n_k, 1) + (int64_t)weights_bytes(c);
    if (arenas > bytes) bytes = arenas;
    char tokens[48] = "";
    if (n_k > 0) snprintf(tokens, sizeof tokens, " and %d tokens", n_k);
    if (bytes > MODEL_MAX_BYTES)
        return av_errorf(err,
                         "too large: d_model=%d heads=%d d_k=%d d_v=%d%s need %lld MiB of "
                         "weights and stages, the limit is %lld MiB",
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
    if (src == SOURCE_TEXT)
        ops += h * (int64_t)n_k * dm * (2 * dk + dv) + (int64_t)n_q * h * dv * dm +
               normal * (h * dm * (2 * dk + dv) + h * dv * dm + (int64_t)(n_q + n_k) * dm);
    if (ops > MODEL_MAX_OPS)
        return av_errorf(err,
                         "too slow: d_model=%d heads=%d d_k=%d d_v=%d%s need %lld million "
                         "multiply-adds a pass, the limit is %lld million",
                         c->d_model, c->heads, c->d_k, c->d_v, tokens, (long long)(ops / 1000000),
                         (long long)(MODEL_MAX_OPS / 1000000));
    return 0;
}

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
static size_t embed_bytes(const ModelConfig *c, int n_q, int n_k, int two_sides) {
    size_t b = 3 * round16(sizeof(float) * (size_t)n_k * c->d_model);
    if (two_sides) b += 3 * round16(sizeof(float) * (size_t)n_q * c->d_model);
    return b;
}

static size_t weights_bytes(const ModelConfig *c) {
    size_t dm = (size_t)c->d_model, f = sizeof(float);
    size_t per_head = 2 * round16(f * dm * c->d_k) + round16(f * dm * c->d_v);
    return (size_t)c->heads * per_head + round16(f * (size_t)c->heads * c->d_v * dm) +
           round16(sizeof(double) * (size_t)c->heads * c->d_v * dm) +
           round16(f * mat_packed_floats(c->heads * c->d_v, c->d_model)) +
           round16(f * mat_packed_floats(c->d_model, c->heads * c->d_k)) +
           round16(f * mat_packed_floats(c->d_model, c->heads * (c->d_k + c->d_v)));
}

static size_t stages_bytes(const ModelConfig *c, int n_q, int n_k, ModelSource src) {
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
    if ((which & AR_EMBED) && text) s->embed = calloc(1, embed_bytes(c, n_q, n_k, two_sides) + 16);
    /* every weight is drawn, copied or packed before it is read: no need to zero */
    if ((which & AR_WEIGHTS) && text) s->weights = malloc(weights_bytes(c) + 16);
    if (which & AR_STAGES) s->stages = calloc(1, stages_bytes(c, n_q, n_k, src) + 16);
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
 * commits its own tokens or matrices) and *stale_from says where to
 * recompute from. */
static int reshape(Model *m, const ModelConfig *c, int n_q, int n_k, ModelSource src, int q_target, int k_target,
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

// ----------------------------------------------------------------------------
// life cycle

Model *model_new(void) {
    Model *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    model_config_default(&m->cfg);
    m->source = SOURCE_TEXT;
    m->text = calloc(1, 1);
    m->tokenizer = tok_new(TOK_WORDS, NULL, NULL);
    m->stale = STAGE_EMBED;
    m->weights_stale = 1;
    ModelConfig c = m->cfg;
    if (!m->text || !m->tokenizer || reshape(m, &c, 0, 0, SOURCE_TEXT, 0, 0, NULL)) {
        model_free(m);
        return NULL;
    }
    return m;
}

void model_free(Model *m) {
    if (!m) return;
    free(m->embed_arena), free(m->weights_arena), free(m->stages_arena), free(m->head);
    free(m->text);
    tok_free(m->tokenizer);
    tok_list_free(&m->tokens);
    free(m->target);
    tok_list_free(&m->target_tokens);
    free(m->painted);
    qkv_free(&m->qkv);
    free(m);
}

static void mark_stale(Model *m, Stage s) {
    if (s < m->stale) m->stale = s;
}

void model_invalidate(Model *m, Stage s) { mark_stale(m, s); }

// ----------------------------------------------------------------------------
// the sentences on each side

/* Which sentence the queries and the keys come from, for a configuration:
 * self: the sentence; causal-self: the target (when there is one); cross:
 * queries from the target, keys from the sentence. */
static void sides_for(const Model *m, AttnMode attn, int have_target, int *q_target, int *k_target) {
    *q_target = *k_target = 0;
    if (m->source != SOURCE_TEXT || !have_target) return;
    if (attn == ATTN_CAUSAL_SELF) *q_target = *k_target = 1;
    if (attn == ATTN_CROSS) *q_target = 1;
}

/* Tokens on a side: the target's, or the sentence's plus the <pad> tokens. */
static int side_count(const TokenList *sentence, int n_pad, const TokenList *target, int is_target) {
    return is_target ? target->n : sentence->n + n_pad;
}

static const char pad_text[] = "<pad>";

/* Token t of a side: its text, length and vocabulary id. */
static const char *side_token(const Model *m, int is_target, int t, size_t *len, int *id) {
    const TokenList *l = is_target ? &m->target_tokens : &m->tokens;
    if (t >= l->n) { /* a <pad> token: one id after the sentence's vocabulary */
        *len = sizeof pad_text - 1;
        if (id) *id = l->vocab;
        return pad_text;
    }
    *len = l->tok[t].len;
    if (id) *id = l->tok[t].id;
    return l->tok[t].text;
}

/* Makes room for a configuration with the current sentences and <pad>s. */
static int reshape_sides(Model *m, const ModelConfig *c, const TokenList *sentence, int n_pad, const TokenList *target,
                         int have_target, AvError *err) {
    int qt, kt;
    sides_for(m, c->attn, have_target, &qt, &kt);
    int n_q = side_count(sentence, n_pad, target, qt), n_k = side_count(sentence, n_pad, target, kt);
    if (model_check_budget(c, n_q, n_k, m->source, err)) return -1;
    return reshape(m, c, n_q, n_k, m->source, qt, kt, err);
}

// ----------------------------------------------------------------------------
// setters: validate, make room, then commit; a failure changes nothing

int model_set_config(Model *m, const ModelConfig *c, AvError *err) {
    if (model_config_check(c, err)) return -1;
    ModelConfig o = m->cfg;
    if (m->source == SOURCE_QKV) {
        if (c->d_model != o.d_model || c->heads != o.heads || c->d_k != o.d_k || c->d_v != o.d_v || c->seed != o.seed ||
            c->pos != o.pos)
            return av_errorf(err, "Q, K and V come from a file: only the mask and the "
                                  "scaling can change");
    }
    if (c->attn == ATTN_CROSS && !m->target)
        return av_errorf(err, "cross-attention needs a target sentence: --target TEXT, or E to type one");
    if (m->source == SOURCE_QKV && c->score == SCORE_ADDITIVE) {
        /* the additive weights are seeded: fine for a file too */
    }
    if (m->source == SOURCE_QKV) {
        if (model_check_budget(c, m->n_q, m->n_k, m->source, err)) return -1;
        if (reshape(m, c, m->n_q, m->n_k, m->source, 0, 0, err)) return -1;
    } else if (reshape_sides(m, c, &m->tokens, m->n_pad, &m->target_tokens, m->target != NULL, err)) {
        return -1;
    }
    if (c->seed != o.seed || c->d_model != o.d_model) {
        mark_stale(m, STAGE_EMBED);
        m->weights_stale = 1;
        m->keep_heads = m->keep_dk = m->keep_dv = 0; /* other numbers everywhere */
    }
    if (c->pos != o.pos) mark_stale(m, STAGE_EMBED);
    if (c->heads != o.heads || c->d_k != o.d_k || c->d_v != o.d_v) {
        mark_stale(m, STAGE_PROJECT);
        m->weights_stale = 1;
    }
    if (c->tie_qk != o.tie_qk) mark_stale(m, STAGE_PROJECT);
    if (c->attn != o.attn) mark_stale(m, STAGE_EMBED);
    if (c->score != o.score) mark_stale(m, STAGE_SCORES);
    if (c->scale != o.scale) mark_stale(m, STAGE_SCALED);
    if (c->mask != o.mask || c->window != o.window || c->prefix != o.prefix) mark_stale(m, STAGE_MASKED);
    return 0;
}

/* Tokenizes text with t into a new list; checks the limits and makes room. On
 * success the model has its new sizes; the caller commits the list. */
static int tokenize_and_reshape(Model *m, Tokenizer *t, const char *text, size_t len, TokenList *out, AvError *err) {
    if (tok_split(t, text, len, TOK_MAX_TOKENS - m->n_pad, out, err)) return -1;
    ModelConfig c = m->cfg;
    if (reshape_sides(m, &c, out, m->n_pad, &m->target_tokens, m->target != NULL, err)) {
        tok_list_free(out);
        return -1;
    }
    return 0;
}

static void take_tokens(Model *m, TokenList *list) {
    tok_list_free(&m->tokens);
    m->tokens = *list;
    memset(list, 0, sizeof *list);
    mark_stale(m, STAGE_EMBED);
}

int model_set_text(Model *m, const char *text, size_t len, AvError *err) {
    if (m->source != SOURCE_TEXT) return av_errorf(err, "Q, K and V come from a file: there is no sentence to change");
    char *copy = malloc(len + 1);
    if (!copy) return av_error_nomem(err, "out of memory");
    memcpy(copy, text, len);
    copy[len] = '\0';
    TokenList list = {0};
    if (tokenize_and_reshape(m, m->tokenizer, text, len, &list, err)) {
        free(copy);
        return -1;
    }
    free(m->text);
    m->text = copy;
    m->text_len = len;
    take_tokens(m, &list);
    return 0;
}

int model_set_tokenizer(Model *m, TokPreset preset, const char *pattern, AvError *err) {
    if (m->source != SOURCE_TEXT)
        return av_errorf(err, "Q, K and V come from a file: there is no sentence to tokenize");
    Tokenizer *t = tok_new(preset, pattern, err);
    if (!t) return -1;
    TokenList list = {0}, tlist = {0};
    if (m->target && tok_split(t, m->target, m->target_len, TOK_MAX_TOKENS, &tlist, err)) {
        tok_free(t);
        return av_error_prefix(err, "target");
    }
    ModelConfig c = m->cfg;
    if (tok_split(t, m->text, m->text_len, TOK_MAX_TOKENS - m->n_pad, &list, err) ||
        reshape_sides(m, &c, &list, m->n_pad, &tlist, m->target != NULL, err)) {
        tok_list_free(&list);
        tok_list_free(&tlist);
        tok_free(t);
        return -1;
    }
    tok_free(m->tokenizer);
    m->tokenizer = t;
    tok_list_free(&m->target_tokens);
    m->target_tokens = tlist;
    take_tokens(m, &list);
    return 0;
}

int model_set_qkv(Model *m, QkvData *d, AvError *err) {
    ModelConfig c = m->cfg;
    c.heads = 1;
    c.d_k = d->d_k;
    c.d_v = d->d_v;
    c.pos = POS_NONE;
    if (model_config_check(&c, err)) return -1;
    c.attn = ATTN_SELF;
    c.tie_qk = 0;
    if (model_check_budget(&c, d->n_q, d->n_k, SOURCE_QKV, err)) return -1;
    if (reshape(m, &c, d->n_q, d->n_k, SOURCE_QKV, 0, 0, err)) return -1;
    qkv_free(&m->qkv);
    m->qkv = *d;
    memset(d, 0, sizeof *d);
    tok_list_free(&m->tokens);
    m->stale = STAGE_PROJECT;
    m->weights_stale = 0;
    return 0;
}

int model_set_target(Model *m, const char *text, size_t len, AvError *err) {
    if (m->source != SOURCE_TEXT) return av_errorf(err, "Q, K and V come from a file: there is no target sentence");
    ModelConfig c = m->cfg;
    if (!text) {
        if (c.attn == ATTN_CROSS) c.attn = ATTN_SELF;
        TokenList none = {0};
        if (reshape_sides(m, &c, &m->tokens, m->n_pad, &none, 0, err)) return -1;
        free(m->target);
        m->target = NULL;
        m->target_len = 0;
        tok_list_free(&m->target_tokens);
        mark_stale(m, STAGE_EMBED);
        return 0;
    }
    char *copy = malloc(len + 1);
    if (!copy) return av_error_nomem(err, "out of memory");
    memcpy(copy, text, len);
    copy[len] = '\0';
    TokenList list = {0};
    if (tok_split(m->tokenizer, text, len, TOK_MAX_TOKENS, &list, err)) {
        free(copy);
        return av_error_prefix(err, "target");
    }
    if (reshape_sides(m, &c, &m->tokens, m->n_pad, &list, 1, err)) {
        tok_list_free(&list);
        free(copy);
        return -1;
    }
    free(m->target);
    m->target = copy;
    m->target_len = len;
    tok_list_free(&m->target_tokens);
    m->target_tokens = list;
    mark_stale(m, STAGE_EMBED);
    return 0;
}

int model_set_pad(Model *m, int n, AvError *err) {
    if (m->source != SOURCE_TEXT) return av_errorf(err, "Q, K and V come from a file: there is no sentence to pad");
    if (n < 0 || m->tokens.n + n > TOK_MAX_TOKENS)
        return av_errorf(err, "pad %d: the sentence's %d tokens and the pads must stay within %d", n, m->tokens.n,
                         TOK_MAX_TOKENS);
    ModelConfig c = m->cfg;
    if (reshape_sides(m, &c, &m->tokens, n, &m->target_tokens, m->target != NULL, err)) return -1;
    m->n_pad = n;
    mark_stale(m, STAGE_EMBED);
    return 0;
}

int model_painted_at(const Model *m, int i, int j) {
    if (!m->painted || i >= m->painted_q || j >= m->painted_k) return 1;
    return m->painted[(size_t)i * m->painted_k + j];
}

/* Makes the painted grid as big as the attention, keeping what was painted. */
static int paint_grow(Model *m) {
    if (m->painted && m->painted_q >= m->n_q && m->painted_k >= m->n_k) return 0;
    int nq = m->n_q > m->painted_q ? m->n_q : m->painted_q, nk = m->n_k > m->painted_k ? m->n_k : m->painted_k;
    unsigned char *g = malloc((size_t)(nq ? nq : 1) * (size_t)(nk ? nk : 1));
    if (!g) return -1;
    for (int i = 0; i < nq; i++)
        for (int j = 0; j < nk; j++) g[(size_t)i * nk + j] = (unsigned char)model_painted_at(m, i, j);
    free(m->painted);
    m->painted = g;
    m->painted_q = nq;
    m->painted_k = nk;
    return 0;
}

void model_paint_toggle(Model *m, int i, int j) {
    if (i < 0 || j < 0 || i >= m->n_q || j >= m->n_k || paint_grow(m)) return;
    unsigned char *c = &m->painted[(size_t)i * m->painted_k + j];
    *c = !*c;
    if (m->cfg.mask == MASK_PAINTED) mark_stale(m, STAGE_MASKED);
}

void model_paint_clear(Model *m) {
    free(m->painted);
    m->painted = NULL;
    m->painted_q = m->painted_k = 0;
    if (m->cfg.mask == MASK_PAINTED) mark_stale(m, STAGE_MASKED);
}

int model_set_painted(Model *m, const unsigned char *grid, int n_q, int n_k, AvError *err) {
    unsigned char *g = malloc((size_t)(n_q ? n_q : 1) * (size_t)(n_k ? n_k : 1));
    if (!g) return av_error_nomem(err, "out of memory");
    memcpy(g, grid, (size_t)n_q * (size_t)n_k);
    free(m->painted);
    m->painted = g;
    m->painted_q = n_q;
    m->painted_k = n_k;
    if (m->cfg.mask == MASK_PAINTED) mark_stale(m, STAGE_MASKED);
    return 0;
}

// ----------------------------------------------------------------------------
// weights

/* Column j of a (rows, cols) matrix from the stream (seed, kind, head, j):
 * growing rows or cols only appends unit normals; entries are those normals
 * times 1/sqrt(fan_in), so that they are N(0, 1/fan_in). */

/* The packed copies of the weights, for the kernel in use: made when the
 * weights are drawn (they change rarely), again if the kernel or the tying
 * of Q and K changed. The heads' W_Q side by side make one product for every
 * head's queries; W_K and W_V side by side one for the keys and values. */
static void pack_weights(Model *m) {
    const ModelConfig *c = &m->cfg;
    int dm = c->d_model, h = c->heads, nq = h * c->d_k, nkv = h * (c->d_k + c->d_v);
    /* W_O first: it needs no temporary, so it is never left packed from older weights */
    mat_pack_into(&m->po, m->po.data, m->wo, c->d_model, c->heads * c->d_v, c->d_model, 0);
    float *t = calloc((size_t)dm * (size_t)nkv + 1, sizeof(float));
    if (!t) { /* out of memory: packs marked invalid, compute_project falls back */
        m->pq.nr = m->pkv.nr = 0;
        return;
    }
    for (int r = 0; r < dm; r++)
        for (int k = 0; k < h; k++)
            memcpy(t + (size_t)r * nq + (size_t)k * c->d_k, m->head[k].wq + (size_t)r * c->d_k,
                   sizeof(float) * (size_t)c->d_k);
    mat_pack_into(&m->pq, m->pq.data, t, nq, dm, nq, 0);
    for (int r = 0; r < dm; r++)
        for (int k = 0; k < h; k++) {
            const float *wk = c->tie_qk ? m->head[k].wq : m->head[k].wk;
            memcpy(t + (size_t)r * nkv + (size_t)k * c->d_k, wk + (size_t)r * c->d_k, sizeof(float) * (size_t)c->d_k);
            memcpy(t + (size_t)r * nkv + (size_t)h * c->d_k + (size_t)k * c->d_v, m->head[k].wv + (size_t)r * c->d_v,
                   sizeof(float) * (size_t)c->d_v);
        }
    mat_pack_into(&m->pkv, m->pkv.data, t, nkv, dm, nkv, 0);
    free(t);
    m->packed_tie = c->tie_qk;
}

/* The weights, a head at a time on the threads: streams are independent, so
 * the numbers do not depend on who draws them. Columns kept from before a
 * change of shape (model->keep_*) are not drawn again. */
static void draw_head_task(void *ctx, int h) {
    Model *m = ctx;
    const ModelConfig *c = &m->cfg;
    size_t dm = (size_t)c->d_model;
    HeadData *hd = &m->head[h];
    int kept = h < m->keep_heads, kdk = kept ? m->keep_dk : 0, kdv = kept ? m->keep_dv : 0;
    double scale = 1.0 / sqrt((double)c->d_model);
    for (int j = 0; j < c->d_k; j++) {
        if (j < kdk) continue;
        RngStream r1, r2;
        rng_init(&r1, rng_key(c->seed, RNG_KIND_WQ, (uint32_t)h, (uint32_t)j));
        rng_init(&r2, rng_key(c->seed, RNG_KIND_WK, (uint32_t)h, (uint32_t)j));
        for (size_t i = 0; i < dm; i++) {
            hd->wq[i * c->d_k + j] = (float)(rng_normal(&r1) * scale);
            hd->wk[i * c->d_k + j] = (float)(rng_normal(&r2) * scale);
        }
    }
    for (int j = kdv; j < c->d_v; j++) {
        RngStream r;
        rng_init(&r, rng_key(c->seed, RNG_KIND_WV, (uint32_t)h, (uint32_t)j));
        for (size_t i = 0; i < dm; i++) hd->wv[i * c->d_v + j] = (float)(rng_normal(&r) * scale);
    }
    /* W_O (heads * d_v, d_model): row (h, c) is the stream (seed, WO, h, c).
     * Its scale depends on heads * d_v, so every row is scaled again from its
     * unit normals (kept in double: the same floats as a fresh draw). */
    double wscale = 1.0 / sqrt((double)c->heads * c->d_v);
    for (int col = 0; col < c->d_v; col++) {
        double *nrm = m->wo_normals + ((size_t)h * c->d_v + col) * dm;
        if (col >= kdv) {
            RngStream r;
            rng_init(&r, rng_key(c->seed, RNG_KIND_WO, (uint32_t)h, (uint32_t)col));
            for (size_t i = 0; i < dm; i++) nrm[i] = rng_normal(&r);
        }
        float *row = m->wo + ((size_t)h * c->d_v + col) * dm;
        for (size_t i = 0; i < dm; i++) row[i] = (float)(nrm[i] * wscale);
    }
}

static void draw_weights(Model *m) {
    par_for(m->cfg.heads, draw_head_task, m);
    if (av_cancelled()) return; /* still stale; the columns kept before stay kept */
    pack_weights(m);
    m->keep_heads = m->keep_dk = m->keep_dv = 0;
    m->weights_stale = 0;
}

// ----------------------------------------------------------------------------
// the stages, split into tasks for the threads: a head, or a block of rows

enum { ROW_BLOCK = 64 };

static int row_blocks(int n) { return (n + ROW_BLOCK - 1) / ROW_BLOCK; }

/* E, PE and X of one side (n tokens) into embed, pe, x (n, d_model). */
static void embed_side(Model *m, int is_target, int n, float *embed, float *pe, float *x) {
    int dm = m->cfg.d_model;
    const TokenList *l = is_target ? &m->target_tokens : &m->tokens;
    int vocab = l->vocab + 1; /* + the <pad> id */
    /* Row of the first occurrence of each vocabulary id: repeats are copies. */
    int *first = malloc(sizeof(int) * (size_t)vocab);
    if (first)
        for (int v = 0; v < vocab; v++) first[v] = -1;
    for (int t = 0; t < n; t++) {
        size_t len;
        int id;
        const char *text = side_token(m, is_target, t, &len, &id);
        float *row = embed + (size_t)t * dm;
        if (first && first[id] >= 0) {
            memcpy(row, embed + (size_t)first[id] * dm, sizeof(float) * (size_t)dm);
            continue;
        }
        if (first) first[id] = t;
        RngStream r;
        rng_init(&r, rng_key_text(m->cfg.seed, text, len));
        for (int d = 0; d < dm; d++) row[d] = (float)rng_normal(&r);
    }
    free(first);
    for (int t = 0; t < n; t++)
        for (int d = 0; d < dm; d++) {
            size_t at = (size_t)t * dm + d;
            float p = 0.0f;
            if (m->cfg.pos == POS_SINUSOIDAL) {
                int i2 = d & ~1; /* 2i */
                double angle = t / pow(10000.0, (double)i2 / dm);
                p = (float)((d & 1) ? cos(angle) : sin(angle));
            }
            pe[at] = p;
            x[at] = embed[at] + p;
        }
}

static void compute_embed(Model *m) {
    embed_side(m, m->k_target, m->n_k, m->embed, m->pe, m->x);
    if (m->xq != m->x) embed_side(m, m->q_target, m->n_q, m->embed_q, m->pe_q, m->xq);
}

/* Work shared by the tasks of one stage. */
typedef struct {
    Model *m;
    MatPacked pack[MODEL_MAX_HEADS]; /* per head: K^T or V packed into the stages arena (no allocation) */
    int nb;                          /* row blocks per head */
    Stage from;                      /* the row stages: recompute from this one */
} Job;

/* Projections: every head's queries in one product, every head's keys and
 * values in another, a block of rows per task; then the rows are split into
 * the heads. */
enum { PROJ_ROWS = 128, PROJ_COLS = 256 }; /* a task's block: its part of the packed weights stays in L2 */

static void project_rows_task(void *ctx, int t) {
    Job *j = ctx;
    Model *m = j->m;
    const ModelConfig *c = &m->cfg;
    int h = c->heads, wq = h * c->d_k, wkv = h * (c->d_k + c->d_v);
    int qrb = (m->n_q + PROJ_ROWS - 1) / PROJ_ROWS, qcb = (wq + PROJ_COLS - 1) / PROJ_COLS;
    int kcb = (wkv + PROJ_COLS - 1) / PROJ_COLS;
    int queries = t < qrb * qcb;
    if (!queries) t -= qrb * qcb;
    int cb = queries ? qcb : kcb, rb = t / cb, col0 = (t % cb) * PROJ_COLS;
    int n = queries ? m->n_q : m->n_k, width = queries ? wq : wkv;
    int r0 = rb * PROJ_ROWS, rows = n - r0 < PROJ_ROWS ? n - r0 : PROJ_ROWS;
    int cols = width - col0 < PROJ_COLS ? width - col0 : PROJ_COLS;
    if (rows <= 0 || cols <= 0) return;
    float *tmp = queries ? m->tq : m->tkv;
    mat_mul_block(tmp, width, queries ? m->xq : m->x, c->d_model, queries ? &m->pq : &m->pkv, r0, rows, col0, cols);
    /* Split the block's columns into the heads' matrices. */
    for (int col = col0; col < col0 + cols;) {
        float *dst;
        int ld, off, run;
        if (queries) {
            int k = col / c->d_k;
            dst = m->head[k].q, ld = c->d_k, off = col % c->d_k, run = c->d_k - off;
        } else if (col < wq) {
            int k = col / c->d_k;
            dst = m->head[k].k, ld = c->d_k, off = col % c->d_k, run = c->d_k - off;
        } else {
            int k = (col - wq) / c->d_v;
            dst = m->head[k].v, ld = c->d_v, off = (col - wq) % c->d_v, run = c->d_v - off;
        }
        if (run > col0 + cols - col) run = col0 + cols - col;
        for (int i = r0; i < r0 + rows; i++)
            memcpy(dst + (size_t)i * ld + off, tmp + (size_t)i * width + col, sizeof(float) * (size_t)run);
        col += run;
    }
}

/* Without memory to pack the weights: each head's product unpacked (the same
 * sums, only slower). */
static void project_unpacked(Model *m) {
    const ModelConfig *c = &m->cfg;
    for (int k = 0; k < c->heads; k++) {
        HeadData *hd = &m->head[k];
        mat_mul(hd->q, c->d_k, m->xq, c->d_model, hd->wq, c->d_k, m->n_q, c->d_model, c->d_k);
        mat_mul(hd->k, c->d_k, m->x, c->d_model, c->tie_qk ? hd->wq : hd->wk, c->d_k, m->n_k, c->d_model, c->d_k);
        mat_mul(hd->v, c->d_v, m->x, c->d_model, hd->wv, c->d_v, m->n_k, c->d_model, c->d_v);
    }
}

static void compute_project(Model *m) {
    const ModelConfig *c = &m->cfg;
    if (m->source == SOURCE_QKV) {
        HeadData *hd = &m->head[0];
        memcpy(hd->q, m->qkv.q, sizeof(float) * (size_t)m->n_q * c->d_k);
        memcpy(hd->k, m->qkv.k, sizeof(float) * (size_t)m->n_k * c->d_k);
        memcpy(hd->v, m->qkv.v, sizeof(float) * (size_t)m->n_k * c->d_v);
        return;
    }
    /* The kernel or the tying changed since the weights were packed. */
    if (!mat_packed_current(&m->pq) || m->packed_tie != c->tie_qk) pack_weights(m);
    if (!mat_packed_current(&m->pq) || !mat_packed_current(&m->pkv)) {
        project_unpacked(m);
        return;
    }
    Job j = {.m = m, .from = STAGE_PROJECT};
    int h = c->heads, wq = h * c->d_k, wkv = h * (c->d_k + c->d_v);
    int tasks = ((m->n_q + PROJ_ROWS - 1) / PROJ_ROWS) * ((wq + PROJ_COLS - 1) / PROJ_COLS) +
                ((m->n_k + PROJ_ROWS - 1) / PROJ_ROWS) * ((wkv + PROJ_COLS - 1) / PROJ_COLS);
    par_for(tasks, project_rows_task, &j);
}

/* Additive attention's W1, W2 (d_k, d_k) of N(0, 1/d_k) and v (d_k) of N(0, 1)
 * for head h, each row its own stream (prefix-stable like the others). */
static void draw_additive(Model *m, int h) {
    const ModelConfig *c = &m->cfg;
    HeadData *hd = &m->head[h];
    int dk = c->d_k;
    double s = 1.0 / sqrt((double)dk);
    for (int a = 0; a < dk; a++) {
        RngStream r1, r2;
        rng_init(&r1, rng_key(c->seed, RNG_KIND_ADD_W1, (uint32_t)h, (uint32_t)a));
        rng_init(&r2, rng_key(c->seed, RNG_KIND_ADD_W2, (uint32_t)h, (uint32_t)a));
        for (int p = 0; p < dk; p++) {
            hd->w1[(size_t)a * dk + p] = (float)(rng_normal(&r1) * s);
            hd->w2[(size_t)a * dk + p] = (float)(rng_normal(&r2) * s);
        }
    }
    RngStream rv;
    rng_init(&rv, rng_key(c->seed, RNG_KIND_ADD_V, (uint32_t)h, 0));
    for (int a = 0; a < dk; a++) hd->va[a] = (float)rng_normal(&rv);
}

static float saturate(double v) {
    if (v > FLT_MAX) return FLT_MAX;
    if (v < -FLT_MAX) return -FLT_MAX;
    return (float)v;
}

static double norm_of(const float *v, int n) { return sqrt(vec_dot(v, v, n)); }

/* What the scaling stage multiplies by, per score kind (model.h). */
static double scale_factor(const ModelConfig *c) {
    if (!c->scale) return 1.0;
    switch (c->score) {
    case SCORE_DOT:
    case SCORE_DISTANCE: return 1.0 / sqrt((double)c->d_k);
    case SCORE_COSINE: return sqrt((double)c->d_k);
    default: return 1.0;
    }
}

/* The raw scores of rows [r0, r0 + rows) of head h. */
static void scores_rows(Model *m, int h, const MatPacked *kt, int r0, int rows) {
    const ModelConfig *c = &m->cfg;
    HeadData *hd = &m->head[h];
    int dk = c->d_k, nk = m->n_k;
    switch (c->score) {
    case SCORE_DISTANCE:
        for (int i = r0; i < r0 + rows; i++)
            for (int j = 0; j < nk; j++) {
                const float *q = hd->q + (size_t)i * dk, *k = hd->k + (size_t)j * dk;
                double d2 = 0;
                for (int p = 0; p < dk; p++) d2 += ((double)q[p] - k[p]) * ((double)q[p] - k[p]);
                hd->scores[(size_t)i * nk + j] = saturate(-d2);
            }
        return;
    case SCORE_ADDITIVE: {
        /* A = Q W1^T, B = K W2^T (made per head in scores_pack_task); s_ij = v . tanh(A_i + B_j) */
        const float *A = hd->add_a + (size_t)r0 * dk, *B = hd->add_b;
        for (int i = 0; i < rows; i++)
            for (int j = 0; j < nk; j++) {
                double s = 0;
                for (int a = 0; a < dk; a++)
                    s += (double)hd->va[a] * tanh((double)A[(size_t)i * dk + a] + B[(size_t)j * dk + a]);
                hd->scores[(size_t)(r0 + i) * nk + j] = (float)s;
            }
        return;
    }
    default:
        if (kt && kt->data) mat_mul_rows(hd->scores, nk, hd->q, dk, kt, r0, rows);
        else mat_mul_bt(hd->scores + (size_t)r0 * nk, nk, hd->q + (size_t)r0 * dk, dk, hd->k, dk, rows, dk, nk);
        if (c->score == SCORE_COSINE)
            for (int i = r0; i < r0 + rows; i++) {
                double qn = norm_of(hd->q + (size_t)i * dk, dk);
                for (int j = 0; j < nk; j++) {
                    double kn = norm_of(hd->k + (size_t)j * dk, dk);
                    float *s = &hd->scores[(size_t)i * nk + j];
                    *s = qn > 0 && kn > 0
                             ? (float)(vec_dot(hd->q + (size_t)i * dk, hd->k + (size_t)j * dk, dk) / (qn * kn))
                             : 0.0f;
                }
            }
        return;
    }
}

/* Rows [r0, r0 + rows) of head h from stage `from` to the weights: scaled,
 * masked, then the softmax with its sum, entropy and largest weight. The
 * stages stay stored (the views show each), computed row by row while the
 * row is in the cache. */
static void row_stages(Model *m, int h, Stage from, int r0, int rows) {
    const ModelConfig *c = &m->cfg;
    HeadData *hd = &m->head[h];
    int nk = m->n_k;
    double factor = scale_factor(c);
    for (int i = r0; i < r0 + rows; i++) {
        size_t at = (size_t)i * nk;
        const float *raw = hd->scores + at;
        float *scaled = hd->scaled + at, *masked = hd->masked + at;
        const unsigned char *ok = m->allowed + at;
        if (from <= STAGE_SCALED) {
            attn_scale_mask_row(scaled, masked, raw, ok, nk, factor == 1.0 ? SCALE_COPY : SCALE_MULTIPLY, factor);
        } else if (from <= STAGE_MASKED) {
            attn_mask_row(masked, scaled, ok, nk);
        }
        SoftmaxRow sr;
        attn_softmax(hd->weights + at, masked, nk, &sr);
        hd->row_sums[i] = sr.sum;
        hd->entropy[i] = sr.entropy;
        hd->max_weight[i] = sr.max_weight;
    }
}

static void scores_pack_task(void *ctx, int h) {
    Job *j = ctx;
    const ModelConfig *c = &j->m->cfg;
    HeadData *hd = &j->m->head[h];
    if (c->score == SCORE_ADDITIVE) {
        draw_additive(j->m, h);
        /* mat_mul_bt falls back to the unpacked loop (the same sums) without memory */
        mat_mul_bt(hd->add_a, c->d_k, hd->q, c->d_k, hd->w1, c->d_k, j->m->n_q, c->d_k, c->d_k);
        mat_mul_bt(hd->add_b, c->d_k, hd->k, c->d_k, hd->w2, c->d_k, j->m->n_k, c->d_k, c->d_k);
    }
    if (c->score == SCORE_DOT || c->score == SCORE_COSINE)
        mat_pack_into(&j->pack[h], hd->pack_k, hd->k, c->d_k, c->d_k, j->m->n_k, 1);
}

/* Scores of a block of rows, then (from the scores on) its row stages. */
static void scores_rows_task(void *ctx, int t) {
    Job *j = ctx;
    int h = t / j->nb, r0 = (t % j->nb) * ROW_BLOCK;
    int rows = j->m->n_q - r0 < ROW_BLOCK ? j->m->n_q - r0 : ROW_BLOCK;
    if (rows <= 0) return;
    if (j->from <= STAGE_SCORES) scores_rows(j->m, h, &j->pack[h], r0, rows);
    if (j->from <= STAGE_WEIGHTS) row_stages(j->m, h, j->from, r0, rows);
}

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

static void compute_mask(Model *m) {
    const TokenList *keys = m->k_target ? &m->target_tokens : &m->tokens;
    for (int j = 0; j < m->n_k; j++) m->pad_key[j] = m->source == SOURCE_TEXT && j >= keys->n;
    MaskSpec spec = {m->cfg.mask, m->cfg.window, m->cfg.prefix, m->q_target != m->k_target, m->pad_key, NULL};
    if (m->cfg.mask == MASK_PAINTED && m->painted) {
        /* the grid in place: mask_fill reads each cell before it writes it */
        for (int i = 0; i < m->n_q; i++)
            for (int j = 0; j < m->n_k; j++)
                m->allowed[(size_t)i * m->n_k + j] = (unsigned char)model_painted_at(m, i, j);
        spec.painted = m->allowed;
    }
    mask_fill(m->allowed, &spec, m->n_q, m->n_k);
    for (int i = 0; i < m->n_q; i++) {
        int n = 0;
        for (int j = 0; j < m->n_k; j++) n += m->allowed[(size_t)i * m->n_k + j];
        m->n_allowed[i] = n;
    }
}

/* Scores (when stale), scaled, masked and weights, in one pass over the rows. */
static void compute_attention(Model *m, Stage from) {
    int heads = m->cfg.heads;
    if (from <= STAGE_MASKED) compute_mask(m);
    Job j = {.m = m, .nb = row_blocks(m->n_q), .from = from};
    if (from <= STAGE_SCORES) par_for(heads, scores_pack_task, &j);
    par_for(heads * j.nb, scores_rows_task, &j);
}

double attn_softmax_row(float *w, const float *s, int n) {
    SoftmaxRow r;
    attn_softmax(w, s, n, &r);
    return r.sum;
}

void model_mean_entropy(const Model *m, int h, double *mean, double *max) {
    double s = 0.0, mx = 0.0;
    for (int i = 0; i < m->n_q; i++) {
        s += m->head[h].entropy[i];
        if (m->n_allowed[i] > 0) mx += log2((double)m->n_allowed[i]);
    }
    *mean = m->n_q ? s / m->n_q : 0.0;
    *max = m->n_q ? mx / m->n_q : 0.0;
}

/* O_h = A_h V_h: V packed per head, then blocks of rows. */
static void output_pack_task(void *ctx, int h) {
    Job *j = ctx;
    HeadData *hd = &j->m->head[h];
    mat_pack_into(&j->pack[h], hd->pack_v, hd->v, j->m->cfg.d_v, j->m->n_k, j->m->cfg.d_v, 0);
}

static void output_rows_task(void *ctx, int t) {
    Job *j = ctx;
    Model *m = j->m;
    int h = t / j->nb, r0 = (t % j->nb) * ROW_BLOCK, dv = m->cfg.d_v;
    int rows = m->n_q - r0 < ROW_BLOCK ? m->n_q - r0 : ROW_BLOCK;
    if (rows <= 0) return;
    HeadData *hd = &m->head[h];
    /* Keys past the last one any row of the block may see have weight 0 in
     * every row: their products add nothing (causal: half the work). */
    int kmax = 0;
    for (int i = r0; i < r0 + rows; i++) {
        const unsigned char *ok = m->allowed + (size_t)i * m->n_k;
        for (int jj = m->n_k - 1; jj >= kmax; jj--)
            if (ok[jj]) {
                kmax = jj + 1;
                break;
            }
    }
    mat_mul_rows_k(hd->out, dv, hd->weights, m->n_k, &j->pack[h], r0, rows, kmax);
}

static void compute_output(Model *m) {
    int heads = m->cfg.heads;
    Job j = {.m = m, .nb = row_blocks(m->n_q), .from = STAGE_OUTPUT};
    par_for(heads, output_pack_task, &j);
    par_for(heads * j.nb, output_rows_task, &j);
}

/* Y = concat(O_h) W_O: W_O packed once, blocks of rows on the threads. */
static void final_rows_task(void *ctx, int t) {
    Job *j = ctx;
    Model *m = j->m;
    const ModelConfig *c = &m->cfg;
    int width = c->heads * c->d_v, r0 = t * ROW_BLOCK;
    int rows = m->n_q - r0 < ROW_BLOCK ? m->n_q - r0 : ROW_BLOCK;
    for (int i = r0; i < r0 + rows; i++)
        for (int h = 0; h < c->heads; h++)
            memcpy(m->concat + (size_t)i * width + (size_t)h * c->d_v, m->head[h].out + (size_t)i * c->d_v,
                   sizeof(float) * (size_t)c->d_v);
    if (mat_packed_current(&m->po)) mat_mul_rows(m->y, c->d_model, m->concat, width, &m->po, r0, rows);
    else
        mat_mul(m->y + (size_t)r0 * c->d_model, c->d_model, m->concat + (size_t)r0 * width, width, m->wo, c->d_model,
                rows, width, c->d_model);
}

static void compute_final(Model *m) {
    Job j = {.m = m, .nb = row_blocks(m->n_q), .from = STAGE_FINAL};
    par_for(j.nb, final_rows_task, &j);
}

void model_update_to(Model *m, Stage last) {
    if (m->stale == STAGE_NONE || m->stale > last) return;
    Stage from = m->stale;
    /* A cancel request (cancel.h) is checked after every stage: the pass
     * stops with m->stale where it was, so nothing half computed is taken as
     * current (the next update does it all again). */
    if (m->source == SOURCE_TEXT && m->weights_stale) draw_weights(m);
    if (av_cancelled()) return;
    if (m->source == SOURCE_QKV && from < STAGE_PROJECT) from = STAGE_PROJECT;
    if (from <= STAGE_EMBED) compute_embed(m);
    if (av_cancelled()) return;
    if (from <= STAGE_PROJECT) compute_project(m);
    if (av_cancelled()) return;
    if (from <= STAGE_WEIGHTS && last >= STAGE_SCORES) compute_attention(m, from);
    if (av_cancelled()) return;
    if (from <= STAGE_OUTPUT && last >= STAGE_OUTPUT) compute_output(m);
    if (av_cancelled()) return;
    if (from <= STAGE_FINAL && last >= STAGE_FINAL && m->source == SOURCE_TEXT) compute_final(m);
    if (av_cancelled()) return;
    for (Stage s = from; s <= last && s < STAGE_COUNT; s++)
        if (s != STAGE_FINAL || m->source == SOURCE_TEXT) m->computed[s]++;
    /* A file has no Y: nothing stays stale after its output. */
    m->stale = last >= STAGE_FINAL || (m->source != SOURCE_TEXT && last >= STAGE_OUTPUT) ? STAGE_NONE : last + 1;
}

int model_update(Model *m, AvError *err) {
    (void)err; /* storage is made by the setters: a recompute cannot fail */
    model_update_to(m, STAGE_FINAL);
    return 0;
}

// ----------------------------------------------------------------------------
// reading

const char *model_query_text(const Model *m, int i, size_t *len) {
    if (m->source == SOURCE_QKV) {
        *len = strlen(m->qkv.query_tokens[i]);
        return m->qkv.query_tokens[i];
    }
    return side_token(m, m->q_target, i, len, NULL);
}

const char *model_key_text(const Model *m, int j, size_t *len) {
    if (m->source == SOURCE_QKV) {
        *len = strlen(m->qkv.key_tokens[j]);
        return m->qkv.key_tokens[j];
    }
    return side_token(m, m->k_target, j, len, NULL);
}

const char *model_query_label(const Model *m, int i) {
    size_t len;
    return model_query_text(m, i, &len);
}

const char *model_key_label(const Model *m, int j) {
    size_t len;
    return model_key_text(m, j, &len);
}

int model_key_id(const Model *m, int j) {
    if (m->source == SOURCE_QKV) return j;
    size_t len;
    int id;
    side_token(m, m->k_target, j, &len, &id);
    return id;
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
    out->q_norm = norm_of(q, c->d_k);
    out->k_norm = norm_of(k, c->d_k);
    for (int p = 0; p < c->d_k; p++) out->dist2 += ((double)q[p] - k[p]) * ((double)q[p] - k[p]);
    double f = scale_factor(c);
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
