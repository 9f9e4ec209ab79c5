/* source_trained.h - a trained model as a source of Q, K and V (see
 * source_trained.c), whatever its file (formats.h). */
#ifndef ATTNVIZ_SOURCE_TRAINED_H
#define ATTNVIZ_SOURCE_TRAINED_H

#include <stddef.h>

#include "model.h"
#include "transformer.h"
#include "vocab.h"

extern const Source source_trained;

/* Switches m to the trained model at path (formats.h says what it is: a
 * llama2.c checkpoint, a Hugging Face folder or a file in it) with its
 * tokenizer (vocab_path, or NULL: the one beside it) on text[0..len) (an
 * empty sentence is the tokenizer's start token). Every layer and head;
 * d_model, heads, d_k and the layers are the model's. One line in err on
 * failure (the file, the field or tensor, what is wrong); m is unchanged
 * then. */
int model_set_trained(Model *m, const char *path, const char *vocab_path, const char *text, size_t len, AvError *err);

/* The engine's model, its run (the residual stream of the sentence's rows,
 * the logits of the row last predicted) and the tokenizer, or NULL when m's
 * source is another. */
const TfModel *model_trained_engine(const Model *m);
const TfRun *model_trained_run(const Model *m);
const Vocab *model_trained_vocab(const Model *m);

/* The heads switched off as the engine takes them (TfAblation, their means
 * the source's): their count, *out set (NULL when none or not trained). */
int model_trained_ablation(const Model *m, const TfAblation **out);

#endif
