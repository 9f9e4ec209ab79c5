/* gravity.c - the word gravity view (see gravity.h): where attention moves
 * each token's vector, seen on the plane of X's first two principal axes.
 *
 * Plot space is a grid of dots, DW x DH. In Unicode mode each terminal cell
 * holds a 2 x 4 braille dot grid (U+2800 + one bit per dot; braille is East
 * Asian Neutral, so Korean terminals keep it one column wide); a cell is about
 * twice as tall as wide, so a braille dot is square and one scale serves both
 * axes. In ASCII mode a dot is a whole cell, twice as tall as wide, so y gets
 * half as many dots per unit as x. Either way a distance on the screen is
 * the same distance in PC1 or PC2: the picture is honest about who moved far.
 * A head with random weights moves a token by a sliver of the cloud's width,
 * so the lines are drawn k times D (arrow_scale), and the caption says k.
 *
 * The plot itself (the dots, the arrows and their heads, the markers and the
 * labels, placed so that none collides) is gravity_plot.c's; this file has
 * the vectors, their axes and scale, the caption and the view's entry.
 *
 * The principal axes of X are remembered between frames (GravityData): moving
 * the cursor or changing the head does not recompute them. */
#include "gravity.h"

#include "gravity_plot.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "i18n.h"
#include "pca.h"
#include "model.h"
#include "sourcenote.h"
#include "text.h"
#include "chrome.h"
#include "view.h"
#include "widgets.h"

/* One paragraph (the help wraps it), translated where drawn (help.c). */
static const char *const about[] = {
    N_("Word gravity: each token's vector X (labelled with its token) and where attention moves "
       "it, X + D, on the plane of X's first two principal components, an arrow between them. "
       "When D is too short (or long) to see, the arrows are drawn k times its length and the "
       "caption says k (arrows x5). D is one head's share, O_h W_O[h], or with g again the whole "
       "layer's. With random weights the picture is arithmetic, not meaning; with a trained "
       "model (--model) X is the residual stream into the layer, X + D the residual after "
       "attention."),
    NULL};

// ----------------------------------------------------------------------------
// the vectors: X and D, from the seeded sentence or a trained model's layer

/* What the view draws, whatever the model: X and the two ways to get D. */
typedef struct {
    int n, d;       /* tokens; width of X */
    const float *x; /* (n, d) X */
    const float *y; /* (n, d) the whole layer's D */
    const float *o; /* head h's output O_h: row i at o + i * o_ld, dv wide */
    int o_ld, dv;
    const float *w; /* W_O[h], (dv, d): element (r, j) at w[r * w_r + j * w_j] */
    size_t w_r, w_j;
    int trained; /* a trained model's layer: X is the residual stream into it */
} Space;

/* The Space of head `head` of the layer shown. Returns 0, or -1 with err. */
static int space_of(const App *a, int head, Space *s, AvError *err) {
    const Model *m = a->m;
    if (model_trained(m)) {
        LayerChain v;
        if (model_layer_chain(m, m->layer, &v, err)) return -1;
        *s = (Space){.n = v.n,
                     .d = v.dim,
                     .x = v.x,
                     .y = v.proj, /* att W_o^T: mid = x + proj */
                     .o = v.att + (size_t)head * v.head_size,
                     .o_ld = v.q_dim,
                     .dv = v.head_size,
                     /* proj[i][j] = sum_k att[i][k] wo[j][k]: head h's rows are its columns k */
                     .w = v.wo + (size_t)head * v.head_size,
                     .w_r = 1,
                     .w_j = (size_t)v.q_dim,
                     .trained = 1};
        return 0;
    }
    int d = m->cfg.d_model, dv = m->cfg.d_v;
    *s = (Space){.n = m->n_q,
                 .d = d,
                 .x = m->x,
                 .y = m->y,
                 .o = m->head[head].out,
                 .o_ld = dv,
                 .dv = dv,
                 .w = m->wo + (size_t)head * dv * d, /* rows h*d_v .. of W_O */
                 .w_r = (size_t)d,
                 .w_j = 1};
    return 0;
}

int gravity_available(const App *a, const char **why) {
    const Model *m = a ? a->m : NULL;
    const char *r = NULL;
    if (!m) r = _("word gravity: no model");
    else if (model_trained(m)) {
        if (m->n_q < 1) r = _("word gravity: no tokens to draw");
    } else if (!model_can(m, SRC_TOKENIZERS | SRC_EMBED | SRC_WEIGHTS)) {
        static _Thread_local char buf[160]; /* the frame's thread writes it, the same frame reads it */
        snprintf(buf, sizeof buf, _("word gravity needs a sentence: %s"), source_lacks_note(m->src));
        r = buf;
    } else if (m->q_target != m->k_target || m->xq != m->x)
        r = _("word gravity needs self-attention: in cross-attention the queries are another sentence");
    else if (m->n_q != m->n_k) r = _("word gravity needs self-attention: the queries must be the key tokens");
    else if (m->n_q < 1) r = _("word gravity: no tokens to draw");
    if (!r && m->stale <= STAGE_OUTPUT) r = _("word gravity: the model is not up to date");
    if (why) *why = r;
    return r == NULL;
}

// ----------------------------------------------------------------------------
// the principal axes of X, remembered while X stays the same

/* The view is redrawn on every cursor key; X changes only with the sentence,
 * the seed, d_model, positions or (a trained model) the layer. So the last
 * result is kept, keyed by the shape and a hash of X's bytes (not by the
 * model's address, which a new model may reuse). It is the view's own data
 * (View.init, in the App), with the choice of one head or all, and what the
 * last frame drew (for the tests and the caption). */
typedef struct {
    int all_heads; /* g again: the whole layer's D instead of one head's share */
    int valid, n, d;
    uint64_t hash;
    float mean[MODEL_MAX_DIM];
    float axes[2 * MODEL_MAX_DIM]; /* (2, d) */
    double var[2], total;
    GravityFrame frame; /* the last frame drawn; its arrays below */
    int *frame_dots;    /* (cap, 4) */
    int *frame_labels;  /* (cap, 3) */
    int frame_cap;
} GravityData;

static GravityData *gdata(const App *a) { return a->view_data[VIEW_GRAVITY]; }

static int gravity_init(App *a) { return (a->view_data[VIEW_GRAVITY] = calloc(1, sizeof(GravityData))) ? 0 : -1; }

static void gravity_free(App *a) {
    GravityData *g = gdata(a);
    if (g) free(g->frame_dots), free(g->frame_labels);
    free(g);
    a->view_data[VIEW_GRAVITY] = NULL;
}

int gravity_all_heads(const App *a) { return gdata(a) && gdata(a)->all_heads; }

void gravity_toggle_all(App *a) {
    if (gdata(a)) gdata(a)->all_heads = !gdata(a)->all_heads;
}

static int x_axes(const App *a, const Space *s, AvError *err) {
    GravityData *g = gdata(a);
    int n = s->n, d = s->d;
    if (!g) return av_error_nomem(err, _("word gravity: out of memory"));
    if (d < 1 || d > MODEL_MAX_DIM) return av_errorf(err, _("word gravity: d_model %d out of range"), d);
    uint64_t h = av_fnv1a(s->x, sizeof(float) * (size_t)n * d);
    if (g->valid && g->n == n && g->d == d && g->hash == h) return 0;
    g->valid = 0;
    if (pca_top2(g->axes, g->var, s->x, n, d, err)) return -1;
    pca_mean(g->mean, s->x, n, d);
    g->total = pca_total_variance(s->x, g->mean, n, d);
    g->n = n, g->d = d, g->hash = h, g->valid = 1;
    return 0;
}

/* dp (n, 2) = D projected on the axes (a displacement: not centred).
 * head h: D = O_h W_O[h], computed as O_h (W_O[h] axes^T), (n, d_v)(d_v, 2).
 * all heads: the layer's D. Returns -1 when out of memory. */
static int moves(double *dp, const Space *s, int all_heads, const float *axes) {
    int n = s->n, d = s->d;
    if (all_heads) {
        for (int i = 0; i < n; i++) {
            const float *y = s->y + (size_t)i * d;
            double p0 = 0, p1 = 0;
            for (int j = 0; j < d; j++) p0 += (double)y[j] * axes[j], p1 += (double)y[j] * axes[d + j];
            dp[2 * i] = p0, dp[2 * i + 1] = p1;
        }
        return 0;
    }
    int dv = s->dv;
    double *wa = malloc(sizeof(double) * 2 * (size_t)dv); /* (d_v, 2) */
    if (!wa) return -1;
    for (int r = 0; r < dv; r++) {
        const float *w = s->w + (size_t)r * s->w_r;
        double p0 = 0, p1 = 0;
        for (int j = 0; j < d; j++) {
            double v = w[(size_t)j * s->w_j];
            p0 += v * axes[j], p1 += v * axes[d + j];
        }
        wa[2 * r] = p0, wa[2 * r + 1] = p1;
    }
    for (int i = 0; i < n; i++) {
        const float *o = s->o + (size_t)i * s->o_ld;
        double p0 = 0, p1 = 0;
        for (int r = 0; r < dv; r++) p0 += (double)o[r] * wa[2 * r], p1 += (double)o[r] * wa[2 * r + 1];
        dp[2 * i] = p0, dp[2 * i + 1] = p1;
    }
    free(wa);
    return 0;
}

/* The factor the arrows are drawn at. With R the RMS distance of the points
 * X from their centre and L the longest D = pm - px (both on the plane): 1
 * when L is between R/2 and 2R (visible as it is), else the 1-2-5 step
 * nearest R/L, so that the longest arrow is about R long. */
static double arrow_scale(const float *px, const double *pm, int n) {
    double c[2] = {0, 0}, r2 = 0, l = 0;
    int k = 0;
    for (int i = 0; i < n; i++)
        if (isfinite(px[2 * i]) && isfinite(px[2 * i + 1])) c[0] += px[2 * i], c[1] += px[2 * i + 1], k++;
    if (k) c[0] /= k, c[1] /= k;
    for (int i = 0; i < n; i++) {
        double ex = px[2 * i] - c[0], ey = px[2 * i + 1] - c[1];
        double dl = hypot(pm[2 * i] - px[2 * i], pm[2 * i + 1] - px[2 * i + 1]);
        if (isfinite(ex) && isfinite(ey)) r2 += ex * ex + ey * ey;
        if (isfinite(dl) && dl > l) l = dl;
    }
    double r = k ? sqrt(r2 / k) : 0;
    if (!(l > 0) || !(r > 0)) return 1;
    double t = r / l;
    if (t >= 0.5 && t <= 2) return 1;
    if (t > 1e5) t = 1e5;
    if (t < 1e-4) t = 1e-4;
    /* nearest of 1, 2, 5, 10 times the power of ten at or below t, in ratio */
    double e = pow(10, floor(log10(t))), best = e;
    const double steps[] = {1, 2, 5, 10};
    for (int q = 1; q < 4; q++)
        if (fabs(log(steps[q] * e / t)) < fabs(log(best / t))) best = steps[q] * e;
    return best;
}

/* px (n, 2) = X on the axes; pm (n, 2) = X + D on the axes. -1 when out of
 * memory. The axes must be current (x_axes). */
static int points(float *px, double *pm, const App *a, const Space *s, int all_heads) {
    const GravityData *g = gdata(a);
    int n = s->n;
    if (moves(pm, s, all_heads, g->axes)) return -1;
    pca_project(px, s->x, g->mean, g->axes, n, s->d);
    for (int k = 0; k < 2 * n; k++) pm[k] += px[k];
    return 0;
}

static int shown_head(const App *a) {
    int heads = a->m->cfg.heads;
    return a->head < 0 ? 0 : a->head >= heads ? heads - 1 : a->head;
}

int gravity_points(const App *a, int all_heads, float *out_x, float *out_moved) {
    Space s;
    if (!gravity_available(a, NULL) || space_of(a, shown_head(a), &s, NULL) || x_axes(a, &s, NULL)) return -1;
    int n = s.n;
    double *pm = malloc(sizeof(double) * 2 * (size_t)n);
    if (!pm || points(out_x, pm, a, &s, all_heads)) {
        free(pm);
        return -1;
    }
    for (int k = 0; k < 2 * n; k++) out_moved[k] = (float)pm[k];
    free(pm);
    return 0;
}

double gravity_scale(const App *a, int all_heads) {
    Space s;
    if (!gravity_available(a, NULL) || space_of(a, shown_head(a), &s, NULL) || x_axes(a, &s, NULL)) return 1;
    int n = s.n;
    float *px = malloc(sizeof(float) * 2 * (size_t)n);
    double *pm = malloc(sizeof(double) * 2 * (size_t)n);
    double k = 1;
    if (px && pm && !points(px, pm, a, &s, all_heads)) k = arrow_scale(px, pm, n);
    free(px);
    free(pm);
    return k;
}

const float *gravity_axes(const App *a, double var[2]) {
    Space s;
    if (!gravity_available(a, NULL) || space_of(a, shown_head(a), &s, NULL) || x_axes(a, &s, NULL)) return NULL;
    if (var) var[0] = gdata(a)->var[0], var[1] = gdata(a)->var[1];
    return gdata(a)->axes;
}

const GravityFrame *gravity_last_frame(const App *a) {
    const GravityData *g = gdata(a);
    return g && g->frame.n > 0 ? &g->frame : NULL;
}

// ----------------------------------------------------------------------------
// the caption

/* Writes text at column *x of row y and advances *x. */
static void put(Canvas *cv, int y, int *x, const char *s, Style st) {
    if (*x < cv->w) *x += cv_text(cv, y, *x, s, cv->w - *x, st);
}

/* The longest of the texts (longest first, NULL-ended) that fits w columns,
 * else the last. */
static const char *fitting(int w, const char *const *texts) {
    int k = 0;
    while (texts[k + 1] && text_width(texts[k], strlen(texts[k])) > w) k++;
    return texts[k];
}

/* "5", "0.5", "20": the arrows' factor as written. */
static void scale_text(char *buf, size_t cap, double k) { snprintf(buf, cap, "%g", k); }

/* The first two tokens with the same X (a word repeated, no position in X),
 * and whether their moved points part (1) or stay together (0); -1: none. */
static int repeated_token(const Space *s, const double *pm, int *i0, int *j0) {
    int n = s->n, d = s->d;
    if ((size_t)n * n > 1u << 20) return -1; /* a long input: not worth the time of a frame */
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (memcmp(s->x + (size_t)i * d, s->x + (size_t)j * d, sizeof(float) * (size_t)d) == 0) {
                *i0 = i, *j0 = j;
                double dist = hypot(pm[2 * i] - pm[2 * j], pm[2 * i + 1] - pm[2 * j + 1]);
                double size = hypot(pm[2 * i], pm[2 * i + 1]) + hypot(pm[2 * j], pm[2 * j + 1]);
                return dist > 1e-6 * (size > 1 ? size : 1);
            }
    return -1;
}

/* The legend on row y: a token's X, and X + kD where attention moves it,
 * in the longest wording that fits. */
static void caption_legend(const App *a, Canvas *cv, int y, double k) {
    int W = cv->w;
    Style sx = style_plain(), sm = style_attr(ST_BOLD);
    if (a->tier != TIER_NONE) sx.fg = FG_X, sm.fg = FG_MOVED;
    const char *gx = a->ascii ? "*" : "\xe2\xa0\xb6", *gm = plot_head_glyph(HEAD_RIGHT, a->ascii); /* U+2836, ▸ */
    const char *times = view_glyphs(a)->times;
    char ks[32], m1[128], m2[128], m3[128], m4[64];
    scale_text(ks, sizeof ks, k);
    if (k == 1) {
        snprintf(m1, sizeof m1, _(" X + D: where attention moves it; arrows to scale (%s1)"), times);
        snprintf(m2, sizeof m2, "%s", _(" X + D: where attention moves it, to scale"));
        snprintf(m3, sizeof m3, "%s", _(" X + D, to scale"));
    } else {
        /* TRANSLATORS: the arguments: k, the times sign, k, k ("X + 5D: ... arrows x5 (5 times D's length)") */
        snprintf(m1, sizeof m1, _(" X + %sD: where attention moves it; arrows %s%s (%s times D's length)"), ks, times,
                 ks, ks);
        snprintf(m2, sizeof m2, _(" X + %sD: where attention moves it, arrows %s%s"), ks, times, ks);
        snprintf(m3, sizeof m3, _(" X + %sD: arrows %s%s"), ks, times, ks);
    }
    snprintf(m4, sizeof m4, k == 1 ? " X + D" : " X + %sD", ks);
    const char *xs[] = {_(" X: each token's vector, labelled  "), _(" X: a token's vector  "), " X  ", NULL};
    const char *ms[] = {m1, m2, m3, m4, NULL};
    /* the first pair that fits, in this order of preference */
    static const int pairs[][2] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}, {2, 1}, {1, 2}, {2, 2}, {2, 3}};
    int best_x = 2, best_m = 3;
    for (size_t q = 0; q < sizeof pairs / sizeof pairs[0]; q++) {
        const char *tx = xs[pairs[q][0]], *tm = ms[pairs[q][1]];
        if (2 + text_width(tx, strlen(tx)) + text_width(tm, strlen(tm)) <= W) {
            best_x = pairs[q][0], best_m = pairs[q][1];
            break;
        }
    }
    int x = 0;
    put(cv, y, &x, gx, sx);
    put(cv, y, &x, xs[best_x], style_plain());
    put(cv, y, &x, gm, sm);
    put(cv, y, &x, ms[best_m], style_plain());
}

/* What holds for this model: a trained layer's residual stream, or random
 * weights that carry no meaning; the longest wording that fits W columns. */
static void caption_model(const App *a, const Space *s, int W, char *out, size_t cap) {
    const Model *m = a->m;
    char c[4][256];
    if (s->trained) {
        const char *name = m->src->title ? m->src->title(m) : NULL;
        const char *T = a->ascii ? "^T" : "\xe1\xb5\x80"; /* U+1D40 */
        if (!name) name = _("the model");
        int l = m->layer + 1, nl = m->cfg.layers;
        snprintf(c[0], sizeof c[0],
                 _("trained weights (%s, layer %d/%d): X is the residual stream into the layer, X + D = x + att W_o%s, "
                   "the residual after attention, as the model computes it"),
                 name, l, nl, T);
        snprintf(c[1], sizeof c[1], _("trained %s layer %d/%d: X is the residual stream in, X+D after attention"), name,
                 l, nl);
        snprintf(c[2], sizeof c[2], _("%s layer %d/%d: X = residual in, X + D = after attention"), name, l, nl);
        snprintf(c[3], sizeof c[3], _("%s layer %d/%d"), name, l, nl);
    } else {
        unsigned long long seed = (unsigned long long)m->cfg.seed;
        snprintf(c[0], sizeof c[0],
                 _("random weights (seed %llu): the arithmetic of attention, not word meaning; no word is near "
                   "another here because of what it means"),
                 seed);
        snprintf(c[1], sizeof c[1], _("random weights (seed %llu): the arithmetic of attention, not word meaning"),
                 seed);
        snprintf(c[2], sizeof c[2], _("random weights (seed %llu): arithmetic, no meaning"), seed);
        snprintf(c[3], sizeof c[3], "%s", _("random weights"));
    }
    const char *t[] = {c[0], c[1], c[2], c[3], NULL};
    snprintf(out, cap, "%s", fitting(W, t));
}

/* A word repeated: its two tokens start at one X, and attention moves them
 * apart or keeps them together; "" when no token repeats or no wording
 * fits W columns. */
static void caption_fact(const App *a, const Space *s, const double *pm, int W, char *out, size_t cap) {
    const Model *m = a->m;
    out[0] = '\0';
    int i0, j0, parts = repeated_token(s, pm, &i0, &j0);
    if (parts < 0) return;
    char lab[64];
    view_qlabel(a, lab, sizeof lab, i0, 12);
    const char *why = s->trained && m->layer == 0 ? _("the same embedding (layer 1's X has no position: RoPE "
                                                      "puts it in Q and K)")
                      : s->trained                ? _("the same vector")
                                                  : _("the same embedding (no position added)");
    const char *does = parts ? _("moves them apart") : _("keeps them together");
    char c[3][256];
    /* TRANSLATORS: the token, its two positions, why they start at one X, what attention does */
    snprintf(c[0], sizeof c[0], _("%s (tokens %d and %d) start at one X, %s; attention %s"), lab, i0 + 1, j0 + 1, why,
             does);
    snprintf(c[1], sizeof c[1], _("%s (tokens %d and %d) start at one X; attention %s"), lab, i0 + 1, j0 + 1, does);
    snprintf(c[2], sizeof c[2], _("%s (%d, %d): one X; attention %s"), lab, i0 + 1, j0 + 1, does);
    const char *t[] = {c[0], c[1], c[2], NULL};
    const char *f = fitting(W, t);
    if (text_width(f, strlen(f)) <= W) snprintf(out, cap, "%s", f);
}

/* D's definition for the head or heads shown, then the principal axes'
 * share of the variance, cut to W columns (the PCs first, then the gloss). */
static void caption_formula(const App *a, const Space *s, int all_heads, int W, char *out, size_t cap) {
    const Model *m = a->m;
    const char *T = a->ascii ? "^T" : "\xe1\xb5\x80"; /* U+1D40 */
    char pcs[128];
    const GravityData *g = gdata(a);
    if (g->total > 0)
        snprintf(pcs, sizeof pcs, _("PC1 %.0f%%, PC2 %.0f%% of X's variance"), 100 * g->var[0] / g->total,
                 100 * g->var[1] / g->total);
    else snprintf(pcs, sizeof pcs, "%s", _("every token has the same X: no spread to show"));
    int h = shown_head(a) + 1;
    /* TRANSLATORS: the formulas end with three blanks and the PCs (dropped
       first where the line is too long), then a gloss after a comma. */
    if (all_heads && s->trained)
        snprintf(out, cap,
                 P_("the %d head: D = att W_o%s, the layer's attention output   %s",
                    "all %d heads: D = att W_o%s, the layer's attention output   %s", m->cfg.heads),
                 m->cfg.heads, T, pcs);
    else if (all_heads)
        snprintf(out, cap,
                 P_("the %d head: D = Y = concat W_O   %s", "all %d heads: D = Y = concat W_O   %s", m->cfg.heads),
                 m->cfg.heads, pcs);
    else if (s->trained)
        snprintf(out, cap,
                 P_("head %d/%d: D = O_%d W_o[%d]%s (its %d column of W_o)   %s",
                    "head %d/%d: D = O_%d W_o[%d]%s (its %d columns of W_o)   %s", s->dv),
                 h, m->cfg.heads, h, h, T, s->dv, pcs);
    else snprintf(out, cap, _("head %d/%d: D = O_%d W_O[%d]   %s"), h, m->cfg.heads, h, h, pcs);
    while (text_width(out, strlen(out)) > W) { /* drop the last part: the PCs, then the gloss */
        char *gap = strrchr(out, ',');
        char *sp = strstr(out, "   ");
        if (sp) *sp = '\0';
        else if (gap) *gap = '\0';
        else break;
    }
}

/* Up to `lines` rows of caption from row y, most important first: the
 * legend, what the picture is, what holds for this model, the formula. */
static void caption(const App *a, Canvas *cv, int y, int lines, int all_heads, const Space *s, const double *pm,
                    double k) {
    int W = cv->w;
    caption_legend(a, cv, y, k);
    if (lines < 2) return;

    /* The other lines, in the order they are dropped when rows are few. */
    char what[256], model_line[256], fact[256], formula[256];
    const char *what_t[] = {_("where attention moves each token's vector, on the first two principal axes of X"),
                            _("where attention moves each token's vector, on X's first two principal axes"),
                            _("where attention moves each vector, on X's 2 main axes"), NULL};
    snprintf(what, sizeof what, "%s", fitting(W, what_t));
    caption_model(a, s, W, model_line, sizeof model_line);
    caption_fact(a, s, pm, W, fact, sizeof fact);
    caption_formula(a, s, all_heads, W, formula, sizeof formula);

    /* The text lines by importance, then the formula, which stays when rows
     * are few (D's definition), on the last row. */
    const char *text[3];
    int nt = 0;
    if (s->trained) {
        text[nt++] = model_line;
        if (fact[0]) text[nt++] = fact;
        text[nt++] = what;
    } else {
        text[nt++] = what;
        text[nt++] = model_line;
        if (fact[0]) text[nt++] = fact;
    }
    int rows = lines - 1, r = 0;
    for (; r < rows - 1 && r < nt; r++) cv_text(cv, y + 1 + r, 0, text[r], W, style_plain());
    cv_text(cv, y + 1 + r, 0, formula, W, style_plain());
}

// ----------------------------------------------------------------------------
// the view

static void say(Canvas *cv, int y, const char *s) { cv_text_wrap(cv, y, 0, s, cv->w, 2, style_plain()); }

/* Scratch of one frame, freed by the caller. */
typedef struct {
    float *px;           /* (n, 2) X on the axes */
    double *pm;          /* (n, 2) X + D on the axes */
    double *pk;          /* (n, 2) X + k D on the axes: what is drawn */
    int *dots;           /* (n, 4) dot x, y of X, then of X + k D; -1 when not finite */
    int *labels;         /* (n, 3) label x, y, width (0: none) */
    unsigned char *grid; /* PLOT_PLANES planes of (ph, W) for Plot */
    int *labelled;       /* (ph, W) token whose label names the point X in this cell, or -1 */
} Frame;

/* Keeps what the frame drew (the tests read it through gravity_last_frame). */
static void remember(const App *a, const Frame *f, int n, double k, double s, int ascii) {
    GravityData *g = gdata(a);
    if (n > g->frame_cap) {
        int *d = realloc(g->frame_dots, sizeof(int) * 4 * (size_t)n);
        if (d) g->frame_dots = d;
        int *l = realloc(g->frame_labels, sizeof(int) * 3 * (size_t)n);
        if (l) g->frame_labels = l;
        if (!d || !l) {
            g->frame.n = 0;
            return;
        }
        g->frame_cap = n;
    }
    memcpy(g->frame_dots, f->dots, sizeof(int) * 4 * (size_t)n);
    memcpy(g->frame_labels, f->labels, sizeof(int) * 3 * (size_t)n);
    g->frame = (GravityFrame){.n = n,
                              .dots = g->frame_dots,
                              .labels = g->frame_labels,
                              .k = k,
                              .s = s,
                              .aspect = ascii ? 2.0 : 1.0,
                              .sx = ascii ? 1 : 2,
                              .sy = ascii ? 1 : 4};
}

/* Draws the plot (ph rows from y0) and its labels; *k gets the arrows'
 * factor. Returns NULL, or why not. */
static const char *draw_plot(App *a, Canvas *cv, int y0, int ph, int all_heads, const Space *sp, Frame *f, double *k) {
    int n = sp->n, W = cv->w;
    size_t cells = (size_t)W * ph;
    f->px = malloc(sizeof(float) * 2 * (size_t)n);
    f->pm = malloc(sizeof(double) * 2 * (size_t)n);
    f->pk = malloc(sizeof(double) * 2 * (size_t)n);
    f->dots = malloc(sizeof(int) * 4 * (size_t)n);
    f->labels = calloc(3 * (size_t)n, sizeof(int));
    f->grid = calloc(PLOT_PLANES, cells);
    f->labelled = malloc(sizeof(int) * cells);
    if (!f->px || !f->pm || !f->pk || !f->dots || !f->labels || !f->grid || !f->labelled ||
        points(f->px, f->pm, a, sp, all_heads))
        return _("word gravity: out of memory");
    *k = arrow_scale(f->px, f->pm, n);
    for (int i = 0; i < 2 * n; i++) f->pk[i] = f->px[i] + *k * (f->pm[i] - f->px[i]);
    double lo[2], hi[2];
    if (plot_bounds(lo, hi, f->px, f->pk, n)) return _("word gravity: no finite point to draw");
    Plot p = plot_on(f->grid, W, ph, a->ascii);
    for (size_t c = 0; c < cells; c++) f->labelled[c] = -1;
    double s = plot_place(f->dots, &p, a->ascii, f->px, f->pk, n, lo, hi);
    int cur = a->ci >= 0 && a->ci < n ? a->ci : -1;
    plot_points(a, cv, y0, &p, f->dots, n, cur);
    plot_labels(a, cv, y0, &p, f->dots, f->labels, f->labelled, n, cur);
    remember(a, f, n, *k, s, a->ascii);
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
    int lines = h >= 30 ? 5 : h >= 14 ? 4 : h >= 10 ? 3 : h >= 7 ? 2 : 1;
    int ph = h - lines;
    if (ph < 2 || cv->w < 10) {
        say(cv, y0, _("too small to plot")); /* fits the narrowest (20 columns) */
        return;
    }
    AvError err = {0};
    Space sp;
    if (space_of(a, shown_head(a), &sp, &err) || x_axes(a, &sp, &err)) {
        say(cv, y0, err.msg);
        return;
    }
    Frame f = {0};
    double k = 1;
    const char *fail = draw_plot(a, cv, y0, ph, all_heads, &sp, &f, &k);
    if (fail) say(cv, y0, fail);
    else caption(a, cv, y0 + ph, lines, all_heads, &sp, f.pm, k);
    free(f.px);
    free(f.pm);
    free(f.pk);
    free(f.dots);
    free(f.labels);
    free(f.grid);
    free(f.labelled);
}

// ----------------------------------------------------------------------------
// the entry

static void gravity_title(const App *a, char *buf, size_t cap) {
    int heads = a->m->cfg.heads;
    if (gravity_all_heads(a))
        snprintf(buf, cap,
                 P_("the %d head  word gravity: where the whole layer moves each X (g: one head)",
                    "all %d heads  word gravity: where the whole layer moves each X (g: one head)", heads),
                 heads);
    else
        snprintf(buf, cap, _("head %d/%d  word gravity: where this head moves each X (g: all heads)"), a->head + 1,
                 heads);
}

/* Y only for all heads; a trained model's layer is read to its end. */
static Stage gravity_needed_stage(const App *a) {
    return gravity_all_heads(a) || (a->m && model_trained(a->m)) ? STAGE_FINAL : STAGE_OUTPUT;
}

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
