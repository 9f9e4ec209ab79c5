/* need.h - what a test needs from outside attnviz: a model of
 * ../shared/models, a peer program or package (python3 with NumPy, node,
 * npm's GPT-2 vocabulary, Chromium, xmllint, a locale).
 *
 * Outside CI a missing one prints one "skipped: WHAT" line and the test goes
 * on (and passes) without it; under CI (the environment's CI set and not
 * "false") the same words fail the test: CI has all of it (.ci/run installs
 * the peers, shared/ has the models). tests/support/lib.sh does the same for
 * the shell scripts. */
#ifndef ATTNVIZ_TEST_NEED_H
#define ATTNVIZ_TEST_NEED_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

/* 1 under CI: CI is set, not empty and not "false". */
static inline int need_under_ci(void) {
    const char *ci = getenv("CI");
    return ci && ci[0] && strcmp(ci, "false") != 0;
}

/* Says that what the words name is missing: "skipped: ..." (once per test
 * program for the same words) and returns 0; under CI the test fails with
 * "missing under CI: ..." (inside a cmocka test its failure; outside one,
 * cmocka ends the program with a failure). */
static inline int need_missing(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
static inline int need_missing(const char *fmt, ...) {
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (need_under_ci()) fail_msg("missing under CI: %s", what);
    static char said[8][160];
    for (int i = 0; i < 8; i++) {
        if (strncmp(said[i], what, sizeof said[i] - 1) == 0) return 0;
        if (!said[i][0]) {
            snprintf(said[i], sizeof said[i], "%s", what);
            break;
        }
    }
    printf("skipped: %s\n", what);
    fflush(stdout);
    return 0;
}

#endif
