/* gravity_plot.c - the plot of the word gravity view (gravity_plot.h).
 *
 * Layers, each over the one before: the lines X -> X + k D (Bresenham in dot
 * space), the moved points X + k D, each drawn as its arrow's head (▸ ◂ ▴ ▾,
 * ASCII > < ^ v: the way it moved, by the longer side of the arrow as seen),
 * the points X, then the labels of the points X: the cursor's token first,
 * then in sentence order, each at the first free spot beside its point, away
 * from its arrow first. A spot is free when no label is on it or on the
 * column either side, no marker is on it, and no marker but the label's own
 * point is on the column either side (so that a label never reads as
 * another point's). A label that finds no spot is shortened (4, then 2
 * columns with the ellipsis); then, in a sentence of up to
 * LABEL_COVER_MAX_N tokens, it may cover lines and other points (never a
 * label); else it is left out. A word repeated at the same spot is labelled
 * once. The cursor's token is always named. */
#include "gravity_plot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"
#include "widgets.h"

/* LABEL_MAX: columns of a label. LABEL_COVER_MAX_N: up to this many tokens
 * a label may cover another token's point (so that a short sentence has all
 * its words named); in a crowd, points matter more than names. */
enum { LABEL_MAX = 16, LABEL_COVER_MAX_N = 64 };

Plot plot_on(unsigned char *planes, int w, int h, int ascii) {
    size_t cells = (size_t)w * h;
    return (Plot){.w = w,
                  .h = h,
                  .sx = ascii ? 1 : 2,
                  .sy = ascii ? 1 : 4,
                  .bits = planes,
                  .kind = planes + cells,
                  .hot = planes + 2 * cells,
                  .label = planes + 3 * cells,
                  .head = planes + 4 * cells};
}

int plot_head_of(int x0, int y0, int x1, int y1, int ascii) {
    int dx = x1 - x0, dy = y1 - y0;
    if (dx == 0 && dy == 0) return HEAD_NONE;
    long ax = labs((long)dx), ay = labs((long)dy) * (ascii ? 2 : 1); /* as seen: an ASCII dot is twice as tall */
    if (ax >= ay) return dx > 0 ? HEAD_RIGHT : HEAD_LEFT;
    return dy > 0 ? HEAD_DOWN : HEAD_UP;
}

const char *plot_head_glyph(int head, int ascii) {
    static const char *const uni[] = {"\xe2\xa3\xbf", "\xe2\x96\xb8", "\xe2\x97\x82", "\xe2\x96\xb4",
                                      "\xe2\x96\xbe"}; /* ⣿ ▸ ◂ ▴ ▾ */
    static const char *const asc[] = {"o", ">", "<", "^", "v"};
    if (head < HEAD_NONE || head > HEAD_DOWN) head = HEAD_NONE;
    return ascii ? asc[head] : uni[head];
}

// ----------------------------------------------------------------------------
// the dot grid

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
    if (k == K_MOVED) return plot_head_glyph(p->head[c], a->ascii);
    if (a->ascii) return k == K_X ? "*" : ".";
    /* X: a small block of four dots; a line: its dots. */
    unsigned b = k == K_X ? 0x36 : p->bits[c];
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
 * in the column on either side, no point but its own (cell `own`) on either
 * side; strict 1: no point there either; 2: nothing at all there (no line
 * either); 3: and no point but its own right above or below it. */
static int label_fits(const Plot *p, int x, int y, int w, int strict, size_t own) {
    if (y < 0 || y >= p->h || x < 0 || x + w > p->w) return 0;
    for (int c = x - 1; c <= x + w; c++) {
        if (c < 0 || c >= p->w) continue;
        size_t k = (size_t)y * p->w + c;
        if (p->label[k]) return 0;
        int side = c < x || c >= x + w;
        if ((strict >= 1 || side) && p->kind[k] >= K_MOVED && k != own) return 0;
        if (side) continue;
        if (strict >= 2 && p->kind[k] != K_NONE) return 0;
        /* nor right above or below it */
        for (int r = y - 1; strict >= 3 && r <= y + 1; r += 2) {
            size_t v = (size_t)r * p->w + c;
            if (r >= 0 && r < p->h && p->kind[v] >= K_MOVED && v != own) return 0;
        }
    }
    return 1;
}

/* A spot for a label of w columns beside the marker at cell (cx, cy): the
 * side away from the token's arrow first (ax, ay: its direction), then the
 * other side, then the rows above and below, each touching the marker.
 * Tries `strict` only. Returns 1 with the spot in *lx, *ly. */
static int label_spot(const Plot *p, int cx, int cy, int w, int ax, int ay, int strict, int *lx, int *ly) {
    size_t own = (size_t)cy * p->w + cx;
    int away = ax > 0 ? cx - w : cx + 1, toward = ax > 0 ? cx + 1 : cx - w;
    int up = ay > 0 ? cy - 1 : cy + 1, down = ay > 0 ? cy + 1 : cy - 1; /* up: away from the arrow */
    const int cand[10][2] = {{away, cy},   {toward, cy},       {away, up},     {cx - w / 2, up}, {toward, up},
                             {away, down}, {cx - w / 2, down}, {toward, down}, {cx, up},         {cx - w + 1, down}};
    for (int k = 0; k < 10; k++)
        if (label_fits(p, cand[k][0], cand[k][1], w, strict, own)) {
            *lx = cand[k][0], *ly = cand[k][1];
            return 1;
        }
    return 0;
}

/* Bounds of both point sets, in PC units: 0, or -1 when no point is finite. */
int plot_bounds(double lo[2], double hi[2], const float *px, const double *pm, int n) {
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

/* dots (n, 4): X and X + k D in dot space, the bounds lo..hi centred in p.
 * Returns the scale, dots per PC unit across. */
double plot_place(int *dots, const Plot *p, int ascii, const float *px, const double *pm, int n, const double lo[2],
                  const double hi[2]) {
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
    return s;
}

/* The layers under the labels: the lines X -> X + k D, the points X, the
 * moved points, then the plot's cells onto cv from row y0. cur: the cursor's
 * token (-1: none). */
void plot_points(const App *a, Canvas *cv, int y0, Plot *p, const int *dots, int n, int cur) {
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
            if (q) p->head[c] = (unsigned char)plot_head_of(dots[4 * i], dots[4 * i + 1], o[0], o[1], p->sx == 1);
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

/* Each token's label beside its point X: the cursor's first, then in
 * sentence order. A label goes where it covers nothing, else only lines;
 * when there is no such spot it is shortened (to 4, then 2 columns with the
 * ellipsis); then, in a sentence of up to LABEL_COVER_MAX_N tokens, it may
 * cover other points. Labels never overlap or touch. A word repeated at the
 * same X is labelled once. labels (n, 3) gets each spot; labelled
 * (p->h, p->w) is scratch, all -1 on entry. */
void plot_labels(const App *a, Canvas *cv, int y0, Plot *p, const int *dots, int *labels, int *labelled, int n,
                 int cur) {
    int W = p->w, cap = W / 4;
    if (cap > LABEL_MAX) cap = LABEL_MAX;
    if (cap < 3) cap = 3;
    for (int r = -1; r < n; r++) {
        int i = r < 0 ? cur : r;
        if (i < 0 || (r >= 0 && i == cur) || dots[4 * i] < 0) continue;
        int cx = dots[4 * i] / p->sx, cy = dots[4 * i + 1] / p->sy;
        int ax = dots[4 * i + 2] - dots[4 * i], ay = dots[4 * i + 3] - dots[4 * i + 1];
        size_t mc = (size_t)cy * W + cx;
        char lab[256];
        view_qlabel(a, lab, sizeof lab, i, cap);
        if (labelled[mc] >= 0) { /* the same word at the same spot: labelled once */
            char other[256];
            view_qlabel(a, other, sizeof other, labelled[mc], cap);
            if (strcmp(lab, other) == 0) continue;
        }
        int full = text_width(lab, strlen(lab)), lx = 0, ly = 0, lw = 0;
        const int widths[3] = {full, full > 4 ? 4 : full, full > 2 ? 2 : full};
        for (int pass = 0; pass < 4 && !lw; pass++) { /* passes: full, 4, 2 columns; then over points */
            int cols = widths[pass < 3 ? pass : 0];
            if (cols < 1 || cols > W || (pass > 0 && pass < 3 && cols == widths[pass - 1])) continue;
            if (pass == 3 && n > LABEL_COVER_MAX_N && i != cur) break;
            for (int strict = pass == 3 ? 0 : 3; strict >= (pass == 3 ? 0 : 1) && !lw; strict--)
                if (label_spot(p, cx, cy, cols, ax, ay, strict, &lx, &ly)) lw = cols;
        }
        if (!lw && i == cur) { /* the cursor's token is always named */
            lw = full < W ? full : W;
            lx = cx + 1 + lw > W ? W - lw : cx + 1, ly = cy;
        }
        if (!lw) continue;
        if (lw < full) view_qlabel(a, lab, sizeof lab, i, lw);
        lw = text_width(lab, strlen(lab));
        for (int c = lx; c < lx + lw; c++) p->label[(size_t)ly * W + c] = 1;
        if (labelled[mc] < 0) labelled[mc] = i;
        labels[3 * i] = lx, labels[3 * i + 1] = ly, labels[3 * i + 2] = lw;
        Style st = style_plain();
        if (a->tier != TIER_NONE) st.fg = FG_X;
        cv_text(cv, y0 + ly, lx, lab, lw, i == cur ? style_attr(ST_REVERSE | ST_BOLD) : st);
    }
}
