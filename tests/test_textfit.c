/* test_textfit.c - a text longer than the model takes (src/core/model_fit.c):
 * its tokens counted, the most first tokens the limits allow (4096 less the
 * pads; the budget of heads x tokens x tokens: 4 heads take 2048, 1 head
 * 4096), and the cut that keeps the first N tokens: on every source text of
 * ../shared/sources (Korean, English, code) with the words, gpt2 and chars
 * tokenizers, the text cut there tokenizes to exactly the first N tokens of
 * the whole. Without ../shared/sources the source texts are skipped with one
 * line (a failure under CI); the generated texts always run. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

#include "testutil.h"

#include "readfile.h"
#include "qkvfile.h"
#include "tokenize.h"

static Model *seeded(TokPreset preset, int heads) {
    ModelConfig c = tu_config(64, heads, 64 / heads, 64 / heads);
    Model *m = tu_model("a", &c);
    AvError err = {0};
    if (preset != TOK_WORDS && model_set_tokenizer(m, preset, NULL, &err)) fail_msg("%s", err.msg);
    return m;
}

/* "w0 w1 w2 ...": n words. Caller frees. */
static char *words(int n, size_t *len) {
    char *s = malloc((size_t)n * 8 + 1);
    assert_non_null(s);
    size_t at = 0;
    for (int i = 0; i < n; i++) at += (size_t)sprintf(s + at, "%sw%d", i ? " " : "", i % 1000);
    *len = at;
    return s;
}

/* The cut after n tokens gives the same first n tokens as the whole text. */
static void check_cut(Model *m, const char *text, size_t len, int n, const char *what) {
    size_t cut;
    AvError err = {0};
    if (model_text_first(m, text, len, n, &cut, &err)) fail_msg("%s: %s", what, err.msg);
    TokenList all = {0}, part = {0};
    assert_int_equal(tok_split(m->tokenizer, text, len, (int)len + 1, &all, &err), 0);
    assert_int_equal(tok_split(m->tokenizer, text, cut, (int)cut + 1, &part, &err), 0);
    int want = n < all.n ? n : all.n;
    if (part.n != want) fail_msg("%s: cut at %zu gives %d tokens, want %d", what, cut, part.n, want);
    for (int i = 0; i < want; i++)
        if (part.tok[i].offset != all.tok[i].offset || part.tok[i].len != all.tok[i].len ||
            strcmp(part.tok[i].text, all.tok[i].text) != 0)
            fail_msg("%s: token %d differs after the cut", what, i);
    if (n >= all.n) assert_int_equal(cut, len);
    else assert_true(cut <= all.tok[n].offset);
    tok_list_free(&all);
    tok_list_free(&part);
}

/* The limits: 4096 tokens (less the pads); the budget of the cells. */
static void test_fit_limits(void **state) {
    (void)state;
    size_t len;
    char *text = words(5000, &len);
    Model *m = seeded(TOK_WORDS, 4);
    TextFit fit;
    AvError err = {0};
    ModelConfig c = m->cfg;
    c.heads = 1, c.d_k = c.d_v = 64;
    assert_int_equal(model_text_fit(m, &c, 0, 0, text, len, &fit, &err), 0);
    assert_int_equal(fit.total, 5000);
    assert_int_equal(fit.fit, TOK_MAX_TOKENS);
    assert_int_equal(fit.budget_bound, 0);
    assert_int_equal(model_text_fit(m, &c, 96, 0, text, len, &fit, &err), 0);
    assert_int_equal(fit.fit, TOK_MAX_TOKENS - 96);
    /* 4 heads: 4 x n x n <= 2^24 cells, n = 2048 exactly */
    c.heads = 4, c.d_k = c.d_v = 16;
    assert_int_equal(model_text_fit(m, &c, 0, 0, text, len, &fit, &err), 0);
    assert_int_equal(fit.fit, 2048);
    assert_int_equal(fit.budget_bound, 1);
    assert_int_equal(model_check_budget(&c, 2048, 2048, m->src, NULL), 0);
    assert_int_not_equal(model_check_budget(&c, 2049, 2049, m->src, NULL), 0);
    /* with pads: n + pads rows */
    assert_int_equal(model_text_fit(m, &c, 48, 0, text, len, &fit, &err), 0);
    assert_int_equal(fit.fit, 2048 - 48);
    /* cross-attention: 3 queries (a target's) on n keys, 4 x 3 x n cells:
     * 4096 fit; the target's own causal attention: the sentence in neither */
    assert_int_equal(model_text_fit(m, &c, 0, 3, text, len, &fit, &err), 0);
    assert_int_equal(fit.fit, TOK_MAX_TOKENS);
    assert_int_equal(model_text_fit(m, &c, 0, -1, text, len, &fit, &err), 0);
    assert_int_equal(fit.fit, TOK_MAX_TOKENS);
    /* 64 heads: 512 */
    c.heads = 64, c.d_k = c.d_v = 1;
    assert_int_equal(model_text_fit(m, &c, 0, 0, text, len, &fit, &err), 0);
    assert_int_equal(fit.fit, 512);
    /* the first 2048 kept: the model takes them */
    size_t cut;
    assert_int_equal(model_text_first(m, text, len, 2048, &cut, &err), 0);
    assert_int_equal(model_set_text(m, text, cut, &err), 0);
    assert_int_equal(m->tokens.n, 2048);
    assert_string_equal(m->tokens.tok[2047].text, "w47");
    /* a text that fits keeps all of it */
    assert_int_equal(model_text_first(m, "a b c", 5, 10, &cut, &err), 0);
    assert_int_equal(cut, 5);
    free(text);
    model_free(m);
}

/* A Q/K/V file has no sentence to cut: said so. */
static void test_not_for_other_sources(void **state) {
    (void)state;
    Model *m = model_new();
    assert_non_null(m);
    AvError err = {0};
    QkvData d;
    if (qkv_load(&d, "samples/worked-example.qkv", &err)) fail_msg("%s", err.msg);
    assert_int_equal(model_set_qkv(m, &d, &err), 0);
    qkv_free(&d);
    TextFit fit;
    assert_int_equal(model_text_fit(m, &m->cfg, 0, 0, "a b", 3, &fit, &err), -1);
    assert_non_null(strstr(err.msg, "cannot be cut by tokens"));
    model_free(m);
}

/* Every source text, every preset, cuts at several counts. */
static void test_source_texts(void **state) {
    (void)state;
    const char *dirs[] = {"../shared/sources", "../../shared/sources"};
    DIR *dir = NULL;
    const char *root = NULL;
    for (size_t k = 0; k < 2 && !dir; k++)
        if ((dir = opendir(dirs[k]))) root = dirs[k];
    if (!dir) {
        const char *ci = getenv("CI");
        if (ci && strcmp(ci, "true") == 0) fail_msg("../shared/sources not found (required under CI)");
        printf("skipped: ../shared/sources not found\n");
        return;
    }
    int files = 0;
    struct dirent *e;
    while ((e = readdir(dir))) {
        if (!strstr(e->d_name, ".txt")) continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", root, e->d_name);
        char *text;
        size_t len;
        AvError err = {0};
        if (av_read_file(path, AV_MAX_INPUT_BYTES, &text, &len, &err)) fail_msg("%s", err.msg);
        files++;
        const TokPreset presets[] = {TOK_WORDS, TOK_GPT2, TOK_CHARS};
        for (int p = 0; p < 3; p++) {
            Model *m = seeded(presets[p], 1);
            TextFit fit;
            assert_int_equal(model_text_fit(m, &m->cfg, 0, 0, text, len, &fit, &err), 0);
            assert_true(fit.total > 500);
            const int counts[] = {1, 2, 3, 100, 653, 2048, 4096};
            for (int k = 0; k < 7; k++) {
                char what[600];
                snprintf(what, sizeof what, "%s preset %d first %d", e->d_name, p, counts[k]);
                check_cut(m, text, len, counts[k], what);
            }
            model_free(m);
        }
        free(text);
    }
    closedir(dir);
    assert_true(files >= 4);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fit_limits),
        cmocka_unit_test(test_not_for_other_sources),
        cmocka_unit_test(test_source_texts),
    };
    return cmocka_run_group_tests_name("textfit", tests, NULL, NULL);
}
