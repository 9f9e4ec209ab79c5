/* sourcenote.h - what the front end says of the model's source: what it
 * has not (for the views that need embeddings or W_O) and which knobs can
 * change, naming their keys. Sentences of the screen, with key letters:
 * the front end's, not the core's (src/core/source.h describes a source by its
 * capabilities; these sentences are made from them and the key table). */
#ifndef ATTNVIZ_SOURCENOTE_H
#define ATTNVIZ_SOURCENOTE_H

#include <stddef.h>

#include "model.h"

/* What a source without SRC_EMBED or SRC_WEIGHTS has not ("a Q/K/V file
 * has no embeddings X and no W_O"). */
const char *source_lacks_note(const Source *s);

/* What can change, into buf: "the sentence (e), the mask (m) and the
 * scaling (s) can change" for a source of text, else "only the mask (m)
 * and the scaling (s) can change"; the letters are the key table's. */
void source_knobs_note(const Source *s, char *buf, size_t cap);

#endif
