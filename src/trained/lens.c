/* lens.c - see lens.h. */
#include "lens.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "utf8.h"

enum { LENS_BLOCK = 32 }; /* rows through the classifier at once */

void lens_free(Lens *l) {
    if (!l) return;
    free(l->cells);
    memset(l, 0, sizeof *l);
}

/* The likeliest of logits z[0..v) and its probability, the token's (-1:
 * none), in double. */
static void cell_of(const float *z, int v, int token, LensCell *c) {
    int best = 0;
    for (int t = 1; t < v; t++)
        if (z[t] > z[best]) best = t;
    double mx = z[best], sum = 0;
    for (int t = 0; t < v; t++) sum += exp((double)z[t] - mx);
    c->id = best;
    c->prob = (float)(1.0 / sum);
    c->token_prob = token >= 0 ? (float)(exp((double)z[token] - mx) / sum) : 0.0f;
}

int lens_compute(const TfRun *run, int token, Lens *out, AvError *err) {
    const TfConfig *c = run->cfg;
    int n = run->n, L = c->n_layers, block = n < LENS_BLOCK ? n : LENS_BLOCK;
    memset(out, 0, sizeof *out);
    if (n < 1) return av_errorf(err, _("the logit lens: no tokens"));
    if (token >= c->vocab || (token < 0 && token != LENS_CHOICE)) token = -1;
    out->rows = L + 1, out->n = n, out->token = token;
    out->cells = malloc(sizeof *out->cells * (size_t)out->rows * n);
    TfRun *r = out->cells ? tf_run_new(run->m, block, 1, err) : NULL;
    if (!r) {
        if (!out->cells) av_error_nomem(err, _("out of memory for the logit lens"));
        lens_free(out);
        return -1;
    }
    int rc = 0;
    for (int r0 = 0; r0 < n && !rc; r0 += block) {
        int rows = n - r0 < block ? n - r0 : block;
        if (tf_embed(r, run->ids + r0, rows, err)) rc = -1;
        /* the last row first: with LENS_CHOICE its likeliest tokens are the ones the other rows follow */
        for (int k = 0; k <= L && !rc; k++) {
            int l = k == 0 ? L : k - 1;
            /* row l's residual as the last layer's output: the final norm, the classifier */
            memcpy(tf_run_x(r, L), tf_run_x(run, l) + (size_t)r0 * c->dim, sizeof(float) * (size_t)rows * c->dim);
            if (tf_logits(r)) rc = av_errorf(err, _("the logit lens was cancelled"));
            for (int i = 0; i < rows && !rc; i++) {
                int t = token == LENS_CHOICE ? (k == 0 ? -1 : out->cells[(size_t)L * n + r0 + i].id) : token;
                LensCell *cell = &out->cells[(size_t)l * n + r0 + i];
                cell_of(r->logits + (size_t)i * c->vocab, c->vocab, t, cell);
                if (token == LENS_CHOICE && k == 0) cell->token_prob = cell->prob;
            }
        }
    }
    tf_run_free(r);
    if (rc) lens_free(out);
    return rc;
}

int lens_token_id(const Vocab *v, const char *piece, AvError *err) {
    char buf[256];
    size_t len = strlen(piece);
    if (len >= 3 && memcmp(piece, "\xe2\x96\x81", 3) == 0 && len - 2 < sizeof buf) { /* ▁was: " was" */
        buf[0] = ' ';
        memcpy(buf + 1, piece + 3, len - 3);
        len -= 2;
    } else if (len < sizeof buf) {
        memcpy(buf, piece, len);
    } else {
        return av_errorf(err, _("'%.32s...' is longer than any piece"), piece);
    }
    for (int id = 0; id < vocab_size(v); id++) {
        size_t pl;
        const char *p = vocab_piece(v, id, &pl);
        if (pl == len && memcmp(p, buf, len) == 0) return id;
    }
    int *ids = NULL, n = vocab_encode(v, piece, strlen(piece), &ids, err), id = -1;
    if (n < 0) return -1;
    int skip = n > 0 && ids[0] == vocab_start(v);
    if (n - skip == 1) id = ids[skip];
    free(ids);
    if (id < 0)
        return av_errorf(err, _("'%s' is no piece of the model's vocabulary (its tokenizer makes %d tokens of it)"),
                         piece, n - skip);
    return id;
}

// ----------------------------------------------------------------------------
// JSON

/* s[0..len) as a JSON string (a control or unsafe character escaped), or
 * null when it is not whole UTF-8 characters (a byte piece). */
void lens_json_text(FILE *f, const char *s, size_t len) {
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        int k = utf8_decode(s + i, len - i, &cp);
        if (cp == UTF8_INVALID) {
            fputs("null", f);
            return;
        }
        i += (size_t)(k > 0 ? k : 1);
    }
    fputc('"', f);
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        int k = utf8_decode(s + i, len - i, &cp);
        if (cp == '"' || cp == '\\') fprintf(f, "\\%c", (char)cp);
        else if (cp < 0x20 || utf8_is_unsafe(cp)) fprintf(f, "\\u%04x", (unsigned)cp);
        else fwrite(s + i, 1, (size_t)k, f);
        i += (size_t)(k > 0 ? k : 1);
    }
    fputc('"', f);
}

/* "id": .., "piece": .., "bytes": [..] of a token. */
void lens_json_token(FILE *f, const Vocab *v, int id) {
    size_t len;
    const char *p = vocab_piece(v, id, &len);
    fprintf(f, "\"id\": %d, \"piece\": ", id);
    lens_json_text(f, p, len);
    fputs(", \"bytes\": [", f);
    for (size_t b = 0; b < len; b++) fprintf(f, "%s%u", b ? ", " : "", (unsigned char)p[b]);
    fputc(']', f);
}

int lens_write_json(FILE *f, const Lens *l, const Vocab *v, const char *model, const int *ids,
                    const HeadAblation *ablated, int n_ablated) {
    fputs("{\n  \"model\": ", f);
    lens_json_text(f, model, strlen(model));
    fprintf(f, ",\n  \"layers\": %d,\n  \"tokens\": [", l->rows - 1);
    for (int i = 0; i < l->n; i++) {
        size_t len;
        const char *p = vocab_piece(v, ids[i], &len);
        fputs(i ? ", " : "", f);
        lens_json_text(f, p, len);
    }
    fputs("],\n  \"ids\": [", f);
    for (int i = 0; i < l->n; i++) fprintf(f, "%s%d", i ? ", " : "", ids[i]);
    fputs("],\n  \"ablated\": [", f);
    for (int k = 0; k < n_ablated; k++)
        fprintf(f, "%s\"%d.%d:%s\"", k ? ", " : "", ablated[k].layer + 1, ablated[k].head + 1,
                ablated[k].mean ? "mean" : "zero");
    fputs("],\n  \"lens\": {\n    \"rows\": \"row 0: the embeddings; row l: the residual after layer l, through the "
          "final norm and the unembedding\",\n    \"top\": [",
          f);
    for (int r = 0; r < l->rows; r++) {
        fputs(r ? ",\n      [" : "\n      [", f);
        for (int i = 0; i < l->n; i++) {
            const LensCell *c = lens_cell(l, r, i);
            fputs(i ? ", {" : "{", f);
            lens_json_token(f, v, c->id);
            fprintf(f, ", \"prob\": %.9g}", c->prob);
        }
        fputc(']', f);
    }
    fputs("\n    ]", f);
    if (l->token >= 0) {
        fputs(",\n    \"token\": {", f);
        lens_json_token(f, v, l->token);
        fputs(", \"prob\": [", f);
        for (int r = 0; r < l->rows; r++) {
            fputs(r ? ",\n      [" : "\n      [", f);
            for (int i = 0; i < l->n; i++) fprintf(f, "%s%.9g", i ? ", " : "", lens_cell(l, r, i)->token_prob);
            fputc(']', f);
        }
        fputs("\n    ]}", f);
    }
    fputs("\n  }\n}\n", f);
    return ferror(f) ? -1 : 0;
}
