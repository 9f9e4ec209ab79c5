/* zoom.h - the zoomed-out view of a long text (view "zoom", key Z): the
 * weights of the head shown pooled in square blocks of b x b tokens, one
 * screen cell (two columns) a block, each the largest weight of its block
 * (max pooling: a single strong link shows); beside each row of blocks the
 * words its queries give the most weight on average (a word's copies
 * together); under the
 * map the cursor's block in numbers (its largest weight and where, and its
 * mean). Enter opens the heatmap at the cursor; / jumps to a token.
 *
 * The pooling itself is zoom_pool (tested on its own numbers). Internal to
 * tui/. */
#ifndef ATTNVIZ_ZOOM_H
#define ATTNVIZ_ZOOM_H

#include <stddef.h>

#include "app.h"

/* Pools A (n_q x n_k, row-major) into blocks of b x b: out_max and out_mean
 * (rows x cols, rows = ceil(n_q / b), cols = ceil(n_k / b)) get each block's
 * largest and mean weight over its cells that `allowed` (n_q x n_k, 1 =
 * visible; NULL: all) lets through, and out_n how many those are (0: the
 * block is all masked; its max and mean are then 0). A block at the edge
 * holds what remains. out_mean and out_n may be NULL. */
void zoom_pool(float *out_max, float *out_mean, int *out_n, const float *A, const unsigned char *allowed, int n_q,
               int n_k, int b);

/* The k words (k <= 8) to which queries [i0, i1) give the most weight on
 * average, largest first (ties: the earlier), into keys (each word's first
 * key) and means: a word's copies count together, their mean weights
 * summed; first[j] is the first key with key j's word (first[j] <= j; NULL:
 * every key its own word). Returns how many (fewer when there are fewer
 * words). */
int zoom_top_keys(int *keys, float *means, const float *A, const int *first, int n_k, int i0, int i1, int k);

/* A click at (y, x) of the last frame: on a block it puts the cursor on
 * the block's first query and key and returns 1; elsewhere 0. */
int zoom_click(App *a, int y, int x);

/* The block size for n tokens on `rows` rows of map: ceil(n / rows), at
 * least 1. */
int zoom_block(int n, int rows);

#endif
