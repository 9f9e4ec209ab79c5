/* test_source_llama.c - stories260K as a source of the app's model
 * (source_llama.c): the attention computed by the model's own code from the
 * checkpoint's Q, K and V gives, layer by layer, the outputs of the engine's
 * own attention (llama_layer_attend), and the logits of the whole stack;
 * knobs that apply recompute every later layer; the ones that do not say so.
 * Without ../shared/models: one "skipped" line, and pass. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "testutil.h"

#include "export.h"
#include "llama2.h"
#include "models.h"
#include "source_llama.h"

static const char SENTENCE[] = "Lily saw a cat. Lily";

static Model *open_model(const char *text, char *path, size_t cap) {
    if (!models_path(path, cap, "stories260K.bin")) return NULL;
    Model *m = model_new();
    assert_non_null(m);
    AvError err = {0};
    if (model_set_llama(m, path, NULL, text, strlen(text), &err)) fail_msg("%s", err.msg);
    ModelConfig c = m->cfg;
    c.mask = MASK_CAUSAL;
    if (model_set_config(m, &c, &err)) fail_msg("%s", err.msg);
    if (model_update(m, &err)) fail_msg("%s", err.msg);
    return m;
}

/* The engine alone, layer by layer, beside the model's layers: each head's
 * output O = A V equal to the engine's attention within float rounding. */
static void test_layers_match_the_engine(void **state) {
    (void)state;
    char path[512];
    Model *m = open_model(SENTENCE, path, sizeof path);
    if (!m) return;
    const Llama *lm = model_llama(m);
    const LlamaConfig *c = &lm->cfg;
    assert_int_equal(m->cfg.layers, 5);
    assert_int_equal(m->cfg.heads, 8);
    assert_int_equal(m->cfg.d_k, 8);
    assert_int_equal(m->cfg.d_model, 64);
    assert_int_equal(m->n_q, 8); /* <s> ▁Lily ▁saw ▁a ▁c at . ▁Lily */
    assert_int_equal(model_key_id(m, 0), 1);
    assert_string_equal(model_key_label(m, 0), "<s>");
    assert_string_equal(model_key_label(m, 1), "\xe2\x96\x81Lily");
    AvError err = {0};
    LlamaRun *r = llama_run_new(lm, m->n_k, 0, &err);
    assert_non_null(r);
    int ids[8];
    for (int j = 0; j < m->n_k; j++) ids[j] = model_key_id(m, j);
    assert_int_equal(llama_embed(r, ids, m->n_k, &err), 0);
    double worst = 0;
    for (int l = 0; l < c->n_layers; l++) {
        assert_int_equal(llama_layer_qkv(r, l), 0);
        assert_int_equal(llama_layer_attend(r, l), 0);
        const HeadData *hd = model_layer_heads(m, l);
        for (int h = 0; h < c->n_heads; h++)
            for (int i = 0; i < m->n_q; i++)
                for (int p = 0; p < c->head_size; p++) {
                    double ours = hd[h].out[i * c->head_size + p], theirs = r->att[i * c->dim + h * c->head_size + p];
                    double d = fabs(ours - theirs) / (1.0 + fabs(theirs));
                    if (d > worst) worst = d;
                }
        /* rows sum to 1, the future masked */
        for (int i = 0; i < m->n_q; i++) {
            assert_near(hd[0].row_sums[i], 1.0, 1e-5);
            for (int j = i + 1; j < m->n_k; j++) assert_true(hd[0].weights[i * m->n_k + j] == 0.0f);
        }
        assert_int_equal(llama_layer_finish(r, l, NULL), 0);
    }
    assert_true(worst < 1e-5);
    assert_int_equal(llama_logits(r), 0);
    const float *last = model_llama_run(m)->logits + (size_t)(m->n_q - 1) * c->vocab_size; /* every row's */
    int am = llama_argmax(last, c->vocab_size);
    assert_int_equal(am, llama_argmax(r->logits, c->vocab_size));
    for (int t = 0; t < c->vocab_size; t++) assert_near(last[t], r->logits[t], 1e-3);
    /* After "Lily saw a cat. Lily" the model says " was" (the engine too). */
    size_t len;
    const char *piece = llamatok_piece(model_llama_tok(m), am, &len);
    assert_string_equal(piece, " was");
    llama_run_free(r);
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
    const int last = (m->n_q - 1) * 512;
    float before = model_llama_run(m)->logits[last + 286];
    ModelConfig c = m->cfg;
    c.mask = MASK_NONE;
    assert_int_equal(model_set_config(m, &c, &err), 0);
    for (int l = 0; l < m->cfg.layers; l++) assert_int_equal(m->layer_stale[l], STAGE_MASKED);
    model_update(m, &err);
    assert_int_equal(m->stale, STAGE_NONE);
    assert_true(model_layer_heads(m, 4)[0].weights[1] > 0.0f); /* row 0 sees key 1 */
    assert_true(model_llama_run(m)->logits[last + 286] != before);
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

static void test_bad_files(void **state) {
    (void)state;
    char path[512], vocab[512];
    if (!models_path(path, sizeof path, "stories260K.bin") ||
        !models_path(vocab, sizeof vocab, "tokenizer-llama2-32k.bin"))
        return;
    Model *m = model_new();
    AvError err = {0};
    assert_int_equal(model_set_llama(m, path, vocab, "a", 1, &err), -1);
    assert_non_null(strstr(err.msg, "32000 pieces, but"));
    assert_non_null(strstr(err.msg, "has a vocabulary of 512"));
    assert_int_equal(model_set_llama(m, "/nonexistent/model.bin", NULL, "a", 1, &err), -1);
    assert_non_null(strstr(err.msg, "/nonexistent/model.bin"));
    assert_ptr_equal(m->src, &source_text); /* nothing changed */
    model_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layers_match_the_engine),
        cmocka_unit_test(test_knobs),
        cmocka_unit_test(test_bad_files),
    };
    return cmocka_run_group_tests_name("source_llama", tests, NULL, NULL);
}
