/* page.h - a document drawn at its natural size on an off-screen canvas
 * (the pipeline view, the cell page, the help), of which the screen shows a
 * window scrolled with the arrows, PgUp/PgDn, Home and End. */
#ifndef ATTNVIZ_PAGE_H
#define ATTNVIZ_PAGE_H

#include <stddef.h>

#include "app.h"
#include "canvas.h"
#include "keymap.h"

/* Columns of a number cell in a document. */
enum { PAGE_CW = 7 };

/* The app's document canvas as a blank w x h (its cells are kept between
 * frames: a frame allocates only when the page grows); NULL when out of
 * memory. */
Canvas *page_canvas(App *a, int w, int h);

/* Rows [y0, y0 + h) of cv show doc from the app's scroll (clamped), with a
 * "lines i-j of n" mark when it does not fit. */
void page_show(App *a, Canvas *cv, const Canvas *doc, int y0, int h);

/* Clamps the app's vertical scroll for a document of doc_h rows shown on h
 * rows, of which the last is kept for the mark when the page scrolls (doc_h
 * > h, or scrolls set: it scrolls sideways), and sets the page size of
 * PgUp/PgDn. Returns the rows of the document shown. */
int page_rows(App *a, int doc_h, int h, int scrolls);

/* The mark " lines i-j of n " of rows shown from the app's scroll. */
void page_lines_mark(const App *a, char *buf, size_t cap, int rows, int doc_h);

/* The arrows, PgUp/PgDn, Home and End scroll a page: 1 when act was one. */
int page_scroll(App *a, Action act);

/* Closes the page over the view (the scroll starts again at the top). */
void page_close(App *a);

/* A page's natural height for --once: it scrolls, so a screenful. */
int page_natural_height(const App *a, int w);

#endif
