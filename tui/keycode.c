/* keycode.c - see keycode.h. */
#include "keycode.h"

#include <curses.h>

#include "app.h"

uint32_t keycode_from_curses(int key) {
    switch (key) {
    case KEY_UP: return APP_KEY_UP;
    case KEY_DOWN: return APP_KEY_DOWN;
    case KEY_LEFT: return APP_KEY_LEFT;
    case KEY_RIGHT: return APP_KEY_RIGHT;
    case KEY_PPAGE: return APP_KEY_PAGE_UP;
    case KEY_NPAGE: return APP_KEY_PAGE_DOWN;
    case KEY_HOME: return APP_KEY_HOME;
    case KEY_END: return APP_KEY_END;
    case KEY_BTAB: return APP_KEY_BACK_TAB;
    case KEY_BACKSPACE: return APP_KEY_BACKSPACE;
    case KEY_DC: return APP_KEY_DELETE;
    case KEY_ENTER: return APP_KEY_ENTER;
    default: return APP_KEY_UNKNOWN;
    }
}
