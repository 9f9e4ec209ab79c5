/* screen.c - the interactive loop on ncursesw. The app draws on a canvas;
 * this file copies the canvas into curses (erase, then every cell; ncurses
 * sends only what changed on doupdate) and turns terminal input into keys.
 *
 * Waiting: the signals attnviz acts on (SIGWINCH, SIGINT, SIGTERM, SIGHUP)
 * are blocked except inside one pselect() on the terminal, which unblocks
 * them atomically: a resize or a signal that comes while a frame is being
 * computed is seen when the wait begins, never lost. (ncurses' own SIGWINCH
 * handler only interrupts a read already blocked; a resize that arrived just
 * before it was noticed only at the next interrupted read.) No timeout: an
 * idle attnviz uses no CPU. Signals only set a flag; the loop ends through
 * endwin like a normal quit. */
#define _XOPEN_SOURCE_EXTENDED 1
#include "screen.h"

#include <curses.h>
#include <term.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

#include "utf8.h"

static volatile sig_atomic_t got_signal = 0, got_winch = 0;

static void on_signal(int sig) { got_signal = sig; }
static void on_winch(int sig) { (void)sig, got_winch = 1; }

/* Installs the handlers (before newterm: ncurses then keeps its own away)
 * and blocks the signals; *wait_mask is the mask to wait with. */
static void install_signals(sigset_t *wait_mask) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sa.sa_handler = on_winch;
    sigaction(SIGWINCH, &sa, NULL);
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigaddset(&block, SIGWINCH);
    sigprocmask(SIG_BLOCK, &block, wait_mask);
    sigdelset(wait_mask, SIGINT);
    sigdelset(wait_mask, SIGTERM);
    sigdelset(wait_mask, SIGHUP);
    sigdelset(wait_mask, SIGWINCH);
}

/* The terminal's size now, into curses (which queues a KEY_RESIZE). */
static void apply_size(void) {
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0)
        resizeterm(ws.ws_row, ws.ws_col);
}

ColorTier screen_tier(ColorMode mode) {
    int colors = 0;
    if (has_colors()) colors = COLORS;
    return palette_tier((int)mode, getenv("NO_COLOR"), colors);
}

/* Colour pairs are allocated on demand (ncurses >= 6.1 alloc_pair) and
 * remembered by ncurses itself. */
static int pair_for(ColorTier tier, Style st) {
    if (tier == TIER_NONE || (st.fg < 0 && st.bg < 0)) return 0;
    int p = alloc_pair(st.fg, st.bg);
    return p < 0 ? 0 : p;
}

static attr_t attrs_for(Style st) {
    attr_t a = A_NORMAL;
    if (st.attr & ST_BOLD) a |= A_BOLD;
    if (st.attr & ST_DIM) a |= A_DIM;
    if (st.attr & ST_REVERSE) a |= A_REVERSE;
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

/* One event from get_wch: a resize, a mouse event or a key. Returns 1 when
 * the screen must be drawn again. */
static int handle_input(App *a, int rc, wint_t ch) {
    if (rc == KEY_CODE_YES && ch == KEY_RESIZE) return 1;
    if (rc == KEY_CODE_YES && ch == KEY_MOUSE) {
        MEVENT ev;
        if (getmouse(&ev) != OK) return 0;
        int button = 0;
        if (ev.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED)) button = 1;
        if (ev.bstate & BUTTON4_PRESSED) button = 4;
#if NCURSES_MOUSE_VERSION > 1
        if (ev.bstate & BUTTON5_PRESSED) button = 5;
#endif
        if (!button) return 0;
        app_mouse(a, ev.y, ev.x, button);
        return 1;
    }
    AppKey k = {rc == KEY_CODE_YES, (uint32_t)ch};
    if (rc == OK && ch == 12) clearok(curscr, TRUE); /* Ctrl-L */
    return app_key(a, k);
}

int screen_run(App *a, const CliOptions *o, AvError *err) {
    sigset_t wait_mask;
    install_signals(&wait_mask);
    if (!isatty(STDOUT_FILENO))
        return av_errorf(err, "the interactive view needs a terminal; use --once or --dump for output to a pipe"), 1;
    /* With the sentence on standard input (-f -), keys come from the terminal. */
    FILE *in = stdin, *tty = NULL;
    if (!isatty(STDIN_FILENO)) {
        tty = fopen("/dev/tty", "r");
        if (!tty) return av_errorf(err, "no terminal to read keys from; use --once or --dump"), 1;
        in = tty;
    }
    const char *term = getenv("TERM") ? getenv("TERM") : "";
    SCREEN *scr = newterm(NULL, stdout, in);
    if (!scr) {
        if (tty) fclose(tty);
        return av_errorf(err, "cannot set up the terminal (TERM=%s)", term), 1;
    }
    const char *cup = tigetstr("cup");
    if (!cup || cup == (char *)-1) {
        endwin();
        delscreen(scr);
        if (tty) fclose(tty);
        return av_errorf(err, "the terminal (TERM=%s) cannot move the cursor; use --once or --dump", term), 1;
    }
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    nonl();
    curs_set(0);
    set_escdelay(75);
    if (has_colors()) {
        start_color();
        use_default_colors();
    }
    a->tier = screen_tier(o->color);
    a->enforce_min = 1;
    if (o->mouse) mousemask(BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED
#if NCURSES_MOUSE_VERSION > 1
                                | BUTTON5_PRESSED
#endif
                            , NULL);
    mouseinterval(0);
    Canvas *cv = cv_new(COLS, LINES);
    if (!cv) {
        endwin();
        delscreen(scr);
        if (tty) fclose(tty);
        return av_errorf(err, "out of memory"), 1;
    }
    int redraw = 1;
    double last_update = 0; /* seconds the last recompute took */
    int ifd = fileno(in);
    nodelay(stdscr, TRUE);
    while (!a->quit && !got_signal) {
        if (got_winch) {
            got_winch = 0;
            apply_size();
            redraw = 1;
        }
        if (redraw) {
            if (cv->w != COLS || cv->h != LINES) cv_resize(cv, COLS, LINES);
            if (app_needs_update(a)) {
                /* A recompute longer than a frame: say so on the screen first. */
                if (last_update > 0.016) {
                    const char *mark = a->ascii ? " computing... " : " computing… ";
                    cv_text_right(cv, 0, 0, mark, cv->w, style_attr(ST_REVERSE | ST_BOLD));
                    screen_blit(cv, a->tier);
                }
                double t0 = now_seconds();
                app_update(a);
                last_update = now_seconds() - t0;
            }
            app_draw(a, cv);
            screen_blit(cv, a->tier);
            redraw = 0;
        }
        /* Every key already waiting is applied before the next frame: a held
         * key or a burst of keys costs one recompute, not one per key. */
        wint_t ch;
        int rc, any = 0;
        while (!a->quit && (rc = get_wch(&ch)) != ERR) redraw |= handle_input(a, rc, ch), any = 1;
        if (any || redraw || a->quit || got_signal || got_winch) continue;
        /* Nothing to do: wait for input or a signal. */
        fd_set fds;
        FD_ZERO(&fds);
        FD_SET(ifd, &fds);
        if (pselect(ifd + 1, &fds, NULL, NULL, NULL, &wait_mask) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        /* Readable: a key, or the end of input (EOF, EIO: the terminal is
         * gone). Blocking here waits only for the rest of a sequence. */
        nodelay(stdscr, FALSE);
        rc = get_wch(&ch);
        nodelay(stdscr, TRUE);
        if (rc == ERR) break;
        redraw |= handle_input(a, rc, ch);
    }
    cv_free(cv);
    endwin();
    delscreen(scr);
    if (tty) fclose(tty);
    /* Ended by a signal: the conventional status 128 + its number. */
    return got_signal ? 128 + got_signal : 0;
}
