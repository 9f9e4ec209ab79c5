/* gravity_plot.h - the plot of the word gravity view (gravity.h), internal
 * to it: a grid of dots (2 x 4 braille dots a cell, or one dot a cell in
 * ASCII), the arrows X -> X + k D with their heads, the point markers, and
 * the labels of the points X placed so that none overlaps or touches another
 * label or a marker that is not its own.
 *
 * Plot space is DW x DH dots. A braille dot is square (a cell is about twice
 * as tall as wide); an ASCII cell is one dot, twice as tall as wide. */
#ifndef ATTNVIZ_GRAVITY_PLOT_H
#define ATTNVIZ_GRAVITY_PLOT_H

#include "app.h"
#include "canvas.h"

/* What a plot cell shows; a higher kind hides a lower one. */
enum { K_NONE, K_LINE, K_MOVED, K_X }; /* X over a moved point: the labels name the points X */

/* Colours of the two point sets: basic-colour indices, the same in the
 * 8-colour and the 256-colour palette. */
enum { FG_X = 6 /* cyan */, FG_MOVED = 1 /* red */ };

/* Which way an arrow's head points (the cell of X + k D). */
enum { HEAD_NONE, HEAD_RIGHT, HEAD_LEFT, HEAD_UP, HEAD_DOWN };

typedef struct {
    int w, h;             /* plot size in cells */
    int sx, sy;           /* dots per cell: 2 x 4 (braille) or 1 x 1 (ASCII) */
    unsigned char *bits;  /* (h, w) braille dots of each cell */
    unsigned char *kind;  /* (h, w) K_* */
    unsigned char *hot;   /* (h, w) 1 where the cursor's token is drawn */
    unsigned char *label; /* (h, w) 1 where a label is */
    unsigned char *head;  /* (h, w) HEAD_* of an arrow ending in the cell */
} Plot;

/* The planes of a w x h plot: PLOT_PLANES * w * h bytes, zeroed by the
 * caller. */
enum { PLOT_PLANES = 5 };
Plot plot_on(unsigned char *planes, int w, int h, int ascii);

/* Bounds of both point sets (n, 2), in PC units: 0, or -1 when no point is
 * finite. */
int plot_bounds(double lo[2], double hi[2], const float *px, const double *pm, int n);

/* dots (n, 4): X and X + k D (pm) in dot space, the bounds lo..hi centred in
 * p, one scale for both axes (-1: not finite). Returns the scale, dots per PC
 * unit across. */
double plot_place(int *dots, const Plot *p, int ascii, const float *px, const double *pm, int n, const double lo[2],
                  const double hi[2]);

/* The way an arrow from dot (x0, y0) to (x1, y1) points on the screen, by
 * its longer side as seen (an ASCII dot is twice as tall as wide); HEAD_NONE
 * when both ends are the same dot. */
int plot_head_of(int x0, int y0, int x1, int y1, int ascii);
/* The glyph of an arrow's head: ▸ ◂ ▴ ▾ (East Asian Neutral: one column in
 * Korean terminals too), > < ^ v in ASCII. */
const char *plot_head_glyph(int head, int ascii);

/* The arrows, their heads, the points X and the moved points onto cv from
 * row y0. cur: the cursor's token (-1: none). */
void plot_points(const App *a, Canvas *cv, int y0, Plot *p, const int *dots, int n, int cur);

/* Each token's label beside its point X, the cursor's first (see
 * gravity_plot.c). labels (n, 3) gets each spot (x, y, width; width 0: none);
 * labelled (p->h, p->w) is scratch, all -1 on entry. */
void plot_labels(const App *a, Canvas *cv, int y0, Plot *p, const int *dots, int *labels, int *labelled, int n,
                 int cur);

#endif
