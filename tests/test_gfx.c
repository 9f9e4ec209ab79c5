/* test_gfx.c - cairo and pango missing (gfx.h's test knob
 * ATTNVIZ_GFX_MISSING, set before the first load: the load happens once a
 * process). A PNG of the screen and a figure fail with one line naming the
 * library and its Debian package, nothing returned; the SVG and HTML of the
 * screen, written without cairo, still work; large type gives way to normal
 * type. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "bigtext.h"
#include "canvas.h"
#include "figure.h"
#include "gfx.h"
#include "picture.h"

#define MISSING "libpangocairo-1.0.so.0"
#define PACKAGE "libpangocairo-1.0-0"

static void test_load_fails(void **state) {
    (void)state;
    for (int twice = 0; twice < 2; twice++) {
        AvError err = {0};
        assert_int_equal(gfx_load(&err), -1);
        assert_non_null(strstr(err.msg, MISSING " is missing"));
        assert_non_null(strstr(err.msg, "the Debian package " PACKAGE));
        assert_null(strchr(err.msg, '\n'));
        assert_int_equal(av_error_exit_status(&err), 2);
    }
    assert_int_equal(gfx_load(NULL), -1);
}

static void test_pictures(void **state) {
    (void)state;
    Canvas *cv = cv_new(20, 4);
    assert_non_null(cv);
    cv_text(cv, 1, 1, "cat", 3, style_attr(ST_BOLD));
    unsigned char *buf = (unsigned char *)"x";
    size_t len = 1;
    AvError err = {0};
    assert_int_equal(picture_render(cv, 1, PIC_PNG, &buf, &len, &err), -1);
    assert_null(buf);
    assert_int_equal(len, 0);
    assert_non_null(strstr(err.msg, PACKAGE));
    static const PictureFormat text_formats[] = {PIC_SVG, PIC_HTML};
    for (int i = 0; i < 2; i++) {
        assert_int_equal(picture_render(cv, 1, text_formats[i], &buf, &len, &err), 0);
        assert_true(len > 0 && strstr((const char *)buf, "cat"));
        free(buf);
    }
    /* no large type: bigtext draws nothing and says so (the caller writes normal type) */
    assert_int_equal(bigtext_width("cat"), 0);
    assert_int_equal(bigtext_draw(cv, 0, 0, 20, "cat", style_attr(0)), 0);
    cv_free(cv);
}

static void test_figures(void **state) {
    (void)state;
    Model *m = tu_model("the cat sat", NULL);
    FigureOptions o = {.kind = FIG_HEAD, .stage = STAGE_WEIGHTS};
    static const FigureFormat formats[] = {FIG_SVG, FIG_PNG, FIG_PDF};
    for (int i = 0; i < 3; i++) {
        unsigned char *buf = (unsigned char *)"x";
        size_t len = 1;
        AvError err = {0};
        assert_int_equal(figure_render(m, &o, formats[i], &buf, &len, &err), -1);
        assert_null(buf);
        assert_int_equal(len, 0);
        assert_non_null(strstr(err.msg, MISSING " is missing"));
    }
    FigureSize sz;
    assert_int_equal(figure_layout(m, &o, &sz, NULL), -1);
    double x, y;
    assert_int_equal(figure_cell_center(m, &o, 0, 0, 0, &x, &y), -1);
    /* bad options are still said first */
    o.head = 99;
    AvError err = {0};
    assert_int_equal(figure_layout(m, &o, &sz, &err), -1);
    assert_null(strstr(err.msg, MISSING));
    model_free(m);
}

int main(void) {
    setenv("ATTNVIZ_GFX_MISSING", MISSING, 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_fails),
        cmocka_unit_test(test_pictures),
        cmocka_unit_test(test_figures),
    };
    return cmocka_run_group_tests_name("gfx", tests, NULL, NULL);
}
