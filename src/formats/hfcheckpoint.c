/* hfcheckpoint.c - see hfcheckpoint.h. config.json is read with cJSON
 * into the numbers and the row of the architecture table; the tensors,
 * through safetensors.h's folder reader, are bound to the engine's weights
 * by the row's names (GPT-2's or Llama's), checked against the shapes the
 * config implies, and scanned for non-finite values. */
#include "i18n.h"
#include "hfcheckpoint.h"

#include <cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "finite.h"
#include "formats.h"
#include "jsonkeys.h"
#include "number.h"
#include "readfile.h"
#include "safetensors.h"
#include "utf8.h"

enum { NAME_MAX_ = 160 }; /* a tensor name we build */

#define CONFIG_MAX ((size_t)1 << 20)

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
    char shown[64] = "(not a string)", known[128] = "";
    if (cJSON_IsString(v)) utf8_escape_into(shown, sizeof shown, v->valuestring);
    for (int i = 0; ok[i]; i++)
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "", ok[i]);
    return av_errorf(c->err, _("%s: \"%s\" %s is not supported (%s)"), c->path, key, shown, known);
}

/* A number `key` in lo..hi that must be there. */
static int cfg_need_num(Cfg *c, const char *key, double lo, double hi, double *out) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(c->root, key);
    if (!v || cJSON_IsNull(v)) return av_errorf(c->err, _("%s: \"%s\" is missing"), c->path, key);
    return cfg_num(c, key, 0.0, lo, hi, out);
}

/* RoPE's scaling: config.json's rope_scaling (transformers 5 writes
 * rope_parameters, which holds rope_theta too), as Hugging Face's
 * modeling_rope_utils.py reads it: the type under "rope_type" (or "type",
 * older files); "default" is none; "linear" and "llama3" with the keys
 * they require; any other type is refused naming it. */
static int cfg_rope(Cfg *c, TfConfig *h) {
    static const char *const kinds[] = {"default", "linear", "llama3", NULL};
    const char *key = "rope_parameters";
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(c->root, key);
    if (!o || cJSON_IsNull(o)) key = "rope_scaling", o = cJSON_GetObjectItemCaseSensitive(c->root, key);
    h->rope_scaling = (RopeScaling){.kind = ROPE_SCALE_NONE};
    if (!o || cJSON_IsNull(o)) return 0;
    if (!cJSON_IsObject(o)) return av_errorf(c->err, _("%s: \"%s\" must be an object or null"), c->path, key);
    char path[1200];
    snprintf(path, sizeof path, "%s: \"%s\"", c->path, key);
    Cfg s = {.root = o, .path = path, .err = c->err};
    const char *tk = cJSON_GetObjectItemCaseSensitive(o, "rope_type") ? "rope_type" : "type";
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, tk);
    int v5 = strcmp(key, "rope_parameters") == 0; /* its type defaults to "default" */
    if ((!t || cJSON_IsNull(t)) && !v5) return av_errorf(c->err, _("%s: \"rope_type\" is missing"), path);
    if (cfg_choice(&s, tk, kinds)) return -1;
    if (v5 && cfg_num(&s, "rope_theta", h->rope_theta, 1.0, 1e12, &h->rope_theta)) return -1;
    RopeScaling *r = &h->rope_scaling;
    if (!t || cJSON_IsNull(t) || strcmp(t->valuestring, "default") == 0) return 0;
    if (cfg_need_num(&s, "factor", 1.0, 1e6, &r->factor)) return -1;
    if (strcmp(t->valuestring, "linear") == 0) {
        r->kind = ROPE_SCALE_LINEAR;
        return 0;
    }
    double orig;
    r->kind = ROPE_SCALE_LLAMA3;
    if (cfg_need_num(&s, "low_freq_factor", 1e-6, 1e6, &r->low_freq_factor) ||
        cfg_need_num(&s, "high_freq_factor", 1e-6, 1e6, &r->high_freq_factor) ||
        cfg_need_num(&s, "original_max_position_embeddings", 1.0, 1 << 24, &orig))
        return -1;
    if (orig != floor(orig))
        return av_errorf(c->err, _("%s: \"original_max_position_embeddings\" must be an integer"), path);
    if (!(r->high_freq_factor > r->low_freq_factor))
        return av_errorf(c->err, _("%s: \"high_freq_factor\" %g must be greater than \"low_freq_factor\" %g"), path,
                         r->high_freq_factor, r->low_freq_factor);
    r->original_max_pos = (int)orig;
    return 0;
}

/* The row of config.json's model_type (or else its architectures[0]). */
static int cfg_arch(Cfg *c, TfConfig *hc) {
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(c->root, "model_type");
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(c->root, "architectures");
    const char *name = NULL;
    int by_type = 0;
    if (cJSON_IsString(t)) name = t->valuestring, by_type = 1;
    else if (cJSON_IsArray(a) && cJSON_IsString(cJSON_GetArrayItem(a, 0))) name = cJSON_GetArrayItem(a, 0)->valuestring;
    if (!name) return av_errorf(c->err, _("%s: neither \"model_type\" nor \"architectures\" names the model"), c->path);
    const TfArch *row = by_type ? tf_arch_named(name) : tf_arch_of_class(name);
    if (row && row->names != TF_NAMES_NONE) {
        hc->arch = row;
        snprintf(hc->model_type, sizeof hc->model_type, "%s", row->name);
        return 0;
    }
    char shown[64], known[128];
    utf8_escape_into(shown, sizeof shown, name);
    tf_arch_hf_names(known, sizeof known);
    return av_errorf(c->err, _("%s: %s \"%s\" is not supported (%s)"), c->path, by_type ? "model_type" : "architecture",
                     shown, known);
}

static int cfg_gpt2(Cfg *c, TfConfig *h) {
    static const char *const gelu[] = {"gelu_new", "gelu_pytorch_tanh", NULL};
    int inner, scale_by_layer = 0, reorder = 0, scale = 1;
    if (cfg_int(c, "n_embd", -1, 1, 1 << 16, &h->dim) || cfg_int(c, "n_layer", -1, 1, 1024, &h->n_layers) ||
        cfg_int(c, "n_head", -1, 1, h->dim, &h->n_heads) || cfg_int(c, "vocab_size", -1, 1, 1 << 24, &h->vocab) ||
        cfg_int(c, "n_positions", 1024, 1, 1 << 20, &h->max_pos) || cfg_int(c, "n_inner", 0, 0, 1 << 18, &inner) ||
        cfg_num(c, "layer_norm_epsilon", h->arch->eps, 0.0, 1.0, &h->eps) ||
        cfg_choice(c, "activation_function", gelu) || cfg_bool(c, "scale_attn_weights", 1, &scale) ||
        cfg_bool(c, "scale_attn_by_inverse_layer_idx", 0, &scale_by_layer) ||
        cfg_bool(c, "reorder_and_upcast_attn", 0, &reorder))
        return -1;
    if (!scale || scale_by_layer)
        return av_errorf(c->err, _("%s: only GPT-2's attention scaled by 1/sqrt(head_dim) is supported"), c->path);
    if (h->dim % h->n_heads)
        return av_errorf(c->err, _("%s: n_embd %d is not a multiple of n_head %d"), c->path, h->dim, h->n_heads);
    h->hidden_dim = inner ? inner : 4 * h->dim;
    h->n_kv_heads = h->n_heads, h->head_dim = h->dim / h->n_heads;
    h->tied = 1, h->qkv_bias = h->arch->qkv_bias, h->o_bias = h->arch->o_bias, h->rope_theta = 0.0;
    return 0;
}

static int cfg_llama(Cfg *c, TfConfig *h) {
    static const char *const silu[] = {"silu", NULL};
    int attn_bias = 0, mlp_bias = 0, window = 0;
    int use_window = h->arch->window; /* Qwen2Config's default is false, Mistral's window applies */
    if (cfg_int(c, "hidden_size", -1, 1, 1 << 16, &h->dim) ||
        cfg_int(c, "intermediate_size", -1, 1, 1 << 18, &h->hidden_dim) ||
        cfg_int(c, "num_hidden_layers", -1, 1, 1024, &h->n_layers) ||
        cfg_int(c, "num_attention_heads", -1, 1, h->dim, &h->n_heads) ||
        cfg_int(c, "num_key_value_heads", h->n_heads, 1, h->n_heads, &h->n_kv_heads) ||
        cfg_int(c, "head_dim", h->arch->head_dim ? h->arch->head_dim : h->dim / h->n_heads, 2, 1 << 12, &h->head_dim) ||
        cfg_int(c, "vocab_size", -1, 1, 1 << 24, &h->vocab) ||
        cfg_int(c, "max_position_embeddings", 2048, 1, 1 << 20, &h->max_pos) ||
        cfg_num(c, "rms_norm_eps", h->arch->eps, 0.0, 1.0, &h->eps) ||
        cfg_num(c, "rope_theta", h->arch->rope_theta, 1.0, 1e12, &h->rope_theta) ||
        cfg_bool(c, "tie_word_embeddings", 0, &h->tied) || cfg_bool(c, "attention_bias", 0, &attn_bias) ||
        cfg_bool(c, "mlp_bias", 0, &mlp_bias) || cfg_choice(c, "hidden_act", silu) ||
        cfg_int(c, "sliding_window", 0, 0, 1 << 24, &window) ||
        cfg_bool(c, "use_sliding_window", use_window, &use_window) || cfg_rope(c, h))
        return -1;
    if (mlp_bias) return av_errorf(c->err, _("%s: \"mlp_bias\" true is not supported"), c->path);
    if (h->n_heads % h->n_kv_heads)
        return av_errorf(c->err,
                         _("%s: num_attention_heads %d is not a multiple of "
                           "num_key_value_heads %d"),
                         c->path, h->n_heads, h->n_kv_heads);
    if (h->head_dim % 2) return av_errorf(c->err, _("%s: head_dim %d is odd (RoPE turns pairs)"), c->path, h->head_dim);
    /* the row's biases (Qwen2's q, k, v); attention_bias adds o's too */
    h->qkv_bias = attn_bias || h->arch->qkv_bias;
    h->o_bias = attn_bias || h->arch->o_bias;
    /* a window at least the run's length changes nothing: runs stay within it */
    if (window > 0 && use_window && window < h->max_pos) h->max_pos = window;
    return 0;
}

int hf_config_parse(TfConfig *h, const char *json, size_t len, const char *name, AvError *err) {
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
    else if (!cfg_arch(&c, h)) rc = h->arch->names == TF_NAMES_GPT2 ? cfg_gpt2(&c, h) : cfg_llama(&c, h);
    if (!rc) {
        h->q_dim = h->n_heads * h->head_dim;
        h->kv_dim = h->n_kv_heads * h->head_dim;
    }
    cJSON_Delete(root);
    return rc;
}

static int read_config(const char *dir, TfConfig *h, AvError *err) {
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
    TfModel *m;
    const StModel *st;
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
    const StTensor *t = st_model_find(b->st, full);
    if (!t) {
        av_errorf(b->err, _("%s/%s: tensor %s is missing (%s with %d %s needs it)"), b->dir,
                  st_model_files(b->st) > 1 ? "model.safetensors.index.json" : "model.safetensors", full,
                  b->m->cfg.model_type, b->m->cfg.n_layers, num_plural("layer", "layers", b->m->cfg.n_layers));
        return NULL;
    }
    if (!st_is_float(t->dtype)) {
        av_errorf(b->err, _("%s/%s: tensor %s: dtype %s, but weights are read as F32, F16 or BF16"), b->dir,
                  st_model_file_of(b->st, full), full, st_dtype_name(t->dtype));
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
                  st_model_file_of(b->st, full), full, got, exp);
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
        if (t->ndim == 2)
            snprintf(where, sizeof where, " (row %llu, column %llu)", (unsigned long long)(at / t->shape[1]),
                     (unsigned long long)(at % t->shape[1]));
        rc = av_errorf(b->err, _("%s/%s: tensor %s: element %llu%s is %s; weights must be finite"), b->dir,
                       st_model_file_of(b->st, t->name), t->name, (unsigned long long)at, where,
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
static int bind_linear(Bind *b, const char *name, int n_out, int n_in, TfMat *w) {
    const StTensor *t = bind_tensor(b, name, 2, (uint64_t)n_out, (uint64_t)n_in);
    if (!t) return -1;
    *w = (TfMat){.t = t, .off = 0, .ld = n_in, .transposed = 0};
    return 0;
}

/* Conv1D: stored (n_in, total_out); the matrix is columns [col, col + n_out).
 */
static int bind_conv1d(Bind *b, const char *name, int n_in, int total_out, int col, TfMat *w) {
    const StTensor *t = bind_tensor(b, name, 2, (uint64_t)n_in, (uint64_t)total_out);
    if (!t) return -1;
    *w = (TfMat){.t = t, .off = (size_t)col, .ld = total_out, .transposed = 1};
    return 0;
}

static int bind_gpt2(Bind *b) {
    TfModel *m = b->m;
    const TfConfig *c = &m->cfg;
    int d = c->dim, hid = c->hidden_dim;
    b->prefix = st_model_find(b->st, "transformer.wte.weight") ? "transformer." : "";
    if (!(m->embed = bind_tensor(b, "wte.weight", 2, (uint64_t)c->vocab, (uint64_t)d)) ||
        !(m->wpe = bind_tensor(b, "wpe.weight", 2, (uint64_t)c->max_pos, (uint64_t)d)) ||
        bind_vec(b, "ln_f.weight", d, &m->normf_w) || bind_vec(b, "ln_f.bias", d, &m->normf_b))
        return -1;
    m->cls = (TfMat){.t = m->embed, .ld = d};
    for (int l = 0; l < c->n_layers; l++) {
        TfLayer *L = &m->layers[l];
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
    TfModel *m = b->m;
    const TfConfig *c = &m->cfg;
    int d = c->dim, hid = c->hidden_dim, qd = c->q_dim, kvd = c->kv_dim;
    b->prefix = "";
    if (!(m->embed = bind_tensor(b, "model.embed_tokens.weight", 2, (uint64_t)c->vocab, (uint64_t)d)) ||
        bind_vec(b, "model.norm.weight", d, &m->normf_w))
        return -1;
    m->normf_b = NULL;
    if (c->tied) m->cls = (TfMat){.t = m->embed, .ld = d};
    else if (bind_linear(b, "lm_head.weight", c->vocab, d, &m->cls)) return -1;
    for (int l = 0; l < c->n_layers; l++) {
        TfLayer *L = &m->layers[l];
        char n[16][NAME_MAX_];
        const char *parts[] = {"input_layernorm.weight",  "self_attn.q_proj.weight", "self_attn.k_proj.weight",
                               "self_attn.v_proj.weight", "self_attn.o_proj.weight", "post_attention_layernorm.weight",
                               "mlp.gate_proj.weight",    "mlp.up_proj.weight",      "mlp.down_proj.weight",
                               "self_attn.q_proj.bias",   "self_attn.k_proj.bias",   "self_attn.v_proj.bias",
                               "self_attn.o_proj.bias",   "self_attn.q_norm.weight", "self_attn.k_norm.weight"};
        for (int i = 0; i < 15; i++) snprintf(n[i], sizeof n[i], "model.layers.%d.%s", l, parts[i]);
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
        if (c->arch->qk_norm &&
            (bind_vec(b, n[13], c->head_dim, &L->q_norm) || bind_vec(b, n[14], c->head_dim, &L->k_norm)))
            return -1;
    }
    return 0;
}

static void close_folder(TfModel *m) { st_model_close(m->file); }

TfModel *hf_open(const char *dir, AvError *err) {
    char *shown = utf8_escape(dir, strlen(dir));
    TfModel *m = calloc(1, sizeof *m);
    if (!shown || !m) {
        free(shown), free(m);
        return av_error_nomem(err, _("out of memory opening %s"), dir), NULL;
    }
    Bind b = {.m = m, .dir = shown, .err = err};
    if (read_config(dir, &m->cfg, err) || !(m->file = st_open_dir(dir, err))) goto fail;
    m->close_file = close_folder;
    b.st = m->file;
    m->layers = calloc((size_t)m->cfg.n_layers, sizeof *m->layers);
    if (!m->layers) {
        av_error_nomem(err, _("out of memory for %d layers"), m->cfg.n_layers);
        goto fail;
    }
    /* pass 1 checks and counts the vector floats, pass 2 converts them and
     * lists the tensors, whose every element must then be finite */
    if ((m->cfg.arch->names == TF_NAMES_GPT2 ? bind_gpt2(&b) : bind_llama(&b))) goto fail;
    if (!(m->vecs = malloc(sizeof(float) * (b.nvec ? b.nvec : 1)))) {
        av_error_nomem(err, _("out of memory for %zu norm and bias floats"), b.nvec);
        goto fail;
    }
    m->heap = sizeof *m + sizeof *m->layers * (size_t)m->cfg.n_layers + sizeof(float) * b.nvec;
    b.vecs = m->vecs, b.nvec = 0;
    if ((m->cfg.arch->names == TF_NAMES_GPT2 ? bind_gpt2(&b) : bind_llama(&b)) || scan_weights(&b)) goto fail;
    free(b.used);
    free(shown);
    return m;
fail:
    free(b.used);
    free(shown);
    tf_close(m);
    return NULL;
}

// ----------------------------------------------------------------------------
// the checkpoint: the model, its tokenizer, its title and numbers

static int is_dir(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* There, whatever it is (a directory or a FIFO named tokenizer.json is said
 * as such by the reader, not called missing). */
static int exists(const char *path) {
    struct stat st;
    return lstat(path, &st) == 0;
}

/* The folder of a --model: the path itself, or the folder of a
 * model.safetensors, index or config.json in it. */
static void folder_of(const char *path, char *out, size_t cap) {
    if (is_dir(path)) {
        snprintf(out, cap, "%s", path);
        return;
    }
    const char *slash = strrchr(path, '/');
    if (!slash) snprintf(out, cap, ".");
    else if (slash == path) snprintf(out, cap, "/");
    else snprintf(out, cap, "%.*s", (int)(slash - path), path);
}

static Vocab *vocab_or_nomem(HfTok *t, AvError *err) {
    Vocab *v = t ? vocab_of_hftok(t) : NULL;
    if (t && !v) av_error_nomem(err, _("out of memory"));
    return v;
}

Vocab *hf_tokenizer_open(const char *path, AvError *err) {
    size_t n = strlen(path);
    if (n >= 10 && strcmp(path + n - 10, "vocab.json") == 0) {
        const char *slash = strrchr(path, '/');
        int k = slash ? (int)(slash - path + 1) : 0;
        char merges[4096];
        snprintf(merges, sizeof merges, "%.*smerges.txt", k, path);
        return vocab_or_nomem(hftok_open_gpt2(path, merges, err), err);
    }
    return vocab_or_nomem(hftok_open(path, err), err);
}

/* The tokenizer: --vocab (any tokenizer file, formats.h), else
 * tokenizer.json in the folder, else GPT-2's vocab.json and merges.txt. */
static Vocab *open_tokenizer(const char *dir, const char *vocab_path, AvError *err) {
    char a[4096], b[4096];
    if (vocab_path) return vocab_open_file(vocab_path, err);
    snprintf(a, sizeof a, "%s/tokenizer.json", dir);
    if (exists(a)) return vocab_or_nomem(hftok_open(a, err), err);
    snprintf(a, sizeof a, "%s/vocab.json", dir);
    snprintf(b, sizeof b, "%s/merges.txt", dir);
    if (exists(a) && exists(b)) return vocab_or_nomem(hftok_open_gpt2(a, b, err), err);
    char *e = utf8_escape(dir, strlen(dir));
    av_errorf(err, _("%s: no tokenizer: tokenizer.json (or vocab.json and merges.txt) is missing; give --vocab FILE"),
              e ? e : _("the model's folder"));
    free(e);
    return NULL;
}

/* config.json's numbers, by the names of the llama2.c header where they
 * mean the same (the JSON dump's "model"). */
static int config_facts(SourceFact *out, const TfConfig *c) {
    const SourceFact f[] = {{"dim", c->dim},          {"hidden_dim", c->hidden_dim}, {"n_layers", c->n_layers},
                            {"n_heads", c->n_heads},  {"n_kv_heads", c->n_kv_heads}, {"head_size", c->head_dim},
                            {"vocab_size", c->vocab}, {"seq_len", c->max_pos},       {"shared_classifier", c->tied},
                            {"qkv_bias", c->qkv_bias}};
    int n = (int)(sizeof f / sizeof *f);
    memcpy(out, f, sizeof f);
    return n;
}

int hf_checkpoint_open(Checkpoint *out, const char *path, const char *vocab_path, AvError *err) {
    char dir[4096];
    folder_of(path, dir, sizeof dir);
    memset(out, 0, sizeof *out);
    if (!(out->model = hf_open(dir, err)) || !(out->vocab = open_tokenizer(dir, vocab_path, err))) {
        checkpoint_close(out);
        return -1;
    }
    /* The title: the folder's name ("gpt2", "SmolLM2-135M"), escaped (it
     * is printed: the status line, the dumps, messages). */
    size_t dl = strlen(dir);
    while (dl > 1 && dir[dl - 1] == '/') dir[--dl] = '\0';
    const char *base = strrchr(dir, '/');
    utf8_escape_into(out->title, sizeof out->title, base && base[1] ? base + 1 : dir);
    if (strcmp(out->title, ".") == 0) utf8_escape_into(out->title, sizeof out->title, out->model->cfg.model_type);
    out->n_facts = config_facts(out->facts, &out->model->cfg);
    return 0;
}
