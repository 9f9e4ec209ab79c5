/* vocab.c - see vocab.h: one table of operations per tokenizer kind. */
#include "i18n.h"
#include "vocab.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    int (*size)(const void *t);
    int (*encode)(const void *t, const char *text, size_t len, int **ids, AvError *err);
    int (*is_end)(const void *t, int id);
    const char *(*piece)(const void *t, int id, size_t *len);
    const char *(*decode)(const void *t, int prev, int id, size_t *len);
    void (*display)(const void *t, int id, char *buf, size_t cap);
    void (*free)(void *t);
} VocabOps;

struct Vocab {
    const VocabOps *ops;
    void *t;
    int start; /* vocab_start */
};

// ----------------------------------------------------------------------------
// llama2.c's tokenizer.bin

static int llama_size(const void *t) { return ((const LlamaTok *)t)->n; }

static int llama_encode(const void *t, const char *text, size_t len, int **ids, AvError *err) {
    return llamatok_encode(t, text, len, ((const LlamaTok *)t)->add_bos, ids, err); /* BOS first, as run.c */
}

static int llama_is_end(const void *t, int id) {
    const LlamaTok *l = t;
    return id >= 0 && (id == l->bos || id == l->stop); /* run.c: BOS delimits texts */
}

static const char *llama_piece(const void *t, int id, size_t *len) {
    if (id < 0 || id >= llama_size(t)) return *len = 0, "";
    return llamatok_piece(t, id, len);
}

static const char *llama_decode(const void *t, int prev, int id, size_t *len) {
    if (id < 0 || id >= llama_size(t)) return *len = 0, "";
    return llamatok_decode(t, prev, id, len);
}

static void llama_display(const void *t, int id, char *buf, size_t cap) { llamatok_display(t, id, buf, cap); }

static void llama_free(void *t) { llamatok_free(t); }

static const VocabOps llama_ops = {llama_size,   llama_encode,  llama_is_end, llama_piece,
                                   llama_decode, llama_display, llama_free};

// ----------------------------------------------------------------------------
// a Hugging Face tokenizer

static int hf_size(const void *t) { return hftok_vocab_size(t); }

static int hf_encode(const void *t, const char *text, size_t len, int **ids, AvError *err) {
    return hftok_encode(t, text, len, ids, err);
}

static int hf_is_end(const void *t, int id) { return hftok_is_special(t, id); }

static const char *hf_piece(const void *t, int id, size_t *len) { return hftok_piece(t, id, len); }

static const char *hf_decode(const void *t, int prev, int id, size_t *len) {
    (void)prev;
    return hftok_piece(t, id, len);
}

static void hf_display(const void *t, int id, char *buf, size_t cap) { hftok_display(t, id, buf, cap); }

static void hf_free(void *t) { hftok_free(t); }

static const VocabOps hf_ops = {hf_size, hf_encode, hf_is_end, hf_piece, hf_decode, hf_display, hf_free};

/* The first special token among the usual start tokens, or -1. */
static int hf_start(const HfTok *t) {
    static const char *const names[] = {"<s>", "<|endoftext|>", "<|begin_of_text|>", "<|im_start|>"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        int id = hftok_lookup(t, names[i], strlen(names[i]));
        if (id >= 0 && hftok_is_special(t, id)) return id;
    }
    return -1;
}

// ----------------------------------------------------------------------------
// the interface

static Vocab *vocab_new(const VocabOps *ops, void *t, int start) {
    Vocab *v = malloc(sizeof *v);
    if (!v) {
        ops->free(t);
        return NULL;
    }
    *v = (Vocab){.ops = ops, .t = t, .start = start};
    return v;
}

Vocab *vocab_of_llamatok(LlamaTok *t) {
    return t ? vocab_new(&llama_ops, t, t->bos >= 0 && t->n > t->bos ? t->bos : -1) : NULL;
}

Vocab *vocab_of_hftok(HfTok *t) { return t ? vocab_new(&hf_ops, t, hf_start(t)) : NULL; }

Vocab *vocab_of_hftok_start(HfTok *t, int start) {
    return t ? vocab_new(&hf_ops, t, start >= 0 && start < hftok_vocab_size(t) ? start : hf_start(t)) : NULL;
}

void vocab_free(Vocab *v) {
    if (!v) return;
    v->ops->free(v->t);
    free(v);
}

int vocab_size(const Vocab *v) { return v->ops->size(v->t); }

int vocab_encode(const Vocab *v, const char *text, size_t len, int **ids, AvError *err) {
    return v->ops->encode(v->t, text, len, ids, err);
}

int vocab_start(const Vocab *v) { return v->start; }

int vocab_is_end(const Vocab *v, int id) { return v->ops->is_end(v->t, id); }

const char *vocab_piece(const Vocab *v, int id, size_t *len) { return v->ops->piece(v->t, id, len); }

const char *vocab_decode(const Vocab *v, int prev, int id, size_t *len) { return v->ops->decode(v->t, prev, id, len); }

void vocab_display(const Vocab *v, int id, char *buf, size_t cap) { v->ops->display(v->t, id, buf, cap); }
