/* app.c - the application's state, the helpers its actions share
 * (app_internal.h), and the way a key or a name reaches an action. The
 * actions are in actions.c, the prompts in prompt.c, mask-edit in paint.c;
 * drawing is in view.c and the views of its table; the terminal loop in
 * screen.c. */
#include "app.h"

#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_internal.h"
#include "follow.h"
#include "classmap.h"
#include "grid.h"
#include "i18n.h"
#include "longtext.h"
#include "zoom.h"
#include "keymap.h"
#include "lesson.h"
#include "sourcenote.h"
#include "view.h"

void app_init(App *a, Model *m, ColorTier tier, int ascii, int dv_follows_dk, const char *pattern) {
    memset(a, 0, sizeof *a);
    a->shown = TENSOR_WEIGHTS;
#ifdef M_MMAP_THRESHOLD
    /* A key that changes a shape frees the model's arenas and allocates new
     * ones. Kept in the process (not mapped and unmapped each time), the
     * memory is reused without page faults: that is most of the cost of a
     * small recompute. */
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
#endif
    a->m = m;
    a->tier = tier;
    a->ascii = ascii;
    a->dv_follows_dk = dv_follows_dk;
    a->pattern = pattern;
    /* Each view's own data; a view whose data could not be made says so when drawn. */
    for (int v = 0; v < VIEW_KIND_COUNT; v++)
        if (view_table[v]->init) view_table[v]->init(a);
}

void app_free(App *a) {
    for (int v = 0; v < VIEW_KIND_COUNT; v++)
        if (view_table[v]->free) view_table[v]->free(a);
    cv_free(a->doc);
    a->doc = NULL;
    le_free(&a->edit);
    free(a->undo.grid);
    free(a->mask_comments);
    free(a->picture_pending);
    a->picture_pending = NULL;
    free(a->keep_text);
    a->keep_text = NULL;
    lesson_free(a->lesson);
    a->lesson = NULL;
    free(a->lesson_start);
    a->lesson_start = NULL;
    free(a->caption_title), free(a->caption_text);
    a->caption_title = a->caption_text = NULL;
    model_free(a->own_model); /* (the views' data, freed above, may point into it) */
    a->own_model = a->other_model = NULL;
}

int app_wake_ms(const App *a) { return a->wake_ms > 0 ? a->wake_ms : -1; }

int app_tick(App *a) {
    int work = a->wake_work;
    a->wake_ms = 0, a->wake_work = 0;
    return work;
}

void app_say(App *a, int error, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->msg, sizeof a->msg, fmt, ap);
    va_end(ap);
    a->msg_error = error;
}

int app_shown_available(const App *a, Shown s) { return tensor_info(s)->cycle > 0 && tensor_available(a->m, s); }

int app_shown_cols(const App *a) { return tensor_cols(a->m, a->shown); }

int app_shown_in_view(const App *a, Shown s) { return a->view != VIEW_HEADS || tensor_info(s)->scope == TS_HEAD; }

void app_clamp_cursor(App *a) {
    const Model *m = a->m;
    if (!app_shown_available(a, a->shown) || !app_shown_in_view(a, a->shown)) a->shown = TENSOR_WEIGHTS;
    if (a->head >= m->cfg.heads) a->head = m->cfg.heads - 1;
    if (a->head < 0) a->head = 0;
    int rows = m->n_q, cols = app_shown_cols(a);
    if (a->ci >= rows) a->ci = rows - 1;
    if (a->cj >= cols) a->cj = cols - 1;
    if (a->ci < 0) a->ci = 0;
    if (a->cj < 0) a->cj = 0;
}

/* On failure model_set_config leaves the model as it was: so does the app. */
void app_reconfigure(App *a, const ModelConfig *c, const char *done) {
    AvError err = {0};
    if (model_set_config(a->m, c, &err)) {
        app_say(a, 1, "%s", err.msg);
        return;
    }
    app_clamp_cursor(a);
    app_say(a, 0, "%s", done);
}

/* 1 (and the reason said) when the source cannot do what an action needs
 * (ActionDef.needs): change its shapes, its seed, its sentence, its
 * tokenizer or its score. */
/* 1 when the source lacks a capability that `needs` asks for. */
static int source_cannot(const App *a, unsigned needs) {
    static const struct {
        unsigned need, caps;
    } want[] = {{NEEDS_SENTENCE, SRC_RESHAPE},
                {NEEDS_TEXT, SRC_TEXT},
                {NEEDS_SEEDED, SRC_SEEDED},
                {NEEDS_TOOLS, SRC_TOKENIZERS},
                {NEEDS_SCORES, SRC_SCORE_KINDS}};
    for (size_t k = 0; k < sizeof want / sizeof *want; k++)
        if ((needs & want[k].need) && !model_can(a->m, want[k].caps)) return 1;
    return 0;
}

/* The same, saying what the source is and what can change. */
static int source_lacks(App *a, unsigned needs) {
    if (!source_cannot(a, needs)) return 0;
    const Source *src = a->m->src;
    char knobs[160];
    source_knobs_note(src, knobs, sizeof knobs);
    app_say(a, 1, "%s: %s", _(src->fixed), knobs);
    return 1;
}

int app_action_usable(const App *a, int act) {
    if (act <= ACT_NONE || act >= ACT_COUNT) return 1;
    return app_action_listed(a, act) && !source_cannot(a, app_actions[act].needs);
}

void app_set_dk(App *a, long dk) {
    ModelConfig c = a->m->cfg;
    char done[96];
    snprintf(done, sizeof done, "d_k %d -> %ld", c.d_k, dk);
    c.d_k = (int)dk;
    if (a->dv_follows_dk) c.d_v = c.d_k;
    app_reconfigure(a, &c, done);
}

void app_move_cursor(App *a, int di, int dj) {
    a->ci += di;
    a->cj += dj;
    app_clamp_cursor(a);
}

/* Runs act with arg through the page or view first, then the global table,
 * as a key would. Returns app_key's value (1: redraw), or -1 when the action
 * refused its argument (the message says why). */
static int dispatch(App *a, Action act, const char *arg) {
    /* The page (help, cell) or the view first: pages scroll and close. */
    const View *front = view_front(a);
    if (front->key) {
        int r = front->key(a, act);
        if (r != VIEW_KEY_PASS) return r;
    }
    if (act == ACT_PAINT_TOGGLE && !a->painting && a->lesson) act = ACT_LESSON_NEXT; /* Space: the next step */
    if (act <= ACT_NONE || act >= ACT_COUNT || !app_actions[act].run) return 0;
    const ActionDef *d = &app_actions[act];
    a->msg[0] = '\0';
    /* Asked once: any other key cancels the question. */
    if (act != ACT_QUIT) a->quit_asked = 0;
    if (source_lacks(a, d->needs)) return 1;
    if ((d->needs & NEEDS_LAYERS) && a->m->cfg.layers == 1) {
        app_say(a, 1, "%s", _("one layer only: { and } move between the layers of a model that has several"));
        return 1;
    }
    if ((d->needs & NEEDS_PREDICT) && !(a->m->src->next_tokens && a->m->src->continue_text)) {
        app_say(a, 1, "%s", _("n and N are for a trained model (--model PATH): it predicts the next token"));
        return 1;
    }
    if ((d->needs & NEEDS_TRAINED) && !a->m->src->ablate) {
        app_say(a, 1, "%s", _("X and U are for a trained model (--model PATH): its heads, its layers' guesses"));
        return 1;
    }
    if ((d->needs & NEEDS_LESSON) && !a->lesson) {
        app_say(a, 1, "%s", _("no lesson: attnviz --lesson N starts one (--lesson list)"));
        return 1;
    }
    if ((d->needs & NEEDS_PAINTING) && !a->painting) {
        app_say(a, 1, "%s", _("M starts mask-edit mode (Space, C, u and W paint, clear, undo and save the mask)"));
        return 1;
    }
    return d->run(a, arg) ? -1 : 1;
}

int app_action_listed(const App *a, int act) {
    if (act <= ACT_NONE || act >= ACT_COUNT) return 1;
    unsigned needs = app_actions[act].needs;
    if ((needs & NEEDS_LAYERS) && a->m->cfg.layers == 1) return 0;
    if ((needs & NEEDS_LESSON) && !a->lesson) return 0;
    if ((needs & NEEDS_FOLLOW) && !follow_is_follower(a->follow)) return 0;
    if ((needs & NEEDS_TRAINED) && !a->m->src->ablate) return 0;
    return !(needs & NEEDS_PREDICT) || a->m->src->next_tokens;
}

int app_key(App *a, AppKey k) {
    if (a->prompt != PROMPT_NONE) return app_prompt_key(a, k);
    if (a->keep_text) return app_first_tokens_key(a, k); /* "... y keeps the first N tokens" */
    if (a->picture_pending) {                            /* "FILE exists": y replaces it, any other key keeps it */
        char *path = a->picture_pending;
        a->picture_pending = NULL;
        if (!k.is_code && (k.ch == 'y' || k.ch == 'Y')) app_write_picture(a, path, 1);
        else app_say(a, 0, "%s", _("nothing written: the file stays as it was"));
        free(path);
        return 1;
    }
    /* A wide character is never a key binding (APP_KEY_* codes are above Unicode). */
    const KeyBinding *b = (!k.is_code && k.ch > 127) ? NULL : keymap_binding((int)k.ch);
    int r = dispatch(a, b ? b->action : ACT_NONE, b ? b->arg : NULL);
    return r < 0 ? 1 : r;
}

int app_run(App *a, const char *action, const char *arg) {
    char name[32];
    if (!action) action = "";
    /* "head 2": the name and its argument in one string. */
    const char *sp = strchr(action, ' ');
    if (sp && !arg) {
        snprintf(name, sizeof name, "%.*s", (int)(sp - action), action);
        arg = sp + 1;
        action = name;
    }
    Action act = ACT_NONE;
    for (int i = ACT_NONE + 1; i < ACT_COUNT; i++)
        if (app_actions[i].name && strcmp(app_actions[i].name, action) == 0) act = (Action)i;
    if (act == ACT_NONE) {
        app_say(a, 1, _("unknown action '%.64s'"), action);
        return -1;
    }
    if (arg && !(app_actions[act].needs & TAKES_ARG)) {
        app_say(a, 1, _("%s takes no argument (got '%.64s')"), action, arg);
        return -1;
    }
    if (a->prompt != PROMPT_NONE) {
        app_say(a, 1, _("%s: a prompt is open (Enter or Esc closes it first)"), action);
        return -1;
    }
    return dispatch(a, act, arg) < 0 ? -1 : 0;
}

int app_q_quits(const App *a, int prompt_closing) {
    return (prompt_closing || a->prompt == PROMPT_NONE) && a->overlay == OVERLAY_NONE && a->view == VIEW_HEATMAP &&
           !a->keep_text && (!a->paint_dirty || a->quit_asked);
}

/* The next-token panel's row: the model's update predicts it (the panel
 * only reads). */
static int next_row_shown(const App *a) { return a->show_next ? a->ci : -1; }

int app_needs_update(const App *a) {
    return a->m->stale <= view_needed_stage(a) || (a->show_next && !model_next_ready(a->m, a->ci));
}

void app_update(App *a) {
    if (!app_needs_update(a)) return;
    model_want_next(a->m, next_row_shown(a));
    model_update_to(a->m, view_needed_stage(a));
    app_clamp_cursor(a);
    if (a->show_next && !model_next_ready(a->m, a->ci)) { /* the cursor moved with the rows */
        model_want_next(a->m, a->ci);
        model_update_to(a->m, view_needed_stage(a));
    }
}

/* A click on a block of the all-heads view (one layer): that head, and the
 * cell under the pointer when it is on one. */
static void heads_click(App *a, int y, int x) {
    const HeadsLayout *L = &a->heads_layout;
    /* A block's title and key labels are the two rows above its cells. */
    if (!L->valid || L->block_w < 1 || L->block_h < 1 || y < L->y0 - 2 || x < L->x0) return;
    int br = (y - (L->y0 - 2)) / L->block_h, bc = (x - L->x0) / L->block_w;
    if (br >= L->rows || bc >= L->per_row) return;
    int h = (L->head0 + br) * L->per_row + bc;
    if (h >= a->m->cfg.heads) return;
    a->head = h;
    int r = y - (L->y0 + br * L->block_h), c = (x - L->x0 - bc * L->block_w) / (L->cw > 0 ? L->cw : 1);
    if (r >= 0 && r < L->rows_vis && c < L->cols_vis) {
        a->ci = L->row0 + r;
        a->cj = L->col0 + c;
    }
    app_clamp_cursor(a);
}

void app_mouse(App *a, int y, int x, int button) {
    if (a->prompt) return;
    if (button == 4 || button == 5) {
        /* The wheel scrolls what scrolls: a page (help, a cell's arithmetic)
         * and the pipeline; elsewhere it moves the cursor. */
        if (a->overlay != OVERLAY_NONE || a->view == VIEW_PIPELINE) {
            a->doc_y += button == 4 ? -3 : 3;
            if (a->doc_y < 0) a->doc_y = 0;
        } else {
            app_move_cursor(a, button == 4 ? -3 : 3, 0);
        }
        return;
    }
    if (a->overlay != OVERLAY_NONE) return;
    if (a->view == VIEW_HEADS && !grid_applies(a)) {
        if (button == 1) heads_click(a, y, x);
        return;
    }
    if (a->view == VIEW_CLASSES) {
        if (button == 1) classmap_click(a, y, x);
        return;
    }
    if (a->view == VIEW_ZOOM) {
        if (button == 1) zoom_click(a, y, x);
        return;
    }
    /* The layers x heads grid: a click chooses a thumbnail. */
    if (a->view == VIEW_HEADS && grid_applies(a)) {
        if (button == 1) grid_click(a, y, x);
        return;
    }
    const HeatLayout *L = &a->layout;
    if (button != 1 || !L->valid || L->cw < 1 || L->ch < 1) return;
    int r = (y - L->y0), col = (x - L->x0);
    if (r < 0 || col < 0) return;
    r /= L->ch, col /= L->cw;
    if (r >= L->rows || col >= L->cols) return;
    a->ci = L->row0 + r;
    a->cj = L->col0 + col;
    app_clamp_cursor(a);
}
