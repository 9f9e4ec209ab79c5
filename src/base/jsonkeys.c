/* jsonkeys.c - see jsonkeys.h. Each object's keys are sorted (pointers to
 * its members) and neighbours compared; small objects pairwise. Depth first,
 * with an explicit path for the message. */
#include "jsonkeys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "utf8.h"

enum { PAIRWISE = 16, PATH_MAX_ = 256, DEPTH_MAX = 64 };

static int by_key(const void *a, const void *b) {
    const char *x = (*(const cJSON *const *)a)->string, *y = (*(const cJSON *const *)b)->string;
    return strcmp(x ? x : "", y ? y : "");
}

/* The key that one of obj's members repeats, or NULL (-1: out of memory). */
static const char *repeated(const cJSON *obj, int *oom) {
    int n = 0;
    for (const cJSON *c = obj->child; c; c = c->next) n++;
    if (n < 2) return NULL;
    if (n <= PAIRWISE) {
        for (const cJSON *a = obj->child; a; a = a->next)
            for (const cJSON *b = a->next; b; b = b->next)
                if (a->string && b->string && strcmp(a->string, b->string) == 0) return a->string;
        return NULL;
    }
    const cJSON **v = malloc(sizeof *v * (size_t)n);
    if (!v) return *oom = 1, NULL;
    int k = 0;
    for (const cJSON *c = obj->child; c; c = c->next) v[k++] = c;
    qsort(v, (size_t)n, sizeof *v, by_key);
    const char *dup = NULL;
    for (int i = 1; i < n && !dup; i++)
        if (v[i]->string && v[i - 1]->string && strcmp(v[i]->string, v[i - 1]->string) == 0) dup = v[i]->string;
    free(v);
    return dup;
}

static int walk(const cJSON *node, char *path, size_t len, int depth, const char *file, AvError *err) {
    if (!cJSON_IsObject(node) && !cJSON_IsArray(node)) return 0;
    if (cJSON_IsObject(node)) {
        int oom = 0;
        const char *dup = repeated(node, &oom);
        if (oom) return av_error_nomem(err, _("%s: out of memory checking its keys"), file);
        if (dup) {
            char key[128];
            utf8_escape_into(key, sizeof key, dup);
            if (!len)
                return av_errorf(err, _("%s: the key \"%s\" appears twice (at the top level); each key must be unique"),
                                 file, key);
            return av_errorf(err, _("%s: the key \"%s\" appears twice (in %s); each key must be unique"), file, key,
                             path);
        }
    }
    if (depth >= DEPTH_MAX) return 0;
    int i = 0;
    for (const cJSON *c = node->child; c; c = c->next, i++) {
        if (!cJSON_IsObject(c) && !cJSON_IsArray(c)) continue;
        char part[96];
        if (cJSON_IsObject(node)) utf8_escape_into(part, sizeof part, c->string ? c->string : "");
        else snprintf(part, sizeof part, "[%d]", i);
        size_t add = strlen(part) + (len && cJSON_IsObject(node) ? 1 : 0);
        size_t n = len;
        if (len + add + 1 < PATH_MAX_) {
            if (len && cJSON_IsObject(node)) path[n++] = '.';
            memcpy(path + n, part, strlen(part) + 1);
            n += strlen(part);
        }
        if (walk(c, path, n, depth + 1, file, err)) return -1;
        path[len] = '\0';
    }
    return 0;
}

int json_unique_keys(const cJSON *root, const char *file, AvError *err) {
    char path[PATH_MAX_] = "";
    return root ? walk(root, path, 0, 0, file, err) : 0;
}
