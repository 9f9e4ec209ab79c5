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

typedef struct {
    FigureKind kind;
    int layer, head; /* 0-based: the head of FIG_HEAD, the layer of FIG_HEADS */
    Stage stage;     /* the matrix shown: STAGE_SCORES, _SCALED, _MASKED or _WEIGHTS */
    int numbers;     /* the value in each cell */
    int dark;        /* a dark background (light by default) */
} FigureOptions;

/* The figure of m (up to date through opt->stage) in the format asked for,
 * into a new buffer *out of *len bytes (caller frees). 0, or -1 with one
 * line in err (a stage that is no n_q x n_k matrix, out of memory, cairo's
 * own error). */
int figure_render(const Model *m, const FigureOptions *opt, FigureFormat fmt, unsigned char **out, size_t *len,
                  AvError *err);

/* Where things are, in points from the top left, for the tests: the centre
 * of cell (i, j) of panel p (p: 0 for FIG_HEAD; the head, or layer * heads +
 * head, in a grid), the figure's size, and the colour (0..1 RGB) a value
 * gets (a masked cell: the masked grey, under its hatch). */
typedef struct {
    double width, height; /* the page, in points */
} FigureSize;
int figure_layout(const Model *m, const FigureOptions *opt, FigureSize *size, AvError *err);
int figure_cell_center(const Model *m, const FigureOptions *opt, int panel, int i, int j, double *x, double *y);
void figure_color(const Model *m, const FigureOptions *opt, int panel, double value, double rgb[3]);
void figure_masked_color(const FigureOptions *opt, double rgb[3]);

#endif
