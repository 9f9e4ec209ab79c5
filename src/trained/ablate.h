/* ablate.h - what head ablation needs besides the engine's hook
 * (transformer.h: TfAblation, tf_ablate_rows): the mean output of every
 * head over the text battery, for mean ablation. TransformerLens's mean
 * ablation replaces a head's output by its mean over a reference
 * distribution; here the distribution is the named text battery
 * (battery.h), so the numbers are the same wherever they are computed. */
#ifndef ATTNVIZ_ABLATE_H
#define ATTNVIZ_ABLATE_H

#include "battery.h"
#include "error.h"
#include "source.h"
#include "transformer.h"
#include "vocab.h"

/* out (n_layers, q_dim): the mean over every position of every sentence of
 * the text battery (each tokenized by the model's own tokenizer, cut to the
 * context) of each layer's heads' outputs before W_O, the heads joined:
 * head h of layer l at out + l * q_dim + h * head_dim. Summed in double,
 * rounded once. *tokens (may be NULL): the positions averaged. 0, or -1
 * with one line (memory, a cancel request, the tokenizer). */
int ablate_head_means(const TfModel *m, const Vocab *v, BatteryKind text, float *out, int *tokens, AvError *err);

/* A trained source's ablation (source_trained.c): the heads switched off,
 * the engine's view of them, the means, and the model without them for
 * the next-token comparison ("before"). */
typedef struct {
    HeadAblation list[SOURCE_MAX_ABLATED];
    TfAblation tf[SOURCE_MAX_ABLATED];
    int n;
    float *means; /* (n_layers, q_dim) over the text battery (owned), or NULL: not computed yet */
    BatteryKind means_of;
    TfRun *clean;        /* the model without the ablation, from the first ablated layer on (owned) */
    float *clean_logits; /* (vocab) of clean_row */
    int clean_row;       /* -1: none */
} Ablation;

void ablation_init(Ablation *a);
void ablation_free(Ablation *a);

/* Sets the heads switched off to list[0..n) (checked against the model:
 * 1 <= layer, head; mean ones get the text battery's means, computed on
 * first use). *first: the first layer whose heads changed (n_layers: none).
 * All or nothing: 0, or -1 with one line. */
int ablation_set(Ablation *a, const TfModel *m, const Vocab *v, BatteryKind text, const HeadAblation *list, int n,
                 int *first, AvError *err);

/* The first ablated layer, or -1 when none. */
int ablation_first_layer(const Ablation *a);

/* r's ablations are a's (r->ablate, r->n_ablate). */
void ablation_attach(const Ablation *a, TfRun *r);

/* The logits of row `row` of the model without the ablation into
 * clean_logits: layers from the first ablated one on, in the clean run,
 * from run's input of that layer (the layers below are the same with or
 * without it), the model's own causal attention. 0, or -1 (cancelled,
 * memory). */
int ablation_predict_clean(Ablation *a, const TfRun *run, int row);
/* The clean logits are stale (the rows or the layers changed). */
static inline void ablation_stale(Ablation *a) { a->clean_row = -1; }

/* The k likeliest next tokens before (clean_logits of `row`), with their
 * probabilities and logits before and after (after: the run's logits of the
 * same row); 0 when there are none for that row. */
int ablation_next_change(const Ablation *a, const float *after, int vocab, int row, int k, const Vocab *v,
                         NextChange *out);

#endif
