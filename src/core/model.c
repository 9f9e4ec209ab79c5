/* model.c - the model's life cycle, its setters (validate, make room, then
 * commit) and the sentences on each side. The other seams are in model_*.c:
 * configuration and names (model_config.c), budgets (model_budget.c),
 * storage (model_storage.c), seeded weights (model_weights.c), the forward
 * pass and the stage cache (model_forward.c), reading (model_inspect.c). See
 * model.h for the pipeline and DESIGN.md §2 for every numeric choice. */
#include "model_internal.h"
#include "number.h"

#include <stdlib.h>
#include <string.h>

#include "i18n.h"

// ----------------------------------------------------------------------------
// life cycle

Model *model_new(void) {
    Model *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    model_config_default(&m->cfg);
    m->src = &source_text;
    m->text = calloc(1, 1);
    m->tokenizer = tok_new(TOK_WORDS, NULL, NULL);
    m->stale = STAGE_EMBED;
    m->layer_stale[0] = STAGE_EMBED;
    m->weights_stale = 1;
    m->next_row = -1;
    ModelConfig c = m->cfg;
    if (!m->text || !m->tokenizer || model_reshape(m, &c, 0, 0, &source_text, 0, 0, NULL)) {
        model_free(m);
        return NULL;
    }
    return m;
}

void model_free(Model *m) {
    if (!m) return;
    free(m->embed_arena), free(m->weights_arena), free(m->stages_arena), free(m->heads);
    free(m->weights_spare);
    free(m->text);
    tok_free(m->tokenizer);
    tok_list_free(&m->tokens);
    free(m->target);
    tok_list_free(&m->target_tokens);
    free(m->painted);
    if (m->src->free) m->src->free(m->src_data);
    free(m);
}

void model_mark_stale(Model *m, Stage s) {
    m->keep_rows = 0; /* every row again */
    if (s < m->stale) m->stale = s;
    for (int l = 0; l < m->cfg.layers && l < MODEL_MAX_LAYERS; l++)
        if (s < m->layer_stale[l]) m->layer_stale[l] = s;
}

static void mark_stale(Model *m, Stage s) { model_mark_stale(m, s); }

void model_invalidate(Model *m, Stage s) { mark_stale(m, s); }

void model_invalidate_layer(Model *m, int l, Stage s) {
    if (l < 0 || l >= m->cfg.layers) return;
    if (s < m->layer_stale[l]) m->layer_stale[l] = s;
    if (s < m->stale) m->stale = s;
}

void model_set_layer(Model *m, int l) {
    if (l >= m->cfg.layers) l = m->cfg.layers - 1;
    if (l < 0) l = 0;
    m->layer = l;
    m->head = model_layer_heads(m, l);
}

// ----------------------------------------------------------------------------
// the sentences on each side

/* Which sentence the queries and the keys come from, for a configuration:
 * self: the sentence; causal-self: the target (when there is one); cross:
 * queries from the target, keys from the sentence. */
static void sides_for(const Model *m, AttnMode attn, int have_target, int *q_target, int *k_target) {
    *q_target = *k_target = 0;
    if (!model_can(m, SRC_TOKENIZERS) || !have_target) return;
    if (attn == ATTN_CAUSAL_SELF) *q_target = *k_target = 1;
    if (attn == ATTN_CROSS) *q_target = 1;
}

/* Tokens on a side: the target's, or the sentence's plus the <pad> tokens. */
static int side_count(const TokenList *sentence, int n_pad, const TokenList *target, int is_target) {
    return is_target ? target->n : sentence->n + n_pad;
}

static const char pad_text[] = "<pad>";

/* Token t of a side: its text, length and vocabulary id. */
const char *model_side_token(const Model *m, int is_target, int t, size_t *len, int *id) {
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
    if (model_check_budget(c, n_q, n_k, m->src, err)) return -1;
    return model_reshape(m, c, n_q, n_k, m->src, qt, kt, err);
}

// ----------------------------------------------------------------------------
// setters: validate, make room, then commit; a failure changes nothing

/* What a change of configuration from o to c makes stale. */
static void mark_config(Model *m, const ModelConfig *o, const ModelConfig *c) {
    if (c->seed != o->seed && !model_can(m, SRC_RESHAPE)) { /* only additive's weights are seeded */
        m->additive_stale = 1;
        mark_stale(m, STAGE_SCORES);
    } else if (c->seed != o->seed || c->d_model != o->d_model) {
        mark_stale(m, STAGE_EMBED);
        m->weights_stale = m->additive_stale = 1;
        m->keep_heads = m->keep_dk = m->keep_dv = 0; /* other numbers everywhere */
    }
    if (c->pos != o->pos) mark_stale(m, STAGE_EMBED);
    if (c->heads != o->heads || c->d_k != o->d_k || c->d_v != o->d_v) {
        mark_stale(m, STAGE_PROJECT);
        m->weights_stale = 1;
    }
    if (c->tie_qk != o->tie_qk) mark_stale(m, STAGE_PROJECT);
    if (c->attn != o->attn) mark_stale(m, STAGE_EMBED);
    if (c->score != o->score) mark_stale(m, STAGE_SCORES);
    if (c->scale != o->scale) mark_stale(m, STAGE_SCALED);
    if (c->mask != o->mask || c->window != o->window || c->prefix != o->prefix) mark_stale(m, STAGE_MASKED);
}

int model_set_config(Model *m, const ModelConfig *c, AvError *err) {
    if (model_config_check(c, err)) return -1;
    ModelConfig o = m->cfg;
    if (c->layers != o.layers) return av_errorf(err, _("the layers are the source's: %d"), o.layers);
    if (!model_can(m, SRC_RESHAPE)) {
        /* The seed draws additive attention's W1, W2 and v, for any source. */
        if (c->d_model != o.d_model || c->heads != o.heads || c->d_k != o.d_k || c->d_v != o.d_v ||
            (c->seed != o.seed && c->score != SCORE_ADDITIVE) || c->pos != o.pos)
            return av_errorf(err, _("%s: only the mask and the scaling can change"), _(m->src->fixed));
    }
    if (!model_can(m, SRC_SCORE_KINDS) && c->score != o.score)
        return av_errorf(err, _("%s: its score is its own (the scaled dot product)"), _(m->src->fixed));
    if (!model_can(m, SRC_RESHAPE) && c->tie_qk != o.tie_qk)
        return av_errorf(err, _("%s: W_Q and W_K are its own"), _(m->src->fixed));
    if (!model_can(m, SRC_TOKENIZERS) && c->attn != o.attn)
        return av_errorf(err, _("%s: its attention is self-attention over its rows"), _(m->src->fixed));
    if (c->attn == ATTN_CROSS && !m->target) return av_errorf(err, _("cross-attention needs a target sentence"));
    /* (the additive weights are seeded: fine for any source) */
    if (!model_can(m, SRC_TOKENIZERS)) {
        if (model_check_budget(c, m->n_q, m->n_k, m->src, err)) return -1;
        if (model_reshape(m, c, m->n_q, m->n_k, m->src, 0, 0, err)) return -1;
    } else if (reshape_sides(m, c, &m->tokens, m->n_pad, &m->target_tokens, m->target != NULL, err)) {
        return -1;
    }
    mark_config(m, &o, c);
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
    if (model_can(m, SRC_TEXT) && m->src->set_text) return m->src->set_text(m, text, len, err);
    if (!model_can(m, SRC_TOKENIZERS)) return av_errorf(err, _("%s: there is no sentence to change"), _(m->src->fixed));
    char *copy = malloc(len + 1);
    if (!copy) return av_error_nomem(err, _("out of memory"));
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
    if (!model_can(m, SRC_TOKENIZERS)) return av_errorf(err, _("%s: its tokenizer is its own"), _(m->src->fixed));
    Tokenizer *t = tok_new(preset, pattern, err);
    if (!t) return -1;
    TokenList list = {0}, tlist = {0};
    if (m->target && tok_split(t, m->target, m->target_len, TOK_MAX_TOKENS, &tlist, err)) {
        tok_free(t);
        /* TRANSLATORS: the prefix of a message about the target sentence ("target: ...") */
        return av_error_prefix(err, _("target"));
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

int model_set_source(Model *m, const Source *src, void *data, const SourceShape *sh, AvError *err) {
    ModelConfig c = m->cfg;
    c.heads = sh->heads;
    c.d_k = sh->d_k;
    c.d_v = sh->d_v;
    c.layers = sh->layers;
    if (sh->d_model > 0) c.d_model = sh->d_model;
    c.pos = POS_NONE;
    int bad = model_config_check(&c, err);
    if (!bad && (sh->layers < 1 || sh->layers > MODEL_MAX_LAYERS))
        bad = av_errorf(err, _("layers %d: the range is 1..%d"), sh->layers, MODEL_MAX_LAYERS);
    c.attn = ATTN_SELF;
    c.tie_qk = 0;
    const Source *old = m->src;
    void *old_data = m->src_data;
    if (bad || model_check_budget(&c, sh->n_q, sh->n_k, src, err) ||
        model_reshape(m, &c, sh->n_q, sh->n_k, src, 0, 0, err)) {
        if (src->free) src->free(data);
        return -1;
    }
    if (old->free) old->free(old_data);
    m->src_data = data;
    tok_list_free(&m->tokens);
    m->weights_stale = 0;
    m->stale = (src->caps & SRC_EMBED) ? STAGE_EMBED : STAGE_PROJECT;
    for (int l = 0; l < c.layers; l++) m->layer_stale[l] = m->stale;
    return 0;
}

int model_set_qkv(Model *m, QkvData *d, AvError *err) {
    QkvData *own = malloc(sizeof *own);
    if (!own) return av_error_nomem(err, _("out of memory"));
    *own = *d;
    memset(d, 0, sizeof *d);
    SourceShape sh = {1, 1, own->d_k, own->d_v, own->n_q, own->n_k, 0};
    return model_set_source(m, &source_qkv, own, &sh, err);
}

int model_set_target(Model *m, const char *text, size_t len, AvError *err) {
    if (!model_can(m, SRC_TOKENIZERS)) return av_errorf(err, _("%s: there is no target sentence"), _(m->src->fixed));
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
    if (!copy) return av_error_nomem(err, _("out of memory"));
    memcpy(copy, text, len);
    copy[len] = '\0';
    TokenList list = {0};
    if (tok_split(m->tokenizer, text, len, TOK_MAX_TOKENS, &list, err)) {
        free(copy);
        /* TRANSLATORS: the prefix of a message about the target sentence ("target: ...") */
        return av_error_prefix(err, _("target"));
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
    if (!model_can(m, SRC_TOKENIZERS)) return av_errorf(err, _("%s: there is no sentence to pad"), _(m->src->fixed));
    if (n < 0 || m->tokens.n + n > TOK_MAX_TOKENS)
        return av_errorf(err, _("pad %d: the sentence's %d %s and the pads must stay within %d"), n, m->tokens.n,
                         num_plural("token", "tokens", m->tokens.n), TOK_MAX_TOKENS);
    ModelConfig c = m->cfg;
    if (reshape_sides(m, &c, &m->tokens, n, &m->target_tokens, m->target != NULL, err)) return -1;
    m->n_pad = n;
    mark_stale(m, STAGE_EMBED);
    return 0;
}

static char *copy_text(const char *text, size_t len) {
    char *c = malloc(len + 1);
    if (c) {
        if (len) memcpy(c, text, len);
        c[len] = '\0';
    }
    return c;
}

int model_change(Model *m, const ModelChange *ch, AvError *err) {
    if (!model_can(m, SRC_TOKENIZERS))
        return av_errorf(err, _("%s: its sentence and tokenizer are its own"), _(m->src->fixed));
    ModelConfig c = ch->cfg ? *ch->cfg : m->cfg, o = m->cfg;
    if (model_config_check(&c, err)) return -1;
    if (c.layers != o.layers) return av_errorf(err, _("the layers are the source's: %d"), o.layers);
    const char *text = ch->set_text ? ch->text : m->text, *target = ch->set_target ? ch->target : m->target;
    size_t text_len = ch->set_text ? ch->text_len : m->text_len;
    size_t target_len = ch->set_target ? ch->target_len : m->target_len;
    int pad = ch->pad >= 0 ? ch->pad : m->n_pad;
    if (c.attn == ATTN_CROSS && !target) return av_errorf(err, _("cross-attention needs a target sentence"));
    Tokenizer *t = ch->set_tokenizer ? tok_new(ch->tokenizer, NULL, err) : m->tokenizer;
    if (!t) return -1;
    TokenList list = {0}, tlist = {0};
    char *text_copy = ch->set_text ? copy_text(text, text_len) : NULL;
    char *target_copy = ch->set_target && target ? copy_text(target, target_len) : NULL;
    int rc = 0;
    if ((ch->set_text && !text_copy) || (ch->set_target && target && !target_copy))
        rc = av_error_nomem(err, _("out of memory"));
    else if (target && tok_split(t, target, target_len, TOK_MAX_TOKENS, &tlist, err))
        /* TRANSLATORS: the prefix of a message about the target sentence ("target: ...") */
        rc = av_error_prefix(err, _("target"));
    else if (tok_split(t, text, text_len, TOK_MAX_TOKENS, &list, err)) rc = -1;
    else if (list.n + pad > TOK_MAX_TOKENS)
        rc = av_errorf(err, _("pad %d: the sentence's %d tokens and the pads must stay within %d"), pad, list.n,
                       TOK_MAX_TOKENS);
    else rc = reshape_sides(m, &c, &list, pad, &tlist, target != NULL, err);
    if (rc) {
        tok_list_free(&list), tok_list_free(&tlist);
        free(text_copy), free(target_copy);
        if (t != m->tokenizer) tok_free(t);
        return -1;
    }
    /* checked as one configuration and made room for: now nothing can fail */
    if (t != m->tokenizer) tok_free(m->tokenizer), m->tokenizer = t;
    if (ch->set_text) free(m->text), m->text = text_copy, m->text_len = text_len;
    if (ch->set_target) free(m->target), m->target = target_copy, m->target_len = target_copy ? target_len : 0;
    tok_list_free(&m->target_tokens);
    m->target_tokens = tlist;
    m->n_pad = pad;
    take_tokens(m, &list);
    mark_config(m, &o, &c);
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
    if (!g) return av_error_nomem(err, _("out of memory"));
    memcpy(g, grid, (size_t)n_q * (size_t)n_k);
    free(m->painted);
    m->painted = g;
    m->painted_q = n_q;
    m->painted_k = n_k;
    if (m->cfg.mask == MASK_PAINTED) mark_stale(m, STAGE_MASKED);
    return 0;
}
