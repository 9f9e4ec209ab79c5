/* test_tokenize.c - unit tests of src/text/tokenize.c: the presets on English and
 * Korean text, byte offsets, vocabulary ids, UTF-8 validation, patterns that
 * match the empty string, limits, and memory ownership (run under ASan and
 * valgrind). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cancel.h"
#include "tokenize.h"

/* ===== Helpers ===== */

/* Splits text[0..len) with a fresh tokenizer and expects success. */
static TokenList split_len(TokPreset preset, const char *pattern, const char *text, size_t len) {
    AvError err = {0};
    Tokenizer *t = tok_new(preset, pattern, &err);
    if (!t) fail_msg("tok_new: %s", err.msg);
    TokenList list;
    int rc = tok_split(t, text, len, TOK_MAX_TOKENS, &list, &err);
    tok_free(t);
    if (rc != 0) fail_msg("tok_split: %s", err.msg);
    return list;
}

static TokenList split(TokPreset preset, const char *pattern, const char *text) {
    return split_len(preset, pattern, text, strlen(text));
}

/* Splits and expects failure; returns the message in err and checks that the
 * list was left empty. */
static void split_fails(TokPreset preset, const char *pattern, const char *text, size_t len, int max_tokens,
                        AvError *err) {
    Tokenizer *t = tok_new(preset, pattern, err);
    if (!t) fail_msg("tok_new: %s", err->msg);
    TokenList list;
    memset(&list, 0xab, sizeof list); /* garbage: tok_split must clear it */
    assert_int_equal(tok_split(t, text, len, max_tokens, &list, err), -1);
    assert_int_equal(list.n, 0);
    assert_int_equal(list.vocab, 0);
    assert_null(list.tok);
    assert_null(list.arena);
    tok_free(t);
}

/* Expects exactly the token texts want[0..n) (compared by bytes, with len). */
static void assert_tokens(const TokenList *list, const char *const *want, int n) {
    if (list->n != n) {
        for (int i = 0; i < list->n; i++) print_message("  token %d: [%s]\n", i, list->tok[i].text);
        fail_msg("expected %d tokens, got %d", n, list->n);
    }
    for (int i = 0; i < n; i++) {
        size_t len = strlen(want[i]);
        if (list->tok[i].len != len || memcmp(list->tok[i].text, want[i], len) != 0)
            fail_msg("token %d: expected [%s], got [%s]", i, want[i], list->tok[i].text);
        assert_int_equal(list->tok[i].text[len], '\0');
    }
}

#define ASSERT_TOKENS(list, ...)                                                                                       \
    do {                                                                                                               \
        const char *const want_[] = {__VA_ARGS__};                                                                     \
        assert_tokens((list), want_, (int)(sizeof want_ / sizeof want_[0]));                                           \
    } while (0)

/* ===== words ===== */

static void test_words_english(void **state) {
    (void)state;
    TokenList l = split(TOK_WORDS, NULL, "Mary greeted Bob.");
    ASSERT_TOKENS(&l, "Mary", "greeted", "Bob", ".");
    assert_int_equal(l.tok[0].offset, 0);
    assert_int_equal(l.tok[1].offset, 5);
    assert_int_equal(l.tok[2].offset, 13);
    assert_int_equal(l.tok[3].offset, 16);
    tok_list_free(&l);
}

static void test_words_korean(void **state) {
    (void)state;
    TokenList l = split(TOK_WORDS, NULL, "나는 학교에 간다");
    ASSERT_TOKENS(&l, "나는", "학교에", "간다");
    tok_list_free(&l);

    l = split(TOK_WORDS, NULL, "나는 회사에 간다.");
    ASSERT_TOKENS(&l, "나는", "회사에", "간다", ".");
    assert_int_equal(l.vocab, 4);
    tok_list_free(&l);
}

/* Without PCRE2_UCP, \s is ASCII only and U+3000 would glue the words together. */
static void test_ideographic_space_separates(void **state) {
    (void)state;
    TokenList l = split(TOK_WORDS, NULL, "나는\u3000간다");
    ASSERT_TOKENS(&l, "나는", "간다");
    assert_int_equal(l.tok[1].offset, 9); /* 6 bytes of 나는 + 3 of U+3000 */
    tok_list_free(&l);

    l = split(TOK_CHARS, NULL, "나\u3000는");
    ASSERT_TOKENS(&l, "나", "는");
    tok_list_free(&l);
}

static void test_combining_mark_stays_with_letter(void **state) {
    (void)state;
    TokenList l = split(TOK_WORDS, NULL, "cafe\u0301 e\u0301");
    ASSERT_TOKENS(&l, "cafe\u0301", "e\u0301");
    tok_list_free(&l);

    l = split(TOK_CHARS, NULL, "e\u0301");
    ASSERT_TOKENS(&l, "e\u0301");
    tok_list_free(&l);

    /* GPT-2's pattern has no \p{M}: it splits the mark off, as GPT-2 itself does. */
    l = split(TOK_GPT2, NULL, "e\u0301");
    ASSERT_TOKENS(&l, "e", "\u0301");
    tok_list_free(&l);
}

static void test_words_each_punctuation_mark(void **state) {
    (void)state;
    TokenList l = split(TOK_WORDS, NULL, "Wait?! don't (3.14)");
    ASSERT_TOKENS(&l, "Wait", "?", "!", "don", "'", "t", "(", "3", ".", "14", ")");
    tok_list_free(&l);
}

/* Why the words pattern takes a non-word character as a grapheme cluster and
 * keeps ZWNJ in words: none of these may fall apart into invisible pieces. */
static void test_words_emoji_and_joiners(void **state) {
    (void)state;
    /* heart + VS16 (a mark); a flag (two regional indicators); thumbs up + skin tone */
    TokenList l = split(TOK_WORDS, NULL, "I \u2764\uFE0F 서울 \U0001F1F0\U0001F1F7! \U0001F44D\U0001F3FD.");
    ASSERT_TOKENS(&l, "I", "\u2764\uFE0F", "서울", "\U0001F1F0\U0001F1F7", "!", "\U0001F44D\U0001F3FD", ".");
    tok_list_free(&l);

    /* A family emoji: man ZWJ woman ZWJ girl is one token. */
    l = split(TOK_WORDS, NULL, "\U0001F468\u200D\U0001F469\u200D\U0001F467 ok");
    ASSERT_TOKENS(&l, "\U0001F468\u200D\U0001F469\u200D\U0001F467", "ok");
    tok_list_free(&l);

    /* Persian "mi-khaham" (I want) is written with a ZWNJ inside the word. */
    l = split(TOK_WORDS, NULL, "\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645");
    ASSERT_TOKENS(&l, "\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645");
    tok_list_free(&l);
}

/* ===== gpt2 ===== */

static void test_gpt2_contractions_and_leading_spaces(void **state) {
    (void)state;
    TokenList l = split(TOK_GPT2, NULL, "I'm here, it's 2024!");
    ASSERT_TOKENS(&l, "I", "'m", " here", ",", " it", "'s", " 2024", "!");
    assert_int_equal(l.tok[2].offset, 3);
    tok_list_free(&l);

    l = split(TOK_GPT2, NULL, "나는 학교에");
    ASSERT_TOKENS(&l, "나는", " 학교에");
    tok_list_free(&l);
}

/* \s+(?!\S) leaves the last space of a run to the word that follows it. */
static void test_gpt2_spaces(void **state) {
    (void)state;
    TokenList l = split(TOK_GPT2, NULL, "a  b");
    ASSERT_TOKENS(&l, "a", " ", " b");
    tok_list_free(&l);

    l = split(TOK_GPT2, NULL, "a   ");
    ASSERT_TOKENS(&l, "a", "   ");
    tok_list_free(&l);
}

/* ===== chars ===== */

static void test_chars_hangul(void **state) {
    (void)state;
    TokenList l = split(TOK_CHARS, NULL, "나는");
    ASSERT_TOKENS(&l, "나", "는");
    tok_list_free(&l);

    l = split(TOK_CHARS, NULL, " 나는 간다 ");
    ASSERT_TOKENS(&l, "나", "는", "간", "다");
    assert_int_equal(l.tok[0].offset, 1);
    assert_int_equal(l.tok[2].offset, 8);
    tok_list_free(&l);

    /* Decomposed Hangul (conjoining jamo ᄀ ᅡ) is one grapheme cluster. */
    l = split(TOK_CHARS, NULL, "\u1100\u1161\u1102");
    ASSERT_TOKENS(&l, "\u1100\u1161", "\u1102");
    tok_list_free(&l);
}

/* ===== ids and offsets ===== */

static void test_ids_in_order_of_first_appearance(void **state) {
    (void)state;
    TokenList l = split(TOK_WORDS, NULL, "the cat saw the dog");
    const int want[] = {0, 1, 2, 0, 3};
    assert_int_equal(l.n, 5);
    for (int i = 0; i < 5; i++) assert_int_equal(l.tok[i].id, want[i]);
    assert_int_equal(l.vocab, 4);
    tok_list_free(&l);

    /* Texts differing only in length ("a" vs "aa") or case are different. */
    l = split(TOK_WORDS, NULL, "a aa A a");
    const int want2[] = {0, 1, 2, 0};
    for (int i = 0; i < 4; i++) assert_int_equal(l.tok[i].id, want2[i]);
    assert_int_equal(l.vocab, 3);
    tok_list_free(&l);
}

/* Fills the hash table far past its first size: 2000 words, then the same
 * 2000 again, then one new word (4001 tokens). */
static void test_ids_many_tokens(void **state) {
    (void)state;
    size_t cap = 64 * 1024, n = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < 2000; i++) n += (size_t)snprintf(text + n, cap - n, "w%d ", i);
    n += (size_t)snprintf(text + n, cap - n, "last");
    TokenList l = split_len(TOK_WORDS, NULL, text, n);
    assert_int_equal(l.n, 4001);
    assert_int_equal(l.vocab, 2001);
    for (int i = 0; i < 2000; i++) {
        assert_int_equal(l.tok[i].id, i);
        assert_int_equal(l.tok[2000 + i].id, i);
    }
    assert_int_equal(l.tok[4000].id, 2000);
    assert_string_equal(l.tok[1999].text, "w1999");
    tok_list_free(&l);
    free(text);
}

static void test_offsets_are_bytes(void **state) {
    (void)state;
    TokenList l = split(TOK_WORDS, NULL, "나는 간다, é!");
    ASSERT_TOKENS(&l, "나는", "간다", ",", "é", "!");
    const size_t offset[] = {0, 7, 13, 15, 17};
    const size_t len[] = {6, 6, 1, 2, 1};
    for (int i = 0; i < 5; i++) {
        assert_int_equal(l.tok[i].offset, offset[i]);
        assert_int_equal(l.tok[i].len, len[i]);
    }
    tok_list_free(&l);
}

/* ===== empty input ===== */

static void test_empty_and_whitespace_input(void **state) {
    (void)state;
    for (int p = 0; p < TOK_CUSTOM; p++) {
        TokenList l = split((TokPreset)p, NULL, "");
        assert_int_equal(l.n, 0);
        assert_int_equal(l.vocab, 0);
        assert_null(l.tok);
        tok_list_free(&l);

        l = split_len((TokPreset)p, NULL, NULL, 0);
        assert_int_equal(l.n, 0);
        tok_list_free(&l);

        l = split((TokPreset)p, NULL, " \t\r\n\u3000\u00A0 ");
        /* gpt2 keeps whitespace (\s+): every other preset drops it. */
        assert_int_equal(l.n, p == TOK_GPT2 ? 1 : 0);
        tok_list_free(&l);
    }
}

/* ===== invalid UTF-8 ===== */

static void test_invalid_utf8(void **state) {
    (void)state;
    AvError err = {0};
    split_fails(TOK_WORDS, NULL, "ab\xff", 3, TOK_MAX_TOKENS, &err);
    assert_non_null(strstr(err.msg, "invalid UTF-8 at byte offset 2: "));

    /* 가 is 3 bytes; the next character lacks its last byte. The offset is the
     * lead byte of the broken character. */
    split_fails(TOK_WORDS, NULL, "가\xea\xb0", 5, TOK_MAX_TOKENS, &err);
    assert_string_equal(err.msg, "invalid UTF-8 at byte offset 3: the text ends inside a 3-byte character");

    /* The same truncation in the middle of the text. */
    split_fails(TOK_CHARS, NULL, "가\xea\xb0 x", 7, TOK_MAX_TOKENS, &err);
    assert_string_equal(err.msg, "invalid UTF-8 at byte offset 3: a 3-byte character is cut short by byte 0x20");

    /* A stray continuation byte after valid tokens. */
    split_fails(TOK_GPT2, NULL, "ok \x80", 4, TOK_MAX_TOKENS, &err);
    assert_string_equal(err.msg, "invalid UTF-8 at byte offset 3: byte 0x80 continues a character that did not start");
    split_fails(TOK_WORDS, NULL, "abc\xc3", 4, TOK_MAX_TOKENS, &err);
    assert_string_equal(err.msg, "invalid UTF-8 at byte offset 3: the text ends inside a 2-byte character");
    split_fails(TOK_WORDS, NULL, "a\xed\xa0\x80", 4, TOK_MAX_TOKENS, &err);
    assert_non_null(strstr(err.msg, "offset 1: a UTF-16 surrogate"));
    split_fails(TOK_WORDS, NULL, "a\xe0\x80\x80", 4, TOK_MAX_TOKENS, &err);
    assert_non_null(strstr(err.msg, "offset 1: an overlong encoding"));
    split_fails(TOK_WORDS, NULL, "a\xf4\x90\x80\x80", 5, TOK_MAX_TOKENS, &err);
    assert_non_null(strstr(err.msg, "offset 1: a code point above U+10FFFF"));
    split_fails(TOK_WORDS, NULL, "a\xc1\x81", 3, TOK_MAX_TOKENS, &err);
    assert_non_null(strstr(err.msg, "offset 1: byte 0xC1 starts an overlong encoding"));

    /* Checked even when the pattern could never match or the text is blank. */
    split_fails(TOK_CUSTOM, "zzzz", "a\xff", 2, TOK_MAX_TOKENS, &err);
    assert_non_null(strstr(err.msg, "invalid UTF-8 at byte offset 1: "));
    split_fails(TOK_WORDS, NULL, "   \xc0\x80", 5, TOK_MAX_TOKENS, &err);
    assert_non_null(strstr(err.msg, "invalid UTF-8 at byte offset 3: "));
}

/* ===== custom patterns ===== */

static void test_bad_pattern(void **state) {
    (void)state;
    AvError err = {0};
    assert_null(tok_new(TOK_CUSTOM, "(", &err));
    assert_string_equal(err.msg, "--pattern: missing closing parenthesis at offset 1");

    assert_null(tok_new(TOK_CUSTOM, "ab[", &err));
    assert_non_null(strstr(err.msg, "--pattern: "));
    assert_non_null(strstr(err.msg, " at offset 3"));

    /* \C could end a match inside a UTF-8 character: refused. */
    assert_null(tok_new(TOK_CUSTOM, "a\\C", &err));
    assert_non_null(strstr(err.msg, "offset"));

    assert_null(tok_new(TOK_CUSTOM, NULL, &err));
    assert_string_equal(err.msg, "--pattern: no pattern given");

    assert_null(tok_new(TOK_PRESET_COUNT, NULL, &err));
    assert_non_null(strstr(err.msg, "unknown"));
}

/* Empty matches are stepped over and never become tokens; every one of these
 * would loop forever with a naive "search again from the end" loop. */
static void test_empty_matches(void **state) {
    (void)state;
    TokenList l = split(TOK_CUSTOM, "x*", "abc");
    assert_int_equal(l.n, 0);
    tok_list_free(&l);

    l = split(TOK_CUSTOM, "a*", "baaab");
    ASSERT_TOKENS(&l, "aaa");
    assert_int_equal(l.tok[0].offset, 1);
    tok_list_free(&l);

    l = split(TOK_CUSTOM, "a*", "가a나aa");
    ASSERT_TOKENS(&l, "a", "aa");
    assert_int_equal(l.tok[0].offset, 3);
    assert_int_equal(l.tok[1].offset, 7);
    tok_list_free(&l);

    l = split(TOK_CUSTOM, "\\b", "ab cd");
    assert_int_equal(l.n, 0);
    tok_list_free(&l);

    l = split(TOK_CUSTOM, "(?=x)", "xax");
    assert_int_equal(l.n, 0);
    tok_list_free(&l);

    l = split(TOK_CUSTOM, "", "나는 간다");
    assert_int_equal(l.n, 0);
    tok_list_free(&l);

    /* As in Perl and pcre2demo, when CR LF is a newline an empty match before
     * it steps over both bytes, so the LF is never a match start. */
    l = split(TOK_CUSTOM, "(*CRLF)\n?", "a\r\n");
    assert_int_equal(l.n, 0);
    tok_list_free(&l);
    l = split(TOK_CUSTOM, "(*LF)\n?", "a\r\n");
    ASSERT_TOKENS(&l, "\n");
    assert_int_equal(l.tok[0].offset, 2);
    tok_list_free(&l);
}

/* After an empty match the search must resume a whole character later. Had it
 * stepped one byte, PCRE2 would read é's second byte 0xA9 as U+00A9, which
 * [^é] matches, and return a broken one-byte token. */
static void test_empty_match_steps_whole_character(void **state) {
    (void)state;
    TokenList l = split(TOK_CUSTOM, "[^é]|(?=é)", "é");
    assert_int_equal(l.n, 0);
    tok_list_free(&l);
}

static void test_custom_hangul(void **state) {
    (void)state;
    TokenList l = split(TOK_CUSTOM, "\\p{Hangul}+", "나는 abc 학교에, 간다");
    ASSERT_TOKENS(&l, "나는", "학교에", "간다");
    assert_int_equal(l.tok[1].offset, 11);
    tok_list_free(&l);
}

/* A run of empty matches and a long blank stretch: only the first match may
 * pay for PCRE2's UTF check, or 3 x 85,000 matches over 256 KiB would take
 * minutes. The results are what is asserted here. */
static void test_long_input(void **state) {
    (void)state;
    size_t n = 256 * 1024;
    char *text = malloc(n + 1);
    assert_non_null(text);
    for (size_t i = 0; i + 3 <= n; i += 3) memcpy(text + i, "가", 3);
    size_t used = n - n % 3;
    text[used] = 'x';
    TokenList l = split_len(TOK_CUSTOM, "x*", text, used + 1);
    ASSERT_TOKENS(&l, "x");
    assert_int_equal(l.tok[0].offset, used);
    tok_list_free(&l);

    memset(text, ' ', n);
    memcpy(text + n - 3, "end", 3);
    l = split_len(TOK_WORDS, NULL, text, n);
    ASSERT_TOKENS(&l, "end");
    assert_int_equal(l.tok[0].offset, n - 3);
    tok_list_free(&l);
    free(text);
}

/* ===== limits and errors ===== */

static void test_too_many_tokens(void **state) {
    (void)state;
    AvError err = {0};
    split_fails(TOK_WORDS, NULL, "a b c d", 7, 3, &err);
    /* Where the text goes on: found without counting (or storing) the rest. */
    assert_string_equal(err.msg, "too many tokens: more than 3, the limit (token 4 starts at byte offset 6)");

    Tokenizer *t = tok_new(TOK_WORDS, NULL, &err);
    assert_non_null(t);
    TokenList l;
    assert_int_equal(tok_split(t, "a b c d", 7, 4, &l, &err), 0); /* exactly the limit */
    assert_int_equal(l.n, 4);
    tok_list_free(&l);
    assert_int_equal(tok_split(t, "  ", 2, 0, &l, &err), 0); /* no tokens, limit 0 */
    assert_int_equal(l.n, 0);
    assert_int_equal(tok_split(t, "a", 1, -1, &l, &err), -1);
    tok_free(t);
}

static void test_match_limit(void **state) {
    (void)state;
    AvError err = {0};
    split_fails(TOK_CUSTOM, "(*LIMIT_MATCH=10)(a+)+$", "aaaaaaaaaaaaaaaaaaaab", 21, TOK_MAX_TOKENS, &err);
    assert_non_null(strstr(err.msg, "match limit"));
}

/* (a|b)* backtracks once per character: over 20,000 characters that overflows
 * JIT's fixed 32 KiB stack, and the split must fall back to the interpreter
 * (which backtracks on the heap) rather than fail. */
static void test_deep_backtracking_falls_back_to_interpreter(void **state) {
    (void)state;
    size_t n = 20000;
    char *text = malloc(n);
    assert_non_null(text);
    for (size_t i = 0; i < n; i++) text[i] = "ab"[i % 2];
    TokenList l = split_len(TOK_CUSTOM, "(a|b)*$", text, n);
    assert_int_equal(l.n, 1);
    assert_int_equal(l.tok[0].offset, 0);
    assert_int_equal(l.tok[0].len, n);
    tok_list_free(&l);
    free(text);
}

/* Issue 10: each match of (?:(a+)+c)? on runs of 20 a's stays under the match
 * limit, but the whole text would take hours: the time budget stops it with a
 * message that says where, and the list is left empty. */
static char *runs_of_a(size_t runs, size_t run, size_t *len) {
    *len = runs * (run + 1);
    char *text = malloc(*len + 1);
    assert_non_null(text);
    for (size_t i = 0; i < *len; i++) text[i] = (i % (run + 1)) == run ? 'b' : 'a';
    text[*len] = '\0';
    return text;
}

static void test_time_budget_stops_catastrophic_pattern(void **state) {
    (void)state;
    size_t len;
    char *text = runs_of_a(330, 20, &len);
    AvError err = {0};
    Tokenizer *t = tok_new(TOK_CUSTOM, "(?:(a+)+c)?", &err);
    assert_non_null(t);
    tok_set_time_budget(t, 0.2);
    TokenList l;
    assert_int_equal(tok_split(t, text, len, TOK_MAX_TOKENS, &l, &err), -1);
    assert_non_null(strstr(err.msg, "backtracks too much"));
    assert_non_null(strstr(err.msg, "after 0.2 s"));
    assert_non_null(strstr(err.msg, "of 6930"));
    assert_int_equal(l.n, 0);
    assert_null(l.tok);
    /* The same tokenizer works again on a plain text. */
    assert_int_equal(tok_split(t, "aab", 3, TOK_MAX_TOKENS, &l, &err), 0);
    tok_list_free(&l);
    tok_free(t);
    free(text);
}

/* A repeated group keeps a backtracking frame per repetition: 1 MiB of a's
 * needs gigabytes without a heap limit. With it, a message and little memory. */
static void test_heap_limit(void **state) {
    (void)state;
    size_t n = 1 << 20;
    char *text = malloc(n);
    assert_non_null(text);
    memset(text, 'a', n);
    AvError err = {0};
    split_fails(TOK_CUSTOM, "((((((((((a))))))))))*", text, n, TOK_MAX_TOKENS, &err);
    assert_non_null(strstr(err.msg, "heap limit"));
    assert_non_null(strstr(err.msg, "over 64 MiB"));
    free(text);
}

/* A cancel request (the user quits) stops a long split at once. */
static void test_cancel_stops_split(void **state) {
    (void)state;
    size_t len;
    char *text = runs_of_a(330, 20, &len);
    av_cancel_request();
    AvError err = {0};
    split_fails(TOK_CUSTOM, "(?:(a+)+c)?", text, len, TOK_MAX_TOKENS, &err);
    av_cancel_clear();
    assert_non_null(strstr(err.msg, "cancelled"));
    free(text);
}

/* A NUL byte is valid UTF-8 and is counted by len, so it must not end the
 * text. With the words preset it is a non-space, non-letter character, so it is
 * a token of its own: "a", "\0", "b". We keep it rather than drop it: the
 * tokenizer does not hide input, and the TUI shows control characters escaped.
 * Its text is one NUL byte (len 1) followed by the terminating NUL. */
static void test_nul_byte_inside_text(void **state) {
    (void)state;
    TokenList l = split_len(TOK_WORDS, NULL, "a\0b", 3);
    assert_int_equal(l.n, 3);
    assert_string_equal(l.tok[0].text, "a");
    assert_int_equal(l.tok[1].len, 1);
    assert_int_equal(l.tok[1].offset, 1);
    assert_int_equal(l.tok[1].text[0], '\0');
    assert_int_equal(l.tok[1].text[1], '\0');
    assert_string_equal(l.tok[2].text, "b");
    assert_int_equal(l.tok[2].offset, 2);
    assert_int_equal(l.vocab, 3);
    tok_list_free(&l);

    /* NUL tokens are compared by len, not strlen: both NULs share one id. */
    l = split_len(TOK_CHARS, NULL, "\0x\0", 3);
    assert_int_equal(l.n, 3);
    assert_int_equal(l.tok[0].id, 0);
    assert_int_equal(l.tok[1].id, 1);
    assert_int_equal(l.tok[2].id, 0);
    tok_list_free(&l);
}

/* ===== presets, accessors, ownership ===== */

static void test_preset_names(void **state) {
    (void)state;
    const char *names[] = {"words", "gpt2", "chars", "custom"};
    for (int p = 0; p < TOK_PRESET_COUNT; p++) {
        assert_string_equal(tok_preset_name((TokPreset)p), names[p]);
        TokPreset back = TOK_PRESET_COUNT;
        assert_int_equal(tok_preset_parse(tok_preset_name((TokPreset)p), &back), 0);
        assert_int_equal(back, p);
    }
    TokPreset untouched = TOK_GPT2;
    assert_int_equal(tok_preset_parse("bpe", &untouched), -1);
    assert_int_equal(tok_preset_parse("Words", &untouched), -1);
    assert_int_equal(tok_preset_parse("", &untouched), -1);
    assert_int_equal(tok_preset_parse(NULL, &untouched), -1);
    assert_int_equal(untouched, TOK_GPT2);

    assert_string_equal(tok_preset_pattern(TOK_GPT2),
                        "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+"
                        "|\\s+(?!\\S)|\\s+");
    assert_string_equal(tok_preset_pattern(TOK_CHARS), "(?!\\s)\\X");
    assert_non_null(tok_preset_pattern(TOK_WORDS));
    assert_null(tok_preset_pattern(TOK_CUSTOM));
}

static void test_accessors(void **state) {
    (void)state;
    AvError err = {0};
    for (int p = 0; p < TOK_CUSTOM; p++) {
        Tokenizer *t = tok_new((TokPreset)p, "ignored(", &err);
        assert_non_null(t);
        assert_int_equal(tok_preset(t), p);
        assert_string_equal(tok_pattern(t), tok_preset_pattern((TokPreset)p));
        assert_true(tok_uses_jit(t) == 0 || tok_uses_jit(t) == 1);
        tok_free(t);
    }
    char pattern[] = "[a-z]+";
    Tokenizer *t = tok_new(TOK_CUSTOM, pattern, &err);
    assert_non_null(t);
    pattern[0] = '#'; /* the tokenizer keeps its own copy */
    assert_string_equal(tok_pattern(t), "[a-z]+");
    assert_int_equal(tok_preset(t), TOK_CUSTOM);
    tok_free(t);
}

/* One tokenizer serves many splits, also after a failed one. */
static void test_reuse_after_error(void **state) {
    (void)state;
    AvError err = {0};
    Tokenizer *t = tok_new(TOK_WORDS, NULL, &err);
    assert_non_null(t);
    TokenList l;
    assert_int_equal(tok_split(t, "x \xff", 3, TOK_MAX_TOKENS, &l, &err), -1);
    assert_int_equal(tok_split(t, "one two", 7, TOK_MAX_TOKENS, &l, &err), 0);
    ASSERT_TOKENS(&l, "one", "two");
    tok_list_free(&l);
    assert_int_equal(tok_split(t, "three", 5, TOK_MAX_TOKENS, &l, &err), 0);
    ASSERT_TOKENS(&l, "three");
    tok_list_free(&l);
    tok_free(t);
}

static void test_frees_accept_null(void **state) {
    (void)state;
    tok_free(NULL);
    tok_list_free(NULL);
    TokenList l = split(TOK_WORDS, NULL, "a b");
    tok_list_free(&l);
    assert_null(l.tok);
    assert_null(l.arena);
    assert_int_equal(l.n, 0);
    tok_list_free(&l); /* twice is harmless: the first left it empty */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_words_english),
        cmocka_unit_test(test_words_korean),
        cmocka_unit_test(test_ideographic_space_separates),
        cmocka_unit_test(test_combining_mark_stays_with_letter),
        cmocka_unit_test(test_words_each_punctuation_mark),
        cmocka_unit_test(test_words_emoji_and_joiners),
        cmocka_unit_test(test_gpt2_contractions_and_leading_spaces),
        cmocka_unit_test(test_gpt2_spaces),
        cmocka_unit_test(test_chars_hangul),
        cmocka_unit_test(test_ids_in_order_of_first_appearance),
        cmocka_unit_test(test_ids_many_tokens),
        cmocka_unit_test(test_offsets_are_bytes),
        cmocka_unit_test(test_empty_and_whitespace_input),
        cmocka_unit_test(test_invalid_utf8),
        cmocka_unit_test(test_bad_pattern),
        cmocka_unit_test(test_empty_matches),
        cmocka_unit_test(test_empty_match_steps_whole_character),
        cmocka_unit_test(test_custom_hangul),
        cmocka_unit_test(test_long_input),
        cmocka_unit_test(test_too_many_tokens),
        cmocka_unit_test(test_match_limit),
        cmocka_unit_test(test_deep_backtracking_falls_back_to_interpreter),
        cmocka_unit_test(test_time_budget_stops_catastrophic_pattern),
        cmocka_unit_test(test_heap_limit),
        cmocka_unit_test(test_cancel_stops_split),
        cmocka_unit_test(test_nul_byte_inside_text),
        cmocka_unit_test(test_preset_names),
        cmocka_unit_test(test_accessors),
        cmocka_unit_test(test_reuse_after_error),
        cmocka_unit_test(test_frees_accept_null),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
