/* fuzz_lesson.c - libFuzzer target for lesson files (lesson_parse,
 * tui/lessons/lesson.h) and the script commands in them (tui/lessons/script.h).
 *
 * The input is the file's text, parsed under a name with an escape sequence
 * (escaped first, as lesson_parse's callers must).
 * Failure: NULL and one terminal-safe line "NAME:LINE: what" with LINE a
 * line of the input. Success, checked from the format: at least one step,
 * each with a non-empty title; the lesson's language en or ko; every step
 * applied to a small app (app_lesson_goto, the commands that would grow the
 * model skipped: fuzz_script.h) and drawn once, the app's state then read
 * back by script_state and every one of its lines parsed again. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_script.h"
#include "lesson.h"
#include "utf8.h"

static const char FUZZ_NAME[] = "l\x1b[31m\xc2\x9b"
                                "2J.txt";

FUZZ_NO_COVERAGE static void check_message(const AvError *err, size_t size) {
    size_t n = fuzz_msg_len(err->msg, sizeof err->msg);
    FUZZ_CHECK(n > 0, "failure without a message");
    long bad = fuzz_first_unsafe(err->msg, n, NULL);
    if (bad >= 0) fuzz_dump("message", err->msg, n);
    FUZZ_CHECK(bad < 0, "message has an unsafe byte at %ld", bad);
    const char *colon = strstr(err->msg, "2J.txt:");
    if (colon) { /* a line of the input, or the one after its end */
        long line = strtol(colon + 7, NULL, 10);
        FUZZ_CHECK(line >= 1 && (size_t)line <= size + 2, "line %ld of %zu bytes", line, size);
    }
}

/* Every line of the app's state parses again. */
FUZZ_NO_COVERAGE static void check_state(const App *a) {
    char *st = script_state(a, NULL);
    FUZZ_CHECK(st != NULL, "out of memory");
    for (char *p = st; *p;) {
        char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        ScriptCmd c;
        char why[256];
        int rc = script_parse(p, n, &c, why, sizeof why);
        if (rc) fuzz_dump("state line", p, n);
        FUZZ_CHECK(rc == 0, "the state does not parse: %s", why);
        script_cmd_free(&c);
        p += n + (nl ? 1 : 0);
    }
    free(st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    AvError err = {0};
    static char *name;
    if (!name) name = utf8_escape(FUZZ_NAME, strlen(FUZZ_NAME));
    FUZZ_CHECK(name != NULL, "out of memory");
    Lesson *l = lesson_parse((const char *)data, size, name, &err);
    if (!l) {
        check_message(&err, size);
        return 0;
    }
    FUZZ_CHECK(l->n_step >= 1, "no step");
    FUZZ_CHECK(strcmp(l->lang, "en") == 0 || strcmp(l->lang, "ko") == 0, "lang %s", l->lang);
    for (int s = 0; s < l->n_step; s++) {
        FUZZ_CHECK(l->step[s].title && l->step[s].title[0], "step %d without a title", s + 1);
        for (int i = 0; i < l->step[s].n_cmd; i++)
            if (!fuzz_script_cheap(&l->step[s].cmd[i])) { /* parsed and checked; not applied */
                lesson_free(l);
                return 0;
            }
    }
    App *a = fuzz_script_app_new();
    int steps = l->n_step < 8 ? l->n_step : 8;
    if (app_lesson_start(a, l, &err) == 0) /* the app owns the lesson now */
        for (int s = 0; s < steps; s++) {
            AvError e = {0};
            if (app_lesson_goto(a, s, &e)) check_message(&e, size);
            fuzz_script_frame(a);
        }
    else check_message(&err, size);
    check_state(a);
    return 0;
}
