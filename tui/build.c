/* build.c - see build.h. Moved out of main.c so that the tests and the
 * fuzzers build a model from options the way attnviz does. */
#define _POSIX_C_SOURCE 200809L
#include "build.h"

#include "source_trained.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "qkvfile.h"
#include "readfile.h"
#include "tokenize.h"

/* --mask-file: the painted mask, one row per query and one value per key.
 * Only a file that does not exist yet is fine (W will create it); a
 * dangling link, a loop, a FIFO... are said now, not when W fails. */
static int load_mask_file(Model *m, const CliOptions *o, BuildMaskNotes *notes, AvError *err) {
    if (!o->mask_file) return 0;
    char *buf;
    size_t len;
    if (av_read_file_if_exists(o->mask_file, AV_MAX_INPUT_BYTES, &buf, &len, err))
        return av_error_prefix(err, "--mask-file");
    if (!buf) return 0;
    unsigned char *grid;
    int rc = mask_parse_grid(&grid, m->n_q, m->n_k, buf, len, o->mask_file, err);
    if (rc) {
        free(buf);
        return av_error_prefix(err, "--mask-file");
    }
    int dropped = 0;
    char *comments = mask_file_comments(buf, len, &dropped);
    free(buf);
    rc = comments ? model_set_painted(m, grid, m->n_q, m->n_k, err) : av_error_nomem(err, _("out of memory"));
    free(grid);
    if (rc || !notes) {
        free(comments);
        return rc;
    }
    notes->comments = comments;
    notes->dropped = dropped;
    return 0;
}

/* An allocation failed in the core: a runtime failure, exit 1, not bad input. */
static int error_is_oom(const AvError *err) { return err->kind == AV_ERR_NOMEM; }

/* The sentence, target and pads are taken with the smallest shape (see
 * build_model); running out of memory there must name the configuration the
 * options ask for, not d_model=1 heads=1. The tokens are counted again (the
 * failed step kept none); if even that fails, the count is left out. */
static int oom_of_final(const Model *m, const CliOptions *o, const char *text, size_t len, AvError *err) {
    if (!error_is_oom(err)) return -1;
    const ModelConfig *c = &o->cfg;
    TokenList list = {0};
    AvError ignored;
    int n = -1;
    if (text && tok_split(m->tokenizer, text, len, TOK_MAX_TOKENS, &list, &ignored) == 0) n = list.n + o->pad;
    tok_list_free(&list);
    if (n < 0)
        return av_error_nomem(err, _("out of memory for d_model=%d heads=%d d_k=%d d_v=%d"), c->d_model, c->heads,
                              c->d_k, c->d_v);
    return av_error_nomem(err, _("out of memory for d_model=%d heads=%d d_k=%d d_v=%d and %d tokens"), c->d_model,
                          c->heads, c->d_k, c->d_v, n);
}

/* --max-tokens N keeps the text's first N tokens (*len cut). A text with
 * more tokens than the limits allow for the configuration asked for is
 * refused here, in one line that gives the N that fits and the option. */
static int first_tokens(const Model *m, const CliOptions *o, const char *text, size_t *len, AvError *err) {
    TextFit fit;
    int n_q = 0;                                                /* self-attention: the sentence is the queries too */
    if (o->target && o->cfg.attn == ATTN_CAUSAL_SELF) n_q = -1; /* the target's own attention */
    if (o->target && o->cfg.attn == ATTN_CROSS) {               /* the target's tokens are the queries */
        TokenList t = {0};
        AvError ignored = {0};
        n_q = tok_split(m->tokenizer, o->target, strlen(o->target), TOK_MAX_TOKENS, &t, &ignored) == 0 ? t.n : -1;
        tok_list_free(&t);
    }
    if (model_text_fit(m, &o->cfg, o->pad, n_q, text, *len, &fit, err)) return -1;
    int want = o->max_tokens ? o->max_tokens : fit.total;
    if (want > fit.total) want = fit.total;
    /* Not even one token fits (the pads or the heads are too many, not the
     * text too long): the budget's own message says so later. */
    if (want > fit.fit && fit.fit >= 1) {
        char why[160];
        if (fit.budget_bound)
            snprintf(why, sizeof why,
                     _("the %d that fit d_model=%d heads=%d (heads x tokens x tokens, memory and work)"), fit.fit,
                     o->cfg.d_model, o->cfg.heads);
        else
            snprintf(why, sizeof why,
                     o->pad ? _("the %d that fit (%d tokens at most, the pads included)")
                            : _("the %d that fit (%d tokens at most)"),
                     fit.fit, TOK_MAX_TOKENS);
        if (o->max_tokens)
            return av_errorf(err, _("--max-tokens %d: more than %s; --max-tokens %d keeps the first %d"), o->max_tokens,
                             why, fit.fit, fit.fit);
        return av_errorf(err, _("%d tokens, more than %s: --max-tokens %d keeps the first %d"), fit.total, why, fit.fit,
                         fit.fit);
    }
    return want < fit.total ? model_text_first(m, text, *len, want, len, err) : 0;
}

/* --qkv: the file gives the shape and the vectors; the options only what
 * is computed from them (mask, score, scaling). */
static int build_from_qkv(Model *m, const CliOptions *o, BuildMaskNotes *notes, AvError *err) {
    QkvData d;
    if (qkv_load(&d, o->qkv_file, err)) return av_error_prefix(err, "--qkv");
    int rc = model_set_qkv(m, &d, err);
    qkv_free(&d);
    if (rc) return av_error_prefix(err, "--qkv %s", strcmp(o->qkv_file, "-") == 0 ? _("standard input") : o->qkv_file);
    ModelConfig c = m->cfg;
    c.mask = o->cfg.mask;
    c.window = o->cfg.window;
    c.prefix = o->cfg.prefix;
    c.score = o->cfg.score;
    c.scale = o->cfg.scale;
    if (c.score == SCORE_ADDITIVE) c.seed = o->cfg.seed; /* W1, W2 and v are drawn */
    if (model_set_config(m, &c, err)) return -1;
    return load_mask_file(m, o, notes, err);
}

char *build_text(const CliOptions *o, const char *dflt, size_t *len, AvError *err) {
    if (o->file) {
        char *buf;
        if (av_read_text(o->file, AV_MAX_INPUT_BYTES, 1, &buf, len, err)) {
            av_error_prefix(err, "-f");
            return NULL;
        }
        while (*len > 0 && (buf[*len - 1] == '\n' || buf[*len - 1] == '\r')) buf[--*len] = '\0';
        return buf;
    }
    const char *t = o->text ? o->text : dflt;
    *len = strlen(t);
    char *copy = malloc(*len + 1);
    if (!copy) av_error_nomem(err, _("out of memory"));
    else memcpy(copy, t, *len + 1);
    return copy;
}

/* --model: a trained model on the sentence (empty for --generate without
 * one: the continuation of BOS), its mask and scaling from the options, the
 * layer asked for. */
static int build_from_model(Model *m, const CliOptions *o, BuildMaskNotes *notes, AvError *err) {
    size_t len;
    char *text = build_text(o, o->generate ? "" : cli_default_text(), &len, err);
    if (!text) return -1;
    int rc = model_set_trained(m, o->model_file, o->vocab_file, text, len, err);
    free(text);
    if (rc) return -1;
    ModelConfig c = m->cfg;
    c.mask = o->cfg.mask;
    c.window = o->cfg.window;
    c.prefix = o->cfg.prefix;
    c.scale = o->cfg.scale;
    if (model_set_config(m, &c, err)) return -1;
    if (o->layer > m->cfg.layers)
        return av_errorf(err, _("--layer: %d is out of range 1..%d (the model's layers)"), o->layer, m->cfg.layers);
    if (o->layer) model_set_layer(m, o->layer - 1);
    if (o->n_ablate && model_set_ablation(m, o->ablate, o->n_ablate, err)) return av_error_prefix(err, "--ablate");
    return load_mask_file(m, o, notes, err);
}

int build_model(Model *m, const CliOptions *o, BuildMaskNotes *notes, AvError *err) {
    if (notes) notes->comments = NULL, notes->dropped = 0;
    if (o->qkv_file) return build_from_qkv(m, o, notes, err);
    if (o->model_file) return build_from_model(m, o, notes, err);
    if (o->tokenizer != TOK_WORDS || o->pattern) {
        if (model_set_tokenizer(m, o->tokenizer, o->pattern, err)) return -1;
    }
    /* The attention mode last: cross-attention needs the target first. */
    ModelConfig first = o->cfg;
    first.attn = ATTN_SELF;
    /* Checked against the budgets with the final sides only: the sentence
     * is taken with the smallest shape (cross-attention on a long source
     * with many heads is within the limits; self-attention on it is not). */
    first.heads = first.d_k = first.d_v = first.d_model = 1;
    first.score = SCORE_DOT;
    if (model_set_config(m, &first, err)) return -1;
    size_t len;
    char *text = build_text(o, cli_default_text(), &len, err);
    if (!text) return -1;
    if (first_tokens(m, o, text, &len, err)) {
        free(text);
        return av_error_prefix(err, "%s",
                               o->file ? (strcmp(o->file, "-") == 0 ? _("standard input") : o->file) : "TEXT");
    }
    int rc = model_set_text(m, text, len, err);
    if (rc) oom_of_final(m, o, text, len, err);
    free(text);
    if (rc && o->file) return av_error_prefix(err, "%s", strcmp(o->file, "-") == 0 ? _("standard input") : o->file);
    if (rc) return av_error_prefix(err, "TEXT");
    if (o->target && model_set_target(m, o->target, strlen(o->target), err)) {
        if (error_is_oom(err)) return oom_of_final(m, o, m->text, m->text_len, err);
        /* The model says "target: ..." (for the TUI); here the option says it. */
        char rest[AV_ERR_MAX];
        char prefix[64];
        snprintf(prefix, sizeof prefix, "%s: ", _("target")); /* the model's prefix, in the reader's language */
        size_t pl = strlen(prefix);
        snprintf(rest, sizeof rest, "%s", strncmp(err->msg, prefix, pl) == 0 ? err->msg + pl : err->msg);
        return av_errorf(err, "--target: %s", rest);
    }
    if (o->pad && model_set_pad(m, o->pad, err)) {
        if (error_is_oom(err)) return oom_of_final(m, o, m->text, m->text_len, err);
        return av_error_prefix(err, "--pad");
    }
    if (model_set_config(m, &o->cfg, err)) return -1;
    return load_mask_file(m, o, notes, err);
}
