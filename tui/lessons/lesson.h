/* lesson.h - lessons (issue 16): a plain-text file of steps, each a caption
 * and commands (script.h), walked through with Space (next), b (back), R
 * (restart) and L (leave, and L again: back to the step).
 *
 * The file:
 *   # a comment (anywhere)
 *   title: From a sentence to attention weights     (the header, before
 *   lang: en                                         the first step)
 *   needs: model                                     (optional: a trained
 *                                                    model, --model)
 *   == Tokens                                        a step and its title
 *   Any line that is not a command is caption text;
 *   a blank line starts a paragraph.
 *   > sentence "I saw a movie yesterday"             a command
 *   > view pipeline
 *
 * Step k shows the state the lesson started from with the commands of
 * steps 1..k applied in order, so going back is exact. Every command is
 * checked when the file is read: `file:line: what`, and the CLI exits 2.
 * Built in: seven lessons in English and in Korean (lesson_builtin). */
#ifndef ATTNVIZ_LESSON_H
#define ATTNVIZ_LESSON_H

#include <stddef.h>

#include "app.h"
#include "canvas.h"
#include "error.h"
#include "script.h"

typedef struct {
    char *title;    /* the "== " line */
    char *caption;  /* the caption's text: paragraphs separated by "\n" */
    ScriptCmd *cmd; /* its commands */
    int n_cmd;
} LessonStep;

typedef struct Lesson {
    char *name;  /* "1", or the file's name (escaped) */
    char *title; /* title: */
    char lang[8];
    int needs_model; /* needs: model */
    LessonStep *step;
    int n_step;
} Lesson;

/* Parses a lesson file's text; `name` (escaped) starts every message. A
 * new lesson, or NULL with one line "name:LINE: what". */
Lesson *lesson_parse(const char *text, size_t len, const char *name, AvError *err);
/* A built-in lesson ("1".."7") in lang "en" or "ko", or a file: NULL with
 * one line when it is neither or is broken. */
Lesson *lesson_load(const char *name_or_file, const char *lang, AvError *err);
void lesson_free(Lesson *l); /* NULL-safe */

/* The built-in lessons: their number of lessons, and the text of lesson k
 * (1-based) in lang ("en", "ko"; NULL: none). */
int lesson_builtin_count(void);
const char *lesson_builtin(int k, const char *lang);
/* The list `--lesson list` prints: "1  From a sentence to attention weights". */
char *lesson_list(const char *lang);

/* The caption shown now: the step of the app's lesson ("TITLE k/n: STEP"
 * into title[cap]), else, without a lesson, the teacher's caption that came
 * with --follow (App.caption_title, script.h's caption command); its text
 * (paragraphs separated by "\n"), or NULL when none is shown (no lesson, or
 * left, and no teacher's caption). */
const char *lesson_caption_now(const App *a, char *title, size_t cap);

/* The rows the caption shown (lesson_caption_now) takes at the bottom of a
 * w x h screen (0: none), and the caption drawn there: a title line (the
 * lesson, the step, the keys of the app's own lesson), then the text
 * wrapped. */
int lesson_caption_rows(const App *a, int w, int h);
void lesson_draw_caption(const App *a, Canvas *cv, int y, int rows);

/* Starts lesson l on the app (owned by it from now on): the state now is
 * the lesson's start, step 1 shown. 0, or -1 with err (a command refused:
 * "lesson 1 step 2: head 5: the model has 4"). */
int app_lesson_start(App *a, Lesson *l, AvError *err);
/* Shows step k (0-based) of the app's lesson: the start state, then the
 * commands of steps 0..k. 0, or -1 with err (the app shows what it could). */
int app_lesson_goto(App *a, int k, AvError *err);

#endif
