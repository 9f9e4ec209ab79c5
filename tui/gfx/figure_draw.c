/* figure_draw.c - the drawing of a figure's plan (figure_internal.h) with
 * cairo: the background, the title, each panel's cells (masked ones grey
 * under a hatch), numbers, labels and headings, and the colour bar with its
 * ticks and legend; and the colours: viridis for weights, PuOr for the
 * signed stages (figure_color, figure_masked_color: figure.h). */
#include "figure_internal.h"

#include <math.h>
#include <stdio.h>

#include "i18n.h"

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

static void color_of(const FigureOptions *opt, double maxabs, double value, double rgb[3]) {
    if (!isfinite(value)) figure_masked_color(opt, rgb);
    else if (opt->stage == STAGE_WEIGHTS) viridis_at(value, rgb);
    else puor_at(maxabs > 0 ? value / maxabs : 0, rgb);
}

void figure_color(const Model *m, const FigureOptions *opt, int panel, double value, double rgb[3]) {
    PanelGrid g;
    if (fig_check_options(m, opt, &g, NULL) || panel < 0 || panel >= g.count) {
        figure_masked_color(opt, rgb);
        return;
    }
    color_of(opt, opt->stage == STAGE_WEIGHTS ? 1 : fig_maxabs(m, opt, &g), value, rgb);
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
            fig_format_value(buf, sizeof buf, val, weights, p->maxabs);
            Text t = fig_text_make(p->ctx, buf, p->number_pt, 0, 0);
            if (!t.layout) continue;
            double rgb[3];
            color_of(&p->opt, p->maxabs, val, rgb);
            double ink = luminance(rgb) > 0.179 ? 0.0 : 1.0; /* the better contrast of black and white */
            cairo_set_source_rgb(cr, ink, ink, ink);
            show_text(cr, &t, x0 + (j + 0.5) * p->cell - t.w / 2, y0 + (i + 0.5) * p->cell - t.h / 2);
            fig_text_free(&t);
        }
}

static void draw_panel(cairo_t *cr, const Plan *p, const Theme *th, int panel) {
    double x0, y0;
    panel_origin(p, panel, &x0, &y0);
    const float *v = stage_data(fig_panel_head(p->m, &p->opt, panel), p->opt.stage);
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
        Text t = fig_text_make(p->ctx, buf, p->heading_pt, 1, 0);
        show_text(cr, &t, x0 + p->panel_w / 2 - t.w / 2, y0 - (has_k ? p->kh : 0) - p->head_h);
        fig_text_free(&t);
    } else if (p->opt.kind == FIG_LAYERS) {
        if (row == 0) {
            snprintf(buf, sizeof buf, "H%d", col + 1);
            Text t = fig_text_make(p->ctx, buf, p->heading_pt, 1, 0);
            show_text(cr, &t, x0 + p->panel_w / 2 - t.w / 2, y0 - (has_k ? p->kh : 0) - p->col_hdr_h);
            fig_text_free(&t);
        }
        if (col == 0) {
            snprintf(buf, sizeof buf, "L%d", row + 1);
            Text t = fig_text_make(p->ctx, buf, p->heading_pt, 1, 0);
            show_text(cr, &t, MARGIN, y0 + p->panel_h / 2 - t.h / 2);
            fig_text_free(&t);
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

void fig_draw(cairo_t *cr, const Plan *p) {
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
