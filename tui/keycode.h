/* keycode.h - ncurses' key codes to the app's (APP_KEY_*, app.h): the one
 * place outside screen.c that knows KEY_*, for screen.c, the tests and the
 * fuzz targets. */
#ifndef ATTNVIZ_KEYCODE_H
#define ATTNVIZ_KEYCODE_H

#include <stdint.h>

/* The APP_KEY_* code of an ncurses KEY_* code; APP_KEY_UNKNOWN for one the
 * app has no use for. */
uint32_t keycode_from_curses(int key);

#endif
