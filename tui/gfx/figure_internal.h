/* figure_internal.h - what the three parts of a figure share, for them
 * alone: figure_plan.c measures the page into a Plan, figure_draw.c draws a
 * Plan with cairo (and owns the colours), figure.c makes the surface and
 * the bytes of the format asked for (see figure.h). */
#ifndef ATTNVIZ_FIGURE_INTERNAL_H
#define ATTNVIZ_FIGURE_INTERNAL_H

#include "figure.h"
#include "gfx.h"

static const double MARGIN = 18; /* around the page */
static const double BAR_W = 12;  /* the colour bar */

// ----------------------------------------------------------------------------
// what is shown

static inline const float *stage_data(const HeadData *hd, Stage s) {
    switch (s) {
    case STAGE_SCORES: return hd->scores;
    case STAGE_SCALED: return hd->scaled;
    case STAGE_MASKED: return hd->masked;
    default: return hd->weights;
    }
}

/* Masked cells get the masked look where the stage applies the mask (as on
 * the screen: the raw and scaled scores show every cell's value). */
static inline int stage_masks(Stage s) { return s == STAGE_MASKED || s == STAGE_WEIGHTS; }

static inline int cell_masked(const Model *m, Stage s, int i, int j) {
    return stage_masks(s) && !m->allowed[(size_t)i * m->n_k + j];
}

/* The panels of a figure: how many, and the grid they make (panel p at
 * column p % cols, row p / cols; fig_panel_head says which head it is). */
typedef struct {
    int count, cols, rows;
} PanelGrid;

/* 0 and the grid of the panels, or -1 with one line in err (err may be
 * NULL) for options figure_render refuses. */
int fig_check_options(const Model *m, const FigureOptions *opt, PanelGrid *g, AvError *err);
const HeadData *fig_panel_head(const Model *m, const FigureOptions *opt, int p);
/* max |x| over the finite, unmasked values of every panel. */
double fig_maxabs(const Model *m, const FigureOptions *opt, const PanelGrid *g);

// ----------------------------------------------------------------------------
// text

typedef struct {
    PangoLayout *layout; /* NULL: nothing to draw */
    double w, h;         /* logical size, points */
} Text;

/* s (UTF-8, set as text: never markup) at pt points, cut with an ellipsis
 * at max_w points when max_w > 0. The layout is NULL when out of memory;
 * fig_text_free frees it (and accepts a Text without one). */
Text fig_text_make(PangoContext *ctx, const char *s, double pt, int bold, double max_w);
void fig_text_free(Text *t);
/* A value as its cell shows it: weights with 2 decimals, scores with as
 * many as their range leaves room for; a true minus sign. */
void fig_format_value(char *buf, size_t cap, double v, int weights, double maxabs);

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

/* The plan of m's figure with opt: 0, or -1 with one line in err (bad
 * options, cairo or pango missing, out of memory) and nothing to free.
 * fig_plan_free frees what a plan holds. */
int fig_plan_make(Plan *p, const Model *m, const FigureOptions *opt, AvError *err);
void fig_plan_free(Plan *p);

static inline void panel_origin(const Plan *p, int panel, double *x, double *y) {
    *x = p->col_x[panel % p->g.cols];
    *y = p->row_y[panel / p->g.cols];
}

// ----------------------------------------------------------------------------
// drawing

/* The whole page of p on cr, in points. */
void fig_draw(cairo_t *cr, const Plan *p);

#endif
