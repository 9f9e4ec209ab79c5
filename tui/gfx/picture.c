/* picture.c - see picture.h. */
#include "picture.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gfx.h"
#include "i18n.h"
#include "strbuf.h"
#include "utf8.h"

#define FONT_FAMILY "DejaVu Sans Mono, NanumGothicCoding, monospace"
#define FONT_PX     16

// ----------------------------------------------------------------------------
// colours

void picture_rgb(int index, int dark, int is_fg, unsigned char rgb[3]) {
    static const unsigned char base[16][3] = {{0, 0, 0},       {205, 0, 0},   {0, 205, 0},   {205, 205, 0},
                                              {0, 0, 238},     {205, 0, 205}, {0, 205, 205}, {229, 229, 229},
                                              {127, 127, 127}, {255, 0, 0},   {0, 255, 0},   {255, 255, 0},
                                              {92, 92, 255},   {255, 0, 255}, {0, 255, 255}, {255, 255, 255}};
    if (index < 0 || index > 255) { /* the theme's own */
        unsigned char v = (unsigned char)(dark ? (is_fg ? 229 : 0) : (is_fg ? 0 : 255));
        rgb[0] = rgb[1] = rgb[2] = v;
        return;
    }
    if (index < 16) {
        memcpy(rgb, base[index], 3);
        return;
    }
    if (index < 232) {
        static const unsigned char level[6] = {0, 95, 135, 175, 215, 255};
        int k = index - 16;
        rgb[0] = level[k / 36], rgb[1] = level[k / 6 % 6], rgb[2] = level[k % 6];
        return;
    }
    rgb[0] = rgb[1] = rgb[2] = (unsigned char)(8 + 10 * (index - 232));
}

void picture_cell_colors(const Cell *c, int dark, unsigned char bg[3], unsigned char fg[3]) {
    int reverse = (c->st.attr & ST_REVERSE) != 0;
    picture_rgb(reverse ? c->st.fg : c->st.bg, dark, reverse, bg);
    picture_rgb(reverse ? c->st.bg : c->st.fg, dark, !reverse, fg);
    if (c->st.attr & ST_DIM)
        for (int i = 0; i < 3; i++) fg[i] = (unsigned char)((fg[i] + bg[i] + 1) / 2);
}

// ----------------------------------------------------------------------------
// block elements: the rectangles (in eighths of the cell) and the share of
// the foreground (shades)

typedef struct {
    int x0, y0, x1, y1; /* eighths of the cell, from the top left */
    int alpha;          /* the foreground's share in 1/4: 4 solid, 1..3 the shades */
} Block;

/* The block element cp draws, or 0 when it is none of them. Quadrants and
 * the rest of U+2596..U+259F are left to the font. */
static int block_of(uint32_t cp, Block *b) {
    *b = (Block){0, 0, 8, 8, 4};
    if (cp == 0x2580) b->y1 = 4;                                           /* ▀ upper half */
    else if (cp >= 0x2581 && cp <= 0x2588) b->y0 = 8 - (int)(cp - 0x2580); /* ▁..█ lower eighths */
    else if (cp >= 0x2589 && cp <= 0x258F) b->x1 = 8 - (int)(cp - 0x2588); /* ▉..▏ left eighths */
    else if (cp == 0x2590) b->x0 = 4;                                      /* ▐ right half */
    else if (cp >= 0x2591 && cp <= 0x2593) b->alpha = (int)(cp - 0x2590);  /* ░ ▒ ▓ */
    else if (cp == 0x2594) b->y1 = 1;                                      /* ▔ upper eighth */
    else if (cp == 0x2595) b->x0 = 7;                                      /* ▕ right eighth */
    else return 0;
    return 1;
}

/* The first code point of a cell, or 0 for a blank or the right half of a wide one. */
static uint32_t cell_cp(const Cell *c) {
    if (!c->ch[0]) return 0;
    uint32_t cp;
    utf8_decode(c->ch, strlen(c->ch), &cp);
    return cp;
}

static void mix(unsigned char out[3], const unsigned char fg[3], const unsigned char bg[3], int alpha4) {
    for (int i = 0; i < 3; i++) out[i] = (unsigned char)((fg[i] * alpha4 + bg[i] * (4 - alpha4) + 2) / 4);
}

// ----------------------------------------------------------------------------
// a growing buffer

static void buf_printf(StrBuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void buf_printf(StrBuf *b, const char *fmt, ...) {
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0) strbuf_add(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* Text for XML (SVG and HTML): & < > " ' as entities; a code point a
 * terminal would not show (a control, a bidi override) as U+FFFD, which
 * the canvas never holds anyway (cv_text draws them as '?'). */
static void buf_xml(StrBuf *b, const char *s) {
    size_t len = strlen(s);
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        int k = utf8_decode(s + i, len - i, &cp);
        switch (cp) {
        case '&': strbuf_add(b, "&amp;", 5); break;
        case '<': strbuf_add(b, "&lt;", 4); break;
        case '>': strbuf_add(b, "&gt;", 4); break;
        case '"': strbuf_add(b, "&quot;", 6); break;
        case '\'': strbuf_add(b, "&#39;", 5); break;
        default:
            if (cp == UTF8_INVALID || utf8_is_unsafe(cp)) strbuf_add(b, "\xEF\xBF\xBD", 3);
            else strbuf_add(b, s + i, (size_t)k);
        }
        i += (size_t)k;
    }
}

static void hex(char out[8], const unsigned char rgb[3]) { snprintf(out, 8, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]); }

// ----------------------------------------------------------------------------
// the cell cursor: a frame, the cell keeping its colour

/* The next run of cursor cells (ST_CURSOR) in row y from column *x: its
 * columns [*x, *x1), or 0 when the row has no more. */
static int cursor_run(const Canvas *cv, int y, int *x, int *x1) {
    while (*x < cv->w && !(cv_cell((Canvas *)cv, y, *x)->st.attr & ST_CURSOR)) (*x)++;
    if (*x >= cv->w) return 0;
    *x1 = *x;
    while (*x1 < cv->w && (cv_cell((Canvas *)cv, y, *x1)->st.attr & ST_CURSOR)) (*x1)++;
    return 1;
}

/* The frame's colour: the cell's foreground, which its ramp makes readable
 * on its background (the terminal's own foreground without colour). */
static void cursor_colour(const Canvas *cv, int y, int x, int dark, unsigned char rgb[3]) {
    unsigned char bg[3];
    picture_cell_colors(cv_cell((Canvas *)cv, y, x), dark, bg, rgb);
}

static void svg_cursor_frames(StrBuf *b, const Canvas *cv, int dark) {
    for (int y = 0; y < cv->h; y++)
        for (int x = 0, x1; cursor_run(cv, y, &x, &x1); x = x1) {
            unsigned char fg[3];
            char hx[8];
            cursor_colour(cv, y, x, dark, fg);
            hex(hx, fg);
            buf_printf(b,
                       "<rect class=\"cursor\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
                       "stroke=\"%s\" stroke-width=\"%d\"/>\n",
                       x * PIC_CELL_W + PIC_CURSOR_LINE / 2, y * PIC_CELL_H + PIC_CURSOR_LINE / 2,
                       (x1 - x) * PIC_CELL_W - PIC_CURSOR_LINE, PIC_CELL_H - PIC_CURSOR_LINE, hx, PIC_CURSOR_LINE);
        }
}

// ----------------------------------------------------------------------------
// SVG

/* Backgrounds in runs of one colour, then block elements as rectangles,
 * then the text: a <text> per run of cells of one style, each glyph at its
 * own x. */
static void svg_of(StrBuf *b, const Canvas *cv, int dark) {
    int W = cv->w * PIC_CELL_W, H = cv->h * PIC_CELL_H;
    unsigned char bg0[3], fg0[3];
    picture_rgb(-1, dark, 0, bg0);
    picture_rgb(-1, dark, 1, fg0);
    char h0[8];
    hex(h0, bg0);
    buf_printf(b,
               "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n"
               "<rect width=\"%d\" height=\"%d\" fill=\"%s\"/>\n",
               W, H, W, H, W, H, h0);
    buf_printf(b, "<g shape-rendering=\"crispEdges\">\n");
    for (int y = 0; y < cv->h; y++)
        for (int x = 0; x < cv->w;) {
            unsigned char bg[3], fg[3];
            picture_cell_colors(cv_cell((Canvas *)cv, y, x), dark, bg, fg);
            int x1 = x + 1;
            for (; x1 < cv->w; x1++) {
                unsigned char b2[3], f2[3];
                picture_cell_colors(cv_cell((Canvas *)cv, y, x1), dark, b2, f2);
                if (memcmp(b2, bg, 3)) break;
            }
            if (memcmp(bg, bg0, 3)) {
                char hx[8];
                hex(hx, bg);
                buf_printf(b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n", x * PIC_CELL_W,
                           y * PIC_CELL_H, (x1 - x) * PIC_CELL_W, PIC_CELL_H, hx);
            }
            x = x1;
        }
    for (int y = 0; y < cv->h; y++)
        for (int x = 0; x < cv->w; x++) {
            const Cell *c = cv_cell((Canvas *)cv, y, x);
            Block k;
            if ((c->st.attr & ST_UNDERLINE) && (c->width || c->ch[0])) { /* under blanks too, as a terminal */
                unsigned char bg[3], fg[3];
                char hx[8];
                picture_cell_colors(c, dark, bg, fg);
                hex(hx, fg);
                buf_printf(b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"1\" fill=\"%s\"/>\n", x * PIC_CELL_W,
                           y * PIC_CELL_H + PIC_CELL_H - 3, (c->width == 2 ? 2 : 1) * PIC_CELL_W, hx);
            }
            if (!block_of(cell_cp(c), &k)) continue;
            unsigned char bg[3], fg[3], col[3];
            picture_cell_colors(c, dark, bg, fg);
            mix(col, fg, bg, k.alpha);
            char hx[8];
            hex(hx, col);
            buf_printf(b, "<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" fill=\"%s\"/>\n",
                       x * PIC_CELL_W + k.x0 * PIC_CELL_W / 8.0, y * PIC_CELL_H + k.y0 * PIC_CELL_H / 8.0,
                       (k.x1 - k.x0) * PIC_CELL_W / 8.0, (k.y1 - k.y0) * PIC_CELL_H / 8.0, hx);
        }
    svg_cursor_frames(b, cv, dark);
    buf_printf(b,
               "</g>\n<g font-family=\"DejaVu Sans Mono, NanumGothicCoding, Nanum Gothic Coding, Noto Sans Mono CJK "
               "KR, monospace\" font-size=\"%d\" xml:space=\"preserve\">\n",
               FONT_PX);
    int base = PIC_CELL_H - 5; /* the baseline in the cell: descenders inside */
    for (int y = 0; y < cv->h; y++)
        for (int x = 0; x < cv->w;) {
            const Cell *c = cv_cell((Canvas *)cv, y, x);
            Block k;
            uint32_t cp = cell_cp(c);
            if (!cp || cp == ' ' || block_of(cp, &k)) {
                x++;
                continue;
            }
            /* a run of cells of this style with glyphs */
            int x1 = x;
            StrBuf xs = {0}, text = {0};
            while (x1 < cv->w) {
                const Cell *d = cv_cell((Canvas *)cv, y, x1);
                uint32_t dp = cell_cp(d);
                if (d->st.fg != c->st.fg || d->st.bg != c->st.bg || d->st.attr != c->st.attr) break;
                if (!dp || dp == ' ' || block_of(dp, &k)) break; /* (a wide one's right half is skipped below) */
                /* each glyph centred in its cell(s): a chunk of its own (text-anchor) */
                buf_printf(&xs, "%s%d", xs.n ? " " : "",
                           x1 * PIC_CELL_W + (d->width == 2 ? PIC_CELL_W : PIC_CELL_W / 2));
                buf_xml(&text, d->ch);
                x1 += d->width == 2 ? 2 : 1;
            }
            unsigned char bg[3], fg[3];
            picture_cell_colors(c, dark, bg, fg);
            char hx[8];
            hex(hx, fg);
            buf_printf(b, "<text x=\"%s\" y=\"%d\" text-anchor=\"middle\" fill=\"%s\"%s>", xs.p ? xs.p : "0",
                       y * PIC_CELL_H + base, hx, (c->st.attr & ST_BOLD) ? " font-weight=\"bold\"" : "");
            if (text.p) strbuf_add(b, text.p, text.n);
            strbuf_add(b, "</text>\n", 8);
            b->oom |= xs.oom | text.oom;
            free(xs.p), free(text.p);
            x = x1 > x ? x1 : x + 1;
        }
    strbuf_add(b, "</g>\n</svg>\n", 12);
}

// ----------------------------------------------------------------------------
// HTML: a <pre> of spans, one per run of one style

static void html_of(StrBuf *b, const Canvas *cv, int dark) {
    unsigned char bg0[3], fg0[3];
    picture_rgb(-1, dark, 0, bg0);
    picture_rgb(-1, dark, 1, fg0);
    char hb[8], hf[8];
    hex(hb, bg0), hex(hf, fg0);
    buf_printf(b,
               "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>attnviz</title>\n"
               "<style>body{margin:0;background:%s}pre{margin:0;padding:0;color:%s;background:%s;"
               "font:%dpx/%dpx 'DejaVu Sans Mono','NanumGothicCoding','Nanum Gothic Coding',monospace;}"
               "span{white-space:pre}</style></head>\n<body><pre>",
               hb, hf, hb, FONT_PX, PIC_CELL_H);
    for (int y = 0; y < cv->h; y++) {
        for (int x = 0; x < cv->w;) {
            const Cell *c = cv_cell((Canvas *)cv, y, x);
            unsigned char bg[3], fg[3];
            picture_cell_colors(c, dark, bg, fg);
            char xb[8], xf[8];
            hex(xb, bg), hex(xf, fg);
            char frame[64] = ""; /* the cell cursor: a frame inside its cells, in its foreground */
            if (c->st.attr & ST_CURSOR)
                snprintf(frame, sizeof frame, ";outline:%dpx solid %s;outline-offset:-%dpx", PIC_CURSOR_LINE, xf,
                         PIC_CURSOR_LINE);
            buf_printf(b, "<span style=\"color:%s;background:%s%s%s%s\">", xf, xb,
                       (c->st.attr & ST_BOLD) ? ";font-weight:bold" : "",
                       (c->st.attr & ST_UNDERLINE) ? ";text-decoration:underline" : "", frame);
            int x1 = x;
            while (x1 < cv->w) {
                const Cell *d = cv_cell((Canvas *)cv, y, x1);
                if (d->st.fg != c->st.fg || d->st.bg != c->st.bg || d->st.attr != c->st.attr) break;
                if (d->ch[0]) buf_xml(b, d->ch);
                else if (d->width != 0) strbuf_add(b, " ", 1);
                x1++;
            }
            strbuf_add(b, "</span>", 7);
            x = x1;
        }
        strbuf_add(b, "\n", 1);
    }
    strbuf_add(b, "</pre></body></html>\n", 21);
}

// ----------------------------------------------------------------------------
// PNG: cairo and pango

static cairo_status_t png_write(void *closure, const unsigned char *data, unsigned int length) {
    StrBuf *b = closure;
    strbuf_add(b, (const char *)data, length);
    return b->oom ? CAIRO_STATUS_NO_MEMORY : CAIRO_STATUS_SUCCESS;
}

static void set_rgb(cairo_t *cr, const unsigned char c[3]) {
    cairo_set_source_rgb(cr, c[0] / 255.0, c[1] / 255.0, c[2] / 255.0);
}

static int png_of(StrBuf *b, const Canvas *cv, int dark, AvError *err) {
    if (gfx_load(err)) return -1;
    int W = cv->w * PIC_CELL_W, H = cv->h * PIC_CELL_H;
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W > 0 ? W : 1, H > 0 ? H : 1);
    cairo_t *cr = cairo_create(s);
    /* A font map of the picture's own, freed with it: pango's per-thread
     * default keeps every font it loaded until exit (leaks to valgrind). */
    PangoFontMap *fm = pango_cairo_font_map_new();
    PangoContext *ctx = pango_font_map_create_context(fm);
    g_object_unref(fm);
    pango_cairo_update_context(cr, ctx);
    PangoLayout *lay = pango_layout_new(ctx);
    PangoFontDescription *fd = pango_font_description_from_string(FONT_FAMILY);
    PangoFontDescription *fb = pango_font_description_from_string(FONT_FAMILY);
    pango_font_description_set_absolute_size(fd, FONT_PX * PANGO_SCALE);
    pango_font_description_set_absolute_size(fb, FONT_PX * PANGO_SCALE);
    pango_font_description_set_weight(fb, PANGO_WEIGHT_BOLD);
    cairo_font_options_t *fo = cairo_font_options_create();
    cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_SLIGHT);
    pango_cairo_context_set_font_options(ctx, fo);
    pango_layout_context_changed(lay);
    cairo_font_options_destroy(fo);
    unsigned char bg0[3];
    picture_rgb(-1, dark, 0, bg0);
    set_rgb(cr, bg0);
    cairo_paint(cr);
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE); /* the cells' rectangles meet exactly */
    for (int y = 0; y < cv->h; y++)
        for (int x = 0; x < cv->w; x++) {
            const Cell *c = cv_cell((Canvas *)cv, y, x);
            unsigned char bg[3], fg[3];
            picture_cell_colors(c, dark, bg, fg);
            int w = c->width == 2 ? 2 : 1;
            if (c->width == 0 && !c->ch[0] && x > 0) continue; /* drawn with its left half */
            set_rgb(cr, bg);
            cairo_rectangle(cr, x * PIC_CELL_W, y * PIC_CELL_H, w * PIC_CELL_W, PIC_CELL_H);
            cairo_fill(cr);
            uint32_t cp = cell_cp(c);
            Block k;
            if (c->st.attr & ST_UNDERLINE) { /* under blanks too, as a terminal draws it */
                set_rgb(cr, fg);
                cairo_rectangle(cr, x * PIC_CELL_W, y * PIC_CELL_H + PIC_CELL_H - 3, w * PIC_CELL_W, 1);
                cairo_fill(cr);
            }
            if (!cp || cp == ' ') continue;
            if (block_of(cp, &k)) {
                unsigned char col[3];
                mix(col, fg, bg, k.alpha);
                set_rgb(cr, col);
                cairo_rectangle(cr, x * PIC_CELL_W + k.x0 * PIC_CELL_W / 8.0, y * PIC_CELL_H + k.y0 * PIC_CELL_H / 8.0,
                                (k.x1 - k.x0) * PIC_CELL_W / 8.0, (k.y1 - k.y0) * PIC_CELL_H / 8.0);
                cairo_fill(cr);
                continue;
            }
            cairo_set_antialias(cr, CAIRO_ANTIALIAS_DEFAULT);
            pango_layout_set_font_description(lay, (c->st.attr & ST_BOLD) ? fb : fd);
            pango_layout_set_text(lay, c->ch, -1);
            int baseline = pango_layout_get_baseline(lay) / PANGO_SCALE, gw, gh;
            pango_layout_get_pixel_size(lay, &gw, &gh);
            set_rgb(cr, fg);
            /* A wide glyph (Hangul: Nanum Gothic Coding's 1 em) is narrower
             * than its two cells (1.2 em of DejaVu Sans Mono): widened to
             * fill them, as a terminal's CJK font does, so a word's
             * syllables do not stand apart like letters spaced out. */
            double sx = w == 2 && gw > 0 && gw < 2 * PIC_CELL_W ? 2.0 * PIC_CELL_W / gw : 1.0;
            if (sx > 1.25) sx = 1.25;
            cairo_save(cr);
            cairo_translate(cr, x * PIC_CELL_W + (w * PIC_CELL_W - gw * sx) / 2.0,
                            y * PIC_CELL_H + (PIC_CELL_H - 5) - baseline);
            cairo_scale(cr, sx, 1.0);
            cairo_move_to(cr, 0, 0);
            pango_cairo_show_layout(cr, lay);
            cairo_restore(cr);
            cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);
        }
    for (int y = 0; y < cv->h; y++)
        for (int x = 0, x1; cursor_run(cv, y, &x, &x1); x = x1) {
            unsigned char fg[3];
            cursor_colour(cv, y, x, dark, fg);
            set_rgb(cr, fg);
            cairo_set_line_width(cr, PIC_CURSOR_LINE);
            cairo_rectangle(cr, x * PIC_CELL_W + PIC_CURSOR_LINE / 2.0, y * PIC_CELL_H + PIC_CURSOR_LINE / 2.0,
                            (x1 - x) * PIC_CELL_W - PIC_CURSOR_LINE, PIC_CELL_H - PIC_CURSOR_LINE);
            cairo_stroke(cr);
        }
    pango_font_description_free(fd);
    pango_font_description_free(fb);
    g_object_unref(lay);
    g_object_unref(ctx);
    cairo_destroy(cr);
    cairo_surface_flush(s);
    cairo_status_t st = cairo_surface_write_to_png_stream(s, png_write, b);
    cairo_surface_destroy(s);
    if (st != CAIRO_STATUS_SUCCESS) return av_errorf(err, _("cannot draw the PNG: %s"), cairo_status_to_string(st));
    return 0;
}

// ----------------------------------------------------------------------------
// the entry

int picture_format_of(const char *path, PictureFormat *fmt) {
    const char *dot = strrchr(path, '.');
    if (!dot || strchr(dot, '/')) return -1;
    static const struct {
        const char *ext;
        PictureFormat f;
    } ext[] = {{".svg", PIC_SVG}, {".png", PIC_PNG}, {".html", PIC_HTML}, {".htm", PIC_HTML}, {".pdf", PIC_PDF}};
    for (size_t i = 0; i < sizeof ext / sizeof *ext; i++)
        if (strcasecmp(dot, ext[i].ext) == 0) {
            *fmt = ext[i].f;
            return 0;
        }
    return -1;
}

const char *picture_format_name(PictureFormat fmt) {
    static const char *const names[] = {"svg", "png", "html", "pdf"};
    return (unsigned)fmt < 4 ? names[fmt] : "?";
}

int picture_render(const Canvas *cv, int dark, PictureFormat fmt, unsigned char **out, size_t *len, AvError *err) {
    StrBuf b = {0};
    *out = NULL, *len = 0;
    if (fmt == PIC_PDF) return av_errorf(err, "%s", _("a screen picture is SVG, PNG or HTML (a PDF is a --figure)"));
    int rc = 0;
    if (fmt == PIC_SVG) svg_of(&b, cv, dark);
    else if (fmt == PIC_HTML) html_of(&b, cv, dark);
    else rc = png_of(&b, cv, dark, err);
    if (rc || b.oom) {
        free(b.p);
        return rc ? -1 : av_error_nomem(err, _("out of memory for the picture"));
    }
    *out = (unsigned char *)b.p, *len = b.n;
    return 0;
}
