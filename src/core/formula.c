/* formula.c - see formula.h. Every formula is put together from two tables:
 * the raw score of each kind (how each place spells it) and the scaling step
 * of each case (divided by √d_k, times √d_k, off, none). Each entry is
 * {UTF-8, ASCII}; an ASCII entry left NULL is the UTF-8 one (already ASCII).
 * The symbols are those of the front end's glyph sets (tui/views/widgets.c):
 * ᵀ · − ÷ × ² and √ in UTF-8; ^T . - / * ^2 and sqrt() in ASCII. */
#include "formula.h"

#include <math.h>
#include <stdio.h>

#include "i18n.h"

// clang-format off
/* The raw score S of each kind. The titles write it short (a matrix
 * expression); the other places as their layout allows. Cosine is always
 * cos(q,k), defined as q·k/(|q||k|) where there is room. */
static const char *const score_expr[FORMULA_PLACE_COUNT][SCORE_KIND_COUNT][2] = {
    [FORMULA_TITLE] = {
        [SCORE_DOT]      = {"QKᵀ", "QK^T"},
        [SCORE_COSINE]   = {"cos(q,k)", NULL},
        [SCORE_DISTANCE] = {"−|q−k|²", "-|q-k|^2"},
        [SCORE_ADDITIVE] = {"vᵀtanh(W1q+W2k)", "v^Ttanh(W1q+W2k)"},
    },
    [FORMULA_PIPELINE] = {
        [SCORE_DOT]      = {"S = QKᵀ", "S = QK^T"},
        [SCORE_COSINE]   = {"S = cos(q,k) = q·k / (|q| |k|)", "S = cos(q,k) = q.k / (|q| |k|)"},
        [SCORE_DISTANCE] = {"S = −|q − k|²", "S = -|q - k|^2"},
        [SCORE_ADDITIVE] = {"S = vᵀ tanh(W1 q + W2 k)", "S = v^T tanh(W1 q + W2 k)"},
    },
    [FORMULA_INSPECTOR] = {
        [SCORE_DOT]      = {N_("raw q·k"), N_("raw q.k")},
        [SCORE_COSINE]   = {"cos(q,k)", NULL},
        [SCORE_DISTANCE] = {"−|q−k|²", "-|q-k|^2"},
        [SCORE_ADDITIVE] = {"vᵀtanh(W1q+W2k)", "v^Ttanh(W1q+W2k)"},
    },
    [FORMULA_CELL] = {
        [SCORE_DOT]      = {"q·k", "q.k"},
        [SCORE_COSINE]   = {"cos(q,k) = q·k / (|q| |k|)", "cos(q,k) = q.k / (|q| |k|)"},
        [SCORE_DISTANCE] = {"−|q − k|²", "-|q - k|^2"},
        [SCORE_ADDITIVE] = {"vᵀ tanh(W1 q + W2 k)", "v^T tanh(W1 q + W2 k)"},
    },
    [FORMULA_DUMP] = {
        [SCORE_DOT]      = {"scores = Q K^T", NULL},
        [SCORE_COSINE]   = {"scores = cos(q,k) = q.k / (|q| |k|)", NULL},
        [SCORE_DISTANCE] = {"scores = -|q - k|^2", NULL},
        [SCORE_ADDITIVE] = {"scores = v^T tanh(W1 q + W2 k)", NULL},
    },
    [FORMULA_MESSAGE] = {
        [SCORE_DOT]      = {"q.k", NULL},
        [SCORE_COSINE]   = {"cos(q,k) = q.k/(|q||k|)", NULL},
        [SCORE_DISTANCE] = {"-|q-k|^2", NULL},
        [SCORE_ADDITIVE] = {"v^T tanh(W1 q + W2 k) (Bahdanau)", NULL},
    },
};

/* The scaling step after the raw score, by case. printf formats of two
 * arguments: the root ("√16", a string) and its value (a double). */
static const char *const scale_step[FORMULA_PLACE_COUNT][FORMULA_SCALE_COUNT][2] = {
    [FORMULA_TITLE] = { /* after the title's expression */
        [FORMULA_SCALE_DIVIDE] = {"÷%s", "/%s"},
        [FORMULA_SCALE_TIMES]  = {"×%s", "*%s"},
        [FORMULA_SCALE_OFF]    = {N_(" (scaling off)"), NULL},
        [FORMULA_SCALE_NONE]   = {N_(" (additive: not scaled)"), NULL},
    },
    [FORMULA_PIPELINE] = {
        [FORMULA_SCALE_DIVIDE] = {"S' = S ÷ %s", "S' = S / %s"},
        [FORMULA_SCALE_TIMES]  = {"S' = S × %s", "S' = S * %s"},
        [FORMULA_SCALE_OFF]    = {N_("S' = S (scaling off)"), NULL},
        [FORMULA_SCALE_NONE]   = {N_("S' = S (additive: not scaled)"), NULL},
    },
    [FORMULA_INSPECTOR] = {
        [FORMULA_SCALE_DIVIDE] = {"÷%s", "/%s"},
        [FORMULA_SCALE_TIMES]  = {"×%s", "*%s"},
        [FORMULA_SCALE_OFF]    = {N_("(scaling off)"), NULL},
        [FORMULA_SCALE_NONE]   = {N_("(not scaled)"), NULL},
    },
    [FORMULA_CELL] = { /* off and none: why s is the raw score */
        [FORMULA_SCALE_DIVIDE] = {"÷ %s", "/ %s"},
        [FORMULA_SCALE_TIMES]  = {"× %s", "* %s"},
        [FORMULA_SCALE_OFF]    = {N_("scaling off"), NULL},
        [FORMULA_SCALE_NONE]   = {N_("additive scores are not scaled"), NULL},
    },
    [FORMULA_DUMP] = {
        [FORMULA_SCALE_DIVIDE] = {"scaled = scores / %s", NULL},
        [FORMULA_SCALE_TIMES]  = {"scaled = scores * %s", NULL},
        [FORMULA_SCALE_OFF]    = {"scaled = scores (scaling off)", NULL},
        [FORMULA_SCALE_NONE]   = {"scaled = scores (additive: not scaled)", NULL},
    },
    [FORMULA_MESSAGE] = {
        [FORMULA_SCALE_DIVIDE] = {N_("scaling on: scores divided by %s = %.3f"), NULL},
        [FORMULA_SCALE_TIMES]  = {N_("scaling on: cosine scores multiplied by %s = %.3f (a temperature)"), NULL},
        [FORMULA_SCALE_OFF]    = {N_("scaling off: softmax of the raw scores"), NULL},
        [FORMULA_SCALE_NONE]   = {N_("additive scores are not scaled: s changes nothing here"), NULL},
    },
};

/* What the o key says after the raw score, by case. */
static const char *const message_scaling[FORMULA_SCALE_COUNT] = {
    [FORMULA_SCALE_DIVIDE] = N_(", divided by sqrt(d_k)"),
    [FORMULA_SCALE_TIMES]  = N_(", times sqrt(d_k) as temperature"),
    [FORMULA_SCALE_OFF]    = N_(", not scaled (s: on)"),
    [FORMULA_SCALE_NONE]   = "",
};
// clang-format on

/* The dump and the messages have no UTF-8 form: a dump is read in files and
 * pipes, a message is written in ASCII. */
static int place_ascii(FormulaPlace place, const FormulaOf *f) {
    return f->ascii || place == FORMULA_DUMP || place == FORMULA_MESSAGE;
}

static const char *pick(const char *const entry[2], int ascii) { return ascii && entry[1] ? entry[1] : entry[0]; }

/* s in the reader's language (the tables mark their words N_()), except in
 * the dump, whose text is a format; "" stays "" (gettext's "" is the
 * catalogue's header). */
static const char *say(FormulaPlace place, const char *s) { return place == FORMULA_DUMP || !*s ? s : _(s); }

FormulaOf formula_of(const ModelConfig *c, int ascii) {
    FormulaOf f = {c->score, c->scale, c->d_k, ascii};
    return f;
}

FormulaScale formula_scale(FormulaPlace place, const FormulaOf *f) {
    (void)place; /* one case everywhere */
    if (f->kind == SCORE_ADDITIVE) return FORMULA_SCALE_NONE;
    if (!f->scale) return FORMULA_SCALE_OFF;
    return f->kind == SCORE_COSINE ? FORMULA_SCALE_TIMES : FORMULA_SCALE_DIVIDE;
}

const char *formula_sqrt(char *buf, size_t cap, int n, int ascii) {
    if (ascii) snprintf(buf, cap, "sqrt(%d)", n);
    else snprintf(buf, cap, "√%d", n);
    return buf;
}

/* The title of a score stage: "raw scores S = cos(q,k) (before scaling)",
 * "scaled scores S' = QKᵀ÷√16", "weights A = softmax(−|q−k|²÷√16, mask)". */
static void title_text(char *buf, size_t cap, Stage stage, const FormulaOf *f, int kind, const char *root) {
    int ascii = f->ascii;
    FormulaScale sc = formula_scale(FORMULA_TITLE, f);
    const char *e = pick(score_expr[FORMULA_TITLE][kind], ascii);
    char step[48];
    snprintf(step, sizeof step, say(FORMULA_TITLE, pick(scale_step[FORMULA_TITLE][sc], ascii)), root);
    if (stage == STAGE_SCORES)
        snprintf(buf, cap, sc == FORMULA_SCALE_NONE ? _("raw scores S = %s") : _("raw scores S = %s (before scaling)"),
                 e);
    else if (stage == STAGE_SCALED) snprintf(buf, cap, _("scaled scores S' = %s%s"), e, step);
    else /* in the softmax only the operation: "(scaling off)" is the status line's */
        snprintf(buf, cap, _("weights A = softmax(%s%s, mask)"), e,
                 sc == FORMULA_SCALE_DIVIDE || sc == FORMULA_SCALE_TIMES ? step : "");
}

const char *formula_text(char *buf, size_t cap, FormulaPlace place, Stage stage, const FormulaOf *f) {
    int ascii = place_ascii(place, f);
    if (cap == 0) return buf;
    buf[0] = '\0';
    if ((unsigned)place >= FORMULA_PLACE_COUNT) return buf;
    int kind = (unsigned)f->kind < SCORE_KIND_COUNT ? (int)f->kind : SCORE_DOT;
    char root[24];
    formula_sqrt(root, sizeof root, f->d_k, ascii);
    FormulaScale sc = formula_scale(place, f);
    if (place == FORMULA_TITLE) {
        if (stage == STAGE_SCORES || stage == STAGE_SCALED || stage == STAGE_WEIGHTS)
            title_text(buf, cap, stage, f, kind, root);
    } else if (stage == STAGE_SCORES && place == FORMULA_MESSAGE) {
        snprintf(buf, cap, "%s%s", score_expr[place][kind][0], say(place, message_scaling[sc]));
    } else if (stage == STAGE_SCORES) {
        snprintf(buf, cap, "%s", say(place, pick(score_expr[place][kind], ascii)));
    } else if (stage == STAGE_SCALED) {
        snprintf(buf, cap, say(place, pick(scale_step[place][sc], ascii)), root, sqrt((double)f->d_k));
    }
    return buf;
}
