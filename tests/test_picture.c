/* test_picture.c - screen pictures (tui/picture.c, issue 15): the heatmap
 * drawn on a canvas, written as PNG (decoded here with cairo) and as SVG
 * (rendered by headless Chromium, skipped with a line when it is not
 * installed), and the colour at several heatmap cells checked against the
 * colour the canvas gives them, masked cells included; the SVG and HTML
 * valid (xmllint) and escaped whatever the labels hold. */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "canvas.h"
#include "gfx.h"
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
            } else if (i || j) { /* (0, 0) is the cursor's: reversed */
                unsigned char dflt[3];
                picture_rgb(-1, 1, 0, dflt);
                if (!memcmp(bg, dflt, 3)) fail_msg("%s: an allowed cell without its ramp colour", where);
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
        cmocka_unit_test(test_escaping),
        cmocka_unit_test(test_svg_in_chromium),
    };
    return cmocka_run_group_tests_name("picture", tests, NULL, NULL);
}
