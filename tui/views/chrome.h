/* chrome.h - the lines every view shares (internal to tui/).
 *
 * Screen rows (H = canvas height):
 *   0        status: the configuration as key=value words (contract)
 *   1        title: head i/h and what the view shows (the view's title)
 *   2        info: score kind, attention mode, tokens, mean entropy, asymmetry
 *   3..      the view: column labels and heatmap rows, blocks of heads, a
 *            scrolled page (pipeline) or a plot (gravity)
 *   then     legend (colour bar, masked look, flags), right under the map and
 *            at most at H-5; the two inspector lines (the arithmetic of the
 *            cell under the cursor); the message (result of the last key)
 *   H-1      key hints, or the prompt being typed */
#ifndef ATTNVIZ_CHROME_H
#define ATTNVIZ_CHROME_H

#include "app.h"
#include "canvas.h"
#include "widgets.h"

enum { TOP_LINES = 3, BOTTOM_LINES = 5 };

/* Rows 0-2: status, the view's title, info. */
void chrome_draw_top(const App *a, Canvas *cv);

/* The legend (of sm; none when NULL), inspector and message from row y (or
 * higher when the map leaves no room), and the hints or prompt on the last
 * line. */
void chrome_draw_bottom(const App *a, Canvas *cv, const ShownMat *sm, int y);

/* buf made to fit w columns: cut before the last " + " (a sum's terms) or the
 * last blank that leaves room, and " …" (or " + …") in place of the rest;
 * unchanged when it fits. */
void chrome_fit(char *buf, size_t cap, int w);

/* The configuration's variants as the screen says them (the info line, the
 * messages of m, o and x): in English the status line's own words
 * ("score=cosine", "attn=self", "mask=window:3"), in another language their
 * names ("코사인 점수"); the status line keeps the words in every language. */
void chrome_score_words(const ModelConfig *c, char *buf, size_t cap);
void chrome_attn_words(AttnMode mode, int after, char *buf, size_t cap); /* after: " attn=self", after the score */
void chrome_mask_words(const ModelConfig *c, char *buf, size_t cap);

/* A tokenizer preset as the screen names it, in the reader's language ("words"
 * in English: the word -t takes, which the status line keeps). */
const char *chrome_tokenizer_name(TokPreset p);

#endif
