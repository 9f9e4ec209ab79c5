/* palette.h - colour tiers and value ramps.
 *
 * Tiers: 256 colours (a perceptual, viridis-like sequential ramp and a
 * blue-red diverging ramp in the xterm-256 palette; the palette itself is
 * never redefined), 8 colours (a short ramp of the basic colours, with bold
 * for the farthest step), and none (NO_COLOR, --color=never, a terminal
 * without colours): then shade glyphs carry the value. There is no 16-colour
 * tier: a 16-colour terminal gets the 8-colour ramps (bright backgrounds are
 * not in every such terminal).
 *
 * Every ramp starts from the terminal's background at 0 (-1: its default
 * colour) and moves away from it in lightness step by step: lighter on a
 * dark background, darker on a light one (the diverging ramps on each side
 * of their 0), as the shade glyphs gain ink. */
#ifndef ATTNVIZ_PALETTE_H
#define ATTNVIZ_PALETTE_H

typedef enum { TIER_NONE, TIER_8, TIER_256 } ColorTier;

/* Picks the tier: `mode` 0 auto, 1 always, 2 never (as ColorMode in cli.h);
 * no_color_env is getenv("NO_COLOR") (non-empty means never in auto mode);
 * colors is the terminal's COLORS (0 or less when it has none). `always` with a
 * terminal of fewer than 8 colours still gives TIER_8 (for --once to a pipe). */
ColorTier palette_tier(int mode, const char *no_color_env, int colors);

/* A ramp step: background colour index (xterm-256 or 0..7; -1 the
 * terminal's own background, at 0), a foreground colour that stays readable
 * on it (-1 with it), and whether the step wants bold. */
typedef struct {
    short bg, fg;
    int bold;
} RampColor;

/* The terminal's background, dark or light: each ramp has a table for each
 * (zero is the background, the largest values the farthest from it). Set
 * once at start (--theme, or palette_theme_detect of the COLORFGBG
 * variable); dark until then. attnviz does not ask the terminal (OSC 11):
 * over SSH its answer may come late and be read as keys. */
typedef enum { THEME_DARK, THEME_LIGHT } PaletteTheme;
void palette_set_theme(PaletteTheme t);
PaletteTheme palette_theme(void);
/* The theme COLORFGBG ("15;0": white on black) says; dark when unset or
 * unreadable. */
PaletteTheme palette_theme_detect(const char *colorfgbg);

/* Sequential ramp: value t in [0, 1] (clamped; NaN gives 0) to a colour. */
RampColor palette_seq(ColorTier tier, double t);
/* Diverging ramp: t in [-1, 1] (clamped), 0 is the neutral middle. */
RampColor palette_div(ColorTier tier, double t);

/* Number of distinct steps of each ramp at a tier and the theme (for legends). */
int palette_seq_steps(ColorTier tier);
int palette_div_steps(ColorTier tier);

/* Shade glyph for t in [0, 1] when there is no colour: " ░▒▓█" in Unicode
 * mode, " `:*o#" in ASCII mode, more ink step by step (so lighter on a dark
 * background, darker on a light one; no sign-like - = +). Returns a
 * NUL-terminated UTF-8 string. */
const char *palette_shade(double t, int ascii);
/* Glyph for t in [-1, 1] without colour, keeping the sign visible (same in
 * both modes; all ASCII): by |t| in four levels, negatives " .oO" and
 * positives " :*#" (so -1 is "O", +1 is "#", values near 0 a space): marks
 * that no one reads as a minus sign beside a number. */
const char *palette_shade_signed(double t, int ascii);

#endif
