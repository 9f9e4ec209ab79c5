/* fuzz_hfconfig.c - libFuzzer target for a Hugging Face config.json
 * (hf_config_parse, src/formats/hfcheckpoint.h).
 *
 * The input is the file's text, parsed under a name with an escape sequence.
 * Failure: -1 and one terminal-safe line. Success, checked from the meaning
 * of the fields and not from hfcheckpoint.c: the architecture one of the two with
 * its model_type one of gpt2, llama, qwen2, mistral, qwen3; every size in its
 * limits; the heads dividing as the forward pass needs (GPT-2: dim = heads x
 * head_dim, no grouping; TfModel: query heads a multiple of the K/V heads,
 * head_dim even for RoPE); q_dim and kv_dim their products; eps in [0, 1];
 * GPT-2 tied with every bias, rope_theta >= 1 for the TfModel family;
 * RoPE's scaling none, linear (factor >= 1) or llama3 (factor >= 1, 0 <
 * low_freq_factor < high_freq_factor, an original context >= 1), so that
 * every frequency is positive and finite; the q/k norm for qwen3 only. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "hfcheckpoint.h"

static const char FUZZ_NAME[] = "m\x1b[31m\xc2\x9b"
                                "2J/config.json";

FUZZ_NO_COVERAGE static void check_message(const AvError *err) {
    size_t n = fuzz_msg_len(err->msg, sizeof err->msg);
    FUZZ_CHECK(n > 0, "failure without a message");
    long bad = fuzz_first_unsafe(err->msg, n, NULL);
    if (bad >= 0) fuzz_dump("message", err->msg, n);
    FUZZ_CHECK(bad < 0, "message has an unsafe byte at %ld", bad);
}

FUZZ_NO_COVERAGE static void check_config(const TfConfig *c) {
    static const char *const types[] = {"gpt2", "llama", "qwen2", "mistral", "qwen3"};
    int known = 0;
    for (int i = 0; i < 5; i++) known |= strcmp(c->model_type, types[i]) == 0;
    FUZZ_CHECK(known, "model_type \"%.31s\"", c->model_type);
    FUZZ_CHECK(c->arch && strcmp(c->arch->name, c->model_type) == 0, "row %s for %s", c->arch ? c->arch->name : "none",
               c->model_type);
    FUZZ_CHECK(c->dim >= 1 && c->dim <= 1 << 16 && c->hidden_dim >= 1 && c->hidden_dim <= 1 << 18, "dim %d hidden %d",
               c->dim, c->hidden_dim);
    FUZZ_CHECK(c->n_layers >= 1 && c->n_layers <= 1024, "%d layers", c->n_layers);
    FUZZ_CHECK(c->vocab >= 1 && c->vocab <= 1 << 24 && c->max_pos >= 1 && c->max_pos <= 1 << 20, "vocab %d pos %d",
               c->vocab, c->max_pos);
    FUZZ_CHECK(c->n_heads >= 1 && c->n_heads <= c->dim && c->n_kv_heads >= 1 && c->n_heads % c->n_kv_heads == 0,
               "heads %d / %d", c->n_heads, c->n_kv_heads);
    FUZZ_CHECK(c->head_dim >= 1 && c->q_dim == c->n_heads * c->head_dim && c->kv_dim == c->n_kv_heads * c->head_dim,
               "head_dim %d q_dim %d kv_dim %d", c->head_dim, c->q_dim, c->kv_dim);
    FUZZ_CHECK(c->eps >= 0.0 && c->eps <= 1.0, "eps %g", c->eps);
    if (c->arch->names == TF_NAMES_GPT2) {
        FUZZ_CHECK(c->q_dim == c->dim && c->n_kv_heads == c->n_heads, "GPT-2 heads do not tile dim");
        FUZZ_CHECK(c->tied && c->qkv_bias && c->o_bias, "GPT-2 without its tied classifier or biases");
    } else {
        FUZZ_CHECK(c->head_dim % 2 == 0, "odd head_dim %d under RoPE", c->head_dim);
        FUZZ_CHECK(c->rope_theta >= 1.0 && isfinite(c->rope_theta), "rope_theta %g", c->rope_theta);
        FUZZ_CHECK(!c->o_bias || c->qkv_bias, "an o bias without q/k/v biases");
        const RopeScaling *s = &c->rope_scaling;
        FUZZ_CHECK(s->kind == ROPE_SCALE_NONE || (s->factor >= 1.0 && isfinite(s->factor)), "rope factor %g",
                   s->factor);
        if (s->kind == ROPE_SCALE_LLAMA3)
            FUZZ_CHECK(s->low_freq_factor > 0 && s->high_freq_factor > s->low_freq_factor &&
                           isfinite(s->high_freq_factor) && s->original_max_pos >= 1,
                       "llama3 factors %g %g, original %d", s->low_freq_factor, s->high_freq_factor,
                       s->original_max_pos);
        for (int p = 0; p < c->head_dim / 2; p++) {
            double f = rope_freq(c->rope_theta, c->head_dim, s, p);
            FUZZ_CHECK(f > 0 && isfinite(f), "pair %d: frequency %g", p, f);
        }
    }
    FUZZ_CHECK(c->arch->qk_norm == (strcmp(c->model_type, "qwen3") == 0), "q/k norm on %s", c->model_type);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = malloc(size ? size : 1); /* exact size: a read past the end is caught */
    FUZZ_CHECK(text != NULL, "out of memory");
    if (size) memcpy(text, data, size);
    AvError err = {0};
    TfConfig c;
    if (hf_config_parse(&c, text, size, FUZZ_NAME, &err)) check_message(&err);
    else check_config(&c);
    free(text);
    return 0;
}
