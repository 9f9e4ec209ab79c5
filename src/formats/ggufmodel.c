/* ggufmodel.c - see ggufmodel.h. The keys give the numbers and the row of
 * the architecture table; the tensors, found by llama.cpp's names, are
 * checked against the shapes the keys imply and bound to the engine as
 * views of the mapping; every tensor of the file must be one the model
 * uses, every used weight finite. */
#define _POSIX_C_SOURCE 200809L
#include "i18n.h"
#include "ggufmodel.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "finite.h"
#include "formats.h"
#include "number.h"
#include "quant.h"
#include "utf8.h"

enum { NAME_CAP = 96 }; /* a tensor name or key we build */

/* The architectures of general.architecture the engine runs: the row and
 * the RoPE pairing of the file's q and k rows. */
static const struct {
    const char *name, *row;
    RopeLayout rope;
} archs[] = {
    {"llama", "llama", ROPE_PAIRS}, /* q, k permuted to Meta's consecutive pairs (llama.cpp's NORM RoPE) */
    {"qwen2", "qwen2", ROPE_HALF},  /* not permuted: llama.cpp's NEOX RoPE on the halves */
    {"gpt2", "gpt2", ROPE_NONE},
};
#define N_ARCHS (int)(sizeof archs / sizeof *archs)

/* What the model's file is: the GGUF, and the row it runs (a copy of the
 * table's, its RoPE pairing the file's). */
typedef struct {
    Gguf *g;
    TfArch arch;
} GgufFile;

static void close_gguf(TfModel *m) {
    GgufFile *f = m->file;
    if (f) gguf_close(f->g);
    free(f);
}

const Gguf *ggufmodel_file(const TfModel *m) {
    return m && m->close_file == close_gguf && m->file ? ((const GgufFile *)m->file)->g : NULL;
}

// ----------------------------------------------------------------------------
// the keys

typedef struct {
    const Gguf *g;
    const char *arch; /* one of archs[]: safe to print */
    char key[NAME_CAP];
    AvError *err;
} Keys;

static const char *akey(Keys *k, const char *suffix) {
    snprintf(k->key, sizeof k->key, "%s.%s", k->arch, suffix);
    return k->key;
}

/* ARCH.suffix, an integer in lo..hi; absent: def, or one line when def < 0. */
static int key_int(Keys *k, const char *suffix, int64_t def, int64_t lo, int64_t hi, int *out) {
    int64_t v = def;
    int rc = gguf_get_int(k->g, akey(k, suffix), lo, hi, &v, k->err);
    if (rc < 0) return -1;
    if (rc == 1 && def < 0) return gguf_missing(k->g, k->key, k->err);
    *out = (int)v;
    return 0;
}

/* The decimal a float32 stands for: the shortest that reads back as the
 * same float (the converter wrote config.json's 1e-05 as a float32; the
 * other readers take 1e-05 itself). */
static double float_decimal(double v) {
    float f = (float)v;
    char buf[40];
    for (int p = 1; p <= 9; p++) {
        snprintf(buf, sizeof buf, "%.*g", p, (double)f);
        double d = strtod(buf, NULL);
        if ((float)d == f) return d;
    }
    return v;
}

/* ARCH.suffix, a number in lo..hi; absent: def, or one line when required. */
static int key_num(Keys *k, const char *suffix, int required, double def, double lo, double hi, double *out) {
    double v = def;
    int rc = gguf_get_float(k->g, akey(k, suffix), &v, k->err);
    if (rc < 0) return -1;
    if (rc == 1 && required) return gguf_missing(k->g, k->key, k->err);
    if (rc == 0 && gguf_kv_find(k->g, k->key)->type == GGUF_FLOAT32) v = float_decimal(v);
    if (!(v >= lo && v <= hi))
        return av_errorf(k->err, _("%s: key %s: %g is out of range (%g to %g)"), gguf_file(k->g), k->key, v, lo, hi);
    *out = v;
    return 0;
}

/* general.architecture: the index in archs[], or -1 with one line. */
static int find_arch(const Gguf *g, AvError *err) {
    GgufStr s;
    int rc = gguf_get_str(g, "general.architecture", &s, err);
    if (rc < 0) return -1;
    if (rc == 1) return gguf_missing(g, "general.architecture", err);
    for (int i = 0; i < N_ARCHS; i++)
        if (strlen(archs[i].name) == s.len && memcmp(archs[i].name, s.s, s.len) == 0) return i;
    char name[49] = "(a long name)", shown[64], known[64] = "";
    if (s.len < sizeof name) memcpy(name, s.s, s.len), name[s.len] = '\0';
    utf8_escape_into(shown, sizeof shown, name);
    for (int i = 0; i < N_ARCHS; i++)
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "", archs[i].name);
    return av_errorf(err, _("%s: architecture \"%s\" (general.architecture) is not one attnviz runs (%s)"),
                     gguf_file(g), shown, known);
}

/* The RoPE keys: the base, the whole head turned, no scaling. */
static int read_rope(Keys *k, TfConfig *c) {
    const char *file = gguf_file(k->g);
    int rot;
    GgufStr scaling;
    if (key_num(k, "rope.freq_base", 0, c->arch->rope_theta, 1.0, 1e12, &c->rope_theta) ||
        key_int(k, "rope.dimension_count", c->head_dim, 0, 1 << 12, &rot))
        return -1;
    if (rot != c->head_dim)
        return av_errorf(k->err, _("%s: key %s: RoPE on %d of a head's %d elements is not supported (the whole head)"),
                         file, k->key, rot, c->head_dim);
    if (c->head_dim % 2)
        return av_errorf(k->err, _("%s: the head width %d is odd (RoPE turns pairs)"), file, c->head_dim);
    int rc = gguf_get_str(k->g, akey(k, "rope.scaling.type"), &scaling, k->err);
    if (rc < 0) return -1;
    if (rc == 0 && !(scaling.len == 4 && memcmp(scaling.s, "none", 4) == 0))
        return av_errorf(k->err, _("%s: key %s: RoPE scaling is not supported (plain RoPE only)"), file, k->key);
    return 0;
}

/* The numbers of the model from the ARCH.* keys (row set). */
static int read_config(Keys *k, TfConfig *c) {
    const char *file = gguf_file(k->g);
    int vlen;
    if (key_int(k, "embedding_length", -1, 1, 1 << 16, &c->dim) ||
        key_int(k, "block_count", -1, 1, 1024, &c->n_layers) ||
        key_int(k, "feed_forward_length", -1, 1, 1 << 18, &c->hidden_dim) ||
        key_int(k, "context_length", -1, 1, 1 << 20, &c->max_pos) ||
        key_int(k, "attention.head_count", -1, 1, c->dim, &c->n_heads) ||
        key_int(k, "attention.head_count_kv", c->n_heads, 1, c->n_heads, &c->n_kv_heads))
        return -1;
    if (c->n_heads % c->n_kv_heads)
        return av_errorf(k->err, _("%s: %d heads are not a multiple of %d key/value heads (%s)"), file, c->n_heads,
                         c->n_kv_heads, akey(k, "attention.head_count_kv"));
    int def = c->dim % c->n_heads ? -1 : c->dim / c->n_heads;
    if (key_int(k, "attention.key_length", def, 1, 1 << 12, &c->head_dim) ||
        key_int(k, "attention.value_length", c->head_dim, 1, 1 << 12, &vlen))
        return -1;
    if (vlen != c->head_dim)
        return av_errorf(k->err, _("%s: key %s: values %d wide, keys %d: heads of two widths are not supported"), file,
                         k->key, vlen, c->head_dim);
    int rms = c->arch->norm == TF_NORM_RMS;
    if (key_num(k, rms ? "attention.layer_norm_rms_epsilon" : "attention.layer_norm_epsilon", 1, 0.0, 0.0, 1.0,
                &c->eps))
        return -1;
    if (c->arch->rope != ROPE_NONE && read_rope(k, c)) return -1;
    c->q_dim = c->n_heads * c->head_dim;
    c->kv_dim = c->n_kv_heads * c->head_dim;
    snprintf(c->model_type, sizeof c->model_type, "%s", c->arch->name);
    return 0;
}

// ----------------------------------------------------------------------------
// the tensors

typedef struct {
    TfModel *m;
    const Gguf *g;
    unsigned char *used; /* per tensor of the file: bound */
    float *vecs;         /* NULL: pass 1 (check and count) */
    size_t nvec;
    AvError *err;
} Bind;

/* The tensor `name` (a name we built: safe to print) of ne (ne0, ne1) (ne1
 * 0: a vector of ne0), of a type the engine reads: its view, or NULL with
 * one line. */
static const StTensor *bind(Bind *b, const char *name, uint64_t ne0, uint64_t ne1) {
    const Gguf *g = b->g;
    const TfConfig *c = &b->m->cfg;
    const GgufTensor *t = gguf_tensor_find(g, name);
    if (!t) {
        av_errorf(b->err, _("%s: tensor %s is missing (%s with %d %s needs it)"), gguf_file(g), name, c->model_type,
                  c->n_layers, num_plural("layer", "layers", c->n_layers));
        return NULL;
    }
    uint64_t want[GGUF_MAX_DIMS] = {ne0, ne1 ? ne1 : 1, 1, 1};
    int ok = 1;
    for (int i = 0; i < GGUF_MAX_DIMS; i++) ok &= t->ne[i] == want[i];
    if (!ok) {
        char got[128] = "", exp[64];
        for (int i = 0; i < (t->ndim ? t->ndim : 1); i++)
            snprintf(got + strlen(got), sizeof got - strlen(got), "%s%llu", i ? ", " : "",
                     (unsigned long long)t->ne[i]);
        if (ne1) snprintf(exp, sizeof exp, "%llu, %llu", (unsigned long long)ne0, (unsigned long long)ne1);
        else snprintf(exp, sizeof exp, "%llu", (unsigned long long)ne0);
        av_errorf(b->err, _("%s: tensor %s: shape [%s], expected [%s] (ne, a row first, from the %s.* keys)"),
                  gguf_file(g), name, got, exp, c->model_type);
        return NULL;
    }
    if (gguf_tensor_readable(g, t, b->err)) return NULL;
    int i = (int)(t - gguf_tensor_at(g, 0));
    b->used[i] = 1;
    return &b->m->views[i];
}

/* A vector (n): converted into the model's floats (pass 2). */
static int bind_vec(Bind *b, const char *name, int n, const float **out) {
    const StTensor *t = bind(b, name, (uint64_t)n, 0);
    if (!t) return -1;
    if (!st_is_float(t->dtype))
        return av_errorf(b->err,
                         _("%s: tensor %s: a vector of type %s (norms and biases are read as F32, F16 or BF16)"),
                         gguf_file(b->g), name, st_dtype_name(t->dtype));
    if (b->vecs) {
        st_to_f32(t, 0, (size_t)n, b->vecs + b->nvec);
        *out = b->vecs + b->nvec;
    }
    b->nvec += (size_t)n;
    return 0;
}

/* Parts of a fused vector (q, k, v biases of attn_qkv.bias). */
static int bind_vec_parts(Bind *b, const char *name, const int *n, const float **out[3]) {
    int total = n[0] + n[1] + n[2];
    const float *all = NULL;
    if (bind_vec(b, name, total, &all)) return -1;
    if (b->vecs)
        for (int i = 0, at = 0; i < 3; at += n[i++]) *out[i] = all + at;
    return 0;
}

/* A matrix (n_out, n_in): ggml's ne (n_in, n_out), rows as stored. */
static int bind_mat(Bind *b, const char *name, int n_out, int n_in, TfMat *w) {
    const StTensor *t = bind(b, name, (uint64_t)n_in, (uint64_t)n_out);
    if (!t) return -1;
    *w = (TfMat){.t = t, .off = 0, .ld = n_in};
    return 0;
}

static void layer_name(char *buf, int l, const char *part) { snprintf(buf, NAME_CAP, "blk.%d.%s", l, part); }

/* q, k and v: attn_q / attn_k / attn_v with optional biases (all three or
 * none), or one attn_qkv (rows q, then k, then v) with its optional bias. */
static int bind_qkv(Bind *b, int l, TfLayer *L) {
    const TfConfig *c = &b->m->cfg;
    char n[4][NAME_CAP];
    int d = c->dim, part[3] = {c->q_dim, c->kv_dim, c->kv_dim};
    layer_name(n[0], l, "attn_qkv.weight");
    if (gguf_tensor_find(b->g, n[0])) {
        const StTensor *t = bind(b, n[0], (uint64_t)d, (uint64_t)(part[0] + part[1] + part[2]));
        if (!t) return -1;
        L->wq = (TfMat){.t = t, .off = 0, .ld = d};
        L->wk = (TfMat){.t = t, .off = (size_t)part[0] * d, .ld = d};
        L->wv = (TfMat){.t = t, .off = (size_t)(part[0] + part[1]) * d, .ld = d};
        layer_name(n[1], l, "attn_qkv.bias");
        const float **bias[3] = {&L->bq, &L->bk, &L->bv};
        if (c->qkv_bias) return bind_vec_parts(b, n[1], part, bias);
        return 0;
    }
    const char *w[3] = {"attn_q.weight", "attn_k.weight", "attn_v.weight"};
    const char *bs[3] = {"attn_q.bias", "attn_k.bias", "attn_v.bias"};
    TfMat *m[3] = {&L->wq, &L->wk, &L->wv};
    const float **v[3] = {&L->bq, &L->bk, &L->bv};
    for (int i = 0; i < 3; i++) {
        layer_name(n[0], l, w[i]);
        layer_name(n[1], l, bs[i]);
        if (bind_mat(b, n[0], part[i], d, m[i]) || (c->qkv_bias && bind_vec(b, n[1], part[i], v[i]))) return -1;
    }
    return 0;
}

/* The layer's norms (with LayerNorm's biases) and its MLP. */
static int bind_norms_mlp(Bind *b, int l, TfLayer *L) {
    const TfConfig *c = &b->m->cfg;
    int d = c->dim, hid = c->hidden_dim, ln = c->arch->norm == TF_NORM_LAYER;
    char n[8][NAME_CAP];
    const char *parts[] = {"attn_norm.weight", "attn_norm.bias", "ffn_norm.weight", "ffn_norm.bias",
                           "ffn_gate.weight",  "ffn_up.weight",  "ffn_up.bias",     "ffn_down.weight"};
    for (int i = 0; i < 8; i++) layer_name(n[i], l, parts[i]);
    if (bind_vec(b, n[0], d, &L->norm1_w) || (ln && bind_vec(b, n[1], d, &L->norm1_b)) ||
        bind_vec(b, n[2], d, &L->norm2_w) || (ln && bind_vec(b, n[3], d, &L->norm2_b)) ||
        bind_mat(b, n[7], d, hid, &L->w_down))
        return -1;
    if (c->arch->mlp == TF_MLP_SWIGLU)
        return bind_mat(b, n[4], hid, d, &L->w_fc) || bind_mat(b, n[5], hid, d, &L->w_up);
    char down_b[NAME_CAP];
    layer_name(down_b, l, "ffn_down.bias");
    return bind_mat(b, n[5], hid, d, &L->w_fc) || bind_vec(b, n[6], hid, &L->b_fc) ||
           bind_vec(b, down_b, d, &L->b_down);
}

static int bind_layer(Bind *b, int l) {
    const TfConfig *c = &b->m->cfg;
    TfLayer *L = &b->m->layers[l];
    char n[2][NAME_CAP];
    layer_name(n[0], l, "attn_output.weight");
    layer_name(n[1], l, "attn_output.bias");
    if (bind_qkv(b, l, L) || bind_mat(b, n[0], c->dim, c->q_dim, &L->wo) ||
        (c->o_bias && bind_vec(b, n[1], c->dim, &L->bo)))
        return -1;
    return bind_norms_mlp(b, l, L);
}

static int bind_model(Bind *b) {
    TfModel *m = b->m;
    const TfConfig *c = &m->cfg;
    int ln = c->arch->norm == TF_NORM_LAYER;
    memset(b->used, 0, (size_t)gguf_tensor_count(b->g));
    if (!(m->embed = bind(b, "token_embd.weight", (uint64_t)c->dim, (uint64_t)c->vocab)) ||
        bind_vec(b, "output_norm.weight", c->dim, &m->normf_w) ||
        (ln && bind_vec(b, "output_norm.bias", c->dim, &m->normf_b)))
        return -1;
    if (c->arch->rope == ROPE_NONE &&
        !(m->wpe = bind(b, "position_embd.weight", (uint64_t)c->dim, (uint64_t)c->max_pos)))
        return -1;
    if (c->tied) m->cls = (TfMat){.t = m->embed, .ld = c->dim};
    else if (bind_mat(b, "output.weight", c->vocab, c->dim, &m->cls)) return -1;
    for (int l = 0; l < c->n_layers; l++)
        if (bind_layer(b, l)) return -1;
    return 0;
}

/* The views of every tensor of the file (those of a type the engine does
 * not read are refused where bound). */
static void make_views(StTensor *v, const Gguf *g) {
    for (int i = 0; i < gguf_tensor_count(g); i++) {
        const GgufTensor *t = gguf_tensor_at(g, i);
        int d = st_dtype_of_ggml(t->type), nd = t->ndim ? t->ndim : 1;
        v[i] = (StTensor){.name = t->name,
                          .dtype = d < 0 ? ST_N_DTYPES : (StDtype)d,
                          .ndim = nd,
                          .count = t->count,
                          .data = t->data,
                          .bytes = t->bytes,
                          .begin = t->offset};
        for (int k = 0; k < nd; k++) v[i].shape[k] = t->ne[nd - 1 - k];
    }
}

// ----------------------------------------------------------------------------
// checks on the whole

/* Every tensor of the file bound: one the architecture does not use would
 * make the file another model than the one computed. */
static int check_all_used(const Bind *b) {
    for (int i = 0; i < gguf_tensor_count(b->g); i++) {
        if (b->used[i]) continue;
        const char *name = gguf_tensor_at(b->g, i)->name;
        char shown[160];
        utf8_escape_into(shown, sizeof shown, name);
        if (strcmp(name, "rope_freqs.weight") == 0)
            return av_errorf(b->err,
                             _("%s: tensor %s: RoPE frequency factors (Llama 3's RoPE scaling) are not supported"),
                             gguf_file(b->g), shown);
        return av_errorf(b->err, _("%s: tensor %s is not one the %s architecture uses (its model would be another)"),
                         gguf_file(b->g), shown, b->m->cfg.model_type);
    }
    return 0;
}

/* The byte offsets of a block type's half-float scales in its block. */
static int scale_offsets(QuantType t, int off[2]) {
    switch (t) {
    case QT_Q8_0:
    case QT_Q4_0:
    case QT_Q5_0: off[0] = 0; return 1;
    case QT_Q4_1:
    case QT_Q5_1:
    case QT_Q4_K:
    case QT_Q5_K: off[0] = 0, off[1] = 2; return 2;
    case QT_Q2_K: off[0] = 80, off[1] = 82; return 2;
    case QT_Q3_K: off[0] = 108; return 1;
    case QT_Q6_K: off[0] = 208; return 1;
    default: return 0;
    }
}

/* The first block of t whose scale is not finite (an all-ones exponent),
 * or the block count. */
static uint64_t first_bad_block(const GgufTensor *t) {
    int off[2], n = scale_offsets(t->type, off);
    size_t size = quant_block_bytes(t->type);
    uint64_t blocks = size ? t->bytes / size : 0;
    for (uint64_t k = 0; k < blocks; k++)
        for (int j = 0; j < n; j++) {
            const unsigned char *p = t->data + k * size + (size_t)off[j];
            if ((p[1] & 0x7C) == 0x7C) return k;
        }
    return blocks;
}

/* Every used matrix finite: element types scanned (finite.h), block types
 * by their scales. */
static int check_finite(const Bind *b) {
    const Gguf *g = b->g;
    int n = gguf_tensor_count(g), na = 0;
    FiniteArray *a = malloc(sizeof *a * (size_t)(n ? n : 1));
    int *which = malloc(sizeof *which * (size_t)(n ? n : 1));
    if (!a || !which) {
        free(a), free(which);
        return av_error_nomem(b->err, _("%s: out of memory"), gguf_file(g));
    }
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        const GgufTensor *t = gguf_tensor_at(g, i);
        if (!b->used[i]) continue;
        if (t->type == QT_F32 || t->type == QT_F16 || t->type == QT_BF16) {
            a[na] = (FiniteArray){t->data,
                                  t->type == QT_F32   ? FINITE_F32
                                  : t->type == QT_F16 ? FINITE_F16
                                                      : FINITE_BF16,
                                  t->count};
            which[na++] = i;
            continue;
        }
        uint64_t k = first_bad_block(t);
        if (k < t->bytes / quant_block_bytes(t->type)) {
            uint64_t per_row = t->ne[0] / (uint64_t)quant_block_size(t->type);
            char shown[160];
            utf8_escape_into(shown, sizeof shown, t->name);
            rc = av_errorf(b->err,
                           _("%s: tensor %s: block %llu (row %llu) has a scale that is not finite; weights must "
                             "be finite"),
                           gguf_file(g), shown, (unsigned long long)k, (unsigned long long)(k / per_row));
        }
    }
    uint64_t at = 0;
    int bad = rc ? -1 : finite_scan(a, na, &at);
    if (bad == -2) rc = av_errorf(b->err, _("%s: opening cancelled"), gguf_file(g));
    else if (bad >= 0) {
        const GgufTensor *t = gguf_tensor_at(g, which[bad]);
        char shown[160];
        utf8_escape_into(shown, sizeof shown, t->name);
        rc = av_errorf(b->err, _("%s: tensor %s: element %llu (row %llu, column %llu) is %s; weights must be finite"),
                       gguf_file(g), shown, (unsigned long long)at, (unsigned long long)(at / t->ne[0]),
                       (unsigned long long)(at % t->ne[0]), finite_kind(&a[bad], at));
    }
    free(a), free(which);
    return rc;
}

// ----------------------------------------------------------------------------
// opening

/* The numbers that depend on the tensors: the vocabulary, tied or not,
 * biases present or not. */
static int tensor_facts(Bind *b, Keys *k) {
    TfConfig *c = &b->m->cfg;
    const Gguf *g = b->g;
    const GgufTensor *e = gguf_tensor_find(g, "token_embd.weight");
    if (!e)
        return av_errorf(b->err, _("%s: tensor %s is missing (%s with %d %s needs it)"), gguf_file(g),
                         "token_embd.weight", c->model_type, c->n_layers, num_plural("layer", "layers", c->n_layers));
    if (e->ne[1] < 1 || e->ne[1] > (1 << 24))
        return av_errorf(b->err, _("%s: tensor token_embd.weight: %llu tokens, more than the limit of %d"),
                         gguf_file(g), (unsigned long long)e->ne[1], 1 << 24);
    c->vocab = (int)e->ne[1];
    int declared = c->vocab;
    if (key_int(k, "vocab_size", c->vocab, 1, 1 << 24, &declared)) return -1;
    if (declared != c->vocab)
        return av_errorf(b->err, _("%s: key %s is %d, but token_embd.weight has %d rows"), gguf_file(g), k->key,
                         declared, c->vocab);
    c->tied = !gguf_tensor_find(g, "output.weight");
    int ln = c->arch->norm == TF_NORM_LAYER;
    c->qkv_bias = ln || gguf_tensor_find(g, "blk.0.attn_q.bias") || gguf_tensor_find(g, "blk.0.attn_qkv.bias");
    c->o_bias = ln || gguf_tensor_find(g, "blk.0.attn_output.bias");
    return 0;
}

static TfModel *open_gguf(Gguf *g, int scan, AvError *err) {
    int ai = find_arch(g, err);
    if (ai < 0) {
        gguf_close(g);
        return NULL;
    }
    TfModel *m = calloc(1, sizeof *m);
    GgufFile *f = calloc(1, sizeof *f);
    if (!m || !f) {
        free(m), free(f), gguf_close(g);
        return av_error_nomem(err, _("%s: out of memory"), gguf_file(g)), NULL;
    }
    f->g = g, f->arch = *tf_arch_named(archs[ai].row);
    f->arch.rope = archs[ai].rope;
    m->file = f, m->close_file = close_gguf;
    m->cfg.arch = &f->arch;
    int nt = gguf_tensor_count(g);
    Keys k = {.g = g, .arch = archs[ai].name, .err = err};
    Bind b = {.m = m, .g = g, .err = err};
    if (read_config(&k, &m->cfg)) goto fail;
    b.used = calloc((size_t)(nt ? nt : 1), 1);
    m->views = calloc((size_t)(nt ? nt : 1), sizeof *m->views);
    m->layers = calloc((size_t)m->cfg.n_layers, sizeof *m->layers);
    if (!b.used || !m->views || !m->layers) {
        av_error_nomem(err, _("%s: out of memory for %d layers"), gguf_file(g), m->cfg.n_layers);
        goto fail;
    }
    make_views(m->views, g);
    /* pass 1 checks and counts the vector floats, pass 2 converts them */
    if (tensor_facts(&b, &k) || bind_model(&b)) goto fail;
    if (!(m->vecs = malloc(sizeof(float) * (b.nvec ? b.nvec : 1)))) {
        av_error_nomem(err, _("%s: out of memory for %zu norm and bias floats"), gguf_file(g), b.nvec);
        goto fail;
    }
    b.vecs = m->vecs, b.nvec = 0;
    if (bind_model(&b) || check_all_used(&b) || (scan && check_finite(&b))) goto fail;
    m->heap = sizeof *m + sizeof *f + sizeof *m->layers * (size_t)m->cfg.n_layers + sizeof *m->views * (size_t)nt +
              sizeof(float) * b.nvec;
    free(b.used);
    return m;
fail:
    free(b.used);
    tf_close(m);
    return NULL;
}

TfModel *ggufmodel_open_mem(const void *buf, size_t size, const char *name, AvError *err) {
    Gguf *g = gguf_open_mem(buf, size, name, err);
    return g ? open_gguf(g, 1, err) : NULL;
}

TfModel *ggufmodel_open(const char *path, AvError *err) {
    Gguf *g = gguf_open(path, err);
    return g ? open_gguf(g, 1, err) : NULL;
}

int ggufmodel_check(const char *path, AvError *err) {
    Gguf *g = gguf_open(path, err);
    TfModel *m = g ? open_gguf(g, 0, err) : NULL;
    Vocab *v = m ? ggufmodel_vocab(ggufmodel_file(m), err) : NULL;
    int ok = v != NULL;
    vocab_free(v);
    tf_close(m);
    return ok ? 0 : -1;
}

int ggufmodel_claims(const char *path) {
    size_t n = strlen(path);
    if (n >= 5 && strcmp(path + n - 5, ".gguf") == 0) return 1;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return 0;
    struct stat st;
    char magic[4];
    int yes =
        fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && read(fd, magic, 4) == 4 && memcmp(magic, GGUF_MAGIC, 4) == 0;
    close(fd);
    return yes;
}

// ----------------------------------------------------------------------------
// the checkpoint

static int model_facts(SourceFact *out, const TfConfig *c) {
    const SourceFact f[] = {{"dim", c->dim},          {"hidden_dim", c->hidden_dim}, {"n_layers", c->n_layers},
                            {"n_heads", c->n_heads},  {"n_kv_heads", c->n_kv_heads}, {"head_size", c->head_dim},
                            {"vocab_size", c->vocab}, {"seq_len", c->max_pos},       {"shared_classifier", c->tied},
                            {"qkv_bias", c->qkv_bias}};
    memcpy(out, f, sizeof f);
    return (int)(sizeof f / sizeof *f);
}

int gguf_checkpoint_open(Checkpoint *out, const char *path, const char *vocab_path, AvError *err) {
    memset(out, 0, sizeof *out);
    if (!(out->model = ggufmodel_open(path, err))) return -1;
    const Gguf *g = ggufmodel_file(out->model);
    out->vocab = vocab_path ? vocab_open_file(vocab_path, err) : ggufmodel_vocab(g, err);
    if (!out->vocab) {
        checkpoint_close(out);
        return -1;
    }
    int n = vocab_size(out->vocab), v = out->model->cfg.vocab;
    if (!vocab_path && n != v) {
        av_errorf(err, _("%s: key tokenizer.ggml.tokens: %d tokens, but token_embd.weight has %d rows"), gguf_file(g),
                  n, v);
        checkpoint_close(out); /* g with it */
        return -1;
    }
    if (n > v) {
        char shown[256];
        utf8_escape_into(shown, sizeof shown, vocab_path ? vocab_path : gguf_file(g));
        checkpoint_close(out);
        return av_errorf(err, _("%s: %d tokens, but the model's vocabulary has %d"), shown, n, v);
    }
    /* The title: the file's name without ".gguf", escaped. */
    const char *base = strrchr(path, '/');
    char name[sizeof out->title];
    snprintf(name, sizeof name, "%s", base ? base + 1 : path);
    size_t len = strlen(name);
    if (len > 5 && strcmp(name + len - 5, ".gguf") == 0) name[len - 5] = '\0';
    utf8_escape_into(out->title, sizeof out->title, name);
    out->n_facts = model_facts(out->facts, &out->model->cfg);
    return 0;
}
