/* strbuf.h - a growing string: bytes appended, always NUL-terminated once
 * anything (even nothing) was added. Out of memory sets oom and ignores
 * what follows; the owner checks oom once at the end and frees p. */
#ifndef ATTNVIZ_STRBUF_H
#define ATTNVIZ_STRBUF_H

#include <stddef.h>
#include <string.h>

typedef struct {
    char *p;  /* the bytes and a NUL (owned), or NULL before the first add */
    size_t n; /* bytes, the NUL not counted */
    size_t cap;
    int oom;
} StrBuf;

void strbuf_add(StrBuf *b, const char *s, size_t n);
static inline void strbuf_str(StrBuf *b, const char *s) { strbuf_add(b, s, strlen(s)); }

#endif
