/* gguftok.h - the tokenizer a GGUF file carries in its metadata
 * (tokenizer.ggml.*), made into one of the two kinds vocab.h already has,
 * the way llama.cpp's llama-vocab.cpp reads it (issue 28):
 *
 *   "llama"  SentencePiece: the pieces ("▁" a space) merged by score, the
 *            highest first then the leftmost, a character without a piece
 *            as its <0xHH> byte pieces (llamatok.h: run.c's algorithm,
 *            which is llama.cpp's llm_tokenizer_spm's); " " before a text
 *            unless add_space_prefix is false; BOS first unless
 *            add_bos_token is false.
 *   "gpt2"   byte-level BPE (hftok.h): tokenizer.ggml.merges by rank, the
 *            text split first by the regexes llama.cpp gives the
 *            pre-tokenizer named by tokenizer.ggml.pre:
 *              default                   llama.cpp's default four
 *              gpt-2 (phi-2, ...)        GPT-2's
 *              llama3, llama-v3, llama-bpe   Llama 3's (ignore_merges)
 *              qwen2 (deepseek-r1-qwen)  Qwen2's
 *              smollm (starcoder, ...)   a digit alone, then GPT-2's
 *            user-defined tokens (token type 4) found in the text first,
 *            control tokens (3) only ever given as ids (llama.cpp's
 *            tokenizing without parse_special); BOS first when
 *            add_bos_token is true (Llama 3's default), EOS last when
 *            add_eos_token is.
 * A control token ends a text (greedy decoding stops before it), as do BOS
 * and EOS. Any other tokenizer.ggml.model or pre-tokenizer is refused in one
 * line naming it. */
#ifndef ATTNVIZ_GGUFTOK_H
#define ATTNVIZ_GGUFTOK_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "vocab.h"

/* llama.cpp's token types (tokenizer.ggml.token_type). */
enum { GGUF_TOK_NORMAL = 1, GGUF_TOK_UNKNOWN, GGUF_TOK_CONTROL, GGUF_TOK_USER, GGUF_TOK_UNUSED, GGUF_TOK_BYTE };

/* What the reader of the file (ggufmodel.h) found under tokenizer.ggml.*:
 * strings are pointers into the mapping (any bytes, not NUL-terminated). */
typedef struct {
    const char *file;  /* the file's name, escaped (messages) */
    const char *model; /* tokenizer.ggml.model */
    size_t model_len;
    const char *pre; /* tokenizer.ggml.pre (NULL: absent: "default") */
    size_t pre_len;
    int n;              /* tokens: ids 0..n-1 */
    const char **tok;   /* n */
    const size_t *tlen; /* n */
    const float *score; /* n, or NULL (all 0) */
    const int *type;    /* n, or NULL (all normal) */
    int n_merges;
    const char **merge; /* "left right" each */
    const size_t *mlen;
    int bos, eos;         /* -1: absent (the model's default) */
    int add_bos, add_eos; /* -1: absent (the model's default) */
    int add_space_prefix; /* -1: absent (true for "llama") */
} GgufTokSpec;

/* The tokenizer of s, or NULL with one line ("FILE: key tokenizer.ggml.pre:
 * pre-tokenizer \"x\" is not supported (default, gpt-2, ...)"). */
Vocab *gguftok_open(const GgufTokSpec *s, AvError *err);

#endif
