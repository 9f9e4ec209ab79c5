/* test_interv.c - the interventions on stories260K (../shared/models):
 *   the engine's head ablation (transformer.h: TfAblation, tf_ablate_rows):
 *     the layers below the ablated one keep every bit, the ablated head's
 *     output is zeros or its mean, and a forward recomputed from the first
 *     ablated layer gives the bits of a whole forward;
 *   the trained source's (model_set_ablation): only the layers from the
 *     first changed one go stale, the update then gives the engine's logits
 *     and the next tokens before (the model without the ablation, the
 *     same as before it was set) and after;
 *   the head tests in steps (headrun_begin/step/finish, the census's way)
 *     give the bits of headrun() in one go.
 * The numbers themselves are checked against NumPy by
 * tests/support/interv.py (tests/e2e_interv.sh). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "ablate.h"
#include "formats.h"
#include "headrun.h"
#include "models.h"
#include "source_trained.h"

static const int IDS[8] = {1, 317, 394, 261, 280, 294, 426, 317}; /* <s> Lily saw a cat. Lily */

static int open_model(Checkpoint *ck) {
    char path[512];
    AvError err = {0};
    if (!models_path(path, sizeof path, "stories260K.bin")) return 0;
    if (checkpoint_open(ck, path, NULL, &err)) fail_msg("%s", err.msg);
    return 1;
}

/* Layer by layer, as the source runs it, with the run's ablations. */
static void forward_layers(TfRun *r, int from) {
    for (int l = from; l < r->cfg->n_layers; l++)
        assert_int_equal(tf_layer_qkv(r, l) || tf_layer_attend(r, l) || tf_layer_finish(r, l, NULL), 0);
    assert_int_equal(tf_logits(r), 0);
}

static void test_engine_ablation(void **state) {
    (void)state;
    Checkpoint ck;
    if (!open_model(&ck)) return;
    AvError err = {0};
    const TfConfig *c = &ck.model->cfg;
    TfRun *clean = tf_run_new(ck.model, 8, 1, &err), *abl = tf_run_new(ck.model, 8, 1, &err);
    TfRun *part = tf_run_new(ck.model, 8, 1, &err);
    assert_non_null(clean), assert_non_null(abl), assert_non_null(part);
    assert_int_equal(tf_forward(clean, IDS, 8, &err), 0);
    /* layer 3 head 2 zeroed, layer 4 head 6 set to a constant "mean" */
    float mean[64];
    for (int i = 0; i < c->head_dim; i++) mean[i] = 0.25f * (float)(i + 1);
    TfAblation list[2] = {{2, 1, NULL}, {3, 5, mean}};
    abl->ablate = list, abl->n_ablate = 2;
    assert_int_equal(tf_forward(abl, IDS, 8, &err), 0);
    size_t layer = (size_t)8 * c->dim;
    for (int l = 0; l <= 2; l++) /* the inputs of layers 1..3: untouched */
        assert_memory_equal(tf_run_x(clean, l), tf_run_x(abl, l), sizeof(float) * layer);
    assert_memory_not_equal(tf_run_x(clean, 3), tf_run_x(abl, 3), sizeof(float) * layer);
    /* the last layer's outputs of head 6: the mean (layer 4 is not the last: recompute it alone) */
    float att[8 * 64];
    memcpy(att, abl->att, sizeof(float) * 8 * c->q_dim); /* layer 5's, not ablated */
    tf_ablate_rows(abl, 3, att, 0, 8);
    for (int i = 0; i < 8; i++)
        assert_memory_equal(att + (size_t)i * c->q_dim + 5 * c->head_dim, mean, sizeof(float) * 8);
    /* from the first ablated layer on, the input of layer 3 copied: the same bits */
    part->ablate = list, part->n_ablate = 2;
    assert_int_equal(tf_embed(part, IDS, 8, &err), 0);
    memcpy(tf_run_x(part, 2), tf_run_x(clean, 2), sizeof(float) * layer);
    forward_layers(part, 2);
    assert_memory_equal(part->logits, abl->logits, sizeof(float) * 8 * c->vocab);
    /* the ablation changed the prediction's logits */
    assert_memory_not_equal(clean->logits, abl->logits, sizeof(float) * 8 * c->vocab);
    tf_run_free(clean), tf_run_free(abl), tf_run_free(part);
    checkpoint_close(&ck);
}

/* The means: every head's output averaged over the text battery. Zero
 * ablation of a head and mean ablation with a mean of zeros agree. */
static void test_means(void **state) {
    (void)state;
    Checkpoint ck;
    if (!open_model(&ck)) return;
    AvError err = {0};
    const TfConfig *c = &ck.model->cfg;
    float *means = calloc((size_t)c->n_layers * c->q_dim, sizeof *means);
    int tokens = 0;
    assert_int_equal(ablate_head_means(ck.model, ck.vocab, BATTERY_TEXT_EN, means, &tokens, &err), 0);
    HeadReport rep;
    assert_int_equal(headrun(&ck, BATTERY_TEXT_EN, &rep, &err), 0);
    assert_int_equal(tokens, rep.text_tokens); /* every sentence, every position */
    headreport_free(&rep);
    double norm = 0;
    for (int k = 0; k < c->n_layers * c->q_dim; k++) norm += fabs(means[k]);
    assert_true(norm > 0);
    float zeros[64] = {0};
    TfRun *a = tf_run_new(ck.model, 8, 0, &err), *b = tf_run_new(ck.model, 8, 0, &err);
    TfAblation za = {4, 2, NULL}, zb = {4, 2, zeros};
    a->ablate = &za, a->n_ablate = 1, b->ablate = &zb, b->n_ablate = 1;
    assert_int_equal(tf_forward(a, IDS, 8, &err) || tf_forward(b, IDS, 8, &err), 0);
    assert_memory_equal(a->logits, b->logits, sizeof(float) * c->vocab);
    tf_run_free(a), tf_run_free(b);
    free(means);
    checkpoint_close(&ck);
}

static void test_source_ablation(void **state) {
    (void)state;
    char path[512];
    if (!models_path(path, sizeof path, "stories260K.bin")) return;
    const char *text = "Lily saw a cat. Lily";
    Model *m = model_new();
    AvError err = {0};
    if (model_set_trained(m, path, NULL, text, strlen(text), &err)) fail_msg("%s", err.msg);
    ModelConfig cfg = m->cfg;
    cfg.mask = MASK_CAUSAL;
    model_want_next(m, 7);
    if (model_set_config(m, &cfg, &err) || model_update(m, &err)) fail_msg("%s", err.msg);
    int ids[10];
    double before[10];
    const char *pieces[10];
    size_t lens[10];
    assert_int_equal(m->src->next_tokens(m, 7, 10, ids, before, pieces, lens), 10);
    HeadAblation list[2] = {{4, 5, 0}, {3, 0, 1}};
    assert_int_equal(model_set_ablation(m, list, 2, &err), 0);
    /* only the layers from the first ablated one (layer 4) are stale, from the heads' outputs on */
    for (int l = 0; l < 3; l++) assert_int_equal(m->layer_stale[l], STAGE_NONE);
    assert_int_equal(m->layer_stale[3], STAGE_FINAL);
    HeadAblation got[4];
    assert_int_equal(model_ablation(m, got, 4), 2);
    assert_int_equal(got[1].layer, 3), assert_int_equal(got[1].mean, 1);
    assert_int_equal(m->stale, STAGE_FINAL); /* the update starts at layer 4's W_O, layer 5 follows from there */
    unsigned long embedded = m->computed[STAGE_EMBED], weighed = m->computed[STAGE_WEIGHTS];
    model_want_next(m, 7);
    if (model_update(m, &err)) fail_msg("%s", err.msg);
    assert_true(m->computed[STAGE_EMBED] == embedded && m->computed[STAGE_WEIGHTS] == weighed);
    NextChange nc[10];
    assert_int_equal(m->src->next_change(m, 7, 10, nc), 10);
    for (int k = 0; k < 10; k++) {
        assert_int_equal(nc[k].id, ids[k]); /* before: the model without the ablation */
        assert_true(fabs(nc[k].p_before - before[k]) < 1e-5);
    }
    /* after: the engine's forward with the same ablation */
    const TfModel *tm = model_trained_engine(m);
    const TfConfig *c = &tm->cfg;
    float *mean = malloc(sizeof(float) * (size_t)c->n_layers * c->q_dim);
    assert_int_equal(ablate_head_means(tm, model_trained_vocab(m), BATTERY_TEXT_EN, mean, NULL, &err), 0);
    TfAblation tl[2] = {{4, 5, NULL}, {3, 0, mean + 3 * c->q_dim}};
    TfRun *r = tf_run_new(tm, 8, 0, &err);
    r->ablate = tl, r->n_ablate = 2;
    assert_int_equal(tf_forward(r, IDS, 8, &err), 0);
    for (int k = 0; k < 10; k++) assert_true(fabs(nc[k].logit_after - r->logits[nc[k].id]) < 1e-4);
    tf_run_free(r);
    free(mean);
    /* none: the next tokens are the model's own again, nothing to compare */
    assert_int_equal(model_set_ablation(m, NULL, 0, &err), 0);
    model_want_next(m, 7);
    if (model_update(m, &err)) fail_msg("%s", err.msg);
    assert_int_equal(m->src->next_change(m, 7, 10, nc), 0);
    double again[10];
    assert_int_equal(m->src->next_tokens(m, 7, 10, ids, again, pieces, lens), 10);
    for (int k = 0; k < 10; k++) assert_true(fabs(again[k] - before[k]) < 1e-6);
    /* a head out of range: refused, the list kept */
    HeadAblation bad = {5, 0, 0};
    assert_int_equal(model_set_ablation(m, &bad, 1, &err), -1);
    assert_non_null(strstr(err.msg, "head 6.1 is not in the model (5 layers of 8 heads)"));
    model_free(m);
}

static void test_headrun_steps(void **state) {
    (void)state;
    Checkpoint ck;
    if (!open_model(&ck)) return;
    AvError err = {0};
    HeadReport whole, steps;
    assert_int_equal(headrun(&ck, BATTERY_TEXT_EN, &whole, &err), 0);
    HeadRun *j = headrun_begin(ck.model, ck.vocab, BATTERY_TEXT_EN, &err);
    assert_non_null(j);
    int done, total, rc, calls = 0;
    headrun_progress(j, &done, &total);
    assert_int_equal(done, 0), assert_int_equal(total, 12 + 10);
    while ((rc = headrun_step(j, &err)) > 0) calls++;
    assert_int_equal(rc, 0), assert_int_equal(calls, 21);
    assert_int_equal(headrun_finish(j, &steps, &err), 0);
    headrun_free(j);
    assert_int_equal(steps.n, whole.n);
    assert_memory_equal(steps.rows, whole.rows, sizeof *whole.rows * (size_t)whole.n);
    headreport_free(&whole), headreport_free(&steps);
    checkpoint_close(&ck);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_engine_ablation),
        cmocka_unit_test(test_means),
        cmocka_unit_test(test_source_ablation),
        cmocka_unit_test(test_headrun_steps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
