/* sweep.h - the ablation sweep: each head of a trained model switched off
 * alone (zero ablation), and how much the logit of one next token falls
 * (DESIGN.md §8: an intervention on head_out). The model is the one shown,
 * its own ablations kept; the layers below a head are reused (its layer's
 * input is copied, every later layer computed again), one head a step, so
 * that a front end can keep its screen alive between them (the census). */
#ifndef ATTNVIZ_SWEEP_H
#define ATTNVIZ_SWEEP_H

#include <stdio.h>

#include "error.h"
#include "source.h"
#include "transformer.h"
#include "vocab.h"

typedef struct SweepJob SweepJob;

/* A sweep of run's rows 0..n-1 (its residuals current; copied: the run may
 * change after) for token `token` after row `row` (token < 0: the model's
 * likeliest there), the heads of base[0..n_base) switched off as in the run
 * (the array copied). NULL with one line. */
SweepJob *sweep_begin(const TfRun *run, const TfAblation *base, int n_base, int row, int token, AvError *err);
/* One head: 1 more to do, 0 done, -1 with one line (a cancel request: the
 * same head again on the next call). */
int sweep_step(SweepJob *j, AvError *err);
void sweep_progress(const SweepJob *j, int *done, int *total);
int sweep_row(const SweepJob *j);
int sweep_token(const SweepJob *j);
/* The token's logit with no more head off, and with head h of layer l off
 * too (NAN until its step is done): drop = base - ablated. */
double sweep_base(const SweepJob *j);
double sweep_logit(const SweepJob *j, int l, int h);
void sweep_free(SweepJob *j); /* NULL-safe */

/* --dump=sweep, a finished sweep as JSON: the model's title, its ids, the
 * heads switched off before (ablated[0..n_ablated)), the row and token, the
 * token's logit, and per head {layer, head, logit, drop} (1-based). 0, or
 * -1 when a write failed. */
int sweep_write_json(FILE *f, const SweepJob *j, const Vocab *v, const char *model, const HeadAblation *ablated,
                     int n_ablated);

#endif
