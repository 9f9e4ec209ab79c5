/* hftok.h - Hugging Face BPE tokenizers (issue 14): byte-level BPE (GPT-2,
 * Qwen2, Qwen3, Llama 3, SmolLM2) and SentencePiece-style BPE with byte
 * fallback and the "▁" metaspace (Llama 2, TinyLlama), read from a
 * tokenizer.json, and GPT-2's vocab.json + merges.txt pair.
 *
 * Encoding follows the `tokenizers` library's pipeline:
 *   1. added tokens ("added_tokens") with "normalized": false are found in
 *      the raw text: the leftmost, the longest there, one after the other
 *      (its LeftmostLongest), single_word, lstrip and rstrip as it applies
 *      them; with one automaton over all of them, in work linear in the text
 *      whatever their number (src/text/hftok_added.c). The text between them goes
 *      through 2-5 stretch by stretch:
 *   2. the normalizer: NFC, NFD, NFKC, NFKD (utf8proc: src/text/unorm.h),
 *      Lowercase, StripAccents, Strip, Prepend, Replace (a String or a
 *      Regex), or a Sequence of these;
 *   3. added tokens with "normalized": true (their content normalized too)
 *      are found in the normalized stretch;
 *   4. the pre-tokenizer: null, ByteLevel (its regex: GPT-2's), Split with
 *      a Regex and the Isolated behaviour, Digits, Metaspace, or a Sequence of
 *      the splitting ones; patterns are compiled by PCRE2 (UTF, UCP);
 *      ByteLevel's add_prefix_space puts one space before each piece the
 *      steps before it made;
 *   5. the model: BPE, each piece's symbols (bytes through GPT-2's
 *      byte-to-unicode table, or UTF-8 characters, else their <0xNN> byte
 *      pieces with byte_fallback, else unk_token) merged by rank (the lowest
 *      first, then the leftmost) through a heap: O(n log n) per piece.
 *      ignore_merges takes a whole piece found in the vocabulary as is.
 * No BOS/EOS is added unless the post-processor is a TemplateProcessing
 * whose "single" template has special tokens around $A (Llama's <s>).
 * Any other component is refused with one line naming it. Texts must be
 * valid UTF-8. Encoding polls the cancel flag (cancel.h) between blocks of
 * work and fails with "tokenizing cancelled" when it is set.
 *
 * Every failure is one line naming the file (escaped) and what and where:
 *   "tokenizer.json: model.merges[3] \"a zz\": zz is not in the vocabulary";
 * a BPE model without its merges, and a key, merge or content that is not
 * valid UTF-8, are refused that way too. */
#ifndef ATTNVIZ_HFTOK_H
#define ATTNVIZ_HFTOK_H

#include <stddef.h>

#include "error.h"

/* Largest tokenizer file read (Llama 3's tokenizer.json is 9 MB). */
#define HFTOK_MAX_BYTES ((size_t)64 << 20)
/* Longest text encoded (far above the 1 MiB of a sentence file). */
#define HFTOK_MAX_TEXT ((size_t)256 << 20)

typedef struct HfTok HfTok;

/* Parses a tokenizer.json in json[0..len) (not kept); `name` is used in
 * messages. Returns a new tokenizer (free with hftok_free) or NULL. */
HfTok *hftok_parse(const char *json, size_t len, const char *name, AvError *err);

/* Reads and parses the tokenizer.json at `path`. */
HfTok *hftok_open(const char *path, AvError *err);

/* GPT-2's pair: vocab.json (piece -> id) and merges.txt (a "#version" line,
 * then "left right" per line, the first line the lowest rank), byte-level
 * with GPT-2's pattern; <|endoftext|>, when in the vocabulary, is an added
 * special token. */
HfTok *hftok_parse_gpt2(const char *vocab, size_t vocab_len, const char *vocab_name, const char *merges,
                        size_t merges_len, const char *merges_name, AvError *err);
HfTok *hftok_open_gpt2(const char *vocab_json, const char *merges_txt, AvError *err);

void hftok_free(HfTok *t); /* NULL-safe */

/* Encodes text[0..len). On success returns the number of ids and sets *ids
 * (caller frees; NULL when there are none). -1 with one line in err for a
 * text longer than HFTOK_MAX_TEXT, invalid UTF-8, a symbol without a token
 * and no unk_token, a cancel request, or out of memory. */
int hftok_encode(const HfTok *t, const char *text, size_t len, int **ids, AvError *err);

/* The work an encoding did, counted (tests bound it; make bench times it). */
typedef struct {
    size_t added_steps;   /* steps of the added tokens' automaton */
    size_t normalized;    /* bytes read by the normalizer's steps */
    size_t split_matches; /* matches of the pre-tokenizer's patterns tried */
    size_t pieces;        /* pieces through the model */
    size_t merges;        /* merges made */
} HfTokWork;

/* hftok_encode, adding its work to *work (not NULL). */
int hftok_encode_work(const HfTok *t, const char *text, size_t len, int **ids, HfTokWork *work, AvError *err);

/* Ids 0 .. hftok_vocab_size - 1 (the largest id + 1; ids in a gap have an
 * empty piece). */
int hftok_vocab_size(const HfTok *t);

/* The id of a piece as the vocabulary spells it ("Ġthe", "▁the", "<0x0A>",
 * "<s>"), or -1. */
int hftok_lookup(const HfTok *t, const char *piece, size_t len);

/* The bytes token id stands for: byte-level pieces decoded back through the
 * byte-to-unicode table (Ġ is a space), "▁" a space, <0xNN> that byte, added
 * tokens their content. May be part of a UTF-8 character. Points into t; sets
 * *len (0 and "" for an id out of range). The pieces of an encoding joined
 * are its text, but for what the normalizer added: a SentencePiece-style
 * text starts with the space of the prepended "▁" (HF's decoder strips it). */
const char *hftok_piece(const HfTok *t, int id, size_t *len);

/* 1 when id is a special added token (<s>, <|endoftext|>). */
int hftok_is_special(const HfTok *t, int id);

/* The piece as the screen shows it, into buf (NUL-terminated, cut to cap):
 * a space as "▁" (U+2581), \n \t \r as those two characters, other control
 * bytes and bytes that are not whole UTF-8 characters as <0xNN>. Returns the
 * full length (as snprintf). */
size_t hftok_display(const HfTok *t, int id, char *buf, size_t cap);

#endif
