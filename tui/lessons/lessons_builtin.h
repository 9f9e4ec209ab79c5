/* lessons_builtin.h - the texts of the built-in lessons, for
 * lessons_builtin.c's table alone: each a lesson file as a literal (see
 * lessons_builtin.c for what they must keep true). */
#ifndef ATTNVIZ_LESSONS_BUILTIN_H
#define ATTNVIZ_LESSONS_BUILTIN_H

/* lessons_formula.c: the formula, step by step. */
extern const char lesson1_en[], lesson1_ko[]; /* from a sentence to attention weights */
extern const char lesson2_en[], lesson2_ko[]; /* the worked 3x3 example, recomputed */
extern const char lesson3_en[], lesson3_ko[]; /* why divide by √d_k */
extern const char lesson4_en[], lesson4_ko[]; /* masks: who may look at whom */

/* lessons_heads.c: what heads do. */
extern const char lesson5_en[], lesson5_ko[]; /* many heads, and why Q and K are two projections */
extern const char lesson6_en[], lesson6_ko[]; /* word gravity */
extern const char lesson7_en[], lesson7_ko[]; /* what a trained model learned */

#endif
