/* source_hf.c - a Hugging Face checkpoint folder (hfmodel.h: GPT-2 and the
 * Llama family) with its tokenizer (hftok.h) as a source of Q, K and V
 * (source.h), as source_llama.c does for llama2.c checkpoints: each layer's
 * Q and K (after RoPE, where the model has it) and V come from the model's
 * layer-wise steps, the attention itself is the app's, and the heads'
 * outputs go back into the model for W_o, the residual and the FFN, which
 * give the next layer its input (SRC_STACKED). Query head h reads key/value
 * head h / (n_heads / n_kv_heads).
 *
 * The logits: only of the row asked for (the next-token panel's cursor row,
 * the last for the dumps), computed when asked (hf_logits_row) and kept
 * until another row or sentence is asked for: a vocabulary of 50257 (GPT-2)
 * or 151936 (Qwen2) times every row would cost more memory than the rest. */
#include "source_hf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "i18n.h"
#include "model_internal.h"
#include "nnops.h"
#include "utf8.h"

typedef struct {
    HfModel *hm;
    HfTok *tok;
    const HfConfig *cfg;
    HfRun *run;
    int *ids, n;
    char **labels;  /* n screen forms of the pieces ("Ġthe" as "▁the") */
    float *attn;    /* (n, q_dim): the heads' outputs joined, for hf_layer_finish */
    int logits_row; /* the row whose logits run->logits holds; -1: none */
    int bos;        /* the token an empty sentence starts with, or -1 */
    char title[64];
    TrainedInfo info;
    /* The layer shown (source_hf_chain): computed again in a run of its own
     * from the main run's input of the layer and the heads' outputs. */
    HfRun *shown;
    int shown_layer;          /* -1: none yet */
    float *shown_attn;        /* (n, q_dim) the heads' outputs it was computed from */
    float *shown_q, *shown_k; /* q_raw and k_raw head by head */
    float *wo;                /* (dim, q_dim) W_o of the layer shown, as floats */
    int wo_layer;             /* -1: none */
} HfSrc;

typedef struct {
    int *ids, n;
    char **labels;
    HfRun *run;
    float *attn;
} Rows;

static void rows_free(Rows *r) {
    for (int i = 0; r->labels && i < r->n; i++) free(r->labels[i]);
    free(r->labels), free(r->ids), free(r->attn);
    hf_run_free(r->run);
    memset(r, 0, sizeof *r);
}

/* The ids of text (the model's start token for an empty one): their count,
 * *ids set (caller frees), or -1 with a message (the tokenizer's, the
 * context, the vocabulary). */
static int encode(const HfSrc *d, const char *text, size_t len, int **ids, AvError *err) {
    int n = hftok_encode(d->tok, text, len, ids, err);
    if (n < 0) return -1;
    if (n == 0) { /* an empty sentence: the model's start token */
        free(*ids);
        if (d->bos < 0 || !(*ids = malloc(sizeof **ids)))
            return av_errorf(err, _("the sentence has no tokens (and %s has no start token to begin with)"), d->title);
        (*ids)[0] = d->bos, n = 1;
    }
    int bad = -1;
    if (n > d->cfg->max_pos)
        av_errorf(err, _("the sentence is %d tokens; %s takes at most %d"), n, d->title, d->cfg->max_pos);
    for (int i = 0; n <= d->cfg->max_pos && i < n && bad < 0; i++)
        if ((*ids)[i] >= d->cfg->vocab) {
            bad = i;
            av_errorf(err, _("token %d: id %d is past the model's vocabulary of %d (the tokenizer is another's)"), i,
                      (*ids)[i], d->cfg->vocab);
        }
    if (n > d->cfg->max_pos || bad >= 0) {
        free(*ids);
        *ids = NULL;
        return -1;
    }
    return n;
}

/* The screen forms of ids[from..n) into labels[from..n); 0 or -1 (memory). */
static int make_labels(const HfSrc *d, char **labels, const int *ids, int from, int n) {
    for (int i = from; i < n; i++) {
        char buf[256];
        hftok_display(d->tok, ids[i], buf, sizeof buf);
        if (!(labels[i] = strdup(buf))) return -1;
    }
    return 0;
}

/* The rows of ids[0..n) (taken: freed on failure too) in a run with room
 * for `room` rows (at least n). */
static int rows_make(Rows *r, const HfSrc *d, int *ids, int n, int room, AvError *err) {
    memset(r, 0, sizeof *r);
    r->ids = ids, r->n = n;
    if (room < n) room = n;
    r->labels = calloc((size_t)n, sizeof *r->labels);
    r->attn = malloc(sizeof(float) * (size_t)room * (size_t)d->cfg->q_dim);
    if (!r->labels || !r->attn || make_labels(d, r->labels, ids, 0, n)) {
        rows_free(r);
        return av_error_nomem(err, _("out of memory for %d tokens"), n);
    }
    if (!(r->run = hf_run_new(d->hm, room, 0, err))) {
        rows_free(r);
        return -1;
    }
    return 0;
}

static HfSrc *data_of(const Model *m) { return m->src_data; }

static void shown_free(HfSrc *d) {
    hf_run_free(d->shown);
    free(d->shown_attn), free(d->shown_q), free(d->shown_k);
    d->shown = NULL, d->shown_attn = d->shown_q = d->shown_k = NULL;
    d->shown_layer = -1;
}

static void take_rows(HfSrc *d, Rows *r) {
    shown_free(d); /* of the rows before */
    Rows old = {d->ids, d->n, d->labels, d->run, d->attn};
    d->ids = r->ids, d->n = r->n, d->labels = r->labels, d->run = r->run, d->attn = r->attn;
    d->logits_row = -1;
    rows_free(&old);
    memset(r, 0, sizeof *r);
}

// ----------------------------------------------------------------------------
// the source's steps

/* The rows the model keeps (model_resize_rows): the run keeps them too. */
static int kept_rows(const Model *m, const HfSrc *d) { return m->keep_rows < d->n ? m->keep_rows : d->n; }

static void hf_src_forward(Model *m, int layer, int from) {
    (void)from;
    HfSrc *d = data_of(m);
    const HfConfig *c = d->cfg;
    int r0 = kept_rows(m, d);
    if (layer == 0 && hf_embed_from(d->run, d->ids, d->n, r0, NULL)) return;
    if (hf_layer_qkv_rows(d->run, layer, r0, d->n - r0)) return;
    d->logits_row = -1;
    int hs = c->head_dim, group = c->n_heads / c->n_kv_heads;
    const float *q = hf_run_q(d->run, layer), *k = hf_run_k(d->run, layer), *v = hf_run_v(d->run, layer);
    HeadData *hd = model_layer_heads(m, layer);
    for (int h = 0; h < c->n_heads; h++) {
        int g = h / group;
        for (int i = r0; i < d->n; i++) {
            memcpy(hd[h].q + (size_t)i * hs, q + (size_t)i * c->q_dim + (size_t)h * hs, sizeof(float) * hs);
            memcpy(hd[h].k + (size_t)i * hs, k + (size_t)i * c->kv_dim + (size_t)g * hs, sizeof(float) * hs);
            memcpy(hd[h].v + (size_t)i * hs, v + (size_t)i * c->kv_dim + (size_t)g * hs, sizeof(float) * hs);
        }
    }
}

/* The heads' outputs back into the model: W_o, residual, FFN; the next
 * layer's input changed, so it is stale from its projections. */
static void hf_src_final(Model *m, int layer) {
    HfSrc *d = data_of(m);
    const HfConfig *c = d->cfg;
    int hs = c->head_dim, r0 = kept_rows(m, d);
    const HeadData *hd = model_layer_heads(m, layer);
    for (int h = 0; h < c->n_heads; h++)
        for (int i = r0; i < d->n; i++)
            memcpy(d->attn + (size_t)i * c->q_dim + (size_t)h * hs, hd[h].out + (size_t)i * hs, sizeof(float) * hs);
    d->logits_row = -1;
    if (hf_layer_finish_rows(d->run, layer, d->attn, r0, d->n - r0)) return;
    if (layer + 1 < c->n_layers) model_invalidate_layer(m, layer + 1, STAGE_PROJECT);
}

static const char *hf_src_label(const Model *m, int i, size_t *len) {
    const char *s = data_of(m)->labels[i];
    *len = strlen(s);
    return s;
}

static int hf_src_id(const Model *m, int j) { return data_of(m)->ids[j]; }

static const char *hf_src_title(const Model *m) { return data_of(m)->title; }

/* config.json's numbers, by the names of the llama2.c header where they
 * mean the same (the JSON dump's "model"). */
static int hf_src_facts(const Model *m, SourceFact *out, int cap) {
    const HfConfig *c = data_of(m)->cfg;
    const SourceFact f[] = {{"dim", c->dim},          {"hidden_dim", c->hidden_dim}, {"n_layers", c->n_layers},
                            {"n_heads", c->n_heads},  {"n_kv_heads", c->n_kv_heads}, {"head_size", c->head_dim},
                            {"vocab_size", c->vocab}, {"seq_len", c->max_pos},       {"shared_classifier", c->tied},
                            {"qkv_bias", c->qkv_bias}};
    int n = (int)(sizeof f / sizeof *f);
    if (n > cap) n = cap;
    for (int i = 0; i < n; i++) out[i] = f[i];
    return n;
}

/* The logits of `row` in run->logits (computed when another row's are
 * there). 0, or -1 when cancelled. */
static int row_logits(HfSrc *d, int row) {
    if (d->logits_row == row) return 0;
    d->logits_row = -1;
    if (hf_logits_row(d->run, row)) return -1;
    d->logits_row = row;
    return 0;
}

/* The softmax of the row's logits (in double), its k largest. */
static int hf_src_next(const Model *m, int row, int k, int *ids, double *probs, const char **pieces, size_t *lens) {
    HfSrc *d = data_of(m);
    if (row < 0 || row >= d->n) row = d->n - 1;
    if (row_logits(d, row)) return 0;
    int got = nn_top_k_softmax(d->run->logits, d->cfg->vocab, k, ids, probs);
    for (int s = 0; s < got; s++) pieces[s] = hftok_piece(d->tok, ids[s], &lens[s]);
    return got;
}

static void hf_src_free(void *p) {
    HfSrc *d = p;
    if (!d) return;
    Rows r = {d->ids, d->n, d->labels, d->run, d->attn};
    rows_free(&r);
    shown_free(d);
    free(d->wo);
    hftok_free(d->tok);
    hf_close(d->hm);
    free(d);
}

/* Rows to make room for with n tokens: 2 n (n + 64 at least, the context
 * at most), less while the stages of that many would be past a budget. */
static int room_for(const Model *m, const HfSrc *d, int n) {
    int room = 2 * n > n + 64 ? 2 * n : n + 64;
    if (room > d->cfg->max_pos) room = d->cfg->max_pos;
    while (room > n && model_check_budget(&m->cfg, room, room, m->src, NULL)) room = n + (room - n) / 2;
    return room < n ? n : room;
}

/* Room for the first sentence to grow (an edit at its end keeps its rows
 * too): a run and a stages arena of room_for rows, before anything is
 * computed. Without the memory, none: the first edit makes it. */
static void make_room(Model *m, HfSrc *d) {
    int room = room_for(m, d, d->n);
    if (room <= d->n) return;
    HfRun *run = hf_run_new(d->hm, room, 0, NULL);
    float *attn = malloc(sizeof(float) * (size_t)room * (size_t)d->cfg->q_dim);
    ModelConfig c = m->cfg;
    if (!run || !attn || model_reshape_room(m, &c, d->n, d->n, room, m->src, 0, 0, NULL)) {
        hf_run_free(run), free(attn);
        return;
    }
    hf_run_free(d->run), free(d->attn);
    d->run = run, d->attn = attn;
}

/* The rows the new ids[0..n) can keep: their common start with the rows
 * now, when the model's stages are all current (or only the rows after its
 * kept ones are stale), the mask causal (a row sees no later key) and the
 * new rows fit in the run's and the model's room; else 0. */
static int rows_to_keep(const Model *m, const HfSrc *d, const int *ids, int n) {
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
static int keep_rows(Model *m, HfSrc *d, int *ids, int n, int keep, AvError *err) {
    char **labels = calloc((size_t)n, sizeof *labels);
    if (!labels || make_labels(d, labels, ids, keep, n)) {
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
    d->logits_row = -1;
    shown_free(d); /* the chain of other rows */
    return 0;
}

static int hf_src_set_text(Model *m, const char *text, size_t len, AvError *err) {
    HfSrc *d = data_of(m);
    char *copy = malloc(len + 1);
    if (!copy) return av_error_nomem(err, _("out of memory"));
    memcpy(copy, text, len);
    copy[len] = '\0';
    int *ids, n = encode(d, text, len, &ids, err);
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
        if (rows_make(&r, d, ids, n, room, err)) {
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
        model_mark_stale(m, STAGE_PROJECT);
    }
    free(m->text);
    m->text = copy;
    m->text_len = len;
    return 0;
}

static int hf_src_continue(Model *m, const char **piece, size_t *plen, AvError *err) {
    HfSrc *d = data_of(m);
    int id;
    double p;
    const char *raw;
    size_t rl;
    if (hf_src_next(m, d->n - 1, 1, &id, &p, &raw, &rl) < 1) return av_errorf(err, _("the prediction was cancelled"));
    if (hftok_is_special(d->tok, id)) return av_errorf(err, _("the model ends the text here (its end token)"));
    char *text = malloc(m->text_len + rl + 1);
    if (!text) return av_error_nomem(err, _("out of memory"));
    memcpy(text, m->text, m->text_len);
    memcpy(text + m->text_len, raw, rl);
    size_t total = m->text_len + rl;
    text[total] = '\0';
    int rc = hf_src_set_text(m, text, total, err);
    free(text);
    if (piece) *piece = raw, *plen = rl;
    return rc;
}

static const TrainedInfo *hf_src_trained(const Model *m) { return &data_of(m)->info; }

static const char *hf_src_piece(const Model *m, int id, size_t *len) { return hftok_piece(data_of(m)->tok, id, len); }

static const char *hf_src_decode(const Model *m, int prev, int id, size_t *len) {
    (void)prev;
    return hftok_piece(data_of(m)->tok, id, len);
}

/* Greedy decoding in a run of its own, each new token through hf_extend
 * (its keys and values kept): the same bits as a whole forward. */
static int hf_src_generate(const Model *m, int steps, int *out, AvError *err) {
    const HfSrc *d = data_of(m);
    int n = d->n;
    if (n + steps - 1 > d->cfg->max_pos)
        return av_errorf(err, _("--generate: %d tokens and %d more is past the model's context of %d"), n, steps,
                         d->cfg->max_pos);
    HfRun *r = hf_run_new(d->hm, n + steps - 1, 0, err);
    if (!r) return -1;
    int got = 0, rc = hf_forward(r, d->ids, n, err);
    while (!rc && got < steps) {
        const float *z = r->logits;
        int best = 0;
        for (int t = 1; t < d->cfg->vocab; t++)
            if (z[t] > z[best]) best = t;
        if (hftok_is_special(d->tok, best)) break; /* the end of a text */
        out[got++] = best;
        if (got < steps) rc = hf_extend(r, &best, 1, err);
    }
    hf_run_free(r);
    return rc ? -1 : got;
}

static int hf_src_chain(const Model *m, int l, LayerChain *out, AvError *err);

const Source source_hf = {
    .name = "model",
    .fixed = N_("a trained model's weights are its own"),
    .what = N_("the model's own tokenizer"),
    .lacks = N_("a trained model has no seeded embeddings to show here"),
    .knobs = N_("the sentence (e), the mask (m) and the scaling (s) can change"),
    .caps = SRC_TEXT | SRC_STACKED,
    .forward = hf_src_forward,
    .final = hf_src_final,
    .query_text = hf_src_label,
    .key_text = hf_src_label,
    .key_id = hf_src_id,
    .set_text = hf_src_set_text,
    .title = hf_src_title,
    .facts = hf_src_facts,
    .next_tokens = hf_src_next,
    .continue_text = hf_src_continue,
    .trained = hf_src_trained,
    .chain = hf_src_chain,
    .piece = hf_src_piece,
    .decode = hf_src_decode,
    .generate = hf_src_generate,
    .free = hf_src_free,
};

// ----------------------------------------------------------------------------
// opening

static int is_dir(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* There, whatever it is (a directory or a FIFO named tokenizer.json is said
 * as such by the reader, not called missing). */
static int exists(const char *path) {
    struct stat st;
    return lstat(path, &st) == 0;
}

/* The folder of a --model: the path itself, or the folder of a
 * model.safetensors, index or config.json in it. */
static void folder_of(const char *path, char *out, size_t cap) {
    if (is_dir(path)) {
        snprintf(out, cap, "%s", path);
        return;
    }
    const char *slash = strrchr(path, '/');
    if (!slash) snprintf(out, cap, ".");
    else if (slash == path) snprintf(out, cap, "/");
    else snprintf(out, cap, "%.*s", (int)(slash - path), path);
}

int source_hf_applies(const char *path) {
    if (is_dir(path)) return 1;
    size_t n = strlen(path);
    static const char *const ends[] = {".safetensors", ".safetensors.index.json", "config.json"};
    for (size_t i = 0; i < sizeof ends / sizeof *ends; i++) {
        size_t e = strlen(ends[i]);
        if (n >= e && strcmp(path + n - e, ends[i]) == 0) return 1;
    }
    return 0;
}

/* The tokenizer: --vocab (a tokenizer.json, or a vocab.json with its
 * merges.txt beside it), else tokenizer.json in the folder, else GPT-2's
 * vocab.json and merges.txt. */
static HfTok *open_tokenizer(const char *dir, const char *vocab_path, AvError *err) {
    char a[4096], b[4096];
    if (vocab_path) {
        size_t n = strlen(vocab_path);
        if (n >= 10 && strcmp(vocab_path + n - 10, "vocab.json") == 0) {
            const char *slash = strrchr(vocab_path, '/');
            int k = slash ? (int)(slash - vocab_path + 1) : 0;
            snprintf(b, sizeof b, "%.*smerges.txt", k, vocab_path);
            return hftok_open_gpt2(vocab_path, b, err);
        }
        return hftok_open(vocab_path, err);
    }
    snprintf(a, sizeof a, "%s/tokenizer.json", dir);
    if (exists(a)) return hftok_open(a, err);
    snprintf(a, sizeof a, "%s/vocab.json", dir);
    snprintf(b, sizeof b, "%s/merges.txt", dir);
    if (exists(a) && exists(b)) return hftok_open_gpt2(a, b, err);
    char *e = utf8_escape(dir, strlen(dir));
    av_errorf(err, _("%s: no tokenizer: tokenizer.json (or vocab.json and merges.txt) is missing; give --vocab FILE"),
              e ? e : _("the model's folder"));

    free(e);
    return NULL;
}

/* The first special token among the usual start tokens, or -1. */
static int start_token(const HfTok *t) {
    static const char *const names[] = {"<s>", "<|endoftext|>", "<|begin_of_text|>", "<|im_start|>"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        int id = hftok_lookup(t, names[i], strlen(names[i]));
        if (id >= 0 && hftok_is_special(t, id)) return id;
    }
    return -1;
}

int model_set_hf(Model *m, const char *path, const char *vocab_path, const char *text, size_t len, AvError *err) {
    char dir[4096];
    folder_of(path, dir, sizeof dir);
    HfSrc *d = calloc(1, sizeof *d);
    if (!d) return av_error_nomem(err, _("out of memory"));
    d->shown_layer = d->wo_layer = d->logits_row = -1;
    if (!(d->hm = hf_open(dir, err))) {
        free(d);
        return -1;
    }
    d->cfg = hf_config(d->hm);
    const HfConfig *c = d->cfg;
    if (!(d->tok = open_tokenizer(dir, vocab_path, err))) {
        hf_src_free(d);
        return -1;
    }
    if (c->n_layers > MODEL_MAX_LAYERS || c->n_heads > MODEL_MAX_HEADS || c->head_dim > MODEL_MAX_DIM ||
        c->dim > MODEL_MAX_DIM) {
        HfConfig k = *c;
        hf_src_free(d);
        return av_errorf(err, _("%s: %d layers of %d heads of %d (dim %d) is more than attnviz shows (%d, %d, %d)"),
                         dir, k.n_layers, k.n_heads, k.head_dim, k.dim, MODEL_MAX_LAYERS, MODEL_MAX_HEADS,
                         MODEL_MAX_DIM);
    }
    d->bos = start_token(d->tok);
    d->info = (TrainedInfo){.arch = c->model_type,
                            .n_layers = c->n_layers,
                            .n_heads = c->n_heads,
                            .n_kv_heads = c->n_kv_heads,
                            .head_size = c->head_dim,
                            .dim = c->dim,
                            .q_dim = c->q_dim,
                            .kv_dim = c->kv_dim,
                            .hidden_dim = c->hidden_dim,
                            .vocab = c->vocab,
                            .ctx = c->max_pos,
                            .rope = c->arch == HF_LLAMA ? ROPE_HALF : ROPE_NONE,
                            .rope_theta = c->rope_theta,
                            .layernorm = c->arch == HF_GPT2,
                            .gelu = c->arch == HF_GPT2,
                            .qkv_bias = c->qkv_bias,
                            .o_bias = c->o_bias};
    /* The title: the folder's name ("gpt2", "SmolLM2-135M"), escaped (it
     * is printed: the status line, the dumps, messages). */
    size_t dl = strlen(dir);
    while (dl > 1 && dir[dl - 1] == '/') dir[--dl] = '\0';
    const char *base = strrchr(dir, '/');
    utf8_escape_into(d->title, sizeof d->title, base && base[1] ? base + 1 : dir);
    if (strcmp(d->title, ".") == 0) utf8_escape_into(d->title, sizeof d->title, c->model_type);
    Rows r;
    int *ids, n = encode(d, text, len, &ids, err);
    if (n < 0 || rows_make(&r, d, ids, n, n, err)) {
        hf_src_free(d);
        return -1;
    }
    take_rows(d, &r);
    SourceShape sh = {c->n_layers, c->n_heads, c->head_dim, c->head_dim, d->n, d->n, c->dim};
    char *copy = malloc(len + 1);
    if (!copy) {
        hf_src_free(d);
        return av_error_nomem(err, _("out of memory"));
    }
    memcpy(copy, text, len);
    copy[len] = '\0';
    if (model_set_source(m, &source_hf, d, &sh, err)) { /* frees d */
        free(copy);
        return -1;
    }
    make_room(m, data_of(m));
    free(m->text);
    m->text = copy;
    m->text_len = len;
    return 0;
}

const HfModel *model_hf(const Model *m) { return m->src == &source_hf ? data_of(m)->hm : NULL; }
const HfTok *model_hf_tok(const Model *m) { return m->src == &source_hf ? data_of(m)->tok : NULL; }

// ----------------------------------------------------------------------------
// the chain of one layer

static int shown_current(const HfSrc *d, const Model *m, int l) {
    if (!d->shown || d->shown_layer != l) return 0;
    const HfConfig *c = d->cfg;
    if (memcmp(hf_run_x(d->shown, l), hf_run_x(d->run, l), sizeof(float) * (size_t)d->n * c->dim)) return 0;
    const HeadData *hd = model_layer_heads(m, l);
    int hs = c->head_dim;
    for (int h = 0; h < c->n_heads; h++)
        for (int i = 0; i < d->n; i++)
            if (memcmp(d->shown_attn + (size_t)i * c->q_dim + (size_t)h * hs, hd[h].out + (size_t)i * hs,
                       sizeof(float) * hs))
                return 0;
    return 1;
}

static int shown_compute(HfSrc *d, const Model *m, int l, AvError *err) {
    const HfConfig *c = d->cfg;
    size_t n = (size_t)d->n, hs = (size_t)c->head_dim;
    if (!d->shown) {
        if (!(d->shown = hf_run_new(d->hm, d->n, 0, err))) return -1;
        d->shown_attn = malloc(sizeof(float) * n * c->q_dim);
        d->shown_q = malloc(sizeof(float) * n * c->q_dim);
        d->shown_k = malloc(sizeof(float) * n * c->kv_dim);
        if (!d->shown_attn || !d->shown_q || !d->shown_k) {
            shown_free(d);
            return av_error_nomem(err, _("out of memory for the chain of layer %d"), l + 1);
        }
    }
    if (d->wo_layer != l) {
        if (!d->wo && !(d->wo = malloc(sizeof(float) * (size_t)c->dim * c->q_dim)))
            return av_error_nomem(err, _("out of memory for W_o of layer %d"), l + 1);
        hf_layer_wo(d->hm, l, d->wo);
        d->wo_layer = l;
    }
    d->shown_layer = -1;
    HfRun *r = d->shown;
    if (hf_embed(r, d->ids, d->n, err)) return -1;
    memcpy(hf_run_x(r, l), hf_run_x(d->run, l), sizeof(float) * n * c->dim);
    const HeadData *hd = model_layer_heads(m, l);
    for (int h = 0; h < c->n_heads; h++)
        for (size_t i = 0; i < n; i++)
            memcpy(d->shown_attn + i * c->q_dim + h * hs, hd[h].out + i * hs, sizeof(float) * hs);
    if (hf_layer_qkv(r, l) || hf_layer_finish(r, l, d->shown_attn))
        return av_errorf(err, _("the chain of layer %d was cancelled"), l + 1);
    const float *qr = c->arch == HF_LLAMA ? r->q_raw : hf_run_q(r, l);
    const float *kr = c->arch == HF_LLAMA ? r->k_raw : hf_run_k(r, l);
    for (int h = 0; h < c->n_heads; h++)
        for (size_t i = 0; i < n; i++)
            memcpy(d->shown_q + (h * n + i) * hs, qr + i * c->q_dim + h * hs, sizeof(float) * hs);
    for (int g = 0; g < c->n_kv_heads; g++)
        for (size_t i = 0; i < n; i++)
            memcpy(d->shown_k + (g * n + i) * hs, kr + i * c->kv_dim + g * hs, sizeof(float) * hs);
    d->shown_layer = l;
    return 0;
}

static int hf_src_chain(const Model *m, int l, LayerChain *out, AvError *err) {
    HfSrc *d = data_of(m);
    const HfConfig *c = d->cfg;
    if (!shown_current(d, m, l) && shown_compute(d, m, l, err)) return -1;
    const HfRun *r = d->shown;
    int llama = c->arch == HF_LLAMA;
    *out = (LayerChain){
        .layer = l,
        .n = d->n,
        .dim = c->dim,
        .q_dim = c->q_dim,
        .kv_dim = c->kv_dim,
        .hidden_dim = c->hidden_dim,
        .head_size = c->head_dim,
        .n_heads = c->n_heads,
        .n_kv_heads = c->n_kv_heads,
        .x = hf_run_x(r, l),
        .xb = r->xb,
        .q_raw = llama ? r->q_raw : hf_run_q(r, l),
        .k_raw = llama ? r->k_raw : hf_run_k(r, l),
        .q = hf_run_q(r, l),
        .k = hf_run_k(r, l),
        .v = hf_run_v(r, l),
        .q_raw_heads = d->shown_q,
        .k_raw_heads = d->shown_k,
        .att = d->shown_attn,
        .proj = r->proj,
        .mid = r->mid,
        .xb2 = r->xb2,
        .hb = r->hb,
        .ffn = r->ffn,
        .x_next = hf_run_x(r, l + 1),
        .wo = d->wo,
        .rope = llama ? r->rope : NULL,
    };
    return 0;
}
