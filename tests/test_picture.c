/* test_picture.c - screen pictures (tui/gfx/picture.c, issue 15): the heatmap
 * drawn on a canvas, written as PNG (decoded here with cairo) and as SVG
 * (rendered by headless Chromium, skipped with a line when it is not
 * installed), and the colour at several heatmap cells checked against the
 * colour the canvas gives them, masked cells included; the SVG and HTML
 * valid (xmllint) and escaped whatever the labels hold. */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "canvas.h"
#include "gfx.h"
#include "palette.h"
#include "picture.h"
#include "need.h"

static App app;

/* A causal seeded model's heatmap of `text` drawn on a w x h canvas. */
static Canvas *draw(Model **m, const char *text, int w, int h) {
    ModelConfig c;
    model_config_default(&c);
    c.mask = MASK_CAUSAL;
    *m = tu_model(text, &c);
    app_init(&app, *m, TIER_256, 0, 1, NULL);
    Canvas *cv = cv_new(w, h);
    assert_non_null(cv);
    app_draw(&app, cv);
    assert_true(app.layout.valid);
    return cv;
}

static void finish(Model *m, Canvas *cv) {
    app_free(&app);
    cv_free(cv);
    model_free(m);
}

typedef struct {
    int w, h, stride;
    unsigned char *px; /* cairo ARGB32/RGB24, native-endian words */
} Image;

static cairo_status_t read_mem(void *closure, unsigned char *data, unsigned int length) {
    const unsigned char **p = closure;
    memcpy(data, *p, length);
    *p += length;
    return CAIRO_STATUS_SUCCESS;
}

static void pixel(cairo_surface_t *s, int x, int y, unsigned char rgb[3]) {
    int stride = cairo_image_surface_get_stride(s);
    const unsigned char *row = cairo_image_surface_get_data(s) + (size_t)y * stride;
    uint32_t v;
    memcpy(&v, row + 4 * x, 4);
    rgb[0] = (unsigned char)(v >> 16), rgb[1] = (unsigned char)(v >> 8), rgb[2] = (unsigned char)v;
}

static void assert_rgb_near(const unsigned char got[3], const unsigned char want[3], int tol, const char *what) {
    for (int i = 0; i < 3; i++)
        if (abs(got[i] - want[i]) > tol)
            fail_msg("%s: #%02x%02x%02x, expected #%02x%02x%02x", what, got[0], got[1], got[2], want[0], want[1],
                     want[2]);
}

/* The sample points: the top row of a heatmap cell's pixels, at its middle
 * (above the number's glyphs), for every cell of the first rows; a causal
 * mask hides j > i. */
static void check_cells(cairo_surface_t *s, const Canvas *cv, int tol, const char *what) {
    const HeatLayout *L = &app.layout;
    int checked = 0, masked = 0;
    for (int i = 0; i < L->rows && i < 5; i++)
        for (int j = 0; j < L->cols && j < 5; j++) {
            int y = L->y0 + i * L->ch, x = L->x0 + j * L->cw;
            const Cell *c = &cv->cells[(size_t)y * cv->w + x + L->cw / 2];
            unsigned char bg[3], fg[3], got[3];
            picture_cell_colors(c, 1, bg, fg);
            pixel(s, (x * PIC_CELL_W) + (L->cw * PIC_CELL_W) / 2, y * PIC_CELL_H + 1, got);
            char where[96];
            snprintf(where, sizeof where, "%s, cell (%d, %d)", what, i, j);
            assert_rgb_near(got, bg, tol, where);
            checked++;
            if (j > i) { /* masked: the terminal's background, no ramp colour */
                unsigned char dflt[3];
                picture_rgb(-1, 1, 0, dflt);
                assert_rgb_near(got, dflt, tol, where);
                masked++;
            } else { /* its weight's colour, the cursor's (0, 0) too (a frame, not reversed) */
                unsigned char want[3];
                picture_rgb(palette_seq(TIER_256, app.m->head[0].weights[(size_t)i * app.m->n_k + j]).bg, 1, 0, want);
                assert_rgb_near(bg, want, 0, where);
            }
        }
    assert_true(checked >= 9 && masked >= 3);
}

static void test_png_cells(void **state) {
    (void)state;
    Model *m;
    Canvas *cv = draw(&m, "the cat sat on the mat today", 100, 30);
    unsigned char *buf;
    size_t len;
    AvError err = {0};
    assert_int_equal(picture_render(cv, 1, PIC_PNG, &buf, &len, &err), 0);
    assert_true(len > 8 && memcmp(buf, "\x89PNG", 4) == 0);
    const unsigned char *p = buf;
    cairo_surface_t *s = cairo_image_surface_create_from_png_stream(read_mem, &p);
    assert_int_equal(cairo_surface_status(s), CAIRO_STATUS_SUCCESS);
    assert_int_equal(cairo_image_surface_get_width(s), 100 * PIC_CELL_W);
    assert_int_equal(cairo_image_surface_get_height(s), 30 * PIC_CELL_H);
    check_cells(s, cv, 0, "PNG");
    cairo_surface_destroy(s);
    free(buf);
    finish(m, cv);
}

static int have(const char *cmd) {
    char buf[256];
    snprintf(buf, sizeof buf, "command -v %s >/dev/null 2>&1", cmd);
    return system(buf) == 0;
}

static void write_file(const char *path, const unsigned char *p, size_t n) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(p, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

static void test_svg_in_chromium(void **state) {
    (void)state;
    Model *m;
    Canvas *cv = draw(&m, "the cat sat on the mat today", 100, 30);
    unsigned char *buf;
    size_t len;
    AvError err = {0};
    assert_int_equal(picture_render(cv, 1, PIC_SVG, &buf, &len, &err), 0);
    char dir[] = "/tmp/attnviz-picture-XXXXXX", svg[128], png[128], cmd[1024];
    assert_non_null(mkdtemp(dir));
    snprintf(svg, sizeof svg, "%s/p.svg", dir);
    snprintf(png, sizeof png, "%s/shot.png", dir);
    write_file(svg, buf, len);
    free(buf);
    if (have("xmllint")) {
        snprintf(cmd, sizeof cmd, "xmllint --noout '%s'", svg);
        assert_int_equal(system(cmd), 0);
    } else need_missing("xmllint not found (apt-get install libxml2-utils)");
    if (!have("chromium")) need_missing("chromium not found (apt-get install chromium)");
    else {
        snprintf(cmd, sizeof cmd,
                 "timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
                 "--disable-background-networking --disable-component-update --disable-sync --hide-scrollbars "
                 "--user-data-dir='%s/profile' --force-device-scale-factor=1 --window-size=%d,%d "
                 "--screenshot='%s' 'file://%s' >/dev/null 2>&1",
                 dir, 100 * PIC_CELL_W, 30 * PIC_CELL_H, png, svg);
        assert_int_equal(system(cmd), 0);
        cairo_surface_t *s = cairo_image_surface_create_from_png(png);
        assert_int_equal(cairo_surface_status(s), CAIRO_STATUS_SUCCESS);
        check_cells(s, cv, 2, "SVG in Chromium");
        cairo_surface_destroy(s);
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    finish(m, cv);
}

/* Labels of every kind: the SVG and HTML are valid and hold none raw. */
static void test_escaping(void **state) {
    (void)state;
    Model *m;
    Canvas *cv = draw(&m, "a<b & \"c\" 'd' \x1b[31mred 나는 🌍 </text><script>x</script>", 120, 30);
    unsigned char *buf;
    size_t len;
    AvError err = {0};
    char dir[] = "/tmp/attnviz-picture-XXXXXX", path[128], cmd[512];
    assert_non_null(mkdtemp(dir));
    static const PictureFormat fmts[] = {PIC_SVG, PIC_HTML};
    for (int f = 0; f < 2; f++) {
        assert_int_equal(picture_render(cv, 0, fmts[f], &buf, &len, &err), 0);
        assert_null(memchr(buf, 0x1b, len));
        assert_null(strstr((const char *)buf, "<script"));
        assert_null(strstr((const char *)buf, "</text><"));
        assert_null(strstr((const char *)buf, "http://www.w3.org/1999/xlink"));
        assert_non_null(strstr((const char *)buf, "&lt;"));
        assert_non_null(strstr((const char *)buf, "&amp;"));
        assert_non_null(strstr((const char *)buf, "나"));
        snprintf(path, sizeof path, "%s/p.%s", dir, f ? "html" : "svg");
        write_file(path, buf, len);
        free(buf);
        if (have("xmllint")) {
            snprintf(cmd, sizeof cmd, "xmllint --noout %s '%s' 2>/dev/null", f ? "--html" : "", path);
            assert_int_equal(system(cmd), 0);
        }
    }
    /* no reference outside the file: no URL but the SVG namespace */
    assert_int_equal(picture_render(cv, 0, PIC_HTML, &buf, &len, &err), 0);
    assert_null(strstr((const char *)buf, "http"));
    assert_null(strstr((const char *)buf, "src="));
    free(buf);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    finish(m, cv);
}

static void test_formats(void **state) {
    (void)state;
    PictureFormat f;
    assert_int_equal(picture_format_of("a.svg", &f), 0);
    assert_int_equal(f, PIC_SVG);
    assert_int_equal(picture_format_of("dir.png/A.PNG", &f), 0);
    assert_int_equal(f, PIC_PNG);
    assert_int_equal(picture_format_of("x.htm", &f), 0);
    assert_int_equal(f, PIC_HTML);
    assert_int_equal(picture_format_of("x.pdf", &f), 0);
    assert_int_equal(f, PIC_PDF);
    assert_int_equal(picture_format_of("x.jpg", &f), -1);
    assert_int_equal(picture_format_of("svg", &f), -1);
    assert_int_equal(picture_format_of("a.svg/b", &f), -1);
    unsigned char rgb[3];
    picture_rgb(196, 1, 0, rgb); /* the cube: 5, 0, 0 */
    assert_true(rgb[0] == 255 && rgb[1] == 0 && rgb[2] == 0);
    picture_rgb(244, 1, 0, rgb); /* the grey ramp */
    assert_true(rgb[0] == 128 && rgb[1] == 128 && rgb[2] == 128);
    picture_rgb(-1, 0, 0, rgb); /* a light theme's background */
    assert_true(rgb[0] == 255);
    Canvas *cv = cv_new(4, 1);
    unsigned char *buf;
    size_t len;
    AvError err = {0};
    assert_int_equal(picture_render(cv, 1, PIC_PDF, &buf, &len, &err), -1);
    assert_non_null(strstr(err.msg, "figure"));
    cv_free(cv);
}

/* The cursor's cell keeps its weight's colour in a picture: a frame in its
 * foreground marks it (reverse video put the number's colour where the
 * weight's was, on the one cell the picture is about). PNG pixels inside the
 * frame and on it; the SVG's fill under the cell and its frame. */
static void test_cursor_keeps_colour(void **state) {
    (void)state;
    Model *m;
    Canvas *cv = draw(&m, "the cat sat on the mat today", 100, 30);
    app.ci = 2, app.cj = 1; /* sat -> cat */
    app_draw(&app, cv);
    const HeatLayout *L = &app.layout;
    int y = L->y0 + (app.ci - L->row0) * L->ch + (L->ch - 1) / 2, x = L->x0 + (app.cj - L->col0) * L->cw;
    const Cell *c = cv_cell(cv, y, x);
    assert_true(c->st.attr & ST_CURSOR);
    assert_false(c->st.attr & ST_REVERSE);
    double w = m->head[0].weights[(size_t)app.ci * m->n_k + app.cj];
    RampColor rc = palette_seq(TIER_256, w);
    assert_true(rc.bg >= 16); /* a colour of the ramp, not the background */
    unsigned char want_fill[3], want_frame[3], got[3];
    picture_rgb(rc.bg, 1, 0, want_fill);
    picture_rgb(rc.fg, 1, 1, want_frame);
    /* PNG */
    unsigned char *buf;
    size_t len;
    AvError err = {0};
    assert_int_equal(picture_render(cv, 1, PIC_PNG, &buf, &len, &err), 0);
    const unsigned char *p = buf;
    cairo_surface_t *s = cairo_image_surface_create_from_png_stream(read_mem, &p);
    assert_int_equal(cairo_surface_status(s), CAIRO_STATUS_SUCCESS);
    int px = x * PIC_CELL_W, py = y * PIC_CELL_H;
    pixel(s, px + PIC_CELL_W / 2, py + PIC_CELL_H / 2, got); /* the blank before the number */
    assert_rgb_near(got, want_fill, 0, "PNG: the cursor's cell inside its frame");
    pixel(s, px + PIC_CELL_W / 2, py, got);
    assert_rgb_near(got, want_frame, 0, "PNG: the frame's top edge");
    pixel(s, px, py + PIC_CELL_H / 2, got);
    assert_rgb_near(got, want_frame, 0, "PNG: the frame's left edge");
    pixel(s, px + L->cw * PIC_CELL_W - 1, py + PIC_CELL_H / 2, got);
    assert_rgb_near(got, want_frame, 0, "PNG: the frame's right edge");
    pixel(s, px + L->cw * PIC_CELL_W + PIC_CELL_W / 2, py + PIC_CELL_H / 2, got); /* the next cell: no frame */
    unsigned char next_bg[3], next_fg[3];
    picture_cell_colors(cv_cell(cv, y, x + L->cw), 1, next_bg, next_fg);
    assert_rgb_near(got, next_bg, 0, "PNG: the cell beside the cursor");
    cairo_surface_destroy(s);
    free(buf);
    /* SVG: the last background rectangle over the cell's middle is filled
     * with the weight's colour; a frame of the cursor is round it. */
    assert_int_equal(picture_render(cv, 1, PIC_SVG, &buf, &len, &err), 0);
    char fill[8] = "", frame[8] = "", hx[8];
    int cx = px + PIC_CELL_W / 2, cy = py + PIC_CELL_H / 2, frames = 0;
    for (const char *r = strstr((const char *)buf, "<rect "); r; r = strstr(r + 1, "<rect ")) {
        double rx, ry, rw, rh;
        char col[8];
        if (sscanf(r, "<rect x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"%lf\" fill=\"%7[#0-9a-f]\"", &rx, &ry, &rw, &rh,
                   col) == 5) {
            if (rx <= cx && cx < rx + rw && ry <= cy && cy < ry + rh) snprintf(fill, sizeof fill, "%s", col);
        } else if (sscanf(r,
                          "<rect class=\"cursor\" x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"%lf\" fill=\"none\" "
                          "stroke=\"%7[#0-9a-f]\"",
                          &rx, &ry, &rw, &rh, col) == 5) {
            frames++;
            assert_true(rx <= cx && cx < rx + rw && ry <= cy && cy < ry + rh);
            assert_true(rx >= px && rx + rw <= px + L->cw * PIC_CELL_W && ry >= py && ry + rh <= py + PIC_CELL_H);
            snprintf(frame, sizeof frame, "%s", col);
        }
    }
    snprintf(hx, sizeof hx, "#%02x%02x%02x", want_fill[0], want_fill[1], want_fill[2]);
    assert_string_equal(fill, hx);
    snprintf(hx, sizeof hx, "#%02x%02x%02x", want_frame[0], want_frame[1], want_frame[2]);
    assert_string_equal(frame, hx);
    assert_int_equal(frames, 1);
    free(buf);
    /* HTML: the cell keeps its colours, with an outline. */
    assert_int_equal(picture_render(cv, 1, PIC_HTML, &buf, &len, &err), 0);
    char span[160];
    snprintf(span, sizeof span, "background:#%02x%02x%02x;font-weight:bold;outline:2px solid #%02x%02x%02x",
             want_fill[0], want_fill[1], want_fill[2], want_frame[0], want_frame[1], want_frame[2]);
    assert_non_null(strstr((const char *)buf, span));
    free(buf);
    finish(m, cv);
}

/* Underline runs under blanks too, as on a terminal ("random weights · w:
 * trained" was a dashed line in pictures): PNG pixels and SVG rectangles. */
static void test_underline_under_blanks(void **state) {
    (void)state;
    Canvas *cv = cv_new(6, 1);
    assert_non_null(cv);
    cv_text(cv, 0, 0, "a b c", 5, style_attr(ST_UNDERLINE));
    unsigned char *buf, fg[3], got[3];
    size_t len;
    AvError err = {0};
    picture_rgb(-1, 1, 1, fg);
    assert_int_equal(picture_render(cv, 1, PIC_PNG, &buf, &len, &err), 0);
    const unsigned char *p = buf;
    cairo_surface_t *s = cairo_image_surface_create_from_png_stream(read_mem, &p);
    assert_int_equal(cairo_surface_status(s), CAIRO_STATUS_SUCCESS);
    for (int x = 0; x < 5 * PIC_CELL_W; x++) {
        pixel(s, x, PIC_CELL_H - 3, got);
        assert_rgb_near(got, fg, 0, "the underline");
    }
    pixel(s, 5 * PIC_CELL_W + 2, PIC_CELL_H - 3, got); /* the sixth cell is not underlined */
    assert_int_not_equal(got[0], fg[0]);
    cairo_surface_destroy(s);
    free(buf);
    assert_int_equal(picture_render(cv, 1, PIC_SVG, &buf, &len, &err), 0);
    for (int x = 0; x < 5; x++) {
        char want[96];
        snprintf(want, sizeof want, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"1\"", x * PIC_CELL_W, PIC_CELL_H - 3,
                 PIC_CELL_W);
        assert_non_null(strstr((const char *)buf, want));
    }
    free(buf);
    cv_free(cv);
}

/* CIE L* of a mean linear luminance Y (white = 1). */
static double lstar(double y) {
    double f = y > 216.0 / 24389 ? cbrt(y) : (24389.0 / 27 * y + 16) / 116;
    return 116 * f - 16;
}

static double srgb_lin(int c) {
    double v = c / 255.0;
    return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
}

/* The lightness of each glyph of `glyphs` (UTF-8, one cell each) as the PNG
 * draws it in the terminal's default colours: L* of the mean luminance of
 * its cell's pixels (the ink of a letter, the share of a shade). */
static void glyph_lightness(const char *const *glyphs, int n, int dark, double *out) {
    Canvas *cv = cv_new(2 * n, 1);
    assert_non_null(cv);
    for (int k = 0; k < n; k++) cv_text(cv, 0, 2 * k, glyphs[k], 1, style_plain());
    unsigned char *buf;
    size_t len;
    AvError err = {0};
    assert_int_equal(picture_render(cv, dark, PIC_PNG, &buf, &len, &err), 0);
    const unsigned char *p = buf;
    cairo_surface_t *s = cairo_image_surface_create_from_png_stream(read_mem, &p);
    assert_int_equal(cairo_surface_status(s), CAIRO_STATUS_SUCCESS);
    for (int k = 0; k < n; k++) {
        double sum = 0;
        for (int y = 0; y < PIC_CELL_H; y++)
            for (int x = 0; x < PIC_CELL_W; x++) {
                unsigned char rgb[3];
                pixel(s, 2 * k * PIC_CELL_W + x, y, rgb);
                sum += 0.2126 * srgb_lin(rgb[0]) + 0.7152 * srgb_lin(rgb[1]) + 0.0722 * srgb_lin(rgb[2]);
            }
        out[k] = lstar(sum / (PIC_CELL_W * PIC_CELL_H));
    }
    cairo_surface_destroy(s);
    free(buf);
    cv_free(cv);
}

/* The glyphs of a no-colour ramp in order: `shade` at t from 0 to `end`
 * (1 or -1), each new glyph once. Returns how many. */
static int ramp_glyphs(const char *(*shade)(double, int), int ascii, double end, const char **out, int cap) {
    int n = 0;
    for (int i = 0; i <= 1024; i++) {
        const char *g = shade(end * i / 1024.0, ascii);
        if (n == 0 || strcmp(g, out[n - 1]) != 0) {
            assert_true(n < cap);
            out[n++] = g;
        }
    }
    return n;
}

/* Without colour the shade glyphs are the ramp: from the background (" ")
 * each step has more ink, so it is lighter on a dark background and darker
 * on a light one, in the font the pictures use (DejaVu Sans Mono) and in
 * block shades (drawn as the terminal does). Measured, not assumed: the
 * ASCII ramp comes from these numbers (L* on white: ` 98.9, : 97.6, * 94.9,
 * o 91.8, # 88.4; on black: 9.3, 18.9, 23.1, 36.6, 44.1. It was
 * " .:;oO*#&@", with * (94.9) after O (89.0), and @ lighter than # on black). The ramps are palette.c's:
 * palette_shade (Unicode, --ascii) and palette_shade_signed (each sign). */
static void test_shade_glyph_lightness(void **state) {
    (void)state;
    static const struct {
        const char *(*shade)(double, int);
        int ascii;
        double end;
        const char *what;
    } ramps[] = {
        {palette_shade, 0, 1, "shades"},
        {palette_shade, 1, 1, "ASCII shades"},
        {palette_shade_signed, 1, -1, "signed, negative"},
        {palette_shade_signed, 1, 1, "signed, positive"},
    };
    for (size_t r = 0; r < sizeof ramps / sizeof *ramps; r++) {
        const char *g[32];
        int n = ramp_glyphs(ramps[r].shade, ramps[r].ascii, ramps[r].end, g, 32);
        assert_true(n >= 4);
        assert_string_equal(g[0], " "); /* 0 is the background */
        for (int dark = 0; dark <= 1; dark++) {
            double l[32];
            glyph_lightness(g, n, dark, l);
            for (int k = 1; k < n; k++) {
                int ok = dark ? l[k] > l[k - 1] : l[k] < l[k - 1];
                if (!ok)
                    fail_msg("%s, %s background: \"%s\" (L* %.1f) is not %s than \"%s\" (L* %.1f)", ramps[r].what,
                             dark ? "dark" : "light", g[k], l[k], dark ? "lighter" : "darker", g[k - 1], l[k - 1]);
            }
        }
    }
}

int main(void) {
    setlocale(LC_ALL, "C.UTF-8");
    AvError err = {0};
    if (gfx_load(&err)) { /* the PNGs are decoded with cairo */
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_formats),
        cmocka_unit_test(test_png_cells),
        cmocka_unit_test(test_shade_glyph_lightness),
        cmocka_unit_test(test_cursor_keeps_colour),
        cmocka_unit_test(test_underline_under_blanks),
        cmocka_unit_test(test_escaping),
        cmocka_unit_test(test_svg_in_chromium),
    };
    return cmocka_run_group_tests_name("picture", tests, NULL, NULL);
}
