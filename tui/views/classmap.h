/* classmap.h - the layers x heads class map (view "classes", key A): every
 * head of every layer as two characters, its pattern class (census.h:
 * census_class: P previous token, S first token/sink, D itself, I induction,
 * B broad, · mixed) and its sink share in tenths, so that GPT-2 small's 12 x
 * 12 heads fit an 80x24 screen. The all-heads view of a source of several
 * layers (grid.c) draws it where its thumbnails do not all fit.
 *
 *   row 3        head numbers over the columns, the chosen head's reversed
 *   rows 4..     one row per layer: "L3" and its heads' cells, the chosen
 *                head's cell reversed; rows and columns beyond the screen
 *                scroll with the choice ("layers 1-20 of 32" under the map)
 *   then         the legend (what the letters and the digit mean, and the
 *                class's definition, as many lines as fit) and the chosen
 *                head's numbers
 *
 * Internal to tui/. */
#ifndef ATTNVIZ_CLASSMAP_H
#define ATTNVIZ_CLASSMAP_H

#include <stddef.h>

#include "app.h"
#include "canvas.h"
#include "keymap.h"

/* The map and its legend on cv (below the top lines); the bottom lines are
 * the caller's (chrome_draw_bottom without an inspector). */
void classmap_draw(App *a, Canvas *cv);

/* The title: "5 layers x 8 heads: each head's class and sink share ...". */
void classmap_title(const App *a, char *buf, size_t cap);

/* Rows to show every layer at width w, the legend included (--once). */
int classmap_natural_height(const App *a, int w);

/* Arrows choose the layer and head, PgUp/PgDn a page of layers, Home/End
 * the first and last layer; Enter opens the chosen head's weights in the
 * heatmap. VIEW_KEY_PASS for the other keys. */
int classmap_key(App *a, Action act);

/* A click at (y, x) of the last frame: on a head's cell it chooses that
 * layer and head and returns 1; elsewhere 0. */
int classmap_click(App *a, int y, int x);

#endif
