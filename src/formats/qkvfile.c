/* qkvfile.c - parse the plain-text Q/K/V file of DESIGN.md §3 (see qkvfile.h).
 *
 * The file is typed by hand, so every mistake gets one line naming the file,
 * the line and the column, what was wrong and what was expected:
 *   "worked.qkv:7:5: expected a number, found 'x1'"
 *
 * Lexical rules, beyond the header's summary:
 * - Lines end with LF; CRLF works because CR counts as whitespace.
 * - Words are separated by ASCII whitespace only: space, tab, CR. Other
 *   spaces (U+00A0, U+3000, ...) are part of a word, so a token may hold them.
 * - '#' starts a comment anywhere, also inside a tokens: line ("C#" is "C").
 * - A label is the first word of a line when it holds a ':'. Labels are
 *   Q:, K:, V: (or q:, k:, v:) and tokens: (any ASCII case).
 * - A UTF-8 byte order mark at the very start is skipped. The rest must be
 *   valid UTF-8 without NUL bytes; that is checked before anything else.
 * - Lines are counted from 1; columns from 1 in characters (UTF-8 code points,
 *   a tab is one character), as editors show them, not in bytes. The BOM is
 *   not counted.
 * - Words quoted in messages are escaped (control and invisible characters
 *   become \xNN per byte) and cut to 32 bytes, so a message never carries a
 *   raw escape sequence into the terminal.
 */
#include "qkvfile.h"

#include "utf8.h"

#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "readfile.h"
#include "number.h"

/* Largest block: bigger is no longer something a person reads on a screen, and
 * it bounds memory for qkv_parse of a buffer that did not come from a file. */
#define QKV_MAX_ROWS 4096
#define QKV_MAX_COLS 4096

/* A quoted word is cut to this many bytes (after escaping) in messages. */
#define QKV_QUOTE_MAX 32

enum { QKV_Q, QKV_K, QKV_V, QKV_BLOCKS };

static const char *const qkv_block_names[QKV_BLOCKS] = {"Q", "K", "V"};

typedef struct {
    float *data; /* (rows, cols) row-major; cap floats allocated */
    size_t cap;
    int rows, cols; /* cols is set by the first row */
    int seen;       /* its label has appeared */
    size_t label_line, label_col;
    size_t first_row_line, first_row_col;
} QkvBlock;

typedef struct {
    size_t offset, len; /* bytes of the token in the buffer */
} QkvSpan;

typedef struct {
    const char *buf;
    size_t len;
    const char *name;
    AvError *err;
    size_t line;       /* current line, 1-based */
    size_t line_start; /* byte offset where the current line starts */
    QkvBlock block[QKV_BLOCKS];
    int current; /* block that rows go to, or -1 before the first label */
    int has_tokens;
    size_t tokens_line, tokens_col;
    QkvSpan *tokens; /* n_tokens spans into buf */
    int n_tokens;
    size_t tokens_cap;
    char *scratch; /* NUL-terminated copy of a number for strtod */
    size_t scratch_cap;
} QkvParser;

// ---------------------------------------------------------------------------
// UTF-8 and quoting

/* One strict UTF-8 sequence at s[0..n) (utf8.h's decoder): its length, or 0
 * when it is invalid. */
static size_t qkv_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp) {
    if (n == 0) return 0;
    int len = utf8_decode((const char *)s, n, cp);
    return *cp == UTF8_INVALID ? 0 : (size_t)len;
}

/* The zero-width (non-)joiners and the emoji presentation selectors may be
 * part of a token (emoji sequences, Persian, Indic scripts): shown escaped,
 * never refused. */
static int qkv_is_joiner(uint32_t cp) { return cp == 0x200C || cp == 0x200D || cp == 0xFE0E || cp == 0xFE0F; }

/* What a token may not hold: what must never reach a terminal raw
 * (utf8_is_unsafe: controls, bidi and other format characters), joiners
 * aside. */
static int qkv_is_hidden(uint32_t cp) { return utf8_is_unsafe(cp) && !qkv_is_joiner(cp); }

/* Writes s[0..n) into dst (size dstsz, always NUL-terminated) with hidden
 * characters and invalid bytes escaped as \xNN per byte. At most `max` bytes
 * of escaped text are kept, cut between characters; "..." marks a cut. */
static void qkv_quote(char *dst, size_t dstsz, const char *s, size_t n, size_t max) {
    const unsigned char *u = (const unsigned char *)s;
    size_t out = 0, i = 0;
    if (max + 4 > dstsz) max = dstsz - 4; /* room for "..." and NUL */
    while (i < n) {
        uint32_t cp = 0;
        size_t len = qkv_utf8_decode(u + i, n - i, &cp);
        int escape = len == 0 || qkv_is_hidden(cp) || qkv_is_joiner(cp);
        if (len == 0) len = 1;
        size_t need = escape ? 4 * len : len;
        if (out + need > max) {
            memcpy(dst + out, "...", 3);
            out += 3;
            break;
        }
        for (size_t j = 0; j < len; j++) {
            if (escape) {
                snprintf(dst + out, 5, "\\x%02x", u[i + j]);
                out += 4;
            } else {
                dst[out++] = (char)u[i + j];
            }
        }
        i += len;
    }
    dst[out] = '\0';
}

// ---------------------------------------------------------------------------
// Errors

/* Column (in characters, 1-based) of byte offset pos on the line starting at
 * line_start. Only called on the error path, after UTF-8 was validated. */
static size_t qkv_column(const QkvParser *p, size_t line_start, size_t pos) {
    size_t col = 1;
    for (size_t i = line_start; i < pos; i++)
        if (((unsigned char)p->buf[i] & 0xC0) != 0x80) col++;
    return col;
}

/* Fills p->err with "NAME:LINE:COL: message" and returns -1. */
static int qkv_fail_at(const QkvParser *p, size_t line, size_t col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static int qkv_fail_at(const QkvParser *p, size_t line, size_t col, const char *fmt, ...) {
    char msg[AV_ERR_MAX], name[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* The name comes from the command line; escape it like any quoted word. */
    qkv_quote(name, sizeof name, p->name, strlen(p->name), sizeof name - 4);
    return av_errorf(p->err, "%s:%zu:%zu: %s", name, line, col, msg);
}

/* Error at byte offset pos of the current line. */
#define qkv_fail(p, pos, ...) qkv_fail_at((p), (p)->line, qkv_column((p), (p)->line_start, (pos)), __VA_ARGS__)

static int qkv_out_of_memory(const QkvParser *p) {
    qkv_fail_at(p, p->line, 1, _("out of memory"));
    if (p->err) p->err->kind = AV_ERR_NOMEM;
    return -1;
}

// ---------------------------------------------------------------------------
// Scanning

static int qkv_is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* Checks the whole buffer is UTF-8 text without NUL bytes, so that the parser
 * and every quoted word can rely on it. Lines and columns count from `start`. */
static int qkv_check_text(QkvParser *p, size_t start) {
    const unsigned char *u = (const unsigned char *)p->buf;
    size_t line = 1, col = 1;
    for (size_t i = start; i < p->len;) {
        uint32_t cp;
        size_t n = qkv_utf8_decode(u + i, p->len - i, &cp);
        if (n == 0) return qkv_fail_at(p, line, col, _("invalid UTF-8 (byte \\x%02x), expected UTF-8 text"), u[i]);
        if (cp == 0) return qkv_fail_at(p, line, col, _("NUL byte, expected text (is this a binary file?)"));
        if (cp == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
        i += n;
    }
    return 0;
}

/* Strict decimal syntax: [+-] (digits [. [digits]] | . digits) [(e|E) [+-] digits].
 * strtod alone would also take hex floats, "inf", "nan" and leading spaces. */
static int qkv_is_decimal(const char *s, size_t n) {
    size_t i = 0, before = 0, after = 0;
    if (i < n && (s[i] == '+' || s[i] == '-')) i++;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) before++;
    if (i < n && s[i] == '.') {
        for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++) after++;
    }
    if (before + after == 0) return 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        size_t exp = 0;
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) i++;
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) exp++;
        if (exp == 0) return 0;
    }
    return i == n;
}

static int qkv_ascii_ieq(const char *s, size_t n, const char *lit) {
    size_t m = strlen(lit);
    if (n != m) return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != lit[i]) return 0;
    }
    return 1;
}

/* inf, infinity, nan, nan(...) with an optional sign, in any case: what strtod
 * would turn into a non-finite value. */
static int qkv_is_nonfinite_word(const char *s, size_t n) {
    if (n > 0 && (s[0] == '+' || s[0] == '-')) s++, n--;
    if (qkv_ascii_ieq(s, n, "inf") || qkv_ascii_ieq(s, n, "infinity") || qkv_ascii_ieq(s, n, "nan")) return 1;
    return n >= 5 && qkv_ascii_ieq(s, 4, "nan(") && s[n - 1] == ')';
}

typedef enum { QKV_NUM_OK, QKV_NUM_SYNTAX, QKV_NUM_NONFINITE, QKV_NUM_RANGE, QKV_NUM_NOMEM } QkvNum;

/* Parses the word s[0..n) as a finite float32. strtod needs a NUL-terminated
 * string, and its decimal point follows LC_NUMERIC (the TUI calls setlocale),
 * so the word is copied with '.' replaced by the locale's decimal point. */
static QkvNum qkv_parse_number(QkvParser *p, const char *s, size_t n, float *out) {
    if (!qkv_is_decimal(s, n)) return qkv_is_nonfinite_word(s, n) ? QKV_NUM_NONFINITE : QKV_NUM_SYNTAX;
    const char *point = localeconv()->decimal_point;
    size_t plen = point && point[0] ? strlen(point) : 1;
    if (!point || !point[0]) point = ".";
    size_t need = n * plen + 1;
    if (need > p->scratch_cap) {
        char *grown = realloc(p->scratch, need);
        if (!grown) return QKV_NUM_NOMEM;
        p->scratch = grown;
        p->scratch_cap = need;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '.') {
            memcpy(p->scratch + k, point, plen);
            k += plen;
        } else {
            p->scratch[k++] = s[i];
        }
    }
    p->scratch[k] = '\0';
    char *end;
    double v = strtod(p->scratch, &end); /* ERANGE underflow is fine: tiny becomes 0 */
    if (end != p->scratch + k) return QKV_NUM_SYNTAX;
    if (fabs(v) > FLT_MAX) return QKV_NUM_RANGE;
    *out = (float)v;
    return QKV_NUM_OK;
}

// ---------------------------------------------------------------------------
// Lines

/* Which block a label names, or -1. */
static int qkv_block_of_label(const char *s, size_t n) {
    if (n != 2 || s[1] != ':') return -1;
    switch (s[0]) {
    case 'Q':
    case 'q': return QKV_Q;
    case 'K':
    case 'k': return QKV_K;
    case 'V':
    case 'v': return QKV_V;
    default: return -1;
    }
}

/* The block being filled ends (a new label or the end of the file). */
static int qkv_close_block(QkvParser *p) {
    if (p->current < 0) return 0;
    const QkvBlock *b = &p->block[p->current];
    if (b->rows == 0)
        return qkv_fail_at(p, b->label_line, b->label_col,
                           _("block %s: has no rows, expected rows of numbers on the lines below it"),
                           qkv_block_names[p->current]);
    return 0;
}

static int qkv_tokens_line(QkvParser *p, size_t label, size_t pos, size_t end) {
    if (p->has_tokens)
        return qkv_fail(p, label, _("second tokens: line (the first is on line %zu), expected one"), p->tokens_line);
    if (p->current >= 0)
        return qkv_fail(p, label, _("tokens: line after a block, expected it before the Q:, K: and V: blocks"));
    p->has_tokens = 1;
    p->tokens_line = p->line;
    p->tokens_col = qkv_column(p, p->line_start, label);
    const unsigned char *u = (const unsigned char *)p->buf;
    while (pos < end) {
        while (pos < end && qkv_is_space(p->buf[pos])) pos++;
        if (pos == end) break;
        size_t start = pos;
        while (pos < end && !qkv_is_space(p->buf[pos])) {
            uint32_t cp = 0;
            size_t n = qkv_utf8_decode(u + pos, end - pos, &cp); /* valid: checked up front */
            if (qkv_is_hidden(cp)) {
                char q[QKV_QUOTE_MAX + 8];
                size_t wend = pos;
                while (wend < end && !qkv_is_space(p->buf[wend])) wend++;
                qkv_quote(q, sizeof q, p->buf + start, wend - start, QKV_QUOTE_MAX);
                return qkv_fail(p, pos,
                                _("token '%s' holds a control or invisible character (U+%04X), "
                                  "expected printable text"),
                                q, (unsigned)cp);
            }
            pos += n;
        }
        if (p->n_tokens >= QKV_MAX_ROWS)
            return qkv_fail(p, start, _("tokens: line has more than %d tokens, the limit"), QKV_MAX_ROWS);
        if ((size_t)p->n_tokens == p->tokens_cap) {
            size_t cap = p->tokens_cap ? 2 * p->tokens_cap : 16;
            QkvSpan *grown = realloc(p->tokens, cap * sizeof *grown);
            if (!grown) return qkv_out_of_memory(p);
            p->tokens = grown;
            p->tokens_cap = cap;
        }
        p->tokens[p->n_tokens++] = (QkvSpan){start, pos - start};
    }
    return 0;
}

static int qkv_label_line(QkvParser *p, size_t start, size_t colon, size_t end) {
    size_t label_len = colon + 1 - start;
    if (qkv_ascii_ieq(p->buf + start, label_len, "tokens:")) return qkv_tokens_line(p, start, colon + 1, end);
    int which = qkv_block_of_label(p->buf + start, label_len);
    if (which < 0) {
        char q[QKV_QUOTE_MAX + 8];
        qkv_quote(q, sizeof q, p->buf + start, label_len, QKV_QUOTE_MAX);
        return qkv_fail(p, start, _("unknown block '%s', expected Q:, K: or V:"), q);
    }
    size_t rest = colon + 1;
    while (rest < end && qkv_is_space(p->buf[rest])) rest++;
    if (rest < end) {
        char q[QKV_QUOTE_MAX + 8];
        size_t wend = rest;
        while (wend < end && !qkv_is_space(p->buf[wend])) wend++;
        qkv_quote(q, sizeof q, p->buf + rest, wend - rest, QKV_QUOTE_MAX);
        return qkv_fail(p, rest, _("unexpected '%s' after %s:, expected the rows on the lines below it"), q,
                        qkv_block_names[which]);
    }
    QkvBlock *b = &p->block[which];
    if (b->seen)
        return qkv_fail(p, start, _("second %s: block (the first is on line %zu), expected each block once"),
                        qkv_block_names[which], b->label_line);
    if (qkv_close_block(p) < 0) return -1;
    b->seen = 1;
    b->label_line = p->line;
    b->label_col = qkv_column(p, p->line_start, start);
    p->current = which;
    return 0;
}

static int qkv_row_line(QkvParser *p, size_t pos, size_t end) {
    size_t first = pos;
    if (p->current < 0) {
        float ignored;
        size_t wend = pos;
        while (wend < end && !qkv_is_space(p->buf[wend])) wend++;
        if (qkv_parse_number(p, p->buf + pos, wend - pos, &ignored) != QKV_NUM_SYNTAX)
            return qkv_fail(p, pos, _("numbers before a Q:, K: or V: line, expected a block label first"));
        char q[QKV_QUOTE_MAX + 8];
        qkv_quote(q, sizeof q, p->buf + pos, wend - pos, QKV_QUOTE_MAX);
        return qkv_fail(p, pos, _("expected a tokens:, Q:, K: or V: line, found '%s'"), q);
    }
    QkvBlock *b = &p->block[p->current];
    const char *bname = qkv_block_names[p->current];
    if (b->rows >= QKV_MAX_ROWS)
        return qkv_fail(p, pos, _("block %s: has more than %d rows, the limit"), bname, QKV_MAX_ROWS);
    size_t row_start = (size_t)b->rows * (size_t)b->cols; /* floats before this row */
    int count = 0;
    while (pos < end) {
        while (pos < end && qkv_is_space(p->buf[pos])) pos++;
        if (pos == end) break;
        size_t wstart = pos;
        while (pos < end && !qkv_is_space(p->buf[pos])) pos++;
        if (count >= QKV_MAX_COLS)
            return qkv_fail(p, wstart, _("row has more than %d values, the limit"), QKV_MAX_COLS);
        float v = 0.0f;
        char q[QKV_QUOTE_MAX + 8];
        switch (qkv_parse_number(p, p->buf + wstart, pos - wstart, &v)) {
        case QKV_NUM_OK: break;
        case QKV_NUM_NOMEM: return qkv_out_of_memory(p);
        case QKV_NUM_SYNTAX:
            qkv_quote(q, sizeof q, p->buf + wstart, pos - wstart, QKV_QUOTE_MAX);
            return qkv_fail(p, wstart, _("expected a number, found '%s'"), q);
        case QKV_NUM_NONFINITE:
            qkv_quote(q, sizeof q, p->buf + wstart, pos - wstart, QKV_QUOTE_MAX);
            return qkv_fail(p, wstart, _("'%s' is not a finite number, expected a value like 0.5"), q);
        case QKV_NUM_RANGE:
            qkv_quote(q, sizeof q, p->buf + wstart, pos - wstart, QKV_QUOTE_MAX);
            return qkv_fail(p, wstart, _("'%s' is out of float32 range, expected a magnitude below 3.4e38"), q);
        }
        size_t need = row_start + (size_t)count + 1;
        if (need > b->cap) {
            size_t cap = b->cap ? 2 * b->cap : 64;
            float *grown = realloc(b->data, cap * sizeof *grown);
            if (!grown) return qkv_out_of_memory(p);
            b->data = grown;
            b->cap = cap;
        }
        b->data[row_start + (size_t)count++] = v;
    }
    if (b->rows == 0) {
        b->cols = count;
        b->first_row_line = p->line;
        b->first_row_col = qkv_column(p, p->line_start, first);
    } else if (count != b->cols) {
        return qkv_fail(p, first,
                        P_("row has %d value, expected %d like the first row of %s (line %zu)",
                           "row has %d values, expected %d like the first row of %s (line %zu)", count),
                        count, b->cols, bname, b->first_row_line);
    }
    b->rows++;
    return 0;
}

/* One line, comment already cut off: [pos, end). */
static int qkv_line(QkvParser *p, size_t pos, size_t end) {
    while (pos < end && qkv_is_space(p->buf[pos])) pos++;
    if (pos == end) return 0; /* blank or comment only */
    size_t wend = pos;
    while (wend < end && !qkv_is_space(p->buf[wend])) wend++;
    const char *colon = memchr(p->buf + pos, ':', wend - pos);
    if (colon) return qkv_label_line(p, pos, (size_t)(colon - p->buf), end);
    return qkv_row_line(p, pos, end);
}

// ---------------------------------------------------------------------------
// Whole file

/* Checks between blocks, once all are read. Errors point at the block that
 * comes later in the file, where the reader's attention already is. */
static int qkv_check_blocks(QkvParser *p) {
    for (int i = 0; i < QKV_BLOCKS; i++)
        if (!p->block[i].seen)
            return qkv_fail_at(p, p->line, qkv_column(p, p->line_start, p->len),
                               _("no %s: block, expected Q:, K: and V: blocks"), qkv_block_names[i]);
    const QkvBlock *q = &p->block[QKV_Q], *k = &p->block[QKV_K], *v = &p->block[QKV_V];
    if (q->cols != k->cols) {
        const QkvBlock *later = q->label_line > k->label_line ? q : k;
        return qkv_fail_at(p, later->first_row_line, later->first_row_col,
                           _("Q has %d columns but K has %d: Q and K must have the same width d_k"), q->cols, k->cols);
    }
    if (k->rows != v->rows) {
        const QkvBlock *later = k->label_line > v->label_line ? k : v;
        return qkv_fail_at(p, later->label_line, later->label_col,
                           _("K has %d %s but V has %d: K and V must have the same number of rows"), k->rows,
                           num_plural("row", "rows", k->rows), v->rows);
    }
    if (p->has_tokens && p->n_tokens != k->rows)
        return qkv_fail_at(p, p->tokens_line, p->tokens_col,
                           _("tokens: line has %d %s but K has %d %s: one token per row of K"), p->n_tokens,
                           num_plural("token", "tokens", p->n_tokens), k->rows, num_plural("row", "rows", k->rows));
    return 0;
}

static char *qkv_strndup(const char *s, size_t n) {
    char *d = malloc(n + 1);
    if (!d) return NULL;
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

/* A new array of n labels: the spans of the tokens line, or prefix0, prefix1, ... */
static char **qkv_labels(const QkvParser *p, const QkvSpan *spans, int n, char prefix) {
    char **labels = calloc((size_t)n, sizeof *labels);
    if (!labels) return NULL;
    for (int i = 0; i < n; i++) {
        if (spans) {
            labels[i] = qkv_strndup(p->buf + spans[i].offset, spans[i].len);
        } else {
            char tmp[16];
            int len = snprintf(tmp, sizeof tmp, "%c%d", prefix, i);
            labels[i] = qkv_strndup(tmp, (size_t)len);
        }
        if (!labels[i]) {
            for (int j = 0; j < i; j++) free(labels[j]);
            free(labels);
            return NULL;
        }
    }
    return labels;
}

/* Moves the blocks and the tokens into *out. */
static int qkv_build(QkvParser *p, QkvData *out) {
    QkvData d = {0};
    d.n_q = p->block[QKV_Q].rows;
    d.n_k = p->block[QKV_K].rows;
    d.d_k = p->block[QKV_Q].cols;
    d.d_v = p->block[QKV_V].cols;
    d.has_tokens = p->has_tokens;
    d.key_tokens = qkv_labels(p, p->has_tokens ? p->tokens : NULL, d.n_k, 't');
    if (!d.key_tokens) return qkv_out_of_memory(p);
    /* Same count: the queries are the same sequence, so they share the array
     * (qkv_free frees it once). */
    d.query_tokens = d.n_q == d.n_k ? d.key_tokens : qkv_labels(p, NULL, d.n_q, 'q');
    if (!d.query_tokens) {
        qkv_free(&d);
        return qkv_out_of_memory(p);
    }
    d.q = p->block[QKV_Q].data;
    d.k = p->block[QKV_K].data;
    d.v = p->block[QKV_V].data;
    for (int i = 0; i < QKV_BLOCKS; i++) p->block[i].data = NULL; /* now owned by d */
    *out = d;
    return 0;
}

static void qkv_parser_free(QkvParser *p) {
    for (int i = 0; i < QKV_BLOCKS; i++) free(p->block[i].data);
    free(p->tokens);
    free(p->scratch);
}

int qkv_parse(QkvData *out, const char *buf, size_t len, const char *name, AvError *err) {
    memset(out, 0, sizeof *out);
    QkvParser p = {.buf = buf, .len = len, .name = name ? name : _("(input)"), .err = err, .line = 1, .current = -1};
    size_t pos = 0;
    if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0) pos = 3;
    p.line_start = pos;
    int rc = qkv_check_text(&p, pos);
    /* A file with CR line endings only (classic Mac OS, some exports) has its
     * lines too: without this it was one line and "no Q: block". */
    char eol_byte = memchr(buf, '\n', len) || !memchr(buf, '\r', len) ? '\n' : '\r';
    while (rc == 0 && pos < len) {
        const char *nl = memchr(buf + pos, eol_byte, len - pos);
        size_t eol = nl ? (size_t)(nl - buf) : len;
        const char *hash = memchr(buf + pos, '#', eol - pos);
        size_t end = hash ? (size_t)(hash - buf) : eol;
        rc = qkv_line(&p, pos, end);
        if (rc == 0 && nl) {
            pos = eol + 1;
            p.line++;
            p.line_start = pos;
        } else {
            pos = eol;
        }
    }
    /* At the end p.line/p.line_start describe the last line, so errors about
     * the whole file point just past its last character. */
    if (rc == 0) rc = qkv_close_block(&p);
    if (rc == 0) rc = qkv_check_blocks(&p);
    if (rc == 0) rc = qkv_build(&p, out);
    qkv_parser_free(&p);
    return rc;
}

int qkv_load(QkvData *out, const char *path, AvError *err) {
    memset(out, 0, sizeof *out);
    char *buf;
    size_t len;
    if (av_read_text(path, AV_MAX_INPUT_BYTES, 1, &buf, &len, err) < 0) return -1;
    int rc = qkv_parse(out, buf, len, strcmp(path, "-") == 0 ? _("standard input") : path, err);

    free(buf);
    return rc;
}

void qkv_free(QkvData *d) {
    if (!d) return;
    if (d->query_tokens && d->query_tokens != d->key_tokens) {
        for (int i = 0; i < d->n_q; i++) free(d->query_tokens[i]);
        free(d->query_tokens);
    }
    if (d->key_tokens) {
        for (int i = 0; i < d->n_k; i++) free(d->key_tokens[i]);
        free(d->key_tokens);
    }
    free(d->q);
    free(d->k);
    free(d->v);
    memset(d, 0, sizeof *d);
}
