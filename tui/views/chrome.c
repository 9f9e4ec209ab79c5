/* chrome.c - the lines around every view: status, title, info, legend,
 * inspector, message, key hints or prompt (rows in chrome.h). What differs
 * between views is asked of the view table (view.h). */
#include "chrome.h"

#include "classmodel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "formula.h"
#include "i18n.h"
#include "keymap.h"
#include "text.h"
#include "utf8.h"
#include "view.h"
#include "number.h"

#define G view_glyphs

void chrome_score_words(const ModelConfig *c, char *buf, size_t cap) {
    switch (c->score) {
    case SCORE_DOT: snprintf(buf, cap, "%s", c->scale ? _("score=scaled") : _("score=dot")); break;
    case SCORE_COSINE: snprintf(buf, cap, "%s", _("score=cosine")); break;
    case SCORE_DISTANCE: snprintf(buf, cap, "%s", _("score=distance")); break;
    case SCORE_ADDITIVE: snprintf(buf, cap, "%s", _("score=additive")); break;
    default: snprintf(buf, cap, "score=%s", score_name(c->score, c->scale)); break;
    }
}

void chrome_attn_words(AttnMode mode, int after, char *buf, size_t cap) {
    /* After the score on the info line: with the separator the language puts there. */
    switch (mode) {
    case ATTN_SELF: snprintf(buf, cap, "%s", after ? _(" attn=self") : _("attn=self")); break;
    case ATTN_CAUSAL_SELF: snprintf(buf, cap, "%s", after ? _(" attn=causal-self") : _("attn=causal-self")); break;
    case ATTN_CROSS: snprintf(buf, cap, "%s", after ? _(" attn=cross") : _("attn=cross")); break;
    default: snprintf(buf, cap, "%sattn=%s", after ? " " : "", attn_mode_name(mode)); break;
    }
}

void chrome_mask_words(const ModelConfig *c, char *buf, size_t cap) {
    switch (c->mask) {
    case MASK_NONE: snprintf(buf, cap, "%s", _("mask=none")); break;
    case MASK_CAUSAL: snprintf(buf, cap, "%s", _("mask=causal")); break;
    case MASK_WINDOW: snprintf(buf, cap, _("mask=window:%d"), c->window); break;
    case MASK_PREFIX: snprintf(buf, cap, _("mask=prefix:%d"), c->prefix); break;
    case MASK_PADDING: snprintf(buf, cap, "%s", _("mask=padding")); break;
    case MASK_PAINTED: snprintf(buf, cap, "%s", _("mask=painted")); break;
    default: {
        char mk[32];
        model_mask_name(c, mk, sizeof mk);
        snprintf(buf, cap, "mask=%s", mk);
        break;
    }
    }
}

/* "score=scaled attn=self" and, when on, "tie-qk" and "pad=N" (in another
 * language their names: the status line above keeps the words). */
static void status_extras(const App *a, char *buf, size_t cap) {
    const Model *m = a->m;
    const ModelConfig *c = &m->cfg;
    chrome_score_words(c, buf, cap);
    size_t n = strlen(buf);
    if (model_can(m, SRC_TOKENIZERS)) {
        chrome_attn_words(c->attn, 1, buf + n, cap - n);
        n += strlen(buf + n);
    }
    if (c->tie_qk && n < cap) n += (size_t)snprintf(buf + n, cap - n, "%s", _(" tie-qk"));
    if (m->n_pad && n < cap) snprintf(buf + n, cap - n, _(" pad=%d"), m->n_pad);
}

static void draw_status(const App *a, Canvas *cv) {
    char buf[256];
    export_status_words(buf, sizeof buf, a->m, EXPORT_STATUS_SCREEN);
    Style st = style_attr(ST_REVERSE);
    cv_fill(cv, 0, 0, cv->w, " ", st);
    cv_text(cv, 0, 0, buf, cv->w, st);
}

const char *chrome_tokenizer_name(TokPreset p) {
    switch (p) {
    case TOK_WORDS: return _("words");
    case TOK_GPT2: return _("gpt2");
    case TOK_CHARS: return _("chars");
    case TOK_CUSTOM: return _("custom");
    default: return tok_preset_name(p);
    }
}

/* The size of the input: "11 tokens, words". */
static void token_count(const App *a, char *buf, size_t cap) {
    const Model *m = a->m;
    const char *what = _(m->src->what), *tok = chrome_tokenizer_name(tok_preset(m->tokenizer));
    if (model_can(m, SRC_TEXT) && !model_can(m, SRC_TOKENIZERS))
        snprintf(buf, cap, P_("%d token, %s", "%d tokens, %s", m->n_k), m->n_k, what);
    else if (!model_can(m, SRC_TOKENIZERS)) snprintf(buf, cap, _("%d x %d from %s"), m->n_q, m->n_k, what);
    else if (m->q_target != m->k_target) snprintf(buf, cap, _("%d x %d tokens, %s"), m->n_q, m->n_k, tok);
    else snprintf(buf, cap, P_("%d token, %s", "%d tokens, %s", m->n_q), m->n_q, tok);
}

/* Line 2: the variants (score, attention, tie, pads), the size, and for the
 * head shown its saturation (mean entropy against its maximum) and the
 * asymmetry of its raw scores (0 when Q and K are tied). */
static void draw_info(const App *a, Canvas *cv) {
    const Model *m = a->m;
    char buf[256];
    status_extras(a, buf, sizeof buf);
    int x = cv_text(cv, 2, 0, buf, cv->w, style_plain());
    token_count(a, buf, sizeof buf);
    x += 3 + cv_text(cv, 2, x + 3, buf, cv->w - x - 3, style_attr(ST_DIM));
    if (!(view_shown(a)->flags & VIEW_HEAD_STATS) || m->n_q == 0) return;
    double mean, max;
    model_mean_entropy(m, a->head, &mean, &max);
    int n = snprintf(buf, sizeof buf, _("%s %.2f of %.2f bits"), a->ascii ? _("mean H") : G(a)->mean_h, mean, max);
    if (m->n_q == m->n_k) {
        char asym[16];
        num_short(asym, sizeof asym, model_asymmetry(m, a->head));
        snprintf(buf + n, sizeof buf - (size_t)n, _("   asym %s"), asym);
    }
    int w = text_width(buf, strlen(buf));
    if (x + 3 + w <= cv->w) cv_text(cv, 2, cv->w - w, buf, w, style_plain());
}

/* The view's title, with the layer before it for a source of several. */
static void title_text(const App *a, char *buf, size_t cap) {
    const View *v = view_shown(a);
    buf[0] = '\0';
    int n = a->m->cfg.layers > 1 ? snprintf(buf, cap, _("layer %d/%d  "), a->m->layer + 1, a->m->cfg.layers) : 0;
    if (v->title) v->title(a, buf + n, cap - (size_t)n);
}

/* Line 1: the title in w columns: too wide, first without its key hint
 * "(...)" (the help has the keys), then shorter at a word. Returns the
 * columns drawn. */
static int draw_title(const App *a, Canvas *cv, int w) {
    char buf[384];
    title_text(a, buf, sizeof buf);
    char *open = strrchr(buf, '(');
    if (text_width(buf, strlen(buf)) > w && open && strchr(open, ')')) {
        char *close = strchr(open, ')') + 1, *start = open;
        while (start > buf && start[-1] == ' ') start--;
        memmove(start, close, strlen(close) + 1);
    }
    chrome_fit(buf, sizeof buf, w);
    return cv_text(cv, 1, 0, buf, w, style_attr(ST_BOLD));
}

/* Columns of row y up to its last non-blank cell. */
static int row_used(Canvas *cv, int y) {
    int used = cv->w;
    while (used > 0 && strcmp(cv_cell(cv, y, used - 1)->ch, " ") == 0) used--;
    return used;
}

/* Seeded weights say they are random (classmodel.h: "random weights (seed
 * 42) · w: trained"), where the eye lands: after the whole title where it
 * fits, else at the end of the info line, else after the title made shorter
 * for it; the longest form of the phrase that fits there. */
static void draw_random_note(const App *a, Canvas *cv) {
    char title[384], phrase[128];
    classmodel_phrase(a, phrase, sizeof phrase, 0); /* the shortest form: "untrained" */
    if (!phrase[0]) return;
    /* Two blanks before it, and the last column left blank (a line that
     * reaches it reads as cut). */
    int W = cv->w - 1, need = text_width(phrase, strlen(phrase)) + 2;
    title_text(a, title, sizeof title);
    int x;
    if (text_width(title, strlen(title)) + need <= W) {
        x = row_used(cv, 1) + 2;
    } else if (row_used(cv, 2) + need + 1 <= W) {
        classmodel_phrase(a, phrase, sizeof phrase, W - row_used(cv, 2) - 3);
        cv_text_right(cv, 2, 0, phrase, W, style_attr(ST_BOLD | ST_UNDERLINE));
        return;
    } else if (W - need >= cv->w / 2) {
        cv_fill(cv, 1, 0, cv->w, " ", style_plain());
        x = draw_title(a, cv, W - need) + 2;
    } else {
        return; /* a screen too narrow for both: the title */
    }
    classmodel_phrase(a, phrase, sizeof phrase, W - x);
    cv_text(cv, 1, x, phrase, W - x, style_attr(ST_BOLD | ST_UNDERLINE));
}

void chrome_draw_top(const App *a, Canvas *cv) {
    draw_status(a, cv);
    draw_title(a, cv, cv->w);
    draw_info(a, cv);
    draw_random_note(a, cv);
}

/* A bar of `cols` one-column swatches for the values lo..hi (each column the
 * colour of the value at its middle), at (y, x); returns the columns drawn. */
static int legend_bar(const App *a, Canvas *cv, int y, int x, double lo, double hi, int cols, int is_signed) {
    ShownMat sm = {0};
    sm.is_signed = is_signed;
    sm.maxabs = 1;
    int c = 0;
    for (; c < cols && x + c < cv->w; c++) {
        const char *glyph;
        Style st = view_value_style(a, &sm, lo + (hi - lo) * (c + 0.5) / cols, &glyph);
        cv_fill(cv, y, x + c, 1, glyph ? glyph : " ", st);
    }
    return c;
}

/* The legend line under the map. The 0..1 ramp is drawn in four quarters
 * with ticks (0, .25, .5, .75, 1), every step of the palette in it; a signed
 * ramp spans -max|x|..+max|x| (what its ends mean, said so) with 0 marked. */
static void draw_legend(const App *a, Canvas *cv, int y, const ShownMat *sm) {
    const Glyphs *g = G(a);
    int rows = (view_shown(a)->flags & VIEW_ROW_STATS) != 0 && !a->present; /* projector mode: no row stats */
    int x = 0;
    char buf[160];
    if (!sm->is_signed) {
        static const char *const ticks[] = {"0 ", " .25 ", " .5 ", " .75 ", " 1"};
        for (int q = 0; q < 4; q++) {
            x += cv_text(cv, y, x, ticks[q], cv->w - x, style_plain());
            x += legend_bar(a, cv, y, x, q / 4.0, (q + 1) / 4.0, 4, 0);
        }
        /* z: the ticks are fractions of each row's largest weight */
        x += cv_text(cv, y, x, sm->row_max ? _(" 1 = row max") : ticks[4], cv->w - x, style_plain());
    } else {
        char m[32];
        snprintf(m, sizeof m, "%.3g", sm->maxabs);
        snprintf(buf, sizeof buf, "%s%s ", g->minus, m);
        x += cv_text(cv, y, x, buf, cv->w - x, style_plain());
        x += legend_bar(a, cv, y, x, -1.0, 0.0, 6, 1);
        x += cv_text(cv, y, x, " 0 ", cv->w - x, style_plain());
        x += legend_bar(a, cv, y, x, 0.0, 1.0, 6, 1);
        snprintf(buf, sizeof buf, " +%s = %smax|x|", m, a->ascii ? "+-" : "±");
        x += cv_text(cv, y, x, buf, cv->w - x, style_plain());
    }
    if (sm->can_mask) {
        x += 2;
        int w = cv_text(cv, y, x, g->masked, 1, style_attr(ST_DIM));
        /* What a masked cell holds in the stage shown: weight 0, or -inf. */
        if (a->shown == TENSOR_WEIGHTS) snprintf(buf, sizeof buf, "%s", _(" masked: weight 0"));
        else snprintf(buf, sizeof buf, _(" masked: %s"), g->neg_inf);
        x += w + cv_text(cv, y, x + w, buf, cv->w - x - w, style_plain());
        snprintf(buf, sizeof buf, _("  %s all masked"), g->flag);
        if (rows) x += cv_text(cv, y, x, buf, cv->w - x, style_plain());
    }
    /* The statistics' columns: named where the line has room. */
    const char *stats = a->shown == TENSOR_WEIGHTS ? _("  bits: entropy") : _("  A's sum, bits, max");
    if (sm->row_stats && rows && x + text_width(stats, strlen(stats)) <= cv->w)
        cv_text(cv, y, x, stats, cv->w - x, style_plain());
}

static int digits(int n) {
    int d = 1;
    while (n >= 10) n /= 10, d++;
    return d;
}

/* Pads a label with spaces to `cols` terminal columns. */
static void pad_to(char *buf, size_t cap, int cols) {
    size_t len = strlen(buf);
    for (int w = text_width(buf, len); w < cols && len + 1 < cap; w++) buf[len++] = ' ';
    buf[len] = '\0';
}

/* The inspector's two lines; l2 may stay empty. */
typedef struct {
    char l1[512], l2[512];
} InspectLines;

/* Output column j of query i (labelled q): the row's weights times V. */
static void inspect_output(const App *a, const char *q, int i, int j, InspectLines *L) {
    const Model *m = a->m;
    const Glyphs *g = G(a);
    const HeadData *hd = &m->head[a->head];
    int dv = m->cfg.d_v;
    snprintf(L->l1, sizeof L->l1, _("%s[%d], output column %d:  O[%d][%d] = %s_j A[%d][j] %s V[j][%d] = %.4f"), q, i, j,
             i, j, g->sigma, i, g->times, j, hd->out[(size_t)i * dv + j]);
    int n = snprintf(L->l2, sizeof L->l2, "=");
    for (int t = 0; t < m->n_k && n < (int)sizeof L->l2 - 40; t++) {
        float w = hd->weights[(size_t)i * m->n_k + t];
        if (!m->allowed[(size_t)i * m->n_k + t]) continue;
        n += snprintf(L->l2 + n, sizeof L->l2 - (size_t)n, "%s %.2f%s%.2f", n > 1 ? " +" : "", w, g->times,
                      hd->v[(size_t)t * dv + j]);
    }
}

/* Cell (i, j) of a stage of the whole layer: X, PE, the joined heads, Y. */
static void inspect_layer(const App *a, const char *q, int i, int j, InspectLines *L) {
    const Model *m = a->m;
    const ModelConfig *c = &m->cfg;
    const Glyphs *g = G(a);
    size_t dm = (size_t)c->d_model;
    switch (a->shown) {
    case TENSOR_X:
        snprintf(L->l1, sizeof L->l1, _("%s[%d], dimension %d:  X = E + PE = %.4f + %.4f = %.4f"), q, i, j,
                 m->embed[i * dm + j], m->pe[i * dm + j], m->x[i * dm + j]);
        snprintf(L->l2, sizeof L->l2, _("E: the token's vector, N(0,1) keyed by the seed and the token's text (id %d)"),
                 model_key_id(m, i));
        break;
    case TENSOR_PE: {
        int i2 = j & ~1;
        snprintf(L->l1, sizeof L->l1, _("position %d, dimension %d:  PE = %s(%d / 10000^(%d/%d)) = %.4f"), i, j,
                 j & 1 ? "cos" : "sin", i, i2, c->d_model, m->pe[i * dm + j]);
        snprintf(L->l2, sizeof L->l2, "%s",
                 _("even dimensions use sin, odd ones cos; each pair turns at its own wavelength"));
        break;
    }
    case TENSOR_CONCAT: {
        int h = j / c->d_v, col = j % c->d_v;
        snprintf(L->l1, sizeof L->l1, _("%s[%d], column %d = head %d's output column %d:  %.4f"), q, i, j, h + 1, col,
                 m->concat[(size_t)i * c->heads * c->d_v + j]);
        snprintf(L->l2, sizeof L->l2, _("the heads' outputs O_1 .. O_%d side by side: %d x %d = %d columns"), c->heads,
                 c->heads, c->d_v, c->heads * c->d_v);
        break;
    }
    default: /* TENSOR_Y */
        snprintf(L->l1, sizeof L->l1, _("%s[%d], dimension %d:  Y = %s_c concat[%d][c] %s W_O[c][%d] = %.4f"), q, i, j,
                 g->sigma, i, g->times, j, m->y[(size_t)i * dm + j]);
        snprintf(L->l2, sizeof L->l2, _("W_O (%d, %d) mixes what the heads found back into d_model = %d dimensions"),
                 c->heads * c->d_v, c->d_model, c->d_model);
        break;
    }
}

/* Why the mask hides key j from query i, in buf; 1 when it says from which
 * query (the rest of the line need not say it again). */
static int mask_reason(const ModelConfig *c, int i, int j, char *buf, size_t cap) {
    if (c->mask == MASK_CAUSAL || c->mask == MASK_WINDOW || c->mask == MASK_PREFIX)
        return snprintf(buf, cap, _("masked: key %d hidden from query %d"), j, i), 1;
    if (c->mask == MASK_PADDING) snprintf(buf, cap, "%s", _("masked: a <pad> key"));
    else snprintf(buf, cap, "%s", _("masked (painted)"));
    return 0;
}

/* Cell (i, j) of a score or weight stage: the raw score and its scaling,
 * then the mask and the softmax. */
static void inspect_score(const App *a, const char *q, int i, int j, InspectLines *L) {
    const Model *m = a->m;
    const ModelConfig *c = &m->cfg;
    const Glyphs *g = G(a);
    char k[96];
    /* Labels padded to one width and indices to one width, so that moving
     * the cursor leaves the numbers where they are (only they change). */
    int lw = view_max_label_width(a, 16), iw = m->n_q > m->n_k ? digits(m->n_q) : digits(m->n_k);
    view_klabel(a, k, sizeof k, j, 16);
    CellDetail d;
    model_cell_detail(m, a->head, i, j, &d);
    /* The raw score and its scaling, as the score kind computes them. */
    FormulaOf f = formula_of(c, a->ascii);
    char div[64], raw[96], text[64];
    snprintf(raw, sizeof raw, "%s = %.4f", formula_text(text, sizeof text, FORMULA_INSPECTOR, STAGE_SCORES, &f), d.raw);
    snprintf(div, sizeof div, "%s = %.4f", formula_text(text, sizeof text, FORMULA_INSPECTOR, STAGE_SCALED, &f),
             d.scaled);
    char why[128];
    snprintf(why, sizeof why, "%s", _("allowed"));
    int says_query = !d.allowed && mask_reason(c, i, j, why, sizeof why);
    char who[256];
    snprintf(who, sizeof who, "%s[%d] %s %s[%d]", q, i, g->arrow, k, j);
    pad_to(who, sizeof who, 2 * (lw + iw + 2) + 3);
    snprintf(L->l1, sizeof L->l1, "%s  %s   %s", who, raw, div);
    if (d.allowed)
        snprintf(L->l2, sizeof L->l2, _("allowed   exp(%.4f %s max %.4f) = %.4f   %s %s %.4f   = weight %.4f"),
                 d.scaled, g->minus, d.row_max, d.exp, g->div, g->sigma, d.denom, d.weight);
    else if (d.row_allowed == 0)
        snprintf(L->l2, sizeof L->l2, _("%s   score %s, every key of this row is masked: all weights 0, row sum 0"),
                 why, g->neg_inf);
    else
        snprintf(L->l2, sizeof L->l2, _("%s   score %s %s exp 0 %s weight 0%s"), why, g->neg_inf, g->arrow, g->arrow,
                 says_query ? "" : _(" (this key is hidden from this query)"));
}

/* The inspector: the arithmetic of the cell under the cursor, in two lines. */
void chrome_fit(char *buf, size_t cap, int w) {
    size_t len = strlen(buf);
    if (text_width(buf, len) <= w || w < 4 || cap < 8) return;
    /* The longest prefix that ends before a " + " (a sum's terms) or else a
     * blank, with room for " …" after it. */
    const char *more = " \xe2\x80\xa6"; /* " …": 2 columns */
    size_t best = 0, best_term = 0;
    for (size_t i = 1; i < len; i++) {
        if (buf[i] != ' ') continue;
        if (text_width(buf, i) + 2 > w) break;
        best = i;
        if (i + 2 < len && buf[i + 1] == '+' && buf[i + 2] == ' ') best_term = i;
    }
    size_t cut = best_term ? best_term : best;
    if (cut == 0) { /* no blank: as many whole characters as fit */
        while (cut < len && text_width(buf, cut + 1) + 2 <= w) cut++;
        while (cut > 0 && (buf[cut] & 0xC0) == 0x80) cut--;
    }
    if (best_term) {
        snprintf(buf + cut, cap - cut, " + \xe2\x80\xa6");
        if (text_width(buf, strlen(buf)) > w) snprintf(buf + cut, cap - cut, "%s", more);
    } else {
        snprintf(buf + cut, cap - cut, "%s", more);
    }
}

static void draw_inspector(const App *a, Canvas *cv, int y) {
    if (a->m->n_q == 0) return;
    int i = a->ci, j = a->cj;
    char q[96];
    InspectLines L = {"", ""};
    const TensorInfo *ti = tensor_info(a->shown);
    if (ti->rows == SIDE_KEYS) view_klabel(a, q, sizeof q, i, 16);
    else view_qlabel(a, q, sizeof q, i, 16);
    if (a->shown == TENSOR_OUTPUT) inspect_output(a, q, i, j, &L);
    else if (ti->scope != TS_HEAD) inspect_layer(a, q, i, j, &L);
    else inspect_score(a, q, i, j, &L);
    chrome_fit(L.l1, sizeof L.l1, cv->w);
    chrome_fit(L.l2, sizeof L.l2, cv->w);
    cv_text(cv, y, 0, L.l1, cv->w, style_plain());
    cv_text(cv, y + 1, 0, L.l2, cv->w, style_plain());
}

/* Mask-edit mode: the hint line says so, in reverse video, with its keys. */
static void draw_paint_hints(Canvas *cv, int y) {
    static const char *const keys[][2] = {{N_("MASK-EDIT"), NULL}, {"Space", N_(" hide/show")}, {"C", N_(" clear")},
                                          {"u", N_(" undo")},      {"W", N_(" write")},         {"M", N_(" end")}};
    int x = 0;
    for (size_t s = 0; s < sizeof keys / sizeof *keys; s++) {
        /* The first is the mode's name, the others keys (never translated). */
        const char *key = s == 0 ? _(keys[s][0]) : keys[s][0], *what = keys[s][1] ? _(keys[s][1]) : "";
        int kw = text_width(key, strlen(key)), w = kw + text_width(what, strlen(what));
        if (x + w > cv->w) break;
        cv_text(cv, y, x, key, kw, s == 0 ? style_attr(ST_REVERSE | ST_BOLD) : style_attr(ST_BOLD));
        cv_text(cv, y, x + kw, what, w - kw, style_plain());
        x += w + 2;
    }
}

static void draw_hints(const App *a, Canvas *cv, int y) {
    if (a->painting) {
        draw_paint_hints(cv, y);
        return;
    }
    /* Hints in rank order, as many as fit, of the keys this source can use. */
    int order[64], n = 0;
    for (int i = 0; i < keymap_count && n < 64; i++)
        if (keymap[i].hint && app_action_usable(a, keymap[i].action)) order[n++] = i;
    for (int s = 1; s < n; s++)
        for (int t = s; t > 0 && keymap[order[t]].hint_rank < keymap[order[t - 1]].hint_rank; t--) {
            int tmp = order[t];
            order[t] = order[t - 1];
            order[t - 1] = tmp;
        }
    int x = 0;
    for (int s = 0; s < n; s++) {
        const char *h = _(keymap[order[s]].hint); /* "<keys> <word>": the keys up to the first blank */
        int w = text_width(h, strlen(h));
        if (x + w > cv->w) break;
        const char *sp = strchr(h, ' ');
        int kw = sp ? (int)(sp - h) : w;
        char keys[32];
        snprintf(keys, sizeof keys, "%.*s", kw, h);
        cv_text(cv, y, x, keys, kw, style_attr(ST_BOLD));
        cv_text(cv, y, x + kw, h + kw, w - kw, style_plain());
        x += w + 2;
    }
}

static void draw_prompt(const App *a, Canvas *cv, int y) {
    const char *label = a->prompt == PROMPT_PICTURE  ? _("picture (.svg .png .html): ")
                        : a->prompt == PROMPT_DK     ? _("d_k (1..4096): ")
                        : a->prompt == PROMPT_TARGET ? _("target (empty: none): ")
                        : a->prompt == PROMPT_JUMP   ? _("jump to (a position or a word): ")
                                                     : _("sentence: ");
    /* The value offered is selected (reverse video): typing replaces it;
     * the tail says so where the whole value still fits beside it. */
    static const char *const tails[] = {N_("  Enter keeps it, typing replaces it"), N_("  Enter apply, Esc cancel")};
    const char *tail = _(tails[1]);
    int x = cv_text(cv, y, 0, label, cv->w, style_attr(ST_BOLD)), tw = 0, field = 0;
    size_t from = 0, to = 0;
    int ccol = 0;
    for (size_t t = a->edit.selected ? 0 : 1; t < 2; t++) {
        tail = _(tails[t]);
        tw = text_width(tail, strlen(tail));
        field = cv->w - x - tw;
        if (field < 10) field = cv->w - x, tw = 0;
        le_view(&a->edit, field, &from, &to, &ccol);
        if (from == 0 && to == a->edit.len) break;
    }
    /* Escaped as labels are: the text may hold NULs and escape sequences
     * (le_view counts each as wide as its escape). */
    char *shown = text_safe_label(a->edit.buf + from, to - from, 0);
    if (shown) cv_text(cv, y, x, shown, field, style_attr(a->edit.selected ? ST_REVERSE : ST_UNDERLINE));
    free(shown);
    /* The cursor: a reversed cell (the terminal cursor stays hidden). */
    if (x + ccol < cv->w) {
        Cell *c = cv_cell(cv, y, x + ccol);
        c->st.attr |= ST_REVERSE;
    }
    if (tw) cv_text(cv, y, cv->w - tw, tail, tw, style_attr(ST_DIM));
}

/* With heads switched off (X, --ablate): the likeliest next tokens of the
 * model without them, each with its probability before -> after and the
 * change of its logit. 1 when drawn. */
static int draw_next_change(const App *a, Canvas *cv, int line) {
    const Model *m = a->m;
    NextChange nc[10];
    int n = m->src->next_change ? m->src->next_change(m, a->ci, 10, nc) : 0;
    if (n < 1) return 0;
    char q[64], buf[640];
    view_qlabel(a, q, sizeof q, a->ci, 16);
    /* TRANSLATORS: the heads switched off (X); then each token as "▁was 0.60→0.44 Δ-0.53": its probability before
       and after, the change of its logit */
    int at = snprintf(buf, sizeof buf, _("next after %s[%d], ablated:"), q, a->ci);
    for (int k = 0; k < n && at < (int)sizeof buf - 60; k++) {
        char raw[64], p[48], item[128];
        size_t r = utf8_show_spaces(nc[k].piece, nc[k].len, raw, sizeof raw);
        view_label(a, p, sizeof p, raw, r, 12);
        snprintf(item, sizeof item, "  %s %.2f%s%.2f %s%+.2f", p, nc[k].p_before, a->ascii ? "->" : "→", nc[k].p_after,
                 a->ascii ? "d" : "Δ", nc[k].logit_after - nc[k].logit_before);
        if (text_width(buf, (size_t)at) + text_width(item, strlen(item)) > cv->w) break;
        at += snprintf(buf + at, sizeof buf - (size_t)at, "%s", item);
    }
    cv_text(cv, line, 0, buf, cv->w, style_attr(ST_BOLD));
    return 1;
}

/* The legend, inspector and message follow the map (at `y`, or higher when
 * the map leaves no room), so the eye need not travel; the hints stay on the
 * last line. */
/* n: the model's likeliest next tokens after the cursor's row, on the line
 * under the message (or on the message's when the map leaves no other). */
static void draw_next_tokens(const App *a, Canvas *cv, int y, int H) {
    const Model *m = a->m;
    if (!m->src->next_tokens || m->n_q == 0) return;
    int line = y + 4 < H - 1 ? y + 4 : (!a->msg[0] && y + 3 < H - 1 ? y + 3 : -1);
    if (line < 0) return;
    int ids[10];
    double probs[10];
    const char *pieces[10];
    size_t lens[10];
    if (draw_next_change(a, cv, line)) return;
    int n = m->src->next_tokens(m, a->ci, 10, ids, probs, pieces, lens);
    char q[64], buf[512];
    view_qlabel(a, q, sizeof q, a->ci, 16);
    int at = snprintf(buf, sizeof buf, _("next after %s[%d]:"), q, a->ci);
    for (int k = 0; k < n && at < (int)sizeof buf - 40; k++) {
        /* Spaces as the tokenizer's ▁, as the labels show them. */
        char raw[64], p[48];
        size_t r = utf8_show_spaces(pieces[k], lens[k], raw, sizeof raw);
        view_label(a, p, sizeof p, raw, r, 12);
        char item[96];
        snprintf(item, sizeof item, "  %s %.2f", p, probs[k]);
        /* As many whole tokens as the line holds. */
        if (text_width(buf, (size_t)at) + text_width(item, strlen(item)) > cv->w) break;
        at += snprintf(buf + at, sizeof buf - (size_t)at, "%s", item);
    }
    cv_text(cv, line, 0, buf, cv->w, style_attr(ST_BOLD));
}

void chrome_draw_bottom(const App *a, Canvas *cv, const ShownMat *sm, int y) {
    int H = cv->h;
    if (a->present) { /* projector mode: the legend and the message (or the prompt) only */
        if (y > H - 1) y = H - 1;
        if (y < TOP_LINES - 1) y = TOP_LINES - 1;
        /* on the last line the message or prompt takes the legend's place */
        if (sm && (y < H - 1 || (a->prompt == PROMPT_NONE && !a->msg[0]))) draw_legend(a, cv, y, sm);
        if (a->prompt != PROMPT_NONE) draw_prompt(a, cv, H - 1);
        else if (a->msg[0]) {
            char *safe = text_safe_label(a->msg, strlen(a->msg), 0);
            char line[1024];
            snprintf(line, sizeof line, "%s", safe ? safe : "");
            chrome_fit(line, sizeof line, cv->w);
            cv_text(cv, H - 1, 0, line, cv->w, style_attr(ST_BOLD));
            free(safe);
        }
        return;
    }
    if (y > H - BOTTOM_LINES) y = H - BOTTOM_LINES;
    if (y < TOP_LINES) y = TOP_LINES;
    if (sm) draw_legend(a, cv, y, sm);
    if (view_shown(a)->flags & VIEW_INSPECTOR) draw_inspector(a, cv, y + 1);
    else y = H - 5; /* pages without a map: only the message and the hints */
    if (a->show_next && (view_shown(a)->flags & VIEW_INSPECTOR)) draw_next_tokens(a, cv, y, H);
    if (a->msg[0]) {
        char *safe = text_safe_label(a->msg, strlen(a->msg), 0);
        char line[1024];
        snprintf(line, sizeof line, "%s", safe ? safe : "");
        chrome_fit(line, sizeof line, cv->w); /* shorter at a word, never cut mid-word */
        Style st = style_attr(ST_BOLD);
        if (a->msg_error && a->tier != TIER_NONE) st.fg = 1; /* red */
        cv_text(cv, y + 3, 0, line, cv->w, st);
        free(safe);
    }
    if (a->prompt != PROMPT_NONE) draw_prompt(a, cv, H - 1);
    else draw_hints(a, cv, H - 1);
}
