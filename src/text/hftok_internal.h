/* hftok_internal.h - what the parts of the Hugging Face tokenizer share:
 *
 *   hftok.c         the vocabulary (two spellings of each token, the form ->
 *                   id table, the merges table), pieces and their display
 *   hftok_json.c    tokenizer.json and GPT-2's vocab.json + merges.txt
 *   hftok_parts.c   the normalizer, pre-tokenizer and post-processor of a
 *                   tokenizer.json
 *   hftok_added.c   added tokens: one automaton over all of them
 *   hftok_encode.c  the pipeline: added tokens, normalizer, pre-tokenizer
 *   hftok_bpe.c     the BPE merge loop of one piece
 *
 * Not part of the API (hftok.h). */
#ifndef ATTNVIZ_HFTOK_INTERNAL_H
#define ATTNVIZ_HFTOK_INTERNAL_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <cjson/cJSON.h>
#include <pcre2.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "hftok.h"

#define HFTOK_MAX_NORM     8  /* steps of a normalizer Sequence */
#define HFTOK_MAX_SPLITS   8  /* steps of a pre-tokenizer Sequence */
#define HFTOK_MAX_TEMPLATE 8  /* special tokens before or after $A */
#define HFTOK_NAME         96 /* an escaped file name in messages */

extern const char HFTOK_GPT2_PATTERN[];
extern const char HFTOK_METASPACE[]; /* U+2581, SentencePiece's ▁ */

typedef enum {
    NORM_NFC,
    NORM_NFD,
    NORM_NFKC,
    NORM_NFKD,
    NORM_LOWERCASE,
    NORM_STRIP_ACCENTS,
    NORM_STRIP,   /* left, right */
    NORM_PREPEND, /* a */
    NORM_REPLACE, /* a -> b; a regex when re */
} NormKind;

typedef struct {
    NormKind kind;
    char *a, *b;    /* owned */
    pcre2_code *re; /* Replace with a Regex pattern (owned) */
    int left, right;
} NormStep;

/* An added token: matched in the raw text (normalized 0) or in the text
 * after the normalizer (normalized 1: its content normalized too). */
typedef struct {
    int id;
    char *text; /* what is matched (owned) */
    size_t len;
    unsigned char single_word, lstrip, rstrip, normalized;
} Added;

/* All added tokens of one kind as one automaton (hftok_added.c). */
typedef struct AddedSet AddedSet;

typedef struct {
    uint64_t key; /* left << 32 | right, + 1 (0: an empty slot) */
    int rank, id;
} PairSlot;

struct HfTok {
    int n;                 /* ids 0..n-1 */
    char **form;           /* n spellings of the file (NULL in a gap) */
    size_t *form_len;      /* n */
    char **raw;            /* n raw byte strings (NULL: the same as form) */
    size_t *raw_len;       /* n */
    char *special;         /* n: 0 a model token, 2 an added one, 3 an added special one */
    int *map;              /* the form -> id table: ids, -1 empty */
    size_t map_cap;        /* a power of two */
    PairSlot *pairs;       /* the merges */
    size_t pair_cap;       /* a power of two */
    int byte_level;        /* symbols are bytes through the byte-to-unicode table */
    uint32_t byte_cp[256]; /* that table: the character of each byte */
    short cp_byte[324];    /* and back (-1: no byte) */
    int byte_sym[256];     /* byte-level: the id of each byte's character (-1 none) */
    int byte_fallback;     /* sentencepiece: <0xNN> for a character not in the vocabulary */
    int byte_id[256];      /* the id of <0xNN> (-1 none) */
    int unk;               /* unk_token's id, -1 none */
    int fuse_unk;          /* consecutive unknowns are one unk */
    int ignore_merges;     /* a piece in the vocabulary is taken whole */
    NormStep norm[HFTOK_MAX_NORM];
    int n_norm;
    int metaspace;                       /* the pre-tokenizer is Metaspace */
    char *ms_repl;                       /* its replacement (owned) */
    int ms_prepend;                      /* 0 never, 1 first, 2 always */
    int ms_split;                        /* split before each replacement */
    int prefix_space;                    /* ByteLevel add_prefix_space: a space before each piece */
    int prefix_after;                    /* ... as split by the first prefix_after splits */
    pcre2_code *split[HFTOK_MAX_SPLITS]; /* Isolated splits, in order */
    int n_split;
    Added *added; /* in the file's order */
    int n_added;
    AddedSet *added_raw;                  /* those matched in the raw text, or NULL */
    AddedSet *added_norm;                 /* those matched after the normalizer, or NULL */
    int pre[HFTOK_MAX_TEMPLATE], n_pre;   /* ids before the text */
    int post[HFTOK_MAX_TEMPLATE], n_post; /* ids after it */
};

// ----------------------------------------------------------------------------
// hftok.c: the vocabulary

char *hftok_dup(const char *s, size_t n);
void hftok_byte_table(uint32_t cp_of[256], short byte_of[324]);
int hftok_alloc_ids(HfTok *t, int n, const char *file, AvError *err);
int hftok_set_token(HfTok *t, int id, const char *form, size_t len, const char *file, AvError *err);
/* The raw bytes of every vocabulary token (added tokens are their content). */
int hftok_make_raw(HfTok *t, const char *file, AvError *err);
int hftok_build_map(HfTok *t, const char *file, AvError *err);
/* The symbols' ids that do not depend on merges: each byte's character
 * (byte-level) and the <0xNN> pieces. */
void hftok_find_symbols(HfTok *t);
int hftok_alloc_pairs(HfTok *t, size_t n, const char *file, AvError *err);
/* One merge "left right" of rank `rank`: both pieces and their
 * concatenation must be tokens. `where` names it in messages. */
int hftok_add_merge(HfTok *t, const char *l, size_t ln, const char *r, size_t rn, int rank, const char *file,
                    const char *where, AvError *err);
const PairSlot *hftok_pair_find(const HfTok *t, int a, int b);

// ----------------------------------------------------------------------------
// hftok_parts.c: the components of a tokenizer.json

const char *hftok_json_type(const cJSON *v);
/* A JSON integer in [0, max], or -1. */
long hftok_json_int(const cJSON *v, long max);
int hftok_json_flag(const cJSON *obj, const char *key);
const char *hftok_json_str(const cJSON *obj, const char *key);
/* 0 when s[0..n) is valid UTF-8, else -1 with "FILE: WHERE is not valid
 * UTF-8 (byte 0x.. at ...)" in err. */
int hftok_check_utf8(const char *s, size_t n, const char *file, const char *where, AvError *err);
int hftok_compile_split(HfTok *t, const char *pattern, const char *file, const char *where, AvError *err);
int hftok_parse_normalizer(HfTok *t, const cJSON *n, const char *file, const char *where, AvError *err);
int hftok_parse_pre_tokenizer(HfTok *t, const cJSON *p, const char *file, const char *where, int nested, AvError *err);
int hftok_parse_post(HfTok *t, const cJSON *p, const char *file, const char *where, int nested, AvError *err);
void hftok_free_parts(HfTok *t);

// ----------------------------------------------------------------------------
// hftok_added.c: added tokens

/* The automaton of the added tokens a[i] with a[i].normalized == normalized
 * (their text as matched) in *out, NULL when there are none. 0, or -1 with
 * err (out of memory). */
int added_set_new(const Added *a, int n, int normalized, AddedSet **out, AvError *err);
void added_set_free(AddedSet *s);
/* Both sets of t (the normalized tokens' texts put through the normalizer
 * first). */
int hftok_build_added(HfTok *t, const char *file, AvError *err);

/* What the matcher hands back: a stretch of text without an added token
 * (gap), or an added token's id. Both return 0 to go on, else stop (the
 * value is returned by added_split). */
typedef struct {
    int (*gap)(void *ctx, size_t at, size_t len);
    int (*token)(void *ctx, int id);
    void *ctx;
} AddedSink;

/* Splits s[0..n) at the added tokens of set, as the tokenizers library's
 * AddedVocabulary does: the leftmost occurrence, the longest there
 * (aho-corasick's LeftmostLongest), one after the other without overlap;
 * single_word drops an occurrence with a word character (\w) beside it,
 * lstrip and rstrip take the white space on that side into the token. Work
 * linear in n (the automaton reads the text backwards in windows, giving the
 * longest token that starts at each byte). *steps counts automaton steps.
 * 0, a sink's non-zero value, or -1 with err (cancelled, out of memory). */
int added_split(const AddedSet *set, const Added *a, const char *s, size_t n, const AddedSink *sink, size_t *steps,
                AvError *err);

// ----------------------------------------------------------------------------
// hftok_encode.c: the pipeline

/* s[0..n) through the normalizer's steps: a new string in *out (caller
 * frees). *chars (when not NULL) counts the bytes the steps read. 0, or -1
 * with err (out of memory, cancelled). */
int hftok_normalize(const HfTok *t, const char *s, size_t n, char **out, size_t *out_n, size_t *chars, AvError *err);

// ----------------------------------------------------------------------------
// hftok_bpe.c: one piece to ids

typedef struct {
    int *v;
    size_t n, cap;
} IdVec;

int hftok_push_id(IdVec *o, int id);

typedef struct BpeWork BpeWork;
BpeWork *bpe_work_new(void);
void bpe_work_free(BpeWork *w);
/* One pre-tokenized piece s[0..n) to ids appended to out; *merges counts
 * the merges. */
int bpe_piece(const HfTok *t, const char *s, size_t n, BpeWork *w, IdVec *out, size_t *merges, AvError *err);

#endif
