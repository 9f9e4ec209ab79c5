/* test_hfmodel.c - cmocka tests of Hugging Face checkpoints (src/formats/hfcheckpoint.c)
 * through the engine (src/engine/transformer.c).
 *
 * With python3 and NumPy: tests/verify_hf.py writes tiny checkpoints of
 * every architecture (GPT-2, Llama, Qwen2, Mistral, Qwen3; Llama 3's and
 * linear rope_scaling; F32, F16, BF16; tied and untied; with and without
 * biases; one sharded, one with unaligned data), the
 * forward pass runs here, and the script compares every layer's input, q, k,
 * v and attention weights, and the logits, with its own NumPy forward to
 * 1e-4. Without NumPy that test prints "skipped: ..." and passes. The rest
 * builds its checkpoints here: every refusal is one line naming the file
 * and what was wrong; a BF16 model's run allocates nothing in proportion to
 * its weights; the thread count changes no bit. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hfcheckpoint.h"
#include "matrix.h"
#include "nnops.h"
#include "parallel.h"
#include "need.h"

// ---------------------------------------------------------------------------
// checkpoints written here

typedef struct {
    char name[96];
    int ndim;
    int shape[2];
} Spec;

typedef struct {
    Spec t[64];
    int n;
} Specs;

static void spec_add(Specs *s, const char *name, int ndim, int d0, int d1) {
    assert_true(s->n < 64);
    Spec *t = &s->t[s->n++];
    snprintf(t->name, sizeof t->name, "%s", name);
    t->ndim = ndim, t->shape[0] = d0, t->shape[1] = d1;
}

static void spec_drop(Specs *s, const char *name) {
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->t[i].name, name) == 0) {
            s->t[i] = s->t[--s->n];
            return;
        }
    fail_msg("no tensor %s", name);
}

static Spec *spec_get(Specs *s, const char *name) {
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->t[i].name, name) == 0) return &s->t[i];
    fail_msg("no tensor %s", name);
    return NULL;
}

static size_t spec_count(const Spec *t) { return (size_t)t->shape[0] * (t->ndim == 2 ? (size_t)t->shape[1] : 1); }

/* dir/model.safetensors with the tensors of s, F32 or BF16 (bf16 != 0),
 * values small and deterministic. Returns the bytes of weights written. */
static size_t write_st(const char *dir, const Specs *s, int bf16) {
    char path[512], *header = malloc(65536);
    assert_non_null(header);
    size_t at = 0, esize = bf16 ? 2 : 4;
    int len = snprintf(header, 65536, "{");
    for (int i = 0; i < s->n; i++) {
        const Spec *t = &s->t[i];
        size_t bytes = spec_count(t) * esize;
        char shape[48];
        if (t->ndim == 1) snprintf(shape, sizeof shape, "[%d]", t->shape[0]);
        else snprintf(shape, sizeof shape, "[%d,%d]", t->shape[0], t->shape[1]);
        len += snprintf(header + len, 65536 - (size_t)len,
                        "%s\"%s\":{\"dtype\":\"%s\",\"shape\":%s,\"data_offsets\":[%zu,%zu]}", i ? "," : "", t->name,
                        bf16 ? "BF16" : "F32", shape, at, at + bytes);
        at += bytes;
    }
    len += snprintf(header + len, 65536 - (size_t)len, "}");
    assert_true(len < 65536);
    while (len % 8) header[len++] = ' ';
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    unsigned char n8[8];
    for (int i = 0; i < 8; i++) n8[i] = (unsigned char)((uint64_t)len >> (8 * i));
    assert_int_equal(fwrite(n8, 1, 8, f), 8);
    assert_int_equal(fwrite(header, 1, (size_t)len, f), (size_t)len);
    uint32_t state = 12345u;
    for (size_t i = 0; i < at / esize; i++) {
        state = state * 1664525u + 1013904223u;
        float v = ((float)(state >> 8) / 16777216.0f - 0.5f) * 0.5f;
        uint32_t bits;
        memcpy(&bits, &v, 4);
        unsigned char b[4] = {(unsigned char)bits, (unsigned char)(bits >> 8), (unsigned char)(bits >> 16),
                              (unsigned char)(bits >> 24)};
        assert_int_equal(fwrite(bf16 ? b + 2 : b, 1, esize, f), esize);
    }
    fclose(f);
    free(header);
    return at;
}

static void write_text(const char *dir, const char *file, const char *text) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static const char GPT2_CONFIG[] = "{\"model_type\": \"gpt2\", \"n_embd\": 16, \"n_layer\": 2, \"n_head\": 4, "
                                  "\"vocab_size\": 40, \"n_positions\": 16}";

static Specs gpt2_specs(void) {
    Specs s = {0};
    int d = 16, hid = 64;
    spec_add(&s, "wte.weight", 2, 40, d);
    spec_add(&s, "wpe.weight", 2, 16, d);
    spec_add(&s, "ln_f.weight", 1, d, 0);
    spec_add(&s, "ln_f.bias", 1, d, 0);
    for (int l = 0; l < 2; l++) {
        char n[96];
#define ADD(part, nd, a, b) (snprintf(n, sizeof n, "h.%d.%s", l, part), spec_add(&s, n, nd, a, b))
        ADD("ln_1.weight", 1, d, 0);
        ADD("ln_1.bias", 1, d, 0);
        ADD("attn.c_attn.weight", 2, d, 3 * d);
        ADD("attn.c_attn.bias", 1, 3 * d, 0);
        ADD("attn.c_proj.weight", 2, d, d);
        ADD("attn.c_proj.bias", 1, d, 0);
        ADD("ln_2.weight", 1, d, 0);
        ADD("ln_2.bias", 1, d, 0);
        ADD("mlp.c_fc.weight", 2, d, hid);
        ADD("mlp.c_fc.bias", 1, hid, 0);
        ADD("mlp.c_proj.weight", 2, hid, d);
        ADD("mlp.c_proj.bias", 1, d, 0);
#undef ADD
    }
    return s;
}

/* An untied TfModel of vocab tokens, dim d, 2 layers, 4 heads over 2 K/V heads
 * (kv = d / 2), FFN hid. */
static Specs llama_specs_shaped(int vocab, int d, int hid) {
    Specs s = {0};
    int kv = d / 2;
    spec_add(&s, "model.embed_tokens.weight", 2, vocab, d);
    spec_add(&s, "lm_head.weight", 2, vocab, d);
    spec_add(&s, "model.norm.weight", 1, d, 0);
    for (int l = 0; l < 2; l++) {
        char n[96];
#define ADD(part, nd, a, b) (snprintf(n, sizeof n, "model.layers.%d.%s", l, part), spec_add(&s, n, nd, a, b))
        ADD("input_layernorm.weight", 1, d, 0);
        ADD("self_attn.q_proj.weight", 2, d, d);
        ADD("self_attn.k_proj.weight", 2, kv, d);
        ADD("self_attn.v_proj.weight", 2, kv, d);
        ADD("self_attn.o_proj.weight", 2, d, d);
        ADD("post_attention_layernorm.weight", 1, d, 0);
        ADD("mlp.gate_proj.weight", 2, hid, d);
        ADD("mlp.up_proj.weight", 2, hid, d);
        ADD("mlp.down_proj.weight", 2, d, hid);
#undef ADD
    }
    return s;
}

static Specs llama_specs(int vocab) { return llama_specs_shaped(vocab, 64, 128); }

static char *llama_config_shaped(int vocab, int d, int hid) {
    static char buf[512];
    snprintf(buf, sizeof buf,
             "{\"model_type\": \"llama\", \"hidden_size\": %d, \"intermediate_size\": %d, \"num_hidden_layers\": 2, "
             "\"num_attention_heads\": 4, \"num_key_value_heads\": 2, \"vocab_size\": %d, "
             "\"max_position_embeddings\": 64, \"tie_word_embeddings\": false}",
             d, hid, vocab);
    return buf;
}

static char *llama_config(int vocab) { return llama_config_shaped(vocab, 64, 128); }

/* A Qwen3 (q_norm, k_norm) of vocab tokens, width d, 2 layers of `heads`
 * query heads over `kv` key/value heads of hs each (heads x hs need not be
 * d), FFN hid, untied. */
static Specs qwen3_specs(int vocab, int d, int heads, int kv, int hs, int hid) {
    Specs s = llama_specs_shaped(vocab, d, hid);
    for (int l = 0; l < 2; l++) {
        char n[96];
#define SET(part, a, b)                                                                                                \
    (snprintf(n, sizeof n, "model.layers.%d.%s", l, part), spec_get(&s, n)->shape[0] = a, spec_get(&s, n)->shape[1] = b)
        SET("self_attn.q_proj.weight", heads * hs, d);
        SET("self_attn.k_proj.weight", kv * hs, d);
        SET("self_attn.v_proj.weight", kv * hs, d);
        SET("self_attn.o_proj.weight", d, heads * hs);
#undef SET
        snprintf(n, sizeof n, "model.layers.%d.self_attn.q_norm.weight", l);
        spec_add(&s, n, 1, hs, 0);
        snprintf(n, sizeof n, "model.layers.%d.self_attn.k_norm.weight", l);
        spec_add(&s, n, 1, hs, 0);
    }
    return s;
}

static char *qwen3_config(int vocab, int d, int heads, int kv, int hs, int hid) {
    static char buf[512];
    snprintf(buf, sizeof buf,
             "{\"model_type\": \"qwen3\", \"hidden_size\": %d, \"intermediate_size\": %d, \"num_hidden_layers\": 2, "
             "\"num_attention_heads\": %d, \"num_key_value_heads\": %d, \"head_dim\": %d, \"vocab_size\": %d, "
             "\"max_position_embeddings\": 64, \"tie_word_embeddings\": false}",
             d, hid, heads, kv, hs, vocab);
    return buf;
}

static void make_dir(char *dir) { assert_non_null(mkdtemp(dir)); }

static void clean_dir(const char *dir) {
    static const char *const files[] = {"config.json", "model.safetensors", "dump.f32"};
    char path[512];
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
}

/* hf_open must fail with one line containing every one of the NULL-ended parts. */
static void assert_refused(const char *dir, ...) {
    AvError err = {0};
    TfModel *m = hf_open(dir, &err);
    if (m) {
        tf_close(m);
        fail_msg("%s opened", dir);
    }
    assert_null(strchr(err.msg, '\n'));
    va_list ap;
    va_start(ap, dir);
    for (const char *part; (part = va_arg(ap, const char *)) != NULL;)
        if (!strstr(err.msg, part)) fail_msg("message \"%s\" lacks \"%s\"", err.msg, part);
    va_end(ap);
    printf("refused: %s\n", err.msg);
}

// ---------------------------------------------------------------------------
// tests

static void test_gpt2_opens_and_runs(void **state) {
    (void)state;
    char dir[] = "/tmp/attnviz-hf-XXXXXX";
    make_dir(dir);
    Specs s = gpt2_specs();
    write_st(dir, &s, 0);
    write_text(dir, "config.json", GPT2_CONFIG);
    AvError err = {0};
    TfModel *m = hf_open(dir, &err);
    if (!m) fail_msg("%s", err.msg);
    const TfConfig *c = &m->cfg;
    assert_string_equal(c->arch->name, "gpt2");
    assert_string_equal(c->model_type, "gpt2");
    assert_int_equal(c->dim, 16);
    assert_int_equal(c->hidden_dim, 64);
    assert_int_equal(c->head_dim, 4);
    assert_int_equal(c->max_pos, 16);
    assert_true(c->tied && c->qkv_bias && c->o_bias);
    assert_true(fabs(c->eps - 1e-5) < 1e-12);
    TfRun *r = tf_run_new(m, 16, 1, &err);
    assert_non_null(r);
    int ids[5] = {0, 39, 3, 3, 17};
    assert_int_equal(tf_forward(r, ids, 5, &err), 0);
    for (size_t i = 0; i < 5 * 40; i++) assert_true(isfinite(r->logits[i]));
    /* errors of a run: one line each */
    int bad[2] = {1, 40};
    assert_int_equal(tf_forward(r, bad, 2, &err), -1);
    assert_non_null(strstr(err.msg, "id 40 is not in the vocabulary of 40"));
    int many[17] = {0};
    assert_int_equal(tf_forward(r, many, 17, &err), -1);
    assert_null(tf_run_new(m, 17, 0, &err));
    assert_non_null(strstr(err.msg, "1 to 16"));
    tf_run_free(r);
    tf_close(m);
    tf_close(NULL);
    tf_run_free(NULL);
    clean_dir(dir);
}

/* The published config.json of the models the README names parse as their
 * papers say (the fields that matter, as the files have them). */
static void test_real_configs(void **state) {
    (void)state;
    static const char qwen[] =
        "{\"architectures\": [\"Qwen2ForCausalLM\"], \"model_type\": \"qwen2\", \"hidden_size\": 896, "
        "\"intermediate_size\": 4864, \"num_hidden_layers\": 24, \"num_attention_heads\": 14, "
        "\"num_key_value_heads\": 2, \"vocab_size\": 151936, \"max_position_embeddings\": 32768, "
        "\"rms_norm_eps\": 1e-06, \"rope_theta\": 1000000.0, \"sliding_window\": 32768, "
        "\"use_sliding_window\": false, \"tie_word_embeddings\": true, \"hidden_act\": \"silu\"}";
    static const char smol[] =
        "{\"model_type\": \"llama\", \"hidden_size\": 576, \"intermediate_size\": 1536, \"num_hidden_layers\": "
        "30, \"num_attention_heads\": 9, \"num_key_value_heads\": 3, \"vocab_size\": 49152, "
        "\"max_position_embeddings\": 8192, \"rms_norm_eps\": 1e-05, \"rope_theta\": 100000, \"rope_scaling\": "
        "null, \"tie_word_embeddings\": true, \"attention_bias\": false, \"mlp_bias\": false}";
    static const char gpt2[] = "{\"architectures\": [\"GPT2LMHeadModel\"], \"n_embd\": 768, \"n_layer\": 12, "
                               "\"n_head\": 12, \"n_ctx\": 1024, \"n_positions\": 1024, \"vocab_size\": 50257, "
                               "\"activation_function\": \"gelu_new\", \"n_inner\": null}";
    TfConfig c;
    AvError err = {0};
    assert_int_equal(hf_config_parse(&c, qwen, strlen(qwen), "qwen/config.json", &err), 0);
    assert_int_equal(c.arch->rope, ROPE_HALF);
    assert_string_equal(c.model_type, "qwen2");
    assert_int_equal(c.head_dim, 64);
    assert_int_equal(c.kv_dim, 128);
    assert_int_equal(c.max_pos, 32768);
    assert_true(c.tied && c.qkv_bias && !c.o_bias);
    assert_true(c.rope_theta == 1e6 && c.eps == 1e-6);
    assert_int_equal(hf_config_parse(&c, smol, strlen(smol), "smol/config.json", &err), 0);
    assert_int_equal(c.head_dim, 64);
    assert_int_equal(c.n_kv_heads, 3);
    assert_true(c.tied && !c.qkv_bias && c.rope_theta == 1e5);
    assert_int_equal(hf_config_parse(&c, gpt2, strlen(gpt2), "gpt2/config.json", &err), 0);
    assert_string_equal(c.model_type, "gpt2");
    assert_int_equal(c.hidden_dim, 3072);
    assert_int_equal(c.head_dim, 64);
    assert_true(c.eps == 1e-5 && c.tied);
    /* a window shorter than the context bounds the runs (Mistral) */
    static const char mistral[] = "{\"model_type\": \"mistral\", \"hidden_size\": 16, \"intermediate_size\": 8, "
                                  "\"num_hidden_layers\": 1, \"num_attention_heads\": 2, \"vocab_size\": 9, "
                                  "\"max_position_embeddings\": 32768, \"sliding_window\": 4096}";
    assert_int_equal(hf_config_parse(&c, mistral, strlen(mistral), "m/config.json", &err), 0);
    assert_int_equal(c.max_pos, 4096);
    /* Qwen2 uses its window only when use_sliding_window says so */
    static const char qwen_window[] = "{\"model_type\": \"qwen2\", \"hidden_size\": 16, \"intermediate_size\": 8, "
                                      "\"num_hidden_layers\": 1, \"num_attention_heads\": 2, \"vocab_size\": 9, "
                                      "\"max_position_embeddings\": 32768, \"sliding_window\": 4096}";
    assert_int_equal(hf_config_parse(&c, qwen_window, strlen(qwen_window), "q/config.json", &err), 0);
    assert_int_equal(c.max_pos, 32768);
    /* Qwen3-0.6B: q/k norm, 16 heads of 128 on a width of 1024 */
    static const char qwen3[] =
        "{\"architectures\": [\"Qwen3ForCausalLM\"], \"attention_bias\": false, \"head_dim\": 128, \"hidden_act\": "
        "\"silu\", \"hidden_size\": 1024, \"intermediate_size\": 3072, \"max_position_embeddings\": 40960, "
        "\"max_window_layers\": 28, \"model_type\": \"qwen3\", \"num_attention_heads\": 16, \"num_hidden_layers\": 28, "
        "\"num_key_value_heads\": 8, \"rms_norm_eps\": 1e-06, \"rope_scaling\": null, \"rope_theta\": 1000000, "
        "\"sliding_window\": null, \"tie_word_embeddings\": true, \"use_sliding_window\": false, \"vocab_size\": "
        "151936}";
    assert_int_equal(hf_config_parse(&c, qwen3, strlen(qwen3), "qwen3/config.json", &err), 0);
    assert_string_equal(c.model_type, "qwen3");
    assert_true(c.arch->qk_norm && c.arch->rope == ROPE_HALF);
    assert_int_equal(c.head_dim, 128);
    assert_int_equal(c.q_dim, 2048);
    assert_int_equal(c.kv_dim, 1024);
    assert_int_equal(c.max_pos, 40960);
    assert_true(c.tied && !c.qkv_bias && !c.o_bias && c.rope_theta == 1e6);
    assert_int_equal(c.rope_scaling.kind, ROPE_SCALE_NONE);
    /* Llama-3.2-1B: rope_scaling llama3 */
    static const char llama32[] =
        "{\"architectures\": [\"LlamaForCausalLM\"], \"attention_bias\": false, \"head_dim\": 64, \"hidden_size\": "
        "2048, \"intermediate_size\": 8192, \"max_position_embeddings\": 131072, \"mlp_bias\": false, \"model_type\": "
        "\"llama\", \"num_attention_heads\": 32, \"num_hidden_layers\": 16, \"num_key_value_heads\": 8, "
        "\"rms_norm_eps\": 1e-05, \"rope_scaling\": {\"factor\": 32.0, \"high_freq_factor\": 4.0, \"low_freq_factor\": "
        "1.0, \"original_max_position_embeddings\": 8192, \"rope_type\": \"llama3\"}, \"rope_theta\": 500000.0, "
        "\"tie_word_embeddings\": true, \"vocab_size\": 128256}";
    assert_int_equal(hf_config_parse(&c, llama32, strlen(llama32), "llama32/config.json", &err), 0);
    assert_int_equal(c.rope_scaling.kind, ROPE_SCALE_LLAMA3);
    assert_true(c.rope_scaling.factor == 32.0 && c.rope_scaling.low_freq_factor == 1.0 &&
                c.rope_scaling.high_freq_factor == 4.0 && c.rope_scaling.original_max_pos == 8192);
    assert_true(!c.arch->qk_norm && c.head_dim == 64 && c.rope_theta == 5e5);
    /* its frequencies by hand (python): pair 0 (wavelength 6.3) kept; pair
     * 16 (4443, between 8192 / 4 and 8192) smoothed, s = 0.2813; pair 20
     * (22911) divided by 32 */
    assert_true(rope_freq(c.rope_theta, c.head_dim, &c.rope_scaling, 0) == 1.0);
    assert_true(fabs(rope_freq(c.rope_theta, c.head_dim, &c.rope_scaling, 16) / 0.00042955679655936815 - 1) < 1e-12);
    assert_true(fabs(rope_freq(c.rope_theta, c.head_dim, &c.rope_scaling, 20) / 8.570255489881478e-06 - 1) < 1e-12);
    /* older files: "type"; transformers 5's rope_parameters holds rope_theta, its type "default" unless said */
    static const char older[] = "{\"model_type\": \"llama\", \"hidden_size\": 16, \"intermediate_size\": 8, "
                                "\"num_hidden_layers\": 1, \"num_attention_heads\": 2, \"vocab_size\": 9, "
                                "\"rope_scaling\": {\"type\": \"linear\", \"factor\": 2.0}}";
    assert_int_equal(hf_config_parse(&c, older, strlen(older), "o/config.json", &err), 0);
    assert_true(c.rope_scaling.kind == ROPE_SCALE_LINEAR && c.rope_scaling.factor == 2.0);
    assert_true(rope_freq(c.rope_theta, c.head_dim, &c.rope_scaling, 1) == pow(1e4, -2.0 / 8) / 2);
    static const char v5[] = "{\"model_type\": \"qwen3\", \"hidden_size\": 16, \"intermediate_size\": 8, "
                             "\"num_hidden_layers\": 1, \"num_attention_heads\": 2, \"vocab_size\": 9, "
                             "\"rope_theta\": 7.0, \"rope_parameters\": {\"rope_theta\": 1e6}}";
    assert_int_equal(hf_config_parse(&c, v5, strlen(v5), "v5/config.json", &err), 0);
    assert_true(c.rope_scaling.kind == ROPE_SCALE_NONE && c.rope_theta == 1e6 && c.head_dim == 128);
}

static void test_refusals(void **state) {
    (void)state;
    char dir[] = "/tmp/attnviz-hf-XXXXXX";
    make_dir(dir);
    /* no config.json */
    assert_refused(dir, "config.json", NULL);
    Specs s = gpt2_specs();
    write_st(dir, &s, 0);
    /* invalid JSON, not an object */
    write_text(dir, "config.json", "{\"model_type\": \"gpt2\", ");
    assert_refused(dir, "config.json: not valid JSON", NULL);
    write_text(dir, "config.json", "[1, 2]");
    assert_refused(dir, "config.json: not a JSON object", NULL);
    /* an unknown architecture, by type or by class name */
    write_text(dir, "config.json", "{\"model_type\": \"bert\", \"hidden_size\": 16}");
    assert_refused(dir, "model_type \"bert\" is not supported (gpt2, llama, qwen2, mistral, qwen3)", NULL);
    write_text(dir, "config.json", "{\"architectures\": [\"T5ForConditionalGeneration\"]}");
    assert_refused(dir, "architecture \"T5ForConditionalGeneration\" is not supported", NULL);
    write_text(dir, "config.json", "{\"vocab_size\": 3}");
    assert_refused(dir, "neither \"model_type\" nor \"architectures\"", NULL);
    /* fields missing or out of range, unsupported variants */
    write_text(dir, "config.json", "{\"model_type\": \"gpt2\", \"n_embd\": 16, \"n_layer\": 2, \"vocab_size\": 40}");
    assert_refused(dir, "\"n_head\" is missing", NULL);
    write_text(dir, "config.json",
               "{\"model_type\": \"gpt2\", \"n_embd\": 16, \"n_layer\": 2, \"n_head\": 3, \"vocab_size\": 40}");
    assert_refused(dir, "n_embd 16 is not a multiple of n_head 3", NULL);
    write_text(dir, "config.json",
               "{\"model_type\": \"gpt2\", \"n_embd\": 16.5, \"n_layer\": 2, \"n_head\": 4, \"vocab_size\": 40}");
    assert_refused(dir, "\"n_embd\" must be an integer", NULL);
    write_text(dir, "config.json",
               "{\"model_type\": \"gpt2\", \"n_embd\": 16, \"n_layer\": 2, \"n_head\": 4, \"vocab_size\": 40, "
               "\"activation_function\": \"relu\"}");
    assert_refused(dir, "\"activation_function\" relu is not supported", NULL);
    /* rope_scaling: the types HF computes that attnviz does not, and a key missing */
    static const struct {
        const char *scaling, *says;
    } ropes[] = {
        {"{\"rope_type\": \"llama3\"}", "config.json: \"rope_scaling\": \"factor\" is missing"},
        {"{\"rope_type\": \"llama3\", \"factor\": 8.0, \"low_freq_factor\": 1.0, \"high_freq_factor\": 4.0}",
         "config.json: \"rope_scaling\": \"original_max_position_embeddings\" is missing"},
        {"{\"rope_type\": \"llama3\", \"factor\": 8.0, \"low_freq_factor\": 4.0, \"high_freq_factor\": 4.0, "
         "\"original_max_position_embeddings\": 8192}",
         "\"high_freq_factor\" 4 must be greater than \"low_freq_factor\" 4"},
        {"{\"type\": \"linear\", \"factor\": 0.5}",
         "config.json: \"rope_scaling\": \"factor\" must be a number from 1"},
        {"{\"rope_type\": \"yarn\", \"factor\": 4.0}",
         "config.json: \"rope_scaling\": \"rope_type\" yarn is not supported (default, linear, llama3)"},
        {"{\"type\": \"dynamic\", \"factor\": 2.0}", "\"rope_scaling\": \"type\" dynamic is not supported"},
        {"{\"factor\": 2.0}", "config.json: \"rope_scaling\": \"rope_type\" is missing"},
        {"[1]", "config.json: \"rope_scaling\" must be an object or null"},
    };
    for (size_t i = 0; i < sizeof ropes / sizeof *ropes; i++) {
        char cfg[512];
        snprintf(cfg, sizeof cfg,
                 "{\"model_type\": \"llama\", \"hidden_size\": 64, \"intermediate_size\": 128, \"num_hidden_layers\": "
                 "2, \"num_attention_heads\": 4, \"vocab_size\": 40, \"rope_scaling\": %s}",
                 ropes[i].scaling);
        write_text(dir, "config.json", cfg);
        assert_refused(dir, ropes[i].says, NULL);
    }
    write_text(dir, "config.json",
               "{\"model_type\": \"llama\", \"hidden_size\": 64, \"intermediate_size\": 128, \"num_hidden_layers\": "
               "2, \"num_attention_heads\": 4, \"num_key_value_heads\": 3, \"vocab_size\": 40}");
    assert_refused(dir, "num_attention_heads 4 is not a multiple of num_key_value_heads 3", NULL);
    /* a tensor missing */
    write_text(dir, "config.json", GPT2_CONFIG);
    spec_drop(&s, "h.1.ln_2.bias");
    write_st(dir, &s, 0);
    assert_refused(dir, "/model.safetensors: tensor h.1.ln_2.bias is missing", NULL);
    /* a shape the config does not imply */
    s = gpt2_specs();
    spec_get(&s, "h.0.attn.c_attn.weight")->shape[1] = 40;
    write_st(dir, &s, 0);
    assert_refused(dir, "/model.safetensors: tensor h.0.attn.c_attn.weight: shape [16, 40], expected [16, 48]", NULL);
    s = gpt2_specs();
    spec_get(&s, "wpe.weight")->shape[0] = 8; /* fewer positions than n_positions */
    write_st(dir, &s, 0);
    assert_refused(dir, "tensor wpe.weight: shape [8, 16], expected [16, 16]", NULL);
    /* a config that disagrees with the tensors: more layers than there are */
    write_text(dir, "config.json",
               "{\"model_type\": \"gpt2\", \"n_embd\": 16, \"n_layer\": 3, \"n_head\": 4, \"vocab_size\": 40, "
               "\"n_positions\": 16}");
    s = gpt2_specs();
    write_st(dir, &s, 0);
    assert_refused(dir, "tensor h.2.ln_1.weight is missing (gpt2 with 3 layers needs it)", NULL);
    /* TfModel: lm_head needed when untied; a Qwen2 needs q/k/v biases */
    s = llama_specs(50);
    spec_drop(&s, "lm_head.weight");
    write_st(dir, &s, 0);
    write_text(dir, "config.json", llama_config(50));
    assert_refused(dir, "tensor lm_head.weight is missing", NULL);
    s = llama_specs(50);
    write_st(dir, &s, 0);
    char qwen[512];
    snprintf(qwen, sizeof qwen, "{\"model_type\": \"qwen2\"%s", strchr(llama_config(50), ','));
    write_text(dir, "config.json", qwen);
    assert_refused(dir, "tensor model.layers.0.self_attn.q_proj.bias is missing (qwen2 with 2 layers needs it)", NULL);
    s = llama_specs(50);
    spec_get(&s, "model.layers.1.self_attn.k_proj.weight")->shape[0] = 64; /* as if not grouped */
    write_st(dir, &s, 0);
    write_text(dir, "config.json", llama_config(50));
    assert_refused(dir, "tensor model.layers.1.self_attn.k_proj.weight: shape [64, 64], expected [32, 64]", NULL);
    /* Qwen3: q_norm and k_norm needed, of head_dim */
    s = qwen3_specs(50, 48, 4, 2, 32, 64);
    spec_drop(&s, "model.layers.1.self_attn.k_norm.weight");
    write_st(dir, &s, 0);
    write_text(dir, "config.json", qwen3_config(50, 48, 4, 2, 32, 64));
    assert_refused(dir, "tensor model.layers.1.self_attn.k_norm.weight is missing (qwen3 with 2 layers needs it)",
                   NULL);
    s = qwen3_specs(50, 48, 4, 2, 32, 64);
    spec_get(&s, "model.layers.0.self_attn.q_norm.weight")->shape[0] = 48; /* the width, not a head's */
    write_st(dir, &s, 0);
    assert_refused(dir, "tensor model.layers.0.self_attn.q_norm.weight: shape [48], expected [32] (from config.json)",
                   NULL);
    clean_dir(dir);
}

/* A BF16 model's memory is its mapping: the run and the model's own
 * allocations do not grow with the weights (here: the vocabulary, 8x). */
static void test_bf16_memory_bounded(void **state) {
    (void)state;
    size_t heap[2], run[2], weights[2];
    int vocabs[2] = {512, 4096}, cap = 8;
    for (int i = 0; i < 2; i++) {
        char dir[] = "/tmp/attnviz-hf-XXXXXX";
        make_dir(dir);
        Specs s = llama_specs(vocabs[i]);
        weights[i] = write_st(dir, &s, 1);
        write_text(dir, "config.json", llama_config(vocabs[i]));
        AvError err = {0};
        TfModel *m = hf_open(dir, &err);
        if (!m) fail_msg("%s", err.msg);
        TfRun *r = tf_run_new(m, cap, 0, &err);
        assert_non_null(r);
        int ids[8] = {1, 2, 3, 500, 4, 5, 6, 7};
        assert_int_equal(tf_forward(r, ids, 8, &err), 0);
        for (int v = 0; v < vocabs[i]; v++) assert_true(isfinite(r->logits[v]));
        heap[i] = tf_heap_bytes(m), run[i] = r->bytes;
        printf("bf16 vocab %d: weights %zu bytes mapped (%zu as floats); model heap %zu, run %zu bytes\n", vocabs[i],
               weights[i], weights[i] * 2, heap[i], run[i]);
        tf_run_free(r);
        tf_close(m);
        clean_dir(dir);
    }
    /* the model converts only its vectors, the same for both */
    assert_int_equal(heap[0], heap[1]);
    /* the run grows by the last row's logits only (plus alignment) */
    assert_true(run[1] - run[0] <= sizeof(float) * (size_t)(vocabs[1] - vocabs[0]) + 64);
    /* and is far below a float copy of the weights */
    assert_true(heap[1] + run[1] < weights[1] * 2 / 4);
}

/* 1 and 3 threads, whole and layer by layer: the same bits. */
static void test_threads_same_bits(void **state) {
    (void)state;
    char dir[] = "/tmp/attnviz-hf-XXXXXX";
    make_dir(dir);
    Specs s = llama_specs(300);
    write_st(dir, &s, 1);
    write_text(dir, "config.json", llama_config(300));
    AvError err = {0};
    TfModel *m = hf_open(dir, &err);
    if (!m) fail_msg("%s", err.msg);
    int ids[20];
    for (int i = 0; i < 20; i++) ids[i] = (i * 37 + 11) % 300;
    float *first = NULL;
    size_t nlog = (size_t)20 * 300;
    int threads[2] = {1, 3};
    for (int t = 0; t < 2; t++) {
        par_set_threads(threads[t]);
        TfRun *r = tf_run_new(m, 20, 1, &err);
        assert_non_null(r);
        if (t == 0) {
            assert_int_equal(tf_forward(r, ids, 20, &err), 0);
            first = malloc(sizeof(float) * nlog);
            assert_non_null(first);
            memcpy(first, r->logits, sizeof(float) * nlog);
        } else {
            assert_int_equal(tf_embed(r, ids, 20, &err), 0);
            for (int l = 0; l < 2; l++) {
                assert_int_equal(tf_layer_qkv(r, l), 0);
                assert_int_equal(tf_layer_attend(r, l), 0);
                assert_int_equal(tf_layer_finish(r, l, NULL), 0);
            }
            assert_int_equal(tf_layer_qkv(r, 2), -1);
            assert_int_equal(tf_logits(r), 0);
            assert_memory_equal(first, r->logits, sizeof(float) * nlog);
        }
        tf_run_free(r);
    }
    par_set_threads(1);
    free(first);
    tf_close(m);
    clean_dir(dir);
}

/* A forward of 16 rows and one of 10, then 1, then 5 rows through the KV
 * cache: the same bits in the logits of every row and every layer's K and V
 * (GPT-2's learned positions and RoPE at the right rows, Qwen3's q/k norm
 * on the new rows); then the rows after an edit computed again with the
 * rows before kept: the bits of a whole forward of the edited text. */
static void assert_extend_same_bits(const char *dir, const char *what) {
    AvError err = {0};
    TfModel *m = hf_open(dir, &err);
    if (!m) fail_msg("%s", err.msg);
    const TfConfig *c = &m->cfg;
    int ids[16];
    for (int i = 0; i < 16; i++) ids[i] = (i * 13 + 5) % c->vocab;
    TfRun *whole = tf_run_new(m, 16, 1, &err), *step = tf_run_new(m, 16, 1, &err);
    assert_true(whole && step);
    assert_int_equal(tf_forward(whole, ids, 16, &err), 0);
    assert_int_equal(tf_forward(step, ids, 10, &err), 0);
    assert_int_equal(tf_extend(step, ids + 10, 1, &err), 0);
    assert_int_equal(tf_extend(step, ids + 11, 5, &err), 0);
    assert_int_equal(step->n, 16);
    assert_memory_equal(whole->logits, step->logits, sizeof(float) * 16 * (size_t)c->vocab);
    for (int l = 0; l < c->n_layers; l++) {
        assert_memory_equal(tf_run_k(whole, l), tf_run_k(step, l), sizeof(float) * 16 * (size_t)c->kv_dim);
        assert_memory_equal(tf_run_v(whole, l), tf_run_v(step, l), sizeof(float) * 16 * (size_t)c->kv_dim);
    }
    assert_int_equal(tf_extend(step, ids, 1, &err), -1); /* full */
    assert_non_null(strstr(err.msg, "1 token after 16: the run holds 16"));
    /* an edit after row 6: the rows before kept, the rest computed again
     * layer by layer (the source's path), the bits of a whole forward */
    int edited[16];
    memcpy(edited, ids, sizeof ids);
    for (int i = 6; i < 16; i++) edited[i] = (ids[i] + 3) % c->vocab;
    assert_int_equal(tf_forward(whole, edited, 16, &err), 0);
    assert_int_equal(tf_embed_from(step, edited, 16, 6, &err), 0);
    for (int l = 0; l < c->n_layers; l++) {
        assert_int_equal(tf_layer_qkv_rows(step, l, 6, 10), 0);
        assert_int_equal(tf_layer_attend(step, l), 0);
        assert_int_equal(tf_layer_finish_rows(step, l, NULL, 6, 10), 0);
        assert_memory_equal(tf_run_q(whole, l), tf_run_q(step, l), sizeof(float) * 16 * (size_t)c->q_dim);
        assert_memory_equal(tf_run_k(whole, l), tf_run_k(step, l), sizeof(float) * 16 * (size_t)c->kv_dim);
    }
    assert_int_equal(tf_logits_from(step, 6), 0);
    assert_memory_equal(whole->logits + 6 * (size_t)c->vocab, step->logits + 6 * (size_t)c->vocab,
                        sizeof(float) * 10 * (size_t)c->vocab);
    printf("%s: a KV-cached extension and an edit's kept rows give the same bits as the whole forward\n", what);
    tf_run_free(whole);
    tf_run_free(step);
    tf_close(m);
}

static void test_extend_same_bits(void **state) {
    (void)state;
    char dir[] = "/tmp/attnviz-hf-XXXXXX";
    make_dir(dir);
    Specs s = gpt2_specs();
    write_st(dir, &s, 0);
    write_text(dir, "config.json", GPT2_CONFIG);
    par_set_threads(2);
    assert_extend_same_bits(dir, "gpt2 f32");
    s = llama_specs(100);
    write_st(dir, &s, 1);
    write_text(dir, "config.json", llama_config(100));
    assert_extend_same_bits(dir, "llama bf16");
    s = qwen3_specs(90, 48, 4, 2, 32, 64);
    write_st(dir, &s, 1);
    write_text(dir, "config.json", qwen3_config(90, 48, 4, 2, 32, 64));
    assert_extend_same_bits(dir, "qwen3 bf16");
    par_set_threads(1);
    clean_dir(dir);
}

/* What the views read of a Qwen3 with Llama 3's rope_scaling (LayerChain,
 * TrainedInfo) is what the engine computed: q_normed is each head of q_raw
 * RMSNorm'ed times q_norm's gains (recomputed here in double), q is
 * q_normed turned by trained_rope_freq's angles (the cell page's θ_p), and
 * the run's table of cos and sin holds those same angles. */
static void test_qk_norm_and_scaled_rope_steps(void **state) {
    (void)state;
    char dir[] = "/tmp/attnviz-hf-XXXXXX";
    make_dir(dir);
    Specs s = qwen3_specs(60, 40, 4, 2, 16, 48);
    write_st(dir, &s, 0);
    char cfg[1024];
    snprintf(cfg, sizeof cfg,
             "%.*s, \"rope_scaling\": {\"rope_type\": \"llama3\", \"factor\": 8.0, "
             "\"low_freq_factor\": 1.0, \"high_freq_factor\": 4.0, \"original_max_position_embeddings\": 64}}",
             (int)strlen(qwen3_config(60, 40, 4, 2, 16, 48)) - 1, qwen3_config(60, 40, 4, 2, 16, 48));
    write_text(dir, "config.json", cfg);
    AvError err = {0};
    TfModel *m = hf_open(dir, &err);
    if (!m) fail_msg("%s", err.msg);
    const TfConfig *c = &m->cfg;
    TrainedInfo t;
    tf_trained_info(m, &t);
    assert_true(t.qk_norm && t.rope_scaling.kind == ROPE_SCALE_LLAMA3 && t.head_size == 16);
    enum { N = 12 };
    int ids[N];
    for (int i = 0; i < N; i++) ids[i] = (i * 11 + 2) % c->vocab;
    TfRun *r = tf_run_new(m, N, 0, &err);
    assert_non_null(r);
    assert_int_equal(tf_embed(r, ids, N, &err), 0);
    assert_int_equal(tf_layer_qkv(r, 0), 0);
    const float *g = m->layers[0].q_norm;
    double worst_norm = 0, worst_rope = 0, worst_table = 0;
    int hs = c->head_dim, half = hs / 2;
    for (int i = 0; i < N; i++)
        for (int h = 0; h < c->n_heads; h++) {
            const float *raw = r->q_raw + (size_t)i * c->q_dim + h * hs;
            const float *nq = r->q_normed + (size_t)i * c->q_dim + h * hs;
            const float *q = tf_run_q(r, 0) + (size_t)i * c->q_dim + h * hs;
            double ss = 0;
            for (int e = 0; e < hs; e++) ss += (double)raw[e] * raw[e];
            double inv = 1.0 / sqrt(ss / hs + c->eps);
            for (int e = 0; e < hs; e++) worst_norm = fmax(worst_norm, fabs(nq[e] - raw[e] * inv * g[e]));
            for (int p = 0; p < half; p++) {
                double a = i * trained_rope_freq(&t, p), x = nq[p], y = nq[p + half];
                worst_rope = fmax(worst_rope, fabs(q[p] - (x * cos(a) - y * sin(a))));
                worst_rope = fmax(worst_rope, fabs(q[p + half] - (y * cos(a) + x * sin(a))));
                worst_table = fmax(worst_table, fabs(r->rope[((size_t)i * half + p) * 2] - cos(a)));
                worst_table = fmax(worst_table, fabs(r->rope[((size_t)i * half + p) * 2 + 1] - sin(a)));
            }
        }
    printf("qwen3 + llama3 RoPE: q_normed within %.3g, q within %.3g, the angles' table within %.3g\n", worst_norm,
           worst_rope, worst_table);
    assert_true(worst_norm < 1e-6 && worst_rope < 1e-5 && worst_table == 0.0);
    /* a scaled model's frequencies are not the plain ones (llama3 changed 7 of 8 here) */
    int changed = 0;
    for (int p = 0; p < half; p++) changed += trained_rope_freq(&t, p) != pow(c->rope_theta, -2.0 * p / hs);
    assert_int_equal(changed, 7);
    tf_run_free(r);
    tf_close(m);
    clean_dir(dir);
}

// ---------------------------------------------------------------------------
// the kernels: AVX-512, AVX2 and portable give the same bits

static const char *const KERNELS[] = {"avx512", "avx2", "portable"};

/* Values for the element-wise steps: every range GELU and SiLU treat
 * differently, the float extremes, signed zeros; 1003 of them (tails). */
static void elementwise_inputs(float *x, float *y, int n) {
    static const float edge[] = {0.0f,  -0.0f,  1.0f,    -1.0f,    FLT_MAX, -FLT_MAX, 1e-30f, -1e-30f, 5.0f,
                                 -5.0f, -9.0f,  -10.5f,  -20.0f,   20.0f,   88.0f,    -88.0f, 700.0f,  -700.0f,
                                 1e20f, -1e20f, 3.0e38f, -3.0e38f, 1e-45f,  0.5f,     -0.5f,  2.5f,    -2.5f};
    uint32_t state = 777u;
    for (int i = 0; i < n; i++) {
        state = state * 1664525u + 1013904223u;
        float u = (float)(state >> 8) / 16777216.0f - 0.5f;
        x[i] = i < (int)(sizeof edge / sizeof *edge) ? edge[i] : u * (i % 3 == 0 ? 30.0f : 8.0f);
        y[i] = i % 5 == 0 ? FLT_MAX * (u < 0 ? -1.0f : 1.0f) : u * 4.0f;
    }
}

/* nn_gelu, nn_swiglu and nn_residual: the same bits on every path, and
 * within about an ulp of libm's double formulas. */
static void test_elementwise_paths(void **state) {
    (void)state;
    enum { N = 1003 };
    static float x[N], y[N], gelu[3][N], swiglu[3][N], sum[3][N];
    elementwise_inputs(x, y, N);
    int first = -1;
    for (int k = 0; k < 3; k++) {
        if (mat_set_kernel(KERNELS[k])) {
            printf("%s: not on this CPU\n", KERNELS[k]);
            continue;
        }
        memcpy(gelu[k], x, sizeof x);
        nn_gelu(gelu[k], N);
        memcpy(swiglu[k], x, sizeof x);
        nn_swiglu(swiglu[k], y, N);
        nn_residual(sum[k], x, y, N);
        if (first < 0) first = k;
        else {
            assert_memory_equal(gelu[k], gelu[first], sizeof x);
            assert_memory_equal(swiglu[k], swiglu[first], sizeof x);
            assert_memory_equal(sum[k], sum[first], sizeof x);
        }
    }
    mat_set_kernel(NULL);
    double worst_gelu = 0, worst_silu = 0;
    for (int i = 0; i < N; i++) {
        double v = x[i], u = sqrt(2.0 / 3.14159265358979323846) * (v + 0.044715 * v * v * v);
        /* 0.5 v (1 + tanh u) = v / (1 + e^-2u), the cancellation-free form for u < 0 */
        double g = u > 0 ? 0.5 * v * (1.0 + tanh(u)) : v / (1.0 + exp(-2.0 * u));
        double s = v / (1.0 + exp(-v)) * y[i];
        s = s > FLT_MAX ? FLT_MAX : s < -FLT_MAX ? -FLT_MAX : s;
        double eg = fabs(gelu[first][i] - g) / fmax(fabs(g), 1e-300),
               es = fabs(swiglu[first][i] - s) / fmax(fabs(s), 1e-300);
        if (fabs(g) > 1e-37) worst_gelu = fmax(worst_gelu, eg);
        else assert_true(fabs(gelu[first][i]) <= 1e-37);
        if (fabs(s) > 1e-37) worst_silu = fmax(worst_silu, es);
        else assert_true(fabs(swiglu[first][i]) <= 1e-37);
        double r = (double)x[i] + y[i];
        r = r > FLT_MAX ? FLT_MAX : r < -FLT_MAX ? -FLT_MAX : r;
        assert_true(sum[first][i] == (float)r);
    }
    printf("gelu: worst relative error %.3g, swiglu %.3g (a float ulp is 1.2e-7)\n", worst_gelu, worst_silu);
    assert_true(worst_gelu < 1.2e-7 && worst_silu < 1.2e-7);
}

/* A forward under every kernel: the same logits, K, V and FFN activation. */
static void assert_kernels_same_bits(const char *dir, const char *what) {
    AvError err = {0};
    TfModel *m = hf_open(dir, &err);
    if (!m) fail_msg("%s", err.msg);
    const TfConfig *c = &m->cfg;
    enum { N = 13 };
    int ids[N];
    for (int i = 0; i < N; i++) ids[i] = (i * 29 + 3) % c->vocab;
    size_t nlog = (size_t)N * c->vocab, nkv = (size_t)N * c->kv_dim, nhb = (size_t)N * c->hidden_dim;
    float *ref = malloc(sizeof(float) * (nlog + 2 * nkv * c->n_layers + nhb));
    assert_non_null(ref);
    int ran = 0;
    for (int k = 0; k < 3; k++) {
        if (mat_set_kernel(KERNELS[k])) continue;
        TfRun *r = tf_run_new(m, N, 1, &err);
        assert_non_null(r);
        assert_int_equal(tf_forward(r, ids, N, &err), 0);
        float *at = ref;
        const float *parts[2 + 2 * 8];
        size_t sizes[2 + 2 * 8];
        int np = 0;
        parts[np] = r->logits, sizes[np++] = nlog;
        parts[np] = r->hb, sizes[np++] = nhb;
        for (int l = 0; l < c->n_layers && l < 8; l++) {
            parts[np] = tf_run_k(r, l), sizes[np++] = nkv;
            parts[np] = tf_run_v(r, l), sizes[np++] = nkv;
        }
        for (int p = 0; p < np; p++, at += sizes[p - 1]) {
            if (ran) assert_memory_equal(at, parts[p], sizeof(float) * sizes[p]);
            else memcpy(at, parts[p], sizeof(float) * sizes[p]);
        }
        /* one row through the KV cache: every product of one row (the
         * left ones by gemv_rows), the bits of the whole forward's */
        TfRun *step = tf_run_new(m, N, 0, &err);
        assert_non_null(step);
        assert_int_equal(tf_forward(step, ids, N - 1, &err), 0);
        assert_int_equal(tf_extend(step, ids + N - 1, 1, &err), 0);
        assert_memory_equal(step->logits, r->logits + (size_t)(N - 1) * c->vocab, sizeof(float) * (size_t)c->vocab);
        tf_run_free(step);
        printf("%s: %s %s\n", what, KERNELS[k], ran ? "gives the same bits" : "first");
        ran++;
        tf_run_free(r);
    }
    mat_set_kernel(NULL);
    free(ref);
    tf_close(m);
}

static void test_kernels_same_bits(void **state) {
    (void)state;
    char dir[] = "/tmp/attnviz-hf-XXXXXX";
    make_dir(dir);
    par_set_threads(2);
    for (int bf16 = 0; bf16 < 2; bf16++) {
        Specs s = gpt2_specs();
        write_st(dir, &s, bf16);
        write_text(dir, "config.json", GPT2_CONFIG);
        assert_kernels_same_bits(dir, bf16 ? "gpt2 bf16" : "gpt2 f32");
        s = llama_specs(100);
        write_st(dir, &s, bf16);
        write_text(dir, "config.json", llama_config(100));
        assert_kernels_same_bits(dir, bf16 ? "llama bf16" : "llama f32");
        s = llama_specs_shaped(77, 40, 72); /* tails: 40 = 2 x 16 + 8, 20, 72, 77 */
        write_st(dir, &s, bf16);
        write_text(dir, "config.json", llama_config_shaped(77, 40, 72));
        assert_kernels_same_bits(dir, bf16 ? "llama 40 bf16" : "llama 40 f32");
        s = qwen3_specs(77, 40, 3, 1, 24, 72); /* heads of 24: RoPE's pairs and the norm's tails */
        write_st(dir, &s, bf16);
        write_text(dir, "config.json", qwen3_config(77, 40, 3, 1, 24, 72));
        assert_kernels_same_bits(dir, bf16 ? "qwen3 bf16" : "qwen3 f32");
    }
    par_set_threads(1);
    clean_dir(dir);
}

// ---------------------------------------------------------------------------
// NumPy (optional): tests/verify_hf.py writes the checkpoints and recomputes

static const char *numpy_python(void) {
    static const char *const pythons[] = {"/usr/bin/python3", "python3"};
    for (size_t i = 0; i < 2; i++) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "%s -c 'import numpy' >/dev/null 2>&1", pythons[i]);
        if (system(cmd) == 0) return pythons[i];
    }
    need_missing("python3 with numpy not found (tests/verify_hf.py; apt-get install python3-numpy)");
    return NULL;
}

static void dump_floats(FILE *f, const float *x, size_t n) { assert_int_equal(fwrite(x, sizeof(float), n, f), n); }

static void check_case(const char *python, const char *base, const char *name) {
    char dir[512], cmd[2048], dump[600];
    snprintf(dir, sizeof dir, "%s/%s", base, name);
    snprintf(cmd, sizeof cmd, "%s tests/verify_hf.py write '%s' %s", python, dir, name);
    assert_int_equal(system(cmd), 0);
    AvError err = {0};
    TfModel *m = hf_open(dir, &err);
    if (!m) fail_msg("%s: %s", name, err.msg);
    const TfConfig *c = &m->cfg;
    int n = c->max_pos < 40 ? c->max_pos : 40, ids[40];
    for (int i = 0; i < n; i++) ids[i] = (i * 7 + 3) % c->vocab;
    ids[0] = c->vocab - 1;
    TfRun *r = tf_run_new(m, n, 1, &err);
    assert_non_null(r);
    assert_int_equal(tf_forward(r, ids, n, &err), 0);
    snprintf(dump, sizeof dump, "%s/dump.f32", dir);
    FILE *f = fopen(dump, "wb");
    assert_non_null(f);
    size_t rows = (size_t)n;
    dump_floats(f, r->logits, rows * c->vocab);
    for (int l = 0; l < c->n_layers; l++) {
        dump_floats(f, tf_run_x(r, l), rows * c->dim);
        dump_floats(f, tf_run_q(r, l), rows * c->q_dim);
        dump_floats(f, tf_run_k(r, l), rows * c->kv_dim);
        dump_floats(f, tf_run_v(r, l), rows * c->kv_dim);
    }
    dump_floats(f, tf_run_x(r, c->n_layers), rows * c->dim);
    fclose(f);
    int len = snprintf(cmd, sizeof cmd, "%s tests/verify_hf.py check '%s' '%s'", python, dir, dump);
    for (int i = 0; i < n; i++) len += snprintf(cmd + len, sizeof cmd - (size_t)len, " %d", ids[i]);
    assert_true(len < (int)sizeof cmd);
    if (system(cmd) != 0) fail_msg("%s: the forward pass differs from NumPy's", name);
    tf_run_free(r);
    tf_close(m);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_numpy_reference(void **state) {
    (void)state;
    const char *python = numpy_python();
    if (!python) return;
    char base[] = "/tmp/attnviz-hfnp-XXXXXX";
    make_dir(base);
    static const char *const cases[] = {"gpt2_f32",   "gpt2_bf16",  "llama_f32",   "llama_bf16",
                                        "qwen2_f32",  "qwen2_bf16", "mistral_f16", "qwen3_f32",
                                        "qwen3_bf16", "llama3_f32", "llama3_bf16", "qwen2_linear_f32"};
    par_set_threads(2);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) check_case(python, base, cases[i]);
    par_set_threads(1);
    rmdir(base);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpt2_opens_and_runs),
        cmocka_unit_test(test_real_configs),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_bf16_memory_bounded),
        cmocka_unit_test(test_threads_same_bits),
        cmocka_unit_test(test_extend_same_bits),
        cmocka_unit_test(test_qk_norm_and_scaled_rope_steps),
        cmocka_unit_test(test_elementwise_paths),
        cmocka_unit_test(test_kernels_same_bits),
        cmocka_unit_test(test_numpy_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
