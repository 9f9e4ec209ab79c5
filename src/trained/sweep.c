/* sweep.c - see sweep.h. */
#include "sweep.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "lens.h"

struct SweepJob {
    TfRun *r;     /* a run of its own */
    float *resid; /* (n_layers + 1, n, dim) the residuals it started from */
    int *ids, n, row, token;
    TfAblation *abl; /* the base ablations, and one slot more for the head swept */
    int n_base;
    double base;    /* the token's logit as the model is */
    double *logits; /* (n_layers * n_heads) */
    int next;       /* the next head, layer by layer */
};

void sweep_free(SweepJob *j) {
    if (!j) return;
    tf_run_free(j->r);
    free(j->resid), free(j->ids), free(j->abl), free(j->logits);
    free(j);
}

/* The token's logit of the job's row from the residual of the last layer in r. */
static int logit_of(SweepJob *j, double *out) {
    if (tf_logits_row(j->r, j->row)) return -1;
    *out = j->r->logits[j->token];
    return 0;
}

SweepJob *sweep_begin(const TfRun *run, const TfAblation *base, int n_base, int row, int token, AvError *err) {
    const TfConfig *c = run->cfg;
    int n = run->n, L = c->n_layers;
    if (n < 1 || row < 0 || row >= n || token >= c->vocab)
        return av_errorf(err, _("the ablation sweep: row %d, token %d of %d rows"), row, token, n), NULL;
    SweepJob *j = calloc(1, sizeof *j);
    size_t width = (size_t)n * c->dim;
    if (j) {
        j->resid = malloc(sizeof(float) * width * (size_t)(L + 1));
        j->ids = malloc(sizeof(int) * (size_t)n);
        j->abl = malloc(sizeof *j->abl * (size_t)(n_base + 1));
        j->logits = malloc(sizeof(double) * (size_t)L * c->n_heads);
    }
    if (!j || !j->resid || !j->ids || !j->abl || !j->logits) {
        sweep_free(j);
        return av_error_nomem(err, _("out of memory for the ablation sweep")), NULL;
    }
    if (!(j->r = tf_run_new(run->m, n, 0, err))) {
        sweep_free(j);
        return NULL;
    }
    for (int l = 0; l <= L; l++) memcpy(j->resid + (size_t)l * width, tf_run_x(run, l), sizeof(float) * width);
    memcpy(j->ids, run->ids, sizeof(int) * (size_t)n);
    if (n_base > 0) memcpy(j->abl, base, sizeof *base * (size_t)n_base);
    j->n = n, j->row = row, j->token = token, j->n_base = n_base;
    for (int k = 0; k < L * c->n_heads; k++) j->logits[k] = NAN;
    /* the base: the last residual through the final norm and the classifier */
    if (tf_embed(j->r, j->ids, n, err)) {
        sweep_free(j);
        return NULL;
    }
    memcpy(tf_run_x(j->r, L), j->resid + (size_t)L * width, sizeof(float) * width);
    j->token = token < 0 ? 0 : token;
    if (logit_of(j, &j->base)) {
        sweep_free(j);
        return av_errorf(err, _("the ablation sweep was cancelled")), NULL;
    }
    if (token < 0) j->token = tf_argmax(j->r->logits, c->vocab), j->base = j->r->logits[j->token];
    return j;
}

int sweep_step(SweepJob *j, AvError *err) {
    const TfConfig *c = j->r->cfg;
    int total = c->n_layers * c->n_heads;
    if (j->next >= total) return 0;
    int l = j->next / c->n_heads, h = j->next % c->n_heads;
    size_t width = (size_t)j->n * c->dim;
    TfRun *r = j->r;
    /* layer l's input as the model had it; l and every later layer again, head h of l off too */
    if (tf_embed(r, j->ids, j->n, err)) return -1;
    memcpy(tf_run_x(r, l), j->resid + (size_t)l * width, sizeof(float) * width);
    j->abl[j->n_base] = (TfAblation){l, h, NULL};
    r->ablate = j->abl, r->n_ablate = j->n_base + 1;
    double logit = NAN;
    int bad = 0;
    for (int k = l; k < c->n_layers && !bad; k++)
        bad = tf_layer_qkv(r, k) || tf_layer_attend(r, k) || tf_layer_finish(r, k, NULL);
    if (bad || logit_of(j, &logit)) return av_errorf(err, _("the ablation sweep was cancelled"));
    j->logits[j->next++] = logit;
    return j->next < total;
}

void sweep_progress(const SweepJob *j, int *done, int *total) {
    *done = j->next;
    *total = j->r->cfg->n_layers * j->r->cfg->n_heads;
}

int sweep_row(const SweepJob *j) { return j->row; }
int sweep_token(const SweepJob *j) { return j->token; }
double sweep_base(const SweepJob *j) { return j->base; }

double sweep_logit(const SweepJob *j, int l, int h) {
    const TfConfig *c = j->r->cfg;
    if (l < 0 || l >= c->n_layers || h < 0 || h >= c->n_heads) return NAN;
    return j->logits[l * c->n_heads + h];
}

int sweep_write_json(FILE *f, const SweepJob *j, const Vocab *v, const char *model, const HeadAblation *ablated,
                     int n_ablated) {
    const TfConfig *c = j->r->cfg;
    fputs("{\n  \"model\": ", f);
    lens_json_text(f, model, strlen(model));
    fputs(",\n  \"ids\": [", f);
    for (int i = 0; i < j->n; i++) fprintf(f, "%s%d", i ? ", " : "", j->ids[i]);
    fputs("],\n  \"ablated\": [", f);
    for (int k = 0; k < n_ablated; k++)
        fprintf(f, "%s\"%d.%d:%s\"", k ? ", " : "", ablated[k].layer + 1, ablated[k].head + 1,
                ablated[k].mean ? "mean" : "zero");
    fprintf(f, "],\n  \"row\": %d,\n  \"token\": {", j->row);
    lens_json_token(f, v, j->token);
    fprintf(f,
            "},\n  \"logit\": %.9g,\n  \"definition\": \"each head alone off (its output before W_O zeroed) "
            "as well, every layer from its own computed again: drop = logit - logit with it off\",\n  \"heads\": [",
            j->base);
    for (int l = 0; l < c->n_layers; l++)
        for (int h = 0; h < c->n_heads; h++) {
            double lg = sweep_logit(j, l, h);
            fprintf(f, "%s\n    {\"layer\": %d, \"head\": %d, \"logit\": %.9g, \"drop\": %.9g}", l || h ? "," : "",
                    l + 1, h + 1, lg, j->base - lg);
        }
    fputs("\n  ]\n}\n", f);
    return ferror(f) ? -1 : 0;
}
