/* hftok.c - Hugging Face BPE tokenizers from tokenizer.json or GPT-2's
 * vocab.json + merges.txt; see hftok.h.
 *
 * The vocabulary keeps two spellings of every token: its form (as the file
 * writes it: "Ġthe", "▁the", "<0x0A>"), looked up through a hash table, and
 * its raw bytes (" the"), which hftok_piece returns. Merges are a second hash
 * table from a pair of ids to (rank, merged id). Encoding a piece starts from
 * its symbols and merges, lowest rank first, with a heap of candidate pairs
 * that are checked again when they come out (a merge next to them may have
 * changed their neighbours). */
#include "hftok.h"
#include "jsonkeys.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "readfile.h"
#include "tokenize.h"
#include "utf8.h"

#define HFTOK_MAX_NORM     8  /* steps of a normalizer Sequence */
#define HFTOK_MAX_SPLITS   8  /* steps of a pre-tokenizer Sequence */
#define HFTOK_MAX_TEMPLATE 8  /* special tokens before or after $A */
#define HFTOK_NAME         96 /* an escaped file name in messages */

static const char GPT2_PATTERN[] = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";
static const char METASPACE[] = "\xe2\x96\x81"; /* U+2581 LOWER ONE EIGHTH BLOCK, SentencePiece's ▁ */

// ----------------------------------------------------------------------------
// the tokenizer

typedef enum { NORM_NFC, NORM_PREPEND, NORM_REPLACE } NormKind;

typedef struct {
    NormKind kind;
    char *a, *b; /* Prepend: a; Replace: a -> b */
} NormStep;

typedef struct {
    int id;
    char *text; /* content (owned) */
    size_t len;
} Added;

typedef struct {
    uint64_t key; /* left << 32 | right, + 1 (0: an empty slot) */
    int rank, id;
} PairSlot;

struct HfTok {
    int n;                 /* ids 0..n-1 */
    char **form;           /* n spellings of the file (NULL in a gap) */
    size_t *form_len;      /* n */
    char **raw;            /* n raw byte strings (NULL: the same as form) */
    size_t *raw_len;       /* n */
    char *special;         /* n: 0 a model token, 2 an added one, 3 an added special one */
    int *map;              /* the form -> id table: ids, -1 empty */
    size_t map_cap;        /* a power of two */
    PairSlot *pairs;       /* the merges */
    size_t pair_cap;       /* a power of two */
    int byte_level;        /* symbols are bytes through the byte-to-unicode table */
    uint32_t byte_cp[256]; /* that table: the character of each byte */
    short cp_byte[324];    /* and back (-1: no byte) */
    int byte_sym[256];     /* byte-level: the id of each byte's character (-1 none) */
    int byte_fallback;     /* sentencepiece: <0xNN> for a character not in the vocabulary */
    int byte_id[256];      /* the id of <0xNN> (-1 none) */
    int unk;               /* unk_token's id, -1 none */
    int fuse_unk;          /* consecutive unknowns are one unk */
    int ignore_merges;     /* a piece in the vocabulary is taken whole */
    NormStep norm[HFTOK_MAX_NORM];
    int n_norm;
    int metaspace;                       /* the pre-tokenizer is Metaspace */
    char *ms_repl;                       /* its replacement (owned) */
    int ms_prepend;                      /* 0 never, 1 first, 2 always */
    int ms_split;                        /* split before each replacement */
    int prefix_space;                    /* ByteLevel add_prefix_space */
    pcre2_code *split[HFTOK_MAX_SPLITS]; /* Isolated splits, in order */
    int n_split;
    Added *added;                   /* sorted longest first */
    unsigned char added_first[256]; /* 1 for a byte an added token starts with */
    int n_added;
    int pre[HFTOK_MAX_TEMPLATE], n_pre;   /* ids before the text */
    int post[HFTOK_MAX_TEMPLATE], n_post; /* ids after it */
};

static char *dup_bytes(const char *s, size_t n) {
    char *d = malloc(n + 1);
    if (!d) return NULL;
    if (n) memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

void hftok_free(HfTok *t) {
    if (!t) return;
    for (int i = 0; i < t->n; i++) {
        free(t->form ? t->form[i] : NULL);
        free(t->raw ? t->raw[i] : NULL);
    }
    free(t->form);
    free(t->form_len);
    free(t->raw);
    free(t->raw_len);
    free(t->special);
    free(t->map);
    free(t->pairs);
    for (int i = 0; i < t->n_norm; i++) free(t->norm[i].a), free(t->norm[i].b);
    free(t->ms_repl);
    for (int i = 0; i < t->n_split; i++) pcre2_code_free(t->split[i]);
    for (int i = 0; i < t->n_added; i++) free(t->added[i].text);
    free(t->added);
    free(t);
}

int hftok_vocab_size(const HfTok *t) { return t ? t->n : 0; }

static size_t next_pow2(size_t n) {
    size_t c = 16;
    while (c < n) c *= 2;
    return c;
}

int hftok_lookup(const HfTok *t, const char *s, size_t len) {
    size_t mask = t->map_cap - 1;
    for (size_t h = (size_t)av_fnv1a(s, len) & mask;; h = (h + 1) & mask) {
        int id = t->map[h];
        if (id < 0) return -1;
        if (t->form_len[id] == len && memcmp(t->form[id], s, len) == 0) return id;
    }
}

/* Enters id under its form unless the form is there already (the first
 * stays). */
static void map_insert(HfTok *t, int id) {
    size_t mask = t->map_cap - 1;
    for (size_t h = (size_t)av_fnv1a(t->form[id], t->form_len[id]) & mask;; h = (h + 1) & mask) {
        int at = t->map[h];
        if (at < 0) {
            t->map[h] = id;
            return;
        }
        if (t->form_len[at] == t->form_len[id] && memcmp(t->form[at], t->form[id], t->form_len[id]) == 0) return;
    }
}

static uint64_t pair_key(int a, int b) { return ((uint64_t)(uint32_t)a << 32 | (uint32_t)b) + 1; }

static size_t pair_hash(uint64_t key) { return (size_t)((key * 0x9E3779B97F4A7C15u) >> 17); }

static const PairSlot *pair_find(const HfTok *t, int a, int b) {
    if (!t->pair_cap) return NULL;
    uint64_t key = pair_key(a, b);
    size_t mask = t->pair_cap - 1;
    for (size_t h = pair_hash(key) & mask;; h = (h + 1) & mask) {
        if (t->pairs[h].key == key) return &t->pairs[h];
        if (t->pairs[h].key == 0) return NULL;
    }
}

/* 0 when entered, 1 when the pair was there already (the lower rank stays). */
static int pair_insert(HfTok *t, int a, int b, int rank, int id) {
    uint64_t key = pair_key(a, b);
    size_t mask = t->pair_cap - 1;
    for (size_t h = pair_hash(key) & mask;; h = (h + 1) & mask) {
        if (t->pairs[h].key == key) return 1;
        if (t->pairs[h].key == 0) {
            t->pairs[h] = (PairSlot){key, rank, id};
            return 0;
        }
    }
}

// ----------------------------------------------------------------------------
// the byte-to-unicode table of GPT-2's encoder.py

/* The printable bytes ! .. ~, ¡ .. ¬ and ® .. ÿ stand for themselves; the
 * other 68, in order, for U+0100 onwards. Fills both directions (inverse:
 * -1 for a character of no byte). */
static void byte_table(uint32_t cp_of[256], short byte_of[324]) {
    for (int i = 0; i < 324; i++) byte_of[i] = -1;
    uint32_t next = 256;
    for (int b = 0; b < 256; b++) {
        int printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
        cp_of[b] = printable ? (uint32_t)b : next++;
        byte_of[cp_of[b]] = (short)b;
    }
}

// ----------------------------------------------------------------------------
// building the vocabulary

static int set_token(HfTok *t, int id, const char *form, size_t len, const char *file, AvError *err) {
    if (t->form[id]) {
        if (t->form_len[id] == len && memcmp(t->form[id], form, len) == 0) return 0;
        char *a = utf8_escape(t->form[id], t->form_len[id]), *b = utf8_escape(form, len);
        av_errorf(err, "%s: id %d is both \"%s\" and \"%s\"", file, id, a ? a : "", b ? b : "");
        free(a), free(b);
        return -1;
    }
    t->form[id] = dup_bytes(form, len);
    if (!t->form[id]) return av_error_nomem(err, "%s: out of memory", file);
    t->form_len[id] = len;
    return 0;
}

/* The raw bytes of every vocabulary token (added tokens are their content). */
static int make_raw(HfTok *t, const char *file, AvError *err) {
    for (int id = 0; id < t->n; id++) {
        const char *f = t->form[id];
        size_t n = t->form_len[id];
        if (!f || t->special[id] >= 2) continue; /* 2, 3: an added token, raw as written */
        char *r = malloc(n + 1);
        if (!r) return av_error_nomem(err, "%s: out of memory", file);
        size_t k = 0;
        int ok = 1;
        if (t->byte_level) {
            for (size_t at = 0; at < n && ok;) {
                uint32_t cp;
                at += (size_t)utf8_decode(f + at, n - at, &cp);
                int b = cp < 324 ? t->cp_byte[cp] : -1;
                if (b < 0) ok = 0;
                else r[k++] = (char)b;
            }
        } else if (t->byte_fallback && n == 6 && memcmp(f, "<0x", 3) == 0 && f[5] == '>' &&
                   strchr("0123456789ABCDEFabcdef", f[3]) && strchr("0123456789ABCDEFabcdef", f[4]) && f[3] && f[4]) {
            r[k++] = (char)strtol((const char[]){f[3], f[4], 0}, NULL, 16);
        } else {
            size_t rl = strlen(t->ms_repl ? t->ms_repl : METASPACE);
            const char *rep = t->ms_repl ? t->ms_repl : METASPACE;
            for (size_t at = 0; at < n;) {
                if (rl && at + rl <= n && memcmp(f + at, rep, rl) == 0) r[k++] = ' ', at += rl;
                else r[k++] = f[at++];
            }
        }
        if (!ok) { /* not a byte-level spelling: the bytes as written */
            memcpy(r, f, n);
            k = n;
        }
        r[k] = '\0';
        t->raw[id] = r;
        t->raw_len[id] = k;
    }
    return 0;
}

static int alloc_ids(HfTok *t, int n, const char *file, AvError *err) {
    t->n = n;
    t->form = calloc((size_t)n, sizeof *t->form);
    t->form_len = calloc((size_t)n, sizeof *t->form_len);
    t->raw = calloc((size_t)n, sizeof *t->raw);
    t->raw_len = calloc((size_t)n, sizeof *t->raw_len);
    t->special = calloc((size_t)n, 1);
    if (!t->form || !t->form_len || !t->raw || !t->raw_len || !t->special)
        return av_error_nomem(err, "%s: out of memory", file);
    return 0;
}

static int build_map(HfTok *t, const char *file, AvError *err) {
    t->map_cap = next_pow2((size_t)t->n * 2);
    t->map = malloc(t->map_cap * sizeof *t->map);
    if (!t->map) return av_error_nomem(err, "%s: out of memory", file);
    for (size_t i = 0; i < t->map_cap; i++) t->map[i] = -1;
    /* Added tokens first: their content is what a lookup of it means. */
    for (int i = 0; i < t->n_added; i++) map_insert(t, t->added[i].id);
    for (int id = 0; id < t->n; id++)
        if (t->form[id]) map_insert(t, id);
    return 0;
}

/* The symbols' ids that do not depend on merges: each byte's character
 * (byte-level) and the <0xNN> pieces. */
static void find_symbols(HfTok *t) {
    char hex[8];
    for (int b = 0; b < 256; b++) {
        char c[4];
        int k = utf8_encode(t->byte_cp[b], c);
        t->byte_sym[b] = hftok_lookup(t, c, (size_t)k);
        snprintf(hex, sizeof hex, "<0x%02X>", b);
        t->byte_id[b] = hftok_lookup(t, hex, 6);
    }
}

static int alloc_pairs(HfTok *t, size_t n, const char *file, AvError *err) {
    t->pair_cap = next_pow2(n * 2 + 1);
    t->pairs = calloc(t->pair_cap, sizeof *t->pairs);
    if (!t->pairs) return av_error_nomem(err, "%s: out of memory", file);
    return 0;
}

/* One merge "left right" of rank `rank`: both pieces and their
 * concatenation must be tokens. `where` names it in messages. */
static int add_merge(HfTok *t, const char *l, size_t ln, const char *r, size_t rn, int rank, const char *file,
                     const char *where, AvError *err) {
    int a = hftok_lookup(t, l, ln), b = hftok_lookup(t, r, rn);
    char *cat = malloc(ln + rn + 1);
    if (!cat) return av_error_nomem(err, "%s: out of memory", file);
    memcpy(cat, l, ln);
    memcpy(cat + ln, r, rn);
    int id = hftok_lookup(t, cat, ln + rn);
    const char *bad = a < 0 ? l : b < 0 ? r : id < 0 ? cat : NULL;
    size_t bad_len = a < 0 ? ln : b < 0 ? rn : ln + rn;
    if (bad) {
        char *e = utf8_escape(bad, bad_len), *el = utf8_escape(l, ln), *er = utf8_escape(r, rn);
        av_errorf(err, "%s: %s \"%s %s\": %s%s is not in the vocabulary", file, where, el ? el : "", er ? er : "",
                  a >= 0 && b >= 0 ? "the merged piece " : "", e ? e : "");
        free(e), free(el), free(er), free(cat);
        return -1;
    }
    free(cat);
    pair_insert(t, a, b, rank, id);
    return 0;
}

static int sort_added(const void *pa, const void *pb) {
    const Added *a = pa, *b = pb;
    if (a->len != b->len) return a->len > b->len ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

// ----------------------------------------------------------------------------
// tokenizer.json

static const char *json_type(const cJSON *v) {
    if (!v) return "missing";
    if (cJSON_IsNull(v)) return "null";
    if (cJSON_IsBool(v)) return "a boolean";
    if (cJSON_IsNumber(v)) return "a number";
    if (cJSON_IsString(v)) return "a string";
    if (cJSON_IsArray(v)) return "an array";
    return "an object";
}

/* A JSON integer in [0, max], or -1. */
static long json_int(const cJSON *v, long max) {
    if (!cJSON_IsNumber(v)) return -1;
    double d = v->valuedouble;
    if (!(d >= 0 && d <= (double)max) || d != (double)(long)d) return -1;
    return (long)d;
}

static int json_flag(const cJSON *obj, const char *key) {
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(obj, key));
}

static const char *json_str(const cJSON *obj, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int compile_split(HfTok *t, const char *pattern, const char *file, const char *where, AvError *err) {
    if (t->n_split == HFTOK_MAX_SPLITS)
        return av_errorf(err, "%s: %s: more than %d splitting steps", file, where, HFTOK_MAX_SPLITS);
    int code = 0;
    PCRE2_SIZE off = 0;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
                                   PCRE2_UTF | PCRE2_UCP | PCRE2_NEVER_BACKSLASH_C, &code, &off, NULL);
    if (!re) {
        PCRE2_UCHAR reason[256];
        pcre2_get_error_message(code, reason, sizeof reason);
        return av_errorf(err, "%s: %s: PCRE2 refuses the pattern: %s at offset %zu", file, where, (const char *)reason,
                         (size_t)off);
    }
    pcre2_jit_compile(re, PCRE2_JIT_COMPLETE); /* an optimisation only */
    t->split[t->n_split++] = re;
    return 0;
}

static int parse_normalizer(HfTok *t, const cJSON *n, const char *file, const char *where, AvError *err) {
    if (!n || cJSON_IsNull(n)) return 0;
    const char *type = json_str(n, "type");
    if (!type) return av_errorf(err, "%s: %s has no type", file, where);
    if (strcmp(type, "Sequence") == 0) {
        const cJSON *list = cJSON_GetObjectItemCaseSensitive(n, "normalizers");
        if (!cJSON_IsArray(list)) return av_errorf(err, "%s: %s.normalizers is not an array", file, where);
        int i = 0;
        const cJSON *s;
        cJSON_ArrayForEach(s, list) {
            char w[64];
            snprintf(w, sizeof w, "%s.normalizers[%d]", where, i++);
            if (cJSON_IsArray(s)) return av_errorf(err, "%s: %s is an array, not a normalizer", file, w);
            if (parse_normalizer(t, s, file, w, err)) return -1;
        }
        return 0;
    }
    if (t->n_norm == HFTOK_MAX_NORM) return av_errorf(err, "%s: %s: more than %d steps", file, where, HFTOK_MAX_NORM);
    NormStep *st = &t->norm[t->n_norm];
    if (strcmp(type, "NFC") == 0) {
        st->kind = NORM_NFC;
    } else if (strcmp(type, "Prepend") == 0) {
        const char *p = json_str(n, "prepend");
        if (!p) return av_errorf(err, "%s: %s: Prepend without a \"prepend\" string", file, where);
        st->kind = NORM_PREPEND;
        if (!(st->a = dup_bytes(p, strlen(p)))) return av_error_nomem(err, "%s: out of memory", file);
    } else if (strcmp(type, "Replace") == 0) {
        const cJSON *pat = cJSON_GetObjectItemCaseSensitive(n, "pattern");
        const char *s = json_str(pat, "String"), *c = json_str(n, "content");
        if (!s || !*s || !c)
            return av_errorf(err, "%s: %s: only Replace of a String pattern with a content is supported", file, where);
        st->kind = NORM_REPLACE;
        st->a = dup_bytes(s, strlen(s));
        st->b = dup_bytes(c, strlen(c));
        if (!st->a || !st->b) {
            free(st->a), free(st->b);
            st->a = st->b = NULL;
            return av_error_nomem(err, "%s: out of memory", file);
        }
    } else {
        char name[64];
        utf8_escape_into(name, sizeof name, type);
        return av_errorf(err, "%s: %s: normalizer %s is not supported (NFC, Prepend, Replace and Sequence are)", file,
                         where, name);
    }
    t->n_norm++;
    return 0;
}

static int parse_pre_tokenizer(HfTok *t, const cJSON *p, const char *file, const char *where, int nested,
                               AvError *err) {
    if (!p || cJSON_IsNull(p)) return 0;
    const char *type = json_str(p, "type");
    if (!type) return av_errorf(err, "%s: %s has no type", file, where);
    if (strcmp(type, "Sequence") == 0 && !nested) {
        const cJSON *list = cJSON_GetObjectItemCaseSensitive(p, "pretokenizers");
        if (!cJSON_IsArray(list)) return av_errorf(err, "%s: %s.pretokenizers is not an array", file, where);
        int i = 0;
        const cJSON *s;
        cJSON_ArrayForEach(s, list) {
            char w[64];
            snprintf(w, sizeof w, "%s.pretokenizers[%d]", where, i++);
            if (parse_pre_tokenizer(t, s, file, w, 1, err)) return -1;
        }
        return 0;
    }
    if (strcmp(type, "ByteLevel") == 0) {
        t->byte_level = 1;
        t->prefix_space = json_flag(p, "add_prefix_space");
        const cJSON *re = cJSON_GetObjectItemCaseSensitive(p, "use_regex");
        if (!re || cJSON_IsTrue(re)) return compile_split(t, GPT2_PATTERN, file, where, err);
        return 0;
    }
    if (strcmp(type, "Split") == 0) {
        const char *behavior = json_str(p, "behavior");
        const char *re = json_str(cJSON_GetObjectItemCaseSensitive(p, "pattern"), "Regex");
        if (!re) re = json_str(cJSON_GetObjectItemCaseSensitive(p, "pattern"), "String");
        if (!re || !behavior || strcmp(behavior, "Isolated") != 0 || json_flag(p, "invert"))
            return av_errorf(err, "%s: %s: only Split with a pattern, the Isolated behavior and no invert is supported",
                             file, where);
        if (!json_str(cJSON_GetObjectItemCaseSensitive(p, "pattern"), "Regex")) {
            /* a literal string: quote it for PCRE2 */
            size_t n = strlen(re);
            char *q = malloc(n + 5);
            if (!q) return av_error_nomem(err, "%s: out of memory", file);
            snprintf(q, n + 5, "\\Q%s\\E", re);
            int rc = strstr(re, "\\E") ? av_errorf(err, "%s: %s: a String pattern with \\E", file, where)
                                       : compile_split(t, q, file, where, err);
            free(q);
            return rc;
        }
        return compile_split(t, re, file, where, err);
    }
    if (strcmp(type, "Digits") == 0)
        return compile_split(t, json_flag(p, "individual_digits") ? "\\p{N}" : "\\p{N}+", file, where, err);
    if (strcmp(type, "Metaspace") == 0 && !nested) {
        const char *r = json_str(p, "replacement");
        const char *scheme = json_str(p, "prepend_scheme");
        t->metaspace = 1;
        if (r && !*r) return av_errorf(err, "%s: %s: the replacement is empty", file, where);
        if (!(t->ms_repl = dup_bytes(r ? r : METASPACE, strlen(r ? r : METASPACE))))
            return av_error_nomem(err, "%s: out of memory", file);
        if (scheme) {
            if (strcmp(scheme, "never") && strcmp(scheme, "first") && strcmp(scheme, "always"))
                return av_errorf(err, "%s: %s: unknown prepend_scheme", file, where);
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
                     "%s: %s: pre-tokenizer %s is not supported (ByteLevel, Split, Digits, Metaspace and a Sequence "
                     "of the first three are)",
                     file, where, name);
}

/* TemplateProcessing's "single": the special tokens around $A. */
static int parse_template(HfTok *t, const cJSON *p, const char *file, const char *where, AvError *err) {
    const cJSON *single = cJSON_GetObjectItemCaseSensitive(p, "single");
    const cJSON *specials = cJSON_GetObjectItemCaseSensitive(p, "special_tokens");
    if (!cJSON_IsArray(single)) return av_errorf(err, "%s: %s.single is not an array", file, where);
    int after = 0, i = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, single) {
        const cJSON *seq = cJSON_GetObjectItemCaseSensitive(item, "Sequence");
        const cJSON *sp = cJSON_GetObjectItemCaseSensitive(item, "SpecialToken");
        if (seq) {
            after = 1;
        } else if (sp) {
            const char *name = json_str(sp, "id");
            const cJSON *ids =
                cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(specials, name ? name : ""), "ids");
            if (!name || !cJSON_IsArray(ids))
                return av_errorf(err, "%s: %s.single[%d]: a special token not in special_tokens", file, where, i);
            const cJSON *idv;
            cJSON_ArrayForEach(idv, ids) {
                long id = json_int(idv, t->n - 1);
                int *n = after ? &t->n_post : &t->n_pre;
                if (id < 0 || *n == HFTOK_MAX_TEMPLATE)
                    return av_errorf(err, "%s: %s.single[%d]: a special id not in the vocabulary (or too many)", file,
                                     where, i);
                (after ? t->post : t->pre)[(*n)++] = (int)id;
            }
        } else {
            return av_errorf(err, "%s: %s.single[%d] is neither a Sequence nor a SpecialToken", file, where, i);
        }
        i++;
    }
    return 0;
}

static int parse_post(HfTok *t, const cJSON *p, const char *file, const char *where, int nested, AvError *err) {
    if (!p || cJSON_IsNull(p)) return 0;
    const char *type = json_str(p, "type");
    if (!type) return av_errorf(err, "%s: %s has no type", file, where);
    if (strcmp(type, "ByteLevel") == 0) return 0; /* offsets only */
    if (strcmp(type, "TemplateProcessing") == 0) return parse_template(t, p, file, where, err);
    if (strcmp(type, "Sequence") == 0 && !nested) {
        const cJSON *list = cJSON_GetObjectItemCaseSensitive(p, "processors");
        if (!cJSON_IsArray(list)) return av_errorf(err, "%s: %s.processors is not an array", file, where);
        int i = 0;
        const cJSON *s;
        cJSON_ArrayForEach(s, list) {
            char w[64];
            snprintf(w, sizeof w, "%s.processors[%d]", where, i++);
            if (parse_post(t, s, file, w, 1, err)) return -1;
        }
        return 0;
    }
    char name[64];
    utf8_escape_into(name, sizeof name, type);
    return av_errorf(err, "%s: %s: post-processor %s is not supported (ByteLevel, TemplateProcessing are)", file, where,
                     name);
}

static HfTok *parse_json_tok(const cJSON *root, const char *file, AvError *err) {
    const cJSON *model = cJSON_GetObjectItemCaseSensitive(root, "model");
    if (!cJSON_IsObject(model)) return av_errorf(err, "%s: model is %s, not an object", file, json_type(model)), NULL;
    const char *type = json_str(model, "type");
    if (type && strcmp(type, "BPE") != 0) {
        char name[64];
        utf8_escape_into(name, sizeof name, type);
        return av_errorf(err, "%s: model.type %s is not supported (BPE is)", file, name), NULL;
    }
    const cJSON *vocab = cJSON_GetObjectItemCaseSensitive(model, "vocab");
    const cJSON *merges = cJSON_GetObjectItemCaseSensitive(model, "merges");
    if (!cJSON_IsObject(vocab))
        return av_errorf(err, "%s: model.vocab is %s, not an object", file, json_type(vocab)), NULL;
    if (merges && !cJSON_IsArray(merges) && !cJSON_IsNull(merges))
        return av_errorf(err, "%s: model.merges is %s, not an array", file, json_type(merges)), NULL;
    const char *cont[] = {"continuing_subword_prefix", "end_of_word_suffix"};
    for (int i = 0; i < 2; i++) {
        const char *s = json_str(model, cont[i]);
        if (s && *s) return av_errorf(err, "%s: model.%s is not supported", file, cont[i]), NULL;
    }
    const cJSON *added = cJSON_GetObjectItemCaseSensitive(root, "added_tokens");
    if (added && !cJSON_IsArray(added) && !cJSON_IsNull(added))
        return av_errorf(err, "%s: added_tokens is %s, not an array", file, json_type(added)), NULL;

    /* Ids are dense in real files: a bound on the largest keeps a hostile
     * one from asking for gigabytes. */
    int count = cJSON_GetArraySize(vocab) + (added ? cJSON_GetArraySize(added) : 0);
    long max_id = 2L * count + 1024, top = -1;
    const cJSON *e;
    int i = 0;
    cJSON_ArrayForEach(e, vocab) {
        long id = json_int(e, max_id);
        if (id < 0) {
            char *k = utf8_escape(e->string, strlen(e->string));
            av_errorf(err, "%s: model.vocab[\"%s\"] is not an id (an integer from 0 to %ld)", file, k ? k : "", max_id);
            free(k);
            return NULL;
        }
        if (id > top) top = id;
        i++;
    }
    i = 0;
    cJSON_ArrayForEach(e, added) {
        long id = json_int(cJSON_GetObjectItemCaseSensitive(e, "id"), max_id);
        const char *c = json_str(e, "content");
        if (id < 0 || !c || !*c)
            return av_errorf(err, "%s: added_tokens[%d] has no id (0 to %ld) or no content", file, i, max_id), NULL;
        if (id > top) top = id;
        i++;
    }
    if (top < 0) return av_errorf(err, "%s: model.vocab is empty", file), NULL;

    HfTok *t = calloc(1, sizeof *t);
    if (!t) return av_error_nomem(err, "%s: out of memory", file), NULL;
    t->unk = -1;
    byte_table(t->byte_cp, t->cp_byte);
    if (alloc_ids(t, (int)top + 1, file, err)) goto fail;
    cJSON_ArrayForEach(e, vocab) {
        if (set_token(t, (int)e->valuedouble, e->string, strlen(e->string), file, err)) goto fail;
    }
    int n_added = added ? cJSON_GetArraySize(added) : 0;
    if (n_added) {
        t->added = calloc((size_t)n_added, sizeof *t->added);
        if (!t->added) {
            av_error_nomem(err, "%s: out of memory", file);
            goto fail;
        }
    }
    cJSON_ArrayForEach(e, added) {
        int id = (int)cJSON_GetObjectItemCaseSensitive(e, "id")->valuedouble;
        const char *c = json_str(e, "content");
        size_t len = strlen(c);
        if (set_token(t, id, c, len, file, err)) goto fail;
        t->special[id] = json_flag(e, "special") ? 3 : 2; /* 2 and 3: added; 3: special */
        Added *a = &t->added[t->n_added];
        if (!(a->text = dup_bytes(c, len))) {
            av_error_nomem(err, "%s: out of memory", file);
            goto fail;
        }
        a->id = id, a->len = len;
        t->n_added++;
    }
    if (t->n_added) qsort(t->added, (size_t)t->n_added, sizeof *t->added, sort_added);
    for (int k = 0; k < t->n_added; k++) t->added_first[(unsigned char)t->added[k].text[0]] = 1;

    if (parse_normalizer(t, cJSON_GetObjectItemCaseSensitive(root, "normalizer"), file, "normalizer", err)) goto fail;
    if (parse_pre_tokenizer(t, cJSON_GetObjectItemCaseSensitive(root, "pre_tokenizer"), file, "pre_tokenizer", 0, err))
        goto fail;
    if (t->metaspace && t->byte_level) {
        av_errorf(err, "%s: pre_tokenizer: Metaspace with ByteLevel is not supported", file);
        goto fail;
    }
    if (parse_post(t, cJSON_GetObjectItemCaseSensitive(root, "post_processor"), file, "post_processor", 0, err))
        goto fail;
    /* A SentencePiece-style vocabulary without a Metaspace pre-tokenizer
     * (Llama 2: Prepend and Replace normalizers) still spells spaces "▁". */
    if (!t->byte_level && !t->ms_repl && !(t->ms_repl = dup_bytes(METASPACE, 3))) {
        av_error_nomem(err, "%s: out of memory", file);
        goto fail;
    }
    t->byte_fallback = json_flag(model, "byte_fallback");
    t->fuse_unk = json_flag(model, "fuse_unk");
    t->ignore_merges = json_flag(model, "ignore_merges");
    if (make_raw(t, file, err) || build_map(t, file, err)) goto fail;
    const char *unk = json_str(model, "unk_token");
    if (unk) {
        t->unk = hftok_lookup(t, unk, strlen(unk));
        if (t->unk < 0) {
            char u[64];
            utf8_escape_into(u, sizeof u, unk);
            av_errorf(err, "%s: model.unk_token \"%s\" is not in the vocabulary", file, u);
            goto fail;
        }
    }
    find_symbols(t);

    int n_merges = cJSON_IsArray(merges) ? cJSON_GetArraySize(merges) : 0;
    if (alloc_pairs(t, (size_t)n_merges, file, err)) goto fail;
    i = 0;
    const cJSON *merge_list = cJSON_IsArray(merges) ? merges : NULL;
    cJSON_ArrayForEach(e, merge_list) {
        char where[48];
        snprintf(where, sizeof where, "model.merges[%d]", i);
        const char *l = NULL, *r = NULL;
        size_t ln = 0, rn = 0;
        if (cJSON_IsString(e)) { /* "left right" */
            const char *sp = strchr(e->valuestring, ' ');
            if (sp && sp != e->valuestring && sp[1] && !strchr(sp + 1, ' '))
                l = e->valuestring, ln = (size_t)(sp - l), r = sp + 1, rn = strlen(r);
        } else if (cJSON_IsArray(e) && cJSON_GetArraySize(e) == 2 && cJSON_IsString(cJSON_GetArrayItem(e, 0)) &&
                   cJSON_IsString(cJSON_GetArrayItem(e, 1))) { /* ["left", "right"] */
            l = cJSON_GetArrayItem(e, 0)->valuestring, ln = strlen(l);
            r = cJSON_GetArrayItem(e, 1)->valuestring, rn = strlen(r);
        }
        if (!l) {
            av_errorf(err, "%s: %s is not \"left right\" or [\"left\", \"right\"]", file, where);
            goto fail;
        }
        if (add_merge(t, l, ln, r, rn, i, file, where, err)) goto fail;
        i++;
    }
    return t;
fail:
    hftok_free(t);
    return NULL;
}

static cJSON *parse_json(const char *json, size_t len, const char *file, const char *what, AvError *err) {
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(json, len, &end, 0);
    if (!root) {
        size_t at = end && end >= json && end <= json + len ? (size_t)(end - json) : 0;
        size_t line = 1;
        for (size_t k = 0; k < at; k++) line += json[k] == '\n';
        av_errorf(err, "%s: not valid JSON (line %zu, byte %zu of %zu)", file, line, at, len);
        return NULL;
    }
    if (!cJSON_IsObject(root)) {
        av_errorf(err, "%s: %s is %s, not a JSON object", file, what, json_type(root));
        cJSON_Delete(root);
        return NULL;
    }
    if (json_unique_keys(root, file, err)) { /* cJSON would keep the first of two values */
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

HfTok *hftok_parse(const char *json, size_t len, const char *name, AvError *err) {
    char file[HFTOK_NAME];
    utf8_escape_into(file, sizeof file, name ? name : "tokenizer.json");
    cJSON *root = parse_json(json, len, file, "the file", err);
    if (!root) return NULL;
    HfTok *t = parse_json_tok(root, file, err);
    cJSON_Delete(root);
    return t;
}

HfTok *hftok_open(const char *path, AvError *err) {
    char *buf;
    size_t len;
    if (av_read_file(path, HFTOK_MAX_BYTES, &buf, &len, err)) return NULL;
    HfTok *t = hftok_parse(buf, len, path, err);
    free(buf);
    return t;
}

// ----------------------------------------------------------------------------
// GPT-2's vocab.json + merges.txt

HfTok *hftok_parse_gpt2(const char *vocab, size_t vocab_len, const char *vocab_name, const char *merges,
                        size_t merges_len, const char *merges_name, AvError *err) {
    char vfile[HFTOK_NAME], mfile[HFTOK_NAME];
    utf8_escape_into(vfile, sizeof vfile, vocab_name ? vocab_name : "vocab.json");
    utf8_escape_into(mfile, sizeof mfile, merges_name ? merges_name : "merges.txt");
    cJSON *root = parse_json(vocab, vocab_len, vfile, "the vocabulary", err);
    if (!root) return NULL;
    HfTok *t = NULL;
    int count = cJSON_GetArraySize(root);
    long max_id = 2L * count + 1024, top = -1;
    const cJSON *e;
    cJSON_ArrayForEach(e, root) {
        long id = json_int(e, max_id);
        if (id < 0) {
            char *k = utf8_escape(e->string, strlen(e->string));
            av_errorf(err, "%s: \"%s\" is not an id (an integer from 0 to %ld)", vfile, k ? k : "", max_id);
            free(k);
            goto fail;
        }
        if (id > top) top = id;
    }
    if (top < 0) {
        av_errorf(err, "%s: the vocabulary is empty", vfile);
        goto fail;
    }
    if (!(t = calloc(1, sizeof *t))) {
        av_error_nomem(err, "%s: out of memory", vfile);
        goto fail;
    }
    t->unk = -1;
    t->byte_level = 1;
    byte_table(t->byte_cp, t->cp_byte);
    if (alloc_ids(t, (int)top + 1, vfile, err)) goto fail;
    cJSON_ArrayForEach(e, root) {
        if (set_token(t, (int)e->valuedouble, e->string, strlen(e->string), vfile, err)) goto fail;
    }
    if (compile_split(t, GPT2_PATTERN, vfile, "pattern", err) || make_raw(t, vfile, err)) goto fail;
    /* <|endoftext|> is special, as GPT2Tokenizer has it. */
    for (int id = 0; id < t->n; id++)
        if (t->form[id] && strcmp(t->form[id], "<|endoftext|>") == 0) {
            t->added = calloc(1, sizeof *t->added);
            if (!t->added || !(t->added[0].text = dup_bytes(t->form[id], t->form_len[id]))) {
                av_error_nomem(err, "%s: out of memory", vfile);
                goto fail;
            }
            t->added[0].id = id, t->added[0].len = t->form_len[id];
            t->n_added = 1;
            t->special[id] = 3;
            t->added_first[(unsigned char)t->added[0].text[0]] = 1;
            break;
        }
    if (build_map(t, vfile, err)) goto fail;
    find_symbols(t);
    size_t lines = 1;
    for (size_t k = 0; k < merges_len; k++) lines += merges[k] == '\n';
    if (alloc_pairs(t, lines, mfile, err)) goto fail;
    int rank = 0;
    size_t line = 0;
    for (size_t at = 0; at < merges_len;) {
        const char *s = merges + at, *nl = memchr(s, '\n', merges_len - at);
        size_t n = nl ? (size_t)(nl - s) : merges_len - at;
        at += n + (nl != NULL);
        line++;
        if (n && s[n - 1] == '\r') n--;
        if (n == 0 || (line == 1 && n >= 8 && memcmp(s, "#version", 8) == 0)) continue;
        const char *sp = memchr(s, ' ', n);
        char where[32];
        snprintf(where, sizeof where, "line %zu", line);
        if (!sp || sp == s || sp + 1 == s + n || memchr(sp + 1, ' ', (size_t)(s + n - sp - 1))) {
            av_errorf(err, "%s: %s is not \"left right\"", mfile, where);
            goto fail;
        }
        if (add_merge(t, s, (size_t)(sp - s), sp + 1, (size_t)(s + n - sp - 1), rank++, mfile, where, err)) goto fail;
    }
    cJSON_Delete(root);
    return t;
fail:
    cJSON_Delete(root);
    hftok_free(t);
    return NULL;
}

HfTok *hftok_open_gpt2(const char *vocab_json, const char *merges_txt, AvError *err) {
    char *v = NULL, *m = NULL;
    size_t vn, mn;
    HfTok *t = NULL;
    if (av_read_file(vocab_json, HFTOK_MAX_BYTES, &v, &vn, err) == 0 &&
        av_read_file(merges_txt, HFTOK_MAX_BYTES, &m, &mn, err) == 0)
        t = hftok_parse_gpt2(v, vn, vocab_json, m, mn, merges_txt, err);
    free(v);
    free(m);
    return t;
}

// ----------------------------------------------------------------------------
// pieces and their display

const char *hftok_piece(const HfTok *t, int id, size_t *len) {
    if (!t || id < 0 || id >= t->n || !t->form[id]) {
        if (len) *len = 0;
        return "";
    }
    if (t->raw[id]) {
        if (len) *len = t->raw_len[id];
        return t->raw[id];
    }
    if (len) *len = t->form_len[id];
    return t->form[id];
}

int hftok_is_special(const HfTok *t, int id) { return t && id >= 0 && id < t->n && t->special[id] == 3; }

size_t hftok_display(const HfTok *t, int id, char *buf, size_t cap) {
    size_t n, out = 0;
    const char *s = hftok_piece(t, id, &n);
    for (size_t at = 0; at < n;) {
        uint32_t cp;
        int k = utf8_decode(s + at, n - at, &cp);
        char tmp[8];
        const char *add = s + at;
        size_t m = (size_t)k;
        if (cp == ' ') add = METASPACE, m = 3;
        else if (cp == '\n') add = "\\n", m = 2;
        else if (cp == '\t') add = "\\t", m = 2;
        else if (cp == '\r') add = "\\r", m = 2;
        else if (cp == UTF8_INVALID || cp < 0x20 || cp == 0x7F) {
            snprintf(tmp, sizeof tmp, "<0x%02X>", (unsigned char)s[at]);
            add = tmp, m = 6;
        }
        for (size_t j = 0; j < m; j++, out++)
            if (cap && out < cap - 1) buf[out] = add[j];
        at += (size_t)k;
    }
    if (cap) buf[out < cap - 1 ? out : cap - 1] = '\0';
    return out;
}

// ----------------------------------------------------------------------------
// encoding

typedef struct {
    int *v;
    size_t n, cap;
} IdVec;

static int push_id(IdVec *o, int id) {
    if (o->n == o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 64;
        int *v = realloc(o->v, cap * sizeof *v);
        if (!v) return -1;
        o->v = v, o->cap = cap;
    }
    o->v[o->n++] = id;
    return 0;
}

typedef struct {
    int rank, pos, right;
} Cand;

static int cand_less(const Cand *a, const Cand *b) {
    return a->rank < b->rank || (a->rank == b->rank && a->pos < b->pos);
}

static void heap_push(Cand *h, int *n, Cand c) {
    int i = (*n)++;
    while (i > 0 && cand_less(&c, &h[(i - 1) / 2])) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = c;
}

static Cand heap_pop(Cand *h, int *n) {
    Cand top = h[0], last = h[--*n];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= *n) break;
        if (c + 1 < *n && cand_less(&h[c + 1], &h[c])) c++;
        if (!cand_less(&h[c], &last)) break;
        h[i] = h[c];
        i = c;
    }
    if (*n > 0) h[i] = last;
    return top;
}

/* Work space of one encode call, grown as pieces need. */
typedef struct {
    int *sym, *next, *prev;
    Cand *heap;
    size_t cap;
    char *buf; /* a byte-level spelling of a piece (ignore_merges) */
    size_t buf_cap;
} Work;

static int work_reserve(Work *w, size_t n) {
    if (n <= w->cap) return 0;
    size_t cap = n < 64 ? 64 : n;
    int *a = realloc(w->sym, cap * sizeof *a);
    if (a) w->sym = a;
    int *b = realloc(w->next, cap * sizeof *b);
    if (b) w->next = b;
    int *c = realloc(w->prev, cap * sizeof *c);
    if (c) w->prev = c;
    Cand *h = realloc(w->heap, 3 * cap * sizeof *h);
    if (h) w->heap = h;
    if (!a || !b || !c || !h) return -1;
    w->cap = cap;
    return 0;
}

static void try_pair(const HfTok *t, Work *w, int *nh, int pos) {
    if (pos < 0 || w->next[pos] < 0) return;
    const PairSlot *p = pair_find(t, w->sym[pos], w->sym[w->next[pos]]);
    if (p) heap_push(w->heap, nh, (Cand){p->rank, pos, w->next[pos]});
}

/* One pre-tokenized piece s[0..n) to ids. */
static int bpe_piece(const HfTok *t, const char *s, size_t n, Work *w, IdVec *out, AvError *err) {
    if (t->ignore_merges) {
        const char *form = s;
        size_t flen = n;
        if (t->byte_level) {
            if (w->buf_cap < 2 * n + 1) {
                char *b = realloc(w->buf, 2 * n + 1);
                if (!b) return av_error_nomem(err, "text: out of memory");
                w->buf = b, w->buf_cap = 2 * n + 1;
            }
            flen = 0;
            for (size_t i = 0; i < n; i++) flen += (size_t)utf8_encode(t->byte_cp[(unsigned char)s[i]], w->buf + flen);
            form = w->buf;
        }
        int id = hftok_lookup(t, form, flen);
        if (id >= 0) return push_id(out, id) ? av_error_nomem(err, "text: out of memory") : 0;
    }
    if (work_reserve(w, n)) return av_error_nomem(err, "text: out of memory");
    int m = 0;
    for (size_t at = 0; at < n;) {
        size_t k = 1;
        int id;
        if (t->byte_level) {
            id = t->byte_sym[(unsigned char)s[at]];
        } else {
            uint32_t cp;
            k = (size_t)utf8_decode(s + at, n - at, &cp);
            id = hftok_lookup(t, s + at, k);
            if (id < 0 && t->byte_fallback) {
                int all = 1;
                for (size_t b = 0; b < k; b++) all &= t->byte_id[(unsigned char)s[at + b]] >= 0;
                if (all) {
                    for (size_t b = 0; b < k; b++) w->sym[m++] = t->byte_id[(unsigned char)s[at + b]];
                    at += k;
                    continue;
                }
            }
        }
        if (id < 0) {
            if (t->unk < 0) {
                uint32_t cp;
                utf8_decode(s + at, n - at, &cp);
                if (t->byte_level)
                    return av_errorf(err, "text: the byte 0x%02X has no token and the vocabulary has no unk_token",
                                     (unsigned char)s[at]);
                return av_errorf(err, "text: the character U+%04X has no token and the vocabulary has no unk_token",
                                 (unsigned)cp);
            }
            id = t->unk;
            if (t->fuse_unk && m > 0 && w->sym[m - 1] == t->unk) {
                at += k;
                continue;
            }
        }
        w->sym[m++] = id;
        at += k;
    }
    int nh = 0;
    for (int i = 0; i < m; i++) w->next[i] = i + 1 < m ? i + 1 : -1, w->prev[i] = i - 1;
    for (int i = 0; i + 1 < m; i++) try_pair(t, w, &nh, i);
    while (nh > 0) {
        Cand c = heap_pop(w->heap, &nh);
        if (w->sym[c.pos] < 0 || w->next[c.pos] != c.right || w->sym[c.right] < 0) continue;
        const PairSlot *p = pair_find(t, w->sym[c.pos], w->sym[c.right]);
        if (!p || p->rank != c.rank) continue;
        w->sym[c.pos] = p->id;
        w->sym[c.right] = -1;
        w->next[c.pos] = w->next[c.right];
        if (w->next[c.pos] >= 0) w->prev[w->next[c.pos]] = c.pos;
        try_pair(t, w, &nh, w->prev[c.pos]);
        try_pair(t, w, &nh, c.pos);
    }
    for (int i = 0; i >= 0 && m > 0; i = w->next[i])
        if (push_id(out, w->sym[i])) return av_error_nomem(err, "text: out of memory");
    return 0;
}

/* NFC leaves a text alone when every character in it has
 * NFC_Quick_Check=Yes and canonical combining class 0 (UAX #15's quick
 * check). These ranges hold only such characters (none of
 * CompositionExclusions, no singleton or non-starter decomposition, no
 * combining mark): ASCII to Latin Extended-B and the IPA and spacing
 * modifier letters, Greek but for U+0374, U+037E, U+0387, Cyrillic but for
 * its combining marks, Vietnamese's Latin Extended Additional, general
 * punctuation but for U+2000 and U+2001, currency, arrows, mathematical and
 * technical symbols but for U+2329 and U+232A, box drawing, shapes,
 * dingbats, CJK punctuation but for its combining tone marks, kana, Hangul
 * compatibility jamo (ㅋ), CJK
 * ideographs (not the compatibility ones), Hangul syllables, fullwidth
 * ASCII, emoji. A letter before a combining mark may compose with it, but
 * the mark itself is outside these ranges, so such a text is refused. */
static int nfc_stable(uint32_t cp) {
    static const uint32_t ranges[][2] = {
        {0x0000, 0x02FF}, {0x0370, 0x0373}, {0x0375, 0x037D}, {0x037F, 0x0386},   {0x0388, 0x03FF}, {0x0400, 0x0482},
        {0x048A, 0x052F}, {0x1E00, 0x1EFF}, {0x2002, 0x205E}, {0x20A0, 0x20BF},   {0x2190, 0x2328}, {0x232B, 0x27BF},
        {0x3000, 0x3029}, {0x3030, 0x303F}, {0x3041, 0x3096}, {0x30A1, 0x30FA},   {0x3131, 0x318E}, {0x3400, 0x4DBF},
        {0x4E00, 0x9FFF}, {0xAC00, 0xD7A3}, {0xFF01, 0xFF5E}, {0x1F300, 0x1FAFF},
    };
    for (size_t i = 0; i < sizeof ranges / sizeof *ranges; i++)
        if (cp >= ranges[i][0] && cp <= ranges[i][1]) return 1;
    return 0;
}

/* Replaces every `from` in *s with `to` (both non-empty or to empty). */
static int replace_all(char **s, size_t *n, const char *from, const char *to) {
    size_t fl = strlen(from), tl = strlen(to), count = 0;
    for (size_t at = 0; fl && at + fl <= *n;)
        if (memcmp(*s + at, from, fl) == 0) count++, at += fl;
        else at++;
    if (!count) return 0;
    char *d = malloc(*n - count * fl + count * tl + 1);
    if (!d) return -1;
    size_t k = 0;
    for (size_t at = 0; at < *n;)
        if (at + fl <= *n && memcmp(*s + at, from, fl) == 0) memcpy(d + k, to, tl), k += tl, at += fl;
        else d[k++] = (*s)[at++];
    d[k] = '\0';
    free(*s);
    *s = d, *n = k;
    return 0;
}

static int prepend(char **s, size_t *n, const char *p) {
    size_t pl = strlen(p);
    char *d = malloc(*n + pl + 1);
    if (!d) return -1;
    memcpy(d, p, pl);
    memcpy(d + pl, *s, *n);
    d[*n + pl] = '\0';
    free(*s);
    *s = d, *n += pl;
    return 0;
}

typedef struct {
    size_t at, len;
} Span;

/* Splits every span by re, the matches and the gaps between them each a
 * span (Isolated). */
static int split_spans(const pcre2_code *re, const char *s, Span **spans, size_t *nspan, AvError *err) {
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    pcre2_match_context *ctx = pcre2_match_context_create(NULL);
    Span *out = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    if (!md || !ctx) {
        pcre2_match_data_free(md);
        pcre2_match_context_free(ctx);
        return av_error_nomem(err, "text: out of memory");
    }
    /* a hostile pattern's backtracking is bounded as --pattern's is */
    pcre2_set_match_limit(ctx, TOK_MATCH_LIMIT);
    pcre2_set_depth_limit(ctx, TOK_DEPTH_LIMIT);
    pcre2_set_heap_limit(ctx, TOK_HEAP_LIMIT_KIB);
    for (size_t i = 0; i < *nspan && rc == 0; i++) {
        size_t end = (*spans)[i].at + (*spans)[i].len, at = (*spans)[i].at, last = at;
        while (at <= end && rc == 0) {
            int m = pcre2_match(re, (PCRE2_SPTR)s, end, at, PCRE2_NO_UTF_CHECK, md, ctx);
            if (m == PCRE2_ERROR_NOMATCH) break;
            if (m < 0) {
                PCRE2_UCHAR reason[128];
                pcre2_get_error_message(m, reason, sizeof reason);
                rc = av_errorf(err, "text: the pre-tokenizer's pattern failed at byte %zu: %s", at,
                               (const char *)reason);
                break;
            }
            PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
            size_t ms = ov[0], me = ov[1];
            if (me < ms || ms < at) { /* \K tricks: treat as no further match */
                break;
            }
            Span add[2] = {{last, ms - last}, {ms, me - ms}};
            for (int k = 0; k < 2; k++) {
                if (!add[k].len) continue;
                if (n == cap) {
                    size_t nc = cap ? cap * 2 : 64;
                    Span *g = realloc(out, nc * sizeof *g);
                    if (!g) {
                        rc = av_error_nomem(err, "text: out of memory");
                        break;
                    }
                    out = g, cap = nc;
                }
                out[n++] = add[k];
            }
            last = me;
            if (me > ms) at = me;
            else { /* an empty match: step over one character */
                if (me >= end) break;
                uint32_t cp;
                at = me + (size_t)utf8_decode(s + me, end - me, &cp);
            }
        }
        if (rc == 0 && last < end) {
            if (n == cap) {
                size_t nc = cap ? cap * 2 : 64;
                Span *g = realloc(out, nc * sizeof *g);
                if (!g) {
                    rc = av_error_nomem(err, "text: out of memory");
                    break;
                }
                out = g, cap = nc;
            }
            out[n++] = (Span){last, end - last};
        }
    }
    pcre2_match_data_free(md);
    pcre2_match_context_free(ctx);
    if (rc) {
        free(out);
        return rc;
    }
    free(*spans);
    *spans = out, *nspan = n;
    return 0;
}

/* The text between added tokens: normalize, pre-tokenize, BPE. */
static int encode_segment(const HfTok *t, const char *text, size_t len, size_t offset, Work *w, IdVec *out,
                          AvError *err) {
    if (!len) return 0;
    size_t n = len;
    char *s = dup_bytes(text, len);
    Span *spans = NULL;
    size_t nspan = 0;
    int rc = 0;
    if (!s) return av_error_nomem(err, "text: out of memory");
    for (int i = 0; i < t->n_norm && rc == 0; i++) {
        const NormStep *st = &t->norm[i];
        if (st->kind == NORM_NFC) {
            for (size_t at = 0; at < n;) {
                uint32_t cp;
                int k = utf8_decode(s + at, n - at, &cp);
                if (!nfc_stable(cp)) {
                    rc = av_errorf(err,
                                   "text: U+%04X at byte %zu may change under the NFC normalization this tokenizer "
                                   "asks for, which attnviz cannot compute",
                                   (unsigned)cp, offset + at);
                    break;
                }
                at += (size_t)k;
            }
        } else if (st->kind == NORM_PREPEND) {
            if (n && prepend(&s, &n, st->a)) rc = av_error_nomem(err, "text: out of memory");
        } else if (replace_all(&s, &n, st->a, st->b)) {
            rc = av_error_nomem(err, "text: out of memory");
        }
    }
    if (rc == 0 && t->metaspace) {
        size_t rl = strlen(t->ms_repl);
        if (replace_all(&s, &n, " ", t->ms_repl)) rc = av_error_nomem(err, "text: out of memory");
        else if ((t->ms_prepend == 2 || (t->ms_prepend == 1 && offset == 0)) &&
                 !(n >= rl && memcmp(s, t->ms_repl, rl) == 0) && prepend(&s, &n, t->ms_repl))
            rc = av_error_nomem(err, "text: out of memory");
    } else if (rc == 0 && t->prefix_space && n && s[0] != ' ' && prepend(&s, &n, " ")) {
        rc = av_error_nomem(err, "text: out of memory");
    }
    if (rc == 0 && !(spans = malloc(sizeof *spans))) rc = av_error_nomem(err, "text: out of memory");
    if (rc == 0) {
        spans[0] = (Span){0, n}, nspan = n ? 1 : 0;
        for (int i = 0; i < t->n_split && rc == 0; i++) rc = split_spans(t->split[i], s, &spans, &nspan, err);
    }
    if (rc == 0 && t->metaspace && t->ms_split) { /* each piece starts at a ▁ (MergedWithNext) */
        size_t rl = strlen(t->ms_repl), start = 0;
        for (size_t at = 1; at + rl <= n && rc == 0; at++)
            if (memcmp(s + at, t->ms_repl, rl) == 0) {
                rc = bpe_piece(t, s + start, at - start, w, out, err);
                start = at;
                at += rl - 1;
            }
        if (rc == 0) rc = bpe_piece(t, s + start, n - start, w, out, err);
    } else {
        for (size_t i = 0; i < nspan && rc == 0; i++) rc = bpe_piece(t, s + spans[i].at, spans[i].len, w, out, err);
    }
    free(spans);
    free(s);
    return rc;
}

int hftok_encode(const HfTok *t, const char *text, size_t len, int **ids, AvError *err) {
    *ids = NULL;
    if (len > HFTOK_MAX_TEXT) /* positions in a piece are ints, with room for a prepended ▁ */
        return av_errorf(err, "text: %zu bytes is more than the %zu a text may have", len, (size_t)HFTOK_MAX_TEXT);
    for (size_t at = 0; at < len;) {
        uint32_t cp;
        int k = utf8_decode(text + at, len - at, &cp);
        if (cp == UTF8_INVALID) {
            char why[96];
            utf8_invalid_reason(text, len, at, why, sizeof why);
            return av_errorf(err, "text: not valid UTF-8 at byte %zu: %s", at, why);
        }
        at += (size_t)k;
    }
    IdVec out = {0};
    Work w = {0};
    int rc = 0;
    for (int i = 0; i < t->n_pre && rc == 0; i++)
        if (push_id(&out, t->pre[i])) rc = av_error_nomem(err, "text: out of memory");
    size_t pos = 0;
    while (pos < len && rc == 0) {
        /* the next added token: the leftmost, the longest there */
        size_t at = pos;
        const Added *hit = NULL;
        for (; at < len && !hit; at++)
            for (int i = 0; t->added_first[(unsigned char)text[at]] && i < t->n_added; i++)
                if (t->added[i].len <= len - at && memcmp(text + at, t->added[i].text, t->added[i].len) == 0) {
                    hit = &t->added[i];
                    break;
                }
        if (hit) at--;
        rc = encode_segment(t, text + pos, at - pos, pos, &w, &out, err);
        if (rc == 0 && hit && push_id(&out, hit->id)) rc = av_error_nomem(err, "text: out of memory");
        pos = hit ? at + hit->len : len;
    }
    for (int i = 0; i < t->n_post && rc == 0; i++)
        if (push_id(&out, t->post[i])) rc = av_error_nomem(err, "text: out of memory");
    free(w.sym), free(w.next), free(w.prev), free(w.heap), free(w.buf);
    if (rc) {
        free(out.v);
        return -1;
    }
    if (out.n > (size_t)0x7FFFFFFF) {
        free(out.v);
        return av_errorf(err, "text: too many tokens");
    }
    *ids = out.v;
    return (int)out.n;
}
