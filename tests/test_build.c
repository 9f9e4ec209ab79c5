/* test_build.c - the model the command line describes (build_model): what
 * a Q/K/V file takes from the options, cross-attention set up on its final
 * shape, pads, and the painted mask with the comments W writes back. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "build.h"
#include "cli.h"

/* Parses argv (NULL-terminated, after "attnviz") and builds a model of it:
 * returns build_model's result; *m is the model (the caller frees it). */
static int build_from(Model **m, BuildMaskNotes *notes, AvError *err, const char **args) {
    const char *argv[32] = {"attnviz"};
    int argc = 1;
    while (args[argc - 1]) argv[argc] = args[argc - 1], argc++;
    CliOptions o;
    if (cli_parse(&o, argc, (char **)argv, err)) fail_msg("options: %s", err->msg);
    *m = model_new();
    assert_non_null(*m);
    int rc = build_model(*m, &o, notes, err);
    cli_free(&o);
    return rc;
}

static void test_qkv_file_takes_what_is_computed(void **state) {
    (void)state;
    Model *m;
    AvError err = {0};
    const char *args[] = {"--qkv", "samples/worked-example.qkv", "-m", "window:2", "--score", "dot", NULL};
    if (build_from(&m, NULL, &err, args)) fail_msg("%s", err.msg);
    /* The shape is the file's (d_k 3, one head), not the options' defaults. */
    assert_ptr_equal(m->src, &source_qkv);
    assert_int_equal(m->cfg.heads, 1);
    assert_int_equal(m->cfg.d_k, 3);
    assert_int_equal(m->n_q, 3);
    /* The mask and the score are the options'. */
    assert_int_equal(m->cfg.mask, MASK_WINDOW);
    assert_int_equal(m->cfg.window, 2);
    assert_int_equal(m->cfg.score, SCORE_DOT);
    assert_int_equal(m->cfg.scale, 0);
    model_free(m);
}

static void test_cross_attention_on_its_final_shape(void **state) {
    (void)state;
    Model *m;
    AvError err = {0};
    /* The sentence is taken with one head of width 1: the final shape comes
     * after the target, with cross-attention. */
    const char *args[] = {"-H",
                          "8",
                          "--d-model",
                          "96",
                          "--attn",
                          "cross",
                          "--target",
                          "Bob saw",
                          "--pad",
                          "2",
                          "--score",
                          "cosine",
                          "the cat sat on the mat",
                          NULL};
    if (build_from(&m, NULL, &err, args)) fail_msg("%s", err.msg);
    assert_int_equal(m->cfg.attn, ATTN_CROSS);
    assert_int_equal(m->cfg.heads, 8);
    assert_int_equal(m->cfg.d_model, 96);
    assert_int_equal(m->cfg.d_k, 12);
    assert_int_equal(m->cfg.score, SCORE_COSINE);
    assert_int_equal(m->n_q, 2);
    assert_int_equal(m->n_pad, 2);
    assert_int_equal(m->n_k, 6 + 2);
    if (model_update(m, &err)) fail_msg("%s", err.msg);
    model_free(m);
}

/* A mask file in a fresh directory; *dir and *path are filled. */
static void write_mask(char *dir, char *path, size_t cap, const char *text) {
    assert_non_null(mkdtemp(dir));
    snprintf(path, cap, "%s/m.txt", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static void test_mask_file_and_its_comments(void **state) {
    (void)state;
    char dir[] = "/tmp/attnviz-build.XXXXXX", path[64];
    write_mask(dir, path, sizeof path, "# mine\n1 1 1\n0 1 1 # row 1\n1 1 1\n");
    Model *m;
    AvError err = {0};
    BuildMaskNotes notes = {.comments = (char *)"stale", .dropped = -1};
    const char *args[] = {"--mask-file", path, "Bob saw Mary", NULL};
    if (build_from(&m, &notes, &err, args)) fail_msg("%s", err.msg);
    assert_int_equal(m->cfg.mask, MASK_PAINTED);
    assert_non_null(m->painted);
    assert_int_equal(m->painted[0], 1);
    assert_int_equal(m->painted[3], 0);
    assert_string_equal(notes.comments, "# mine\n");
    assert_int_equal(notes.dropped, 1);
    free(notes.comments);
    model_free(m);

    /* Without notes the comments are not kept (nothing leaks); the grid is. */
    if (build_from(&m, NULL, &err, args)) fail_msg("%s", err.msg);
    assert_int_equal(m->painted[3], 0);
    model_free(m);

    /* A grid of the wrong shape: the option is named, no comments. */
    const char *four[] = {"--mask-file", path, "Bob saw Mary too", NULL};
    notes.comments = (char *)"stale";
    assert_int_equal(build_from(&m, &notes, &err, four), -1);
    if (strncmp(err.msg, "--mask-file: ", 13) != 0) fail_msg("message '%s'", err.msg);
    assert_int_equal(err.kind, AV_ERR_INPUT);
    assert_null(notes.comments);
    model_free(m);
    unlink(path);
    rmdir(dir);
}

static void test_errors_name_the_option(void **state) {
    (void)state;
    Model *m;
    AvError err = {0};
    const char *missing[] = {"-f", "/nonexistent/attnviz-sentence", NULL};
    assert_int_equal(build_from(&m, NULL, &err, missing), -1);
    if (strncmp(err.msg, "-f: ", 4) != 0) fail_msg("message '%s'", err.msg);
    model_free(m);
    /* The model says "target: ..."; the option says it here. */
    const char *target[] = {"--target", "\xff", "Bob saw Mary", NULL};
    assert_int_equal(build_from(&m, NULL, &err, target), -1);
    if (strncmp(err.msg, "--target: ", 10) != 0 || strstr(err.msg, "target: target")) fail_msg("'%s'", err.msg);
    model_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_qkv_file_takes_what_is_computed),
        cmocka_unit_test(test_cross_attention_on_its_final_shape),
        cmocka_unit_test(test_mask_file_and_its_comments),
        cmocka_unit_test(test_errors_name_the_option),
    };
    return cmocka_run_group_tests_name("build", tests, NULL, NULL);
}
