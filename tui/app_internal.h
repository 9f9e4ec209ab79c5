/* app_internal.h - what the app's files share (app.h is the public side):
 * the message, the cursor and configuration helpers of app.c, the prompts of
 * prompt.c, mask-edit of paint.c, and the action table of actions.c that
 * app.c dispatches through. Not for the views. */
#ifndef ATTNVIZ_APP_INTERNAL_H
#define ATTNVIZ_APP_INTERNAL_H

#include "app.h"
#include "keymap.h"

// ----------------------------------------------------------------------------
// app.c

/* Sets the message line (error: shown as an error). */
void app_say(App *a, int error, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Columns of the matrix shown: keys, or the widths of the other stages. */
int app_shown_cols(const App *a);

/* 1 when the view shows s: the all-heads view only a head's own tensors. */
int app_shown_in_view(const App *a, Shown s);

/* Keeps the stage, head and cursor inside what the model has now. */
void app_clamp_cursor(App *a);

/* Moves the cursor by (di, dj), kept inside the matrix. */
void app_move_cursor(App *a, int di, int dj);

/* Applies a new configuration: on success `done` is said (the stale stages
 * are recomputed by app_update before the next frame, once for all the keys
 * that arrived together); on failure the message says why and nothing
 * changed. */
void app_reconfigure(App *a, const ModelConfig *c, const char *done);

/* d_k (and d_v when it follows d_k) set to dk, as app_reconfigure. */
void app_set_dk(App *a, long dk);

// ----------------------------------------------------------------------------
// prompt.c

/* Opens the prompt of kind on the value it edits (the message is cleared). */
void app_open_prompt(App *a, PromptKind kind);

/* A key while a prompt is open: edits, or Enter applies and Esc cancels.
 * Returns 1 when the screen should be redrawn. */
int app_prompt_key(App *a, AppKey k);

// ----------------------------------------------------------------------------
// paint.c

/* Space (ACT_PAINT_TOGGLE), C (ACT_PAINT_CLEAR) and u (ACT_PAINT_UNDO) in
 * mask-edit mode; W is app_save_mask (app.h). */
void app_paint_key(App *a, Action act);

// ----------------------------------------------------------------------------
// actions.c

/* An action: 0, or -1 for a bad argument (the message says why). */
typedef int (*ActionRun)(App *a, const char *arg);

/* What an action needs of the model or the mode; without it the action
 * says so and does nothing. */
enum {
    NEEDS_SENTENCE = 1 << 0, /* the seeded sentence's shapes (SRC_RESHAPE) */
    NEEDS_PAINTING = 1 << 1, /* mask-edit mode */
    TAKES_ARG = 1 << 2,      /* an argument is allowed (app_run) */
    NEEDS_LAYERS = 1 << 3,   /* a source of several layers (and only then in the help) */
    NEEDS_TEXT = 1 << 4,     /* an editable sentence (SRC_TEXT) */
    NEEDS_SEEDED = 1 << 5,   /* seeded weights (SRC_SEEDED) */
    NEEDS_TOOLS = 1 << 6,    /* tokenizer presets, a target, attention modes (SRC_TOKENIZERS) */
    NEEDS_SCORES = 1 << 7,   /* any score kind (SRC_SCORE_KINDS) */
    NEEDS_PREDICT = 1 << 8,  /* a model that predicts the next token (and only then in the help) */
    NEEDS_LESSON = 1 << 9,   /* a lesson (--lesson; and only then in the help) */
    NEEDS_FOLLOW = 1 << 10,  /* following a teacher (--follow; only then in the help) */
    NEEDS_TRAINED = 1 << 11, /* a trained model (its interventions, its lens; and only then in the help) */
};

typedef struct {
    const char *name; /* for app_run and scripts */
    unsigned needs;   /* NEEDS_* | TAKES_ARG */
    ActionRun run;
} ActionDef;

/* Every action by its Action code; an entry without run is no action. */
extern const ActionDef app_actions[ACT_COUNT];

#endif
