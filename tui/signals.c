/* signals.c - see signals.h. Only flags are set in the handlers of quit
 * and resize (never drawing there); the fatal handler writes, with write(2),
 * tcsetattr and _exit only (async-signal-safe), what was saved before. */
#define _XOPEN_SOURCE_EXTENDED 1
#include "signals.h"

#include <curses.h>
#include <term.h>
#include <stdatomic.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "cancel.h"
#include "filemap.h"
#include "i18n.h"

// ----------------------------------------------------------------------------
// quit and resize

static volatile sig_atomic_t got_signal = 0, got_winch = 0;

static void on_signal(int sig) {
    got_signal = sig;
    av_cancel_request();
}
static void on_winch(int sig) { (void)sig, got_winch = 1; }

int signals_quit(void) { return got_signal; }

int signals_take_resize(void) {
    if (!got_winch) return 0;
    got_winch = 0;
    return 1;
}

// ----------------------------------------------------------------------------
// giving the terminal back on a fatal signal

/* What endwin would send, made from terminfo once the terminal is set up:
 * attributes off, cursor on, keypad off, mouse and bracketed paste off, out
 * of the alternate screen. Written by the fatal-signal handler. */
static char reset_seq[512];
static size_t reset_len;
static struct termios saved_tio[2];
static int saved_fd[2] = {-1, -1};
static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS, SIGXCPU, SIGXFSZ};
#define N_FATAL ((int)(sizeof fatal_signals / sizeof fatal_signals[0]))
static struct sigaction fatal_old[N_FATAL];
static const int ignored_signals[] = {SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE};
#define N_IGNORED ((int)(sizeof ignored_signals / sizeof ignored_signals[0]))
static struct sigaction ignored_old[N_IGNORED];

/* Appends a terminfo string without its padding ("$<5>"). */
static void reset_add(const char *s) {
    if (!s || s == (char *)-1) return;
    for (; *s; s++) {
        if (s[0] == '$' && s[1] == '<') {
            const char *e = strchr(s, '>');
            if (e) {
                s = e;
                continue;
            }
        }
        if (reset_len + 1 < sizeof reset_seq) reset_seq[reset_len++] = *s;
    }
}

static void restore_terminal_now(void) {
    if (reset_len > 0) {
        ssize_t w = write(STDOUT_FILENO, reset_seq, reset_len);
        (void)w;
    }
    for (int i = 0; i < 2; i++)
        if (saved_fd[i] >= 0) tcsetattr(saved_fd[i], TCSANOW, &saved_tio[i]);
}

/* Appends s to buf[*n..cap) (in the handler: no stdio). */
static void cat(char *buf, size_t *n, size_t cap, const char *s) {
    for (; *s && *n + 1 < cap; s++) buf[(*n)++] = *s;
}

/* The line of a model file cut short, in the reader's language: taken when
 * the handlers are installed (gettext is no async-signal-safe call). */
static const char *changed_text = FILEMAP_CHANGED " (a read past its new end)";

/* Set by the first fault: the terminal is given back once. */
static atomic_flag fatal_busy = ATOMIC_FLAG_INIT;

static void on_fatal(int sig, siginfo_t *info, void *uctx) {
    (void)uctx;
    int first = !atomic_flag_test_and_set(&fatal_busy);
    /* A read past the end of a model file that was cut short while mapped
     * (filemap.h): said in one line, exit status 2, as when it is found
     * before a recompute. A second thread that faults there meanwhile waits
     * for the first to end the process. */
    const char *file = sig == SIGBUS && info ? filemap_name_at(info->si_addr) : NULL;
    if (file) {
        if (!first)
            for (;;) pause();
        restore_terminal_now();
        char line[FILEMAP_NAME_MAX + 128];
        size_t n = 0;
        cat(line, &n, sizeof line, "attnviz: ");
        cat(line, &n, sizeof line, file);
        cat(line, &n, sizeof line, ": ");
        cat(line, &n, sizeof line, changed_text);
        cat(line, &n, sizeof line, "\n");
        ssize_t w = write(STDERR_FILENO, line, n);
        (void)w;
        _exit(2);
    }
    if (first) restore_terminal_now();
    /* Then what would have happened without us (the default action, or a
     * sanitizer's report, which may call this handler again: it goes on
     * the same way): the previous action, and the signal again, to this
     * thread. For a fault, returning runs the faulting instruction again. */
    for (int i = 0; i < N_FATAL; i++)
        if (fatal_signals[i] == sig) sigaction(sig, &fatal_old[i], NULL);
    raise(sig);
}

void signals_save_modes(int slot, int fd) {
    if (isatty(fd) && tcgetattr(fd, &saved_tio[slot]) == 0) saved_fd[slot] = fd;
}

static int fatal_installed;

void signals_install_fatal(void) {
    if (fatal_installed) return;
    fatal_installed = 1;
    /* TRANSLATORS: FILEMAP_CHANGED's words (src/base/filemap.h), then why. */
    changed_text = _("the model file changed while in use (a read past its new end)");
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_sigaction = on_fatal;
    sa.sa_flags = SA_SIGINFO;
    for (int i = 0; i < N_FATAL; i++) sigaction(fatal_signals[i], &sa, &fatal_old[i]);
}

void signals_terminal_set(void) {
    reset_len = 0;
    reset_add(tigetstr("sgr0"));
    reset_add(tigetstr("cnorm"));
    reset_add(tigetstr("rmkx"));
    reset_add("\033[?1006l\033[?1003l\033[?1002l\033[?1000l\033[?2004l");
    reset_add(tigetstr("rmcup"));
}

void signals_terminal_clear(void) {
    reset_len = 0;
    saved_fd[0] = saved_fd[1] = -1;
}

/* The signals attnviz acts on: quit (INT, TERM, HUP, QUIT) and resize. */
static const int wait_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH};
#define N_WAIT ((int)(sizeof wait_signals / sizeof wait_signals[0]))
static struct sigaction wait_old[N_WAIT];

void signals_install(sigset_t *wait_mask, sigset_t *old_mask) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < N_WAIT; i++) {
        sa.sa_handler = wait_signals[i] == SIGWINCH ? on_winch : on_signal;
        sigaction(wait_signals[i], &sa, &wait_old[i]);
    }
    sa.sa_handler = SIG_IGN;
    for (int i = 0; i < N_IGNORED; i++) sigaction(ignored_signals[i], &sa, &ignored_old[i]);
    sigset_t block;
    sigemptyset(&block);
    for (int i = 0; i < N_WAIT; i++) sigaddset(&block, wait_signals[i]);
    sigprocmask(SIG_BLOCK, &block, old_mask);
    *wait_mask = *old_mask;
    for (int i = 0; i < N_WAIT; i++) sigdelset(wait_mask, wait_signals[i]);
}

void signals_remove(const sigset_t *old_mask) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = SIG_IGN;
    /* Pending quit signals are ours: drop them before unblocking. */
    for (int i = 0; i < N_WAIT; i++) sigaction(wait_signals[i], &sa, NULL);
    sigprocmask(SIG_SETMASK, old_mask, NULL);
    for (int i = 0; i < N_WAIT; i++) sigaction(wait_signals[i], &wait_old[i], NULL);
    for (int i = 0; i < N_IGNORED; i++) sigaction(ignored_signals[i], &ignored_old[i], NULL);
}
