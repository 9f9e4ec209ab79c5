/* gguf_internal.h - what gguf.c (the file validated and opened) and
 * gguf_meta.c (the metadata's values read out) share, for them alone. */
#ifndef ATTNVIZ_GGUF_INTERNAL_H
#define ATTNVIZ_GGUF_INTERNAL_H

#include "gguf.h"

/* The little-endian integer of `bytes` (1..8) bytes at p. */
static inline uint64_t gguf_le(const unsigned char *p, int bytes) {
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

static inline int gguf_is_int_type(GgufType t) {
    return t == GGUF_UINT8 || t == GGUF_INT8 || t == GGUF_UINT16 || t == GGUF_INT16 || t == GGUF_UINT32 ||
           t == GGUF_INT32 || t == GGUF_UINT64 || t == GGUF_INT64;
}

/* The bytes of a scalar of each type (0: a string or an array). */
extern const int gguf_type_sizes[GGUF_TYPE_COUNT];

/* "FILE: key K: type u64, not u32" / "type array of str, not ..." (k: the
 * key escaped); returns -1. */
int gguf_wrong_type(const Gguf *g, const GgufKv *kv, const char *k, const char *want, AvError *err);

#endif
