/* model_weights.c - the seeded weights: W_Q, W_K, W_V, W_O drawn column by
 * column from their own streams (prefix-stable: growing a shape only appends
 * numbers), their packed copies for the kernels, and additive attention's
 * W1, W2, v. */
#include "model_internal.h"

#include "cancel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "parallel.h"
#include "rng.h"

// ----------------------------------------------------------------------------
// weights

/* Column j of a (rows, cols) matrix from the stream (seed, kind, head, j):
 * growing rows or cols only appends unit normals; entries are those normals
 * times 1/sqrt(fan_in), so that they are N(0, 1/fan_in). */

/* Task 0: W_O, then every head's W_Q side by side; task 1: W_K and W_V. */
static void pack_task(void *ctx, int t) {
    Model *m = ctx;
    const ModelConfig *c = &m->cfg;
    int dm = c->d_model, h = c->heads, nq = h * c->d_k, nkv = h * (c->d_k + c->d_v);
    if (t == 0) /* W_O first: it needs no temporary, so it is never left packed from older weights */
        mat_pack_into(&m->po, m->po.data, m->wo, c->d_model, c->heads * c->d_v, c->d_model, 0);
    float *tmp = malloc(sizeof(float) * ((size_t)dm * (size_t)(t == 0 ? nq : nkv) + 1));
    if (!tmp) { /* out of memory: packs marked invalid, compute_project falls back */
        if (t == 0) m->pq.nr = 0;
        else m->pkv.nr = 0;
        return;
    }
    if (t == 0) {
        for (int r = 0; r < dm; r++)
            for (int k = 0; k < h; k++)
                memcpy(tmp + (size_t)r * nq + (size_t)k * c->d_k, m->heads[k].wq + (size_t)r * c->d_k,
                       sizeof(float) * (size_t)c->d_k);
        mat_pack_into(&m->pq, m->pq.data, tmp, nq, dm, nq, 0);
    } else {
        for (int r = 0; r < dm; r++)
            for (int k = 0; k < h; k++) {
                const float *wk = c->tie_qk ? m->heads[k].wq : m->heads[k].wk;
                memcpy(tmp + (size_t)r * nkv + (size_t)k * c->d_k, wk + (size_t)r * c->d_k,
                       sizeof(float) * (size_t)c->d_k);
                memcpy(tmp + (size_t)r * nkv + (size_t)h * c->d_k + (size_t)k * c->d_v,
                       m->heads[k].wv + (size_t)r * c->d_v, sizeof(float) * (size_t)c->d_v);
            }
        mat_pack_into(&m->pkv, m->pkv.data, tmp, nkv, dm, nkv, 0);
    }
    free(tmp);
}

/* The packed copies of the weights, for the kernel in use: made when the
 * weights are drawn (they change rarely), again if the kernel or the tying
 * of Q and K changed. The heads' W_Q side by side make one product for every
 * head's queries; W_K and W_V side by side one for the keys and values; the
 * two are packed side by side on the threads. */
void model_pack_weights(Model *m) {
    const ModelConfig *c = &m->cfg;
    double floats = (double)c->d_model * c->heads * (2.0 * c->d_k + 2.0 * c->d_v);
    m->pq.nr = m->pkv.nr = -1; /* set by the packs; 0 when one could not be made */
    par_for_work(2, pack_task, m, floats * 4);
    if (m->pq.nr < 0 || m->pkv.nr < 0) m->pq.nr = m->pkv.nr = 0; /* cancelled before a pack: invalid */
    m->packed_tie = c->tie_qk;
}

/* Columns [j0, cols) of w (rows, cols), column j from the stream (seed,
 * kind, head, j), times scale; drawn COL_BLOCK columns at a time and written
 * row by row (a column at a time wrote one float per cache line). */
enum { COL_BLOCK = 8 };

static void draw_columns(float *w, int cols, int j0, size_t rows, uint64_t seed, RngKind kind, int head, double scale) {
    double one[MODEL_MAX_DIM], *blk = j0 < cols ? malloc(sizeof(double) * COL_BLOCK * rows) : NULL;
    for (int j = j0; j < cols;) {
        int nb = blk ? (cols - j < COL_BLOCK ? cols - j : COL_BLOCK) : 1;
        double *buf = blk ? blk : one;
        for (int b = 0; b < nb; b++) {
            RngStream r;
            rng_init(&r, rng_key(seed, kind, (uint32_t)head, (uint32_t)(j + b)));
            rng_normals(&r, buf + (size_t)b * rows, (int)rows);
        }
        for (size_t i = 0; i < rows; i++)
            for (int b = 0; b < nb; b++) w[i * cols + j + b] = (float)(buf[(size_t)b * rows + i] * scale);
        j += nb;
    }
    free(blk);
}

/* The weights, a head at a time on the threads: streams are independent, so
 * the numbers do not depend on who draws them. Columns kept from before a
 * change of shape (model->keep_*) are not drawn again. */
static void draw_head_task(void *ctx, int h) {
    Model *m = ctx;
    const ModelConfig *c = &m->cfg;
    size_t dm = (size_t)c->d_model;
    HeadData *hd = &m->heads[h]; /* the seeded sentence has one layer */
    int kept = h < m->keep_heads, kdk = kept ? m->keep_dk : 0, kdv = kept ? m->keep_dv : 0;
    double scale = 1.0 / sqrt((double)c->d_model);
    draw_columns(hd->wq, c->d_k, kdk, dm, c->seed, RNG_KIND_WQ, h, scale);
    draw_columns(hd->wk, c->d_k, kdk, dm, c->seed, RNG_KIND_WK, h, scale);
    draw_columns(hd->wv, c->d_v, kdv, dm, c->seed, RNG_KIND_WV, h, scale);
    /* W_O (heads * d_v, d_model): row (h, c) is the stream (seed, WO, h, c).
     * Its scale depends on heads * d_v, so every row is scaled again from its
     * unit normals (kept in double: the same floats as a fresh draw). */
    double wscale = 1.0 / sqrt((double)c->heads * c->d_v);
    for (int col = 0; col < c->d_v; col++) {
        double *nrm = m->wo_normals + ((size_t)h * c->d_v + col) * dm;
        if (col >= kdv) {
            RngStream r;
            rng_init(&r, rng_key(c->seed, RNG_KIND_WO, (uint32_t)h, (uint32_t)col));
            rng_normals(&r, nrm, (int)dm);
        }
        float *row = m->wo + ((size_t)h * c->d_v + col) * dm;
        for (size_t i = 0; i < dm; i++) row[i] = (float)(nrm[i] * wscale);
    }
}

void model_draw_weights(Model *m) {
    par_for(m->cfg.heads, draw_head_task, m);
    if (av_cancelled()) return; /* still stale; the columns kept before stay kept */
    model_pack_weights(m);
    m->keep_heads = m->keep_dk = m->keep_dv = 0;
    m->weights_stale = 0;
}

/* Additive attention's W1, W2 (d_k, d_k) of N(0, 1/d_k) and v (d_k) of N(0, 1)
 * for head h (counted over all layers: layer l's head k is l * heads + k),
 * each row its own stream (prefix-stable like the others). */
static void draw_additive_task(void *ctx, int h) {
    Model *m = ctx;
    const ModelConfig *c = &m->cfg;
    HeadData *hd = &m->heads[h];
    int dk = c->d_k;
    double s = 1.0 / sqrt((double)dk);
    for (int a = 0; a < dk; a++) {
        RngStream r1, r2;
        rng_init(&r1, rng_key(c->seed, RNG_KIND_ADD_W1, (uint32_t)h, (uint32_t)a));
        rng_init(&r2, rng_key(c->seed, RNG_KIND_ADD_W2, (uint32_t)h, (uint32_t)a));
        for (int p = 0; p < dk; p++) {
            hd->w1[(size_t)a * dk + p] = (float)(rng_normal(&r1) * s);
            hd->w2[(size_t)a * dk + p] = (float)(rng_normal(&r2) * s);
        }
    }
    RngStream rv;
    rng_init(&rv, rng_key(c->seed, RNG_KIND_ADD_V, (uint32_t)h, 0));
    for (int a = 0; a < dk; a++) hd->va[a] = (float)rng_normal(&rv);
}

void model_draw_additive(Model *m) {
    par_for(m->cfg.layers * m->cfg.heads, draw_additive_task, m);
    if (av_cancelled()) return; /* still stale: drawn again, all of them, next time */
    m->additive_stale = 0;
}
