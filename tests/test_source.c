/* test_source.c - a third source, defined here and nowhere else: two layers
 * of two heads of fixed Q, K and V over three tokens. The model, the views,
 * the inspector, the keys and the dumps must show both layers with no edit
 * outside this file (source.h, DESIGN.md §7). */
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "testutil.h"

#include "app.h"
#include "canvas.h"
#include "export.h"
#include "keycode.h"
#include "view.h"

enum { LAYERS = 2, HEADS = 2, N = 3, DK = 2, DV = 2 };

/* The source's data: Q, K, V of every (layer, head), and how often each
 * layer was asked for its Q, K and V. */
typedef struct {
    float q[LAYERS][HEADS][N * DK], k[LAYERS][HEADS][N * DK], v[LAYERS][HEADS][N * DV];
    int forwards[LAYERS];
} Fixed;

static const char *const labels[N] = {"one", "two", "three"};

static void fixed_forward(Model *m, int layer, int from) {
    (void)from;
    Fixed *d = m->src_data;
    d->forwards[layer]++;
    HeadData *hd = model_layer_heads(m, layer);
    for (int h = 0; h < HEADS; h++) {
        memcpy(hd[h].q, d->q[layer][h], sizeof d->q[layer][h]);
        memcpy(hd[h].k, d->k[layer][h], sizeof d->k[layer][h]);
        memcpy(hd[h].v, d->v[layer][h], sizeof d->v[layer][h]);
    }
}

static const char *fixed_label(const Model *m, int i, size_t *len) {
    (void)m;
    *len = strlen(labels[i]);
    return labels[i];
}

static int fixed_id(const Model *m, int j) {
    (void)m;
    return 100 + j;
}

static const Source fixed_source = {
    .name = "fixed2",
    .fixed = "Q, K and V are fixed",
    .what = "two fixed layers",
    .caps = 0,
    .forward = fixed_forward,
    .query_text = fixed_label,
    .key_text = fixed_label,
    .key_id = fixed_id,
    .free = free,
};

/* Layer 0 attends by the numbers below; layer 1 has every score doubled
 * (Q twice as large), so its weights are sharper. */
static Model *fixed_model(Fixed **data) {
    Fixed *d = calloc(1, sizeof *d);
    assert_non_null(d);
    for (int l = 0; l < LAYERS; l++)
        for (int h = 0; h < HEADS; h++)
            for (int t = 0; t < N * DK; t++) {
                d->q[l][h][t] = (float)((l + 1) * (t % 3 + h) * 0.5);
                d->k[l][h][t] = (float)((t * 7 + h) % 5) * 0.25f;
                d->v[l][h][t] = (float)(l * 10 + h + t);
            }
    Model *m = model_new();
    assert_non_null(m);
    AvError err = {0};
    SourceShape sh = {LAYERS, HEADS, DK, DV, N, N, 0};
    if (model_set_source(m, &fixed_source, d, &sh, &err)) fail_msg("%s", err.msg);
    if (model_update(m, &err)) fail_msg("%s", err.msg);
    *data = d;
    return m;
}

/* Softmax of q_i . k_j / sqrt(d_k) over j, in double. */
static double expected_weight(const Fixed *d, int l, int h, int i, int j) {
    double s[N], mx = -INFINITY, sum = 0;
    for (int t = 0; t < N; t++) {
        s[t] = 0;
        for (int p = 0; p < DK; p++) s[t] += (double)d->q[l][h][i * DK + p] * d->k[l][h][t * DK + p];
        s[t] /= sqrt((double)DK);
        if (s[t] > mx) mx = s[t];
    }
    for (int t = 0; t < N; t++) sum += exp(s[t] - mx);
    return exp(s[j] - mx) / sum;
}

static void test_layers_computed(void **state) {
    (void)state;
    Fixed *d;
    Model *m = fixed_model(&d);
    assert_int_equal(m->cfg.layers, LAYERS);
    assert_int_equal(m->cfg.heads, HEADS);
    assert_int_equal(m->stale, STAGE_NONE);
    assert_int_equal(d->forwards[0], 1);
    assert_int_equal(d->forwards[1], 1);
    for (int l = 0; l < LAYERS; l++) {
        assert_int_equal(m->layer_stale[l], STAGE_NONE);
        for (int h = 0; h < HEADS; h++)
            for (int i = 0; i < N; i++)
                for (int j = 0; j < N; j++)
                    assert_near(model_layer_heads(m, l)[h].weights[i * N + j], expected_weight(d, l, h, i, j), 1e-6);
    }
    /* The two layers differ, and m->head follows the layer shown. */
    assert_true(fabsf(model_layer_heads(m, 0)[0].weights[N + 1] - model_layer_heads(m, 1)[0].weights[N + 1]) > 1e-3);
    assert_ptr_equal(m->head, model_layer_heads(m, 0));
    model_set_layer(m, 1);
    assert_int_equal(m->layer, 1);
    assert_ptr_equal(m->head, model_layer_heads(m, 1));
    model_set_layer(m, 7); /* clamped */
    assert_int_equal(m->layer, 1);
    /* The mask is every layer's: a change recomputes both, from the mask on. */
    ModelConfig c = m->cfg;
    AvError err = {0};
    c.mask = MASK_CAUSAL;
    assert_int_equal(model_set_config(m, &c, &err), 0);
    assert_int_equal(m->layer_stale[0], STAGE_MASKED);
    assert_int_equal(m->layer_stale[1], STAGE_MASKED);
    model_update(m, &err);
    assert_int_equal(d->forwards[0], 1); /* Q, K and V are not asked for again */
    assert_int_equal(d->forwards[1], 1);
    for (int l = 0; l < LAYERS; l++) assert_float_equal(model_layer_heads(m, l)[1].weights[0 * N + 2], 0.0f, 0.0f);
    /* What the source cannot change, it says, in its own words. */
    c.d_k = 4;
    assert_int_equal(model_set_config(m, &c, &err), -1);
    assert_string_equal(err.msg, "Q, K and V are fixed: only the mask and the scaling can change");
    c.d_k = DK;
    c.layers = 3;
    assert_int_equal(model_set_config(m, &c, &err), -1);
    assert_int_equal(model_set_text(m, "a b", 3, &err), -1);
    assert_string_equal(err.msg, "Q, K and V are fixed: there is no sentence to change");
    model_free(m); /* frees the data with the source's free */
}

static void test_stale_per_layer(void **state) {
    (void)state;
    Fixed *d;
    Model *m = fixed_model(&d);
    /* Layer 1 alone from its projections: layer 0 is not recomputed. */
    model_invalidate_layer(m, 1, STAGE_PROJECT);
    assert_int_equal(m->layer_stale[0], STAGE_NONE);
    assert_int_equal(m->layer_stale[1], STAGE_PROJECT);
    assert_int_equal(m->stale, STAGE_PROJECT);
    d->q[1][0][0] = 5.0f; /* the source's numbers changed */
    AvError err = {0};
    model_update(m, &err);
    assert_int_equal(d->forwards[0], 1);
    assert_int_equal(d->forwards[1], 2);
    assert_int_equal(m->stale, STAGE_NONE);
    assert_near(model_layer_heads(m, 1)[0].weights[1], expected_weight(d, 1, 0, 0, 1), 1e-6);
    model_free(m);
}

static char *dump(const Model *m, ExportFormat fmt) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(export_model(f, m, fmt), 0);
    fclose(f);
    return buf;
}

static int count(const char *s, const char *what) {
    int n = 0;
    for (const char *p = strstr(s, what); p; p = strstr(p + 1, what)) n++;
    return n;
}

static void test_dumps_show_both_layers(void **state) {
    (void)state;
    Fixed *d;
    Model *m = fixed_model(&d);
    char *json = dump(m, EXPORT_JSON);
    assert_non_null(strstr(json, "\"heads\": 2, \"d_k\": 2, \"d_v\": 2, \"layers\": 2, "));
    assert_non_null(strstr(json, "\"source\": \"fixed2\""));
    assert_non_null(strstr(json, "\"tokens\": [\"one\", \"two\", \"three\"]"));
    assert_non_null(strstr(json, "\"ids\": [100, 101, 102]"));
    assert_non_null(strstr(json, "\"layers\": [\n    {\"heads\": ["));
    assert_int_equal(count(json, "{\"heads\": ["), LAYERS);
    assert_int_equal(count(json, "\"weights\": "), LAYERS * HEADS);
    /* layer 2, head 1's weights, as the model holds them */
    char want[128];
    const float *w = model_layer_heads(m, 1)[0].weights;
    snprintf(want, sizeof want, "\"weights\": [[%.9g,%.9g,%.9g]", w[0], w[1], w[2]);
    const char *second = strstr(strstr(json, "{\"heads\": [") + 1, "{\"heads\": [");
    assert_non_null(second);
    assert_non_null(strstr(second, want));
    free(json);

    char *csv = dump(m, EXPORT_CSV);
    assert_true(strncmp(csv, "layer,head,stage,i,j,value\n", 27) == 0);
    assert_non_null(strstr(csv, "\n1,0,weights,0,0,"));
    assert_non_null(strstr(csv, "\n0,1,weights,2,2,"));
    assert_non_null(strstr(csv, "\n,,token,2,0,\"three\"\n"));
    free(csv);

    char *text = dump(m, EXPORT_TEXT);
    assert_non_null(strstr(text, "source=fixed2 heads=2 d_k=2 d_v=2 mask=none scale=on score=scaled layer=1/2\n"));
    assert_non_null(strstr(text, "== layer 2/2, head 2/2 =="));
    free(text);
    model_free(m);
}

static char *render(App *a, int w, int h) {
    Canvas *cv = cv_new(w, h);
    assert_non_null(cv);
    app_draw(a, cv);
    char *s = cv_render(cv, 0, TIER_NONE);
    cv_free(cv);
    assert_non_null(s);
    return s;
}

static void key(App *a, int c) {
    AppKey k = {0, (uint32_t)c};
    app_key(a, k);
}

static void test_views_show_both_layers(void **state) {
    (void)state;
    Fixed *d;
    Model *m = fixed_model(&d);
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    char *s = render(&a, 100, 30);
    assert_non_null(strstr(s, "layer=1/2"));
    assert_non_null(strstr(s, "\nlayer 1/2  head 1/2  weights A = softmax("));
    assert_non_null(strstr(s, "3 x 3 from two fixed layers"));
    assert_non_null(strstr(s, "three"));
    /* the inspector: the cell under the cursor, of the layer shown */
    char w0[32], w1[32];
    snprintf(w0, sizeof w0, "%.4f", model_layer_heads(m, 0)[0].weights[0]);
    snprintf(w1, sizeof w1, "%.4f", model_layer_heads(m, 1)[0].weights[0]);
    assert_string_not_equal(w0, w1);
    assert_non_null(strstr(s, w0));
    free(s);
    key(&a, '}');
    assert_int_equal(m->layer, 1);
    assert_string_equal(a.msg, "layer 2 of 2");
    s = render(&a, 100, 30);
    assert_non_null(strstr(s, "layer=2/2"));
    assert_non_null(strstr(s, "\nlayer 2/2  head 1/2  "));
    assert_non_null(strstr(s, w1));
    free(s);
    key(&a, '}'); /* round the stack */
    assert_int_equal(m->layer, 0);
    key(&a, '{');
    assert_int_equal(m->layer, 1);
    /* the same through app_run, by name */
    assert_int_equal(app_run(&a, "layer-prev", NULL), 0);
    assert_int_equal(m->layer, 0);
    /* the knobs it lacks say so; the help lists the layer keys */
    key(&a, '+');
    assert_int_equal(a.msg_error, 1);
    assert_string_equal(a.msg, "Q, K and V are fixed: only the mask (m) and the scaling (s) can change");
    assert_int_equal(m->cfg.d_k, DK);
    key(&a, '?');
    s = render(&a, 100, 120);
    assert_non_null(strstr(s, "next layer (a model of several layers)"));
    assert_non_null(strstr(s, "previous layer"));
    free(s);
    key(&a, 'q');
    /* every view draws */
    for (int v = 0; v < VIEW_KIND_COUNT; v++) {
        a.view = (ViewKind)v;
        s = render(&a, 100, 30);
        assert_non_null(strstr(s, "layer=1/2"));
        free(s);
    }
    app_free(&a);
    model_free(m);
}

/* A failing switch frees the data it was given and changes nothing. */
static void test_bad_shape_refused(void **state) {
    (void)state;
    Model *m = model_new();
    assert_non_null(m);
    AvError err = {0};
    SourceShape sh = {MODEL_MAX_LAYERS + 1, 1, 2, 2, 3, 3, 0};
    assert_int_equal(model_set_source(m, &fixed_source, calloc(1, sizeof(Fixed)), &sh, &err), -1);
    assert_non_null(strstr(err.msg, "layers"));
    assert_ptr_equal(m->src, &source_text);
    assert_int_equal(m->cfg.layers, 1);
    model_free(m);
}

static int setup(void **state) {
    (void)state;
    return setlocale(LC_ALL, "C.UTF-8") ? 0 : -1;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layers_computed),        cmocka_unit_test(test_stale_per_layer),
        cmocka_unit_test(test_dumps_show_both_layers), cmocka_unit_test(test_views_show_both_layers),
        cmocka_unit_test(test_bad_shape_refused),
    };
    return cmocka_run_group_tests_name("source", tests, setup, NULL);
}
