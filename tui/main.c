/* main.c - attnviz's entry point: parse the command line, build the model,
 * then dump it, draw it once, or run the interactive TUI. */
#define _POSIX_C_SOURCE 200809L
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "export.h"
#include "model.h"
#include "qkvfile.h"
#include "readfile.h"
#include "utf8.h"

/* Prints "attnviz: message" on stderr with every unsafe character escaped:
 * messages quote user input (option values, file contents). */
static void print_error(const char *msg) {
    char *e = utf8_escape(msg, strlen(msg));
    fprintf(stderr, "attnviz: %s\n", e ? e : "out of memory");
    free(e);
}

/* Builds the model the options describe. Returns 0, or -1 with err set. */
static int build_model(Model *m, const CliOptions *o, AvError *err) {
    if (o->qkv_file) {
        QkvData d;
        if (qkv_load(&d, o->qkv_file, err)) return -1;
        int rc = model_set_qkv(m, &d, err);
        qkv_free(&d);
        if (rc) return av_error_prefix(err, "--qkv %s", o->qkv_file);
        ModelConfig c = m->cfg;
        c.mask = o->cfg.mask;
        c.scale = o->cfg.scale;
        return model_set_config(m, &c, err);
    }
    if (o->tokenizer != TOK_WORDS || o->pattern) {
        if (model_set_tokenizer(m, o->tokenizer, o->pattern, err)) return -1;
    }
    if (model_set_config(m, &o->cfg, err)) return -1;
    if (o->file) {
        char *buf;
        size_t len;
        if (av_read_file(o->file, AV_MAX_INPUT_BYTES, &buf, &len, err)) return -1;
        /* A file's final line break is not part of the sentence. */
        while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r')) buf[--len] = '\0';
        int rc = model_set_text(m, buf, len, err);
        free(buf);
        if (rc) return av_error_prefix(err, "%s", o->file);
        return 0;
    }
    const char *text = o->text ? o->text : CLI_DEFAULT_TEXT;
    if (model_set_text(m, text, strlen(text), err)) return av_error_prefix(err, "TEXT");
    return 0;
}

int main(int argc, char **argv) {
    setlocale(LC_ALL, "");
    CliOptions opt;
    AvError err = {{0}};
    if (cli_parse(&opt, argc, argv, &err)) {
        print_error(err.msg);
        fprintf(stderr, "Try 'attnviz --help' for the options and their ranges.\n");
        cli_free(&opt);
        return 2;
    }
    if (opt.help) {
        fputs(cli_usage(), stdout);
        cli_free(&opt);
        return 0;
    }
    if (opt.version) {
        printf("attnviz %s\n", ATTNVIZ_VERSION);
        cli_free(&opt);
        return 0;
    }
    Model *m = model_new();
    if (!m) {
        print_error("out of memory");
        cli_free(&opt);
        return 1;
    }
    int status = 0;
    if (build_model(m, &opt, &err)) {
        print_error(err.msg);
        status = 2;
    } else if (model_update(m, &err)) {
        print_error(err.msg);
        status = 1;
    } else if (opt.dump) {
        if (export_model(stdout, m, opt.dump_format) || fflush(stdout)) {
            print_error("cannot write the dump to standard output");
            status = 1;
        }
    } else {
        print_error("the interactive view is not built yet; use --dump");
        status = 1;
    }
    model_free(m);
    cli_free(&opt);
    return status;
}
