/* test_views.c - the screens on the text back end of the canvas: golden
 * screens at 80x24 and 200x50, what keys do to the app (and which stages they
 * recompute), the key table, and the canvas itself.
 *
 * Golden files live in tests/golden/; UPDATE_GOLDEN=1 rewrites them (review
 * the diff like code). */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"

#include <curses.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>

#include "app.h"
#include "chrome.h"
#include "gravity.h"
#include "canvas.h"
#include "keycode.h"
#include "keymap.h"
#include "palette.h"
#include "widgets.h"
#include "text.h"
#include "utf8.h"

static char *render(App *a, int w, int h) {
    Canvas *cv = cv_new(w, h);
    app_draw(a, cv);
    char *s = cv_render(cv, 0, TIER_NONE);
    cv_free(cv);
    return s;
}

static char *line(const char *screen, int n) {
    static char buf[2048];
    const char *p = screen;
    for (int i = 0; i < n && p; i++) {
        p = strchr(p, '\n');
        if (p) p++;
    }
    if (!p) return strcpy(buf, "");
    const char *e = strchr(p, '\n');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len >= sizeof buf) len = sizeof buf - 1;
    memcpy(buf, p, len);
    buf[len] = '\0';
    return buf;
}

static void golden(const char *name, const char *got) {
    char path[256];
    snprintf(path, sizeof path, "tests/golden/%s", name);
    if (getenv("UPDATE_GOLDEN")) {
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(got, f);
        fclose(f);
        return;
    }
    FILE *f = fopen(path, "r");
    if (!f) fail_msg("missing golden file %s (run with UPDATE_GOLDEN=1)", path);
    char *want = NULL;
    size_t cap = 0;
    ssize_t n = getdelim(&want, &cap, '\0', f);
    fclose(f);
    assert_true(n >= 0);
    if (strcmp(want, got) != 0) {
        fprintf(stderr, "--- %s (expected)\n%s--- got\n%s", path, want, got);
        free(want);
        fail_msg("screen differs from %s", path);
    }
    free(want);
}

/* A key as the app gets it, then the recompute the next frame would do. */
static int press(App *a, AppKey k) {
    int r = app_key(a, k);
    app_update(a);
    return r;
}

static AppKey ch(uint32_t c) {
    AppKey k = {0, c};
    return k;
}
static AppKey code(int c) {
    AppKey k = {1, keycode_from_curses(c)};
    return k;
}

static void type(App *a, const char *s) {
    for (const char *p = s; *p;) {
        uint32_t cp;
        int n = utf8_decode(p, strlen(p), &cp);
        press(a, ch(cp));
        p += n;
    }
}

static Model *sample_model(const char *text) {
    ModelConfig c;
    model_config_default(&c);
    return tu_model(text, &c);
}

// ----------------------------------------------------------------------------
// golden screens

static void test_golden_heatmap(void **state) {
    (void)state;
    Model *m = sample_model("the cat sat on the mat because the cat was tired");
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    a.enforce_min = 1;
    char *s = render(&a, 80, 24);
    golden("heatmap-80x24.txt", s);
    free(s);
    press(&a, ch('m'));
    s = render(&a, 200, 50);
    golden("heatmap-causal-200x50.txt", s);
    free(s);
    app_free(&a);
    model_free(m);
}

static void test_golden_korean_ascii(void **state) {
    (void)state;
    Model *m = sample_model("나는 어제 친구와 영화를 봤는데, 그 영화는 정말 재미있었다");
    App a;
    app_init(&a, m, TIER_NONE, 1, 1, NULL);
    press(&a, ch('m'));
    char *s = render(&a, 80, 24);
    golden("heatmap-korean-ascii-80x24.txt", s);
    free(s);
    app_free(&a);
    model_free(m);
}

/* Korean at 80x24, where the key labels do not fit whole: each column is
 * named by its position and first syllable (영화를 is "3영", 영화는 "7영":
 * no longer alike), and the row under them spells out the cursor's token. */
static void test_golden_korean(void **state) {
    (void)state;
    Model *m = sample_model("나는 어제 친구와 영화를 봤는데, 그 영화는 정말 재미있었다");
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    a.enforce_min = 1;
    for (int k = 0; k < 7; k++) press(&a, ch('l'));
    for (int k = 0; k < 8; k++) press(&a, ch('j'));
    char *s = render(&a, 80, 24);
    golden("heatmap-korean-80x24.txt", s);
    assert_non_null(strstr(line(s, 3), "3영  4봤  5,   6그  7영  8정"));
    /* the cursor's key in full under its column (column 7 starts at 11 + 7 * 5) */
    const char *under = line(s, 4);
    assert_non_null(strstr(under, "영화는"));
    assert_int_equal(text_width(under, (size_t)(strstr(under, "영화는") - under)), 11 + 7 * 5);
    free(s);
    app_free(&a);
    model_free(m);
}

static void test_golden_heads(void **state) {
    (void)state;
    Model *m = sample_model("나는 학교에 간다");
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    press(&a, ch('a'));
    press(&a, ch('\t'));
    char *s = render(&a, 80, 24);
    golden("heads-80x24.txt", s);
    free(s);
    s = render(&a, 200, 50);
    golden("heads-200x50.txt", s);
    free(s);
    app_free(&a);
    model_free(m);
}

static Model *worked_model(void) {
    QkvData d;
    AvError err = {0};
    if (qkv_load(&d, "samples/worked-example.qkv", &err)) fail_msg("%s", err.msg);
    Model *m = model_new();
    if (model_set_qkv(m, &d, &err) || model_update(m, &err)) fail_msg("%s", err.msg);
    return m;
}

/* The pipeline of the worked example: the chain as the source text sets it
 * out, with shapes and the correct values (arithmetic, not the text's). */
static void test_golden_pipeline(void **state) {
    (void)state;
    Model *m = worked_model();
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    a.view = VIEW_PIPELINE;
    char *s = render(&a, 80, 24);
    golden("pipeline-worked-80x24.txt", s);
    assert_non_null(strstr(s, "Q  (3, 3)"));
    assert_non_null(strstr(s, "S = QKᵀ  (3, 3)"));
    assert_non_null(strstr(s, "S' = S ÷ √3  (3, 3)"));
    assert_non_null(strstr(s, "A = softmax(S')  (3, 3)"));
    assert_non_null(strstr(s, "0.30 ░ 0.34 ░ 0.36  1.000")); /* row 0 of A */
    assert_non_null(strstr(s, "0.20 : 0.46 : 0.55"));        /* row 0 of S: 0.20, not 0.26 */
    free(s);
    s = render(&a, 120, 40);
    golden("pipeline-worked-120x40.txt", s);
    assert_non_null(strstr(s, "O = A V  (3, 3)"));
    assert_non_null(strstr(s, "0.62 # 0.52 # 0.49")); /* row 0 of O */
    free(s);
    app_free(&a);
    model_free(m);
}

/* Issue 11 restructures views and overlays into a table: these three screens
 * are recorded first so that the move can be seen to change nothing. */
static void test_golden_help(void **state) {
    (void)state;
    Model *m = sample_model("the cat sat on the mat because the cat was tired");
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    press(&a, ch('?'));
    assert_int_equal(a.overlay, OVERLAY_HELP);
    char *s = render(&a, 80, 24);
    golden("help-80x24.txt", s);
    free(s);
    s = render(&a, 200, 50);
    golden("help-200x50.txt", s);
    free(s);
    app_free(&a);
    model_free(m);
}

/* The cell page off the diagonal, under a causal mask, on head 2: a cell
 * whose numbers depend on the head, the mask and the row's other keys. */
static void test_golden_cell(void **state) {
    (void)state;
    Model *m = sample_model("the cat sat on the mat because the cat was tired");
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    press(&a, ch('m'));
    press(&a, ch('\t'));
    press(&a, code(KEY_DOWN));
    press(&a, code(KEY_DOWN));
    press(&a, code(KEY_DOWN));
    press(&a, code(KEY_RIGHT)); /* (3, 1): on -> cat */
    press(&a, ch('\r'));
    assert_int_equal(a.overlay, OVERLAY_CELL);
    char *s = render(&a, 80, 24);
    golden("cell-80x24.txt", s);
    free(s);
    s = render(&a, 200, 50);
    golden("cell-200x50.txt", s);
    free(s);
    app_free(&a);
    model_free(m);
}

/* Gravity of one head, then (g again) of the whole layer. */
static void test_golden_gravity(void **state) {
    (void)state;
    Model *m = sample_model("the cat sat on the mat because the cat was tired");
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    press(&a, ch('g'));
    assert_int_equal(a.view, VIEW_GRAVITY);
    assert_false(gravity_all_heads(&a));
    char *s = render(&a, 80, 24);
    golden("gravity-80x24.txt", s);
    free(s);
    s = render(&a, 200, 50);
    golden("gravity-200x50.txt", s);
    free(s);
    press(&a, ch('g'));
    assert_int_equal(a.view, VIEW_GRAVITY);
    assert_true(gravity_all_heads(&a));
    s = render(&a, 200, 50);
    golden("gravity-layer-200x50.txt", s);
    free(s);
    app_free(&a);
    model_free(m);
}

static void test_pipeline_text_model(void **state) {
    (void)state;
    ModelConfig c = tu_config(4, 2, 4, 4);
    c.pos = POS_SINUSOIDAL;
    c.mask = MASK_CAUSAL;
    Model *m = tu_model("나는 회사에 간다.", &c);
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    a.view = VIEW_PIPELINE;
    press(&a, ch('\t')); /* head 2 */
    int h = app_natural_height(&a, 100);
    char *s = render(&a, 100, h);
    const char *want[] = {"head 2/2",
                          "tokens → ids  (4)",
                          "E = embedding(ids)  (4, 4)",
                          "PE  (4, 4)",
                          "X = E + PE  (4, 4)",
                          "W_Q  (4, 4)",
                          "Q = X W_Q  (4, 4)",
                          "S = QKᵀ  (4, 4)",
                          "M = mask(S'), causal  (4, 4)",
                          "A = softmax(M)  (4, 4)",
                          "O = A V  (4, 4)",
                          "concat(O_1..O_2)  (4, 8)",
                          "W_O  (8, 4)",
                          "Y = concat W_O  (4, 4)",
                          "회사에"};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        if (!strstr(s, want[i])) fail_msg("pipeline lacks '%s':\n%s", want[i], s);
    free(s);
    app_free(&a);
    model_free(m);
}

/* Enter: the arithmetic of the cursor's cell adds up to the weight shown. */
static void test_cell_arithmetic(void **state) {
    (void)state;
    Model *m = worked_model();
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    press(&a, code(KEY_DOWN));
    press(&a, code(KEY_RIGHT)); /* (1, 1): 학교에 -> 학교에 */
    press(&a, ch('\r'));
    assert_int_equal(a.overlay, OVERLAY_CELL);
    char *s = render(&a, 100, 40);
    /* q_1 = (0.4 0.2 0.6), k_1 = (0.5 0.7 0.4): products 0.20 0.14 0.24, sum 0.58 */
    assert_non_null(strstr(s, "* 0.40 : 0.20 # 0.60"));
    assert_non_null(strstr(s, "* 0.50 # 0.70 * 0.40"));
    assert_non_null(strstr(s, "# 0.20 * 0.14 # 0.24"));
    assert_non_null(strstr(s, "q·k          Σ of the products = 0.5800"));
    assert_non_null(strstr(s, "raw score     q·k = 0.5800"));
    assert_non_null(strstr(s, "s = 0.5800 ÷ √3 (= 1.7321) = 0.3349"));
    assert_non_null(strstr(s, "weight        "));
    assert_non_null(strstr(s, "= 0.3300")); /* A[1][1] = 0.3300248 */
    assert_non_null(strstr(s, "entropy"));
    free(s);
    press(&a, ch(27));
    assert_int_equal(a.overlay, OVERLAY_NONE);
    app_free(&a);
    model_free(m);
}

// ----------------------------------------------------------------------------
// screens: what must be on them

static void test_status_and_title(void **state) {
    (void)state;
    Model *m = sample_model("Mary greeted Bob");
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    char *s = render(&a, 80, 24);
    assert_non_null(strstr(line(s, 0), "d_model=64 heads=4 d_k=16 mask=none scale=on pos=none seed=42"));
    assert_non_null(strstr(line(s, 1), "head 1/4"));
    assert_non_null(strstr(line(s, 1), "weights"));
    assert_non_null(strstr(line(s, 2), "score=scaled attn=self")); /* the variants */
    assert_non_null(strstr(line(s, 2), "3 tokens, words"));
    assert_non_null(strstr(line(s, 3), "Mary"));
    assert_non_null(strstr(s, "1.000"));            /* the row sum */
    assert_non_null(strstr(line(s, 23), "q quit")); /* hints */
    free(s);
    app_free(&a);
    model_free(m);
}

static void test_too_small(void **state) {
    (void)state;
    Model *m = sample_model("Mary greeted Bob");
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    a.enforce_min = 1;
    char *s = render(&a, 60, 20);
    assert_non_null(strstr(s, "terminal too small: need 80x24, have 60x20"));
    free(s);
    s = render(&a, 24, 6); /* narrower than the message: two lines */
    assert_non_null(strstr(s, "too small: 24x6\nneed 80x24"));
    free(s);
    app_free(&a);
    model_free(m);
}

static void test_causal_zeros_and_sums(void **state) {
    (void)state;
    Model *m = sample_model("Mary greeted Bob and Bob ignored Mary");
    App a;
    app_init(&a, m, TIER_NONE, 1, 1, NULL);
    press(&a, ch('m'));
    char *s = render(&a, 100, 16); /* one screen row per query at this height */
    assert_non_null(strstr(line(s, 0), "mask=causal"));
    /* row i (line 3 + i): i + 1 allowed cells, then 6 - i masked ones drawn as 'x' */
    for (int i = 0; i < 7; i++) {
        const char *r = line(s, 4 + i);
        int xs = 0;
        for (const char *p = r; *p; p++) xs += *p == 'x';
        assert_int_equal(xs, 6 - i);
        assert_non_null(strstr(r, "1.000"));
    }
    free(s);
    app_free(&a);
    model_free(m);
}

static void test_escaped_labels(void **state) {
    (void)state;
    Model *m = model_new();
    AvError err;
    assert_int_equal(model_set_tokenizer(m, TOK_CUSTOM, "\\S+", &err), 0);
    const char *txt = "a\x1b]0;title\x07 b\xc2\x9b"
                      "c";
    assert_int_equal(model_set_text(m, txt, strlen(txt), &err), 0);
    assert_int_equal(model_update(m, &err), 0);
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    char *s = render(&a, 120, 24);
    for (const char *p = s; *p; p++) assert_false(*p == 0x1b || *p == 0x07);
    assert_null(strstr(s, "\xc2\x9b"));
    assert_non_null(strstr(s, "a\\x1B]0;"));
    free(s);
    app_free(&a);
    model_free(m);
}

static void test_zero_tokens(void **state) {
    (void)state;
    Model *m = sample_model("  ");
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    char *s = render(&a, 80, 24);
    assert_non_null(strstr(s, "no tokens"));
    /* keys on an empty model do not crash */
    const char keys[] = "jklhm+->.<vvvvva\t1";
    for (const char *p = keys; *p; p++) press(&a, ch((unsigned char)*p));
    free(s);
    s = render(&a, 80, 24);
    assert_non_null(strstr(s, "no tokens"));
    free(s);
    app_free(&a);
    model_free(m);
}

static void test_many_tokens_scroll(void **state) {
    (void)state;
    char text[4000] = "";
    for (int i = 0; i < 120; i++) {
        char w[16];
        snprintf(w, sizeof w, "w%d ", i);
        strcat(text, w);
    }
    Model *m = sample_model(text);
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    press(&a, code(KEY_END)); /* cursor to (119, 119): the window scrolls */
    char *s = render(&a, 80, 24);
    assert_int_equal(a.ci, 119);
    assert_true(a.row0 > 0 && a.row0 + a.layout.rows > 119);
    assert_true(a.col0 > 0);
    assert_non_null(strstr(s, "w119"));
    assert_non_null(strstr(line(s, 1), "head 1/4"));
    free(s);
    app_free(&a);
    model_free(m);
}

// ----------------------------------------------------------------------------
// keys

static void test_keys_change_config(void **state) {
    (void)state;
    Model *m = sample_model("Mary greeted Bob");
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    press(&a, ch('m'));
    assert_int_equal(m->cfg.mask, MASK_CAUSAL);
    press(&a, ch('m'));
    assert_int_equal(m->cfg.mask, MASK_WINDOW);
    press(&a, ch(']'));
    assert_int_equal(m->cfg.window, 4);
    press(&a, ch('m'));
    assert_int_equal(m->cfg.mask, MASK_PREFIX);
    press(&a, ch('['));
    assert_int_equal(m->cfg.prefix, 1);
    press(&a, ch('m'));
    assert_int_equal(m->cfg.mask, MASK_PADDING);
    press(&a, ch('m'));
    assert_int_equal(m->cfg.mask, MASK_PAINTED);
    press(&a, ch('m'));
    assert_int_equal(m->cfg.mask, MASK_NONE);
    press(&a, ch('+'));
    assert_int_equal(m->cfg.d_k, 32);
    assert_int_equal(m->cfg.d_v, 32); /* d_v follows d_k when not given */
    press(&a, ch('-'));
    press(&a, ch('-'));
    assert_int_equal(m->cfg.d_k, 8);
    press(&a, ch('>'));
    assert_int_equal(m->cfg.heads, 5);
    press(&a, ch('<'));
    press(&a, ch('<'));
    assert_int_equal(m->cfg.heads, 3);
    press(&a, ch('s'));
    assert_int_equal(m->cfg.scale, 0);
    press(&a, ch('r'));
    assert_true(m->cfg.seed == 43);
    press(&a, ch('p'));
    assert_int_equal(m->cfg.pos, POS_SINUSOIDAL);
    press(&a, ch('t'));
    assert_int_equal(tok_preset(m->tokenizer), TOK_GPT2);
    /* the heatmap needs the stages up to the output; Y waits for a view of it */
    assert_int_equal(m->stale, STAGE_FINAL);
    while (a.shown != TENSOR_Y) press(&a, ch('v'));
    assert_int_equal(m->stale, STAGE_NONE);
    app_free(&a);
    model_free(m);
}

/* Issue 6 keys: score kinds, tied Q/K, attention modes, the target, painting. */
static void test_variant_keys(void **state) {
    (void)state;
    Model *m = sample_model("Bob saw Mary");
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    /* o cycles the kind; the scaling stays on (s's, not o's) */
    const char *names[] = {"cosine", "distance", "additive", "scaled"};
    for (int i = 0; i < 4; i++) {
        press(&a, ch('o'));
        assert_string_equal(score_name(m->cfg.score, m->cfg.scale), names[i]);
        char *s = render(&a, 100, 24);
        char want[32];
        snprintf(want, sizeof want, "score=%s", names[i]);
        assert_non_null(strstr(s, want));
        free(s);
    }
    /* tied: the raw scores are symmetric, the indicator says 0 */
    assert_true(model_asymmetry(m, 0) > 0.01);
    press(&a, ch('T'));
    assert_int_equal(m->cfg.tie_qk, 1);
    assert_true(model_asymmetry(m, 0) < 1e-5);
    char *s = render(&a, 100, 24);
    assert_non_null(strstr(s, "tie-qk"));
    assert_non_null(strstr(s, "asym 0.00"));
    free(s);
    press(&a, ch('T'));
    /* attention modes: cross needs a target */
    press(&a, ch('x'));
    assert_int_equal(m->cfg.attn, ATTN_CAUSAL_SELF);
    assert_int_equal(m->cfg.mask, MASK_CAUSAL);
    press(&a, ch('x'));
    assert_int_equal(m->cfg.attn, ATTN_SELF); /* no target: cross refused */
    assert_non_null(strstr(a.msg, "needs a target"));
    press(&a, ch('E'));
    type(&a, "나는 밥을 보았다 .\r");
    assert_int_equal(m->target_tokens.n, 4);
    press(&a, ch('x'));
    press(&a, ch('x'));
    assert_int_equal(m->cfg.attn, ATTN_CROSS);
    assert_int_equal(m->n_q, 4);
    assert_int_equal(m->n_k, 3);
    s = render(&a, 100, 24);
    assert_non_null(strstr(s, "attn=cross"));
    assert_non_null(strstr(s, "4 x 3 tokens"));
    assert_non_null(strstr(s, "밥을")); /* target tokens down the side */
    free(s);
    /* painting: M, then Space hides the cell under the cursor */
    press(&a, ch('x')); /* back to self */
    press(&a, ch('M'));
    assert_int_equal(m->cfg.mask, MASK_PAINTED);
    press(&a, code(KEY_RIGHT));
    press(&a, ch(' '));
    assert_int_equal(m->allowed[0 * m->n_k + 1], 0);
    assert_true(m->head[0].weights[1] == 0.0f);
    press(&a, ch('C'));
    assert_int_equal(m->allowed[1], 1);
    press(&a, ch('M'));
    press(&a, ch(' '));
    assert_non_null(strstr(a.msg, "M starts mask-edit mode"));
    app_free(&a);
    model_free(m);
}

/* Keys that arrive together are applied together and recomputed once. */
static void test_keys_coalesce(void **state) {
    (void)state;
    Model *m = sample_model("Mary greeted Bob");
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    unsigned long before = m->computed[STAGE_PROJECT];
    app_key(&a, ch('+'));
    app_key(&a, ch('+'));
    app_key(&a, ch('>'));
    assert_int_equal(m->cfg.d_k, 64);
    assert_int_equal(m->cfg.heads, 5);
    assert_true(m->computed[STAGE_PROJECT] == before); /* nothing yet */
    char *s = render(&a, 80, 24);                      /* the next frame recomputes, once */
    assert_true(m->computed[STAGE_PROJECT] == before + 1);
    assert_non_null(strstr(s, "d_k=64"));
    free(s);
    app_free(&a);
    model_free(m);
}

static void test_heads_and_stages_recompute_nothing(void **state) {
    (void)state;
    Model *m = sample_model("Mary greeted Bob");
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    unsigned long before[STAGE_COUNT];
    memcpy(before, m->computed, sizeof before);
    press(&a, ch('\t'));
    assert_int_equal(a.head, 1);
    press(&a, code(KEY_BTAB));
    press(&a, code(KEY_BTAB));
    assert_int_equal(a.head, 3);
    press(&a, ch('2'));
    assert_int_equal(a.head, 1);
    for (int i = 0; i < tensor_cycle_len(); i++) press(&a, ch('v'));
    press(&a, ch('a'));
    press(&a, ch('a'));
    press(&a, code(KEY_DOWN));
    char *s = render(&a, 80, 24);
    free(s);
    assert_memory_equal(before, m->computed, sizeof before);
    /* A mask change recomputes from the mask on, not the scores. */
    press(&a, ch('m'));
    assert_true(m->computed[STAGE_SCORES] == before[STAGE_SCORES]);
    assert_true(m->computed[STAGE_MASKED] == before[STAGE_MASKED] + 1);
    press(&a, ch('9'));
    assert_non_null(strstr(a.msg, "only 4 heads"));
    app_free(&a);
    model_free(m);
}

static void test_limits_say_why(void **state) {
    (void)state;
    Model *m = sample_model("Mary greeted Bob");
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    for (int i = 0; i < 5; i++) press(&a, ch('-'));
    assert_int_equal(m->cfg.d_k, 1);
    assert_non_null(strstr(a.msg, "d_k is 1 already"));
    assert_int_equal(a.msg_error, 1);
    for (int i = 0; i < 5; i++) press(&a, ch('<'));
    assert_int_equal(m->cfg.heads, 1);
    assert_non_null(strstr(a.msg, "heads is 1 already"));
    app_free(&a);
    model_free(m);
}

static void test_prompts(void **state) {
    (void)state;
    Model *m = sample_model("Mary greeted Bob");
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    /* d: an exact d_k */
    press(&a, ch('d'));
    assert_int_equal(a.prompt, PROMPT_DK);
    char *s = render(&a, 80, 24);
    assert_non_null(strstr(line(s, 23), "d_k (1..4096): 16"));
    free(s);
    press(&a, code(KEY_BACKSPACE));
    press(&a, code(KEY_BACKSPACE));
    type(&a, "24\r");
    assert_int_equal(a.prompt, PROMPT_NONE);
    assert_int_equal(m->cfg.d_k, 24);
    /* an invalid one: a message, nothing changes */
    press(&a, ch('d'));
    type(&a, "x\r");
    assert_int_equal(m->cfg.d_k, 24);
    assert_non_null(strstr(a.msg, "not a whole number"));
    press(&a, ch('d'));
    press(&a, ch(21)); /* Ctrl-U */
    type(&a, "99999\r");
    assert_int_equal(m->cfg.d_k, 24);
    assert_non_null(strstr(a.msg, "out of range 1..4096"));
    /* Esc cancels */
    press(&a, ch('d'));
    type(&a, "5");
    press(&a, ch(27));
    assert_int_equal(a.prompt, PROMPT_NONE);
    assert_int_equal(m->cfg.d_k, 24);
    /* e: a new sentence, Hangul typed and a character removed */
    press(&a, ch('e'));
    press(&a, ch(21));
    type(&a, "나는 학교에 간다다");
    press(&a, code(KEY_BACKSPACE));
    type(&a, "\r");
    assert_int_equal(m->n_q, 3);
    assert_string_equal(model_key_label(m, 2), "간다");
    /* invalid text keeps the old sentence */
    press(&a, ch('e'));
    press(&a, ch(21));
    type(&a, "  \r");
    assert_int_equal(m->n_q, 0); /* spaces only: allowed, the view says so */
    app_free(&a);
    model_free(m);
}

static void test_help_lists_every_key(void **state) {
    (void)state;
    Model *m = sample_model("Mary greeted Bob");
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    press(&a, ch('?'));
    assert_int_equal(a.overlay, OVERLAY_HELP);
    /* tall enough to show the whole help */
    char *s = render(&a, 100, 80);
    for (int i = 0; i < keymap_count; i++) {
        /* the layer keys are listed for a source of several layers (test_source.c) */
        if (!keymap[i].label || !app_action_listed(&a, keymap[i].action)) continue;
        if (!strstr(s, keymap[i].help)) fail_msg("help lacks '%s'", keymap[i].help);
        if (!strstr(s, keymap[i].label)) fail_msg("help lacks key '%s'", keymap[i].label);
    }
    free(s);
    press(&a, ch('q'));
    assert_int_equal(a.overlay, OVERLAY_NONE);
    assert_int_equal(a.quit, 0); /* q in help closes help */
    press(&a, ch('q'));
    assert_int_equal(a.quit, 1);
    app_free(&a);
    model_free(m);
}

static void test_keymap_unique(void **state) {
    (void)state;
    for (int i = 0; i < keymap_count; i++)
        for (int k = 0; k < 4 && keymap[i].keys[k]; k++)
            for (int j = 0; j < keymap_count; j++)
                for (int l = 0; l < 4 && keymap[j].keys[l]; l++)
                    if ((i != j || k != l) && keymap[i].keys[k] == keymap[j].keys[l])
                        fail_msg("key %d bound twice", keymap[i].keys[k]);
    /* The contract keys of DESIGN.md §4 are bound to their actions. */
    struct {
        int key;
        Action act;
    } contract[] = {
        {'q', ACT_QUIT},       {'?', ACT_HELP},
        {27, ACT_ESCAPE},      {APP_KEY_UP, ACT_UP},
        {'j', ACT_DOWN},       {'h', ACT_LEFT},
        {'l', ACT_RIGHT},      {'k', ACT_UP},
        {'\t', ACT_NEXT_HEAD}, {APP_KEY_BACK_TAB, ACT_PREV_HEAD},
        {'1', ACT_HEAD},       {'9', ACT_HEAD},
        {'a', ACT_ALL_HEADS},  {'m', ACT_MASK},
        {'s', ACT_SCALE},      {'+', ACT_DK_DOUBLE},
        {'-', ACT_DK_HALVE},   {'>', ACT_HEAD_MORE},
        {'<', ACT_HEAD_FEWER}, {'d', ACT_DK_PROMPT},
        {'r', ACT_SEED},       {'p', ACT_POS},
        {'e', ACT_EDIT},       {'t', ACT_TOKENIZER},
        {'v', ACT_STAGE},
    };
    for (size_t i = 0; i < sizeof contract / sizeof *contract; i++)
        assert_int_equal(keymap_action(contract[i].key), contract[i].act);
    /* Each hint names keys of its own binding (or of its pair). */
    for (int i = 0; i < keymap_count; i++) {
        const char *h = keymap[i].hint;
        if (!h) continue;
        Action act = keymap_action((unsigned char)h[0]);
        if (strncmp(h, "Tab", 3) == 0) act = keymap_action('\t');
        if (strncmp(h, "Enter", 5) == 0) act = keymap_action('\r');
        assert_int_equal(act, keymap[i].action);
    }
}

/* Every stage the screen names is marked for translation (widgets.c: src/
 * speaks no language), so that a new stage is not left in English. */
static void test_stage_names_marked(void **state) {
    (void)state;
    for (int t = 0; t < TENSOR_COUNT; t++) {
        const char *shown = tensor_info((Tensor)t)->shown;
        if (!shown[0]) continue;
        int found = 0;
        for (int k = 0; view_stage_names[k]; k++) found |= strcmp(view_stage_names[k], shown) == 0;
        if (!found) fail_msg("stage name '%s' is not in view_stage_names", shown);
        assert_string_equal(view_stage_name((Shown)t), shown); /* English: the name itself */
    }
}

/* In English the info line and the messages say the status line's own words
 * (chrome.h): "score=cosine", "attn=cross", "mask=window:3". */
static void test_variant_words_are_the_status_words(void **state) {
    (void)state;
    ModelConfig c;
    model_config_default(&c);
    char got[96], want[96], name[32];
    for (int k = 0; k < SCORE_KIND_COUNT; k++)
        for (int scale = 0; scale < 2; scale++) {
            c.score = (ScoreKind)k, c.scale = scale;
            chrome_score_words(&c, got, sizeof got);
            snprintf(want, sizeof want, "score=%s", score_name(c.score, c.scale));
            assert_string_equal(got, want);
        }
    for (int m = 0; m < ATTN_MODE_COUNT; m++) {
        chrome_attn_words((AttnMode)m, 0, got, sizeof got);
        snprintf(want, sizeof want, "attn=%s", attn_mode_name((AttnMode)m));
        assert_string_equal(got, want);
        chrome_attn_words((AttnMode)m, 1, got, sizeof got);
        snprintf(want, sizeof want, " attn=%s", attn_mode_name((AttnMode)m));
        assert_string_equal(got, want);
    }
    c.window = 3, c.prefix = 2;
    for (int k = 0; k < MASK_KIND_COUNT; k++) {
        c.mask = (MaskKind)k;
        chrome_mask_words(&c, got, sizeof got);
        model_mask_name(&c, name, sizeof name);
        snprintf(want, sizeof want, "mask=%s", name);
        assert_string_equal(got, want);
    }
}

static void test_mouse_click_moves_cursor(void **state) {
    (void)state;
    Model *m = sample_model("Mary greeted Bob");
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    char *s = render(&a, 80, 24);
    free(s);
    assert_true(a.layout.valid);
    app_mouse(&a, a.layout.y0 + 2 * a.layout.ch, a.layout.x0 + 1 * a.layout.cw + 1, 1);
    assert_int_equal(a.ci, 2);
    assert_int_equal(a.cj, 1);
    app_mouse(&a, 0, 0, 4); /* wheel up */
    assert_int_equal(a.ci, 0);
    app_free(&a);
    model_free(m);
}

/* Found in review: Enter on a layer stage (heads joined, Y) must not open the
 * attention arithmetic with a column index that is not a key. */
static void test_enter_only_where_it_applies(void **state) {
    (void)state;
    Model *m = sample_model("the cat sat");
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    while (a.shown != TENSOR_CONCAT) press(&a, ch('v'));
    press(&a, code(KEY_END));
    assert_true(a.cj > m->n_k);
    press(&a, ch('\r'));
    assert_int_equal(a.overlay, OVERLAY_NONE);
    char *s = render(&a, 80, 24);
    assert_non_null(strstr(s, "concat(O_1 .. O_4)"));
    free(s);
    app_free(&a);
    model_free(m);
}

static void test_numbers_and_labels(void **state) {
    (void)state;
    char buf[32];
    view_num(buf, sizeof buf, -0.89, 3, 0);
    assert_string_equal(buf, "-.9");
    view_num(buf, sizeof buf, -0.3, 3, 0);
    assert_string_equal(buf, "-.3");
    view_num(buf, sizeof buf, 0.25, 3, 0);
    assert_string_equal(buf, ".25");
    view_num(buf, sizeof buf, 12.6, 3, 0);
    assert_string_equal(buf, "13");
    view_num(buf, sizeof buf, -1234.5, 5, 0);
    assert_string_equal(buf, "-1234");
    view_num(buf, sizeof buf, 0.5, 4, 1);
    assert_string_equal(buf, "0.50");
    /* Saturated scores are numbers, not a bare "-" (the pipeline's cells are
     * 5 columns): the exponent is written as short as it can be. */
    view_num(buf, sizeof buf, -3.4e38, 5, 0);
    assert_string_equal(buf, "-3e38");
    view_num(buf, sizeof buf, 3.4e38, 4, 0);
    assert_string_equal(buf, "3e38");
    view_num(buf, sizeof buf, 6e19, 5, 0);
    assert_string_equal(buf, "6e19");
    view_num(buf, sizeof buf, -2e5, 5, 0);
    assert_string_equal(buf, "-2e5");
    view_num(buf, sizeof buf, -3.4e38, 4, 0); /* no room even for that */
    assert_string_equal(buf, "-");
    /* a token that starts with a combining mark gets a base to sit on */
    Model *m = model_new();
    AvError err;
    assert_int_equal(model_set_tokenizer(m, TOK_CUSTOM, "\\S+", &err), 0);
    const char *txt = "\xcc\x81x e";
    assert_int_equal(model_set_text(m, txt, strlen(txt), &err), 0);
    assert_int_equal(model_update(m, &err), 0);
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    view_qlabel(&a, buf, sizeof buf, 0, 10);
    assert_string_equal(buf, "◌\xcc\x81x");
    app_free(&a);
    model_free(m);
}

// ----------------------------------------------------------------------------
// the canvas

static void test_canvas_wide_and_clipping(void **state) {
    (void)state;
    Canvas *cv = cv_new(6, 2);
    assert_int_equal(cv_text(cv, 0, 0, "학교에", 5, style_plain()), 5); /* 학교 + a blank */
    char *s = cv_render(cv, 0, TIER_NONE);
    assert_string_equal(s, "학교\n\n");
    free(s);
    cv_text(cv, 0, 1, "x", 1, style_plain()); /* over the right half of 학 */
    s = cv_render(cv, 0, TIER_NONE);
    assert_string_equal(s, " x교\n\n");
    free(s);
    cv_text(cv, 1, 0, "a\x1b[2Jb", 6, style_plain());
    s = cv_render(cv, 0, TIER_NONE);
    assert_string_equal(line(s, 1), "a?[2Jb");
    free(s);
    cv_free(cv);
}

/* cv_fill writes what n calls of cv_text with one column each would: over
 * wide characters, combining marks, both edges and wide glyphs that cannot
 * fit one column. */
static void test_canvas_fill_is_repeated_text(void **state) {
    (void)state;
    static const char *const glyphs[] = {"#", "\xe2\x96\x88", "학", "e\xcc\x81", "\xcc\x81", "ab", "\x1b", ""};
    static const int xs[] = {-3, -1, 0, 1, 4, 7, 8, 12};
    static const int ns[] = {0, 1, 2, 3, 5, 9, 20};
    Style st = {3, 4, ST_BOLD};
    for (size_t g = 0; g < sizeof glyphs / sizeof *glyphs; g++)
        for (size_t xi = 0; xi < sizeof xs / sizeof *xs; xi++)
            for (size_t ni = 0; ni < sizeof ns / sizeof *ns; ni++) {
                Canvas *a = cv_new(9, 2), *b = cv_new(9, 2);
                assert_non_null(a);
                assert_non_null(b);
                for (int y = 0; y < 2; y++) { /* a row of wide characters to split */
                    cv_text(a, y, 0, "학교에가요", 9, style_plain());
                    cv_text(b, y, 0, "학교에가요", 9, style_plain());
                }
                cv_fill(a, 1, xs[xi], ns[ni], glyphs[g], st);
                for (int i = 0; i < ns[ni]; i++) cv_text(b, 1, xs[xi] + i, glyphs[g], 1, st);
                for (int y = 0; y < 2; y++)
                    for (int x = 0; x < 9; x++) {
                        const Cell *ca = cv_cell(a, y, x), *cb = cv_cell(b, y, x);
                        if (strcmp(ca->ch, cb->ch) != 0 || ca->width != cb->width ||
                            memcmp(&ca->st, &cb->st, sizeof ca->st) != 0)
                            fail_msg("glyph %zu at x %d, n %d: cell (%d, %d) is \"%s\"/%d, want \"%s\"/%d", g, xs[xi],
                                     ns[ni], y, x, ca->ch, ca->width, cb->ch, cb->width);
                    }
                cv_free(a);
                cv_free(b);
            }
}

/* A canvas resized smaller and back keeps its cells (no allocation) and is
 * blank after each resize. */
static void test_canvas_resize_reuses(void **state) {
    (void)state;
    Canvas *cv = cv_new(20, 10);
    assert_non_null(cv);
    Cell *cells = cv->cells;
    cv_text(cv, 9, 0, "학교에 간다", 20, style_attr(ST_BOLD));
    assert_int_equal(cv_resize(cv, 5, 3), 0);
    assert_ptr_equal(cv->cells, cells);
    cv_text(cv, 2, 0, "xyz", 5, style_plain());
    assert_int_equal(cv_resize(cv, 10, 20), 0);
    assert_ptr_equal(cv->cells, cells);
    for (int y = 0; y < cv->h; y++)
        for (int x = 0; x < cv->w; x++) {
            const Cell *c = cv_cell(cv, y, x);
            assert_string_equal(c->ch, " ");
            assert_int_equal(c->width, 1);
            assert_true(c->st.fg == -1 && c->st.bg == -1 && c->st.attr == 0);
        }
    assert_int_equal(cv_resize(cv, 30, 30), 0); /* grows: new cells, blank */
    assert_true(cv->cap >= 900);
    char *s = cv_render(cv, 1, TIER_256);
    assert_non_null(s);
    for (const char *p = s; *p; p++) assert_int_equal(*p, '\n');
    free(s);
    cv_free(cv);
}

static int setup(void **state) {
    (void)state;
    if (!setlocale(LC_ALL, "C.UTF-8")) return -1;
    return 0;
}

/* Issue 13 items 3 and 4: the 0..1 legend shows every colour of the ramp
 * (no step of the map missing from the bar) with its ticks; the signed one
 * is labelled with -max|x| and +max|x|, and 0. */
static void test_legend_every_step(void **state) {
    (void)state;
    for (ColorTier tier = TIER_8; tier <= TIER_256; tier++) {
        Model *m = sample_model("the cat sat on the mat");
        App a;
        app_init(&a, m, tier, 0, 1, NULL);
        Canvas *cv = cv_new(80, 24);
        app_draw(&a, cv);
        char *text = cv_render(cv, 0, TIER_NONE);
        int y = -1;
        for (int r = 0; r < cv->h && y < 0; r++) {
            const char *l = line(text, r);
            if (strncmp(l, "0 ", 2) == 0 && strstr(l, " .25 ") && strstr(l, " .5 ") && strstr(l, " .75 ") &&
                strstr(l, " 1 "))
                y = r;
        }
        if (y < 0) fail_msg("tier %d: no legend with ticks 0 .25 .5 .75 1:\n%s", (int)tier, text);
        int n = palette_seq_steps(tier), seen = 0;
        for (int k = 0; k < n; k++) {
            RampColor want = palette_seq(tier, (k + 0.5) / n);
            for (int x = 0; x < cv->w; x++)
                if (cv_cell(cv, y, x)->st.bg == want.bg) {
                    seen++;
                    break;
                }
        }
        assert_int_equal(seen, n);
        free(text);
        /* The raw scores: signed, -max|x| .. 0 .. +max|x|. */
        press(&a, ch('v'));
        app_draw(&a, cv);
        text = cv_render(cv, 0, TIER_NONE);
        char want[64];
        ShownMat sm;
        view_matrix(&a, a.shown, a.head, &sm);
        snprintf(want, sizeof want, "−%.3g", sm.maxabs);
        const char *hit = strstr(text, want);
        assert_non_null(hit);
        snprintf(want, sizeof want, " 0 ");
        assert_non_null(strstr(hit, want));
        snprintf(want, sizeof want, "+%.3g = ±max|x|", sm.maxabs);
        assert_non_null(strstr(hit, want));
        free(text);
        cv_free(cv);
        app_free(&a);
        model_free(m);
    }
}

/* Issue 13 item 7: the wheel scrolls the pipeline, the help and the cell
 * page; a click in all heads chooses the head (and the cell) under it. */
static void test_mouse_everywhere(void **state) {
    (void)state;
    Model *m = sample_model("the cat sat on the mat because the cat was tired");
    App a;
    app_init(&a, m, TIER_256, 0, 1, NULL);
    char *s;
    press(&a, ch('c'));
    s = render(&a, 80, 24);
    free(s);
    app_mouse(&a, 10, 10, 5);
    assert_int_equal(a.doc_y, 3);
    app_mouse(&a, 10, 10, 4);
    app_mouse(&a, 10, 10, 4);
    assert_int_equal(a.doc_y, 0);
    press(&a, ch(27));
    press(&a, ch('?'));
    s = render(&a, 80, 24);
    free(s);
    app_mouse(&a, 10, 10, 5);
    assert_int_equal(a.doc_y, 3);
    press(&a, ch(27));
    press(&a, ch('\r'));
    s = render(&a, 80, 24);
    free(s);
    app_mouse(&a, 10, 10, 5);
    assert_int_equal(a.doc_y, 3);
    press(&a, ch(27));
    /* all heads: a click on the second block's cell (2, 1) */
    press(&a, ch('a'));
    s = render(&a, 200, 50);
    free(s);
    const HeadsLayout *L = &a.heads_layout;
    assert_true(L->valid);
    assert_true(L->per_row >= 2);
    int y = L->y0 + 2, x = L->x0 + 1 * L->block_w + 1 * L->cw;
    app_mouse(&a, y, x, 1);
    assert_int_equal(a.head, 1);
    assert_int_equal(a.ci, 2);
    assert_int_equal(a.cj, 1);
    app_mouse(&a, L->y0 - 1, L->x0 + 1, 1); /* the first block's title: head 1, the cell stays */
    assert_int_equal(a.head, 0);
    assert_int_equal(a.ci, 2);
    app_free(&a);
    model_free(m);
}

/* Issue 13 item 14: z colours each row of weights against its own largest
 * weight (the cell holding it gets the top colour), numbers unchanged. */
static void test_row_contrast(void **state) {
    (void)state;
    ModelConfig c;
    model_config_default(&c);
    c.mask = MASK_CAUSAL;
    Model *m = tu_model("the cat sat on the mat", &c);
    App a;
    app_init(&a, m, TIER_256, 0, 1, NULL);
    Canvas *cv = cv_new(80, 24);
    app_draw(&a, cv);
    const HeatLayout *L = &a.layout;
    int row = 3, best = 0;
    const float *w = m->head[0].weights + (size_t)row * m->n_k;
    for (int j = 1; j <= row; j++)
        if (w[j] > w[best]) best = j;
    short before = cv_cell(cv, L->y0 + row * L->ch, L->x0 + best * L->cw + 1)->st.bg;
    press(&a, ch('z'));
    assert_true(a.row_contrast);
    assert_non_null(strstr(a.msg, "row contrast"));
    app_draw(&a, cv);
    short after = cv_cell(cv, L->y0 + row * L->ch, L->x0 + best * L->cw + 1)->st.bg;
    assert_int_equal(after, palette_seq(TIER_256, 1.0).bg);
    assert_int_not_equal(before, after); /* 0.4 of 1 was not the top colour */
    char *text = cv_render(cv, 0, TIER_NONE);
    assert_non_null(strstr(text, " 1 = row max"));
    free(text);
    press(&a, ch('z'));
    app_draw(&a, cv);
    assert_int_equal(cv_cell(cv, L->y0 + row * L->ch, L->x0 + best * L->cw + 1)->st.bg, before);
    cv_free(cv);
    app_free(&a);
    model_free(m);
}

/* Issue 13: a golden screen of every view and page at 80x24 and 200x50,
 * in 256 colours, 8 colours (the ANSI codes kept) and no colour:
 * tests/golden/every/VIEW-WxH-TIER.txt. */
static void test_golden_every_screen(void **state) {
    (void)state;
    static const struct {
        const char *name;
        int keys[3];
    } screens[] = {
        {"heatmap", {0}},      {"scores", {'v', 0}}, {"heads", {'a', 0}}, {"pipeline", {'c', 0}},
        {"gravity", {'g', 0}}, {"census", {'H', 0}}, {"help", {'?', 0}},  {"cell", {'\r', 0}},
    };
    static const struct { int w, h; } sizes[] = {{80, 24}, {200, 50}};
    static const struct {
        ColorTier tier;
        const char *name;
    } tiers[] = {{TIER_256, "256"}, {TIER_8, "8"}, {TIER_NONE, "mono"}};
    for (size_t v = 0; v < sizeof screens / sizeof *screens; v++)
        for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++)
            for (size_t t = 0; t < sizeof tiers / sizeof *tiers; t++) {
                Model *m = sample_model("I saw a movie yesterday and the movie was fun");
                App a;
                app_init(&a, m, tiers[t].tier, 0, 1, NULL);
                for (int k = 0; screens[v].keys[k]; k++) press(&a, ch((uint32_t)screens[v].keys[k]));
                Canvas *cv = cv_new(sizes[z].w, sizes[z].h);
                app_draw(&a, cv);
                char *got = cv_render(cv, tiers[t].tier != TIER_NONE, tiers[t].tier);
                char name[96];
                snprintf(name, sizeof name, "every/%s-%dx%d-%s.txt", screens[v].name, sizes[z].w, sizes[z].h,
                         tiers[t].name);
                golden(name, got);
                free(got);
                cv_free(cv);
                app_free(&a);
                model_free(m);
            }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_legend_every_step),
        cmocka_unit_test(test_mouse_everywhere),
        cmocka_unit_test(test_row_contrast),
        cmocka_unit_test(test_golden_every_screen),
        cmocka_unit_test(test_golden_heatmap),
        cmocka_unit_test(test_golden_korean_ascii),
        cmocka_unit_test(test_golden_korean),
        cmocka_unit_test(test_golden_heads),
        cmocka_unit_test(test_golden_pipeline),
        cmocka_unit_test(test_golden_help),
        cmocka_unit_test(test_golden_cell),
        cmocka_unit_test(test_golden_gravity),
        cmocka_unit_test(test_pipeline_text_model),
        cmocka_unit_test(test_cell_arithmetic),
        cmocka_unit_test(test_status_and_title),
        cmocka_unit_test(test_too_small),
        cmocka_unit_test(test_causal_zeros_and_sums),
        cmocka_unit_test(test_escaped_labels),
        cmocka_unit_test(test_zero_tokens),
        cmocka_unit_test(test_many_tokens_scroll),
        cmocka_unit_test(test_keys_change_config),
        cmocka_unit_test(test_heads_and_stages_recompute_nothing),
        cmocka_unit_test(test_variant_keys),
        cmocka_unit_test(test_keys_coalesce),
        cmocka_unit_test(test_limits_say_why),
        cmocka_unit_test(test_prompts),
        cmocka_unit_test(test_help_lists_every_key),
        cmocka_unit_test(test_keymap_unique),
        cmocka_unit_test(test_stage_names_marked),
        cmocka_unit_test(test_variant_words_are_the_status_words),
        cmocka_unit_test(test_mouse_click_moves_cursor),
        cmocka_unit_test(test_enter_only_where_it_applies),
        cmocka_unit_test(test_numbers_and_labels),
        cmocka_unit_test(test_canvas_wide_and_clipping),
        cmocka_unit_test(test_canvas_fill_is_repeated_text),
        cmocka_unit_test(test_canvas_resize_reuses),
    };
    return cmocka_run_group_tests_name("views", tests, setup, NULL);
}
