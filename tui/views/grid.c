/* grid.c - the all-heads view of a source of several layers (grid.h): a row
 * of thumbnails for each layer, a column for each head, each thumbnail the
 * stage shown of that layer's head. As small as half-block cells: U+2580 ▀
 * with the upper query row's colour in front and the lower one's behind, so
 * a map of n_q x n_k takes ceil(n_q/2) rows of n_k columns; bigger cells when
 * all of it fits; where not all of it fits whole, the class map
 * (classmap.h) instead. Without colours (or in --ascii, where ▀ is a
 * glyph of ambiguous width) one query row a character row, with the heatmap's
 * own cells (shade glyphs in monochrome). Heads that share a key/value head
 * are bracketed under the head labels: "┌── kv1 ──┐". */
#include "grid.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chrome.h"
#include "classmap.h"
#include "i18n.h"
#include "model.h"
#include "text.h"
#include "view.h"
#include "widgets.h"

#define G view_glyphs

typedef struct {
    int layer0, head0; /* the first layer and head in view */
    /* Where the last frame put the thumbnails: for clicks and pages. */
    int valid, y0, x0, bw, bh, th, layers_vis, heads_vis;
} GridData;

static GridData *gdata(const App *a) { return a->view_data[VIEW_HEADS]; }

int grid_init(App *a) { return (a->view_data[VIEW_HEADS] = calloc(1, sizeof(GridData))) ? 0 : -1; }

void grid_free(App *a) {
    free(a->view_data[VIEW_HEADS]);
    a->view_data[VIEW_HEADS] = NULL;
}

int grid_applies(const App *a) { return a->m->cfg.layers > 1; }

int grid_kv_heads(const App *a) {
    int heads = a->m->cfg.heads;
    const TrainedInfo *t = model_trained(a->m);
    if (!t) return heads;
    int kv = t->n_kv_heads;
    return kv > 0 && kv < heads && heads % kv == 0 ? kv : heads;
}

// ----------------------------------------------------------------------------
// geometry

/* A cell's size: columns per key, rows per query (0: half a row, two
 * queries to a character row). */
typedef struct {
    int cw, qh;
} CellSize;

/* Smallest first, none narrower or shorter than the one before; {1, 0},
 * {2, 1} and {4, 2} are about square on a terminal's 1:2 cells, the ones
 * between use the width when the height is short. */
static const CellSize sizes_half[] = {{1, 0}, {2, 0}, {2, 1}, {3, 1}, {4, 2}, {6, 3}};
static const CellSize sizes_full[] = {{1, 1}, {2, 1}, {3, 1}, {4, 2}, {6, 3}};
enum { N_HALF = sizeof sizes_half / sizeof *sizes_half, N_FULL = sizeof sizes_full / sizeof *sizes_full };

typedef struct {
    int label_w;            /* "L5" and the blank column before the first head */
    int header;             /* rows above the thumbnails: head labels, kv groups */
    CellSize sz;            /* the cells */
    int tw, th;             /* a thumbnail's columns and rows on screen */
    int rows_vis, cols_vis; /* its query rows and columns shown */
    int layers_vis, heads_vis;
} GridGeom;

static int digits(int n) {
    int d = 1;
    while (n >= 10) n /= 10, d++;
    return d;
}

static int thumb_rows(int n_q, CellSize s) { return s.qh ? n_q * s.qh : (n_q + 1) / 2; }

static int half_blocks(const App *a) { return a->tier != TIER_NONE && !a->ascii; }

/* The largest cells with which every layer and head fits (else the
 * smallest), and what of it is in view. */
static void grid_geometry(const App *a, int W, int H, GridGeom *g) {
    const Model *m = a->m;
    int layers = m->cfg.layers, heads = m->cfg.heads, cols = tensor_cols(m, a->shown);
    g->label_w = digits(layers) + 2;
    g->header = grid_kv_heads(a) < heads ? 2 : 1;
    int avail_w = W - g->label_w, avail_h = H - TOP_LINES - BOTTOM_LINES - g->header;
    if (avail_w < 2) avail_w = 2;
    if (avail_h < 1) avail_h = 1;
    const CellSize *sizes = half_blocks(a) ? sizes_half : sizes_full;
    g->sz = sizes[0];
    for (int k = (half_blocks(a) ? N_HALF : N_FULL) - 1; k > 0; k--) {
        int tw = cols * sizes[k].cw, th = thumb_rows(m->n_q, sizes[k]);
        if (heads * (tw + 1) <= avail_w && layers * (th + 1) - 1 <= avail_h) {
            g->sz = sizes[k];
            break;
        }
    }
    g->cols_vis = cols, g->rows_vis = m->n_q;
    g->tw = cols * g->sz.cw, g->th = thumb_rows(m->n_q, g->sz);
    /* A thumbnail wider or taller than the screen: its part at the cursor. */
    if (g->tw + 1 > avail_w) {
        g->cols_vis = (avail_w - 1) / g->sz.cw > 0 ? (avail_w - 1) / g->sz.cw : 1;
        g->tw = g->cols_vis * g->sz.cw;
    }
    if (g->th > avail_h) {
        g->rows_vis = g->sz.qh ? avail_h / g->sz.qh : 2 * avail_h;
        if (g->rows_vis < 1) g->rows_vis = 1;
        if (g->rows_vis > m->n_q) g->rows_vis = m->n_q;
        g->th = thumb_rows(g->rows_vis, g->sz);
    }
    g->heads_vis = avail_w / (g->tw + 1);
    if (g->heads_vis < 1) g->heads_vis = 1;
    if (g->heads_vis > heads) g->heads_vis = heads;
    g->layers_vis = (avail_h + 1) / (g->th + 1);
    if (g->layers_vis < 1) g->layers_vis = 1;
    if (g->layers_vis > layers) g->layers_vis = layers;
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

// ----------------------------------------------------------------------------
// drawing

/* The stage shown of head h of layer l, on its own colour scale. */
static void layer_matrix(const App *a, int l, int h, ShownMat *sm) {
    view_matrix(a, a->shown, h, sm);
    ShownMat of;
    view_matrix_of(&of, tensor_data(a->m, a->shown, l, h), sm->rows, sm->cols, sm->is_signed);
    sm->v = of.v, sm->lo = of.lo, sm->hi = of.hi, sm->maxabs = of.maxabs;
}

/* The colour of cell (i, j), or -1 when it is masked or absent (i < 0). */
static short cell_colour(const App *a, const ShownMat *sm, int i, int j) {
    if (i < 0 || view_cell_masked(a, sm, i, j)) return -1;
    const char *glyph;
    return view_value_style(a, sm, sm->v[(size_t)i * sm->cols + j], &glyph).bg;
}

/* Rows iu and il (-1: none) of key column j in one character cell. */
static void half_cell(const App *a, Canvas *cv, int y, int x, int cw, const ShownMat *sm, int iu, int il, int j) {
    short up = cell_colour(a, sm, iu, j), lo = cell_colour(a, sm, il, j);
    Style st = style_plain();
    const char *glyph = "▀";
    if (up >= 0) st.fg = up, st.bg = lo;
    else if (lo >= 0) glyph = "▄", st.fg = lo;
    else glyph = " ";
    cv_fill(cv, y, x, cw, glyph, st);
}

static void draw_thumb(const App *a, Canvas *cv, int y, int x, const GridGeom *g, const ShownMat *sm) {
    int r_end = a->row0 + g->rows_vis < sm->rows ? a->row0 + g->rows_vis : sm->rows;
    int c_end = a->col0 + g->cols_vis < sm->cols ? a->col0 + g->cols_vis : sm->cols;
    if (g->sz.qh) {
        for (int i = a->row0; i < r_end; i++)
            for (int j = a->col0; j < c_end; j++)
                view_cell(a, cv, y + (i - a->row0) * g->sz.qh, x + (j - a->col0) * g->sz.cw, g->sz.cw, g->sz.qh, sm, i,
                          j, 0, 0);
        return;
    }
    for (int i = a->row0; i < r_end; i += 2)
        for (int j = a->col0; j < c_end; j++)
            half_cell(a, cv, y + (i - a->row0) / 2, x + (j - a->col0) * g->sz.cw, g->sz.cw, sm, i,
                      i + 1 < r_end ? i + 1 : -1, j);
}

static int head_x(const GridGeom *g, int head0, int h) { return g->label_w + (h - head0) * (g->tw + 1); }

/* "head 3" (or "3" where that does not fit) over each thumbnail; the
 * chosen head's reversed over the thumbnail's width. */
static void draw_head_labels(const App *a, Canvas *cv, const GridGeom *g, int head0) {
    char buf[24];
    for (int h = head0; h < head0 + g->heads_vis && h < a->m->cfg.heads; h++) {
        int x = head_x(g, head0, h);
        snprintf(buf, sizeof buf, _("head %d"), h + 1);
        if (text_width(buf, strlen(buf)) > g->tw) snprintf(buf, sizeof buf, "%d", h + 1);
        int w = text_width(buf, strlen(buf));
        Style st = style_attr(h == a->head ? ST_REVERSE | ST_BOLD : ST_BOLD);
        if (h == a->head) cv_fill(cv, TOP_LINES, x, g->tw, " ", st);
        cv_text(cv, TOP_LINES, x + (w < g->tw ? (g->tw - w) / 2 : 0), buf, g->tw, st);
    }
}

/* Under the head labels, each group of heads that shares a key/value head
 * bracketed: "┌── kv1 ──┐" (open where the group goes on out of view). */
static void draw_kv_groups(const App *a, Canvas *cv, int y, const GridGeom *g, int head0) {
    int heads = a->m->cfg.heads, per = heads / grid_kv_heads(a);
    int end = head0 + g->heads_vis < heads ? head0 + g->heads_vis : heads;
    const char *dash = a->ascii ? "-" : "─", *left = a->ascii ? "+" : "┌", *right = a->ascii ? "+" : "┐";
    char buf[24];
    for (int h = head0; h < end;) {
        int grp = h / per, last = (grp + 1) * per - 1 < end - 1 ? (grp + 1) * per - 1 : end - 1;
        int xs = head_x(g, head0, h), xe = head_x(g, head0, last) + g->tw - 1, span = xe - xs + 1;
        Style st = style_attr(a->head / per == grp ? ST_BOLD : ST_DIM);
        cv_fill(cv, y, xs, span, dash, st);
        if (h == grp * per) cv_text(cv, y, xs, left, 1, st);
        if (last == (grp + 1) * per - 1) cv_text(cv, y, xe, right, 1, st);
        int w = snprintf(buf, sizeof buf, " kv%d ", grp + 1);
        if (w > span) w = snprintf(buf, sizeof buf, "%d", grp + 1);
        cv_text(cv, y, xs + (w < span ? (span - w) / 2 : 0), buf, span, st);
        h = last + 1;
    }
}

int grid_shows_classes(const App *a, int w, int h) {
    if (!grid_applies(a) || w < 1 || h < 1) return 0;
    GridGeom g;
    grid_geometry(a, w, h, &g);
    return g.layers_vis < a->m->cfg.layers || g.heads_vis < a->m->cfg.heads || g.rows_vis < a->m->n_q ||
           g.cols_vis < tensor_cols(a->m, a->shown);
}

void grid_draw(App *a, Canvas *cv) {
    const Model *m = a->m;
    GridData spare = {0}, *d = gdata(a) ? gdata(a) : &spare;
    d->valid = 0;
    if (grid_shows_classes(a, cv->w, cv->h)) {
        classmap_draw(a, cv);
        chrome_draw_bottom(a, cv, NULL, cv->h - 2);
        return;
    }
    GridGeom g;
    grid_geometry(a, cv->w, cv->h, &g);
    int layers = m->cfg.layers, heads = m->cfg.heads;
    d->layer0 = scroll_to(d->layer0, m->layer, g.layers_vis, layers);
    d->head0 = scroll_to(d->head0, a->head, g.heads_vis, heads);
    a->row0 = scroll_to(a->row0, a->ci, g.rows_vis, m->n_q);
    a->col0 = scroll_to(a->col0, a->cj, g.cols_vis, tensor_cols(m, a->shown));
    int y0 = TOP_LINES + g.header, bh = g.th + 1;
    draw_head_labels(a, cv, &g, d->head0);
    if (g.header > 1) draw_kv_groups(a, cv, TOP_LINES + 1, &g, d->head0);
    ShownMat sm;
    char buf[16];
    int shown = layers - d->layer0 < g.layers_vis ? layers - d->layer0 : g.layers_vis;
    for (int l = d->layer0; l < d->layer0 + shown; l++) {
        int y = y0 + (l - d->layer0) * bh;
        snprintf(buf, sizeof buf, "L%d", l + 1);
        cv_text(cv, y + (g.th - 1) / 2, 0, buf, g.label_w - 1,
                style_attr(l == m->layer ? ST_REVERSE | ST_BOLD : ST_BOLD));
        for (int h = d->head0; h < d->head0 + g.heads_vis && h < heads; h++) {
            int x = head_x(&g, d->head0, h);
            layer_matrix(a, l, h, &sm);
            draw_thumb(a, cv, y, x, &g, &sm);
            if (l != m->layer || h != a->head) continue;
            /* The chosen one between two bars, in the blank columns beside it. */
            for (int r = 0; r < g.th; r++) {
                cv_text(cv, y + r, x - 1, G(a)->vbar, 1, style_attr(ST_BOLD));
                cv_text(cv, y + r, x + g.tw, G(a)->vbar, 1, style_attr(ST_BOLD));
            }
        }
    }
    d->valid = 1, d->y0 = y0, d->x0 = g.label_w, d->bw = g.tw + 1, d->bh = bh, d->th = g.th;
    d->layers_vis = g.layers_vis, d->heads_vis = g.heads_vis;
    view_matrix(a, a->shown, a->head, &sm);
    chrome_draw_bottom(a, cv, &sm, y0 + shown * bh);
}

void grid_title(const App *a, char *buf, size_t cap) {
    const ModelConfig *c = &a->m->cfg;
    char layers[32], heads[32];
    snprintf(layers, sizeof layers, P_("%d layer", "%d layers", c->layers), c->layers);
    snprintf(heads, sizeof heads, P_("%d head", "%d heads", c->heads), c->heads);
    /* TRANSLATORS: "12 layers x 12 heads, weights  (...)  head 3/12" */
    snprintf(buf, cap, _("%s x %s, %s  (arrows choose, Enter opens)  head %d/%d"), layers, heads,
             view_stage_name(a->shown), a->head + 1, c->heads);
}

int grid_natural_height(const App *a, int w) {
    GridGeom g;
    grid_geometry(a, w, 100000, &g);
    int h = TOP_LINES + g.header + a->m->cfg.layers * (g.th + 1) + BOTTOM_LINES;
    return grid_shows_classes(a, w, h) ? classmap_natural_height(a, w) : h;
}

// ----------------------------------------------------------------------------
// keys and clicks

static void choose(App *a, int layer, int head) {
    int layers = a->m->cfg.layers, heads = a->m->cfg.heads;
    layer = layer < 0 ? 0 : layer >= layers ? layers - 1 : layer;
    head = head < 0 ? 0 : head >= heads ? heads - 1 : head;
    model_set_layer(a->m, layer);
    a->head = head;
    a->msg[0] = '\0';
    a->quit_asked = 0;
}

int grid_key(App *a, Action act) {
    if (!grid_applies(a)) return VIEW_KEY_PASS;
    const GridData *d = gdata(a);
    if (!d || !d->valid) return classmap_key(a, act); /* the class map was drawn */
    int page = d && d->valid && d->layers_vis > 0 ? d->layers_vis : 1;
    int layer = a->m->layer, head = a->head;
    switch (act) {
    case ACT_UP: layer--; break;
    case ACT_DOWN: layer++; break;
    case ACT_LEFT: head--; break;
    case ACT_RIGHT: head++; break;
    case ACT_PAGE_UP: layer -= page; break;
    case ACT_PAGE_DOWN: layer += page; break;
    default: return VIEW_KEY_PASS;
    }
    choose(a, layer, head);
    return 1;
}

int grid_click(App *a, int y, int x) {
    const GridData *d = gdata(a);
    if (grid_applies(a) && d && !d->valid) return classmap_click(a, y, x);
    if (!grid_applies(a) || !d || !d->valid || y < d->y0 || x < d->x0) return 0;
    int r = (y - d->y0) / d->bh, c = (x - d->x0) / d->bw;
    if ((y - d->y0) % d->bh >= d->th || (x - d->x0) % d->bw >= d->bw - 1) return 0;
    if (r >= d->layers_vis || c >= d->heads_vis) return 0;
    if (d->layer0 + r >= a->m->cfg.layers || d->head0 + c >= a->m->cfg.heads) return 0;
    choose(a, d->layer0 + r, d->head0 + c);
    return 1;
}
