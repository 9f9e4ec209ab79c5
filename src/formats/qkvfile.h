/* qkvfile.h - the plain-text Q/K/V file of DESIGN.md §3 (one attention head).
 *
 *   # a comment (from '#' to the end of the line, anywhere)
 *   tokens: 나는 학교에 간다        (optional, whitespace separated)
 *   Q:
 *   0.1 0.3 0.5
 *   ...
 *   K:
 *   ...
 *   V:
 *   ...
 *
 * Q and K have the same width (d_k); K and V the same number of rows (n_k).
 * Q may have a different number of rows than K (queries from another
 * sequence). The tokens line names the keys (its count must equal K's rows);
 * when Q has as many rows as K it names the queries too. Without it, tokens
 * are t0, t1, ...; queries of a Q with its own row count are q0, q1, ...
 * Every number must be finite and fit a float32. */
#ifndef ATTNVIZ_QKVFILE_H
#define ATTNVIZ_QKVFILE_H

#include <stddef.h>

#include "error.h"

typedef struct {
    int n_q, n_k;        /* rows of Q; rows of K and V */
    int d_k, d_v;        /* width of Q and K; width of V */
    float *q;            /* (n_q, d_k) row-major */
    float *k;            /* (n_k, d_k) */
    float *v;            /* (n_k, d_v) */
    char **key_tokens;   /* n_k NUL-terminated labels */
    char **query_tokens; /* n_q labels (may share strings with key_tokens: free via qkv_free only) */
    int has_tokens;      /* 1 when the file had a tokens: line */
} QkvData;

/* Parses buf[0..len) (need not be NUL-terminated). `name` is used in messages:
 *   "worked.qkv:7:5: expected a number, found 'x1'"
 * On failure *out is left zeroed. Free with qkv_free. */
int qkv_parse(QkvData *out, const char *buf, size_t len, const char *name, AvError *err);

/* Reads `path` (av_read_file, 1 MiB limit) and parses it. */
int qkv_load(QkvData *out, const char *path, AvError *err);

void qkv_free(QkvData *d); /* NULL-safe; leaves *d zeroed */

#endif
