/* cli.c - see cli.h. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include "figure.h"
#include "picture.h"
#include "tensor.h"

#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "i18n.h"
#include "number.h"

int cli_parse_int(const char *s, long lo, long hi, const char *what, long *out, AvError *err) {
    switch (num_parse_long(s, lo, hi, out)) {
    case NUM_OK: return 0;
    case NUM_OUT_OF_RANGE: return av_errorf(err, _("%s: %s is out of range %ld..%ld"), what, s, lo, hi);
    default: return av_errorf(err, _("%s: '%s' is not a whole number (expected %ld..%ld)"), what, s ? s : "", lo, hi);
    }
}

static int parse_seed(const char *s, uint64_t *out, AvError *err) {
    switch (num_parse_u64(s, out)) {
    case NUM_OK: return 0;
    case NUM_OUT_OF_RANGE: return av_errorf(err, _("--seed: %s is out of range 0..18446744073709551615"), s);
    default:
        return av_errorf(err, _("--seed: '%s' is not a whole number (expected 0..18446744073709551615)"), s ? s : "");
    }
}

enum {
    OPT_D_MODEL = 256,
    OPT_D_V,
    OPT_NO_SCALE,
    OPT_POS,
    OPT_QKV,
    OPT_MODEL,
    OPT_VOCAB,
    OPT_LAYER,
    OPT_GENERATE,
    OPT_PATTERN,
    OPT_DUMP,
    OPT_ONCE,
    OPT_WIDTH,
    OPT_VIEW,
    OPT_NO_MOUSE,
    OPT_COLOR,
    OPT_THEME,
    OPT_ASCII,
    OPT_SCORE,
    OPT_TIE,
    OPT_TARGET,
    OPT_ATTN,
    OPT_PAD,
    OPT_MASK_FILE,
    OPT_THREADS,
    OPT_HEAD,
    OPT_STAGE,
    OPT_EXPORT,
    OPT_FORCE,
    OPT_FIGURE,
    OPT_NUMBERS,
    OPT_LESSON,
    OPT_MODELS,
    OPT_LANG,
    OPT_STEP,
    OPT_PRESENT,
    OPT_PUBLISH,
    OPT_PUBLISH_MODE,
    OPT_FOLLOW,
    OPT_MAX_TOKENS,
    OPT_ABLATE,
    OPT_LENS_TOKEN,
    OPT_PATCH_FROM,
    OPT_METRIC,
};

static const struct option long_options[] = {
    {"file", required_argument, NULL, 'f'},
    {"d-model", required_argument, NULL, OPT_D_MODEL},
    {"heads", required_argument, NULL, 'H'},
    {"d-k", required_argument, NULL, 'k'},
    {"d-v", required_argument, NULL, OPT_D_V},
    {"mask", required_argument, NULL, 'm'},
    {"no-scale", no_argument, NULL, OPT_NO_SCALE},
    {"pos", required_argument, NULL, OPT_POS},
    {"seed", required_argument, NULL, 's'},
    {"tokenizer", required_argument, NULL, 't'},
    {"pattern", required_argument, NULL, OPT_PATTERN},
    {"qkv", required_argument, NULL, OPT_QKV},
    {"model", required_argument, NULL, OPT_MODEL},
    {"vocab", required_argument, NULL, OPT_VOCAB},
    {"layer", required_argument, NULL, OPT_LAYER},
    {"generate", required_argument, NULL, OPT_GENERATE},
    {"dump", optional_argument, NULL, OPT_DUMP},
    {"once", no_argument, NULL, OPT_ONCE},
    {"width", required_argument, NULL, OPT_WIDTH},
    {"view", required_argument, NULL, OPT_VIEW},
    {"no-mouse", no_argument, NULL, OPT_NO_MOUSE},
    {"color", required_argument, NULL, OPT_COLOR},
    {"colour", required_argument, NULL, OPT_COLOR},
    {"theme", required_argument, NULL, OPT_THEME},
    {"ascii", no_argument, NULL, OPT_ASCII},
    {"score", required_argument, NULL, OPT_SCORE},
    {"tie-qk", no_argument, NULL, OPT_TIE},
    {"target", required_argument, NULL, OPT_TARGET},
    {"attn", required_argument, NULL, OPT_ATTN},
    {"pad", required_argument, NULL, OPT_PAD},
    {"max-tokens", required_argument, NULL, OPT_MAX_TOKENS},
    {"mask-file", required_argument, NULL, OPT_MASK_FILE},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"head", required_argument, NULL, OPT_HEAD},
    {"stage", required_argument, NULL, OPT_STAGE},
    {"export", required_argument, NULL, OPT_EXPORT},
    {"force", no_argument, NULL, OPT_FORCE},
    {"figure", optional_argument, NULL, OPT_FIGURE},
    {"numbers", no_argument, NULL, OPT_NUMBERS},
    {"lesson", required_argument, NULL, OPT_LESSON},
    {"models", no_argument, NULL, OPT_MODELS},
    {"lang", required_argument, NULL, OPT_LANG},
    {"step", required_argument, NULL, OPT_STEP},
    {"present", no_argument, NULL, OPT_PRESENT},
    {"publish", required_argument, NULL, OPT_PUBLISH},
    {"publish-mode", required_argument, NULL, OPT_PUBLISH_MODE},
    {"follow", required_argument, NULL, OPT_FOLLOW},
    {"ablate", required_argument, NULL, OPT_ABLATE},
    {"lens-token", required_argument, NULL, OPT_LENS_TOKEN},
    {"patch-from", required_argument, NULL, OPT_PATCH_FROM},
    {"metric", required_argument, NULL, OPT_METRIC},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

/* --lang's value where the options give a valid one (the last), else NULL:
 * looked for before the parse, so that its messages are in that language. */
const char *cli_lang(int argc, char **argv) {
    char **copy = malloc(sizeof *copy * (size_t)(argc + 1)); /* getopt permutes its argv */
    if (!copy) return NULL;
    memcpy(copy, argv, sizeof *copy * (size_t)argc);
    copy[argc] = NULL;
    const char *lang = NULL;
    optind = 0;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, copy, ":f:H:k:m:s:t:hV", long_options, NULL)) != -1)
        if (c == OPT_LANG && (strcmp(optarg, "en") == 0 || strcmp(optarg, "ko") == 0)) lang = optarg;
    free(copy);
    optind = 0;
    return lang;
}

/* --stage's names: the v cycle's tensors (tensor.h). */
static const struct {
    const char *name;
    Tensor t;
} stages[] = {{"weights", TENSOR_WEIGHTS}, {"scores", TENSOR_SCORES}, {"scaled", TENSOR_SCALED},
              {"masked", TENSOR_MASKED},   {"output", TENSOR_OUTPUT}, {"x", TENSOR_X},
              {"pe", TENSOR_PE},           {"concat", TENSOR_CONCAT}, {"y", TENSOR_Y}};

const char *cli_stages(void) { return _("weights, scores, scaled, masked, output, x, pe, concat or y"); }

const char *cli_stage_name(int t) {
    for (size_t i = 0; i < sizeof stages / sizeof *stages; i++)
        if ((int)stages[i].t == t) return stages[i].name;
    return "weights";
}

int cli_stage_parse(const char *s) {
    for (size_t i = 0; i < sizeof stages / sizeof *stages; i++)
        if (strcmp(s, stages[i].name) == 0) return (int)stages[i].t;
    return -1;
}

/* TEXT...: the arguments joined by spaces (malloc'd; NULL when out of memory). */
static char *join_args(int argc, char **argv) {
    size_t len = 0;
    for (int i = 0; i < argc; i++) len += strlen(argv[i]) + 1;
    char *s = malloc(len + 1);
    if (!s) return NULL;
    size_t at = 0;
    for (int i = 0; i < argc; i++) {
        if (i) s[at++] = ' ';
        size_t n = strlen(argv[i]);
        memcpy(s + at, argv[i], n);
        at += n;
    }
    s[at] = '\0';
    return s;
}

void cli_free(CliOptions *o) {
    if (!o) return;
    free(o->text);
    o->text = NULL;
}

/* What the parse saw, for the checks of the options together. */
typedef struct {
    int d_model, heads, seed, tokenizer, attn; /* given on the command line */
    int score_scale;                           /* --score dot / scaled set the scaling; -1: not given */
} Given;

/* One option of the model (--help's "Model:"). Returns 1 when c is one, 0
 * when it is not, -1 with err set for a bad value. */
static int model_option(CliOptions *o, Given *g, int c, AvError *err) {
    long v;
    switch (c) {
    case OPT_D_MODEL:
        if (cli_parse_int(optarg, 1, MODEL_MAX_DIM, "--d-model", &v, err)) return -1;
        o->cfg.d_model = (int)v, g->d_model = 1;
        break;
    case 'H':
        if (cli_parse_int(optarg, 1, MODEL_MAX_HEADS, "--heads", &v, err)) return -1;
        o->cfg.heads = (int)v, g->heads = 1;
        break;
    case 'k':
        if (cli_parse_int(optarg, 1, MODEL_MAX_DIM, "--d-k", &v, err)) return -1;
        o->cfg.d_k = (int)v, o->dk_given = 1;
        break;
    case OPT_D_V:
        if (cli_parse_int(optarg, 1, MODEL_MAX_DIM, "--d-v", &v, err)) return -1;
        o->cfg.d_v = (int)v, o->dv_given = 1;
        break;
    case 'm':
        if (mask_parse(optarg, &o->cfg.mask, &o->cfg.window, &o->cfg.prefix, err))
            return av_error_prefix(err, "--mask");
        o->mask_given = 1;
        break;
    case OPT_SCORE: {
        int scale = o->cfg.scale;
        if (score_parse(optarg, &o->cfg.score, &scale, err)) return av_error_prefix(err, "--score");
        if (strcmp(optarg, "dot") == 0 || strcmp(optarg, "scaled") == 0) g->score_scale = scale;
        break;
    }
    case OPT_TIE: o->cfg.tie_qk = 1; break;
    case OPT_TARGET: o->target = optarg; break;
    case OPT_ATTN:
        if (attn_mode_parse(optarg, &o->cfg.attn, err)) return av_error_prefix(err, "--attn");
        g->attn = 1;
        break;
    case OPT_PAD:
        if (cli_parse_int(optarg, 0, TOK_MAX_TOKENS, "--pad", &v, err)) return -1;
        o->pad = (int)v;
        break;
    case OPT_MAX_TOKENS:
        if (cli_parse_int(optarg, 1, TOK_MAX_TOKENS, "--max-tokens", &v, err)) return -1;
        o->max_tokens = (int)v;
        break;
    case OPT_MASK_FILE: o->mask_file = optarg; break;
    case OPT_NO_SCALE: o->cfg.scale = 0; break;
    case OPT_POS:
        if (pos_parse(optarg, &o->cfg.pos, err)) return av_error_prefix(err, "--pos");
        break;
    case 's':
        if (parse_seed(optarg, &o->cfg.seed, err)) return -1;
        g->seed = 1;
        break;
    default: return 0;
    }
    return 1;
}

/* One option of the input (--help's "Input:"): returns as model_option
 * does. */
static int input_option(CliOptions *o, Given *g, int c, AvError *err) {
    long v;
    switch (c) {
    case 'f': o->file = optarg; break;
    case 't':
        if (tok_preset_parse(optarg, &o->tokenizer) || o->tokenizer == TOK_CUSTOM)
            return av_errorf(err, _("--tokenizer: unknown tokenizer '%s' (expected words, gpt2 or chars)"), optarg);
        g->tokenizer = 1;
        break;
    case OPT_PATTERN:
        if (optarg[0] == '\0') return av_errorf(err, _("--pattern: the pattern is empty"));
        o->pattern = optarg;
        break;
    case OPT_QKV: o->qkv_file = optarg; break;
    case OPT_MODEL: o->model_file = optarg; break;
    case OPT_VOCAB: o->vocab_file = optarg; break;
    case OPT_LAYER:
        if (cli_parse_int(optarg, 1, 1024, "--layer", &v, err)) return -1;
        o->layer = (int)v;
        break;
    case OPT_GENERATE:
        if (cli_parse_int(optarg, 1, 1000000, "--generate", &v, err)) return -1;
        o->generate = (int)v;
        break;
    default: return 0;
    }
    return 1;
}

/* One option of the output (--help's "Output:": the views, dumps, pictures
 * and the terminal): returns as model_option does. */
static int output_option(CliOptions *o, int c, AvError *err) {
    long v;
    switch (c) {
    case OPT_THREADS:
        if (cli_parse_int(optarg, 1, 64, "--threads", &v, err)) return -1;
        o->threads = (int)v;
        break;
    case OPT_DUMP:
        o->dump = 1;
        o->dump_format = EXPORT_TEXT;
        o->dump_tokens = optarg && strcmp(optarg, "tokens") == 0;
        o->dump_heads = !optarg ? 0 : strcmp(optarg, "heads") == 0 ? 1 : strcmp(optarg, "heads-csv") == 0 ? 2 : 0;
        o->dump_lens = !optarg                        ? 0
                       : strcmp(optarg, "lens") == 0  ? 1
                       : strcmp(optarg, "sweep") == 0 ? 2
                       : strcmp(optarg, "patch") == 0 ? 3
                                                      : 0;
        if (optarg && !o->dump_tokens && !o->dump_heads && !o->dump_lens &&
            export_parse_format(optarg, &o->dump_format))
            return av_errorf(err,
                             _("--dump: unknown format '%s' (expected text, json, csv, tokens, heads, heads-csv, lens, "
                               "sweep or patch)"),
                             optarg);
        break;
    case OPT_ABLATE:
        if (cli_parse_ablate(optarg, o->ablate, &o->n_ablate, err)) return -1;
        break;
    case OPT_PATCH_FROM: o->patch_from = optarg; break;
    case OPT_METRIC:
        if (!strchr(optarg, ',') || optarg[0] == ',' || optarg[strlen(optarg) - 1] == ',')
            return av_errorf(err, _("--metric: expected two tokens A,B (logit(A) - logit(B)), got '%s'"), optarg);
        o->metric = optarg;
        break;
    case OPT_LENS_TOKEN:
        if (!optarg[0]) return av_errorf(err, _("--lens-token: the piece is empty"));
        o->lens_token = optarg;
        break;
    case OPT_ONCE: o->once = 1; break;
    case OPT_WIDTH:
        if (cli_parse_int(optarg, 20, 1000, "--width", &v, err)) return -1;
        o->width = (int)v;
        break;
    case OPT_VIEW: {
        ViewKind kind;
        if (app_view_parse(optarg, &kind))
            return av_errorf(err,
                             _("--view: unknown view '%s' (expected heatmap, heads, pipeline, gravity, census, "
                               "classes, zoom or lens)"),
                             optarg);
        o->view = optarg;
        break;
    }
    case OPT_NO_MOUSE: o->mouse = 0; break;
    case OPT_COLOR:
        if (strcmp(optarg, "auto") == 0) o->color = COLOR_AUTO;
        else if (strcmp(optarg, "always") == 0) o->color = COLOR_ALWAYS;
        else if (strcmp(optarg, "never") == 0) o->color = COLOR_NEVER;
        else return av_errorf(err, _("--color: unknown value '%s' (expected auto, always or never)"), optarg);
        break;
    case OPT_THEME:
        if (strcmp(optarg, "auto") == 0) o->theme = 0;
        else if (strcmp(optarg, "dark") == 0) o->theme = 1;
        else if (strcmp(optarg, "light") == 0) o->theme = 2;
        else return av_errorf(err, _("--theme: unknown value '%s' (expected auto, dark or light)"), optarg);
        break;
    case OPT_ASCII: o->ascii = 1; break;
    case OPT_HEAD:
        if (cli_parse_int(optarg, 1, MODEL_MAX_HEADS, "--head", &v, err)) return -1;
        o->head = (int)v;
        break;
    case OPT_STAGE:
        if ((o->stage = cli_stage_parse(optarg)) < 0)
            return av_errorf(err, _("--stage: unknown stage '%s' (expected %s)"), optarg, cli_stages());
        break;
    case OPT_EXPORT: o->export_file = optarg; break;
    case OPT_FORCE: o->force = 1; break;
    case OPT_FIGURE:
        if (!optarg || strcmp(optarg, "head") == 0) o->figure = 1 + FIG_HEAD;
        else if (strcmp(optarg, "heads") == 0) o->figure = 1 + FIG_HEADS;
        else if (strcmp(optarg, "layers") == 0) o->figure = 1 + FIG_LAYERS;
        else return av_errorf(err, _("--figure: unknown kind '%s' (expected head, heads or layers)"), optarg);
        break;
    case OPT_NUMBERS: o->numbers = 1; break;
    case 'h': o->help = 1; break;
    case 'V': o->version = 1; break;
    default: return 0;
    }
    return 1;
}

/* One option of the lessons and the class (--lesson .. --follow): returns
 * as model_option does. */
static int class_option(CliOptions *o, int c, AvError *err) {
    long v;
    switch (c) {
    case OPT_LESSON: o->lesson = optarg; break;
    case OPT_MODELS: o->models = 1; break;
    case OPT_PRESENT: o->present = 1; break;
    case OPT_LANG:
        if (strcmp(optarg, "en") && strcmp(optarg, "ko"))
            return av_errorf(err, _("--lang: unknown language '%s' (expected en or ko)"), optarg);
        o->lang = optarg;
        break;
    case OPT_STEP:
        if (cli_parse_int(optarg, 1, 200, "--step", &v, err)) return -1;
        o->step = (int)v;
        break;
    case OPT_PUBLISH: o->publish = optarg; break;
    case OPT_PUBLISH_MODE: {
        /* 1 to 4 octal digits; the owner keeps read and write */
        long v = 0;
        size_t n = strlen(optarg);
        int ok = n >= 1 && n <= 4;
        for (size_t i = 0; ok && i < n; i++) ok = optarg[i] >= '0' && optarg[i] <= '7', v = v * 8 + (optarg[i] - '0');
        if (!ok || v > 0777 || (v & 0600) != 0600)
            return av_errorf(err,
                             _("--publish-mode: '%s' is not an octal mode with the owner's read and write "
                               "(0600: you, 0660: your group, 0666: everyone)"),
                             optarg);
        o->publish_mode = (int)v;
        break;
    }
    case OPT_FOLLOW: o->follow = optarg; break;
    default: return 0;
    }
    return 1;
}

/* --publish, --publish-mode, --follow: with what they go. */
static int follow_options_check(const CliOptions *o, AvError *err) {
    const char *which = o->publish ? "--publish" : "--follow";
    if (o->publish_mode >= 0 && !o->publish) return av_errorf(err, _("--publish-mode: goes with --publish PATH"));
    if (!o->publish && !o->follow) return 0;
    if (o->publish && o->follow) return av_errorf(err, _("--publish and --follow: choose one"));
    if ((o->publish && !o->publish[0]) || (o->follow && !o->follow[0]))
        return av_errorf(err, _("%s: the path is empty"), which);
    if (o->dump || o->once || o->export_file || o->generate)
        return av_errorf(err, _("%s: goes with the interactive view; not with --dump, --once, --export or --generate"),
                         which);
    if (o->follow && o->lesson)
        return av_errorf(err, _("--follow: the teacher's attnviz has the lesson (its captions come with the stream); "
                                "not with --lesson"));
    return 0;
}

/* What getopt could not take: a missing value (':'), an unknown option, or
 * a value given to an option without one. Returns -1 with err set. */
static int option_error(int c, int argc, char **argv, AvError *err) {
    const char *a = optind > 0 && optind - 1 < argc ? argv[optind - 1] : "?";
    if (c == ':') return av_errorf(err, _("%s: needs a value"), a);
    const char *eq = strchr(a, '=');
    if (strncmp(a, "--", 2) == 0 && eq && optopt)
        return av_errorf(err, _("%.*s: does not take a value"), (int)(eq - a), a);
    if (strncmp(a, "--", 2) == 0) return av_errorf(err, _("%s: unknown or ambiguous option"), a);
    return av_errorf(err, _("-%c: unknown option"), optopt ? optopt : '?');
}

/* --model, --vocab, --layer, --generate, --dump=tokens: with what they go. */
static int model_options_check(CliOptions *o, const Given *g, AvError *err) {
    if (o->dump_heads && !o->model_file) return av_errorf(err, _("--dump=heads: needs --model PATH"));
    if (o->dump_lens && !o->model_file)
        return av_errorf(err, o->dump_lens == 1   ? _("--dump=lens: needs --model PATH")
                              : o->dump_lens == 2 ? _("--dump=sweep: needs --model PATH")
                                                  : _("--dump=patch: needs --model PATH"));
    if (o->dump_lens == 3 && (!o->patch_from || !o->metric))
        return av_errorf(err, _("--dump=patch: needs --patch-from TEXT (the corrupted prompt) and --metric A,B"));
    if ((o->patch_from || o->metric) && o->dump_lens != 3)
        return av_errorf(err, _("--patch-from and --metric: go with --dump=patch"));
    if (o->dump_lens == 3 && o->n_ablate)
        return av_errorf(err, _("--dump=patch: patches the model as it is; not with --ablate"));
    if (o->lens_token && !o->dump_lens) return av_errorf(err, _("--lens-token: goes with --dump=lens or --dump=sweep"));
    if (o->n_ablate && !o->model_file) return av_errorf(err, _("--ablate: needs --model PATH"));
    if (o->n_ablate && o->dump_heads)
        return av_errorf(err, _("--ablate: the head tests score the model as it is; not with --dump=heads"));
    if (o->dump_tokens && !o->model_file && !o->vocab_file)
        return av_errorf(err, _("--dump=tokens: needs --model PATH or --vocab FILE"));
    if (!o->model_file) {
        if (o->vocab_file && !o->dump_tokens)
            return av_errorf(err, _("--vocab: needs --model PATH (or --dump=tokens to tokenize only)"));
        if (o->layer) return av_errorf(err, _("--layer: needs --model PATH"));
        if (o->generate) return av_errorf(err, _("--generate: needs --model PATH"));
        return 0;
    }
    if (o->qkv_file) return av_errorf(err, _("--model and --qkv: choose one source of Q, K and V"));
    if (o->max_tokens)
        return av_errorf(err, _("--max-tokens: cuts the seeded sentence; a trained model's tokenizer and context "
                                "(its seq_len) are its own: give it a shorter text"));
    if (g->d_model || g->heads || o->dk_given || o->dv_given || o->pattern || o->cfg.pos != POS_NONE || g->seed ||
        g->tokenizer || o->target || o->pad || o->cfg.tie_qk || o->cfg.attn != ATTN_SELF || o->cfg.score != SCORE_DOT)
        return av_errorf(err, _("--model: the model gives its shapes, weights, tokenizer and score; --d-model, "
                                "--heads, --d-k, --d-v, --pos, --seed, --tokenizer, --pattern, --target, --pad, "
                                "--tie-qk, --attn and --score do not apply"));
    if (o->generate && (o->dump || o->once))
        return av_errorf(err, _("--generate: prints text; not with --dump or --once"));
    if (!o->mask_given) o->cfg.mask = MASK_CAUSAL; /* a trained decoder is causal */
    return 0;
}

/* --export, --figure, --numbers, --force: with what they go. */
static int export_options_check(const CliOptions *o, AvError *err) {
    if (!o->export_file) {
        if (o->figure) return av_errorf(err, _("--figure: needs --export FILE (.svg, .png or .pdf)"));
        if (o->numbers) return av_errorf(err, _("--numbers: goes with --figure and --export FILE"));
        if (o->force) return av_errorf(err, _("--force: goes with --export FILE"));
        return 0;
    }
    if (o->dump || o->generate) return av_errorf(err, _("--export: draws a picture; not with --dump or --generate"));
    if (o->numbers && !o->figure) return av_errorf(err, _("--numbers: goes with --figure (the screen has its own)"));
    PictureFormat f;
    if (picture_format_of(o->export_file, &f))
        return av_errorf(err, _("--export: '%s' has no picture extension (%s)"), o->export_file,
                         o->figure ? _(".svg, .png or .pdf") : _(".svg, .png or .html; --figure also .pdf"));
    if (o->figure && f == PIC_HTML)
        return av_errorf(err, _("--figure: SVG, PNG or PDF, not HTML (the screen is HTML)"));
    if (!o->figure && f == PIC_PDF)
        return av_errorf(err, _("--export: a PDF is a --figure (the screen: .svg, .png, .html)"));
    return 0;
}

/* The options together: what cannot go with what (in this order: the first
 * conflict is the one named), then the defaults that follow other options. */
static int options_check(CliOptions *o, const Given *g, AvError *err) {
    if (o->text && o->file) return av_errorf(err, _("give the sentence either as TEXT or with -f FILE, not both"));
    if (o->qkv_file && (o->text || o->file))
        return av_errorf(err, _("--qkv: Q, K and V come from the file; do not also give a sentence"));
    /* The seed draws additive attention's W1, W2 and v: it applies then. */
    if (o->qkv_file && (g->d_model || g->heads || o->dk_given || o->dv_given || o->pattern || o->cfg.pos != POS_NONE ||
                        (g->seed && o->cfg.score != SCORE_ADDITIVE) || g->tokenizer))
        return av_errorf(err, _("--qkv: the file gives Q, K and V; --d-model, --heads, --d-k, --d-v, "
                                "--pos, --tokenizer, --pattern and (but for --score additive) --seed do not apply"));
    if (model_options_check(o, g, err)) return -1;
    if (o->pattern) o->tokenizer = TOK_CUSTOM;
    if (g->score_scale == 1 && !o->cfg.scale) return av_errorf(err, _("--score scaled and --no-scale: choose one"));
    if (g->score_scale == 0) o->cfg.scale = 0;
    if (o->qkv_file && (o->target || o->pad || o->max_tokens || o->cfg.tie_qk || o->cfg.attn != ATTN_SELF))
        return av_errorf(err, _("--qkv: --target, --pad, --max-tokens, --tie-qk and --attn need a sentence, not a "
                                "Q/K/V file"));
    /* A target means cross-attention unless --attn says otherwise; self-
     * attention has no use for one. */
    if (o->target && !g->attn) o->cfg.attn = ATTN_CROSS;
    if (o->target && o->cfg.attn == ATTN_SELF)
        return av_errorf(err, _("--target: self-attention uses only the sentence; give --attn cross (the target's "
                                "queries) or causal-self (the target's own masked attention)"));
    if (o->cfg.attn == ATTN_CROSS && !o->target)
        return av_errorf(err, _("--attn cross: needs a target sentence (--target TEXT)"));
    if (o->target && o->target[0] == '\0') return av_errorf(err, _("--target: the sentence is empty"));
    if (o->mask_file && !o->mask_given) o->cfg.mask = MASK_PAINTED;
    /* The seeded sentence starts causal (masking's effect is the first lesson);
     * a Q/K/V file's rows and cross-attention's keys are no sequence in time. */
    if (!o->mask_given && !o->mask_file && !o->qkv_file && o->cfg.attn != ATTN_CROSS) o->cfg.mask = MASK_CAUSAL;
    /* Causal-self starts causal, unless a mask (or a painted one) is given. */
    if (o->cfg.attn == ATTN_CAUSAL_SELF && !o->mask_given && !o->mask_file) o->cfg.mask = MASK_CAUSAL;
    if (o->dump && o->once) return av_errorf(err, _("--dump and --once: choose one"));
    if (export_options_check(o, err)) return -1;
    if (o->step && !o->lesson) return av_errorf(err, _("--step: goes with --lesson"));
    if (o->lesson && (o->dump || o->generate || o->qkv_file))
        return av_errorf(err, _("--lesson: a lesson is on the screen; not with --dump, --generate or --qkv"));
    if (follow_options_check(o, err)) return -1;
    if (!o->dk_given) {
        o->cfg.d_k = o->cfg.d_model / o->cfg.heads;
        if (o->cfg.d_k < 1) o->cfg.d_k = 1;
    }
    if (!o->dv_given) o->cfg.d_v = o->cfg.d_k;
    return 0;
}

int cli_parse(CliOptions *o, int argc, char **argv, AvError *err) {
    memset(o, 0, sizeof *o);
    model_config_default(&o->cfg);
    o->tokenizer = TOK_WORDS;
    o->mouse = 1;
    o->color = COLOR_AUTO;
    o->stage = -1;
    o->publish_mode = -1;
    Given given = {.score_scale = -1};
    optind = 0; /* GNU: restart scanning, so that the parser can run more than once */
    opterr = 0; /* our own messages */
    int c;
    while ((c = getopt_long(argc, argv, ":f:H:k:m:s:t:hV", long_options, NULL)) != -1) {
        int rc = model_option(o, &given, c, err);
        if (rc == 0) rc = input_option(o, &given, c, err);
        if (rc == 0) rc = output_option(o, c, err);
        if (rc == 0) rc = class_option(o, c, err);
        if (rc == 0) return option_error(c, argc, argv, err);
        if (rc < 0) return -1;
    }
    if (o->help || o->version) return 0;
    if (optind < argc) {
        o->text = join_args(argc - optind, argv + optind);
        if (!o->text) return av_error_nomem(err, _("out of memory"));
    }
    return options_check(o, &given, err);
}
