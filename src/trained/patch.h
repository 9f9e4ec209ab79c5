/* patch.h - activation patching (DESIGN.md §8; Meng et al. 2022, Wang et
 * al. 2022): a clean and a corrupted prompt of the same length, a metric
 * logit(A) - logit(B) after the last position, and the corrupted run with
 * one activation copied from the clean run:
 *   head   the output of head h of layer l (before W_O) at every position
 *   resid  the residual stream entering layer l (resid_pre) at position p
 * every layer from l on computed again. Each result is normalised as
 * (patched - corrupted) / (clean - corrupted): 1 where the patch restores
 * the clean behaviour, 0 where it changes nothing. */
#ifndef ATTNVIZ_PATCH_H
#define ATTNVIZ_PATCH_H

#include <stdio.h>

#include "error.h"
#include "transformer.h"
#include "vocab.h"

typedef struct {
    int layers, heads, n;
    int token_a, token_b;
    double clean, corrupt; /* the metric of each run */
    double *head;          /* (layers, heads) normalised (owned) */
    double *resid;         /* (layers, n) normalised: resid_pre of layer l at position p (owned) */
} PatchResult;

/* Both grids for clean[0..n) and corrupt[0..n). 0, or -1 with one line
 * (memory, a cancel request, the two metrics equal: nothing to normalise). */
int patch_run(const TfModel *m, const int *clean, const int *corrupt, int n, int token_a, int token_b, PatchResult *out,
              AvError *err);
void patch_free(PatchResult *p); /* NULL-safe */

/* --dump=patch: the result as JSON with the prompts' ids and the tokens. 0,
 * or -1 when a write failed. */
int patch_write_json(FILE *f, const PatchResult *p, const Vocab *v, const char *model, const int *clean,
                     const int *corrupt);

#endif
