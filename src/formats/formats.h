/* formats.h - what a path given as a trained model is, decided in one
 * place: a table of formats, each a reader that opens a path into the same
 * thing (a Checkpoint: the engine's model, its tokenizer, a title, its own
 * configuration's numbers). The front end names no format: it gives the
 * path to model_set_trained (source_trained.h), which opens it here.
 *
 *   format     claims                                   reader
 *   hf         a folder, *.safetensors, its index,      hfcheckpoint.c
 *              config.json (the folder of the file)
 *   gguf       *.gguf, or a file starting with "GGUF"   ggufmodel.c (its tokenizer
 *              (Ollama's blobs have no extension)       from the metadata: ggufvocab.c)
 *   llama2.c   any other file                           llama2.c
 *
 * Adding a format is a reader file and a line of the table in formats.c.
 * A tokenizer file (--vocab, with a model of any format or alone) is opened
 * by its name: *.json a Hugging Face tokenizer (a vocab.json with the
 * merges.txt beside it), a GGUF (by its name or magic) the tokenizer of its
 * metadata, else a llama2.c tokenizer.bin. */
#ifndef ATTNVIZ_FORMATS_H
#define ATTNVIZ_FORMATS_H

#include <stddef.h>

#include "error.h"
#include "trained.h"
#include "transformer.h"
#include "vocab.h"

enum { CHECKPOINT_FACTS = 16 };

/* An opened model: what every reader gives. Free with checkpoint_close. */
typedef struct {
    TfModel *model;                     /* the engine's (owned) */
    Vocab *vocab;                       /* its tokenizer (owned), as many ids as the model's vocabulary or fewer */
    char title[64];                     /* a short name: the file or folder ("stories260K", "gpt2"), escaped */
    SourceFact facts[CHECKPOINT_FACTS]; /* its configuration as its format names it (the dumps' "model") */
    int n_facts;
} Checkpoint;

typedef struct {
    const char *name;                /* "hf", "gguf", "llama2.c" */
    int (*claims)(const char *path); /* 1 when the path is this format's (by its name and kind alone) */
    /* Opens path with its tokenizer (vocab_path, or NULL: the one beside
     * it), all or nothing: 0, or -1 with one line naming the file. */
    int (*open)(Checkpoint *out, const char *path, const char *vocab_path, AvError *err);
} ModelFormat;

/* The format of path: the first of the table that claims it. */
const ModelFormat *format_of(const char *path);

/* Opens path as its format says: 0, or -1 with one line (*out zeroed). */
int checkpoint_open(Checkpoint *out, const char *path, const char *vocab_path, AvError *err);
void checkpoint_close(Checkpoint *c); /* NULL-safe; zeroes *c */

/* A tokenizer file, by its name (above). NULL with one line. */
Vocab *vocab_open_file(const char *path, AvError *err);

/* The readers' openers (the table's). */
int llama2_checkpoint_open(Checkpoint *out, const char *path, const char *vocab_path, AvError *err);
int hf_checkpoint_open(Checkpoint *out, const char *path, const char *vocab_path, AvError *err);
int gguf_checkpoint_open(Checkpoint *out, const char *path, const char *vocab_path, AvError *err);

#endif
