/* source_hf.h - a Hugging Face checkpoint folder as a source of Q, K and V
 * (see source_hf.c). */
#ifndef ATTNVIZ_SOURCE_HF_H
#define ATTNVIZ_SOURCE_HF_H

#include <stddef.h>

#include "hfcheckpoint.h"
#include "hftok.h"
#include "model.h"

extern const Source source_hf;

/* 1 when --model PATH names a Hugging Face checkpoint: a folder, a
 * *.safetensors file, its index or a config.json (else a llama2.c file). */
int source_hf_applies(const char *path);

/* Switches m to the checkpoint folder of path (hfcheckpoint.h: config.json and
 * model.safetensors or its shards) with its tokenizer (vocab_path: a
 * tokenizer.json, or a vocab.json with merges.txt beside it; NULL: the
 * folder's tokenizer.json, else its vocab.json and merges.txt) on
 * text[0..len). An empty sentence is the model's start token (<s>,
 * <|endoftext|>, ...). Every layer and head. One line in err on failure
 * (the file, the field or tensor, what is wrong); m is unchanged then. */
int model_set_hf(Model *m, const char *path, const char *vocab_path, const char *text, size_t len, AvError *err);

/* The model and tokenizer, or NULL when m's source is another. */
const TfModel *model_hf(const Model *m);
const HfTok *model_hf_tok(const Model *m);

#endif
