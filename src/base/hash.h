/* hash.h - 64-bit FNV-1a, the one hash of the code base: simple, and good
 * enough to spread token texts over a table or to key a cache. Not for
 * anything an adversary chooses to collide (nothing here depends on that). */
#ifndef ATTNVIZ_HASH_H
#define ATTNVIZ_HASH_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t av_fnv1a(const void *data, size_t len) {
    const unsigned char *p = data;
    uint64_t h = 14695981039346656037u; /* the offset basis */
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 1099511628211u; /* the FNV prime */
    }
    return h;
}

#endif
