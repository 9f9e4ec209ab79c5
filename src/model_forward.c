/* model_forward.c - the forward pass of one attention layer, stage by stage
 * (embed, project, scores, scaled, masked, weights, output, final), split
 * into tasks for the threads, and the stage cache that recomputes only what
 * is stale. */
#include "model_internal.h"

#include "cancel.h"

#include <float.h>
#include <math.h>
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

/* X = E + PE with the positional encoding of n positions (sinusoidal, or
 * zeros when off).
 * out x, pe (n, dm); in embed (n, dm). */
static void posenc_forward(float *x, float *pe, const float *embed, int n, int dm, PosKind pos) {
    for (int t = 0; t < n; t++)
        for (int d = 0; d < dm; d++) {
            size_t at = (size_t)t * dm + d;
            float p = 0.0f;
            if (pos == POS_SINUSOIDAL) {
                int i2 = d & ~1; /* 2i */
                double angle = t / pow(10000.0, (double)i2 / dm);
                p = (float)((d & 1) ? cos(angle) : sin(angle));
            }
            pe[at] = p;
            x[at] = embed[at] + p;
        }
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

/* Additive scores of rows [r0, r0 + rows): s_ij = v . tanh(A_i + B_j), with
 * A = Q W1^T and B = K W2^T made once per head.
 * out scores (n_q, n_k); in a (n_q, d_k), b (n_k, d_k), va (d_k). */
static void additive_scores_forward(float *scores, const float *a, const float *b, const float *va, int r0, int rows,
                                    int n_k, int d_k) {
    for (int i = r0; i < r0 + rows; i++)
        for (int j = 0; j < n_k; j++) {
            double s = 0;
            for (int p = 0; p < d_k; p++)
                s += (double)va[p] * tanh((double)a[(size_t)i * d_k + p] + b[(size_t)j * d_k + p]);
            scores[(size_t)i * n_k + j] = (float)s;
        }
}

/* Rows [r0, r0 + rows) from stage `from` to the weights: scaled (times
 * factor), masked (-inf where allowed is 0), then the softmax with its sum,
 * entropy and largest weight. From STAGE_MASKED on, scaled is an input; from
 * STAGE_WEIGHTS on, masked too. Every stage stays stored (the views show
 * each), computed row by row while the row is in the cache.
 * out scaled, masked, weights (n_q, n_k), row_sums, entropy, max_weight (n_q);
 * in raw (n_q, n_k), allowed (n_q, n_k). */
static void softmax_rows_forward(float *scaled, float *masked, float *weights, double *row_sums, double *entropy,
                                 float *max_weight, const float *raw, const unsigned char *allowed, int r0, int rows,
                                 int n_k, double factor, Stage from) {
    for (int i = r0; i < r0 + rows; i++) {
        size_t at = (size_t)i * n_k;
        if (from <= STAGE_SCALED) {
            attn_scale_mask_row(scaled + at, masked + at, raw + at, allowed + at, n_k,
                                factor == 1.0 ? SCALE_COPY : SCALE_MULTIPLY, factor);
        } else if (from <= STAGE_MASKED) {
            attn_mask_row(masked + at, scaled + at, allowed + at, n_k);
        }
        SoftmaxRow sr;
        attn_softmax(weights + at, masked + at, n_k, &sr);
        row_sums[i] = sr.sum;
        entropy[i] = sr.entropy;
        max_weight[i] = sr.max_weight;
    }
}

/* O = A V for rows [r0, r0 + rows). Keys past the last one any row of the
 * block may see have weight 0 in every row: their products add nothing
 * (causal: half the work).
 * out out (n_q, d_v); in weights (n_q, n_k), vp: V (n_k, d_v) packed,
 * allowed (n_q, n_k). */
static void attend_forward(float *out, const float *weights, const MatPacked *vp, const unsigned char *allowed, int r0,
                           int rows, int n_k, int d_v) {
    int kmax = 0;
    for (int i = r0; i < r0 + rows; i++) {
        const unsigned char *ok = allowed + (size_t)i * n_k;
        for (int j = n_k - 1; j >= kmax; j--)
            if (ok[j]) {
                kmax = j + 1;
                break;
            }
    }
    mat_mul_rows_k(out, d_v, weights, n_k, vp, r0, rows, kmax);
}

// ----------------------------------------------------------------------------
// the tasks: a head, or a block of rows

/* E, PE and X of one side (n tokens) into embed, pe, x (n, d_model). */
static void embed_side(Model *m, int is_target, int n, float *embed, float *pe, float *x) {
    int dm = m->cfg.d_model;
    const TokenList *l = is_target ? &m->target_tokens : &m->tokens;
    int vocab = l->vocab + 1; /* + the <pad> id */
    /* Row of the first occurrence of each vocabulary id: repeats are copies. */
    int *first = malloc(sizeof(int) * (size_t)vocab);
    if (first)
        for (int v = 0; v < vocab; v++) first[v] = -1;
    for (int t = 0; t < n; t++) {
        size_t len;
        int id;
        const char *text = model_side_token(m, is_target, t, &len, &id);
        float *row = embed + (size_t)t * dm;
        if (first && first[id] >= 0) {
            memcpy(row, embed + (size_t)first[id] * dm, sizeof(float) * (size_t)dm);
            continue;
        }
        if (first) first[id] = t;
        RngStream r;
        rng_init(&r, rng_key_text(m->cfg.seed, text, len));
        for (int d = 0; d < dm; d++) row[d] = (float)rng_normal(&r);
    }
    free(first);
    posenc_forward(x, pe, embed, n, dm, m->cfg.pos);
}

static void compute_embed(Model *m) {
    embed_side(m, m->k_target, m->n_k, m->embed, m->pe, m->x);
    if (m->xq != m->x) embed_side(m, m->q_target, m->n_q, m->embed_q, m->pe_q, m->xq);
}

/* Work shared by the tasks of one stage. */
typedef struct {
    Model *m;
    MatPacked pack[MODEL_MAX_HEADS]; /* per head: K^T or V packed into the stages arena (no allocation) */
    int nb;                          /* row blocks per head */
    Stage from;                      /* the row stages: recompute from this one */
} Job;

/* Projections: every head's queries in one product, every head's keys and
 * values in another, a block of rows per task; then the rows are split into
 * the heads. */
enum { PROJ_ROWS = 128, PROJ_COLS = 256 }; /* a task's block: its part of the packed weights stays in L2 */

static void project_rows_task(void *ctx, int t) {
    Job *j = ctx;
    Model *m = j->m;
    const ModelConfig *c = &m->cfg;
    int h = c->heads, wq = h * c->d_k, wkv = h * (c->d_k + c->d_v);
    int qrb = (m->n_q + PROJ_ROWS - 1) / PROJ_ROWS, qcb = (wq + PROJ_COLS - 1) / PROJ_COLS;
    int kcb = (wkv + PROJ_COLS - 1) / PROJ_COLS;
    int queries = t < qrb * qcb;
    if (!queries) t -= qrb * qcb;
    int cb = queries ? qcb : kcb, rb = t / cb, col0 = (t % cb) * PROJ_COLS;
    int n = queries ? m->n_q : m->n_k, width = queries ? wq : wkv;
    int r0 = rb * PROJ_ROWS, rows = n - r0 < PROJ_ROWS ? n - r0 : PROJ_ROWS;
    int cols = width - col0 < PROJ_COLS ? width - col0 : PROJ_COLS;
    if (rows <= 0 || cols <= 0) return;
    float *tmp = queries ? m->tq : m->tkv;
    mat_mul_block(tmp, width, queries ? m->xq : m->x, c->d_model, queries ? &m->pq : &m->pkv, r0, rows, col0, cols);
    /* Split the block's columns into the heads' matrices. */
    for (int col = col0; col < col0 + cols;) {
        float *dst;
        int ld, off, run;
        if (queries) {
            int k = col / c->d_k;
            dst = m->head[k].q, ld = c->d_k, off = col % c->d_k, run = c->d_k - off;
        } else if (col < wq) {
            int k = col / c->d_k;
            dst = m->head[k].k, ld = c->d_k, off = col % c->d_k, run = c->d_k - off;
        } else {
            int k = (col - wq) / c->d_v;
            dst = m->head[k].v, ld = c->d_v, off = (col - wq) % c->d_v, run = c->d_v - off;
        }
        if (run > col0 + cols - col) run = col0 + cols - col;
        for (int i = r0; i < r0 + rows; i++)
            memcpy(dst + (size_t)i * ld + off, tmp + (size_t)i * width + col, sizeof(float) * (size_t)run);
        col += run;
    }
}

/* Without memory to pack the weights: each head's product unpacked (the same
 * sums, only slower). */
static void project_unpacked(Model *m) {
    const ModelConfig *c = &m->cfg;
    for (int k = 0; k < c->heads; k++) {
        HeadData *hd = &m->head[k];
        mat_mul(hd->q, c->d_k, m->xq, c->d_model, hd->wq, c->d_k, m->n_q, c->d_model, c->d_k);
        mat_mul(hd->k, c->d_k, m->x, c->d_model, c->tie_qk ? hd->wq : hd->wk, c->d_k, m->n_k, c->d_model, c->d_k);
        mat_mul(hd->v, c->d_v, m->x, c->d_model, hd->wv, c->d_v, m->n_k, c->d_model, c->d_v);
    }
}

static void compute_project(Model *m) {
    const ModelConfig *c = &m->cfg;
    if (m->source == SOURCE_QKV) {
        HeadData *hd = &m->head[0];
        memcpy(hd->q, m->qkv.q, sizeof(float) * (size_t)m->n_q * c->d_k);
        memcpy(hd->k, m->qkv.k, sizeof(float) * (size_t)m->n_k * c->d_k);
        memcpy(hd->v, m->qkv.v, sizeof(float) * (size_t)m->n_k * c->d_v);
        return;
    }
    /* The kernel or the tying changed since the weights were packed. */
    if (!mat_packed_current(&m->pq) || m->packed_tie != c->tie_qk) model_pack_weights(m);
    if (!mat_packed_current(&m->pq) || !mat_packed_current(&m->pkv)) {
        project_unpacked(m);
        return;
    }
    Job j = {.m = m, .from = STAGE_PROJECT};
    int h = c->heads, wq = h * c->d_k, wkv = h * (c->d_k + c->d_v);
    int tasks = ((m->n_q + PROJ_ROWS - 1) / PROJ_ROWS) * ((wq + PROJ_COLS - 1) / PROJ_COLS) +
                ((m->n_k + PROJ_ROWS - 1) / PROJ_ROWS) * ((wkv + PROJ_COLS - 1) / PROJ_COLS);
    par_for(tasks, project_rows_task, &j);
}

static void scores_pack_task(void *ctx, int h) {
    Job *j = ctx;
    const ModelConfig *c = &j->m->cfg;
    HeadData *hd = &j->m->head[h];
    if (c->score == SCORE_ADDITIVE) {
        /* mat_mul_bt falls back to the unpacked loop (the same sums) without memory */
        mat_mul_bt(hd->add_a, c->d_k, hd->q, c->d_k, hd->w1, c->d_k, j->m->n_q, c->d_k, c->d_k);
        mat_mul_bt(hd->add_b, c->d_k, hd->k, c->d_k, hd->w2, c->d_k, j->m->n_k, c->d_k, c->d_k);
    }
    if (c->score == SCORE_DOT || c->score == SCORE_COSINE)
        mat_pack_into(&j->pack[h], hd->pack_k, hd->k, c->d_k, c->d_k, j->m->n_k, 1);
}

/* Scores of a block of rows, then (from the scores on) its row stages. */
static void scores_rows_task(void *ctx, int t) {
    Job *j = ctx;
    int h = t / j->nb, r0 = (t % j->nb) * ROW_BLOCK;
    int rows = j->m->n_q - r0 < ROW_BLOCK ? j->m->n_q - r0 : ROW_BLOCK;
    if (rows <= 0) return;
    Model *m = j->m;
    const ModelConfig *c = &m->cfg;
    HeadData *hd = &m->head[h];
    if (j->from <= STAGE_SCORES) {
        if (c->score == SCORE_ADDITIVE)
            additive_scores_forward(hd->scores, hd->add_a, hd->add_b, hd->va, r0, rows, m->n_k, c->d_k);
        else scores_forward(hd->scores, hd->q, hd->k, &j->pack[h], r0, rows, m->n_k, c->d_k, c->score);
    }
    if (j->from <= STAGE_WEIGHTS)
        softmax_rows_forward(hd->scaled, hd->masked, hd->weights, hd->row_sums, hd->entropy, hd->max_weight, hd->scores,
                             m->allowed, r0, rows, m->n_k, model_scale_factor(c), j->from);
}

static void compute_mask(Model *m) {
    const TokenList *keys = m->k_target ? &m->target_tokens : &m->tokens;
    for (int j = 0; j < m->n_k; j++) m->pad_key[j] = m->source == SOURCE_TEXT && j >= keys->n;
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
        int n = 0;
        for (int j = 0; j < m->n_k; j++) n += m->allowed[(size_t)i * m->n_k + j];
        m->n_allowed[i] = n;
    }
}

/* Scores (when stale), scaled, masked and weights, in one pass over the rows. */
static void compute_attention(Model *m, Stage from) {
    int heads = m->cfg.heads;
    if (from <= STAGE_MASKED) compute_mask(m);
    Job j = {.m = m, .nb = row_blocks(m->n_q), .from = from};
    if (from <= STAGE_SCORES) par_for(heads, scores_pack_task, &j);
    par_for(heads * j.nb, scores_rows_task, &j);
}

double attn_softmax_row(float *w, const float *s, int n) {
    SoftmaxRow r;
    attn_softmax(w, s, n, &r);
    return r.sum;
}

/* O_h = A_h V_h: V packed per head, then blocks of rows. */
static void output_pack_task(void *ctx, int h) {
    Job *j = ctx;
    HeadData *hd = &j->m->head[h];
    mat_pack_into(&j->pack[h], hd->pack_v, hd->v, j->m->cfg.d_v, j->m->n_k, j->m->cfg.d_v, 0);
}

static void output_rows_task(void *ctx, int t) {
    Job *j = ctx;
    Model *m = j->m;
    int h = t / j->nb, r0 = (t % j->nb) * ROW_BLOCK, dv = m->cfg.d_v;
    int rows = m->n_q - r0 < ROW_BLOCK ? m->n_q - r0 : ROW_BLOCK;
    if (rows <= 0) return;
    attend_forward(m->head[h].out, m->head[h].weights, &j->pack[h], m->allowed, r0, rows, m->n_k, dv);
}

static void compute_output(Model *m) {
    int heads = m->cfg.heads;
    Job j = {.m = m, .nb = row_blocks(m->n_q), .from = STAGE_OUTPUT};
    par_for(heads, output_pack_task, &j);
    par_for(heads * j.nb, output_rows_task, &j);
}

/* Y = concat(O_h) W_O: W_O packed once, blocks of rows on the threads. */
static void final_rows_task(void *ctx, int t) {
    Job *j = ctx;
    Model *m = j->m;
    const ModelConfig *c = &m->cfg;
    int width = c->heads * c->d_v, r0 = t * ROW_BLOCK;
    int rows = m->n_q - r0 < ROW_BLOCK ? m->n_q - r0 : ROW_BLOCK;
    for (int i = r0; i < r0 + rows; i++)
        for (int h = 0; h < c->heads; h++)
            memcpy(m->concat + (size_t)i * width + (size_t)h * c->d_v, m->head[h].out + (size_t)i * c->d_v,
                   sizeof(float) * (size_t)c->d_v);
    if (mat_packed_current(&m->po)) mat_mul_rows(m->y, c->d_model, m->concat, width, &m->po, r0, rows);
    else
        mat_mul(m->y + (size_t)r0 * c->d_model, c->d_model, m->concat + (size_t)r0 * width, width, m->wo, c->d_model,
                rows, width, c->d_model);
}

static void compute_final(Model *m) {
    Job j = {.m = m, .nb = row_blocks(m->n_q), .from = STAGE_FINAL};
    par_for(j.nb, final_rows_task, &j);
}

void model_update_to(Model *m, Stage last) {
    if (m->stale == STAGE_NONE || m->stale > last) return;
    Stage from = m->stale;
    /* A cancel request (cancel.h) is checked after every stage: the pass
     * stops with m->stale where it was, so nothing half computed is taken as
     * current (the next update does it all again). */
    if (m->source == SOURCE_TEXT && m->weights_stale) model_draw_weights(m);
    if (av_cancelled()) return;
    if (m->cfg.score == SCORE_ADDITIVE && m->additive_stale) model_draw_additive(m);
    if (av_cancelled()) return;
    if (m->source == SOURCE_QKV && from < STAGE_PROJECT) from = STAGE_PROJECT;
    if (from <= STAGE_EMBED) compute_embed(m);
    if (av_cancelled()) return;
    if (from <= STAGE_PROJECT) compute_project(m);
    if (av_cancelled()) return;
    if (from <= STAGE_WEIGHTS && last >= STAGE_SCORES) compute_attention(m, from);
    if (av_cancelled()) return;
    if (from <= STAGE_OUTPUT && last >= STAGE_OUTPUT) compute_output(m);
    if (av_cancelled()) return;
    if (from <= STAGE_FINAL && last >= STAGE_FINAL && m->source == SOURCE_TEXT) compute_final(m);
    if (av_cancelled()) return;
    for (Stage s = from; s <= last && s < STAGE_COUNT; s++)
        if (s != STAGE_FINAL || m->source == SOURCE_TEXT) m->computed[s]++;
    /* A file has no Y: nothing stays stale after its output. */
    m->stale = last >= STAGE_FINAL || (m->source != SOURCE_TEXT && last >= STAGE_OUTPUT) ? STAGE_NONE : last + 1;
}

int model_update(Model *m, AvError *err) {
    (void)err; /* storage is made by the setters: a recompute cannot fail */
    model_update_to(m, STAGE_FINAL);
    return 0;
}
