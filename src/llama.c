/* llama.c - see llama.h. The forward pass as functions on explicit arrays
 * over a range of rows [r0, r0 + rows) (the whole sequence, or the rows a
 * KV-cached step appends); the steps below only wire the run's pointers.
 *
 * Products: y = x W^T is computed as y^T = W x^T, with W (out, in) read in
 * place from the mapped file as the left matrix and only x^T packed (small),
 * so that no weight is ever copied; each task takes blocks of W's rows into
 * a tile of its lane and writes the tile transposed into y. The kernels'
 * rule (one FMA chain per element in ascending k; fma(a, b, c) is
 * fma(b, a, c)) makes that the same bits as x W^T. */
#include "llama.h"

#include "nnops.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cancel.h"
#include "filemap.h"
#include "i18n.h"
#include "matrix.h"
#include "parallel.h"
#include "rowops.h"
#include "number.h"

enum {
    W_BLOCK = 64,   /* rows of W per task of a product */
    Q_BLOCK = 16,   /* query rows per task of the attention */
    MAX_LANES = 16, /* scratch sets, at most */
    ALIGN = 64      /* bytes between the starts of a run's arrays (calloc aligns the first to 16) */
};

// ----------------------------------------------------------------------------
// the blocks, on explicit arrays

/* out (rows, n) = x (rows, n) * w (n) / sqrt(mean(x^2) + 1e-5), row by row
 * (nn_norm_row: the sum of squares in 8 double lanes). */
static void rmsnorm_forward(float *out, const float *x, const float *w, int rows, int n) {
    for (int i = 0; i < rows; i++) nn_norm_row(out + (size_t)i * n, x + (size_t)i * n, w, NULL, 1e-5, n);
}

/* Rotates each pair (2i, 2i+1) of every head of rows [r0, r0 + rows) of x
 * (cap, width; ld width) by the angle of its row's position.
 * rope (cap, hs / 2, 2): cos, sin. */
static void rope_forward(float *x, const double *rope, int r0, int rows, int width, int hs) {
    for (int p = r0; p < r0 + rows; p++) {
        float *row = x + (size_t)p * width;
        const double *cs = rope + (size_t)p * hs;
        for (int h0 = 0; h0 < width; h0 += hs)
            for (int i = 0; i < hs / 2; i++) {
                double a = row[h0 + 2 * i], b = row[h0 + 2 * i + 1], c = cs[2 * i], s = cs[2 * i + 1];
                row[h0 + 2 * i] = nn_sat(a * c - b * s);
                row[h0 + 2 * i + 1] = nn_sat(a * s + b * c);
            }
    }
}

// ----------------------------------------------------------------------------
// products: out (rows, n_out; ld_out) = x (rows, n_in; ld_x) W^T

enum { XT_CHUNKS = 64, LIN_MAX = 3 }; /* chunks of x's rows; products of one x */

/* One product of a job: out (rows, n_out; ld) = x W^T. */
typedef struct {
    float *out;
    const float *w; /* (n_out, n_in) */
    int ld, n_out;
} LinOut;

/* Products of one x (Q, K, V; gate and up): x^T packed once, the blocks of
 * every W one list for the lanes. */
typedef struct {
    LlamaRun *r;
    MatPacked xt[XT_CHUNKS]; /* x^T (n_in, rows) by chunks of rows */
    int chunk, nchunks;      /* rows per chunk (a multiple of 32: the chunks pack into r->pack end to end) */
    int rows, n_in, lanes, blocks;
    LinOut outs[LIN_MAX];
    int nouts;
} Linear;

/* Block t of the job's list: its product and first output row of W. */
static const LinOut *block_at(const Linear *j, int t, int *o0) {
    int k = 0;
    while (t >= (j->outs[k].n_out + W_BLOCK - 1) / W_BLOCK) t -= (j->outs[k++].n_out + W_BLOCK - 1) / W_BLOCK;
    *o0 = t * W_BLOCK;
    return &j->outs[k];
}

/* Each block of W against each chunk of x's rows: the tile (W_BLOCK, chunk)
 * stays in L1 and a block of W in L2, read in place (too few panels of x^T
 * to pay for packing it). Every element is the same sum over k (matrix.h). */
static void linear_task(void *ctx, int lane) {
    Linear *j = ctx;
    float *tile = j->r->scratch + (size_t)lane * j->r->lane_floats; /* (W_BLOCK, chunk) */
    for (int b = lane; b < j->blocks; b += j->lanes) {
        int o0, n0;
        const LinOut *o = block_at(j, b, &o0);
        int wrows = o->n_out - o0 < W_BLOCK ? o->n_out - o0 : W_BLOCK;
        /* the lane's next block of W comes from memory: asked for into L2 a
         * piece per chunk while this one is computed from the cache */
        const char *next = NULL;
        size_t next_bytes = 0;
        if (b + j->lanes < j->blocks) {
            const LinOut *no = block_at(j, b + j->lanes, &n0);
            int nrows = no->n_out - n0 < W_BLOCK ? no->n_out - n0 : W_BLOCK;
            next = (const char *)(no->w + (size_t)n0 * j->n_in);
            next_bytes = sizeof(float) * (size_t)j->n_in * (size_t)nrows;
        }
        size_t piece = (next_bytes / (size_t)j->nchunks + 63) / 64 * 64;
        for (int ch = 0; ch < j->nchunks; ch++) {
            int i0 = ch * j->chunk, n = j->rows - i0 < j->chunk ? j->rows - i0 : j->chunk;
            for (size_t at = (size_t)ch * piece; at < (size_t)(ch + 1) * piece && at < next_bytes; at += 64)
                __builtin_prefetch(next + at, 0, 2);
            mat_mul_rows(tile, n, o->w + (size_t)o0 * j->n_in, j->n_in, &j->xt[ch], 0, wrows);
            nn_tile_out(o->out + (size_t)i0 * o->ld + o0, o->ld, tile, (size_t)n, n, wrows);
        }
    }
}

/* x^T packed in chunks for the products of j. */
static void linear_pack(Linear *j, LlamaRun *r, const float *x, int ld_x, int rows, int n_in) {
    *j = (Linear){.r = r, .rows = rows, .n_in = n_in};
    int per = (rows + XT_CHUNKS - 1) / XT_CHUNKS;
    j->chunk = per < 64 ? 64 : (per + 31) / 32 * 32;
    j->nchunks = (rows + j->chunk - 1) / j->chunk;
    float *buf = r->pack;
    for (int ch = 0; ch < j->nchunks; ch++) {
        int i0 = ch * j->chunk, n = rows - i0 < j->chunk ? rows - i0 : j->chunk;
        mat_pack_into(&j->xt[ch], buf, x + (size_t)i0 * ld_x, ld_x, n_in, n, 1);
        buf += mat_packed_floats(n_in, n);
    }
}

static void linear_add(Linear *j, float *out, int ld_out, const float *w, int n_out) {
    j->outs[j->nouts++] = (LinOut){.out = out, .w = w, .ld = ld_out, .n_out = n_out};
    j->blocks += (n_out + W_BLOCK - 1) / W_BLOCK;
}

static void linear_run(Linear *j) {
    j->lanes = j->r->lanes < j->blocks ? j->r->lanes : j->blocks;
    par_for(j->lanes, linear_task, j);
}

/* out (rows, n_out; ld_out) = x (rows, n_in; ld_x) W^T, alone. */
static void linear_forward(LlamaRun *r, float *out, int ld_out, const float *x, int ld_x, const float *w, int rows,
                           int n_in, int n_out) {
    Linear j;
    linear_pack(&j, r, x, ld_x, rows, n_in);
    linear_add(&j, out, ld_out, w, n_out);
    linear_run(&j);
}

// ----------------------------------------------------------------------------
// attention: query rows [r0, r0 + rows) over keys [0, r0 + rows), causal

typedef struct {
    LlamaRun *r;
    int l, r0, rows, nk;
    MatPacked *kt, *vp; /* per key/value head: K^T (hs, nk) and V (nk, hs) packed */
    float *kvbuf;
    int lanes;
} Attend;

static void attend_pack_task(void *ctx, int g) {
    Attend *j = ctx;
    const LlamaConfig *c = &j->r->m->cfg;
    int hs = c->head_size;
    size_t kf = mat_packed_floats(hs, j->r->cap), vf = mat_packed_floats(j->r->cap, hs);
    float *buf = j->kvbuf + (size_t)g * (kf + vf);
    mat_pack_into(&j->kt[g], buf, llama_run_k(j->r, j->l) + (size_t)g * hs, c->kv_dim, hs, j->nk, 1);
    mat_pack_into(&j->vp[g], buf + kf, llama_run_v(j->r, j->l) + (size_t)g * hs, c->kv_dim, j->nk, hs, 0);
}

/* One head, query rows [i0, i0 + qrows): scores, scaled and masked rows
 * (rowops.h, as the app's own attention), softmax, then A V into att. */
static void attend_block(Attend *j, float *scratch, int h, int i0, int qrows) {
    LlamaRun *r = j->r;
    const LlamaConfig *c = &r->m->cfg;
    int hs = c->head_size, nk = j->nk, g = h / (c->n_heads / c->n_kv_heads);
    float *scores = scratch, *weights = scores + (size_t)Q_BLOCK * r->cap;
    float *scaled = weights + (size_t)Q_BLOCK * r->cap, *masked = scaled + r->cap;
    /* Only the keys a row of the block may see: row i the first i0 + i + 1,
     * the rest of the block's keys weight 0 (the softmax of the visible
     * prefix gives the bits of the whole masked row: test_softmax_prefix_rows). */
    int kmax = i0 + qrows;
    mat_mul_block(scores, nk, r->q + (size_t)i0 * c->dim + (size_t)h * hs, c->dim, &j->kt[g], 0, qrows, 0, kmax);
    for (int i = 0; i < qrows; i++) {
        int seen = i0 + i + 1;
        float *w = weights + (size_t)i * nk;
        /* key j is allowed for query row p when j <= p: causal[cap - 1 - p + j] is 1 */
        attn_scale_mask_row(scaled, masked, scores + (size_t)i * nk, r->causal + (r->cap - seen), seen, SCALE_MULTIPLY,
                            1.0 / sqrt((double)hs));
        SoftmaxRow sr;
        attn_softmax(w, masked, seen, &sr);
        if (kmax > seen) memset(w + seen, 0, sizeof(float) * (size_t)(kmax - seen));
    }
    mat_mul_rows_k(r->att + (size_t)i0 * c->dim + (size_t)h * hs, c->dim, weights, nk, &j->vp[g], 0, qrows, kmax);
}

static void attend_task(void *ctx, int lane) {
    Attend *j = ctx;
    int blocks = (j->rows + Q_BLOCK - 1) / Q_BLOCK, items = j->r->m->cfg.n_heads * blocks;
    float *scratch = j->r->scratch + (size_t)lane * j->r->lane_floats;
    for (int t = lane; t < items; t += j->lanes) {
        int h = t / blocks, i0 = j->r0 + (t % blocks) * Q_BLOCK;
        int qrows = j->r0 + j->rows - i0 < Q_BLOCK ? j->r0 + j->rows - i0 : Q_BLOCK;
        attend_block(j, scratch, h, i0, qrows);
    }
}

static void attend_rows(LlamaRun *r, int l, int r0, int rows) {
    const LlamaConfig *c = &r->m->cfg;
    Attend j = {.r = r, .l = l, .r0 = r0, .rows = rows, .nk = r0 + rows, .kvbuf = r->pack};
    j.kt = r->kv_packed, j.vp = r->kv_packed + c->n_kv_heads;
    par_for(c->n_kv_heads, attend_pack_task, &j);
    int items = c->n_heads * ((rows + Q_BLOCK - 1) / Q_BLOCK);
    j.lanes = r->lanes < items ? r->lanes : items;
    par_for(j.lanes, attend_task, &j);
}

// ----------------------------------------------------------------------------
// one layer, and the logits, over rows [r0, r0 + rows)

static void embed_rows(LlamaRun *r, int r0, int rows) {
    size_t dim = (size_t)r->m->cfg.dim;
    for (int i = r0; i < r0 + rows; i++)
        memcpy(r->resid + (size_t)i * dim, r->m->w.embed + (size_t)r->ids[i] * dim, sizeof(float) * dim);
}

static void qkv_rows(LlamaRun *r, int l, int r0, int rows) {
    const LlamaConfig *c = &r->m->cfg;
    const LlamaWeights *w = &r->m->w;
    size_t dim = (size_t)c->dim, kv = (size_t)c->kv_dim, at = (size_t)r0 * dim, akv = (size_t)r0 * kv;
    float *k = llama_run_k(r, l), *v = llama_run_v(r, l);
    rmsnorm_forward(r->xb + at, llama_run_x(r, l) + at, w->rms_att + l * dim, rows, c->dim);
    Linear j;
    linear_pack(&j, r, r->xb + at, c->dim, rows, c->dim);
    linear_add(&j, r->q_raw + at, c->dim, w->wq + l * dim * dim, c->dim);
    linear_add(&j, r->k_raw + akv, c->kv_dim, w->wk + l * kv * dim, c->kv_dim);
    linear_add(&j, v + akv, c->kv_dim, w->wv + l * kv * dim, c->kv_dim);
    linear_run(&j);
    memcpy(r->q + at, r->q_raw + at, sizeof(float) * dim * (size_t)rows);
    memcpy(k + akv, r->k_raw + akv, sizeof(float) * kv * (size_t)rows);
    rope_forward(r->q, r->rope, r0, rows, c->dim, c->head_size);
    rope_forward(k, r->rope, r0, rows, c->kv_dim, c->head_size);
}

/* attn: (cap, dim), rows r0.. read. */
static void finish_rows(LlamaRun *r, int l, const float *attn, int r0, int rows) {
    const LlamaConfig *c = &r->m->cfg;
    const LlamaWeights *w = &r->m->w;
    size_t dim = (size_t)c->dim, hid = (size_t)c->hidden_dim, at = (size_t)r0 * dim, ah = (size_t)r0 * hid;
    size_t n = (size_t)rows * dim;
    linear_forward(r, r->proj + at, c->dim, attn + at, c->dim, w->wo + l * dim * dim, rows, c->dim, c->dim);
    nn_residual(r->mid + at, llama_run_x(r, l) + at, r->proj + at, n);
    rmsnorm_forward(r->xb2 + at, r->mid + at, w->rms_ffn + l * dim, rows, c->dim);
    Linear j;
    linear_pack(&j, r, r->xb2 + at, c->dim, rows, c->dim);
    linear_add(&j, r->hb + ah, c->hidden_dim, w->w1 + l * hid * dim, c->hidden_dim);
    linear_add(&j, r->hb2 + ah, c->hidden_dim, w->w3 + l * hid * dim, c->hidden_dim);
    linear_run(&j);
    nn_swiglu(r->hb + ah, r->hb2 + ah, (size_t)rows * hid);
    linear_forward(r, r->ffn + at, c->dim, r->hb + ah, c->hidden_dim, w->w2 + l * dim * hid, rows, c->hidden_dim,
                   c->dim);
    nn_residual(llama_run_x(r, l + 1) + at, r->mid + at, r->ffn + at, n);
}

static void logits_rows(LlamaRun *r, int r0, int rows) {
    const LlamaConfig *c = &r->m->cfg;
    size_t dim = (size_t)c->dim;
    rmsnorm_forward(r->xf + (size_t)r0 * dim, llama_run_x(r, c->n_layers) + (size_t)r0 * dim, r->m->w.rms_final, rows,
                    c->dim);
    float *out = r->logits;
    if (r->all_logits) out += (size_t)r0 * c->vocab_size;
    else r0 += rows - 1, rows = 1;
    linear_forward(r, out, c->vocab_size, r->xf + (size_t)r0 * dim, c->dim, r->m->w.cls, rows, c->dim, c->vocab_size);
}

// ----------------------------------------------------------------------------
// the steps

static int stopped(void) { return av_cancelled() ? -1 : 0; }

static int layer_ok(const LlamaRun *r, int l) { return r->n > 0 && l >= 0 && l < r->m->cfg.n_layers; }

/* Appends ids[0..n) to the rows and sets their embeddings. */
static int append_ids(LlamaRun *r, const int *ids, int n, AvError *err) {
    if (n < 1 || n > r->cap - r->n)
        return av_errorf(err, _("%d %s after %d: the run holds %d (the model's context is %d)"), n,
                         num_plural("token", "tokens", n), r->n, r->cap, r->m->cfg.seq_len);
    for (int i = 0; i < n; i++)
        if (ids[i] < 0 || ids[i] >= r->m->cfg.vocab_size)
            return av_errorf(err, _("token %d: id %d is not in the vocabulary of %d"), r->n + i, ids[i],
                             r->m->cfg.vocab_size);
    memcpy(r->ids + r->n, ids, sizeof *ids * (size_t)n);
    embed_rows(r, r->n, n);
    r->n += n;
    return 0;
}

int llama_embed(LlamaRun *r, const int *ids, int n, AvError *err) {
    r->n = 0;
    return append_ids(r, ids, n, err);
}

int llama_layer_qkv(LlamaRun *r, int l) {
    if (!layer_ok(r, l)) return -1;
    qkv_rows(r, l, 0, r->n);
    return stopped();
}

int llama_layer_attend(LlamaRun *r, int l) {
    if (!layer_ok(r, l)) return -1;
    attend_rows(r, l, 0, r->n);
    return stopped();
}

int llama_layer_finish(LlamaRun *r, int l, const float *attn_out) {
    if (!layer_ok(r, l)) return -1;
    finish_rows(r, l, attn_out ? attn_out : r->att, 0, r->n);
    return stopped();
}

int llama_logits(LlamaRun *r) {
    if (r->n < 1) return -1;
    logits_rows(r, 0, r->n);
    return stopped();
}

int llama_extend(LlamaRun *r, const int *ids, int n, AvError *err) {
    int r0 = r->n;
    if (append_ids(r, ids, n, err)) return -1;
    for (int l = 0; l < r->m->cfg.n_layers && !av_cancelled(); l++) {
        qkv_rows(r, l, r0, n);
        attend_rows(r, l, r0, n);
        finish_rows(r, l, r->att, r0, n);
    }
    if (!av_cancelled()) logits_rows(r, r0, n);
    if (av_cancelled()) return av_errorf(err, _("the forward pass was cancelled"));
    return 0;
}

int llama_forward(LlamaRun *r, const int *ids, int n, AvError *err) {
    r->n = 0;
    return llama_extend(r, ids, n, err);
}

int llama_embed_from(LlamaRun *r, const int *ids, int n, int r0, AvError *err) {
    if (r0 < 0 || r0 > r->n || r0 > n) return av_errorf(err, _("rows from %d of %d: the run has %d"), r0, n, r->n);
    r->n = r0;
    return n > r0 ? append_ids(r, ids + r0, n - r0, err) : 0;
}

int llama_layer_qkv_rows(LlamaRun *r, int l, int r0, int rows) {
    if (!layer_ok(r, l) || r0 < 0 || rows < 0 || r0 + rows > r->n) return -1;
    if (rows > 0) qkv_rows(r, l, r0, rows);
    return stopped();
}

int llama_layer_finish_rows(LlamaRun *r, int l, const float *attn_out, int r0, int rows) {
    if (!layer_ok(r, l) || r0 < 0 || rows < 0 || r0 + rows > r->n) return -1;
    if (rows > 0) finish_rows(r, l, attn_out ? attn_out : r->att, r0, rows);
    return stopped();
}

int llama_logits_from(LlamaRun *r, int r0) {
    if (r->n < 1 || r0 < 0 || r0 > r->n) return -1;
    if (r0 < r->n) logits_rows(r, r0, r->n - r0);
    return stopped();
}

int llama_argmax(const float *x, int n) {
    int best = 0;
    for (int i = 1; i < n; i++)
        if (x[i] > x[best]) best = i;
    return best;
}

int llama_generate_greedy(LlamaRun *r, const int *prompt, int n_prompt, int steps, int *out, AvError *err) {
    if (steps < 0 || n_prompt < 1 || (steps > 0 && n_prompt - 1 > r->cap - steps))
        return av_errorf(err, _("%d prompt tokens and %d steps: the run holds %d tokens"), n_prompt, steps, r->cap);
    if (llama_forward(r, prompt, n_prompt, err)) return -1;
    int v = r->m->cfg.vocab_size, done = 0;
    for (; done < steps; done++) {
        const float *last = r->all_logits ? r->logits + (size_t)(r->n - 1) * v : r->logits;
        int next = llama_argmax(last, v);
        if (next == LLAMA_BOS) break; /* run.c: BOS delimits texts */
        out[done] = next;
        if (done + 1 < steps && llama_extend(r, &next, 1, err)) return -1;
    }
    return done;
}

// ----------------------------------------------------------------------------
// the run: one allocation, carved

/* Sizes (pass 1, base NULL) or places (pass 2) every array of a run: each
 * starts a multiple of ALIGN bytes after the first. Returns the bytes, or 0 when they overflow. */
static size_t run_layout(LlamaRun *r, char *base) {
    const LlamaConfig *c = &r->m->cfg;
    size_t cap = (size_t)r->cap, dim = (size_t)c->dim, kv = (size_t)c->kv_dim, hid = (size_t)c->hidden_dim;
    size_t in_max = dim > hid ? dim : hid, kvpack = 0;
    kvpack =
        (size_t)c->n_kv_heads * (mat_packed_floats(c->head_size, r->cap) + mat_packed_floats(r->cap, c->head_size));
    size_t pack = mat_packed_floats((int)in_max, r->cap);
    if (kvpack > pack) pack = kvpack;
    size_t attend = 2 * Q_BLOCK * cap + 2 * cap, tile = W_BLOCK * cap;
    r->lane_floats = attend > tile ? attend : tile;
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
    PIECE(r->rope, cap * (size_t)c->head_size, sizeof(double));
    PIECE(r->resid, ((size_t)c->n_layers + 1) * cap * dim, sizeof(float));
    PIECE(r->kcache, (size_t)c->n_layers * cap * kv, sizeof(float));
    PIECE(r->vcache, (size_t)c->n_layers * cap * kv, sizeof(float));
    float **rows_dim[] = {&r->xb, &r->q_raw, &r->q, &r->att, &r->proj, &r->mid, &r->xb2, &r->ffn, &r->xf};
    for (size_t i = 0; i < sizeof rows_dim / sizeof *rows_dim; i++) PIECE(*rows_dim[i], cap * dim, sizeof(float));
    PIECE(r->k_raw, cap * kv, sizeof(float));
    PIECE(r->hb, cap * hid, sizeof(float));
    PIECE(r->hb2, cap * hid, sizeof(float));
    PIECE(r->logits, (r->all_logits ? cap : 1) * (size_t)c->vocab_size, sizeof(float));
    PIECE(r->pack, pack, sizeof(float));
    PIECE(r->scratch, (size_t)r->lanes * r->lane_floats, sizeof(float));
    PIECE(r->kv_packed, 2 * (size_t)c->n_kv_heads, sizeof(MatPacked));
    PIECE(r->ids, cap, sizeof(int));
    PIECE(r->causal, 2 * cap, 1);
#undef PIECE
    return overflow ? 0 : at;
}

double llama_rope_freq(int p, int head_size) { return pow(10000.0, -(2.0 * p) / head_size); }

static void rope_table(double *rope, int cap, int hs) {
    for (int i = 0; i < hs / 2; i++) {
        double freq = llama_rope_freq(i, hs);
        for (int p = 0; p < cap; p++) {
            rope[((size_t)p * hs / 2 + i) * 2] = cos(p * freq);
            rope[((size_t)p * hs / 2 + i) * 2 + 1] = sin(p * freq);
        }
    }
}

LlamaRun *llama_run_new(const Llama *m, int cap, int all_logits, AvError *err) {
    if (cap < 1 || cap > m->cfg.seq_len)
        return av_errorf(err, _("%d tokens: the model takes 1 to %d (its context)"), cap, m->cfg.seq_len), NULL;
    LlamaRun *r = calloc(1, sizeof *r);
    if (!r) return av_error_nomem(err, _("out of memory for a run of %d tokens"), cap), NULL;
    r->m = m, r->cap = cap, r->all_logits = all_logits ? 1 : 0;
    r->lanes = par_threads() < MAX_LANES ? par_threads() : MAX_LANES;
    if (r->lanes < 1) r->lanes = 1;
    size_t bytes = run_layout(r, NULL);
    /* calloc: defined zeros, and pages nobody writes (rows not in use) cost no memory */
    char *base = bytes ? calloc(1, bytes) : NULL;
    if (!base) {
        free(r);
        return av_error_nomem(err, _("out of memory for a run of %d tokens (%zu MB)"), cap, bytes >> 20), NULL;
    }
    run_layout(r, base);
    memset(r->causal, 1, (size_t)cap);
    rope_table(r->rope, cap, m->cfg.head_size);
    return r;
}

void llama_run_free(LlamaRun *r) {
    if (!r) return;
    free(r->rope); /* the start of the one allocation */
    free(r);
}

void llama_close(Llama *m) {
    if (!m) return;
    filemap_close(m->map, m->map_len);
    free(m->name);
    free(m);
}
