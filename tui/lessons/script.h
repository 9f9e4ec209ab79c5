/* script.h - the command language of lessons (lesson.h) and of the state a
 * teacher's attnviz publishes to its followers (follow.h): one command a
 * line, NAME [ARGUMENTS], each checked as strictly as the command line's
 * options (the same parsers) before anything is applied.
 *
 *   sentence "TEXT"            the sentence (C escapes: \\ \" \n \t \r \xHH)
 *   target "TEXT" | target     the target sentence of cross-attention, or none
 *   tokenizer words|gpt2|chars
 *   pad N                      N <pad> tokens after the sentence, 0..4096 (--pad)
 *   qkv "TEXT"                 Q, K and V of one head from TEXT, a Q/K/V file's
 *                              content (qkvfile.h; \n between its lines): the
 *                              model takes them as --qkv does (mask, scaling
 *                              and score stay); checked when parsed, its
 *                              errors "qkv:LINE:COL: what"
 *   config KEY=VALUE ...       any of d_model heads d_k d_v seed mask scale
 *                              pos score tie attn, applied at once
 *   d_model N  heads N  d_k N  d_v N  seed N  mask KIND  scale on|off
 *   pos none|sinusoidal  score KIND  tie on|off  attn MODE
 *                              one of them (d_v follows d_k when d_k alone
 *                              is given, as the key + does)
 *   view heatmap|heads|pipeline|gravity|census
 *   stage weights|scores|scaled|masked|output|x|pe|concat|y
 *   head N  layer N            1-based
 *   cursor I J                 the cell cursor (query row, key column), 0-based
 *   chain K                    the pipeline with its stage K at the top (1-based, as its footer
 *                              counts; [ and ] move it), whatever the screen's width
 *   cell | close               the cell arithmetic page opened / closed
 *   highlight row I | col J | cell I J | none
 *   contrast on|off  next on|off   z's row contrast, n's next-token panel
 *   key NAME [ARG]             any key's action by its name (app_run: "mask",
 *                              "all-heads", "pipeline", "head 2", ...)
 *   caption "TITLE" "TEXT" | caption
 *                              the caption a teacher's attnviz shows (its
 *                              lesson's step: follow.h), or none; TEXT's
 *                              paragraphs are separated by \n. Valid UTF-8,
 *                              no control or format character (but \n in
 *                              TEXT), at most SCRIPT_CAPTION_MAX_TITLE and
 *                              SCRIPT_CAPTION_MAX_TEXT bytes. Shown under
 *                              the view when no lesson of the app's own is
 *                              (App.caption_title, lesson_caption_now)
 *   # ...                      a comment (and blank lines): nothing
 *
 * Nothing in it runs a program or opens a file. */
#ifndef ATTNVIZ_SCRIPT_H
#define ATTNVIZ_SCRIPT_H

#include <stddef.h>

#include "app.h"
#include "error.h"

typedef enum {
    SC_NONE = 0, /* a blank line or a comment */
    SC_SENTENCE,
    SC_TARGET,
    SC_TOKENIZER,
    SC_CONFIG, /* config and the single settings: the fields in `set` */
    SC_VIEW,
    SC_STAGE,
    SC_HEAD,
    SC_LAYER,
    SC_CURSOR,
    SC_CHAIN,
    SC_CELL,
    SC_CLOSE,
    SC_HIGHLIGHT,
    SC_CONTRAST,
    SC_NEXT,
    SC_KEY,
    SC_QKV, /* text: the Q/K/V file's content */
    SC_PAD, /* a: the <pad> tokens */
    SC_CAPTION,
} ScriptOp;

/* The longest caption title and text (bytes) a caption command takes. */
#define SCRIPT_CAPTION_MAX_TITLE 1024
#define SCRIPT_CAPTION_MAX_TEXT  65536

/* The settings a config command names (a bit each) and their values. */
enum {
    SET_D_MODEL = 1 << 0,
    SET_HEADS = 1 << 1,
    SET_D_K = 1 << 2,
    SET_D_V = 1 << 3,
    SET_SEED = 1 << 4,
    SET_MASK = 1 << 5,
    SET_SCALE = 1 << 6,
    SET_POS = 1 << 7,
    SET_SCORE = 1 << 8,
    SET_TIE = 1 << 9,
    SET_ATTN = 1 << 10,
};

typedef struct {
    ScriptOp op;
    unsigned set;    /* SC_CONFIG: SET_* */
    ModelConfig cfg; /* SC_CONFIG: the values of the fields in `set` */
    long a, b;       /* numbers: head, layer, cursor, highlight (a, b: -1 when not given), on/off */
    int kind;        /* view, stage, tokenizer, highlight (HL_*) */
    char *text;      /* SC_SENTENCE, SC_TARGET (NULL: none), SC_QKV's file, SC_KEY's name, SC_CAPTION's title
                        (NULL: none) (owned) */
    size_t len;      /* its length (a sentence may hold NULs) */
    char *arg;       /* SC_KEY's argument, or NULL; SC_CAPTION's text (owned) */
} ScriptCmd;

/* Parses one line s[0..len) (no line break) into *out: 0, or -1 with the
 * reason in why (no file or line: the caller adds them). */
int script_parse(const char *s, size_t len, ScriptCmd *out, char *why, size_t cap);
void script_cmd_free(ScriptCmd *c); /* NULL-safe */

/* Applies a command to the app: 0, or -1 with err (a head past the heads,
 * a stage this model has not, a sentence over the budget...), the app
 * unchanged by that command then. */
int script_apply(App *a, const ScriptCmd *c, AvError *err);

/* The settings a config command names, onto *to (d_v follows a d_k given
 * alone, as in script_apply). */
void script_config_merge(ModelConfig *to, const ScriptCmd *c);

/* The app's state as commands, one a line (caller frees; NULL when out of
 * memory): a Q/K/V source's matrices (qkv, written again from the model's
 * copy of them), the tokenizer, the sentence, target and <pad> tokens, the
 * configuration, the view, stage, head, layer, cursor, page, highlight,
 * contrast and panel.
 * Applying it to an app on the same source gives the same screen. */
char *script_state(const App *a, size_t *len);

/* A string as a quoted script argument (\\ \" \n \t \r, other control
 * bytes and invalid UTF-8 as \xHH), appended to a malloc'd buffer. */
char *script_quote(const char *s, size_t len);

#endif
