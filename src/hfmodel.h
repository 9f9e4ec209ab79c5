/* hfmodel.h - a Hugging Face checkpoint folder (config.json and
 * model.safetensors, or its index and shards) as a causal transformer:
 * GPT-2 and the Llama family (llama, qwen2, mistral), and their forward pass
 * whole or layer by layer, as llama.h does for llama2.c checkpoints (issue 14).
 *
 * GPT-2, per layer l (x: the layer's input; LayerNorm with bias, eps from
 * config.json's layer_norm_epsilon; h.l.* tensors, optionally "transformer."):
 *   xb  = LN_1(x);  [q k v] = xb C_attn + b_attn   Conv1D: weight (in, out)
 *   att = softmax(q_h k_h^T / sqrt(hs), causal) v_h   per head
 *   mid = x + att C_proj + b_proj
 *   x'  = mid + gelu_tanh(LN_2(mid) C_fc + b_fc) C_proj2 + b_proj2
 * with x of layer 0 = wte[id] + wpe[pos], logits = LN_f(x) wte^T (tied).
 *
 * Llama family (RMSNorm, eps from rms_norm_eps; nn.Linear: weight (out, in)):
 *   xb  = RMSNorm(x) * w_in;  q = xb W_q^T (+ b_q), k, v likewise
 *   q, k: RoPE in HF's rotate-half layout, pairs (i, i + hs/2) of each head,
 *         angle pos * rope_theta^(-2i/hs)
 *   att = grouped-query attention: query head h reads key/value head
 *         h / (n_heads / n_kv_heads)
 *   mid = x + att W_o^T (+ b_o)
 *   x'  = mid + W_down(silu(W_gate xb2) * W_up xb2),  xb2 = RMSNorm(mid) * w_post
 * with x of layer 0 = embed_tokens[id], logits = RMSNorm(x) * w_norm lm_head^T
 * (lm_head = embed_tokens when tie_word_embeddings).
 *
 * Memory: the matrices stay mapped in the file's type (F32, F16 or BF16).
 * A product reads W in blocks of HF_W_BLOCK output rows; a block not usable
 * in place (not F32, not 4-byte aligned, or a Conv1D's transposed layout) is
 * converted to float in the lane's scratch panel first: HF_W_BLOCK x (widest
 * input) floats per lane, so at most 16 x 64 x in_max x 4 bytes (20 MB for
 * Qwen2.5-0.5B's 4864) whatever the size of the model. An embedding row is
 * converted when it is read. Only the vectors (norms and biases, about 13
 * dim floats a layer) are converted at open, into the model's one allocation
 * (hf_model_heap_bytes). Products use matrix.h's kernels: the same bits for
 * any thread count, whole sequence or layer by layer. */
#ifndef ATTNVIZ_HFMODEL_H
#define ATTNVIZ_HFMODEL_H

#include <stddef.h>

#include "error.h"
#include "matrix.h"

enum { HF_W_BLOCK = 64 }; /* output rows of W per task of a product */

typedef enum { HF_GPT2 = 0, HF_LLAMA } HfArch;

typedef struct {
    HfArch arch;
    char model_type[32]; /* config.json's, e.g. "gpt2", "qwen2" */
    int dim;             /* hidden_size / n_embd: the residual stream */
    int hidden_dim;      /* the FFN: intermediate_size / n_inner (4 dim) */
    int n_layers;
    int n_heads;    /* query heads */
    int n_kv_heads; /* key/value heads (GPT-2: n_heads) */
    int head_dim;   /* config's head_dim, or dim / n_heads */
    int q_dim;      /* n_heads * head_dim */
    int kv_dim;     /* n_kv_heads * head_dim */
    int vocab;
    int max_pos;       /* n_positions / max_position_embeddings (sliding_window if smaller) */
    double eps;        /* LayerNorm's or RMSNorm's epsilon */
    double rope_theta; /* Llama family */
    int tied;          /* the classifier is the token embedding */
    int qkv_bias;      /* q, k, v projections have biases (GPT-2, Qwen2, attention_bias) */
    int o_bias;        /* the output projection has a bias (GPT-2, attention_bias) */
} HfConfig;

/* Parses config.json's text json[0..len) into *out (zeroed first); `name`
 * (escaped) starts every message. 0, or -1 with one line: invalid JSON, an
 * architecture not supported (named), a field missing, not an integer or
 * out of range, or a variant not supported (rope_scaling, an activation
 * other than GPT-2's tanh GELU or silu, mlp_bias, heads that do not divide). */
int hf_config_parse(HfConfig *out, const char *json, size_t len, const char *name, AvError *err);

typedef struct HfModel HfModel;

/* Opens dir (config.json, and model.safetensors or model.safetensors.index.json
 * with its shards), checks that config.json names a supported architecture
 * and that every tensor it implies is there with the shape it implies.
 * NULL with one line on failure, e.g.
 *   "m/config.json: model_type \"bert\" is not supported (gpt2, llama, qwen2, mistral)"
 *   "m/model.safetensors: tensor h.0.attn.c_attn.weight: shape [16, 40], expected [16, 48]"
 * Free with hf_close (NULL-safe; every run first). */
HfModel *hf_open(const char *dir, AvError *err);
void hf_close(HfModel *m);

const HfConfig *hf_config(const HfModel *m);
/* Bytes the model allocated (its norms and biases as floats, its bookkeeping):
 * not the weights, which stay in the mapping. */
size_t hf_model_heap_bytes(const HfModel *m);

/* The state of a forward pass over up to cap rows (one allocation). */
typedef struct {
    const HfModel *m;
    const HfConfig *cfg;
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
    float *q_raw;          /* (cap, q_dim) the last layer's queries before RoPE (Llama; GPT-2: as qcache) */
    float *k_raw;          /* (cap, kv_dim) its keys before RoPE */
    float *att;            /* (cap, q_dim) the attention's output, heads concatenated */
    float *proj;           /* (cap, dim) att W_o^T */
    float *mid;            /* (cap, dim) the residual after attention */
    float *xb2;            /* (cap, dim) the FFN's input (normed) */
    float *hb;             /* (cap, hidden_dim) the FFN's activation */
    float *hb2;            /* (cap, hidden_dim) up_proj (Llama) */
    float *ffn;            /* (cap, dim) */
    float *xf;             /* (cap, dim) the final norm */
    float *logits;         /* (cap or 1, vocab) */
    double *rope;          /* (cap, head_dim / 2, 2) cos and sin (Llama) */
    float *pack;           /* x^T packed for a product, or K^T and V of every key/value head */
    MatPacked *kv_packed;  /* (2, n_kv_heads) */
    unsigned char *causal; /* (2 cap) cap ones then zeros */
    float *scratch;        /* lanes x lane_floats: tiles, attention rows, converted weight blocks */
    size_t lane_floats;
} HfRun;

/* A run of 1..max_pos rows; all_logits keeps every row's logits. As many
 * lanes as the thread pool has now (at most 16). NULL with a message. Free
 * with hf_run_free (NULL-safe). */
HfRun *hf_run_new(const HfModel *m, int cap, int all_logits, AvError *err);
void hf_run_free(HfRun *r);

/* Rows 0..n-1 of layer l's Q (cap, q_dim), K, V (cap, kv_dim), input x (cap, dim). */
static inline float *hf_run_q(const HfRun *r, int l) { return r->qcache + (size_t)l * r->cap * r->cfg->q_dim; }
static inline float *hf_run_k(const HfRun *r, int l) { return r->kcache + (size_t)l * r->cap * r->cfg->kv_dim; }
static inline float *hf_run_v(const HfRun *r, int l) { return r->vcache + (size_t)l * r->cap * r->cfg->kv_dim; }
static inline float *hf_run_x(const HfRun *r, int l) { return r->resid + (size_t)l * r->cap * r->cfg->dim; }

/* The steps (llama.h's): each returns 0, or -1 when cancelled, the layer does
 * not exist or the run has no rows. hf_embed sets ids[0..n) (every id in the
 * vocabulary, n <= cap; else -1 with a message) and x of layer 0. */
int hf_embed(HfRun *r, const int *ids, int n, AvError *err);
int hf_layer_qkv(HfRun *r, int l);                           /* xb, Q, K, V of layer l from its x */
int hf_layer_attend(HfRun *r, int l);                        /* att from Q, K, V */
int hf_layer_finish(HfRun *r, int l, const float *attn_out); /* the rest: x of l + 1 (attn_out NULL: att) */
int hf_logits(HfRun *r);

/* The logits of row `row` (0..n-1) alone into r->logits (a run without
 * all_logits): the same bits as the row's logits of a whole forward. */
int hf_logits_row(HfRun *r, int row);

/* W_o of layer l as floats in nn.Linear's layout (dim, q_dim): element
 * (j, k) at out[j * q_dim + k], whatever the file's type and layout. */
int hf_layer_wo(const HfModel *m, int l, float *out);

/* All of it for ids[0..n). */
int hf_forward(HfRun *r, const int *ids, int n, AvError *err);

/* Appends ids[0..n) to the run's rows and computes only them from the keys
 * and values of the rows before (a KV cache): the same bits as a forward of
 * the whole sequence. The logits of the new rows (or the last row) are set;
 * xb ... ffn hold the last layer's values of the new rows only. -1 with a
 * message when they do not fit, an id is out of the vocabulary, or cancelled. */
int hf_extend(HfRun *r, const int *ids, int n, AvError *err);

/* The layer-wise steps on rows [r0, r0 + rows) alone, the rows before kept
 * (a sentence edited after row r0: a causal model's rows before it do not
 * change): the same bits as the steps on every row. hf_embed_from keeps
 * rows [0, r0) (ids[0..r0) must be the run's), sets ids[r0..n) and their x
 * of layer 0 (n == r0: the run cut to n rows); -1 with a message as
 * hf_embed. The other two return 0, or -1 when cancelled or the rows are
 * not the run's. */
int hf_embed_from(HfRun *r, const int *ids, int n, int r0, AvError *err);
int hf_layer_qkv_rows(HfRun *r, int l, int r0, int rows);
int hf_layer_finish_rows(HfRun *r, int l, const float *attn_out, int r0, int rows);

#endif
