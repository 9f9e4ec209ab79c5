/* transformer.h - the one forward pass of every trained model: a decoder
 * described by a row of the architecture table (arch.h) and its numbers
 * (TfConfig), whole or layer by layer, whatever file it came from. A reader
 * fills a TfModel: llama2.h (llama2.c checkpoints), hfcheckpoint.h (Hugging
 * Face folders); formats.h says which reader a path needs.
 *
 * Per layer l, on the rows of a run (n tokens at positions 0..n-1), x the
 * layer's input (layer 0: the token's embedding row, times the row's
 * embed_scale, plus the learned position's row when there is no RoPE):
 *   xb  = norm_1(x)                       RMSNorm, or LayerNorm with a bias
 *   q   = xb W_q^T (+ b_q), k, v likewise (q: n_heads x head_dim wide, k and
 *         v: n_kv_heads x head_dim; head_dim need not be dim / n_heads)
 *   q, k: the row's qk_norm: each head's part RMSNorm'ed (eps), times
 *         g_q (g_k) of head_dim, the same gains for every head
 *   q, k: RoPE, pair p of each head turned by pos * f_p, the pair (2p, 2p + 1)
 *         (ROPE_PAIRS) or (p, p + head_dim/2) (ROPE_HALF), f_p =
 *         rope_theta^(-2p/head_dim) scaled as rope_scaling says (trained.h)
 *   att = softmax(q_h k_g^T / sqrt(head_dim), causal) v_g per query head h,
 *         its key/value head g = h / (n_heads / n_kv_heads)
 *   mid = x + att W_o^T (+ b_o)
 *   x'  = mid + W_down(silu(W_gate xb2) * W_up xb2)          (SwiGLU)
 *      or mid + gelu_tanh(xb2 W_fc^T + b_fc) W_down^T + b_down  (GPT-2)
 *         with xb2 = norm_2(mid)
 * then logits = norm_f(x) W_cls^T (W_cls = the embedding when tied).
 *
 * Weights stay in their file's type (F32, F16, BF16, or one of ggml's
 * quantized block types: Q8_0, Q4_K, ...) inside its mapping: a matrix is a
 * view (TfMat) of a tensor (StTensor: data, dtype, shape). A product reads W
 * in blocks of TF_W_BLOCK output rows, in place when F32 and aligned, else
 * converted (dequantized row by row, as ggml's dequantize_row_*) into the
 * lane's scratch (at most 16 x 64 x the widest input floats, whatever the
 * model's size); only the vectors (norms and biases) are floats of the
 * model's own. Every product goes
 * through matrix.h's kernels (one FMA chain per element in ascending k):
 * the same bits for 1 or 16 threads, whole sequence, layer by layer, or one
 * row appended from the KV cache. Norms, RoPE and the activations are
 * computed in double and rounded once, saturating at +-FLT_MAX, so finite
 * weights never give inf or NaN. */
#ifndef ATTNVIZ_TRANSFORMER_H
#define ATTNVIZ_TRANSFORMER_H

#include <stddef.h>

#include "arch.h"
#include "error.h"
#include "matrix.h"
#include "weights.h"

enum { TF_W_BLOCK = 64 }; /* output rows of W per task of a product */

/* The numbers of a model, and its row. */
typedef struct {
    const TfArch *arch;
    char model_type[32]; /* the row's name ("llama2.c", "gpt2", "qwen2", ...) */
    int dim;             /* the residual stream */
    int hidden_dim;      /* the MLP's width */
    int n_layers;
    int n_heads;    /* query heads */
    int n_kv_heads; /* key/value heads */
    int head_dim;   /* the width of a head */
    int q_dim;      /* n_heads * head_dim */
    int kv_dim;     /* n_kv_heads * head_dim */
    int vocab;
    int max_pos;              /* the longest run: the context it was trained for (or its window) */
    double eps;               /* the norms' epsilon */
    double rope_theta;        /* RoPE's base (unused without RoPE) */
    RopeScaling rope_scaling; /* config.json's rope_scaling (kind ROPE_SCALE_NONE: none) */
    int tied;                 /* the classifier is the token embedding */
    int qkv_bias;             /* q, k and v have biases */
    int o_bias;               /* the output projection has a bias */
} TfConfig;

/* A matrix (n_out, n_in) as a product's W reads it, inside a tensor:
 * element (o, i) is t's element off + o * ld + i, or off + i * ld + o when
 * transposed (HF's Conv1D stores (in, out)). */
typedef struct {
    const StTensor *t;
    size_t off;
    int ld, transposed;
} TfMat;

/* One layer's weights. Vectors are floats (the model's, or F32 in the
 * mapping); a bias the row does not have is NULL. */
typedef struct {
    const float *norm1_w, *norm1_b; /* (dim) before attention; b: LayerNorm's */
    const float *norm2_w, *norm2_b; /* (dim) before the MLP */
    const float *bq, *bk, *bv, *bo; /* (q_dim), (kv_dim), (kv_dim), (dim) */
    const float *b_fc, *b_down;     /* (hidden_dim), (dim): GELU's MLP */
    const float *q_norm, *k_norm;   /* (head_dim) the gains of the q/k norm (the row's qk_norm), else NULL */
    TfMat wq, wk, wv, wo;           /* (q_dim, dim), (kv_dim, dim) x 2, (dim, q_dim) */
    TfMat w_fc;                     /* (hidden_dim, dim): W_gate (SwiGLU) or W_fc (GELU) */
    TfMat w_up;                     /* (hidden_dim, dim): SwiGLU's W_up */
    TfMat w_down;                   /* (dim, hidden_dim) */
} TfLayer;

typedef struct TfModel TfModel;
struct TfModel {
    TfConfig cfg;
    const StTensor *embed; /* (vocab, dim) */
    const StTensor *wpe;   /* (max_pos, dim): learned positions (no RoPE), else NULL */
    TfMat cls;             /* (vocab, dim) */
    const float *normf_w, *normf_b;
    TfLayer *layers; /* [n_layers] (owned) */
    float *vecs;     /* norms and biases converted to floats (owned), or NULL */
    size_t heap;     /* bytes the model allocated: not the mapped weights */
    /* The reader's: what the views point into, closed by tf_close. */
    void *file;
    size_t file_len;
    StTensor *views;                /* tensor views the reader made (owned), or NULL */
    void (*close_file)(TfModel *m); /* releases file (NULL: nothing to release) */
};

/* Frees the model and closes its file (NULL-safe); every run first. */
void tf_close(TfModel *m);

/* Bytes the model allocated (its norms and biases as floats, bookkeeping). */
static inline size_t tf_heap_bytes(const TfModel *m) { return m ? m->heap : 0; }

/* The model's shape and conventions for the views (trained.h). */
void tf_trained_info(const TfModel *m, TrainedInfo *out);

/* W_o of layer l as floats in nn.Linear's layout (dim, q_dim): element
 * (j, k) at out[j * q_dim + k], whatever the file's type and layout. 0, or
 * -1 when there is no layer l. */
int tf_layer_wo(const TfModel *m, int l, float *out);

/* An intervention on head_out (DESIGN.md §8): the output of query head
 * `head` of layer `layer` (0-based), before W_O, replaced by zeros (mean
 * NULL: zero ablation) or by mean[0..head_dim) (mean ablation). */
typedef struct {
    int layer, head;
    const float *mean;
} TfAblation;

/* The state of a forward pass over up to cap rows (one allocation). */
typedef struct {
    const TfModel *m;
    const TfConfig *cfg;
    int cap, n;            /* rows allocated (cap <= max_pos) and in use */
    int all_logits;        /* logits of every row, or only the last one */
    int lanes;             /* scratch sets: tasks running at once */
    size_t bytes;          /* the size of the one allocation */
    int *ids;              /* (cap) */
    float *resid;          /* (n_layers + 1, cap, dim): layer l's input; the last, before the final norm */
    float *xb;             /* (cap, dim) the attention's input (normed) */
    float *qcache;         /* (n_layers, cap, q_dim) queries after RoPE, heads side by side */
    float *kcache;         /* (n_layers, cap, kv_dim) keys after RoPE */
    float *vcache;         /* (n_layers, cap, kv_dim) values */
    float *q_raw;          /* (cap, q_dim) the last layer's queries as projected (RoPE or q/k norm only) */
    float *k_raw;          /* (cap, kv_dim) its keys as projected */
    float *q_normed;       /* (cap, q_dim) its queries after the q/k norm, before RoPE (qk_norm only, else NULL) */
    float *k_normed;       /* (cap, kv_dim) its keys likewise */
    float *att;            /* (cap, q_dim) the attention's output, heads concatenated */
    float *proj;           /* (cap, dim) att W_o^T */
    float *mid;            /* (cap, dim) the residual after attention */
    float *xb2;            /* (cap, dim) the MLP's input (normed) */
    float *hb;             /* (cap, hidden_dim) the MLP's activation */
    float *hb2;            /* (cap, hidden_dim) W_up xb2 (SwiGLU) */
    float *ffn;            /* (cap, dim) */
    float *xf;             /* (cap, dim) the final norm */
    float *logits;         /* (cap or 1, vocab) */
    double *rope;          /* (cap, head_dim / 2, 2) cos and sin of each position and pair (RoPE) */
    float *pack;           /* x^T packed for a product, or K^T and V of every key/value head */
    MatPacked *kv_packed;  /* (2, n_kv_heads) */
    unsigned char *causal; /* (2 cap) cap ones then zeros */
    float *scratch;        /* lanes x lane_floats: tiles, attention rows, converted weight blocks */
    size_t lane_floats;
    const TfAblation *ablate; /* the heads switched off (the caller's, NULL: none): tf_ablate_rows */
    int n_ablate;
} TfRun;

/* A run of 1..max_pos rows; all_logits keeps every row's logits (cap x
 * vocab floats), else only the last row's. As many lanes as the thread pool
 * has now (at most 16). The model must outlive it. NULL with a message.
 * Free with tf_run_free (NULL-safe). */
TfRun *tf_run_new(const TfModel *m, int cap, int all_logits, AvError *err);
void tf_run_free(TfRun *r);

/* Rows 0..n-1 of layer l's Q (cap, q_dim), K, V (cap, kv_dim), input x (cap, dim). */
static inline float *tf_run_q(const TfRun *r, int l) { return r->qcache + (size_t)l * r->cap * r->cfg->q_dim; }
static inline float *tf_run_k(const TfRun *r, int l) { return r->kcache + (size_t)l * r->cap * r->cfg->kv_dim; }
static inline float *tf_run_v(const TfRun *r, int l) { return r->vcache + (size_t)l * r->cap * r->cfg->kv_dim; }
static inline float *tf_run_x(const TfRun *r, int l) { return r->resid + (size_t)l * r->cap * r->cfg->dim; }

/* The layer-wise steps (a Q/K/V source of the app computes the attention
 * itself): each returns 0, or -1 when a cancel request (cancel.h) stopped
 * it (its outputs are then not to be trusted), the layer does not exist or
 * the run has no rows. tf_embed sets ids[0..n) (every id in the
 * vocabulary, n <= cap; else -1 with a message) and x of layer 0. */
int tf_embed(TfRun *r, const int *ids, int n, AvError *err);
int tf_layer_qkv(TfRun *r, int l);                           /* xb, Q, K, V of layer l from its x */
int tf_layer_attend(TfRun *r, int l);                        /* att from Q, K, V */
int tf_layer_finish(TfRun *r, int l, const float *attn_out); /* the rest: x of l + 1 (attn_out NULL: att) */
int tf_logits(TfRun *r);                                     /* xf and the logits (every row's, or the last) */

/* The logits of row `row` (0..n-1) alone into r->logits (a run without
 * all_logits): the same bits as the row's logits of a whole forward. */
int tf_logits_row(TfRun *r, int row);

/* All of it for ids[0..n). */
int tf_forward(TfRun *r, const int *ids, int n, AvError *err);

/* Rows [r0, r0 + rows) of layer l's heads' outputs att (cap x q_dim, the
 * heads joined, as r->att) with the run's ablations (r->ablate) applied:
 * each ablated head's part zeroed or set to its mean. The engine's own
 * attention applies them (tf_layer_attend, tf_extend, tf_forward); a caller
 * that gives tf_layer_finish outputs of its own applies them there itself.
 * With r->ablate set, everything downstream of the first ablated layer is
 * the ablated model's. */
void tf_ablate_rows(const TfRun *r, int l, float *att, int r0, int rows);

/* Appends ids[0..n) to the run's rows and computes only them from the keys
 * and values of the rows before (a KV cache): the same bits as a forward of
 * the whole sequence. The logits of the new rows (or the last row) are set;
 * xb ... ffn hold the last layer's values of the new rows only. -1 with a
 * message when they do not fit, an id is out of the vocabulary, or cancelled. */
int tf_extend(TfRun *r, const int *ids, int n, AvError *err);

/* The layer-wise steps on rows [r0, r0 + rows) alone, the rows before kept
 * (a sentence edited after row r0: a causal model's rows before it do not
 * change): the same bits as the steps on every row. tf_embed_from keeps
 * rows [0, r0) (ids[0..r0) must be the run's), sets ids[r0..n) and their x
 * of layer 0 (n == r0: the run cut to n rows); -1 with a message as
 * tf_embed. The others return 0, or -1 when cancelled or the rows are not
 * the run's; tf_logits_from: the logits of rows r0 on (of the last row
 * without all_logits). */
int tf_embed_from(TfRun *r, const int *ids, int n, int r0, AvError *err);
int tf_layer_qkv_rows(TfRun *r, int l, int r0, int rows);
int tf_layer_finish_rows(TfRun *r, int l, const float *attn_out, int r0, int rows);
int tf_logits_from(TfRun *r, int r0);

/* The id of the largest of x[0..n) (the first of equal ones: run.c's argmax). */
int tf_argmax(const float *x, int n);

/* Greedy decoding: forwards prompt[0..n_prompt), then appends the argmax
 * token `steps` times (each through tf_extend but the last), into
 * out[0..steps). Stops before a token for which is_end(ctx, id) is 1 (not
 * stored; is_end NULL: never). Returns the tokens written, or -1 with a
 * message. r needs cap >= n_prompt + steps - 1. */
int tf_generate_greedy(TfRun *r, const int *prompt, int n_prompt, int steps, int *out,
                       int (*is_end)(const void *ctx, int id), const void *ctx, AvError *err);

#endif
