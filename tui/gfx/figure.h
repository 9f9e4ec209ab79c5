/* figure.h - publication-style figures of attention (issue 15), drawn with
 * cairo and pango into SVG, PNG or PDF: not the screen (picture.h), but a
 * clean heatmap for a slide or a paper.
 *
 * A figure is one head's matrix of the stage shown, or a grid of them (every
 * head of the layer shown; or, for a trained model of several layers, every
 * layer x head): token labels on both axes (the key labels rotated), a
 * colour bar with ticks, masked cells grey with a hatch, a title with the
 * formula and the configuration, optionally the value in each cell. Sizes
 * are in points. The ramps are colour-blind safe: viridis for weights (0..1),
 * a blue-white-orange diverging ramp for signed stages (-max..max). */
#ifndef ATTNVIZ_FIGURE_H
#define ATTNVIZ_FIGURE_H

#include <stddef.h>

#include "error.h"
#include "model.h"

typedef enum { FIG_HEAD = 0, FIG_HEADS, FIG_LAYERS } FigureKind;
typedef enum { FIG_SVG = 0, FIG_PNG, FIG_PDF } FigureFormat;

/* FIG_HEAD: head `head` of layer `layer`; FIG_HEADS: every head of layer
 * `layer`, in a grid as square as fits (12 heads: 4 x 3); FIG_LAYERS: every
 * layer (rows) x head (columns), smaller, token labels on the outer panels
 * only when they would crowd the panels (layer and head unused). */
typedef struct {
    FigureKind kind;
    int layer, head; /* 0-based: the head of FIG_HEAD, the layer of FIG_HEADS */
    Stage stage;     /* the matrix shown: STAGE_SCORES, _SCALED, _MASKED or _WEIGHTS */
    int numbers;     /* the value in each cell */
    int dark;        /* a dark background (light by default) */
} FigureOptions;

/* The figure of m (up to date through opt->stage) in the format asked for,
 * into a new buffer *out of *len bytes (caller frees). 0, or -1 with one
 * line in err (a stage that is no n_q x n_k matrix, a layer or head out of
 * range, too many cells, out of memory, cairo's own error, cairo or pango
 * not installed: gfx.h); *out is NULL then. Masked cells have the masked
 * look in STAGE_MASKED and STAGE_WEIGHTS (the raw and scaled scores show
 * every value, as the screen does). The same figure is the same bytes (no
 * date in a PDF, an SVG's names numbered from 1). Fonts: DejaVu Sans, NanumGothic, and fontconfig's fallback for
 * emoji; a figure has its own pango font map, so any thread may draw one. */
int figure_render(const Model *m, const FigureOptions *opt, FigureFormat fmt, unsigned char **out, size_t *len,
                  AvError *err);

/* A PNG has FIGURE_PNG_SCALE pixels per point (144 dpi), fewer for a page
 * that would pass FIGURE_PNG_MAX_PIXELS or 32000 pixels a side (FigureSize's
 * png_scale says how many). A figure of more than FIGURE_MAX_CELLS cells
 * (panels x n_q x n_k) is refused: show fewer heads or tokens. */
#define FIGURE_PNG_SCALE      2.0
#define FIGURE_PNG_MAX_PIXELS ((double)(1 << 25))
#define FIGURE_MAX_CELLS      ((long long)1 << 20)

/* Where things are, in points from the top left, for the tests: the centre
 * of cell (i, j) of panel p (p: 0 for FIG_HEAD; the head, or layer * heads +
 * head, in a grid), the figure's size, and the colour (0..1 RGB) a value
 * gets (a masked cell: the masked grey, under its hatch). */
typedef struct {
    double width, height;      /* the page, in points (multiples of 1.5: whole pixels at 2 px and at 4/3 px a point) */
    double png_scale;          /* pixels per point of the PNG: FIGURE_PNG_SCALE, less for a huge page */
    int png_width, png_height; /* the PNG's pixels: ceil(width * png_scale), ceil(height * png_scale) */
    int cols, rows;            /* the grid of panels (1 x 1 for FIG_HEAD) */
} FigureSize;
int figure_layout(const Model *m, const FigureOptions *opt, FigureSize *size, AvError *err);
/* 0, or -1 (bad options, no such panel or cell). */
int figure_cell_center(const Model *m, const FigureOptions *opt, int panel, int i, int j, double *x, double *y);
/* Weights (0..1) on viridis (17 control points of matplotlib's table,
 * linear in sRGB); the signed stages on ColorBrewer's PuOr (11 classes:
 * purple for negative, near-white 0, orange for positive) over the symmetric
 * range -max|x|..max|x| of the whole figure (every panel shown: one colour
 * bar; panel only has to be valid), masked cells left out of max|x|. A value
 * that is not finite gets the masked grey. */
void figure_color(const Model *m, const FigureOptions *opt, int panel, double value, double rgb[3]);
void figure_masked_color(const FigureOptions *opt, double rgb[3]);

#endif
