/* view.h - the views as a table, as tmux's window modes: each view (heatmap,
 * all heads, pipeline, gravity) and each page over a view (help, the cell's
 * arithmetic) is one View with designated initializers, defined in its own
 * file. app_draw draws the shared chrome (chrome.h) and asks the current
 * view for the rest; app_key asks the page or view first, then the global
 * key table; --view, the help and the stage to compute iterate the table. */
#ifndef ATTNVIZ_VIEW_H
#define ATTNVIZ_VIEW_H

#include <stddef.h>

#include "app.h"
#include "census.h"
#include "canvas.h"
#include "keymap.h"

/* What of the shared chrome a view has. */
enum {
    VIEW_HEAD_STATS = 1 << 0, /* the info line shows the head's mean entropy (and asymmetry) */
    VIEW_INSPECTOR = 1 << 1,  /* the two inspector lines under the legend: the cursor's cell */
    VIEW_ROW_STATS = 1 << 2,  /* the legend explains the row flag and H */
};

/* The key handler's answer that passes the key on to the global table. */
#define VIEW_KEY_PASS (-1)

typedef struct View {
    const char *name;         /* --view NAME; the help's heading */
    const char *const *about; /* what it shows, for the help (NULL-terminated) */
    /* 1 when it can be drawn for a->m; otherwise 0 and *why (may be NULL) a
     * one-line reason. NULL: always. */
    int (*available)(const App *a, const char **why);
    Stage (*needed_stage)(const App *a);                /* the last stage it shows; NULL: STAGE_OUTPUT */
    void (*title)(const App *a, char *buf, size_t cap); /* line 1 of the screen; NULL for pages */
    /* Draws it: a view below the top lines (and the bottom lines it wants),
     * a page the whole canvas. */
    void (*draw)(App *a, Canvas *cv);
    /* A key's action before the global table: VIEW_KEY_PASS passes it on,
     * otherwise app_key returns the value (1: redraw). NULL: passes all. */
    int (*key)(App *a, Action act);
    int (*natural_height)(const App *a, int w); /* rows to show all of it at width w (--once) */
    int (*init)(App *a);                        /* makes its own data in a->view_data[its kind]; NULL: none */
    void (*free)(App *a);                       /* frees what init made; NULL: nothing */
    unsigned flags;                             /* VIEW_HEAD_STATS | VIEW_INSPECTOR | VIEW_ROW_STATS */
} View;

/* The entries, each in its file: heatmap.c, pipeline.c, gravity.c, census.c, classmap.c, zoom.c, help.c,
 * cellpage.c. */
extern const View view_heatmap, view_heads, view_pipeline, view_gravity, view_census, view_classes, view_zoom,
    view_lens;
extern const View page_help, page_cell;

/* The views in ViewKind order (--view, the help). */
extern const View *const view_table[VIEW_KIND_COUNT];

/* The view of kind v (the heatmap for a kind out of range). */
const View *view_of(ViewKind v);
/* The columns and rows of the last frame's view: the screen less a lesson's
 * caption. */
void view_body_size(const App *a, int *w, int *h);
/* The view drawn now: the current one, or the class map where the all-heads
 * view of several layers shows it (grid.h: its thumbnails do not all fit the
 * last frame's screen). The chrome reads its flags. */
const View *view_shown(const App *a);
/* The page over the view (help, cell), or NULL. */
const View *view_page(const App *a);
/* What takes the keys and the screen: the page, or else the view. */
const View *view_front(const App *a);

/* The last stage the current view shows. */
Stage view_needed_stage(const App *a);

/* The head census of the model as it is now (census.c keeps it between
 * frames and makes it again when the weights change), or NULL and *why a
 * one-line reason (cross-attention, no tokens, memory). */
const Census *view_census_of(App *a, const char **why);

#endif
