/* testutil.h - shared helpers of the cmocka tests. */
#ifndef ATTNVIZ_TESTUTIL_H
#define ATTNVIZ_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "model.h"

/* A model of `text` with configuration c, updated. Fails the test on error. */
static inline Model *tu_model(const char *text, const ModelConfig *c) {
    Model *m = model_new();
    assert_non_null(m);
    AvError err = {0};
    if (c && model_set_config(m, c, &err)) fail_msg("config: %s", err.msg);
    if (model_set_text(m, text, strlen(text), &err)) fail_msg("text: %s", err.msg);
    if (model_update(m, &err)) fail_msg("update: %s", err.msg);
    return m;
}

static inline ModelConfig tu_config(int d_model, int heads, int d_k, int d_v) {
    ModelConfig c;
    model_config_default(&c);
    c.d_model = d_model, c.heads = heads, c.d_k = d_k, c.d_v = d_v;
    return c;
}

#define assert_near(a, b, eps)                                                                                         \
    do {                                                                                                               \
        double a_ = (a), b_ = (b);                                                                                     \
        if (!(a_ - b_ <= (eps) && b_ - a_ <= (eps)))                                                                   \
            fail_msg("%s = %.10g, expected %.10g (+-%g)", #a, a_, b_, (double)(eps));                                  \
    } while (0)

#endif
