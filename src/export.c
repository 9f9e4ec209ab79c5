/* export.c - see export.h. Numbers are printed with %.9g so that a float32
 * round-trips (JSON, CSV), or with 4 decimals in the text dump. */
#include "export.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formula.h"
#include "utf8.h"

int export_parse_format(const char *s, ExportFormat *out) {
    if (strcmp(s, "text") == 0) *out = EXPORT_TEXT;
    else if (strcmp(s, "json") == 0) *out = EXPORT_JSON;
    else if (strcmp(s, "csv") == 0) *out = EXPORT_CSV;
    else return -1;
    return 0;
}

const char *export_tokenizer_name(const Model *m) { return tok_preset_name(tok_preset(m->tokenizer)); }

void export_status_words(char *buf, size_t cap, const Model *m, ExportStatus kind) {
    const ModelConfig *c = &m->cfg;
    char mask[32], dv[32] = "";
    model_mask_name(c, mask, sizeof mask);
    const char *scale = c->scale ? "on" : "off";
    int text = m->source == SOURCE_TEXT;
    if (kind == EXPORT_STATUS_SCREEN) {
        if (c->d_v != c->d_k) snprintf(dv, sizeof dv, " d_v=%d", c->d_v);
        if (text)
            snprintf(buf, cap, "d_model=%d heads=%d d_k=%d%s mask=%s scale=%s pos=%s seed=%llu", c->d_model, c->heads,
                     c->d_k, dv, mask, scale, pos_name(c->pos), (unsigned long long)c->seed);
        else snprintf(buf, cap, "d_model=- heads=1 d_k=%d%s mask=%s scale=%s pos=none seed=-", c->d_k, dv, mask, scale);
    } else if (text) {
        snprintf(buf, cap,
                 "d_model=%d heads=%d d_k=%d d_v=%d mask=%s scale=%s pos=%s seed=%llu tokenizer=%s score=%s%s attn=%s",
                 c->d_model, c->heads, c->d_k, c->d_v, mask, scale, pos_name(c->pos), (unsigned long long)c->seed,
                 export_tokenizer_name(m), score_name(c->score, c->scale), c->tie_qk ? " tie-qk" : "",
                 attn_mode_name(c->attn));
    } else {
        snprintf(buf, cap, "source=qkv heads=1 d_k=%d d_v=%d mask=%s scale=%s score=%s", c->d_k, c->d_v, mask, scale,
                 score_name(c->score, c->scale));
    }
}

// ----------------------------------------------------------------------------
// JSON

/* A JSON string: quotes, backslash and every control character escaped; C1
 * controls and the bidi characters too (\u0080), so that a JSON dump printed
 * on a terminal carries no escape sequence. Input is valid UTF-8. */
static void json_string(FILE *f, const char *s, size_t len) {
    fputc('"', f);
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        int n = utf8_decode(s + i, len - i, &cp);
        if (cp == '"' || cp == '\\') fprintf(f, "\\%c", (char)cp);
        else if (cp == '\n') fputs("\\n", f);
        else if (cp == '\t') fputs("\\t", f);
        else if (cp == UTF8_INVALID) fputs("\\ufffd", f);
        else if (cp == 0) fputs("\\u0000", f);
        else if (utf8_is_unsafe(cp)) fprintf(f, "\\u%04x", (unsigned)cp);
        else fwrite(s + i, 1, (size_t)n, f);
        i += (size_t)(n > 0 ? n : 1);
    }
    fputc('"', f);
}

static void json_number(FILE *f, double v) {
    if (isnan(v) || isinf(v)) fputs("null", f); /* never produced for allowed cells */
    else fprintf(f, "%.9g", v);
}

static void json_matrix(FILE *f, const float *a, int rows, int cols, int null_neg_inf) {
    fputc('[', f);
    for (int i = 0; i < rows; i++) {
        fputs(i ? ",[" : "[", f);
        for (int j = 0; j < cols; j++) {
            if (j) fputc(',', f);
            float v = a[(size_t)i * cols + j];
            if (null_neg_inf && v == -INFINITY) fputs("null", f);
            else json_number(f, v);
        }
        fputc(']', f);
    }
    fputc(']', f);
}

static void json_labels(FILE *f, const Model *m, int query) {
    int n = query ? m->n_q : m->n_k;
    fputc('[', f);
    for (int i = 0; i < n; i++) {
        if (i) fputs(", ", f);
        size_t len;
        const char *s = query ? model_query_text(m, i, &len) : model_key_text(m, i, &len);
        json_string(f, s, len);
    }
    fputc(']', f);
}

/* The "config" object; text: the model is of a sentence (a Q/K/V file has
 * no d_model, seed or tokenizer: null). */
static void json_config(FILE *f, const Model *m, int text) {
    const ModelConfig *c = &m->cfg;
    fputs("  \"config\": {", f);
    if (text) fprintf(f, "\"d_model\": %d, ", c->d_model);
    else fputs("\"d_model\": null, ", f);
    fprintf(f, "\"heads\": %d, \"d_k\": %d, \"d_v\": %d, ", c->heads, c->d_k, c->d_v);
    if (text) fprintf(f, "\"seed\": %llu, ", (unsigned long long)c->seed);
    else fputs("\"seed\": null, ", f);
    char mask[32];
    model_mask_name(c, mask, sizeof mask);
    fprintf(f, "\"mask\": \"%s\", \"scale\": %s, \"pos\": \"%s\", ", mask, c->scale ? "true" : "false",
            pos_name(c->pos));
    fprintf(f, "\"score\": \"%s\", \"tie_qk\": %s, \"attn\": \"%s\", \"pad\": %d, ", score_name(c->score, c->scale),
            c->tie_qk ? "true" : "false", attn_mode_name(c->attn), m->n_pad);
    if (text) {
        fprintf(f, "\"tokenizer\": \"%s\"", export_tokenizer_name(m));
        if (tok_preset(m->tokenizer) == TOK_CUSTOM) {
            fputs(", \"pattern\": ", f);
            json_string(f, tok_pattern(m->tokenizer), strlen(tok_pattern(m->tokenizer)));
        }
    } else {
        fputs("\"tokenizer\": null", f);
    }
    fprintf(f, ", \"source\": \"%s\"},\n", text ? "text" : "qkv");
}

/* One head's object: its Q, K, V, every stage, the row statistics, O. */
static void json_head(FILE *f, const Model *m, int h) {
    const ModelConfig *c = &m->cfg;
    const HeadData *hd = &m->head[h];
    fputs(h ? ",\n    {" : "\n    {", f);
    fputs("\"q\": ", f);
    json_matrix(f, hd->q, m->n_q, c->d_k, 0);
    fputs(",\n     \"k\": ", f);
    json_matrix(f, hd->k, m->n_k, c->d_k, 0);
    fputs(",\n     \"v\": ", f);
    json_matrix(f, hd->v, m->n_k, c->d_v, 0);
    fputs(",\n     \"scores\": ", f);
    json_matrix(f, hd->scores, m->n_q, m->n_k, 0);
    fputs(",\n     \"scaled\": ", f);
    json_matrix(f, hd->scaled, m->n_q, m->n_k, 0);
    fputs(",\n     \"masked\": ", f);
    json_matrix(f, hd->masked, m->n_q, m->n_k, 1);
    fputs(",\n     \"weights\": ", f);
    json_matrix(f, hd->weights, m->n_q, m->n_k, 0);
    fputs(",\n     \"row_sums\": [", f);
    for (int i = 0; i < m->n_q; i++) {
        if (i) fputc(',', f);
        json_number(f, hd->row_sums[i]);
    }
    fputs("],\n     \"entropy\": [", f);
    for (int i = 0; i < m->n_q; i++) {
        if (i) fputc(',', f);
        json_number(f, hd->entropy[i]);
    }
    fputs("],\n     \"max_weight\": [", f);
    for (int i = 0; i < m->n_q; i++) {
        if (i) fputc(',', f);
        json_number(f, hd->max_weight[i]);
    }
    fputs("],\n     \"output\": ", f);
    json_matrix(f, hd->out, m->n_q, c->d_v, 0);
    fputc('}', f);
}

static void export_json(FILE *f, const Model *m) {
    const ModelConfig *c = &m->cfg;
    int text = m->source == SOURCE_TEXT;
    fputs("{\n  \"version\": 1,\n", f);
    json_config(f, m, text);
    fputs("  \"entropy_unit\": \"bits\",\n", f);
    fputs("  \"tokens\": ", f);
    json_labels(f, m, 0);
    if (m->n_q != m->n_k || !text || m->q_target != m->k_target) {
        fputs(",\n  \"query_tokens\": ", f);
        json_labels(f, m, 1);
    }
    fputs(",\n  \"ids\": [", f);
    for (int j = 0; j < m->n_k; j++) fprintf(f, "%s%d", j ? ", " : "", model_key_id(m, j));
    fputs("],\n  \"embeddings\": ", f);
    if (text) json_matrix(f, m->x, m->n_k, c->d_model, 0);
    else fputs("null", f);
    if (text && m->xq != m->x) {
        fputs(",\n  \"query_embeddings\": ", f);
        json_matrix(f, m->xq, m->n_q, c->d_model, 0);
    }
    fputs(",\n  \"heads\": [", f);
    for (int h = 0; h < c->heads; h++) json_head(f, m, h);
    fputs("\n  ],\n  \"output\": ", f);
    if (text) json_matrix(f, m->y, m->n_q, c->d_model, 0);
    else fputs("null", f);
    fputs("\n}\n", f);
}

// ----------------------------------------------------------------------------
// CSV: head,stage,i,j,value (head is empty for stages of the whole model)

static void csv_matrix(FILE *f, int head, const char *stage, const float *a, int rows, int cols) {
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            float v = a[(size_t)i * cols + j];
            if (head >= 0) fprintf(f, "%d,", head);
            else fputc(',', f);
            fprintf(f, "%s,%d,%d,", stage, i, j);
            if (v == -INFINITY) fputs("-inf\n", f);
            else fprintf(f, "%.9g\n", v);
        }
}

/* A CSV field (RFC 4180): quoted, quotes doubled, unsafe characters escaped
 * with utf8_escape so that the file can be shown on a terminal. */
static void csv_field(FILE *f, const char *s, size_t len) {
    char *e = utf8_escape(s, len);
    fputc('"', f);
    for (const char *p = e ? e : ""; *p; p++) {
        if (*p == '"') fputc('"', f);
        fputc(*p, f);
    }
    fputc('"', f);
    free(e);
}

static void export_csv(FILE *f, const Model *m) {
    const ModelConfig *c = &m->cfg;
    fputs("head,stage,i,j,value\n", f);
    for (int j = 0; j < m->n_k; j++) {
        fprintf(f, ",token,%d,0,", j);
        size_t len;
        const char *s = model_key_text(m, j, &len);
        csv_field(f, s, len);
        fputc('\n', f);
    }
    if (m->source == SOURCE_TEXT) csv_matrix(f, -1, "embeddings", m->x, m->n_k, c->d_model);
    for (int h = 0; h < c->heads; h++) {
        const HeadData *hd = &m->head[h];
        csv_matrix(f, h, "q", hd->q, m->n_q, c->d_k);
        csv_matrix(f, h, "k", hd->k, m->n_k, c->d_k);
        csv_matrix(f, h, "v", hd->v, m->n_k, c->d_v);
        csv_matrix(f, h, "scores", hd->scores, m->n_q, m->n_k);
        csv_matrix(f, h, "scaled", hd->scaled, m->n_q, m->n_k);
        csv_matrix(f, h, "masked", hd->masked, m->n_q, m->n_k);
        csv_matrix(f, h, "weights", hd->weights, m->n_q, m->n_k);
        for (int i = 0; i < m->n_q; i++) fprintf(f, "%d,row_sums,%d,0,%.9g\n", h, i, hd->row_sums[i]);
        for (int i = 0; i < m->n_q; i++) fprintf(f, "%d,entropy,%d,0,%.9g\n", h, i, hd->entropy[i]);
        for (int i = 0; i < m->n_q; i++) fprintf(f, "%d,max_weight,%d,0,%.9g\n", h, i, hd->max_weight[i]);
        csv_matrix(f, h, "output", hd->out, m->n_q, c->d_v);
    }
    if (m->source == SOURCE_TEXT) csv_matrix(f, -1, "output", m->y, m->n_q, c->d_model);
}

// ----------------------------------------------------------------------------
// text: labelled matrices with shapes, as the source texts write them

static void text_label(FILE *f, const char *s, size_t len, int width) {
    char *e = utf8_escape(s, len);
    const char *p = e ? e : "?";
    /* Pad by terminal columns, so Hangul labels line up. */
    int cols = utf8_width(p, strlen(p));
    fputs(p, f);
    for (int i = cols; i < width; i++) fputc(' ', f);
    free(e);
}

static void text_matrix(FILE *f, const Model *m, const char *title, const float *a, int rows, int cols,
                        int query_rows) {
    fprintf(f, "%s (%d, %d)\n", title, rows, cols);
    for (int i = 0; i < rows; i++) {
        fputs("  ", f);
        size_t len;
        const char *s = query_rows ? model_query_text(m, i, &len) : model_key_text(m, i, &len);
        text_label(f, s, len, 10);
        for (int j = 0; j < cols; j++) {
            float v = a[(size_t)i * cols + j];
            if (v == -INFINITY) fprintf(f, " %9s", "-inf");
            else fprintf(f, " %9.4f", v);
        }
        fputc('\n', f);
    }
    fputc('\n', f);
}

static void export_text(FILE *f, const Model *m) {
    const ModelConfig *c = &m->cfg;
    int text = m->source == SOURCE_TEXT;
    char mask[32];
    model_mask_name(c, mask, sizeof mask);
    char status[256];
    export_status_words(status, sizeof status, m, EXPORT_STATUS_DUMP);
    fprintf(f, "%s\n\n", status);
    fprintf(f, "tokens (%d)\n", m->n_k);
    for (int j = 0; j < m->n_k; j++) {
        fprintf(f, "  %3d  id %-4d ", j, model_key_id(m, j));
        size_t len;
        const char *s = model_key_text(m, j, &len);
        text_label(f, s, len, 0);
        fputc('\n', f);
    }
    fputc('\n', f);
    if (text) {
        text_matrix(f, m, "embeddings E", m->embed, m->n_k, c->d_model, 0);
        if (c->pos != POS_NONE) {
            text_matrix(f, m, "positional encoding PE", m->pe, m->n_k, c->d_model, 0);
            text_matrix(f, m, "X = E + PE", m->x, m->n_k, c->d_model, 0);
        }
    }
    char title[96];
    FormulaOf formula = formula_of(c, 1);
    for (int h = 0; h < c->heads; h++) {
        const HeadData *hd = &m->head[h];
        fprintf(f, "== head %d/%d ==\n\n", h + 1, c->heads);
        text_matrix(f, m, "Q", hd->q, m->n_q, c->d_k, 1);
        text_matrix(f, m, "K", hd->k, m->n_k, c->d_k, 0);
        text_matrix(f, m, "V", hd->v, m->n_k, c->d_v, 0);
        text_matrix(f, m, formula_text(title, sizeof title, FORMULA_DUMP, STAGE_SCORES, &formula), hd->scores, m->n_q,
                    m->n_k, 1);
        formula_text(title, sizeof title, FORMULA_DUMP, STAGE_SCALED, &formula);
        text_matrix(f, m, title, hd->scaled, m->n_q, m->n_k, 1);
        snprintf(title, sizeof title, "masked (mask=%s, -inf = forbidden)", mask);
        text_matrix(f, m, title, hd->masked, m->n_q, m->n_k, 1);
        text_matrix(f, m, "weights A = softmax(masked)", hd->weights, m->n_q, m->n_k, 1);
        fprintf(f, "row sums, entropy (bits) and largest weight (%d)\n", m->n_q);
        fprintf(f, "  %-10s %9s %9s %9s\n", "", "sum", "entropy", "max");
        for (int i = 0; i < m->n_q; i++) {
            fputs("  ", f);
            size_t len;
            const char *s = model_query_text(m, i, &len);
            text_label(f, s, len, 10);
            fprintf(f, " %9.4f %9.4f %9.4f\n", hd->row_sums[i], hd->entropy[i], hd->max_weight[i]);
        }
        double mean, max;
        model_mean_entropy(m, h, &mean, &max);
        fprintf(f, "  mean entropy %.4f bits of at most %.4f\n\n", mean, max);
        text_matrix(f, m, "output O = A V", hd->out, m->n_q, c->d_v, 1);
    }
    if (text) {
        snprintf(title, sizeof title, "concat(heads) W_O = Y");
        text_matrix(f, m, title, m->y, m->n_q, c->d_model, 1);
    }
}

int export_model(FILE *f, const Model *m, ExportFormat fmt) {
    switch (fmt) {
    case EXPORT_JSON: export_json(f, m); break;
    case EXPORT_CSV: export_csv(f, m); break;
    default: export_text(f, m); break;
    }
    return ferror(f) ? -1 : 0;
}
