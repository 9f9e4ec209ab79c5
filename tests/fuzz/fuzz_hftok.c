/* fuzz_hftok.c - libFuzzer target for Hugging Face tokenizer.json files
 * (src/hftok.h).
 *
 * Input: byte 0 = L, bytes 1..L a text (L cut to what there is), the rest a
 * tokenizer.json, parsed from an exact-size heap copy under a name with an
 * escape sequence. Failure: NULL and one terminal-safe line. Success: every
 * id has a piece and a NUL-terminated display (also cut short); the text
 * encodes to ids of the vocabulary, the same ids a second time, or fails
 * with one terminal-safe line. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "hftok.h"

static const char FUZZ_NAME[] = "to\x1b[31mk\xc2\x9b"
                                "2J.json";

static void check_message(const AvError *err) {
    size_t n = fuzz_msg_len(err->msg, sizeof err->msg);
    FUZZ_CHECK(n > 0, "failure without a message");
    FUZZ_CHECK(memchr(err->msg, '\n', n) == NULL, "message of more than one line");
    long bad = fuzz_first_unsafe(err->msg, n, NULL);
    if (bad >= 0) fuzz_dump("message", err->msg, n);
    FUZZ_CHECK(bad < 0, "message has an unsafe byte at %ld", bad);
}

FUZZ_NO_COVERAGE static void check_pieces(const HfTok *t) {
    int n = hftok_vocab_size(t);
    FUZZ_CHECK(n >= 1, "vocabulary of %d", n);
    for (int id = -1; id <= n; id++) {
        size_t len = 99;
        const char *s = hftok_piece(t, id, &len);
        FUZZ_CHECK(s != NULL, "piece %d is NULL", id);
        if (id < 0 || id == n) FUZZ_CHECK(len == 0, "id %d out of range has %zu bytes", id, len);
        char buf[8];
        size_t d = hftok_display(t, id, buf, sizeof buf);
        FUZZ_CHECK(buf[d < sizeof buf ? d : sizeof buf - 1] == '\0', "display of %d not terminated", id);
        FUZZ_CHECK(d >= len, "display of %d shorter than its piece", id);
        if (len) (void)hftok_lookup(t, s, len); /* raw bytes as a spelling: any id or none */
    }
}

FUZZ_NO_COVERAGE static void check_encode(const HfTok *t, const char *text, size_t len) {
    int *ids = NULL, *again = NULL;
    AvError err = {0};
    int n = hftok_encode(t, text, len, &ids, &err);
    if (n < 0) {
        FUZZ_CHECK(ids == NULL, "failed encode left ids");
        check_message(&err);
        return;
    }
    int vocab = hftok_vocab_size(t);
    for (int i = 0; i < n; i++) FUZZ_CHECK(ids[i] >= 0 && ids[i] < vocab, "id %d = %d of %d", i, ids[i], vocab);
    int m = hftok_encode(t, text, len, &again, &err);
    FUZZ_CHECK(m == n && (n == 0 || memcmp(ids, again, sizeof *ids * (size_t)n) == 0), "a second encode differs");
    free(ids);
    free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    size_t tlen = data[0] < size - 1 ? data[0] : size - 1;
    char *text = malloc(tlen ? tlen : 1); /* exact size: ASan sees a read past its end */
    FUZZ_CHECK(text != NULL, "out of memory");
    if (tlen) memcpy(text, data + 1, tlen);
    size_t jlen = size - 1 - tlen;
    char *json = malloc(jlen ? jlen : 1);
    FUZZ_CHECK(json != NULL, "out of memory");
    if (jlen) memcpy(json, data + 1 + tlen, jlen);
    AvError err = {0};
    HfTok *t = hftok_parse(json, jlen, FUZZ_NAME, &err);
    free(json); /* the tokenizer must not point into the file */
    if (!t) {
        check_message(&err);
        free(text);
        return 0;
    }
    check_pieces(t);
    check_encode(t, text, tlen);
    hftok_free(t);
    free(text);
    return 0;
}
