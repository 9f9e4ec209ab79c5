/* tokenize.h - split a sentence into tokens with PCRE2 (UTF-8, Unicode properties).
 *
 * Presets (tok_preset_pattern gives the exact regex):
 *   words  runs of letters/marks/numbers; every other non-space character is a
 *          token of its own; whitespace is dropped.          (default)
 *   gpt2   the GPT-2 pre-tokenizer pattern; leading spaces stay in the token.
 *   chars  one token per extended grapheme cluster (user-perceived character),
 *          whitespace dropped.
 *   custom the user's own pattern (--pattern); every non-empty match is a token.
 * Empty matches never become tokens (they are stepped over, one UTF-8 character
 * at a time). Token ids are a vocabulary in order of first appearance: equal
 * token texts share an id. */
#ifndef ATTNVIZ_TOKENIZE_H
#define ATTNVIZ_TOKENIZE_H

#include <stddef.h>

#include "error.h"

typedef enum { TOK_WORDS, TOK_GPT2, TOK_CHARS, TOK_CUSTOM, TOK_PRESET_COUNT } TokPreset;

/* Most tokens a sentence may have. */
#define TOK_MAX_TOKENS 4096

/* The budget of tokenizing (a pattern that backtracks catastrophically must
 * not freeze the screen or eat the memory): each match is bounded by PCRE2's
 * match, depth and heap limits, and one tok_split by time. A plain pattern
 * splits 1 MiB in well under the time budget. */
#define TOK_MATCH_LIMIT     10000000 /* steps of one match (PCRE2's default) */
#define TOK_DEPTH_LIMIT     1000000  /* backtracking depth of one match */
#define TOK_HEAP_LIMIT_KIB  65536    /* 64 MiB of backtracking memory for one match */
#define TOK_JIT_STACK_BYTES (1024 * 1024)
#define TOK_TIME_BUDGET     2.0 /* seconds of one tok_split */

typedef struct Tokenizer Tokenizer; /* compiled PCRE2 code + match data */

typedef struct {
    const char *text; /* NUL-terminated copy of the token, owned by the list */
    size_t len;       /* bytes in text */
    size_t offset;    /* byte offset of the token in the input */
    int id;           /* vocabulary id: order of first appearance */
} Token;

typedef struct {
    Token *tok; /* n tokens */
    int n;
    int vocab;   /* number of distinct token texts (ids are 0..vocab-1) */
    char *arena; /* storage of every token text */
} TokenList;

/* Compiles the preset's pattern (or `pattern` for TOK_CUSTOM; ignored
 * otherwise) with PCRE2_UTF | PCRE2_UCP, JIT-compiled when PCRE2 has JIT.
 * Returns NULL with a message such as
 *   "--pattern: missing closing parenthesis at offset 3"
 * when the pattern does not compile. Free with tok_free. */
Tokenizer *tok_new(TokPreset preset, const char *pattern, AvError *err);
void tok_free(Tokenizer *t); /* NULL is a no-op */

TokPreset tok_preset(const Tokenizer *t);
const char *tok_pattern(const Tokenizer *t); /* the regex in use */
int tok_uses_jit(const Tokenizer *t);        /* 1 when JIT compiled */
/* The time budget of one tok_split in seconds (<= 0: TOK_TIME_BUDGET); tests
 * make it short. */
void tok_set_time_budget(Tokenizer *t, double seconds);

const char *tok_preset_name(TokPreset p);               /* "words", "gpt2", "chars", "custom" */
const char *tok_preset_pattern(TokPreset p);            /* NULL for TOK_CUSTOM */
int tok_preset_parse(const char *name, TokPreset *out); /* 0 ok, -1 unknown */

/* Splits text[0..len) into out (which the caller frees with tok_list_free; on
 * failure out is left empty). Errors: invalid UTF-8 ("invalid UTF-8 at byte
 * offset 7: <PCRE2's reason>"), more than max_tokens tokens, a limit of the
 * budget above ("the pattern backtracks too much: ..."), a cancel request
 * (cancel.h). Zero tokens is not an error (out->n == 0). */
int tok_split(Tokenizer *t, const char *text, size_t len, int max_tokens, TokenList *out, AvError *err);
void tok_list_free(TokenList *list); /* NULL-safe; leaves the list empty */

#endif
