/* hfmodel.c - see hfmodel.h. config.json is read with cJSON; the tensors
 * through safetensors.h's folder reader; the forward pass follows llama.c
 * (nn.Linear: y^T = W x^T with W the left matrix, x^T packed; Conv1D:
 * y = x W with W's block packed as the right matrix; one row: gemv; the
 * attention with rowops.h's scale, mask and softmax), with weights read
 * block by block in their file's type, and the element-wise steps (nnops.h)
 * done on each block in the task that computed it. */
#include "hfmodel.h"

#include "nnops.h"

#include <cJSON.h>
#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cancel.h"
#include "finite.h"
#include "i18n.h"
#include "jsonkeys.h"
#include "parallel.h"
#include "readfile.h"
#include "rowops.h"
#include "safetensors.h"
#include "utf8.h"
#include "number.h"

enum {
    Q_BLOCK = 16,   /* query rows per task of the attention */
    MAX_LANES = 16, /* scratch sets, at most */
    ALIGN = 64,     /* bytes between the starts of a run's arrays */
    NAME_MAX_ = 160 /* a tensor name we build */
};

#define CONFIG_MAX ((size_t)1 << 20)

// ----------------------------------------------------------------------------
// the model

/* A matrix (n_out, n_in) as a product's W reads it, inside a tensor: element
 * (o, i) is t's element off + o * ld + i, or off + i * ld + o when transposed
 * (HF's Conv1D stores (in, out)). */
typedef struct {
    const StTensor *t;
    size_t off;
    int ld, transposed;
} HfMat;

typedef struct {
    const float *norm1_w, *norm1_b; /* (dim) LN_1 (GPT-2, with bias) or input_layernorm */
    const float *norm2_w, *norm2_b; /* (dim) LN_2 or post_attention_layernorm */
    const float *bq, *bk, *bv, *bo; /* (q_dim), (kv_dim), (kv_dim), (dim) or NULL */
    const float *b_fc, *b_down;     /* GPT-2: (hidden_dim), (dim) */
    HfMat wq, wk, wv, wo;           /* (q_dim, dim), (kv_dim, dim) x 2, (dim, q_dim) */
    HfMat w_fc;                     /* (hidden_dim, dim): c_fc or gate_proj */
    HfMat w_up;                     /* (hidden_dim, dim): up_proj (Llama) */
    HfMat w_down;                   /* (dim, hidden_dim): mlp.c_proj or down_proj */
} HfLayer;

struct HfModel {
    HfConfig cfg;
    StModel *st;
    const StTensor *embed; /* (vocab, dim) */
    const StTensor *wpe;   /* (max_pos, dim) GPT-2, else NULL */
    HfMat cls;             /* (vocab, dim) */
    const float *normf_w, *normf_b;
    HfLayer *layers; /* [n_layers] */
    float *vecs;     /* the norms and biases as floats (owned) */
    size_t heap;     /* bytes allocated */
};

const HfConfig *hf_config(const HfModel *m) { return &m->cfg; }
size_t hf_model_heap_bytes(const HfModel *m) { return m ? m->heap : 0; }

void hf_close(HfModel *m) {
    if (!m) return;
    st_model_close(m->st);
    free(m->layers);
    free(m->vecs);
    free(m);
}

// ----------------------------------------------------------------------------
// config.json

typedef struct {
    const cJSON *root;
    const char *path; /* escaped, for messages */
    AvError *err;
} Cfg;

/* *out = the integer `key` in lo..hi; absent: def (def < 0: required). */
static int cfg_int(Cfg *c, const char *key, int def, int lo, int hi, int *out) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(c->root, key);
    if (!v || cJSON_IsNull(v)) {
        if (def < 0) return av_errorf(c->err, _("%s: \"%s\" is missing"), c->path, key);
        *out = def;
        return 0;
    }
    if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) || v->valuedouble < lo || v->valuedouble > hi)
        return av_errorf(c->err, _("%s: \"%s\" must be an integer from %d to %d"), c->path, key, lo, hi);
    *out = (int)v->valuedouble;
    return 0;
}

static int cfg_num(Cfg *c, const char *key, double def, double lo, double hi, double *out) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(c->root, key);
    if (!v || cJSON_IsNull(v)) {
        *out = def;
        return 0;
    }
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= lo && v->valuedouble <= hi))
        return av_errorf(c->err, _("%s: \"%s\" must be a number from %g to %g"), c->path, key, lo, hi);
    *out = v->valuedouble;
    return 0;
}

static int cfg_bool(Cfg *c, const char *key, int def, int *out) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(c->root, key);
    if (!v || cJSON_IsNull(v)) {
        *out = def;
        return 0;
    }
    if (!cJSON_IsBool(v)) return av_errorf(c->err, _("%s: \"%s\" must be true or false"), c->path, key);
    *out = cJSON_IsTrue(v) ? 1 : 0;
    return 0;
}

/* A string `key` that must be one of the NULL-terminated ok[] when present. */
static int cfg_choice(Cfg *c, const char *key, const char *const *ok) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(c->root, key);
    if (!v || cJSON_IsNull(v)) return 0;
    if (cJSON_IsString(v))
        for (int i = 0; ok[i]; i++)
            if (strcmp(v->valuestring, ok[i]) == 0) return 0;
    char shown[64], known[128] = "";
    if (cJSON_IsString(v)) utf8_escape_into(shown, sizeof shown, v->valuestring);
    else snprintf(shown, sizeof shown, "%s", _("(not a string)"));
    for (int i = 0; ok[i]; i++)
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "", ok[i]);
    return av_errorf(c->err, _("%s: \"%s\" %s is not supported (%s)"), c->path, key, shown, known);
}

static const struct {
    const char *type, *architecture;
    HfArch arch;
} ARCHS[] = {
    {"gpt2", "GPT2LMHeadModel", HF_GPT2},
    {"llama", "LlamaForCausalLM", HF_LLAMA},
    {"qwen2", "Qwen2ForCausalLM", HF_LLAMA},
    {"mistral", "MistralForCausalLM", HF_LLAMA},
};

static int cfg_arch(Cfg *c, HfConfig *hc) {
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(c->root, "model_type");
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(c->root, "architectures");
    const char *name = NULL;
    int by_type = 0;
    if (cJSON_IsString(t)) name = t->valuestring, by_type = 1;
    else if (cJSON_IsArray(a) && cJSON_IsString(cJSON_GetArrayItem(a, 0))) name = cJSON_GetArrayItem(a, 0)->valuestring;
    if (!name) return av_errorf(c->err, _("%s: neither \"model_type\" nor \"architectures\" names the model"), c->path);
    for (size_t i = 0; i < sizeof ARCHS / sizeof *ARCHS; i++)
        if (strcmp(name, by_type ? ARCHS[i].type : ARCHS[i].architecture) == 0) {
            hc->arch = ARCHS[i].arch;
            snprintf(hc->model_type, sizeof hc->model_type, "%s", ARCHS[i].type);
            return 0;
        }
    char shown[64];
    utf8_escape_into(shown, sizeof shown, name);
    return av_errorf(c->err, _("%s: %s \"%s\" is not supported (gpt2, llama, qwen2, mistral)"), c->path,
                     by_type ? "model_type" : _("architecture"), shown);
}

static int cfg_gpt2(Cfg *c, HfConfig *h) {
    static const char *const gelu[] = {"gelu_new", "gelu_pytorch_tanh", NULL};
    int inner, scale_by_layer = 0, reorder = 0, scale = 1;
    if (cfg_int(c, "n_embd", -1, 1, 1 << 16, &h->dim) || cfg_int(c, "n_layer", -1, 1, 1024, &h->n_layers) ||
        cfg_int(c, "n_head", -1, 1, h->dim, &h->n_heads) || cfg_int(c, "vocab_size", -1, 1, 1 << 24, &h->vocab) ||
        cfg_int(c, "n_positions", 1024, 1, 1 << 20, &h->max_pos) || cfg_int(c, "n_inner", 0, 0, 1 << 18, &inner) ||
        cfg_num(c, "layer_norm_epsilon", 1e-5, 0.0, 1.0, &h->eps) || cfg_choice(c, "activation_function", gelu) ||
        cfg_bool(c, "scale_attn_weights", 1, &scale) ||
        cfg_bool(c, "scale_attn_by_inverse_layer_idx", 0, &scale_by_layer) ||
        cfg_bool(c, "reorder_and_upcast_attn", 0, &reorder))
        return -1;
    if (!scale || scale_by_layer)
        return av_errorf(c->err, _("%s: only GPT-2's attention scaled by 1/sqrt(head_dim) is supported"), c->path);
    if (h->dim % h->n_heads)
        return av_errorf(c->err, _("%s: n_embd %d is not a multiple of n_head %d"), c->path, h->dim, h->n_heads);
    h->hidden_dim = inner ? inner : 4 * h->dim;
    h->n_kv_heads = h->n_heads, h->head_dim = h->dim / h->n_heads;
    h->tied = 1, h->qkv_bias = 1, h->o_bias = 1, h->rope_theta = 0.0;
    return 0;
}

static int cfg_llama(Cfg *c, HfConfig *h) {
    static const char *const silu[] = {"silu", NULL};
    int attn_bias = 0, mlp_bias = 0, window = 0;
    int use_window = strcmp(h->model_type, "qwen2") != 0; /* Qwen2Config's default is false, Mistral's window applies */
    if (cfg_int(c, "hidden_size", -1, 1, 1 << 16, &h->dim) ||
        cfg_int(c, "intermediate_size", -1, 1, 1 << 18, &h->hidden_dim) ||
        cfg_int(c, "num_hidden_layers", -1, 1, 1024, &h->n_layers) ||
        cfg_int(c, "num_attention_heads", -1, 1, h->dim, &h->n_heads) ||
        cfg_int(c, "num_key_value_heads", h->n_heads, 1, h->n_heads, &h->n_kv_heads) ||
        cfg_int(c, "head_dim", h->dim / h->n_heads, 2, 1 << 12, &h->head_dim) ||
        cfg_int(c, "vocab_size", -1, 1, 1 << 24, &h->vocab) ||
        cfg_int(c, "max_position_embeddings", 2048, 1, 1 << 20, &h->max_pos) ||
        cfg_num(c, "rms_norm_eps", 1e-6, 0.0, 1.0, &h->eps) ||
        cfg_num(c, "rope_theta", 10000.0, 1.0, 1e12, &h->rope_theta) ||
        cfg_bool(c, "tie_word_embeddings", 0, &h->tied) || cfg_bool(c, "attention_bias", 0, &attn_bias) ||
        cfg_bool(c, "mlp_bias", 0, &mlp_bias) || cfg_choice(c, "hidden_act", silu) ||
        cfg_int(c, "sliding_window", 0, 0, 1 << 24, &window) ||
        cfg_bool(c, "use_sliding_window", use_window, &use_window))
        return -1;
    const cJSON *scaling = cJSON_GetObjectItemCaseSensitive(c->root, "rope_scaling");
    if (scaling && !cJSON_IsNull(scaling))
        return av_errorf(c->err, _("%s: \"rope_scaling\" is not supported (plain RoPE only)"), c->path);
    if (mlp_bias) return av_errorf(c->err, _("%s: \"mlp_bias\" true is not supported"), c->path);
    if (h->n_heads % h->n_kv_heads)
        return av_errorf(c->err,
                         _("%s: num_attention_heads %d is not a multiple of "
                           "num_key_value_heads %d"),
                         c->path, h->n_heads, h->n_kv_heads);
    if (h->head_dim % 2) return av_errorf(c->err, _("%s: head_dim %d is odd (RoPE turns pairs)"), c->path, h->head_dim);
    /* Qwen2 has q/k/v biases always; attention_bias (Llama) adds o's too */
    h->qkv_bias = attn_bias || strcmp(h->model_type, "qwen2") == 0;
    h->o_bias = attn_bias;
    /* a window at least the run's length changes nothing: runs stay within it */
    if (window > 0 && use_window && window < h->max_pos) h->max_pos = window;
    return 0;
}

int hf_config_parse(HfConfig *h, const char *json, size_t len, const char *name, AvError *err) {
    char shown[1024];
    utf8_escape_into(shown, sizeof shown, name);
    memset(h, 0, sizeof *h);
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(json, len, &end, 0);
    int rc = -1;
    Cfg c = {.root = root, .path = shown, .err = err};
    if (!root) av_errorf(err, _("%s: not valid JSON (at byte %zu)"), shown, end ? (size_t)(end - json) : (size_t)0);
    else if (!cJSON_IsObject(root)) av_errorf(err, _("%s: not a JSON object"), shown);
    else if (json_unique_keys(root, shown, err)) rc = -1;
    else if (!cfg_arch(&c, h)) rc = h->arch == HF_GPT2 ? cfg_gpt2(&c, h) : cfg_llama(&c, h);
    if (!rc) {
        h->q_dim = h->n_heads * h->head_dim;
        h->kv_dim = h->n_kv_heads * h->head_dim;
    }
    cJSON_Delete(root);
    return rc;
}

static int read_config(const char *dir, HfConfig *h, AvError *err) {
    char path[4096];
    snprintf(path, sizeof path, "%s/config.json", dir);
    char *text = NULL;
    size_t len = 0;
    if (av_read_text(path, CONFIG_MAX, 0, &text, &len, err)) return -1;
    int rc = hf_config_parse(h, text, len, path, err);
    free(text);
    return rc;
}

// ----------------------------------------------------------------------------
// the tensors: present, with the shapes the config implies

typedef struct {
    HfModel *m;
    const char *dir; /* escaped */
    const char *prefix;
    float *vecs;           /* NULL: count only */
    size_t nvec;           /* floats placed (or counted) */
    const StTensor **used; /* pass 2: every tensor bound (repeats too), for the scan */
    size_t n_used, cap_used;
    AvError *err;
} Bind;

static const StTensor *bind_tensor(Bind *b, const char *name, int ndim, uint64_t d0, uint64_t d1) {
    char full[NAME_MAX_];
    snprintf(full, sizeof full, "%s%s", b->prefix, name);
    const StTensor *t = st_model_find(b->m->st, full);
    if (!t) {
        av_errorf(b->err, _("%s/%s: tensor %s is missing (%s with %d %s needs it)"), b->dir,
                  st_model_files(b->m->st) > 1 ? "model.safetensors.index.json" : "model.safetensors", full,
                  b->m->cfg.model_type, b->m->cfg.n_layers, num_plural("layer", "layers", b->m->cfg.n_layers));
        return NULL;
    }
    if (!st_is_float(t->dtype)) {
        av_errorf(b->err, _("%s/%s: tensor %s: dtype %s, but weights are read as F32, F16 or BF16"), b->dir,
                  st_model_file_of(b->m->st, full), full, st_dtype_name(t->dtype));
        return NULL;
    }
    uint64_t want[2] = {d0, d1};
    int ok = t->ndim == ndim;
    for (int i = 0; ok && i < ndim; i++) ok = t->shape[i] == want[i];
    if (!ok) {
        char got[128] = "[", exp[64];
        for (int i = 0; i < t->ndim && strlen(got) < 100; i++)
            snprintf(got + strlen(got), sizeof got - strlen(got), "%s%llu", i ? ", " : "",
                     (unsigned long long)t->shape[i]);
        snprintf(got + strlen(got), sizeof got - strlen(got), "]");
        if (ndim == 1) snprintf(exp, sizeof exp, "[%llu]", (unsigned long long)d0);
        else snprintf(exp, sizeof exp, "[%llu, %llu]", (unsigned long long)d0, (unsigned long long)d1);
        av_errorf(b->err, _("%s/%s: tensor %s: shape %s, expected %s (from config.json)"), b->dir,
                  st_model_file_of(b->m->st, full), full, got, exp);
        return NULL;
    }
    if (b->vecs) { /* pass 2: kept for the scan of the weights */
        if (b->n_used == b->cap_used) {
            size_t cap = b->cap_used ? 2 * b->cap_used : 64;
            const StTensor **u = realloc(b->used, cap * sizeof *u);
            if (!u) return av_error_nomem(b->err, _("out of memory for the list of tensors")), NULL;
            b->used = u, b->cap_used = cap;
        }
        b->used[b->n_used++] = t;
    }
    return t;
}

static int by_address(const void *a, const void *b) {
    uintptr_t x = (uintptr_t) * (const StTensor *const *)a, y = (uintptr_t) * (const StTensor *const *)b;
    return x < y ? -1 : x > y;
}

/* Every weight the model uses, finite (finite.h): else one line naming the
 * file, the tensor and the element. */
static int scan_weights(Bind *b) {
    qsort(b->used, b->n_used, sizeof *b->used, by_address);
    size_t n = 0;
    for (size_t i = 0; i < b->n_used; i++)
        if (n == 0 || b->used[i] != b->used[n - 1]) b->used[n++] = b->used[i];
    FiniteArray *a = malloc(sizeof *a * (n ? n : 1));
    if (!a) return av_error_nomem(b->err, _("out of memory for the list of tensors"));
    for (size_t i = 0; i < n; i++) {
        const StTensor *t = b->used[i];
        a[i] = (FiniteArray){t->data,
                             t->dtype == ST_F32   ? FINITE_F32
                             : t->dtype == ST_F16 ? FINITE_F16
                                                  : FINITE_BF16,
                             t->count};
    }
    uint64_t at = 0;
    int bad = finite_scan(a, (int)n, &at), rc = 0;
    if (bad == -2) rc = av_errorf(b->err, _("%s: opening cancelled"), b->dir);
    else if (bad >= 0) {
        const StTensor *t = b->used[bad];
        char where[64] = "";
        /* TRANSLATORS: after "element N" of a tensor; the message ends "... is NaN" */
        const char *row_col = _(" (row %llu, column %llu)");
        if (t->ndim == 2)
            snprintf(where, sizeof where, row_col, (unsigned long long)(at / t->shape[1]),
                     (unsigned long long)(at % t->shape[1]));

        rc = av_errorf(b->err, _("%s/%s: tensor %s: element %llu%s is %s; weights must be finite"), b->dir,
                       st_model_file_of(b->m->st, t->name), t->name, (unsigned long long)at, where,
                       finite_kind(&a[bad], at));
    }
    free(a);
    return rc;
}

/* A vector tensor (n): converted into the model's floats. */
static int bind_vec(Bind *b, const char *name, int n, const float **out) {
    const StTensor *t = bind_tensor(b, name, 1, (uint64_t)n, 0);
    if (!t) return -1;
    if (b->vecs) {
        st_to_f32(t, 0, (size_t)n, b->vecs + b->nvec);
        *out = b->vecs + b->nvec;
    }
    b->nvec += (size_t)n;
    return 0;
}

/* Part [off, off + n) of a vector tensor of total elements. */
static int bind_vec_part(Bind *b, const char *name, int total, int off, int n, const float **out) {
    const StTensor *t = bind_tensor(b, name, 1, (uint64_t)total, 0);
    if (!t) return -1;
    if (b->vecs) {
        st_to_f32(t, (size_t)off, (size_t)n, b->vecs + b->nvec);
        *out = b->vecs + b->nvec;
    }
    b->nvec += (size_t)n;
    return 0;
}

/* nn.Linear: (n_out, n_in) as stored. */
static int bind_linear(Bind *b, const char *name, int n_out, int n_in, HfMat *w) {
    const StTensor *t = bind_tensor(b, name, 2, (uint64_t)n_out, (uint64_t)n_in);
    if (!t) return -1;
    *w = (HfMat){.t = t, .off = 0, .ld = n_in, .transposed = 0};
    return 0;
}

/* Conv1D: stored (n_in, total_out); the matrix is columns [col, col + n_out).
 */
static int bind_conv1d(Bind *b, const char *name, int n_in, int total_out, int col, HfMat *w) {
    const StTensor *t = bind_tensor(b, name, 2, (uint64_t)n_in, (uint64_t)total_out);
    if (!t) return -1;
    *w = (HfMat){.t = t, .off = (size_t)col, .ld = total_out, .transposed = 1};
    return 0;
}

static int bind_gpt2(Bind *b) {
    HfModel *m = b->m;
    const HfConfig *c = &m->cfg;
    int d = c->dim, hid = c->hidden_dim;
    b->prefix = st_model_find(m->st, "transformer.wte.weight") ? "transformer." : "";
    if (!(m->embed = bind_tensor(b, "wte.weight", 2, (uint64_t)c->vocab, (uint64_t)d)) ||
        !(m->wpe = bind_tensor(b, "wpe.weight", 2, (uint64_t)c->max_pos, (uint64_t)d)) ||
        bind_vec(b, "ln_f.weight", d, &m->normf_w) || bind_vec(b, "ln_f.bias", d, &m->normf_b))
        return -1;
    m->cls = (HfMat){.t = m->embed, .ld = d};
    for (int l = 0; l < c->n_layers; l++) {
        HfLayer *L = &m->layers[l];
        char n[16][NAME_MAX_];
        const char *parts[] = {"ln_1.weight",        "ln_1.bias",        "attn.c_attn.weight", "attn.c_attn.bias",
                               "attn.c_proj.weight", "attn.c_proj.bias", "ln_2.weight",        "ln_2.bias",
                               "mlp.c_fc.weight",    "mlp.c_fc.bias",    "mlp.c_proj.weight",  "mlp.c_proj.bias"};
        for (int i = 0; i < 12; i++) snprintf(n[i], sizeof n[i], "h.%d.%s", l, parts[i]);
        if (bind_vec(b, n[0], d, &L->norm1_w) || bind_vec(b, n[1], d, &L->norm1_b) ||
            bind_conv1d(b, n[2], d, 3 * d, 0, &L->wq) || bind_conv1d(b, n[2], d, 3 * d, d, &L->wk) ||
            bind_conv1d(b, n[2], d, 3 * d, 2 * d, &L->wv) || bind_vec_part(b, n[3], 3 * d, 0, d, &L->bq) ||
            bind_vec_part(b, n[3], 3 * d, d, d, &L->bk) || bind_vec_part(b, n[3], 3 * d, 2 * d, d, &L->bv) ||
            bind_conv1d(b, n[4], d, d, 0, &L->wo) || bind_vec(b, n[5], d, &L->bo) ||
            bind_vec(b, n[6], d, &L->norm2_w) || bind_vec(b, n[7], d, &L->norm2_b) ||
            bind_conv1d(b, n[8], d, hid, 0, &L->w_fc) || bind_vec(b, n[9], hid, &L->b_fc) ||
            bind_conv1d(b, n[10], hid, d, 0, &L->w_down) || bind_vec(b, n[11], d, &L->b_down))
            return -1;
    }
    return 0;
}

static int bind_llama(Bind *b) {
    HfModel *m = b->m;
    const HfConfig *c = &m->cfg;
    int d = c->dim, hid = c->hidden_dim, qd = c->q_dim, kvd = c->kv_dim;
    b->prefix = "";
    if (!(m->embed = bind_tensor(b, "model.embed_tokens.weight", 2, (uint64_t)c->vocab, (uint64_t)d)) ||
        bind_vec(b, "model.norm.weight", d, &m->normf_w))
        return -1;
    m->normf_b = NULL;
    if (c->tied) m->cls = (HfMat){.t = m->embed, .ld = d};
    else if (bind_linear(b, "lm_head.weight", c->vocab, d, &m->cls)) return -1;
    for (int l = 0; l < c->n_layers; l++) {
        HfLayer *L = &m->layers[l];
        char n[16][NAME_MAX_];
        const char *parts[] = {"input_layernorm.weight",  "self_attn.q_proj.weight", "self_attn.k_proj.weight",
                               "self_attn.v_proj.weight", "self_attn.o_proj.weight", "post_attention_layernorm.weight",
                               "mlp.gate_proj.weight",    "mlp.up_proj.weight",      "mlp.down_proj.weight",
                               "self_attn.q_proj.bias",   "self_attn.k_proj.bias",   "self_attn.v_proj.bias",
                               "self_attn.o_proj.bias"};
        for (int i = 0; i < 13; i++) snprintf(n[i], sizeof n[i], "model.layers.%d.%s", l, parts[i]);
        if (bind_vec(b, n[0], d, &L->norm1_w) || bind_linear(b, n[1], qd, d, &L->wq) ||
            bind_linear(b, n[2], kvd, d, &L->wk) || bind_linear(b, n[3], kvd, d, &L->wv) ||
            bind_linear(b, n[4], d, qd, &L->wo) || bind_vec(b, n[5], d, &L->norm2_w) ||
            bind_linear(b, n[6], hid, d, &L->w_fc) || bind_linear(b, n[7], hid, d, &L->w_up) ||
            bind_linear(b, n[8], d, hid, &L->w_down))
            return -1;
        if (c->qkv_bias &&
            (bind_vec(b, n[9], qd, &L->bq) || bind_vec(b, n[10], kvd, &L->bk) || bind_vec(b, n[11], kvd, &L->bv)))
            return -1;
        if (c->o_bias && bind_vec(b, n[12], d, &L->bo)) return -1;
    }
    return 0;
}

HfModel *hf_open(const char *dir, AvError *err) {
    char *shown = utf8_escape(dir, strlen(dir));
    HfModel *m = calloc(1, sizeof *m);
    if (!shown || !m) {
        free(shown), free(m);
        return av_error_nomem(err, _("out of memory opening %s"), dir), NULL;
    }
    Bind b = {.m = m, .dir = shown, .err = err};
    if (read_config(dir, &m->cfg, err) || !(m->st = st_open_dir(dir, err))) goto fail;
    m->layers = calloc((size_t)m->cfg.n_layers, sizeof *m->layers);
    if (!m->layers) {
        av_error_nomem(err, _("out of memory for %d layers"), m->cfg.n_layers);
        goto fail;
    }
    /* pass 1 checks and counts the vector floats, pass 2 converts them and
     * lists the tensors, whose every element must then be finite */
    if ((m->cfg.arch == HF_GPT2 ? bind_gpt2(&b) : bind_llama(&b))) goto fail;
    if (!(m->vecs = malloc(sizeof(float) * (b.nvec ? b.nvec : 1)))) {
        av_error_nomem(err, _("out of memory for %zu norm and bias floats"), b.nvec);
        goto fail;
    }
    m->heap = sizeof *m + sizeof *m->layers * (size_t)m->cfg.n_layers + sizeof(float) * b.nvec;
    b.vecs = m->vecs, b.nvec = 0;
    if ((m->cfg.arch == HF_GPT2 ? bind_gpt2(&b) : bind_llama(&b)) || scan_weights(&b)) goto fail;
    free(b.used);
    free(shown);
    return m;
fail:
    free(b.used);
    free(shown);
    hf_close(m);
    return NULL;
}

// ----------------------------------------------------------------------------
// the blocks, on explicit arrays (double inside, rounded once, saturating)

/* Rotate-half RoPE: in each head of rows [r0, r0 + rows) of x (ld width),
 * pair (i, i + hs/2) turned by row's angle of i. rope (cap, hs / 2, 2). */
static void rope_forward(float *x, const double *rope, int r0, int rows, int width, int hs) {
    int half = hs / 2;
    for (int p = r0; p < r0 + rows; p++) {
        float *row = x + (size_t)p * width;
        const double *cs = rope + (size_t)p * hs;
        for (int h0 = 0; h0 < width; h0 += hs)
            for (int i = 0; i < half; i++) {
                double a = row[h0 + i], b = row[h0 + half + i], c = cs[2 * i], s = cs[2 * i + 1];
                row[h0 + i] = nn_sat(a * c - b * s);
                row[h0 + half + i] = nn_sat(b * c + a * s);
            }
    }
}

/* A norm over rows [r0, r0 + rows), NORM_ROWS rows a task. */
typedef struct {
    const HfRun *r;
    int r0, rows;
    float *out;         /* (rows, n) */
    const float *x;     /* (rows, n) */
    const float *w, *b; /* the norm's */
    int n;
} NormJob;

enum { NORM_ROWS = 16 };

static void norm_task(void *ctx, int task) {
    const NormJob *j = ctx;
    int i0 = j->r0 + task * NORM_ROWS, i1 = i0 + NORM_ROWS < j->r0 + j->rows ? i0 + NORM_ROWS : j->r0 + j->rows;
    for (int i = i0; i < i1; i++)
        nn_norm_row(j->out + (size_t)i * j->n, j->x + (size_t)i * j->n, j->w, j->b, j->r->cfg->eps, j->n);
}

/* out (rows, n) = the norm of x's rows [r0, r0 + rows) (out and x at row 0). */
static void norm_rows(const HfRun *r, float *out, const float *x, const float *w, const float *b, int r0, int rows,
                      int n) {
    NormJob j = {.r = r, .r0 = r0, .rows = rows, .out = out, .x = x, .w = w, .b = b, .n = n};
    par_for((rows + NORM_ROWS - 1) / NORM_ROWS, norm_task, &j);
}

// ----------------------------------------------------------------------------
// products: out (rows, n_out; ld_out) = x (rows, n_in; ld_x) W^T (+ bias)
//
// W is read in blocks of HF_W_BLOCK output rows, in one of two ways that give
// the same bits (every element is the same FMA sum over k, matrix.h):
//   left:  nn.Linear's (out, in): the block is the left matrix of W_blk x^T,
//          in place when F32, x^T packed once for every block;
//   right: Conv1D's (in, out): out[:, blk] = x W_blk^T, the block's rows
//          (in place when F32) packed as the right matrix.

/* 1 when the host stores floats as the files do (little-endian). */
static int host_little_endian(void) {
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

/* 1 when w's elements can be read in place as floats. */
static int f32_in_place(const HfMat *w) {
    return w->t->dtype == ST_F32 && (uintptr_t)w->t->data % sizeof(float) == 0 && host_little_endian();
}

#ifdef NN_X86
__attribute__((target("avx512f"))) static size_t bf16_avx512(float *out, const unsigned char *p, size_t n) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512i v = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(const void *)(p + 2 * i)));
        _mm512_storeu_ps(out + i, _mm512_castsi512_ps(_mm512_slli_epi32(v, 16)));
    }
    return i;
}

__attribute__((target("avx2,fma"))) static size_t bf16_avx2(float *out, const unsigned char *p, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i v = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)(p + 2 * i)));
        _mm256_storeu_ps(out + i, _mm256_castsi256_ps(_mm256_slli_epi32(v, 16)));
    }
    return i;
}
#endif

/* n elements of t from element first, as floats (exact: BF16 is a float's
 * top half): BF16 widened in SIMD on x86 (little-endian), the rest by
 * st_to_f32. */
static void to_f32(const StTensor *t, size_t first, size_t n, float *out) {
    size_t done = 0;
    if (t->dtype == ST_F32 && host_little_endian()) {
        memcpy(out, t->data + 4 * first, sizeof(float) * n);
        return;
    }
#ifdef NN_X86
    if (t->dtype == ST_BF16) {
        NnPath path = nn_path();
        if (path == NN_AVX512) done = bf16_avx512(out, t->data + 2 * first, n);
        else if (path == NN_AVX2) done = bf16_avx2(out, t->data + 2 * first, n);
    }
#endif
    if (done < n) st_to_f32(t, first + done, n - done, out + done);
}

/* Rows [o0, o0 + wrows) of W as floats: in place when the tensor is F32,
 * aligned and not transposed (*ld its row stride), else converted into buf
 * (wrows, n_in). */
static const float *mat_block(const HfMat *w, int o0, int wrows, int n_in, float *buf, int *ld) {
    const StTensor *t = w->t;
    if (!w->transposed && f32_in_place(w)) {
        *ld = w->ld;
        return (const float *)(const void *)t->data + w->off + (size_t)o0 * w->ld;
    }
    *ld = n_in;
    if (!w->transposed) {
        for (int c = 0; c < wrows; c++)
            to_f32(t, w->off + (size_t)(o0 + c) * w->ld, (size_t)n_in, buf + (size_t)c * n_in);
        return buf;
    }
    float col[HF_W_BLOCK];
    for (int i = 0; i < n_in; i++) {
        to_f32(t, w->off + (size_t)i * w->ld + o0, (size_t)wrows, col);
        for (int c = 0; c < wrows; c++) buf[(size_t)c * n_in + i] = col[c];
    }
    return buf;
}

/* The widest input of a product. */
static int in_max(const HfConfig *c) {
    int m = c->dim > c->hidden_dim ? c->dim : c->hidden_dim;
    return m > c->q_dim ? m : c->q_dim;
}

/* A lane's floats for a product's tile (HF_W_BLOCK, cap) or a packed block;
 * HF_W_BLOCK x in_max more follow for a converted block. */
static size_t tile_floats(const HfRun *r) {
    size_t tile = (size_t)HF_W_BLOCK * r->cap, packed = mat_packed_floats(in_max(r->cfg), HF_W_BLOCK);
    return tile > packed ? tile : packed;
}

/* One product of a job: out = x W^T + bias, then what follows block by block.
 */
typedef struct {
    const HfMat *w;
    const float *bias; /* (n_out) or NULL */
    float *out;        /* (rows, n_out; ld) */
    int ld, n_out;
    float *sum;       /* sum = add + out (a residual), or NULL */
    const float *add; /* (rows, n_out; ld) */
} LinOut;

enum { LIN_MAX = 3, XT_CHUNKS = 64, RIGHT_CHUNK = 64, PF_ROWS = 12 };
typedef enum { ACT_NONE, ACT_GELU, ACT_SWIGLU } LinAct;

/* Products of one x, their blocks one list of tasks. */
typedef struct {
    HfRun *r;
    const float *x; /* (rows, n_in; ld_x) */
    int ld_x, rows, n_in;
    MatPacked xt[XT_CHUNKS]; /* x^T (n_in, rows) when a product is `left`, by
                                chunks of rows */
    int chunk, nchunks;      /* rows per chunk (a multiple of 32: the chunks pack into
                                r->pack end to end) */
    LinOut outs[LIN_MAX];
    int nouts;
    LinAct act; /* GELU on outs[0]; SwiGLU: outs[0] = silu(outs[0]) * outs[1],
                   blocks of outs[0] */
    int items;
    atomic_int next; /* the next item to take: a lane takes items while there are
                        (the pool may start it late) */
} Linear;

/* Block o0 of o: out[:, o0 .. o0 + wrows) and its bias. */
/* One row of x times W's rows: out[c] = x . row c for c < wrows, rows
 * (wrows, n_in; ld) as floats. Each an FMA sum over k in ascending order
 * from 0, a result out of the float range summed again in double and
 * saturated (matrix.h's rule: the bits of the product with more rows). The
 * product would pad x^T's one column to a panel of 32; here 16 (8) rows of
 * W are turned into columns in registers and the lanes run 16 (8) rows'
 * sums side by side. */
/* Element i of rows: a float, or a BF16 (little-endian host) widened. */
static inline float row_at(const unsigned char *rows, int bf16, size_t i) {
    float v;
    if (!bf16) memcpy(&v, rows + 4 * i, sizeof v);
    else {
        uint32_t b = (uint32_t)(rows[2 * i] | rows[2 * i + 1] << 8) << 16;
        memcpy(&v, &b, sizeof v);
    }
    return v;
}

#ifdef NN_X86
/* r0..r15 = the columns of the 16 x 16 block in r0..r15 (t0..t15 scratch) */
#define TR16(r, t)                                                                                                     \
    t##0 = _mm512_unpacklo_ps(r##0, r##1), t##1 = _mm512_unpackhi_ps(r##0, r##1);                                      \
    t##2 = _mm512_unpacklo_ps(r##2, r##3), t##3 = _mm512_unpackhi_ps(r##2, r##3);                                      \
    t##4 = _mm512_unpacklo_ps(r##4, r##5), t##5 = _mm512_unpackhi_ps(r##4, r##5);                                      \
    t##6 = _mm512_unpacklo_ps(r##6, r##7), t##7 = _mm512_unpackhi_ps(r##6, r##7);                                      \
    t##8 = _mm512_unpacklo_ps(r##8, r##9), t##9 = _mm512_unpackhi_ps(r##8, r##9);                                      \
    t##10 = _mm512_unpacklo_ps(r##10, r##11), t##11 = _mm512_unpackhi_ps(r##10, r##11);                                \
    t##12 = _mm512_unpacklo_ps(r##12, r##13), t##13 = _mm512_unpackhi_ps(r##12, r##13);                                \
    t##14 = _mm512_unpacklo_ps(r##14, r##15), t##15 = _mm512_unpackhi_ps(r##14, r##15);                                \
    r##0 = _mm512_shuffle_ps(t##0, t##2, 0x44), r##1 = _mm512_shuffle_ps(t##0, t##2, 0xEE);                            \
    r##2 = _mm512_shuffle_ps(t##1, t##3, 0x44), r##3 = _mm512_shuffle_ps(t##1, t##3, 0xEE);                            \
    r##4 = _mm512_shuffle_ps(t##4, t##6, 0x44), r##5 = _mm512_shuffle_ps(t##4, t##6, 0xEE);                            \
    r##6 = _mm512_shuffle_ps(t##5, t##7, 0x44), r##7 = _mm512_shuffle_ps(t##5, t##7, 0xEE);                            \
    r##8 = _mm512_shuffle_ps(t##8, t##10, 0x44), r##9 = _mm512_shuffle_ps(t##8, t##10, 0xEE);                          \
    r##10 = _mm512_shuffle_ps(t##9, t##11, 0x44), r##11 = _mm512_shuffle_ps(t##9, t##11, 0xEE);                        \
    r##12 = _mm512_shuffle_ps(t##12, t##14, 0x44), r##13 = _mm512_shuffle_ps(t##12, t##14, 0xEE);                      \
    r##14 = _mm512_shuffle_ps(t##13, t##15, 0x44), r##15 = _mm512_shuffle_ps(t##13, t##15, 0xEE);                      \
    t##0 = _mm512_shuffle_f32x4(r##0, r##4, 0x88), t##1 = _mm512_shuffle_f32x4(r##1, r##5, 0x88);                      \
    t##2 = _mm512_shuffle_f32x4(r##2, r##6, 0x88), t##3 = _mm512_shuffle_f32x4(r##3, r##7, 0x88);                      \
    t##4 = _mm512_shuffle_f32x4(r##0, r##4, 0xdd), t##5 = _mm512_shuffle_f32x4(r##1, r##5, 0xdd);                      \
    t##6 = _mm512_shuffle_f32x4(r##2, r##6, 0xdd), t##7 = _mm512_shuffle_f32x4(r##3, r##7, 0xdd);                      \
    t##8 = _mm512_shuffle_f32x4(r##8, r##12, 0x88), t##9 = _mm512_shuffle_f32x4(r##9, r##13, 0x88);                    \
    t##10 = _mm512_shuffle_f32x4(r##10, r##14, 0x88), t##11 = _mm512_shuffle_f32x4(r##11, r##15, 0x88);                \
    t##12 = _mm512_shuffle_f32x4(r##8, r##12, 0xdd), t##13 = _mm512_shuffle_f32x4(r##9, r##13, 0xdd);                  \
    t##14 = _mm512_shuffle_f32x4(r##10, r##14, 0xdd), t##15 = _mm512_shuffle_f32x4(r##11, r##15, 0xdd);                \
    r##0 = _mm512_shuffle_f32x4(t##0, t##8, 0x88), r##1 = _mm512_shuffle_f32x4(t##1, t##9, 0x88);                      \
    r##2 = _mm512_shuffle_f32x4(t##2, t##10, 0x88), r##3 = _mm512_shuffle_f32x4(t##3, t##11, 0x88);                    \
    r##4 = _mm512_shuffle_f32x4(t##4, t##12, 0x88), r##5 = _mm512_shuffle_f32x4(t##5, t##13, 0x88);                    \
    r##6 = _mm512_shuffle_f32x4(t##6, t##14, 0x88), r##7 = _mm512_shuffle_f32x4(t##7, t##15, 0x88);                    \
    r##8 = _mm512_shuffle_f32x4(t##0, t##8, 0xdd), r##9 = _mm512_shuffle_f32x4(t##1, t##9, 0xdd);                      \
    r##10 = _mm512_shuffle_f32x4(t##2, t##10, 0xdd), r##11 = _mm512_shuffle_f32x4(t##3, t##11, 0xdd);                  \
    r##12 = _mm512_shuffle_f32x4(t##4, t##12, 0xdd), r##13 = _mm512_shuffle_f32x4(t##5, t##13, 0xdd);                  \
    r##14 = _mm512_shuffle_f32x4(t##6, t##14, 0xdd), r##15 = _mm512_shuffle_f32x4(t##7, t##15, 0xdd)

/* 16 elements of a row at p: floats, or BF16 widened */
__attribute__((target("avx512f"))) static inline __m512 load16(const unsigned char *p, int bf16) {
    if (!bf16) return _mm512_loadu_ps((const float *)(const void *)p);
    __m512i v = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(const void *)p));
    return _mm512_castsi512_ps(_mm512_slli_epi32(v, 16));
}

__attribute__((target("avx512f"))) static int gemv_avx512(float *out, const float *x, const unsigned char *rows,
                                                          int bf16, int ld, int wrows, int n_in) {
    size_t es = bf16 ? 2 : 4, l = (size_t)ld * es;
    int c0 = 0;
    for (; c0 + 16 <= wrows; c0 += 16) {
        const unsigned char *w = rows + (size_t)c0 * l;
        __m512 acc = _mm512_setzero_ps();
        int k = 0;
        for (; k + 16 <= n_in; k += 16) {
            const unsigned char *p = w + k * es;
            __m512 r0 = load16(p, bf16), r1 = load16(p + l, bf16), r2 = load16(p + 2 * l, bf16);
            __m512 r3 = load16(p + 3 * l, bf16), r4 = load16(p + 4 * l, bf16), r5 = load16(p + 5 * l, bf16);
            __m512 r6 = load16(p + 6 * l, bf16), r7 = load16(p + 7 * l, bf16), r8 = load16(p + 8 * l, bf16);
            __m512 r9 = load16(p + 9 * l, bf16), r10 = load16(p + 10 * l, bf16), r11 = load16(p + 11 * l, bf16);
            __m512 r12 = load16(p + 12 * l, bf16), r13 = load16(p + 13 * l, bf16), r14 = load16(p + 14 * l, bf16);
            __m512 r15 = load16(p + 15 * l, bf16);
            __m512 t0, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15;
            TR16(r, t);
            const float *xk = x + k;
            acc = _mm512_fmadd_ps(_mm512_set1_ps(xk[0]), r0, acc);
            acc = _mm512_fmadd_ps(_mm512_set1_ps(xk[1]), r1, acc);
            acc = _mm512_fmadd_ps(_mm512_set1_ps(xk[2]), r2, acc);
            acc = _mm512_fmadd_ps(_mm512_set1_ps(xk[3]), r3, acc);
            acc = _mm512_fmadd_ps(_mm512_set1_ps(xk[4]), r4, acc);
            acc = _mm512_fmadd_ps(_mm512_set1_ps(xk[5]), r5, acc);
            acc = _mm512_fmadd_ps(_mm512_set1_ps(xk[6]), r6, acc);
            acc = _mm512_fmadd_ps(_mm512_set1_ps(xk[7]), r7, acc);
            acc = _mm512_fmadd_ps(_mm512_set1_ps(xk[8]), r8, acc);
            acc = _mm512_fmadd_ps(_mm512_set1_ps(xk[9]), r9, acc);
            acc = _mm512_fmadd_ps(_mm512_set1_ps(xk[10]), r10, acc);
            acc = _mm512_fmadd_ps(_mm512_set1_ps(xk[11]), r11, acc);
            acc = _mm512_fmadd_ps(_mm512_set1_ps(xk[12]), r12, acc);
            acc = _mm512_fmadd_ps(_mm512_set1_ps(xk[13]), r13, acc);
            acc = _mm512_fmadd_ps(_mm512_set1_ps(xk[14]), r14, acc);
            acc = _mm512_fmadd_ps(_mm512_set1_ps(xk[15]), r15, acc);
        }
        _mm512_storeu_ps(out + c0, acc);
        for (int c = c0; c < c0 + 16; c++)
            for (int q = k; q < n_in; q++) out[c] = fmaf(x[q], row_at(rows, bf16, (size_t)c * ld + q), out[c]);
    }
    return c0;
}

#undef TR16

__attribute__((target("avx2,fma"))) static inline __m256 load8(const unsigned char *p, int bf16) {
    if (!bf16) return _mm256_loadu_ps((const float *)(const void *)p);
    __m256i v = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)p));
    return _mm256_castsi256_ps(_mm256_slli_epi32(v, 16));
}

__attribute__((target("avx2,fma"))) static int gemv_avx2(float *out, const float *x, const unsigned char *rows,
                                                         int bf16, int ld, int wrows, int n_in) {
    size_t es = bf16 ? 2 : 4, l = (size_t)ld * es;
    int c0 = 0;
    for (; c0 + 8 <= wrows; c0 += 8) {
        const unsigned char *w = rows + (size_t)c0 * l;
        __m256 acc = _mm256_setzero_ps();
        int k = 0;
        for (; k + 8 <= n_in; k += 8) {
            const unsigned char *p = w + k * es;
            __m256 r[8];
            for (int q = 0; q < 8; q++) r[q] = load8(p + q * l, bf16);
            nn_transpose8(r); /* r[q]: element k + q of the 8 rows */
            const float *xk = x + k;
            for (int q = 0; q < 8; q++) acc = _mm256_fmadd_ps(_mm256_set1_ps(xk[q]), r[q], acc);
        }
        _mm256_storeu_ps(out + c0, acc);
        for (int c = c0; c < c0 + 8; c++)
            for (int q = k; q < n_in; q++) out[c] = fmaf(x[q], row_at(rows, bf16, (size_t)c * ld + q), out[c]);
    }
    return c0;
}
#endif

static void gemv_rows(float *out, const float *x, const unsigned char *rows, int bf16, int ld, int wrows, int n_in) {
    int c0 = 0;
#ifdef NN_X86
    NnPath path = nn_path();
    if (path == NN_AVX512) c0 = gemv_avx512(out, x, rows, bf16, ld, wrows, n_in);
    else if (path == NN_AVX2) c0 = gemv_avx2(out, x, rows, bf16, ld, wrows, n_in);
#endif
    for (int c = c0; c < wrows; c++) {
        float acc = 0.0f;
        for (int q = 0; q < n_in; q++) acc = fmaf(x[q], row_at(rows, bf16, (size_t)c * ld + q), acc);
        out[c] = acc;
    }
    for (int c = 0; c < wrows; c++) {
        if (isfinite(out[c])) continue;
        double sum = 0.0;
        for (int q = 0; q < n_in; q++) sum += (double)x[q] * row_at(rows, bf16, (size_t)c * ld + q);
        out[c] = nn_sat(sum);
    }
}

/* One row of x times W^T's columns, W^T (n_in, wrows; ld) a Conv1D's rows as
 * floats or BF16: out[c] = sum over k of x[k] W^T[k][c], the same FMA sums in k
 * order (each lane one column). */
#ifdef NN_X86
__attribute__((target("avx512f"))) static int gemv_t_avx512(float *out, const float *x, const unsigned char *rows,
                                                            int bf16, int ld, int wrows, int n_in) {
    size_t es = bf16 ? 2 : 4, l = (size_t)ld * es;
    int c0 = 0;
    for (; c0 + 64 <= wrows; c0 += 64) {
        __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
        const unsigned char *p = rows + (size_t)c0 * es;
        for (int k = 0; k < n_in; k++, p += l) {
            __m512 xk = _mm512_set1_ps(x[k]);
            a0 = _mm512_fmadd_ps(xk, load16(p, bf16), a0);
            a1 = _mm512_fmadd_ps(xk, load16(p + 16 * es, bf16), a1);
            a2 = _mm512_fmadd_ps(xk, load16(p + 32 * es, bf16), a2);
            a3 = _mm512_fmadd_ps(xk, load16(p + 48 * es, bf16), a3);
        }
        _mm512_storeu_ps(out + c0, a0), _mm512_storeu_ps(out + c0 + 16, a1);
        _mm512_storeu_ps(out + c0 + 32, a2), _mm512_storeu_ps(out + c0 + 48, a3);
    }
    for (; c0 + 16 <= wrows; c0 += 16) {
        __m512 a0 = _mm512_setzero_ps();
        const unsigned char *p = rows + (size_t)c0 * es;
        for (int k = 0; k < n_in; k++, p += l) a0 = _mm512_fmadd_ps(_mm512_set1_ps(x[k]), load16(p, bf16), a0);
        _mm512_storeu_ps(out + c0, a0);
    }
    return c0;
}

__attribute__((target("avx2,fma"))) static int gemv_t_avx2(float *out, const float *x, const unsigned char *rows,
                                                           int bf16, int ld, int wrows, int n_in) {
    size_t es = bf16 ? 2 : 4, l = (size_t)ld * es;
    int c0 = 0;
    for (; c0 + 32 <= wrows; c0 += 32) {
        __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
        const unsigned char *p = rows + (size_t)c0 * es;
        for (int k = 0; k < n_in; k++, p += l) {
            __m256 xk = _mm256_set1_ps(x[k]);
            a0 = _mm256_fmadd_ps(xk, load8(p, bf16), a0);
            a1 = _mm256_fmadd_ps(xk, load8(p + 8 * es, bf16), a1);
            a2 = _mm256_fmadd_ps(xk, load8(p + 16 * es, bf16), a2);
            a3 = _mm256_fmadd_ps(xk, load8(p + 24 * es, bf16), a3);
        }
        _mm256_storeu_ps(out + c0, a0), _mm256_storeu_ps(out + c0 + 8, a1);
        _mm256_storeu_ps(out + c0 + 16, a2), _mm256_storeu_ps(out + c0 + 24, a3);
    }
    for (; c0 + 8 <= wrows; c0 += 8) {
        __m256 a0 = _mm256_setzero_ps();
        const unsigned char *p = rows + (size_t)c0 * es;
        for (int k = 0; k < n_in; k++, p += l) a0 = _mm256_fmadd_ps(_mm256_set1_ps(x[k]), load8(p, bf16), a0);
        _mm256_storeu_ps(out + c0, a0);
    }
    return c0;
}
#endif

static void gemv_t_rows(float *out, const float *x, const unsigned char *rows, int bf16, int ld, int wrows, int n_in) {
    int c0 = 0;
#ifdef NN_X86
    NnPath path = nn_path();
    if (path == NN_AVX512) c0 = gemv_t_avx512(out, x, rows, bf16, ld, wrows, n_in);
    else if (path == NN_AVX2) c0 = gemv_t_avx2(out, x, rows, bf16, ld, wrows, n_in);
#endif
    for (int c = c0; c < wrows; c++) {
        float acc = 0.0f;
        for (int q = 0; q < n_in; q++) acc = fmaf(x[q], row_at(rows, bf16, (size_t)q * ld + c), acc);
        out[c] = acc;
    }
    for (int c = 0; c < wrows; c++) {
        if (isfinite(out[c])) continue;
        double sum = 0.0;
        for (int q = 0; q < n_in; q++) sum += (double)x[q] * row_at(rows, bf16, (size_t)q * ld + c);
        out[c] = nn_sat(sum);
    }
}

/* Asks for bytes [p, p + n) in cache. */
static void prefetch_bytes(const unsigned char *p, size_t n) {
    for (size_t b = 0; b < n; b += 64) __builtin_prefetch(p + b);
    __builtin_prefetch(p + n - 1);
}

/* Rows [i0, i1) of block o0 of o, computed: the bias, GELU and residual. */
static void block_post(const Linear *j, const LinOut *o, int o0, int wrows, int i0, int i1) {
    for (int i = i0; i < i1; i++) {
        float *oi = o->out + (size_t)i * o->ld + o0;
        if (o->bias) nn_residual(oi, oi, o->bias + o0, (size_t)wrows);
        if (j->act == ACT_GELU) nn_gelu(oi, (size_t)wrows);
        if (o->sum) nn_residual(o->sum + (size_t)i * o->ld + o0, o->add + (size_t)i * o->ld + o0, oi, (size_t)wrows);
    }
}

/* Block o0 of o: out[:, o0 .. o0 + wrows), chunk of rows by chunk of rows
 * (each finished while in cache). */
static void linear_block(const Linear *j, float *scratch, const LinOut *o, int o0) {
    const HfRun *r = j->r;
    const HfMat *w = o->w;
    const StTensor *t = w->t;
    int wrows = o->n_out - o0 < HF_W_BLOCK ? o->n_out - o0 : HF_W_BLOCK, n_in = j->n_in;
    float *tile = scratch;                  /* (HF_W_BLOCK, chunk), or the packed block */
    float *conv = scratch + tile_floats(r); /* a block converted: (HF_W_BLOCK, n_in) or (n_in, wrows) */
    int bf16 = t->dtype == ST_BF16 && host_little_endian();
    if (w->transposed && j->rows == 1 && (bf16 || f32_in_place(w))) { /* one row: in place */
        gemv_t_rows(o->out + o0, j->x, t->data + (w->off + (size_t)o0) * (bf16 ? 2 : 4), bf16, w->ld, wrows, n_in);
        block_post(j, o, o0, wrows, 0, 1);
        return;
    }
    if (w->transposed) { /* right */
        /* the block's rows (in, wrows) into conv, PF_ROWS rows read ahead:
         * the weights come from memory, a few hundred bytes a row */
        size_t esize = st_dtype_size(t->dtype), rbytes = (size_t)wrows * esize;
        const unsigned char *row0 = t->data + (w->off + (size_t)o0) * esize;
        for (int i = 0; i < PF_ROWS && i < n_in; i++) prefetch_bytes(row0 + (size_t)i * w->ld * esize, rbytes);
        for (int i = 0; i < n_in; i++) {
            if (i + PF_ROWS < n_in) prefetch_bytes(row0 + (size_t)(i + PF_ROWS) * w->ld * esize, rbytes);
            to_f32(t, w->off + (size_t)i * w->ld + o0, (size_t)wrows, conv + (size_t)i * wrows);
        }
        const float *src = conv;
        int lds = wrows;
        MatPacked wb;
        mat_pack_into(&wb, tile, src, lds, n_in, wrows, 0);
        for (int i0 = 0; i0 < j->rows; i0 += RIGHT_CHUNK) {
            int n = j->rows - i0 < RIGHT_CHUNK ? j->rows - i0 : RIGHT_CHUNK;
            mat_mul_rows(o->out + o0, o->ld, j->x, j->ld_x, &wb, i0, n);
            block_post(j, o, o0, wrows, i0, i0 + n);
        }
        return;
    }
    /* left */
    if (j->rows == 1 && (bf16 || f32_in_place(w))) { /* in place */
        gemv_rows(o->out + o0, j->x, t->data + (w->off + (size_t)o0 * w->ld) * (bf16 ? 2 : 4), bf16, w->ld, wrows,
                  n_in);
        block_post(j, o, o0, wrows, 0, 1);
        return;
    }
    const float *wp = conv;
    int ldw = n_in;
    if (f32_in_place(w)) wp = (const float *)(const void *)t->data + w->off + (size_t)o0 * w->ld, ldw = w->ld;
    else
        for (int c = 0; c < wrows; c++)
            to_f32(t, w->off + (size_t)(o0 + c) * w->ld, (size_t)n_in, conv + (size_t)c * n_in);
    if (j->rows == 1) {
        gemv_rows(o->out + o0, j->x, (const unsigned char *)wp, 0, ldw, wrows, n_in);
        block_post(j, o, o0, wrows, 0, 1);
        return;
    }
    for (int ch = 0; ch < j->nchunks; ch++) {
        int i0 = ch * j->chunk, n = j->rows - i0 < j->chunk ? j->rows - i0 : j->chunk;
        mat_mul_rows(tile, n, wp, ldw, &j->xt[ch], 0, wrows);
        nn_tile_out(o->out + (size_t)i0 * o->ld + o0, o->ld, tile, (size_t)n, n, wrows);
        block_post(j, o, o0, wrows, i0, i0 + n);
    }
}

static void linear_task(void *ctx, int lane) {
    Linear *j = ctx;
    float *scratch = j->r->scratch + (size_t)lane * j->r->lane_floats;
    for (int t; (t = atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed)) < j->items;) {
        int k = 0, b = t;
        if (j->act != ACT_SWIGLU)
            while (b >= (j->outs[k].n_out + HF_W_BLOCK - 1) / HF_W_BLOCK)
                b -= (j->outs[k++].n_out + HF_W_BLOCK - 1) / HF_W_BLOCK;
        int o0 = b * HF_W_BLOCK;
        linear_block(j, scratch, &j->outs[k], o0);
        if (j->act == ACT_SWIGLU) {
            const LinOut *g = &j->outs[0], *u = &j->outs[1];
            int wrows = g->n_out - o0 < HF_W_BLOCK ? g->n_out - o0 : HF_W_BLOCK;
            linear_block(j, scratch, u, o0);
            for (int i = 0; i < j->rows; i++)
                nn_swiglu(g->out + (size_t)i * g->ld + o0, u->out + (size_t)i * u->ld + o0, (size_t)wrows);
        }
    }
}

/* Chunks of x^T packed, taken from the counter: a chunk of up to
 * HF_W_BLOCK rows turned into (n_in, n) in the lane's scratch first (8 x 8
 * blocks in registers), then packed by rows (copies), both faster than the
 * packing's element-by-element gather. */
static void pack_task(void *ctx, int lane) {
    Linear *j = ctx;
    float *xt = j->r->scratch + (size_t)lane * j->r->lane_floats + tile_floats(j->r); /* (n_in, chunk) */
    for (int ch; (ch = atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed)) < j->nchunks;) {
        int i0 = ch * j->chunk, n = j->rows - i0 < j->chunk ? j->rows - i0 : j->chunk;
        float *buf = j->r->pack + mat_packed_floats(j->n_in, j->chunk) * (size_t)ch;
        const float *x = j->x + (size_t)i0 * j->ld_x;
        if (j->chunk <= HF_W_BLOCK) {
            nn_tile_out(xt, n, x, (size_t)j->ld_x, j->n_in, n);
            mat_pack_into(&j->xt[ch], buf, xt, n, j->n_in, n, 0);
        } else mat_pack_into(&j->xt[ch], buf, x, j->ld_x, j->n_in, n, 1);
    }
}

/* The products of j (outs set), on the pool. */
static void linear_run(Linear *j) {
    int left = 0;
    j->items = 0;
    for (int k = 0; k < j->nouts; k++) {
        left |= !j->outs[k].w->transposed;
        if (j->act != ACT_SWIGLU || k == 0) j->items += (j->outs[k].n_out + HF_W_BLOCK - 1) / HF_W_BLOCK;
    }
    if (left && j->rows > 1) { /* x^T in chunks of rows packed on the pool: a
                                  product sums over k alike in any */
        int per = (j->rows + XT_CHUNKS - 1) / XT_CHUNKS;
        j->chunk = per < 64 ? 64 : (per + 31) / 32 * 32;
        j->nchunks = (j->rows + j->chunk - 1) / j->chunk;
        atomic_init(&j->next, 0);
        par_for(j->r->lanes < j->nchunks ? j->r->lanes : j->nchunks, pack_task, j);
    }
    atomic_init(&j->next, 0);
    par_for(j->r->lanes < j->items ? j->r->lanes : j->items, linear_task, j);
}

/* out (rows, n_out; ld_out) = x W^T + bias, alone. */
static void linear_forward(HfRun *r, float *out, int ld_out, const float *x, int ld_x, const HfMat *w,
                           const float *bias, int rows, int n_in, int n_out) {
    Linear j = {.r = r, .x = x, .ld_x = ld_x, .rows = rows, .n_in = n_in, .nouts = 1};
    j.outs[0] = (LinOut){.w = w, .bias = bias, .out = out, .ld = ld_out, .n_out = n_out};
    linear_run(&j);
}

// ----------------------------------------------------------------------------
// attention: query rows [r0, r0 + rows) over keys [0, r0 + rows), causal

typedef struct {
    HfRun *r;
    int l, r0, rows, nk;
    MatPacked *kt, *vp; /* per key/value head: K^T (hs, nk) and V (nk, hs) */
    int items;
    atomic_int next; /* as Linear's */
} Attend;

static void attend_pack_task(void *ctx, int g) {
    Attend *j = ctx;
    const HfConfig *c = j->r->cfg;
    int hs = c->head_dim;
    size_t kf = mat_packed_floats(hs, j->r->cap), vf = mat_packed_floats(j->r->cap, hs);
    float *buf = j->r->pack + (size_t)g * (kf + vf);
    mat_pack_into(&j->kt[g], buf, hf_run_k(j->r, j->l) + (size_t)g * hs, c->kv_dim, hs, j->nk, 1);
    mat_pack_into(&j->vp[g], buf + kf, hf_run_v(j->r, j->l) + (size_t)g * hs, c->kv_dim, j->nk, hs, 0);
}

static void attend_block(Attend *j, float *scratch, int h, int i0, int qrows) {
    HfRun *r = j->r;
    const HfConfig *c = r->cfg;
    int hs = c->head_dim, nk = j->nk, g = h / (c->n_heads / c->n_kv_heads);
    float *scores = scratch, *weights = scores + (size_t)Q_BLOCK * r->cap;
    float *scaled = weights + (size_t)Q_BLOCK * r->cap, *masked = scaled + r->cap;
    const float *q = hf_run_q(r, j->l);
    /* only the keys a row of the block may see: row i the first i0 + i + 1,
     * rounded up to whole vectors of the row steps, the rest masked (a
     * softmax with more masked keys gives the same bits:
     * test_extend_same_bits) */
    int kmax = i0 + qrows;
    mat_mul_block(scores, nk, q + (size_t)i0 * c->q_dim + (size_t)h * hs, c->q_dim, &j->kt[g], 0, qrows, 0, kmax);
    for (int i = 0; i < qrows; i++) {
        int seen = i0 + i + 1, n = (seen + 15) / 16 * 16 < kmax ? (seen + 15) / 16 * 16 : kmax;
        float *w = weights + (size_t)i * nk;
        attn_scale_mask_row(scaled, masked, scores + (size_t)i * nk, r->causal + (r->cap - seen), n, SCALE_MULTIPLY,
                            1.0 / sqrt((double)hs));
        SoftmaxRow sr;
        attn_softmax(w, masked, n, &sr);
        if (kmax > n) memset(w + n, 0, sizeof(float) * (size_t)(kmax - n));
    }
    mat_mul_rows_k(r->att + (size_t)i0 * c->q_dim + (size_t)h * hs, c->q_dim, weights, nk, &j->vp[g], 0, qrows, kmax);
}

static void attend_task(void *ctx, int lane) {
    Attend *j = ctx;
    int blocks = (j->rows + Q_BLOCK - 1) / Q_BLOCK;
    float *scratch = j->r->scratch + (size_t)lane * j->r->lane_floats;
    for (int t; (t = atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed)) < j->items;) {
        int h = t / blocks, i0 = j->r0 + (t % blocks) * Q_BLOCK;
        int qrows = j->r0 + j->rows - i0 < Q_BLOCK ? j->r0 + j->rows - i0 : Q_BLOCK;
        attend_block(j, scratch, h, i0, qrows);
    }
}

static void attend_rows(HfRun *r, int l, int r0, int rows) {
    const HfConfig *c = r->cfg;
    Attend j = {.r = r, .l = l, .r0 = r0, .rows = rows, .nk = r0 + rows};
    j.kt = r->kv_packed, j.vp = r->kv_packed + c->n_kv_heads;
    par_for(c->n_kv_heads, attend_pack_task, &j);
    j.items = c->n_heads * ((rows + Q_BLOCK - 1) / Q_BLOCK);
    atomic_init(&j.next, 0);
    par_for(r->lanes < j.items ? r->lanes : j.items, attend_task, &j);
}

// ----------------------------------------------------------------------------
// one layer, and the logits, over rows [r0, r0 + rows)

static void embed_rows(HfRun *r, int r0, int rows) {
    const HfModel *m = r->m;
    size_t dim = (size_t)r->cfg->dim;
    for (int i = r0; i < r0 + rows; i++) {
        float *x = hf_run_x(r, 0) + (size_t)i * dim;
        to_f32(m->embed, (size_t)r->ids[i] * dim, dim, x);
        if (m->wpe) {
            float *pos = r->xb + (size_t)i * dim; /* free until the first layer */
            to_f32(m->wpe, (size_t)i * dim, dim, pos);
            nn_residual(x, x, pos, dim);
        }
    }
}

/* Llama's q and k of rows [r0, r0 + rows) of layer l: kept before RoPE
 * (q_raw, k_raw), then turned; NORM_ROWS rows a task. */
typedef struct {
    HfRun *r;
    int l, r0, rows;
} RopeJob;

static void rope_task(void *ctx, int task) {
    const RopeJob *j = ctx;
    HfRun *r = j->r;
    const HfConfig *c = r->cfg;
    int i0 = j->r0 + task * NORM_ROWS, n = j->r0 + j->rows - i0 < NORM_ROWS ? j->r0 + j->rows - i0 : NORM_ROWS;
    size_t qa = (size_t)i0 * c->q_dim, ka = (size_t)i0 * c->kv_dim;
    memcpy(r->q_raw + qa, hf_run_q(r, j->l) + qa, sizeof(float) * (size_t)n * c->q_dim);
    memcpy(r->k_raw + ka, hf_run_k(r, j->l) + ka, sizeof(float) * (size_t)n * c->kv_dim);
    rope_forward(hf_run_q(r, j->l), r->rope, i0, n, c->q_dim, c->head_dim);
    rope_forward(hf_run_k(r, j->l), r->rope, i0, n, c->kv_dim, c->head_dim);
}

static void qkv_rows(HfRun *r, int l, int r0, int rows) {
    const HfConfig *c = r->cfg;
    const HfLayer *L = &r->m->layers[l];
    size_t dim = (size_t)c->dim, at = (size_t)r0 * dim;
    float *q = hf_run_q(r, l) + (size_t)r0 * c->q_dim, *k = hf_run_k(r, l) + (size_t)r0 * c->kv_dim;
    float *v = hf_run_v(r, l) + (size_t)r0 * c->kv_dim;
    norm_rows(r, r->xb + at, hf_run_x(r, l) + at, L->norm1_w, L->norm1_b, 0, rows, c->dim);
    Linear j = {.r = r, .x = r->xb + at, .ld_x = c->dim, .rows = rows, .n_in = c->dim, .nouts = 3};
    j.outs[0] = (LinOut){.w = &L->wq, .bias = L->bq, .out = q, .ld = c->q_dim, .n_out = c->q_dim};
    j.outs[1] = (LinOut){.w = &L->wk, .bias = L->bk, .out = k, .ld = c->kv_dim, .n_out = c->kv_dim};
    j.outs[2] = (LinOut){.w = &L->wv, .bias = L->bv, .out = v, .ld = c->kv_dim, .n_out = c->kv_dim};
    linear_run(&j);
    if (c->arch == HF_LLAMA) {
        RopeJob rj = {.r = r, .l = l, .r0 = r0, .rows = rows};
        par_for((rows + NORM_ROWS - 1) / NORM_ROWS, rope_task, &rj);
    }
}

static void finish_rows(HfRun *r, int l, const float *attn, int r0, int rows) {
    const HfConfig *c = r->cfg;
    const HfLayer *L = &r->m->layers[l];
    size_t dim = (size_t)c->dim, hid = (size_t)c->hidden_dim, at = (size_t)r0 * dim, ah = (size_t)r0 * hid;
    /* proj = att W_o^T + b_o, mid = x + proj */
    Linear o = {
        .r = r, .x = attn + (size_t)r0 * c->q_dim, .ld_x = c->q_dim, .rows = rows, .n_in = c->q_dim, .nouts = 1};
    o.outs[0] = (LinOut){.w = &L->wo,
                         .bias = L->bo,
                         .out = r->proj + at,
                         .ld = c->dim,
                         .n_out = c->dim,
                         .sum = r->mid + at,
                         .add = hf_run_x(r, l) + at};
    linear_run(&o);
    norm_rows(r, r->xb2 + at, r->mid + at, L->norm2_w, L->norm2_b, 0, rows, c->dim);
    /* hb = gelu(xb2 W_fc^T + b_fc), or silu(xb2 W_gate^T) * (hb2 = xb2 W_up^T) */
    Linear f = {.r = r, .x = r->xb2 + at, .ld_x = c->dim, .rows = rows, .n_in = c->dim, .nouts = 1};
    f.outs[0] =
        (LinOut){.w = &L->w_fc, .bias = L->b_fc, .out = r->hb + ah, .ld = c->hidden_dim, .n_out = c->hidden_dim};
    if (c->arch == HF_GPT2) f.act = ACT_GELU;
    else {
        f.act = ACT_SWIGLU, f.nouts = 2;
        f.outs[1] = (LinOut){.w = &L->w_up, .out = r->hb2 + ah, .ld = c->hidden_dim, .n_out = c->hidden_dim};
    }
    linear_run(&f);
    /* ffn = hb W_down^T + b_down, x' = mid + ffn */
    Linear d = {.r = r, .x = r->hb + ah, .ld_x = c->hidden_dim, .rows = rows, .n_in = c->hidden_dim, .nouts = 1};
    d.outs[0] = (LinOut){.w = &L->w_down,
                         .bias = L->b_down,
                         .out = r->ffn + at,
                         .ld = c->dim,
                         .n_out = c->dim,
                         .sum = hf_run_x(r, l + 1) + at,
                         .add = r->mid + at};
    linear_run(&d);
}

static void logits_rows(HfRun *r, int r0, int rows) {
    const HfConfig *c = r->cfg;
    size_t dim = (size_t)c->dim;
    norm_rows(r, r->xf + (size_t)r0 * dim, hf_run_x(r, c->n_layers) + (size_t)r0 * dim, r->m->normf_w, r->m->normf_b, 0,
              rows, c->dim);
    float *out = r->logits;
    if (r->all_logits) out += (size_t)r0 * c->vocab;
    else r0 += rows - 1, rows = 1;
    linear_forward(r, out, c->vocab, r->xf + (size_t)r0 * dim, c->dim, &r->m->cls, NULL, rows, c->dim, c->vocab);
}

// ----------------------------------------------------------------------------
// the steps

static int stopped(void) { return av_cancelled() ? -1 : 0; }
static int layer_ok(const HfRun *r, int l) { return r->n > 0 && l >= 0 && l < r->cfg->n_layers; }

/* Appends ids[0..n) to the rows and sets their embeddings. */
static int append_ids(HfRun *r, const int *ids, int n, AvError *err) {
    if (n < 1 || n > r->cap - r->n)
        return av_errorf(err, _("%d %s after %d: the run holds %d (the model's context is %d)"), n,
                         num_plural("token", "tokens", n), r->n, r->cap, r->cfg->max_pos);
    for (int i = 0; i < n; i++)
        if (ids[i] < 0 || ids[i] >= r->cfg->vocab)
            return av_errorf(err, _("token %d: id %d is not in the vocabulary of %d"), r->n + i, ids[i], r->cfg->vocab);
    memcpy(r->ids + r->n, ids, sizeof *ids * (size_t)n);
    embed_rows(r, r->n, n);
    r->n += n;
    return 0;
}

int hf_embed(HfRun *r, const int *ids, int n, AvError *err) {
    r->n = 0;
    return append_ids(r, ids, n, err);
}

int hf_layer_qkv(HfRun *r, int l) {
    if (!layer_ok(r, l)) return -1;
    qkv_rows(r, l, 0, r->n);
    return stopped();
}

int hf_layer_attend(HfRun *r, int l) {
    if (!layer_ok(r, l)) return -1;
    attend_rows(r, l, 0, r->n);
    return stopped();
}

int hf_layer_finish(HfRun *r, int l, const float *attn_out) {
    if (!layer_ok(r, l)) return -1;
    finish_rows(r, l, attn_out ? attn_out : r->att, 0, r->n);
    return stopped();
}

int hf_logits(HfRun *r) {
    if (r->n < 1) return -1;
    logits_rows(r, 0, r->n);
    return stopped();
}

int hf_logits_row(HfRun *r, int row) {
    if (row < 0 || row >= r->n || r->all_logits) return -1;
    const HfConfig *c = r->cfg;
    size_t dim = (size_t)c->dim;
    norm_rows(r, r->xf + (size_t)row * dim, hf_run_x(r, c->n_layers) + (size_t)row * dim, r->m->normf_w, r->m->normf_b,
              0, 1, c->dim);
    linear_forward(r, r->logits, c->vocab, r->xf + (size_t)row * dim, c->dim, &r->m->cls, NULL, 1, c->dim, c->vocab);
    return stopped();
}

int hf_layer_wo(const HfModel *m, int l, float *out) {
    if (l < 0 || l >= m->cfg.n_layers) return -1;
    const HfMat *w = &m->layers[l].wo;
    int dim = m->cfg.dim, qd = m->cfg.q_dim;
    for (int o0 = 0; o0 < dim; o0 += HF_W_BLOCK) {
        int rows = dim - o0 < HF_W_BLOCK ? dim - o0 : HF_W_BLOCK, ld;
        float *dst = out + (size_t)o0 * qd;
        const float *p = mat_block(w, o0, rows, qd, dst, &ld);
        if (p != dst)
            for (int j = 0; j < rows; j++) memcpy(dst + (size_t)j * qd, p + (size_t)j * ld, sizeof(float) * qd);
    }
    return 0;
}

int hf_extend(HfRun *r, const int *ids, int n, AvError *err) {
    int r0 = r->n;
    if (append_ids(r, ids, n, err)) return -1;
    for (int l = 0; l < r->cfg->n_layers && !av_cancelled(); l++) {
        qkv_rows(r, l, r0, n);
        attend_rows(r, l, r0, n);
        finish_rows(r, l, r->att, r0, n);
    }
    if (!av_cancelled()) logits_rows(r, r0, n);
    if (av_cancelled()) return av_errorf(err, _("the forward pass was cancelled"));
    return 0;
}

int hf_forward(HfRun *r, const int *ids, int n, AvError *err) {
    r->n = 0;
    return hf_extend(r, ids, n, err);
}

int hf_embed_from(HfRun *r, const int *ids, int n, int r0, AvError *err) {
    if (r0 < 0 || r0 > r->n || r0 > n) return av_errorf(err, _("rows from %d of %d: the run has %d"), r0, n, r->n);
    r->n = r0;
    return n > r0 ? append_ids(r, ids + r0, n - r0, err) : 0;
}

int hf_layer_qkv_rows(HfRun *r, int l, int r0, int rows) {
    if (!layer_ok(r, l) || r0 < 0 || rows < 0 || r0 + rows > r->n) return -1;
    if (rows > 0) qkv_rows(r, l, r0, rows);
    return stopped();
}

int hf_layer_finish_rows(HfRun *r, int l, const float *attn_out, int r0, int rows) {
    if (!layer_ok(r, l) || r0 < 0 || rows < 0 || r0 + rows > r->n) return -1;
    if (rows > 0) finish_rows(r, l, attn_out ? attn_out : r->att, r0, rows);
    return stopped();
}

// ----------------------------------------------------------------------------
// the run: one allocation, carved

static size_t run_layout(HfRun *r, char *base) {
    const HfConfig *c = r->cfg;
    size_t cap = (size_t)r->cap, dim = (size_t)c->dim, qd = (size_t)c->q_dim, kv = (size_t)c->kv_dim;
    size_t hid = (size_t)c->hidden_dim, layers = (size_t)c->n_layers, widest = (size_t)in_max(c);
    size_t kvpack =
        (size_t)c->n_kv_heads * (mat_packed_floats(c->head_dim, r->cap) + mat_packed_floats(r->cap, c->head_dim));
    size_t pack = mat_packed_floats((int)widest, r->cap);
    if (kvpack > pack) pack = kvpack;
    size_t attend = 2 * Q_BLOCK * cap + 2 * cap, product = tile_floats(r) + HF_W_BLOCK * widest;
    r->lane_floats = attend > product ? attend : product;
    size_t at = 0;
    int overflow = 0;
#define PIECE(ptr, count, elem)                                                                                        \
    do {                                                                                                               \
        size_t n_ = (count), e_ = (elem);                                                                              \
        if (n_ > (SIZE_MAX - at - ALIGN) / e_) overflow = 1;                                                           \
        else {                                                                                                         \
            if (base) (ptr) = (void *)(base + at);                                                                     \
            at += (n_ * e_ + ALIGN - 1) / ALIGN * ALIGN;                                                               \
        }                                                                                                              \
    } while (0)
    PIECE(r->rope, cap * (size_t)c->head_dim, sizeof(double));
    PIECE(r->resid, (layers + 1) * cap * dim, sizeof(float));
    PIECE(r->qcache, layers * cap * qd, sizeof(float));
    PIECE(r->kcache, layers * cap * kv, sizeof(float));
    PIECE(r->vcache, layers * cap * kv, sizeof(float));
    float **rows_dim[] = {&r->xb, &r->proj, &r->mid, &r->xb2, &r->ffn, &r->xf};
    for (size_t i = 0; i < sizeof rows_dim / sizeof *rows_dim; i++) PIECE(*rows_dim[i], cap * dim, sizeof(float));
    PIECE(r->q_raw, cap * qd, sizeof(float));
    PIECE(r->k_raw, cap * kv, sizeof(float));
    PIECE(r->att, cap * qd, sizeof(float));
    PIECE(r->hb, cap * hid, sizeof(float));
    PIECE(r->hb2, cap * hid, sizeof(float));
    PIECE(r->logits, (r->all_logits ? cap : 1) * (size_t)c->vocab, sizeof(float));
    PIECE(r->pack, pack, sizeof(float));
    PIECE(r->scratch, (size_t)r->lanes * r->lane_floats, sizeof(float));
    PIECE(r->kv_packed, 2 * (size_t)c->n_kv_heads, sizeof(MatPacked));
    PIECE(r->ids, cap, sizeof(int));
    PIECE(r->causal, 2 * cap, 1);
#undef PIECE
    return overflow ? 0 : at;
}

/* cos and sin of position p times rope_theta^(-2i/hs), HF's inv_freq. */
static void rope_table(double *rope, int cap, int hs, double theta) {
    for (int i = 0; i < hs / 2; i++) {
        double freq = pow(theta, -(2.0 * i) / hs);
        for (int p = 0; p < cap; p++) {
            rope[((size_t)p * hs / 2 + i) * 2] = cos(p * freq);
            rope[((size_t)p * hs / 2 + i) * 2 + 1] = sin(p * freq);
        }
    }
}

HfRun *hf_run_new(const HfModel *m, int cap, int all_logits, AvError *err) {
    if (cap < 1 || cap > m->cfg.max_pos)
        return av_errorf(err, _("%d tokens: the model takes 1 to %d (its context)"), cap, m->cfg.max_pos), NULL;
    HfRun *r = calloc(1, sizeof *r);
    if (!r) return av_error_nomem(err, _("out of memory for a run of %d tokens"), cap), NULL;
    r->m = m, r->cfg = &m->cfg, r->cap = cap, r->all_logits = all_logits ? 1 : 0;
    (void)mat_kernel_name(); /* the kernel chosen here, before the pool's tasks
                                ask for it (nn_path) */
    r->lanes = par_threads() < MAX_LANES ? par_threads() : MAX_LANES;
    if (r->lanes < 1) r->lanes = 1;
    r->bytes = run_layout(r, NULL);
    char *base = r->bytes ? calloc(1, r->bytes) : NULL;
    if (!base) {
        free(r);
        return av_error_nomem(err, _("out of memory for a run of %d tokens"), cap), NULL;
    }
    run_layout(r, base);
    memset(r->causal, 1, (size_t)cap);
    if (m->cfg.arch == HF_LLAMA) rope_table(r->rope, cap, m->cfg.head_dim, m->cfg.rope_theta);
    return r;
}

void hf_run_free(HfRun *r) {
    if (!r) return;
    free(r->rope); /* the start of the one allocation */
    free(r);
}
