/* paint.c - mask-edit mode: Space, C and u on the painted mask (with one
 * step of undo), and W, which writes it to --mask-file. */
#include <stdlib.h>
#include <string.h>

#include "app_internal.h"
#include "atomicfile.h"
#include "i18n.h"
#include "readfile.h"

/* W in mask-edit mode: the painted grid to --mask-file, all at once (a full
 * disk leaves the old file as it was). */
void app_save_mask(App *a) {
    if (!a->mask_file) {
        app_say(a, 1, "%s", _("no --mask-file given: nowhere to write the mask"));
        return;
    }
    if (strcmp(a->mask_file, "-") == 0) {
        app_say(a, 1, "%s", _("--mask-file -: standard input cannot be written; start with --mask-file FILE to save"));
        return;
    }
    const Model *m = a->m;
    AvError err = {0};
    unsigned char *grid = malloc((size_t)(m->n_q ? m->n_q : 1) * (size_t)(m->n_k ? m->n_k : 1));
    char *text = NULL;
    size_t len = 0;
    int rc = -1;
    if (!grid) {
        av_error_nomem(&err, _("out of memory"));
    } else {
        for (int i = 0; i < m->n_q; i++)
            for (int j = 0; j < m->n_k; j++) grid[(size_t)i * m->n_k + j] = (unsigned char)model_painted_at(m, i, j);
        rc = mask_format_grid(&text, &len, grid, m->n_q, m->n_k, a->mask_comments, AV_MAX_INPUT_BYTES, &err);
    }
    free(grid);
    if (rc == 0) rc = av_write_file_atomic(a->mask_file, text, len, &err);
    free(text);
    if (rc) {
        app_say(a, 1, _("mask not written: %s"), err.msg);
        return;
    }
    a->paint_dirty = 0;
    if (a->mask_comments_dropped)
        app_say(a, 0,
                P_("mask written to %s (%d x %d); %d comment after row values dropped (whole-line comments kept)",
                   "mask written to %s (%d x %d); %d comments after row values dropped (whole-line comments kept)",
                   a->mask_comments_dropped),
                a->mask_file, m->n_q, m->n_k, a->mask_comments_dropped);
    else app_say(a, 0, _("mask written to %s (%d x %d)"), a->mask_file, m->n_q, m->n_k);
}

/* A copy of the painted grid as it is (NULL with *q = *k = 0 when all is
 * visible). Returns -1 when out of memory. */
static int paint_snapshot(const Model *m, unsigned char **grid, int *q, int *k) {
    *grid = NULL;
    *q = *k = 0;
    if (!m->painted) return 0;
    size_t n = (size_t)m->painted_q * (size_t)m->painted_k;
    *grid = malloc(n ? n : 1);
    if (!*grid) return -1;
    memcpy(*grid, m->painted, n);
    *q = m->painted_q;
    *k = m->painted_k;
    return 0;
}

/* Space, C and u in mask-edit mode. */
void app_paint_key(App *a, Action act) {
    Model *m = a->m;
    PaintUndo *u = &a->undo;
    if (act == ACT_PAINT_TOGGLE) {
        model_paint_toggle(m, a->ci, a->cj);
        free(u->grid);
        *u = (PaintUndo){.kind = UNDO_TOGGLE, .i = a->ci, .j = a->cj};
        a->paint_dirty = 1;
        app_say(a, 0, model_painted_at(m, a->ci, a->cj) ? _("cell (%d, %d) shown") : _("cell (%d, %d) hidden"), a->ci,
                a->cj);
    } else if (act == ACT_PAINT_CLEAR) {
        unsigned char *g;
        int q, k;
        if (paint_snapshot(m, &g, &q, &k)) {
            app_say(a, 1, "%s", _("out of memory: the mask is not cleared (it could not be undone)"));
            return;
        }
        model_paint_clear(m);
        free(u->grid);
        *u = (PaintUndo){.kind = UNDO_GRID, .grid = g, .grid_q = q, .grid_k = k};
        a->paint_dirty = 1;
        app_say(a, 0, "%s", _("painted mask cleared: every cell visible (u undoes)"));
    } else if (u->kind == UNDO_NONE) {
        app_say(a, 1, "%s", _("nothing to undo: u undoes the last Space or C"));
    } else if (u->kind == UNDO_TOGGLE) {
        model_paint_toggle(m, u->i, u->j);
        a->paint_dirty = 1;
        app_say(a, 0,
                model_painted_at(m, u->i, u->j) ? _("undone: cell (%d, %d) shown again (u redoes)")
                                                : _("undone: cell (%d, %d) hidden again (u redoes)"),
                u->i, u->j);
    } else {
        /* Swap: the grid now becomes the step that u again puts back. */
        unsigned char *g;
        int q, k;
        AvError err = {0};
        if (paint_snapshot(m, &g, &q, &k)) {
            app_say(a, 1, "%s", _("out of memory: nothing undone"));
            return;
        }
        if (u->grid && model_set_painted(m, u->grid, u->grid_q, u->grid_k, &err)) {
            free(g);
            app_say(a, 1, _("%s: nothing undone"), err.msg);
            return;
        }
        if (!u->grid) model_paint_clear(m);
        free(u->grid);
        u->grid = g, u->grid_q = q, u->grid_k = k;
        a->paint_dirty = 1;
        app_say(a, 0, "%s", _("undone: the painted mask is back as it was (u redoes)"));
    }
}
