/* source.h - where a model's Q, K and V come from (DESIGN.md §7).
 *
 * A source produces, for every layer and head, the queries, keys and values
 * (and, when it has them, the embeddings X and the layer output Y), and names
 * the rows and columns. Everything after Q, K and V (scores, scaling, masks,
 * softmax, outputs, row statistics) is the model's, the same for every
 * source; the views, keys and dumps ask for capabilities (SRC_*), never for
 * which source it is. Three sources are built in: the seeded sentence
 * (source_text.c, the default), a Q/K/V file (source_qkv.c) and a trained
 * model (source_trained.c, on the engine of transformer.h). A new one is
 * a Source in its own file and a call of model_set_source (model.h); the
 * third, in tests/test_source.c, has two layers of fixed Q, K and V. */
#ifndef ATTNVIZ_SOURCE_H
#define ATTNVIZ_SOURCE_H

#include <stddef.h>

#include "error.h"
#include "trained.h"

typedef struct Model Model;

/* What a source can do. */
enum {
    SRC_TEXT = 1 << 0,        /* its rows are a sentence's tokens: edit, tokenizers, <pad>, a target, cross-attention */
    SRC_EMBED = 1 << 1,       /* it has embeddings E, PE, X (the pipeline's first blocks, word gravity) */
    SRC_WEIGHTS = 1 << 2,     /* it has W_Q, W_K, W_V and W_O, and so the layer output Y (STAGE_FINAL) */
    SRC_RESHAPE = 1 << 3,     /* d_model, heads, d_k, d_v, positions and tied Q/K can change */
    SRC_SEEDED = 1 << 4,      /* its weights are drawn from the seed (r changes them) */
    SRC_TOKENIZERS = 1 << 5,  /* the seeded sentence's tools: tokenizer presets, <pad>, a target, cross-attention */
    SRC_SCORE_KINDS = 1 << 6, /* any score kind (o): a trained model's is its own scaled dot product */
    SRC_STACKED = 1 << 7,     /* each layer's input is the output of the one before: every layer computed to its end */
};

/* A head switched off (head ablation, DESIGN.md §8): query head `head` of
 * layer `layer` (0-based), its output before W_O replaced by zeros, or by
 * its mean over the text battery (mean = 1). */
typedef struct {
    int layer, head, mean;
} HeadAblation;

/* The most heads one ablation switches off. */
#define SOURCE_MAX_ABLATED 64

/* A next token's probability and logit before an intervention (the model
 * without it) and after (the model shown). */
typedef struct {
    int id;
    const char *piece; /* its raw bytes */
    size_t len;
    double p_before, p_after, logit_before, logit_after;
} NextChange;

/* The shape a source gives the model: its layers and heads, the widths of a
 * head, and its query and key rows. */
typedef struct {
    int layers, heads, d_k, d_v, n_q, n_k;
    int d_model; /* the width it works in (shown); 0: none */
} SourceShape;

typedef struct Source {
    const char *name; /* the dumps' "source": "text", "qkv", ... */
    /* Names (English, marked N_() and shown through _()), not sentences of the screen (the front end makes those from
     * the capabilities and its key table: tui/sourcenote.h). */
    const char *fixed; /* what the source is, where a knob it lacks is refused: "Q, K and V come from a file" */
    const char *what;  /* where its rows come from, for the size line ("3 x 3 from file") */
    unsigned caps;     /* SRC_* */
    /* Q, K and V of every head of `layer` (model_layer_heads), from stage
     * `from` (STAGE_EMBED when it has embeddings, else STAGE_PROJECT) on.
     * Storage is the model's; a cancel request (cancel.h) may stop it. */
    void (*forward)(Model *m, int layer, int from);
    /* Y = concat(O_h) W_O of `layer` (SRC_WEIGHTS); NULL: there is no Y. */
    void (*final)(Model *m, int layer);
    /* The text of query row i and key column j (raw: escape before printing;
     * may hold NUL bytes, hence the length), and the key's vocabulary id. */
    const char *(*query_text)(const Model *m, int i, size_t *len);
    const char *(*key_text)(const Model *m, int j, size_t *len);
    int (*key_id)(const Model *m, int j);
    /* With SRC_TEXT and without SRC_TOKENIZERS: the source's own sentence
     * becomes text[0..len) (its tokenizer, its rows), all or nothing, the
     * model reshaped to the new rows and m->text set. NULL: model.c's. */
    int (*set_text)(Model *m, const char *text, size_t len, AvError *err);
    /* A model that predicts: computes the next-token distribution after
     * query row `row` (the model's update calls it, model_want_next: never
     * a draw); 0, or -1 when a cancel request stopped it. NULL: it does
     * not predict (and next_tokens is NULL too). */
    int (*predict)(Model *m, int row);
    /* The k most likely next tokens after query row `row` as predict
     * computed them, most likely first (ids, probabilities, raw pieces);
     * returns how many (<= k): 0 when predict has not computed that row's
     * since the rows last changed. */
    int (*next_tokens)(const Model *m, int row, int k, int *ids, double *probs, const char **pieces, size_t *lens);
    /* Appends the most likely next token to the sentence (its text after
     * the last token), as set_text; *piece (may be NULL) points at what was
     * appended. NULL: it does not predict. */
    int (*continue_text)(Model *m, const char **piece, size_t *len, AvError *err);
    /* A short name for the status line ("stories260K"); NULL: none. */
    const char *(*title)(const Model *m);
    /* A trained model's own configuration as named integers (the JSON
     * dump's "model": {"dim": 64, ...}), at most cap; returns how many.
     * NULL: none. */
    int (*facts)(const Model *m, SourceFact *out, int cap);
    /* A trained model (trained.h): its shape and conventions; NULL: it is
     * not one (and the four below are NULL too). */
    const TrainedInfo *(*trained)(const Model *m);
    /* The chain of layer l (computed through STAGE_FINAL): 0, or -1 with a
     * message (memory, a cancel request). */
    int (*chain)(const Model *m, int l, LayerChain *out, AvError *err);
    /* The raw bytes of vocabulary id `id` (0 and "" out of range), and what
     * it prints as after token prev (a decoder's leading space dropped). */
    const char *(*piece)(const Model *m, int id, size_t *len);
    const char *(*decode)(const Model *m, int prev, int id, size_t *len);
    /* Greedy decoding after the sentence's tokens: up to `steps` argmax
     * tokens into out (stopping at the model's end-of-text token, not
     * stored); returns how many, or -1 with a message. */
    int (*generate)(const Model *m, int steps, int *out, AvError *err);
    /* Head ablation (a trained model): the heads switched off become
     * list[0..n) (n = 0: none; at most SOURCE_MAX_ABLATED), all or nothing;
     * the layers from the first one whose heads changed are stale. 0, or -1
     * with a message (a head out of range, memory, a cancel request while
     * the means were computed). NULL: the source cannot. */
    int (*ablate)(Model *m, const HeadAblation *list, int n, AvError *err);
    /* The heads switched off now, at most cap; returns how many. */
    int (*ablated)(const Model *m, HeadAblation *out, int cap);
    /* With heads switched off: the k likeliest next tokens after query row
     * `row` of the model without them (from the first ablated layer on,
     * with the model's own causal attention), most likely first, each with
     * its probability and logit before and after, as predict computed them;
     * 0 when no head is switched off, when predict has not computed that
     * row's, or when the mask is not causal. */
    int (*next_change)(const Model *m, int row, int k, NextChange *out);
    /* Frees the data given to model_set_source; NULL: nothing to free. */
    void (*free)(void *data);
} Source;

/* The built-in sources. */
extern const Source source_text, source_qkv;

#endif
