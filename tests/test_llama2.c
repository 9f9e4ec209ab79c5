/* test_llama2.c - cmocka tests of the llama2.c checkpoint reader
 * (src/formats/llama2.c) and the engine's forward pass of what it opens
 * (src/engine/transformer.c, the row "llama2.c" of src/engine/arch.c).
 *
 * With ../shared/models/ (beside the checkout; see models.h): greedy decoding
 * of stories260K prints exactly the text of llama2.c's own test; the
 * layer-wise steps, the KV-cached extension and any thread count give the
 * same bits as tf_forward; the logits agree with a plain double-precision
 * forward written again below, token by token as run.c does, from the
 * file's bytes and its own offsets, and with NumPy (optional) again by
 * tests/verify_llama2.py (the whole sequence at once, every layer's K and
 * V too). Without the models or NumPy those tests print "skipped: ..." and
 * pass. Synthetic checkpoints (built here) check the
 * separate classifier and every malformed header's one-line message. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "llama2.h"
#include "llamatok.h"
#include "models.h"
#include "parallel.h"
#include "rng.h"
#include "readfile.h"

static const char GREEDY_TEXT[] =
    "Once upon a time, there was a little girl named Lily. She loved to play outside in the park. One day, she saw a "
    "big, red ball. She wanted to play with it, but it was too high.\nLily's mom said, \"Lily, let's go to the park.\" "
    "Lily was sad and didn't know what to do. She said, \"I want to play with your ball, but I can't find it.\"\nLily "
    "was sad and didn't know what to do. She said, \"I'm sorry, Lily. I didn't know what to do.\"\nLily didn't want "
    "to help her mom, so she";

// ---------------------------------------------------------------------------
// helpers

static TfModel *shared_model(void) {
    char path[512];
    if (!models_path(path, sizeof path, "stories260K.bin")) return NULL;
    AvError err = {0};
    TfModel *m = llama2_open(path, &err);
    if (!m) fail_msg("%s", err.msg);
    return m;
}

static LlamaTok *shared_tok512(void) {
    char path[512];
    if (!models_path(path, sizeof path, "tok512.bin")) return NULL;
    AvError err = {0};
    LlamaTok *t = llamatok_load(path, &err);
    if (!t) fail_msg("%s", err.msg);
    return t;
}

static TfRun *new_run(const TfModel *m, int cap, int all) {
    AvError err = {0};
    TfRun *r = tf_run_new(m, cap, all, &err);
    if (!r) fail_msg("%s", err.msg);
    return r;
}

/* run.c's end of a text: BOS. */
static int is_bos(const void *ctx, int id) {
    (void)ctx;
    return id == LLAMA2_BOS;
}

/* The ids of "Lily saw a cat. Lily" in tok512 (test_llamatok checks them). */
static const int LILY[] = {1, 317, 394, 261, 280, 294, 426, 317};
enum { N_LILY = 8 };

/* A synthetic checkpoint: the header, then every tensor drawn from a seeded
 * normal (scale 0.5; the norms near 1), vocab < 0 for a separate classifier. */
typedef struct {
    float *f; /* the file as floats (the header is the first 7) */
    size_t bytes;
} Ckpt;

static Ckpt make_ckpt(int dim, int hidden, int layers, int heads, int kv_heads, int vocab, int seq, uint64_t seed) {
    int av = vocab < 0 ? -vocab : vocab, hs = dim / heads, kv = kv_heads * hs;
    size_t floats = (size_t)av * dim + 2 * (size_t)layers * dim + 2 * (size_t)layers * dim * dim +
                    2 * (size_t)layers * kv * dim + 3 * (size_t)layers * hidden * dim + dim + (size_t)seq * hs +
                    (vocab < 0 ? (size_t)av * dim : 0);
    Ckpt c = {calloc(7 + floats, sizeof(float)), 28 + 4 * floats};
    assert_non_null(c.f);
    int32_t h[7] = {dim, hidden, layers, heads, kv_heads, vocab, seq};
    memcpy(c.f, h, sizeof h);
    RngStream rng;
    rng_init(&rng, seed);
    for (size_t i = 0; i < floats; i++) c.f[7 + i] = (float)(0.5 * rng_normal(&rng));
    return c;
}

static void set_header(Ckpt *c, int field, int32_t v) { memcpy((char *)c->f + 4 * field, &v, 4); }

static TfModel *open_ckpt(const Ckpt *c, AvError *err) { return llama2_open_mem(c->f, c->bytes, "t.bin", err); }

// ---------------------------------------------------------------------------
// the reference: run.c's forward, token by token, in double, from the file

typedef struct {
    int dim, hidden, layers, heads, kv_heads, vocab, seq, shared;
    const float *f; /* the tensors */
} Ref;

static Ref ref_of(const float *file) {
    int32_t h[7];
    memcpy(h, file, sizeof h);
    Ref r = {h[0], h[1], h[2], h[3], h[4], abs(h[5]), h[6], h[5] > 0, file + 7};
    return r;
}

static void ref_matvec(double *out, const float *w, const double *x, int n_out, int n_in) {
    for (int o = 0; o < n_out; o++) {
        double s = 0;
        for (int i = 0; i < n_in; i++) s += (double)w[(size_t)o * n_in + i] * x[i];
        out[o] = s;
    }
}

static void ref_rmsnorm(double *out, const double *x, const float *w, int n) {
    double ss = 0;
    for (int i = 0; i < n; i++) ss += x[i] * x[i];
    ss = 1.0 / sqrt(ss / n + 1e-5);
    for (int i = 0; i < n; i++) out[i] = w[i] * x[i] * ss;
}

/* logits (n, vocab) of ids[0..n). */
static void ref_forward(double *logits, const Ref *p, const int *ids, int n) {
    int D = p->dim, H = p->hidden, hs = D / p->heads, KV = p->kv_heads * hs, L = p->layers;
    const float *emb = p->f, *rms_att = emb + (size_t)p->vocab * D, *wq = rms_att + (size_t)L * D;
    const float *wk = wq + (size_t)L * D * D, *wv = wk + (size_t)L * KV * D, *wo = wv + (size_t)L * KV * D;
    const float *rms_ffn = wo + (size_t)L * D * D, *w1 = rms_ffn + (size_t)L * D, *w2 = w1 + (size_t)L * H * D;
    const float *w3 = w2 + (size_t)L * D * H, *rms_final = w3 + (size_t)L * H * D;
    const float *cls = p->shared ? emb : rms_final + D + (size_t)p->seq * hs;
    double *kc = calloc((size_t)L * n * KV, sizeof(double)), *vc = calloc((size_t)L * n * KV, sizeof(double));
    double *x = malloc(sizeof(double) * D), *xb = malloc(sizeof(double) * D), *q = malloc(sizeof(double) * D);
    double *att = malloc(sizeof(double) * D), *o = malloc(sizeof(double) * D), *h1 = malloc(sizeof(double) * H);
    double *h3 = malloc(sizeof(double) * H), *a = malloc(sizeof(double) * n);
    assert_true(kc && vc && x && xb && q && att && o && h1 && h3 && a);
    for (int pos = 0; pos < n; pos++) {
        for (int i = 0; i < D; i++) x[i] = emb[(size_t)ids[pos] * D + i];
        for (int l = 0; l < L; l++) {
            double *k = kc + ((size_t)l * n + pos) * KV, *v = vc + ((size_t)l * n + pos) * KV;
            ref_rmsnorm(xb, x, rms_att + (size_t)l * D, D);
            ref_matvec(q, wq + (size_t)l * D * D, xb, D, D);
            ref_matvec(k, wk + (size_t)l * KV * D, xb, KV, D);
            ref_matvec(v, wv + (size_t)l * KV * D, xb, KV, D);
            for (int i = 0; i < D; i += 2) {
                double ang = pos * pow(10000.0, -(double)(i % hs) / hs), c = cos(ang), s = sin(ang);
                double q0 = q[i], q1 = q[i + 1];
                q[i] = q0 * c - q1 * s, q[i + 1] = q0 * s + q1 * c;
                if (i < KV) {
                    double k0 = k[i], k1 = k[i + 1];
                    k[i] = k0 * c - k1 * s, k[i + 1] = k0 * s + k1 * c;
                }
            }
            for (int h = 0; h < p->heads; h++) {
                int g = h / (p->heads / p->kv_heads);
                double mx = -INFINITY, sum = 0;
                for (int t = 0; t <= pos; t++) {
                    double s = 0;
                    for (int i = 0; i < hs; i++) s += q[h * hs + i] * kc[((size_t)l * n + t) * KV + g * hs + i];
                    a[t] = s / sqrt(hs);
                    if (a[t] > mx) mx = a[t];
                }
                for (int t = 0; t <= pos; t++) sum += a[t] = exp(a[t] - mx);
                for (int i = 0; i < hs; i++) {
                    double s = 0;
                    for (int t = 0; t <= pos; t++) s += a[t] / sum * vc[((size_t)l * n + t) * KV + g * hs + i];
                    att[h * hs + i] = s;
                }
            }
            ref_matvec(o, wo + (size_t)l * D * D, att, D, D);
            for (int i = 0; i < D; i++) x[i] += o[i];
            ref_rmsnorm(xb, x, rms_ffn + (size_t)l * D, D);
            ref_matvec(h1, w1 + (size_t)l * H * D, xb, H, D);
            ref_matvec(h3, w3 + (size_t)l * H * D, xb, H, D);
            for (int i = 0; i < H; i++) h1[i] = h1[i] / (1 + exp(-h1[i])) * h3[i];
            ref_matvec(o, w2 + (size_t)l * D * H, h1, D, H);
            for (int i = 0; i < D; i++) x[i] += o[i];
        }
        ref_rmsnorm(xb, x, rms_final, D);
        ref_matvec(logits + (size_t)pos * p->vocab, cls, xb, p->vocab, D);
    }
    free(kc), free(vc), free(x), free(xb), free(q), free(att), free(o), free(h1), free(h3), free(a);
}

/* The run's logits (every row) against the reference, within tol. */
static void assert_like_reference(const TfRun *r, const float *file, const int *ids, int n, double tol) {
    Ref p = ref_of(file);
    double *want = malloc(sizeof(double) * (size_t)n * p.vocab);
    assert_non_null(want);
    ref_forward(want, &p, ids, n);
    double worst = 0;
    for (size_t i = 0; i < (size_t)n * p.vocab; i++) {
        double d = fabs(r->logits[i] - want[i]);
        if (d > worst) worst = d;
    }
    free(want);
    if (worst > tol) fail_msg("logits differ from the reference by %g (tolerance %g)", worst, tol);
}

// ---------------------------------------------------------------------------
// stories260K

static void test_config_and_mapping(void **state) {
    (void)state;
    TfModel *m = shared_model();
    if (!m) return;
    const TfConfig *c = &m->cfg;
    assert_string_equal(c->arch->name, "llama2.c");
    assert_int_equal(c->arch->rope, ROPE_PAIRS);
    assert_int_equal(c->dim, 64);
    assert_int_equal(c->hidden_dim, 172);
    assert_int_equal(c->n_layers, 5);
    assert_int_equal(c->n_heads, 8);
    assert_int_equal(c->n_kv_heads, 4);
    assert_int_equal(c->vocab, 512);
    assert_int_equal(c->max_pos, 512);
    assert_int_equal(c->head_dim, 8);
    assert_int_equal(c->q_dim, 64);
    assert_int_equal(c->kv_dim, 32);
    assert_int_equal(c->tied, 1);
    assert_true(c->eps == 1e-5 && c->rope_theta == 10000.0);
    /* the weights point into the mapping, not into a copy: F32 views */
    assert_int_equal(m->file_len, 1056540);
    assert_int_equal(m->embed->dtype, ST_F32);
    assert_ptr_equal(m->embed->data, (const unsigned char *)m->file + 28);
    assert_ptr_equal(m->cls.t, m->embed);
    assert_ptr_equal(m->normf_w + 64 + 2 * 512 * 4, (const float *)((const char *)m->file + m->file_len));
    assert_ptr_equal(m->layers[1].wq.t->data + 4 * m->layers[1].wq.off,
                     (const unsigned char *)m->file + 28 + 4 * (512 * 64 + 5 * 64 + 64 * 64));
    tf_close(m);
}

static void test_greedy_200(void **state) {
    (void)state;
    TfModel *m = shared_model();
    LlamaTok *t = m ? shared_tok512() : NULL;
    if (!t) {
        tf_close(m);
        return;
    }
    /* the pool's one thread (test_extend_and_threads_same_bits shows two give the same
     * bits): the 200 one-row steps cost 50 s under valgrind, slow on AVX2 masked loads */
    TfRun *r = new_run(m, 256, 0);
    int prompt[1] = {LLAMA2_BOS}, out[200];
    AvError err = {0};
    int n = tf_generate_greedy(r, prompt, 1, 200, out, is_bos, NULL, &err);
    assert_int_equal(n, 200);
    char text[2048];
    size_t len = 0;
    for (int i = 0, prev = LLAMA2_BOS; i < n; prev = out[i++]) {
        size_t k;
        const char *s = llamatok_decode(t, prev, out[i], &k);
        assert_true(len + k < sizeof text);
        memcpy(text + len, s, k);
        len += k;
    }
    text[len] = '\0';
    assert_int_equal(len, 464);
    assert_string_equal(text, GREEDY_TEXT);
    tf_run_free(r);
    llamatok_free(t);
    tf_close(m);
}

/* The steps one by one, with the attention handed back from outside (as the
 * app does), give tf_forward's bits. */
static void test_layerwise_equals_forward(void **state) {
    (void)state;
    TfModel *m = shared_model();
    if (!m) return;
    const TfConfig *c = &m->cfg;
    TfRun *whole = new_run(m, N_LILY, 1), *steps = new_run(m, N_LILY, 1);
    AvError err = {0};
    assert_int_equal(tf_forward(whole, LILY, N_LILY, &err), 0);
    float *attn = malloc(sizeof(float) * N_LILY * c->dim);
    assert_non_null(attn);
    assert_int_equal(tf_embed(steps, LILY, N_LILY, &err), 0);
    for (int l = 0; l < c->n_layers; l++) {
        assert_int_equal(tf_layer_qkv(steps, l), 0);
        assert_int_equal(tf_layer_attend(steps, l), 0);
        memcpy(attn, steps->att, sizeof(float) * N_LILY * c->dim);
        memset(steps->att, 0, sizeof(float) * N_LILY * c->dim); /* finish must read attn, not att */
        assert_int_equal(tf_layer_finish(steps, l, attn), 0);
        assert_memory_equal(tf_run_k(steps, l), tf_run_k(whole, l), sizeof(float) * N_LILY * c->kv_dim);
        assert_memory_equal(tf_run_x(steps, l + 1), tf_run_x(whole, l + 1), sizeof(float) * N_LILY * c->dim);
    }
    assert_int_equal(tf_logits(steps), 0);
    assert_memory_equal(steps->logits, whole->logits, sizeof(float) * N_LILY * c->vocab);
    /* one layer again from its stored input: the same */
    assert_int_equal(tf_layer_qkv(steps, 2), 0);
    assert_memory_equal(tf_run_v(steps, 2), tf_run_v(whole, 2), sizeof(float) * N_LILY * c->kv_dim);
    /* RoPE leaves position 0 as it is and turns the others */
    const float *q = tf_run_q(steps, 2);
    assert_memory_equal(q, steps->q_raw, sizeof(float) * c->dim);
    assert_memory_not_equal(q + c->dim, steps->q_raw + c->dim, sizeof(float) * c->dim);
    free(attn);
    tf_run_free(whole);
    tf_run_free(steps);
    tf_close(m);
}

/* Rows appended one at a time from the KV cache, and 2 threads: the same bits. */
static void test_extend_and_threads_same_bits(void **state) {
    (void)state;
    TfModel *m = shared_model();
    if (!m) return;
    int v = m->cfg.vocab;
    TfRun *whole = new_run(m, N_LILY, 1);
    AvError err = {0};
    assert_int_equal(tf_forward(whole, LILY, N_LILY, &err), 0);
    TfRun *inc = new_run(m, N_LILY, 0);
    assert_int_equal(tf_forward(inc, LILY, 3, &err), 0);
    for (int i = 3; i < N_LILY; i++) assert_int_equal(tf_extend(inc, &LILY[i], 1, &err), 0);
    assert_int_equal(inc->n, N_LILY);
    assert_memory_equal(inc->logits, whole->logits + (size_t)(N_LILY - 1) * v, sizeof(float) * v);
    for (int l = 0; l < m->cfg.n_layers; l++)
        assert_memory_equal(tf_run_k(inc, l), tf_run_k(whole, l), sizeof(float) * N_LILY * m->cfg.kv_dim);
    par_set_threads(2);
    TfRun *two = new_run(m, N_LILY, 1);
    assert_int_equal(tf_forward(two, LILY, N_LILY, &err), 0);
    assert_memory_equal(two->logits, whole->logits, sizeof(float) * N_LILY * v);
    par_set_threads(1);
    tf_run_free(two);
    tf_run_free(inc);
    tf_run_free(whole);
    tf_close(m);
}

static void test_reference_stories(void **state) {
    (void)state;
    TfModel *m = shared_model();
    if (!m) return;
    TfRun *r = new_run(m, N_LILY, 1);
    AvError err = {0};
    assert_int_equal(tf_forward(r, LILY, N_LILY, &err), 0);
    assert_like_reference(r, m->file, LILY, N_LILY, 1e-4); /* 8.5e-6 measured */
    tf_run_free(r);
    tf_close(m);
}

// ---------------------------------------------------------------------------
// synthetic checkpoints

static void test_tiny_models_like_reference(void **state) {
    (void)state;
    static const struct {
        int dim, hidden, layers, heads, kv, vocab, seq;
    } shapes[] = {
        {8, 12, 2, 2, 1, 10, 6}, {8, 12, 2, 2, 1, -10, 6}, {12, 5, 3, 3, 3, 7, 9}, {16, 40, 1, 4, 2, -300, 40}};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        Ckpt c = make_ckpt(shapes[s].dim, shapes[s].hidden, shapes[s].layers, shapes[s].heads, shapes[s].kv,
                           shapes[s].vocab, shapes[s].seq, 100 + s);
        AvError err = {0};
        TfModel *m = open_ckpt(&c, &err);
        if (!m) fail_msg("shape %zu: %s", s, err.msg);
        assert_int_equal(m->cfg.tied, shapes[s].vocab > 0);
        if (shapes[s].vocab < 0)
            assert_ptr_equal((const float *)(const void *)m->cls.t->data + (size_t)m->cfg.vocab * m->cfg.dim,
                             (const float *)((char *)c.f + c.bytes));
        int n = shapes[s].seq, ids[64];
        for (int i = 0; i < n; i++) ids[i] = (i * 7 + 1) % m->cfg.vocab;
        TfRun *r = new_run(m, n, 1);
        assert_int_equal(tf_forward(r, ids, n, &err), 0);
        assert_like_reference(r, c.f, ids, n, 2e-5); /* at most 3.9e-6 measured */
        tf_run_free(r);
        tf_close(m);
        free(c.f);
    }
}

/* Every malformed header: one line naming the file, the field and the value. */
static void test_bad_headers(void **state) {
    (void)state;
    static const struct {
        int field;
        int32_t value;
        const char *msg;
    } cases[] = {
        {0, 0, "t.bin: header field dim is 0: it must be positive"},
        {2, -1, "t.bin: header field n_layers is -1: it must be positive"},
        {5, 0, "t.bin: header field vocab_size is 0: it must be positive"},
        {5, INT32_MIN,
         "t.bin: header field vocab_size is -2147483648, beyond the limit of 4194304 (negative: a "
         "separate classifier)"},
        {0, 100000, "t.bin: header field dim is 100000, more than the limit of 65536"},
        {6, INT32_MAX, "t.bin: header field seq_len is 2147483647, more than the limit of 1048576"},
        {3, 3, "t.bin: dim 8 is not divisible by n_heads 3"},
        {4, 2, "t.bin: n_heads 2 is not a multiple of n_kv_heads 2"}, /* replaced below: 4 heads, 3 kv */
        {3, 8, "t.bin: the head size dim / n_heads = 8 / 8 = 1 is odd (RoPE rotates pairs)"},
        {1, 13,
         "t.bin: 4444 bytes, but the header (dim 8, hidden_dim 13, 2 layers, 2 heads, 1 kv head, vocab 10, "
         "seq_len 6, tied classifier) implies 4636 (192 bytes too few: truncated?)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        Ckpt c = make_ckpt(8, 12, 2, 2, 1, 10, 6, 7);
        set_header(&c, cases[i].field, cases[i].value);
        const char *want = cases[i].msg;
        if (i == 7)
            set_header(&c, 3, 4), set_header(&c, 4, 3), want = "t.bin: n_heads 4 is not a multiple of n_kv_heads 3";
        AvError err = {0};
        TfModel *m = open_ckpt(&c, &err);
        if (m) fail_msg("case %zu opened", i);
        if (strcmp(err.msg, want) != 0) fail_msg("case %zu: \"%s\"", i, err.msg);
        assert_int_equal(err.kind, AV_ERR_INPUT);
        free(c.f);
    }
}

/* Another kind of file given as a checkpoint: said as such, not as the
 * first field that looks odd ("header field dim is 1702240891"). */
static void test_not_a_checkpoint(void **state) {
    (void)state;
    Ckpt c = make_ckpt(8, 12, 2, 2, 1, 10, 6, 7);
    AvError err = {0};
    memcpy(c.f, "# a README, not a checkpoint", 28);
    assert_null(llama2_open_mem(c.f, c.bytes, "t.bin", &err));
    assert_string_equal(err.msg, "t.bin: not a llama2.c checkpoint (it starts with text: \"# a README, ...\")");
    free(c.f);
    c = make_ckpt(8, 12, 2, 2, 1, 10, 6, 7);
    set_header(&c, 0, -5), set_header(&c, 6, 0);
    assert_null(llama2_open_mem(c.f, c.bytes, "t.bin", &err));
    assert_non_null(strstr(err.msg, "t.bin: not a llama2.c checkpoint (2 of the 7 header fields"));
    free(c.f);
}

static void test_bad_sizes(void **state) {
    (void)state;
    Ckpt c = make_ckpt(8, 12, 2, 2, 1, 10, 6, 7);
    AvError err = {0};
    assert_null(llama2_open_mem(c.f, c.bytes - 1, "t.bin", &err));
    assert_string_equal(err.msg, "t.bin: 4443 bytes, but the header (dim 8, hidden_dim 12, 2 layers, 2 heads, 1 kv "
                                 "head, vocab 10, seq_len 6, tied classifier) implies 4444 (1 byte too few: "
                                 "truncated?)");
    Ckpt big = make_ckpt(8, 12, 2, 2, 1, 10, 6, 7);
    big.f = realloc(big.f, big.bytes + 4);
    assert_non_null(big.f);
    assert_null(llama2_open_mem(big.f, big.bytes + 1, "t.bin", &err));
    assert_string_equal(err.msg, "t.bin: 4445 bytes, but the header (dim 8, hidden_dim 12, 2 layers, 2 heads, 1 kv "
                                 "head, vocab 10, seq_len 6, tied classifier) implies 4444 (1 byte too many)");
    assert_null(llama2_open_mem(c.f, 27, "t.bin", &err));
    assert_string_equal(err.msg, "t.bin: 27 bytes, too short for the 28-byte llama2.c header");
    /* every field at its limit: a size no file has (and no overflow on the way) */
    int32_t huge[7] = {65536, 262144, 1024, 1024, 1024, -(1 << 22), 1 << 20};
    memcpy(c.f, huge, sizeof huge);
    assert_null(llama2_open_mem(c.f, c.bytes, "t.bin", &err));
    assert_string_equal(err.msg, "t.bin: 4444 bytes, but the header (dim 65536, hidden_dim 262144, 1024 layers, 1024 "
                                 "heads, 1024 kv heads, vocab 4194304, seq_len 1048576, separate classifier) implies "
                                 "283674805534748 (283674805530304 bytes too few: truncated?)");
    /* the header alone is read by llama2_read_header */
    Llama2Header cfg;
    assert_int_equal(llama2_read_header(&cfg, big.f, big.bytes, "t.bin", &err), 0);
    assert_int_equal(cfg.kv_dim, 4);
    free(c.f);
    free(big.f);
}

static void test_bad_weights(void **state) {
    (void)state;
    Ckpt c = make_ckpt(8, 12, 2, 2, 1, 10, 6, 7);
    AvError err = {0};
    size_t wq = 7 + 10 * 8 + 2 * 8; /* the first float of wq */
    c.f[wq + 64 + 3] = NAN;         /* layer 1 */
    assert_null(open_ckpt(&c, &err));
    assert_string_equal(err.msg, "t.bin: tensor wq: element 67 of layer 1 (byte 680) is NaN");
    c.f[wq + 64 + 3] = 0;
    c.f[c.bytes / 4 - 2 * 6 * 2 - 1] = INFINITY; /* the last of rms_final */
    assert_null(open_ckpt(&c, &err));
    assert_string_equal(err.msg, "t.bin: tensor rms_final: element 7 (byte 4344) is infinite");
    c.f[c.bytes / 4 - 2 * 6 * 2 - 1] = 1;
    c.f[c.bytes / 4 - 1] = NAN; /* the unused RoPE tables are not looked at */
    TfModel *m = open_ckpt(&c, &err);
    assert_non_null(m);
    tf_close(m);
    /* a name with an escape sequence is escaped */
    assert_null(llama2_open_mem(c.f, 3, "m\x1b]0;x\a.bin", &err));
    assert_string_equal(err.msg, "m\\x1B]0;x\\x07.bin: 3 bytes, too short for the 28-byte llama2.c header");
    free(c.f);
}

static void test_files(void **state) {
    (void)state;
    AvError err = {0};
    assert_null(llama2_open("tests", &err));
    assert_string_equal(err.msg, "tests: is a directory, not a file");
    assert_null(llama2_open("tests/no-such-model.bin", &err));
    assert_string_equal(err.msg, "tests/no-such-model.bin: cannot open: No such file or directory");
    char dir[] = "/tmp/attnviz-llama2-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/t.bin", dir);
    Ckpt c = make_ckpt(8, 12, 2, 2, 1, 10, 6, 7);
    for (int cut = 0; cut <= 1; cut++) {
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(c.f, 1, c.bytes - (size_t)cut, f), c.bytes - (size_t)cut);
        fclose(f);
        TfModel *m = llama2_open(path, &err);
        if (cut) {
            assert_null(m);
            assert_non_null(strstr(err.msg, "4443 bytes, but the header"));
        } else {
            assert_non_null(m);
            assert_non_null(m->file);
            assert_int_equal(m->file_len, c.bytes);
            tf_close(m);
        }
    }
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fclose(f);
    assert_null(llama2_open(path, &err));
    assert_non_null(strstr(err.msg, "t.bin: 0 bytes, too short for the 28-byte llama2.c header"));
    unlink(path);
    rmdir(dir);
    free(c.f);
}

static void test_run_errors(void **state) {
    (void)state;
    Ckpt c = make_ckpt(8, 12, 2, 2, 1, 10, 6, 7);
    AvError err = {0};
    TfModel *m = open_ckpt(&c, &err);
    assert_non_null(m);
    assert_null(tf_run_new(m, 0, 0, &err));
    assert_string_equal(err.msg, "0 tokens: the model takes 1 to 6 (its context)");
    assert_null(tf_run_new(m, 7, 0, &err));
    TfRun *r = new_run(m, 4, 0);
    int ids[6] = {1, 2, 10, 3, 4, 5};
    assert_int_equal(tf_forward(r, ids, 3, &err), -1);
    assert_string_equal(err.msg, "token 2: id 10 is not in the vocabulary of 10");
    assert_int_equal(tf_forward(r, ids, 5, &err), -1);
    assert_string_equal(err.msg, "5 tokens after 0: the run holds 4 (the model's context is 6)");
    assert_int_equal(tf_forward(r, ids, 2, &err), 0);
    assert_int_equal(tf_extend(r, ids + 3, 3, &err), -1);
    assert_string_equal(err.msg, "3 tokens after 2: the run holds 4 (the model's context is 6)");
    assert_int_equal(tf_layer_qkv(r, 2), -1); /* no such layer */
    int out[8];
    assert_int_equal(tf_generate_greedy(r, ids, 2, 4, out, is_bos, NULL, &err), -1);
    assert_string_equal(err.msg, "2 prompt tokens and 4 steps: the run holds 4 tokens");
    int n = tf_generate_greedy(r, ids, 2, 3, out, is_bos, NULL, &err);
    assert_true(n >= 0 && n <= 3);
    for (int i = 0; i < n; i++) assert_true(out[i] >= 0 && out[i] < 10 && out[i] != LLAMA2_BOS);
    tf_run_free(r);
    tf_close(m);
    free(c.f);
}

// ---------------------------------------------------------------------------
// NumPy (optional): tests/verify_llama2.py recomputes from the file

/* A python3 with NumPy, or NULL after the "skipped" line. */
static const char *numpy_python(void) {
    static const char *const pythons[] = {"/usr/bin/python3", "python3"};
    for (size_t i = 0; i < 2; i++) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "%s -c 'import numpy' >/dev/null 2>&1", pythons[i]);
        if (system(cmd) == 0) return pythons[i];
    }
    need_missing("python3 with numpy not found (tests/verify_llama2.py; apt-get install python3-numpy)");
    return NULL;
}

/* Writes the run's logits and every layer's K and V, and has NumPy check them. */
static void assert_numpy_agrees(const char *python, const char *model, const TfRun *r, const char *dir) {
    const TfConfig *c = &r->m->cfg;
    char dump[256], cmd[1024];
    snprintf(dump, sizeof dump, "%s/dump.f32", dir);
    FILE *f = fopen(dump, "wb");
    assert_non_null(f);
    size_t n = (size_t)r->n, kv = (size_t)c->kv_dim;
    assert_int_equal(fwrite(r->logits, sizeof(float), n * c->vocab, f), n * c->vocab);
    for (int l = 0; l < c->n_layers; l++) {
        assert_int_equal(fwrite(tf_run_k(r, l), sizeof(float), n * kv, f), n * kv);
        assert_int_equal(fwrite(tf_run_v(r, l), sizeof(float), n * kv, f), n * kv);
    }
    fclose(f);
    int len = snprintf(cmd, sizeof cmd, "%s tests/verify_llama2.py '%s' '%s'", python, model, dump);
    for (int i = 0; i < r->n; i++) len += snprintf(cmd + len, sizeof cmd - (size_t)len, " %d", r->ids[i]);
    assert_true(len < (int)sizeof cmd);
    assert_int_equal(system(cmd), 0);
    unlink(dump);
}

static void test_numpy_reference(void **state) {
    (void)state;
    const char *python = numpy_python();
    if (!python) return;
    char dir[] = "/tmp/attnviz-numpy-XXXXXX", path[256];
    assert_non_null(mkdtemp(dir));
    /* a synthetic model with a separate classifier and grouped K/V */
    Ckpt c = make_ckpt(16, 40, 2, 4, 2, -50, 12, 9);
    snprintf(path, sizeof path, "%s/tiny.bin", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(c.f, 1, c.bytes, f), c.bytes);
    fclose(f);
    AvError err = {0};
    TfModel *m = llama2_open(path, &err);
    assert_non_null(m);
    int ids[12] = {1, 7, 3, 49, 0, 7, 7, 20, 1, 33, 2, 9};
    TfRun *r = new_run(m, 12, 1);
    assert_int_equal(tf_forward(r, ids, 12, &err), 0);
    assert_numpy_agrees(python, path, r, dir);
    tf_run_free(r);
    tf_close(m);
    unlink(path);
    free(c.f);
    char shared[512];
    if ((m = shared_model()) != NULL && models_path(shared, sizeof shared, "stories260K.bin")) {
        r = new_run(m, N_LILY, 1);
        assert_int_equal(tf_forward(r, LILY, N_LILY, &err), 0);
        assert_numpy_agrees(python, shared, r, dir);
        tf_run_free(r);
        tf_close(m);
    }
    rmdir(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_config_and_mapping),
        cmocka_unit_test(test_greedy_200),
        cmocka_unit_test(test_layerwise_equals_forward),
        cmocka_unit_test(test_extend_and_threads_same_bits),
        cmocka_unit_test(test_reference_stories),
        cmocka_unit_test(test_tiny_models_like_reference),
        cmocka_unit_test(test_bad_headers),
        cmocka_unit_test(test_not_a_checkpoint),
        cmocka_unit_test(test_bad_sizes),
        cmocka_unit_test(test_bad_weights),
        cmocka_unit_test(test_files),
        cmocka_unit_test(test_run_errors),
        cmocka_unit_test(test_numpy_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
