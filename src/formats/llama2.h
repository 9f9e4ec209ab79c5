/* llama2.h - the reader of karpathy/llama2.c's legacy checkpoint (run.c's
 * format) into the engine (transformer.h): the row "llama2.c" of arch.h
 * (RMSNorm with eps 1e-5, RoPE on consecutive pairs (2i, 2i + 1) with base
 * 10000, SwiGLU, no biases), the weights F32 views into the mapping.
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
#include "transformer.h"

#define LLAMA2_HEADER_BYTES 28

/* The token that starts a text (llama2.c's convention; llamatok.h's too). */
#define LLAMA2_BOS 1

/* The header's numbers, and what follows from them. */
typedef struct {
    int dim;        /* width of the residual stream (d_model) */
    int hidden_dim; /* width of the FFN */
    int n_layers;
    int n_heads;    /* query heads */
    int n_kv_heads; /* key/value heads: n_heads / n_kv_heads query heads share each */
    int vocab_size;
    int seq_len;           /* the context it was trained for: the most rows of a run */
    int head_size;         /* dim / n_heads (even: RoPE rotates pairs) */
    int kv_dim;            /* n_kv_heads * head_size */
    int shared_classifier; /* 1: the classifier is the token embedding (tied) */
} Llama2Header;

/* The largest value of each header field. */
#define LLAMA2_MAX_DIM     65536
#define LLAMA2_MAX_HIDDEN  262144
#define LLAMA2_MAX_LAYERS  1024
#define LLAMA2_MAX_HEADS   1024
#define LLAMA2_MAX_VOCAB   (1 << 22)
#define LLAMA2_MAX_SEQ_LEN (1 << 20)

/* Maps `path` (a regular file) and validates it. Returns the model (free
 * with tf_close: it unmaps the file), or NULL with a message. */
TfModel *llama2_open(const char *path, AvError *err);

/* The same over buf[0..size), which must stay valid (and unchanged) until
 * tf_close, 4-byte aligned; `name` is used in messages (escaped). */
TfModel *llama2_open_mem(const void *buf, size_t size, const char *name, AvError *err);

/* The numbers the header of buf[0..size) gives, validated against size
 * (the tensors are not looked at). 0, or -1 with a message. */
int llama2_read_header(Llama2Header *out, const void *buf, size_t size, const char *name, AvError *err);

#endif
