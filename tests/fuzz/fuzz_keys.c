/* fuzz_keys.c - libFuzzer target for the key handler and the views
 * (tui/app.h): a byte stream is played to the app as keys, mouse events and
 * resizes, and every step is drawn on a text canvas.
 *
 * Byte 0 chooses the set-up:  bits 0-1 colour tier (none, 8, 256), bit 2
 * --ascii, bit 3 d_v follows d_k, bit 4 a --pattern ("\S+", in the t cycle),
 * bit 5 enforce the 80x24 minimum, bit 6 the model comes from a Q/K/V file
 * instead of the sentence "the cat sat on the mat", bit 7 the odd shapes: for
 * the sentence d_v 3 (not d_k) and positional encoding on, for the file
 * cross-attention (2 queries, 3 keys, d_v 2) instead of the worked example.
 * The canvas starts at 80x24. Each following byte:
 *   0x02 Up 0x03 Down 0x04 Left 0x06 Right 0x07 Shift-Tab 0x0E Backspace
 *   0x0F Delete 0x10 Home 0x11 End 0x12 PgDn 0x13 PgUp 0x14 KEY_ENTER
 *   0x16 KEY_RESIZE   0x17 any KEY_* code: 0x100 + the next byte
 *   0x18 resize the canvas to (1 + next % 250, 1 + next % 70)
 *   0x19 resize to a classic size: 80x24, 200x50, 120x40, 20x5 (next % 4)
 *   0x1A mouse: app_mouse(y = next % 80, x = next, button = next % 8)
 *   0x1C a frame now
 *   0x1D a bracketed paste: the next byte n, then n % 64 + 1 characters
 *        (code points as below) to app_paste_char
 *   0x1E at the end, also draw the view as --once does
 *   a byte that starts a valid UTF-8 sequence: that code point
 *   anything else (other controls, Esc, DEL, stray UTF-8 bytes): the byte
 *   itself as a character.
 * Quitting ('q') is undone (a.quit = 0) and the stream goes on.
 *
 * Frames come as in the screen loop, where every key already waiting is
 * applied before one frame: keys go to app_key, and a frame (app_draw, which
 * recomputes what the view needs) follows a 0x1C and every FRAME_EVERY keys,
 * at most MAX_FRAMES times, and always the end of the input. Every frame is
 * checked: the app is consistent (check_app), and every cell, as the screen
 * loop hands it to ncurses, is valid UTF-8 with no C0/C1 control or DEL, a
 * wide character followed by its right half (check_cells). The last frame is
 * also rendered: the plain render (cv_render without ANSI) holds no C0 control
 * but '\n', no DEL, no C1 control, and is valid UTF-8 of exactly h lines; the
 * ANSI render holds ESC only as the start of an SGR sequence ("\x1b["
 * digits/';' "m"). When asked (0x1E), the view is also drawn as --once does (a
 * canvas of app_natural_height rows) and its renders checked the same way. At
 * the end the model's weights are checked (no NaN, in [0, 1], rows sum to 1
 * or 0).
 *
 * Keeping each run fast (over a thousand inputs a second under ASan and
 * UBSan): frames only as above (a frame costs about as much as a hundred
 * keys; an input that asks for a frame after every key is played whole, with
 * its first MAX_FRAMES frames); cells checked, not rendered, but at the end;
 * one canvas for all inputs (resizing allocates only when it grows); at most
 * MAX_KEYS keys per input; the --once page only when asked; the keys that grow
 * the model ('+' '=' double d_k, '>' '.' add a head) are skipped once
 * model_cost() passes GROW_LIMIT (typing a d_k at the 'd' prompt is not
 * limited: it is one jump, bounded by 4096); P, which writes a picture file,
 * is skipped (test_picture and e2e_export test it); and the input stops once the
 * recomputations have cost WORK_BUDGET in total (a long text typed at the 'e'
 * prompt makes every later recomputation expensive).
 *
 * FUZZ_AVOID_KNOWN=1 in the environment steers around the crashes already
 * reported (kept in tests/fuzz/regress/keys/), so that a long run can look
 * for new ones; without it (the default, and always in fuzz-regress) every
 * input is played as it is. None is open now (tests/fuzz/README.md lists the
 * fixed ones: cell-page-on-layer-stage, heads-view-one-row-canvas); known_crash
 * is where the next one goes. */
#include <curses.h>
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "canvas.h"
#include "fuzz_util.h"
#include "keycode.h"
#include "model.h"
#include "qkvfile.h"
#include "utf8.h"

#define MAX_KEYS    2000
#define FRAME_EVERY 64  /* keys between frames when the input asks for none */
#define PASTE_MAX   64  /* characters of one bracketed paste */
#define MAX_FRAMES  4   /* frames asked for (0x1C, FRAME_EVERY) per input; later ones are skipped */
#define GROW_LIMIT  1e5 /* model_cost: 2 heads, d_k 4, 6 tokens ~3e4; d_k 32 ~1e5; d_k 128 ~3e5; d_k 4096 ~1.5e7 */
#define WORK_BUDGET 2e7 /* about 0.04 s of recomputation */

static const char SENTENCE[] = "the cat sat on the mat";
static const char WORKED_QKV[] = "tokens: 나는 학교에 간다\n"
                                 "Q:\n0.1 0.3 0.5\n0.4 0.2 0.6\n0.7 0.8 0.9\n"
                                 "K:\n0.2 0.1 0.3\n0.5 0.7 0.4\n0.9 0.2 0.8\n"
                                 "V:\n0.3 0.7 0.5\n0.6 0.4 0.8\n0.9 0.5 0.2\n";
static const char CROSS_QKV[] = "tokens: 나는 학교에 간다\n"
                                "Q:\n0.1 0.3 0.5\n-3 2 1e3\n"
                                "K:\n0.2 0.1 0.3\n0.5 0.7 0.4\n0.9 0.2 0.8\n"
                                "V:\n0.3 0.7\n0.6 0.4\n0.9 -0.5\n";

static int avoid_known;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    setlocale(LC_ALL, "C.UTF-8");
    const char *e = getenv("FUZZ_AVOID_KNOWN");
    avoid_known = e && e[0] == '1';
    return 0;
}

/* 1 when drawing a on cv would walk into a crash already reported (see
 * FUZZ_AVOID_KNOWN); the frame is then skipped. */
static int known_crash(const App *a, const Canvas *cv) {
    if (!avoid_known) return 0;
    (void)a, (void)cv;
    return 0; /* none open */
}

static void draw(App *a, Canvas *cv) {
    if (!known_crash(a, cv)) app_draw(a, cv);
}

/* Rough cost of a full recomputation, in multiply-adds: drawing the weights
 * (a normal costs about 10), the projections and the (n, n) stages of every
 * head. */
static double model_cost(const Model *m) {
    const ModelConfig *c = &m->cfg;
    double n = m->n_q > m->n_k ? m->n_q : m->n_k;
    double weights = (double)c->heads * c->d_model * (2.0 * c->d_k + 2.0 * c->d_v);
    /* Additive scores: A = Q W1^T and B = K W2^T in double (d_k^2 a row),
     * then a tanh for every (row, key, element), each worth about 10. */
    double additive = c->score == SCORE_ADDITIVE
                          ? c->heads * ((m->n_q + m->n_k) * 2.0 * c->d_k * c->d_k + 10.0 * m->n_q * m->n_k * c->d_k)
                          : 0.0;
    return 10.0 * weights +
           c->heads * n * ((double)c->d_model * (2.0 * c->d_k + c->d_v) + n * (c->d_k + c->d_v + 4.0)) +
           n * c->d_model + additive;
}

static unsigned long computed_total(const Model *m) {
    unsigned long t = 0;
    for (int s = 0; s < STAGE_COUNT; s++) t += m->computed[s];
    return t;
}

static Model *make_model(int from_qkv, int odd) {
    Model *m = model_new();
    FUZZ_CHECK(m != NULL, "out of memory");
    AvError err = {0};
    if (from_qkv) {
        QkvData d;
        const char *file = odd ? CROSS_QKV : WORKED_QKV;
        FUZZ_CHECK(qkv_parse(&d, file, strlen(file), "worked.qkv", &err) == 0, "%s", err.msg);
        FUZZ_CHECK(model_set_qkv(m, &d, &err) == 0, "%s", err.msg);
    } else {
        ModelConfig c;
        model_config_default(&c);
        c.d_model = 16, c.heads = 2, c.d_k = 4, c.d_v = odd ? 3 : 4;
        if (odd) c.pos = POS_SINUSOIDAL;
        FUZZ_CHECK(model_set_config(m, &c, &err) == 0, "%s", err.msg);
        FUZZ_CHECK(model_set_text(m, SENTENCE, sizeof SENTENCE - 1, &err) == 0, "%s", err.msg);
    }
    FUZZ_CHECK(model_update(m, &err) == 0, "%s", err.msg);
    return m;
}

FUZZ_NO_COVERAGE static void check_plain(const char *s, int h) {
    size_t len = strlen(s);
    long bad = fuzz_first_unsafe(s, len, "\n");
    if (bad >= 0) fuzz_dump("screen", s, len);
    FUZZ_CHECK(bad < 0, "plain render has an unsafe byte at %ld", bad);
    int lines = 0;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        int k = utf8_decode(s + i, len - i, &cp);
        if (cp == UTF8_INVALID) fuzz_dump("screen", s, len);
        FUZZ_CHECK(cp != UTF8_INVALID, "plain render is not valid UTF-8 at byte %zu", i);
        lines += cp == '\n';
        i += (size_t)k;
    }
    FUZZ_CHECK(lines == h, "plain render has %d lines for a canvas of %d rows", lines, h);
}

FUZZ_NO_COVERAGE static void check_ansi(const char *s) {
    size_t len = strlen(s);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == 0x1B) {
            size_t j = i + 1;
            FUZZ_CHECK(j < len && s[j] == '[', "ESC not followed by '[' at byte %zu", i);
            for (j++; j < len && ((s[j] >= '0' && s[j] <= '9') || s[j] == ';'); j++) {
            }
            if (j >= len || s[j] != 'm') fuzz_dump("screen", s, len);
            FUZZ_CHECK(j < len && s[j] == 'm', "escape sequence at byte %zu is not an SGR", i);
            i = j;
            continue;
        }
        long bad = fuzz_first_unsafe(s + i, len - i > 1 ? 2 : 1, "\n");
        if (bad == 0) fuzz_dump("screen", s, len);
        FUZZ_CHECK(bad != 0, "ANSI render has an unsafe byte at %zu", i);
    }
}

FUZZ_NO_COVERAGE static void render_and_check(const Canvas *cv, ColorTier tier) {
    char *s = cv_render(cv, 0, TIER_NONE);
    FUZZ_CHECK(s != NULL, "cv_render failed");
    check_plain(s, cv->h);
    free(s);
    s = cv_render(cv, 1, tier);
    FUZZ_CHECK(s != NULL, "cv_render (ANSI) failed");
    check_ansi(s);
    free(s);
}

static void check_weights(const Model *m) {
    for (int h = 0; h < m->cfg.heads; h++) {
        const HeadData *hd = &m->head[h];
        for (int i = 0; i < m->n_q; i++) {
            for (int j = 0; j < m->n_k; j++) {
                float w = hd->weights[(size_t)i * m->n_k + j];
                FUZZ_CHECK(w >= 0.0f && w <= 1.0f, "head %d weight [%d][%d] = %g", h, i, j, (double)w);
            }
            double s = hd->row_sums[i];
            FUZZ_CHECK(fabs(s - 1.0) <= 1e-5 || s == 0.0, "head %d row %d sums to %.12g", h, i, s);
        }
    }
}

static void check_app(const App *a) {
    const Model *m = a->m;
    /* app_key only changes the configuration; a frame (app_draw) computes
     * what its view needs (Y only for the views that show it). */
    FUZZ_CHECK(!app_needs_update(a), "a frame left the model stale (from stage %d)", (int)m->stale);
    FUZZ_CHECK(a->head >= 0 && a->head < m->cfg.heads, "head %d of %d", a->head, m->cfg.heads);
    FUZZ_CHECK(a->ci >= 0 && (a->ci < m->n_q || (m->n_q == 0 && a->ci == 0)), "cursor row %d of %d", a->ci, m->n_q);
    FUZZ_CHECK(a->cj >= 0, "cursor column %d", a->cj);
    FUZZ_CHECK(memchr(a->msg, '\0', sizeof a->msg) != NULL, "status message not NUL-terminated");
}

static uint8_t next_byte(const uint8_t *data, size_t size, size_t *i) { return *i < size ? data[(*i)++] : 0; }

/* The character that starts at data[*i - 1] (already taken): a valid UTF-8
 * sequence gives its code point (and is taken whole), anything else the byte. */
static uint32_t next_char(const uint8_t *data, size_t size, size_t *i, uint8_t b) {
    if (b < 0x80) return b;
    uint32_t cp;
    int n = utf8_decode((const char *)data + *i - 1, size - (*i - 1), &cp);
    if (cp == UTF8_INVALID) return b;
    *i += (size_t)n - 1;
    return cp;
}

/* The cells of a canvas as the screen loop hands them to ncurses: each holds
 * valid UTF-8 with no byte a terminal acts on, a wide character is followed
 * by its right half (width 0) and nothing else has width 0. Cheaper than a
 * render; the renders are checked at the end of the input. */
FUZZ_NO_COVERAGE static void check_cells(const Canvas *cv) {
    for (int y = 0; y < cv->h; y++) {
        for (int x = 0; x < cv->w; x++) {
            const Cell *c = &cv->cells[(size_t)y * cv->w + x];
            size_t len = strnlen(c->ch, sizeof c->ch);
            FUZZ_CHECK(len < sizeof c->ch, "cell (%d, %d) is not NUL-terminated", y, x);
            FUZZ_CHECK(c->width <= 2, "cell (%d, %d) has width %d", y, x, c->width);
            int right_half = x > 0 && cv->cells[(size_t)y * cv->w + x - 1].width == 2;
            FUZZ_CHECK((c->width == 0) == right_half, "cell (%d, %d): width %d after a cell of width %d", y, x,
                       c->width, x > 0 ? cv->cells[(size_t)y * cv->w + x - 1].width : -1);
            FUZZ_CHECK(c->width != 2 || x + 1 < cv->w, "wide character in the last column of row %d", y);
            FUZZ_CHECK(c->width != 0 || len == 0, "right half (%d, %d) holds \"%s\"", y, x, c->ch);
            FUZZ_CHECK(c->width == 0 || len > 0, "cell (%d, %d) is empty", y, x);
            if (len == 1 && c->ch[0] >= 0x20 && c->ch[0] < 0x7F) continue;
            if (fuzz_first_unsafe(c->ch, len, NULL) >= 0) fuzz_dump("cell", c->ch, len);
            FUZZ_CHECK(fuzz_first_unsafe(c->ch, len, NULL) < 0, "cell (%d, %d) has an unsafe byte", y, x);
            for (size_t i = 0; i < len;) {
                uint32_t cp;
                int k = utf8_decode(c->ch + i, len - i, &cp);
                if (cp == UTF8_INVALID) fuzz_dump("cell", c->ch, len);
                FUZZ_CHECK(cp != UTF8_INVALID, "cell (%d, %d) is not valid UTF-8", y, x);
                i += (size_t)k;
            }
        }
    }
}

/* One frame as the screen loop draws it, and its checks (the renders too when
 * render is set). Adds the cost of a recomputation, if the frame made one, to
 * *work. */
static void frame(App *a, Canvas *cv, ColorTier tier, double *work, int render) {
    unsigned long before = computed_total(a->m);
    draw(a, cv);
    if (computed_total(a->m) != before) *work += model_cost(a->m);
    check_app(a);
    check_cells(cv);
    if (render) render_and_check(cv, tier);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    uint8_t setup = data[0];
    ColorTier tier = (ColorTier)((setup & 3) % 3);
    int ascii = (setup >> 2) & 1, dv_follows = (setup >> 3) & 1;
    const char *pattern = (setup >> 4) & 1 ? "\\S+" : NULL;
    Model *m = make_model((setup >> 6) & 1, (setup >> 7) & 1);
    App a;
    app_init(&a, m, tier, ascii, dv_follows, pattern);
    a.enforce_min = (setup >> 5) & 1;
    /* One canvas for every input (resizing it allocates only when it grows). */
    static Canvas *cv;
    if (!cv) cv = cv_new(80, 24);
    FUZZ_CHECK(cv != NULL && cv_resize(cv, 80, 24) == 0, "out of memory");
    /* The first frame, as the screen loop draws one before any key. It
     * depends on byte 0 alone: its render is checked once per set-up. */
    static unsigned char setup_seen[256];
    double work = 0.0;
    frame(&a, cv, tier, &work, !setup_seen[setup]);
    setup_seen[setup] = 1;

    int keys = 0, since_frame = 0, once = 0, frames = 0;
    size_t i = 1;
    while (i < size && keys < MAX_KEYS && work < WORK_BUDGET) {
        uint8_t b = data[i++];
        AppKey k = {0, b};
        int is_key = 1;
        switch (b) {
        case 0x02: k = (AppKey){1, keycode_from_curses(KEY_UP)}; break;
        case 0x03: k = (AppKey){1, keycode_from_curses(KEY_DOWN)}; break;
        case 0x04: k = (AppKey){1, keycode_from_curses(KEY_LEFT)}; break;
        case 0x06: k = (AppKey){1, keycode_from_curses(KEY_RIGHT)}; break;
        case 0x07: k = (AppKey){1, keycode_from_curses(KEY_BTAB)}; break;
        case 0x0E: k = (AppKey){1, keycode_from_curses(KEY_BACKSPACE)}; break;
        case 0x0F: k = (AppKey){1, keycode_from_curses(KEY_DC)}; break;
        case 0x10: k = (AppKey){1, keycode_from_curses(KEY_HOME)}; break;
        case 0x11: k = (AppKey){1, keycode_from_curses(KEY_END)}; break;
        case 0x12: k = (AppKey){1, keycode_from_curses(KEY_NPAGE)}; break;
        case 0x13: k = (AppKey){1, keycode_from_curses(KEY_PPAGE)}; break;
        case 0x14: k = (AppKey){1, keycode_from_curses(KEY_ENTER)}; break;
        case 0x16: k = (AppKey){1, keycode_from_curses(KEY_RESIZE)}; break;
        case 0x17: k = (AppKey){1, keycode_from_curses((int)(0x100u + next_byte(data, size, &i)))}; break;
        case 0x18: {
            int w = 1 + next_byte(data, size, &i) % 250;
            int h = 1 + next_byte(data, size, &i) % 70;
            FUZZ_CHECK(cv_resize(cv, w, h) == 0, "cv_resize(%d, %d) failed", w, h);
            is_key = 0;
            break;
        }
        case 0x19: {
            static const int sizes[4][2] = {{80, 24}, {200, 50}, {120, 40}, {20, 5}};
            int s = next_byte(data, size, &i) % 4;
            FUZZ_CHECK(cv_resize(cv, sizes[s][0], sizes[s][1]) == 0, "cv_resize failed");
            is_key = 0;
            break;
        }
        case 0x1A: {
            int y = next_byte(data, size, &i) % 80;
            int x = next_byte(data, size, &i);
            int button = next_byte(data, size, &i) % 8;
            app_mouse(&a, y, x, button);
            is_key = 0;
            break;
        }
        case 0x1C:
            if (frames < MAX_FRAMES) frame(&a, cv, tier, &work, 0), frames++;
            since_frame = 0;
            continue;
        case 0x1D: {
            int n = next_byte(data, size, &i) % PASTE_MAX + 1;
            for (int c = 0; c < n && i < size && keys < MAX_KEYS; c++, keys++) {
                uint8_t pb = data[i++];
                app_paste_char(&a, next_char(data, size, &i, pb));
            }
            is_key = 0;
            break;
        }
        case 0x1E: once = 1; continue;
        default: k.ch = next_char(data, size, &i, b); break;
        }
        if (is_key) {
            keys++;
            /* Growing keys are skipped past GROW_LIMIT; not inside a prompt,
             * where they are text. */
            int grows = !k.is_code && (k.ch == '+' || k.ch == '=' || k.ch == '>' || k.ch == '.');
            if (grows && a.prompt == PROMPT_NONE && model_cost(m) > GROW_LIMIT) continue;
            /* P writes a picture file (test_picture and e2e_export test it). */
            if (!k.is_code && k.ch == 'P' && a.prompt == PROMPT_NONE) continue;
            app_key(&a, k);
            if (a.quit) a.quit = 0;
        }
        if (++since_frame >= FRAME_EVERY) {
            if (frames < MAX_FRAMES) frame(&a, cv, tier, &work, 0), frames++;
            since_frame = 0;
        }
    }
    frame(&a, cv, tier, &work, 1);
    if (once) {
        /* The --once path: the whole view at its natural height (width 20..1000). */
        int ow = cv->w < 20 ? 20 : cv->w;
        int oh = app_natural_height(&a, ow);
        FUZZ_CHECK(oh >= 1 && oh <= 1000000, "app_natural_height(%d) = %d", ow, oh);
        if ((double)ow * oh <= 4e6) {
            Canvas *page = cv_new(ow, oh);
            FUZZ_CHECK(page != NULL, "out of memory");
            app_draw(&a, page);
            render_and_check(page, tier);
            cv_free(page);
        }
    }
    /* The model the app shows (w may have switched to another; the one it left
     * is not computed again until it is shown). */
    check_weights(a.m);
    app_free(&a);
    model_free(m);
    return 0;
}
