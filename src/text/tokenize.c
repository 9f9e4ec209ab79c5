/* tokenize.c - split a sentence into tokens with PCRE2; see tokenize.h.
 *
 * One Tokenizer owns a compiled pattern (JIT-compiled when the library can) and
 * the match data it reuses for every match. tok_split walks the text match by
 * match the way pcre2demo.c does, so patterns that can match the empty string
 * (a*, \b, (?=x), "") terminate; it records the non-empty matches, then copies
 * their texts into one arena and numbers them as a vocabulary. */
#include "tokenize.h"
#include "utf8.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cancel.h"
#include "hash.h"
#include "i18n.h"

/* ===== Presets ===== */

/* words: a run of letters, marks and numbers is a word, so a combining mark stays
 * with its letter (e + U+0301 is one token). ZWNJ/ZWJ (U+200C/U+200D) belong to
 * the word as well: Persian and Indic words contain them (UAX #29 rule WB4 keeps
 * them with the preceding character), and without them "می‌خواهم" would fall
 * apart into three tokens, one of them invisible.
 * Any other non-space character is a token of its own, taken as a whole grapheme
 * cluster (\X) rather than one code point, so that emoji stay whole: "❤️" is
 * U+2764 + U+FE0F (a mark), "👍🏽" carries a skin-tone modifier, a flag is two
 * regional indicators, and a family is several emoji joined by ZWJ. A plain
 * [^\s\p{L}\p{M}\p{N}] would cut each of these into pieces, some invisible.
 * Each punctuation mark is still one token ("?!" -> "?" "!"): punctuation has no
 * cluster-extending successor. (Known edge: an Arabic number sign U+0600..U+0605,
 * a "prepend" character, takes the first digit after it into its cluster.) */
static const char TOK_WORDS_PATTERN[] = "[\\p{L}\\p{M}\\p{N}\\x{200C}\\x{200D}]+|(?![\\s\\p{L}\\p{M}\\p{N}])\\X";

/* gpt2: the pre-tokenizer regex of OpenAI's GPT-2 encoder.py, verbatim. */
static const char TOK_GPT2_PATTERN[] =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

/* chars: one extended grapheme cluster per token, whitespace dropped. */
static const char TOK_CHARS_PATTERN[] = "(?!\\s)\\X";

static const char *const TOK_PRESET_NAMES[TOK_PRESET_COUNT] = {
    [TOK_WORDS] = "words",
    [TOK_GPT2] = "gpt2",
    [TOK_CHARS] = "chars",
    [TOK_CUSTOM] = "custom",
};

static const char *const TOK_PRESET_PATTERNS[TOK_PRESET_COUNT] = {
    [TOK_WORDS] = TOK_WORDS_PATTERN,
    [TOK_GPT2] = TOK_GPT2_PATTERN,
    [TOK_CHARS] = TOK_CHARS_PATTERN,
    [TOK_CUSTOM] = NULL,
};

const char *tok_preset_name(TokPreset p) {
    if ((int)p < 0 || p >= TOK_PRESET_COUNT) return "unknown";
    return TOK_PRESET_NAMES[p];
}

const char *tok_preset_pattern(TokPreset p) {
    if ((int)p < 0 || p >= TOK_PRESET_COUNT) return NULL;
    return TOK_PRESET_PATTERNS[p];
}

int tok_preset_parse(const char *name, TokPreset *out) {
    if (!name || !out) return -1;
    for (int p = 0; p < TOK_PRESET_COUNT; p++) {
        if (strcmp(name, TOK_PRESET_NAMES[p]) == 0) {
            *out = (TokPreset)p;
            return 0;
        }
    }
    return -1;
}

/* ===== Tokenizer ===== */

struct Tokenizer {
    TokPreset preset;
    char *pattern;              /* owned copy of the regex in use */
    pcre2_code *code;           /* compiled pattern */
    pcre2_match_data *match;    /* reused by every match; sized for the pattern */
    int jit;                    /* 1 when pcre2_jit_compile succeeded */
    pcre2_match_context *ctx;   /* the per-match limits (TOK_MATCH_LIMIT...) */
    pcre2_jit_stack *jit_stack; /* room for JIT's backtracking (NULL: PCRE2's 32 KiB) */
    double time_budget;         /* seconds one tok_split may take */
    int crlf_is_newline;        /* CR LF is one newline: step over it as a unit */
};

static char *tok_strdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

Tokenizer *tok_new(TokPreset preset, const char *pattern, AvError *err) {
    if ((int)preset < 0 || preset >= TOK_PRESET_COUNT) {
        av_errorf(err, _("unknown tokenizer preset %d"), (int)preset);
        return NULL;
    }
    const char *source = preset == TOK_CUSTOM ? pattern : TOK_PRESET_PATTERNS[preset];
    /* Messages about a custom pattern name the option the user typed it into. */
    const char *who = preset == TOK_CUSTOM ? "--pattern" : TOK_PRESET_NAMES[preset];
    if (!source) {
        av_errorf(err, _("%s: no pattern given"), who);
        return NULL;
    }

    Tokenizer *t = calloc(1, sizeof *t);
    if (!t) {
        av_error_nomem(err, _("%s: out of memory"), who);
        return NULL;
    }
    t->preset = preset;
    t->pattern = tok_strdup(source);
    if (!t->pattern) {
        tok_free(t);
        av_error_nomem(err, _("%s: out of memory"), who);
        return NULL;
    }

    /* UCP makes \s, \w, \d and \b Unicode-aware: without it U+3000 IDEOGRAPHIC
     * SPACE would not be \s and Korean text would not split at it.
     * NEVER_BACKSLASH_C forbids \C, the one construct that can end a match in
     * the middle of a UTF-8 character; tok_split relies on every match ending on
     * a character boundary to skip PCRE2's UTF check after the first match. */
    int code_err = 0;
    PCRE2_SIZE err_offset = 0;
    t->code = pcre2_compile((PCRE2_SPTR)source, PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_UCP | PCRE2_NEVER_BACKSLASH_C,
                            &code_err, &err_offset, NULL);
    if (!t->code) {
        PCRE2_UCHAR reason[256];
        pcre2_get_error_message(code_err, reason, sizeof reason);
        tok_free(t);
        av_errorf(err, _("%s: %s at offset %zu"), who, (const char *)reason, (size_t)err_offset);
        return NULL;
    }

    /* JIT is an optimisation only: a library built without it, or a pattern it
     * cannot handle, still matches correctly through the interpreter. */
    t->jit = pcre2_jit_compile(t->code, PCRE2_JIT_COMPLETE) == 0;

    t->match = pcre2_match_data_create_from_pattern(t->code, NULL);
    t->ctx = pcre2_match_context_create(NULL);
    if (!t->match || !t->ctx) {
        tok_free(t);
        av_error_nomem(err, _("%s: out of memory"), who);
        return NULL;
    }

    /* Every match is bounded: steps, nesting depth and backtracking memory
     * (PCRE2's default heap limit is 20 GB: a nested group repeated a million
     * times grew to 5 GB before failing). The whole text is bounded by time. */
    pcre2_set_match_limit(t->ctx, TOK_MATCH_LIMIT);
    pcre2_set_depth_limit(t->ctx, TOK_DEPTH_LIMIT);
    pcre2_set_heap_limit(t->ctx, TOK_HEAP_LIMIT_KIB);
    t->time_budget = TOK_TIME_BUDGET;
    if (t->jit) {
        /* A larger JIT stack keeps more patterns on the fast path; when it is
         * not enough the interpreter takes over, within the heap limit. */
        t->jit_stack = pcre2_jit_stack_create(32 * 1024, TOK_JIT_STACK_BYTES, NULL);
        if (t->jit_stack) pcre2_jit_stack_assign(t->ctx, NULL, t->jit_stack);
    }

    /* The pattern may choose its newline convention with (*CRLF) and friends. */
    uint32_t newline = 0;
    pcre2_pattern_info(t->code, PCRE2_INFO_NEWLINE, &newline);
    t->crlf_is_newline =
        newline == PCRE2_NEWLINE_ANY || newline == PCRE2_NEWLINE_CRLF || newline == PCRE2_NEWLINE_ANYCRLF;
    return t;
}

void tok_free(Tokenizer *t) {
    if (!t) return;
    pcre2_match_data_free(t->match);
    pcre2_match_context_free(t->ctx);
    pcre2_jit_stack_free(t->jit_stack);
    pcre2_code_free(t->code);
    free(t->pattern);
    free(t);
}

TokPreset tok_preset(const Tokenizer *t) { return t->preset; }
const char *tok_pattern(const Tokenizer *t) { return t->pattern; }
int tok_uses_jit(const Tokenizer *t) { return t->jit; }
void tok_set_time_budget(Tokenizer *t, double seconds) { t->time_budget = seconds > 0 ? seconds : TOK_TIME_BUDGET; }

/* ===== Splitting ===== */

void tok_list_free(TokenList *list) {
    if (!list) return;
    free(list->tok);
    free(list->arena);
    memset(list, 0, sizeof *list);
}

/* The offset of the character after the one at `at` (at < len). Used to step
 * over a position where only an empty match exists: stepping one byte would
 * land inside a multi-byte character, which PCRE2 must never be given with
 * PCRE2_NO_UTF_CHECK. */
static size_t tok_next_char(const unsigned char *s, size_t len, size_t at, int crlf) {
    if (crlf && at + 1 < len && s[at] == '\r' && s[at + 1] == '\n') return at + 2;
    at++;
    while (at < len && (s[at] & 0xc0) == 0x80) at++;
    return at;
}

/* Numbers tok[0..n) in order of first appearance (equal texts, equal ids) with
 * an open-addressing table of token indices; returns the vocabulary size, or
 * -1 when out of memory. */
static int tok_assign_ids(Token *tok, int n) {
    size_t cap = 16;
    while (cap < (size_t)n * 2) cap *= 2;   /* load <= 1/2 keeps probes short */
    int *slot = malloc(cap * sizeof *slot); /* index of the first token with a text, or -1 */
    if (!slot) return -1;
    for (size_t i = 0; i < cap; i++) slot[i] = -1;
    int vocab = 0;
    for (int i = 0; i < n; i++) {
        size_t h = (size_t)av_fnv1a(tok[i].text, tok[i].len) & (cap - 1);
        for (;;) {
            int j = slot[h];
            if (j < 0) {
                slot[h] = i;
                tok[i].id = vocab++;
                break;
            }
            if (tok[j].len == tok[i].len && memcmp(tok[j].text, tok[i].text, tok[i].len) == 0) {
                tok[i].id = tok[j].id;
                break;
            }
            h = (h + 1) & (cap - 1);
        }
    }
    free(slot);
    return vocab;
}

/* Records the match [start, end) in *tok (growing it), or fails when that
 * would make more than max_tokens tokens. Only offsets and lengths are kept
 * here; texts are copied once all matches are known, into one arena. */
static int tok_push(Token **tok, int *n, int *cap, int max_tokens, size_t start, size_t end, AvError *err) {
    if (*n >= max_tokens)
        return av_errorf(err, _("too many tokens: more than %d, the limit (token %d starts at byte offset %zu)"),
                         max_tokens, max_tokens + 1, start);
    if (*n == *cap) {
        /* Double, but never past max_tokens (and never overflow an int). */
        int ncap = *cap == 0 ? 16 : *cap > max_tokens / 2 ? max_tokens : *cap * 2;
        if (ncap > max_tokens) ncap = max_tokens;
        Token *nt = realloc(*tok, (size_t)ncap * sizeof *nt);
        if (!nt) return av_error_nomem(err, _("tokenizer: out of memory"));
        *tok = nt;
        *cap = ncap;
    }
    (*tok)[*n] = (Token){.text = NULL, .len = end - start, .offset = start, .id = -1};
    (*n)++;
    return 0;
}

static double tok_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Why a match stopped at a limit, short enough for the status line. */
static int tok_limit_error(AvError *err, int rc, size_t offset, size_t len) {
    if (rc == PCRE2_ERROR_MATCHLIMIT)
        return av_errorf(err,
                         _("pattern backtracks too much: one match over %d steps at byte %zu of %zu "
                           "(PCRE2 match limit; nested repeats like (a+)+?)"),
                         TOK_MATCH_LIMIT, offset, len);
    if (rc == PCRE2_ERROR_HEAPLIMIT)
        return av_errorf(err,
                         _("pattern backtracks too much: one match over %d MiB at byte %zu of %zu "
                           "(PCRE2 heap limit; a repeated group?)"),
                         TOK_HEAP_LIMIT_KIB / 1024, offset, len);
    return av_errorf(err,
                     _("pattern nests too deeply: one match over %d levels at byte %zu of %zu (PCRE2 depth limit)"),
                     TOK_DEPTH_LIMIT, offset, len);
}

/* Runs every match of t over s[0..len) and records the non-empty ones, within
 * the time budget (checked between matches; one match is bounded by the
 * match limit, a few milliseconds) and while nobody asks to cancel. */
static int tok_find_matches(Tokenizer *t, const unsigned char *s, size_t len, int max_tokens, Token **tok, int *n,
                            AvError *err) {
    int cap = 0;
    double deadline = tok_now() + t->time_budget;
    unsigned calls = 0;
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(t->match);
    size_t offset = 0;
    uint32_t retry = 0;    /* NOTEMPTY_ATSTART|ANCHORED right after an empty match */
    uint32_t no_check = 0; /* the first match validates all of s; later ones need not */
    for (;;) {
        /* The clock is read every 64 matches (a plain pattern makes a match
         * in well under a microsecond); the cancel flag at every match. */
        if (av_cancelled()) return av_errorf(err, _("tokenizing cancelled at byte %zu of %zu"), offset, len);
        if ((++calls & 63) == 0 || calls < 64) {
            if (tok_now() > deadline)
                return av_errorf(err, _("pattern backtracks too much: stopped after %g s at byte %zu of %zu"),
                                 t->time_budget, offset, len);
        }
        uint32_t options = retry | no_check;
        int rc = pcre2_match(t->code, s, len, offset, options, t->match, t->ctx);
        /* JIT's stack is fixed; the interpreter keeps its backtracking on the
         * heap (within the heap limit), so give it the match instead of failing. */
        if (rc == PCRE2_ERROR_JIT_STACKLIMIT)
            rc = pcre2_match(t->code, s, len, offset, options | PCRE2_NO_JIT, t->match, t->ctx);
        if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_HEAPLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT)
            return tok_limit_error(err, rc, offset, len);

        if (rc == PCRE2_ERROR_NOMATCH) {
            if (!retry) return 0; /* no further match anywhere */
            /* Only an empty match at offset: step one character, as Perl does. */
            offset = tok_next_char(s, len, offset, t->crlf_is_newline);
            retry = 0;
            continue;
        }
        if (rc < 0) {
            PCRE2_UCHAR reason[256];
            pcre2_get_error_message(rc, reason, sizeof reason);
            if (rc <= PCRE2_ERROR_UTF8_ERR1 && rc >= PCRE2_ERROR_UTF8_ERR21) {
                /* After a UTF error PCRE2 puts the offset of the first byte of the
                 * malformed character in startchar (for "\xff" that byte itself,
                 * for a truncated sequence its lead byte). */
                size_t at = (size_t)pcre2_get_startchar(t->match);
                char why[96]; /* ours: PCRE2's "1 byte missing at end" did not say of what */
                utf8_invalid_reason((const char *)s, len, at, why, sizeof why);
                return av_errorf(err, _("invalid UTF-8 at byte offset %zu: %s"), at, why);
            }
            return av_errorf(err, _("tokenizer: matching failed at byte offset %zu: %s"), (size_t)offset,
                             (const char *)reason);
        }
        no_check = PCRE2_NO_UTF_CHECK;

        size_t start = ov[0], end = ov[1];
        if (end > start && tok_push(tok, n, &cap, max_tokens, start, end, err) < 0) return -1;

        retry = 0;
        if (start == end) {
            if (end == len) return 0;
            /* Look for a non-empty match at the same place before moving on. */
            retry = PCRE2_NOTEMPTY_ATSTART | PCRE2_ANCHORED;
            offset = end;
        } else {
            /* \K in a lookbehind could end a match where the search began, and
             * we would find the same match forever: move on a character. (PCRE2
             * forbids \K in lookarounds by default; this keeps the loop safe.) */
            size_t began = pcre2_get_startchar(t->match);
            if (end <= began) {
                if (began >= len) return 0;
                offset = tok_next_char(s, len, began, 0);
            } else {
                offset = end;
            }
        }
    }
}

int tok_split(Tokenizer *t, const char *text, size_t len, int max_tokens, TokenList *out, AvError *err) {
    memset(out, 0, sizeof *out);
    if (!t) return av_errorf(err, _("tokenizer: no tokenizer"));
    if (max_tokens < 0) return av_errorf(err, _("tokenizer: max_tokens %d is negative"), max_tokens);
    if (!text) {
        if (len > 0) return av_errorf(err, _("tokenizer: no text"));
        text = ""; /* PCRE2 10.42 rejects a NULL subject even when it is empty */
    }

    Token *tok = NULL;
    int n = 0;
    if (tok_find_matches(t, (const unsigned char *)text, len, max_tokens, &tok, &n, err) < 0) {
        free(tok);
        return -1;
    }
    if (n == 0) {
        free(tok);
        return 0;
    }

    /* Matches do not overlap, so the texts need at most len + n bytes. */
    size_t bytes = 0;
    for (int i = 0; i < n; i++) bytes += tok[i].len + 1;
    char *arena = malloc(bytes);
    if (!arena) {
        free(tok);
        return av_error_nomem(err, _("tokenizer: out of memory"));
    }
    char *p = arena;
    for (int i = 0; i < n; i++) {
        /* memcpy, not strcpy: a token may contain a NUL byte; len counts it. */
        memcpy(p, text + tok[i].offset, tok[i].len);
        p[tok[i].len] = '\0';
        tok[i].text = p;
        p += tok[i].len + 1;
    }

    int vocab = tok_assign_ids(tok, n);
    if (vocab < 0) {
        free(arena);
        free(tok);
        return av_error_nomem(err, _("tokenizer: out of memory"));
    }
    out->tok = tok;
    out->n = n;
    out->vocab = vocab;
    out->arena = arena;
    return 0;
}
