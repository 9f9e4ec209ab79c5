/* error.c - see error.h. */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int error_v(AvError *err, AvErrorKind kind, const char *fmt, va_list ap) {
    if (err) {
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        err->kind = kind;
    }
    return -1;
}

int av_errorf(AvError *err, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    error_v(err, AV_ERR_INPUT, fmt, ap);
    va_end(ap);
    return -1;
}

int av_error_nomem(AvError *err, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    error_v(err, AV_ERR_NOMEM, fmt, ap);
    va_end(ap);
    return -1;
}

int av_error_io(AvError *err, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    error_v(err, AV_ERR_IO, fmt, ap);
    va_end(ap);
    return -1;
}

int av_error_exit_status(const AvError *err) { return err && err->kind != AV_ERR_INPUT ? 1 : 2; }

int av_error_prefix(AvError *err, const char *fmt, ...) {
    if (!err) return -1;
    char prefix[AV_ERR_MAX], old[AV_ERR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    memcpy(old, err->msg, sizeof old);
    /* Truncation of an over-long message is acceptable; build it by parts so
     * the compiler can see that. */
    size_t n = strlen(prefix);
    if (n > sizeof err->msg - 3) n = sizeof err->msg - 3;
    memcpy(err->msg, prefix, n);
    memcpy(err->msg + n, ": ", 2);
    size_t rest = sizeof err->msg - n - 3, olen = strlen(old);
    if (olen > rest) olen = rest;
    memcpy(err->msg + n + 2, old, olen);
    err->msg[n + 2 + olen] = '\0';
    return -1;
}
