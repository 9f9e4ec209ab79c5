/* number.h - whole numbers as the user writes them, one rule for every
 * number attnviz reads (the options, window:W and prefix:P, the d_k prompt,
 * COLUMNS): ASCII digits, after a '-' for a negative number (out of range
 * where the range has none). No leading or trailing space (not even "\n5"),
 * no '+', no base prefix, nothing after the digits. strtol alone skips
 * leading whitespace and takes a sign; strtoull turns "-1" into 2^64 - 1. */
#ifndef ATTNVIZ_NUMBER_H
#define ATTNVIZ_NUMBER_H

#include <stddef.h>
#include <stdint.h>
#include "i18n.h"

typedef enum {
    NUM_OK = 0,
    NUM_NOT_A_NUMBER = -1, /* not digits as above (or NULL, or empty) */
    NUM_OUT_OF_RANGE = -2, /* digits, but outside lo..hi */
} NumResult;

/* Parses s as a whole number in lo..hi (lo <= hi) into *out; *out is set
 * only on NUM_OK. */
NumResult num_parse_long(const char *s, long lo, long hi, long *out);

/* The same for 0..2^64-1 (no sign at all). */
NumResult num_parse_u64(const char *s, uint64_t *out);

/* v for a status line, at most 9 columns whatever its size: "%.2f" below
 * 10000 in magnitude ("22.42"), else 3 significant digits and a power of
 * ten without '+' ("3.40e38", "-1.25e5"); "inf", "-inf", "nan" as such. */
void num_short(char *buf, size_t cap, double v);

/* The noun for a count: `one` when n is 1, else `many` ("1 token", "2
 * tokens", "0 tokens"), for every count attnviz prints with a noun. The
 * arguments are ngettext's, in its order, and the noun is in the reader's
 * language (i18n.h; xgettext knows num_plural as a keyword). */
static inline const char *num_plural(const char *one, const char *many, long long n) {
    return P_(one, many, n < 0 ? (unsigned long)-n : (unsigned long)n);
}

#endif
