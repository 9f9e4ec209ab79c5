/* pipeline.c - the pipeline view: every stage of the chain for one head,
 * with its shape, drawn as a document of its natural size (page.h) that the
 * screen shows a window of, scrolled with the arrows. The blocks are the
 * catalogue's tensors (tensor.h); for a trained model (trained.h), the
 * real chain of the layer shown, from its input x to the next layer's. A
 * block shows the columns that fit the screen's width: -> shows the next
 * ones while its title and its row labels stay put; [ and ] put the previous
 * or next stage at the top. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chrome.h"
#include "cli.h"
#include "formula.h"
#include "i18n.h"
#include "keymap.h"
#include "maskname.h"
#include "page.h"
#include "model.h"
#include "text.h"
#include "view.h"
#include "widgets.h"

#define G view_glyphs

// ----------------------------------------------------------------------------
// what am I looking at: 2-4 lines per view and per stage, shown by the help

/* One paragraph (the help wraps it), translated where drawn (help.c). */
static const char *const about_pipeline[] = {
    N_("The whole chain for one head, as the texts write it: tokens -> ids -> embeddings E "
       "-> Q = XW_Q, K = XW_K, V = XW_V -> scores QK^T -> / sqrt(d_k) -> mask -> softmax A "
       "-> output O = AV, then the heads joined and projected by W_O. Each stage shows its "
       "shape (rows, cols). In cross-attention Q comes from the target's own tokens, E and X "
       "(X_target), K and V from the sentence's. Tab changes the head; [ and ] put the "
       "previous or next stage at the top; the arrows and PgUp/PgDn scroll (-> shows more "
       "columns, the token labels stay); the footer names the stage at the top."),
    NULL};
/* What each tensor of the catalogue's v cycle (tensor.h) shows, for the help. */
// ----------------------------------------------------------------------------
// the pipeline

enum { PIPE_CW = PAGE_CW, PIPE_MAX_ROWS = 64, PIPE_MAX_COLS = 32, PIPE_LABEL = 8 };

typedef enum { ROWS_QUERIES, ROWS_KEYS, ROWS_DIMS } RowLabels;

typedef struct {
    char title[96];
    ShownMat sm;
    RowLabels rows;
    int is_tokens;  /* the tokens -> ids block (of the side its rows say) */
    int is_note;    /* a line of text only (the title) */
    int breaks;     /* starts a row of its own (cross-attention's two chains) */
    int sums;       /* a column with each row's sum */
    int max_cols;   /* columns that fit the width (block_size) */
    int col0;       /* the first column shown: -> scrolls the columns, not the labels */
    int x, y, w, h; /* place in the document */
} Block;

/* The blocks being filled: b[0..n), room for max; the chain of a trained
 * model's layer and the RoPE angles it shows (freed by blocks_free). */
typedef struct {
    Block *b;
    int n, max;
    int chain;     /* a trained model's: arrows between the blocks */
    float *angles; /* (n, head_size / 2) */
} BlockList;

/* Appends the block of tensor t (tensor.h) of the head shown: its data,
 * shape, ramp, labels and whether cells can be masked come from the
 * catalogue, the title from the caller; the block, or NULL when full. */
static Block *block_tensor(BlockList *bl, const App *a, Tensor t, const char *title) {
    if (bl->n >= bl->max) return NULL;
    Block *b = &bl->b[bl->n++];
    view_matrix(a, t, a->head, &b->sm);
    b->sm.row_stats = 0; /* the pipeline has its own sums column */
    snprintf(b->title, sizeof b->title, "%s  (%d, %d)", title, b->sm.rows, b->sm.cols);
    TensorSide rows = tensor_info(t)->rows;
    b->rows = rows == SIDE_QUERIES ? ROWS_QUERIES : rows == SIDE_KEYS ? ROWS_KEYS : ROWS_DIMS;
    b->sums = (tensor_info(t)->flags & TF_OWNS_STATS) != 0;
    return b;
}

/* The vocabulary id of query token i: the target's in cross-attention (its
 * own vocabulary, as the keys' sentence has its own), else the keys'. */
static int query_id(const Model *m, int i) {
    if (m->q_target == m->k_target) return model_key_id(m, i);
    const TokenList *l = m->q_target ? &m->target_tokens : &m->tokens;
    return i < l->n ? l->tok[i].id : l->vocab; /* past the end: a <pad> */
}

/* A block of a matrix of the queries' sentence (cross-attention's target). */
static Block *block_queries(BlockList *bl, const float *v, int rows, int cols, const char *title) {
    if (bl->n >= bl->max) return NULL;
    Block *b = &bl->b[bl->n++];
    view_matrix_of(&b->sm, v, rows, cols, 1);
    snprintf(b->title, sizeof b->title, "%s  (%d, %d)", title, rows, cols);
    b->rows = ROWS_QUERIES;
    return b;
}

/* The tokens -> ids block of one side. */
static void block_tokens(BlockList *bl, const App *a, RowLabels side, int n, const char *who) {
    if (bl->n >= bl->max) return;
    Block *b = &bl->b[bl->n++];
    b->is_tokens = 1;
    b->rows = side;
    /* TRANSLATORS: "target tokens → ids  (9)": the side ("", "target ", "sentence "), an arrow, the count */
    snprintf(b->title, sizeof b->title, _("%stokens %s ids  (%d)"), who, G(a)->arrow, n);
    b->sm.rows = n;
}

/* tokens -> ids, E, and with a positional encoding PE and X = E + PE, of the
 * keys' sentence or (queries set) of the queries' one, cross-attention's
 * target. `who` names the side in the tokens' title ("", "target "), `sub`
 * in the matrices' ("", "_target"). */
static void blocks_embed(const App *a, BlockList *bl, int queries, const char *who, const char *sub) {
    const Model *m = a->m;
    int pos = m->cfg.pos != POS_NONE, n = queries ? m->n_q : m->n_k, dm = m->cfg.d_model;
    char t[96];
    block_tokens(bl, a, queries ? ROWS_QUERIES : ROWS_KEYS, n, who);
    /* TRANSLATORS: "E_target = embedding(target ids)" */
    snprintf(t, sizeof t, _("E%s = embedding(%sids)"), sub, who);
    if (queries) block_queries(bl, m->embed_q, n, dm, t);
    else block_tensor(bl, a, TENSOR_E, t);
    if (!pos) return;
    snprintf(t, sizeof t, "PE%s", sub);
    if (queries) block_queries(bl, m->pe_q, n, dm, t);
    else block_tensor(bl, a, TENSOR_PE, t);
    snprintf(t, sizeof t, "X%s = E%s + PE%s", sub, sub, sub);
    if (queries) block_queries(bl, m->xq, n, dm, t);
    else block_tensor(bl, a, TENSOR_X, t);
}

/* From a sentence: tokens -> ids, E (+ PE = X), the head's weights, Q, K, V.
 * Cross-attention has two chains up to X: the sentence's (keys and values)
 * and the target's (queries), Q = X_target W_Q; causal-self attention on a
 * target has the target's. */
static void blocks_sentence(const App *a, BlockList *bl) {
    const Model *m = a->m;
    int two = m->q_target != m->k_target;
    const char *kwho = two ? _("sentence ") : m->k_target ? _("target ") : "", *ksub = m->k_target ? "_target" : "";
    const char *qsub = m->q_target ? "_target" : "";
    char t[96];
    blocks_embed(a, bl, 0, kwho, ksub);
    if (two) { /* the target's chain on rows of its own, then the weights */
        int from = bl->n;
        blocks_embed(a, bl, 1, m->q_target ? _("target ") : _("sentence "), qsub);
        if (from < bl->n) bl->b[from].breaks = 1;
        if (bl->n < bl->max) bl->b[bl->n].breaks = 1;
    }
    block_tensor(bl, a, TENSOR_WQ, "W_Q");
    block_tensor(bl, a, TENSOR_WK, "W_K");
    block_tensor(bl, a, TENSOR_WV, "W_V");
    snprintf(t, sizeof t, "Q = X%s W_Q", qsub);
    block_tensor(bl, a, TENSOR_Q, t);
    snprintf(t, sizeof t, "K = X%s W_K", ksub);
    block_tensor(bl, a, TENSOR_K, t);
    snprintf(t, sizeof t, "V = X%s W_V", ksub);
    block_tensor(bl, a, TENSOR_V, t);
}

/* From a Q/K/V file: Q, K and V as they were read. */
static void blocks_file(const App *a, BlockList *bl) {
    block_tensor(bl, a, TENSOR_Q, "Q");
    block_tensor(bl, a, TENSOR_K, "K");
    block_tensor(bl, a, TENSOR_V, "V");
}

/* The head's attention: S, S', the mask, A with its row sums, O. */
static void blocks_attention(const App *a, BlockList *bl) {
    const Model *m = a->m;
    const ModelConfig *c = &m->cfg;
    char t[96];
    /* The raw scores and their scaling, as the score kind computes them. */
    FormulaOf f = formula_of(c, a->ascii);
    formula_text(t, sizeof t, FORMULA_PIPELINE, STAGE_SCORES, &f);
    block_tensor(bl, a, TENSOR_SCORES, t);
    formula_text(t, sizeof t, FORMULA_PIPELINE, STAGE_SCALED, &f);
    block_tensor(bl, a, TENSOR_SCALED, t);
    if (c->mask != MASK_NONE) {
        char mk[32];
        mask_shown_name(c, mk, sizeof mk);
        snprintf(t, sizeof t, _("M = mask(S'), %s"), mk);
        block_tensor(bl, a, TENSOR_MASKED, t);
    }
    block_tensor(bl, a, TENSOR_WEIGHTS, c->mask != MASK_NONE ? "A = softmax(M)" : "A = softmax(S')");
    block_tensor(bl, a, TENSOR_OUTPUT, "O = A V");
}

/* The layer after the heads: their outputs joined, W_O, Y. */
static void blocks_layer(const App *a, BlockList *bl) {
    const Model *m = a->m;
    const ModelConfig *c = &m->cfg;
    char t[96];
    snprintf(t, sizeof t, "concat(O_1..O_%d)", c->heads);
    block_tensor(bl, a, TENSOR_CONCAT, t);
    block_tensor(bl, a, TENSOR_WO, "W_O");
    block_tensor(bl, a, TENSOR_Y, "Y = concat W_O");
}

// ----------------------------------------------------------------------------
// a trained model: the real chain of the layer shown (trained.h)

/* The product sign of the titles ("." would read as a decimal point). */
static const char *mul(const App *a) { return a->ascii ? "*" : G(a)->dot; }

/* A block of any matrix of the chain (rows: the tokens). */
static Block *block_of(BlockList *bl, const float *v, int rows, int cols, const char *title) {
    if (bl->n >= bl->max) return NULL;
    Block *b = &bl->b[bl->n++];
    view_matrix_of(&b->sm, v, rows, cols, 1);
    snprintf(b->title, sizeof b->title, "%s  (%d, %d)", title, rows, cols);
    b->rows = ROWS_KEYS;
    return b;
}

/* The angles i * theta^(-2p/hs) of RoPE at each position i and pair p
 * (the frequencies scaled where config.json's rope_scaling says). */
static void block_angles(const App *a, BlockList *bl, const TrainedInfo *t, const LayerChain *v) {
    int pairs = v->head_size / 2;
    if (!(bl->angles = malloc(sizeof(float) * (size_t)v->n * (size_t)pairs))) return;
    for (int i = 0; i < v->n; i++)
        for (int p = 0; p < pairs; p++) bl->angles[i * pairs + p] = (float)(i * trained_rope_freq(t, p));
    char t_[96];
    RopeScaleKind k = t->rope_scaling.kind;
    if (k == ROPE_SCALE_NONE)
        snprintf(t_, sizeof t_, _("RoPE angle i%s%g^(-2p/%d), pair p"), mul(a), t->rope_theta, v->head_size);
    else /* TRANSLATORS: the last %s is rope_scaling's type, "llama3" or "linear" */
        snprintf(t_, sizeof t_, _("RoPE angle i%s%g^(-2p/%d) scaled by %s, pair p"), mul(a), t->rope_theta,
                 v->head_size, k == ROPE_SCALE_LLAMA3 ? "llama3" : "linear");
    Block *b = block_of(bl, bl->angles, v->n, pairs, t_);
    if (b) b->sm.is_signed = 0, b->sm.lo = 0, b->sm.hi = b->sm.maxabs > 0 ? b->sm.maxabs : 1;
}

/* The norm of a block's title: "RMSNorm(x) . g" or "LayerNorm(x)" (its
 * gain and bias inside). */
static void norm_title(const App *a, const TrainedInfo *t, char *buf, size_t cap, const char *lhs, const char *of) {
    if (t->layernorm) snprintf(buf, cap, "%s = LayerNorm(%s)", lhs, of);
    else snprintf(buf, cap, "%s = RMSNorm(%s) %s g", lhs, of, mul(a));
}

/* x -> norm -> Q, K, V -> the head's q and k (before and after RoPE), its v. */
static void blocks_trained_in(const App *a, BlockList *bl, const TrainedInfo *ti, const LayerChain *v) {
    const char *T = a->ascii ? "^T" : "ᵀ";
    int h = a->head, g = h / (v->n_heads / v->n_kv_heads), n = v->n, hs = v->head_size;
    const char *b = ti->qkv_bias ? " + b" : "";
    char t[96];
    snprintf(t, sizeof t, _("x: the input of layer %d"), v->layer + 1);
    block_of(bl, v->x, n, v->dim, t);
    norm_title(a, ti, t, sizeof t, "xb", "x");
    block_of(bl, v->xb, n, v->dim, t);
    snprintf(t, sizeof t, "Q = xb W_q%s%s", T, b);
    block_of(bl, v->q_raw, n, v->q_dim, t);
    snprintf(t, sizeof t, "K = xb W_k%s%s", T, b);
    block_of(bl, v->k_raw, n, v->kv_dim, t);
    snprintf(t, sizeof t, "V = xb W_v%s%s", T, b);
    block_of(bl, v->v, n, v->kv_dim, t);
    if (v->q_normed) { /* Qwen3: each head's part of Q and K RMSNorm'ed, before RoPE */
        snprintf(t, sizeof t, _("q = RMSNorm(Q) %s g_q, head by head"), mul(a));
        block_of(bl, v->q_normed, n, v->q_dim, t);
        snprintf(t, sizeof t, _("k = RMSNorm(K) %s g_k, head by head"), mul(a));
        block_of(bl, v->k_normed, n, v->kv_dim, t);
    }
    if (ti->rope == ROPE_NONE) { /* GPT-2: the positions are in x (wpe) */
        snprintf(t, sizeof t, _("q, head %d"), h + 1);
        block_tensor(bl, a, TENSOR_Q, t);
        snprintf(t, sizeof t, _("k, head %d"), g + 1);
        block_tensor(bl, a, TENSOR_K, t);
        snprintf(t, sizeof t, _("v, head %d"), g + 1);
        block_tensor(bl, a, TENSOR_V, t);
        return;
    }
    snprintf(t, sizeof t, _("q, head %d, before RoPE"), h + 1);
    block_of(bl, v->q_raw_heads + (size_t)h * n * hs, n, hs, t);
    snprintf(t, sizeof t, _("k, kv head %d, before RoPE"), g + 1);
    block_of(bl, v->k_raw_heads + (size_t)g * n * hs, n, hs, t);
    block_angles(a, bl, ti, v);
    snprintf(t, sizeof t, _("q = RoPE(q), head %d"), h + 1);
    block_tensor(bl, a, TENSOR_Q, t);
    snprintf(t, sizeof t, _("k = RoPE(k), kv head %d"), g + 1);
    block_tensor(bl, a, TENSOR_K, t);
    snprintf(t, sizeof t, _("v, kv head %d"), g + 1);
    block_tensor(bl, a, TENSOR_V, t);
}

/* The heads joined -> W_o -> residual -> norm -> FFN -> residual. */
static void blocks_trained_out(const App *a, BlockList *bl, const TrainedInfo *ti, const LayerChain *v) {
    const char *T = a->ascii ? "^T" : "ᵀ", *bo = ti->o_bias ? " + b" : "";
    int n = v->n;
    char t[96];
    snprintf(t, sizeof t, "concat(O_1..O_%d)", v->n_heads);
    Block *b = block_of(bl, v->att, n, v->q_dim, t);
    if (b) b->sm.col_labels = LABELS_CONCAT, b->sm.d_v = v->head_size;
    snprintf(t, sizeof t, "att W_o%s%s", T, bo);
    block_of(bl, v->proj, n, v->dim, t);
    snprintf(t, sizeof t, "mid = x + att W_o%s%s", T, bo);
    block_of(bl, v->mid, n, v->dim, t);
    norm_title(a, ti, t, sizeof t, "xb2", "mid");
    block_of(bl, v->xb2, n, v->dim, t);
    if (ti->gelu) {
        snprintf(t, sizeof t, "h = gelu(xb2 W_fc + b)");
        block_of(bl, v->hb, n, v->hidden_dim, t);
        block_of(bl, v->ffn, n, v->dim, "FFN = h W_proj + b");
    } else {
        snprintf(t, sizeof t, "h = silu(W_1 xb2) %s W_3 xb2", G(a)->odot);
        block_of(bl, v->hb, n, v->hidden_dim, t);
        block_of(bl, v->ffn, n, v->dim, "FFN = W_2 h");
    }
    if (v->layer + 1 < a->m->cfg.layers) snprintf(t, sizeof t, _("x = mid + FFN: the input of layer %d"), v->layer + 2);
    else snprintf(t, sizeof t, _("x = mid + FFN: to the final %s"), ti->layernorm ? "LayerNorm" : "RMSNorm");
    block_of(bl, v->x_next, n, v->dim, t);
}

/* The chain of the layer shown, the attention of the head shown inside. */
static void blocks_trained(const App *a, BlockList *bl) {
    LayerChain v;
    AvError err = {0};
    bl->chain = 1;
    if (model_layer_chain(a->m, a->m->layer, &v, &err)) {
        Block *b = &bl->b[bl->n++];
        b->is_note = 1;
        snprintf(b->title, sizeof b->title, "%s", err.msg);
        return;
    }
    blocks_trained_in(a, bl, model_trained(a->m), &v);
    blocks_attention(a, bl);
    blocks_trained_out(a, bl, model_trained(a->m), &v);
}

/* The stages of the chain for the chosen head, in order; free with
 * blocks_free. */
static BlockList pipeline_blocks(const App *a, Block *out, int max) {
    const Model *m = a->m;
    int n = 0, text = model_can(m, SRC_EMBED | SRC_WEIGHTS);
    memset(out, 0, sizeof(Block) * (size_t)max);
    BlockList bl = {out, n, max, 0, NULL};
    if (model_trained(m)) {
        blocks_trained(a, &bl);
        return bl;
    }
    if (text) blocks_sentence(a, &bl);
    else blocks_file(a, &bl);
    blocks_attention(a, &bl);
    if (text) blocks_layer(a, &bl);
    return bl;
}

static void blocks_free(BlockList *bl) {
    free(bl->angles);
    bl->angles = NULL;
}

static int shown_rows(const Block *b) { return b->sm.rows < PIPE_MAX_ROWS ? b->sm.rows : PIPE_MAX_ROWS; }
static int shown_cols(const Block *b) { return b->sm.cols < b->max_cols ? b->sm.cols : b->max_cols; }

/* Width and height of a block on the page of width w. */
static void block_size(Block *b, int w) {
    int title_w = text_width(b->title, strlen(b->title));
    /* The columns that fit beside the labels, the "+n" and the sums. */
    int fit = (w - PIPE_LABEL - 1 - 6 - (b->sums ? 7 : 0)) / PIPE_CW;
    b->max_cols = fit < 1 ? 1 : fit < PIPE_MAX_COLS ? fit : PIPE_MAX_COLS;
    if (b->is_note) {
        b->w = title_w;
        b->h = 1;
    } else if (b->is_tokens) {
        b->w = PIPE_LABEL * 2 + 8;
        b->h = 2 + b->sm.rows;
    } else {
        b->w = PIPE_LABEL + 1 + shown_cols(b) * PIPE_CW + (b->sm.cols > b->max_cols ? 6 : 0) + (b->sums ? 7 : 0);
        b->h = 2 + shown_rows(b) + (b->sm.rows > PIPE_MAX_ROWS ? 1 : 0);
    }
    if (b->w < title_w) b->w = title_w;
}

/* Places the blocks left to right, wrapping at width w (as the texts set Q,
 * K and V side by side). Returns the document's height; *doc_w its width. */
static int pipeline_layout(Block *b, int n, int w, int *doc_w) {
    int x = 0, y = 0, row_h = 0, maxw = w;
    for (int k = 0; k < n; k++) {
        block_size(&b[k], w);
        if (x > 0 && (x + b[k].w > w || b[k].breaks)) {
            y += row_h + 1;
            x = 0, row_h = 0;
        }
        b[k].x = x, b[k].y = y;
        x += b[k].w + 3;
        if (b[k].h > row_h) row_h = b[k].h;
        if (b[k].x + b[k].w > maxw) maxw = b[k].x + b[k].w;
    }
    *doc_w = maxw;
    return y + row_h;
}

static void row_label(const App *a, const Block *b, int i, char *buf, size_t cap) {
    char tmp[16];
    switch (b->rows) {
    case ROWS_QUERIES: view_qlabel(a, buf, cap, i, PIPE_LABEL); break;
    case ROWS_KEYS: view_klabel(a, buf, cap, i, PIPE_LABEL); break;
    default:
        snprintf(tmp, sizeof tmp, "%d", i);
        snprintf(buf, cap, "%s", tmp);
        break;
    }
}

static void draw_block(const App *a, Canvas *doc, const Block *b) {
    const Model *m = a->m;
    char buf[128];
    cv_text(doc, b->y, b->x, b->title, b->w, style_attr(ST_BOLD | ST_UNDERLINE));
    if (b->is_note) return;
    if (b->is_tokens) {
        for (int i = 0; i < b->sm.rows; i++) {
            int q = b->rows == ROWS_QUERIES;
            if (q) view_qlabel(a, buf, sizeof buf, i, PIPE_LABEL * 2);
            else view_klabel(a, buf, sizeof buf, i, PIPE_LABEL * 2);
            cv_text(doc, b->y + 2 + i, b->x, buf, PIPE_LABEL * 2, style_plain());
            cv_printf(doc, b->y + 2 + i, b->x + PIPE_LABEL * 2 + 1, 7, style_plain(), "%s %d", G(a)->arrow,
                      q ? query_id(m, i) : model_key_id(m, i));
        }
        return;
    }
    int x0 = b->x + PIPE_LABEL + 1, rows = shown_rows(b), cols = shown_cols(b), c0 = b->col0;
    /* Columns scrolled away to the left: "<n" where the labels' header would be. */
    if (c0 > 0) cv_printf(doc, b->y + 1, b->x, PIPE_LABEL, style_attr(ST_DIM), "<%d", c0);
    for (int j = 0; j < cols; j++) { /* a key token, a dimension or "h2:0" (the heatmap's labels) */
        view_col_label(a, &b->sm, buf, sizeof buf, c0 + j, PIPE_CW - 1);
        cv_text_right(doc, b->y + 1, x0 + j * PIPE_CW, buf, PIPE_CW - 1, style_attr(ST_DIM));
    }
    if (b->sm.cols > c0 + cols)
        cv_printf(doc, b->y + 1, x0 + cols * PIPE_CW + 1, 5, style_attr(ST_DIM), "+%d", b->sm.cols - c0 - cols);
    if (b->sums) cv_text_right(doc, b->y + 1, x0 + cols * PIPE_CW, G(a)->sigma, 6, style_attr(ST_BOLD));
    for (int i = 0; i < rows; i++) {
        int y = b->y + 2 + i;
        row_label(a, b, i, buf, sizeof buf);
        cv_text(doc, y, b->x, buf, PIPE_LABEL, style_plain());
        for (int j = 0; j < cols; j++) view_cell(a, doc, y, x0 + j * PIPE_CW, PIPE_CW, 1, &b->sm, i, c0 + j, 0, 1);
        if (b->sums)
            cv_printf(doc, y, x0 + cols * PIPE_CW + 1, 6, style_plain(), "%5.3f", m->head[a->head].row_sums[i]);
    }
    if (b->sm.rows > rows)
        cv_printf(doc, b->y + 2 + rows, b->x, b->w, style_attr(ST_DIM),
                  P_("... %d more row (the heatmap view, v, shows all)",
                     "... %d more rows (the heatmap view, v, shows all)", b->sm.rows - rows),
                  b->sm.rows - rows);
}

enum { PIPE_MAX_BLOCKS = 32 };

/* The pipeline's own data: the width of the last frame, which the keys
 * that jump and scroll lay the blocks out for. */
typedef struct {
    int w;
} PipelineData;

static PipelineData *pdata(const App *a) { return a->view_data[VIEW_PIPELINE]; }

/* The blocks for the current head laid out at width w, filled into
 * blocks[PIPE_MAX_BLOCKS]: the list (free with blocks_free), *doc_h and
 * *doc_w the document's size. The app's column scroll (a->doc_x, in matrix
 * columns in this view) is clamped to the most columns a block hides, and
 * each block's first column shown set from it. */
static BlockList pipeline_lay_out(App *a, Block *blocks, int w, int *doc_h, int *doc_w) {
    BlockList bl = pipeline_blocks(a, blocks, PIPE_MAX_BLOCKS);
    *doc_h = pipeline_layout(blocks, bl.n, w, doc_w);
    int hidden = 0; /* the most columns a block cannot show */
    for (int k = 0; k < bl.n; k++) {
        Block *b = &blocks[k];
        if (b->is_tokens || b->is_note) continue;
        b->col0 = b->sm.cols - shown_cols(b);
        if (b->col0 > hidden) hidden = b->col0;
    }
    if (a->doc_x > hidden) a->doc_x = hidden;
    if (a->doc_x < 0) a->doc_x = 0;
    for (int k = 0; k < bl.n; k++)
        if (blocks[k].col0 > a->doc_x) blocks[k].col0 = a->doc_x;
    return bl;
}

/* Draws the pipeline laid out in bl on the app's document canvas of w x h;
 * NULL when out of memory. A chain has an arrow between blocks side by side. */
static Canvas *pipeline_doc(App *a, const BlockList *bl, int w, int h) {
    Canvas *doc = page_canvas(a, w, h > 0 ? h : 1);
    if (doc)
        for (int k = 0; k < bl->n; k++) {
            const Block *b = &bl->b[k];
            draw_block(a, doc, b);
            if (bl->chain && k > 0 && b->x > 0) cv_text(doc, b->y, b->x - 2, G(a)->arrow, 1, style_attr(ST_BOLD));
        }
    return doc;
}

static int pipeline_height(const App *a, int w) {
    Block blocks[PIPE_MAX_BLOCKS];
    BlockList bl = pipeline_blocks(a, blocks, PIPE_MAX_BLOCKS);
    int doc_w, h = pipeline_layout(blocks, bl.n, w, &doc_w);
    blocks_free(&bl);
    return h;
}

/* The block whose row is at the top of the window (the first of its row). */
static int top_block(const App *a, const Block *b, int n) {
    int top = 0;
    for (int k = 0; k < n; k++)
        if (b[k].y <= a->doc_y && b[k].y > b[top].y) top = k;
    return top;
}

/* The page's own footer, on row y: the stage at the top and the keys that
 * jump ("[ ] stage 6/15: Q = X W_Q  (11, 16)"), and where the window is. */
static void pipeline_footer(const App *a, Canvas *cv, int y, const BlockList *bl, int rows, int doc_h) {
    char right[64], left[160], fit[160];
    int top = top_block(a, bl->b, bl->n), c0 = bl->b[top].col0;
    page_lines_mark(a, right, sizeof right, rows, doc_h);
    if (c0 > 0) snprintf(right + strlen(right), sizeof right - strlen(right), _("cols %d+ "), c0 + 1);
    snprintf(left, sizeof left, _(" [ ] stage %d/%d: %s "), top + 1, bl->n, bl->b[top].title);
    int rw = text_width(right, strlen(right));
    int lw = text_truncate(fit, sizeof fit, left, strlen(left), cv->w - rw - 1, G(a)->ellipsis);
    if (lw < (int)strlen(" [ ] stage")) lw = 0;            /* too narrow: the mark alone */
    cv_fill(cv, y, 0, cv->w, " ", style_attr(ST_REVERSE)); /* a bar across */
    if (lw) cv_text(cv, y, 0, fit, lw, style_attr(ST_REVERSE));
    cv_text_right(cv, y, 0, right, cv->w, style_attr(ST_REVERSE));
}

/* Rows [y0, y0 + h) of cv: the window of the document from the app's
 * scroll. The blocks are as wide as the screen: -> scrolls their columns,
 * not the document, so the titles and row labels stay. */
static void pipeline_draw_doc(App *a, Canvas *cv, int y0, int h) {
    PipelineData *d = pdata(a);
    if (d) d->w = cv->w;
    Block blocks[PIPE_MAX_BLOCKS];
    int doc_h, doc_w;
    BlockList bl = pipeline_lay_out(a, blocks, cv->w, &doc_h, &doc_w);
    /* The stage at the top ([ ], `chain K`) wherever the layout puts it at
     * this width, until the arrows scroll (pipeline_key). */
    if (a->pipe_top > bl.n) a->pipe_top = bl.n;
    if (a->pipe_top > 0) a->doc_y = blocks[a->pipe_top - 1].y;
    Canvas *doc = pipeline_doc(a, &bl, doc_w, doc_h);
    if (doc && h > 0) {
        int rows = page_rows(a, doc_h, h, 0);
        cv_blit(cv, y0, 0, doc, a->doc_y, 0, rows, cv->w);
        if (rows < h) pipeline_footer(a, cv, y0 + rows, &bl, rows, doc_h);
    }
    blocks_free(&bl);
}

// ----------------------------------------------------------------------------
// the keys: [ and ] jump a stage, the arrows scroll

/* ] puts the next row of blocks at the top of the window, [ the previous
 * one (dir 1, -1), laid out at the last frame's width. */
static void pipeline_jump(App *a, int dir) {
    PipelineData *d = pdata(a);
    int w = d && d->w > 0 ? d->w : APP_MIN_W;
    app_update(a); /* the blocks of the configuration the keys made */
    Block blocks[PIPE_MAX_BLOCKS];
    int doc_h, doc_w;
    BlockList bl = pipeline_lay_out(a, blocks, w, &doc_h, &doc_w);
    if (a->pipe_top > 0 && a->pipe_top <= bl.n) a->doc_y = blocks[a->pipe_top - 1].y;
    int to = dir > 0 ? a->doc_y : 0, at = dir > 0 ? -1 : 0;
    for (int k = 0; k < bl.n; k++) {
        int y = blocks[k].y;
        if (dir > 0 && y > a->doc_y) {
            to = y, at = k;
            break;
        }
        if (dir < 0 && y < a->doc_y && y != to) to = y, at = k; /* the first block of that row */
    }
    a->doc_y = to;
    if (at >= 0) a->pipe_top = at + 1; /* kept at any width (a follower's, a resize) */
    blocks_free(&bl);
}

/* -> and <- (dir 1, -1) scroll the blocks' columns by half a screen. */
static void pipeline_columns(App *a, int dir) {
    PipelineData *d = pdata(a);
    int w = d && d->w > 0 ? d->w : APP_MIN_W, step = (w - PIPE_LABEL - 1 - 6) / PIPE_CW / 2;
    app_update(a);
    Block blocks[PIPE_MAX_BLOCKS];
    int doc_h, doc_w;
    BlockList bl = pipeline_lay_out(a, blocks, w, &doc_h, &doc_w);
    /* No further than the blocks on the screen go, so that <- moves at once. */
    int hidden = 0, y1 = a->doc_y + (a->layout.rows > 0 ? a->layout.rows : 1);
    for (int k = 0; k < bl.n; k++) {
        const Block *b = &blocks[k];
        int cols = b->is_tokens || b->is_note ? 0 : b->sm.cols - shown_cols(b);
        if (b->y < y1 && b->y + b->h > a->doc_y && cols > hidden) hidden = cols;
    }
    if (a->doc_x > hidden) a->doc_x = hidden;
    a->doc_x += dir * (step > 1 ? step : 1);
    if (a->doc_x > hidden) a->doc_x = hidden;
    if (a->doc_x < 0) a->doc_x = 0;
    blocks_free(&bl);
}

static int pipeline_key(App *a, Action act) {
    switch (act) {
    case ACT_MASK_PARAM_UP: pipeline_jump(a, 1); return 1;
    case ACT_MASK_PARAM_DOWN: pipeline_jump(a, -1); return 1;
    case ACT_RIGHT: pipeline_columns(a, 1); return 1;
    case ACT_LEFT: pipeline_columns(a, -1); return 1;
    default:
        if (!page_scroll(a, act)) return VIEW_KEY_PASS;
        a->pipe_top = 0; /* scrolled by hand: the rows, not a stage */
        return 1;
    }
}

static int pipeline_init(App *a) { return (a->view_data[VIEW_PIPELINE] = calloc(1, sizeof(PipelineData))) ? 0 : -1; }

static void pipeline_free(App *a) {
    free(a->view_data[VIEW_PIPELINE]);
    a->view_data[VIEW_PIPELINE] = NULL;
}

// ----------------------------------------------------------------------------
// the entry

static void pipeline_title(const App *a, char *buf, size_t cap) {
    if (model_trained(a->m)) { /* after "layer l/L  ": within 80 columns ([ ] in the footer) */
        snprintf(buf, cap, _("head %d/%d  the whole chain (Tab: head, { }: layer, c: back)"), a->head + 1,
                 a->m->cfg.heads);
        return;
    }
    snprintf(buf, cap, _("head %d/%d  the whole chain (Tab: head, [ ]: stage, arrows scroll, c: back)"), a->head + 1,
             a->m->cfg.heads);
}

static Stage pipeline_needed_stage(const App *a) {
    (void)a;
    return STAGE_FINAL;
}

static void pipeline_draw(App *a, Canvas *cv) {
    pipeline_draw_doc(a, cv, TOP_LINES, cv->h - TOP_LINES - 2);
    chrome_draw_bottom(a, cv, NULL, cv->h - 2);
}

static int pipeline_natural_height(const App *a, int w) { return TOP_LINES + pipeline_height(a, w) + 2; }

const View view_pipeline = {
    .name = "pipeline",
    .about = about_pipeline,
    .needed_stage = pipeline_needed_stage,
    .title = pipeline_title,
    .draw = pipeline_draw,
    .key = pipeline_key,
    .natural_height = pipeline_natural_height,
    .init = pipeline_init,
    .free = pipeline_free,
};
