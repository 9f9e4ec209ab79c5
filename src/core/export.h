/* export.h - every stage of a model as text, JSON or CSV (DESIGN.md §3).
 *
 * Writes to a stream the caller owns (stdout in the CLI, a memory stream in
 * tests). Token labels are escaped for each format: JSON and CSV by their
 * rules, text with utf8_escape so no control character reaches a terminal. */
#ifndef ATTNVIZ_EXPORT_H
#define ATTNVIZ_EXPORT_H

#include <stdio.h>

#include "model.h"

typedef enum { EXPORT_TEXT, EXPORT_JSON, EXPORT_CSV } ExportFormat;

int export_parse_format(const char *s, ExportFormat *out); /* 0 ok, -1 unknown */

/* The model must be up to date (model_update). Returns 0, or -1 when the
 * stream reports a write error. */
int export_model(FILE *f, const Model *m, ExportFormat fmt);

/* The configuration as key=value words, written in one place:
 *   EXPORT_STATUS_SCREEN  the status line of the screen (DESIGN.md §4,
 *                         contract): d_model heads d_k [d_v] mask scale pos seed
 *   EXPORT_STATUS_DUMP    the first line of --dump=text: every field
 * A Q/K/V file has no d_model, positions or seed. Always NUL-terminated. */
typedef enum { EXPORT_STATUS_SCREEN, EXPORT_STATUS_DUMP } ExportStatus;
void export_status_words(char *buf, size_t cap, const Model *m, ExportStatus kind);

/* Name of the tokenizer in use: "words", "gpt2", "chars" or "custom". */
const char *export_tokenizer_name(const Model *m);

#endif
