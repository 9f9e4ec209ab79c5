/* test_oom.c - out of memory at every allocation of a change.
 *
 * Linked with -Wl,--wrap=malloc,--wrap=calloc (see the Makefile): the k-th
 * allocation after arming fails. For each change of the model (a new seed,
 * a mask, a painted cell, a score kind, cross-attention, positions) and each
 * k, the setters and the update run with that allocation failing. Then
 * either a setter said so and the model is still the one before the change,
 * or the change took and the numbers are those of a model built without any
 * failure: an update never shows a wrong result as current. */
#include "testutil.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "parallel.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);

static atomic_long countdown; /* > 0: allocations until the failing one */
static atomic_int failed;

static int should_fail(void) {
    if (atomic_load(&countdown) <= 0) return 0;
    if (atomic_fetch_sub(&countdown, 1) != 1) return 0;
    atomic_store(&failed, 1);
    return 1;
}

void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_malloc(size_t n) { return should_fail() ? NULL : __real_malloc(n); }
void *__wrap_calloc(size_t n, size_t size) { return should_fail() ? NULL : __real_calloc(n, size); }

static const char *TEXT = "the cat sat on the mat because the cat was tired";
static const char *TARGET = "le chat dort";

typedef enum { CH_SEED, CH_MASK, CH_PAINT, CH_ADDITIVE, CH_CROSS, CH_POS, CH_SHAPE, CH_COUNT } Change;
static const char *const change_name[CH_COUNT] = {"seed", "mask", "paint", "additive", "cross", "pos", "shape"};

static ModelConfig base_config(void) {
    ModelConfig c = tu_config(16, 2, 8, 8);
    return c;
}

/* Applies change ch to m; returns what the first failing setter returned. */
static int apply(Model *m, Change ch) {
    AvError err = {0};
    ModelConfig c = m->cfg;
    switch (ch) {
    case CH_SEED: c.seed = 7; return model_set_config(m, &c, &err);
    case CH_MASK: c.mask = MASK_CAUSAL; return model_set_config(m, &c, &err);
    case CH_PAINT:
        c.mask = MASK_PAINTED;
        if (model_set_config(m, &c, &err)) return -1;
        model_paint_toggle(m, 3, 1);
        return model_painted_at(m, 3, 1) ? -1 : 0; /* no memory for the grid: the toggle did not take */
    case CH_ADDITIVE: c.score = SCORE_ADDITIVE; return model_set_config(m, &c, &err);
    case CH_CROSS:
        if (model_set_target(m, TARGET, strlen(TARGET), &err)) return -1;
        c.attn = ATTN_CROSS;
        return model_set_config(m, &c, &err);
    case CH_POS: c.pos = POS_SINUSOIDAL; return model_set_config(m, &c, &err);
    case CH_SHAPE: c.heads = 3, c.d_k = 12, c.d_v = 5; return model_set_config(m, &c, &err);
    default: return -1;
    }
}

static void same_floats(const char *what, const float *a, const float *b, size_t n, const char *ctx) {
    if (n && memcmp(a, b, sizeof(float) * n)) fail_msg("%s: %s differs from a model built without failure", ctx, what);
}

/* The numbers of m are those of g, bit for bit. */
static void same_model(const Model *m, const Model *g, const char *ctx) {
    assert_int_equal(m->stale, STAGE_NONE);
    assert_int_equal(m->n_q, g->n_q);
    assert_int_equal(m->n_k, g->n_k);
    assert_int_equal(m->cfg.heads, g->cfg.heads);
    size_t nq = (size_t)m->n_q, nk = (size_t)m->n_k;
    const ModelConfig *c = &m->cfg;
    for (int h = 0; h < c->heads; h++) {
        const HeadData *a = &m->head[h], *b = &g->head[h];
        same_floats("Q", a->q, b->q, nq * c->d_k, ctx);
        same_floats("K", a->k, b->k, nk * c->d_k, ctx);
        same_floats("V", a->v, b->v, nk * c->d_v, ctx);
        same_floats("scores", a->scores, b->scores, nq * nk, ctx);
        same_floats("masked", a->masked, b->masked, nq * nk, ctx);
        same_floats("weights", a->weights, b->weights, nq * nk, ctx);
        same_floats("A V", a->out, b->out, nq * c->d_v, ctx);
        if (nq && memcmp(a->entropy, b->entropy, sizeof(double) * nq)) fail_msg("%s: entropy differs", ctx);
    }
    same_floats("Y", m->y, g->y, nq * c->d_model, ctx);
}

static Model *fresh(void) {
    ModelConfig c = base_config();
    return tu_model(TEXT, &c);
}

static void test_every_allocation_fails_once(void **state) {
    (void)state;
    par_set_threads(1); /* the same allocation order every run */
    AvError err = {0};
    for (Change ch = 0; ch < CH_COUNT; ch++) {
        Model *before = fresh(), *after = fresh();
        assert_int_equal(apply(after, ch), 0);
        model_update(after, &err);
        int k;
        for (k = 1;; k++) {
            char ctx[64];
            snprintf(ctx, sizeof ctx, "change %s, allocation %d fails", change_name[ch], k);
            Model *m = fresh();
            atomic_store(&failed, 0);
            atomic_store(&countdown, k);
            int rc = apply(m, ch);
            if (rc == 0) model_update(m, &err);
            atomic_store(&countdown, 0);
            if (rc) {
                /* refused: the numbers before the change (a painted mask
                 * whose toggle did not take is all visible: no mask) */
                model_update(m, &err);
                same_model(m, before, ctx);
            } else {
                same_model(m, after, ctx);
            }
            model_free(m);
            if (!atomic_load(&failed)) break; /* k is past the last allocation */
        }
        /* The change allocated something (the test tested), except a new
         * mask: a mask change recomputes in the arenas, allocating nothing. */
        if (ch == CH_MASK) assert_int_equal(k, 1);
        else assert_true(k > 1);
        model_free(before);
        model_free(after);
    }
    par_set_threads(0);
}

/* The same with the threads: the failing allocation may come from a worker. */
static void test_allocation_fails_on_threads(void **state) {
    (void)state;
    par_set_threads(4);
    AvError err = {0};
    for (Change ch = 0; ch < CH_COUNT; ch++) {
        Model *before = fresh(), *after = fresh();
        assert_int_equal(apply(after, ch), 0);
        model_update(after, &err);
        for (int k = 1; k < 64; k++) {
            char ctx[80];
            snprintf(ctx, sizeof ctx, "4 threads, change %s, allocation %d fails", change_name[ch], k);
            Model *m = fresh();
            atomic_store(&countdown, k);
            int rc = apply(m, ch);
            if (rc == 0) model_update(m, &err);
            atomic_store(&countdown, 0);
            if (rc) model_update(m, &err);
            same_model(m, rc ? before : after, ctx);
            model_free(m);
        }
        model_free(before);
        model_free(after);
    }
    par_set_threads(0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_allocation_fails_once),
        cmocka_unit_test(test_allocation_fails_on_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
