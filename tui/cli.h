/* cli.h - the command line of DESIGN.md §3, parsed into options without
 * side effects (no printing, no exit), so that tests and fuzzers can call it. */
#ifndef ATTNVIZ_CLI_H
#define ATTNVIZ_CLI_H

#include "error.h"
#include "export.h"
#include "model.h"
#include "tokenize.h"

#define ATTNVIZ_VERSION "0.1.0"

/* The sentence shown when none is given: the source texts' first example
 * ("재미있었다" needs "영화"), in English unless the locale is Korean; "movie"
 * repeats, so that positional encoding's effect on a repeated word shows. */
#define CLI_DEFAULT_TEXT    "I saw a movie yesterday and the movie was fun"
#define CLI_DEFAULT_TEXT_KO "나는 어제 친구와 영화를 봤는데, 그 영화는 정말 재미있었다"

/* The default sentence for the locale (LC_ALL, LC_MESSAGES, LANG: ko...). */
const char *cli_default_text(void);

typedef enum { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER } ColorMode;

typedef struct {
    ModelConfig cfg;        /* the model's configuration after defaults */
    int dk_given, dv_given; /* -k / --d-v were on the command line */
    char *text;             /* TEXT arguments joined by spaces (owned), or NULL */
    const char *file;       /* -f FILE ("-" is stdin), or NULL */
    const char *qkv_file;   /* --qkv FILE, or NULL */
    const char
        *model_file; /* --model PATH (a llama2.c checkpoint, a Hugging Face folder, a GGUF, ollama:, hf:), or NULL */
    int models;      /* --models: list the models found (discover.h) */
    const char *vocab_file; /* --vocab FILE (its tokenizer.bin), or NULL: beside the model */
    int layer;              /* --layer N (1-based), 0 when not given */
    int generate;           /* --generate N: the greedy continuation of N tokens, 0 when not given */
    int dump_tokens;        /* --dump=tokens: id <TAB> piece per token */
    int dump_heads;         /* --dump=heads (1, JSON) or heads-csv (2): the head tests (headrun.h) */
    int dump_lens;          /* --dump=lens (1): the logit lens (lens.h); sweep (2): the ablation sweep (sweep.h);
                               patch (3): activation patching (patch.h); JSON */
    const char *lens_token; /* --lens-token PIECE: its probability in the lens, or NULL */
    const char *patch_from; /* --patch-from TEXT: the corrupted prompt of --dump=patch, or NULL */
    const char *metric;     /* --metric A,B: logit(A) - logit(B), or NULL */
    HeadAblation ablate[SOURCE_MAX_ABLATED]; /* --ablate L.H,...[:zero|:mean], 0-based */
    int n_ablate;                            /* 0: not given */
    const char *target;                      /* --target TEXT, or NULL */
    const char *mask_file;                   /* --mask-file FILE, or NULL */
    int pad;                                 /* --pad N */
    int max_tokens;                          /* --max-tokens N: the sentence's first N tokens kept, 0 when not given */
    int threads;                             /* --threads N, 0: the online CPUs (at most 8) */
    int mask_given;                          /* --mask was on the command line */
    TokPreset tokenizer;
    const char *pattern; /* --pattern REGEX, or NULL */
    int dump;            /* --dump given */
    ExportFormat dump_format;
    int once;         /* --once given */
    int width;        /* --width N, 0 when not given */
    const char *view; /* --view NAME, or NULL */
    int mouse;        /* 0 with --no-mouse */
    ColorMode color;
    int theme; /* --theme: 0 auto (COLORFGBG, else dark), 1 dark, 2 light */
    int ascii;
    int head;                /* --head N (1-based), 0 when not given */
    int stage;               /* --stage NAME: a Tensor (tensor.h), -1 when not given */
    const char *export_file; /* --export FILE, or NULL */
    int force;               /* --force: --export may replace an existing file */
    int figure;              /* --figure[=KIND]: 0 none, else 1 + FigureKind (figure.h) */
    int numbers;             /* --numbers: a figure's values in its cells */
    const char *lesson;      /* --lesson NAME|FILE|list, or NULL */
    const char *lang;        /* --lang en|ko, or NULL: the locale's */
    int step;                /* --step N (1-based), 0 when not given */
    int present;             /* --present: projector mode */
    const char *publish;     /* --publish PATH: the state on a Unix socket for followers (follow.h), or NULL */
    int publish_mode;        /* --publish-mode MODE (octal), -1 when not given: 0600 */
    const char *follow;      /* --follow PATH: follow a teacher's attnviz, or NULL */
    int help, version;
} CliOptions;

/* Parses argv. On a bad option or value returns -1 with a one-line message
 * naming the option, the value and the accepted range. Free with cli_free. */
int cli_parse(CliOptions *o, int argc, char **argv, AvError *err);
void cli_free(CliOptions *o);

/* --stage NAME: the Tensor it names, or -1. cli_stages: the names, listed
 * for a message ("weights, scores, ... or y", in the reader's language). */
const char *cli_stages(void);
int cli_stage_parse(const char *s);
/* The name of a Tensor of --stage ("weights" for one that is none). */
const char *cli_stage_name(int t);

/* The --help text, in the reader's language (a static buffer: the next
 * call writes it again). */
const char *cli_usage(void);

/* The value of the last valid --lang in argv ("en" or "ko"), or NULL: read
 * before cli_parse, so that its messages are in that language. */
const char *cli_lang(int argc, char **argv);

/* --ablate's list "L.H[,L.H...][:zero|:mean]" (1-based; the ranges of a
 * model are checked when it is open) into out[0..*n), at most
 * SOURCE_MAX_ABLATED. 0, or -1 with a message naming --ablate. */
int cli_parse_ablate(const char *s, HeadAblation *out, int *n, AvError *err);

/* Strict decimal parsing for option values: the whole string, in [lo, hi].
 * Messages name `what` ("--heads"). */
int cli_parse_int(const char *s, long lo, long hi, const char *what, long *out, AvError *err);

#endif
