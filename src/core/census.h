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
 *   self       mean over rows i >= 1 of A[i][i] (row 0 left out for the same
 *              reason)
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
 * "ind@text", "H", in the reader's language (i18n.h). The induction score
 * here is the weight after a copy on the user's one sentence ("ind@text":
 * on your text), not the field's induction score, which needs a battery of
 * repeated random tokens (src/trained/headrun.h; the census of a trained
 * model shows both). */
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

/* The pattern class of a head, from its census scores (the measures of Clark
 * et al. 2019, "What Does BERT Look At?": the mean weight on the previous
 * token, on the first token, on the token itself, and the entropy for broad
 * attention; induction as Olsson et al. 2022):
 *   the score among prev, sink, self and induction that is largest, when it
 *   is at least CENSUS_CLASS_SHARE (more than half of a row's weight on
 *   average goes there): HEAD_PREV, HEAD_SINK, HEAD_SELF, HEAD_INDUCTION
 *   (ties in that order; an undefined induction takes no part);
 *   otherwise HEAD_BROAD when the mean entropy is at least CENSUS_CLASS_BROAD
 *   of the largest it can be (max_entropy: the weight spread over the keys);
 *   otherwise HEAD_MIXED. */
typedef enum { HEAD_PREV, HEAD_SINK, HEAD_SELF, HEAD_INDUCTION, HEAD_BROAD, HEAD_MIXED, HEAD_CLASS_COUNT } HeadClass;

#define CENSUS_CLASS_SHARE 0.5
#define CENSUS_CLASS_BROAD 0.8

HeadClass census_class(const CensusRow *r, double max_entropy);

/* A class's letter on screen ("P", "S", "D", "I", "B", and "·" or "." in
 * ASCII for mixed) and its name ("previous token", ...), the name in the
 * reader's language. */

const char *census_class_letter(HeadClass k, int ascii);
const char *census_class_name(HeadClass k);

/* order[0..n) = the indices of values[0..n) sorted largest first, NAN last,
 * ties in index order (a stable order): census_sort's, for other scores. */
void census_order(int *order, const double *values, int n);

/* order[0..c->n) = the rows sorted by score `by`, largest first; undefined
 * scores last; ties in layer and head order (a stable order). */
void census_sort(int *order, const Census *c, CensusScore by);

/* The row with the largest score `by` (the first in layer order on a tie), or
 * -1 when every value is undefined. */
int census_best(const Census *c, CensusScore by);

#endif
