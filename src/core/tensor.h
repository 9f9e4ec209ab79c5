/* tensor.h - the catalogue of the tensors a model shows (DESIGN.md §7): one
 * table, in the order of the pipeline, that the dumps, the stage key (v), the
 * heatmap, the pipeline view and the help iterate instead of lists of their
 * own. Adding a tensor (RMSNorm's output, RoPE'd Q, the residual stream) is
 * one line here, the pointer to its data in tensor.c, the code that computes
 * it, and its about-text in the front end.
 *
 * Columns of AV_TENSORS(T):
 *   id      TENSOR_<id>
 *   name    as in the dumps (JSON key, CSV stage)
 *   shown   as the screen names it (the stage line, the help), "" when not shown;
 *           marked N_() (i18n.h): shown through _(), except "" (gettext's ""
 *           is the catalogue's header)
 *   stage   the stage that produces it (model.h)
 *   scope   TS_MODEL (one, of the keys' sentence), TS_LAYER (one per layer),
 *           TS_HEAD (one per head of each layer)
 *   rows    side of its rows, cols side of its columns (TensorSide)
 *   flags   TF_* below
 *   cycle   its place in the v cycle (1 first), 0: not in it */
#ifndef ATTNVIZ_TENSOR_H
#define ATTNVIZ_TENSOR_H

#include "i18n.h"
#include "model.h"

typedef enum { TS_MODEL, TS_LAYER, TS_HEAD } TensorScope;

/* What the rows or the columns of a tensor are. */
typedef enum {
    SIDE_QUERIES,   /* n_q query tokens */
    SIDE_KEYS,      /* n_k key tokens */
    SIDE_D_MODEL,   /* d_model dimensions */
    SIDE_D_K,       /* d_k dimensions of a head */
    SIDE_D_V,       /* d_v dimensions of a head */
    SIDE_HEADS_D_V, /* heads * d_v: every head's d_v, side by side */
    SIDE_ONE,       /* a single row (a vector) */
} TensorSide;

enum {
    TF_SIGNED = 1 << 0,         /* values of both signs (a diverging ramp); else 0..1 */
    TF_MASKABLE = 1 << 1,       /* a cell can be masked (shown as such) */
    TF_ROW_STATS = 1 << 2,      /* shown with the rows' sum, entropy and largest weight */
    TF_NEEDS_EMBED = 1 << 3,    /* only from a source with embeddings (SRC_EMBED) */
    TF_NEEDS_WEIGHTS = 1 << 4,  /* only from a source with W_O and Y (SRC_WEIGHTS) */
    TF_NEEDS_POS = 1 << 5,      /* only with a positional encoding on */
    TF_DUMPED = 1 << 6,         /* in the JSON and CSV dumps */
    TF_OWNS_STATS = 1 << 7,     /* the rows' sum, entropy and largest weight are its rows' (dumped after it) */
    TF_NEEDS_ADDITIVE = 1 << 8, /* only with the additive score (its W1, W2 and v) */
};

// clang-format off
#define AV_TENSORS(T)                                                                                                  \
    /* id       name          shown                  stage          scope      rows          cols            flags                                       cycle */ \
    T(E,        "embed",      "",                    STAGE_EMBED,   TS_MODEL,  SIDE_KEYS,    SIDE_D_MODEL,   TF_SIGNED | TF_NEEDS_EMBED | TF_DUMPED,      0) \
    T(PE,       "pe",         N_("positional encoding"), STAGE_EMBED, TS_MODEL,  SIDE_KEYS,    SIDE_D_MODEL,   TF_SIGNED | TF_NEEDS_EMBED | TF_NEEDS_POS | TF_DUMPED, 7) \
    T(X,        "embeddings", "X = E + PE",          STAGE_EMBED,   TS_MODEL,  SIDE_KEYS,    SIDE_D_MODEL,   TF_SIGNED | TF_NEEDS_EMBED | TF_DUMPED,      6) \
    T(WQ,       "w_q",        "",                    STAGE_PROJECT, TS_HEAD,   SIDE_D_MODEL, SIDE_D_K,       TF_SIGNED | TF_NEEDS_WEIGHTS | TF_DUMPED,    0) \
    T(WK,       "w_k",        "",                    STAGE_PROJECT, TS_HEAD,   SIDE_D_MODEL, SIDE_D_K,       TF_SIGNED | TF_NEEDS_WEIGHTS | TF_DUMPED,    0) \
    T(WV,       "w_v",        "",                    STAGE_PROJECT, TS_HEAD,   SIDE_D_MODEL, SIDE_D_V,       TF_SIGNED | TF_NEEDS_WEIGHTS | TF_DUMPED,    0) \
    T(Q,        "q",          "",                    STAGE_PROJECT, TS_HEAD,   SIDE_QUERIES, SIDE_D_K,       TF_SIGNED | TF_DUMPED,                       0) \
    T(K,        "k",          "",                    STAGE_PROJECT, TS_HEAD,   SIDE_KEYS,    SIDE_D_K,       TF_SIGNED | TF_DUMPED,                       0) \
    T(V,        "v",          "",                    STAGE_PROJECT, TS_HEAD,   SIDE_KEYS,    SIDE_D_V,       TF_SIGNED | TF_DUMPED,                       0) \
    T(W1,       "w1",         "",                    STAGE_SCORES,  TS_HEAD,   SIDE_D_K,     SIDE_D_K,       TF_SIGNED | TF_NEEDS_ADDITIVE | TF_DUMPED,   0) \
    T(W2,       "w2",         "",                    STAGE_SCORES,  TS_HEAD,   SIDE_D_K,     SIDE_D_K,       TF_SIGNED | TF_NEEDS_ADDITIVE | TF_DUMPED,   0) \
    T(VA,       "v_a",        "",                    STAGE_SCORES,  TS_HEAD,   SIDE_ONE,     SIDE_D_K,       TF_SIGNED | TF_NEEDS_ADDITIVE | TF_DUMPED,   0) \
    T(SCORES,   "scores",     N_("raw scores"),      STAGE_SCORES,  TS_HEAD,   SIDE_QUERIES, SIDE_KEYS,      TF_SIGNED | TF_DUMPED | TF_ROW_STATS,        2) \
    T(SCALED,   "scaled",     N_("scaled scores"),   STAGE_SCALED,  TS_HEAD,   SIDE_QUERIES, SIDE_KEYS,      TF_SIGNED | TF_DUMPED | TF_ROW_STATS,        3) \
    T(MASKED,   "masked",     N_("masked scores"),   STAGE_MASKED,  TS_HEAD,   SIDE_QUERIES, SIDE_KEYS,      TF_SIGNED | TF_MASKABLE | TF_DUMPED | TF_ROW_STATS, 4) \
    T(WEIGHTS,  "weights",    N_("weights"),         STAGE_WEIGHTS, TS_HEAD,   SIDE_QUERIES, SIDE_KEYS,      TF_MASKABLE | TF_DUMPED | TF_ROW_STATS | TF_OWNS_STATS, 1) \
    T(OUTPUT,   "output",     N_("output"),          STAGE_OUTPUT,  TS_HEAD,   SIDE_QUERIES, SIDE_D_V,       TF_SIGNED | TF_DUMPED | TF_ROW_STATS,        5) \
    T(WO,       "w_o",        "",                    STAGE_FINAL,   TS_LAYER,  SIDE_HEADS_D_V, SIDE_D_MODEL, TF_SIGNED | TF_NEEDS_WEIGHTS | TF_DUMPED,    0) \
    T(CONCAT,   "concat",     N_("heads joined"),    STAGE_FINAL,   TS_LAYER,  SIDE_QUERIES, SIDE_HEADS_D_V, TF_SIGNED | TF_NEEDS_WEIGHTS | TF_DUMPED,    8) \
    T(Y,        "output",     N_("layer output Y"),  STAGE_FINAL,   TS_LAYER,  SIDE_QUERIES, SIDE_D_MODEL,   TF_SIGNED | TF_NEEDS_WEIGHTS | TF_DUMPED,    9)
// clang-format on

typedef enum {
#define TENSOR_ENUM(id, name, shown, stage, scope, rows, cols, flags, cycle) TENSOR_##id,
    AV_TENSORS(TENSOR_ENUM)
#undef TENSOR_ENUM
        TENSOR_COUNT
} Tensor;

typedef struct {
    const char *name, *shown;
    Stage stage;
    TensorScope scope;
    TensorSide rows, cols;
    unsigned flags;
    int cycle;
} TensorInfo;

/* The entry of t (the first for a t out of range). */
const TensorInfo *tensor_info(Tensor t);

/* Rows or columns of a side for m. */
int tensor_side_len(const Model *m, TensorSide s);
static inline int tensor_rows(const Model *m, Tensor t) { return tensor_side_len(m, tensor_info(t)->rows); }
static inline int tensor_cols(const Model *m, Tensor t) { return tensor_side_len(m, tensor_info(t)->cols); }

/* 1 when m has t: its source's capabilities and the configuration (PE only
 * when on). */
int tensor_available(const Model *m, Tensor t);

/* The data of t in layer `layer` and head `head` (ignored where the scope has
 * none): rows x cols floats, row-major; NULL when m has no such tensor. */
const float *tensor_data(const Model *m, Tensor t, int layer, int head);

/* The v cycle: the number of tensors in it, and the k-th (0-based). */
int tensor_cycle_len(void);
Tensor tensor_cycle_at(int k);

#endif
