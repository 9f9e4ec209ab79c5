/* longtext.h - a sentence longer than the model can take (longtext.c):
 * the offer to keep its first tokens. Internal to tui/. */
#ifndef ATTNVIZ_LONGTEXT_H
#define ATTNVIZ_LONGTEXT_H

#include <stddef.h>

#include "app.h"

/* After model_set_text refused text[0..len): when the text has more tokens
 * than fit and at least one fits, the offer is made (a->keep_text and the
 * message "4265 tokens, 2048 fit: y keeps the first 2048; another key
 * changes nothing") and 1 returned; otherwise 0 and nothing changed. */
int app_offer_first_tokens(App *a, const char *text, size_t len);

/* The key after the offer: y keeps the first tokens (the sentence becomes
 * the text cut after them), any other key leaves the sentence; either way
 * the offer is gone. Returns 1 (redraw). */
int app_first_tokens_key(App *a, AppKey k);

/* The cursor to a token (the / prompt, app_run's "jump TEXT"): TEXT is its
 * position (0-based, as the labels number them) or a part of its text, found
 * from the row after the cursor's on, round the sentence (ASCII letters in
 * either case). The query row and the key column go there; the message says
 * which and how many tokens match. The text is kept for the next /. Returns
 * 0, or -1 when there is no such token (the message says so). */
int app_jump(App *a, const char *text, size_t len);

#endif
