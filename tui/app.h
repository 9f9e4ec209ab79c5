/* app.h - the interactive application without the terminal: its state, what
 * a key does to it (app_key) and how it is drawn on a canvas (app_draw).
 * screen.c runs it on ncurses; --once and the tests draw it on a text canvas.
 *
 * Key -> action (keymap) -> model setter -> model_update (only the stale
 * stages) -> draw. Switching heads, stages or views recomputes nothing. */
#ifndef ATTNVIZ_APP_H
#define ATTNVIZ_APP_H

#include <stdint.h>

#include "canvas.h"
#include "lineedit.h"
#include "model.h"
#include "palette.h"
#include "tensor.h"

/* The smallest screen the interactive views are laid out for; in projector
 * mode (present) the heatmap and the zoomed-out view fit a smaller one. */
#define APP_MIN_W         80
#define APP_MIN_H         24
#define APP_PRESENT_MIN_W 56
#define APP_PRESENT_MIN_H 16

typedef enum {
    VIEW_HEATMAP,
    VIEW_HEADS,
    VIEW_PIPELINE,
    VIEW_GRAVITY,
    VIEW_CENSUS,
    VIEW_CLASSES, /* the layers x heads class map (classmap.h) */
    VIEW_ZOOM,    /* a long text zoomed out (zoom.h) */
    VIEW_LENS,    /* the logit lens of a trained model (lens.c) */
    VIEW_KIND_COUNT
} ViewKind;

/* The tensor the heatmap shows: v cycles through the catalogue's cycle
 * (tensor.h); the head's stages, or the whole layer's (not for a source
 * without embeddings and weights; PE only when on). */
typedef Tensor Shown;

/* What a lesson step highlights in the heatmap (script.h: highlight). */
enum { HL_NONE = 0, HL_ROW, HL_COL, HL_CELL };

/* A full-screen page over the view: help, or the arithmetic of one cell. */
typedef enum { OVERLAY_NONE, OVERLAY_HELP, OVERLAY_CELL } Overlay;

typedef enum { PROMPT_NONE, PROMPT_DK, PROMPT_TEXT, PROMPT_TARGET, PROMPT_PICTURE, PROMPT_JUMP } PromptKind;

/* What u undoes in mask-edit mode: one step, and u again redoes it. */
typedef struct {
    enum { UNDO_NONE, UNDO_TOGGLE, UNDO_GRID } kind;
    int i, j;            /* UNDO_TOGGLE: the cell Space toggled */
    unsigned char *grid; /* UNDO_GRID, owned: the painted grid to put back (NULL: all visible) */
    int grid_q, grid_k;  /* its shape */
} PaintUndo;

/* Where the last frame put the heatmap cells: for mouse clicks. */
typedef struct {
    int valid;
    int y0, x0;     /* top-left screen cell of the first visible heatmap cell */
    int cw, ch;     /* cell width and height */
    int rows, cols; /* visible rows and columns */
    int row0, col0; /* first visible row and column */
} HeatLayout;

/* Where the last frame put the blocks of the all-heads view (one layer):
 * head h is at block (h / per_row - head0, h % per_row). */
typedef struct {
    int valid;
    int y0, x0;           /* top-left of the first block's first cell (below its title and key labels) */
    int block_w, block_h; /* a block's size, its title line included in block_h */
    int per_row, rows;    /* blocks a row, rows of blocks shown */
    int head0;            /* first row of blocks shown */
    int cw;               /* a cell's width */
    int row0, col0;       /* first query row and key column shown in each block */
    int rows_vis, cols_vis;
} HeadsLayout;

/* A mask to restore (kept: 1 when there is one). */
typedef struct {
    int kept;
    MaskKind mask;
    int window, prefix;
} MaskBefore;

typedef struct Lesson Lesson;
typedef struct Follow Follow;

typedef struct {
    Model *m; /* not owned */
    ViewKind view;
    Overlay overlay;  /* help or cell arithmetic over the view */
    int doc_y, doc_x; /* scroll of the overlay or of the pipeline view (there doc_x counts matrix columns) */
    Canvas *doc;      /* owned: what the pages and the pipeline draw at full size, kept between frames */
    void *view_data[VIEW_KIND_COUNT]; /* each view's own data (View.init makes it, View.free frees it) */
    int head;                         /* head shown, 0-based */
    Shown shown;
    int ci, cj;     /* cursor: query row, key column (or d_v column in output) */
    int row0, col0; /* scroll offsets of the single-head heatmap */
    int head0;      /* first head row shown in the all-heads view */
    PromptKind prompt;
    LineEdit edit; /* the prompt's text */
    char msg[512]; /* message for the status area ("" = none) */
    int msg_error; /* the message reports an error */
    ColorTier tier;
    int ascii;           /* ASCII glyphs only */
    int dv_follows_dk;   /* d_v was not given: it moves with d_k */
    const char *pattern; /* --pattern, included in the t cycle when given */
    int quit;
    int painting;                  /* mask-edit mode: Space toggles a cell */
    int show_next;                 /* n: the model's next tokens under the inspector */
    int row_contrast;              /* z: the weights coloured row by row, 0 .. each row's largest */
    const char *mask_file;         /* --mask-file: where W writes the painted mask */
    char *mask_comments;           /* owned: the '#' lines of --mask-file that W writes back (or NULL) */
    int mask_comments_dropped;     /* comments after a row's values in it: W cannot keep them */
    int paint_dirty;               /* painted since the last W (or the start): q asks first */
    int quit_asked;                /* the last key was a q that asked: q again quits */
    PaintUndo undo;                /* u: the last Space or C undone (u again: redone) */
    MaskBefore mask_before_causal; /* x: the mask before causal-self set the causal one */
    int computing;                 /* a recompute is under way: the status line says so */
    int enforce_min;               /* interactive: below APP_MIN_W x APP_MIN_H say so */
    int wake_ms;                   /* > 0: app_tick after that many ms without input (0: wait for input) */
    int wake_work;                 /* the tick asked for is to go on with work (a frame is due) */
    int stepwise;                  /* interactive: long work (the census's batteries) in steps across frames;
                                      0 (--once, --export): all of it in the one frame */
    HeatLayout layout;
    HeadsLayout heads_layout; /* where the last frame put the blocks of all heads side by side */
    int screen_w, screen_h;   /* the last frame's size: what P writes */
    int hl_kind, hl_i, hl_j;  /* HL_*: a row, a column or a cell the heatmap marks (a lesson's) */
    int present;              /* B, --present: projector mode (bigger cells, less chrome, large captions) */
    int pipe_top;             /* the pipeline's stage at the top, 1-based ([ ] and `chain K`), whatever the width;
                                 0: the scroll (doc_y) alone */
    Lesson *lesson;           /* owned: the lesson (lesson.h), or NULL */
    int lesson_step;          /* the step shown, 0-based */
    int lesson_left;          /* L: the lesson left (the state stays); L again goes back to its step */
    char *lesson_start;       /* owned: the state the lesson started from (script.h commands) */
    char *picture_pending;    /* owned: a picture's file that exists; y overwrites it, another key keeps it */
    char *keep_text;          /* owned: a sentence with more tokens than fit (longtext.h); y keeps its first
                                 keep_n tokens, another key drops it; NULL: no such offer */
    size_t keep_len;          /* its bytes */
    int keep_n;               /* the tokens that fit */
    char jump_last[128];      /* the last text / jumped to (offered by the next /) */
    char *caption_title;      /* owned: the caption of a teacher's attnviz (script.h: caption), shown under the
                                 view when the app has no lesson of its own (lesson_caption_now); NULL: none */
    char *caption_text;       /* owned: its text, paragraphs separated by "\n" (set with caption_title) */
    Follow *follow;           /* not owned (main.c): --publish or --follow (follow.h), or NULL */
    Model *other_model;       /* w: the weights not shown (trained or random, classmodel.h), or NULL */
    Model *own_model;         /* owned: the model w built (m or other_model), or NULL */
} App;

/* P: the screen as it is now (the last frame's size, without the prompt)
 * written to `path` as a picture (picture.h: .svg, .png or .html), all at
 * once (a temporary file renamed); the message says what was written or why
 * not. An existing file is replaced only when `overwrite`. Returns 0 or -1. */
int app_write_picture(App *a, const char *path, int overwrite);
/* The name P offers: "attnviz-head1-weights.svg" (the view, head, layer and
 * stage shown). */
void app_picture_name(const App *a, char *buf, size_t cap);

/* Initializes the app on an up-to-date model. */
void app_init(App *a, Model *m, ColorTier tier, int ascii, int dv_follows_dk, const char *pattern);
void app_free(App *a); /* frees the prompt, the undo step, mask_comments and the model w built; not m */

/* The app's own codes of the keys that are not characters (AppKey with
 * is_code 1): screen.c translates ncurses' KEY_* into them (keycode.h), so
 * that the app and its key table know nothing of curses. Above Unicode, so
 * that one int holds a character or a code (keymap.h). */
enum {
    APP_KEY_UP = 0x110000,
    APP_KEY_DOWN,
    APP_KEY_LEFT,
    APP_KEY_RIGHT,
    APP_KEY_PAGE_UP,
    APP_KEY_PAGE_DOWN,
    APP_KEY_HOME,
    APP_KEY_END,
    APP_KEY_BACK_TAB,
    APP_KEY_BACKSPACE,
    APP_KEY_DELETE,
    APP_KEY_ENTER,
    APP_KEY_UNKNOWN /* a code the app has no use for */
};

/* A key from the terminal: a character (is_code 0) or an APP_KEY_* code. */
typedef struct {
    int is_code;
    uint32_t ch;
} AppKey;

/* Applies one key: changes the model's configuration (cheap setters) but
 * does not recompute; app_update (called by app_draw) does, once for however
 * many keys came in a row. Returns 1 when the screen should be redrawn. */
int app_key(App *a, AppKey k);

/* Runs the action named `action` (keymap.c's keys run the same actions),
 * with its argument arg (NULL: none), as its key would: "mask", "scale",
 * "stage", "head" "2" (1-based), "view" "pipeline", "dk" "8" (d_k at once;
 * without an argument the prompt opens), "down", "help"... The argument may
 * also follow the name after one space: app_run(a, "head 2", NULL). Like
 * app_key it does not recompute (app_update does). Returns 0, or -1 for an
 * unknown action, an argument it does not take or refuses, or an open
 * prompt; a->msg then says why. For tests and lesson scripts. */
int app_run(App *a, const char *action, const char *arg);

/* 0 when the help leaves out the keys of act: they need what the model has
 * not (the layer keys with one layer). */
int app_action_listed(const App *a, int act);
/* 1 when act can do something with this source (the hint line shows only
 * those: no "+/- d_k" for a Q/K/V file or a trained model). */
int app_action_usable(const App *a, int act);

/* One character of a bracketed paste (the terminal marks pasted text): in a
 * prompt it is text, whatever it is (ESC, CR and NUL included: editing keeps
 * every byte); outside a prompt a paste runs no keys (a message says so).
 * Returns 1 when the screen should be redrawn. */
int app_paste_char(App *a, uint32_t cp);

/* 1 when q would quit now (no prompt, page or pipeline that q closes first,
 * nothing unsaved to ask about): screen.c acts on such a q at once, even
 * during a long recompute. With prompt_closing, as if the prompt were
 * closed (Enter closes it before its setter runs). */
int app_q_quits(const App *a, int prompt_closing);

/* Recomputes the stale stages the current screen needs, if any. */
void app_update(App *a);
/* 1 when app_update has something to recompute. */
int app_needs_update(const App *a);

/* How long the interactive loop waits without input before it calls
 * app_tick: milliseconds, or -1 for no timeout (an idle attnviz waits for
 * input and uses no CPU). Set a->wake_ms to ask. */
int app_wake_ms(const App *a);
/* The time app_wake_ms asked for passed without input (counted from the
 * last frame). The request is spent: what wants another tick asks again.
 * Returns 1 when the screen should be redrawn: work asked to go on
 * (wake_work: the census's batteries, a frame at a time). */
int app_tick(App *a);

/* A mouse event: press of button 1 at (y, x) moves the cursor to that cell;
 * wheel up/down (button 4/5) moves it by 3 rows. */
void app_mouse(App *a, int y, int x, int button);

/* Writes the painted mask to a->mask_file (W in mask-edit mode), atomically
 * (av_write_file_atomic); the status line says where, or why not. */
void app_save_mask(App *a);

/* Draws the whole screen for the current view on cv. */
void app_draw(App *a, Canvas *cv);

/* Rows the current view needs to show everything at width w without scrolling
 * (for --once). */
int app_natural_height(const App *a, int w);

/* 1 when stage s can be shown for this model (PE only with positional
 * encoding on; layer stages not for a Q/K/V file). */
int app_shown_available(const App *a, Shown s);

/* Name of a view for --view: "heatmap", "heads", "pipeline". */
const char *app_view_name(ViewKind v);
int app_view_parse(const char *s, ViewKind *out);

#endif
