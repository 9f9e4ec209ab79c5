/* cancel.h - a request to stop the work under way.
 *
 * The front end sets it (from its input thread or a signal handler) when the
 * user quits during a long recompute; the long loops of the core (tokenizing,
 * the forward pass, PCA) poll it at block boundaries and return early. Work
 * that stopped leaves its stages stale: nothing half computed is taken as
 * current. It is a flag, not a queue: av_cancel_clear() before new work. */
#ifndef ATTNVIZ_CANCEL_H
#define ATTNVIZ_CANCEL_H

#include <signal.h>

/* sig_atomic_t so that a signal handler may set it; volatile reads are enough
 * for a flag polled by other threads (a late read costs one block of work). */
extern volatile sig_atomic_t av_cancel_flag;

static inline void av_cancel_request(void) { av_cancel_flag = 1; }
static inline void av_cancel_clear(void) { av_cancel_flag = 0; }
static inline int av_cancelled(void) { return av_cancel_flag != 0; }

#endif
