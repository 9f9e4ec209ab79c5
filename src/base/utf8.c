/* utf8.c - see utf8.h. */
#include "utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "utf8_width.h"

static int in_table(const uint32_t (*t)[2], size_t n, uint32_t cp);

int utf8_decode(const char *str, size_t len, uint32_t *cp) {
    const unsigned char *s = (const unsigned char *)str;
    *cp = UTF8_INVALID;
    if (len == 0) return 0;
    unsigned c = s[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    int need;
    uint32_t v, min;
    if (c >= 0xC2 && c <= 0xDF) {
        need = 1, v = c & 0x1F, min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        need = 2, v = c & 0x0F, min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        need = 3, v = c & 0x07, min = 0x10000;
    } else {
        return 1;
    }
    if ((size_t)need + 1 > len) return 1; /* truncated */
    for (int i = 1; i <= need; i++) {
        if ((s[i] & 0xC0) != 0x80) return 1;
        v = (v << 6) | (s[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 1;
    *cp = v;
    return need + 1;
}

void utf8_invalid_reason(const char *str, size_t len, size_t at, char *buf, size_t cap) {
    const unsigned char *s = (const unsigned char *)str;
    if (at >= len) {
        snprintf(buf, cap, _("the text ends"));
        return;
    }
    unsigned c = s[at];
    int need = c >= 0xC2 && c <= 0xDF ? 1 : c >= 0xE0 && c <= 0xEF ? 2 : c >= 0xF0 && c <= 0xF4 ? 3 : 0;
    if (c >= 0x80 && c <= 0xBF) {
        snprintf(buf, cap, _("byte 0x%02X continues a character that did not start"), c);
        return;
    }
    if (need == 0) {
        if (c < 0x80) snprintf(buf, cap, _("byte 0x%02X is valid"), c); /* not called for these */
        else if (c <= 0xC1) snprintf(buf, cap, _("byte 0x%02X starts an overlong encoding"), c);
        else snprintf(buf, cap, _("byte 0x%02X never occurs in UTF-8"), c);
        return;
    }
    for (int i = 1; i <= need; i++) {
        if (at + (size_t)i >= len) {
            snprintf(buf, cap, _("the text ends inside a %d-byte character"), need + 1);
            return;
        }
        unsigned b = s[at + (size_t)i];
        if ((b & 0xC0) != 0x80) {
            snprintf(buf, cap, _("a %d-byte character is cut short by byte 0x%02X"), need + 1, b);
            return;
        }
    }
    unsigned b1 = s[at + 1];
    if ((c == 0xE0 && b1 < 0xA0) || (c == 0xF0 && b1 < 0x90))
        snprintf(buf, cap, _("an overlong encoding (a shorter one exists)"));
    else if (c == 0xED && b1 >= 0xA0) snprintf(buf, cap, _("a UTF-16 surrogate (U+D800..U+DFFF) is not a character"));
    else if (c == 0xF4 && b1 >= 0x90) snprintf(buf, cap, _("a code point above U+10FFFF"));
    else snprintf(buf, cap, _("a valid %d-byte character"), need + 1); /* not called for these */
}

int utf8_encode(uint32_t cp, char out[4]) {
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

int utf8_is_unsafe(uint32_t cp) {
    if (cp >= 0x20 && cp < 0x7F) return 0; /* printable ASCII, the common case */
    if (cp < 0x20 || cp == 0x7F) return 1;
    if (cp >= 0x80 && cp <= 0x9F) return 1;
    if (cp == 0x200E || cp == 0x200F || cp == 0x061C) return 1; /* LRM, RLM, ALM */
    if (cp >= 0x202A && cp <= 0x202E) return 1;                 /* embeddings, overrides */
    if (cp >= 0x2066 && cp <= 0x2069) return 1;                 /* isolates */
    if (cp == 0x2028 || cp == 0x2029) return 1;                 /* line/paragraph separator */
    /* Format characters (ZWSP, ZWNJ, ZWJ, word joiner, BOM, soft hyphen, tags)
     * are invisible, and terminals disagree on what they do to the columns:
     * tmux 3.3a draws a ZWJ emoji sequence in 2 columns where wcwidth counts
     * 6. Shown escaped, a sequence is its parts, each as wide as wcwidth says,
     * in every terminal. The emoji presentation selectors VS15/VS16 are
     * escaped for the same reason (a heart with VS16 is 1 column in tmux, 2
     * in many terminals). */
    if (cp == 0xFE0E || cp == 0xFE0F) return 1;
    if (in_table(utf8_format, sizeof utf8_format / sizeof *utf8_format, cp)) return 1;
    return 0;
}

char *utf8_escape(const char *s, size_t len) {
    /* Worst case: every byte becomes "\u{HHHH}" (8 bytes) per decoded char of
     * at least 2 bytes, or "\xNN" (4) per byte: 4 bytes of output per byte. */
    char *out = malloc(len * 4 + 1);
    if (!out) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        int n = utf8_decode(s + i, len - i, &cp);
        if (cp == UTF8_INVALID) {
            o += (size_t)sprintf(out + o, "\\x%02X", (unsigned char)s[i]);
            i += 1;
            continue;
        }
        if (utf8_is_unsafe(cp)) {
            if (cp == '\n') o += (size_t)sprintf(out + o, "\\n");
            else if (cp == '\t') o += (size_t)sprintf(out + o, "\\t");
            else if (cp == '\r') o += (size_t)sprintf(out + o, "\\r");
            else if (cp < 0x80) o += (size_t)sprintf(out + o, "\\x%02X", (unsigned)cp);
            else o += (size_t)sprintf(out + o, "\\u{%04X}", (unsigned)cp); /* n >= 2 bytes, <= 8 out */
        } else {
            memcpy(out + o, s + i, (size_t)n);
            o += (size_t)n;
        }
        i += (size_t)n;
    }
    out[o] = '\0';
    return out;
}

void utf8_escape_into(char *out, size_t cap, const char *s) {
    char *e = utf8_escape(s, strlen(s));
    size_t n = e ? strlen(e) : 0;
    if (n >= cap) {
        n = cap - 1;
        while (n > 0 && ((unsigned char)e[n] & 0xC0) == 0x80) n--;
    }
    if (e) memcpy(out, e, n);
    out[n] = '\0';
    free(e);
}

static int in_table(const uint32_t (*t)[2], size_t n, uint32_t cp) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (cp < t[mid][0]) hi = mid;
        else if (cp > t[mid][1]) lo = mid + 1;
        else return 1;
    }
    return 0;
}

/* Terminal columns of a code point, locale-independent, from tables made of
 * the Unicode data (tools/gen_widths.py): 0 for combining marks and format
 * characters, 2 for East Asian Wide and Fullwidth, 1 otherwise. Used where no
 * curses is involved (dumps); the TUI measures with the C library's wcwidth,
 * as ncurses does. */
int utf8_cp_width(uint32_t cp) {
    if (in_table(utf8_zero_width, sizeof utf8_zero_width / sizeof *utf8_zero_width, cp)) return 0;
    if (in_table(utf8_double_width, sizeof utf8_double_width / sizeof *utf8_double_width, cp)) return 2;
    return 1;
}

int utf8_width(const char *s, size_t len) {
    int w = 0;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        int n = utf8_decode(s + i, len - i, &cp);
        w += cp == UTF8_INVALID ? 1 : utf8_cp_width(cp);
        i += (size_t)(n > 0 ? n : 1);
    }
    return w;
}

size_t utf8_show_spaces(const char *s, size_t len, char *out, size_t cap) {
    size_t r = 0;
    if (cap == 0) return 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == ' ') {
            if (r + 3 >= cap) break;
            memcpy(out + r, "\xe2\x96\x81", 3), r += 3;
        } else {
            if (r + 1 >= cap) break;
            out[r++] = s[i];
        }
    }
    out[r] = '\0';
    return r;
}
