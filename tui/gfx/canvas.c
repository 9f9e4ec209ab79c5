/* canvas.c - see canvas.h. */
#include "canvas.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"
#include "strbuf.h"
#include "utf8.h"

static void blank(Cell *c) {
    c->ch[0] = ' ';
    c->ch[1] = '\0';
    c->width = 1;
    c->st = style_plain();
}

Canvas *cv_new(int w, int h) {
    Canvas *cv = calloc(1, sizeof *cv);
    if (!cv) return NULL;
    if (cv_resize(cv, w, h)) {
        free(cv);
        return NULL;
    }
    return cv;
}

void cv_free(Canvas *cv) {
    if (!cv) return;
    free(cv->cells);
    free(cv);
}

int cv_resize(Canvas *cv, int w, int h) {
    if (w < 1) w = 1;
    if (h < 1) h = 1;
    /* The cells are kept when they are enough: a terminal resized back and
     * forth (or a fuzzer's canvas) allocates only when it grows. */
    size_t need = (size_t)w * (size_t)h;
    if (need > cv->cap) {
        Cell *cells = malloc(sizeof(Cell) * need);
        if (!cells) return -1;
        free(cv->cells);
        cv->cells = cells;
        cv->cap = need;
    }
    cv->w = w;
    cv->h = h;
    cv_clear(cv);
    return 0;
}

void cv_clear(Canvas *cv) {
    cv->clipped = 0;
    /* One blank, then copies of what is done, doubling (a few memcpy calls
     * instead of a store per cell). */
    size_t n = (size_t)cv->w * cv->h, done = 1;
    memset(&cv->cells[0], 0, sizeof cv->cells[0]);
    blank(&cv->cells[0]);
    while (done < n) {
        size_t k = done < n - done ? done : n - done;
        memcpy(&cv->cells[done], &cv->cells[0], k * sizeof cv->cells[0]);
        done += k;
    }
}

/* Before a cell is overwritten, a wide character it is half of becomes blanks
 * on both halves, so that no half character is ever left behind. */
static void unsplit(Canvas *cv, int y, int x) {
    Cell *c = cv_cell(cv, y, x);
    if (c->width == 0 && x > 0) blank(cv_cell(cv, y, x - 1));
    if (c->width == 2 && x + 1 < cv->w) blank(cv_cell(cv, y, x + 1));
}

int cv_text(Canvas *cv, int y, int x, const char *s, int max_cols, Style st) {
    if (y < 0 || y >= cv->h || x >= cv->w || max_cols <= 0 || !s) return 0;
    int limit = x + max_cols < cv->w ? x + max_cols : cv->w;
    int col = x;
    size_t len = strlen(s);
    Cell *last = NULL;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        int n = utf8_decode(s + i, len - i, &cp);
        if (n < 1) n = 1;
        int w, replaced = 0;
        if (cp == UTF8_INVALID || utf8_is_unsafe(cp)) {
            replaced = 1;
            w = 1;
        } else {
            w = text_cp_width(cp);
        }
        if (w == 0) { /* a combining mark joins the character before it */
            if (last) {
                size_t have = strlen(last->ch);
                if (have + (size_t)n < sizeof last->ch) {
                    memcpy(last->ch + have, s + i, (size_t)n);
                    last->ch[have + (size_t)n] = '\0';
                }
            }
            i += (size_t)n;
            continue;
        }
        if (col + w > limit) {
            /* Text that runs past the canvas's edge (not the caller's own
             * limit, and not trailing blanks) is counted: a cut line. */
            if (limit == cv->w) {
                size_t k = i;
                while (k < len && s[k] == ' ') k++;
                if (k < len) cv->clipped++, cv->clip_y = y;
            }
            /* A wide character that does not fit whole: a blank in its place. */
            if (w == 2 && col < limit && col >= 0) {
                unsplit(cv, y, col);
                Cell *c = cv_cell(cv, y, col);
                blank(c);
                c->st = st;
                col++;
            }
            break;
        }
        if (col >= 0) {
            unsplit(cv, y, col);
            if (w == 2) unsplit(cv, y, col + 1);
            Cell *c = cv_cell(cv, y, col);
            if (replaced) {
                c->ch[0] = '?';
                c->ch[1] = '\0';
            } else {
                memcpy(c->ch, s + i, (size_t)n);
                c->ch[n] = '\0';
            }
            c->width = (unsigned char)w;
            c->st = st;
            last = c;
            if (w == 2) {
                Cell *r = cv_cell(cv, y, col + 1);
                r->ch[0] = '\0';
                r->width = 0;
                r->st = st;
            }
        }
        col += w;
        i += (size_t)n;
    }
    return col - x;
}

void cv_text_right(Canvas *cv, int y, int x, const char *s, int cols, Style st) {
    int w = text_width(s, strlen(s));
    if (w > cols) w = cols;
    cv_text(cv, y, x + cols - w, s, w, st);
}

void cv_fill(Canvas *cv, int y, int x, int n, const char *glyph, Style st) {
    /* As n calls of cv_text(cv, y, x + i, glyph, 1, st), which all write the
     * same cell: the first is written by cv_text, the others are copies. */
    if (y < 0 || y >= cv->h || !glyph) return;
    int i = x < 0 ? -x : 0;
    if (i >= n || x + i >= cv->w) return;
    if (cv_text(cv, y, x + i, glyph, 1, st) == 0) return; /* nothing to write (a lone combining mark) */
    Cell first = *cv_cell(cv, y, x + i);
    for (i++; i < n && x + i < cv->w; i++) {
        unsplit(cv, y, x + i);
        *cv_cell(cv, y, x + i) = first;
    }
}

/* Columns of s[0..n). */
static int span_width(const char *s, size_t n) {
    int w = 0;
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        int k = utf8_decode(s + i, n - i, &cp);
        if (k < 1) k = 1;
        w += cp == UTF8_INVALID || utf8_is_unsafe(cp) ? 1 : text_cp_width(cp);
        i += (size_t)k;
    }
    return w;
}

int cv_text_wrap(Canvas *cv, int y, int x, const char *s, int max_cols, int indent, Style st) {
    if (!s || max_cols < 1) return 1;
    size_t len = strlen(s), at = 0;
    int rows = 0;
    while (at < len || rows == 0) {
        int room = rows ? max_cols - indent : max_cols;
        if (room < 1) room = 1;
        /* The longest run of whole words from `at` that fits in room. */
        size_t end = at, fit = at;
        while (end < len) {
            size_t word = end;
            while (word < len && s[word] == ' ') word++;
            size_t stop = word;
            while (stop < len && s[stop] != ' ') stop++;
            if (span_width(s + at, stop - at) > room) break;
            fit = end = stop;
        }
        if (fit == at) { /* one word wider than the line: as much of it as fits */
            fit = at;
            while (fit < len) {
                uint32_t cp;
                int k = utf8_decode(s + fit, len - fit, &cp);
                if (k < 1) k = 1;
                if (span_width(s + at, fit + (size_t)k - at) > room) break;
                fit += (size_t)k;
            }
            if (fit == at && at < len) fit = at + 1;
        }
        if (cv) {
            char line[1024];
            size_t n = fit - at < sizeof line - 1 ? fit - at : sizeof line - 1;
            memcpy(line, s + at, n);
            line[n] = '\0';
            cv_text(cv, y + rows, rows ? x + indent : x, line, room, st);
        }
        rows++;
        at = fit;
        while (at < len && s[at] == ' ') at++;
        if (len == 0) break;
    }
    return rows;
}

int cv_printf(Canvas *cv, int y, int x, int max_cols, Style st, const char *fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return cv_text(cv, y, x, buf, max_cols, st);
}

void cv_blit(Canvas *dst, int dy, int dx, const Canvas *src, int sy, int sx, int h, int w) {
    for (int r = 0; r < h; r++) {
        int y = dy + r, srow = sy + r;
        if (y < 0 || y >= dst->h || srow < 0 || srow >= src->h) continue;
        for (int c = 0; c < w; c++) {
            int x = dx + c, scol = sx + c;
            if (x < 0 || x >= dst->w || scol < 0 || scol >= src->w) continue;
            const Cell *from = &src->cells[(size_t)srow * src->w + scol];
            Cell *to = cv_cell(dst, y, x);
            *to = *from;
            /* A right half without its left half, or a left half without
             * room for its right half, is drawn as a blank. */
            if ((from->width == 0 && c == 0) || (from->width == 2 && (c == w - 1 || x == dst->w - 1))) {
                blank(to);
                to->st = from->st;
            }
        }
    }
}

// ----------------------------------------------------------------------------
// rendering to text

static void sgr(StrBuf *b, Style st, ColorTier tier) {
    char tmp[64];
    int n = snprintf(tmp, sizeof tmp, "\033[0");
    if (st.attr & ST_BOLD) n += snprintf(tmp + n, sizeof tmp - (size_t)n, ";1");
    if (st.attr & ST_DIM) n += snprintf(tmp + n, sizeof tmp - (size_t)n, ";2");
    /* The cell cursor keeps the cell's colours in a text export: underlined. */
    if (st.attr & (ST_UNDERLINE | ST_CURSOR)) n += snprintf(tmp + n, sizeof tmp - (size_t)n, ";4");
    if (st.attr & ST_REVERSE) n += snprintf(tmp + n, sizeof tmp - (size_t)n, ";7");
    if (tier == TIER_256) {
        if (st.fg >= 0) n += snprintf(tmp + n, sizeof tmp - (size_t)n, ";38;5;%d", st.fg);
        if (st.bg >= 0) n += snprintf(tmp + n, sizeof tmp - (size_t)n, ";48;5;%d", st.bg);
    } else if (tier == TIER_8) {
        if (st.fg >= 0) n += snprintf(tmp + n, sizeof tmp - (size_t)n, ";%d", 30 + st.fg % 8);
        if (st.bg >= 0) n += snprintf(tmp + n, sizeof tmp - (size_t)n, ";%d", 40 + st.bg % 8);
    }
    n += snprintf(tmp + n, sizeof tmp - (size_t)n, "m");
    strbuf_add(b, tmp, (size_t)n);
}

static int style_eq(Style a, Style b) { return a.fg == b.fg && a.bg == b.bg && a.attr == b.attr; }

char *cv_render(const Canvas *cv, int ansi, ColorTier tier) {
    StrBuf b = {0};
    for (int y = 0; y < cv->h; y++) {
        const Cell *row = &cv->cells[(size_t)y * cv->w];
        /* Trailing default blanks are dropped. */
        int end = cv->w;
        while (end > 0 && row[end - 1].width == 1 && strcmp(row[end - 1].ch, " ") == 0 &&
               (!ansi || style_eq(row[end - 1].st, style_plain())))
            end--;
        Style cur = style_plain();
        for (int x = 0; x < end; x++) {
            const Cell *c = &row[x];
            if (c->width == 0) continue;
            if (ansi && !style_eq(c->st, cur)) {
                sgr(&b, c->st, tier);
                cur = c->st;
            }
            strbuf_add(&b, c->ch, strlen(c->ch));
        }
        if (ansi && !style_eq(cur, style_plain())) strbuf_add(&b, "\033[0m", 4);
        strbuf_add(&b, "\n", 1);
    }
    if (b.oom) {
        free(b.p);
        return NULL;
    }
    if (!b.p) strbuf_add(&b, "", 0);
    return b.p;
}
