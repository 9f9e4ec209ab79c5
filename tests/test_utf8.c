/* test_utf8.c - decoding and the escaping of unsafe characters. */
#include "testutil.h"

#include <stdlib.h>

#include "utf8.h"

static void test_decode(void **state) {
    (void)state;
    uint32_t cp;
    assert_int_equal(utf8_decode("A", 1, &cp), 1);
    assert_true(cp == 'A');
    assert_int_equal(utf8_decode("가", 3, &cp), 3);
    assert_true(cp == 0xAC00);
    assert_int_equal(utf8_decode("\xF0\x9F\x98\x80", 4, &cp), 4);
    assert_true(cp == 0x1F600);
    assert_int_equal(utf8_decode("\xEA\xB0", 2, &cp), 1); /* truncated */
    assert_true(cp == UTF8_INVALID);
    assert_int_equal(utf8_decode("\xC0\x80", 2, &cp), 1); /* overlong */
    assert_true(cp == UTF8_INVALID);
    assert_int_equal(utf8_decode("\xED\xA0\x80", 3, &cp), 1); /* surrogate */
    assert_true(cp == UTF8_INVALID);
    char buf[4];
    assert_int_equal(utf8_encode(0xAC00, buf), 3);
    assert_memory_equal(buf, "가", 3);
}

static void test_escape(void **state) {
    (void)state;
    const char in[] = "a\x1b[31mb\x07\tc\xc2\x9b\xe2\x80\xae"
                      "d\xff"
                      "학교";
    char *e = utf8_escape(in, sizeof in - 1);
    assert_string_equal(e, "a\\x1B[31mb\\x07\\tc\\u{009B}\\u{202E}d\\xFF학교");
    free(e);
    e = utf8_escape("a\0b", 3);
    assert_string_equal(e, "a\\x00b");
    free(e);
    assert_true(utf8_is_unsafe(0x7F));
    assert_false(utf8_is_unsafe(0xAC00));
}

/* Spaces as ▁; a ▁ that does not fit is left out whole. */
static void test_show_spaces(void **state) {
    (void)state;
    char buf[16];
    assert_int_equal(utf8_show_spaces(" was a", 6, buf, sizeof buf), 10);
    assert_string_equal(buf, "\xe2\x96\x81was\xe2\x96\x81"
                             "a");
    assert_int_equal(utf8_show_spaces("ab ", 3, buf, 5), 2);
    assert_string_equal(buf, "ab");
    assert_int_equal(utf8_show_spaces("a\0b", 3, buf, sizeof buf), 3);
    assert_memory_equal(buf, "a\0b", 4);
    assert_int_equal(utf8_show_spaces("x", 1, buf, 0), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_decode), cmocka_unit_test(test_escape),
                                       cmocka_unit_test(test_show_spaces)};
    return cmocka_run_group_tests_name("utf8", tests, NULL, NULL);
}
