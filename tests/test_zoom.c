/* test_zoom.c - a long text (tui/views/zoom.c, tui/views/longtext.c): the pooling's
 * numbers on matrices made by hand (the largest and the mean of each block,
 * the edge blocks, the mask), each row's strongest words (a word's copies
 * together), the zoomed-out view of 653 tokens at 80x24 and 200x50 (blocks
 * of the size that fits, a row's label, its words, the cursor's block in
 * numbers), its keys (a block a key, Enter opens the heatmap there), the
 * jump to a token by position and by text, and the offer to keep the first
 * tokens of a sentence past the limits (y keeps them, another key does not). */
#include "testutil.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>

#include "app.h"
#include "canvas.h"
#include "zoom.h"

// ----------------------------------------------------------------------------
// the numbers

/* 5 x 5, blocks of 2: 3 x 3 blocks, the last row and column of blocks one
 * token wide. */
static const float A5[25] = {
    0.1f, 0.2f, 0.3f, 0.4f, 0.5f, /* */
    0.6f, 0.7f, 0.8f, 0.9f, 1.0f, /* */
    0.0f, 0.0f, 0.0f, 0.0f, 0.9f, /* */
    0.2f, 0.4f, 0.1f, 0.1f, 0.2f, /* */
    0.5f, 0.5f, 0.5f, 0.5f, 0.5f, /* */
};

static void test_pool_numbers(void **state) {
    (void)state;
    float mx[9], mean[9];
    int n[9];
    zoom_pool(mx, mean, n, A5, NULL, 5, 5, 2);
    const float want_max[9] = {0.7f, 0.9f, 1.0f, 0.4f, 0.1f, 0.9f, 0.5f, 0.5f, 0.5f};
    const float want_mean[9] = {(0.1f + 0.2f + 0.6f + 0.7f) / 4,
                                (0.3f + 0.4f + 0.8f + 0.9f) / 4,
                                (0.5f + 1.0f) / 2,
                                (0.0f + 0.0f + 0.2f + 0.4f) / 4,
                                (0.0f + 0.0f + 0.1f + 0.1f) / 4,
                                (0.9f + 0.2f) / 2,
                                0.5f,
                                0.5f,
                                0.5f};
    const int want_n[9] = {4, 4, 2, 4, 4, 2, 2, 2, 1};
    for (int k = 0; k < 9; k++) {
        assert_near(mx[k], want_max[k], 1e-7);
        assert_near(mean[k], want_mean[k], 1e-6);
        assert_int_equal(n[k], want_n[k]);
    }
    /* A causal mask: the cells above the diagonal do not count; a block all
     * above it is all masked (max and mean 0, none counted). */
    unsigned char allowed[25];
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++) allowed[i * 5 + j] = j <= i;
    zoom_pool(mx, mean, n, A5, allowed, 5, 5, 2);
    assert_near(mx[0], 0.7f, 1e-7); /* 0.1, 0.6, 0.7 (0.2 hidden) */
    assert_near(mean[0], (0.1f + 0.6f + 0.7f) / 3, 1e-6);
    assert_int_equal(n[0], 3);
    assert_int_equal(n[1], 0);
    assert_near(mx[1], 0.0f, 0);
    assert_near(mean[1], 0.0f, 0);
    assert_int_equal(n[2], 0);
    assert_near(mx[4], 0.1f, 1e-7); /* rows 2-3, keys 2-3: 0, (0.1), 0.1 -> 3 cells */
    assert_int_equal(n[4], 3);
    assert_near(mx[8], 0.5f, 1e-7);
    /* blocks of 1: the matrix itself; one block: its largest and mean */
    float all[25], one, one_mean;
    int one_n;
    zoom_pool(all, NULL, NULL, A5, NULL, 5, 5, 1);
    assert_memory_equal(all, A5, sizeof A5);
    zoom_pool(&one, &one_mean, &one_n, A5, NULL, 5, 5, 5);
    double sum = 0;
    for (int k = 0; k < 25; k++) sum += A5[k];
    assert_near(one, 1.0f, 0);
    assert_near(one_mean, sum / 25, 1e-6);
    assert_int_equal(one_n, 25);
    assert_int_equal(zoom_block(653, 15), 44);
    assert_int_equal(zoom_block(653, 653), 1);
    assert_int_equal(zoom_block(10, 15), 1);
}

/* The strongest words of rows 0-1 of A5: by their mean weight over those
 * rows; with keys 1 and 3 one word, their means summed. */
static void test_top_keys(void **state) {
    (void)state;
    int keys[8];
    float means[8];
    int got = zoom_top_keys(keys, means, A5, NULL, 5, 0, 2, 3);
    assert_int_equal(got, 3);
    assert_int_equal(keys[0], 4);
    assert_near(means[0], 0.75, 1e-6);
    assert_int_equal(keys[1], 3);
    assert_near(means[1], 0.65, 1e-6);
    assert_int_equal(keys[2], 2);
    assert_near(means[2], 0.55, 1e-6);
    const int first[5] = {0, 1, 2, 1, 4};
    got = zoom_top_keys(keys, means, A5, first, 5, 0, 2, 8);
    assert_int_equal(got, 4); /* four words */
    assert_int_equal(keys[0], 1);
    assert_near(means[0], 0.45 + 0.65, 1e-6);
    assert_int_equal(keys[1], 4);
    /* row 4: all 0.5, ties in key order */
    got = zoom_top_keys(keys, means, A5, NULL, 5, 4, 5, 2);
    assert_int_equal(keys[0], 0);
    assert_int_equal(keys[1], 1);
    assert_int_equal(zoom_top_keys(keys, means, A5, NULL, 5, 2, 2, 3), 0);
}

// ----------------------------------------------------------------------------
// the view

/* 653 words, Korean and English, a few repeated: "어텐션 은 query ..." */
static char *long_text(int n) {
    static const char *const w[] = {"어텐션", "메커니즘", "쿼리", "키", "밸류", "소프트맥스", "단어", "중력",
                                    "the",    "cat",      "sat",  "on", "mat",  "임베딩",     "공간", "."};
    size_t cap = (size_t)n * 16 + 1, at = 0;
    char *s = malloc(cap);
    assert_non_null(s);
    unsigned x = 12345;
    for (int i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        at += (size_t)snprintf(s + at, cap - at, "%s%s", i ? " " : "", w[(x >> 16) % 16]);
    }
    return s;
}

static char *render(App *a, int w, int h) {
    Canvas *cv = cv_new(w, h);
    assert_non_null(cv);
    app_draw(a, cv);
    char *s = cv_render(cv, 0, TIER_NONE);
    cv_free(cv);
    return s;
}

static char *line_of(const char *s, int n) {
    static char buf[4096];
    for (int i = 0; i < n && s; i++) {
        s = strchr(s, '\n');
        if (s) s++;
    }
    if (!s) return strcpy(buf, "");
    size_t l = strcspn(s, "\n");
    if (l >= sizeof buf) l = sizeof buf - 1;
    memcpy(buf, s, l);
    buf[l] = '\0';
    return buf;
}

static void key(App *a, uint32_t c) {
    app_key(a, (AppKey){0, c});
    app_update(a);
}

static void code(App *a, int c) {
    app_key(a, (AppKey){1, (uint32_t)c});
    app_update(a);
}

static void type(App *a, const char *s) {
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        uint32_t cp = *p;
        int n = 1;
        if (cp >= 0xF0) cp &= 0x07, n = 4;
        else if (cp >= 0xE0) cp &= 0x0F, n = 3;
        else if (cp >= 0xC0) cp &= 0x1F, n = 2;
        for (int k = 1; k < n; k++) cp = (cp << 6) | (p[k] & 0x3F);
        key(a, cp);
        p += n;
    }
}

static void test_view_653(void **state) {
    (void)state;
    char *text = long_text(653);
    ModelConfig c;
    model_config_default(&c);
    c.mask = MASK_CAUSAL;
    Model *m = tu_model(text, &c);
    assert_int_equal(m->n_q, 653);
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    a.enforce_min = 1;
    key(&a, 'Z');
    assert_int_equal(a.view, VIEW_ZOOM);
    char *s = render(&a, 80, 24);
    /* 15 rows of map at 80x24: blocks of ceil(653 / 15) = 44 tokens */
    assert_non_null(strstr(line_of(s, 1), "zoomed out: 653 tokens in blocks of 44, max of each"));
    assert_non_null(strstr(line_of(s, 3), "0 44"));
    assert_int_equal(strncmp(line_of(s, 4), "  0 ", 4), 0);
    assert_int_equal(strncmp(line_of(s, 5), " 44 ", 4), 0);
    assert_int_equal(strncmp(line_of(s, 18), "616 ", 4), 0);
    assert_non_null(strstr(s, "(max pooling)"));
    /* the first row of blocks: its first query's token and its strongest words */
    assert_non_null(strstr(line_of(s, 4), "  0 "));
    assert_non_null(strstr(s, "rows 0-43 x keys 0-43: largest 1.0"));
    free(s);
    /* A key moves a block; the numbers follow. */
    code(&a, APP_KEY_DOWN);
    code(&a, APP_KEY_DOWN);
    code(&a, APP_KEY_RIGHT);
    assert_int_equal(a.ci, 88);
    assert_int_equal(a.cj, 44);
    s = render(&a, 80, 24);
    assert_non_null(strstr(s, "rows 88-131 x keys 44-87: largest"));
    free(s);
    /* a click on a block: the cursor on its first query and key */
    app_mouse(&a, 4 + 3, 13 + 2 * 2 + 1, 1);
    assert_int_equal(a.ci, 3 * 44);
    assert_int_equal(a.cj, 2 * 44);
    app_mouse(&a, 4 + 3, 5, 1); /* on the label: nothing */
    assert_int_equal(a.ci, 3 * 44);
    code(&a, APP_KEY_UP), code(&a, APP_KEY_LEFT); /* back to rows 88.., keys 44.. */
    /* 200x50: 41 rows, blocks of 16 */
    s = render(&a, 200, 50);
    assert_non_null(strstr(line_of(s, 1), "in blocks of 16"));
    assert_non_null(strstr(s, "a word's copies together"));
    free(s);
    /* Enter: the heatmap at the cursor */
    key(&a, '\r');
    assert_int_equal(a.view, VIEW_HEATMAP);
    assert_int_equal(a.ci, 88);
    s = render(&a, 80, 24);
    assert_non_null(strstr(s, "[88] → "));
    free(s);
    /* / jumps: a position, then a word (the next one after the cursor) */
    key(&a, '/');
    assert_int_equal(a.prompt, PROMPT_JUMP);
    type(&a, "500");
    key(&a, '\r');
    assert_int_equal(a.ci, 500);
    assert_int_equal(a.cj, 500);
    assert_non_null(strstr(a.msg, "token 500: "));
    assert_int_equal(app_run(&a, "jump", "임베딩"), 0);
    assert_true(a.ci > 500);
    size_t len;
    const char *t = model_query_text(m, a.ci, &len);
    assert_true(len == strlen("임베딩") && memcmp(t, "임베딩", len) == 0);
    for (int i = 501; i < a.ci; i++) {
        t = model_query_text(m, i, &len);
        assert_false(len == strlen("임베딩") && memcmp(t, "임베딩", len) == 0);
    }
    assert_non_null(strstr(a.msg, " of "));
    assert_int_equal(app_run(&a, "jump", "CAT"), 0); /* either case */
    t = model_query_text(m, a.ci, &len);
    assert_true(len == 3 && memcmp(t, "cat", 3) == 0);
    assert_int_equal(app_run(&a, "jump", "nowhere"), -1);
    assert_non_null(strstr(a.msg, "no token holds 'nowhere'"));
    assert_int_equal(app_run(&a, "jump", "653"), -1);
    assert_non_null(strstr(a.msg, "0..652"));
    app_free(&a);
    model_free(m);
    free(text);
}

/* A sentence past the limits: the offer, then y keeps the first tokens; any
 * other key leaves the sentence (and q does not quit then). */
static void test_keep_first_tokens(void **state) {
    (void)state;
    char *text = long_text(3000);
    ModelConfig c;
    model_config_default(&c); /* 4 heads: 2048 fit */
    Model *m = tu_model("the cat sat", &c);
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    for (int k = 0; k < 2; k++) {
        key(&a, 'e');
        assert_int_equal(a.prompt, PROMPT_TEXT);
        key(&a, 21); /* Ctrl-U: the line emptied */
        for (const char *p = text; *p;) {
            uint32_t cp;
            int n = 1;
            unsigned char b = (unsigned char)*p;
            cp = b;
            if (b >= 0xE0) cp = b & 0x0F, n = 3;
            for (int q = 1; q < n; q++) cp = (cp << 6) | ((unsigned char)p[q] & 0x3F);
            app_paste_char(&a, cp);
            p += n;
        }
        key(&a, '\r');
        assert_non_null(strstr(a.msg, "3000 tokens, 2048 fit: y keeps the first 2048"));
        assert_int_equal(m->n_q, 3);
        assert_int_equal(app_q_quits(&a, 0), 0);
        if (k == 0) {
            key(&a, 'n');
            assert_int_equal(m->n_q, 3);
            assert_non_null(strstr(a.msg, "the sentence stays as it was"));
        } else {
            key(&a, 'y');
            assert_int_equal(m->n_q, 2048);
            assert_non_null(strstr(a.msg, "kept the first 2048 of 3000 tokens"));
        }
    }
    app_free(&a);
    model_free(m);
    free(text);
}

static int setup(void **state) {
    (void)state;
    return setlocale(LC_ALL, "C.UTF-8") ? 0 : -1;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pool_numbers),
        cmocka_unit_test(test_top_keys),
        cmocka_unit_test(test_view_653),
        cmocka_unit_test(test_keep_first_tokens),
    };
    return cmocka_run_group_tests_name("zoom", tests, setup, NULL);
}
