/* ablate.c - see ablate.h. */
#include "ablate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "nnops.h"

int ablate_head_means(const TfModel *m, const Vocab *v, BatteryKind text, float *out, int *tokens, AvError *err) {
    const TfConfig *c = &m->cfg;
    int cap = c->max_pos < 512 ? c->max_pos : 512, total = 0, rc = -1;
    size_t width = (size_t)c->n_layers * c->q_dim;
    double *sum = calloc(width, sizeof *sum);
    TfRun *r = sum ? tf_run_new(m, cap, 0, err) : NULL;
    if (!sum) av_error_nomem(err, _("out of memory"));
    for (int s = 0; r && s < battery_info(text)->count; s++) {
        const char *t = battery_sentence(text, s);
        int *ids = NULL, n = vocab_encode(v, t, strlen(t), &ids, err);
        if (n < 0) goto done;
        if (n > cap) n = cap;
        int bad = n < 1 || tf_embed(r, ids, n, err);
        free(ids);
        if (bad) continue; /* an empty sentence: nothing to average */
        for (int l = 0; l < c->n_layers; l++) {
            if (tf_layer_qkv(r, l) || tf_layer_attend(r, l)) {
                av_errorf(err, _("the heads' means were cancelled"));
                goto done;
            }
            double *acc = sum + (size_t)l * c->q_dim;
            for (int i = 0; i < n; i++) {
                const float *o = r->att + (size_t)i * c->q_dim;
                for (int k = 0; k < c->q_dim; k++) acc[k] += o[k];
            }
            if (tf_layer_finish(r, l, NULL)) {
                av_errorf(err, _("the heads' means were cancelled"));
                goto done;
            }
        }
        total += n;
    }
    if (r && total < 1) av_errorf(err, _("the text battery gave no tokens to average"));
    else if (r) {
        for (size_t k = 0; k < width; k++) out[k] = (float)(sum[k] / total);
        if (tokens) *tokens = total;
        rc = 0;
    }
done:
    tf_run_free(r);
    free(sum);
    return rc;
}

// ----------------------------------------------------------------------------
// a source's ablation

void ablation_init(Ablation *a) {
    memset(a, 0, sizeof *a);
    a->clean_row = -1;
}

void ablation_free(Ablation *a) {
    free(a->means), free(a->clean_logits);
    tf_run_free(a->clean);
    ablation_init(a);
}

int ablation_first_layer(const Ablation *a) {
    int first = -1;
    for (int k = 0; k < a->n; k++)
        if (first < 0 || a->list[k].layer < first) first = a->list[k].layer;
    return first;
}

/* 1 when layer l's heads are switched off alike in a and list[0..n). */
static int same_layer(const Ablation *a, const HeadAblation *list, int n, int l) {
    int count = 0;
    for (int k = 0; k < n; k++) {
        if (list[k].layer != l) continue;
        count++;
        int found = 0;
        for (int j = 0; j < a->n && !found; j++)
            found = a->list[j].layer == l && a->list[j].head == list[k].head && !a->list[j].mean == !list[k].mean;
        if (!found) return 0;
    }
    for (int j = 0; j < a->n; j++) count -= a->list[j].layer == l;
    return count == 0;
}

int ablation_set(Ablation *a, const TfModel *m, const Vocab *v, BatteryKind text, const HeadAblation *list, int n,
                 int *first, AvError *err) {
    const TfConfig *c = &m->cfg;
    int want_mean = 0;
    if (n < 0 || n > SOURCE_MAX_ABLATED)
        return av_errorf(err, _("%d heads switched off; at most %d at once"), n, SOURCE_MAX_ABLATED);
    for (int k = 0; k < n; k++) {
        if (list[k].layer < 0 || list[k].layer >= c->n_layers || list[k].head < 0 || list[k].head >= c->n_heads)
            return av_errorf(err, _("head %d.%d is not in the model (%d layers of %d heads)"), list[k].layer + 1,
                             list[k].head + 1, c->n_layers, c->n_heads);
        for (int j = 0; j < k; j++)
            if (list[j].layer == list[k].layer && list[j].head == list[k].head)
                return av_errorf(err, _("head %d.%d is listed twice"), list[k].layer + 1, list[k].head + 1);
        want_mean |= list[k].mean;
    }
    if (want_mean && (!a->means || a->means_of != text)) {
        float *means = malloc(sizeof(float) * (size_t)c->n_layers * c->q_dim);
        if (!means) return av_error_nomem(err, _("out of memory for the heads' means"));
        if (ablate_head_means(m, v, text, means, NULL, err)) {
            free(means);
            return -1;
        }
        free(a->means);
        a->means = means, a->means_of = text;
    }
    *first = c->n_layers;
    for (int l = 0; l < c->n_layers && *first == c->n_layers; l++)
        if (!same_layer(a, list, n, l)) *first = l;
    for (int k = 0; k < n; k++) {
        a->list[k] = list[k];
        const float *mean =
            list[k].mean ? a->means + (size_t)list[k].layer * c->q_dim + (size_t)list[k].head * c->head_dim : NULL;
        a->tf[k] = (TfAblation){list[k].layer, list[k].head, mean};
    }
    a->n = n;
    a->clean_row = -1;
    return 0;
}

void ablation_attach(const Ablation *a, TfRun *r) {
    r->ablate = a->n ? a->tf : NULL;
    r->n_ablate = a->n;
}

int ablation_predict_clean(Ablation *a, const TfRun *run, int row) {
    const TfConfig *c = run->cfg;
    int l0 = ablation_first_layer(a), n = run->n;
    if (l0 < 0 || row < 0 || row >= n) return -1;
    if (a->clean && a->clean->cap < n) tf_run_free(a->clean), a->clean = NULL;
    if (!a->clean && !(a->clean = tf_run_new(run->m, run->cap, 0, NULL))) return -1;
    if (!a->clean_logits && !(a->clean_logits = malloc(sizeof(float) * (size_t)c->vocab))) return -1;
    TfRun *r = a->clean;
    a->clean_row = -1;
    if (tf_embed(r, run->ids, n, NULL)) return -1;
    memcpy(tf_run_x(r, l0), tf_run_x(run, l0), sizeof(float) * (size_t)n * c->dim);
    for (int l = l0; l < c->n_layers; l++)
        if (tf_layer_qkv(r, l) || tf_layer_attend(r, l) || tf_layer_finish(r, l, NULL)) return -1;
    if (tf_logits_row(r, row)) return -1;
    memcpy(a->clean_logits, r->logits, sizeof(float) * (size_t)c->vocab);
    a->clean_row = row;
    return 0;
}

/* log sum exp of z[0..v), in double. */
static double log_sum_exp(const float *z, int v) {
    if (v < 1) return -INFINITY;
    double mx = -INFINITY, sum = 0;
    for (int t = 0; t < v; t++) mx = z[t] > mx ? z[t] : mx;
    for (int t = 0; t < v; t++) sum += exp(z[t] - mx);
    return sum > 0 ? mx + log(sum) : mx; /* the largest term is exp(0) = 1: sum >= 1 */
}

int ablation_next_change(const Ablation *a, const float *after, int vocab, int row, int k, const Vocab *v,
                         NextChange *out) {
    if (!a->n || a->clean_row != row || k < 1) return 0;
    int ids[16];
    double probs[16];
    if (k > 16) k = 16;
    int got = nn_top_k_softmax(a->clean_logits, vocab, k, ids, probs);
    double lse = log_sum_exp(after, vocab);
    for (int s = 0; s < got; s++) {
        NextChange *o = &out[s];
        o->id = ids[s];
        o->piece = vocab_piece(v, ids[s], &o->len);
        o->p_before = probs[s];
        o->logit_before = a->clean_logits[ids[s]];
        o->logit_after = after[ids[s]];
        o->p_after = exp(o->logit_after - lse);
    }
    return got;
}
