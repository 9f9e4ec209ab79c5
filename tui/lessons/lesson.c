/* lesson.c - see lesson.h. The built-in lessons' texts are in
 * lessons_formula.c and lessons_heads.c, listed in lessons_builtin.c. */
#include "lesson.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_internal.h"
#include "bigtext.h"
#include "i18n.h"
#include "readfile.h"
#include "utf8.h"
#include "number.h"

enum { LESSON_MAX_BYTES = 1 << 20, LESSON_MAX_STEPS = 200, LESSON_MAX_CMDS = 64 };

static void step_free(LessonStep *s) {
    free(s->title), free(s->caption);
    for (int i = 0; i < s->n_cmd; i++) script_cmd_free(&s->cmd[i]);
    free(s->cmd);
}

void lesson_free(Lesson *l) {
    if (!l) return;
    for (int i = 0; i < l->n_step; i++) step_free(&l->step[i]);
    free(l->step), free(l->name), free(l->title);
    free(l);
}

/* text[0..n) appended to *s (a line break before it when `nl` and *s is
 * not empty). -1 when out of memory. */
static int append(char **s, const char *text, size_t n, int nl) {
    size_t old = *s ? strlen(*s) : 0, add = n + (nl && old ? 1 : 0);
    char *p = realloc(*s, old + add + 1);
    if (!p) return -1;
    if (nl && old) p[old++] = '\n';
    memcpy(p + old, text, n);
    p[old + n] = '\0';
    *s = p;
    return 0;
}

static char *dup_trim(const char *s, size_t n) {
    while (n && (*s == ' ' || *s == '\t')) s++, n--;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
    char *p = malloc(n + 1);
    if (p) memcpy(p, s, n), p[n] = '\0';
    return p;
}

// ----------------------------------------------------------------------------
// the lines of a lesson file: each 0, or -1 with why (one line)

/* No NUL byte, valid UTF-8. */
static int line_valid(const char *s, size_t n, char *why, size_t cap) {
    if (memchr(s, '\0', n)) return snprintf(why, cap, _("a NUL byte")), -1;
    for (size_t b = 0; b < n;) {
        uint32_t cp;
        int w = utf8_decode(s + b, n - b, &cp);
        if (cp == UTF8_INVALID) return snprintf(why, cap, _("invalid UTF-8 at byte %zu of the line"), b + 1), -1;
        b += (size_t)w;
    }
    return 0;
}

/* "== TITLE": a new step at the end of l's. */
static int step_start(Lesson *l, const char *title, size_t n, char *why, size_t cap) {
    if (l->n_step >= LESSON_MAX_STEPS) return snprintf(why, cap, _("more than %d steps"), LESSON_MAX_STEPS), -1;
    LessonStep *ns = realloc(l->step, sizeof *ns * (size_t)(l->n_step + 1));
    if (!ns) return snprintf(why, cap, _("out of memory")), -1;
    l->step = ns;
    LessonStep *cur = &l->step[l->n_step++];
    memset(cur, 0, sizeof *cur);
    if (!(cur->title = dup_trim(title, n))) return snprintf(why, cap, _("out of memory")), -1;
    if (!cur->title[0]) return snprintf(why, cap, _("a step without a title (== TITLE)")), -1;
    return 0;
}

/* A line of the header, before the first step: title:, lang: or needs:. */
static int header_line(Lesson *l, const char *s, size_t n, char *why, size_t cap) {
    const char *colon = memchr(s, ':', n);
    size_t kl = colon ? (size_t)(colon - s) : 0;
    char *val = colon ? dup_trim(colon + 1, n - (size_t)(colon + 1 - s)) : NULL;
    if (colon && !val) return snprintf(why, cap, _("out of memory")), -1;
    if (colon && kl == 5 && strncmp(s, "title", 5) == 0) {
        free(l->title);
        l->title = val;
    } else if (colon && kl == 4 && strncmp(s, "lang", 4) == 0) {
        int ok = strcmp(val, "en") == 0 || strcmp(val, "ko") == 0;
        if (ok) snprintf(l->lang, sizeof l->lang, "%s", val);
        free(val);
        if (!ok) return snprintf(why, cap, _("lang: expected en or ko")), -1;
    } else if (colon && kl == 5 && strncmp(s, "needs", 5) == 0) {
        int ok = strcmp(val, "model") == 0;
        free(val);
        if (!ok) return snprintf(why, cap, _("needs: expected model")), -1;
        l->needs_model = 1;
    } else {
        free(val);
        return snprintf(why, cap, _("before the first step (== TITLE) only title:, lang: and needs: lines")), -1;
    }
    return 0;
}

/* A header line in a step would be taken for caption text. */
static int not_header(const char *s, size_t n, char *why, size_t cap) {
    static const char *const keys[] = {"title:", "lang:", "needs:"};
    for (int h = 0; h < 3; h++) {
        size_t kl = strlen(keys[h]);
        if (n >= kl && strncmp(s, keys[h], kl) == 0)
            return snprintf(why, cap, _("%s is a header line: it goes before the first step (== TITLE)"), keys[h]), -1;
    }
    return 0;
}

/* "> COMMAND" (script.h) added to the step's; a caption command is a
 * teacher's stream's (follow.h): a step's caption is its text. */
static int step_command(LessonStep *cur, const char *s, size_t n, char *why, size_t cap) {
    ScriptCmd c;
    char refused[256];
    if (script_parse(s, n, &c, refused, sizeof refused)) return snprintf(why, cap, "%s", refused), -1;
    if (c.op == SC_NONE) return 0;
    if (c.op == SC_CAPTION) {
        script_cmd_free(&c);
        return snprintf(why, cap, _("caption: only in a teacher's stream (a step's caption is its text)")), -1;
    }
    if (cur->n_cmd >= LESSON_MAX_CMDS) {
        script_cmd_free(&c);
        return snprintf(why, cap, _("more than %d commands in a step"), LESSON_MAX_CMDS), -1;
    }
    ScriptCmd *nc = realloc(cur->cmd, sizeof *nc * (size_t)(cur->n_cmd + 1));
    if (!nc) {
        script_cmd_free(&c);
        return snprintf(why, cap, _("out of memory")), -1;
    }
    cur->cmd = nc;
    cur->cmd[cur->n_cmd++] = c;
    return 0;
}

/* Caption text, appended to the step's: paragraphs (after a blank line)
 * separated by a line break, lines by a space. */
static int caption_line(LessonStep *cur, const char *s, size_t n, int blank, char *why, size_t cap) {
    char *t = dup_trim(s, n);
    if (!t) return snprintf(why, cap, _("out of memory")), -1;
    int rc = cur->caption ? append(&cur->caption, blank ? "\n" : " ", 1, 0) : 0;
    if (!rc) rc = append(&cur->caption, t, strlen(t), 0);
    free(t);
    if (rc) return snprintf(why, cap, _("out of memory")), -1;
    return 0;
}

Lesson *lesson_parse(const char *text, size_t len, const char *name, AvError *err) {
    Lesson *l = calloc(1, sizeof *l);
    if (!l || !(l->name = strdup(name))) {
        free(l);
        return av_error_nomem(err, _("out of memory")), NULL;
    }
    snprintf(l->lang, sizeof l->lang, "en");
    int line = 0, blank = 0;
    LessonStep *cur = NULL;
    char why[300];
#define FAIL(...)                                                                                                      \
    do {                                                                                                               \
        char msg_[300];                                                                                                \
        snprintf(msg_, sizeof msg_, __VA_ARGS__);                                                                      \
        av_errorf(err, "%s:%d: %s", name, line, msg_);                                                                 \
        lesson_free(l);                                                                                                \
        return NULL;                                                                                                   \
    } while (0)
    for (size_t at = 0; at < len;) {
        const char *s = text + at;
        const char *nl = memchr(s, '\n', len - at);
        size_t n = nl ? (size_t)(nl - s) : len - at;
        at += n + (nl ? 1 : 0);
        line++;
        if (n && s[n - 1] == '\r') n--;
        if (line_valid(s, n, why, sizeof why)) FAIL("%s", why);
        size_t k = 0;
        while (k < n && (s[k] == ' ' || s[k] == '\t')) k++;
        if (k == n) { /* blank: a paragraph break in a caption */
            blank = 1;
            continue;
        }
        if (s[k] == '#') continue;
        if (n - k >= 2 && s[k] == '=' && s[k + 1] == '=') { /* a step */
            if (step_start(l, s + k + 2, n - k - 2, why, sizeof why)) FAIL("%s", why);
            cur = &l->step[l->n_step - 1];
            blank = 0;
            continue;
        }
        if (!cur) {
            if (header_line(l, s + k, n - k, why, sizeof why)) FAIL("%s", why);
            continue;
        }
        if (not_header(s + k, n - k, why, sizeof why)) FAIL("%s", why);
        if (s[k] == '>') {
            if (step_command(cur, s + k + 1, n - k - 1, why, sizeof why)) FAIL("%s", why);
            continue;
        }
        if (caption_line(cur, s, n, blank, why, sizeof why)) FAIL("%s", why);
        blank = 0;
    }
    line++;
    if (!l->n_step) FAIL(_("no step (a step starts with a line \"== TITLE\")"));
    if (!l->title && !(l->title = strdup(l->step[0].title))) FAIL(_("out of memory"));
#undef FAIL
    return l;
}

Lesson *lesson_load(const char *what, const char *lang, AvError *err) {
    char *e = utf8_escape(what, strlen(what));
    const char *shown = e ? e : _("the lesson");
    Lesson *l = NULL;
    int k = 0;
    if (what[0] >= '1' && what[0] <= '9' && !what[1]) k = what[0] - '0';
    if (k) {
        const char *text = k <= lesson_builtin_count() ? lesson_builtin(k, lang) : NULL;
        if (!text)
            av_errorf(err, _("--lesson: %s is not a lesson (1..%d, or a file; --lesson list)"), shown,
                      lesson_builtin_count());
        else {
            char name[32];
            snprintf(name, sizeof name, _("lesson %d (%s)"), k, lang);
            l = lesson_parse(text, strlen(text), name, err);
        }
    } else {
        char *buf;
        size_t len;
        if (av_read_text(what, LESSON_MAX_BYTES, 0, &buf, &len, err) == 0) {
            l = lesson_parse(buf, len, shown, err);
            free(buf);
        }
    }
    free(e);
    return l;
}

char *lesson_list(const char *lang) {
    size_t cap = 4096, at = 0;
    char *out = malloc(cap);
    if (!out) return NULL;
    out[0] = '\0';
    for (int k = 1; k <= lesson_builtin_count(); k++) {
        AvError err = {0};
        const char *text = lesson_builtin(k, lang);
        Lesson *l = text ? lesson_parse(text, strlen(text), "builtin", &err) : NULL;
        char steps[64];
        int n_step = l ? l->n_step : 0;
        snprintf(steps, sizeof steps, P_("%d step", "%d steps", n_step), n_step);
        int n = snprintf(out + at, cap - at, "%d  %s%s (%s)\n", k, l ? l->title : err.msg,
                         l && l->needs_model ? "  [--model stories260K.bin]" : "", steps);
        if (n > 0 && (size_t)n < cap - at) at += (size_t)n;
        lesson_free(l);
    }
    return out;
}

// ----------------------------------------------------------------------------
// the caption

/* The caption's paragraphs wrapped to w: the rows they take (cv NULL: only
 * counted), from row y. */
static int caption_text(const char *text, Canvas *cv, int y, int w, int max_rows) {
    int rows = 0;
    const char *p = text ? text : "";
    while (*p && rows < max_rows) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        char *para = malloc(n + 1);
        if (!para) break;
        memcpy(para, p, n), para[n] = '\0';
        int r = cv_text_wrap(NULL, 0, 0, para, w, 0, style_plain());
        if (cv) cv_text_wrap(cv, y + rows, 1, para, w, 0, style_plain());
        rows += r;
        free(para);
        p += n + (nl ? 1 : 0);
    }
    return rows < max_rows ? rows : max_rows;
}

/* Projector mode on a big screen: the title of the app's own lesson's step
 * in large type above the caption (bigtext.h), when it fits. */
static int big_title(const App *a, int w, int h) {
    if (!a->present || h < 36 || !a->lesson || a->lesson_left) return 0;
    int bw = bigtext_width(a->lesson->step[a->lesson_step].title);
    return bw > 0 && bw <= w - 2 ? BIGTEXT_ROWS : 0;
}

const char *lesson_caption_now(const App *a, char *title, size_t cap) {
    if (a->lesson && !a->lesson_left) {
        const Lesson *l = a->lesson;
        const LessonStep *s = &l->step[a->lesson_step];
        snprintf(title, cap, "%s %d/%d: %s", l->title, a->lesson_step + 1, l->n_step, s->title);
        return s->caption ? s->caption : "";
    }
    if (a->lesson || !a->caption_title) return NULL;
    snprintf(title, cap, "%s", a->caption_title);
    return a->caption_text ? a->caption_text : "";
}

int lesson_caption_rows(const App *a, int w, int h) {
    char title[8];
    const char *text = lesson_caption_now(a, title, sizeof title);
    if (!text || h < 12 || w < 20) return 0;
    int max = h / 3 > 3 ? h / 3 : 3, big = big_title(a, w, h);
    int rows = 1 + big + caption_text(text, NULL, 0, w - 2, max - 1 - big);
    return rows < max ? rows : max;
}

void lesson_draw_caption(const App *a, Canvas *cv, int y, int rows) {
    char title[SCRIPT_CAPTION_MAX_TITLE + 1], head[SCRIPT_CAPTION_MAX_TITLE + 3];
    const char *text = lesson_caption_now(a, title, sizeof title);
    if (!text) return;
    snprintf(head, sizeof head, " %s ", title);
    cv_fill(cv, y, 0, cv->w, " ", style_attr(ST_REVERSE));
    int x = cv_text(cv, y, 0, head, cv->w, style_attr(ST_REVERSE | ST_BOLD));
    /* The keys of the app's own lesson (a teacher's caption has none here). */
    const char *keys = _(" Space next  b back  R start  L leave ");
    int kw = utf8_width(keys, strlen(keys));
    if (a->lesson && x + kw < cv->w) cv_text(cv, y, cv->w - kw, keys, kw, style_attr(ST_REVERSE));
    int big = big_title(a, cv->w, cv->h + 0 * rows);
    if (big && rows > big + 1)
        bigtext_draw(cv, y + 1, 1, cv->w - 2, a->lesson->step[a->lesson_step].title, style_attr(ST_BOLD));
    else big = 0;
    caption_text(text, cv, y + 1 + big, cv->w - 2, rows - 1 - big);
}

// ----------------------------------------------------------------------------
// on the app

int app_lesson_goto(App *a, int k, AvError *err) {
    Lesson *l = a->lesson;
    if (!l) return av_errorf(err, _("no lesson"));
    if (k < 0) k = 0;
    if (k >= l->n_step) k = l->n_step - 1;
    a->lesson_step = k;
    a->lesson_left = 0;
    a->overlay = OVERLAY_NONE;
    a->hl_kind = HL_NONE;
    a->painting = 0; /* mask-edit is no part of the state: Space must be the next step again */
    /* the start state, then every step up to k */
    int rc = 0;
    for (size_t at = 0; a->lesson_start && a->lesson_start[at];) {
        const char *s = a->lesson_start + at, *nl = strchr(s, '\n');
        size_t n = nl ? (size_t)(nl - s) : strlen(s);
        at += n + (nl ? 1 : 0);
        ScriptCmd c;
        char why[256];
        if (script_parse(s, n, &c, why, sizeof why) == 0) {
            AvError e2 = {0};
            script_apply(a, &c, &e2);
            script_cmd_free(&c);
        }
    }
    for (int s = 0; s <= k && !rc; s++)
        for (int i = 0; i < l->step[s].n_cmd && !rc; i++)
            if (script_apply(a, &l->step[s].cmd[i], err)) {
                av_error_prefix(err, _("%s step %d"), l->name, s + 1);
                rc = -1;
            }
    return rc;
}

int app_lesson_start(App *a, Lesson *l, AvError *err) {
    free(a->lesson_start);
    lesson_free(a->lesson);
    a->lesson = l;
    a->lesson_start = script_state(a, NULL);
    if (!a->lesson_start) return av_error_nomem(err, _("out of memory"));
    return app_lesson_goto(a, 0, err);
}
