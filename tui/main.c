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
#include <string.h>

#include "app.h"
#include "canvas.h"
#include "cli.h"
#include "palette.h"
#include "parallel.h"
#include "screen.h"
#include "export.h"
#include "model.h"
#include "number.h"
#include "qkvfile.h"
#include "readfile.h"
#include "tokenize.h"
#include "utf8.h"

/* Prints "attnviz: message" on stderr with every unsafe character escaped:
 * messages quote user input (option values, file contents). */
static void print_error(const char *msg) {
    char *e = utf8_escape(msg, strlen(msg));
    fprintf(stderr, "attnviz: %s\n", e ? e : "out of memory");
    free(e);
}

/* The '#' lines of --mask-file, kept for W to write back (owned here until
 * the app takes them). */
static char *mask_comments;
static int mask_comments_dropped;

/* Flushes standard output; a write that failed (a full disk, a closed pipe)
 * gets a message and 0 is returned, so no output is ever lost in silence. */
static int stdout_flushed(void) {
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout)) return 1;
    char msg[128];
    snprintf(msg, sizeof msg, "cannot write to standard output: %s", errno ? strerror(errno) : "write error");
    print_error(msg);
    return 0;
}

/* --mask-file: the painted mask, one row per query and one value per key.
 * Only a file that does not exist yet is fine (W will create it); a
 * dangling link, a loop, a FIFO... are said now, not when W fails. */
static int load_mask_file(Model *m, const CliOptions *o, AvError *err) {
    if (!o->mask_file) return 0;
    char *buf;
    size_t len;
    if (av_read_file_if_exists(o->mask_file, AV_MAX_INPUT_BYTES, &buf, &len, err))
        return av_error_prefix(err, "--mask-file");
    if (!buf) return 0;
    unsigned char *grid;
    int rc = mask_parse_grid(&grid, m->n_q, m->n_k, buf, len, o->mask_file, err);
    if (rc) {
        free(buf);
        return av_error_prefix(err, "--mask-file");
    }
    free(mask_comments);
    mask_comments = mask_file_comments(buf, len, &mask_comments_dropped);
    free(buf);
    rc = mask_comments ? model_set_painted(m, grid, m->n_q, m->n_k, err) : av_error_nomem(err, "out of memory");
    free(grid);
    return rc;
}

/* An allocation failed in the core: a runtime failure, exit 1, not bad input. */
static int error_is_oom(const AvError *err) { return err->kind == AV_ERR_NOMEM; }

/* The sentence, target and pads are taken with the smallest shape (see
 * build_model); running out of memory there must name the configuration the
 * options ask for, not d_model=1 heads=1. The tokens are counted again (the
 * failed step kept none); if even that fails, the count is left out. */
static int oom_of_final(const Model *m, const CliOptions *o, const char *text, size_t len, AvError *err) {
    if (!error_is_oom(err)) return -1;
    const ModelConfig *c = &o->cfg;
    TokenList list = {0};
    AvError ignored;
    int n = -1;
    if (text && tok_split(m->tokenizer, text, len, TOK_MAX_TOKENS, &list, &ignored) == 0) n = list.n + o->pad;
    tok_list_free(&list);
    char tokens[48] = "";
    if (n >= 0) snprintf(tokens, sizeof tokens, " and %d tokens", n);
    return av_error_nomem(err, "out of memory for d_model=%d heads=%d d_k=%d d_v=%d%s", c->d_model, c->heads, c->d_k,
                          c->d_v, tokens);
}

/* Builds the model the options describe. Returns 0, or -1 with err set. */
static int build_model(Model *m, const CliOptions *o, AvError *err) {
    if (o->qkv_file) {
        QkvData d;
        if (qkv_load(&d, o->qkv_file, err)) return av_error_prefix(err, "--qkv");
        int rc = model_set_qkv(m, &d, err);
        qkv_free(&d);
        if (rc) return av_error_prefix(err, "--qkv %s", strcmp(o->qkv_file, "-") == 0 ? "standard input" : o->qkv_file);
        ModelConfig c = m->cfg;
        c.mask = o->cfg.mask;
        c.window = o->cfg.window;
        c.prefix = o->cfg.prefix;
        c.score = o->cfg.score;
        c.scale = o->cfg.scale;
        if (model_set_config(m, &c, err)) return -1;
        return load_mask_file(m, o, err);
    }
    if (o->tokenizer != TOK_WORDS || o->pattern) {
        if (model_set_tokenizer(m, o->tokenizer, o->pattern, err)) return -1;
    }
    /* The attention mode last: cross-attention needs the target first. */
    ModelConfig first = o->cfg;
    first.attn = ATTN_SELF;
    /* Checked against the budgets with the final sides only: the sentence
     * is taken with the smallest shape (cross-attention on a long source
     * with many heads is within the limits; self-attention on it is not). */
    first.heads = first.d_k = first.d_v = first.d_model = 1;
    first.score = SCORE_DOT;
    if (model_set_config(m, &first, err)) return -1;
    if (o->file) {
        char *buf;
        size_t len;
        if (av_read_file(o->file, AV_MAX_INPUT_BYTES, &buf, &len, err)) return av_error_prefix(err, "-f");
        /* A file's final line break is not part of the sentence. */
        while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r')) buf[--len] = '\0';
        int rc = model_set_text(m, buf, len, err);
        if (rc) oom_of_final(m, o, buf, len, err);
        free(buf);
        if (rc) return av_error_prefix(err, "%s", strcmp(o->file, "-") == 0 ? "standard input" : o->file);
    } else {
        const char *text = o->text ? o->text : CLI_DEFAULT_TEXT;
        if (model_set_text(m, text, strlen(text), err)) {
            oom_of_final(m, o, text, strlen(text), err);
            return av_error_prefix(err, "TEXT");
        }
    }
    if (o->target && model_set_target(m, o->target, strlen(o->target), err)) {
        if (error_is_oom(err)) return oom_of_final(m, o, m->text, m->text_len, err);
        /* The model says "target: ..." (for the TUI); here the option says it. */
        char rest[AV_ERR_MAX];
        snprintf(rest, sizeof rest, "%s", strncmp(err->msg, "target: ", 8) == 0 ? err->msg + 8 : err->msg);
        return av_errorf(err, "--target: %s", rest);
    }
    if (o->pad && model_set_pad(m, o->pad, err)) {
        if (error_is_oom(err)) return oom_of_final(m, o, m->text, m->text_len, err);
        return av_error_prefix(err, "--pad");
    }
    if (model_set_config(m, &o->cfg, err)) return -1;
    return load_mask_file(m, o, err);
}

/* attnviz needs UTF-8 to measure and draw its labels. In a locale that is not
 * UTF-8 (LC_ALL=C over SSH, say) it switches LC_CTYPE to C.UTF-8, as tmux
 * does, and draws its own glyphs in ASCII. Returns 1 when it had to. */
static int ensure_utf8_locale(void) {
    setlocale(LC_ALL, "");
    const char *cs = nl_langinfo(CODESET);
    if (cs && (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0)) return 0;
    if (!setlocale(LC_CTYPE, "C.UTF-8")) setlocale(LC_CTYPE, "en_US.UTF-8");
    return 1;
}

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
    if (!cv) return print_error("out of memory"), 1;
    app_draw(a, cv);
    char *text = cv_render(cv, a->tier != TIER_NONE, a->tier);
    cv_free(cv);
    if (!text) return print_error("out of memory"), 1;
    int rc = fputs(text, stdout) < 0;
    free(text);
    if (!stdout_flushed()) return 1;
    if (rc) print_error("cannot write to standard output");
    return rc;
}

int main(int argc, char **argv) {
    int forced_utf8 = ensure_utf8_locale();
    CliOptions opt;
    AvError err = {0};
    if (cli_parse(&opt, argc, argv, &err)) {
        print_error(err.msg);
        fprintf(stderr, "Try 'attnviz --help' for the options and their ranges.\n");
        cli_free(&opt);
        return 2;
    }
    if (opt.help || opt.version) {
        if (opt.help) fputs(cli_usage(), stdout);
        else printf("attnviz %s\n", ATTNVIZ_VERSION);
        cli_free(&opt);
        return stdout_flushed() ? 0 : 1;
    }
    par_set_threads(opt.threads);
    Model *m = model_new();
    if (!m) {
        print_error("out of memory");
        cli_free(&opt);
        return 1;
    }
    int status = 0;
    if (build_model(m, &opt, &err)) {
        print_error(err.msg);
        status = av_error_exit_status(&err);
    } else if ((opt.dump || opt.once) && model_update(m, &err)) {
        /* (The interactive view computes in its first frame, where q, Ctrl-C
         * and SIGTERM can stop a long recompute.) */
        print_error(err.msg);
        status = 1;
    } else if (opt.dump) {
        if (export_model(stdout, m, opt.dump_format)) {
            print_error("cannot write the dump to standard output");
            status = 1;
        } else if (!stdout_flushed()) {
            status = 1;
        }
    } else {
        App app;
        app_init(&app, m, TIER_NONE, opt.ascii || forced_utf8, !opt.dv_given, opt.pattern);
        app.mask_file = opt.mask_file;
        app.mask_comments = mask_comments;
        app.mask_comments_dropped = mask_comments_dropped;
        mask_comments = NULL;
        if (opt.view) app_view_parse(opt.view, &app.view);
        if (opt.once) {
            app.tier = once_tier(&opt);
            status = run_once(&app, &opt);
        } else {
            status = screen_run(&app, &opt, &err);
            if (status == 1) print_error(err.msg);
        }
        app_free(&app);
    }
    free(mask_comments);
    model_free(m);
    cli_free(&opt);
    /* Ended by SIGINT, SIGTERM or SIGHUP (the terminal is restored, the
     * memory freed): die of the same signal, as the shell and the parent
     * expect (their wait status says "killed by SIGTERM", not "exit 143").
     * That also skips exit-time work that a hangup can wedge: a SIGCONT from
     * the pane's shell during LeakSanitizer's stop-the-world check left it
     * waiting forever (issue 10). SIGQUIT keeps its status 131 without the
     * core dump it would ask for. */
    if (status == 128 + SIGINT || status == 128 + SIGTERM || status == 128 + SIGHUP) {
        fflush(NULL);
        signal(status - 128, SIG_DFL);
        raise(status - 128);
    }
    return status;
}
