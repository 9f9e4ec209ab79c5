/* headrun.h - the head tests (headtests.h) of a trained model on the named
 * batteries (battery.h): every layer and head scored the way the field
 * scores them, never on the user's one sentence.
 *
 *   previous, duplicate, induction (mul)   TransformerLens's detection
 *       patterns and "mul" score (exclude_bos and exclude_current_token
 *       off), averaged over the text battery's sentences, each tokenized by
 *       the model's own tokenizer
 *   sink                                   the mean weight on position 0
 *       (rows i >= 1) over the text battery
 *   induction (stripe)                     the mean of the diagonal at
 *       offset -(S-1) over the repeated random battery; above
 *       HEADTEST_INDUCTION_MIN the head counts as an induction head
 * A head's weights are softmax(q k^T / sqrt(head_dim), causal) of the
 * engine's queries and keys (after RoPE), computed here in double. */
#ifndef ATTNVIZ_HEADRUN_H
#define ATTNVIZ_HEADRUN_H

#include <stdio.h>

#include "battery.h"
#include "error.h"
#include "formats.h"

typedef enum { HT_PREV, HT_DUPLICATE, HT_INDUCTION_MUL, HT_SINK, HT_INDUCTION, HT_COUNT } HeadTestScore;

typedef struct {
    int layer, head;        /* 0-based */
    double score[HT_COUNT]; /* averaged over the battery */
} HeadTestRow;

typedef struct {
    HeadTestRow *rows; /* n_layers * n_heads, layer by layer (owned) */
    int n, layers, heads;
    BatteryKind text; /* the text battery */
    int text_tokens;  /* tokens over its sentences */
    int s, sequences; /* the repeated random battery: S and its count */
    int ordinary;     /* the ids it draws from */
    int bos;          /* the id it starts with (-1: none) */
} HeadReport;

/* Runs both batteries through the checkpoint's model. 0, or -1 with one
 * line (a cancel request, no memory, a sentence the model cannot take). */
int headrun(const Checkpoint *ck, BatteryKind text, HeadReport *out, AvError *err);
void headreport_free(HeadReport *r); /* NULL-safe */

/* The same in steps, one run of the model (a sentence or a sequence) a
 * step, for a front end that keeps its screen alive between them (the
 * census computes the batteries across frames). A job holds its own run of
 * the engine and reads the model and tokenizer, which must outlive it.
 *   headrun_begin   NULL with one line (memory, no ordinary tokens)
 *   headrun_step    1: more to do, 0: done, -1 with one line (a cancel
 *                   request: the step is done again by the next call)
 *   headrun_progress  runs done and in all
 *   headrun_finish  the report (the job's to give once, when done): 0, or -1
 * Free with headrun_free (NULL-safe). */
typedef struct HeadRun HeadRun;
HeadRun *headrun_begin(const TfModel *model, const Vocab *vocab, BatteryKind text, AvError *err);
int headrun_step(HeadRun *j, AvError *err);
void headrun_progress(const HeadRun *j, int *done, int *total);
int headrun_finish(HeadRun *j, HeadReport *out, AvError *err);
void headrun_free(HeadRun *j);

/* The name of a score in the dumps: "previous", "duplicate",
 * "induction_mul", "sink", "induction". */
const char *headtest_score_name(HeadTestScore s);

/* The report as JSON (every score with its battery's name, definition,
 * seed and size) or CSV (layer,head,score,battery,value). 0, or -1 when a
 * write failed. */
int headreport_write_json(FILE *f, const HeadReport *r, const char *model);
int headreport_write_csv(FILE *f, const HeadReport *r);

#endif
