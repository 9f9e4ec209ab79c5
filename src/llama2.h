/* llama2.h - the legacy checkpoint of karpathy/llama2.c (run.c's format),
 * opened into a Llama (llama.h).
 *
 * A header of 7 little-endian int32: dim, hidden_dim, n_layers, n_heads,
 * n_kv_heads, vocab_size, seq_len (a negative vocab_size: a separate
 * classifier at the end), then float32 tensors, in this order:
 *
 *   embed      (vocab_size, dim)          rms_att (n_layers, dim)
 *   wq         (n_layers, dim, dim)       wk, wv  (n_layers, kv_dim, dim) each
 *   wo         (n_layers, dim, dim)       rms_ffn (n_layers, dim)
 *   w1         (n_layers, hidden, dim)    w2      (n_layers, dim, hidden)
 *   w3         (n_layers, hidden, dim)    rms_final (dim)
 *   rope_cos, rope_sin (seq_len, head_size / 2) each: unused (RoPE is computed)
 *   cls        (vocab_size, dim), only when separate
 *
 * Nothing is read before the header is validated against the file: every
 * field positive and within the limits below, dim divisible by n_heads,
 * n_heads by n_kv_heads, the head size even, and the file size exactly what
 * the header implies (sizes computed with overflow checks); then every
 * tensor that is used must be finite. Each failure is one line naming the
 * file, the field or tensor, and what was wrong:
 *   "m.bin: 1056541 bytes, but the header (dim 64, ...) implies 1056540 (1 byte too many)"
 * The file is mapped read-only (mmap), never copied: the weights point into
 * it. Little-endian hosts only (the floats are used in place). */
#ifndef ATTNVIZ_LLAMA2_H
#define ATTNVIZ_LLAMA2_H

#include <stddef.h>

#include "error.h"
#include "llama.h"

#define LLAMA2_HEADER_BYTES 28

/* The largest value of each header field. */
#define LLAMA2_MAX_DIM     65536
#define LLAMA2_MAX_HIDDEN  262144
#define LLAMA2_MAX_LAYERS  1024
#define LLAMA2_MAX_HEADS   1024
#define LLAMA2_MAX_VOCAB   (1 << 22)
#define LLAMA2_MAX_SEQ_LEN (1 << 20)

/* Maps `path` (a regular file) and validates it. Returns the model (free
 * with llama_close), or NULL with a message. */
Llama *llama2_open(const char *path, AvError *err);

/* The same over buf[0..size), which must stay valid (and unchanged) until
 * llama_close, 4-byte aligned; `name` is used in messages (escaped). */
Llama *llama2_open_mem(const void *buf, size_t size, const char *name, AvError *err);

/* The configuration the header of buf[0..size) gives, validated against
 * size (the tensors are not looked at). 0, or -1 with a message. */
int llama2_read_header(LlamaConfig *cfg, const void *buf, size_t size, const char *name, AvError *err);

#endif
