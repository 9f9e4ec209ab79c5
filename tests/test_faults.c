/* test_faults.c - a model file cut short while it is mapped (filemap.h) and
 * faults on the threads of the pool (parallel.h, signals.h).
 *
 * filemap_check sees a file truncated, grown or rewritten in place, and not
 * one replaced by rename (the mapping is still the old file's). Then, in a
 * child process: a pool worker reads a page of a mapped file that was
 * truncated under it, a real SIGBUS on that worker, which must reach
 * attnviz's handler there ("FILE: the model file changed while in use",
 * exit status 2) rather than kill the process with the default action (a
 * worker that blocked SIGBUS did: the terminal was left in curses mode). And
 * a segmentation fault on a worker goes to the handler of the worker too. */
#define _GNU_SOURCE
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "filemap.h"
#include "parallel.h"
#include "signals.h"

enum { PAGES = 64, PAGE = 4096 };

/* A file of PAGES pages in a fresh folder; path[cap] gets its name. */
static void make_file(char *path, size_t cap, const char *name) {
    char dir[] = "/tmp/attnviz-faults.XXXXXX";
    assert_non_null(mkdtemp(dir));
    snprintf(path, cap, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    for (int i = 0; i < PAGES * PAGE; i++) fputc(i & 0xFF, f);
    assert_int_equal(fclose(f), 0);
}

static void remove_file(const char *path) {
    unlink(path);
    char dir[512];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0', rmdir(dir);
}

/* Waits for the file's modification time to move on (coarse clocks). */
static void next_tick(void) {
    struct timespec t = {0, 20 * 1000 * 1000};
    nanosleep(&t, NULL);
}

static void test_check_sees_changes(void **state) {
    (void)state;
    char path[256];
    make_file(path, sizeof path, "m.bin");
    AvError err = {0};
    size_t len = 0;
    const void *map = filemap_open(path, 28, "a header", &len, &err);
    assert_non_null(map);
    assert_int_equal(len, PAGES * PAGE);
    assert_int_equal(filemap_check(&err), 0);
    /* truncated in place: named, with both sizes */
    assert_int_equal(truncate(path, 1000), 0);
    assert_int_equal(filemap_check(&err), -1);
    assert_non_null(strstr(err.msg, path));
    assert_non_null(strstr(err.msg, FILEMAP_CHANGED));
    assert_non_null(strstr(err.msg, "now 1000 bytes, 262144 when opened"));
    filemap_close(map, len);
    assert_int_equal(filemap_check(&err), 0); /* no longer watched */

    /* rewritten in place with the same size: the modification time says so */
    remove_file(path);
    make_file(path, sizeof path, "m.bin");
    map = filemap_open(path, 28, "a header", &len, &err);
    assert_non_null(map);
    next_tick();
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    fputc('x', f);
    fclose(f);
    assert_int_equal(filemap_check(&err), -1);
    assert_non_null(strstr(err.msg, "rewritten since it was opened"));
    filemap_close(map, len);

    /* replaced by rename: the mapping is the old file's, which is unchanged */
    remove_file(path);
    make_file(path, sizeof path, "m.bin");
    map = filemap_open(path, 28, "a header", &len, &err);
    assert_non_null(map);
    char other[300];
    snprintf(other, sizeof other, "%s.new", path);
    f = fopen(other, "wb");
    assert_non_null(f);
    fputs("short", f);
    fclose(f);
    assert_int_equal(rename(other, path), 0);
    assert_int_equal(filemap_check(&err), 0);
    assert_int_equal(((const unsigned char *)map)[PAGES * PAGE - 1], (PAGES * PAGE - 1) & 0xFF);
    filemap_close(map, len);
    remove_file(path);
}

static void test_open_refuses(void **state) {
    (void)state;
    AvError err = {0};
    size_t len;
    assert_null(filemap_open("/tmp", 8, "a header", &len, &err));
    assert_string_equal(err.msg, "/tmp: is a directory, not a file");
    char path[256];
    make_file(path, sizeof path, "short.bin");
    assert_int_equal(truncate(path, 5), 0);
    assert_null(filemap_open(path, 8, "the 8-byte header", &len, &err));
    assert_non_null(strstr(err.msg, ": 5 bytes, too short for the 8-byte header"));
    remove_file(path);
}

// ----------------------------------------------------------------------------
// faults on a worker, in a child process

static pthread_t main_thread;
static atomic_int worker_ran;
static const volatile unsigned char *fault_at;          /* read by a worker's task */
static const volatile unsigned char *volatile unmapped; /* an address nothing is mapped at */

/* Tasks on a worker read their page of fault_at; the caller's take a
 * millisecond each and read nothing, so that the fault is a worker's. */
static void touch_task(void *ctx, int t) {
    (void)ctx;
    if (pthread_equal(pthread_self(), main_thread)) {
        usleep(1000);
        return;
    }
    atomic_store(&worker_ran, 1);
    volatile unsigned char c = fault_at ? fault_at[(size_t)t * PAGE] : *unmapped;
    (void)c;
}

/* Jobs of touch_task until a worker has run one (a worker that starts after
 * a job was handed out waits for the next one). */
static void touch_on_workers(void) {
    main_thread = pthread_self();
    par_set_threads(3);
    for (int i = 0; i < 200 && !atomic_load(&worker_ran); i++) par_for(PAGES, touch_task, NULL);
}

/* Runs fn in a child with its stderr into out[cap]; returns its wait status. */
static int in_child(void (*fn)(const char *), const char *arg, char *out, size_t cap) {
    int p[2];
    assert_int_equal(pipe(p), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(p[0]);
        dup2(p[1], STDERR_FILENO);
        fn(arg);
        _exit(0); /* not reached: the fault ends the child */
    }
    close(p[1]);
    size_t n = 0;
    ssize_t r;
    while (n + 1 < cap && (r = read(p[0], out + n, cap - 1 - n)) > 0) n += (size_t)r;
    out[n] = '\0';
    close(p[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return status;
}

static void child_truncated(const char *path) {
    signals_install_fatal();
    AvError err = {0};
    size_t len;
    fault_at = filemap_open(path, 8, "a header", &len, &err);
    if (!fault_at || truncate(path, 0) != 0) _exit(10);
    touch_on_workers();
}

static void test_worker_reads_truncated_file(void **state) {
    (void)state;
    char path[256], out[1024];
    make_file(path, sizeof path, "model.bin");
    int status = in_child(child_truncated, path, out, sizeof out);
    remove_file(path);
    if (WIFSIGNALED(status))
        fail_msg("the child died of signal %d (the handler did not run): [%s]", WTERMSIG(status), out);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 2);
    char want[512];
    snprintf(want, sizeof want, "attnviz: %s: " FILEMAP_CHANGED " (a read past its new end)\n", path);
    assert_string_equal(out, want);
}

static void child_segv(const char *arg) {
    (void)arg;
    signal(SIGSEGV, SIG_DFL); /* not cmocka's: the default is what comes after ours */
    signals_install_fatal();
    fault_at = NULL; /* a read of address 8 */
    unmapped = (const volatile unsigned char *)(uintptr_t)strtoul("8", NULL, 10);
    touch_on_workers();
}

static void test_worker_segv_goes_on(void **state) {
    (void)state;
    char out[4096];
    int status = in_child(child_segv, NULL, out, sizeof out);
    /* the previous action after ours: the default (killed by SIGSEGV), or a
     * sanitizer's report (which ends the process its own way) */
    assert_true(WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 0));
    if (WIFSIGNALED(status)) assert_int_equal(WTERMSIG(status), SIGSEGV);
    assert_null(strstr(out, FILEMAP_CHANGED));
}

/* The mask of a pool worker: the faults unblocked, the rest blocked. */
static void *report_mask(void *arg) {
    sigset_t *set = arg;
    pthread_sigmask(SIG_SETMASK, NULL, set);
    return NULL;
}

static void test_thread_mask(void **state) {
    (void)state;
    sigset_t old, seen;
    par_block_signals(&old);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, report_mask, &seen), 0);
    pthread_join(t, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    const int faults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS};
    for (size_t i = 0; i < sizeof faults / sizeof *faults; i++) assert_false(sigismember(&seen, faults[i]));
    const int others[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH, SIGUSR1, SIGPIPE};
    for (size_t i = 0; i < sizeof others / sizeof *others; i++) assert_true(sigismember(&seen, others[i]));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check_sees_changes),
        cmocka_unit_test(test_open_refuses),
        cmocka_unit_test(test_worker_reads_truncated_file),
        cmocka_unit_test(test_worker_segv_goes_on),
        cmocka_unit_test(test_thread_mask),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
