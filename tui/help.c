/* help.c - the help page: what the view and the stage shown are, the key
 * table (keymap.c, only the keys the model can use), the views of the view
 * table and the stages of the catalogue's v cycle, each with its about-text. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chrome.h"
#include "cli.h"
#include "formula.h"
#include "keymap.h"
#include "page.h"
#include "text.h"
#include "view.h"
#include "widgets.h"

#define G view_glyphs

// ----------------------------------------------------------------------------
// what each stage of the v cycle shows

static const char *const about_stage[TENSOR_COUNT][4] = {
    [TENSOR_WEIGHTS] = {"weights A: the softmax of each row of masked scores; what the query takes from each key.",
                        NULL},
    [TENSOR_SCORES] = {"raw scores S = Q K^T: the dot product of each query with each key, before scaling.",
                       "Its spread grows with d_k (variance d_k), which is why the next step divides.", NULL},
    [TENSOR_SCALED] = {"scaled scores S / sqrt(d_k): back to variance 1, so the softmax does not saturate.",
                       "Press s to switch scaling off and watch the rows turn one-hot (H falls).", NULL},
    [TENSOR_MASKED] = {"masked scores: -inf where the mask forbids a key, so that its weight is exactly 0.",
                       "causal: a token sees itself and the tokens before it, never the future.", NULL},
    [TENSOR_OUTPUT] = {"output O = A V: each query's mix of the value vectors, weighted by its row of A.",
                       "Columns are the d_v dimensions of the values.", NULL},
    [TENSOR_X] = {"X = E + PE: the token vectors the layer starts from. Without positional encoding a",
                  "repeated word has the same row, and so the same query: press p to tell them apart.", NULL},
    [TENSOR_PE] = {"PE: the sinusoidal positional encoding, sin on even and cos on odd dimensions, each",
                   "pair at its own wavelength; added to E so that positions differ.", NULL},
    [TENSOR_CONCAT] = {"heads joined: the outputs of all heads side by side (h x d_v columns), head by head.", NULL},
    [TENSOR_Y] = {"Y = concat W_O: the layer's output, the joined heads mixed back to d_model.", NULL},
};

static const char *const *stage_about(Shown s) {
    static const char *const none[1] = {NULL};
    const char *const *l = about_stage[(unsigned)s < TENSOR_COUNT ? s : 0];
    return l[0] ? l : none;
}

// ----------------------------------------------------------------------------
// help: the key table, then what each view and stage shows

/* What each label on the screen means (issue 13: nothing unexplained). */
static const char *const labels_text[][2] = {
    {"random weights", "the embeddings and W_Q, W_K, W_V, W_O are drawn from the seed, not learned: no pattern "
                       "here comes from language (r draws others); w shows a trained model on the same sentence"},
    {"H̄ 2.31 of 3.46 bits", "the head's mean row entropy, of the most it could be (every allowed key equal)"},
    {"asym 8.29", "max |S - S^T|: how far the raw scores are from symmetric (0 when Q and K are tied)"},
    {"sum bits max", "per row of the weights A: their sum (1, or 0 when all is masked), entropy in bits, "
                     "largest weight; \"A:\" beside another stage says they are still A's"},
    {"!", "a row whose every key is masked: its weights are all 0"},
    {"· masked", "a key the mask hides from the query: score −∞, weight exactly 0"},
    {"allowed", "the inspector: the mask lets this query see this key"},
    {"h2:0", "heads joined: head 2's output column 0"},
    {"rows 1-3 of 5", "which rows (of heads, layers, lines) are on screen; the rest scroll"},
    {"lines 1-24 of 99", "a page's lines on screen; cols 9+: scrolled right from column 9"},
};

/* The lines of an about-text (written for a wide screen) as one paragraph,
 * wrapped to w from column x; returns the rows. */
static int paragraph(Canvas *doc, int y, int x, const char *const *lines, int w) {
    char buf[2048];
    size_t n = 0;
    buf[0] = '\0';
    for (int k = 0; lines[k] && n + 2 < sizeof buf; k++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", k ? " " : "", lines[k]);
    return buf[0] ? cv_text_wrap(doc, y, x, buf, w - x, 0, style_plain()) : 0;
}

/* The help as a document of doc's width (NULL: only counted); returns its
 * rows. Every text wraps at spaces to the width: nothing runs past it. */
static int help_lines(const App *a, Canvas *doc, int w) {
    int y = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "attnviz %s - help  (q, ? or Esc: back; arrows scroll)", ATTNVIZ_VERSION);
    y += cv_text_wrap(doc, y, 0, buf, w, 2, style_attr(ST_BOLD | ST_REVERSE));
    y++;
    y += cv_text_wrap(doc, y, 0, "What am I looking at", w, 0, style_attr(ST_BOLD | ST_UNDERLINE));
    y += paragraph(doc, y, 2, view_shown(a)->about, w);
    if (a->view == VIEW_HEATMAP) y += paragraph(doc, y, 2, stage_about(a->shown), w);
    y++;
    y += cv_text_wrap(doc, y, 0, "Labels", w, 0, style_attr(ST_BOLD | ST_UNDERLINE));
    for (size_t k = 0; k < sizeof labels_text / sizeof *labels_text; k++) {
        const char *label = labels_text[k][0];
        if (a->ascii && strcmp(label, "H̄ 2.31 of 3.46 bits") == 0) label = "H 2.31 of 3.46 bits";
        if (a->ascii && strcmp(label, "· masked") == 0) label = "x masked";
        if (doc) cv_text(doc, y, 2, label, 20, style_attr(ST_BOLD));
        int lw = text_width(label, strlen(label));
        int x0 = lw < 20 ? 24 : 2, extra = lw < 20 ? 0 : 1;
        y += extra + cv_text_wrap(doc, y + extra, x0, labels_text[k][1], w - x0, 2, style_plain());
    }
    y++;
    y += cv_text_wrap(doc, y, 0, "Keys", w, 0, style_attr(ST_BOLD | ST_UNDERLINE));
    for (int i = 0; i < keymap_count; i++) {
        const KeyBinding *b = &keymap[i];
        if (!b->label || !app_action_listed(a, b->action)) continue;
        const char *label = a->ascii && b->ascii_label ? b->ascii_label : b->label;
        if (doc) cv_text(doc, y, 2, label, 12, style_attr(ST_BOLD));
        y += cv_text_wrap(doc, y, 16, b->help, w - 16, 2, style_plain());
    }
    y++;
    y += cv_text_wrap(doc, y, 0, "The views", w, 0, style_attr(ST_BOLD | ST_UNDERLINE));
    for (int v = 0; v < VIEW_KIND_COUNT; v++) {
        y += cv_text_wrap(doc, y, 2, view_table[v]->name, w - 2, 0, style_attr(ST_BOLD));
        y += paragraph(doc, y, 4, view_table[v]->about, w);
    }
    y++;
    y += cv_text_wrap(doc, y, 0, "The stages (v)", w, 0, style_attr(ST_BOLD | ST_UNDERLINE));
    for (int k = 0; k < tensor_cycle_len(); k++) {
        Shown s = tensor_cycle_at(k);
        y += cv_text_wrap(doc, y, 2, view_stage_name(s), w - 2, 0, style_attr(ST_BOLD));
        y += paragraph(doc, y, 4, stage_about(s), w);
    }
    return y;
}

static void help_draw(App *a, Canvas *cv) {
    int lines = help_lines(a, NULL, cv->w);
    Canvas *doc = page_canvas(a, cv->w, lines);
    if (!doc) return;
    help_lines(a, doc, cv->w);
    page_show(a, cv, doc, 0, cv->h);
}

static int help_key(App *a, Action act) {
    if (page_scroll(a, act)) return 1;
    if (act == ACT_QUIT || act == ACT_ESCAPE || act == ACT_HELP) {
        page_close(a);
        return 1;
    }
    return 0; /* the help takes every other key and does nothing */
}

const View page_help = {
    .name = "help",
    .draw = help_draw,
    .key = help_key,
    .natural_height = page_natural_height,
};
