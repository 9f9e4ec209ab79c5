/* screen_input.c - the terminal's input made events for the frame jobs
 * (screen_internal.h): keys and key codes through ncurses, UTF-8 put
 * together byte by byte, mouse clicks, bracketed paste given as text (ESC
 * and all, never run as keys), the keys typed while the model loaded, and
 * the end of input told from a read that merely came too early. */
#define _XOPEN_SOURCE_EXTENDED 1
#include "screen_internal.h"

#include <curses.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loadwatch.h"
#include "utf8.h"

/* ncurses key codes of our own for the bracketed-paste markers. */
#define KEY_PASTE_BEGIN (KEY_MAX + 1)
static const char paste_end[] = "\033[201~";

/* Most events waiting for one frame: a pasted sentence of AV_MAX_INPUT_BYTES
 * fits; past that, events are dropped (and the app cannot take them anyway). */
#define QUEUE_MAX ((size_t)2 << 20)

static void queue_push(Queue *q, Event e) {
    if (q->n == q->cap) {
        if (q->cap >= QUEUE_MAX) return;
        size_t ncap = q->cap ? q->cap * 2 : 64;
        Event *ne = realloc(q->ev, ncap * sizeof *ne);
        if (!ne) return; /* out of memory: the event is lost, nothing else */
        q->ev = ne, q->cap = ncap;
    }
    q->ev[q->n++] = e;
}

static void paste_char(Input *in, uint32_t cp) { queue_push(&in->pending, (Event){.kind = EV_PASTE, .ch = cp}); }

/* One character inside a paste: watches for the end marker, which is not text. */
static void paste_feed(Input *in, uint32_t cp) {
    if (cp == (unsigned char)paste_end[in->end_match]) {
        if (paste_end[++in->end_match] == '\0') {
            in->pasting = 0, in->end_match = 0;
            keypad(stdscr, TRUE);
        }
        return;
    }
    /* A false start: what looked like the marker was text. */
    for (int i = 0; i < in->end_match; i++) paste_char(in, (unsigned char)paste_end[i]);
    in->end_match = 0;
    if (cp == (unsigned char)paste_end[0]) in->end_match = 1;
    else paste_char(in, cp);
}

/* One character or key code into the queue (rc: OK or KEY_CODE_YES). */
static void take_input(Input *in, int rc, wint_t ch) {
    if (in->pasting) {
        if (rc == OK) paste_feed(in, (uint32_t)ch);
        return;
    }
    if (rc == KEY_CODE_YES && ch == KEY_PASTE_BEGIN) {
        /* Raw bytes until the end marker: an ESC in the paste is text. */
        in->pasting = 1, in->end_match = 0;
        keypad(stdscr, FALSE);
        return;
    }
    if (rc == KEY_CODE_YES && ch == KEY_MOUSE) {
        MEVENT ev;
        if (getmouse(&ev) != OK) return;
        int button = 0;
        if (ev.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED)) button = 1;
        if (ev.bstate & BUTTON4_PRESSED) button = 4;
#if NCURSES_MOUSE_VERSION > 1
        if (ev.bstate & BUTTON5_PRESSED) button = 5;
#endif
        if (button) queue_push(&in->pending, (Event){.kind = EV_MOUSE, .y = ev.y, .x = ev.x, .button = button});
        return;
    }
    if (rc == OK && ch == 12) clearok(curscr, TRUE); /* Ctrl-L */
    queue_push(&in->pending, (Event){.kind = rc == KEY_CODE_YES ? EV_CODE : EV_KEY, .ch = (uint32_t)ch});
}

/* The keys typed while the model loaded (loadwatch.h), before the first
 * frame's: UTF-8 characters, and escape sequences through ncurses' own
 * table of keys (key_defined). */
void input_typeahead(Input *in) {
    size_t n;
    const char *s = loadwatch_typeahead(&n);
    for (size_t i = 0; i < n;) {
        if (s[i] == '\033') {
            int code = 0;
            size_t used = 1;
            /* the shortest that names a key (key_defined also answers for
             * a string that only starts with one); 0: none starts here */
            for (size_t k = 2; k <= 16 && k <= n - i && !code; k++) {
                char seq[17];
                memcpy(seq, s + i, k);
                seq[k] = '\0';
                int kc = key_defined(seq);
                if (kc == 0) break;
                if (kc > 0) code = kc, used = k;
            }
            queue_push(&in->pending, (Event){.kind = code ? EV_CODE : EV_KEY, .ch = code ? (uint32_t)code : 033});
            i += used;
            continue;
        }
        uint32_t cp;
        int k = utf8_decode(s + i, n - i, &cp);
        if (cp != UTF8_INVALID) queue_push(&in->pending, (Event){.kind = EV_KEY, .ch = cp});
        i += (size_t)(k > 0 ? k : 1);
    }
}

/* After wgetch gave ERR where the terminal had said it was readable: 1
 * when the terminal is gone (a read failed with EIO, or poll says hang-up or
 * error), or when that kept happening without a byte in between (an input
 * at its end, e.g. not a terminal). A single ERR is not the end: during a
 * long paste (18 KB of Korean) a read of 0 bytes came while input was still
 * arriving, and the app quit as if hung up. */
static int input_gone(Input *in) {
    if (errno == EIO) return 1;
    struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};
    if (poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR | POLLNVAL))) return 1;
    return ++in->empty_reads >= 100;
}

/* The bytes of a UTF-8 character are put together here, not by get_wch:
 * ncurses' get_wch drops the first bytes of a character whose rest has not
 * arrived yet when it is called without waiting (a long paste of Korean,
 * cut by the terminal between two reads, lost a syllable at every cut, and
 * the rest of it then read as an error). A character waits here for its
 * last byte however the reads fall; a byte that cannot be part of one is
 * U+FFFD. */
static void take_byte(Input *in, unsigned char b) {
    if (in->mb_len > 0 && (b & 0xC0) != 0x80) {
        take_input(in, OK, 0xFFFD); /* a character cut short */
        in->mb_len = 0;
    }
    if (in->mb_len == 0) {
        if (b < 0x80) {
            take_input(in, OK, b);
            return;
        }
        in->mb_need = b >= 0xC2 && b <= 0xDF ? 2 : b >= 0xE0 && b <= 0xEF ? 3 : b >= 0xF0 && b <= 0xF4 ? 4 : 0;
        if (!in->mb_need) {
            take_input(in, OK, 0xFFFD);
            return;
        }
    }
    in->mb[in->mb_len++] = (char)b;
    if (in->mb_len < in->mb_need) return;
    uint32_t cp;
    utf8_decode(in->mb, (size_t)in->mb_len, &cp);
    in->mb_len = 0;
    take_input(in, OK, cp == UTF8_INVALID ? 0xFFFD : (wint_t)cp);
}

/* One result of wgetch: a key code of ncurses' (keypad, mouse, resize,
 * the paste markers) or a byte of the input. */
static void take_key(Input *in, int c) {
    if (c > 0xFF) take_input(in, KEY_CODE_YES, (wint_t)c);
    else take_byte(in, (unsigned char)c);
}

void input_read(Input *in, int wait_first) {
    if (wait_first) {
        nodelay(stdscr, FALSE);
        errno = 0;
        int c = wgetch(stdscr);
        nodelay(stdscr, TRUE);
        if (c == ERR) {
            if (input_gone(in)) in->eof = 1;
            return;
        }
        in->empty_reads = 0;
        take_key(in, c);
    }
    int c;
    while ((c = wgetch(stdscr)) != ERR) take_key(in, c);
}

/* The sequences that PuTTY, rxvt, the Linux console, screen and tmux send
 * for Home, End, Insert, Delete, PgUp and PgDn, whatever terminfo says for
 * TERM: without them an unknown sequence reaches the app as ESC and letters
 * (End would be "ESC [ 4 ~": Esc, then '4', the fourth head). */
static void define_common_keys(void) {
    static const struct {
        const char *seq;
        int code;
    } keys[] = {
        {"\033[1~", KEY_HOME},
        {"\033[7~", KEY_HOME},
        {"\033[H", KEY_HOME},
        {"\033OH", KEY_HOME},
        {"\033[4~", KEY_END},
        {"\033[8~", KEY_END},
        {"\033[F", KEY_END},
        {"\033OF", KEY_END},
        {"\033[2~", KEY_IC},
        {"\033[3~", KEY_DC},
        {"\033[5~", KEY_PPAGE},
        {"\033[6~", KEY_NPAGE},
        /* the arrows in both cursor modes (keys typed before curses set the
         * terminal's application mode come in the normal one) */
        {"\033[A", KEY_UP},
        {"\033[B", KEY_DOWN},
        {"\033[C", KEY_RIGHT},
        {"\033[D", KEY_LEFT},
        {"\033OA", KEY_UP},
        {"\033OB", KEY_DOWN},
        {"\033OC", KEY_RIGHT},
        {"\033OD", KEY_LEFT},
    };
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) define_key(keys[i].seq, keys[i].code);
}

void input_define_keys(void) {
    define_key("\033[200~", KEY_PASTE_BEGIN);
    define_common_keys();
}
