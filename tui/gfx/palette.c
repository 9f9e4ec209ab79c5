/* palette.c - which colours a terminal gets, and the ramps that turn an
 * attention value into a cell colour (see palette.h). Pure data and
 * arithmetic: no curses here, so the ramps are testable headless. */
#include "palette.h"

#include <math.h>
#include <stddef.h>

/* Foregrounds of the 256-colour ramps: 16 and 231 are the cube's black and
 * white, which themes rarely redefine (unlike 0-15, the theme colours). */
#define FG_BLACK 16
#define FG_WHITE 231

/* Basic colours by their curses numbers (COLOR_BLACK ... COLOR_WHITE),
 * spelled here so this file does not need curses.h. */
enum { C8_BLACK = 0, C8_RED = 1, C8_GREEN = 2, C8_YELLOW = 3, C8_BLUE = 4, C8_CYAN = 6, C8_WHITE = 7 };

// ----------------------------------------------------------------------------
// Tier

ColorTier palette_tier(int mode, const char *no_color_env, int colors) {
    if (mode == 2) return TIER_NONE;
    if (mode == 1) return colors >= 256 ? TIER_256 : TIER_8;
    /* https://no-color.org: set and non-empty means no colour; --color=always
     * (mode 1, above) still wins over it. */
    if (no_color_env && no_color_env[0]) return TIER_NONE;
    if (colors >= 256) return TIER_256;
    if (colors >= 8) return TIER_8;
    return TIER_NONE;
}

// ----------------------------------------------------------------------------
// Ramps

/* Every ramp starts from the terminal's own background (-1: its default
 * colours) at 0 and moves away from it in lightness, step by step (CIE L*
 * of xterm's palette, test_palette.c): brighter on a dark background, darker
 * on a light one. So a weight of 0 is no colour at all on either, and the
 * largest weights stand out most; the shade glyphs do the same without
 * colour (" " is 0). Each ramp has a dark and a light table; the theme
 * (--theme, COLORFGBG) chooses. fg: whichever of black and white contrasts
 * more with the step (WCAG ratio >= 4.5); the terminal's own for -1. */
#define BG_STEP                                                                                                        \
    { -1, -1, 0 }

/* Sequential, 256 colours, on a dark background: viridis-like, 12 steps of
 * the xterm-256 cube (0-15 left out since themes redefine them) after the
 * background, with luminance strictly rising from step to step, and no
 * greyish step: each is a saturated cube colour (chroma >= 0.37), because a
 * desaturated step mid-ramp (#5F5F87, #5FAF87) reads as "neutral" on a
 * projector. Violet, blue, teal, green, yellow, as viridis. L* in the
 * comments. */
static const RampColor seq256_dark[] = {
    BG_STEP,            /* the background (black, 0) */
    {53, FG_WHITE, 0},  /* #5F005F 21.1 */
    {54, FG_WHITE, 0},  /* #5F0087 24.3 */
    {25, FG_WHITE, 0},  /* #005FAF 40.0 */
    {26, FG_WHITE, 0},  /* #005FD7 42.9 */
    {31, FG_BLACK, 0},  /* #0087AF 52.3 */
    {32, FG_BLACK, 0},  /* #0087D7 54.3 */
    {37, FG_BLACK, 0},  /* #00AFAF 64.8 */
    {42, FG_BLACK, 0},  /* #00D787 76.3 */
    {78, FG_BLACK, 0},  /* #5FD787 77.7 */
    {113, FG_BLACK, 0}, /* #87D75F 78.8 */
    {148, FG_BLACK, 0}, /* #AFD700 80.6 */
    {220, FG_BLACK, 0}, /* #FFD700 86.9 */
};
/* On a light background: ColorBrewer's YlGnBu, pale yellow-green next to
 * the white background through green and teal to a deep navy, darker step by
 * step (viridis the other way began with a loud yellow for the smallest
 * weights). The cube has few light colours, so 10 steps. */
static const RampColor seq256_light[] = {
    BG_STEP,            /* the background (white, 100) */
    {193, FG_BLACK, 0}, /* #D7FFAF 95.6 */
    {120, FG_BLACK, 0}, /* #87FF87 91.0 */
    {79, FG_BLACK, 0},  /* #5FD7AF 78.5 */
    {37, FG_BLACK, 0},  /* #00AFAF 64.8 */
    {31, FG_BLACK, 0},  /* #0087AF 52.3 */
    {25, FG_WHITE, 0},  /* #005FAF 40.0 */
    {20, FG_WHITE, 0},  /* #0000D7 26.5 */
    {19, FG_WHITE, 0},  /* #0000AF 20.4 */
    {18, FG_WHITE, 0},  /* #000087 14.1 */
    {17, FG_WHITE, 0},  /* #00005F 7.5 */
};

/* Diverging, 256 colours: 0 is the background; blue for negatives, red for
 * positives, the hue kept (b > r on the blue side, r > b on the red) so the
 * sign survives the palette. Light background: ColorBrewer RdBu (9 classes)
 * reversed, #2166AC .. #F7F7F7 .. #B2182B, interpolated in CIELAB to 11 steps
 * and mapped as above, darker step by step away from the white middle. Dark
 * background: the same hues the other way, from dark blue and dark red next
 * to the black middle to light blue and peach at the ends. */
static const RampColor div256_dark[] = {
    {153, FG_BLACK, 0}, /* #AFD7FF 84.5 */
    {75, FG_BLACK, 0},  /* #5FAFFF 69.7 */
    {32, FG_BLACK, 0},  /* #0087D7 54.3 */
    {25, FG_WHITE, 0},  /* #005FAF 40.0 */
    {19, FG_WHITE, 0},  /* #0000AF 20.4 */
    BG_STEP,            /* the background (black, 0) */
    {88, FG_WHITE, 0},  /* #870000 27.2 */
    {124, FG_WHITE, 0}, /* #AF0000 36.2 */
    {167, FG_BLACK, 0}, /* #D75F5F 55.5 */
    {209, FG_BLACK, 0}, /* #FF875F 69.1 */
    {216, FG_BLACK, 0}, /* #FFAF87 78.3 */
};
static const RampColor div256_light[] = {
    {25, FG_WHITE, 0},  /* #2166AC -> #005FAF 40.0 */
    {67, FG_BLACK, 0},  /* #3D8ABE -> #5F87AF 54.9 */
    {74, FG_BLACK, 0},  /* #75B1D3 -> #5FAFD7 68.0 */
    {152, FG_BLACK, 0}, /* #ACD2E5 -> #AFD7D7 83.2 */
    {195, FG_BLACK, 0}, /* #D9E9F1 -> #D7FFFF 97.3 */
    BG_STEP,            /* #F7F7F7: the background (white, 100) */
    {224, FG_BLACK, 0}, /* #FCE1D0 -> #FFD7D7 89.3 */
    {216, FG_BLACK, 0}, /* #F9BB9D -> #FFAF87 78.3 */
    {173, FG_BLACK, 0}, /* #E98A6C -> #D7875F 63.8 */
    {167, FG_BLACK, 0}, /* #CF5446 -> #D75F5F 55.5 */
    {88, FG_WHITE, 0},  /* #B2182B -> #870000 27.2 */
};

/* Sequential, 8 colours: the background, then the basic colours in the
 * order of their lightness as xterm draws them (blue 29.8, red 42.7, green
 * 72.0, yellow 80.0; the other way on a light background), the last step
 * bold. Cyan (74.9) and magenta (48.7) are left out: too close to green and
 * red to be a step of their own. Neither black nor white: one is the other
 * theme's background, where a wrong guess of the theme would hide the
 * largest weights. */
static const RampColor seq8_dark[] = {
    BG_STEP, {C8_BLUE, C8_WHITE, 0}, {C8_RED, C8_WHITE, 0}, {C8_GREEN, C8_BLACK, 0}, {C8_YELLOW, C8_BLACK, 1},
};
static const RampColor seq8_light[] = {
    BG_STEP, {C8_YELLOW, C8_BLACK, 0}, {C8_GREEN, C8_BLACK, 0}, {C8_RED, C8_WHITE, 0}, {C8_BLUE, C8_WHITE, 1},
};

/* Diverging, 8 colours: blue side, the background in the middle, red side,
 * each side away from the background in lightness: on a dark background blue
 * (29.8) then cyan (74.9), red (42.7) then yellow (80.0); on a light one
 * cyan then blue, yellow then red. */
static const RampColor div8_dark[] = {
    {C8_CYAN, C8_BLACK, 0}, {C8_BLUE, C8_WHITE, 0}, BG_STEP, {C8_RED, C8_WHITE, 0}, {C8_YELLOW, C8_BLACK, 0},
};
static const RampColor div8_light[] = {
    {C8_BLUE, C8_WHITE, 0}, {C8_CYAN, C8_BLACK, 0}, BG_STEP, {C8_YELLOW, C8_BLACK, 0}, {C8_RED, C8_WHITE, 0},
};

/* The terminal's background, dark or light (--theme, COLORFGBG). */
static PaletteTheme theme = THEME_DARK;

void palette_set_theme(PaletteTheme t) { theme = t == THEME_LIGHT ? THEME_LIGHT : THEME_DARK; }
PaletteTheme palette_theme(void) { return theme; }

/* COLORFGBG is "fg;bg" (rxvt, Konsole, some others; "fg;default;bg" too):
 * the last field is the background's colour number, light for 7 and 9..15. */
PaletteTheme palette_theme_detect(const char *colorfgbg) {
    if (!colorfgbg) return THEME_DARK;
    const char *last = colorfgbg;
    for (const char *p = colorfgbg; *p; p++)
        if (*p == ';') last = p + 1;
    int bg = 0, digits = 0;
    for (const char *p = last; *p >= '0' && *p <= '9' && digits < 3; p++, digits++) bg = bg * 10 + (*p - '0');
    if (digits == 0 || last[digits] != '\0') return THEME_DARK;
    return bg == 7 || (bg >= 9 && bg <= 15) ? THEME_LIGHT : THEME_DARK;
}

static const RampColor no_color = {-1, -1, 0};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))
_Static_assert(sizeof div256_dark == sizeof div256_light, "the 256-colour diverging ramps have one length");
_Static_assert(sizeof seq8_dark == sizeof seq8_light, "the 8-colour sequential ramps have one length");
_Static_assert(sizeof div8_dark == sizeof div8_light, "the 8-colour diverging ramps have one length");

/* Bin of t in [0, 1] among n equal bins; NaN and t <= 0 give 0, t >= 1 the
 * last. Comparisons are written so NaN falls into the first branch. */
static int palette_bin(double t, int n) {
    if (!(t > 0.0)) return 0;
    if (t >= 1.0) return n - 1;
    int i = (int)(t * n);
    return i < n ? i : n - 1;
}

/* Step of t in [-1, 1] on a diverging ramp of n = 2m+1 steps: n equal bins,
 * symmetric about 0 by construction (t and -t land m steps either side), the
 * middle bin |t| < 1/n. NaN gives the middle. */
static int palette_div_index(double t, int n) {
    int m = n / 2;
    if (!(t == t)) return m;
    double a = fabs(t);
    int k = a >= 1.0 ? m : (int)(a * (m + 0.5) + 0.5);
    if (k > m) k = m;
    return t < 0 ? m - k : m + k;
}

RampColor palette_seq(ColorTier tier, double t) {
    int light = theme == THEME_LIGHT;
    switch (tier) {
    case TIER_256:
        return light ? seq256_light[palette_bin(t, COUNT(seq256_light))]
                     : seq256_dark[palette_bin(t, COUNT(seq256_dark))];
    case TIER_8: return (light ? seq8_light : seq8_dark)[palette_bin(t, COUNT(seq8_dark))];
    case TIER_NONE: break;
    }
    return no_color;
}

RampColor palette_div(ColorTier tier, double t) {
    int light = theme == THEME_LIGHT;
    switch (tier) {
    case TIER_256: return (light ? div256_light : div256_dark)[palette_div_index(t, COUNT(div256_dark))];
    case TIER_8: return (light ? div8_light : div8_dark)[palette_div_index(t, COUNT(div8_dark))];
    case TIER_NONE: break;
    }
    return no_color;
}

/* Without colour a ramp has one step (no colour at all): legends then show
 * the shade glyphs instead. */
int palette_seq_steps(ColorTier tier) {
    if (tier == TIER_256) return theme == THEME_LIGHT ? COUNT(seq256_light) : COUNT(seq256_dark);
    return tier == TIER_8 ? COUNT(seq8_dark) : 1;
}

int palette_div_steps(ColorTier tier) {
    return tier == TIER_256 ? COUNT(div256_dark) : tier == TIER_8 ? COUNT(div8_dark) : 1;
}

// ----------------------------------------------------------------------------
// Shade glyphs

const char *palette_shade(double t, int ascii) {
    static const char *const unicode[] = {" ", "░", "▒", "▓", "█"};
    /* More ink step by step, lighter on a dark background and darker on a
     * light one, each step at least 1.2 L* from the next in the pictures'
     * font (test_picture.c measures it; ; & O @ were too close to a
     * neighbour or out of order on one background). No - = + (they read as
     * signs beside a number), no digits, no % or $, no x (--ascii's masked
     * cell), and no . (".31" after it reads "..31"). */
    static const char *const plain[] = {" ", "`", ":", "*", "o", "#"};
    if (ascii) return plain[palette_bin(t, COUNT(plain))];
    return unicode[palette_bin(t, COUNT(unicode))];
}

const char *palette_shade_signed(double t, int ascii) {
    /* Magnitude marks that cannot be read as a sign (the number beside
     * carries the sign): hollow for negatives, filled for positives. */
    static const char *const negative[] = {" ", ".", "o", "O"};
    static const char *const positive[] = {" ", ":", "*", "#"};
    (void)ascii; /* all ASCII already, so both modes draw the same */
    if (!(t == t)) return " ";
    int level = palette_bin(fabs(t), COUNT(negative));
    return t < 0 ? negative[level] : positive[level];
}
