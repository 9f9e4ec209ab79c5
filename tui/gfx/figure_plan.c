/* figure_plan.c - the plan of a figure's page (figure_internal.h): which
 * panels, the cell's side, the token labels and headings measured with
 * pango, the title, the colour bar's ticks, and where each of them goes.
 * figure_draw.c draws the plan as it is; figure_layout and
 * figure_cell_center (figure.h) read it.
 *
 * Everything is in points. The plan measures text on a pango context of its
 * own (72 dpi, no hinting, unrounded glyph positions), so the page is the
 * same whatever the surface. Cell sides and panel corners are multiples of
 * 1.5 pt: whole pixels in the PNG (2 px a point) and in a browser (4/3 px a
 * point), so a cell's colour is never blended with its neighbour's. */
#include "figure_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "formula.h"
#include "i18n.h"
#include "utf8.h"

/* Latin and Greek, then Hangul; emoji come from fontconfig's fallback (Noto
 * Color Emoji where installed). An emoji font named in the list would give
 * the digits too (it has 0-9 for keycaps): "n= 1 3" in grey. */
#define FIG_FONT "DejaVu Sans, NanumGothic"

enum { MAX_LABEL_BYTES = 256 };

static const double GRID = 1.5; /* cell sides and panel corners: whole pixels at 2 and 4/3 px a point */

// ----------------------------------------------------------------------------
// what is shown

static int stage_is_matrix(Stage s) {
    return s == STAGE_SCORES || s == STAGE_SCALED || s == STAGE_MASKED || s == STAGE_WEIGHTS;
}

/* As square as fits: among ceil(sqrt(n)) .. +2 columns, the one that
 * leaves the fewest empty places (12 heads: 4 x 3; 8: 4 x 2; 3: 3 x 1). */
static int grid_columns(int n) {
    int c0 = (int)ceil(sqrt((double)n)), best = c0, best_empty = n;
    for (int c = c0; c <= c0 + 2 && c <= n; c++) {
        int rows = (n + c - 1) / c, empty = rows * c - n;
        if (empty < best_empty) best = c, best_empty = empty;
    }
    return best < 1 ? 1 : best;
}

int fig_check_options(const Model *m, const FigureOptions *opt, PanelGrid *g, AvError *err) {
    if (!m || !opt) return av_errorf(err, _("figure: no model"));
    if (!stage_is_matrix(opt->stage))
        return av_errorf(err,
                         _("figure: stage '%s' is not a query x key matrix (a figure shows scores, scaled, masked or "
                           "weights)"),
                         stage_name(opt->stage));
    if (m->n_q < 1 || m->n_k < 1) return av_errorf(err, _("figure: no tokens to draw"));
    const ModelConfig *c = &m->cfg;
    switch (opt->kind) {
    case FIG_HEAD:
        if (opt->layer < 0 || opt->layer >= c->layers)
            return av_errorf(err, _("figure: layer %d out of range 1..%d"), opt->layer + 1, c->layers);
        if (opt->head < 0 || opt->head >= c->heads)
            return av_errorf(err, _("figure: head %d out of range 1..%d"), opt->head + 1, c->heads);
        g->count = g->cols = g->rows = 1;
        break;
    case FIG_HEADS:
        if (opt->layer < 0 || opt->layer >= c->layers)
            return av_errorf(err, _("figure: layer %d out of range 1..%d"), opt->layer + 1, c->layers);
        g->count = c->heads;
        g->cols = grid_columns(c->heads);
        g->rows = (c->heads + g->cols - 1) / g->cols;
        break;
    case FIG_LAYERS:
        g->count = c->layers * c->heads;
        g->cols = c->heads;
        g->rows = c->layers;
        break;
    default: return av_errorf(err, _("figure: unknown kind %d"), (int)opt->kind);
    }
    long long cells = (long long)g->count * m->n_q * m->n_k;
    if (cells > FIGURE_MAX_CELLS)
        return av_errorf(err,
                         _("figure: %lld cells (%d panels of %d x %d) is more than %lld: show fewer heads or tokens"),
                         cells, g->count, m->n_q, m->n_k, (long long)FIGURE_MAX_CELLS);
    return 0;
}

const HeadData *fig_panel_head(const Model *m, const FigureOptions *opt, int p) {
    switch (opt->kind) {
    case FIG_HEAD: return model_layer_heads(m, opt->layer) + opt->head;
    case FIG_HEADS: return model_layer_heads(m, opt->layer) + p;
    default: return model_layer_heads(m, p / m->cfg.heads) + p % m->cfg.heads;
    }
}

double fig_maxabs(const Model *m, const FigureOptions *opt, const PanelGrid *g) {
    double mx = 0;
    for (int p = 0; p < g->count; p++) {
        const float *v = stage_data(fig_panel_head(m, opt, p), opt->stage);
        for (int i = 0; i < m->n_q; i++)
            for (int j = 0; j < m->n_k; j++) {
                double x = v[(size_t)i * m->n_k + j];
                if (cell_masked(m, opt->stage, i, j) || !isfinite(x)) continue;
                if (fabs(x) > mx) mx = fabs(x);
            }
    }
    return mx;
}

// ----------------------------------------------------------------------------
// text

/* A token's text as a figure shows it: whole characters (at most
 * MAX_LABEL_BYTES of them: pango ellipsizes what does not fit); invalid
 * bytes, control characters, bidi controls and line separators as U+FFFD
 * (pango would draw nothing for them, or reorder the label); spaces as ␣ (a
 * GPT-2 token keeps its leading space; the screen shows the same mark); a
 * leading combining mark on a dotted circle. The rest (Hangul, emoji with
 * their joiners and selectors) is pango's to draw. Caller frees; NULL when
 * out of memory. */
static char *figure_label(const char *s, size_t len) {
    char *out = malloc(MAX_LABEL_BYTES + 8);
    if (!out) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        int n = utf8_decode(s + i, len - i, &cp);
        if (n < 1) n = 1;
        const char *put = NULL;
        char enc[4];
        size_t put_len = 0;
        /* Not utf8_is_unsafe: it also escapes the joiners and presentation
         * selectors, which pango draws as the one emoji they make. */
        int unsafe = cp == UTF8_INVALID || cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) || cp == 0x061C ||
                     cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) ||
                     cp == 0x2028 || cp == 0x2029;
        if (unsafe) put = "\xEF\xBF\xBD", put_len = 3;         /* U+FFFD */
        else if (cp == ' ') put = "\xE2\x90\xA3", put_len = 3; /* ␣ */
        else if (o == 0 && utf8_cp_width(cp) == 0) {
            size_t k = (size_t)utf8_encode(cp, enc);
            if (o + 3 + k > MAX_LABEL_BYTES) break;
            memcpy(out + o, "\xE2\x97\x8C", 3); /* ◌ */
            memcpy(out + o + 3, enc, k);
            o += 3 + k;
            i += (size_t)n;
            continue;
        } else put = s + i, put_len = (size_t)n;
        if (o + put_len > MAX_LABEL_BYTES) break;
        memcpy(out + o, put, put_len);
        o += put_len;
        i += (size_t)n;
    }
    out[o] = '\0';
    return out;
}

void fig_text_free(Text *t) {
    if (t->layout) g_object_unref(t->layout);
    t->layout = NULL;
}

Text fig_text_make(PangoContext *ctx, const char *s, double pt, int bold, double max_w) {
    Text t = {0};
    t.layout = pango_layout_new(ctx);
    if (!t.layout) return t;
    PangoFontDescription *fd = pango_font_description_from_string(FIG_FONT);
    pango_font_description_set_absolute_size(fd, pt * PANGO_SCALE);
    if (bold) pango_font_description_set_weight(fd, PANGO_WEIGHT_BOLD);
    pango_layout_set_font_description(t.layout, fd);
    pango_font_description_free(fd);
    pango_layout_set_single_paragraph_mode(t.layout, TRUE);
    if (max_w > 0) {
        pango_layout_set_width(t.layout, (int)(max_w * PANGO_SCALE));
        pango_layout_set_ellipsize(t.layout, PANGO_ELLIPSIZE_END);
    }
    pango_layout_set_text(t.layout, s, -1);
    PangoRectangle logical;
    pango_layout_get_extents(t.layout, NULL, &logical);
    t.w = (double)logical.width / PANGO_SCALE;
    t.h = (double)logical.height / PANGO_SCALE;
    return t;
}

/* The measuring context: no hinting and unrounded positions, so that a
 * text's size is the same on every surface and at every scale. It has a
 * font map of its own (the context holds the only reference): pango's
 * per-thread default would keep every font size ever used until exit, which
 * LeakSanitizer reports as fontconfig's leaks; a map per figure costs some
 * 10 ms of font loading and frees everything. */
static PangoContext *context_new(void) {
    PangoFontMap *fm = pango_cairo_font_map_new();
    if (!fm) return NULL;
    PangoContext *ctx = pango_font_map_create_context(fm);
    g_object_unref(fm);
    if (!ctx) return NULL;
    cairo_font_options_t *fo = cairo_font_options_create();
    cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
    cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
    cairo_font_options_set_antialias(fo, CAIRO_ANTIALIAS_GRAY);
    pango_cairo_context_set_font_options(ctx, fo);
    cairo_font_options_destroy(fo);
    pango_cairo_context_set_resolution(ctx, 72);
    pango_context_set_round_glyph_positions(ctx, FALSE);
    return ctx;
}

void fig_format_value(char *buf, size_t cap, double v, int weights, double maxabs) {
    int dec = weights || maxabs < 10 ? 2 : maxabs < 100 ? 1 : 0;
    char tmp[48];
    snprintf(tmp, sizeof tmp, "%.*f", dec, fabs(v));
    int neg = v < 0 && strspn(tmp, "0.") != strlen(tmp); /* no "−0.00" */
    snprintf(buf, cap, "%s%s", neg ? "\xE2\x88\x92" : "", tmp);
}

// ----------------------------------------------------------------------------
// the plan of the page

void fig_plan_free(Plan *p) {
    if (p->qlab)
        for (int i = 0; i < p->n_q; i++) fig_text_free(&p->qlab[i]);
    if (p->klab)
        for (int j = 0; j < p->n_k; j++) fig_text_free(&p->klab[j]);
    free(p->qlab);
    free(p->klab);
    free(p->col_x);
    free(p->row_y);
    fig_text_free(&p->title);
    fig_text_free(&p->subtitle);
    for (int k = 0; k < 5; k++) fig_text_free(&p->ticks[k]);
    fig_text_free(&p->bar_label);
    fig_text_free(&p->masked_label);
    if (p->ctx) g_object_unref(p->ctx);
    memset(p, 0, sizeof *p);
}

static double snap(double x) { return ceil(x / GRID - 1e-9) * GRID; }
static double snap_down(double x) { return floor(x / GRID + 1e-9) * GRID; }

/* The title: the stage's formula (formula.h), then the configuration as the
 * status line writes it, with the tokens and which layer and head. */
static void title_lines(const Plan *p, char *l1, size_t c1, char *l2, size_t c2) {
    const Model *m = p->m;
    const ModelConfig *c = &m->cfg;
    FormulaOf f = formula_of(c, 0);
    if (p->opt.stage == STAGE_MASKED) {
        char mk[32];
        model_mask_name(c, mk, sizeof mk);
        snprintf(l1, c1, _("masked scores: S' with %s where mask=%s forbids"), "\xE2\x88\x92\xE2\x88\x9E", mk);
    } else {
        formula_text(l1, c1, FORMULA_TITLE, p->opt.stage, &f);
    }
    char words[512];
    export_status_words(words, sizeof words, m, EXPORT_STATUS_SCREEN);
    /* The screen's layer is the last word: the figure says its own. */
    char *cut = NULL;
    for (char *at = strstr(words, " layer="); at; at = strstr(at + 1, " layer=")) cut = at;
    if (cut && c->layers > 1) *cut = '\0';
    char tokens[64], where[64] = "";
    if (m->n_q == m->n_k) snprintf(tokens, sizeof tokens, "n=%d", m->n_q);
    else snprintf(tokens, sizeof tokens, "n_q=%d n_k=%d", m->n_q, m->n_k);
    switch (p->opt.kind) {
    case FIG_HEAD:
        if (c->layers > 1)
            snprintf(where, sizeof where, " layer=%d/%d head=%d/%d", p->opt.layer + 1, c->layers, p->opt.head + 1,
                     c->heads);
        else snprintf(where, sizeof where, " head=%d/%d", p->opt.head + 1, c->heads);
        break;
    case FIG_HEADS:
        if (c->layers > 1) snprintf(where, sizeof where, " layer=%d/%d", p->opt.layer + 1, c->layers);
        break;
    default: snprintf(where, sizeof where, " layers=%d", c->layers); break;
    }
    snprintf(l2, c2, "%s %s%s", tokens, words, where);
}

static const char *bar_name(Stage s) {
    switch (s) {
    case STAGE_SCORES: return _("raw score S");
    case STAGE_SCALED: return _("scaled score S'");
    case STAGE_MASKED: return _("masked score");
    default: return _("attention weight A");
    }
}

/* Sizes by kind: the cell's side for n tokens (clamped), the labels' and
 * headings' type, the widest label. */
static void kind_sizes(FigureKind k, int n, double *cell, double *label_pt, double *max_label_w) {
    double c;
    switch (k) {
    case FIG_HEAD:
        c = fmin(20, fmax(6, 300.0 / n));
        *label_pt = 9;
        *max_label_w = 120;
        break;
    case FIG_HEADS:
        c = fmin(16.5, fmax(4.5, 280.0 / n));
        *label_pt = 8;
        *max_label_w = 80;
        break;
    default:
        c = fmin(10.5, fmax(3, 120.0 / n));
        *label_pt = 7;
        *max_label_w = 60;
        break;
    }
    *cell = fmax(GRID, snap_down(c));
}

static int plan_labels(Plan *p, double max_label_w) {
    const Model *m = p->m;
    p->qlab = calloc((size_t)p->n_q, sizeof *p->qlab);
    p->klab = calloc((size_t)p->n_k, sizeof *p->klab);
    if (!p->qlab || !p->klab) return -1;
    if (!p->labels) return 0;
    double qmax = 0, kmax = 0, hmax = 0;
    for (int i = 0; i < p->n_q + p->n_k; i++) {
        int is_q = i < p->n_q;
        size_t len;
        const char *raw = is_q ? model_query_text(m, i, &len) : model_key_text(m, i - p->n_q, &len);
        char *s = figure_label(raw ? raw : "", raw ? len : 0);
        if (!s) return -1;
        Text t = fig_text_make(p->ctx, s, p->label_pt, 0, max_label_w);
        free(s);
        if (!t.layout) return -1;
        if (is_q) p->qlab[i] = t, qmax = fmax(qmax, t.w);
        else p->klab[i - p->n_q] = t, kmax = fmax(kmax, t.w);
        hmax = fmax(hmax, t.h);
    }
    /* Key labels: rotated about their start, centred on their column, from
     * just above the panel up (and right, when slanted). */
    double c = cos(p->angle), s = -sin(p->angle); /* s > 0 */
    p->k_anchor = 2 + c * hmax / 2;
    p->kh = p->k_anchor + s * kmax + c * hmax / 2;
    p->k_overhang = fmax(0, c * kmax + s * hmax / 2 - p->cell / 2);
    p->qw = qmax + 4;
    return 0;
}

/* Ticks of the colour bar: 0, .25, .5, .75, 1 for weights; -max, 0, max for
 * the signed stages (0 alone when every value is 0). */
static int plan_bar(Plan *p) {
    char buf[48];
    if (p->opt.stage == STAGE_WEIGHTS) {
        static const char *const names[5] = {"0", "0.25", "0.5", "0.75", "1"};
        p->n_ticks = 5;
        for (int k = 0; k < 5; k++) p->tick_v[k] = k / 4.0, p->ticks[k] = fig_text_make(p->ctx, names[k], 8, 0, 0);
    } else if (p->maxabs > 0) {
        p->n_ticks = 3;
        double v[3] = {-p->maxabs, 0, p->maxabs};
        for (int k = 0; k < 3; k++) {
            fig_format_value(buf, sizeof buf, v[k], 0, p->maxabs);
            if (k == 1) snprintf(buf, sizeof buf, "0");
            p->tick_v[k] = v[k];
            p->ticks[k] = fig_text_make(p->ctx, buf, 8, 0, 0);
        }
    } else {
        p->n_ticks = 1;
        p->tick_v[0] = 0;
        p->ticks[0] = fig_text_make(p->ctx, "0", 8, 0, 0);
    }
    for (int k = 0; k < p->n_ticks; k++)
        if (!p->ticks[k].layout) return -1;
    p->bar_label = fig_text_make(p->ctx, bar_name(p->opt.stage), 9, 0, 0);
    p->masked_label = fig_text_make(p->ctx, _("masked"), 8, 0, 0);
    return p->bar_label.layout && p->masked_label.layout ? 0 : -1;
}

/* The numbers' type: as large as 7.5 pt and a third of the cell, smaller
 * while the widest number does not fit in 90% of it; none below 3 pt. */
static int plan_numbers(Plan *p) {
    if (!p->opt.numbers) return 0;
    double pt = fmin(7.5, p->cell * 0.34);
    if (pt < 3) return 0;
    char buf[48];
    double widest = 0;
    int weights = p->opt.stage == STAGE_WEIGHTS;
    /* The widest a number of the range can be: its longest form at the extremes. */
    double probe[2] = {weights ? 1 : -p->maxabs, weights ? 0.88 : p->maxabs};
    for (int k = 0; k < 2; k++) {
        fig_format_value(buf, sizeof buf, probe[k], weights, p->maxabs);
        Text t = fig_text_make(p->ctx, buf, pt, 0, 0);
        if (!t.layout) return -1;
        widest = fmax(widest, t.w);
        fig_text_free(&t);
    }
    if (widest > p->cell * 0.9) pt *= p->cell * 0.9 / widest;
    p->number_pt = pt >= 3 ? pt : 0;
    return 0;
}

/* The title's two lines, measured. */
static int plan_title(Plan *p) {
    char l1[512], l2[1024];
    title_lines(p, l1, sizeof l1, l2, sizeof l2);
    p->title = fig_text_make(p->ctx, l1, 11.5, 1, 0);
    p->subtitle = fig_text_make(p->ctx, l2, 8.5, 0, 0);
    return p->title.layout && p->subtitle.layout ? 0 : -1;
}

/* Headings: "head 1" over each panel of FIG_HEADS; "L1" and "H1" along
 * the rows and columns of FIG_LAYERS. */
static int plan_headings(Plan *p) {
    const Model *m = p->m;
    char buf[32];
    snprintf(buf, sizeof buf, "L%d H%d", m->cfg.layers, m->cfg.heads);
    Text probe = fig_text_make(p->ctx, buf, p->heading_pt, 1, 0);
    if (!probe.layout) return -1;
    if (p->opt.kind == FIG_HEADS) p->head_h = probe.h + 3;
    if (p->opt.kind == FIG_LAYERS) {
        snprintf(buf, sizeof buf, "L%d", m->cfg.layers);
        Text l = fig_text_make(p->ctx, buf, p->heading_pt, 1, 0);
        if (!l.layout) {
            fig_text_free(&probe);
            return -1;
        }
        p->row_hdr_w = l.w + 6;
        p->col_hdr_h = probe.h + 3;
        fig_text_free(&l);
    }
    fig_text_free(&probe);
    return 0;
}

/* The grid: columns left to right, rows top to bottom; *right and *bottom
 * are where the panels and their labels end. */
static int plan_grid(Plan *p, double *right, double *bottom) {
    const PanelGrid *g = &p->g;
    p->col_x = calloc((size_t)g->cols, sizeof *p->col_x);
    p->row_y = calloc((size_t)g->rows, sizeof *p->row_y);
    if (!p->col_x || !p->row_y) return -1;
    double gap_x = p->opt.kind == FIG_LAYERS ? 6 : 16, gap_y = p->opt.kind == FIG_LAYERS ? 6 : 14;
    double title_h = p->title.h + 2 + p->subtitle.h;
    double x = MARGIN + p->row_hdr_w;
    *right = x;
    for (int c = 0; c < g->cols; c++) {
        int has_q = p->labels && (!p->labels_outer || c == 0);
        int next_q = p->labels && !p->labels_outer; /* the next column's query labels */
        if (has_q) x += p->qw;
        x = snap(x);
        p->col_x[c] = x;
        x += p->panel_w;
        int has_k = p->labels; /* every column has key labels in some row */
        *right = x + (has_k ? p->k_overhang : 0);
        if (c + 1 < g->cols) x += gap_x + fmax(0, (has_k ? p->k_overhang : 0) - (next_q ? p->qw : 0));
    }
    double y = MARGIN + title_h + 12;
    for (int r = 0; r < g->rows; r++) {
        int has_k = p->labels && (!p->labels_outer || r == 0);
        y += p->head_h + (r == 0 ? p->col_hdr_h : 0) + (has_k ? p->kh : 0);
        y = snap(y);
        p->row_y[r] = y;
        y += p->panel_h;
        if (r + 1 < g->rows) y += gap_y;
    }
    *bottom = y;
    return 0;
}

/* The colour bar right of the grid, its top at the first row's cells; then
 * the page around everything, and the PNG's scale. */
static void plan_page(Plan *p, double right, double bottom) {
    double tick_w = 0;
    for (int k = 0; k < p->n_ticks; k++) tick_w = fmax(tick_w, p->ticks[k].w);
    p->bar_x = snap(right + 18);
    p->bar_y = p->row_y[0];
    p->bar_h = snap(fmin(300, fmax(96, bottom - p->bar_y)));
    double bar_right = p->bar_x + BAR_W + 5 + tick_w + 6 + p->bar_label.h;
    p->legend_y = p->bar_y + p->bar_h + p->ticks[0].h / 2 + 8;
    double legend_bottom = p->any_masked ? p->legend_y + fmax(10, p->masked_label.h) : p->legend_y;
    bar_right = fmax(bar_right, p->bar_x + 14 + p->masked_label.w);

    double w = fmax(bar_right, MARGIN + fmax(p->title.w, p->subtitle.w)) + MARGIN;
    double h = fmax(bottom, legend_bottom) + MARGIN;
    p->size.width = snap(w);
    p->size.height = snap(h);
    p->size.cols = p->g.cols;
    p->size.rows = p->g.rows;
    double s = FIGURE_PNG_SCALE, area = p->size.width * p->size.height;
    if (area * s * s > FIGURE_PNG_MAX_PIXELS) s = sqrt(FIGURE_PNG_MAX_PIXELS / area);
    if (p->size.width * s > 32000) s = 32000 / p->size.width;
    if (p->size.height * s > 32000) s = 32000 / p->size.height;
    p->size.png_scale = s;
    p->size.png_width = (int)ceil(p->size.width * s - 1e-9);
    p->size.png_height = (int)ceil(p->size.height * s - 1e-9);
    if (p->size.png_width < 1) p->size.png_width = 1;
    if (p->size.png_height < 1) p->size.png_height = 1;
}

int fig_plan_make(Plan *p, const Model *m, const FigureOptions *opt, AvError *err) {
    memset(p, 0, sizeof *p);
    if (fig_check_options(m, opt, &p->g, err) || gfx_load(err)) return -1;
    p->m = m;
    p->opt = *opt;
    p->n_q = m->n_q;
    p->n_k = m->n_k;
    p->maxabs = opt->stage == STAGE_WEIGHTS ? 1 : fig_maxabs(m, opt, &p->g);
    if (stage_masks(opt->stage))
        for (size_t c = 0; c < (size_t)p->n_q * p->n_k && !p->any_masked; c++) p->any_masked = !m->allowed[c];
    p->ctx = context_new();
    if (!p->ctx) goto nomem;

    double max_label_w;
    int n = p->n_q > p->n_k ? p->n_q : p->n_k;
    kind_sizes(opt->kind, n, &p->cell, &p->label_pt, &max_label_w);
    p->panel_w = p->n_k * p->cell;
    p->panel_h = p->n_q * p->cell;
    /* A label's line must fit in its row: type at most 0.72 of the cell. */
    p->label_pt = fmin(p->label_pt, p->cell * 0.72);
    p->labels = p->label_pt >= 3;
    /* Slanted key labels read best; upright ones take less room, and slanted
     * ones closer than 12 pt apart would touch. */
    p->angle = (opt->kind == FIG_HEAD && p->cell >= 12 ? -60.0 : -90.0) * M_PI / 180;
    p->heading_pt = opt->kind == FIG_HEAD ? 9 : 8;
    if (plan_labels(p, max_label_w) || plan_bar(p) || plan_numbers(p)) goto nomem;
    /* A grid of layers keeps the labels of the outer panels only when
     * labels on every panel would take more room than the panel itself. */
    p->labels_outer = opt->kind == FIG_LAYERS && (p->qw > p->panel_w / 2 || p->kh > p->panel_h / 2);
    double right, bottom;
    if (plan_title(p) || plan_headings(p) || plan_grid(p, &right, &bottom)) goto nomem;
    plan_page(p, right, bottom);
    return 0;
nomem:
    fig_plan_free(p);
    return av_error_nomem(err, _("figure: out of memory"));
}

int figure_layout(const Model *m, const FigureOptions *opt, FigureSize *size, AvError *err) {
    Plan p;
    if (fig_plan_make(&p, m, opt, err)) return -1;
    *size = p.size;
    fig_plan_free(&p);
    return 0;
}

int figure_cell_center(const Model *m, const FigureOptions *opt, int panel, int i, int j, double *x, double *y) {
    Plan p;
    if (fig_plan_make(&p, m, opt, NULL)) return -1;
    int ok = panel >= 0 && panel < p.g.count && i >= 0 && i < p.n_q && j >= 0 && j < p.n_k;
    if (ok) {
        double x0, y0;
        panel_origin(&p, panel, &x0, &y0);
        *x = x0 + (j + 0.5) * p.cell;
        *y = y0 + (i + 0.5) * p.cell;
    }
    fig_plan_free(&p);
    return ok ? 0 : -1;
}
