/* classmodel.c - see classmodel.h. */
#define _POSIX_C_SOURCE 200809L
#include "classmodel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app_internal.h"
#include "i18n.h"
#include "source_trained.h"
#include "text.h"
#include "view.h"

// ----------------------------------------------------------------------------
// where the model is

const char *classmodel_find(char *buf, size_t cap) {
    const char *env = getenv("ATTNVIZ_MODELS");
    char exe_models[4096] = "";
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            snprintf(exe_models, sizeof exe_models, "%s/models", exe);
        }
    }
    const char *dirs[] = {env && env[0] ? env : NULL, "models", exe_models[0] ? exe_models : NULL, "../shared/models",
                          "../../shared/models"};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        if (!dirs[i]) continue;
        if (snprintf(buf, cap, "%s/%s", dirs[i], CLASSMODEL_FILE) >= (int)cap) continue;
        if (access(buf, R_OK) == 0) return buf;
    }
    return NULL;
}

// ----------------------------------------------------------------------------
// what the title says

/* w can act here: not in a lesson (its steps are for its model), nor when a
 * class follows this screen or this screen follows a teacher's, nor while a
 * mask is being painted on this sentence. */
static const char *switch_refused(const App *a) {
    if (a->lesson) return _("w: not in a lesson (its steps are written for the model it started on)");
    if (a->follow) return _("w: not while publishing or following (the class must see one model)");
    if (a->painting) return _("w: M ends mask-edit first (the painted mask is this sentence's)");
    return NULL;
}

void classmodel_phrase(const App *a, char *buf, size_t cap, int cols) {
    buf[0] = '\0';
    if (!model_can(a->m, SRC_SEEDED)) return;
    const char *offer = switch_refused(a) ? "" : a->ascii ? _("; w: trained") : _(" · w: trained");
    char forms[4][160];
    snprintf(forms[0], sizeof forms[0], _("random weights (seed %llu)%s"), (unsigned long long)a->m->cfg.seed, offer);
    snprintf(forms[1], sizeof forms[1], "%s%s", _("random weights"), offer);
    snprintf(forms[2], sizeof forms[2], "%s", _("random weights"));
    snprintf(forms[3], sizeof forms[3], "%s", _("untrained"));
    for (int f = 0; f < 4; f++)
        if (f == 3 || text_width(forms[f], strlen(forms[f])) <= cols) {
            snprintf(buf, cap, "%s", forms[f]);
            return;
        }
}

// ----------------------------------------------------------------------------
// w

/* The other weights for the sentence of a->m, in a new model: the
 * classroom's trained model for seeded weights, seeded weights (the default
 * shape, a->m's mask) for a trained model. NULL with the message said. */
static Model *build_other(App *a) {
    const Model *now = a->m;
    if (!model_can(now, SRC_TEXT)) {
        app_say(a, 1, "%s", _("w: Q, K and V come from a file: there is no sentence for other weights"));
        return NULL;
    }
    char path[4096];
    int to_trained = model_can(now, SRC_SEEDED);
    if (to_trained && !classmodel_find(path, sizeof path)) {
        app_say(a, 1, "w: %s", _(CLASSMODEL_HOWTO));
        return NULL;
    }
    Model *m = model_new();
    if (!m) {
        app_say(a, 1, "%s", _("out of memory"));
        return NULL;
    }
    AvError err = {0};
    ModelConfig c;
    int rc;
    if (to_trained) {
        rc = model_set_trained(m, path, NULL, now->text, now->text_len, &err);
        c = m->cfg;
        c.mask = MASK_CAUSAL; /* a decoder's own mask, as it was trained */
    } else {
        model_config_default(&c);
        c.mask = now->cfg.mask;
        rc = model_set_config(m, &c, &err) || model_set_text(m, now->text, now->text_len, &err);
    }
    if (!rc) rc = model_set_config(m, &c, &err);
    if (rc) {
        app_say(a, 1, _("w: %s; the weights stay as they were"), err.msg);
        model_free(m);
        return NULL;
    }
    return m;
}

/* The app on another model: each view's data made again, the page closed,
 * and the view, head, stage and cursor kept where the model has them. */
static void show_model(App *a, Model *m) {
    a->m = m;
    for (int v = 0; v < VIEW_KIND_COUNT; v++) {
        if (view_table[v]->free) view_table[v]->free(a);
        if (view_table[v]->init) view_table[v]->init(a);
    }
    a->overlay = OVERLAY_NONE;
    if (view_of(a->view)->available && !view_of(a->view)->available(a, NULL)) a->view = VIEW_HEATMAP;
    a->layout.valid = a->heads_layout.valid = 0;
    a->row0 = a->col0 = a->head0 = a->doc_y = a->doc_x = 0;
    a->mask_before_causal.kept = 0;
    free(a->undo.grid);
    memset(&a->undo, 0, sizeof a->undo);
    app_clamp_cursor(a);
}

int app_switch_weights(App *a, const char *arg) {
    (void)arg;
    const char *why = switch_refused(a);
    if (why) {
        app_say(a, 1, "%s", why);
        return 0;
    }
    if (!a->other_model) {
        Model *m = build_other(a);
        if (!m) return 0;
        a->own_model = a->other_model = m;
    } else if (a->other_model->text_len != a->m->text_len ||
               memcmp(a->other_model->text, a->m->text, a->m->text_len) != 0) {
        /* The same sentence on the other weights, as edited since. */
        AvError err = {0};
        if (model_set_text(a->other_model, a->m->text, a->m->text_len, &err)) {
            app_say(a, 1, _("w: %s; the weights stay as they were"), err.msg);
            return 0;
        }
    }
    Model *was = a->m;
    show_model(a, a->other_model);
    a->other_model = was;
    if (model_can(a->m, SRC_SEEDED)) {
        app_say(a, 0, _("w: random weights (seed %llu) on this sentence; w again: %s"),
                (unsigned long long)a->m->cfg.seed, was->src->title ? was->src->title(was) : _("the trained model"));
    } else {
        char path[4096];
        const char *from = a->m == a->own_model ? classmodel_find(path, sizeof path) : NULL;
        char *slash = from ? strrchr(path, '/') : NULL;
        if (slash) *slash = '\0';
        const char *title = a->m->src->title ? a->m->src->title(a->m) : _("the model");
        if (from) app_say(a, 0, _("w: trained weights: %s from %s; w again: random"), title, path);
        else app_say(a, 0, _("w: trained weights: %s; w again: random"), title);
    }
    return 0;
}
