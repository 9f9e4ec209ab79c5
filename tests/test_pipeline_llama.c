/* test_pipeline_llama.c - the screens of a trained model's layer (stories260K
 * on "Lily saw a cat. Lily"): the pipeline view shows the real chain of the
 * layer shown, every block with its shape, in order, within 80 columns, and
 * follows the layer keys; the cell page shows the cell's q and k before and
 * after RoPE with the rotation of their pairs, numbers recomputed here.
 * Without ../shared/models: one "skipped" line, and pass. */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "app.h"
#include "canvas.h"
#include "keycode.h"
#include "models.h"
#include "source_trained.h"
#include "text.h"

static const char SENTENCE[] = "Lily saw a cat. Lily";

static Model *open_model(void) {
    char path[512];
    if (!models_path(path, sizeof path, "stories260K.bin")) return NULL;
    Model *m = model_new();
    assert_non_null(m);
    AvError err = {0};
    if (model_set_trained(m, path, NULL, SENTENCE, strlen(SENTENCE), &err)) fail_msg("%s", err.msg);
    ModelConfig c = m->cfg;
    c.mask = MASK_CAUSAL;
    if (model_set_config(m, &c, &err)) fail_msg("%s", err.msg);
    if (model_update(m, &err)) fail_msg("%s", err.msg);
    return m;
}

static char *render(App *a, int w, int h) {
    Canvas *cv = cv_new(w, h);
    app_draw(a, cv);
    char *s = cv_render(cv, 0, TIER_NONE);
    cv_free(cv);
    return s;
}

static int press(App *a, uint32_t c) {
    AppKey k = {0, c};
    int r = app_key(a, k);
    app_update(a);
    return r;
}

/* Each of want[] in s, in this order; the screen on failure. */
static void in_order(const char *s, const char *const *want, size_t n) {
    const char *at = s;
    for (size_t i = 0; i < n; i++) {
        const char *p = strstr(at, want[i]);
        if (!p) fail_msg("'%s' missing (or before '%s'):\n%s", want[i], i ? want[i - 1] : "", s);
        at = p + strlen(want[i]);
    }
}

/* The whole pipeline of the layer shown at width w (natural height). */
static char *pipeline_at(App *a, int w) {
    a->view = VIEW_PIPELINE;
    app_update(a);
    return render(a, w, app_natural_height(a, w));
}

static void test_pipeline_chain(void **state) {
    (void)state;
    Model *m = open_model();
    if (!m) return;
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    char *s = pipeline_at(&a, 80);
    const char *const chain[] = {
        "layer 1/5  head 1/8  the whole chain",
        "x: the input of layer 1  (8, 64)",
        "xb = RMSNorm(x) · g  (8, 64)",
        "Q = xb W_qᵀ  (8, 64)",
        "K = xb W_kᵀ  (8, 32)",
        "V = xb W_vᵀ  (8, 32)",
        "q, head 1, before RoPE  (8, 8)",
        "k, kv head 1, before RoPE  (8, 8)",
        "RoPE angle i·10000^(-2p/8), pair p  (8, 4)",
        "q = RoPE(q), head 1  (8, 8)",
        "k = RoPE(k), kv head 1  (8, 8)",
        "v, kv head 1  (8, 8)",
        "S = QKᵀ  (8, 8)",
        "S' = S ÷ √8  (8, 8)",
        "M = mask(S'), causal  (8, 8)",
        "A = softmax(M)  (8, 8)",
        "O = A V  (8, 8)",
        "concat(O_1..O_8)  (8, 64)",
        "att W_oᵀ  (8, 64)",
        "mid = x + att W_oᵀ  (8, 64)",
        "xb2 = RMSNorm(mid) · g  (8, 64)",
        "h = silu(W_1 xb2) ⊙ W_3 xb2  (8, 172)",
        "FFN = W_2 h  (8, 64)",
        "x = mid + FFN: the input of layer 2  (8, 64)",
    };
    in_order(s, chain, sizeof chain / sizeof *chain);
    /* Cut to the width: the columns that fit, then how many more (-> shows
     * them: test_pipeline_keys.c); nothing in the last column. */
    assert_non_null(strstr(s, "      7      8  +55"));
    assert_null(strstr(s, "cols 1+"));
    for (const char *p = s; *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        int w = text_width(p, len);
        if (w >= 80 && p[len - 1] != ' ') fail_msg("a line reaches column 80: %.*s", (int)len, p);
        p = e ? e + 1 : p + len;
    }
    /* The numbers of q before RoPE are the model's: row 1 (▁Lily) of head 1. */
    LayerChain v;
    assert_int_equal(model_layer_chain(m, 0, &v, NULL), 0);
    char want[64];
    snprintf(want, sizeof want, "%5.2f  %5.2f", v.q_raw_heads[8 + 2], v.q_raw_heads[8 + 3]);
    const char *q_raw = strstr(s, "q, head 1, before RoPE"), *lily = q_raw ? strstr(q_raw, "\xe2\x96\x81Lily") : NULL;
    assert_non_null(lily);
    const char *eol = strchr(lily, '\n');
    assert_non_null(eol);
    char row[256];
    snprintf(row, sizeof row, "%.*s", (int)(eol - lily), lily);
    if (!strstr(row, want)) fail_msg("q before RoPE, row 1: '%s' lacks '%s'", row, want);
    free(s);
    /* The last layer, head 3 (its key/value head 2), with `}` and Tab. */
    for (int l = 0; l < 4; l++) press(&a, '}');
    press(&a, '\t'), press(&a, '\t');
    s = pipeline_at(&a, 200);
    const char *const last[] = {
        "layer 5/5  head 3/8",
        "x: the input of layer 5  (8, 64)",
        "q, head 3, before RoPE  (8, 8)",
        "k, kv head 2, before RoPE  (8, 8)",
        "x = mid + FFN: to the final RMSNorm  (8, 64)",
    };
    in_order(s, last, sizeof last / sizeof *last);
    free(s);
    app_free(&a);
    model_free(m);
}

/* The line of pair p of RoPE at position pos, recomputed in double from the
 * vector before it. */
static void rope_line(char *out, size_t cap, const float *raw, int pos, int p, int hs) {
    double f = pow(10000.0, -2.0 * p / hs), ang = pos * f, x = raw[2 * p], y = raw[2 * p + 1];
    snprintf(out, cap, "  p %d  θ %.6f  angle %8.4f  (%7.3f, %7.3f) → (%7.3f, %7.3f)", p, f, ang, x, y,
             x * cos(ang) - y * sin(ang), x * sin(ang) + y * cos(ang));
}

static void test_cell_rope(void **state) {
    (void)state;
    Model *m = open_model();
    if (!m) return;
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    a.ci = 5, a.cj = 2; /* query 5 (at) -> key 2 (▁saw), head 1, layer 1 */
    press(&a, '\r');
    assert_int_equal(a.overlay, OVERLAY_CELL);
    char *s = render(&a, 80, 60);
    LayerChain v;
    assert_int_equal(model_layer_chain(m, 0, &v, NULL), 0);
    const float *q5 = v.q_raw_heads + 5 * 8, *k2 = v.k_raw_heads + 2 * 8;
    char p0[128], p3[128], k1[128];
    rope_line(p0, sizeof p0, q5, 5, 0, 8);
    rope_line(p3, sizeof p3, q5, 5, 3, 8);
    rope_line(k1, sizeof k1, k2, 2, 1, 8);
    char qb[64], qa[64], ka[64];
    snprintf(qb, sizeof qb, "q_5 before RoPE        %5.2f", q5[0]);
    snprintf(qa, sizeof qa, "q_5 after RoPE        %6.2f", m->head[0].q[5 * 8]);
    snprintf(ka, sizeof ka, "k_2 after RoPE        %6.2f", m->head[0].k[2 * 8]);
    const char *const want[] = {
        qb,
        "RoPE, position 5: pair p turns by the angle 5·θ_p, θ_p = 10000^(−2p/8)",
        "(a, b) → (a cos − b sin, a sin + b cos)",
        p0,
        p3,
        qa,
        "k_2 before RoPE",
        "RoPE, position 2: pair p turns by the angle 2·θ_p",
        k1,
        ka,
        "q ⊙ k  (each product)",
        "q·k          Σ of the products",
        "scaled score  s =",
        "weight        ",
    };
    in_order(s, want, sizeof want / sizeof *want);
    /* Every line within 80 columns, whole (the exp line shortened). */
    assert_non_null(strstr(s, "(max: of the row)"));
    for (const char *p = s; *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (text_width(p, len) >= 80 && p[len - 1] != ' ') fail_msg("a line reaches column 80: %.*s", (int)len, p);
        p = e ? e + 1 : p + len;
    }
    free(s);
    app_free(&a);
    model_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pipeline_chain),
        cmocka_unit_test(test_cell_rope),
    };
    return cmocka_run_group_tests_name("pipeline_llama", tests, NULL, NULL);
}
