/* fuzz_tokenize.c - libFuzzer target for the tokenizer (src/text/tokenize.h).
 *
 * Each input is split by the three presets (words, gpt2, chars) as a whole,
 * then read as "PATTERN\nTEXT": the first line is compiled as a custom
 * pattern (--pattern) and splits the rest. Every successful split must give
 * tokens that are non-empty, in increasing non-overlapping order inside the
 * text, byte-equal to text[offset..offset+len), NUL-terminated, valid UTF-8,
 * numbered as a vocabulary in order of first appearance (equal texts <=>
 * equal ids, ids < vocab), and no more than max_tokens of them. Every failure
 * must leave the list empty and give a one-line terminal-safe message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "tokenize.h"
#include "utf8.h"

/* The custom pattern's token budget: small, so that a run stays fast. */
#define FUZZ_CUSTOM_MAX_TOKENS 4096

static Tokenizer *presets[3];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    const TokPreset p[3] = {TOK_WORDS, TOK_GPT2, TOK_CHARS};
    for (int i = 0; i < 3; i++) {
        AvError err = {0};
        presets[i] = tok_new(p[i], NULL, &err);
        FUZZ_CHECK(presets[i] != NULL, "preset %s does not compile: %s", tok_preset_name(p[i]), err.msg);
    }
    return 0;
}

static int cmp_token_text(const void *a, const void *b) {
    const Token *x = *(const Token *const *)a, *y = *(const Token *const *)b;
    if (x->len != y->len) return x->len < y->len ? -1 : 1;
    return memcmp(x->text, y->text, x->len);
}

static void check_error(const AvError *err, const TokenList *out, const char *who) {
    size_t n = fuzz_msg_len(err->msg, sizeof err->msg);
    FUZZ_CHECK(n > 0, "%s: tok_split failed without a message", who);
    long bad = fuzz_first_unsafe(err->msg, n, NULL);
    if (bad >= 0) fuzz_dump("message", err->msg, n);
    FUZZ_CHECK(bad < 0, "%s: message has an unsafe byte at %ld", who, bad);
    FUZZ_CHECK(out->n == 0 && out->tok == NULL && out->arena == NULL && out->vocab == 0,
               "%s: failed split left a non-empty list (n=%d)", who, out->n);
}

static void check_list(const TokenList *l, const char *text, size_t len, int max_tokens, const char *who) {
    FUZZ_CHECK(l->n >= 0 && l->n <= max_tokens, "%s: n=%d, max_tokens=%d", who, l->n, max_tokens);
    FUZZ_CHECK(l->vocab >= 0 && l->vocab <= l->n, "%s: vocab=%d for n=%d", who, l->vocab, l->n);
    if (l->n == 0) return;
    FUZZ_CHECK(l->tok != NULL, "%s: n=%d but tok is NULL", who, l->n);
    /* first[id]: the first token with that id; ids appear in order 0, 1, 2, ... */
    const Token **first = calloc((size_t)l->n, sizeof *first);
    FUZZ_CHECK(first != NULL, "out of memory");
    int next_id = 0;
    size_t prev_end = 0;
    for (int i = 0; i < l->n; i++) {
        const Token *t = &l->tok[i];
        FUZZ_CHECK(t->len > 0, "%s: token %d is empty (offset %zu)", who, i, t->offset);
        FUZZ_CHECK(i == 0 || t->offset >= prev_end,
                   "%s: token %d at offset %zu overlaps or precedes the previous one ending at %zu", who, i, t->offset,
                   prev_end);
        FUZZ_CHECK(t->offset <= len && t->len <= len - t->offset,
                   "%s: token %d [%zu, +%zu) is outside the text of %zu bytes", who, i, t->offset, t->len, len);
        FUZZ_CHECK(t->text != NULL && memcmp(t->text, text + t->offset, t->len) == 0,
                   "%s: token %d's bytes differ from the text at offset %zu", who, i, t->offset);
        FUZZ_CHECK(t->text[t->len] == '\0', "%s: token %d is not NUL-terminated", who, i);
        /* The split succeeded, so the text is valid UTF-8 and every match starts
         * and ends on a character boundary: each token is valid UTF-8. */
        for (size_t o = 0; o < t->len;) {
            uint32_t cp;
            int k = utf8_decode(t->text + o, t->len - o, &cp);
            if (cp == UTF8_INVALID) fuzz_dump("token", t->text, t->len);
            FUZZ_CHECK(cp != UTF8_INVALID, "%s: token %d is not valid UTF-8 at byte %zu", who, i, o);
            o += (size_t)k;
        }
        FUZZ_CHECK(t->id >= 0 && t->id < l->vocab, "%s: token %d has id %d, vocab %d", who, i, t->id, l->vocab);
        FUZZ_CHECK(t->id <= next_id, "%s: token %d has id %d before id %d appeared", who, i, t->id, next_id);
        if (t->id == next_id) {
            first[next_id++] = t;
        } else {
            const Token *f = first[t->id];
            FUZZ_CHECK(f->len == t->len && memcmp(f->text, t->text, t->len) == 0,
                       "%s: token %d shares id %d with a different text", who, i, t->id);
        }
        prev_end = t->offset + t->len;
    }
    FUZZ_CHECK(next_id == l->vocab, "%s: %d ids used, vocab says %d", who, next_id, l->vocab);
    /* Distinct ids <=> distinct texts: no two first occurrences are equal. */
    qsort(first, (size_t)next_id, sizeof *first, cmp_token_text);
    for (int v = 1; v < next_id; v++)
        FUZZ_CHECK(cmp_token_text(&first[v - 1], &first[v]) != 0, "%s: ids %d and %d have the same text", who,
                   first[v - 1]->id, first[v]->id);
    free(first);
}

/* What each preset promises about the text between its tokens: gpt2's
 * alternatives match every character, so its tokens tile the text (the
 * pre-tokenizer is lossless); words and chars drop whitespace only, so no token
 * of theirs starts with ASCII whitespace. */
static void check_preset(const TokenList *l, TokPreset p, size_t len, int max_tokens) {
    if (p == TOK_GPT2) {
        if (l->n == max_tokens) return; /* may have stopped early: checked by the caller */
        size_t at = 0;
        for (int i = 0; i < l->n; i++) {
            FUZZ_CHECK(l->tok[i].offset == at, "gpt2: token %d starts at %zu, the previous ended at %zu", i,
                       l->tok[i].offset, at);
            at += l->tok[i].len;
        }
        FUZZ_CHECK(at == len, "gpt2: tokens end at %zu of %zu bytes", at, len);
    } else if (p == TOK_WORDS || p == TOK_CHARS) {
        for (int i = 0; i < l->n; i++)
            FUZZ_CHECK(!(l->tok[i].text[0] && strchr(" \t\n\v\f\r", l->tok[i].text[0])),
                       "%s: token %d starts with whitespace 0x%02X", tok_preset_name(p), i,
                       (unsigned char)l->tok[i].text[0]);
    }
}

static void split_and_check(Tokenizer *t, const char *text, size_t len, int max_tokens, const char *who) {
    TokenList out;
    AvError err = {0};
    memset(&out, 0xA5, sizeof out); /* tok_split must initialise it */
    if (tok_split(t, text, len, max_tokens, &out, &err) == 0) {
        check_list(&out, text, len, max_tokens, who);
        check_preset(&out, tok_preset(t), len, max_tokens);
    } else {
        check_error(&err, &out, who);
    }
    tok_list_free(&out);
    FUZZ_CHECK(out.n == 0 && out.tok == NULL, "tok_list_free left the list non-empty");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *text = (const char *)data;
    /* A heap copy of exactly `size` bytes, so ASan sees any read past the end. */
    char *copy = malloc(size ? size : 1);
    FUZZ_CHECK(copy != NULL, "out of memory");
    if (size) memcpy(copy, text, size);

    for (int i = 0; i < 3; i++)
        split_and_check(presets[i], copy, size, TOK_MAX_TOKENS, tok_preset_name(tok_preset(presets[i])));
    /* A small budget: the "too many tokens" path and n <= max_tokens at the edge. */
    split_and_check(presets[0], copy, size, (int)(size % 5), "words (small max_tokens)");

    /* Custom pattern: first line = pattern, the rest = text. */
    const char *nl = memchr(copy, '\n', size);
    size_t plen = nl ? (size_t)(nl - copy) : size;
    char *pattern = malloc(plen + 1);
    FUZZ_CHECK(pattern != NULL, "out of memory");
    memcpy(pattern, copy, plen);
    pattern[plen] = '\0'; /* a NUL inside the line ends the pattern early: fine */
    size_t tlen = nl ? size - plen - 1 : 0;
    char *rest = malloc(tlen ? tlen : 1);
    FUZZ_CHECK(rest != NULL, "out of memory");
    if (tlen) memcpy(rest, nl + 1, tlen);

    AvError err = {0};
    Tokenizer *t = tok_new(TOK_CUSTOM, pattern, &err);
    if (t) {
        FUZZ_CHECK(tok_preset(t) == TOK_CUSTOM && strcmp(tok_pattern(t), pattern) == 0,
                   "custom tokenizer does not keep its pattern");
        split_and_check(t, rest, tlen, FUZZ_CUSTOM_MAX_TOKENS, "custom");
        tok_free(t);
    } else {
        size_t n = fuzz_msg_len(err.msg, sizeof err.msg);
        long bad = fuzz_first_unsafe(err.msg, n, NULL);
        if (bad >= 0) fuzz_dump("message", err.msg, n);
        FUZZ_CHECK(n > 0 && bad < 0, "tok_new: bad message (length %zu, unsafe byte at %ld)", n, bad);
    }
    free(rest);
    free(pattern);
    free(copy);
    return 0;
}
