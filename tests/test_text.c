/* test_text.c - unit tests of tui/gfx/text.c: widths in terminal columns from the
 * C library's wcwidth (Hangul, combining marks, fullwidth forms, emoji),
 * truncation by columns with an ellipsis, and labels made safe to show. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"
#include "utf8.h"

/* wcwidth answers by LC_CTYPE: in the "C" locale every non-ASCII character
 * would be -1, so the whole group runs in C.UTF-8 (what main sets up). */
static int setup_locale(void **state) {
    (void)state;
    return setlocale(LC_ALL, "C.UTF-8") ? 0 : -1;
}

/* ===== Widths ===== */

static void test_cp_width(void **state) {
    (void)state;
    assert_int_equal(text_cp_width('A'), 1);
    assert_int_equal(text_cp_width(0xD559), 2);  /* 학 */
    assert_int_equal(text_cp_width(0x0301), 0);  /* combining acute */
    assert_int_equal(text_cp_width(0xFF21), 2);  /* fullwidth A */
    assert_int_equal(text_cp_width(0x1F600), 2); /* grinning face */
    /* wcwidth gives -1 for these; the header promises 1. */
    assert_int_equal(text_cp_width(0x1B), 1);
    assert_int_equal(text_cp_width(0x9B), 1);
    assert_int_equal(text_cp_width(UTF8_INVALID), 1);
    assert_int_equal(text_cp_width(0x110000), 1);
}

static void test_width(void **state) {
    (void)state;
    assert_int_equal(text_width("hello", 5), 5);
    assert_int_equal(text_width("학교에", strlen("학교에")), 6);
    assert_int_equal(text_width("학교에", 3), 2); /* only the first syllable's bytes */
    assert_int_equal(text_width("e\u0301", strlen("e\u0301")), 1);
    assert_int_equal(text_width("\uFF21\uFF22", strlen("\uFF21\uFF22")), 4);
    assert_int_equal(text_width("a\U0001F600b", strlen("a\U0001F600b")), 4);
    assert_int_equal(text_width("ab\xff", 3), 3);   /* an invalid byte is one column */
    assert_int_equal(text_width("\xEA\xB0", 2), 2); /* truncated sequence: two bytes */
    assert_int_equal(text_width("a\x1b[m", 4), 4);  /* ESC counts 1 */
    assert_int_equal(text_width("", 0), 0);
}

/* ===== Truncation ===== */

/* Truncates s and checks the text and the returned width, and that the width
 * returned is the width of what was written. */
static void expect_cut(const char *s, int max_cols, const char *ellipsis, const char *want, int want_cols) {
    char out[64];
    int cols = text_truncate(out, sizeof out, s, strlen(s), max_cols, ellipsis);
    if (strcmp(out, want) != 0 || cols != want_cols)
        fail_msg("cut(\"%s\", %d, \"%s\") = \"%s\" (%d cols), expected \"%s\" (%d cols)", s, max_cols, ellipsis, out,
                 cols, want, want_cols);
    assert_int_equal(text_width(out, strlen(out)), cols);
}

static void test_truncate_hangul(void **state) {
    (void)state;
    expect_cut("학교에", 7, "…", "학교에", 6);
    expect_cut("학교에", 6, "…", "학교에", 6); /* exact fit: no ellipsis */
    expect_cut("학교에", 5, "…", "학교…", 5);
    expect_cut("학교에", 4, "…", "학…", 3); /* 교 would need 2 of the 3 columns left */
    expect_cut("학교에", 3, "…", "학…", 3);
    expect_cut("학교에", 2, "…", "…", 1); /* only the ellipsis fits */
    expect_cut("학교에", 1, "…", "…", 1);
    expect_cut("학교에", 1, "~", "~", 1);
    expect_cut("학교에", 0, "…", "", 0);
    expect_cut("학교에", -3, "…", "", 0);
    expect_cut("학교에", 5, "", "학교", 4);
    expect_cut("ab학", 3, "", "ab", 2); /* never a 2-column character in 1 column */
}

static void test_truncate_ascii_and_edges(void **state) {
    (void)state;
    expect_cut("hello world", 8, "…", "hello w…", 8);
    expect_cut("hello world", 8, "~", "hello w~", 8);
    expect_cut("hello world", 11, "…", "hello world", 11);
    expect_cut("", 0, "…", "", 0);
    expect_cut("", 5, "…", "", 0);
    /* An ellipsis wider than the room: nothing rather than an unmarked cut. */
    expect_cut("hello", 2, "...", "", 0);
    expect_cut("hello", 4, "...", "h...", 4);
    expect_cut("\uFF21\uFF22\uFF23", 5, "…", "\uFF21\uFF22…", 5);
    expect_cut("a\U0001F600b", 3, "…", "a…", 2);
    expect_cut("a\U0001F600b", 4, "…", "a\U0001F600b", 4);
}

static void test_truncate_combining(void **state) {
    (void)state;
    const char *s = "e\u0301e\u0301e\u0301"; /* three é, 3 columns */
    expect_cut(s, 3, "…", s, 3);
    expect_cut(s, 2, "…", "e\u0301…", 2);
    expect_cut(s, 2, "", "e\u0301e\u0301", 2);
    expect_cut(s, 1, "", "e\u0301", 1);
    /* Out of bytes between a base and its mark: both go. 6 bytes hold the
     * ellipsis, its NUL and 2 bytes, "e" but not "e\u0301" (3 bytes). */
    char out[8];
    assert_int_equal(text_truncate(out, 6, s, strlen(s), 10, "…"), 1);
    assert_string_equal(out, "…");
    assert_int_equal(text_truncate(out, 4, s, strlen(s), 10, ""), 1);
    assert_string_equal(out, "e\u0301");
    /* Several marks on one base stay together. */
    expect_cut("a\u0301\u0323bc", 2, "~", "a\u0301\u0323~", 2);
}

/* Cuts fall between extended grapheme clusters, also where a part of the
 * cluster has a width of its own. */
static void test_truncate_graphemes(void **state) {
    (void)state;
    /* Devanagari ka + vowel sign aa (a spacing mark, 1 column): one cluster. */
    expect_cut("\u0915\u093Eb", 2, "…", "…", 1);
    expect_cut("\u0915\u093Eb", 3, "…", "\u0915\u093Eb", 3);
    expect_cut("\u0915\u093Ebc", 3, "…", "\u0915\u093E…", 3);
    /* A flag is two regional indicators (1 column each): never one alone. */
    const char *flags = "\U0001F1F0\U0001F1F7\U0001F1EF\U0001F1F5"; /* KR JP */
    expect_cut(flags, 3, "…", "\U0001F1F0\U0001F1F7…", 3);
    expect_cut(flags, 2, "…", "…", 1);
    /* An emoji and its skin tone (2 + 2 columns, as tmux draws them). */
    expect_cut("\U0001F44D\U0001F3FDx", 4, "…", "…", 1);
    expect_cut("\U0001F44D\U0001F3FDxy", 5, "…", "\U0001F44D\U0001F3FD…", 5);
    /* Conjoining jamo L V T make one syllable of 2 columns. */
    expect_cut("\u1100\u1161\u11A8\u1100\u1161", 3, "…", "\u1100\u1161\u11A8…", 3);
    /* The escapes of text_safe_label are cut whole. */
    expect_cut("\U0001F468\\u{200D}\U0001F469", 9, "…", "\U0001F468…", 3);
    expect_cut("\U0001F468\\u{200D}\U0001F469", 11, "…", "\U0001F468\\u{200D}…", 11);
    expect_cut("a\\x1Bxyz", 6, "…", "a\\x1B…", 6);
    expect_cut("a\\x1Bxyz", 5, "…", "a…", 2);
    expect_cut("a\\nb", 3, "~", "a~", 2);
    expect_cut("\\u{2}xyz", 3, "…", "\\u…", 3); /* not an escape: cut anywhere */
    /* An invalid byte is a cluster of its own. */
    expect_cut("a\xff"
               "bc",
               3, "…",
               "a\xff"
               "…",
               3);
}

static void test_truncate_capacity(void **state) {
    (void)state;
    const char *s = "학교에"; /* 9 bytes, 6 columns */
    char out[16];
    /* Fits in columns but not in 8 bytes: cut by bytes, still whole syllables. */
    assert_int_equal(text_truncate(out, 8, s, strlen(s), 10, "…"), 3);
    assert_string_equal(out, "학…");
    assert_int_equal(text_truncate(out, 7, s, strlen(s), 10, "…"), 3); /* exactly full */
    assert_string_equal(out, "학…");
    assert_int_equal(text_truncate(out, 6, s, strlen(s), 10, "…"), 1); /* one byte short */
    assert_string_equal(out, "…");
    memcpy(out, "xxxx", 5);
    assert_int_equal(text_truncate(out, 3, s, strlen(s), 10, "…"), 0); /* "…" needs 4 bytes */
    assert_string_equal(out, "");
    assert_int_equal(text_truncate(out, 1, s, strlen(s), 10, "…"), 0);
    assert_string_equal(out, "");
    assert_int_equal(text_truncate(out, 10, s, strlen(s), 10, "…"), 6); /* 9 bytes + NUL */
    assert_string_equal(out, s);
}

/* Every width from 0 up: the result never exceeds the room, is a whole-cluster
 * prefix of s (plus the ellipsis when cut), and is as long as it can be. */
static void test_truncate_every_width(void **state) {
    (void)state;
    const char *s = "a학e\u0301\U0001F600b\uFF21";
    /* Cluster boundaries (bytes) and widths of the prefixes ending there. */
    const size_t ends[] = {0, 1, 4, 7, 11, 12, 15};
    const int cols[] = {0, 1, 3, 4, 6, 7, 9};
    const int n = (int)(sizeof ends / sizeof ends[0]);
    for (int max = 0; max <= 10; max++) {
        char out[64];
        int w = text_truncate(out, sizeof out, s, strlen(s), max, "…");
        assert_true(w <= max);
        assert_int_equal(w, text_width(out, strlen(out)));
        if (max >= cols[n - 1]) {
            assert_string_equal(out, s);
            continue;
        }
        /* The longest prefix that leaves one column for the ellipsis. */
        int k = 0;
        while (k + 1 < n && cols[k + 1] <= max - 1) k++;
        char want[64];
        memcpy(want, s, ends[k]);
        strcpy(want + ends[k], max >= 1 ? "…" : "");
        assert_string_equal(out, want);
    }
}

/* ===== Safe labels ===== */

static void expect_label(const char *s, size_t len, int ascii, const char *want) {
    char *got = text_safe_label(s, len, ascii);
    assert_non_null(got);
    if (strcmp(got, want) != 0) {
        char msg[256];
        strncpy(msg, got, sizeof msg - 1);
        msg[sizeof msg - 1] = '\0';
        free(got);
        fail_msg("label = \"%s\", expected \"%s\"", msg, want);
    }
    if (ascii)
        for (const char *p = got; *p; p++) assert_true(*p >= 0x20 && *p < 0x7F);
    free(got);
}

static void test_safe_label(void **state) {
    (void)state;
    expect_label("a\x1b[31mb", 7, 0, "a\\x1B[31mb");
    expect_label("tab\there\n", 9, 0, "tab\\there\\n");
    expect_label("a\0b", 3, 0, "a\\x00b");
    expect_label("a\xff", 2, 0, "a\\xFF");
    expect_label("학교", strlen("학교"), 0, "학교");
    expect_label("evil\xe2\x80\xae", 7, 0, "evil\\u{202E}"); /* bidi override */
    /* Zero-width format characters: invisible, and terminals disagree on
     * their columns (tmux 3.3a joins a ZWJ sequence into one 2-column cell). */
    expect_label("a\u200Db", strlen("a\u200Db"), 0, "a\\u{200D}b");
    expect_label("\U0001F468\u200D\U0001F469\u200D\U0001F467", strlen("\U0001F468\u200D\U0001F469\u200D\U0001F467"), 0,
                 "\U0001F468\\u{200D}\U0001F469\\u{200D}\U0001F467");
    expect_label("\u200B\u200C\u2060\uFEFF\u00AD", strlen("\u200B\u200C\u2060\uFEFF\u00AD"), 0,
                 "\\u{200B}\\u{200C}\\u{2060}\\u{FEFF}\\u{00AD}");
    expect_label("\u2764\uFE0F", strlen("\u2764\uFE0F"), 0, "\u2764\\u{FE0F}"); /* VS16 */
    expect_label("\U000E0041", 4, 0, "\\u{E0041}");                             /* a tag */
    expect_label("e\u0301", strlen("e\u0301"), 0, "e\u0301");                   /* a combining mark stays */

    expect_label("학", strlen("학"), 1, "\\u{D559}");
    expect_label("caf\xc3\xa9", 5, 1, "caf\\u{00E9}");
    expect_label("e\u0301", strlen("e\u0301"), 1, "e\\u{0301}");
    expect_label("\U0001F600", 4, 1, "\\u{1F600}");
    expect_label("\xe2\x80\xae", 3, 1, "\\u{202E}"); /* escaped once, not twice */
    expect_label("a\x1b\xff", 3, 1, "a\\x1B\\xFF");
    expect_label("plain", 5, 1, "plain");
    expect_label("", 0, 1, "");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cp_width),           cmocka_unit_test(test_width),
        cmocka_unit_test(test_truncate_hangul),    cmocka_unit_test(test_truncate_ascii_and_edges),
        cmocka_unit_test(test_truncate_combining), cmocka_unit_test(test_truncate_graphemes),
        cmocka_unit_test(test_truncate_capacity),  cmocka_unit_test(test_truncate_every_width),
        cmocka_unit_test(test_safe_label),
    };
    return cmocka_run_group_tests_name("text", tests, setup_locale, NULL);
}
