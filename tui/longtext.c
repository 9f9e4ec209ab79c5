/* longtext.c - a sentence longer than the model can take, in the app: the
 * offer to keep its first tokens (y keeps them, another key leaves the
 * sentence as it was), and the jump to a token by its position or its text
 * (the / prompt). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_internal.h"
#include "longtext.h"
#include "view.h"
#include "widgets.h"

int app_offer_first_tokens(App *a, const char *text, size_t len) {
    Model *m = a->m;
    if (!model_can(m, SRC_TOKENIZERS)) return 0;
    TextFit fit;
    AvError err = {0};
    if (model_text_fit(m, &m->cfg, m->n_pad, text, len, &fit, &err) || fit.total <= fit.fit || fit.fit < 1) return 0;
    char *copy = malloc(len + 1);
    if (!copy) return 0;
    memcpy(copy, text, len);
    copy[len] = '\0';
    free(a->keep_text);
    a->keep_text = copy, a->keep_len = len, a->keep_n = fit.fit;
    app_say(a, 1, "%d tokens, %d fit: y keeps the first %d; another key changes nothing", fit.total, fit.fit, fit.fit);
    return 1;
}

int app_first_tokens_key(App *a, AppKey k) {
    char *text = a->keep_text;
    size_t len = a->keep_len;
    int n = a->keep_n;
    a->keep_text = NULL;
    if (k.is_code || (k.ch != 'y' && k.ch != 'Y')) {
        app_say(a, 0, "the sentence stays as it was");
        free(text);
        return 1;
    }
    AvError err = {0};
    size_t cut;
    int total = -1;
    TextFit fit;
    if (model_text_fit(a->m, &a->m->cfg, a->m->n_pad, text, len, &fit, &err) == 0) total = fit.total;
    if (model_text_first(a->m, text, len, n, &cut, &err) || model_set_text(a->m, text, cut, &err)) {
        app_say(a, 1, "%s; the sentence stays as it was", err.msg);
    } else {
        app_clamp_cursor(a);
        app_say(a, 0, "kept the first %d of %d tokens (Z: the whole text zoomed out)", a->m->n_q - a->m->n_pad, total);
    }
    free(text);
    return 1;
}
