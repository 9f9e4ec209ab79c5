/* cellpage.c - the page of one cell's arithmetic (Enter): q and k (for a
 * trained model, before and after RoPE, with the rotation of their pairs),
 * the score of the kind in use, its scaling, the softmax of its row, or for
 * the output the sum of weights times values. */
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
// the arithmetic of one cell

/* s padded with blanks to w columns, after it (right 0) or before it (right
 * 1), into buf: printf's "%-12s" counts bytes, and a Korean syllable is 3
 * bytes in 2 columns. A wider s is written whole. Returns buf. */
static const char *pad(char *buf, size_t cap, const char *s, int w, int right) {
    int gap = w - text_width(s, strlen(s));
    if (gap < 0) gap = 0;
    if (right) snprintf(buf, cap, "%*s%s", gap, "", s);
    else snprintf(buf, cap, "%s%*s", s, gap, "");
    return buf;
}

/* A vector as coloured numbers from column x, wrapped over at most
 * max_lines lines; returns the lines used. A vector longer than that says
 * how many of its entries are left out and which, in the label column under
 * its name (lines 2 and 3: "… 104 more not shown", "(entries 24..127)"), or
 * on a line of its own when it has fewer lines. */
static int draw_vector(const App *a, Canvas *doc, int y, int x, int w, const float *v, int n, int max_lines) {
    ShownMat sm;
    view_matrix_of(&sm, v, 1, n, 1);
    int per_line = (w - x) / PAGE_CW;
    if (per_line < 1) per_line = 1;
    if (max_lines < 1) max_lines = 1;
    int shown = per_line * max_lines < n ? per_line * max_lines : n;
    for (int k = 0; k < shown; k++)
        view_cell(a, doc, y + k / per_line, x + k % per_line * PAGE_CW, PAGE_CW, 1, &sm, 0, k, 0, 1);
    int lines = shown > 0 ? (shown - 1) / per_line + 1 : 1;
    if (shown == n) return lines;
    char more[64], which[64];
    snprintf(more, sizeof more, _("%s %d more not shown"), G(a)->ellipsis, n - shown);
    snprintf(which, sizeof which, _("(entries %d..%d)"), shown, n - 1);
    if (lines >= 3) {
        cv_text(doc, y + 1, 0, more, x - 1, style_plain());
        cv_text(doc, y + 2, 0, which, x - 1, style_plain());
        return lines;
    }
    cv_printf(doc, y + lines, x, w - x, style_plain(), "%s %s", more, which);
    return lines + 1;
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
    snprintf(buf, sizeof buf, _("q %s k  (each product)"), G(a)->odot);
    cv_text(doc, y, 0, buf, lx, style_attr(ST_BOLD));
    if (prod) y += draw_vector(a, doc, y, lx, W, prod, dk, 3);
    free(prod);
    return y;
}

/* A trained model: RoPE turning row `pos` of a head, raw (before) into
 * rot (after): the rule, then the first pairs with their angle; returns the
 * next row. Lines within 80 columns. */
enum { ROPE_PAIRS_SHOWN = 4 };

static int cell_rope(const App *a, Canvas *doc, int y, const TrainedInfo *t, int pos, const float *raw,
                     const float *rot) {
    const Glyphs *g = G(a);
    const char *theta = a->ascii ? "t" : "θ", *mul = a->ascii ? "*" : g->dot; /* "." reads as a decimal point */
    int W = doc->w, hs = t->head_size, pairs = hs / 2;
    char buf[256];
    snprintf(buf, sizeof buf, _("RoPE, position %d: pair p turns by the angle %d%s%s_p, %s_p = %g^(%s2p/%d)"), pos, pos,
             mul, theta, theta, t->rope_theta, g->minus, hs);
    cv_text(doc, y++, 0, buf, W, style_plain());
    const RopeScaling *sc = &t->rope_scaling; /* the angles below are the scaled ones */
    if (sc->kind == ROPE_SCALE_LLAMA3)
        snprintf(buf, sizeof buf, _("  %s_p then scaled by rope_scaling llama3 (factor %g, original context %d)"),
                 theta, sc->factor, sc->original_max_pos);
    else if (sc->kind == ROPE_SCALE_LINEAR)
        snprintf(buf, sizeof buf, _("  %s_p then divided by rope_scaling's factor %g (linear)"), theta, sc->factor);
    if (sc->kind != ROPE_SCALE_NONE) cv_text(doc, y++, 0, buf, W, style_plain());
    if (t->rope == ROPE_HALF)
        snprintf(buf, sizeof buf, "  (a, b) %s (a cos %s b sin, a sin + b cos), a = x[p], b = x[p+%d]", g->arrow,
                 g->minus, pairs);
    else
        snprintf(buf, sizeof buf, "  (a, b) %s (a cos %s b sin, a sin + b cos), a = x[2p], b = x[2p+1]", g->arrow,
                 g->minus);
    cv_text(doc, y++, 0, buf, W, style_plain());
    for (int p = 0; p < pairs && p < ROPE_PAIRS_SHOWN; p++) {
        double f = trained_rope_freq(t, p);
        int ea, eb;
        trained_rope_pair(t, p, &ea, &eb);
        snprintf(buf, sizeof buf, _("  p %d  %s %.6f  angle %8.4f  (%7.3f, %7.3f) %s (%7.3f, %7.3f)"), p, theta, f,
                 pos * f, raw[ea], raw[eb], g->arrow, rot[ea], rot[eb]);
        cv_text(doc, y++, 0, buf, W, style_plain());
    }
    if (pairs > ROPE_PAIRS_SHOWN) {
        int more = pairs - ROPE_PAIRS_SHOWN;
        snprintf(buf, sizeof buf,
                 P_("  %s %d more pair, turned by %d%s%s_p", "  %s %d more pairs, each turned by %d%s%s_p", more),
                 g->ellipsis, more, pos, mul, theta);
        cv_text(doc, y++, 0, buf, W, style_attr(ST_DIM));
    }
    return y;
}

/* A trained model's q_i and k_j: before RoPE, the rotation, after (the
 * vectors of the score), then their products; returns the next row. */
static int cell_vectors_trained(const App *a, Canvas *doc, int y, int i, int j, const LayerChain *v) {
    const HeadData *hd = &a->m->head[a->head];
    const TrainedInfo *t = model_trained(a->m);
    if (t->rope == ROPE_NONE) return cell_vectors(a, doc, y, i, j); /* GPT-2: q and k as they are */
    int W = doc->w, hs = v->head_size, lx = 22, h = a->head, g = h / (v->n_heads / v->n_kv_heads);
    char buf[64];
    const float *qr = v->q_raw_heads + ((size_t)h * v->n + i) * hs, *kr = v->k_raw_heads + ((size_t)g * v->n + j) * hs;
    const float *qi = hd->q + (size_t)i * hs, *kj = hd->k + (size_t)j * hs;
    if (t->qk_norm) /* Qwen3: RoPE turns q and k as the per-head norm left them */
        cv_text(doc, y++, 0, _("q and k before RoPE are after the model's per-head RMSNorm (q_norm, k_norm)"), W,
                style_attr(ST_DIM));
    snprintf(buf, sizeof buf, _("q_%d before RoPE"), i);
    cv_text(doc, y, 0, buf, lx, style_attr(ST_BOLD));
    y += draw_vector(a, doc, y, lx, W, qr, hs, 3);
    y = cell_rope(a, doc, y, t, i, qr, qi);
    snprintf(buf, sizeof buf, _("q_%d after RoPE"), i);
    cv_text(doc, y, 0, buf, lx, style_attr(ST_BOLD));
    y += draw_vector(a, doc, y, lx, W, qi, hs, 3);
    snprintf(buf, sizeof buf, _("k_%d before RoPE"), j);
    cv_text(doc, y, 0, buf, lx, style_attr(ST_BOLD));
    y += draw_vector(a, doc, y, lx, W, kr, hs, 3);
    y = cell_rope(a, doc, y, t, j, kr, kj);
    snprintf(buf, sizeof buf, _("k_%d after RoPE"), j);
    cv_text(doc, y, 0, buf, lx, style_attr(ST_BOLD));
    y += draw_vector(a, doc, y, lx, W, kj, hs, 3);
    float *prod = malloc(sizeof(float) * (size_t)hs);
    if (!prod) return y;
    for (int p = 0; p < hs; p++) prod[p] = (float)((double)qi[p] * kj[p]);
    snprintf(buf, sizeof buf, _("q %s k  (each product)"), G(a)->odot);
    cv_text(doc, y, 0, buf, lx, style_attr(ST_BOLD));
    y += draw_vector(a, doc, y, lx, W, prod, hs, 3);
    free(prod);
    return y;
}

/* The dot product, the raw score and its scaling, each with its own
 * arithmetic (the formulas are formula.c's); returns the next row. */
static int cell_scores(const App *a, Canvas *doc, int y, const CellDetail *d) {
    const ModelConfig *c = &a->m->cfg;
    const Glyphs *g = G(a);
    int W = doc->w;
    char buf[512], text[64], dot[16], lab[64];
    snprintf(dot, sizeof dot, "q%sk", g->dot);
    /* The names in a column of 14 (q.k's 13) columns, the arithmetic after them. */
    int n = snprintf(buf, sizeof buf, "%s", pad(lab, sizeof lab, dot, 13, 0));
    snprintf(buf + n, sizeof buf - (size_t)n, _("%s of the products = %.4f"), g->sigma, d->dot);
    cv_text(doc, y++, 0, buf, W, style_plain());
    FormulaOf f = formula_of(c, a->ascii);
    formula_text(text, sizeof text, FORMULA_CELL, STAGE_SCORES, &f);
    n = snprintf(buf, sizeof buf, "%s", pad(lab, sizeof lab, _("raw score"), 14, 0));
    char *rest = buf + n;
    size_t room = sizeof buf - (size_t)n;
    switch (c->score) {
    case SCORE_COSINE:
        snprintf(rest, room, "%s = %.4f / (%.4f %s %.4f) = %.4f", text, d->dot, d->q_norm, g->times, d->k_norm, d->raw);
        break;
    case SCORE_DISTANCE: snprintf(rest, room, "%s = %s%.4f", text, g->minus, d->dist2); break;
    case SCORE_ADDITIVE:
        snprintf(rest, room, _("%s = %.4f   (additive: q%sk is not used)"), text, d->raw, g->dot);
        break;
    default: snprintf(rest, room, _("%s = %.4f   (the \"raw scores\" stage)"), text, d->raw); break;
    }
    cv_text(doc, y++, 0, buf, W, style_plain());
    formula_text(text, sizeof text, FORMULA_CELL, STAGE_SCALED, &f);
    n = snprintf(buf, sizeof buf, "%s", pad(lab, sizeof lab, _("scaled score"), 14, 0));
    rest = buf + n, room = sizeof buf - (size_t)n;
    switch (formula_scale(FORMULA_CELL, &f)) {
    case FORMULA_SCALE_OFF:
    case FORMULA_SCALE_NONE: snprintf(rest, room, _("s = %.4f   (%s: s is the raw score)"), d->scaled, text); break;
    case FORMULA_SCALE_TIMES:
        snprintf(rest, room, _("s = %.4f %s = %.4f   (the temperature; what the softmax sees)"), d->raw, text,
                 d->scaled);
        break;
    default:
        snprintf(rest, room, _("s = %.4f %s (= %.4f) = %.4f   (what the softmax sees)"), d->raw, text, d->divisor,
                 d->scaled);
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
    char buf[512], mk[32], lab[64];
    mask_shown_name(&a->m->cfg, mk, sizeof mk);
    int n = snprintf(buf, sizeof buf, "%s", pad(lab, sizeof lab, _("mask"), 14, 0));
    /* TRANSLATORS: the mask's name, key j, query i */
    if (d->allowed)
        snprintf(buf + n, sizeof buf - (size_t)n, _("%s: key %d is visible to query %d -> allowed"), mk, j, i);
    else
        snprintf(buf + n, sizeof buf - (size_t)n, _("%s: key %d is hidden from query %d -> masked: score %s, weight 0"),
                 mk, j, i, g->neg_inf);
    cv_text(doc, y++, 0, buf, W, d->allowed ? style_plain() : style_attr(ST_BOLD));
    if (d->row_allowed == 0) {
        cv_text(doc, y++, 0, _("every key of this row is masked: all its weights are 0, its sum is 0"), W,
                style_attr(ST_BOLD));
        return y;
    }
    snprintf(buf, sizeof buf, _("exp(s %s max) exp(%.4f %s %.4f) = %.6f   (max: largest allowed s of the row)"),
             g->minus, d->allowed ? d->scaled : 0.0, g->minus, d->row_max, d->exp);
    if (!d->allowed) snprintf(buf, sizeof buf, _("exp(s %s max) 0 (masked)"), g->minus);
    else if (text_width(buf, strlen(buf)) > W) /* shorter where it would be cut */
        snprintf(buf, sizeof buf, _("exp(s %s max) exp(%.4f %s %.4f) = %.6f   (max: of the row)"), g->minus, d->scaled,
                 g->minus, d->row_max, d->exp);
    cv_text(doc, y++, 0, buf, W, style_plain());
    n = snprintf(buf, sizeof buf, "%s", pad(lab, sizeof lab, _("row sum"), 14, 0));
    snprintf(buf + n, sizeof buf - (size_t)n,
             P_("%s exp(s_j %s max) over the %d allowed key = %.6f",
                "%s exp(s_j %s max) over the %d allowed keys = %.6f", d->row_allowed),
             g->sigma, g->minus, d->row_allowed, d->denom);
    cv_text(doc, y++, 0, buf, W, style_plain());
    n = snprintf(buf, sizeof buf, "%s", pad(lab, sizeof lab, _("weight"), 14, 0));
    snprintf(buf + n, sizeof buf - (size_t)n, "%.6f %s %.6f = %.4f", d->exp, g->div, d->denom, d->weight);
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
    snprintf(buf, sizeof buf, _("the weights of row %d %s: sum %.3f, entropy %.2f bits, largest %.2f"), i, q,
             hd->row_sums[i], hd->entropy[i], hd->max_weight[i]);
    cv_text(doc, y++, 0, buf, W, style_attr(ST_BOLD));
    int barw = W - 12 - 14 > 50 ? 50 : W - 12 - 14;
    if (barw < 5) barw = 5;
    for (int t = 0; t < m->n_k; t++, y++) {
        view_klabel(a, k, sizeof k, t, 10);
        Style ls = t == j ? style_attr(ST_REVERSE | ST_BOLD) : style_plain();
        cv_text(doc, y, 0, k, 10, ls);
        if (!m->allowed[(size_t)i * m->n_k + t]) {
            cv_printf(doc, y, 12, 20, style_attr(ST_DIM), _("%s masked"), g->masked);
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
    /* TRANSLATORS: head h/H, query i and its token, an arrow, key j and its token */
    snprintf(buf, sizeof buf, _("cell arithmetic  head %d/%d  query %d %s %s key %d %s   (Enter or Esc: back)"),
             a->head + 1, m->cfg.heads, i, q, G(a)->arrow, j, k);
    if (text_width(buf, strlen(buf)) > doc->w) /* shorter where it would be cut */
        snprintf(buf, sizeof buf, _("cell  head %d/%d  query %d %s %s key %d %s  (Esc: back)"), a->head + 1,
                 m->cfg.heads, i, q, G(a)->arrow, j, k);
    cv_text(doc, y++, 0, buf, doc->w, style_attr(ST_BOLD | ST_REVERSE));
    LayerChain v;
    if (model_trained(m) && model_layer_chain(m, m->layer, &v, NULL) == 0)
        y = cell_vectors_trained(a, doc, y + 1, i, j, &v);
    else y = cell_vectors(a, doc, y + 1, i, j);
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
             _("output arithmetic  head %d/%d  O[%d][%d] = %s_j A[%d][j] %s V[j][%d]   (Enter or Esc: back)"),
             a->head + 1, m->cfg.heads, i, d, g->sigma, i, g->times, d);
    if (text_width(buf, strlen(buf)) > W) /* shorter where it would be cut */
        snprintf(buf, sizeof buf, _("output  head %d/%d  O[%d][%d] = %s_j A[%d][j] %s V[j][%d]  (Esc: back)"),
                 a->head + 1, m->cfg.heads, i, d, g->sigma, i, g->times, d);
    cv_text(doc, y++, 0, buf, W, style_attr(ST_BOLD | ST_REVERSE));
    y++;
    char c1[64], c4[64], c5[64];
    cv_printf(doc, y++, 0, W, style_attr(ST_BOLD), "%s %10s %10s %s", pad(c1, sizeof c1, _("key j"), 12, 0), "A[i][j]",
              "V[j][d]", pad(c4, sizeof c4, _("product"), 12, 1));
    double sum = 0;
    for (int t = 0; t < m->n_k; t++, y++) {
        view_klabel(a, k, sizeof k, t, 12);
        float w = hd->weights[(size_t)i * m->n_k + t], v = hd->v[(size_t)t * dv + d];
        cv_text(doc, y, 0, k, 12, style_plain());
        if (!m->allowed[(size_t)i * m->n_k + t]) {
            cv_printf(doc, y, 13, W, style_attr(ST_DIM), "%10s %10.4f %s", g->masked, v,
                      pad(c5, sizeof c5, _("(masked)"), 12, 1));
            continue;
        }
        sum += (double)w * v;
        cv_printf(doc, y, 13, W, style_plain(), "%10.4f %10.4f %12.6f", w, v, (double)w * v);
    }
    int n = snprintf(buf, sizeof buf, "%s %10s %10s %12.6f   ", pad(c1, sizeof c1, _("sum"), 12, 0), "", "", sum);
    snprintf(buf + n, sizeof buf - (size_t)n, _("(stored: %.6f)"), hd->out[(size_t)i * dv + d]);
    cv_text(doc, y++, 0, buf, W, style_attr(ST_BOLD));
    (void)q;
    return y;
}

static void cell_draw(App *a, Canvas *cv) {
    Canvas *doc = page_canvas(a, cv->w, 40 + 3 * a->m->n_k + 12 + (model_trained(a->m) ? 24 : 0));
    if (!doc) return;
    int h = a->shown == TENSOR_OUTPUT ? draw_output_cell(a, doc) : draw_attention_cell(a, doc);
    doc->h = h < doc->h ? (h > 0 ? h : 1) : doc->h;
    page_show(a, cv, doc, 0, cv->h);
}

// ----------------------------------------------------------------------------
// the entry

static int cell_available(const App *a, const char **why) {
    if (why) *why = _("the arithmetic is of a cell of weights, scores or output");
    return a->m->n_q > 0 && tensor_info(a->shown)->scope == TS_HEAD;
}

static int cell_key(App *a, Action act) {
    if (page_scroll(a, act)) return 1;
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
