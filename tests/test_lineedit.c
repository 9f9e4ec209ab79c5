/* test_lineedit.c - the prompt line editor: cursor moves by whole characters
 * (Hangul syllables, bases with their combining marks), editing keys, the
 * bytes kept as they are (controls, NULs), text past max refused, the horizontal
 * scrolling of le_view in a narrow field. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <locale.h>
#include <string.h>

#include "lineedit.h"
#include "utf8.h"

/* ---------------------------------------------------------------------------
 * Helpers */

/* Types every character of the UTF-8 string s, as the app would key by key. */
static void le_test_type(LineEdit *e, const char *s) {
    size_t len = strlen(s);
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        int n = utf8_decode(s + i, len - i, &cp);
        assert_int_equal(le_key(e, LE_KEY_CHAR, cp), LE_CONTINUE);
        i += (size_t)n;
    }
}

static void le_test_keys(LineEdit *e, LeKey key, int times) {
    for (int i = 0; i < times; i++) assert_int_equal(le_key(e, key, 0), LE_CONTINUE);
}

/* 1 when byte i of buf starts a code point (is not a continuation byte). */
static int le_test_boundary(const LineEdit *e, size_t i) {
    return i == e->len || ((unsigned char)e->buf[i] & 0xC0) != 0x80;
}

/* ---------------------------------------------------------------------------
 * Typing and moving */

static void test_type_ascii_and_hangul(void **state) {
    (void)state;
    LineEdit e;
    assert_int_equal(le_init(&e, NULL, 0, 64), 0);
    le_test_type(&e, "ab");
    assert_int_equal(e.len, 2);
    assert_int_equal(e.cursor, 2);
    assert_int_equal(le_key(&e, LE_KEY_CHAR, 0xD559), LE_CONTINUE); /* 학 */
    assert_int_equal(e.cursor, 5);
    assert_int_equal(le_key(&e, LE_KEY_CHAR, 0xAD50), LE_CONTINUE); /* 교 */
    assert_int_equal(e.cursor, 8);
    assert_int_equal(e.len, 8);
    assert_string_equal(e.buf, "ab학교");
    le_free(&e);
}

static void test_init_puts_cursor_at_end(void **state) {
    (void)state;
    LineEdit e;
    assert_int_equal(le_init(&e, "학교", strlen("학교"), 64), 0);
    assert_int_equal(e.len, 6);
    assert_int_equal(e.cursor, 6);
    assert_string_equal(e.buf, "학교");
    le_free(&e);
}

static void test_left_right_home_end(void **state) {
    (void)state;
    LineEdit e;
    /* a(1) 학(3) e(1) U+0301(2) b(1): cell starts at 0, 1, 4, 7; end 8 */
    assert_int_equal(le_init(&e,
                             "a학e\xCC\x81"
                             "b",
                             8, 64),
                     0);
    assert_int_equal(e.len, 8);
    static const size_t left[] = {7, 4, 1, 0, 0};
    for (size_t i = 0; i < sizeof left / sizeof *left; i++) {
        le_test_keys(&e, LE_KEY_LEFT, 1);
        assert_int_equal(e.cursor, left[i]);
    }
    static const size_t right[] = {1, 4, 7, 8, 8};
    for (size_t i = 0; i < sizeof right / sizeof *right; i++) {
        le_test_keys(&e, LE_KEY_RIGHT, 1);
        assert_int_equal(e.cursor, right[i]);
    }
    le_test_keys(&e, LE_KEY_HOME, 1);
    assert_int_equal(e.cursor, 0);
    le_test_keys(&e, LE_KEY_END, 1);
    assert_int_equal(e.cursor, 8);
    le_free(&e);
}

static void test_insert_in_middle(void **state) {
    (void)state;
    LineEdit e;
    assert_int_equal(le_init(&e, "ac", strlen("ac"), 64), 0);
    le_test_keys(&e, LE_KEY_LEFT, 1);
    le_test_type(&e, "b");
    assert_string_equal(e.buf, "abc");
    assert_int_equal(e.cursor, 2);
    le_test_keys(&e, LE_KEY_HOME, 1);
    le_test_type(&e, "학");
    assert_string_equal(e.buf, "학abc");
    assert_int_equal(e.cursor, 3);
    assert_int_equal(e.len, 6);
    le_free(&e);
}

/* A base typed in front of a mark that had no base takes the mark over: the
 * cursor goes after both, never between a base and its mark. */
static void test_base_typed_before_mark(void **state) {
    (void)state;
    LineEdit e;
    assert_int_equal(le_init(&e, "\xCC\x81x", strlen("\xCC\x81x"), 64), 0);
    le_test_keys(&e, LE_KEY_HOME, 1);
    le_test_type(&e, "e");
    assert_string_equal(e.buf, "e\xCC\x81x");
    assert_int_equal(e.cursor, 3);
    le_free(&e);
}

/* ---------------------------------------------------------------------------
 * Deleting */

static void test_backspace_hangul(void **state) {
    (void)state;
    LineEdit e;
    assert_int_equal(le_init(&e, "학교", strlen("학교"), 64), 0);
    le_test_keys(&e, LE_KEY_BACKSPACE, 1);
    assert_string_equal(e.buf, "학");
    assert_int_equal(e.len, 3);
    assert_int_equal(e.cursor, 3);
    le_test_keys(&e, LE_KEY_BACKSPACE, 2); /* the second one at 0 does nothing */
    assert_string_equal(e.buf, "");
    assert_int_equal(e.len, 0);
    assert_int_equal(e.cursor, 0);
    le_free(&e);
}

static void test_backspace_combining(void **state) {
    (void)state;
    LineEdit e;
    assert_int_equal(le_init(&e, NULL, 0, 64), 0);
    le_test_type(&e, "cafe\xCC\x81"); /* e + U+0301 COMBINING ACUTE ACCENT */
    assert_int_equal(e.len, 6);
    le_test_keys(&e, LE_KEY_BACKSPACE, 1);
    assert_string_equal(e.buf, "caf");
    assert_int_equal(e.cursor, 3);
    le_free(&e);
}

static void test_delete(void **state) {
    (void)state;
    LineEdit e;
    assert_int_equal(le_init(&e,
                             "a학e\xCC\x81"
                             "b",
                             8, 64),
                     0);
    le_test_keys(&e, LE_KEY_HOME, 1);
    le_test_keys(&e, LE_KEY_RIGHT, 1);
    le_test_keys(&e, LE_KEY_DELETE, 1); /* 학 */
    assert_string_equal(e.buf, "ae\xCC\x81"
                               "b");
    assert_int_equal(e.cursor, 1);
    le_test_keys(&e, LE_KEY_DELETE, 1); /* e and its accent */
    assert_string_equal(e.buf, "ab");
    assert_int_equal(e.cursor, 1);
    le_test_keys(&e, LE_KEY_END, 1);
    le_test_keys(&e, LE_KEY_DELETE, 1); /* at the end: nothing */
    assert_string_equal(e.buf, "ab");
    assert_int_equal(e.cursor, 2);
    le_free(&e);
}

static void test_kill(void **state) {
    (void)state;
    LineEdit e;
    assert_int_equal(le_init(&e, "hello 학교", strlen("hello 학교"), 64), 0);
    le_test_keys(&e, LE_KEY_LEFT, 2);
    assert_int_equal(e.cursor, 6);
    le_test_keys(&e, LE_KEY_KILL, 1);
    assert_string_equal(e.buf, "학교");
    assert_int_equal(e.len, 6);
    assert_int_equal(e.cursor, 0);
    le_test_keys(&e, LE_KEY_KILL, 1); /* at 0: nothing */
    assert_string_equal(e.buf, "학교");
    le_free(&e);
}

/* ---------------------------------------------------------------------------
 * What is refused */

/* Any scalar value is text, controls and NUL included (bracketed paste
 * inserts them through le_key); only what has no UTF-8 is refused. */
static void test_control_characters_inserted(void **state) {
    (void)state;
    LineEdit e;
    assert_int_equal(le_init(&e, "ab", 2, 64), 0);
    le_test_keys(&e, LE_KEY_LEFT, 1);
    static const uint32_t bad[] = {0xD800, 0xDFFF, 0x110000, UTF8_INVALID};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(le_key(&e, LE_KEY_CHAR, bad[i]), LE_CONTINUE);
        assert_string_equal(e.buf, "ab");
        assert_int_equal(e.len, 2);
        assert_int_equal(e.cursor, 1);
    }
    static const uint32_t ctl[] = {0x00, 0x1B, 0x0D, 0x0A, 0x07, 0x7F, 0x9B, 0x202E, 0x200D};
    for (size_t i = 0; i < sizeof ctl / sizeof *ctl; i++)
        assert_int_equal(le_key(&e, LE_KEY_CHAR, ctl[i]), LE_CONTINUE);
    static const char want[] = "a\0\x1b\r\n\x07\x7f\xc2\x9b\xe2\x80\xae\xe2\x80\x8d"
                               "b";
    assert_int_equal(e.len, sizeof want - 1);
    assert_memory_equal(e.buf, want, sizeof want);
    assert_int_equal(e.cursor, e.len - 1);
    /* A ZWJ is drawn escaped: not a mark, so Backspace takes it alone. */
    le_test_keys(&e, LE_KEY_BACKSPACE, 1);
    assert_int_equal(e.len, sizeof want - 1 - 3);
    le_test_keys(&e, LE_KEY_BACKSPACE, 1);
    assert_int_equal(e.len, sizeof want - 1 - 6);
    le_free(&e);
}

/* The initial text (the sentence, from a file) is kept byte for byte, NULs,
 * escape sequences and line breaks included, and is not cut to max. */
static void test_init_keeps_every_byte(void **state) {
    (void)state;
    LineEdit e;
    static const char text[] = "a\0b\x1b[31mc\nd\re\xe2\x80\xae"
                               "f\0";
    assert_int_equal(le_init(&e, text, sizeof text - 1, 4), 0);
    assert_int_equal(e.len, sizeof text - 1);
    assert_memory_equal(e.buf, text, sizeof text); /* and the NUL after it */
    assert_int_equal(e.cursor, e.len);
    /* Moving and typing elsewhere leaves those bytes alone. */
    le_test_keys(&e, LE_KEY_HOME, 1);
    le_test_keys(&e, LE_KEY_END, 1);
    assert_memory_equal(e.buf, text, sizeof text);
    le_free(&e);
    assert_int_equal(le_init(&e, NULL, 0, 4), 0);
    assert_int_equal(e.len, 0);
    le_free(&e);
}

/* A control character is as wide as its escape in the prompt ("\x1B" 4,
 * "\n" 2, "\u{200D}" 8 columns), so the cursor lands where it is drawn. */
static void test_view_escaped_widths(void **state) {
    (void)state;
    LineEdit e;
    static const char text[] = "a\x1b"
                               "b\nc\xe2\x80\x8d"
                               "d\0";
    assert_int_equal(le_init(&e, text, sizeof text - 1, 64), 0);
    size_t from, to;
    int col;
    le_view(&e, 40, &from, &to, &col);
    assert_int_equal(from, 0);
    assert_int_equal(to, e.len);
    assert_int_equal(col, 1 + 4 + 1 + 2 + 1 + 8 + 1 + 4); /* after the last \x00 */
    le_test_keys(&e, LE_KEY_HOME, 1);
    le_test_keys(&e, LE_KEY_RIGHT, 2);
    le_view(&e, 40, &from, &to, &col);
    assert_int_equal(col, 5);
    le_free(&e);
}

static void test_max(void **state) {
    (void)state;
    LineEdit e;
    assert_int_equal(le_init(&e, NULL, 0, 4), 0);
    le_test_type(&e, "ab");
    le_test_type(&e, "학"); /* would make 5 bytes */
    assert_string_equal(e.buf, "ab");
    le_test_type(&e, "cd");
    assert_string_equal(e.buf, "abcd");
    le_test_type(&e, "e");
    assert_string_equal(e.buf, "abcd");
    assert_int_equal(e.cursor, 4);
    le_test_keys(&e, LE_KEY_HOME, 1);
    le_test_type(&e, "x"); /* in the middle too */
    assert_string_equal(e.buf, "abcd");
    assert_int_equal(e.cursor, 0);
    le_test_keys(&e, LE_KEY_DELETE, 1);
    le_test_type(&e, "x"); /* room again */
    assert_string_equal(e.buf, "xbcd");
    le_free(&e);

    /* Exactly max is allowed. */
    assert_int_equal(le_init(&e, NULL, 0, 6), 0);
    le_test_type(&e, "학교");
    assert_int_equal(e.len, 6);
    le_free(&e);
}

/* Enough typing to outgrow the first allocation several times. */
static void test_grows(void **state) {
    (void)state;
    LineEdit e;
    assert_int_equal(le_init(&e, NULL, 0, 1000), 0);
    for (int i = 0; i < 200; i++) le_test_type(&e, "학");
    assert_int_equal(e.len, 600);
    assert_true(e.cap > e.len);
    assert_int_equal(utf8_width(e.buf, e.len), 400);
    le_free(&e);
}

static void test_enter_escape(void **state) {
    (void)state;
    LineEdit e;
    assert_int_equal(le_init(&e, "64", strlen("64"), 8), 0);
    assert_int_equal(le_key(&e, LE_KEY_ENTER, 0), LE_DONE);
    assert_string_equal(e.buf, "64");
    assert_int_equal(le_key(&e, LE_KEY_ESCAPE, 0), LE_CANCEL);
    assert_string_equal(e.buf, "64");
    assert_int_equal(e.cursor, 2);
    assert_int_equal(le_key(&e, LE_KEY_LEFT, 0), LE_CONTINUE);
    le_free(&e);
}

static void test_init_null_and_free(void **state) {
    (void)state;
    LineEdit e;
    assert_int_equal(le_init(&e, NULL, 0, 16), 0);
    assert_non_null(e.buf);
    assert_string_equal(e.buf, "");
    assert_int_equal(e.len, 0);
    assert_int_equal(e.cursor, 0);
    assert_int_equal(e.max, 16);
    le_test_keys(&e, LE_KEY_BACKSPACE, 1);
    le_test_keys(&e, LE_KEY_DELETE, 1);
    le_test_keys(&e, LE_KEY_LEFT, 1);
    le_test_keys(&e, LE_KEY_RIGHT, 1);
    assert_int_equal(e.cursor, 0);
    le_free(&e);
    assert_null(e.buf);
    assert_int_equal(e.len, 0);
    assert_int_equal(e.cap, 0);
    assert_int_equal(e.max, 0);
    le_free(&e); /* twice is fine: the struct was zeroed */
    le_free(NULL);
    assert_int_equal(le_init(NULL, "x", 1, 8), -1);
}

/* ---------------------------------------------------------------------------
 * le_view */

/* 20 syllables, 60 bytes, 40 columns. */
static const char le_test_hangul[] = "가나다라마바사아자차카타파하거너더러머버";

static void test_view_hangul_end_home_middle(void **state) {
    (void)state;
    LineEdit e;
    size_t from, to;
    int col;
    assert_int_equal(le_init(&e, le_test_hangul, strlen(le_test_hangul), 100), 0);
    assert_int_equal(e.len, 60);

    /* At the end: the cursor needs a free column, so 4 syllables (8 columns)
     * fit before it; a fifth would leave no room for the cursor. */
    le_view(&e, 10, &from, &to, &col);
    assert_int_equal(from, 48);
    assert_int_equal(to, 60);
    assert_int_equal(col, 8);

    /* At the start: 5 syllables fill the 10 columns. */
    le_test_keys(&e, LE_KEY_HOME, 1);
    le_view(&e, 10, &from, &to, &col);
    assert_int_equal(from, 0);
    assert_int_equal(to, 15);
    assert_int_equal(col, 0);

    /* In the middle (before the 11th syllable): its cell (2 columns) and one
     * syllable of context (margin 3) on the right, 3 syllables on the left. */
    le_test_keys(&e, LE_KEY_RIGHT, 10);
    assert_int_equal(e.cursor, 30);
    le_view(&e, 10, &from, &to, &col);
    assert_int_equal(from, 21);
    assert_int_equal(to, 36);
    assert_int_equal(col, 6);
    le_free(&e);
}

/* Every cursor position, several widths: the range fits, the cursor is in it
 * and visible, no character is split, and context is kept on both sides. */
static void test_view_invariants(void **state) {
    (void)state;
    static const char *texts[] = {le_test_hangul, "a가나다라마바사", "xe\xCC\x81학교 and ab가c"};
    for (size_t t = 0; t < sizeof texts / sizeof *texts; t++) {
        LineEdit e;
        assert_int_equal(le_init(&e, texts[t], strlen(texts[t]), 100), 0);
        for (int cols = 4; cols <= 12; cols++) {
            le_test_keys(&e, LE_KEY_HOME, 1);
            for (;;) {
                size_t from, to;
                int col;
                le_view(&e, cols, &from, &to, &col);
                assert_true(from <= e.cursor && e.cursor <= to);
                assert_true(le_test_boundary(&e, from) && le_test_boundary(&e, to));
                int width = utf8_width(e.buf + from, to - from);
                assert_true(width <= cols);
                assert_int_equal(col, utf8_width(e.buf + from, e.cursor - from));
                assert_true(col < cols);
                if (e.cursor == e.len) assert_true(width + 1 <= cols);
                /* Context: something before the cursor is shown whenever
                 * there is text before it, and after it likewise once the
                 * margin ((cols - 1) / 3) is wide enough for a syllable. */
                if (e.cursor > 0) assert_true(col > 0);
                if (e.cursor < e.len) {
                    size_t save = e.cursor;
                    le_key(&e, LE_KEY_RIGHT, 0);
                    size_t next = e.cursor;
                    e.cursor = save;
                    assert_true(to >= next); /* the cell under the cursor */
                    if (next < e.len && cols >= 7) assert_true(to > next);
                }
                if (e.cursor == e.len) break;
                le_key(&e, LE_KEY_RIGHT, 0);
            }
        }
        le_free(&e);
    }
}

/* "a" then wide syllables at the end of a 10-column field: 4 syllables (8
 * columns) fit before the cursor; the one before them would need 2 columns
 * where 1 is left, so it is skipped, not cut in half. */
static void test_view_no_half_wide_at_left(void **state) {
    (void)state;
    LineEdit e;
    size_t from, to;
    int col;
    assert_int_equal(le_init(&e, "a가나다라마바사", strlen("a가나다라마바사"), 100), 0);
    le_view(&e, 10, &from, &to, &col);
    assert_int_equal(from, 1 + 3 * 3);
    assert_int_equal(to, e.len);
    assert_int_equal(col, 8);
    assert_int_equal((unsigned char)e.buf[from], 0xEB); /* lead byte of 라 */
    le_free(&e);
}

static void test_view_combining_and_edges(void **state) {
    (void)state;
    LineEdit e;
    size_t from, to;
    int col;

    /* Empty text: nothing to draw, cursor at column 0. */
    assert_int_equal(le_init(&e, NULL, 0, 16), 0);
    le_view(&e, 10, &from, &to, &col);
    assert_int_equal(from, 0);
    assert_int_equal(to, 0);
    assert_int_equal(col, 0);
    le_free(&e);

    /* A base and its accent take one column. */
    assert_int_equal(le_init(&e, "e\xCC\x81", strlen("e\xCC\x81"), 16), 0);
    le_view(&e, 10, &from, &to, &col);
    assert_int_equal(from, 0);
    assert_int_equal(to, 3);
    assert_int_equal(col, 1);
    le_free(&e);

    /* A one-column field cannot show a wide character: nothing is drawn,
     * rather than half of it. */
    assert_int_equal(le_init(&e, "학", strlen("학"), 16), 0);
    le_view(&e, 1, &from, &to, &col);
    assert_int_equal(from, to);
    assert_int_equal(col, 0);
    le_test_keys(&e, LE_KEY_HOME, 1);
    le_view(&e, 1, &from, &to, &col);
    assert_int_equal(from, to);
    assert_int_equal(col, 0);
    le_free(&e);

    /* Four columns before 교 of "학교 a": the syllable before the cursor
     * (what Backspace removes) wins over the space of context after it. */
    assert_int_equal(le_init(&e, "학교 a", strlen("학교 a"), 16), 0);
    le_test_keys(&e, LE_KEY_LEFT, 3);
    assert_int_equal(e.cursor, 3);
    le_view(&e, 4, &from, &to, &col);
    assert_int_equal(from, 0);
    assert_int_equal(to, 6);
    assert_int_equal(col, 2);
    /* A field of no columns draws nothing. */
    le_view(&e, 0, &from, &to, &col);
    assert_int_equal(from, to);
    assert_int_equal(col, 0);
    le_free(&e);
}

/* ---------------------------------------------------------------------------
 * The value offered, selected (le_select_all): typing replaces it, editing
 * keys keep it. d_k 16, then "8": 8, not 168. */

static void le_test_offer(LineEdit *e, const char *value) {
    assert_int_equal(le_init(e, value, strlen(value), 64), 0);
    le_select_all(e);
    assert_int_equal(e->selected, 1);
}

static void test_selected_typing_replaces(void **state) {
    (void)state;
    LineEdit e;
    le_test_offer(&e, "16");
    le_test_type(&e, "8");
    assert_string_equal(e.buf, "8");
    assert_int_equal(e.len, 1);
    assert_int_equal(e.cursor, 1);
    assert_int_equal(e.selected, 0);
    le_test_type(&e, "4"); /* the selection is gone: the next key appends */
    assert_string_equal(e.buf, "84");
    le_free(&e);
    /* A wide character replaces a Hangul sentence as well. */
    le_test_offer(&e, "학교에 간다");
    assert_int_equal(le_key(&e, LE_KEY_CHAR, 0xD559), LE_CONTINUE); /* 학 */
    assert_string_equal(e.buf, "학");
    le_free(&e);
}

static void test_selected_editing_keys_keep(void **state) {
    (void)state;
    static const struct {
        LeKey key;
        const char *then_type, *want;
    } cases[] = {
        {LE_KEY_END, "8", "168"},    {LE_KEY_RIGHT, "8", "168"},  {LE_KEY_LEFT, "8", "186"},
        {LE_KEY_HOME, "8", "816"},   {LE_KEY_BACKSPACE, "", "1"}, {LE_KEY_BACKSPACE, "2", "12"},
        {LE_KEY_DELETE, "8", "168"}, {LE_KEY_KILL, "8", "8"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        LineEdit e;
        le_test_offer(&e, "16");
        assert_int_equal(le_key(&e, cases[i].key, 0), LE_CONTINUE);
        assert_int_equal(e.selected, 0);
        le_test_type(&e, cases[i].then_type);
        if (strcmp(e.buf, cases[i].want) != 0)
            fail_msg("case %zu: key %d then \"%s\" gave \"%s\", expected \"%s\"", i, (int)cases[i].key,
                     cases[i].then_type, e.buf, cases[i].want);
        le_free(&e);
    }
}

static void test_selected_enter_escape_keep(void **state) {
    (void)state;
    LineEdit e;
    le_test_offer(&e, "16");
    assert_int_equal(le_key(&e, LE_KEY_ENTER, 0), LE_DONE);
    assert_string_equal(e.buf, "16");
    le_free(&e);
    le_test_offer(&e, "16");
    assert_int_equal(le_key(&e, LE_KEY_ESCAPE, 0), LE_CANCEL);
    assert_string_equal(e.buf, "16");
    le_free(&e);
    /* Nothing to select in an empty prompt; a character refused (a
     * surrogate) leaves the offer as it was. */
    assert_int_equal(le_init(&e, NULL, 0, 64), 0);
    le_select_all(&e);
    assert_int_equal(e.selected, 0);
    le_free(&e);
    le_test_offer(&e, "16");
    assert_int_equal(le_key(&e, LE_KEY_CHAR, 0xD800), LE_CONTINUE);
    assert_string_equal(e.buf, "16");
    le_free(&e);
}

int main(void) {
    if (!setlocale(LC_ALL, "C.UTF-8")) return 1; /* widths come from wcwidth */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_type_ascii_and_hangul),
        cmocka_unit_test(test_selected_typing_replaces),
        cmocka_unit_test(test_selected_editing_keys_keep),
        cmocka_unit_test(test_selected_enter_escape_keep),
        cmocka_unit_test(test_init_puts_cursor_at_end),
        cmocka_unit_test(test_left_right_home_end),
        cmocka_unit_test(test_insert_in_middle),
        cmocka_unit_test(test_base_typed_before_mark),
        cmocka_unit_test(test_backspace_hangul),
        cmocka_unit_test(test_backspace_combining),
        cmocka_unit_test(test_delete),
        cmocka_unit_test(test_kill),
        cmocka_unit_test(test_control_characters_inserted),
        cmocka_unit_test(test_init_keeps_every_byte),
        cmocka_unit_test(test_view_escaped_widths),
        cmocka_unit_test(test_max),
        cmocka_unit_test(test_grows),
        cmocka_unit_test(test_enter_escape),
        cmocka_unit_test(test_init_null_and_free),
        cmocka_unit_test(test_view_hangul_end_home_middle),
        cmocka_unit_test(test_view_invariants),
        cmocka_unit_test(test_view_no_half_wide_at_left),
        cmocka_unit_test(test_view_combining_and_edges),
    };
    return cmocka_run_group_tests_name("lineedit", tests, NULL, NULL);
}
