/* test_source_llama.c - stories260K as a source of the app's model
 * (source_trained.c on a llama2.c checkpoint): the attention computed by the model's own code from the
 * checkpoint's Q, K and V gives, layer by layer, the outputs of the engine's
 * own attention (tf_layer_attend), and the logits of the whole stack;
 * knobs that apply recompute every later layer; the ones that do not say so;
 * the chain of a layer (model_layer_chain) is an independent recomputation.
 * Without ../shared/models: one "skipped" line, and pass. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "testutil.h"

#include "export.h"
#include "llama2.h"
#include "models.h"
#include "source_trained.h"

static const char SENTENCE[] = "Lily saw a cat. Lily";

static Model *open_model(const char *text, char *path, size_t cap) {
    if (!models_path(path, cap, "stories260K.bin")) return NULL;
    Model *m = model_new();
    assert_non_null(m);
    AvError err = {0};
    if (model_set_trained(m, path, NULL, text, strlen(text), &err)) fail_msg("%s", err.msg);
    ModelConfig c = m->cfg;
    c.mask = MASK_CAUSAL;
    if (model_set_config(m, &c, &err)) fail_msg("%s", err.msg);
    model_want_next(m, m->n_q - 1); /* the update predicts the last row */
    if (model_update(m, &err)) fail_msg("%s", err.msg);
    assert_true(model_next_ready(m, m->n_q - 1));
    return m;
}

/* The engine alone, layer by layer, beside the model's layers: each head's
 * output O = A V equal to the engine's attention within float rounding. */
static void test_layers_match_the_engine(void **state) {
    (void)state;
    char path[512];
    Model *m = open_model(SENTENCE, path, sizeof path);
    if (!m) return;
    const TfModel *lm = model_trained_engine(m);
    const TfConfig *c = &lm->cfg;
    assert_int_equal(m->cfg.layers, 5);
    assert_int_equal(m->cfg.heads, 8);
    assert_int_equal(m->cfg.d_k, 8);
    assert_int_equal(m->cfg.d_model, 64);
    assert_int_equal(m->n_q, 8); /* <s> ▁Lily ▁saw ▁a ▁c at . ▁Lily */
    assert_int_equal(model_key_id(m, 0), 1);
    assert_string_equal(model_key_label(m, 0), "<s>");
    assert_string_equal(model_key_label(m, 1), "\xe2\x96\x81Lily");
    AvError err = {0};
    TfRun *r = tf_run_new(lm, m->n_k, 0, &err);
    assert_non_null(r);
    int ids[8];
    for (int j = 0; j < m->n_k; j++) ids[j] = model_key_id(m, j);
    assert_int_equal(tf_embed(r, ids, m->n_k, &err), 0);
    double worst = 0;
    for (int l = 0; l < c->n_layers; l++) {
        assert_int_equal(tf_layer_qkv(r, l), 0);
        assert_int_equal(tf_layer_attend(r, l), 0);
        const HeadData *hd = model_layer_heads(m, l);
        for (int h = 0; h < c->n_heads; h++)
            for (int i = 0; i < m->n_q; i++)
                for (int p = 0; p < c->head_dim; p++) {
                    double ours = hd[h].out[i * c->head_dim + p], theirs = r->att[i * c->dim + h * c->head_dim + p];
                    double d = fabs(ours - theirs) / (1.0 + fabs(theirs));
                    if (d > worst) worst = d;
                }
        /* rows sum to 1, the future masked */
        for (int i = 0; i < m->n_q; i++) {
            assert_near(hd[0].row_sums[i], 1.0, 1e-5);
            for (int j = i + 1; j < m->n_k; j++) assert_true(hd[0].weights[i * m->n_k + j] == 0.0f);
        }
        assert_int_equal(tf_layer_finish(r, l, NULL), 0);
    }
    assert_true(worst < 1e-5);
    assert_int_equal(tf_logits(r), 0);
    const float *last = model_trained_run(m)->logits; /* the last row's: the update predicted it */
    int am = tf_argmax(last, c->vocab);
    assert_int_equal(am, tf_argmax(r->logits, c->vocab));
    for (int t = 0; t < c->vocab; t++) assert_near(last[t], r->logits[t], 1e-3);
    /* After "Lily saw a cat. Lily" the model says " was" (the engine too). */
    size_t len;
    const char *piece = vocab_piece(model_trained_vocab(m), am, &len);
    assert_string_equal(piece, " was");
    /* what the next-token panel reads, and none for a row not predicted */
    int ids1[1];
    double p1[1];
    const char *pc[1];
    size_t pl[1];
    assert_int_equal(m->src->next_tokens(m, m->n_q - 1, 1, ids1, p1, pc, pl), 1);
    assert_int_equal(ids1[0], am);
    assert_int_equal(m->src->next_tokens(m, 2, 1, ids1, p1, pc, pl), 0);
    assert_false(model_next_ready(m, 2));
    model_want_next(m, 2);
    model_update(m, &err);
    assert_true(model_next_ready(m, 2));
    assert_int_equal(m->src->next_tokens(m, 2, 1, ids1, p1, pc, pl), 1);
    tf_run_free(r);
    model_free(m);
}

/* Mask none: every layer recomputed, the first row now sees the future, and
 * the prediction changes; the sentence can change (BOS first); the knobs
 * that do not apply are refused in one line and change nothing. */
static void test_knobs(void **state) {
    (void)state;
    char path[512];
    Model *m = open_model(SENTENCE, path, sizeof path);
    if (!m) return;
    AvError err = {0};
    float before = model_trained_run(m)->logits[286]; /* the last row's */
    ModelConfig c = m->cfg;
    c.mask = MASK_NONE;
    assert_int_equal(model_set_config(m, &c, &err), 0);
    for (int l = 0; l < m->cfg.layers; l++) assert_int_equal(m->layer_stale[l], STAGE_MASKED);
    model_update(m, &err);
    assert_int_equal(m->stale, STAGE_NONE);
    assert_true(model_layer_heads(m, 4)[0].weights[1] > 0.0f); /* row 0 sees key 1 */
    assert_true(model_next_ready(m, m->n_q - 1));              /* the update predicted it again */
    assert_true(model_trained_run(m)->logits[286] != before);
    assert_int_equal(model_set_text(m, "Once upon a time", 16, &err), 0);
    model_update(m, &err);
    assert_int_equal(model_key_id(m, 0), 1);
    assert_string_equal(m->text, "Once upon a time");
    assert_true(m->n_q > 1 && m->n_q == m->n_k);
    c = m->cfg;
    c.d_k = 16;
    assert_int_equal(model_set_config(m, &c, &err), -1);
    assert_non_null(strstr(err.msg, "a trained model's weights are its own"));
    c = m->cfg;
    c.score = SCORE_COSINE;
    assert_int_equal(model_set_config(m, &c, &err), -1);
    assert_non_null(strstr(err.msg, "its score is its own"));
    assert_int_equal(model_set_pad(m, 2, &err), -1);
    assert_int_equal(model_set_tokenizer(m, TOK_CHARS, NULL, &err), -1);
    /* The dump: every layer and the next tokens. */
    char *buf = NULL;
    size_t blen = 0;
    FILE *f = open_memstream(&buf, &blen);
    assert_int_equal(export_model(f, m, EXPORT_JSON), 0);
    fclose(f);
    assert_non_null(strstr(buf, "\"source\": \"model\""));
    assert_non_null(strstr(buf, "\"layers\": 5, "));
    assert_non_null(strstr(buf, "\"next_tokens\": [{\"id\": "));
    free(buf);
    model_free(m);
}

// ----------------------------------------------------------------------------
// the chain of a layer (model_layer_chain) against a recomputation in double

/* |got - want| within 1e-5 of (1 + |want|), for rows x cols; names the first
 * cell off. */
static void near_all(const char *what, int l, const float *got, const double *want, int rows, int cols) {
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            double g = got[(size_t)i * cols + j], w = want[(size_t)i * cols + j];
            if (!(fabs(g - w) <= 1e-5 * (1.0 + fabs(w))))
                fail_msg("layer %d %s[%d][%d] = %.9g, recomputed %.9g", l, what, i, j, g, w);
        }
}

static void rms_d(double *out, const float *x, const float *g, int rows, int n) {
    for (int i = 0; i < rows; i++) {
        double ss = 0;
        for (int j = 0; j < n; j++) ss += (double)x[i * n + j] * x[i * n + j];
        double inv = 1.0 / sqrt(ss / n + 1e-5);
        for (int j = 0; j < n; j++) out[i * n + j] = g[j] * (x[i * n + j] * inv);
    }
}

/* out (rows, n_out) = x (rows, n_in) W^T, W (n_out, n_in). */
static void lin_d(double *out, const float *x, const float *w, int rows, int n_in, int n_out) {
    for (int i = 0; i < rows; i++)
        for (int o = 0; o < n_out; o++) {
            double s = 0;
            for (int k = 0; k < n_in; k++) s += (double)x[i * n_in + k] * w[(size_t)o * n_in + k];
            out[i * n_out + o] = s;
        }
}

/* RoPE on pairs (2p, 2p+1) of each head of a row at position i. */
static void rope_d(double *out, const float *x, int rows, int width, int hs) {
    for (int i = 0; i < rows; i++)
        for (int h0 = 0; h0 < width; h0 += hs)
            for (int p = 0; p < hs / 2; p++) {
                double ang = i * pow(10000.0, -2.0 * p / hs), a = x[i * width + h0 + 2 * p],
                       b = x[i * width + h0 + 2 * p + 1];
                out[i * width + h0 + 2 * p] = a * cos(ang) - b * sin(ang);
                out[i * width + h0 + 2 * p + 1] = a * sin(ang) + b * cos(ang);
            }
}

/* A llama2.c matrix: F32 in place in the mapping. */
static const float *wf(const TfMat *w) { return (const float *)(const void *)w->t->data + w->off; }

static void check_layer(const Model *m, int l) {
    const TfModel *lm = model_trained_engine(m);
    const TfConfig *c = &lm->cfg;
    const TfLayer *L = &lm->layers[l];
    LayerChain v;
    AvError err = {0};
    if (model_layer_chain(m, l, &v, &err)) fail_msg("%s", err.msg);
    int n = v.n, dim = c->dim, kv = c->kv_dim, hid = c->hidden_dim, hs = c->head_dim;
    assert_int_equal(n, m->n_q);
    assert_int_equal(v.layer, l);
    assert_int_equal(v.dim, 64);
    assert_int_equal(v.kv_dim, 32);
    assert_int_equal(v.hidden_dim, hid);
    assert_int_equal(v.head_size, 8);
    size_t big = (size_t)n * (hid > dim ? hid : dim);
    double *want = malloc(sizeof(double) * big);
    assert_non_null(want);
    const TfRun *run = model_trained_run(m);
    /* The input is the model's x of layer l; the output its x of l + 1, bit for bit. */
    assert_memory_equal(v.x, tf_run_x(run, l), sizeof(float) * n * dim);
    assert_memory_equal(v.x_next, tf_run_x(run, l + 1), sizeof(float) * n * dim);
    rms_d(want, v.x, L->norm1_w, n, dim);
    near_all("xb", l, v.xb, want, n, dim);
    lin_d(want, v.xb, wf(&L->wq), n, dim, dim);
    near_all("q_raw", l, v.q_raw, want, n, dim);
    rope_d(want, v.q_raw, n, dim, hs);
    near_all("q", l, v.q, want, n, dim);
    lin_d(want, v.xb, wf(&L->wk), n, dim, kv);
    near_all("k_raw", l, v.k_raw, want, n, kv);
    rope_d(want, v.k_raw, n, kv, hs);
    near_all("k", l, v.k, want, n, kv);
    lin_d(want, v.xb, wf(&L->wv), n, dim, kv);
    near_all("v", l, v.v, want, n, kv);
    /* Head by head: the pre-RoPE slices; q and k after RoPE are the heads' (the app's). */
    const HeadData *hd = model_layer_heads(m, l);
    for (int h = 0; h < c->n_heads; h++) {
        int g = h / (c->n_heads / c->n_kv_heads);
        for (int i = 0; i < n; i++) {
            assert_memory_equal(v.q_raw_heads + ((size_t)h * n + i) * hs, v.q_raw + (size_t)i * dim + h * hs,
                                sizeof(float) * hs);
            assert_memory_equal(v.k_raw_heads + ((size_t)g * n + i) * hs, v.k_raw + (size_t)i * kv + g * hs,
                                sizeof(float) * hs);
            assert_memory_equal(hd[h].q + (size_t)i * hs, v.q + (size_t)i * dim + h * hs, sizeof(float) * hs);
            assert_memory_equal(hd[h].k + (size_t)i * hs, v.k + (size_t)i * kv + g * hs, sizeof(float) * hs);
            assert_memory_equal(v.att + (size_t)i * dim + h * hs, hd[h].out + (size_t)i * hs, sizeof(float) * hs);
        }
    }
    lin_d(want, v.att, wf(&L->wo), n, dim, dim);
    near_all("proj", l, v.proj, want, n, dim);
    for (int t = 0; t < n * dim; t++) want[t] = (double)v.x[t] + v.proj[t];
    near_all("mid", l, v.mid, want, n, dim);
    rms_d(want, v.mid, L->norm2_w, n, dim);
    near_all("xb2", l, v.xb2, want, n, dim);
    double *h1 = malloc(sizeof(double) * n * hid), *h3 = malloc(sizeof(double) * n * hid);
    assert_non_null(h1);
    assert_non_null(h3);
    lin_d(h1, v.xb2, wf(&L->w_fc), n, dim, hid);
    lin_d(h3, v.xb2, wf(&L->w_up), n, dim, hid);
    for (int t = 0; t < n * hid; t++) want[t] = h1[t] / (1.0 + exp(-h1[t])) * h3[t];
    near_all("hb", l, v.hb, want, n, hid);
    lin_d(want, v.hb, wf(&L->w_down), n, hid, dim);
    near_all("ffn", l, v.ffn, want, n, dim);
    for (int t = 0; t < n * dim; t++) want[t] = (double)v.mid[t] + v.ffn[t];
    near_all("x_next", l, v.x_next, want, n, dim);
    /* The rotation table: cos and sin of position i times pair p's frequency. */
    for (int i = 0; i < n; i++)
        for (int p = 0; p < hs / 2; p++) {
            assert_near(v.rope[(i * hs / 2 + p) * 2], cos(i * pow(10000.0, -2.0 * p / hs)), 1e-12);
            assert_near(v.rope[(i * hs / 2 + p) * 2 + 1], sin(i * pow(10000.0, -(2.0 * p) / hs)), 1e-12);
        }
    free(h1), free(h3), free(want);
}

/* Layer 0 and the last: every tensor of the chain as an independent
 * recomputation in double; the model's own numbers unchanged by it. */
static void test_layer_chain(void **state) {
    (void)state;
    char path[512];
    Model *m = open_model(SENTENCE, path, sizeof path);
    if (!m) return;
    const TfRun *run = model_trained_run(m);
    size_t vs = 512; /* the last row's */
    float *logits = malloc(sizeof(float) * vs);
    assert_non_null(logits);
    memcpy(logits, run->logits, sizeof(float) * vs);
    check_layer(m, 0);
    check_layer(m, 4);
    check_layer(m, 0); /* back to a layer shown before */
    assert_memory_equal(run->logits, logits, sizeof(float) * vs);
    LayerChain v;
    AvError err = {0};
    assert_int_equal(model_layer_chain(m, 5, &v, &err), -1);
    assert_non_null(strstr(err.msg, "layer 6: the model has 5"));
    /* Mask none: the chain of what is shown, the heads seeing the future. */
    ModelConfig c = m->cfg;
    c.mask = MASK_NONE;
    assert_int_equal(model_set_config(m, &c, &err), 0);
    assert_int_equal(model_update(m, &err), 0);
    check_layer(m, 0);
    check_layer(m, 4);
    assert_true(memcmp(model_trained_run(m)->logits, logits, sizeof(float) * vs) != 0);
    free(logits);
    model_free(m);
    Model *plain = model_new();
    assert_int_equal(model_layer_chain(plain, 0, &v, &err), -1);
    assert_non_null(strstr(err.msg, "a trained model's"));
    model_free(plain);
}

static void test_bad_files(void **state) {
    (void)state;
    char path[512], vocab[512];
    if (!models_path(path, sizeof path, "stories260K.bin") ||
        !models_path(vocab, sizeof vocab, "tokenizer-llama2-32k.bin"))
        return;
    Model *m = model_new();
    AvError err = {0};
    assert_int_equal(model_set_trained(m, path, vocab, "a", 1, &err), -1);
    assert_non_null(strstr(err.msg, "32000 pieces, but"));
    assert_non_null(strstr(err.msg, "has a vocabulary of 512"));
    assert_int_equal(model_set_trained(m, "/nonexistent/model.bin", NULL, "a", 1, &err), -1);
    assert_non_null(strstr(err.msg, "/nonexistent/model.bin"));
    assert_ptr_equal(m->src, &source_text); /* nothing changed */
    model_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layers_match_the_engine),
        cmocka_unit_test(test_knobs),
        cmocka_unit_test(test_layer_chain),
        cmocka_unit_test(test_bad_files),
    };
    return cmocka_run_group_tests_name("source_llama", tests, NULL, NULL);
}
