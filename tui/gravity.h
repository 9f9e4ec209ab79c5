/* gravity.h - the "word gravity" view (issue 6): every token where it was, X,
 * and where attention moved it, X + D, on the plane of X's first two
 * principal components, with a line between the two.
 *
 *   one head h:  D = O_h W_O[h]   (n, d_model): the head's output (n, d_v)
 *                                 through its d_v rows of W_O, back in d_model
 *   all heads:   D = Y = concat(O_1..O_h) W_O, the layer output (the sum of
 *                the per-head D over the heads)
 *
 * Only for a sentence model with self-attention (queries and keys the same
 * tokens, n_q == n_k); a Q/K/V file has no X and no W_O, and in
 * cross-attention the queries that move are not the points of X. */
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

/* One head's share or the whole layer's Y (g again toggles): the view's own
 * state. */
int gravity_all_heads(const App *a);
void gravity_toggle_all(App *a);

#endif
