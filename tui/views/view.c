/* view.c - the view table and the whole screen: the chrome around the
 * current view, or the page over it (see view.h). */
#include "view.h"

#include "lesson.h"

#include <stdio.h>
#include <string.h>

#include "chrome.h"
#include "grid.h"
#include "i18n.h"
#include "text.h"

const View *const view_table[VIEW_KIND_COUNT] = {
    [VIEW_HEATMAP] = &view_heatmap, [VIEW_HEADS] = &view_heads,   [VIEW_PIPELINE] = &view_pipeline,
    [VIEW_GRAVITY] = &view_gravity, [VIEW_CENSUS] = &view_census, [VIEW_CLASSES] = &view_classes,
    [VIEW_ZOOM] = &view_zoom,       [VIEW_LENS] = &view_lens,
};

const View *view_of(ViewKind v) { return (unsigned)v < VIEW_KIND_COUNT ? view_table[v] : &view_heatmap; }

void view_body_size(const App *a, int *w, int *h) {
    *w = a->screen_w;
    *h = a->screen_h - lesson_caption_rows(a, a->screen_w, a->screen_h);
}

const View *view_shown(const App *a) {
    int w, h;
    view_body_size(a, &w, &h);
    if (a->view == VIEW_HEADS && grid_shows_classes(a, w, h)) return &view_classes;
    return view_of(a->view);
}

const View *view_page(const App *a) {
    switch (a->overlay) {
    case OVERLAY_HELP: return &page_help;
    case OVERLAY_CELL: return &page_cell;
    default: return NULL;
    }
}

const View *view_front(const App *a) {
    const View *p = view_page(a);
    return p ? p : view_of(a->view);
}

Stage view_needed_stage(const App *a) {
    const View *v = view_of(a->view);
    return v->needed_stage ? v->needed_stage(a) : STAGE_OUTPUT;
}

const char *app_view_name(ViewKind v) { return (unsigned)v < VIEW_KIND_COUNT ? view_table[v]->name : "?"; }

int app_view_parse(const char *s, ViewKind *out) {
    for (int v = 0; v < VIEW_KIND_COUNT; v++)
        if (strcmp(s, view_table[v]->name) == 0) {
            *out = (ViewKind)v;
            return 0;
        }
    return -1;
}

/* The smallest screen for what is shown: 80x24, or in projector mode for
 * the heatmap and the zoomed-out view less (app.h). */
static void min_size(const App *a, int *w, int *h) {
    int small = a->present && !view_page(a) && (a->view == VIEW_HEATMAP || a->view == VIEW_ZOOM);
    *w = small ? APP_PRESENT_MIN_W : APP_MIN_W;
    *h = small ? APP_PRESENT_MIN_H : APP_MIN_H;
}

/* The screen is w x h (the canvas may be the part above a lesson's caption). */
static void draw_too_small(const App *a, Canvas *cv, int screen_w, int screen_h) {
    char buf[160];
    int mw, mh;
    min_size(a, &mw, &mh);
    snprintf(buf, sizeof buf, _("terminal too small: need %dx%d, have %dx%d"), mw, mh, screen_w, screen_h);
    /* Projector mode: the heatmap fits less, the way out is said. */
    const char *out = _("q: the heatmap, which fits here in projector mode");
    int ow = text_width(out, strlen(out));
    if (a->present && mw == APP_MIN_W && screen_w >= APP_PRESENT_MIN_W && screen_h >= APP_PRESENT_MIN_H &&
        ow <= cv->w && cv->h > 2)
        cv_text(cv, cv->h / 2 + 1, (cv->w - ow) / 2, out, cv->w, style_plain());
    int w = text_width(buf, strlen(buf));
    if (w <= cv->w) {
        cv_text(cv, cv->h / 2, (cv->w - w) / 2, buf, cv->w, style_attr(ST_BOLD));
    } else { /* narrower than the message: a short form on two lines */
        char l1[96], l2[96];
        snprintf(l1, sizeof l1, _("too small: %dx%d"), screen_w, screen_h);
        snprintf(l2, sizeof l2, _("need %dx%d"), mw, mh);
        int y = cv->h > 1 ? cv->h / 2 - 1 : 0;
        cv_text(cv, y, 0, l1, cv->w, style_attr(ST_BOLD));
        cv_text(cv, y + 1, 0, l2, cv->w, style_attr(ST_BOLD));
    }
}

static void draw_body(App *a, Canvas *cv);

/* A lesson's caption under the view (lesson.h): the view drawn on the rows
 * above it. */
void app_draw(App *a, Canvas *cv) {
    a->screen_w = cv->w, a->screen_h = cv->h;
    int rows = lesson_caption_rows(a, cv->w, cv->h);
    Canvas *body = rows ? cv_new(cv->w, cv->h - rows) : NULL;
    if (!body) {
        draw_body(a, cv);
        return;
    }
    draw_body(a, body);
    cv_clear(cv);
    cv_blit(cv, 0, 0, body, 0, 0, body->h, body->w);
    cv_free(body);
    lesson_draw_caption(a, cv, cv->h - rows, rows);
}

static void draw_body(App *a, Canvas *cv) {
    app_update(a);
    cv_clear(cv);
    a->layout.valid = 0;
    /* The terminal's size, not the rows a lesson's caption leaves. */
    int mw, mh;
    min_size(a, &mw, &mh);
    if (a->enforce_min && (a->screen_w < mw || a->screen_h < mh)) {
        draw_too_small(a, cv, a->screen_w, a->screen_h);
        return;
    }
    const View *page = view_page(a);
    if (page && (!page->available || page->available(a, NULL))) {
        page->draw(a, cv);
        return;
    }
    chrome_draw_top(a, cv);
    if (a->m->n_q == 0 || a->m->n_k == 0) {
        cv_text(cv, TOP_LINES + 1, 2, _("no tokens: the sentence is empty or only spaces (press e to edit it)"),
                cv->w - 2, style_attr(ST_BOLD));
        chrome_draw_bottom(a, cv, NULL, TOP_LINES + 3);
        return;
    }
    view_of(a->view)->draw(a, cv);
}

static int body_natural_height(const App *a, int w) {
    const View *page = view_page(a);
    if (page) return page->natural_height(a, w);
    if (a->m->n_q == 0) return TOP_LINES + 3 + BOTTOM_LINES;
    return view_of(a->view)->natural_height(a, w);
}

/* With a lesson's caption under the view: rows for the whole caption too
 * (it takes at most a third of the screen). */
int app_natural_height(const App *a, int w) {
    int h = body_natural_height(a, w), caption = lesson_caption_rows(a, w, 1 << 20);
    if (!caption) return h;
    return h + caption > 3 * caption ? h + caption : 3 * caption;
}
