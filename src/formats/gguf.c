/* gguf.c - see gguf.h. One pass over the header with a bounds-checked
 * cursor: every count is compared with the bytes left before anything of
 * that size is allocated or walked, so the work and the memory are linear
 * in the file's size whatever its numbers say. Keys and names are copied
 * out (NUL-terminated) into one block; values and tensors stay in the
 * mapping. Unique keys and names, and disjoint tensors, are checked on
 * sorted copies (n log n). The values are read out in gguf_meta.c. */
#define _POSIX_C_SOURCE 200809L
#include "gguf_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cancel.h"
#include "filemap.h"
#include "i18n.h"
#include "utf8.h"

/* Where a key or a name is in the mapping, before it is copied out. */
typedef struct {
    uint64_t at, len;
} Span;

struct Gguf {
    const void *map; /* the mapping (gguf_open, filemap.h), or NULL (gguf_open_mem) */
    size_t map_len;
    char file[200]; /* the name for messages, escaped */
    uint32_t version;
    uint64_t alignment;
    uint64_t data_offset; /* of the data section in the file */
    int n_kv;
    GgufKv *kv;          /* [n_kv] in the file's order */
    const GgufKv **keys; /* [n_kv] sorted by key */
    int n_t;
    GgufTensor *t;             /* [n_t] in the file's order */
    const GgufTensor **byname; /* [n_t] sorted by name */
    char *strings;             /* every key and name, NUL-terminated, one block */
};

// ----------------------------------------------------------------------------
// the cursor

typedef struct {
    const unsigned char *buf;
    uint64_t size, pos;
    const char *file;
    AvError *err;
} Cur;

static uint64_t left(const Cur *c) { return c->size - c->pos; }

/* The next `bytes` (1..8) as a little-endian integer; -1 at the end of the
 * file, with "FILE: CTX: the file ends inside WHAT (at byte N)" (WHAT marked
 * N_ by the caller, translated here: only a message pays for it). */
static int take(Cur *c, int bytes, uint64_t *out, const char *ctx, const char *what) {
    *out = 0;
    if (left(c) < (uint64_t)bytes)
        return av_errorf(c->err, _("%s: %s: the file ends inside %s (at byte %llu)"), c->file, ctx, _(what),
                         (unsigned long long)c->size);
    *out = gguf_le(c->buf + c->pos, bytes);
    c->pos += (uint64_t)bytes;
    return 0;
}

/* The contexts of take_in. */
static const char *const KEY = N_("key %s"), *const TENSOR = N_("tensor %s");

static const char *const type_names[GGUF_TYPE_COUNT] = {"u8",   "i8",  "u16", "i16", "u32", "i32", "f32",
                                                        "bool", "str", "arr", "u64", "i64", "f64"};
const int gguf_type_sizes[GGUF_TYPE_COUNT] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};

const char *gguf_type_name(int type) { return type >= 0 && type < GGUF_TYPE_COUNT ? type_names[type] : "?"; }

/* The bytes of s[0..len) escaped for a message (cut to fit out). */
static void escape_span(char *out, size_t cap, const unsigned char *s, uint64_t len) {
    char tmp[160];
    size_t n = len < sizeof tmp - 1 ? (size_t)len : sizeof tmp - 1;
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    /* a NUL inside is refused before any message names the span */
    utf8_escape_into(out, cap, tmp);
}

// ----------------------------------------------------------------------------
// metadata values

/* One value of type `type` at the cursor, checked and stepped over; kv (if
 * not NULL) describes it. `key` is the escaped key, for messages. */
static int read_value(Cur *c, GgufType type, int depth, GgufKv *kv, const char *key);

/* count elements of type elem, checked and stepped over. */
static int read_elements(Cur *c, GgufType elem, uint64_t count, int depth, const char *key) {
    if (gguf_type_sizes[elem]) {
        uint64_t size = (uint64_t)gguf_type_sizes[elem];
        if (count > left(c) / size)
            return av_errorf(c->err,
                             _("%s: key %s: an array of %llu %s values (%llu bytes each) runs past the end of the "
                               "file (%llu bytes left)"),
                             c->file, key, (unsigned long long)count, type_names[elem], (unsigned long long)size,
                             (unsigned long long)left(c));
        if (elem == GGUF_BOOL)
            for (uint64_t i = 0; i < count; i++)
                if (c->buf[c->pos + i] > 1)
                    return av_errorf(c->err,
                                     _("%s: key %s: element %llu of the array: bool value %u is neither 0 nor 1"),
                                     c->file, key, (unsigned long long)i, c->buf[c->pos + i]);
        c->pos += count * size;
        return 0;
    }
    /* strings take at least their 8-byte length, arrays their type and count */
    uint64_t least = elem == GGUF_STRING ? 8 : 12;
    if (count > left(c) / least)
        return av_errorf(c->err,
                         _("%s: key %s: an array of %llu %s values runs past the end of the file (%llu bytes left)"),
                         c->file, key, (unsigned long long)count, type_names[elem], (unsigned long long)left(c));
    if (elem == GGUF_ARRAY && depth + 1 >= GGUF_MAX_DEPTH)
        return av_errorf(c->err, _("%s: key %s: arrays nested more than %d deep"), c->file, key, GGUF_MAX_DEPTH);
    for (uint64_t i = 0; i < count; i++)
        if (read_value(c, elem, depth + 1, NULL, key)) return -1;
    return 0;
}

/* take() inside "key K" or "tensor T" (`kind` a format marked N_, `name`
 * escaped): the context is formatted only for a message, as a vocabulary is
 * 150,000 values and a model hundreds of tensors. */
static int take_in(Cur *c, int bytes, uint64_t *out, const char *kind, const char *name, const char *what) {
    char ctx[220] = "";
    if (left(c) < (uint64_t)bytes) snprintf(ctx, sizeof ctx, _(kind), name);
    return take(c, bytes, out, ctx, what);
}

static int read_value(Cur *c, GgufType type, int depth, GgufKv *kv, const char *key) {
    GgufKv v = {.type = type, .elem = type, .n = 1};
    uint64_t u;
    if (type == GGUF_STRING) {
        if (take_in(c, 8, &u, KEY, key, N_("the length of a string"))) return -1;
        if (u > left(c))
            return av_errorf(c->err,
                             _("%s: key %s: a string of %llu bytes runs past the end of the file (%llu bytes left)"),
                             c->file, key, (unsigned long long)u, (unsigned long long)left(c));
        v.data = c->buf + c->pos, v.bytes = (size_t)u;
        c->pos += u;
    } else if (type == GGUF_ARRAY) {
        uint64_t count;
        if (take_in(c, 4, &u, KEY, key, N_("the element type of an array")) ||
            take_in(c, 8, &count, KEY, key, N_("the length of an array")))
            return -1;
        if (u >= GGUF_TYPE_COUNT)
            return av_errorf(c->err, _("%s: key %s: array element type %llu is not a GGUF type (0..12)"), c->file, key,
                             (unsigned long long)u);
        v.elem = (GgufType)u, v.n = count;
        v.data = c->buf + c->pos;
        if (read_elements(c, v.elem, count, depth, key)) return -1;
        v.bytes = (size_t)(c->buf + c->pos - v.data);
    } else {
        uint64_t size = (uint64_t)gguf_type_sizes[type];
        if (size > left(c))
            return av_errorf(c->err, _("%s: key %s: the %s value runs past the end of the file"), c->file, key,
                             type_names[type]);
        if (type == GGUF_BOOL && c->buf[c->pos] > 1)
            return av_errorf(c->err, _("%s: key %s: bool value %u is neither 0 nor 1"), c->file, key, c->buf[c->pos]);
        v.data = c->buf + c->pos, v.bytes = (size_t)size;
        c->pos += size;
    }
    if (kv) *kv = v;
    return 0;
}

/* A key or a name: a u64 length, 1..max bytes without a NUL. `what` and
 * `index` say which, for messages ("metadata entry 3", "tensor 5"). */
static int read_name(Cur *c, uint64_t max, Span *out, const char *what, uint64_t index) {
    uint64_t len;
    char ctx[100] = "";
    if (left(c) < 8) snprintf(ctx, sizeof ctx, "%s %llu", what, (unsigned long long)index);
    if (take(c, 8, &len, ctx, N_("the length of a name"))) return -1;
    if (len == 0)
        return av_errorf(c->err, _("%s: %s %llu: the name is empty"), c->file, what, (unsigned long long)index);
    if (len > left(c))
        return av_errorf(c->err, _("%s: %s %llu: a name of %llu bytes runs past the end of the file (%llu bytes left)"),
                         c->file, what, (unsigned long long)index, (unsigned long long)len,
                         (unsigned long long)left(c));
    if (len > max)
        return av_errorf(c->err, _("%s: %s %llu: a name of %llu bytes, more than the limit of %llu"), c->file, what,
                         (unsigned long long)index, (unsigned long long)len, (unsigned long long)max);
    if (memchr(c->buf + c->pos, '\0', (size_t)len)) {
        char safe[200];
        escape_span(safe, sizeof safe, c->buf + c->pos, len);
        return av_errorf(c->err, _("%s: %s %llu: the name \"%s...\" holds a NUL byte"), c->file, what,
                         (unsigned long long)index, safe);
    }
    out->at = c->pos, out->len = len;
    c->pos += len;
    return 0;
}

// ----------------------------------------------------------------------------
// sorting and lookup

static int kv_by_key(const void *a, const void *b) {
    return strcmp((*(const GgufKv *const *)a)->key, (*(const GgufKv *const *)b)->key);
}
static int t_by_name(const void *a, const void *b) {
    return strcmp((*(const GgufTensor *const *)a)->name, (*(const GgufTensor *const *)b)->name);
}
static int t_by_offset(const void *a, const void *b) {
    const GgufTensor *x = *(const GgufTensor *const *)a, *y = *(const GgufTensor *const *)b;
    if (x->offset != y->offset) return x->offset < y->offset ? -1 : 1;
    return x->bytes < y->bytes ? -1 : x->bytes > y->bytes;
}

const GgufKv *gguf_kv_find(const Gguf *g, const char *key) {
    if (!g || !key) return NULL;
    int lo = 0, hi = g->n_kv - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2, c = strcmp(key, g->keys[mid]->key);
        if (c == 0) return g->keys[mid];
        if (c < 0) hi = mid - 1;
        else lo = mid + 1;
    }
    return NULL;
}

const GgufTensor *gguf_tensor_find(const Gguf *g, const char *name) {
    if (!g || !name) return NULL;
    int lo = 0, hi = g->n_t - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2, c = strcmp(name, g->byname[mid]->name);
        if (c == 0) return g->byname[mid];
        if (c < 0) hi = mid - 1;
        else lo = mid + 1;
    }
    return NULL;
}

// ----------------------------------------------------------------------------
// the header

/* The magic and the version. */
static int read_start(Cur *c, Gguf *g) {
    if (c->size < 4 || memcmp(c->buf, "GGUF", 4) != 0) {
        char got[40] = "";
        size_t at = 0;
        for (uint64_t i = 0; i < 4 && i < c->size; i++) {
            unsigned char b = c->buf[i];
            at += (size_t)snprintf(got + at, sizeof got - at,
                                   b >= 0x20 && b < 0x7F && b != '"' && b != '\\' ? "%c" : "\\x%02X", b);
        }
        return av_errorf(c->err, _("%s: not a GGUF file (it begins with \"%s\", not \"GGUF\")"), c->file, got);
    }
    c->pos = 4;
    uint64_t v;
    if (take(c, 4, &v, _("the header"), N_("the version"))) return -1;
    g->version = (uint32_t)v;
    if (v != 0 && (v & 0xFFFF) == 0)
        return av_errorf(c->err, _("%s: GGUF version 0x%08llX: a big-endian file (attnviz reads little-endian ones)"),
                         c->file, (unsigned long long)v);
    if (v == 1)
        return av_errorf(c->err, _("%s: GGUF version 1, from before August 2023, is not read (versions 2 and 3 are)"),
                         c->file);
    if (v < 2 || v > 3)
        return av_errorf(c->err, _("%s: GGUF version %llu is not one attnviz reads (2 or 3)"), c->file,
                         (unsigned long long)v);
    return 0;
}

/* A count of the header, at most what the bytes left could hold at `least`
 * bytes per item. */
static int read_count(Cur *c, uint64_t least, const char *what, int *out) {
    uint64_t n;
    if (take(c, 8, &n, _("the header"), what)) return -1;
    if (n > left(c) / least || n > INT32_MAX) {
        if (n > INT64_MAX)
            return av_errorf(c->err, _("%s: %s is negative (%lld)"), c->file, _(what), (long long)(int64_t)n);
        return av_errorf(c->err, _("%s: %s is %llu, more than the %llu bytes left could hold"), c->file, _(what),
                         (unsigned long long)n, (unsigned long long)left(c));
    }
    *out = (int)n;
    return 0;
}

/* A header of a million entries takes a while: the front end may ask to stop. */
static int cancelled(Cur *c, int i) {
    if (i % 4096 == 0 && av_cancelled()) return av_errorf(c->err, _("%s: opening cancelled"), c->file);
    return 0;
}

static int read_metadata(Cur *c, Gguf *g, Span *keys) {
    for (int i = 0; i < g->n_kv; i++) {
        if (cancelled(c, i)) return -1;
        if (read_name(c, GGUF_MAX_KEY, &keys[i], _("metadata entry"), (uint64_t)i)) return -1;
        char key[200];
        escape_span(key, sizeof key, c->buf + keys[i].at, keys[i].len);
        uint64_t type;
        if (take_in(c, 4, &type, KEY, key, N_("the value type"))) return -1;
        if (type >= GGUF_TYPE_COUNT)
            return av_errorf(c->err, _("%s: key %s: value type %llu is not a GGUF type (0..12)"), c->file, key,
                             (unsigned long long)type);
        if (read_value(c, (GgufType)type, 0, &g->kv[i], key)) return -1;
    }
    return 0;
}

/* One tensor info, checked against itself (not yet against the data). */
static int read_tensor(Cur *c, Gguf *g, int i, Span *name) {
    GgufTensor *t = &g->t[i];
    if (read_name(c, GGUF_MAX_NAME, name, _("tensor"), (uint64_t)i)) return -1;
    char tn[200];
    escape_span(tn, sizeof tn, c->buf + name->at, name->len);
    uint64_t v;
    if (take_in(c, 4, &v, TENSOR, tn, N_("the number of dimensions"))) return -1;
    if (v > GGUF_MAX_DIMS)
        return av_errorf(c->err, _("%s: tensor %s: %llu dimensions, more than ggml's %d"), c->file, tn,
                         (unsigned long long)v, GGUF_MAX_DIMS);
    t->ndim = (int)v;
    for (int d = 0; d < GGUF_MAX_DIMS; d++) t->ne[d] = 1;
    for (int d = 0; d < t->ndim; d++) {
        if (take_in(c, 8, &t->ne[d], TENSOR, tn, N_("a dimension"))) return -1;
        if (t->ne[d] > INT64_MAX)
            return av_errorf(c->err, _("%s: tensor %s: dimension %d is negative (%lld)"), c->file, tn, d,
                             (long long)(int64_t)t->ne[d]);
    }
    if (take_in(c, 4, &v, TENSOR, tn, N_("the type"))) return -1;
    if (!quant_name((int)(uint32_t)v) || v >= QT_COUNT)
        return av_errorf(c->err, _("%s: tensor %s: type %lld is not a ggml type"), c->file, tn,
                         (long long)(int32_t)(uint32_t)v);
    t->type = (QuantType)v;
    if (take_in(c, 8, &t->offset, TENSOR, tn, N_("the offset"))) return -1;
    uint64_t block = (uint64_t)quant_block_size(t->type), size = quant_block_bytes(t->type);
    if (t->ne[0] % block)
        return av_errorf(c->err, _("%s: tensor %s: %s rows of %llu elements are not a multiple of its block of %llu"),
                         c->file, tn, quant_name(t->type), (unsigned long long)t->ne[0], (unsigned long long)block);
    /* the product of the dims within int64, as ggml wants; a zero makes it 0 */
    uint64_t count = 1;
    int zero = 0, over = 0;
    for (int d = 0; d < GGUF_MAX_DIMS; d++) {
        if (t->ne[d] == 0) zero = 1;
        else if (count > (uint64_t)INT64_MAX / t->ne[d]) over = 1;
        else count *= t->ne[d];
    }
    if (over && !zero)
        return av_errorf(c->err, _("%s: tensor %s: dims [%llu, %llu, %llu, %llu] are more than 2^63 elements"), c->file,
                         tn, (unsigned long long)t->ne[0], (unsigned long long)t->ne[1], (unsigned long long)t->ne[2],
                         (unsigned long long)t->ne[3]);
    t->count = zero ? 0 : count;
    t->rows = zero ? 0 : count / t->ne[0];
    uint64_t blocks = t->ne[0] / block;
    if (blocks > SIZE_MAX / size || (t->rows && blocks * size > SIZE_MAX / t->rows))
        return av_errorf(c->err, _("%s: tensor %s: %llu elements of %s are more bytes than memory can address"),
                         c->file, tn, (unsigned long long)t->count, quant_name(t->type));
    t->row_bytes = (size_t)(blocks * size);
    t->bytes = zero ? 0 : t->row_bytes * (size_t)t->rows;
    return 0;
}

/* general.alignment: a u32 power of two when present. */
static int read_alignment(Cur *c, Gguf *g) {
    g->alignment = GGUF_DEFAULT_ALIGNMENT;
    const GgufKv *kv = gguf_kv_find(g, "general.alignment");
    if (!kv) return 0;
    if (kv->type != GGUF_UINT32) {
        char want[8] = "u32";
        return gguf_wrong_type(g, kv, "general.alignment", want, c->err);
    }
    uint64_t a = gguf_le(kv->data, 4);
    if (a == 0 || (a & (a - 1)))
        return av_errorf(c->err, _("%s: key general.alignment: %llu is not a power of two"), c->file,
                         (unsigned long long)a);
    g->alignment = a;
    return 0;
}

/* Every tensor inside the data section, aligned, none overlapping another. */
static int check_data(Cur *c, Gguf *g, const GgufTensor **order) {
    uint64_t start = g->n_t ? (c->pos + g->alignment - 1) / g->alignment * g->alignment : c->pos;
    if (start > c->size)
        return av_errorf(c->err,
                         _("%s: the tensor data would begin at byte %llu, past the end of the file (%llu bytes)"),
                         c->file, (unsigned long long)start, (unsigned long long)c->size);
    g->data_offset = start;
    uint64_t data_len = c->size - start;
    for (int i = 0; i < g->n_t; i++) {
        GgufTensor *t = &g->t[i];
        char tn[200];
        if (t->offset % g->alignment) {
            utf8_escape_into(tn, sizeof tn, t->name);
            return av_errorf(c->err, _("%s: tensor %s: offset %llu is not a multiple of the alignment %llu"), c->file,
                             tn, (unsigned long long)t->offset, (unsigned long long)g->alignment);
        }
        if (t->offset > data_len || t->bytes > data_len - t->offset) {
            utf8_escape_into(tn, sizeof tn, t->name);
            return av_errorf(
                c->err, _("%s: tensor %s: %llu bytes at offset %llu run past the end of the data (%llu bytes)"),
                c->file, tn, (unsigned long long)t->bytes, (unsigned long long)t->offset, (unsigned long long)data_len);
        }
        t->data = c->buf + start + t->offset;
        order[i] = t;
    }
    qsort(order, (size_t)g->n_t, sizeof *order, t_by_offset);
    const GgufTensor *last = NULL;
    for (int i = 0; i < g->n_t; i++) {
        const GgufTensor *t = order[i];
        if (!t->bytes) continue;
        if (last && t->offset < last->offset + last->bytes) {
            char a[160], b[160];
            utf8_escape_into(a, sizeof a, t->name);
            utf8_escape_into(b, sizeof b, last->name);
            return av_errorf(c->err, _("%s: tensor %s: bytes [%llu, %llu) overlap those of tensor %s [%llu, %llu)"),
                             c->file, a, (unsigned long long)t->offset, (unsigned long long)(t->offset + t->bytes), b,
                             (unsigned long long)last->offset, (unsigned long long)(last->offset + last->bytes));
        }
        last = t;
    }
    return 0;
}

/* Keys and names copied out into one block; the lookups sorted; duplicates refused. */
static int copy_names(Cur *c, Gguf *g, const Span *keys, const Span *names) {
    uint64_t total = 1;
    for (int i = 0; i < g->n_kv; i++) total += keys[i].len + 1;
    for (int i = 0; i < g->n_t; i++) total += names[i].len + 1;
    g->strings = malloc((size_t)total);
    if (!g->strings) return av_error_nomem(c->err, _("%s: out of memory"), c->file);
    char *p = g->strings;
    for (int i = 0; i < g->n_kv; i++) {
        memcpy(p, c->buf + keys[i].at, (size_t)keys[i].len);
        p[keys[i].len] = '\0';
        g->kv[i].key = p;
        p += keys[i].len + 1;
        g->keys[i] = &g->kv[i];
    }
    for (int i = 0; i < g->n_t; i++) {
        memcpy(p, c->buf + names[i].at, (size_t)names[i].len);
        p[names[i].len] = '\0';
        g->t[i].name = p;
        p += names[i].len + 1;
        g->byname[i] = &g->t[i];
    }
    qsort(g->keys, (size_t)g->n_kv, sizeof *g->keys, kv_by_key);
    for (int i = 1; i < g->n_kv; i++)
        if (strcmp(g->keys[i - 1]->key, g->keys[i]->key) == 0) {
            char k[200];
            utf8_escape_into(k, sizeof k, g->keys[i]->key);
            return av_errorf(c->err, _("%s: key %s appears twice"), c->file, k);
        }
    qsort(g->byname, (size_t)g->n_t, sizeof *g->byname, t_by_name);
    for (int i = 1; i < g->n_t; i++)
        if (strcmp(g->byname[i - 1]->name, g->byname[i]->name) == 0) {
            char n[200];
            utf8_escape_into(n, sizeof n, g->byname[i]->name);
            return av_errorf(c->err, _("%s: tensor %s appears twice"), c->file, n);
        }
    return 0;
}

static int parse(Gguf *g, const unsigned char *buf, size_t size, AvError *err) {
    Cur c = {buf, size, 0, g->file, err};
    Span *keys = NULL, *names = NULL;
    const GgufTensor **order = NULL;
    int rc = -1;
    if (read_start(&c, g)) goto done;
    /* an entry takes at least a key of 1 byte and a u8 value; a tensor info
     * a name of 1 byte, n_dims, the type and the offset */
    if (read_count(&c, 8 + 1 + 4 + 4 + 8, N_("the tensor count"), &g->n_t)) goto done;
    if (read_count(&c, 8 + 1 + 4 + 1, N_("the metadata count"), &g->n_kv)) goto done;
    g->kv = calloc((size_t)g->n_kv + 1, sizeof *g->kv);
    g->keys = calloc((size_t)g->n_kv + 1, sizeof *g->keys);
    keys = calloc((size_t)g->n_kv + 1, sizeof *keys);
    g->t = calloc((size_t)g->n_t + 1, sizeof *g->t);
    g->byname = calloc((size_t)g->n_t + 1, sizeof *g->byname);
    names = calloc((size_t)g->n_t + 1, sizeof *names);
    order = calloc((size_t)g->n_t + 1, sizeof *order);
    if (!g->kv || !g->keys || !keys || !g->t || !g->byname || !names || !order) {
        av_error_nomem(err, _("%s: out of memory"), g->file);
        goto done;
    }
    if (read_metadata(&c, g, keys)) goto done;
    for (int i = 0; i < g->n_t; i++)
        if (cancelled(&c, i) || read_tensor(&c, g, i, &names[i])) goto done;
    if (copy_names(&c, g, keys, names)) goto done;
    if (read_alignment(&c, g)) goto done;
    if (check_data(&c, g, order)) goto done;
    rc = 0;
done:
    free(keys);
    free(names);
    free(order);
    return rc;
}

// ----------------------------------------------------------------------------
// opening

Gguf *gguf_open_mem(const void *buf, size_t size, const char *name, AvError *err) {
    Gguf *g = calloc(1, sizeof *g);
    if (!g) return av_error_nomem(err, _("%s: out of memory"), name ? name : "GGUF"), NULL;
    utf8_escape_into(g->file, sizeof g->file, name ? name : "(GGUF)");
    if (parse(g, buf, size, err)) {
        gguf_close(g);
        return NULL;
    }
    return g;
}

Gguf *gguf_open(const char *path, AvError *err) {
    size_t size = 0;
    const void *map = filemap_open(path, 4, _("the GGUF magic"), &size, err);
    if (!map) return NULL;
    Gguf *g = gguf_open_mem(map, size, path, err);
    if (!g) {
        filemap_close(map, size);
        return NULL;
    }
    g->map = map, g->map_len = size;
    return g;
}

void gguf_close(Gguf *g) {
    if (!g) return;
    filemap_close(g->map, g->map_len);
    free(g->kv);
    free(g->keys);
    free(g->t);
    free(g->byname);
    free(g->strings);
    free(g);
}

uint32_t gguf_version(const Gguf *g) { return g ? g->version : 0; }
uint64_t gguf_alignment(const Gguf *g) { return g ? g->alignment : 0; }
uint64_t gguf_data_offset(const Gguf *g) { return g ? g->data_offset : 0; }
const char *gguf_file(const Gguf *g) { return g ? g->file : ""; }

int gguf_kv_count(const Gguf *g) { return g ? g->n_kv : 0; }
const GgufKv *gguf_kv_at(const Gguf *g, int i) { return g && i >= 0 && i < g->n_kv ? &g->kv[i] : NULL; }
int gguf_tensor_count(const Gguf *g) { return g ? g->n_t : 0; }
const GgufTensor *gguf_tensor_at(const Gguf *g, int i) { return g && i >= 0 && i < g->n_t ? &g->t[i] : NULL; }

int gguf_tensor_readable(const Gguf *g, const GgufTensor *t, AvError *err) {
    if (quant_supported(t->type)) return 0;
    char tn[200];
    utf8_escape_into(tn, sizeof tn, t->name);
    return av_errorf(err, _("%s: tensor %s: type %s is not one attnviz reads (%s)"), gguf_file(g), tn,
                     quant_name(t->type), quant_supported_list());
}

// ----------------------------------------------------------------------------
// arrays of arrays: walked again with the parser (the other values are read
// out in gguf_meta.c)

int gguf_array_arrays(const GgufKv *kv, GgufKv *out) {
    if (!kv || kv->type != GGUF_ARRAY || kv->elem != GGUF_ARRAY) return -1;
    /* validated when the file was opened: re-walking it cannot fail */
    Cur c = {kv->data, kv->bytes, 0, "", NULL};
    for (uint64_t i = 0; i < kv->n; i++) {
        read_value(&c, GGUF_ARRAY, 0, &out[i], "");
        out[i].key = kv->key;
    }
    return 0;
}
