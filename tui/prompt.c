/* prompt.c - the one-line prompts (d_k, the sentence, the target): opening
 * one on the value it edits, its keys, and what Enter applies; pasted text. */
#include <stdio.h>
#include <string.h>

#include "app_internal.h"
#include "cli.h"
#include "i18n.h"
#include "longtext.h"
#include "readfile.h"
#include "utf8.h"
#include "number.h"

void app_open_prompt(App *a, PromptKind kind) {
    char init[32];
    const char *text = init;
    size_t len = 0, max = 16;
    if (kind == PROMPT_DK) {
        len = (size_t)snprintf(init, sizeof init, "%d", a->m->cfg.d_k);
    } else if (kind == PROMPT_PICTURE) {
        static _Thread_local char name[256]; /* the frame's thread: le_init copies it */
        app_picture_name(a, name, sizeof name);
        text = name;
        len = strlen(name);
        max = 4096;
    } else if (kind == PROMPT_JUMP) {
        text = a->jump_last;
        len = strlen(text);
        max = sizeof a->jump_last - 1;
    } else if (kind == PROMPT_TARGET) {
        text = a->m->target;
        len = text ? a->m->target_len : 0;
        max = AV_MAX_INPUT_BYTES;
    } else {
        /* By length: a sentence from a file may hold NULs, and Enter on it
         * untouched must give back every byte. */
        text = a->m->text;
        len = text ? a->m->text_len : 0;
        max = AV_MAX_INPUT_BYTES;
    }
    le_free(&a->edit);
    if (le_init(&a->edit, text, len, max)) {
        app_say(a, 1, "%s", _("out of memory"));
        return;
    }
    /* The value offered, selected: typing replaces it (d 8 Enter is d_k 8),
     * an editing key keeps it and edits it. */
    le_select_all(&a->edit);
    a->prompt = kind;
    a->msg[0] = '\0';
}

/* Enter: the prompt's text applied (d_k, the target, the sentence); when it is
 * refused the message says why and nothing changed. */
static void finish_prompt(App *a) {
    PromptKind kind = a->prompt;
    a->prompt = PROMPT_NONE;
    if (kind == PROMPT_DK) {
        AvError err = {0};
        long v;
        /* A NUL (pasted) would end the number early: "6\0" is not 6. */
        if (strlen(a->edit.buf) != a->edit.len) {
            app_say(a, 1, _("d_k: not a number; d_k stays %d"), a->m->cfg.d_k);
            le_free(&a->edit);
            return;
        }
        if (cli_parse_int(a->edit.buf, 1, MODEL_MAX_DIM, "d_k", &v, &err)) {
            app_say(a, 1, _("%s; d_k stays %d"), err.msg, a->m->cfg.d_k);
            return;
        }
        app_set_dk(a, v);
    } else if (kind == PROMPT_TARGET) {
        AvError err = {0};
        int none = a->edit.len == 0;
        if (model_set_target(a->m, none ? NULL : a->edit.buf, a->edit.len, &err)) {
            app_say(a, 1, _("%s; the target stays as it was"), err.msg);
            return;
        }
        app_clamp_cursor(a);
        if (none) app_say(a, 0, "%s", _("no target sentence: self-attention only"));
        else
            app_say(a, 0,
                    P_("target: %d token (x: cross-attention)", "target: %d tokens (x: cross-attention)",
                       a->m->target_tokens.n),
                    a->m->target_tokens.n);
    } else if (kind == PROMPT_JUMP) {
        app_jump(a, a->edit.buf, a->edit.len);
    } else if (kind == PROMPT_PICTURE) {
        if (strlen(a->edit.buf) != a->edit.len || a->edit.len == 0)
            app_say(a, 1, "%s", _("picture: no file name; nothing written"));
        else app_write_picture(a, a->edit.buf, 0);
    } else if (kind == PROMPT_TEXT) {
        AvError err = {0};
        if (model_set_text(a->m, a->edit.buf, a->edit.len, &err)) {
            if (!app_offer_first_tokens(a, a->edit.buf, a->edit.len))
                app_say(a, 1, _("%s; the sentence stays as it was"), err.msg);
            return;
        }
        app_clamp_cursor(a);
        app_say(a, 0, P_("%d token", "%d tokens", a->m->n_q), a->m->n_q);
    }
    le_free(&a->edit);
}

int app_prompt_key(App *a, AppKey k) {
    LeKey lk = LE_KEY_CHAR;
    uint32_t cp = 0;
    if (k.is_code) {
        switch ((int)k.ch) {
        case APP_KEY_LEFT: lk = LE_KEY_LEFT; break;
        case APP_KEY_RIGHT: lk = LE_KEY_RIGHT; break;
        case APP_KEY_HOME: lk = LE_KEY_HOME; break;
        case APP_KEY_END: lk = LE_KEY_END; break;
        case APP_KEY_BACKSPACE: lk = LE_KEY_BACKSPACE; break;
        case APP_KEY_DELETE: lk = LE_KEY_DELETE; break;
        case APP_KEY_ENTER: lk = LE_KEY_ENTER; break;
        default: return 0;
        }
    } else {
        switch (k.ch) {
        case 27: lk = LE_KEY_ESCAPE; break;
        case '\n':
        case '\r': lk = LE_KEY_ENTER; break;
        case 127:
        case 8: lk = LE_KEY_BACKSPACE; break;
        case 1: lk = LE_KEY_HOME; break;
        case 5: lk = LE_KEY_END; break;
        case 21: lk = LE_KEY_KILL; break;
        default:
            /* A typed control key that is not an editing key (Ctrl-B, Tab)
             * is a slip, not text; pasted controls come by app_paste_char. */
            if (k.ch < 0xA0 && utf8_is_unsafe(k.ch)) return 1;
            cp = k.ch;
            break;
        }
    }
    switch (le_key(&a->edit, lk, cp)) {
    case LE_DONE: finish_prompt(a); break;
    case LE_CANCEL:
        a->prompt = PROMPT_NONE;
        le_free(&a->edit);
        app_say(a, 0, "%s", _("cancelled"));
        break;
    default: break;
    }
    return 1;
}

int app_paste_char(App *a, uint32_t cp) {
    if (a->prompt == PROMPT_NONE) {
        app_say(a, 1, "%s", _("pasted text ignored: e edits the sentence, E the target"));
        return 1;
    }
    le_key(&a->edit, LE_KEY_CHAR, cp);
    return 1;
}
