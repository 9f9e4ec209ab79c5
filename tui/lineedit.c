/* lineedit.c - the one-line editor behind the prompts ("type an exact d_k",
 * "edit the sentence"); see lineedit.h.
 *
 * The unit of editing is a "cell": a base code point followed by the
 * zero-width code points (combining marks, conjoining jamo, joiners) that
 * draw on top of it. Left/Right/Backspace/Delete move over or remove whole
 * cells, so "e\u0301" behaves as one é and a Hangul syllable as one 학.
 * Zero width and column widths come from text_cp_width (the C library's
 * wcwidth, as ncurses and the canvas measure), which needs a UTF-8 locale:
 * the cursor lands where the screen draws it. A character that is drawn
 * escaped (utf8_is_unsafe, or an invalid byte) is as wide as its escape and
 * is never a mark: "\u{200D}" is 8 columns of its own. */
#include "lineedit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"
#include "utf8.h"

/* Columns of context le_view tries to keep on each side of the cursor. */
#define LE_VIEW_MARGIN 4
/* First capacity of buf: a d_k prompt never grows past it. */
#define LE_MIN_CAP 16

/* ===== Cells ===== */

/* Decodes the code point at byte i; an invalid byte (only possible if buf
 * was filled behind our back) counts as a one-byte, one-column character. */
static size_t le_decode_at(const LineEdit *e, size_t i, uint32_t *cp) {
    int n = utf8_decode(e->buf + i, e->len - i, cp);
    return n > 0 ? (size_t)n : 1;
}

static int le_is_zero_width(uint32_t cp) { return cp != UTF8_INVALID && !utf8_is_unsafe(cp) && text_cp_width(cp) == 0; }

/* Columns of one code point as the prompt draws it: escaped ones as wide as
 * their escape (utf8_escape: \n, \xNN, \u{HHHH}), the others by wcwidth. */
static int le_cp_width(uint32_t cp) {
    if (cp == UTF8_INVALID) return 4; /* \xNN */
    if (!utf8_is_unsafe(cp)) return text_cp_width(cp);
    if (cp == '\n' || cp == '\t' || cp == '\r') return 2;
    if (cp < 0x80) return 4;
    char esc[16];
    return snprintf(esc, sizeof esc, "\\u{%04X}", (unsigned)cp);
}

/* Byte offset of the code point that ends at i (i > 0). */
static size_t le_prev_cp(const LineEdit *e, size_t i, uint32_t *cp) {
    size_t start = i - 1;
    while (start > 0 && i - start < 4 && ((unsigned char)e->buf[start] & 0xC0) == 0x80) start--;
    /* The lead byte found must decode to exactly [start, i); otherwise the
     * last byte is a stray one and stands alone. */
    if (le_decode_at(e, start, cp) != i - start) {
        start = i - 1;
        *cp = UTF8_INVALID;
    }
    return start;
}

/* End of the cell that starts at i (i < len): the code point and its marks. */
static size_t le_next_cell(const LineEdit *e, size_t i) {
    uint32_t cp;
    i += le_decode_at(e, i, &cp);
    while (i < e->len) {
        size_t n = le_decode_at(e, i, &cp);
        if (!le_is_zero_width(cp)) break;
        i += n;
    }
    return i;
}

/* Start of the cell that ends at i (i > 0): back over marks to their base.
 * A mark with no base (at the start of the text) is a cell of its own. */
static size_t le_prev_cell(const LineEdit *e, size_t i) {
    uint32_t cp;
    size_t start = le_prev_cp(e, i, &cp);
    while (start > 0 && le_is_zero_width(cp)) start = le_prev_cp(e, start, &cp);
    return start;
}

/* Columns of the cell [i, next): its base's width; marks add nothing. */
static int le_cell_width(const LineEdit *e, size_t i) {
    uint32_t cp;
    le_decode_at(e, i, &cp);
    return le_cp_width(cp);
}

/* ===== Buffer ===== */

/* Makes room for `need` bytes plus the NUL. Returns -1 (buf untouched) when
 * out of memory or when the size would overflow. */
static int le_reserve(LineEdit *e, size_t need) {
    if (need >= SIZE_MAX / 2) return -1;
    if (need + 1 <= e->cap) return 0;
    size_t cap = e->cap < LE_MIN_CAP ? LE_MIN_CAP : e->cap;
    while (cap < need + 1) cap *= 2;
    char *buf = realloc(e->buf, cap);
    if (!buf) return -1;
    e->buf = buf;
    e->cap = cap;
    return 0;
}

/* Removes bytes [from, to) and puts the cursor at `from`. */
static void le_erase(LineEdit *e, size_t from, size_t to) {
    memmove(e->buf + from, e->buf + to, e->len - to + 1); /* + 1: the NUL */
    e->len -= to - from;
    e->cursor = from;
}

/* ===== API ===== */

int le_init(LineEdit *e, const char *initial, size_t len, size_t max) {
    if (!e) return -1;
    memset(e, 0, sizeof *e);
    e->max = max;
    if (!initial) len = 0;
    if (le_reserve(e, len)) return -1;
    /* Byte for byte: Enter on an untouched sentence must give the same
     * sentence, NULs and escape sequences included (they are shown escaped).
     * Not cut to max: editing a long sentence must not lose its end. */
    if (len) memcpy(e->buf, initial, len);
    e->buf[len] = '\0';
    e->len = len;
    e->cursor = len;
    return 0;
}

void le_free(LineEdit *e) {
    if (!e) return;
    free(e->buf);
    memset(e, 0, sizeof *e);
}

/* Inserts cp at the cursor. Refused (text unchanged) when it is not a
 * Unicode scalar value, would pass max, or memory runs out: le_key has no
 * error to return, and a prompt that keeps its text is the safe outcome. */
static void le_insert(LineEdit *e, uint32_t cp) {
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return;
    char enc[4];
    size_t n = (size_t)utf8_encode(cp, enc);
    if (e->len + n > e->max || le_reserve(e, e->len + n)) return;
    memmove(e->buf + e->cursor + n, e->buf + e->cursor, e->len - e->cursor + 1);
    memcpy(e->buf + e->cursor, enc, n);
    e->len += n;
    e->cursor += n;
    /* A base typed in front of marks takes them over (they now draw on it):
     * step past them so the cursor stays on a cell boundary. */
    if (!le_is_zero_width(cp)) {
        uint32_t next;
        while (e->cursor < e->len) {
            size_t m = le_decode_at(e, e->cursor, &next);
            if (!le_is_zero_width(next)) break;
            e->cursor += m;
        }
    }
}

void le_select_all(LineEdit *e) { e->selected = e->len > 0; }

LeResult le_key(LineEdit *e, LeKey key, uint32_t cp) {
    /* A selection (le_select_all) is replaced by a character typed; an
     * editing key keeps the text and edits it from where the cursor is. */
    if (e->selected && key != LE_KEY_ENTER && key != LE_KEY_ESCAPE) {
        e->selected = 0;
        /* Not when the character would be refused: the text stays then. */
        if (key == LE_KEY_CHAR && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF)) le_erase(e, 0, e->len);
    }
    switch (key) {
    case LE_KEY_CHAR: le_insert(e, cp); break;
    case LE_KEY_LEFT:
        if (e->cursor > 0) e->cursor = le_prev_cell(e, e->cursor);
        break;
    case LE_KEY_RIGHT:
        if (e->cursor < e->len) e->cursor = le_next_cell(e, e->cursor);
        break;
    case LE_KEY_HOME: e->cursor = 0; break;
    case LE_KEY_END: e->cursor = e->len; break;
    case LE_KEY_BACKSPACE:
        if (e->cursor > 0) le_erase(e, le_prev_cell(e, e->cursor), e->cursor);
        break;
    case LE_KEY_DELETE:
        if (e->cursor < e->len) le_erase(e, e->cursor, le_next_cell(e, e->cursor));
        break;
    case LE_KEY_KILL:
        if (e->cursor > 0) le_erase(e, 0, e->cursor);
        break;
    case LE_KEY_ENTER: return LE_DONE;
    case LE_KEY_ESCAPE: return LE_CANCEL;
    }
    return LE_CONTINUE;
}

/* The view holds no scroll state (LineEdit has no field for it), so it is a
 * function of text and cursor: start as far left as possible while the
 * cursor's cell and up to `margin` columns after it still fit. Typing at the
 * end keeps the cursor near the right edge with the text before it in view;
 * Home shows the start. A cell is never split at either edge. */
void le_view(const LineEdit *e, int cols, size_t *from, size_t *to, int *cursor_col) {
    *from = *to = e->cursor;
    *cursor_col = 0;
    if (cols <= 0) return;
    int margin = (cols - 1) / 3;
    if (margin > LE_VIEW_MARGIN) margin = LE_VIEW_MARGIN;

    /* Columns needed from the cursor on: its cell (one free column when it
     * sits after the last character), then whole cells of context. The cell
     * before the cursor (what Backspace removes) comes before that context
     * when the field is too narrow for both. */
    int right = e->cursor < e->len ? le_cell_width(e, e->cursor) : 1;
    if (right < 1) right = 1; /* a mark with no base, at the start: still a cursor cell */
    /* A wide cell in a one-column field cannot be shown: show nothing
     * rather than half a character; the cursor still has column 0. */
    if (right > cols) return;
    if (e->cursor < e->len) {
        int before = e->cursor > 0 ? le_cell_width(e, le_prev_cell(e, e->cursor)) : 0;
        int context = 0;
        size_t i = le_next_cell(e, e->cursor);
        while (i < e->len) {
            int w = le_cell_width(e, i);
            if (context + w > margin || before + right + context + w > cols) break;
            context += w;
            i = le_next_cell(e, i);
        }
        right += context;
    }

    /* Back from the cursor over whole cells while they fit. */
    int left = 0;
    size_t start = e->cursor;
    while (start > 0) {
        size_t prev = le_prev_cell(e, start);
        int w = le_cell_width(e, prev);
        if (left + w > cols - right) break;
        left += w;
        start = prev;
    }

    /* Forward from the start while whole cells fit; the cursor's cell fits
     * by construction. */
    int width = 0;
    size_t end = start;
    while (end < e->len) {
        int w = le_cell_width(e, end);
        if (width + w > cols) break;
        width += w;
        end = le_next_cell(e, end);
    }
    *from = start;
    *to = end;
    *cursor_col = left;
}
