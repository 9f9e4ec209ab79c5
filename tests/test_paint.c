/* test_paint.c - mask-edit mode in the app: u undoes Space and C (u again
 * redoes), q asks once when painting is not written, W writes a file that is
 * read back and refuses standard input. */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app.h"
#include "canvas.h"
#include "mask.h"
#include "readfile.h"

static void key(App *a, uint32_t c) {
    AppKey k = {0, c};
    app_key(a, k);
    app_update(a);
}

static int hidden_count(const Model *m) {
    int n = 0;
    for (int i = 0; i < m->n_q; i++)
        for (int j = 0; j < m->n_k; j++) n += !model_painted_at(m, i, j);
    return n;
}

static void test_undo_space_and_clear(void **state) {
    (void)state;
    Model *m = tu_model("Bob saw Mary", NULL);
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    key(&a, 'u');
    assert_non_null(strstr(a.msg, "M starts mask-edit mode"));
    key(&a, 'M');
    key(&a, 'u');
    assert_non_null(strstr(a.msg, "nothing to undo"));
    key(&a, ' '); /* (0, 0) hidden */
    key(&a, 'l');
    key(&a, ' '); /* (0, 1) hidden */
    assert_int_equal(hidden_count(m), 2);
    key(&a, 'u'); /* (0, 1) shown again */
    assert_int_equal(hidden_count(m), 1);
    assert_int_equal(model_painted_at(m, 0, 1), 1);
    key(&a, 'u'); /* redo */
    assert_int_equal(hidden_count(m), 2);
    key(&a, 'C');
    assert_int_equal(hidden_count(m), 0);
    key(&a, 'u');
    assert_non_null(strstr(a.msg, "undone"));
    assert_int_equal(hidden_count(m), 2);
    assert_int_equal(model_painted_at(m, 0, 0), 0);
    assert_int_equal(model_painted_at(m, 0, 1), 0);
    key(&a, 'u'); /* the clear again */
    assert_int_equal(hidden_count(m), 0);
    key(&a, 'u');
    assert_int_equal(hidden_count(m), 2);
    /* the weights follow the undone grid */
    assert_int_equal(m->head[0].weights[1], 0.0f);
    app_free(&a);
    model_free(m);
}

/* M from the output stage, with the cursor on a d_v column past the keys and
 * the mask already painted: the cursor comes back onto a key (found by
 * fuzz_keys: the inspector read past the row; regress/keys/paint-from-output). */
static void test_paint_mode_clamps_cursor(void **state) {
    (void)state;
    Model *m = tu_model("Bob saw Mary", NULL); /* d_v 16 > 3 keys */
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    key(&a, 'M');
    key(&a, 'M'); /* mask=painted stays */
    assert_int_equal(m->cfg.mask, MASK_PAINTED);
    while (a.shown != TENSOR_OUTPUT) key(&a, 'v');
    AppKey end = {1, APP_KEY_END};
    app_key(&a, end);
    assert_int_equal(a.cj, m->cfg.d_v - 1);
    key(&a, 'M');
    assert_int_equal(a.shown, TENSOR_WEIGHTS);
    assert_true(a.cj < m->n_k);
    assert_true(a.ci < m->n_q);
    app_free(&a);
    model_free(m);
}

static void test_quit_asks_once(void **state) {
    (void)state;
    Model *m = tu_model("Bob saw Mary", NULL);
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    key(&a, 'q'); /* nothing painted: quits at once */
    assert_int_equal(a.quit, 1);
    a.quit = 0;
    key(&a, 'M');
    key(&a, ' ');
    key(&a, 'q');
    assert_int_equal(a.quit, 0);
    assert_non_null(strstr(a.msg, "not saved"));
    key(&a, 'j'); /* another key: the question is off */
    key(&a, 'q');
    assert_int_equal(a.quit, 0);
    key(&a, 'q');
    assert_int_equal(a.quit, 1);
    app_free(&a);
    model_free(m);
}

static void test_save_writes_and_cleans(void **state) {
    (void)state;
    char dir[] = "/tmp/attnviz-paint.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/m.txt", dir);
    Model *m = tu_model("Bob saw Mary", NULL);
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    a.mask_file = "-";
    key(&a, 'M');
    key(&a, ' ');
    key(&a, 'W');
    assert_non_null(strstr(a.msg, "standard input cannot be written"));
    assert_int_equal(access("-", F_OK), -1);
    a.mask_file = path;
    a.mask_comments = strdup("# kept\n");
    key(&a, 'W');
    assert_non_null(strstr(a.msg, "mask written to"));
    key(&a, 'q'); /* written: no question */
    assert_int_equal(a.quit, 1);
    char *buf;
    size_t len;
    AvError err = {0};
    assert_int_equal(av_read_file(path, AV_MAX_INPUT_BYTES, &buf, &len, &err), 0);
    assert_non_null(strstr(buf, "# kept\n0 1 1\n1 1 1\n1 1 1\n"));
    unsigned char *g;
    assert_int_equal(mask_parse_grid(&g, 3, 3, buf, len, path, &err), 0);
    assert_int_equal(g[0], 0);
    free(g);
    free(buf);
    /* a directory where the file should be: a message, and the painting is still unsaved */
    unlink(path);
    assert_int_equal(mkdir(path, 0755), 0);
    key(&a, ' ');
    key(&a, 'W');
    assert_non_null(strstr(a.msg, "not a regular file (a directory)"));
    a.quit = 0;
    key(&a, 'q');
    assert_int_equal(a.quit, 0);
    rmdir(path);
    rmdir(dir);
    app_free(&a);
    model_free(m);
}

/* The screen's last line as text. */
static char *last_line(App *a) {
    Canvas *cv = cv_new(80, 24);
    app_draw(a, cv);
    char *text = cv_render(cv, 0, TIER_NONE);
    cv_free(cv);
    char *nl = text ? strrchr(text, '\n') : NULL;
    while (nl && nl > text && nl[1] == '\0') { /* the last non-empty line */
        *nl = '\0';
        nl = strrchr(text, '\n');
    }
    char *line = strdup(nl ? nl + 1 : text ? text : "");
    free(text);
    return line;
}

/* M from the causal mask paints on top of it, and the hint line says the
 * mode is on for as long as it is. */
static void test_paint_starts_from_mask(void **state) {
    (void)state;
    ModelConfig c;
    model_config_default(&c);
    c.mask = MASK_CAUSAL;
    Model *m = tu_model("Bob saw Mary today", &c);
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    char *hints = last_line(&a);
    assert_null(strstr(hints, "MASK-EDIT"));
    free(hints);
    key(&a, 'M');
    assert_int_equal(m->cfg.mask, MASK_PAINTED);
    assert_non_null(strstr(a.msg, "from mask=causal"));
    for (int i = 0; i < m->n_q; i++)
        for (int j = 0; j < m->n_k; j++) assert_int_equal(model_painted_at(m, i, j), j <= i);
    assert_int_equal(m->head[0].weights[1], 0.0f); /* still causal: (0, 1) hidden */
    key(&a, 'j');
    key(&a, ' '); /* (1, 0) hidden as well */
    assert_int_equal(model_painted_at(m, 1, 0), 0);
    hints = last_line(&a);
    assert_non_null(strstr(hints, "MASK-EDIT"));
    assert_non_null(strstr(hints, "Space hide/show"));
    free(hints);
    key(&a, 'M');
    hints = last_line(&a);
    assert_null(strstr(hints, "MASK-EDIT"));
    free(hints);
    app_free(&a);
    model_free(m);
}

/* x: self -> causal-self -> (no target: cross refused) self gives back the
 * mask of before, not causal; a mask chosen in causal-self stays. */
static void test_attn_restores_mask(void **state) {
    (void)state;
    Model *m = tu_model("Bob saw Mary", NULL);
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    assert_int_equal(m->cfg.mask, MASK_NONE);
    key(&a, 'x');
    assert_int_equal(m->cfg.attn, ATTN_CAUSAL_SELF);
    assert_int_equal(m->cfg.mask, MASK_CAUSAL);
    key(&a, 'x');
    assert_int_equal(m->cfg.attn, ATTN_SELF);
    assert_int_equal(m->cfg.mask, MASK_NONE);
    key(&a, 'x');
    key(&a, 'm'); /* causal -> the next kind, chosen by hand */
    MaskKind chosen = m->cfg.mask;
    assert_int_not_equal(chosen, MASK_CAUSAL);
    key(&a, 'x');
    assert_int_equal(m->cfg.attn, ATTN_SELF);
    assert_int_equal(m->cfg.mask, chosen);
    app_free(&a);
    model_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_undo_space_and_clear), cmocka_unit_test(test_paint_starts_from_mask),
        cmocka_unit_test(test_attn_restores_mask),   cmocka_unit_test(test_paint_mode_clamps_cursor),
        cmocka_unit_test(test_quit_asks_once),       cmocka_unit_test(test_save_writes_and_cleans),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
