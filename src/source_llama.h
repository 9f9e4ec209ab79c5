/* source_llama.h - a trained Llama model as a source of Q, K and V (see
 * source_llama.c). */
#ifndef ATTNVIZ_SOURCE_LLAMA_H
#define ATTNVIZ_SOURCE_LLAMA_H

#include <stddef.h>

#include "transformer.h"
#include "llamatok.h"
#include "model.h"

extern const Source source_llama;

/* Switches m to the llama2.c checkpoint at model_path with its vocabulary
 * (vocab_path, or NULL: tokenizer.bin, then tok<V>.bin beside the model) on
 * text[0..len) (BOS first). Every layer and head; d_model, heads, d_k and
 * the layers are the model's. One line in err on failure (the file, the
 * field or tensor, what is wrong); m is unchanged then. */
int model_set_llama(Model *m, const char *model_path, const char *vocab_path, const char *text, size_t len,
                    AvError *err);

/* The model's run (its residual stream, the logits of the last row) and
 * vocabulary, or NULL when m's source is another. */
const TfModel *model_llama(const Model *m);
const TfRun *model_llama_run(const Model *m);
const LlamaTok *model_llama_tok(const Model *m);

#endif
