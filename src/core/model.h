/* model.h - the attention model: configuration, seeded weights and the stage
 * cache of DESIGN.md §1.
 *
 *   text --tokenize--> tokens --embed(+PE)--> X (n, d_model)
 *     --project per head--> Q_h (n, d_k), K_h (n, d_k), V_h (n, d_v)
 *     --score--> S_h = Q_h K_h^T (n_q, n_k) --scale--> S'_h --mask--> M_h (-inf)
 *     --softmax rows--> A_h, row sums --mix--> O_h = A_h V_h (n_q, d_v)
 *     --concat, W_O--> Y (n, d_model)
 *
 * Setting a parameter marks the earliest stage it affects as stale; one
 * model_update() recomputes from there on. The front end reads the results
 * (fields below and model_* accessors); it never computes them. Fields of
 * Model are read-only outside the model's files (src/model*.c and the
 * sources' files). Every matrix pointer in it (and in its HeadData) may move
 * after any successful setter (a change of shape makes new arenas): read them
 * again after each setter, never keep one across it.
 *
 * A model takes its Q, K, V from a source (source.h): a sentence through
 * seeded weights (the default), a Q/K/V file (one head; no embeddings,
 * projections or W_O), or any other Source given to model_set_source. A
 * source may have several layers: each has its heads and their stages, and
 * m->head shows one of them (model_set_layer). */
#ifndef ATTNVIZ_MODEL_H
#define ATTNVIZ_MODEL_H

#include <stdint.h>

#include "error.h"
#include "mask.h"
#include "matrix.h"
#include "qkvfile.h"
#include "source.h"
#include "tokenize.h"

/* Ranges of the configuration (also in --help and the README). */
#define MODEL_MAX_HEADS  64
#define MODEL_MAX_DIM    4096
#define MODEL_MAX_LAYERS 128
/* Budget of n_q * n_k * heads: each (n_q, n_k) stage of every head is kept
 * (raw, scaled, masked, weights: 16 bytes a cell), so 2^24 cells is 256 MiB. */
#define MODEL_MAX_CELLS ((int64_t)1 << 24)
/* Budget of all other float storage (embeddings, weights, Q/K/V, outputs). */
#define MODEL_MAX_BYTES ((int64_t)1 << 30)
/* Budget of the multiply-adds of one full pass (and random numbers drawn):
 * a few seconds at worst, so that a key never freezes the screen for long. */
#define MODEL_MAX_OPS ((int64_t)1 << 32)

typedef enum { POS_NONE, POS_SINUSOIDAL, POS_KIND_COUNT } PosKind;
const char *pos_name(PosKind p);
int pos_parse(const char *s, PosKind *out, AvError *err);

/* How a query and a key are compared (the raw scores stage):
 *   dot       q.k                    then / sqrt(d_k) when scaling is on ("scaled")
 *   cosine    q.k / (|q| |k|)        then * sqrt(d_k) when scaling is on: the
 *                                    temperature that gives cosines the spread of
 *                                    scaled dot products (q, k of norm ~sqrt(d_k))
 *   distance  -|q - k|^2             then / sqrt(d_k) when scaling is on
 *   additive  v^T tanh(W1 q + W2 k)  (Bahdanau; W1, W2: d_k x d_k of N(0, 1/d_k),
 *                                    v: d_k of N(0, 1), seeded per head; no scaling) */
typedef enum { SCORE_DOT, SCORE_COSINE, SCORE_DISTANCE, SCORE_ADDITIVE, SCORE_KIND_COUNT } ScoreKind;
/* "dot" or "scaled" (dot with scaling on), "cosine", "distance", "additive". */
const char *score_name(ScoreKind k, int scale);
/* Parses --score: "scaled" sets scaling on, "dot" off; the others leave it. */
int score_parse(const char *s, ScoreKind *kind, int *scale, AvError *err);

/* The three uses of attention in the Transformer:
 *   self        encoder self-attention: queries and keys from the sentence
 *   causal-self masked decoder self-attention: the target sentence (or the
 *               sentence when there is none), with the causal mask
 *   cross       encoder-decoder attention: queries from the target, keys and
 *               values from the source; position masks do not apply */
typedef enum { ATTN_SELF, ATTN_CAUSAL_SELF, ATTN_CROSS, ATTN_MODE_COUNT } AttnMode;
const char *attn_mode_name(AttnMode a);
int attn_mode_parse(const char *s, AttnMode *out, AvError *err);

typedef struct {
    int d_model;   /* embedding width */
    int heads;     /* number of heads h */
    int d_k;       /* query/key width per head */
    int d_v;       /* value width per head */
    uint64_t seed; /* key of every random stream */
    MaskKind mask;
    int window; /* W of mask window:W */
    int prefix; /* P of mask prefix:P */
    int scale;  /* 1: the score's scaling (see ScoreKind) is on */
    PosKind pos;
    ScoreKind score;
    int tie_qk; /* 1: W_K = W_Q, so raw dot scores are symmetric */
    AttnMode attn;
    int layers; /* the source's layers (1 for the seeded sentence and a Q/K/V file); set by the source */
} ModelConfig;

/* The mask as written in the status line and --mask: "window:3". */
void model_mask_name(const ModelConfig *c, char *buf, size_t cap);

/* d_model 64, 4 heads, d_k = d_v = 16, seed 42, no mask, scaling on, no PE. */
void model_config_default(ModelConfig *c);

/* Checks every range, with a message naming the field and its range. */
int model_config_check(const ModelConfig *c, AvError *err);

typedef enum {
    STAGE_EMBED,   /* E, PE, X = E + PE */
    STAGE_PROJECT, /* W_Q, W_K, W_V, W_O; Q_h, K_h, V_h */
    STAGE_SCORES,  /* S_h = Q_h K_h^T */
    STAGE_SCALED,  /* S'_h = S_h / sqrt(d_k) */
    STAGE_MASKED,  /* the mask, M_h */
    STAGE_WEIGHTS, /* A_h, row sums */
    STAGE_OUTPUT,  /* O_h = A_h V_h */
    STAGE_FINAL,   /* concat(O_h), Y = concat W_O */
    STAGE_COUNT,
    STAGE_NONE = STAGE_COUNT /* nothing stale */
} Stage;
const char *stage_name(Stage s);

typedef struct {
    float *wq, *wk;         /* (d_model, d_k) */
    float *wv;              /* (d_model, d_v) */
    float *q, *k;           /* (n_q, d_k), (n_k, d_k) */
    float *v;               /* (n_k, d_v) */
    float *scores;          /* (n_q, n_k) raw Q K^T */
    float *scaled;          /* (n_q, n_k) scores / sqrt(d_k), or scores when scaling is off */
    float *masked;          /* (n_q, n_k) scaled, -inf where the mask forbids */
    float *weights;         /* (n_q, n_k) softmax rows; exactly 0 where masked */
    double *row_sums;       /* (n_q) sum of the row's weights: 1, or 0 for a fully masked row */
    double *entropy;        /* (n_q) entropy of the row's weights in bits: -sum w log2 w */
    float *max_weight;      /* (n_q) the row's largest weight */
    float *out;             /* (n_q, d_v) A V */
    float *pack_k, *pack_v; /* room to pack K^T and V in each pass (stages arena) */
    float *w1, *w2;         /* (d_k, d_k) additive attention, only with score additive; drawn with the weights */
    float *va;              /* (d_k) additive attention's v */
    double *add_a, *add_b;  /* (n_q, d_k) Q W1^T, (n_k, d_k) K W2^T: additive attention's products, in
                             * double: at the largest floats a float sum would overflow */
} HeadData;

struct Model {
    const Source *src; /* where Q, K and V come from (source.h) */
    void *src_data;    /* its data (owned: src->free frees it) */
    ModelConfig cfg;   /* from a source that cannot reshape: heads, d_k, d_v and layers are its */

    /* input */
    char *text; /* the (source) sentence (source_text), NUL-terminated */
    size_t text_len;
    Tokenizer *tokenizer;
    TokenList tokens; /* the sentence's tokens; n_pad <pad> tokens follow them */
    int n_pad;        /* <pad> tokens after the sentence (--pad) */
    char *target;     /* the target sentence (--target), or NULL */
    size_t target_len;
    TokenList target_tokens;
    int n_q, n_k;             /* query rows, key rows (equal for self-attention) */
    int q_target, k_target;   /* the queries / keys are the target sentence's tokens */
    unsigned char *painted;   /* painted mask (n_q x n_k, 1 = visible), or NULL: all visible */
    int painted_q, painted_k; /* its shape */

    /* storage: three arenas (see model_storage.c), the matrices below point into them */
    void *embed_arena, *weights_arena, *stages_arena;
    size_t stages_cap;   /* bytes of stages_arena (kept across a reshape that fits in it) */
    size_t weights_cap;  /* bytes of weights_arena */
    void *weights_spare; /* the weights arena before the last reshape, for the next one that fits in it */
    size_t weights_spare_cap;

    /* stages */
    float *embed;                     /* (n_k, d_model) E: token vectors of the keys' sentence */
    float *pe;                        /* (n_k, d_model) positional encoding (zeros when off) */
    float *x;                         /* (n_k, d_model) X = E + PE */
    float *embed_q, *pe_q, *xq;       /* (n_q, d_model) the same for the queries' sentence
                                     (the same arrays in self-attention) */
    HeadData *heads;                  /* layers * heads entries, layer by layer */
    HeadData *head;                   /* the heads of the layer shown: heads + layer * cfg.heads */
    int layer;                        /* the layer shown, 0-based */
    float *wo;                        /* (heads * d_v, d_model) */
    double *wo_normals;               /* the unit normals of W_O (scaled by 1/sqrt(heads * d_v) into wo) */
    int keep_heads, keep_dk, keep_dv; /* weights still valid after a change of shape: heads
                               [0, keep_heads), columns [0, keep_dk) and [0, keep_dv) */
    MatPacked po;                     /* W_O packed */
    MatPacked pq;                     /* [W_Q of every head] (d_model, heads * d_k), packed */
    MatPacked pkv;                    /* [W_K of every head | W_V of every head] (d_model, heads * (d_k + d_v)) */
    int packed_tie;                   /* pkv holds W_Q in place of W_K */
    float *tq, *tkv;                  /* (n_q, heads * d_k), (n_k, heads * (d_k + d_v)): products before they are
                                         split into the heads */
    float *concat;                    /* (n_q, heads * d_v) */
    float *y;                         /* (n_q, d_model) */
    unsigned char *allowed;           /* (n_q, n_k) 1 = key visible to query */
    unsigned char *pad_key;           /* (n_k) 1 for a <pad> key */
    int *n_allowed;                   /* (n_q) keys visible to each query */
    int *keys_end;                    /* (n_q) the last visible key + 1 (0: none): later keys are masked */

    Stage stale;                         /* earliest stage to recompute in any layer; STAGE_NONE when fresh */
    Stage layer_stale[MODEL_MAX_LAYERS]; /* the same per layer */
    int weights_stale;                   /* the random weights must be drawn again */
    int additive_stale;                  /* additive attention's W1, W2, v must be drawn again */
    unsigned long computed[STAGE_COUNT]; /* how often each stage was computed (in any layer) */
    /* Edits at the end of a causal sentence (issue 17): a source that keeps
     * its rows before the edit says so, and only the rows after it are
     * computed (model_internal.h: model_resize_rows). */
    int room;         /* rows (and keys) the stages arena has room for, when more than n_q, n_k; else 0 */
    int keep_rows;    /* rows [0, keep_rows) of every stage of every layer are current: the next update
                         computes the rows after them only (0: every row) */
    int rows_updated; /* query rows the last update computed from the projections on */
    /* A model that predicts (source.h: predict): the row whose next tokens
     * the update computes (model_want_next). */
    int next_row;   /* -1: none asked for */
    int next_ready; /* 1: the update computed next_row's since the rows last changed */
};

/* A new model with the default configuration and no text. Free with
 * model_free (NULL-safe). Returns NULL when out of memory. */
Model *model_new(void);
void model_free(Model *m);

/* Each setter validates first and makes room for the new shapes; on failure
 * (range, tokenizer error, budget, out of memory) nothing changes and err says
 * why. On success the affected stages are marked stale; call model_update()
 * to recompute, which cannot fail. */
int model_set_config(Model *m, const ModelConfig *c, AvError *err);
int model_set_text(Model *m, const char *text, size_t len, AvError *err);
int model_set_tokenizer(Model *m, TokPreset preset, const char *pattern, AvError *err);
/* Takes the matrices of *d (which is left zeroed) and switches to the Q/K/V
 * file source. */
int model_set_qkv(Model *m, QkvData *d, AvError *err);
/* Switches to source src with its data (owned by the model from then on,
 * also on failure, when src->free frees it) and shape; the configuration's
 * mask, scaling and score kind stay. Every stage is stale. */
int model_set_source(Model *m, const Source *src, void *data, const SourceShape *shape, AvError *err);

/* What the source can do (SRC_*). */
static inline unsigned model_caps(const Model *m) { return m->src->caps; }
static inline int model_can(const Model *m, unsigned caps) { return (m->src->caps & caps) == caps; }

/* Shows layer l (0-based; clamped to the layers): m->head points at its heads. */
void model_set_layer(Model *m, int l);
/* The heads of layer l. */
static inline HeadData *model_layer_heads(const Model *m, int l) { return m->heads + (size_t)l * m->cfg.heads; }
/* The target sentence of cross-attention (and of causal self-attention);
 * len 0 with text NULL removes it (back to self-attention). */
int model_set_target(Model *m, const char *text, size_t len, AvError *err);
/* n <pad> tokens after the sentence (0..TOK_MAX_TOKENS in all). */
int model_set_pad(Model *m, int n, AvError *err);
/* Several settings of a source with tokenizers at once (a follower takes a
 * teacher's whole state): the tokenizer, sentence, target sentence, <pad>
 * tokens and configuration, tokenized and checked against the budgets as ONE
 * configuration, then applied together; on failure nothing changes. A
 * state that is valid as a whole is taken even when no order of the single
 * setters would pass (heads=1 with 3000 words, from heads=4 with 6). */
typedef struct {
    const ModelConfig *cfg; /* NULL: the model's */
    int set_tokenizer;      /* then tokenizer (a preset) */
    TokPreset tokenizer;
    int set_text; /* then text[0..text_len) */
    const char *text;
    size_t text_len;
    int set_target; /* then target[0..target_len), NULL: none */
    const char *target;
    size_t target_len;
    int pad; /* -1: the model's */
} ModelChange;
int model_change(Model *m, const ModelChange *ch, AvError *err);
/* The painted mask: toggle one cell, make every cell visible, or take a grid
 * (n_q x n_k, 1 = visible; copied). Cells outside a grid of another shape
 * are visible. */
void model_paint_toggle(Model *m, int i, int j);
void model_paint_clear(Model *m);
int model_set_painted(Model *m, const unsigned char *grid, int n_q, int n_k, AvError *err);
/* 1 when cell (i, j) is visible in the painted grid. */
int model_painted_at(const Model *m, int i, int j);

/* Checks the budgets for a configuration and token counts: attention cells,
 * bytes of matrices, multiply-adds of a pass. */
int model_check_budget(const ModelConfig *c, int n_q, int n_k, const Source *src, AvError *err);

/* A text that is too long (model_fit.c): how many tokens it has, and how
 * many of its first ones the model can take. */
typedef struct {
    int total;        /* the text's tokens with the model's tokenizer */
    int fit;          /* the most first tokens within TOK_MAX_TOKENS (less the pads)
                         and the budgets of configuration c with the sentence's
                         fit + pads rows on its sides; fit >= total when the whole
                         text fits */
    int budget_bound; /* 1 when a budget (not TOK_MAX_TOKENS) makes fit smaller than total */
} TextFit;

/* Measures text[0..len) for the seeded sentence's tokenizer (SRC_TOKENIZERS)
 * with configuration c (the shape the model will have) and `pad` <pad>
 * tokens after it. n_q: 0 when the sentence is the queries too (self-
 * attention), the queries' count when they are another sentence's (cross-
 * attention), -1 when the sentence is on neither side (causal self-attention
 * of the target: only TOK_MAX_TOKENS applies). Returns 0, or -1 with err
 * (the tokenizer's error; a source with a tokenizer of its own). */
int model_text_fit(const Model *m, const ModelConfig *c, int pad, int n_q, const char *text, size_t len, TextFit *out,
                   AvError *err);

/* *cut = the bytes of text[0..len) that hold its first n tokens and no more
 * (the end of token n; the text tokenizes to the same first n tokens when
 * cut there: checked). n >= the text's tokens: *cut = len. Returns 0, or -1
 * with err. */
int model_text_first(const Model *m, const char *text, size_t len, int n, size_t *cut, AvError *err);

/* Marks stage s (and all after it) stale, as a setter would: for benchmarks
 * and tests of the stage cache. */
void model_invalidate(Model *m, Stage s);
/* The same for layer l alone (a source whose layer l changed; a source that
 * feeds each layer from the one before marks the later layers itself). */
void model_invalidate_layer(Model *m, int l, Stage s);

/* Recomputes the stale stages up to `last` (inclusive) and leaves the later
 * ones stale: the front end computes the layer output Y (STAGE_FINAL) only
 * for the views that show it. A cancel request (cancel.h) stops it within a
 * block of work; m->stale then still names the stage it began from. */
void model_update_to(Model *m, Stage last);

/* Recomputes every stale stage. Returns 0 (kept for callers that check). */
int model_update(Model *m, AvError *err);

/* Mean over the rows of head h of the entropy of the weights, and of its
 * largest possible value log2(n_allowed) (rows with no allowed key count 0),
 * in bits. */
void model_mean_entropy(const Model *m, int h, double *mean, double *max);
/* The same for a head of any layer (model_layer_heads). */
void model_head_entropy(const Model *m, const HeadData *hd, double *mean, double *max);

/* How far head h's raw scores are from symmetric: max |S - S^T| (square
 * heads; 0 otherwise, and 0 when Q and K are tied). O(n^2): the views ask for
 * the head they show. */
double model_asymmetry(const Model *m, int h);

/* Labels of query row i and key column j (NUL-terminated, raw: escape them
 * before printing). */
const char *model_query_label(const Model *m, int i);
const char *model_key_label(const Model *m, int j);
/* The same with their length in bytes: a token may hold a NUL byte. */
const char *model_query_text(const Model *m, int i, size_t *len);
const char *model_key_text(const Model *m, int j, size_t *len);
int model_key_id(const Model *m, int j); /* vocabulary id (the source's), e.g. j for a Q/K/V file */

/* A trained model's shape and conventions, or NULL (trained.h). */
const TrainedInfo *model_trained(const Model *m);
/* The chain of layer l of a trained model (trained.h): 0, or -1 with a
 * message (not a trained model, no such layer, memory, cancelled). The
 * source keeps the layer shown last and recomputes only when its input or
 * the heads' outputs changed. */
int model_layer_chain(const Model *m, int l, LayerChain *out, AvError *err);
/* A trained model's vocabulary piece id (raw bytes), what it prints as after
 * prev, and greedy decoding of up to `steps` tokens after the sentence
 * (source.h); -1 with a message, or NULL/"" when m is not a trained model. */
const char *model_token_piece(const Model *m, int id, size_t *len);
const char *model_token_decode(const Model *m, int prev, int id, size_t *len);
int model_generate(const Model *m, int steps, int *out, AvError *err);

/* Head ablation of a trained model (source.h: ablate): the heads switched
 * off become list[0..n), the layers after the first changed one stale (the
 * next update recomputes only them). 0, or -1 with a message (not a
 * trained model, a head out of range, ...). model_ablation: the heads
 * switched off now (at most cap), 0 for a model that cannot. */
int model_set_ablation(Model *m, const HeadAblation *list, int n, AvError *err);
int model_ablation(const Model *m, HeadAblation *out, int cap);

/* The next tokens of a model that predicts are computed by the update,
 * never when asked (a draw only reads them: src->next_tokens): after
 * model_want_next(m, row) (-1: none), model_update computes query row
 * row's (the last row when row is past it) once the layers are current;
 * model_next_ready says whether it has, for that row. A model that does
 * not predict is always ready. */
void model_want_next(Model *m, int row);
int model_next_ready(const Model *m, int row);

/* Stable softmax of one row of n scores (-inf = masked) into w: subtract the
 * row maximum, exponentiate and sum in double. Returns the sum of the stored
 * weights: 1 (up to rounding), or 0 for a fully masked row, whose weights
 * are all 0 (as PyTorch >= 2.5). */
double attn_softmax_row(float *w, const float *s, int n);

/* The arithmetic of one cell (head h, query i, key j), from the stored stages. */
typedef struct {
    ScoreKind kind;
    double raw;            /* the raw score of the kind: q.k, cosine, -|q-k|^2 or additive */
    double dot;            /* q_i . k_j */
    double q_norm, k_norm; /* |q_i|, |k_j| */
    double dist2;          /* |q_i - k_j|^2 */
    double divisor;        /* what scaling divides by: sqrt(d_k), 1/sqrt(d_k) for cosine, 1 when off */
    double scaled;         /* raw / divisor (as stored, float32) */
    int allowed;           /* 0 when the mask forbids the cell */
    double row_max;        /* max over the row's allowed scaled scores */
    double exp;            /* exp(scaled - row_max), 0 when masked */
    double denom;          /* sum of exp over the row's allowed keys */
    double weight;         /* exp / denom as stored, 0 when masked */
    int row_allowed;       /* number of allowed keys in the row */
} CellDetail;
void model_cell_detail(const Model *m, int h, int i, int j, CellDetail *out);

#endif
