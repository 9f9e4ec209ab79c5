/* build.h - the model the command line describes: from CliOptions to a Model
 * (the sentence or the Q/K/V file, the tokenizer, the target, the pads, the
 * configuration and the painted mask, in the order their checks need). For
 * main.c, and for the tests and fuzzers that start where main does. */
#ifndef ATTNVIZ_BUILD_H
#define ATTNVIZ_BUILD_H

#include "cli.h"
#include "error.h"
#include "model.h"

/* What --mask-file holds besides the grid, for the app (W writes it back). */
typedef struct {
    char *comments; /* owned by the caller (free): the file's '#' lines, or NULL */
    int dropped;    /* comments after a row's values: W cannot keep them */
} BuildMaskNotes;

/* Builds on m (fresh from model_new) the model the options o describe; the
 * stages are not computed (model_update does). Returns 0, or -1 with err set
 * (its kind gives the exit status: bad input 2, out of memory and I/O 1).
 * notes may be NULL; otherwise it receives the comments of --mask-file
 * (comments NULL when there is none, and always after a failure). */
int build_model(Model *m, const CliOptions *o, BuildMaskNotes *notes, AvError *err);

/* The sentence of the options: -f FILE (read whole; its final line break is
 * not part of the sentence), TEXT, or dflt. Caller frees; NULL with err set
 * ("-f: ..."). */
char *build_text(const CliOptions *o, const char *dflt, size_t *len, AvError *err);

#endif
