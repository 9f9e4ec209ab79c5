/* hftok_bpe.c - the model of a tokenizer.json: one pre-tokenized piece to
 * ids. Its symbols (bytes through GPT-2's byte-to-unicode table, or UTF-8
 * characters, else their <0xNN> byte pieces with byte_fallback, else
 * unk_token) are merged by rank, the lowest first, then the leftmost,
 * through a heap of candidate pairs that are checked again when they come
 * out (a merge next to them may have changed their neighbours): O(n log n)
 * for a piece of n symbols. ignore_merges takes a whole piece found in the
 * vocabulary as is. */
#include "hftok_internal.h"

#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "utf8.h"

int hftok_push_id(IdVec *o, int id) {
    if (o->n == o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 64;
        int *v = realloc(o->v, cap * sizeof *v);
        if (!v) return -1;
        o->v = v, o->cap = cap;
    }
    o->v[o->n++] = id;
    return 0;
}

typedef struct {
    int rank, pos, right;
} Cand;

static int cand_less(const Cand *a, const Cand *b) {
    return a->rank < b->rank || (a->rank == b->rank && a->pos < b->pos);
}

static void heap_push(Cand *h, int *n, Cand c) {
    int i = (*n)++;
    while (i > 0 && cand_less(&c, &h[(i - 1) / 2])) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = c;
}

static Cand heap_pop(Cand *h, int *n) {
    Cand top = h[0], last = h[--*n];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= *n) break;
        if (c + 1 < *n && cand_less(&h[c + 1], &h[c])) c++;
        if (!cand_less(&h[c], &last)) break;
        h[i] = h[c];
        i = c;
    }
    if (*n > 0) h[i] = last;
    return top;
}

/* Work space of one encode call, grown as pieces need. */
struct BpeWork {
    int *sym, *next, *prev;
    Cand *heap;
    size_t cap;
    char *buf; /* a byte-level spelling of a piece (ignore_merges) */
    size_t buf_cap;
};

BpeWork *bpe_work_new(void) { return calloc(1, sizeof(BpeWork)); }

void bpe_work_free(BpeWork *w) {
    if (!w) return;
    free(w->sym), free(w->next), free(w->prev), free(w->heap), free(w->buf);
    free(w);
}

static int work_reserve(BpeWork *w, size_t n) {
    if (n <= w->cap) return 0;
    size_t cap = n < 64 ? 64 : n;
    int *a = realloc(w->sym, cap * sizeof *a);
    if (a) w->sym = a;
    int *b = realloc(w->next, cap * sizeof *b);
    if (b) w->next = b;
    int *c = realloc(w->prev, cap * sizeof *c);
    if (c) w->prev = c;
    Cand *h = realloc(w->heap, 3 * cap * sizeof *h);
    if (h) w->heap = h;
    if (!a || !b || !c || !h) return -1;
    w->cap = cap;
    return 0;
}

static void try_pair(const HfTok *t, BpeWork *w, int *nh, int pos) {
    if (pos < 0 || w->next[pos] < 0) return;
    const PairSlot *p = hftok_pair_find(t, w->sym[pos], w->sym[w->next[pos]]);
    if (p) heap_push(w->heap, nh, (Cand){p->rank, pos, w->next[pos]});
}

/* One pre-tokenized piece s[0..n) to ids. */
int bpe_piece(const HfTok *t, const char *s, size_t n, BpeWork *w, IdVec *out, size_t *merges, AvError *err) {
    if (t->ignore_merges) {
        const char *form = s;
        size_t flen = n;
        if (t->byte_level) {
            if (w->buf_cap < 2 * n + 1) {
                char *b = realloc(w->buf, 2 * n + 1);
                if (!b) return av_error_nomem(err, _("text: out of memory"));
                w->buf = b, w->buf_cap = 2 * n + 1;
            }
            flen = 0;
            for (size_t i = 0; i < n; i++) flen += (size_t)utf8_encode(t->byte_cp[(unsigned char)s[i]], w->buf + flen);
            form = w->buf;
        }
        int id = hftok_lookup(t, form, flen);
        if (id >= 0) return hftok_push_id(out, id) ? av_error_nomem(err, _("text: out of memory")) : 0;
    }
    if (work_reserve(w, n)) return av_error_nomem(err, _("text: out of memory"));
    int m = 0;
    for (size_t at = 0; at < n;) {
        size_t k = 1;
        int id;
        if (t->byte_level) {
            id = t->byte_sym[(unsigned char)s[at]];
        } else {
            uint32_t cp;
            k = (size_t)utf8_decode(s + at, n - at, &cp);
            id = hftok_lookup(t, s + at, k);
            if (id < 0 && t->byte_fallback) {
                int all = 1;
                for (size_t b = 0; b < k; b++) all &= t->byte_id[(unsigned char)s[at + b]] >= 0;
                if (all) {
                    for (size_t b = 0; b < k; b++) w->sym[m++] = t->byte_id[(unsigned char)s[at + b]];
                    at += k;
                    continue;
                }
            }
        }
        if (id < 0) {
            if (t->unk < 0) {
                uint32_t cp;
                utf8_decode(s + at, n - at, &cp);
                if (t->byte_level)
                    return av_errorf(err, _("text: the byte 0x%02X has no token and the vocabulary has no unk_token"),
                                     (unsigned char)s[at]);
                return av_errorf(err, _("text: the character U+%04X has no token and the vocabulary has no unk_token"),
                                 (unsigned)cp);
            }
            id = t->unk;
            if (t->fuse_unk && m > 0 && w->sym[m - 1] == t->unk) {
                at += k;
                continue;
            }
        }
        w->sym[m++] = id;
        at += k;
    }
    int nh = 0;
    for (int i = 0; i < m; i++) w->next[i] = i + 1 < m ? i + 1 : -1, w->prev[i] = i - 1;
    for (int i = 0; i + 1 < m; i++) try_pair(t, w, &nh, i);
    while (nh > 0) {
        Cand c = heap_pop(w->heap, &nh);
        if (w->sym[c.pos] < 0 || w->next[c.pos] != c.right || w->sym[c.right] < 0) continue;
        const PairSlot *p = hftok_pair_find(t, w->sym[c.pos], w->sym[c.right]);
        if (!p || p->rank != c.rank) continue;
        w->sym[c.pos] = p->id;
        ++*merges;
        w->sym[c.right] = -1;
        w->next[c.pos] = w->next[c.right];
        if (w->next[c.pos] >= 0) w->prev[w->next[c.pos]] = c.pos;
        try_pair(t, w, &nh, w->prev[c.pos]);
        try_pair(t, w, &nh, c.pos);
    }
    for (int i = 0; i >= 0 && m > 0; i = w->next[i])
        if (hftok_push_id(out, w->sym[i])) return av_error_nomem(err, _("text: out of memory"));
    return 0;
}
