/* test_pipeline_keys.c - the pipeline view of issue 13 (items 8 and 17):
 * cross-attention shows the queries' side (the target's tokens, ids, E, PE
 * and X, and Q = X_target W_Q), causal-self attention on a target shows the
 * target's chain; [ and ] put the previous or next stage at the top of the
 * screen, whose footer names it; -> scrolls the blocks' columns while their
 * titles and token labels stay put. At 80x24, on the seeded sentence and on
 * stories260K when ../shared/models has it. */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "app.h"
#include "canvas.h"
#include "models.h"
#include "source_trained.h"

static char *render(App *a, int w, int h) {
    Canvas *cv = cv_new(w, h);
    assert_non_null(cv);
    app_draw(a, cv);
    char *s = cv_render(cv, 0, TIER_NONE);
    cv_free(cv);
    return s;
}

/* Row n (0-based) of a rendered screen, in a buffer of the caller's. */
static const char *row(const char *screen, int n, char *buf, size_t cap) {
    const char *p = screen;
    for (int i = 0; i < n && p; i++)
        if ((p = strchr(p, '\n'))) p++;
    if (!p) p = "";
    const char *e = strchr(p, '\n');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len >= cap) len = cap - 1;
    memcpy(buf, p, len);
    buf[len] = '\0';
    return buf;
}

/* The row of the screen just below `title`'s line plus `below` (0: the title's). */
static const char *row_after(const char *screen, const char *title, int below, char *buf, size_t cap) {
    const char *t = strstr(screen, title);
    if (!t) fail_msg("no '%s' on the screen:\n%s", title, screen);
    int n = 0;
    for (const char *p = screen; p < t; p++) n += *p == '\n';
    return row(screen, n + below, buf, cap);
}

static void press(App *a, uint32_t c, int is_code) {
    AppKey k = {is_code, c};
    app_key(a, k);
    app_update(a);
}

static void has(const char *s, const char *want) {
    if (!strstr(s, want)) fail_msg("the screen lacks '%s':\n%s", want, s);
}

static int starts(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

/* A model of `text` whose queries are `target` under attention mode attn, PE on. */
static Model *target_model(const char *text, const char *target, AttnMode attn) {
    ModelConfig c;
    model_config_default(&c);
    c.pos = POS_SINUSOIDAL;
    Model *m = tu_model(text, &c);
    AvError err = {0};
    if (model_set_target(m, target, strlen(target), &err)) fail_msg("%s", err.msg);
    c = m->cfg;
    c.attn = attn;
    if (model_set_config(m, &c, &err) || model_update(m, &err)) fail_msg("%s", err.msg);
    return m;
}

// ----------------------------------------------------------------------------
// item 8: the queries' side

static void test_cross_shows_the_target(void **state) {
    (void)state;
    Model *m = target_model("the cat sleeps", "le chat le dort", ATTN_CROSS);
    assert_int_equal(m->n_q, 4);
    assert_int_equal(m->n_k, 3);
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    a.view = VIEW_PIPELINE;
    char *s = render(&a, 100, app_natural_height(&a, 100));
    char buf[512], want[64];
    has(s, "sentence tokens → ids  (3)");
    has(s, "target tokens → ids  (4)");
    /* The target's ids are of its own vocabulary: le is 0 both times. */
    const char *tokens[] = {"le", "chat", "le", "dort"};
    const int ids[] = {0, 1, 0, 2};
    for (int i = 0; i < 4; i++) {
        snprintf(want, sizeof want, "%-17s→ %d", tokens[i], ids[i]);
        assert_string_equal(row_after(s, "target tokens → ids  (4)", 2 + i, buf, sizeof buf), want);
    }
    has(s, "E = embedding(sentence ids)  (3, 64)");
    has(s, "E_target = embedding(target ids)  (4, 64)");
    has(s, "PE_target  (4, 64)");
    /* X_target's rows are the target's tokens and hold m->xq, not m->x. */
    const char *x = "X_target = E_target + PE_target  (4, 64)";
    for (int i = 0; i < 4; i++) {
        row_after(s, x, 2 + i, buf, sizeof buf);
        if (!starts(buf, tokens[i])) fail_msg("row %d of X_target: '%s'", i, buf);
        for (int j = 0; j < 3; j++) {
            snprintf(want, sizeof want, "%.2f", fabs(m->xq[i * 64 + j]));
            if (!strstr(buf, want))
                fail_msg("row %d of X_target lacks X_target[%d][%d] = %s: '%s'", i, i, j, want, buf);
        }
    }
    /* Q comes from the target, K and V from the sentence. */
    has(s, "Q = X_target W_Q  (4, 16)");
    has(s, "K = X W_K  (3, 16)");
    has(s, "V = X W_V  (3, 16)");
    assert_true(starts(row_after(s, "Q = X_target W_Q", 3, buf, sizeof buf), "chat"));
    assert_true(starts(row_after(s, "K = X W_K", 3, buf, sizeof buf), "cat"));
    free(s);
    app_free(&a);
    model_free(m);
}

static void test_causal_self_on_a_target(void **state) {
    (void)state;
    Model *m = target_model("the cat sleeps", "le chat dort", ATTN_CAUSAL_SELF);
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    a.view = VIEW_PIPELINE;
    char *s = render(&a, 100, app_natural_height(&a, 100));
    char buf[512];
    has(s, "target tokens → ids  (3)");
    has(s, "X_target = E_target + PE_target  (3, 64)");
    has(s, "Q = X_target W_Q  (3, 16)");
    has(s, "K = X_target W_K  (3, 16)");
    has(s, "V = X_target W_V  (3, 16)");
    assert_null(strstr(s, "sentence tokens"));
    assert_true(starts(row_after(s, "K = X_target W_K", 2, buf, sizeof buf), "le"));
    free(s);
    app_free(&a);
    model_free(m);
}

// ----------------------------------------------------------------------------
// item 17: [ and ] jump a stage, frozen labels

enum { TOP = 3, FOOT = 21 }; /* at 80x24: the first row of the page, its footer */

static void test_jump_keys(void **state) {
    (void)state;
    ModelConfig c;
    model_config_default(&c);
    Model *m = tu_model("the cat sat on the mat because the cat was tired", &c);
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    press(&a, 'c', 0);
    assert_int_equal(a.view, VIEW_PIPELINE);
    char buf[512];
    char *s = render(&a, 80, 24);
    has(row(s, 1, buf, sizeof buf), "[ ]: stage");
    free(s);
    /* At 80 columns every block has a row of its own: ] walks them in order. */
    const char *chain[] = {"tokens → ids  (11)",
                           "E = embedding(ids)  (11, 64)",
                           "W_Q  (64, 16)",
                           "W_K  (64, 16)",
                           "W_V  (64, 16)",
                           "Q = X W_Q  (11, 16)",
                           "K = X W_K  (11, 16)",
                           "V = X W_V  (11, 16)",
                           "S = QKᵀ  (11, 11)",
                           "S' = S ÷ √16  (11, 11)",
                           "A = softmax(S')  (11, 11)"};
    int n = (int)(sizeof chain / sizeof *chain);
    for (int k = 0; k < n; k++) {
        s = render(&a, 80, 24);
        assert_string_equal(row(s, TOP, buf, sizeof buf), chain[k]);
        char want[128];
        snprintf(want, sizeof want, " [ ] stage %d/15: %s", k + 1, chain[k]);
        if (!starts(row(s, FOOT, buf, sizeof buf), want)) fail_msg("footer '%s', expected '%s'", buf, want);
        has(buf, " lines ");
        free(s);
        press(&a, ']', 0);
    }
    /* [ goes back one stage at a time (from O, where the last ] went). */
    for (int k = n - 1; k >= n - 3; k--) {
        press(&a, '[', 0);
        s = render(&a, 80, 24);
        assert_string_equal(row(s, TOP, buf, sizeof buf), chain[k]);
        free(s);
    }
    /* From the end (Y's title cannot reach the top), [ puts W_O there. */
    press(&a, APP_KEY_END, 1);
    s = render(&a, 80, 24);
    has(s, "Y = concat W_O  (11, 64)");
    free(s);
    press(&a, '[', 0);
    s = render(&a, 80, 24);
    assert_string_equal(row(s, TOP, buf, sizeof buf), "W_O  (64, 64)");
    free(s);
    /* Home: the top again; [ there stays. */
    press(&a, APP_KEY_HOME, 1);
    press(&a, '[', 0);
    s = render(&a, 80, 24);
    assert_string_equal(row(s, TOP, buf, sizeof buf), chain[0]);
    free(s);
    /* In the pipeline [ and ] leave the mask alone. */
    assert_int_equal(m->cfg.window, c.window);
    app_free(&a);
    model_free(m);
}

static void test_frozen_labels(void **state) {
    (void)state;
    ModelConfig c;
    model_config_default(&c);
    Model *m = tu_model("the cat sat on the mat because the cat was tired", &c);
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    press(&a, 'c', 0);
    char buf[512], want[32];
    char *s = render(&a, 80, 24);
    free(s);
    press(&a, ']', 0); /* E at the top */
    s = render(&a, 80, 24);
    assert_true(starts(row(s, TOP + 1, buf, sizeof buf), "              0      1"));
    has(buf, "+55");
    free(s);
    press(&a, APP_KEY_RIGHT, 1);
    s = render(&a, 80, 24);
    assert_string_equal(row(s, TOP, buf, sizeof buf), "E = embedding(ids)  (11, 64)");
    /* The header says 4 columns are to the left, and starts at column 4. */
    assert_true(starts(row(s, TOP + 1, buf, sizeof buf), "<4            4      5"));
    has(buf, "+51");
    const char *tokens[] = {"the", "cat", "sat"};
    for (int i = 0; i < 3; i++) {
        row(s, TOP + 2 + i, buf, sizeof buf);
        if (!starts(buf, tokens[i])) fail_msg("row %d after ->: '%s'", i, buf);
        snprintf(want, sizeof want, "%.2f", fabs(m->embed[i * 64 + 4]));
        if (!strstr(buf, want)) fail_msg("row %d lacks E[%d][4] = %s: '%s'", i, i, want, buf);
    }
    has(row(s, FOOT, buf, sizeof buf), "cols 5+");
    free(s);
    /* As far as the widest block on the screen goes, then no further. */
    for (int k = 0; k < 30; k++) press(&a, APP_KEY_RIGHT, 1);
    s = render(&a, 80, 24);
    assert_true(starts(row(s, TOP + 1, buf, sizeof buf), "<55          55"));
    assert_null(strstr(buf, "+"));
    assert_true(starts(row(s, TOP + 2, buf, sizeof buf), "the"));
    free(s);
    /* <- comes back at once, even after a block that scrolls less. */
    press(&a, ']', 0); /* W_Q: 16 columns, 7 hidden */
    s = render(&a, 80, 24);
    assert_true(starts(row(s, TOP + 1, buf, sizeof buf), "<7"));
    free(s);
    press(&a, APP_KEY_LEFT, 1);
    s = render(&a, 80, 24);
    assert_true(starts(row(s, TOP + 1, buf, sizeof buf), "<3"));
    free(s);
    press(&a, APP_KEY_LEFT, 1);
    s = render(&a, 80, 24);
    assert_true(starts(row(s, TOP + 1, buf, sizeof buf), "              0      1"));
    free(s);
    app_free(&a);
    model_free(m);
}

/* A trained model's chain: the same keys (mask none here: no M block). */
static void test_model_chain_keys(void **state) {
    (void)state;
    char path[512];
    if (!models_path(path, sizeof path, "stories260K.bin")) return;
    Model *m = tu_model("a", NULL);
    AvError err = {0};
    const char *text = "Lily saw a cat. Lily";
    if (model_set_trained(m, path, NULL, text, strlen(text), &err) || model_update(m, &err)) fail_msg("%s", err.msg);
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    press(&a, 'c', 0);
    char buf[512];
    char *s = render(&a, 80, 24);
    assert_string_equal(row(s, TOP, buf, sizeof buf), "x: the input of layer 1  (8, 64)");
    has(row(s, FOOT, buf, sizeof buf), " [ ] stage 1/22: x: the input of layer 1");
    free(s);
    press(&a, ']', 0);
    press(&a, ']', 0);
    press(&a, ']', 0);
    s = render(&a, 80, 24);
    assert_string_equal(row(s, TOP, buf, sizeof buf), "K = xb W_kᵀ  (8, 32)");
    free(s);
    press(&a, APP_KEY_RIGHT, 1);
    press(&a, APP_KEY_RIGHT, 1);
    s = render(&a, 80, 24);
    assert_string_equal(row(s, TOP, buf, sizeof buf), "K = xb W_kᵀ  (8, 32)");
    assert_true(starts(row(s, TOP + 1, buf, sizeof buf), "<8"));
    assert_true(starts(row(s, TOP + 2, buf, sizeof buf), "<s>"));
    assert_true(starts(row(s, TOP + 3, buf, sizeof buf), "▁Lily"));
    free(s);
    /* On to S = QKᵀ, the head's scores: 8 columns, none hidden. */
    for (int k = 0; k < 8; k++) press(&a, ']', 0);
    s = render(&a, 80, 24);
    assert_string_equal(row(s, TOP, buf, sizeof buf), "S = QKᵀ  (8, 8)");
    has(row(s, FOOT, buf, sizeof buf), " [ ] stage 12/22: S = QKᵀ  (8, 8)");
    free(s);
    app_free(&a);
    model_free(m);
}

int main(void) {
    setlocale(LC_ALL, "C.UTF-8");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cross_shows_the_target),
        cmocka_unit_test(test_causal_self_on_a_target),
        cmocka_unit_test(test_jump_keys),
        cmocka_unit_test(test_frozen_labels),
        cmocka_unit_test(test_model_chain_keys),
    };
    return cmocka_run_group_tests_name("pipeline keys", tests, NULL, NULL);
}
