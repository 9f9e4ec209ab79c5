/* test_error.c - unit tests of src/base/error.c: messages, prefixes and the kind
 * that decides the command line's exit status (2 bad input, 1 otherwise). */
#include "testutil.h"

#include "error.h"

static void test_kinds_and_status(void **state) {
    (void)state;
    AvError err = {0};
    assert_int_equal(err.kind, AV_ERR_INPUT);
    assert_int_equal(av_errorf(&err, "bad %d", 7), -1);
    assert_string_equal(err.msg, "bad 7");
    assert_int_equal(av_error_exit_status(&err), 2);
    av_error_nomem(&err, "out of memory for %s", "X");
    assert_int_equal(err.kind, AV_ERR_NOMEM);
    assert_int_equal(av_error_exit_status(&err), 1);
    /* A prefix keeps the kind. */
    av_error_prefix(&err, "--qkv");
    assert_string_equal(err.msg, "--qkv: out of memory for X");
    assert_int_equal(err.kind, AV_ERR_NOMEM);
    av_error_io(&err, "f: read error");
    assert_int_equal(av_error_exit_status(&err), 1);
    /* A new message of bad input is bad input again. */
    av_errorf(&err, "again");
    assert_int_equal(av_error_exit_status(&err), 2);
    /* NULL is allowed everywhere. */
    assert_int_equal(av_errorf(NULL, "x"), -1);
    assert_int_equal(av_error_nomem(NULL, "x"), -1);
    assert_int_equal(av_error_prefix(NULL, "x"), -1);
    assert_int_equal(av_error_exit_status(NULL), 2);
}

/* An over-long prefix and message are cut, never overflowed. */
static void test_prefix_cut(void **state) {
    (void)state;
    AvError err = {0};
    char big[2 * AV_ERR_MAX];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    av_errorf(&err, "%s", big);
    assert_int_equal(strlen(err.msg), AV_ERR_MAX - 1);
    av_error_prefix(&err, "%s", big);
    assert_true(strlen(err.msg) < AV_ERR_MAX);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kinds_and_status),
        cmocka_unit_test(test_prefix_cut),
    };
    return cmocka_run_group_tests_name("error", tests, NULL, NULL);
}
