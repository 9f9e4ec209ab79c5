/* source_llama.c - a trained Llama model (llama.h; a llama2.c checkpoint,
 * llama2.h) as a source of Q, K and V (source.h). The sentence is tokenized
 * with the model's own vocabulary (llamatok.h), BOS first; each layer's Q and
 * K (after RoPE) and V come from the model's layer-wise steps, the attention
 * itself (scores, scaling, mask, softmax, A V) is the app's, and the heads'
 * outputs go back into the model for W_o, the residual and the FFN, which
 * give the next layer its input (SRC_STACKED). Query head h reads key/value
 * head h / (n_heads / n_kv_heads). The model is causal: the front end starts
 * it with the causal mask; mask none shows what it would do if it could see
 * the future, every later layer recomputed. */
#include "source_llama.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "i18n.h"
#include "llama2.h"
#include "model_internal.h"
#include "nnops.h"
#include "utf8.h"
#include "number.h"

typedef struct {
    Llama *lm;
    LlamaTok *tok;
    LlamaRun *run;
    int *ids, n;
    char **labels; /* n screen forms of the pieces ("<s>", "▁Lily") */
    float *attn;   /* (n, dim): the heads' outputs joined, for llama_layer_finish */
    char title[64];
    TrainedInfo info;
    /* The layer shown (model_layer_chain): computed again in a run of its
     * own from the main run's input of the layer and the heads' outputs,
     * which it keeps to know when they change. */
    LlamaRun *shown;
    int shown_layer;          /* -1: none yet */
    float *shown_attn;        /* (n, dim) the heads' outputs it was computed from */
    float *shown_q, *shown_k; /* q_raw and k_raw head by head */
} LlamaSrc;

/* The rows of one sentence: ids, labels, a run of n rows, the joined
 * outputs. Built whole before anything is replaced. */
typedef struct {
    int *ids, n;
    char **labels;
    LlamaRun *run;
    float *attn;
} Rows;

static void rows_free(Rows *r) {
    for (int i = 0; r->labels && i < r->n; i++) free(r->labels[i]);
    free(r->labels), free(r->ids), free(r->attn);
    llama_run_free(r->run);
    memset(r, 0, sizeof *r);
}

/* The ids of text with BOS first: their count, *ids set (caller frees), or
 * -1 with a message (the tokenizer's, the context). */
static int encode(const Llama *lm, const LlamaTok *tok, const char *text, size_t len, int **ids, AvError *err) {
    int n = llamatok_encode(tok, text, len, 1, ids, err);
    if (n < 0) return -1;
    if (n > lm->cfg.seq_len) {
        free(*ids);
        *ids = NULL;
        return av_errorf(err, _("the sentence is %d tokens (with BOS); %s was trained for at most %d"), n, lm->name,
                         lm->cfg.seq_len);
    }
    return n;
}

/* The screen forms of ids[from..n) into labels[from..n); 0 or -1 (memory). */
static int make_labels(const LlamaTok *tok, char **labels, const int *ids, int from, int n) {
    for (int i = from; i < n; i++) {
        char buf[256];
        llamatok_display(tok, ids[i], buf, sizeof buf);
        if (!(labels[i] = strdup(buf))) return -1;
    }
    return 0;
}

/* The rows of ids[0..n) (taken: freed on failure too) in a run with room
 * for `room` rows (at least n). */
static int rows_make(Rows *r, const Llama *lm, const LlamaTok *tok, int *ids, int n, int room, AvError *err) {
    memset(r, 0, sizeof *r);
    r->ids = ids, r->n = n;
    if (room < n) room = n;
    r->labels = calloc((size_t)n, sizeof *r->labels);
    r->attn = malloc(sizeof(float) * (size_t)room * (size_t)lm->cfg.dim);
    if (!r->labels || !r->attn || make_labels(tok, r->labels, ids, 0, n)) {
        rows_free(r);
        return av_error_nomem(err, _("out of memory for %d tokens"), n);
    }
    if (!(r->run = llama_run_new(lm, room, 1, err))) { /* every row's logits: the next tokens after any row */
        rows_free(r);
        return -1;
    }
    return 0;
}

static LlamaSrc *data_of(const Model *m) { return m->src_data; }

static void shown_free(LlamaSrc *d) {
    llama_run_free(d->shown);
    free(d->shown_attn), free(d->shown_q), free(d->shown_k);
    d->shown = NULL, d->shown_attn = d->shown_q = d->shown_k = NULL;
    d->shown_layer = -1;
}

static void take_rows(LlamaSrc *d, Rows *r) {
    shown_free(d); /* of the rows before */
    Rows old = {d->ids, d->n, d->labels, d->run, d->attn};
    d->ids = r->ids, d->n = r->n, d->labels = r->labels, d->run = r->run, d->attn = r->attn;
    rows_free(&old);
    memset(r, 0, sizeof *r);
}

// ----------------------------------------------------------------------------
// the source's steps

/* The rows the model keeps (model_resize_rows): the run keeps them too. */
static int kept_rows(const Model *m, const LlamaSrc *d) { return m->keep_rows < d->n ? m->keep_rows : d->n; }

static void llama_src_forward(Model *m, int layer, int from) {
    (void)from;
    LlamaSrc *d = data_of(m);
    const LlamaConfig *c = &d->lm->cfg;
    int r0 = kept_rows(m, d);
    if (layer == 0 && llama_embed_from(d->run, d->ids, d->n, r0, NULL)) return;
    if (llama_layer_qkv_rows(d->run, layer, r0, d->n - r0)) return;
    int hs = c->head_size, group = c->n_heads / c->n_kv_heads;
    const float *k = llama_run_k(d->run, layer), *v = llama_run_v(d->run, layer);
    HeadData *hd = model_layer_heads(m, layer);
    for (int h = 0; h < c->n_heads; h++) {
        int g = h / group;
        for (int i = r0; i < d->n; i++) {
            memcpy(hd[h].q + (size_t)i * hs, d->run->q + (size_t)i * c->dim + (size_t)h * hs, sizeof(float) * hs);
            memcpy(hd[h].k + (size_t)i * hs, k + (size_t)i * c->kv_dim + (size_t)g * hs, sizeof(float) * hs);
            memcpy(hd[h].v + (size_t)i * hs, v + (size_t)i * c->kv_dim + (size_t)g * hs, sizeof(float) * hs);
        }
    }
}

/* The heads' outputs back into the model: W_o, residual, FFN; the next
 * layer's input changed, so it is stale from its projections. */
static void llama_src_final(Model *m, int layer) {
    LlamaSrc *d = data_of(m);
    const LlamaConfig *c = &d->lm->cfg;
    int hs = c->head_size, r0 = kept_rows(m, d);
    const HeadData *hd = model_layer_heads(m, layer);
    for (int h = 0; h < c->n_heads; h++)
        for (int i = r0; i < d->n; i++)
            memcpy(d->attn + (size_t)i * c->dim + (size_t)h * hs, hd[h].out + (size_t)i * hs, sizeof(float) * hs);
    if (llama_layer_finish_rows(d->run, layer, d->attn, r0, d->n - r0)) return;
    if (layer + 1 < c->n_layers) model_invalidate_layer(m, layer + 1, STAGE_PROJECT);
    else llama_logits_from(d->run, r0);
}

static const char *llama_src_label(const Model *m, int i, size_t *len) {
    const char *s = data_of(m)->labels[i];
    *len = strlen(s);
    return s;
}

static int llama_src_id(const Model *m, int j) { return data_of(m)->ids[j]; }

static const char *llama_src_title(const Model *m) { return data_of(m)->title; }

/* The checkpoint's header, as llama2.c names its fields. */
static int llama_src_facts(const Model *m, SourceFact *out, int cap) {
    const LlamaConfig *c = &data_of(m)->lm->cfg;
    const SourceFact f[] = {{"dim", c->dim},
                            {"hidden_dim", c->hidden_dim},
                            {"n_layers", c->n_layers},
                            {"n_heads", c->n_heads},
                            {"n_kv_heads", c->n_kv_heads},
                            {"head_size", c->head_size},
                            {"vocab_size", c->vocab_size},
                            {"seq_len", c->seq_len},
                            {"shared_classifier", c->shared_classifier}};
    int n = (int)(sizeof f / sizeof *f);
    if (n > cap) n = cap;
    for (int i = 0; i < n; i++) out[i] = f[i];
    return n;
}

/* The softmax of the last row's logits (in double), its k largest. */
static int llama_src_next(const Model *m, int row, int k, int *ids, double *probs, const char **pieces, size_t *lens) {
    const LlamaSrc *d = data_of(m);
    if (row < 0 || row >= d->n) row = d->n - 1;
    const float *z = d->run->logits + (size_t)row * d->lm->cfg.vocab_size; /* every row's (all_logits) */
    int got = nn_top_k_softmax(z, d->lm->cfg.vocab_size, k, ids, probs);
    for (int s = 0; s < got; s++) pieces[s] = llamatok_piece(d->tok, ids[s], &lens[s]);
    return got;
}

static void llama_src_free(void *p) {
    LlamaSrc *d = p;
    if (!d) return;
    Rows r = {d->ids, d->n, d->labels, d->run, d->attn};
    rows_free(&r);
    shown_free(d);
    llamatok_free(d->tok);
    llama_close(d->lm);
    free(d);
}

/* A new sentence: tokenized, its rows made, the model reshaped, all or
 * nothing. */
/* Rows to make room for with n tokens: 2 n (n + 64 at least, the context
 * at most), less while the stages of that many would be past a budget. */
static int room_for(const Model *m, const LlamaSrc *d, int n) {
    int room = 2 * n > n + 64 ? 2 * n : n + 64;
    if (room > d->lm->cfg.seq_len) room = d->lm->cfg.seq_len;
    while (room > n && model_check_budget(&m->cfg, room, room, m->src, NULL)) room = n + (room - n) / 2;
    return room < n ? n : room;
}

/* Room for the first sentence to grow (an edit at its end keeps its rows
 * too): a run and a stages arena of room_for rows, before anything is
 * computed. Without the memory, none: the first edit makes it. */
static void make_room(Model *m, LlamaSrc *d) {
    int room = room_for(m, d, d->n);
    if (room <= d->n) return;
    LlamaRun *run = llama_run_new(d->lm, room, 1, NULL);
    float *attn = malloc(sizeof(float) * (size_t)room * (size_t)d->lm->cfg.dim);
    ModelConfig c = m->cfg;
    if (!run || !attn || model_reshape_room(m, &c, d->n, d->n, room, m->src, 0, 0, NULL)) {
        llama_run_free(run), free(attn);
        return;
    }
    llama_run_free(d->run), free(d->attn);
    d->run = run, d->attn = attn;
}

/* The rows the new ids[0..n) can keep: their common start with the rows
 * now, when the model's stages are all current (or only the rows after its
 * kept ones are stale), the mask causal and the new rows fit in the run's
 * and the model's room; else 0 (source_hf.c's rule). */
static int rows_to_keep(const Model *m, const LlamaSrc *d, const int *ids, int n) {
    int kept = m->stale == STAGE_NONE ? d->n : m->keep_rows;
    if (m->cfg.mask != MASK_CAUSAL || m->cfg.score != SCORE_DOT || kept < 1 || n > d->run->cap ||
        n > (m->room > m->n_q ? m->room : m->n_q))
        return 0;
    int p = 0;
    while (p < n && p < kept && ids[p] == d->ids[p]) p++;
    return p;
}

/* The sentence's rows after the first `keep` are new (ids, taken): the run
 * and the model keep the others, the next update computes these alone. */
static int keep_rows(Model *m, LlamaSrc *d, int *ids, int n, int keep, AvError *err) {
    char **labels = calloc((size_t)n, sizeof *labels);
    if (!labels || make_labels(d->tok, labels, ids, keep, n)) {
        for (int i = keep; labels && i < n; i++) free(labels[i]);
        free(labels), free(ids);
        return av_error_nomem(err, _("out of memory for %d tokens"), n);
    }
    if (model_resize_rows(m, n, keep, err)) {
        for (int i = keep; i < n; i++) free(labels[i]);
        free(labels), free(ids);
        return -1;
    }
    memcpy(labels, d->labels, sizeof *labels * (size_t)keep);
    for (int i = keep; i < d->n; i++) free(d->labels[i]);
    free(d->labels), free(d->ids);
    d->labels = labels, d->ids = ids, d->n = n;
    shown_free(d); /* the chain of other rows */
    return 0;
}

static int llama_src_set_text(Model *m, const char *text, size_t len, AvError *err) {
    LlamaSrc *d = data_of(m);
    char *copy = malloc(len + 1);
    if (!copy) return av_error_nomem(err, _("out of memory"));
    memcpy(copy, text, len);
    copy[len] = '\0';
    int *ids, n = encode(d->lm, d->tok, text, len, &ids, err);
    if (n < 0) {
        free(copy);
        return -1;
    }
    int keep = rows_to_keep(m, d, ids, n);
    if (keep > 0) { /* an edit after the first keep tokens: the rows before stay */
        if (keep_rows(m, d, ids, n, keep, err)) {
            free(copy);
            return -1;
        }
    } else {
        Rows r;
        ModelConfig c = m->cfg;
        int room = room_for(m, d, n);
        if (rows_make(&r, d->lm, d->tok, ids, n, room, err)) {
            free(copy);
            return -1;
        }
        if (model_check_budget(&c, r.n, r.n, m->src, err) ||
            model_reshape_room(m, &c, r.n, r.n, room, m->src, 0, 0, err)) {
            rows_free(&r);
            free(copy);
            return -1;
        }
        take_rows(d, &r);
        model_mark_stale(m, STAGE_PROJECT); /* other tokens in the same number of rows */
    }
    free(m->text);
    m->text = copy;
    m->text_len = len;
    return 0;
}

static int llama_src_continue(Model *m, const char **piece, size_t *plen, AvError *err) {
    LlamaSrc *d = data_of(m);
    int id;
    double p;
    const char *raw;
    size_t rl, len;
    llama_src_next(m, d->n - 1, 1, &id, &p, &raw, &rl);
    const char *s = llamatok_decode(d->tok, d->ids[d->n - 1], id, &len);
    char *text = malloc(m->text_len + len + 1);
    if (!text) return av_error_nomem(err, _("out of memory"));
    memcpy(text, m->text, m->text_len);
    memcpy(text + m->text_len, s, len);
    size_t total = m->text_len + len;
    text[total] = '\0';
    int rc = llama_src_set_text(m, text, total, err);
    free(text);
    if (piece) *piece = raw, *plen = rl;
    return rc;
}

static const TrainedInfo *llama_src_trained(const Model *m) { return &data_of(m)->info; }

static const char *llama_src_piece(const Model *m, int id, size_t *len) {
    const LlamaTok *t = data_of(m)->tok;
    if (id < 0 || id >= t->n) return *len = 0, "";
    return llamatok_piece(t, id, len);
}

static const char *llama_src_decode(const Model *m, int prev, int id, size_t *len) {
    const LlamaTok *t = data_of(m)->tok;
    if (id < 0 || id >= t->n) return *len = 0, "";
    return llamatok_decode(t, prev, id, len);
}

static int llama_src_generate(const Model *m, int steps, int *out, AvError *err) {
    const LlamaSrc *d = data_of(m);
    int n = d->n;
    if (n + steps - 1 > d->lm->cfg.seq_len)
        return av_errorf(err, _("--generate: %d tokens and %d more is past the model's context of %d"), n, steps,
                         d->lm->cfg.seq_len);
    LlamaRun *run = llama_run_new(d->lm, n + steps, 0, err);
    if (!run) return -1;
    int got = llama_generate_greedy(run, d->ids, n, steps, out, err);
    llama_run_free(run);
    return got;
}

static int llama_src_chain(const Model *m, int l, LayerChain *out, AvError *err);

const Source source_llama = {
    .name = "model",
    .fixed = N_("a trained model's weights are its own"),
    .what = N_("the model's own tokenizer"),
    .lacks = N_("a trained model has no seeded embeddings to show here"),
    .knobs = N_("the sentence (e), the mask (m) and the scaling (s) can change"),
    .caps = SRC_TEXT | SRC_STACKED,
    .forward = llama_src_forward,
    .final = llama_src_final,
    .query_text = llama_src_label,
    .key_text = llama_src_label,
    .key_id = llama_src_id,
    .set_text = llama_src_set_text,
    .title = llama_src_title,
    .facts = llama_src_facts,
    .next_tokens = llama_src_next,
    .continue_text = llama_src_continue,
    .trained = llama_src_trained,
    .chain = llama_src_chain,
    .piece = llama_src_piece,
    .decode = llama_src_decode,
    .generate = llama_src_generate,
    .free = llama_src_free,
};

// ----------------------------------------------------------------------------
// opening

static int is_file(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The vocabulary beside the model: tokenizer.bin, then tok<V>.bin. */
static int default_vocab(char *out, size_t cap, const char *model_path, int vocab_size) {
    const char *slash = strrchr(model_path, '/');
    int dir = slash ? (int)(slash - model_path + 1) : 0;
    snprintf(out, cap, "%.*stokenizer.bin", dir, model_path);
    if (is_file(out)) return 0;
    snprintf(out, cap, "%.*stok%d.bin", dir, model_path, vocab_size);
    return is_file(out) ? 0 : -1;
}

int model_set_llama(Model *m, const char *model_path, const char *vocab_path, const char *text, size_t len,
                    AvError *err) {
    LlamaSrc *d = calloc(1, sizeof *d);
    if (!d) return av_error_nomem(err, _("out of memory"));
    d->shown_layer = -1;
    if (!(d->lm = llama2_open(model_path, err))) {
        free(d);
        return -1;
    }
    const LlamaConfig *c = &d->lm->cfg;
    char vb[4096];
    if (!vocab_path) {
        if (default_vocab(vb, sizeof vb, model_path, c->vocab_size)) {
            int v = c->vocab_size;
            llama_src_free(d);
            return av_errorf(err, _("%s: no vocabulary beside it (tokenizer.bin or tok%d.bin): give --vocab FILE"),
                             model_path, v);
        }
        vocab_path = vb;
    }
    if (!(d->tok = llamatok_load(vocab_path, err))) {
        llama_src_free(d);
        return -1;
    }
    /* (The checks copy what they say: freeing d unmaps c.) */
    if (d->tok->n != c->vocab_size) {
        int n = d->tok->n, v = c->vocab_size;
        llama_src_free(d);
        return av_errorf(err, _("%s: %d %s, but %s has a vocabulary of %d"), vocab_path, n,
                         num_plural("piece", "pieces", n), model_path, v);
    }
    if (c->n_layers > MODEL_MAX_LAYERS || c->n_heads > MODEL_MAX_HEADS || c->head_size > MODEL_MAX_DIM ||
        c->dim > MODEL_MAX_DIM) {
        LlamaConfig k = *c;
        llama_src_free(d);
        return av_errorf(err, _("%s: %d layers of %d heads of %d (dim %d) is more than attnviz shows (%d, %d, %d)"),
                         model_path, k.n_layers, k.n_heads, k.head_size, k.dim, MODEL_MAX_LAYERS, MODEL_MAX_HEADS,
                         MODEL_MAX_DIM);
    }
    d->info = (TrainedInfo){.arch = "llama2.c",
                            .n_layers = c->n_layers,
                            .n_heads = c->n_heads,
                            .n_kv_heads = c->n_kv_heads,
                            .head_size = c->head_size,
                            .dim = c->dim,
                            .q_dim = c->dim,
                            .kv_dim = c->kv_dim,
                            .hidden_dim = c->hidden_dim,
                            .vocab = c->vocab_size,
                            .ctx = c->seq_len,
                            .rope = ROPE_PAIRS,
                            .rope_theta = 10000.0};
    /* The title: the file's name without ".bin", escaped (it is printed:
     * the status line, the dumps, messages). */
    const char *base = strrchr(model_path, '/');
    char name[sizeof d->title];
    snprintf(name, sizeof name, "%s", base ? base + 1 : model_path);
    char *dot = strrchr(name, '.');
    if (dot && strcmp(dot, ".bin") == 0) *dot = '\0';
    utf8_escape_into(d->title, sizeof d->title, name);
    Rows r;
    int *ids, n = encode(d->lm, d->tok, text, len, &ids, err);
    if (n < 0 || rows_make(&r, d->lm, d->tok, ids, n, n, err)) {
        llama_src_free(d);
        return -1;
    }
    take_rows(d, &r);
    SourceShape sh = {c->n_layers, c->n_heads, c->head_size, c->head_size, d->n, d->n, c->dim};
    char *copy = malloc(len + 1);
    if (!copy) {
        llama_src_free(d);
        return av_error_nomem(err, _("out of memory"));
    }
    memcpy(copy, text, len);
    copy[len] = '\0';
    if (model_set_source(m, &source_llama, d, &sh, err)) { /* frees d */
        free(copy);
        return -1;
    }
    make_room(m, data_of(m));
    free(m->text);
    m->text = copy;
    m->text_len = len;
    return 0;
}

const Llama *model_llama(const Model *m) { return m->src == &source_llama ? data_of(m)->lm : NULL; }

const LlamaRun *model_llama_run(const Model *m) { return m->src == &source_llama ? data_of(m)->run : NULL; }

const LlamaTok *model_llama_tok(const Model *m) { return m->src == &source_llama ? data_of(m)->tok : NULL; }

// ----------------------------------------------------------------------------
// the chain of one layer

/* 1 when the shown run was computed for layer l from the main run's input
 * of l and the heads' outputs of l as they are now. */
static int shown_current(const LlamaSrc *d, const Model *m, int l) {
    if (!d->shown || d->shown_layer != l) return 0;
    const LlamaConfig *c = &d->lm->cfg;
    size_t rows = (size_t)d->n * c->dim;
    if (memcmp(llama_run_x(d->shown, l), llama_run_x(d->run, l), sizeof(float) * rows)) return 0;
    const HeadData *hd = model_layer_heads(m, l);
    int hs = c->head_size;
    for (int h = 0; h < c->n_heads; h++)
        for (int i = 0; i < d->n; i++)
            if (memcmp(d->shown_attn + (size_t)i * c->dim + (size_t)h * hs, hd[h].out + (size_t)i * hs,
                       sizeof(float) * hs))
                return 0;
    return 1;
}

/* Layer l again, in the shown run: its input copied from the main run, the
 * engine's steps, the heads' outputs as the attention (as final() does). */
static int shown_compute(LlamaSrc *d, const Model *m, int l, AvError *err) {
    const LlamaConfig *c = &d->lm->cfg;
    size_t n = (size_t)d->n, hs = (size_t)c->head_size;
    if (!d->shown) {
        if (!(d->shown = llama_run_new(d->lm, d->n, 0, err))) return -1;
        d->shown_attn = malloc(sizeof(float) * n * c->dim);
        d->shown_q = malloc(sizeof(float) * n * c->dim);
        d->shown_k = malloc(sizeof(float) * n * c->kv_dim);
        if (!d->shown_attn || !d->shown_q || !d->shown_k) {
            shown_free(d);
            return av_error_nomem(err, _("out of memory for the chain of layer %d"), l + 1);
        }
    }
    d->shown_layer = -1;
    LlamaRun *r = d->shown;
    if (llama_embed(r, d->ids, d->n, err)) return -1; /* the rows; x of layer 0 */
    memcpy(llama_run_x(r, l), llama_run_x(d->run, l), sizeof(float) * n * c->dim);
    const HeadData *hd = model_layer_heads(m, l);
    for (int h = 0; h < c->n_heads; h++)
        for (size_t i = 0; i < n; i++)
            memcpy(d->shown_attn + i * c->dim + h * hs, hd[h].out + i * hs, sizeof(float) * hs);
    if (llama_layer_qkv(r, l) || llama_layer_finish(r, l, d->shown_attn))
        return av_errorf(err, _("the chain of layer %d was cancelled"), l + 1);
    for (int h = 0; h < c->n_heads; h++)
        for (size_t i = 0; i < n; i++)
            memcpy(d->shown_q + (h * n + i) * hs, r->q_raw + i * c->dim + h * hs, sizeof(float) * hs);
    for (int g = 0; g < c->n_kv_heads; g++)
        for (size_t i = 0; i < n; i++)
            memcpy(d->shown_k + (g * n + i) * hs, r->k_raw + i * c->kv_dim + g * hs, sizeof(float) * hs);
    d->shown_layer = l;
    return 0;
}

static int llama_src_chain(const Model *m, int l, LayerChain *out, AvError *err) {
    LlamaSrc *d = data_of(m);
    const LlamaConfig *c = &d->lm->cfg;
    if (!shown_current(d, m, l) && shown_compute(d, m, l, err)) return -1;
    const LlamaRun *r = d->shown;
    *out = (LayerChain){
        .layer = l,
        .n = d->n,
        .dim = c->dim,
        .q_dim = c->dim,
        .kv_dim = c->kv_dim,
        .hidden_dim = c->hidden_dim,
        .head_size = c->head_size,
        .n_heads = c->n_heads,
        .n_kv_heads = c->n_kv_heads,
        .x = llama_run_x(r, l),
        .xb = r->xb,
        .q_raw = r->q_raw,
        .k_raw = r->k_raw,
        .q = r->q,
        .k = llama_run_k(r, l),
        .v = llama_run_v(r, l),
        .q_raw_heads = d->shown_q,
        .k_raw_heads = d->shown_k,
        .att = d->shown_attn,
        .proj = r->proj,
        .mid = r->mid,
        .xb2 = r->xb2,
        .hb = r->hb,
        .ffn = r->ffn,
        .x_next = llama_run_x(r, l + 1),
        .wo = d->lm->w.wo + (size_t)l * c->dim * c->dim,
        .rope = r->rope,
    };
    return 0;
}
