/* patch.c - see patch.h. */
#include "patch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "lens.h"

void patch_free(PatchResult *p) {
    if (!p) return;
    free(p->head), free(p->resid);
    memset(p, 0, sizeof *p);
}

/* The metric of r's last row. */
static int metric(TfRun *r, int a, int b, double *out) {
    if (tf_logits_row(r, r->n - 1)) return -1;
    *out = (double)r->logits[a] - r->logits[b];
    return 0;
}

/* A forward of ids layer by layer, keeping every layer's heads' outputs in
 * att (layers, n, q_dim) when att is not NULL. */
static int forward_keep(TfRun *r, const int *ids, int n, float *att, AvError *err) {
    const TfConfig *c = r->cfg;
    if (tf_embed(r, ids, n, err)) return -1;
    for (int l = 0; l < c->n_layers; l++) {
        if (tf_layer_qkv(r, l) || tf_layer_attend(r, l)) return -1;
        if (att) memcpy(att + (size_t)l * n * c->q_dim, r->att, sizeof(float) * (size_t)n * c->q_dim);
        if (tf_layer_finish(r, l, NULL)) return -1;
    }
    return 0;
}

/* The corrupted run from layer l on, its input of l in x (n, dim); in layer
 * l head h's outputs are the clean ones (h < 0: none). */
static int rerun(TfRun *r, const int *corrupt, int n, int l, const float *x, int h, const float *clean_att,
                 AvError *err) {
    const TfConfig *c = r->cfg;
    int hs = c->head_dim;
    if (tf_embed(r, corrupt, n, err)) return -1;
    memcpy(tf_run_x(r, l), x, sizeof(float) * (size_t)n * c->dim);
    for (int k = l; k < c->n_layers; k++) {
        if (tf_layer_qkv(r, k) || tf_layer_attend(r, k)) return -1;
        if (k == l && h >= 0)
            for (int i = 0; i < n; i++)
                memcpy(r->att + (size_t)i * c->q_dim + (size_t)h * hs,
                       clean_att + ((size_t)l * n + i) * c->q_dim + (size_t)h * hs, sizeof(float) * hs);
        if (tf_layer_finish(r, k, NULL)) return -1;
    }
    return 0;
}

int patch_run(const TfModel *m, const int *clean, const int *corrupt, int n, int token_a, int token_b, PatchResult *out,
              AvError *err) {
    const TfConfig *c = &m->cfg;
    int L = c->n_layers, H = c->n_heads, rc = -1;
    memset(out, 0, sizeof *out);
    out->layers = L, out->heads = H, out->n = n, out->token_a = token_a, out->token_b = token_b;
    size_t width = (size_t)n * c->dim;
    TfRun *r = tf_run_new(m, n, 0, err);
    float *att = malloc(sizeof(float) * (size_t)L * n * c->q_dim);
    float *cres = malloc(sizeof(float) * width * (size_t)(L + 1)),
          *xres = malloc(sizeof(float) * width * (size_t)(L + 1));
    float *x = malloc(sizeof(float) * width);
    out->head = malloc(sizeof(double) * (size_t)L * H), out->resid = malloc(sizeof(double) * (size_t)L * n);
    if (!r || !att || !cres || !xres || !x || !out->head || !out->resid) {
        if (r) av_error_nomem(err, _("out of memory for the patching"));
        goto done;
    }
    /* the clean run: its heads' outputs and residuals; the corrupted run: its residuals */
    if (forward_keep(r, clean, n, att, err) || metric(r, token_a, token_b, &out->clean)) goto cancelled;
    for (int l = 0; l <= L; l++) memcpy(cres + (size_t)l * width, tf_run_x(r, l), sizeof(float) * width);
    if (forward_keep(r, corrupt, n, NULL, err) || metric(r, token_a, token_b, &out->corrupt)) goto cancelled;
    for (int l = 0; l <= L; l++) memcpy(xres + (size_t)l * width, tf_run_x(r, l), sizeof(float) * width);
    double span = out->clean - out->corrupt;
    if (!(fabs(span) > 1e-9)) {
        av_errorf(err, _("the metric is %.6g on both prompts: nothing to normalise"), out->clean);
        goto done;
    }
    for (int l = 0; l < L; l++) {
        for (int h = 0; h < H; h++) { /* head h of layer l: the clean outputs */
            double v;
            if (rerun(r, corrupt, n, l, xres + (size_t)l * width, h, att, err) || metric(r, token_a, token_b, &v))
                goto cancelled;
            out->head[l * H + h] = (v - out->corrupt) / span;
        }
        for (int p = 0; p < n; p++) { /* resid_pre of layer l at position p: the clean one */
            double v;
            memcpy(x, xres + (size_t)l * width, sizeof(float) * width);
            memcpy(x + (size_t)p * c->dim, cres + (size_t)l * width + (size_t)p * c->dim, sizeof(float) * c->dim);
            if (rerun(r, corrupt, n, l, x, -1, att, err) || metric(r, token_a, token_b, &v)) goto cancelled;
            out->resid[(size_t)l * n + p] = (v - out->corrupt) / span;
        }
    }
    rc = 0;
    goto done;
cancelled:
    av_errorf(err, _("the patching was cancelled"));
done:
    tf_run_free(r);
    free(att), free(cres), free(xres), free(x);
    if (rc) patch_free(out);
    return rc;
}

int patch_write_json(FILE *f, const PatchResult *p, const Vocab *v, const char *model, const int *clean,
                     const int *corrupt) {
    fputs("{\n  \"model\": ", f);
    lens_json_text(f, model, strlen(model));
    fputs(",\n  \"clean_ids\": [", f);
    for (int i = 0; i < p->n; i++) fprintf(f, "%s%d", i ? ", " : "", clean[i]);
    fputs("],\n  \"corrupt_ids\": [", f);
    for (int i = 0; i < p->n; i++) fprintf(f, "%s%d", i ? ", " : "", corrupt[i]);
    fputs("],\n  \"metric\": {\"definition\": \"logit(A) - logit(B) after the last position\", \"a\": {", f);
    lens_json_token(f, v, p->token_a);
    fputs("}, \"b\": {", f);
    lens_json_token(f, v, p->token_b);
    fprintf(f, "}, \"clean\": %.9g, \"corrupt\": %.9g},\n", p->clean, p->corrupt);
    fputs("  \"normalised\": \"(patched - corrupt) / (clean - corrupt)\",\n  \"heads\": [", f);
    for (int l = 0; l < p->layers; l++) {
        fputs(l ? ",\n    [" : "\n    [", f);
        for (int h = 0; h < p->heads; h++) fprintf(f, "%s%.9g", h ? ", " : "", p->head[l * p->heads + h]);
        fputc(']', f);
    }
    fputs("\n  ],\n  \"resid_pre\": [", f);
    for (int l = 0; l < p->layers; l++) {
        fputs(l ? ",\n    [" : "\n    [", f);
        for (int i = 0; i < p->n; i++) fprintf(f, "%s%.9g", i ? ", " : "", p->resid[(size_t)l * p->n + i]);
        fputc(']', f);
    }
    fputs("\n  ]\n}\n", f);
    return ferror(f) ? -1 : 0;
}
