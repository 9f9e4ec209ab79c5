/* transformer.c - see transformer.h: the layers (norms, RoPE, attention,
 * MLP, residuals) over a range of rows [r0, r0 + rows) (the whole sequence,
 * the rows an edit changed, or the rows a KV-cached step appends), their
 * products in transformer_linear.c; the steps below only wire the run's
 * pointers. What differs between architectures is a field of the row
 * (arch.h) read here, never a code path per family. */
#include "i18n.h"
#include "transformer.h"

#include "nnops.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cancel.h"
#include "number.h"
#include "parallel.h"
#include "rowops.h"
#include "transformer_internal.h"

enum {
    Q_BLOCK = 16,   /* query rows per task of the attention */
    MAX_LANES = 16, /* scratch sets, at most */
    ALIGN = 64      /* bytes between the starts of a run's arrays */
};

// ----------------------------------------------------------------------------
// the blocks, on explicit arrays (double inside, rounded once, saturating)

/* RoPE: in each head of rows [r0, r0 + rows) of x (ld width), pair p
 * turned by the row's angle of p: elements (2p, 2p + 1) (ROPE_PAIRS,
 * llama2.c) or (p, p + hs/2) (ROPE_HALF, Hugging Face's rotate-half).
 * rope (cap, hs / 2, 2): cos, sin. */
static void rope_forward(float *x, const double *rope, int r0, int rows, int width, int hs, RopeLayout layout) {
    int half = hs / 2, stride = layout == ROPE_HALF ? 1 : 2, other = layout == ROPE_HALF ? half : 1;
    for (int p = r0; p < r0 + rows; p++) {
        float *row = x + (size_t)p * width;
        const double *cs = rope + (size_t)p * hs;
        for (int h0 = 0; h0 < width; h0 += hs)
            for (int i = 0; i < half; i++) {
                int ia = h0 + i * stride, ib = ia + other;
                double a = row[ia], b = row[ib], c = cs[2 * i], s = cs[2 * i + 1];
                row[ia] = nn_sat(a * c - b * s);
                row[ib] = nn_sat(b * c + a * s);
            }
    }
}

/* A norm over rows [r0, r0 + rows), NORM_ROWS rows a task. */
typedef struct {
    const TfRun *r;
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
static void norm_rows(const TfRun *r, float *out, const float *x, const float *w, const float *b, int r0, int rows,
                      int n) {
    NormJob j = {.r = r, .r0 = r0, .rows = rows, .out = out, .x = x, .w = w, .b = b, .n = n};
    par_for_work((rows + NORM_ROWS - 1) / NORM_ROWS, norm_task, &j, 8.0 * rows * n);
}

// ----------------------------------------------------------------------------
// attention: query rows [r0, r0 + rows) over keys [0, r0 + rows), causal

typedef struct {
    TfRun *r;
    int l, r0, rows, nk;
    MatPacked *kt, *vp; /* per key/value head: K^T (hs, nk) and V (nk, hs) */
    int items;
    atomic_int next; /* as Linear's */
} Attend;

static void attend_pack_task(void *ctx, int g) {
    Attend *j = ctx;
    const TfConfig *c = j->r->cfg;
    int hs = c->head_dim;
    size_t kf = mat_packed_floats(hs, j->r->cap), vf = mat_packed_floats(j->r->cap, hs);
    float *buf = j->r->pack + (size_t)g * (kf + vf);
    mat_pack_into(&j->kt[g], buf, tf_run_k(j->r, j->l) + (size_t)g * hs, c->kv_dim, hs, j->nk, 1);
    mat_pack_into(&j->vp[g], buf + kf, tf_run_v(j->r, j->l) + (size_t)g * hs, c->kv_dim, j->nk, hs, 0);
}

static void attend_block(Attend *j, float *scratch, int h, int i0, int qrows) {
    TfRun *r = j->r;
    const TfConfig *c = r->cfg;
    int hs = c->head_dim, nk = j->nk, g = h / (c->n_heads / c->n_kv_heads);
    float *scores = scratch, *weights = scores + (size_t)Q_BLOCK * r->cap;
    float *scaled = weights + (size_t)Q_BLOCK * r->cap, *masked = scaled + r->cap;
    const float *q = tf_run_q(r, j->l);
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

static void attend_rows(TfRun *r, int l, int r0, int rows) {
    const TfConfig *c = r->cfg;
    Attend j = {.r = r, .l = l, .r0 = r0, .rows = rows, .nk = r0 + rows};
    j.kt = r->kv_packed, j.vp = r->kv_packed + c->n_kv_heads;
    par_for_work(c->n_kv_heads, attend_pack_task, &j, 4.0 * c->kv_dim * j.nk);
    j.items = c->n_heads * ((rows + Q_BLOCK - 1) / Q_BLOCK);
    atomic_init(&j.next, 0);
    double cells = (double)c->n_heads * rows * j.nk; /* about half of them causal */
    par_for_work(r->lanes < j.items ? r->lanes : j.items, attend_task, &j, cells * (2.0 * c->head_dim + 20));
    if (r->n_ablate) tf_ablate_rows(r, l, r->att, r0, rows);
}

void tf_ablate_rows(const TfRun *r, int l, float *att, int r0, int rows) {
    int hs = r->cfg->head_dim;
    for (int k = 0; k < r->n_ablate; k++) {
        const TfAblation *a = &r->ablate[k];
        if (a->layer != l || a->head < 0 || a->head >= r->cfg->n_heads) continue;
        for (int i = r0; i < r0 + rows; i++) {
            float *o = att + (size_t)i * r->cfg->q_dim + (size_t)a->head * hs;
            if (a->mean) memcpy(o, a->mean, sizeof(float) * (size_t)hs);
            else memset(o, 0, sizeof(float) * (size_t)hs);
        }
    }
}

// ----------------------------------------------------------------------------
// one layer, and the logits, over rows [r0, r0 + rows)

/* x of layer 0: the token's row of the embedding (times the row's
 * embed_scale), plus the position's learned row. */
static void embed_rows(TfRun *r, int r0, int rows) {
    const TfModel *m = r->m;
    size_t dim = (size_t)r->cfg->dim;
    double scale = r->cfg->arch->embed_scale;
    for (int i = r0; i < r0 + rows; i++) {
        float *x = tf_run_x(r, 0) + (size_t)i * dim;
        tf_to_f32(m->embed, (size_t)r->ids[i] * dim, dim, x);
        if (scale != 1.0)
            for (size_t j = 0; j < dim; j++) x[j] = nn_sat(x[j] * scale);
        if (m->wpe) {
            float *pos = r->xb + (size_t)i * dim; /* free until the first layer */
            tf_to_f32(m->wpe, (size_t)i * dim, dim, pos);
            nn_residual(x, x, pos, dim);
        }
    }
}

/* The q/k norm (Qwen3): each head of rows [r0, r0 + rows) of raw (ld
 * width) RMSNorm'ed with the gains g (hs) into out, kept in normed. */
static void head_norm_rows(float *out, float *normed, const float *raw, const float *g, double eps, int r0, int rows,
                           int width, int hs) {
    size_t at = (size_t)r0 * width, count = (size_t)rows * width;
    for (size_t e = at; e < at + count; e += (size_t)hs) nn_norm_row(out + e, raw + e, g, NULL, eps, hs);
    memcpy(normed + at, out + at, sizeof(float) * count);
}

/* q and k of rows [r0, r0 + rows) of layer l on their way to the scores:
 * kept as projected (q_raw, k_raw), normed head by head (the row's qk_norm,
 * kept in q_normed, k_normed), then turned (RoPE); NORM_ROWS rows a task. */
typedef struct {
    TfRun *r;
    int l, r0, rows;
} QkJob;

static void qk_task(void *ctx, int task) {
    const QkJob *j = ctx;
    TfRun *r = j->r;
    const TfConfig *c = r->cfg;
    const TfLayer *L = &r->m->layers[j->l];
    int i0 = j->r0 + task * NORM_ROWS, n = j->r0 + j->rows - i0 < NORM_ROWS ? j->r0 + j->rows - i0 : NORM_ROWS;
    size_t qa = (size_t)i0 * c->q_dim, ka = (size_t)i0 * c->kv_dim;
    float *q = tf_run_q(r, j->l), *k = tf_run_k(r, j->l);
    memcpy(r->q_raw + qa, q + qa, sizeof(float) * (size_t)n * c->q_dim);
    memcpy(r->k_raw + ka, k + ka, sizeof(float) * (size_t)n * c->kv_dim);
    if (c->arch->qk_norm) {
        head_norm_rows(q, r->q_normed, r->q_raw, L->q_norm, c->eps, i0, n, c->q_dim, c->head_dim);
        head_norm_rows(k, r->k_normed, r->k_raw, L->k_norm, c->eps, i0, n, c->kv_dim, c->head_dim);
    }
    if (c->arch->rope != ROPE_NONE) {
        rope_forward(q, r->rope, i0, n, c->q_dim, c->head_dim, c->arch->rope);
        rope_forward(k, r->rope, i0, n, c->kv_dim, c->head_dim, c->arch->rope);
    }
}

static void qkv_rows(TfRun *r, int l, int r0, int rows) {
    const TfConfig *c = r->cfg;
    const TfLayer *L = &r->m->layers[l];
    size_t dim = (size_t)c->dim, at = (size_t)r0 * dim;
    float *q = tf_run_q(r, l) + (size_t)r0 * c->q_dim, *k = tf_run_k(r, l) + (size_t)r0 * c->kv_dim;
    float *v = tf_run_v(r, l) + (size_t)r0 * c->kv_dim;
    norm_rows(r, r->xb + at, tf_run_x(r, l) + at, L->norm1_w, L->norm1_b, 0, rows, c->dim);
    Linear j = {.r = r, .x = r->xb + at, .ld_x = c->dim, .rows = rows, .n_in = c->dim, .nouts = 3};
    j.outs[0] = (LinOut){.w = &L->wq, .bias = L->bq, .out = q, .ld = c->q_dim, .n_out = c->q_dim};
    j.outs[1] = (LinOut){.w = &L->wk, .bias = L->bk, .out = k, .ld = c->kv_dim, .n_out = c->kv_dim};
    j.outs[2] = (LinOut){.w = &L->wv, .bias = L->bv, .out = v, .ld = c->kv_dim, .n_out = c->kv_dim};
    tf_linear_run(&j);
    if (c->arch->rope != ROPE_NONE || c->arch->qk_norm) {
        QkJob qj = {.r = r, .l = l, .r0 = r0, .rows = rows};
        par_for_work((rows + NORM_ROWS - 1) / NORM_ROWS, qk_task, &qj, 10.0 * rows * (c->q_dim + c->kv_dim));
    }
}

static void finish_rows(TfRun *r, int l, const float *attn, int r0, int rows) {
    const TfConfig *c = r->cfg;
    const TfLayer *L = &r->m->layers[l];
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
                         .add = tf_run_x(r, l) + at};
    tf_linear_run(&o);
    norm_rows(r, r->xb2 + at, r->mid + at, L->norm2_w, L->norm2_b, 0, rows, c->dim);
    /* hb = gelu(xb2 W_fc^T + b_fc), or silu(xb2 W_gate^T) * (hb2 = xb2 W_up^T) */
    Linear f = {.r = r, .x = r->xb2 + at, .ld_x = c->dim, .rows = rows, .n_in = c->dim, .nouts = 1};
    f.outs[0] =
        (LinOut){.w = &L->w_fc, .bias = L->b_fc, .out = r->hb + ah, .ld = c->hidden_dim, .n_out = c->hidden_dim};
    if (c->arch->mlp == TF_MLP_GELU_TANH) f.act = ACT_GELU;
    else {
        f.act = ACT_SWIGLU, f.nouts = 2;
        f.outs[1] = (LinOut){.w = &L->w_up, .out = r->hb2 + ah, .ld = c->hidden_dim, .n_out = c->hidden_dim};
    }
    tf_linear_run(&f);
    /* ffn = hb W_down^T + b_down, x' = mid + ffn */
    Linear d = {.r = r, .x = r->hb + ah, .ld_x = c->hidden_dim, .rows = rows, .n_in = c->hidden_dim, .nouts = 1};
    d.outs[0] = (LinOut){.w = &L->w_down,
                         .bias = L->b_down,
                         .out = r->ffn + at,
                         .ld = c->dim,
                         .n_out = c->dim,
                         .sum = tf_run_x(r, l + 1) + at,
                         .add = r->mid + at};
    tf_linear_run(&d);
}

static void logits_rows(TfRun *r, int r0, int rows) {
    const TfConfig *c = r->cfg;
    size_t dim = (size_t)c->dim;
    norm_rows(r, r->xf + (size_t)r0 * dim, tf_run_x(r, c->n_layers) + (size_t)r0 * dim, r->m->normf_w, r->m->normf_b, 0,
              rows, c->dim);
    float *out = r->logits;
    if (r->all_logits) out += (size_t)r0 * c->vocab;
    else r0 += rows - 1, rows = 1;
    tf_linear_forward(r, out, c->vocab, r->xf + (size_t)r0 * dim, c->dim, &r->m->cls, NULL, rows, c->dim, c->vocab);
}

// ----------------------------------------------------------------------------
// the steps

static int stopped(void) { return av_cancelled() ? -1 : 0; }
static int layer_ok(const TfRun *r, int l) { return r->n > 0 && l >= 0 && l < r->cfg->n_layers; }

/* Appends ids[0..n) to the rows and sets their embeddings. */
static int append_ids(TfRun *r, const int *ids, int n, AvError *err) {
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

int tf_embed(TfRun *r, const int *ids, int n, AvError *err) {
    r->n = 0;
    return append_ids(r, ids, n, err);
}

int tf_layer_qkv(TfRun *r, int l) {
    if (!layer_ok(r, l)) return -1;
    qkv_rows(r, l, 0, r->n);
    return stopped();
}

int tf_layer_attend(TfRun *r, int l) {
    if (!layer_ok(r, l)) return -1;
    attend_rows(r, l, 0, r->n);
    return stopped();
}

int tf_layer_finish(TfRun *r, int l, const float *attn_out) {
    if (!layer_ok(r, l)) return -1;
    finish_rows(r, l, attn_out ? attn_out : r->att, 0, r->n);
    return stopped();
}

int tf_logits(TfRun *r) {
    if (r->n < 1) return -1;
    logits_rows(r, 0, r->n);
    return stopped();
}

int tf_logits_row(TfRun *r, int row) {
    if (row < 0 || row >= r->n || r->all_logits) return -1;
    const TfConfig *c = r->cfg;
    size_t dim = (size_t)c->dim;
    norm_rows(r, r->xf + (size_t)row * dim, tf_run_x(r, c->n_layers) + (size_t)row * dim, r->m->normf_w, r->m->normf_b,
              0, 1, c->dim);
    tf_linear_forward(r, r->logits, c->vocab, r->xf + (size_t)row * dim, c->dim, &r->m->cls, NULL, 1, c->dim, c->vocab);
    return stopped();
}

int tf_layer_wo(const TfModel *m, int l, float *out) {
    if (l < 0 || l >= m->cfg.n_layers) return -1;
    const TfMat *w = &m->layers[l].wo;
    int dim = m->cfg.dim, qd = m->cfg.q_dim;
    for (int o0 = 0; o0 < dim; o0 += TF_W_BLOCK) {
        int rows = dim - o0 < TF_W_BLOCK ? dim - o0 : TF_W_BLOCK, ld;
        float *dst = out + (size_t)o0 * qd;
        const float *p = tf_mat_block(w, o0, rows, qd, dst, &ld);
        if (p != dst)
            for (int j = 0; j < rows; j++) memcpy(dst + (size_t)j * qd, p + (size_t)j * ld, sizeof(float) * qd);
    }
    return 0;
}

int tf_extend(TfRun *r, const int *ids, int n, AvError *err) {
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

int tf_forward(TfRun *r, const int *ids, int n, AvError *err) {
    r->n = 0;
    return tf_extend(r, ids, n, err);
}

int tf_embed_from(TfRun *r, const int *ids, int n, int r0, AvError *err) {
    if (r0 < 0 || r0 > r->n || r0 > n) return av_errorf(err, _("rows from %d of %d: the run has %d"), r0, n, r->n);
    r->n = r0;
    return n > r0 ? append_ids(r, ids + r0, n - r0, err) : 0;
}

int tf_layer_qkv_rows(TfRun *r, int l, int r0, int rows) {
    if (!layer_ok(r, l) || r0 < 0 || rows < 0 || r0 + rows > r->n) return -1;
    if (rows > 0) qkv_rows(r, l, r0, rows);
    return stopped();
}

int tf_layer_finish_rows(TfRun *r, int l, const float *attn_out, int r0, int rows) {
    if (!layer_ok(r, l) || r0 < 0 || rows < 0 || r0 + rows > r->n) return -1;
    if (rows > 0) finish_rows(r, l, attn_out ? attn_out : r->att, r0, rows);
    return stopped();
}

int tf_logits_from(TfRun *r, int r0) {
    if (r->n < 1 || r0 < 0 || r0 > r->n) return -1;
    if (r0 < r->n) logits_rows(r, r0, r->n - r0);
    return stopped();
}

int tf_argmax(const float *x, int n) {
    int best = 0;
    for (int i = 1; i < n; i++)
        if (x[i] > x[best]) best = i;
    return best;
}

int tf_generate_greedy(TfRun *r, const int *prompt, int n_prompt, int steps, int *out,
                       int (*is_end)(const void *ctx, int id), const void *ctx, AvError *err) {
    if (steps < 0 || n_prompt < 1 || (steps > 0 && n_prompt - 1 > r->cap - steps))
        return av_errorf(err, _("%d prompt tokens and %d steps: the run holds %d tokens"), n_prompt, steps, r->cap);
    if (tf_forward(r, prompt, n_prompt, err)) return -1;
    int v = r->cfg->vocab, done = 0;
    for (; done < steps; done++) {
        const float *last = r->all_logits ? r->logits + (size_t)(r->n - 1) * v : r->logits;
        int next = tf_argmax(last, v);
        if (is_end && is_end(ctx, next)) break; /* the end of a text: not stored */
        out[done] = next;
        if (done + 1 < steps && tf_extend(r, &next, 1, err)) return -1;
    }
    return done;
}

// ----------------------------------------------------------------------------
// the model

void tf_close(TfModel *m) {
    if (!m) return;
    if (m->close_file) m->close_file(m);
    free(m->views);
    free(m->layers);
    free(m->vecs);
    free(m);
}

void tf_trained_info(const TfModel *m, TrainedInfo *out) {
    const TfConfig *c = &m->cfg;
    *out = (TrainedInfo){.arch = c->arch->name,
                         .n_layers = c->n_layers,
                         .n_heads = c->n_heads,
                         .n_kv_heads = c->n_kv_heads,
                         .head_size = c->head_dim,
                         .dim = c->dim,
                         .q_dim = c->q_dim,
                         .kv_dim = c->kv_dim,
                         .hidden_dim = c->hidden_dim,
                         .vocab = c->vocab,
                         .ctx = c->max_pos,
                         .rope = c->arch->rope,
                         .rope_theta = c->arch->rope == ROPE_NONE ? 0.0 : c->rope_theta,
                         .rope_scaling = c->rope_scaling,
                         .qk_norm = c->arch->qk_norm,
                         .layernorm = c->arch->norm == TF_NORM_LAYER,
                         .gelu = c->arch->mlp == TF_MLP_GELU_TANH,
                         .qkv_bias = c->qkv_bias,
                         .o_bias = c->o_bias};
}

// ----------------------------------------------------------------------------
// the run: one allocation, carved

static size_t run_layout(TfRun *r, char *base) {
    const TfConfig *c = r->cfg;
    size_t cap = (size_t)r->cap, dim = (size_t)c->dim, qd = (size_t)c->q_dim, kv = (size_t)c->kv_dim;
    size_t hid = (size_t)c->hidden_dim, layers = (size_t)c->n_layers, widest = (size_t)tf_in_max(c);
    size_t kvpack =
        (size_t)c->n_kv_heads * (mat_packed_floats(c->head_dim, r->cap) + mat_packed_floats(r->cap, c->head_dim));
    size_t pack = mat_packed_floats((int)widest, r->cap);
    if (kvpack > pack) pack = kvpack;
    size_t attend = 2 * Q_BLOCK * cap + 2 * cap, product = tf_tile_floats(r) + TF_W_BLOCK * widest;
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
    if (c->arch->qk_norm) {
        PIECE(r->q_normed, cap * qd, sizeof(float));
        PIECE(r->k_normed, cap * kv, sizeof(float));
    }
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

/* cos and sin of position p times pair i's frequency (HF's inv_freq,
 * scaled as rope_scaling says). */
static void rope_table(double *rope, int cap, int hs, double theta, const RopeScaling *s) {
    for (int i = 0; i < hs / 2; i++) {
        double freq = rope_freq(theta, hs, s, i);
        for (int p = 0; p < cap; p++) {
            rope[((size_t)p * hs / 2 + i) * 2] = cos(p * freq);
            rope[((size_t)p * hs / 2 + i) * 2 + 1] = sin(p * freq);
        }
    }
}

TfRun *tf_run_new(const TfModel *m, int cap, int all_logits, AvError *err) {
    if (cap < 1 || cap > m->cfg.max_pos)
        return av_errorf(err, _("%d tokens: the model takes 1 to %d (its context)"), cap, m->cfg.max_pos), NULL;
    TfRun *r = calloc(1, sizeof *r);
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
    if (m->cfg.arch->rope != ROPE_NONE)
        rope_table(r->rope, cap, m->cfg.head_dim, m->cfg.rope_theta, &m->cfg.rope_scaling);
    return r;
}

void tf_run_free(TfRun *r) {
    if (!r) return;
    free(r->rope); /* the start of the one allocation */
    free(r);
}
