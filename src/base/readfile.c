/* readfile.c - see readfile.h. */
#define _POSIX_C_SOURCE 200809L
#include "readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomicfile.h"
#include "i18n.h"

/* Opens a named file for reading without ever blocking: a FIFO with no
 * writer would hang open() (and a FIFO, a device or a socket could hang the
 * reads), so O_NONBLOCK opens it and fstat refuses anything but a regular
 * file before the first read; then reads block as usual. */
static FILE *open_regular(const char *path, int stdin_hint, AvError *err) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) return av_errorf(err, _("%s: cannot open: %s"), path, strerror(errno)), NULL;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int saved = errno;
        close(fd);
        return av_errorf(err, _("%s: cannot open: %s"), path, strerror(saved)), NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        if (S_ISDIR(st.st_mode)) return av_errorf(err, _("%s: is a directory, not a file"), path), NULL;
        return av_errorf(err, _("%s: not a regular file (%s)%s"), path, av_file_type_name((unsigned)st.st_mode),
                         stdin_hint ? _("; use '-' to read standard input") : ""),
               NULL;
    }
    int flags = fcntl(fd, F_GETFL);
    FILE *f = flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0 ? NULL : fdopen(fd, "rb");
    if (!f) {
        int saved = errno;
        close(fd);
        return av_errorf(err, _("%s: cannot open: %s"), path, strerror(saved)), NULL;
    }
    return f;
}

static int read_all(const char *path, size_t max, int stdin_hint, char **out, size_t *len, AvError *err) {
    *out = NULL;
    *len = 0;
    int is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : open_regular(path, stdin_hint, err);
    if (!f) return -1;
    if (is_stdin) path = _("standard input"); /* what the messages below call it */

    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        if (!is_stdin) fclose(f);
        return av_error_nomem(err, _("%s: out of memory"), path);
    }
    for (;;) {
        if (n + 1 >= cap) {
            size_t ncap = cap * 2;
            char *nb = realloc(buf, ncap);
            if (!nb) {
                free(buf);
                if (!is_stdin) fclose(f);
                return av_error_nomem(err, _("%s: out of memory"), path);
            }
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + n, 1, cap - 1 - n, f);
        n += got;
        if (n > max) {
            free(buf);
            if (!is_stdin) fclose(f);
            return av_errorf(err, _("%s: larger than the limit of %zu bytes"), path, max);
        }
        if (got == 0) break;
    }
    int failed = ferror(f);
    int saved = errno;
    if (!is_stdin) fclose(f);
    if (failed) {
        free(buf);
        return av_errorf(err, _("%s: read error: %s"), path, strerror(saved));
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return 0;
}

int av_read_file(const char *path, size_t max, char **out, size_t *len, AvError *err) {
    return read_all(path, max, 0, out, len, err);
}

int av_read_text(const char *path, size_t max, int stdin_ok, char **out, size_t *len, AvError *err) {
    if (read_all(path, max, stdin_ok, out, len, err)) return -1;
    /* A UTF-8 byte order mark (Notepad writes one) is not text. */
    if (*len >= 3 && memcmp(*out, "\xEF\xBB\xBF", 3) == 0) {
        memmove(*out, *out + 3, *len - 3 + 1);
        *len -= 3;
    }
    return 0;
}

int av_read_file_if_exists(const char *path, size_t max, char **out, size_t *len, AvError *err) {
    *out = NULL;
    *len = 0;
    if (strcmp(path, "-") != 0) {
        struct stat st;
        if (lstat(path, &st) != 0) {
            if (errno == ENOENT) return 0;
            return av_errorf(err, "%s: %s", path, strerror(errno));
        }
        if (S_ISLNK(st.st_mode) && stat(path, &st) != 0) {
            if (errno == ENOENT) return av_errorf(err, _("%s: a symbolic link to a file that does not exist"), path);
            return av_errorf(err, "%s: %s", path, strerror(errno));
        }
    }
    return av_read_text(path, max, 1, out, len, err);
}
