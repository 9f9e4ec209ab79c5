/* model_config.c - the configuration of the model: its defaults, the check
 * of every range, and the names of positional encodings, scores, attention
 * modes and stages as --help, the status line and the dumps write them. */
#include "model.h"

#include <string.h>

#include "i18n.h"

// ----------------------------------------------------------------------------
// names

static const char *const pos_names[POS_KIND_COUNT] = {"none", "sinusoidal"};

const char *pos_name(PosKind p) { return (unsigned)p < POS_KIND_COUNT ? pos_names[p] : "?"; }

int pos_parse(const char *s, PosKind *out, AvError *err) {
    for (int p = 0; p < POS_KIND_COUNT; p++)
        if (strcmp(s, pos_names[p]) == 0) {
            *out = (PosKind)p;
            return 0;
        }
    return av_errorf(err, _("unknown positional encoding '%s' (expected none or sinusoidal)"), s);
}

static const char *const attn_names[ATTN_MODE_COUNT] = {"self", "causal-self", "cross"};

const char *attn_mode_name(AttnMode a) { return (unsigned)a < ATTN_MODE_COUNT ? attn_names[a] : "?"; }

int attn_mode_parse(const char *s, AttnMode *out, AvError *err) {
    for (int a = 0; a < ATTN_MODE_COUNT; a++)
        if (strcmp(s, attn_names[a]) == 0) {
            *out = (AttnMode)a;
            return 0;
        }
    return av_errorf(err, _("unknown attention '%s' (expected self, causal-self or cross)"), s);
}

const char *score_name(ScoreKind k, int scale) {
    switch (k) {
    case SCORE_DOT: return scale ? "scaled" : "dot";
    case SCORE_COSINE: return "cosine";
    case SCORE_DISTANCE: return "distance";
    case SCORE_ADDITIVE: return "additive";
    default: return "?";
    }
}

int score_parse(const char *s, ScoreKind *kind, int *scale, AvError *err) {
    if (strcmp(s, "scaled") == 0) *kind = SCORE_DOT, *scale = 1;
    else if (strcmp(s, "dot") == 0) *kind = SCORE_DOT, *scale = 0;
    else if (strcmp(s, "cosine") == 0) *kind = SCORE_COSINE;
    else if (strcmp(s, "distance") == 0) *kind = SCORE_DISTANCE;
    else if (strcmp(s, "additive") == 0) *kind = SCORE_ADDITIVE;
    else return av_errorf(err, _("unknown score '%s' (expected dot, scaled, cosine, distance or additive)"), s);
    return 0;
}

void model_mask_name(const ModelConfig *c, char *buf, size_t cap) {
    mask_format(buf, cap, c->mask, c->window, c->prefix);
}

static const char *const stage_names[STAGE_COUNT] = {"embed",  "project", "scores", "scaled",
                                                     "masked", "weights", "output", "final"};

const char *stage_name(Stage s) { return (unsigned)s < STAGE_COUNT ? stage_names[s] : "none"; }

// ----------------------------------------------------------------------------
// configuration

void model_config_default(ModelConfig *c) {
    c->d_model = 64;
    c->heads = 4;
    c->d_k = 16;
    c->d_v = 16;
    c->seed = 42;
    c->mask = MASK_NONE;
    c->window = 3;
    c->prefix = 2;
    c->scale = 1;
    c->pos = POS_NONE;
    c->score = SCORE_DOT;
    c->tie_qk = 0;
    c->attn = ATTN_SELF;
    c->layers = 1;
}

int model_config_check(const ModelConfig *c, AvError *err) {
    if (c->d_model < 1 || c->d_model > MODEL_MAX_DIM)
        return av_errorf(err, _("d_model %d is out of range 1..%d"), c->d_model, MODEL_MAX_DIM);
    if (c->heads < 1 || c->heads > MODEL_MAX_HEADS)
        return av_errorf(err, _("heads %d is out of range 1..%d"), c->heads, MODEL_MAX_HEADS);
    if (c->d_k < 1 || c->d_k > MODEL_MAX_DIM)
        return av_errorf(err, _("d_k %d is out of range 1..%d"), c->d_k, MODEL_MAX_DIM);
    if (c->d_v < 1 || c->d_v > MODEL_MAX_DIM)
        return av_errorf(err, _("d_v %d is out of range 1..%d"), c->d_v, MODEL_MAX_DIM);
    if ((unsigned)c->mask >= MASK_KIND_COUNT) return av_errorf(err, _("unknown mask kind"));
    if (c->window < 1 || c->window > MASK_MAX_PARAM)
        return av_errorf(err, _("window %d is out of range 1..%d"), c->window, MASK_MAX_PARAM);
    if (c->prefix < 0 || c->prefix > MASK_MAX_PARAM)
        return av_errorf(err, _("prefix %d is out of range 0..%d"), c->prefix, MASK_MAX_PARAM);
    if ((unsigned)c->pos >= POS_KIND_COUNT) return av_errorf(err, _("unknown positional encoding"));
    if ((unsigned)c->score >= SCORE_KIND_COUNT) return av_errorf(err, _("unknown score kind"));
    if ((unsigned)c->attn >= ATTN_MODE_COUNT) return av_errorf(err, _("unknown attention mode"));
    if (c->layers < 1 || c->layers > MODEL_MAX_LAYERS)
        return av_errorf(err, _("layers %d is out of range 1..%d"), c->layers, MODEL_MAX_LAYERS);
    return 0;
}
