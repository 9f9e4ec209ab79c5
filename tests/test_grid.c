/* test_grid.c - the layers x heads grid (tui/views/grid.c) of stories260K (5
 * layers, 8 query heads, 4 key/value heads) on a canvas: the labels, each
 * thumbnail's half-block cells against the palette colours of its weights,
 * the shade glyphs without colours, the kv brackets, the pages of a small
 * screen, the keys and a click that choose, Enter that opens the heatmap of
 * the layer and head chosen. The seeded model's one layer keeps the heads
 * side by side. Without ../shared/models: one "skipped" line, and pass. */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "app.h"
#include "canvas.h"
#include "models.h"
#include "palette.h"
#include "census.h"
#include "source.h"
#include "source_trained.h"
#include "tensor.h"

static const char SENTENCE[] = "Lily saw a cat. Lily"; /* 8 tokens with BOS */
static const char LONGER[] = "Lily saw a cat. The cat ran to the big red ball and Lily";

enum { N_LAYERS = 5, N_HEADS = 8, LABEL_W = 3 }; /* "L5" and a blank */

static Model *open_model(const char *text) {
    char path[512];
    if (!models_path(path, sizeof path, "stories260K.bin")) return NULL;
    Model *m = model_new();
    assert_non_null(m);
    AvError err = {0};
    if (model_set_trained(m, path, NULL, text, strlen(text), &err)) fail_msg("%s", err.msg);
    ModelConfig c = m->cfg;
    c.mask = MASK_CAUSAL;
    if (model_set_config(m, &c, &err) || model_update(m, &err)) fail_msg("%s", err.msg);
    return m;
}

/* The app in the grid, in colour tier `tier`. */
static void open_grid(App *a, Model *m, ColorTier tier) {
    app_init(a, m, tier, 0, 0, NULL);
    assert_int_equal(app_run(a, "view heads", NULL), 0);
    app_update(a);
}

static Canvas *draw(App *a, int w, int h) {
    Canvas *cv = cv_new(w, h);
    assert_non_null(cv);
    app_draw(a, cv);
    return cv;
}

/* Row y of the canvas as text. */
static const char *row(Canvas *cv, int y) {
    static char buf[4096];
    size_t n = 0;
    for (int x = 0; x < cv->w; x++) {
        const char *s = cv_cell(cv, y, x)->ch;
        size_t l = strlen(s);
        if (n + l + 1 >= sizeof buf) break;
        memcpy(buf + n, s, l);
        n += l;
    }
    buf[n] = '\0';
    return buf;
}

/* The first row whose text holds s, or -1. */
static int find_row(Canvas *cv, const char *s) {
    for (int y = 0; y < cv->h; y++)
        if (strstr(row(cv, y), s)) return y;
    return -1;
}

static void press(App *a, int code) {
    app_key(a, (AppKey){1, (uint32_t)code});
    app_update(a);
}

static float weight(const Model *m, int l, int h, int i, int j) {
    return tensor_data(m, TENSOR_WEIGHTS, l, h)[(size_t)i * m->n_k + j];
}

/* 100 x 40: every layer and head at half-block size, 8 key columns and 4
 * rows each, a blank between them: head h of layer l at row 5 + 5l (under
 * the head labels and the kv brackets), column 3 + 9h. */
static void test_labels_and_kv_groups(void **state) {
    (void)state;
    Model *m = open_model(SENTENCE);
    if (!m) return;
    App a;
    open_grid(&a, m, TIER_256);
    assert_int_equal(m->cfg.layers, N_LAYERS);
    assert_int_equal(model_trained_engine(m)->cfg.n_kv_heads, 4);
    Canvas *cv = draw(&a, 100, 40);
    assert_non_null(
        strstr(row(cv, 1), "layer 1/5  5 layers x 8 heads, weights  (arrows choose, Enter opens)  head 1/8"));
    /* Head labels over each thumbnail, the chosen one reversed over its width. */
    for (int h = 0; h < N_HEADS; h++) {
        char want[16];
        snprintf(want, sizeof want, "head %d", h + 1);
        int x = LABEL_W + 9 * h + 1; /* "head 1" centred in 8 columns */
        assert_memory_equal(row(cv, 3) + x, want, strlen(want));
        assert_int_equal(cv_cell(cv, 3, x)->st.attr & ST_REVERSE, h == 0 ? ST_REVERSE : 0);
    }
    assert_int_equal(cv_cell(cv, 3, LABEL_W)->st.attr & ST_REVERSE, ST_REVERSE);
    /* Layer labels at the left, beside the second row of their thumbnails. */
    for (int l = 0; l < N_LAYERS; l++) {
        char want[8];
        snprintf(want, sizeof want, "L%d", l + 1);
        assert_int_equal(strncmp(row(cv, 5 + 5 * l + 1), want, 2), 0);
        assert_int_equal(cv_cell(cv, 5 + 5 * l + 1, 0)->st.attr & ST_REVERSE, l == 0 ? ST_REVERSE : 0);
    }
    /* Heads 2g+1 and 2g+2 share kv head g+1: one bracket over both. */
    for (int g = 0; g < 4; g++) {
        int xs = LABEL_W + 9 * 2 * g, xe = LABEL_W + 9 * (2 * g + 1) + 7;
        assert_string_equal(cv_cell(cv, 4, xs)->ch, "┌");
        assert_string_equal(cv_cell(cv, 4, xe)->ch, "┐");
        assert_string_equal(cv_cell(cv, 4, xs + 1)->ch, "─");
        assert_string_not_equal(cv_cell(cv, 4, xs + 8)->ch, " "); /* on over the gap between the two */
        assert_string_equal(cv_cell(cv, 4, xe + 1)->ch, " ");     /* and not beyond */
        char want[8];
        snprintf(want, sizeof want, "kv%d", g + 1);
        const char *at = strstr(row(cv, 4), want);
        assert_non_null(at);
    }
    assert_null(strstr(row(cv, 4), "kv5"));
    /* The chosen thumbnail (layer 1, head 1) between two bars. */
    for (int r = 0; r < 4; r++) {
        assert_string_equal(cv_cell(cv, 5 + r, LABEL_W - 1)->ch, "│");
        assert_string_equal(cv_cell(cv, 5 + r, LABEL_W + 8)->ch, "│");
        assert_string_equal(cv_cell(cv, 10 + r, LABEL_W + 8)->ch, " "); /* not layer 2's */
    }
    cv_free(cv);
    app_free(&a);
    model_free(m);
}

/* Each character cell holds query rows 2r (its foreground) and 2r+1 (its
 * background) of key j: ▀ in the palette colours of the two weights; where
 * the upper one has no colour (hidden by the causal mask, or a weight in the
 * ramp's first step, which is the terminal's background), ▄ in the lower
 * one's colour; blank where neither has one. */
static void check_half_blocks(const Model *m, Canvas *cv, ColorTier tier) {
    for (int l = 0; l < N_LAYERS; l++)
        for (int h = 0; h < N_HEADS; h++)
            for (int r = 0; r < 4; r++)
                for (int j = 0; j < m->n_k; j++) {
                    const Cell *c = cv_cell(cv, 5 + 5 * l + r, LABEL_W + 9 * h + j);
                    int up = 2 * r, lo = 2 * r + 1;
                    short cu = j <= up ? palette_seq(tier, weight(m, l, h, up, j)).bg : -1;
                    short cl = j <= lo ? palette_seq(tier, weight(m, l, h, lo, j)).bg : -1;
                    if (cu >= 0) {
                        assert_string_equal(c->ch, "▀");
                        assert_int_equal(c->st.fg, cu);
                        assert_int_equal(c->st.bg, cl);
                    } else if (cl >= 0) {
                        assert_string_equal(c->ch, "▄");
                        assert_int_equal(c->st.fg, cl);
                        assert_int_equal(c->st.bg, -1);
                    } else {
                        assert_string_equal(c->ch, " ");
                    }
                }
}

static void test_half_block_cells(void **state) {
    (void)state;
    Model *m = open_model(SENTENCE);
    if (!m) return;
    assert_int_equal(m->n_q, 8);
    App a;
    open_grid(&a, m, TIER_256);
    Canvas *cv = draw(&a, 100, 40);
    check_half_blocks(m, cv, TIER_256);
    /* Layers differ: the same head of two layers is not the same picture. */
    int differ = 0;
    for (int i = 0; i < m->n_q; i++)
        for (int j = 0; j <= i; j++) differ |= weight(m, 0, 2, i, j) != weight(m, 4, 2, i, j);
    assert_true(differ);
    cv_free(cv);
    app_free(&a);
    /* Eight colours (TERM=xterm): the same cells in the short ramp. */
    open_grid(&a, m, TIER_8);
    cv = draw(&a, 100, 40);
    check_half_blocks(m, cv, TIER_8);
    cv_free(cv);
    app_free(&a);
    model_free(m);
}

/* Without colours one query row a character row, the heatmap's shade
 * glyphs, the masked look; 60 rows hold the five layers of eight rows. */
static void test_monochrome_shades(void **state) {
    (void)state;
    Model *m = open_model(SENTENCE);
    if (!m) return;
    App a;
    open_grid(&a, m, TIER_NONE);
    Canvas *cv = draw(&a, 100, 60);
    assert_null(strstr(row(cv, 1), "class"));
    for (int l = 0; l < N_LAYERS; l++)
        for (int h = 0; h < N_HEADS; h++)
            for (int i = 0; i < m->n_q; i++)
                for (int j = 0; j < m->n_k; j++) {
                    const Cell *c = cv_cell(cv, 5 + 9 * l + i, LABEL_W + 9 * h + j);
                    if (j > i) assert_string_equal(c->ch, "·");
                    else assert_string_equal(c->ch, palette_shade(weight(m, l, h, i, j), 0));
                }
    assert_true(find_row(cv, "L5") > 0);
    cv_free(cv);
    app_free(&a);
    model_free(m);
}

// ----------------------------------------------------------------------------
// the class map (classmap.c) where the thumbnails do not all fit

/* The census of m, computed here (src/core/census.c) to read the map against. */
static Census census_of(const Model *m) {
    Census c;
    AvError err = {0};
    if (census_compute(&c, m, &err)) fail_msg("%s", err.msg);
    return c;
}

/* Every head's cell of the map at (y0 + l, x0 + cw h): its class's letter
 * and its sink share's tenth. */
static void check_cells(const Model *m, Canvas *cv, int y0, int x0, int cw, int ascii) {
    Census c = census_of(m);
    for (int l = 0; l < m->cfg.layers; l++)
        for (int h = 0; h < m->cfg.heads; h++) {
            const CensusRow *r = &c.rows[l * m->cfg.heads + h];
            int x = x0 + cw * h + (cw - 3) / 2;
            char want[2] = {(char)('0' + (int)floor(r->score[CENSUS_SINK] * 10)), '\0'};
            if (want[0] > '9') want[0] = '9';
            const char *letter = census_class_letter(census_class(r, c.max_entropy), ascii);
            if (strcmp(cv_cell(cv, y0 + l, x)->ch, letter) != 0 || strcmp(cv_cell(cv, y0 + l, x + 1)->ch, want) != 0)
                fail_msg("layer %d head %d: '%s%s', want '%s%s':\n%s", l + 1, h + 1, cv_cell(cv, y0 + l, x)->ch,
                         cv_cell(cv, y0 + l, x + 1)->ch, letter, want, cv_render(cv, 0, TIER_NONE));
        }
    census_free(&c);
}

/* 80 x 24 cannot hold 40 thumbnails: the all-heads view is the class map,
 * every one of the 40 heads in view with its class and sink share, the
 * legend and the chosen head's numbers under it. */
static void test_class_map_at_80x24(void **state) {
    (void)state;
    Model *m = open_model(LONGER);
    if (!m) return;
    App a;
    open_grid(&a, m, TIER_256);
    Canvas *cv = draw(&a, 80, 24);
    assert_non_null(strstr(row(cv, 1), "5 layers x 8 heads: each head's class on this text and sink share"));
    /* head numbers over cells of 77 / 8 = 9 -> 6 columns (the most) */
    assert_non_null(strstr(row(cv, 3), "1     2     3     4     5     6     7     8"));
    for (int l = 0; l < N_LAYERS; l++) {
        char want[8];
        snprintf(want, sizeof want, "L%d", l + 1);
        assert_int_equal(strncmp(row(cv, 4 + l), want, 2), 0);
    }
    check_cells(m, cv, 4, LABEL_W, 6, 0);
    assert_true(find_row(cv, "P previous token  S first (sink)  D itself  I after a repeat  B broad") > 0);
    assert_true(find_row(cv, "class: the largest mean weight") > 0);
    assert_true(find_row(cv, "L1 H1 ") > 0);
    /* the chosen head (layer 1, head 1) reversed: its cell, its number, its layer */
    assert_int_equal(cv_cell(cv, 4, LABEL_W + 1)->st.attr & ST_REVERSE, ST_REVERSE);
    assert_int_equal(cv_cell(cv, 4, LABEL_W + 7)->st.attr & ST_REVERSE, 0);
    assert_int_equal(cv_cell(cv, 4, 0)->st.attr & ST_REVERSE, ST_REVERSE);
    /* no inspector of a heatmap cell under it */
    assert_int_equal(find_row(cv, "raw q·k"), -1);
    cv_free(cv);

    /* Arrows choose, the numbers follow; a click chooses; Enter opens. */
    press(&a, APP_KEY_DOWN);
    press(&a, APP_KEY_DOWN);
    press(&a, APP_KEY_RIGHT);
    assert_int_equal(m->layer, 2);
    assert_int_equal(a.head, 1);
    cv = draw(&a, 80, 24);
    assert_true(find_row(cv, "L3 H2 ") > 0);
    assert_int_equal(cv_cell(cv, 6, LABEL_W + 6 + 1)->st.attr & ST_REVERSE, ST_REVERSE);
    app_mouse(&a, 8, LABEL_W + 6 * 6 + 2, 1); /* layer 5, head 7 */
    assert_int_equal(m->layer, 4);
    assert_int_equal(a.head, 6);
    app_mouse(&a, 8, LABEL_W + 6 * 6 + 5, 1); /* the blank column after it: nothing */
    assert_int_equal(a.head, 6);
    cv_free(cv);
    app_key(&a, (AppKey){0, '\n'});
    assert_int_equal(a.view, VIEW_HEATMAP);
    assert_int_equal(a.ci, m->n_q - 1); /* the last row, on its heaviest key */
    const float *last = tensor_data(m, TENSOR_WEIGHTS, 4, 6) + (size_t)(m->n_q - 1) * m->n_k;
    for (int j = 0; j < m->n_k; j++) assert_true(last[j] <= last[a.cj]);
    /* A: the class map at any size; A again: back */
    app_key(&a, (AppKey){0, 'A'});
    assert_int_equal(a.view, VIEW_CLASSES);
    cv = draw(&a, 200, 50);
    assert_non_null(strstr(row(cv, 1), "each head's class on this text and sink share"));
    check_cells(m, cv, 4, LABEL_W, 6, 0);
    cv_free(cv);
    app_key(&a, (AppKey){0, 'A'});
    assert_int_equal(a.view, VIEW_HEATMAP);
    app_free(&a);
    model_free(m);
}

/* A screen too small for the map too: the layers and heads page with the
 * choice, and the line under the map says which are in view. */
static void test_class_map_pages(void **state) {
    (void)state;
    Model *m = open_model(SENTENCE);
    if (!m) return;
    App a;
    open_grid(&a, m, TIER_NONE);
    assert_int_equal(app_run(&a, "view classes", NULL), 0);
    Canvas *cv = draw(&a, 21, 13); /* 18 columns: 6 heads of 3; 5 rows: 4 layers and a legend line */
    assert_non_null(strstr(row(cv, 3), "1  2  3  4  5  6"));
    assert_true(find_row(cv, "L4") > 0);
    assert_int_equal(find_row(cv, "L5"), -1);
    assert_true(find_row(cv, "layers 1-4 of 5") > 0);
    cv_free(cv);
    for (int k = 0; k < 4; k++) press(&a, APP_KEY_DOWN);
    for (int k = 0; k < 7; k++) press(&a, APP_KEY_RIGHT);
    assert_int_equal(m->layer, 4);
    assert_int_equal(a.head, 7);
    cv = draw(&a, 21, 13);
    assert_int_equal(find_row(cv, "L1"), -1);
    assert_true(find_row(cv, "L5") > 0);
    assert_true(find_row(cv, "layers 2-5 of 5") > 0); /* (the heads' part is cut at 21 columns) */
    assert_non_null(strstr(row(cv, 3), "3  4  5  6  7  8"));
    cv_free(cv);
    press(&a, APP_KEY_HOME);
    assert_int_equal(m->layer, 0);
    app_free(&a);
    model_free(m);
}

// ----------------------------------------------------------------------------
// GPT-2 small's shape: 12 layers x 12 heads of known classes

enum { GL = 12, GH = 12, GN = 8, GDK = 8 };

static const char *const gwords[GN] = {"When", "Mary", "and", "John", "went", "to", "the", "store"};

/* Head (l, h)'s query i looks at key target(i): K_j is the unit vector e_j,
 * Q_i 20 e_target(i), so the weight there is e^20 / (e^20 + i); the fourth
 * kind has Q = 0: every allowed key alike (broad). */
static int target_of(int kind, int i) {
    switch (kind) {
    case 0: return i > 0 ? i - 1 : 0; /* previous token */
    case 1: return 0;                 /* the first token */
    case 2: return i;                 /* itself */
    default: return -1;               /* none: uniform */
    }
}

static int kind_of(int l, int h) { return (l + h) % 4; }

static void gpt2_forward(Model *m, int layer, int from) {
    (void)from;
    HeadData *hd = model_layer_heads(m, layer);
    for (int h = 0; h < GH; h++) {
        memset(hd[h].q, 0, sizeof(float) * GN * GDK);
        memset(hd[h].k, 0, sizeof(float) * GN * GDK);
        for (int i = 0; i < GN; i++) {
            hd[h].k[i * GDK + i] = 1.0f;
            hd[h].v[i * GDK] = (float)i;
            int t = target_of(kind_of(layer, h), i);
            if (t >= 0) hd[h].q[i * GDK + t] = 20.0f;
        }
    }
}

static const char *gpt2_label(const Model *m, int i, size_t *len) {
    (void)m;
    *len = strlen(gwords[i]);
    return gwords[i];
}

static int gpt2_id(const Model *m, int j) {
    (void)m;
    return j;
}

static const Source gpt2_shape = {
    .name = "gpt2-shape",
    .fixed = "Q, K and V are made by the test",
    .what = "12 layers of 12 heads",
    .forward = gpt2_forward,
    .query_text = gpt2_label,
    .key_text = gpt2_label,
    .key_id = gpt2_id,
};

static const HeadClass expected_class[4] = {HEAD_PREV, HEAD_SINK, HEAD_SELF, HEAD_BROAD};

static void test_class_map_gpt2_shape(void **state) {
    (void)state;
    Model *m = model_new();
    assert_non_null(m);
    AvError err = {0};
    SourceShape sh = {GL, GH, GDK, GDK, GN, GN, 0};
    if (model_set_source(m, &gpt2_shape, NULL, &sh, &err)) fail_msg("%s", err.msg);
    ModelConfig c = m->cfg;
    c.mask = MASK_CAUSAL;
    if (model_set_config(m, &c, &err) || model_update(m, &err)) fail_msg("%s", err.msg);
    App a;
    app_init(&a, m, TIER_NONE, 0, 0, NULL);
    a.enforce_min = 1;
    assert_int_equal(app_run(&a, "view heads", NULL), 0);
    app_update(&a);
    Canvas *cv = draw(&a, 80, 24);
    char *screen = cv_render(cv, 0, TIER_NONE);
    /* all 144: 12 rows of 12 cells of 77 / 12 = 6 columns, the legend's four lines under them */
    assert_non_null(strstr(row(cv, 1), "12 layers x 12 heads: each head's class on this text and sink share"));
    assert_non_null(strstr(row(cv, 3), "10    11    12"));
    for (int l = 0; l < GL; l++) {
        char want[8];
        snprintf(want, sizeof want, "L%d ", l + 1);
        if (strncmp(row(cv, 4 + l), want, strlen(want)) != 0) fail_msg("no row %s:\n%s", want, screen);
        for (int h = 0; h < GH; h++) {
            const char *letter = census_class_letter(expected_class[kind_of(l, h)], 0);
            int x = 4 + 6 * h + 1;
            if (strcmp(cv_cell(cv, 4 + l, x)->ch, letter) != 0)
                fail_msg("layer %d head %d: %s, want %s:\n%s", l + 1, h + 1, cv_cell(cv, 4 + l, x)->ch, letter, screen);
            /* the sink share: all of it for the sink heads, none for prev and self but row 1 */
            const char *digit = kind_of(l, h) == 1 ? "9" : kind_of(l, h) == 3 ? "2" : kind_of(l, h) == 0 ? "1" : "0";
            if (strcmp(cv_cell(cv, 4 + l, x + 1)->ch, digit) != 0)
                fail_msg("layer %d head %d: sink digit %s, want %s:\n%s", l + 1, h + 1, cv_cell(cv, 4 + l, x + 1)->ch,
                         digit, screen);
        }
    }
    assert_non_null(strstr(screen, "P previous token"));
    assert_non_null(strstr(screen, "of its largest"));
    free(screen);
    cv_free(cv);
    app_free(&a);
    model_free(m);
}

/* Arrows choose the layer and head, Tab and { } still work, Enter opens the
 * heatmap of the one chosen; a click on a thumbnail chooses it. */
static void test_keys_click_and_enter(void **state) {
    (void)state;
    Model *m = open_model(SENTENCE);
    if (!m) return;
    App a;
    open_grid(&a, m, TIER_256);
    Canvas *cv = draw(&a, 100, 40);
    press(&a, APP_KEY_UP);
    press(&a, APP_KEY_LEFT); /* at the first layer and head: they stay */
    assert_int_equal(m->layer, 0);
    assert_int_equal(a.head, 0);
    press(&a, APP_KEY_DOWN);
    press(&a, APP_KEY_DOWN);
    for (int k = 0; k < 3; k++) press(&a, APP_KEY_RIGHT);
    assert_int_equal(m->layer, 2);
    assert_int_equal(a.head, 3);
    app_key(&a, (AppKey){0, '\t'});
    assert_int_equal(a.head, 4);
    app_key(&a, (AppKey){0, '}'});
    assert_int_equal(m->layer, 3);
    app_key(&a, (AppKey){0, '{'});
    app_key(&a, (AppKey){1, APP_KEY_BACK_TAB});
    assert_int_equal(m->layer, 2);
    assert_int_equal(a.head, 3);
    cv_free(cv);
    cv = draw(&a, 100, 40);
    assert_non_null(strstr(row(cv, 1), "layer 3/5  5 layers x 8 heads, weights"));
    assert_non_null(strstr(row(cv, 1), "head 4/8"));
    /* A click on layer 2, head 6 (row 10 + 1, column 3 + 45 + 2); one on the gap does nothing. */
    app_mouse(&a, 11, LABEL_W + 9 * 5 + 2, 1);
    assert_int_equal(m->layer, 1);
    assert_int_equal(a.head, 5);
    app_mouse(&a, 9, LABEL_W + 9 * 5 + 2, 1);  /* the blank row under layer 1 */
    app_mouse(&a, 11, LABEL_W + 9 * 5 + 8, 1); /* the blank column after head 6 */
    assert_int_equal(m->layer, 1);
    assert_int_equal(a.head, 5);
    cv_free(cv);
    /* Enter: the heatmap of layer 2, head 6; the cursor's keys are the map's again. */
    app_key(&a, (AppKey){0, '\n'});
    assert_int_equal(a.view, VIEW_HEATMAP);
    cv = draw(&a, 100, 40);
    assert_non_null(strstr(row(cv, 0), "layer=2/5"));
    assert_non_null(strstr(row(cv, 1), "layer 2/5  head 6/8"));
    press(&a, APP_KEY_DOWN);
    assert_int_equal(m->layer, 1);
    assert_int_equal(a.ci, 1);
    cv_free(cv);
    app_free(&a);
    model_free(m);
}

/* --once: the natural height holds every layer, whatever the tier. */
static void test_natural_height(void **state) {
    (void)state;
    Model *m = open_model(SENTENCE);
    if (!m) return;
    const ColorTier tiers[] = {TIER_256, TIER_NONE};
    const int rows[] = {4, 8}; /* a thumbnail's rows: half blocks, one a query */
    for (int t = 0; t < 2; t++) {
        App a;
        open_grid(&a, m, tiers[t]);
        int h = app_natural_height(&a, 80);
        assert_int_equal(h, 3 + 2 + N_LAYERS * (rows[t] + 1) + 5);
        Canvas *cv = draw(&a, 80, h);
        assert_true(find_row(cv, "L5") > 0);
        assert_int_equal(find_row(cv, "layers 1-"), -1);
        cv_free(cv);
        app_free(&a);
    }
    model_free(m);
}

/* One layer (the seeded model): the heads side by side, as before. */
static void test_one_layer_keeps_side_by_side(void **state) {
    (void)state;
    ModelConfig c;
    model_config_default(&c);
    Model *m = tu_model("the cat sat on the mat", &c);
    App a;
    open_grid(&a, m, TIER_256);
    Canvas *cv = draw(&a, 100, 40);
    assert_non_null(strstr(row(cv, 1), "all 4 heads, weights"));
    assert_int_equal(find_row(cv, "layers x"), -1);
    press(&a, APP_KEY_DOWN); /* the cursor, as before */
    assert_int_equal(a.ci, 1);
    cv_free(cv);
    app_free(&a);
    model_free(m);
}

static int setup(void **state) {
    (void)state;
    return setlocale(LC_ALL, "C.UTF-8") ? 0 : -1;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_labels_and_kv_groups),
        cmocka_unit_test(test_half_block_cells),
        cmocka_unit_test(test_monochrome_shades),
        cmocka_unit_test(test_class_map_at_80x24),
        cmocka_unit_test(test_class_map_pages),
        cmocka_unit_test(test_class_map_gpt2_shape),
        cmocka_unit_test(test_keys_click_and_enter),
        cmocka_unit_test(test_natural_height),
        cmocka_unit_test(test_one_layer_keeps_side_by_side),
    };
    return cmocka_run_group_tests_name("grid", tests, setup, NULL);
}
