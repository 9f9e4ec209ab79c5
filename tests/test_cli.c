/* test_cli.c - option parsing: defaults, every value checked with a message
 * naming the option and its range. */
#include "testutil.h"

#include <math.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "number.h"

static int parse(CliOptions *o, AvError *err, int argc, const char **argv) {
    return cli_parse(o, argc, (char **)argv, err);
}

#define PARSE_OK(...)                                                                                                  \
    do {                                                                                                               \
        const char *argv_[] = {"attnviz", __VA_ARGS__, NULL};                                                          \
        int argc_ = (int)(sizeof argv_ / sizeof *argv_) - 1;                                                           \
        if (parse(&o, &err, argc_, argv_)) fail_msg("unexpected error: %s", err.msg);                                  \
    } while (0)

#define PARSE_ERR(expect, ...)                                                                                         \
    do {                                                                                                               \
        const char *argv_[] = {"attnviz", __VA_ARGS__, NULL};                                                          \
        int argc_ = (int)(sizeof argv_ / sizeof *argv_) - 1;                                                           \
        assert_int_equal(parse(&o, &err, argc_, argv_), -1);                                                           \
        if (!strstr(err.msg, expect)) fail_msg("message '%s' lacks '%s'", err.msg, expect);                            \
        cli_free(&o);                                                                                                  \
    } while (0)

static void test_defaults(void **state) {
    (void)state;
    CliOptions o;
    AvError err;
    const char *argv[] = {"attnviz", NULL};
    assert_int_equal(parse(&o, &err, 1, argv), 0);
    assert_int_equal(o.cfg.d_model, 64);
    assert_int_equal(o.cfg.heads, 4);
    assert_int_equal(o.cfg.d_k, 16);
    assert_int_equal(o.cfg.d_v, 16);
    assert_true(o.cfg.seed == 42);
    assert_int_equal(o.cfg.mask, MASK_CAUSAL); /* the first lesson: the future is masked */
    assert_int_equal(o.cfg.scale, 1);
    assert_null(o.text);
    assert_int_equal(o.tokenizer, TOK_WORDS);
    assert_int_equal(o.mouse, 1);
    cli_free(&o);
}

static void test_values(void **state) {
    (void)state;
    CliOptions o;
    AvError err;
    PARSE_OK("--d-model", "48", "-H", "3", "--mask=causal", "--no-scale", "--pos", "sinusoidal", "-s",
             "18446744073709551615", "-t", "gpt2", "--dump=json", "나는", "학교에", "간다");
    assert_int_equal(o.cfg.d_model, 48);
    assert_int_equal(o.cfg.heads, 3);
    assert_int_equal(o.cfg.d_k, 16); /* 48 / 3 */
    assert_int_equal(o.cfg.d_v, 16);
    assert_int_equal(o.cfg.mask, MASK_CAUSAL);
    assert_int_equal(o.cfg.scale, 0);
    assert_int_equal(o.cfg.pos, POS_SINUSOIDAL);
    assert_true(o.cfg.seed == UINT64_MAX);
    assert_int_equal(o.tokenizer, TOK_GPT2);
    assert_int_equal(o.dump, 1);
    assert_int_equal(o.dump_format, EXPORT_JSON);
    assert_string_equal(o.text, "나는 학교에 간다");
    cli_free(&o);
    PARSE_OK("-k", "5", "--d-v", "7", "--dump");
    assert_int_equal(o.cfg.d_k, 5);
    assert_int_equal(o.cfg.d_v, 7);
    assert_int_equal(o.dump_format, EXPORT_TEXT);
    cli_free(&o);
    PARSE_OK("--d-model", "4", "-H", "8");
    assert_int_equal(o.cfg.d_k, 1); /* d_model / heads, at least 1 */
    cli_free(&o);
    PARSE_OK("--pattern", "\\S+", "x");
    assert_int_equal(o.tokenizer, TOK_CUSTOM);
    cli_free(&o);
}

static void test_bad_values(void **state) {
    (void)state;
    CliOptions o;
    AvError err;
    PARSE_ERR("--heads: 65 is out of range 1..64", "-H", "65");
    PARSE_ERR("--heads: 0 is out of range 1..64", "--heads", "0");
    PARSE_ERR("--heads: 'two' is not a whole number (expected 1..64)", "--heads", "two");
    PARSE_ERR("--d-k: 4097 is out of range 1..4096", "-k", "4097");
    PARSE_ERR("--d-k: '' is not a whole number", "--d-k=");
    PARSE_ERR("--d-model: '3.5' is not a whole number", "--d-model", "3.5");
    PARSE_ERR("--d-v: -1 is out of range", "--d-v", "-1");
    PARSE_ERR("--d-model: 99999999999999999999 is out of range", "--d-model", "99999999999999999999");
    PARSE_ERR("--mask: unknown mask 'future'", "-m", "future");
    PARSE_ERR("--pos: unknown positional encoding 'learned'", "--pos", "learned");
    PARSE_ERR("--seed: -1 is out of range 0..18446744073709551615", "--seed", "-1");
    PARSE_ERR("--seed: 18446744073709551616 is out of range", "-s", "18446744073709551616");
    PARSE_ERR("--tokenizer: unknown tokenizer 'bpe'", "-t", "bpe");
    PARSE_ERR("--dump: unknown format 'xml'", "--dump=xml");
    PARSE_ERR("--width: 5 is out of range 20..1000", "--once", "--width", "5");
    PARSE_ERR("--view: unknown view 'x'", "--view", "x");
    PARSE_ERR("--color: unknown value 'blue'", "--color", "blue");
    PARSE_ERR("--bogus: unknown or ambiguous option", "--bogus");
    PARSE_ERR("-z: unknown option", "-z");
    PARSE_ERR("--heads: needs a value", "--heads");
    PARSE_ERR("--once: does not take a value", "--once=3");
    PARSE_ERR("not both", "-f", "x.txt", "hello");
    PARSE_ERR("--qkv", "--qkv", "a.qkv", "-H", "2");
    PARSE_ERR("choose one", "--dump", "--once");
    PARSE_ERR("--pattern: the pattern is empty", "--pattern", "");
    PARSE_ERR("--score: unknown score 'euclid'", "--score", "euclid");
    PARSE_ERR("choose one", "--score", "scaled", "--no-scale");
    PARSE_ERR("--attn: unknown attention 'both'", "--attn", "both");
    PARSE_ERR("--theme: unknown value 'grey' (expected auto, dark or light)", "--theme", "grey");
    PARSE_ERR("--attn cross: needs a target sentence", "--attn", "cross");
    PARSE_ERR("--pad: 5000 is out of range 0..4096", "--pad", "5000");
    PARSE_ERR("--mask: 'window:0': window must be a whole number in 1..4096", "-m", "window:0");
    PARSE_ERR("--qkv: --target, --pad", "--qkv", "a.qkv", "--target", "x");
    PARSE_ERR("--target: the sentence is empty", "--target", "");
}

static void test_variant_options(void **state) {
    (void)state;
    CliOptions o;
    AvError err;
    PARSE_OK("--score", "cosine", "--tie-qk", "--target", "나는 밥을", "--attn", "cross", "--pad", "2", "-m",
             "prefix:3", "--mask-file", "m.txt", "Bob");
    assert_int_equal(o.cfg.score, SCORE_COSINE);
    assert_int_equal(o.cfg.tie_qk, 1);
    assert_string_equal(o.target, "나는 밥을");
    assert_int_equal(o.cfg.attn, ATTN_CROSS);
    assert_int_equal(o.pad, 2);
    assert_int_equal(o.cfg.mask, MASK_PREFIX);
    assert_int_equal(o.cfg.prefix, 3);
    assert_string_equal(o.mask_file, "m.txt");
    cli_free(&o);
    PARSE_OK("--score", "dot");
    assert_int_equal(o.cfg.scale, 0);
    cli_free(&o);
    PARSE_OK("--mask-file", "m.txt");
    assert_int_equal(o.cfg.mask, MASK_PAINTED); /* a mask file means the painted mask */
    cli_free(&o);
    PARSE_OK("--target", "a b", "--attn", "causal-self");
    assert_int_equal(o.cfg.mask, MASK_CAUSAL);
    cli_free(&o);
    /* A target alone means cross-attention; with self it is refused; a mask
     * file is not overridden by causal-self's causal mask. */
    PARSE_OK("--target", "a b");
    assert_int_equal(o.cfg.attn, ATTN_CROSS);
    cli_free(&o);
    /* causal by default, but for a Q/K/V file and cross-attention */
    PARSE_OK("--qkv", "a.qkv");
    assert_int_equal(o.cfg.mask, MASK_NONE);
    cli_free(&o);
    PARSE_OK("--target", "le chat");
    assert_int_equal(o.cfg.mask, MASK_NONE);
    cli_free(&o);
    PARSE_OK("-m", "none");
    assert_int_equal(o.cfg.mask, MASK_NONE);
    cli_free(&o);
    PARSE_OK("--theme", "light");
    assert_int_equal(o.theme, 2);
    cli_free(&o);
    PARSE_ERR("--target: self-attention uses only the sentence", "--attn", "self", "--target", "a b");
    PARSE_OK("--attn", "causal-self", "--mask-file", "m.txt");
    assert_int_equal(o.cfg.mask, MASK_PAINTED);
    cli_free(&o);
    PARSE_OK("--attn", "causal-self", "--mask-file", "m.txt", "--mask", "causal");
    assert_int_equal(o.cfg.mask, MASK_CAUSAL);
    cli_free(&o);
}

static void test_reparse(void **state) {
    (void)state;
    CliOptions o;
    AvError err;
    /* getopt keeps global state: a second parse must start afresh. */
    for (int i = 0; i < 3; i++) {
        PARSE_OK("-H", "2", "word");
        assert_int_equal(o.cfg.heads, 2);
        assert_string_equal(o.text, "word");
        cli_free(&o);
    }
}

/* One rule for every number: digits only; no leading whitespace of any kind,
 * no '+', nothing after. strtol/strtoull skipped "\t", "\n", "\v" and took
 * "\t-1" as the seed 2^64 - 1. */
static void test_number_rule(void **state) {
    (void)state;
    CliOptions o;
    AvError err;
    static const char *const opts[] = {"--d-model", "--heads", "--d-k",  "--d-v",  "--pad",
                                       "--threads", "--width", "--seed", "--mask", "--mask"};
    static const char *const bad[] = {" 5",  "\t5", "\n5", "\v5", "\f5", "\r5", "5 ",
                                      "5\n", "+5",  "0x5", "5e0", "",    "-"};
    for (size_t i = 0; i < sizeof opts / sizeof *opts; i++)
        for (size_t j = 0; j < sizeof bad / sizeof *bad; j++) {
            char value[32];
            const char *prefix = i == 8 ? "window:" : i == 9 ? "prefix:" : "";
            snprintf(value, sizeof value, "%s%s", prefix, bad[j]);
            const char *argv[] = {"attnviz", "--once", opts[i], value, NULL};
            if (parse(&o, &err, 4, argv) != -1) fail_msg("%s '%s' was accepted", opts[i], value);
            if (!strstr(err.msg, "whole number")) fail_msg("%s '%s': message '%s'", opts[i], value, err.msg);
            cli_free(&o);
        }
    /* A negative number is a number, out of range where none is allowed. */
    PARSE_ERR("--seed: '\t-1' is not a whole number", "--seed", "\t-1");
    PARSE_ERR("--pad: -3 is out of range 0..4096", "--pad", "-3");
    PARSE_ERR("--threads: -1 is out of range 1..64", "--threads", "-1");
    PARSE_ERR("'window:-2': window must be a whole number", "-m", "window:-2");
    /* Leading zeros are digits; the largest seed is exact. */
    PARSE_OK("--d-model", "0064", "-m", "prefix:007", "-s", "18446744073709551615");
    assert_int_equal(o.cfg.d_model, 64);
    assert_int_equal(o.cfg.prefix, 7);
    assert_true(o.cfg.seed == UINT64_MAX);
    cli_free(&o);
    PARSE_OK("-s", "0");
    assert_true(o.cfg.seed == 0);
    cli_free(&o);
    PARSE_ERR("--seed: 99999999999999999999999 is out of range", "-s", "99999999999999999999999");
    PARSE_ERR("--seed: '99999999999999999999999x' is not a whole number", "-s", "99999999999999999999999x");

    /* The d_k prompt and COLUMNS use cli_parse_int / num_parse_long. */
    long v = 0;
    assert_int_equal(cli_parse_int("\n16", 1, 4096, "d_k", &v, &err), -1);
    assert_non_null(strstr(err.msg, "d_k: '\n16' is not a whole number"));
    assert_int_equal(cli_parse_int("16", 1, 4096, "d_k", &v, &err), 0);
    assert_int_equal(v, 16);
    assert_int_equal(num_parse_long("-5", -10, 10, &v), NUM_OK);
    assert_int_equal(v, -5);
    assert_int_equal(num_parse_long("-9223372036854775808", LONG_MIN, 0, &v), NUM_OK);
    assert_true(v == LONG_MIN);
    assert_int_equal(num_parse_long("9223372036854775808", 0, LONG_MAX, &v), NUM_OUT_OF_RANGE);
    assert_int_equal(num_parse_long("-9223372036854775809", LONG_MIN, 0, &v), NUM_OUT_OF_RANGE);
    assert_int_equal(num_parse_long("--5", -10, 10, &v), NUM_NOT_A_NUMBER);
    assert_int_equal(num_parse_long(NULL, 0, 10, &v), NUM_NOT_A_NUMBER);
    uint64_t u = 0;
    assert_int_equal(num_parse_u64("18446744073709551616", &u), NUM_OUT_OF_RANGE);
    assert_int_equal(num_parse_u64("1\xC2\xA0", &u), NUM_NOT_A_NUMBER);
}

static void test_usage_lists_options(void **state) {
    (void)state;
    const char *u = cli_usage();
    const char *opts[] = {"--d-model",   "--heads",     "--d-k",     "--d-v",    "--mask",   "--no-scale", "--pos",
                          "--seed",      "--tokenizer", "--pattern", "--qkv",    "--dump",   "--once",     "--width",
                          "--view",      "--no-mouse",  "--color",   "--ascii",  "--help",   "--version",  "--file",
                          "1..64",       "1..4096",     "--score",   "--tie-qk", "--target", "--attn",     "--pad",
                          "--mask-file", "window:W",    "prefix:P"};
    for (size_t i = 0; i < sizeof opts / sizeof *opts; i++)
        if (!strstr(u, opts[i])) fail_msg("--help lacks %s", opts[i]);
}

/* --lang is found before the parse (its messages are in that language):
 * the last valid one, wherever it is, and argv is left as it was. */
static void test_lang_before_parse(void **state) {
    (void)state;
    char *a1[] = {"attnviz", "-H", "99", "--lang", "ko", NULL};
    assert_string_equal(cli_lang(5, a1), "ko");
    char *a2[] = {"attnviz", "word", "--lang=en", "--bogus", NULL};
    assert_string_equal(cli_lang(4, a2), "en");
    assert_string_equal(a2[1], "word"); /* not permuted */
    char *a3[] = {"attnviz", "--lang", "xx", NULL};
    assert_null(cli_lang(3, a3));
    char *a4[] = {"attnviz", "--lang", "ko", "--lang", "en", NULL};
    assert_string_equal(cli_lang(5, a4), "en");
    char *a5[] = {"attnviz", "--", "--lang", "ko", NULL};
    assert_null(cli_lang(4, a5)); /* the sentence's words */
    char *a6[] = {"attnviz", "--lang", NULL};
    assert_null(cli_lang(2, a6));
}

/* Counts with their noun, and numbers for the status line: bounded width
 * ("asym" of scores near the float limit printed 42 characters). */
static void test_plural_and_short(void **state) {
    (void)state;
    assert_string_equal(num_plural("token", "tokens", 1), "token");
    assert_string_equal(num_plural("token", "tokens", 0), "tokens");
    assert_string_equal(num_plural("query", "queries", 2), "queries");
    static const struct {
        double v;
        const char *want;
    } cases[] = {{0, "0.00"},           {22.4249, "22.42"},  {-3.5, "-3.50"},
                 {9999.99, "9999.99"},  {12345.6, "1.23e4"}, {6.80564693e38, "6.81e38"},
                 {-1e300, "-1.00e300"}, {INFINITY, "inf"},   {-INFINITY, "-inf"},
                 {NAN, "nan"},          {1e-30, "0.00"},     {123456789.0, "1.23e8"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char buf[16];
        num_short(buf, sizeof buf, cases[i].v);
        assert_string_equal(buf, cases[i].want);
        assert_true(strlen(buf) <= 9);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),          cmocka_unit_test(test_values),
        cmocka_unit_test(test_bad_values),        cmocka_unit_test(test_reparse),
        cmocka_unit_test(test_variant_options),   cmocka_unit_test(test_number_rule),
        cmocka_unit_test(test_plural_and_short),  cmocka_unit_test(test_usage_lists_options),
        cmocka_unit_test(test_lang_before_parse),
    };
    return cmocka_run_group_tests_name("cli", tests, NULL, NULL);
}
