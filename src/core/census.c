/* census.c - the head census (census.h): a few numbers per head from the
 * stored attention weights of every layer, and their order. */
#include "census.h"
#include "number.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"

const char *census_score_name(CensusScore s) {
    static const char *const names[CENSUS_SCORE_COUNT] = {
        [CENSUS_PREV] = N_("prev"),          [CENSUS_SINK] = N_("sink"), [CENSUS_SELF] = N_("self"),
        [CENSUS_INDUCTION] = N_("ind@text"), [CENSUS_ENTROPY] = "H",
    };
    if ((unsigned)s >= CENSUS_SCORE_COUNT) return "?";
    return s == CENSUS_ENTROPY ? names[s] : _(names[s]);
}

// ----------------------------------------------------------------------------
// the earlier copies of each token

/* same[i] = the latest j < i whose token is token i's (the same vocabulary
 * id, neither a <pad>), or -1: following same[] from i visits every earlier
 * copy of token i, latest first. */
static void find_copies(int *same, const Model *m, int n) {
    for (int i = 0; i < n; i++) {
        same[i] = -1;
        if (m->pad_key[i]) continue;
        int id = model_key_id(m, i);
        for (int j = i - 1; j >= 0; j--)
            if (!m->pad_key[j] && model_key_id(m, j) == id) {
                same[i] = j;
                break;
            }
    }
}

/* The latest copy j of token i with j + 1 < i (a copy right before i is
 * followed by i itself), or -1. */
static int first_copy(const int *same, int i) {
    int j = same[i];
    return j >= 0 && j + 1 >= i ? same[j] : j;
}

// ----------------------------------------------------------------------------
// one head

/* The scores of one head; A (n x n) is its weights. */
static void score_head(CensusRow *r, const Model *m, const HeadData *hd, const int *same, int n) {
    const float *A = hd->weights;
    double prev = 0.0, sink = 0.0, self = 0.0, induct = 0.0;
    int copies = 0;
    for (int i = 0; i < n; i++) {
        const float *row = A + (size_t)i * n;
        if (i >= 1) prev += row[i - 1], sink += row[0], self += row[i];
        int j = first_copy(same, i);
        if (j < 0) continue;
        double s = 0.0;
        for (; j >= 0; j = same[j]) s += row[j + 1];
        induct += s;
        copies++;
    }
    r->score[CENSUS_PREV] = n > 1 ? prev / (n - 1) : NAN;
    r->score[CENSUS_SINK] = n > 1 ? sink / (n - 1) : NAN;
    r->score[CENSUS_SELF] = n > 1 ? self / (n - 1) : NAN;
    r->score[CENSUS_INDUCTION] = copies ? induct / copies : NAN;
    double mean, max;
    model_head_entropy(m, hd, &mean, &max);
    r->score[CENSUS_ENTROPY] = mean;
}

int census_compute(Census *c, const Model *m, AvError *err) {
    memset(c, 0, sizeof *c);
    int n = m->n_q;
    if (m->q_target != m->k_target)
        return av_errorf(err, _("census needs self-attention: here the queries are another sentence than the keys"));
    if (m->n_q != m->n_k)
        return av_errorf(err, _("census needs self-attention: %d %s but %d %s"), m->n_q,
                         num_plural("query", "queries", m->n_q), m->n_k, num_plural("key", "keys", m->n_k));
    if (n < 1) return av_errorf(err, _("census: no tokens to score"));
    int layers = m->cfg.layers, heads = m->cfg.heads;
    int *same = malloc(sizeof *same * (size_t)n);
    c->rows = calloc((size_t)layers * heads, sizeof *c->rows);
    if (!same || !c->rows) {
        free(same);
        census_free(c);
        return av_errorf(err, _("census: out of memory for %d x %d heads"), layers, heads);
    }
    find_copies(same, m, n);
    for (int i = 0; i < n; i++) c->repeat_rows += first_copy(same, i) >= 0;
    for (int l = 0; l < layers; l++) {
        const HeadData *hd = model_layer_heads(m, l);
        for (int h = 0; h < heads; h++) {
            CensusRow *r = &c->rows[c->n++];
            r->layer = l, r->head = h;
            score_head(r, m, &hd[h], same, n);
        }
    }
    double mean, max;
    model_head_entropy(m, model_layer_heads(m, 0), &mean, &max);
    c->max_entropy = max;
    free(same);
    return 0;
}

void census_free(Census *c) {
    if (!c) return;
    free(c->rows);
    memset(c, 0, sizeof *c);
}

// ----------------------------------------------------------------------------
// classes

HeadClass census_class(const CensusRow *r, double max_entropy) {
    static const CensusScore by[] = {CENSUS_SINK, CENSUS_PREV, CENSUS_SELF, CENSUS_INDUCTION};
    static const HeadClass as[] = {HEAD_SINK, HEAD_PREV, HEAD_SELF, HEAD_INDUCTION};
    int best = -1;
    for (int k = 0; k < 4; k++) {
        double v = r->score[by[k]];
        if (!isnan(v) && v >= CENSUS_CLASS_SHARE && (best < 0 || v > r->score[by[best]])) best = k;
    }
    if (best >= 0) return as[best];
    double h = r->score[CENSUS_ENTROPY];
    if (max_entropy > 0 && !isnan(h) && h >= CENSUS_CLASS_BROAD * max_entropy) return HEAD_BROAD;
    return HEAD_MIXED;
}

const char *census_class_letter(HeadClass k, int ascii) {
    static const char *const letters[HEAD_CLASS_COUNT] = {"P", "S", "D", "I", "B", "·"};
    if ((unsigned)k >= HEAD_CLASS_COUNT) return "?";
    return k == HEAD_MIXED && ascii ? "." : letters[k];
}

const char *census_class_name(HeadClass k) {
    static const char *const names[HEAD_CLASS_COUNT] = {
        N_("previous token"), N_("first token (sink)"), N_("itself (diagonal)"), N_("after a repeat"), N_("broad"),
        N_("mixed"),
    };
    return (unsigned)k < HEAD_CLASS_COUNT ? _(names[k]) : "?";
}

// ----------------------------------------------------------------------------
// order

typedef struct {
    double v;
    int at;
} Keyed;

/* Largest first, NAN last, then by index: a total order, so qsort is stable. */
static int keyed_cmp(const void *pa, const void *pb) {
    const Keyed *a = pa, *b = pb;
    int na = isnan(a->v), nb = isnan(b->v);
    if (na != nb) return na - nb;
    if (!na && a->v != b->v) return a->v < b->v ? 1 : -1;
    return (a->at > b->at) - (a->at < b->at);
}

void census_order(int *order, const double *values, int n) {
    Keyed *k = malloc(sizeof *k * (size_t)(n > 0 ? n : 1));
    if (!k) { /* out of memory: index order, still a permutation */
        for (int i = 0; i < n; i++) order[i] = i;
        return;
    }
    for (int i = 0; i < n; i++) k[i] = (Keyed){.v = values[i], .at = i};
    qsort(k, (size_t)n, sizeof *k, keyed_cmp);
    for (int i = 0; i < n; i++) order[i] = k[i].at;
    free(k);
}

void census_sort(int *order, const Census *c, CensusScore by) {
    double *v = malloc(sizeof *v * (size_t)(c->n ? c->n : 1));
    if (!v) { /* out of memory: layer order, still a permutation */
        for (int i = 0; i < c->n; i++) order[i] = i;
        return;
    }
    for (int i = 0; i < c->n; i++) v[i] = c->rows[i].score[by];
    census_order(order, v, c->n);
    free(v);
}

int census_best(const Census *c, CensusScore by) {
    int best = -1;
    for (int i = 0; i < c->n; i++) {
        double v = c->rows[i].score[by];
        if (!isnan(v) && (best < 0 || v > c->rows[best].score[by])) best = i;
    }
    return best;
}
