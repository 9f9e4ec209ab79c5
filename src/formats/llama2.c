/* llama2.c - see llama2.h. The header is checked field by field, then the
 * exact size; one table lists the tensors in file order, from which both
 * the expected size and the engine's views come. */
#define _POSIX_C_SOURCE 200809L
#include "llama2.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "filemap.h"
#include "finite.h"
#include "i18n.h"
#include "formats.h"
#include "utf8.h"
#include "number.h"

// ----------------------------------------------------------------------------
// the header

static int32_t read_i32(const unsigned char *p) {
    uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    int32_t v;
    memcpy(&v, &u, sizeof v);
    return v;
}

static const struct {
    const char *name;
    int32_t max;
} header_fields[7] = {
    {"dim", LLAMA2_MAX_DIM},         {"hidden_dim", LLAMA2_MAX_HIDDEN}, {"n_layers", LLAMA2_MAX_LAYERS},
    {"n_heads", LLAMA2_MAX_HEADS},   {"n_kv_heads", LLAMA2_MAX_HEADS},  {"vocab_size", LLAMA2_MAX_VOCAB},
    {"seq_len", LLAMA2_MAX_SEQ_LEN},
};

/* Every field positive (vocab_size by its magnitude) and within its limit. */
static int check_fields(int32_t v[7], int *shared, const char *name, AvError *err) {
    *shared = v[5] > 0;
    for (int i = 0; i < 7; i++) {
        int32_t x = v[i];
        if (i == 5 && x < 0) {
            if (x < -LLAMA2_MAX_VOCAB)
                return av_errorf(err,
                                 _("%s: header field vocab_size is %d, beyond the limit of %d (negative: a separate "
                                   "classifier)"),
                                 name, (int)x, LLAMA2_MAX_VOCAB);
            x = v[i] = -x;
        }
        if (x < 1)
            return av_errorf(err, _("%s: header field %s is %d: it must be positive"), name, header_fields[i].name,
                             (int)x);
        if (x > header_fields[i].max)
            return av_errorf(err, _("%s: header field %s is %d, more than the limit of %d"), name,
                             header_fields[i].name, (int)x, (int)header_fields[i].max);
    }
    return 0;
}

/* Another kind of file given as a checkpoint (a text, a safetensors file, a
 * tokenizer): said as such rather than as its first odd field. A header with
 * two fields or more out of range is not a llama2.c header. */
static int check_kind(const unsigned char *buf, size_t size, const int32_t v[7], const char *name, AvError *err) {
    if (size >= 10 && buf[8] == '{' && buf[9] == '"')
        return av_errorf(err,
                         _("%s: not a llama2.c checkpoint (it looks like a safetensors file: give its folder, with "
                           "config.json, to --model)"),
                         name);
    int text = 1;
    for (int i = 0; i < LLAMA2_HEADER_BYTES && text; i++)
        text =
            (buf[i] >= 0x20 && buf[i] < 0x7F) || buf[i] == '\n' || buf[i] == '\r' || buf[i] == '\t' || buf[i] >= 0x80;
    if (text) {
        char start[16];
        int n = 0;
        for (int i = 0; i < 12 && buf[i] >= 0x20 && buf[i] < 0x7F; i++) start[n++] = (char)buf[i];
        start[n] = '\0';
        return av_errorf(err, _("%s: not a llama2.c checkpoint (it starts with text: \"%s...\")"), name, start);
    }
    int bad = 0;
    for (int i = 0; i < 7; i++) {
        int32_t x = i == 5 && v[i] < 0 && v[i] >= -LLAMA2_MAX_VOCAB ? -v[i] : v[i];
        bad += x < 1 || x > header_fields[i].max;
    }
    if (bad >= 2)
        return av_errorf(
            err,
            _("%s: not a llama2.c checkpoint (%d of the 7 header fields dim, hidden_dim, n_layers, n_heads, "
              "n_kv_heads, vocab_size, seq_len are out of range)"),
            name, bad);
    return 0;
}

static int check_shape(const Llama2Header *c, const char *name, AvError *err) {
    if (c->dim % c->n_heads)
        return av_errorf(err, _("%s: dim %d is not divisible by n_heads %d"), name, c->dim, c->n_heads);
    if (c->n_heads % c->n_kv_heads)
        return av_errorf(err, _("%s: n_heads %d is not a multiple of n_kv_heads %d"), name, c->n_heads, c->n_kv_heads);
    if ((c->dim / c->n_heads) % 2)
        return av_errorf(err, _("%s: the head size dim / n_heads = %d / %d = %d is odd (RoPE rotates pairs)"), name,
                         c->dim, c->n_heads, c->dim / c->n_heads);
    return 0;
}

// ----------------------------------------------------------------------------
// the tensors, in file order

enum { TENSORS = 15 };

/* The tensors of the file, in its order; the views of the used ones. */
enum { T_EMBED, T_RMS_ATT, T_WQ, T_WK, T_WV, T_WO, T_RMS_FFN, T_W1, T_W2, T_W3, T_RMS_FINAL, T_COS, T_SIN, T_CLS };

typedef struct {
    const char *name;
    uint64_t count; /* floats */
    int layers;     /* the count is this many equal layers (1: not per layer) */
    int used;       /* 0: rope_cos and rope_sin (RoPE is computed; not checked) */
    uint64_t rows;  /* the rows of the view: count / rows columns */
} Tensor;

/* a * b * c, or UINT64_MAX when that overflows. */
static uint64_t mul3(uint64_t a, uint64_t b, uint64_t c) {
    if (a && b > UINT64_MAX / a) return UINT64_MAX;
    uint64_t ab = a * b;
    if (ab && c > UINT64_MAX / ab) return UINT64_MAX;
    return ab * c;
}

/* The tensors of c in file order; returns how many (index T_*). */
static int tensor_table(Tensor *t, const Llama2Header *c) {
    uint64_t L = (uint64_t)c->n_layers, d = (uint64_t)c->dim, kv = (uint64_t)c->kv_dim, h = (uint64_t)c->hidden_dim;
    uint64_t v = (uint64_t)c->vocab_size, rope = mul3((uint64_t)c->seq_len, (uint64_t)c->head_size / 2, 1);
    int n = 0;
    t[n++] = (Tensor){"embed", mul3(v, d, 1), 1, 1, v};
    t[n++] = (Tensor){"rms_att", mul3(L, d, 1), c->n_layers, 1, L};
    t[n++] = (Tensor){"wq", mul3(L, d, d), c->n_layers, 1, L * d};
    t[n++] = (Tensor){"wk", mul3(L, kv, d), c->n_layers, 1, L * kv};
    t[n++] = (Tensor){"wv", mul3(L, kv, d), c->n_layers, 1, L * kv};
    t[n++] = (Tensor){"wo", mul3(L, d, d), c->n_layers, 1, L * d};
    t[n++] = (Tensor){"rms_ffn", mul3(L, d, 1), c->n_layers, 1, L};
    t[n++] = (Tensor){"w1", mul3(L, h, d), c->n_layers, 1, L * h};
    t[n++] = (Tensor){"w2", mul3(L, d, h), c->n_layers, 1, L * d};
    t[n++] = (Tensor){"w3", mul3(L, h, d), c->n_layers, 1, L * h};
    t[n++] = (Tensor){"rms_final", d, 1, 1, 1};
    t[n++] = (Tensor){"rope_cos", rope, 1, 0, 1};
    t[n++] = (Tensor){"rope_sin", rope, 1, 0, 1};
    if (!c->shared_classifier) t[n++] = (Tensor){"cls", mul3(v, d, 1), 1, 1, v};
    return n;
}

/* The bytes the header implies: the header and every tensor, or UINT64_MAX. */
static uint64_t expected_bytes(const Llama2Header *c) {
    Tensor t[TENSORS];
    int n = tensor_table(t, c);
    uint64_t total = LLAMA2_HEADER_BYTES;
    for (int i = 0; i < n; i++) {
        uint64_t b = mul3(t[i].count, sizeof(float), 1);
        if (b == UINT64_MAX || total > UINT64_MAX - b) return UINT64_MAX;
        total += b;
    }
    return total;
}

static void describe(char *buf, size_t cap, const Llama2Header *c) {
    snprintf(buf, cap,
             c->shared_classifier
                 ? _("dim %d, hidden_dim %d, %d %s, %d %s, %d kv %s, vocab %d, seq_len %d, tied classifier")
                 : _("dim %d, hidden_dim %d, %d %s, %d %s, %d kv %s, vocab %d, seq_len %d, separate "
                     "classifier"),
             c->dim, c->hidden_dim, c->n_layers, num_plural("layer", "layers", c->n_layers), c->n_heads,
             num_plural("head", "heads", c->n_heads), c->n_kv_heads, num_plural("head", "heads", c->n_kv_heads),
             c->vocab_size, c->seq_len);
}

static int header_safe(Llama2Header *cfg, const void *buf, size_t size, const char *name, AvError *err) {
    memset(cfg, 0, sizeof *cfg);
    if (size < LLAMA2_HEADER_BYTES)
        return av_errorf(err, _("%s: %zu bytes, too short for the %d-byte llama2.c header"), name, size,
                         LLAMA2_HEADER_BYTES);
    int32_t v[7];
    for (int i = 0; i < 7; i++) v[i] = read_i32((const unsigned char *)buf + 4 * i);
    Llama2Header c = {.dim = v[0]};
    if (check_kind(buf, size, v, name, err) || check_fields(v, &c.shared_classifier, name, err)) return -1;
    c.dim = v[0], c.hidden_dim = v[1], c.n_layers = v[2], c.n_heads = v[3], c.n_kv_heads = v[4];
    c.vocab_size = v[5], c.seq_len = v[6];
    if (check_shape(&c, name, err)) return -1;
    c.head_size = c.dim / c.n_heads;
    c.kv_dim = c.n_kv_heads * c.head_size;
    uint64_t want = expected_bytes(&c);
    if (want != (uint64_t)size) {
        char what[200];
        describe(what, sizeof what, &c);
        if (want == UINT64_MAX)
            return av_errorf(err, _("%s: the header (%s) implies more bytes than 2^64"), name, what);
        uint64_t diff = want > size ? want - size : (uint64_t)size - want;
        if (want > size)
            return av_errorf(err,
                             P_("%s: %zu bytes, but the header (%s) implies %llu (%llu byte too few: truncated?)",
                                "%s: %zu bytes, but the header (%s) implies %llu (%llu bytes too few: truncated?)",
                                diff),
                             name, size, what, (unsigned long long)want, (unsigned long long)diff);
        return av_errorf(err,
                         P_("%s: %zu bytes, but the header (%s) implies %llu (%llu byte too many)",
                            "%s: %zu bytes, but the header (%s) implies %llu (%llu bytes too many)", diff),
                         name, size, what, (unsigned long long)want, (unsigned long long)diff);
    }
    *cfg = c;
    return 0;
}

int llama2_read_header(Llama2Header *cfg, const void *buf, size_t size, const char *name, AvError *err) {
    char safe[200];
    utf8_escape_into(safe, sizeof safe, name ? name : _("(model)"));
    return header_safe(cfg, buf, size, safe, err);
}

// ----------------------------------------------------------------------------
// the weights

/* A view of each tensor (F32, in place), checking that each used one is
 * finite (finite.h: in parallel, a cancel request stops it). */
static int make_views(StTensor *views, const Llama2Header *c, const float *data, const char *name, AvError *err) {
    Tensor t[TENSORS];
    int n = tensor_table(t, c), used[TENSORS], nu = 0;
    FiniteArray a[TENSORS];
    uint64_t offset[TENSORS], at = 0;
    for (int i = 0; i < n; i++) {
        offset[i] = at;
        views[i] = (StTensor){.name = t[i].name,
                              .dtype = ST_F32,
                              .ndim = 2,
                              .shape = {t[i].rows, t[i].count / t[i].rows},
                              .count = t[i].count,
                              .data = (const unsigned char *)(data + at),
                              .bytes = t[i].count * sizeof(float),
                              .begin = at * sizeof(float)};
        if (t[i].used) {
            a[nu] = (FiniteArray){data + at, FINITE_F32, t[i].count};
            used[nu++] = i;
        }
        at += t[i].count;
    }
    uint64_t bad = 0;
    int k = finite_scan(a, nu, &bad);
    if (k == -2) return av_errorf(err, _("%s: opening cancelled"), name);
    if (k >= 0) {
        const Tensor *ti = &t[used[k]];
        char layer[32] = "";
        if (ti->layers > 1)
            /* TRANSLATORS: after "element N" (the element of which layer); %s in "element %llu%s (byte %llu)" */
            snprintf(layer, sizeof layer, _(" of layer %llu"),
                     (unsigned long long)(bad / (ti->count / (uint64_t)ti->layers)));
        return av_errorf(
            err, _("%s: tensor %s: element %llu%s (byte %llu) is %s"), name, ti->name, (unsigned long long)bad, layer,
            (unsigned long long)(LLAMA2_HEADER_BYTES + 4 * (offset[used[k]] + bad)), finite_kind(&a[k], bad));
    }
    return 0;
}

/* Layer l's part of a stacked tensor: (rows, cols) at row l * rows. */
static TfMat layer_mat(const StTensor *t, int l, int rows, int cols) {
    return (TfMat){.t = t, .off = (size_t)l * (size_t)rows * (size_t)cols, .ld = cols};
}

/* The engine's weights: views into the mapping, the norms read in place. */
static void bind_weights(TfModel *m, const Llama2Header *h) {
    const StTensor *v = m->views;
    int d = h->dim, kv = h->kv_dim, hid = h->hidden_dim;
    m->embed = &v[T_EMBED];
    m->cls = (TfMat){.t = h->shared_classifier ? &v[T_EMBED] : &v[T_CLS], .ld = d};
    m->normf_w = (const float *)(const void *)v[T_RMS_FINAL].data;
    for (int l = 0; l < h->n_layers; l++) {
        TfLayer *L = &m->layers[l];
        L->norm1_w = (const float *)(const void *)v[T_RMS_ATT].data + (size_t)l * d;
        L->norm2_w = (const float *)(const void *)v[T_RMS_FFN].data + (size_t)l * d;
        L->wq = layer_mat(&v[T_WQ], l, d, d), L->wk = layer_mat(&v[T_WK], l, kv, d);
        L->wv = layer_mat(&v[T_WV], l, kv, d), L->wo = layer_mat(&v[T_WO], l, d, d);
        L->w_fc = layer_mat(&v[T_W1], l, hid, d), L->w_up = layer_mat(&v[T_W3], l, hid, d);
        L->w_down = layer_mat(&v[T_W2], l, d, hid);
    }
}

/* The numbers of the row "llama2.c" from the header. */
static void header_config(TfConfig *c, const Llama2Header *h) {
    const TfArch *row = tf_arch_named("llama2.c");
    *c = (TfConfig){.arch = row,
                    .dim = h->dim,
                    .hidden_dim = h->hidden_dim,
                    .n_layers = h->n_layers,
                    .n_heads = h->n_heads,
                    .n_kv_heads = h->n_kv_heads,
                    .head_dim = h->head_size,
                    .q_dim = h->dim,
                    .kv_dim = h->kv_dim,
                    .vocab = h->vocab_size,
                    .max_pos = h->seq_len,
                    .eps = row->eps,
                    .rope_theta = row->rope_theta,
                    .tied = h->shared_classifier};
    snprintf(c->model_type, sizeof c->model_type, "%s", row->name);
}

static TfModel *open_buffer(const void *buf, size_t size, const char *safe, AvError *err) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    (void)buf, (void)size;
    return av_errorf(err, _("%s: llama2.c checkpoints are little-endian; this machine is big-endian"), safe), NULL;
#else
    Llama2Header h;
    if (header_safe(&h, buf, size, safe, err)) return NULL;
    if ((uintptr_t)buf % sizeof(float))
        return av_errorf(err, _("%s: the buffer is not aligned for float32"), safe), NULL;
    TfModel *m = calloc(1, sizeof *m);
    if (m) m->layers = calloc((size_t)h.n_layers, sizeof *m->layers);
    if (m) m->views = calloc(TENSORS, sizeof *m->views);
    if (!m || !m->layers || !m->views) {
        tf_close(m);
        return av_error_nomem(err, _("%s: out of memory"), safe), NULL;
    }
    m->heap = sizeof *m + sizeof *m->layers * (size_t)h.n_layers + sizeof *m->views * TENSORS;
    header_config(&m->cfg, &h);
    if (make_views(m->views, &h, (const float *)buf + LLAMA2_HEADER_BYTES / sizeof(float), safe, err)) {
        tf_close(m);
        return NULL;
    }
    bind_weights(m, &h);
    return m;
#endif
}

TfModel *llama2_open_mem(const void *buf, size_t size, const char *name, AvError *err) {
    char safe[200];
    utf8_escape_into(safe, sizeof safe, name ? name : "(model)");
    return open_buffer(buf, size, safe, err);
}

static void close_mapping(TfModel *m) { filemap_close(m->file, m->file_len); }

TfModel *llama2_open(const char *path, AvError *err) {
    char what[64];
    snprintf(what, sizeof what, _("the %d-byte llama2.c header"), LLAMA2_HEADER_BYTES);

    size_t size = 0;
    const void *map = filemap_open(path, LLAMA2_HEADER_BYTES, what, &size, err);
    if (!map) return NULL;
    TfModel *m = llama2_open_mem(map, size, path, err);
    if (!m) {
        filemap_close(map, size);
        return NULL;
    }
    m->file = (void *)(uintptr_t)map, m->file_len = size, m->close_file = close_mapping;
    return m;
}

// ----------------------------------------------------------------------------
// the checkpoint: the model, its tokenizer, its title and numbers

static int is_file(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The vocabulary beside the model: tokenizer.bin, then tok<V>.bin. */
static int default_vocab(char *out, size_t cap, const char *model_path, int vocab_size) {
    const char *slash = strrchr(model_path, '/');
    int dir = slash ? (int)(slash - model_path + 1) : 0;
    snprintf(out, cap, "%.*stokenizer.bin", dir, model_path);
    if (is_file(out)) return 0;
    snprintf(out, cap, "%.*stok%d.bin", dir, model_path, vocab_size);
    return is_file(out) ? 0 : -1;
}

/* The header's fields, as llama2.c names them (the JSON dump's "model"). */
static int header_facts(SourceFact *out, const TfConfig *c) {
    const SourceFact f[] = {{"dim", c->dim},          {"hidden_dim", c->hidden_dim}, {"n_layers", c->n_layers},
                            {"n_heads", c->n_heads},  {"n_kv_heads", c->n_kv_heads}, {"head_size", c->head_dim},
                            {"vocab_size", c->vocab}, {"seq_len", c->max_pos},       {"shared_classifier", c->tied}};
    memcpy(out, f, sizeof f);
    return (int)(sizeof f / sizeof *f);
}

int llama2_checkpoint_open(Checkpoint *out, const char *path, const char *vocab_path, AvError *err) {
    memset(out, 0, sizeof *out);
    if (!(out->model = llama2_open(path, err))) return -1;
    int v = out->model->cfg.vocab;
    char vb[4096];
    if (!vocab_path) {
        if (default_vocab(vb, sizeof vb, path, v)) {
            checkpoint_close(out);
            return av_errorf(err, _("%s: no vocabulary beside it (tokenizer.bin or tok%d.bin): give --vocab FILE"),
                             path, v);
        }
        vocab_path = vb;
    }
    if (!(out->vocab = vocab_open_file(vocab_path, err))) {
        checkpoint_close(out);
        return -1;
    }
    if (vocab_size(out->vocab) != v) {
        int n = vocab_size(out->vocab);
        checkpoint_close(out);
        return av_errorf(err, "%s: %d %s, but %s has a vocabulary of %d", vocab_path, n,
                         num_plural("piece", "pieces", n), path, v);
    }
    /* The title: the file's name without ".bin", escaped (it is printed:
     * the status line, the dumps, messages). */
    const char *base = strrchr(path, '/');
    char name[sizeof out->title];
    snprintf(name, sizeof name, "%s", base ? base + 1 : path);
    char *dot = strrchr(name, '.');
    if (dot && strcmp(dot, ".bin") == 0) *dot = '\0';
    utf8_escape_into(out->title, sizeof out->title, name);
    out->n_facts = header_facts(out->facts, &out->model->cfg);
    return 0;
}
