/* trained.h - what the views ask of a trained model, whatever its file:
 * its shape and conventions (TrainedInfo) and the chain of one layer as it
 * computes it (LayerChain). A trained model (source_trained.c, whatever its
 * format) gives both through its Source (source.h); the views ask
 * model_trained and model_layer_chain (model.h), never which file it was. */
#ifndef ATTNVIZ_TRAINED_H
#define ATTNVIZ_TRAINED_H

/* How RoPE pairs a head's elements. */
typedef enum {
    ROPE_NONE = 0, /* no RoPE: learned positions (GPT-2) */
    ROPE_PAIRS,    /* pair p is (2p, 2p + 1): llama2.c */
    ROPE_HALF,     /* pair p is (p, p + head_size / 2): Hugging Face's rotate-half */
} RopeLayout;

/* How RoPE's frequencies are scaled for a longer context: config.json's
 * rope_scaling, as Hugging Face's modeling_rope_utils.py computes it. */
typedef enum {
    ROPE_SCALE_NONE = 0, /* theta^(-2p / head_size) */
    ROPE_SCALE_LINEAR,   /* "linear": every frequency divided by factor */
    ROPE_SCALE_LLAMA3,   /* "llama3": by wavelength 2 pi / f against the original context
                            L = original_max_pos: above L / low_freq_factor divided by factor,
                            below L / high_freq_factor kept, between them the smooth mix
                            (1 - s) f / factor + s f, s = (L / wavelength - low) / (high - low) */
} RopeScaleKind;

typedef struct {
    RopeScaleKind kind;
    double factor;
    double low_freq_factor, high_freq_factor; /* llama3: high > low */
    int original_max_pos;                     /* llama3: the context it was trained for first */
} RopeScaling;

/* The frequency of pair p of a head of hs elements: theta^(-2p / hs),
 * scaled by s (NULL: not). */
double rope_freq(double theta, int hs, const RopeScaling *s, int p);

typedef struct {
    const char *arch; /* the row of arch.c: "llama2.c", "gpt2", "llama", "qwen2", "mistral", "qwen3" */
    int n_layers, n_heads, n_kv_heads, head_size;
    int dim, q_dim, kv_dim, hidden_dim, vocab, ctx; /* ctx: the longest sentence it takes */
    RopeLayout rope;
    double rope_theta;        /* pair p turns by pos * rope_theta^(-2p / head_size), scaled: */
    RopeScaling rope_scaling; /* (trained_rope_freq) */
    int qk_norm;              /* q and k of each head RMSNorm'ed (their own gains) before RoPE: Qwen3 */
    int layernorm;            /* LayerNorm with a bias (GPT-2); else RMSNorm */
    int gelu;                 /* FFN gelu(xb2 W_fc + b) W_proj + b (GPT-2); else SwiGLU */
    int qkv_bias;             /* Q, K and V have biases */
    int o_bias;               /* the output projection has a bias */
} TrainedInfo;

/* The angle's frequency of pair p: rope_theta^(-2p / head_size), scaled
 * as rope_scaling says. */
double trained_rope_freq(const TrainedInfo *t, int p);
/* The elements of a head that pair p turns (a, b). */
void trained_rope_pair(const TrainedInfo *t, int p, int *a, int *b);

/* The chain of one layer as the model computes it, for the pipeline view,
 * the cell page and word gravity: every matrix of the layer's forward pass
 * over the n tokens (row-major, n rows). The attention is the app's (the
 * heads' outputs shown, whatever the mask), the rest the engine's own steps
 * from the layer's input, so the numbers are the bits of the model's
 * forward: x_next is the next layer's x. Valid until the model changes.
 *
 * Q and K on their way to the scores: q_raw is the projection; a model with
 * the q/k norm (TrainedInfo qk_norm) then RMSNorms each head's part with its
 * own gain (q_normed); RoPE turns that (q); the heads "before RoPE"
 * (q_raw_heads) are RoPE's input: q_normed where there is the norm, else
 * q_raw. */
typedef struct {
    int layer, n; /* n: the tokens (rows) */
    int dim, q_dim, kv_dim, hidden_dim, head_size, n_heads, n_kv_heads;
    const float *x;           /* (n, dim) the layer's input: x_l */
    const float *xb;          /* (n, dim) the attention's norm of x */
    const float *q_raw;       /* (n, q_dim) xb W_q^T (+ b): the projection */
    const float *k_raw;       /* (n, kv_dim) xb W_k^T (+ b) */
    const float *q_normed;    /* (n, q_dim) each head of q_raw RMSNorm'ed times g_q; NULL: no q/k norm */
    const float *k_normed;    /* (n, kv_dim) each head of k_raw RMSNorm'ed times g_k; NULL likewise */
    const float *q;           /* (n, q_dim) queries after RoPE (q_raw without RoPE) */
    const float *k;           /* (n, kv_dim) keys after RoPE */
    const float *v;           /* (n, kv_dim) values */
    const float *q_raw_heads; /* (n_heads, n, head_size): RoPE's input (q_normed, else q_raw) head by head */
    const float *k_raw_heads; /* (n_kv_heads, n, head_size): RoPE's input of the keys, likewise */
    const float *att;         /* (n, q_dim) the heads' outputs joined */
    const float *proj;        /* (n, dim) att W_o^T (+ b_o) */
    const float *mid;         /* (n, dim) x + proj: the residual after attention */
    const float *xb2;         /* (n, dim) the FFN's norm of mid */
    const float *hb;          /* (n, hidden_dim) the FFN's activation */
    const float *ffn;         /* (n, dim) the FFN's output */
    const float *x_next;      /* (n, dim) mid + ffn: the next layer's input */
    const float *wo;          /* (dim, q_dim) W_o as floats, element (j, k) at wo[j * q_dim + k] */
    const double *rope;       /* (n, head_size / 2, 2) cos and sin of each position and pair; NULL: no RoPE */
} LayerChain;

/* One named integer of a source's own configuration. */
typedef struct {
    const char *key;
    long long value;
} SourceFact;

#endif
