/* hftok.c - Hugging Face BPE tokenizers from tokenizer.json or GPT-2's
 * vocab.json + merges.txt; see hftok.h. This part: the vocabulary and the
 * pieces (hftok_internal.h names the others).
 *
 * The vocabulary keeps two spellings of every token: its form (as the file
 * writes it: "Ġthe", "▁the", "<0x0A>"), looked up through a hash table, and
 * its raw bytes (" the"), which hftok_piece returns. Merges are a second hash
 * table from a pair of ids to (rank, merged id). */
#include "hftok_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "i18n.h"
#include "utf8.h"

const char HFTOK_GPT2_PATTERN[] = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";
const char HFTOK_METASPACE[] = "\xe2\x96\x81"; /* U+2581 LOWER ONE EIGHTH BLOCK */

char *hftok_dup(const char *s, size_t n) {
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
    hftok_free_parts(t);
    for (int i = 0; i < t->n_added; i++) free(t->added[i].text);
    free(t->added);
    added_set_free(t->added_raw);
    added_set_free(t->added_norm);
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

const PairSlot *hftok_pair_find(const HfTok *t, int a, int b) {
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
void hftok_byte_table(uint32_t cp_of[256], short byte_of[324]) {
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

int hftok_set_token(HfTok *t, int id, const char *form, size_t len, const char *file, AvError *err) {
    if (t->form[id]) {
        if (t->form_len[id] == len && memcmp(t->form[id], form, len) == 0) return 0;
        char *a = utf8_escape(t->form[id], t->form_len[id]), *b = utf8_escape(form, len);
        av_errorf(err, _("%s: id %d is both \"%s\" and \"%s\""), file, id, a ? a : "", b ? b : "");
        free(a), free(b);
        return -1;
    }
    t->form[id] = hftok_dup(form, len);
    if (!t->form[id]) return av_error_nomem(err, _("%s: out of memory"), file);
    t->form_len[id] = len;
    return 0;
}

int hftok_make_raw(HfTok *t, const char *file, AvError *err) {
    for (int id = 0; id < t->n; id++) {
        const char *f = t->form[id];
        size_t n = t->form_len[id];
        if (!f || t->special[id] >= 2) continue; /* 2, 3: an added token, raw as written */
        char *r = malloc(n + 1);
        if (!r) return av_error_nomem(err, _("%s: out of memory"), file);
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
            size_t rl = strlen(t->ms_repl ? t->ms_repl : HFTOK_METASPACE);
            const char *rep = t->ms_repl ? t->ms_repl : HFTOK_METASPACE;
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

int hftok_alloc_ids(HfTok *t, int n, const char *file, AvError *err) {
    t->n = n;
    t->form = calloc((size_t)n, sizeof *t->form);
    t->form_len = calloc((size_t)n, sizeof *t->form_len);
    t->raw = calloc((size_t)n, sizeof *t->raw);
    t->raw_len = calloc((size_t)n, sizeof *t->raw_len);
    t->special = calloc((size_t)n, 1);
    if (!t->form || !t->form_len || !t->raw || !t->raw_len || !t->special)
        return av_error_nomem(err, _("%s: out of memory"), file);
    return 0;
}

int hftok_build_map(HfTok *t, const char *file, AvError *err) {
    t->map_cap = next_pow2((size_t)t->n * 2);
    t->map = malloc(t->map_cap * sizeof *t->map);
    if (!t->map) return av_error_nomem(err, _("%s: out of memory"), file);
    for (size_t i = 0; i < t->map_cap; i++) t->map[i] = -1;
    /* Added tokens first: their content is what a lookup of it means. */
    for (int i = 0; i < t->n_added; i++) map_insert(t, t->added[i].id);
    for (int id = 0; id < t->n; id++)
        if (t->form[id]) map_insert(t, id);
    return 0;
}

void hftok_find_symbols(HfTok *t) {
    char hex[8];
    for (int b = 0; b < 256; b++) {
        char c[4];
        int k = utf8_encode(t->byte_cp[b], c);
        t->byte_sym[b] = hftok_lookup(t, c, (size_t)k);
        snprintf(hex, sizeof hex, "<0x%02X>", b);
        t->byte_id[b] = hftok_lookup(t, hex, 6);
    }
}

int hftok_alloc_pairs(HfTok *t, size_t n, const char *file, AvError *err) {
    t->pair_cap = next_pow2(n * 2 + 1);
    t->pairs = calloc(t->pair_cap, sizeof *t->pairs);
    if (!t->pairs) return av_error_nomem(err, _("%s: out of memory"), file);
    return 0;
}

int hftok_add_merge(HfTok *t, const char *l, size_t ln, const char *r, size_t rn, int rank, const char *file,
                    const char *where, AvError *err) {
    int a = hftok_lookup(t, l, ln), b = hftok_lookup(t, r, rn);
    char *cat = malloc(ln + rn + 1);
    if (!cat) return av_error_nomem(err, _("%s: out of memory"), file);
    memcpy(cat, l, ln);
    memcpy(cat + ln, r, rn);
    int id = hftok_lookup(t, cat, ln + rn);
    const char *bad = a < 0 ? l : b < 0 ? r : id < 0 ? cat : NULL;
    size_t bad_len = a < 0 ? ln : b < 0 ? rn : ln + rn;
    if (bad) {
        char *e = utf8_escape(bad, bad_len), *el = utf8_escape(l, ln), *er = utf8_escape(r, rn);
        av_errorf(err,
                  a >= 0 && b >= 0 ? _("%s: %s \"%s %s\": the merged piece %s is not in the vocabulary")
                                   : _("%s: %s \"%s %s\": %s is not in the vocabulary"),
                  file, where, el ? el : "", er ? er : "", e ? e : "");

        free(e), free(el), free(er), free(cat);
        return -1;
    }
    free(cat);
    pair_insert(t, a, b, rank, id);
    return 0;
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
        if (cp == ' ') add = HFTOK_METASPACE, m = 3;
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
