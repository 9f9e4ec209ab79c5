/* picture.h - a canvas (what the terminal shows) as a picture (issue 15):
 * SVG, PNG or a self-contained HTML page, same cells, colours and glyphs.
 *
 * Geometry: a cell is PIC_CELL_W x PIC_CELL_H pixels (CSS px in SVG and
 * HTML, pixels in the PNG), the text 16 px DejaVu Sans Mono with Nanum Gothic
 * Coding for Hangul (a wide character spans two cells) and the system's
 * fallback after them. Every glyph is placed at its own cell, so nothing
 * drifts whatever the font's advance. Block elements (U+2580..U+259F: █ ▀ ▄
 * ▌ ▐, the eighths, ░ ▒ ▓ as 25/50/75% of the foreground over the background)
 * are drawn as rectangles, as terminals draw them, so a heatmap's cells meet
 * without seams. Bold is bold, underline a line (under blanks too), dim the foreground halfway
 * to the background, reverse swaps them.
 *
 * Colours: xterm's 256-colour palette (0..15 xterm's defaults, the 6x6x6
 * cube, the grey ramp); the terminal's own foreground and background (-1)
 * are the theme's: light grey on black (dark), black on white (light).
 *
 * SVG and HTML are written here (they are text: every label escaped for XML:
 * & < > " ', and the bytes a canvas never holds refused); the PNG is drawn by
 * cairo and pango (loaded by the first PNG: gfx.h). Nothing refers to
 * anything outside the file. */
#ifndef ATTNVIZ_PICTURE_H
#define ATTNVIZ_PICTURE_H

#include <stddef.h>

#include "canvas.h"
#include "error.h"

enum { PIC_CELL_W = 10, PIC_CELL_H = 20 };

/* The cell cursor (ST_CURSOR) is not reversed as on the terminal, which
 * would swap the value's colour for its number's: the cells keep their
 * colours and a frame PIC_CURSOR_LINE pixels wide, in the cells'
 * foreground, is drawn inside their edges. */
enum { PIC_CURSOR_LINE = 2 };

typedef enum { PIC_SVG = 0, PIC_PNG, PIC_HTML, PIC_PDF } PictureFormat;

/* The format a file name asks for by its extension (.svg, .png, .html or
 * .htm, .pdf; any case): 0, or -1 when it has none of them. */
int picture_format_of(const char *path, PictureFormat *fmt);
const char *picture_format_name(PictureFormat fmt); /* "svg", ... */

/* The canvas as a picture in a new buffer *out of *len bytes (caller frees).
 * dark: the theme's default colours. PIC_PDF is not a screen format (-1).
 * 0, or -1 with one line in err (a PNG without cairo or pango: gfx.h). */
int picture_render(const Canvas *cv, int dark, PictureFormat fmt, unsigned char **out, size_t *len, AvError *err);

/* The colour a cell's style gives its background and its foreground, as the
 * picture draws them (reverse and dim applied): for the tests. */
void picture_cell_colors(const Cell *c, int dark, unsigned char bg[3], unsigned char fg[3]);
/* An xterm-256 index (or -1: the theme's default fg or bg) as RGB. */
void picture_rgb(int index, int dark, int is_fg, unsigned char rgb[3]);

#endif
