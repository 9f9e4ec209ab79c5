/* figure.c - publication-style figures (see figure.h): a plan of the page
 * (panels, cell size, labels measured with pango, the colour bar), then one
 * drawing of it with cairo on an SVG, PDF or image surface.
 *
 * Everything is in points. The plan measures text on a pango context of its
 * own (72 dpi, no hinting, unrounded glyph positions), so the page is the
 * same whatever the surface, and figure_layout / figure_cell_center give the
 * places the drawing uses. Cell sides and panel corners are multiples of
 * 1.5 pt: whole pixels in the PNG (2 px a point) and in a browser (4/3 px a
 * point), so a cell's colour is never blended with its neighbour's. */
#include "figure.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "formula.h"
#include "gfx.h"
#include "i18n.h"
#include "utf8.h"

/* Latin and Greek, then Hangul; emoji come from fontconfig's fallback (Noto
 * Color Emoji where installed). An emoji font named in the list would give
 * the digits too (it has 0-9 for keycaps): "n= 1 3" in grey. */
#define FIG_FONT "DejaVu Sans, NanumGothic"

enum { MAX_LABEL_BYTES = 256 };

static const double GRID = 1.5;    /* cell sides and panel corners: whole pixels at 2 and 4/3 px a point */
static const double MARGIN = 18;   /* around the page */
static const double BAR_W = 12;    /* the colour bar */
static const double HATCH_W = 0.5; /* the masked cells' hatch lines */

// ----------------------------------------------------------------------------
// colour ramps

/* viridis: entries 0, 16, ..., 240 and 255 of matplotlib's 256-entry table
 * (_cm_listed.py), at t = index / 255. */
static const double viridis[17][4] = {
    {0 / 255.0, 0.267004, 0.004874, 0.329415},   {16 / 255.0, 0.282327, 0.094955, 0.417331},
    {32 / 255.0, 0.278826, 0.175490, 0.483397},  {48 / 255.0, 0.258965, 0.251537, 0.524736},
    {64 / 255.0, 0.229739, 0.322361, 0.545706},  {80 / 255.0, 0.199430, 0.387607, 0.554642},
    {96 / 255.0, 0.172719, 0.448791, 0.557885},  {112 / 255.0, 0.149039, 0.508051, 0.557250},
    {128 / 255.0, 0.127568, 0.566949, 0.550556}, {144 / 255.0, 0.120638, 0.625828, 0.533488},
    {160 / 255.0, 0.157851, 0.683765, 0.501686}, {176 / 255.0, 0.246070, 0.738910, 0.452024},
    {192 / 255.0, 0.369214, 0.788888, 0.382914}, {208 / 255.0, 0.515992, 0.831158, 0.294279},
    {224 / 255.0, 0.678489, 0.863742, 0.189503}, {240 / 255.0, 0.845561, 0.887322, 0.099702},
    {255 / 255.0, 0.993248, 0.906157, 0.143936},
};

/* ColorBrewer's PuOr, 11 classes, from -1 (dark purple) through the
 * near-white 0 to +1 (dark orange), evenly spaced. */
static const unsigned char puor[11][3] = {
    {0x2d, 0x00, 0x4b}, {0x54, 0x27, 0x88}, {0x80, 0x73, 0xac}, {0xb2, 0xab, 0xd2},
    {0xd8, 0xda, 0xeb}, {0xf7, 0xf7, 0xf7}, {0xfe, 0xe0, 0xb6}, {0xfd, 0xb8, 0x63},
    {0xe0, 0x82, 0x14}, {0xb3, 0x58, 0x06}, {0x7f, 0x3b, 0x08},
};

static double clamp01(double t) { return t > 1 ? 1 : t > 0 ? t : 0; } /* NaN gives 0 */

static void viridis_at(double t, double rgb[3]) {
    t = clamp01(t);
    int k = 0;
    while (k < 15 && t > viridis[k + 1][0]) k++;
    double f = (t - viridis[k][0]) / (viridis[k + 1][0] - viridis[k][0]);
    for (int c = 0; c < 3; c++) rgb[c] = viridis[k][c + 1] + f * (viridis[k + 1][c + 1] - viridis[k][c + 1]);
}

/* t in [-1, 1]. */
static void puor_at(double t, double rgb[3]) {
    double x = clamp01((t + 1) / 2) * 10;
    int k = x >= 10 ? 9 : (int)x;
    double f = x - k;
    for (int c = 0; c < 3; c++) rgb[c] = (puor[k][c] + f * (puor[k + 1][c] - puor[k][c])) / 255.0;
}

void figure_masked_color(const FigureOptions *opt, double rgb[3]) {
    double g = opt && opt->dark ? 0.42 : 0.62; /* a mid grey: no colour of either ramp */
    rgb[0] = rgb[1] = rgb[2] = g;
}

/* The hatch over the masked grey. */
static void hatch_color(const FigureOptions *opt, double rgb[3]) {
    double g = opt->dark ? 0.64 : 0.40;
    rgb[0] = rgb[1] = rgb[2] = g;
}

typedef struct {
    double bg[3], fg[3], frame[3];
} Theme;

static Theme theme_of(const FigureOptions *opt) {
    Theme t;
    double bg = opt->dark ? 0.11 : 1.0, fg = opt->dark ? 0.91 : 0.0, fr = opt->dark ? 0.55 : 0.35;
    for (int c = 0; c < 3; c++) t.bg[c] = bg, t.fg[c] = fg, t.frame[c] = fr;
    return t;
}

/* WCAG relative luminance of an sRGB colour. */
static double luminance(const double rgb[3]) {
    double lin[3];
    for (int c = 0; c < 3; c++) lin[c] = rgb[c] <= 0.04045 ? rgb[c] / 12.92 : pow((rgb[c] + 0.055) / 1.055, 2.4);
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
}

// ----------------------------------------------------------------------------
// what is shown

static int stage_is_matrix(Stage s) {
    return s == STAGE_SCORES || s == STAGE_SCALED || s == STAGE_MASKED || s == STAGE_WEIGHTS;
}

static const float *stage_data(const HeadData *hd, Stage s) {
    switch (s) {
    case STAGE_SCORES: return hd->scores;
    case STAGE_SCALED: return hd->scaled;
    case STAGE_MASKED: return hd->masked;
    default: return hd->weights;
    }
}

/* Masked cells get the masked look where the stage applies the mask (as on
 * the screen: the raw and scaled scores show every cell's value). */
static int stage_masks(Stage s) { return s == STAGE_MASKED || s == STAGE_WEIGHTS; }

/* The panels of a figure: how many, and the grid they make (panel p at
 * column p % cols, row p / cols; panel_head says which head it is). */
typedef struct {
    int count, cols, rows;
} PanelGrid;

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

static int check_options(const Model *m, const FigureOptions *opt, PanelGrid *g, AvError *err) {
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

static const HeadData *panel_head(const Model *m, const FigureOptions *opt, int p) {
    switch (opt->kind) {
    case FIG_HEAD: return model_layer_heads(m, opt->layer) + opt->head;
    case FIG_HEADS: return model_layer_heads(m, opt->layer) + p;
    default: return model_layer_heads(m, p / m->cfg.heads) + p % m->cfg.heads;
    }
}

static int cell_masked(const Model *m, Stage s, int i, int j) {
    return stage_masks(s) && !m->allowed[(size_t)i * m->n_k + j];
}

/* max |x| over the finite, unmasked values of every panel. */
static double figure_maxabs(const Model *m, const FigureOptions *opt, const PanelGrid *g) {
    double mx = 0;
    for (int p = 0; p < g->count; p++) {
        const float *v = stage_data(panel_head(m, opt, p), opt->stage);
        for (int i = 0; i < m->n_q; i++)
            for (int j = 0; j < m->n_k; j++) {
                double x = v[(size_t)i * m->n_k + j];
                if (cell_masked(m, opt->stage, i, j) || !isfinite(x)) continue;
                if (fabs(x) > mx) mx = fabs(x);
            }
    }
    return mx;
}

static void color_of(const FigureOptions *opt, double maxabs, double value, double rgb[3]) {
    if (!isfinite(value)) figure_masked_color(opt, rgb);
    else if (opt->stage == STAGE_WEIGHTS) viridis_at(value, rgb);
    else puor_at(maxabs > 0 ? value / maxabs : 0, rgb);
}

void figure_color(const Model *m, const FigureOptions *opt, int panel, double value, double rgb[3]) {
    PanelGrid g;
    if (check_options(m, opt, &g, NULL) || panel < 0 || panel >= g.count) {
        figure_masked_color(opt, rgb);
        return;
    }
    color_of(opt, opt->stage == STAGE_WEIGHTS ? 1 : figure_maxabs(m, opt, &g), value, rgb);
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

typedef struct {
    PangoLayout *layout; /* NULL: nothing to draw */
    double w, h;         /* logical size, points */
} Text;

static void text_free(Text *t) {
    if (t->layout) g_object_unref(t->layout);
    t->layout = NULL;
}

/* s (UTF-8, set as text: never markup) at pt points, cut with an ellipsis
 * at max_w points when max_w > 0. */
static Text text_make(PangoContext *ctx, const char *s, double pt, int bold, double max_w) {
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

/* A value as its cell shows it: weights with 2 decimals, scores with as
 * many as their range leaves room for; a true minus sign. */
static void format_value(char *buf, size_t cap, double v, int weights, double maxabs) {
    int dec = weights || maxabs < 10 ? 2 : maxabs < 100 ? 1 : 0;
    char tmp[48];
    snprintf(tmp, sizeof tmp, "%.*f", dec, fabs(v));
    int neg = v < 0 && strspn(tmp, "0.") != strlen(tmp); /* no "−0.00" */
    snprintf(buf, cap, "%s%s", neg ? "\xE2\x88\x92" : "", tmp);
}

// ----------------------------------------------------------------------------
// the plan of the page

typedef struct {
    const Model *m;
    FigureOptions opt;
    PanelGrid g;
    int n_q, n_k;
    double maxabs;  /* the signed stages' scale */
    int any_masked; /* a masked cell is shown: the legend explains it */
    double cell;    /* a cell's side */
    double panel_w, panel_h;
    /* token labels */
    int labels;        /* drawn at all (big enough to read) */
    int labels_outer;  /* only on the left column (queries) and the top row (keys) */
    double angle;      /* the key labels' rotation (radians, negative: up to the right) */
    double qw;         /* the query labels' band: widest label + gap */
    double kh;         /* the key labels' band */
    double k_anchor;   /* the key labels start this far above the panel */
    double k_overhang; /* how far they reach right of the last column's right edge */
    Text *qlab, *klab; /* n_q, n_k */
    double head_h;     /* FIG_HEADS: the "head 1" line over each panel */
    double row_hdr_w;  /* FIG_LAYERS: "L1".. left of the rows */
    double col_hdr_h;  /* FIG_LAYERS: "H1".. over the columns */
    double number_pt;  /* 0: no numbers */
    double label_pt, heading_pt;
    double *col_x, *row_y; /* the top left of the cells of each grid column and row */
    Text title, subtitle;
    /* the colour bar */
    double bar_x, bar_y, bar_h;
    Text ticks[5];
    double tick_v[5];
    int n_ticks;
    Text bar_label, masked_label;
    double legend_y;
    FigureSize size;
    PangoContext *ctx;
} Plan;

static void plan_free(Plan *p) {
    if (p->qlab)
        for (int i = 0; i < p->n_q; i++) text_free(&p->qlab[i]);
    if (p->klab)
        for (int j = 0; j < p->n_k; j++) text_free(&p->klab[j]);
    free(p->qlab);
    free(p->klab);
    free(p->col_x);
    free(p->row_y);
    text_free(&p->title);
    text_free(&p->subtitle);
    for (int k = 0; k < 5; k++) text_free(&p->ticks[k]);
    text_free(&p->bar_label);
    text_free(&p->masked_label);
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
        Text t = text_make(p->ctx, s, p->label_pt, 0, max_label_w);
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
        for (int k = 0; k < 5; k++) p->tick_v[k] = k / 4.0, p->ticks[k] = text_make(p->ctx, names[k], 8, 0, 0);
    } else if (p->maxabs > 0) {
        p->n_ticks = 3;
        double v[3] = {-p->maxabs, 0, p->maxabs};
        for (int k = 0; k < 3; k++) {
            format_value(buf, sizeof buf, v[k], 0, p->maxabs);
            if (k == 1) snprintf(buf, sizeof buf, "0");
            p->tick_v[k] = v[k];
            p->ticks[k] = text_make(p->ctx, buf, 8, 0, 0);
        }
    } else {
        p->n_ticks = 1;
        p->tick_v[0] = 0;
        p->ticks[0] = text_make(p->ctx, "0", 8, 0, 0);
    }
    for (int k = 0; k < p->n_ticks; k++)
        if (!p->ticks[k].layout) return -1;
    p->bar_label = text_make(p->ctx, bar_name(p->opt.stage), 9, 0, 0);
    p->masked_label = text_make(p->ctx, _("masked"), 8, 0, 0);
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
        format_value(buf, sizeof buf, probe[k], weights, p->maxabs);
        Text t = text_make(p->ctx, buf, pt, 0, 0);
        if (!t.layout) return -1;
        widest = fmax(widest, t.w);
        text_free(&t);
    }
    if (widest > p->cell * 0.9) pt *= p->cell * 0.9 / widest;
    p->number_pt = pt >= 3 ? pt : 0;
    return 0;
}

static int plan_make(Plan *p, const Model *m, const FigureOptions *opt, AvError *err) {
    memset(p, 0, sizeof *p);
    if (check_options(m, opt, &p->g, err) || gfx_load(err)) return -1;
    p->m = m;
    p->opt = *opt;
    p->n_q = m->n_q;
    p->n_k = m->n_k;
    p->maxabs = opt->stage == STAGE_WEIGHTS ? 1 : figure_maxabs(m, opt, &p->g);
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

    char l1[512], l2[1024];
    title_lines(p, l1, sizeof l1, l2, sizeof l2);
    p->title = text_make(p->ctx, l1, 11.5, 1, 0);
    p->subtitle = text_make(p->ctx, l2, 8.5, 0, 0);
    if (!p->title.layout || !p->subtitle.layout) goto nomem;

    /* Headings: "head 1" over each panel of FIG_HEADS; "L1" and "H1" along
     * the rows and columns of FIG_LAYERS. */
    char buf[32];
    snprintf(buf, sizeof buf, "L%d H%d", m->cfg.layers, m->cfg.heads);
    Text probe = text_make(p->ctx, buf, p->heading_pt, 1, 0);
    if (!probe.layout) goto nomem;
    if (opt->kind == FIG_HEADS) p->head_h = probe.h + 3;
    if (opt->kind == FIG_LAYERS) {
        snprintf(buf, sizeof buf, "L%d", m->cfg.layers);
        Text l = text_make(p->ctx, buf, p->heading_pt, 1, 0);
        if (!l.layout) {
            text_free(&probe);
            goto nomem;
        }
        p->row_hdr_w = l.w + 6;
        p->col_hdr_h = probe.h + 3;
        text_free(&l);
    }
    text_free(&probe);

    /* The grid: columns left to right, rows top to bottom. */
    const PanelGrid *g = &p->g;
    p->col_x = calloc((size_t)g->cols, sizeof *p->col_x);
    p->row_y = calloc((size_t)g->rows, sizeof *p->row_y);
    if (!p->col_x || !p->row_y) goto nomem;
    double gap_x = opt->kind == FIG_LAYERS ? 6 : 16, gap_y = opt->kind == FIG_LAYERS ? 6 : 14;
    double title_h = p->title.h + 2 + p->subtitle.h;
    double x = MARGIN + p->row_hdr_w, right = x;
    for (int c = 0; c < g->cols; c++) {
        int has_q = p->labels && (!p->labels_outer || c == 0);
        int next_q = p->labels && !p->labels_outer; /* the next column's query labels */
        if (has_q) x += p->qw;
        x = snap(x);
        p->col_x[c] = x;
        x += p->panel_w;
        int has_k = p->labels; /* every column has key labels in some row */
        right = x + (has_k ? p->k_overhang : 0);
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
    double bottom = y;

    /* The colour bar right of the grid, its top at the first row's cells. */
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
    p->size.cols = g->cols;
    p->size.rows = g->rows;
    double s = FIGURE_PNG_SCALE, area = p->size.width * p->size.height;
    if (area * s * s > FIGURE_PNG_MAX_PIXELS) s = sqrt(FIGURE_PNG_MAX_PIXELS / area);
    if (p->size.width * s > 32000) s = 32000 / p->size.width;
    if (p->size.height * s > 32000) s = 32000 / p->size.height;
    p->size.png_scale = s;
    p->size.png_width = (int)ceil(p->size.width * s - 1e-9);
    p->size.png_height = (int)ceil(p->size.height * s - 1e-9);
    if (p->size.png_width < 1) p->size.png_width = 1;
    if (p->size.png_height < 1) p->size.png_height = 1;
    return 0;
nomem:
    plan_free(p);
    return av_error_nomem(err, _("figure: out of memory"));
}

static void panel_origin(const Plan *p, int panel, double *x, double *y) {
    *x = p->col_x[panel % p->g.cols];
    *y = p->row_y[panel / p->g.cols];
}

int figure_layout(const Model *m, const FigureOptions *opt, FigureSize *size, AvError *err) {
    Plan p;
    if (plan_make(&p, m, opt, err)) return -1;
    *size = p.size;
    plan_free(&p);
    return 0;
}

int figure_cell_center(const Model *m, const FigureOptions *opt, int panel, int i, int j, double *x, double *y) {
    Plan p;
    if (plan_make(&p, m, opt, NULL)) return -1;
    int ok = panel >= 0 && panel < p.g.count && i >= 0 && i < p.n_q && j >= 0 && j < p.n_k;
    if (ok) {
        double x0, y0;
        panel_origin(&p, panel, &x0, &y0);
        *x = x0 + (j + 0.5) * p.cell;
        *y = y0 + (i + 0.5) * p.cell;
    }
    plan_free(&p);
    return ok ? 0 : -1;
}

// ----------------------------------------------------------------------------
// drawing

static void set_rgb(cairo_t *cr, const double rgb[3]) { cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]); }

static void show_text(cairo_t *cr, const Text *t, double x, double y) {
    if (!t->layout) return;
    cairo_move_to(cr, x, y);
    pango_cairo_show_layout(cr, t->layout);
}

/* The masked cells of the current path: the grey, then thin lines "/"
 * over the box (x, y, w, h) half a cell apart, clipped to them. The centres
 * of cells of side `side` from (x, y) lie on x' + y' = whole sides; the lines
 * x' + y' = side / 4 + k side / 2 pass a quarter of a side off every centre,
 * which stays grey. The path is used up. */
static void fill_masked(cairo_t *cr, const FigureOptions *opt, double x, double y, double w, double h, double side) {
    double grey[3], line[3];
    figure_masked_color(opt, grey);
    hatch_color(opt, line);
    set_rgb(cr, grey);
    cairo_fill_preserve(cr);
    cairo_save(cr);
    cairo_clip(cr);
    set_rgb(cr, line);
    cairo_set_line_width(cr, HATCH_W);
    for (double c = side / 4; c < w + h + side; c += side / 2) {
        cairo_move_to(cr, x + c - h, y + h);
        cairo_line_to(cr, x + c, y);
    }
    cairo_stroke(cr);
    cairo_restore(cr);
}

static void draw_numbers(cairo_t *cr, const Plan *p, const float *v, double x0, double y0) {
    int weights = p->opt.stage == STAGE_WEIGHTS;
    char buf[48];
    for (int i = 0; i < p->n_q; i++)
        for (int j = 0; j < p->n_k; j++) {
            double val = v[(size_t)i * p->n_k + j];
            if (cell_masked(p->m, p->opt.stage, i, j) || !isfinite(val)) continue;
            format_value(buf, sizeof buf, val, weights, p->maxabs);
            Text t = text_make(p->ctx, buf, p->number_pt, 0, 0);
            if (!t.layout) continue;
            double rgb[3];
            color_of(&p->opt, p->maxabs, val, rgb);
            double ink = luminance(rgb) > 0.179 ? 0.0 : 1.0; /* the better contrast of black and white */
            cairo_set_source_rgb(cr, ink, ink, ink);
            show_text(cr, &t, x0 + (j + 0.5) * p->cell - t.w / 2, y0 + (i + 0.5) * p->cell - t.h / 2);
            text_free(&t);
        }
}

static void draw_panel(cairo_t *cr, const Plan *p, const Theme *th, int panel) {
    double x0, y0;
    panel_origin(p, panel, &x0, &y0);
    const float *v = stage_data(panel_head(p->m, &p->opt, panel), p->opt.stage);
    double side = p->cell;
    /* The cells of a value; each overlaps the next by a little (covered when
     * that is drawn, or by the masked cells after them): no hairline between
     * cells in a viewer that blends edges at other scales. */
    int any_masked = 0;
    for (int i = 0; i < p->n_q; i++)
        for (int j = 0; j < p->n_k; j++) {
            if (cell_masked(p->m, p->opt.stage, i, j)) {
                any_masked = 1;
                continue;
            }
            double rgb[3];
            color_of(&p->opt, p->maxabs, v[(size_t)i * p->n_k + j], rgb);
            set_rgb(cr, rgb);
            cairo_rectangle(cr, x0 + j * side, y0 + i * side, side + (j + 1 < p->n_k ? 0.25 : 0),
                            side + (i + 1 < p->n_q ? 0.25 : 0));
            cairo_fill(cr);
        }
    /* The masked cells: one path, one hatch over the panel. */
    if (any_masked) {
        cairo_new_path(cr);
        for (int i = 0; i < p->n_q; i++)
            for (int j = 0; j < p->n_k; j++)
                if (cell_masked(p->m, p->opt.stage, i, j))
                    cairo_rectangle(cr, x0 + j * side, y0 + i * side, side, side);
        fill_masked(cr, &p->opt, x0, y0, p->panel_w, p->panel_h, side);
    }
    if (p->number_pt > 0) draw_numbers(cr, p, v, x0, y0);
    set_rgb(cr, th->frame);
    cairo_set_line_width(cr, 0.5);
    cairo_rectangle(cr, x0, y0, p->panel_w, p->panel_h);
    cairo_stroke(cr);

    int col = panel % p->g.cols, row = panel / p->g.cols;
    set_rgb(cr, th->fg);
    if (p->labels && (!p->labels_outer || col == 0))
        for (int i = 0; i < p->n_q; i++) {
            const Text *t = &p->qlab[i];
            show_text(cr, t, x0 - 4 - t->w, y0 + (i + 0.5) * side - t->h / 2);
        }
    if (p->labels && (!p->labels_outer || row == 0))
        for (int j = 0; j < p->n_k; j++) {
            const Text *t = &p->klab[j];
            if (!t->layout) continue;
            cairo_save(cr);
            cairo_translate(cr, x0 + (j + 0.5) * side, y0 - p->k_anchor);
            cairo_rotate(cr, p->angle);
            show_text(cr, t, 0, -t->h / 2);
            cairo_restore(cr);
        }

    /* Headings. */
    char buf[32];
    int has_k = p->labels && (!p->labels_outer || row == 0);
    if (p->opt.kind == FIG_HEADS) {
        snprintf(buf, sizeof buf, _("head %d"), panel + 1);
        Text t = text_make(p->ctx, buf, p->heading_pt, 1, 0);
        show_text(cr, &t, x0 + p->panel_w / 2 - t.w / 2, y0 - (has_k ? p->kh : 0) - p->head_h);
        text_free(&t);
    } else if (p->opt.kind == FIG_LAYERS) {
        if (row == 0) {
            snprintf(buf, sizeof buf, "H%d", col + 1);
            Text t = text_make(p->ctx, buf, p->heading_pt, 1, 0);
            show_text(cr, &t, x0 + p->panel_w / 2 - t.w / 2, y0 - (has_k ? p->kh : 0) - p->col_hdr_h);
            text_free(&t);
        }
        if (col == 0) {
            snprintf(buf, sizeof buf, "L%d", row + 1);
            Text t = text_make(p->ctx, buf, p->heading_pt, 1, 0);
            show_text(cr, &t, MARGIN, y0 + p->panel_h / 2 - t.h / 2);
            text_free(&t);
        }
    }
}

static void draw_bar(cairo_t *cr, const Plan *p, const Theme *th) {
    double x = p->bar_x, y = p->bar_y, h = p->bar_h;
    /* The ramp as a gradient through the control points (bottom: the
     * lowest value), so it is the same interpolation as the cells'. */
    cairo_pattern_t *pat = cairo_pattern_create_linear(0, y + h, 0, y);
    if (p->opt.stage == STAGE_WEIGHTS)
        for (int k = 0; k < 17; k++)
            cairo_pattern_add_color_stop_rgb(pat, viridis[k][0], viridis[k][1], viridis[k][2], viridis[k][3]);
    else
        for (int k = 0; k < 11; k++)
            cairo_pattern_add_color_stop_rgb(pat, k / 10.0, puor[k][0] / 255.0, puor[k][1] / 255.0, puor[k][2] / 255.0);
    cairo_set_source(cr, pat);
    cairo_rectangle(cr, x, y, BAR_W, h);
    cairo_fill(cr);
    cairo_pattern_destroy(pat);
    set_rgb(cr, th->frame);
    cairo_set_line_width(cr, 0.5);
    cairo_rectangle(cr, x, y, BAR_W, h);
    cairo_stroke(cr);

    double lo = p->opt.stage == STAGE_WEIGHTS ? 0 : -p->maxabs, hi = p->opt.stage == STAGE_WEIGHTS ? 1 : p->maxabs;
    for (int k = 0; k < p->n_ticks; k++) {
        double f = hi > lo ? (p->tick_v[k] - lo) / (hi - lo) : 0.5;
        double ty = y + h - f * h;
        set_rgb(cr, th->fg);
        cairo_set_line_width(cr, 0.6);
        cairo_move_to(cr, x + BAR_W, ty);
        cairo_line_to(cr, x + BAR_W + 3, ty);
        cairo_stroke(cr);
        show_text(cr, &p->ticks[k], x + BAR_W + 5, ty - p->ticks[k].h / 2);
    }
    double tick_w = 0;
    for (int k = 0; k < p->n_ticks; k++) tick_w = fmax(tick_w, p->ticks[k].w);
    cairo_save(cr);
    cairo_translate(cr, x + BAR_W + 5 + tick_w + 6, y + h / 2 + p->bar_label.w / 2);
    cairo_rotate(cr, -M_PI / 2);
    show_text(cr, &p->bar_label, 0, 0);
    cairo_restore(cr);

    if (p->any_masked) {
        double ly = p->legend_y;
        cairo_new_path(cr);
        cairo_rectangle(cr, x, ly, 10.5, 10.5);
        fill_masked(cr, &p->opt, x, ly, 10.5, 10.5, 10.5);
        set_rgb(cr, th->frame);
        cairo_set_line_width(cr, 0.5);
        cairo_rectangle(cr, x, ly, 10.5, 10.5);
        cairo_stroke(cr);
        set_rgb(cr, th->fg);
        show_text(cr, &p->masked_label, x + 14, ly + 5.25 - p->masked_label.h / 2);
    }
}

static void draw(cairo_t *cr, const Plan *p) {
    Theme th = theme_of(&p->opt);
    set_rgb(cr, th.bg);
    cairo_rectangle(cr, 0, 0, p->size.width, p->size.height);
    cairo_fill(cr);
    set_rgb(cr, th.fg);
    show_text(cr, &p->title, MARGIN, MARGIN);
    show_text(cr, &p->subtitle, MARGIN, MARGIN + p->title.h + 2);
    for (int k = 0; k < p->g.count; k++) draw_panel(cr, p, &th, k);
    draw_bar(cr, p, &th);
}

// ----------------------------------------------------------------------------
// output

/* A growing memory buffer that cairo writes into. */
typedef struct {
    unsigned char *data;
    size_t len, cap;
    int nomem;
} Sink;

static cairo_status_t sink_write(void *closure, const unsigned char *data, unsigned int length) {
    Sink *s = closure;
    if (length > SIZE_MAX - s->len) return s->nomem = 1, CAIRO_STATUS_WRITE_ERROR;
    if (s->len + length > s->cap) {
        size_t cap = s->cap ? s->cap : 1 << 16;
        while (cap < s->len + length) {
            if (cap > SIZE_MAX / 2) return s->nomem = 1, CAIRO_STATUS_WRITE_ERROR;
            cap *= 2;
        }
        unsigned char *d = realloc(s->data, cap);
        if (!d) return s->nomem = 1, CAIRO_STATUS_WRITE_ERROR;
        s->data = d;
        s->cap = cap;
    }
    memcpy(s->data + s->len, data, length);
    s->len += length;
    return CAIRO_STATUS_SUCCESS;
}

/* cairo names an SVG's images and groups after its surfaces' serial numbers,
 * which count on over the whole process ("image623" in the second figure):
 * they are renumbered in the order they appear, so that the same figure is
 * the same bytes. Only `id="image7"` and `#image7` are names (the base64 of
 * an image holds neither '"' nor '#'). 0, or -1 when out of memory. */
typedef struct {
    long long *num;
    size_t n, cap;
} Names;

/* The new number (1, 2, ...) of name num of a kind; 0 when out of memory. */
static size_t names_index(Names *t, long long num) {
    for (size_t k = 0; k < t->n; k++)
        if (t->num[k] == num) return k + 1;
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        long long *g = realloc(t->num, cap * sizeof *g);
        if (!g) return 0;
        t->num = g;
        t->cap = cap;
    }
    t->num[t->n++] = num;
    return t->n;
}

static int svg_renumber(Sink *s) {
    static const char *const kinds[2] = {"image", "surface"};
    Names names[2] = {{0}, {0}};
    Sink out = {0};
    const unsigned char *d = s->data;
    size_t i = 0, done = 0; /* d[done..i) is still to be copied */
    while (i < s->len && !out.nomem) {
        size_t lead = d[i] == '#' ? 1 : s->len - i > 4 && memcmp(d + i, "id=\"", 4) == 0 ? 4 : 0;
        int kind = -1;
        size_t at = 0;
        for (int k = 0; lead && k < 2 && kind < 0; k++) {
            size_t kl = strlen(kinds[k]);
            if (s->len - i > lead + kl && memcmp(d + i + lead, kinds[k], kl) == 0 && d[i + lead + kl] >= '0' &&
                d[i + lead + kl] <= '9')
                kind = k, at = i + lead + kl;
        }
        if (kind < 0) {
            i++;
            continue;
        }
        long long num = 0;
        size_t e = at;
        while (e < s->len && d[e] >= '0' && d[e] <= '9' && num < (1LL << 40)) num = num * 10 + (d[e++] - '0');
        size_t idx = names_index(&names[kind], num);
        char digits[24];
        int nd = snprintf(digits, sizeof digits, "%zu", idx);
        if (!idx || sink_write(&out, d + done, (unsigned)(at - done)) ||
            sink_write(&out, (const unsigned char *)digits, (unsigned)nd))
            out.nomem = 1;
        i = done = e;
    }
    if (!out.nomem && sink_write(&out, d + done, (unsigned)(s->len - done))) out.nomem = 1;
    free(names[0].num);
    free(names[1].num);
    if (out.nomem) {
        free(out.data);
        return -1;
    }
    free(s->data);
    *s = out;
    return 0;
}

static cairo_surface_t *surface_new(const Plan *p, FigureFormat fmt, Sink *sink) {
    double w = p->size.width, h = p->size.height;
    cairo_surface_t *sf;
    switch (fmt) {
    case FIG_SVG:
        sf = cairo_svg_surface_create_for_stream(sink_write, sink, w, h);
        cairo_svg_surface_set_document_unit(sf, CAIRO_SVG_UNIT_PT);
        return sf;
    case FIG_PDF:
        sf = cairo_pdf_surface_create_for_stream(sink_write, sink, w, h);
        /* No date (cairo would write the time of day): the same figure gives the same bytes. */
        cairo_pdf_surface_set_metadata(sf, CAIRO_PDF_METADATA_CREATE_DATE, "");
        cairo_pdf_surface_set_metadata(sf, CAIRO_PDF_METADATA_CREATOR, "attnviz");
        return sf;
    default: return cairo_image_surface_create(CAIRO_FORMAT_RGB24, p->size.png_width, p->size.png_height);
    }
}

int figure_render(const Model *m, const FigureOptions *opt, FigureFormat fmt, unsigned char **out, size_t *len,
                  AvError *err) {
    *out = NULL;
    *len = 0;
    if (fmt != FIG_SVG && fmt != FIG_PNG && fmt != FIG_PDF) return av_errorf(err, _("figure: unknown format %d"), fmt);
    Plan p;
    if (plan_make(&p, m, opt, err)) return -1;
    Sink sink = {0};
    cairo_surface_t *sf = surface_new(&p, fmt, &sink);
    cairo_status_t st = cairo_surface_status(sf);
    if (st == CAIRO_STATUS_SUCCESS) {
        cairo_t *cr = cairo_create(sf);
        if (fmt == FIG_PNG) cairo_scale(cr, p.size.png_scale, p.size.png_scale);
        draw(cr, &p);
        st = cairo_status(cr);
        cairo_destroy(cr);
        if (st == CAIRO_STATUS_SUCCESS && fmt == FIG_PNG) {
            cairo_surface_flush(sf);
            st = cairo_surface_write_to_png_stream(sf, sink_write, &sink);
        }
        cairo_surface_finish(sf);
        if (st == CAIRO_STATUS_SUCCESS) st = cairo_surface_status(sf);
    }
    cairo_surface_destroy(sf);
    plan_free(&p);
    if (st == CAIRO_STATUS_SUCCESS && !sink.nomem && fmt == FIG_SVG && svg_renumber(&sink)) sink.nomem = 1;
    if (st != CAIRO_STATUS_SUCCESS || sink.nomem) {
        free(sink.data);
        if (sink.nomem || st == CAIRO_STATUS_NO_MEMORY) return av_error_nomem(err, _("figure: out of memory"));
        return av_errorf(err, _("figure: cairo: %s"), cairo_status_to_string(st));
    }
    *out = sink.data;
    *len = sink.len;
    return 0;
}
