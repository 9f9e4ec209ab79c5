/* test_census.c - the head census (src/core/census.c): each score on weights set
 * by hand, where every value is known; induction undefined without a repeat
 * and sorted last; cross-attention refused; and on stories260K with "Lily saw
 * a cat. Lily" the best induction head is in the last layer and its last row
 * puts nearly all its weight on " saw" (skipped without ../shared/models). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "testutil.h"

#include "census.h"
#include "models.h"
#include "source_trained.h"

/* A seeded model of text (words tokenizer, causal), heads heads of d_k 4. */
static Model *seeded(const char *text, int heads) {
    ModelConfig c = tu_config(8, heads, 4, 4);
    c.mask = MASK_CAUSAL;
    return tu_model(text, &c);
}

/* Head h's weights (n x n) and row entropies set by hand. */
static void set_head(Model *m, int h, const float *w, const double *entropy) {
    int n = m->n_q;
    HeadData *hd = &model_layer_heads(m, 0)[h];
    memcpy(hd->weights, w, sizeof(float) * (size_t)n * n);
    for (int i = 0; i < n; i++) hd->entropy[i] = entropy[i];
}

/* "a a b a": token 3 has two earlier copies (0 and 1), so induction sums
 * A[3][1] + A[3][2]; token 1's copy 0 is right before it (its key 1 is
 * itself): no induction row. */
static const float W0[16] = {
    1.0f,  0,     0,    0,    /* row 0 */
    0.25f, 0.75f, 0,    0,    /* row 1 */
    0.5f,  0.2f,  0.3f, 0,    /* row 2 */
    0.1f,  0.2f,  0.3f, 0.4f, /* row 3 */
};
static const float W1[16] = {
    1.0f, 0,     0,     0,    /* */
    1.0f, 0,     0,     0,    /* */
    0.9f, 0.05f, 0.05f, 0,    /* */
    0.0f, 0.0f,  0.0f,  1.0f, /* */
};

static void test_hand_set_scores(void **state) {
    (void)state;
    Model *m = seeded("a a b a", 2);
    assert_int_equal(m->n_q, 4);
    assert_int_equal(model_key_id(m, 0), model_key_id(m, 3)); /* the words tokenizer gives "a" one id */
    const double H0[4] = {0, 1, 2, 3}, H1[4] = {0, 0, 0.5, 0.5};
    set_head(m, 0, W0, H0);
    set_head(m, 1, W1, H1);
    Census c;
    AvError err = {0};
    assert_int_equal(census_compute(&c, m, &err), 0);
    assert_int_equal(c.n, 2);
    assert_int_equal(c.repeat_rows, 1);
    const CensusRow *r = &c.rows[0];
    assert_int_equal(r->layer, 0);
    assert_int_equal(r->head, 0);
    assert_near(r->score[CENSUS_PREV], (0.25 + 0.2 + 0.3) / 3, 1e-6);
    assert_near(r->score[CENSUS_SINK], (0.25 + 0.5 + 0.1) / 3, 1e-6);
    assert_near(r->score[CENSUS_SELF], (0.75 + 0.3 + 0.4) / 3, 1e-6);
    assert_near(r->score[CENSUS_INDUCTION], 0.2 + 0.3, 1e-6);
    assert_near(r->score[CENSUS_ENTROPY], 1.5, 1e-12);
    r = &c.rows[1];
    assert_int_equal(r->head, 1);
    assert_near(r->score[CENSUS_PREV], (1.0 + 0.05 + 0.0) / 3, 1e-6);
    assert_near(r->score[CENSUS_SINK], (1.0 + 0.9 + 0.0) / 3, 1e-6);
    assert_near(r->score[CENSUS_SELF], (0 + 0.05 + 1.0) / 3, 1e-6);
    assert_near(r->score[CENSUS_INDUCTION], 0.0, 1e-9);
    assert_near(r->score[CENSUS_ENTROPY], 0.25, 1e-12);

    /* Sorted largest first: head 1 leads by sink, head 0 by induction. */
    int order[2];
    census_sort(order, &c, CENSUS_SINK);
    assert_int_equal(order[0], 1);
    assert_int_equal(order[1], 0);
    census_sort(order, &c, CENSUS_INDUCTION);
    assert_int_equal(order[0], 0);
    assert_int_equal(census_best(&c, CENSUS_SELF), 0);
    assert_int_equal(census_best(&c, CENSUS_PREV), 1);
    census_free(&c);
    assert_null(c.rows);
    census_free(NULL);
    model_free(m);
}

/* Induction needs a repeated token: NAN without one, sorted after every
 * defined score and never the best. */
static void test_no_repeat(void **state) {
    (void)state;
    Model *m = seeded("the cat sat", 4);
    Census c;
    AvError err = {0};
    assert_int_equal(census_compute(&c, m, &err), 0);
    assert_int_equal(c.n, 4);
    assert_int_equal(c.repeat_rows, 0);
    for (int k = 0; k < c.n; k++) {
        assert_true(isnan(c.rows[k].score[CENSUS_INDUCTION]));
        for (int s = 0; s < CENSUS_SCORE_COUNT; s++) {
            if (s == CENSUS_INDUCTION) continue;
            assert_false(isnan(c.rows[k].score[s]));
            assert_true(c.rows[k].score[s] >= 0.0);
        }
    }
    assert_int_equal(census_best(&c, CENSUS_INDUCTION), -1);
    int order[4];
    census_sort(order, &c, CENSUS_INDUCTION); /* all undefined: layer and head order */
    for (int k = 0; k < 4; k++) assert_int_equal(order[k], k);
    census_free(&c);

    /* Under the causal mask row 0 sees only itself: sink, prev and self leave
     * it out, so one head's sink is the mean of rows 1 and 2. */
    Model *one = seeded("the cat sat", 1);
    assert_int_equal(census_compute(&c, one, &err), 0);
    const HeadData *hd = model_layer_heads(one, 0);
    assert_near(hd->weights[0], 1.0, 1e-6);
    assert_near(c.rows[0].score[CENSUS_SINK], (hd->weights[3] + hd->weights[6]) / 2.0, 1e-6);
    assert_near(c.rows[0].score[CENSUS_PREV], (hd->weights[3] + hd->weights[7]) / 2.0, 1e-6);
    assert_near(c.rows[0].score[CENSUS_SELF], (hd->weights[4] + hd->weights[8]) / 2.0, 1e-6);
    census_free(&c);
    model_free(one);
    model_free(m);
}

// ----------------------------------------------------------------------------
// pattern classes (census.h: census_class) on matrices made by hand

enum { CN = 8 }; /* "a b c d e f g a": token 7 repeats token 0 */

/* A causal matrix: row i puts `share` on key pick(i) and spreads the rest
 * evenly over its other keys 0..i (row 0: all on key 0); entropies of the
 * rows to match. */
static void make_rows(float *w, double *h, double share, int (*pick)(int)) {
    memset(w, 0, sizeof(float) * CN * CN);
    for (int i = 0; i < CN; i++) {
        int k = pick(i), others = i;
        if (i == 0) {
            w[0] = 1.0f, h[0] = 0.0;
            continue;
        }
        double rest = (1.0 - share) / others, e = share > 0 ? -share * log2(share) : 0.0;
        for (int j = 0; j <= i; j++) w[i * CN + j] = (float)(j == k ? share : rest);
        if (rest > 0) e -= others * rest * log2(rest);
        h[i] = e;
    }
}

static int pick_prev(int i) { return i > 0 ? i - 1 : 0; }
static int pick_first(int i) {
    (void)i;
    return 0;
}
static int pick_self(int i) { return i; }
static int pick_after_copy(int i) { return i == CN - 1 ? 1 : i; } /* row 7 ("a") on key 1, after the first "a" */

static HeadClass class_of(Model *m, const float *w, const double *h, CensusRow *out) {
    set_head(m, 0, w, h);
    Census c;
    AvError err = {0};
    assert_int_equal(census_compute(&c, m, &err), 0);
    *out = c.rows[0];
    HeadClass k = census_class(&c.rows[0], c.max_entropy);
    census_free(&c);
    return k;
}

/* census_order: largest first, NAN last, ties in index order (the order of
 * the battery columns of a trained model's census). */
static void test_order_values(void **state) {
    (void)state;
    const double v[6] = {0.2, NAN, 0.9, 0.2, NAN, 0.5};
    int order[6];
    census_order(order, v, 6);
    const int want[6] = {2, 5, 0, 3, 1, 4};
    for (int i = 0; i < 6; i++) assert_int_equal(order[i], want[i]);
}

static void test_classes_by_hand(void **state) {
    (void)state;
    Model *m = seeded("a b c d e f g a", 1);
    assert_int_equal(m->n_q, CN);
    float w[CN * CN];
    double h[CN];
    CensusRow r;
    /* All the weight on one key: that key's class. */
    make_rows(w, h, 1.0, pick_prev);
    assert_int_equal(class_of(m, w, h, &r), HEAD_PREV);
    assert_near(r.score[CENSUS_PREV], 1.0, 1e-6);
    make_rows(w, h, 1.0, pick_first);
    assert_int_equal(class_of(m, w, h, &r), HEAD_SINK);
    make_rows(w, h, 1.0, pick_self);
    assert_int_equal(class_of(m, w, h, &r), HEAD_SELF);
    /* Row 7 alone has an earlier copy and puts all on the key after it
     * (induction 1); rows 1-6 on themselves (self 6/7): induction leads. */
    make_rows(w, h, 1.0, pick_after_copy);
    assert_int_equal(class_of(m, w, h, &r), HEAD_INDUCTION);
    assert_near(r.score[CENSUS_INDUCTION], 1.0, 1e-6);
    assert_near(r.score[CENSUS_SELF], 6.0 / 7.0, 1e-6);
    /* The threshold: a share just over .5 on the previous token is P, just
     * under it is not (its rows spread the rest evenly: broad or mixed). */
    make_rows(w, h, 0.52, pick_prev);
    assert_int_equal(class_of(m, w, h, &r), HEAD_PREV);
    make_rows(w, h, 0.45, pick_prev);
    assert_int_not_equal(class_of(m, w, h, &r), HEAD_PREV);
    assert_true(r.score[CENSUS_PREV] < CENSUS_CLASS_SHARE);
    /* Uniform over the keys each row may see: the entropy is the largest it
     * can be, broad. */
    for (int i = 0; i < CN; i++) {
        for (int j = 0; j < CN; j++) w[i * CN + j] = j <= i ? 1.0f / (float)(i + 1) : 0.0f;
        h[i] = log2(i + 1.0);
    }
    assert_int_equal(class_of(m, w, h, &r), HEAD_BROAD);
    /* Two keys share each row (.4 on the first, .4 on the previous, .2 on
     * itself): no score reaches .5 and the entropy stays low: mixed. */
    for (int i = 0; i < CN; i++) {
        memset(w + i * CN, 0, sizeof(float) * CN);
        if (i < 2) {
            w[i * CN] = i == 0 ? 1.0f : 0.5f;
            if (i == 1) w[i * CN + 1] = 0.5f;
            h[i] = i == 0 ? 0 : 1;
            continue;
        }
        w[i * CN] = 0.4f, w[i * CN + i - 1] = 0.4f, w[i * CN + i] = 0.2f;
        h[i] = -(0.8 * log2(0.4) + 0.2 * log2(0.2));
    }
    HeadClass k = class_of(m, w, h, &r);
    assert_true(r.score[CENSUS_SINK] < CENSUS_CLASS_SHARE && r.score[CENSUS_PREV] < CENSUS_CLASS_SHARE);
    assert_int_equal(k, HEAD_MIXED);
    model_free(m);
}

/* The class from the scores alone: the largest at or over .5 wins, ties in
 * the order sink, prev, self, induction; an undefined induction does not
 * count; broad needs .8 of the largest entropy. */
static void test_class_rule(void **state) {
    (void)state;
    CensusRow r = {0};
    double *s = r.score;
    s[CENSUS_PREV] = 0.3, s[CENSUS_SINK] = 0.6, s[CENSUS_SELF] = 0.7, s[CENSUS_INDUCTION] = NAN, s[CENSUS_ENTROPY] = 1;
    assert_int_equal(census_class(&r, 3.0), HEAD_SELF);
    s[CENSUS_INDUCTION] = 0.71;
    assert_int_equal(census_class(&r, 3.0), HEAD_INDUCTION);
    s[CENSUS_PREV] = s[CENSUS_SINK] = s[CENSUS_SELF] = s[CENSUS_INDUCTION] = 0.5;
    assert_int_equal(census_class(&r, 3.0), HEAD_SINK);
    s[CENSUS_PREV] = s[CENSUS_SINK] = s[CENSUS_SELF] = 0.2, s[CENSUS_INDUCTION] = NAN;
    s[CENSUS_ENTROPY] = 2.41;
    assert_int_equal(census_class(&r, 3.0), HEAD_BROAD); /* over .8 x 3 */
    s[CENSUS_ENTROPY] = 2.39;
    assert_int_equal(census_class(&r, 3.0), HEAD_MIXED);
    assert_string_equal(census_class_letter(HEAD_PREV, 0), "P");
    assert_string_equal(census_class_letter(HEAD_MIXED, 1), ".");
    assert_string_equal(census_class_name(HEAD_SINK), "first token (sink)");
}

/* Cross-attention is not square: refused in one line. */
static void test_needs_self_attention(void **state) {
    (void)state;
    Model *m = seeded("the cat sat on the mat", 2);
    AvError err = {0};
    assert_int_equal(model_set_target(m, "le chat", 7, &err), 0);
    ModelConfig c = m->cfg;
    c.attn = ATTN_CROSS;
    c.mask = MASK_NONE;
    assert_int_equal(model_set_config(m, &c, &err), 0);
    assert_int_equal(model_update(m, &err), 0);
    assert_int_not_equal(m->n_q, m->n_k);
    Census cs;
    assert_int_equal(census_compute(&cs, m, &err), -1);
    assert_non_null(strstr(err.msg, "census needs self-attention"));
    assert_null(cs.rows);
    model_free(m);
}

/* stories260K: some head of the last layer copies the word that followed the
 * earlier "Lily": the census's best induction head is in layer 5 and its last
 * row puts nearly all its weight (0.975 measured) on " saw". */
static void test_stories260k_induction_head(void **state) {
    (void)state;
    char path[512];
    if (!models_path(path, sizeof path, "stories260K.bin")) return;
    const char *text = "Lily saw a cat. Lily";
    Model *m = model_new();
    assert_non_null(m);
    AvError err = {0};
    if (model_set_trained(m, path, NULL, text, strlen(text), &err)) fail_msg("%s", err.msg);
    ModelConfig cfg = m->cfg;
    cfg.mask = MASK_CAUSAL;
    if (model_set_config(m, &cfg, &err) || model_update(m, &err)) fail_msg("%s", err.msg);
    assert_int_equal(m->n_q, 8); /* <s> ▁Lily ▁saw ▁a ▁c at . ▁Lily */
    Census c;
    assert_int_equal(census_compute(&c, m, &err), 0);
    assert_int_equal(c.n, 5 * 8);
    assert_int_equal(c.repeat_rows, 1); /* the second Lily */
    int best = census_best(&c, CENSUS_INDUCTION);
    assert_true(best >= 0);
    const CensusRow *r = &c.rows[best];
    assert_int_equal(r->layer, 4);
    assert_true(r->score[CENSUS_INDUCTION] > 0.9);
    const HeadData *hd = &model_layer_heads(m, r->layer)[r->head];
    int n = m->n_q, argmax = 0;
    const float *last = hd->weights + (size_t)(n - 1) * n;
    for (int j = 1; j < n; j++)
        if (last[j] > last[argmax]) argmax = j;
    assert_int_equal(argmax, 2);
    assert_non_null(strstr(model_key_label(m, 2), "saw"));
    assert_true(last[2] > 0.9);
    /* The sort by induction puts it first. */
    int order[40];
    census_sort(order, &c, CENSUS_INDUCTION);
    assert_int_equal(order[0], best);
    census_free(&c);
    model_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_set_scores),      cmocka_unit_test(test_no_repeat),
        cmocka_unit_test(test_needs_self_attention), cmocka_unit_test(test_classes_by_hand),
        cmocka_unit_test(test_class_rule),           cmocka_unit_test(test_stories260k_induction_head),
        cmocka_unit_test(test_order_values),
    };
    return cmocka_run_group_tests_name("census", tests, NULL, NULL);
}
