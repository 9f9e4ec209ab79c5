/* loadwatch.h - q and the quit signals while attnviz loads, before the
 * interactive view has the terminal.
 *
 * Opening a big checkpoint or a safetensors header of a million tensors takes
 * seconds; the terminal is still in its line mode then, so a q typed meanwhile
 * waited for the first frame. While the watch runs, the terminal reads keys
 * one by one without echo (signals stay on): a q asks the loaders to stop
 * (cancel.h) and attnviz quits at once, status 0 (if a loader is inside a
 * step that cannot stop, within LOADWATCH_GRACE_MS all the same, the
 * terminal's modes put back first); Ctrl-C, SIGTERM, SIGHUP and SIGQUIT put
 * the modes back and end attnviz as they would have. The other keys typed
 * meanwhile are kept for the first frame (loadwatch_typeahead). */
#ifndef ATTNVIZ_LOADWATCH_H
#define ATTNVIZ_LOADWATCH_H

#include <stddef.h>

#define LOADWATCH_GRACE_MS 300

/* Starts the watch when standard input and output are terminals (else does
 * nothing). */
void loadwatch_start(void);

/* Ends the watch, the terminal's modes as they were. Returns 1 when q was
 * typed (the caller quits, status 0), else 0. */
int loadwatch_stop(void);

/* The bytes typed during the watch (not the q that quits), *len of them, as
 * the terminal sent them (escape sequences and all). Valid until the next
 * loadwatch_start. */
const char *loadwatch_typeahead(size_t *len);

#endif
