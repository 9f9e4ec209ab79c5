/* test_gravity.c - the word gravity view on the text back end of the canvas:
 * its points against an independent computation of X + D, the picture in
 * Unicode (braille) and ASCII at 80x20 and 120x40, labels, caption, cursor,
 * head and all-heads changes, determinism, tiny canvases, clipping to its
 * rows, and the reason shown for a Q/K/V-file model; each token's label
 * beside its point X, none overlapping or cut at 80x24 (English, Korean,
 * ASCII); the arrows' factor k stated and applied; the caption for random
 * weights and for a trained model (stories260K, whose points are checked
 * against the layer's own residual after attention). */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "app.h"
#include "canvas.h"
#include "gravity.h"
#include "keycode.h"
#include "models.h"
#include "pca.h"
#include "source_trained.h"
#include "text.h"
#include "widgets.h"

static const char *const SENTENCE = "Mary greeted Bob and Bob ignored Mary";
static const char *const WORDS[] = {"Mary", "greeted", "Bob", "and", "ignored"};

static Model *sentence_model(void) {
    ModelConfig c = tu_config(16, 2, 8, 8);
    return tu_model(SENTENCE, &c);
}

static Canvas *draw(App *a, int w, int h, int all_heads) {
    Canvas *cv = cv_new(w, h);
    assert_non_null(cv);
    gravity_draw(a, cv, 0, h, all_heads);
    return cv;
}

static char *render(App *a, int w, int h, int all_heads) {
    Canvas *cv = draw(a, w, h, all_heads);
    char *s = cv_render(cv, 0, TIER_NONE);
    assert_non_null(s);
    cv_free(cv);
    return s;
}

/* Number of braille characters (U+2800..U+28FF: E2 A0..A3 xx in UTF-8). */
static int count_braille(const char *s) {
    int k = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (p[0] == 0xE2 && p[1] >= 0xA0 && p[1] <= 0xA3 && p[2]) k++;
    return k;
}

static int count_cells(Canvas *cv, int rows, const char *ch, unsigned short attr_mask, unsigned short attr) {
    int k = 0;
    for (int y = 0; y < rows && y < cv->h; y++)
        for (int x = 0; x < cv->w; x++) {
            const Cell *c = cv_cell(cv, y, x);
            if (strcmp(c->ch, ch) == 0 && (c->st.attr & attr_mask) == attr) k++;
        }
    return k;
}

// ----------------------------------------------------------------------------
// the points

/* X + D on the axes, computed here from the model's matrices: D = O_h W_O[h]
 * (n, d_model) in full, or Y; then (X + D - mean) . axes. */
static void reference_moved(const Model *m, int h, int all_heads, const float *axes, const float *mean,
                            float *out /* (n, 2) */) {
    int n = m->n_q, d = m->cfg.d_model, dv = m->cfg.d_v;
    float *xd = malloc(sizeof(float) * (size_t)n * d);
    assert_non_null(xd);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < d; j++) {
            double s = 0;
            if (all_heads) s = m->y[i * d + j];
            else
                for (int r = 0; r < dv; r++) s += (double)m->head[h].out[i * dv + r] * m->wo[(h * dv + r) * d + j];
            xd[i * d + j] = (float)(m->x[i * d + j] + s);
        }
    pca_project(out, xd, mean, axes, n, d);
    free(xd);
}

static void test_points(void **state) {
    (void)state;
    Model *m = sentence_model();
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    int n = m->n_q, d = m->cfg.d_model;
    assert_int_equal(n, 7);
    float axes[2 * 16], mean[16];
    double var[2];
    assert_int_equal(pca_top2(axes, var, m->x, n, d, NULL), 0);
    pca_mean(mean, m->x, n, d);
    double gv[2];
    const float *ga = gravity_axes(&a, gv);
    assert_non_null(ga);
    assert_memory_equal(ga, axes, sizeof axes);
    assert_true(gv[0] == var[0] && gv[1] == var[1]);

    float px[14], pm[14], ref[14], sum[14] = {0};
    for (int h = 0; h < 2; h++) {
        a.head = h;
        assert_int_equal(gravity_points(&a, 0, px, pm), 0);
        reference_moved(m, h, 0, axes, mean, ref);
        for (int k = 0; k < 2 * n; k++) {
            assert_near(pm[k], ref[k], 1e-4);
            sum[k] += pm[k] - px[k];
        }
    }
    /* All heads: X + Y, and Y is the sum of the heads' D. */
    assert_int_equal(gravity_points(&a, 1, px, pm), 0);
    reference_moved(m, 0, 1, axes, mean, ref);
    for (int k = 0; k < 2 * n; k++) {
        assert_near(pm[k], ref[k], 1e-4);
        assert_near(pm[k] - px[k], sum[k], 1e-4);
    }
    /* Without positions the two Marys share X, Q, K, V: the same move. */
    assert_true(px[0] == px[12] && px[1] == px[13] && pm[0] == pm[12] && pm[1] == pm[13]);
    app_free(&a);
    model_free(m);
}

// ----------------------------------------------------------------------------
// the picture

/* An arrow's head pointing right, left, up, down. */
static const char *const UNICODE_HEADS[4] = {"▸", "◂", "▴", "▾"};
static const char *const ASCII_HEADS[4] = {">", "<", "^", "v"};

static void check_picture(int ascii, int w, int h) {
    Model *m = sentence_model();
    App a;
    app_init(&a, m, TIER_NONE, ascii, 1, NULL);
    Canvas *cv = draw(&a, w, h, 0);
    char *s = cv_render(cv, 0, TIER_NONE);
    for (size_t k = 0; k < sizeof WORDS / sizeof *WORDS; k++)
        if (!strstr(s, WORDS[k])) fail_msg("label %s missing at %dx%d ascii=%d:\n%s", WORDS[k], w, h, ascii, s);
    assert_non_null(strstr(s, "where attention moves it"));
    assert_non_null(strstr(s, "random weights (seed 42): the arithmetic of attention, not word meaning"));
    assert_null(strstr(s, "verb"));
    assert_non_null(strstr(s, "head 1/2: D = O_1 W_O[1]"));
    assert_non_null(strstr(s, "PC1 "));
    int plot_rows = h - 4;
    if (ascii) {
        assert_int_equal(count_braille(s), 0);
        for (const unsigned char *p = (const unsigned char *)s; *p; p++) assert_true(*p < 0x80);
        /* '*' for X (plain, or bold for the cursor's token), X + D an
         * arrow's head (bold): > < ^ v. */
        assert_true(count_cells(cv, plot_rows, "*", ST_REVERSE, 0) >= 1);
        int heads = 0;
        for (int k = 0; k < 4; k++) heads += count_cells(cv, plot_rows, ASCII_HEADS[k], ST_BOLD | ST_REVERSE, ST_BOLD);
        assert_true(heads >= 1);
        assert_true(count_cells(cv, plot_rows, ".", ST_REVERSE, 0) >= 1);
    } else {
        assert_true(count_braille(s) > 10);
        assert_true(count_cells(cv, plot_rows, "\xe2\xa0\xb6", ST_REVERSE, 0) >= 1); /* X: U+2836 */
        int heads = 0; /* X + D: an arrow's head, ▸ ◂ ▴ ▾ */
        for (int k = 0; k < 4; k++) heads += count_cells(cv, plot_rows, UNICODE_HEADS[k], ST_REVERSE, 0);
        assert_true(heads >= 1);
    }
    /* The cursor's token (row 0, Mary) has the one reversed label. */
    int rev = 0;
    for (int y = 0; y < cv->h; y++)
        for (int x = 0; x < cv->w; x++) rev += (cv_cell(cv, y, x)->st.attr & ST_REVERSE) != 0;
    assert_int_equal(rev, 4);
    free(s);
    cv_free(cv);
    app_free(&a);
    model_free(m);
}

static void test_unicode_80x20(void **state) { (void)state, check_picture(0, 80, 20); }
static void test_unicode_120x40(void **state) { (void)state, check_picture(0, 120, 40); }
static void test_ascii_80x20(void **state) { (void)state, check_picture(1, 80, 20); }
static void test_ascii_120x40(void **state) { (void)state, check_picture(1, 120, 40); }

static void test_head_and_all_heads_change_picture(void **state) {
    (void)state;
    Model *m = sentence_model();
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    char *h1 = render(&a, 80, 20, 0);
    a.head = 1;
    char *h2 = render(&a, 80, 20, 0);
    char *all = render(&a, 80, 20, 1);
    assert_string_not_equal(h1, h2);
    assert_string_not_equal(h1, all);
    assert_string_not_equal(h2, all);
    assert_non_null(strstr(h2, "head 2/2: D = O_2 W_O[2]"));
    assert_non_null(strstr(all, "all 2 heads: D = Y"));
    /* Moving the cursor moves the highlight, not the points. */
    a.ci = 2;
    char *c2 = render(&a, 80, 20, 1);
    Canvas *cv = draw(&a, 80, 20, 1);
    int found = 0;
    for (int y = 0; y < cv->h && !found; y++)
        for (int x = 0; x + 3 <= cv->w; x++)
            if (strcmp(cv_cell(cv, y, x)->ch, "B") == 0 && (cv_cell(cv, y, x)->st.attr & ST_REVERSE)) found = 1;
    assert_true(found);
    cv_free(cv);
    free(h1);
    free(h2);
    free(all);
    free(c2);
    app_free(&a);
    model_free(m);
}

static void test_deterministic(void **state) {
    (void)state;
    for (int ascii = 0; ascii < 2; ascii++) {
        Model *m1 = sentence_model(), *m2 = sentence_model();
        App a1, a2;
        app_init(&a1, m1, TIER_256, ascii, 1, NULL);
        app_init(&a2, m2, TIER_256, ascii, 1, NULL);
        Canvas *c1 = draw(&a1, 120, 40, 0), *c2 = draw(&a2, 120, 40, 0);
        char *s1 = cv_render(c1, 1, TIER_256), *s2 = cv_render(c2, 1, TIER_256);
        assert_string_equal(s1, s2);
        /* Colour: the X points and the moved points in different colours. */
        assert_non_null(strstr(s1, "\033[0;38;5;6m"));
        assert_non_null(strstr(s1, "\033[0;1;38;5;1m"));
        free(s1);
        free(s2);
        /* Drawn again on the same app: the same cells. */
        Canvas *c3 = draw(&a1, 120, 40, 0);
        for (int k = 0; k < 120 * 40; k++) {
            const Cell *x = &c1->cells[k], *y = &c3->cells[k];
            assert_string_equal(x->ch, y->ch);
            assert_true(x->width == y->width && x->st.fg == y->st.fg && x->st.bg == y->st.bg &&
                        x->st.attr == y->st.attr);
        }
        cv_free(c1);
        cv_free(c2);
        cv_free(c3);
        app_free(&a1);
        app_free(&a2);
        model_free(m1);
        model_free(m2);
    }
}

static int nonblank(const char *s) {
    for (; *s; s++)
        if (*s != ' ' && *s != '\n') return 1;
    return 0;
}

static void test_small_canvases(void **state) {
    (void)state;
    Model *m = sentence_model();
    App a;
    for (int ascii = 0; ascii < 2; ascii++) {
        app_init(&a, m, TIER_8, ascii, 1, NULL);
        char *s = render(&a, 20, 6, 0);
        assert_true(nonblank(s));
        assert_non_null(strstr(s, "X + "));
        free(s);
        s = render(&a, 20, 2, 0);
        assert_non_null(strstr(s, "too small"));
        free(s);
        static const int sizes[][2] = {{1, 1}, {2, 9}, {9, 2}, {10, 3}, {11, 7}, {200, 4}, {30, 100}};
        for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
            s = render(&a, sizes[k][0], sizes[k][1], k % 2);
            free(s);
        }
        app_free(&a);
    }
    model_free(m);
}

/* The view writes only into rows y0 .. y0+h-1. */
static void test_stays_in_its_rows(void **state) {
    (void)state;
    Model *m = sentence_model();
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    Canvas *cv = cv_new(80, 30);
    for (int y = 0; y < 30; y++) cv_fill(cv, y, 0, 80, "Z", style_plain());
    gravity_draw(&a, cv, 5, 20, 0);
    int inside = 0;
    for (int y = 0; y < 30; y++)
        for (int x = 0; x < 80; x++) {
            int z = strcmp(cv_cell(cv, y, x)->ch, "Z") == 0;
            if (y < 5 || y >= 25) assert_true(z);
            else inside += !z;
        }
    assert_true(inside > 50);
    /* Rows past the canvas are clipped, not written. */
    gravity_draw(&a, cv, 20, 40, 1);
    gravity_draw(&a, cv, -10, 15, 1);
    cv_free(cv);
    app_free(&a);
    model_free(m);
}

static void test_qkv_not_available(void **state) {
    (void)state;
    static const char txt[] = "tokens: a b\nQ:\n1 0\n0 1\nK:\n1 0\n0 1\nV:\n1 2\n3 4\n";
    QkvData d;
    AvError err = {0};
    if (qkv_parse(&d, txt, strlen(txt), "mem", &err)) fail_msg("%s", err.msg);
    Model *m = model_new();
    assert_non_null(m);
    assert_int_equal(model_set_qkv(m, &d, &err), 0);
    model_update(m, &err);
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    const char *why = NULL;
    assert_int_equal(gravity_available(&a, &why), 0);
    assert_non_null(why);
    assert_non_null(strstr(why, "sentence"));
    char *s = render(&a, 80, 20, 0);
    assert_non_null(strstr(s, why));
    assert_int_equal(count_braille(s), 0);
    free(s);
    float px[4], pm[4];
    assert_int_equal(gravity_points(&a, 0, px, pm), -1);
    assert_null(gravity_axes(&a, NULL));
    app_free(&a);
    model_free(m);
    qkv_free(&d);
}

/* Cross-attention: queries from another sentence, even of the same length,
 * are not the points of X. */
static void test_cross_not_available(void **state) {
    (void)state;
    ModelConfig c = tu_config(16, 2, 8, 8);
    c.attn = ATTN_CROSS;
    Model *m = model_new();
    assert_non_null(m);
    AvError err = {0};
    const char *target = "Bob ignored Mary";
    /* The target first: cross-attention without one is refused. */
    if (model_set_text(m, "Mary greeted Bob", 16, &err) || model_set_target(m, target, strlen(target), &err) ||
        model_set_config(m, &c, &err))
        fail_msg("%s", err.msg);
    model_update(m, &err);
    assert_int_equal(m->n_q, m->n_k);
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    const char *why = NULL;
    assert_int_equal(gravity_available(&a, &why), 0);
    assert_non_null(strstr(why, "self-attention"));
    char *s = render(&a, 80, 20, 0);
    assert_non_null(strstr(s, "self-attention"));
    free(s);
    app_free(&a);
    model_free(m);
}

/* Korean labels (two columns a syllable) keep their width; a long sentence
 * labels what fits and still draws every point. */
static void test_korean_and_many_tokens(void **state) {
    (void)state;
    ModelConfig c = tu_config(16, 2, 8, 8);
    c.pos = POS_SINUSOIDAL;
    Model *m = tu_model("나는 어제 친구와 영화를 봤다", &c);
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    char *s = render(&a, 80, 20, 1);
    assert_non_null(strstr(s, "친구와"));
    assert_non_null(strstr(s, "영화를"));
    free(s);
    app_free(&a);
    model_free(m);

    char *text = malloc(6 * 600 + 1);
    assert_non_null(text);
    size_t len = 0;
    for (int i = 0; i < 600; i++) len += (size_t)sprintf(text + len, "w%03d ", i % 300);
    m = tu_model(text, &c);
    free(text);
    app_init(&a, m, TIER_256, 0, 1, NULL);
    a.ci = 599;
    Canvas *cv = draw(&a, 100, 30, 0);
    s = cv_render(cv, 0, TIER_NONE);
    assert_non_null(strstr(s, "w299")); /* the cursor's label always shows */
    assert_true(count_braille(s) > 100);
    free(s);
    cv_free(cv);
    app_free(&a);
    model_free(m);
}

// ----------------------------------------------------------------------------
// labels, the arrows' factor, the caption (issue 13 item 20)

/* The view's rows on an 80x24 screen: 3 title lines, 2 bottom lines. */
enum { VIEW_ROWS_80x24 = 24 - 3 - 2 };

static Model *default_model(const char *text, MaskKind mask) {
    ModelConfig c;
    model_config_default(&c);
    c.mask = mask;
    return tu_model(text, &c);
}

/* The text of cells [x, x+w) of row y (a wide character's tail is empty). */
static void cells_text(Canvas *cv, int y, int x, int w, char *out, size_t cap) {
    size_t k = 0;
    out[0] = '\0';
    for (int c = x; c < x + w; c++) {
        const char *ch = cv_cell(cv, y, c)->ch;
        size_t l = strlen(ch);
        if (k + l + 1 > cap) break;
        memcpy(out + k, ch, l + 1);
        k += l;
    }
}

/* Every token's label at w x h: beside its point X (the X glyph in that
 * cell), the token's text (whole, or cut with the ellipsis), no two labels on
 * a row overlapping or touching, nothing cut at the edge; a token without a
 * label is a word repeated at the same X as one labelled. Returns how many
 * labels are shortened. */
static int check_labels(App *a, int w, int h, int all_heads, const char *what) {
    Canvas *cv = cv_new(w, h);
    assert_non_null(cv);
    gravity_draw(a, cv, 0, h, all_heads);
    char *screen = cv_render(cv, 0, TIER_NONE);
    if (cv->clipped) fail_msg("%s: %d texts cut at %dx%d:\n%s", what, cv->clipped, w, h, screen);
    const GravityFrame *f = gravity_last_frame(a);
    assert_non_null(f);
    int n = a->m->n_q, cap = w / 4 > 16 ? 16 : w / 4, shortened = 0;
    assert_int_equal(f->n, n);
    const char *xglyph = a->ascii ? "*" : "\xe2\xa0\xb6";
    for (int i = 0; i < n; i++) {
        const int *l = &f->labels[3 * i], *d = &f->dots[4 * i];
        int cx = d[0] / f->sx, cy = d[1] / f->sy;
        char full[256], got[256];
        view_qlabel(a, full, sizeof full, i, cap);
        if (l[2] == 0) { /* labelled once: another token, the same word, the same cell */
            int twin = 0;
            for (int j = 0; j < n && !twin; j++) {
                char other[256];
                view_qlabel(a, other, sizeof other, j, cap);
                twin = j != i && f->labels[3 * j + 2] > 0 && f->dots[4 * j] / f->sx == cx &&
                       f->dots[4 * j + 1] / f->sy == cy && strcmp(other, full) == 0;
            }
            if (!twin) fail_msg("%s: token %d (%s) has no label:\n%s", what, i, full, screen);
            continue;
        }
        if (strcmp(cv_cell(cv, cy, cx)->ch, xglyph) != 0)
            fail_msg("%s: token %d (%s): no X marker at %d,%d:\n%s", what, i, full, cx, cy, screen);
        int lx = l[0], ly = l[1], lw = l[2];
        assert_true(lx >= 0 && lx + lw <= w && ly >= 0 && ly < h);
        char want[256];
        view_qlabel(a, want, sizeof want, i, lw);
        cells_text(cv, ly, lx, lw, got, sizeof got);
        if (strcmp(got, want) != 0) fail_msg("%s: token %d: label '%s', want '%s':\n%s", what, i, got, want, screen);
        shortened += strcmp(want, full) != 0;
        int beside =
            ly == cy ? lx + lw == cx || lx == cx + 1 : (ly == cy - 1 || ly == cy + 1) && lx <= cx + 1 && lx + lw >= cx;
        if (!beside)
            fail_msg("%s: token %d (%s) label at %d,%d not beside its X at %d,%d:\n%s", what, i, full, lx, ly, cx, cy,
                     screen);
        for (int j = 0; j < i; j++) {
            const int *o = &f->labels[3 * j];
            if (o[2] == 0 || o[1] != ly) continue;
            if (lx <= o[0] + o[2] && o[0] <= lx + lw)
                fail_msg("%s: labels of tokens %d and %d overlap or touch:\n%s", what, j, i, screen);
        }
    }
    free(screen);
    cv_free(cv);
    return shortened;
}

static void test_labels_at_80x24(void **state) {
    (void)state;
    static const struct {
        const char *text;
        MaskKind mask;
    } sentences[] = {
        {"the cat sat on the mat because the cat was tired", MASK_NONE},
        {"I saw a movie yesterday and the movie was fun", MASK_CAUSAL},
        {"나는 어제 친구와 영화를 봤는데, 그 영화는 정말 재미있었다", MASK_CAUSAL},
    };
    for (size_t k = 0; k < sizeof sentences / sizeof *sentences; k++)
        for (int ascii = 0; ascii < 2; ascii++) {
            Model *m = default_model(sentences[k].text, sentences[k].mask);
            App a;
            app_init(&a, m, TIER_256, ascii, 1, NULL);
            for (int head = 0; head < m->cfg.heads; head++) {
                a.head = head;
                for (int all = 0; all < 2; all++) {
                    char what[128];
                    snprintf(what, sizeof what, "sentence %zu ascii %d head %d all %d", k, ascii, head, all);
                    /* at 80x24 every word is named, at most a few shortened */
                    assert_true(check_labels(&a, 80, VIEW_ROWS_80x24, all, what) <= 3);
                    check_labels(&a, 200, 50 - 5, all, what);
                    a.ci = (a.ci + 3) % m->n_q; /* the cursor's label first, elsewhere */
                }
            }
            app_free(&a);
            model_free(m);
        }
}

/* A crowd: a label that finds no room is shortened, never cut or
 * overlapping; the cursor's always shows. */
static void test_labels_crowded(void **state) {
    (void)state;
    Model *m = default_model("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho "
                             "sigma tau upsilon phi chi psi omega",
                             MASK_CAUSAL);
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    a.ci = 23;
    Canvas *cv = cv_new(80, 12);
    gravity_draw(&a, cv, 0, 12, 0);
    const GravityFrame *f = gravity_last_frame(&a);
    assert_non_null(f);
    assert_true(f->labels[3 * 23 + 2] > 0);
    assert_int_equal(cv->clipped, 0);
    /* no two labels share a cell */
    for (int i = 0; i < f->n; i++)
        for (int j = 0; j < i; j++) {
            const int *p = &f->labels[3 * i], *q = &f->labels[3 * j];
            if (p[2] && q[2] && p[1] == q[1]) assert_false(p[0] < q[0] + q[2] && q[0] < p[0] + p[2]);
        }
    cv_free(cv);
    app_free(&a);
    model_free(m);
}

/* The cell (x, y) holds a point of the frame (an X or an X + k D) other
 * than `own` (a cell index, -1: none). */
static int foreign_point(const GravityFrame *f, int w, int x, int y, int own) {
    for (int i = 0; i < f->n; i++)
        for (int q = 0; q < 2; q++) {
            const int *d = &f->dots[4 * i + 2 * q];
            if (d[0] < 0) continue;
            int cx = d[0] / f->sx, cy = d[1] / f->sy;
            if (cx == x && cy == y && cy * w + cx != own) return 1;
        }
    return 0;
}

/* Word gravity's labels never collide: on sentences with repeated words, in
 * English and Korean, at 80x24 and 200x50, braille and ASCII, one head and
 * all, the cursor anywhere: no two labels share a cell or touch, and no
 * label has a point but its own right beside it on its row (a label reads
 * as the name of the point it touches). */
static void test_labels_never_collide(void **state) {
    (void)state;
    static const char *const sentences[] = {
        "the cat sat on the mat and the dog sat on the cat",
        "the the the the cat cat cat dog dog",
        "When Mary and John went to the store, John gave a drink to Mary",
        "나는 어제 친구와 영화를 봤는데, 그 영화는 정말 재미있었다",
        "나는 나는 영화 영화 영화를 영화는 봤다 봤다",
        "어텐션 메커니즘 쉽게 이해하기: 쿼리 키 밸류와 소프트맥스를 단어 중력으로 설명하다 핵심 메시지 어텐션은 "
        "단어들이 임베딩 공간에서 서로를 끌어당기는 중력으로",
    };
    static const struct { int w, h; } sizes[] = {{80, VIEW_ROWS_80x24}, {200, 50 - 5}};
    int frames = 0, named = 0;
    for (size_t k = 0; k < sizeof sentences / sizeof *sentences; k++)
        for (int seed = 0; seed < 3; seed++)
            for (int ascii = 0; ascii < 2; ascii++) {
                ModelConfig c;
                model_config_default(&c);
                c.seed = (uint64_t)seed;
                c.mask = seed == 1 ? MASK_NONE : MASK_CAUSAL;
                Model *m = tu_model(sentences[k], &c);
                App a;
                app_init(&a, m, TIER_256, ascii, 1, NULL);
                for (int head = 0; head < m->cfg.heads; head++)
                    for (int all = 0; all < 2; all++)
                        for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
                            a.head = head;
                            a.ci = (head * 5 + all * 3) % m->n_q;
                            Canvas *cv = draw(&a, sizes[z].w, sizes[z].h, all);
                            const GravityFrame *f = gravity_last_frame(&a);
                            frames++;
                            for (int i = 0; i < f->n; i++) {
                                const int *p = &f->labels[3 * i];
                                if (!p[2]) continue;
                                named++;
                                int own = (f->dots[4 * i + 1] / f->sy) * cv->w + f->dots[4 * i] / f->sx;
                                for (int j = 0; j < i; j++) {
                                    const int *o = &f->labels[3 * j];
                                    if (o[2] && o[1] == p[1] && p[0] <= o[0] + o[2] && o[0] <= p[0] + p[2])
                                        fail_msg("sentence %zu seed %d ascii %d head %d all %d %dx%d: labels of %d "
                                                 "and %d share or touch a cell:\n%s",
                                                 k, seed, ascii, head, all, sizes[z].w, sizes[z].h, j, i,
                                                 cv_render(cv, 0, TIER_NONE));
                                }
                                if (foreign_point(f, cv->w, p[0] - 1, p[1], own) ||
                                    foreign_point(f, cv->w, p[0] + p[2], p[1], own))
                                    fail_msg("sentence %zu seed %d ascii %d head %d all %d %dx%d: token %d's label "
                                             "touches another point:\n%s",
                                             k, seed, ascii, head, all, sizes[z].w, sizes[z].h, i,
                                             cv_render(cv, 0, TIER_NONE));
                            }
                            cv_free(cv);
                        }
                app_free(&a);
                model_free(m);
            }
    assert_true(frames == 6 * 3 * 2 * 4 * 2 * 2);
    assert_true(named > frames * 5); /* labels there are, most of them */
}

/* Each arrow ends in its head, pointing the way the token moved as seen on
 * the screen (the longer side of the arrow; an ASCII cell is twice as tall
 * as wide): ▸ ◂ ▴ ▾, ASCII > < ^ v; in its colour, bold. */
static void test_arrowheads(void **state) {
    (void)state;
    static const char *const sentences[] = {"I saw a movie yesterday and the movie was fun",
                                            "나는 어제 친구와 영화를 봤는데, 그 영화는 정말 재미있었다"};
    int checked = 0;
    for (size_t k = 0; k < 2; k++)
        for (int ascii = 0; ascii < 2; ascii++) {
            Model *m = default_model(sentences[k], MASK_CAUSAL);
            App a;
            app_init(&a, m, TIER_256, ascii, 1, NULL);
            for (int all = 0; all < 2; all++) {
                Canvas *cv = draw(&a, 120, 40, all);
                const GravityFrame *f = gravity_last_frame(&a);
                for (int i = 0; i < f->n; i++) {
                    const int *d = &f->dots[4 * i];
                    int dx = d[2] - d[0], dy = (d[3] - d[1]) * (ascii ? 2 : 1);
                    int x = d[2] / f->sx, y = d[3] / f->sy;
                    /* only a head alone in its cell (not under a point X or another head) */
                    int alone = 1;
                    for (int j = 0; j < f->n && alone; j++)
                        for (int q = 0; q < 2; q++)
                            if ((j != i || q == 0) && f->dots[4 * j + 2 * q] / f->sx == x &&
                                f->dots[4 * j + 2 * q + 1] / f->sy == y)
                                alone = 0;
                    if (!alone || (dx == 0 && dy == 0)) continue;
                    int way = abs(dx) >= abs(dy) ? (dx > 0 ? 0 : 1) : (dy > 0 ? 3 : 2);
                    const char *want = ascii ? ASCII_HEADS[way] : UNICODE_HEADS[way];
                    const Cell *c = cv_cell(cv, y, x);
                    if (strcmp(c->ch, want) != 0)
                        fail_msg("token %d moved (%d, %d): head '%s', want '%s':\n%s", i, dx, dy, c->ch, want,
                                 cv_render(cv, 0, TIER_NONE));
                    assert_true(c->st.attr & ST_BOLD);
                    assert_int_equal(c->st.fg, 1); /* red, the moved points' colour */
                    checked++;
                }
                cv_free(cv);
            }
            app_free(&a);
            model_free(m);
        }
    assert_true(checked >= 20);
}

/* The arrows: drawn k times D (in dots, within the rounding of each end),
 * k a 1-2-5 step that makes the longest arrow about the RMS radius of the
 * points X, and k written in the caption. */
static void test_scale_stated_and_applied(void **state) {
    (void)state;
    Model *m = default_model("the cat sat on the mat because the cat was tired", MASK_CAUSAL);
    int n = m->n_q, scaled = 0;
    float *px = malloc(sizeof(float) * 2 * n), *pm = malloc(sizeof(float) * 2 * n);
    assert_true(px && pm);
    for (int ascii = 0; ascii < 2; ascii++) {
        App a;
        app_init(&a, m, TIER_NONE, ascii, 1, NULL);
        for (int head = 0; head < m->cfg.heads; head++)
            for (int all = 0; all < 2; all++) {
                a.head = head;
                Canvas *cv = draw(&a, 80, VIEW_ROWS_80x24, all);
                const GravityFrame *f = gravity_last_frame(&a);
                assert_non_null(f);
                double k = f->k;
                assert_true(k == gravity_scale(&a, all));
                double e = pow(10, floor(log10(k))), step = k / e;
                assert_true(fabs(step - 1) < 1e-9 || fabs(step - 2) < 1e-9 || fabs(step - 5) < 1e-9);
                assert_int_equal(gravity_points(&a, all, px, pm), 0);
                double r2 = 0, cx = 0, cy = 0, l = 0;
                for (int i = 0; i < n; i++) cx += px[2 * i] / n, cy += px[2 * i + 1] / n;
                for (int i = 0; i < n; i++) {
                    const int *d = &f->dots[4 * i];
                    double dx = pm[2 * i] - px[2 * i], dy = pm[2 * i + 1] - px[2 * i + 1];
                    assert_true(fabs((d[2] - d[0]) - k * dx * f->s) <= 1.0 + 1e-6);
                    assert_true(fabs((d[3] - d[1]) + k * dy * f->s / f->aspect) <= 1.0 + 1e-6);
                    r2 += (px[2 * i] - cx) * (px[2 * i] - cx) + (px[2 * i + 1] - cy) * (px[2 * i + 1] - cy);
                    if (hypot(dx, dy) > l) l = hypot(dx, dy);
                }
                double ratio = k * l / sqrt(r2 / n); /* the longest arrow over the radius */
                assert_true(ratio >= 0.5 - 1e-9 && ratio <= 2 + 1e-9);
                char *s = cv_render(cv, 0, TIER_NONE), want[64];
                if (k == 1) assert_non_null(strstr(s, "to scale"));
                else {
                    scaled++;
                    snprintf(want, sizeof want, "X + %gD", k);
                    if (!strstr(s, want)) fail_msg("'%s' missing:\n%s", want, s);
                    snprintf(want, sizeof want, "arrows %s%g", ascii ? "x" : "\xc3\x97", k);
                    if (!strstr(s, want)) fail_msg("'%s' missing:\n%s", want, s);
                }
                free(s);
                cv_free(cv);
            }
        app_free(&a);
    }
    assert_true(scaled > 0); /* random weights move a token little: the arrows are scaled up */
    free(px);
    free(pm);
    model_free(m);
}

/* Random weights: what the picture is, and no claim of meaning; a repeated
 * word's two tokens share X, and attention keeps them together without a mask
 * (the same query, keys and values) and parts them under the causal mask. */
static void test_caption_seeded(void **state) {
    (void)state;
    for (int causal = 0; causal < 2; causal++) {
        Model *m = default_model("the cat sat on the mat because the cat was tired", causal ? MASK_CAUSAL : MASK_NONE);
        App a;
        app_init(&a, m, TIER_NONE, 0, 1, NULL);
        char *s = render(&a, 80, VIEW_ROWS_80x24, 0);
        assert_non_null(strstr(s, "where attention moves each token's vector, on the first two principal axes of X"));
        assert_non_null(strstr(s, "random weights (seed 42): the arithmetic of attention, not word meaning"));
        assert_non_null(strstr(s, "head 1/4: D = O_1 W_O[1]"));
        assert_null(strstr(s, "trained"));
        assert_null(strstr(s, "verb"));
        free(s);
        s = render(&a, 200, 45, 1);
        const char *fact = causal ? "the (tokens 1 and 5) start at one X, the same embedding (no position added); "
                                    "attention moves them apart"
                                  : "the (tokens 1 and 5) start at one X, the same embedding (no position added); "
                                    "attention keeps them together";
        if (!strstr(s, fact)) fail_msg("'%s' missing:\n%s", fact, s);
        assert_non_null(strstr(s, "all 4 heads: D = Y = concat W_O"));
        free(s);
        app_free(&a);
        model_free(m);
    }
    ModelConfig c;
    model_config_default(&c);
    c.seed = 7;
    c.pos = POS_SINUSOIDAL;
    Model *m = tu_model("the cat sat on the mat", &c);
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    char *s = render(&a, 200, 45, 0);
    assert_non_null(strstr(s, "random weights (seed 7)"));
    assert_null(strstr(s, "start at one X")); /* positions part the two "the" */
    free(s);
    app_free(&a);
    model_free(m);
}

static void press(App *a, uint32_t c) {
    AppKey k = {0, c};
    app_key(a, k);
    app_update(a);
}

/* A trained model: X is the layer's input, X + D (all heads) is the
 * model's own residual after attention (mid), each head's D sums to it,
 * and the caption says so, with the two "Lily" of layer 1 at one X. */
static void test_trained_model(void **state) {
    (void)state;
    char path[512];
    if (!models_path(path, sizeof path, "stories260K.bin")) return;
    static const char sentence[] = "Lily saw a cat. Lily";
    Model *m = model_new();
    assert_non_null(m);
    AvError err = {0};
    if (model_set_trained(m, path, NULL, sentence, strlen(sentence), &err)) fail_msg("%s", err.msg);
    ModelConfig c = m->cfg;
    c.mask = MASK_CAUSAL;
    if (model_set_config(m, &c, &err) || model_update(m, &err)) fail_msg("%s", err.msg);
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    assert_true(gravity_available(&a, NULL));
    for (int layer = 0; layer < 2; layer++) {
        int n = m->n_q;
        LayerChain v;
        assert_int_equal(model_layer_chain(m, m->layer, &v, &err), 0);
        assert_int_equal(v.n, n);
        float *px = malloc(sizeof(float) * 2 * n), *pm = malloc(sizeof(float) * 2 * n);
        float *ref = malloc(sizeof(float) * 2 * n), *sum = calloc(2 * n, sizeof(float));
        float mean[MODEL_MAX_DIM];
        assert_true(px && pm && ref && sum);
        double var[2];
        const float *axes = gravity_axes(&a, var);
        assert_non_null(axes);
        pca_mean(mean, v.x, n, v.dim);
        pca_project(ref, v.mid, mean, axes, n, v.dim);
        assert_int_equal(gravity_points(&a, 1, px, pm), 0);
        for (int k = 0; k < 2 * n; k++) assert_near(pm[k], ref[k], 1e-3 * (1 + fabs(ref[k])));
        pca_project(ref, v.x, mean, axes, n, v.dim);
        for (int k = 0; k < 2 * n; k++) assert_near(px[k], ref[k], 1e-4 * (1 + fabs(ref[k])));
        for (int h = 0; h < m->cfg.heads; h++) {
            a.head = h;
            assert_int_equal(gravity_points(&a, 0, px, ref), 0);
            for (int k = 0; k < 2 * n; k++) sum[k] += ref[k] - px[k];
        }
        a.head = 0;
        for (int k = 0; k < 2 * n; k++) assert_near(pm[k] - px[k], sum[k], 1e-3 * (1 + fabs(sum[k])));
        char *s = render(&a, 80, VIEW_ROWS_80x24, 0), want[128];
        snprintf(want, sizeof want, "trained stories260K layer %d/5: X is the residual stream in", layer + 1);
        if (!strstr(s, want)) fail_msg("'%s' missing:\n%s", want, s);
        assert_non_null(strstr(s, "head 1/8: D = O_1 W_o[1]"));
        assert_null(strstr(s, "random"));
        assert_null(strstr(s, "verb"));
        const char *lily = "\xe2\x96\x81Lily (tokens 2 and 8) start at one X";
        if (layer == 0 && !strstr(s, lily)) fail_msg("'%s' missing:\n%s", lily, s);
        if (layer == 1) assert_null(strstr(s, "start at one X")); /* layer 2's X holds layer 1's attention */
        free(s);
        assert_int_equal(check_labels(&a, 80, VIEW_ROWS_80x24, layer, "stories260K"), 0);
        s = render(&a, 200, 45, 1);
        assert_non_null(strstr(s, "all 8 heads: D = att W_o"));
        assert_non_null(strstr(s, "X + D = x + att W_o"));
        free(s);
        free(px);
        free(pm);
        free(ref);
        free(sum);
        press(&a, '}');
        assert_int_equal(m->layer, layer + 1);
    }
    app_free(&a);
    model_free(m);
}

static int setup(void **state) {
    (void)state;
    return setlocale(LC_ALL, "C.UTF-8") ? 0 : -1;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_points),
        cmocka_unit_test(test_unicode_80x20),
        cmocka_unit_test(test_unicode_120x40),
        cmocka_unit_test(test_ascii_80x20),
        cmocka_unit_test(test_ascii_120x40),
        cmocka_unit_test(test_head_and_all_heads_change_picture),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_small_canvases),
        cmocka_unit_test(test_stays_in_its_rows),
        cmocka_unit_test(test_qkv_not_available),
        cmocka_unit_test(test_cross_not_available),
        cmocka_unit_test(test_korean_and_many_tokens),
        cmocka_unit_test(test_labels_at_80x24),
        cmocka_unit_test(test_labels_crowded),
        cmocka_unit_test(test_labels_never_collide),
        cmocka_unit_test(test_arrowheads),
        cmocka_unit_test(test_scale_stated_and_applied),
        cmocka_unit_test(test_caption_seeded),
        cmocka_unit_test(test_trained_model),
    };
    return cmocka_run_group_tests_name("gravity", tests, setup, NULL);
}
