/* test_gguf.c - cmocka tests of the GGUF reader (src/formats/gguf.c) and the block
 * formats (src/kernels/quant.c).
 *
 * Without any peer: files built byte by byte here (a valid one of each
 * version, and every malformed header, each one-line message checked
 * whole), the typed getters' refusals, and blocks of Q8_0, Q4_0, Q4_1,
 * Q5_0, Q5_1, Q4_K, Q6_K and the half floats worked out by hand.
 * With /usr/bin/python3 and NumPy: tests/support/gguf_writer.py writes
 * files from the format's specification, quantized by its own
 * implementation of ggml's quantize_row_*_ref; every row of every type
 * attnviz reads must dequantize to the writer's values bit for bit, and
 * every metadata value read back must be the one written.
 * With llama.cpp's own ggml (npm node-llama-cpp, tests/fetch_llama_cpp.sh):
 * the writer's bytes are ggml's, ggml's dequantize_row_* gives the same
 * floats, and ggml's GGUF reader reads the same files alike. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cancel.h"
#include "gguf.h"
#include "quant.h"
#include "need.h"

static char dir[] = "/tmp/attnviz-gguf-XXXXXX";

static int setup(void **state) {
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static uint32_t to_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

#define assert_same_float(got, want)                                                                                   \
    do {                                                                                                               \
        float g_ = (got), w_ = (want);                                                                                 \
        if (to_bits(g_) != to_bits(w_))                                                                                \
            fail_msg("%s = %.9g (0x%08X), expected %.9g (0x%08X)", #got, (double)g_, (unsigned)to_bits(g_),            \
                     (double)w_, (unsigned)to_bits(w_));                                                               \
    } while (0)

// ---------------------------------------------------------------------------
// files built byte by byte

typedef struct {
    unsigned char b[16384];
    size_t n;
} Buf;

static void put(Buf *f, const void *p, size_t n) {
    assert_true(f->n + n <= sizeof f->b);
    memcpy(f->b + f->n, p, n);
    f->n += n;
}
static void le(Buf *f, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; i++) {
        unsigned char c = (unsigned char)(v >> (8 * i));
        put(f, &c, 1);
    }
}
static void p8(Buf *f, unsigned v) { le(f, v, 1); }
static void p32(Buf *f, uint64_t v) { le(f, v, 4); }
static void p64(Buf *f, uint64_t v) { le(f, v, 8); }
static void pstr(Buf *f, const char *s) {
    p64(f, strlen(s));
    put(f, s, strlen(s));
}
static void head(Buf *f, uint32_t version, uint64_t n_tensors, uint64_t n_kv) {
    f->n = 0;
    put(f, "GGUF", 4);
    p32(f, version);
    p64(f, n_tensors);
    p64(f, n_kv);
}
static void key(Buf *f, const char *k, uint32_t type) {
    pstr(f, k);
    p32(f, type);
}
/* A tensor info of up to 4 dims (ne[0] first). */
static void tinfo(Buf *f, const char *name, int ndim, const uint64_t *ne, uint32_t type, uint64_t offset) {
    pstr(f, name);
    p32(f, (uint32_t)ndim);
    for (int i = 0; i < ndim; i++) p64(f, ne[i]);
    p32(f, type);
    p64(f, offset);
}
static void pad(Buf *f, size_t align) {
    while (f->n % align) p8(f, 0);
}
static void zeros(Buf *f, size_t n) {
    while (n--) p8(f, 0);
}

static const char *write_buf(const char *name, const Buf *f) {
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    if (f->n) assert_int_equal(fwrite(f->b, 1, f->n, fp), f->n);
    assert_int_equal(fclose(fp), 0);
    return path;
}

static Gguf *open_ok(const char *name, const Buf *f) {
    AvError err = {0};
    Gguf *g = gguf_open(write_buf(name, f), &err);
    if (!g) fail_msg("%s: %s", name, err.msg);
    return g;
}

/* Asserts that f, written as dir/name, is refused with "dir/name: rest". */
static void refused(const char *name, const Buf *f, const char *rest) {
    AvError err = {0};
    Gguf *g = gguf_open(write_buf(name, f), &err);
    if (g) fail_msg("%s opened", name);
    char want[700];
    snprintf(want, sizeof want, "%s/%s: %s", dir, name, rest);
    assert_null(strchr(err.msg, '\n'));
    assert_string_equal(err.msg, want);
    /* the same bytes from memory say the same after the name */
    Gguf *m = gguf_open_mem(f->b, f->n, "mem", &err);
    assert_null(m);
}

// ---------------------------------------------------------------------------
// valid files

static void test_valid_v3_and_v2(void **state) {
    (void)state;
    for (uint32_t version = 2; version <= 3; version++) {
        Buf f;
        head(&f, version, 3, 4);
        key(&f, "general.architecture", GGUF_STRING), pstr(&f, "llama");
        key(&f, "x.count", GGUF_UINT32), p32(&f, 7);
        key(&f, "x.flag", GGUF_BOOL), p8(&f, 1);
        key(&f, "x.scale", GGUF_FLOAT32), p32(&f, to_bits(0.5f));
        const uint64_t ne_w[2] = {4, 2}, ne_q[1] = {64}, ne_s[1] = {1};
        tinfo(&f, "w", 2, ne_w, QT_F32, 0);
        tinfo(&f, "q", 1, ne_q, QT_Q8_0, 32);
        tinfo(&f, "s", 1, ne_s, QT_F16, 128);
        pad(&f, 32);
        size_t data = f.n;
        for (int i = 0; i < 8; i++) p32(&f, to_bits((float)i - 3.5f)); /* w: 32 bytes */
        for (int b = 0; b < 2; b++) {                                  /* q: 2 blocks of d = 0.5 */
            p8(&f, 0x00), p8(&f, 0x38);
            for (int i = 0; i < 32; i++) p8(&f, (unsigned)(int8_t)(i - 16 + b));
        }
        pad(&f, 32);
        p8(&f, 0x00), p8(&f, 0xBC); /* s: -1.0 */
        Gguf *g = open_ok(version == 2 ? "v2.gguf" : "v3.gguf", &f);
        assert_int_equal(gguf_version(g), version);
        assert_int_equal(gguf_alignment(g), 32);
        assert_int_equal(gguf_data_offset(g), data);
        assert_int_equal(gguf_kv_count(g), 4);
        assert_string_equal(gguf_kv_at(g, 0)->key, "general.architecture");
        assert_null(gguf_kv_at(g, 4));
        GgufStr s;
        assert_int_equal(gguf_get_str(g, "general.architecture", &s, NULL), 0);
        assert_int_equal(s.len, 5);
        assert_memory_equal(s.s, "llama", 5);
        int64_t v = -1;
        assert_int_equal(gguf_get_int(g, "x.count", 0, 100, &v, NULL), 0);
        assert_int_equal(v, 7);
        assert_int_equal(gguf_get_int(g, "x.absent", 0, 100, &v, NULL), 1);
        assert_int_equal(v, 7); /* untouched */
        int flag = 0;
        assert_int_equal(gguf_get_bool(g, "x.flag", &flag, NULL), 0);
        assert_int_equal(flag, 1);
        double d = 0;
        assert_int_equal(gguf_get_float(g, "x.scale", &d, NULL), 0);
        assert_true(d == 0.5);

        assert_int_equal(gguf_tensor_count(g), 3);
        const GgufTensor *w = gguf_tensor_find(g, "w"), *q = gguf_tensor_find(g, "q"), *sc = gguf_tensor_find(g, "s");
        assert_non_null(w), assert_non_null(q), assert_non_null(sc);
        assert_ptr_equal(gguf_tensor_at(g, 0), w);
        assert_null(gguf_tensor_find(g, "x"));
        assert_int_equal(w->type, QT_F32);
        assert_int_equal(w->ndim, 2);
        assert_int_equal(w->ne[0], 4), assert_int_equal(w->ne[1], 2), assert_int_equal(w->ne[2], 1);
        assert_int_equal(w->count, 8), assert_int_equal(w->rows, 2), assert_int_equal(w->row_bytes, 16);
        float row[64];
        quant_dequantize(row, gguf_row(w, 1), w->type, 4);
        assert_same_float(row[0], 0.5f);
        assert_same_float(row[3], 3.5f);
        assert_int_equal(q->bytes, 68);
        assert_int_equal(gguf_tensor_readable(g, q, NULL), 0);
        quant_dequantize(row, gguf_row(q, 0), q->type, 64);
        assert_same_float(row[0], -8.0f);
        assert_same_float(row[31], 7.5f);
        assert_same_float(row[32], -7.5f);
        assert_same_float(row[63], 8.0f);
        /* a range of blocks: the second alone */
        quant_dequantize(row, gguf_row(q, 0) + quant_bytes(QT_Q8_0, 32), QT_Q8_0, 32);
        assert_same_float(row[0], -7.5f);
        quant_dequantize(row, sc->data, sc->type, 1);
        assert_same_float(row[0], -1.0f);
        assert_int_equal(sc->ndim, 1);
        gguf_close(g);
    }
    gguf_close(NULL);
}

/* No tensors: no padding after the header; an empty tensor anywhere. */
static void test_valid_edges(void **state) {
    (void)state;
    Buf f;
    head(&f, 3, 0, 0);
    Gguf *g = open_ok("empty.gguf", &f);
    assert_int_equal(gguf_kv_count(g), 0);
    assert_int_equal(gguf_tensor_count(g), 0);
    assert_int_equal(gguf_data_offset(g), 24);
    gguf_close(g);

    head(&f, 3, 2, 1);
    key(&f, "general.alignment", GGUF_UINT32), p32(&f, 8);
    const uint64_t ne0[2] = {0, 5}, ne4[4] = {2, 1, 1, 2};
    tinfo(&f, "nothing", 2, ne0, QT_Q4_K, 0); /* 0 elements: no bytes, the offset free */
    tinfo(&f, "four", 4, ne4, QT_BF16, 8);
    pad(&f, 8);
    zeros(&f, 8);
    p8(&f, 0x80), p8(&f, 0x3F), p8(&f, 0x00), p8(&f, 0xC0), p8(&f, 0x80), p8(&f, 0x7F), p8(&f, 0x01), p8(&f, 0x00);
    g = open_ok("edges.gguf", &f);
    assert_int_equal(gguf_alignment(g), 8);
    const GgufTensor *t = gguf_tensor_find(g, "nothing");
    assert_int_equal(t->count, 0), assert_int_equal(t->bytes, 0), assert_int_equal(t->rows, 0);
    t = gguf_tensor_find(g, "four");
    assert_int_equal(t->ndim, 4), assert_int_equal(t->rows, 2), assert_int_equal(t->bytes, 8);
    float v[4];
    quant_dequantize(v, t->data, t->type, 4);
    assert_same_float(v[0], 1.0f);
    assert_same_float(v[1], -2.0f);
    assert_true(isinf(v[2]) && v[2] > 0);
    assert_same_float(v[3], 0x1p-133f); /* bf16 0x0001: a float subnormal */
    gguf_close(g);

    /* the front end asked to stop (a header of a million entries takes a while) */
    av_cancel_request();
    refused("cancelled.gguf", &f, "opening cancelled");
    av_cancel_clear();
}

// ---------------------------------------------------------------------------
// malformed files: one line each

static void test_bad_header(void **state) {
    (void)state;
    Buf f = {.n = 0};
    put(&f, "GGUX\x03\0\0\0", 8), zeros(&f, 16);
    refused("magic.gguf", &f, "not a GGUF file (it begins with \"GGUX\", not \"GGUF\")");
    f.n = 0;
    put(&f, "PK\x03\x04", 4), zeros(&f, 20);
    refused("zip.gguf", &f, "not a GGUF file (it begins with \"PK\\x03\\x04\", not \"GGUF\")");
    f.n = 0;
    put(&f, "GGU", 3);
    AvError err = {0};
    assert_null(gguf_open(write_buf("short.gguf", &f), &err));
    char want[400];
    snprintf(want, sizeof want, "%s/short.gguf: 3 bytes, too short for the GGUF magic", dir);
    assert_string_equal(err.msg, want);

    head(&f, 1, 0, 0);
    refused("v1.gguf", &f, "GGUF version 1, from before August 2023, is not read (versions 2 and 3 are)");
    head(&f, 4, 0, 0);
    refused("v4.gguf", &f, "GGUF version 4 is not one attnviz reads (2 or 3)");
    head(&f, 0x03000000, 0, 0);
    refused("be.gguf", &f, "GGUF version 0x03000000: a big-endian file (attnviz reads little-endian ones)");
    head(&f, 0, 0, 0);
    refused("v0.gguf", &f, "GGUF version 0 is not one attnviz reads (2 or 3)");
    f.n = 0;
    put(&f, "GGUF\x03\0\0\0\0\0\0\0", 12);
    refused("cut-count.gguf", &f, "the header: the file ends inside the tensor count (at byte 12)");
    f.n = 0;
    put(&f, "GGUF\x03\0", 6);
    refused("cut-version.gguf", &f, "the header: the file ends inside the version (at byte 6)");

    head(&f, 3, 0, (uint64_t)1 << 40);
    refused("many-keys.gguf", &f, "the metadata count is 1099511627776, more than the 0 bytes left could hold");
    head(&f, 3, UINT64_MAX, 0);
    refused("negative.gguf", &f, "the tensor count is negative (-1)");
    head(&f, 3, 3, 0);
    zeros(&f, 60);
    refused("many-tensors.gguf", &f, "the tensor count is 3, more than the 68 bytes left could hold");
}

static void test_bad_metadata(void **state) {
    (void)state;
    Buf f;
    head(&f, 3, 0, 1);
    p64(&f, 1000), put(&f, "abc", 3), zeros(&f, 11);
    refused("key-long.gguf", &f,
            "metadata entry 0: a name of 1000 bytes runs past the end of the file (14 bytes left)");
    head(&f, 3, 0, 1);
    p64(&f, 0), p32(&f, GGUF_UINT8), p8(&f, 1), zeros(&f, 1);
    refused("key-empty.gguf", &f, "metadata entry 0: the name is empty");
    head(&f, 3, 0, 1);
    p64(&f, 3), put(&f, "a\0b", 3), p32(&f, GGUF_UINT8), p8(&f, 1);
    refused("key-nul.gguf", &f, "metadata entry 0: the name \"a...\" holds a NUL byte");
    head(&f, 3, 0, 1);
    p64(&f, 70000), zeros(&f, 70000 > sizeof f.b - f.n ? sizeof f.b - f.n : 70000);
    refused("key-huge.gguf", &f,
            "metadata entry 0: a name of 70000 bytes runs past the end of the file (16352 bytes left)");

    head(&f, 3, 0, 2);
    key(&f, "k", 13), zeros(&f, 20);
    refused("vtype.gguf", &f, "key k: value type 13 is not a GGUF type (0..12)");
    head(&f, 3, 0, 1);
    key(&f, "k", GGUF_STRING), p64(&f, (uint64_t)1 << 63), put(&f, "abcdef", 6);
    refused("str-long.gguf", &f,
            "key k: a string of 9223372036854775808 bytes runs past the end of the file (6 bytes left)");
    head(&f, 3, 0, 1);
    key(&f, "k", GGUF_STRING), put(&f, "\x05\0\0", 3);
    refused("str-cut.gguf", &f, "key k: the file ends inside the length of a string (at byte 40)");
    head(&f, 3, 0, 1);
    key(&f, "k", GGUF_UINT64), p32(&f, 1);
    refused("u64-cut.gguf", &f, "key k: the u64 value runs past the end of the file");
    head(&f, 3, 0, 1);
    key(&f, "k", GGUF_ARRAY), p32(&f, 99), p64(&f, 1), zeros(&f, 8);
    refused("etype.gguf", &f, "key k: array element type 99 is not a GGUF type (0..12)");
    head(&f, 3, 0, 1);
    key(&f, "k", GGUF_ARRAY), p32(&f, GGUF_UINT64), p64(&f, (uint64_t)1 << 61), zeros(&f, 64);
    refused("arr-huge.gguf", &f,
            "key k: an array of 2305843009213693952 u64 values (8 bytes each) runs past the end of the file (64 "
            "bytes left)");
    head(&f, 3, 0, 1);
    key(&f, "k", GGUF_ARRAY), p32(&f, GGUF_STRING), p64(&f, UINT64_MAX), zeros(&f, 64);
    refused("arr-str-huge.gguf", &f,
            "key k: an array of 18446744073709551615 str values runs past the end of the file (64 bytes left)");
    head(&f, 3, 0, 1);
    key(&f, "k", GGUF_ARRAY), p32(&f, GGUF_STRING), p64(&f, 3), pstr(&f, "ok"), p64(&f, 100), put(&f, "short", 5),
        zeros(&f, 8);
    refused("arr-str-bad.gguf", &f, "key k: a string of 100 bytes runs past the end of the file (13 bytes left)");
    head(&f, 3, 0, 1);
    key(&f, "k", GGUF_BOOL), p8(&f, 2);
    refused("bool.gguf", &f, "key k: bool value 2 is neither 0 nor 1");
    head(&f, 3, 0, 1);
    key(&f, "k", GGUF_ARRAY), p32(&f, GGUF_BOOL), p64(&f, 3), p8(&f, 1), p8(&f, 0), p8(&f, 5);
    refused("bool-arr.gguf", &f, "key k: element 2 of the array: bool value 5 is neither 0 nor 1");
    head(&f, 3, 0, 1);
    key(&f, "deep", GGUF_ARRAY);
    for (int i = 0; i < 9; i++) p32(&f, GGUF_ARRAY), p64(&f, 1);
    p32(&f, GGUF_UINT8), p64(&f, 0);
    refused("deep.gguf", &f, "key deep: arrays nested more than 8 deep");
    head(&f, 3, 0, 1);
    key(&f, "deep", GGUF_ARRAY);
    for (int i = 0; i < 7; i++) p32(&f, GGUF_ARRAY), p64(&f, 1);
    p32(&f, GGUF_UINT8), p64(&f, 0);
    gguf_close(open_ok("deep-8.gguf", &f)); /* 8 arrays, one in the other: the limit */
    head(&f, 3, 0, 3);
    key(&f, "b", GGUF_UINT8), p8(&f, 1);
    key(&f, "a", GGUF_UINT8), p8(&f, 1);
    key(&f, "b", GGUF_STRING), pstr(&f, "x");
    refused("dup.gguf", &f, "key b appears twice");

    head(&f, 3, 0, 1);
    key(&f, "general.alignment", GGUF_UINT64), p64(&f, 32);
    refused("align-type.gguf", &f, "key general.alignment: type u64, not u32");
    head(&f, 3, 0, 1);
    key(&f, "general.alignment", GGUF_UINT32), p32(&f, 24);
    refused("align-24.gguf", &f, "key general.alignment: 24 is not a power of two");
    head(&f, 3, 0, 1);
    key(&f, "general.alignment", GGUF_UINT32), p32(&f, 0);
    refused("align-0.gguf", &f, "key general.alignment: 0 is not a power of two");
}

/* A file of one tensor info (ne, type, offset) and `data` bytes of data. */
static void one_tensor(Buf *f, const char *name, int ndim, const uint64_t *ne, uint32_t type, uint64_t offset,
                       size_t data) {
    head(f, 3, 1, 0);
    tinfo(f, name, ndim, ne, type, offset);
    pad(f, 32);
    zeros(f, data);
}

static void test_bad_tensors(void **state) {
    (void)state;
    Buf f;
    const uint64_t ne64[1] = {64};
    char name[80];
    memset(name, 'n', 64), name[64] = '\0';
    one_tensor(&f, name, 1, ne64, QT_F32, 0, 256);
    refused("name-long.gguf", &f, "tensor 0: a name of 64 bytes, more than the limit of 63");
    head(&f, 3, 1, 0);
    p64(&f, 0), p32(&f, 1), p64(&f, 4), p32(&f, 0), p64(&f, 0);
    refused("name-empty.gguf", &f, "tensor 0: the name is empty");
    const uint64_t ne5[5] = {1, 1, 1, 1, 1};
    one_tensor(&f, "w", 5, ne5, QT_F32, 0, 64);
    refused("dims-5.gguf", &f, "tensor w: 5 dimensions, more than ggml's 4");
    const uint64_t neg[2] = {4, (uint64_t)-2};
    one_tensor(&f, "w", 2, neg, QT_F32, 0, 64);
    refused("dim-negative.gguf", &f, "tensor w: dimension 1 is negative (-2)");
    one_tensor(&f, "w", 1, ne64, 99, 0, 64);
    refused("type-99.gguf", &f, "tensor w: type 99 is not a ggml type");
    one_tensor(&f, "w", 1, ne64, 4, 0, 64);
    refused("type-removed.gguf", &f, "tensor w: type 4 is not a ggml type");
    one_tensor(&f, "w", 1, ne64, UINT32_MAX, 0, 64);
    refused("type-neg.gguf", &f, "tensor w: type -1 is not a ggml type");
    const uint64_t ne100[2] = {100, 2};
    one_tensor(&f, "w", 2, ne100, QT_Q4_K, 0, 512);
    refused("row-block.gguf", &f, "tensor w: Q4_K rows of 100 elements are not a multiple of its block of 256");
    const uint64_t huge[4] = {(uint64_t)1 << 31, (uint64_t)1 << 31, (uint64_t)1 << 31, 4};
    one_tensor(&f, "w", 4, huge, QT_F32, 0, 64);
    refused("elements.gguf", &f, "tensor w: dims [2147483648, 2147483648, 2147483648, 4] are more than 2^63 elements");
    const uint64_t big[2] = {(uint64_t)1 << 32, (uint64_t)1 << 30};
    one_tensor(&f, "w", 2, big, QT_F64, 0, 64);
    refused("bytes.gguf", &f, "tensor w: 4611686018427387904 elements of F64 are more bytes than memory can address");
    one_tensor(&f, "w", 1, ne64, QT_F32, 4, 300);
    refused("unaligned.gguf", &f, "tensor w: offset 4 is not a multiple of the alignment 32");
    one_tensor(&f, "w", 1, ne64, QT_F32, 32, 256);
    refused("past-end.gguf", &f, "tensor w: 256 bytes at offset 32 run past the end of the data (256 bytes)");
    one_tensor(&f, "w", 1, ne64, QT_F32, (uint64_t)1 << 62, 256);
    refused("offset-huge.gguf", &f,
            "tensor w: 256 bytes at offset 4611686018427387904 run past the end of the data (256 bytes)");
    head(&f, 3, 1, 0);
    tinfo(&f, "w", 1, ne64, QT_F32, 0);
    f.n -= 3;
    refused("cut-info.gguf", &f, "tensor w: the file ends inside the offset (at byte 54)");
    head(&f, 3, 1, 0);
    tinfo(&f, "w", 1, ne64, QT_F32, 0);
    zeros(&f, 2);
    refused("no-data.gguf", &f, "the tensor data would begin at byte 64, past the end of the file (59 bytes)");

    head(&f, 3, 3, 0);
    const uint64_t ne16[1] = {16};
    tinfo(&f, "a", 1, ne16, QT_F32, 0);
    tinfo(&f, "b", 1, ne64, QT_Q8_0, 96);
    tinfo(&f, "c", 1, ne16, QT_F32, 32);
    pad(&f, 32);
    zeros(&f, 192);
    refused("overlap.gguf", &f, "tensor c: bytes [32, 96) overlap those of tensor a [0, 64)");
    head(&f, 3, 2, 0);
    tinfo(&f, "w", 1, ne16, QT_F32, 0);
    tinfo(&f, "w", 1, ne16, QT_F32, 64);
    pad(&f, 32);
    zeros(&f, 128);
    refused("dup-tensor.gguf", &f, "tensor w appears twice");
}

// ---------------------------------------------------------------------------
// the getters

static void test_getters(void **state) {
    (void)state;
    Buf f;
    head(&f, 3, 1, 9);
    key(&f, "s", GGUF_STRING), pstr(&f, "text");
    key(&f, "u8", GGUF_UINT8), p8(&f, 200);
    key(&f, "big", GGUF_UINT64), p64(&f, UINT64_MAX);
    key(&f, "neg", GGUF_INT32), p32(&f, (uint32_t)-5);
    key(&f, "nan", GGUF_FLOAT64), p64(&f, 0x7FF8000000000000ull);
    key(&f, "f", GGUF_FLOAT32), p32(&f, to_bits(-2.5f));
    key(&f, "arr.s", GGUF_ARRAY), p32(&f, GGUF_STRING), p64(&f, 2), pstr(&f, "x"), pstr(&f, "");
    key(&f, "arr.f", GGUF_ARRAY), p32(&f, GGUF_FLOAT32), p64(&f, 2), p32(&f, to_bits(1.5f)), p32(&f, to_bits(-1));
    key(&f, "arr.i", GGUF_ARRAY), p32(&f, GGUF_INT16), p64(&f, 3), le(&f, 1, 2), le(&f, (uint64_t)-2, 2),
        le(&f, 32767, 2);
    const uint64_t ne[1] = {256};
    tinfo(&f, "iq", 1, ne, QT_IQ2_XXS, 0);
    pad(&f, 32);
    zeros(&f, 66);
    Gguf *g = open_ok("getters.gguf", &f);
    char prefix[300];
    snprintf(prefix, sizeof prefix, "%s/getters.gguf: ", dir);
    AvError err = {0};
    int64_t v = 0;
    double d;
    int b;
    GgufStr s;
    const GgufKv *kv;
#define EXPECT(call, rest)                                                                                             \
    do {                                                                                                               \
        memset(&err, 0, sizeof err);                                                                                   \
        assert_int_equal((call), -1);                                                                                  \
        char want_[600];                                                                                               \
        snprintf(want_, sizeof want_, "%s%s", prefix, rest);                                                           \
        assert_string_equal(err.msg, want_);                                                                           \
    } while (0)
    EXPECT(gguf_get_int(g, "s", 0, 10, &v, &err), "key s: type str, not an integer");
    EXPECT(gguf_get_int(g, "u8", 0, 100, &v, &err), "key u8: 200 is out of range (0 to 100)");
    EXPECT(gguf_get_int(g, "big", 0, 100, &v, &err), "key big: 18446744073709551615 is out of range (0 to 100)");
    EXPECT(gguf_get_int(g, "neg", 0, 100, &v, &err), "key neg: -5 is out of range (0 to 100)");
    EXPECT(gguf_get_int(g, "arr.i", 0, 100, &v, &err), "key arr.i: type array of i16, not an integer");
    EXPECT(gguf_get_float(g, "s", &d, &err), "key s: type str, not a number");
    EXPECT(gguf_get_float(g, "nan", &d, &err), "key nan: nan is not a finite number");
    EXPECT(gguf_get_bool(g, "u8", &b, &err), "key u8: type u8, not a bool");
    EXPECT(gguf_get_str(g, "arr.s", &s, &err), "key arr.s: type array of str, not a string");
    EXPECT(gguf_get_array(g, "arr.f", GGUF_UINT32, 0, &kv, &err), "key arr.f: type array of f32, not array of u32");
    EXPECT(gguf_get_array(g, "arr.s", GGUF_UINT32, 1, &kv, &err),
           "key arr.s: type array of str, not array of integers");
    EXPECT(gguf_get_array(g, "u8", GGUF_UINT8, 0, &kv, &err), "key u8: type u8, not array of u8");
    EXPECT(gguf_missing(g, "tokenizer.ggml.model", &err), "no key tokenizer.ggml.model");
    EXPECT(gguf_tensor_readable(g, gguf_tensor_find(g, "iq"), &err),
           "tensor iq: type IQ2_XXS is not one attnviz reads (F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q2_K, "
           "Q3_K, Q4_K, Q5_K, Q6_K)");
#undef EXPECT
    assert_int_equal(gguf_get_int(g, "neg", -10, 10, &v, NULL), 0);
    assert_int_equal(v, -5);
    assert_int_equal(gguf_get_float(g, "f", &d, NULL), 0);
    assert_true(d == -2.5);
    assert_int_equal(gguf_get_float(g, "u8", &d, NULL), 0); /* an integer is a number */
    assert_true(d == 200);
    assert_int_equal(gguf_get_array(g, "arr.i", GGUF_INT32, 1, &kv, NULL), 0);
    int64_t ints[3];
    assert_int_equal(gguf_array_ints(kv, ints), 0);
    assert_int_equal(ints[0], 1), assert_int_equal(ints[1], -2), assert_int_equal(ints[2], 32767);
    float fl[3];
    assert_int_equal(gguf_array_floats(kv, fl), 0);
    assert_true(fl[1] == -2.0f);
    GgufStr strs[2];
    assert_int_equal(gguf_array_strings(kv, strs), -1); /* not strings */
    assert_int_equal(gguf_get_array(g, "arr.s", GGUF_STRING, 0, &kv, NULL), 0);
    assert_int_equal(kv->n, 2);
    assert_int_equal(gguf_array_strings(kv, strs), 0);
    assert_int_equal(strs[0].len, 1), assert_int_equal(strs[1].len, 0);
    assert_memory_equal(strs[0].s, "x", 1);
    assert_int_equal(gguf_array_ints(kv, ints), -1);
    assert_int_equal(gguf_get_array(g, "arr.f", GGUF_FLOAT32, 0, &kv, NULL), 0);
    assert_int_equal(gguf_array_floats(kv, fl), 0);
    assert_true(fl[0] == 1.5f && fl[1] == -1.0f);
    assert_int_equal(gguf_kv_int(gguf_kv_find(g, "big")), INT64_MAX); /* saturated */
    assert_int_equal(gguf_get_int(g, "big", 0, INT64_MAX, &v, &err), -1);
    gguf_close(g);
}

// ---------------------------------------------------------------------------
// blocks worked out by hand (ggml-common.h's layouts)

static void put16(unsigned char *p, uint16_t h) { p[0] = (unsigned char)h, p[1] = (unsigned char)(h >> 8); }

static void test_blocks_by_hand(void **state) {
    (void)state;
    /* half floats */
    assert_same_float(quant_f16_to_f32(0x3C00), 1.0f);
    assert_same_float(quant_f16_to_f32(0x0001), 0x1p-24f);
    assert_same_float(quant_f16_to_f32(0x03FF), 1023 * 0x1p-24f);
    assert_same_float(quant_f16_to_f32(0x7BFF), 65504.0f);
    assert_same_float(quant_f16_to_f32(0x8000), -0.0f);
    assert_true(isinf(quant_f16_to_f32(0xFC00)) && quant_f16_to_f32(0xFC00) < 0);
    assert_true(isnan(quant_f16_to_f32(0x7E00)));
    assert_same_float(quant_bf16_to_f32(0xC040), -3.0f);
    for (uint32_t h = 0; h < 0x10000; h++) { /* every half against ldexp */
        int e = (h >> 10) & 31, m = h & 1023;
        if (e == 31) continue;
        float want = e ? ldexpf((float)(1024 + m), e - 25) : ldexpf((float)m, -24);
        if (h & 0x8000) want = -want;
        assert_same_float(quant_f16_to_f32((uint16_t)h), want);
    }

    unsigned char b[256];
    float y[QK_K];
    /* Q8_0: d = 0.25, q = j - 16 */
    put16(b, 0x3400);
    for (int j = 0; j < 32; j++) b[2 + j] = (unsigned char)(int8_t)(j - 16);
    quant_dequantize(y, b, QT_Q8_0, 32);
    for (int j = 0; j < 32; j++) assert_same_float(y[j], (float)(j - 16) * 0.25f);
    /* Q4_0: d = 2, byte j = j (low nibble: element j) | (15 - j) << 4 (element j + 16) */
    put16(b, 0x4000);
    for (int j = 0; j < 16; j++) b[2 + j] = (unsigned char)(j | (15 - j) << 4);
    quant_dequantize(y, b, QT_Q4_0, 32);
    for (int j = 0; j < 16; j++) {
        assert_same_float(y[j], (float)(j - 8) * 2);
        assert_same_float(y[j + 16], (float)(15 - j - 8) * 2);
    }
    /* Q4_1: d = 0.5, m = -1 */
    put16(b, 0x3800), put16(b + 2, 0xBC00);
    for (int j = 0; j < 16; j++) b[4 + j] = (unsigned char)(j | (15 - j) << 4);
    quant_dequantize(y, b, QT_Q4_1, 32);
    for (int j = 0; j < 16; j++) {
        assert_same_float(y[j], (float)j * 0.5f - 1);
        assert_same_float(y[j + 16], (float)(15 - j) * 0.5f - 1);
    }
    /* Q5_0 and Q5_1: the fifth bit of elements 3 and 20 */
    put16(b, 0x3C00);
    uint32_t qh = 1u << 3 | 1u << 20;
    for (int i = 0; i < 4; i++) b[2 + i] = (unsigned char)(qh >> (8 * i));
    for (int j = 0; j < 16; j++) b[6 + j] = 0x21; /* low 1, high 2 */
    quant_dequantize(y, b, QT_Q5_0, 32);
    assert_same_float(y[0], 1 - 16.0f);
    assert_same_float(y[3], 17 - 16.0f);
    assert_same_float(y[16], 2 - 16.0f);
    assert_same_float(y[20], 18 - 16.0f);
    put16(b, 0x3C00), put16(b + 2, 0x4000);
    for (int i = 0; i < 4; i++) b[4 + i] = (unsigned char)(qh >> (8 * i));
    for (int j = 0; j < 16; j++) b[8 + j] = 0x21;
    quant_dequantize(y, b, QT_Q5_1, 32);
    assert_same_float(y[0], 1 + 2.0f);
    assert_same_float(y[3], 17 + 2.0f);
    assert_same_float(y[20], 18 + 2.0f);

    /* Q4_K: d = 1, dmin = 0.5; sub-block j: scale j + 1, min 2 j (6 bits,
     * j >= 4 split into a nibble and two top bits); nibble = l % 16 */
    memset(b, 0, sizeof b);
    put16(b, 0x3C00), put16(b + 2, 0x3800);
    int sc[8], mn[8];
    for (int j = 0; j < 8; j++) sc[j] = j + 1 + (j >= 6 ? 40 : 0), mn[j] = 2 * j + (j == 7 ? 32 : 0);
    for (int j = 0; j < 4; j++) b[4 + j] = (unsigned char)sc[j], b[8 + j] = (unsigned char)mn[j];
    for (int j = 4; j < 8; j++) {
        b[4 + j + 4] = (unsigned char)((sc[j] & 0xF) | (mn[j] & 0xF) << 4);
        b[4 + j - 4] |= (unsigned char)((sc[j] >> 4) << 6);
        b[4 + j] |= (unsigned char)((mn[j] >> 4) << 6);
    }
    for (int l = 0; l < 128; l++) b[16 + l] = (unsigned char)((l % 16) | ((l + 3) % 16) << 4);
    quant_dequantize(y, b, QT_Q4_K, QK_K);
    for (int e = 0; e < QK_K; e++) {
        int j = e / 32, l = (e / 64) * 32 + e % 32, q = (j % 2) ? (l + 3) % 16 : l % 16;
        assert_same_float(y[e], (float)sc[j] * (float)q - 0.5f * (float)mn[j]);
    }

    /* Q6_K: d = 0.125, scales -8..7, element e = 64 h + ... laid as ggml's */
    memset(b, 0, sizeof b);
    int8_t s6[16];
    for (int i = 0; i < 16; i++) s6[i] = (int8_t)(i - 8), b[192 + i] = (unsigned char)s6[i];
    put16(b + 208, 0x3000);
    int q6[QK_K];
    for (int e = 0; e < QK_K; e++) q6[e] = (e * 7 + 3) % 64;
    for (int h = 0; h < 2; h++)
        for (int l = 0; l < 32; l++) {
            const int *q = q6 + 128 * h + l;
            b[64 * h + l] = (unsigned char)((q[0] & 0xF) | (q[64] & 0xF) << 4);
            b[64 * h + l + 32] = (unsigned char)((q[32] & 0xF) | (q[96] & 0xF) << 4);
            b[128 + 32 * h + l] =
                (unsigned char)(q[0] >> 4 | (q[32] >> 4) << 2 | (q[64] >> 4) << 4 | (q[96] >> 4) << 6);
        }
    quant_dequantize(y, b, QT_Q6_K, QK_K);
    for (int e = 0; e < QK_K; e++) assert_same_float(y[e], 0.125f * (float)s6[e / 16] * (float)(q6[e] - 32));

    /* the table */
    assert_string_equal(quant_name(QT_Q4_K), "Q4_K");
    assert_null(quant_name(4));
    assert_null(quant_name(QT_COUNT));
    assert_null(quant_name(-1));
    assert_int_equal(quant_block_size(QT_Q6_K), 256);
    assert_int_equal(quant_block_bytes(QT_Q6_K), 210);
    assert_int_equal(quant_bytes(QT_Q5_K, 512), 352);
    assert_false(quant_supported(QT_IQ4_XS));
    assert_true(quant_supported(QT_Q3_K));
}

// ---------------------------------------------------------------------------
// the NumPy writer's files

static const char *const READ[] = {"F32",  "F16",  "BF16", "Q8_0", "Q4_0", "Q4_1", "Q5_0",
                                   "Q5_1", "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K"};
#define N_READ (int)(sizeof READ / sizeof *READ)

/* dir/w written by the writer once for the tests below; 0 without NumPy. */
static int writer_files(void) {
    static int done = -1;
    if (done >= 0) return done;
    done = 0;
    if (system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") != 0) {
        need_missing("/usr/bin/python3 with numpy (tests/support/gguf_writer.py; apt-get install python3-numpy)");
        return 0;
    }
    char cmd[512];
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 tests/support/gguf_writer.py write '%s/w'", dir);
    if (system(cmd) != 0) fail_msg("%s failed", cmd);
    return done = 1;
}

static float *read_f32(const char *name, size_t n) {
    char path[300];
    snprintf(path, sizeof path, "%s/w/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("%s: missing", path);
    float *v = malloc(n * sizeof *v);
    assert_non_null(v);
    assert_int_equal(fread(v, sizeof *v, n, f), n);
    assert_int_equal(fgetc(f), EOF);
    fclose(f);
    return v;
}

static void test_writer_types(void **state) {
    (void)state;
    if (!writer_files()) return;
    char path[300];
    snprintf(path, sizeof path, "%s/w/types.gguf", dir);
    AvError err = {0};
    Gguf *g = gguf_open(path, &err);
    if (!g) fail_msg("%s", err.msg);
    for (int k = 0; k < N_READ; k++) {
        char name[32], dump[40];
        snprintf(name, sizeof name, "t.%s", READ[k]);
        snprintf(dump, sizeof dump, "t.%s.f32", READ[k]);
        const GgufTensor *t = gguf_tensor_find(g, name);
        if (!t) fail_msg("no tensor %s", name);
        assert_string_equal(quant_name(t->type), READ[k]);
        assert_int_equal(t->ne[0], 512);
        assert_int_equal(t->rows, 6);
        assert_int_equal(gguf_tensor_readable(g, t, NULL), 0);
        float *want = read_f32(dump, 512 * 6), row[512];
        size_t wrong = 0, first = 0;
        for (uint64_t r = 0; r < t->rows; r++) {
            quant_dequantize(row, gguf_row(t, r), t->type, 512);
            for (int i = 0; i < 512; i++)
                if (to_bits(row[i]) != to_bits(want[r * 512 + i]) && !wrong++) first = r * 512 + (size_t)i;
            /* a range of whole blocks: the second half of the row alone */
            quant_dequantize(row, gguf_row(t, r) + quant_bytes(t->type, 256), t->type, 256);
            for (int i = 0; i < 256; i++)
                if (to_bits(row[i]) != to_bits(want[r * 512 + 256 + i]) && !wrong++) first = r * 512 + 256 + (size_t)i;
        }
        if (wrong)
            fail_msg("%s: %zu values differ from the writer's; the first, element %zu: %.9g", name, wrong, first,
                     (double)want[first]);
        free(want);
    }
    const GgufTensor *iq = gguf_tensor_find(g, "t.IQ2_XXS");
    assert_non_null(iq);
    assert_int_equal(gguf_tensor_readable(g, iq, &err), -1);
    assert_non_null(strstr(err.msg, "tensor t.IQ2_XXS: type IQ2_XXS is not one attnviz reads"));
    gguf_close(g);
}

static const GgufKv *need_kv(const Gguf *g, const char *key, GgufType type) {
    const GgufKv *kv = gguf_kv_find(g, key);
    if (!kv) fail_msg("no key %s", key);
    if (kv->type != type) fail_msg("key %s: type %s", key, gguf_type_name(kv->type));
    return kv;
}

static void assert_str(GgufStr s, const char *want) {
    assert_int_equal(s.len, strlen(want));
    assert_memory_equal(s.s, want, s.len);
}

static void test_writer_metadata(void **state) {
    (void)state;
    if (!writer_files()) return;
    char path[300];
    snprintf(path, sizeof path, "%s/w/meta.gguf", dir);
    AvError err = {0};
    Gguf *g = gguf_open(path, &err);
    if (!g) fail_msg("%s", err.msg);
    assert_int_equal(gguf_version(g), 3);
    assert_int_equal(gguf_alignment(g), 64);
    assert_int_equal(gguf_data_offset(g) % 64, 0);
    assert_int_equal(gguf_kv_count(g), 29);
    assert_int_equal(gguf_kv_int(need_kv(g, "t.u8", GGUF_UINT8)), 200);
    assert_int_equal(gguf_kv_int(need_kv(g, "t.i8", GGUF_INT8)), -100);
    assert_int_equal(gguf_kv_int(need_kv(g, "t.u16", GGUF_UINT16)), 60000);
    assert_int_equal(gguf_kv_int(need_kv(g, "t.i16", GGUF_INT16)), -30000);
    assert_int_equal(gguf_kv_int(need_kv(g, "t.u32", GGUF_UINT32)), 4000000000);
    assert_int_equal(gguf_kv_int(need_kv(g, "t.i32", GGUF_INT32)), -2000000000);
    assert_true(gguf_kv_float(need_kv(g, "t.f32", GGUF_FLOAT32)) == 0.15625);
    assert_int_equal(gguf_kv_int(need_kv(g, "t.bool", GGUF_BOOL)), 1);
    assert_int_equal(gguf_kv_int(need_kv(g, "t.false", GGUF_BOOL)), 0);
    assert_str(gguf_kv_str(need_kv(g, "t.str", GGUF_STRING)), "h\xc3\xa9llo \xec\x84\xb8\xea\xb3\x84");
    assert_str(gguf_kv_str(need_kv(g, "t.empty", GGUF_STRING)), "");
    const GgufKv *u64 = need_kv(g, "t.u64", GGUF_UINT64);
    assert_memory_equal(u64->data, "\xff\xff\xff\xff\xff\xff\xff\xff", 8);
    assert_true(gguf_kv_int(need_kv(g, "t.i64", GGUF_INT64)) == INT64_MIN);
    assert_true(gguf_kv_float(need_kv(g, "t.f64", GGUF_FLOAT64)) == 1.0 / 3);
    int64_t v;
    assert_int_equal(gguf_get_int(g, "t.u32", 0, INT64_MAX, &v, NULL), 0);
    assert_int_equal(v, 4000000000);

    static const struct {
        const char *key;
        GgufType elem;
        int n;
        int64_t first, last;
    } ints[] = {{"a.u8", GGUF_UINT8, 3, 0, 255},
                {"a.i8", GGUF_INT8, 3, -128, 127},
                {"a.u16", GGUF_UINT16, 2, 0, 65535},
                {"a.i16", GGUF_INT16, 2, -32768, 32767},
                {"a.u32", GGUF_UINT32, 4, 1, 4294967295},
                {"a.i32", GGUF_INT32, 3, -1, 2147483647},
                {"a.bool", GGUF_BOOL, 3, 1, 1},
                {"a.u64", GGUF_UINT64, 3, 0, INT64_MAX},
                {"a.i64", GGUF_INT64, 2, INT64_MIN, INT64_MAX}};
    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++) {
        const GgufKv *kv = need_kv(g, ints[i].key, GGUF_ARRAY);
        assert_int_equal(kv->elem, ints[i].elem);
        assert_int_equal(kv->n, ints[i].n);
        int64_t got[8];
        if (ints[i].elem == GGUF_BOOL) {
            assert_int_equal(gguf_array_ints(kv, got), -1);
            assert_memory_equal(kv->data, "\1\0\1", 3);
            continue;
        }
        assert_int_equal(gguf_array_ints(kv, got), 0);
        assert_true(got[0] == ints[i].first);
        assert_true(got[ints[i].n - 1] == ints[i].last);
    }
    float fl[3];
    const GgufKv *kv = need_kv(g, "a.f32", GGUF_ARRAY);
    assert_int_equal(gguf_array_floats(kv, fl), 0);
    assert_true(fl[0] == 0.5f && fl[1] == -1.25f && fl[2] == 3e38f);
    kv = need_kv(g, "a.f64", GGUF_ARRAY);
    assert_int_equal(gguf_array_floats(kv, fl), 0);
    assert_true(isinf(fl[0])); /* 1e300 as a float */
    assert_true(fl[1] == 0 && signbit(fl[1]));
    kv = need_kv(g, "a.str", GGUF_ARRAY);
    GgufStr s[4];
    assert_int_equal(kv->n, 4);
    assert_int_equal(gguf_array_strings(kv, s), 0);
    assert_str(s[0], "a"), assert_str(s[1], ""), assert_str(s[2], "\xec\x84\xb8\xea\xb3\x84");
    assert_int_equal(s[3].len, 300);
    kv = need_kv(g, "a.empty", GGUF_ARRAY);
    assert_int_equal(kv->n, 0), assert_int_equal(kv->elem, GGUF_UINT32);

    assert_int_equal(gguf_tensor_count(g), 3);
    const GgufTensor *a = gguf_tensor_find(g, "a"), *b = gguf_tensor_find(g, "b"), *e = gguf_tensor_find(g, "empty");
    assert_non_null(a), assert_non_null(b), assert_non_null(e);
    assert_int_equal(b->ne[0], 2), assert_int_equal(b->ne[1], 2), assert_int_equal(b->type, QT_F16);
    assert_int_equal(b->offset % 64, 0);
    float vals[4];
    quant_dequantize(vals, gguf_row(b, 1), b->type, 2);
    assert_true(vals[0] == 3 && vals[1] == 4);
    assert_int_equal(e->count, 0), assert_int_equal(e->ne[1], 3);
    gguf_close(g);

    /* arrays of arrays, version 2 */
    snprintf(path, sizeof path, "%s/w/nested.gguf", dir);
    g = gguf_open(path, &err);
    if (!g) fail_msg("%s", err.msg);
    assert_int_equal(gguf_version(g), 2);
    kv = need_kv(g, "n.two", GGUF_ARRAY);
    assert_int_equal(kv->elem, GGUF_ARRAY);
    assert_int_equal(kv->n, 3);
    GgufKv sub[3], subsub[2];
    assert_int_equal(gguf_array_arrays(kv, sub), 0);
    assert_int_equal(sub[0].elem, GGUF_UINT32), assert_int_equal(sub[0].n, 2);
    int64_t two[2];
    assert_int_equal(gguf_array_ints(&sub[0], two), 0);
    assert_true(two[0] == 1 && two[1] == 2);
    assert_int_equal(sub[1].elem, GGUF_STRING);
    assert_int_equal(gguf_array_strings(&sub[1], s), 0);
    assert_str(s[0], "x"), assert_str(s[1], "yz");
    assert_int_equal(sub[2].n, 0);
    assert_string_equal(sub[1].key, "n.two");
    kv = need_kv(g, "n.three", GGUF_ARRAY);
    assert_int_equal(gguf_array_arrays(kv, subsub), 0);
    assert_int_equal(subsub[0].elem, GGUF_ARRAY);
    assert_int_equal(gguf_array_arrays(&subsub[0], sub), 0);
    assert_int_equal(sub[0].elem, GGUF_INT16);
    assert_int_equal(gguf_array_ints(&sub[0], two), 0);
    assert_true(two[0] == -7);
    assert_int_equal(subsub[1].n, 0);
    assert_int_equal(gguf_kv_int(need_kv(g, "n.after", GGUF_UINT32)), 7);
    gguf_close(g);
}

/* llama.cpp's ggml, from npm node-llama-cpp: the reference itself. */
static void test_ggml_reference(void **state) {
    (void)state;
    if (!writer_files()) return;
    char root[512] = "";
    const char *env = getenv("ATTNVIZ_LLAMA_CPP");
    if (env && *env) {
        snprintf(root, sizeof root, "%s", env);
    } else {
        FILE *p = popen("sh tests/fetch_llama_cpp.sh 2>&1", "r");
        assert_non_null(p);
        if (!fgets(root, sizeof root, p)) root[0] = '\0';
        int rc = pclose(p);
        root[strcspn(root, "\n")] = '\0';
        if (rc != 0) {
            need_missing("llama.cpp's ggml (npm node-llama-cpp@3.21.1, tests/fetch_llama_cpp.sh): %s", root);
            return;
        }
    }
    char cmd[1400];
    snprintf(
        cmd, sizeof cmd,
        "/usr/bin/python3 tests/support/gguf_writer.py ggml '%s/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64'"
        " '%s/w' 2>/dev/null",
        root, dir);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char line[512];
    int lines = 0;
    while (fgets(line, sizeof line, p)) lines++, printf("  %s", line);
    assert_int_equal(pclose(p), 0);
    assert_int_equal(lines, 13); /* ten block types, two files read alike, one refused */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_v3_and_v2), cmocka_unit_test(test_valid_edges),
        cmocka_unit_test(test_bad_header),      cmocka_unit_test(test_bad_metadata),
        cmocka_unit_test(test_bad_tensors),     cmocka_unit_test(test_getters),
        cmocka_unit_test(test_blocks_by_hand),  cmocka_unit_test(test_writer_types),
        cmocka_unit_test(test_writer_metadata), cmocka_unit_test(test_ggml_reference),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
