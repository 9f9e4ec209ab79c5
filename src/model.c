/* model.c - configuration, seeded weights, the stage cache and the forward
 * pass of one attention layer. See model.h for the pipeline and DESIGN.md §2
 * for every numeric choice made here. */
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"

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

static const char *const stage_names[STAGE_COUNT] = {
    "embed", "project", "scores", "scaled", "masked", "weights", "output", "final"};

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
    c->scale = 1;
    c->pos = POS_NONE;
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
    if ((unsigned)c->pos >= POS_KIND_COUNT) return av_errorf(err, "unknown positional encoding");
    return 0;
}

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
        floats += 3 * (int64_t)n_k * dm + h * dm * (2 * dk + dv) + h * dv * dm +
                  (int64_t)n_q * (h * dv + dm);
    int64_t bytes = floats * 4;
    char tokens[48] = "";
    if (n_k > 0) snprintf(tokens, sizeof tokens, " and %d tokens", n_k);
    if (bytes > MODEL_MAX_BYTES)
        return av_errorf(err,
                         "too large: d_model=%d heads=%d d_k=%d d_v=%d%s need %lld MiB of "
                         "weights and stages, the limit is %lld MiB",
                         c->d_model, c->heads, c->d_k, c->d_v, tokens,
                         (long long)(bytes >> 20), (long long)(MODEL_MAX_BYTES >> 20));
    /* Memory is not the only limit: a recompute must stay a matter of
     * seconds, or the screen freezes. Count the multiply-adds of a full pass
     * and the random numbers drawn. */
    int64_t ops = h * ((int64_t)n_q * n_k * (dk + dv));
    if (src == SOURCE_TEXT)
        ops += h * ((int64_t)n_k * dm * (2 * dk + dv) + dm * (2 * dk + dv)) + (int64_t)n_q * h * dv * dm +
               h * dv * dm;
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
    void *embed;     /* E, PE, X: n_k x d_model each (text only) */
    void *weights;   /* W_Q, W_K, W_V of every head, W_O (text only) */
    void *stages;    /* per-head stages, the mask, concat, Y */
    HeadData *head;  /* heads entries */
} Storage;

/* Bump allocation inside an arena: every piece 16-byte aligned. */
static size_t round16(size_t n) { return (n + 15) & ~(size_t)15; }
static void *carve(char **p, size_t bytes) {
    void *r = *p;
    *p += round16(bytes);
    return r;
}

static size_t embed_bytes(const ModelConfig *c, int n_k) { return 3 * round16(sizeof(float) * (size_t)n_k * c->d_model); }

static size_t weights_bytes(const ModelConfig *c) {
    size_t dm = (size_t)c->d_model;
    return (size_t)c->heads * (2 * round16(sizeof(float) * dm * c->d_k) + round16(sizeof(float) * dm * c->d_v)) +
           round16(sizeof(float) * (size_t)c->heads * c->d_v * dm);
}

static size_t stages_bytes(const ModelConfig *c, int n_q, int n_k, ModelSource src) {
    size_t nq = (size_t)n_q, nk = (size_t)n_k, f = sizeof(float);
    size_t per_head = round16(f * nq * c->d_k) + round16(f * nk * c->d_k) + round16(f * nk * c->d_v) +
                      4 * round16(f * nq * nk) + 2 * round16(sizeof(double) * nq) + round16(f * nq) +
                      round16(f * nq * c->d_v);
    size_t total = (size_t)c->heads * per_head + round16(nq * nk) + round16(sizeof(int) * nq);
    if (src == SOURCE_TEXT) total += round16(f * nq * c->heads * c->d_v) + round16(f * nq * c->d_model);
    return total;
}

static void storage_free(Storage *s) {
    free(s->embed), free(s->weights), free(s->stages), free(s->head);
    memset(s, 0, sizeof *s);
}

/* Allocates the arenas named in `which` for configuration c; all or nothing. */
static int storage_alloc(Storage *s, int which, const ModelConfig *c, int n_q, int n_k, ModelSource src) {
    memset(s, 0, sizeof *s);
    int text = src == SOURCE_TEXT;
    if ((which & AR_EMBED) && text) s->embed = calloc(1, embed_bytes(c, n_k) + 16);
    if ((which & AR_WEIGHTS) && text) s->weights = calloc(1, weights_bytes(c) + 16);
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
    } else {
        m->embed = m->pe = m->x = NULL;
    }
    if (m->weights_arena) {
        p = m->weights_arena;
        for (int h = 0; h < c->heads; h++) {
            m->head[h].wq = carve(&p, f * dm * c->d_k);
            m->head[h].wk = carve(&p, f * dm * c->d_k);
            m->head[h].wv = carve(&p, f * dm * c->d_v);
        }
        m->wo = carve(&p, f * (size_t)c->heads * c->d_v * dm);
    } else {
        for (int h = 0; h < c->heads; h++) m->head[h].wq = m->head[h].wk = m->head[h].wv = NULL;
        m->wo = NULL;
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
    }
    m->n_allowed = carve(&p, sizeof(int) * nq);
    m->allowed = carve(&p, nq * nk);
    if (m->source == SOURCE_TEXT) {
        m->concat = carve(&p, f * nq * c->heads * c->d_v);
        m->y = carve(&p, f * nq * dm);
    } else {
        m->concat = m->y = NULL;
    }
}

/* Makes room for configuration c with n_q x n_k tokens from src: the arenas
 * whose shape changes are allocated anew; on failure nothing changes. On
 * success the configuration, sizes and source are the new ones (the caller
 * commits its own tokens or matrices) and *stale_from says where to
 * recompute from. */
static int reshape(Model *m, const ModelConfig *c, int n_q, int n_k, ModelSource src, AvError *err) {
    const ModelConfig *o = &m->cfg;
    int fresh = !m->stages_arena, src_changed = src != m->source;
    int dims = c->d_model != o->d_model, heads = c->heads != o->heads, dkv = c->d_k != o->d_k || c->d_v != o->d_v;
    int tokens = n_q != m->n_q || n_k != m->n_k;
    int which = 0;
    if (fresh || src_changed || heads) which |= AR_HEADS;
    if (fresh || src_changed || dims || tokens) which |= AR_EMBED;
    if (fresh || src_changed || dims || heads || dkv) which |= AR_WEIGHTS;
    if (fresh || src_changed || dims || heads || dkv || tokens) which |= AR_STAGES;
    if (which & AR_HEADS) which |= AR_WEIGHTS | AR_STAGES; /* their pointers live in the heads */
    if (!which) {
        m->cfg = *c; /* same shapes: nothing to allocate */
        return 0;
    }
    Storage s;
    if (storage_alloc(&s, which, c, n_q, n_k, src))
        return av_errorf(err, "out of memory for d_model=%d heads=%d d_k=%d d_v=%d and %d tokens", c->d_model,
                         c->heads, c->d_k, c->d_v, n_k);
    if (which & AR_EMBED) free(m->embed_arena), m->embed_arena = s.embed;
    if (which & AR_WEIGHTS) free(m->weights_arena), m->weights_arena = s.weights, m->weights_stale = 1;
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
    storage_point(m);
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
    if (!m->text || !m->tokenizer || reshape(m, &c, 0, 0, SOURCE_TEXT, NULL)) {
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
    qkv_free(&m->qkv);
    free(m);
}

static void mark_stale(Model *m, Stage s) {
    if (s < m->stale) m->stale = s;
}

// ----------------------------------------------------------------------------
// setters: validate, make room, then commit; a failure changes nothing

int model_set_config(Model *m, const ModelConfig *c, AvError *err) {
    if (model_config_check(c, err)) return -1;
    ModelConfig o = m->cfg;
    if (m->source == SOURCE_QKV) {
        if (c->d_model != o.d_model || c->heads != o.heads || c->d_k != o.d_k || c->d_v != o.d_v ||
            c->seed != o.seed || c->pos != o.pos)
            return av_errorf(err, "Q, K and V come from a file: only the mask and the "
                                  "scaling can change");
    }
    if (model_check_budget(c, m->n_q, m->n_k, m->source, err)) return -1;
    if (reshape(m, c, m->n_q, m->n_k, m->source, err)) return -1;
    if (c->seed != o.seed || c->d_model != o.d_model) {
        mark_stale(m, STAGE_EMBED);
        m->weights_stale = 1;
    }
    if (c->pos != o.pos) mark_stale(m, STAGE_EMBED);
    if (c->heads != o.heads || c->d_k != o.d_k || c->d_v != o.d_v) {
        mark_stale(m, STAGE_PROJECT);
        m->weights_stale = 1;
    }
    if (c->scale != o.scale) mark_stale(m, STAGE_SCALED);
    if (c->mask != o.mask) mark_stale(m, STAGE_MASKED);
    return 0;
}

/* Tokenizes text with t into a new list, checks the budget and makes room.
 * On success the model has its new sizes; the caller commits the list. */
static int tokenize_and_reshape(Model *m, Tokenizer *t, const char *text, size_t len, TokenList *out,
                                AvError *err) {
    if (tok_split(t, text, len, TOK_MAX_TOKENS, out, err)) return -1;
    ModelConfig c = m->cfg;
    if (model_check_budget(&c, out->n, out->n, SOURCE_TEXT, err) ||
        reshape(m, &c, out->n, out->n, SOURCE_TEXT, err)) {
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
    if (m->source != SOURCE_TEXT)
        return av_errorf(err, "Q, K and V come from a file: there is no sentence to change");
    char *copy = malloc(len + 1);
    if (!copy) return av_errorf(err, "out of memory");
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
    TokenList list = {0};
    if (tokenize_and_reshape(m, t, m->text, m->text_len, &list, err)) {
        tok_free(t);
        return -1;
    }
    tok_free(m->tokenizer);
    m->tokenizer = t;
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
    if (model_check_budget(&c, d->n_q, d->n_k, SOURCE_QKV, err)) return -1;
    if (reshape(m, &c, d->n_q, d->n_k, SOURCE_QKV, err)) return -1;
    qkv_free(&m->qkv);
    m->qkv = *d;
    memset(d, 0, sizeof *d);
    tok_list_free(&m->tokens);
    m->stale = STAGE_PROJECT;
    m->weights_stale = 0;
    return 0;
}

// ----------------------------------------------------------------------------
// weights

/* Column j of a (rows, cols) matrix from the stream (seed, kind, head, j):
 * growing rows or cols only appends unit normals; entries are those normals
 * times 1/sqrt(fan_in), so that they are N(0, 1/fan_in). */
static void draw_columns(float *w, int rows, int cols, uint64_t seed, RngKind kind, int head,
                         double fan_in) {
    double scale = 1.0 / sqrt(fan_in);
    for (int j = 0; j < cols; j++) {
        RngStream r;
        rng_init(&r, rng_key(seed, kind, (uint32_t)head, (uint32_t)j));
        for (int i = 0; i < rows; i++) w[(size_t)i * cols + j] = (float)(rng_normal(&r) * scale);
    }
}

static void draw_weights(Model *m) {
    const ModelConfig *c = &m->cfg;
    size_t dm = (size_t)c->d_model;
    for (int h = 0; h < c->heads; h++) {
        HeadData *hd = &m->head[h];
        draw_columns(hd->wq, c->d_model, c->d_k, c->seed, RNG_KIND_WQ, h, c->d_model);
        draw_columns(hd->wk, c->d_model, c->d_k, c->seed, RNG_KIND_WK, h, c->d_model);
        draw_columns(hd->wv, c->d_model, c->d_v, c->seed, RNG_KIND_WV, h, c->d_model);
    }
    /* W_O (heads * d_v, d_model): row (h, c) is the stream (seed, WO, h, c). */
    double scale = 1.0 / sqrt((double)c->heads * c->d_v);
    for (int h = 0; h < c->heads; h++)
        for (int col = 0; col < c->d_v; col++) {
            RngStream r;
            rng_init(&r, rng_key(c->seed, RNG_KIND_WO, (uint32_t)h, (uint32_t)col));
            float *row = m->wo + ((size_t)h * c->d_v + col) * dm;
            for (size_t i = 0; i < dm; i++) row[i] = (float)(rng_normal(&r) * scale);
        }
    m->weights_stale = 0;
}

// ----------------------------------------------------------------------------
// the stages

static void compute_embed(Model *m) {
    int n = m->n_k, dm = m->cfg.d_model;
    /* Row of the first occurrence of each vocabulary id: repeats are copies. */
    int *first = malloc(sizeof(int) * (size_t)(m->tokens.vocab ? m->tokens.vocab : 1));
    if (first)
        for (int v = 0; v < m->tokens.vocab; v++) first[v] = -1;
    for (int t = 0; t < n; t++) {
        const Token *tok = &m->tokens.tok[t];
        float *row = m->embed + (size_t)t * dm;
        if (first && first[tok->id] >= 0) {
            memcpy(row, m->embed + (size_t)first[tok->id] * dm, sizeof(float) * (size_t)dm);
            continue;
        }
        if (first) first[tok->id] = t;
        RngStream r;
        rng_init(&r, rng_key_text(m->cfg.seed, tok->text, tok->len));
        for (int d = 0; d < dm; d++) row[d] = (float)rng_normal(&r);
    }
    free(first);
    for (int t = 0; t < n; t++)
        for (int d = 0; d < dm; d++) {
            size_t at = (size_t)t * dm + d;
            float pe = 0.0f;
            if (m->cfg.pos == POS_SINUSOIDAL) {
                int i2 = d & ~1; /* 2i */
                double angle = t / pow(10000.0, (double)i2 / dm);
                pe = (float)((d & 1) ? cos(angle) : sin(angle));
            }
            m->pe[at] = pe;
            m->x[at] = m->embed[at] + pe;
        }
}

static void compute_project(Model *m) {
    const ModelConfig *c = &m->cfg;
    for (int h = 0; h < c->heads; h++) {
        HeadData *hd = &m->head[h];
        if (m->source == SOURCE_QKV) {
            memcpy(hd->q, m->qkv.q, sizeof(float) * (size_t)m->n_q * c->d_k);
            memcpy(hd->k, m->qkv.k, sizeof(float) * (size_t)m->n_k * c->d_k);
            memcpy(hd->v, m->qkv.v, sizeof(float) * (size_t)m->n_k * c->d_v);
            continue;
        }
        /* Queries and keys both come from X in self-attention (n_q == n_k). */
        mat_mul(hd->q, c->d_k, m->x, c->d_model, hd->wq, c->d_k, m->n_q, c->d_model, c->d_k);
        mat_mul(hd->k, c->d_k, m->x, c->d_model, hd->wk, c->d_k, m->n_k, c->d_model, c->d_k);
        mat_mul(hd->v, c->d_v, m->x, c->d_model, hd->wv, c->d_v, m->n_k, c->d_model, c->d_v);
    }
}

static void compute_scores(Model *m) {
    const ModelConfig *c = &m->cfg;
    for (int h = 0; h < c->heads; h++) {
        HeadData *hd = &m->head[h];
        mat_mul_bt(hd->scores, m->n_k, hd->q, c->d_k, hd->k, c->d_k, m->n_q, c->d_k, m->n_k);
    }
}

static void compute_scaled(Model *m) {
    size_t cells = (size_t)m->n_q * m->n_k;
    double divisor = sqrt((double)m->cfg.d_k);
    for (int h = 0; h < m->cfg.heads; h++) {
        HeadData *hd = &m->head[h];
        if (!m->cfg.scale) {
            memcpy(hd->scaled, hd->scores, sizeof(float) * cells);
            continue;
        }
        for (size_t i = 0; i < cells; i++) hd->scaled[i] = (float)((double)hd->scores[i] / divisor);
    }
}

static void compute_masked(Model *m) {
    size_t cells = (size_t)m->n_q * m->n_k;
    mask_fill(m->allowed, m->cfg.mask, m->n_q, m->n_k);
    for (int i = 0; i < m->n_q; i++) {
        int n = 0;
        for (int j = 0; j < m->n_k; j++) n += m->allowed[(size_t)i * m->n_k + j];
        m->n_allowed[i] = n;
    }
    for (int h = 0; h < m->cfg.heads; h++) {
        HeadData *hd = &m->head[h];
        for (size_t i = 0; i < cells; i++) hd->masked[i] = m->allowed[i] ? hd->scaled[i] : -INFINITY;
    }
}

double attn_softmax_row(float *w, const float *s, int n) {
    double max = -INFINITY;
    for (int j = 0; j < n; j++)
        if (s[j] > max) max = s[j];
    if (max == -INFINITY) {
        for (int j = 0; j < n; j++) w[j] = 0.0f;
        return 0.0;
    }
    double denom = 0.0;
    for (int j = 0; j < n; j++)
        if (s[j] != -INFINITY) denom += exp((double)s[j] - max);
    double sum = 0.0;
    for (int j = 0; j < n; j++) {
        w[j] = s[j] == -INFINITY ? 0.0f : (float)(exp((double)s[j] - max) / denom);
        sum += w[j];
    }
    return sum;
}

/* Entropy in bits, accumulated in double; 0 log 0 = 0. */
static double entropy_bits(const float *w, int n) {
    double h = 0.0;
    for (int j = 0; j < n; j++)
        if (w[j] > 0.0f) h -= (double)w[j] * log2((double)w[j]);
    return h > 0.0 ? h : 0.0; /* rounding can leave -0.0 or -1e-17 for a one-hot row */
}

static void compute_weights(Model *m) {
    int nk = m->n_k;
    for (int h = 0; h < m->cfg.heads; h++) {
        HeadData *hd = &m->head[h];
        for (int i = 0; i < m->n_q; i++) {
            float *w = hd->weights + (size_t)i * nk;
            hd->row_sums[i] = attn_softmax_row(w, hd->masked + (size_t)i * nk, nk);
            hd->entropy[i] = entropy_bits(w, nk);
            float mx = 0.0f;
            for (int j = 0; j < nk; j++)
                if (w[j] > mx) mx = w[j];
            hd->max_weight[i] = mx;
        }
    }
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

static void compute_output(Model *m) {
    const ModelConfig *c = &m->cfg;
    for (int h = 0; h < c->heads; h++) {
        HeadData *hd = &m->head[h];
        mat_mul(hd->out, c->d_v, hd->weights, m->n_k, hd->v, c->d_v, m->n_q, m->n_k, c->d_v);
    }
}

static void compute_final(Model *m) {
    const ModelConfig *c = &m->cfg;
    int width = c->heads * c->d_v;
    for (int h = 0; h < c->heads; h++)
        for (int i = 0; i < m->n_q; i++)
            memcpy(m->concat + (size_t)i * width + (size_t)h * c->d_v,
                   m->head[h].out + (size_t)i * c->d_v, sizeof(float) * (size_t)c->d_v);
    mat_mul(m->y, c->d_model, m->concat, width, m->wo, c->d_model, m->n_q, width, c->d_model);
}

int model_update(Model *m, AvError *err) {
    (void)err; /* storage is made by the setters: a recompute cannot fail */
    if (m->stale == STAGE_NONE) return 0;
    Stage from = m->stale;
    if (m->source == SOURCE_TEXT && m->weights_stale) draw_weights(m);
    if (m->source == SOURCE_QKV && from < STAGE_PROJECT) from = STAGE_PROJECT;
    for (Stage s = from; s < STAGE_COUNT; s++) {
        switch (s) {
        case STAGE_EMBED: compute_embed(m); break;
        case STAGE_PROJECT: compute_project(m); break;
        case STAGE_SCORES: compute_scores(m); break;
        case STAGE_SCALED: compute_scaled(m); break;
        case STAGE_MASKED: compute_masked(m); break;
        case STAGE_WEIGHTS: compute_weights(m); break;
        case STAGE_OUTPUT: compute_output(m); break;
        case STAGE_FINAL:
            if (m->source != SOURCE_TEXT) continue;
            compute_final(m);
            break;
        default: break;
        }
        m->computed[s]++;
    }
    m->stale = STAGE_NONE;
    return 0;
}

// ----------------------------------------------------------------------------
// reading

const char *model_query_label(const Model *m, int i) {
    if (m->source == SOURCE_QKV) return m->qkv.query_tokens[i];
    return m->tokens.tok[i].text;
}

const char *model_key_label(const Model *m, int j) {
    if (m->source == SOURCE_QKV) return m->qkv.key_tokens[j];
    return m->tokens.tok[j].text;
}

const char *model_query_text(const Model *m, int i, size_t *len) {
    if (m->source == SOURCE_QKV) {
        *len = strlen(m->qkv.query_tokens[i]);
        return m->qkv.query_tokens[i];
    }
    *len = m->tokens.tok[i].len;
    return m->tokens.tok[i].text;
}

const char *model_key_text(const Model *m, int j, size_t *len) {
    if (m->source == SOURCE_QKV) {
        *len = strlen(m->qkv.key_tokens[j]);
        return m->qkv.key_tokens[j];
    }
    *len = m->tokens.tok[j].len;
    return m->tokens.tok[j].text;
}

int model_query_id(const Model *m, int i) {
    return m->source == SOURCE_QKV ? i : m->tokens.tok[i].id;
}

int model_key_id(const Model *m, int j) {
    return m->source == SOURCE_QKV ? j : m->tokens.tok[j].id;
}

void model_cell_detail(const Model *m, int h, int i, int j, CellDetail *out) {
    const HeadData *hd = &m->head[h];
    size_t nk = (size_t)m->n_k, at = (size_t)i * nk + j;
    const float *row = hd->masked + (size_t)i * nk;
    memset(out, 0, sizeof *out);
    out->raw = hd->scores[at];
    out->divisor = m->cfg.scale ? sqrt((double)m->cfg.d_k) : 1.0;
    out->scaled = hd->scaled[at];
    out->allowed = m->allowed[at];
    double max = -INFINITY;
    for (size_t c = 0; c < nk; c++)
        if (row[c] != -INFINITY) {
            out->row_allowed++;
            if (row[c] > max) max = row[c];
        }
    out->row_max = max;
    if (out->row_allowed) {
        for (size_t c = 0; c < nk; c++)
            if (row[c] != -INFINITY) out->denom += exp((double)row[c] - max);
        if (out->allowed) out->exp = exp((double)row[j] - max);
    }
    out->weight = hd->weights[at];
}
