/* actions.c - what each key does: one small act_* function per action, and
 * the table that names them (app_run, keymap.c's keys). Each returns 0, or
 * -1 for a bad argument (the message says why); they run after the message
 * is cleared, change the configuration through cheap setters and leave the
 * recompute to app_update. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_internal.h"
#include "lesson.h"
#include "classmodel.h"
#include "cli.h"
#include "follow.h"
#include "formula.h"
#include "gravity.h"
#include "chrome.h"
#include "i18n.h"
#include "longtext.h"
#include "utf8.h"
#include "number.h"

// ----------------------------------------------------------------------------
// what the actions share

/* The next stage shown by v: the all-heads view only cycles through the
 * stages of a head; stages that do not apply are skipped. */
static void next_shown(App *a) {
    int n = tensor_cycle_len(), at = tensor_info(a->shown)->cycle - 1;
    for (int k = 1; k <= n; k++) {
        Shown s = tensor_cycle_at((at + k) % n);
        if (!app_shown_in_view(a, s)) continue;
        if (app_shown_available(a, s)) {
            a->shown = s;
            return;
        }
    }
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
        app_say(a, 1, "%s", err.msg);
        return;
    }
    app_clamp_cursor(a);
    app_say(a, 0, P_("tokenizer %s: %d token", "tokenizer %s: %d tokens", a->m->n_q), chrome_tokenizer_name(next),
            a->m->n_q);
}

// ----------------------------------------------------------------------------
// the actions: one small function each, named in the table below

/* q: in a view other than the heatmap, back to the heatmap (as less and htop
 * users expect q to leave what is open); from the heatmap, quit. */
static int act_quit(App *a, const char *arg) {
    (void)arg;
    if (a->view != VIEW_HEATMAP) {
        a->view = VIEW_HEATMAP;
        return 0;
    }
    if (a->paint_dirty && !a->quit_asked) {
        a->quit_asked = 1;
        if (a->mask_file && strcmp(a->mask_file, "-") != 0)
            app_say(a, 1, _("the painted mask is not saved: W (in mask-edit, M) writes %s; q again quits"),
                    a->mask_file);
        else app_say(a, 1, "%s", _("the painted mask is not saved (no --mask-file to write it to); q again quits"));
        return 0;
    }
    a->quit_asked = 0;
    a->quit = 1;
    return 0;
}

static int act_help(App *a, const char *arg) {
    (void)arg;
    a->overlay = OVERLAY_HELP;
    a->doc_y = a->doc_x = 0, a->pipe_top = 0;
    return 0;
}

static int act_escape(App *a, const char *arg) {
    (void)arg;
    if (a->view != VIEW_HEATMAP) a->view = VIEW_HEATMAP;
    return 0;
}

/* A page of the map: its visible rows (10 before the first frame). */
static int map_page(const App *a) { return a->layout.valid && a->layout.rows > 1 ? a->layout.rows - 1 : 10; }

static int act_up(App *a, const char *arg) { return (void)arg, app_move_cursor(a, -1, 0), 0; }
static int act_down(App *a, const char *arg) { return (void)arg, app_move_cursor(a, 1, 0), 0; }
static int act_left(App *a, const char *arg) { return (void)arg, app_move_cursor(a, 0, -1), 0; }
static int act_right(App *a, const char *arg) { return (void)arg, app_move_cursor(a, 0, 1), 0; }
static int act_page_up(App *a, const char *arg) { return (void)arg, app_move_cursor(a, -map_page(a), 0), 0; }
static int act_page_down(App *a, const char *arg) { return (void)arg, app_move_cursor(a, map_page(a), 0), 0; }

static int act_home(App *a, const char *arg) {
    (void)arg;
    a->ci = a->cj = 0;
    return 0;
}

static int act_end(App *a, const char *arg) {
    (void)arg;
    a->ci = a->m->n_q - 1, a->cj = app_shown_cols(a) - 1;
    app_clamp_cursor(a);
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
        app_say(a, 1, _("head: expected a number 1..%d"), heads);
        return -1;
    }
    if (h > heads) {
        app_say(a, 1, P_("there is only %d head", "there are only %d heads", heads), heads);
        return -1;
    }
    a->head = (int)h - 1;
    return 0;
}

static int act_all_heads(App *a, const char *arg) {
    (void)arg;
    a->view = a->view == VIEW_HEADS ? VIEW_HEATMAP : VIEW_HEADS;
    app_clamp_cursor(a);
    return 0;
}

static int act_pipeline(App *a, const char *arg) {
    (void)arg;
    a->view = a->view == VIEW_PIPELINE ? VIEW_HEATMAP : VIEW_PIPELINE;
    a->doc_y = a->doc_x = 0, a->pipe_top = 0;
    return 0;
}

static int act_open(App *a, const char *arg) {
    (void)arg;
    if (a->view == VIEW_HEADS) a->view = VIEW_HEATMAP;
    else if (a->view == VIEW_HEATMAP && a->m->n_q > 0 && tensor_info(a->shown)->scope == TS_HEAD) {
        a->overlay = OVERLAY_CELL;
        a->doc_y = a->doc_x = 0, a->pipe_top = 0;
    }
    return 0;
}

static int act_mask(App *a, const char *arg) {
    (void)arg;
    const Model *m = a->m;
    ModelConfig c = m->cfg;
    c.mask = (MaskKind)((c.mask + 1) % MASK_KIND_COUNT);
    char mk[96], done[256];
    chrome_mask_words(&c, mk, sizeof mk);
    const char *note = "";
    if (!mask_applies(c.mask, m->q_target != m->k_target))
        note = _(" (does not apply to cross-attention: all keys visible)");
    else if (c.mask == MASK_PADDING && m->n_pad == 0) note = _(" (no <pad> tokens: start with --pad N)");
    else if (c.mask == MASK_WINDOW || c.mask == MASK_PREFIX) note = _(" ([ and ] change it)");
    else if (c.mask == MASK_PAINTED) note = _(" (M to paint it)");
    snprintf(done, sizeof done, "%s%s", mk, note);
    app_reconfigure(a, &c, done);
    return 0;
}

static int mask_param(App *a, int d) {
    ModelConfig c = a->m->cfg;
    if (c.mask == MASK_WINDOW) c.window += d;
    else if (c.mask == MASK_PREFIX) c.prefix += d;
    else {
        app_say(a, 1, "%s", _("[ and ] change the window or prefix mask (m chooses the mask)"));
        return 0;
    }
    char mk[96];
    chrome_mask_words(&c, mk, sizeof mk);
    app_reconfigure(a, &c, mk);
    return 0;
}

static int act_mask_param_up(App *a, const char *arg) { return (void)arg, mask_param(a, 1); }
static int act_mask_param_down(App *a, const char *arg) { return (void)arg, mask_param(a, -1); }

static int act_score(App *a, const char *arg) {
    (void)arg;
    ModelConfig c = a->m->cfg;
    char done[256];
    /* dot -> cosine -> distance -> additive -> dot; the scaling stays what s
     * made it (scaled = the dot product with scaling on). */
    c.score = (ScoreKind)((c.score + 1) % SCORE_KIND_COUNT);
    FormulaOf f = formula_of(&c, a->ascii);
    char what[96], kind[96];
    chrome_score_words(&c, kind, sizeof kind);
    snprintf(done, sizeof done, "%s: %s", kind, formula_text(what, sizeof what, FORMULA_MESSAGE, STAGE_SCORES, &f));
    app_reconfigure(a, &c, done);
    return 0;
}

static int act_tie(App *a, const char *arg) {
    (void)arg;
    ModelConfig c = a->m->cfg;
    c.tie_qk = !c.tie_qk;
    app_reconfigure(a, &c,
                    c.tie_qk ? _("Q and K tied (W_K = W_Q): the raw scores are symmetric")
                             : _("Q and K untied: influence is not symmetric"));
    return 0;
}

static int act_attn(App *a, const char *arg) {
    (void)arg;
    const Model *m = a->m;
    ModelConfig c = m->cfg;
    char done[256];
    c.attn = (AttnMode)((c.attn + 1) % ATTN_MODE_COUNT);
    int refused = c.attn == ATTN_CROSS && !m->target;
    if (refused) c.attn = ATTN_SELF;
    if (c.attn == ATTN_CAUSAL_SELF) { /* the decoder's mask; the one before comes back after */
        a->mask_before_causal = (MaskBefore){1, c.mask, c.window, c.prefix};
        c.mask = MASK_CAUSAL;
    } else if (m->cfg.attn == ATTN_CAUSAL_SELF && a->mask_before_causal.kept && c.mask == MASK_CAUSAL) {
        c.mask = a->mask_before_causal.mask;
        c.window = a->mask_before_causal.window;
        c.prefix = a->mask_before_causal.prefix;
    }
    if (c.attn != ATTN_CAUSAL_SELF) a->mask_before_causal.kept = 0;
    if (c.attn == ATTN_CROSS && !mask_applies(c.mask, 1)) c.mask = MASK_NONE;
    char mode[96];
    chrome_attn_words(c.attn, 0, mode, sizeof mode);
    snprintf(done, sizeof done, "%s: %s", mode,
             c.attn == ATTN_SELF          ? _("encoder self-attention")
             : c.attn == ATTN_CAUSAL_SELF ? _("masked decoder self-attention (causal)")
                                          : _("encoder-decoder: target queries, source keys and values"));
    if (c.attn != m->cfg.attn || c.mask != m->cfg.mask) app_reconfigure(a, &c, done);
    if (refused) app_say(a, 1, "%s", _("cross-attention needs a target sentence: press E to type one (or --target)"));
    return 0;
}

static int act_target(App *a, const char *arg) {
    (void)arg;
    app_open_prompt(a, PROMPT_TARGET);
    return 0;
}

/* The painted grid becomes the mask in use (its allowed cells), and *from
 * says so (" from mask=causal"). Unchanged when that cannot be had. */
static void paint_from_mask(App *a, char *from, size_t cap) {
    Model *m = a->m;
    model_update_to(m, STAGE_MASKED);
    if (m->stale <= STAGE_MASKED || !m->allowed || m->n_q == 0 || m->n_k == 0) return; /* cancelled */
    char name[96];
    chrome_mask_words(&m->cfg, name, sizeof name);
    AvError err = {0};
    if (model_set_painted(m, m->allowed, m->n_q, m->n_k, &err) == 0) snprintf(from, cap, _(" from %s"), name);
}

static int act_paint_mode(App *a, const char *arg) {
    (void)arg;
    ModelConfig c = a->m->cfg;
    a->painting = !a->painting;
    if (a->painting) {
        a->view = VIEW_HEATMAP;
        a->shown = TENSOR_WEIGHTS;
        app_clamp_cursor(a); /* from the output's d_v columns to the keys */
        char from[96] = "";
        if (c.mask != MASK_PAINTED) {
            /* Paint on top of the mask in use (causal, a window, ...), not
             * on an all-visible grid. */
            if (c.mask != MASK_NONE && !a->m->painted) paint_from_mask(a, from, sizeof from);
            c.mask = MASK_PAINTED;
            app_reconfigure(a, &c, "");
        }
        /* The keys are on the hint line while the mode is on. */
        if (a->mask_file) app_say(a, 0, _("mask-edit on%s: W writes %s"), from, a->mask_file);
        else app_say(a, 0, _("mask-edit on%s (no --mask-file: W cannot save it)"), from);
    } else {
        app_say(a, 0, "%s", _("mask-edit off (mask=painted stays; m for another mask)"));
    }
    return 0;
}

static int act_paint_toggle(App *a, const char *arg) { return (void)arg, app_paint_key(a, ACT_PAINT_TOGGLE), 0; }
static int act_paint_clear(App *a, const char *arg) { return (void)arg, app_paint_key(a, ACT_PAINT_CLEAR), 0; }
static int act_paint_undo(App *a, const char *arg) { return (void)arg, app_paint_key(a, ACT_PAINT_UNDO), 0; }
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
    app_say(a, 0, _("layer %d of %d"), a->m->layer + 1, n);
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

static int act_next_panel(App *a, const char *arg) {
    (void)arg;
    a->show_next = !a->show_next;
    return 0;
}

/* The likeliest next token appended: the sentence grows, every layer
 * recomputes, the cursor goes to the new last row. */
static int act_continue(App *a, const char *arg) {
    (void)arg;
    AvError err = {0};
    const char *piece = NULL;
    size_t len = 0;
    if (a->m->src->continue_text(a->m, &piece, &len, &err)) {
        app_say(a, 1, "%s", err.msg);
        return 0;
    }
    char *shown = piece ? utf8_escape(piece, len) : NULL;
    app_say(a, 0, _("appended \"%s\" (the likeliest next token); N again goes on"), shown ? shown : "?");
    free(shown);
    a->ci = a->m->n_q - 1;
    app_clamp_cursor(a);
    return 0;
}

/* z: the weights' colours row by row (a causal or near-uniform map shows
 * its differences), or on the one 0..1 scale. The numbers stay the weights. */
static int act_contrast(App *a, const char *arg) {
    (void)arg;
    a->row_contrast = !a->row_contrast;
    if (a->row_contrast)
        app_say(a, 0, "%s",
                _("row contrast: each row's colours span 0 .. its largest weight (numbers unchanged; z: off)"));
    else app_say(a, 0, "%s", _("row contrast off: one scale, 0 .. 1, for every row"));
    return 0;
}

/* X: the head shown switched off with zero ablation, X again with its
 * mean over the text battery, X again on; `ablate L.H,...[:mode]` sets the
 * list at once, `ablate none` clears it. The layers from the first changed
 * one are recomputed by the update; the next tokens show before -> after. */
static int act_ablate(App *a, const char *arg) {
    HeadAblation list[SOURCE_MAX_ABLATED];
    int n = model_ablation(a->m, list, SOURCE_MAX_ABLATED);
    AvError err = {0};
    int l = a->m->layer, h = a->head, at = -1;
    if (arg && strcmp(arg, "none") == 0) n = 0;
    else if (arg && cli_parse_ablate(arg, list, &n, &err)) {
        app_say(a, 1, "%s", err.msg);
        return -1;
    }
    if (!arg) { /* the head shown: off (zero) -> mean -> on */
        for (int k = 0; k < n; k++)
            if (list[k].layer == l && list[k].head == h) at = k;
        if (at < 0 && n == SOURCE_MAX_ABLATED) {
            app_say(a, 1, _("%d heads are switched off already (the most)"), n);
            return 0;
        }
        if (at < 0) list[n++] = (HeadAblation){l, h, 0};
        else if (!list[at].mean) list[at].mean = 1;
        else list[at] = list[--n];
    }
    if (model_set_ablation(a->m, list, n, &err)) {
        app_say(a, 1, "%s", err.msg);
        return arg ? -1 : 0;
    }
    if (arg) app_say(a, 0, P_("%d head switched off", "%d heads switched off", n), n);
    else if (at < 0)
        app_say(a, 0, _("layer %d head %d off (its output zeroed); the layers from %d on recomputed; X: its mean"),
                l + 1, h + 1, l + 1);
    else if (at < n && list[at].layer == l && list[at].head == h)
        app_say(a, 0, _("layer %d head %d off (its output the mean over the text battery); X: on again"), l + 1, h + 1);
    else app_say(a, 0, _("layer %d head %d on again"), l + 1, h + 1);
    if (n && !a->show_next) a->show_next = 1; /* what it changes: the next tokens before -> after */
    return 0;
}

/* The logit lens and back. */
static int act_lens(App *a, const char *arg) {
    (void)arg;
    a->view = a->view == VIEW_LENS ? VIEW_HEATMAP : VIEW_LENS;
    return 0;
}

/* The head census and back. */
static int act_census(App *a, const char *arg) {
    (void)arg;
    a->view = a->view == VIEW_CENSUS ? VIEW_HEATMAP : VIEW_CENSUS;
    return 0;
}

/* The class map of every head and back. */
static int act_classes(App *a, const char *arg) {
    (void)arg;
    a->view = a->view == VIEW_CLASSES ? VIEW_HEATMAP : VIEW_CLASSES;
    return 0;
}

/* A long text zoomed out and back. */
static int act_zoom(App *a, const char *arg) {
    (void)arg;
    a->view = a->view == VIEW_ZOOM ? VIEW_HEATMAP : VIEW_ZOOM;
    if (a->view == VIEW_ZOOM && tensor_info(a->shown)->scope != TS_HEAD) a->shown = TENSOR_WEIGHTS;
    return 0;
}

/* jump [TEXT]: the prompt, or the jump to TEXT at once (longtext.h). */
static int act_jump(App *a, const char *arg) {
    if (!arg) {
        app_open_prompt(a, PROMPT_JUMP);
        return 0;
    }
    return app_jump(a, arg, strlen(arg));
}

/* view NAME: that view, as --view NAME starts in (no key). */
static int act_view(App *a, const char *arg) {
    ViewKind v;
    if (!arg || app_view_parse(arg, &v)) {
        app_say(a, 1, "%s", _("view: expected heatmap, heads, pipeline, gravity, census, classes, zoom or lens"));
        return -1;
    }
    a->view = v;
    a->doc_y = a->doc_x = 0, a->pipe_top = 0;
    app_clamp_cursor(a);
    return 0;
}

static int act_redraw(App *a, const char *arg) { return (void)a, (void)arg, 0; }

static int act_scale(App *a, const char *arg) {
    (void)arg;
    ModelConfig c = a->m->cfg;
    char done[256];
    c.scale = !c.scale;
    FormulaOf f = formula_of(&c, a->ascii);
    formula_text(done, sizeof done, FORMULA_MESSAGE, STAGE_SCALED, &f);
    app_reconfigure(a, &c, done);
    return 0;
}

static int act_dk_double(App *a, const char *arg) {
    (void)arg;
    int dk = a->m->cfg.d_k;
    if (dk * 2 > MODEL_MAX_DIM) app_say(a, 1, _("d_k %d doubled is over the limit %d"), dk, MODEL_MAX_DIM);
    else app_set_dk(a, (long)dk * 2);
    return 0;
}

static int act_dk_halve(App *a, const char *arg) {
    (void)arg;
    int dk = a->m->cfg.d_k;
    if (dk == 1) app_say(a, 1, "%s", _("d_k is 1 already: the smallest width"));
    else app_set_dk(a, dk / 2);
    return 0;
}

static int act_heads_more(App *a, const char *arg) {
    (void)arg;
    ModelConfig c = a->m->cfg;
    char done[256];
    if (c.heads >= MODEL_MAX_HEADS) {
        app_say(a, 1, _("heads is %d already: the limit"), c.heads);
        return 0;
    }
    c.heads++;
    snprintf(done, sizeof done, _("heads %d -> %d (the others are unchanged)"), c.heads - 1, c.heads);
    app_reconfigure(a, &c, done);
    return 0;
}

static int act_heads_fewer(App *a, const char *arg) {
    (void)arg;
    ModelConfig c = a->m->cfg;
    char done[256];
    if (c.heads <= 1) {
        app_say(a, 1, "%s", _("heads is 1 already"));
        return 0;
    }
    c.heads--;
    snprintf(done, sizeof done, _("heads %d -> %d"), c.heads + 1, c.heads);
    app_reconfigure(a, &c, done);
    return 0;
}

/* dk: the prompt; dk N (app_run): that d_k at once. */
static int act_dk(App *a, const char *arg) {
    if (!arg) {
        app_open_prompt(a, PROMPT_DK);
        return 0;
    }
    AvError err = {0};
    long v;
    if (cli_parse_int(arg, 1, MODEL_MAX_DIM, "d_k", &v, &err)) {
        app_say(a, 1, _("%s; d_k stays %d"), err.msg, a->m->cfg.d_k);
        return -1;
    }
    app_set_dk(a, v);
    return 0;
}

static int act_seed(App *a, const char *arg) {
    (void)arg;
    ModelConfig c = a->m->cfg;
    char done[256];
    c.seed++;
    snprintf(done, sizeof done, _("seed=%llu: new embeddings and weights"), (unsigned long long)c.seed);
    app_reconfigure(a, &c, done);
    return 0;
}

static int act_pos(App *a, const char *arg) {
    (void)arg;
    ModelConfig c = a->m->cfg;
    char done[256];
    c.pos = c.pos == POS_NONE ? POS_SINUSOIDAL : POS_NONE;
    snprintf(done, sizeof done, "%s",
             c.pos == POS_NONE ? _("positional encoding off") : _("positional encoding on (sinusoidal, added to E)"));
    app_reconfigure(a, &c, done);
    return 0;
}

static int act_edit(App *a, const char *arg) {
    (void)arg;
    app_open_prompt(a, PROMPT_TEXT);
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
    app_clamp_cursor(a);
    return 0;
}

/* A lesson's steps (lesson.h). */
static int lesson_show(App *a, int k) {
    AvError err = {0};
    if (app_lesson_goto(a, k, &err)) {
        app_say(a, 1, "%s", err.msg);
        return -1;
    }
    return 0;
}

static int act_lesson_next(App *a, const char *arg) {
    (void)arg;
    if (!a->lesson_left && a->lesson_step + 1 >= a->lesson->n_step) {
        app_say(a, 0, "%s", _("the last step: b goes back, R to the start, L leaves the lesson"));
        return 0;
    }
    return lesson_show(a, a->lesson_left ? a->lesson_step : a->lesson_step + 1);
}

static int act_lesson_prev(App *a, const char *arg) {
    (void)arg;
    return lesson_show(a, a->lesson_left ? a->lesson_step : a->lesson_step - 1);
}

static int act_lesson_restart(App *a, const char *arg) { return (void)arg, lesson_show(a, 0); }

static int act_lesson_leave(App *a, const char *arg) {
    (void)arg;
    if (a->lesson_left) return lesson_show(a, a->lesson_step);
    a->lesson_left = 1;
    app_say(a, 0, _("left the lesson: explore from here; L goes back to step %d"), a->lesson_step + 1);
    return 0;
}

static int act_present(App *a, const char *arg) {
    (void)arg;
    a->present = !a->present;
    app_say(a, 0, "%s", a->present ? _("projector mode: B again for the full screen") : _("projector mode off"));
    return 0;
}

/* F: the teacher's state again (follow.h). */
static int act_follow(App *a, const char *arg) {
    (void)arg;
    follow_attach(a->follow, a);
    return 0;
}

/* P: the prompt for the file name (app_run's "picture FILE" writes it at
 * once; an existing file is kept). */
static int act_picture(App *a, const char *arg) {
    if (arg) return app_write_picture(a, arg, 0);
    app_open_prompt(a, PROMPT_PICTURE);
    return 0;
}

// clang-format off
const ActionDef app_actions[ACT_COUNT] = {
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
    [ACT_SEED] = {"seed", NEEDS_SEEDED, act_seed},
    [ACT_POS] = {"pos", NEEDS_SENTENCE, act_pos},
    [ACT_EDIT] = {"edit", NEEDS_TEXT, act_edit},
    [ACT_TOKENIZER] = {"tokenizer", NEEDS_TOOLS, act_tokenizer},
    [ACT_STAGE] = {"stage", 0, act_stage},
    [ACT_REDRAW] = {"redraw", 0, act_redraw},
    [ACT_SCORE] = {"score", NEEDS_SCORES, act_score},
    [ACT_TIE] = {"tie", NEEDS_SENTENCE, act_tie},
    [ACT_ATTN] = {"attn", NEEDS_TOOLS, act_attn},
    [ACT_TARGET] = {"target", NEEDS_TOOLS, act_target},
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
    [ACT_NEXT_PANEL] = {"next-tokens", NEEDS_PREDICT, act_next_panel},
    [ACT_CONTINUE] = {"continue", NEEDS_PREDICT, act_continue},
    [ACT_CENSUS] = {"census", 0, act_census},
    [ACT_CONTRAST] = {"contrast", 0, act_contrast},
    [ACT_PICTURE] = {"picture", TAKES_ARG, act_picture},
    [ACT_PRESENT] = {"present", 0, act_present},
    [ACT_LESSON_NEXT] = {"lesson-next", NEEDS_LESSON, act_lesson_next},
    [ACT_LESSON_PREV] = {"lesson-prev", NEEDS_LESSON, act_lesson_prev},
    [ACT_LESSON_RESTART] = {"lesson-restart", NEEDS_LESSON, act_lesson_restart},
    [ACT_LESSON_LEAVE] = {"lesson-leave", NEEDS_LESSON, act_lesson_leave},
    [ACT_FOLLOW] = {"follow", NEEDS_FOLLOW, act_follow},
    [ACT_CLASSES] = {"classes", 0, act_classes},
    [ACT_ZOOM] = {"zoom", 0, act_zoom},
    [ACT_JUMP] = {"jump", TAKES_ARG, act_jump},
    [ACT_WEIGHTS] = {"weights", 0, app_switch_weights},
    [ACT_ABLATE] = {"ablate", NEEDS_TRAINED | TAKES_ARG, act_ablate},
    [ACT_LENS] = {"lens", NEEDS_TRAINED, act_lens},
};
// clang-format on
