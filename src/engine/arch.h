/* arch.h - the decoder architectures the engine (transformer.h) runs, as
 * rows of one table: what a family's layer is made of, not how a file
 * stores it. A new architecture made of known parts is a row in arch.c; a
 * genuinely new operation is one field here and one function in
 * transformer.c. A reader (llama2.h, hfcheckpoint.h) picks the row and
 * fills the numbers (TfConfig); the file may override the row's defaults
 * (eps, rope_theta, biases) where its format says so.
 *
 * Every row is a pre-norm decoder: per layer l, on the residual x,
 *   xb  = norm(x);  q, k, v = xb W_q^T (+ b_q), ...;  (qk_norm: each head's
 *         q and k RMSNorm'ed, times their gains);  RoPE on q and k
 *   mid = x + attention(q, k, v) W_o^T (+ b_o)
 *   x'  = mid + mlp(norm(mid))
 * and logits = norm(x) W_cls^T, W_cls the token embedding when tied. */
#ifndef ATTNVIZ_ARCH_H
#define ATTNVIZ_ARCH_H

#include <stddef.h>

#include "trained.h"

typedef enum {
    TF_NORM_RMS = 0, /* x / sqrt(mean(x^2) + eps) * w */
    TF_NORM_LAYER,   /* (x - mean) / sqrt(var + eps) * w + b */
} TfNorm;

typedef enum {
    TF_MLP_SWIGLU = 0, /* W_down (silu(W_gate x) * W_up x) */
    TF_MLP_GELU_TANH,  /* W_down gelu_tanh(W_fc x + b_fc) + b_down */
} TfMlp;

/* How a Hugging Face checkpoint names and lays out the tensors of a row
 * (hfcheckpoint.c binds them); TF_NAMES_NONE: not a Hugging Face family. */
typedef enum {
    TF_NAMES_NONE = 0,
    TF_NAMES_GPT2,  /* h.L.attn.c_attn (Conv1D: (in, out), q k v fused), wte, wpe, ln_f */
    TF_NAMES_LLAMA, /* model.layers.L.self_attn.q_proj (nn.Linear: (out, in)), model.norm, lm_head */
} TfNames;

typedef struct {
    const char *name;     /* model_type ("gpt2", "llama", ...) or the format ("llama2.c") */
    const char *hf_class; /* config.json's "architectures"[0], or NULL */
    TfNorm norm;          /* every norm of the model: before attention, before the MLP, at the end */
    RopeLayout rope;      /* ROPE_NONE: learned positions added to the embedding (wpe) */
    TfMlp mlp;
    int qkv_bias;       /* q, k and v have biases (a file may add them: attention_bias) */
    int o_bias;         /* the output projection has a bias */
    int qk_norm;        /* each head's q and k RMSNorm'ed (gains of head_dim) before RoPE */
    int head_dim;       /* the width of a head when the file does not say (0: dim / n_heads) */
    double eps;         /* the norm's epsilon when the file does not say */
    double rope_theta;  /* RoPE's base when the file does not say */
    double embed_scale; /* the embedding row is multiplied by this (1: none) */
    int window;         /* 1: a sliding_window in config.json bounds the context by default */
    TfNames names;
} TfArch;

/* The rows, and their count. */
extern const TfArch tf_archs[];
extern const int tf_arch_count;

/* The row of a name (model_type or "llama2.c") or of a Hugging Face class,
 * or NULL. */
const TfArch *tf_arch_named(const char *name);
const TfArch *tf_arch_of_class(const char *hf_class);

/* The Hugging Face rows' names, "gpt2, llama, qwen2, mistral, qwen3", into buf. */
void tf_arch_hf_names(char *buf, size_t cap);

#endif
