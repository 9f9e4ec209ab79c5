/* fuzz_ggufmodel.c - libFuzzer target for GGUF files as models
 * (src/formats/ggufmodel.h: the architecture, keys and tensors; ggufvocab.c
 * and src/text/gguftok.h: the tokenizer of the metadata) and the engine's
 * forward pass of what they open, quantized weights included.
 *
 * The input is the file, opened from an exact-size heap copy
 * (ggufmodel_open_mem) under a name with an escape sequence. The seeds
 * (tests/fuzz/corpus/ggufmodel/, from tests/support/gguf_model.py seeds)
 * are tiny valid models of each architecture and a few types, so that the
 * mutations reach the keys, shapes and types one at a time.
 *
 * Failure: NULL and one terminal-safe line. Success: the configuration is
 * consistent (positive, the grouping exact, q and kv widths the heads'),
 * every matrix view inside its tensor and a whole number of its blocks
 * a row, the vocabulary token_embd's rows; up to 3 tokens (ids from the
 * input) are forwarded: every logit finite, the last row appended from the
 * KV cache the same bits. The tokenizer, when the metadata has one that
 * opens: its size the model's vocabulary, and a text (the input's last
 * bytes, when valid UTF-8) encodes to ids inside it, each with a piece. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "ggufmodel.h"
#include "utf8.h"

static const char FUZZ_NAME[] = "m\x1b[31m\xc2\x9b"
                                "2J.gguf";

static void check_message(const AvError *err) {
    size_t n = fuzz_msg_len(err->msg, sizeof err->msg);
    FUZZ_CHECK(n > 0, "failure without a message");
    long bad = fuzz_first_unsafe(err->msg, n, NULL);
    if (bad >= 0) fuzz_dump("message", err->msg, n);
    FUZZ_CHECK(bad < 0, "message has an unsafe byte at %ld", bad);
}

/* A view of rows x n_in inside its tensor, rows whole blocks. */
FUZZ_NO_COVERAGE static void check_mat(const TfMat *w, int rows, int n_in, const char *what) {
    FUZZ_CHECK(w->t != NULL, "%s: no tensor", what);
    FUZZ_CHECK(w->ld == n_in && n_in % st_block_size(w->t->dtype) == 0, "%s: rows of %d in %s", what, n_in,
               st_dtype_name(w->t->dtype));
    FUZZ_CHECK(w->off % (size_t)n_in == 0 && w->off + (size_t)rows * n_in <= w->t->count, "%s: outside its tensor",
               what);
    FUZZ_CHECK(st_bytes(w->t->dtype, w->t->count) == w->t->bytes, "%s: bytes", what);
}

FUZZ_NO_COVERAGE static void check_config(const TfModel *m) {
    const TfConfig *c = &m->cfg;
    FUZZ_CHECK(c->dim >= 1 && c->n_layers >= 1 && c->vocab >= 1 && c->max_pos >= 1 && c->hidden_dim >= 1,
               "config out of range");
    FUZZ_CHECK(c->n_kv_heads >= 1 && c->n_heads % c->n_kv_heads == 0, "grouping %d / %d", c->n_heads, c->n_kv_heads);
    FUZZ_CHECK(c->q_dim == c->n_heads * c->head_dim && c->kv_dim == c->n_kv_heads * c->head_dim, "widths");
    FUZZ_CHECK(c->arch->rope == ROPE_NONE || c->head_dim % 2 == 0, "odd head with RoPE");
    FUZZ_CHECK(isfinite(c->eps) && c->eps >= 0 && c->eps <= 1, "eps %g", c->eps);
    FUZZ_CHECK(m->embed && m->embed->count == (uint64_t)c->vocab * c->dim, "embedding");
    check_mat(&m->cls, c->vocab, c->dim, "classifier");
    FUZZ_CHECK(!c->tied || m->cls.t == m->embed, "tied classifier is not the embedding");
    FUZZ_CHECK(m->normf_w != NULL, "no final norm");
    for (int l = 0; l < c->n_layers; l++) {
        const TfLayer *L = &m->layers[l];
        check_mat(&L->wq, c->q_dim, c->dim, "wq");
        check_mat(&L->wk, c->kv_dim, c->dim, "wk");
        check_mat(&L->wv, c->kv_dim, c->dim, "wv");
        check_mat(&L->wo, c->dim, c->q_dim, "wo");
        check_mat(&L->w_fc, c->hidden_dim, c->dim, "w_fc");
        check_mat(&L->w_down, c->dim, c->hidden_dim, "w_down");
        if (c->arch->mlp == TF_MLP_SWIGLU) check_mat(&L->w_up, c->hidden_dim, c->dim, "w_up");
        FUZZ_CHECK(L->norm1_w && L->norm2_w, "layer %d: no norms", l);
        FUZZ_CHECK(!c->qkv_bias || (L->bq && L->bk && L->bv), "layer %d: no q/k/v biases", l);
    }
}

FUZZ_NO_COVERAGE static void check_finite(const float *x, size_t n, const char *what) {
    for (size_t i = 0; i < n; i++) FUZZ_CHECK(isfinite(x[i]), "%s[%zu] = %g", what, i, (double)x[i]);
}

static void run_model(const TfModel *m, const uint8_t *data, size_t size) {
    const TfConfig *c = &m->cfg;
    int n = c->max_pos < 3 ? c->max_pos : 3, ids[3];
    for (int i = 0; i < n; i++) ids[i] = (int)(i < (int)size ? data[size - 1 - i] : (uint8_t)i) % c->vocab;
    AvError err = {0};
    TfRun *whole = tf_run_new(m, n, 0, &err), *steps = tf_run_new(m, n, 0, &err);
    if (whole && steps) {
        size_t v = (size_t)c->vocab;
        FUZZ_CHECK(tf_forward(whole, ids, n, &err) == 0, "forward: %s", err.msg);
        check_finite(whole->logits, v, "logits");
        if (n >= 2) {
            FUZZ_CHECK(tf_forward(steps, ids, n - 1, &err) == 0, "forward: %s", err.msg);
            FUZZ_CHECK(tf_extend(steps, &ids[n - 1], 1, &err) == 0, "extend: %s", err.msg);
            FUZZ_CHECK(memcmp(steps->logits, whole->logits, sizeof(float) * v) == 0,
                       "KV-cached logits differ from tf_forward");
        }
    }
    tf_run_free(whole);
    tf_run_free(steps);
}

FUZZ_NO_COVERAGE static int valid_utf8(const char *s, size_t n) {
    for (size_t at = 0; at < n;) {
        uint32_t cp;
        at += (size_t)utf8_decode(s + at, n - at, &cp);
        if (cp == UTF8_INVALID) return 0;
    }
    return 1;
}

static void run_vocab(const TfModel *m, const uint8_t *data, size_t size) {
    AvError err = {0};
    Vocab *v = ggufmodel_vocab(ggufmodel_file(m), &err);
    if (!v) {
        check_message(&err);
        return;
    }
    int nv = vocab_size(v);
    FUZZ_CHECK(nv >= 1, "an empty vocabulary");
    size_t k = size < 48 ? size : 48;
    const char *text = (const char *)data + size - k;
    if (!valid_utf8(text, k)) text = "Lily's mom said, 12345 ok.\n", k = strlen(text);
    int *ids = NULL, n = vocab_encode(v, text, k, &ids, &err);
    if (n < 0) check_message(&err);
    for (int i = 0; i < n; i++) {
        FUZZ_CHECK(ids[i] >= 0 && ids[i] < nv, "id %d of %d", ids[i], nv);
        size_t len;
        (void)vocab_decode(v, i ? ids[i - 1] : -1, ids[i], &len);
        char shown[64];
        vocab_display(v, ids[i], shown, sizeof shown);
    }
    free(ids);
    vocab_free(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t *buf = malloc(size ? size : 1);
    FUZZ_CHECK(buf != NULL, "out of memory");
    if (size) memcpy(buf, data, size);
    AvError err = {0};
    TfModel *m = ggufmodel_open_mem(buf, size, FUZZ_NAME, &err);
    if (!m) check_message(&err);
    else {
        check_config(m);
        run_model(m, data, size);
        run_vocab(m, data, size);
        tf_close(m);
    }
    free(buf);
    return 0;
}
