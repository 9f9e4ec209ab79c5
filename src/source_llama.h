/* source_llama.h - a trained Llama model as a source of Q, K and V (see
 * source_llama.c). */
#ifndef ATTNVIZ_SOURCE_LLAMA_H
#define ATTNVIZ_SOURCE_LLAMA_H

#include <stddef.h>

#include "llama.h"
#include "llamatok.h"
#include "model.h"

extern const Source source_llama;

/* Switches m to the llama2.c checkpoint at model_path with its vocabulary
 * (vocab_path, or NULL: tokenizer.bin, then tok<V>.bin beside the model) on
 * text[0..len) (BOS first). Every layer and head; d_model, heads, d_k and
 * the layers are the model's. One line in err on failure (the file, the
 * field or tensor, what is wrong); m is unchanged then. */
int model_set_llama(Model *m, const char *model_path, const char *vocab_path, const char *text, size_t len,
                    AvError *err);

/* The model's run (its residual stream, the logits of the last row) and
 * vocabulary, or NULL when m's source is another. */
const Llama *model_llama(const Model *m);
const LlamaRun *model_llama_run(const Model *m);
const LlamaTok *model_llama_tok(const Model *m);

/* The chain of one layer as the model computes it, for the pipeline view
 * and the cell page: every matrix of the layer's forward pass over the n
 * tokens (row-major, n rows). The attention is the app's (the heads' outputs
 * shown, whatever the mask), the rest the engine's own steps (llama.h) from
 * the layer's input, so the numbers are the bits of the model's forward:
 * x_next is the next layer's x. Valid until the model changes. */
typedef struct {
    int layer, n; /* n: the tokens (rows) */
    int dim, kv_dim, hidden_dim, head_size, n_heads, n_kv_heads;
    const float *x;           /* (n, dim) the layer's input: x_l */
    const float *xb;          /* (n, dim) RMSNorm(x) * rms_att */
    const float *q_raw;       /* (n, dim) xb W_q^T: queries before RoPE */
    const float *k_raw;       /* (n, kv_dim) xb W_k^T: keys before RoPE */
    const float *q;           /* (n, dim) queries after RoPE */
    const float *k;           /* (n, kv_dim) keys after RoPE */
    const float *v;           /* (n, kv_dim) xb W_v^T */
    const float *q_raw_heads; /* (n_heads, n, head_size): q_raw head by head */
    const float *k_raw_heads; /* (n_kv_heads, n, head_size): k_raw head by head */
    const float *att;         /* (n, dim) the heads' outputs joined */
    const float *proj;        /* (n, dim) att W_o^T */
    const float *mid;         /* (n, dim) x + proj: the residual after attention */
    const float *xb2;         /* (n, dim) RMSNorm(mid) * rms_ffn: the FFN's input */
    const float *hb;          /* (n, hidden_dim) silu(W_1 xb2) * W_3 xb2 */
    const float *ffn;         /* (n, dim) W_2 hb */
    const float *x_next;      /* (n, dim) mid + ffn: the next layer's input */
    const double *rope;       /* (n, head_size / 2, 2): cos and sin of each position and pair */
} LlamaLayerView;

/* Layer l of m's model (computed through STAGE_FINAL), in *out: 0, or -1
 * with a message when m's source is another, l is not a layer, memory runs
 * out or a cancel request stopped it. The source keeps the layer shown last
 * and recomputes only when its input or the heads' outputs changed. */
int model_llama_layer(const Model *m, int l, LlamaLayerView *out, AvError *err);

#endif
