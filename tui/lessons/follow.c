/* follow.c - see follow.h. Three parts: the block (made from the app, and
 * applied to it), the reader of the stream (bytes in, checked blocks out,
 * no sockets), and the sockets of the publisher and the follower with the
 * screen loop's hooks. */
#define _GNU_SOURCE /* accept4, SOCK_NONBLOCK, SOCK_CLOEXEC */
#include "follow.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "app_internal.h"
#include "i18n.h"
#include "keymap.h"
#include "lesson.h"
#include "tokenize.h"
#include "utf8.h"

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

// ----------------------------------------------------------------------------
// the block

typedef struct {
    char *p;
    size_t n, cap;
    int oom;
} Buf;

static void buf_add(Buf *b, const char *s, size_t n) {
    if (b->oom) return;
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        while (cap < b->n + n + 1) cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->p = p, b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}

static void buf_str(Buf *b, const char *s) { buf_add(b, s, strlen(s)); }

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
static void add_caption(Buf *b, const App *a) {
    char title[SCRIPT_CAPTION_MAX_TITLE + 64];
    const char *text = lesson_caption_now(a, title, sizeof title);
    if (!text) {
        buf_str(b, "caption\n");
        return;
    }
    char *t = caption_clean(title, 0, SCRIPT_CAPTION_MAX_TITLE), *x = caption_clean(text, 1, SCRIPT_CAPTION_MAX_TEXT);
    char *qt = t ? script_quote(t, strlen(t)) : NULL, *qx = x ? script_quote(x, strlen(x)) : NULL;
    if (!qt || !qx) b->oom = 1;
    else buf_str(b, "caption "), buf_str(b, qt), buf_str(b, " "), buf_str(b, qx), buf_str(b, "\n");
    free(t), free(x), free(qt), free(qx);
}

char *follow_block(const App *a, size_t *len) {
    size_t sn;
    char *state = script_state(a, &sn);
    if (!state) return NULL;
    Buf b = {0};
    buf_str(&b, FOLLOW_HEADER "\n");
    buf_add(&b, state, sn);
    free(state);
    add_caption(&b, a);
    buf_str(&b, FOLLOW_END "\n");
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

// ----------------------------------------------------------------------------
// the sockets

typedef struct {
    int fd;
    char *out;          /* owned: what is left of a block its socket did not take at once, or NULL */
    size_t out_len, at; /* its length, and what of it is sent */
} Peer;

struct Follow {
    int publisher;           /* 1: --publish; 0: --follow */
    struct sockaddr_un addr; /* PATH */
    char shown[256];         /* PATH escaped, for messages */
    char note[AV_ERR_MAX];   /* a message for the app's line ("": none), said when the app is ours */
    int note_error;          /* it reports an error */
    /* the publisher */
    int listen_fd;
    int mode;  /* of the socket file */
    dev_t dev; /* the socket file made: removed at the end only when it is still ours */
    ino_t ino;
    Peer peer[FOLLOW_MAX_FOLLOWERS]; /* the followers */
    int n_peer;
    char *block; /* owned: the state last published */
    size_t block_len;
    int too_large;               /* the state is past the limits: said once, not published */
    double accept_paused_until;  /* out of descriptors: accept waits until then */
    int started;                 /* "publishing at ..." said */
    int poll_listen, poll_peers; /* where follow_poll_fds put the listening socket (-1: not) and the peers */
    /* the follower */
    int fd;               /* the connection to the teacher, or -1 */
    int attached;         /* following: the teacher's blocks are applied */
    int detach_note;      /* a key just detached: follow_input_done says so */
    FollowReader *reader; /* owned: the stream of this connection */
    FollowBlock latest;   /* the teacher's last valid block */
    int has_latest;
    int latest_new;  /* not applied yet */
    double retry_at; /* when to connect again (following, not connected); 0: not */
    int polled_fd;   /* follow_poll_fds gave the follower's socket */
};

static void say(Follow *f, int error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(Follow *f, int error, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->note, sizeof f->note, fmt, ap);
    va_end(ap);
    f->note_error = error;
}

/* The message waiting, on the app's line: 1 when there was one. */
static int flush_say(Follow *f, App *a) {
    if (!f->note[0]) return 0;
    app_say(a, f->note_error, "%s", f->note);
    f->note[0] = '\0';
    return 1;
}

static const char *dash(const App *a) { return a->ascii ? "-" : "\xe2\x80\x94"; }

int follow_is_follower(const Follow *f) { return f && !f->publisher; }

// ----------------------------------------------------------------------------
// the publisher

/* The socket file at PATH, listening: a dead socket there is replaced,
 * anything else refused. 0, or -1 with err. */
static int pub_listen(Follow *f, AvError *err) {
    const char *path = f->addr.sun_path;
    struct stat st;
    if (lstat(path, &st) == 0) {
        if (!S_ISSOCK(st.st_mode))
            return av_errorf(err, _("--publish: %s exists and is not a socket (choose another PATH)"), f->shown);
        /* Someone listening there? A dead socket refuses the connection. */
        int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (probe < 0) return av_error_io(err, _("--publish: cannot make a socket: %s"), strerror(errno));
        int rc = connect(probe, (const struct sockaddr *)&f->addr, sizeof f->addr), e = errno;
        close(probe);
        if (rc == 0 || e == EAGAIN || e == EINPROGRESS)
            return av_errorf(err, _("--publish: %s: another attnviz (or another program) listens there"), f->shown);
        if (e != ECONNREFUSED) return av_errorf(err, _("--publish: %s: %s"), f->shown, strerror(e));
        if (unlink(path) != 0)
            return av_errorf(err, _("--publish: cannot replace the dead socket %s: %s"), f->shown, strerror(errno));
    } else if (errno != ENOENT) {
        return av_errorf(err, _("--publish: %s: %s"), f->shown, strerror(errno));
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return av_error_io(err, _("--publish: cannot make a socket: %s"), strerror(errno));
    /* Never wider than 0600, even before the chmod. */
    mode_t old = umask(0177);
    int rc = bind(fd, (const struct sockaddr *)&f->addr, sizeof f->addr), e = errno;
    umask(old);
    if (rc != 0) {
        close(fd);
        return av_errorf(err, _("--publish: cannot make the socket %s: %s"), f->shown, strerror(e));
    }
    if (chmod(path, (mode_t)f->mode) != 0 || lstat(path, &st) != 0 || listen(fd, SOMAXCONN) != 0) {
        e = errno;
        unlink(path);
        close(fd);
        return av_error_io(err, _("--publish: %s: %s"), f->shown, strerror(e));
    }
    f->dev = st.st_dev, f->ino = st.st_ino;
    f->listen_fd = fd;
    return 0;
}

static void peer_drop(Follow *f, int i) {
    close(f->peer[i].fd);
    free(f->peer[i].out);
    f->peer[i] = f->peer[--f->n_peer];
}

/* Writes what the socket takes now; 0, or -1 when the follower is gone. */
static int peer_write(Peer *q, const char *p, size_t n, size_t *done) {
    *done = 0;
    while (*done < n) {
        ssize_t w = send(q->fd, p + *done, n - *done, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w > 0) *done += (size_t)w;
        else if (w < 0 && errno == EINTR) continue;
        else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0;
        else return -1;
    }
    return 0;
}

/* The rest of a block to follower i, as much as its socket takes now: 0,
 * or -1 when it is gone (dropped). */
static int peer_flush(Follow *f, int i) {
    Peer *q = &f->peer[i];
    size_t done;
    if (!q->out) return 0;
    if (peer_write(q, q->out + q->at, q->out_len - q->at, &done)) {
        peer_drop(f, i);
        return -1;
    }
    q->at += done;
    if (q->at == q->out_len) {
        free(q->out);
        q->out = NULL;
    }
    return 0;
}

/* A block to follower i. One that has still not taken the last block (its
 * socket buffer is full) is dropped: a slow follower never makes the
 * teacher wait. Iterate the peers downwards: a drop moves the last to i. */
static void peer_send(Follow *f, int i, const char *p, size_t n) {
    if (peer_flush(f, i)) return;
    Peer *q = &f->peer[i];
    size_t done;
    if (q->out || peer_write(q, p, n, &done) || (done < n && !(q->out = malloc(n - done)))) {
        peer_drop(f, i);
    } else if (done < n) {
        memcpy(q->out, p + done, n - done);
        q->out_len = n - done, q->at = 0;
    }
}

static void pub_accept(Follow *f) {
    for (int k = 0; k < 128; k++) { /* then the loop goes on (keys); the rest come next time */
        int fd = accept4(f->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED) continue;
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
                f->accept_paused_until = now_s() + 1.0;
            return;
        }
        shutdown(fd, SHUT_RD); /* the teacher never reads what a follower sends */
        if (f->n_peer >= FOLLOW_MAX_FOLLOWERS) {
            close(fd);
            continue;
        }
        f->peer[f->n_peer++] = (Peer){.fd = fd};
        if (f->block) peer_send(f, f->n_peer - 1, f->block, f->block_len);
    }
}

/* The longest line of a block. */
static size_t longest_line(const char *p, size_t n) {
    size_t best = 0;
    for (size_t at = 0; at < n;) {
        const char *nl = memchr(p + at, '\n', n - at);
        size_t k = nl ? (size_t)(nl - p - at) : n - at;
        if (k > best) best = k;
        at += k + 1;
    }
    return best;
}

static int pub_idle(Follow *f, App *a) {
    int redraw = 0;
    if (!f->started) {
        const char *who = f->mode == 0600   ? _("only you")
                          : f->mode == 0660 ? _("your group")
                          : f->mode == 0666 ? _("anyone here")
                                            : _("see its mode");
        /* the command last: a long PATH is what an 80-column line cuts */
        /* the students' command first: what an 80-column line cuts is the mode's words */
        app_say(a, 0, _("publishing: attnviz --follow %s (mode %04o: %s)"), f->shown, (unsigned)f->mode, who);
        f->started = redraw = 1;
    }
    size_t n;
    char *b = follow_block(a, &n);
    if (!b) return redraw;
    if (f->block && n == f->block_len && memcmp(b, f->block, n) == 0) {
        free(b);
        return redraw;
    }
    if (n > FOLLOW_MAX_BLOCK || longest_line(b, n) > FOLLOW_MAX_LINE) {
        if (!f->too_large) app_say(a, 1, _("--publish: the state is past the stream's limits: not published"));
        f->too_large = 1;
        free(b);
        return 1;
    }
    f->too_large = 0;
    free(f->block);
    f->block = b, f->block_len = n;
    for (int i = f->n_peer - 1; i >= 0; i--) peer_send(f, i, b, n);
    return redraw;
}

static int pub_poll_fds(Follow *f, struct pollfd *fds, int cap) {
    int n = 0;
    f->poll_listen = -1;
    if (f->accept_paused_until <= now_s() && n < cap) {
        f->poll_listen = n;
        fds[n++] = (struct pollfd){.fd = f->listen_fd, .events = POLLIN};
    }
    /* Every follower: a hangup drops it; POLLOUT for the rest of a block. */
    f->poll_peers = n;
    for (int i = 0; i < f->n_peer && n < cap; i++)
        fds[n++] = (struct pollfd){.fd = f->peer[i].fd, .events = f->peer[i].out ? POLLOUT : 0};
    return n;
}

static void pub_handle(Follow *f, const struct pollfd *fds, int n) {
    int np = n - f->poll_peers;
    if (np > f->n_peer) np = f->n_peer;
    for (int i = np - 1; i >= 0; i--) {
        short ev = fds[f->poll_peers + i].revents;
        Peer *q = &f->peer[i];
        if (ev & (POLLHUP | POLLERR | POLLNVAL)) peer_drop(f, i);
        else if ((ev & POLLOUT) && q->out) peer_flush(f, i);
    }
    if (f->poll_listen >= 0 && f->poll_listen < n && (fds[f->poll_listen].revents & POLLIN)) pub_accept(f);
}

// ----------------------------------------------------------------------------
// the follower

/* Connects to the teacher: 0, or -1 with errno (ENOENT, ECONNREFUSED: no
 * one listens there yet; EACCES: the socket's mode). */
static int sub_connect(Follow *f) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (connect(fd, (const struct sockaddr *)&f->addr, sizeof f->addr) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    FollowReader *r = follow_reader_new();
    if (!r) {
        close(fd);
        return -1;
    }
    shutdown(fd, SHUT_WR); /* a follower never writes */
    follow_reader_free(f->reader);
    f->reader = r;
    f->fd = fd;
    f->retry_at = 0;
    say(f, 0, _("following the teacher (any key: explore alone; F: follow again)"));
    return 0;
}

static void sub_lost(Follow *f, const App *a) {
    close(f->fd);
    f->fd = -1;
    if (f->attached) {
        f->retry_at = now_s() + 1.0;
        say(f, 0, _("the teacher's attnviz ended %s trying again every second (any key: explore)"), a ? dash(a) : "-");
    } else {
        say(f, 0, _("the teacher's attnviz ended %s F follows it again when it is back"), a ? dash(a) : "-");
    }
}

/* The teacher's bytes, as many as are there (at most 4 MiB a time: keys
 * come between); a refusal is said, a valid block kept as the latest. */
static void sub_read(Follow *f, const App *a) {
    static char buf[1 << 16]; /* the main thread's */
    size_t total = 0;
    char why[AV_ERR_MAX - 64];
    while (total < ((size_t)4 << 20)) {
        ssize_t r = read(f->fd, buf, sizeof buf);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (r <= 0) {
            sub_lost(f, a);
            return;
        }
        total += (size_t)r;
        int got = follow_reader_feed(f->reader, buf, (size_t)r, why, sizeof why);
        if (got & FOLLOW_GOT_ERROR) say(f, 1, _("teacher's state ignored %s %s"), a ? dash(a) : "-", why);
        FollowBlock b;
        if ((got & FOLLOW_GOT_BLOCK) && follow_reader_take(f->reader, &b)) {
            follow_block_free(&f->latest);
            f->latest = b;
            f->has_latest = f->latest_new = 1;
        }
    }
}

/* The latest block on the app (following): 1 when applied. */
static int sub_apply(Follow *f, App *a) {
    char why[AV_ERR_MAX - 64];
    f->latest_new = 0;
    if (follow_apply(a, &f->latest, why, sizeof why) == 0) return 1;
    say(f, 1, _("teacher's state ignored %s %s"), dash(a), why);
    return 0;
}

// ----------------------------------------------------------------------------
// the screen loop's hooks

Follow *follow_open(const CliOptions *o, AvError *err) {
    const char *path = o->publish ? o->publish : o->follow;
    if (!path) return NULL;
    const char *opt = o->publish ? "--publish" : "--follow";
    char shown[256];
    utf8_escape_into(shown, sizeof shown, path);
    Follow *f = calloc(1, sizeof *f);
    if (!f) return av_error_nomem(err, _("out of memory")), NULL;
    if (strlen(path) >= sizeof f->addr.sun_path) {
        free(f);
        return av_errorf(err, _("%s: %s is too long for a Unix socket (at most %zu bytes)"), opt, shown,
                         sizeof f->addr.sun_path - 1),
               NULL;
    }
    f->addr.sun_family = AF_UNIX;
    memcpy(f->addr.sun_path, path, strlen(path) + 1);
    snprintf(f->shown, sizeof f->shown, "%s", shown);
    f->publisher = o->publish != NULL;
    f->listen_fd = f->fd = -1;
    f->mode = o->publish_mode >= 0 ? o->publish_mode : 0600;
    if (f->publisher) {
        if (pub_listen(f, err)) {
            free(f);
            return NULL;
        }
        return f;
    }
    f->attached = 1;
    if (sub_connect(f) != 0) {
        int e = errno;
        f->retry_at = now_s() + 1.0;
        if (e == EACCES || e == EPERM)
            say(f, 1, _("cannot follow (%s): the teacher's --publish-mode decides who may; retrying"), strerror(e));
        else say(f, 0, _("waiting for the teacher at %s (trying every second; any key: explore alone)"), f->shown);
    }
    return f;
}

void follow_free(Follow *f) {
    if (!f) return;
    while (f->n_peer > 0) peer_drop(f, f->n_peer - 1);
    if (f->listen_fd >= 0) {
        close(f->listen_fd);
        /* Only our socket: another teacher may have replaced it since. */
        struct stat st;
        if (lstat(f->addr.sun_path, &st) == 0 && st.st_dev == f->dev && st.st_ino == f->ino) unlink(f->addr.sun_path);
    }
    if (f->fd >= 0) close(f->fd);
    free(f->block);
    follow_reader_free(f->reader);
    follow_block_free(&f->latest);
    free(f);
}

int follow_poll_fds(Follow *f, struct pollfd *fds, int cap, int app_busy) {
    f->polled_fd = 0;
    if (f->publisher) return pub_poll_fds(f, fds, cap);
    if (app_busy || f->fd < 0 || cap < 1) return 0;
    fds[0] = (struct pollfd){.fd = f->fd, .events = POLLIN};
    f->polled_fd = 1;
    return 1;
}

static int ms_until(double t) {
    double left = (t - now_s()) * 1e3;
    return left <= 0 ? 0 : (int)left + 1;
}

int follow_wake_ms(const Follow *f, int app_busy) {
    if (f->publisher) return f->accept_paused_until > 0 ? ms_until(f->accept_paused_until) : -1;
    if (app_busy || f->fd >= 0 || !f->attached || f->retry_at <= 0) return -1;
    return ms_until(f->retry_at);
}

int follow_handle(Follow *f, const struct pollfd *fds, int n, App *a) {
    if (f->publisher) {
        pub_handle(f, fds, n);
        if (f->accept_paused_until > 0 && f->accept_paused_until <= now_s()) f->accept_paused_until = 0;
        return 0;
    }
    if (!a) return 0;
    if (f->polled_fd && n >= 1 && f->fd >= 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)))
        sub_read(f, a);
    f->polled_fd = 0;
    if (f->fd < 0 && f->attached && f->retry_at > 0 && f->retry_at <= now_s() && sub_connect(f) != 0)
        f->retry_at = now_s() + 1.0;
    int redraw = 0;
    if (f->attached && f->has_latest && f->latest_new) redraw = sub_apply(f, a);
    return flush_say(f, a) || redraw;
}

int follow_idle(Follow *f, App *a) {
    if (f->publisher) return pub_idle(f, a);
    int redraw = 0;
    if (f->attached && f->has_latest && f->latest_new) redraw = sub_apply(f, a);
    return flush_say(f, a) || redraw;
}

void follow_input(Follow *f, App *a, const AppKey *k) {
    if (!f || f->publisher || !f->attached) return;
    if (k && !k->is_code && k->ch < 128) {
        Action act = keymap_action((int)k->ch);
        if (act == ACT_REDRAW) return;
        if (act == ACT_FOLLOW && a->prompt == PROMPT_NONE && !a->picture_pending) return;
    }
    f->attached = 0;
    f->retry_at = 0;
    f->detach_note = 1;
}

void follow_input_done(Follow *f, App *a) {
    if (!f || !f->detach_note) return;
    f->detach_note = 0;
    char msg[sizeof a->msg];
    if (a->msg[0]) snprintf(msg, sizeof msg, _("detached: F follows again %s %s"), dash(a), a->msg);
    else snprintf(msg, sizeof msg, _("detached: F follows again"));
    app_say(a, a->msg[0] ? a->msg_error : 0, "%s", msg);
}

void follow_attach(Follow *f, App *a) {
    if (!follow_is_follower(f)) {
        app_say(a, 1, _("F follows a teacher's attnviz: start with attnviz --follow PATH"));
        return;
    }
    if (f->attached) {
        if (f->fd >= 0) app_say(a, 0, _("following the teacher already (any key: explore alone)"));
        else app_say(a, 0, _("waiting for the teacher: %s"), f->shown);
        return;
    }
    f->attached = 1;
    f->note[0] = '\0';
    int applied = f->has_latest && sub_apply(f, a);
    if (f->fd < 0 && sub_connect(f) != 0) {
        f->retry_at = now_s() + 1.0;
        if (applied) say(f, 0, _("its last state; the teacher's attnviz is not there: trying every second"));
        else say(f, 0, _("the teacher's attnviz is not there: trying every second"));
    } else if (f->fd >= 0 && !f->note[0]) {
        say(f, 0, _("following the teacher again (any key: explore alone)"));
    }
    flush_say(f, a);
}
