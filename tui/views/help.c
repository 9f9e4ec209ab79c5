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
#include "i18n.h"
#include "keymap.h"
#include "page.h"
#include "text.h"
#include "view.h"
#include "widgets.h"

#define G view_glyphs

// ----------------------------------------------------------------------------
// what each stage of the v cycle shows

static const char *const about_stage[TENSOR_COUNT] = {
    [TENSOR_WEIGHTS] = N_("weights A: the softmax of each row of masked scores; what the query takes from each key."),
    [TENSOR_SCORES] = N_("raw scores S = Q K^T: the dot product of each query with each key, before scaling. "
                         "Its spread grows with d_k (variance d_k), which is why the next step divides."),
    [TENSOR_SCALED] = N_("scaled scores S / sqrt(d_k): back to variance 1, so the softmax does not saturate. "
                         "Press s to switch scaling off and watch the rows turn one-hot (H falls)."),
    [TENSOR_MASKED] = N_("masked scores: -inf where the mask forbids a key, so that its weight is exactly 0. "
                         "causal: a token sees itself and the tokens before it, never the future."),
    [TENSOR_OUTPUT] = N_("output O = A V: each query's mix of the value vectors, weighted by its row of A. "
                         "Columns are the d_v dimensions of the values."),
    [TENSOR_X] = N_("X = E + PE: the token vectors the layer starts from. Without positional encoding a "
                    "repeated word has the same row, and so the same query: press p to tell them apart."),
    [TENSOR_PE] = N_("PE: the sinusoidal positional encoding, sin on even and cos on odd dimensions, each "
                     "pair at its own wavelength; added to E so that positions differ."),
    [TENSOR_CONCAT] = N_("heads joined: the outputs of all heads side by side (h x d_v columns), head by head."),
    [TENSOR_Y] = N_("Y = concat W_O: the layer's output, the joined heads mixed back to d_model."),
};

/* What stage s shows, in the reader's language, or NULL. */
static const char *stage_about(Shown s) {
    const char *t = about_stage[(unsigned)s < TENSOR_COUNT ? s : 0];
    return t ? _(t) : NULL;
}

// ----------------------------------------------------------------------------
// help: the key table, then what each view and stage shows

/* What each label on the screen means (issue 13: nothing unexplained); each
 * label as the screen shows it, in the reader's language. */
static const char *const labels_text[][2] = {
    {N_("random weights"), N_("the embeddings and W_Q, W_K, W_V, W_O are drawn from the seed, not learned: no pattern "
                              "here comes from language (r draws others); w shows a trained model on the same "
                              "sentence")},
    {N_("H̄ 2.31 of 3.46 bits"), N_("the head's mean row entropy, of the most it could be (every allowed key equal)")},
    {N_("asym 8.29"), N_("max |S - S^T|: how far the raw scores are from symmetric (0 when Q and K are tied)")},
    {N_("sum bits max"), N_("per row of the weights A: their sum (1, or 0 when all is masked), entropy in bits, "
                            "largest weight; \"A:\" beside another stage says they are still A's")},
    {"!", N_("a row whose every key is masked: its weights are all 0")},
    {N_("· masked"), N_("a key the mask hides from the query: score −∞, weight exactly 0")},
    {N_("allowed"), N_("the inspector: the mask lets this query see this key")},
    {"h2:0", N_("heads joined: head 2's output column 0")},
    {N_("rows 1-3 of 5"), N_("which rows (of heads, layers, lines) are on screen; the rest scroll")},
    {N_("lines 1-24 of 99"), N_("a page's lines on screen; cols 9+: scrolled right from column 9")},
};

/* A label of the table as drawn: in ASCII the glyphs' stand-ins, then in the
 * reader's language ("!" and "h2:0" are the same in every language). */
static const char *label_shown(const App *a, const char *label) {
    if (a->ascii && strcmp(label, "H̄ 2.31 of 3.46 bits") == 0) label = N_("H 2.31 of 3.46 bits");
    if (a->ascii && strcmp(label, "· masked") == 0) label = N_("x masked");
    return strcmp(label, "!") == 0 || strcmp(label, "h2:0") == 0 ? label : _(label);
}

/* The views' names as the help heads them. The name is --view's word,
 * never translated; this is how the reader's language calls the view (in
 * English the word itself). */
static const char *view_heading(ViewKind v) {
    switch (v) {
    case VIEW_HEATMAP: return _("heatmap");
    case VIEW_HEADS: return _("heads");
    case VIEW_PIPELINE: return _("pipeline");
    case VIEW_GRAVITY: return _("gravity");
    case VIEW_CENSUS: return _("census");
    case VIEW_CLASSES: return _("classes");
    case VIEW_ZOOM: return _("zoom");
    case VIEW_LENS: return _("lens");
    default: return view_table[v]->name;
    }
}

/* The lines of an about-text (written for a wide screen) as one paragraph
 * in the reader's language, wrapped to w from column x; returns the rows. */
static int paragraph(Canvas *doc, int y, int x, const char *const *lines, int w) {
    char buf[4096];
    size_t n = 0;
    buf[0] = '\0';
    for (int k = 0; lines && lines[k] && n + 2 < sizeof buf; k++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", k ? " " : "", _(lines[k]));
    return buf[0] ? cv_text_wrap(doc, y, x, buf, w - x, 0, style_plain()) : 0;
}

/* The help as a document of doc's width (NULL: only counted); returns its
 * rows. Every text wraps at spaces to the width: nothing runs past it. */
static int help_lines(const App *a, Canvas *doc, int w) {
    int y = 0;
    char buf[256];
    snprintf(buf, sizeof buf, _("attnviz %s - help  (q, ? or Esc: back; arrows scroll)"), ATTNVIZ_VERSION);
    y += cv_text_wrap(doc, y, 0, buf, w, 2, style_attr(ST_BOLD | ST_REVERSE));
    y++;
    y += cv_text_wrap(doc, y, 0, _("What am I looking at"), w, 0, style_attr(ST_BOLD | ST_UNDERLINE));
    y += paragraph(doc, y, 2, view_shown(a)->about, w);
    const char *about = stage_about(a->shown);
    if (a->view == VIEW_HEATMAP && about) y += cv_text_wrap(doc, y, 2, about, w - 2, 0, style_plain());
    y++;
    y += cv_text_wrap(doc, y, 0, _("Labels"), w, 0, style_attr(ST_BOLD | ST_UNDERLINE));
    for (size_t k = 0; k < sizeof labels_text / sizeof *labels_text; k++) {
        const char *label = label_shown(a, labels_text[k][0]);
        if (doc) cv_text(doc, y, 2, label, 20, style_attr(ST_BOLD));
        int lw = text_width(label, strlen(label));
        int x0 = lw < 20 ? 24 : 2, extra = lw < 20 ? 0 : 1;
        y += extra + cv_text_wrap(doc, y + extra, x0, _(labels_text[k][1]), w - x0, 2, style_plain());
    }
    y++;
    y += cv_text_wrap(doc, y, 0, _("Keys"), w, 0, style_attr(ST_BOLD | ST_UNDERLINE));
    for (int i = 0; i < keymap_count; i++) {
        const KeyBinding *b = &keymap[i];
        if (!b->label || !app_action_listed(a, b->action)) continue;
        const char *label = a->ascii && b->ascii_label ? b->ascii_label : b->label;
        if (doc) cv_text(doc, y, 2, label, 12, style_attr(ST_BOLD));
        y += cv_text_wrap(doc, y, 16, _(b->help), w - 16, 2, style_plain());
    }
    y++;
    y += cv_text_wrap(doc, y, 0, _("The views"), w, 0, style_attr(ST_BOLD | ST_UNDERLINE));
    for (int v = 0; v < VIEW_KIND_COUNT; v++) {
        if (view_table[v]->available && !view_table[v]->available(a, NULL)) continue; /* the lens: a trained model's */
        y += cv_text_wrap(doc, y, 2, view_heading((ViewKind)v), w - 2, 0, style_attr(ST_BOLD));
        y += paragraph(doc, y, 4, view_table[v]->about, w);
    }
    y++;
    y += cv_text_wrap(doc, y, 0, _("The stages (v)"), w, 0, style_attr(ST_BOLD | ST_UNDERLINE));
    for (int k = 0; k < tensor_cycle_len(); k++) {
        Shown s = tensor_cycle_at(k);
        y += cv_text_wrap(doc, y, 2, view_stage_name(s), w - 2, 0, style_attr(ST_BOLD));
        about = stage_about(s);
        if (about) y += cv_text_wrap(doc, y, 4, about, w - 4, 0, style_plain());
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
