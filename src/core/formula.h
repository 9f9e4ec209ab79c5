/* formula.h - the formulas of the score stages as text, from one source
 * (formula.c): the raw scores S of each score kind, the scaling step S' and
 * the weights' softmax, as each place that shows them writes them, in UTF-8
 * and in the ASCII of --ascii. Every place states the formula of the kind in
 * use and the same scaling case: cosine is multiplied by √d_k, additive is
 * not scaled, d_k = 1 is divided by √1, and scaling off says so. Their
 * words are in the reader's language (i18n.h), except the dump's. */

#ifndef ATTNVIZ_FORMULA_H
#define ATTNVIZ_FORMULA_H

#include <stddef.h>

#include "model.h"

/* Where a formula is shown. */
typedef enum {
    FORMULA_TITLE,     /* the heatmap's title line: whole titles */
    FORMULA_PIPELINE,  /* the pipeline view's block titles: "S = QKᵀ", "S' = S ÷ √16" */
    FORMULA_INSPECTOR, /* the inspector under the map, compact: "cos = q·k/(|q||k|)", "×√16" */
    FORMULA_CELL,      /* the cell page, spaced: "cosine = q·k / (|q| |k|)", "÷ √16" */
    FORMULA_DUMP,      /* the matrix titles of --dump=text (ASCII only) */
    FORMULA_MESSAGE,   /* what the keys o and s say (ASCII only) */
    FORMULA_PLACE_COUNT
} FormulaPlace;

/* What a formula depends on: the score kind, the scaling, d_k, the glyphs. */
typedef struct {
    ScoreKind kind;
    int scale; /* the scaling is on (ModelConfig.scale) */
    int d_k;
    int ascii; /* ASCII only (--ascii): "QK^T", "sqrt(16)" */
} FormulaOf;

FormulaOf formula_of(const ModelConfig *c, int ascii);

/* What the scaling step does, as a place tells it. */
typedef enum {
    FORMULA_SCALE_DIVIDE, /* divided by sqrt(d_k) (dot, distance) */
    FORMULA_SCALE_TIMES,  /* times sqrt(d_k): cosine's temperature */
    FORMULA_SCALE_OFF,    /* scaling switched off (s) */
    FORMULA_SCALE_NONE,   /* the kind is never scaled (additive) */
    FORMULA_SCALE_COUNT
} FormulaScale;

/* The case of the scaling step for f, the same for every place: additive is
 * never scaled (NONE), scaling off is OFF, cosine is TIMES, the others
 * DIVIDE (d_k = 1 too: ÷√1). */
FormulaScale formula_scale(FormulaPlace place, const FormulaOf *f);

/* The formula of stage (STAGE_SCORES, STAGE_SCALED or STAGE_WEIGHTS) as
 * place writes it for f, in buf (always NUL-terminated, cut to cap); "" when
 * the place writes none for that stage (the pipeline's and the dump's
 * softmax depend on the mask, not on the score: they are their own). The
 * cell page's off and none are a reason ("scaling off").
 * Returns buf. */
const char *formula_text(char *buf, size_t cap, FormulaPlace place, Stage stage, const FormulaOf *f);

/* "√16" or, in ASCII, "sqrt(16)". Returns buf. */
const char *formula_sqrt(char *buf, size_t cap, int n, int ascii);

#endif
