/* loadwatch.c - see loadwatch.h. A thread of its own polls the terminal and
 * a stop pipe; the quit signals are caught on the main thread by a handler
 * that puts the modes back (tcsetattr: async-signal-safe) and raises the
 * signal again with its default action. */
#define _POSIX_C_SOURCE 200809L
#include "loadwatch.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "cancel.h"
#include "parallel.h"
#include "signals.h"

static struct {
    int active;
    struct termios saved; /* the terminal's modes before the watch */
    int stop[2];          /* written by loadwatch_stop */
    pthread_t thread;
    atomic_int quit;  /* q was typed */
    char typed[4096]; /* the other keys' bytes, for the first frame */
    size_t n_typed;
} w = {.stop = {-1, -1}};

static const int quit_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
#define N_QUIT ((int)(sizeof quit_signals / sizeof *quit_signals))
static struct sigaction quit_old[N_QUIT];

static void on_quit_signal(int sig) {
    tcsetattr(STDIN_FILENO, TCSANOW, &w.saved);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void *watch(void *arg) {
    (void)arg;
    sigset_t old;
    par_block_signals(&old); /* the signals are the main thread's */
    struct pollfd fds[2] = {{.fd = STDIN_FILENO, .events = POLLIN}, {.fd = w.stop[0], .events = POLLIN}};
    for (;;) {
        if (poll(fds, 2, -1) < 0) continue;
        if (fds[1].revents) break;
        if (!(fds[0].revents & POLLIN)) break; /* the terminal is gone */
        char buf[64];
        ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
        if (n <= 0) break;
        for (ssize_t i = 0; i < n; i++) {
            if (buf[i] == 'q') {
                atomic_store(&w.quit, 1);
                av_cancel_request();
                /* The loaders stop at their next check; one inside a step
                 * that cannot (a JSON parse) is not waited for. */
                struct pollfd s = {.fd = w.stop[0], .events = POLLIN};
                if (poll(&s, 1, LOADWATCH_GRACE_MS) <= 0) {
                    tcsetattr(STDIN_FILENO, TCSANOW, &w.saved);
                    _exit(0);
                }
                return NULL;
            }
            if (w.n_typed < sizeof w.typed) w.typed[w.n_typed++] = buf[i];
        }
    }
    return NULL;
}

void loadwatch_start(void) {
    w.n_typed = 0;
    atomic_store(&w.quit, 0);
    if (w.active || !isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) return;
    if (tcgetattr(STDIN_FILENO, &w.saved) != 0 || pipe(w.stop) != 0) return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_quit_signal;
    for (int i = 0; i < N_QUIT; i++) sigaction(quit_signals[i], &sa, &quit_old[i]);
    signals_save_modes(0, STDIN_FILENO); /* a fault meanwhile puts them back too */
    struct termios t = w.saved;
    t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
    t.c_cc[VMIN] = 1, t.c_cc[VTIME] = 0;
    if (tcsetattr(STDIN_FILENO, TCSANOW, &t) != 0 || pthread_create(&w.thread, NULL, watch, NULL) != 0) {
        tcsetattr(STDIN_FILENO, TCSANOW, &w.saved);
        for (int i = 0; i < N_QUIT; i++) sigaction(quit_signals[i], &quit_old[i], NULL);
        close(w.stop[0]), close(w.stop[1]);
        return;
    }
    w.active = 1;
}

int loadwatch_stop(void) {
    if (!w.active) return 0;
    char c = 1;
    ssize_t r = write(w.stop[1], &c, 1);
    (void)r;
    pthread_join(w.thread, NULL);
    tcsetattr(STDIN_FILENO, TCSANOW, &w.saved);
    for (int i = 0; i < N_QUIT; i++) sigaction(quit_signals[i], &quit_old[i], NULL);
    close(w.stop[0]), close(w.stop[1]);
    w.active = 0;
    return atomic_load(&w.quit);
}

const char *loadwatch_typeahead(size_t *len) {
    *len = w.n_typed;
    return w.typed;
}
