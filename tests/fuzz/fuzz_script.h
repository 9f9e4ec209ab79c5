/* fuzz_script.h - what fuzz_lesson and fuzz_stream share: a small seeded
 * app to apply parsed script commands to (tui/lessons/script.h), and the guard that
 * keeps each run fast (a command that would grow the model past a few
 * thousand cells is parsed, checked, and not applied). */
#ifndef ATTNVIZ_FUZZ_SCRIPT_H
#define ATTNVIZ_FUZZ_SCRIPT_H

#include <string.h>

#include "app.h"
#include "canvas.h"
#include "fuzz_util.h"
#include "script.h"

/* 1 when applying c stays cheap. */
FUZZ_NO_COVERAGE static inline int fuzz_script_cheap(const ScriptCmd *c) {
    if (c->op == SC_CONFIG) {
        const ModelConfig *g = &c->cfg;
        if ((c->set & SET_D_MODEL) && g->d_model > 64) return 0;
        if ((c->set & SET_HEADS) && g->heads > 4) return 0;
        if ((c->set & SET_D_K) && g->d_k > 64) return 0;
        if ((c->set & SET_D_V) && g->d_v > 64) return 0;
    }
    if ((c->op == SC_SENTENCE || c->op == SC_TARGET || c->op == SC_QKV) && c->len > 200) return 0;
    if (c->op == SC_PAD && c->a > 16) return 0;
    return 1;
}

/* A fresh app on "the cat sat on the mat" (4 heads of d_k 16), made once. */
static Model *fuzz_script_model;
static App fuzz_script_app;

static inline App *fuzz_script_app_new(void) {
    if (fuzz_script_model) {
        app_free(&fuzz_script_app);
        model_free(fuzz_script_model);
    }
    Model *m = model_new();
    FUZZ_CHECK(m != NULL, "out of memory");
    AvError err = {0};
    ModelConfig c;
    model_config_default(&c);
    FUZZ_CHECK(model_set_config(m, &c, &err) == 0 && model_set_text(m, "the cat sat on the mat", 22, &err) == 0 &&
                   model_update(m, &err) == 0,
               "the fuzz model: %s", err.msg);
    fuzz_script_model = m;
    app_init(&fuzz_script_app, m, TIER_256, 0, 1, NULL);
    return &fuzz_script_app;
}

/* One frame on an 80x24 canvas: the state the commands made draws. */
static inline void fuzz_script_frame(App *a) {
    static Canvas *cv;
    if (!cv) cv = cv_new(80, 24);
    FUZZ_CHECK(cv != NULL, "out of memory");
    app_draw(a, cv);
}

#endif
