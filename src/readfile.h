/* readfile.h - read a whole user-supplied file into memory, with a size limit. */
#ifndef ATTNVIZ_READFILE_H
#define ATTNVIZ_READFILE_H

#include <stddef.h>

#include "error.h"

/* Largest input attnviz reads: a sentence file or a Q/K/V file. */
#define AV_MAX_INPUT_BYTES ((size_t)1 << 20) /* 1 MiB */

/* Reads all of `path` ("-" is standard input) into a new NUL-terminated
 * buffer. On success *out (caller frees with free()) and *len are set and 0 is
 * returned. Fails with a message naming the path for: a directory, a file that
 * cannot be opened or read, and more than `max` bytes. */
int av_read_file(const char *path, size_t max, char **out, size_t *len, AvError *err);

#endif
