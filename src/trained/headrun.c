/* headrun.c - see headrun.h. */
#include "headrun.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "headtests.h"
#include "i18n.h"
#include "transformer.h"
#include "vocab.h"

static const char *const score_names[HT_COUNT] = {"previous", "duplicate", "induction_mul", "sink", "induction"};

const char *headtest_score_name(HeadTestScore s) { return (unsigned)s < HT_COUNT ? score_names[s] : "?"; }

/* Head h of layer l's weights over the run's n rows into a (n x n, causal),
 * from the engine's queries and keys, in double, rounded once. */
static void head_weights(const TfRun *r, int l, int h, int n, float *a, double *row) {
    const TfConfig *c = r->cfg;
    int hd = c->head_dim, g = h / (c->n_heads / c->n_kv_heads);
    const float *q = tf_run_q(r, l), *k = tf_run_k(r, l);
    double scale = 1.0 / sqrt((double)hd);
    for (int i = 0; i < n; i++) {
        const float *qi = q + (size_t)i * c->q_dim + (size_t)h * hd;
        double mx = -INFINITY, sum = 0;
        for (int j = 0; j <= i; j++) {
            const float *kj = k + (size_t)j * c->kv_dim + (size_t)g * hd;
            double s = 0;
            for (int p = 0; p < hd; p++) s += (double)qi[p] * kj[p];
            row[j] = s * scale;
            if (row[j] > mx) mx = row[j];
        }
        for (int j = 0; j <= i; j++) sum += row[j] = exp(row[j] - mx);
        for (int j = 0; j < n; j++) a[(size_t)i * n + j] = j <= i ? (float)(row[j] / sum) : 0.0f;
    }
}

/* The queries and keys of every layer for ids[0..n). */
static int forward_qk(TfRun *r, const int *ids, int n, AvError *err) {
    if (tf_embed(r, ids, n, err)) return -1;
    for (int l = 0; l < r->cfg->n_layers; l++)
        if (tf_layer_qkv(r, l) || tf_layer_attend(r, l) || tf_layer_finish(r, l, NULL))
            return av_errorf(err, _("the head tests were cancelled"));
    return 0;
}

/* Adds every head's scores of the run's n rows (tok: their ids) to acc,
 * the text scores or the induction stripe. */
static void score_run(const TfRun *r, const int *tok, int n, int stripe_s, double *acc, float *a, double *row) {
    const TfConfig *c = r->cfg;
    for (int l = 0; l < c->n_layers; l++)
        for (int h = 0; h < c->n_heads; h++) {
            head_weights(r, l, h, n, a, row);
            double *s = acc + ((size_t)l * c->n_heads + h) * HT_COUNT;
            if (stripe_s) {
                s[HT_INDUCTION] += headtest_induction_stripe(a, n, stripe_s);
            } else {
                s[HT_PREV] += headtest_mul(a, n, tok, HEADTEST_PREV, 0, 0);
                s[HT_DUPLICATE] += headtest_mul(a, n, tok, HEADTEST_DUPLICATE, 0, 0);
                s[HT_INDUCTION_MUL] += headtest_mul(a, n, tok, HEADTEST_INDUCTION, 0, 0);
                s[HT_SINK] += headtest_sink(a, n);
            }
        }
}

/* 1 for an id a random sequence may hold: not the start or an end token,
 * not a special or byte piece ("<s>", "<0x0A>", "<|endoftext|>"). */
static int ordinary(const Vocab *v, int id) {
    size_t len;
    const char *p = vocab_piece(v, id, &len);
    if (!len || id == vocab_start(v) || vocab_is_end(v, id)) return 0;
    return !(len > 2 && p[0] == '<' && p[len - 1] == '>');
}

struct HeadRun {
    const TfModel *model;
    const Vocab *vocab;
    HeadReport rep; /* its shape and batteries; rows at the end */
    TfRun *r;
    int *ord, *seq; /* the ordinary ids; a repeated random sequence */
    double *acc;    /* (heads, HT_COUNT) the scores' sums */
    double *row;    /* (cap) a row of scores */
    float *a;       /* (cap, cap) a head's weights */
    int need;       /* 2 S + 1 */
    int sentences;  /* sentences scored (a sentence of fewer than 2 tokens is not) */
    int next;       /* the next run: the sentences, then the sequences */
};

void headrun_free(HeadRun *j) {
    if (!j) return;
    tf_run_free(j->r);
    free(j->ord), free(j->seq), free(j->acc), free(j->row), free(j->a);
    headreport_free(&j->rep);
    free(j);
}

HeadRun *headrun_begin(const TfModel *model, const Vocab *vocab, BatteryKind text, AvError *err) {
    HeadRun *j = calloc(1, sizeof *j);
    if (!j) return av_error_nomem(err, _("out of memory")), NULL;
    const TfConfig *c = &model->cfg;
    HeadReport *out = &j->rep;
    j->model = model, j->vocab = vocab;
    int vocab_n = vocab_size(vocab) < c->vocab ? vocab_size(vocab) : c->vocab;
    int cap = c->max_pos, heads = c->n_layers * c->n_heads;
    out->layers = c->n_layers, out->heads = c->n_heads, out->n = heads, out->text = text;
    out->s = battery_repeat_s(cap), out->sequences = BATTERY_REPEAT_SEQUENCES, out->bos = vocab_start(vocab);
    j->need = 2 * out->s + 1;
    if (cap > j->need && cap > 512) cap = j->need > 512 ? j->need : 512; /* the longest run: a sentence or a sequence */
    j->ord = malloc(sizeof(int) * (size_t)vocab_n), j->seq = malloc(sizeof(int) * (size_t)j->need);
    j->acc = calloc((size_t)heads * HT_COUNT, sizeof(double)), j->row = malloc(sizeof(double) * (size_t)cap);
    j->a = malloc(sizeof(float) * (size_t)cap * cap);
    if (!j->ord || !j->seq || !j->acc || !j->row || !j->a) {
        headrun_free(j);
        return av_error_nomem(err, _("out of memory")), NULL;
    }
    if (!(j->r = tf_run_new(model, cap, 0, err))) {
        headrun_free(j);
        return NULL;
    }
    for (int id = 0; id < vocab_n; id++)
        if (ordinary(vocab, id)) j->ord[out->ordinary++] = id;
    if (out->ordinary < 2) {
        headrun_free(j);
        return av_errorf(err, _("the head tests need a vocabulary of ordinary tokens")), NULL;
    }
    return j;
}

static int text_count(const HeadRun *j) { return battery_info(j->rep.text)->count; }

void headrun_progress(const HeadRun *j, int *done, int *total) {
    *done = j->next;
    *total = text_count(j) + j->rep.sequences;
}

int headrun_step(HeadRun *j, AvError *err) {
    HeadReport *out = &j->rep;
    int texts = text_count(j);
    if (j->next >= texts + out->sequences) return 0;
    if (j->next < texts) { /* a sentence of the text battery */
        const char *t = battery_sentence(out->text, j->next);
        int *ids = NULL, n = vocab_encode(j->vocab, t, strlen(t), &ids, err);
        if (n < 0) return -1;
        if (n > j->r->cap) n = j->r->cap;
        int bad = n >= 2 && forward_qk(j->r, ids, n, err);
        if (!bad && n >= 2) score_run(j->r, ids, n, 0, j->acc, j->a, j->row), j->sentences++, out->text_tokens += n;
        free(ids);
        if (bad) return -1;
    } else { /* a sequence of the repeated random battery */
        int k = j->next - texts, start = out->bos >= 0 ? out->bos : j->ord[0];
        headtest_repeated_random(BATTERY_SEED, k, out->s, start, 0, out->ordinary, j->seq);
        for (int i = 1; i < j->need; i++) j->seq[i] = j->ord[j->seq[i]];
        if (forward_qk(j->r, j->seq, j->need, err)) return -1;
        score_run(j->r, j->seq, j->need, out->s, j->acc, j->a, j->row);
    }
    j->next++;
    return j->next < texts + out->sequences;
}

int headrun_finish(HeadRun *j, HeadReport *out, AvError *err) {
    memset(out, 0, sizeof *out);
    int done, total;
    headrun_progress(j, &done, &total);
    if (done < total || !j->rep.n) return av_errorf(err, _("the head tests are not done (%d of %d runs)"), done, total);
    HeadReport *r = &j->rep;
    if (!(r->rows = calloc((size_t)r->n, sizeof *r->rows))) return av_error_nomem(err, _("out of memory"));
    for (int i = 0; i < r->n; i++) {
        HeadTestRow *hr = &r->rows[i];
        hr->layer = i / r->heads, hr->head = i % r->heads;
        for (int s = 0; s < HT_COUNT; s++)
            hr->score[s] = j->acc[(size_t)i * HT_COUNT + s] / (s == HT_INDUCTION ? r->sequences
                                                               : j->sentences    ? j->sentences
                                                                                 : 1);
    }
    *out = *r;
    memset(r, 0, sizeof *r); /* given */
    return 0;
}

int headrun(const Checkpoint *ck, BatteryKind text, HeadReport *out, AvError *err) {
    memset(out, 0, sizeof *out);
    HeadRun *j = headrun_begin(ck->model, ck->vocab, text, err);
    if (!j) return -1;
    int rc;
    while ((rc = headrun_step(j, err)) > 0) {
    }
    if (rc == 0) rc = headrun_finish(j, out, err);
    headrun_free(j);
    return rc;
}

void headreport_free(HeadReport *r) {
    if (!r) return;
    free(r->rows);
    r->rows = NULL;
    r->n = 0;
}

/* The battery and the definition of each score. */
static const char *const definitions[HT_COUNT] = {
    "sum(A * P) / sum(A), P[i][j] = 1 iff j = i - 1 (TransformerLens head_detector, mul)",
    "sum(A * P) / sum(A), P[i][j] = 1 iff tok[i] = tok[j] and j < i (TransformerLens head_detector, mul)",
    "sum(A * P) / sum(A), P[i][j] = 1 iff tok[i] = tok[j - 1] and j - 1 < i (TransformerLens head_detector, mul)",
    "mean of A[i][0] over rows i >= 1",
    "mean of A's diagonal at offset -(S - 1) on [BOS] r1..rS r1..rS (Olsson et al. 2022); an induction head above 0.4",
};

/* s as a JSON string, quotes included. */
static void json_string(FILE *f, const char *s) {
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f) fprintf(f, "\\u%04x", *p);
        else fputc(*p, f);
    }
    fputc('"', f);
}

int headreport_write_json(FILE *f, const HeadReport *r, const char *model) {
    const BatteryInfo *t = battery_info(r->text), *rr = battery_info(BATTERY_REPEAT_RANDOM);
    fprintf(f, "{\n  \"model\": ");
    json_string(f, model);
    fprintf(f, ",\n  \"layers\": %d,\n  \"heads\": %d,\n", r->layers, r->heads);
    fprintf(f, "  \"batteries\": {\n    \"%s\": {\"definition\": \"%s\", \"sentences\": %d, \"tokens\": %d},\n",
            t->name, t->definition, t->count, r->text_tokens);
    fprintf(f,
            "    \"%s\": {\"definition\": \"%s\", \"sequences\": %d, \"S\": %d, \"seed\": %u, \"ordinary_ids\": %d, "
            "\"bos\": %d}\n  },\n",
            rr->name, rr->definition, r->sequences, r->s, BATTERY_SEED, r->ordinary, r->bos);
    fprintf(f, "  \"scores\": {\n");
    for (int s = 0; s < HT_COUNT; s++)
        fprintf(f, "    \"%s\": {\"battery\": \"%s\", \"definition\": \"%s\"}%s\n", score_names[s],
                s == HT_INDUCTION ? rr->name : t->name, definitions[s], s + 1 < HT_COUNT ? "," : "");
    fprintf(f, "  },\n  \"heads_scores\": [\n");
    for (int i = 0; i < r->n; i++) {
        const HeadTestRow *h = &r->rows[i];
        fprintf(f, "    {\"layer\": %d, \"head\": %d", h->layer + 1, h->head + 1);
        for (int s = 0; s < HT_COUNT; s++) fprintf(f, ", \"%s\": %.6f", score_names[s], h->score[s]);
        fprintf(f, "}%s\n", i + 1 < r->n ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
    return ferror(f) ? -1 : 0;
}

int headreport_write_csv(FILE *f, const HeadReport *r) {
    fprintf(f, "layer,head,score,battery,value\n");
    for (int i = 0; i < r->n; i++)
        for (int s = 0; s < HT_COUNT; s++)
            fprintf(f, "%d,%d,%s,%s,%.6f\n", r->rows[i].layer + 1, r->rows[i].head + 1, score_names[s],
                    battery_info(s == HT_INDUCTION ? BATTERY_REPEAT_RANDOM : r->text)->name, r->rows[i].score[s]);
    return ferror(f) ? -1 : 0;
}
