/* gravity.c - the word gravity view (see gravity.h): attention as words
 * pulling each other through the embedding space.
 *
 * Plot space is a grid of dots, DW x DH. In Unicode mode each terminal cell
 * holds a 2 x 4 braille dot grid (U+2800 + one bit per dot; braille is East
 * Asian Neutral, so Korean terminals keep it one column wide); a cell is about
 * twice as tall as wide, so a braille dot is square and one scale serves both
 * axes. In ASCII mode a dot is a whole cell, twice as tall as wide, so y gets
 * half as many dots per unit as x. Either way a distance on the screen is
 * the same distance in PC1 or PC2: the picture is honest about who moved far.
 *
 * Layers, each over the one before: the lines X -> X + D (Bresenham in dot
 * space), the points X, the moved points X + D, then the labels (cursor's
 * token first, then in sentence order; each at the first free spot around its
 * moved point, labels never overwrite labels, a label that finds no room is
 * skipped, and a word repeated at the same spot is labelled once).
 *
 * The principal axes of X are remembered between frames (GravityData): moving
 * the cursor or changing the head does not recompute them. */
#include "gravity.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "pca.h"
#include "text.h"
#include "chrome.h"
#include "view.h"
#include "widgets.h"

/* LABEL_MAX: columns of a label. LABEL_COVER_MAX_N: up to this many tokens
 * a label may cover another token's point (so that a short sentence has all
 * its words named); in a crowd, points matter more than names. */
enum { LABEL_MAX = 16, LABEL_COVER_MAX_N = 64 };

/* What a plot cell shows; a higher kind hides a lower one. */
enum { K_NONE, K_LINE, K_X, K_MOVED };

/* Colours of the two point sets: basic-colour indices, the same in the
 * 8-colour and the 256-colour palette. */
enum { FG_X = 6 /* cyan */, FG_MOVED = 1 /* red */ };

static const char *const about[] = {
    "Word gravity: each word is pulled towards the words it attends to. A point is a token",
    "where it was (X, its embedding) and where attention moved it (X + D), on the plane of",
    "X's first two principal components. W_V and W_O decide the directions a word can move",
    "in, so a verb stays a verb. D is one head's share, O_h W_O[h], or for all heads Y.", NULL};

int gravity_available(const App *a, const char **why) {
    const Model *m = a ? a->m : NULL;
    const char *r = NULL;
    if (!m) r = "word gravity: no model";
    else if (!model_can(m, SRC_TOKENIZERS | SRC_EMBED | SRC_WEIGHTS)) {
        static _Thread_local char buf[160]; /* the frame's thread writes it, the same frame reads it */
        snprintf(buf, sizeof buf, "word gravity needs a sentence: %s", m->src->lacks ? m->src->lacks : "none here");
        r = buf;
    } else if (m->q_target != m->k_target || m->xq != m->x)
        r = "word gravity needs self-attention: in cross-attention the queries are another "
            "sentence";
    else if (m->n_q != m->n_k) r = "word gravity needs self-attention: the queries must be the key tokens";
    else if (m->n_q < 1) r = "word gravity: no tokens to draw";
    else if (m->stale <= STAGE_OUTPUT) r = "word gravity: the model is not up to date";
    if (why) *why = r;
    return r == NULL;
}

// ----------------------------------------------------------------------------
// the principal axes of X, remembered while X stays the same

/* The view is redrawn on every cursor key; X changes only with the sentence,
 * the seed, d_model or positions. So the last result is kept, keyed by the
 * shape and a hash of X's bytes (not by the model's address, which a new
 * model may reuse). It is the view's own data (View.init, in the App), with
 * the choice of one head or all. */
typedef struct {
    int all_heads; /* g again: the whole layer's Y instead of one head's share */
    int valid, n, d;
    uint64_t hash;
    float mean[MODEL_MAX_DIM];
    float axes[2 * MODEL_MAX_DIM]; /* (2, d) */
    double var[2], total;
} GravityData;

static GravityData *gdata(const App *a) { return a->view_data[VIEW_GRAVITY]; }

static int gravity_init(App *a) { return (a->view_data[VIEW_GRAVITY] = calloc(1, sizeof(GravityData))) ? 0 : -1; }

static void gravity_free(App *a) {
    free(a->view_data[VIEW_GRAVITY]);
    a->view_data[VIEW_GRAVITY] = NULL;
}

int gravity_all_heads(const App *a) { return gdata(a) && gdata(a)->all_heads; }

void gravity_toggle_all(App *a) {
    if (gdata(a)) gdata(a)->all_heads = !gdata(a)->all_heads;
}

static int x_axes(const App *a, AvError *err) {
    const Model *m = a->m;
    GravityData *g = gdata(a);
    int n = m->n_k, d = m->cfg.d_model;
    if (!g) return av_error_nomem(err, "word gravity: out of memory");
    if (d < 1 || d > MODEL_MAX_DIM) return av_errorf(err, "word gravity: d_model %d out of range", d);
    uint64_t h = av_fnv1a(m->x, sizeof(float) * (size_t)n * d);
    if (g->valid && g->n == n && g->d == d && g->hash == h) return 0;
    g->valid = 0;
    if (pca_top2(g->axes, g->var, m->x, n, d, err)) return -1;
    pca_mean(g->mean, m->x, n, d);
    g->total = pca_total_variance(m->x, g->mean, n, d);
    g->n = n, g->d = d, g->hash = h, g->valid = 1;
    return 0;
}

/* dp (n, 2) = D projected on the axes (a displacement: not centred).
 * head h: D = O_h W_O[h], computed as O_h (W_O[h] axes^T), (n, d_v)(d_v, 2).
 * all heads: D = Y. Returns -1 when out of memory. */
static int moves(double *dp, const Model *m, int h, int all_heads, const float *axes) {
    int n = m->n_q, d = m->cfg.d_model;
    if (all_heads) {
        for (int i = 0; i < n; i++) {
            const float *y = m->y + (size_t)i * d;
            double p0 = 0, p1 = 0;
            for (int j = 0; j < d; j++) p0 += (double)y[j] * axes[j], p1 += (double)y[j] * axes[d + j];
            dp[2 * i] = p0, dp[2 * i + 1] = p1;
        }
        return 0;
    }
    int dv = m->cfg.d_v;
    double *wa = malloc(sizeof(double) * 2 * (size_t)dv); /* (d_v, 2) */
    if (!wa) return -1;
    for (int r = 0; r < dv; r++) {
        const float *w = m->wo + ((size_t)h * dv + r) * d; /* row h*d_v + r of W_O */
        double p0 = 0, p1 = 0;
        for (int j = 0; j < d; j++) p0 += (double)w[j] * axes[j], p1 += (double)w[j] * axes[d + j];
        wa[2 * r] = p0, wa[2 * r + 1] = p1;
    }
    const float *o = m->head[h].out; /* (n, d_v) */
    for (int i = 0; i < n; i++) {
        double p0 = 0, p1 = 0;
        for (int r = 0; r < dv; r++) {
            double v = o[(size_t)i * dv + r];
            p0 += v * wa[2 * r], p1 += v * wa[2 * r + 1];
        }
        dp[2 * i] = p0, dp[2 * i + 1] = p1;
    }
    free(wa);
    return 0;
}

/* px (n, 2) = X on the axes; pm (n, 2) = X + D on the axes. -1 when out of
 * memory. The axes must be current (x_axes). */
static int points(float *px, double *pm, const App *a, int head, int all_heads) {
    const Model *m = a->m;
    const GravityData *g = gdata(a);
    int n = m->n_q;
    if (moves(pm, m, head, all_heads, g->axes)) return -1;
    pca_project(px, m->x, g->mean, g->axes, n, m->cfg.d_model);
    for (int k = 0; k < 2 * n; k++) pm[k] += px[k];
    return 0;
}

int gravity_points(const App *a, int all_heads, float *out_x, float *out_moved) {
    if (!gravity_available(a, NULL) || x_axes(a, NULL)) return -1;
    const Model *m = a->m;
    int n = m->n_q;
    int head = a->head < 0 ? 0 : a->head >= m->cfg.heads ? m->cfg.heads - 1 : a->head;
    double *pm = malloc(sizeof(double) * 2 * (size_t)n);
    if (!pm || points(out_x, pm, a, head, all_heads)) {
        free(pm);
        return -1;
    }
    for (int k = 0; k < 2 * n; k++) out_moved[k] = (float)pm[k];
    free(pm);
    return 0;
}

const float *gravity_axes(const App *a, double var[2]) {
    if (!gravity_available(a, NULL) || x_axes(a, NULL)) return NULL;
    if (var) var[0] = gdata(a)->var[0], var[1] = gdata(a)->var[1];
    return gdata(a)->axes;
}

// ----------------------------------------------------------------------------
// the dot grid

typedef struct {
    int w, h;             /* plot size in cells */
    int sx, sy;           /* dots per cell: 2 x 4 (braille) or 1 x 1 (ASCII) */
    unsigned char *bits;  /* (h, w) braille dots of each cell */
    unsigned char *kind;  /* (h, w) K_* */
    unsigned char *hot;   /* (h, w) 1 where the cursor's token is drawn */
    unsigned char *label; /* (h, w) 1 where a label is */
} Plot;

/* Bit of dot (dx, dy) inside a braille cell (ISO/TR 11548-1 dot numbering). */
static unsigned char braille_bit(int dx, int dy) {
    static const unsigned char bit[4][2] = {{0x01, 0x08}, {0x02, 0x10}, {0x04, 0x20}, {0x40, 0x80}};
    return bit[dy][dx];
}

static void dot(Plot *p, int x, int y, int kind, int hot) {
    if (x < 0 || y < 0 || x >= p->w * p->sx || y >= p->h * p->sy) return;
    size_t c = (size_t)(y / p->sy) * p->w + x / p->sx;
    if (p->sx == 2) p->bits[c] |= braille_bit(x % 2, y % 4);
    if (kind > p->kind[c]) p->kind[c] = (unsigned char)kind;
    if (hot) p->hot[c] = 1;
}

static void line(Plot *p, int x0, int y0, int x1, int y1, int hot) {
    int dx = abs(x1 - x0), dy = -abs(y1 - y0);
    int stx = x0 < x1 ? 1 : -1, sty = y0 < y1 ? 1 : -1, e = dx + dy;
    for (;;) {
        dot(p, x0, y0, K_LINE, hot);
        if (x0 == x1 && y0 == y1) break;
        int e2 = 2 * e;
        if (e2 >= dy) e += dy, x0 += stx;
        if (e2 <= dx) e += dx, y0 += sty;
    }
}

/* One glyph of a plot cell, and its style. */
static const char *cell_glyph(const App *a, const Plot *p, size_t c, char *buf, Style *st) {
    int k = p->kind[c];
    *st = style_plain();
    if (k == K_X) {
        if (a->tier != TIER_NONE) st->fg = FG_X;
    } else if (k == K_MOVED) {
        st->attr = ST_BOLD;
        if (a->tier != TIER_NONE) st->fg = FG_MOVED;
    }
    if (p->hot[c]) st->attr |= ST_BOLD;
    if (a->ascii) return k == K_X ? "*" : k == K_MOVED ? "o" : ".";
    /* X: a small block of four dots; X + D: a full cell. */
    unsigned b = k == K_X ? 0x36 : k == K_MOVED ? 0xFF : p->bits[c];
    unsigned cp = 0x2800 + b;
    buf[0] = (char)(0xE0 | (cp >> 12));
    buf[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    buf[2] = (char)(0x80 | (cp & 0x3F));
    buf[3] = '\0';
    return buf;
}

// ----------------------------------------------------------------------------
// labels

/* Label cells [x, x+w) of row y are free: inside the plot, no label there or
 * in the column on either side, and (strict) no point or (strictest) nothing. */
static int label_fits(const Plot *p, int x, int y, int w, int strict) {
    if (y < 0 || y >= p->h || x < 0 || x + w > p->w) return 0;
    for (int c = x - 1; c <= x + w; c++) {
        if (c < 0 || c >= p->w) continue;
        size_t k = (size_t)y * p->w + c;
        if (p->label[k]) return 0;
        if (c < x || c >= x + w) continue;
        if (strict >= 1 && p->kind[k] >= K_X) return 0;
        if (strict >= 2 && p->kind[k] != K_NONE) return 0;
    }
    return 1;
}

/* Places a label of w columns beside its moved point at cell (cx, cy):
 * right, left, then the rows above and below; first where it covers nothing,
 * then only lines, then (cover_points) points too. Returns 1 with the spot in
 * *lx, *ly. The cursor's label (force) always gets a spot. */
static int label_spot(const Plot *p, int cx, int cy, int w, int cover_points, int force, int *lx, int *ly) {
    const int cand[8][2] = {{cx + 1, cy},     {cx - w, cy},     {cx + 1, cy - 1},     {cx + 1, cy + 1},
                            {cx - w, cy - 1}, {cx - w, cy + 1}, {cx - w / 2, cy - 1}, {cx - w / 2, cy + 1}};
    for (int strict = 2; strict >= (cover_points ? 0 : 1); strict--)
        for (int k = 0; k < 8; k++)
            if (label_fits(p, cand[k][0], cand[k][1], w, strict)) {
                *lx = cand[k][0], *ly = cand[k][1];
                return 1;
            }
    if (!force) return 0;
    int x = cx + 1;
    if (x + w > p->w) x = p->w - w;
    *lx = x < 0 ? 0 : x, *ly = cy;
    return 1;
}

// ----------------------------------------------------------------------------
// the caption

/* Writes text at column *x of row y and advances *x. */
static void put(Canvas *cv, int y, int *x, const char *s, Style st) {
    if (*x < cv->w) *x += cv_text(cv, y, *x, s, cv->w - *x, st);
}

static void caption(const App *a, Canvas *cv, int y, int lines, int all_heads) {
    const Model *m = a->m;
    Style sx = style_plain(), sm = style_attr(ST_BOLD);
    if (a->tier != TIER_NONE) sx.fg = FG_X, sm.fg = FG_MOVED;
    const char *gx = a->ascii ? "*" : "\xe2\xa0\xb6", *gm = a->ascii ? "o" : "\xe2\xa3\xbf"; /* U+2836, U+28FF */
    int x = 0;
    put(cv, y, &x, gx, sx);
    put(cv, y, &x, " X: where each word was  ", style_plain());
    put(cv, y, &x, gm, sm);
    put(cv, y, &x, " X+D: pulled towards the words it attends to", style_plain());
    if (lines < 2) return;

    char buf[256], pcs[128];
    const GravityData *g = gdata(a);
    if (g->total > 0)
        snprintf(pcs, sizeof pcs, "axes PC1 %.0f%%, PC2 %.0f%% of X's variance", 100 * g->var[0] / g->total,
                 100 * g->var[1] / g->total);
    else snprintf(pcs, sizeof pcs, "every token has the same X: no spread to show");
    int h = a->head + 1;
    if (all_heads) snprintf(buf, sizeof buf, "all %d heads: D = Y = concat W_O   %s", m->cfg.heads, pcs);
    else snprintf(buf, sizeof buf, "head %d/%d: D = O_%d W_O[%d]   %s", h, m->cfg.heads, h, h, pcs);
    int row = lines >= 3 ? y + 2 : y + 1;
    cv_text(cv, row, 0, buf, cv->w, style_plain());
    if (lines >= 3)
        cv_text(cv, y + 1, 0, "W_V and W_O set the directions a word can move in: a verb stays a verb.", cv->w,
                style_plain());
}

// ----------------------------------------------------------------------------
// the view

static void say(Canvas *cv, int y, const char *s) { cv_text_wrap(cv, y, 0, s, cv->w, 2, style_plain()); }

/* Scratch of one frame, freed by the caller. */
typedef struct {
    float *px;           /* (n, 2) X on the axes */
    double *pm;          /* (n, 2) X + D on the axes */
    int *dots;           /* (n, 4) dot x, y of X, then of X + D; -1 when not finite */
    unsigned char *grid; /* 4 planes of (ph, W) for Plot */
    int *labelled;       /* (ph, W) token whose label names the moved point in this cell, or -1 */
} Frame;

/* Bounds of both point sets, in PC units: 0, or -1 when no point is finite. */
static int point_bounds(double lo[2], double hi[2], const float *px, const double *pm, int n) {
    lo[0] = lo[1] = INFINITY, hi[0] = hi[1] = -INFINITY;
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < 2; k++) {
            double v[2] = {px[2 * i + k], pm[2 * i + k]};
            for (int s = 0; s < 2; s++) {
                if (!isfinite(v[s])) continue;
                if (v[s] < lo[k]) lo[k] = v[s];
                if (v[s] > hi[k]) hi[k] = v[s];
            }
        }
    }
    return lo[0] > hi[0] || lo[1] > hi[1] ? -1 : 0;
}

/* dots (n, 4): X and X + D in dot space, the bounds lo..hi centred in p. */
static void place_dots(int *dots, const Plot *p, int ascii, const float *px, const double *pm, int n,
                       const double lo[2], const double hi[2]) {
    int DW = p->w * p->sx, DH = p->h * p->sy;
    /* One scale for both axes: s dots per unit across, s / aspect down (a
     * braille dot is square, an ASCII cell twice as tall as wide). Margin: a
     * cell each side, a dot above and below (in braille). */
    double aspect = ascii ? 2.0 : 1.0;
    int mx = p->sx, my = ascii ? 0 : 1;
    double aw = DW - 1 - 2 * mx, ah = DH - 1 - 2 * my;
    if (aw < 0) aw = 0;
    if (ah < 0) ah = 0;
    double s = INFINITY;
    if (hi[0] > lo[0]) s = aw / (hi[0] - lo[0]);
    if (hi[1] > lo[1] && ah * aspect / (hi[1] - lo[1]) < s) s = ah * aspect / (hi[1] - lo[1]);
    if (!isfinite(s)) s = 0;
    double cx = (lo[0] + hi[0]) / 2, cy = (lo[1] + hi[1]) / 2;
    for (int i = 0; i < n; i++) {
        for (int q = 0; q < 2; q++) {
            double ux = q ? pm[2 * i] : px[2 * i], uy = q ? pm[2 * i + 1] : px[2 * i + 1];
            int *o = &dots[4 * i + 2 * q];
            if (!isfinite(ux) || !isfinite(uy)) {
                o[0] = o[1] = -1;
                continue;
            }
            double fx = floor((DW - 1) / 2.0 + (ux - cx) * s + 0.5);
            double fy = floor((DH - 1) / 2.0 - (uy - cy) * s / aspect + 0.5);
            o[0] = fx < 0 ? 0 : fx > DW - 1 ? DW - 1 : (int)fx;
            o[1] = fy < 0 ? 0 : fy > DH - 1 ? DH - 1 : (int)fy;
        }
    }
}

/* The layers under the labels: the lines X -> X + D, the points X, the moved
 * points, then the plot's cells onto cv from row y0. cur: the cursor's token
 * (-1: none). */
static void draw_points(const App *a, Canvas *cv, int y0, Plot *p, const int *dots, int n, int cur) {
    for (int i = 0; i < n; i++) {
        const int *o = &dots[4 * i];
        if (o[0] >= 0 && o[2] >= 0) line(p, o[0], o[1], o[2], o[3], i == cur);
    }
    for (int q = 0; q < 2; q++)
        for (int i = 0; i < n; i++) {
            const int *o = &dots[4 * i + 2 * q];
            if (o[0] < 0) continue;
            /* A marker fills its cell: set the kind (and hotness) only. */
            size_t c = (size_t)(o[1] / p->sy) * p->w + o[0] / p->sx;
            int k = q ? K_MOVED : K_X;
            if (k > p->kind[c]) p->kind[c] = (unsigned char)k;
            if (i == cur) p->hot[c] = 1;
        }
    for (int y = 0; y < p->h; y++)
        for (int x = 0; x < p->w; x++) {
            size_t c = (size_t)y * p->w + x;
            if (!p->kind[c]) continue;
            char buf[8];
            Style st;
            const char *glyph = cell_glyph(a, p, c, buf, &st);
            cv_text(cv, y0 + y, x, glyph, 1, st);
        }
}

/* Labels: the cursor's first, then in sentence order, while room lasts.
 * labelled (p->h, p->w) is scratch, all -1 on entry. */
static void draw_labels(const App *a, Canvas *cv, int y0, Plot *p, const int *dots, int *labelled, int n, int cur) {
    int W = p->w, cap = W / 4;
    if (cap > LABEL_MAX) cap = LABEL_MAX;
    if (cap < 3) cap = 3;
    for (int r = -1; r < n; r++) {
        int i = r < 0 ? cur : r;
        if (i < 0 || (r >= 0 && i == cur) || dots[4 * i + 2] < 0) continue;
        int mcx = dots[4 * i + 2] / p->sx, mcy = dots[4 * i + 3] / p->sy;
        size_t mc = (size_t)mcy * W + mcx;
        char lab[256];
        view_qlabel(a, lab, sizeof lab, i, cap);
        if (labelled[mc] >= 0) { /* the same word at the same spot: labelled once */
            char other[256];
            view_qlabel(a, other, sizeof other, labelled[mc], cap);
            if (strcmp(lab, other) == 0) continue;
        }
        int lw = text_width(lab, strlen(lab)), lx, ly;
        if (lw < 1 || lw > W) continue;
        if (!label_spot(p, mcx, mcy, lw, n <= LABEL_COVER_MAX_N, i == cur, &lx, &ly)) continue;
        for (int c = lx; c < lx + lw; c++) p->label[(size_t)ly * W + c] = 1;
        if (labelled[mc] < 0) labelled[mc] = i;
        cv_text(cv, y0 + ly, lx, lab, lw, i == cur ? style_attr(ST_REVERSE | ST_BOLD) : style_plain());
    }
}

/* Draws the plot (ph rows from y0) and its labels. Returns NULL, or why not. */
static const char *draw_plot(App *a, Canvas *cv, int y0, int ph, int all_heads, Frame *f) {
    const Model *m = a->m;
    int n = m->n_q, W = cv->w;
    int head = a->head < 0 ? 0 : a->head >= m->cfg.heads ? m->cfg.heads - 1 : a->head;
    size_t cells = (size_t)W * ph;
    f->px = malloc(sizeof(float) * 2 * (size_t)n);
    f->pm = malloc(sizeof(double) * 2 * (size_t)n);
    f->dots = malloc(sizeof(int) * 4 * (size_t)n);
    f->grid = calloc(4, cells);
    f->labelled = malloc(sizeof(int) * cells);
    if (!f->px || !f->pm || !f->dots || !f->grid || !f->labelled || points(f->px, f->pm, a, head, all_heads))
        return "word gravity: out of memory";
    double lo[2], hi[2];
    if (point_bounds(lo, hi, f->px, f->pm, n)) return "word gravity: no finite point to draw";
    unsigned char *g = f->grid;
    Plot p = {.w = W,
              .h = ph,
              .sx = a->ascii ? 1 : 2,
              .sy = a->ascii ? 1 : 4,
              .bits = g,
              .kind = g + cells,
              .hot = g + 2 * cells,
              .label = g + 3 * cells};
    for (size_t c = 0; c < cells; c++) f->labelled[c] = -1;
    place_dots(f->dots, &p, a->ascii, f->px, f->pm, n, lo, hi);
    int cur = a->ci >= 0 && a->ci < n ? a->ci : -1;
    draw_points(a, cv, y0, &p, f->dots, n, cur);
    draw_labels(a, cv, y0, &p, f->dots, f->labelled, n, cur);
    return NULL;
}

void gravity_draw(App *a, Canvas *cv, int y0, int h, int all_heads) {
    if (y0 < 0) h += y0, y0 = 0;
    if (y0 + h > cv->h) h = cv->h - y0;
    if (h <= 0) return;
    const char *why;
    if (!gravity_available(a, &why)) {
        say(cv, y0, why);
        return;
    }
    int lines = h >= 12 ? 3 : h >= 8 ? 2 : 1;
    int ph = h - lines;
    if (ph < 2 || cv->w < 10) {
        say(cv, y0, "too small to plot"); /* fits the narrowest (20 columns) */
        return;
    }
    AvError err = {0};
    if (x_axes(a, &err)) {
        say(cv, y0, err.msg);
        return;
    }
    Frame f = {0};
    const char *fail = draw_plot(a, cv, y0, ph, all_heads, &f);
    if (fail) say(cv, y0, fail);
    else caption(a, cv, y0 + ph, lines, all_heads);
    free(f.px);
    free(f.pm);
    free(f.dots);
    free(f.grid);
    free(f.labelled);
}

// ----------------------------------------------------------------------------
// the entry

static void gravity_title(const App *a, char *buf, size_t cap) {
    snprintf(buf, cap, "head %d/%d  word gravity: X and where %s moves it (g: %s, Tab: head)", a->head + 1,
             a->m->cfg.heads, gravity_all_heads(a) ? "the whole layer" : "this head",
             gravity_all_heads(a) ? "one head" : "all heads");
}

/* Y only for all heads. */
static Stage gravity_needed_stage(const App *a) { return gravity_all_heads(a) ? STAGE_FINAL : STAGE_OUTPUT; }

static void gravity_view_draw(App *a, Canvas *cv) {
    gravity_draw(a, cv, TOP_LINES, cv->h - TOP_LINES - 2, gravity_all_heads(a));
    chrome_draw_bottom(a, cv, NULL, cv->h - 2);
}

static int gravity_natural_height(const App *a, int w) {
    (void)a, (void)w;
    return 30;
}

const View view_gravity = {
    .name = "gravity",
    .about = about,
    .available = gravity_available,
    .needed_stage = gravity_needed_stage,
    .title = gravity_title,
    .draw = gravity_view_draw,
    .natural_height = gravity_natural_height,
    .init = gravity_init,
    .free = gravity_free,
    .flags = VIEW_HEAD_STATS,
};
