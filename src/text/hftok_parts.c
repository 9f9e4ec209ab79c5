/* hftok_parts.c - the components of a tokenizer.json around its model:
 * the normalizer, the pre-tokenizer and the post-processor (their steps
 * run in hftok_encode.c). Each unsupported component is refused with one
 * line naming it and where it is. */
#include "hftok_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "tokenize.h"
#include "utf8.h"

const char *hftok_json_type(const cJSON *v) {
    if (!v) return _("missing");
    if (cJSON_IsNull(v)) return "null";
    if (cJSON_IsBool(v)) return _("a boolean");
    if (cJSON_IsNumber(v)) return _("a number");
    if (cJSON_IsString(v)) return _("a string");
    if (cJSON_IsArray(v)) return _("an array");
    return _("an object");
}

long hftok_json_int(const cJSON *v, long max) {
    if (!cJSON_IsNumber(v)) return -1;
    double d = v->valuedouble;
    if (!(d >= 0 && d <= (double)max) || d != (double)(long)d) return -1;
    return (long)d;
}

int hftok_json_flag(const cJSON *obj, const char *key) {
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(obj, key));
}

const char *hftok_json_str(const cJSON *obj, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

int hftok_check_utf8(const char *s, size_t n, const char *file, const char *where, AvError *err) {
    for (size_t at = 0; at < n;) {
        uint32_t cp;
        int k = utf8_decode(s + at, n - at, &cp);
        if (cp == UTF8_INVALID) {
            char why[96], *shown = utf8_escape(s, n < 64 ? n : 64);
            utf8_invalid_reason(s, n, at, why, sizeof why);
            av_errorf(err, _("%s: %s \"%s%s\" is not valid UTF-8 (byte %zu: %s)"), file, where, shown ? shown : "",
                      n > 64 ? "..." : "", at, why);
            free(shown);
            return -1;
        }
        at += (size_t)k;
    }
    return 0;
}

static pcre2_code *compile(const char *pattern, const char *file, const char *where, AvError *err) {
    int code = 0;
    PCRE2_SIZE off = 0;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
                                   PCRE2_UTF | PCRE2_UCP | PCRE2_NEVER_BACKSLASH_C, &code, &off, NULL);
    if (!re) {
        PCRE2_UCHAR reason[256];
        pcre2_get_error_message(code, reason, sizeof reason);
        av_errorf(err, _("%s: %s: PCRE2 refuses the pattern: %s at offset %zu"), file, where, (const char *)reason,
                  (size_t)off);
        return NULL;
    }
    pcre2_jit_compile(re, PCRE2_JIT_COMPLETE); /* an optimisation only */
    return re;
}

int hftok_compile_split(HfTok *t, const char *pattern, const char *file, const char *where, AvError *err) {
    if (t->n_split == HFTOK_MAX_SPLITS)
        return av_errorf(err, _("%s: %s: more than %d splitting steps"), file, where, HFTOK_MAX_SPLITS);
    pcre2_code *re = compile(pattern, file, where, err);
    if (!re) return -1;
    t->split[t->n_split++] = re;
    return 0;
}

/* A string member of a normalizer: 0 with *out a copy, or -1. */
static int norm_string(const cJSON *n, const char *key, int nonempty, const char *file, const char *where, char **out,
                       AvError *err) {
    const char *v = hftok_json_str(n, key);
    if (!v || (nonempty && !*v))
        return av_errorf(
            err, nonempty ? _("%s: %s: \"%s\" is %s, not a non-empty string") : _("%s: %s: \"%s\" is %s, not a string"),
            file, where, key, v ? _("empty") : hftok_json_type(cJSON_GetObjectItemCaseSensitive(n, key)));

    char w[96];
    snprintf(w, sizeof w, "%s.%s", where, key);
    if (hftok_check_utf8(v, strlen(v), file, w, err)) return -1;
    if (!(*out = hftok_dup(v, strlen(v)))) return av_error_nomem(err, _("%s: out of memory"), file);
    return 0;
}

static const struct {
    const char *name;
    NormKind kind;
} NORM_NAMES[] = {
    {"NFC", NORM_NFC},
    {"NFD", NORM_NFD},
    {"NFKC", NORM_NFKC},
    {"NFKD", NORM_NFKD},
    {"Lowercase", NORM_LOWERCASE},
    {"StripAccents", NORM_STRIP_ACCENTS},
    {"Strip", NORM_STRIP},
    {"Prepend", NORM_PREPEND},
    {"Replace", NORM_REPLACE},
};

int hftok_parse_normalizer(HfTok *t, const cJSON *n, const char *file, const char *where, AvError *err) {
    if (!n || cJSON_IsNull(n)) return 0;
    const char *type = hftok_json_str(n, "type");
    if (!type) return av_errorf(err, _("%s: %s has no type"), file, where);
    if (strcmp(type, "Sequence") == 0) {
        const cJSON *list = cJSON_GetObjectItemCaseSensitive(n, "normalizers");
        if (!cJSON_IsArray(list)) return av_errorf(err, _("%s: %s.normalizers is not an array"), file, where);
        int i = 0;
        const cJSON *s;
        cJSON_ArrayForEach(s, list) {
            char w[64];
            snprintf(w, sizeof w, "%s.normalizers[%d]", where, i++);
            if (cJSON_IsArray(s)) return av_errorf(err, _("%s: %s is an array, not a normalizer"), file, w);
            if (hftok_parse_normalizer(t, s, file, w, err)) return -1;
        }
        return 0;
    }
    int k = -1;
    for (size_t i = 0; i < sizeof NORM_NAMES / sizeof *NORM_NAMES; i++)
        if (strcmp(type, NORM_NAMES[i].name) == 0) k = (int)i;
    if (k < 0) {
        char name[64];
        utf8_escape_into(name, sizeof name, type);
        return av_errorf(err,
                         _("%s: %s: normalizer %s is not supported (NFC, NFD, NFKC, NFKD, Lowercase, StripAccents, "
                           "Strip, Prepend, Replace and Sequence are)"),
                         file, where, name);
    }
    if (t->n_norm == HFTOK_MAX_NORM)
        return av_errorf(err, _("%s: %s: more than %d steps"), file, where, HFTOK_MAX_NORM);
    NormStep *st = &t->norm[t->n_norm];
    memset(st, 0, sizeof *st);
    st->kind = NORM_NAMES[k].kind;
    t->n_norm++; /* from here its strings are freed with the tokenizer */
    if (st->kind == NORM_STRIP) {
        st->left = hftok_json_flag(n, "strip_left");
        st->right = hftok_json_flag(n, "strip_right");
    } else if (st->kind == NORM_PREPEND) {
        return norm_string(n, "prepend", 0, file, where, &st->a, err);
    } else if (st->kind == NORM_REPLACE) {
        const cJSON *pat = cJSON_GetObjectItemCaseSensitive(n, "pattern");
        char w[96];
        snprintf(w, sizeof w, "%s.pattern", where);
        const char *re = hftok_json_str(pat, "Regex");
        if (re) {
            if (!*re) return av_errorf(err, _("%s: %s.Regex is empty"), file, w);
            if (hftok_check_utf8(re, strlen(re), file, w, err) || !(st->re = compile(re, file, w, err))) return -1;
        } else if (norm_string(pat, "String", 1, file, w, &st->a, err)) {
            return -1;
        }
        return norm_string(n, "content", 0, file, where, &st->b, err);
    }
    return 0;
}

void hftok_free_parts(HfTok *t) {
    for (int i = 0; i < t->n_norm; i++) {
        free(t->norm[i].a), free(t->norm[i].b);
        pcre2_code_free(t->norm[i].re);
    }
    t->n_norm = 0;
    free(t->ms_repl);
    t->ms_repl = NULL;
    for (int i = 0; i < t->n_split; i++) pcre2_code_free(t->split[i]);
    t->n_split = 0;
}

int hftok_parse_pre_tokenizer(HfTok *t, const cJSON *p, const char *file, const char *where, int nested, AvError *err) {
    if (!p || cJSON_IsNull(p)) return 0;
    const char *type = hftok_json_str(p, "type");
    if (!type) return av_errorf(err, _("%s: %s has no type"), file, where);
    if (strcmp(type, "Sequence") == 0 && !nested) {
        const cJSON *list = cJSON_GetObjectItemCaseSensitive(p, "pretokenizers");
        if (!cJSON_IsArray(list)) return av_errorf(err, _("%s: %s.pretokenizers is not an array"), file, where);
        int i = 0;
        const cJSON *s;
        cJSON_ArrayForEach(s, list) {
            char w[64];
            snprintf(w, sizeof w, "%s.pretokenizers[%d]", where, i++);
            if (hftok_parse_pre_tokenizer(t, s, file, w, 1, err)) return -1;
        }
        return 0;
    }
    if (strcmp(type, "ByteLevel") == 0) {
        t->byte_level = 1;
        t->prefix_space = hftok_json_flag(p, "add_prefix_space");
        t->prefix_after = t->n_split;
        const cJSON *re = cJSON_GetObjectItemCaseSensitive(p, "use_regex");
        if (!re || cJSON_IsTrue(re)) return hftok_compile_split(t, HFTOK_GPT2_PATTERN, file, where, err);
        return 0;
    }
    if (strcmp(type, "Split") == 0) {
        const char *behavior = hftok_json_str(p, "behavior");
        const char *re = hftok_json_str(cJSON_GetObjectItemCaseSensitive(p, "pattern"), "Regex");
        if (!re) re = hftok_json_str(cJSON_GetObjectItemCaseSensitive(p, "pattern"), "String");
        if (!re || !behavior || strcmp(behavior, "Isolated") != 0 || hftok_json_flag(p, "invert"))
            return av_errorf(err,
                             _("%s: %s: only Split with a pattern, the Isolated behavior and no invert is supported"),
                             file, where);
        char w[96];
        snprintf(w, sizeof w, "%s.pattern", where);
        if (hftok_check_utf8(re, strlen(re), file, w, err)) return -1;
        if (!hftok_json_str(cJSON_GetObjectItemCaseSensitive(p, "pattern"), "Regex")) {
            /* a literal string: quote it for PCRE2 */
            size_t n = strlen(re);
            char *q = malloc(n + 5);
            if (!q) return av_error_nomem(err, _("%s: out of memory"), file);
            snprintf(q, n + 5, "\\Q%s\\E", re);
            int rc = strstr(re, "\\E") ? av_errorf(err, _("%s: %s: a String pattern with \\E"), file, where)
                                       : hftok_compile_split(t, q, file, where, err);
            free(q);
            return rc;
        }
        return hftok_compile_split(t, re, file, where, err);
    }
    if (strcmp(type, "Digits") == 0)
        return hftok_compile_split(t, hftok_json_flag(p, "individual_digits") ? "\\p{N}" : "\\p{N}+", file, where, err);
    if (strcmp(type, "Metaspace") == 0 && !nested) {
        const char *r = hftok_json_str(p, "replacement");
        const char *scheme = hftok_json_str(p, "prepend_scheme");
        t->metaspace = 1;
        if (r && !*r) return av_errorf(err, _("%s: %s: the replacement is empty"), file, where);
        char w[96];
        snprintf(w, sizeof w, "%s.replacement", where);
        if (r && hftok_check_utf8(r, strlen(r), file, w, err)) return -1;
        free(t->ms_repl);
        if (!(t->ms_repl = hftok_dup(r ? r : HFTOK_METASPACE, strlen(r ? r : HFTOK_METASPACE))))
            return av_error_nomem(err, _("%s: out of memory"), file);
        if (scheme) {
            if (strcmp(scheme, "never") && strcmp(scheme, "first") && strcmp(scheme, "always"))
                return av_errorf(err, _("%s: %s: unknown prepend_scheme"), file, where);
            t->ms_prepend = strcmp(scheme, "never") == 0 ? 0 : strcmp(scheme, "first") == 0 ? 1 : 2;
        } else {
            const cJSON *aps = cJSON_GetObjectItemCaseSensitive(p, "add_prefix_space");
            t->ms_prepend = !aps || cJSON_IsTrue(aps) ? 2 : 0;
        }
        const cJSON *split = cJSON_GetObjectItemCaseSensitive(p, "split");
        t->ms_split = !split || cJSON_IsTrue(split);
        return 0;
    }
    char name[64];
    utf8_escape_into(name, sizeof name, type);
    return av_errorf(err,
                     _("%s: %s: pre-tokenizer %s is not supported (ByteLevel, Split, Digits, Metaspace and a Sequence "
                       "of the first three are)"),
                     file, where, name);
}

/* TemplateProcessing's "single": the special tokens around $A. */
static int parse_template(HfTok *t, const cJSON *p, const char *file, const char *where, AvError *err) {
    const cJSON *single = cJSON_GetObjectItemCaseSensitive(p, "single");
    const cJSON *specials = cJSON_GetObjectItemCaseSensitive(p, "special_tokens");
    if (!cJSON_IsArray(single)) return av_errorf(err, _("%s: %s.single is not an array"), file, where);
    int after = 0, i = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, single) {
        const cJSON *seq = cJSON_GetObjectItemCaseSensitive(item, "Sequence");
        const cJSON *sp = cJSON_GetObjectItemCaseSensitive(item, "SpecialToken");
        if (seq) {
            after = 1;
        } else if (sp) {
            const char *name = hftok_json_str(sp, "id");
            const cJSON *ids =
                cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(specials, name ? name : ""), "ids");
            if (!name || !cJSON_IsArray(ids))
                return av_errorf(err, _("%s: %s.single[%d]: a special token not in special_tokens"), file, where, i);
            const cJSON *idv;
            cJSON_ArrayForEach(idv, ids) {
                long id = hftok_json_int(idv, t->n - 1);
                int *n = after ? &t->n_post : &t->n_pre;
                if (id < 0 || *n == HFTOK_MAX_TEMPLATE)
                    return av_errorf(err, _("%s: %s.single[%d]: a special id not in the vocabulary (or too many)"),
                                     file, where, i);
                (after ? t->post : t->pre)[(*n)++] = (int)id;
            }
        } else {
            return av_errorf(err, _("%s: %s.single[%d] is neither a Sequence nor a SpecialToken"), file, where, i);
        }
        i++;
    }
    return 0;
}

int hftok_parse_post(HfTok *t, const cJSON *p, const char *file, const char *where, int nested, AvError *err) {
    if (!p || cJSON_IsNull(p)) return 0;
    const char *type = hftok_json_str(p, "type");
    if (!type) return av_errorf(err, _("%s: %s has no type"), file, where);
    if (strcmp(type, "ByteLevel") == 0) return 0; /* offsets only */
    if (strcmp(type, "TemplateProcessing") == 0) return parse_template(t, p, file, where, err);
    if (strcmp(type, "Sequence") == 0 && !nested) {
        const cJSON *list = cJSON_GetObjectItemCaseSensitive(p, "processors");
        if (!cJSON_IsArray(list)) return av_errorf(err, _("%s: %s.processors is not an array"), file, where);
        int i = 0;
        const cJSON *s;
        cJSON_ArrayForEach(s, list) {
            char w[64];
            snprintf(w, sizeof w, "%s.processors[%d]", where, i++);
            if (hftok_parse_post(t, s, file, w, 1, err)) return -1;
        }
        return 0;
    }
    char name[64];
    utf8_escape_into(name, sizeof name, type);
    return av_errorf(err, _("%s: %s: post-processor %s is not supported (ByteLevel, TemplateProcessing are)"), file,
                     where, name);
}
