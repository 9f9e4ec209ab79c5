/* hftok_added.c - added tokens (<|endoftext|>, <s>, a hundred thousand
 * <|reserved_special_token_N|>) found in a text in time linear in the text,
 * whatever their number and length.
 *
 * The tokenizers library takes, at each step, the leftmost occurrence of
 * any added token and the longest one starting there, then goes on after it
 * (aho-corasick's LeftmostLongest, non-overlapping). That is: at the next
 * byte s where some token starts, the longest token starting at s. The
 * longest token starting at every byte comes from one Aho-Corasick automaton
 * over the tokens written backwards, run over the text backwards: its state
 * at byte s is the longest prefix of text[s..] that ends some token, and the
 * longest token in that state's output chain (one number per state) is the
 * longest token starting at s. The text is read in windows of W bytes (each
 * read from W + longest - 1 bytes on, so that every state is exact), so the
 * work stays within twice the text and the memory within W numbers.
 *
 * The automaton's states are laid out breadth first from the sorted
 * reversed tokens, so that the children of a state are consecutive (first[v]
 * .. first[v + 1]) and sorted by byte: 13 bytes a state. */
#include "hftok_internal.h"

#include <stdlib.h>
#include <string.h>

#include "cancel.h"
#include "i18n.h"
#include "unorm.h"
#include "utf8.h"

#define WINDOW ((size_t)1 << 16)

struct AddedSet {
    uint32_t n;           /* states; 0 is the root */
    uint32_t *first;      /* n + 1: the children of v are first[v] .. first[v + 1] - 1 */
    unsigned char *label; /* n: the byte into v */
    uint32_t *fail;       /* n */
    int32_t *out;         /* n: the longest token (an index of the Added array) ending the state's text, -1 none */
    uint32_t root_next[256];
    size_t max_len;
};

void added_set_free(AddedSet *s) {
    if (!s) return;
    free(s->first), free(s->label), free(s->fail), free(s->out);
    free(s);
}

typedef struct {
    const char *s;
    size_t len;
    int idx;
} Pat;

/* The bytes of a pattern read backwards. */
static unsigned char rev_at(const Pat *p, size_t d) { return (unsigned char)p->s[p->len - 1 - d]; }

static int cmp_rev(const void *pa, const void *pb) {
    const Pat *a = pa, *b = pb;
    size_t n = a->len < b->len ? a->len : b->len;
    for (size_t d = 0; d < n; d++) {
        unsigned char x = rev_at(a, d), y = rev_at(b, d);
        if (x != y) return x < y ? -1 : 1;
    }
    if (a->len != b->len) return a->len < b->len ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx; /* the same text twice: the first in the file */
}

/* The child of v by byte c, or 0 (the root is no one's child). */
static uint32_t child(const AddedSet *s, uint32_t v, unsigned char c) {
    if (v == 0) return s->root_next[c];
    uint32_t lo = s->first[v], hi = s->first[v + 1];
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s->label[mid] == c) return mid;
        if (s->label[mid] < c) lo = mid + 1;
        else hi = mid;
    }
    return 0;
}

/* The state after v reads c, following failure links; *steps counts every
 * link taken and the step itself. */
static uint32_t step(const AddedSet *s, uint32_t v, unsigned char c, size_t *steps) {
    for (;;) {
        ++*steps;
        uint32_t u = child(s, v, c);
        if (u || v == 0) return u;
        v = s->fail[v];
    }
}

/* The breadth-first layout: the pattern range and depth of each state
 * while it waits for its children. */
typedef struct {
    uint32_t lo, hi, depth;
} Range;

static int build(AddedSet *s, const Pat *p, uint32_t np, size_t cap) {
    Range *r = malloc(cap * sizeof *r);
    if (!r) return -1;
    uint32_t next = 1;
    r[0] = (Range){0, np, 0};
    s->fail[0] = 0;
    s->out[0] = -1;
    for (uint32_t v = 0; v < next; v++) {
        s->first[v] = next;
        uint32_t lo = r[v].lo, hi = r[v].hi, d = r[v].depth;
        /* the patterns that end here sort first */
        while (lo < hi && p[lo].len == d) lo++;
        while (lo < hi) {
            unsigned char c = rev_at(&p[lo], d);
            uint32_t end = lo + 1;
            while (end < hi && rev_at(&p[end], d) == c) end++;
            uint32_t u = next++;
            s->label[u] = c;
            r[u] = (Range){lo, end, d + 1};
            if (v == 0) s->root_next[c] = u;
            /* the failure link: the longest proper suffix of u's text that is a state */
            uint32_t f = 0;
            if (v != 0)
                for (uint32_t w = s->fail[v];; w = s->fail[w]) {
                    f = child(s, w, c);
                    if (f || w == 0) break;
                }
            s->fail[u] = f;
            s->out[u] = p[lo].len == d + 1 ? p[lo].idx : s->out[f];
            lo = end;
        }
    }
    s->first[next] = next;
    s->n = next;
    free(r);
    return 0;
}

int added_set_new(const Added *a, int n, int normalized, AddedSet **out, AvError *err) {
    *out = NULL;
    uint32_t np = 0;
    size_t total = 1, max_len = 0;
    for (int i = 0; i < n; i++)
        if (a[i].normalized == normalized && a[i].len > 0) {
            np++;
            total += a[i].len;
            if (a[i].len > max_len) max_len = a[i].len;
        }
    if (np == 0) return 0;
    if (total > UINT32_MAX - 2) return av_error_nomem(err, _("added tokens: too many bytes"));
    Pat *p = malloc(np * sizeof *p);
    AddedSet *s = calloc(1, sizeof *s);
    if (s) {
        s->first = malloc((total + 1) * sizeof *s->first);
        s->label = malloc(total);
        s->fail = malloc(total * sizeof *s->fail);
        s->out = malloc(total * sizeof *s->out);
        s->max_len = max_len;
    }
    if (!p || !s || !s->first || !s->label || !s->fail || !s->out) {
        free(p);
        added_set_free(s);
        return av_error_nomem(err, _("added tokens: out of memory"));
    }
    np = 0;
    for (int i = 0; i < n; i++)
        if (a[i].normalized == normalized && a[i].len > 0) p[np++] = (Pat){a[i].text, a[i].len, i};
    qsort(p, np, sizeof *p, cmp_rev);
    int rc = build(s, p, np, total);
    free(p);
    if (rc) {
        added_set_free(s);
        return av_error_nomem(err, _("added tokens: out of memory"));
    }
    *out = s;
    return 0;
}

/* best[0 .. b - a): the longest token (an index of the Added array, or -1)
 * starting at each byte of s[a .. b). */
static void window(const AddedSet *set, const char *s, size_t n, size_t a, size_t b, int32_t *best, size_t *steps) {
    size_t e = b + set->max_len - 1 < n ? b + set->max_len - 1 : n;
    uint32_t v = 0;
    for (size_t i = e; i > a;) {
        i--;
        v = step(set, v, (unsigned char)s[i], steps);
        if (i < b) best[i - a] = set->out[v];
    }
}

/* The character before byte at (0 when at is 0) and the one at at (0 at the
 * end). */
static uint32_t char_before(const char *s, size_t at, size_t *len) {
    size_t k = at;
    while (k > 0 && at - k < 4 && ((unsigned char)s[k - 1] & 0xC0) == 0x80) k--;
    if (k > 0) k--;
    uint32_t cp = 0;
    if (at > 0) utf8_decode(s + k, at - k, &cp);
    if (len) *len = at - k;
    return cp;
}

static uint32_t char_at(const char *s, size_t n, size_t at, size_t *len) {
    uint32_t cp = 0;
    size_t k = at < n ? (size_t)utf8_decode(s + at, n - at, &cp) : 0;
    if (len) *len = k;
    return cp;
}

int added_split(const AddedSet *set, const Added *a, const char *s, size_t n, const AddedSink *sink, size_t *steps,
                AvError *err) {
    size_t counted = 0, width = set ? WINDOW : 0;
    if (set && set->max_len > width) width = set->max_len;
    if (width > n) width = n;
    int32_t *best = set && n ? malloc(width * sizeof *best) : NULL;
    if (set && n && !best) return av_error_nomem(err, _("text: out of memory"));
    size_t pos = 0, done = 0, win_a = 0, win_b = 0;
    int rc = 0;
    while (set && pos < n && rc == 0) {
        if (pos >= win_b) {
            if (av_cancelled()) {
                rc = av_errorf(err, _("tokenizing cancelled at byte %zu of %zu"), pos, n);
                break;
            }
            win_a = pos;
            win_b = pos + width < n ? pos + width : n;
            window(set, s, n, win_a, win_b, best, &counted);
        }
        int32_t k = best[pos - win_a];
        if (k < 0) {
            pos++;
            continue;
        }
        const Added *t = &a[k];
        size_t start = pos, stop = pos + t->len;
        pos = stop; /* the search goes on after the occurrence, kept or not */
        if (t->single_word && (unorm_is_word(char_before(s, start, NULL)) || unorm_is_word(char_at(s, n, stop, NULL))))
            continue;
        size_t k2;
        if (t->lstrip)
            while (start > done && unorm_is_space(char_before(s, start, &k2)) && k2 <= start - done) start -= k2;
        if (t->rstrip)
            while (stop < n && unorm_is_space(char_at(s, n, stop, &k2))) stop += k2;
        if (start < done) start = done; /* a token inside what the last one's rstrip took */
        if (start > done) rc = sink->gap(sink->ctx, done, start - done);
        if (rc == 0) rc = sink->token(sink->ctx, t->id);
        if (stop > done) done = stop;
    }
    free(best);
    if (rc == 0 && done < n) rc = sink->gap(sink->ctx, done, n - done);
    if (steps) *steps += counted;
    return rc;
}

int hftok_build_added(HfTok *t, const char *file, AvError *err) {
    for (int i = 0; i < t->n_added; i++) {
        Added *a = &t->added[i];
        if (!a->normalized || t->n_norm == 0) continue;
        char *norm;
        size_t len;
        if (hftok_normalize(t, a->text, a->len, &norm, &len, NULL, err)) return av_error_prefix(err, "%s", file);
        free(a->text);
        a->text = norm, a->len = len; /* matched as the normalizer leaves it (never when it leaves nothing) */
    }
    if (added_set_new(t->added, t->n_added, 0, &t->added_raw, err) ||
        added_set_new(t->added, t->n_added, 1, &t->added_norm, err))
        return av_error_prefix(err, "%s", file);
    return 0;
}
