/* error.h - the one error type of the core.
 *
 * Nothing in src/ prints or exits: a function that can fail takes an AvError *
 * (which may be NULL), fills its message and returns -1. The caller decides
 * where the message goes (stderr after endwin, the TUI status line, a test). */
#ifndef ATTNVIZ_ERROR_H
#define ATTNVIZ_ERROR_H

#include <stddef.h>

#define AV_ERR_MAX 512

typedef struct {
    char msg[AV_ERR_MAX]; /* one line, no trailing newline */
} AvError;

/* Formats the message into err (if not NULL) and returns -1, so that
 * `return av_errorf(err, "...", ...);` reads naturally. */
int av_errorf(AvError *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Prefixes an existing message: "prefix: old message". Returns -1. */
int av_error_prefix(AvError *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif
