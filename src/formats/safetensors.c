/* safetensors.c - see safetensors.h. The header is parsed with cJSON
 * (Debian's libcjson-dev): small (one C file), in Debian, MIT-licensed, no
 * allocation surprises (plain malloc/free, a nesting limit of 1000, input
 * bounded by the length we give it), and a DOM without streaming, which
 * suits a header of a few MB read once. Everything cJSON gives is copied
 * out (names, shapes, offsets, metadata), checked, and the DOM freed. */
#define _POSIX_C_SOURCE 200809L
#include "safetensors.h"

#include <cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomicfile.h"
#include "cancel.h"
#include "filemap.h"
#include "i18n.h"
#include "jsonkeys.h"
#include "readfile.h"
#include "utf8.h"

struct SafeTensors {
    const void *map; /* the mapping (st_open, filemap.h), or NULL (st_open_mem) */
    size_t map_len;
    int n;                   /* tensors */
    StTensor *t;             /* [n], sorted by begin */
    const StTensor **byname; /* [n] into t, sorted by name */
    int n_meta;
    const char **meta; /* [2 * n_meta]: key, value, ... */
    char *strings;     /* every name, key and value, one block */
};

// ----------------------------------------------------------------------------
// small pieces

static uint64_t read_u64(const unsigned char *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

/* A JSON number that is an integer in [0, 2^53) (exact as a double). */
static int json_u64(const cJSON *v, uint64_t *out) {
    if (!cJSON_IsNumber(v)) return -1;
    double d = v->valuedouble;
    if (!(d >= 0 && d < 9007199254740992.0)) return -1;
    uint64_t u = (uint64_t)d;
    if ((double)u != d) return -1;
    *out = u;
    return 0;
}

static const char *json_type(const cJSON *v) {
    if (cJSON_IsArray(v)) return _("an array");
    if (cJSON_IsString(v)) return _("a string");
    if (cJSON_IsNumber(v)) return _("a number");
    if (cJSON_IsBool(v)) return _("a boolean");
    if (cJSON_IsNull(v)) return "null";
    if (cJSON_IsObject(v)) return _("an object");
    return _("not JSON");
}

static void shape_text(char *buf, size_t cap, const uint64_t *shape, int ndim) {
    size_t at = 0;
    at += (size_t)snprintf(buf, cap, "[");
    for (int i = 0; i < ndim && at < cap; i++)
        at += (size_t)snprintf(buf + at, cap - at, "%s%llu", i ? ", " : "", (unsigned long long)shape[i]);
    if (at < cap) snprintf(buf + at, cap - at, "]");
}

// ----------------------------------------------------------------------------
// one tensor's entry

/* Fills t (not its name or data) from the entry v, checked against the data length. */
static int parse_entry(StTensor *t, const cJSON *v, uint64_t data_len, const char *file, const char *tname,
                       AvError *err) {
    if (!cJSON_IsObject(v))
        return av_errorf(err, _("%s: tensor %s: the entry is %s, not an object"), file, tname, json_type(v));
    const cJSON *dt = cJSON_GetObjectItemCaseSensitive(v, "dtype");
    const cJSON *sh = cJSON_GetObjectItemCaseSensitive(v, "shape");
    const cJSON *off = cJSON_GetObjectItemCaseSensitive(v, "data_offsets");
    if (!dt) return av_errorf(err, _("%s: tensor %s: no dtype"), file, tname);
    if (!cJSON_IsString(dt))
        return av_errorf(err, _("%s: tensor %s: dtype is %s, not a string"), file, tname, json_type(dt));
    int d = -1;
    for (int i = 0; i < ST_N_DTYPES; i++) /* ggml's block types are GGUF's, not safetensors' */
        if (!st_is_block((StDtype)i) && strcmp(dt->valuestring, st_dtype_name((StDtype)i)) == 0) d = i;
    if (d < 0) {
        char safe[64];
        utf8_escape_into(safe, sizeof safe, dt->valuestring);
        return av_errorf(err, _("%s: tensor %s: dtype %s is not a safetensors type (F32, F16, BF16, F64, I64, ...)"),
                         file, tname, safe);
    }
    t->dtype = (StDtype)d;
    if (!sh) return av_errorf(err, _("%s: tensor %s: no shape"), file, tname);
    if (!cJSON_IsArray(sh))
        return av_errorf(err, _("%s: tensor %s: shape is %s, not an array"), file, tname, json_type(sh));
    int ndim = cJSON_GetArraySize(sh);
    if (ndim > ST_MAX_DIMS)
        return av_errorf(err, _("%s: tensor %s: %d dimensions, more than the limit of %d"), file, tname, ndim,
                         ST_MAX_DIMS);
    t->ndim = ndim;
    uint64_t count = 1;
    int too_big = 0;
    const cJSON *x;
    int i = 0;
    cJSON_ArrayForEach(x, sh) {
        if (json_u64(x, &t->shape[i]))
            return av_errorf(err, _("%s: tensor %s: dimension %d of the shape is not a non-negative integer"), file,
                             tname, i);
        /* past data_len elements the size cannot match: stop multiplying there */
        if (!too_big && t->shape[i] && count > data_len / t->shape[i]) too_big = 1;
        else if (!too_big) count *= t->shape[i];
        i++;
    }
    for (int j = 0; j < ndim; j++)
        if (t->shape[j] == 0) count = 0, too_big = 0;
    t->count = count;
    if (!off) return av_errorf(err, _("%s: tensor %s: no data_offsets"), file, tname);
    uint64_t be[2];
    if (!cJSON_IsArray(off) || cJSON_GetArraySize(off) != 2 || json_u64(cJSON_GetArrayItem(off, 0), &be[0]) ||
        json_u64(cJSON_GetArrayItem(off, 1), &be[1]))
        return av_errorf(err, _("%s: tensor %s: data_offsets is not two non-negative integers [begin, end]"), file,
                         tname);
    if (be[0] > be[1])
        return av_errorf(err, _("%s: tensor %s: data_offsets [%llu, %llu): the begin is after the end"), file, tname,
                         (unsigned long long)be[0], (unsigned long long)be[1]);
    if (be[1] > data_len)
        return av_errorf(err, _("%s: tensor %s: data_offsets [%llu, %llu) end past the data (%llu bytes)"), file, tname,
                         (unsigned long long)be[0], (unsigned long long)be[1], (unsigned long long)data_len);
    uint64_t size = st_dtype_size((StDtype)d), held = be[1] - be[0];
    char shape[200];
    shape_text(shape, sizeof shape, t->shape, ndim);
    if (too_big || count > held / size || count * size != held) {
        if (too_big)
            return av_errorf(err,
                             _("%s: tensor %s: shape %s is more %s elements than the data holds, but data_offsets "
                               "[%llu, %llu) hold %llu bytes"),
                             file, tname, shape, st_dtype_name((StDtype)d), (unsigned long long)be[0],
                             (unsigned long long)be[1], (unsigned long long)held);
        return av_errorf(err,
                         _("%s: tensor %s: shape %s is %llu %s elements = %llu bytes, but data_offsets [%llu, %llu) "
                           "hold %llu"),
                         file, tname, shape, (unsigned long long)count, st_dtype_name((StDtype)d),
                         (unsigned long long)(count * size), (unsigned long long)be[0], (unsigned long long)be[1],
                         (unsigned long long)held);
    }
    t->begin = be[0];
    t->bytes = (size_t)held;
    return 0;
}

// ----------------------------------------------------------------------------
// the header

static int by_begin(const void *a, const void *b) {
    const StTensor *x = a, *y = b;
    if (x->begin != y->begin) return x->begin < y->begin ? -1 : 1;
    return x->bytes < y->bytes ? -1 : x->bytes > y->bytes;
}
static int by_name(const void *a, const void *b) {
    return strcmp((*(const StTensor *const *)a)->name, (*(const StTensor *const *)b)->name);
}

/* st->byname: pointers into st->t sorted by name. */
static void sort_names(SafeTensors *st) {
    for (int i = 0; i < st->n; i++) st->byname[i] = &st->t[i];
    qsort(st->byname, (size_t)st->n, sizeof *st->byname, by_name);
}

/* The header's JSON, checked: the root object, or NULL with a message. */
static cJSON *parse_json(const unsigned char *buf, size_t size, const char *file, uint64_t *n_out, AvError *err) {
    if (size < 8)
        return av_errorf(err, _("%s: %zu bytes, too short for the 8-byte safetensors header length"), file, size), NULL;
    uint64_t n = read_u64(buf);
    if (n > size - 8)
        return av_errorf(err, _("%s: the header length %llu is past the end of the file (%zu bytes after the length)"),
                         file, (unsigned long long)n, size - 8),
               NULL;
    if (n > ST_MAX_HEADER)
        return av_errorf(err, _("%s: the header length %llu is more than the limit of %llu"), file,
                         (unsigned long long)n, (unsigned long long)ST_MAX_HEADER),
               NULL;
    const char *json = (const char *)buf + 8, *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(json, (size_t)n, &end, 0);
    if (!root) {
        size_t at = end && end >= json && end <= json + n ? (size_t)(end - json) : 0;
        return av_errorf(err, _("%s: the header is not valid JSON (at byte %zu of %llu)"), file, at,
                         (unsigned long long)n),
               NULL;
    }
    for (size_t at = (size_t)(end - json); at < n; at++)
        if (!strchr(" \t\r\n", json[at]) || !json[at]) {
            cJSON_Delete(root);
            return av_errorf(err, _("%s: the header has more than one JSON value (byte %zu of %llu)"), file, at,
                             (unsigned long long)n),
                   NULL;
        }
    if (!cJSON_IsObject(root)) {
        av_errorf(err, _("%s: the header is %s, not a JSON object"), file, json_type(root));
        cJSON_Delete(root);
        return NULL;
    }
    *n_out = n;
    return root;
}

/* Copies the names and the metadata into st->strings and checks __metadata__. */
static int copy_strings(SafeTensors *st, const cJSON *root, const cJSON *meta, const char *file, AvError *err) {
    size_t total = 1;
    const cJSON *x;
    cJSON_ArrayForEach(x, root) if (x != meta) total += strlen(x->string) + 1;
    if (meta) {
        cJSON_ArrayForEach(x, meta) {
            if (!cJSON_IsString(x)) {
                char key[160];
                utf8_escape_into(key, sizeof key, x->string);
                return av_errorf(err, _("%s: __metadata__ %s is %s, not a string"), file, key, json_type(x));
            }
            total += strlen(x->string) + strlen(x->valuestring) + 2;
            st->n_meta++;
        }
    }
    st->strings = malloc(total);
    st->meta = malloc(sizeof(char *) * (2 * (size_t)st->n_meta + 1));
    if (!st->strings || !st->meta) return av_error_nomem(err, _("%s: out of memory"), file);
    char *p = st->strings;
    int i = 0;
    cJSON_ArrayForEach(x, root) {
        if (x == meta) continue;
        size_t len = strlen(x->string) + 1;
        st->t[i++].name = memcpy(p, x->string, len);
        p += len;
    }
    i = 0;
    if (meta) {
        cJSON_ArrayForEach(x, meta) {
            const char *two[2] = {x->string, x->valuestring};
            for (int k = 0; k < 2; k++) {
                size_t len = strlen(two[k]) + 1;
                st->meta[i++] = memcpy(p, two[k], len);
                p += len;
            }
        }
    }
    return 0;
}

static int parse_header(SafeTensors *st, const unsigned char *buf, size_t size, const char *file, AvError *err) {
    uint64_t n = 0;
    cJSON *root = parse_json(buf, size, file, &n, err);
    if (!root) return -1;
    uint64_t data_len = size - 8 - n;
    const unsigned char *data = buf + 8 + n;
    const cJSON *meta = NULL, *x;
    int count = 0, rc = -1;
    cJSON_ArrayForEach(x, root) {
        if (strcmp(x->string, "__metadata__") == 0) {
            if (meta) {
                av_errorf(err, _("%s: __metadata__ appears twice in the header"), file);
                goto done;
            }
            if (!cJSON_IsObject(x)) {
                av_errorf(err, _("%s: __metadata__ is %s, not an object"), file, json_type(x));
                goto done;
            }
            meta = x;
        } else {
            count++;
        }
    }
    st->n = count;
    st->t = calloc((size_t)count + 1, sizeof *st->t);
    st->byname = malloc(sizeof *st->byname * ((size_t)count + 1));
    if (!st->t || !st->byname) {
        av_error_nomem(err, _("%s: out of memory"), file);
        goto done;
    }
    int i = 0;
    cJSON_ArrayForEach(x, root) {
        if (x == meta) continue;
        if (i % 4096 == 0 && av_cancelled()) { /* a header of a million tensors takes seconds */
            av_errorf(err, _("%s: opening cancelled"), file);
            goto done;
        }
        char tname[200];
        utf8_escape_into(tname, sizeof tname, x->string);
        if (parse_entry(&st->t[i], x, data_len, file, tname, err)) goto done;
        st->t[i].data = data + st->t[i].begin;
        i++;
    }
    if (copy_strings(st, root, meta, file, err)) goto done;
    /* unique names (cJSON keeps every duplicate key) */
    sort_names(st);
    for (i = 1; i < count; i++) {
        if (strcmp(st->byname[i - 1]->name, st->byname[i]->name) == 0) {
            char tname[200];
            utf8_escape_into(tname, sizeof tname, st->byname[i]->name);
            av_errorf(err, _("%s: tensor %s appears twice in the header"), file, tname);
            goto done;
        }
    }
    /* no two data ranges overlap (empty ones hold nothing) */
    qsort(st->t, (size_t)count, sizeof *st->t, by_begin);
    int last = -1;
    for (i = 0; i < count; i++) {
        if (!st->t[i].bytes) continue;
        if (last >= 0 && st->t[i].begin < st->t[last].begin + st->t[last].bytes) {
            char a[160], b[160];
            utf8_escape_into(a, sizeof a, st->t[i].name);
            utf8_escape_into(b, sizeof b, st->t[last].name);
            av_errorf(err, _("%s: tensor %s: data_offsets [%llu, %llu) overlap those of tensor %s [%llu, %llu)"), file,
                      a, (unsigned long long)st->t[i].begin, (unsigned long long)(st->t[i].begin + st->t[i].bytes), b,
                      (unsigned long long)st->t[last].begin,
                      (unsigned long long)(st->t[last].begin + st->t[last].bytes));
            goto done;
        }
        last = i;
    }
    sort_names(st); /* again: t moved */
    rc = 0;
done:
    cJSON_Delete(root);
    return rc;
}

// ----------------------------------------------------------------------------
// opening and looking up

SafeTensors *st_open_mem(const void *buf, size_t size, const char *name, AvError *err) {
    char file[200];
    utf8_escape_into(file, sizeof file, name ? name : _("(safetensors)"));
    SafeTensors *st = calloc(1, sizeof *st);
    if (!st) return av_error_nomem(err, _("%s: out of memory"), file), NULL;
    if (parse_header(st, buf, size, file, err)) {
        st_close(st);
        return NULL;
    }
    return st;
}

SafeTensors *st_open(const char *path, AvError *err) {
    size_t size = 0;
    const void *map = filemap_open(path, 8, _("the 8-byte safetensors header length"), &size, err);
    if (!map) return NULL;
    SafeTensors *st = st_open_mem(map, size, path, err);
    if (!st) {
        filemap_close(map, size);
        return NULL;
    }
    st->map = map, st->map_len = size;
    return st;
}

void st_close(SafeTensors *st) {
    if (!st) return;
    filemap_close(st->map, st->map_len);
    free(st->t);
    free(st->byname);
    free(st->meta);
    free(st->strings);
    free(st);
}

int st_count(const SafeTensors *st) { return st ? st->n : 0; }

const StTensor *st_at(const SafeTensors *st, int i) { return st && i >= 0 && i < st->n ? &st->t[i] : NULL; }

const StTensor *st_find(const SafeTensors *st, const char *name) {
    if (!st || !name) return NULL;
    int lo = 0, hi = st->n - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2, c = strcmp(name, st->byname[mid]->name);
        if (c == 0) return st->byname[mid];
        if (c < 0) hi = mid - 1;
        else lo = mid + 1;
    }
    return NULL;
}

const char *st_metadata(const SafeTensors *st, const char *key) {
    if (!st || !key) return NULL;
    for (int i = 0; i < st->n_meta; i++)
        if (strcmp(st->meta[2 * i], key) == 0) return st->meta[2 * i + 1];
    return NULL;
}

// ----------------------------------------------------------------------------
// a folder: model.safetensors, or the index and its shards

typedef struct {
    const StTensor *t;
    int file;
} StEntry;

struct StModel {
    int n_files;
    SafeTensors **files; /* [n_files] */
    char **file_names;   /* [n_files] the shard names (escaped), for messages */
    int n;
    StEntry *byname; /* [n] every tensor, sorted by name */
};

void st_model_close(StModel *m) {
    if (!m) return;
    for (int i = 0; i < m->n_files; i++) {
        st_close(m->files[i]);
        if (m->file_names) free(m->file_names[i]);
    }
    free(m->files);
    free(m->file_names);
    free(m->byname);
    free(m);
}

int st_model_count(const StModel *m) { return m ? m->n : 0; }
int st_model_files(const StModel *m) { return m ? m->n_files : 0; }
const StTensor *st_model_at(const StModel *m, int i) { return m && i >= 0 && i < m->n ? m->byname[i].t : NULL; }

static const StEntry *model_entry(const StModel *m, const char *name) {
    int lo = 0, hi = m->n - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2, c = strcmp(name, m->byname[mid].t->name);
        if (c == 0) return &m->byname[mid];
        if (c < 0) hi = mid - 1;
        else lo = mid + 1;
    }
    return NULL;
}

const StTensor *st_model_find(const StModel *m, const char *name) {
    if (!m || !name) return NULL;
    const StEntry *e = model_entry(m, name);
    return e ? e->t : NULL;
}

const char *st_model_file_of(const StModel *m, const char *name) {
    if (!m || !name) return NULL;
    const StEntry *e = model_entry(m, name);
    return e ? m->file_names[e->file] : NULL;
}

static int entry_by_name(const void *a, const void *b) {
    return strcmp(((const StEntry *)a)->t->name, ((const StEntry *)b)->t->name);
}
static int str_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Every tensor of every file, sorted by name; a tensor in two files is refused. */
static int model_index(StModel *m, const char *index, AvError *err) {
    size_t total = 0;
    for (int f = 0; f < m->n_files; f++) total += (size_t)st_count(m->files[f]);
    if (total > (size_t)INT32_MAX) return av_errorf(err, _("%s: more than 2^31 tensors"), index);
    m->byname = malloc(sizeof *m->byname * (total + 1));
    if (!m->byname) return av_error_nomem(err, _("%s: out of memory"), index);
    for (int f = 0; f < m->n_files; f++)
        for (int i = 0; i < st_count(m->files[f]); i++) m->byname[m->n++] = (StEntry){st_at(m->files[f], i), f};
    qsort(m->byname, (size_t)m->n, sizeof *m->byname, entry_by_name);
    for (int i = 1; i < m->n; i++)
        if (strcmp(m->byname[i - 1].t->name, m->byname[i].t->name) == 0) {
            char tname[200];
            utf8_escape_into(tname, sizeof tname, m->byname[i].t->name);
            int a = m->byname[i - 1].file, b = m->byname[i].file;
            if (a > b) a ^= b, b ^= a, a ^= b;
            return av_errorf(err, _("%s: tensor %s is in two shards, %s and %s"), index, tname, m->file_names[a],
                             m->file_names[b]);
        }
    return 0;
}

static char *join(const char *dir, const char *name) {
    size_t a = strlen(dir), b = strlen(name);
    char *p = malloc(a + b + 2);
    if (p) {
        memcpy(p, dir, a);
        p[a] = '/';
        memcpy(p + a + 1, name, b + 1);
    }
    return p;
}

/* The shard of each tensor of the weight_map into names[] (pointers into
 * map), each a file name in the folder; k: how many. 0, or -1 with err. */
static int shard_names(const cJSON *map, const char *index, char **names, int *k, AvError *err) {
    const cJSON *x;
    *k = 0;
    cJSON_ArrayForEach(x, map) {
        char tname[200];
        utf8_escape_into(tname, sizeof tname, x->string);
        if (!cJSON_IsString(x))
            return av_errorf(err, _("%s: tensor %s: the shard is %s, not a string"), index, tname, json_type(x));
        const char *s = x->valuestring;
        if (!*s || strchr(s, '/') || strcmp(s, ".") == 0 || strcmp(s, "..") == 0) {
            char safe[200];
            utf8_escape_into(safe, sizeof safe, s);
            return av_errorf(err, _("%s: tensor %s: shard \"%s\" is not a file name in the folder"), index, tname,
                             safe);
        }
        names[(*k)++] = x->valuestring;
    }
    if (*k == 0) return av_errorf(err, _("%s: the weight_map names no tensor"), index);
    return 0;
}

/* The u shards names[0..u) in dir, each opened into m (m->n_files counts
 * those to close). 0, or -1 with err. */
static int open_shard_files(StModel *m, const char *dir, char *const *names, int u, const char *index, AvError *err) {
    m->files = calloc((size_t)u, sizeof *m->files);
    m->file_names = calloc((size_t)u, sizeof *m->file_names);
    if (!m->files || !m->file_names) return av_error_nomem(err, _("%s: out of memory"), index);
    for (int i = 0; i < u; i++) {
        char *shard = join(dir, names[i]);
        char safe[200];
        utf8_escape_into(safe, sizeof safe, names[i]);
        m->file_names[i] = strdup(safe);
        if (!shard || !m->file_names[i]) {
            free(shard);
            return av_error_nomem(err, _("%s: out of memory"), index);
        }
        m->n_files = i + 1;
        if (access(shard, F_OK) != 0 && errno == ENOENT) {
            av_errorf(err, _("%s: shard %s is missing"), index, safe);
            free(shard);
            return -1;
        }
        m->files[i] = st_open(shard, err);
        free(shard);
        if (!m->files[i]) return -1;
    }
    return 0;
}

/* Every tensor of the weight_map in the shard it names (names[0..u),
 * sorted). 0, or -1 with err. */
static int check_weight_map(const StModel *m, const cJSON *map, char *const *names, int u, const char *index,
                            AvError *err) {
    const cJSON *x;
    cJSON_ArrayForEach(x, map) {
        const StEntry *e = model_entry(m, x->string);
        int want = -1;
        for (int lo = 0, hi = u - 1; lo <= hi;) {
            int mid = lo + (hi - lo) / 2, c = strcmp(x->valuestring, names[mid]);
            if (c == 0) {
                want = mid;
                break;
            }
            if (c < 0) hi = mid - 1;
            else lo = mid + 1;
        }
        if (!e || e->file != want) {
            char tname[200];
            utf8_escape_into(tname, sizeof tname, x->string);
            if (!e)
                return av_errorf(err, _("%s: tensor %s: not in shard %s (nor in any other)"), index, tname,
                                 m->file_names[want]);
            return av_errorf(err, _("%s: tensor %s: the weight_map says shard %s, but it is in %s"), index, tname,
                             m->file_names[want], m->file_names[e->file]);
        }
    }
    return 0;
}

/* The shards the index names, each opened; the weight_map checked against them. */
static int open_shards(StModel *m, const char *dir, const char *path, const char *index, AvError *err) {
    char *text = NULL;
    size_t len = 0;
    if (av_read_text(path, (size_t)ST_MAX_HEADER, 0, &text, &len, err)) return -1;
    cJSON *root = cJSON_ParseWithLength(text, len);
    free(text);
    int rc = -1;
    char **names = NULL;
    const cJSON *map = root ? cJSON_GetObjectItemCaseSensitive(root, "weight_map") : NULL;
    if (!root) {
        av_errorf(err, _("%s: not valid JSON"), index);
        goto done;
    }
    if (json_unique_keys(root, index, err)) {
        goto done;
    }
    if (!cJSON_IsObject(map)) {
        av_errorf(err, _("%s: no \"weight_map\" object"), index);
        goto done;
    }
    int n = cJSON_GetArraySize(map), k;
    names = malloc(sizeof(char *) * ((size_t)n + 1));
    if (!names) {
        av_error_nomem(err, _("%s: out of memory"), index);
        goto done;
    }
    if (shard_names(map, index, names, &k, err)) goto done;
    /* each shard once */
    qsort(names, (size_t)k, sizeof *names, str_cmp);
    int u = 0;
    for (int i = 0; i < k; i++)
        if (!u || strcmp(names[u - 1], names[i])) names[u++] = names[i];
    if (open_shard_files(m, dir, names, u, index, err) || model_index(m, index, err) ||
        check_weight_map(m, map, names, u, index, err))
        goto done;
    rc = 0;
done:
    free(names);
    cJSON_Delete(root);
    return rc;
}

StModel *st_open_dir(const char *dir, AvError *err) {
    char safe[200];
    utf8_escape_into(safe, sizeof safe, dir);
    StModel *m = calloc(1, sizeof *m);
    char *single = join(dir, "model.safetensors"), *index = join(dir, "model.safetensors.index.json");
    if (!m || !single || !index) {
        av_error_nomem(err, _("%s: out of memory"), safe);
        goto fail;
    }
    if (access(single, F_OK) == 0 || errno != ENOENT) {
        m->files = calloc(1, sizeof *m->files);
        m->file_names = calloc(1, sizeof *m->file_names);
        if (!m->files || !m->file_names || !(m->file_names[0] = strdup("model.safetensors"))) {
            av_error_nomem(err, _("%s: out of memory"), safe);
            goto fail;
        }
        m->n_files = 1;
        if (!(m->files[0] = st_open(single, err))) goto fail;
        char file[200];
        utf8_escape_into(file, sizeof file, single);
        if (model_index(m, file, err)) goto fail;
    } else if (access(index, F_OK) == 0 || errno != ENOENT) {
        char file[200];
        utf8_escape_into(file, sizeof file, index);
        if (open_shards(m, dir, index, file, err)) goto fail;
    } else {
        av_errorf(err, _("%s: neither model.safetensors nor model.safetensors.index.json is there"), safe);
        goto fail;
    }
    free(single);
    free(index);
    return m;
fail:
    free(single);
    free(index);
    st_model_close(m);
    return NULL;
}
