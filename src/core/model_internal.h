/* model_internal.h - what the model's files share (model.h is the public
 * side): the storage of model_storage.c, the weights of model_weights.c, the
 * tokens of each side (model.c) and the scaling both the forward pass and the
 * cell detail need. Not for the front end. */
#ifndef ATTNVIZ_MODEL_INTERNAL_H
#define ATTNVIZ_MODEL_INTERNAL_H

#include <math.h>
#include <stddef.h>

#include "model.h"
#include "matrix.h"

// ----------------------------------------------------------------------------
// storage (model_storage.c)

/* Bytes of the three arenas for configuration c with n_q x n_k tokens:
 * E, PE, X of the keys' sentence (and of the queries' with two_sides), the
 * weights (text only), the stages of every head. model_check_budget counts
 * with them. */
size_t model_embed_bytes(const ModelConfig *c, int n_q, int n_k, int two_sides);
size_t model_weights_bytes(const ModelConfig *c);
size_t model_stages_bytes(const ModelConfig *c, int n_q, int n_k, const Source *src);

/* Makes room for configuration c with n_q x n_k tokens from src: the arenas
 * whose shape changes are allocated anew; on failure nothing changes and err
 * says why. On success the configuration, sizes and source are the new ones
 * (the caller commits its own tokens or matrices) and m->stale says where to
 * recompute from. */
int model_reshape(Model *m, const ModelConfig *c, int n_q, int n_k, const Source *src, int q_target, int k_target,
                  AvError *err);

/* model_reshape with room for `room` rows and keys (more than n_q, n_k;
 * else none) in the stages arena, for model_resize_rows. */
int model_reshape_room(Model *m, const ModelConfig *c, int n_q, int n_k, int room, const Source *src, int q_target,
                       int k_target, AvError *err);

/* Self-attention over n rows (within the room of the stages arena) keeping
 * rows [0, keep) of every stage of every layer: a causal sentence edited
 * after its first keep tokens. The kept rows' (n, n) stages move in place to
 * the new row length; the next update computes rows [keep, n), and the new
 * keys' columns of the kept rows (which the causal mask hides from them).
 * The source keeps its own rows before keep (its Q, K, V and whatever feeds
 * the next layer), and calls this only under a causal mask with every stage
 * current. On failure (no room, a budget) nothing changes. */
int model_resize_rows(Model *m, int n, int keep, AvError *err);

/* Marks stage s and every later one stale in every layer (the rows kept by
 * model_resize_rows too). */
void model_mark_stale(Model *m, Stage s);

// ----------------------------------------------------------------------------
// weights (model_weights.c)

/* Draws the stale weights (W_Q, W_K, W_V, W_O; columns kept from before a
 * change of shape are not drawn again) and packs them; a cancel request
 * leaves them stale. */
void model_draw_weights(Model *m);

/* Packs the weights for the kernel in use (W_O, [W_Q], [W_K | W_V]); on
 * failure the packs are marked invalid and the products run unpacked. */
void model_pack_weights(Model *m);

/* Additive attention's W1, W2 and v of every head (in the stages arena):
 * drawn when the stages arena is new or the seed changed (m->additive_stale),
 * not at every score pass. A cancel request leaves them stale. */
void model_draw_additive(Model *m);

// ----------------------------------------------------------------------------
// the sentences on each side (model.c)

/* Token t of a side (is_target: the target sentence): its text, length and
 * vocabulary id (id may be NULL); past the sentence's tokens, <pad>. */
const char *model_side_token(const Model *m, int is_target, int t, size_t *len, int *id);

// ----------------------------------------------------------------------------
// numbers shared by the forward pass and the cell detail

static inline double model_norm(const float *v, int n) { return sqrt(vec_dot(v, v, n)); }

/* What the scaling stage multiplies by, per score kind (model.h). */
static inline double model_scale_factor(const ModelConfig *c) {
    if (!c->scale) return 1.0;
    switch (c->score) {
    case SCORE_DOT:
    case SCORE_DISTANCE: return 1.0 / sqrt((double)c->d_k);
    case SCORE_COSINE: return sqrt((double)c->d_k);
    default: return 1.0;
    }
}

#endif
