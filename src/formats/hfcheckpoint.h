/* hfcheckpoint.h - the reader of a Hugging Face checkpoint folder
 * (config.json and model.safetensors, or its index and shards) into the
 * engine (transformer.h): GPT-2 and the Llama family (llama, qwen2,
 * mistral, qwen3), the rows of arch.h whose `names` say how their tensors
 * are called (issue 14).
 *
 * GPT-2: LayerNorm with bias (eps: layer_norm_epsilon), learned positions
 * (wpe), Conv1D weights stored (in, out) and q, k, v fused in c_attn, tanh
 * GELU, the classifier tied to wte; tensors h.L.*, optionally
 * "transformer."-prefixed. The Llama family: RMSNorm (rms_norm_eps),
 * rotate-half RoPE (rope_theta, rope_scaling "linear" or "llama3"),
 * nn.Linear (out, in), SwiGLU, lm_head unless tie_word_embeddings, q/k/v
 * biases for Qwen2 or attention_bias, head_dim from config.json when given
 * (else the row's: Qwen3's 128, or hidden_size / heads), Qwen3's
 * self_attn.q_norm and k_norm (head_dim each).
 *
 * The matrices stay mapped in the file's type (F32, F16 or BF16); only the
 * vectors (norms and biases, about 13 dim floats a layer) are converted at
 * open, into the model's one allocation (tf_heap_bytes). */
#ifndef ATTNVIZ_HFCHECKPOINT_H
#define ATTNVIZ_HFCHECKPOINT_H

#include <stddef.h>

#include "error.h"
#include "transformer.h"
#include "vocab.h"

/* Parses config.json's text json[0..len) into *out (zeroed first; the row
 * of its model_type, or of its architectures[0]); `name` (escaped) starts
 * every message. 0, or -1 with one line: invalid JSON, an architecture not
 * supported (named), a field missing, not an integer or out of range, or a
 * variant not supported (a rope_scaling type other than default, linear
 * and llama3, or one without its keys; an activation other than GPT-2's
 * tanh GELU or silu, mlp_bias, heads that do not divide). */
int hf_config_parse(TfConfig *out, const char *json, size_t len, const char *name, AvError *err);

/* Opens dir, checks that config.json names a supported architecture and
 * that every tensor it implies is there with the shape it implies and
 * finite. NULL with one line on failure, e.g.
 *   "m/config.json: model_type \"bert\" is not supported (gpt2, llama, qwen2, mistral, qwen3)"
 *   "m/model.safetensors: tensor h.0.attn.c_attn.weight: shape [16, 40], expected [16, 48]"
 * Free with tf_close. */
TfModel *hf_open(const char *dir, AvError *err);

/* A Hugging Face tokenizer file: a tokenizer.json, or a vocab.json with
 * the merges.txt beside it. NULL with one line. */
Vocab *hf_tokenizer_open(const char *path, AvError *err);

/* The folder of path (itself, or the folder of a file in it) as a
 * Checkpoint (formats.h) with its tokenizer (vocab_path: any tokenizer
 * file, vocab_open_file; NULL: the folder's tokenizer.json, else its
 * vocab.json and merges.txt), titled by the folder's name:
 * hf_checkpoint_open, declared in formats.h with the other readers'. */

#endif
