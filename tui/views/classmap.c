/* classmap.c - the layers x heads class map (classmap.h): each head as its
 * pattern class and sink share, from the head census (src/core/census.h) kept by
 * the census view (census.c), so that a model's every head fits 80x24. */
#include "classmap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "census.h"
#include "chrome.h"
#include "i18n.h"
#include "text.h"
#include "view.h"
#include "widgets.h"

/* Cells between MIN_CW and MAX_CW columns a head; up to LEGEND_MAX lines of
 * legend (fewer where the layers need the rows). */
enum { MIN_CW = 3, MAX_CW = 6, LEGEND_MAX = 4 };

typedef struct {
    int layer0, head0; /* the first layer and head in view */
    /* Where the last frame put the cells: for clicks and pages. */
    int valid, y0, x0, cw, layers_vis, heads_vis;
} ClassMapData;

static ClassMapData *cdata(const App *a) { return a->view_data[VIEW_CLASSES]; }

static int classes_init(App *a) { return (a->view_data[VIEW_CLASSES] = calloc(1, sizeof(ClassMapData))) ? 0 : -1; }

static void classes_free(App *a) {
    free(a->view_data[VIEW_CLASSES]);
    a->view_data[VIEW_CLASSES] = NULL;
}

// ----------------------------------------------------------------------------
// geometry

typedef struct {
    int label_w;               /* "L12" and a blank */
    int cw;                    /* columns of a head's cell */
    int layers_vis, heads_vis; /* what of the map is in view */
    int legend;                /* lines of legend */
} MapGeom;

static int digits(int n) {
    int d = 1;
    while (n >= 10) n /= 10, d++;
    return d;
}

/* Rows under the top lines: the head numbers, the layers, a line for what is
 * out of view (blank when nothing is), the legend, the chosen head's numbers,
 * and the message and hint lines of the chrome. */
static void geometry(const App *a, int W, int H, MapGeom *g) {
    int layers = a->m->cfg.layers, heads = a->m->cfg.heads;
    g->label_w = digits(layers) + 2;
    int avail_w = W - g->label_w;
    g->cw = avail_w / (heads > 0 ? heads : 1);
    if (g->cw > MAX_CW) g->cw = MAX_CW;
    if (g->cw < MIN_CW) g->cw = MIN_CW;
    g->heads_vis = avail_w / g->cw;
    if (g->heads_vis > heads) g->heads_vis = heads;
    if (g->heads_vis < 1) g->heads_vis = 1;
    int avail_h = H - TOP_LINES - 1 - 1 - 1 - 2; /* head numbers, note, chosen head, message and hints */
    g->legend = avail_h - layers;
    if (g->legend > LEGEND_MAX) g->legend = LEGEND_MAX;
    if (g->legend < 1) g->legend = 1;
    g->layers_vis = avail_h - g->legend;
    if (g->layers_vis > layers) g->layers_vis = layers;
    if (g->layers_vis < 1) g->layers_vis = 1;
}

/* Keeps the choice inside the visible window of n items. */
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

/* A class's colour where there are colours (basic colours, the same index
 * in 8 and 256): the letters stay the message in monochrome. */
static Style class_style(const App *a, HeadClass k) {
    static const short fg[HEAD_CLASS_COUNT] = {3, 1, 2, 5, 6, -1}; /* P S D I B mixed */
    Style st = style_attr(k == HEAD_MIXED ? ST_DIM : ST_BOLD);
    if (a->tier != TIER_NONE && fg[k] >= 0) st.fg = fg[k];
    return st;
}

/* The sink share in tenths: "0" .. "9" (1.0 is 9: the digit d means d/10 up
 * to below (d+1)/10, and 1.0 is the top of the last tenth). */
static char sink_digit(double s) {
    if (isnan(s) || s < 0) return '-';
    int d = (int)floor(s * 10.0);
    return (char)('0' + (d > 9 ? 9 : d));
}

static void draw_cell(const App *a, Canvas *cv, int y, int x, int cw, const CensusRow *r, double max_entropy,
                      int chosen) {
    HeadClass k = census_class(r, max_entropy);
    Style st = class_style(a, k), dig = style_plain();
    char d[2] = {sink_digit(r->score[CENSUS_SINK]), '\0'};
    if (d[0] == '0') dig = style_attr(ST_DIM);
    if (chosen) {
        st = style_attr(ST_REVERSE | ST_BOLD), dig = st;
        cv_fill(cv, y, x, cw - 1, " ", st);
    }
    int at = x + (cw - 1 - 2) / 2; /* the two characters centred in the cell's cw - 1 columns */
    cv_text(cv, y, at, census_class_letter(k, a->ascii), 1, st);
    cv_text(cv, y, at + 1, d, 1, dig);
}

/* The legend's lines, most needed first: the letters, the class's
 * definition, the digit. */
static void draw_legend(const App *a, Canvas *cv, int y, int lines) {
    const char *dot = census_class_letter(HEAD_MIXED, a->ascii), *ge = a->ascii ? ">=" : "≥";
    char l1[192], l2[192], l3[192], l4[192];
    /* TRANSLATORS: the class letters stay; %s is the dot of "mixed" */
    snprintf(l1, sizeof l1, _("P previous token  S first (sink)  D itself  I after a repeat  B broad  %s mixed"), dot);
    /* TRANSLATORS: lines 2-4 of the legend say the class's definition; the
       screen may show only the first of them, each within 80 columns. %s is
       the sign "≥" (">=" in ASCII); line 4's %s is the dot of "mixed". */
    snprintf(l2, sizeof l2, _("class: the largest mean weight (rows i %s 1) on the previous token, the first,"), ge);
    snprintf(l3, sizeof l3, _("itself or after an earlier copy, when %s .5; else B when the entropy is %s .8"), ge, ge);
    snprintf(l4, sizeof l4, _("of its largest, else %s mixed   digit: the sink share in tenths (3: .3 to .4)"), dot);
    const char *order[LEGEND_MAX] = {l1, l2, l3, l4};
    for (int k = 0; k < lines && k < LEGEND_MAX; k++) {
        char buf[192];
        snprintf(buf, sizeof buf, "%s", order[k]);
        chrome_fit(buf, sizeof buf, cv->w);
        cv_text(cv, y + k, 0, buf, cv->w, style_attr(k == 0 ? ST_BOLD : ST_DIM));
    }
}

/* The chosen head's numbers: "layer 3 head 5: P previous token  prev .57 ...". */
static void draw_chosen(const App *a, Canvas *cv, int y, const Census *c) {
    int at = a->m->layer * a->m->cfg.heads + a->head;
    if (at < 0 || at >= c->n) return;
    const CensusRow *r = &c->rows[at];
    HeadClass k = census_class(r, c->max_entropy);
    char buf[256], num[4][8];
    static const CensusScore shown[4] = {CENSUS_PREV, CENSUS_SINK, CENSUS_SELF, CENSUS_INDUCTION};
    for (int s = 0; s < 4; s++) {
        double v = r->score[shown[s]];
        if (isnan(v)) snprintf(num[s], sizeof num[s], "%s", a->ascii ? "-" : "—");
        else view_num(num[s], sizeof num[s], v, 3, 1);
    }
    /* TRANSLATORS: "L3 H5 P previous token  prev .57  sink .12  self .05  ind@text —  H 1.20 of 3.17 bits" */
    snprintf(buf, sizeof buf, _("L%d H%d %s %s  prev %s  sink %s  self %s  ind@text %s  H %.2f of %.2f bits"),
             r->layer + 1, r->head + 1, census_class_letter(k, a->ascii), census_class_name(k), num[0], num[1], num[2],
             num[3], r->score[CENSUS_ENTROPY], c->max_entropy);
    chrome_fit(buf, sizeof buf, cv->w);
    cv_text(cv, y, 0, buf, cv->w, style_plain());
}

/* What is out of view: "layers 1-20 of 32  heads 1-24 of 32". */
static void draw_note(const App *a, Canvas *cv, int y, const MapGeom *g, const ClassMapData *d) {
    int layers = a->m->cfg.layers, heads = a->m->cfg.heads, n = 0;
    char note[96] = "";
    if (g->layers_vis < layers)
        n += snprintf(note, sizeof note, _("layers %d-%d of %d"), d->layer0 + 1, d->layer0 + g->layers_vis, layers);
    if (g->heads_vis < heads) {
        n += snprintf(note + n, sizeof note - (size_t)n, "%s", n ? "  " : "");
        snprintf(note + n, sizeof note - (size_t)n, _("heads %d-%d of %d"), d->head0 + 1, d->head0 + g->heads_vis,
                 heads);
    }
    if (note[0]) cv_text(cv, y, 0, note, cv->w, style_attr(ST_DIM));
}

void classmap_draw(App *a, Canvas *cv) {
    ClassMapData spare = {0}, *d = cdata(a) ? cdata(a) : &spare;
    const char *why = NULL;
    const Census *c = view_census_of(a, &why);
    int y0 = TOP_LINES;
    d->valid = 0;
    if (!c) {
        cv_text_wrap(cv, y0 + 1, 2, why ? why : _("class map: no census"), cv->w - 2, 2, style_attr(ST_BOLD));
        return;
    }
    const Model *m = a->m;
    int layers = m->cfg.layers, heads = m->cfg.heads;
    MapGeom g;
    geometry(a, cv->w, cv->h, &g);
    d->layer0 = scroll_to(d->layer0, m->layer, g.layers_vis, layers);
    d->head0 = scroll_to(d->head0, a->head, g.heads_vis, heads);
    char buf[32];
    for (int h = d->head0; h < d->head0 + g.heads_vis && h < heads; h++) {
        int x = g.label_w + (h - d->head0) * g.cw;
        snprintf(buf, sizeof buf, "%d", h + 1);
        int w = (int)strlen(buf), at = x + (g.cw - 1 - w) / 2;
        if (at < x) at = x;
        cv_text(cv, y0, at, buf, g.cw, style_attr(h == a->head ? ST_REVERSE | ST_BOLD : ST_BOLD));
    }
    int y = y0 + 1;
    for (int l = d->layer0; l < d->layer0 + g.layers_vis && l < layers; l++, y++) {
        snprintf(buf, sizeof buf, "L%d", l + 1);
        cv_text(cv, y, 0, buf, g.label_w - 1, style_attr(l == m->layer ? ST_REVERSE | ST_BOLD : ST_BOLD));
        for (int h = d->head0; h < d->head0 + g.heads_vis && h < heads; h++) {
            int at = l * heads + h;
            if (at >= c->n) continue;
            draw_cell(a, cv, y, g.label_w + (h - d->head0) * g.cw, g.cw, &c->rows[at], c->max_entropy,
                      l == m->layer && h == a->head);
        }
    }
    draw_note(a, cv, y, &g, d);
    draw_legend(a, cv, y + 1, g.legend);
    draw_chosen(a, cv, y + 1 + g.legend, c);
    d->valid = 1, d->y0 = y0 + 1, d->x0 = g.label_w, d->cw = g.cw;
    d->layers_vis = g.layers_vis, d->heads_vis = g.heads_vis;
}

void classmap_title(const App *a, char *buf, size_t cap) {
    const ModelConfig *c = &a->m->cfg;
    char layers[32], heads[32];
    snprintf(layers, sizeof layers, P_("%d layer", "%d layers", c->layers), c->layers);
    snprintf(heads, sizeof heads, P_("%d head", "%d heads", c->heads), c->heads);
    /* TRANSLATORS: "12 layers x 12 heads: ..." */
    snprintf(buf, cap, _("%s x %s: each head's class on this text and sink share  (arrows choose, Enter opens)"),
             layers, heads);
}

int classmap_natural_height(const App *a, int w) {
    (void)w;
    return TOP_LINES + 1 + a->m->cfg.layers + 1 + LEGEND_MAX + 1 + 2;
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

/* Enter: the chosen head's weights in the heatmap, the cursor on the last
 * row's heaviest key (the row that predicts the next token). */
static void open_chosen(App *a) {
    Model *m = a->m;
    a->view = VIEW_HEATMAP;
    a->shown = TENSOR_WEIGHTS;
    if (m->n_q < 1 || m->stale <= STAGE_WEIGHTS) return;
    const float *last = model_layer_heads(m, m->layer)[a->head].weights + (size_t)(m->n_q - 1) * m->n_k;
    int top = 0;
    for (int j = 1; j < m->n_k; j++)
        if (last[j] > last[top]) top = j;
    a->ci = m->n_q - 1, a->cj = top;
}

int classmap_key(App *a, Action act) {
    const ClassMapData *d = cdata(a);
    int page = d && d->valid && d->layers_vis > 0 ? d->layers_vis : 1;
    int layer = a->m->layer, head = a->head;
    switch (act) {
    case ACT_UP: layer--; break;
    case ACT_DOWN: layer++; break;
    case ACT_LEFT: head--; break;
    case ACT_RIGHT: head++; break;
    case ACT_PAGE_UP: layer -= page; break;
    case ACT_PAGE_DOWN: layer += page; break;
    case ACT_HOME: layer = 0; break;
    case ACT_END: layer = a->m->cfg.layers - 1; break;
    case ACT_OPEN: open_chosen(a); return 1;
    default: return VIEW_KEY_PASS;
    }
    choose(a, layer, head);
    return 1;
}

int classmap_click(App *a, int y, int x) {
    const ClassMapData *d = cdata(a);
    if (!d || !d->valid || y < d->y0 || x < d->x0 || d->cw < 1) return 0;
    int r = y - d->y0, c = (x - d->x0) / d->cw;
    if ((x - d->x0) % d->cw == d->cw - 1 || r >= d->layers_vis || c >= d->heads_vis) return 0;
    if (d->layer0 + r >= a->m->cfg.layers || d->head0 + c >= a->m->cfg.heads) return 0;
    choose(a, d->layer0 + r, d->head0 + c);
    return 1;
}

// ----------------------------------------------------------------------------
// the entry

/* One paragraph (the help wraps it), translated where drawn (help.c). */
static const char *const about[] = {
    N_("Every layer and head in two characters: its pattern class and its sink share, from the "
       "head census (H) on this sentence. P previous token, S the first token (an attention sink), "
       "D itself (the diagonal), I after a repeat (the token after an earlier copy of the current one "
       "in this sentence: not the field's induction test, which needs repeated random tokens; a head "
       "that looks at a verb or a name scores here too), "
       "B broad, and a dot for mixed. The class is the largest of the census's mean weights on the "
       "previous token, the first token, itself and after an earlier copy (rows i >= 1) when it is "
       "at least .5; otherwise B when the mean entropy is at least .8 of its largest, else mixed: "
       "the measures of Clark et al. 2019 (What Does BERT Look At?) and Olsson et al. 2022, with "
       "these two thresholds. The digit is the sink share (the mean weight on the first token) in "
       "tenths. Arrows choose a head, Enter opens it; a on a model of several layers shows this map "
       "where its thumbnails do not all fit. Random heads rarely reach a class."),
    NULL};

static Stage classes_needed_stage(const App *a) {
    (void)a;
    return STAGE_WEIGHTS;
}

static void classes_draw(App *a, Canvas *cv) {
    classmap_draw(a, cv);
    chrome_draw_bottom(a, cv, NULL, cv->h - 2);
}

const View view_classes = {
    .name = "classes",
    .about = about,
    .needed_stage = classes_needed_stage,
    .title = classmap_title,
    .draw = classes_draw,
    .key = classmap_key,
    .natural_height = classmap_natural_height,
    .init = classes_init,
    .free = classes_free,
};
