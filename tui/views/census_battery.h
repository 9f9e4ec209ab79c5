/* census_battery.h - the head tests of a trained model on the named
 * batteries (src/trained/headrun.h) for the census view: computed once per
 * model, at the census's first draws, one run of the model (a sentence or
 * a sequence) after another until a frame's time is spent; in the
 * interactive view the next frame goes on (app_tick), so keys are handled
 * between the steps and q quits at once (the engine's cancel); --once and
 * --export compute all of it in their one frame. */
#ifndef ATTNVIZ_CENSUS_BATTERY_H
#define ATTNVIZ_CENSUS_BATTERY_H

#include <stddef.h>

#include "app.h"
#include "headrun.h"
#include "sweep.h"

typedef struct {
    const TfModel *model; /* what job and rep are for (NULL: nothing yet) */
    HeadRun *job;         /* under way (owned), or NULL */
    HeadReport rep;       /* done: rows set (owned) */
    char why[192];        /* why there is none ("" when there is or will be) */
} CensusBattery;

/* The ablation sweep of the sentence (sweep.h): each head off alone, the
 * fall of the logit of the model's likeliest token after the last row;
 * made again when the model's layers are computed again (an edit, a mask,
 * an ablation), in steps as the batteries, after them. */
typedef struct {
    const TfModel *model;   /* what job is for */
    unsigned long final_at; /* the model's count of final passes then */
    int n;                  /* its rows then */
    SweepJob *job;          /* (owned) */
    int done;               /* every head swept */
    char why[192];          /* why there is none */
} CensusSweep;

/* Steps the sweep (after the batteries: nothing while b works). Returns 1
 * when it was finished now. */
int census_sweep_work(CensusSweep *s, const CensusBattery *b, App *a);
void census_sweep_free(CensusSweep *s);
/* Head h of layer l's drop (NAN until swept). */
double census_sweep_drop(const CensusSweep *s, int l, int h);
/* One line for the footer: what the drop is, and the progress. */
void census_sweep_legend(const CensusSweep *s, const App *a, char *buf, size_t cap);

/* Steps the batteries of the app's model (nothing for a model that is not
 * trained). Returns 1 when the report was finished now. */
int census_battery_work(CensusBattery *b, App *a);
void census_battery_free(CensusBattery *b); /* leaves *b empty */

/* The report when done, else NULL. */
const HeadReport *census_battery_report(const CensusBattery *b);

/* One line for the census's header: the batteries, their sizes and seed,
 * or the progress, or why there are none. */
void census_battery_header(const CensusBattery *b, char *buf, size_t cap);
/* One line for the footer: the induction threshold and the heads above it. */
void census_battery_legend(const CensusBattery *b, int ascii, char *buf, size_t cap);

#endif
