/* census.h - the head census (issue 12): every layer and head of the model
 * scored on the current sentence, from the attention weights A (n x n, the
 * weights stage) each head already stores. What a trained head learned shows
 * as one large score; the seeded model's random heads show none.
 *
 * The scores of one head, for a self-attention A (n_q == n_k == n):
 *   prev       mean over rows i >= 1 of A[i][i-1]: a previous-token head
 *   sink       mean over rows i >= 1 of A[i][0]: an attention sink on the first
 *              token (row 0 is left out: under the causal mask it can only
 *              look at itself, A[0][0] = 1, which says nothing)
 *   self       mean over all rows of A[i][i]
 *   induction  mean over the rows i that have an earlier copy of their token
 *              (a position j with the same vocabulary id, model_key_id, and
 *              j + 1 < i) of the sum over every such j of A[i][j+1]: the weight
 *              on the tokens that followed earlier copies of the current one
 *              ("Lily saw a cat. Lily" -> " saw"). j + 1 < i leaves out the
 *              key right after a copy when it is i itself (a doubled token),
 *              where induction and self would be the same number. <pad> tokens
 *              are no copies. Undefined (NAN) when no row has an earlier copy.
 *   entropy    mean row entropy in bits (model_head_entropy)
 * The scores read the weights as the current mask made them: with mask=none
 * (the model seeing the future) they change, as the heatmap does. */
#ifndef ATTNVIZ_CENSUS_H
#define ATTNVIZ_CENSUS_H

#include "error.h"
#include "model.h"

typedef enum {
    CENSUS_PREV,
    CENSUS_SINK,
    CENSUS_SELF,
    CENSUS_INDUCTION,
    CENSUS_ENTROPY,
    CENSUS_SCORE_COUNT
} CensusScore;

/* Short name of a score, as the table's heading: "prev", "sink", "self",
 * "induct", "H". */
const char *census_score_name(CensusScore s);

typedef struct {
    int layer, head;                  /* 0-based */
    double score[CENSUS_SCORE_COUNT]; /* NAN where undefined (induction without a repeat) */
} CensusRow;

typedef struct {
    CensusRow *rows;    /* layers * heads rows, layer by layer (owned) */
    int n;              /* rows */
    int repeat_rows;    /* query rows with an earlier copy of their token (0: induction undefined) */
    double max_entropy; /* mean over the rows of log2(keys allowed): the largest entropy can be */
} Census;

/* Scores every head of every layer of m, which must be up to date to the
 * weights stage. Fills *c (free with census_free); on failure (not
 * self-attention, no tokens, out of memory) *c is empty and err says why. */
int census_compute(Census *c, const Model *m, AvError *err);
void census_free(Census *c); /* NULL-safe; leaves *c empty */

/* order[0..c->n) = the rows sorted by score `by`, largest first; undefined
 * scores last; ties in layer and head order (a stable order). */
void census_sort(int *order, const Census *c, CensusScore by);

/* The row with the largest score `by` (the first in layer order on a tie), or
 * -1 when every value is undefined. */
int census_best(const Census *c, CensusScore by);

#endif
