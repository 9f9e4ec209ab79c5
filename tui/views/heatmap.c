/* heatmap.c - the views of one matrix: the single-head heatmap and all
 * heads side by side (entries of the view table, view.h); for a source of
 * several layers all heads are the layers x heads grid of grid.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chrome.h"
#include "formula.h"
#include "grid.h"
#include "i18n.h"
#include "text.h"
#include "view.h"
#include "widgets.h"

#define G view_glyphs

enum { MAX_LABEL = 16, MAX_CELL_W = 12 };

/* The stage's title, with the score's formula for the score stages:
 * "weights A = softmax(QKᵀ÷√16, mask)" (formula.h). */
static const char *stage_title(const App *a, char *buf, size_t cap) {
    const Glyphs *g = G(a);
    const Model *m = a->m;
    const ModelConfig *c = &m->cfg;
    FormulaOf f = formula_of(c, a->ascii);
    switch (a->shown) {
    case TENSOR_WEIGHTS: formula_text(buf, cap, FORMULA_TITLE, STAGE_WEIGHTS, &f); break;
    case TENSOR_SCORES: formula_text(buf, cap, FORMULA_TITLE, STAGE_SCORES, &f); break;
    case TENSOR_SCALED: formula_text(buf, cap, FORMULA_TITLE, STAGE_SCALED, &f); break;
    case TENSOR_MASKED: {
        char mk[32];
        model_mask_name(c, mk, sizeof mk);
        snprintf(buf, cap, _("masked scores: S' with %s where mask=%s forbids"), g->neg_inf, mk);
        break;
    }
    case TENSOR_OUTPUT: snprintf(buf, cap, _("output O = A V  (%d, %d)"), m->n_q, c->d_v); break;
    case TENSOR_X:
        if (c->pos == POS_NONE)
            snprintf(buf, cap, _("X = E: token embeddings, no positional encoding  (%d, %d)"), m->n_k, c->d_model);
        else snprintf(buf, cap, "X = E + PE  (%d, %d)", m->n_k, c->d_model);
        break;
    case TENSOR_PE: snprintf(buf, cap, _("PE: sinusoidal positional encoding  (%d, %d)"), m->n_k, c->d_model); break;
    case TENSOR_CONCAT:
        snprintf(buf, cap, _("concat(O_1 .. O_%d), heads marked  (%d, %d)"), c->heads, m->n_q, c->heads * c->d_v);
        break;
    default: snprintf(buf, cap, "Y = concat W_O  (%d, %d)", m->n_q, c->d_model); break;
    }
    return buf;
}

static int row_fully_masked(const App *a, int i) { return a->m->n_k > 0 && a->m->n_allowed[i] == 0; }

// ----------------------------------------------------------------------------
// the single-head heatmap

typedef struct {
    int label_w, sum_w; /* columns of the row labels and of the row statistics */
    int cw, ch;         /* cell size */
    int header_rows;    /* 1 (labels) or 2 (index ruler) */
    int ruler;          /* the labels are cut: their indices on a second row */
    int rows_vis, cols_vis;
} HeatGeom;

enum { STATS_W = 17 }; /* " 1.000! 2.31 0.42": the largest weight as every weight, 0.42 and 1.00 */

/* Projector mode (B): the map from the info line's row on, no row
 * statistics, one header row (the title names the cursor's tokens), cells up
 * to PRESENT_CELL_W wide and 5 rows tall, and one line under the map: the
 * legend, or the message or prompt in its place when the map leaves no row
 * between them. */
enum { PRESENT_CELL_W = 20, PRESENT_BOTTOM = 1 };

/* The first row under the top lines: the info line's in projector mode. */
static int map_top(const App *a) { return a->present ? TOP_LINES - 1 : TOP_LINES; }

static int digits(int n) {
    int d = 1;
    while (n >= 10) n /= 10, d++;
    return d;
}

static void heat_geometry(const App *a, const ShownMat *sm, int W, int H, HeatGeom *g) {
    int bottom = a->present ? PRESENT_BOTTOM : BOTTOM_LINES, max_w = a->present ? PRESENT_CELL_W : MAX_CELL_W;
    int cap = MAX_LABEL < W / 4 ? MAX_LABEL : W / 4;
    if (cap < 3) cap = 3;
    g->label_w = view_max_label_width(a, cap) + 1;
    g->sum_w = sm->row_stats && !a->present ? STATS_W : 1;
    int avail_w = W - g->label_w - g->sum_w;
    if (avail_w < 1) avail_w = 1;
    g->cw = sm->cols > 0 ? avail_w / sm->cols : 1;
    if (g->cw > max_w) g->cw = max_w;
    if (g->cw < 1) g->cw = 1;
    g->cols_vis = avail_w / g->cw;
    if (g->cols_vis > sm->cols) g->cols_vis = sm->cols;
    g->header_rows = g->cw >= 3 ? 1 : 2;
    /* Key labels cut to fit (영화를 and 영화는 would both be "영…"): each
     * column is named by its position and the first characters that fit
     * ("3영", "7영"), and the row under them spells the cursor's token out.
     * Where not even the position and a character fit, the two rows are an
     * index ruler (tens above, units below). */
    g->ruler = 0;
    if (g->header_rows == 1 && sm->col_labels == LABELS_KEYS)
        for (int j = 0; j < sm->cols && g->header_rows == 1; j++) {
            char full[128];
            view_klabel(a, full, sizeof full, j, MAX_LABEL);
            if (text_width(full, strlen(full)) <= g->cw - 1) continue;
            g->ruler = digits(sm->cols - 1) < g->cw - 1;
            g->header_rows = g->ruler && a->present ? 1 : 2; /* projector: the title names the cursor's key */
        }
    int avail_h = H - map_top(a) - g->header_rows - bottom;
    /* Rows that do not all fit leave a row under the map for "↓ n more". */
    if (sm->rows > avail_h || g->cols_vis < sm->cols) avail_h--;
    if (avail_h < 1) avail_h = 1;
    int ch_max = g->cw / 3 > 1 ? g->cw / 3 : 1;
    g->ch = sm->rows > 0 ? avail_h / sm->rows : 1;
    if (g->ch > ch_max) g->ch = ch_max;
    if (g->ch > (a->present ? 5 : 3)) g->ch = a->present ? 5 : 3;
    if (g->ch < 1) g->ch = 1;
    g->rows_vis = avail_h / g->ch;
    if (g->rows_vis > sm->rows) g->rows_vis = sm->rows;
}

/* Keeps the cursor inside the visible window of n items. */
static int scroll_to(int first, int cursor, int visible, int n) {
    if (visible < 1) visible = 1;
    if (cursor < first) first = cursor;
    if (cursor >= first + visible) first = cursor - visible + 1;
    if (first > n - visible) first = n - visible;
    if (first < 0) first = 0;
    return first;
}

/* Key j named by its position and the first characters of its token that
 * fit in w columns, without an ellipsis: "3영", "12sat". */
static void position_label(const App *a, char *out, size_t cap, int j, int w) {
    char full[128];
    view_klabel(a, full, sizeof full, j, MAX_LABEL);
    int n = snprintf(out, cap, "%d", j);
    if (n < 0 || (size_t)n >= cap) return;
    text_truncate(out + n, cap - (size_t)n, full, strlen(full), w - n, "");
}

/* Under the position labels, the cursor's key token in full, from its
 * column on (moved left where it would pass the map's right edge). */
static void draw_cursor_token(App *a, Canvas *cv, int y, int x0, const HeatGeom *g, int col0) {
    if (a->cj < col0 || a->cj >= col0 + g->cols_vis) return;
    char full[128];
    view_klabel(a, full, sizeof full, a->cj, MAX_LABEL);
    int w = text_width(full, strlen(full)), right = x0 + g->cols_vis * g->cw - 1;
    int x = x0 + (a->cj - col0) * g->cw;
    if (x + w > right) x = right - w > 0 ? right - w : 0;
    cv_text(cv, y, x, full, right - x, style_attr(ST_REVERSE | ST_BOLD));
}

static void draw_col_header(App *a, Canvas *cv, int y, int x0, const HeatGeom *g, const ShownMat *sm, int col0) {
    char buf[128];
    for (int c = 0; c < g->cols_vis; c++) {
        int j = col0 + c, x = x0 + c * g->cw;
        Style st = j == a->cj ? style_attr(ST_REVERSE | ST_BOLD) : style_plain();
        if ((a->hl_kind == HL_COL || a->hl_kind == HL_CELL) && j == a->hl_j) st.attr |= ST_BOLD | ST_UNDERLINE;
        if (g->ruler) {
            position_label(a, buf, sizeof buf, j, g->cw - 1);
            cv_text(cv, y, x, buf, g->cw - 1, st);
        } else if (g->header_rows == 1) {
            view_col_label(a, sm, buf, sizeof buf, j, g->cw - 1);
            /* Heads joined: the first column of each head is marked. */
            if (sm->col_labels == LABELS_CONCAT && j % sm->d_v == 0 && j != a->cj)
                st = style_attr(ST_BOLD | ST_UNDERLINE);
            cv_text(cv, y, x, buf, g->cw - 1, st);
        } else if (sm->col_labels == LABELS_CONCAT) {
            /* A ruler: the head's number where it starts, the column inside the head below. */
            if (j % sm->d_v == 0)
                cv_printf(cv, y, x, g->cw * 3, style_attr(ST_BOLD), "%sh%d", G(a)->vbar, j / sm->d_v + 1);
            cv_printf(cv, y + 1, x, g->cw, st, "%d", (j % sm->d_v) % 10);
        } else {
            /* A ruler of indices: tens above, units below. */
            if (j % 10 == 0 || j == a->cj) cv_printf(cv, y, x, g->cw, st, "%d", (j / 10) % 10);
            cv_printf(cv, y + 1, x, g->cw, st, "%d", j % 10);
        }
    }
    if (g->ruler) draw_cursor_token(a, cv, y + 1, x0, g, col0);
}

/* A lesson's highlight (script.h): 1 when cell (i, j) is in it. */
static int highlighted(const App *a, int i, int j) {
    switch (a->hl_kind) {
    case HL_ROW: return i == a->hl_i;
    case HL_COL: return j == a->hl_j;
    case HL_CELL: return i == a->hl_i && j == a->hl_j;
    default: return 0;
    }
}

/* Bold and underlined: the cells of a w x h box (a highlighted cell). */
static void mark_box(Canvas *cv, int y, int x, int w, int h) {
    for (int r = y; r < y + h && r < cv->h; r++)
        for (int c = x; c < x + w && c < cv->w; c++) cv_cell(cv, r, c)->st.attr |= ST_BOLD | ST_UNDERLINE;
}

static void draw_heatmap(App *a, Canvas *cv) {
    const Model *m = a->m;
    ShownMat sm;
    view_matrix(a, a->shown, a->head, &sm);
    HeatGeom g;
    heat_geometry(a, &sm, cv->w, cv->h, &g);
    a->row0 = scroll_to(a->row0, a->ci, g.rows_vis, sm.rows);
    a->col0 = scroll_to(a->col0, a->cj, g.cols_vis, sm.cols);
    int top = map_top(a), y0 = top + g.header_rows, x0 = g.label_w;
    char buf[128];
    if (a->present) cv_fill(cv, top, 0, cv->w, " ", style_plain()); /* the info line's row */
    draw_col_header(a, cv, top, x0, &g, &sm, a->col0);
    int sx = x0 + g.cols_vis * g.cw + 1;
    const HeadData *hd = &m->head[a->head];
    /* The row statistics are the weights' (A's) whatever the stage shown:
     * their sum, entropy in bits and largest weight; said so beside the
     * other stages. */
    int stats = sm.row_stats && !a->present;
    if (stats)
        /* TRANSLATORS: 16 columns over the numbers "1.000  2.31 0.42": the sum
           right-aligned at column 5, bits at 8-11, max at 14-16. */
        cv_text(cv, top + g.header_rows - 1, sx,
                a->shown == TENSOR_WEIGHTS ? _("  sum  bits  max") : _("A:sum  bits  max"), STATS_W - 1,
                style_attr(ST_BOLD));
    for (int r = 0; r < g.rows_vis; r++) {
        int i = a->row0 + r, y = y0 + r * g.ch, mid = y + (g.ch - 1) / 2;
        view_qlabel(a, buf, sizeof buf, i, g.label_w - 1);
        Style ls = i == a->ci ? style_attr(ST_REVERSE | ST_BOLD) : style_plain();
        if ((a->hl_kind == HL_ROW || a->hl_kind == HL_CELL) && i == a->hl_i) ls.attr |= ST_BOLD | ST_UNDERLINE;
        cv_text(cv, mid, 0, buf, g.label_w - 1, ls);
        for (int c = 0; c < g.cols_vis; c++) {
            int j = a->col0 + c;
            view_cell(a, cv, y, x0 + c * g.cw, g.cw, g.ch, &sm, i, j, i == a->ci && j == a->cj, 1);
            if (highlighted(a, i, j)) mark_box(cv, y, x0 + c * g.cw, g.cw - 1 > 0 ? g.cw - 1 : 1, g.ch);
        }
        if (!stats) continue;
        /* The row sum (1, or 0 with the flag), its entropy and its largest weight. */
        int flagged = row_fully_masked(a, i);
        cv_printf(cv, mid, sx, 6, flagged ? style_attr(ST_BOLD) : style_plain(), "%5.3f%s", hd->row_sums[i],
                  flagged ? G(a)->flag : "");
        char mx[8];
        view_num(mx, sizeof mx, hd->max_weight[i], 4, 1);
        cv_printf(cv, mid, sx + 7, 9, style_plain(), hd->entropy[i] < 9.995 ? "%4.2f %s" : "%4.1f %s", hd->entropy[i],
                  mx);
    }
    /* Where the map goes on beyond the window, both ways: above it on the
     * header's free corner, below it on the row under the map (never glued
     * to a label). */
    const Glyphs *gl = G(a);
    if (a->row0 > 0) cv_printf(cv, top, 0, g.label_w - 1, style_attr(ST_DIM), "%s%d", a->ascii ? "^" : "↑", a->row0);
    char more[96] = "";
    int below = sm.rows - a->row0 - g.rows_vis, right = sm.cols - a->col0 - g.cols_vis, n = 0;
    if (below > 0)
        n += snprintf(more + n, sizeof more - (size_t)n, P_("%s %d more row", "%s %d more rows", below),
                      a->ascii ? "v" : "↓", below);
    if (a->col0 > 0)
        n += snprintf(more + n, sizeof more - (size_t)n, "%s%s %d", n ? "   " : "", a->ascii ? "<" : "←", a->col0);
    if (right > 0) {
        n += snprintf(more + n, sizeof more - (size_t)n, "%s", n ? "   " : "");
        snprintf(more + n, sizeof more - (size_t)n, P_("%s %d more column", "%s %d more columns", right),
                 a->ascii ? ">" : "→", right);
    }
    (void)gl;
    int hint_y = y0 + g.rows_vis * g.ch;
    if (more[0] && hint_y < cv->h - (a->present ? PRESENT_BOTTOM : BOTTOM_LINES))
        cv_text(cv, hint_y, 0, more, cv->w, style_attr(ST_DIM));
    if (a->present) /* higher contrast: every number and label bold */
        for (int y = top; y < hint_y && y < cv->h; y++)
            for (int x = 0; x < cv->w; x++) cv_cell(cv, y, x)->st.attr |= ST_BOLD;
    HeatLayout *L = &a->layout;
    L->valid = 1, L->y0 = y0, L->x0 = x0, L->cw = g.cw, L->ch = g.ch;
    L->rows = g.rows_vis, L->cols = g.cols_vis, L->row0 = a->row0, L->col0 = a->col0;
    chrome_draw_bottom(a, cv, &sm, y0 + g.rows_vis * g.ch + (a->present ? 0 : 1));
}

// ----------------------------------------------------------------------------
// all heads side by side

typedef struct {
    int label_w, cw, per_row, block_w, block_h, rows_vis, cols_vis, block_rows_vis;
} HeadsGeom;

static void heads_geometry(const App *a, int W, int H, HeadsGeom *g) {
    const Model *m = a->m;
    int h = m->cfg.heads;
    int ncols = a->shown == TENSOR_OUTPUT ? m->cfg.d_v : m->n_k;
    int cap = 8 < W / 8 ? 8 : W / 8;
    if (cap < 2) cap = 2;
    g->label_w = view_max_label_width(a, cap) + 1;
    int avail_w = W - g->label_w, avail_h = H - TOP_LINES - BOTTOM_LINES;
    if (avail_w < 1) avail_w = 1;
    if (avail_h < 2) avail_h = 2;
    /* The widest cells with which every head fits; else the narrowest. */
    for (g->cw = 6; g->cw >= 1; g->cw--) {
        g->block_w = ncols * g->cw + 2;
        g->per_row = avail_w / g->block_w;
        if (g->per_row < 1) continue;
        int block_rows = (h + g->per_row - 1) / g->per_row;
        if (block_rows * (m->n_q + 2) <= avail_h) break;
    }
    if (g->cw < 1) g->cw = 1;
    g->block_w = ncols * g->cw + 2;
    g->per_row = avail_w / g->block_w;
    if (g->per_row < 1) g->per_row = 1;
    if (g->per_row > h) g->per_row = h;
    g->cols_vis = (avail_w - 2) / g->cw;
    if (g->cols_vis > ncols) g->cols_vis = ncols;
    /* A block: its title (head, mean entropy), its key labels, its rows. */
    g->block_h = m->n_q + 2;
    g->rows_vis = m->n_q;
    if (g->block_h > avail_h) g->rows_vis = avail_h - 2, g->block_h = avail_h;
    if (g->rows_vis < 1) g->rows_vis = 1, g->block_h = 3;
    g->block_rows_vis = avail_h / g->block_h;
    if (g->block_rows_vis < 1) g->block_rows_vis = 1;
}

static void draw_heads(App *a, Canvas *cv) {
    if (grid_applies(a)) {
        grid_draw(a, cv);
        return;
    }
    const Model *m = a->m;
    HeadsGeom g;
    heads_geometry(a, cv->w, cv->h, &g);
    int heads = m->cfg.heads;
    int block_rows = (heads + g.per_row - 1) / g.per_row;
    /* Keep the chosen head's row of blocks in view. */
    a->head0 = scroll_to(a->head0, a->head / g.per_row, g.block_rows_vis, block_rows);
    int cols = a->shown == TENSOR_OUTPUT ? m->cfg.d_v : m->n_k;
    a->row0 = scroll_to(a->row0, a->ci, g.rows_vis, m->n_q);
    a->col0 = scroll_to(a->col0, a->cj, g.cols_vis, cols);
    char buf[64];
    ShownMat sm;
    for (int br = 0; br < g.block_rows_vis && a->head0 + br < block_rows; br++) {
        int y = TOP_LINES + br * g.block_h;
        for (int r = 0; r < g.rows_vis && a->row0 + r < m->n_q; r++) {
            int i = a->row0 + r;
            view_qlabel(a, buf, sizeof buf, i, g.label_w - 1);
            cv_text(cv, y + 2 + r, 0, buf, g.label_w - 1, i == a->ci ? style_attr(ST_REVERSE) : style_plain());
        }
        for (int b = 0; b < g.per_row; b++) {
            int h = (a->head0 + br) * g.per_row + b;
            if (h >= heads) break;
            int x = g.label_w + b * g.block_w;
            Style ts = h == a->head ? style_attr(ST_REVERSE | ST_BOLD) : style_attr(ST_BOLD);
            double mean, max;
            model_mean_entropy(m, h, &mean, &max);
            /* The head's mean entropy in the shortest form that fits. */
            snprintf(buf, sizeof buf, _("head %d H %.2f"), h + 1, mean);
            if (g.block_w - 2 < text_width(buf, strlen(buf))) snprintf(buf, sizeof buf, "h%d H%.2f", h + 1, mean);
            if (g.block_w - 2 < text_width(buf, strlen(buf))) snprintf(buf, sizeof buf, "%d H%.1f", h + 1, mean);
            if (g.block_w - 2 < text_width(buf, strlen(buf))) snprintf(buf, sizeof buf, "%d", h + 1);
            cv_text(cv, y, x, buf, g.block_w - 2, ts);
            view_matrix(a, a->shown, h, &sm);
            int wcols = g.cols_vis < cols - a->col0 ? g.cols_vis : cols - a->col0;
            if (wcols > (g.block_w - 2) / g.cw) wcols = (g.block_w - 2) / g.cw;
            /* The key labels over the block's columns (indices when a cell
             * is too narrow for a letter and a gap). */
            for (int c = 0; c < wcols; c++) {
                int j = a->col0 + c;
                Style ks = j == a->cj ? style_attr(ST_REVERSE) : style_attr(ST_DIM);
                if (g.cw >= 3) {
                    view_col_label(a, &sm, buf, sizeof buf, j, g.cw - 1);
                    cv_text(cv, y + 1, x + c * g.cw, buf, g.cw - 1, ks);
                } else if (c % 5 == 0 || j == a->cj) {
                    cv_printf(cv, y + 1, x + c * g.cw, g.cw * 5, ks, "%d", j);
                }
            }
            for (int r = 0; r < g.rows_vis && a->row0 + r < m->n_q; r++)
                for (int c = 0; c < wcols; c++) {
                    int i = a->row0 + r, j = a->col0 + c;
                    view_cell(a, cv, y + 2 + r, x + c * g.cw, g.cw, 1, &sm, i, j, i == a->ci && j == a->cj, 1);
                }
        }
    }
    if (block_rows > g.block_rows_vis && cv->h > 1) {
        /* Which rows of heads are shown, on the title line where it fits. */
        snprintf(buf, sizeof buf, _("rows %d-%d of %d"), a->head0 + 1,
                 a->head0 + g.block_rows_vis < block_rows ? a->head0 + g.block_rows_vis : block_rows, block_rows);
        int w = text_width(buf, strlen(buf)), used = cv->w;
        while (used > 0 && strcmp(cv_cell(cv, 1, used - 1)->ch, " ") == 0) used--;
        if (used + 2 + w <= cv->w) cv_text_right(cv, 1, 0, buf, cv->w, style_attr(ST_DIM));
    }
    a->layout.valid = 0; /* clicks on the blocks: heads_layout */
    int wcols = g.cols_vis < cols - a->col0 ? g.cols_vis : cols - a->col0;
    if (wcols > (g.block_w - 2) / g.cw) wcols = (g.block_w - 2) / g.cw;
    a->heads_layout = (HeadsLayout){.valid = 1,
                                    .y0 = TOP_LINES + 2,
                                    .x0 = g.label_w,
                                    .block_w = g.block_w,
                                    .block_h = g.block_h,
                                    .per_row = g.per_row,
                                    .rows = g.block_rows_vis,
                                    .head0 = a->head0,
                                    .cw = g.cw,
                                    .row0 = a->row0,
                                    .col0 = a->col0,
                                    .rows_vis = g.rows_vis,
                                    .cols_vis = wcols};
    view_matrix(a, a->shown, a->head, &sm);
    int shown_rows = block_rows - a->head0 < g.block_rows_vis ? block_rows - a->head0 : g.block_rows_vis;
    chrome_draw_bottom(a, cv, &sm, TOP_LINES + shown_rows * g.block_h + 1);
}

// ----------------------------------------------------------------------------
// the entries

static void heatmap_title(const App *a, char *buf, size_t cap) {
    char stage[192];
    stage_title(a, stage, sizeof stage);
    const Model *m = a->m;
    ShownMat sm;
    view_matrix(a, a->shown, a->head, &sm);
    /* Projector mode has no inspector: the title names the cursor's cell. */
    if (a->present && sm.col_labels == LABELS_KEYS && a->ci < m->n_q && a->cj < m->n_k) {
        char q[64], k[64];
        view_qlabel(a, q, sizeof q, a->ci, 16);
        view_klabel(a, k, sizeof k, a->cj, 16);
        snprintf(buf, cap, _("head %d/%d  %s  %s %s %s"), a->head + 1, m->cfg.heads, view_stage_name(a->shown), q,
                 G(a)->arrow, k);
        return;
    }
    snprintf(buf, cap, _("head %d/%d  %s"), a->head + 1, m->cfg.heads, stage);
}

/* Y (and the joined heads, which are made with it) only when shown. */
static Stage heatmap_needed_stage(const App *a) {
    Stage s = tensor_info(a->shown)->stage;
    return s > STAGE_OUTPUT ? s : STAGE_OUTPUT;
}

static int heatmap_natural_height(const App *a, int w) {
    ShownMat sm;
    view_matrix(a, a->shown, a->head, &sm);
    HeatGeom g;
    heat_geometry(a, &sm, w, TOP_LINES + 2 + sm.rows + BOTTOM_LINES, &g);
    if (a->present) return map_top(a) + g.header_rows + sm.rows + PRESENT_BOTTOM;
    return TOP_LINES + g.header_rows + sm.rows + BOTTOM_LINES;
}

/* The about-texts are one paragraph each (the help wraps them), translated
 * where drawn (help.c). */
static const char *const heatmap_about[] = {
    N_("One head's attention as a map: each row is a query token, each column a key token. "
       "A cell is how much the query takes from the key; each row of weights sums to 1 (the "
       "sum column). H is the row's entropy in bits: log2(n) when spread evenly, 0 when all "
       "weight is on one key (saturation). Enter shows the arithmetic of the cursor's cell."),
    NULL};

const View view_heatmap = {
    .name = "heatmap",
    .about = heatmap_about,
    .needed_stage = heatmap_needed_stage,
    .title = heatmap_title,
    .draw = draw_heatmap,
    .natural_height = heatmap_natural_height,
    .flags = VIEW_HEAD_STATS | VIEW_INSPECTOR | VIEW_ROW_STATS,
};

static void heads_title(const App *a, char *buf, size_t cap) {
    if (grid_applies(a)) {
        grid_title(a, buf, cap);
        return;
    }
    int heads = a->m->cfg.heads;
    snprintf(buf, cap,
             P_("the %d head, %s  (Tab/1-9 choose, Enter opens)  head %d/%d",
                "all %d heads, %s  (Tab/1-9 choose, Enter opens)  head %d/%d", heads),
             heads, view_stage_name(a->shown), a->head + 1, heads);
}

static int heads_natural_height(const App *a, int w) {
    if (grid_applies(a)) return grid_natural_height(a, w);
    const Model *m = a->m;
    HeadsGeom g;
    heads_geometry(a, w, 100000, &g);
    int block_rows = (m->cfg.heads + g.per_row - 1) / g.per_row;
    return TOP_LINES + block_rows * (m->n_q + 2) + BOTTOM_LINES;
}

static const char *const heads_about[] = {
    N_("Every head side by side, small. Each head has its own W_Q, W_K, W_V, so each finds "
       "its own pattern in the same sentence. H is the head's mean row entropy. Tab or 1-9 "
       "chooses a head, Enter opens it."),
    NULL};

const View view_heads = {
    .name = "heads",
    .about = heads_about,
    .title = heads_title,
    .draw = draw_heads,
    .key = grid_key, /* a source of several layers: the grid's keys (grid.h) */
    .natural_height = heads_natural_height,
    .init = grid_init,
    .free = grid_free,
    .flags = VIEW_HEAD_STATS | VIEW_INSPECTOR,
};
