/* readfile.h - read a whole user-supplied file into memory, with a size limit. */
#ifndef ATTNVIZ_READFILE_H
#define ATTNVIZ_READFILE_H

#include <stddef.h>

#include "error.h"

/* Largest input attnviz reads: a sentence file, a Q/K/V file or a mask file. */
#define AV_MAX_INPUT_BYTES ((size_t)1 << 20) /* 1 MiB */

/* Reads all of `path` ("-" is standard input) into a new NUL-terminated
 * buffer. On success *out (caller frees with free()) and *len are set and 0 is
 * returned. Fails with a message naming the path for: a file that cannot be
 * opened or read, anything but a regular file (a directory, a FIFO, a device:
 * refused at once, never waited on), and more than `max` bytes. */
int av_read_file(const char *path, size_t max, char **out, size_t *len, AvError *err);

/* The same for a text file: a leading UTF-8 byte order mark is dropped, and
 * with stdin_ok (an option that takes '-') a FIFO or device is refused with
 * "; use '-' to read standard input". */
int av_read_text(const char *path, size_t max, int stdin_ok, char **out, size_t *len, AvError *err);

/* The same (av_read_text, '-' taken) for a text file that may not exist yet (the painted mask, which W
 * creates): only "no such file" (ENOENT on the path itself) returns 0 with
 * *out NULL. A dangling symbolic link, a loop of links, a path through a
 * file (ENOTDIR), permission denied... are errors with their reason. */
int av_read_file_if_exists(const char *path, size_t max, char **out, size_t *len, AvError *err);

#endif
