/* number.h - whole numbers as the user writes them, one rule for every
 * number attnviz reads (the options, window:W and prefix:P, the d_k prompt,
 * COLUMNS): ASCII digits, after a '-' for a negative number (out of range
 * where the range has none). No leading or trailing space (not even "\n5"),
 * no '+', no base prefix, nothing after the digits. strtol alone skips
 * leading whitespace and takes a sign; strtoull turns "-1" into 2^64 - 1. */
#ifndef ATTNVIZ_NUMBER_H
#define ATTNVIZ_NUMBER_H

#include <stdint.h>

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

#endif
