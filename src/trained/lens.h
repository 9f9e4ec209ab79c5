/* lens.h - the logit lens (nostalgebraist 2020): each layer's residual
 * stream read as if it were the last, through the model's final norm and
 * its unembedding (the classifier), softmax over the vocabulary. Row 0 is
 * the embeddings (the input of layer 1), row l the residual after layer l;
 * the last row is the model's own prediction. */
#ifndef ATTNVIZ_LENS_H
#define ATTNVIZ_LENS_H

#include <stddef.h>
#include <stdio.h>

#include "error.h"
#include "source.h"
#include "transformer.h"
#include "vocab.h"

typedef struct {
    int id;           /* the likeliest token */
    float prob;       /* its probability */
    float token_prob; /* the chosen token's probability (0 without one) */
} LensCell;

typedef struct {
    int rows;        /* n_layers + 1 */
    int n;           /* positions */
    int token;       /* the chosen token's id, LENS_CHOICE, or -1 */
    LensCell *cells; /* (rows, n), row by row (owned) */
} Lens;

/* token of lens_compute: at each position, the model's own choice there
 * (the last row's likeliest token). */
#define LENS_CHOICE (-2)

/* The lens of run's rows 0..n-1, whose residuals (tf_run_x of every layer
 * and the last) must be current: computed in a run of its own, a block of
 * rows at a time, with the engine's final norm and classifier (the bits of
 * the model's logits for the last row). token: an id whose probability
 * each cell gives too, LENS_CHOICE, or -1 (none). 0, or -1 with one line
 * (memory, a cancel request). Free with lens_free (NULL-safe). */
int lens_compute(const TfRun *run, int token, Lens *out, AvError *err);
void lens_free(Lens *l);

static inline const LensCell *lens_cell(const Lens *l, int row, int pos) { return &l->cells[(size_t)row * l->n + pos]; }

/* The id of a piece given on the command line (--lens-token): the
 * vocabulary's piece of the same bytes, a leading "▁" read as a space
 * (as the screen shows spaces), else the text if the tokenizer makes one
 * token of it (a leading start token ignored). -1 with one line. */
int lens_token_id(const Vocab *v, const char *piece, AvError *err);

/* JSON pieces of the dumps: s[0..len) as a string (a control or unsafe
 * character escaped), null when it is not whole UTF-8 characters; a token
 * as "id": .., "piece": .., "bytes": [..]. */
void lens_json_text(FILE *f, const char *s, size_t len);
void lens_json_token(FILE *f, const Vocab *v, int id);

/* --dump=lens: the lens as JSON (doc/dumps.md): the model's title, the
 * tokens and ids of the rows, the heads switched off (ablated[0..n_ablated),
 * as the model was run), and "lens": {"top": per row (0: the embeddings, l:
 * after layer l) per position {id, piece, bytes, prob}, and with a chosen
 * token "token": {id, piece, bytes, "prob": per row per position}}. 0, or
 * -1 when a write failed. */
int lens_write_json(FILE *f, const Lens *l, const Vocab *v, const char *model, const int *ids,
                    const HeadAblation *ablated, int n_ablated);

#endif
