/* main.c - attnviz's entry point: parse the command line, build the model,
 * then dump it, draw it once, or run the interactive TUI. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <curses.h>
#include <term.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>

#include "app.h"
#include "build.h"
#include "canvas.h"
#include "cli.h"
#include "discover.h"
#include "palette.h"
#include "parallel.h"
#include "screen.h"
#include "sourcenote.h"
#include "signals.h"
#include "export.h"
#include "filemap.h"
#include "follow.h"
#include "model.h"
#include "number.h"
#include "atomicfile.h"
#include "cancel.h"
#include "classmodel.h"
#include "figure.h"
#include "i18n.h"
#include "formats.h"
#include "headrun.h"
#include "lens.h"
#include "patch.h"
#include "sweep.h"
#include "source_trained.h"
#include "language.h"
#include "lesson.h"
#include "loadwatch.h"
#include "picture.h"
#include "tensor.h"
#include "utf8.h"

/* Prints "attnviz: message" on stderr with every unsafe character escaped:
 * messages quote user input (option values, file contents). */
static void print_error(const char *msg) {
    char *e = utf8_escape(msg, strlen(msg));
    fprintf(stderr, "attnviz: %s\n", e ? e : _("out of memory"));
    free(e);
}

/* Flushes standard output; a write that failed (a full disk, a closed pipe)
 * gets a message and 0 is returned, so no output is ever lost in silence. */
/* The errno of a write that failed before the flush (a text longer than
 * stdout's buffer is written inside fputs): kept for the message. */
static int write_errno;

static int stdout_flushed(void) {
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout)) return 1;
    if (!errno) errno = write_errno;
    char msg[128];
    snprintf(msg, sizeof msg, _("cannot write to standard output: %s"), errno ? strerror(errno) : _("write error"));
    print_error(msg);
    return 0;
}

/* A UTF-8 locale asked for but not installed (language.h): "" or the line
 * that says so, on standard error or in the interactive view's status area. */
static const char *startup_note = "";

/* Width for --once: --width, the terminal's, COLUMNS, or 80. */
static int once_width(const CliOptions *o) {
    if (o->width) return o->width;
    struct winsize ws;
    if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20) return ws.ws_col;
    const char *cols = getenv("COLUMNS");
    if (cols) {
        long v;
        if (num_parse_long(cols, 20, 1000, &v) == NUM_OK) return (int)v;
    }
    return 80;
}

/* Colour tier for --once: ANSI colours only towards a terminal (or with
 * --color=always), as many as its terminfo entry says. */
static ColorTier once_tier(const CliOptions *o) {
    if (o->color == COLOR_NEVER) return TIER_NONE;
    int colors = 0, errret = 0;
    if (isatty(STDOUT_FILENO) && setupterm(NULL, STDOUT_FILENO, &errret) == OK) {
        colors = tigetnum("colors");
        del_curterm(cur_term);
    }
    if (o->color == COLOR_AUTO && !isatty(STDOUT_FILENO)) return TIER_NONE;
    if (o->color == COLOR_ALWAYS && colors < 256) colors = 256;
    return palette_tier((int)o->color, getenv("NO_COLOR"), colors);
}

static int run_once(App *a, const CliOptions *o) {
    int w = once_width(o);
    Canvas *cv = cv_new(w, app_natural_height(a, w));
    if (!cv) return print_error(_("out of memory")), 1;
    app_draw(a, cv);
    char *text = cv_render(cv, a->tier != TIER_NONE, a->tier);
    cv_free(cv);
    if (!text) return print_error(_("out of memory")), 1;
    int rc = fputs(text, stdout) < 0;
    free(text);
    if (!stdout_flushed()) return 1;
    if (rc) print_error(_("cannot write to standard output"));
    return rc;
}

/* The stages for --dump, --once or --export; a dump prints the model's
 * next tokens after the last row too, which the update computes. */
static int update_for_output(Model *m, const CliOptions *o, AvError *err) {
    if (o->dump && !o->dump_tokens) model_want_next(m, m->n_q - 1);
    return model_update(m, err);
}

/* --dump=sweep: every head alone off, the fall of the token's logit after
 * the last position (the likeliest token, or --lens-token's). */
static int run_sweep(const Model *m, const TfRun *run, const Vocab *v, int token, const HeadAblation *ab, int na) {
    AvError err = {0};
    const TfAblation *base;
    int nb = model_trained_ablation(m, &base), rc;
    SweepJob *j = sweep_begin(run, base, nb, run->n - 1, token, &err);
    if (!j) return print_error(err.msg), av_error_exit_status(&err);
    while ((rc = sweep_step(j, &err)) > 0) {
    }
    int status = rc < 0 ? (print_error(err.msg), 1) : 0;
    errno = 0;
    if (!status && sweep_write_json(stdout, j, v, m->src->title(m), ab, na) < 0) write_errno = errno;
    sweep_free(j);
    return status ? status : stdout_flushed() ? 0 : 1;
}

/* --dump=patch: the sentence (clean) patched into --patch-from (corrupted),
 * each head's output and each layer's input at each position, with the
 * metric logit(A) - logit(B) of --metric. */
static int run_patch(const Model *m, const TfRun *run, const Vocab *v, const CliOptions *o) {
    AvError err = {0};
    char a[256], b[256];
    const char *comma = strchr(o->metric, ',');
    snprintf(a, sizeof a, "%.*s", (int)(comma - o->metric), o->metric);
    snprintf(b, sizeof b, "%s", comma + 1);
    int ta = lens_token_id(v, a, &err), tb = ta < 0 ? -1 : lens_token_id(v, b, &err);
    if (ta < 0 || tb < 0) return av_error_prefix(&err, "--metric"), print_error(err.msg), 2;
    int *corrupt = NULL, n = vocab_encode(v, o->patch_from, strlen(o->patch_from), &corrupt, &err);
    if (n < 0) return av_error_prefix(&err, "--patch-from"), print_error(err.msg), 2;
    if (n != run->n) {
        free(corrupt);
        av_errorf(&err, _("--patch-from: %d tokens, the sentence %d: patching needs prompts of the same length"), n,
                  run->n);
        return print_error(err.msg), 2;
    }
    PatchResult p;
    int status = 0;
    if (patch_run(run->m, run->ids, corrupt, n, ta, tb, &p, &err)) {
        print_error(err.msg);
        status = av_error_exit_status(&err);
    } else {
        errno = 0;
        if (patch_write_json(stdout, &p, v, m->src->title(m), run->ids, corrupt) < 0) write_errno = errno;
        status = stdout_flushed() ? 0 : 1;
        patch_free(&p);
    }
    free(corrupt);
    return status;
}

/* --dump=lens: the logit lens of the model as run (its ablations too), the
 * --lens-token's probability in every cell. */
static int run_lens(const Model *m, const CliOptions *o) {
    AvError err = {0};
    const TfRun *run = model_trained_run(m);
    const Vocab *v = model_trained_vocab(m);
    int token = -1;
    if (!run || !v) return print_error(_("--dump=lens: needs --model PATH")), 2;
    if (o->lens_token && (token = lens_token_id(v, o->lens_token, &err)) < 0) {
        av_error_prefix(&err, "--lens-token");
        return print_error(err.msg), 2;
    }
    HeadAblation ab[SOURCE_MAX_ABLATED];
    int na = model_ablation(m, ab, SOURCE_MAX_ABLATED);
    if (o->dump_lens == 2) return run_sweep(m, run, v, token, ab, na);
    if (o->dump_lens == 3) return run_patch(m, run, v, o);
    Lens l;
    if (lens_compute(run, token, &l, &err)) return print_error(err.msg), av_error_exit_status(&err);
    errno = 0;
    if (lens_write_json(stdout, &l, v, m->src->title(m), run->ids, ab, na) < 0) write_errno = errno;
    lens_free(&l);
    return stdout_flushed() ? 0 : 1;
}

/* --dump: every stage in the format asked for, on standard output. */
static int run_dump(const Model *m, const CliOptions *o) {
    if (export_model(stdout, m, o->dump_format)) {
        print_error(_("cannot write the dump to standard output"));
        return 1;
    }
    return stdout_flushed() ? 0 : 1;
}

/* One line of --dump=tokens: the id, a tab, its piece (escaped: a piece
 * may hold any byte). */
static void print_piece(int id, const char *p, size_t len) {
    char *e = utf8_escape(p, len);
    printf("%d\t%s\n", id, e ? e : "?");
    free(e);
}

/* The sentence's tokens of a trained model. */
static int print_model_tokens(const Model *m, const int *ids, int n) {
    for (int i = 0; i < n; i++) {
        size_t len;
        const char *p = model_token_piece(m, ids[i], &len);
        print_piece(ids[i], p, len);
    }
    return stdout_flushed() ? 0 : 1;
}

/* --vocab FILE --dump=tokens without a model: the tokenizer alone
 * (formats.h says which kind of file it is). */
static int run_tokenize_only(const CliOptions *o) {
    AvError err = {0};
    Vocab *v = vocab_open_file(o->vocab_file, &err);
    if (!v) return print_error(err.msg), av_error_exit_status(&err);
    size_t len;
    char *buf = build_text(o, "", &len, &err);
    int *ids = NULL, n = -1, status;
    if (buf) n = vocab_encode(v, buf, len, &ids, &err);
    if (n < 0) status = (print_error(err.msg), av_error_exit_status(&err));
    else {
        for (int i = 0; i < n; i++) {
            size_t pl;
            const char *p = vocab_piece(v, ids[i], &pl);
            print_piece(ids[i], p, pl);
        }
        status = stdout_flushed() ? 0 : 1;
    }
    free(ids);
    free(buf);
    vocab_free(v);
    return status;
}

/* Text that came from a file (a vocabulary's pieces) on standard output:
 * each line escaped as the screen escapes it (utf8_escape: no escape
 * sequence, C1 control, bidi override or NUL reaches the terminal), the line
 * breaks kept. */
static void print_escaped_lines(const char *s, size_t len) {
    for (size_t at = 0; at <= len;) {
        const char *nl = memchr(s + at, '\n', len - at);
        size_t n = nl ? (size_t)(nl - (s + at)) : len - at;
        char *e = utf8_escape(s + at, n);
        if (e) fputs(e, stdout);
        free(e);
        if (!nl) break;
        putchar('\n');
        at += n + 1;
    }
}

/* --generate N: the greedy continuation of the sentence (BOS first, where
 * the model has one), as llama2.c's run prints it, escaped
 * (print_escaped_lines): all of it decoded first, so that a character made
 * of several byte pieces is one character. */
static int run_generate(const Model *m, int steps) {
    int n = m->n_k;
    AvError err = {0};
    int *out = malloc(sizeof(int) * (size_t)steps);
    if (!out) return print_error(_("out of memory")), 1;
    int got = model_generate(m, steps, out, &err);
    if (got < 0) {
        free(out);
        print_error(err.msg);
        return av_error_exit_status(&err);
    }
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    int prev = n ? model_key_id(m, n - 1) : -1;
    for (int k = 0; f && k < got; k++) {
        size_t plen;
        const char *s = model_token_decode(m, prev, out[k], &plen);
        fwrite(s, 1, plen, f);
        prev = out[k];
    }
    free(out);
    if (!f || fclose(f) != 0) {
        free(text);
        return print_error(_("out of memory")), 1;
    }
    print_escaped_lines(text, len);
    putchar('\n');
    free(text);
    return stdout_flushed() ? 0 : 1;
}

/* --export FILE: the view drawn once at --width columns (80 by default, not
 * the terminal's: the same picture wherever it is made) and its natural
 * height, in 256 colours (none with --color=never or NO_COLOR), written all
 * at once. An existing file stays unless --force. */
static int run_export(App *a, const CliOptions *o) {
    char *name = utf8_escape(o->export_file, strlen(o->export_file));
    const char *shown = name ? name : _("the file");
    struct stat st;
    int status = 0;
    AvError err = {0};
    unsigned char *buf = NULL;
    size_t len = 0;
    PictureFormat fmt = PIC_SVG;
    picture_format_of(o->export_file, &fmt);
    Canvas *cv = NULL;
    if (!o->force && lstat(o->export_file, &st) == 0) {
        char msg[600];
        snprintf(msg, sizeof msg, _("--export: %s exists (--force replaces it)"), shown);
        print_error(msg);
        status = 2;
    } else {
        a->tier = palette_tier((int)o->color, getenv("NO_COLOR"), 256);
        int w = o->width ? o->width : 80;
        if (!(cv = cv_new(w, app_natural_height(a, w)))) status = (print_error(_("out of memory")), 1);
    }
    if (status == 0 && o->figure) {
        /* a figure: the stage shown if it is a query x key matrix, else the weights */
        Stage st = tensor_info(a->shown)->stage;
        if (st != STAGE_SCORES && st != STAGE_SCALED && st != STAGE_MASKED) st = STAGE_WEIGHTS;
        FigureOptions fo = {.kind = (FigureKind)(o->figure - 1),
                            .layer = a->m->layer,
                            .head = a->head,
                            .stage = st,
                            .numbers = o->numbers,
                            .dark = o->theme == 1};
        FigureFormat ff = fmt == PIC_PNG ? FIG_PNG : fmt == PIC_PDF ? FIG_PDF : FIG_SVG;
        if (figure_render(a->m, &fo, ff, &buf, &len, &err) || av_write_file_atomic(o->export_file, buf, len, &err))
            status = (print_error(err.msg), av_error_exit_status(&err));
        cv_free(cv);
        cv = NULL;
    }
    if (cv) {
        app_draw(a, cv);
        if (picture_render(cv, palette_theme() == THEME_DARK, fmt, &buf, &len, &err) ||
            av_write_file_atomic(o->export_file, buf, len, &err))
            status = (print_error(err.msg), av_error_exit_status(&err));
    }
    free(buf);
    cv_free(cv);
    free(name);
    return status;
}

/* --head, --stage: the head and stage shown from the start. 0, or -1 with
 * a message. */
static int apply_head_stage(App *a, const CliOptions *o, AvError *err) {
    if (o->head > a->m->cfg.heads)
        return av_errorf(err, _("--head: %d is out of range 1..%d (the heads)"), o->head, a->m->cfg.heads);
    if (o->head) a->head = o->head - 1;
    if (o->stage >= 0) {
        if (!app_shown_available(a, (Shown)o->stage))
            return av_errorf(err, _("--stage: %s is not in this model (%s)"), tensor_info((Tensor)o->stage)->name,
                             source_lacks_note(a->m->src));
        a->shown = (Shown)o->stage;
    }
    return 0;
}

/* The app on the model: drawn once (--once) or on the terminal. It takes
 * the comments of --mask-file (notes->comments is NULL after). */
static int run_app(Model *m, const CliOptions *o, BuildMaskNotes *notes, int ascii, Lesson *lesson) {
    App app;
    AvError err = {0};
    int status;
    palette_set_theme(o->theme == 2   ? THEME_LIGHT
                      : o->theme == 1 ? THEME_DARK
                                      : palette_theme_detect(getenv("COLORFGBG")));
    app_init(&app, m, TIER_NONE, ascii, !o->dv_given, o->pattern);
    app.mask_file = o->mask_file;
    app.mask_comments = notes->comments;
    app.mask_comments_dropped = notes->dropped;
    notes->comments = NULL;
    if (o->view) app_view_parse(o->view, &app.view);
    app.present = o->present;
    int bad = apply_head_stage(&app, o, &err);
    if (!bad && lesson) {
        int steps = lesson->n_step;
        bad = app_lesson_start(&app, lesson, &err); /* the app owns the lesson */
        if (!bad && o->step > steps)
            bad = av_errorf(&err, _("--step: %d is out of range 1..%d (the lesson's steps)"), o->step, steps);
        if (!bad && o->step) bad = app_lesson_goto(&app, o->step - 1, &err);
        app.msg[0] = '\0';
    }
    if (bad) {
        print_error(err.msg);
        status = 2;
    } else if (o->export_file) {
        status = run_export(&app, o);
    } else if (o->once) {
        app.tier = once_tier(o);
        status = run_once(&app, o);
    } else if ((o->publish || o->follow) && !(app.follow = follow_open(o, &err))) { /* follow.h */
        print_error(err.msg);
        status = av_error_exit_status(&err);
    } else {
        if (startup_note[0]) snprintf(app.msg, sizeof app.msg, "%s", startup_note);
        status = screen_run(&app, o, &err);
        if (status == 1 || status == 2) print_error(err.msg);
    }
    follow_free(app.follow); /* removes --publish's socket */
    app.follow = NULL;
    app_free(&app);
    return status;
}

/* A lesson that needs a trained model and got none: the classroom's
 * (classmodel.h: stories260K.bin where w finds it). NULL when absent. */
static const char *lesson_model(void) {
    static char path[4096];
    return classmodel_find(path, sizeof path);
}

/* Builds the model the options describe, then dumps it, draws it once or
 * runs the app. Returns the exit status. */
static int run(Model *m, const CliOptions *opts, int ascii) {
    AvError err = {0};
    BuildMaskNotes notes = {0};
    int status;
    CliOptions copy = *opts;
    const CliOptions *o = &copy;
    Lesson *lesson = NULL;
    if (opts->lesson) {
        const char *lang = language_current();
        if (!(lesson = lesson_load(opts->lesson, lang, &err))) return print_error(err.msg), 2;
        if (!lesson->needs_model && (opts->model_file || opts->qkv_file)) {
            char msg[512];
            snprintf(msg, sizeof msg, _("--lesson: %s is about the seeded sentence; not with --model or --qkv"),
                     lesson->name);
            lesson_free(lesson);
            return print_error(msg), 2;
        }
        if (lesson->needs_model && !opts->model_file) {
            if (!(copy.model_file = lesson_model())) {
                char msg[512];
                snprintf(msg, sizeof msg,
                         _("%s needs a trained model: stories260K.bin is not in %s (give --model FILE)"), lesson->name,
                         CLASSMODEL_WHERE);
                lesson_free(lesson);
                return print_error(msg), 2;
            }
            copy.cfg.mask = MASK_CAUSAL;
        }
    }
    /* The interactive view: q while the model loads quits (loadwatch.h). */
    int watch = !(o->dump || o->once || o->export_file || o->generate);
    if (!watch && startup_note[0]) print_error(startup_note);
    if (watch) loadwatch_start();
    int failed = build_model(m, o, &notes, &err);
    if (watch && loadwatch_stop()) {
        av_cancel_clear();
        status = 0;
    } else if (failed || filemap_check(&err)) {
        /* (a model file cut short since it was opened: said here, before a
         * read of its pages faults) */
        print_error(err.msg);
        status = av_error_exit_status(&err);
    } else if ((o->dump || o->once || o->export_file) && update_for_output(m, o, &err)) {
        /* (The interactive view computes in its first frame, where q, Ctrl-C
         * and SIGTERM can stop a long recompute.) */
        print_error(err.msg);
        status = 1;
    } else if (o->generate) {
        status = run_generate(m, o->generate);
    } else if (o->dump && o->dump_tokens) {
        int n = m->n_k, *ids = malloc(sizeof(int) * (size_t)(n ? n : 1));
        for (int j = 0; ids && j < n; j++) ids[j] = model_key_id(m, j);
        status = ids ? print_model_tokens(m, ids, n) : (print_error(_("out of memory")), 1);
        free(ids);
    } else if (o->dump && o->dump_lens) {
        status = run_lens(m, o);
    } else if (o->dump) {
        status = run_dump(m, o);
    } else {
        status = run_app(m, o, &notes, ascii, lesson);
        lesson = NULL;
    }
    free(notes.comments);
    lesson_free(lesson);
    return status;
}

/* --dump=heads: the head tests of the model on the built-in batteries (the
 * text battery in the interface's language), as JSON or CSV. */
static int run_head_tests(const CliOptions *o) {
    Checkpoint ck;
    HeadReport r;
    AvError err = {0};
    if (checkpoint_open(&ck, o->model_file, o->vocab_file, &err)) return print_error(err.msg), 2;
    BatteryKind text = strcmp(language_current(), "ko") == 0 ? BATTERY_TEXT_KO : BATTERY_TEXT_EN;
    int status = 0;
    if (headrun(&ck, text, &r, &err)) {
        print_error(err.msg);
        status = av_error_exit_status(&err);
    } else {
        errno = 0;
        if ((o->dump_heads == 2 ? headreport_write_csv(stdout, &r) : headreport_write_json(stdout, &r, ck.title)) < 0)
            write_errno = errno;
        status = stdout_flushed() ? 0 : 1;
        headreport_free(&r);
    }
    checkpoint_close(&ck);
    return status;
}

/* 1.3 GB, 454 KB, 12 B (powers of 1000). */
static void size_text(char *buf, size_t cap, uint64_t n) {
    static const char *const units[] = {"B", "KB", "MB", "GB", "TB"};
    double v = (double)n;
    int u = 0;
    while (v >= 1000 && u < 4) v /= 1000, u++;
    snprintf(buf, cap, u ? "%.1f %s" : "%.0f %s", v, units[u]);
}

/* --models: one line a model, tab-separated: the name --model takes, the
 * architecture, the matrix types, the size, whether it opens ("yes", or
 * "no: " and the line opening it gives) and the path. */
static int run_models(void) {
    AvError err = {0};
    FoundModel *f;
    int n = discover_models(&f, &err);
    if (n < 0) {
        print_error(err.msg);
        return 1;
    }
    if (n == 0) {
        char places[4096];
        discover_places(places, sizeof places);
        printf(_("no models found (looked in %s)\n"), places);
    }
    for (int i = 0; i < n; i++) {
        char size[32], path[2048];
        size_text(size, sizeof size, f[i].bytes);
        utf8_escape_into(path, sizeof path, f[i].path);
        printf("%s\t%s\t%s\t%s\t%s%s\t%s\n", f[i].name, f[i].arch, f[i].quant, size,
               f[i].ok ? "yes" : "no: ", f[i].ok ? "" : f[i].why, path);
    }
    free(f);
    return stdout_flushed() ? 0 : 1;
}

/* Ended by SIGINT, SIGTERM or SIGHUP (the terminal is restored, the memory
 * freed): die of the same signal, as the shell and the parent expect (their
 * wait status says "killed by SIGTERM", not "exit 143"). That also skips
 * exit-time work that a hangup can wedge: a SIGCONT from the pane's shell
 * during LeakSanitizer's stop-the-world check left it waiting forever (issue
 * 10). SIGQUIT keeps its status 131 without the core dump it would ask for.
 * Returns only for the other statuses. */
static void die_of_signal(int status) {
    if (status == 128 + SIGINT || status == 128 + SIGTERM || status == 128 + SIGHUP) {
        fflush(NULL);
        signal(status - 128, SIG_DFL);
        raise(status - 128);
    }
}

int main(int argc, char **argv) {
    /* The language first (--lang looked for before the parse that may
     * fail): every message is in it, the fault's line too. */
    LanguageSetup lang;
    language_setup(cli_lang(argc, argv), &lang);
    /* A fault on any thread, in any mode: the terminal given back, and a
     * model file cut short while mapped said in one line (signals.h). */
    signals_install_fatal();
    CliOptions opt;
    AvError err = {0};
    int bad_options = cli_parse(&opt, argc, argv, &err);
    if (bad_options) {
        print_error(err.msg);
        fprintf(stderr, "%s\n", _("Try 'attnviz --help' for the options and their ranges."));
        cli_free(&opt);
        return 2;
    }
    if (opt.help || opt.version) {
        errno = 0;
        /* (--help alone: the version line was printed after the help too) */
        int rc = opt.help ? fputs(cli_usage(), stdout) : printf("attnviz %s\n", ATTNVIZ_VERSION);
        if (rc < 0) write_errno = errno;
        cli_free(&opt);
        return stdout_flushed() ? 0 : 1;
    }
    par_set_threads(opt.threads);
    if (opt.models) {
        int status = run_models();
        cli_free(&opt);
        return status;
    }
    if (opt.lesson && strcmp(opt.lesson, "list") == 0) {
        char *list = lesson_list(language_current());
        int status = list && fputs(list, stdout) >= 0 && stdout_flushed() ? 0 : 1;
        free(list);
        cli_free(&opt);
        return status;
    }
    if (opt.dump_heads) {
        int status = run_head_tests(&opt);
        cli_free(&opt);
        return status;
    }
    if (opt.dump_tokens && !opt.model_file) {
        int status = run_tokenize_only(&opt);
        cli_free(&opt);
        return status;
    }
    Model *m = model_new();
    if (!m) {
        print_error(_("out of memory"));
        cli_free(&opt);
        return 1;
    }
    startup_note = lang.note;
    int status = run(m, &opt, opt.ascii || lang.ascii);
    model_free(m);
    cli_free(&opt);
    die_of_signal(status);
    return status;
}
