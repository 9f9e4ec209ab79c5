/* test_model.c - the attention engine: the worked example of the source texts
 * (values computed independently in double precision), softmax, masks,
 * scaling, shapes, prefix stability of the weights, the stage cache, budgets. */
#include "testutil.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cancel.h"
#include "mask.h"
#include "parallel.h"
#include "qkvfile.h"
#include "rowops.h"

// ----------------------------------------------------------------------------
// the worked example (samples/worked-example.qkv)

static Model *worked(MaskKind mask, int scale) {
    QkvData d;
    AvError err = {0};
    if (qkv_load(&d, "samples/worked-example.qkv", &err)) fail_msg("%s", err.msg);
    Model *m = model_new();
    if (model_set_qkv(m, &d, &err)) fail_msg("%s", err.msg);
    ModelConfig c = m->cfg;
    c.mask = mask, c.scale = scale;
    if (model_set_config(m, &c, &err)) fail_msg("%s", err.msg);
    if (model_update(m, &err)) fail_msg("%s", err.msg);
    return m;
}

/* Q K^T, /sqrt(3), softmax and A V by hand (NumPy float64). The source text
 * prints S = [[0.26 0.41 0.65] ...]; arithmetic gives the values below. */
static const double S[3][3] = {{0.20, 0.46, 0.55}, {0.28, 0.58, 0.88}, {0.49, 1.27, 1.51}};
static const double A[3][3] = {{0.2953424364, 0.3431770706, 0.3614804930},
                               {0.2775393713, 0.3300248262, 0.3924358025},
                               {0.2287892329, 0.3589325218, 0.4122782453}};
static const double O[3][3] = {{0.6198414170, 0.5247507802, 0.4945089733},
                               {0.6344689293, 0.5225053916, 0.4812767071},
                               {0.6550467037, 0.5098645944, 0.4839962830}};
static const double AC[3][3] = {{1, 0, 0}, {0.4568066592, 0.5431933408, 0}, {0.2287892329, 0.3589325218, 0.4122782453}};
static const double OC[3][3] = {
    {0.3, 0.7, 0.5}, {0.4629580022, 0.5370419978, 0.6629580022}, {0.6550467037, 0.5098645944, 0.4839962830}};

static void test_worked_example(void **state) {
    (void)state;
    Model *m = worked(MASK_NONE, 1);
    assert_int_equal(m->n_q, 3);
    assert_int_equal(m->n_k, 3);
    assert_int_equal(m->cfg.d_k, 3);
    assert_string_equal(model_key_label(m, 1), "학교에");
    const HeadData *h = &m->head[0];
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            assert_near(h->scores[i * 3 + j], S[i][j], 1e-6);
            assert_near(h->scaled[i * 3 + j], S[i][j] / sqrt(3.0), 1e-6);
            assert_near(h->weights[i * 3 + j], A[i][j], 1e-6);
            assert_near(h->out[i * 3 + j], O[i][j], 1e-6);
        }
        assert_near(h->row_sums[i], 1.0, 1e-6);
    }
    model_free(m);
}

static void test_worked_example_causal(void **state) {
    (void)state;
    Model *m = worked(MASK_CAUSAL, 1);
    const HeadData *h = &m->head[0];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            assert_near(h->weights[i * 3 + j], AC[i][j], 1e-6);
            assert_near(h->out[i * 3 + j], OC[i][j], 1e-6);
            if (j > i) {
                assert_true(h->weights[i * 3 + j] == 0.0f); /* exactly 0 */
                assert_true(h->masked[i * 3 + j] == -INFINITY);
            }
        }
    model_free(m);
}

/* Entropy (bits) and largest weight of the worked example's rows, by hand:
 * H = -sum a log2 a over the weights above. */
static void test_entropy_and_max_weight(void **state) {
    (void)state;
    Model *m = worked(MASK_NONE, 1);
    const HeadData *h = &m->head[0];
    for (int i = 0; i < 3; i++) {
        double want = 0, mx = 0;
        for (int j = 0; j < 3; j++) {
            want -= A[i][j] * log2(A[i][j]);
            if (A[i][j] > mx) mx = A[i][j];
        }
        assert_near(h->entropy[i], want, 1e-6);
        assert_near(h->max_weight[i], mx, 1e-6);
    }
    assert_near(h->entropy[0], 1.5798, 1e-4); /* close to log2(3) = 1.585: nearly uniform */
    double mean, max;
    model_mean_entropy(m, 0, &mean, &max);
    assert_near(max, log2(3.0), 1e-12);
    assert_near(mean, (h->entropy[0] + h->entropy[1] + h->entropy[2]) / 3, 1e-12);
    model_free(m);
    m = worked(MASK_CAUSAL, 1);
    h = &m->head[0];
    assert_near(h->entropy[0], 0.0, 0);
    assert_near(h->max_weight[0], 1.0, 0);
    assert_near(h->entropy[1], -(AC[1][0] * log2(AC[1][0]) + AC[1][1] * log2(AC[1][1])), 1e-6);
    model_mean_entropy(m, 0, &mean, &max);
    assert_near(max, (0 + 1 + log2(3.0)) / 3, 1e-12);
    model_free(m);
}

/* The texts' claim: without scaling, or with a larger d_k, the rows
 * saturate towards one-hot (entropy falls, the largest weight grows). */
static void test_saturation(void **state) {
    (void)state;
    const char *txt = "the cat sat on the mat because the cat was tired";
    double e[3], w[3];
    ModelConfig cs[3];
    cs[0] = tu_config(256, 1, 4, 4);
    cs[1] = tu_config(256, 1, 256, 4);
    cs[1].scale = 1;
    cs[2] = cs[1];
    cs[2].scale = 0;
    for (int k = 0; k < 3; k++) {
        Model *m = tu_model(txt, &cs[k]);
        double mx;
        model_mean_entropy(m, 0, &e[k], &mx);
        w[k] = 0;
        for (int i = 0; i < m->n_q; i++) w[k] += m->head[0].max_weight[i] / m->n_q;
        model_free(m);
    }
    /* Scaled, d_k 4 and 256 are alike (variance 1); unscaled d_k 256 collapses. */
    assert_true(e[2] < 0.5 * e[1]);
    assert_true(w[2] > w[1] + 0.3);
    assert_true(fabs(e[0] - e[1]) < 0.5);
}

static void test_cell_detail_adds_up(void **state) {
    (void)state;
    Model *m = worked(MASK_CAUSAL, 1);
    CellDetail d;
    model_cell_detail(m, 0, 1, 0, &d);
    assert_near(d.raw, 0.28, 1e-6);
    assert_near(d.divisor, sqrt(3.0), 1e-12);
    assert_near(d.scaled, 0.28 / sqrt(3.0), 1e-6);
    assert_int_equal(d.allowed, 1);
    assert_int_equal(d.row_allowed, 2);
    assert_near(d.exp / d.denom, d.weight, 1e-6);
    assert_near(d.weight, AC[1][0], 1e-6);
    model_cell_detail(m, 0, 1, 2, &d);
    assert_int_equal(d.allowed, 0);
    assert_true(d.weight == 0.0 && d.exp == 0.0);
    model_free(m);
}

// ----------------------------------------------------------------------------
// softmax, masks, scaling

static void test_row_sums_are_one(void **state) {
    (void)state;
    ModelConfig c = tu_config(32, 3, 8, 5);
    c.mask = MASK_CAUSAL;
    Model *m = tu_model("Mary greeted Bob and Bob ignored Mary", &c);
    for (int h = 0; h < 3; h++)
        for (int i = 0; i < m->n_q; i++) {
            double sum = 0;
            for (int j = 0; j < m->n_k; j++) {
                float w = m->head[h].weights[i * m->n_k + j];
                assert_true(w >= 0.0f && w <= 1.0f);
                sum += w;
            }
            assert_near(sum, 1.0, 1e-6);
            assert_near(m->head[h].row_sums[i], sum, 1e-12);
        }
    model_free(m);
}

/* Scores of +-1e4 would overflow exp() without subtracting the row maximum. */
static void test_softmax_stable_with_large_scores(void **state) {
    (void)state;
    const char *txt = "tokens: a b\nQ:\n100 0\n-100 0\nK:\n100 0\n-100 0\nV:\n1\n2\n";
    QkvData d;
    AvError err = {0};
    if (qkv_parse(&d, txt, strlen(txt), "mem", &err)) fail_msg("%s", err.msg);
    Model *m = model_new();
    assert_int_equal(model_set_qkv(m, &d, &err), 0);
    ModelConfig c = m->cfg;
    c.scale = 0;
    assert_int_equal(model_set_config(m, &c, &err), 0);
    assert_int_equal(model_update(m, &err), 0);
    const HeadData *h = &m->head[0];
    assert_near(h->scores[0], 1e4, 1e-3);
    assert_near(h->scores[1], -1e4, 1e-3);
    assert_true(h->weights[0] == 1.0f && h->weights[1] == 0.0f);
    assert_true(h->weights[2] == 0.0f && h->weights[3] == 1.0f);
    for (int i = 0; i < 4; i++) assert_false(isnan(h->weights[i]));
    assert_near(h->out[0], 1.0, 1e-6);
    assert_near(h->out[1], 2.0, 1e-6);
    model_free(m);
}

/* A row whose keys are all masked: weights all exactly 0, sum 0, no NaN
 * (PyTorch >= 2.5); a row with one allowed key puts all its weight there. */
static void test_fully_masked_row(void **state) {
    (void)state;
    float s[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY}, w[4] = {9, 9, 9, 9};
    assert_true(attn_softmax_row(w, s, 4) == 0.0);
    for (int j = 0; j < 4; j++) assert_true(w[j] == 0.0f);
    float s2[3] = {-INFINITY, 3.0f, -INFINITY};
    assert_true(attn_softmax_row(w, s2, 3) == 1.0);
    assert_true(w[0] == 0.0f && w[1] == 1.0f && w[2] == 0.0f);
    /* Scores near the float limit still give a finite distribution. */
    float s3[2] = {FLT_MAX, -FLT_MAX};
    attn_softmax_row(w, s3, 2);
    assert_true(w[0] == 1.0f && w[1] == 0.0f);
    float s4[2] = {FLT_MAX, FLT_MAX};
    attn_softmax_row(w, s4, 2);
    assert_true(w[0] == 0.5f && w[1] == 0.5f);
}

/* Saturated scores of both signs: s - max leaves the float range (-inf) for
 * the negative ones; their weight is 0 and they add nothing to the entropy
 * (0 * -inf must not turn it into NaN, then 0). Two equal winners among n:
 * 1 bit, on the vector path (n = 24) and the scalar tail (n = 3). */
static void test_entropy_saturated_both_signs(void **state) {
    (void)state;
    for (int n = 3; n <= 24; n += 21) {
        float s[24], w[24];
        for (int j = 0; j < n; j++) s[j] = (j == 1 || j == n - 1) ? 3e38f : -3e38f;
        SoftmaxRow r;
        attn_softmax(w, s, n, &r);
        assert_true(w[1] == 0.5f && w[n - 1] == 0.5f && w[0] == 0.0f);
        assert_near(r.sum, 1.0, 0);
        assert_near(r.entropy, 1.0, 1e-12);
    }
}

/* Every row-operation implementation the CPU has gives the bits of the
 * portable one: softmax (weights and every SoftmaxRow figure), scale and
 * mask, exp and sum, at lengths around every vector width and tail, with
 * masked keys, saturated scores, zeros of both signs and rows fully masked. */
static void test_rowops_same_bits(void **state) {
    (void)state;
    static const char *impls[] = {"avx2", "avx512"};
    enum { N = 300 };
    static float s[N], raw[N], w0[N], w1[N], a0[N], a1[N], b0[N], b1[N], e0[N], e1[N];
    static unsigned char ok[N];
    uint64_t x = 12345;
    for (size_t ii = 0; ii < sizeof impls / sizeof *impls; ii++)
        for (int n = 0; n <= N; n += n < 40 ? 1 : 37) {
            for (int kind = 0; kind < 4; kind++) {
                for (int j = 0; j < n; j++) {
                    x = x * 6364136223846793005ull + 1442695040888963407ull;
                    double u = (double)(x >> 11) * 0x1.0p-53;
                    raw[j] = kind == 3 ? (u < 0.5 ? -3e38f : 3e38f) : (float)((u - 0.5) * (kind == 1 ? 400 : 12));
                    if (kind == 2 && j % 5 == 0) raw[j] = j % 10 ? -0.0f : 0.0f;
                    ok[j] = kind == 2 && n > 3 ? 0 : (unsigned char)((x >> 7) % 4 != 0);
                    s[j] = ok[j] ? raw[j] : -INFINITY;
                }
                SoftmaxRow r0, r1;
                for (int op = 0; op < 3; op++) {
                    assert_int_equal(attn_set_rowops("portable"), 0);
                    attn_scale_mask_row(a0, b0, raw, ok, n, (ScaleOp)op, op == 1 ? 8.0 : 0.125);
                    attn_softmax(w0, s, n, &r0);
                    double sum0 = attn_sum(raw, n);
                    float mx = n ? raw[n / 2] : 0.0f;
                    attn_exp_row(e0, s, mx, n);
                    if (attn_set_rowops(impls[ii])) return; /* the CPU lacks it: the others were checked */
                    attn_scale_mask_row(a1, b1, raw, ok, n, (ScaleOp)op, op == 1 ? 8.0 : 0.125);
                    attn_softmax(w1, s, n, &r1);
                    double sum1 = attn_sum(raw, n);
                    attn_exp_row(e1, s, mx, n);
                    assert_memory_equal(e0, e1, sizeof(float) * (size_t)n);
                    assert_memory_equal(a0, a1, sizeof(float) * (size_t)n);
                    assert_memory_equal(b0, b1, sizeof(float) * (size_t)n);
                    assert_memory_equal(w0, w1, sizeof(float) * (size_t)n);
                    assert_memory_equal(&sum0, &sum1, sizeof sum0);
                    assert_memory_equal(&r0.denom, &r1.denom, sizeof r0.denom);
                    assert_memory_equal(&r0.sum, &r1.sum, sizeof r0.sum);
                    assert_memory_equal(&r0.entropy, &r1.entropy, sizeof r0.entropy);
                    assert_true(r0.max_weight == r1.max_weight && r0.max_score == r1.max_score);
                }
            }
        }
    attn_set_rowops(NULL);
}

/* The softmax of a row's visible prefix (the keys after it masked) and of
 * groups of rows (attn_softmax_rows) give the bits of the whole row's
 * softmax, on every implementation: the forward relies on it. */
static void test_softmax_prefix_rows(void **state) {
    (void)state;
    static const char *impls[] = {"portable", "avx2", "avx512"};
    enum { LD = 83, ROWS = 40 };
    static float s[ROWS * LD], want[ROWS * LD], got[ROWS * LD];
    SoftmaxRow rw[ROWS], rg[ROWS];
    int len[ROWS];
    uint64_t x = 777;
    for (int r = 0; r < ROWS; r++) {
        len[r] = r < LD ? r * 3 % (LD + 1) : LD; /* 0, 3, ... and the whole row */
        if (r == ROWS - 1) len[r] = LD;
        for (int j = 0; j < LD; j++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            double u = (double)(x >> 11) * 0x1.0p-53;
            int visible = j < len[r] && (x >> 7) % 5 != 0;
            s[r * LD + j] = visible ? (float)((u - 0.5) * (r % 3 == 2 ? 300 : 10)) : -INFINITY;
        }
    }
    assert_int_equal(attn_set_rowops("portable"), 0);
    for (int r = 0; r < ROWS; r++) attn_softmax(want + r * LD, s + r * LD, LD, &rw[r]);
    for (size_t ii = 0; ii < sizeof impls / sizeof *impls; ii++) {
        if (attn_set_rowops(impls[ii])) continue; /* the CPU lacks it */
        memset(got, 0x7f, sizeof got);
        attn_softmax_rows(got, s, LD, ROWS, len, rg);
        assert_memory_equal(got, want, sizeof got);
        for (int r = 0; r < ROWS; r++) {
            assert_memory_equal(&rg[r].denom, &rw[r].denom, sizeof rw[r].denom);
            assert_memory_equal(&rg[r].sum, &rw[r].sum, sizeof rw[r].sum);
            assert_memory_equal(&rg[r].entropy, &rw[r].entropy, sizeof rw[r].entropy);
            assert_true(rg[r].max_weight == rw[r].max_weight && rg[r].max_score == rw[r].max_score);
        }
    }
    attn_set_rowops(NULL);
}

/* Scaling by a power of two (1/sqrt(d_k) for d_k 4, 16, 64) runs as a float
 * multiply: the bits must be those of the double operation the stage is
 * defined by, on every implementation, subnormal and saturated values too. */
static void test_scale_pow2_bits(void **state) {
    (void)state;
    static const char *impls[] = {"portable", "avx2", "avx512"};
    static const double factors[] = {0.25, 0.125, 0.5, 0x1p-20, 8.0, 0x1p100, 0.17677669529663687, 3.0};
    enum { N = 61 };
    float raw[N], scaled[N], masked[N];
    unsigned char ok[N];
    uint64_t x = 99;
    for (int j = 0; j < N; j++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        double u = (double)(x >> 11) * 0x1.0p-53;
        raw[j] = j % 7 == 0 ? 3e38f : j % 7 == 1 ? -2e-39f : j % 7 == 2 ? -0.0f : (float)((u - 0.5) * 1e3);
        ok[j] = 1;
    }
    for (size_t ii = 0; ii < sizeof impls / sizeof *impls; ii++) {
        if (attn_set_rowops(impls[ii])) continue;
        for (size_t fi = 0; fi < sizeof factors / sizeof *factors; fi++)
            for (int op = SCALE_DIVIDE; op <= SCALE_MULTIPLY; op++) {
                double by = factors[fi];
                attn_scale_mask_row(scaled, masked, raw, ok, N, (ScaleOp)op, by);
                for (int j = 0; j < N; j++) {
                    float want;
                    if (op == SCALE_DIVIDE) want = (float)((double)raw[j] / by);
                    else {
                        want = (float)((double)raw[j] * by);
                        want = want > FLT_MAX ? FLT_MAX : want < -FLT_MAX ? -FLT_MAX : want;
                    }
                    if (memcmp(&want, &scaled[j], sizeof want) != 0)
                        fail_msg("%s: %g %s %g gave %a, expected %a", impls[ii], raw[j], op == SCALE_DIVIDE ? "/" : "*",
                                 by, scaled[j], want);
                }
            }
    }
    attn_set_rowops(NULL);
}

static void test_causal_upper_triangle_zero(void **state) {
    (void)state;
    ModelConfig c = tu_config(16, 2, 4, 4);
    c.mask = MASK_CAUSAL;
    Model *m = tu_model("나는 어제 친구와 영화를 봤는데 , 그 영화는 정말 재미있었다", &c);
    assert_int_equal(m->n_q, 10);
    for (int h = 0; h < 2; h++)
        for (int i = 0; i < m->n_q; i++)
            for (int j = 0; j < m->n_k; j++) {
                size_t at = (size_t)i * m->n_k + j;
                assert_int_equal(m->allowed[at], j <= i);
                if (j > i) {
                    assert_true(m->head[h].weights[at] == 0.0f);
                    assert_true(m->head[h].masked[at] == -INFINITY);
                } else {
                    assert_true(m->head[h].masked[at] == m->head[h].scaled[at]);
                }
            }
    /* Row 0 sees only itself. */
    assert_true(m->head[0].weights[0] == 1.0f);
    model_free(m);
}

static void test_scaling_exact(void **state) {
    (void)state;
    ModelConfig c = tu_config(24, 2, 7, 3);
    Model *m = tu_model("Mary greeted Bob", &c);
    size_t cells = (size_t)m->n_q * m->n_k;
    for (int h = 0; h < 2; h++)
        for (size_t i = 0; i < cells; i++)
            assert_true(m->head[h].scaled[i] == (float)((double)m->head[h].scores[i] * (1.0 / sqrt(7.0))));
    /* Off: scaled is the raw score. */
    AvError err;
    c.scale = 0;
    assert_int_equal(model_set_config(m, &c, &err), 0);
    assert_int_equal(model_update(m, &err), 0);
    for (size_t i = 0; i < cells; i++) assert_true(m->head[0].scaled[i] == m->head[0].scores[i]);
    model_free(m);
}

/* The raw scores are Q K^T computed from the stored Q and K. */
static void test_scores_are_qkt(void **state) {
    (void)state;
    ModelConfig c = tu_config(20, 3, 5, 6);
    Model *m = tu_model("the cat sat on the mat", &c);
    for (int h = 0; h < 3; h++) {
        const HeadData *hd = &m->head[h];
        for (int i = 0; i < m->n_q; i++)
            for (int j = 0; j < m->n_k; j++) {
                double s = 0;
                for (int p = 0; p < 5; p++) s += (double)hd->q[i * 5 + p] * hd->k[j * 5 + p];
                assert_near(hd->scores[i * m->n_k + j], s, 1e-5);
            }
        /* Q = X W_Q */
        for (int i = 0; i < m->n_q; i++)
            for (int p = 0; p < 5; p++) {
                double s = 0;
                for (int d = 0; d < 20; d++) s += (double)m->x[i * 20 + d] * hd->wq[d * 5 + p];
                assert_near(hd->q[i * 5 + p], s, 1e-5);
            }
    }
    model_free(m);
}

// ----------------------------------------------------------------------------
// shapes, embeddings, prefix stability

static void test_multihead_shapes(void **state) {
    (void)state;
    ModelConfig c = tu_config(12, 3, 4, 2);
    Model *m = tu_model("Mary greeted Bob .", &c);
    assert_int_equal(m->n_q, 4);
    assert_int_equal(m->cfg.heads, 3);
    /* Y = concat (4, 3*2) W_O (6, 12): check one entry by hand. */
    double s = 0;
    for (int p = 0; p < 6; p++) s += (double)m->concat[1 * 6 + p] * m->wo[p * 12 + 5];
    assert_near(m->y[1 * 12 + 5], s, 1e-5);
    /* concat holds head 2's output in columns 4..5. */
    assert_true(m->concat[2 * 6 + 4] == m->head[2].out[2 * 2 + 0]);
    model_free(m);
}

static void test_repeated_word_same_embedding(void **state) {
    (void)state;
    ModelConfig c = tu_config(16, 1, 4, 4);
    Model *a = tu_model("the cat sat on the mat", &c);
    Model *b = tu_model("a dog saw the cat", &c);
    /* "the" at 0 and 4 in a; "cat" at 1 in a and 4 in b. */
    assert_memory_equal(a->embed, a->embed + 4 * 16, 16 * sizeof(float));
    assert_memory_equal(a->embed + 1 * 16, b->embed + 4 * 16, 16 * sizeof(float));
    assert_memory_equal(a->embed, b->embed + 3 * 16, 16 * sizeof(float));
    /* Without PE a repeated word has identical query rows. */
    assert_memory_equal(a->head[0].q, a->head[0].q + 4 * 4, 4 * sizeof(float));
    model_free(a);
    model_free(b);
}

static void test_seed_changes_numbers(void **state) {
    (void)state;
    ModelConfig c = tu_config(16, 2, 4, 4);
    Model *a = tu_model("Mary greeted Bob", &c);
    c.seed = 43;
    Model *b = tu_model("Mary greeted Bob", &c);
    assert_memory_not_equal(a->embed, b->embed, 16 * sizeof(float));
    assert_memory_not_equal(a->head[0].wq, b->head[0].wq, 16 * 4 * sizeof(float));
    /* Same seed, same numbers. */
    c.seed = 42;
    Model *a2 = tu_model("Mary greeted Bob", &c);
    assert_memory_equal(a->head[1].weights, a2->head[1].weights, 9 * sizeof(float));
    assert_memory_equal(a->y, a2->y, 3 * 16 * sizeof(float));
    model_free(a), model_free(b), model_free(a2);
}

/* doc/numbers.md: "The products (Q = XW_Q, QKᵀ, AV, W_O) are float FMA
 * chains in one fixed order per element": acc = 0; acc = fma(a_p, b_p, acc)
 * for p ascending. Every element of every product of a model with several
 * heads and odd sizes (the kernels' edges), under the causal mask (A V sums
 * only the visible keys: a masked weight is 0 and adds exactly nothing),
 * equals that chain bit for bit. */
static float fma_chain(const float *a, size_t sa, const float *b, size_t sb, int n) {
    float acc = 0.0f;
    for (int p = 0; p < n; p++) acc = fmaf(a[(size_t)p * sa], b[(size_t)p * sb], acc);
    return acc;
}

static void assert_same_bits(float got, float want, const char *what, int h, int i, int j) {
    if (memcmp(&got, &want, sizeof got) != 0)
        fail_msg("%s head %d [%d][%d]: %.9g, the FMA chain gives %.9g", what, h, i, j, (double)got, (double)want);
}

static void test_products_are_fma_chains(void **state) {
    (void)state;
    ModelConfig c = tu_config(37, 3, 7, 5);
    c.mask = MASK_CAUSAL;
    Model *m = tu_model("the cat sat on the mat while the dog ate its food in the hall", &c);
    int n = m->n_q, dm = c.d_model, dk = c.d_k, dv = c.d_v, hv = c.heads * dv;
    assert_int_equal(n, m->n_k);
    for (int h = 0; h < c.heads; h++) {
        const HeadData *hd = &m->head[h];
        for (int i = 0; i < n; i++) {
            for (int p = 0; p < dk; p++) {
                assert_same_bits(hd->q[(size_t)i * dk + p], fma_chain(m->xq + (size_t)i * dm, 1, hd->wq + p, dk, dm),
                                 "Q", h, i, p);
                assert_same_bits(hd->k[(size_t)i * dk + p], fma_chain(m->x + (size_t)i * dm, 1, hd->wk + p, dk, dm),
                                 "K", h, i, p);
            }
            for (int p = 0; p < dv; p++)
                assert_same_bits(hd->v[(size_t)i * dv + p], fma_chain(m->x + (size_t)i * dm, 1, hd->wv + p, dv, dm),
                                 "V", h, i, p);
            for (int j = 0; j < n; j++)
                assert_same_bits(hd->scores[(size_t)i * n + j],
                                 fma_chain(hd->q + (size_t)i * dk, 1, hd->k + (size_t)j * dk, 1, dk), "S", h, i, j);
            for (int p = 0; p < dv; p++)
                assert_same_bits(hd->out[(size_t)i * dv + p],
                                 fma_chain(hd->weights + (size_t)i * n, 1, hd->v + p, dv, n), "O", h, i, p);
        }
    }
    for (int i = 0; i < n; i++)
        for (int p = 0; p < dm; p++)
            assert_same_bits(m->y[(size_t)i * dm + p], fma_chain(m->concat + (size_t)i * hv, 1, m->wo + p, dm, hv), "Y",
                             -1, i, p);
    model_free(m);
}

/* doc/numbers.md: embeddings are N(0, 1); W_Q, W_K, W_V are N(0, 1/fan_in)
 * with fan_in = d_model, W_O N(0, 1/(h d_v)). The sample variances of many
 * entries are within 5% of those (their standard error is about 1%). */
static double variance(const float *w, size_t n) {
    double s = 0, s2 = 0;
    for (size_t i = 0; i < n; i++) s += w[i], s2 += (double)w[i] * w[i];
    return s2 / (double)n - (s / (double)n) * (s / (double)n);
}

static void test_weight_variances(void **state) {
    (void)state;
    ModelConfig c = tu_config(256, 4, 32, 16);
    Model *m = tu_model("one two three four five six seven eight nine ten eleven twelve", &c);
    for (int h = 0; h < c.heads; h++) {
        double vq = variance(m->head[h].wq, (size_t)256 * 32), vk = variance(m->head[h].wk, (size_t)256 * 32);
        double vv = variance(m->head[h].wv, (size_t)256 * 16);
        assert_true(fabs(vq * 256 - 1) < 0.05 && fabs(vk * 256 - 1) < 0.05 && fabs(vv * 256 - 1) < 0.05);
    }
    double vo = variance(m->wo, (size_t)4 * 16 * 256);
    assert_true(fabs(vo * 64 - 1) < 0.05);
    double ve = variance(m->embed, (size_t)m->n_k * 256);
    assert_true(fabs(ve - 1) < 0.05);
    model_free(m);
}

static void test_prefix_stable_heads(void **state) {
    (void)state;
    ModelConfig c = tu_config(16, 2, 4, 3);
    Model *a = tu_model("Bob ignored Mary", &c);
    c.heads = 3;
    Model *b = tu_model("Bob ignored Mary", &c);
    for (int h = 0; h < 2; h++) {
        assert_memory_equal(a->head[h].wq, b->head[h].wq, 16 * 4 * sizeof(float));
        assert_memory_equal(a->head[h].wk, b->head[h].wk, 16 * 4 * sizeof(float));
        assert_memory_equal(a->head[h].wv, b->head[h].wv, 16 * 3 * sizeof(float));
        assert_memory_equal(a->head[h].weights, b->head[h].weights, 9 * sizeof(float));
    }
    model_free(a), model_free(b);
}

static void test_prefix_stable_dk(void **state) {
    (void)state;
    ModelConfig c = tu_config(16, 2, 4, 4);
    Model *a = tu_model("Bob ignored Mary", &c);
    c.d_k = 5;
    Model *b = tu_model("Bob ignored Mary", &c);
    for (int h = 0; h < 2; h++)
        for (int r = 0; r < 16; r++) {
            assert_memory_equal(a->head[h].wq + r * 4, b->head[h].wq + r * 5, 4 * sizeof(float));
            assert_memory_equal(a->head[h].wk + r * 4, b->head[h].wk + r * 5, 4 * sizeof(float));
        }
    /* V did not change with d_k. */
    assert_memory_equal(a->head[1].wv, b->head[1].wv, 16 * 4 * sizeof(float));
    model_free(a), model_free(b);
}

static void test_prefix_stable_dmodel(void **state) {
    (void)state;
    ModelConfig c = tu_config(16, 1, 4, 4);
    Model *a = tu_model("Bob ignored Mary", &c);
    c.d_model = 20;
    Model *b = tu_model("Bob ignored Mary", &c);
    for (int t = 0; t < 3; t++) assert_memory_equal(a->embed + t * 16, b->embed + t * 20, 16 * sizeof(float));
    model_free(a), model_free(b);
}

/* Changing heads, d_k or d_v keeps the weights that stay (only new columns
 * are drawn): the result is exactly what a fresh model draws. */
static void test_incremental_weights_equal_fresh(void **state) {
    (void)state;
    ModelConfig c = tu_config(16, 2, 4, 3);
    Model *m = tu_model("Bob ignored Mary", &c);
    AvError err;
    ModelConfig steps[] = {tu_config(16, 2, 8, 3), tu_config(16, 3, 8, 5), tu_config(16, 1, 2, 5),
                           tu_config(16, 4, 6, 2)};
    for (size_t k = 0; k < sizeof steps / sizeof *steps; k++) {
        assert_int_equal(model_set_config(m, &steps[k], &err), 0);
        if (k == 2) { /* two changes before one update */
            ModelConfig seed = steps[k];
            seed.seed = 43;
            assert_int_equal(model_set_config(m, &seed, &err), 0);
            steps[k] = seed;
        }
        assert_int_equal(model_update(m, &err), 0);
        Model *f = tu_model("Bob ignored Mary", &steps[k]);
        const ModelConfig *s = &steps[k];
        for (int h = 0; h < s->heads; h++) {
            assert_memory_equal(m->head[h].wq, f->head[h].wq, sizeof(float) * 16 * (size_t)s->d_k);
            assert_memory_equal(m->head[h].wk, f->head[h].wk, sizeof(float) * 16 * (size_t)s->d_k);
            assert_memory_equal(m->head[h].wv, f->head[h].wv, sizeof(float) * 16 * (size_t)s->d_v);
        }
        assert_memory_equal(m->wo, f->wo, sizeof(float) * 16 * (size_t)s->heads * s->d_v);
        assert_memory_equal(m->y, f->y, sizeof(float) * 16 * 3);
        model_free(f);
    }
    model_free(m);
}

static void test_positional_encoding(void **state) {
    (void)state;
    ModelConfig c = tu_config(8, 1, 4, 4);
    c.pos = POS_SINUSOIDAL;
    Model *m = tu_model("the cat sat on the mat", &c);
    /* pos 0: sin 0 = 0 at even dims, cos 0 = 1 at odd dims. */
    for (int d = 0; d < 8; d++) assert_near(m->pe[d], d % 2 ? 1.0 : 0.0, 0);
    /* pos 3, dim 2 (i = 1): sin(3 / 10000^(2/8)). */
    assert_near(m->pe[3 * 8 + 2], sin(3.0 / pow(10000.0, 2.0 / 8)), 1e-7);
    assert_near(m->pe[3 * 8 + 5], cos(3.0 / pow(10000.0, 4.0 / 8)), 1e-7);
    for (int i = 0; i < 6 * 8; i++) assert_true(m->x[i] == m->embed[i] + m->pe[i]);
    /* With PE the two "the" (rows 0 and 4) get different query rows. */
    assert_memory_not_equal(m->head[0].q, m->head[0].q + 4 * 4, 4 * sizeof(float));
    model_free(m);
}

// ----------------------------------------------------------------------------
// the stage cache

static void test_stage_cache(void **state) {
    (void)state;
    ModelConfig c = tu_config(16, 2, 4, 4);
    Model *m = tu_model("Mary greeted Bob", &c);
    AvError err;
    unsigned long before[STAGE_COUNT];
    memcpy(before, m->computed, sizeof before);
    /* Mask: from the mask stage on. */
    c.mask = MASK_CAUSAL;
    assert_int_equal(model_set_config(m, &c, &err), 0);
    assert_int_equal(m->stale, STAGE_MASKED);
    assert_int_equal(model_update(m, &err), 0);
    assert_true(m->computed[STAGE_SCORES] == before[STAGE_SCORES]);
    assert_true(m->computed[STAGE_SCALED] == before[STAGE_SCALED]);
    assert_true(m->computed[STAGE_MASKED] == before[STAGE_MASKED] + 1);
    assert_true(m->computed[STAGE_FINAL] == before[STAGE_FINAL] + 1);
    /* Scale: from the scaled stage. */
    c.scale = 0;
    model_set_config(m, &c, &err);
    assert_int_equal(m->stale, STAGE_SCALED);
    model_update(m, &err);
    assert_true(m->computed[STAGE_SCORES] == before[STAGE_SCORES]);
    assert_true(m->computed[STAGE_SCALED] == before[STAGE_SCALED] + 1);
    /* d_k: from the projections; seed: from the embeddings. */
    c.d_k = 8;
    model_set_config(m, &c, &err);
    assert_int_equal(m->stale, STAGE_PROJECT);
    model_update(m, &err);
    assert_true(m->computed[STAGE_EMBED] == before[STAGE_EMBED]);
    c.seed = 7;
    model_set_config(m, &c, &err);
    assert_int_equal(m->stale, STAGE_EMBED);
    model_update(m, &err);
    assert_true(m->computed[STAGE_EMBED] == before[STAGE_EMBED] + 1);
    /* Nothing changed: nothing recomputed. */
    memcpy(before, m->computed, sizeof before);
    model_set_config(m, &c, &err);
    model_update(m, &err);
    assert_memory_equal(before, m->computed, sizeof before);
    model_free(m);
}

/* Changing the mask after a cache hit gives the same numbers as computing
 * the new configuration from scratch. */
static void test_incremental_equals_fresh(void **state) {
    (void)state;
    ModelConfig c = tu_config(16, 2, 4, 4);
    Model *m = tu_model("Mary greeted Bob and Bob ignored Mary", &c);
    AvError err;
    c.mask = MASK_CAUSAL, c.scale = 0, c.heads = 3, c.d_k = 6;
    model_set_config(m, &c, &err);
    model_update(m, &err);
    Model *f = tu_model("Mary greeted Bob and Bob ignored Mary", &c);
    size_t cells = (size_t)m->n_q * m->n_k;
    for (int h = 0; h < 3; h++) assert_memory_equal(m->head[h].weights, f->head[h].weights, cells * sizeof(float));
    assert_memory_equal(m->y, f->y, (size_t)m->n_q * 16 * sizeof(float));
    model_free(m), model_free(f);
}

// ----------------------------------------------------------------------------
// validation and budgets

static void test_config_ranges(void **state) {
    (void)state;
    ModelConfig c;
    AvError err;
    model_config_default(&c);
    assert_int_equal(model_config_check(&c, &err), 0);
    c.heads = 65;
    assert_int_equal(model_config_check(&c, &err), -1);
    assert_non_null(strstr(err.msg, "heads 65 is out of range 1..64"));
    model_config_default(&c);
    c.d_k = 0;
    assert_int_equal(model_config_check(&c, &err), -1);
    assert_non_null(strstr(err.msg, "d_k 0"));
    model_config_default(&c);
    c.d_model = 4097;
    assert_int_equal(model_config_check(&c, &err), -1);
    assert_non_null(strstr(err.msg, "1..4096"));
}

static void test_budget(void **state) {
    (void)state;
    ModelConfig c = tu_config(64, 64, 1, 1);
    AvError err;
    assert_int_equal(model_check_budget(&c, 512, 512, &source_text, &err), 0);
    assert_int_equal(model_check_budget(&c, 513, 513, &source_text, &err), -1);
    assert_non_null(strstr(err.msg, "attention cells"));
    c = tu_config(4096, 64, 4096, 4096);
    assert_int_equal(model_check_budget(&c, 3, 3, &source_text, &err), -1);
    assert_non_null(strstr(err.msg, "MiB"));
    /* The bytes count what the arenas really hold (packed K and V, the
     * products before the split into heads, W_O's normals in double), not
     * only the named matrices: cross-attention from one query over 4096 keys
     * with 64 wide heads names ~1 GiB but takes ~2.9 GiB. */
    ModelConfig wide = tu_config(8, 64, 192, 768), narrow = tu_config(8, 64, 64, 64);
    wide.attn = narrow.attn = ATTN_CROSS;
    assert_int_equal(model_check_budget(&wide, 1, 4096, &source_text, &err), -1);
    assert_non_null(strstr(err.msg, "MiB"));
    assert_int_equal(model_check_budget(&narrow, 1, 4096, &source_text, &err), 0);
    /* A failing setter leaves the model as it was. */
    Model *m = tu_model("a b c", NULL);
    assert_int_equal(model_set_config(m, &c, &err), -1);
    assert_int_equal(m->cfg.d_model, 64);
    assert_int_equal(m->stale, STAGE_NONE);
    model_free(m);
}

static void test_text_errors_keep_state(void **state) {
    (void)state;
    Model *m = tu_model("Mary greeted Bob", NULL);
    AvError err;
    assert_int_equal(model_set_text(m, "ab\xff", 3, &err), -1);
    assert_non_null(strstr(err.msg, "offset 2"));
    assert_int_equal(m->n_q, 3);
    assert_string_equal(m->text, "Mary greeted Bob");
    assert_int_equal(model_set_tokenizer(m, TOK_CUSTOM, "(", &err), -1);
    assert_int_equal(tok_preset(m->tokenizer), TOK_WORDS);
    assert_int_equal(model_set_tokenizer(m, TOK_CHARS, NULL, &err), 0);
    assert_int_equal(model_update(m, &err), 0);
    assert_int_equal(m->n_q, 14);
    model_free(m);
}

static void test_zero_tokens(void **state) {
    (void)state;
    Model *m = tu_model("   ", NULL);
    assert_int_equal(m->n_q, 0);
    assert_int_equal(m->n_k, 0);
    model_free(m);
}

// ----------------------------------------------------------------------------
// issue 6: score kinds, tied Q/K, masks, cross-attention

static Model *worked_cfg(ScoreKind kind, int scale, MaskKind mask) {
    Model *m = worked(MASK_NONE, 1);
    AvError err = {0};
    ModelConfig c = m->cfg;
    c.score = kind, c.scale = scale, c.mask = mask;
    if (model_set_config(m, &c, &err) || model_update(m, &err)) fail_msg("%s", err.msg);
    return m;
}

/* Each kind on the worked example's Q and K, by hand. */
static void test_score_kinds(void **state) {
    (void)state;
    const double Q[3][3] = {{0.1, 0.3, 0.5}, {0.4, 0.2, 0.6}, {0.7, 0.8, 0.9}};
    const double K[3][3] = {{0.2, 0.1, 0.3}, {0.5, 0.7, 0.4}, {0.9, 0.2, 0.8}};
    Model *cos_m = worked_cfg(SCORE_COSINE, 1, MASK_NONE);
    Model *dist_m = worked_cfg(SCORE_DISTANCE, 1, MASK_NONE);
    Model *dot_m = worked_cfg(SCORE_DOT, 0, MASK_NONE);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double dot = 0, qq = 0, kk = 0, d2 = 0;
            for (int p = 0; p < 3; p++) {
                dot += Q[i][p] * K[j][p], qq += Q[i][p] * Q[i][p], kk += K[j][p] * K[j][p];
                d2 += (Q[i][p] - K[j][p]) * (Q[i][p] - K[j][p]);
            }
            double cosv = dot / (sqrt(qq) * sqrt(kk));
            assert_near(cos_m->head[0].scores[i * 3 + j], cosv, 1e-6);
            assert_near(cos_m->head[0].scaled[i * 3 + j], cosv * sqrt(3.0), 1e-6); /* temperature */
            assert_near(dist_m->head[0].scores[i * 3 + j], -d2, 1e-6);
            assert_near(dist_m->head[0].scaled[i * 3 + j], -d2 / sqrt(3.0), 1e-6);
            assert_near(dot_m->head[0].scores[i * 3 + j], dot, 1e-6);
            assert_true(dot_m->head[0].scaled[i * 3 + j] == dot_m->head[0].scores[i * 3 + j]); /* dot: not scaled */
        }
    /* (0,0): cos = 0.20 / (|(.1,.3,.5)| |(.2,.1,.3)|) = 0.20 / (0.591608 * 0.374166) */
    assert_near(cos_m->head[0].scores[0], 0.20 / (sqrt(0.35) * sqrt(0.14)), 1e-6);
    assert_near(dist_m->head[0].scores[0], -(0.01 + 0.04 + 0.04), 1e-6);
    CellDetail d;
    model_cell_detail(cos_m, 0, 1, 2, &d);
    assert_int_equal(d.kind, SCORE_COSINE);
    assert_near(d.dot, 0.88, 1e-6);
    assert_near(d.raw, d.dot / (d.q_norm * d.k_norm), 1e-6);
    model_free(cos_m), model_free(dist_m), model_free(dot_m);
    /* additive: v^T tanh(W1 q + W2 k) with the seeded W1, W2, v of head 0 */
    Model *add_m = worked_cfg(SCORE_ADDITIVE, 1, MASK_NONE);
    const HeadData *hd = &add_m->head[0];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double s = 0;
            for (int a = 0; a < 3; a++) {
                double z = 0;
                for (int p = 0; p < 3; p++)
                    z += (double)hd->w1[a * 3 + p] * Q[i][p] + (double)hd->w2[a * 3 + p] * K[j][p];
                s += (double)hd->va[a] * tanh(z);
            }
            assert_near(hd->scores[i * 3 + j], s, 1e-5);
            assert_true(hd->scaled[i * 3 + j] == hd->scores[i * 3 + j]); /* no scaling */
        }
    model_free(add_m);
    /* names */
    ScoreKind k;
    int scale = 1;
    AvError err;
    assert_int_equal(score_parse("dot", &k, &scale, &err), 0);
    assert_int_equal(scale, 0);
    assert_string_equal(score_name(k, scale), "dot");
    assert_int_equal(score_parse("scaled", &k, &scale, &err), 0);
    assert_string_equal(score_name(k, scale), "scaled");
    assert_int_equal(score_parse("euclid", &k, &scale, &err), -1);
}

static void test_tied_qk_symmetric(void **state) {
    (void)state;
    ModelConfig c = tu_config(16, 2, 4, 4);
    c.tie_qk = 1;
    Model *m = tu_model("Mary greeted Bob and Bob ignored Mary", &c);
    int n = m->n_q;
    for (int h = 0; h < 2; h++) {
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) assert_true(m->head[h].scores[i * n + j] == m->head[h].scores[j * n + i]);
        assert_true(model_asymmetry(m, h) == 0.0);
        assert_memory_equal(m->head[h].q, m->head[h].k, sizeof(float) * (size_t)n * 4); /* K = X W_Q = Q */
    }
    AvError err;
    c.tie_qk = 0;
    assert_int_equal(model_set_config(m, &c, &err), 0);
    assert_int_equal(m->stale, STAGE_PROJECT);
    model_update(m, &err);
    assert_true(model_asymmetry(m, 0) > 0.1); /* "Bob" moves "saw" more than the reverse */
    model_free(m);
}

static void pattern(const Model *m, const char *want) {
    char got[128];
    int k = 0;
    for (int i = 0; i < m->n_q; i++) {
        for (int j = 0; j < m->n_k; j++) got[k++] = m->allowed[i * m->n_k + j] ? '1' : '.';
        got[k++] = '/';
    }
    got[k] = '\0';
    assert_string_equal(got, want);
}

static void test_mask_kinds(void **state) {
    (void)state;
    ModelConfig c = tu_config(8, 1, 4, 4);
    c.mask = MASK_WINDOW, c.window = 2;
    Model *m = tu_model("a b c d e", &c);
    pattern(m, "1..../11.../.11../..11./...11/");
    AvError err;
    c.mask = MASK_PREFIX, c.prefix = 3;
    model_set_config(m, &c, &err), model_update(m, &err);
    pattern(m, "111../111../111../1111./11111/");
    c.prefix = 0;
    model_set_config(m, &c, &err), model_update(m, &err);
    pattern(m, "1..../11.../111../1111./11111/"); /* prefix 0 is causal */
    c.mask = MASK_PADDING;
    model_set_config(m, &c, &err);
    assert_int_equal(model_set_pad(m, 2, &err), 0);
    model_update(m, &err);
    assert_int_equal(m->n_k, 7);
    assert_string_equal(model_key_label(m, 6), "<pad>");
    assert_int_equal(model_key_id(m, 5), model_key_id(m, 6)); /* one id for <pad> */
    for (int i = 0; i < 7; i++) {
        assert_int_equal(m->allowed[i * 7 + 5], 0);
        assert_int_equal(m->allowed[i * 7 + 6], 0);
        assert_int_equal(m->allowed[i * 7 + 4], 1);
        assert_near(m->head[0].row_sums[i], 1.0, 1e-6);
    }
    model_free(m);
    /* painted: toggled cells and a whole row */
    c = tu_config(8, 1, 4, 4);
    c.mask = MASK_PAINTED;
    m = tu_model("a b c", &c);
    pattern(m, "111/111/111/");
    model_paint_toggle(m, 0, 1);
    model_paint_toggle(m, 2, 0), model_paint_toggle(m, 2, 1), model_paint_toggle(m, 2, 2);
    model_update(m, &err);
    pattern(m, "1.1/111/.../");
    /* a fully masked row: weights 0, sum 0, entropy 0 (the flag of the view) */
    assert_int_equal(m->n_allowed[2], 0);
    assert_true(m->head[0].row_sums[2] == 0.0);
    for (int j = 0; j < 3; j++) assert_true(m->head[0].weights[2 * 3 + j] == 0.0f);
    model_paint_clear(m);
    model_update(m, &err);
    pattern(m, "111/111/111/");
    unsigned char grid[9] = {1, 0, 0, 1, 1, 0, 0, 0, 1};
    assert_int_equal(model_set_painted(m, grid, 3, 3, &err), 0);
    model_update(m, &err);
    pattern(m, "1../11./..1/");
    model_free(m);
}

static void test_mask_parse_and_grid(void **state) {
    (void)state;
    MaskKind k;
    int w = 3, p = 2;
    AvError err;
    assert_int_equal(mask_parse("window:5", &k, &w, &p, &err), 0);
    assert_int_equal(k, MASK_WINDOW);
    assert_int_equal(w, 5);
    assert_int_equal(mask_parse("prefix:0", &k, &w, &p, &err), 0);
    assert_int_equal(p, 0);
    assert_int_equal(mask_parse("window:0", &k, &w, &p, &err), -1);
    assert_non_null(strstr(err.msg, "1..4096"));
    assert_int_equal(mask_parse("window:x", &k, &w, &p, &err), -1);
    assert_int_equal(mask_parse("diagonal", &k, &w, &p, &err), -1);
    char buf[32];
    mask_format(buf, sizeof buf, MASK_PREFIX, 3, 7);
    assert_string_equal(buf, "prefix:7");
    unsigned char *g;
    const char *txt = "# a mask\n1 0 1\n\n0 1 1  # row 2\n";
    assert_int_equal(mask_parse_grid(&g, 2, 3, txt, strlen(txt), "m.txt", &err), 0);
    assert_int_equal(g[1], 0);
    assert_int_equal(g[3], 0);
    assert_int_equal(g[5], 1);
    char *out;
    size_t out_len;
    assert_int_equal(mask_format_grid(&out, &out_len, g, 2, 3, NULL, 1 << 20, &err), 0);
    assert_non_null(strstr(out, "1 0 1\n0 1 1\n"));
    free(out);
    free(g);
    const char *bad = "1 0 1\n0 2 1\n";
    assert_int_equal(mask_parse_grid(&g, 2, 3, bad, strlen(bad), "m.txt", &err), -1);
    assert_non_null(strstr(err.msg, "m.txt:2:3: expected 0 or 1, found '2'"));
    const char *short_row = "1 0\n0 1 1\n";
    assert_int_equal(mask_parse_grid(&g, 2, 3, short_row, strlen(short_row), "m.txt", &err), -1);
    assert_non_null(strstr(err.msg, "m.txt:1: 2 values, expected 3"));
    assert_int_equal(mask_parse_grid(&g, 3, 3, txt, strlen(txt), "m.txt", &err), -1);
    assert_non_null(strstr(err.msg, "2 rows, expected 3"));
}

static void test_cross_attention(void **state) {
    (void)state;
    ModelConfig c = tu_config(16, 2, 4, 4);
    c.mask = MASK_CAUSAL;
    Model *m = tu_model("Bob saw Mary", &c);
    AvError err;
    c.attn = ATTN_CROSS;
    assert_int_equal(model_set_config(m, &c, &err), -1); /* no target yet */
    assert_non_null(strstr(err.msg, "needs a target"));
    assert_int_equal(model_set_target(m, "나는 밥을 봤다 .", strlen("나는 밥을 봤다 ."), &err), 0);
    assert_int_equal(model_set_config(m, &c, &err), 0);
    assert_int_equal(model_update(m, &err), 0);
    assert_int_equal(m->n_q, 4); /* target tokens down the side */
    assert_int_equal(m->n_k, 3); /* source tokens across */
    assert_string_equal(model_query_label(m, 1), "밥을");
    assert_string_equal(model_key_label(m, 2), "Mary");
    /* the causal rule does not apply to cross-attention */
    for (int i = 0; i < 12; i++) assert_int_equal(m->allowed[i], 1);
    /* Q from the target's X, K from the source's X */
    for (int p = 0; p < 4; p++) {
        double s = 0;
        for (int d = 0; d < 16; d++) s += (double)m->xq[1 * 16 + d] * m->head[1].wq[d * 4 + p];
        assert_near(m->head[1].q[1 * 4 + p], s, 1e-5);
        s = 0;
        for (int d = 0; d < 16; d++) s += (double)m->x[2 * 16 + d] * m->head[1].wk[d * 4 + p];
        assert_near(m->head[1].k[2 * 4 + p], s, 1e-5);
    }
    assert_int_equal(model_asymmetry(m, 0) == 0.0, 1); /* not square: no asymmetry measured */
    /* the same word has the same embedding on both sides */
    assert_int_equal(model_set_target(m, "Mary saw", 8, &err), 0);
    model_update(m, &err);
    assert_memory_equal(m->xq, m->x + 2 * 16, 16 * sizeof(float));
    /* causal self-attention on the target */
    c.attn = ATTN_CAUSAL_SELF;
    assert_int_equal(model_set_config(m, &c, &err), 0);
    model_update(m, &err);
    assert_int_equal(m->n_q, 2);
    assert_int_equal(m->n_k, 2);
    assert_int_equal(m->allowed[1], 0);
    assert_string_equal(model_key_label(m, 0), "Mary");
    /* removing the target falls back to self-attention on the sentence */
    c.attn = ATTN_CROSS;
    model_set_config(m, &c, &err);
    assert_int_equal(model_set_target(m, NULL, 0, &err), 0);
    assert_int_equal(m->cfg.attn, ATTN_SELF);
    model_update(m, &err);
    assert_int_equal(m->n_q, 3);
    model_free(m);
}

/* The numbers do not depend on the number of threads (each element is
 * computed by one task, in the same order). */
static void test_threads_identical(void **state) {
    (void)state;
    char text[2000] = "";
    for (int i = 0; i < 150; i++) {
        char w[16];
        snprintf(w, sizeof w, "w%d ", i % 97);
        strcat(text, w);
    }
    ModelConfig c = tu_config(48, 3, 16, 8);
    c.mask = MASK_CAUSAL;
    c.pos = POS_SINUSOIDAL;
    Model *ref = NULL;
    for (int th = 1; th <= 3; th++) {
        par_set_threads(th);
        Model *m = tu_model(text, &c);
        if (!ref) {
            ref = m;
            continue;
        }
        size_t cells = (size_t)m->n_q * m->n_k;
        for (int h = 0; h < 3; h++) {
            assert_memory_equal(m->head[h].q, ref->head[h].q, sizeof(float) * (size_t)m->n_q * 16);
            assert_memory_equal(m->head[h].scores, ref->head[h].scores, sizeof(float) * cells);
            assert_memory_equal(m->head[h].weights, ref->head[h].weights, sizeof(float) * cells);
            assert_memory_equal(m->head[h].entropy, ref->head[h].entropy, sizeof(double) * (size_t)m->n_q);
            assert_memory_equal(m->head[h].out, ref->head[h].out, sizeof(float) * (size_t)m->n_q * 8);
        }
        assert_memory_equal(m->y, ref->y, sizeof(float) * (size_t)m->n_q * 48);
        model_free(m);
    }
    model_free(ref);
    par_set_threads(1);
}

/* A cancel request (the user quits during a long recompute) stops the pass
 * with the stages still stale, nothing counted as computed; once cleared, the
 * next update gives the bits of a model that was never cancelled. */
static void test_cancel_leaves_stale(void **state) {
    (void)state;
    const char *text = "the cat sat on the mat because the cat was tired";
    ModelConfig c = tu_config(32, 2, 8, 8);
    Model *ref = tu_model(text, &c);
    for (int th = 1; th <= 2; th++) {
        par_set_threads(th);
        Model *m = model_new();
        AvError err = {0};
        assert_int_equal(model_set_config(m, &c, &err), 0);
        assert_int_equal(model_set_text(m, text, strlen(text), &err), 0);
        av_cancel_request();
        model_update_to(m, STAGE_FINAL);
        assert_int_equal(m->stale, STAGE_EMBED);
        assert_int_equal(m->weights_stale, 1);
        for (int s = 0; s < STAGE_COUNT; s++) assert_int_equal(m->computed[s], 0);
        av_cancel_clear();
        model_update_to(m, STAGE_FINAL);
        assert_int_equal(m->stale, STAGE_NONE);
        assert_memory_equal(m->y, ref->y, sizeof(float) * (size_t)m->n_q * 32);
        /* A later stage: cancelled, it stays stale where it was. */
        ModelConfig c2 = c;
        c2.mask = MASK_CAUSAL;
        assert_int_equal(model_set_config(m, &c2, &err), 0);
        av_cancel_request();
        model_update_to(m, STAGE_FINAL);
        assert_int_equal(m->stale, STAGE_MASKED);
        av_cancel_clear();
        model_update_to(m, STAGE_FINAL);
        Model *fresh = tu_model(text, &c2);
        assert_memory_equal(m->head[1].weights, fresh->head[1].weights, sizeof(float) * (size_t)m->n_q * m->n_k);
        assert_memory_equal(m->y, fresh->y, sizeof(float) * (size_t)m->n_q * 32);
        model_free(fresh);
        model_free(m);
    }
    par_set_threads(1);
    model_free(ref);
}

/* Additive attention's W1, W2 and v are drawn with the weights, once: after a
 * change of seed and back, of d_k and back, and of the score kind and back,
 * the numbers are those of a fresh model; a mask change draws nothing. */
static void test_additive_weights_follow_changes(void **state) {
    (void)state;
    const char *text = "the cat sat on the mat";
    ModelConfig c = tu_config(16, 2, 4, 4);
    c.score = SCORE_ADDITIVE;
    Model *m = tu_model(text, &c);
    AvError err = {0};
    ModelConfig c2 = c;
    c2.mask = MASK_CAUSAL;
    assert_int_equal(model_set_config(m, &c2, &err), 0);
    assert_int_equal(model_update(m, &err), 0);
    assert_int_equal(m->additive_stale, 0);
    ModelConfig steps[3] = {c2, c2, c2};
    steps[0].seed++;
    steps[1].d_k = 8;
    steps[2].score = SCORE_DOT;
    for (int k = 0; k < 3; k++) {
        assert_int_equal(model_set_config(m, &steps[k], &err), 0);
        assert_int_equal(model_update(m, &err), 0);
        assert_int_equal(model_set_config(m, &c2, &err), 0);
        assert_int_equal(model_update(m, &err), 0);
        Model *fresh = tu_model(text, &c2);
        for (int h = 0; h < 2; h++) {
            assert_memory_equal(m->head[h].w1, fresh->head[h].w1, sizeof(float) * 16);
            assert_memory_equal(m->head[h].va, fresh->head[h].va, sizeof(float) * 4);
            assert_memory_equal(m->head[h].weights, fresh->head[h].weights, sizeof(float) * 36);
        }
        model_free(fresh);
    }
    model_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_additive_weights_follow_changes),
        cmocka_unit_test(test_cancel_leaves_stale),
        cmocka_unit_test(test_worked_example),
        cmocka_unit_test(test_worked_example_causal),
        cmocka_unit_test(test_cell_detail_adds_up),
        cmocka_unit_test(test_entropy_and_max_weight),
        cmocka_unit_test(test_entropy_saturated_both_signs),
        cmocka_unit_test(test_rowops_same_bits),
        cmocka_unit_test(test_softmax_prefix_rows),
        cmocka_unit_test(test_scale_pow2_bits),
        cmocka_unit_test(test_saturation),
        cmocka_unit_test(test_row_sums_are_one),
        cmocka_unit_test(test_softmax_stable_with_large_scores),
        cmocka_unit_test(test_fully_masked_row),
        cmocka_unit_test(test_causal_upper_triangle_zero),
        cmocka_unit_test(test_scaling_exact),
        cmocka_unit_test(test_scores_are_qkt),
        cmocka_unit_test(test_multihead_shapes),
        cmocka_unit_test(test_repeated_word_same_embedding),
        cmocka_unit_test(test_seed_changes_numbers),
        cmocka_unit_test(test_prefix_stable_heads),
        cmocka_unit_test(test_prefix_stable_dk),
        cmocka_unit_test(test_prefix_stable_dmodel),
        cmocka_unit_test(test_incremental_weights_equal_fresh),
        cmocka_unit_test(test_positional_encoding),
        cmocka_unit_test(test_stage_cache),
        cmocka_unit_test(test_incremental_equals_fresh),
        cmocka_unit_test(test_config_ranges),
        cmocka_unit_test(test_budget),
        cmocka_unit_test(test_text_errors_keep_state),
        cmocka_unit_test(test_zero_tokens),
        cmocka_unit_test(test_score_kinds),
        cmocka_unit_test(test_tied_qk_symmetric),
        cmocka_unit_test(test_mask_kinds),
        cmocka_unit_test(test_mask_parse_and_grid),
        cmocka_unit_test(test_cross_attention),
        cmocka_unit_test(test_threads_identical),
        cmocka_unit_test(test_products_are_fma_chains),
        cmocka_unit_test(test_weight_variances),
    };
    return cmocka_run_group_tests_name("model", tests, NULL, NULL);
}
