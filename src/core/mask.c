/* mask.c - see mask.h. */
#include "mask.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "number.h"

static const char *const names[MASK_KIND_COUNT] = {"none", "causal", "window", "prefix", "padding", "painted"};

const char *mask_kind_name(MaskKind k) { return (unsigned)k < MASK_KIND_COUNT ? names[k] : "?"; }

void mask_format(char *buf, size_t cap, MaskKind kind, int window, int prefix) {
    if (kind == MASK_WINDOW) snprintf(buf, cap, "window:%d", window);
    else if (kind == MASK_PREFIX) snprintf(buf, cap, "prefix:%d", prefix);
    else snprintf(buf, cap, "%s", mask_kind_name(kind));
}

static int parse_param(const char *s, int lo, const char *what, int *out, AvError *err) {
    long v;
    if (num_parse_long(s, lo, MASK_MAX_PARAM, &v) != NUM_OK)
        return av_errorf(err, _("'%s:%s': %s must be a whole number in %d..%d"), what, s, what, lo, MASK_MAX_PARAM);
    *out = (int)v;
    return 0;
}

int mask_parse(const char *s, MaskKind *kind, int *window, int *prefix, AvError *err) {
    if (strncmp(s, "window:", 7) == 0) {
        if (parse_param(s + 7, 1, "window", window, err)) return -1;
        *kind = MASK_WINDOW;
        return 0;
    }
    if (strncmp(s, "prefix:", 7) == 0) {
        if (parse_param(s + 7, 0, "prefix", prefix, err)) return -1;
        *kind = MASK_PREFIX;
        return 0;
    }
    for (int k = 0; k < MASK_KIND_COUNT; k++)
        if (k != MASK_WINDOW && k != MASK_PREFIX && strcmp(s, names[k]) == 0) {
            *kind = (MaskKind)k;
            return 0;
        }
    return av_errorf(err, _("unknown mask '%s' (expected none, causal, window:W, prefix:P, padding or painted)"), s);
}

int mask_applies(MaskKind kind, int cross) {
    if (!cross) return 1;
    return kind != MASK_CAUSAL && kind != MASK_WINDOW && kind != MASK_PREFIX;
}

void mask_fill(unsigned char *allowed, const MaskSpec *spec, int n_q, int n_k) {
    MaskKind kind = mask_applies(spec->kind, spec->cross) ? spec->kind : MASK_NONE;
    /* the kind chosen once per row: each inner loop is a plain one the compiler vectorizes */
    for (int i = 0; i < n_q; i++) {
        unsigned char *row = allowed + (size_t)i * n_k;
        switch (kind) {
        case MASK_CAUSAL: {
            int vis = i + 1 < n_k ? i + 1 : n_k; /* keys 0..i */
            memset(row, 1, (size_t)vis);
            memset(row + vis, 0, (size_t)(n_k - vis));
            break;
        }
        case MASK_WINDOW:
            for (int j = 0; j < n_k; j++) row[j] = (unsigned char)(j <= i && j > i - spec->window);
            break;
        case MASK_PREFIX:
            for (int j = 0; j < n_k; j++) row[j] = (unsigned char)((i < spec->prefix && j < spec->prefix) || j <= i);
            break;
        case MASK_PADDING:
            for (int j = 0; j < n_k; j++) row[j] = (unsigned char)!(spec->pad_key && spec->pad_key[j]);
            break;
        case MASK_PAINTED:
            for (int j = 0; j < n_k; j++)
                row[j] = (unsigned char)(!spec->painted || spec->painted[(size_t)i * n_k + j]);
            break;
        default: memset(row, 1, (size_t)n_k); break;
        }
    }
}

// ----------------------------------------------------------------------------
// the mask file

/* The header line of the runs format. */
static const char runs_word[] = "runs";

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* A byte of the file for a message: printable as itself, others in hex. */
static int bad_char(AvError *err, const char *name, int line, int column, const char *expected, char c) {
    if ((unsigned char)c < 0x20 || (unsigned char)c >= 0x7F)
        return av_errorf(err, _("%s:%d:%d: expected %s, found byte 0x%02X"), name, line, column, expected,
                         (unsigned char)c);
    return av_errorf(err, _("%s:%d:%d: expected %s, found '%c'"), name, line, column, expected, c);
}

/* One row of 0/1 values in buf[p0, stop) (line starts at `start`). */
static int parse_bits_row(unsigned char *out, int n_k, const char *buf, size_t start, size_t p0, size_t stop,
                          const char *name, int line, AvError *err) {
    int col = 0;
    for (size_t p = p0; p < stop; p++) {
        char c = buf[p];
        if (is_blank(c)) continue;
        int column = (int)(p - start) + 1;
        if (c != '0' && c != '1') return bad_char(err, name, line, column, _("0 or 1"), c);
        if (col >= n_k)
            return av_errorf(err, _("%s:%d:%d: more than %d values (one per key)"), name, line, column, n_k);
        out[col++] = (unsigned char)(c == '1');
    }
    if (col != n_k)
        return av_errorf(err, _("%s:%d: %d %s, expected %d (one per key)"), name, line, col,
                         num_plural("value", "values", col), n_k);
    return 0;
}

/* One row of run lengths in buf[p0, stop): visible, masked, visible, ... */
static int parse_runs_row(unsigned char *out, int n_k, const char *buf, size_t start, size_t p0, size_t stop,
                          const char *name, int line, AvError *err) {
    int col = 0, visible = 1;
    for (size_t p = p0; p < stop; p++) {
        if (is_blank(buf[p])) continue;
        int column = (int)(p - start) + 1;
        if (buf[p] < '0' || buf[p] > '9')
            return bad_char(err, name, line, column, _("a run length (a whole number)"), buf[p]);
        long v = 0;
        /* Stops as soon as the run passes the row: no overflow, whatever the digits. */
        while (p < stop && buf[p] >= '0' && buf[p] <= '9' && v <= n_k) v = v * 10 + (buf[p++] - '0');
        if (col + v > n_k)
            return av_errorf(err, _("%s:%d:%d: this run goes past the %d keys of the row"), name, line, column, n_k);
        memset(out + col, visible, (size_t)v);
        col += (int)v;
        visible = !visible;
        p--;
    }
    if (col != n_k)
        return av_errorf(err, _("%s:%d: the runs cover %d %s, expected %d (one per key)"), name, line, col,
                         num_plural("key", "keys", col), n_k);
    return 0;
}

int mask_parse_grid(unsigned char **grid, int n_q, int n_k, const char *buf, size_t len, const char *name,
                    AvError *err) {
    *grid = NULL;
    unsigned char *g = malloc((size_t)(n_q > 0 ? n_q : 1) * (size_t)(n_k > 0 ? n_k : 1));
    if (!g) return av_error_nomem(err, _("%s: out of memory"), name);
    int row = 0, line = 1, runs = -1; /* -1: the first line with values decides the format */
    size_t i = 0;
    while (i <= len) {
        size_t end = i, stop;
        while (end < len && buf[end] != '\n') end++;
        for (stop = i; stop < end && buf[stop] != '#';) stop++;
        size_t p = i;
        while (p < stop && is_blank(buf[p])) p++;
        if (p < stop) {
            size_t w = sizeof runs_word - 1;
            int header = stop - p >= w && memcmp(buf + p, runs_word, w) == 0 && (p + w == stop || is_blank(buf[p + w]));
            if (runs < 0 && (runs = header) != 0) {
                size_t q = p + w;
                while (q < stop && is_blank(buf[q])) q++;
                if (q < stop) {
                    free(g);
                    return av_errorf(err, _("%s:%d:%d: nothing may follow 'runs' on its line"), name, line,
                                     (int)(q - i) + 1);
                }
            } else if (row >= n_q) {
                free(g);
                return av_errorf(err, _("%s:%d:%d: more than %d rows (one per query)"), name, line, (int)(p - i) + 1,
                                 n_q);
            } else {
                unsigned char *out = g + (size_t)row * (size_t)n_k;
                if (runs ? parse_runs_row(out, n_k, buf, i, p, stop, name, line, err)
                         : parse_bits_row(out, n_k, buf, i, p, stop, name, line, err)) {
                    free(g);
                    return -1;
                }
                row++;
            }
        }
        if (end >= len) break;
        i = end + 1;
        line++;
    }
    if (row != n_q) {
        free(g);
        return av_errorf(err, _("%s: %d %s, expected %d (one per query)"), name, row, num_plural("row", "rows", row),
                         n_q);
    }
    *grid = g;
    return 0;
}

/* Appends to a text being measured (dst NULL) or written. */
typedef struct {
    char *dst;
    size_t n;
} Emit;

static void emit(Emit *e, const char *s, size_t len) {
    if (e->dst) memcpy(e->dst + e->n, s, len);
    e->n += len;
}

static void emit_int(Emit *e, int v) {
    char num[16];
    int k = snprintf(num, sizeof num, "%d", v);
    emit(e, num, (size_t)k);
}

static size_t run_count(const unsigned char *row, int n_k) {
    size_t runs = n_k > 0 && !row[0]; /* the leading 0 of a row that starts masked */
    for (int j = 0; j < n_k; j++)
        if (j == 0 || (row[j] != 0) != (row[j - 1] != 0)) runs++;
    return runs;
}

/* The whole text; with e->dst NULL only its length is counted. */
static void emit_grid(Emit *e, const unsigned char *grid, int n_q, int n_k, const char *comments, unsigned char *ones) {
    char head[160];
    int bits = n_k >= 1 && n_k <= MASK_BITS_MAX_KEYS;
    int k = snprintf(head, sizeof head, "# attnviz painted mask: %d queries x %d keys, %s\n", n_q, n_k,
                     bits ? "1 = visible, 0 = masked" : "as runs");
    emit(e, head, (size_t)k);
    if (!bits) {
        static const char how[] = "# attnviz runs: each row lists the lengths of its runs of visible and masked\n"
                                  "# attnviz runs: keys in turn, visible first (0 first when the row starts masked)\n";
        emit(e, how, sizeof how - 1);
    }
    if (comments) emit(e, comments, strlen(comments));
    if (!bits) emit(e, "runs\n", 5);
    for (int i = 0; i < n_q; i++) {
        const unsigned char *row = grid ? grid + (size_t)i * (size_t)n_k : ones;
        if (bits) {
            for (int j = 0; j < n_k; j++) {
                char two[2] = {(char)('0' + (row[j] != 0)), j + 1 < n_k ? ' ' : '\n'};
                emit(e, two, 2);
            }
            continue;
        }
        if (n_k > 0 && !row[0]) emit(e, "0 ", 2);
        for (int j = 0; j < n_k;) {
            int r = j;
            while (r < n_k && (row[r] != 0) == (row[j] != 0)) r++;
            emit_int(e, r - j);
            if (r < n_k) emit(e, " ", 1);
            j = r;
        }
        if (n_k == 0) emit(e, "0", 1);
        emit(e, "\n", 1);
    }
}

int mask_format_grid(char **out, size_t *len, const unsigned char *grid, int n_q, int n_k, const char *comments,
                     size_t max, AvError *err) {
    *out = NULL;
    *len = 0;
    /* An all-visible row for grid NULL (n_k <= 4096 bytes). */
    unsigned char *ones = grid ? NULL : malloc((size_t)(n_k > 0 ? n_k : 1));
    if (!grid && !ones) return av_error_nomem(err, _("out of memory"));
    if (ones) memset(ones, 1, (size_t)(n_k > 0 ? n_k : 1));
    Emit e = {NULL, 0};
    emit_grid(&e, grid, n_q, n_k, comments, ones);
    if (e.n > max) {
        size_t runs = 0;
        for (int i = 0; grid && i < n_q; i++) runs += run_count(grid + (size_t)i * (size_t)n_k, n_k);
        free(ones);
        return av_errorf(err,
                         _("the painted mask (%d x %d, %zu runs of visible and masked keys) takes %zu bytes, over the "
                           "limit of %zu that attnviz reads back: paint it in larger blocks"),
                         n_q, n_k, runs, e.n, max);
    }
    e.dst = malloc(e.n + 1);
    if (!e.dst) {
        free(ones);
        return av_error_nomem(err, _("out of memory"));
    }
    e.n = 0;
    emit_grid(&e, grid, n_q, n_k, comments, ones);
    e.dst[e.n] = '\0';
    free(ones);
    *out = e.dst;
    *len = e.n;
    return 0;
}

char *mask_file_comments(const char *buf, size_t len, int *dropped) {
    *dropped = 0;
    char *out = malloc(len + 2);
    if (!out) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        size_t end = i;
        while (end < len && buf[end] != '\n') end++;
        size_t p = i;
        while (p < end && is_blank(buf[p])) p++;
        static const char ours[] = "# attnviz";
        if (p < end && buf[p] == '#') {
            /* A NUL cannot live in the NUL-terminated text: it goes, before
             * the line is judged (what is written is what is read again). */
            size_t o0 = o, q = o;
            for (size_t c = i; c < end; c++)
                if (buf[c]) out[o++] = buf[c];
            while (q < o && is_blank(out[q])) q++;
            if (o - q >= sizeof ours - 1 && memcmp(out + q, ours, sizeof ours - 1) == 0) o = o0;
            else out[o++] = '\n';
        } else if (memchr(buf + p, '#', end - p)) {
            (*dropped)++;
        }
        i = end + 1;
    }
    out[o] = '\0';
    return out;
}
