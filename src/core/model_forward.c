/* model_forward.c - the forward pass of one attention layer, stage by stage
 * (embed, project, scores, scaled, masked, weights, output, final), split
 * into tasks for the threads, and the stage cache that recomputes only what
 * is stale. */
#include "model_internal.h"

#include "cancel.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parallel.h"
#include "rng.h"
#include "rowops.h"

// ----------------------------------------------------------------------------
// the stages, split into tasks for the threads: a head, or a block of rows

enum { ROW_BLOCK = 64 };

static int row_blocks(int n) { return (n + ROW_BLOCK - 1) / ROW_BLOCK; }

// ----------------------------------------------------------------------------
// the stages on explicit arrays (outputs, inputs, sizes), a block of rows
// [r0, r0 + rows) at a time; the tasks below only wire the model's pointers

static float saturate(double v) {
    if (v > FLT_MAX) return FLT_MAX;
    if (v < -FLT_MAX) return -FLT_MAX;
    return (float)v;
}

/* Raw scores of rows [r0, r0 + rows) by dot product, cosine or distance
 * (model.h); kt is K^T packed, or without data the product runs unpacked.
 * out scores (n_q, n_k); in q (n_q, d_k), k (n_k, d_k). */
static void scores_forward(float *scores, const float *q, const float *k, const MatPacked *kt, int r0, int rows,
                           int n_k, int d_k, ScoreKind kind) {
    if (kind == SCORE_DISTANCE) {
        for (int i = r0; i < r0 + rows; i++)
            for (int j = 0; j < n_k; j++) {
                const float *q_i = q + (size_t)i * d_k, *k_j = k + (size_t)j * d_k;
                double d2 = 0;
                for (int p = 0; p < d_k; p++) d2 += ((double)q_i[p] - k_j[p]) * ((double)q_i[p] - k_j[p]);
                scores[(size_t)i * n_k + j] = saturate(-d2);
            }
        return;
    }
    if (kt && kt->data) mat_mul_rows(scores, n_k, q, d_k, kt, r0, rows);
    else mat_mul_bt(scores + (size_t)r0 * n_k, n_k, q + (size_t)r0 * d_k, d_k, k, d_k, rows, d_k, n_k);
    if (kind == SCORE_COSINE)
        for (int i = r0; i < r0 + rows; i++) {
            const float *q_i = q + (size_t)i * d_k;
            double qn = model_norm(q_i, d_k);
            for (int j = 0; j < n_k; j++) {
                const float *k_j = k + (size_t)j * d_k;
                double kn = model_norm(k_j, d_k);
                scores[(size_t)i * n_k + j] = qn > 0 && kn > 0 ? (float)(vec_dot(q_i, k_j, d_k) / (qn * kn)) : 0.0f;
            }
        }
}

/* out (n, d) = x (n, d) w^T (d, d) in double, each sum in the order of r:
 * additive attention's A = Q W1^T and B = K W2^T. In float, a product of
 * values near 3.4e38 overflows to infinity, and A_i + B_j to NaN; in double
 * the sums stay finite and tanh saturates to exactly +-1 as it should. */
static void additive_products(double *out, const float *x, const float *w, int n, int d) {
    /* Each sum is one chain in the order of r; four rows of w at a time, so
     * that four chains run side by side instead of waiting on every add. */
    for (int i = 0; i < n; i++) {
        const float *xi = x + (size_t)i * d;
        double *oi = out + (size_t)i * d;
        int p = 0;
        for (; p + 4 <= d; p += 4) {
            const float *w0 = w + (size_t)p * d, *w1 = w0 + d, *w2 = w1 + d, *w3 = w2 + d;
            double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
            for (int r = 0; r < d; r++) {
                double xr = xi[r];
                s0 += xr * w0[r];
                s1 += xr * w1[r];
                s2 += xr * w2[r];
                s3 += xr * w3[r];
            }
            oi[p] = s0, oi[p + 1] = s1, oi[p + 2] = s2, oi[p + 3] = s3;
        }
        for (; p < d; p++) {
            double s = 0;
            for (int r = 0; r < d; r++) s += (double)xi[r] * w[(size_t)p * d + r];
            oi[p] = s;
        }
    }
}

/* Additive scores of rows [r0, r0 + rows): s_ij = v . tanh(A_i + B_j), with
 * A = Q W1^T and B = K W2^T made once per head (additive_products).
 * out scores (n_q, n_k); in a (n_q, d_k), b (n_k, d_k), va (d_k). */
static void additive_scores_forward(float *scores, const double *a, const double *b, const float *va, int r0, int rows,
                                    int n_k, int d_k) {
    for (int i = r0; i < r0 + rows; i++)
        for (int j = 0; j < n_k; j++) {
            double s = 0;
            for (int p = 0; p < d_k; p++) s += (double)va[p] * tanh(a[(size_t)i * d_k + p] + b[(size_t)j * d_k + p]);
            scores[(size_t)i * n_k + j] = (float)s;
        }
}

/* Rows [r0, r0 + rows) from stage `from` to the weights: scaled (times
 * factor), masked (-inf where allowed is 0), then the softmax with its sum,
 * entropy and largest weight. From STAGE_MASKED on, scaled is an input; from
 * STAGE_WEIGHTS on, masked too. Every stage stays stored (the views show
 * each), computed a few rows at a time while they are in the cache.
 * out scaled, masked, weights (n_q, n_k), row_sums, entropy, max_weight (n_q);
 * in raw (n_q, n_k), allowed (n_q, n_k), keys_end (n_q). */
static void softmax_rows_forward(float *scaled, float *masked, float *weights, double *row_sums, double *entropy,
                                 float *max_weight, const float *raw, const unsigned char *allowed, const int *keys_end,
                                 int r0, int rows, int n_k, double factor, Stage from) {
    /* In groups of rows whose stages stay in the L1 cache: each pass of the
     * softmax is done for every row of the group before the next. */
    enum { GROUP_MAX = 64, GROUP_FLOATS = 4096 };
    int group = n_k > 0 && GROUP_FLOATS / n_k > 1 ? GROUP_FLOATS / n_k : 1;
    if (group > GROUP_MAX) group = GROUP_MAX;
    for (int g0 = r0; g0 < r0 + rows; g0 += group) {
        int gn = r0 + rows - g0 < group ? r0 + rows - g0 : group;
        for (int i = g0; i < g0 + gn; i++) {
            size_t at = (size_t)i * n_k;
            if (from <= STAGE_SCALED)
                attn_scale_mask_row(scaled + at, masked + at, raw + at, allowed + at, n_k,
                                    factor == 1.0 ? SCALE_COPY : SCALE_MULTIPLY, factor);
            else if (from <= STAGE_MASKED) attn_mask_row(masked + at, scaled + at, allowed + at, n_k);
        }
        /* The keys from keys_end on are masked (-inf): their weights are 0
         * and add 0 to every lane's sum, so the prefix gives the same bits. */
        SoftmaxRow sr[GROUP_MAX];
        size_t at = (size_t)g0 * n_k;
        attn_softmax_rows(weights + at, masked + at, n_k, gn, keys_end + g0, sr);
        for (int r = 0; r < gn; r++) {
            row_sums[g0 + r] = sr[r].sum;
            entropy[g0 + r] = sr[r].entropy;
            max_weight[g0 + r] = sr[r].max_weight;
        }
    }
}

/* O = A V for rows [r0, r0 + rows). Keys past the last one any row of the
 * block [b0, r0 + rows) may see have weight 0 in every row: their products
 * add nothing (causal: half the work). The block is the whole pass's (b0 <=
 * r0 when only the block's last rows are computed), so that a row sums over
 * the same keys in either.
 * out out (n_q, d_v); in weights (n_q, n_k), vp: V (n_k, d_v) packed,
 * keys_end (n_q). */
static void attend_forward(float *out, const float *weights, const MatPacked *vp, const int *keys_end, int b0, int r0,
                           int rows, int n_k, int d_v) {
    int kmax = 0;
    for (int i = b0; i < r0 + rows; i++)
        if (keys_end[i] > kmax) kmax = keys_end[i];
    mat_mul_rows_k(out, d_v, weights, n_k, vp, r0, rows, kmax);
}

// ----------------------------------------------------------------------------
// the tasks: a head, or a block of rows

/* Work shared by the tasks of one stage of one layer. */
typedef struct {
    Model *m;
    HeadData *hd;                    /* the layer's heads */
    MatPacked pack[MODEL_MAX_HEADS]; /* per head: K^T or V packed into the stages arena (no allocation) */
    int keep;                        /* rows [0, keep) are current (m->keep_rows) */
    int b0, nb;                      /* the first row block to compute, and how many per head */
    Stage from;                      /* the row stages: recompute from this one */
} Job;

/* A layer's job from stage `from`, its rows [0, keep) current. */
static Job job_new(Model *m, int layer, Stage from, int keep) {
    int b0 = keep / ROW_BLOCK;
    return (Job){
        .m = m, .hd = model_layer_heads(m, layer), .keep = keep, .b0 = b0, .nb = row_blocks(m->n_q) - b0, .from = from};
}

/* Task t's head and rows [*r0, *r0 + *rows) (after the kept ones), in the
 * row blocks of the whole pass: the block starts at *b0. */
static int job_rows(const Job *j, int t, int *b0, int *r0, int *rows) {
    int h = t / j->nb;
    *b0 = (j->b0 + t % j->nb) * ROW_BLOCK;
    *r0 = *b0 > j->keep ? *b0 : j->keep;
    int end = *b0 + ROW_BLOCK < j->m->n_q ? *b0 + ROW_BLOCK : j->m->n_q;
    *rows = end - *r0;
    return h;
}

/* The kept rows [0, keep) and the new keys [keep, n_k): their scores,
 * scaled and masked, and weight 0 (the mask hides a later key from a kept
 * row: model_resize_rows). The new keys' columns alone: every element is
 * the same sum (matrix.h), whichever product computes it.
 * out scores, scaled, masked, weights (n_q, n_k) of hd; in q, k, allowed
 * (n_q, n_k). */
static void kept_rows_forward(HeadData *hd, const unsigned char *allowed, int keep, int n_k, int d_k, double factor) {
    if (keep <= 0 || keep >= n_k) return;
    int cols = n_k - keep;
    mat_mul_bt(hd->scores + keep, n_k, hd->q, d_k, hd->k + (size_t)keep * d_k, d_k, keep, d_k, cols);
    for (int i = 0; i < keep; i++) {
        size_t at = (size_t)i * n_k + keep;
        attn_scale_mask_row(hd->scaled + at, hd->masked + at, hd->scores + at, allowed + at, cols,
                            factor == 1.0 ? SCALE_COPY : SCALE_MULTIPLY, factor);
        memset(hd->weights + at, 0, sizeof(float) * (size_t)cols);
    }
}

static void scores_pack_task(void *ctx, int h) {
    Job *j = ctx;
    const ModelConfig *c = &j->m->cfg;
    HeadData *hd = &j->hd[h];
    if (c->score == SCORE_ADDITIVE) {
        additive_products(hd->add_a, hd->q, hd->w1, j->m->n_q, c->d_k);
        additive_products(hd->add_b, hd->k, hd->w2, j->m->n_k, c->d_k);
    }
    if (c->score == SCORE_DOT || c->score == SCORE_COSINE)
        mat_pack_into(&j->pack[h], hd->pack_k, hd->k, c->d_k, c->d_k, j->m->n_k, 1);
    if (j->keep > 0) kept_rows_forward(hd, j->m->allowed, j->keep, j->m->n_k, c->d_k, model_scale_factor(c));
}

/* Scores of a block of rows, then (from the scores on) its row stages. */
static void scores_rows_task(void *ctx, int t) {
    Job *j = ctx;
    int b0, r0, rows, h = job_rows(j, t, &b0, &r0, &rows);
    if (rows <= 0) return;
    Model *m = j->m;
    const ModelConfig *c = &m->cfg;
    HeadData *hd = &j->hd[h];
    if (j->from <= STAGE_SCORES) {
        if (c->score == SCORE_ADDITIVE)
            additive_scores_forward(hd->scores, hd->add_a, hd->add_b, hd->va, r0, rows, m->n_k, c->d_k);
        else scores_forward(hd->scores, hd->q, hd->k, &j->pack[h], r0, rows, m->n_k, c->d_k, c->score);
    }
    if (j->from <= STAGE_WEIGHTS)
        softmax_rows_forward(hd->scaled, hd->masked, hd->weights, hd->row_sums, hd->entropy, hd->max_weight, hd->scores,
                             m->allowed, m->keys_end, r0, rows, m->n_k, model_scale_factor(c), j->from);
}

/* The 1s of a row of the mask (each byte 0 or 1), 8 bytes at a time. */
static int count_ones(const unsigned char *ok, int n) {
    int c = 0, j = 0;
    for (; j + 8 <= n; j += 8) {
        uint64_t v;
        memcpy(&v, ok + j, sizeof v);
        c += (int)((v * 0x0101010101010101ull) >> 56);
    }
    for (; j < n; j++) c += ok[j];
    return c;
}

/* The last 1 of a row of the mask, or -1; from the end, 8 bytes at a time. */
static int last_one(const unsigned char *ok, int n) {
    int j = n;
    for (; j % 8; j--)
        if (ok[j - 1]) return j - 1;
    for (; j > 0; j -= 8) {
        uint64_t v;
        memcpy(&v, ok + j - 8, sizeof v);
        if (v)
            for (int b = j - 1;; b--)
                if (ok[b]) return b;
    }
    return -1;
}

static void compute_mask(Model *m) {
    const TokenList *keys = m->k_target ? &m->target_tokens : &m->tokens;
    for (int j = 0; j < m->n_k; j++) m->pad_key[j] = model_can(m, SRC_TOKENIZERS) && j >= keys->n;
    MaskSpec spec = {m->cfg.mask, m->cfg.window, m->cfg.prefix, m->q_target != m->k_target, m->pad_key, NULL};
    if (m->cfg.mask == MASK_PAINTED && m->painted) {
        /* the grid in place: mask_fill reads each cell before it writes it */
        for (int i = 0; i < m->n_q; i++)
            for (int j = 0; j < m->n_k; j++)
                m->allowed[(size_t)i * m->n_k + j] = (unsigned char)model_painted_at(m, i, j);
        spec.painted = m->allowed;
    }
    mask_fill(m->allowed, &spec, m->n_q, m->n_k);
    for (int i = 0; i < m->n_q; i++) {
        const unsigned char *ok = m->allowed + (size_t)i * m->n_k;
        m->n_allowed[i] = count_ones(ok, m->n_k);
        m->keys_end[i] = last_one(ok, m->n_k) + 1;
    }
}

/* Scores (when stale), scaled, masked and weights of one layer, in one pass
 * over the rows after the kept ones. */
static void compute_attention(Model *m, int layer, Stage from, int keep) {
    int heads = m->cfg.heads;
    Job j = job_new(m, layer, from, keep);
    const ModelConfig *c = &m->cfg;
    double cells = (double)heads * (m->n_q - keep) * m->n_k;
    if (from <= STAGE_SCORES) par_for_work(heads, scores_pack_task, &j, (double)heads * m->n_k * c->d_k * 4);
    par_for_work(heads * j.nb, scores_rows_task, &j, cells * ((from <= STAGE_SCORES ? 2.0 * c->d_k : 0) + 20));
}

double attn_softmax_row(float *w, const float *s, int n) {
    SoftmaxRow r;
    attn_softmax(w, s, n, &r);
    return r.sum;
}

/* O_h = A_h V_h: V packed per head, then blocks of rows. */
static void output_pack_task(void *ctx, int h) {
    Job *j = ctx;
    HeadData *hd = &j->hd[h];
    mat_pack_into(&j->pack[h], hd->pack_v, hd->v, j->m->cfg.d_v, j->m->n_k, j->m->cfg.d_v, 0);
}

static void output_rows_task(void *ctx, int t) {
    Job *j = ctx;
    Model *m = j->m;
    int b0, r0, rows, h = job_rows(j, t, &b0, &r0, &rows);
    if (rows <= 0) return;
    attend_forward(j->hd[h].out, j->hd[h].weights, &j->pack[h], m->keys_end, b0, r0, rows, m->n_k, m->cfg.d_v);
}

static void compute_output(Model *m, int layer, int keep) {
    int heads = m->cfg.heads;
    Job j = job_new(m, layer, STAGE_OUTPUT, keep);
    double cells = (double)heads * (m->n_q - keep) * m->n_k;
    par_for_work(heads, output_pack_task, &j, (double)heads * m->n_k * m->cfg.d_v * 4);
    par_for_work(heads * j.nb, output_rows_task, &j, cells * 2.0 * m->cfg.d_v);
}

/* The stale stages of one layer up to `last`; returns the layer's new stale
 * mark (unchanged when cancelled). */
static Stage update_layer(Model *m, int layer, Stage from, Stage last) {
    const Source *src = m->src;
    /* A cancel request (cancel.h) is checked after every stage: the pass
     * stops with the layer's mark where it was, so nothing half computed is
     * taken as current (the next update does it all again). */
    if (!(src->caps & SRC_EMBED) && from < STAGE_PROJECT) from = STAGE_PROJECT;
    /* The kept rows (model_resize_rows): the source's Q, K and V of the rows
     * after them are new, the rest of every stage is current. */
    int keep = m->keep_rows < m->n_q ? m->keep_rows : m->n_q;
    if (from > STAGE_PROJECT || m->cfg.score != SCORE_DOT) keep = 0;
    if (from <= STAGE_PROJECT) src->forward(m, layer, from);
    if (av_cancelled()) return from;
    if (from <= STAGE_WEIGHTS && last >= STAGE_SCORES) compute_attention(m, layer, from, keep);
    if (av_cancelled()) return from;
    if (from <= STAGE_OUTPUT && last >= STAGE_OUTPUT) compute_output(m, layer, keep);
    if (av_cancelled()) return from;
    if (from <= STAGE_FINAL && last >= STAGE_FINAL && src->final) src->final(m, layer);
    if (av_cancelled()) return from;
    /* Without a Y nothing stays stale after the output. */
    return last >= STAGE_FINAL || (!src->final && last >= STAGE_OUTPUT) ? STAGE_NONE : last + 1;
}

/* The stale stages up to last, layer by layer (model_update_to). */
static void update_stages(Model *m, Stage last) {
    Stage from = m->stale;
    m->next_ready = 0; /* whatever changes, the rows' next tokens may too */
    if (m->cfg.score == SCORE_ADDITIVE && m->additive_stale) model_draw_additive(m);
    if (av_cancelled()) return;
    /* One mask for every layer. */
    if (from <= STAGE_MASKED && last >= STAGE_SCORES) compute_mask(m);
    if (av_cancelled()) return;
    Stage stale = STAGE_NONE;
    for (int l = 0; l < m->cfg.layers; l++) {
        Stage lf = m->layer_stale[l];
        if (lf <= last) m->layer_stale[l] = lf = update_layer(m, l, lf, last);
        if (lf < stale) stale = lf;
        if (av_cancelled()) return;
    }
    if (!(m->src->caps & SRC_EMBED) && from < STAGE_PROJECT) from = STAGE_PROJECT;
    for (Stage s = from; s <= last && s < STAGE_COUNT; s++)
        if (s != STAGE_FINAL || m->src->final) m->computed[s]++;
    if (from <= STAGE_PROJECT) m->rows_updated = m->n_q - (m->keep_rows < m->n_q ? m->keep_rows : m->n_q);
    m->stale = stale;
    if (stale == STAGE_NONE) m->keep_rows = 0; /* every row current */
}

/* The next tokens asked for (model_want_next), once every layer is current. */
static void predict_next(Model *m) {
    if (!m->src->predict || m->next_ready || m->next_row < 0 || m->stale != STAGE_NONE || m->n_q == 0) return;
    if (m->next_row >= m->n_q) m->next_row = m->n_q - 1;
    if (m->src->predict(m, m->next_row) == 0 && !av_cancelled()) m->next_ready = 1;
}

void model_update_to(Model *m, Stage last) {
    /* A layer's input is the end of the one before: all of it, every time. */
    if (m->src->caps & SRC_STACKED) last = STAGE_FINAL;
    if (m->stale != STAGE_NONE && m->stale <= last) update_stages(m, last);
    if (!av_cancelled()) predict_next(m);
}

int model_update(Model *m, AvError *err) {
    (void)err; /* storage is made by the setters: a recompute cannot fail */
    model_update_to(m, STAGE_FINAL);
    return 0;
}
