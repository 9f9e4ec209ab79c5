/* test_palette.c - unit tests of tui/gfx/palette.c: the colour tier for every
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

/* CIE L* (D65, 0..100) of a ramp step's background: an xterm colour, or -1,
 * the terminal's own background (black on a dark theme, white on a light). */
static double lightness(int index, int light) {
    double y = index < 0 ? (light ? 1.0 : 0.0) : luminance(index);
    double f = y > 216.0 / 24389 ? cbrt(y) : (24389.0 / 27 * y + 16) / 116;
    return 116 * f - 16;
}

static double contrast(int a, int b) {
    if (a < 0 || b < 0) return 21; /* the terminal's own colours: its own choice */
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

/* Every tier and background: 0 is the background itself (-1), and each step
 * moves away from it in lightness (CIE L* of xterm's palette): lighter on a
 * dark background, darker on a light one, by at least min_step L*. Each step
 * is readable (its fg on it, WCAG >= 4.5), one colour once. The 8-colour
 * ramp had red at 0.25-0.5 and cyan after it, and zero was the darkest block
 * on a light background (its blue). */
static void check_seq(ColorTier tier, int light, double min_step) {
    palette_set_theme(light ? THEME_LIGHT : THEME_DARK);
    int n = palette_seq_steps(tier);
    RampColor zero = palette_seq(tier, 0.0);
    assert_int_equal(zero.bg, -1);
    assert_int_equal(zero.fg, -1);
    for (int k = 1; k < n; k++) {
        RampColor c = seq_step(tier, k), p = seq_step(tier, k - 1);
        if (tier == TIER_256) assert_true(c.bg >= 16 && c.bg <= 255); /* 0-15 are redefined by themes */
        else assert_true(c.bg >= 1 && c.bg <= 6);                     /* neither black nor white */
        if (contrast(c.bg, c.fg) < 4.5)
            fail_msg("step %d: fg %d on bg %d has contrast %.2f", k, c.fg, c.bg, contrast(c.bg, c.fg));
        double l0 = lightness(p.bg, light), l1 = lightness(c.bg, light);
        double away = light ? l0 - l1 : l1 - l0;
        if (!(away >= min_step))
            fail_msg("tier %d, %s background: step %d (%d, L* %.1f) after step %d (%d, L* %.1f) is not %.1f %s",
                     (int)tier, light ? "light" : "dark", k, c.bg, l1, k - 1, p.bg, l0, min_step,
                     light ? "darker" : "lighter");
        for (int j = 0; j < k; j++) assert_int_not_equal(seq_step(tier, j).bg, c.bg);
    }
    palette_set_theme(THEME_DARK);
}

static void test_seq_lightness(void **state) {
    (void)state;
    for (int light = 0; light <= 1; light++) {
        check_seq(TIER_256, light, 1.0);
        check_seq(TIER_8, light, 7.0);
    }
}

static void test_seq256_perceptual(void **state) {
    (void)state;
    for (int light = 0; light <= 1; light++) {
        palette_set_theme(light ? THEME_LIGHT : THEME_DARK);
        int n = palette_seq_steps(TIER_256);
        assert_true(n >= 10 && n <= 16);
        for (int k = 1; k < n; k++) {
            RampColor c = seq_step(TIER_256, k);
            assert_true(c.fg == 16 || c.fg == 231);
            assert_int_equal(c.bold, 0);
            /* No greyish step: it would read as neutral mid-ramp (issue 13);
             * a pale step next to a white background is that background's
             * own tint. */
            Rgb rgb = xterm_rgb(c.bg);
            int hi = rgb.r > rgb.g ? (rgb.r > rgb.b ? rgb.r : rgb.b) : (rgb.g > rgb.b ? rgb.g : rgb.b);
            int lo = rgb.r < rgb.g ? (rgb.r < rgb.b ? rgb.r : rgb.b) : (rgb.g < rgb.b ? rgb.g : rgb.b);
            if (hi - lo < 90 && !(light && lightness(c.bg, 1) > 90))
                fail_msg("step %d (%d) is greyish: chroma %d of 255", k, c.bg, hi - lo);
        }
        /* The middle is green-blue (teal), as in viridis and YlGnBu. */
        Rgb mid = xterm_rgb(palette_seq(TIER_256, 0.5).bg);
        assert_true(mid.g > mid.r && mid.b > mid.r);
    }
    /* Viridis on a dark background: a dark violet (blue and red over green)
     * next to black, yellow at 1. YlGnBu on a light one: a pale yellow-green
     * next to white (more green than blue), a deep navy (blue only) at 1. */
    palette_set_theme(THEME_DARK);
    int n = palette_seq_steps(TIER_256);
    Rgb violet = xterm_rgb(seq_step(TIER_256, 1).bg), yellow = xterm_rgb(seq_step(TIER_256, n - 1).bg);
    assert_true(violet.r > violet.g && violet.b > violet.g);
    assert_true(yellow.r >= 200 && yellow.g >= 200 && yellow.b < 100);
    palette_set_theme(THEME_LIGHT);
    n = palette_seq_steps(TIER_256);
    Rgb pale = xterm_rgb(seq_step(TIER_256, 1).bg), navy = xterm_rgb(seq_step(TIER_256, n - 1).bg);
    assert_true(pale.g > pale.b && pale.r >= 200);
    assert_true(navy.r == 0 && navy.g == 0 && navy.b > 0);
    palette_set_theme(THEME_DARK);
}

static void test_seq8(void **state) {
    (void)state;
    assert_int_equal(palette_seq_steps(TIER_8), 5);
    for (int light = 0; light <= 1; light++) {
        palette_set_theme(light ? THEME_LIGHT : THEME_DARK);
        /* the background, blue red green yellow (the other way on white) */
        const short want_bg[2][5] = {{-1, 4, 1, 2, 3}, {-1, 3, 2, 1, 4}};
        for (int k = 0; k < 5; k++) {
            RampColor c = seq_step(TIER_8, k);
            assert_int_equal(c.bg, want_bg[light][k]);
            assert_int_equal(c.bold, k == 4); /* bold only on the farthest from the background */
        }
    }
    palette_set_theme(THEME_DARK);
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

/* The diverging ramps: 0 is the background (-1), each side moves away from
 * it in lightness step by step (lighter on dark, darker on light), blue for
 * negatives and red for positives. */
static void test_div_lightness(void **state) {
    (void)state;
    for (ColorTier tier = TIER_8; tier <= TIER_256; tier++)
        for (int light = 0; light <= 1; light++) {
            palette_set_theme(light ? THEME_LIGHT : THEME_DARK);
            int n = palette_div_steps(tier), m = n / 2;
            RampColor mid = palette_div(tier, 0.0);
            assert_int_equal(mid.bg, -1);
            assert_int_equal(mid.fg, -1);
            for (int k = 0; k < n; k++) {
                if (k == m) continue;
                RampColor c = div_step(tier, k), in = div_step(tier, k < m ? k + 1 : k - 1);
                if (contrast(c.bg, c.fg) < 4.5)
                    fail_msg("diverging step %d: fg %d on bg %d has contrast %.2f", k, c.fg, c.bg,
                             contrast(c.bg, c.fg));
                double l0 = lightness(in.bg, light), l1 = lightness(c.bg, light);
                double away = light ? l0 - l1 : l1 - l0;
                if (!(away >= (tier == TIER_8 ? 7.0 : 1.0)))
                    fail_msg("tier %d, %s background: diverging step %d (%d, L* %.1f) is not farther from the "
                             "background than the step inside it (%d, L* %.1f)",
                             (int)tier, light ? "light" : "dark", k, c.bg, l1, in.bg, l0);
                if (tier == TIER_256) {
                    Rgb rgb = xterm_rgb(c.bg);
                    assert_true(c.bg >= 16 && c.bg <= 255);
                    assert_true(c.fg == 16 || c.fg == 231);
                    if (k < m) assert_true(rgb.b > rgb.r); /* negative: blue */
                    if (k > m) assert_true(rgb.r > rgb.b); /* positive: red */
                }
            }
        }
    palette_set_theme(THEME_DARK);
}

static void test_div8(void **state) {
    (void)state;
    assert_int_equal(palette_div_steps(TIER_8), 5);
    for (int light = 0; light < 2; light++) {
        palette_set_theme(light ? THEME_LIGHT : THEME_DARK);
        /* dark: cyan blue | background | red yellow; light: blue cyan | background | yellow red */
        const short want_bg[2][5] = {{6, 4, -1, 1, 3}, {4, 6, -1, 3, 1}};
        for (int k = 0; k < 5; k++) assert_int_equal(div_step(TIER_8, k).bg, want_bg[light][k]);
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
    assert_string_equal(palette_shade(1.0, 1), "#");
    assert_string_equal(palette_shade(NAN, 1), " ");
    /* The six ASCII glyphs in order, one per sixth (their lightness:
     * test_picture.c). */
    const char *ascii = " `:*o#";
    for (int k = 0; k < 6; k++) {
        char want[2] = {ascii[k], '\0'};
        assert_string_equal(palette_shade((k + 0.5) / 6, 1), want);
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
        cmocka_unit_test(test_tier),          cmocka_unit_test(test_seq_ends_and_clamping),
        cmocka_unit_test(test_seq_lightness), cmocka_unit_test(test_seq256_perceptual),
        cmocka_unit_test(test_seq8),          cmocka_unit_test(test_div_ends_and_middle),
        cmocka_unit_test(test_div_lightness), cmocka_unit_test(test_div8),
        cmocka_unit_test(test_theme_detect),  cmocka_unit_test(test_none),
        cmocka_unit_test(test_shade),         cmocka_unit_test(test_shade_signed),
    };
    return cmocka_run_group_tests_name("palette", tests, NULL, NULL);
}
