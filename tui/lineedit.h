/* lineedit.h - a one-line editor for prompts (d_k, the sentence): UTF-8 text,
 * the cursor moves by character, wide characters count two columns,
 * Backspace removes a whole character (with its combining marks). The text is
 * bytes: NUL, ESC, CR and other controls are text like any other character
 * (a sentence from a file keeps them), and the app draws the text escaped as
 * labels are (utf8_escape), so a control character is as wide as its escape
 * ("\x1B" is 4 columns). No curses: the app feeds it keys and draws what it
 * says. */
#ifndef ATTNVIZ_LINEEDIT_H
#define ATTNVIZ_LINEEDIT_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    char *buf;     /* the text, buf[len] = '\0'; may hold NULs: len counts (owned) */
    size_t len;    /* bytes in buf */
    size_t cap;    /* capacity of buf */
    size_t cursor; /* byte offset of the cursor, always at a character boundary */
    size_t max;    /* most bytes the text may have */
    int selected;  /* the whole text is selected (le_select_all): typing replaces it */
} LineEdit;

typedef enum {
    LE_KEY_CHAR, /* a character: cp */
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

/* Starts editing the len bytes of `initial` (may be NULL when len is 0),
 * copied as they are, with the cursor at the end. Returns -1 when out of
 * memory. max: most bytes the text may reach (typing more is refused; the
 * initial text is never cut to it). Free with le_free (NULL-safe). */
int le_init(LineEdit *e, const char *initial, size_t len, size_t max);
void le_free(LineEdit *e);

/* Selects the whole text, as a shell or a form offers a default: the first
 * character typed (or pasted) replaces it; any editing key (the arrows, Home,
 * End, Backspace, Delete, Ctrl-U) ends the selection and edits the text as it
 * is; Enter takes it untouched. Nothing is selected when the text is empty. */
void le_select_all(LineEdit *e);

/* Applies one key. LE_KEY_CHAR inserts any Unicode scalar value, controls
 * and NUL included (pasted text is text; the app decides which typed keys are
 * characters); a surrogate or a value above U+10FFFF has no UTF-8 and is
 * ignored. Enter gives LE_DONE, Escape LE_CANCEL. */
LeResult le_key(LineEdit *e, LeKey key, uint32_t cp);

/* What to show in a field of `cols` columns: the byte range [*from, *to) of
 * buf to draw and the column of the cursor inside the field, scrolling
 * horizontally so the cursor is always visible (with a margin). */
void le_view(const LineEdit *e, int cols, size_t *from, size_t *to, int *cursor_col);

#endif
