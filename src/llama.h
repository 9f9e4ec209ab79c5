/* llama.h - a Llama-architecture transformer (llama2.c's model): its
 * configuration and weights, and the causal forward pass of a whole
 * sequence, whole or layer by layer.
 *
 * The model is format-independent: llama2.h opens a llama2.c checkpoint
 * into it (its weights point into the mapped file, never copied); a later
 * reader of another format fills the same struct. The forward pass, per
 * layer l, on the rows of a run (n tokens at positions 0..n-1):
 *
 *   xb  = RMSNorm(x) * rms_att[l]          mean of squares + 1e-5
 *   q   = xb W_q^T, k = xb W_k^T, v = xb W_v^T
 *   q, k: RoPE on pairs (2i, 2i+1) of each head, angle pos * 10000^(-2i/hs)
 *   att = softmax(q_h k_g^T / sqrt(hs), causal) v_g   per head h, with its
 *         key/value head g = h / (n_heads / n_kv_heads)
 *   mid = x + att W_o^T
 *   x'  = mid + W_2(silu(W_1 xb2) * W_3 xb2),  xb2 = RMSNorm(mid) * rms_ffn[l]
 *
 * then logits = (RMSNorm(x) * rms_final) cls^T. Every product goes through
 * matrix.h's kernels (one FMA chain per element, whatever the threads: the
 * same bits for 1 or 8 threads, for the whole sequence or one row at a time);
 * norms, RoPE, SwiGLU and residuals are computed in double and rounded once,
 * saturating at +-FLT_MAX, so finite weights never give inf or NaN.
 *
 * Layer by layer (a Q/K/V source of the app, which computes the attention
 * itself): llama_embed, then for each layer llama_layer_qkv (q, k, v of the
 * layer from its input), the attention (the app's, or llama_layer_attend),
 * llama_layer_finish (the rest of the layer: x of the next layer); then
 * llama_logits. llama_forward does all of it. Each step reads the stored
 * input of its layer, so any layer can be computed again from there. */
#ifndef ATTNVIZ_LLAMA_H
#define ATTNVIZ_LLAMA_H

#include <stddef.h>

#include "error.h"
#include "matrix.h"

/* The token that starts a text (llama2.c's convention; llamatok.h's too). */
#define LLAMA_BOS 1

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
} LlamaConfig;

/* Row-major float32, (out, in) for every projection: y = x W^T. */
typedef struct {
    const float *embed;     /* (vocab_size, dim) */
    const float *rms_att;   /* (n_layers, dim) */
    const float *wq;        /* (n_layers, dim, dim) */
    const float *wk;        /* (n_layers, kv_dim, dim) */
    const float *wv;        /* (n_layers, kv_dim, dim) */
    const float *wo;        /* (n_layers, dim, dim) */
    const float *rms_ffn;   /* (n_layers, dim) */
    const float *w1;        /* (n_layers, hidden_dim, dim) */
    const float *w2;        /* (n_layers, dim, hidden_dim) */
    const float *w3;        /* (n_layers, hidden_dim, dim) */
    const float *rms_final; /* (dim) */
    const float *cls;       /* (vocab_size, dim): embed when shared */
} LlamaWeights;

typedef struct Llama {
    LlamaConfig cfg;
    LlamaWeights w;
    char *name;      /* the file it came from (owned) */
    const void *map; /* the mapped file (filemap.h; closed by llama_close), or NULL */
    size_t map_len;  /* its length in bytes */
} Llama;

/* Unmaps and frees (NULL-safe); every run of the model must be freed first. */
void llama_close(Llama *m);

/* The state of a forward pass over up to `cap` rows (one allocation). Each
 * matrix is (rows, cols) row-major with cap rows, of which n are in use. */
typedef struct {
    const Llama *m;
    int cap, n;            /* rows allocated (cap <= seq_len) and in use */
    int all_logits;        /* logits of every row, or only the last one */
    int lanes;             /* scratch sets: tasks running at once */
    int *ids;              /* (cap) the tokens */
    float *resid;          /* (n_layers + 1, cap, dim): layer l's input x; the last, the final residual */
    float *xb;             /* (cap, dim) RMSNorm of x: the attention's input */
    float *q_raw;          /* (cap, dim) queries before RoPE */
    float *k_raw;          /* (cap, kv_dim) keys before RoPE */
    float *q;              /* (cap, dim) queries after RoPE, heads side by side */
    float *kcache;         /* (n_layers, cap, kv_dim) keys after RoPE, of every layer */
    float *vcache;         /* (n_layers, cap, kv_dim) values of every layer */
    float *att;            /* (cap, dim) llama_layer_attend's output, heads concatenated */
    float *proj;           /* (cap, dim) att W_o^T */
    float *mid;            /* (cap, dim) x + proj: the residual after attention */
    float *xb2;            /* (cap, dim) RMSNorm of mid: the FFN's input */
    float *hb;             /* (cap, hidden_dim) silu(W_1 xb2) * W_3 xb2 */
    float *hb2;            /* (cap, hidden_dim) W_3 xb2 */
    float *ffn;            /* (cap, dim) W_2 hb */
    float *xf;             /* (cap, dim) the final RMSNorm */
    float *logits;         /* (cap, vocab_size) when all_logits, else (1, vocab_size): the last row */
    double *rope;          /* (cap, head_size / 2, 2) cos and sin of each position and pair */
    float *pack;           /* x^T packed for a product, or K^T and V of every key/value head for the attention */
    MatPacked *kv_packed;  /* (2, n_kv_heads): K^T then V of each key/value head, in pack */
    unsigned char *causal; /* (2 cap - 1): cap ones then zeros; row p's allowed keys start at cap - 1 - p */
    float *scratch;        /* lanes x (tiles of products, rows of attention, packed K^T and V) */
    size_t lane_floats;    /* floats of scratch per lane */
} LlamaRun;

/* A run of up to cap rows (1..seq_len); all_logits keeps every row's logits
 * (cap x vocab_size floats), else only the last row's. It works on as many
 * threads at once as the pool has now (par_set_threads before, at most 16).
 * The model must outlive it. NULL with a message (out of memory, or cap out
 * of range). Free with llama_run_free. */
LlamaRun *llama_run_new(const Llama *m, int cap, int all_logits, AvError *err);
void llama_run_free(LlamaRun *r); /* NULL-safe */

/* K and V of layer l: (cap, kv_dim), rows 0..n-1 valid. */
static inline float *llama_run_k(const LlamaRun *r, int l) { return r->kcache + (size_t)l * r->cap * r->m->cfg.kv_dim; }
static inline float *llama_run_v(const LlamaRun *r, int l) { return r->vcache + (size_t)l * r->cap * r->m->cfg.kv_dim; }
/* The input of layer l (l = n_layers: the residual before the final norm). */
static inline float *llama_run_x(const LlamaRun *r, int l) { return r->resid + (size_t)l * r->cap * r->m->cfg.dim; }

/* The angle per position of RoPE's pair p (0..head_size/2-1) of a head:
 * 10000^(-2p/head_size); position i turns the pair by i times it. */
double llama_rope_freq(int p, int head_size);

/* The layer-wise steps, over the run's n rows. Each returns 0, or -1 when a
 * cancel request (cancel.h) stopped it (its outputs are then not to be
 * trusted), the layer does not exist or the run has no rows yet. */

/* Sets the run to ids[0..n) (1 <= n <= cap, every id < vocab_size; else -1
 * with a message) and x of layer 0 to their embeddings. */
int llama_embed(LlamaRun *r, const int *ids, int n, AvError *err);
/* xb, q_raw, k_raw, q, and rows 0..n-1 of layer l's K and V, from x of layer l. */
int llama_layer_qkv(LlamaRun *r, int l);
/* att = the causal grouped-query attention of layer l (q, K, V). */
int llama_layer_attend(LlamaRun *r, int l);
/* The rest of layer l from attn_out (n, dim; heads concatenated; NULL: att):
 * proj, mid, xb2, hb, hb2, ffn, and x of layer l + 1. */
int llama_layer_finish(LlamaRun *r, int l, const float *attn_out);
/* xf and the logits (of every row, or the last) from x of the last layer. */
int llama_logits(LlamaRun *r);

/* All of the above for ids[0..n). */
int llama_forward(LlamaRun *r, const int *ids, int n, AvError *err);

/* The steps on rows [r0, r0 + rows) alone, the rows before kept (a causal
 * sentence edited after row r0): the same bits as the steps on every row.
 * llama_embed_from keeps rows [0, r0) (ids[0..r0) must be the run's), sets
 * ids[r0..n) and their x of layer 0 (n == r0: the run cut to n rows); -1
 * with a message as llama_embed. llama_logits_from: the logits of rows r0
 * on (of the last row without all_logits, when it is one of them). The
 * others return 0, or -1 when cancelled or the rows are not the run's. */
int llama_embed_from(LlamaRun *r, const int *ids, int n, int r0, AvError *err);
int llama_layer_qkv_rows(LlamaRun *r, int l, int r0, int rows);
int llama_layer_finish_rows(LlamaRun *r, int l, const float *attn_out, int r0, int rows);
int llama_logits_from(LlamaRun *r, int r0);

/* Appends ids[0..n) to the run's rows and computes only them, from the keys
 * and values kept of the rows before (a KV cache): the same bits as a
 * forward of the whole sequence. The logits of the new rows (or of the last
 * row) are set; the layer buffers (xb ... ffn) hold the last layer's values
 * of the new rows only. -1 with a message when they do not fit or an id is
 * out of the vocabulary, or when cancelled. */
int llama_extend(LlamaRun *r, const int *ids, int n, AvError *err);

/* The id of the largest of x[0..n) (the first of equal ones: run.c's argmax). */
int llama_argmax(const float *x, int n);

/* Greedy decoding: forwards prompt[0..n_prompt), then appends the argmax
 * token `steps` times (each forwarded through llama_extend but the last),
 * into out[0..steps). Stops early after a BOS (id 1), which delimits texts
 * as in run.c (not stored). Returns the tokens written, or -1 with a message.
 * r needs cap >= n_prompt + steps - 1. */
int llama_generate_greedy(LlamaRun *r, const int *prompt, int n_prompt, int steps, int *out, AvError *err);

#endif
