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

/* The mask file (--mask-file; W writes it). Two formats, '#' starts a
 * comment, blank lines are skipped:
 *   - rows of 0/1: one row per query, one value per key (1 = visible,
 *     0 = masked), separated by spaces;
 *   - runs: a first line "runs", then one row per query listing the lengths
 *     of its runs of visible and masked keys in turn, visible first (a row
 *     that starts masked begins with 0); each row sums to the key count.
 *     "runs / 2 1 3" is the row 1 1 0 1 1 1.
 * W writes rows of 0/1 up to MASK_BITS_MAX_KEYS keys (easy to edit by hand),
 * runs above (a 4096 x 4096 causal mask is 40 KB). */
#define MASK_BITS_MAX_KEYS 64

/* Reads a painted mask of n_q rows of n_k keys in either format. Errors name
 * file:line:column. *grid is malloc'd (caller frees). */
int mask_parse_grid(unsigned char **grid, int n_q, int n_k, const char *buf, size_t len, const char *name,
                    AvError *err);

/* Writes a grid (n_q x n_k, 1 = visible; NULL = all visible) in the format
 * above, with a header of "# attnviz" comments, then `comments` (lines of
 * the user's own, each ending in a newline, or NULL). A text longer than
 * `max` bytes (the reader's limit) is refused with a message: a mask that
 * alternates too often cannot be read back. On success *out (caller frees,
 * NUL-terminated) and *len are set. */
int mask_format_grid(char **out, size_t *len, const unsigned char *grid, int n_q, int n_k, const char *comments,
                     size_t max, AvError *err);

/* The comments of a mask file that W keeps: every line that is only a
 * comment, except attnviz's own header ("# attnviz ..."). A malloc'd text
 * (caller frees; "" when there are none), NULL when out of memory.
 * *dropped counts comments after the values of a row: W rewrites the rows,
 * so those go. */
char *mask_file_comments(const char *buf, size_t len, int *dropped);

#endif
