/* cancel.h - a request to stop the work under way.
 *
 * The front end sets it (from its input thread or a signal handler) when the
 * user quits during a long recompute; the long loops of the core (tokenizing,
 * the forward pass, PCA) poll it at block boundaries and return early. Work
 * that stopped leaves its stages stale: nothing half computed is taken as
 * current. It is a flag, not a queue: av_cancel_clear() before new work. */
#ifndef ATTNVIZ_CANCEL_H
#define ATTNVIZ_CANCEL_H

#include <stdatomic.h>

/* A lock-free atomic: safe to set from a signal handler (C11 7.14.1.1) and
 * to poll from any thread. Relaxed order: it carries no data, and a late
 * read costs one block of work. */
extern atomic_int av_cancel_flag;

static inline void av_cancel_request(void) { atomic_store_explicit(&av_cancel_flag, 1, memory_order_relaxed); }
static inline void av_cancel_clear(void) { atomic_store_explicit(&av_cancel_flag, 0, memory_order_relaxed); }
static inline int av_cancelled(void) { return atomic_load_explicit(&av_cancel_flag, memory_order_relaxed) != 0; }

#endif
