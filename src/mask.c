/* mask.c - see mask.h. */
#include "mask.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        return av_errorf(err, "'%s:%s': %s must be a whole number in %d..%d", what, s, what, lo, MASK_MAX_PARAM);
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
    return av_errorf(err, "unknown mask '%s' (expected none, causal, window:W, prefix:P, padding or painted)", s);
}

int mask_applies(MaskKind kind, int cross) {
    if (!cross) return 1;
    return kind != MASK_CAUSAL && kind != MASK_WINDOW && kind != MASK_PREFIX;
}

void mask_fill(unsigned char *allowed, const MaskSpec *spec, int n_q, int n_k) {
    MaskKind kind = mask_applies(spec->kind, spec->cross) ? spec->kind : MASK_NONE;
    for (int i = 0; i < n_q; i++)
        for (int j = 0; j < n_k; j++) {
            int ok = 1;
            switch (kind) {
            case MASK_CAUSAL: ok = j <= i; break;
            case MASK_WINDOW: ok = j <= i && j > i - spec->window; break;
            case MASK_PREFIX: ok = (i < spec->prefix && j < spec->prefix) || j <= i; break;
            case MASK_PADDING: ok = !(spec->pad_key && spec->pad_key[j]); break;
            case MASK_PAINTED: ok = !spec->painted || spec->painted[(size_t)i * n_k + j]; break;
            default: break;
            }
            allowed[(size_t)i * n_k + j] = (unsigned char)ok;
        }
}

int mask_parse_grid(unsigned char **grid, int n_q, int n_k, const char *buf, size_t len, const char *name,
                    AvError *err) {
    *grid = NULL;
    unsigned char *g = malloc((size_t)(n_q > 0 ? n_q : 1) * (size_t)(n_k > 0 ? n_k : 1));
    if (!g) return av_errorf(err, "%s: out of memory", name);
    int row = 0, line = 1;
    size_t i = 0;
    while (i <= len) {
        size_t end = i;
        while (end < len && buf[end] != '\n') end++;
        int col = 0, seen = 0;
        for (size_t p = i; p < end; p++) {
            char c = buf[p];
            if (c == '#') break;
            if (c == ' ' || c == '\t' || c == '\r') continue;
            int column = (int)(p - i) + 1;
            if (c != '0' && c != '1') {
                free(g);
                if ((unsigned char)c < 0x20 || (unsigned char)c >= 0x7F)
                    return av_errorf(err, "%s:%d:%d: expected 0 or 1, found byte 0x%02X", name, line, column,
                                     (unsigned char)c);
                return av_errorf(err, "%s:%d:%d: expected 0 or 1, found '%c'", name, line, column, c);
            }
            if (row >= n_q) {
                free(g);
                return av_errorf(err, "%s:%d:%d: more than %d rows (one per query)", name, line, column, n_q);
            }
            if (col >= n_k) {
                free(g);
                return av_errorf(err, "%s:%d:%d: more than %d values (one per key)", name, line, column, n_k);
            }
            g[(size_t)row * n_k + col++] = (unsigned char)(c == '1');
            seen = 1;
        }
        if (seen) {
            if (col != n_k) {
                free(g);
                return av_errorf(err, "%s:%d: %d values, expected %d (one per key)", name, line, col, n_k);
            }
            row++;
        }
        if (end >= len) break;
        i = end + 1;
        line++;
    }
    if (row != n_q) {
        free(g);
        return av_errorf(err, "%s: %d rows, expected %d (one per query)", name, row, n_q);
    }
    *grid = g;
    return 0;
}

char *mask_format_grid(const unsigned char *grid, int n_q, int n_k) {
    size_t cap = 128 + (size_t)n_q * ((size_t)n_k * 2 + 1);
    char *s = malloc(cap);
    if (!s) return NULL;
    size_t o = (size_t)snprintf(s, cap, "# attnviz painted mask: %d queries x %d keys, 1 = visible, 0 = masked\n",
                                n_q, n_k);
    for (int i = 0; i < n_q; i++) {
        for (int j = 0; j < n_k; j++) {
            s[o++] = grid ? (char)('0' + (grid[(size_t)i * n_k + j] != 0)) : '1';
            s[o++] = j + 1 < n_k ? ' ' : '\n';
        }
        if (n_k == 0) s[o++] = '\n';
    }
    s[o] = '\0';
    return s;
}
