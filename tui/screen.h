/* screen.h - the app on a real terminal (ncursesw): set-up, the event loop
 * and the restoration of the terminal on every way out. */
#ifndef ATTNVIZ_SCREEN_H
#define ATTNVIZ_SCREEN_H

#include "app.h"
#include "cli.h"

/* Runs the interactive app until q, a signal (SIGINT, SIGTERM, SIGHUP) or an
 * error. The terminal is restored before returning. Returns the exit status
 * (0; 1 with a message in err when the terminal could not be set up; 2 with
 * a message in err when a model file changed while in use, filemap.h; 128 +
 * the signal's number when a signal ended it). */
int screen_run(App *a, const CliOptions *o, AvError *err);

/* Copies a canvas into the current ncurses screen and sends what changed
 * (erase, every cell, wnoutrefresh, doupdate). For screen_run and for
 * benchmarks that drive the app on a headless newterm. */
void screen_blit(const Canvas *cv, ColorTier tier);

/* The colour tier the terminal supports, for the app (call after initscr). */
ColorTier screen_tier(ColorMode mode);

#endif
