/* fuzz_hftok.c - libFuzzer target for Hugging Face tokenizer.json files
 * (src/text/hftok.h).
 *
 * Input: byte 0 = L, bytes 1..L a text (L cut to what there is), the rest a
 * tokenizer.json, parsed from an exact-size heap copy under a name with an
 * escape sequence. Failure: NULL and one terminal-safe line. Success: every
 * id has a piece and a NUL-terminated display (also cut short); the text
 * encodes to ids of the vocabulary, the same ids a second time, or fails
 * with one terminal-safe line.
 *
 * Byte 0 = 0xFF grows a small input to the sizes where super-linear work
 * shows (the 4 KB inputs of plain fuzzing never reached 100,000 added
 * tokens): byte 1 = R | A << 4, byte 2 = L, then the text and the JSON. The
 * text is repeated 4^R times (at most 256 KiB); with A > 0 the first added
 * token of the JSON is cloned 2^(A + 2) times (at most 100,000), each clone
 * its content and a number, with new ids after the largest (the JSON is
 * parsed, grown with cJSON and printed again). The work must stay linear:
 * fuzz.mk's per-input timeout fails an input whose encoding is not. */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
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

/* The JSON with the first added token cloned n times, printed again (malloc'd),
 * or NULL when it has none (or is not JSON): then the JSON as it is. */
static char *grow_added(const char *json, size_t len, long n, size_t *out_len) {
    cJSON *root = cJSON_ParseWithLength(json, len);
    cJSON *added = cJSON_GetObjectItemCaseSensitive(root, "added_tokens");
    cJSON *first = cJSON_GetArrayItem(added, 0);
    const cJSON *content = cJSON_GetObjectItemCaseSensitive(first, "content");
    if (!cJSON_IsArray(added) || !cJSON_IsString(content) || strlen(content->valuestring) > 64) {
        cJSON_Delete(root);
        return NULL;
    }
    double top = 0; /* new ids after every id of the file */
    const cJSON *e, *vocab = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "model"), "vocab");
    cJSON_ArrayForEach(e, vocab) if (cJSON_IsNumber(e) && e->valuedouble > top && e->valuedouble < 1e7) top =
        e->valuedouble;
    cJSON_ArrayForEach(e, added) {
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(e, "id");
        if (cJSON_IsNumber(id) && id->valuedouble > top && id->valuedouble < 1e7) top = id->valuedouble;
    }
    char buf[96];
    for (long k = 0; k < n; k++) {
        cJSON *c = cJSON_Duplicate(first, 1);
        FUZZ_CHECK(c != NULL, "out of memory");
        snprintf(buf, sizeof buf, "%s%ld", content->valuestring, k);
        cJSON *s = cJSON_CreateString(buf), *id = cJSON_CreateNumber(top + 1 + (double)k);
        FUZZ_CHECK(s && id, "out of memory");
        /* a duplicate key or a first token that is not an object: no clone */
        if (!cJSON_IsObject(c) || !cJSON_ReplaceItemInObjectCaseSensitive(c, "content", s)) cJSON_Delete(s);
        if (!cJSON_IsObject(c) || !cJSON_ReplaceItemInObjectCaseSensitive(c, "id", id)) cJSON_Delete(id);
        if (!cJSON_AddItemToArray(added, c)) cJSON_Delete(c);
    }
    char *out = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    FUZZ_CHECK(out != NULL, "out of memory");
    *out_len = strlen(out);
    return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    unsigned grow_text = 0, grow_tokens = 0;
    if (data[0] == 0xFF && size >= 3) { /* the grown form (above) */
        grow_text = data[1] & 15, grow_tokens = data[1] >> 4;
        data += 2, size -= 2;
    }
    size_t tlen = data[0] < size - 1 ? data[0] : size - 1;
    size_t reps = 1;
    for (unsigned r = 0; r < grow_text && tlen * reps * 4 <= ((size_t)1 << 18); r++) reps *= 4;
    char *text = malloc(tlen * reps ? tlen * reps : 1); /* exact size: ASan sees a read past its end */
    FUZZ_CHECK(text != NULL, "out of memory");
    for (size_t r = 0; r < reps && tlen; r++) memcpy(text + r * tlen, data + 1, tlen);
    tlen *= reps;
    size_t jlen = size - 1 - (data[0] < size - 1 ? data[0] : size - 1);
    const char *src = (const char *)data + (size - jlen);
    char *grown = NULL;
    if (grow_tokens) {
        long n = 1L << (grow_tokens + 2);
        grown = grow_added(src, jlen, n > 100000 ? 100000 : n, &jlen);
        if (grown) src = grown;
        else jlen = size - 1 - (data[0] < size - 1 ? data[0] : size - 1);
    }
    char *json = malloc(jlen ? jlen : 1);
    FUZZ_CHECK(json != NULL, "out of memory");
    if (jlen) memcpy(json, src, jlen);
    free(grown);
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
