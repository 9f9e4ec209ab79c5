/* mask.h - which keys each query may attend to. */
#ifndef ATTNVIZ_MASK_H
#define ATTNVIZ_MASK_H

#include <stddef.h>

#include "error.h"

typedef enum {
    MASK_NONE,    /* every key */
    MASK_CAUSAL,  /* key j <= query i (top-left aligned, as PyTorch's is_causal) */
    MASK_WINDOW,  /* i - W < j <= i: itself and the W - 1 tokens before it */
    MASK_PREFIX,  /* the first P tokens see each other fully, the rest causally (prefix LM) */
    MASK_PADDING, /* every key but the <pad> tokens */
    MASK_PAINTED, /* a grid painted by hand (or read from --mask-file) */
    MASK_KIND_COUNT
} MaskKind;

/* Everything a mask needs. In cross-attention (queries from another
 * sentence than the keys) the position rules (causal, window, prefix) do not
 * apply: they are treated as none. */
typedef struct {
    MaskKind kind;
    int window;                   /* W of MASK_WINDOW, >= 1 */
    int prefix;                   /* P of MASK_PREFIX, >= 0 */
    int cross;                    /* queries and keys are different sentences */
    const unsigned char *pad_key; /* n_k flags: 1 for a <pad> key (may be NULL) */
    const unsigned char *painted; /* n_q x n_k grid, 1 = visible (MASK_PAINTED; NULL = all visible) */
} MaskSpec;

#define MASK_MAX_PARAM 4096

const char *mask_kind_name(MaskKind k); /* "none", "causal", "window", ... */

/* "none", "causal", "window:3", "prefix:2", "padding", "painted". */
void mask_format(char *buf, size_t cap, MaskKind kind, int window, int prefix);

/* Parses a --mask value: none | causal | window:W | prefix:P | padding |
 * painted. Sets *kind and, for window/prefix, *window or *prefix. */
int mask_parse(const char *s, MaskKind *kind, int *window, int *prefix, AvError *err);

/* allowed (n_q, n_k): 1 where query i may attend to key j. */
void mask_fill(unsigned char *allowed, const MaskSpec *spec, int n_q, int n_k);

/* 1 when the kind's rule applies to this attention (position rules do not
 * apply to cross-attention). */
int mask_applies(MaskKind kind, int cross);

/* Reads a painted mask: rows of 0/1 separated by spaces ('#' comments),
 * n_q rows of n_k values; 1 = visible, 0 = masked. Errors name
 * file:line:column. *grid is malloc'd (caller frees). */
int mask_parse_grid(unsigned char **grid, int n_q, int n_k, const char *buf, size_t len, const char *name,
                    AvError *err);

/* Writes a grid in the same format, with a comment header. Returns a malloc'd
 * NUL-terminated text (caller frees), NULL when out of memory. */
char *mask_format_grid(const unsigned char *grid, int n_q, int n_k);

#endif
