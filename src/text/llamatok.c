/* llamatok.c - see llamatok.h. The file is validated record by record before
 * anything is kept; the vocabulary is then one allocation of piece bytes and
 * an index sorted for binary search. */
#include "llamatok.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "readfile.h"
#include "utf8.h"
#include "number.h"

// ----------------------------------------------------------------------------
// reading the file

static int32_t read_i32(const unsigned char *p) {
    uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    int32_t v;
    memcpy(&v, &u, sizeof v);
    return v;
}

static float read_f32(const unsigned char *p) {
    uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    float v;
    memcpy(&v, &u, sizeof v);
    return v;
}

/* Checks the record of piece i at byte off; returns its length, or -1. */
static int check_record(const unsigned char *b, size_t size, size_t off, int i, int max_len, const char *name,
                        AvError *err) {
    size_t left = size - off;
    if (left < 8)
        return av_errorf(err, _("%s: piece %d at byte %zu: the file ends inside its score and length (%zu of 8 bytes)"),
                         name, i, off, left);
    int32_t len = read_i32(b + off + 4);
    if (len < 0) return av_errorf(err, _("%s: piece %d at byte %zu: negative length %d"), name, i, off, (int)len);
    if (len == 0)
        return av_errorf(err, _("%s: piece %d at byte %zu: length 0 (a piece has a byte at least)"), name, i, off);
    if (len > max_len)
        return av_errorf(err, _("%s: piece %d at byte %zu: length %d is longer than max_token_length %d"), name, i, off,
                         (int)len, max_len);
    if ((size_t)len > left - 8)
        return av_errorf(err, _("%s: piece %d at byte %zu: length %d runs past the end of the file (%zu bytes left)"),
                         name, i, off, (int)len, left - 8);
    return (int)len;
}

typedef struct {
    const char *s;
    int len, id;
} SortKey;

/* Byte order, then the shorter first (strcmp's order for pieces without
 * NUL bytes), then the id (the lowest of equal pieces first). */
static int cmp_bytes(const char *a, int alen, const char *b, int blen) {
    int c = memcmp(a, b, (size_t)(alen < blen ? alen : blen));
    if (c) return c;
    return (alen > blen) - (alen < blen);
}

static int cmp_key(const void *pa, const void *pb) {
    const SortKey *a = pa, *b = pb;
    int c = cmp_bytes(a->s, a->len, b->s, b->len);
    return c ? c : (a->id > b->id) - (a->id < b->id);
}

static int build_index(LlamaTok *t) {
    SortKey *keys = malloc(sizeof *keys * (size_t)t->n);
    if (!keys) return -1;
    for (int i = 0; i < t->n; i++) keys[i] = (SortKey){t->text[i], t->len[i], i};
    qsort(keys, (size_t)t->n, sizeof *keys, cmp_key);
    for (int i = 0; i < t->n; i++) t->sorted[i] = keys[i].id;
    free(keys);
    return 0;
}

/* Counts and checks every record: the number of pieces and their bytes. */
static int scan_records(const unsigned char *b, size_t size, int max_len, const char *name, int *n, size_t *bytes,
                        AvError *err) {
    size_t off = 4, total = 0;
    int i = 0;
    while (off < size) {
        int len = check_record(b, size, off, i, max_len, name, err);
        if (len < 0) return -1;
        off += 8 + (size_t)len;
        total += (size_t)len + 1;
        i++;
    }
    if (i == 0) return av_errorf(err, _("%s: no pieces after max_token_length (the file has 4 bytes)"), name);
    *n = i;
    *bytes = total;
    return 0;
}

/* llama2.c's conventions (llamatok.h). */
static void run_c_conventions(LlamaTok *t) {
    t->bos = LLAMATOK_BOS, t->eos = LLAMATOK_EOS, t->stop = -1;
    t->add_bos = 1, t->space_prefix = 1, t->bytes_by_id = 1;
    for (int b = 0; b < 256; b++) t->byte_id[b] = b + LLAMATOK_BYTE0 < t->n ? b + LLAMATOK_BYTE0 : -1;
}

LlamaTok *llamatok_parse(const void *buf, size_t size, const char *name, AvError *err) {
    char safe[200];
    utf8_escape_into(safe, sizeof safe, name ? name : _("(vocabulary)"));

    const unsigned char *b = buf;
    if (size < 4) return av_errorf(err, _("%s: %zu bytes, too short for max_token_length (4 bytes)"), safe, size), NULL;
    int32_t max_len = read_i32(b);
    if (max_len < 1 || max_len > LLAMATOK_MAX_PIECE)
        return av_errorf(err, _("%s: max_token_length %d is not in 1..%d"), safe, (int)max_len, LLAMATOK_MAX_PIECE),
               NULL;
    int n = 0;
    size_t bytes = 0;
    if (scan_records(b, size, max_len, safe, &n, &bytes, err)) return NULL;

    LlamaTok *t = calloc(1, sizeof *t);
    if (t) {
        t->n = n, t->max_len = max_len;
        t->text = malloc(sizeof *t->text * (size_t)n);
        t->len = malloc(sizeof *t->len * (size_t)n);
        t->score = malloc(sizeof *t->score * (size_t)n);
        t->sorted = malloc(sizeof *t->sorted * (size_t)n);
        t->bytes = malloc(bytes);
    }
    if (!t || !t->text || !t->len || !t->score || !t->sorted || !t->bytes) {
        llamatok_free(t);
        return av_error_nomem(err, _("%s: out of memory for %d pieces"), safe, n), NULL;
    }
    size_t off = 4;
    char *dst = t->bytes;
    for (int i = 0; i < n; i++) {
        int len = (int)read_i32(b + off + 4);
        t->score[i] = read_f32(b + off);
        memcpy(dst, b + off + 8, (size_t)len);
        dst[len] = '\0';
        t->text[i] = dst, t->len[i] = len;
        dst += len + 1;
        off += 8 + (size_t)len;
    }
    if (build_index(t)) {
        llamatok_free(t);
        return av_error_nomem(err, _("%s: out of memory for %d pieces"), safe, n), NULL;
    }
    run_c_conventions(t);
    return t;
}

LlamaTok *llamatok_from_pieces(int n, const char *const *text, const size_t *len, const float *score, const char *name,
                               AvError *err) {
    char safe[200];
    utf8_escape_into(safe, sizeof safe, name ? name : _("(vocabulary)"));
    size_t bytes = 0;
    int max_len = 1;
    for (int i = 0; i < n; i++) {
        if (len[i] > LLAMATOK_MAX_PIECE)
            return av_errorf(err, _("%s: piece %d: %zu bytes, more than the limit of %d"), safe, i, len[i],
                             LLAMATOK_MAX_PIECE),
                   NULL;
        bytes += len[i] + 1;
        if ((int)len[i] > max_len) max_len = (int)len[i];
    }
    LlamaTok *t = calloc(1, sizeof *t);
    if (t) {
        t->n = n, t->max_len = max_len;
        t->text = malloc(sizeof *t->text * (size_t)(n ? n : 1));
        t->len = malloc(sizeof *t->len * (size_t)(n ? n : 1));
        t->score = malloc(sizeof *t->score * (size_t)(n ? n : 1));
        t->sorted = malloc(sizeof *t->sorted * (size_t)(n ? n : 1));
        t->bytes = malloc(bytes ? bytes : 1);
    }
    if (!t || !t->text || !t->len || !t->score || !t->sorted || !t->bytes) {
        llamatok_free(t);
        return av_error_nomem(err, _("%s: out of memory for %d pieces"), safe, n), NULL;
    }
    char *dst = t->bytes;
    for (int i = 0; i < n; i++) {
        if (len[i]) memcpy(dst, text[i], len[i]);
        dst[len[i]] = '\0';
        t->text[i] = dst, t->len[i] = (int)len[i], t->score[i] = score[i];
        dst += len[i] + 1;
    }
    if (build_index(t)) {
        llamatok_free(t);
        return av_error_nomem(err, _("%s: out of memory for %d pieces"), safe, n), NULL;
    }
    run_c_conventions(t);
    for (int b = 0; b < 256; b++) {
        char hex[8];
        snprintf(hex, sizeof hex, "<0x%02X>", b);
        t->byte_id[b] = llamatok_lookup(t, hex, 6);
    }
    return t;
}

LlamaTok *llamatok_load(const char *path, AvError *err) {
    char *buf;
    size_t len;
    if (av_read_file(path, LLAMATOK_MAX_BYTES, &buf, &len, err)) return NULL;
    LlamaTok *t = llamatok_parse(buf, len, path, err);
    free(buf);
    return t;
}

void llamatok_free(LlamaTok *t) {
    if (!t) return;
    free(t->text);
    free(t->len);
    free(t->score);
    free(t->sorted);
    free(t->bytes);
    free(t);
}

// ----------------------------------------------------------------------------
// lookup, pieces, decoding

int llamatok_lookup(const LlamaTok *t, const char *s, size_t len) {
    if (len > (size_t)t->max_len * 2) return -1; /* longer than any piece or pair */
    /* The first sorted entry not below s: the lowest id of equal pieces. */
    int lo = 0, hi = t->n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2, id = t->sorted[mid];
        if (cmp_bytes(t->text[id], t->len[id], s, (int)len) < 0) lo = mid + 1;
        else hi = mid;
    }
    if (lo == t->n) return -1;
    int id = t->sorted[lo];
    return cmp_bytes(t->text[id], t->len[id], s, (int)len) == 0 ? id : -1;
}

const char *llamatok_piece(const LlamaTok *t, int id, size_t *len) {
    *len = (size_t)t->len[id];
    return t->text[id];
}

static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* The byte of a piece "<0xHH>", or -1. */
static int byte_piece(const char *s, size_t len) {
    if (len != 6 || memcmp(s, "<0x", 3) != 0 || s[5] != '>') return -1;
    int hi = hex_digit(s[3]), lo = hex_digit(s[4]);
    return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

static const unsigned char all_bytes[256] = {
#define B4(n)  n, n + 1, n + 2, n + 3
#define B16(n) B4(n), B4(n + 4), B4(n + 8), B4(n + 12)
    B16(0),   B16(16),  B16(32),  B16(48),  B16(64),  B16(80),  B16(96),  B16(112),
    B16(128), B16(144), B16(160), B16(176), B16(192), B16(208), B16(224), B16(240),
#undef B16
#undef B4
};

const char *llamatok_decode(const LlamaTok *t, int prev, int id, size_t *len) {
    const char *s = t->text[id];
    size_t n = (size_t)t->len[id];
    if (prev == t->bos && prev >= 0 && n > 0 && s[0] == ' ') s++, n--;
    int byte = byte_piece(s, n);
    if (byte >= 0) {
        *len = 1;
        return (const char *)all_bytes + byte;
    }
    *len = n;
    return s;
}

size_t llamatok_display(const LlamaTok *t, int id, char *buf, size_t cap) {
    static const char space[] = "\xe2\x96\x81"; /* U+2581 LOWER ONE EIGHTH BLOCK, SentencePiece's ▁ */
    if (id == t->bos || id == t->eos) {
        int n = snprintf(buf, cap, "%s", id == t->bos ? "<s>" : "</s>");
        return n < 0 ? 0 : (size_t)n;
    }
    size_t out = 0;
    for (int i = 0; i < t->len[id]; i++) {
        char c = t->text[id][i];
        const char *add = c == ' ' ? space : &t->text[id][i];
        size_t k = c == ' ' ? 3 : 1;
        for (size_t j = 0; j < k; j++, out++)
            if (cap && out < cap - 1) buf[out] = add[j];
    }
    if (cap) buf[out < cap - 1 ? out : cap - 1] = '\0';
    return out;
}

// ----------------------------------------------------------------------------
// encoding: characters, byte fallback, then the merges

/* A possible merge of the token at `pos` with the next one into `id`; valid
 * while gen equals the position's generation (a merge next to it changes
 * it). */
typedef struct {
    float score;
    int pos, gen, id;
} Merge;

typedef struct {
    const LlamaTok *t;
    int *ids;         /* the token at each position (dead positions keep theirs) */
    int *next, *prev; /* the live positions as a list in text order (-1 at the ends) */
    int *gen;         /* per position; -1 once merged into the one before */
    Merge *heap;      /* the candidates, best on top */
    int nheap;
    char *pair; /* 2 * max_len bytes: two pieces side by side */
} Merger;

/* run.c's order: the higher score, then the leftmost (positions keep the
 * text order, so the smaller position is the one further left). */
static int better(const Merge *a, const Merge *b) {
    return a->score > b->score || (a->score == b->score && a->pos < b->pos);
}

static void heap_push(Merger *m, Merge c) {
    int i = m->nheap++;
    while (i > 0 && better(&c, &m->heap[(i - 1) / 2])) {
        m->heap[i] = m->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    m->heap[i] = c;
}

static Merge heap_pop(Merger *m) {
    Merge top = m->heap[0], last = m->heap[--m->nheap];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= m->nheap) break;
        if (c + 1 < m->nheap && better(&m->heap[c + 1], &m->heap[c])) c++;
        if (!better(&m->heap[c], &last)) break;
        m->heap[i] = m->heap[c];
        i = c;
    }
    if (m->nheap) m->heap[i] = last;
    return top;
}

/* Queues the merge of the token at pos with the next one, if that pair is a
 * piece whose score run.c would take (above its starting best of -1e10). */
static void queue_pair(Merger *m, int pos) {
    int nx = m->next[pos];
    if (nx < 0) return;
    const LlamaTok *t = m->t;
    int a = m->ids[pos], b = m->ids[nx];
    memcpy(m->pair, t->text[a], (size_t)t->len[a]);
    memcpy(m->pair + t->len[a], t->text[b], (size_t)t->len[b]);
    int id = llamatok_lookup(t, m->pair, (size_t)t->len[a] + (size_t)t->len[b]);
    if (id >= 0 && t->score[id] > (float)-1e10) heap_push(m, (Merge){t->score[id], pos, m->gen[pos], id});
}

/* Merges the n tokens of ids in place; returns how many are left. */
static int merge_all(Merger *m, int n) {
    for (int i = 0; i < n; i++) m->next[i] = i + 1 < n ? i + 1 : -1, m->prev[i] = i - 1, m->gen[i] = 0;
    for (int i = 0; i + 1 < n; i++) queue_pair(m, i);
    while (m->nheap) {
        Merge c = heap_pop(m);
        if (c.gen != m->gen[c.pos]) continue; /* stale: a neighbour merged since */
        int i = c.pos, j = m->next[i];
        m->ids[i] = c.id;
        m->next[i] = m->next[j];
        if (m->next[j] >= 0) m->prev[m->next[j]] = i;
        m->gen[j] = -1;
        m->gen[i]++;
        queue_pair(m, i);
        if (m->prev[i] >= 0) {
            m->gen[m->prev[i]]++;
            queue_pair(m, m->prev[i]);
        }
    }
    int out = 0;
    for (int i = 0; i >= 0 && n > 0; i = m->next[i]) m->ids[out++] = m->ids[i];
    return out;
}

/* BOS, the dummy prefix, then each character's piece or its bytes' ids. */
static int split_characters(const LlamaTok *t, const char *text, size_t len, int bos, int *ids, AvError *err) {
    int n = 0;
    if (bos && (t->bos < 0 || t->n <= t->bos))
        return av_errorf(err,
                         P_("no BOS: the vocabulary has %d piece, BOS is id %d",
                            "no BOS: the vocabulary has %d pieces, BOS is id %d", t->n),
                         t->n, t->bos);
    if (bos) ids[n++] = t->bos;
    if (len > 0 && t->space_prefix) {
        int space = llamatok_lookup(t, " ", 1);
        if (space >= 0) ids[n++] = space;
    }
    const unsigned char *u = (const unsigned char *)text;
    for (size_t at = 0; at < len;) {
        /* run.c's grouping: a byte and the continuation bytes after it, four bytes at most */
        size_t k = 1;
        while (at + k < len && (u[at + k] & 0xC0) == 0x80 && k < 4) k++;
        int id = llamatok_lookup(t, text + at, k);
        if (id >= 0) {
            ids[n++] = id;
        } else {
            for (size_t b = 0; b < k; b++) {
                int byte = u[at + b], id = t->byte_id[byte];
                if (id < 0 && t->bytes_by_id)
                    return av_errorf(err,
                                     _("byte 0x%02X at offset %zu has no piece: byte fallback needs id %d, the "
                                       "vocabulary has %d %s"),
                                     byte, at + b, byte + LLAMATOK_BYTE0, t->n, num_plural("piece", "pieces", t->n));
                if (id < 0)
                    return av_errorf(err, _("byte 0x%02X at offset %zu has no piece and no byte piece <0x%02X>"), byte,
                                     at + b, byte);
                ids[n++] = id;
            }
        }
        at += k;
    }
    return n;
}

int llamatok_encode(const LlamaTok *t, const char *text, size_t len, int bos, int **ids, AvError *err) {
    *ids = NULL;
    if (len > (size_t)INT32_MAX / 4 - 2) return av_errorf(err, _("text of %zu bytes: too long to encode"), len);
    size_t cap = len + 2;
    Merger m = {.t = t};
    m.ids = malloc(sizeof *m.ids * cap);
    m.next = malloc(sizeof *m.next * cap);
    m.prev = malloc(sizeof *m.prev * cap);
    m.gen = malloc(sizeof *m.gen * cap);
    m.heap = malloc(sizeof *m.heap * cap * 3); /* the first pairs, then two per merge */
    m.pair = malloc((size_t)t->max_len * 2);
    int n = -1;
    if (!m.ids || !m.next || !m.prev || !m.gen || !m.heap || !m.pair) {
        av_error_nomem(err, _("out of memory encoding %zu bytes"), len);
    } else {
        n = split_characters(t, text, len, bos, m.ids, err);
        if (n >= 0) n = merge_all(&m, n);
    }
    free(m.next);
    free(m.prev);
    free(m.gen);
    free(m.heap);
    free(m.pair);
    if (n < 0) free(m.ids);
    else *ids = m.ids;
    return n;
}
