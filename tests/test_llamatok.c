/* test_llamatok.c - cmocka tests of the llama2.c vocabulary (src/text/llamatok.c).
 *
 * With ../shared/models/ (the real tokenizers, beside the checkout): Meta's
 * Llama 2 examples, exact; tok512 round trips; every piece found by the
 * binary search; the heap of merges against run.c's scan of every pair
 * (written again below) on random texts. Without it those tests say
 * "skipped: ..." and pass. Synthetic files (built here) check every
 * malformed record's one-line message, the tie-breaking of equal scores and
 * the byte pieces. Run from the repository root. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "llamatok.h"
#include "models.h"
#include "rng.h"

// ---------------------------------------------------------------------------
// helpers

/* A shared tokenizer, or NULL after the one "skipped" line. */
static LlamaTok *shared_tok(const char *file) {
    char path[512];
    if (!models_path(path, sizeof path, file)) return NULL;
    AvError err = {0};
    LlamaTok *t = llamatok_load(path, &err);
    if (!t) fail_msg("%s", err.msg);
    return t;
}

/* A tokenizer file in memory: max_len, then n records (bytes of each piece
 * from its string, its length from lens when given, else strlen). */
typedef struct {
    unsigned char *b;
    size_t n, cap;
} Buf;

static void put(Buf *b, const void *p, size_t n) {
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->b = realloc(b->b, b->cap);
        assert_non_null(b->b);
    }
    memcpy(b->b + b->n, p, n);
    b->n += n;
}

static void put_i32(Buf *b, int32_t v) { put(b, &v, 4); } /* the tests run little-endian (x86, arm) */
static void put_f32(Buf *b, float v) { put(b, &v, 4); }

static void put_piece(Buf *b, const char *s, float score) {
    put_f32(b, score);
    put_i32(b, (int32_t)strlen(s));
    put(b, s, strlen(s));
}

/* <unk>, BOS, EOS and the 256 byte pieces, as llama2.c exports them. */
static void put_base(Buf *b, int max_len) {
    put_i32(b, max_len);
    put_piece(b, "<unk>", 0);
    put_piece(b, "\n<s>\n", 0);
    put_piece(b, "\n</s>\n", 0);
    for (int i = 0; i < 256; i++) {
        char s[8];
        snprintf(s, sizeof s, "<0x%02X>", i);
        put_piece(b, s, 0);
    }
}

/* Parses an exact-size heap copy (ASan sees a read past the end). */
static LlamaTok *parse(const Buf *b, AvError *err) {
    unsigned char *copy = malloc(b->n ? b->n : 1);
    assert_non_null(copy);
    if (b->n) memcpy(copy, b->b, b->n);
    LlamaTok *t = llamatok_parse(copy, b->n, "t.bin", err);
    free(copy);
    return t;
}

static void assert_ids(const LlamaTok *t, const char *text, int bos, const int *want, int n) {
    int *ids;
    AvError err = {0};
    int got = llamatok_encode(t, text, strlen(text), bos, &ids, &err);
    if (got < 0) fail_msg("encode \"%s\": %s", text, err.msg);
    for (int i = 0; i < got && i < n; i++)
        if (ids[i] != want[i]) fail_msg("\"%s\": id %d is %d, expected %d", text, i, ids[i], want[i]);
    assert_int_equal(got, n);
    free(ids);
}

/* run.c's encode, written again as it is: merge the best pair found by a
 * scan of every pair, the leftmost of equal scores, until none is left. */
static int scan_encode(const LlamaTok *t, const char *text, size_t len, int *ids) {
    int n = 0;
    ids[n++] = LLAMATOK_BOS;
    if (len) ids[n++] = llamatok_lookup(t, " ", 1);
    for (size_t at = 0; at < len;) {
        size_t k = 1;
        while (at + k < len && ((unsigned char)text[at + k] & 0xC0) == 0x80 && k < 4) k++;
        int id = llamatok_lookup(t, text + at, k);
        if (id >= 0) ids[n++] = id;
        else
            for (size_t b = 0; b < k; b++) ids[n++] = (unsigned char)text[at + b] + 3;
        at += k;
    }
    char pair[2 * LLAMATOK_MAX_PIECE];
    for (;;) {
        float best = -1e10f;
        int best_id = -1, best_at = -1;
        for (int i = 0; i + 1 < n; i++) {
            size_t a, b;
            const char *pa = llamatok_piece(t, ids[i], &a), *pb = llamatok_piece(t, ids[i + 1], &b);
            memcpy(pair, pa, a);
            memcpy(pair + a, pb, b);
            int id = llamatok_lookup(t, pair, a + b);
            if (id >= 0 && t->score[id] > best) best = t->score[id], best_id = id, best_at = i;
        }
        if (best_at < 0) break;
        ids[best_at] = best_id;
        memmove(ids + best_at + 1, ids + best_at + 2, sizeof *ids * (size_t)(n - best_at - 2));
        n--;
    }
    return n;
}

/* The text ids decode to, piece after piece (run.c's generate prints them so). */
static char *decode_all(const LlamaTok *t, const int *ids, int n, size_t *len) {
    size_t cap = 64, out = 0;
    char *s = malloc(cap);
    assert_non_null(s);
    for (int i = 1; i < n; i++) {
        size_t k;
        const char *p = llamatok_decode(t, ids[i - 1], ids[i], &k);
        if (out + k + 1 > cap) {
            cap = (out + k + 1) * 2;
            s = realloc(s, cap);
            assert_non_null(s);
        }
        memcpy(s + out, p, k);
        out += k;
    }
    s[out] = '\0';
    *len = out;
    return s;
}

// ---------------------------------------------------------------------------
// the real tokenizers

static void test_llama2_examples(void **state) {
    (void)state;
    LlamaTok *t = shared_tok("tokenizer-llama2-32k.bin");
    if (!t) return;
    assert_int_equal(t->n, 32000);
    assert_int_equal(t->max_len, 27);
    static const int life[] = {1, 306, 4658, 278, 6593, 310, 2834, 338};
    assert_ids(t, "I believe the meaning of life is", 1, life, 8);
    static const int relativity[] = {1, 3439, 17632, 1925, 29892, 278, 6368, 310, 14215, 537, 5922, 393, 29871};
    assert_ids(t, "Simply put, the theory of relativity states that ", 1, relativity, 13);
    static const int bos[] = {1};
    assert_ids(t, "", 1, bos, 1);
    assert_ids(t, "", 0, bos, 0);
    static const int no_bos[] = {306, 4658};
    assert_ids(t, "I believe", 0, no_bos, 2);
    llamatok_free(t);
}

static void test_tok512_round_trips(void **state) {
    (void)state;
    LlamaTok *t = shared_tok("tok512.bin");
    if (!t) return;
    assert_int_equal(t->n, 512);
    static const char *const texts[] = {
        "Once upon a time, there was a little girl named Lily.",
        "Lily saw a cat. Lily",
        " leading space and  two spaces",
        "line one\nline two\n",
        "나는 어제 친구와 영화를 봤는데 재미있었다",
        "emoji \xf0\x9f\x98\x80 and a stray \x80\x80 byte \xff",
        "x",
    };
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        int *ids;
        AvError err = {0};
        int n = llamatok_encode(t, texts[i], strlen(texts[i]), 1, &ids, &err);
        assert_true(n >= 2);
        assert_int_equal(ids[0], LLAMATOK_BOS);
        for (int j = 0; j < n; j++) assert_true(ids[j] >= 0 && ids[j] < t->n);
        size_t len;
        char *back = decode_all(t, ids, n, &len);
        if (len != strlen(texts[i]) || memcmp(back, texts[i], len) != 0)
            fail_msg("round trip of \"%s\" gave \"%s\"", texts[i], back);
        free(back);
        free(ids);
    }
    /* "Lily" is one piece with its space; the Korean falls back to bytes */
    static const int lily[] = {1, 317, 394, 261, 280, 294, 426, 317};
    assert_ids(t, "Lily saw a cat. Lily", 1, lily, 8);
    llamatok_free(t);
}

static void test_lookup_every_piece(void **state) {
    (void)state;
    LlamaTok *t = shared_tok("tokenizer-llama2-32k.bin");
    if (!t) return;
    for (int id = 0; id < t->n; id++) {
        size_t len;
        const char *p = llamatok_piece(t, id, &len);
        assert_int_equal(llamatok_lookup(t, p, len), id);
        assert_int_equal(llamatok_lookup(t, p, len - 1) == id, 0);
    }
    assert_int_equal(llamatok_lookup(t, "no such piece here", 18), -1);
    assert_int_equal(llamatok_lookup(t, "", 0), -1);
    llamatok_free(t);
}

static void test_display(void **state) {
    (void)state;
    LlamaTok *t = shared_tok("tok512.bin");
    if (!t) return;
    char buf[64];
    assert_int_equal(llamatok_display(t, 317, buf, sizeof buf), strlen("\xe2\x96\x81Lily"));
    assert_string_equal(buf, "\xe2\x96\x81Lily");
    llamatok_display(t, LLAMATOK_BOS, buf, sizeof buf);
    assert_string_equal(buf, "<s>");
    llamatok_display(t, LLAMATOK_EOS, buf, sizeof buf);
    assert_string_equal(buf, "</s>");
    llamatok_display(t, LLAMATOK_BYTE0 + 0xE2, buf, sizeof buf);
    assert_string_equal(buf, "<0xE2>");
    /* cut like snprintf: the full length is returned */
    assert_int_equal(llamatok_display(t, 317, buf, 3), 7);
    assert_string_equal(buf, "\xe2\x96");
    llamatok_free(t);
}

/* The heap of merges gives run.c's ids on random texts of both vocabularies. */
static void test_heap_matches_scan(void **state) {
    (void)state;
    static const char *const files[] = {"tok512.bin", "tokenizer-llama2-32k.bin"};
    static const char *const bits[] = {"a",  "e",  "t",        "h",    " ",    " the", "Lily", "ing", ".",  "\n",
                                       "영", "화", "\xe2\x80", "\x80", "\xff", "qu",   "x",    "  ",  "ba", "na"};
    for (size_t f = 0; f < 2; f++) {
        LlamaTok *t = shared_tok(files[f]);
        if (!t) return;
        RngStream rng;
        rng_init(&rng, 12 + f);
        char text[512];
        int want[600];
        for (int round = 0; round < 300; round++) {
            size_t len = 0;
            int parts = (int)(rng_next(&rng) % 40);
            for (int p = 0; p < parts; p++) {
                const char *b = bits[rng_next(&rng) % (sizeof bits / sizeof *bits)];
                memcpy(text + len, b, strlen(b));
                len += strlen(b);
            }
            int n = scan_encode(t, text, len, want);
            int *ids;
            AvError err = {0};
            int got = llamatok_encode(t, text, len, 1, &ids, &err);
            assert_int_equal(got, n);
            assert_memory_equal(ids, want, sizeof *ids * (size_t)n);
            free(ids);
        }
        llamatok_free(t);
    }
}

// ---------------------------------------------------------------------------
// synthetic vocabularies

/* Equal scores: the leftmost pair merges first ("ab" then "c", not "a" "bc"). */
static void test_ties_go_left(void **state) {
    (void)state;
    Buf b = {0};
    put_base(&b, 8);
    put_piece(&b, "a", -5), put_piece(&b, "b", -5), put_piece(&b, "c", -5);       /* 259..261 */
    put_piece(&b, "ab", -1), put_piece(&b, "bc", -1);                             /* 262, 263 */
    put_piece(&b, "x", -5), put_piece(&b, "xx", -1e10f), put_piece(&b, "xxx", 2); /* 264..266 */
    AvError err = {0};
    LlamaTok *t = parse(&b, &err);
    assert_non_null(t);
    static const int abc[] = {262, 261};
    assert_ids(t, "abc", 0, abc, 2); /* no " " piece: no dummy prefix */
    assert_ids(t, "abcc", 0, (const int[]){262, 261, 261}, 3);
    assert_ids(t, "acbcc", 0, (const int[]){259, 261, 263, 261}, 4);
    /* a score of -1e10 never merges (run.c starts its best there), so "xxx" is never reached */
    assert_ids(t, "xxx", 0, (const int[]){264, 264, 264}, 3);
    /* a character without a piece falls back to its bytes */
    assert_ids(t, "\xc3\xa9", 0, (const int[]){3 + 0xC3, 3 + 0xA9}, 2);
    llamatok_free(t);
    free(b.b);
}

static void test_decode(void **state) {
    (void)state;
    Buf b = {0};
    put_base(&b, 8);
    put_piece(&b, " the", -1), put_piece(&b, "<0x0a>", -2), put_piece(&b, " <0x41>", -3), put_piece(&b, "<0x4>", -4);
    AvError err = {0};
    LlamaTok *t = parse(&b, &err);
    assert_non_null(t);
    size_t len;
    const char *s = llamatok_decode(t, LLAMATOK_BOS, 259, &len);
    assert_int_equal(len, 3);
    assert_memory_equal(s, "the", 3); /* after BOS the leading space goes */
    s = llamatok_decode(t, 100, 259, &len);
    assert_int_equal(len, 4);
    assert_memory_equal(s, " the", 4);
    s = llamatok_decode(t, 100, LLAMATOK_BYTE0 + 0x0A, &len);
    assert_int_equal(len, 1);
    assert_int_equal(s[0], '\n');
    s = llamatok_decode(t, 100, 260, &len); /* lowercase hex is a byte too */
    assert_int_equal(len, 1);
    assert_int_equal(s[0], '\n');
    s = llamatok_decode(t, LLAMATOK_BOS, 261, &len); /* the space dropped, then a byte piece */
    assert_int_equal(len, 1);
    assert_int_equal(s[0], 'A');
    s = llamatok_decode(t, LLAMATOK_BOS, 262, &len); /* not the exact form: as it is */
    assert_int_equal(len, 5);
    llamatok_free(t);
    free(b.b);
}

static void test_byte_fallback_past_vocabulary(void **state) {
    (void)state;
    Buf b = {0};
    put_i32(&b, 4);
    put_piece(&b, "<unk>", 0);
    put_piece(&b, "a", 0);
    AvError err = {0};
    LlamaTok *t = parse(&b, &err); /* max_len 4 < 5: "<unk>" is too long */
    assert_null(t);
    assert_string_equal(err.msg, "t.bin: piece 0 at byte 4: length 5 is longer than max_token_length 4");
    b.n = 0;
    put_i32(&b, 8);
    put_piece(&b, "<unk>", 0), put_piece(&b, " ", 0), put_piece(&b, "a", 0);
    t = parse(&b, &err);
    assert_non_null(t);
    int *ids;
    assert_int_equal(llamatok_encode(t, "ab", 2, 1, &ids, &err), -1);
    assert_null(ids);
    assert_string_equal(err.msg, "byte 0x62 at offset 1 has no piece: byte fallback needs id 101, the vocabulary "
                                 "has 3 pieces");
    assert_int_equal(llamatok_encode(t, "a\0a", 3, 0, &ids, &err), -1); /* NUL is a byte like any other */
    assert_string_equal(err.msg, "byte 0x00 at offset 1 has no piece: byte fallback needs id 3, the vocabulary "
                                 "has 3 pieces");
    llamatok_free(t);
    /* one piece: no BOS to start with (found by fuzz_llamatok: regress/llamatok/bos-one-piece) */
    b.n = 0;
    put_i32(&b, 8);
    put_piece(&b, "a", 0);
    t = parse(&b, &err);
    assert_non_null(t);
    assert_int_equal(llamatok_encode(t, "a", 1, 1, &ids, &err), -1);
    assert_string_equal(err.msg, "no BOS: the vocabulary has 1 piece, BOS is id 1");
    assert_int_equal(llamatok_encode(t, "aa", 2, 0, &ids, &err), 2);
    free(ids);
    llamatok_free(t);
    free(b.b);
}

/* Every malformed file: one line naming the file, the piece and the offset. */
static void test_bad_files(void **state) {
    (void)state;
    static const struct {
        const char *what;
        int32_t max_len, score_len_bytes, len; /* a first record "<unk>" then one more of this length */
        size_t cut;                            /* bytes dropped from the end */
        const char *msg;
    } cases[] = {
        {"max_len 0", 0, 8, 1, 0, "t.bin: max_token_length 0 is not in 1..4096"},
        {"max_len -1", -1, 8, 1, 0, "t.bin: max_token_length -1 is not in 1..4096"},
        {"max_len huge", 1 << 20, 8, 1, 0, "t.bin: max_token_length 1048576 is not in 1..4096"},
        {"negative length", 8, 8, -3, 0, "t.bin: piece 1 at byte 17: negative length -3"},
        {"length 0", 8, 8, 0, 0, "t.bin: piece 1 at byte 17: length 0 (a piece has a byte at least)"},
        {"too long", 8, 8, 9, 0, "t.bin: piece 1 at byte 17: length 9 is longer than max_token_length 8"},
        {"past the end", 8, 8, 6, 3,
         "t.bin: piece 1 at byte 17: length 6 runs past the end of the file (3 bytes left)"},
        {"inside the header", 8, 8, 6, 12,
         "t.bin: piece 1 at byte 17: the file ends inside its score and length (2 of 8 bytes)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        Buf b = {0};
        put_i32(&b, cases[i].max_len);
        put_piece(&b, "<unk>", 0);
        put_f32(&b, 0);
        put_i32(&b, cases[i].len);
        put(&b, "abcdef", 6);
        b.n -= cases[i].cut;
        AvError err = {0};
        LlamaTok *t = parse(&b, &err);
        if (t) fail_msg("%s: parsed", cases[i].what);
        if (strcmp(err.msg, cases[i].msg) != 0) fail_msg("%s: \"%s\"", cases[i].what, err.msg);
        assert_int_equal(err.kind, AV_ERR_INPUT);
        free(b.b);
    }
    Buf b = {0};
    AvError err = {0};
    assert_null(parse(&b, &err));
    assert_string_equal(err.msg, "t.bin: 0 bytes, too short for max_token_length (4 bytes)");
    put_i32(&b, 8);
    assert_null(parse(&b, &err));
    assert_string_equal(err.msg, "t.bin: no pieces after max_token_length (the file has 4 bytes)");
    /* the name is escaped: a file name cannot write to the terminal */
    assert_null(llamatok_parse(b.b, 3, "a\x1b[2Jb.bin", &err));
    assert_string_equal(err.msg, "a\\x1B[2Jb.bin: 3 bytes, too short for max_token_length (4 bytes)");
    free(b.b);
}

static void test_load_errors(void **state) {
    (void)state;
    AvError err = {0};
    assert_null(llamatok_load("tests", &err));
    assert_string_equal(err.msg, "tests: is a directory, not a file");
    assert_null(llamatok_load("tests/no-such-tokenizer.bin", &err));
    assert_string_equal(err.msg, "tests/no-such-tokenizer.bin: cannot open: No such file or directory");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_llama2_examples),
        cmocka_unit_test(test_tok512_round_trips),
        cmocka_unit_test(test_lookup_every_piece),
        cmocka_unit_test(test_display),
        cmocka_unit_test(test_heap_matches_scan),
        cmocka_unit_test(test_ties_go_left),
        cmocka_unit_test(test_decode),
        cmocka_unit_test(test_byte_fallback_past_vocabulary),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_load_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
