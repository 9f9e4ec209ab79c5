/* longtext.c - a sentence longer than the model can take, in the app: the
 * offer to keep its first tokens (y keeps them, another key leaves the
 * sentence as it was), and the jump to a token by its position or its text
 * (the / prompt). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_internal.h"
#include "i18n.h"
#include "text.h"
#include "longtext.h"
#include "view.h"
#include "widgets.h"

/* model_text_fit's n_q for the model's attention mode. */
static int queries_of(const Model *m) {
    if (!m->target) return 0;
    return m->cfg.attn == ATTN_CROSS ? m->target_tokens.n : m->cfg.attn == ATTN_CAUSAL_SELF ? -1 : 0;
}

int app_offer_first_tokens(App *a, const char *text, size_t len) {
    Model *m = a->m;
    if (!model_can(m, SRC_TOKENIZERS)) return 0;
    TextFit fit;
    AvError err = {0};
    if (model_text_fit(m, &m->cfg, m->n_pad, queries_of(m), text, len, &fit, &err) || fit.total <= fit.fit ||
        fit.fit < 1)
        return 0;
    char *copy = malloc(len + 1);
    if (!copy) return 0;
    memcpy(copy, text, len);
    copy[len] = '\0';
    free(a->keep_text);
    a->keep_text = copy, a->keep_len = len, a->keep_n = fit.fit;
    app_say(a, 1, _("%d tokens, %d fit: y keeps the first %d; another key changes nothing"), fit.total, fit.fit,
            fit.fit);
    return 1;
}

int app_first_tokens_key(App *a, AppKey k) {
    char *text = a->keep_text;
    size_t len = a->keep_len;
    int n = a->keep_n;
    a->keep_text = NULL;
    if (k.is_code || (k.ch != 'y' && k.ch != 'Y')) {
        app_say(a, 0, "%s", _("the sentence stays as it was"));
        free(text);
        return 1;
    }
    AvError err = {0};
    size_t cut;
    int total = -1;
    TextFit fit;
    if (model_text_fit(a->m, &a->m->cfg, a->m->n_pad, queries_of(a->m), text, len, &fit, &err) == 0) total = fit.total;
    if (model_text_first(a->m, text, len, n, &cut, &err) || model_set_text(a->m, text, cut, &err)) {
        app_say(a, 1, _("%s; the sentence stays as it was"), err.msg);
    } else {
        app_clamp_cursor(a);
        app_say(a, 0, _("kept the first %d of %d tokens (Z: the whole text zoomed out)"), a->m->n_q - a->m->n_pad,
                total);
    }
    free(text);
    return 1;
}

// ----------------------------------------------------------------------------
// jump to a token

/* 1 when s[0..n) holds the needle (ASCII letters in either case). */
static int contains(const char *s, size_t n, const char *needle, size_t k) {
    if (k == 0) return 1;
    for (size_t at = 0; at + k <= n; at++) {
        size_t q = 0;
        while (q < k && tolower((unsigned char)s[at + q]) == tolower((unsigned char)needle[q])) q++;
        if (q == k) return 1;
    }
    return 0;
}

static void go_to(App *a, int i) {
    a->ci = i;
    if (i < a->m->n_k) a->cj = i;
    app_clamp_cursor(a);
}

int app_jump(App *a, const char *text, size_t len) {
    const Model *m = a->m;
    while (len > 0 && isspace((unsigned char)*text)) text++, len--;
    while (len > 0 && isspace((unsigned char)text[len - 1])) len--;
    snprintf(a->jump_last, sizeof a->jump_last, "%.*s", (int)len, text);
    if (len == 0 || m->n_q < 1) {
        app_say(a, 1, _("jump: type a position (0..%d) or a part of a token"), m->n_q - 1);
        return -1;
    }
    size_t digits = 0;
    while (digits < len && isdigit((unsigned char)text[digits])) digits++;
    char label[64];
    if (digits == len) {
        long i = digits > 9 ? -1 : strtol(a->jump_last, NULL, 10);
        if (i < 0 || i >= m->n_q) {
            app_say(a, 1, _("jump: there is no token %s; the positions are 0..%d"), a->jump_last, m->n_q - 1);
            return -1;
        }
        go_to(a, (int)i);
        view_qlabel(a, label, sizeof label, a->ci, 24);
        app_say(a, 0, _("token %d: %s"), a->ci, label);
        return 0;
    }
    int found = -1, matches = 0, rank = 0;
    for (int k = 1; k <= m->n_q; k++) {
        int i = (a->ci + k) % m->n_q;
        size_t n;
        const char *s = model_query_text(m, i, &n);
        if (!contains(s, n, text, len)) continue;
        matches++;
        if (found < 0) found = i;
    }
    if (found < 0) {
        char *safe = text_safe_label(a->jump_last, strlen(a->jump_last), 0);
        app_say(a, 1, _("jump: no token holds '%s'"), safe ? safe : "");
        free(safe);
        return -1;
    }
    for (int i = 0; i <= found; i++) {
        size_t n;
        const char *s = model_query_text(m, i, &n);
        rank += contains(s, n, text, len);
    }
    go_to(a, found);
    view_qlabel(a, label, sizeof label, found, 24);
    app_say(a, 0, _("token %d: %s (%d of %d; / Enter: the next)"), found, label, rank, matches);
    return 0;
}
