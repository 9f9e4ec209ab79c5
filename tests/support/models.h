/* models.h - where the tests find the real models of ../shared/models/.
 *
 * CI has ../shared beside the checkout; a git worktree one level deeper
 * (wt/<branch>) finds it at ../../shared; ATTNVIZ_MODELS names another
 * folder (and then only it is looked in). Absent, need_missing (need.h):
 * one "skipped: ..." line outside CI, a failure under CI. */
#ifndef ATTNVIZ_TEST_MODELS_H
#define ATTNVIZ_TEST_MODELS_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "need.h"

#define MODELS_DIR "../shared/models"

/* The path of models/<file> in path[cap], or 0 after need_missing. */
static inline int models_path(char *path, size_t cap, const char *file) {
    const char *env = getenv("ATTNVIZ_MODELS");
    const char *const dirs[] = {env && env[0] ? env : MODELS_DIR, env && env[0] ? NULL : "../../shared/models"};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        if (!dirs[i]) continue;
        snprintf(path, cap, "%s/%s", dirs[i], file);
        if (access(path, R_OK) == 0) return 1;
    }
    return need_missing("%s/%s not found", dirs[0], file);
}

#endif
