/* test_hftok_text.c - cmocka tests of what a Hugging Face tokenizer does to
 * a text before its model: added tokens (src/text/hftok_added.c), the normalizer
 * (src/text/hftok_encode.c on src/text/unorm.c), cancelling, and the files refused
 * because they would tokenize silently wrong.
 *
 * The work of an encoding is counted (HfTokWork), never timed: 100,000
 * added tokens sharing a prefix over 1 MiB of text must take a number of
 * automaton steps linear in the text (the old matcher tried every token at
 * every byte: about 10^11 comparisons, 45 minutes). An alarm of a generous
 * few minutes turns a hang into a failure. Run from the repository root. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cancel.h"
#include "hftok.h"

// ---------------------------------------------------------------------------
// helpers

typedef struct {
    char *p;
    size_t n, cap;
} Str;

static void put(Str *s, const char *fmt, ...) {
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int k = vsnprintf(s->p ? s->p + s->n : NULL, s->p ? s->cap - s->n : 0, fmt, ap);
        va_end(ap);
        assert_true(k >= 0);
        if (s->p && s->n + (size_t)k < s->cap) {
            s->n += (size_t)k;
            return;
        }
        s->cap = s->cap ? s->cap * 2 + (size_t)k : 4096 + (size_t)k;
        s->p = realloc(s->p, s->cap);
        assert_non_null(s->p);
    }
}

static HfTok *parse_ok(const char *json, size_t len) {
    AvError err = {0};
    HfTok *t = hftok_parse(json, len, "tok.json", &err);
    if (!t) fail_msg("%s", err.msg);
    return t;
}

static void expect_parse_error(const char *json, const char *msg) {
    AvError err = {0};
    HfTok *t = hftok_parse(json, strlen(json), "tok.json", &err);
    assert_null(t);
    assert_string_equal(err.msg, msg);
}

/* The ids of text as a string: an added token as {content}, any other id
 * as its piece. */
static char *render(const HfTok *t, const char *text) {
    int *ids = NULL;
    AvError err = {0};
    int n = hftok_encode(t, text, strlen(text), &ids, &err);
    if (n < 0) fail_msg("\"%s\": %s", text, err.msg);
    Str s = {0};
    put(&s, "%s", "");
    for (int i = 0; i < n; i++) {
        size_t len;
        const char *p = hftok_piece(t, ids[i], &len);
        int added = ids[i] >= 1000;
        put(&s, "%s%.*s%s", added ? "{" : "", (int)len, p, added ? "}" : "");
    }
    free(ids);
    return s.p;
}

static void expect_render(const HfTok *t, const char *text, const char *want) {
    char *got = render(t, text);
    if (strcmp(got, want) != 0) fail_msg("\"%s\": got \"%s\", want \"%s\"", text, got, want);
    free(got);
}

/* A vocabulary of single characters, ids 0.. in order, as JSON members. */
static void char_vocab(Str *s, const char *const *chars, int n) {
    for (int i = 0; i < n; i++) put(s, "%s\"%s\": %d", i ? ", " : "", chars[i], i);
}

// ---------------------------------------------------------------------------
// 100,000 added tokens sharing a prefix, 1 MiB of text

enum { MANY = 100000, MB = 1 << 20 };

/* GPT-2's byte table: the character each byte stands for. */
static unsigned byte_char(int b) {
    static unsigned cp[256];
    static int done;
    if (!done) {
        unsigned next = 256;
        for (int i = 0; i < 256; i++) {
            int printable = (i >= 0x21 && i <= 0x7E) || (i >= 0xA1 && i <= 0xAC) || (i >= 0xAE && i <= 0xFF);
            cp[i] = printable ? (unsigned)i : next++;
        }
        done = 1;
    }
    return cp[b];
}

/* A byte-level tokenizer.json: the 256 byte symbols (id = the byte), no
 * merges, and MANY added tokens <|reserved_special_token_K|> (id 1000 + K). */
static HfTok *many_added(void) {
    Str s = {0};
    put(&s, "{\"added_tokens\": [");
    for (int k = 0; k < MANY; k++)
        put(&s,
            "%s{\"id\": %d, \"content\": \"<|reserved_special_token_%d|>\", \"single_word\": false,"
            " \"lstrip\": false, \"rstrip\": false, \"normalized\": false, \"special\": true}",
            k ? ", " : "", 1000 + k, k);
    put(&s, "], \"normalizer\": null, \"pre_tokenizer\": {\"type\": \"ByteLevel\", \"add_prefix_space\": false,"
            " \"use_regex\": true}, \"model\": {\"type\": \"BPE\", \"vocab\": {");
    for (int b = 0; b < 256; b++) {
        char u[8];
        unsigned c = byte_char(b);
        if (c < 0x80) snprintf(u, sizeof u, "%s%c", c == '"' || c == '\\' ? "\\" : "", (char)c);
        else snprintf(u, sizeof u, "%c%c", (char)(0xC0 | c >> 6), (char)(0x80 | (c & 0x3F)));
        put(&s, "%s\"%s\": %d", b ? ", " : "", u, b);
    }
    put(&s, "}, \"merges\": []}}");
    HfTok *t = parse_ok(s.p, s.n);
    free(s.p);
    return t;
}

static int *encode_counted(const HfTok *t, const char *text, size_t len, int *n, HfTokWork *w) {
    int *ids = NULL;
    AvError err = {0};
    memset(w, 0, sizeof *w);
    *n = hftok_encode_work(t, text, len, &ids, w, &err);
    if (*n < 0) fail_msg("%s", err.msg);
    return ids;
}

static void test_many_added_tokens(void **state) {
    (void)state;
    alarm(300); /* a hang fails; the old matcher needed about 45 minutes */
    HfTok *t = many_added();
    assert_int_equal(hftok_vocab_size(t), 1000 + MANY);
    char *text = malloc(MB);
    assert_non_null(text);
    HfTokWork w;
    int n;

    /* 1 MiB of '<' and 1 MiB of the shared prefix without an end: no token,
     * every byte its own id; the automaton's steps within 4 a byte. */
    memset(text, '<', MB);
    int *ids = encode_counted(t, text, MB, &n, &w);
    assert_int_equal(n, MB);
    assert_int_equal(ids[0], '<');
    assert_int_equal(ids[MB - 1], '<');
    assert_true(w.added_steps <= 4 * (size_t)MB);
    printf("1 MiB of '<': %zu automaton steps\n", w.added_steps);
    free(ids);
    static const char PREFIX[] = "<|reserved_special_token_";
    for (size_t i = 0; i < MB; i++) text[i] = PREFIX[i % (sizeof PREFIX - 1)];
    ids = encode_counted(t, text, MB, &n, &w);
    assert_int_equal(n, MB);
    assert_true(w.added_steps <= 4 * (size_t)MB);
    printf("1 MiB of \"%s\": %zu automaton steps\n", PREFIX, w.added_steps);
    free(ids);

    /* Tokens among letters: each found, with the longest (…_12|> is not
     * …_1 followed by 2|>). */
    size_t len = 0;
    int want_n = 0, *want = malloc(sizeof(int) * MB);
    assert_non_null(want);
    unsigned seed = 7;
    while (len < MB - 64) {
        seed = seed * 1103515245u + 12345u;
        if (seed >> 28 < 5) {
            int k = (int)((seed >> 8) % MANY);
            len += (size_t)snprintf(text + len, 64, "<|reserved_special_token_%d|>", k);
            want[want_n++] = 1000 + k;
        } else {
            char c = (char)('a' + (seed >> 16) % 26);
            text[len++] = c;
            want[want_n++] = c;
        }
    }
    ids = encode_counted(t, text, len, &n, &w);
    assert_int_equal(n, want_n);
    assert_memory_equal(ids, want, sizeof(int) * (size_t)n);
    assert_true(w.added_steps <= 4 * len);
    printf("1 MiB with %d ids: %zu automaton steps\n", n, w.added_steps);
    free(ids);
    free(want);
    free(text);
    hftok_free(t);
    alarm(0);
}

// ---------------------------------------------------------------------------
// leftmost-longest against the plain definition

/* Random tokens over {a, b, c} (ids 1000..) and texts: the ids must be
 * those of "at the next byte where a token starts, the longest there", the
 * definition written out as it reads. */
static void test_leftmost_longest(void **state) {
    (void)state;
    unsigned seed = 1;
#define RND(n) (seed = seed * 1103515245u + 12345u, (int)((seed >> 16) % (unsigned)(n)))
    for (int round = 0; round < 400; round++) {
        int np = 1 + RND(30);
        char pat[30][8];
        Str s = {0};
        put(&s, "{\"added_tokens\": [");
        for (int i = 0; i < np; i++) {
            int len = 1 + RND(6);
            for (int k = 0; k < len; k++) pat[i][k] = (char)('a' + RND(3));
            pat[i][len] = '\0';
            put(&s, "%s{\"id\": %d, \"content\": \"%s\", \"normalized\": false, \"special\": true}", i ? ", " : "",
                1000 + i, pat[i]);
        }
        put(&s, "], \"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"b\": 1, \"c\": 2}, \"merges\": []}}");
        HfTok *t = parse_ok(s.p, s.n);
        free(s.p);
        char text[200];
        int tl = RND(199);
        for (int k = 0; k < tl; k++) text[k] = (char)('a' + RND(3));
        text[tl] = '\0';
        int want[200], wn = 0;
        for (int pos = 0; pos < tl;) {
            int best = -1, best_len = 0;
            for (int i = 0; i < np; i++) { /* the first of equal texts: its id */
                int l = (int)strlen(pat[i]);
                if (l > best_len && pos + l <= tl && memcmp(text + pos, pat[i], (size_t)l) == 0) best = i, best_len = l;
            }
            if (best < 0) want[wn++] = text[pos++] - 'a';
            else want[wn++] = 1000 + best, pos += best_len;
        }
        int *ids = NULL;
        AvError err = {0};
        int n = hftok_encode(t, text, (size_t)tl, &ids, &err);
        assert_int_equal(n, wn);
        if (wn) assert_memory_equal(ids, want, sizeof(int) * (size_t)wn);
        free(ids);
        hftok_free(t);
    }
#undef RND
}

// ---------------------------------------------------------------------------
// single_word, lstrip, rstrip, normalized: the tokenizers library's own cases

static const char *const CHARS[] = {"a",
                                    "b",
                                    "c",
                                    "d",
                                    "e",
                                    "f",
                                    "g",
                                    "h",
                                    "i",
                                    "j",
                                    "k",
                                    "l",
                                    "m",
                                    "n",
                                    "o",
                                    "p",
                                    "q",
                                    "r",
                                    "s",
                                    "t",
                                    "u",
                                    "v",
                                    "w",
                                    "x",
                                    "y",
                                    "z",
                                    "<",
                                    ">",
                                    " ",
                                    ",",
                                    "-",
                                    "\\t",
                                    "[",
                                    "]",
                                    "\xe2\x97\x8c" /* ◌ */,
                                    "\xcc\xb0" /* U+0330 */,
                                    "\xe2\x80\x80" /* U+2000 */};

/* A tokenizer of single characters with a Lowercase normalizer and the
 * added tokens `added` (JSON objects without ids: given from 1000). */
static HfTok *with_added(const char *const *added, int n) {
    Str s = {0};
    put(&s, "{\"added_tokens\": [");
    for (int i = 0; i < n; i++) put(&s, "%s{\"id\": %d, %s}", i ? ", " : "", 1000 + i, added[i]);
    put(&s, "], \"normalizer\": {\"type\": \"Lowercase\"}, \"model\": {\"type\": \"BPE\", \"vocab\": {");
    char_vocab(&s, CHARS, (int)(sizeof CHARS / sizeof *CHARS));
    put(&s, "}, \"merges\": []}}");
    HfTok *t = parse_ok(s.p, s.n);
    free(s.p);
    return t;
}

static void test_added_options(void **state) {
    (void)state;
    /* options_use_cases: "my" takes the spaces around it, "ony" is not a word */
    HfTok *t = with_added(
        (const char *const[]){"\"content\": \"my\", \"lstrip\": true, \"rstrip\": true, \"normalized\": true",
                              "\"content\": \"name\", \"normalized\": true",
                              "\"content\": \"ony\", \"single_word\": true, \"normalized\": true",
                              "\"content\": \"[CLS]\", \"special\": true, \"normalized\": false",
                              "\"content\": \"[SEP]\", \"special\": true, \"normalized\": false"},
        5);
    expect_render(t, "[CLS] My name is Anthony [SEP]", "{[CLS]}{my}{name} is anthony {[SEP]}");
    hftok_free(t);
    /* test_single_word_is_correct and _is_unicode_correct: a mark is a word character */
    t = with_added((const char *const[]){"\"content\": \"<mask>\", \"single_word\": true, \"normalized\": true"}, 1);
    expect_render(t, "<mask> My name <mask> A<mask> <mask>ony <mask>",
                  "{<mask>} my name {<mask>} a<mask> <mask>ony {<mask>}");
    expect_render(t, "<mask>, <mask>- \xe2\x97\x8c\xcc\xb0<mask>", "{<mask>}, {<mask>}- \xe2\x97\x8c\xcc\xb0<mask>");
    hftok_free(t);
    /* test_lstrip_unicode_space: a tab and U+2000 are white space */
    t = with_added((const char *const[]){"\"content\": \"<mask>\", \"lstrip\": true, \"rstrip\": true,"
                                         " \"single_word\": true, \"normalized\": true"},
                   1);
    expect_render(t, "Hi <mask> there\t<mask>\t<mask>\xe2\x80\x80", "hi{<mask>}there{<mask>}{<mask>}");
    hftok_free(t);
    /* normalized: false matches the raw text only; true the lowercased one
     * (a piece shows the content as the file writes it) */
    t = with_added((const char *const[]){"\"content\": \"Ab\", \"normalized\": false",
                                         "\"content\": \"CD\", \"normalized\": true"},
                   2);
    expect_render(t, "Ab ab cd CD", "{Ab} ab {CD} {CD}");
    hftok_free(t);
}

// ---------------------------------------------------------------------------
// the normalizers

/* Characters enough for the cases below, ids 0.. */
static const char *const NCHARS[] = {
    "a",
    "b",
    "c",
    "e",
    "f",
    "i",
    "m",
    "r",
    "t",
    "1",
    "_",
    "-",
    " ",
    "R",
    "T",
    "M",
    "\xc3\xa9",     /* é */
    "\xcc\x81",     /* U+0301 */
    "\xcc\x87",     /* U+0307 */
    "\xea\xb0\x80", /* 가 */
    "\xe1\x84\x80", /* U+1100 */
    "\xe1\x85\xa1", /* U+1161 */
    "\xc3\x85",     /* Å */
    "\xcf\x83",     /* σ */
    "\xce\xb1",     /* α */
    "\xc3\xa0",     /* à */
    "\xef\xac\x81", /* ﬁ */
};

static HfTok *with_normalizer(const char *normalizer) {
    Str s = {0};
    put(&s, "{\"normalizer\": %s, \"model\": {\"type\": \"BPE\", \"unk_token\": \"?\", \"vocab\": {\"?\": 1000, ",
        normalizer);
    char_vocab(&s, NCHARS, (int)(sizeof NCHARS / sizeof *NCHARS));
    put(&s, "}, \"merges\": []}}");
    HfTok *t = parse_ok(s.p, s.n);
    free(s.p);
    return t;
}

static void expect_norm(const char *normalizer, const char *text, const char *want) {
    HfTok *t = with_normalizer(normalizer);
    char *got = render(t, text);
    if (strcmp(got, want) != 0) fail_msg("%s on \"%s\": got \"%s\", want \"%s\"", normalizer, text, got, want);
    free(got);
    hftok_free(t);
}

static void test_normalizers(void **state) {
    (void)state;
    const char *nfc = "{\"type\": \"NFC\"}", *nfd = "{\"type\": \"NFD\"}";
    const char *nfkc = "{\"type\": \"NFKC\"}", *nfkd = "{\"type\": \"NFKD\"}";
    expect_norm(nfc, "e\xcc\x81", "\xc3\xa9");                    /* e + U+0301: é */
    expect_norm(nfc, "\xe1\x84\x80\xe1\x85\xa1", "\xea\xb0\x80"); /* Hangul jamo: 가 */
    expect_norm(nfc, "\xe2\x84\xab", "\xc3\x85");                 /* U+212B ANGSTROM SIGN: Å */
    expect_norm(nfc, "\xef\xac\x81", "\xef\xac\x81");             /* ﬁ stays */
    expect_norm(nfd, "\xc3\xa9", "e\xcc\x81");
    expect_norm(nfd, "\xea\xb0\x80", "\xe1\x84\x80\xe1\x85\xa1");
    expect_norm(nfkc, "\xef\xac\x81", "fi"); /* ﬁ */
    expect_norm(nfkc, "\xe2\x84\x9d", "R");  /* ℝ */
    expect_norm(nfkc, "\xe2\x84\xa2", "TM"); /* ™ */
    expect_norm(nfkc, "\xe2\x91\xa0", "1");  /* ① */
    expect_norm(nfkc, "\xe1\xb5\x80", "T");  /* ᵀ */
    expect_norm(nfkc, "e\xcc\x81\xef\xac\x81",
                "\xc3\xa9"
                "fi");
    expect_norm(nfkd, "\xc3\xa9\xef\xac\x81",
                "e\xcc\x81"
                "fi");
    const char *lower = "{\"type\": \"Lowercase\"}";
    expect_norm(lower, "\xc4\xb0", "i\xcc\x87");                                /* İ: i and U+0307 */
    expect_norm(lower, "\xce\xa3\xce\x91\xce\xa3", "\xcf\x83\xce\xb1\xcf\x83"); /* ΣΑΣ: σασ, no final ς */
    expect_norm(lower,
                "\xc3\x80"
                "B",
                "\xc3\xa0"
                "b");
    expect_norm("{\"type\": \"Sequence\", \"normalizers\": [{\"type\": \"NFD\"}, {\"type\": \"StripAccents\"}]}",
                "caf\xc3\xa9", "cafe");
    expect_norm("{\"type\": \"Strip\", \"strip_left\": true, \"strip_right\": true}", "  a b \xe3\x80\x80", "a b");
    expect_norm("{\"type\": \"Strip\", \"strip_left\": false, \"strip_right\": true}", "  a ", "  a");
    expect_norm("{\"type\": \"Replace\", \"pattern\": {\"Regex\": \" +\"}, \"content\": \"_\"}", "a  b c", "a_b_c");
    expect_norm("{\"type\": \"Replace\", \"pattern\": {\"Regex\": \"x*\"}, \"content\": \"-\"}", "ab", "-a-b-");
    expect_norm("{\"type\": \"Replace\", \"pattern\": {\"String\": \"ab\"}, \"content\": \"\"}", "cabab", "c");
    expect_norm("{\"type\": \"Prepend\", \"prepend\": \"_\"}", "ab", "_ab");

    /* Canonical ordering stays linear on a long run of marks: 'a', then
     * 100,000 pairs of U+0301 (class 230) and U+0316 (class 220). A bubble
     * sort (utf8proc_map's) would make 10^9 swaps. */
    alarm(120);
    enum { PAIRS = 100000 };
    char *text = malloc(1 + 4 * PAIRS + 1);
    assert_non_null(text);
    size_t k = 0;
    text[k++] = 'a';
    for (int i = 0; i < PAIRS; i++) memcpy(text + k, "\xcc\x81\xcc\x96", 4), k += 4;
    text[k] = '\0';
    HfTok *t = with_normalizer("{\"type\": \"NFD\"}");
    HfTokWork w = {0};
    int *ids = NULL;
    AvError err = {0};
    int n = hftok_encode_work(t, text, k, &ids, &w, &err);
    assert_int_equal(n, 1 + 2 * PAIRS);
    assert_int_equal(ids[0], 0);
    assert_int_equal(ids[1], 1000);       /* U+0316 first (not in this vocabulary: unk) */
    assert_int_equal(ids[PAIRS], 1000);   /* the last of them */
    assert_int_equal(ids[PAIRS + 1], 17); /* then U+0301, all of them */
    assert_int_equal(ids[2 * PAIRS], 17);
    assert_int_equal(w.normalized, k);
    free(ids);
    free(text);
    hftok_free(t);
    alarm(0);

    expect_parse_error("{\"normalizer\": {\"type\": \"Replace\", \"pattern\": {\"Regex\": \"(\"}, \"content\": \"\"},"
                       " \"model\": {\"vocab\": {\"a\": 0}, \"merges\": []}}",
                       "tok.json: normalizer.pattern: PCRE2 refuses the pattern: missing closing parenthesis at "
                       "offset 1");
    expect_parse_error("{\"normalizer\": {\"type\": \"Prepend\"}, \"model\": {\"vocab\": {\"a\": 0}, \"merges\": []}}",
                       "tok.json: normalizer: \"prepend\" is missing, not a string");
}

// ---------------------------------------------------------------------------
// cancelling

static void test_cancel(void **state) {
    (void)state;
    HfTok *t = many_added();
    char *text = malloc(MB);
    assert_non_null(text);
    memset(text, '<', MB);
    for (size_t i = 1; i < MB; i += 2) text[i] = ' ';
    int *ids = NULL;
    AvError err = {0};
    HfTokWork w = {0};
    av_cancel_request(); /* as q or SIGTERM does during a long job */
    assert_int_equal(hftok_encode_work(t, text, MB, &ids, &w, &err), -1);
    assert_null(ids);
    assert_string_equal(err.msg, "tokenizing cancelled at byte 0 of 1048576");
    assert_int_equal(w.added_steps, 0);
    hftok_free(t);

    /* Without added tokens: the pre-tokenizer and the model poll it too. */
    static const char PLAIN[] = "{\"pre_tokenizer\": {\"type\": \"ByteLevel\", \"use_regex\": true}, \"model\":"
                                " {\"type\": \"BPE\", \"vocab\": {\"<\": 0, \"\xc4\xa0\": 1}, \"merges\": []}}";
    t = parse_ok(PLAIN, sizeof PLAIN - 1);
    memset(&w, 0, sizeof w);
    assert_int_equal(hftok_encode_work(t, text, MB, &ids, &w, &err), -1);
    assert_string_equal(err.msg, "tokenizing cancelled");
    assert_true(w.split_matches <= 1024);
    av_cancel_clear();
    memset(&w, 0, sizeof w);
    int n = hftok_encode_work(t, text, MB, &ids, &w, &err);
    assert_int_equal(n, MB);
    assert_int_equal(w.pieces, MB / 2 + 1); /* "<", " <" ..., " " */
    free(ids);
    free(text);
    hftok_free(t);
}

// ---------------------------------------------------------------------------
// files that would tokenize silently wrong are refused

static void test_refused(void **state) {
    (void)state;
    expect_parse_error("{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"b\": 1, \"ab\": 2}}}",
                       "tok.json: model.merges is missing: a BPE model needs its list of merges");
    expect_parse_error("{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": null}}",
                       "tok.json: model.merges is null: a BPE model needs its list of merges");
    expect_parse_error("{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"\xff\": 1}, \"merges\": []}}",
                       "tok.json: model.vocab key \"\\xFF\" is not valid UTF-8 (byte 0: byte 0xFF never occurs in "
                       "UTF-8)");
    expect_parse_error("{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"b\xc3\": 1}, \"merges\": []}}",
                       "tok.json: model.vocab key \"b\\xC3\" is not valid UTF-8 (byte 1: the text ends inside a "
                       "2-byte character)");
    expect_parse_error("{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": [\"a \xe0\x80\"]}}",
                       "tok.json: model.merges[0] \"a \\xE0\\x80\" is not valid UTF-8 (byte 2: the text ends "
                       "inside a 3-byte character)");
    expect_parse_error(
        "{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": [[\"a\", \"\xed\xa0\x80\"]]}}",
        "tok.json: model.merges[0][1] \"\\xED\\xA0\\x80\" is not valid UTF-8 (byte 0: a UTF-16 "
        "surrogate (U+D800..U+DFFF) is not a character)");
    expect_parse_error("{\"added_tokens\": [{\"id\": 1, \"content\": \"<\xfe>\"}], \"model\": {\"type\": \"BPE\","
                       " \"vocab\": {\"a\": 0}, \"merges\": []}}",
                       "tok.json: added_tokens[0].content \"<\\xFE>\" is not valid UTF-8 (byte 1: byte 0xFE never "
                       "occurs in UTF-8)");
    AvError err = {0};
    assert_null(hftok_parse_gpt2("{\"a\": 0, \"\xc0\xaf\": 1}", 17, "v.json", "", 0, "m.txt", &err));
    assert_string_equal(err.msg, "v.json: key \"\\xC0\\xAF\" is not valid UTF-8 (byte 0: byte 0xC0 starts an "
                                 "overlong encoding)");
    assert_null(hftok_parse_gpt2("{\"a\": 0, \"b\": 1}", 16, "v.json", "#version: 0.2\na \xff\n", 19, "m.txt", &err));
    assert_string_equal(err.msg, "m.txt: line 2 \"a \\xFF\" is not valid UTF-8 (byte 2: byte 0xFF never occurs in "
                                 "UTF-8)");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_many_added_tokens),
        cmocka_unit_test(test_leftmost_longest),
        cmocka_unit_test(test_added_options),
        cmocka_unit_test(test_normalizers),
        cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
