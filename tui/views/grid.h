/* grid.h - the all-heads view of a source of several layers: a grid of
 * thumbnails, a row for each layer and a column for each head (BertViz's
 * "model view"). heatmap.c's all-heads view (view_heads) shows it when the
 * source has more than one layer, and its one layer side by side otherwise.
 * Internal to tui/. */
#ifndef ATTNVIZ_GRID_H
#define ATTNVIZ_GRID_H

#include <stddef.h>

#include "app.h"
#include "canvas.h"
#include "keymap.h"

/* 1 when the all-heads view is the grid: the source has several layers. */
int grid_applies(const App *a);

/* The key/value heads: fewer than the heads when groups of query heads share
 * one (grouped-query attention: a llama model's n_kv_heads), else the heads. */
int grid_kv_heads(const App *a);

/* 1 when the grid cannot show every layer and head whole on a w x h screen:
 * the all-heads view draws the class map then (classmap.h). */
int grid_shows_classes(const App *a, int w, int h);

/* The view's own data (a->view_data[VIEW_HEADS]): the first layer and head
 * in view, and where the last frame put the thumbnails. */
int grid_init(App *a);
void grid_free(App *a);

void grid_title(const App *a, char *buf, size_t cap);
void grid_draw(App *a, Canvas *cv);
int grid_natural_height(const App *a, int w);

/* The grid's keys: arrows choose the layer and head, PgUp/PgDn a page of
 * layers. VIEW_KEY_PASS for the others. */
int grid_key(App *a, Action act);

/* A click at (y, x) of the last frame: on a thumbnail it chooses its layer
 * and head and returns 1; elsewhere 0. */
int grid_click(App *a, int y, int x);

#endif
