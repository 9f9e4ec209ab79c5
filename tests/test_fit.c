/* test_fit.c - issue 13 item 1: at 80x24 no line runs past the right edge.
 * Every view, stage, page (help at each scroll position, the cell page) and
 * prompt is drawn, for the seeded sentence (English and Korean), a Q/K/V file,
 * cross-attention and mask-edit mode; the canvas counts the text that was
 * cut at its edge (Canvas.clipped), here and in the page's own canvas. */
#include "testutil.h"

#include <curses.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>

#include "app.h"
#include "canvas.h"
#include "keycode.h"
#include "models.h"
#include "qkvfile.h"
#include "source_trained.h"

static void press(App *a, int c, int is_code) {
    AppKey k = {is_code, is_code ? keycode_from_curses(c) : (uint32_t)c};
    app_key(a, k);
    app_update(a);
}

static int failures;

/* Draws a at 80x24; reports each cut line with what was pressed. */
static void check(App *a, const char *what) {
    Canvas *cv = cv_new(80, 24);
    if (a->doc) a->doc->clipped = 0;
    app_draw(a, cv);
    int doc = a->doc ? a->doc->clipped : 0;
    if (cv->clipped || doc) {
        char *text = cv_render(cv, 0, TIER_NONE);
        int y = cv->clipped ? cv->clip_y : -1;
        const char *l = text;
        for (int r = 0; r < y && l; r++) l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL;
        printf("CUT at 80x24: %s: %d on screen (row %d: %.80s), %d in the page\n", what, cv->clipped, y, l ? l : "",
               doc);
        free(text);
        if (doc) {
            char *page = cv_render(a->doc, 0, TIER_NONE);
            const char *p = page;
            for (int r = 0; r < a->doc->clip_y && p; r++) p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL;
            const char *e = p ? strchr(p, '\n') : NULL;
            printf("    the page's row %d: %.*s\n", a->doc->clip_y, p ? (int)(e ? e - p : (long)strlen(p)) : 0,
                   p ? p : "");
            free(page);
        }
        failures++;
    }
    cv_free(cv);
}

static void every_stage(App *a, const char *name) {
    char what[128];
    for (int s = 0; s < 10; s++) {
        snprintf(what, sizeof what, "%s, heatmap, v x%d", name, s);
        check(a, what);
        press(a, 'v', 0);
    }
}

static void every_screen(Model *m, const char *name) {
    App a;
    app_init(&a, m, TIER_256, 0, 1, NULL);
    char what[128];
    every_stage(&a, name);
    static const struct {
        int key;
        const char *view;
    } views[] = {{'a', "all heads"}, {'c', "pipeline"}, {'g', "gravity"},
                 {'H', "census"},    {'A', "classes"},  {'Z', "zoom"}};
    for (size_t v = 0; v < sizeof views / sizeof *views; v++) {
        press(&a, views[v].key, 0);
        for (int page = 0; page < 12; page++) {
            snprintf(what, sizeof what, "%s, %s, page %d", name, views[v].view, page);
            check(&a, what);
            press(&a, KEY_NPAGE, 1);
        }
        press(&a, 27, 0);
    }
    press(&a, '?', 0);
    for (int page = 0; page < 8; page++) {
        snprintf(what, sizeof what, "%s, help, page %d", name, page);
        check(&a, what);
        press(&a, KEY_NPAGE, 1);
    }
    press(&a, 27, 0);
    for (int s = 0; s < 10; s++) {
        press(&a, '\r', 0);
        snprintf(what, sizeof what, "%s, cell page, stage %d", name, s);
        check(&a, what);
        press(&a, 27, 0);
        press(&a, 'v', 0);
    }
    static const int prompts[] = {'e', 'E', 'd', '/'};
    for (size_t p = 0; p < sizeof prompts / sizeof *prompts; p++) {
        press(&a, prompts[p], 0);
        snprintf(what, sizeof what, "%s, prompt %c", name, prompts[p]);
        check(&a, what);
        press(&a, 27, 0);
    }
    press(&a, 'M', 0);
    snprintf(what, sizeof what, "%s, mask-edit", name);
    check(&a, what);
    press(&a, ' ', 0);
    check(&a, what);
    press(&a, 'M', 0);
    app_free(&a);
}

static void test_nothing_cut(void **state) {
    (void)state;
    ModelConfig c;
    model_config_default(&c);
    Model *m = tu_model("the cat sat on the mat because the cat was tired", &c);
    every_screen(m, "seeded English");
    model_free(m);
    c.mask = MASK_CAUSAL;
    m = tu_model("나는 어제 친구와 영화를 봤는데, 그 영화는 정말 재미있었다", &c);
    every_screen(m, "seeded Korean, causal");
    AvError err = {0};
    if (model_set_target(m, "le chat dort", 12, &err) == 0) {
        ModelConfig x = m->cfg;
        x.attn = ATTN_CROSS;
        x.mask = MASK_NONE;
        assert_int_equal(model_set_config(m, &x, &err), 0);
        every_screen(m, "cross-attention");
    }
    model_free(m);
    /* A trained model: its layers x heads grid, census, real chain, RoPE'd
     * cell page and next-token panel. */
    char path[512];
    if (models_path(path, sizeof path, "stories260K.bin")) {
        m = tu_model("a", NULL);
        const char *text = "Lily saw a cat. Lily";
        assert_int_equal(model_set_trained(m, path, NULL, text, strlen(text), &err), 0);
        model_update(m, &err);
        App a;
        app_init(&a, m, TIER_256, 0, 1, NULL);
        press(&a, 'n', 0);
        check(&a, "stories260K, the next-token panel");
        app_free(&a);
        every_screen(m, "stories260K");
        model_free(m);
    }
    /* Hugging Face folders (tests/support/hf_fixture.py, with NumPy): GPT-2's
     * chain (LayerNorm, biases, GELU, no RoPE) and a Llama's (rotate-half). */
    int numpy = system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") == 0;
    char tmp[] = "/tmp/attnviz-fit-XXXXXX";
    if (!numpy) need_missing("the Hugging Face folders: /usr/bin/python3 with numpy not found");
    else if (mkdtemp(tmp)) {
        static const char *const kinds[] = {"gpt2", "llama"};
        for (int k = 0; k < 2; k++) {
            char cmd[1024], dir[600];
            snprintf(dir, sizeof dir, "%s/%s", tmp, kinds[k]);
            snprintf(cmd, sizeof cmd, "/usr/bin/python3 tests/support/hf_fixture.py write '%s' %s", dir, kinds[k]);
            assert_int_equal(system(cmd), 0);
            m = tu_model("a", NULL);
            const char *text = "When Mary and John went to the store, John gave a drink to Mary";
            if (model_set_trained(m, dir, NULL, text, strlen(text), &err)) fail_msg("%s: %s", kinds[k], err.msg);
            model_update(m, &err);
            App a;
            app_init(&a, m, TIER_256, 0, 1, NULL);
            press(&a, 'n', 0);
            snprintf(cmd, sizeof cmd, "Hugging Face %s, the next-token panel", kinds[k]);
            check(&a, cmd);
            app_free(&a);
            snprintf(cmd, sizeof cmd, "Hugging Face %s", kinds[k]);
            every_screen(m, cmd);
            model_free(m);
            snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
            assert_int_equal(system(cmd), 0);
        }
        rmdir(tmp);
    }
    if (failures) fail_msg("%d screens with a line cut at 80 columns", failures);
}

int main(void) {
    setlocale(LC_ALL, "C.UTF-8");
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_nothing_cut)};
    return cmocka_run_group_tests_name("fit", tests, NULL, NULL);
}
