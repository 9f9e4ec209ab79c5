/* readfile.c - see readfile.h. */
#define _POSIX_C_SOURCE 200809L
#include "readfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int av_read_file(const char *path, size_t max, char **out, size_t *len, AvError *err) {
    *out = NULL;
    *len = 0;
    int is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (is_stdin) path = "standard input"; /* what the messages below call it */
    if (!f) return av_errorf(err, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        if (!is_stdin) fclose(f);
        return av_errorf(err, "%s: is a directory, not a file", path);
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        if (!is_stdin) fclose(f);
        return av_errorf(err, "%s: out of memory", path);
    }
    for (;;) {
        if (n + 1 >= cap) {
            size_t ncap = cap * 2;
            char *nb = realloc(buf, ncap);
            if (!nb) {
                free(buf);
                if (!is_stdin) fclose(f);
                return av_errorf(err, "%s: out of memory", path);
            }
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + n, 1, cap - 1 - n, f);
        n += got;
        if (n > max) {
            free(buf);
            if (!is_stdin) fclose(f);
            return av_errorf(err, "%s: larger than the limit of %zu bytes", path, max);
        }
        if (got == 0) break;
    }
    int failed = ferror(f);
    int saved = errno;
    if (!is_stdin) fclose(f);
    if (failed) {
        free(buf);
        return av_errorf(err, "%s: read error: %s", path, strerror(saved));
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return 0;
}
