/* fuzz_gguf.c - libFuzzer target for the GGUF reader (src/formats/gguf.h) and the
 * block formats (src/kernels/quant.h).
 *
 * Byte 0 picks the mode. Even: the rest is the file, opened from an
 * exact-size heap copy (gguf_open_mem) under a name with an escape sequence.
 * Odd: byte 1 times 64 is the length of a data section appended to the rest
 * (bytes 0, 1, 2, ...), so that random headers meet data to point into.
 *
 * Failure: NULL and one terminal-safe line. Success, checked from the
 * format and not from gguf.c: the magic and a version of 2 or 3; every key
 * 1..65535 bytes, found again by gguf_kv_find (so keys are unique), its
 * value inside the file, bools 0 or 1, every string of a string array and
 * every element of an array of arrays (walked with gguf_array_arrays)
 * inside its parent; the typed getters on every key answer 0 or -1 with a
 * terminal-safe line; the alignment a power of two, the data section
 * aligned; every tensor's name 1..63 bytes and found by name, its type a
 * ggml type, its rows whole blocks, its count the product of its dims and
 * its bytes the blocks' bytes, its offset aligned and its data inside the
 * file after the data offset, the non-empty ones disjoint; for the types
 * attnviz reads, the first rows (up to 4096 elements of the tensor) give
 * the same floats dequantized whole and block by block, and F32, F16, BF16
 * and Q8_0 the values of the target's own conversion. The work is linear:
 * the dequantized rows are the file's own disjoint bytes. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "gguf.h"
#include "quant.h"

static const char FUZZ_NAME[] = "g\x1b[31m\xc2\x9b"
                                "2J.gguf";

static void check_message(const AvError *err) {
    size_t n = fuzz_msg_len(err->msg, sizeof err->msg);
    FUZZ_CHECK(n > 0, "failure without a message");
    long bad = fuzz_first_unsafe(err->msg, n, NULL);
    if (bad >= 0) fuzz_dump("message", err->msg, n);
    FUZZ_CHECK(bad < 0, "message has an unsafe byte at %ld", bad);
}

FUZZ_NO_COVERAGE static int inside(const unsigned char *p, size_t n, const unsigned char *lo, const unsigned char *hi) {
    return p >= lo && p <= hi && n <= (size_t)(hi - p);
}

static const int SIZES[GGUF_TYPE_COUNT] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};

/* An array's elements, inside [lo, hi); nested ones walked to `depth`. */
FUZZ_NO_COVERAGE static void check_array(const GgufKv *kv, const unsigned char *lo, const unsigned char *hi,
                                         int depth) {
    FUZZ_CHECK(depth <= GGUF_MAX_DEPTH, "arrays nested %d deep", depth);
    FUZZ_CHECK((unsigned)kv->elem < GGUF_TYPE_COUNT, "element type %d", (int)kv->elem);
    FUZZ_CHECK(inside(kv->data, kv->bytes, lo, hi), "key %s: the array is outside its parent", kv->key);
    if (kv->n == 0) return;
    if (SIZES[kv->elem]) {
        FUZZ_CHECK(kv->bytes == kv->n * (uint64_t)SIZES[kv->elem], "key %s: %zu bytes for %llu elements", kv->key,
                   kv->bytes, (unsigned long long)kv->n);
        if (kv->elem == GGUF_BOOL)
            for (uint64_t i = 0; i < kv->n; i++) FUZZ_CHECK(kv->data[i] <= 1, "key %s: bool %u", kv->key, kv->data[i]);
        return;
    }
    FUZZ_CHECK(kv->n <= kv->bytes / 8, "key %s: %llu elements in %zu bytes", kv->key, (unsigned long long)kv->n,
               kv->bytes);
    if (kv->elem == GGUF_STRING) {
        GgufStr *s = malloc(sizeof *s * (size_t)kv->n);
        FUZZ_CHECK(s != NULL, "out of memory");
        FUZZ_CHECK(gguf_array_strings(kv, s) == 0, "key %s: strings refused", kv->key);
        for (uint64_t i = 0; i < kv->n; i++)
            FUZZ_CHECK(inside((const unsigned char *)s[i].s, s[i].len, kv->data, kv->data + kv->bytes),
                       "key %s: string %llu outside the array", kv->key, (unsigned long long)i);
        free(s);
        return;
    }
    GgufKv *sub = malloc(sizeof *sub * (size_t)kv->n);
    FUZZ_CHECK(sub != NULL, "out of memory");
    FUZZ_CHECK(gguf_array_arrays(kv, sub) == 0, "key %s: arrays refused", kv->key);
    for (uint64_t i = 0; i < kv->n; i++) {
        FUZZ_CHECK(sub[i].type == GGUF_ARRAY, "key %s: element %llu is no array", kv->key, (unsigned long long)i);
        check_array(&sub[i], kv->data, kv->data + kv->bytes, depth + 1);
    }
    free(sub);
}

FUZZ_NO_COVERAGE static void check_getters(const Gguf *g, const char *key) {
    AvError err = {0};
    int64_t i = 0;
    double d = 0;
    int b = 0;
    GgufStr s = {0};
    const GgufKv *kv = NULL;
    int rc[5] = {gguf_get_int(g, key, -5, 1000, &i, &err), 0, 0, 0, 0};
    if (rc[0] < 0) check_message(&err);
    memset(&err, 0, sizeof err);
    if ((rc[1] = gguf_get_float(g, key, &d, &err)) < 0) check_message(&err);
    else FUZZ_CHECK(isfinite(d), "key %s: a float that is not finite", key);
    memset(&err, 0, sizeof err);
    if ((rc[2] = gguf_get_bool(g, key, &b, &err)) < 0) check_message(&err);
    else FUZZ_CHECK(b == 0 || b == 1, "key %s: bool %d", key, b);
    memset(&err, 0, sizeof err);
    if ((rc[3] = gguf_get_str(g, key, &s, &err)) < 0) check_message(&err);
    memset(&err, 0, sizeof err);
    if ((rc[4] = gguf_get_array(g, key, GGUF_UINT32, 1, &kv, &err)) < 0) check_message(&err);
    for (int k = 0; k < 5; k++) FUZZ_CHECK(rc[k] == 0 || rc[k] == -1, "key %s: getter %d gave %d", key, k, rc[k]);
    FUZZ_CHECK(rc[0] == 0 ? i >= -5 && i <= 1000 : 1, "key %s: %lld outside the range", key, (long long)i);
}

FUZZ_NO_COVERAGE static float f16_reference(unsigned h) {
    int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    float v;
    if (e == 31) v = m ? NAN : INFINITY;
    else if (e == 0) v = ldexpf((float)m, -24);
    else v = ldexpf((float)(1024 + m), e - 25);
    return s ? -v : v;
}

FUZZ_NO_COVERAGE static int same(float a, float b) {
    uint32_t x, y;
    memcpy(&x, &a, 4), memcpy(&y, &b, 4);
    return x == y || (isnan(a) && isnan(b));
}

/* The first rows of t, up to 4096 elements: whole, block by block, and
 * against a conversion written again for the simple types. */
FUZZ_NO_COVERAGE static void check_values(const GgufTensor *t) {
    static float whole[4096], part[4096];
    if (!quant_supported(t->type) || t->ne[0] == 0 || t->ne[0] > 4096) return;
    size_t n = (size_t)t->ne[0], block = (size_t)quant_block_size(t->type), bsize = quant_block_bytes(t->type);
    uint64_t rows = t->rows < 4096 / n ? t->rows : 4096 / n;
    for (uint64_t r = 0; r < rows; r++) {
        const unsigned char *row = gguf_row(t, r);
        quant_dequantize(whole, row, t->type, n);
        for (size_t b = 0; b < n / block; b++) quant_dequantize(part + b * block, row + b * bsize, t->type, block);
        for (size_t i = 0; i < n; i++)
            FUZZ_CHECK(same(whole[i], part[i]), "tensor %s: element %zu whole %g, by block %g", t->name, i,
                       (double)whole[i], (double)part[i]);
        for (size_t i = 0; i < n; i++) {
            float want;
            const unsigned char *p;
            switch (t->type) {
            case QT_F32: {
                p = row + 4 * i;
                uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
                memcpy(&want, &u, 4);
                break;
            }
            case QT_F16: p = row + 2 * i, want = f16_reference((unsigned)(p[0] | p[1] << 8)); break;
            case QT_BF16: {
                p = row + 2 * i;
                uint32_t u = (uint32_t)(p[0] | p[1] << 8) << 16;
                memcpy(&want, &u, 4);
                break;
            }
            case QT_Q8_0:
                p = row + (i / 32) * 34;
                want = (float)(int8_t)p[2 + i % 32] * f16_reference((unsigned)(p[0] | p[1] << 8));
                break;
            default: continue;
            }
            FUZZ_CHECK(same(whole[i], want), "tensor %s (%s): element %zu is %g, not %g", t->name, quant_name(t->type),
                       i, (double)whole[i], (double)want);
        }
    }
}

static int by_offset(const void *a, const void *b) {
    const GgufTensor *x = *(const GgufTensor *const *)a, *y = *(const GgufTensor *const *)b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

FUZZ_NO_COVERAGE static void check_file(const Gguf *g, const unsigned char *buf, size_t size) {
    const unsigned char *end = buf + size;
    FUZZ_CHECK(size >= 24 && memcmp(buf, "GGUF", 4) == 0, "not GGUF");
    FUZZ_CHECK(gguf_version(g) == 2 || gguf_version(g) == 3, "version %u", gguf_version(g));
    int n = gguf_kv_count(g);
    FUZZ_CHECK(n >= 0 && gguf_kv_at(g, n) == NULL && gguf_kv_at(g, -1) == NULL, "kv count %d", n);
    for (int i = 0; i < n; i++) {
        const GgufKv *kv = gguf_kv_at(g, i);
        size_t len = strlen(kv->key);
        FUZZ_CHECK(len >= 1 && len <= 65535, "key of %zu bytes", len);
        FUZZ_CHECK(gguf_kv_find(g, kv->key) == kv, "key %d found as another", i);
        FUZZ_CHECK((unsigned)kv->type < GGUF_TYPE_COUNT, "type %d", (int)kv->type);
        FUZZ_CHECK(inside(kv->data, kv->bytes, buf, end), "key %d: value outside the file", i);
        if (kv->type == GGUF_ARRAY) check_array(kv, buf, end, 1);
        else if (kv->type != GGUF_STRING) FUZZ_CHECK(kv->bytes == (size_t)SIZES[kv->type], "key %d: bytes", i);
        if (kv->type == GGUF_BOOL) FUZZ_CHECK(kv->data[0] <= 1, "bool %u", kv->data[0]);
        check_getters(g, kv->key);
    }
    uint64_t align = gguf_alignment(g), data = gguf_data_offset(g);
    FUZZ_CHECK(align && !(align & (align - 1)), "alignment %llu", (unsigned long long)align);
    FUZZ_CHECK(data <= size, "data offset %llu past the end", (unsigned long long)data);
    int nt = gguf_tensor_count(g);
    FUZZ_CHECK(nt >= 0 && gguf_tensor_at(g, nt) == NULL, "tensor count %d", nt);
    if (nt) FUZZ_CHECK(data % align == 0, "data offset %llu unaligned", (unsigned long long)data);
    const GgufTensor **order = malloc(sizeof *order * ((size_t)nt + 1));
    FUZZ_CHECK(order != NULL, "out of memory");
    for (int i = 0; i < nt; i++) {
        const GgufTensor *t = gguf_tensor_at(g, i);
        size_t len = strlen(t->name);
        FUZZ_CHECK(len >= 1 && len <= GGUF_MAX_NAME, "name of %zu bytes", len);
        FUZZ_CHECK(gguf_tensor_find(g, t->name) == t, "tensor %d found as another", i);
        FUZZ_CHECK(quant_name(t->type) != NULL, "type %d", (int)t->type);
        FUZZ_CHECK(t->ndim >= 0 && t->ndim <= GGUF_MAX_DIMS, "ndim %d", t->ndim);
        uint64_t block = (uint64_t)quant_block_size(t->type);
        FUZZ_CHECK(t->ne[0] % block == 0, "tensor %d: rows not whole blocks", i);
        unsigned __int128 count = 1;
        for (int d = 0; d < GGUF_MAX_DIMS; d++) count *= t->ne[d];
        FUZZ_CHECK(count == t->count && count <= INT64_MAX, "tensor %d: count", i);
        FUZZ_CHECK(t->bytes == t->count / block * quant_block_bytes(t->type), "tensor %d: bytes", i);
        FUZZ_CHECK(t->offset % align == 0, "tensor %d: offset unaligned", i);
        FUZZ_CHECK(t->data == buf + data + t->offset && inside(t->data, t->bytes, buf + data, end),
                   "tensor %d: data outside", i);
        order[i] = t;
        check_values(t);
        AvError err = {0};
        if (gguf_tensor_readable(g, t, &err)) check_message(&err);
    }
    qsort(order, (size_t)nt, sizeof *order, by_offset);
    uint64_t reach = 0;
    for (int i = 0; i < nt; i++) {
        if (!order[i]->bytes) continue;
        FUZZ_CHECK(order[i]->offset >= reach, "tensor %s overlaps an earlier one", order[i]->name);
        reach = order[i]->offset + order[i]->bytes;
    }
    free(order);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2) return 0;
    int built = data[0] & 1;
    data++, size--;
    size_t len = built ? size - 1 + (size_t)data[0] * 64 : size;
    unsigned char *buf = malloc(len ? len : 1);
    FUZZ_CHECK(buf != NULL, "out of memory");
    if (built) {
        memcpy(buf, data + 1, size - 1);
        for (size_t i = size - 1; i < len; i++) buf[i] = (unsigned char)i;
    } else {
        memcpy(buf, data, len);
    }
    AvError err = {0};
    Gguf *g = gguf_open_mem(buf, len, FUZZ_NAME, &err);
    if (!g) check_message(&err);
    else check_file(g, buf, len);
    gguf_close(g);
    free(buf);
    return 0;
}
