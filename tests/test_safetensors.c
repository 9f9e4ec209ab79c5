/* test_safetensors.c - cmocka tests of the safetensors reader
 * (src/formats/safetensors.c).
 *
 * Every file is written here into a temporary folder: a small valid one
 * with F32, F16 and BF16 tensors of known values (F16 subnormals, the
 * largest normal, infinities, NaN; BF16 against exact floats), a sharded
 * pair with its index, and every malformed header, each one message
 * checked whole (the file and the tensor named). Independently, with NumPy,
 * tests/verify_safetensors.py writes files from the format's specification
 * and the values read back must be NumPy's (skipped with a line without). */
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

#include "safetensors.h"
#include "need.h"

// ---------------------------------------------------------------------------
// helpers

static char dir[] = "/tmp/attnviz-st-XXXXXX";

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

/* dir/name: the header length (hlen, or strlen(json) when UINT64_MAX), the
 * JSON and data[0..n). Returns the path (static). */
static const char *write_raw(const char *name, uint64_t hlen, const char *json, const void *data, size_t n) {
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    size_t len = strlen(json);
    if (hlen == UINT64_MAX) hlen = len;
    unsigned char le[8];
    for (int i = 0; i < 8; i++) le[i] = (unsigned char)(hlen >> (8 * i));
    assert_int_equal(fwrite(le, 1, 8, f), 8);
    assert_int_equal(fwrite(json, 1, len, f), len);
    if (n) assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
    return path;
}

static const char *write_st(const char *name, const char *json, const void *data, size_t n) {
    return write_raw(name, UINT64_MAX, json, data, n);
}

static float from_bits(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint32_t to_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

#define assert_same_float(got, want)                                                                                   \
    do {                                                                                                               \
        float g_ = (got), w_ = (want);                                                                                 \
        if (to_bits(g_) != to_bits(w_) && !(isnan(g_) && isnan(w_)))                                                   \
            fail_msg("%s = %.9g (0x%08X), expected %.9g (0x%08X)", #got, (double)g_, (unsigned)to_bits(g_),            \
                     (double)w_, (unsigned)to_bits(w_));                                                               \
    } while (0)

/* The message st_open gives for a file of that header and data. */
static const char *open_fails(const char *name, const char *json, const void *data, size_t n) {
    static AvError err;
    memset(&err, 0, sizeof err);
    const char *path = write_st(name, json, data, n);
    SafeTensors *st = st_open(path, &err);
    if (st) fail_msg("%s opened", name);
    assert_null(strchr(err.msg, '\n'));
    return err.msg;
}

/* Asserts msg is "<dir>/<rest>". */
static void assert_msg(const char *msg, const char *rest) {
    char want[600];
    snprintf(want, sizeof want, "%s/%s", dir, rest);
    assert_string_equal(msg, want);
}

// ---------------------------------------------------------------------------
// a valid file

static const unsigned char F16_BITS[] = {
    0x00, 0x3C, /* 1.0 */
    0x00, 0xC0, /* -2.0 */
    0x01, 0x00, /* 2^-24, the smallest subnormal */
    0xFF, 0x03, /* 1023 * 2^-24, the largest subnormal */
    0xFF, 0x7B, /* 65504, the largest normal */
    0x00, 0x7C, /* +inf */
    0x00, 0xFC, /* -inf */
    0x00, 0x7E, /* NaN */
    0x00, 0x80, /* -0.0 */
    0x55, 0x35, /* 0.333251953125 */
};

static void test_valid_file(void **state) {
    (void)state;
    unsigned char data[50];
    float a32[4] = {1.5f, -0.25f, 1e-40f, 3.0e38f};
    memcpy(data, a32, 16); /* little-endian host */
    memcpy(data + 16, F16_BITS, 20);
    const unsigned char b16[12] = {0x80, 0x3F, 0x40, 0xC0, 0x49, 0x40, 0x80, 0x7F, 0x01, 0x00, 0xC0, 0x7F};
    memcpy(data + 36, b16, 12);
    data[48] = 0x80, data[49] = 0xBF; /* the scalar: bf16 -1.0 */
    /* 3 spaces of padding: the data starts at 8 + N, not a multiple of 4 */
    const char *json = "{\"__metadata__\":{\"format\":\"pt\",\"by\":\"test\"},"
                       "\"a32\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,16]},"
                       "\"b16\":{\"dtype\":\"BF16\",\"shape\":[6],\"data_offsets\":[36,48]},"
                       "\"h16\":{\"dtype\":\"F16\",\"shape\":[10],\"data_offsets\":[16,36]},"
                       "\"empty\":{\"dtype\":\"F32\",\"shape\":[0,3],\"data_offsets\":[48,48]},"
                       "\"s\":{\"dtype\":\"BF16\",\"shape\":[],\"data_offsets\":[48,50]}}   ";
    assert_true((8 + strlen(json)) % 4 != 0);
    const char *path = write_st("ok.safetensors", json, data, sizeof data);
    AvError err = {0};
    SafeTensors *st = st_open(path, &err);
    if (!st) fail_msg("%s", err.msg);
    assert_int_equal(st_count(st), 5);
    /* in data order */
    assert_string_equal(st_at(st, 0)->name, "a32");
    assert_string_equal(st_at(st, 1)->name, "h16");
    assert_string_equal(st_at(st, 2)->name, "b16");
    assert_null(st_at(st, 5));
    assert_null(st_at(st, -1));
    assert_string_equal(st_metadata(st, "format"), "pt");
    assert_string_equal(st_metadata(st, "by"), "test");
    assert_null(st_metadata(st, "a32"));
    assert_null(st_find(st, "__metadata__"));
    assert_null(st_find(st, "nope"));

    const StTensor *t = st_find(st, "a32");
    assert_non_null(t);
    assert_int_equal(t->dtype, ST_F32);
    assert_int_equal(t->ndim, 2);
    assert_int_equal(t->shape[0], 2);
    assert_int_equal(t->shape[1], 2);
    assert_int_equal(t->count, 4);
    assert_int_equal(t->bytes, 16);
    float out[10];
    st_to_f32(t, 0, 4, out);
    for (int i = 0; i < 4; i++) assert_same_float(out[i], a32[i]);
    st_to_f32(t, 2, 1, out);
    assert_same_float(out[0], 1e-40f);

    t = st_find(st, "h16");
    assert_int_equal(t->dtype, ST_F16);
    assert_int_equal(t->count, 10);
    st_to_f32(t, 0, 10, out);
    assert_same_float(out[0], 1.0f);
    assert_same_float(out[1], -2.0f);
    assert_same_float(out[2], 0x1p-24f);
    assert_same_float(out[3], 1023 * 0x1p-24f);
    assert_same_float(out[4], 65504.0f);
    assert_true(isinf(out[5]) && out[5] > 0);
    assert_true(isinf(out[6]) && out[6] < 0);
    assert_true(isnan(out[7]));
    assert_int_equal(to_bits(out[8]), 0x80000000u);
    assert_same_float(out[9], 0.333251953125f);

    t = st_find(st, "b16");
    assert_int_equal(t->dtype, ST_BF16);
    st_to_f32(t, 0, 6, out);
    assert_same_float(out[0], 1.0f);
    assert_same_float(out[1], -3.0f);
    assert_same_float(out[2], 3.140625f);
    assert_true(isinf(out[3]) && out[3] > 0);
    assert_int_equal(to_bits(out[4]), 0x00010000u); /* a subnormal f32 */
    assert_same_float(out[4], from_bits(0x00010000u));
    assert_true(isnan(out[5]));

    t = st_find(st, "empty");
    assert_int_equal(t->count, 0);
    assert_int_equal(t->bytes, 0);
    t = st_find(st, "s");
    assert_int_equal(t->ndim, 0);
    assert_int_equal(t->count, 1);
    st_to_f32(t, 0, 1, out);
    assert_same_float(out[0], -1.0f);
    assert_string_equal(st_dtype_name(ST_BF16), "BF16");
    assert_int_equal(st_dtype_size(ST_F32), 4);
    st_close(st);
    st_close(NULL);

    /* the same bytes in memory, and an empty header {} */
    unsigned char mem[8 + 2] = {2, 0, 0, 0, 0, 0, 0, 0, '{', '}'};
    st = st_open_mem(mem, sizeof mem, "mem", &err);
    assert_non_null(st);
    assert_int_equal(st_count(st), 0);
    st_close(st);
}

// ---------------------------------------------------------------------------
// every malformed header

static void test_bad_headers(void **state) {
    (void)state;
    unsigned char data[64] = {0};
    assert_msg(
        open_fails("range.safetensors", "{\"w\":{\"dtype\":\"F32\",\"shape\":[20],\"data_offsets\":[0,80]}}", data, 64),
        "range.safetensors: tensor w: data_offsets [0, 80) end past the data (64 bytes)");
    assert_msg(
        open_fails("order.safetensors", "{\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,4]}}", data, 64),
        "order.safetensors: tensor w: data_offsets [8, 4): the begin is after the end");
    assert_msg(open_fails("overlap.safetensors",
                          "{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]},"
                          "\"b\":{\"dtype\":\"F16\",\"shape\":[4],\"data_offsets\":[12,20]}}",
                          data, 64),
               "overlap.safetensors: tensor b: data_offsets [12, 20) overlap those of tensor a [0, 16)");
    assert_msg(
        open_fails("dtype.safetensors", "{\"w\":{\"dtype\":\"Q4\",\"shape\":[2],\"data_offsets\":[0,16]}}", data, 64),
        "dtype.safetensors: tensor w: dtype Q4 is not a safetensors type (F32, F16, BF16, F64, I64, ...)");
    assert_msg(
        open_fails("i64.safetensors", "{\"w\":{\"dtype\":\"I64\",\"shape\":[2],\"data_offsets\":[0,20]}}", data, 64),
        "i64.safetensors: tensor w: shape [2] is 2 I64 elements = 16 bytes, but data_offsets [0, 20) hold 20");
    assert_msg(
        open_fails("size.safetensors", "{\"w\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,20]}}", data, 64),
        "size.safetensors: tensor w: shape [2, 3] is 6 F32 elements = 24 bytes, but data_offsets [0, 20) hold "
        "20");
    assert_msg(open_fails("huge.safetensors",
                          "{\"w\":{\"dtype\":\"BF16\",\"shape\":[4294967296,4294967296,16],\"data_offsets\":[0,32]}}",
                          data, 64),
               "huge.safetensors: tensor w: shape [4294967296, 4294967296, 16] is more BF16 elements than the data "
               "holds, but data_offsets [0, 32) hold 32 bytes");
    assert_msg(
        open_fails("neg.safetensors", "{\"w\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,4]}}", data, 64),
        "neg.safetensors: tensor w: dimension 0 of the shape is not a non-negative integer");
    assert_msg(open_fails("dims.safetensors",
                          "{\"w\":{\"dtype\":\"F32\",\"shape\":[1,1,1,1,1,1,1,1,1],\"data_offsets\":[0,4]}}", data, 64),
               "dims.safetensors: tensor w: 9 dimensions, more than the limit of 8");
    assert_msg(open_fails("dup.safetensors",
                          "{\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
                          "\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}",
                          data, 64),
               "dup.safetensors: tensor w appears twice in the header");
    assert_msg(open_fails("json.safetensors", "{\"w\":{\"dtype\":\"F32\",", data, 64),
               "json.safetensors: the header is not valid JSON (at byte 19 of 20)");
    assert_msg(open_fails("array.safetensors", "[1,2]", data, 64),
               "array.safetensors: the header is an array, not a JSON object");
    assert_msg(open_fails("two.safetensors", "{} {}", data, 64),
               "two.safetensors: the header has more than one JSON value (byte 3 of 5)");
    assert_msg(open_fails("entry.safetensors", "{\"w\":[0]}", data, 64),
               "entry.safetensors: tensor w: the entry is an array, not an object");
    assert_msg(open_fails("nodtype.safetensors", "{\"w\":{\"shape\":[1],\"data_offsets\":[0,4]}}", data, 64),
               "nodtype.safetensors: tensor w: no dtype");
    assert_msg(
        open_fails("offs.safetensors", "{\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0.5,4]}}", data, 64),
        "offs.safetensors: tensor w: data_offsets is not two non-negative integers [begin, end]");
    assert_msg(open_fails("meta.safetensors", "{\"__metadata__\":{\"k\":1}}", data, 64),
               "meta.safetensors: __metadata__ k is a number, not a string");
    /* a name with an escape sequence is escaped in the message */
    assert_msg(open_fails("esc.safetensors", "{\"\\u001b[2J\":{\"dtype\":\"Q8\",\"shape\":[1],\"data_offsets\":[0,1]}}",
                          data, 64),
               "esc.safetensors: tensor \\x1B[2J: dtype Q8 is not a safetensors type (F32, F16, BF16, F64, I64, ...)");

    /* the header length */
    AvError err = {0};
    const char *path = write_raw("past.safetensors", 1000, "{}", NULL, 0);
    assert_null(st_open(path, &err));
    assert_msg(err.msg,
               "past.safetensors: the header length 1000 is past the end of the file (2 bytes after the length)");
    path = write_raw("short.safetensors", 0, "", "abc", 3);
    assert_null(st_open(path, &err));
    assert_msg(err.msg, "short.safetensors: the header is not valid JSON (at byte 0 of 0)");
    unsigned char five[5] = {0};
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(five, 1, 5, f), 5);
    fclose(f);
    assert_null(st_open(path, &err));
    assert_msg(err.msg, "short.safetensors: 5 bytes, too short for the 8-byte safetensors header length");
    /* a header of more than 100 MiB: a sparse file of that size */
    path = write_raw("big.safetensors", ST_MAX_HEADER + 1, "{", NULL, 0);
    assert_int_equal(truncate(path, (off_t)(8 + ST_MAX_HEADER + 1)), 0);
    assert_null(st_open(path, &err));
    assert_msg(err.msg, "big.safetensors: the header length 104857601 is more than the limit of 104857600");
    unlink(path);
    assert_null(st_open(dir, &err));
    char want[300];
    snprintf(want, sizeof want, "%s: is a directory, not a file", dir);
    assert_string_equal(err.msg, want);
    assert_null(st_open("/nonexistent/x.safetensors", &err));
    assert_string_equal(err.msg, "/nonexistent/x.safetensors: cannot open: No such file or directory");
}

// ---------------------------------------------------------------------------
// folders: one file, shards

static void mkfolder(char *out, size_t cap, const char *name) {
    snprintf(out, cap, "%s/%s", dir, name);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", out);
    assert_int_equal(system(cmd), 0);
}

static void write_text(const char *folder, const char *name, const char *text) {
    char path[300];
    snprintf(path, sizeof path, "%s/%s", folder, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* folder/name: one F32 tensor per entry of names (values 1, 2, ...). */
static void write_shard(const char *folder, const char *name, const char *t1, const char *t2) {
    char rel[300], json[300];
    snprintf(rel, sizeof rel, "%s/%s", folder + strlen(dir) + 1, name);
    float v[2] = {1, 2};
    if (t2)
        snprintf(json, sizeof json,
                 "{\"%s\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
                 "\"%s\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}",
                 t1, t2);
    else snprintf(json, sizeof json, "{\"%s\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", t1);
    write_st(rel, json, v, t2 ? 8 : 4);
}

static const char INDEX[] = "{\"metadata\":{\"total_size\":12},\"weight_map\":{\"a\":\"m-1.safetensors\","
                            "\"b\":\"m-1.safetensors\",\"c\":\"m-2.safetensors\"}}";

static void test_folders(void **state) {
    (void)state;
    char one[256], sh[256];
    AvError err = {0};
    mkfolder(one, sizeof one, "one");
    write_shard(one, "model.safetensors", "x", "y");
    StModel *m = st_open_dir(one, &err);
    if (!m) fail_msg("%s", err.msg);
    assert_int_equal(st_model_files(m), 1);
    assert_int_equal(st_model_count(m), 2);
    assert_string_equal(st_model_at(m, 1)->name, "y");
    float v;
    st_to_f32(st_model_find(m, "y"), 0, 1, &v);
    assert_same_float(v, 2.0f);
    st_model_close(m);
    st_model_close(NULL);

    mkfolder(sh, sizeof sh, "sharded");
    write_shard(sh, "m-1.safetensors", "a", "b");
    write_shard(sh, "m-2.safetensors", "c", NULL);
    write_text(sh, "model.safetensors.index.json", INDEX);
    m = st_open_dir(sh, &err);
    if (!m) fail_msg("%s", err.msg);
    assert_int_equal(st_model_files(m), 2);
    assert_int_equal(st_model_count(m), 3);
    st_to_f32(st_model_find(m, "c"), 0, 1, &v);
    assert_same_float(v, 1.0f);
    st_to_f32(st_model_find(m, "b"), 0, 1, &v);
    assert_same_float(v, 2.0f);
    assert_null(st_model_find(m, "d"));
    st_model_close(m);

    /* a tensor in two shards */
    write_shard(sh, "m-2.safetensors", "c", "a");
    assert_null(st_open_dir(sh, &err));
    assert_msg(err.msg, "sharded/model.safetensors.index.json: tensor a is in two shards, m-1.safetensors and "
                        "m-2.safetensors");
    /* a tensor not where the weight_map says */
    write_shard(sh, "m-2.safetensors", "b2", NULL);
    write_text(sh, "model.safetensors.index.json",
               "{\"weight_map\":{\"a\":\"m-1.safetensors\",\"b\":\"m-2.safetensors\"}}");
    assert_null(st_open_dir(sh, &err));
    assert_msg(err.msg, "sharded/model.safetensors.index.json: tensor b: the weight_map says shard m-2.safetensors, "
                        "but it is in m-1.safetensors");
    write_text(sh, "model.safetensors.index.json", "{\"weight_map\":{\"zz\":\"m-2.safetensors\"}}");
    assert_null(st_open_dir(sh, &err));
    assert_msg(err.msg, "sharded/model.safetensors.index.json: tensor zz: not in shard m-2.safetensors (nor in any "
                        "other)");
    /* a missing shard */
    write_text(sh, "model.safetensors.index.json",
               "{\"weight_map\":{\"a\":\"m-1.safetensors\",\"q\":\"m-3.safetensors\"}}");
    assert_null(st_open_dir(sh, &err));
    assert_msg(err.msg, "sharded/model.safetensors.index.json: shard m-3.safetensors is missing");
    /* a shard outside the folder */
    write_text(sh, "model.safetensors.index.json", "{\"weight_map\":{\"a\":\"../one/model.safetensors\"}}");
    assert_null(st_open_dir(sh, &err));
    assert_msg(err.msg, "sharded/model.safetensors.index.json: tensor a: shard \"../one/model.safetensors\" is not a "
                        "file name in the folder");
    write_text(sh, "model.safetensors.index.json", "{\"weight\":{}}");
    assert_null(st_open_dir(sh, &err));
    assert_msg(err.msg, "sharded/model.safetensors.index.json: no \"weight_map\" object");
    write_text(sh, "model.safetensors.index.json", "{\"weight_map\":");
    assert_null(st_open_dir(sh, &err));
    assert_msg(err.msg, "sharded/model.safetensors.index.json: not valid JSON");
    /* a bad shard: its own message */
    write_text(sh, "model.safetensors.index.json", "{\"weight_map\":{\"a\":\"m-1.safetensors\"}}");
    write_st("sharded/m-1.safetensors", "{\"a\":{\"dtype\":\"F63\",\"shape\":[1],\"data_offsets\":[0,8]}}", &v, 4);
    assert_null(st_open_dir(sh, &err));
    assert_msg(err.msg, "sharded/m-1.safetensors: tensor a: dtype F63 is not a safetensors type (F32, F16, BF16, F64, "
                        "I64, ...)");

    char none[256];
    mkfolder(none, sizeof none, "none");
    assert_null(st_open_dir(none, &err));
    assert_msg(err.msg, "none: neither model.safetensors nor model.safetensors.index.json is there");
}

// ---------------------------------------------------------------------------
// NumPy (optional): tests/verify_safetensors.py writes by the specification

static const char *numpy_python(void) {
    static const char *const pythons[] = {"/usr/bin/python3", "python3"};
    for (size_t i = 0; i < 2; i++) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "%s -c 'import numpy' >/dev/null 2>&1", pythons[i]);
        if (system(cmd) == 0) return pythons[i];
    }
    need_missing("python3 with numpy not found (tests/verify_safetensors.py; apt-get install python3-numpy)");
    return NULL;
}

/* Every tensor of expected.txt ("name count" lines, their floats in order in
 * expected.f32) read from m must be NumPy's floats. */
static void assert_matches_numpy(const StModel *m, const char *folder) {
    char path[300];
    snprintf(path, sizeof path, "%s/expected.txt", folder);
    FILE *names = fopen(path, "r");
    assert_non_null(names);
    snprintf(path, sizeof path, "%s/expected.f32", folder);
    FILE *vals = fopen(path, "rb");
    assert_non_null(vals);
    char name[128];
    unsigned long count;
    int tensors = 0;
    while (fscanf(names, "%127s %lu", name, &count) == 2) {
        const StTensor *t = st_model_find(m, name);
        if (!t) fail_msg("tensor %s not found", name);
        assert_int_equal(t->count, count);
        float *want = malloc(sizeof(float) * (count + 1)), *got = malloc(sizeof(float) * (count + 1));
        assert_non_null(want);
        assert_non_null(got);
        assert_int_equal(fread(want, sizeof(float), count, vals), count);
        st_to_f32(t, 0, count, got);
        for (unsigned long i = 0; i < count; i++) assert_same_float(got[i], want[i]);
        free(want);
        free(got);
        tensors++;
    }
    assert_int_equal(tensors, st_model_count(m));
    fclose(names);
    fclose(vals);
}

static void test_numpy_reference(void **state) {
    (void)state;
    const char *python = numpy_python();
    if (!python) return;
    char one[256], sh[256], cmd[700];
    mkfolder(one, sizeof one, "np-one");
    mkfolder(sh, sizeof sh, "np-sharded");
    snprintf(cmd, sizeof cmd, "%s tests/verify_safetensors.py '%s' '%s'", python, one, sh);
    assert_int_equal(system(cmd), 0);
    AvError err = {0};
    StModel *m = st_open_dir(one, &err);
    if (!m) fail_msg("%s", err.msg);
    assert_matches_numpy(m, one);
    st_model_close(m);
    m = st_open_dir(sh, &err);
    if (!m) fail_msg("%s", err.msg);
    assert_int_equal(st_model_files(m), 2);
    assert_matches_numpy(m, sh);
    st_model_close(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_file),
        cmocka_unit_test(test_bad_headers),
        cmocka_unit_test(test_folders),
        cmocka_unit_test(test_numpy_reference),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
