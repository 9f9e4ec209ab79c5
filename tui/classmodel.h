/* classmodel.h - the classroom's trained model: where attnviz finds it (w,
 * and the lessons that need one), and the phrase that tells a class the
 * weights on the screen are random.
 *
 * The model is stories260K.bin (llama2.c's TinyStories 260K, with its
 * tok512.bin beside it: huggingface.co/karpathy/tinyllamas), looked for in
 * this order: $ATTNVIZ_MODELS; models/ in the current directory; models/
 * beside the attnviz binary; ../shared/models and ../../shared/models (the
 * project's checkout, as the tests find it). */
#ifndef ATTNVIZ_CLASSMODEL_H
#define ATTNVIZ_CLASSMODEL_H

#include <stddef.h>

#include "app.h"
#include "i18n.h"

#define CLASSMODEL_FILE  "stories260K.bin"
#define CLASSMODEL_WHERE "$ATTNVIZ_MODELS, models/ (here or beside attnviz), ../shared/models"
/* What w says when there is none: within 80 columns. */
#define CLASSMODEL_HOWTO N_("put stories260K.bin and tok512.bin (hf.co/karpathy/tinyllamas) in models/")

/* The path of the classroom's model in buf (cap bytes), or NULL when none
 * of the places holds a readable one. */
const char *classmodel_find(char *buf, size_t cap);

/* The title's phrase for a source of seeded weights, in the longest form
 * that fits `cols` columns: "random weights (seed 42) · w: trained",
 * "random weights · w: trained", "random weights", and "untrained" however
 * narrow (";" for "·" in ASCII); "" for a trained model or a Q/K/V file.
 * The key is offered only where it can act (not in a lesson, nor following
 * or publishing, nor in mask-edit mode). */
void classmodel_phrase(const App *a, char *buf, size_t cap, int cols);

/* w: the other weights on the same sentence. From seeded weights, the
 * classroom's trained model (built the first time, kept after); from a
 * trained model, seeded weights (random, seed 42) of the default shape;
 * w again goes back to the model as it was left, on the sentence as it is
 * now. The message says which and where from, or why not (none found: how
 * to get one). Returns 0. */
int app_switch_weights(App *a, const char *arg);

#endif
