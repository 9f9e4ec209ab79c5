/* atomicfile.h - replace a file all at once: readers (and a full disk) see the
 * old content or the new one, never a truncated mix. */
#ifndef ATTNVIZ_ATOMICFILE_H
#define ATTNVIZ_ATOMICFILE_H

#include <stddef.h>

#include "error.h"

/* Writes data (len bytes) as the new content of `path`:
 *   - a temporary file is made in the target's directory (mkstemp), written
 *     in full, fsync'ed, given the old file's mode (0666 & ~umask for a new
 *     file) and renamed over the target; then the directory is fsync'ed;
 *   - a symbolic link to a regular file is followed: its final target is
 *     replaced and the link stays;
 *   - a dangling symbolic link, a directory, a FIFO, a device or a socket is
 *     refused before anything is created (a FIFO would block an open);
 *   - "-" (standard input) is not a file and is refused.
 * On any failure the temporary file is removed, the old file is untouched,
 * and err says which path and why (strerror). Returns 0 or -1. */
int av_write_file_atomic(const char *path, const void *data, size_t len, AvError *err);

/* The name of a file type for messages: "a FIFO", "a directory", ... */
const char *av_file_type_name(unsigned mode);

#endif
