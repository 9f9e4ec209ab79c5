/* source_trained.c - a trained model (the engine, transformer.h, on a
 * checkpoint that formats.h opened) with its tokenizer (vocab.h) as a
 * source of Q, K and V (source.h). The sentence is tokenized with the
 * model's own tokenizer; each layer's Q and K (after RoPE, where the model
 * has it) and V come from the engine's layer-wise steps, the attention
 * itself (scores, scaling, mask, softmax, A V) is the app's, and the heads'
 * outputs go back into the engine for W_o, the residual and the MLP, which
 * give the next layer its input (SRC_STACKED). Query head h reads key/value
 * head h / (n_heads / n_kv_heads). The model is causal: the front end
 * starts it with the causal mask; mask none shows what it would do if it
 * could see the future, every later layer recomputed.
 *
 * The logits: only of the row asked for (model_want_next: the next-token
 * panel's cursor row, the last for the dumps), computed by the model's
 * update (predict) and kept until the rows change: a vocabulary of 50257
 * (GPT-2) or 151936 (Qwen2) times every row would cost more memory than
 * the rest. */
#include "i18n.h"
#include "source_trained.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ablate.h"
#include "cancel.h"
#include "formats.h"
#include "model_internal.h"
#include "nnops.h"

typedef struct {
    Checkpoint ck;       /* the engine's model, its tokenizer, title and numbers */
    const TfConfig *cfg; /* ck.model's */
    TfRun *run;
    int *ids, n;
    char **labels;  /* n screen forms of the pieces ("▁Lily", "Ġthe" as "▁the") */
    float *attn;    /* (room, q_dim): the heads' outputs joined, for tf_layer_finish */
    int logits_row; /* the row whose logits run->logits holds; -1: none */
    TrainedInfo info;
    /* The layer shown (model_layer_chain): computed again in a run of its
     * own from the main run's input of the layer and the heads' outputs,
     * which it keeps to know when they change. */
    TfRun *shown;
    int shown_layer;          /* -1: none yet */
    float *shown_attn;        /* (n, q_dim) the heads' outputs it was computed from */
    float *shown_q, *shown_k; /* RoPE's input (q_normed or q_raw, k likewise) head by head */
    float *wo;                /* (dim, q_dim) W_o of the layer shown, as floats */
    int wo_layer;             /* -1: none */
    Ablation abl;             /* the heads switched off (ablate.h) */
} TrainedSrc;

/* The rows of one sentence: ids, labels, a run, the joined outputs. Built
 * whole before anything is replaced. */
typedef struct {
    int *ids, n;
    char **labels;
    TfRun *run;
    float *attn;
} Rows;

static void rows_free(Rows *r) {
    for (int i = 0; r->labels && i < r->n; i++) free(r->labels[i]);
    free(r->labels), free(r->ids), free(r->attn);
    tf_run_free(r->run);
    memset(r, 0, sizeof *r);
}

/* The ids of text (the tokenizer's start token for an empty one): their
 * count, *ids set (caller frees), or -1 with a message (the tokenizer's,
 * the context, the vocabulary). */
static int encode(const TrainedSrc *d, const char *text, size_t len, int **ids, AvError *err) {
    int n = vocab_encode(d->ck.vocab, text, len, ids, err), start = vocab_start(d->ck.vocab);
    if (n < 0) return -1;
    if (n == 0) { /* an empty sentence: the model's start token */
        free(*ids);
        if (start < 0 || !(*ids = malloc(sizeof **ids)))
            return av_errorf(err, _("the sentence has no tokens (and %s has no start token to begin with)"),
                             d->ck.title);
        (*ids)[0] = start, n = 1;
    }
    int bad = -1;
    if (n > d->cfg->max_pos)
        av_errorf(err, _("the sentence is %d tokens; %s takes at most %d"), n, d->ck.title, d->cfg->max_pos);
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
static int make_labels(const TrainedSrc *d, char **labels, const int *ids, int from, int n) {
    for (int i = from; i < n; i++) {
        char buf[256];
        vocab_display(d->ck.vocab, ids[i], buf, sizeof buf);
        if (!(labels[i] = strdup(buf))) return -1;
    }
    return 0;
}

/* The rows of ids[0..n) (taken: freed on failure too) in a run with room
 * for `room` rows (at least n). */
static int rows_make(Rows *r, const TrainedSrc *d, int *ids, int n, int room, AvError *err) {
    memset(r, 0, sizeof *r);
    r->ids = ids, r->n = n;
    if (room < n) room = n;
    r->labels = calloc((size_t)n, sizeof *r->labels);
    r->attn = malloc(sizeof(float) * (size_t)room * (size_t)d->cfg->q_dim);
    if (!r->labels || !r->attn || make_labels(d, r->labels, ids, 0, n)) {
        rows_free(r);
        return av_error_nomem(err, _("out of memory for %d tokens"), n);
    }
    if (!(r->run = tf_run_new(d->ck.model, room, 0, err))) {
        rows_free(r);
        return -1;
    }
    return 0;
}

static TrainedSrc *data_of(const Model *m) { return m->src_data; }

static void shown_free(TrainedSrc *d) {
    tf_run_free(d->shown);
    free(d->shown_attn), free(d->shown_q), free(d->shown_k);
    d->shown = NULL, d->shown_attn = d->shown_q = d->shown_k = NULL;
    d->shown_layer = -1;
}

static void take_rows(TrainedSrc *d, Rows *r) {
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
static int kept_rows(const Model *m, const TrainedSrc *d) { return m->keep_rows < d->n ? m->keep_rows : d->n; }

static void trained_forward(Model *m, int layer, int from) {
    (void)from;
    TrainedSrc *d = data_of(m);
    const TfConfig *c = d->cfg;
    int r0 = kept_rows(m, d);
    d->logits_row = -1;
    if (layer == 0 && tf_embed_from(d->run, d->ids, d->n, r0, NULL)) return;
    if (tf_layer_qkv_rows(d->run, layer, r0, d->n - r0)) return;
    int hs = c->head_dim, group = c->n_heads / c->n_kv_heads;
    const float *q = tf_run_q(d->run, layer), *k = tf_run_k(d->run, layer), *v = tf_run_v(d->run, layer);
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

/* The heads' outputs back into the model: W_o, residual, MLP; the next
 * layer's input changed, so it is stale from its projections. */
static void trained_final(Model *m, int layer) {
    TrainedSrc *d = data_of(m);
    const TfConfig *c = d->cfg;
    int hs = c->head_dim, r0 = kept_rows(m, d);
    const HeadData *hd = model_layer_heads(m, layer);
    for (int h = 0; h < c->n_heads; h++)
        for (int i = r0; i < d->n; i++)
            memcpy(d->attn + (size_t)i * c->q_dim + (size_t)h * hs, hd[h].out + (size_t)i * hs, sizeof(float) * hs);
    d->logits_row = -1;
    ablation_stale(&d->abl);
    ablation_attach(&d->abl, d->run); /* the heads switched off: their outputs zeroed or meaned before W_O */
    tf_ablate_rows(d->run, layer, d->attn, r0, d->n - r0);
    if (tf_layer_finish_rows(d->run, layer, d->attn, r0, d->n - r0)) return;
    if (layer + 1 < c->n_layers) model_invalidate_layer(m, layer + 1, STAGE_PROJECT);
}

static const char *trained_label(const Model *m, int i, size_t *len) {
    const char *s = data_of(m)->labels[i];
    *len = strlen(s);
    return s;
}

static int trained_id(const Model *m, int j) { return data_of(m)->ids[j]; }

static const char *trained_title(const Model *m) { return data_of(m)->ck.title; }

static int trained_facts(const Model *m, SourceFact *out, int cap) {
    const Checkpoint *ck = &data_of(m)->ck;
    int n = ck->n_facts < cap ? ck->n_facts : cap;
    memcpy(out, ck->facts, sizeof *out * (size_t)(n > 0 ? n : 0));
    return n;
}

/* The logits of `row` into run->logits (the update's work: the model asks
 * for them once its layers are current). 0, or -1 when cancelled. */
static int trained_predict(Model *m, int row) {
    TrainedSrc *d = data_of(m);
    if (row < 0 || row >= d->n) row = d->n - 1;
    if (d->logits_row == row) return 0;
    d->logits_row = -1;
    if (tf_logits_row(d->run, row)) return -1;
    /* with heads switched off, the model without them too (the panel's
     * "before"), from the first ablated layer on */
    if (d->abl.n && m->cfg.mask == MASK_CAUSAL && d->abl.clean_row != row &&
        ablation_predict_clean(&d->abl, d->run, row) && av_cancelled())
        return -1;
    d->logits_row = row;
    return 0;
}

static int trained_next_change(const Model *m, int row, int k, NextChange *out) {
    const TrainedSrc *d = data_of(m);
    if (row < 0 || row >= d->n) row = d->n - 1;
    if (d->logits_row != row || m->cfg.mask != MASK_CAUSAL) return 0;
    return ablation_next_change(&d->abl, d->run->logits, d->cfg->vocab, row, k, d->ck.vocab, out);
}

/* The heads switched off: the layers from the first changed one are
 * recomputed by the next update (all their rows), the layers below kept.
 * Mean ablation uses the English text battery's means, whatever the
 * interface's language: the same numbers everywhere. */
static int trained_ablate(Model *m, const HeadAblation *list, int n, AvError *err) {
    TrainedSrc *d = data_of(m);
    int first;
    if (ablation_set(&d->abl, d->ck.model, d->ck.vocab, BATTERY_TEXT_EN, list, n, &first, err)) return -1;
    if (first >= d->cfg->n_layers) return 0;      /* the same heads */
    if (m->stale != STAGE_NONE) m->keep_rows = 0; /* an edit's rows pending: every row, the ablation everywhere */
    d->logits_row = -1;
    shown_free(d); /* the chain's heads joined change */
    model_invalidate_layer(m, first, STAGE_FINAL);
    return 0;
}

static int trained_ablated(const Model *m, HeadAblation *out, int cap) {
    const TrainedSrc *d = data_of(m);
    int n = d->abl.n < cap ? d->abl.n : cap;
    memcpy(out, d->abl.list, sizeof *out * (size_t)(n > 0 ? n : 0));
    return n;
}

/* The softmax of the row's logits (in double), its k largest: what predict
 * computed; none when it has not computed this row's. */
static int trained_next(const Model *m, int row, int k, int *ids, double *probs, const char **pieces, size_t *lens) {
    const TrainedSrc *d = data_of(m);
    if (row < 0 || row >= d->n) row = d->n - 1;
    if (d->logits_row != row) return 0;
    int got = nn_top_k_softmax(d->run->logits, d->cfg->vocab, k, ids, probs);
    for (int s = 0; s < got; s++) pieces[s] = vocab_piece(d->ck.vocab, ids[s], &lens[s]);
    return got;
}

static void trained_free(void *p) {
    TrainedSrc *d = p;
    if (!d) return;
    Rows r = {d->ids, d->n, d->labels, d->run, d->attn};
    rows_free(&r);
    shown_free(d);
    free(d->wo);
    ablation_free(&d->abl);
    checkpoint_close(&d->ck);
    free(d);
}

/* Rows to make room for with n tokens: 2 n (n + 64 at least, the context
 * at most), less while the stages of that many would be past a budget. */
static int room_for(const Model *m, const TrainedSrc *d, int n) {
    int room = 2 * n > n + 64 ? 2 * n : n + 64;
    if (room > d->cfg->max_pos) room = d->cfg->max_pos;
    while (room > n && model_check_budget(&m->cfg, room, room, m->src, NULL)) room = n + (room - n) / 2;
    return room < n ? n : room;
}

/* Room for the first sentence to grow (an edit at its end keeps its rows
 * too): a run and a stages arena of room_for rows, before anything is
 * computed. Without the memory, none: the first edit makes it. */
static void make_room(Model *m, TrainedSrc *d) {
    int room = room_for(m, d, d->n);
    if (room <= d->n) return;
    TfRun *run = tf_run_new(d->ck.model, room, 0, NULL);
    float *attn = malloc(sizeof(float) * (size_t)room * (size_t)d->cfg->q_dim);
    ModelConfig c = m->cfg;
    if (!run || !attn || model_reshape_room(m, &c, d->n, d->n, room, m->src, 0, 0, NULL)) {
        tf_run_free(run), free(attn);
        return;
    }
    tf_run_free(d->run), free(d->attn);
    d->run = run, d->attn = attn;
}

/* The rows the new ids[0..n) can keep: their common start with the rows
 * now, when the model's stages are all current (or only the rows after its
 * kept ones are stale), the mask causal (a row sees no later key) and the
 * new rows fit in the run's and the model's room; else 0. */
static int rows_to_keep(const Model *m, const TrainedSrc *d, const int *ids, int n) {
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
static int keep_rows(Model *m, TrainedSrc *d, int *ids, int n, int keep, AvError *err) {
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

static int trained_set_text(Model *m, const char *text, size_t len, AvError *err) {
    TrainedSrc *d = data_of(m);
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
        model_mark_stale(m, STAGE_PROJECT); /* other tokens in the same number of rows */
    }
    free(m->text);
    m->text = copy;
    m->text_len = len;
    return 0;
}

/* The likeliest token after the last row (predicted now: an action, not a
 * draw), its text appended to the sentence's. */
static int trained_continue(Model *m, const char **piece, size_t *plen, AvError *err) {
    TrainedSrc *d = data_of(m);
    int id;
    double p;
    const char *raw;
    size_t rl, len;
    if (trained_predict(m, d->n - 1) || trained_next(m, d->n - 1, 1, &id, &p, &raw, &rl) < 1)
        return av_errorf(err, _("the prediction was cancelled"));
    /* the one row of logits the source keeps is the last row's now */
    m->next_row = d->n - 1, m->next_ready = m->stale == STAGE_NONE;
    if (vocab_is_end(d->ck.vocab, id)) return av_errorf(err, _("the model ends the text here (its end token)"));
    const char *s = vocab_decode(d->ck.vocab, d->ids[d->n - 1], id, &len);
    char *text = malloc(m->text_len + len + 1);
    if (!text) return av_error_nomem(err, _("out of memory"));
    memcpy(text, m->text, m->text_len);
    memcpy(text + m->text_len, s, len);
    size_t total = m->text_len + len;
    text[total] = '\0';
    int rc = trained_set_text(m, text, total, err);
    free(text);
    if (piece) *piece = raw, *plen = rl;
    return rc;
}

static const TrainedInfo *trained_info(const Model *m) { return &data_of(m)->info; }

static const char *trained_piece(const Model *m, int id, size_t *len) {
    return vocab_piece(data_of(m)->ck.vocab, id, len);
}

static const char *trained_decode(const Model *m, int prev, int id, size_t *len) {
    return vocab_decode(data_of(m)->ck.vocab, prev, id, len);
}

static int is_end(const void *vocab, int id) { return vocab_is_end(vocab, id); }

/* Greedy decoding in a run of its own, each new token through tf_extend
 * (its keys and values kept): the same bits as a whole forward. */
static int trained_generate(const Model *m, int steps, int *out, AvError *err) {
    const TrainedSrc *d = data_of(m);
    int n = d->n;
    if (n + steps - 1 > d->cfg->max_pos)
        return av_errorf(err, _("--generate: %d tokens and %d more is past the model's context of %d"), n, steps,
                         d->cfg->max_pos);
    TfRun *r = tf_run_new(d->ck.model, steps > 1 ? n + steps - 1 : n, 0, err);
    if (!r) return -1;
    ablation_attach(&d->abl, r); /* the model as shown: its heads switched off too */
    int got = tf_generate_greedy(r, d->ids, n, steps, out, is_end, d->ck.vocab, err);
    tf_run_free(r);
    return got;
}

static int trained_chain(const Model *m, int l, LayerChain *out, AvError *err);

const Source source_trained = {
    .name = "model",
    .fixed = N_("a trained model's weights are its own"),
    .what = N_("the model's own tokenizer"),
    .caps = SRC_TEXT | SRC_STACKED,
    .forward = trained_forward,
    .final = trained_final,
    .query_text = trained_label,
    .key_text = trained_label,
    .key_id = trained_id,
    .set_text = trained_set_text,
    .title = trained_title,
    .facts = trained_facts,
    .predict = trained_predict,
    .next_tokens = trained_next,
    .continue_text = trained_continue,
    .trained = trained_info,
    .chain = trained_chain,
    .piece = trained_piece,
    .decode = trained_decode,
    .generate = trained_generate,
    .ablate = trained_ablate,
    .ablated = trained_ablated,
    .next_change = trained_next_change,
    .free = trained_free,
};

// ----------------------------------------------------------------------------
// opening

int model_set_trained(Model *m, const char *path, const char *vocab_path, const char *text, size_t len, AvError *err) {
    TrainedSrc *d = calloc(1, sizeof *d);
    if (!d) return av_error_nomem(err, _("out of memory"));
    d->shown_layer = d->wo_layer = d->logits_row = -1;
    ablation_init(&d->abl);
    if (checkpoint_open(&d->ck, path, vocab_path, err)) {
        free(d);
        return -1;
    }
    const TfConfig *c = d->cfg = &d->ck.model->cfg;
    if (c->n_layers > MODEL_MAX_LAYERS || c->n_heads > MODEL_MAX_HEADS || c->head_dim > MODEL_MAX_DIM ||
        c->dim > MODEL_MAX_DIM) {
        TfConfig k = *c;
        trained_free(d);
        return av_errorf(err, _("%s: %d layers of %d heads of %d (dim %d) is more than attnviz shows (%d, %d, %d)"),
                         path, k.n_layers, k.n_heads, k.head_dim, k.dim, MODEL_MAX_LAYERS, MODEL_MAX_HEADS,
                         MODEL_MAX_DIM);
    }
    tf_trained_info(d->ck.model, &d->info);
    Rows r;
    int *ids, n = encode(d, text, len, &ids, err);
    if (n < 0 || rows_make(&r, d, ids, n, n, err)) {
        trained_free(d);
        return -1;
    }
    take_rows(d, &r);
    SourceShape sh = {c->n_layers, c->n_heads, c->head_dim, c->head_dim, d->n, d->n, c->dim};
    char *copy = malloc(len + 1);
    if (!copy) {
        trained_free(d);
        return av_error_nomem(err, _("out of memory"));
    }
    memcpy(copy, text, len);
    copy[len] = '\0';
    if (model_set_source(m, &source_trained, d, &sh, err)) { /* frees d */
        free(copy);
        return -1;
    }
    make_room(m, data_of(m));
    free(m->text);
    m->text = copy;
    m->text_len = len;
    return 0;
}

const TfModel *model_trained_engine(const Model *m) { return m->src == &source_trained ? data_of(m)->ck.model : NULL; }
const TfRun *model_trained_run(const Model *m) { return m->src == &source_trained ? data_of(m)->run : NULL; }
const Vocab *model_trained_vocab(const Model *m) { return m->src == &source_trained ? data_of(m)->ck.vocab : NULL; }

int model_trained_ablation(const Model *m, const TfAblation **out) {
    *out = NULL;
    if (m->src != &source_trained || !data_of(m)->abl.n) return 0;
    *out = data_of(m)->abl.tf;
    return data_of(m)->abl.n;
}

// ----------------------------------------------------------------------------
// the chain of one layer

/* 1 when head h of layer l is switched off (its output is the ablation's). */
static int ablated_in(const Ablation *a, int l, int h) {
    for (int k = 0; k < a->n; k++)
        if (a->list[k].layer == l && a->list[k].head == h) return 1;
    return 0;
}

/* 1 when the shown run was computed for layer l from the main run's input
 * of l and the heads' outputs of l as they are now. */
static int shown_current(const TrainedSrc *d, const Model *m, int l) {
    if (!d->shown || d->shown_layer != l) return 0;
    const TfConfig *c = d->cfg;
    if (memcmp(tf_run_x(d->shown, l), tf_run_x(d->run, l), sizeof(float) * (size_t)d->n * c->dim)) return 0;
    const HeadData *hd = model_layer_heads(m, l);
    int hs = c->head_dim;
    for (int h = 0; h < c->n_heads; h++)
        for (int i = 0; i < d->n && !ablated_in(&d->abl, l, h); i++)
            if (memcmp(d->shown_attn + (size_t)i * c->q_dim + (size_t)h * hs, hd[h].out + (size_t)i * hs,
                       sizeof(float) * hs))
                return 0;
    return 1;
}

/* Layer l again, in the shown run: its input copied from the main run, the
 * engine's steps, the heads' outputs as the attention (as final() does). */
static int shown_compute(TrainedSrc *d, const Model *m, int l, AvError *err) {
    const TfConfig *c = d->cfg;
    size_t n = (size_t)d->n, hs = (size_t)c->head_dim;
    if (!d->shown) {
        if (!(d->shown = tf_run_new(d->ck.model, d->n, 0, err))) return -1;
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
        tf_layer_wo(d->ck.model, l, d->wo);
        d->wo_layer = l;
    }
    d->shown_layer = -1;
    TfRun *r = d->shown;
    if (tf_embed(r, d->ids, d->n, err)) return -1; /* the rows; x of layer 0 */
    memcpy(tf_run_x(r, l), tf_run_x(d->run, l), sizeof(float) * n * c->dim);
    const HeadData *hd = model_layer_heads(m, l);
    for (int h = 0; h < c->n_heads; h++)
        for (size_t i = 0; i < n; i++)
            memcpy(d->shown_attn + i * c->q_dim + h * hs, hd[h].out + i * hs, sizeof(float) * hs);
    ablation_attach(&d->abl, r);
    tf_ablate_rows(r, l, d->shown_attn, 0, d->n);
    if (tf_layer_qkv(r, l) || tf_layer_finish(r, l, d->shown_attn))
        return av_errorf(err, _("the chain of layer %d was cancelled"), l + 1);
    /* RoPE's input: after the q/k norm where there is one, else as projected */
    int rope = c->arch->rope != ROPE_NONE, qkn = c->arch->qk_norm;
    const float *qr = qkn ? r->q_normed : rope ? r->q_raw : tf_run_q(r, l);
    const float *kr = qkn ? r->k_normed : rope ? r->k_raw : tf_run_k(r, l);
    for (int h = 0; h < c->n_heads; h++)
        for (size_t i = 0; i < n; i++)
            memcpy(d->shown_q + (h * n + i) * hs, qr + i * c->q_dim + h * hs, sizeof(float) * hs);
    for (int g = 0; g < c->n_kv_heads; g++)
        for (size_t i = 0; i < n; i++)
            memcpy(d->shown_k + (g * n + i) * hs, kr + i * c->kv_dim + g * hs, sizeof(float) * hs);
    d->shown_layer = l;
    return 0;
}

static int trained_chain(const Model *m, int l, LayerChain *out, AvError *err) {
    TrainedSrc *d = data_of(m);
    const TfConfig *c = d->cfg;
    if (!shown_current(d, m, l) && shown_compute(d, m, l, err)) return -1;
    const TfRun *r = d->shown;
    int raw = c->arch->rope != ROPE_NONE || c->arch->qk_norm; /* q_raw kept apart from q */
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
        .x = tf_run_x(r, l),
        .xb = r->xb,
        .q_raw = raw ? r->q_raw : tf_run_q(r, l),
        .k_raw = raw ? r->k_raw : tf_run_k(r, l),
        .q_normed = r->q_normed,
        .k_normed = r->k_normed,
        .q = tf_run_q(r, l),
        .k = tf_run_k(r, l),
        .v = tf_run_v(r, l),
        .q_raw_heads = d->shown_q,
        .k_raw_heads = d->shown_k,
        .att = d->shown_attn,
        .proj = r->proj,
        .mid = r->mid,
        .xb2 = r->xb2,
        .hb = r->hb,
        .ffn = r->ffn,
        .x_next = tf_run_x(r, l + 1),
        .wo = d->wo,
        .rope = c->arch->rope != ROPE_NONE ? r->rope : NULL,
    };
    return 0;
}
