/* fuzz_stindex.c - libFuzzer target for a sharded checkpoint's index
 * (model.safetensors.index.json, st_open_dir in src/formats/safetensors.h).
 *
 * A folder made once per process holds three valid shards: m-1.safetensors
 * (tensors a, b), m-2.safetensors (c) and "s\x1b[2J.safetensors" (d, a name
 * with an escape sequence). Each input is written as the folder's index and
 * the folder opened.
 *
 * Failure: NULL and one terminal-safe line. Success, checked from the files
 * and not from safetensors.c: every tensor the model holds is one of a, b,
 * c, d, found by st_model_find, and in the shard that holds it; every shard
 * opened is one the index names (1 to 3 of them); each tensor's one F32
 * value is the one written. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "safetensors.h"

static char dir[64];

static const struct {
    const char *tensor, *file;
    float value;
} held[] = {{"a", "m-1.safetensors", 1.5f},
            {"b", "m-1.safetensors", -2.0f},
            {"c", "m-2.safetensors", 3.25f},
            {"d", "s\x1b[2J.safetensors", 7.0f}};
enum { N_HELD = 4 };

static void write_file(const char *name, const void *p, size_t n) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    FUZZ_CHECK(f && fwrite(p, 1, n, f) == n && fclose(f) == 0, "cannot write %s", path);
}

/* A shard of the tensors held[] puts in `file`: one F32 each. */
static void write_shard(const char *file) {
    char json[512] = "{";
    float vals[N_HELD];
    int k = 0;
    for (int i = 0; i < N_HELD; i++) {
        if (strcmp(held[i].file, file)) continue;
        snprintf(json + strlen(json), sizeof json - strlen(json),
                 "%s\"%s\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[%d,%d]}", k ? "," : "", held[i].tensor,
                 4 * k, 4 * k + 4);
        vals[k++] = held[i].value;
    }
    strcat(json, "}");
    size_t h = strlen(json);
    unsigned char buf[1024];
    for (int i = 0; i < 8; i++) buf[i] = (unsigned char)((uint64_t)h >> (8 * i));
    memcpy(buf + 8, json, h);
    memcpy(buf + 8 + h, vals, 4 * (size_t)k); /* little-endian hosts (x86-64, arm64) */
    write_file(file, buf, 8 + h + 4 * (size_t)k);
}

/* The folder goes when the process ends (libFuzzer exits through exit()). */
static void cleanup(void) {
    const char *names[] = {"m-1.safetensors", "m-2.safetensors", "s\x1b[2J.safetensors",
                           "model.safetensors.index.json"};
    char path[256];
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
}

static void setup(void) {
    if (dir[0]) return;
    snprintf(dir, sizeof dir, "/tmp/attnviz-fuzz-stindex.XXXXXX");
    FUZZ_CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    write_shard("m-1.safetensors");
    write_shard("m-2.safetensors");
    write_shard("s\x1b[2J.safetensors");
    atexit(cleanup);
}

static void check_message(const AvError *err) {
    size_t n = fuzz_msg_len(err->msg, sizeof err->msg);
    FUZZ_CHECK(n > 0, "failure without a message");
    long bad = fuzz_first_unsafe(err->msg, n, NULL);
    if (bad >= 0) fuzz_dump("message", err->msg, n);
    FUZZ_CHECK(bad < 0, "message has an unsafe byte at %ld", bad);
}

FUZZ_NO_COVERAGE static void check_model(const StModel *m) {
    int n = st_model_count(m), files = st_model_files(m);
    FUZZ_CHECK(files >= 1 && files <= 3, "%d shards opened", files);
    FUZZ_CHECK(n >= 1 && n <= N_HELD, "%d tensors", n);
    for (int i = 0; i < n; i++) {
        const StTensor *t = st_model_at(m, i);
        FUZZ_CHECK(t && t->name, "tensor %d", i);
        int k = -1;
        for (int j = 0; j < N_HELD; j++)
            if (strcmp(t->name, held[j].tensor) == 0) k = j;
        FUZZ_CHECK(k >= 0, "tensor %d is none of the shards'", i);
        FUZZ_CHECK(st_model_find(m, t->name) == t, "st_model_find(%s) is another", t->name);
        const char *f = st_model_file_of(m, t->name);
        FUZZ_CHECK(f != NULL, "no shard for %s", t->name);
        float v;
        st_to_f32(t, 0, 1, &v);
        FUZZ_CHECK(v == held[k].value, "tensor %s: %g, not %g", t->name, (double)v, (double)held[k].value);
    }
    FUZZ_CHECK(st_model_find(m, "e") == NULL, "a tensor no shard holds");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    setup();
    write_file("model.safetensors.index.json", data, size);
    AvError err = {0};
    StModel *m = st_open_dir(dir, &err);
    if (!m) check_message(&err);
    else check_model(m);
    st_model_close(m);
    return 0;
}
