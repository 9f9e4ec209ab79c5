/* fuzz_llamatok.c - libFuzzer target for the llama2.c vocabulary
 * (src/text/llamatok.h).
 *
 * Input: byte 0 = L, bytes 1..L a text (L cut to what there is), the rest a
 * tokenizer.bin, parsed from an exact-size heap copy under a name with an
 * escape sequence. Failure: NULL and one terminal-safe line. Success: every
 * piece 1..max_len bytes, the index sorted (bytes, then id) and a
 * permutation, every piece found by llamatok_lookup at its lowest equal id;
 * then the text is encoded with and without BOS and must give exactly the
 * ids of run.c's scan of every pair (written again below), or, when a byte
 * has no fallback piece or BOS is asked of a one-piece vocabulary, fail for
 * both; every id decodes and displays. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "llamatok.h"

static const char FUZZ_NAME[] = "to\x1b[31mk\xc2\x9b"
                                "2J.bin";

FUZZ_NO_COVERAGE static int cmp_piece(const LlamaTok *t, int a, int b) {
    int n = t->len[a] < t->len[b] ? t->len[a] : t->len[b];
    int c = memcmp(t->text[a], t->text[b], (size_t)n);
    if (c) return c;
    if (t->len[a] != t->len[b]) return t->len[a] < t->len[b] ? -1 : 1;
    return 0;
}

FUZZ_NO_COVERAGE static void check_vocabulary(const LlamaTok *t) {
    FUZZ_CHECK(t->n >= 1 && t->max_len >= 1 && t->max_len <= LLAMATOK_MAX_PIECE, "n=%d max_len=%d", t->n, t->max_len);
    char *seen = calloc((size_t)t->n, 1);
    FUZZ_CHECK(seen != NULL, "out of memory");
    for (int i = 0; i < t->n; i++) {
        FUZZ_CHECK(t->len[i] >= 1 && t->len[i] <= t->max_len, "piece %d: length %d", i, t->len[i]);
        FUZZ_CHECK(t->text[i][t->len[i]] == '\0', "piece %d not NUL-terminated", i);
        int id = t->sorted[i];
        FUZZ_CHECK(id >= 0 && id < t->n && !seen[id], "sorted[%d] = %d is not a permutation", i, id);
        seen[id] = 1;
        if (i > 0) {
            int c = cmp_piece(t, t->sorted[i - 1], id);
            FUZZ_CHECK(c < 0 || (c == 0 && t->sorted[i - 1] < id), "index out of order at %d", i);
        }
    }
    free(seen);
    for (int i = 0; i < t->n; i++) {
        int got = llamatok_lookup(t, t->text[i], (size_t)t->len[i]);
        FUZZ_CHECK(got >= 0 && got <= i && cmp_piece(t, got, i) == 0, "lookup of piece %d gave %d", i, got);
    }
}

/* run.c's encode as it is (a scan of every pair per merge); -1 when a byte
 * has no fallback piece. ids holds len + 2. */
FUZZ_NO_COVERAGE static int scan_encode(const LlamaTok *t, const char *text, size_t len, int bos, int *ids) {
    int n = 0;
    if (bos && t->n < 2) return -1; /* no id 1 */
    if (bos) ids[n++] = LLAMATOK_BOS;
    int space = llamatok_lookup(t, " ", 1);
    if (len && space >= 0) ids[n++] = space;
    for (size_t at = 0; at < len;) {
        size_t k = 1;
        while (at + k < len && ((unsigned char)text[at + k] & 0xC0) == 0x80 && k < 4) k++;
        int id = llamatok_lookup(t, text + at, k);
        if (id >= 0) ids[n++] = id;
        else
            for (size_t b = 0; b < k; b++) {
                int fb = (unsigned char)text[at + b] + 3;
                if (fb >= t->n) return -1;
                ids[n++] = fb;
            }
        at += k;
    }
    char *pair = malloc((size_t)t->max_len * 2);
    FUZZ_CHECK(pair != NULL, "out of memory");
    for (;;) {
        float best = -1e10f;
        int best_id = -1, best_at = -1;
        for (int i = 0; i + 1 < n; i++) {
            size_t a = (size_t)t->len[ids[i]], b = (size_t)t->len[ids[i + 1]];
            memcpy(pair, t->text[ids[i]], a);
            memcpy(pair + a, t->text[ids[i + 1]], b);
            int id = llamatok_lookup(t, pair, a + b);
            if (id >= 0 && t->score[id] > best) best = t->score[id], best_id = id, best_at = i;
        }
        if (best_at < 0) break;
        ids[best_at] = best_id;
        memmove(ids + best_at + 1, ids + best_at + 2, sizeof *ids * (size_t)(n - best_at - 2));
        n--;
    }
    free(pair);
    return n;
}

static void check_message(const AvError *err) {
    size_t n = fuzz_msg_len(err->msg, sizeof err->msg);
    FUZZ_CHECK(n > 0, "failure without a message");
    long bad = fuzz_first_unsafe(err->msg, n, NULL);
    if (bad >= 0) fuzz_dump("message", err->msg, n);
    FUZZ_CHECK(bad < 0, "message has an unsafe byte at %ld", bad);
}

static void check_encode(const LlamaTok *t, const char *text, size_t len, int bos) {
    int *want = malloc(sizeof *want * (len + 2));
    FUZZ_CHECK(want != NULL, "out of memory");
    int n = scan_encode(t, text, len, bos, want);
    int *ids;
    AvError err = {0};
    int got = llamatok_encode(t, text, len, bos, &ids, &err);
    if (n < 0) {
        FUZZ_CHECK(got == -1 && ids == NULL, "encode gave %d ids where a byte has no piece", got);
        check_message(&err);
        free(want);
        return;
    }
    FUZZ_CHECK(got == n, "encode gave %d ids, run.c's scan %d", got, n);
    FUZZ_CHECK(n == 0 || memcmp(ids, want, sizeof *ids * (size_t)n) == 0, "ids differ from run.c's scan");
    for (int i = 0; i < n; i++) {
        FUZZ_CHECK(ids[i] >= 0 && ids[i] < t->n, "id %d = %d", i, ids[i]);
        size_t k;
        const char *s = llamatok_decode(t, i ? ids[i - 1] : LLAMATOK_BOS, ids[i], &k);
        FUZZ_CHECK(s != NULL && k <= (size_t)t->len[ids[i]], "decode of %d: %zu bytes", ids[i], k);
        char buf[16];
        size_t d = llamatok_display(t, ids[i], buf, sizeof buf);
        FUZZ_CHECK(buf[d < sizeof buf ? d : sizeof buf - 1] == '\0', "display not terminated");
    }
    free(ids);
    free(want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    size_t tlen = data[0] < size - 1 ? data[0] : size - 1;
    char *text = malloc(tlen ? tlen : 1); /* exact size: ASan sees a read past its end */
    FUZZ_CHECK(text != NULL, "out of memory");
    if (tlen) memcpy(text, data + 1, tlen);
    size_t vlen = size - 1 - tlen;
    uint8_t *buf = malloc(vlen ? vlen : 1);
    FUZZ_CHECK(buf != NULL, "out of memory");
    if (vlen) memcpy(buf, data + 1 + tlen, vlen);
    AvError err = {0};
    LlamaTok *t = llamatok_parse(buf, vlen, FUZZ_NAME, &err);
    free(buf); /* the vocabulary must not point into the file */
    if (!t) {
        check_message(&err);
        free(text);
        return 0;
    }
    check_vocabulary(t);
    check_encode(t, text, tlen, 1);
    check_encode(t, text, tlen, 0);
    llamatok_free(t);
    free(text);
    return 0;
}
