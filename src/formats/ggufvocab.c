/* ggufvocab.c - the tokenizer.ggml.* keys of a GGUF, read and checked
 * (types, lengths, ids in range) into gguftok.h's spec: ggufmodel_vocab
 * (ggufmodel.h). */
#include "i18n.h"
#include "ggufmodel.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gguftok.h"

typedef struct {
    GgufStr *toks, *merges;
    const char **tok, **merge;
    size_t *tlen, *mlen;
    float *score;
    int *type;
} Arrays;

static void free_arrays(Arrays *a) {
    free(a->toks), free(a->merges), free(a->tok), free(a->merge);
    free(a->tlen), free(a->mlen), free(a->score), free(a->type);
}

/* An optional token id key (-1 when absent); 0, or -1 with one line. */
static int id_key(const Gguf *g, const char *key, int *out, AvError *err) {
    int64_t v = -1;
    if (gguf_get_int(g, key, 0, INT32_MAX, &v, err) < 0) return -1;
    *out = (int)v;
    return 0;
}

static int bool_key(const Gguf *g, const char *key, int *out, AvError *err) {
    *out = -1;
    return gguf_get_bool(g, key, out, err) < 0 ? -1 : 0;
}

/* An array key of at least n elements (NULL when absent and not required). */
static int array_key(const Gguf *g, const char *key, GgufType elem, int any_int, uint64_t least, int required,
                     const GgufKv **out, AvError *err) {
    *out = NULL;
    int rc = gguf_get_array(g, key, elem, any_int, out, err);
    if (rc < 0) return -1;
    if (rc == 1) return required ? gguf_missing(g, key, err) : 0;
    if ((*out)->n < least)
        return av_errorf(err, _("%s: key %s: %llu elements, fewer than the %llu tokens"), gguf_file(g), key,
                         (unsigned long long)(*out)->n, (unsigned long long)least);
    return 0;
}

/* The strings of kv into a (pointers and lengths). */
static int strings(const GgufKv *kv, GgufStr **s, const char ***p, size_t **len) {
    size_t n = (size_t)kv->n;
    *s = malloc(sizeof **s * (n ? n : 1));
    *p = malloc(sizeof **p * (n ? n : 1));
    *len = malloc(sizeof **len * (n ? n : 1));
    if (!*s || !*p || !*len) return -1;
    gguf_array_strings(kv, *s);
    for (size_t i = 0; i < n; i++) (*p)[i] = (*s)[i].s, (*len)[i] = (*s)[i].len;
    return 0;
}

/* The arrays of the spec: tokens (required), scores, types, merges. */
static int read_arrays(const Gguf *g, GgufTokSpec *s, Arrays *a, AvError *err) {
    const GgufKv *toks, *scores, *types, *merges;
    if (array_key(g, "tokenizer.ggml.tokens", GGUF_STRING, 0, 1, 1, &toks, err)) return -1;
    if (toks->n > (1u << 24))
        return av_errorf(err, _("%s: key tokenizer.ggml.tokens: %llu tokens, more than the limit of %d"), gguf_file(g),
                         (unsigned long long)toks->n, 1 << 24);
    s->n = (int)toks->n;
    if (array_key(g, "tokenizer.ggml.scores", GGUF_FLOAT32, 0, toks->n, 0, &scores, err) ||
        array_key(g, "tokenizer.ggml.token_type", GGUF_INT32, 1, toks->n, 0, &types, err) ||
        array_key(g, "tokenizer.ggml.merges", GGUF_STRING, 0, 0, 0, &merges, err))
        return -1;
    if (merges && merges->n > INT32_MAX)
        return av_errorf(err, _("%s: key tokenizer.ggml.merges: too many merges"), gguf_file(g));
    size_t n = (size_t)s->n;
    if (strings(toks, &a->toks, &a->tok, &a->tlen) || (merges && strings(merges, &a->merges, &a->merge, &a->mlen)))
        return av_error_nomem(err, _("%s: out of memory for %d tokens"), gguf_file(g), s->n);
    if (scores) { /* the first n (llama.cpp reads no more) */
        float *all = malloc(sizeof *all * (size_t)scores->n);
        if (!all) return av_error_nomem(err, _("%s: out of memory for %d tokens"), gguf_file(g), s->n);
        gguf_array_floats(scores, all);
        a->score = all;
    }
    if (types) {
        int64_t *all = malloc(sizeof *all * (size_t)types->n);
        a->type = malloc(sizeof *a->type * n);
        if (!all || !a->type) {
            free(all);
            return av_error_nomem(err, _("%s: out of memory for %d tokens"), gguf_file(g), s->n);
        }
        gguf_array_ints(types, all);
        for (size_t i = 0; i < n; i++) a->type[i] = all[i] < 0 || all[i] > 7 ? 0 : (int)all[i];
        free(all);
    }
    s->tok = a->tok, s->tlen = a->tlen, s->score = a->score, s->type = a->type;
    s->merge = a->merge, s->mlen = a->mlen, s->n_merges = merges ? (int)merges->n : 0;
    return 0;
}

Vocab *ggufmodel_vocab(const Gguf *g, AvError *err) {
    GgufTokSpec s = {.file = gguf_file(g)};
    Arrays a = {0};
    GgufStr model, pre;
    Vocab *v = NULL;
    int rc = gguf_get_str(g, "tokenizer.ggml.model", &model, err);
    if (rc == 1) gguf_missing(g, "tokenizer.ggml.model", err);
    if (rc) return NULL;
    s.model = model.s, s.model_len = model.len;
    if ((rc = gguf_get_str(g, "tokenizer.ggml.pre", &pre, err)) < 0) return NULL;
    if (rc == 0) s.pre = pre.s, s.pre_len = pre.len;
    if (read_arrays(g, &s, &a, err) == 0 && id_key(g, "tokenizer.ggml.bos_token_id", &s.bos, err) == 0 &&
        id_key(g, "tokenizer.ggml.eos_token_id", &s.eos, err) == 0 &&
        bool_key(g, "tokenizer.ggml.add_bos_token", &s.add_bos, err) == 0 &&
        bool_key(g, "tokenizer.ggml.add_eos_token", &s.add_eos, err) == 0 &&
        bool_key(g, "tokenizer.ggml.add_space_prefix", &s.add_space_prefix, err) == 0)
        v = gguftok_open(&s, err);
    free_arrays(&a);
    return v;
}
