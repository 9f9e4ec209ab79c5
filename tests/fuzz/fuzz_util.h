/* fuzz_util.h - shared checks of the libFuzzer targets in tests/fuzz/.
 *
 * A violated invariant prints what was wrong and aborts, so libFuzzer keeps
 * the input as a crash (crash-<sha1>) exactly as it does for a sanitizer
 * report. Header-only: every target is one .c file plus the project objects. */
#ifndef ATTNVIZ_FUZZ_UTIL_H
#define ATTNVIZ_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_CHECK(cond, ...)                                                                                          \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "\n==fuzz== invariant failed at %s:%d: %s\n==fuzz== ", __FILE__, __LINE__, #cond);         \
            fprintf(stderr, __VA_ARGS__);                                                                              \
            fputc('\n', stderr);                                                                                       \
            abort();                                                                                                   \
        }                                                                                                              \
    } while (0)

/* Checking code is built without coverage: its branches are the invariants
 * (a failing one aborts), which teach the fuzzer nothing, and fuzz_keys scans
 * every rendered frame with it (instrumented, a fifth of its time). */
#define FUZZ_NO_COVERAGE __attribute__((no_sanitize("coverage"), noinline))

/* Offset of the first byte of s[0..len) that a terminal would act on: a C0
 * control (except those in `allowed`), DEL, or a C1 control in its UTF-8 form
 * (0xC2 0x80..0x9F: U+009B is CSI). -1 when there is none. */
FUZZ_NO_COVERAGE static inline long fuzz_first_unsafe(const char *s, size_t len, const char *allowed) {
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < len; i++) {
        if ((u[i] < 0x20 && !(u[i] && allowed && strchr(allowed, u[i]))) || u[i] == 0x7F) return (long)i;
        if (u[i] == 0xC2 && i + 1 < len && u[i + 1] >= 0x80 && u[i + 1] <= 0x9F) return (long)i;
    }
    return -1;
}

/* Prints s[0..len) with every byte outside printable ASCII as \xNN (for the
 * report of a failed check: never write the offending bytes raw). */
static inline void fuzz_dump(const char *what, const char *s, size_t len) {
    fprintf(stderr, "==fuzz== %s (%zu bytes): \"", what, len);
    for (size_t i = 0; i < len && i < 2048; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7F && c != '\\' && c != '"') fputc(c, stderr);
        else fprintf(stderr, "\\x%02X", c);
    }
    fprintf(stderr, "%s\"\n", len > 2048 ? "..." : "");
}

/* An AvError message must be NUL-terminated inside its buffer; returns its length. */
static inline size_t fuzz_msg_len(const char *msg, size_t cap) {
    const char *nul = memchr(msg, '\0', cap);
    FUZZ_CHECK(nul != NULL, "error message is not NUL-terminated within %zu bytes", cap);
    return (size_t)(nul - msg);
}

#endif
