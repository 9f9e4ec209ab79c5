/* export.c - see export.h. Numbers are printed with %.9g so that a float32
 * round-trips (JSON, CSV), or with 4 decimals in the text dump. */
#include "export.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formula.h"
#include "tensor.h"
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
    int text = model_can(m, SRC_TOKENIZERS);
    if (kind == EXPORT_STATUS_SCREEN) {
        if (c->d_v != c->d_k) snprintf(dv, sizeof dv, " d_v=%d", c->d_v);
        if (text)
            snprintf(buf, cap, "d_model=%d heads=%d d_k=%d%s mask=%s scale=%s pos=%s seed=%llu", c->d_model, c->heads,
                     c->d_k, dv, mask, scale, pos_name(c->pos), (unsigned long long)c->seed);
        else if (m->src->title) /* a trained model: its name and shape */
            snprintf(buf, cap, "model=%s d_model=%d heads=%d d_k=%d%s mask=%s scale=%s", m->src->title(m), c->d_model,
                     c->heads, c->d_k, dv, mask, scale);
        else
            snprintf(buf, cap, "d_model=- heads=%d d_k=%d%s mask=%s scale=%s pos=none seed=-", c->heads, c->d_k, dv,
                     mask, scale);
    } else if (text) {
        snprintf(buf, cap,
                 "d_model=%d heads=%d d_k=%d d_v=%d mask=%s scale=%s pos=%s seed=%llu tokenizer=%s score=%s%s attn=%s",
                 c->d_model, c->heads, c->d_k, c->d_v, mask, scale, pos_name(c->pos), (unsigned long long)c->seed,
                 export_tokenizer_name(m), score_name(c->score, c->scale), c->tie_qk ? " tie-qk" : "",
                 attn_mode_name(c->attn));
    } else if (m->src->title) {
        snprintf(buf, cap, "source=%s model=%s d_model=%d heads=%d d_k=%d d_v=%d mask=%s scale=%s score=%s",
                 m->src->name, m->src->title(m), c->d_model, c->heads, c->d_k, c->d_v, mask, scale,
                 score_name(c->score, c->scale));
    } else {
        snprintf(buf, cap, "source=%s heads=%d d_k=%d d_v=%d mask=%s scale=%s score=%s", m->src->name, c->heads, c->d_k,
                 c->d_v, mask, scale, score_name(c->score, c->scale));
    }
    /* A source of several layers: which one is shown. */
    size_t n = strlen(buf);
    if (c->layers > 1 && n < cap) n += (size_t)snprintf(buf + n, cap - n, " layer=%d/%d", m->layer + 1, c->layers);
    /* Heads switched off: ablate=5.6:zero,2.1:mean (the first four, then +N) */
    HeadAblation ab[SOURCE_MAX_ABLATED];
    int na = model_ablation(m, ab, SOURCE_MAX_ABLATED);
    for (int k = 0; k < na && k < 4 && n < cap; k++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%d.%d:%s", k ? "," : " ablate=", ab[k].layer + 1, ab[k].head + 1,
                              ab[k].mean ? "mean" : "zero");
    if (na > 4 && n < cap) snprintf(buf + n, cap - n, ",+%d", na - 4);
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
    if (!a) { /* a tensor this source or configuration has not */
        fputs("null", f);
        return;
    }
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

/* A head's row statistics: the rows' sums, entropies and largest weights. */
static double head_stat(const HeadData *hd, int k, int i) {
    return k == 0 ? hd->row_sums[i] : k == 1 ? hd->entropy[i] : (double)hd->max_weight[i];
}

static const char *const stat_names[3] = {"row_sums", "entropy", "max_weight"};

/* The heads of one layer: "[{q, k, v, ...}, ...]", a key per tensor of the
 * catalogue a head has (tensor.h), the row statistics after the tensor that
 * owns them. */
static void json_heads(FILE *f, const Model *m, int layer, const char *indent) {
    const ModelConfig *c = &m->cfg;
    fputc('[', f);
    for (int h = 0; h < c->heads; h++) {
        const HeadData *hd = &model_layer_heads(m, layer)[h];
        fprintf(f, "%s\n%s  {", h ? "," : "", indent);
        int first = 1;
        for (int t = 0; t < TENSOR_COUNT; t++) {
            const TensorInfo *ti = tensor_info((Tensor)t);
            if (ti->scope != TS_HEAD || !(ti->flags & TF_DUMPED)) continue;
            if (!first) fprintf(f, ",\n%s   ", indent);
            first = 0;
            fprintf(f, "\"%s\": ", ti->name);
            json_matrix(f, tensor_data(m, (Tensor)t, layer, h), tensor_rows(m, (Tensor)t), tensor_cols(m, (Tensor)t),
                        (ti->flags & TF_MASKABLE) != 0);
            if (!(ti->flags & TF_OWNS_STATS)) continue;
            for (int k = 0; k < 3; k++) {
                fprintf(f, ",\n%s   \"%s\": [", indent, stat_names[k]);
                for (int i = 0; i < m->n_q; i++) {
                    if (i) fputc(',', f);
                    json_number(f, head_stat(hd, k, i));
                }
                fputc(']', f);
            }
        }
        fputc('}', f);
    }
    fprintf(f, "\n%s]", indent);
}

/* The dumped tensors of the whole model (scope TS_MODEL, before the heads) or
 * of the layer (TS_LAYER, after them): null where the source has none. */
static void json_whole(FILE *f, const Model *m, TensorScope scope) {
    for (int t = 0; t < TENSOR_COUNT; t++) {
        const TensorInfo *ti = tensor_info((Tensor)t);
        if (ti->scope != scope || !(ti->flags & TF_DUMPED)) continue;
        fprintf(f, ",\n  \"%s\": ", ti->name);
        const float *d = tensor_data(m, (Tensor)t, 0, 0);
        if (d) json_matrix(f, d, tensor_rows(m, (Tensor)t), tensor_cols(m, (Tensor)t), 0);
        else fputs("null", f);
    }
}

/* The "config" object: what the source has not (d_model without
 * embeddings, a seed without seeded weights, a tokenizer without a sentence)
 * is null. */
static void json_config(FILE *f, const Model *m) {
    const ModelConfig *c = &m->cfg;
    int text = model_can(m, SRC_TOKENIZERS), embed = model_can(m, SRC_EMBED), seeded = model_can(m, SRC_SEEDED);
    fputs("  \"config\": {", f);
    if (embed || m->src->title) fprintf(f, "\"d_model\": %d, ", c->d_model); /* a trained model's too */
    else fputs("\"d_model\": null, ", f);
    fprintf(f, "\"heads\": %d, \"d_k\": %d, \"d_v\": %d, ", c->heads, c->d_k, c->d_v);
    if (c->layers > 1) fprintf(f, "\"layers\": %d, ", c->layers);
    if (seeded || c->score == SCORE_ADDITIVE) fprintf(f, "\"seed\": %llu, ", (unsigned long long)c->seed);
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
    fprintf(f, ", \"source\": \"%s\"", m->src->name);
    if (m->src->title) { /* a trained model: its name and header */
        fputs(", \"model\": {\"name\": ", f);
        const char *name = m->src->title(m);
        json_string(f, name, strlen(name));
        SourceFact facts[16];
        int n = m->src->facts ? m->src->facts(m, facts, 16) : 0;
        for (int i = 0; i < n; i++) fprintf(f, ", \"%s\": %lld", facts[i].key, facts[i].value);
        fputc('}', f);
    }
    fputs("},\n", f);
}

/* The 10 likeliest next tokens after the last row, of a model that
 * predicts; 0 for the other sources. */
typedef struct {
    int n, ids[10];
    double probs[10];
    const char *pieces[10];
    size_t lens[10];
} NextTokens;

static int next_tokens_of(const Model *m, NextTokens *nt) {
    nt->n = 0;
    if (!m->src->next_tokens || m->n_q == 0) return 0;
    nt->n = m->src->next_tokens(m, m->n_q - 1, 10, nt->ids, nt->probs, nt->pieces, nt->lens);
    return 1;
}

static int whole_utf8(const char *s, size_t len) {
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        i += (size_t)utf8_decode(s + i, len - i, &cp);
        if (cp == UTF8_INVALID) return 0;
    }
    return 1;
}

/* A token's piece and bytes, as next_tokens writes them. */
static void json_piece(FILE *f, const char *piece, size_t len) {
    fputs("\"piece\": ", f);
    if (whole_utf8(piece, len)) json_string(f, piece, len);
    else fputs("null", f);
    fputs(", \"bytes\": [", f);
    for (size_t b = 0; b < len; b++) fprintf(f, "%s%u", b ? ", " : "", (unsigned char)piece[b]);
    fputc(']', f);
}

/* Heads switched off (DESIGN.md §8): "ablated" ["5.6:zero", ...] and
 * "next_tokens_before", the 10 likeliest next tokens after the last row of
 * the model without them, each with its probability and logit before and
 * after (next_tokens is the model as shown: after). */
static void json_ablation(FILE *f, const Model *m) {
    HeadAblation ab[SOURCE_MAX_ABLATED];
    int na = model_ablation(m, ab, SOURCE_MAX_ABLATED);
    if (na < 1) return;
    fputs(",\n  \"ablated\": [", f);
    for (int k = 0; k < na; k++)
        fprintf(f, "%s\"%d.%d:%s\"", k ? ", " : "", ab[k].layer + 1, ab[k].head + 1, ab[k].mean ? "mean" : "zero");
    fputc(']', f);
    NextChange nc[10];
    int n = m->src->next_change && m->n_q ? m->src->next_change(m, m->n_q - 1, 10, nc) : 0;
    fputs(",\n  \"next_tokens_before\": [", f);
    for (int k = 0; k < n; k++) {
        fprintf(f, "%s{\"id\": %d, ", k ? ", " : "", nc[k].id);
        json_piece(f, nc[k].piece, nc[k].len);
        fputs(", \"prob\": ", f);
        json_number(f, nc[k].p_before);
        fputs(", \"logit\": ", f);
        json_number(f, nc[k].logit_before);
        fputs(", \"prob_after\": ", f);
        json_number(f, nc[k].p_after);
        fputs(", \"logit_after\": ", f);
        json_number(f, nc[k].logit_after);
        fputc('}', f);
    }
    fputc(']', f);
}

/* A model that predicts: "next_tokens", its 10 most likely after the last
 * row (DESIGN.md §7), each {id, piece, bytes, prob}: the piece as text, or
 * null when its bytes are not whole UTF-8 characters (a byte-level or
 * <0xNN> token, part of a character), and its bytes as numbers, always. */
static void json_next_tokens(FILE *f, const Model *m) {
    NextTokens nt;
    if (!next_tokens_of(m, &nt)) return;
    fputs(",\n  \"next_tokens\": [", f);
    for (int k = 0; k < nt.n; k++) {
        fprintf(f, "%s{\"id\": %d, \"piece\": ", k ? ", " : "", nt.ids[k]);
        if (whole_utf8(nt.pieces[k], nt.lens[k])) json_string(f, nt.pieces[k], nt.lens[k]);
        else fputs("null", f);
        fputs(", \"bytes\": [", f);
        for (size_t b = 0; b < nt.lens[k]; b++) fprintf(f, "%s%u", b ? ", " : "", (unsigned char)nt.pieces[k][b]);
        fputs("], \"prob\": ", f);
        json_number(f, nt.probs[k]);
        fputc('}', f);
    }
    fputc(']', f);
    json_ablation(f, m);
}

/* The queries come from another sentence than the keys (cross-attention, a
 * Q/K/V file's rows): the dumps give their tokens (and embeddings) too. */
static int has_query_side(const Model *m) {
    return m->n_q != m->n_k || !(model_can(m, SRC_TOKENIZERS) || m->src->title) || m->q_target != m->k_target;
}

static void export_json(FILE *f, const Model *m) {
    const ModelConfig *c = &m->cfg;
    int embed = model_can(m, SRC_EMBED);
    fputs("{\n  \"version\": 1,\n", f);
    json_config(f, m);
    fputs("  \"entropy_unit\": \"bits\",\n", f);
    fputs("  \"tokens\": ", f);
    json_labels(f, m, 0);
    if (has_query_side(m)) {
        fputs(",\n  \"query_tokens\": ", f);
        json_labels(f, m, 1);
    }
    fputs(",\n  \"ids\": [", f);
    for (int j = 0; j < m->n_k; j++) fprintf(f, "%s%d", j ? ", " : "", model_key_id(m, j));
    fputc(']', f);
    json_whole(f, m, TS_MODEL); /* "embeddings" */
    if (embed && m->xq != m->x) {
        fputs(",\n  \"query_embeddings\": ", f);
        json_matrix(f, m->xq, m->n_q, c->d_model, 0);
    }
    if (c->layers == 1) {
        fputs(",\n  \"heads\": ", f);
        json_heads(f, m, 0, "  ");
    } else {
        fputs(",\n  \"layers\": [", f);
        for (int l = 0; l < c->layers; l++) {
            fprintf(f, "%s\n    {\"heads\": ", l ? "," : "");
            json_heads(f, m, l, "    ");
            fputc('}', f);
        }
        fputs("\n  ]", f);
    }
    json_whole(f, m, TS_LAYER); /* "output": Y */
    json_next_tokens(f, m);
    fputs("\n}\n", f);
}

// ----------------------------------------------------------------------------
// CSV: head,stage,i,j,value (head is empty for stages of the whole model);
// with several layers, layer,head,stage,i,j,value

/* The layer column of a source of several layers ("" with one layer). */
static void csv_layer(FILE *f, const Model *m, int layer) {
    if (m->cfg.layers == 1) return;
    if (layer >= 0) fprintf(f, "%d,", layer);
    else fputc(',', f);
}

static void csv_matrix(FILE *f, const Model *m, int layer, int head, const char *stage, const float *a, int rows,
                       int cols) {
    for (int i = 0; a && i < rows; i++)
        for (int j = 0; j < cols; j++) {
            float v = a[(size_t)i * cols + j];
            csv_layer(f, m, layer);
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

/* The dumped tensors of the whole model or of the layer that the source has. */
static void csv_whole(FILE *f, const Model *m, TensorScope scope) {
    for (int t = 0; t < TENSOR_COUNT; t++) {
        const TensorInfo *ti = tensor_info((Tensor)t);
        const float *d = tensor_data(m, (Tensor)t, 0, 0);
        if (ti->scope == scope && (ti->flags & TF_DUMPED) && d)
            csv_matrix(f, m, -1, -1, ti->name, d, tensor_rows(m, (Tensor)t), tensor_cols(m, (Tensor)t));
    }
}

/* A model that predicts: its 10 likeliest next tokens after the last row,
 * as two rows each, i the rank and j the id: `next_token` with the piece,
 * `next_prob` with the probability. */
static void csv_next_tokens(FILE *f, const Model *m) {
    NextTokens nt;
    if (!next_tokens_of(m, &nt)) return;
    for (int k = 0; k < nt.n; k++) {
        csv_layer(f, m, -1);
        char shown[64];
        fprintf(f, ",next_token,%d,%d,", k, nt.ids[k]);
        csv_field(f, shown, utf8_show_spaces(nt.pieces[k], nt.lens[k], shown, sizeof shown));
        fputc('\n', f);
        csv_layer(f, m, -1);
        fprintf(f, ",next_prob,%d,%d,%.9g\n", k, nt.ids[k], nt.probs[k]);
    }
}

static void export_csv(FILE *f, const Model *m) {
    const ModelConfig *c = &m->cfg;
    fputs(c->layers > 1 ? "layer,head,stage,i,j,value\n" : "head,stage,i,j,value\n", f);
    for (int j = 0; j < m->n_k; j++) {
        csv_layer(f, m, -1);
        fprintf(f, ",token,%d,0,", j);
        size_t len;
        const char *s = model_key_text(m, j, &len);
        csv_field(f, s, len);
        fputc('\n', f);
    }
    for (int j = 0; m->src->next_tokens && j < m->n_k; j++) { /* a vocabulary's ids */
        csv_layer(f, m, -1);
        fprintf(f, ",token_id,%d,0,%d\n", j, model_key_id(m, j));
    }
    for (int i = 0; has_query_side(m) && i < m->n_q; i++) {
        csv_layer(f, m, -1);
        fprintf(f, ",query_token,%d,0,", i);
        size_t len;
        const char *s = model_query_text(m, i, &len);
        csv_field(f, s, len);
        fputc('\n', f);
    }
    csv_whole(f, m, TS_MODEL); /* embeddings */
    if (model_can(m, SRC_EMBED) && m->xq != m->x)
        csv_matrix(f, m, -1, -1, "query_embeddings", m->xq, m->n_q, c->d_model);
    for (int l = 0; l < c->layers; l++)
        for (int h = 0; h < c->heads; h++) {
            const HeadData *hd = &model_layer_heads(m, l)[h];
            for (int t = 0; t < TENSOR_COUNT; t++) {
                const TensorInfo *ti = tensor_info((Tensor)t);
                if (ti->scope != TS_HEAD || !(ti->flags & TF_DUMPED)) continue;
                csv_matrix(f, m, l, h, ti->name, tensor_data(m, (Tensor)t, l, h), tensor_rows(m, (Tensor)t),
                           tensor_cols(m, (Tensor)t));
                for (int k = 0; (ti->flags & TF_OWNS_STATS) && k < 3; k++)
                    for (int i = 0; i < m->n_q; i++) {
                        csv_layer(f, m, l);
                        fprintf(f, "%d,%s,%d,0,%.9g\n", h, stat_names[k], i, head_stat(hd, k, i));
                    }
            }
        }
    csv_whole(f, m, TS_LAYER); /* output: Y */
    csv_next_tokens(f, m);
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

/* A matrix with its title and shape; its rows labelled by their tokens, or
 * by their index when they are dimensions (the rows of W_Q are d_model's). */
static void text_matrix(FILE *f, const Model *m, const char *title, const float *a, int rows, int cols,
                        TensorSide side) {
    fprintf(f, "%s (%d, %d)\n", title, rows, cols);
    for (int i = 0; i < rows; i++) {
        fputs("  ", f);
        size_t len;
        if (side == SIDE_QUERIES || side == SIDE_KEYS) {
            const char *s = side == SIDE_QUERIES ? model_query_text(m, i, &len) : model_key_text(m, i, &len);
            text_label(f, s, len, 10);
        } else {
            fprintf(f, "%-10d", i);
        }
        for (int j = 0; j < cols; j++) {
            float v = a[(size_t)i * cols + j];
            if (v == -INFINITY) fprintf(f, " %9s", "-inf");
            else fprintf(f, " %9.4f", v);
        }
        fputc('\n', f);
    }
    fputc('\n', f);
}

static void text_row_stats(FILE *f, const Model *m, const HeadData *hd);

/* The text dump's title of tensor t, as the source texts write it; NULL when
 * the text dump leaves it out (X without a positional encoding is E). */
static const char *text_title(const Model *m, Tensor t, char *buf, size_t cap) {
    const ModelConfig *c = &m->cfg;
    FormulaOf formula = formula_of(c, 1);
    char mask[32];
    switch (t) {
    case TENSOR_E: return "embeddings E";
    case TENSOR_PE: return "positional encoding PE";
    case TENSOR_X: return c->pos != POS_NONE ? "X = E + PE" : NULL;
    case TENSOR_WQ: return "W_Q";
    case TENSOR_WK: return "W_K";
    case TENSOR_WV: return "W_V";
    case TENSOR_W1: return "additive W1 (of the queries)";
    case TENSOR_W2: return "additive W2 (of the keys)";
    case TENSOR_VA: return "additive v";
    case TENSOR_WO: return "W_O";
    case TENSOR_CONCAT: return "concat(heads)";
    case TENSOR_Q: return "Q";
    case TENSOR_K: return "K";
    case TENSOR_V: return "V";
    case TENSOR_SCORES: return formula_text(buf, cap, FORMULA_DUMP, STAGE_SCORES, &formula);
    case TENSOR_SCALED: return formula_text(buf, cap, FORMULA_DUMP, STAGE_SCALED, &formula);
    case TENSOR_MASKED:
        model_mask_name(c, mask, sizeof mask);
        snprintf(buf, cap, "masked (mask=%s, -inf = forbidden)", mask);
        return buf;
    case TENSOR_WEIGHTS: return "weights A = softmax(masked)";
    case TENSOR_OUTPUT: return "output O = A V";
    case TENSOR_Y: return "concat(heads) W_O = Y";
    default: return NULL;
    }
}

/* Each tensor of scope `scope` that m has and the text dump shows (of head h
 * of layer l for the heads' own), with the row statistics after their
 * owner. */
static void text_tensors(FILE *f, const Model *m, TensorScope scope, int l, int h) {
    char buf[96];
    for (int t = 0; t < TENSOR_COUNT; t++) {
        const TensorInfo *ti = tensor_info((Tensor)t);
        const float *d = ti->scope == scope ? tensor_data(m, (Tensor)t, l, h) : NULL;
        const char *title = d ? text_title(m, (Tensor)t, buf, sizeof buf) : NULL;
        if (!title) continue;
        text_matrix(f, m, title, d, tensor_rows(m, (Tensor)t), tensor_cols(m, (Tensor)t), ti->rows);
        if (ti->flags & TF_OWNS_STATS) text_row_stats(f, m, &model_layer_heads(m, l)[h]);
    }
}

static void text_row_stats(FILE *f, const Model *m, const HeadData *hd) {
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
    model_head_entropy(m, hd, &mean, &max);
    fprintf(f, "  mean entropy %.4f bits of at most %.4f\n\n", mean, max);
}

/* A model that predicts: its 10 likeliest next tokens after the last row. */
static void text_next_tokens(FILE *f, const Model *m) {
    NextTokens nt;
    if (!next_tokens_of(m, &nt)) return;
    size_t len;
    const char *last = model_query_text(m, m->n_q - 1, &len);
    fputs("next tokens after ", f);
    text_label(f, last, len, 0);
    fprintf(f, " (%d)\n", nt.n);
    for (int k = 0; k < nt.n; k++) {
        char shown[64];
        fprintf(f, "  %3d  id %-4d %9.4f  ", k + 1, nt.ids[k], nt.probs[k]);
        text_label(f, shown, utf8_show_spaces(nt.pieces[k], nt.lens[k], shown, sizeof shown), 0);
        fputc('\n', f);
    }
    fputc('\n', f);
}

static void export_text(FILE *f, const Model *m) {
    const ModelConfig *c = &m->cfg;
    char status[256];
    export_status_words(status, sizeof status, m, EXPORT_STATUS_DUMP);
    text_label(f, status, strlen(status), 0); /* a model's name comes from a file: escaped */
    fputs("\n\n", f);
    fprintf(f, "tokens (%d)\n", m->n_k);
    for (int j = 0; j < m->n_k; j++) {
        fprintf(f, "  %3d  id %-4d ", j, model_key_id(m, j));
        size_t len;
        const char *s = model_key_text(m, j, &len);
        text_label(f, s, len, 0);
        fputc('\n', f);
    }
    fputc('\n', f);
    if (has_query_side(m)) {
        fprintf(f, "query tokens (%d)\n", m->n_q);
        for (int i = 0; i < m->n_q; i++) {
            fprintf(f, "  %3d  ", i);
            size_t len;
            const char *s = model_query_text(m, i, &len);
            text_label(f, s, len, 0);
            fputc('\n', f);
        }
        fputc('\n', f);
    }
    text_tensors(f, m, TS_MODEL, 0, 0);
    if (model_can(m, SRC_EMBED) && m->xq != m->x)
        text_matrix(f, m, "X of the queries' sentence", m->xq, m->n_q, c->d_model, SIDE_QUERIES);
    for (int lh = 0; lh < c->layers * c->heads; lh++) {
        int l = lh / c->heads, h = lh % c->heads;
        if (c->layers > 1) fprintf(f, "== layer %d/%d, head %d/%d ==\n\n", l + 1, c->layers, h + 1, c->heads);
        else fprintf(f, "== head %d/%d ==\n\n", h + 1, c->heads);
        text_tensors(f, m, TS_HEAD, l, h);
    }
    text_tensors(f, m, TS_LAYER, 0, 0);
    text_next_tokens(f, m);
}

int export_model(FILE *f, const Model *m, ExportFormat fmt) {
    switch (fmt) {
    case EXPORT_JSON: export_json(f, m); break;
    case EXPORT_CSV: export_csv(f, m); break;
    default: export_text(f, m); break;
    }
    return ferror(f) ? -1 : 0;
}
