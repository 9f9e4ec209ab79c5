/* screen.c - the interactive loop on ncursesw. The app draws on a canvas;
 * this file copies the canvas into curses (erase, then every cell; ncurses
 * sends only what changed on doupdate) and gives the app the events that
 * screen_input.c makes of the terminal's input (screen_internal.h).
 *
 * Two threads. The main thread owns the terminal: it reads input, handles
 * signals and blits finished frames; it never touches the app while a frame
 * is being made. A frame job (a thread of its own) applies every event that
 * came in, recomputes what is stale and draws on the canvas. While a job runs,
 * new events wait in a queue for the next job, except q (when q would quit)
 * and the signals INT, TERM, HUP and QUIT: they cancel the job (cancel.h: the
 * forward pass, tokenizing and PCA stop within a block of work) and attnviz
 * quits at once, however slow the recompute. A job longer than a frame gets a
 * "computing…" mark on the screen.
 *
 * Waiting: the signals attnviz acts on are blocked except inside one pselect()
 * (ppoll) on the terminal and the job's wake-up pipe, which unblocks them
 * atomically: a resize or a signal that comes while a frame is being made is
 * seen when the wait begins, never lost. No timeout when idle, unless the app
 * asks for a tick (app_wake_ms): an idle attnviz uses no CPU. Signals only
 * set a flag; the loop ends through endwin like a normal quit (signals.c:
 * the handlers, the ignored signals and the terminal given back on a fatal
 * one).
 *
 * Pasted text: bracketed paste is on while attnviz runs; what the terminal
 * marks as pasted is given to the app as text (app_paste_char), ESC and all,
 * never run as keys. */
#define _XOPEN_SOURCE_EXTENDED 1
#define _GNU_SOURCE            /* ppoll */
#include "screen.h"

#include <curses.h>
#include <term.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>

#include "cancel.h"
#include "filemap.h"
#include "follow.h"
#include "i18n.h"
#include "keycode.h"
#include "parallel.h"
#include "screen_internal.h"
#include "signals.h"
#include "text.h"
#include "utf8.h"

// ----------------------------------------------------------------------------
// drawing

/* The terminal's size now, into curses (which queues a KEY_RESIZE). */
static void apply_size(void) {
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0) resizeterm(ws.ws_row, ws.ws_col);
}

ColorTier screen_tier(ColorMode mode) {
    int colors = 0;
    if (has_colors()) colors = COLORS;
    return palette_tier((int)mode, getenv("NO_COLOR"), colors);
}

/* Colour pairs are allocated on demand (ncurses >= 6.1 alloc_pair) and
 * remembered by ncurses itself. Default colours with an attribute (the
 * reversed cursor, bold labels) get a pair of their own, (-1, -1): going
 * to pair 0 from a coloured cell, ncurses sends op (ESC[39;49m) before the
 * sgr that resets the colours anyway; to a nonzero pair it sends only the
 * sgr. Plain text keeps pair 0, the pair of erase()'s blanks, so that blanks
 * stay blanks to ncurses (skipped, or cleared with el). alloc_pair(-1, -1)
 * would answer pair 0 itself: the pair is made once with init_extended_pair,
 * before any alloc_pair (which then leaves it alone). */
static int attr_pair; /* (-1, -1) but not 0, made by curses_open; 0 when it could not be */

static int pair_for(ColorTier tier, Style st) {
    if (tier == TIER_NONE) return 0;
    if (st.fg < 0 && st.bg < 0) return st.attr ? attr_pair : 0;
    int p = alloc_pair(st.fg, st.bg);
    return p < 0 ? 0 : p;
}

static attr_t attrs_for(Style st) {
    attr_t a = A_NORMAL;
    if (st.attr & ST_BOLD) a |= A_BOLD;
    if (st.attr & ST_DIM) a |= A_DIM;
    if (st.attr & (ST_REVERSE | ST_CURSOR)) a |= A_REVERSE; /* the cell cursor: reversed on the terminal */
    if (st.attr & ST_UNDERLINE) a |= A_UNDERLINE;
    return a;
}

void screen_blit(const Canvas *cv, ColorTier tier) {
    erase();
    for (int y = 0; y < cv->h && y < LINES; y++)
        for (int x = 0; x < cv->w && x < COLS; x++) {
            const Cell *c = &cv->cells[(size_t)y * cv->w + x];
            if (c->width == 0) continue;
            wchar_t wch[CCHARW_MAX + 1];
            int n = 0;
            size_t len = strlen(c->ch);
            for (size_t i = 0; i < len && n < CCHARW_MAX;) {
                uint32_t cp;
                int k = utf8_decode(c->ch + i, len - i, &cp);
                wch[n++] = cp == UTF8_INVALID ? L'?' : (wchar_t)cp;
                i += (size_t)(k > 0 ? k : 1);
            }
            if (n == 0) wch[n++] = L' ';
            wch[n] = L'\0';
            cchar_t cc;
            int pair = pair_for(tier, c->st);
            setcchar(&cc, wch, attrs_for(c->st), (short)(pair < 32767 ? pair : 0), &pair);
            mvadd_wch(y, x, &cc);
        }
    wnoutrefresh(stdscr);
    doupdate();
}

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

// ----------------------------------------------------------------------------
// the frame job

typedef struct {
    App *a;
    Canvas *cv;
    Queue batch;        /* the events this frame applies */
    int wake_fd;        /* written once the frame is made */
    atomic_int q_quits; /* q would quit now (published before the recompute) */
    int drawn;          /* the canvas holds a new frame */
    int changed;        /* a model file changed while in use: quit with `why` (filemap.h) */
    AvError why;
    pthread_t thread;
} Job;

static int app_event(App *a, const Event *e) {
    switch (e->kind) {
    case EV_MOUSE: app_mouse(a, e->y, e->x, e->button); return 1;
    case EV_PASTE: return app_paste_char(a, e->ch);
    case EV_CODE:
        if (e->ch == KEY_RESIZE) return 1;
        return app_key(a, (AppKey){1, keycode_from_curses((int)e->ch)});
    case EV_KEY: return app_key(a, (AppKey){0, e->ch});
    }
    return 0;
}

static void *job_run(void *arg) {
    Job *j = arg;
    App *a = j->a;
    /* A model file cut short or rewritten in place: said and quit, before
     * anything reads the mapping (its pages past the new end would fault). */
    if (filemap_check(&j->why)) {
        j->changed = 1;
        a->quit = 1;
    }
    for (size_t i = 0; i < j->batch.n && !a->quit; i++) {
        const Event *e = &j->batch.ev[i];
        /* Enter in a prompt closes it before its setter runs (a new sentence
         * is tokenized, which can take long): from then on q quits. */
        int closes =
            (e->kind == EV_KEY && (e->ch == '\n' || e->ch == '\r')) || (e->kind == EV_CODE && e->ch == KEY_ENTER);
        atomic_store(&j->q_quits, app_q_quits(a, closes));
        /* --follow: any input but F detaches from the teacher (follow.h). */
        if (a->follow && !(e->kind == EV_CODE && e->ch == KEY_RESIZE)) {
            AppKey k = {e->kind == EV_CODE, e->kind == EV_CODE ? (uint32_t)keycode_from_curses((int)e->ch) : e->ch};
            follow_input(a->follow, a, e->kind == EV_KEY || e->kind == EV_CODE ? &k : NULL);
        }
        app_event(a, e);
        follow_input_done(a->follow, a);
        atomic_store(&j->q_quits, app_q_quits(a, 0));
    }
    j->batch.n = 0;
    j->drawn = 0;
    if (!a->quit) {
        atomic_store(&j->q_quits, app_q_quits(a, 0));
        if (app_needs_update(a)) app_update(a);
        /* A cancelled recompute left its stages stale: nothing to draw. */
        if (!av_cancelled()) {
            app_draw(a, j->cv);
            j->drawn = 1;
        }
        atomic_store(&j->q_quits, app_q_quits(a, 0));
    }
    char c = 1;
    ssize_t w = write(j->wake_fd, &c, 1);
    (void)w;
    return NULL;
}

/* Starts the job on its own thread, with every signal but the faults blocked
 * there (signals are the main thread's, in its ppoll; a fault is the
 * thread's own, parallel.h). Runs it on the caller when no thread can be
 * made. */
static int job_start(Job *j, Input *in, int wake_read_fd) {
    Queue t = j->batch;
    j->batch = in->pending;
    in->pending = t;
    in->pending.n = 0;
    av_cancel_clear();
    sigset_t old;
    par_block_signals(&old);
    int rc = pthread_create(&j->thread, NULL, job_run, j);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        job_run(j);
        char buf[16];
        while (read(wake_read_fd, buf, sizeof buf) > 0) { /* its wake-up is not for a later job */
        }
        return 0;
    }
    return 1;
}

/* 1 when a q that quits came in among the events from `from` on, while the
 * job runs (the job said whether q would quit now). */
static int quit_key_since(const Input *in, size_t from, Job *j) {
    if (!atomic_load(&j->q_quits)) return 0;
    for (size_t i = from; i < in->pending.n; i++)
        if (in->pending.ev[i].kind == EV_KEY && in->pending.ev[i].ch == 'q') return 1;
    return 0;
}

/* " computing… " at the top right over what is on the screen. */
static void draw_computing_mark(const App *a) {
    const char *mark = a->ascii ? _(" computing... ") : _(" computing\xe2\x80\xa6 ");
    int w = text_width(mark, strlen(mark));
    if (COLS < w) return;
    attr_t at = A_REVERSE | A_BOLD;
    attron(at);
    mvaddstr(0, COLS - w - 1, mark);
    attroff(at);
    refresh();
}

// ----------------------------------------------------------------------------
// the loop

/* The terminal attnviz runs on, from term_open to term_close. */
typedef struct {
    FILE *in;           /* where keys come from: stdin, or tty */
    FILE *tty;          /* /dev/tty when stdin is not a terminal (-f -), or NULL */
    int ifd;            /* fileno(in) */
    int wake[2];        /* the frame job's wake-up pipe (the read end does not block) */
    sigset_t wait_mask; /* the mask ppoll waits with: quit and resize let in */
    sigset_t old_mask;  /* the mask to put back */
    SCREEN *scr;
    Canvas *cv; /* what the frames are drawn on; bracketed paste is on while it is there */
} Term;

/* What the loop knows between two waits (main thread only). */
typedef struct {
    Input input;
    Job job;
    int busy;          /* a frame job runs: the app is the job's */
    int marked;        /* "computing..." is on the screen */
    int quitting;      /* quit now: the job is cancelled and joined */
    int redraw;        /* a frame is due without events (start, resize, tick) */
    double started;    /* the job's start, for the mark */
    double idle_since; /* the last frame ended (or the last tick): for app_wake_ms */
} Loop;

/* With no job running: a resize, then a frame when one is due (events, a
 * redraw). Returns 1 when a frame was started (or made on this thread). */
static int frame_begin(Loop *l, Term *t) {
    if (signals_take_resize()) {
        apply_size();
        l->redraw = 1;
    }
    if (!l->redraw && l->input.pending.n == 0) return 0;
    if (t->cv->w != COLS || t->cv->h != LINES) cv_resize(t->cv, COLS, LINES);
    l->redraw = 0, l->marked = 0;
    l->started = now_seconds();
    l->busy = job_start(&l->job, &l->input, t->wake[0]);
    if (!l->busy) l->idle_since = now_seconds();
    if (!l->busy && l->job.drawn) screen_blit(t->cv, l->job.a->tier);
    return 1;
}

/* The job said it is done: its frame goes on the screen, unless attnviz is
 * quitting. */
static void frame_end(Loop *l, Term *t) {
    char buf[16];
    while (read(t->wake[0], buf, sizeof buf) > 0) {
    }
    pthread_join(l->job.thread, NULL);
    l->busy = 0;
    l->idle_since = now_seconds();
    if (l->job.drawn && !l->quitting) screen_blit(t->cv, l->job.a->tier);
    else if (l->marked) l->redraw = 1; /* the mark is still on the screen */
}

/* Wait: input, a signal, the job, the moment to say "computing", or the
 * tick the app asked for (the app is ours while no job runs). (ppoll rather
 * than pselect: the same atomic unblocking, and ThreadSanitizer delivers the
 * handler's signal inside it.) */
static void loop_wait(Loop *l, Term *t) {
    App *a = l->job.a;
    /* the terminal, the job's pipe (while it runs), and --publish's or
     * --follow's sockets (follow.h) */
    struct pollfd fds[2 + FOLLOW_MAX_FDS] = {{.fd = t->ifd, .events = POLLIN},
                                             {.fd = l->busy ? t->wake[0] : -1, .events = POLLIN}};
    int nf = a->follow ? follow_poll_fds(a->follow, fds + 2, FOLLOW_MAX_FDS, l->busy) : 0;
    int follow_ms = a->follow ? follow_wake_ms(a->follow, l->busy) : -1, follow_first = 0;
    struct timespec ts, *tsp = NULL;
    int wake_ms = l->busy ? -1 : app_wake_ms(a);
    double left = -1.0;
    if ((l->busy && !l->marked) || wake_ms >= 0) {
        left = l->busy ? 0.016 - (now_seconds() - l->started) : wake_ms * 1e-3 - (now_seconds() - l->idle_since);
        if (left < 0) left = 0;
    }
    if (follow_ms >= 0 && (left < 0 || follow_ms * 1e-3 < left)) left = follow_ms * 1e-3, follow_first = 1;
    if (left >= 0) {
        ts.tv_sec = (time_t)left, ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
        tsp = &ts;
    }
    int r = ppoll(fds, (nfds_t)(2 + nf), tsp, &t->wait_mask);
    if (r < 0) {
        if (errno != EINTR) l->quitting = 1;
        return;
    }
    if (a->follow && follow_handle(a->follow, fds + 2, nf, l->busy ? NULL : a)) l->redraw = 1;
    if (r == 0 && follow_first) return;
    if (l->busy && r == 0 && !l->marked) {
        draw_computing_mark(a);
        l->marked = 1;
        return;
    }
    if (!l->busy && r == 0 && wake_ms >= 0) {
        if (app_tick(a)) l->redraw = 1;
        l->idle_since = now_seconds();
        return;
    }
    if (l->busy && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) frame_end(l, t);
    /* Readable: a key, or the end of input (EOF, EIO: the terminal is
     * gone). Blocking here waits only for the rest of a sequence. */
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) {
        size_t at = l->input.pending.n;
        input_read(&l->input, 1);
        if (l->busy && quit_key_since(&l->input, at, &l->job)) l->quitting = 1;
    }
}

/* Runs the app until q, a signal or the end of input. Returns 1 when the
 * terminal went away (a hangup), 2 when a model file changed while in use
 * (err says which), else 0. */
static int loop_run(Term *t, App *a, AvError *err) {
    Loop l = {.job = {.a = a, .cv = t->cv, .wake_fd = t->wake[1]}, .redraw = 1};
    atomic_init(&l.job.q_quits, 0);
    input_typeahead(&l.input);
    l.idle_since = now_seconds();
    nodelay(stdscr, TRUE);
    for (;;) {
        /* Quitting during a frame: the job is cancelled and joined below. */
        if (signals_quit() || l.input.eof || l.quitting) break;
        if (!l.busy) {
            if (a->quit) break;
            /* --publish: the state after the last frame; --follow: what happened (follow.h) */
            if (a->follow && follow_idle(a->follow, a)) l.redraw = 1;
            if (frame_begin(&l, t)) continue;
        }
        /* Input that is already waiting (ncurses may hold some). While a job
         * runs only q-to-quit is acted on; the rest waits for the next frame. */
        size_t before = l.input.pending.n;
        input_read(&l.input, 0);
        if (l.busy) {
            if (quit_key_since(&l.input, before, &l.job)) break;
        } else if (l.input.pending.n > 0 || l.input.eof) {
            continue;
        }
        loop_wait(&l, t);
    }
    if (l.busy) {
        av_cancel_request();
        pthread_join(l.job.thread, NULL);
    }
    av_cancel_clear();
    int hung_up = l.input.eof && !signals_quit() && !a->quit;
    free(l.input.pending.ev);
    free(l.job.batch.ev);
    if (l.job.changed) {
        *err = l.job.why;
        return 2;
    }
    return hung_up;
}

// ----------------------------------------------------------------------------
// the terminal: set-up and teardown

/* Where keys come from, the job's wake-up pipe, the terminal's modes saved
 * and the signals blocked. Returns 0, or 1 with err set (nothing to undo). */
static int term_open(Term *t, AvError *err) {
    if (!isatty(STDOUT_FILENO))
        return av_errorf(err, "%s",
                         _("the interactive view needs a terminal; use --once or --dump for output to a pipe")),
               1;
    /* With the sentence on standard input (-f -), keys come from the terminal. */
    t->in = stdin;
    if (!isatty(STDIN_FILENO)) {
        t->tty = fopen("/dev/tty", "r");
        if (!t->tty) return av_errorf(err, "%s", _("no terminal to read keys from; use --once or --dump")), 1;
        t->in = t->tty;
    }
    if (pipe(t->wake) != 0) {
        if (t->tty) fclose(t->tty);
        return av_errorf(err, _("cannot make a pipe: %s"), strerror(errno)), 1;
    }
    fcntl(t->wake[0], F_SETFL, O_NONBLOCK);
    fcntl(t->wake[0], F_SETFD, FD_CLOEXEC);
    fcntl(t->wake[1], F_SETFD, FD_CLOEXEC);
    t->ifd = fileno(t->in);
    signals_save_modes(0, t->ifd);
    signals_save_modes(1, STDOUT_FILENO);
    signals_install(&t->wait_mask, &t->old_mask);
    return 0;
}

static void term_close(Term *t) {
    signals_remove(&t->old_mask);
    close(t->wake[0]);
    close(t->wake[1]);
    if (t->tty) fclose(t->tty);
}

/* Bracketed paste off (it is on with the canvas), then ncurses' end. */
static void curses_close(Term *t) {
    if (t->cv) {
        cv_free(t->cv);
        t->cv = NULL;
        fflush(stdout);
        if (write(STDOUT_FILENO, "\033[?2004l", 8) < 0) { /* the terminal is gone: nothing to turn off */
        }
    }
    signals_terminal_clear();
    endwin();
    delscreen(t->scr);
}

/* ncurses on the terminal, its modes, colours and mouse, the canvas, then
 * bracketed paste. Returns 0, or 1 with err set and curses undone. */
static int curses_open(Term *t, App *a, const CliOptions *o, AvError *err) {
    const char *term = getenv("TERM") ? getenv("TERM") : "";
    t->scr = newterm(NULL, stdout, t->in);
    if (!t->scr) return av_errorf(err, _("cannot set up the terminal (TERM=%s)"), term), 1;
    const char *cup = tigetstr("cup");
    if (!cup || cup == (char *)-1) {
        endwin();
        delscreen(t->scr);
        return av_errorf(err, _("the terminal (TERM=%s) cannot move the cursor; use --once or --dump"), term), 1;
    }
    signals_install_fatal();
    signals_terminal_set();
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    nonl();
    /* The terminal cursor is hidden: where doupdate leaves it does not matter,
     * and moving it back to curses' cursor after every frame costs bytes (a
     * cup of ~9 per frame). Where it cannot be hidden it goes where it was. */
    if (curs_set(0) != ERR) leaveok(stdscr, TRUE);
    set_escdelay(75);
    input_define_keys();
    if (has_colors()) {
        start_color();
        use_default_colors();
        attr_pair = COLOR_PAIRS > 1 && init_extended_pair(1, -1, -1) == OK ? 1 : 0;
    }
    a->tier = screen_tier(o->color);
    a->enforce_min = 1;
    a->stepwise = 1;
    if (o->mouse)
        mousemask(BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED
#if NCURSES_MOUSE_VERSION > 1
                      | BUTTON5_PRESSED
#endif
                  ,
                  NULL);
    mouseinterval(0);
    t->cv = cv_new(COLS, LINES);
    if (!t->cv) {
        curses_close(t);
        return av_error_nomem(err, "%s", _("out of memory")), 1;
    }
    /* Bracketed paste on (after curses' own set-up is on the terminal). */
    refresh();
    fflush(stdout);
    if (write(STDOUT_FILENO, "\033[?2004h", 8) < 0) { /* a terminal that is gone: the loop sees EOF */
    }
    return 0;
}

int screen_run(App *a, const CliOptions *o, AvError *err) {
    Term t = {0};
    if (term_open(&t, err)) return 1;
    int status = curses_open(&t, a, o, err), hung_up = 0;
    if (status == 0) {
        hung_up = loop_run(&t, a, err);
        curses_close(&t);
    }
    term_close(&t);
    if (status) return status;
    if (hung_up == 2) return 2; /* a model file changed: err says which */
    /* Ended by a signal: the conventional status 128 + its number. */
    /* The terminal went away (end of input, EIO): a hangup, reported as
     * SIGHUP would be (main dies of it: no exit-time work for the hangup's
     * SIGCONT to wedge, see main.c). */
    int sig = signals_quit();
    if (hung_up && !sig) return 128 + SIGHUP;
    return sig ? 128 + sig : 0;
}
