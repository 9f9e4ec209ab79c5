/* test_palette.c - unit tests of tui/palette.c: the colour tier for every
 * mode / NO_COLOR / COLORS combination, and the ramps judged by the RGB the
 * xterm-256 palette gives their indices (order, hue, readability by the WCAG
 * contrast ratio), so a wrong index in a table shows up as a wrong colour. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "palette.h"

/* ===== Colour arithmetic, independent of palette.c ===== */

typedef struct {
    int r, g, b;
} Rgb;

/* RGB of an xterm-256 index 16..255 (cube, then the grey ramp), or of a basic
 * colour 0..7 as xterm draws it by default. */
static Rgb xterm_rgb(int i) {
    static const int level[6] = {0, 95, 135, 175, 215, 255};
    static const Rgb basic[8] = {{0, 0, 0},   {205, 0, 0},   {0, 205, 0},   {205, 205, 0},
                                 {0, 0, 238}, {205, 0, 205}, {0, 205, 205}, {229, 229, 229}};
    if (i >= 0 && i < 8) return basic[i];
    if (i >= 16 && i <= 231) {
        i -= 16;
        return (Rgb){level[i / 36], level[(i / 6) % 6], level[i % 6]};
    }
    if (i >= 232 && i <= 255) {
        int g = 8 + 10 * (i - 232);
        return (Rgb){g, g, g};
    }
    fail_msg("colour index %d is not in 0..7 or 16..255", i);
    return (Rgb){0, 0, 0};
}

static double srgb_linear(int c) {
    double v = c / 255.0;
    return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
}

/* WCAG relative luminance. */
static double luminance(int index) {
    Rgb c = xterm_rgb(index);
    return 0.2126 * srgb_linear(c.r) + 0.7152 * srgb_linear(c.g) + 0.0722 * srgb_linear(c.b);
}

static double contrast(int a, int b) {
    double la = luminance(a), lb = luminance(b);
    double hi = la > lb ? la : lb, lo = la > lb ? lb : la;
    return (hi + 0.05) / (lo + 0.05);
}

/* The colour of step k of n, reached through the public function by a value
 * in the middle of that step's bin. */
static RampColor seq_step(ColorTier tier, int k) {
    int n = palette_seq_steps(tier);
    return palette_seq(tier, (k + 0.5) / n);
}

static RampColor div_step(ColorTier tier, int k) {
    int n = palette_div_steps(tier);
    return palette_div(tier, -1.0 + 2.0 * (k + 0.5) / n);
}

/* Step of a colour on a ramp of n steps (-1 when it is none of them). */
static int step_of(RampColor c, RampColor (*step)(ColorTier, int), ColorTier tier, int n) {
    for (int k = 0; k < n; k++)
        if (step(tier, k).bg == c.bg) return k;
    return -1;
}

static void assert_same(RampColor a, RampColor b) {
    assert_int_equal(a.bg, b.bg);
    assert_int_equal(a.fg, b.fg);
    assert_int_equal(a.bold, b.bold);
}

/* ===== Tier ===== */

static void test_tier(void **state) {
    (void)state;
    /* mode (0 auto, 1 always, 2 never), NO_COLOR, COLORS -> tier */
    static const struct {
        int mode;
        const char *no_color;
        int colors;
        ColorTier want;
    } cases[] = {
        {0, NULL, 256, TIER_256},  {0, NULL, 16777216, TIER_256}, {0, NULL, 255, TIER_8},   {0, NULL, 88, TIER_8},
        {0, NULL, 16, TIER_8},     {0, NULL, 8, TIER_8},          {0, NULL, 7, TIER_NONE},  {0, NULL, 0, TIER_NONE},
        {0, NULL, -1, TIER_NONE},  {0, "", 256, TIER_256},        {0, "", 8, TIER_8},       {0, "", 0, TIER_NONE},
        {0, "1", 256, TIER_NONE},  {0, "1", 8, TIER_NONE},        {0, "0", 256, TIER_NONE}, {1, NULL, 256, TIER_256},
        {1, NULL, 8, TIER_8},      {1, NULL, 2, TIER_8},          {1, NULL, 0, TIER_8},     {1, NULL, -1, TIER_8},
        {1, "", 256, TIER_256},    {1, "1", 256, TIER_256},       {1, "1", 8, TIER_8},      {1, "1", 0, TIER_8},
        {2, NULL, 256, TIER_NONE}, {2, NULL, 8, TIER_NONE},       {2, NULL, 0, TIER_NONE},  {2, "", 256, TIER_NONE},
        {2, "1", 256, TIER_NONE},  {2, "1", 0, TIER_NONE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ColorTier got = palette_tier(cases[i].mode, cases[i].no_color, cases[i].colors);
        if (got != cases[i].want)
            fail_msg("palette_tier(%d, %s%s%s, %d) = %d, expected %d", cases[i].mode, cases[i].no_color ? "\"" : "",
                     cases[i].no_color ? cases[i].no_color : "NULL", cases[i].no_color ? "\"" : "", cases[i].colors,
                     (int)got, (int)cases[i].want);
    }
}

/* ===== Sequential ramp ===== */

static void test_seq_ends_and_clamping(void **state) {
    (void)state;
    for (ColorTier tier = TIER_8; tier <= TIER_256; tier++) {
        int n = palette_seq_steps(tier);
        RampColor first = seq_step(tier, 0), last = seq_step(tier, n - 1);
        assert_same(palette_seq(tier, 0.0), first);
        assert_same(palette_seq(tier, 1.0), last);
        assert_same(palette_seq(tier, NAN), first);
        assert_same(palette_seq(tier, -0.5), first);
        assert_same(palette_seq(tier, -INFINITY), first);
        assert_same(palette_seq(tier, 7.0), last);
        assert_same(palette_seq(tier, INFINITY), last);
        assert_same(palette_seq(tier, nextafter(1.0, 0.0)), last);
        /* Just above 0 is still the first step; the second begins at 1/n. */
        assert_same(palette_seq(tier, 1e-9), first);
        assert_same(palette_seq(tier, (1.0 + 1e-9) / n), seq_step(tier, 1));
        /* Equal bins: on an even grid every step takes the same share. */
        int count[16] = {0};
        const int per = 64;
        for (int i = 0; i < n * per; i++) {
            int k = step_of(palette_seq(tier, (i + 0.5) / (n * per)), seq_step, tier, n);
            assert_true(k >= 0);
            count[k]++;
        }
        for (int k = 0; k < n; k++) assert_int_equal(count[k], per);
    }
}

static void test_seq256_perceptual(void **state) {
    (void)state;
    int n = palette_seq_steps(TIER_256);
    assert_true(n >= 10 && n <= 16);
    for (int k = 0; k < n; k++) {
        RampColor c = seq_step(TIER_256, k);
        assert_true(c.bg >= 16 && c.bg <= 255); /* 0-15 are redefined by themes */
        assert_true(c.fg == 16 || c.fg == 231);
        assert_int_equal(c.bold, 0);
        if (contrast(c.bg, c.fg) < 4.5)
            fail_msg("step %d: fg %d on bg %d has contrast %.2f", k, c.fg, c.bg, contrast(c.bg, c.fg));
        /* No greyish step: it would read as neutral mid-ramp (issue 13). */
        Rgb rgb = xterm_rgb(c.bg);
        int hi = rgb.r > rgb.g ? (rgb.r > rgb.b ? rgb.r : rgb.b) : (rgb.g > rgb.b ? rgb.g : rgb.b);
        int lo = rgb.r < rgb.g ? (rgb.r < rgb.b ? rgb.r : rgb.b) : (rgb.g < rgb.b ? rgb.g : rgb.b);
        if (hi - lo < 90) fail_msg("step %d (%d) is greyish: chroma %d of 255", k, c.bg, hi - lo);
        if (k > 0) {
            RampColor p = seq_step(TIER_256, k - 1);
            assert_int_not_equal(p.bg, c.bg);
            if (!(luminance(c.bg) > luminance(p.bg)))
                fail_msg("luminance falls from step %d (%d) to %d (%d)", k - 1, p.bg, k, c.bg);
        }
    }
    /* Viridis-like ends: a dark violet (blue and red over green), a yellow. */
    Rgb lo = xterm_rgb(palette_seq(TIER_256, 0).bg), hi = xterm_rgb(palette_seq(TIER_256, 1).bg);
    assert_true(luminance(palette_seq(TIER_256, 0).bg) < 0.05);
    assert_true(lo.r > lo.g && lo.b > lo.g);
    assert_true(hi.r >= 200 && hi.g >= 200 && hi.b < 100);
    /* The middle is green-blue (teal), as in viridis. */
    Rgb mid = xterm_rgb(palette_seq(TIER_256, 0.5).bg);
    assert_true(mid.g > mid.r && mid.b > mid.r);
}

static void test_seq8(void **state) {
    (void)state;
    int n = palette_seq_steps(TIER_8);
    assert_int_equal(n, 5);
    /* Neither black nor white: a dark or a light theme's background. */
    static const short want_bg[5] = {4, 1, 2, 6, 3}; /* blue red green cyan yellow */
    for (int k = 0; k < n; k++) {
        RampColor c = seq_step(TIER_8, k);
        assert_int_equal(c.bg, want_bg[k]);
        assert_true(c.fg >= 0 && c.fg <= 7);
        /* Readable on xterm's default basic colours. */
        if (contrast(c.bg, c.fg) < 4.5)
            fail_msg("8-colour step %d: fg %d on bg %d has contrast %.2f", k, c.fg, c.bg, contrast(c.bg, c.fg));
        assert_int_equal(c.bold, k == n - 1); /* bold only on the brightest */
    }
}

/* ===== Diverging ramp ===== */

static void test_div_ends_and_middle(void **state) {
    (void)state;
    for (ColorTier tier = TIER_8; tier <= TIER_256; tier++) {
        int n = palette_div_steps(tier);
        assert_true(n % 2 == 1); /* an exact middle for t = 0 */
        RampColor mid = div_step(tier, n / 2);
        assert_same(palette_div(tier, 0.0), mid);
        assert_same(palette_div(tier, -0.0), mid);
        assert_same(palette_div(tier, NAN), mid);
        assert_same(palette_div(tier, 0.5 / n), mid);
        assert_same(palette_div(tier, -0.5 / n), mid);
        assert_same(palette_div(tier, -1.0), div_step(tier, 0));
        assert_same(palette_div(tier, 1.0), div_step(tier, n - 1));
        assert_same(palette_div(tier, -9.0), div_step(tier, 0));
        assert_same(palette_div(tier, 9.0), div_step(tier, n - 1));
        /* Symmetric: t and -t are the same number of steps from the middle. */
        for (int i = 0; i <= 64; i++) {
            double t = i / 64.0;
            int up = step_of(palette_div(tier, t), div_step, tier, n);
            int down = step_of(palette_div(tier, -t), div_step, tier, n);
            assert_true(up >= 0 && down >= 0);
            assert_int_equal(up - n / 2, n / 2 - down);
        }
        /* Equal bins over [-1, 1]: every step, the middle too, the same share. */
        int count[16] = {0};
        const int per = 64;
        for (int i = 0; i < n * per; i++) {
            double t = -1.0 + 2.0 * (i + 0.5) / (n * per);
            int k = step_of(palette_div(tier, t), div_step, tier, n);
            assert_true(k >= 0);
            count[k]++;
        }
        for (int k = 0; k < n; k++) assert_int_equal(count[k], per);
    }
}

static void test_div256_colours(void **state) {
    (void)state;
    int n = palette_div_steps(TIER_256);
    assert_true(n >= 11 && n <= 15);
    int m = n / 2;
    Rgb neutral = xterm_rgb(palette_div(TIER_256, 0.0).bg);
    assert_true(neutral.r == neutral.g && neutral.g == neutral.b);
    assert_true(neutral.r >= 200); /* white-ish, not a dark grey */
    for (int k = 0; k < n; k++) {
        RampColor c = div_step(TIER_256, k);
        Rgb rgb = xterm_rgb(c.bg);
        assert_true(c.bg >= 16 && c.bg <= 255);
        assert_true(c.fg == 16 || c.fg == 231);
        if (contrast(c.bg, c.fg) < 4.5)
            fail_msg("diverging step %d: fg %d on bg %d has contrast %.2f", k, c.fg, c.bg, contrast(c.bg, c.fg));
        if (k < m) assert_true(rgb.b > rgb.r); /* negative: blue */
        if (k > m) assert_true(rgb.r > rgb.b); /* positive: red */
        /* Lightness rises to the middle and falls after it. */
        if (k > 0) {
            double l0 = luminance(div_step(TIER_256, k - 1).bg), l1 = luminance(c.bg);
            assert_true(k <= m ? l1 > l0 : l1 < l0);
        }
    }
}

static void test_div8(void **state) {
    (void)state;
    assert_int_equal(palette_div_steps(TIER_8), 5);
    /* The neutral middle is the theme's background tone. */
    for (int light = 0; light < 2; light++) {
        palette_set_theme(light ? THEME_LIGHT : THEME_DARK);
        const short want_bg[5] = {4, 6, light ? 7 : 0, 3, 1}; /* blue cyan white|black yellow red */
        for (int k = 0; k < 5; k++) {
            RampColor c = div_step(TIER_8, k);
            assert_int_equal(c.bg, want_bg[k]);
            if (contrast(c.bg, c.fg) < 4.5)
                fail_msg("8-colour diverging step %d: fg %d on bg %d has contrast %.2f", k, c.fg, c.bg,
                         contrast(c.bg, c.fg));
        }
        assert_int_equal(palette_div(TIER_8, 0.0).fg, light ? 0 : 7);
    }
    palette_set_theme(THEME_DARK);
}

/* COLORFGBG's last field is the background: 7 and 9..15 are light. */
static void test_theme_detect(void **state) {
    (void)state;
    assert_int_equal(palette_theme_detect(NULL), THEME_DARK);
    assert_int_equal(palette_theme_detect(""), THEME_DARK);
    assert_int_equal(palette_theme_detect("15;0"), THEME_DARK);
    assert_int_equal(palette_theme_detect("0;15"), THEME_LIGHT);
    assert_int_equal(palette_theme_detect("0;7"), THEME_LIGHT);
    assert_int_equal(palette_theme_detect("0;default;15"), THEME_LIGHT);
    assert_int_equal(palette_theme_detect("7;8"), THEME_DARK);
    assert_int_equal(palette_theme_detect("0;15x"), THEME_DARK);
    assert_int_equal(palette_theme_detect("0;default"), THEME_DARK);
    assert_int_equal(palette_theme_detect("0;1500"), THEME_DARK);
}

/* ===== No colour ===== */

static void test_none(void **state) {
    (void)state;
    const double ts[] = {-1.0, 0.0, 0.3, 1.0, NAN};
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) {
        assert_same(palette_seq(TIER_NONE, ts[i]), (RampColor){-1, -1, 0});
        assert_same(palette_div(TIER_NONE, ts[i]), (RampColor){-1, -1, 0});
    }
    assert_int_equal(palette_seq_steps(TIER_NONE), 1);
    assert_int_equal(palette_div_steps(TIER_NONE), 1);
}

/* ===== Shade glyphs ===== */

static void test_shade(void **state) {
    (void)state;
    assert_string_equal(palette_shade(0.0, 0), " ");
    assert_string_equal(palette_shade(1.0, 0), "█");
    assert_string_equal(palette_shade(0.5, 0), "▒");
    assert_string_equal(palette_shade(0.21, 0), "░");
    assert_string_equal(palette_shade(0.79, 0), "▓");
    assert_string_equal(palette_shade(NAN, 0), " ");
    assert_string_equal(palette_shade(-3.0, 0), " ");
    assert_string_equal(palette_shade(3.0, 0), "█");

    assert_string_equal(palette_shade(0.0, 1), " ");
    assert_string_equal(palette_shade(1.0, 1), "@");
    assert_string_equal(palette_shade(NAN, 1), " ");
    /* The ten ASCII glyphs in order, one per tenth. */
    const char *ascii = " .:;oO*#&@";
    for (int k = 0; k < 10; k++) {
        char want[2] = {ascii[k], '\0'};
        assert_string_equal(palette_shade((k + 0.5) / 10, 1), want);
    }
}

static void test_shade_signed(void **state) {
    (void)state;
    for (int ascii = 0; ascii <= 1; ascii++) {
        assert_string_equal(palette_shade_signed(-1.0, ascii), "O");
        assert_string_equal(palette_shade_signed(1.0, ascii), "#");
        assert_string_equal(palette_shade_signed(0.0, ascii), " ");
        assert_string_equal(palette_shade_signed(0.1, ascii), " ");
        assert_string_equal(palette_shade_signed(-0.1, ascii), " ");
        assert_string_equal(palette_shade_signed(-0.3, ascii), ".");
        assert_string_equal(palette_shade_signed(0.3, ascii), ":");
        assert_string_equal(palette_shade_signed(-0.6, ascii), "o");
        assert_string_equal(palette_shade_signed(0.6, ascii), "*");
        assert_string_equal(palette_shade_signed(-0.9, ascii), "O");
        assert_string_equal(palette_shade_signed(0.9, ascii), "#");
        assert_string_equal(palette_shade_signed(-5.0, ascii), "O");
        assert_string_equal(palette_shade_signed(5.0, ascii), "#");
        assert_string_equal(palette_shade_signed(NAN, ascii), " ");
    }
    /* No mark reads as a sign: none is - + or =, in either ramp. */
    for (int k = -20; k <= 20; k++)
        for (int ascii = 0; ascii <= 1; ascii++) {
            const char *g = palette_shade_signed(k / 20.0, ascii), *u = palette_shade(fabs(k / 20.0), 1);
            assert_null(strpbrk(g, "-+="));
            assert_null(strpbrk(u, "-+="));
        }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tier),
        cmocka_unit_test(test_seq_ends_and_clamping),
        cmocka_unit_test(test_seq256_perceptual),
        cmocka_unit_test(test_seq8),
        cmocka_unit_test(test_div_ends_and_middle),
        cmocka_unit_test(test_div256_colours),
        cmocka_unit_test(test_div8),
        cmocka_unit_test(test_theme_detect),
        cmocka_unit_test(test_none),
        cmocka_unit_test(test_shade),
        cmocka_unit_test(test_shade_signed),
    };
    return cmocka_run_group_tests_name("palette", tests, NULL, NULL);
}
