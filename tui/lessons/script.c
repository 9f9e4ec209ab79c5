/* script.c - see script.h. */
#include "script.h"

#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_internal.h"
#include "cli.h"
#include "i18n.h"
#include "mask.h"
#include "number.h"
#include "qkvfile.h"
#include "tensor.h"
#include "tokenize.h"
#include "utf8.h"

// ----------------------------------------------------------------------------
// words

typedef struct {
    const char *s;
    size_t len, at;
} Line;

static void skip_blanks(Line *l) {
    while (l->at < l->len && (l->s[l->at] == ' ' || l->s[l->at] == '\t')) l->at++;
}

/* The next word (up to a blank) into buf; 0 when there is none. */
static int word(Line *l, char *buf, size_t cap) {
    skip_blanks(l);
    size_t n = 0;
    while (l->at < l->len && l->s[l->at] != ' ' && l->s[l->at] != '\t') {
        if (n + 1 < cap) buf[n] = l->s[l->at];
        n++, l->at++;
    }
    buf[n < cap ? n : cap - 1] = '\0';
    return n > 0 && n < cap;
}

static int at_end(Line *l) {
    skip_blanks(l);
    return l->at >= l->len;
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* A quoted string with C escapes: the bytes into *out (malloc'd). */
static int quoted(Line *l, char **out, size_t *olen, char *why, size_t cap) {
    skip_blanks(l);
    if (l->at >= l->len || l->s[l->at] != '"') return snprintf(why, cap, _("expected a quoted \"text\"")), -1;
    char *b = malloc(l->len - l->at + 1);
    if (!b) return snprintf(why, cap, _("out of memory")), -1;
    size_t n = 0;
    l->at++;
    for (;;) {
        if (l->at >= l->len) {
            free(b);
            return snprintf(why, cap, _("the text has no closing quote")), -1;
        }
        char c = l->s[l->at++];
        if (c == '"') break;
        if (c != '\\') {
            b[n++] = c;
            continue;
        }
        if (l->at >= l->len) break;
        char e = l->s[l->at++];
        switch (e) {
        case '\\': b[n++] = '\\'; break;
        case '"': b[n++] = '"'; break;
        case 'n': b[n++] = '\n'; break;
        case 't': b[n++] = '\t'; break;
        case 'r': b[n++] = '\r'; break;
        case 'x': {
            int h = l->at + 1 < l->len ? hexval(l->s[l->at]) : -1, k = h >= 0 ? hexval(l->s[l->at + 1]) : -1;
            if (k < 0) {
                free(b);
                return snprintf(why, cap, _("\\x needs two hex digits")), -1;
            }
            b[n++] = (char)(h * 16 + k);
            l->at += 2;
            break;
        }
        default: free(b); return snprintf(why, cap, _("unknown escape \\%c"), e >= 32 && e < 127 ? e : '?'), -1;
        }
    }
    b[n] = '\0';
    *out = b, *olen = n;
    return 0;
}

static int on_off(const char *w, long *v) {
    if (strcmp(w, "on") == 0) return *v = 1, 0;
    if (strcmp(w, "off") == 0) return *v = 0, 0;
    return -1;
}

static int number(const char *w, long lo, long hi, long *v) { return num_parse_long(w, lo, hi, v) == NUM_OK ? 0 : -1; }

// ----------------------------------------------------------------------------
// settings

/* One setting KEY VALUE into c->cfg and c->set. */
static int setting(ScriptCmd *c, const char *key, const char *val, char *why, size_t cap) {
    long v;
    AvError err = {0};
    ModelConfig *g = &c->cfg;
    if (strcmp(key, "d_model") == 0) {
        if (number(val, 1, MODEL_MAX_DIM, &v)) goto range;
        g->d_model = (int)v, c->set |= SET_D_MODEL;
    } else if (strcmp(key, "heads") == 0) {
        if (number(val, 1, MODEL_MAX_HEADS, &v)) goto range;
        g->heads = (int)v, c->set |= SET_HEADS;
    } else if (strcmp(key, "d_k") == 0) {
        if (number(val, 1, MODEL_MAX_DIM, &v)) goto range;
        g->d_k = (int)v, c->set |= SET_D_K;
    } else if (strcmp(key, "d_v") == 0) {
        if (number(val, 1, MODEL_MAX_DIM, &v)) goto range;
        g->d_v = (int)v, c->set |= SET_D_V;
    } else if (strcmp(key, "seed") == 0) {
        unsigned long long s;
        char *end;
        if (!val[0] || val[0] == '-' || (s = strtoull(val, &end, 10), *end)) goto range;
        g->seed = s, c->set |= SET_SEED;
    } else if (strcmp(key, "mask") == 0) {
        if (mask_parse(val, &g->mask, &g->window, &g->prefix, &err)) return snprintf(why, cap, "mask: %s", err.msg), -1;
        c->set |= SET_MASK;
    } else if (strcmp(key, "scale") == 0) {
        if (on_off(val, &v)) return snprintf(why, cap, _("scale: expected on or off, not '%.40s'"), val), -1;
        g->scale = (int)v, c->set |= SET_SCALE;
    } else if (strcmp(key, "pos") == 0) {
        if (pos_parse(val, &g->pos, &err)) return snprintf(why, cap, "pos: %s", err.msg), -1;
        c->set |= SET_POS;
    } else if (strcmp(key, "score") == 0) {
        int scale = -1;
        if (score_parse(val, &g->score, &scale, &err)) return snprintf(why, cap, "score: %s", err.msg), -1;
        c->set |= SET_SCORE;
        if (scale >= 0) g->scale = scale, c->set |= SET_SCALE;
    } else if (strcmp(key, "tie") == 0) {
        if (on_off(val, &v)) return snprintf(why, cap, _("tie: expected on or off, not '%.40s'"), val), -1;
        g->tie_qk = (int)v, c->set |= SET_TIE;
    } else if (strcmp(key, "attn") == 0) {
        if (attn_mode_parse(val, &g->attn, &err)) return snprintf(why, cap, "attn: %s", err.msg), -1;
        c->set |= SET_ATTN;
    } else {
        return snprintf(why, cap, _("unknown setting '%.40s'"), key), -1;
    }
    return 0;
range:
    return snprintf(why, cap, _("%s: '%.40s' is not a number in range"), key, val), -1;
}

// ----------------------------------------------------------------------------
// a Q/K/V file's text (qkv "TEXT")

/* The text parsed as --qkv parses a file: 0, or -1 with its message
 * ("qkv:3:5: expected a number, found 'x1'"). */
static int qkv_check(const char *text, size_t len, char *why, size_t cap) {
    QkvData d;
    AvError err = {0};
    if (qkv_parse(&d, text, len, "qkv", &err)) return snprintf(why, cap, "%s", err.msg), -1;
    qkv_free(&d);
    return 0;
}

/* The model takes the Q, K and V of the text (parsed again: the command
 * keeps only its text), as build.c's --qkv; the mask, scaling and score
 * stay (model_set_source). */
static int apply_qkv(Model *m, const ScriptCmd *c, AvError *err) {
    QkvData d;
    if (qkv_parse(&d, c->text, c->len, "qkv", err)) return -1;
    int rc = model_set_qkv(m, &d, err);
    qkv_free(&d);
    return rc ? av_error_prefix(err, "qkv") : 0;
}

/* A caption's title (nl 0) or text (nl 1) s[0..n): valid UTF-8, no control
 * or format character but a line break in the text, at most `max` bytes. 0,
 * or -1 with why. */
static int caption_ok(const char *s, size_t n, int nl, size_t max, char *why, size_t cap) {
    if (n > max)
        return snprintf(why, cap,
                        nl ? _("caption: the text is longer than %zu bytes")
                           : _("caption: the title is longer than %zu bytes"),
                        max),
               -1;
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        int k = utf8_decode(s + i, n - i, &cp);
        if (cp == UTF8_INVALID)
            return snprintf(why, cap, "%s",
                            nl ? _("caption: invalid UTF-8 in the text") : _("caption: invalid UTF-8 in the title")),
                   -1;
        if (utf8_is_unsafe(cp) && !(nl && cp == '\n'))
            return snprintf(why, cap,
                            nl ? _("caption: a control character (U+%04X) in the text")
                               : _("caption: a control character (U+%04X) in the title"),
                            (unsigned)cp),
                   -1;
        i += (size_t)k;
    }
    return 0;
}

static const char *const setting_names[] = {"d_model", "heads", "d_k",   "d_v", "seed", "mask",
                                            "scale",   "pos",   "score", "tie", "attn"};

// ----------------------------------------------------------------------------
// parsing

static int parse_line(const char *s, size_t len, ScriptCmd *c, char *why, size_t cap);

/* A refusal quotes what it refused ("scale: expected on or off, not
 * 'off\x0B'"): the message made safe for a terminal here, in one place. */
int script_parse(const char *s, size_t len, ScriptCmd *c, char *why, size_t cap) {
    int rc = parse_line(s, len, c, why, cap);
    if (rc && cap > 0) {
        char raw[512];
        snprintf(raw, sizeof raw, "%s", why);
        utf8_escape_into(why, cap, raw);
    }
    return rc;
}

/* config KEY=VALUE ...: one or more settings. */
static int parse_config(Line *l, ScriptCmd *c, char *why, size_t cap) {
    c->op = SC_CONFIG;
    while (!at_end(l)) {
        char kv[80];
        if (!word(l, kv, sizeof kv)) return snprintf(why, cap, _("config: a setting too long")), -1;
        char *eq = strchr(kv, '=');
        if (!eq) return snprintf(why, cap, _("config: '%.40s' is not KEY=VALUE"), kv), -1;
        *eq = '\0';
        if (setting(c, kv, eq + 1, why, cap)) return -1;
    }
    if (!c->set) return snprintf(why, cap, _("config: no setting")), -1;
    return 0;
}

/* highlight row I | col J | cell I J | none. */
static int parse_highlight(Line *l, ScriptCmd *c, char *why, size_t cap) {
    char w[64], w2[64];
    c->op = SC_HIGHLIGHT;
    if (!word(l, w, sizeof w)) return snprintf(why, cap, _("highlight: expected row I, col J, cell I J or none")), -1;
    if (strcmp(w, "none") == 0) c->kind = HL_NONE;
    else if (strcmp(w, "row") == 0 && word(l, w2, sizeof w2) && !number(w2, 0, 1 << 20, &c->a)) c->kind = HL_ROW;
    else if (strcmp(w, "col") == 0 && word(l, w2, sizeof w2) && !number(w2, 0, 1 << 20, &c->b)) c->kind = HL_COL;
    else if (strcmp(w, "cell") == 0 && word(l, w2, sizeof w2) && !number(w2, 0, 1 << 20, &c->a) &&
             word(l, w2, sizeof w2) && !number(w2, 0, 1 << 20, &c->b))
        c->kind = HL_CELL;
    else return snprintf(why, cap, _("highlight: expected row I, col J, cell I J or none")), -1;
    return 0;
}

/* key ACTION [ARG]: an action by name, but none that quits, asks, writes a
 * file or moves through the lesson. */
static int parse_key(Line *l, ScriptCmd *c, char *why, size_t cap) {
    char w[64];
    c->op = SC_KEY;
    if (!word(l, w, sizeof w)) return snprintf(why, cap, _("key: expected an action's name")), -1;
    int found = 0;
    for (int i = ACT_NONE + 1; i < ACT_COUNT; i++)
        if (app_actions[i].name && strcmp(app_actions[i].name, w) == 0) {
            found = 1;
            if (i == ACT_QUIT || i == ACT_PICTURE || i == ACT_PAINT_SAVE || i == ACT_EDIT || i == ACT_TARGET ||
                i == ACT_DK_PROMPT)
                return snprintf(why, cap, _("key: %s is not for a script (it quits, asks or writes a file)"), w), -1;
            /* A step that shows a step would replay itself without end. */
            if (i == ACT_LESSON_NEXT || i == ACT_LESSON_PREV || i == ACT_LESSON_RESTART || i == ACT_LESSON_LEAVE)
                return snprintf(why, cap, _("key: %s is not for a script (it moves through the lesson)"), w), -1;
        }
    if (!found) return snprintf(why, cap, _("key: unknown action '%.40s'"), w), -1;
    c->text = strdup(w);
    c->len = c->text ? strlen(c->text) : 0;
    if (!at_end(l)) {
        char arg[64];
        if (!word(l, arg, sizeof arg) || !(c->arg = strdup(arg)))
            return script_cmd_free(c), snprintf(why, cap, _("key: an argument too long")), -1;
    }
    if (!c->text) return snprintf(why, cap, _("out of memory")), -1;
    return 0;
}

/* caption "TITLE" "TEXT", or nothing (no caption). */
static int parse_caption(Line *l, ScriptCmd *c, char *why, size_t cap) {
    c->op = SC_CAPTION;
    if (at_end(l)) return 0; /* no caption */
    size_t tl;
    char inner[128];
    if (quoted(l, &c->text, &c->len, inner, sizeof inner) || quoted(l, &c->arg, &tl, inner, sizeof inner)) {
        script_cmd_free(c);
        return snprintf(why, cap, _("caption: %s (expected \"TITLE\" \"TEXT\", or nothing)"), inner), -1;
    }
    if (caption_ok(c->text, c->len, 0, SCRIPT_CAPTION_MAX_TITLE, why, cap) ||
        caption_ok(c->arg, tl, 1, SCRIPT_CAPTION_MAX_TEXT, why, cap))
        return script_cmd_free(c), -1;
    return 0;
}

static int parse_line(const char *s, size_t len, ScriptCmd *c, char *why, size_t cap) {
    memset(c, 0, sizeof *c);
    c->a = c->b = -1;
    Line l = {s, len, 0};
    char name[32], w[64], w2[64];
    if (memchr(s, '\n', len) || memchr(s, '\r', len)) return snprintf(why, cap, _("a line break inside the line")), -1;
    skip_blanks(&l);
    if (l.at >= len || s[l.at] == '#') return 0; /* SC_NONE */
    if (!word(&l, name, sizeof name)) return snprintf(why, cap, _("a command name too long")), -1;
    for (size_t i = 0; i < sizeof setting_names / sizeof *setting_names; i++)
        if (strcmp(name, setting_names[i]) == 0) {
            c->op = SC_CONFIG;
            if (!word(&l, w, sizeof w)) return snprintf(why, cap, _("%s: needs a value"), name), -1;
            if (setting(c, name, w, why, cap)) return -1;
            goto end;
        }
    if (strcmp(name, "sentence") == 0 || strcmp(name, "target") == 0) {
        c->op = name[0] == 's' ? SC_SENTENCE : SC_TARGET;
        if (c->op == SC_TARGET && at_end(&l)) return 0; /* no target */
        if (quoted(&l, &c->text, &c->len, why, cap)) return -1;
    } else if (strcmp(name, "qkv") == 0) {
        c->op = SC_QKV;
        if (quoted(&l, &c->text, &c->len, why, cap)) return -1;
        if (qkv_check(c->text, c->len, why, cap)) return script_cmd_free(c), -1;
    } else if (strcmp(name, "pad") == 0) {
        c->op = SC_PAD;
        if (!word(&l, w, sizeof w) || number(w, 0, TOK_MAX_TOKENS, &c->a))
            return snprintf(why, cap, _("pad: expected a number 0..%d"), TOK_MAX_TOKENS), -1;
    } else if (strcmp(name, "tokenizer") == 0) {
        TokPreset p;
        c->op = SC_TOKENIZER;
        if (!word(&l, w, sizeof w) || tok_preset_parse(w, &p) || p == TOK_CUSTOM)
            return snprintf(why, cap, _("tokenizer: expected words, gpt2 or chars")), -1;
        c->kind = (int)p;
    } else if (strcmp(name, "config") == 0) {
        if (parse_config(&l, c, why, cap)) return -1;
    } else if (strcmp(name, "view") == 0) {
        ViewKind v;
        c->op = SC_VIEW;
        if (!word(&l, w, sizeof w) || app_view_parse(w, &v))
            return snprintf(why, cap,
                            _("view: expected heatmap, heads, pipeline, gravity, census, classes, zoom or lens")),
                   -1;
        c->kind = (int)v;
    } else if (strcmp(name, "stage") == 0) {
        c->op = SC_STAGE;
        if (!word(&l, w, sizeof w) || (c->kind = cli_stage_parse(w)) < 0)
            return snprintf(why, cap, _("stage: expected %s"), cli_stages()), -1;
    } else if (strcmp(name, "head") == 0 || strcmp(name, "layer") == 0) {
        c->op = name[0] == 'h' ? SC_HEAD : SC_LAYER;
        long lim = c->op == SC_HEAD ? MODEL_MAX_HEADS : MODEL_MAX_LAYERS;
        if (!word(&l, w, sizeof w) || number(w, 1, lim, &c->a))
            return snprintf(why, cap, _("%s: expected a number 1..%ld"), name, lim), -1;
    } else if (strcmp(name, "chain") == 0) {
        c->op = SC_CHAIN;
        if (!word(&l, w, sizeof w) || number(w, 1, 64, &c->a))
            return snprintf(why, cap, _("chain: expected the stage at the top, 1..64")), -1;
    } else if (strcmp(name, "cursor") == 0) {
        c->op = SC_CURSOR;
        if (!word(&l, w, sizeof w) || !word(&l, w2, sizeof w2) || number(w, 0, 1 << 20, &c->a) ||
            number(w2, 0, 1 << 20, &c->b))
            return snprintf(why, cap, _("cursor: expected the row and the column, I J (0-based)")), -1;
    } else if (strcmp(name, "cell") == 0) {
        c->op = SC_CELL;
    } else if (strcmp(name, "close") == 0) {
        c->op = SC_CLOSE;
    } else if (strcmp(name, "highlight") == 0) {
        if (parse_highlight(&l, c, why, cap)) return -1;
    } else if (strcmp(name, "contrast") == 0 || strcmp(name, "next") == 0) {
        c->op = name[0] == 'c' ? SC_CONTRAST : SC_NEXT;
        if (!word(&l, w, sizeof w) || on_off(w, &c->a))
            return snprintf(why, cap, _("%s: expected on or off"), name), -1;
    } else if (strcmp(name, "key") == 0) {
        if (parse_key(&l, c, why, cap)) return -1;
    } else if (strcmp(name, "caption") == 0) {
        if (parse_caption(&l, c, why, cap)) return -1;
    } else {
        char safe[64];
        utf8_escape_into(safe, sizeof safe, name);
        return snprintf(why, cap, _("unknown command '%s'"), safe), -1;
    }
end:
    if (!at_end(&l)) {
        script_cmd_free(c);
        return snprintf(why, cap, _("%s: unexpected text after it"), name), -1;
    }
    return 0;
}

void script_cmd_free(ScriptCmd *c) {
    if (!c) return;
    free(c->text), free(c->arg);
    c->text = c->arg = NULL;
}

// ----------------------------------------------------------------------------
// applying

void script_config_merge(ModelConfig *to, const ScriptCmd *c) {
    const ModelConfig *f = &c->cfg;
    if (c->set & SET_D_MODEL) to->d_model = f->d_model;
    if (c->set & SET_HEADS) to->heads = f->heads;
    if (c->set & SET_D_K) to->d_k = f->d_k;
    if (c->set & SET_D_V) to->d_v = f->d_v;
    if ((c->set & SET_D_K) && !(c->set & SET_D_V)) to->d_v = f->d_k; /* as + and - do */
    if (c->set & SET_SEED) to->seed = f->seed;
    if (c->set & SET_MASK) {
        to->mask = f->mask;
        if (f->mask == MASK_WINDOW) to->window = f->window;
        if (f->mask == MASK_PREFIX) to->prefix = f->prefix;
    }
    if (c->set & SET_SCALE) to->scale = f->scale;
    if (c->set & SET_POS) to->pos = f->pos;
    if (c->set & SET_SCORE) to->score = f->score;
    if (c->set & SET_TIE) to->tie_qk = f->tie_qk;
    if (c->set & SET_ATTN) to->attn = f->attn;
}

int script_apply(App *a, const ScriptCmd *c, AvError *err) {
    Model *m = a->m;
    switch (c->op) {
    case SC_NONE: return 0;
    case SC_SENTENCE:
        if (model_set_text(m, c->text, c->len, err)) return -1;
        break;
    case SC_TARGET:
        if (model_set_target(m, c->text, c->text ? c->len : 0, err)) return -1;
        break;
    case SC_TOKENIZER:
        if (model_set_tokenizer(m, (TokPreset)c->kind, NULL, err)) return -1;
        break;
    case SC_CONFIG: {
        ModelConfig g = m->cfg;
        script_config_merge(&g, c);
        if (model_set_config(m, &g, err)) return -1;
        break;
    }
    case SC_VIEW:
        a->view = (ViewKind)c->kind;
        a->overlay = OVERLAY_NONE;
        a->doc_y = a->doc_x = 0;
        a->pipe_top = 0;
        break;
    case SC_STAGE:
        if (!app_shown_available(a, (Shown)c->kind))
            return av_errorf(err, _("stage %s: not in this model"), cli_stage_name((Tensor)c->kind));
        a->shown = (Shown)c->kind;
        break;
    case SC_HEAD:
        if (c->a > m->cfg.heads) return av_errorf(err, _("head %ld: the model has %d"), c->a, m->cfg.heads);
        a->head = (int)c->a - 1;
        break;
    case SC_LAYER:
        if (c->a > m->cfg.layers) return av_errorf(err, _("layer %ld: the model has %d"), c->a, m->cfg.layers);
        model_set_layer(m, (int)c->a - 1);
        break;
    case SC_CURSOR:
        if (c->a >= m->n_q || c->b >= m->n_k)
            return av_errorf(err, _("cursor %ld %ld: the matrix is %d x %d"), c->a, c->b, m->n_q, m->n_k);
        a->ci = (int)c->a, a->cj = (int)c->b;
        break;
    case SC_CHAIN:
        a->pipe_top = (int)c->a; /* clamped to the stages when drawn */
        a->doc_y = 0;
        break;
    case SC_CELL: a->overlay = OVERLAY_CELL; break;
    case SC_CLOSE: a->overlay = OVERLAY_NONE; break;
    case SC_HIGHLIGHT:
        if ((c->a >= 0 && c->a >= m->n_q) || (c->b >= 0 && c->b >= m->n_k))
            return av_errorf(err, _("highlight: outside the %d x %d matrix"), m->n_q, m->n_k);
        a->hl_kind = c->kind, a->hl_i = (int)c->a, a->hl_j = (int)c->b;
        break;
    case SC_CONTRAST: a->row_contrast = (int)c->a; break;
    case SC_NEXT:
        if (c->a && !m->src->next_tokens) return av_errorf(err, _("next on: this model does not predict"));
        a->show_next = (int)c->a;
        break;
    case SC_KEY:
        app_update(a); /* an action that reads the model (N: the next token) sees it up to date */
        if (app_run(a, c->text, c->arg)) return av_errorf(err, "key %s: %s", c->text, a->msg);
        break;
    case SC_QKV:
        if (apply_qkv(m, c, err)) return -1;
        break;
    case SC_PAD:
        if (model_set_pad(m, (int)c->a, err)) return -1;
        break;
    case SC_CAPTION: {
        char *title = c->text ? strdup(c->text) : NULL, *text = c->text ? strdup(c->arg) : NULL;
        if (c->text && (!title || !text)) {
            free(title), free(text);
            return av_error_nomem(err, _("out of memory"));
        }
        free(a->caption_title), free(a->caption_text);
        a->caption_title = title, a->caption_text = text;
        break;
    }
    }
    app_clamp_cursor(a);
    return 0;
}

// ----------------------------------------------------------------------------
// the state

typedef struct {
    char *p;
    size_t n, cap;
    int oom;
} Out;

static void out_add(Out *o, const char *s, size_t n) {
    if (o->oom) return;
    if (o->n + n + 1 > o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 1024;
        while (cap < o->n + n + 1) cap *= 2;
        char *p = realloc(o->p, cap);
        if (!p) {
            o->oom = 1;
            return;
        }
        o->p = p, o->cap = cap;
    }
    memcpy(o->p + o->n, s, n);
    o->n += n;
    o->p[o->n] = '\0';
}

static void out_printf(Out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out_printf(Out *o, const char *fmt, ...) {
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0) out_add(o, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

char *script_quote(const char *s, size_t len) {
    Out o = {0};
    out_add(&o, "\"", 1);
    for (size_t i = 0; i < len;) {
        unsigned char ch = (unsigned char)s[i];
        uint32_t cp;
        int k = utf8_decode(s + i, len - i, &cp);
        if (ch == '\\') out_add(&o, "\\\\", 2);
        else if (ch == '"') out_add(&o, "\\\"", 2);
        else if (ch == '\n') out_add(&o, "\\n", 2);
        else if (ch == '\t') out_add(&o, "\\t", 2);
        else if (ch == '\r') out_add(&o, "\\r", 2);
        else if (cp == UTF8_INVALID || cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0)) {
            for (int b = 0; b < k; b++) out_printf(&o, "\\x%02X", (unsigned char)s[i + b]);
        } else out_add(&o, s + i, (size_t)k);
        i += (size_t)k;
    }
    out_add(&o, "\"", 1);
    if (o.oom) return free(o.p), NULL;
    return o.p;
}

/* One number of a Q/K/V file: the fewest digits that read back as the same
 * float32 (and within qkv_parse's range: FLT_MAX's 9 digits are above it,
 * its 17 are exact), with '.' whatever the locale's decimal point (qkv_parse
 * takes '.'). */
static void out_float(Out *o, float v) {
    char buf[64];
    int p = 1;
    for (; p <= 9; p++) {
        snprintf(buf, sizeof buf, "%.*g", p, (double)v);
        double back = strtod(buf, NULL);
        if ((float)back == v && fabs(back) <= FLT_MAX) break;
    }
    if (p > 9) snprintf(buf, sizeof buf, "%.17g", (double)v);
    const char *point = localeconv()->decimal_point;
    if (point && point[0] && !point[1] && point[0] != '.') {
        char *at = strchr(buf, point[0]);
        if (at) *at = '.';
    }
    out_add(o, buf, strlen(buf));
}

/* A block of the file: its label, then rows x cols numbers a row. */
static void out_block(Out *o, const char *label, const float *x, int rows, int cols) {
    out_printf(o, "%s:\n", label);
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            out_float(o, x[(size_t)i * cols + j]);
            out_add(o, j + 1 < cols ? " " : "\n", 1);
        }
}

/* A Q/K/V source's file again, from the model's copy of its matrices and
 * labels (source_qkv.c keeps the QkvData), as the qkv command's line. */
static void out_qkv(Out *o, const Model *m) {
    const QkvData *d = m->src_data;
    Out f = {0};
    if (d->has_tokens) {
        out_add(&f, "tokens:", 7);
        for (int j = 0; j < d->n_k; j++) out_add(&f, " ", 1), out_add(&f, d->key_tokens[j], strlen(d->key_tokens[j]));
        out_add(&f, "\n", 1);
    }
    out_block(&f, "Q", d->q, d->n_q, d->d_k);
    out_block(&f, "K", d->k, d->n_k, d->d_k);
    out_block(&f, "V", d->v, d->n_k, d->d_v);
    char *q = f.oom ? NULL : script_quote(f.p, f.n);
    if (!q) o->oom = 1;
    else out_add(o, "qkv ", 4), out_add(o, q, strlen(q)), out_add(o, "\n", 1);
    free(q);
    free(f.p);
}

char *script_state(const App *a, size_t *len) {
    const Model *m = a->m;
    const ModelConfig *g = &m->cfg;
    Out o = {0};
    if (m->src == &source_qkv) out_qkv(&o, m);
    if (model_can(m, SRC_TOKENIZERS) && m->tokenizer && tok_preset(m->tokenizer) != TOK_CUSTOM)
        out_printf(&o, "tokenizer %s\n", tok_preset_name(tok_preset(m->tokenizer)));
    if (model_can(m, SRC_TEXT) && m->text) {
        char *q = script_quote(m->text, m->text_len);
        if (!q) o.oom = 1;
        else out_add(&o, "sentence ", 9), out_add(&o, q, strlen(q)), out_add(&o, "\n", 1);
        free(q);
    }
    if (model_can(m, SRC_TOKENIZERS)) {
        if (m->target) {
            char *q = script_quote(m->target, m->target_len);
            if (!q) o.oom = 1;
            else out_add(&o, "target ", 7), out_add(&o, q, strlen(q)), out_add(&o, "\n", 1);
            free(q);
        } else out_add(&o, "target\n", 7);
        out_printf(&o, "pad %d\n", m->n_pad);
    }
    char mask[64];
    model_mask_name(g, mask, sizeof mask);
    if (model_can(m, SRC_RESHAPE))
        out_printf(&o, "config d_model=%d heads=%d d_k=%d d_v=%d seed=%llu pos=%s tie=%s attn=%s\n", g->d_model,
                   g->heads, g->d_k, g->d_v, (unsigned long long)g->seed, pos_name(g->pos), g->tie_qk ? "on" : "off",
                   attn_mode_name(g->attn));
    /* the score first: "scaled" and "dot" set the scaling, which follows */
    if (model_can(m, SRC_SCORE_KINDS)) out_printf(&o, "config score=%s\n", score_name(g->score, 1));
    /* without a seeded sentence the seed draws only additive attention's weights */
    if (!model_can(m, SRC_RESHAPE) && model_can(m, SRC_SCORE_KINDS) && g->score == SCORE_ADDITIVE)
        out_printf(&o, "config seed=%llu\n", (unsigned long long)g->seed);
    out_printf(&o, "config mask=%s scale=%s\n", mask, g->scale ? "on" : "off");
    if (g->layers > 1) out_printf(&o, "layer %d\n", m->layer + 1);
    out_printf(&o, "view %s\nstage %s\nhead %d\ncursor %d %d\n", app_view_name(a->view), cli_stage_name(a->shown),
               a->head + 1, a->ci, a->cj);
    if (a->view == VIEW_PIPELINE && a->pipe_top > 0) out_printf(&o, "chain %d\n", a->pipe_top);
    out_printf(&o, "%s\n", a->overlay == OVERLAY_CELL ? "cell" : "close");
    if (a->hl_kind == HL_ROW) out_printf(&o, "highlight row %d\n", a->hl_i);
    else if (a->hl_kind == HL_COL) out_printf(&o, "highlight col %d\n", a->hl_j);
    else if (a->hl_kind == HL_CELL) out_printf(&o, "highlight cell %d %d\n", a->hl_i, a->hl_j);
    else out_add(&o, "highlight none\n", 15);
    out_printf(&o, "contrast %s\n", a->row_contrast ? "on" : "off");
    if (m->src->next_tokens) out_printf(&o, "next %s\n", a->show_next ? "on" : "off");
    if (o.oom) return free(o.p), NULL;
    if (len) *len = o.n;
    return o.p;
}
