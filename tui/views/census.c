/* census.c - the head census view (H): every layer and head of the model in
 * one table, scored on the current sentence by src/core/census.c (previous token,
 * sink, self, the weight after an earlier copy "ind@text", entropy), to find
 * the heads worth a look. A trained model's census shows first the field's
 * head tests on the named batteries (census_battery.h: previous, duplicate,
 * induction "mul", induction on repeated random tokens, sink), then, apart
 * and labelled "on your text", its sentence's prev, sink and ind@text, and
 * the ablation sweep's drop (census_battery.h: each head alone off, the fall
 * of the logit of the likeliest next token); two lines above the heading
 * say which batteries (size, seed) and which columns are which, lines under
 * the table the induction threshold and what the drop is.
 *
 *   row 3        the heading: layer, head, one column per score; the sort
 *                column is marked ↓ (ASCII v) and underlined
 *   rows 4..     one row per (layer, head) in the sort's order, scrolled to
 *                keep the selected row (marked >) in sight; each score as a
 *                number coloured on the weights' ramp (H on 0..its largest
 *                possible value) and a bar as long as the value; the largest
 *                of each column in bold and underlined; an undefined
 *                induction (no token repeats) as — (ASCII -), sorted last
 *   then         which rows are shown, and what induction found to score (at
 *                H-3 when the table fills the screen)
 *
 * Keys: Up/Down, PgUp/PgDn, Home/End move the selection; Left/Right choose
 * the sort column (layer and head: the natural order; the scores: largest
 * first) and select the row that leads it; Enter opens the selected head's weights in the heatmap, the cursor
 * on the last row's heaviest key (the last row is what predicts the next
 * token). Other keys (Esc, a, c, Tab...) are the global ones; a change of the
 * head shown (Tab, 1-9, {, }) moves the selection to it.
 *
 * The census is kept between frames (CensusView) and made again when the
 * weights were recomputed (the model's count of weight passes) or the shape
 * changed: a cursor key does not rescore 40 heads. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "census.h"
#include "census_battery.h"
#include "chrome.h"
#include "i18n.h"
#include "source_trained.h"
#include "text.h"
#include "view.h"
#include "widgets.h"

#define G view_glyphs

/* The sort columns: the two labels, then the scores (Column). */
enum { COL_LAYER, COL_HEAD, COL_SCORE0, COL_MAX = COL_SCORE0 + 10 };

/* Rows of the view besides the table's rows: heading and footer (a trained
 * model's census: two header lines and a footer line more). */
enum { CENSUS_CHROME = 2, TRAINED_CHROME = 4, BAR_MAX = 12 };

/* A score column: of the sentence's census (CensusScore), of the batteries
 * (HeadTestScore), or the ablation sweep's drop. */
enum { ON_TEXT, ON_BATTERY, ON_SWEEP };
typedef struct {
    int battery; /* ON_* */
    int score;
} Column;

static const Column text_columns[] = {
    {0, CENSUS_PREV}, {0, CENSUS_SINK}, {0, CENSUS_SELF}, {0, CENSUS_INDUCTION}, {0, CENSUS_ENTROPY},
};
static const Column trained_columns[] = {
    {1, HT_PREV},     {1, HT_DUPLICATE}, {1, HT_INDUCTION_MUL}, {1, HT_INDUCTION}, {1, HT_SINK},
    {0, CENSUS_PREV}, {0, CENSUS_SINK},  {0, CENSUS_INDUCTION}, {ON_SWEEP, 0},
};
enum { TRAINED_BATTERY_COLS = 5 };

typedef struct {
    Census c;                  /* the scores (owned) */
    CensusBattery bat;         /* a trained model's batteries (owned) */
    CensusSweep sweep;         /* its ablation sweep (owned) */
    double drop_max;           /* the sweep's largest drop, for the colours */
    const Column *cols;        /* the score columns: text_columns or trained_columns */
    int ncols;                 /* how many */
    int *order;                /* (c.n) rows in the sort's order (owned) */
    int made;                  /* c and order hold a census of the model as keyed below */
    unsigned long weights_at;  /* the model's count of weight passes then */
    int n, layers, heads;      /* its tokens and shape then */
    char why[192];             /* why there is no census ("" when there is) */
    int sort;                  /* COL_LAYER, COL_HEAD, or COL_SCORE0 + a column */
    int sel;                   /* selected position in order */
    int top;                   /* first position shown */
    int page;                  /* rows the last frame showed (PgUp/PgDn) */
    int seen_layer, seen_head; /* the head shown when the selection last followed it (-1: never) */
} CensusView;

static CensusView *data_of(const App *a) { return a->view_data[VIEW_CENSUS]; }

/* One paragraph (the help wraps it), translated where drawn (help.c). */
static const char *const about[] = {
    N_("Every layer and head scored on this sentence. prev: mean weight on the previous token; sink: on the first "
       "token; self: on itself (rows i >= 1 all three: under the causal mask row 0 sees only itself); ind@text: on "
       "the token after an earlier copy of the current one in your text (j + 1 < i; - when no token repeats), not "
       "the field's induction score; H: mean entropy in bits. A trained model's census shows first the field's head "
       "tests on built-in batteries (--dump=heads): prev, dup (earlier copies of the token), ind-mul (the token "
       "after an earlier copy) and sink on 12 sentences of prose, induct on 10 seeded sequences of repeated random "
       "tokens, where a head above 0.4 is an induction head; then prev, sink and ind@text on your text, and drop: "
       "how much the logit of the model's likeliest next token after the last one falls when that head alone is "
       "switched off (its output zeroed, as X does; --dump=sweep). "
       "Left/Right sort, Enter opens. Random heads show no structure. A shows each head's class from the numbers "
       "on your text."),
    NULL};

/* The columns' names as the heading, the title and the messages say them:
 * layer, head (the catalogue's counted nouns), then the scores in the
 * reader's language (census_score_name; the batteries' names here). */
static const char *column_name(const CensusView *d, int col) {
    if (col == COL_LAYER) return P_("layer", "layers", 1);
    if (col == COL_HEAD) return P_("head", "heads", 1);
    const Column *c = &d->cols[col - COL_SCORE0];
    if (c->battery == ON_TEXT) return census_score_name((CensusScore)c->score);
    if (c->battery == ON_SWEEP) return _("drop");
    static const char *const names[HT_COUNT] = {
        [HT_PREV] = N_("prev"), [HT_DUPLICATE] = N_("dup"),    [HT_INDUCTION_MUL] = N_("ind-mul"),
        [HT_SINK] = N_("sink"), [HT_INDUCTION] = N_("induct"),
    };
    return _(names[c->score]);
}

static int census_init(App *a) {
    CensusView *d = calloc(1, sizeof *d);
    if (!d) return -1;
    d->sort = COL_LAYER;
    d->seen_layer = d->seen_head = -1;
    d->cols = text_columns, d->ncols = (int)(sizeof text_columns / sizeof *text_columns);
    a->view_data[VIEW_CENSUS] = d;
    return 0;
}

static void census_view_free(App *a) {
    CensusView *d = data_of(a);
    if (!d) return;
    census_free(&d->c);
    census_battery_free(&d->bat);
    census_sweep_free(&d->sweep);
    free(d->order);
    free(d);
    a->view_data[VIEW_CENSUS] = NULL;
}

// ----------------------------------------------------------------------------
// the census and its order

/* Score column c of row i: NAN where undefined or not computed yet. */
static double value_of(const CensusView *d, int c, int i) {
    const Column *col = &d->cols[c];
    if (col->battery == ON_TEXT) return d->c.rows[i].score[col->score];
    if (col->battery == ON_SWEEP) return census_sweep_drop(&d->sweep, d->c.rows[i].layer, d->c.rows[i].head);
    const HeadReport *r = census_battery_report(&d->bat);
    return r && i < r->n ? r->rows[i].score[col->score] : NAN;
}

/* The row of (layer, head) in the sort's order, or 0. */
static int position_of(const CensusView *d, int layer, int head) {
    for (int p = 0; p < d->c.n; p++) {
        const CensusRow *r = &d->c.rows[d->order[p]];
        if (r->layer == layer && r->head == head) return p;
    }
    return 0;
}

static void sort_rows(CensusView *d) {
    const Census *c = &d->c;
    if (d->sort >= COL_SCORE0) {
        double *v = malloc(sizeof *v * (size_t)(c->n ? c->n : 1));
        for (int i = 0; v && i < c->n; i++) v[i] = value_of(d, d->sort - COL_SCORE0, i);
        if (v) {
            census_order(d->order, v, c->n);
            free(v);
            return;
        }
    }
    /* layer order, or head order (head 1 of every layer first); out of memory: layer order */
    int p = 0;
    if (d->sort != COL_HEAD)
        for (int i = 0; i < c->n; i++) d->order[p++] = i;
    else
        for (int h = 0; h < d->heads; h++)
            for (int l = 0; l < d->layers; l++) d->order[p++] = l * d->heads + h;
}

/* The score columns of the model: a trained model's batteries and text, or
 * the text's alone (the sort back to the layers when they change). */
static void choose_columns(CensusView *d, const App *a) {
    int trained = model_trained_engine(a->m) != NULL;
    const Column *cols = trained ? trained_columns : text_columns;
    if (cols == d->cols) return;
    d->cols = cols;
    d->ncols = trained ? (int)(sizeof trained_columns / sizeof *trained_columns)
                       : (int)(sizeof text_columns / sizeof *text_columns);
    d->sort = COL_LAYER;
}

/* Makes the census again when the weights or the shape changed since. */
static void refresh(CensusView *d, const App *a) {
    const Model *m = a->m;
    if (m->stale <= STAGE_WEIGHTS) return; /* not up to date: the last one stays */
    choose_columns(d, a);
    unsigned long at = m->computed[STAGE_WEIGHTS];
    if (d->made && d->weights_at == at && d->n == m->n_q && d->layers == m->cfg.layers && d->heads == m->cfg.heads)
        return;
    census_free(&d->c);
    free(d->order);
    d->order = NULL;
    d->made = 1, d->weights_at = at, d->n = m->n_q, d->layers = m->cfg.layers, d->heads = m->cfg.heads;
    d->why[0] = '\0';
    AvError err = {0};
    if (census_compute(&d->c, m, &err) == 0 && !(d->order = malloc(sizeof *d->order * (size_t)d->c.n))) {
        census_free(&d->c);
        snprintf(err.msg, sizeof err.msg, "%s", _("census: out of memory"));
    }
    if (!d->order) {
        snprintf(d->why, sizeof d->why, "%s", err.msg);
        return;
    }
    sort_rows(d);
    if (d->sel >= d->c.n) d->sel = d->c.n - 1;
    d->seen_layer = -1; /* a new census: select the head shown again */
}

/* The batteries of a trained model, a frame's share of them; when they are
 * done, sorted by a battery column the order is made again (the selected
 * head stays selected). */
static void battery_work(CensusView *d, App *a) {
    int done = census_battery_work(&d->bat, a);
    done |= census_sweep_work(&d->sweep, &d->bat, a);
    if (!done || !d->order || d->sort < COL_SCORE0) return;
    const CensusRow *r = &d->c.rows[d->order[d->sel]];
    int layer = r->layer, head = r->head;
    sort_rows(d);
    d->sel = position_of(d, layer, head);
}

/* The selection follows the head shown when that changes. */
static void follow_shown(CensusView *d, const App *a) {
    if (!d->order || (d->seen_layer == a->m->layer && d->seen_head == a->head)) return;
    d->seen_layer = a->m->layer, d->seen_head = a->head;
    d->sel = position_of(d, a->m->layer, a->head);
}

const Census *view_census_of(App *a, const char **why) {
    CensusView *d = data_of(a);
    if (!d) return *why = _("census: out of memory"), NULL;
    refresh(d, a);
    if (!d->order) return *why = d->why[0] ? d->why : _("census: not computed yet"), NULL;
    return &d->c;
}

// ----------------------------------------------------------------------------
// drawing

/* The table's geometry at width w. */
typedef struct {
    int lx, lw;      /* layer column: x, width */
    int hx, hw;      /* head column */
    int x[COL_MAX];  /* each score column's x (number, blank, bar, gap) */
    int sw[COL_MAX]; /* and width */
    int sep;         /* a trained model's: the x of the line between the batteries and the text (0: none) */
    int numw;        /* columns of a number */
    int barw;        /* columns of a bar */
} Geom;

static int digits(int n) {
    int k = 1;
    while (n >= 10) n /= 10, k++;
    return k;
}

/* The heading of score column c, with the sort mark when sorted by it
 * (mark 0: never). */
static void heading_text(const App *a, const CensusView *d, int c, int barw, int mark_it, char *buf, size_t cap) {
    int sorted = mark_it && COL_SCORE0 + c == d->sort;
    const char *mark = !sorted ? "" : a->ascii ? "v" : "↓";
    const Column *col = &d->cols[c];
    if (col->battery == ON_TEXT && col->score == CENSUS_ENTROPY && barw >= 5) snprintf(buf, cap, _("H bits%s"), mark);
    else snprintf(buf, cap, "%s%s", column_name(d, COL_SCORE0 + c), mark);
}

/* Score columns as wide as a number, its bar and a gap, or their heading
 * and a blank when that is wider; the bars as long as the width allows (at
 * most BAR_MAX). */
static void geometry(Geom *g, const App *a, const CensusView *d, int w) {
    memset(g, 0, sizeof *g);
    g->lx = 2;
    g->lw = 2 * digits(d->layers) + 1;
    if (g->lw < 5) g->lw = 5; /* "layer" */
    g->hx = g->lx + g->lw + 2;
    g->hw = 2 * digits(d->heads) + 1;
    if (g->hw < 4) g->hw = 4; /* "head" */
    int sx = g->hx + g->hw + 2, sep = d->cols == trained_columns ? 2 : 0;
    g->numw = d->c.max_entropy >= 9.995 ? 5 : 4; /* "12.00" bits beside "0.97" */
    for (g->barw = BAR_MAX; g->barw >= 0; g->barw--) {
        int x = sx;
        g->sep = 0;
        for (int c = 0; c < d->ncols; c++) {
            char buf[64];
            heading_text(a, d, c, g->barw, 0, buf, sizeof buf);
            int need = text_width(buf, strlen(buf)) + 2; /* the sort mark and a blank */
            int sw = g->numw + (g->barw ? 1 + g->barw : 0) + 2;
            if (c == TRAINED_BATTERY_COLS && sep) g->sep = x, x += sep;
            g->x[c] = x, g->sw[c] = sw > need ? sw : need;
            x += g->sw[c];
        }
        if (x <= w || g->barw == 0) break;
    }
}

/* Value v of score column c on 0..1 for its colour and bar. */
static double unit_value(const CensusView *d, int c, double v) {
    const Column *col = &d->cols[c];
    if (col->battery == ON_TEXT && col->score == CENSUS_ENTROPY)
        return d->c.max_entropy > 0 ? v / d->c.max_entropy : 0.0;
    if (col->battery == ON_SWEEP) return d->drop_max > 0 && v > 0 ? v / d->drop_max : 0.0;
    return v;
}

static void draw_heading(const App *a, Canvas *cv, int y, const CensusView *d, const Geom *g) {
    const char *mark = a->ascii ? "v" : "↓";
    char buf[64];
    for (int col = 0; col < COL_SCORE0 + d->ncols; col++) {
        int sorted = col == d->sort, x, room;
        if (col < COL_SCORE0) {
            snprintf(buf, sizeof buf, "%s%s", column_name(d, col), sorted ? mark : "");
            x = col == COL_LAYER ? g->lx : g->hx;
            room = col == COL_LAYER ? g->lw + 1 : g->hw + 1;
        } else {
            heading_text(a, d, col - COL_SCORE0, g->barw, 1, buf, sizeof buf);
            x = g->x[col - COL_SCORE0], room = g->sw[col - COL_SCORE0] - 1;
        }
        cv_text(cv, y, x, buf, room, style_attr(sorted ? ST_BOLD | ST_UNDERLINE : ST_BOLD));
    }
    if (g->sep) cv_text(cv, y, g->sep, G(a)->vbar, 1, style_attr(ST_DIM));
}

/* A trained model's two lines over the heading: the batteries (their
 * names, sizes and seed, or the progress), and which columns are on them
 * and which on your text. */
static void draw_groups(const App *a, Canvas *cv, int y, const CensusView *d, const Geom *g) {
    char buf[256];
    census_battery_header(&d->bat, buf, sizeof buf);
    cv_text(cv, y, 2, buf, cv->w - 2, style_attr(ST_DIM));
    const char *on_bat = _("on the batteries"), *on_text = _("on your text");
    int end = g->sep ? g->sep : cv->w;
    cv_text(cv, y + 1, g->x[0], on_bat, end - g->x[0] - 1, style_attr(ST_BOLD));
    if (g->sep) {
        cv_text(cv, y + 1, g->sep, G(a)->vbar, 1, style_attr(ST_DIM));
        cv_text(cv, y + 1, g->x[TRAINED_BATTERY_COLS], on_text, cv->w - g->x[TRAINED_BATTERY_COLS],
                style_attr(ST_BOLD));
    }
}

/* One score cell: the coloured number and its bar. */
static void draw_score(const App *a, Canvas *cv, int y, int x, const CensusView *d, const Geom *g, int c, double v,
                       int best) {
    char num[16];
    const Column *col = &d->cols[c];
    if (isnan(v)) {
        int working = (col->battery == ON_BATTERY && d->bat.job) || (col->battery == ON_SWEEP && d->sweep.job);
        const char *none = working ? (a->ascii ? "..." : "…") : a->ascii ? "-" : "—";
        cv_text_right(cv, y, x, none, g->numw, style_attr(ST_DIM));
        return;
    }
    if (col->battery == ON_TEXT && col->score == CENSUS_ENTROPY)
        snprintf(num, sizeof num, "%.*f", v >= 9.995 ? 1 : 2, v);
    else if (col->battery == ON_SWEEP && snprintf(num, sizeof num, "%.1f", v) > g->numw)
        snprintf(num, sizeof num, "%.0f", v); /* a logit's fall: one decimal, none past 9.9 */
    else if (col->battery != ON_SWEEP) snprintf(num, sizeof num, "%.2f", v);
    double t = unit_value(d, c, v);
    ShownMat sm = {0};
    sm.hi = 1;
    const char *glyph;
    Style st = view_value_style(a, &sm, t, &glyph);
    if (best) st.attr |= ST_BOLD | ST_UNDERLINE;
    cv_text_right(cv, y, x, num, g->numw, st);
    int len = (int)lround((t < 0 ? 0 : t > 1 ? 1 : t) * g->barw);
    if (!len) return;
    Style bar = style_plain();
    short fg = a->tier != TIER_NONE ? palette_seq(a->tier, t).bg : -1;
    if (fg != 0 && fg != 16) bar.fg = fg; /* black bars vanish on a dark terminal: the default colour then */
    cv_fill(cv, y, x + g->numw + 1, len, G(a)->bar, bar);
}

static void draw_row(const App *a, Canvas *cv, int y, const CensusView *d, const Geom *g, int p, const int *best) {
    int i = d->order[p];
    const CensusRow *r = &d->c.rows[i];
    int selected = p == d->sel;
    char buf[32];
    Style lab = style_attr(selected ? ST_REVERSE | ST_BOLD : 0);
    if (selected) {
        cv_text(cv, y, 0, ">", 1, style_attr(ST_BOLD));
        cv_fill(cv, y, g->lx - 1, g->x[0] - g->lx, " ", lab);
    }
    snprintf(buf, sizeof buf, "%d/%d", r->layer + 1, d->layers);
    cv_text_right(cv, y, g->lx, buf, g->lw, lab);
    snprintf(buf, sizeof buf, "%d/%d", r->head + 1, d->heads);
    cv_text_right(cv, y, g->hx, buf, g->hw, lab);
    for (int c = 0; c < d->ncols; c++) draw_score(a, cv, y, g->x[c], d, g, c, value_of(d, c, i), best[c] == i);
    if (g->sep) cv_text(cv, y, g->sep, G(a)->vbar, 1, style_attr(ST_DIM));
}

/* Rows the table can show between the heading (row y0) and the footer. */
static int table_rows(const Canvas *cv, const CensusView *d, int y0) {
    return cv->h - 2 - 1 - (y0 + 1) - (d->cols == trained_columns ? TRAINED_CHROME : 0);
}

static void scroll_to_selection(CensusView *d, int rows) {
    if (rows < 1) rows = 1;
    if (d->sel < d->top) d->top = d->sel;
    if (d->sel >= d->top + rows) d->top = d->sel - rows + 1;
    if (d->top > d->c.n - rows) d->top = d->c.n - rows;
    if (d->top < 0) d->top = 0;
}

static void draw_footer(const App *a, Canvas *cv, int y, const CensusView *d, int shown) {
    char buf[256];
    int n = snprintf(buf, sizeof buf, _("rows %d-%d of %d"), shown ? d->top + 1 : 0, d->top + shown, d->c.n);
    n += snprintf(buf + n, sizeof buf - (size_t)n, "   ");
    int r = d->c.repeat_rows;
    if (r == 0)
        snprintf(buf + n, sizeof buf - (size_t)n, _("ind@text %s: no token of this sentence repeats"),
                 a->ascii ? "-" : "—");
    else
        snprintf(buf + n, sizeof buf - (size_t)n,
                 P_("ind@text: %d row with an earlier copy of its token",
                    "ind@text: %d rows with an earlier copy of their token", r),
                 r);
    cv_text(cv, y, 0, buf, cv->w, style_attr(ST_DIM));
    if (d->cols != trained_columns) return;
    census_battery_legend(&d->bat, a->ascii, buf, sizeof buf);
    cv_text(cv, y + 1, 0, buf, cv->w, style_attr(ST_DIM));
    census_sweep_legend(&d->sweep, a, buf, sizeof buf);
    chrome_fit(buf, sizeof buf, cv->w);
    cv_text(cv, y + 2, 0, buf, cv->w, style_attr(ST_DIM));
}

static void census_draw(App *a, Canvas *cv) {
    CensusView *d = data_of(a);
    int y0 = TOP_LINES;
    if (!d) {
        cv_text(cv, y0 + 1, 2, _("census: out of memory"), cv->w - 2, style_attr(ST_BOLD));
    } else {
        refresh(d, a);
        if (d->cols == trained_columns) battery_work(d, a);
        follow_shown(d, a);
    }
    if (d && !d->order) cv_text_wrap(cv, y0 + 1, 2, d->why, cv->w - 2, 2, style_attr(ST_BOLD));
    if (!d || !d->order) {
        chrome_draw_bottom(a, cv, NULL, cv->h - 2);
        return;
    }
    Geom g;
    geometry(&g, a, d, cv->w);
    int rows = table_rows(cv, d, y0);
    if (rows < 1) rows = 1;
    d->page = rows;
    scroll_to_selection(d, rows);
    int best[COL_MAX];
    d->drop_max = 0;
    for (int i = 0; i < d->c.n && d->cols == trained_columns; i++) {
        double v = census_sweep_drop(&d->sweep, d->c.rows[i].layer, d->c.rows[i].head);
        if (v > d->drop_max) d->drop_max = v;
    }
    for (int c = 0; c < d->ncols; c++) {
        best[c] = -1;
        for (int i = 0; i < d->c.n; i++) {
            double v = value_of(d, c, i);
            if (!isnan(v) && (best[c] < 0 || v > value_of(d, c, best[c]))) best[c] = i;
        }
    }
    if (d->cols == trained_columns) draw_groups(a, cv, y0, d, &g), y0 += 2;
    draw_heading(a, cv, y0, d, &g);
    int shown = 0;
    for (int p = d->top; p < d->c.n && shown < rows; p++, shown++) draw_row(a, cv, y0 + 1 + shown, d, &g, p, best);
    draw_footer(a, cv, y0 + 1 + shown, d, shown); /* right under the table, as the legend under a map */
    chrome_draw_bottom(a, cv, NULL, cv->h - 2);
}

// ----------------------------------------------------------------------------
// keys

/* Enter: the heatmap of the selected head's weights, the cursor on the last
 * row's heaviest key. */
static void open_selected(App *a, CensusView *d) {
    const CensusRow *r = &d->c.rows[d->order[d->sel]];
    Model *m = a->m;
    if (r->layer >= m->cfg.layers || r->head >= m->cfg.heads || m->n_q < 1) return; /* the shape changed since */
    model_set_layer(m, r->layer);
    a->head = r->head;
    a->view = VIEW_HEATMAP;
    a->shown = TENSOR_WEIGHTS;
    const float *last = model_layer_heads(m, r->layer)[r->head].weights + (size_t)(m->n_q - 1) * m->n_k;
    int top = 0;
    for (int j = 1; j < m->n_k; j++)
        if (last[j] > last[top]) top = j;
    a->ci = m->n_q - 1, a->cj = top;
    snprintf(a->msg, sizeof a->msg, _("layer %d head %d, from the census sorted by %s"), r->layer + 1, r->head + 1,
             column_name(d, d->sort));
    a->msg_error = 0;
}

static int census_key(App *a, Action act) {
    CensusView *d = data_of(a);
    if (!d) return VIEW_KEY_PASS;
    refresh(d, a);
    follow_shown(d, a);
    if (!d->order) return VIEW_KEY_PASS;
    int n = d->c.n, page = d->page > 1 ? d->page - 1 : 1, at = d->sel, cols = COL_SCORE0 + d->ncols;
    switch (act) {
    case ACT_UP: at--; break;
    case ACT_DOWN: at++; break;
    case ACT_PAGE_UP: at -= page; break;
    case ACT_PAGE_DOWN: at += page; break;
    case ACT_HOME: at = 0; break;
    case ACT_END: at = n - 1; break;
    case ACT_LEFT:
    case ACT_RIGHT: {
        d->sort = (d->sort + (act == ACT_LEFT ? cols - 1 : 1)) % cols;
        sort_rows(d);
        d->sel = d->top = 0; /* the head that leads the new order: Enter opens it */
        return 1;
    }
    case ACT_OPEN: open_selected(a, d); return 1;
    default: return VIEW_KEY_PASS;
    }
    d->sel = at < 0 ? 0 : at >= n ? n - 1 : at;
    return 1;
}

// ----------------------------------------------------------------------------
// the entry

static void census_title(const App *a, char *buf, size_t cap) {
    const CensusView *d = data_of(a);
    int sort = d ? d->sort : COL_LAYER;
    const char *by = d ? column_name(d, sort) : P_("layer", "layers", 1);
    const char *largest = sort >= COL_SCORE0 ? _(", largest first") : "";
    int heads = a->m->cfg.layers * a->m->cfg.heads;
    /* TRANSLATORS: the count, the sort column, ", largest first" or nothing, the arrow keys */
    snprintf(buf, cap,
             P_("head census, %d head by %s%s  %s sort  Enter open",
                "head census, %d heads by %s%s  %s sort  Enter open", heads),
             heads, by, largest, a->ascii ? "Left/Right" : "←/→");
}

static Stage census_needed_stage(const App *a) {
    (void)a;
    return STAGE_WEIGHTS;
}

static int census_natural_height(const App *a, int w) {
    (void)w;
    int trained = model_trained_engine(a->m) != NULL;
    return TOP_LINES + CENSUS_CHROME + (trained ? TRAINED_CHROME : 0) + a->m->cfg.layers * a->m->cfg.heads + 2;
}

const View view_census = {
    .name = "census",
    .about = about,
    .needed_stage = census_needed_stage,
    .title = census_title,
    .draw = census_draw,
    .key = census_key,
    .natural_height = census_natural_height,
    .init = census_init,
    .free = census_view_free,
};
