/* fuzz_llama2.c - libFuzzer target for the llama2.c checkpoint
 * (src/formats/llama2.h) and the engine's forward pass of what it opens
 * (src/engine/transformer.h).
 *
 * Byte 0 picks the mode. Even: the rest is the file, opened from an
 * exact-size heap copy (llama2_open_mem) under a name with an escape
 * sequence. Odd: bytes 1..28 are the header and the body is built to the
 * exact size that header implies by the formula below (when it is at most
 * FUZZ_BODY_MAX), its floats from the remaining bytes in turn (small
 * values, and +-3e38 for 0x7F/0x80 to reach the saturations), so that
 * random headers reach the forward pass; a valid header must then open.
 *
 * Failure: NULL and one terminal-safe line. Success: the configuration is
 * consistent (positive, within the limits, dim = n_heads * head_size, the
 * grouping exact, the classifier tied or at the end of the file); then up
 * to 4 tokens (ids from the input) are forwarded: every logit finite; the
 * layer-wise steps with the attention handed back give the same bits; the
 * last row appended from the KV cache gives the same bits; a greedy step
 * gives an id in the vocabulary. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "llama2.h"

#define FUZZ_BODY_MAX ((size_t)64 << 10)

static const char FUZZ_NAME[] = "mo\x1b[31md\xc2\x9b"
                                "2J.bin";

static void check_message(const AvError *err) {
    size_t n = fuzz_msg_len(err->msg, sizeof err->msg);
    FUZZ_CHECK(n > 0, "failure without a message");
    long bad = fuzz_first_unsafe(err->msg, n, NULL);
    if (bad >= 0) fuzz_dump("message", err->msg, n);
    FUZZ_CHECK(bad < 0, "message has an unsafe byte at %ld", bad);
}

/* The file size the header h implies (llama2.h's layout), or 0 when a field
 * is invalid or the size passes FUZZ_BODY_MAX. Written from the format, not
 * from llama2.c. */
FUZZ_NO_COVERAGE static size_t implied_size(const int32_t h[7]) {
    int64_t dim = h[0], hid = h[1], L = h[2], nh = h[3], nkv = h[4], v = h[5], seq = h[6];
    int64_t lim[7] = {LLAMA2_MAX_DIM,   LLAMA2_MAX_HIDDEN, LLAMA2_MAX_LAYERS, LLAMA2_MAX_HEADS,
                      LLAMA2_MAX_HEADS, LLAMA2_MAX_VOCAB,  LLAMA2_MAX_SEQ_LEN};
    int shared = v > 0;
    if (v < 0) v = -v;
    int64_t f[7] = {dim, hid, L, nh, nkv, v, seq};
    for (int i = 0; i < 7; i++)
        if (f[i] < 1 || f[i] > lim[i]) return 0;
    if (dim % nh || nh % nkv || (dim / nh) % 2) return 0;
    int64_t hs = dim / nh, kv = nkv * hs, max = (int64_t)FUZZ_BODY_MAX / 4;
    /* each term is below 2^62 within the limits above; stop as soon as the sum is too big */
    int64_t terms[] = {v * dim,           L * dim * 2, L * dim * dim * 2, L * kv * dim * 2,
                       L * hid * dim * 3, dim,         seq * hs,          shared ? 0 : v * dim};
    int64_t floats = 0;
    for (size_t i = 0; i < sizeof terms / sizeof *terms; i++) {
        if (terms[i] > max) return 0;
        floats += terms[i];
        if (floats > max) return 0;
    }
    return 28 + 4 * (size_t)floats;
}

FUZZ_NO_COVERAGE static void check_config(const TfModel *m, size_t size, const float *file_end) {
    const TfConfig *c = &m->cfg;
    FUZZ_CHECK(c->dim >= 1 && c->dim <= LLAMA2_MAX_DIM && c->n_layers >= 1 && c->vocab >= 1 && c->max_pos >= 1 &&
                   c->hidden_dim >= 1,
               "config out of range");
    FUZZ_CHECK(c->head_dim * c->n_heads == c->dim && c->head_dim % 2 == 0, "head size %d", c->head_dim);
    FUZZ_CHECK(c->n_heads % c->n_kv_heads == 0 && c->kv_dim == c->n_kv_heads * c->head_dim, "grouping");
    const float *cls = (const float *)(const void *)m->cls.t->data;
    if (c->tied) FUZZ_CHECK(m->cls.t == m->embed, "tied classifier is not the embedding");
    else FUZZ_CHECK(cls + (size_t)c->vocab * c->dim == file_end, "separate classifier not at the end");
    (void)size;
}

FUZZ_NO_COVERAGE static void check_finite(const float *x, size_t n, const char *what) {
    for (size_t i = 0; i < n; i++) FUZZ_CHECK(isfinite(x[i]), "%s[%zu] = %g", what, i, (double)x[i]);
}

static int is_bos(const void *ctx, int id) {
    (void)ctx;
    return id == LLAMA2_BOS;
}

static void run_model(const TfModel *m, const uint8_t *data, size_t size) {
    const TfConfig *c = &m->cfg;
    int n = c->max_pos < 4 ? c->max_pos : 4, ids[4];
    for (int i = 0; i < n; i++) ids[i] = (int)(i < (int)size ? data[i] : (uint8_t)i) % c->vocab;
    AvError err = {0};
    TfRun *whole = tf_run_new(m, n, 1, &err), *steps = tf_run_new(m, n, 0, &err);
    if (!whole || !steps) { /* a large vocabulary: the logits of every row are too much here */
        tf_run_free(whole);
        tf_run_free(steps);
        return;
    }
    size_t v = (size_t)c->vocab, dim = (size_t)c->dim;
    FUZZ_CHECK(tf_forward(whole, ids, n, &err) == 0, "forward: %s", err.msg);
    check_finite(whole->logits, (size_t)n * v, "logits");
    float *attn = malloc(sizeof(float) * (size_t)n * dim);
    FUZZ_CHECK(attn != NULL, "out of memory");
    FUZZ_CHECK(tf_embed(steps, ids, n, &err) == 0, "embed: %s", err.msg);
    for (int l = 0; l < c->n_layers; l++) {
        FUZZ_CHECK(tf_layer_qkv(steps, l) == 0 && tf_layer_attend(steps, l) == 0, "layer %d", l);
        memcpy(attn, steps->att, sizeof(float) * (size_t)n * dim);
        FUZZ_CHECK(tf_layer_finish(steps, l, attn) == 0, "finish %d", l);
    }
    FUZZ_CHECK(tf_logits(steps) == 0, "logits");
    FUZZ_CHECK(memcmp(steps->logits, whole->logits + (size_t)(n - 1) * v, sizeof(float) * v) == 0,
               "layer-wise logits differ from tf_forward");
    if (n >= 2) {
        FUZZ_CHECK(tf_forward(steps, ids, n - 1, &err) == 0, "forward: %s", err.msg);
        FUZZ_CHECK(tf_extend(steps, &ids[n - 1], 1, &err) == 0, "extend: %s", err.msg);
        FUZZ_CHECK(memcmp(steps->logits, whole->logits + (size_t)(n - 1) * v, sizeof(float) * v) == 0,
                   "KV-cached logits differ from tf_forward");
    }
    int out;
    int got = tf_generate_greedy(steps, ids, 1, 1, &out, is_bos, NULL, &err);
    FUZZ_CHECK(got == 0 || (got == 1 && out >= 0 && out < c->vocab && out != LLAMA2_BOS), "generate: %d (%s)", got,
               err.msg);
    free(attn);
    tf_run_free(whole);
    tf_run_free(steps);
}

/* The floats of a built body: from the input bytes in turn. */
FUZZ_NO_COVERAGE static float body_float(uint8_t b) {
    if (b == 0x7F) return 3e38f;
    if (b == 0x80) return -3e38f;
    return (float)(int8_t)b / 32.0f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    int built = data[0] & 1;
    data++, size--;
    size_t len = size;
    if (built) {
        if (size < LLAMA2_HEADER_BYTES) return 0;
        int32_t h[7];
        memcpy(h, data, sizeof h);
        len = implied_size(h);
        if (!len) len = size; /* invalid or too large: the bytes as they are */
    }
    float *buf = malloc(len ? (len + 3) / 4 * 4 : 4); /* float-aligned, exactly len bytes used */
    FUZZ_CHECK(buf != NULL, "out of memory");
    if (built && len != size) {
        memcpy(buf, data, LLAMA2_HEADER_BYTES);
        size_t rest = size - LLAMA2_HEADER_BYTES;
        for (size_t i = 0; i < (len - LLAMA2_HEADER_BYTES) / 4; i++)
            buf[7 + i] = rest ? body_float(data[LLAMA2_HEADER_BYTES + i % rest]) : 0.5f;
    } else if (len) {
        memcpy(buf, data, len);
    }
    AvError err = {0};
    TfModel *m = llama2_open_mem(buf, len, FUZZ_NAME, &err);
    if (built && len != size) FUZZ_CHECK(m != NULL, "a valid header with its exact size failed: %s", err.msg);
    if (!m) {
        check_message(&err);
        free(buf);
        return 0;
    }
    check_config(m, len, (const float *)((const char *)buf + len));
    size_t skip = built ? LLAMA2_HEADER_BYTES : 0;
    run_model(m, data + skip, size - skip);
    tf_close(m);
    free(buf);
    return 0;
}
