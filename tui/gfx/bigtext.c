/* bigtext.c - see bigtext.h. */
#include "bigtext.h"

#include <string.h>

#include "gfx.h"

#define BIG_FONT "DejaVu Sans Bold, NanumGothic Bold, Nanum Gothic Bold, sans-serif Bold"

/* The text's layout for cr, on a font map of its own (freed with the
 * layout: pango's per-thread default keeps every font until exit). */
static PangoLayout *layout_of(cairo_t *cr, const char *text) {
    PangoFontMap *fm = pango_cairo_font_map_new();
    PangoContext *ctx = pango_font_map_create_context(fm);
    g_object_unref(fm);
    pango_cairo_update_context(cr, ctx);
    PangoLayout *lay = pango_layout_new(ctx);
    g_object_unref(ctx); /* the layout holds it */
    PangoFontDescription *fd = pango_font_description_from_string(BIG_FONT);
    pango_font_description_set_absolute_size(fd, BIGTEXT_PX * PANGO_SCALE);
    pango_layout_set_font_description(lay, fd);
    pango_font_description_free(fd);
    pango_layout_set_text(lay, text, -1);
    return lay;
}

int bigtext_width(const char *text) {
    if (gfx_load(NULL)) return 0; /* no large type without pango: the caller writes the text */
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_A8, 1, 1);
    cairo_t *cr = cairo_create(s);
    PangoLayout *lay = layout_of(cr, text);
    int w, h;
    pango_layout_get_pixel_size(lay, &w, &h);
    g_object_unref(lay);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    return w;
}

int bigtext_draw(Canvas *cv, int y, int x, int w, const char *text, Style st) {
    int pw = bigtext_width(text), ph = 2 * BIGTEXT_ROWS; /* 0 without pango (gfx.h) */
    if (pw <= 0 || pw > w || x + pw > cv->w || y + BIGTEXT_ROWS > cv->h) return 0;
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_A8, pw, ph);
    cairo_t *cr = cairo_create(s);
    cairo_font_options_t *fo = cairo_font_options_create();
    cairo_font_options_set_antialias(fo, CAIRO_ANTIALIAS_GRAY);
    cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_FULL);
    PangoLayout *lay = layout_of(cr, text);
    pango_cairo_context_set_font_options(pango_layout_get_context(lay), fo);
    pango_layout_context_changed(lay);
    cairo_font_options_destroy(fo);
    int lw, lh;
    pango_layout_get_pixel_size(lay, &lw, &lh);
    cairo_move_to(cr, 0, (ph - lh) / 2.0);
    pango_cairo_show_layout(cr, lay);
    g_object_unref(lay);
    cairo_destroy(cr);
    cairo_surface_flush(s);
    const unsigned char *px = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s);
    for (int r = 0; r < BIGTEXT_ROWS; r++)
        for (int c = 0; c < pw; c++) {
            int top = px[(size_t)(2 * r) * stride + c] >= 110, bot = px[(size_t)(2 * r + 1) * stride + c] >= 110;
            const char *g = top && bot ? "\xe2\x96\x88" : top ? "\xe2\x96\x80" : bot ? "\xe2\x96\x84" : " ";
            cv_text(cv, y + r, x + c, g, 1, st);
        }
    cairo_surface_destroy(s);
    return pw;
}
