/* filemap.h - model files mapped read-only, and watched while in use.
 *
 * A mapped file that another program truncates in place (llama2.c's
 * export.py and cp both rewrite the file they write) turns the next read of
 * a page past its new end into SIGBUS. Two guards:
 *   - filemap_check, before a recompute: each mapped file (through the
 *     descriptor kept open, so a file replaced by rename is not ours to
 *     mind) still has the size and modification time it had when mapped;
 *     else one line "FILE: the model file changed while in use (...)".
 *   - filemap_name_at, in the front end's SIGBUS handler: the name of the
 *     mapped file a faulting address lies in, read without locks or
 *     allocation (async-signal-safe), so the handler can say the same line
 *     for a change that came during a recompute.
 * The registry holds FILEMAP_MAX mappings; past that a mapping works but is
 * not watched. */
#ifndef ATTNVIZ_FILEMAP_H
#define ATTNVIZ_FILEMAP_H

#include <stddef.h>

#include "error.h"

#define FILEMAP_MAX      1024
#define FILEMAP_NAME_MAX 256 /* the escaped name kept for messages */

/* The phrase every report of a changed model file carries (in English: the
 * fault handler cannot translate; filemap_check's messages spell it out so
 * that xgettext sees whole sentences). */

#define FILEMAP_CHANGED "the model file changed while in use"

/* Opens `path` without ever blocking (a FIFO would hang open), refuses
 * anything but a regular file (a directory, a FIFO, a device: said so) and a
 * file shorter than `min` bytes ("FILE: N bytes, too short for <what>"),
 * maps it read-only and watches it. Returns the mapping (*len its length;
 * free with filemap_close), or NULL with one line naming the file (escaped). */
const void *filemap_open(const char *path, size_t min, const char *what, size_t *len, AvError *err);

/* Unmaps and stops watching (NULL is a no-op). */
void filemap_close(const void *map, size_t len);

/* 0 when every watched file is as it was when mapped, else -1 with
 * "FILE: the model file changed while in use (now N bytes, M when opened)"
 * (or "(rewritten: modified since it was opened)") for the first that is not. */
int filemap_check(AvError *err);

/* The escaped name of the watched file whose mapping holds addr, or NULL.
 * Async-signal-safe. */
const char *filemap_name_at(const void *addr);

#endif
