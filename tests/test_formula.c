/* test_formula.c - the formula texts (formula.h): what each place writes for
 * each score kind, the ASCII forms, and the inspector's "no scaling" against
 * the factor the model really scales by. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "formula.h"

static const char *text_of(FormulaPlace place, Stage stage, ScoreKind kind, int scale, int d_k, int ascii) {
    static char buf[128];
    FormulaOf f = {kind, scale, d_k, ascii};
    return formula_text(buf, sizeof buf, place, stage, &f);
}

static void test_places(void **state) {
    (void)state;
    assert_string_equal(text_of(FORMULA_TITLE, STAGE_WEIGHTS, SCORE_DOT, 1, 16, 0),
                        "weights A = softmax(QKᵀ÷√16, mask)");
    assert_string_equal(text_of(FORMULA_TITLE, STAGE_WEIGHTS, SCORE_DOT, 0, 16, 1), "weights A = softmax(QK^T, mask)");
    assert_string_equal(text_of(FORMULA_TITLE, STAGE_SCALED, SCORE_DOT, 1, 8, 1), "scaled scores S' = QK^T/sqrt(8)");
    /* The title writes the kind in use, and how it is scaled. */
    assert_string_equal(text_of(FORMULA_TITLE, STAGE_SCORES, SCORE_COSINE, 1, 16, 0),
                        "raw scores S = cos(q,k) (before scaling)");
    assert_string_equal(text_of(FORMULA_TITLE, STAGE_WEIGHTS, SCORE_COSINE, 1, 16, 0),
                        "weights A = softmax(cos(q,k)×√16, mask)");
    assert_string_equal(text_of(FORMULA_TITLE, STAGE_WEIGHTS, SCORE_DISTANCE, 1, 16, 0),
                        "weights A = softmax(−|q−k|²÷√16, mask)");
    assert_string_equal(text_of(FORMULA_TITLE, STAGE_WEIGHTS, SCORE_ADDITIVE, 1, 16, 0),
                        "weights A = softmax(vᵀtanh(W1q+W2k), mask)");
    assert_string_equal(text_of(FORMULA_TITLE, STAGE_SCALED, SCORE_ADDITIVE, 1, 16, 0),
                        "scaled scores S' = vᵀtanh(W1q+W2k) (additive: not scaled)");
    assert_string_equal(text_of(FORMULA_TITLE, STAGE_SCALED, SCORE_COSINE, 0, 16, 0),
                        "scaled scores S' = cos(q,k) (scaling off)");
    assert_string_equal(text_of(FORMULA_TITLE, STAGE_SCALED, SCORE_DOT, 1, 1, 0), "scaled scores S' = QKᵀ÷√1");
    assert_string_equal(text_of(FORMULA_PIPELINE, STAGE_SCORES, SCORE_DISTANCE, 1, 16, 0), "S = −|q − k|²");
    assert_string_equal(text_of(FORMULA_PIPELINE, STAGE_SCALED, SCORE_COSINE, 1, 16, 0), "S' = S × √16");
    assert_string_equal(text_of(FORMULA_PIPELINE, STAGE_SCALED, SCORE_ADDITIVE, 1, 16, 0),
                        "S' = S (additive: not scaled)");
    assert_string_equal(text_of(FORMULA_PIPELINE, STAGE_SCALED, SCORE_DOT, 0, 16, 0), "S' = S (scaling off)");
    assert_string_equal(text_of(FORMULA_INSPECTOR, STAGE_SCORES, SCORE_ADDITIVE, 1, 16, 1), "v^Ttanh(W1q+W2k)");
    assert_string_equal(text_of(FORMULA_INSPECTOR, STAGE_SCALED, SCORE_DOT, 1, 1, 0), "÷√1");
    assert_string_equal(text_of(FORMULA_INSPECTOR, STAGE_SCALED, SCORE_DOT, 0, 16, 0), "(scaling off)");
    assert_string_equal(text_of(FORMULA_CELL, STAGE_SCORES, SCORE_COSINE, 1, 16, 0), "cos(q,k) = q·k / (|q| |k|)");
    assert_string_equal(text_of(FORMULA_CELL, STAGE_SCALED, SCORE_DOT, 1, 4, 0), "÷ √4");
    assert_string_equal(text_of(FORMULA_CELL, STAGE_SCALED, SCORE_DOT, 0, 4, 0), "scaling off");
    /* The dump and the messages are ASCII whatever the glyphs. */
    assert_string_equal(text_of(FORMULA_DUMP, STAGE_SCALED, SCORE_COSINE, 1, 3, 0), "scaled = scores * sqrt(3)");
    assert_string_equal(text_of(FORMULA_DUMP, STAGE_SCALED, SCORE_DOT, 0, 3, 0), "scaled = scores (scaling off)");
    assert_string_equal(text_of(FORMULA_MESSAGE, STAGE_SCORES, SCORE_DOT, 1, 16, 0), "q.k, divided by sqrt(d_k)");
    assert_string_equal(text_of(FORMULA_MESSAGE, STAGE_SCORES, SCORE_COSINE, 0, 16, 0),
                        "cos(q,k) = q.k/(|q||k|), not scaled (s: on)");
    assert_string_equal(text_of(FORMULA_MESSAGE, STAGE_SCALED, SCORE_DOT, 1, 16, 0),
                        "scaling on: scores divided by sqrt(16) = 4.000");
    assert_string_equal(text_of(FORMULA_MESSAGE, STAGE_SCALED, SCORE_COSINE, 1, 16, 0),
                        "scaling on: cosine scores multiplied by sqrt(16) = 4.000 (a temperature)");
    /* Cosine is spelled one way: cos(q,k), in every place. */
    for (int p = 0; p < FORMULA_PLACE_COUNT; p++)
        if (!strstr(text_of((FormulaPlace)p, STAGE_SCORES, SCORE_COSINE, 1, 16, 0), "cos(q,k)"))
            fail_msg("place %d: cosine is not cos(q,k)", p);
    /* No place writes a formula of another stage. */
    assert_string_equal(text_of(FORMULA_PIPELINE, STAGE_MASKED, SCORE_DOT, 1, 16, 0), "");
    assert_string_equal(text_of(FORMULA_DUMP, STAGE_WEIGHTS, SCORE_DOT, 1, 16, 0), "");
}

/* Every ASCII form is ASCII, and every place that writes the raw scores
 * writes them for every kind. */
static void test_ascii_and_complete(void **state) {
    (void)state;
    for (int p = 0; p < FORMULA_PLACE_COUNT; p++)
        for (int k = 0; k < SCORE_KIND_COUNT; k++)
            for (int scale = 0; scale < 2; scale++)
                for (int st = STAGE_SCORES; st <= STAGE_WEIGHTS; st++) {
                    const char *t = text_of((FormulaPlace)p, (Stage)st, (ScoreKind)k, scale, 16, 1);
                    for (const unsigned char *c = (const unsigned char *)t; *c; c++)
                        if (*c >= 0x80) fail_msg("place %d stage %d kind %d: '%s' is not ASCII", p, st, k, t);
                    if (st == STAGE_SCORES && !t[0]) fail_msg("place %d kind %d: no raw score formula", p, k);
                }
}

/* Every place states the same scaling case, and it is the factor the model
 * really scales by (model_cell_detail's divisor): ÷√d_k (d_k = 1 too), ×√d_k
 * for cosine, 1 when off or additive. */
static void test_scaling_case_is_the_factor(void **state) {
    (void)state;
    const int dks[] = {1, 2, 16};
    for (int k = 0; k < SCORE_KIND_COUNT; k++)
        for (int scale = 0; scale < 2; scale++)
            for (size_t d = 0; d < sizeof dks / sizeof dks[0]; d++) {
                ModelConfig c = tu_config(8, 1, dks[d], dks[d]);
                c.score = (ScoreKind)k, c.scale = scale;
                Model *m = tu_model("a b", &c);
                CellDetail cd;
                model_cell_detail(m, 0, 0, 1, &cd);
                FormulaOf f = formula_of(&m->cfg, 0);
                FormulaScale sc = formula_scale(FORMULA_TITLE, &f);
                for (int p = 0; p < FORMULA_PLACE_COUNT; p++) assert_int_equal(formula_scale((FormulaPlace)p, &f), sc);
                double want = sc == FORMULA_SCALE_DIVIDE  ? sqrt((double)dks[d])
                              : sc == FORMULA_SCALE_TIMES ? 1.0 / sqrt((double)dks[d])
                                                          : 1.0;
                if (fabs(cd.divisor - want) > 1e-12)
                    fail_msg("kind %d scale %d d_k %d: divisor %g, formula case %d", k, scale, dks[d], cd.divisor,
                             (int)sc);
                assert_int_equal(sc == FORMULA_SCALE_NONE, k == SCORE_ADDITIVE);
                assert_int_equal(sc == FORMULA_SCALE_OFF, k != SCORE_ADDITIVE && !scale);
                model_free(m);
            }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_places),
        cmocka_unit_test(test_ascii_and_complete),
        cmocka_unit_test(test_scaling_case_is_the_factor),
    };
    return cmocka_run_group_tests_name("formula", tests, NULL, NULL);
}
