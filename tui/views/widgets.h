/* widgets.h - what every view draws with (internal to tui/): glyphs, the
 * matrix of a stage, labels, numbers and heatmap cells. Below the views and
 * the chrome: it includes neither. */
#ifndef ATTNVIZ_WIDGETS_H
#define ATTNVIZ_WIDGETS_H

#include "app.h"
#include "canvas.h"

/* attnviz's own glyphs; the ASCII set for --ascii (the Unicode ones are
 * East Asian Ambiguous and two columns wide in many Korean set-ups). */
typedef struct {
    const char *ellipsis, *masked, *flag, *sigma, *arrow, *neg_inf, *dot, *times, *space;
    const char *minus, *div, *vbar, *bar, *mean_h, *odot;
} Glyphs;
const Glyphs *view_glyphs(const App *a);

typedef enum { LABELS_KEYS, LABELS_DIMS, LABELS_CONCAT } ColLabels;

/* A matrix a view shows, with its colour scale. */
typedef struct {
    const float *v; /* rows x cols, row-major */
    int rows, cols;
    int is_signed; /* diverging ramp around 0 */
    int can_mask;  /* masked cells get the masked look */
    int row_stats; /* rows are queries of a head: sum, entropy, max apply */
    ColLabels col_labels;
    int d_v;              /* LABELS_CONCAT: columns per head */
    double lo, hi;        /* range of the finite values (0..1 for weights) */
    double maxabs;        /* scale of the diverging ramp */
    const float *row_max; /* z (weights): colours of row i span 0..row_max[i]; NULL: one scale */
} ShownMat;

/* The matrix of stage s of head h (h is ignored for layer stages). */
void view_matrix(const App *a, Shown s, int h, ShownMat *sm);
/* Any matrix with its range, for the pipeline view. */
void view_matrix_of(ShownMat *sm, const float *v, int rows, int cols, int is_signed);

int view_cell_masked(const App *a, const ShownMat *sm, int i, int j);

/* Colour (or shade glyph, returned in *glyph) of value v on sm's scale. */
Style view_value_style(const App *a, const ShownMat *sm, double v, const char **glyph);

/* One cell of cw x ch screen cells at (y, x), with its number when numbers
 * is set and the cell is wide enough. */
void view_cell(const App *a, Canvas *cv, int y, int x, int cw, int ch, const ShownMat *sm, int i, int j, int cursor,
               int numbers);

/* A number in at most width columns (weights with 2 decimals). */
void view_num(char *buf, size_t cap, double v, int width, int weight);

/* A label safe to show, cut to max_cols with the ellipsis: of raw[0..len),
 * of query token i, of key token j. */
void view_label(const App *a, char *out, size_t cap, const char *raw, size_t len, int max_cols);
void view_qlabel(const App *a, char *out, size_t cap, int i, int max_cols);
void view_klabel(const App *a, char *out, size_t cap, int j, int max_cols);

/* The label of column j of sm: a key token, a dimension, or "head.column". */
void view_col_label(const App *a, const ShownMat *sm, char *out, size_t cap, int j, int max_cols);

/* The widest query label cut to cap columns (at least 1). */
int view_max_label_width(const App *a, int cap);

/* The name of stage s on the screen, in the reader's language: "weights",
 * "raw scores", ... */
const char *view_stage_name(Shown s);

/* The screen names of the catalogue's stages (tensor.h's `shown` column),
 * marked for translation here, as src/ speaks no language; NULL-terminated.
 * test_views checks that it holds every one. */
extern const char *const view_stage_names[];

#endif
