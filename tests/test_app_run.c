/* test_app_run.c - the app driven by action names (app_run), as a test or a
 * lesson script would, without keys: each action changes what its key
 * changes, the status line shows it, and a bad name or argument is refused
 * with a message and nothing changed. */
#include "testutil.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>

#include "app.h"
#include "canvas.h"

static char *render(App *a, int w, int h) {
    Canvas *cv = cv_new(w, h);
    app_draw(a, cv);
    char *s = cv_render(cv, 0, TIER_NONE);
    cv_free(cv);
    return s;
}

/* Line n (0-based) of a rendered screen, in a static buffer. */
static const char *line(const char *screen, int n) {
    static char buf[2048];
    const char *p = screen;
    for (int i = 0; i < n && p; i++) {
        p = strchr(p, '\n');
        if (p) p++;
    }
    if (!p) return "";
    const char *e = strchr(p, '\n');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len >= sizeof buf) len = sizeof buf - 1;
    memcpy(buf, p, len);
    buf[len] = '\0';
    return buf;
}

/* Runs an action (then the recompute of the next frame) and returns line n. */
static const char *run_line(App *a, const char *action, const char *arg, int n) {
    assert_int_equal(app_run(a, action, arg), 0);
    char *s = render(a, 80, 24);
    static char out[2048];
    snprintf(out, sizeof out, "%s", line(s, n));
    free(s);
    return out;
}

static Model *sample_model(void) {
    ModelConfig c;
    model_config_default(&c);
    return tu_model("the cat sat on the mat because the cat was tired", &c);
}

static void test_actions_by_name(void **state) {
    (void)state;
    Model *m = sample_model();
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    char *s = render(&a, 80, 24);
    assert_non_null(strstr(line(s, 0), "mask=none"));
    assert_non_null(strstr(line(s, 0), "scale=on"));
    free(s);

    assert_non_null(strstr(run_line(&a, "mask", NULL, 0), "mask=causal"));
    assert_non_null(strstr(a.msg, "mask=causal"));
    assert_int_equal(m->cfg.mask, MASK_CAUSAL);
    assert_non_null(strstr(run_line(&a, "scale", NULL, 0), "scale=off"));
    assert_int_equal(m->cfg.scale, 0);
    assert_non_null(strstr(a.msg, "scaling off"));

    /* head N is 1-based as the keys; the argument may follow the name. */
    assert_non_null(strstr(run_line(&a, "head", "2", 1), "head 2/4"));
    assert_int_equal(a.head, 1);
    assert_non_null(strstr(run_line(&a, "head 3", NULL, 1), "head 3/4"));
    assert_int_equal(a.head, 2);

    assert_int_equal(a.shown, TENSOR_WEIGHTS);
    assert_non_null(strstr(run_line(&a, "stage", NULL, 1), "raw scores"));
    assert_int_equal(a.shown, TENSOR_SCORES);

    assert_non_null(strstr(run_line(&a, "view", "pipeline", 1), "the whole chain"));
    assert_int_equal(a.view, VIEW_PIPELINE);
    assert_non_null(strstr(run_line(&a, "view gravity", NULL, 1), "word gravity"));
    assert_int_equal(a.view, VIEW_GRAVITY);
    assert_non_null(strstr(run_line(&a, "view", "heatmap", 1), "head 3/4"));
    assert_int_equal(a.view, VIEW_HEATMAP);

    /* dk N sets d_k at once; without an argument the prompt opens. */
    assert_non_null(strstr(run_line(&a, "dk", "8", 0), "d_k=8"));
    assert_int_equal(m->cfg.d_k, 8);
    assert_int_equal(app_run(&a, "dk", NULL), 0);
    assert_int_equal(a.prompt, PROMPT_DK);
    assert_int_equal(app_run(&a, "mask", NULL), -1); /* not while a prompt is open */
    assert_non_null(strstr(a.msg, "prompt"));
    AppKey esc = {0, 27};
    app_key(&a, esc);
    assert_int_equal(a.prompt, PROMPT_NONE);

    /* Pages: help opens and closes by name, as ? and q do. */
    assert_int_equal(app_run(&a, "help", NULL), 0);
    assert_int_equal(a.overlay, OVERLAY_HELP);
    assert_int_equal(app_run(&a, "quit", NULL), 0);
    assert_int_equal(a.overlay, OVERLAY_NONE);
    assert_false(a.quit);
    app_free(&a);
    model_free(m);
}

/* Field by field (a struct's padding is not a value: memcmp read it). */
static int same_config(const ModelConfig *a, const ModelConfig *b) {
    return a->d_model == b->d_model && a->heads == b->heads && a->d_k == b->d_k && a->d_v == b->d_v &&
           a->seed == b->seed && a->mask == b->mask && a->window == b->window && a->prefix == b->prefix &&
           a->scale == b->scale && a->pos == b->pos && a->score == b->score && a->tie_qk == b->tie_qk &&
           a->attn == b->attn && a->layers == b->layers;
}

static void test_bad_names_and_arguments(void **state) {
    (void)state;
    Model *m = sample_model();
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    ModelConfig before = m->cfg;
    assert_int_equal(app_run(&a, "no-such-action", NULL), -1);
    assert_non_null(strstr(a.msg, "unknown action 'no-such-action'"));
    assert_true(a.msg_error);
    assert_int_equal(app_run(&a, NULL, NULL), -1);
    assert_int_equal(app_run(&a, "scale", "on"), -1); /* scale takes no argument */
    assert_non_null(strstr(a.msg, "scale takes no argument"));
    assert_int_equal(app_run(&a, "head", "9"), -1); /* 4 heads */
    assert_non_null(strstr(a.msg, "only 4 heads"));
    assert_int_equal(app_run(&a, "head", "x"), -1);
    assert_int_equal(app_run(&a, "head", NULL), -1);
    assert_int_equal(a.head, 0);
    assert_int_equal(app_run(&a, "view", "nowhere"), -1);
    assert_int_equal(a.view, VIEW_HEATMAP);
    assert_int_equal(app_run(&a, "dk", "0"), -1);
    assert_int_equal(app_run(&a, "dk", "8x"), -1);
    assert_true(same_config(&before, &m->cfg));
    /* Painting needs mask-edit mode, as Space does. */
    assert_int_equal(app_run(&a, "paint-toggle", NULL), 0);
    assert_non_null(strstr(a.msg, "M starts mask-edit mode"));
    app_free(&a);
    model_free(m);
}

/* A key and its action by name give the same screen. */
static void test_keys_and_names_agree(void **state) {
    (void)state;
    static const struct {
        uint32_t key;
        const char *action;
    } pairs[] = {{'m', "mask"},     {'s', "scale"},   {'v', "stage"},  {'\t', "next-head"}, {'a', "all-heads"},
                 {'c', "pipeline"}, {'g', "gravity"}, {'3', "head 3"}, {'r', "seed"},       {'p', "pos"},
                 {'o', "score"},    {'x', "attn"},    {'T', "tie"},    {'+', "dk-double"},  {'>', "heads-more"}};
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
        Model *m1 = sample_model(), *m2 = sample_model();
        App a1, a2;
        app_init(&a1, m1, TIER_NONE, 0, 1, NULL);
        app_init(&a2, m2, TIER_NONE, 0, 1, NULL);
        AppKey k = {0, pairs[i].key};
        app_key(&a1, k);
        assert_int_equal(app_run(&a2, pairs[i].action, NULL), 0);
        char *s1 = render(&a1, 80, 24), *s2 = render(&a2, 80, 24);
        if (strcmp(s1, s2) != 0)
            fail_msg("key %u and action '%s' differ:\n%s\n%s", pairs[i].key, pairs[i].action, s1, s2);
        free(s1);
        free(s2);
        app_free(&a1);
        app_free(&a2);
        model_free(m1);
        model_free(m2);
    }
}

/* The loop's timeout: none unless asked; a tick spends the request and,
 * with nothing that ticks yet, changes nothing on the screen. */
static void test_wake_and_tick(void **state) {
    (void)state;
    Model *m = sample_model();
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    assert_int_equal(app_wake_ms(&a), -1);
    a.wake_ms = 250;
    assert_int_equal(app_wake_ms(&a), 250);
    char *before = render(&a, 80, 24);
    assert_int_equal(app_tick(&a), 0);
    assert_int_equal(app_wake_ms(&a), -1); /* one tick per request */
    assert_int_equal(app_tick(&a), 0);     /* a late one is harmless */
    assert_int_equal(app_wake_ms(&a), -1);
    char *after = render(&a, 80, 24);
    assert_string_equal(before, after);
    free(before);
    free(after);
    a.wake_ms = -5; /* not a time: no timeout */
    assert_int_equal(app_wake_ms(&a), -1);
    app_free(&a);
    model_free(m);
}

static int setup(void **state) {
    (void)state;
    return setlocale(LC_ALL, "C.UTF-8") ? 0 : -1;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_actions_by_name),
        cmocka_unit_test(test_bad_names_and_arguments),
        cmocka_unit_test(test_keys_and_names_agree),
        cmocka_unit_test(test_wake_and_tick),
    };
    return cmocka_run_group_tests_name("app_run", tests, setup, NULL);
}
