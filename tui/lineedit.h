/* lineedit.h - a one-line editor for prompts (d_k, the sentence): UTF-8 text,
 * the cursor moves by character, wide characters count two columns,
 * Backspace removes a whole character (with its combining marks). No curses:
 * the app feeds it keys and draws what it says. */
#ifndef ATTNVIZ_LINEEDIT_H
#define ATTNVIZ_LINEEDIT_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    char *buf;     /* UTF-8 text, NUL-terminated (owned) */
    size_t len;    /* bytes in buf */
    size_t cap;    /* capacity of buf */
    size_t cursor; /* byte offset of the cursor, always at a character boundary */
    size_t max;    /* most bytes the text may have */
} LineEdit;

typedef enum {
    LE_KEY_CHAR,      /* a character: cp */
    LE_KEY_LEFT,
    LE_KEY_RIGHT,
    LE_KEY_HOME,      /* also Ctrl-A */
    LE_KEY_END,       /* also Ctrl-E */
    LE_KEY_BACKSPACE, /* delete the character before the cursor */
    LE_KEY_DELETE,    /* delete the character under the cursor */
    LE_KEY_KILL,      /* Ctrl-U: delete everything before the cursor */
    LE_KEY_ENTER,
    LE_KEY_ESCAPE,
} LeKey;

typedef enum { LE_CONTINUE, LE_DONE, LE_CANCEL } LeResult;

/* Starts editing `initial` (may be NULL) with the cursor at its end. Returns
 * -1 when out of memory. max: most bytes the text may reach (typing more is
 * refused). Free with le_free (NULL-safe). */
int le_init(LineEdit *e, const char *initial, size_t max);
void le_free(LineEdit *e);

/* Applies one key. A LE_KEY_CHAR with a control character (below 0x20, 0x7F,
 * C1) or an invalid code point is ignored: prompts never hold raw control
 * characters. Enter gives LE_DONE, Escape LE_CANCEL. */
LeResult le_key(LineEdit *e, LeKey key, uint32_t cp);

/* What to show in a field of `cols` columns: the byte range [*from, *to) of
 * buf to draw and the column of the cursor inside the field, scrolling
 * horizontally so the cursor is always visible (with a margin). */
void le_view(const LineEdit *e, int cols, size_t *from, size_t *to, int *cursor_col);

#endif
