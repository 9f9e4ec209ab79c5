/* gguftok.c - see gguftok.h: a GGUF's tokenizer as a LlamaTok (SentencePiece
 * by scores) or an HfTok (byte-level BPE by ranks), built with their own
 * parts so that the encoding is the one those already test. */
#include "hftok_internal.h"
#include "gguftok.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "llamatok.h"
#include "utf8.h"

/* s[0..n) equals the NUL-terminated w. */
static int is(const char *s, size_t n, const char *w) { return s && strlen(w) == n && memcmp(s, w, n) == 0; }

/* s[0..n) escaped into out, cut to a short name. */
static void shown(char *out, size_t cap, const char *s, size_t n) {
    char raw[64];
    size_t k = n < sizeof raw - 1 ? n : sizeof raw - 1;
    memcpy(raw, s, k);
    raw[k] = '\0';
    utf8_escape_into(out, cap, raw);
}

/* A token id key: in range. */
static int check_id(const GgufTokSpec *s, const char *key, int id, AvError *err) {
    if (id >= s->n) return av_errorf(err, _("%s: key %s: id %d is not one of the %d tokens"), s->file, key, id, s->n);
    return 0;
}

// ----------------------------------------------------------------------------
// "llama": SentencePiece

static Vocab *open_spm(const GgufTokSpec *s, AvError *err) {
    /* the pieces with "▁" as a space (llama2.c's export does the same) */
    size_t total = 0;
    for (int i = 0; i < s->n; i++) total += s->tlen[i];
    char *buf = malloc(total ? total : 1);
    const char **text = malloc(sizeof *text * (size_t)s->n);
    size_t *len = malloc(sizeof *len * (size_t)s->n);
    float *score = malloc(sizeof *score * (size_t)s->n);
    LlamaTok *t = NULL;
    if (!buf || !text || !len || !score) av_error_nomem(err, _("%s: out of memory for %d tokens"), s->file, s->n);
    else {
        char *at = buf;
        for (int i = 0; i < s->n; i++) {
            const char *p = s->tok[i];
            size_t n = s->tlen[i], k = 0;
            text[i] = at;
            for (size_t j = 0; j < n;) {
                if (j + 3 <= n && memcmp(p + j, HFTOK_METASPACE, 3) == 0) at[k++] = ' ', j += 3;
                else at[k++] = p[j++];
            }
            len[i] = k, at += k;
            score[i] = s->score ? s->score[i] : 0.0f;
        }
        t = llamatok_from_pieces(s->n, text, len, score, s->file, err);
    }
    free(text), free(len), free(score);
    if (t) { /* the pieces were copied: buf is free to go */
        t->bos = s->bos >= 0 ? s->bos : 1;
        t->eos = s->eos >= 0 ? s->eos : 2;
        if (t->bos >= t->n) t->bos = -1;
        if (t->eos >= t->n) t->eos = -1;
        t->stop = t->eos;
        t->add_bos = s->add_bos != 0;
        t->space_prefix = s->add_space_prefix != 0;
        t->bytes_by_id = 0;
    }
    free(buf);
    if (!t) return NULL;
    Vocab *v = vocab_of_llamatok(t);
    if (!v) av_error_nomem(err, _("%s: out of memory"), s->file);
    return v;
}

// ----------------------------------------------------------------------------
// "gpt2": byte-level BPE

/* llama.cpp's pre-tokenizers (llama-vocab.cpp's llm_tokenizer_bpe), by the
 * names of tokenizer.ggml.pre that choose them. */
static const char GPT2_RE[] = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)";
static const char LLAMA3_RE[] =
    "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| "
    "?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
static const char QWEN2_RE[] =
    "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| "
    "?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

static const struct {
    const char *names; /* space-separated */
    const char *re[4];
    int ignore_merges, add_bos;
} pres[] = {
    {"default", {"[\\p{P}\\$\\+<=>\\^~\\|]+", GPT2_RE, "\\p{N}+", "[0-9][0-9][0-9]"}, 0, 0},
    {"gpt-2 phi-2 mpt olmo", {GPT2_RE}, 0, 0},
    {"llama3 llama-v3 llama-bpe", {LLAMA3_RE}, 1, 1},
    {"qwen2 deepseek-r1-qwen megrez", {QWEN2_RE}, 0, 0},
    {"smollm starcoder refact", {"\\p{N}", GPT2_RE}, 0, 0},
};
#define N_PRES (int)(sizeof pres / sizeof *pres)

/* The pre-tokenizer of pre[0..n) (absent: "default"), or -1. */
static int find_pre(const char *pre, size_t n) {
    if (!pre) return 0;
    for (int i = 0; i < N_PRES; i++)
        for (const char *w = pres[i].names; *w;) {
            size_t k = strcspn(w, " ");
            if (k == n && memcmp(w, pre, n) == 0) return i;
            w += k + (w[k] == ' ');
        }
    return -1;
}

static int refuse_pre(const GgufTokSpec *s, AvError *err) {
    char name[80], known[200] = "";
    shown(name, sizeof name, s->pre, s->pre_len);
    for (int i = 0; i < N_PRES; i++)
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "", pres[i].names);
    for (char *c = known; *c; c++)
        if (*c == ' ' && c[-1] != ',') *c = '/';
    return av_errorf(err, _("%s: key tokenizer.ggml.pre: pre-tokenizer \"%s\" is not supported (%s)"), s->file, name,
                     known);
}

/* The tokens, their kinds, the pre-tokenizer and the merges into t. */
static int build_bpe(HfTok *t, const GgufTokSpec *s, int pre, AvError *err) {
    const char *f = s->file;
    t->unk = -1, t->byte_level = 1, t->ignore_merges = pres[pre].ignore_merges;
    hftok_byte_table(t->byte_cp, t->cp_byte);
    if (hftok_alloc_ids(t, s->n, f, err)) return -1;
    int n_user = 0;
    for (int i = 0; i < s->n; i++) {
        char where[48];
        snprintf(where, sizeof where, "tokenizer.ggml.tokens[%d]", i);
        if (hftok_check_utf8(s->tok[i], s->tlen[i], f, where, err) ||
            hftok_set_token(t, i, s->tok[i], s->tlen[i], f, err))
            return -1;
        int type = s->type ? s->type[i] : GGUF_TOK_NORMAL;
        if (type == GGUF_TOK_CONTROL) t->special[i] = 3; /* as written; never matched in a text */
        if (type == GGUF_TOK_USER && s->tlen[i] > 0) t->special[i] = 2, n_user++;
    }
    if (n_user && !(t->added = calloc((size_t)n_user, sizeof *t->added)))
        return av_error_nomem(err, _("%s: out of memory"), f);
    for (int i = 0; i < s->n; i++)
        if (t->special[i] == 2) {
            Added *a = &t->added[t->n_added++];
            a->id = i, a->len = s->tlen[i];
            if (!(a->text = hftok_dup(s->tok[i], s->tlen[i]))) return av_error_nomem(err, _("%s: out of memory"), f);
        }
    for (int k = 0; k < 4 && pres[pre].re[k]; k++)
        if (hftok_compile_split(t, pres[pre].re[k], f, "tokenizer.ggml.pre", err)) return -1;
    if (hftok_make_raw(t, f, err) || hftok_build_map(t, f, err)) return -1;
    hftok_find_symbols(t);
    if (hftok_alloc_pairs(t, (size_t)s->n_merges, f, err)) return -1;
    for (int i = 0; i < s->n_merges; i++) {
        char where[48];
        snprintf(where, sizeof where, "tokenizer.ggml.merges[%d]", i);
        const char *m = s->merge[i];
        size_t n = s->mlen[i];
        /* llama.cpp splits at the first space after the first byte */
        const char *sp = n > 1 ? memchr(m + 1, ' ', n - 1) : NULL;
        if (hftok_check_utf8(m, n, f, where, err)) return -1;
        if (!sp || sp + 1 == m + n) return av_errorf(err, _("%s: %s is not \"left right\""), f, where);
        if (hftok_add_merge(t, m, (size_t)(sp - m), sp + 1, (size_t)(m + n - sp - 1), i, f, where, err)) return -1;
    }
    return hftok_build_added(t, f, err);
}

static Vocab *open_bpe(const GgufTokSpec *s, AvError *err) {
    int pre = find_pre(s->pre, s->pre_len);
    if (pre < 0) return refuse_pre(s, err), NULL;
    if (!s->merge)
        return av_errorf(err, _("%s: no key tokenizer.ggml.merges (a BPE tokenizer needs them)"), s->file), NULL;
    HfTok *t = calloc(1, sizeof *t);
    if (!t) return av_error_nomem(err, _("%s: out of memory"), s->file), NULL;
    if (build_bpe(t, s, pre, err)) {
        hftok_free(t);
        return NULL;
    }
    int add_bos = s->add_bos >= 0 ? s->add_bos : pres[pre].add_bos;
    if (add_bos && s->bos >= 0) t->pre[t->n_pre++] = s->bos;
    if (s->add_eos > 0 && s->eos >= 0) t->post[t->n_post++] = s->eos;
    /* BOS and EOS end a text whatever their type */
    if (s->bos >= 0) t->special[s->bos] = 3;
    if (s->eos >= 0) t->special[s->eos] = 3;
    Vocab *v = vocab_of_hftok_start(t, s->bos);
    if (!v) av_error_nomem(err, _("%s: out of memory"), s->file);
    return v;
}

// ----------------------------------------------------------------------------

Vocab *gguftok_open(const GgufTokSpec *s, AvError *err) {
    if (s->n < 1) return av_errorf(err, _("%s: key tokenizer.ggml.tokens: no tokens"), s->file), NULL;
    if (check_id(s, "tokenizer.ggml.bos_token_id", s->bos, err) ||
        check_id(s, "tokenizer.ggml.eos_token_id", s->eos, err))
        return NULL;
    if (is(s->model, s->model_len, "llama")) return open_spm(s, err);
    if (is(s->model, s->model_len, "gpt2")) return open_bpe(s, err);
    char name[80];
    shown(name, sizeof name, s->model, s->model_len);
    return av_errorf(err, _("%s: key tokenizer.ggml.model: tokenizer \"%s\" is not supported (llama, gpt2)"), s->file,
                     name),
           NULL;
}
