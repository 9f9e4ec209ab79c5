/* canvas.h - the drawing surface every view draws on: a grid of cells, each a
 * character (with its combining marks), its width and a style.
 *
 * Two back ends read the same grid: screen.c copies it into ncurses (which
 * sends only the cells that changed), and cv_render turns it into plain text
 * or ANSI-coloured text for --once and the tests. So a test of a rendered
 * canvas is a test of what the user sees. */
#ifndef ATTNVIZ_CANVAS_H
#define ATTNVIZ_CANVAS_H

#include <stddef.h>

#include "palette.h"

/* ST_CURSOR marks the cell cursor: reverse video on the terminal (which has
 * no other way to frame a cell); the pictures (picture.h) keep the cell's
 * colours and draw a frame round it, and cv_render's ANSI text (--once)
 * keeps them and underlines it, so an export never hides the value the
 * cursor is on. */
enum { ST_BOLD = 1, ST_DIM = 2, ST_REVERSE = 4, ST_UNDERLINE = 8, ST_CURSOR = 16 };

typedef struct {
    short fg, bg;        /* colour index (xterm-256 or 0..7), -1 = the terminal's default */
    unsigned short attr; /* ST_* flags */
} Style;

static inline Style style_plain(void) {
    Style s = {-1, -1, 0};
    return s;
}
static inline Style style_attr(unsigned short attr) {
    Style s = {-1, -1, attr};
    return s;
}

typedef struct {
    char ch[16];         /* UTF-8: one character and its combining marks; "" for the right half of a wide one */
    unsigned char width; /* 1 or 2; 0 for the right half of a wide character */
    Style st;
} Cell;

typedef struct {
    int w, h;
    Cell *cells; /* h rows of w cells */
    size_t cap;  /* cells allocated (at least w * h) */
    int clipped; /* cv_text calls whose text ran past the right edge (not blanks): a test's count of cut lines */
    int clip_y;  /* the row of the last of them */
} Canvas;

/* A w x h canvas of blanks. NULL when out of memory. */
Canvas *cv_new(int w, int h);
void cv_free(Canvas *cv);                /* NULL-safe */
int cv_resize(Canvas *cv, int w, int h); /* clears; -1 when out of memory */
void cv_clear(Canvas *cv);

static inline Cell *cv_cell(Canvas *cv, int y, int x) { return &cv->cells[(size_t)y * cv->w + x]; }

/* Writes UTF-8 text at (y, x), at most max_cols columns (and never past the
 * right edge). A wide character that would not fit whole is replaced by a
 * space. Unsafe characters (control, bidi) are drawn as '?': callers escape
 * labels first (text_safe_label). Returns the columns written. */
int cv_text(Canvas *cv, int y, int x, const char *s, int max_cols, Style st);

/* Right-aligns s in a field of `cols` columns ending at x + cols. */
void cv_text_right(Canvas *cv, int y, int x, const char *s, int cols, Style st);
/* s wrapped at spaces into lines of at most max_cols columns from (y, x),
 * the lines after the first `indent` columns further in (a word wider than a
 * line is broken); returns the rows written (at least 1). With cv NULL it
 * only counts them. */
int cv_text_wrap(Canvas *cv, int y, int x, const char *s, int max_cols, int indent, Style st);

/* Repeats a one-column glyph over n columns. */
void cv_fill(Canvas *cv, int y, int x, int n, const char *glyph, Style st);

/* printf into the canvas (at most 512 bytes); returns the columns written. */
int cv_printf(Canvas *cv, int y, int x, int max_cols, Style st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

/* Copies the h x w window of src at (sy, sx) to dst at (dy, dx), clipped to
 * both canvases. Half of a wide character cut by the window becomes a blank. */
void cv_blit(Canvas *dst, int dy, int dx, const Canvas *src, int sy, int sx, int h, int w);

/* The canvas as text, one line per row, trailing blanks removed, each line
 * ending in '\n'. With ansi, SGR sequences carry the styles for `tier`
 * (TIER_NONE: attributes only). Caller frees. */
char *cv_render(const Canvas *cv, int ansi, ColorTier tier);

#endif
