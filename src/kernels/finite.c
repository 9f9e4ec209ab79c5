/* finite.c - see finite.h. Each element's exponent bits are tested in blocks:
 * the common case (all finite) is one pass of ORs, which the compiler
 * vectorizes; a block that has a bad element is walked again to find it. */
#include "finite.h"

#include <stdlib.h>
#include <string.h>

#include "cancel.h"
#include "i18n.h"
#include "parallel.h"

enum { BLOCK = 4096 }; /* elements per OR pass */

static size_t type_size(FiniteType t) { return t == FINITE_F32 ? 4 : 2; }

/* 1 when element i of p (of type t) has an all-ones exponent. */
static int bad_at(const unsigned char *p, FiniteType t, uint64_t i) {
    if (t == FINITE_F32) {
        uint32_t u;
        memcpy(&u, p + 4 * i, 4);
        return (u & 0x7F800000u) == 0x7F800000u;
    }
    uint16_t h;
    memcpy(&h, p + 2 * i, 2);
    return t == FINITE_F16 ? (h & 0x7C00u) == 0x7C00u : (h & 0x7F80u) == 0x7F80u;
}

/* 1 when any of elements [0, n) of p is bad (the fast pass). Eight bytes
 * at a time, each 16- or 32-bit lane at once: (x & EXP) + ONE carries into
 * the lane's sign bit exactly when the exponent EXP is all ones, and never
 * into the next lane. */
static int any_bad(const unsigned char *p, FiniteType t, uint64_t n) {
    static const uint64_t exp_mask[3] = {0x7F8000007F800000u, 0x7C007C007C007C00u, 0x7F807F807F807F80u};
    static const uint64_t exp_one[3] = {0x0080000000800000u, 0x0400040004000400u, 0x0080008000800080u};
    static const uint64_t sign[3] = {0x8000000080000000u, 0x8000800080008000u, 0x8000800080008000u};
    uint64_t bytes = n * type_size(t), words = bytes / 8, bad = 0, m = exp_mask[t], one = exp_one[t];
    for (uint64_t i = 0; i < words; i++) {
        uint64_t w;
        memcpy(&w, p + 8 * i, 8);
        bad |= (w & m) + one;
    }
    if (bad & sign[t]) return 1;
    for (uint64_t i = words * 8 / type_size(t); i < n; i++)
        if (bad_at(p, t, i)) return 1;
    return 0;
}

/* The first bad element of [from, from + n) of a, or UINT64_MAX. */
static uint64_t first_bad_in(const FiniteArray *a, uint64_t from, uint64_t n) {
    const unsigned char *p = a->data;
    size_t es = type_size(a->type);
    for (uint64_t b = from; b < from + n; b += BLOCK) {
        uint64_t e = from + n - b < BLOCK ? from + n - b : BLOCK;
        if (!any_bad(p + b * es, a->type, e)) continue;
        for (uint64_t i = b; i < b + e; i++)
            if (bad_at(p, a->type, i)) return i;
    }
    return UINT64_MAX;
}

uint64_t finite_first_bad(const FiniteArray *a) {
    uint64_t at = first_bad_in(a, 0, a->count);
    return at == UINT64_MAX ? a->count : at;
}

const char *finite_kind(const FiniteArray *a, uint64_t at) {
    const unsigned char *p = a->data;
    if (a->type == FINITE_F32) {
        uint32_t u;
        memcpy(&u, p + 4 * at, 4);
        return u & 0x007FFFFFu ? "NaN" : u >> 31 ? _("-infinite") : _("infinite");
    }
    uint16_t h;
    memcpy(&h, p + 2 * at, 2);
    uint16_t frac = a->type == FINITE_F16 ? 0x03FFu : 0x007Fu;
    return h & frac ? "NaN" : h >> 15 ? _("-infinite") : _("infinite");
}

// ----------------------------------------------------------------------------
// in parallel

typedef struct {
    int array;
    uint64_t from, n;
    uint64_t bad; /* the result: the first bad element, or UINT64_MAX */
} Chunk;

typedef struct {
    const FiniteArray *a;
    Chunk *c;
} Scan;

static void scan_task(void *ctx, int t) {
    Scan *s = ctx;
    Chunk *c = &s->c[t];
    c->bad = first_bad_in(&s->a[c->array], c->from, c->n);
}

int finite_scan(const FiniteArray *a, int n, uint64_t *at) {
    size_t chunks = 0;
    for (int i = 0; i < n; i++) {
        uint64_t per = FINITE_CHUNK / type_size(a[i].type);
        chunks += (size_t)((a[i].count + per - 1) / per);
    }
    Chunk *c = chunks <= (size_t)0x7FFFFFFF ? malloc(sizeof *c * (chunks ? chunks : 1)) : NULL;
    if (!c) { /* no room for the list: one array after another on this thread */
        for (int i = 0; i < n; i++) {
            if (av_cancelled()) return -2;
            uint64_t k = first_bad_in(&a[i], 0, a[i].count);
            if (k != UINT64_MAX) return *at = k, i;
        }
        return -1;
    }
    size_t k = 0;
    for (int i = 0; i < n; i++) {
        uint64_t per = FINITE_CHUNK / type_size(a[i].type);
        for (uint64_t from = 0; from < a[i].count; from += per)
            c[k++] = (Chunk){i, from, a[i].count - from < per ? a[i].count - from : per, UINT64_MAX};
    }
    Scan s = {a, c};
    par_for((int)chunks, scan_task, &s);
    int found = av_cancelled() ? -2 : -1;
    for (size_t j = 0; found == -1 && j < chunks; j++)
        if (c[j].bad != UINT64_MAX) *at = c[j].bad, found = c[j].array;
    free(c);
    return found;
}
