/* docs.c - the pages of attnviz that are documents rather than one map: the
 * pipeline view (every stage of the chain with its shape), the arithmetic of
 * one cell, and the help. Each is drawn on an off-screen canvas of its
 * natural size; the screen shows a window of it, scrolled with the arrows.
 * The pipeline is an entry of the view table, help and cell its pages. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chrome.h"
#include "cli.h"
#include "formula.h"
#include "keymap.h"
#include "text.h"
#include "view.h"
#include "widgets.h"

#define G view_glyphs

// ----------------------------------------------------------------------------
// what am I looking at: 2-4 lines per view and per stage, shown by the help

static const char *const about_pipeline[] = {
    "The whole chain for one head, as the texts write it: tokens -> ids -> embeddings E",
    "-> Q = XW_Q, K = XW_K, V = XW_V -> scores QK^T -> / sqrt(d_k) -> mask -> softmax A",
    "-> output O = AV, then the heads joined and projected by W_O. Each stage shows its",
    "shape (rows, cols). Tab changes the head; arrows and PgUp/PgDn scroll.", NULL};
/* What each tensor of the catalogue's v cycle (tensor.h) shows, for the help. */
static const char *const about_stage[TENSOR_COUNT][4] = {
    [TENSOR_WEIGHTS] = {"weights A: the softmax of each row of masked scores; what the query takes from each key.",
                        NULL},
    [TENSOR_SCORES] = {"raw scores S = Q K^T: the dot product of each query with each key, before scaling.",
                       "Its spread grows with d_k (variance d_k), which is why the next step divides.", NULL},
    [TENSOR_SCALED] = {"scaled scores S / sqrt(d_k): back to variance 1, so the softmax does not saturate.",
                       "Press s to switch scaling off and watch the rows turn one-hot (H falls).", NULL},
    [TENSOR_MASKED] = {"masked scores: -inf where the mask forbids a key, so that its weight is exactly 0.",
                       "causal: a token sees itself and the tokens before it, never the future.", NULL},
    [TENSOR_OUTPUT] = {"output O = A V: each query's mix of the value vectors, weighted by its row of A.",
                       "Columns are the d_v dimensions of the values.", NULL},
    [TENSOR_X] = {"X = E + PE: the token vectors the layer starts from. Without positional encoding a",
                  "repeated word has the same row, and so the same query: press p to tell them apart.", NULL},
    [TENSOR_PE] = {"PE: the sinusoidal positional encoding, sin on even and cos on odd dimensions, each",
                   "pair at its own wavelength; added to E so that positions differ.", NULL},
    [TENSOR_CONCAT] = {"heads joined: the outputs of all heads side by side (h x d_v columns), head by head.", NULL},
    [TENSOR_Y] = {"Y = concat W_O: the layer's output, the joined heads mixed back to d_model.", NULL},
};

static const char *const *stage_about(Shown s) {
    static const char *const none[1] = {NULL};
    const char *const *l = about_stage[(unsigned)s < TENSOR_COUNT ? s : 0];
    return l[0] ? l : none;
}

// ----------------------------------------------------------------------------
// a scrolled window onto a document

static void show_doc(App *a, Canvas *cv, const Canvas *doc, int y0, int h) {
    if (h < 1) return;
    int max_y = doc->h - h > 0 ? doc->h - h : 0;
    int max_x = doc->w - cv->w > 0 ? doc->w - cv->w : 0;
    if (a->doc_y > max_y) a->doc_y = max_y;
    if (a->doc_x > max_x) a->doc_x = max_x;
    cv_blit(cv, y0, 0, doc, a->doc_y, a->doc_x, h, cv->w);
    a->layout.rows = h; /* the page size of PgUp/PgDn */
    if (max_y > 0 || max_x > 0) {
        char buf[64];
        snprintf(buf, sizeof buf, " lines %d-%d of %d ", a->doc_y + 1, a->doc_y + h < doc->h ? a->doc_y + h : doc->h,
                 doc->h);
        if (max_x > 0) snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "cols %d+ ", a->doc_x + 1);
        cv_text_right(cv, y0 + h - 1, 0, buf, cv->w, style_attr(ST_REVERSE));
    }
}

/* The arrows, PgUp/PgDn, Home and End scroll a page: 1 when act was one. */
static int doc_scroll(App *a, Action act) {
    int page = a->layout.rows > 2 ? a->layout.rows - 2 : 10;
    switch (act) {
    case ACT_UP: a->doc_y--; break;
    case ACT_DOWN: a->doc_y++; break;
    case ACT_LEFT: a->doc_x -= 8; break;
    case ACT_RIGHT: a->doc_x += 8; break;
    case ACT_PAGE_UP: a->doc_y -= page; break;
    case ACT_PAGE_DOWN: a->doc_y += page; break;
    case ACT_HOME: a->doc_y = a->doc_x = 0; break;
    case ACT_END: a->doc_y = 1 << 20; break;
    default: return 0;
    }
    if (a->doc_y < 0) a->doc_y = 0;
    if (a->doc_x < 0) a->doc_x = 0;
    return 1;
}

static void page_close(App *a) {
    a->overlay = OVERLAY_NONE;
    a->doc_y = a->doc_x = 0;
}

/* A page's natural height for --once: it scrolls, so a screenful. */
static int page_natural_height(const App *a, int w) {
    (void)a, (void)w;
    return 60;
}

// ----------------------------------------------------------------------------
// the pipeline

enum { PIPE_CW = 7, PIPE_MAX_ROWS = 64, PIPE_MAX_COLS = 32, PIPE_LABEL = 8 };

typedef enum { ROWS_QUERIES, ROWS_KEYS, ROWS_DIMS } RowLabels;

typedef struct {
    char title[96];
    ShownMat sm;
    RowLabels rows;
    int is_tokens;  /* the tokens -> ids block */
    int sums;       /* a column with each row's sum */
    int x, y, w, h; /* place in the document */
} Block;

/* The blocks being filled: b[0..n), room for max. */
typedef struct {
    Block *b;
    int n, max;
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

/* From a sentence: tokens -> ids, E (+ PE = X), the head's weights, Q, K, V. */
static void blocks_sentence(const App *a, BlockList *bl) {
    const Model *m = a->m;
    const ModelConfig *c = &m->cfg;
    if (bl->n < bl->max) {
        Block *b = &bl->b[bl->n++];
        b->is_tokens = 1;
        snprintf(b->title, sizeof b->title, "tokens %s ids  (%d)", G(a)->arrow, m->n_k);
        b->sm.rows = m->n_k;
    }
    block_tensor(bl, a, TENSOR_E, "E = embedding(ids)");
    if (c->pos != POS_NONE) {
        block_tensor(bl, a, TENSOR_PE, "PE");
        block_tensor(bl, a, TENSOR_X, "X = E + PE");
    }
    block_tensor(bl, a, TENSOR_WQ, "W_Q");
    block_tensor(bl, a, TENSOR_WK, "W_K");
    block_tensor(bl, a, TENSOR_WV, "W_V");
    block_tensor(bl, a, TENSOR_Q, "Q = X W_Q");
    block_tensor(bl, a, TENSOR_K, "K = X W_K");
    block_tensor(bl, a, TENSOR_V, "V = X W_V");
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
        model_mask_name(c, mk, sizeof mk);
        snprintf(t, sizeof t, "M = mask(S'), %s", mk);
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

/* The stages of the chain for the chosen head, in order. */
static int pipeline_blocks(const App *a, Block *out, int max) {
    const Model *m = a->m;
    int n = 0, text = model_can(m, SRC_EMBED | SRC_WEIGHTS);
    memset(out, 0, sizeof(Block) * (size_t)max);
    BlockList bl = {out, n, max};
    if (text) blocks_sentence(a, &bl);
    else blocks_file(a, &bl);
    blocks_attention(a, &bl);
    if (text) blocks_layer(a, &bl);
    return bl.n;
}

static int shown_rows(const Block *b) { return b->sm.rows < PIPE_MAX_ROWS ? b->sm.rows : PIPE_MAX_ROWS; }
static int shown_cols(const Block *b) { return b->sm.cols < PIPE_MAX_COLS ? b->sm.cols : PIPE_MAX_COLS; }

/* Width and height of a block on the page. */
static void block_size(const App *a, Block *b) {
    int title_w = text_width(b->title, strlen(b->title));
    if (b->is_tokens) {
        b->w = PIPE_LABEL * 2 + 8;
        b->h = 2 + b->sm.rows;
    } else {
        b->w = PIPE_LABEL + 1 + shown_cols(b) * PIPE_CW + (b->sm.cols > PIPE_MAX_COLS ? 6 : 0) + (b->sums ? 7 : 0);
        b->h = 2 + shown_rows(b) + (b->sm.rows > PIPE_MAX_ROWS ? 1 : 0);
    }
    if (b->w < title_w) b->w = title_w;
    (void)a;
}

/* Places the blocks left to right, wrapping at width w (as the texts set Q,
 * K and V side by side). Returns the document's height; *doc_w its width. */
static int pipeline_layout(const App *a, Block *b, int n, int w, int *doc_w) {
    int x = 0, y = 0, row_h = 0, maxw = w;
    for (int k = 0; k < n; k++) {
        block_size(a, &b[k]);
        if (x > 0 && x + b[k].w > w) {
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
    if (b->is_tokens) {
        for (int i = 0; i < m->n_k; i++) {
            view_klabel(a, buf, sizeof buf, i, PIPE_LABEL * 2);
            cv_text(doc, b->y + 2 + i, b->x, buf, PIPE_LABEL * 2, style_plain());
            cv_printf(doc, b->y + 2 + i, b->x + PIPE_LABEL * 2 + 1, 7, style_plain(), "%s %d", G(a)->arrow,
                      model_key_id(m, i));
        }
        return;
    }
    int x0 = b->x + PIPE_LABEL + 1, rows = shown_rows(b), cols = shown_cols(b);
    for (int j = 0; j < cols; j++) {
        if (b->sm.col_labels == LABELS_KEYS) view_klabel(a, buf, sizeof buf, j, PIPE_CW - 1);
        else if (b->sm.col_labels == LABELS_CONCAT)
            snprintf(buf, sizeof buf, "%d.%d", j / b->sm.d_v + 1, j % b->sm.d_v);
        else snprintf(buf, sizeof buf, "%d", j);
        cv_text_right(doc, b->y + 1, x0 + j * PIPE_CW, buf, PIPE_CW - 1, style_attr(ST_DIM));
    }
    if (b->sm.cols > cols)
        cv_printf(doc, b->y + 1, x0 + cols * PIPE_CW, 6, style_attr(ST_DIM), "+%d", b->sm.cols - cols);
    if (b->sums) cv_text_right(doc, b->y + 1, x0 + cols * PIPE_CW, G(a)->sigma, 6, style_attr(ST_BOLD));
    for (int i = 0; i < rows; i++) {
        int y = b->y + 2 + i;
        row_label(a, b, i, buf, sizeof buf);
        cv_text(doc, y, b->x, buf, PIPE_LABEL, style_plain());
        for (int j = 0; j < cols; j++) view_cell(a, doc, y, x0 + j * PIPE_CW, PIPE_CW, 1, &b->sm, i, j, 0, 1);
        if (b->sums)
            cv_printf(doc, y, x0 + cols * PIPE_CW + 1, 6, style_plain(), "%5.3f", m->head[a->head].row_sums[i]);
    }
    if (b->sm.rows > rows)
        cv_printf(doc, b->y + 2 + rows, b->x, b->w, style_attr(ST_DIM),
                  "... %d more rows (the heatmap view, v, shows all)", b->sm.rows - rows);
}

/* The app's page canvas as a blank w x h (its cells are kept between frames:
 * a frame allocates only when the page grows); NULL when out of memory. */
static Canvas *doc_canvas(App *a, int w, int h) {
    if (!a->doc) return a->doc = cv_new(w, h);
    return cv_resize(a->doc, w, h) == 0 ? a->doc : NULL;
}

/* Draws the pipeline for the current head at natural size; NULL when out of
 * memory. */
static Canvas *pipeline_doc(App *a, int w) {
    Block blocks[24];
    int n = pipeline_blocks(a, blocks, 24), doc_w;
    int h = pipeline_layout(a, blocks, n, w, &doc_w);
    Canvas *doc = doc_canvas(a, doc_w, h > 0 ? h : 1);
    if (!doc) return NULL;
    for (int k = 0; k < n; k++) draw_block(a, doc, &blocks[k]);
    return doc;
}

static int pipeline_height(const App *a, int w) {
    Block blocks[24];
    int n = pipeline_blocks(a, blocks, 24), doc_w;
    return pipeline_layout(a, blocks, n, w, &doc_w);
}

static void pipeline_draw_doc(App *a, Canvas *cv, int y0, int h) {
    Canvas *doc = pipeline_doc(a, cv->w);
    if (!doc) return;
    show_doc(a, cv, doc, y0, h);
}

// ----------------------------------------------------------------------------
// the arithmetic of one cell

/* A vector as coloured numbers, wrapped over at most max_lines lines; returns
 * the lines used. */
static int draw_vector(const App *a, Canvas *doc, int y, int x, int w, const float *v, int n, int max_lines) {
    ShownMat sm;
    view_matrix_of(&sm, v, 1, n, 1);
    int per_line = (w - x) / PIPE_CW;
    if (per_line < 1) per_line = 1;
    int lines = 0;
    for (int k = 0; k < n; k++) {
        int line = k / per_line, col = k % per_line;
        if (line >= max_lines) {
            cv_printf(doc, y + max_lines - 1, x + per_line * PIPE_CW - 1, 12, style_attr(ST_DIM), " +%d", n - k);
            break;
        }
        view_cell(a, doc, y + line, x + col * PIPE_CW, PIPE_CW, 1, &sm, 0, k, 0, 1);
        lines = line + 1;
    }
    return lines ? lines : 1;
}

/* q_i, k_j and their products, from row y; returns the next row. */
static int cell_vectors(const App *a, Canvas *doc, int y, int i, int j) {
    const HeadData *hd = &a->m->head[a->head];
    int W = doc->w, dk = a->m->cfg.d_k, lx = 22;
    char buf[64];
    float *prod = malloc(sizeof(float) * (size_t)dk);
    const float *qi = hd->q + (size_t)i * dk, *kj = hd->k + (size_t)j * dk;
    if (prod)
        for (int p = 0; p < dk; p++) prod[p] = (float)((double)qi[p] * kj[p]);
    snprintf(buf, sizeof buf, "q_%d  (d_k = %d)", i, dk);
    cv_text(doc, y, 0, buf, lx, style_attr(ST_BOLD));
    y += draw_vector(a, doc, y, lx, W, qi, dk, 3);
    snprintf(buf, sizeof buf, "k_%d", j);
    cv_text(doc, y, 0, buf, lx, style_attr(ST_BOLD));
    y += draw_vector(a, doc, y, lx, W, kj, dk, 3);
    snprintf(buf, sizeof buf, "q %s k  (each product)", G(a)->odot);
    cv_text(doc, y, 0, buf, lx, style_attr(ST_BOLD));
    if (prod) y += draw_vector(a, doc, y, lx, W, prod, dk, 3);
    free(prod);
    return y;
}

/* The dot product, the raw score and its scaling, each with its own
 * arithmetic (the formulas are formula.c's); returns the next row. */
static int cell_scores(const App *a, Canvas *doc, int y, const CellDetail *d) {
    const ModelConfig *c = &a->m->cfg;
    const Glyphs *g = G(a);
    int W = doc->w;
    char buf[512], text[64];
    snprintf(buf, sizeof buf, "q%sk          %s of the products = %.4f", g->dot, g->sigma, d->dot);
    cv_text(doc, y++, 0, buf, W, style_plain());
    FormulaOf f = formula_of(c, a->ascii);
    formula_text(text, sizeof text, FORMULA_CELL, STAGE_SCORES, &f);
    switch (c->score) {
    case SCORE_COSINE:
        snprintf(buf, sizeof buf, "raw score     %s = %.4f / (%.4f %s %.4f) = %.4f", text, d->dot, d->q_norm, g->times,
                 d->k_norm, d->raw);
        break;
    case SCORE_DISTANCE: snprintf(buf, sizeof buf, "raw score     %s = %s%.4f", text, g->minus, d->dist2); break;
    case SCORE_ADDITIVE:
        snprintf(buf, sizeof buf, "raw score     %s = %.4f   (additive: q%sk is not used)", text, d->raw, g->dot);
        break;
    default: snprintf(buf, sizeof buf, "raw score     %s = %.4f   (the \"raw scores\" stage)", text, d->raw); break;
    }
    cv_text(doc, y++, 0, buf, W, style_plain());
    formula_text(text, sizeof text, FORMULA_CELL, STAGE_SCALED, &f);
    switch (formula_scale(FORMULA_CELL, &f)) {
    case FORMULA_SCALE_NONE:
        snprintf(buf, sizeof buf, "scaled score  s = %.4f   (no scaling: s is the raw score)", d->scaled);
        break;
    case FORMULA_SCALE_TIMES:
        snprintf(buf, sizeof buf, "scaled score  s = %.4f %s = %.4f   (the temperature; what the softmax sees)", d->raw,
                 text, d->scaled);
        break;
    default:
        snprintf(buf, sizeof buf, "scaled score  s = %.4f %s (= %.4f) = %.4f   (what the softmax sees)", d->raw, text,
                 d->divisor, d->scaled);
        break;
    }
    cv_text(doc, y++, 0, buf, W, style_plain());
    return y;
}

/* The mask, then the softmax of cell (i, j): exp, row sum, weight; returns
 * the next row. */
static int cell_softmax(const App *a, Canvas *doc, int y, const CellDetail *d, int i, int j) {
    const Glyphs *g = G(a);
    int W = doc->w;
    char buf[512], mk[32];
    model_mask_name(&a->m->cfg, mk, sizeof mk);
    if (d->allowed) snprintf(buf, sizeof buf, "mask          %s: key %d is visible to query %d -> allowed", mk, j, i);
    else
        snprintf(buf, sizeof buf, "mask          %s: key %d is hidden from query %d -> masked: score %s, weight 0", mk,
                 j, i, g->neg_inf);
    cv_text(doc, y++, 0, buf, W, d->allowed ? style_plain() : style_attr(ST_BOLD));
    if (d->row_allowed == 0) {
        cv_text(doc, y++, 0, "every key of this row is masked: all its weights are 0, its sum is 0", W,
                style_attr(ST_BOLD));
        return y;
    }
    snprintf(buf, sizeof buf, "exp(s %s max) exp(%.4f %s %.4f) = %.6f   (max: largest allowed s of the row)", g->minus,
             d->allowed ? d->scaled : 0.0, g->minus, d->row_max, d->exp);
    if (!d->allowed) snprintf(buf, sizeof buf, "exp(s %s max) 0 (masked)", g->minus);
    cv_text(doc, y++, 0, buf, W, style_plain());
    snprintf(buf, sizeof buf, "row sum       %s exp(s_j %s max) over the %d allowed keys = %.6f", g->sigma, g->minus,
             d->row_allowed, d->denom);
    cv_text(doc, y++, 0, buf, W, style_plain());
    snprintf(buf, sizeof buf, "weight        %.6f %s %.6f = %.4f", d->exp, g->div, d->denom, d->weight);
    cv_text(doc, y++, 0, buf, W, style_attr(ST_BOLD));
    return y;
}

/* Row i's weights as bars, key j marked; returns the next row. */
static int cell_row(const App *a, Canvas *doc, int y, int i, int j) {
    const Model *m = a->m;
    const Glyphs *g = G(a);
    const HeadData *hd = &m->head[a->head];
    int W = doc->w;
    char q[64], k[64], buf[512];
    view_qlabel(a, q, sizeof q, i, 24);
    snprintf(buf, sizeof buf, "the weights of row %d %s: sum %.3f, entropy %.2f bits, largest %.2f", i, q,
             hd->row_sums[i], hd->entropy[i], hd->max_weight[i]);
    cv_text(doc, y++, 0, buf, W, style_attr(ST_BOLD));
    int barw = W - 12 - 14 > 50 ? 50 : W - 12 - 14;
    if (barw < 5) barw = 5;
    for (int t = 0; t < m->n_k; t++, y++) {
        view_klabel(a, k, sizeof k, t, 10);
        Style ls = t == j ? style_attr(ST_REVERSE | ST_BOLD) : style_plain();
        cv_text(doc, y, 0, k, 10, ls);
        if (!m->allowed[(size_t)i * m->n_k + t]) {
            cv_printf(doc, y, 12, 20, style_attr(ST_DIM), "%s masked", g->masked);
            continue;
        }
        float w = hd->weights[(size_t)i * m->n_k + t];
        int len = (int)lround(w * barw);
        cv_fill(doc, y, 12, len, g->bar, style_plain());
        cv_printf(doc, y, 12 + barw + 1, 12, ls, "%.4f", w);
    }
    return y;
}

/* Enter on a score or weight stage: the arithmetic of cell (ci, cj), from
 * the vectors to the weight; returns the rows drawn. */
static int draw_attention_cell(const App *a, Canvas *doc) {
    const Model *m = a->m;
    int i = a->ci, j = a->cj, y = 0;
    char q[64], k[64], buf[512];
    view_qlabel(a, q, sizeof q, i, 24);
    view_klabel(a, k, sizeof k, j, 24);
    CellDetail d;
    model_cell_detail(m, a->head, i, j, &d);
    snprintf(buf, sizeof buf, "cell arithmetic  head %d/%d  query %d %s %s key %d %s   (Enter or Esc: back)",
             a->head + 1, m->cfg.heads, i, q, G(a)->arrow, j, k);
    cv_text(doc, y++, 0, buf, doc->w, style_attr(ST_BOLD | ST_REVERSE));
    y = cell_vectors(a, doc, y + 1, i, j);
    y = cell_scores(a, doc, y + 1, &d);
    y = cell_softmax(a, doc, y, &d, i, j);
    return cell_row(a, doc, y + 1, i, j);
}

/* Enter on the output stage: O[i][d] as the row's weights times V's column. */
static int draw_output_cell(const App *a, Canvas *doc) {
    const Model *m = a->m;
    const Glyphs *g = G(a);
    const HeadData *hd = &m->head[a->head];
    int i = a->ci, d = a->cj, dv = m->cfg.d_v, y = 0, W = doc->w;
    char q[64], k[64], buf[256];
    view_qlabel(a, q, sizeof q, i, 24);
    snprintf(buf, sizeof buf,
             "output arithmetic  head %d/%d  O[%d][%d] = %s_j A[%d][j] %s V[j][%d]   (Enter or Esc: back)", a->head + 1,
             m->cfg.heads, i, d, g->sigma, i, g->times, d);
    cv_text(doc, y++, 0, buf, W, style_attr(ST_BOLD | ST_REVERSE));
    y++;
    cv_printf(doc, y++, 0, W, style_attr(ST_BOLD), "%-12s %10s %10s %12s", "key j", "A[i][j]", "V[j][d]", "product");
    double sum = 0;
    for (int t = 0; t < m->n_k; t++, y++) {
        view_klabel(a, k, sizeof k, t, 12);
        float w = hd->weights[(size_t)i * m->n_k + t], v = hd->v[(size_t)t * dv + d];
        cv_text(doc, y, 0, k, 12, style_plain());
        if (!m->allowed[(size_t)i * m->n_k + t]) {
            cv_printf(doc, y, 13, W, style_attr(ST_DIM), "%10s %10.4f %12s", g->masked, v, "(masked)");
            continue;
        }
        sum += (double)w * v;
        cv_printf(doc, y, 13, W, style_plain(), "%10.4f %10.4f %12.6f", w, v, (double)w * v);
    }
    cv_printf(doc, y++, 0, W, style_attr(ST_BOLD), "%-12s %10s %10s %12.6f   (stored: %.6f)", "sum", "", "", sum,
              hd->out[(size_t)i * dv + d]);
    (void)q;
    return y;
}

static void cell_draw(App *a, Canvas *cv) {
    Canvas *doc = doc_canvas(a, cv->w, 40 + 3 * a->m->n_k + 12);
    if (!doc) return;
    int h = a->shown == TENSOR_OUTPUT ? draw_output_cell(a, doc) : draw_attention_cell(a, doc);
    doc->h = h < doc->h ? (h > 0 ? h : 1) : doc->h;
    show_doc(a, cv, doc, 0, cv->h);
}

// ----------------------------------------------------------------------------
// help: the key table, then what each view and stage shows

static void help_draw(App *a, Canvas *cv) {
    int lines = 12 + keymap_count + 5 * VIEW_KIND_COUNT + 4 * tensor_cycle_len() + 8;
    Canvas *doc = doc_canvas(a, cv->w, lines);
    if (!doc) return;
    int y = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "attnviz %s - help  (q, ? or Esc: back; arrows scroll)", ATTNVIZ_VERSION);
    cv_text(doc, y++, 0, buf, doc->w, style_attr(ST_BOLD | ST_REVERSE));
    y++;
    cv_text(doc, y++, 0, "What am I looking at", doc->w, style_attr(ST_BOLD | ST_UNDERLINE));
    const char *const *about = view_of(a->view)->about;
    for (int k = 0; about[k]; k++) cv_printf(doc, y++, 2, doc->w - 2, style_plain(), "%s", about[k]);
    if (a->view == VIEW_HEATMAP) {
        const char *const *st = stage_about(a->shown);
        for (int k = 0; st[k]; k++) cv_printf(doc, y++, 2, doc->w - 2, style_plain(), "%s", st[k]);
    }
    y++;
    cv_text(doc, y++, 0, "Keys", doc->w, style_attr(ST_BOLD | ST_UNDERLINE));
    for (int i = 0; i < keymap_count; i++) {
        const KeyBinding *b = &keymap[i];
        if (!b->label || !app_action_listed(a, b->action)) continue;
        const char *label = a->ascii && b->ascii_label ? b->ascii_label : b->label;
        cv_text(doc, y, 2, label, 12, style_attr(ST_BOLD));
        cv_text(doc, y++, 16, b->help, doc->w - 16, style_plain());
    }
    y++;
    cv_text(doc, y++, 0, "The views", doc->w, style_attr(ST_BOLD | ST_UNDERLINE));
    for (int v = 0; v < VIEW_KIND_COUNT; v++) {
        cv_text(doc, y++, 2, view_table[v]->name, doc->w - 2, style_attr(ST_BOLD));
        for (const char *const *l = view_table[v]->about; *l; l++) cv_text(doc, y++, 4, *l, doc->w - 4, style_plain());
    }
    y++;
    cv_text(doc, y++, 0, "The stages (v)", doc->w, style_attr(ST_BOLD | ST_UNDERLINE));
    for (int k = 0; k < tensor_cycle_len(); k++) {
        Shown s = tensor_cycle_at(k);
        cv_text(doc, y++, 2, view_stage_name(s), doc->w - 2, style_attr(ST_BOLD));
        for (const char *const *l = stage_about(s); *l; l++) cv_text(doc, y++, 4, *l, doc->w - 4, style_plain());
    }
    doc->h = y < lines ? y : lines;
    show_doc(a, cv, doc, 0, cv->h);
}

static int help_key(App *a, Action act) {
    if (doc_scroll(a, act)) return 1;
    if (act == ACT_QUIT || act == ACT_ESCAPE || act == ACT_HELP) {
        page_close(a);
        return 1;
    }
    return 0; /* the help takes every other key and does nothing */
}

const View page_help = {
    .name = "help",
    .draw = help_draw,
    .key = help_key,
    .natural_height = page_natural_height,
};

// ----------------------------------------------------------------------------
// the entries: the pipeline view, the cell page

static int cell_available(const App *a, const char **why) {
    if (why) *why = "the arithmetic is of a cell of weights, scores or output";
    return a->m->n_q > 0 && tensor_info(a->shown)->scope == TS_HEAD;
}

static int cell_key(App *a, Action act) {
    if (doc_scroll(a, act)) return 1;
    if (act == ACT_QUIT || act == ACT_ESCAPE || act == ACT_HELP || act == ACT_OPEN) {
        page_close(a);
        return 1;
    }
    /* The cell page follows head changes; other keys close it first. */
    if (act != ACT_NEXT_HEAD && act != ACT_PREV_HEAD) a->overlay = OVERLAY_NONE;
    return VIEW_KEY_PASS;
}

const View page_cell = {
    .name = "cell",
    .available = cell_available,
    .draw = cell_draw,
    .key = cell_key,
    .natural_height = page_natural_height,
};

static void pipeline_title(const App *a, char *buf, size_t cap) {
    snprintf(buf, cap, "head %d/%d  the whole chain, stage by stage (Tab: head, arrows scroll, c: back)", a->head + 1,
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

static int pipeline_key(App *a, Action act) { return doc_scroll(a, act) ? 1 : VIEW_KEY_PASS; }

static int pipeline_natural_height(const App *a, int w) { return TOP_LINES + pipeline_height(a, w) + 2; }

const View view_pipeline = {
    .name = "pipeline",
    .about = about_pipeline,
    .needed_stage = pipeline_needed_stage,
    .title = pipeline_title,
    .draw = pipeline_draw,
    .key = pipeline_key,
    .natural_height = pipeline_natural_height,
};
