/* json.h - a tiny strict JSON parser for tests: enough to check that a dump
 * is valid JSON and to read numbers back. Not for production use. */
#ifndef ATTNVIZ_TEST_JSON_H
#define ATTNVIZ_TEST_JSON_H

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } JType;

typedef struct J {
    JType type;
    double num;       /* J_NUM, J_BOOL */
    char *str;        /* J_STR (decoded, UTF-8) */
    struct J **items; /* J_ARR items, J_OBJ values */
    char **keys;      /* J_OBJ keys */
    int n;
} J;

typedef struct {
    const char *p, *end;
    const char *error;
} JParser;

static J *j_value(JParser *ps);

static void j_ws(JParser *ps) {
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\n' || *ps->p == '\r' || *ps->p == '\t')) ps->p++;
}

static J *j_new(JType t) {
    J *j = calloc(1, sizeof *j);
    j->type = t;
    return j;
}

static void j_free(J *j) {
    if (!j) return;
    for (int i = 0; i < j->n; i++) {
        j_free(j->items[i]);
        if (j->keys) free(j->keys[i]);
    }
    free(j->items), free(j->keys), free(j->str), free(j);
}

static void j_push(J *j, J *item, char *key) {
    j->items = realloc(j->items, sizeof(J *) * (size_t)(j->n + 1));
    if (j->type == J_OBJ) j->keys = realloc(j->keys, sizeof(char *) * (size_t)(j->n + 1)), j->keys[j->n] = key;
    j->items[j->n++] = item;
}

static void j_utf8(char **out, size_t *len, unsigned cp) {
    char *o = *out + *len;
    if (cp < 0x80) o[0] = (char)cp, *len += 1;
    else if (cp < 0x800) o[0] = (char)(0xC0 | cp >> 6), o[1] = (char)(0x80 | (cp & 63)), *len += 2;
    else
        o[0] = (char)(0xE0 | cp >> 12), o[1] = (char)(0x80 | ((cp >> 6) & 63)), o[2] = (char)(0x80 | (cp & 63)),
        *len += 3;
}

static char *j_string(JParser *ps) {
    if (ps->p >= ps->end || *ps->p != '"') return ps->error = "expected string", NULL;
    ps->p++;
    char *s = malloc((size_t)(ps->end - ps->p) + 4);
    size_t len = 0;
    while (ps->p < ps->end && *ps->p != '"') {
        unsigned char c = (unsigned char)*ps->p;
        if (c < 0x20) return free(s), ps->error = "control character in string", NULL;
        if (c == '\\') {
            ps->p++;
            if (ps->p >= ps->end) break;
            char e = *ps->p++;
            switch (e) {
            case '"':
            case '\\':
            case '/': s[len++] = e; break;
            case 'n': s[len++] = '\n'; break;
            case 't': s[len++] = '\t'; break;
            case 'r': s[len++] = '\r'; break;
            case 'b': s[len++] = '\b'; break;
            case 'f': s[len++] = '\f'; break;
            case 'u': {
                if (ps->end - ps->p < 4) return free(s), ps->error = "bad \\u", NULL;
                char hex[5] = {0};
                memcpy(hex, ps->p, 4);
                for (int i = 0; i < 4; i++)
                    if (!isxdigit((unsigned char)hex[i])) return free(s), ps->error = "bad \\u", NULL;
                ps->p += 4;
                j_utf8(&s, &len, (unsigned)strtoul(hex, NULL, 16));
                break;
            }
            default: return free(s), ps->error = "bad escape", NULL;
            }
        } else {
            s[len++] = (char)c;
            ps->p++;
        }
    }
    if (ps->p >= ps->end) return free(s), ps->error = "unterminated string", NULL;
    ps->p++;
    s[len] = '\0';
    return s;
}

static J *j_value(JParser *ps) {
    j_ws(ps);
    if (ps->p >= ps->end) return ps->error = "unexpected end", NULL;
    char c = *ps->p;
    if (c == '{' || c == '[') {
        int obj = c == '{';
        J *j = j_new(obj ? J_OBJ : J_ARR);
        ps->p++;
        j_ws(ps);
        if (ps->p < ps->end && *ps->p == (obj ? '}' : ']')) {
            ps->p++;
            return j;
        }
        for (;;) {
            char *key = NULL;
            if (obj) {
                j_ws(ps);
                key = j_string(ps);
                if (!key) return j_free(j), NULL;
                j_ws(ps);
                if (ps->p >= ps->end || *ps->p != ':') return free(key), j_free(j), ps->error = "expected :", NULL;
                ps->p++;
            }
            J *item = j_value(ps);
            if (!item) return free(key), j_free(j), NULL;
            j_push(j, item, key);
            j_ws(ps);
            if (ps->p < ps->end && *ps->p == ',') {
                ps->p++;
                continue;
            }
            if (ps->p < ps->end && *ps->p == (obj ? '}' : ']')) {
                ps->p++;
                return j;
            }
            return j_free(j), ps->error = "expected , or end", NULL;
        }
    }
    if (c == '"') {
        char *s = j_string(ps);
        if (!s) return NULL;
        J *j = j_new(J_STR);
        j->str = s;
        return j;
    }
    if (ps->end - ps->p >= 4 && memcmp(ps->p, "null", 4) == 0) return ps->p += 4, j_new(J_NULL);
    if (ps->end - ps->p >= 4 && memcmp(ps->p, "true", 4) == 0) {
        J *j = j_new(J_BOOL);
        j->num = 1;
        ps->p += 4;
        return j;
    }
    if (ps->end - ps->p >= 5 && memcmp(ps->p, "false", 5) == 0) return ps->p += 5, j_new(J_BOOL);
    /* JSON number grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
    const char *q = ps->p;
    if (q < ps->end && *q == '-') q++;
    if (q >= ps->end || !isdigit((unsigned char)*q)) return ps->error = "bad value", NULL;
    if (*q == '0') q++;
    else
        while (q < ps->end && isdigit((unsigned char)*q)) q++;
    if (q < ps->end && *q == '.') {
        q++;
        if (q >= ps->end || !isdigit((unsigned char)*q)) return ps->error = "bad fraction", NULL;
        while (q < ps->end && isdigit((unsigned char)*q)) q++;
    }
    if (q < ps->end && (*q == 'e' || *q == 'E')) {
        q++;
        if (q < ps->end && (*q == '+' || *q == '-')) q++;
        if (q >= ps->end || !isdigit((unsigned char)*q)) return ps->error = "bad exponent", NULL;
        while (q < ps->end && isdigit((unsigned char)*q)) q++;
    }
    char buf[64];
    size_t n = (size_t)(q - ps->p);
    if (n >= sizeof buf) return ps->error = "number too long", NULL;
    memcpy(buf, ps->p, n);
    buf[n] = '\0';
    J *j = j_new(J_NUM);
    j->num = strtod(buf, NULL);
    ps->p = q;
    return j;
}

/* Parses a whole document; NULL with *error set when it is not valid JSON. */
static J *j_parse(const char *text, size_t len, const char **error) {
    JParser ps = {text, text + len, NULL};
    J *j = j_value(&ps);
    if (j) {
        j_ws(&ps);
        if (ps.p != ps.end) j_free(j), j = NULL, ps.error = "trailing characters";
    }
    if (error) *error = ps.error;
    return j;
}

static J *j_get(const J *j, const char *key) {
    if (!j || j->type != J_OBJ) return NULL;
    for (int i = 0; i < j->n; i++)
        if (strcmp(j->keys[i], key) == 0) return j->items[i];
    return NULL;
}

static J *j_at(const J *j, int i) { return j && j->type == J_ARR && i < j->n ? j->items[i] : NULL; }

#endif
