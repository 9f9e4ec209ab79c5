/* app.c - the application's state and what each key does to it. Drawing is
 * in view.c and the views of its table; the terminal loop in screen.c. */
#include "app.h"

#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomicfile.h"
#include "cli.h"
#include "formula.h"
#include "keymap.h"
#include "readfile.h"
#include "utf8.h"
#include "gravity.h"
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
}

int app_wake_ms(const App *a) { return a->wake_ms > 0 ? a->wake_ms : -1; }

int app_tick(App *a) {
    a->wake_ms = 0;
    return 0;
}

static void say(App *a, int error, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void say(App *a, int error, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->msg, sizeof a->msg, fmt, ap);
    va_end(ap);
    a->msg_error = error;
}

int app_shown_available(const App *a, Shown s) { return tensor_info(s)->cycle > 0 && tensor_available(a->m, s); }

/* The all-heads view shows only a head's own tensors. */
static int shown_in_view(const App *a, Shown s) { return a->view != VIEW_HEADS || tensor_info(s)->scope == TS_HEAD; }

/* Columns of the matrix shown: keys, or the widths of the other stages. */
static int shown_cols(const App *a) { return tensor_cols(a->m, a->shown); }

/* The next stage shown by v: the all-heads view only cycles through the
 * stages of a head; stages that do not apply are skipped. */
static void next_shown(App *a) {
    int n = tensor_cycle_len(), at = tensor_info(a->shown)->cycle - 1;
    for (int k = 1; k <= n; k++) {
        Shown s = tensor_cycle_at((at + k) % n);
        if (!shown_in_view(a, s)) continue;
        if (app_shown_available(a, s)) {
            a->shown = s;
            return;
        }
    }
}

static void clamp_cursor(App *a) {
    const Model *m = a->m;
    if (!app_shown_available(a, a->shown) || !shown_in_view(a, a->shown)) a->shown = TENSOR_WEIGHTS;
    if (a->head >= m->cfg.heads) a->head = m->cfg.heads - 1;
    if (a->head < 0) a->head = 0;
    int rows = m->n_q, cols = shown_cols(a);
    if (a->ci >= rows) a->ci = rows - 1;
    if (a->cj >= cols) a->cj = cols - 1;
    if (a->ci < 0) a->ci = 0;
    if (a->cj < 0) a->cj = 0;
}

/* Applies a new configuration: on success `done` is said (the stale stages
 * are recomputed by app_update before the next frame, once for all the keys
 * that arrived together); on failure the message says why and nothing
 * changed. */
static void reconfigure(App *a, const ModelConfig *c, const char *done) {
    AvError err = {0};
    if (model_set_config(a->m, c, &err)) {
        say(a, 1, "%s", err.msg);
        return;
    }
    clamp_cursor(a);
    say(a, 0, "%s", done);
}

/* 1 (and the reason said) when the source cannot do what an action needs:
 * change its sentence, shapes or seed. */
static int from_file(App *a) {
    if (model_can(a->m, SRC_TEXT | SRC_RESHAPE)) return 0;
    say(a, 1, "%s: only the mask (m) and the scaling (s) can change", a->m->src->fixed);
    return 1;
}

static void set_dk(App *a, long dk) {
    ModelConfig c = a->m->cfg;
    char done[96];
    snprintf(done, sizeof done, "d_k %d -> %ld", c.d_k, dk);
    c.d_k = (int)dk;
    if (a->dv_follows_dk) c.d_v = c.d_k;
    reconfigure(a, &c, done);
}

static void next_tokenizer(App *a) {
    TokPreset now = tok_preset(a->m->tokenizer), next;
    switch (now) {
    case TOK_WORDS: next = TOK_GPT2; break;
    case TOK_GPT2: next = TOK_CHARS; break;
    case TOK_CHARS: next = a->pattern ? TOK_CUSTOM : TOK_WORDS; break;
    default: next = TOK_WORDS; break;
    }
    AvError err = {0};
    if (model_set_tokenizer(a->m, next, next == TOK_CUSTOM ? a->pattern : NULL, &err)) {
        say(a, 1, "%s", err.msg);
        return;
    }
    clamp_cursor(a);
    say(a, 0, "tokenizer %s: %d tokens", tok_preset_name(next), a->m->n_q);
}

static void open_prompt(App *a, PromptKind kind) {
    char init[32];
    const char *text = init;
    size_t len = 0, max = 16;
    if (kind == PROMPT_DK) {
        len = (size_t)snprintf(init, sizeof init, "%d", a->m->cfg.d_k);
    } else if (kind == PROMPT_TARGET) {
        text = a->m->target;
        len = text ? a->m->target_len : 0;
        max = AV_MAX_INPUT_BYTES;
    } else {
        /* By length: a sentence from a file may hold NULs, and Enter on it
         * untouched must give back every byte. */
        text = a->m->text;
        len = text ? a->m->text_len : 0;
        max = AV_MAX_INPUT_BYTES;
    }
    le_free(&a->edit);
    if (le_init(&a->edit, text, len, max)) {
        say(a, 1, "out of memory");
        return;
    }
    a->prompt = kind;
    a->msg[0] = '\0';
}

static void finish_prompt(App *a) {
    PromptKind kind = a->prompt;
    a->prompt = PROMPT_NONE;
    if (kind == PROMPT_DK) {
        AvError err = {0};
        long v;
        /* A NUL (pasted) would end the number early: "6\0" is not 6. */
        if (strlen(a->edit.buf) != a->edit.len) {
            say(a, 1, "d_k: not a number; d_k stays %d", a->m->cfg.d_k);
            le_free(&a->edit);
            return;
        }
        if (cli_parse_int(a->edit.buf, 1, MODEL_MAX_DIM, "d_k", &v, &err)) {
            say(a, 1, "%s; d_k stays %d", err.msg, a->m->cfg.d_k);
            return;
        }
        set_dk(a, v);
    } else if (kind == PROMPT_TARGET) {
        AvError err = {0};
        int none = a->edit.len == 0;
        if (model_set_target(a->m, none ? NULL : a->edit.buf, a->edit.len, &err)) {
            say(a, 1, "%s; the target stays as it was", err.msg);
            return;
        }
        clamp_cursor(a);
        if (none) say(a, 0, "no target sentence: self-attention only");
        else say(a, 0, "target: %d tokens (x: cross-attention)", a->m->target_tokens.n);
    } else if (kind == PROMPT_TEXT) {
        AvError err = {0};
        if (model_set_text(a->m, a->edit.buf, a->edit.len, &err)) {
            say(a, 1, "%s; the sentence stays as it was", err.msg);
            return;
        }
        clamp_cursor(a);
        say(a, 0, "%d tokens", a->m->n_q);
    }
    le_free(&a->edit);
}

static int prompt_key(App *a, AppKey k) {
    LeKey lk = LE_KEY_CHAR;
    uint32_t cp = 0;
    if (k.is_code) {
        switch ((int)k.ch) {
        case APP_KEY_LEFT: lk = LE_KEY_LEFT; break;
        case APP_KEY_RIGHT: lk = LE_KEY_RIGHT; break;
        case APP_KEY_HOME: lk = LE_KEY_HOME; break;
        case APP_KEY_END: lk = LE_KEY_END; break;
        case APP_KEY_BACKSPACE: lk = LE_KEY_BACKSPACE; break;
        case APP_KEY_DELETE: lk = LE_KEY_DELETE; break;
        case APP_KEY_ENTER: lk = LE_KEY_ENTER; break;
        default: return 0;
        }
    } else {
        switch (k.ch) {
        case 27: lk = LE_KEY_ESCAPE; break;
        case '\n':
        case '\r': lk = LE_KEY_ENTER; break;
        case 127:
        case 8: lk = LE_KEY_BACKSPACE; break;
        case 1: lk = LE_KEY_HOME; break;
        case 5: lk = LE_KEY_END; break;
        case 21: lk = LE_KEY_KILL; break;
        default:
            /* A typed control key that is not an editing key (Ctrl-B, Tab)
             * is a slip, not text; pasted controls come by app_paste_char. */
            if (k.ch < 0xA0 && utf8_is_unsafe(k.ch)) return 1;
            cp = k.ch;
            break;
        }
    }
    switch (le_key(&a->edit, lk, cp)) {
    case LE_DONE: finish_prompt(a); break;
    case LE_CANCEL:
        a->prompt = PROMPT_NONE;
        le_free(&a->edit);
        say(a, 0, "cancelled");
        break;
    default: break;
    }
    return 1;
}

/* W in mask-edit mode: the painted grid to --mask-file, all at once (a full
 * disk leaves the old file as it was). */
void app_save_mask(App *a) {
    if (!a->mask_file) {
        say(a, 1, "no --mask-file given: nowhere to write the mask");
        return;
    }
    if (strcmp(a->mask_file, "-") == 0) {
        say(a, 1, "--mask-file -: standard input cannot be written; start with --mask-file FILE to save");
        return;
    }
    const Model *m = a->m;
    AvError err = {0};
    unsigned char *grid = malloc((size_t)(m->n_q ? m->n_q : 1) * (size_t)(m->n_k ? m->n_k : 1));
    char *text = NULL;
    size_t len = 0;
    int rc = -1;
    if (!grid) {
        av_error_nomem(&err, "out of memory");
    } else {
        for (int i = 0; i < m->n_q; i++)
            for (int j = 0; j < m->n_k; j++) grid[(size_t)i * m->n_k + j] = (unsigned char)model_painted_at(m, i, j);
        rc = mask_format_grid(&text, &len, grid, m->n_q, m->n_k, a->mask_comments, AV_MAX_INPUT_BYTES, &err);
    }
    free(grid);
    if (rc == 0) rc = av_write_file_atomic(a->mask_file, text, len, &err);
    free(text);
    if (rc) {
        say(a, 1, "mask not written: %s", err.msg);
        return;
    }
    a->paint_dirty = 0;
    if (a->mask_comments_dropped)
        say(a, 0, "mask written to %s (%d x %d); %d comment%s after row values dropped (whole-line comments kept)",
            a->mask_file, m->n_q, m->n_k, a->mask_comments_dropped, a->mask_comments_dropped == 1 ? "" : "s");
    else say(a, 0, "mask written to %s (%d x %d)", a->mask_file, m->n_q, m->n_k);
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
static void paint_key(App *a, Action act) {
    Model *m = a->m;
    PaintUndo *u = &a->undo;
    if (act == ACT_PAINT_TOGGLE) {
        model_paint_toggle(m, a->ci, a->cj);
        free(u->grid);
        *u = (PaintUndo){.kind = UNDO_TOGGLE, .i = a->ci, .j = a->cj};
        a->paint_dirty = 1;
        say(a, 0, "cell (%d, %d) %s", a->ci, a->cj, model_painted_at(m, a->ci, a->cj) ? "shown" : "hidden");
    } else if (act == ACT_PAINT_CLEAR) {
        unsigned char *g;
        int q, k;
        if (paint_snapshot(m, &g, &q, &k)) {
            say(a, 1, "out of memory: the mask is not cleared (it could not be undone)");
            return;
        }
        model_paint_clear(m);
        free(u->grid);
        *u = (PaintUndo){.kind = UNDO_GRID, .grid = g, .grid_q = q, .grid_k = k};
        a->paint_dirty = 1;
        say(a, 0, "painted mask cleared: every cell visible (u undoes)");
    } else if (u->kind == UNDO_NONE) {
        say(a, 1, "nothing to undo: u undoes the last Space or C");
    } else if (u->kind == UNDO_TOGGLE) {
        model_paint_toggle(m, u->i, u->j);
        a->paint_dirty = 1;
        say(a, 0, "undone: cell (%d, %d) %s again (u redoes)", u->i, u->j,
            model_painted_at(m, u->i, u->j) ? "shown" : "hidden");
    } else {
        /* Swap: the grid now becomes the step that u again puts back. */
        unsigned char *g;
        int q, k;
        AvError err = {0};
        if (paint_snapshot(m, &g, &q, &k)) {
            say(a, 1, "out of memory: nothing undone");
            return;
        }
        if (u->grid && model_set_painted(m, u->grid, u->grid_q, u->grid_k, &err)) {
            free(g);
            say(a, 1, "%s: nothing undone", err.msg);
            return;
        }
        if (!u->grid) model_paint_clear(m);
        free(u->grid);
        u->grid = g, u->grid_q = q, u->grid_k = k;
        a->paint_dirty = 1;
        say(a, 0, "undone: the painted mask is back as it was (u redoes)");
    }
}

static void move_cursor(App *a, int di, int dj) {
    a->ci += di;
    a->cj += dj;
    clamp_cursor(a);
}

// ----------------------------------------------------------------------------
// the actions: one small function each, named in the table below

/* Each returns 0, or -1 for a bad argument (the message says why). They run
 * after the message is cleared; they change the configuration (cheap
 * setters) and leave the recompute to app_update. */
typedef int (*ActionRun)(App *a, const char *arg);

static int act_quit(App *a, const char *arg) {
    (void)arg;
    if (a->paint_dirty && !a->quit_asked) {
        a->quit_asked = 1;
        if (a->mask_file && strcmp(a->mask_file, "-") != 0)
            say(a, 1, "the painted mask is not saved: W (in mask-edit, M) writes %s; q again quits", a->mask_file);
        else say(a, 1, "the painted mask is not saved (no --mask-file to write it to); q again quits");
        return 0;
    }
    a->quit_asked = 0;
    a->quit = 1;
    return 0;
}

static int act_help(App *a, const char *arg) {
    (void)arg;
    a->overlay = OVERLAY_HELP;
    a->doc_y = a->doc_x = 0;
    return 0;
}

static int act_escape(App *a, const char *arg) {
    (void)arg;
    if (a->view != VIEW_HEATMAP) a->view = VIEW_HEATMAP;
    return 0;
}

/* A page of the map: its visible rows (10 before the first frame). */
static int map_page(const App *a) { return a->layout.valid && a->layout.rows > 1 ? a->layout.rows - 1 : 10; }

static int act_up(App *a, const char *arg) { return (void)arg, move_cursor(a, -1, 0), 0; }
static int act_down(App *a, const char *arg) { return (void)arg, move_cursor(a, 1, 0), 0; }
static int act_left(App *a, const char *arg) { return (void)arg, move_cursor(a, 0, -1), 0; }
static int act_right(App *a, const char *arg) { return (void)arg, move_cursor(a, 0, 1), 0; }
static int act_page_up(App *a, const char *arg) { return (void)arg, move_cursor(a, -map_page(a), 0), 0; }
static int act_page_down(App *a, const char *arg) { return (void)arg, move_cursor(a, map_page(a), 0), 0; }

static int act_home(App *a, const char *arg) {
    (void)arg;
    a->ci = a->cj = 0;
    return 0;
}

static int act_end(App *a, const char *arg) {
    (void)arg;
    a->ci = a->m->n_q - 1, a->cj = shown_cols(a) - 1;
    clamp_cursor(a);
    return 0;
}

static int act_next_head(App *a, const char *arg) {
    (void)arg;
    a->head = (a->head + 1) % a->m->cfg.heads;
    return 0;
}

static int act_prev_head(App *a, const char *arg) {
    (void)arg;
    int heads = a->m->cfg.heads;
    a->head = (a->head + heads - 1) % heads;
    return 0;
}

/* head N: 1-based, as the keys 1-9. */
static int act_head(App *a, const char *arg) {
    int heads = a->m->cfg.heads;
    AvError err = {0};
    long h;
    if (!arg || cli_parse_int(arg, 1, MODEL_MAX_HEADS, "head", &h, &err)) {
        say(a, 1, "head: expected a number 1..%d", heads);
        return -1;
    }
    if (h > heads) {
        say(a, 1, "there %s only %d head%s", heads == 1 ? "is" : "are", heads, heads == 1 ? "" : "s");
        return -1;
    }
    a->head = (int)h - 1;
    return 0;
}

static int act_all_heads(App *a, const char *arg) {
    (void)arg;
    a->view = a->view == VIEW_HEADS ? VIEW_HEATMAP : VIEW_HEADS;
    clamp_cursor(a);
    return 0;
}

static int act_pipeline(App *a, const char *arg) {
    (void)arg;
    a->view = a->view == VIEW_PIPELINE ? VIEW_HEATMAP : VIEW_PIPELINE;
    a->doc_y = a->doc_x = 0;
    return 0;
}

static int act_open(App *a, const char *arg) {
    (void)arg;
    if (a->view == VIEW_HEADS) a->view = VIEW_HEATMAP;
    else if (a->view == VIEW_HEATMAP && a->m->n_q > 0 && tensor_info(a->shown)->scope == TS_HEAD) {
        a->overlay = OVERLAY_CELL;
        a->doc_y = a->doc_x = 0;
    }
    return 0;
}

static int act_mask(App *a, const char *arg) {
    (void)arg;
    const Model *m = a->m;
    ModelConfig c = m->cfg;
    c.mask = (MaskKind)((c.mask + 1) % MASK_KIND_COUNT);
    char mk[32], done[128];
    model_mask_name(&c, mk, sizeof mk);
    const char *note = "";
    if (!mask_applies(c.mask, m->q_target != m->k_target))
        note = " (does not apply to cross-attention: all keys visible)";
    else if (c.mask == MASK_PADDING && m->n_pad == 0) note = " (no <pad> tokens: start with --pad N)";
    else if (c.mask == MASK_WINDOW || c.mask == MASK_PREFIX) note = " ([ and ] change it)";
    else if (c.mask == MASK_PAINTED) note = " (M to paint it)";
    snprintf(done, sizeof done, "mask=%s%s", mk, note);
    reconfigure(a, &c, done);
    return 0;
}

static int mask_param(App *a, int d) {
    ModelConfig c = a->m->cfg;
    if (c.mask == MASK_WINDOW) c.window += d;
    else if (c.mask == MASK_PREFIX) c.prefix += d;
    else {
        say(a, 1, "[ and ] change the window or prefix mask (m chooses the mask)");
        return 0;
    }
    char mk[32], done[128];
    model_mask_name(&c, mk, sizeof mk);
    snprintf(done, sizeof done, "mask=%s", mk);
    reconfigure(a, &c, done);
    return 0;
}

static int act_mask_param_up(App *a, const char *arg) { return (void)arg, mask_param(a, 1); }
static int act_mask_param_down(App *a, const char *arg) { return (void)arg, mask_param(a, -1); }

static int act_score(App *a, const char *arg) {
    (void)arg;
    ModelConfig c = a->m->cfg;
    char done[128];
    /* scaled -> dot -> cosine -> distance -> additive -> scaled */
    if (c.score == SCORE_DOT && c.scale) c.scale = 0;
    else if (c.score == SCORE_DOT) c.score = SCORE_COSINE, c.scale = 1;
    else if (c.score == SCORE_COSINE) c.score = SCORE_DISTANCE;
    else if (c.score == SCORE_DISTANCE) c.score = SCORE_ADDITIVE;
    else c.score = SCORE_DOT, c.scale = 1;
    FormulaOf f = formula_of(&c, a->ascii);
    char what[96];
    snprintf(done, sizeof done, "score=%s: %s", score_name(c.score, c.scale),
             formula_text(what, sizeof what, FORMULA_MESSAGE, STAGE_SCORES, &f));
    reconfigure(a, &c, done);
    return 0;
}

static int act_tie(App *a, const char *arg) {
    (void)arg;
    ModelConfig c = a->m->cfg;
    c.tie_qk = !c.tie_qk;
    reconfigure(a, &c,
                c.tie_qk ? "Q and K tied (W_K = W_Q): the raw scores are symmetric"
                         : "Q and K untied: influence is not symmetric");
    return 0;
}

static int act_attn(App *a, const char *arg) {
    (void)arg;
    const Model *m = a->m;
    ModelConfig c = m->cfg;
    char done[128];
    c.attn = (AttnMode)((c.attn + 1) % ATTN_MODE_COUNT);
    int refused = c.attn == ATTN_CROSS && !m->target;
    if (refused) c.attn = ATTN_SELF;
    if (c.attn == ATTN_CAUSAL_SELF) c.mask = MASK_CAUSAL;
    if (c.attn == ATTN_CROSS && !mask_applies(c.mask, 1)) c.mask = MASK_NONE;
    snprintf(done, sizeof done, "attn=%s: %s", attn_mode_name(c.attn),
             c.attn == ATTN_SELF          ? "encoder self-attention"
             : c.attn == ATTN_CAUSAL_SELF ? "masked decoder self-attention (causal)"
                                          : "encoder-decoder: target queries, source keys and values");
    if (c.attn != m->cfg.attn || c.mask != m->cfg.mask) reconfigure(a, &c, done);
    if (refused) say(a, 1, "cross-attention needs a target sentence: press E to type one (or --target)");
    return 0;
}

static int act_target(App *a, const char *arg) {
    (void)arg;
    open_prompt(a, PROMPT_TARGET);
    return 0;
}

static int act_paint_mode(App *a, const char *arg) {
    (void)arg;
    ModelConfig c = a->m->cfg;
    a->painting = !a->painting;
    if (a->painting) {
        a->view = VIEW_HEATMAP;
        a->shown = TENSOR_WEIGHTS;
        clamp_cursor(a); /* from the output's d_v columns to the keys */
        if (c.mask != MASK_PAINTED) {
            c.mask = MASK_PAINTED;
            reconfigure(a, &c, "");
        }
        say(a, 0, "mask-edit: Space hides/shows the cell, C clears, u undoes, W writes %s, M ends",
            a->mask_file ? a->mask_file : "(give --mask-file to save)");
    } else {
        say(a, 0, "mask-edit off (mask=painted stays; m for another mask)");
    }
    return 0;
}

static int act_paint_toggle(App *a, const char *arg) { return (void)arg, paint_key(a, ACT_PAINT_TOGGLE), 0; }
static int act_paint_clear(App *a, const char *arg) { return (void)arg, paint_key(a, ACT_PAINT_CLEAR), 0; }
static int act_paint_undo(App *a, const char *arg) { return (void)arg, paint_key(a, ACT_PAINT_UNDO), 0; }
static int act_paint_save(App *a, const char *arg) { return (void)arg, app_save_mask(a), 0; }

static int act_gravity(App *a, const char *arg) {
    (void)arg;
    if (a->view == VIEW_GRAVITY) gravity_toggle_all(a);
    a->view = VIEW_GRAVITY;
    return 0;
}

/* The next or the previous layer, round the stack: every layer is computed,
 * so showing another one recomputes nothing. */
static void step_layer(App *a, int d) {
    int n = a->m->cfg.layers;
    model_set_layer(a->m, ((a->m->layer + d) % n + n) % n);
    say(a, 0, "layer %d of %d", a->m->layer + 1, n);
}

static int act_layer_next(App *a, const char *arg) {
    (void)arg;
    step_layer(a, 1);
    return 0;
}

static int act_layer_prev(App *a, const char *arg) {
    (void)arg;
    step_layer(a, -1);
    return 0;
}

/* view NAME: that view, as --view NAME starts in (no key). */
static int act_view(App *a, const char *arg) {
    ViewKind v;
    if (!arg || app_view_parse(arg, &v)) {
        say(a, 1, "view: expected heatmap, heads, pipeline or gravity");
        return -1;
    }
    a->view = v;
    a->doc_y = a->doc_x = 0;
    clamp_cursor(a);
    return 0;
}

static int act_redraw(App *a, const char *arg) { return (void)a, (void)arg, 0; }

static int act_scale(App *a, const char *arg) {
    (void)arg;
    ModelConfig c = a->m->cfg;
    char done[128];
    c.scale = !c.scale;
    FormulaOf f = formula_of(&c, a->ascii);
    formula_text(done, sizeof done, FORMULA_MESSAGE, STAGE_SCALED, &f);
    reconfigure(a, &c, done);
    return 0;
}

static int act_dk_double(App *a, const char *arg) {
    (void)arg;
    int dk = a->m->cfg.d_k;
    if (dk * 2 > MODEL_MAX_DIM) say(a, 1, "d_k %d doubled is over the limit %d", dk, MODEL_MAX_DIM);
    else set_dk(a, (long)dk * 2);
    return 0;
}

static int act_dk_halve(App *a, const char *arg) {
    (void)arg;
    int dk = a->m->cfg.d_k;
    if (dk == 1) say(a, 1, "d_k is 1 already: the smallest width");
    else set_dk(a, dk / 2);
    return 0;
}

static int act_heads_more(App *a, const char *arg) {
    (void)arg;
    ModelConfig c = a->m->cfg;
    char done[128];
    if (c.heads >= MODEL_MAX_HEADS) {
        say(a, 1, "heads is %d already: the limit", c.heads);
        return 0;
    }
    c.heads++;
    snprintf(done, sizeof done, "heads %d -> %d (the others are unchanged)", c.heads - 1, c.heads);
    reconfigure(a, &c, done);
    return 0;
}

static int act_heads_fewer(App *a, const char *arg) {
    (void)arg;
    ModelConfig c = a->m->cfg;
    char done[128];
    if (c.heads <= 1) {
        say(a, 1, "heads is 1 already");
        return 0;
    }
    c.heads--;
    snprintf(done, sizeof done, "heads %d -> %d", c.heads + 1, c.heads);
    reconfigure(a, &c, done);
    return 0;
}

/* dk: the prompt; dk N (app_run): that d_k at once. */
static int act_dk(App *a, const char *arg) {
    if (!arg) {
        open_prompt(a, PROMPT_DK);
        return 0;
    }
    AvError err = {0};
    long v;
    if (cli_parse_int(arg, 1, MODEL_MAX_DIM, "d_k", &v, &err)) {
        say(a, 1, "%s; d_k stays %d", err.msg, a->m->cfg.d_k);
        return -1;
    }
    set_dk(a, v);
    return 0;
}

static int act_seed(App *a, const char *arg) {
    (void)arg;
    ModelConfig c = a->m->cfg;
    char done[128];
    c.seed++;
    snprintf(done, sizeof done, "seed=%llu: new embeddings and weights", (unsigned long long)c.seed);
    reconfigure(a, &c, done);
    return 0;
}

static int act_pos(App *a, const char *arg) {
    (void)arg;
    ModelConfig c = a->m->cfg;
    char done[128];
    c.pos = c.pos == POS_NONE ? POS_SINUSOIDAL : POS_NONE;
    snprintf(done, sizeof done, "positional encoding %s", c.pos == POS_NONE ? "off" : "on (sinusoidal, added to E)");
    reconfigure(a, &c, done);
    return 0;
}

static int act_edit(App *a, const char *arg) {
    (void)arg;
    open_prompt(a, PROMPT_TEXT);
    return 0;
}

static int act_tokenizer(App *a, const char *arg) {
    (void)arg;
    next_tokenizer(a);
    return 0;
}

static int act_stage(App *a, const char *arg) {
    (void)arg;
    next_shown(a);
    clamp_cursor(a);
    return 0;
}

/* What an action needs of the model or the mode; without it the action
 * says so and does nothing. */
enum {
    NEEDS_SENTENCE = 1 << 0, /* embeddings and weights (not a Q/K/V file) */
    NEEDS_PAINTING = 1 << 1, /* mask-edit mode */
    TAKES_ARG = 1 << 2,      /* an argument is allowed (app_run) */
    NEEDS_LAYERS = 1 << 3,   /* a source of several layers (and only then in the help) */
};

typedef struct {
    const char *name; /* for app_run and scripts */
    unsigned needs;   /* NEEDS_* | TAKES_ARG */
    ActionRun run;
} ActionDef;

// clang-format off
static const ActionDef actions[ACT_COUNT] = {
    [ACT_QUIT] = {"quit", 0, act_quit},
    [ACT_HELP] = {"help", 0, act_help},
    [ACT_ESCAPE] = {"escape", 0, act_escape},
    [ACT_UP] = {"up", 0, act_up},
    [ACT_DOWN] = {"down", 0, act_down},
    [ACT_LEFT] = {"left", 0, act_left},
    [ACT_RIGHT] = {"right", 0, act_right},
    [ACT_PAGE_UP] = {"page-up", 0, act_page_up},
    [ACT_PAGE_DOWN] = {"page-down", 0, act_page_down},
    [ACT_HOME] = {"home", 0, act_home},
    [ACT_END] = {"end", 0, act_end},
    [ACT_NEXT_HEAD] = {"next-head", 0, act_next_head},
    [ACT_PREV_HEAD] = {"prev-head", 0, act_prev_head},
    [ACT_HEAD] = {"head", TAKES_ARG, act_head},
    [ACT_ALL_HEADS] = {"all-heads", 0, act_all_heads},
    [ACT_PIPELINE] = {"pipeline", 0, act_pipeline},
    [ACT_OPEN] = {"open", 0, act_open},
    [ACT_MASK] = {"mask", 0, act_mask},
    [ACT_SCALE] = {"scale", 0, act_scale},
    [ACT_DK_DOUBLE] = {"dk-double", NEEDS_SENTENCE, act_dk_double},
    [ACT_DK_HALVE] = {"dk-halve", NEEDS_SENTENCE, act_dk_halve},
    [ACT_HEAD_MORE] = {"heads-more", NEEDS_SENTENCE, act_heads_more},
    [ACT_HEAD_FEWER] = {"heads-fewer", NEEDS_SENTENCE, act_heads_fewer},
    [ACT_DK_PROMPT] = {"dk", NEEDS_SENTENCE | TAKES_ARG, act_dk},
    [ACT_SEED] = {"seed", NEEDS_SENTENCE, act_seed},
    [ACT_POS] = {"pos", NEEDS_SENTENCE, act_pos},
    [ACT_EDIT] = {"edit", NEEDS_SENTENCE, act_edit},
    [ACT_TOKENIZER] = {"tokenizer", NEEDS_SENTENCE, act_tokenizer},
    [ACT_STAGE] = {"stage", 0, act_stage},
    [ACT_REDRAW] = {"redraw", 0, act_redraw},
    [ACT_SCORE] = {"score", 0, act_score},
    [ACT_TIE] = {"tie", NEEDS_SENTENCE, act_tie},
    [ACT_ATTN] = {"attn", NEEDS_SENTENCE, act_attn},
    [ACT_TARGET] = {"target", NEEDS_SENTENCE, act_target},
    [ACT_MASK_PARAM_UP] = {"mask-param-up", 0, act_mask_param_up},
    [ACT_MASK_PARAM_DOWN] = {"mask-param-down", 0, act_mask_param_down},
    [ACT_PAINT_MODE] = {"paint", 0, act_paint_mode},
    [ACT_PAINT_TOGGLE] = {"paint-toggle", NEEDS_PAINTING, act_paint_toggle},
    [ACT_PAINT_CLEAR] = {"paint-clear", NEEDS_PAINTING, act_paint_clear},
    [ACT_PAINT_UNDO] = {"paint-undo", NEEDS_PAINTING, act_paint_undo},
    [ACT_PAINT_SAVE] = {"paint-save", NEEDS_PAINTING, act_paint_save},
    [ACT_GRAVITY] = {"gravity", 0, act_gravity},
    [ACT_VIEW] = {"view", TAKES_ARG, act_view},
    [ACT_LAYER_NEXT] = {"layer-next", NEEDS_LAYERS, act_layer_next},
    [ACT_LAYER_PREV] = {"layer-prev", NEEDS_LAYERS, act_layer_prev},
};

int app_action_listed(const App *a, int act) {
    if (act <= ACT_NONE || act >= ACT_COUNT) return 1;
    return !(actions[act].needs & NEEDS_LAYERS) || a->m->cfg.layers > 1;
}
// clang-format on

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
    if (act <= ACT_NONE || act >= ACT_COUNT || !actions[act].run) return 0;
    const ActionDef *d = &actions[act];
    a->msg[0] = '\0';
    /* Asked once: any other key cancels the question. */
    if (act != ACT_QUIT) a->quit_asked = 0;
    if ((d->needs & NEEDS_SENTENCE) && from_file(a)) return 1;
    if ((d->needs & NEEDS_LAYERS) && a->m->cfg.layers == 1) {
        say(a, 1, "one layer only: { and } move between the layers of a model that has several");
        return 1;
    }
    if ((d->needs & NEEDS_PAINTING) && !a->painting) {
        say(a, 1, "M starts mask-edit mode (Space, C, u and W paint, clear, undo and save the mask)");
        return 1;
    }
    return d->run(a, arg) ? -1 : 1;
}

int app_key(App *a, AppKey k) {
    if (a->prompt != PROMPT_NONE) return prompt_key(a, k);
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
        if (actions[i].name && strcmp(actions[i].name, action) == 0) act = (Action)i;
    if (act == ACT_NONE) {
        say(a, 1, "unknown action '%.64s'", action);
        return -1;
    }
    if (arg && !(actions[act].needs & TAKES_ARG)) {
        say(a, 1, "%s takes no argument (got '%.64s')", action, arg);
        return -1;
    }
    if (a->prompt != PROMPT_NONE) {
        say(a, 1, "%s: a prompt is open (Enter or Esc closes it first)", action);
        return -1;
    }
    return dispatch(a, act, arg) < 0 ? -1 : 0;
}

int app_q_quits(const App *a, int prompt_closing) {
    return (prompt_closing || a->prompt == PROMPT_NONE) && a->overlay == OVERLAY_NONE && a->view != VIEW_PIPELINE &&
           (!a->paint_dirty || a->quit_asked);
}

int app_needs_update(const App *a) { return a->m->stale <= view_needed_stage(a); }

void app_update(App *a) {
    if (a->m->stale > view_needed_stage(a)) return;
    model_update_to(a->m, view_needed_stage(a));
    clamp_cursor(a);
}

void app_mouse(App *a, int y, int x, int button) {
    if (a->overlay != OVERLAY_NONE || a->prompt) return;
    if (button == 4 || button == 5) {
        move_cursor(a, button == 4 ? -3 : 3, 0);
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
    clamp_cursor(a);
}

int app_paste_char(App *a, uint32_t cp) {
    if (a->prompt == PROMPT_NONE) {
        say(a, 1, "pasted text ignored: e edits the sentence, E the target");
        return 1;
    }
    le_key(&a->edit, LE_KEY_CHAR, cp);
    return 1;
}
