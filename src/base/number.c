/* number.c - see number.h. */
#include "number.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Reads s, which must be one or more ASCII digits and nothing else, into
 * *v. Returns -1 when it is not, 1 when the value passes cap (digits are
 * still checked to the end, so "99999999999999999999x" is not a number), 0
 * otherwise. Never overflows. */
static int num_digits(const char *s, uint64_t cap, uint64_t *v) {
    if (*s == '\0') return -1;
    uint64_t acc = 0;
    int over = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return -1;
        unsigned d = (unsigned)(*s - '0');
        if (over) continue;
        if (acc > (cap - d) / 10) over = 1;
        else acc = acc * 10 + d;
    }
    *v = acc;
    return over;
}

/* "-" and digits where the range has no negative numbers: a number, but
 * never in range (the message says so rather than "not a number"). */
static NumResult num_negative(const char *s) {
    uint64_t v;
    return num_digits(s + 1, UINT64_MAX, &v) < 0 ? NUM_NOT_A_NUMBER : NUM_OUT_OF_RANGE;
}

NumResult num_parse_long(const char *s, long lo, long hi, long *out) {
    if (!s) return NUM_NOT_A_NUMBER;
    if (s[0] == '-' && lo >= 0) return num_negative(s);
    int neg = s[0] == '-';
    uint64_t cap = (uint64_t)LONG_MAX + 1; /* |LONG_MIN| */
    uint64_t mag;
    int rc = num_digits(s + neg, cap, &mag);
    if (rc < 0) return NUM_NOT_A_NUMBER;
    if (rc > 0 || (!neg && mag > (uint64_t)LONG_MAX)) return NUM_OUT_OF_RANGE;
    long v = !neg ? (long)mag : mag == cap ? LONG_MIN : -(long)mag;
    if (v < lo || v > hi) return NUM_OUT_OF_RANGE;
    *out = v;
    return NUM_OK;
}

NumResult num_parse_u64(const char *s, uint64_t *out) {
    if (!s) return NUM_NOT_A_NUMBER;
    if (s[0] == '-') return num_negative(s);
    uint64_t v;
    int rc = num_digits(s, UINT64_MAX, &v);
    if (rc < 0) return NUM_NOT_A_NUMBER;
    if (rc > 0) return NUM_OUT_OF_RANGE;
    *out = v;
    return NUM_OK;
}

void num_short(char *buf, size_t cap, double v) {
    if (v != v) {
        snprintf(buf, cap, "nan");
        return;
    }
    if (fabs(v) < 9999.995) {
        snprintf(buf, cap, "%.2f", v);
        return;
    }
    if (isinf(v)) {
        snprintf(buf, cap, "%sinf", v < 0 ? "-" : "");
        return;
    }
    char e[32];
    snprintf(e, sizeof e, "%.2e", v); /* "3.40e+38" */
    char *p = strchr(e, 'e');
    if (p && p[1] == '+') memmove(p + 1, p + 2, strlen(p + 2) + 1);
    if (p && p[1] == '0') memmove(p + 1, p + 2, strlen(p + 2) + 1); /* "e+05" -> "e5" */
    snprintf(buf, cap, "%s", e);
}
