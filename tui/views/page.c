/* page.c - see page.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chrome.h"
#include "cli.h"
#include "formula.h"
#include "i18n.h"
#include "keymap.h"
#include "page.h"
#include "text.h"
#include "view.h"
#include "widgets.h"

#define G view_glyphs

// ----------------------------------------------------------------------------
// a scrolled window onto a document

int page_rows(App *a, int doc_h, int h, int scrolls) {
    if (h < 1) return 0;
    /* A page that scrolls keeps its last row for the "lines i-j of n" mark,
     * so that the mark never covers a line of the page. */
    int rows = (scrolls || doc_h > h) && h > 1 ? h - 1 : h;
    int max_y = doc_h - rows > 0 ? doc_h - rows : 0;
    if (a->doc_y > max_y) a->doc_y = max_y;
    a->layout.rows = rows; /* the page size of PgUp/PgDn */
    return rows;
}

void page_lines_mark(const App *a, char *buf, size_t cap, int rows, int doc_h) {
    snprintf(buf, cap, _(" lines %d-%d of %d "), a->doc_y + 1, a->doc_y + rows < doc_h ? a->doc_y + rows : doc_h,
             doc_h);
}

void page_show(App *a, Canvas *cv, const Canvas *doc, int y0, int h) {
    if (h < 1) return;
    int rows = page_rows(a, doc->h, h, doc->w > cv->w);
    int max_y = doc->h - rows > 0 ? doc->h - rows : 0;
    int max_x = doc->w - cv->w > 0 ? doc->w - cv->w : 0;
    if (a->doc_x > max_x) a->doc_x = max_x;
    cv_blit(cv, y0, 0, doc, a->doc_y, a->doc_x, rows, cv->w);
    h = rows + (rows < h); /* the mark's row: the last */
    if (max_y > 0 || max_x > 0) {
        char buf[128];
        page_lines_mark(a, buf, sizeof buf, rows, doc->h);
        if (max_x > 0) snprintf(buf + strlen(buf), sizeof buf - strlen(buf), _("cols %d+ "), a->doc_x + 1);
        cv_text_right(cv, y0 + h - 1, 0, buf, cv->w, style_attr(ST_REVERSE));
    }
}

/* The arrows, PgUp/PgDn, Home and End scroll a page: 1 when act was one. */
int page_scroll(App *a, Action act) {
    int page = a->layout.rows > 2 ? a->layout.rows - 2 : 10;
    switch (act) {
    case ACT_UP: a->doc_y--; break;
    case ACT_DOWN: a->doc_y++; break;
    case ACT_LEFT: a->doc_x -= 8; break;
    case ACT_RIGHT: a->doc_x += 8; break;
    case ACT_PAGE_UP: a->doc_y -= page; break;
    case ACT_PAGE_DOWN: a->doc_y += page; break;
    case ACT_HOME: a->doc_y = a->doc_x = 0; break;
    case ACT_END: a->doc_y = 1 << 20; break;
    default: return 0;
    }
    if (a->doc_y < 0) a->doc_y = 0;
    if (a->doc_x < 0) a->doc_x = 0;
    return 1;
}

void page_close(App *a) {
    a->overlay = OVERLAY_NONE;
    a->doc_y = a->doc_x = 0;
}

/* A page's natural height for --once: it scrolls, so a screenful. */
int page_natural_height(const App *a, int w) {
    (void)a, (void)w;
    return 60;
}

/* The app's page canvas as a blank w x h (its cells are kept between frames:
 * a frame allocates only when the page grows); NULL when out of memory. */
Canvas *page_canvas(App *a, int w, int h) {
    if (!a->doc) return a->doc = cv_new(w, h);
    return cv_resize(a->doc, w, h) == 0 ? a->doc : NULL;
}
