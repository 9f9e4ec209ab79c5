/* utf8.c - see utf8.h. */
#include "utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    if (cp < 0x20 || cp == 0x7F) return 1;
    if (cp >= 0x80 && cp <= 0x9F) return 1;
    if (cp == 0x200E || cp == 0x200F || cp == 0x061C) return 1; /* LRM, RLM, ALM */
    if (cp >= 0x202A && cp <= 0x202E) return 1;                 /* embeddings, overrides */
    if (cp >= 0x2066 && cp <= 0x2069) return 1;                 /* isolates */
    if (cp == 0x2028 || cp == 0x2029) return 1;                 /* line/paragraph separator */
    return 0;
}

char *utf8_escape(const char *s, size_t len) {
    /* Worst case: every byte becomes "\u{XXXX}" (8 bytes) per decoded char of
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

/* Terminal columns of a code point, locale-independent: 0 for combining marks
 * and zero-width characters, 2 for East Asian Wide and Fullwidth ranges (after
 * Markus Kuhn's wcwidth), 1 otherwise. Used where no curses is involved
 * (dumps); the TUI measures with the C library's wcwidth, as ncurses does. */
int utf8_cp_width(uint32_t cp) {
    static const uint32_t zero[][2] = {
        {0x0300, 0x036F}, {0x0483, 0x0489}, {0x0591, 0x05BD}, {0x0610, 0x061A},
        {0x064B, 0x065F}, {0x0E31, 0x0E31}, {0x0E34, 0x0E3A}, {0x1160, 0x11FF},
        {0x200B, 0x200F}, {0x20D0, 0x20FF}, {0xFE00, 0xFE0F}, {0xFE20, 0xFE2F},
        {0xFEFF, 0xFEFF}, {0xD7B0, 0xD7FF},
    };
    static const uint32_t wide[][2] = {
        {0x1100, 0x115F}, {0x2E80, 0x303E}, {0x3041, 0x33FF}, {0x3400, 0x4DBF},
        {0x4E00, 0x9FFF}, {0xA000, 0xA4CF}, {0xA960, 0xA97F}, {0xAC00, 0xD7A3},
        {0xF900, 0xFAFF}, {0xFE10, 0xFE19}, {0xFE30, 0xFE6F}, {0xFF00, 0xFF60},
        {0xFFE0, 0xFFE6}, {0x1F300, 0x1F64F}, {0x1F900, 0x1F9FF}, {0x20000, 0x3FFFD},
    };
    for (size_t i = 0; i < sizeof zero / sizeof *zero; i++)
        if (cp >= zero[i][0] && cp <= zero[i][1]) return 0;
    for (size_t i = 0; i < sizeof wide / sizeof *wide; i++)
        if (cp >= wide[i][0] && cp <= wide[i][1]) return 2;
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
