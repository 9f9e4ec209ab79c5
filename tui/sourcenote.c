/* sourcenote.c - see sourcenote.h. */
#include "sourcenote.h"

#include <stdio.h>
#include <string.h>

#include "i18n.h"
#include "keymap.h"

/* By the source's name (source.h: "text", "qkv", "model"). */
static const struct {
    const char *source, *lacks;
} lacks_notes[] = {
    {"qkv", N_("a Q/K/V file has no embeddings X and no W_O")},
    {"model", N_("a trained model has no seeded embeddings to show here")},
};

const char *source_lacks_note(const Source *s) {
    for (size_t i = 0; i < sizeof lacks_notes / sizeof *lacks_notes; i++)
        if (strcmp(s->name, lacks_notes[i].source) == 0) return _(lacks_notes[i].lacks);
    return _("its rows come with no embeddings X and no W_O");
}

/* The key of an action as the help screen shows it ("m"). */
static const char *key_of(Action act) {
    for (int i = 0; i < keymap_count; i++)
        if (keymap[i].action == act) return keymap[i].label;
    return "?";
}

void source_knobs_note(const Source *s, char *buf, size_t cap) {
    if (s->caps & SRC_TEXT)
        snprintf(buf, cap, _("the sentence (%s), the mask (%s) and the scaling (%s) can change"), key_of(ACT_EDIT),
                 key_of(ACT_MASK), key_of(ACT_SCALE));
    else
        snprintf(buf, cap, _("only the mask (%s) and the scaling (%s) can change"), key_of(ACT_MASK),
                 key_of(ACT_SCALE));
}
