/* keymap.h - the ONE table of keys: each binding's keys, action (with its
 * argument; actions.c names each action, app.c runs it) and help text. The
 * help screen and the key-hint line are generated from it, so they cannot
 * drift apart from what the keys do. */
#ifndef ATTNVIZ_KEYMAP_H
#define ATTNVIZ_KEYMAP_H

typedef enum {
    ACT_NONE,
    ACT_QUIT,
    ACT_HELP,
    ACT_ESCAPE,
    ACT_UP,
    ACT_DOWN,
    ACT_LEFT,
    ACT_RIGHT,
    ACT_PAGE_UP,
    ACT_PAGE_DOWN,
    ACT_HOME,
    ACT_END,
    ACT_NEXT_HEAD,
    ACT_PREV_HEAD,
    ACT_HEAD, /* show head N (the binding's argument, 1-based) */
    ACT_ALL_HEADS,
    ACT_PIPELINE,
    ACT_OPEN,
    ACT_MASK,
    ACT_SCALE,
    ACT_DK_DOUBLE,
    ACT_DK_HALVE,
    ACT_HEAD_MORE,
    ACT_HEAD_FEWER,
    ACT_DK_PROMPT,
    ACT_SEED,
    ACT_POS,
    ACT_EDIT,
    ACT_TOKENIZER,
    ACT_STAGE,
    ACT_REDRAW,
    ACT_SCORE,  /* next score kind */
    ACT_TIE,    /* tie Q and K */
    ACT_ATTN,   /* next attention mode */
    ACT_TARGET, /* edit the target sentence */
    ACT_MASK_PARAM_UP,
    ACT_MASK_PARAM_DOWN,
    ACT_PAINT_MODE, /* mask-edit mode on/off */
    ACT_PAINT_TOGGLE,
    ACT_PAINT_CLEAR,
    ACT_PAINT_UNDO, /* undo the last Space or C (again: redo) */
    ACT_PAINT_SAVE,
    ACT_GRAVITY,
    ACT_VIEW,       /* no key: app_run's "view NAME" */
    ACT_LAYER_NEXT, /* a source of several layers: the next layer, the previous one */
    ACT_LAYER_PREV,
    ACT_NEXT_PANEL,  /* a model that predicts: its next tokens after the cursor's row */
    ACT_CONTINUE,    /* ... and the likeliest one appended to the sentence */
    ACT_CENSUS,      /* the head census: every layer and head scored */
    ACT_CONTRAST,    /* the weights' colours row by row: 0 .. each row's largest weight */
    ACT_PICTURE,     /* the screen written as a picture (SVG, PNG, HTML) */
    ACT_LESSON_NEXT, /* a lesson's next step (Space when not painting) */
    ACT_LESSON_PREV,
    ACT_LESSON_RESTART,
    ACT_LESSON_LEAVE, /* leave the lesson (the state stays); again: back to its step */
    ACT_PRESENT,      /* projector mode on/off */
    ACT_FOLLOW,       /* follow the teacher again (--follow, follow.h) */
    ACT_CLASSES,      /* the class map of every layer and head (classmap.h) */
    ACT_ZOOM,         /* a long text zoomed out (zoom.h) */
    ACT_JUMP,         /* the cursor to a token, by its position or text (a prompt) */
    ACT_WEIGHTS,      /* w: trained weights / random weights on the same sentence (classmodel.h) */
    ACT_ABLATE,       /* X: the head shown switched off (zero, then mean ablation) and on again */
    ACT_LENS,         /* U: the logit lens of a trained model and back */
    ACT_COUNT
} Action;

/* Key codes are the app's: a character, or an APP_KEY_* code (app.h). */
typedef struct {
    int keys[4];             /* up to 4 codes, 0-terminated */
    const char *label;       /* how help shows the keys: "←↓↑→ h j k l" */
    const char *ascii_label; /* the same in ASCII, or NULL when label is ASCII */
    Action action;
    const char *help; /* one line for the help screen */
    const char *hint; /* item of the hint line, "<keys> <word>" (keys of this binding
                         or of its pair, e.g. "+/- d_k"), or NULL: not hinted */
    int hint_rank;    /* hint order: lower first; the hint line drops the highest first */
    const char *arg;  /* the action's argument (app_run's), or NULL: "2" for head 2 */
} KeyBinding;

extern const KeyBinding keymap[];
extern const int keymap_count;

/* The action of a key code, or ACT_NONE. */
Action keymap_action(int key);
/* The binding of a key code, or NULL. */
const KeyBinding *keymap_binding(int key);

#endif
