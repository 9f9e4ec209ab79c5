/* parallel.h - a small pool of worker threads for the forward pass.
 *
 * Work is split into independent tasks (a head, a block of rows); each output
 * element is computed by exactly one task, in the same order whatever the
 * number of threads, so results are bit-identical for any thread count. */
#ifndef ATTNVIZ_PARALLEL_H
#define ATTNVIZ_PARALLEL_H

#include <signal.h>

/* Most threads attnviz starts. */
#define PAR_MAX_THREADS 64

/* Sets the number of threads (n <= 0: the online CPUs, at most 8). Returns the
 * number now in use. Not thread-safe: call it from the main thread only. */
int par_set_threads(int n);
int par_threads(void);

/* Runs fn(ctx, t) for every t in [0, ntasks) on the pool and returns when all
 * are done. With one thread (or one task) runs them in order on the caller.
 * After a cancel request (cancel.h) the tasks not yet started are skipped:
 * the caller checks av_cancelled() before it trusts the results. */
typedef void (*ParTask)(void *ctx, int task);
void par_for(int ntasks, ParTask fn, void *ctx);
/* The same for a job of about `flops` floating-point operations in all: one
 * too small to pay for waking the pool (PAR_MIN_FLOPS, some microseconds of
 * work) runs on the caller. The results are the same either way. */
#define PAR_MIN_FLOPS 2e6
void par_for_work(int ntasks, ParTask fn, void *ctx, double flops);

/* The mask of a thread that leaves the signals to the main thread (the pool's
 * workers, the front end's frame job): every signal blocked but the
 * synchronous faults (SEGV, BUS, FPE, ILL, TRAP, SYS), which the kernel
 * delivers to the thread that faulted: blocked there, it would kill the
 * process without its handler (the terminal left in curses mode). Sets it on
 * the calling thread (a thread it creates inherits it) and puts the mask it
 * had in *old. */
void par_block_signals(sigset_t *old);

#endif
