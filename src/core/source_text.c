/* source_text.c - the seeded sentence (source.h): tokens, embeddings from
 * the seed (E, PE, X), projections through seeded weights (model_weights.c)
 * into every head's Q, K and V, and the layer output Y = concat(O_h) W_O. One
 * layer. */
#include "model_internal.h"

#include "cancel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "parallel.h"
#include "rng.h"

enum { ROW_BLOCK = 64 };

static int row_blocks(int n) { return (n + ROW_BLOCK - 1) / ROW_BLOCK; }

// ----------------------------------------------------------------------------
// embeddings

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

/* E, PE and X of one side (n tokens) into embed, pe, x (n, d_model). */
static void embed_side(Model *m, int is_target, int n, float *embed, float *pe, float *x) {
    int dm = m->cfg.d_model;
    double col[MODEL_MAX_DIM];
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
        rng_normals(&r, col, dm);
        for (int d = 0; d < dm; d++) row[d] = (float)col[d];
    }
    free(first);
    posenc_forward(x, pe, embed, n, dm, m->cfg.pos);
}

static void compute_embed(Model *m) {
    embed_side(m, m->k_target, m->n_k, m->embed, m->pe, m->x);
    if (m->xq != m->x) embed_side(m, m->q_target, m->n_q, m->embed_q, m->pe_q, m->xq);
}

/* dst[0..n) = src[0..n): a head's row piece (d_k or d_v floats, often 16),
 * in fixed-size copies the compiler makes into vector moves, not a call. */
static void copy_floats(float *dst, const float *src, int n) {
    for (; n >= 8; n -= 8, dst += 8, src += 8) memcpy(dst, src, 8 * sizeof(float));
    if (n > 0) memcpy(dst, src, sizeof(float) * (size_t)n);
}

/* Work shared by the tasks of one stage. */
typedef struct {
    Model *m;
    int nb; /* row blocks */
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
            copy_floats(dst + (size_t)i * ld + off, tmp + (size_t)i * width + col, run);
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
    /* The kernel or the tying changed since the weights were packed. */
    if (!mat_packed_current(&m->pq) || m->packed_tie != c->tie_qk) model_pack_weights(m);
    if (!mat_packed_current(&m->pq) || !mat_packed_current(&m->pkv)) {
        project_unpacked(m);
        return;
    }
    Job j = {.m = m};
    int h = c->heads, wq = h * c->d_k, wkv = h * (c->d_k + c->d_v);
    int tasks = ((m->n_q + PROJ_ROWS - 1) / PROJ_ROWS) * ((wq + PROJ_COLS - 1) / PROJ_COLS) +
                ((m->n_k + PROJ_ROWS - 1) / PROJ_ROWS) * ((wkv + PROJ_COLS - 1) / PROJ_COLS);
    par_for_work(tasks, project_rows_task, &j, 2.0 * c->d_model * ((double)m->n_q * wq + (double)m->n_k * wkv));
}

// ----------------------------------------------------------------------------
// the layer output

/* Y = concat(O_h) W_O: W_O packed once; the heads joined a block of rows at
 * a time, then blocks of rows x columns on the threads (a short sentence is
 * one block of rows: its columns still share the work). */
static void concat_rows_task(void *ctx, int t) {
    Job *j = ctx;
    Model *m = j->m;
    const ModelConfig *c = &m->cfg;
    int width = c->heads * c->d_v, r0 = t * ROW_BLOCK;
    int rows = m->n_q - r0 < ROW_BLOCK ? m->n_q - r0 : ROW_BLOCK;
    for (int i = r0; i < r0 + rows; i++)
        for (int h = 0; h < c->heads; h++)
            copy_floats(m->concat + (size_t)i * width + (size_t)h * c->d_v, m->head[h].out + (size_t)i * c->d_v,
                        c->d_v);
}

static void final_rows_task(void *ctx, int t) {
    Job *j = ctx;
    Model *m = j->m;
    const ModelConfig *c = &m->cfg;
    int width = c->heads * c->d_v, cb = (c->d_model + PROJ_COLS - 1) / PROJ_COLS;
    int r0 = (t / cb) * ROW_BLOCK, col0 = (t % cb) * PROJ_COLS;
    int rows = m->n_q - r0 < ROW_BLOCK ? m->n_q - r0 : ROW_BLOCK;
    int cols = c->d_model - col0 < PROJ_COLS ? c->d_model - col0 : PROJ_COLS;
    if (mat_packed_current(&m->po)) mat_mul_block(m->y, c->d_model, m->concat, width, &m->po, r0, rows, col0, cols);
    else
        mat_mul(m->y + (size_t)r0 * c->d_model + col0, c->d_model, m->concat + (size_t)r0 * width, width, m->wo + col0,
                c->d_model, rows, width, cols);
}

static void compute_final(Model *m) {
    const ModelConfig *c = &m->cfg;
    Job j = {.m = m, .nb = row_blocks(m->n_q)};
    double flops = 2.0 * m->n_q * c->heads * c->d_v * c->d_model;
    par_for_work(j.nb, concat_rows_task, &j, (double)m->n_q * c->heads * c->d_v * 4);
    par_for_work(j.nb * ((c->d_model + PROJ_COLS - 1) / PROJ_COLS), final_rows_task, &j, flops);
}

// ----------------------------------------------------------------------------
// the source

static void text_forward(Model *m, int layer, int from) {
    (void)layer; /* one layer */
    if (m->weights_stale) model_draw_weights(m);
    if (av_cancelled()) return;
    if (from <= STAGE_EMBED) compute_embed(m);
    if (av_cancelled()) return;
    compute_project(m);
}

static void text_final(Model *m, int layer) {
    (void)layer;
    compute_final(m);
}

static const char *text_query(const Model *m, int i, size_t *len) {
    return model_side_token(m, m->q_target, i, len, NULL);
}

static const char *text_key(const Model *m, int j, size_t *len) {
    return model_side_token(m, m->k_target, j, len, NULL);
}

static int text_key_id(const Model *m, int j) {
    size_t len;
    int id;
    model_side_token(m, m->k_target, j, &len, &id);
    return id;
}

const Source source_text = {
    .name = "text",
    .fixed = N_("the sentence model"),
    .what = N_("a sentence"),
    .caps = SRC_TEXT | SRC_EMBED | SRC_WEIGHTS | SRC_RESHAPE | SRC_SEEDED | SRC_TOKENIZERS | SRC_SCORE_KINDS,
    .forward = text_forward,
    .final = text_final,
    .query_text = text_query,
    .key_text = text_key,
    .key_id = text_key_id,
};
