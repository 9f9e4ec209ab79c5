/* views.c - the screens of the app drawn on a canvas: the single-head
 * heatmap, all heads side by side, and the lines around every view (status,
 * title, info, legend, inspector, message, key hints or prompt). The help
 * and cell pages and the pipeline are in docs.c, word gravity in gravity.c.
 *
 * Screen rows (H = canvas height):
 *   0        status: the configuration as key=value words (contract)
 *   1        title: head i/h, the stage shown and its formula
 *   2        info: score kind, attention mode, tokens, mean entropy, asymmetry
 *   3..      column labels (and an index ruler), then the heatmap rows
 *   then     legend (colour bar, masked look, flags), right under the map and
 *            at most at H-5; the two inspector lines (the arithmetic of the
 *            cell under the cursor); the message (result of the last key)
 *   H-1      key hints, or the prompt being typed */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "cli.h"
#include "export.h"
#include "gravity.h"
#include "views.h"
#include "keymap.h"
#include "text.h"
#include "utf8.h"

enum { TOP_LINES = 3, BOTTOM_LINES = 5, MAX_LABEL = 16, MAX_CELL_W = 12 };

static const Glyphs glyphs_unicode = {"…", "·", "!", "Σ", "→", "√", "−∞", "·", "×",
                                      "␣", "ᵀ", "−", "÷", "│", "█", "H̄",  "⊙"};
static const Glyphs glyphs_ascii = {"~", "x",  "!", "sum", "->", "sqrt", "-inf",   ".", "x",
                                    "_", "^T", "-", "/",   "|",  "#",    "mean H", "*"};

const Glyphs *view_glyphs(const App *a) { return a->ascii ? &glyphs_ascii : &glyphs_unicode; }
#define G view_glyphs

const char *view_sqrt(const App *a, int n, char *buf, size_t cap) {
    if (a->ascii) snprintf(buf, cap, "sqrt(%d)", n);
    else snprintf(buf, cap, "√%d", n);
    return buf;
}

// ----------------------------------------------------------------------------
// what is shown

void view_matrix_of(ShownMat *sm, const float *v, int rows, int cols, int is_signed) {
    memset(sm, 0, sizeof *sm);
    sm->v = v;
    sm->rows = rows;
    sm->cols = cols;
    sm->is_signed = is_signed;
    sm->col_labels = LABELS_DIMS;
    double lo = INFINITY, hi = -INFINITY;
    size_t cells = (size_t)rows * cols;
    for (size_t i = 0; i < cells; i++) {
        double x = v[i];
        if (!isfinite(x)) continue;
        if (x < lo) lo = x;
        if (x > hi) hi = x;
    }
    if (lo > hi) lo = hi = 0;
    sm->lo = lo, sm->hi = hi;
    sm->maxabs = fabs(lo) > fabs(hi) ? fabs(lo) : fabs(hi);
    if (!is_signed) sm->lo = 0, sm->hi = 1;
}

void view_matrix(const App *a, Shown s, int h, ShownMat *sm) {
    const Model *m = a->m;
    const ModelConfig *c = &m->cfg;
    const HeadData *hd = &m->head[h];
    switch (s) {
    case SHOW_WEIGHTS: view_matrix_of(sm, hd->weights, m->n_q, m->n_k, 0); break;
    case SHOW_SCORES: view_matrix_of(sm, hd->scores, m->n_q, m->n_k, 1); break;
    case SHOW_SCALED: view_matrix_of(sm, hd->scaled, m->n_q, m->n_k, 1); break;
    case SHOW_MASKED: view_matrix_of(sm, hd->masked, m->n_q, m->n_k, 1); break;
    case SHOW_OUTPUT: view_matrix_of(sm, hd->out, m->n_q, c->d_v, 1); break;
    case SHOW_X: view_matrix_of(sm, m->x, m->n_k, c->d_model, 1); break;
    case SHOW_PE: view_matrix_of(sm, m->pe, m->n_k, c->d_model, 1); break;
    case SHOW_CONCAT:
        view_matrix_of(sm, m->concat, m->n_q, c->heads * c->d_v, 1);
        sm->col_labels = LABELS_CONCAT;
        sm->d_v = c->d_v;
        break;
    default: view_matrix_of(sm, m->y, m->n_q, c->d_model, 1); break;
    }
    if (s <= SHOW_MASKED) sm->col_labels = LABELS_KEYS;
    sm->can_mask = s == SHOW_WEIGHTS || s == SHOW_MASKED;
    sm->row_stats = s <= SHOW_OUTPUT;
}

int view_cell_masked(const App *a, const ShownMat *sm, int i, int j) {
    return sm->can_mask && !a->m->allowed[(size_t)i * a->m->n_k + j];
}

static int row_fully_masked(const App *a, int i) { return a->m->n_k > 0 && a->m->n_allowed[i] == 0; }

static const char *const stage_names[SHOW_COUNT] = {
    "weights",    "raw scores",          "scaled scores", "masked scores", "output",
    "X = E + PE", "positional encoding", "heads joined",  "layer output Y"};

const char *view_stage_name(Shown s) { return (unsigned)s < SHOW_COUNT ? stage_names[s] : "?"; }

static const char *stage_title(const App *a, char *buf, size_t cap) {
    const Glyphs *g = G(a);
    const Model *m = a->m;
    const ModelConfig *c = &m->cfg;
    char div[32], root[24];
    if (c->scale) snprintf(div, sizeof div, "%s%s", g->div, view_sqrt(a, c->d_k, root, sizeof root));
    else snprintf(div, sizeof div, " (scaling off)");
    switch (a->shown) {
    case SHOW_WEIGHTS:
        snprintf(buf, cap, "weights A = softmax(QK%s%s, mask)", g->transpose, c->scale ? div : "");
        break;
    case SHOW_SCORES: snprintf(buf, cap, "raw scores S = QK%s (before scaling)", g->transpose); break;
    case SHOW_SCALED: snprintf(buf, cap, "scaled scores S' = QK%s%s", g->transpose, div); break;
    case SHOW_MASKED: {
        char mk[32];
        model_mask_name(c, mk, sizeof mk);
        snprintf(buf, cap, "masked scores: S' with %s where mask=%s forbids", g->neg_inf, mk);
        break;
    }
    case SHOW_OUTPUT: snprintf(buf, cap, "output O = A V  (%d, %d)", m->n_q, c->d_v); break;
    case SHOW_X:
        if (c->pos == POS_NONE)
            snprintf(buf, cap, "X = E: token embeddings, no positional encoding  (%d, %d)", m->n_k, c->d_model);
        else snprintf(buf, cap, "X = E + PE  (%d, %d)", m->n_k, c->d_model);
        break;
    case SHOW_PE: snprintf(buf, cap, "PE: sinusoidal positional encoding  (%d, %d)", m->n_k, c->d_model); break;
    case SHOW_CONCAT:
        snprintf(buf, cap, "concat(O_1 .. O_%d), heads marked  (%d, %d)", c->heads, m->n_q, c->heads * c->d_v);
        break;
    default: snprintf(buf, cap, "Y = concat W_O  (%d, %d)", m->n_q, c->d_model); break;
    }
    return buf;
}

// ----------------------------------------------------------------------------
// text helpers

/* A label safe to show, cut to max_cols with the ellipsis. Spaces inside a
 * token (GPT-2 keeps the leading one) are shown as a visible mark. */
void view_qlabel(const App *a, char *out, size_t cap, int i, int max_cols) {
    size_t len;
    const char *s = model_query_text(a->m, i, &len);
    view_label(a, out, cap, s, len, max_cols);
}

void view_klabel(const App *a, char *out, size_t cap, int j, int max_cols) {
    size_t len;
    const char *s = model_key_text(a->m, j, &len);
    view_label(a, out, cap, s, len, max_cols);
}

void view_label(const App *a, char *out, size_t cap, const char *raw, size_t len, int max_cols) {
    /* Whole characters of the (possibly huge) token, as many as a screen
     * label can use; spaces become a visible mark (GPT-2 keeps them). */
    char tmp[256];
    size_t t = 0;
    const char *sp = G(a)->space;
    size_t splen = strlen(sp);
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        int n = utf8_decode(raw + i, len - i, &cp);
        if (n < 1) n = 1;
        size_t need = raw[i] == ' ' ? splen : (size_t)n;
        if (t + need >= sizeof tmp) break;
        if (raw[i] == ' ') memcpy(tmp + t, sp, splen);
        else memcpy(tmp + t, raw + i, (size_t)n);
        t += need;
        i += (size_t)n;
    }
    /* A token that starts with a combining mark has no base to draw it on:
     * a dotted circle stands in (as in Unicode charts). */
    uint32_t first;
    if (t > 0 && utf8_decode(tmp, t, &first) > 0 && first != UTF8_INVALID && text_cp_width(first) == 0 &&
        !utf8_is_unsafe(first) && t + 4 < sizeof tmp) {
        const char *base = a->ascii ? " " : "◌";
        size_t bl = strlen(base);
        memmove(tmp + bl, tmp, t);
        memcpy(tmp, base, bl);
        t += bl;
    }
    /* --ascii is about our glyphs (ambiguous-width symbols); the user's
     * text is shown as it is, escaped only where it is unsafe. */
    char *safe = text_safe_label(tmp, t, 0);
    text_truncate(out, cap, safe ? safe : "?", safe ? strlen(safe) : 1, max_cols, G(a)->ellipsis);
    free(safe);
}

static void col_label(const App *a, const ShownMat *sm, char *out, size_t cap, int j, int max_cols) {
    char tmp[32];
    switch (sm->col_labels) {
    case LABELS_KEYS: view_klabel(a, out, cap, j, max_cols); return;
    case LABELS_CONCAT: snprintf(tmp, sizeof tmp, "%d.%d", j / sm->d_v + 1, j % sm->d_v); break;
    default: snprintf(tmp, sizeof tmp, "%d", j); break;
    }
    text_truncate(out, cap, tmp, strlen(tmp), max_cols, G(a)->ellipsis);
}

/* A number in at most `width` columns: weights with 2 decimals, other values
 * with as many decimals as fit. */
void view_num(char *buf, size_t cap, double v, int width, int weight) {
    if (weight) {
        if (width >= 4) snprintf(buf, cap, "%.2f", v);
        else if (v >= 0.995) snprintf(buf, cap, "1.0");
        else snprintf(buf, cap, ".%02d", (int)lround(v * 100));
        return;
    }
    for (int dec = 2; dec >= 1; dec--) {
        snprintf(buf, cap, "%.*f", dec, v);
        if ((int)strlen(buf) <= width) return;
        /* "-0.3" -> "-.3", "0.25" -> ".25": the decimals matter more */
        char *z = strstr(buf, "0.");
        if (z && (z == buf || (z == buf + 1 && buf[0] == '-'))) memmove(z, z + 1, strlen(z + 1) + 1);
        if ((int)strlen(buf) <= width) return;
    }
    snprintf(buf, cap, "%.0f", v);
    if ((int)strlen(buf) <= width && strcmp(buf, "-0") != 0) return;
    /* Beyond that, an exponent as short as it can be written: "-3e+38" is
     * "-3e38" and "1e-05" is "1e-5", so a saturated score (-3.4e38) still
     * reads as a number in a 5-column cell; only a cell too narrow even for
     * that gets a bare sign. */
    snprintf(buf, cap, "%.0e", v);
    char *e = strchr(buf, 'e');
    if (e) {
        char *digits = e + 1, *from = digits;
        if (*from == '+') from++;
        else if (*from == '-') digits++, from++;
        while (*from == '0' && from[1]) from++;
        memmove(digits, from, strlen(from) + 1);
    }
    if ((int)strlen(buf) > width) snprintf(buf, cap, "%s", v < 0 ? "-" : "+");
}

// ----------------------------------------------------------------------------
// cells

Style view_value_style(const App *a, const ShownMat *sm, double v, const char **glyph) {
    Style st = style_plain();
    double t;
    if (sm->is_signed) t = sm->maxabs > 0 ? v / sm->maxabs : 0.0;
    else t = v;
    if (a->tier != TIER_NONE) {
        RampColor rc = sm->is_signed ? palette_div(a->tier, t) : palette_seq(a->tier, t);
        st.bg = rc.bg;
        st.fg = rc.fg;
        if (rc.bold) st.attr |= ST_BOLD;
        *glyph = NULL;
    } else {
        *glyph = sm->is_signed ? palette_shade_signed(t, a->ascii) : palette_shade(t, a->ascii);
    }
    return st;
}

/* One cell of cw x ch screen cells at (y, x). */
void view_cell(const App *a, Canvas *cv, int y, int x, int cw, int ch, const ShownMat *sm, int i, int j, int cursor,
               int numbers) {
    int mid = y + (ch - 1) / 2;
    /* The cursor keeps the cell's colour (its value stays readable) and is
     * marked bold and underlined; its row and column labels are reversed. */
    if (view_cell_masked(a, sm, i, j)) {
        Style st = style_attr(ST_DIM);
        if (cursor) st.attr = ST_BOLD | ST_UNDERLINE;
        for (int r = 0; r < ch; r++) cv_fill(cv, y + r, x, cw, " ", st);
        cv_text(cv, mid, x + (cw - 1) / 2, G(a)->masked, 1, st);
        return;
    }
    double v = sm->v[(size_t)i * sm->cols + j];
    const char *glyph;
    Style st = view_value_style(a, sm, v, &glyph);
    /* Under the cursor only the middle row changes (bold, underlined): a
     * cursor move rewrites as few cells as it can (bytes over SSH). */
    Style mst = st;
    if (cursor) mst.attr |= ST_BOLD | ST_UNDERLINE;
    char num[32];
    if (!glyph) { /* colour: the background carries the value */
        for (int r = 0; r < ch; r++) cv_fill(cv, y + r, x, cw, " ", y + r == mid ? mst : st);
        if (numbers && cw >= 4) {
            /* Centred, with at least one blank before it so that the numbers
             * of neighbouring cells never run together. */
            view_num(num, sizeof num, v, cw - 1, !sm->is_signed);
            int nw = (int)strlen(num);
            cv_text(cv, mid, x + 1 + (cw - 1 - nw) / 2, num, nw, mst);
        }
        return;
    }
    /* no colour: shade glyphs carry the value, a blank column separates cells */
    int gw = cw > 1 ? cw - 1 : 1;
    for (int r = 0; r < ch; r++) {
        cv_fill(cv, y + r, x, gw, glyph, y + r == mid ? mst : st);
        if (cw > 1) cv_fill(cv, y + r, x + gw, 1, " ", style_plain());
    }
    if (numbers && cw >= 5) {
        /* The number at the right, after a blank; glyphs keep the rest. */
        view_num(num, sizeof num, v, cw - 2, !sm->is_signed);
        int nw = (int)strlen(num);
        if (gw >= nw + 2) cv_fill(cv, mid, x + gw - nw - 1, 1, " ", mst);
        cv_text(cv, mid, x + gw - nw, num, nw, mst);
    }
}

// ----------------------------------------------------------------------------
// status, title, legend, inspector, message, hints

/* "score=scaled attn=self" and, when on, "tie-qk" and "pad=N". */
static void status_extras(const App *a, char *buf, size_t cap) {
    const Model *m = a->m;
    const ModelConfig *c = &m->cfg;
    int n = snprintf(buf, cap, "score=%s", score_name(c->score, c->scale));
    if (m->source == SOURCE_TEXT) n += snprintf(buf + n, cap - (size_t)n, " attn=%s", attn_mode_name(c->attn));
    if (c->tie_qk) n += snprintf(buf + n, cap - (size_t)n, " tie-qk");
    if (m->n_pad) snprintf(buf + n, cap - (size_t)n, " pad=%d", m->n_pad);
}

static void draw_status(const App *a, Canvas *cv) {
    char buf[256];
    export_status_words(buf, sizeof buf, a->m, EXPORT_STATUS_SCREEN);
    Style st = style_attr(ST_REVERSE);
    cv_fill(cv, 0, 0, cv->w, " ", st);
    cv_text(cv, 0, 0, buf, cv->w, st);
}

/* The size of the input: "11 tokens, words". */
static void token_count(const App *a, char *buf, size_t cap) {
    const Model *m = a->m;
    if (m->source == SOURCE_QKV) snprintf(buf, cap, "%d x %d from file", m->n_q, m->n_k);
    else if (m->q_target != m->k_target)
        snprintf(buf, cap, "%d x %d tokens, %s", m->n_q, m->n_k, tok_preset_name(tok_preset(m->tokenizer)));
    else snprintf(buf, cap, "%d tokens, %s", m->n_q, tok_preset_name(tok_preset(m->tokenizer)));
}

/* Line 2: the variants (score, attention, tie, pads), the size, and for the
 * head shown its saturation (mean entropy against its maximum) and the
 * asymmetry of its raw scores (0 when Q and K are tied). */
static void draw_info(const App *a, Canvas *cv) {
    const Model *m = a->m;
    char buf[256];
    status_extras(a, buf, sizeof buf);
    int x = cv_text(cv, 2, 0, buf, cv->w, style_plain());
    token_count(a, buf, sizeof buf);
    x += 3 + cv_text(cv, 2, x + 3, buf, cv->w - x - 3, style_attr(ST_DIM));
    if (a->view == VIEW_PIPELINE || m->n_q == 0) return;
    double mean, max;
    model_mean_entropy(m, a->head, &mean, &max);
    int n = snprintf(buf, sizeof buf, "%s %.2f of %.2f bits", G(a)->mean_h, mean, max);
    if (m->n_q == m->n_k) snprintf(buf + n, sizeof buf - (size_t)n, "   asym %.2f", model_asymmetry(m, a->head));
    int w = text_width(buf, strlen(buf));
    if (x + 3 + w <= cv->w) cv_text(cv, 2, cv->w - w, buf, w, style_plain());
}

static void draw_title(const App *a, Canvas *cv) {
    char stage[192], buf[384];
    stage_title(a, stage, sizeof stage);
    const Model *m = a->m;
    if (a->view == VIEW_HEADS)
        snprintf(buf, sizeof buf, "all %d heads, %s  (Tab/1-9 choose, Enter opens)  head %d/%d", m->cfg.heads,
                 view_stage_name(a->shown), a->head + 1, m->cfg.heads);
    else if (a->view == VIEW_GRAVITY)
        snprintf(buf, sizeof buf, "head %d/%d  word gravity: X and where %s moves it (g: %s, Tab: head)", a->head + 1,
                 m->cfg.heads, a->gravity_all ? "the whole layer" : "this head",
                 a->gravity_all ? "one head" : "all heads");
    else if (a->view == VIEW_PIPELINE)
        snprintf(buf, sizeof buf, "head %d/%d  the whole chain, stage by stage (Tab: head, arrows scroll, c: back)",
                 a->head + 1, m->cfg.heads);
    else snprintf(buf, sizeof buf, "head %d/%d  %s", a->head + 1, m->cfg.heads, stage);
    cv_text(cv, 1, 0, buf, cv->w, style_attr(ST_BOLD));
}

static void swatch(const App *a, Canvas *cv, int y, int x, double t, int is_signed) {
    ShownMat sm = {0};
    sm.is_signed = is_signed;
    sm.maxabs = 1;
    const char *glyph;
    Style st = view_value_style(a, &sm, t, &glyph);
    cv_fill(cv, y, x, 2, glyph ? glyph : " ", st);
}

static void draw_legend(const App *a, Canvas *cv, int y, const ShownMat *sm) {
    const Glyphs *g = G(a);
    int x = 0, steps = 10;
    char buf[160];
    if (!sm->is_signed) {
        x += cv_text(cv, y, x, "0 ", cv->w - x, style_plain());
        for (int s = 0; s < steps && x + 2 < cv->w; s++, x += 2) swatch(a, cv, y, x, (double)s / (steps - 1), 0);
        x += cv_text(cv, y, x, " 1", cv->w - x, style_plain());
    } else {
        snprintf(buf, sizeof buf, "min %.3g ", sm->lo);
        x += cv_text(cv, y, x, buf, cv->w - x, style_plain());
        for (int s = 0; s < steps + 1 && x + 2 < cv->w; s++, x += 2) swatch(a, cv, y, x, -1.0 + 2.0 * s / steps, 1);
        snprintf(buf, sizeof buf, " max %.3g", sm->hi);
        x += cv_text(cv, y, x, buf, cv->w - x, style_plain());
    }
    if (sm->can_mask) {
        x += 3;
        int w = cv_text(cv, y, x, g->masked, 1, style_attr(ST_DIM));
        snprintf(buf, sizeof buf, " masked (%s, weight 0)", g->neg_inf);
        x += w + cv_text(cv, y, x + w, buf, cv->w - x - w, style_plain());
        snprintf(buf, sizeof buf, "  %s all masked", g->flag);
        if (a->view == VIEW_HEATMAP) x += cv_text(cv, y, x, buf, cv->w - x, style_plain());
    }
    if (sm->row_stats && a->view == VIEW_HEATMAP) cv_text(cv, y, x, "  H in bits", cv->w - x, style_plain());
}

static int digits(int n) {
    int d = 1;
    while (n >= 10) n /= 10, d++;
    return d;
}

/* Pads a label with spaces to `cols` terminal columns. */
static void pad_to(char *buf, size_t cap, int cols) {
    size_t len = strlen(buf);
    for (int w = text_width(buf, len); w < cols && len + 1 < cap; w++) buf[len++] = ' ';
    buf[len] = '\0';
}

static int max_label_width(const App *a, int cap);

/* The inspector: the arithmetic of the cell under the cursor, in two lines. */
static void draw_inspector(const App *a, Canvas *cv, int y) {
    const Model *m = a->m;
    const ModelConfig *c = &m->cfg;
    const Glyphs *g = G(a);
    if (m->n_q == 0) return;
    int i = a->ci, j = a->cj;
    char q[96], k[96], l1[512], l2[512] = "";
    /* Labels padded to one width and indices to one width, so that moving
     * the cursor leaves the numbers where they are (only they change). */
    int lw = max_label_width(a, 16), iw = m->n_q > m->n_k ? digits(m->n_q) : digits(m->n_k);
    if (a->shown >= SHOW_X && a->shown <= SHOW_PE) view_klabel(a, q, sizeof q, i, 16);
    else view_qlabel(a, q, sizeof q, i, 16);
    size_t dm = (size_t)c->d_model;
    switch (a->shown) {
    case SHOW_OUTPUT: {
        const HeadData *hd = &m->head[a->head];
        int dv = c->d_v;
        snprintf(l1, sizeof l1, "%s[%d], output column %d:  O[%d][%d] = %s_j A[%d][j] %s V[j][%d] = %.4f", q, i, j, i,
                 j, g->sigma, i, g->times, j, hd->out[(size_t)i * dv + j]);
        int n = snprintf(l2, sizeof l2, "=");
        for (int t = 0; t < m->n_k && n < (int)sizeof l2 - 40; t++) {
            float w = hd->weights[(size_t)i * m->n_k + t];
            if (!m->allowed[(size_t)i * m->n_k + t]) continue;
            n += snprintf(l2 + n, sizeof l2 - (size_t)n, "%s %.2f%s%.2f", n > 1 ? " +" : "", w, g->times,
                          hd->v[(size_t)t * dv + j]);
        }
        break;
    }
    case SHOW_X:
        snprintf(l1, sizeof l1, "%s[%d], dimension %d:  X = E + PE = %.4f + %.4f = %.4f", q, i, j, m->embed[i * dm + j],
                 m->pe[i * dm + j], m->x[i * dm + j]);
        snprintf(l2, sizeof l2, "E: the token's vector, N(0,1) keyed by the seed and the token's text (id %d)",
                 model_key_id(m, i));
        break;
    case SHOW_PE: {
        int i2 = j & ~1;
        snprintf(l1, sizeof l1, "position %d, dimension %d:  PE = %s(%d / 10000^(%d/%d)) = %.4f", i, j,
                 j & 1 ? "cos" : "sin", i, i2, c->d_model, m->pe[i * dm + j]);
        snprintf(l2, sizeof l2, "even dimensions use sin, odd ones cos; each pair turns at its own wavelength");
        break;
    }
    case SHOW_CONCAT: {
        int h = j / c->d_v, col = j % c->d_v;
        snprintf(l1, sizeof l1, "%s[%d], column %d = head %d's output column %d:  %.4f", q, i, j, h + 1, col,
                 m->concat[(size_t)i * c->heads * c->d_v + j]);
        snprintf(l2, sizeof l2, "the heads' outputs O_1 .. O_%d side by side: %d x %d = %d columns", c->heads, c->heads,
                 c->d_v, c->heads * c->d_v);
        break;
    }
    case SHOW_Y:
        snprintf(l1, sizeof l1, "%s[%d], dimension %d:  Y = %s_c concat[%d][c] %s W_O[c][%d] = %.4f", q, i, j, g->sigma,
                 i, g->times, j, m->y[(size_t)i * dm + j]);
        snprintf(l2, sizeof l2, "W_O (%d, %d) mixes what the heads found back into d_model = %d dimensions",
                 c->heads * c->d_v, c->d_model, c->d_model);
        break;
    default: {
        view_klabel(a, k, sizeof k, j, 16);
        CellDetail d;
        model_cell_detail(m, a->head, i, j, &d);
        char div[64], root[24], raw[96];
        view_sqrt(a, c->d_k, root, sizeof root);
        if (d.divisor == 1.0) snprintf(div, sizeof div, "(no scaling) = %.4f", d.scaled);
        else if (c->score == SCORE_COSINE) snprintf(div, sizeof div, "%s%s = %.4f", g->times, root, d.scaled);
        else snprintf(div, sizeof div, "%s%s = %.4f", g->div, root, d.scaled);
        switch (c->score) {
        case SCORE_COSINE: snprintf(raw, sizeof raw, "cos = q%sk/(|q||k|) = %.4f", g->dot, d.raw); break;
        case SCORE_DISTANCE:
            snprintf(raw, sizeof raw, "%s|q%sk|%s = %.4f", g->minus, g->minus, a->ascii ? "^2" : "²", d.raw);
            break;
        case SCORE_ADDITIVE: snprintf(raw, sizeof raw, "v%stanh(W1q+W2k) = %.4f", g->transpose, d.raw); break;
        default: snprintf(raw, sizeof raw, "raw q%sk = %.4f", g->dot, d.raw); break;
        }
        const char *why = "allowed";
        char whybuf[64];
        if (!d.allowed) {
            if (c->mask == MASK_CAUSAL || c->mask == MASK_WINDOW || c->mask == MASK_PREFIX)
                snprintf(whybuf, sizeof whybuf, "masked: key %d hidden from query %d", j, i);
            else if (c->mask == MASK_PADDING) snprintf(whybuf, sizeof whybuf, "masked: a <pad> key");
            else snprintf(whybuf, sizeof whybuf, "masked (painted)");
            why = whybuf;
        }
        char who[256];
        snprintf(who, sizeof who, "%s[%d] %s %s[%d]", q, i, g->arrow, k, j);
        pad_to(who, sizeof who, 2 * (lw + iw + 2) + 3);
        snprintf(l1, sizeof l1, "%s  %s   %s", who, raw, div);
        if (d.allowed)
            snprintf(l2, sizeof l2, "allowed   exp(%.4f %s max %.4f) = %.4f   %s %s %.4f   = weight %.4f", d.scaled,
                     g->minus, d.row_max, d.exp, g->div, g->sigma, d.denom, d.weight);
        else if (d.row_allowed == 0)
            snprintf(l2, sizeof l2, "%s   score %s, every key of this row is masked: all weights 0, row sum 0", why,
                     g->neg_inf);
        else
            snprintf(l2, sizeof l2, "%s   score %s %s exp 0 %s weight 0 (this key is hidden from this query)", why,
                     g->neg_inf, g->arrow, g->arrow);
        break;
    }
    }
    cv_text(cv, y, 0, l1, cv->w, style_plain());
    cv_text(cv, y + 1, 0, l2, cv->w, style_plain());
}

static void draw_hints(const App *a, Canvas *cv, int y) {
    /* Hints in rank order, as many as fit. */
    int order[64], n = 0;
    for (int i = 0; i < keymap_count && n < 64; i++)
        if (keymap[i].hint) order[n++] = i;
    for (int s = 1; s < n; s++)
        for (int t = s; t > 0 && keymap[order[t]].hint_rank < keymap[order[t - 1]].hint_rank; t--) {
            int tmp = order[t];
            order[t] = order[t - 1];
            order[t - 1] = tmp;
        }
    int x = 0;
    for (int s = 0; s < n; s++) {
        const char *h = keymap[order[s]].hint;
        int w = text_width(h, strlen(h));
        if (x + w > cv->w) break;
        const char *sp = strchr(h, ' ');
        int kw = sp ? (int)(sp - h) : w;
        char keys[32];
        snprintf(keys, sizeof keys, "%.*s", kw, h);
        cv_text(cv, y, x, keys, kw, style_attr(ST_BOLD));
        cv_text(cv, y, x + kw, h + kw, w - kw, style_plain());
        x += w + 2;
    }
    (void)a;
}

static void draw_prompt(const App *a, Canvas *cv, int y) {
    const char *label = a->prompt == PROMPT_DK       ? "d_k (1..4096): "
                        : a->prompt == PROMPT_TARGET ? "target (empty: none): "
                                                     : "sentence: ";
    const char *tail = "  Enter apply, Esc cancel";
    int x = cv_text(cv, y, 0, label, cv->w, style_attr(ST_BOLD));
    int tw = (int)strlen(tail);
    int field = cv->w - x - tw;
    if (field < 10) field = cv->w - x, tw = 0;
    size_t from, to;
    int ccol;
    le_view(&a->edit, field, &from, &to, &ccol);
    /* Escaped as labels are: the text may hold NULs and escape sequences
     * (le_view counts each as wide as its escape). */
    char *shown = text_safe_label(a->edit.buf + from, to - from, 0);
    if (shown) cv_text(cv, y, x, shown, field, style_attr(ST_UNDERLINE));
    free(shown);
    /* The cursor: a reversed cell (the terminal cursor stays hidden). */
    if (x + ccol < cv->w) {
        Cell *c = cv_cell(cv, y, x + ccol);
        c->st.attr |= ST_REVERSE;
    }
    if (tw) cv_text(cv, y, cv->w - tw, tail, tw, style_attr(ST_DIM));
}

/* The legend, inspector and message follow the map (at `y`, or higher when
 * the map leaves no room), so the eye need not travel; the hints stay on the
 * last line. */
static void draw_bottom(const App *a, Canvas *cv, const ShownMat *sm, int y) {
    int H = cv->h;
    if (y > H - BOTTOM_LINES) y = H - BOTTOM_LINES;
    if (y < TOP_LINES) y = TOP_LINES;
    if (sm) draw_legend(a, cv, y, sm);
    if (a->view != VIEW_PIPELINE && a->view != VIEW_GRAVITY) draw_inspector(a, cv, y + 1);
    else y = H - 5; /* pages without a map: only the message and the hints */
    if (a->msg[0]) {
        char *safe = text_safe_label(a->msg, strlen(a->msg), 0);
        Style st = style_attr(ST_BOLD);
        if (a->msg_error && a->tier != TIER_NONE) st.fg = 1; /* red */
        cv_text(cv, y + 3, 0, safe ? safe : "", cv->w, st);
        free(safe);
    }
    if (a->prompt != PROMPT_NONE) draw_prompt(a, cv, H - 1);
    else draw_hints(a, cv, H - 1);
}

// ----------------------------------------------------------------------------
// the single-head heatmap

typedef struct {
    int label_w, sum_w; /* columns of the row labels and of the row statistics */
    int cw, ch;         /* cell size */
    int header_rows;    /* 1 (labels) or 2 (index ruler) */
    int rows_vis, cols_vis;
} HeatGeom;

enum { STATS_W = 16 }; /* " 1.000! 2.31 .42" */

static int max_label_width(const App *a, int cap) {
    int w = 1;
    char buf[128];
    for (int i = 0; i < a->m->n_q; i++) {
        view_qlabel(a, buf, sizeof buf, i, cap);
        int lw = text_width(buf, strlen(buf));
        if (lw > w) w = lw;
    }
    return w;
}

static void heat_geometry(const App *a, const ShownMat *sm, int W, int H, HeatGeom *g) {
    int cap = MAX_LABEL < W / 4 ? MAX_LABEL : W / 4;
    if (cap < 3) cap = 3;
    g->label_w = max_label_width(a, cap) + 1;
    g->sum_w = sm->row_stats ? STATS_W : 1;
    int avail_w = W - g->label_w - g->sum_w;
    if (avail_w < 1) avail_w = 1;
    g->cw = sm->cols > 0 ? avail_w / sm->cols : 1;
    if (g->cw > MAX_CELL_W) g->cw = MAX_CELL_W;
    if (g->cw < 1) g->cw = 1;
    g->cols_vis = avail_w / g->cw;
    if (g->cols_vis > sm->cols) g->cols_vis = sm->cols;
    g->header_rows = g->cw >= 3 ? 1 : 2;
    int avail_h = H - TOP_LINES - g->header_rows - BOTTOM_LINES;
    if (avail_h < 1) avail_h = 1;
    int ch_max = g->cw / 3 > 1 ? g->cw / 3 : 1;
    g->ch = sm->rows > 0 ? avail_h / sm->rows : 1;
    if (g->ch > ch_max) g->ch = ch_max;
    if (g->ch > 3) g->ch = 3;
    if (g->ch < 1) g->ch = 1;
    g->rows_vis = avail_h / g->ch;
    if (g->rows_vis > sm->rows) g->rows_vis = sm->rows;
}

/* Keeps the cursor inside the visible window of n items. */
static int scroll_to(int first, int cursor, int visible, int n) {
    if (visible < 1) visible = 1;
    if (cursor < first) first = cursor;
    if (cursor >= first + visible) first = cursor - visible + 1;
    if (first > n - visible) first = n - visible;
    if (first < 0) first = 0;
    return first;
}

static void draw_col_header(App *a, Canvas *cv, int y, int x0, const HeatGeom *g, const ShownMat *sm, int col0) {
    char buf[128];
    for (int c = 0; c < g->cols_vis; c++) {
        int j = col0 + c, x = x0 + c * g->cw;
        Style st = j == a->cj ? style_attr(ST_REVERSE | ST_BOLD) : style_plain();
        if (g->header_rows == 1) {
            col_label(a, sm, buf, sizeof buf, j, g->cw - 1);
            /* Heads joined: the first column of each head is marked. */
            if (sm->col_labels == LABELS_CONCAT && j % sm->d_v == 0 && j != a->cj)
                st = style_attr(ST_BOLD | ST_UNDERLINE);
            cv_text(cv, y, x, buf, g->cw - 1, st);
        } else if (sm->col_labels == LABELS_CONCAT) {
            /* A ruler: the head's number where it starts, the column inside the head below. */
            if (j % sm->d_v == 0)
                cv_printf(cv, y, x, g->cw * 3, style_attr(ST_BOLD), "%sh%d", G(a)->vbar, j / sm->d_v + 1);
            cv_printf(cv, y + 1, x, g->cw, st, "%d", (j % sm->d_v) % 10);
        } else {
            /* A ruler of indices: tens above, units below. */
            if (j % 10 == 0 || j == a->cj) cv_printf(cv, y, x, g->cw, st, "%d", (j / 10) % 10);
            cv_printf(cv, y + 1, x, g->cw, st, "%d", j % 10);
        }
    }
}

static void draw_heatmap(App *a, Canvas *cv) {
    const Model *m = a->m;
    ShownMat sm;
    view_matrix(a, a->shown, a->head, &sm);
    HeatGeom g;
    heat_geometry(a, &sm, cv->w, cv->h, &g);
    a->row0 = scroll_to(a->row0, a->ci, g.rows_vis, sm.rows);
    a->col0 = scroll_to(a->col0, a->cj, g.cols_vis, sm.cols);
    int y0 = TOP_LINES + g.header_rows, x0 = g.label_w;
    char buf[128];
    draw_col_header(a, cv, TOP_LINES, x0, &g, &sm, a->col0);
    int sx = x0 + g.cols_vis * g.cw + 1;
    const HeadData *hd = &m->head[a->head];
    if (sm.row_stats)
        cv_text(cv, TOP_LINES + g.header_rows - 1, sx, a->ascii ? "  sum     H max" : "    Σ     H max", STATS_W - 1,
                style_attr(ST_BOLD));
    for (int r = 0; r < g.rows_vis; r++) {
        int i = a->row0 + r, y = y0 + r * g.ch, mid = y + (g.ch - 1) / 2;
        view_qlabel(a, buf, sizeof buf, i, g.label_w - 1);
        Style ls = i == a->ci ? style_attr(ST_REVERSE | ST_BOLD) : style_plain();
        cv_text(cv, mid, 0, buf, g.label_w - 1, ls);
        for (int c = 0; c < g.cols_vis; c++) {
            int j = a->col0 + c;
            view_cell(a, cv, y, x0 + c * g.cw, g.cw, g.ch, &sm, i, j, i == a->ci && j == a->cj, 1);
        }
        if (!sm.row_stats) continue;
        /* The row sum (1, or 0 with the flag), its entropy and its largest weight. */
        int flagged = row_fully_masked(a, i);
        cv_printf(cv, mid, sx, 6, flagged ? style_attr(ST_BOLD) : style_plain(), "%5.3f%s", hd->row_sums[i],
                  flagged ? G(a)->flag : "");
        char mx[8];
        view_num(mx, sizeof mx, hd->max_weight[i], 3, 1);
        cv_printf(cv, mid, sx + 7, 8, style_plain(), hd->entropy[i] < 9.995 ? "%4.2f %s" : "%4.1f %s", hd->entropy[i],
                  mx);
    }
    /* Where the rows go on beyond the window. */
    if (a->row0 + g.rows_vis < sm.rows)
        cv_printf(cv, y0 + g.rows_vis * g.ch - 1, x0 - 1, 1, style_attr(ST_DIM), "%s", a->ascii ? "v" : "↓");
    HeatLayout *L = &a->layout;
    L->valid = 1, L->y0 = y0, L->x0 = x0, L->cw = g.cw, L->ch = g.ch;
    L->rows = g.rows_vis, L->cols = g.cols_vis, L->row0 = a->row0, L->col0 = a->col0;
    draw_bottom(a, cv, &sm, y0 + g.rows_vis * g.ch + 1);
}

// ----------------------------------------------------------------------------
// all heads side by side

typedef struct {
    int label_w, cw, per_row, block_w, block_h, rows_vis, cols_vis, block_rows_vis;
} HeadsGeom;

static void heads_geometry(const App *a, int W, int H, HeadsGeom *g) {
    const Model *m = a->m;
    int h = m->cfg.heads;
    int ncols = a->shown == SHOW_OUTPUT ? m->cfg.d_v : m->n_k;
    int cap = 8 < W / 8 ? 8 : W / 8;
    if (cap < 2) cap = 2;
    g->label_w = max_label_width(a, cap) + 1;
    int avail_w = W - g->label_w, avail_h = H - TOP_LINES - BOTTOM_LINES;
    if (avail_w < 1) avail_w = 1;
    if (avail_h < 2) avail_h = 2;
    /* The widest cells with which every head fits; else the narrowest. */
    for (g->cw = 6; g->cw >= 1; g->cw--) {
        g->block_w = ncols * g->cw + 2;
        g->per_row = avail_w / g->block_w;
        if (g->per_row < 1) continue;
        int block_rows = (h + g->per_row - 1) / g->per_row;
        if (block_rows * (m->n_q + 1) <= avail_h) break;
    }
    if (g->cw < 1) g->cw = 1;
    g->block_w = ncols * g->cw + 2;
    g->per_row = avail_w / g->block_w;
    if (g->per_row < 1) g->per_row = 1;
    if (g->per_row > h) g->per_row = h;
    g->cols_vis = (avail_w - 2) / g->cw;
    if (g->cols_vis > ncols) g->cols_vis = ncols;
    g->block_h = m->n_q + 1;
    g->rows_vis = m->n_q;
    if (g->block_h > avail_h) g->rows_vis = avail_h - 1, g->block_h = avail_h;
    g->block_rows_vis = avail_h / g->block_h;
    if (g->block_rows_vis < 1) g->block_rows_vis = 1;
}

static void draw_heads(App *a, Canvas *cv) {
    const Model *m = a->m;
    HeadsGeom g;
    heads_geometry(a, cv->w, cv->h, &g);
    int heads = m->cfg.heads;
    int block_rows = (heads + g.per_row - 1) / g.per_row;
    /* Keep the chosen head's row of blocks in view. */
    a->head0 = scroll_to(a->head0, a->head / g.per_row, g.block_rows_vis, block_rows);
    int cols = a->shown == SHOW_OUTPUT ? m->cfg.d_v : m->n_k;
    a->row0 = scroll_to(a->row0, a->ci, g.rows_vis, m->n_q);
    a->col0 = scroll_to(a->col0, a->cj, g.cols_vis, cols);
    char buf[64];
    ShownMat sm;
    for (int br = 0; br < g.block_rows_vis && a->head0 + br < block_rows; br++) {
        int y = TOP_LINES + br * g.block_h;
        for (int r = 0; r < g.rows_vis && a->row0 + r < m->n_q; r++) {
            int i = a->row0 + r;
            view_qlabel(a, buf, sizeof buf, i, g.label_w - 1);
            cv_text(cv, y + 1 + r, 0, buf, g.label_w - 1, i == a->ci ? style_attr(ST_REVERSE) : style_plain());
        }
        for (int b = 0; b < g.per_row; b++) {
            int h = (a->head0 + br) * g.per_row + b;
            if (h >= heads) break;
            int x = g.label_w + b * g.block_w;
            Style ts = h == a->head ? style_attr(ST_REVERSE | ST_BOLD) : style_attr(ST_BOLD);
            double mean, max;
            model_mean_entropy(m, h, &mean, &max);
            snprintf(buf, sizeof buf, "head %d H %.2f", h + 1, mean);
            if (g.block_w - 2 < (int)strlen(buf)) snprintf(buf, sizeof buf, "head %d", h + 1);
            if (g.block_w - 2 < 6) snprintf(buf, sizeof buf, "%d", h + 1);
            cv_text(cv, y, x, buf, g.block_w - 2, ts);
            view_matrix(a, a->shown, h, &sm);
            int wcols = g.cols_vis < cols - a->col0 ? g.cols_vis : cols - a->col0;
            if (wcols > (g.block_w - 2) / g.cw) wcols = (g.block_w - 2) / g.cw;
            for (int r = 0; r < g.rows_vis && a->row0 + r < m->n_q; r++)
                for (int c = 0; c < wcols; c++) {
                    int i = a->row0 + r, j = a->col0 + c;
                    view_cell(a, cv, y + 1 + r, x + c * g.cw, g.cw, 1, &sm, i, j, i == a->ci && j == a->cj, 1);
                }
        }
    }
    if (block_rows > g.block_rows_vis && cv->h > 1) {
        /* Which rows of heads are shown, on the title line where it fits. */
        snprintf(buf, sizeof buf, "rows %d-%d of %d", a->head0 + 1,
                 a->head0 + g.block_rows_vis < block_rows ? a->head0 + g.block_rows_vis : block_rows, block_rows);
        int w = (int)strlen(buf), used = cv->w;
        while (used > 0 && strcmp(cv_cell(cv, 1, used - 1)->ch, " ") == 0) used--;
        if (used + 2 + w <= cv->w) cv_text_right(cv, 1, 0, buf, cv->w, style_attr(ST_DIM));
    }
    a->layout.valid = 0; /* clicks are for the single-head view */
    view_matrix(a, a->shown, a->head, &sm);
    int shown_rows = block_rows - a->head0 < g.block_rows_vis ? block_rows - a->head0 : g.block_rows_vis;
    draw_bottom(a, cv, &sm, TOP_LINES + shown_rows * g.block_h + 1);
}

// ----------------------------------------------------------------------------
// the whole screen

void app_draw(App *a, Canvas *cv) {
    app_update(a);
    cv_clear(cv);
    a->layout.valid = 0;
    if (a->enforce_min && (cv->w < APP_MIN_W || cv->h < APP_MIN_H)) {
        char buf[96];
        snprintf(buf, sizeof buf, "terminal too small: need %dx%d, have %dx%d", APP_MIN_W, APP_MIN_H, cv->w, cv->h);
        int w = (int)strlen(buf);
        if (w <= cv->w) {
            cv_text(cv, cv->h / 2, (cv->w - w) / 2, buf, cv->w, style_attr(ST_BOLD));
        } else { /* narrower than the message: a short form on two lines */
            char l1[48], l2[48];
            snprintf(l1, sizeof l1, "too small: %dx%d", cv->w, cv->h);
            snprintf(l2, sizeof l2, "need %dx%d", APP_MIN_W, APP_MIN_H);
            int y = cv->h > 1 ? cv->h / 2 - 1 : 0;
            cv_text(cv, y, 0, l1, cv->w, style_attr(ST_BOLD));
            cv_text(cv, y + 1, 0, l2, cv->w, style_attr(ST_BOLD));
        }
        return;
    }
    if (a->overlay == OVERLAY_HELP) {
        docs_draw_help(a, cv);
        return;
    }
    if (a->overlay == OVERLAY_CELL && a->m->n_q > 0 && a->shown <= SHOW_OUTPUT) {
        docs_draw_cell(a, cv);
        return;
    }
    draw_status(a, cv);
    draw_title(a, cv);
    draw_info(a, cv);
    if (a->m->n_q == 0 || a->m->n_k == 0) {
        cv_text(cv, TOP_LINES + 1, 2, "no tokens: the sentence is empty or only spaces (press e to edit it)", cv->w - 2,
                style_attr(ST_BOLD));
        draw_bottom(a, cv, NULL, TOP_LINES + 3);
        return;
    }
    switch (a->view) {
    case VIEW_HEADS: draw_heads(a, cv); break;
    case VIEW_PIPELINE:
        docs_draw_pipeline(a, cv, TOP_LINES, cv->h - TOP_LINES - 2);
        draw_bottom(a, cv, NULL, cv->h - 2);
        break;
    case VIEW_GRAVITY:
        gravity_draw(a, cv, TOP_LINES, cv->h - TOP_LINES - 2, a->gravity_all);
        draw_bottom(a, cv, NULL, cv->h - 2);
        break;
    default: draw_heatmap(a, cv); break;
    }
}

int app_natural_height(const App *a, int w) {
    const Model *m = a->m;
    if (a->overlay != OVERLAY_NONE) return 60;
    if (m->n_q == 0) return TOP_LINES + 3 + BOTTOM_LINES;
    if (a->view == VIEW_PIPELINE) return TOP_LINES + docs_pipeline_height(a, w) + 2;
    if (a->view == VIEW_GRAVITY) return 30;
    if (a->view == VIEW_HEADS) {
        HeadsGeom g;
        heads_geometry(a, w, 100000, &g);
        int block_rows = (m->cfg.heads + g.per_row - 1) / g.per_row;
        return TOP_LINES + block_rows * (m->n_q + 1) + BOTTOM_LINES;
    }
    ShownMat sm;
    view_matrix(a, a->shown, a->head, &sm);
    HeatGeom g;
    heat_geometry(a, &sm, w, TOP_LINES + 2 + sm.rows + BOTTOM_LINES, &g);
    return TOP_LINES + g.header_rows + sm.rows + BOTTOM_LINES;
}
