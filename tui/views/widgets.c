/* widgets.c - the pieces every view draws with: attnviz's glyphs, the
 * matrix of a stage with its colour scale, safe and cut labels, numbers in a
 * few columns, and one heatmap cell. Below the views: it knows no view. */
#include "widgets.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "text.h"
#include "utf8.h"

/* The symbols of the formulas (ᵀ, √) are formula.c's. */
static const Glyphs glyphs_unicode = {"…", "·", "!", "Σ", "→", "−∞", "·", "×", "␣", "−", "÷", "│", "█", "H̄", "⊙"};
static const Glyphs glyphs_ascii = {"~", "x", "!", "sum", "->", "-inf",   ".", "x",
                                    "_", "-", "/", "|",   "#",  "mean H", "*"};

const Glyphs *view_glyphs(const App *a) { return a->ascii ? &glyphs_ascii : &glyphs_unicode; }
#define G view_glyphs

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
    const TensorInfo *ti = tensor_info(s);
    view_matrix_of(sm, tensor_data(m, s, m->layer, h), tensor_rows(m, s), tensor_cols(m, s),
                   (ti->flags & TF_SIGNED) != 0);
    if (ti->cols == SIDE_KEYS) sm->col_labels = LABELS_KEYS;
    if (a->row_contrast && s == TENSOR_WEIGHTS && h >= 0 && h < m->cfg.heads)
        sm->row_max = model_layer_heads(m, m->layer)[h].max_weight;
    if (ti->cols == SIDE_HEADS_D_V) {
        sm->col_labels = LABELS_CONCAT;
        sm->d_v = m->cfg.d_v;
    }
    sm->can_mask = (ti->flags & TF_MASKABLE) != 0;
    sm->row_stats = (ti->flags & TF_ROW_STATS) != 0;
}

int view_cell_masked(const App *a, const ShownMat *sm, int i, int j) {
    return sm->can_mask && !a->m->allowed[(size_t)i * a->m->n_k + j];
}

const char *const view_stage_names[] = {N_("positional encoding"),
                                        N_("X = E + PE"),
                                        N_("raw scores"),
                                        N_("scaled scores"),
                                        N_("masked scores"),
                                        N_("weights"),
                                        N_("output"),
                                        N_("heads joined"),
                                        N_("layer output Y"),
                                        NULL};

const char *view_stage_name(Shown s) {
    const char *name = (unsigned)s < TENSOR_COUNT ? tensor_info(s)->shown : "?";
    return name[0] ? _(name) : name; /* _("") would be the catalogue's header */
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

void view_col_label(const App *a, const ShownMat *sm, char *out, size_t cap, int j, int max_cols) {
    char tmp[32];
    switch (sm->col_labels) {
    case LABELS_KEYS: view_klabel(a, out, cap, j, max_cols); return;
    /* "h2:0": head 2's column 0 (never "2.0", which reads as a number) */
    case LABELS_CONCAT: snprintf(tmp, sizeof tmp, "h%d:%d", j / sm->d_v + 1, j % sm->d_v); break;
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
    /* The cursor is the cell's middle row (its number's row) in reverse
     * video, bold (ST_CURSOR: a frame in the pictures), which shows at every
     * cell size, 1 column and monochrome included; its row and column labels are reversed too. The rows above
     * and below keep the cell's colour: a cell taller than one row shows its
     * value's colour around the cursor, and a cursor move rewrites one row of
     * the two cells instead of all of them (each row a cursor move, two
     * colour changes and the blanks: ~65 bytes; at 200x50, 3-row cells, a
     * move went from 392 to 260 bytes). */
    if (view_cell_masked(a, sm, i, j)) {
        Style st = style_attr(ST_DIM), mst = st;
        if (cursor) mst.attr = ST_BOLD | ST_CURSOR;
        for (int r = 0; r < ch; r++) cv_fill(cv, y + r, x, cw, " ", y + r == mid ? mst : st);
        cv_text(cv, mid, x + (cw - 1) / 2, G(a)->masked, 1, mst);
        return;
    }
    double v = sm->v[(size_t)i * sm->cols + j];
    const char *glyph;
    /* Row contrast: the colour of v against its row's largest weight. */
    double shade = sm->row_max && sm->row_max[i] > 0 ? v / sm->row_max[i] : v;
    Style st = view_value_style(a, sm, shade, &glyph);
    Style mst = st;
    if (cursor) mst.attr |= ST_BOLD | ST_CURSOR;
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
        /* The number at the right; marks keep the rest. A signed number
         * always has a blank before it, so that no mark runs into its sign
         * (". -3", never ".-3"); a weight's mark may touch it ("█.95"). */
        view_num(num, sizeof num, v, sm->is_signed ? gw - 1 : cw - 2, !sm->is_signed);
        int nw = (int)strlen(num);
        if (sm->is_signed || gw >= nw + 2) cv_fill(cv, mid, x + gw - nw - 1, 1, " ", mst);
        cv_text(cv, mid, x + gw - nw, num, nw, mst);
    }
}

int view_max_label_width(const App *a, int cap) {
    int w = 1;
    char buf[128];
    for (int i = 0; i < a->m->n_q; i++) {
        view_qlabel(a, buf, sizeof buf, i, cap);
        int lw = text_width(buf, strlen(buf));
        if (lw > w) w = lw;
    }
    return w;
}
