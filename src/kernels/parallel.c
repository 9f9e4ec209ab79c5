/* parallel.c - see parallel.h. A fixed pool of pthreads; par_for hands out
 * task numbers from a shared counter under a mutex (tasks are coarse: a head
 * or a block of rows), and the caller works too. */
#define _GNU_SOURCE /* pthread_setname_np */
#include "parallel.h"

#include "cancel.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CPU_RELAX() _mm_pause()
#else
#define CPU_RELAX() ((void)0)
#endif

/* A worker that finished a job watches for the next one this many pauses
 * (some tens of microseconds) before it sleeps: a forward is about a hundred
 * jobs a few microseconds apart, and a worker woken from its condition
 * variable each time joined late (2 threads no faster than 1 on a busy
 * machine). Idle, it sleeps: no CPU. */
enum { SPIN_PAUSES = 4000 };
static _Atomic int gen_pub;     /* pool.generation, or -1 to quit: read without the lock */
static _Atomic int running_pub; /* pool.running: read without the lock */

static struct {
    pthread_t thread[PAR_MAX_THREADS];
    int started; /* worker threads running (threads - 1) */
    int threads; /* threads in use, the caller included */
    pthread_mutex_t lock;
    pthread_cond_t work; /* a new job, or quit */
    pthread_cond_t done; /* a job finished */
    ParTask fn;
    void *ctx;
    int ntasks, next, running, generation, quit;
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER,
          .work = PTHREAD_COND_INITIALIZER,
          .done = PTHREAD_COND_INITIALIZER,
          .threads = 1};

/* Takes and runs tasks of the current job until none is left. Called with the
 * lock held; returns with it held. */
static void drain(void) {
    /* A cancel request skips the tasks not started yet (cancel.h). */
    while (pool.next < pool.ntasks) {
        if (av_cancelled()) {
            pool.next = pool.ntasks;
            break;
        }
        int t = pool.next++;
        ParTask fn = pool.fn;
        void *ctx = pool.ctx;
        pool.running++;
        atomic_store_explicit(&running_pub, pool.running, memory_order_relaxed);
        pthread_mutex_unlock(&pool.lock);
        fn(ctx, t);
        pthread_mutex_lock(&pool.lock);
        pool.running--;
        atomic_store_explicit(&running_pub, pool.running, memory_order_release);
    }
}

static void *worker(void *arg) {
    (void)arg;
    pthread_setname_np(pthread_self(), "attnviz-pool"); /* seen in /proc/PID/task/TID/comm, gdb, top -H */
    pthread_mutex_lock(&pool.lock);
    int seen = pool.generation;
    for (;;) {
        if (!pool.quit && pool.generation == seen) {
            pthread_mutex_unlock(&pool.lock);
            for (int i = 0; i < SPIN_PAUSES && atomic_load_explicit(&gen_pub, memory_order_acquire) == seen; i++)
                CPU_RELAX();
            pthread_mutex_lock(&pool.lock);
        }
        while (!pool.quit && pool.generation == seen) pthread_cond_wait(&pool.work, &pool.lock);
        if (pool.quit) break;
        seen = pool.generation;
        drain();
        if (pool.running == 0 && pool.next >= pool.ntasks) pthread_cond_broadcast(&pool.done);
    }
    pthread_mutex_unlock(&pool.lock);
    return NULL;
}

static void stop_workers(void) {
    pthread_mutex_lock(&pool.lock);
    pool.quit = 1;
    atomic_store_explicit(&gen_pub, -1, memory_order_release);
    pthread_cond_broadcast(&pool.work);
    pthread_mutex_unlock(&pool.lock);
    for (int i = 0; i < pool.started; i++) pthread_join(pool.thread[i], NULL);
    pool.started = 0;
    pool.quit = 0;
    atomic_store_explicit(&gen_pub, pool.generation, memory_order_release);
}

int par_set_threads(int n) {
    if (n <= 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        n = cpus > 0 ? (int)cpus : 1;
        if (n > 8) n = 8;
    }
    if (n > PAR_MAX_THREADS) n = PAR_MAX_THREADS;
    if (pool.started) stop_workers();
    pool.threads = 1;
    /* Workers block every signal but the faults (they inherit the mask): a
     * signal is the caller's to handle, on the thread that waits for input. */
    sigset_t old;
    par_block_signals(&old);
    for (int i = 0; i < n - 1; i++) {
        if (pthread_create(&pool.thread[i], NULL, worker, NULL) != 0) break; /* fewer threads, same results */
        pool.started++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pool.threads = pool.started + 1;
    return pool.threads;
}

int par_threads(void) { return pool.threads; }

void par_block_signals(sigset_t *old) {
    static const int faults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS};
    sigset_t set;
    sigfillset(&set);
    for (size_t i = 0; i < sizeof faults / sizeof *faults; i++) sigdelset(&set, faults[i]);
    pthread_sigmask(SIG_SETMASK, &set, old);
}

void par_for(int ntasks, ParTask fn, void *ctx) {
    if (ntasks <= 0) return;
    if (pool.threads <= 1 || ntasks == 1) {
        for (int t = 0; t < ntasks && !av_cancelled(); t++) fn(ctx, t);
        return;
    }
    pthread_mutex_lock(&pool.lock);
    pool.fn = fn;
    pool.ctx = ctx;
    pool.ntasks = ntasks;
    pool.next = 0;
    pool.generation++;
    atomic_store_explicit(&gen_pub, pool.generation, memory_order_release);
    pthread_cond_broadcast(&pool.work);
    drain();
    /* Every task is handed out: the caller watches the last ones end for as
     * long as a worker watches for a job, then sleeps (a sleeping caller
     * woke some microseconds late after each of a forward's jobs). */
    if (pool.running > 0) {
        pthread_mutex_unlock(&pool.lock);
        for (int i = 0; i < SPIN_PAUSES && atomic_load_explicit(&running_pub, memory_order_acquire) > 0; i++)
            CPU_RELAX();
        pthread_mutex_lock(&pool.lock);
    }
    while (pool.running > 0 || pool.next < pool.ntasks) pthread_cond_wait(&pool.done, &pool.lock);
    pool.ntasks = 0;
    pthread_mutex_unlock(&pool.lock);
}

void par_for_work(int ntasks, ParTask fn, void *ctx, double flops) {
    if (flops < PAR_MIN_FLOPS) {
        for (int t = 0; t < ntasks && !av_cancelled(); t++) fn(ctx, t);
        return;
    }
    par_for(ntasks, fn, ctx);
}
