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

/* Sequential, 256 colours: viridis-like, 12 steps of the xterm-256 cube
 * (0-15 left out since themes redefine them) with luminance strictly rising
 * from step to step, and no greyish step: each is a saturated cube colour
 * (chroma >= 0.37), because a desaturated step mid-ramp (#5F5F87, #5FAF87)
 * reads as "neutral" on a projector. Violet, blue, teal, green, yellow, as
 * viridis. fg: whichever of black/white contrasts more (WCAG ratio >= 4.5). */
static const RampColor seq256[] = {
    {53, FG_WHITE, 0},  /* #5F005F */
    {54, FG_WHITE, 0},  /* #5F0087 */
    {25, FG_WHITE, 0},  /* #005FAF */
    {26, FG_WHITE, 0},  /* #005FD7 */
    {31, FG_BLACK, 0},  /* #0087AF */
    {32, FG_BLACK, 0},  /* #0087D7 */
    {37, FG_BLACK, 0},  /* #00AFAF */
    {42, FG_BLACK, 0},  /* #00D787 */
    {78, FG_BLACK, 0},  /* #5FD787 */
    {113, FG_BLACK, 0}, /* #87D75F */
    {148, FG_BLACK, 0}, /* #AFD700 */
    {220, FG_BLACK, 0}, /* #FFD700 */
};

/* Diverging, 256 colours: ColorBrewer RdBu (9 classes) reversed, #2166AC ..
 * #F7F7F7 .. #B2182B, interpolated in CIELAB to 11 steps and mapped as above,
 * with luminance rising to the middle and falling after it, the blue half
 * kept bluish (b > r) and the red half reddish (r > b) so the sign survives
 * the palette, and the middle an exact grey (white) for t = 0. */
static const RampColor div256[] = {
    {25, FG_WHITE, 0},  /* #2166AC -> #005FAF */
    {67, FG_BLACK, 0},  /* #3D8ABE -> #5F87AF */
    {74, FG_BLACK, 0},  /* #75B1D3 -> #5FAFD7 */
    {152, FG_BLACK, 0}, /* #ACD2E5 -> #AFD7D7 */
    {195, FG_BLACK, 0}, /* #D9E9F1 -> #D7FFFF */
    {231, FG_BLACK, 0}, /* #F7F7F7 -> #FFFFFF */
    {224, FG_BLACK, 0}, /* #FCE1D0 -> #FFD7D7 */
    {216, FG_BLACK, 0}, /* #F9BB9D -> #FFAF87 */
    {173, FG_BLACK, 0}, /* #E98A6C -> #D7875F */
    {167, FG_BLACK, 0}, /* #CF5446 -> #D75F5F */
    {88, FG_WHITE, 0},  /* #B2182B -> #870000 */
};

/* Sequential, 8 colours, in the order of the basic colours' luminance as
 * most terminals draw them (blue, red, green, cyan, yellow: five steps,
 * each its own colour, so that the legend shows every one), the last bold. Neither black nor white: black is a dark
 * theme's background (a low weight would look masked, or empty) and white a light theme's (the largest weight would
 * vanish). */
static const RampColor seq8[] = {
    {C8_BLUE, C8_WHITE, 0}, {C8_RED, C8_WHITE, 0},    {C8_GREEN, C8_BLACK, 0},
    {C8_CYAN, C8_BLACK, 0}, {C8_YELLOW, C8_BLACK, 1},
};

/* Diverging, 8 colours: blue side, a neutral middle, red side. The middle
 * is the theme's own background tone (black on a dark theme, white on a
 * light one), so that values near 0 recede and the signs stand out. */
static const RampColor div8_dark[] = {
    {C8_BLUE, C8_WHITE, 0},   {C8_CYAN, C8_BLACK, 0}, {C8_BLACK, C8_WHITE, 0},
    {C8_YELLOW, C8_BLACK, 0}, {C8_RED, C8_WHITE, 0},
};
static const RampColor div8_light[] = {
    {C8_BLUE, C8_WHITE, 0},   {C8_CYAN, C8_BLACK, 0}, {C8_WHITE, C8_BLACK, 0},
    {C8_YELLOW, C8_BLACK, 0}, {C8_RED, C8_WHITE, 0},
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
    switch (tier) {
    case TIER_256: return seq256[palette_bin(t, COUNT(seq256))];
    case TIER_8: return seq8[palette_bin(t, COUNT(seq8))];
    case TIER_NONE: break;
    }
    return no_color;
}

RampColor palette_div(ColorTier tier, double t) {
    switch (tier) {
    case TIER_256: return div256[palette_div_index(t, COUNT(div256))];
    case TIER_8: return (theme == THEME_LIGHT ? div8_light : div8_dark)[palette_div_index(t, COUNT(div8_dark))];
    case TIER_NONE: break;
    }
    return no_color;
}

/* Without colour a ramp has one step (no colour at all): legends then show
 * the shade glyphs instead. */
int palette_seq_steps(ColorTier tier) { return tier == TIER_256 ? COUNT(seq256) : tier == TIER_8 ? COUNT(seq8) : 1; }

int palette_div_steps(ColorTier tier) {
    return tier == TIER_256 ? COUNT(div256) : tier == TIER_8 ? COUNT(div8_dark) : 1;
}

// ----------------------------------------------------------------------------
// Shade glyphs

const char *palette_shade(double t, int ascii) {
    static const char *const unicode[] = {" ", "░", "▒", "▓", "█"};
    /* No - = + (they read as signs beside a number) and no digits. */
    static const char *const plain[] = {" ", ".", ":", ";", "o", "O", "*", "#", "&", "@"};
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
