/* fuzz_safetensors.c - libFuzzer target for the safetensors reader
 * (src/formats/safetensors.h).
 *
 * Byte 0 picks the mode. Even: the rest is the file, opened from an
 * exact-size heap copy (st_open_mem) under a name with an escape sequence.
 * Odd: byte 1 times 4 is the data length, the rest the JSON header; the
 * file is built around them (the u64 length, then the header, then data
 * bytes 0, 1, 2, ...), so that random headers meet a consistent length.
 *
 * Failure: NULL and one terminal-safe line. Success, checked from the
 * format and not from safetensors.c: every tensor's dtype is one of the
 * format's fifteen, ndim <= 8, the product of its shape its count, count times the
 * dtype size its bytes, its data inside the file's data part; st_at in
 * order of begin, the non-empty ranges disjoint; st_find finds each by its
 * name (so names are unique); for the three float types st_to_f32 of up
 * to 4096 elements gives the conversion written again below (F32 bit for
 * bit, F16 by ldexp, BF16 as the high half). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "safetensors.h"

static const char FUZZ_NAME[] = "st\x1b[31m\xc2\x9b"
                                "2J.safetensors";

static void check_message(const AvError *err) {
    size_t n = fuzz_msg_len(err->msg, sizeof err->msg);
    FUZZ_CHECK(n > 0, "failure without a message");
    long bad = fuzz_first_unsafe(err->msg, n, NULL);
    if (bad >= 0) fuzz_dump("message", err->msg, n);
    FUZZ_CHECK(bad < 0, "message has an unsafe byte at %ld", bad);
}

FUZZ_NO_COVERAGE static float f16_reference(unsigned h) {
    int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    float v;
    if (e == 31) v = m ? NAN : INFINITY;
    else if (e == 0) v = ldexpf((float)m, -24);
    else v = ldexpf((float)(1024 + m), e - 25);
    return s ? -v : v;
}

FUZZ_NO_COVERAGE static void check_values(const StTensor *t) {
    size_t n = t->count < 4096 ? (size_t)t->count : 4096;
    float out[4096];
    st_to_f32(t, 0, n, out);
    for (size_t i = 0; i < n; i++) {
        const unsigned char *p = t->data + i * st_dtype_size(t->dtype);
        uint32_t u, got;
        memcpy(&got, &out[i], 4);
        if (t->dtype == ST_F32) {
            u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
            FUZZ_CHECK(got == u, "F32 element %zu: 0x%08X, not 0x%08X", i, got, u);
        } else if (t->dtype == ST_BF16) {
            u = ((uint32_t)p[0] | (uint32_t)p[1] << 8) << 16;
            FUZZ_CHECK(got == u, "BF16 element %zu: 0x%08X, not 0x%08X", i, got, u);
        } else {
            float want = f16_reference((unsigned)(p[0] | p[1] << 8));
            uint32_t w;
            memcpy(&w, &want, 4);
            FUZZ_CHECK(isnan(want) ? isnan(out[i]) && (got >> 31) == (w >> 31) : got == w,
                       "F16 element %zu: 0x%08X, not 0x%08X", i, got, w);
        }
    }
}

FUZZ_NO_COVERAGE static void check_file(const SafeTensors *st, const unsigned char *buf, size_t size) {
    uint64_t hlen = 0;
    for (int i = 7; i >= 0; i--) hlen = hlen << 8 | buf[i];
    FUZZ_CHECK(hlen <= size - 8 && hlen <= ST_MAX_HEADER, "header length %llu accepted", (unsigned long long)hlen);
    const unsigned char *data = buf + 8 + hlen, *end = buf + size;
    int n = st_count(st);
    FUZZ_CHECK(n >= 0 && st_at(st, n) == NULL && st_at(st, -1) == NULL, "count %d", n);
    const StTensor *prev = NULL;
    for (int i = 0; i < n; i++) {
        const StTensor *t = st_at(st, i);
        FUZZ_CHECK(t && t->name, "tensor %d", i);
        FUZZ_CHECK((unsigned)t->dtype <= ST_F8_E5M2 && t->ndim >= 0 && t->ndim <= ST_MAX_DIMS, "dtype %d ndim %d",
                   (int)t->dtype, t->ndim);
        unsigned __int128 count = 1;
        for (int d = 0; d < t->ndim; d++) {
            count *= t->shape[d];
            if (count > (unsigned __int128)size) count = (unsigned __int128)size + 1; /* stays above */
        }
        FUZZ_CHECK(count == t->count, "tensor %d: shape product is not its count", i);
        FUZZ_CHECK(t->count * st_dtype_size(t->dtype) == t->bytes, "tensor %d: bytes", i);
        FUZZ_CHECK(t->data == data + t->begin && t->bytes <= (size_t)(end - t->data), "tensor %d: data outside", i);
        if (prev) FUZZ_CHECK(prev->begin <= t->begin, "st_at is not in order of begin");
        prev = t;
        FUZZ_CHECK(st_find(st, t->name) == t, "st_find(%d) is another tensor", i);
        if (st_is_float(t->dtype)) check_values(t);
    }
    /* the non-empty ranges are disjoint */
    uint64_t reach = 0;
    for (int i = 0; i < n; i++) {
        const StTensor *t = st_at(st, i);
        if (!t->bytes) continue;
        FUZZ_CHECK(t->begin >= reach, "tensor %d overlaps an earlier one", i);
        reach = t->begin + t->bytes;
    }
    FUZZ_CHECK(st_find(st, "__metadata__") == NULL, "__metadata__ is a tensor");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2) return 0;
    int built = data[0] & 1;
    data++, size--;
    unsigned char *buf;
    size_t len;
    if (built) {
        size_t data_len = (size_t)data[0] * 4, json = size - 1;
        len = 8 + json + data_len;
        buf = malloc(len);
        FUZZ_CHECK(buf != NULL, "out of memory");
        for (int i = 0; i < 8; i++) buf[i] = (unsigned char)((uint64_t)json >> (8 * i));
        memcpy(buf + 8, data + 1, json);
        for (size_t i = 0; i < data_len; i++) buf[8 + json + i] = (unsigned char)i;
    } else {
        len = size;
        buf = malloc(len);
        FUZZ_CHECK(buf != NULL, "out of memory");
        memcpy(buf, data, len);
    }
    AvError err = {0};
    SafeTensors *st = st_open_mem(buf, len, FUZZ_NAME, &err);
    if (!st) check_message(&err);
    else check_file(st, buf, len);
    st_close(st);
    free(buf);
    return 0;
}
