/* text.c - labels measured and cut in terminal columns, the way ncurses will
 * draw them (see text.h). */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* wcwidth */
#endif
#include "text.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "utf8.h"

int text_cp_width(uint32_t cp) {
    /* wchar_t is UCS-4 on glibc; anything that is not a code point would wrap
     * into a negative wchar_t, so it is answered here. */
    if (cp >= 0x20 && cp < 0x7F) return 1; /* printable ASCII, without a call */
    if (cp > 0x10FFFF) return 1;
    int w = wcwidth((wchar_t)cp);
    if (w < 0) return 1; /* controls, unassigned: escaped before display anyway */
    return w > 2 ? 2 : w;
}

/* Columns of the character at s[0..len) and the bytes it uses (at least 1):
 * an invalid byte is one column, like the \xNN it will be shown as. */
static int text_char(const char *s, size_t len, int *bytes) {
    uint32_t cp;
    int n = utf8_decode(s, len, &cp);
    *bytes = n > 0 ? n : 1;
    return cp == UTF8_INVALID ? 1 : text_cp_width(cp);
}

int text_width(const char *s, size_t len) {
    int w = 0;
    for (size_t i = 0; i < len;) {
        int n;
        w += text_char(s + i, len - i, &n);
        i += (size_t)n;
    }
    return w;
}

// ----------------------------------------------------------------------------
// Extended grapheme clusters: a label is cut between them, never inside one
// (a base and its marks, a Hangul syllable of jamo, a flag's two regional
// indicators, an emoji and its skin tone). PCRE2's \X knows the rules.

static pcre2_code *text_grapheme_re; /* \X, compiled once, never freed */
static pthread_once_t text_grapheme_once = PTHREAD_ONCE_INIT;

static void text_grapheme_compile(void) {
    int err;
    PCRE2_SIZE off;
    /* MATCH_INVALID_UTF: an invalid byte ends a cluster instead of failing
     * the whole match (labels are escaped first, but the API takes bytes). */
    text_grapheme_re =
        pcre2_compile((PCRE2_SPTR) "\\X", PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, &err, &off, NULL);
}

/* The old rule, when PCRE2 is out of memory: one character and the
 * zero-width characters after it. */
static size_t text_cluster_simple(const char *s, size_t len, int *cols) {
    int n;
    *cols = text_char(s, len, &n);
    size_t used = (size_t)n;
    while (used < len) {
        uint32_t cp;
        int m = utf8_decode(s + used, len - used, &cp);
        if (cp == UTF8_INVALID || text_cp_width(cp) != 0) break;
        used += (size_t)m;
    }
    return used;
}

/* Bytes of an escape at s[0..len) as utf8_escape writes them (\n \t \r,
 * \xNN, \u{HHHH}), or 0: a cut label ends before an escape or after it,
 * never in "\u{20". */
static size_t text_escape_len(const char *s, size_t len) {
    if (len < 2 || s[0] != '\\') return 0;
    if (s[1] == 'n' || s[1] == 't' || s[1] == 'r') return 2;
    const char *hex = "0123456789ABCDEF";
    if (s[1] == 'x') {
        if (len < 4 || !s[2] || !s[3] || !strchr(hex, s[2]) || !strchr(hex, s[3])) return 0;
        return 4;
    }
    if (s[1] != 'u' || len < 3 || s[2] != '{') return 0;
    size_t i = 3;
    while (i < len && i < 9 && s[i] && strchr(hex, s[i])) i++;
    if (i < 7 || i >= len || s[i] != '}') return 0;
    return i + 1;
}

/* Bytes of the extended grapheme cluster at s[0..len) (at least 1; md may
 * be NULL). Sets *cols to its width: the sum of its code points' widths,
 * which is what ncurses and tmux draw (each character of nonzero width in a
 * cell of its own, a zero-width one on the cell before). */
static size_t text_cluster(pcre2_match_data *md, const char *s, size_t len, int *cols) {
    size_t esc = text_escape_len(s, len);
    if (esc) {
        *cols = (int)esc;
        return esc;
    }
    if (!md || !text_grapheme_re) return text_cluster_simple(s, len, cols);
    uint32_t first;
    utf8_decode(s, len, &first);
    if (first == UTF8_INVALID) {
        *cols = 1;
        return 1;
    }
    int rc = pcre2_match(text_grapheme_re, (PCRE2_SPTR)s, len, 0, PCRE2_ANCHORED, md, NULL);
    if (rc < 1) return text_cluster_simple(s, len, cols);
    size_t used = (size_t)pcre2_get_ovector_pointer(md)[1];
    if (used == 0 || used > len) return text_cluster_simple(s, len, cols);
    *cols = text_width(s, used);
    return used;
}

int text_truncate(char *out, size_t cap, const char *s, size_t len, int max_cols, const char *ellipsis) {
    if (!out || cap == 0) return 0;
    if (!s) len = 0;
    if (!ellipsis) ellipsis = "";
    if (max_cols < 0) max_cols = 0;
    out[0] = '\0';

    int whole = text_width(s, len);
    if (whole <= max_cols && len < cap) {
        if (len) memcpy(out, s, len);
        out[len] = '\0';
        return whole;
    }

    /* Cut: the ellipsis is what tells the reader the label goes on, so when
     * not even it fits, nothing is written rather than a silently cut label. */
    size_t ellipsis_len = strlen(ellipsis);
    int ellipsis_cols = text_width(ellipsis, ellipsis_len);
    if (ellipsis_cols > max_cols || ellipsis_len >= cap) return 0;
    int col_budget = max_cols - ellipsis_cols;
    size_t byte_budget = cap - 1 - ellipsis_len;

    pthread_once(&text_grapheme_once, text_grapheme_compile);
    pcre2_match_data *md = text_grapheme_re ? pcre2_match_data_create(1, NULL) : NULL;
    size_t used = 0;
    int cols = 0;
    while (used < len) {
        int cw;
        size_t cb = text_cluster(md, s + used, len - used, &cw);
        /* A 2-column character where 1 column is left stops here too. */
        if (cols + cw > col_budget || used + cb > byte_budget) break;
        used += cb;
        cols += cw;
    }
    pcre2_match_data_free(md);
    memcpy(out, s, used);
    memcpy(out + used, ellipsis, ellipsis_len + 1);
    return cols + ellipsis_cols;
}

char *text_safe_label(const char *s, size_t len, int ascii_only) {
    char *escaped = utf8_escape(s, len);
    if (!escaped || !ascii_only) return escaped;

    /* utf8_escape left only valid UTF-8; each non-ASCII character of n >= 2
     * bytes becomes "\u{HHHH}".."\u{10FFFF}" (8..10 bytes), at most 4 bytes
     * of output per input byte. */
    size_t in_len = strlen(escaped);
    char *out = malloc(in_len * 4 + 1);
    if (!out) {
        free(escaped);
        return NULL;
    }
    size_t o = 0;
    for (size_t i = 0; i < in_len;) {
        uint32_t cp;
        int n = utf8_decode(escaped + i, in_len - i, &cp);
        size_t room = in_len * 4 + 1 - o;
        if (cp < 0x80) {
            out[o++] = escaped[i];
        } else if (cp == UTF8_INVALID) {
            /* Not produced by utf8_escape; kept ASCII should that change. */
            o += (size_t)snprintf(out + o, room, "\\x%02X", (unsigned char)escaped[i]);
        } else {
            o += (size_t)snprintf(out + o, room, "\\u{%04X}", (unsigned)cp);
        }
        i += (size_t)(n > 0 ? n : 1);
    }
    out[o] = '\0';
    free(escaped);
    return out;
}
