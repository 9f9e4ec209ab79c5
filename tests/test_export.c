/* test_export.c - the dumps: JSON parsed back and compared with the model,
 * CSV rows, the text layout, and escaping of hostile token texts. */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "export.h"
#include "json.h"

static char *dump(const Model *m, ExportFormat fmt, size_t *len) {
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    assert_non_null(f);
    assert_int_equal(export_model(f, m, fmt), 0);
    fclose(f);
    if (len) *len = n;
    return buf;
}

static void test_json_round_trip(void **state) {
    (void)state;
    ModelConfig c = tu_config(8, 2, 4, 3);
    c.mask = MASK_CAUSAL;
    Model *m = tu_model("나는 학교에 간다", &c);
    size_t len;
    char *text = dump(m, EXPORT_JSON, &len);
    const char *error = NULL;
    J *j = j_parse(text, len, &error);
    if (!j) fail_msg("invalid JSON: %s", error);
    assert_int_equal((int)j_get(j, "version")->num, 1);
    assert_string_equal(j_get(j, "entropy_unit")->str, "bits");
    J *cfg = j_get(j, "config");
    assert_int_equal((int)j_get(cfg, "d_model")->num, 8);
    assert_int_equal((int)j_get(cfg, "heads")->num, 2);
    assert_int_equal((int)j_get(cfg, "d_k")->num, 4);
    assert_int_equal((int)j_get(cfg, "d_v")->num, 3);
    assert_int_equal((int)j_get(cfg, "seed")->num, 42);
    assert_string_equal(j_get(cfg, "mask")->str, "causal");
    assert_int_equal(j_get(cfg, "scale")->type, J_BOOL);
    assert_string_equal(j_get(cfg, "pos")->str, "none");
    assert_string_equal(j_get(cfg, "tokenizer")->str, "words");
    J *tokens = j_get(j, "tokens");
    assert_int_equal(tokens->n, 3);
    assert_string_equal(j_at(tokens, 1)->str, "학교에");
    assert_int_equal((int)j_at(j_get(j, "ids"), 2)->num, 2);
    J *emb = j_get(j, "embeddings");
    assert_int_equal(emb->n, 3);
    assert_int_equal(j_at(emb, 0)->n, 8);
    J *heads = j_get(j, "heads");
    assert_int_equal(heads->n, 2);
    for (int h = 0; h < 2; h++) {
        J *hd = j_at(heads, h);
        const char *names[] = {"q", "k", "v", "scores", "scaled", "masked", "weights", "output"};
        const float *arrs[] = {m->head[h].q,      m->head[h].k,      m->head[h].v,       m->head[h].scores,
                               m->head[h].scaled, m->head[h].masked, m->head[h].weights, m->head[h].out};
        int cols[] = {4, 4, 3, 3, 3, 3, 3, 3};
        for (int s = 0; s < 8; s++) {
            J *mat = j_get(hd, names[s]);
            assert_non_null(mat);
            assert_int_equal(mat->n, 3);
            for (int i = 0; i < 3; i++) {
                assert_int_equal(j_at(mat, i)->n, cols[s]);
                for (int k = 0; k < cols[s]; k++) {
                    J *v = j_at(j_at(mat, i), k);
                    float want = arrs[s][i * cols[s] + k];
                    if (want == -INFINITY) {
                        assert_int_equal(v->type, J_NULL); /* masked entries are null */
                    } else {
                        assert_int_equal(v->type, J_NUM);
                        /* %.9g round-trips a float32 exactly. */
                        assert_true((float)v->num == want);
                    }
                }
            }
        }
        J *sums = j_get(hd, "row_sums");
        assert_int_equal(sums->n, 3);
        for (int i = 0; i < 3; i++) assert_near(j_at(sums, i)->num, 1.0, 1e-6);
        /* entropy (bits) and the largest weight per row */
        J *ent = j_get(hd, "entropy"), *mw = j_get(hd, "max_weight");
        assert_int_equal(ent->n, 3);
        assert_int_equal(mw->n, 3);
        assert_near(j_at(ent, 0)->num, 0.0, 1e-12); /* causal row 0: one-hot */
        assert_near(j_at(mw, 0)->num, 1.0, 0);
        for (int i = 0; i < 3; i++) assert_true(j_at(ent, i)->num <= log2(i + 1) + 1e-9);
        /* The masked upper triangle is null. */
        assert_int_equal(j_at(j_at(j_get(hd, "masked"), 0), 2)->type, J_NULL);
    }
    J *y = j_get(j, "output");
    assert_int_equal(y->n, 3);
    assert_int_equal(j_at(y, 0)->n, 8);
    assert_true((float)j_at(j_at(y, 2), 7)->num == m->y[2 * 8 + 7]);
    j_free(j);
    free(text);
    model_free(m);
}

static void test_json_qkv(void **state) {
    (void)state;
    QkvData d;
    AvError err = {0};
    if (qkv_load(&d, "samples/worked-example.qkv", &err)) fail_msg("%s", err.msg);
    Model *m = model_new();
    assert_int_equal(model_set_qkv(m, &d, &err), 0);
    assert_int_equal(model_update(m, &err), 0);
    size_t len;
    char *text = dump(m, EXPORT_JSON, &len);
    J *j = j_parse(text, len, NULL);
    assert_non_null(j);
    assert_int_equal(j_get(j_get(j, "config"), "d_model")->type, J_NULL);
    assert_int_equal(j_get(j, "embeddings")->type, J_NULL);
    J *w = j_get(j_at(j_get(j, "heads"), 0), "weights");
    assert_near(j_at(j_at(w, 0), 0)->num, 0.2953424364, 1e-6);
    j_free(j);
    free(text);
    model_free(m);
}

/* Control characters and escape sequences in tokens are escaped in every
 * format: JSON by \u00XX, CSV and text by visible escapes. */
static void test_hostile_tokens_escaped(void **state) {
    (void)state;
    Model *m = model_new();
    AvError err;
    assert_int_equal(model_set_tokenizer(m, TOK_CUSTOM, "\\S+", &err), 0);
    const char *txt = "a\x1b]0;owned\x07 \xc2\x9b"
                      "2J q\"t";
    assert_int_equal(model_set_text(m, txt, strlen(txt), &err), 0);
    assert_int_equal(model_update(m, &err), 0);
    for (int f = 0; f < 3; f++) {
        size_t len;
        char *out = dump(m, (ExportFormat)f, &len);
        for (size_t i = 0; i < len; i++) {
            unsigned char ch = (unsigned char)out[i];
            assert_false(ch == 0x1b || ch == 0x07);
            if (ch == 0xC2 && i + 1 < len) assert_false((unsigned char)out[i + 1] == 0x9b);
        }
        free(out);
    }
    size_t len;
    char *json = dump(m, EXPORT_JSON, &len);
    J *j = j_parse(json, len, NULL);
    assert_non_null(j);
    assert_string_equal(j_at(j_get(j, "tokens"), 0)->str, "a\x1b]0;owned\x07"); /* decoded back */
    assert_string_equal(j_at(j_get(j, "tokens"), 2)->str, "q\"t");
    j_free(j);
    free(json);
    char *text = dump(m, EXPORT_TEXT, NULL);
    assert_non_null(strstr(text, "a\\x1B]0;owned\\x07"));
    assert_non_null(strstr(text, "\\u{009B}2J"));
    free(text);
    model_free(m);
}

static void test_csv_rows(void **state) {
    (void)state;
    ModelConfig c = tu_config(4, 1, 2, 2);
    Model *m = tu_model("Mary greeted Bob", &c);
    size_t len;
    char *csv = dump(m, EXPORT_CSV, &len);
    assert_true(strncmp(csv, "head,stage,i,j,value\n", 21) == 0);
    char want[64];
    snprintf(want, sizeof want, "\n0,weights,2,1,%.9g\n", m->head[0].weights[2 * 3 + 1]);
    assert_non_null(strstr(csv, want));
    assert_non_null(strstr(csv, "\n,token,1,0,\"greeted\"\n"));
    /* rows: 3 tokens + 12 E + 12 X + head (8 W_Q + 8 W_K + 8 W_V + 6 q + 6 k + 6 v + 4 x 9 + 3 x 3 row
     * values + 6 out) + 8 W_O + 6 concat + 12 y */
    int lines = 0;
    for (size_t i = 0; i < len; i++) lines += csv[i] == '\n';
    assert_int_equal(lines, 1 + 3 + 12 + 12 + (24 + 6 + 6 + 6 + 36 + 9 + 6) + 8 + 6 + 12);
    assert_non_null(strstr(csv, "\n0,w_q,3,1,"));
    assert_non_null(strstr(csv, "\n,w_o,1,3,"));
    free(csv);
    model_free(m);
}

static void test_text_layout(void **state) {
    (void)state;
    QkvData d;
    AvError err = {0};
    if (qkv_load(&d, "samples/worked-example.qkv", &err)) fail_msg("%s", err.msg);
    Model *m = model_new();
    model_set_qkv(m, &d, &err);
    model_update(m, &err);
    char *text = dump(m, EXPORT_TEXT, NULL);
    assert_non_null(strstr(text, "scores = Q K^T (3, 3)\n"));
    assert_non_null(strstr(text, "scaled = scores / sqrt(3) (3, 3)\n"));
    assert_non_null(strstr(text, "weights A = softmax(masked) (3, 3)\n"));
    assert_non_null(strstr(text, "    0.2953    0.3432    0.3615\n"));
    assert_non_null(strstr(text, "output O = A V (3, 3)\n"));
    assert_non_null(strstr(text, "    0.6198    0.5248    0.4945\n"));
    free(text);
    model_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_round_trip),
        cmocka_unit_test(test_json_qkv),
        cmocka_unit_test(test_hostile_tokens_escaped),
        cmocka_unit_test(test_csv_rows),
        cmocka_unit_test(test_text_layout),
    };
    return cmocka_run_group_tests_name("export", tests, NULL, NULL);
}
