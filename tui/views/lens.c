/* lens.c - the logit lens view (U, --view lens) of a trained model: every
 * layer's residual stream read through the final norm and the unembedding
 * (src/trained/lens.h), as a grid of layers x positions.
 *
 *   row 3        the positions' tokens (the input), the cursor's reversed
 *   rows 4..     one row per layer: "embed" (the embeddings), then layer 1 ..
 *                L (the residual after it); each cell the likeliest next
 *                token read there, coloured by its probability (the
 *                weights' ramp, or shades without colour); the last row is
 *                the model's own prediction; the cursor's cell reversed
 *   then         the legend, the cursor's cell in words, and how the
 *                probability of the model's choice at the cursor's position
 *                grows layer by layer
 *
 * Keys: Left/Right the position (the cursor's row of the other views),
 * Up/Down the layer, Enter opens that layer's heatmap at that row. The lens
 * is kept between frames (LensView) while the model's layers stay as they
 * were computed (the count of final passes): a cursor key reads it again,
 * an edit, a mask or an ablation (X) computes it again, so the lens of an
 * ablated model is the ablated model's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chrome.h"
#include "i18n.h"
#include "lens.h"
#include "source_trained.h"
#include "text.h"
#include "utf8.h"
#include "view.h"
#include "widgets.h"

enum { CELL_W = 8, LABEL_W = 7, OWN_LINES = 3 };

typedef struct {
    Lens lens;              /* (owned) */
    const TfModel *model;   /* what it was computed for */
    unsigned long final_at; /* the model's count of final passes then */
    int n;                  /* its rows then */
    char why[192];          /* why there is none */
    int row;                /* the cursor's row of the lens (0: embed .. L) */
    int col0;               /* the first position shown */
} LensView;

static LensView *ldata(const App *a) { return a->view_data[VIEW_LENS]; }

static int lens_init(App *a) {
    LensView *d = calloc(1, sizeof *d);
    if (!d) return -1;
    d->row = -1; /* the last row at first: the model's prediction */
    a->view_data[VIEW_LENS] = d;
    return 0;
}

static void lens_view_free(App *a) {
    LensView *d = ldata(a);
    if (d) lens_free(&d->lens);
    free(d);
    a->view_data[VIEW_LENS] = NULL;
}

static const char *const about[] = {
    N_("The logit lens of a trained model: each layer's residual stream read as if it were the last, through the "
       "final norm and the unembedding (nostalgebraist 2020). A row per layer (embed: the embeddings; then after "
       "each layer), a column per position; each cell the likeliest next token read there, coloured by its "
       "probability. The last row is the model's own prediction; the line under the grid follows the probability "
       "of that token up the layers. Left/Right the position, Up/Down the layer, Enter opens that layer. With heads "
       "switched off (X) it is the ablated model's. --dump=lens writes it."),
    NULL};

static int lens_available(const App *a, const char **why) {
    if (model_trained_engine(a->m)) return 1;
    if (why) *why = _("the logit lens reads a trained model's layers (--model PATH)");
    return 0;
}

/* The lens again when the layers were computed again since. */
static void refresh(LensView *d, const App *a) {
    const Model *m = a->m;
    const TfModel *tm = model_trained_engine(m);
    if (!tm || m->stale != STAGE_NONE) return; /* not up to date: the last one stays */
    unsigned long at = m->computed[STAGE_FINAL];
    if (d->model == tm && d->final_at == at && d->n == m->n_q && (d->lens.cells || d->why[0])) return;
    lens_free(&d->lens);
    d->model = tm, d->final_at = at, d->n = m->n_q, d->why[0] = '\0';
    AvError err = {0};
    if (lens_compute(model_trained_run(m), LENS_CHOICE, &d->lens, &err)) snprintf(d->why, sizeof d->why, "%s", err.msg);
    if (d->row < 0 || d->row >= d->lens.rows) d->row = d->lens.rows - 1;
}

// ----------------------------------------------------------------------------
// drawing

/* Token id's screen form in at most cols columns. */
static void piece_label(const App *a, char *out, size_t cap, int id, int cols) {
    size_t len;
    const char *p = model_token_piece(a->m, id, &len);
    char raw[64];
    size_t r = utf8_show_spaces(p, len, raw, sizeof raw);
    view_label(a, out, cap, raw, r, cols);
}

static void row_name(const LensView *d, int row, char *buf, size_t cap) {
    if (row == 0) snprintf(buf, cap, "%s", _("embed"));
    else snprintf(buf, cap, _("layer %d"), row);
    (void)d;
}

static void draw_grid(App *a, Canvas *cv, int y0, LensView *d, int rows_room) {
    const Lens *l = &d->lens;
    int cols = (cv->w - LABEL_W - 1) / CELL_W, ci = a->ci < l->n ? a->ci : l->n - 1;
    if (cols < 1) cols = 1;
    if (ci < d->col0) d->col0 = ci;
    if (ci >= d->col0 + cols) d->col0 = ci - cols + 1;
    if (d->col0 > l->n - cols) d->col0 = l->n - cols;
    if (d->col0 < 0) d->col0 = 0;
    char buf[64];
    for (int c = 0; c < cols && d->col0 + c < l->n; c++) {
        int j = d->col0 + c;
        view_qlabel(a, buf, sizeof buf, j, CELL_W - 1);
        cv_text(cv, y0, LABEL_W + 1 + c * CELL_W, buf, CELL_W - 1,
                style_attr(j == ci ? ST_REVERSE | ST_BOLD : ST_BOLD));
    }
    /* the rows that fit: the last ones (the prediction) first to stay */
    int first = l->rows > rows_room ? l->rows - rows_room : 0;
    if (d->row < first) first = d->row;
    ShownMat sm = {0};
    sm.hi = 1;
    for (int r = first, y = y0 + 1; r < l->rows && y < y0 + 1 + rows_room; r++, y++) {
        row_name(d, r, buf, sizeof buf);
        cv_text(cv, y, 0, buf, LABEL_W, style_attr(r == d->row ? ST_REVERSE | ST_BOLD : ST_BOLD));
        for (int c = 0; c < cols && d->col0 + c < l->n; c++) {
            const LensCell *cell = lens_cell(l, r, d->col0 + c);
            const char *glyph;
            Style st = view_value_style(a, &sm, cell->prob, &glyph);
            int x = LABEL_W + 1 + c * CELL_W;
            if (r == d->row && d->col0 + c == ci) st.attr |= ST_REVERSE | ST_BOLD;
            if (glyph) cv_fill(cv, y, x, CELL_W - 1, glyph, style_attr(ST_DIM)); /* shades without colour */
            else cv_fill(cv, y, x, CELL_W - 1, " ", st);
            piece_label(a, buf, sizeof buf, cell->id, CELL_W - 1);
            cv_text(cv, y, x, buf, CELL_W - 1, glyph ? st : st);
        }
    }
}

/* Under the grid: the cursor's cell, and the model's choice there layer by
 * layer. */
static void draw_detail(App *a, Canvas *cv, int y, const LensView *d) {
    const Lens *l = &d->lens;
    int ci = a->ci < l->n ? a->ci : l->n - 1;
    const LensCell *cell = lens_cell(l, d->row, ci), *last = lens_cell(l, l->rows - 1, ci);
    char where[64], q[64], tok[64], buf[512];
    row_name(d, d->row, where, sizeof where);
    view_qlabel(a, q, sizeof q, ci, 16);
    piece_label(a, tok, sizeof tok, cell->id, 16);
    /* TRANSLATORS: "layer 3 after ▁Lily[7]: ▁was 0.31" */
    snprintf(buf, sizeof buf, _("%s after %s[%d]: %s %.2f"), where, q, ci, tok, cell->prob);
    cv_text(cv, y, 0, buf, cv->w, style_attr(ST_BOLD));
    piece_label(a, tok, sizeof tok, last->id, 16);
    int at = snprintf(buf, sizeof buf, _("the model's choice %s, layer by layer:"), tok);
    for (int r = 0; r < l->rows && at < (int)sizeof buf - 16; r++)
        at += snprintf(buf + at, sizeof buf - (size_t)at, " %.2f", lens_cell(l, r, ci)->token_prob);
    cv_text(cv, y + 1, 0, buf, cv->w, style_plain());
}

static void lens_draw(App *a, Canvas *cv) {
    LensView *d = ldata(a);
    int y0 = TOP_LINES;
    const char *why = NULL;
    if (!d) why = _("the logit lens: out of memory");
    else if (!lens_available(a, &why)) d = NULL;
    else refresh(d, a);
    if (d && !d->lens.cells) why = d->why[0] ? d->why : _("the logit lens: not computed yet");
    if (why) {
        cv_text_wrap(cv, y0 + 1, 2, why, cv->w - 2, 2, style_attr(ST_BOLD));
        chrome_draw_bottom(a, cv, NULL, cv->h - 2);
        return;
    }
    int room = cv->h - y0 - 1 - OWN_LINES - BOTTOM_LINES + 2;
    if (room < 1) room = 1;
    draw_grid(a, cv, y0, d, room);
    int rows = d->lens.rows < room ? d->lens.rows : room;
    ShownMat sm = {0};
    sm.hi = 1;
    chrome_draw_bottom(a, cv, &sm, y0 + 1 + rows);
    draw_detail(a, cv, y0 + 2 + rows, d);
}

// ----------------------------------------------------------------------------
// keys

static int lens_key(App *a, Action act) {
    LensView *d = ldata(a);
    if (!d || !lens_available(a, NULL)) return VIEW_KEY_PASS;
    refresh(d, a);
    if (!d->lens.cells) return VIEW_KEY_PASS;
    switch (act) {
    case ACT_UP: d->row = d->row > 0 ? d->row - 1 : 0; return 1;
    case ACT_DOWN: d->row = d->row + 1 < d->lens.rows ? d->row + 1 : d->row; return 1;
    case ACT_HOME: d->row = 0; return 1;
    case ACT_END: d->row = d->lens.rows - 1; return 1;
    case ACT_OPEN: /* the layer's heatmap (embed: the first layer's) at the cursor's row */
        model_set_layer(a->m, d->row > 0 ? d->row - 1 : 0);
        a->view = VIEW_HEATMAP;
        a->shown = TENSOR_WEIGHTS;
        return 1;
    case ACT_LEFT:
    case ACT_RIGHT: /* the position: the cursor's row */
        a->ci += act == ACT_LEFT ? -1 : 1;
        if (a->ci >= a->m->n_q) a->ci = a->m->n_q - 1;
        if (a->ci < 0) a->ci = 0;
        return 1;
    default: return VIEW_KEY_PASS;
    }
}

// ----------------------------------------------------------------------------
// the entry

static void lens_title(const App *a, char *buf, size_t cap) {
    /* TRANSLATORS: the arrow keys */
    snprintf(buf, cap, _("logit lens: every layer through the unembedding  %s position  %s layer"),
             a->ascii ? "Left/Right" : "←/→", a->ascii ? "Up/Down" : "↑/↓");
}

static Stage lens_needed_stage(const App *a) {
    (void)a;
    return STAGE_FINAL;
}

static int lens_natural_height(const App *a, int w) {
    (void)w;
    return TOP_LINES + 1 + a->m->cfg.layers + 1 + OWN_LINES + BOTTOM_LINES;
}

const View view_lens = {
    .name = "lens",
    .about = about,
    .available = lens_available,
    .needed_stage = lens_needed_stage,
    .title = lens_title,
    .draw = lens_draw,
    .key = lens_key,
    .natural_height = lens_natural_height,
    .init = lens_init,
    .free = lens_view_free,
};
