/* test_follow.c - the classroom stream (follow.h): a teacher's state framed
 * as a block and read back by a follower, which must come to the same state
 * (script_state and the block itself); every malformed or hostile input
 * (a truncated block, a 10 MB line, unknown commands, "key quit", control
 * bytes, invalid UTF-8, another version) refused with a message and no
 * block; a block that fails halfway leaves the follower as it was; and the
 * sockets: the file's mode, what is refused at PATH, a dead socket
 * replaced, the state reaching a follower, a slow follower dropped. */
#define _GNU_SOURCE
#include "testutil.h"

#include <errno.h>
#include <locale.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "app.h"
#include "canvas.h"
#include "cli.h"
#include "follow.h"
#include "lesson.h"
#include "script.h"

static Model *make_model(const char *text) {
    ModelConfig c;
    model_config_default(&c);
    c.mask = MASK_CAUSAL;
    return tu_model(text, &c);
}

/* Feeds a whole string; returns feed's result. */
static int feed(FollowReader *r, const char *s, char *why, size_t cap) {
    return follow_reader_feed(r, s, strlen(s), why, cap);
}

/* The teacher: an app changed by a few actions, on a sentence with a quote,
 * a backslash, an escape sequence and Hangul. */
static void teacher_init(App *t, Model *m) {
    app_init(t, m, TIER_NONE, 0, 1, NULL);
    AvError err = {0};
    const char *text = "나는 \"어제\" a\\b \x1b[31mred\x1b[0m 영화를 봤다";
    assert_int_equal(model_set_text(m, text, strlen(text), &err), 0);
    assert_int_equal(app_run(t, "mask", NULL), 0);
    assert_int_equal(app_run(t, "scale", NULL), 0);
    assert_int_equal(app_run(t, "head", "3"), 0);
    assert_int_equal(app_run(t, "dk-halve", NULL), 0);
    assert_int_equal(app_run(t, "down", NULL), 0);
    assert_int_equal(app_run(t, "down", NULL), 0);
    assert_int_equal(app_run(t, "right", NULL), 0);
    assert_int_equal(app_run(t, "view", "pipeline"), 0);
    app_update(t);
}

static char *state_of(const App *a) {
    char *s = script_state(a, NULL);
    assert_non_null(s);
    return s;
}

static void test_block_framing(void **state) {
    (void)state;
    Model *m = make_model("the cat sat on the mat");
    App t;
    app_init(&t, m, TIER_NONE, 0, 1, NULL);
    size_t n;
    char *b = follow_block(&t, &n);
    assert_non_null(b);
    assert_int_equal(strlen(b), n);
    assert_int_equal(strncmp(b, "attnviz-state 1\n", 16), 0);
    assert_true(n > 13 && strcmp(b + n - 13, "\ncaption\nend\n") == 0);
    assert_non_null(strstr(b, "\nsentence \"the cat sat on the mat\"\n"));
    /* every line between the header and end is a command the parser takes */
    int lines = 0;
    for (char *p = b + 16; *p;) {
        char *nl = strchr(p, '\n');
        assert_non_null(nl);
        if (strncmp(p, "end\n", 4) != 0) {
            ScriptCmd c;
            char why[256];
            if (script_parse(p, (size_t)(nl - p), &c, why, sizeof why)) fail_msg("%.*s: %s", (int)(nl - p), p, why);
            script_cmd_free(&c);
        }
        lines++;
        p = nl + 1;
    }
    assert_true(lines >= 10);
    free(b);
    app_free(&t);
    model_free(m);
}

/* The teacher's block, fed to a follower app that started elsewhere, gives
 * the same state: byte by byte as well as at once. */
static void test_round_trip(void **state) {
    (void)state;
    Model *tm = make_model("x"), *fm = make_model("a quite different sentence of the follower");
    App t, f;
    teacher_init(&t, tm);
    app_init(&f, fm, TIER_NONE, 0, 1, NULL);
    size_t n;
    char *block = follow_block(&t, &n);
    assert_non_null(block);
    assert_non_null(strstr(block, "\\x1B[31m")); /* control bytes quoted, never raw */
    assert_null(memchr(block, 0x1b, n));

    for (int bytewise = 0; bytewise < 2; bytewise++) {
        FollowReader *r = follow_reader_new();
        char why[512];
        int got = 0;
        if (bytewise)
            for (size_t i = 0; i < n; i++) got |= follow_reader_feed(r, block + i, 1, why, sizeof why);
        else got = follow_reader_feed(r, block, n, why, sizeof why);
        assert_int_equal(got, FOLLOW_GOT_BLOCK);
        FollowBlock b;
        assert_int_equal(follow_reader_take(r, &b), 1);
        FollowBlock again; /* taken once */
        assert_int_equal(follow_reader_take(r, &again), 0);
        assert_int_equal(follow_apply(&f, &b, why, sizeof why), 0);
        follow_block_free(&b);
        follow_reader_free(r);
        app_update(&f);
        char *ts = state_of(&t), *fs = state_of(&f);
        assert_string_equal(fs, ts);
        free(ts), free(fs);
        char *fb = follow_block(&f, NULL);
        assert_string_equal(fb, block);
        free(fb);
    }
    assert_int_equal(f.view, VIEW_PIPELINE);
    assert_int_equal(f.head, 2);
    assert_int_equal(fm->cfg.scale, 0);
    assert_int_equal(fm->cfg.d_k, tm->cfg.d_k);
    free(block);
    app_free(&t), app_free(&f);
    model_free(tm), model_free(fm);
}

static unsigned long computed(const Model *m) {
    unsigned long n = 0;
    for (int s = 0; s < STAGE_COUNT; s++) n += m->computed[s];
    return n;
}

/* Feeds a block and applies it: 0, or -1 with why. */
static int feed_apply(App *f, const char *block, char *why, size_t cap) {
    FollowReader *r = follow_reader_new();
    FollowBlock b;
    int got = feed(r, block, why, cap), rc = -1;
    if (got == FOLLOW_GOT_BLOCK && follow_reader_take(r, &b)) {
        rc = follow_apply(f, &b, why, cap);
        follow_block_free(&b);
    }
    follow_reader_free(r);
    return rc;
}

/* A teacher on a Q/K/V file: the matrices go with the state (qkv), the
 * follower on the seeded sentence takes them; a block that only moves the
 * cursor recomputes nothing there (the same sentence or matrices are not
 * applied again). */
static void test_round_trip_qkv(void **state) {
    (void)state;
    Model *tm = make_model("x"), *fm = make_model("the follower's own sentence");
    App t, f;
    app_init(&t, tm, TIER_NONE, 0, 1, NULL);
    app_init(&f, fm, TIER_NONE, 0, 1, NULL);
    const char *qkv = "qkv \"tokens: a b c\\nQ:\\n1 0\\n0 1\\n1 1\\nK:\\n1 0\\n0 1\\n0.5 2\\n"
                      "V:\\n1 2\\n3 4\\n5 6\\n\"";
    ScriptCmd c;
    char why[512];
    AvError err = {0};
    if (script_parse(qkv, strlen(qkv), &c, why, sizeof why)) fail_msg("%s", why);
    assert_int_equal(script_apply(&t, &c, &err), 0);
    script_cmd_free(&c);
    assert_int_equal(app_run(&t, "down", NULL), 0);
    app_update(&t);
    char *block = follow_block(&t, NULL);
    assert_non_null(strstr(block, "\nqkv \"tokens: a b c\\nQ:\\n"));
    if (feed_apply(&f, block, why, sizeof why)) fail_msg("%s", why);
    app_update(&f);
    char *ts = state_of(&t), *fs = state_of(&f);
    assert_string_equal(fs, ts);
    free(ts), free(fs), free(block);
    assert_int_equal(fm->n_q, 3);

    unsigned long before = computed(fm);
    assert_int_equal(app_run(&t, "right", NULL), 0);
    app_update(&t);
    block = follow_block(&t, NULL);
    if (feed_apply(&f, block, why, sizeof why)) fail_msg("%s", why);
    app_update(&f);
    assert_int_equal(f.cj, t.cj);
    assert_int_equal(computed(fm), before);
    free(block);

    /* the same for a sentence: a cursor move recomputes nothing */
    Model *sm = make_model("the cat sat on the mat"), *gm = make_model("a dog");
    App s2, g;
    app_init(&s2, sm, TIER_NONE, 0, 1, NULL);
    app_init(&g, gm, TIER_NONE, 0, 1, NULL);
    block = follow_block(&s2, NULL);
    assert_int_equal(feed_apply(&g, block, why, sizeof why), 0);
    app_update(&g);
    free(block);
    before = computed(gm);
    assert_int_equal(app_run(&s2, "down", NULL), 0);
    block = follow_block(&s2, NULL);
    assert_int_equal(feed_apply(&g, block, why, sizeof why), 0);
    app_update(&g);
    assert_int_equal(g.ci, 1);
    assert_int_equal(computed(gm), before);
    free(block);
    app_free(&s2), app_free(&g), app_free(&t), app_free(&f);
    model_free(sm), model_free(gm), model_free(tm), model_free(fm);
}

/* A state valid only as a whole: the teacher's one head with 3000 words
 * (4 heads with them would pass the attention budget; so would a shrinking
 * order of the single setters neither way round). The follower has 4 heads
 * and a short sentence; the block applies. Then a state too large as a whole
 * is refused with its lines and the follower's state stays. */
static void test_whole_state(void **state) {
    (void)state;
    size_t cap = 3000 * 6 + 1, n = 0;
    char *words = malloc(cap);
    assert_non_null(words);
    for (int i = 0; i < 3000; i++)
        n += (size_t)snprintf(words + n, cap - n, "%s%s", i ? " " : "", i % 2 ? "cat" : "sat");
    ModelConfig c;
    model_config_default(&c);
    c.mask = MASK_CAUSAL;
    c.heads = 1;
    c.d_k = c.d_v = c.d_model;
    Model *tm = tu_model(words, &c), *fm = make_model("the cat sat");
    App t, f;
    app_init(&t, tm, TIER_NONE, 0, 1, NULL);
    app_init(&f, fm, TIER_NONE, 0, 1, NULL);
    assert_int_equal(fm->cfg.heads, 4);
    char *block = follow_block(&t, NULL);
    char why[512];
    if (feed_apply(&f, block, why, sizeof why)) fail_msg("%s", why);
    free(block);
    assert_int_equal(fm->cfg.heads, 1);
    assert_int_equal(fm->n_k, 3000);
    app_update(&f);
    char *ts = state_of(&t), *fs = state_of(&f);
    assert_string_equal(fs, ts);
    free(ts), free(fs);

    /* and back: the teacher's 4 heads on a short sentence */
    Model *sm = make_model("a dog ran");
    App s2;
    app_init(&s2, sm, TIER_NONE, 0, 1, NULL);
    block = follow_block(&s2, NULL);
    if (feed_apply(&f, block, why, sizeof why)) fail_msg("%s", why);
    free(block);
    assert_int_equal(fm->cfg.heads, 4);
    assert_int_equal(fm->n_k, 3);

    /* 3000 words with 4 heads: too large as a whole, refused, nothing changes */
    const char *big_fmt = "attnviz-state 1\ntokenizer words\nsentence \"%s\"\ntarget\npad 0\n"
                          "config d_model=64 heads=4 d_k=16 d_v=16 seed=42 pos=none tie=off attn=self\nend\n";
    char *big = malloc(strlen(words) + 256);
    assert_non_null(big);
    sprintf(big, big_fmt, words);
    assert_int_equal(feed_apply(&f, big, why, sizeof why), -1);
    assert_non_null(strstr(why, "lines 2-6: too large: 3000 x 3000 tokens x 4 heads"));
    assert_int_equal(fm->n_k, 3);
    assert_int_equal(fm->cfg.heads, 4);
    free(big), free(words);
    app_free(&t), app_free(&f), app_free(&s2);
    model_free(tm), model_free(fm), model_free(sm);
}

static const char lesson_text[] = "title: Attention\n"
                                  "== Tokens\n"
                                  "The sentence is cut into tokens.\n"
                                  "\n"
                                  "Each gets an id.\n"
                                  "> view heatmap\n"
                                  "== Masks\n"
                                  "The future is hidden.\n"
                                  "> mask causal\n";

static char *render(App *a, int w, int h) {
    Canvas *cv = cv_new(w, h);
    app_draw(a, cv);
    char *s = cv_render(cv, 0, TIER_NONE);
    cv_free(cv);
    return s;
}

/* A lesson's caption goes with the state: the follower shows it, without
 * the lesson's keys, and publishes the same block again. */
static void test_caption(void **state) {
    (void)state;
    Model *tm = make_model("the cat sat on the mat"), *fm = make_model("the cat sat on the mat");
    App t, f;
    app_init(&t, tm, TIER_NONE, 0, 1, NULL);
    app_init(&f, fm, TIER_NONE, 0, 1, NULL);
    AvError err = {0};
    Lesson *l = lesson_parse(lesson_text, strlen(lesson_text), "test", &err);
    assert_non_null(l);
    assert_int_equal(app_lesson_start(&t, l, &err), 0);
    assert_int_equal(app_lesson_goto(&t, 1, &err), 0);
    char *block = follow_block(&t, NULL);
    assert_non_null(strstr(block, "\ncaption \"Attention 2/2: Masks\" \"The future is hidden.\"\n"));

    FollowReader *r = follow_reader_new();
    char why[512];
    assert_int_equal(feed(r, block, why, sizeof why), FOLLOW_GOT_BLOCK);
    FollowBlock b;
    assert_int_equal(follow_reader_take(r, &b), 1);
    assert_int_equal(follow_apply(&f, &b, why, sizeof why), 0);
    follow_block_free(&b);
    assert_string_equal(f.caption_title, "Attention 2/2: Masks");
    char title[256];
    assert_string_equal(lesson_caption_now(&f, title, sizeof title), "The future is hidden.");
    char *fb = follow_block(&f, NULL);
    assert_string_equal(fb, block);
    free(fb);
    char *screen = render(&f, 80, 24);
    assert_non_null(strstr(screen, "\n Attention 2/2: Masks\n The future is hidden."));
    assert_non_null(strstr(screen, "The future is hidden."));
    assert_null(strstr(screen, "Space next")); /* the follower has no lesson to step through */
    free(screen);

    /* Paragraphs keep their break; step 1's caption replaces it. */
    assert_int_equal(app_lesson_goto(&t, 0, &err), 0);
    free(block);
    block = follow_block(&t, NULL);
    assert_non_null(strstr(block, "\"The sentence is cut into tokens.\\nEach gets an id.\"\n"));
    assert_int_equal(feed(r, block, why, sizeof why), FOLLOW_GOT_BLOCK);
    assert_int_equal(follow_reader_take(r, &b), 1);
    assert_int_equal(follow_apply(&f, &b, why, sizeof why), 0);
    follow_block_free(&b);
    assert_string_equal(f.caption_text, "The sentence is cut into tokens.\nEach gets an id.");

    /* The teacher leaves the lesson: no caption. */
    assert_int_equal(app_run(&t, "lesson-leave", NULL), 0);
    free(block);
    block = follow_block(&t, NULL);
    assert_non_null(strstr(block, "\ncaption\nend\n"));
    assert_int_equal(feed(r, block, why, sizeof why), FOLLOW_GOT_BLOCK);
    assert_int_equal(follow_reader_take(r, &b), 1);
    assert_int_equal(follow_apply(&f, &b, why, sizeof why), 0);
    follow_block_free(&b);
    assert_null(f.caption_title);
    assert_null(lesson_caption_now(&f, title, sizeof title));
    follow_reader_free(r);
    free(block);
    app_free(&t), app_free(&f);
    model_free(tm), model_free(fm);
}

static void test_caption_command(void **state) {
    (void)state;
    ScriptCmd c;
    char why[256];
    const char *ok = "caption \"T 1/2: x\" \"one\\ntwo 한국어\"";
    assert_int_equal(script_parse(ok, strlen(ok), &c, why, sizeof why), 0);
    assert_int_equal(c.op, SC_CAPTION);
    assert_string_equal(c.text, "T 1/2: x");
    assert_string_equal(c.arg, "one\ntwo 한국어");
    script_cmd_free(&c);
    assert_int_equal(script_parse("caption", 7, &c, why, sizeof why), 0);
    assert_int_equal(c.op, SC_CAPTION);
    assert_null(c.text);
    static const char *const bad[] = {
        "caption \"T\"",                     /* no text */
        "caption \"a\\x1Bb\" \"t\"",         /* an escape in the title */
        "caption \"t\" \"a\\x1B[2Jb\"",      /* and in the text */
        "caption \"a\\nb\" \"t\"",           /* a line break in the title */
        "caption \"t\" \"\\xFF\"",           /* invalid UTF-8 */
        "caption \"t\" \"\\xE2\\x80\\xAE\"", /* a bidi override */
        "caption \"t\" \"x\" more",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        if (script_parse(bad[i], strlen(bad[i]), &c, why, sizeof why) == 0) fail_msg("took [%s]", bad[i]);
        if (!strstr(why, "caption")) fail_msg("[%s]: %s", bad[i], why);
    }
    /* a lesson's step has its own caption: the command is the stream's */
    const char *lesson = "title: t\n== a\ntext\n> caption \"x\" \"y\"\n";
    AvError err = {0};
    assert_null(lesson_parse(lesson, strlen(lesson), "l.txt", &err));
    assert_string_equal(err.msg, "l.txt:4: caption: only in a teacher's stream (a step's caption is its text)");
    /* a title over the limit */
    size_t n = SCRIPT_CAPTION_MAX_TITLE + 20;
    char *big = malloc(n + 32);
    int k = snprintf(big, n + 32, "caption \"");
    memset(big + k, 'a', SCRIPT_CAPTION_MAX_TITLE + 1);
    strcpy(big + k + SCRIPT_CAPTION_MAX_TITLE + 1, "\" \"t\"");
    assert_int_equal(script_parse(big, strlen(big), &c, why, sizeof why), -1);
    assert_non_null(strstr(why, "longer than"));
    free(big);
}

/* Feeds text; expects no block and a refusal containing `want`. */
static void refused(const char *text, size_t len, const char *want) {
    FollowReader *r = follow_reader_new();
    char why[512];
    int got = follow_reader_feed(r, text, len, why, sizeof why);
    if (!(got & FOLLOW_GOT_ERROR) || !strstr(why, want))
        fail_msg("[%.60s...]: got %d, why [%s], expected [%s]", text, got, why, want);
    FollowBlock b;
    assert_int_equal(follow_reader_take(r, &b), 0);
    /* and the reader still takes a good block after it */
    assert_int_equal(feed(r, "attnviz-state 1\nhead 2\nend\n", why, sizeof why), FOLLOW_GOT_BLOCK);
    assert_int_equal(follow_reader_take(r, &b), 1);
    assert_int_equal(b.n, 1);
    assert_int_equal(b.cmd[0].op, SC_HEAD);
    follow_block_free(&b);
    follow_reader_free(r);
}

static void refused_str(const char *text, const char *want) { refused(text, strlen(text), want); }

static void test_hostile(void **state) {
    (void)state;
    refused_str("attnviz-state 1\nhead 2\nrm -rf /\nend\n", "line 3: unknown command 'rm'");
    refused_str("attnviz-state 1\nkey quit\nend\n", "line 2: key runs an action");
    refused_str("attnviz-state 1\nkey mask\nend\n", "line 2: key runs an action");
    refused_str("attnviz-state 1\n   key   seed\nend\n", "key runs an action");
    refused_str("attnviz-state 1\nsentence \"a\x1b[2Jb\"\nend\n", "line 2: a control character (U+001B)");
    refused_str("attnviz-state 1\nsentence \"a\rb\"\nend\n", "U+000D");
    refused_str("attnviz-state 1\nhead\t2\nend\n", "U+0009");
    refused_str("attnviz-state 1\nsentence \"\xc2\x9b"
                "31m\"\nend\n",
                "U+009B"); /* the C1 CSI */
    refused_str("attnviz-state 1\nsentence \"caf\xe9\"\nend\n", "line 2: invalid UTF-8 at byte 14");
    refused_str("attnviz-state 1\nsentence \"\xed\xa0\x80\"\nend\n", "invalid UTF-8"); /* a surrogate */
    refused("attnviz-state 1\nsentence \"a\0b\"\nend\n", sizeof "attnviz-state 1\nsentence \"a\0b\"\nend\n" - 1,
            "U+0000");
    refused_str("attnviz-state 1\nhead 99999\nend\n", "line 2: head: expected a number");
    refused_str("attnviz-state 1\nconfig d_k=-1\nend\n", "line 2: d_k:");
    refused_str("attnviz-state 1\nconfig mask=causal; rm -rf /\nend\n", "line 2:");
    refused_str("attnviz-state 1\nview $(reboot)\nend\n", "line 2: view: expected");
    refused_str("attnviz-state 1\ncursor 1 2 3\nend\n", "unexpected text");
    refused_str("attnviz-state 1\nsentence \"never closed\nend\n", "no closing quote");
    {
        /* garbage before a block is refused; the block after it is taken */
        FollowReader *r = follow_reader_new();
        char why[512];
        assert_int_equal(feed(r, "hello\nworld\nattnviz-state 1\nhead 3\nend\n", why, sizeof why),
                         FOLLOW_GOT_BLOCK | FOLLOW_GOT_ERROR);
        assert_string_equal(why, "line 1: expected \"attnviz-state 1\"");
        follow_reader_free(r);
    }
    refused_str("hello\n", "line 1: expected \"attnviz-state 1\"");
    refused_str("attnviz-state 2\nhead 3\nend\n", "stream version '2'");
    refused_str("attnviz-state 1\r\nhead 3\nend\n", "stream version '1\\r'");
    /* a block cut short by the next header: the first is refused, the second taken */
    {
        FollowReader *r = follow_reader_new();
        char why[512];
        assert_int_equal(feed(r, "attnviz-state 1\nhead 3\n", why, sizeof why), 0);
        assert_int_equal(feed(r, "attnviz-state 1\nhead 4\nend\n", why, sizeof why),
                         FOLLOW_GOT_BLOCK | FOLLOW_GOT_ERROR);
        assert_non_null(strstr(why, "a new block began before the last one's end"));
        FollowBlock b;
        assert_int_equal(follow_reader_take(r, &b), 1);
        assert_int_equal(b.cmd[0].a, 4);
        follow_block_free(&b);
        /* truncated: no end, no block */
        assert_int_equal(feed(r, "attnviz-state 1\nhead 2\nen", why, sizeof why), 0);
        assert_int_equal(follow_reader_take(r, &b), 0);
        follow_reader_free(r);
    }
    /* more commands than a block may have */
    {
        size_t cap = 16 + 8 * (FOLLOW_MAX_CMDS + 2) + 8;
        char *s = malloc(cap);
        size_t at = (size_t)snprintf(s, cap, "attnviz-state 1\n");
        for (int i = 0; i <= FOLLOW_MAX_CMDS; i++) at += (size_t)snprintf(s + at, cap - at, "head 1\n");
        snprintf(s + at, cap - at, "end\n");
        refused_str(s, "more than 64 commands");
        free(s);
    }
}

/* A 10 MB line, fed in pieces as a socket would give it: refused, and the
 * reader keeps at most FOLLOW_MAX_LINE of it. */
static void test_oversized(void **state) {
    (void)state;
    size_t big = (size_t)10 << 20;
    char *s = malloc(big + 64);
    size_t at = (size_t)snprintf(s, 64, "attnviz-state 1\nsentence \"");
    memset(s + at, 'a', big);
    at += big;
    at += (size_t)snprintf(s + at, 64, "\"\nend\n");
    FollowReader *r = follow_reader_new();
    char why[512];
    int got = 0;
    for (size_t i = 0; i < at; i += 65536)
        got |= follow_reader_feed(r, s + i, at - i < 65536 ? at - i : 65536, why, sizeof why);
    assert_int_equal(got, FOLLOW_GOT_ERROR);
    FollowBlock b;
    assert_int_equal(follow_reader_take(r, &b), 0);
    follow_reader_free(r);
    refused(s, at, "line 2: longer than");
    /* Lines within the limit, but a block past FOLLOW_MAX_BLOCK. */
    size_t line = (size_t)3 << 20;
    char *t = malloc(4 * line);
    at = (size_t)snprintf(t, 64, "attnviz-state 1\n");
    for (int k = 0; k < 3; k++) {
        at += (size_t)snprintf(t + at, 64, "# ");
        memset(t + at, 'c', line);
        at += line;
        t[at++] = '\n';
    }
    at += (size_t)snprintf(t + at, 64, "end\n");
    refused(t, at, "line 4: the block is longer than");
    free(t);
    free(s);
}

/* A block whose fifth command fails (head 9 of 4 heads) changes nothing. */
static void test_apply_all_or_nothing(void **state) {
    (void)state;
    Model *m = make_model("the cat sat on the mat");
    App f;
    app_init(&f, m, TIER_NONE, 0, 1, NULL);
    app_update(&f);
    char *before = state_of(&f);
    const char *text = "attnviz-state 1\nsentence \"a dog\"\nconfig mask=none scale=off\nview heads\n"
                       "# a comment\nhead 9\ncursor 0 0\nend\n";
    FollowReader *r = follow_reader_new();
    char why[512];
    assert_int_equal(feed(r, text, why, sizeof why), FOLLOW_GOT_BLOCK);
    FollowBlock b;
    assert_int_equal(follow_reader_take(r, &b), 1);
    assert_int_equal(b.n, 5);
    assert_int_equal(follow_apply(&f, &b, why, sizeof why), -1);
    assert_string_equal(why, "line 6: head 9: the model has 4");
    app_update(&f);
    char *after = state_of(&f);
    assert_string_equal(after, before);
    free(before), free(after);
    follow_block_free(&b);
    follow_reader_free(r);
    app_free(&f);
    model_free(m);
}

// ----------------------------------------------------------------------------
// sockets

static char dir[64];

static void path_in(char *buf, size_t cap, const char *name) { snprintf(buf, cap, "%s/%s", dir, name); }

static CliOptions options(const char *publish, const char *follow, int mode) {
    CliOptions o;
    memset(&o, 0, sizeof o);
    o.publish = publish, o.follow = follow, o.publish_mode = mode;
    return o;
}

static void test_publish_path(void **state) {
    (void)state;
    char p[128];
    struct stat st;
    AvError err = {0};
    path_in(p, sizeof p, "class");
    CliOptions o = options(p, NULL, -1);
    Follow *f = follow_open(&o, &err);
    assert_non_null(f);
    assert_int_equal(stat(p, &st), 0);
    assert_true(S_ISSOCK(st.st_mode));
    assert_int_equal(st.st_mode & 0777, 0600);
    /* a second teacher on the same path: refused, the first stays */
    Follow *g = follow_open(&o, &err);
    assert_null(g);
    assert_non_null(strstr(err.msg, "listens there"));
    assert_int_equal(av_error_exit_status(&err), 2);
    follow_free(f);
    assert_int_equal(lstat(p, &st), -1); /* removed */

    o.publish_mode = 0660;
    f = follow_open(&o, &err);
    assert_non_null(f);
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0660);
    follow_free(f);

    /* a dead socket (its teacher killed) is replaced */
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", p);
    assert_int_equal(bind(s, (struct sockaddr *)&sa, sizeof sa), 0);
    close(s);
    assert_int_equal(lstat(p, &st), 0);
    o.publish_mode = 0666;
    f = follow_open(&o, &err);
    if (!f) fail_msg("%s", err.msg);
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0666);
    follow_free(f);

    /* a regular file, a directory and a symbolic link are not touched */
    FILE *file = fopen(p, "w");
    fputs("keep me\n", file);
    fclose(file);
    f = follow_open(&o, &err);
    assert_null(f);
    assert_non_null(strstr(err.msg, "exists and is not a socket"));
    assert_int_equal(av_error_exit_status(&err), 2);
    assert_int_equal(stat(p, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    char link[128];
    path_in(link, sizeof link, "link");
    assert_int_equal(symlink(p, link), 0);
    CliOptions ol = options(link, NULL, -1);
    assert_null(follow_open(&ol, &err));
    assert_non_null(strstr(err.msg, "not a socket"));
    unlink(link), unlink(p);

    /* a path too long for sun_path */
    char longp[200];
    memset(longp, 'x', sizeof longp - 1);
    longp[sizeof longp - 1] = '\0';
    CliOptions olong = options(longp, NULL, -1);
    assert_null(follow_open(&olong, &err));
    assert_non_null(strstr(err.msg, "too long for a Unix socket"));
}

/* One step of a screen loop: its descriptors, a wait of ms, what they said. */
static int loop_step(Follow *f, App *a, int ms) {
    struct pollfd fds[FOLLOW_MAX_FDS];
    if (follow_idle(f, a)) { /* nothing to do: a message */
    }
    int n = follow_poll_fds(f, fds, FOLLOW_MAX_FDS, 0);
    poll(fds, (nfds_t)n, ms);
    return follow_handle(f, fds, n, a);
}

static void test_publish_follow(void **state) {
    (void)state;
    char p[128];
    AvError err = {0};
    path_in(p, sizeof p, "live");
    Model *tm = make_model("x"), *fm = make_model("the follower's own sentence");
    App t, f;
    teacher_init(&t, tm);
    app_init(&f, fm, TIER_NONE, 0, 1, NULL);
    CliOptions op = options(p, NULL, -1), of = options(NULL, p, -1);
    Follow *pub = follow_open(&op, &err);
    assert_non_null(pub);
    t.follow = pub;
    Follow *sub = follow_open(&of, &err);
    assert_non_null(sub);
    f.follow = sub;
    assert_true(follow_is_follower(sub));
    assert_false(follow_is_follower(pub));
    for (int k = 0; k < 20; k++) loop_step(pub, &t, 0), loop_step(sub, &f, 5);
    assert_non_null(strstr(f.msg, "following the teacher (any key: explore alone; F: follow again)"));
    char *ts = state_of(&t), *fs = state_of(&f);
    assert_string_equal(fs, ts);
    free(ts), free(fs);

    /* A change at the teacher reaches the follower. */
    assert_int_equal(app_run(&t, "scale", NULL), 0);
    for (int k = 0; k < 10; k++) loop_step(pub, &t, 0), loop_step(sub, &f, 5);
    assert_int_equal(fm->cfg.scale, 1);

    /* A key detaches: the teacher's next change is not applied; F applies it. */
    AppKey j = {0, 'j'};
    follow_input(sub, &f, &j);
    app_key(&f, j);
    follow_input_done(sub, &f);
    assert_non_null(strstr(f.msg, "detached: F follows again"));
    assert_int_equal(app_run(&t, "scale", NULL), 0);
    for (int k = 0; k < 10; k++) loop_step(pub, &t, 0), loop_step(sub, &f, 5);
    assert_int_equal(fm->cfg.scale, 1);
    AppKey F = {0, 'F'};
    follow_input(sub, &f, &F);
    app_key(&f, F);
    follow_input_done(sub, &f);
    assert_int_equal(fm->cfg.scale, 0);
    assert_non_null(strstr(f.msg, "following the teacher again"));

    /* A raw client that never reads is dropped once its buffer is full,
     * and the publisher never reads what it writes (EPIPE). */
    int raw = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", p);
    assert_int_equal(connect(raw, (struct sockaddr *)&sa, sizeof sa), 0);
    loop_step(pub, &t, 0);
    errno = 0;
    assert_int_equal(send(raw, "key quit\n", 9, MSG_NOSIGNAL), -1);
    assert_int_equal(errno, EPIPE);
    char *word = malloc(200001);
    for (int k = 0; k < 20; k++) {
        memset(word, 'a' + k, 200000);
        word[200000] = '\0';
        AvError e2 = {0};
        assert_int_equal(model_set_text(tm, word, 200000, &e2), 0);
        app_update(&t); /* as the frame does: the cursor kept inside */
        loop_step(pub, &t, 0);
        loop_step(sub, &f, 20); /* the real follower keeps up */
    }
    free(word);
    /* The raw client: some bytes, then the end (dropped). */
    size_t total = 0;
    char buf[65536];
    for (;;) {
        struct pollfd pf = {.fd = raw, .events = POLLIN};
        assert_int_equal(poll(&pf, 1, 2000), 1);
        ssize_t r = read(raw, buf, sizeof buf);
        if (r <= 0) break;
        total += (size_t)r;
    }
    assert_true(total > 0 && total < (size_t)20 * 200000);
    close(raw);
    for (int k = 0; k < 20; k++) loop_step(pub, &t, 0), loop_step(sub, &f, 5);
    ts = state_of(&t), fs = state_of(&f);
    assert_string_equal(fs, ts);
    free(ts), free(fs);

    /* The teacher ends: the follower says so and tries again. */
    follow_free(pub);
    t.follow = NULL;
    for (int k = 0; k < 5; k++) loop_step(sub, &f, 5);
    assert_non_null(strstr(f.msg, "the teacher's attnviz ended"));
    int ms = follow_wake_ms(sub, 0);
    assert_true(ms >= 0 && ms <= 1001);
    assert_int_equal(follow_wake_ms(sub, 1), -1); /* nothing while a frame job has the app */

    follow_free(sub);
    f.follow = NULL;
    app_free(&t), app_free(&f);
    model_free(tm), model_free(fm);
}

int main(void) {
    setlocale(LC_ALL, "C.UTF-8");
    snprintf(dir, sizeof dir, "/tmp/attnviz-follow-XXXXXX");
    if (!mkdtemp(dir)) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_block_framing),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_round_trip_qkv),
        cmocka_unit_test(test_whole_state),
        cmocka_unit_test(test_caption),
        cmocka_unit_test(test_caption_command),
        cmocka_unit_test(test_hostile),
        cmocka_unit_test(test_oversized),
        cmocka_unit_test(test_apply_all_or_nothing),
        cmocka_unit_test(test_publish_path),
        cmocka_unit_test(test_publish_follow),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rmdir(dir);
    return rc;
}
