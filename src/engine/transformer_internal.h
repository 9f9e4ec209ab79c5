/* transformer_internal.h - what the engine's two files share: the products
 * (transformer_linear.c) the layers (transformer.c) are made of. Not for
 * the engine's users: transformer.h is its interface. */
#ifndef ATTNVIZ_TRANSFORMER_INTERNAL_H
#define ATTNVIZ_TRANSFORMER_INTERNAL_H

#include <stdatomic.h>

#include "transformer.h"

/* One product of a job: out = x W^T + bias, then what follows block by block. */
typedef struct {
    const TfMat *w;
    const float *bias; /* (n_out) or NULL */
    float *out;        /* (rows, n_out; ld) */
    int ld, n_out;
    float *sum;       /* sum = add + out (a residual), or NULL */
    const float *add; /* (rows, n_out; ld) */
} LinOut;

enum { LIN_MAX = 3, XT_CHUNKS = 64 };

/* What follows the products, block by block, while the block is in cache. */
typedef enum {
    ACT_NONE,
    ACT_GELU,   /* gelu_tanh on outs[0] (after its bias) */
    ACT_SWIGLU, /* outs[0] = silu(outs[0]) * outs[1], block by block of outs[0] */
} LinAct;

/* Products of one x, their blocks one list of tasks. */
typedef struct {
    TfRun *r;
    const float *x; /* (rows, n_in; ld_x) */
    int ld_x, rows, n_in;
    MatPacked xt[XT_CHUNKS]; /* x^T (n_in, rows) when a product is `left`, by chunks of rows */
    int chunk, nchunks;      /* rows per chunk (a multiple of 32: the chunks pack into r->pack end to end) */
    LinOut outs[LIN_MAX];
    int nouts;
    LinAct act;
    int items;
    atomic_int next; /* the next item to take: a lane takes items while there are (the pool may start it late) */
} Linear;

/* The products of j (r, x, ld_x, rows, n_in, outs, nouts, act set), on the pool. */
void tf_linear_run(Linear *j);

/* out (rows, n_out; ld_out) = x (rows, n_in; ld_x) W^T + bias, alone. */
void tf_linear_forward(TfRun *r, float *out, int ld_out, const float *x, int ld_x, const TfMat *w, const float *bias,
                       int rows, int n_in, int n_out);

/* n elements of t from element first, as floats (exact for every type; a
 * block type's first and n multiples of its block: whole rows of W). */
void tf_to_f32(const StTensor *t, size_t first, size_t n, float *out);

/* Rows [o0, o0 + wrows) of W as floats: in place when the tensor is F32,
 * aligned and not transposed (*ld its row stride), else converted into buf
 * (wrows, n_in). */
const float *tf_mat_block(const TfMat *w, int o0, int wrows, int n_in, float *buf, int *ld);

/* The widest input of a product. */
int tf_in_max(const TfConfig *c);

/* A lane's floats for a product's tile (TF_W_BLOCK, cap) or a packed block;
 * TF_W_BLOCK x tf_in_max more follow for a converted block. */
size_t tf_tile_floats(const TfRun *r);

#endif
