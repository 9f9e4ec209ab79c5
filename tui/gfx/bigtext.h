/* bigtext.h - large type on a terminal (issue 16's projector mode): text
 * drawn by pango (DejaVu Sans Bold, Nanum Gothic for Hangul, the system's
 * fallback after them) into a small bitmap, shown with half blocks (▀ ▄ █):
 * a character column is a pixel wide, a row two pixels tall, so the pixels
 * are about square on a terminal's 1:2 cells. */
#ifndef ATTNVIZ_BIGTEXT_H
#define ATTNVIZ_BIGTEXT_H

#include "canvas.h"

enum { BIGTEXT_PX = 14, BIGTEXT_ROWS = BIGTEXT_PX / 2 + 1 }; /* the font's pixel size; rows a line takes */

/* The columns text takes in large type (0 when it cannot be drawn, pango
 * not installed included: gfx.h). */
int bigtext_width(const char *text);
/* Draws text in large type at (y, x), at most w columns and BIGTEXT_ROWS
 * rows. Returns the columns drawn, or 0 when it does not fit in w (nothing
 * drawn then: the caller writes it in normal type). */
int bigtext_draw(Canvas *cv, int y, int x, int w, const char *text, Style st);

#endif
