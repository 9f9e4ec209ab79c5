/* models.h - where the tests find the real models of ../shared/models/.
 *
 * CI has ../shared beside the checkout; a git worktree one level deeper
 * (wt/<branch>) finds it at ../../shared; ATTNVIZ_MODELS names another
 * folder. Absent, a test prints one "skipped: ..." line and passes. */
#ifndef ATTNVIZ_TEST_MODELS_H
#define ATTNVIZ_TEST_MODELS_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define MODELS_DIR "../shared/models"

/* The path of models/<file> in path[cap], or 0 after the "skipped" line. */
static inline int models_path(char *path, size_t cap, const char *file) {
    const char *env = getenv("ATTNVIZ_MODELS");
    const char *const dirs[] = {env && env[0] ? env : MODELS_DIR, "../../shared/models"};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        snprintf(path, cap, "%s/%s", dirs[i], file);
        if (access(path, R_OK) == 0) return 1;
    }
    printf("skipped: %s/%s not found\n", dirs[0], file);
    return 0;
}

#endif
