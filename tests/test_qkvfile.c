/* test_qkvfile.c - cmocka tests of the Q/K/V file parser (src/formats/qkvfile.c).
 *
 * Every malformed input is checked for its exact message, line and column,
 * since that message is all a teacher sees. Inputs are copied into buffers of
 * exactly their length (no NUL after them), so AddressSanitizer catches any
 * read past the end. Run from the repository root (loads samples/). */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qkvfile.h"

// ---------------------------------------------------------------------------
// Helpers

/* Parses text[0..len) from an exact-size heap copy. */
static int qkv_test_parse_n(QkvData *d, const char *text, size_t len, const char *name, AvError *err) {
    char *copy = malloc(len ? len : 1);
    assert_non_null(copy);
    memcpy(copy, text, len);
    int rc = qkv_parse(d, copy, len, name, err);
    free(copy);
    return rc;
}

static int qkv_test_parse(QkvData *d, const char *text, AvError *err) {
    return qkv_test_parse_n(d, text, strlen(text), "t.qkv", err);
}

static void qkv_assert_zeroed(const QkvData *d) {
    static const QkvData zero;
    assert_memory_equal(d, &zero, sizeof zero);
}

/* A message is one line and carries no control character (C0, DEL, or a C1
 * control encoded in UTF-8) that a terminal would act on. */
static void qkv_assert_clean_message(const char *msg) {
    const unsigned char *u = (const unsigned char *)msg;
    assert_true(strlen(msg) > 0);
    for (size_t i = 0; u[i]; i++) {
        assert_true(u[i] >= 0x20 && u[i] != 0x7F);
        if (u[i] == 0xC2) assert_false(u[i + 1] >= 0x80 && u[i + 1] <= 0x9F);
    }
}

/* Parses text (with its length, so it may hold NUL) and expects a failure
 * whose message contains `want`. */
static void qkv_expect_error_n(const char *text, size_t len, const char *want) {
    QkvData d;
    AvError err = {0};
    int rc = qkv_test_parse_n(&d, text, len, "t.qkv", &err);
    if (rc != -1 || !strstr(err.msg, want))
        fail_msg("input %.60s\n  got rc %d: \"%s\"\n  want: \"%s\"", text, rc, err.msg, want);
    qkv_assert_zeroed(&d);
    qkv_assert_clean_message(err.msg);
    assert_true(strncmp(err.msg, "t.qkv:", 6) == 0);
}

static void qkv_expect_error(const char *text, const char *want) { qkv_expect_error_n(text, strlen(text), want); }

/* Builds a string from repeating `unit` n times between prefix and suffix. */
static char *qkv_repeat(const char *prefix, const char *unit, int n, const char *suffix) {
    size_t lp = strlen(prefix), lu = strlen(unit), ls = strlen(suffix);
    char *s = malloc(lp + lu * (size_t)n + ls + 1);
    assert_non_null(s);
    char *w = s;
    memcpy(w, prefix, lp);
    w += lp;
    for (int i = 0; i < n; i++, w += lu) memcpy(w, unit, lu);
    memcpy(w, suffix, ls);
    w[ls] = '\0';
    return s;
}

// ---------------------------------------------------------------------------
// Files that parse

static void test_worked_example(void **state) {
    (void)state;
    QkvData d;
    AvError err = {0};
    int rc = qkv_load(&d, "samples/worked-example.qkv", &err);
    if (rc != 0) fail_msg("%s", err.msg);
    assert_int_equal(d.n_q, 3);
    assert_int_equal(d.n_k, 3);
    assert_int_equal(d.d_k, 3);
    assert_int_equal(d.d_v, 3);
    const float q[9] = {0.1f, 0.3f, 0.5f, 0.4f, 0.2f, 0.6f, 0.7f, 0.8f, 0.9f};
    const float k[9] = {0.2f, 0.1f, 0.3f, 0.5f, 0.7f, 0.4f, 0.9f, 0.2f, 0.8f};
    const float v[9] = {0.3f, 0.7f, 0.5f, 0.6f, 0.4f, 0.8f, 0.9f, 0.5f, 0.2f};
    assert_memory_equal(d.q, q, sizeof q);
    assert_memory_equal(d.k, k, sizeof k);
    assert_memory_equal(d.v, v, sizeof v);
    assert_int_equal(d.has_tokens, 1);
    assert_string_equal(d.key_tokens[0], "나는");
    assert_string_equal(d.key_tokens[1], "학교에");
    assert_string_equal(d.key_tokens[2], "간다");
    for (int i = 0; i < 3; i++) assert_string_equal(d.query_tokens[i], d.key_tokens[i]);
    qkv_free(&d);
    qkv_assert_zeroed(&d);
}

static void test_no_tokens_line_names_t0(void **state) {
    (void)state;
    QkvData d;
    AvError err = {0};
    assert_int_equal(qkv_test_parse(&d, "Q:\n1 2\n3 4\nK:\n5 6\n7 8\nV:\n9\n10\n", &err), 0);
    assert_int_equal(d.has_tokens, 0);
    assert_int_equal(d.n_q, 2);
    assert_int_equal(d.n_k, 2);
    assert_int_equal(d.d_k, 2);
    assert_int_equal(d.d_v, 1);
    assert_string_equal(d.key_tokens[0], "t0");
    assert_string_equal(d.key_tokens[1], "t1");
    assert_string_equal(d.query_tokens[0], "t0");
    assert_string_equal(d.query_tokens[1], "t1");
    assert_true(d.k[3] == 8.0f);
    assert_true(d.v[1] == 10.0f);
    qkv_free(&d);
}

static void test_other_query_count_names_q0(void **state) {
    (void)state;
    QkvData d;
    AvError err = {0};
    /* 2 queries attend over 3 keys; V is wider than d_k. */
    const char *text = "tokens: a b c\n"
                       "Q:\n1 0\n0 1\n"
                       "K:\n1 1\n2 2\n3 3\n"
                       "V:\n1 2 3 4\n5 6 7 8\n9 10 11 12\n";
    assert_int_equal(qkv_test_parse(&d, text, &err), 0);
    assert_int_equal(d.n_q, 2);
    assert_int_equal(d.n_k, 3);
    assert_int_equal(d.d_k, 2);
    assert_int_equal(d.d_v, 4);
    assert_string_equal(d.key_tokens[2], "c");
    assert_string_equal(d.query_tokens[0], "q0");
    assert_string_equal(d.query_tokens[1], "q1");
    assert_true(d.v[11] == 12.0f);
    qkv_free(&d);

    assert_int_equal(qkv_test_parse(&d, "Q:\n1\nK:\n1\n2\n3\nV:\n1\n2\n3\n", &err), 0);
    assert_string_equal(d.query_tokens[0], "q0");
    assert_string_equal(d.key_tokens[2], "t2");
    qkv_free(&d);
}

static void test_comments_blanks_crlf_bom(void **state) {
    (void)state;
    QkvData d;
    AvError err = {0};
    /* BOM, CRLF, tabs, comments everywhere, lowercase labels, blocks in
     * V, K, Q order, "Tokens:" with tabs, and no newline at the end. */
    const char *text = "\xEF\xBB\xBF# header\r\n"
                       "\r\n"
                       "Tokens:\tC#comment\r\n"
                       "   \t  \r\n"
                       "v:   # values\r\n"
                       "\t-0.5  +2\r\n"
                       "k:# keys\r\n"
                       "1e-3\t.5 1.  # a row\r\n"
                       "# between\r\n"
                       "\r\n"
                       "  Q:\r\n"
                       "  -0 1e-40 1e-50";
    int rc = qkv_test_parse(&d, text, &err);
    if (rc != 0) fail_msg("%s", err.msg);
    assert_int_equal(d.n_q, 1);
    assert_int_equal(d.n_k, 1);
    assert_int_equal(d.d_k, 3);
    assert_int_equal(d.d_v, 2);
    assert_int_equal(d.has_tokens, 1);
    assert_string_equal(d.key_tokens[0], "C"); /* '#' cut the rest */
    assert_true(d.v[0] == -0.5f && d.v[1] == 2.0f);
    assert_true(d.k[0] == 1e-3f && d.k[1] == 0.5f && d.k[2] == 1.0f);
    assert_true(d.q[0] == 0.0f && signbit(d.q[0]));
    assert_true(d.q[1] > 0.0f && d.q[1] < 1e-39f); /* a float32 denormal, kept */
    assert_true(d.q[2] == 0.0f);                   /* underflow to 0 is fine */
    qkv_free(&d);
}

static void test_number_edges(void **state) {
    (void)state;
    QkvData d;
    AvError err = {0};
    assert_int_equal(qkv_test_parse(&d, "Q:\n3.4e38 -3.4e38 1E+2 007\nK:\n0 0 0 0\nV:\n1\n", &err), 0);
    assert_true(d.q[0] == 3.4e38f && d.q[1] == -3.4e38f && d.q[2] == 100.0f && d.q[3] == 7.0f);
    qkv_free(&d);
}

/* Tokens may need zero-width joiners (emoji sequences) and any non-ASCII
 * space stays inside a token. */
static void test_tokens_keep_joiners(void **state) {
    (void)state;
    QkvData d;
    AvError err = {0};
    const char *family = "\U0001F468\u200D\U0001F469"; /* man ZWJ woman */
    char text[200];
    snprintf(text, sizeof text, "tokens: %s a\u3000b\nQ:\n1\n2\nK:\n1\n2\nV:\n1\n2\n", family);
    int rc = qkv_test_parse(&d, text, &err);
    if (rc != 0) fail_msg("%s", err.msg);
    assert_string_equal(d.key_tokens[0], family);
    assert_string_equal(d.key_tokens[1], "a\u3000b"); /* U+3000 is not a separator */
    qkv_free(&d);
}

static void test_free_is_null_safe(void **state) {
    (void)state;
    qkv_free(NULL);
    QkvData d = {0};
    qkv_free(&d);
    qkv_free(&d);
    qkv_assert_zeroed(&d);
}

/* A decimal comma locale must not change how "0.5" reads. */
static void test_locale_decimal_comma(void **state) {
    (void)state;
    const char *names[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8"};
    const char *found = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !found; i++)
        if (setlocale(LC_NUMERIC, names[i])) found = names[i];
    if (!found) skip();
    QkvData d;
    AvError err = {0};
    int rc = qkv_test_parse(&d, "Q:\n0.5\nK:\n1.25\nV:\n2\n", &err);
    setlocale(LC_NUMERIC, "C");
    if (rc != 0) fail_msg("%s", err.msg);
    assert_true(d.q[0] == 0.5f && d.k[0] == 1.25f);
    qkv_free(&d);
}

// ---------------------------------------------------------------------------
// Errors, each with its line and column

static void test_error_numbers(void **state) {
    (void)state;
    qkv_expect_error("Q:\n1 x1 3\n", "t.qkv:2:3: expected a number, found 'x1'");
    qkv_expect_error("Q:\n0x1p3\n", "t.qkv:2:1: expected a number, found '0x1p3'");
    qkv_expect_error("Q:\n1 2..3\n", "t.qkv:2:3: expected a number, found '2..3'");
    qkv_expect_error("Q:\n1e\n", "t.qkv:2:1: expected a number, found '1e'");
    qkv_expect_error("Q:\n.\n", "t.qkv:2:1: expected a number, found '.'");
    qkv_expect_error("Q:\n1,5\n", "t.qkv:2:1: expected a number, found '1,5'");
    qkv_expect_error("Q:\nnan\n", "t.qkv:2:1: 'nan' is not a finite number");
    qkv_expect_error("Q:\n1 inf\n", "t.qkv:2:3: 'inf' is not a finite number");
    qkv_expect_error("Q:\n-inf\n", "t.qkv:2:1: '-inf' is not a finite number");
    qkv_expect_error("Q:\n  +Infinity\n", "t.qkv:2:3: '+Infinity' is not a finite number");
    qkv_expect_error("Q:\nNaN(1)\n", "t.qkv:2:1: 'NaN(1)' is not a finite number");
    qkv_expect_error("Q:\n1 1e39\n", "t.qkv:2:3: '1e39' is out of float32 range");
    qkv_expect_error("Q:\n-1e400\n", "t.qkv:2:1: '-1e400' is out of float32 range");
}

static void test_error_shapes(void **state) {
    (void)state;
    qkv_expect_error("Q:\n# c\n\n1 2 3\n4 5\n",
                     "t.qkv:5:1: row has 2 values, expected 3 like the first row of Q (line 4)");
    qkv_expect_error("Q:\n1 2\nK:\n1 2\n  3\n",
                     "t.qkv:5:3: row has 1 value, expected 2 like the first row of K (line 4)");
    qkv_expect_error("Q:\n1\nK:\nV:\n1\n", "t.qkv:3:1: block K: has no rows");
    qkv_expect_error("Q:\n1\nK:\n1\nV:\n", "t.qkv:5:1: block V: has no rows");
    qkv_expect_error("Q:\n1 2 3\nK:\n1 2 3 4\nV:\n1\n",
                     "t.qkv:4:1: Q has 3 columns but K has 4: Q and K must have the same width d_k");
    /* K first: the error points at Q, the block that comes later. */
    qkv_expect_error("K:\n1 2 3 4\nV:\n1\nQ:\n 1 2 3\n", "t.qkv:6:2: Q has 3 columns but K has 4");
    qkv_expect_error("Q:\n1\nK:\n1\n2\nV:\n1\n",
                     "t.qkv:6:1: K has 2 rows but V has 1: K and V must have the same number of rows");
    qkv_expect_error("tokens: a b\nQ:\n1\nK:\n1\n2\n3\nV:\n1\n2\n3\n",
                     "t.qkv:1:1: tokens: line has 2 tokens but K has 3 rows");
    qkv_expect_error("tokens:\nQ:\n1\nK:\n1\nV:\n1\n", "t.qkv:1:1: tokens: line has 0 tokens but K has 1 row");
}

static void test_error_structure(void **state) {
    (void)state;
    qkv_expect_error("", "t.qkv:1:1: no Q: block");
    qkv_expect_error("# only\n\n# comments\n", "t.qkv:4:1: no Q: block");
    qkv_expect_error("Q:\n1\nK:\n1\n", "t.qkv:5:1: no V: block");
    qkv_expect_error("Q:\n1\nV:\n1", "t.qkv:4:2: no K: block");
    qkv_expect_error("Q:\n1\nK:\n1\nQ:\n2\n", "t.qkv:5:1: second Q: block (the first is on line 1)");
    qkv_expect_error("Q:\n1\nK:\n1\n\tk:\n2\n", "t.qkv:5:2: second K: block (the first is on line 3)");
    qkv_expect_error("1 2\nQ:\n", "t.qkv:1:1: numbers before a Q:, K: or V: line");
    qkv_expect_error("hello\nQ:\n", "t.qkv:1:1: expected a tokens:, Q:, K: or V: line, found 'hello'");
    qkv_expect_error("X:\n", "t.qkv:1:1: unknown block 'X:', expected Q:, K: or V:");
    qkv_expect_error("Q:\n1\n  Kx: # typo\n", "t.qkv:3:3: unknown block 'Kx:', expected Q:, K: or V:");
    qkv_expect_error("Q: 1 2\n", "t.qkv:1:4: unexpected '1' after Q:, expected the rows on the lines");
    qkv_expect_error("Q:\n1\ntokens: a\n", "t.qkv:3:1: tokens: line after a block");
    qkv_expect_error("tokens: a\ntokens: b\n", "t.qkv:2:1: second tokens: line (the first is on line 1)");
    qkv_expect_error("Q:\n", "t.qkv:1:1: block Q: has no rows");
}

static void test_error_bytes(void **state) {
    (void)state;
    qkv_expect_error("Q:\n가 \xFF\n", "t.qkv:2:3: invalid UTF-8 (byte \\xff)");
    qkv_expect_error("Q:\n1\n# \xC0\xAF overlong\n", "t.qkv:3:3: invalid UTF-8 (byte \\xc0)");
    qkv_expect_error("# \xED\xA0\x80 surrogate\n", "t.qkv:1:3: invalid UTF-8 (byte \\xed)");
    qkv_expect_error("Q:\n1 \xE0\xA4", "t.qkv:2:3: invalid UTF-8 (byte \\xe0)"); /* cut at EOF */
    qkv_expect_error_n("Q:\n1\0 2\n", 8, "t.qkv:2:2: NUL byte");
    /* Byte errors win over a syntax error earlier in the file. */
    qkv_expect_error_n("x\n\0", 3, "t.qkv:2:1: NUL byte");
}

/* Columns count characters, not bytes; the BOM is not counted. */
static void test_error_columns_in_characters(void **state) {
    (void)state;
    qkv_expect_error("tokens: 나는 ok \x1B[2J\n",
                     "t.qkv:1:15: token '\\x1b[2J' holds a control or invisible character (U+001B)");
    qkv_expect_error("tokens: 나는 a\u202Eb\n", /* RLO */
                     "t.qkv:1:13: token 'a\\xe2\\x80\\xaeb' holds a control or invisible");
    /* The same set as the screen's (utf8_is_unsafe): a soft hyphen is a format
     * character too; a joiner or VS16 may be part of a token. */
    qkv_expect_error("tokens: co\u00ADop\n", "t.qkv:1:11: token 'co\\xc2\\xadop' holds a control or invisible");
    qkv_expect_error("\xEF\xBB\xBFX:\n", "t.qkv:1:1: unknown block 'X:'");
    qkv_expect_error("\xEF\xBB\xBFQ:\n가가 x\n", "t.qkv:2:1: expected a number, found '가가'");
    qkv_expect_error("Q:\n1 2\n\u2003 3\n", /* an em space is not whitespace */
                     "t.qkv:3:1: expected a number, found '\u2003'");
    qkv_expect_error("Q:\r\n1 2\r\n3\r\n", "t.qkv:3:1: row has 1 value, expected 2");
}

/* A token may hold a joiner or an emoji presentation selector (shown
 * escaped on the screen, as in a sentence). */
static void test_tokens_with_joiners(void **state) {
    (void)state;
    const char *txt = "tokens: \u2764\uFE0F \u0645\u06CC\u200C\u062E\nQ:\n1\n2\nK:\n1\n2\nV:\n1\n2\n";
    QkvData d;
    AvError err = {0};
    if (qkv_parse(&d, txt, strlen(txt), "t.qkv", &err)) fail_msg("%s", err.msg);
    qkv_free(&d);
}

/* Quoted words are escaped and cut so a message is safe to print. */
static void test_error_words_escaped_and_cut(void **state) {
    (void)state;
    qkv_expect_error("Q:\n\x1B]0;pwned\x07\n", "found '\\x1b]0;pwned\\x07'");
    qkv_expect_error("Q:\n1\xC2\x9B\x33\x31m\n", "found '1\\xc2\\x9b31m'"); /* C1 CSI */
    qkv_expect_error("Q:\n\x7F\n", "found '\\x7f'");

    char *long_word = qkv_repeat("Q:\n", "a", 100, "\n");
    qkv_expect_error(long_word, "found 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...'"); /* 32 a */
    free(long_word);
    /* 3-byte characters: 10 fit in 32 bytes, the cut never splits one. */
    char *hangul = qkv_repeat("Q:\n", "가", 20, "\n");
    char *want = qkv_repeat("found '", "가", 10, "...'");
    qkv_expect_error(hangul, want);
    free(hangul);
    free(want);
    /* Escapes are never split either: 8 of 4 bytes each. */
    char *escapes = qkv_repeat("Q:\n", "\x01", 20, "\n");
    want = qkv_repeat("found '", "\\x01", 8, "...'");
    qkv_expect_error(escapes, want);
    free(escapes);
    free(want);

    /* The file name is escaped too. */
    QkvData d;
    AvError err = {0};
    assert_int_equal(qkv_test_parse_n(&d, "", 0, "a\x1B]0;x\x07.qkv", &err), -1);
    assert_string_equal(err.msg, "a\\x1b]0;x\\x07.qkv:1:1: no Q: block, expected Q:, K: and V: blocks");
}

static void test_error_limits(void **state) {
    (void)state;
    /* 4096 columns is fine; 4097 is not. */
    char *wide = qkv_repeat("Q:\n", "1 ", 4096, "\nK:\n");
    char *text = malloc(strlen(wide) * 2 + 32);
    assert_non_null(text);
    strcpy(text, wide);
    strcat(text, wide + 3);        /* the same row for K */
    text[strlen(text) - 3] = '\0'; /* drop the second "K:\n" */
    strcat(text, "V:\n1\n");
    QkvData d;
    AvError err = {0};
    int rc = qkv_test_parse(&d, text, &err);
    if (rc != 0) fail_msg("%s", err.msg);
    assert_int_equal(d.d_k, 4096);
    qkv_free(&d);
    free(text);
    free(wide);

    char *too_wide = qkv_repeat("Q:\n", "1 ", 4097, "\n");
    qkv_expect_error(too_wide, "t.qkv:2:8193: row has more than 4096 values, the limit");
    free(too_wide);

    char *tall = qkv_repeat("Q:\n", "1\n", 5000, "");
    qkv_expect_error(tall, "t.qkv:4098:1: block Q: has more than 4096 rows, the limit");
    free(tall);

    char *tokens = qkv_repeat("tokens:", " a", 5000, "\n");
    qkv_expect_error(tokens, "t.qkv:1:8201: tokens: line has more than 4096 tokens, the limit");
    free(tokens);
}

// ---------------------------------------------------------------------------
// qkv_load

static void test_load_directory(void **state) {
    (void)state;
    QkvData d;
    AvError err = {0};
    assert_int_equal(qkv_load(&d, "samples", &err), -1);
    assert_non_null(strstr(err.msg, "samples"));
    assert_non_null(strstr(err.msg, "directory"));
    qkv_assert_zeroed(&d);
}

static void test_load_missing(void **state) {
    (void)state;
    QkvData d;
    AvError err = {0};
    assert_int_equal(qkv_load(&d, "samples/no-such-file.qkv", &err), -1);
    assert_non_null(strstr(err.msg, "samples/no-such-file.qkv: cannot open"));
    qkv_assert_zeroed(&d);
}

static void test_load_empty(void **state) {
    (void)state;
    char path[] = "/tmp/test_qkvfile_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    QkvData d;
    AvError err = {0};
    int rc = qkv_load(&d, path, &err);
    unlink(path);
    assert_int_equal(rc, -1);
    char want[128];
    snprintf(want, sizeof want, "%s:1:1: no Q: block", path);
    assert_non_null(strstr(err.msg, want));
    qkv_assert_zeroed(&d);
}

// ---------------------------------------------------------------------------
// Adversarial inputs: nothing crashes, every failure is one clean line

static uint32_t qkv_test_rng = 12345;

static uint32_t qkv_test_rand(void) {
    qkv_test_rng = qkv_test_rng * 1103515245u + 12345u;
    return qkv_test_rng >> 8;
}

static void qkv_check_any(const char *buf, size_t len) {
    QkvData d;
    AvError err = {0};
    int rc = qkv_test_parse_n(&d, buf, len, "fz", &err);
    if (rc == 0) {
        assert_true(d.n_q > 0 && d.n_k > 0 && d.d_k > 0 && d.d_v > 0);
        for (int i = 0; i < d.n_q; i++) assert_non_null(d.query_tokens[i]);
        for (int i = 0; i < d.n_k; i++) assert_non_null(d.key_tokens[i]);
        qkv_free(&d);
    } else {
        assert_int_equal(rc, -1);
        qkv_assert_zeroed(&d);
        qkv_assert_clean_message(err.msg);
        assert_true(strncmp(err.msg, "fz:", 3) == 0);
    }
}

static void test_adversarial(void **state) {
    (void)state;
    static const char *const pieces[] = {
        "Q:", "K:",           "V:",   "q:",   "tokens:", "X:",           ":",     "#",     " ",           "\t",
        "\r", "\n",           "\n",   "\n",   "1",       "-0.5",         "1e39",  "nan",   ".",           "e",
        "+",  "\xEA\xB0\x80", "\xFF", "\xC2", "\x1B",    "\xEF\xBB\xBF", "0x1p3", "1e-50", "\xE2\x80\x8D"};
    enum { NPIECES = sizeof pieces / sizeof pieces[0] };
    char buf[512];
    for (int iter = 0; iter < 20000; iter++) {
        size_t len = 0;
        int n = (int)(qkv_test_rand() % 40);
        for (int i = 0; i < n; i++) {
            const char *piece = pieces[qkv_test_rand() % NPIECES];
            size_t pl = strlen(piece);
            memcpy(buf + len, piece, pl);
            len += pl;
        }
        qkv_check_any(buf, len);
    }

    /* Byte flips and truncations of a valid file. */
    const char *good = "tokens: a b\nQ:\n1 2\n3 4\nK:\n5 6\n7 8\nV:\n9 1\n2 3\n";
    size_t good_len = strlen(good);
    qkv_check_any(good, good_len);
    for (int iter = 0; iter < 5000; iter++) {
        memcpy(buf, good, good_len);
        buf[qkv_test_rand() % good_len] = (char)(qkv_test_rand() & 0xFF);
        qkv_check_any(buf, 1 + qkv_test_rand() % good_len);
    }

    /* One very long line of numbers (limit) and one very long word. */
    char *numbers = qkv_repeat("Q:\n", "0.25 ", 100000, "");
    qkv_expect_error(numbers, "row has more than 4096 values, the limit");
    free(numbers);
    char *digits = qkv_repeat("Q:\n0.", "0", 500000, "1\nK:\n1\nV:\n1\n");
    QkvData d;
    AvError err = {0};
    assert_int_equal(qkv_test_parse(&d, digits, &err), 0);
    assert_true(d.q[0] == 0.0f); /* 1e-500000 underflows */
    qkv_free(&d);
    free(digits);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_worked_example),
        cmocka_unit_test(test_no_tokens_line_names_t0),
        cmocka_unit_test(test_other_query_count_names_q0),
        cmocka_unit_test(test_comments_blanks_crlf_bom),
        cmocka_unit_test(test_number_edges),
        cmocka_unit_test(test_tokens_keep_joiners),
        cmocka_unit_test(test_free_is_null_safe),
        cmocka_unit_test(test_locale_decimal_comma),
        cmocka_unit_test(test_error_numbers),
        cmocka_unit_test(test_error_shapes),
        cmocka_unit_test(test_error_structure),
        cmocka_unit_test(test_error_bytes),
        cmocka_unit_test(test_error_columns_in_characters),
        cmocka_unit_test(test_error_words_escaped_and_cut),
        cmocka_unit_test(test_error_limits),
        cmocka_unit_test(test_load_directory),
        cmocka_unit_test(test_load_missing),
        cmocka_unit_test(test_load_empty),
        cmocka_unit_test(test_adversarial),
        cmocka_unit_test(test_tokens_with_joiners),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
