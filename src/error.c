/* error.c - see error.h. */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int av_errorf(AvError *err, const char *fmt, ...) {
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return -1;
}

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
