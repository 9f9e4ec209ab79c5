/* maskname.c - see maskname.h. */
#include "maskname.h"

#include <stdio.h>

#include "i18n.h"

void mask_shown_name(const ModelConfig *c, char *buf, size_t cap) {
    switch (c->mask) {
    /* TRANSLATORS: the mask kinds as the pipeline and the cell page name them
       (-m causal | window:W | prefix:P | padding | painted | none) */
    case MASK_CAUSAL: snprintf(buf, cap, "%s", _("causal")); break;
    case MASK_WINDOW: snprintf(buf, cap, _("window:%d"), c->window); break;
    case MASK_PREFIX: snprintf(buf, cap, _("prefix:%d"), c->prefix); break;
    case MASK_PADDING: snprintf(buf, cap, "%s", _("padding")); break;
    case MASK_PAINTED: snprintf(buf, cap, "%s", _("painted")); break;
    case MASK_NONE: snprintf(buf, cap, "%s", _("none")); break;
    default: model_mask_name(c, buf, cap); break;
    }
}
