/* unorm.c - see unorm.h. */
#include "unorm.h"

#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "cancel.h"
#include "utf8.h"

/* The cancel flag is read every this many characters. */
#define POLL_EVERY 65536

typedef struct {
    int32_t *v;
    size_t n, cap;
} Cps;

static int cps_reserve(Cps *c, size_t more) {
    if (c->n + more <= c->cap) return 0;
    size_t cap = c->cap ? c->cap : 64;
    while (cap < c->n + more) cap *= 2;
    int32_t *v = realloc(c->v, cap * sizeof *v);
    if (!v) return -1;
    c->v = v, c->cap = cap;
    return 0;
}

static int is_ascii(const char *s, size_t n) {
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] >= 0x80) return 0;
    return 1;
}

static int copy_out(const char *s, size_t n, char **out, size_t *out_n) {
    char *d = malloc(n + 1);
    if (!d) return UNORM_NOMEM;
    if (n) memcpy(d, s, n);
    d[n] = '\0';
    *out = d, *out_n = n;
    return 0;
}

/* cps as UTF-8 into a new string. */
static int encode_out(const Cps *c, char **out, size_t *out_n) {
    char *d = malloc(c->n * 4 + 1);
    if (!d) return UNORM_NOMEM;
    size_t k = 0;
    for (size_t i = 0; i < c->n; i++) k += (size_t)utf8_encode((uint32_t)c->v[i], d + k);
    d[k] = '\0';
    *out = d, *out_n = k;
    return 0;
}

static int ccc(int32_t cp) { return utf8proc_get_property(cp)->combining_class; }

/* Stable sort of a run of non-starters by combining class (UAX #15's
 * canonical ordering): insertion for a short run, counting for a long one
 * (tmp has room for n). */
static void order_run(int32_t *v, size_t n, int32_t *tmp) {
    if (n <= 32) {
        for (size_t i = 1; i < n; i++) {
            int32_t x = v[i];
            int cx = ccc(x);
            size_t j = i;
            while (j > 0 && ccc(v[j - 1]) > cx) {
                v[j] = v[j - 1];
                j--;
            }
            v[j] = x;
        }
        return;
    }
    size_t count[257] = {0};
    for (size_t i = 0; i < n; i++) count[ccc(v[i]) + 1]++;
    for (int c = 1; c < 257; c++) count[c] += count[c - 1];
    for (size_t i = 0; i < n; i++) tmp[count[ccc(v[i])]++] = v[i];
    memcpy(v, tmp, n * sizeof *v);
}

int unorm_normalize(UnormForm f, const char *s, size_t n, char **out, size_t *out_n) {
    *out = NULL, *out_n = 0;
    if (is_ascii(s, n)) return copy_out(s, n, out, out_n); /* every form leaves ASCII alone */
    utf8proc_option_t opts = UTF8PROC_DECOMPOSE;
    if (f == UNORM_NFKC || f == UNORM_NFKD) opts |= UTF8PROC_COMPAT;
    Cps c = {0};
    int rc = 0;
    size_t chars = 0;
    if (cps_reserve(&c, n + 16)) return UNORM_NOMEM;
    for (size_t at = 0; at < n && rc == 0;) {
        uint32_t cp;
        int k = utf8_decode(s + at, n - at, &cp);
        if (cp == UTF8_INVALID) cp = 0xFFFD; /* not for valid input */
        if (cps_reserve(&c, 4)) {
            rc = UNORM_NOMEM;
            break;
        }
        for (;;) {
            utf8proc_ssize_t got =
                utf8proc_decompose_char((utf8proc_int32_t)cp, c.v + c.n, (utf8proc_ssize_t)(c.cap - c.n), opts, NULL);
            if (got < 0) { /* not a code point: not for valid UTF-8 */
                got = 1;
                c.v[c.n] = 0xFFFD;
            }
            if ((size_t)got <= c.cap - c.n) {
                c.n += (size_t)got;
                break;
            }
            if (cps_reserve(&c, (size_t)got)) {
                rc = UNORM_NOMEM;
                break;
            }
        }
        at += (size_t)k;
        if (++chars % POLL_EVERY == 0 && av_cancelled()) rc = UNORM_CANCELLED;
    }
    /* canonical ordering: each run of marks sorted by class */
    int32_t *tmp = NULL;
    for (size_t i = 0; i < c.n && rc == 0;) {
        if (ccc(c.v[i]) == 0) {
            i++;
            continue;
        }
        size_t j = i;
        while (j < c.n && ccc(c.v[j]) != 0) j++;
        if (j - i > 32 && !tmp && !(tmp = malloc(c.n * sizeof *tmp))) rc = UNORM_NOMEM;
        else order_run(c.v + i, j - i, tmp);
        i = j;
    }
    free(tmp);
    if (rc == 0 && (f == UNORM_NFC || f == UNORM_NFKC)) {
        /* STABLE: the composition exclusions stay decomposed */
        utf8proc_ssize_t m = utf8proc_normalize_utf32(c.v, (utf8proc_ssize_t)c.n, UTF8PROC_COMPOSE | UTF8PROC_STABLE);
        if (m < 0) rc = UNORM_NOMEM; /* only for code points out of range: not from utf8proc_decompose_char */
        else c.n = (size_t)m;
    }
    if (rc == 0) rc = encode_out(&c, out, out_n);
    free(c.v);
    return rc;
}

int unorm_lowercase(const char *s, size_t n, char **out, size_t *out_n) {
    *out = NULL, *out_n = 0;
    /* U+0130 is the one character whose lowercase is longer (3 bytes from 2) */
    char *d = malloc(n + n / 2 + 1);
    if (!d) return UNORM_NOMEM;
    size_t k = 0;
    for (size_t at = 0; at < n;) {
        uint32_t cp;
        int len = utf8_decode(s + at, n - at, &cp);
        if (cp < 0x80) d[k++] = (char)(cp >= 'A' && cp <= 'Z' ? cp + 32 : cp);
        else if (cp == UTF8_INVALID) d[k++] = s[at];
        else if (cp == 0x130) k += (size_t)utf8_encode('i', d + k), k += (size_t)utf8_encode(0x307, d + k);
        else k += (size_t)utf8_encode((uint32_t)utf8proc_tolower((utf8proc_int32_t)cp), d + k);
        at += (size_t)len;
    }
    d[k] = '\0';
    *out = d, *out_n = k;
    return 0;
}

static int is_mark(uint32_t cp) {
    utf8proc_category_t c = utf8proc_category((utf8proc_int32_t)cp);
    return c == UTF8PROC_CATEGORY_MN || c == UTF8PROC_CATEGORY_MC || c == UTF8PROC_CATEGORY_ME;
}

int unorm_strip_marks(const char *s, size_t n, char **out, size_t *out_n) {
    *out = NULL, *out_n = 0;
    char *d = malloc(n + 1);
    if (!d) return UNORM_NOMEM;
    size_t k = 0;
    for (size_t at = 0; at < n;) {
        uint32_t cp;
        int len = utf8_decode(s + at, n - at, &cp);
        if (cp == UTF8_INVALID || !is_mark(cp)) memcpy(d + k, s + at, (size_t)len), k += (size_t)len;
        at += (size_t)len;
    }
    d[k] = '\0';
    *out = d, *out_n = k;
    return 0;
}

int unorm_is_space(uint32_t cp) {
    return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
           (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F ||
           cp == 0x3000;
}

int unorm_is_word(uint32_t cp) {
    if (cp < 0x80) return (cp >= '0' && cp <= '9') || (cp >= 'A' && cp <= 'Z') || (cp >= 'a' && cp <= 'z') || cp == '_';
    if (cp == 0x200C || cp == 0x200D) return 1; /* Join_Control */
    /* Other_Alphabetic that is not a mark: circled and squared letters */
    if ((cp >= 0x24B6 && cp <= 0x24E9) || (cp >= 0x1F130 && cp <= 0x1F149) || (cp >= 0x1F150 && cp <= 0x1F169) ||
        (cp >= 0x1F170 && cp <= 0x1F189))
        return 1;
    switch (utf8proc_category((utf8proc_int32_t)cp)) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LL:
    case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO:
    case UTF8PROC_CATEGORY_NL:
    case UTF8PROC_CATEGORY_MN:
    case UTF8PROC_CATEGORY_MC:
    case UTF8PROC_CATEGORY_ME:
    case UTF8PROC_CATEGORY_ND:
    case UTF8PROC_CATEGORY_PC: return 1;
    default: return 0;
    }
}

const char *unorm_unicode_version(void) { return utf8proc_unicode_version(); }
