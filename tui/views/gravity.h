/* gravity.h - the "word gravity" view (issue 6, 13): every token where it
 * was, X (labelled with its token), and where attention moves it, X + D, on
 * the plane of X's first two principal components, with an arrow between the
 * two drawn k times D's length (k stated on screen; 1 when D is visible as
 * it is).
 *
 *   one head h:  D = O_h W_O[h]   (n, d_model): the head's output (n, d_v)
 *                                 through its d_v rows of W_O, back in d_model
 *   all heads:   D = Y = concat(O_1..O_h) W_O, the layer output (the sum of
 *                the per-head D over the heads)
 *
 * The seeded sentence: X = E + PE (random weights: the picture is the
 * arithmetic, not meaning). A trained model (--model): X is the residual
 * stream into the layer shown, D its attention output att W_o^T (one head:
 * the head's columns of W_o), and X + D the residual after attention, what
 * the model computes. Not for a Q/K/V file (no X, no W_O) nor cross-attention
 * (the queries that move are not the points of X). */
#ifndef ATTNVIZ_GRAVITY_H
#define ATTNVIZ_GRAVITY_H

#include "app.h"
#include "canvas.h"

/* 1 when the view can be drawn for a->m; otherwise 0 and *why (may be NULL)
 * gets a one-line reason (static storage). */
int gravity_available(const App *a, const char **why);

/* Draws the view into rows y0 .. y0+h-1 of cv (clipped to the canvas): the
 * plot, then a caption of up to 3 lines. D is head a->head's, or Y when
 * all_heads is set. The token under the cursor (a->ci) is highlighted.
 * Draws nothing outside those rows; a reason or "too small" in one line when
 * the view cannot be drawn. Deterministic: the same App gives the same cells. */
void gravity_draw(App *a, Canvas *cv, int y0, int h, int all_heads);

/* The points the view draws, in PC units: out_x (n, 2) is X, out_moved
 * (n, 2) is X + D (n = a->m->n_q; head a->head, or all heads). Returns 0, or
 * -1 when the view is not available or out of memory. */
int gravity_points(const App *a, int all_heads, float *out_x, float *out_moved);

/* The principal axes of X the view projects on, (2, d_model) row-major, and
 * their variances into var (may be NULL); NULL when not available. Valid
 * until the next call of a gravity_* function. */
const float *gravity_axes(const App *a, double var[2]);

/* The factor k the arrows are drawn at (X + k D): 1 when D is visible as it
 * is, else a 1-2-5 step (0.5, 5, 20, ...) that makes the longest arrow about
 * the RMS radius of the points X. 1 when the view is not available. */
double gravity_scale(const App *a, int all_heads);

/* What the last gravity_draw drew, in plot cells from its y0 (for tests):
 * dots (n, 4) the dot x, y of X then of X + k D (-1: not finite); labels
 * (n, 3) each token's label x, y, width in cells (width 0: not labelled);
 * k the arrows' factor; s dots per PC unit across (down: s / aspect), sx x sy
 * dots a cell. NULL before a frame. Valid until the next gravity_draw. */
typedef struct {
    int n;
    const int *dots, *labels;
    double k, s, aspect;
    int sx, sy;
} GravityFrame;
const GravityFrame *gravity_last_frame(const App *a);

/* One head's share or the whole layer's Y (g again toggles): the view's own
 * state. */
int gravity_all_heads(const App *a);
void gravity_toggle_all(App *a);

#endif
