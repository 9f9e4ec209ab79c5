/* census_battery.c - see census_battery.h. */
#include "census_battery.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cancel.h"
#include "headtests.h"
#include "i18n.h"
#include "language.h"
#include "source_trained.h"
#include "utf8.h"
#include "widgets.h"

/* The time a frame spends on the batteries before it lets the screen be
 * drawn and the keys be read: a step (one run of the model) is not cut, so
 * a frame of a large model may take longer. */
#define FRAME_BUDGET 0.05

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

void census_battery_free(CensusBattery *b) {
    headrun_free(b->job);
    headreport_free(&b->rep);
    memset(b, 0, sizeof *b);
}

const HeadReport *census_battery_report(const CensusBattery *b) { return b->rep.rows ? &b->rep : NULL; }

/* Steps job until a frame's time is spent (the interactive view) or it is
 * done: 1 more to do (the next frame asked for), 0 done, -1 failed (err). */
static int steps(App *a, int (*step)(void *job, AvError *err), void *job, AvError *err) {
    double t0 = now();
    int rc = 1;
    while (rc > 0 && !av_cancelled()) {
        rc = step(job, err);
        if (a->stepwise && now() - t0 > FRAME_BUDGET) break;
    }
    if (rc < 0 && av_cancelled()) rc = 1; /* stopped: the step again in the next frame */
    if (rc > 0) a->wake_ms = 1, a->wake_work = 1;
    return rc;
}

static int battery_step(void *job, AvError *err) { return headrun_step(job, err); }
static int sweep_step_of(void *job, AvError *err) { return sweep_step(job, err); }

int census_battery_work(CensusBattery *b, App *a) {
    const TfModel *tm = model_trained_engine(a->m);
    if (b->model != tm) { /* another model (w): its own batteries */
        census_battery_free(b);
        b->model = tm;
        if (!tm) return 0;
        AvError err = {0};
        BatteryKind text = strcmp(language_current(), "ko") == 0 ? BATTERY_TEXT_KO : BATTERY_TEXT_EN;
        if (!(b->job = headrun_begin(tm, model_trained_vocab(a->m), text, &err)))
            snprintf(b->why, sizeof b->why, "%s", err.msg);
    }
    if (!b->job) return 0;
    AvError err = {0};
    int rc = steps(a, battery_step, b->job, &err);
    if (rc > 0) return 0; /* more to do: the next frame, after the keys */
    if (rc == 0 && headrun_finish(b->job, &b->rep, &err) == 0) {
        headrun_free(b->job);
        b->job = NULL;
        return 1;
    }
    snprintf(b->why, sizeof b->why, "%s", err.msg);
    headrun_free(b->job);
    b->job = NULL;
    return 0;
}

void census_battery_header(const CensusBattery *b, char *buf, size_t cap) {
    if (b->job) {
        int done, total;
        headrun_progress(b->job, &done, &total);
        /* TRANSLATORS: the runs of the model done and in all */
        snprintf(buf, cap, _("batteries: computing, %d of %d runs (the keys work meanwhile)"), done, total);
    } else if (!b->rep.rows) {
        snprintf(buf, cap, _("batteries: none (%s)"), b->why[0] ? b->why : "?");
    } else {
        const BatteryInfo *t = battery_info(b->rep.text);
        /* TRANSLATORS: the text battery's name and sentences; S, the sequences and the seed of the other */
        snprintf(buf, cap, _("batteries: %s %d sentences, repeat-random S=%d x %d seed %u"), t->name, t->count,
                 b->rep.s, b->rep.sequences, BATTERY_SEED);
    }
}

void census_battery_legend(const CensusBattery *b, int ascii, char *buf, size_t cap) {
    char heads[96] = "";
    size_t hl = 0;
    int n = 0;
    for (int i = 0; b->rep.rows && i < b->rep.n; i++) {
        const HeadTestRow *r = &b->rep.rows[i];
        if (!(r->score[HT_INDUCTION] > HEADTEST_INDUCTION_MIN)) continue;
        if (n++ < 6 && hl < sizeof heads)
            hl +=
                (size_t)snprintf(heads + hl, sizeof heads - hl, "%s%d.%d", n > 1 ? " " : "", r->layer + 1, r->head + 1);
        else if (n == 7 && hl < sizeof heads) snprintf(heads + hl, sizeof heads - hl, "%s", ascii ? " ..." : " …");
    }
    if (!b->rep.rows) /* TRANSLATORS: induct is the census's column of the induction score */
        snprintf(buf, cap, _("induct > %.1f: an induction head (on repeated random tokens)"), HEADTEST_INDUCTION_MIN);
    else if (n == 0)
        snprintf(buf, cap, _("induct > %.1f: an induction head (on repeated random tokens): none here"),
                 HEADTEST_INDUCTION_MIN);
    else /* TRANSLATORS: the last %s lists heads as layer.head: "5.5 6.9" */
        snprintf(buf, cap, _("induct > %.1f: an induction head (on repeated random tokens): %s"),
                 HEADTEST_INDUCTION_MIN, heads);
}

// ----------------------------------------------------------------------------
// the ablation sweep

void census_sweep_free(CensusSweep *s) {
    sweep_free(s->job);
    memset(s, 0, sizeof *s);
}

int census_sweep_work(CensusSweep *s, const CensusBattery *b, App *a) {
    const Model *m = a->m;
    const TfModel *tm = model_trained_engine(m);
    if (!tm || m->stale != STAGE_NONE) return 0;
    if (s->model != tm || s->final_at != m->computed[STAGE_FINAL] || s->n != m->n_q) {
        census_sweep_free(s);
        s->model = tm, s->final_at = m->computed[STAGE_FINAL], s->n = m->n_q;
        const TfAblation *base;
        int nb = model_trained_ablation(m, &base);
        AvError err = {0};
        if (!(s->job = sweep_begin(model_trained_run(m), base, nb, m->n_q - 1, -1, &err)))
            snprintf(s->why, sizeof s->why, "%s", err.msg);
    }
    if (!s->job || s->done || b->job) return 0; /* the batteries first */
    AvError err = {0};
    int rc = steps(a, sweep_step_of, s->job, &err);
    if (rc < 0) snprintf(s->why, sizeof s->why, "%s", err.msg);
    if (rc == 0) s->done = 1;
    return rc == 0;
}

double census_sweep_drop(const CensusSweep *s, int l, int h) {
    if (!s->job) return NAN;
    return sweep_base(s->job) - sweep_logit(s->job, l, h);
}

void census_sweep_legend(const CensusSweep *s, const App *a, char *buf, size_t cap) {
    if (!s->job) {
        snprintf(buf, cap, _("drop: none (%s)"), s->why[0] ? s->why : "?");
        return;
    }
    size_t len;
    const char *p = model_token_piece(a->m, sweep_token(s->job), &len);
    char raw[64], tok[48], q[48];
    size_t r = utf8_show_spaces(p, len, raw, sizeof raw);
    view_label(a, tok, sizeof tok, raw, r, 16);
    view_qlabel(a, q, sizeof q, sweep_row(s->job), 16);
    int at = snprintf(buf, cap, _("drop: the fall of %s's logit after %s[%d] (%.2f), the head alone off"), tok, q,
                      sweep_row(s->job), sweep_base(s->job));
    int done, total;
    sweep_progress(s->job, &done, &total);
    if (done < total && at > 0 && (size_t)at < cap)
        snprintf(buf + at, cap - (size_t)at, _("; computing, %d of %d heads"), done, total);
}
