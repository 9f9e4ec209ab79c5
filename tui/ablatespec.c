/* ablatespec.c - --ablate's list (cli.h: cli_parse_ablate), also the
 * argument of the ablate action (X's, actions.c). */
#include "cli.h"

#include <string.h>

#include "i18n.h"
#include "number.h"

/* --ablate L.H[,L.H...][:zero|:mean]: heads 1-based (layer.head), one
 * mode for the list (zero by default), each head once; the ranges of the
 * model are checked when it is open (build.c). */
int cli_parse_ablate(const char *s, HeadAblation *out, int *n_out, AvError *err) {
    const char *colon = strrchr(s, ':');
    int mean = 0;
    size_t len = strlen(s);
    if (colon) {
        if (strcmp(colon + 1, "mean") == 0) mean = 1;
        else if (strcmp(colon + 1, "zero") != 0)
            return av_errorf(err, _("--ablate: unknown mode '%s' (expected zero or mean)"), colon + 1);
        len = (size_t)(colon - s);
    }
    int n = 0;
    *n_out = 0;
    for (size_t at = 0; at <= len;) {
        size_t end = at;
        while (end < len && s[end] != ',') end++;
        char item[32];
        long l, h;
        char *dot;
        if (end - at >= sizeof item || end == at)
            return av_errorf(err, _("--ablate: '%.*s' is not layer.head (as 5.6; a list: 2.1,5.6)"), (int)(end - at),
                             s + at);
        memcpy(item, s + at, end - at);
        item[end - at] = '\0';
        if (!(dot = strchr(item, '.')))
            return av_errorf(err, _("--ablate: '%s' is not layer.head (as 5.6; a list: 2.1,5.6)"), item);
        *dot = '\0';
        if (num_parse_long(item, 1, MODEL_MAX_LAYERS, &l) != NUM_OK ||
            num_parse_long(dot + 1, 1, MODEL_MAX_HEADS, &h) != NUM_OK) {
            *dot = '.';
            return av_errorf(err, _("--ablate: '%s' is not layer.head with layer 1..%d and head 1..%d"), item,
                             MODEL_MAX_LAYERS, MODEL_MAX_HEADS);
        }
        for (int k = 0; k < n; k++)
            if (out[k].layer == l - 1 && out[k].head == h - 1)
                return av_errorf(err, _("--ablate: head %ld.%ld is listed twice"), l, h);
        if (n == SOURCE_MAX_ABLATED) return av_errorf(err, _("--ablate: at most %d heads"), SOURCE_MAX_ABLATED);
        out[n++] = (HeadAblation){(int)l - 1, (int)h - 1, mean};
        at = end + 1;
    }
    *n_out = n;
    return 0;
}
