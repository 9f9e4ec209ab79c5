/* model.c - configuration, seeded weights, the stage cache and the forward
 * pass of one attention layer. See model.h for the pipeline and DESIGN.md §2
 * for every numeric choice made here. */
#include "model.h"

#include <math.h>
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
    if (bytes > MODEL_MAX_BYTES)
        return av_errorf(err,
                         "too large: d_model=%d heads=%d d_k=%d d_v=%d and %d tokens need "
                         "%lld MiB of weights and stages, the limit is %lld MiB",
                         c->d_model, c->heads, c->d_k, c->d_v, n_k,
                         (long long)(bytes >> 20), (long long)(MODEL_MAX_BYTES >> 20));
    return 0;
}

// ----------------------------------------------------------------------------
// life cycle

static void *zalloc(size_t count, size_t size) { return calloc(count ? count : 1, size); }

static void free_head_stages(HeadData *hd) {
    free(hd->q), free(hd->k), free(hd->v);
    free(hd->scores), free(hd->scaled), free(hd->masked), free(hd->weights);
    free(hd->row_sums), free(hd->out), free(hd->entropy), free(hd->max_weight);
    hd->entropy = NULL;
    hd->max_weight = NULL;
    hd->q = hd->k = hd->v = hd->scores = hd->scaled = hd->masked = hd->weights = hd->out = NULL;
    hd->row_sums = NULL;
}

static void free_heads(Model *m, int heads) {
    if (!m->head) return;
    for (int h = 0; h < heads; h++) {
        free_head_stages(&m->head[h]);
        free(m->head[h].wq), free(m->head[h].wk), free(m->head[h].wv);
    }
    free(m->head);
    m->head = NULL;
}

static void free_model_stages(Model *m) {
    free(m->embed), free(m->pe), free(m->x), free(m->concat), free(m->y), free(m->allowed);
    free(m->n_allowed);
    m->embed = m->pe = m->x = m->concat = m->y = NULL;
    m->allowed = NULL;
    m->n_allowed = NULL;
}

/* Heads the current head array was allocated for. */
static int alloc_heads_count(const Model *m) { return m->head ? m->cfg.heads : 0; }

Model *model_new(void) {
    Model *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    model_config_default(&m->cfg);
    m->source = SOURCE_TEXT;
    m->text = calloc(1, 1);
    m->tokenizer = tok_new(TOK_WORDS, NULL, NULL);
    if (!m->text || !m->tokenizer) {
        model_free(m);
        return NULL;
    }
    m->stale = STAGE_EMBED;
    m->weights_stale = 1;
    return m;
}

void model_free(Model *m) {
    if (!m) return;
    free_heads(m, alloc_heads_count(m));
    free_model_stages(m);
    free(m->wo);
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
// setters

int model_set_config(Model *m, const ModelConfig *c, AvError *err) {
    if (model_config_check(c, err)) return -1;
    const ModelConfig *o = &m->cfg;
    if (m->source == SOURCE_QKV) {
        if (c->d_model != o->d_model || c->heads != o->heads || c->d_k != o->d_k ||
            c->d_v != o->d_v || c->seed != o->seed || c->pos != o->pos)
            return av_errorf(err, "Q, K and V come from a file: only the mask and the "
                                  "scaling can change");
    }
    if (model_check_budget(c, m->n_q, m->n_k, m->source, err)) return -1;
    /* Heads must be freed with the count they were allocated with. */
    if (c->heads != o->heads && m->head) {
        free_heads(m, o->heads);
    }
    if (c->seed != o->seed || c->d_model != o->d_model) {
        mark_stale(m, STAGE_EMBED);
        m->weights_stale = 1;
    }
    if (c->pos != o->pos) mark_stale(m, STAGE_EMBED);
    if (c->heads != o->heads || c->d_k != o->d_k || c->d_v != o->d_v) {
        mark_stale(m, STAGE_PROJECT);
        m->weights_stale = 1;
    }
    if (c->scale != o->scale) mark_stale(m, STAGE_SCALED);
    if (c->mask != o->mask) mark_stale(m, STAGE_MASKED);
    m->cfg = *c;
    return 0;
}

/* Tokenizes text with t into a new list and checks the budget for it. */
static int tokenize_checked(Model *m, Tokenizer *t, const char *text, size_t len, TokenList *out,
                            AvError *err) {
    if (tok_split(t, text, len, TOK_MAX_TOKENS, out, err)) return -1;
    if (model_check_budget(&m->cfg, out->n, out->n, SOURCE_TEXT, err)) {
        tok_list_free(out);
        return -1;
    }
    return 0;
}

static void take_tokens(Model *m, TokenList *list) {
    tok_list_free(&m->tokens);
    m->tokens = *list;
    memset(list, 0, sizeof *list);
    m->n_q = m->n_k = m->tokens.n;
    mark_stale(m, STAGE_EMBED);
}

int model_set_text(Model *m, const char *text, size_t len, AvError *err) {
    if (m->source != SOURCE_TEXT)
        return av_errorf(err, "Q, K and V come from a file: there is no sentence to change");
    TokenList list = {0};
    if (tokenize_checked(m, m->tokenizer, text, len, &list, err)) return -1;
    char *copy = malloc(len + 1);
    if (!copy) {
        tok_list_free(&list);
        return av_errorf(err, "out of memory");
    }
    memcpy(copy, text, len);
    copy[len] = '\0';
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
    if (tokenize_checked(m, t, m->text, m->text_len, &list, err)) {
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
    free_heads(m, alloc_heads_count(m));
    free_model_stages(m);
    free(m->wo);
    m->wo = NULL;
    qkv_free(&m->qkv);
    m->qkv = *d;
    memset(d, 0, sizeof *d);
    m->source = SOURCE_QKV;
    m->cfg = c;
    m->n_q = m->qkv.n_q;
    m->n_k = m->qkv.n_k;
    m->stale = STAGE_PROJECT;
    m->weights_stale = 0;
    return 0;
}

// ----------------------------------------------------------------------------
// weights

/* Column j of a (rows, cols) matrix from the stream (seed, kind, head, j):
 * growing rows or cols only appends entries. Entries are N(0, 1/fan_in). */
static void draw_columns(float *w, int rows, int cols, uint64_t seed, RngKind kind, int head,
                         double fan_in) {
    double scale = 1.0 / sqrt(fan_in);
    for (int j = 0; j < cols; j++) {
        RngStream r;
        rng_init(&r, rng_key(seed, kind, (uint32_t)head, (uint32_t)j));
        for (int i = 0; i < rows; i++) w[(size_t)i * cols + j] = (float)(rng_normal(&r) * scale);
    }
}

static int draw_weights(Model *m) {
    const ModelConfig *c = &m->cfg;
    if (!m->head) {
        m->head = zalloc((size_t)c->heads, sizeof *m->head);
        if (!m->head) return -1;
    }
    size_t dm = (size_t)c->d_model;
    for (int h = 0; h < c->heads; h++) {
        HeadData *hd = &m->head[h];
        free(hd->wq), free(hd->wk), free(hd->wv);
        hd->wq = zalloc(dm * c->d_k, sizeof(float));
        hd->wk = zalloc(dm * c->d_k, sizeof(float));
        hd->wv = zalloc(dm * c->d_v, sizeof(float));
        if (!hd->wq || !hd->wk || !hd->wv) return -1;
        draw_columns(hd->wq, c->d_model, c->d_k, c->seed, RNG_KIND_WQ, h, c->d_model);
        draw_columns(hd->wk, c->d_model, c->d_k, c->seed, RNG_KIND_WK, h, c->d_model);
        draw_columns(hd->wv, c->d_model, c->d_v, c->seed, RNG_KIND_WV, h, c->d_model);
    }
    /* W_O (heads * d_v, d_model): row (h, c) is the stream (seed, WO, h, c). */
    free(m->wo);
    m->wo = zalloc((size_t)c->heads * c->d_v * dm, sizeof(float));
    if (!m->wo) return -1;
    double scale = 1.0 / sqrt((double)c->heads * c->d_v);
    for (int h = 0; h < c->heads; h++)
        for (int col = 0; col < c->d_v; col++) {
            RngStream r;
            rng_init(&r, rng_key(c->seed, RNG_KIND_WO, (uint32_t)h, (uint32_t)col));
            float *row = m->wo + ((size_t)h * c->d_v + col) * dm;
            for (size_t i = 0; i < dm; i++) row[i] = (float)(rng_normal(&r) * scale);
        }
    m->weights_stale = 0;
    return 0;
}

// ----------------------------------------------------------------------------
// storage of the stages

/* Storage of the stages from `from` on: E, PE and X depend on the tokens and
 * d_model (STAGE_EMBED); everything after them also on the head shapes. */
static int alloc_stages(Model *m, Stage from) {
    const ModelConfig *c = &m->cfg;
    size_t nq = (size_t)m->n_q, nk = (size_t)m->n_k, dm = (size_t)c->d_model;
    if (!m->head) {
        m->head = zalloc((size_t)c->heads, sizeof *m->head);
        if (!m->head) return -1;
    }
    if (from <= STAGE_EMBED && m->source == SOURCE_TEXT) {
        free(m->embed), free(m->pe), free(m->x);
        m->embed = zalloc(nk * dm, sizeof(float));
        m->pe = zalloc(nk * dm, sizeof(float));
        m->x = zalloc(nk * dm, sizeof(float));
        if (!m->embed || !m->pe || !m->x) return -1;
    }
    free(m->allowed), free(m->n_allowed), free(m->concat), free(m->y);
    m->concat = m->y = NULL;
    m->allowed = zalloc(nq * nk, 1);
    m->n_allowed = zalloc(nq, sizeof(int));
    if (!m->allowed || !m->n_allowed) return -1;
    if (m->source == SOURCE_TEXT) {
        m->concat = zalloc(nq * c->heads * c->d_v, sizeof(float));
        m->y = zalloc(nq * dm, sizeof(float));
        if (!m->concat || !m->y) return -1;
    }
    for (int h = 0; h < c->heads; h++) {
        HeadData *hd = &m->head[h];
        free_head_stages(hd);
        hd->q = zalloc(nq * c->d_k, sizeof(float));
        hd->k = zalloc(nk * c->d_k, sizeof(float));
        hd->v = zalloc(nk * c->d_v, sizeof(float));
        hd->scores = zalloc(nq * nk, sizeof(float));
        hd->scaled = zalloc(nq * nk, sizeof(float));
        hd->masked = zalloc(nq * nk, sizeof(float));
        hd->weights = zalloc(nq * nk, sizeof(float));
        hd->row_sums = zalloc(nq, sizeof(double));
        hd->entropy = zalloc(nq, sizeof(double));
        hd->max_weight = zalloc(nq, sizeof(float));
        hd->out = zalloc(nq * c->d_v, sizeof(float));
        if (!hd->q || !hd->k || !hd->v || !hd->scores || !hd->scaled || !hd->masked ||
            !hd->weights || !hd->row_sums || !hd->entropy || !hd->max_weight || !hd->out)
            return -1;
    }
    return 0;
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
    if (m->stale == STAGE_NONE) return 0;
    Stage from = m->stale;
    if (m->source == SOURCE_TEXT && m->weights_stale) {
        if (draw_weights(m)) return av_errorf(err, "out of memory drawing the weights");
    }
    if (m->source == SOURCE_QKV && from < STAGE_PROJECT) from = STAGE_PROJECT;
    if (from <= STAGE_PROJECT) {
        if (alloc_stages(m, from)) return av_errorf(err, "out of memory for the stages");
    }
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
