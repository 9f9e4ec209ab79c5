/* arch.c - see arch.h: the table of architectures. */
#include "i18n.h"
#include "arch.h"

#include <stdio.h>
#include <string.h>

/* clang-format off */
const TfArch tf_archs[] = {
    /* karpathy/llama2.c: RoPE on consecutive pairs (2i, 2i + 1), eps fixed by run.c */
    {.name = "llama2.c", .hf_class = NULL, .norm = TF_NORM_RMS, .rope = ROPE_PAIRS, .mlp = TF_MLP_SWIGLU,
     .eps = 1e-5, .rope_theta = 10000.0, .embed_scale = 1.0},
    {.name = "gpt2", .hf_class = "GPT2LMHeadModel", .norm = TF_NORM_LAYER, .rope = ROPE_NONE,
     .mlp = TF_MLP_GELU_TANH, .qkv_bias = 1, .o_bias = 1, .eps = 1e-5, .embed_scale = 1.0, .names = TF_NAMES_GPT2},
    /* Hugging Face's Llama family: RoPE on the halves (i, i + head_dim / 2) */
    {.name = "llama", .hf_class = "LlamaForCausalLM", .norm = TF_NORM_RMS, .rope = ROPE_HALF, .mlp = TF_MLP_SWIGLU,
     .eps = 1e-6, .rope_theta = 10000.0, .embed_scale = 1.0, .window = 1, .names = TF_NAMES_LLAMA},
    {.name = "qwen2", .hf_class = "Qwen2ForCausalLM", .norm = TF_NORM_RMS, .rope = ROPE_HALF, .mlp = TF_MLP_SWIGLU,
     .qkv_bias = 1, .eps = 1e-6, .rope_theta = 10000.0, .embed_scale = 1.0, .names = TF_NAMES_LLAMA},
    {.name = "mistral", .hf_class = "MistralForCausalLM", .norm = TF_NORM_RMS, .rope = ROPE_HALF,
     .mlp = TF_MLP_SWIGLU, .eps = 1e-6, .rope_theta = 10000.0, .embed_scale = 1.0, .window = 1,
     .names = TF_NAMES_LLAMA},
    /* Qwen3: q_norm and k_norm on each head before RoPE, head_dim 128 unless
     * said (Qwen3Config), no q/k/v biases */
    {.name = "qwen3", .hf_class = "Qwen3ForCausalLM", .norm = TF_NORM_RMS, .rope = ROPE_HALF, .mlp = TF_MLP_SWIGLU,
     .qk_norm = 1, .head_dim = 128, .eps = 1e-6, .rope_theta = 10000.0, .embed_scale = 1.0, .names = TF_NAMES_LLAMA},
};
/* clang-format on */

const int tf_arch_count = (int)(sizeof tf_archs / sizeof *tf_archs);

const TfArch *tf_arch_named(const char *name) {
    for (int i = 0; name && i < tf_arch_count; i++)
        if (strcmp(tf_archs[i].name, name) == 0) return &tf_archs[i];
    return NULL;
}

const TfArch *tf_arch_of_class(const char *hf_class) {
    for (int i = 0; hf_class && i < tf_arch_count; i++)
        if (tf_archs[i].hf_class && strcmp(tf_archs[i].hf_class, hf_class) == 0) return &tf_archs[i];
    return NULL;
}

void tf_arch_hf_names(char *buf, size_t cap) {
    size_t at = 0;
    buf[0] = '\0';
    for (int i = 0; i < tf_arch_count && at < cap; i++)
        if (tf_archs[i].names != TF_NAMES_NONE) {
            int n = snprintf(buf + at, cap - at, "%s%s", at ? ", " : "", tf_archs[i].name);
            if (n < 0) break;
            at += (size_t)n;
        }
}
