/* zoom.c - the zoomed-out view of a long text (zoom.h).
 *
 *   row 3      the first key of every few blocks (a ruler), the cursor's
 *              block's reversed
 *   rows 4..   a row of blocks a line: the position and token of its first
 *              query, its blocks (two columns each, coloured by the block's
 *              largest weight; a block the mask hides whole has the masked
 *              look), then its queries' strongest keys as words
 *   then       the weights' legend, what a cell is, the cursor's block in
 *              numbers, the message and the hints
 *
 * The pooled blocks and each row's strongest keys are kept between frames
 * (ZoomData) while the weights, the head and the block size stay: a cursor
 * key does not pool 16 million weights again. */
#include "zoom.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chrome.h"
#include "i18n.h"
#include "text.h"
#include "view.h"
#include "widgets.h"

/* A block is CELL_W columns wide (about square on a terminal's 1:2 cells);
 * TOP_K strongest keys are kept for each row of blocks; a row's label shows
 * its first token in at most LABEL_TOKEN columns. */
enum { CELL_W = 2, TOP_K = 8, LABEL_TOKEN = 8, OWN_LINES = 2 };

typedef struct {
    /* What the pooled arrays were made from. */
    int made;
    unsigned long weights_at;
    int layer, head, n_q, n_k, b;
    int rows, cols;    /* blocks down and across */
    float *max, *mean; /* (rows, cols) */
    int *count;        /* (rows, cols) the allowed cells of each block */
    int *top;          /* (rows, TOP_K) the strongest keys of each row of blocks */
    float *top_mean;   /* (rows, TOP_K) their mean weights */
    int *top_n;        /* (rows) how many */
    /* Where the last frame put the map: for clicks. */
    int valid, y0, x0, row0, col0, rows_vis, cols_vis;
} ZoomData;

static ZoomData *zdata(const App *a) { return a->view_data[VIEW_ZOOM]; }

static void pooled_free(ZoomData *d) {
    free(d->max), free(d->mean), free(d->count), free(d->top), free(d->top_mean), free(d->top_n);
    d->max = d->mean = d->top_mean = NULL;
    d->count = d->top = d->top_n = NULL;
    d->made = 0;
}

static int zoom_init(App *a) { return (a->view_data[VIEW_ZOOM] = calloc(1, sizeof(ZoomData))) ? 0 : -1; }

static void zoom_free(App *a) {
    ZoomData *d = zdata(a);
    if (d) pooled_free(d);
    free(d);
    a->view_data[VIEW_ZOOM] = NULL;
}

// ----------------------------------------------------------------------------
// pooling

int zoom_block(int n, int rows) {
    if (rows < 1) rows = 1;
    int b = (n + rows - 1) / rows;
    return b < 1 ? 1 : b;
}

void zoom_pool(float *out_max, float *out_mean, int *out_n, const float *A, const unsigned char *allowed, int n_q,
               int n_k, int b) {
    int rows = (n_q + b - 1) / b, cols = (n_k + b - 1) / b;
    size_t blocks = (size_t)rows * cols;
    double *sum = calloc(blocks ? blocks : 1, sizeof *sum);
    int *cnt = calloc(blocks ? blocks : 1, sizeof *cnt);
    for (size_t k = 0; k < blocks; k++) out_max[k] = 0.0f;
    if (!sum || !cnt) { /* out of memory: the largest weights only, counted none */
        free(sum), free(cnt);
        sum = NULL, cnt = NULL;
    }
    for (int i = 0; i < n_q; i++) {
        const float *row = A + (size_t)i * n_k;
        const unsigned char *ok = allowed ? allowed + (size_t)i * n_k : NULL;
        size_t r = (size_t)(i / b) * cols;
        for (int j = 0; j < n_k; j++) {
            if (ok && !ok[j]) continue;
            size_t k = r + (size_t)(j / b);
            if (row[j] > out_max[k]) out_max[k] = row[j];
            if (sum) sum[k] += row[j], cnt[k]++;
        }
    }
    for (size_t k = 0; k < blocks; k++) {
        if (out_mean) out_mean[k] = cnt && cnt[k] ? (float)(sum[k] / cnt[k]) : 0.0f;
        if (out_n) out_n[k] = cnt ? cnt[k] : 0;
    }
    free(sum), free(cnt);
}

int zoom_top_keys(int *keys, float *means, const float *A, const int *first, int n_k, int i0, int i1, int k) {
    if (k > TOP_K) k = TOP_K;
    if (k > n_k) k = n_k;
    if (i1 <= i0 || k < 1) return 0;
    double *col = calloc((size_t)n_k, sizeof *col);
    if (!col) return 0;
    for (int i = i0; i < i1; i++)
        for (int j = 0; j < n_k; j++) col[first ? first[j] : j] += A[(size_t)i * n_k + j];
    int got = 0;
    for (int j = 0; j < n_k; j++) {
        if (first && first[j] != j) continue; /* counted with its word's first key */
        double v = col[j] / (i1 - i0);
        /* insert j among the k largest (an earlier word stays ahead on a tie) */
        int at = got < k ? got : k;
        while (at > 0 && v > means[at - 1]) at--;
        if (at >= k) continue;
        int last = got < k ? got : k - 1;
        for (int q = last; q > at; q--) keys[q] = keys[q - 1], means[q] = means[q - 1];
        keys[at] = j, means[at] = (float)v;
        if (got < k) got++;
    }
    free(col);
    return got;
}

typedef struct {
    int id, j;
} IdAt;

static int idat_cmp(const void *pa, const void *pb) {
    const IdAt *x = pa, *y = pb;
    if (x->id != y->id) return x->id < y->id ? -1 : 1;
    return (x->j > y->j) - (x->j < y->j);
}

/* first[j] = the first key with key j's vocabulary id (model_key_id); -1
 * when out of memory. */
static int first_keys(int *first, const Model *m) {
    IdAt *v = malloc(sizeof *v * (size_t)(m->n_k ? m->n_k : 1));
    if (!v) return -1;
    for (int j = 0; j < m->n_k; j++) v[j] = (IdAt){model_key_id(m, j), j};
    qsort(v, (size_t)m->n_k, sizeof *v, idat_cmp);
    for (int q = 0; q < m->n_k; q++) first[v[q].j] = q > 0 && v[q].id == v[q - 1].id ? first[v[q - 1].j] : v[q].j;
    free(v);
    return 0;
}

/* The blocks of the weights shown now, pooled again only when they changed. */
static int refresh(ZoomData *d, const App *a, int b) {
    const Model *m = a->m;
    unsigned long at = m->computed[STAGE_WEIGHTS];
    if (d->made && d->weights_at == at && d->layer == m->layer && d->head == a->head && d->n_q == m->n_q &&
        d->n_k == m->n_k && d->b == b)
        return 0;
    pooled_free(d);
    int rows = (m->n_q + b - 1) / b, cols = (m->n_k + b - 1) / b;
    size_t blocks = (size_t)rows * cols;
    d->max = malloc(sizeof(float) * blocks), d->mean = malloc(sizeof(float) * blocks);
    d->count = malloc(sizeof(int) * blocks);
    d->top = malloc(sizeof(int) * TOP_K * (size_t)rows), d->top_mean = malloc(sizeof(float) * TOP_K * (size_t)rows);
    d->top_n = malloc(sizeof(int) * (size_t)rows);
    if (!d->max || !d->mean || !d->count || !d->top || !d->top_mean || !d->top_n) {
        pooled_free(d);
        return -1;
    }
    const float *A = tensor_data(m, TENSOR_WEIGHTS, m->layer, a->head);
    zoom_pool(d->max, d->mean, d->count, A, m->allowed, m->n_q, m->n_k, b);
    int *first = malloc(sizeof(int) * (size_t)(m->n_k ? m->n_k : 1));
    if (first && first_keys(first, m)) free(first), first = NULL;
    for (int r = 0; r < rows; r++) {
        int i1 = (r + 1) * b < m->n_q ? (r + 1) * b : m->n_q;
        d->top_n[r] = zoom_top_keys(d->top + r * TOP_K, d->top_mean + r * TOP_K, A, first, m->n_k, r * b, i1, TOP_K);
    }
    free(first);
    d->made = 1, d->weights_at = at, d->layer = m->layer, d->head = a->head, d->n_q = m->n_q, d->n_k = m->n_k;
    d->b = b, d->rows = rows, d->cols = cols;
    return 0;
}

// ----------------------------------------------------------------------------
// geometry

typedef struct {
    int label_w;        /* "652 어텐션은 " */
    int keys_x, keys_w; /* the strongest keys' column */
    int b;              /* tokens a block, both ways */
    int rows_fit, cols_fit;
} ZoomGeom;

static int digits(int n) {
    int d = 1;
    while (n >= 10) n /= 10, d++;
    return d;
}

static void geometry(const App *a, int W, int H, ZoomGeom *g) {
    const Model *m = a->m;
    g->label_w = digits(m->n_q > 0 ? m->n_q - 1 : 0) + 1 + LABEL_TOKEN + 1;
    int keys_w = W / 3;
    if (keys_w > 48) keys_w = 48;
    if (keys_w < 12) keys_w = 12;
    int map_w = W - g->label_w - keys_w - 1;
    if (map_w < CELL_W) map_w = CELL_W;
    g->rows_fit = H - TOP_LINES - 1 - 1 - OWN_LINES - 2; /* ruler; legend, own lines, message, hints */
    if (g->rows_fit < 1) g->rows_fit = 1;
    g->cols_fit = map_w / CELL_W;
    int br = zoom_block(m->n_q, g->rows_fit), bc = zoom_block(m->n_k, g->cols_fit);
    g->b = br > bc ? br : bc;
    int cols = (m->n_k + g->b - 1) / g->b;
    g->keys_x = g->label_w + cols * CELL_W + 1;
    g->keys_w = W - g->keys_x;
}

// ----------------------------------------------------------------------------
// drawing

/* "44 쿼리": the position and the token of query i in w columns. */
static void row_label(const App *a, char *buf, size_t cap, int i, int w) {
    char tok[128];
    view_qlabel(a, tok, sizeof tok, i, LABEL_TOKEN);
    snprintf(buf, cap, "%*d %s", digits(a->m->n_q - 1), i, tok);
    (void)w;
}

/* The first key of a block, every few blocks where the last one's number
 * has ended; the cursor's block's first, reversed, and nothing touching it. */
static void draw_ruler(const App *a, Canvas *cv, int y, const ZoomGeom *g, const ZoomData *d) {
    int cur = a->cj / g->b, cx = g->label_w + cur * CELL_W, next = g->label_w;
    char buf[16];
    int cw = snprintf(buf, sizeof buf, "%d", cur * g->b);
    cv_text(cv, y, cx, buf, cv->w - cx, style_attr(ST_REVERSE | ST_BOLD));
    for (int c = 0; c < d->cols; c++) {
        int x = g->label_w + c * CELL_W, w = snprintf(buf, sizeof buf, "%d", c * g->b);
        if (c == cur || x < next || (x + w + 1 > cx && x < cx + cw + 1)) continue;
        cv_text(cv, y, x, buf, cv->w - x, style_attr(ST_DIM));
        next = x + w + 1;
    }
}

/* The strongest keys of row r of blocks: "쿼리 .21  키 .10 ...", as many as fit. */
static void draw_keys(const App *a, Canvas *cv, int y, int x, int w, const ZoomData *d, int r) {
    int at = 0;
    for (int k = 0; k < d->top_n[r] && at < w; k++) {
        char lab[64], num[8], item[96];
        view_klabel(a, lab, sizeof lab, d->top[r * TOP_K + k], 10);
        view_num(num, sizeof num, d->top_mean[r * TOP_K + k], 3, 1);
        snprintf(item, sizeof item, "%s%s %s", k ? "  " : "", lab, num);
        int iw = text_width(item, strlen(item));
        if (at + iw > w) break;
        cv_text(cv, y, x + at, item, w - at, style_plain());
        at += iw;
    }
}

/* One block: its largest weight's colour (or shade), the masked look when
 * the mask hides all of it, reversed at the cursor. */
static void draw_block(const App *a, Canvas *cv, int y, int x, const ZoomData *d, int r, int c, double row_max,
                       int cursor) {
    size_t k = (size_t)r * d->cols + c;
    if (d->count[k] == 0) {
        Style st = style_attr(cursor ? ST_REVERSE | ST_BOLD : ST_DIM);
        cv_fill(cv, y, x, CELL_W, " ", st);
        cv_text(cv, y, x, view_glyphs(a)->masked, 1, st);
        return;
    }
    ShownMat sm = {0};
    sm.hi = 1;
    const char *glyph = NULL;
    double v = d->max[k], shade = a->row_contrast && row_max > 0 ? v / row_max : v;
    Style st = view_value_style(a, &sm, shade, &glyph);
    if (cursor) st.attr |= ST_REVERSE | ST_BOLD;
    cv_fill(cv, y, x, CELL_W, glyph ? glyph : " ", st);
}

/* Under the map: what a cell is, then the cursor's block in numbers. */
static void draw_own_lines(const App *a, Canvas *cv, int y, const ZoomGeom *g, const ZoomData *d) {
    const Model *m = a->m;
    char buf[512];
    snprintf(buf, sizeof buf,
             _("a cell: the largest weight in its block of %d x %d tokens (max pooling); at the right, the words each "
               "row gives the most weight on average (a word's copies together)"),
             g->b, g->b);
    if (text_width(buf, strlen(buf)) > cv->w)
        snprintf(buf, sizeof buf, _("a cell: the largest weight in its %d x %d block (max pooling); right: top words"),
                 g->b, g->b);
    chrome_fit(buf, sizeof buf, cv->w);
    cv_text(cv, y, 0, buf, cv->w, style_attr(ST_DIM));
    int r = a->ci / g->b, c = a->cj / g->b;
    if (r >= d->rows || c >= d->cols) return;
    size_t k = (size_t)r * d->cols + c;
    int i0 = r * g->b, i1 = (r + 1) * g->b < m->n_q ? (r + 1) * g->b : m->n_q;
    int j0 = c * g->b, j1 = (c + 1) * g->b < m->n_k ? (c + 1) * g->b : m->n_k;
    const float *A = tensor_data(m, TENSOR_WEIGHTS, m->layer, a->head);
    int bi = -1, bj = -1;
    for (int i = i0; i < i1; i++)
        for (int j = j0; j < j1; j++)
            if (m->allowed[(size_t)i * m->n_k + j] &&
                (bi < 0 || A[(size_t)i * m->n_k + j] > A[(size_t)bi * m->n_k + bj]))
                bi = i, bj = j;
    char mx[8], mean[16];
    view_num(mx, sizeof mx, d->max[k], 3, 1);
    snprintf(mean, sizeof mean, "%.4f", d->mean[k]);
    if (bi < 0) {
        snprintf(buf, sizeof buf, _("rows %d-%d x keys %d-%d: all masked"), i0, i1 - 1, j0, j1 - 1);
    } else {
        char q[64], kk[64];
        view_qlabel(a, q, sizeof q, bi, 12);
        view_klabel(a, kk, sizeof kk, bj, 12);
        /* TRANSLATORS: the block's rows and keys; its largest weight, where (query
           token[i] → key token[j]); the mean of its count of allowed weights */
        snprintf(buf, sizeof buf, _("rows %d-%d x keys %d-%d: largest %s (%s[%d] %s %s[%d]), mean %s of %d"), i0,
                 i1 - 1, j0, j1 - 1, mx, q, bi, view_glyphs(a)->arrow, kk, bj, mean, d->count[k]);
    }
    chrome_fit(buf, sizeof buf, cv->w);
    cv_text(cv, y + 1, 0, buf, cv->w, style_plain());
}

static void zoom_draw(App *a, Canvas *cv) {
    ZoomData *d = zdata(a);
    ZoomGeom g;
    geometry(a, cv->w, cv->h, &g);
    if (!d || refresh(d, a, g.b)) {
        cv_text(cv, TOP_LINES + 1, 2, _("zoom: out of memory"), cv->w - 2, style_attr(ST_BOLD));
        chrome_draw_bottom(a, cv, NULL, cv->h - 2);
        return;
    }
    int y0 = TOP_LINES + 1, cr = a->ci / g.b, cc = a->cj / g.b;
    draw_ruler(a, cv, TOP_LINES, &g, d);
    char buf[160];
    for (int r = 0; r < d->rows && r < g.rows_fit; r++) {
        int y = y0 + r;
        row_label(a, buf, sizeof buf, r * g.b, g.label_w - 1);
        cv_text(cv, y, 0, buf, g.label_w - 1, style_attr(r == cr ? ST_REVERSE | ST_BOLD : 0));
        double row_max = 0;
        for (int c = 0; c < d->cols; c++)
            if (d->max[(size_t)r * d->cols + c] > row_max) row_max = d->max[(size_t)r * d->cols + c];
        for (int c = 0; c < d->cols; c++)
            draw_block(a, cv, y, g.label_w + c * CELL_W, d, r, c, row_max, r == cr && c == cc);
        draw_keys(a, cv, y, g.keys_x, g.keys_w, d, r);
    }
    int shown = d->rows < g.rows_fit ? d->rows : g.rows_fit;
    ShownMat sm;
    view_matrix(a, TENSOR_WEIGHTS, a->head, &sm);
    int yl = y0 + shown;
    if (yl > cv->h - 5) yl = cv->h - 5;
    draw_own_lines(a, cv, yl + 1, &g, d);
    d->valid = 1, d->y0 = y0, d->x0 = g.label_w, d->rows_vis = shown, d->cols_vis = d->cols;
    chrome_draw_bottom(a, cv, &sm, yl);
}

// ----------------------------------------------------------------------------
// keys

static void open_heatmap(App *a) {
    a->view = VIEW_HEATMAP;
    a->shown = TENSOR_WEIGHTS;
}

static int zoom_key(App *a, Action act) {
    const ZoomData *d = zdata(a);
    int b = d && d->made ? d->b : 1, page = d && d->valid && d->rows_vis > 1 ? d->rows_vis - 1 : 1;
    const Model *m = a->m;
    switch (act) {
    case ACT_UP: a->ci -= b; break;
    case ACT_DOWN: a->ci += b; break;
    case ACT_LEFT: a->cj -= b; break;
    case ACT_RIGHT: a->cj += b; break;
    case ACT_PAGE_UP: a->ci -= b * page; break;
    case ACT_PAGE_DOWN: a->ci += b * page; break;
    case ACT_HOME: a->ci = a->cj = 0; break;
    case ACT_END: a->ci = m->n_q - 1, a->cj = m->n_k - 1; break;
    case ACT_OPEN: open_heatmap(a); return 1;
    default: return VIEW_KEY_PASS;
    }
    if (a->ci < 0) a->ci = 0;
    if (a->cj < 0) a->cj = 0;
    if (a->ci >= m->n_q) a->ci = m->n_q - 1;
    if (a->cj >= m->n_k) a->cj = m->n_k - 1;
    a->msg[0] = '\0';
    return 1;
}

int zoom_click(App *a, int y, int x) {
    const ZoomData *d = zdata(a);
    if (!d || !d->valid || !d->made || y < d->y0 || x < d->x0) return 0;
    int r = y - d->y0, c = (x - d->x0) / CELL_W;
    if (r >= d->rows_vis || c >= d->cols_vis) return 0;
    a->ci = r * d->b, a->cj = c * d->b;
    if (a->ci >= a->m->n_q) a->ci = a->m->n_q - 1;
    if (a->cj >= a->m->n_k) a->cj = a->m->n_k - 1;
    return 1;
}

// ----------------------------------------------------------------------------
// the entry

static void zoom_title(const App *a, char *buf, size_t cap) {
    int w, h;
    ZoomGeom g;
    view_body_size(a, &w, &h);
    geometry(a, w, h, &g);
    /* TRANSLATORS: head h/H, the count of tokens, the block's side */
    snprintf(buf, cap,
             P_("head %d/%d  zoomed out: %d token in blocks of %d, max of each  (Enter opens, / jumps)",
                "head %d/%d  zoomed out: %d tokens in blocks of %d, max of each  (Enter opens, / jumps)", a->m->n_q),
             a->head + 1, a->m->cfg.heads, a->m->n_q, g.b);
}

static Stage zoom_needed_stage(const App *a) {
    (void)a;
    return STAGE_WEIGHTS;
}

static int zoom_natural_height(const App *a, int w) {
    (void)w;
    int rows = a->m->n_q < 40 ? a->m->n_q : 40;
    return TOP_LINES + 1 + rows + 1 + OWN_LINES + 2;
}

static int zoom_available(const App *a, const char **why) {
    if (a->m->n_q < 1 || a->m->n_k < 1) {
        if (why) *why = _("zoom: no tokens");
        return 0;
    }
    return 1;
}

/* One paragraph (the help wraps it), translated where drawn (help.c). */
static const char *const about[] = {
    N_("A long text zoomed out: the head's weights in square blocks of b x b tokens, one cell a "
       "block, coloured by the block's largest weight (max pooling: one strong link shows); a block "
       "the mask hides whole has the masked look. Each row of blocks starts with its first query "
       "(position and token) and ends with the keys its queries give the most weight on average, "
       "as words. Under the map: the cursor's block, its largest weight and where, and its mean. "
       "Arrows move a block, Enter opens the heatmap there, / jumps to a token by its position or "
       "its text, z colours each row of blocks against its own largest."),
    NULL};

const View view_zoom = {
    .name = "zoom",
    .about = about,
    .available = zoom_available,
    .needed_stage = zoom_needed_stage,
    .title = zoom_title,
    .draw = zoom_draw,
    .key = zoom_key,
    .natural_height = zoom_natural_height,
    .init = zoom_init,
    .free = zoom_free,
    .flags = VIEW_HEAD_STATS,
};
