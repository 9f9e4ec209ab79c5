/* llamatok.h - the vocabulary of a llama2.c model (its tokenizer.bin) and
 * the encoding and decoding of karpathy/llama2.c's run.c.
 *
 * The file: int32 max_token_length, then as many records as the file holds,
 * each float32 score, int32 length, then that many bytes (the piece, UTF-8,
 * SentencePiece's "▁" written as a space); little-endian. Piece i is token
 * id i; by llama2.c's convention 0 is <unk>, 1 BOS (<s>), 2 EOS (</s>) and
 * 3..258 the byte pieces <0x00>..<0xFF>.
 *
 * Encoding is run.c's `encode`: BOS (1) when asked, the dummy prefix (the
 * piece " ", when there is one) when the text is not empty, each UTF-8 character (a lead byte
 * and up to three continuation bytes, as run.c groups them) looked up as a
 * piece or else one byte-fallback id per byte (byte + 3), then, as long as
 * one exists, the merge of the adjacent pair whose concatenation is a piece
 * of the highest score (above -1e10; the leftmost of equal scores). The
 * merges go through a heap instead of run.c's scan of every pair, with the
 * same result (tests and fuzz_llamatok compare it with the scan).
 * Texts are bytes with a length: a NUL byte is looked up like any other
 * (run.c would stop there). */
#ifndef ATTNVIZ_LLAMATOK_H
#define ATTNVIZ_LLAMATOK_H

#include <stddef.h>

#include "error.h"

/* Largest tokenizer file read (the Llama 2 vocabulary is 434 KB). */
#define LLAMATOK_MAX_BYTES ((size_t)64 << 20)
/* Largest max_token_length accepted (Llama 2's is 27). */
#define LLAMATOK_MAX_PIECE 4096

enum { LLAMATOK_UNK = 0, LLAMATOK_BOS = 1, LLAMATOK_EOS = 2, LLAMATOK_BYTE0 = 3 };

typedef struct {
    int n;             /* pieces (the vocabulary size) */
    int max_len;       /* the file's max_token_length: every piece is 0..max_len bytes */
    const char **text; /* n pieces, each NUL-terminated (may hold NUL bytes: use len) */
    int *len;          /* n byte lengths */
    float *score;      /* n merge scores */
    int *sorted;       /* the n ids sorted by piece bytes (then id): the bsearch index */
    char *bytes;       /* storage of every piece (owned) */
    /* The conventions: llama2.c's (llamatok_parse) or a GGUF's metadata
     * (llamatok_from_pieces and the fields set after it). */
    int bos, eos;     /* ids (LLAMATOK_BOS, LLAMATOK_EOS), -1: none */
    int stop;         /* another id that ends a text (GGUF: EOS), -1: none (run.c stops at BOS only) */
    int add_bos;      /* encoding puts BOS first (vocab.h's encode) */
    int space_prefix; /* the dummy prefix " " before a text that is not empty */
    int bytes_by_id;  /* 1: byte b falls back to id b + 3 (run.c); 0: to byte_id[b] */
    int byte_id[256]; /* the piece <0xHH> of each byte, -1 none (bytes_by_id 0) */
} LlamaTok;

/* Parses buf[0..size) (the whole file; not kept). `name` appears in the
 * messages, escaped. Every failure is one line naming the file, the piece
 * index and byte offset, and what is wrong:
 *   "tok.bin: piece 7 at byte 80: length 300 is longer than max_token_length 27"
 * Returns a new tokenizer (free with llamatok_free), or NULL. */
LlamaTok *llamatok_parse(const void *buf, size_t size, const char *name, AvError *err);

/* A vocabulary of n pieces given as they are (text[i], len[i] bytes:
 * spaces as spaces, not "▁"), their scores, llama2.c's conventions (the
 * caller sets bos, eos, stop, add_bos, space_prefix, and bytes_by_id 0 to
 * fall back to the <0xHH> pieces found here). NULL with one line naming
 * `name` when out of memory or a piece is longer than LLAMATOK_MAX_PIECE. */
LlamaTok *llamatok_from_pieces(int n, const char *const *text, const size_t *len, const float *score, const char *name,
                               AvError *err);

/* Reads `path` (a regular file of at most LLAMATOK_MAX_BYTES) and parses it. */
LlamaTok *llamatok_load(const char *path, AvError *err);

void llamatok_free(LlamaTok *t); /* NULL-safe */

/* The id of the piece s[0..len), or -1; the lowest id when pieces repeat.
 * A binary search of the sorted index. */
int llamatok_lookup(const LlamaTok *t, const char *s, size_t len);

/* Encodes text[0..len) as run.c does (above), BOS (t->bos) first when `bos`. On
 * success returns the number of ids and sets *ids (at most len + 2 of them;
 * caller frees). -1 when out of memory, when a byte has no piece (fallback
 * id byte + 3 past the vocabulary), or for BOS in a vocabulary of one piece:
 * one line in err. */
int llamatok_encode(const LlamaTok *t, const char *text, size_t len, int bos, int **ids, AvError *err);

/* The raw piece of id (0 <= id < n) and its length. */
const char *llamatok_piece(const LlamaTok *t, int id, size_t *len);

/* The bytes id stands for after token `prev` (run.c's `decode`): after BOS (t->bos) a
 * leading space is dropped; a piece "<0xHH>" (exactly, hex of either case)
 * is that one byte. Points into t or a static table; sets *len. */
const char *llamatok_decode(const LlamaTok *t, int prev, int id, size_t *len);

/* The piece as the screen shows it, into buf (NUL-terminated, cut to cap):
 * BOS "<s>", EOS "</s>" (t->bos, t->eos), every space as "▁" (U+2581), byte pieces as they
 * are ("<0xE2>"). Raw otherwise: escape before printing (utf8_escape).
 * Returns the full length (as snprintf). */
size_t llamatok_display(const LlamaTok *t, int id, char *buf, size_t cap);

#endif
