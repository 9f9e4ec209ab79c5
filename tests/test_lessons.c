/* test_lessons.c - the built-in lessons (issue 16) and the script commands
 * they added (qkv, pad):
 *   - every lesson parses, in English and in Korean, and the two have the
 *     same steps and commands (the Korean ones show the texts' Korean
 *     sentence where the English ones show theirs);
 *   - every step applies on a fresh app, and from any other state the same
 *     screen state comes out (step 1 sets everything), going back included;
 *   - the numbers the captions state are what the model computes;
 *   - at 80x24 a caption takes at most 6 rows, at 200x50 at most a third of
 *     the screen, and nothing on the screen is cut at the right edge;
 *   - a broken lesson file says "NAME:LINE: what";
 *   - qkv "TEXT" and pad N: their errors, what they do, and the state
 *     (script_state) that gives them back.
 * Lesson 7 needs ../shared/models/stories260K.bin: without it, "skipped". */
#include "testutil.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "app.h"
#include "canvas.h"
#include "lesson.h"
#include "models.h"
#include "script.h"
#include "source_trained.h"

static const char *const langs[] = {"en", "ko"};

static Lesson *builtin(int k, const char *lang) {
    const char *text = lesson_builtin(k, lang);
    assert_non_null(text);
    AvError err = {0};
    Lesson *l = lesson_parse(text, strlen(text), "builtin", &err);
    if (!l) fail_msg("lesson %d (%s): %s", k, lang, err.msg);
    return l;
}

/* A fresh model for lesson k: the seeded sentence, or stories260K (0 when
 * the file is absent: the "skipped" line is printed). */
static Model *model_for(int k, const char *sentence) {
    if (k != 7) return tu_model(sentence, NULL);
    char path[512];
    if (!models_path(path, sizeof path, "stories260K.bin")) return NULL;
    Model *m = tu_model("a", NULL);
    AvError err = {0};
    const char *text = "Once upon a time";
    if (model_set_trained(m, path, NULL, text, strlen(text), &err)) fail_msg("%s", err.msg);
    model_update(m, &err);
    return m;
}

/* Shows step s (0-based) of the app's lesson and brings the model up to date. */
static void show(App *a, int s) {
    AvError err = {0};
    if (app_lesson_goto(a, s, &err)) fail_msg("%s step %d: %s", a->lesson->name, s + 1, err.msg);
    app_update(a);
}

// ----------------------------------------------------------------------------
// the texts

static void test_every_lesson_parses(void **state) {
    (void)state;
    assert_int_equal(lesson_builtin_count(), 7);
    for (int k = 1; k <= 7; k++)
        for (int g = 0; g < 2; g++) {
            Lesson *l = builtin(k, langs[g]);
            assert_string_equal(l->lang, langs[g]);
            assert_true(l->title && l->title[0]);
            assert_true(l->n_step >= 3 && l->n_step <= 12);
            assert_int_equal(l->needs_model, k == 7);
            for (int s = 0; s < l->n_step; s++) assert_true(l->step[s].caption && l->step[s].caption[0]);
            /* step 1 puts the screen somewhere: a view and a stage */
            int view = 0, stage = 0;
            for (int c = 0; c < l->step[0].n_cmd; c++)
                view |= l->step[0].cmd[c].op == SC_VIEW, stage |= l->step[0].cmd[c].op == SC_STAGE;
            assert_true(view && stage);
            lesson_free(l);
        }
    /* the list names them in either language */
    char *en = lesson_list("en"), *ko = lesson_list("ko");
    assert_non_null(strstr(en, "1  From a sentence to attention weights (12 steps)"));
    assert_non_null(strstr(en, "7  What a trained model learned  [--model stories260K.bin]"));
    assert_non_null(strstr(ko, "1  문장에서 어텐션 가중치까지 (12 steps)"));
    assert_non_null(strstr(ko, "3  왜 √d_k로 나누는가"));
    free(en), free(ko);
}

/* Two commands alike: the same op and arguments (a sentence's text aside). */
static int same_command(const ScriptCmd *x, const ScriptCmd *y) {
    if (x->op != y->op || x->set != y->set || x->a != y->a || x->b != y->b || x->kind != y->kind) return 0;
    if (x->op != SC_SENTENCE && (x->len != y->len || (x->len && memcmp(x->text, y->text, x->len) != 0))) return 0;
    if ((x->arg == NULL) != (y->arg == NULL) || (x->arg && strcmp(x->arg, y->arg) != 0)) return 0;
    const ModelConfig *f = &x->cfg, *h = &y->cfg;
    unsigned s = x->set;
    return !((s & SET_D_MODEL) && f->d_model != h->d_model) && !((s & SET_HEADS) && f->heads != h->heads) &&
           !((s & SET_D_K) && f->d_k != h->d_k) && !((s & SET_D_V) && f->d_v != h->d_v) &&
           !((s & SET_SEED) && f->seed != h->seed) &&
           !((s & SET_MASK) && (f->mask != h->mask || f->window != h->window || f->prefix != h->prefix)) &&
           !((s & SET_SCALE) && f->scale != h->scale) && !((s & SET_POS) && f->pos != h->pos) &&
           !((s & SET_SCORE) && f->score != h->score) && !((s & SET_TIE) && f->tie_qk != h->tie_qk) &&
           !((s & SET_ATTN) && f->attn != h->attn);
}

static void test_korean_has_the_english_steps(void **state) {
    (void)state;
    for (int k = 1; k <= 7; k++) {
        Lesson *en = builtin(k, "en"), *ko = builtin(k, "ko");
        assert_int_equal(en->n_step, ko->n_step);
        for (int s = 0; s < en->n_step; s++) {
            if (en->step[s].n_cmd != ko->step[s].n_cmd)
                fail_msg("lesson %d step %d: %d commands in English, %d in Korean", k, s + 1, en->step[s].n_cmd,
                         ko->step[s].n_cmd);
            for (int c = 0; c < en->step[s].n_cmd; c++)
                if (!same_command(&en->step[s].cmd[c], &ko->step[s].cmd[c]))
                    fail_msg("lesson %d step %d: command %d differs", k, s + 1, c + 1);
        }
        /* the English sentence in English, the texts' in Korean */
        for (int c = 0; c < en->step[0].n_cmd; c++)
            if (en->step[0].cmd[c].op == SC_SENTENCE && k != 7) {
                assert_string_equal(en->step[0].cmd[c].text, "I saw a movie yesterday and the movie was fun");
                assert_string_equal(ko->step[0].cmd[c].text,
                                    "나는 어제 친구와 영화를 봤는데, 그 영화는 정말 재미있었다");
            }
        lesson_free(en), lesson_free(ko);
    }
}

// ----------------------------------------------------------------------------
// every step, from any state

/* Draws at w x h: nothing cut at the right edge, and the caption within its
 * rows (uncapped: what the whole text needs). */
static void check_screen(App *a, int w, int h, int max_caption, const char *what) {
    int rows = lesson_caption_rows(a, w, 1 << 20);
    if (rows > max_caption)
        fail_msg("%s: the caption takes %d rows at %dx%d (at most %d)", what, rows, w, h, max_caption);
    assert_true(lesson_caption_rows(a, w, h) <= h / 3);
    Canvas *cv = cv_new(w, h);
    if (a->doc) a->doc->clipped = 0;
    app_draw(a, cv);
    int doc = a->doc ? a->doc->clipped : 0;
    if (cv->clipped || doc) {
        char *text = cv_render(cv, 0, TIER_NONE);
        printf("%s\n", text);
        free(text);
        fail_msg("%s at %dx%d: %d lines cut on the screen (row %d), %d in the page", what, w, h, cv->clipped,
                 cv->clip_y, doc);
    }
    cv_free(cv);
}

/* The app's state at each step of lesson k, from a fresh app; each step
 * drawn at 80x24 and 200x50. The caller frees states[0..n) and the array. */
static char **walk(int k, const char *lang, int *n_out) {
    Lesson *l = builtin(k, lang);
    Model *m = model_for(k, "a sentence the lesson replaces");
    if (!m) {
        lesson_free(l);
        return NULL;
    }
    App a;
    app_init(&a, m, TIER_256, 0, 1, NULL);
    AvError err = {0};
    int n = l->n_step;
    if (app_lesson_start(&a, l, &err)) fail_msg("lesson %d (%s) step 1: %s", k, lang, err.msg);
    char **states = calloc((size_t)n, sizeof *states);
    assert_non_null(states);
    for (int s = 0; s < n; s++) {
        char what[64];
        snprintf(what, sizeof what, "lesson %d (%s) step %d", k, lang, s + 1);
        show(&a, s);
        check_screen(&a, 80, 24, 6, what);
        check_screen(&a, 200, 50, 50 / 3, what);
        states[s] = script_state(&a, NULL);
        assert_non_null(states[s]);
    }
    /* back, one step at a time: the same states (b is exact) */
    for (int s = n - 2; s >= 0; s--) {
        show(&a, s);
        char *again = script_state(&a, NULL);
        if (strcmp(again, states[s]) != 0)
            fail_msg("lesson %d (%s): step %d after going back differs:\n%s\nwas\n%s", k, lang, s + 1, again,
                     states[s]);
        free(again);
    }
    app_free(&a);
    model_free(m);
    *n_out = n;
    return states;
}

static void free_states(char **st, int n) {
    for (int s = 0; s < n; s++) free(st[s]);
    free(st);
}

static void test_every_step_applies(void **state) {
    (void)state;
    for (int k = 1; k <= 7; k++)
        for (int g = 0; g < 2; g++) {
            int n = 0;
            char **st = walk(k, langs[g], &n);
            if (st) free_states(st, n);
        }
}

/* Another state to start from: every setting away from the lessons'. */
static void elsewhere(App *a) {
    static const char *const cmds[] = {"tokenizer chars",
                                       "sentence \"the cat sat on the mat\"",
                                       "target \"le chat\"",
                                       "pad 2",
                                       "config d_model=12 heads=3 d_k=5 d_v=7 seed=9 pos=sinusoidal tie=on",
                                       "config score=cosine mask=window:2 scale=off",
                                       "view census",
                                       "stage scores",
                                       "head 2",
                                       "cursor 3 4",
                                       "highlight col 2",
                                       "contrast on"};
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        ScriptCmd c;
        char why[256];
        AvError err = {0};
        if (script_parse(cmds[i], strlen(cmds[i]), &c, why, sizeof why)) fail_msg("%s: %s", cmds[i], why);
        if (script_apply(a, &c, &err)) fail_msg("%s: %s", cmds[i], err.msg);
        script_cmd_free(&c);
    }
    app_update(a);
}

static void test_any_start_state(void **state) {
    (void)state;
    for (int k = 1; k <= 6; k++)
        for (int g = 0; g < 2; g++) {
            int n = 0;
            char **fresh = walk(k, langs[g], &n);
            Model *m = model_for(k, "x");
            App a;
            app_init(&a, m, TIER_256, 0, 1, NULL);
            elsewhere(&a);
            AvError err = {0};
            if (app_lesson_start(&a, builtin(k, langs[g]), &err)) fail_msg("lesson %d: %s", k, err.msg);
            for (int s = 0; s < n; s++) {
                show(&a, s);
                char *st = script_state(&a, NULL);
                if (strcmp(st, fresh[s]) != 0)
                    fail_msg("lesson %d (%s) step %d from another state:\n%s\nfrom a fresh app:\n%s", k, langs[g],
                             s + 1, st, fresh[s]);
                free(st);
            }
            app_free(&a);
            model_free(m);
            free_states(fresh, n);
        }
}

// ----------------------------------------------------------------------------
// the numbers the captions state

typedef enum { CK_ENTROPY, CK_SCORE, CK_WEIGHT, CK_OUTPUT, CK_ASYM, CK_SCALED_MAX } Check;

typedef struct {
    int lesson, step; /* 1-based, as the captions count */
    const char *lang;
    Check what;
    int i, j;
    double value, eps;
    const char *shown; /* as the caption writes it */
} Number;

static const Number numbers[] = {
    /* 1: the first score halved (step 5), the cell page's arithmetic (step 8) */
    {1, 5, "en", CK_SCORE, 0, 0, -0.31, 5e-3, "-0.31"},
    {1, 5, "ko", CK_SCORE, 0, 0, 2.00, 5e-3, "2.00"},
    {1, 8, "en", CK_SCORE, 3, 1, 0.4451, 5e-5, "0.4451"},
    {1, 8, "en", CK_WEIGHT, 3, 1, 0.2463, 5e-5, "0.2463"},
    {1, 8, "ko", CK_SCORE, 3, 1, 0.1184, 5e-5, "0.1184"},
    {1, 8, "ko", CK_WEIGHT, 3, 1, 0.2551, 5e-5, "0.2551"},
    /* 2: the worked example, recomputed */
    {2, 2, "en", CK_SCORE, 0, 0, 0.20, 5e-3, "0.20"},
    {2, 2, "en", CK_SCORE, 1, 2, 0.88, 5e-3, "0.88"},
    {2, 2, "en", CK_SCORE, 2, 0, 0.49, 5e-3, "0.49"},
    {2, 2, "en", CK_SCORE, 2, 1, 1.27, 5e-3, "1.27"},
    {2, 2, "en", CK_SCORE, 2, 2, 1.51, 5e-3, "1.51"},
    {2, 3, "en", CK_SCALED_MAX, 0, 0, 0.87, 5e-3, "0.87"},
    {2, 4, "en", CK_WEIGHT, 0, 2, 0.36, 5e-3, "0.36"},
    {2, 4, "en", CK_WEIGHT, 2, 0, 0.23, 5e-3, "0.23 0.36 0.41"},
    {2, 4, "en", CK_WEIGHT, 2, 2, 0.41, 5e-3, "0.41"},
    {2, 4, "en", CK_ENTROPY, 0, 0, 1.56, 5e-3, "1.56"},
    {2, 5, "en", CK_WEIGHT, 0, 0, 0.2953, 5e-5, "0.2953"},
    {2, 5, "ko", CK_WEIGHT, 0, 0, 0.2953, 5e-5, "0.2953"},
    {2, 6, "en", CK_OUTPUT, 0, 0, 0.62, 5e-3, "0.62"},
    {2, 6, "en", CK_OUTPUT, 0, 2, 0.49, 5e-3, "0.49"},
    {2, 6, "en", CK_OUTPUT, 2, 0, 0.66, 5e-3, "0.66"},
    {2, 7, "en", CK_WEIGHT, 1, 0, 0.46, 5e-3, "0.46"},
    {2, 7, "en", CK_WEIGHT, 1, 1, 0.54, 5e-3, "0.54"},
    {2, 7, "ko", CK_WEIGHT, 1, 1, 0.54, 5e-3, "0.54"},
    /* 3: H̄ falls without scaling, and stays with it; the scores' size */
    {3, 1, "en", CK_ENTROPY, 0, 0, 2.20, 5e-3, "2.20"},
    {3, 2, "en", CK_ENTROPY, 0, 0, 1.26, 5e-3, "1.26"},
    {3, 3, "en", CK_ENTROPY, 0, 0, 0.81, 5e-3, "0.81"},
    {3, 4, "en", CK_ENTROPY, 0, 0, 0.09, 5e-3, "0.09"},
    {3, 5, "en", CK_SCALED_MAX, 0, 0, 43.4, 0.05, "43.4"},
    {3, 6, "en", CK_SCALED_MAX, 0, 0, 2.71, 5e-3, "2.71"},
    {3, 7, "en", CK_ENTROPY, 0, 0, 2.89, 5e-3, "2.89"},
    {3, 8, "en", CK_ENTROPY, 0, 0, 2.92, 5e-3, "2.92"},
    {3, 1, "ko", CK_ENTROPY, 0, 0, 2.25, 5e-3, "2.25"},
    {3, 2, "ko", CK_ENTROPY, 0, 0, 1.29, 5e-3, "1.29"},
    {3, 3, "ko", CK_ENTROPY, 0, 0, 0.39, 5e-3, "0.39"},
    {3, 4, "ko", CK_ENTROPY, 0, 0, 0.09, 5e-3, "0.09"},
    {3, 5, "ko", CK_SCALED_MAX, 0, 0, 49.7, 0.05, "49.7"},
    {3, 6, "ko", CK_SCALED_MAX, 0, 0, 3.1, 0.05, "3.1"},
    {3, 7, "ko", CK_ENTROPY, 0, 0, 2.74, 5e-3, "2.74"},
    {3, 8, "ko", CK_ENTROPY, 0, 0, 2.75, 5e-3, "2.75"},
    /* 5: asymmetric scores, then tied ones */
    {5, 2, "en", CK_SCORE, 1, 3, 0.73, 5e-3, "0.73"},
    {5, 2, "en", CK_SCORE, 3, 1, -0.66, 5e-3, "-0.66"},
    {5, 2, "en", CK_ASYM, 0, 0, 11.12, 5e-3, "11.12"},
    {5, 4, "en", CK_SCORE, 1, 3, -8.14, 5e-3, "-8.1"},
    {5, 4, "en", CK_SCORE, 3, 1, -8.14, 5e-3, "-8.1"},
    {5, 5, "en", CK_WEIGHT, 2, 2, 0.93, 5e-3, "0.93"},
    {5, 2, "ko", CK_SCORE, 1, 3, 1.73, 5e-3, "1.73"},
    {5, 2, "ko", CK_SCORE, 3, 1, 8.09, 5e-3, "8.09"},
    {5, 2, "ko", CK_ASYM, 0, 0, 14.06, 5e-3, "14.06"},
    {5, 4, "ko", CK_SCORE, 1, 3, -0.71, 5e-3, "-0.71"},
    {5, 4, "ko", CK_SCORE, 3, 1, -0.71, 5e-3, "-0.71"},
    {5, 5, "ko", CK_WEIGHT, 1, 1, 0.94, 5e-3, "0.94"},
    /* 7: the sink, the previous-token head, the induction head */
    {7, 3, "en", CK_WEIGHT, 1, 0, 0.99, 5e-3, "0.99"},
    {7, 3, "en", CK_WEIGHT, 6, 0, 1.00, 5e-3, "1.00"},
    {7, 4, "en", CK_WEIGHT, 4, 3, 0.93, 5e-3, "0.93"},
    {7, 4, "en", CK_WEIGHT, 3, 2, 1.00, 5e-3, "1.00"},
    {7, 5, "en", CK_WEIGHT, 7, 2, 0.98, 5e-3, "0.98"},
    {7, 5, "ko", CK_WEIGHT, 7, 2, 0.98, 5e-3, "0.98"},
};

static double value_of(const App *a, const Number *c) {
    const Model *m = a->m;
    const HeadData *hd = &m->head[a->head];
    double mean, max;
    switch (c->what) {
    case CK_ENTROPY: model_mean_entropy(m, a->head, &mean, &max); return mean;
    case CK_SCORE: return hd->scores[(size_t)c->i * m->n_k + c->j];
    case CK_WEIGHT: return hd->weights[(size_t)c->i * m->n_k + c->j];
    case CK_OUTPUT: return hd->out[(size_t)c->i * m->cfg.d_v + c->j];
    case CK_ASYM: return model_asymmetry(m, a->head);
    case CK_SCALED_MAX: {
        double top = 0;
        for (size_t c = 0; c < (size_t)m->n_q * m->n_k; c++) top = fmax(top, fabs(hd->scaled[c]));
        return top;
    }
    }
    return NAN;
}

static void test_caption_numbers(void **state) {
    (void)state;
    for (size_t n = 0; n < sizeof numbers / sizeof *numbers; n++) {
        const Number *c = &numbers[n];
        Model *m = model_for(c->lesson, "x");
        if (!m) continue;
        App a;
        app_init(&a, m, TIER_NONE, 0, 1, NULL);
        AvError err = {0};
        if (app_lesson_start(&a, builtin(c->lesson, c->lang), &err)) fail_msg("%s", err.msg);
        show(&a, c->step - 1);
        const char *caption = a.lesson->step[c->step - 1].caption;
        if (!strstr(caption, c->shown))
            fail_msg("lesson %d (%s) step %d: the caption does not say %s", c->lesson, c->lang, c->step, c->shown);
        double v = value_of(&a, c);
        if (!(fabs(v - c->value) <= c->eps))
            fail_msg("lesson %d (%s) step %d: check %zu is %.4f, the caption says %.4f", c->lesson, c->lang, c->step, n,
                     v, c->value);
        app_free(&a);
        model_free(m);
    }
}

/* A vocabulary piece: the word after a space (" was", or "▁was"). */
static int is_piece(const char *p, size_t len, const char *word) {
    size_t n = strlen(word);
    return len >= n + 1 && memcmp(p + len - n, word, n) == 0 &&
           ((len == n + 1 && p[0] == ' ') || (len == n + 3 && memcmp(p, "▁", 3) == 0));
}

/* Lesson 7's census: the induction head is the best, the sink and the
 * previous-token head lead their columns as the captions say. */
static void test_lesson7_facts(void **state) {
    (void)state;
    Model *m = model_for(7, "x");
    if (!m) return;
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    AvError err = {0};
    assert_int_equal(app_lesson_start(&a, builtin(7, "en"), &err), 0);
    show(&a, 0);
    assert_int_equal(m->n_q, 8);
    assert_string_equal(model_key_label(m, 4), "▁c");
    assert_string_equal(model_key_label(m, 5), "at");
    show(&a, 5);
    int ids[3];
    double probs[3];
    const char *pieces[3];
    size_t lens[3];
    assert_true(m->src->next_tokens(m, 7, 3, ids, probs, pieces, lens) >= 1);
    assert_true(is_piece(pieces[0], lens[0], "was"));
    assert_near(probs[0], 0.60, 5e-3);
    show(&a, 6);
    assert_true(m->src->next_tokens(m, 8, 3, ids, probs, pieces, lens) >= 1);
    assert_true(is_piece(pieces[0], lens[0], "very"));
    assert_near(probs[0], 0.24, 5e-3);
    app_free(&a);
    model_free(m);
}

// ----------------------------------------------------------------------------
// broken lessons

static void broken(const char *text, const char *want) {
    AvError err = {0};
    Lesson *l = lesson_parse(text, strlen(text), "t.lesson", &err);
    if (l) fail_msg("parsed, expected \"%s\":\n%s", want, text);
    if (!strstr(err.msg, want)) fail_msg("got \"%s\", expected \"%s\"", err.msg, want);
    assert_null(strchr(err.msg, '\n'));
}

static void test_broken_lessons(void **state) {
    (void)state;
    broken("title: t\n== one\ntext\n> frobnicate 3\n", "t.lesson:4: unknown command 'frobnicate'");
    broken("title: t\n== one\n> head zero\n", "t.lesson:3: head: expected a number 1..64");
    broken("title: t\n== one\n> config d_k=0\n", "t.lesson:3: d_k: '0' is not a number in range");
    broken("title: t\n== one\n> view sideways\n", "t.lesson:3: view: expected heatmap, heads, pipeline");
    broken("title: t\n== one\n> sentence \"open\n", "t.lesson:3: the text has no closing quote");
    broken("title: t\n==   \ntext\n", "t.lesson:2: a step without a title (== TITLE)");
    broken("title: t\n# only a comment\n", "t.lesson:3: no step (a step starts with a line \"== TITLE\")");
    broken("", "t.lesson:1: no step");
    broken("title: t\n== one\ntext\ntitle: again\n", "t.lesson:4: title: is a header line");
    broken("title: t\n== one\nlang: ko\n", "t.lesson:3: lang: is a header line");
    broken("title: t\ncaption before a step\n== one\n", "t.lesson:2: before the first step (== TITLE)");
    broken("lang: fr\n== one\n", "t.lesson:1: lang: expected en or ko");
    broken("needs: gpu\n== one\n", "t.lesson:1: needs: expected model");
    broken("title: t\n== one\n> key quit\n", "t.lesson:3: key: quit is not for a script");
    broken("title: t\n== one\n> key lesson-restart\n", "t.lesson:3: key: lesson-restart is not for a script");
    broken("title: t\n== one\n> pad 5000\n", "t.lesson:3: pad: expected a number 0..4096");
    broken("title: t\n== one\n> qkv \"Q:\\n1 x\\n\"\n", "t.lesson:3: qkv:2:3: expected a number, found 'x'");
    broken("title: t\n== one\n> qkv \"Q:\\n1 2\\nK:\\n1 2\\n\"\n", "t.lesson:3: qkv:5:1: no V: block");
    broken("title: t\n== one\nok\n\xff\n", "t.lesson:4: invalid UTF-8");
    /* a file: its name starts the line */
    AvError err = {0};
    assert_null(lesson_load("/nonexistent/l.txt", "en", &err));
    assert_non_null(strstr(err.msg, "/nonexistent/l.txt"));
    assert_null(lesson_load("8", "en", &err));
    assert_non_null(strstr(err.msg, "--lesson: 8 is not a lesson (1..7"));
}

/* A command that parses but that the model refuses: the step's number. */
static void test_refused_step(void **state) {
    (void)state;
    const char *text = "title: t\n== one\nok\n> head 1\n== two\nno\n> head 9\n";
    AvError err = {0};
    Lesson *l = lesson_parse(text, strlen(text), "t.lesson", &err);
    assert_non_null(l);
    Model *m = tu_model("a b c", NULL);
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    assert_int_equal(app_lesson_start(&a, l, &err), 0);
    assert_int_equal(app_lesson_goto(&a, 1, &err), -1);
    assert_string_equal(err.msg, "t.lesson step 2: head 9: the model has 4");
    app_free(&a);
    model_free(m);
}

// ----------------------------------------------------------------------------
// qkv "TEXT" and pad N

static void apply(App *a, const char *line) {
    ScriptCmd c;
    char why[256];
    AvError err = {0};
    if (script_parse(line, strlen(line), &c, why, sizeof why)) fail_msg("%s: %s", line, why);
    if (script_apply(a, &c, &err)) fail_msg("%s: %s", line, err.msg);
    script_cmd_free(&c);
    app_update(a);
}

static void refused_parse(const char *line, const char *want) {
    ScriptCmd c;
    char why[256];
    assert_int_equal(script_parse(line, strlen(line), &c, why, sizeof why), -1);
    if (!strstr(why, want)) fail_msg("%s: got \"%s\", expected \"%s\"", line, why, want);
}

static void test_qkv_parse_errors(void **state) {
    (void)state;
    refused_parse("qkv", "expected a quoted \"text\"");
    refused_parse("qkv Q:", "expected a quoted \"text\"");
    refused_parse("qkv \"Q:\\n1\\nK:\\n1\\nV:\\n1\\n", "the text has no closing quote");
    refused_parse("qkv \"Q:\\n1\\nK:\\n1\\nV:\\n1\\n\" more", "qkv: unexpected text after it");
    refused_parse("qkv \"\"", "qkv:1:1:");
    refused_parse("qkv \"Q:\\n1 2\\nK:\\n1 2 3\\nV:\\n1\\n\"", "qkv:4:1: Q has 2 columns but K has 3");
    refused_parse("qkv \"tokens: a b\\nQ:\\n1\\nK:\\n1\\nV:\\n1\\n\"", "qkv:1:1: tokens: line has 2 tokens");
    refused_parse("qkv \"Q:\\n1e999\\nK:\\n1\\nV:\\n1\\n\"", "qkv:2:1:");
    refused_parse("pad", "pad: expected a number 0..4096");
    refused_parse("pad -1", "pad: expected a number 0..4096");
    refused_parse("pad 3 4", "pad: unexpected text after it");
}

static const char worked[] = "qkv \"tokens: 나는 학교에 간다\\nQ:\\n0.1 0.3 0.5\\n0.4 0.2 0.6\\n0.7 0.8 0.9\\nK:\\n0.2 "
                             "0.1 0.3\\n0.5 0.7 0.4\\n0.9 0.2 0.8\\nV:\\n0.3 0.7 0.5\\n0.6 0.4 0.8\\n0.9 0.5 0.2\\n\"";

static void test_qkv_applies(void **state) {
    (void)state;
    Model *m = tu_model("the cat sat on the mat", NULL);
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    apply(&a, "config mask=causal scale=on");
    apply(&a, "cursor 4 5");
    apply(&a, worked);
    assert_ptr_equal(m->src, &source_qkv);
    assert_int_equal(m->n_q, 3);
    assert_int_equal(m->cfg.d_k, 3);
    assert_int_equal(m->cfg.mask, MASK_CAUSAL); /* the mask and the scaling stay */
    assert_int_equal(m->cfg.scale, 1);
    assert_int_equal(a.ci, 2); /* the cursor kept inside */
    assert_string_equal(model_key_label(m, 1), "학교에");
    assert_near(m->head[0].scores[2 * 3 + 2], 1.51, 5e-6);
    assert_near(m->head[0].weights[1 * 3 + 0], 0.4568, 5e-5);
    /* what the file source cannot do is refused, the model unchanged */
    ScriptCmd c;
    char why[256];
    AvError err = {0};
    assert_int_equal(script_parse("pad 2", 5, &c, why, sizeof why), 0);
    assert_int_equal(script_apply(&a, &c, &err), -1);
    assert_non_null(strstr(err.msg, "Q, K and V come from a file: there is no sentence to pad"));
    assert_int_equal(script_parse("sentence \"x\"", 12, &c, why, sizeof why), 0);
    assert_int_equal(script_apply(&a, &c, &err), -1);
    script_cmd_free(&c);
    assert_int_equal(m->n_q, 3);
    app_free(&a);
    model_free(m);
}

/* The state of a Q/K/V source gives back the same matrices, bit for bit,
 * and the same state again. */
static void round_trip(const char *qkv_line) {
    Model *m = tu_model("one two", NULL), *m2 = tu_model("three four five", NULL);
    App a, b;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    app_init(&b, m2, TIER_NONE, 0, 1, NULL);
    apply(&a, qkv_line);
    apply(&a, "config score=additive seed=7 mask=none scale=on");
    char *st = script_state(&a, NULL);
    assert_non_null(st);
    assert_non_null(strstr(st, "qkv \""));
    assert_non_null(strstr(st, "config seed=7\n"));
    for (const char *line = st; *line;) {
        const char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) : strlen(line);
        char *one = strndup(line, n);
        apply(&b, one);
        free(one);
        line += n + (nl ? 1 : 0);
    }
    char *st2 = script_state(&b, NULL);
    assert_string_equal(st, st2);
    assert_int_equal(m2->n_q, m->n_q);
    assert_int_equal(m2->n_k, m->n_k);
    const HeadData *x = &m->head[0], *y = &m2->head[0];
    assert_memory_equal(x->q, y->q, sizeof(float) * (size_t)m->n_q * m->cfg.d_k);
    assert_memory_equal(x->k, y->k, sizeof(float) * (size_t)m->n_k * m->cfg.d_k);
    assert_memory_equal(x->v, y->v, sizeof(float) * (size_t)m->n_k * m->cfg.d_v);
    assert_memory_equal(x->weights, y->weights, sizeof(float) * (size_t)m->n_q * m->n_k);
    for (int j = 0; j < m->n_k; j++) assert_string_equal(model_key_label(m, j), model_key_label(m2, j));
    for (int i = 0; i < m->n_q; i++) assert_string_equal(model_query_label(m, i), model_query_label(m2, i));
    free(st), free(st2);
    app_free(&a), app_free(&b);
    model_free(m), model_free(m2);
}

static void test_qkv_state_round_trip(void **state) {
    (void)state;
    round_trip(worked);
    /* numbers that need all nine digits, no tokens line, a Q of its own rows */
    round_trip("qkv \"Q:\\n0.1 -3.4028234663852886e38\\n1e-07 123456.789\\n0.333333343 -0\\nK:\\n1.17549435e-38 "
               "2\\n7 8\\nV:\\n0.5\\n-0.25\\n\"");
    /* ... also where the decimal point is a comma */
    if (setlocale(LC_NUMERIC, "de_DE.UTF-8") || setlocale(LC_NUMERIC, "fr_FR.UTF-8")) {
        round_trip("qkv \"Q:\\n0.1 2.5\\nK:\\n0.75 -1.125\\nV:\\n3.25\\n\"");
        setlocale(LC_NUMERIC, "C");
    } else need_missing("the comma locale: no de_DE.UTF-8 or fr_FR.UTF-8 (locale-gen de_DE.UTF-8)");
}

static void test_pad(void **state) {
    (void)state;
    Model *m = tu_model("I saw a movie", NULL);
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    apply(&a, "pad 3");
    assert_int_equal(m->n_pad, 3);
    assert_int_equal(m->n_k, 7);
    assert_string_equal(model_key_label(m, 6), "<pad>");
    apply(&a, "config mask=padding");
    assert_near(m->head[0].weights[0 * 7 + 5], 0.0, 0.0); /* a <pad> key gets nothing */
    char *st = script_state(&a, NULL);
    assert_non_null(strstr(st, "target\npad 3\n"));
    apply(&a, "pad 0");
    assert_int_equal(m->n_k, 4);
    free(st);
    app_free(&a);
    model_free(m);
}

/* The footer of the pipeline drawn at w x 30: "stage K/N". */
static int top_stage(App *a, int w) {
    Canvas *cv = cv_new(w, 30);
    assert_non_null(cv);
    app_draw(a, cv);
    char *text = cv_render(cv, 0, TIER_NONE);
    const char *at = strstr(text, "[ ] stage ");
    int k = at ? atoi(at + 10) : -1;
    free(text);
    cv_free(cv);
    return k;
}

/* chain K: the pipeline's stage K at the top at any width, kept by [ ] as
 * a stage (a follower of another width sees the same one), given back by
 * script_state, dropped when the arrows scroll. */
static void test_chain(void **state) {
    (void)state;
    ModelConfig c = tu_config(8, 2, 4, 4);
    Model *m = tu_model("I saw a movie yesterday and the movie was fun", &c);
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    ScriptCmd cmd;
    char why[128];
    assert_int_equal(script_parse("chain 0", 7, &cmd, why, sizeof why), -1);
    assert_non_null(strstr(why, "chain"));
    apply(&a, "view pipeline");
    apply(&a, "chain 3");
    assert_int_equal(top_stage(&a, 80), 3);
    assert_int_equal(top_stage(&a, 120), 3);
    assert_true(top_stage(&a, 200) <= 3); /* 200 columns: W_Q shares the first row (the footer names its first) */
    char *st = script_state(&a, NULL);
    assert_non_null(strstr(st, "view pipeline\n"));
    assert_non_null(strstr(st, "chain 3\n"));
    free(st);
    AppKey down = {1, APP_KEY_DOWN};
    app_key(&a, down); /* scrolled by hand: no stage kept */
    assert_int_equal(a.pipe_top, 0);
    st = script_state(&a, NULL);
    assert_null(strstr(st, "chain "));
    free(st);
    apply(&a, "chain 60"); /* past the stages: the last one */
    int last = top_stage(&a, 80);
    assert_true(last > 10);
    app_free(&a);
    model_free(m);
}

int main(void) {
    setlocale(LC_ALL, "C.UTF-8");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_lesson_parses),
        cmocka_unit_test(test_korean_has_the_english_steps),
        cmocka_unit_test(test_every_step_applies),
        cmocka_unit_test(test_any_start_state),
        cmocka_unit_test(test_caption_numbers),
        cmocka_unit_test(test_lesson7_facts),
        cmocka_unit_test(test_broken_lessons),
        cmocka_unit_test(test_refused_step),
        cmocka_unit_test(test_qkv_parse_errors),
        cmocka_unit_test(test_qkv_applies),
        cmocka_unit_test(test_qkv_state_round_trip),
        cmocka_unit_test(test_pad),
        cmocka_unit_test(test_chain),
    };
    return cmocka_run_group_tests_name("lessons", tests, NULL, NULL);
}
