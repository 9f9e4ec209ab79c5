/* vocab.h - a trained model's tokenizer, whatever its file: llama2.c's
 * tokenizer.bin (llamatok.h) or a Hugging Face tokenizer (hftok.h), or
 * either made from a GGUF's metadata (gguftok.h), behind one interface, so
 * that the trained source (source_trained.c) and the front end never ask
 * which it is. formats.h opens one beside a model, or a tokenizer file
 * alone. */
#ifndef ATTNVIZ_VOCAB_H
#define ATTNVIZ_VOCAB_H

#include <stddef.h>

#include "error.h"
#include "hftok.h"
#include "llamatok.h"

typedef struct Vocab Vocab;

/* The tokenizer as a Vocab, taking it (freed by vocab_free, on failure
 * too); NULL when out of memory. */
Vocab *vocab_of_llamatok(LlamaTok *t);
Vocab *vocab_of_hftok(HfTok *t);
/* The same with the start token given (a GGUF's BOS; -1: as vocab_of_hftok). */
Vocab *vocab_of_hftok_start(HfTok *t, int start);

void vocab_free(Vocab *v); /* NULL-safe */

/* Ids 0 .. vocab_size - 1. */
int vocab_size(const Vocab *v);

/* Encodes text[0..len) as the tokenizer's own convention has it (llama2.c:
 * BOS first; Hugging Face: its post-processor's tokens): the count, *ids
 * set (caller frees), or -1 with one line. */
int vocab_encode(const Vocab *v, const char *text, size_t len, int **ids, AvError *err);

/* The token a text starts with when it has no tokens of its own (BOS,
 * <|endoftext|>, ...), or -1 when the tokenizer has none. */
int vocab_start(const Vocab *v);

/* 1 when id ends a text (llama2.c: BOS, which delimits texts; Hugging
 * Face: a special added token): greedy decoding stops before it. */
int vocab_is_end(const Vocab *v, int id);

/* The raw bytes of id (0 and "" out of range); may be part of a UTF-8
 * character. Points into the tokenizer. */
const char *vocab_piece(const Vocab *v, int id, size_t *len);

/* What id prints as after token prev (llama2.c drops the leading space
 * after BOS; a Hugging Face piece is its bytes). */
const char *vocab_decode(const Vocab *v, int prev, int id, size_t *len);

/* The piece as the screen shows it ("▁Lily", "<s>"), into buf
 * (NUL-terminated, cut to cap); raw otherwise: escape before printing. */
void vocab_display(const Vocab *v, int id, char *buf, size_t cap);

#endif
