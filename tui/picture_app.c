/* picture_app.c - P: the screen written as a picture (picture.h), from the
 * app (app.h: app_write_picture, app_picture_name). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app_internal.h"
#include "atomicfile.h"
#include "i18n.h"
#include "picture.h"
#include "utf8.h"

void app_picture_name(const App *a, char *buf, size_t cap) {
    const char *stage = tensor_info(a->shown)->name;
    char layer[32] = "";
    if (a->m->cfg.layers > 1) snprintf(layer, sizeof layer, "-layer%d", a->m->layer + 1);
    switch (a->view) {
    case VIEW_HEADS: snprintf(buf, cap, "attnviz%s-heads-%s.svg", layer, stage); break;
    case VIEW_PIPELINE: snprintf(buf, cap, "attnviz%s-head%d-chain.svg", layer, a->head + 1); break;
    case VIEW_GRAVITY: snprintf(buf, cap, "attnviz%s-head%d-gravity.svg", layer, a->head + 1); break;
    case VIEW_CENSUS: snprintf(buf, cap, "attnviz-census.svg"); break;
    default: snprintf(buf, cap, "attnviz%s-head%d-%s.svg", layer, a->head + 1, stage); break;
    }
}

int app_write_picture(App *a, const char *path, int overwrite) {
    char *shown = utf8_escape(path, strlen(path));
    const char *name = shown ? shown : _("the file");
    PictureFormat fmt;
    int rc = -1;
    struct stat st;
    if (picture_format_of(path, &fmt) || fmt == PIC_PDF) {
        app_say(a, 1, _("%s: a picture is .svg, .png or .html (a PDF: attnviz --figure --export FILE.pdf)"), name);
    } else if (!overwrite && lstat(path, &st) == 0) {
        free(a->picture_pending);
        a->picture_pending = strdup(path);
        if (a->picture_pending) app_say(a, 1, _("%s exists: y replaces it, any other key keeps it"), name);
        else app_say(a, 1, "%s", _("out of memory"));
    } else {
        int w = a->screen_w > 0 ? a->screen_w : 80, h = a->screen_h > 0 ? a->screen_h : 24;
        Canvas *cv = cv_new(w, h);
        AvError err = {0};
        unsigned char *buf = NULL;
        size_t len = 0;
        if (!cv) app_say(a, 1, "%s", _("out of memory for the picture"));
        else {
            a->msg[0] = '\0'; /* the screen as it was before P */
            app_draw(a, cv);
            if (picture_render(cv, palette_theme() == THEME_DARK, fmt, &buf, &len, &err) ||
                av_write_file_atomic(path, buf, len, &err))
                app_say(a, 1, _("%s; nothing written"), err.msg);
            else {
                app_say(a, 0, _("wrote %s (%s, %d x %d cells)"), name, picture_format_name(fmt), w, h);
                rc = 0;
            }
        }
        free(buf);
        cv_free(cv);
    }
    free(shown);
    return rc;
}
