/* formula.c - see formula.h. The texts are in the tables below, each entry
 * {UTF-8, ASCII}; an ASCII entry left NULL is the UTF-8 one (already ASCII).
 * The symbols are those of the front end's glyph sets (tui/widgets.c):
 * ᵀ · − ÷ × ² and √ in UTF-8; ^T . - / x ^2 and sqrt() in ASCII. */
#include "formula.h"

#include <math.h>
#include <stdio.h>

/* A row of scores_text beyond the kinds: the scaled dot product, which only
 * the messages write apart from the dot product (NULL there: the dot row). */
enum { ROW_SCALED_DOT = SCORE_KIND_COUNT, SCORE_ROWS };

// clang-format off
/* The raw scores S of each kind. A NULL row is the dot product's: the title
 * writes QKᵀ whatever the kind. */
static const char *const scores_text[FORMULA_PLACE_COUNT][SCORE_ROWS][2] = {
    [FORMULA_TITLE] = {
        [SCORE_DOT]      = {"raw scores S = QKᵀ (before scaling)", "raw scores S = QK^T (before scaling)"},
    },
    [FORMULA_PIPELINE] = {
        [SCORE_DOT]      = {"S = QKᵀ", "S = QK^T"},
        [SCORE_COSINE]   = {"S = q·k / (|q| |k|)", "S = q.k / (|q| |k|)"},
        [SCORE_DISTANCE] = {"S = −|q − k|²", "S = -|q - k|^2"},
        [SCORE_ADDITIVE] = {"S = vᵀ tanh(W1 q + W2 k)", "S = v^T tanh(W1 q + W2 k)"},
    },
    [FORMULA_INSPECTOR] = {
        [SCORE_DOT]      = {"raw q·k", "raw q.k"},
        [SCORE_COSINE]   = {"cos = q·k/(|q||k|)", "cos = q.k/(|q||k|)"},
        [SCORE_DISTANCE] = {"−|q−k|²", "-|q-k|^2"},
        [SCORE_ADDITIVE] = {"vᵀtanh(W1q+W2k)", "v^Ttanh(W1q+W2k)"},
    },
    [FORMULA_CELL] = {
        [SCORE_DOT]      = {"q·k", "q.k"},
        [SCORE_COSINE]   = {"cosine = q·k / (|q| |k|)", "cosine = q.k / (|q| |k|)"},
        [SCORE_DISTANCE] = {"−|q − k|²", "-|q - k|^2"},
        [SCORE_ADDITIVE] = {"vᵀ tanh(W1 q + W2 k)", "v^T tanh(W1 q + W2 k)"},
    },
    [FORMULA_DUMP] = {
        [SCORE_DOT]      = {"scores = Q K^T", NULL},
        [SCORE_COSINE]   = {"scores = cosine(q, k) = q.k / (|q| |k|)", NULL},
        [SCORE_DISTANCE] = {"scores = -|q - k|^2", NULL},
        [SCORE_ADDITIVE] = {"scores = v^T tanh(W1 q + W2 k)", NULL},
    },
    [FORMULA_MESSAGE] = {
        [SCORE_DOT]      = {"q.k, not scaled", NULL},
        [ROW_SCALED_DOT] = {"q.k / sqrt(d_k)", NULL},
        [SCORE_COSINE]   = {"q.k / (|q||k|), times sqrt(d_k) as temperature", NULL},
        [SCORE_DISTANCE] = {"-|q-k|^2, divided by sqrt(d_k)", NULL},
        [SCORE_ADDITIVE] = {"v^T tanh(W1 q + W2 k) (Bahdanau)", NULL},
    },
};

/* The scaling step S', by the case formula_scale gives. These are printf
 * formats of two arguments: the root ("√16", a string) and its value
 * sqrt(d_k) (a double; only the message prints it). */
static const char *const scaled_text[FORMULA_PLACE_COUNT][FORMULA_SCALE_COUNT][2] = {
    [FORMULA_TITLE] = {
        [FORMULA_SCALE_DIVIDE] = {"scaled scores S' = QKᵀ÷%s", "scaled scores S' = QK^T/%s"},
        [FORMULA_SCALE_OFF]    = {"scaled scores S' = QKᵀ (scaling off)", "scaled scores S' = QK^T (scaling off)"},
    },
    [FORMULA_PIPELINE] = {
        [FORMULA_SCALE_DIVIDE] = {"S' = S ÷ %s", "S' = S / %s"},
        [FORMULA_SCALE_TIMES]  = {"S' = S × %s", "S' = S x %s"},
        [FORMULA_SCALE_OFF]    = {"S' = S (scaling off)", NULL},
        [FORMULA_SCALE_NONE]   = {"S' = S (no scaling)", NULL},
    },
    [FORMULA_INSPECTOR] = {
        [FORMULA_SCALE_DIVIDE] = {"÷%s", "/%s"},
        [FORMULA_SCALE_TIMES]  = {"×%s", "x%s"},
        [FORMULA_SCALE_NONE]   = {"(no scaling)", NULL},
    },
    [FORMULA_CELL] = {
        [FORMULA_SCALE_DIVIDE] = {"÷ %s", "/ %s"},
        [FORMULA_SCALE_TIMES]  = {"× %s", "x %s"},
    },
    [FORMULA_DUMP] = {
        [FORMULA_SCALE_DIVIDE] = {"scaled = scores / %s", NULL},
        [FORMULA_SCALE_TIMES]  = {"scaled = scores * %s", NULL},
        [FORMULA_SCALE_NONE]   = {"scaled = scores (no scaling)", NULL},
    },
    [FORMULA_MESSAGE] = {
        [FORMULA_SCALE_DIVIDE] = {"scaling on: scores divided by %s = %.3f", NULL},
        [FORMULA_SCALE_OFF]    = {"scaling off: softmax of the raw scores Q K^T", NULL},
    },
};

/* The weights A: only the title writes their formula with the score's. */
static const char *const weights_text[FORMULA_PLACE_COUNT][FORMULA_SCALE_COUNT][2] = {
    [FORMULA_TITLE] = {
        [FORMULA_SCALE_DIVIDE] = {"weights A = softmax(QKᵀ÷%s, mask)", "weights A = softmax(QK^T/%s, mask)"},
        [FORMULA_SCALE_OFF]    = {"weights A = softmax(QKᵀ, mask)", "weights A = softmax(QK^T, mask)"},
    },
};
// clang-format on

/* The dump and the messages have no UTF-8 form: a dump is read in files and
 * pipes, a message is written in ASCII. */
static int place_ascii(FormulaPlace place, const FormulaOf *f) {
    return f->ascii || place == FORMULA_DUMP || place == FORMULA_MESSAGE;
}

static const char *pick(const char *const entry[2], int ascii) { return ascii && entry[1] ? entry[1] : entry[0]; }

FormulaOf formula_of(const ModelConfig *c, int ascii) {
    FormulaOf f = {c->score, c->scale, c->d_k, ascii};
    return f;
}

FormulaScale formula_scale(FormulaPlace place, const FormulaOf *f) {
    switch (place) {
    case FORMULA_TITLE:
    case FORMULA_MESSAGE: return f->scale ? FORMULA_SCALE_DIVIDE : FORMULA_SCALE_OFF;
    case FORMULA_PIPELINE:
        if (f->kind == SCORE_ADDITIVE) return FORMULA_SCALE_NONE;
        if (!f->scale) return FORMULA_SCALE_OFF;
        break;
    case FORMULA_DUMP:
        if (!f->scale || f->kind == SCORE_ADDITIVE) return FORMULA_SCALE_NONE;
        break;
    default:
        /* The factor is 1 (model_scale_factor): sqrt(1) and 1 / sqrt(1) too. */
        if (!f->scale || f->kind == SCORE_ADDITIVE || f->d_k == 1) return FORMULA_SCALE_NONE;
        break;
    }
    return f->kind == SCORE_COSINE ? FORMULA_SCALE_TIMES : FORMULA_SCALE_DIVIDE;
}

const char *formula_sqrt(char *buf, size_t cap, int n, int ascii) {
    if (ascii) snprintf(buf, cap, "sqrt(%d)", n);
    else snprintf(buf, cap, "√%d", n);
    return buf;
}

const char *formula_text(char *buf, size_t cap, FormulaPlace place, Stage stage, const FormulaOf *f) {
    int ascii = place_ascii(place, f);
    const char *fmt = NULL;
    if (cap == 0) return buf;
    buf[0] = '\0';
    if ((unsigned)place >= FORMULA_PLACE_COUNT) return buf;
    if (stage == STAGE_SCORES) {
        int row = (unsigned)f->kind < SCORE_KIND_COUNT ? (int)f->kind : SCORE_DOT;
        if (row == SCORE_DOT && f->scale && scores_text[place][ROW_SCALED_DOT][0]) row = ROW_SCALED_DOT;
        if (!scores_text[place][row][0]) row = SCORE_DOT;
        fmt = pick(scores_text[place][row], ascii);
    } else if (stage == STAGE_SCALED || stage == STAGE_WEIGHTS) {
        const char *const(*entry)[2] = stage == STAGE_SCALED ? scaled_text[place] : weights_text[place];
        fmt = pick(entry[formula_scale(place, f)], ascii);
    }
    if (!fmt) return buf;
    char root[24];
    formula_sqrt(root, sizeof root, f->d_k, ascii);
    snprintf(buf, cap, fmt, root, sqrt((double)f->d_k));
    return buf;
}
