/* model_fit.c - a text longer than the model can take (model.h:
 * model_text_fit, model_text_first): its tokens counted with the sentence's
 * tokenizer, the most first tokens the limits allow, and where to cut the
 * text to keep only those. */
#include "model_internal.h"

#include <limits.h>
#include <string.h>

#include "i18n.h"

/* The text's tokens, as many as there are (a text is at most
 * AV_MAX_INPUT_BYTES, so at most that many tokens). */
static int split_all(const Model *m, const char *text, size_t len, TokenList *out, AvError *err) {
    if (!model_can(m, SRC_TOKENIZERS) || !m->tokenizer)
        return av_errorf(err, _("%s: the model's tokenizer is its own: the text cannot be cut by tokens here"),
                         m->src->fixed ? _(m->src->fixed) : _("this source"));

    return tok_split(m->tokenizer, text, len, len < (size_t)INT_MAX ? (int)len + 1 : INT_MAX, out, err);
}

/* Within the budgets of c with n tokens of the sentence (model_text_fit's n_q). */
static int fits(const ModelConfig *c, const Source *src, int pad, int n_q, int n) {
    if (n_q < 0) return 1;
    return model_check_budget(c, n_q > 0 ? n_q : n + pad, n + pad, src, NULL) == 0;
}

/* The most tokens n (0..max) within the budgets: they only grow with n, so
 * a binary search. */
static int budget_fit(const ModelConfig *c, const Source *src, int pad, int n_q, int max) {
    if (max < 1 || !fits(c, src, pad, n_q, 1)) return 0;
    int lo = 1, hi = max; /* lo fits */
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (fits(c, src, pad, n_q, mid)) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

int model_text_fit(const Model *m, const ModelConfig *c, int pad, int n_q, const char *text, size_t len, TextFit *out,
                   AvError *err) {
    memset(out, 0, sizeof *out);
    TokenList list = {0};
    if (split_all(m, text, len, &list, err)) return -1;
    out->total = list.n;
    tok_list_free(&list);
    int max = TOK_MAX_TOKENS - pad;
    if (max < 0) max = 0;
    out->fit = budget_fit(c, m->src, pad, n_q, max);
    out->budget_bound = out->fit < max && out->fit < out->total;
    return 0;
}

int model_text_first(const Model *m, const char *text, size_t len, int n, size_t *cut, AvError *err) {
    TokenList all = {0};
    if (split_all(m, text, len, &all, err)) return -1;
    if (n >= all.n) {
        tok_list_free(&all);
        *cut = len;
        return 0;
    }
    /* Cut at the end of token n: a pattern that looks ahead could split the
     * shorter text otherwise; then the next shorter end, and so on (never
     * needed by the presets, which the tests check). */
    int rc = -1;
    for (int k = n; k >= 1 && k > n - 8 && rc; k--) {
        const Token *last = &all.tok[k - 1];
        size_t at = last->offset + last->len;
        TokenList part = {0};
        AvError ignored = {0};
        if (tok_split(m->tokenizer, text, at, k + 1, &part, &ignored) == 0 && part.n == k) {
            int same = 1;
            for (int i = 0; i < k && same; i++)
                same = part.tok[i].offset == all.tok[i].offset && part.tok[i].len == all.tok[i].len;
            if (same) *cut = at, rc = 0;
        }
        tok_list_free(&part);
    }
    tok_list_free(&all);
    return rc ? av_errorf(err, _("the text cannot be cut after its first %d tokens"), n) : 0;
}
