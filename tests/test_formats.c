/* test_formats.c - the readers agree (src/formats/formats.c, src/formats/llama2.c,
 * src/formats/hfcheckpoint.c): one llama2.c model written again here as a Hugging
 * Face Llama checkpoint (config.json and model.safetensors, the converter
 * below, written from the two formats' layouts and not from the readers)
 * gives the same attention and logits through both readers and the one
 * engine, within 1e-6.
 *
 * The conversion is Hugging Face's own (convert_llama_weights_to_hf.py):
 * llama2.c turns the pairs (2i, 2i + 1) of a head by RoPE, Hugging Face the
 * pairs (i, i + head_dim/2), so the rows of W_q and W_k are permuted: row
 * h*hs + j*(hs/2) + i of the Hugging Face matrix is row h*hs + 2i + j of
 * llama2.c's. The queries, keys and values of the first layer are then the
 * same numbers (q and k in another order: checked bit for bit); a score is
 * the same sum in another order, so the first layer's weights and outputs
 * and the logits (of the largest) may differ in the last bits, by at most
 * 1e-6; every later layer starts from inputs that differ that much, so
 * its numbers within 1e-5.
 *
 * Models: a synthetic one (GQA, tied and untied classifier) with a
 * tokenizer.bin built here, always; stories260K with tok512.bin when
 * ../shared/models has them (else "skipped"). Both folders are read with
 * the same tokenizer file (--vocab of any format, formats.h). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

#include "formats.h"
#include "llama2.h"
#include "models.h"
#include "readfile.h"
#include "source_trained.h"

static char tmpdir[64];

static int setup(void **state) {
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/attnviz-formats-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

// ---------------------------------------------------------------------------
// files written here

static void write_bytes(const char *path, const void *p, size_t n) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(p, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

static void put_i32(FILE *f, int32_t v) { assert_int_equal(fwrite(&v, sizeof v, 1, f), 1); }

/* A llama2.c tokenizer.bin: <unk>, <s>, </s>, the 256 byte pieces, then a
 * few pieces and merges of "a", "b", "c" and the space: 268 ids. */
static int write_tokbin(const char *path) {
    static const char *const more[] = {" ", "a", "b", "c", " a", " b", "ab", "ba", "abc"};
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    put_i32(f, 8);
    int n = 0;
    for (int id = 0; id < 259 + 9; id++, n++) {
        char piece[16];
        if (id == 0) snprintf(piece, sizeof piece, "<unk>");
        else if (id == 1) snprintf(piece, sizeof piece, "\n<s>\n");
        else if (id == 2) snprintf(piece, sizeof piece, "\n</s>\n");
        else if (id < 259) snprintf(piece, sizeof piece, "<0x%02X>", id - 3);
        else snprintf(piece, sizeof piece, "%s", more[id - 259]);
        float score = id < 259 ? 0.0f : -(float)(id - 259);
        int32_t len = (int32_t)strlen(piece);
        assert_int_equal(fwrite(&score, sizeof score, 1, f), 1);
        put_i32(f, len);
        assert_int_equal(fwrite(piece, 1, (size_t)len, f), (size_t)len);
    }
    assert_int_equal(fclose(f), 0);
    return n;
}

/* The seven header fields of llama2.c (vocab negative: a separate classifier). */
typedef struct {
    int dim, hidden, layers, heads, kv_heads, vocab, seq;
} Shape;

static float lcg(uint64_t *s) { /* in [-0.5, 0.5) */
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((*s >> 40) & 0xFFFFFF) / 16777216.0f - 0.5f;
}

/* A llama2.c checkpoint of shape s, seeded: its header, then the tensors
 * in run.c's order. */
static void write_llama2(const char *path, Shape s, uint64_t seed) {
    int V = s.vocab < 0 ? -s.vocab : s.vocab, hs = s.dim / s.heads, kv = s.kv_heads * hs;
    size_t L = (size_t)s.layers, d = (size_t)s.dim, h = (size_t)s.hidden;
    struct {
        size_t n;
        float scale, base;
    } t[] = {
        {V * d, 1.0f, 0},
        {L * d, 0.5f, 1},
        {L * d * d, 0.5f, 0},
        {L * kv * d, 0.5f, 0},
        {L * kv * d, 0.5f, 0},
        {L * d * d, 0.5f, 0},
        {L * d, 0.5f, 1},
        {L * h * d, 0.5f, 0},
        {L * d * h, 0.5f, 0},
        {L * h * d, 0.5f, 0},
        {d, 0.5f, 1},
        {(size_t)s.seq * hs / 2, 0, 0},
        {(size_t)s.seq * hs / 2, 0, 0},
        {s.vocab < 0 ? V * d : 0, 1.0f, 0},
    };
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    int32_t hdr[7] = {s.dim, s.hidden, s.layers, s.heads, s.kv_heads, s.vocab, s.seq};
    assert_int_equal(fwrite(hdr, sizeof hdr, 1, f), 1);
    uint64_t rng = seed;
    for (size_t k = 0; k < sizeof t / sizeof *t; k++)
        for (size_t i = 0; i < t[k].n; i++) {
            float v = t[k].base + t[k].scale * lcg(&rng);
            assert_int_equal(fwrite(&v, sizeof v, 1, f), 1);
        }
    assert_int_equal(fclose(f), 0);
}

/* One tensor of a safetensors file: its name, shape and F32 values. */
typedef struct {
    char name[96];
    int ndim;
    size_t shape[2];
    const float *data;
    float *owned; /* a permuted copy, or NULL */
} StOut;

static size_t st_count_of(const StOut *t) { return t->shape[0] * (t->ndim == 2 ? t->shape[1] : 1); }

/* dir/model.safetensors of t[0..n): the header (JSON, padded with spaces
 * to a multiple of 8), then every tensor's little-endian floats. */
static void write_safetensors(const char *dir, const StOut *t, int n) {
    size_t cap = 1 << 16, len = 0, at = 0;
    char *hdr = malloc(cap);
    assert_non_null(hdr);
    len += (size_t)snprintf(hdr + len, cap - len, "{");
    for (int i = 0; i < n; i++) {
        size_t bytes = st_count_of(&t[i]) * 4;
        char shape[64];
        if (t[i].ndim == 1) snprintf(shape, sizeof shape, "[%zu]", t[i].shape[0]);
        else snprintf(shape, sizeof shape, "[%zu,%zu]", t[i].shape[0], t[i].shape[1]);
        len += (size_t)snprintf(hdr + len, cap - len,
                                "%s\"%s\":{\"dtype\":\"F32\",\"shape\":%s,\"data_offsets\":[%zu,%zu]}", i ? "," : "",
                                t[i].name, shape, at, at + bytes);
        at += bytes;
        assert_true(len < cap - 256);
    }
    len += (size_t)snprintf(hdr + len, cap - len, "}");
    while (len % 8) hdr[len++] = ' ';
    char path[512];
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    uint64_t n8 = len;
    assert_int_equal(fwrite(&n8, 8, 1, f), 1);
    assert_int_equal(fwrite(hdr, 1, len, f), len);
    for (int i = 0; i < n; i++) assert_int_equal(fwrite(t[i].data, 4, st_count_of(&t[i]), f), st_count_of(&t[i]));
    assert_int_equal(fclose(f), 0);
    free(hdr);
}

/* Rows of w (heads * hs, cols) from llama2.c's RoPE pairs to Hugging
 * Face's: row h*hs + j*(hs/2) + i is w's row h*hs + 2i + j. */
static float *permute_rows(const float *w, int heads, int hs, int cols) {
    float *out = malloc(sizeof(float) * (size_t)heads * hs * cols);
    assert_non_null(out);
    for (int h = 0; h < heads; h++)
        for (int j = 0; j < 2; j++)
            for (int i = 0; i < hs / 2; i++)
                memcpy(out + ((size_t)h * hs + j * (hs / 2) + i) * cols, w + ((size_t)h * hs + 2 * i + j) * cols,
                       sizeof(float) * cols);
    return out;
}

/* The llama2.c checkpoint at bin written as a Hugging Face Llama folder
 * dir (config.json, model.safetensors), the pairing converted. */
static void convert_to_hf(const char *bin, const char *dir) {
    char *buf = NULL;
    size_t size = 0;
    AvError err = {0};
    if (av_read_file(bin, (size_t)1 << 30, &buf, &size, &err)) fail_msg("%s", err.msg);
    int32_t hdr[7];
    memcpy(hdr, buf, sizeof hdr);
    int D = hdr[0], H = hdr[1], L = hdr[2], NH = hdr[3], NKV = hdr[4], V = hdr[5] < 0 ? -hdr[5] : hdr[5], S = hdr[6];
    int tied = hdr[5] > 0, hs = D / NH, KV = NKV * hs;
    const float *p = (const float *)(const void *)(buf + 28);
    const float *embed = p, *rms_att = embed + (size_t)V * D, *wq = rms_att + (size_t)L * D;
    const float *wk = wq + (size_t)L * D * D, *wv = wk + (size_t)L * KV * D, *wo = wv + (size_t)L * KV * D;
    const float *rms_ffn = wo + (size_t)L * D * D, *w1 = rms_ffn + (size_t)L * D, *w2 = w1 + (size_t)L * H * D;
    const float *w3 = w2 + (size_t)L * D * H, *rms_final = w3 + (size_t)L * H * D;
    const float *cls = rms_final + D + (size_t)S * hs; /* after rope_cos and rope_sin */
    StOut *t = calloc((size_t)(4 + 9 * L), sizeof *t);
    assert_non_null(t);
    int n = 0;
#define ADD(nm, nd, d0, d1, ptr)                                                                                       \
    do {                                                                                                               \
        snprintf(t[n].name, sizeof t[n].name, "%s", nm);                                                               \
        t[n].ndim = nd, t[n].shape[0] = (size_t)(d0), t[n].shape[1] = (size_t)(d1), t[n].data = ptr;                   \
        n++;                                                                                                           \
    } while (0)
    ADD("model.embed_tokens.weight", 2, V, D, embed);
    ADD("model.norm.weight", 1, D, 0, rms_final);
    if (!tied) ADD("lm_head.weight", 2, V, D, cls);
    for (int l = 0; l < L; l++) {
        char nm[96];
#define LAYER(part, nd, d0, d1, ptr)                                                                                   \
    do {                                                                                                               \
        snprintf(nm, sizeof nm, "model.layers.%d.%s", l, part);                                                        \
        ADD(nm, nd, d0, d1, ptr);                                                                                      \
    } while (0)
        LAYER("input_layernorm.weight", 1, D, 0, rms_att + (size_t)l * D);
        t[n].owned = permute_rows(wq + (size_t)l * D * D, NH, hs, D);
        LAYER("self_attn.q_proj.weight", 2, D, D, t[n].owned);
        t[n].owned = permute_rows(wk + (size_t)l * KV * D, NKV, hs, D);
        LAYER("self_attn.k_proj.weight", 2, KV, D, t[n].owned);
        LAYER("self_attn.v_proj.weight", 2, KV, D, wv + (size_t)l * KV * D);
        LAYER("self_attn.o_proj.weight", 2, D, D, wo + (size_t)l * D * D);
        LAYER("post_attention_layernorm.weight", 1, D, 0, rms_ffn + (size_t)l * D);
        LAYER("mlp.gate_proj.weight", 2, H, D, w1 + (size_t)l * H * D);
        LAYER("mlp.up_proj.weight", 2, H, D, w3 + (size_t)l * H * D);
        LAYER("mlp.down_proj.weight", 2, D, H, w2 + (size_t)l * D * H);
#undef LAYER
    }
#undef ADD
    mkdir(dir, 0755);
    write_safetensors(dir, t, n);
    char cfg[1024], path[512];
    int len = snprintf(cfg, sizeof cfg,
                       "{\"architectures\": [\"LlamaForCausalLM\"], \"model_type\": \"llama\", \"hidden_size\": %d, "
                       "\"intermediate_size\": %d, \"num_hidden_layers\": %d, \"num_attention_heads\": %d, "
                       "\"num_key_value_heads\": %d, \"vocab_size\": %d, \"max_position_embeddings\": %d, "
                       "\"rms_norm_eps\": 1e-05, \"rope_theta\": 10000.0, \"hidden_act\": \"silu\", "
                       "\"tie_word_embeddings\": %s}\n",
                       D, H, L, NH, NKV, V, S, tied ? "true" : "false");
    snprintf(path, sizeof path, "%s/config.json", dir);
    write_bytes(path, cfg, (size_t)len);
    for (int i = 0; i < n; i++) free(t[i].owned);
    free(t);
    free(buf);
}

// ---------------------------------------------------------------------------
// the comparison

static Model *open_on(const char *path, const char *vocab, const char *text) {
    Model *m = model_new();
    assert_non_null(m);
    AvError err = {0};
    if (model_set_trained(m, path, vocab, text, strlen(text), &err)) fail_msg("%s: %s", path, err.msg);
    ModelConfig c = m->cfg;
    c.mask = MASK_CAUSAL;
    if (model_set_config(m, &c, &err)) fail_msg("%s", err.msg);
    model_want_next(m, m->n_q - 1);
    if (model_update(m, &err)) fail_msg("%s", err.msg);
    assert_true(model_next_ready(m, m->n_q - 1));
    return m;
}

/* The largest |a - b| over n floats, and the largest |b| in *scale. */
static double max_diff(const float *a, const float *b, size_t n, double *scale) {
    double worst = 0, big = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - b[i]);
        if (d > worst) worst = d;
        if (fabs((double)b[i]) > big) big = fabs((double)b[i]);
    }
    if (scale) *scale = big;
    return worst;
}

/* The llama2.c checkpoint at bin and its Hugging Face folder (written
 * here) on text, read with the tokenizer vocab: the same rows; every
 * layer's and head's q and k (Hugging Face's pairing undone) and v bit for
 * bit; the attention weights and the heads' outputs within 1e-6; the last
 * row's logits within 1e-6 of the largest, and the same likeliest tokens. */
static void assert_readers_agree(const char *bin, const char *vocab, const char *dir, const char *text) {
    convert_to_hf(bin, dir);
    Model *a = open_on(bin, vocab, text), *b = open_on(dir, vocab, text);
    const TrainedInfo *ia = model_trained(a), *ib = model_trained(b);
    assert_string_equal(ia->arch, "llama2.c");
    assert_string_equal(ib->arch, "llama");
    assert_int_equal(ia->rope, ROPE_PAIRS);
    assert_int_equal(ib->rope, ROPE_HALF);
    assert_int_equal(a->n_q, b->n_q);
    assert_true(a->n_q > 1);
    for (int j = 0; j < a->n_k; j++) assert_int_equal(model_key_id(a, j), model_key_id(b, j));
    assert_int_equal(a->cfg.layers, b->cfg.layers);
    assert_int_equal(a->cfg.heads, b->cfg.heads);
    int n = a->n_q, hs = a->cfg.d_k;
    size_t nh = (size_t)n * hs;
    float *qb = malloc(sizeof(float) * nh), *kb = malloc(sizeof(float) * nh);
    assert_non_null(qb);
    assert_non_null(kb);
    double worst_qkv = 0, worst_w = 0, worst_o = 0, first = 0;
    for (int l = 0; l < a->cfg.layers; l++)
        for (int h = 0; h < a->cfg.heads; h++) {
            const HeadData *x = &model_layer_heads(a, l)[h], *y = &model_layer_heads(b, l)[h];
            /* Hugging Face's q and k in llama2.c's order */
            for (int i = 0; i < n; i++)
                for (int j = 0; j < 2; j++)
                    for (int p = 0; p < hs / 2; p++) {
                        size_t pa = (size_t)i * hs + 2 * p + j, pb = (size_t)i * hs + j * (hs / 2) + p;
                        qb[pa] = y->q[pb], kb[pa] = y->k[pb];
                    }
            if (l == 0) { /* from the same embeddings: the same numbers */
                assert_memory_equal(x->q, qb, sizeof(float) * nh);
                assert_memory_equal(x->k, kb, sizeof(float) * nh);
                assert_memory_equal(x->v, y->v, sizeof(float) * nh);
            }
            double big, d;
            const float *mine[3] = {x->q, x->k, x->v}, *theirs[3] = {qb, kb, y->v};
            for (int t = 0; t < 3; t++) {
                d = max_diff(mine[t], theirs[t], nh, &big) / (big > 1 ? big : 1);
                if (d > worst_qkv) worst_qkv = d;
            }
            d = max_diff(x->weights, y->weights, (size_t)n * n, NULL);
            if (d > worst_w) worst_w = d;
            d = max_diff(x->out, y->out, nh, &big) / (big > 1 ? big : 1);
            if (d > worst_o) worst_o = d;
            if (l == 0) first = worst_w > worst_o ? worst_w : worst_o;
        }
    free(qb), free(kb);
    double big, dl = max_diff(model_trained_run(a)->logits, model_trained_run(b)->logits, (size_t)ia->vocab, &big);
    print_message("%s: %d layers x %d heads, %d tokens: the first layer's weights and outputs within %.2g; every "
                  "layer's q k v %.2g, weights %.2g, outputs %.2g; logits %.2g of %.3g\n",
                  bin, a->cfg.layers, a->cfg.heads, n, first, worst_qkv, worst_w, worst_o, dl, big);
    assert_true(first <= 1e-6);
    assert_true(dl <= 1e-6 * (big > 1 ? big : 1));
    /* later layers start from inputs that differ by the rounding of the
     * layers before: a few float32 ulps, compounded (2.9e-6 measured on
     * stories260K's 22 tokens) */
    assert_true(worst_qkv <= 1e-5);
    assert_true(worst_w <= 1e-5);
    assert_true(worst_o <= 1e-5);
    int ids[2][10];
    double probs[2][10];
    const char *pieces[10];
    size_t lens[10];
    int ga = a->src->next_tokens(a, n - 1, 10, ids[0], probs[0], pieces, lens);
    int gb = b->src->next_tokens(b, n - 1, 10, ids[1], probs[1], pieces, lens);
    assert_int_equal(ga, 10);
    assert_int_equal(gb, 10);
    for (int k = 0; k < 10; k++) assert_near(probs[0][k], probs[1][k], 1e-6);
    assert_int_equal(ids[0][0], ids[1][0]);
    model_free(a);
    model_free(b);
}

// ---------------------------------------------------------------------------
// tests

/* The one place that says what a path is. */
static void test_format_of(void **state) {
    (void)state;
    assert_string_equal(format_of(tmpdir)->name, "hf");
    assert_string_equal(format_of("m/model.safetensors")->name, "hf");
    assert_string_equal(format_of("m/model.safetensors.index.json")->name, "hf");
    assert_string_equal(format_of("m/config.json")->name, "hf");
    assert_string_equal(format_of("stories260K.bin")->name, "llama2.c");
    assert_string_equal(format_of("no-such-file")->name, "llama2.c");
    Checkpoint c;
    AvError err = {0};
    assert_int_equal(checkpoint_open(&c, "/nonexistent/model.bin", NULL, &err), -1);
    assert_null(c.model);
    assert_non_null(strstr(err.msg, "model.bin"));
    assert_null(vocab_open_file("/nonexistent/tokenizer.json", &err));
    assert_non_null(strstr(err.msg, "tokenizer.json"));
}

static void test_synthetic_both_readers(void **state) {
    (void)state;
    char tok[256], bin[256], dir[256];
    snprintf(tok, sizeof tok, "%s/tok.bin", tmpdir);
    int V = write_tokbin(tok);
    /* grouped-query attention; tied, then a separate classifier */
    const Shape shapes[] = {{32, 48, 3, 4, 2, V, 64}, {24, 40, 2, 3, 1, -V, 32}};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        snprintf(bin, sizeof bin, "%s/m%zu.bin", tmpdir, s);
        snprintf(dir, sizeof dir, "%s/hf%zu", tmpdir, s);
        write_llama2(bin, shapes[s], 1000 + s);
        assert_readers_agree(bin, tok, dir, "abc ab cab bac abcabc b a c");
    }
}

static void test_stories260k_both_readers(void **state) {
    (void)state;
    char bin[512], tok[512], dir[256];
    if (!models_path(bin, sizeof bin, "stories260K.bin") || !models_path(tok, sizeof tok, "tok512.bin")) return;
    snprintf(dir, sizeof dir, "%s/stories260K-hf", tmpdir);
    assert_readers_agree(bin, tok, dir, "Lily saw a cat. Lily was happy and she said hello to the cat. Lily");
}

/* A row's fields drive the one forward: the same checkpoint under a row
 * with an embedding scale (Gemma's sqrt(dim)) starts from scaled rows, and
 * under the half-split pairing its queries turn other pairs. */
static void test_row_fields(void **state) {
    (void)state;
    char bin[256];
    snprintf(bin, sizeof bin, "%s/fields.bin", tmpdir);
    write_llama2(bin, (Shape){16, 24, 1, 2, 2, 40, 8}, 7);
    AvError err = {0};
    TfModel *m = llama2_open(bin, &err);
    if (!m) fail_msg("%s", err.msg);
    const int ids[3] = {5, 9, 5};
    TfRun *r = tf_run_new(m, 3, 0, &err);
    assert_non_null(r);
    assert_int_equal(tf_embed(r, ids, 3, &err), 0);
    float plain[3 * 16];
    memcpy(plain, tf_run_x(r, 0), sizeof plain);
    assert_int_equal(tf_layer_qkv(r, 0), 0);
    float q_pairs[3 * 16];
    memcpy(q_pairs, tf_run_q(r, 0), sizeof q_pairs);
    TfArch row = *m->cfg.arch;
    row.embed_scale = 4.0, row.rope = ROPE_HALF;
    m->cfg.arch = &row;
    assert_int_equal(tf_embed(r, ids, 3, &err), 0);
    for (int i = 0; i < 3 * 16; i++) assert_true(tf_run_x(r, 0)[i] == 4.0f * plain[i]);
    row.embed_scale = 1.0;
    assert_int_equal(tf_embed(r, ids, 3, &err), 0);
    assert_int_equal(tf_layer_qkv(r, 0), 0);
    /* position 0 turns nothing; position 1 turns (0, 4) instead of (0, 1) */
    assert_memory_equal(tf_run_q(r, 0), q_pairs, sizeof(float) * 16);
    const float *qr = r->q_raw + 16, *qh = tf_run_q(r, 0) + 16;
    double c = cos(1.0), sn = sin(1.0);
    assert_near(qh[0], qr[0] * c - qr[4] * sn, 1e-6);
    assert_near(qh[4], qr[4] * c + qr[0] * sn, 1e-6);
    assert_true(memcmp(qh, q_pairs + 16, sizeof(float) * 16) != 0);
    tf_run_free(r);
    tf_close(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format_of),
        cmocka_unit_test(test_row_fields),
        cmocka_unit_test(test_synthetic_both_readers),
        cmocka_unit_test(test_stories260k_both_readers),
    };
    return cmocka_run_group_tests_name("formats", tests, setup, teardown);
}
