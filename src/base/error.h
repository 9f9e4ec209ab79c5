/* error.h - the one error type of the core.
 *
 * Nothing in src/ prints or exits: a function that can fail takes an AvError *
 * (which may be NULL), fills its message and returns -1. The caller decides
 * where the message goes (stderr after endwin, the TUI status line, a test). */
#ifndef ATTNVIZ_ERROR_H
#define ATTNVIZ_ERROR_H

#include <stddef.h>

#define AV_ERR_MAX 512

/* Initialize with AvError err = {0}. */

/* What kind of failure: bad input (the user can fix the command, the file or
 * the sentence, an unreadable input file included: exit 2) or the machine's
 * (memory, a write that failed: exit 1). */
typedef enum { AV_ERR_INPUT = 0, AV_ERR_NOMEM, AV_ERR_IO } AvErrorKind;

typedef struct {
    char msg[AV_ERR_MAX]; /* one line, no trailing newline */
    AvErrorKind kind;     /* AV_ERR_INPUT unless said otherwise */
} AvError;

/* Formats the message into err (if not NULL) and returns -1, so that
 * `return av_errorf(err, "...", ...);` reads naturally. */
int av_errorf(AvError *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The same for running out of memory and for a read or write that failed:
 * the kind says so (av_errorf's is AV_ERR_INPUT). */
int av_error_nomem(AvError *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
int av_error_io(AvError *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The command line's exit status for err: 2 for bad input, 1 otherwise. */
int av_error_exit_status(const AvError *err);

/* Prefixes an existing message (its kind stays): "prefix: old message". Returns -1. */
int av_error_prefix(AvError *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif
