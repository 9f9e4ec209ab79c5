/* page.h - a document drawn at its natural size on an off-screen canvas
 * (the pipeline view, the cell page, the help), of which the screen shows a
 * window scrolled with the arrows, PgUp/PgDn, Home and End. */
#ifndef ATTNVIZ_PAGE_H
#define ATTNVIZ_PAGE_H

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

/* The arrows, PgUp/PgDn, Home and End scroll a page: 1 when act was one. */
int page_scroll(App *a, Action act);

/* Closes the page over the view (the scroll starts again at the top). */
void page_close(App *a);

/* A page's natural height for --once: it scrolls, so a screenful. */
int page_natural_height(const App *a, int w);

#endif
