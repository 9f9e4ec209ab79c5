/* jsonkeys.h - a JSON object with a key twice. cJSON keeps both members and
 * its lookups find the first: a config.json with "n_layer" twice was read
 * with its first value, in silence. The readers of JSON (config.json, the
 * shard index, tokenizer.json, the safetensors header) refuse it instead. */
#ifndef ATTNVIZ_JSONKEYS_H
#define ATTNVIZ_JSONKEYS_H

#include <cJSON.h>

#include "error.h"

/* 0 when no object in root (at any depth) has a key twice; else -1 with
 * "FILE: the key "K" appears twice (in PATH); each key must be unique"
 * (PATH: the dotted keys down to the object, escaped; "at the top level").
 * `file` is used as given (escape it first). O(n log n) in the keys. */
int json_unique_keys(const cJSON *root, const char *file, AvError *err);

#endif
