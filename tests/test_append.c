/* test_append.c - cmocka tests of edits at the end of a trained model's
 * sentence (issue 17): a causal model's rows before an edit do not change,
 * so the source keeps them (its run, the model's stages) and an update
 * computes only the rows after it. Every case is compared bit for bit with a
 * model built from scratch on the final text: every layer's every head's q,
 * k, v, scores, scaled, masked, weights, out, row sums, entropy and largest
 * weight, the mask, the next-token probabilities of the last row and the
 * chain of a layer. m->rows_updated says which path ran: the rows after the
 * edit alone, or all of them (an edit of the first token, a mask that is not
 * causal, a sentence past the room made for it).
 *
 * The checkpoint is written here: a GPT-2 of dim 16, 2 layers, 4 heads,
 * F32, with a byte-level vocabulary of its own (vocab.json, merges.txt) in
 * which each word of the sentences, after a space, is one token. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model.h"
#include "models.h"
#include "parallel.h"
#include "source_trained.h"

// ---------------------------------------------------------------------------
// the checkpoint

enum { DIM = 16, LAYERS = 2, HEADS = 4, HID = 64, POS = 128 };

static const char *const words[] = {"the", "cat", "sat", "on",  "mat", "dog", "ran", "far",
                                    "a",   "big", "red", "sun", "sky", "was", "and", "it"};
enum { WORDS = (int)(sizeof words / sizeof *words) };

static char dir[] = "/tmp/attnviz-append-XXXXXX";
static int vocab;

/* GPT-2's byte-to-unicode table: byte b's code point in a byte-level piece. */
static int byte_char(int b) {
    if ((b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174) return b;
    int k = 0;
    for (int c = 0; c < b; c++)
        if (!((c >= 33 && c <= 126) || (c >= 161 && c <= 172) || c >= 174)) k++;
    return 256 + k;
}

/* Code point cp as UTF-8, JSON-escaped, into out; its length. */
static int json_char(int cp, char *out) {
    if (cp == '"' || cp == '\\') return out[0] = '\\', out[1] = (char)cp, 2;
    if (cp < 0x80) return out[0] = (char)cp, 1;
    out[0] = (char)(0xC0 | cp >> 6), out[1] = (char)(0x80 | (cp & 63));
    return 2;
}

/* vocab.json and merges.txt: the 256 bytes, " w", " wo", ... of every word
 * (the merges reach a word letter by letter), <|endoftext|>. */
static void write_vocab(void) {
    char path[512];
    snprintf(path, sizeof path, "%s/vocab.json", dir);
    FILE *v = fopen(path, "w");
    snprintf(path, sizeof path, "%s/merges.txt", dir);
    FILE *mg = fopen(path, "w");
    assert_true(v && mg);
    fputs("{", v);
    fputs("#version: 0.2\n", mg);
    int id = 0;
    for (int b = 0; b < 256; b++) {
        char s[4];
        int n = json_char(byte_char(b), s);
        fprintf(v, "%s\"%.*s\": %d", b ? ", " : "", n, s, id++);
    }
    char seen[WORDS * 4][8];
    int nseen = 0;
    for (int w = 0; w < WORDS; w++)
        for (size_t k = 1; k <= strlen(words[w]); k++) {
            char piece[8];
            snprintf(piece, sizeof piece, "%.*s", (int)k, words[w]);
            int dup = 0;
            for (int i = 0; i < nseen; i++) dup |= strcmp(seen[i], piece) == 0;
            if (dup) continue;
            snprintf(seen[nseen++], sizeof seen[0], "%s", piece);
            fprintf(v, ", \"\xC4\xA0%s\": %d", piece, id++); /* U+0120: the byte-level space */
            if (k == 1) fprintf(mg, "\xC4\xA0 %c\n", piece[0]);
            else fprintf(mg, "\xC4\xA0%.*s %c\n", (int)k - 1, piece, piece[k - 1]);
        }
    fprintf(v, ", \"<|endoftext|>\": %d}\n", id++);
    vocab = id;
    fclose(v);
    fclose(mg);
}

typedef struct {
    char name[64];
    int d0, d1; /* d1 0: a vector */
} Tensor;

/* model.safetensors (F32, small seeded values; norms near 1) and config.json. */
static void write_checkpoint(void) {
    Tensor t[4 + 12 * LAYERS];
    int n = 0;
#define ADD(a, b, ...) (snprintf(t[n].name, sizeof t[n].name, __VA_ARGS__), t[n].d0 = (a), t[n].d1 = (b), n++)
    ADD(vocab, DIM, "wte.weight");
    ADD(POS, DIM, "wpe.weight");
    ADD(DIM, 0, "ln_f.weight");
    ADD(DIM, 0, "ln_f.bias");
    for (int l = 0; l < LAYERS; l++) {
        ADD(DIM, 0, "h.%d.ln_1.weight", l);
        ADD(DIM, 0, "h.%d.ln_1.bias", l);
        ADD(DIM, 3 * DIM, "h.%d.attn.c_attn.weight", l);
        ADD(3 * DIM, 0, "h.%d.attn.c_attn.bias", l);
        ADD(DIM, DIM, "h.%d.attn.c_proj.weight", l);
        ADD(DIM, 0, "h.%d.attn.c_proj.bias", l);
        ADD(DIM, 0, "h.%d.ln_2.weight", l);
        ADD(DIM, 0, "h.%d.ln_2.bias", l);
        ADD(DIM, HID, "h.%d.mlp.c_fc.weight", l);
        ADD(HID, 0, "h.%d.mlp.c_fc.bias", l);
        ADD(HID, DIM, "h.%d.mlp.c_proj.weight", l);
        ADD(DIM, 0, "h.%d.mlp.c_proj.bias", l);
    }
#undef ADD
    char header[8192], path[512];
    size_t at = 0;
    int len = snprintf(header, sizeof header, "{");
    for (int i = 0; i < n; i++) {
        size_t bytes = sizeof(float) * (size_t)t[i].d0 * (size_t)(t[i].d1 ? t[i].d1 : 1);
        char shape[32];
        if (t[i].d1) snprintf(shape, sizeof shape, "[%d,%d]", t[i].d0, t[i].d1);
        else snprintf(shape, sizeof shape, "[%d]", t[i].d0);
        len += snprintf(header + len, sizeof header - (size_t)len,
                        "%s\"%s\":{\"dtype\":\"F32\",\"shape\":%s,\"data_offsets\":[%zu,%zu]}", i ? "," : "", t[i].name,
                        shape, at, at + bytes);
        at += bytes;
    }
    len += snprintf(header + len, sizeof header - (size_t)len, "}");
    assert_true(len < (int)sizeof header - 8);
    while (len % 8) header[len++] = ' ';
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    uint64_t hl = (uint64_t)len;
    assert_int_equal(fwrite(&hl, sizeof hl, 1, f), 1); /* little-endian hosts */
    assert_int_equal(fwrite(header, 1, (size_t)len, f), (size_t)len);
    uint32_t state = 1717u;
    for (int i = 0; i < n; i++) {
        int norm = strstr(t[i].name, "ln_") && strstr(t[i].name, ".weight");
        size_t count = (size_t)t[i].d0 * (size_t)(t[i].d1 ? t[i].d1 : 1);
        for (size_t e = 0; e < count; e++) {
            state = state * 1664525u + 1013904223u;
            float x = ((float)(state >> 8) / 16777216.0f - 0.5f) * 0.6f;
            if (norm) x = 1.0f + 0.2f * x;
            assert_int_equal(fwrite(&x, sizeof x, 1, f), 1);
        }
    }
    fclose(f);
    snprintf(path, sizeof path, "%s/config.json", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f,
            "{\"model_type\": \"gpt2\", \"n_embd\": %d, \"n_layer\": %d, \"n_head\": %d, \"n_inner\": %d, "
            "\"vocab_size\": %d, \"n_positions\": %d}",
            DIM, LAYERS, HEADS, HID, vocab, POS);
    fclose(f);
}

static int setup(void **state) {
    (void)state;
    if (!mkdtemp(dir)) return -1;
    write_vocab();
    write_checkpoint();
    return 0;
}

static int teardown(void **state) {
    (void)state;
    static const char *const files[] = {"config.json", "model.safetensors", "vocab.json", "merges.txt"};
    char path[512];
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
    return 0;
}

// ---------------------------------------------------------------------------
// models and their comparison

/* `count` seeded words after a space each, then `tail`. Static storage. */
static const char *sentence(int count, int shift, const char *tail) {
    static char buf[4][2048];
    static int next;
    char *s = buf[next++ % 4];
    size_t at = 0;
    for (int i = 0; i < count; i++)
        at += (size_t)snprintf(s + at, sizeof buf[0] - at, " %s", words[(i * 7 + i / 16 + shift) % WORDS]);
    snprintf(s + at, sizeof buf[0] - at, "%s", tail);
    return s;
}

/* The llama2.c checkpoint (stories260K) the last test opens in place of the
 * GPT-2 written here, when it is not "". */
static char llama_path[512];

/* The checkpoint on text with that mask and scaling, updated as the app does. */
static Model *open_scaled(const char *text, MaskKind mask, int scale) {
    Model *m = model_new();
    assert_non_null(m);
    AvError err = {0};
    if (llama_path[0] ? model_set_trained(m, llama_path, NULL, text, strlen(text), &err)
                      : model_set_trained(m, dir, NULL, text, strlen(text), &err))
        fail_msg("open: %s", err.msg);
    ModelConfig c = m->cfg;
    c.mask = mask;
    c.scale = scale;
    if (model_set_config(m, &c, &err)) fail_msg("config: %s", err.msg);
    model_want_next(m, m->n_q - 1); /* the last row's next tokens, as a dump asks */
    model_update_to(m, STAGE_FINAL);
    return m;
}

static Model *open_model(const char *text, MaskKind mask) { return open_scaled(text, mask, 1); }

/* The sentence becomes text and the model is updated as on a key. */
static void edit(Model *m, const char *text) {
    AvError err = {0};
    if (model_set_text(m, text, strlen(text), &err)) fail_msg("set_text: %s", err.msg);
    model_want_next(m, m->n_q - 1);
    model_update_to(m, STAGE_FINAL);
    assert_int_equal(m->stale, STAGE_NONE);
}

#define SAME(what, a, b, bytes)                                                                                        \
    do {                                                                                                               \
        if (memcmp((a), (b), (bytes)))                                                                                 \
            fail_msg("%s: layer %d head %d: %s differs from the model built from scratch", why, l, h, what);           \
    } while (0)

/* Every stage of every head of every layer, the mask, the last row's next
 * tokens and the chain of the last layer: the same bits in m as in a model
 * built from scratch on m's text. */
static void assert_as_from_scratch(Model *m, const char *why) {
    Model *f = open_scaled(m->text, m->cfg.mask, m->cfg.scale);
    assert_int_equal(m->n_q, f->n_q);
    assert_int_equal(m->n_k, f->n_k);
    size_t n = (size_t)m->n_q, dk = (size_t)m->cfg.d_k, dv = (size_t)m->cfg.d_v, fl = sizeof(float);
    int l = -1, h = -1;
    SAME("the mask", m->allowed, f->allowed, n * n);
    SAME("the allowed counts", m->n_allowed, f->n_allowed, sizeof(int) * n);
    SAME("the key ends", m->keys_end, f->keys_end, sizeof(int) * n);
    for (l = 0; l < m->cfg.layers; l++)
        for (h = 0; h < m->cfg.heads; h++) {
            const HeadData *a = &model_layer_heads(m, l)[h], *b = &model_layer_heads(f, l)[h];
            SAME("q", a->q, b->q, fl * n * dk);
            SAME("k", a->k, b->k, fl * n * dk);
            SAME("v", a->v, b->v, fl * n * dv);
            SAME("scores", a->scores, b->scores, fl * n * n);
            SAME("scaled", a->scaled, b->scaled, fl * n * n);
            SAME("masked", a->masked, b->masked, fl * n * n);
            SAME("weights", a->weights, b->weights, fl * n * n);
            SAME("out", a->out, b->out, fl * n * dv);
            SAME("row sums", a->row_sums, b->row_sums, sizeof(double) * n);
            SAME("entropy", a->entropy, b->entropy, sizeof(double) * n);
            SAME("max weight", a->max_weight, b->max_weight, fl * n);
        }
    l = h = -1;
    /* every probability of the last row's next token: the same logits */
    enum { MAX_VOCAB = 1024 };
    int ids[2][MAX_VOCAB], got[2], v = model_trained(m)->vocab, last = m->cfg.layers - 1;
    double probs[2][MAX_VOCAB];
    const char *pieces[MAX_VOCAB];
    size_t lens[MAX_VOCAB], dim = (size_t)model_trained(m)->dim;
    assert_true(v <= MAX_VOCAB);
    got[0] = m->src->next_tokens(m, m->n_q - 1, v, ids[0], probs[0], pieces, lens);
    got[1] = f->src->next_tokens(f, f->n_q - 1, v, ids[1], probs[1], pieces, lens);
    assert_int_equal(got[0], v);
    assert_int_equal(got[1], v);
    SAME("the next-token ids", ids[0], ids[1], sizeof(int) * (size_t)v);
    SAME("the next-token probabilities", probs[0], probs[1], sizeof(double) * (size_t)v);
    /* the chain of the last layer: its input and output rows */
    LayerChain ca, cb;
    AvError err = {0};
    assert_int_equal(model_layer_chain(m, last, &ca, &err), 0);
    assert_int_equal(model_layer_chain(f, last, &cb, &err), 0);
    SAME("the chain's input", ca.x, cb.x, fl * n * dim);
    SAME("the chain's output", ca.x_next, cb.x_next, fl * n * dim);
    model_free(f);
}

// ---------------------------------------------------------------------------
// tests

/* One word appended, then three, then one character typed that makes the
 * last token another (" ca" + "t" is " cat"), then the end cut off: the rows
 * after the edit alone. */
static void test_append_and_type(void **state) {
    (void)state;
    Model *m = open_model(sentence(20, 0, ""), MASK_CAUSAL);
    int n = m->n_q;
    assert_int_equal(n, 20);
    assert_true(m->room > n); /* made at the start */
    edit(m, sentence(20, 0, " dog"));
    assert_int_equal(m->rows_updated, 1);
    assert_as_from_scratch(m, "the first edit");
    edit(m, sentence(20, 0, " dog sat"));
    assert_int_equal(m->n_q, 22);
    assert_int_equal(m->rows_updated, 1);
    assert_as_from_scratch(m, "one word appended");
    edit(m, sentence(20, 0, " dog sat on the red"));
    assert_int_equal(m->rows_updated, 3);
    assert_as_from_scratch(m, "three words appended");
    edit(m, sentence(20, 0, " dog sat on the red ca"));
    assert_int_equal(m->rows_updated, 1);
    edit(m, sentence(20, 0, " dog sat on the red cat"));
    assert_int_equal(m->n_q, 26);
    assert_int_equal(m->rows_updated, 1); /* " ca" is " cat" now: the last row again */
    assert_as_from_scratch(m, "a character typed");
    edit(m, sentence(20, 0, " dog sat"));
    assert_int_equal(m->n_q, 22);
    assert_int_equal(m->rows_updated, 0); /* the end cut off: nothing to compute */
    assert_as_from_scratch(m, "the end deleted");
    model_free(m);
}

/* Every length from 30 tokens to past the room made for them, one word at a
 * time on two threads (rows blocks of the stages split across an edit), and
 * two edits before one update. */
static void test_grow_past_room(void **state) {
    (void)state;
    par_set_threads(2);
    Model *m = open_model(sentence(30, 3, ""), MASK_CAUSAL);
    edit(m, sentence(31, 3, ""));
    int room = m->room;
    assert_true(room > 31);
    int full = 0;
    for (int w = 32; w <= 100; w++) {
        edit(m, sentence(w, 3, ""));
        if (m->rows_updated == w) full++;
        else assert_int_equal(m->rows_updated, 1);
        if (w % 7 == 0 || (w >= 63 && w <= 66) || (w >= room && w <= room + 2))
            assert_as_from_scratch(m, "a word appended");
    }
    assert_int_equal(full, 1); /* past the room once: all rows, and room again */
    AvError err = {0};
    const char *a = sentence(100, 3, " dog"), *b = sentence(100, 3, " dog ran far");
    assert_int_equal(model_set_text(m, a, strlen(a), &err), 0);
    assert_int_equal(model_set_text(m, b, strlen(b), &err), 0);
    model_want_next(m, m->n_q - 1);
    model_update_to(m, STAGE_FINAL);
    assert_int_equal(m->rows_updated, 3);
    assert_as_from_scratch(m, "two edits, one update");
    model_free(m);
    par_set_threads(1);
}

/* An edit in the middle keeps the rows before it; one of the first token,
 * or under a mask that is not causal, or with the stages not current,
 * computes every row: the same numbers either way. */
static void test_other_edits(void **state) {
    (void)state;
    Model *m = open_model(sentence(24, 0, ""), MASK_CAUSAL);
    edit(m, sentence(24, 0, " a"));
    edit(m, sentence(24, 1, "")); /* another first word: nothing kept */
    assert_int_equal(m->rows_updated, 24);
    assert_as_from_scratch(m, "the first token edited");
    char mid[2048];
    snprintf(mid, sizeof mid, "%s big%s", sentence(10, 1, ""), sentence(24, 1, "") + strlen(sentence(10, 1, "")));
    edit(m, mid); /* a word inserted after the tenth */
    assert_int_equal(m->n_q, 25);
    assert_int_equal(m->rows_updated, 15);
    assert_as_from_scratch(m, "a word inserted in the middle");
    /* not causal: every row sees every key */
    AvError err = {0};
    ModelConfig c = m->cfg;
    c.mask = MASK_NONE;
    assert_int_equal(model_set_config(m, &c, &err), 0);
    model_update_to(m, STAGE_FINAL);
    edit(m, sentence(24, 1, " sun"));
    assert_int_equal(m->rows_updated, 25);
    assert_as_from_scratch(m, "mask none");
    c.mask = MASK_CAUSAL;
    assert_int_equal(model_set_config(m, &c, &err), 0);
    model_update_to(m, STAGE_FINAL);
    /* a change of the scaling not yet computed: the edit computes every row */
    c.scale = 0;
    assert_int_equal(model_set_config(m, &c, &err), 0);
    edit(m, sentence(24, 1, " sun sky"));
    assert_int_equal(m->rows_updated, 26);
    assert_as_from_scratch(m, "scaling off, not yet computed");
    edit(m, sentence(24, 1, " sun sky was"));
    assert_int_equal(m->rows_updated, 1);
    assert_as_from_scratch(m, "scaling off");
    model_free(m);
}

/* The llama2.c source (stories260K, when ../shared/models has it): the same
 * rule, the same bits. */
static void test_llama2c(void **state) {
    (void)state;
    if (!models_path(llama_path, sizeof llama_path, "stories260K.bin")) {
        llama_path[0] = '\0';
        return;
    }
    par_set_threads(2);
    Model *m = open_model("Lily saw a cat.", MASK_CAUSAL);
    int n = m->n_q;
    edit(m, "Lily saw a cat. The cat");
    assert_true(m->rows_updated >= 1 && m->rows_updated < m->n_q);
    assert_as_from_scratch(m, "llama2.c: the first edit");
    n = m->n_q;
    edit(m, "Lily saw a cat. The cat was");
    assert_true(m->rows_updated >= 1 && m->rows_updated < m->n_q - n + 2);
    assert_as_from_scratch(m, "llama2.c: a word appended");
    edit(m, "Lily saw a cat. The cat was big");
    assert_true(m->rows_updated >= 1 && m->rows_updated <= 3);
    assert_as_from_scratch(m, "llama2.c: another word");
    edit(m, "Lily saw a dog. The cat was big");
    assert_true(m->rows_updated < m->n_q && m->rows_updated > 3);
    assert_as_from_scratch(m, "llama2.c: a word in the middle");
    edit(m, "Lily saw a dog.");
    assert_int_equal(m->rows_updated, 0);
    assert_as_from_scratch(m, "llama2.c: the end deleted");
    model_free(m);
    par_set_threads(1);
    llama_path[0] = '\0';
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_append_and_type),
        cmocka_unit_test(test_grow_past_room),
        cmocka_unit_test(test_other_edits),
        cmocka_unit_test(test_llama2c),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
