/* ggufmodel.h - a GGUF file (llama.cpp's, Ollama's blobs, LM Studio's
 * models) as a model of the engine (transformer.h) and its tokenizer, read
 * from the metadata (issue 28). gguf.h validates the file; this reader
 * understands it.
 *
 * The architecture is general.architecture, its numbers the ARCH.* keys
 * llama.cpp reads (ARCH.embedding_length, .block_count,
 * .feed_forward_length, .context_length, .attention.head_count,
 * .attention.head_count_kv, .attention.key_length, .attention.value_length,
 * .attention.layer_norm_rms_epsilon or .layer_norm_epsilon, .rope.freq_base,
 * .rope.dimension_count, .rope.scaling.type); the tensors have llama.cpp's
 * names (token_embd, blk.N.attn_q / attn_k / attn_v or attn_qkv,
 * attn_output, attn_norm, ffn_gate / ffn_up / ffn_down, ffn_norm,
 * output_norm, output: absent when tied; position_embd for GPT-2), each
 * stored as ggml stores a matrix: ne[0] (a row) the input, ne[1] the output.
 *
 *   general.architecture   engine row   RoPE pairs
 *   llama                  llama        consecutive (2i, 2i + 1)
 *   qwen2                  qwen2        halves (i, i + head_dim / 2)
 *   gpt2                   gpt2         none (learned positions)
 *
 * llama: convert_hf_to_gguf.py permutes the rows of Hugging Face's q_proj
 * and k_proj (rotate-half pairs) into Meta's order (consecutive pairs), and
 * llama.cpp turns consecutive pairs (its LLAMA_ROPE_TYPE_NORM); the engine
 * does the same on the rows as stored (as llama2.c's checkpoints store
 * them), so q.k, the attention and everything after it are the model's;
 * a head's q and k columns are in Meta's order, not Hugging Face's. qwen2
 * is not permuted (llama.cpp's NEOX RoPE: the halves).
 *
 * The weights stay in the mapping in their type (weights.h: F32, F16, BF16,
 * Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K), dequantized
 * a row at a time where the products pack them; only the norms and biases
 * become floats at open. Every matrix must be finite: an element type is
 * scanned as the other readers do, a block type by its scales (finite
 * scales make finite elements: a scale times a small integer).
 *
 * Refused in one line naming the file and the key, tensor or architecture:
 * a missing or mistyped key, a number out of range, heads that do not
 * divide, key and value heads of different widths, RoPE on part of a head,
 * RoPE scaling (rope.scaling.type other than none, a rope_freqs tensor), a
 * missing tensor, a shape other than the keys imply, a type the engine does
 * not read (IQ*, TQ*, ...), a non-finite weight, and any tensor of the file
 * the architecture does not use (it would compute something else). */
#ifndef ATTNVIZ_GGUFMODEL_H
#define ATTNVIZ_GGUFMODEL_H

#include <stddef.h>

#include "error.h"
#include "gguf.h"
#include "transformer.h"
#include "vocab.h"

#define GGUF_MAGIC "GGUF"

/* The model of a GGUF file: the path mapped, or buf[0..size) (kept, not
 * freed: for the fuzzer). NULL with one line. Free with tf_close. */
TfModel *ggufmodel_open(const char *path, AvError *err);
TfModel *ggufmodel_open_mem(const void *buf, size_t size, const char *name, AvError *err);

/* What ggufmodel_open and ggufmodel_vocab check but the finiteness of the
 * weights (the one step that reads them all): 0 when the file opens as a
 * model with its tokenizer, else -1 with the line ggufmodel_open would
 * give. Nothing is kept. (attnviz --models: a few milliseconds a file.) */
int ggufmodel_check(const char *path, AvError *err);

/* The file a model of ggufmodel_open reads (NULL for another model). */
const Gguf *ggufmodel_file(const TfModel *m);

/* The tokenizer of the metadata (gguftok.h: tokenizer.ggml.model "llama" or
 * "gpt2", its tokens, scores, types, merges, pre-tokenizer, BOS, EOS and
 * add_bos_token). NULL with one line naming the key. */
Vocab *ggufmodel_vocab(const Gguf *g, AvError *err);

/* 1 when path ends in .gguf or its file starts with the GGUF magic. */
int ggufmodel_claims(const char *path);

#endif
