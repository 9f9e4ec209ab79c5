/* hftok_encode.c - a text to ids, as the tokenizers library does it:
 *
 *   1. the added tokens that are not normalized are found in the raw text
 *      (hftok_added.c); each stretch between them goes on by itself:
 *   2. the normalizer's steps (the Unicode forms, lowercasing and marks
 *      through utf8proc: unorm.h);
 *   3. the added tokens that are normalized, found in the normalized
 *      stretch;
 *   4. the pre-tokenizer: Metaspace, or the Isolated splits in order (with
 *      ByteLevel's prefix space where it stands in the sequence);
 *   5. the model (hftok_bpe.c), piece by piece;
 *
 * with the post-processor's template ids around it all. Every stage is
 * linear in the text (the merges n log n in a piece) and polls the cancel
 * flag (cancel.h) between blocks of work. */
#include "hftok_internal.h"

#include <stdlib.h>
#include <string.h>

#include "cancel.h"
#include "i18n.h"
#include "strbuf.h"
#include "tokenize.h"
#include "unorm.h"
#include "utf8.h"

static int cancelled(AvError *err) { return av_errorf(err, _("tokenizing cancelled")); }

// ----------------------------------------------------------------------------
// the normalizer

/* Replaces every `from` in *s with `to` (from non-empty). */
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

static pcre2_match_context *match_context(void) {
    pcre2_match_context *ctx = pcre2_match_context_create(NULL);
    if (ctx) { /* a hostile pattern's backtracking is bounded as --pattern's is */
        pcre2_set_match_limit(ctx, TOK_MATCH_LIMIT);
        pcre2_set_depth_limit(ctx, TOK_DEPTH_LIMIT);
        pcre2_set_heap_limit(ctx, TOK_HEAP_LIMIT_KIB);
    }
    return ctx;
}

static int pattern_failed(int m, size_t at, AvError *err) {
    PCRE2_UCHAR reason[128];
    pcre2_get_error_message(m, reason, sizeof reason);
    return av_errorf(err, _("text: the tokenizer's pattern failed at byte %zu: %s"), at, (const char *)reason);
}

/* Every match of re in *s by `to`, an empty one too (before the character
 * it stands at, as Python's re.sub and Oniguruma's iteration have it). */
static int replace_re(const pcre2_code *re, char **s, size_t *n, const char *to, AvError *err) {
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    pcre2_match_context *ctx = match_context();
    StrBuf b = {0};
    int rc = 0;
    size_t at = 0, last = 0, tl = strlen(to), count = 0;
    if (!md || !ctx) rc = av_error_nomem(err, _("text: out of memory"));
    while (rc == 0 && at <= *n) {
        if ((++count & 1023) == 0 && av_cancelled()) {
            rc = cancelled(err);
            break;
        }
        int m = pcre2_match(re, (PCRE2_SPTR)*s, *n, at, PCRE2_NO_UTF_CHECK, md, ctx);
        if (m == PCRE2_ERROR_NOMATCH) break;
        if (m < 0) {
            rc = pattern_failed(m, at, err);
            break;
        }
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
        size_t ms = ov[0], me = ov[1];
        if (me < ms || ms < at) break; /* \K tricks: no further match */
        strbuf_add(&b, *s + last, ms - last);
        strbuf_add(&b, to, tl);
        if (me > ms) {
            at = last = me;
        } else if (ms >= *n) {
            last = *n;
            break;
        } else {
            uint32_t cp;
            size_t k = (size_t)utf8_decode(*s + ms, *n - ms, &cp);
            strbuf_add(&b, *s + ms, k);
            at = last = ms + k;
        }
    }
    if (rc == 0) strbuf_add(&b, *s + last, *n - last);
    if (rc == 0 && !b.p && !b.oom && !(b.p = calloc(1, 1))) b.oom = 1; /* all of it replaced by nothing */
    if (rc == 0 && (b.oom || !b.p)) rc = av_error_nomem(err, _("text: out of memory"));
    pcre2_match_data_free(md);
    pcre2_match_context_free(ctx);
    if (rc) {
        free(b.p);
        return rc;
    }
    free(*s);
    *s = b.p, *n = b.n;
    return 0;
}

/* White space off the left and/or the right. */
static void strip(char *s, size_t *n, int left, int right) {
    size_t a = 0, e = *n;
    while (left && a < e) {
        uint32_t cp;
        int k = utf8_decode(s + a, e - a, &cp);
        if (!unorm_is_space(cp)) break;
        a += (size_t)k;
    }
    while (right && e > a) {
        size_t k = e - 1;
        while (k > a && ((unsigned char)s[k] & 0xC0) == 0x80) k--;
        uint32_t cp;
        utf8_decode(s + k, e - k, &cp);
        if (!unorm_is_space(cp)) break;
        e = k;
    }
    memmove(s, s + a, e - a);
    s[e - a] = '\0';
    *n = e - a;
}

int hftok_normalize(const HfTok *t, const char *s, size_t n, char **out, size_t *out_n, size_t *chars, AvError *err) {
    static const UnormForm forms[] = {
        [NORM_NFC] = UNORM_NFC, [NORM_NFD] = UNORM_NFD, [NORM_NFKC] = UNORM_NFKC, [NORM_NFKD] = UNORM_NFKD};
    *out = NULL;
    char *cur = hftok_dup(s, n);
    size_t len = n;
    int rc = cur ? 0 : av_error_nomem(err, _("text: out of memory"));
    for (int i = 0; i < t->n_norm && rc == 0; i++) {
        const NormStep *st = &t->norm[i];
        char *next = NULL;
        size_t next_n = 0;
        int u = 0;
        if (chars) *chars += len;
        switch (st->kind) {
        case NORM_NFC:
        case NORM_NFD:
        case NORM_NFKC:
        case NORM_NFKD: u = unorm_normalize(forms[st->kind], cur, len, &next, &next_n); break;
        case NORM_LOWERCASE: u = unorm_lowercase(cur, len, &next, &next_n); break;
        case NORM_STRIP_ACCENTS: u = unorm_strip_marks(cur, len, &next, &next_n); break;
        case NORM_STRIP: strip(cur, &len, st->left, st->right); break;
        case NORM_PREPEND:
            if (len && prepend(&cur, &len, st->a)) rc = av_error_nomem(err, _("text: out of memory"));
            break;
        case NORM_REPLACE:
            if (st->re) rc = replace_re(st->re, &cur, &len, st->b, err);
            else if (replace_all(&cur, &len, st->a, st->b)) rc = av_error_nomem(err, _("text: out of memory"));
            break;
        }
        if (u == UNORM_CANCELLED) rc = cancelled(err);
        else if (u) rc = av_error_nomem(err, _("text: out of memory"));
        else if (next) free(cur), cur = next, len = next_n;
    }
    if (rc) {
        free(cur);
        return -1;
    }
    *out = cur, *out_n = len;
    return 0;
}

// ----------------------------------------------------------------------------
// the pre-tokenizer

typedef struct {
    size_t at, len;
} Span;

typedef struct {
    Span *v;
    size_t n, cap;
} Spans;

static int span_add(Spans *s, size_t at, size_t len) {
    if (!len) return 0;
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        Span *v = realloc(s->v, cap * sizeof *v);
        if (!v) return -1;
        s->v = v, s->cap = cap;
    }
    s->v[s->n++] = (Span){at, len};
    return 0;
}

/* Splits every span by re, the matches and the gaps between them each a
 * span (Isolated). *matches counts them. */
static int split_spans(const pcre2_code *re, const char *s, Spans *spans, size_t *matches, AvError *err) {
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    pcre2_match_context *ctx = match_context();
    Spans out = {0};
    int rc = !md || !ctx ? av_error_nomem(err, _("text: out of memory")) : 0;
    for (size_t i = 0; i < spans->n && rc == 0; i++) {
        size_t end = spans->v[i].at + spans->v[i].len, at = spans->v[i].at, last = at;
        while (at <= end && rc == 0) {
            if ((++*matches & 1023) == 0 && av_cancelled()) {
                rc = cancelled(err);
                break;
            }
            int m = pcre2_match(re, (PCRE2_SPTR)s, end, at, PCRE2_NO_UTF_CHECK, md, ctx);
            if (m == PCRE2_ERROR_NOMATCH) break;
            if (m < 0) {
                rc = pattern_failed(m, at, err);
                break;
            }
            PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
            size_t ms = ov[0], me = ov[1];
            if (me < ms || ms < at) break; /* \K tricks: treat as no further match */
            if (span_add(&out, last, ms - last) || span_add(&out, ms, me - ms)) {
                rc = av_error_nomem(err, _("text: out of memory"));
                break;
            }
            last = me;
            if (me > ms) {
                at = me;
            } else { /* an empty match: step over one character */
                if (me >= end) break;
                uint32_t cp;
                at = me + (size_t)utf8_decode(s + me, end - me, &cp);
            }
        }
        if (rc == 0 && span_add(&out, last, end - last)) rc = av_error_nomem(err, _("text: out of memory"));
    }
    pcre2_match_data_free(md);
    pcre2_match_context_free(ctx);
    if (rc) {
        free(out.v);
        return rc;
    }
    free(spans->v);
    *spans = out;
    return 0;
}

/* ByteLevel's add_prefix_space: a space before every span that does not
 * start with one (the spans cover *s in order; *s is written again). */
static int prefix_spaces(char **s, size_t *n, Spans *spans) {
    size_t need = 0;
    for (size_t i = 0; i < spans->n; i++) need += (*s)[spans->v[i].at] != ' ';
    if (!need) return 0;
    char *d = malloc(*n + need + 1);
    if (!d) return -1;
    size_t k = 0;
    for (size_t i = 0; i < spans->n; i++) {
        Span *sp = &spans->v[i];
        size_t at = k;
        if ((*s)[sp->at] != ' ') d[k++] = ' ';
        memcpy(d + k, *s + sp->at, sp->len);
        k += sp->len;
        sp->len = k - at, sp->at = at;
    }
    d[k] = '\0';
    free(*s);
    *s = d, *n = k;
    return 0;
}

typedef struct {
    const HfTok *t;
    const char *s; /* the text the spans of a split point into */
    int first;     /* the stretch began the text (Metaspace's prepend_scheme "first") */
    IdVec out;
    BpeWork *w;
    HfTokWork *work;
    AvError *err;
} Enc;

/* One piece through the model. */
static int piece(Enc *e, const char *s, size_t n) {
    if ((++e->work->pieces & 1023) == 0 && av_cancelled()) return cancelled(e->err);
    return bpe_piece(e->t, s, n, e->w, &e->out, &e->work->merges, e->err);
}

/* A normalized stretch text[0..len): pre-tokenized, each piece to ids. */
static int pre_tokenize(Enc *e, const char *text, size_t len, int first) {
    const HfTok *t = e->t;
    if (!len) return 0;
    size_t n = len;
    char *s = hftok_dup(text, len);
    Spans spans = {0};
    int rc = s ? 0 : av_error_nomem(e->err, _("text: out of memory"));
    if (rc == 0 && t->metaspace) {
        size_t rl = strlen(t->ms_repl);
        if (replace_all(&s, &n, " ", t->ms_repl)) rc = av_error_nomem(e->err, _("text: out of memory"));
        else if ((t->ms_prepend == 2 || (t->ms_prepend == 1 && first)) &&
                 !(n >= rl && memcmp(s, t->ms_repl, rl) == 0) && prepend(&s, &n, t->ms_repl))
            rc = av_error_nomem(e->err, _("text: out of memory"));
    }
    if (rc == 0 && span_add(&spans, 0, n)) rc = av_error_nomem(e->err, _("text: out of memory"));
    for (int i = 0; i <= t->n_split && rc == 0; i++) {
        if (i == t->prefix_after && t->prefix_space && prefix_spaces(&s, &n, &spans))
            rc = av_error_nomem(e->err, _("text: out of memory"));
        if (rc == 0 && i < t->n_split) rc = split_spans(t->split[i], s, &spans, &e->work->split_matches, e->err);
    }
    if (rc == 0 && t->metaspace && t->ms_split) { /* each piece starts at a ▁ (MergedWithNext) */
        size_t rl = strlen(t->ms_repl), start = 0;
        for (size_t at = 1; at + rl <= n && rc == 0; at++)
            if (memcmp(s + at, t->ms_repl, rl) == 0) {
                rc = piece(e, s + start, at - start);
                start = at;
                at += rl - 1;
            }
        if (rc == 0) rc = piece(e, s + start, n - start);
    } else {
        for (size_t i = 0; i < spans.n && rc == 0; i++) rc = piece(e, s + spans.v[i].at, spans.v[i].len);
    }
    free(spans.v);
    free(s);
    return rc;
}

// ----------------------------------------------------------------------------
// the added tokens around it

static int push_token(void *ctx, int id) {
    Enc *e = ctx;
    return hftok_push_id(&e->out, id) ? av_error_nomem(e->err, _("text: out of memory")) : 0;
}

/* Between normalized added tokens: the rest of the pipeline. */
static int gap_normalized(void *ctx, size_t at, size_t len) {
    Enc *e = ctx;
    return pre_tokenize(e, e->s + at, len, e->first && at == 0);
}

/* Between raw added tokens: normalized, then split at the normalized ones. */
static int gap_raw(void *ctx, size_t at, size_t len) {
    Enc *e = ctx;
    const HfTok *t = e->t;
    char *norm;
    size_t n;
    if (hftok_normalize(t, e->s + at, len, &norm, &n, &e->work->normalized, e->err)) return -1;
    Enc sub = *e;
    sub.s = norm;
    sub.first = at == 0;
    AddedSink sink = {gap_normalized, push_token, &sub};
    int rc = added_split(t->added_norm, t->added, norm, n, &sink, &e->work->added_steps, e->err);
    e->out = sub.out; /* the ids went on growing there */
    free(norm);
    return rc;
}

int hftok_encode_work(const HfTok *t, const char *text, size_t len, int **ids, HfTokWork *work, AvError *err) {
    *ids = NULL;
    HfTokWork none;
    memset(&none, 0, sizeof none);
    if (!work) work = &none;
    if (len > HFTOK_MAX_TEXT) /* positions in a piece are ints, with room for a prepended ▁ */
        return av_errorf(err, _("text: %zu bytes is more than the %zu a text may have"), len, (size_t)HFTOK_MAX_TEXT);
    for (size_t at = 0; at < len;) {
        uint32_t cp;
        int k = utf8_decode(text + at, len - at, &cp);
        if (cp == UTF8_INVALID) {
            char why[96];
            utf8_invalid_reason(text, len, at, why, sizeof why);
            return av_errorf(err, _("text: not valid UTF-8 at byte %zu: %s"), at, why);
        }
        at += (size_t)k;
    }
    Enc e = {.t = t, .s = text, .first = 1, .w = bpe_work_new(), .work = work, .err = err};
    int rc = e.w ? 0 : av_error_nomem(err, _("text: out of memory"));
    for (int i = 0; i < t->n_pre && rc == 0; i++) rc = push_token(&e, t->pre[i]);
    AddedSink sink = {gap_raw, push_token, &e};
    if (rc == 0) rc = added_split(t->added_raw, t->added, text, len, &sink, &work->added_steps, err);
    for (int i = 0; i < t->n_post && rc == 0; i++) rc = push_token(&e, t->post[i]);
    bpe_work_free(e.w);
    if (rc == 0 && e.out.n > (size_t)0x7FFFFFFF) rc = av_errorf(err, _("text: too many tokens"));
    if (rc) {
        free(e.out.v);
        return -1;
    }
    *ids = e.out.v;
    return (int)e.out.n;
}

int hftok_encode(const HfTok *t, const char *text, size_t len, int **ids, AvError *err) {
    return hftok_encode_work(t, text, len, ids, NULL, err);
}
