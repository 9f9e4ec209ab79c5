/* follow_block.c - the state-block protocol of follow.h: a block made from
 * the app and applied to it, and the reader of the stream (bytes in,
 * checked blocks out, no sockets: the tests feed it bytes). follow.c moves
 * the blocks over the sockets. */
#include "follow.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_internal.h"
#include "i18n.h"
#include "lesson.h"
#include "strbuf.h"
#include "tokenize.h"
#include "utf8.h"

// ----------------------------------------------------------------------------
// the block

/* s made fit for the caption command: a tab (and a line break but where
 * `nl`) as a space, other control and format characters and invalid bytes
 * left out, cut to `max` bytes at a character's end (malloc'd, or NULL). */
static char *caption_clean(const char *s, int nl, size_t max) {
    size_t len = strlen(s), n = 0;
    char *o = malloc(len + 1);
    if (!o) return NULL;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        int k = utf8_decode(s + i, len - i, &cp);
        const char *put = s + i;
        size_t pn = (size_t)k;
        if (cp == '\t' || (cp == '\n' && !nl)) put = " ", pn = 1;
        else if (cp == '\n') pn = 1;
        else if (cp == UTF8_INVALID || utf8_is_unsafe(cp)) pn = 0;
        if (n + pn > max) break;
        memcpy(o + n, put, pn);
        n += pn, i += (size_t)k;
    }
    o[n] = '\0';
    return o;
}

/* The caption command of the caption shown (lesson_caption_now). */
static void add_caption(StrBuf *b, const App *a) {
    char title[SCRIPT_CAPTION_MAX_TITLE + 64];
    const char *text = lesson_caption_now(a, title, sizeof title);
    if (!text) {
        strbuf_str(b, "caption\n");
        return;
    }
    char *t = caption_clean(title, 0, SCRIPT_CAPTION_MAX_TITLE), *x = caption_clean(text, 1, SCRIPT_CAPTION_MAX_TEXT);
    char *qt = t ? script_quote(t, strlen(t)) : NULL, *qx = x ? script_quote(x, strlen(x)) : NULL;
    if (!qt || !qx) b->oom = 1;
    else strbuf_str(b, "caption "), strbuf_str(b, qt), strbuf_str(b, " "), strbuf_str(b, qx), strbuf_str(b, "\n");
    free(t), free(x), free(qt), free(qx);
}

char *follow_block(const App *a, size_t *len) {
    size_t sn;
    char *state = script_state(a, &sn);
    if (!state) return NULL;
    StrBuf b = {0};
    strbuf_str(&b, FOLLOW_HEADER "\n");
    strbuf_add(&b, state, sn);
    free(state);
    add_caption(&b, a);
    strbuf_str(&b, FOLLOW_END "\n");
    if (b.oom) return free(b.p), NULL;
    if (len) *len = b.n;
    return b.p;
}

void follow_block_free(FollowBlock *b) {
    if (!b) return;
    for (int i = 0; i < b->n; i++) script_cmd_free(&b->cmd[i]);
    free(b->cmd), free(b->line);
    memset(b, 0, sizeof *b);
}

static int same_bytes(const char *a, size_t an, const char *b, size_t bn) {
    if (!a || !b) return !a && !b;
    return an == bn && memcmp(a, b, an) == 0;
}

/* 1 when the qkv line of `state` (a block of ours: the first after the
 * header, when the source is a Q/K/V file) gives c's matrices: the same
 * text, as script_quote writes it. */
static int same_qkv(const char *state, const ScriptCmd *c) {
    const char *s = state ? state + strlen(FOLLOW_HEADER "\n") : NULL;
    if (!s || strncmp(s, "qkv ", 4) != 0) return 0;
    const char *nl = strchr(s, '\n');
    char *q = script_quote(c->text, c->len);
    int same = q && nl && (size_t)(nl - s - 4) == strlen(q) && memcmp(s + 4, q, strlen(q)) == 0;
    free(q);
    return same;
}

/* 1 when c would change nothing that costs: the sentence, target,
 * tokenizer, <pad> tokens or Q/K/V matrices the app has already (each would
 * tokenize or switch the source, and recompute everything). state: the
 * app's block now, or NULL. */
static int no_change(const App *a, const char *state, const ScriptCmd *c) {
    const Model *m = a->m;
    switch (c->op) {
    case SC_SENTENCE: return m->text && same_bytes(m->text, m->text_len, c->text, c->len);
    case SC_TARGET: return same_bytes(m->target, m->target_len, c->text, c->len);
    case SC_TOKENIZER: return m->tokenizer && tok_preset(m->tokenizer) == (TokPreset)c->kind;
    case SC_PAD: return m->n_pad == c->a;
    case SC_QKV: return same_qkv(state, c);
    default: return 0;
    }
}

static int same_config(const ModelConfig *a, const ModelConfig *b) {
    return a->d_model == b->d_model && a->heads == b->heads && a->d_k == b->d_k && a->d_v == b->d_v &&
           a->seed == b->seed && a->mask == b->mask && a->window == b->window && a->prefix == b->prefix &&
           a->scale == b->scale && a->pos == b->pos && a->score == b->score && a->tie_qk == b->tie_qk &&
           a->attn == b->attn && a->layers == b->layers;
}

/* 1 for the commands that shape the model: applied together (model_change). */
static int shapes(const ScriptCmd *c) {
    return c->op == SC_TOKENIZER || c->op == SC_SENTENCE || c->op == SC_TARGET || c->op == SC_PAD || c->op == SC_CONFIG;
}

/* Commands n of cmd (line[i] the line of each) on the app: on a source with
 * tokenizers the tokenizer, sentence, target, <pad> tokens and configuration
 * are one configuration, checked and applied as a whole (the teacher's heads=1
 * with 3000 words is valid though the student's 4 heads with them is not),
 * then the rest (view, head, cursor...) in order. 0, or -1 with why and the
 * app's model as it was when the shaping part failed. */
static int apply_cmds(App *a, const ScriptCmd *cmd, const int *line, int n, const char *state, char *why, size_t cap) {
    Model *m = a->m;
    int whole = model_can(m, SRC_TOKENIZERS), first = 0, last = 0, any = 0;
    for (int i = 0; i < n; i++) whole &= cmd[i].op != SC_QKV; /* a Q/K/V file switches the source first */
    ModelConfig cfg = m->cfg;
    ModelChange ch = {.cfg = &cfg, .pad = -1};
    for (int i = 0; whole && i < n; i++) {
        const ScriptCmd *c = &cmd[i];
        if (!shapes(c)) continue;
        if (!any) first = line[i];
        last = line[i], any = 1;
        if (c->op == SC_CONFIG) script_config_merge(&cfg, c);
        else if (no_change(a, state, c)) continue;
        else if (c->op == SC_TOKENIZER) ch.set_tokenizer = 1, ch.tokenizer = (TokPreset)c->kind;
        else if (c->op == SC_SENTENCE) ch.set_text = 1, ch.text = c->text, ch.text_len = c->len;
        else if (c->op == SC_TARGET) ch.set_target = 1, ch.target = c->text, ch.target_len = c->text ? c->len : 0;
        else ch.pad = (int)c->a;
    }
    /* nothing that costs when only the view or the cursor moved */
    any = any && (ch.set_tokenizer || ch.set_text || ch.set_target || (ch.pad >= 0 && ch.pad != m->n_pad) ||
                  !same_config(&cfg, &m->cfg));
    AvError err = {0};
    int sides = ch.set_tokenizer || ch.set_text || ch.set_target || (ch.pad >= 0 && ch.pad != m->n_pad);
    /* the configuration alone: the tokens stay, and only what it touches recomputes */
    if (any && (sides ? model_change(m, &ch, &err) : model_set_config(m, &cfg, &err))) {
        if (first == last) snprintf(why, cap, _("line %d: %s"), first, err.msg);
        else snprintf(why, cap, _("lines %d-%d: %s"), first, last, err.msg);
        return -1;
    }
    if (any) app_clamp_cursor(a);
    for (int i = 0; i < n; i++) {
        if ((whole && shapes(&cmd[i])) || no_change(a, state, &cmd[i])) continue;
        memset(&err, 0, sizeof err);
        if (script_apply(a, &cmd[i], &err)) {
            snprintf(why, cap, _("line %d: %s"), line[i], err.msg);
            return -1;
        }
    }
    return 0;
}

/* A block of our own making (follow_block) applied back, errors ignored:
 * the state before a block that failed halfway. */
static void apply_own(App *a, const char *block) {
    FollowReader *r = follow_reader_new();
    FollowBlock b = {0};
    char why[256];
    if (r && (follow_reader_feed(r, block, strlen(block), why, sizeof why) & FOLLOW_GOT_BLOCK) &&
        follow_reader_take(r, &b))
        apply_cmds(a, b.cmd, b.line, b.n, NULL, why, sizeof why);
    follow_block_free(&b);
    follow_reader_free(r);
}

int follow_apply(App *a, const FollowBlock *b, char *why, size_t cap) {
    char *before = follow_block(a, NULL);
    if (!before) return snprintf(why, cap, _("out of memory")), -1;
    int rc = apply_cmds(a, b->cmd, b->line, b->n, before, why, cap);
    if (rc) apply_own(a, before);
    free(before);
    return rc;
}

// ----------------------------------------------------------------------------
// reading the stream

struct FollowReader {
    char *line;       /* the line so far: at most FOLLOW_MAX_LINE bytes */
    size_t n, cap;    /* its length and room */
    int overlong;     /* it passed FOLLOW_MAX_LINE: the rest up to its "\n" is dropped */
    int in_block;     /* between a header and its "end" */
    int bad;          /* this block was refused: its lines are skipped to its "end" */
    int lineno;       /* of the line in its block (the header is 1; outside: since the last end) */
    int said_outside; /* lines outside a block were refused once (again only after a block) */
    size_t bytes;     /* of the block so far */
    FollowBlock cur;  /* the block being read */
    FollowBlock ready;
    int has_ready;
    int result; /* of this feed: FOLLOW_GOT_* */
    char *why;  /* the caller's buffer for the first refusal */
    size_t why_cap;
};

FollowReader *follow_reader_new(void) { return calloc(1, sizeof(FollowReader)); }

void follow_reader_free(FollowReader *r) {
    if (!r) return;
    follow_block_free(&r->cur);
    follow_block_free(&r->ready);
    free(r->line);
    free(r);
}

/* Says why (the first refusal of this feed) and drops the block being
 * read, if any. Returns -1. */
static int refuse(FollowReader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int refuse(FollowReader *r, const char *fmt, ...) {
    if (!(r->result & FOLLOW_GOT_ERROR) && r->why_cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->why, r->why_cap, fmt, ap);
        va_end(ap);
    }
    r->result |= FOLLOW_GOT_ERROR;
    if (r->in_block) {
        r->bad = 1;
        follow_block_free(&r->cur);
    }
    return -1;
}

/* Valid UTF-8 without a raw control byte (the publisher quotes them all):
 * 0, or -1 with why. */
static int line_check(const char *s, size_t n, char *why, size_t cap) {
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        int k = utf8_decode(s + i, n - i, &cp);
        if (cp == UTF8_INVALID) return snprintf(why, cap, _("invalid UTF-8 at byte %zu"), i + 1), -1;
        if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0))
            return snprintf(why, cap, _("a control character (U+%04X) at byte %zu"), (unsigned)cp, i + 1), -1;
        i += (size_t)k;
    }
    return 0;
}

static int is_line(const FollowReader *r, const char *word) {
    return !r->overlong && r->n == strlen(word) && memcmp(r->line, word, r->n) == 0;
}

/* A command line of the block being read: checked, parsed, kept. */
static int block_line(FollowReader *r) {
    char why[300];
    int no = r->lineno;
    if (r->overlong) return refuse(r, _("line %d: longer than %zu bytes"), no, FOLLOW_MAX_LINE);
    if (r->bytes > FOLLOW_MAX_BLOCK)
        return refuse(r, _("line %d: the block is longer than %zu bytes"), no, FOLLOW_MAX_BLOCK);
    if (line_check(r->line, r->n, why, sizeof why)) return refuse(r, _("line %d: %s"), no, why);
    size_t k = 0;
    while (k < r->n && r->line[k] == ' ') k++;
    if (r->n - k >= 3 && memcmp(r->line + k, "key", 3) == 0 && (r->n - k == 3 || r->line[k + 3] == ' '))
        return refuse(r, _("line %d: key runs an action: not part of a state"), no);
    ScriptCmd c;
    if (script_parse(r->line, r->n, &c, why, sizeof why)) return refuse(r, _("line %d: %s"), no, why);
    if (c.op == SC_NONE) return 0;
    if (r->cur.n >= FOLLOW_MAX_CMDS) {
        script_cmd_free(&c);
        return refuse(r, _("line %d: more than %d commands in a block"), no, FOLLOW_MAX_CMDS);
    }
    ScriptCmd *nc = realloc(r->cur.cmd, sizeof *nc * (size_t)(r->cur.n + 1));
    if (nc) r->cur.cmd = nc;
    int *nl = nc ? realloc(r->cur.line, sizeof *nl * (size_t)(r->cur.n + 1)) : NULL;
    if (!nl) {
        script_cmd_free(&c);
        return refuse(r, _("line %d: out of memory"), no);
    }
    r->cur.line = nl;
    r->cur.cmd[r->cur.n] = c;
    r->cur.line[r->cur.n++] = no;
    return 0;
}

/* The line r->line[0..n) (or an overlong one) has ended. */
static int end_line(FollowReader *r) {
    r->lineno++;
    if (is_line(r, FOLLOW_HEADER)) {
        if (r->in_block && !r->bad) refuse(r, _("line %d: a new block began before the last one's end"), r->lineno);
        follow_block_free(&r->cur);
        r->in_block = 1, r->bad = 0, r->lineno = 1, r->bytes = r->n + 1, r->said_outside = 0;
        return 0;
    }
    if (!r->overlong && r->n >= 14 && memcmp(r->line, "attnviz-state ", 14) == 0) {
        char v[48];
        snprintf(v, sizeof v, "%.*s", (int)(r->n - 14 < 40 ? r->n - 14 : 40), r->line + 14);
        char safe[200];
        utf8_escape_into(safe, sizeof safe, v);
        follow_block_free(&r->cur);
        r->in_block = 1, r->lineno = 1, r->bytes = r->n + 1;
        return refuse(r,
                      _("line 1: stream version '%s': this attnviz reads version 1 (is the teacher's another "
                        "version?)"),
                      safe);
    }
    if (!r->in_block) {
        if (!r->said_outside) refuse(r, _("line %d: expected \"%s\""), r->lineno, FOLLOW_HEADER);
        r->said_outside = 1;
        return -1;
    }
    r->bytes += r->n + 1;
    if (is_line(r, FOLLOW_END)) {
        if (!r->bad) {
            follow_block_free(&r->ready);
            r->ready = r->cur;
            memset(&r->cur, 0, sizeof r->cur);
            r->has_ready = 1;
            r->result |= FOLLOW_GOT_BLOCK;
        }
        follow_block_free(&r->cur);
        r->in_block = 0, r->bad = 0, r->lineno = 0, r->said_outside = 0;
        return 0;
    }
    return r->bad ? -1 : block_line(r);
}

int follow_reader_feed(FollowReader *r, const char *p, size_t n, char *why, size_t cap) {
    r->result = 0;
    r->why = why, r->why_cap = cap;
    if (cap) why[0] = '\0';
    while (n > 0) {
        const char *nl = memchr(p, '\n', n);
        size_t k = nl ? (size_t)(nl - p) : n;
        if (!r->overlong && r->n + k > FOLLOW_MAX_LINE) r->overlong = 1;
        if (!r->overlong && r->n + k + 1 > r->cap) {
            size_t c = r->cap ? r->cap : 256;
            while (c < r->n + k + 1) c *= 2;
            if (c > FOLLOW_MAX_LINE + 1) c = FOLLOW_MAX_LINE + 1;
            char *np = realloc(r->line, c);
            if (!np) r->overlong = 1; /* dropped as a line too long for the memory there is */
            else r->line = np, r->cap = c;
        }
        if (!r->overlong) {
            memcpy(r->line + r->n, p, k);
            r->n += k;
            r->line[r->n] = '\0';
        }
        if (!nl) break;
        end_line(r);
        r->n = 0, r->overlong = 0;
        if (r->cap > ((size_t)1 << 16)) { /* a long line's room is given back */
            free(r->line);
            r->line = NULL, r->cap = 0;
        }
        p += k + 1, n -= k + 1;
    }
    return r->result;
}

int follow_reader_take(FollowReader *r, FollowBlock *out) {
    if (!r->has_ready) return 0;
    *out = r->ready;
    memset(&r->ready, 0, sizeof r->ready);
    r->has_ready = 0;
    return 1;
}
