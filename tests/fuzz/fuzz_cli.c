/* fuzz_cli.c - libFuzzer target for the command line parser (tui/cli.h).
 *
 * The input becomes an argv: split at NUL bytes and newlines, after
 * argv[0] = "attnviz", at most FUZZ_MAX_ARGS arguments. cli_parse runs twice
 * on fresh copies (getopt keeps global state: the second run must give the
 * same answer), then cli_free.
 *
 * On failure the message is NUL-terminated and shorter than AV_ERR_MAX. It may
 * quote the user's input raw (main.c escapes it with utf8_escape before
 * printing), so the check is on the escaped message: one line, no C0 control,
 * no DEL, no C1 control (U+0080..U+009F). On success the options describe a
 * valid model configuration (unless --help or --version stopped the parse). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fuzz_util.h"
#include "model.h"
#include "utf8.h"

#define FUZZ_MAX_ARGS 64

/* Splits data into a fresh argv (each argument its own heap block, so ASan
 * sees reads past any argument's NUL). Returns argc. */
static int make_argv(char **argv, const uint8_t *data, size_t size) {
    int argc = 0;
    argv[argc++] = strdup("attnviz");
    size_t start = 0;
    for (size_t i = 0; i <= size && argc < FUZZ_MAX_ARGS; i++) {
        if (i < size && data[i] != '\0' && data[i] != '\n') continue;
        if (i == size && start == size && size > 0) break; /* no empty argument after a final separator */
        size_t n = i - start;
        char *a = malloc(n + 1);
        FUZZ_CHECK(a != NULL, "out of memory");
        memcpy(a, data + start, n);
        a[n] = '\0';
        argv[argc++] = a;
        start = i + 1;
    }
    argv[argc] = NULL;
    return argc;
}

static void free_argv(char **argv, int argc) {
    for (int i = 0; i < argc; i++) free(argv[i]);
}

static void check_failure(const AvError *err) {
    size_t n = fuzz_msg_len(err->msg, sizeof err->msg);
    FUZZ_CHECK(n > 0 && n < AV_ERR_MAX, "message length %zu", n);
    char *esc = utf8_escape(err->msg, n);
    FUZZ_CHECK(esc != NULL, "out of memory");
    size_t elen = strlen(esc);
    long bad = fuzz_first_unsafe(esc, elen, NULL);
    if (bad >= 0) {
        fuzz_dump("message", err->msg, n);
        fuzz_dump("escaped", esc, elen);
    }
    FUZZ_CHECK(bad < 0, "escaped message has an unsafe byte at %ld", bad);
    free(esc);
}

static void check_success(const CliOptions *o, int argc, char **argv) {
    if (o->help || o->version) return;
    AvError err = {0};
    FUZZ_CHECK(model_config_check(&o->cfg, &err) == 0, "accepted options give a bad configuration: %s", err.msg);
    FUZZ_CHECK((o->tokenizer == TOK_CUSTOM) == (o->pattern != NULL), "tokenizer %d with pattern %p", (int)o->tokenizer,
               (const void *)o->pattern);
    FUZZ_CHECK(o->tokenizer >= TOK_WORDS && o->tokenizer < TOK_PRESET_COUNT, "tokenizer %d", (int)o->tokenizer);
    FUZZ_CHECK(!(o->text && o->file), "both TEXT and -f accepted");
    FUZZ_CHECK(!(o->dump && o->once), "both --dump and --once accepted");
    FUZZ_CHECK(o->width == 0 || (o->width >= 20 && o->width <= 1000), "width %d", o->width);
    if (o->pattern && o->pattern[0] == '\0') FUZZ_CHECK(0, "an empty --pattern was accepted");
    /* Pointers into argv must point into argv. */
    const char *const ptrs[] = {o->file, o->qkv_file, o->pattern, o->view};
    for (size_t p = 0; p < sizeof ptrs / sizeof *ptrs; p++) {
        if (!ptrs[p]) continue;
        int inside = 0;
        for (int i = 0; i < argc && !inside; i++) {
            size_t n = strlen(argv[i]);
            inside = ptrs[p] >= argv[i] && ptrs[p] <= argv[i] + n;
        }
        FUZZ_CHECK(inside, "option value %zu does not point into argv", p);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *argv1[FUZZ_MAX_ARGS + 1], *argv2[FUZZ_MAX_ARGS + 1];
    int argc1 = make_argv(argv1, data, size);
    int argc2 = make_argv(argv2, data, size);

    CliOptions o1, o2;
    AvError e1 = {0}, e2 = {0};
    int rc1 = cli_parse(&o1, argc1, argv1, &e1);
    if (rc1 == 0) check_success(&o1, argc1, argv1);
    else {
        FUZZ_CHECK(rc1 == -1, "cli_parse returned %d", rc1);
        check_failure(&e1);
    }
    int rc2 = cli_parse(&o2, argc2, argv2, &e2);
    FUZZ_CHECK(rc1 == rc2, "cli_parse gave %d, then %d on the same arguments", rc1, rc2);
    if (rc1) FUZZ_CHECK(strcmp(e1.msg, e2.msg) == 0, "cli_parse's message changed between runs");
    else {
        const ModelConfig *a = &o1.cfg, *b = &o2.cfg;
        FUZZ_CHECK(a->d_model == b->d_model && a->heads == b->heads && a->d_k == b->d_k && a->d_v == b->d_v &&
                       a->seed == b->seed && a->mask == b->mask && a->scale == b->scale && a->pos == b->pos,
                   "configuration changed between runs");
        FUZZ_CHECK((o1.text == NULL) == (o2.text == NULL) && (!o1.text || strcmp(o1.text, o2.text) == 0),
                   "TEXT changed between runs");
    }
    cli_free(&o1);
    cli_free(&o2);
    cli_free(&o1); /* twice: must stay safe */
    free_argv(argv1, argc1);
    free_argv(argv2, argc2);
    return 0;
}
