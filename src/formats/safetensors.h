/* safetensors.h - Hugging Face's .safetensors checkpoint, mapped read-only
 * and validated completely before any tensor is used (issue 14).
 *
 * The format: a little-endian u64 N, N bytes of JSON (a header), then the
 * data. The header is an object: each key a tensor name, its value
 *   {"dtype": "F32" | "F16" | "BF16" | ..., "shape": [d0, d1, ...],
 *    "data_offsets": [begin, end]}
 * with [begin, end) relative to the data start (8 + N), raw little-endian
 * row-major elements; and an optional "__metadata__": an object of strings.
 *
 * Checked before st_open returns: N at most the file size - 8 and at most
 * ST_MAX_HEADER; the header valid JSON and an object (trailing spaces, as
 * writers pad it, allowed); every tensor's dtype one of the format's (the
 * three floats a model's weights are in, and F64, the integers, BOOL and
 * the two F8s, which checkpoints carry as buffers: GPT-2's attention mask,
 * position ids); an unknown one is refused, named; its shape at most ST_MAX_DIMS non-negative integers
 * whose product times the dtype's size equals end - begin (computed with
 * overflow checks), begin <= end <= the data length, no two tensors'
 * ranges overlapping (gaps between them are allowed), every name unique
 * (cJSON keeps duplicate keys: they are found and refused). Each failure is
 * one line naming the file, the tensor and what was wrong:
 *   "m.safetensors: tensor w: shape [2, 3] is 6 F32 elements = 24 bytes, but data_offsets [0, 20) hold 20"
 * Names in messages are escaped (utf8_escape): they are safe on a terminal.
 *
 * The weights stay in the file's own type, in the mapping: `data` points
 * into it, possibly unaligned (8 + N need not be a multiple of 4), so read
 * elements with st_to_f32, which converts F32, F16 and BF16 (st_is_float):
 * a reader of weights refuses the other types, naming the tensor. */
#ifndef ATTNVIZ_SAFETENSORS_H
#define ATTNVIZ_SAFETENSORS_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "weights.h"

#define ST_MAX_HEADER ((uint64_t)100 << 20) /* 100 MiB of JSON */

typedef struct SafeTensors SafeTensors;

/* Maps `path` (a regular file) and validates it. Returns the file (free with
 * st_close: every StTensor and its data become invalid), or NULL with a
 * message. */
SafeTensors *st_open(const char *path, AvError *err);

/* The same over buf[0..size), which must stay valid and unchanged until
 * st_close (not freed by it); `name` is used in messages (escaped). */
SafeTensors *st_open_mem(const void *buf, size_t size, const char *name, AvError *err);

void st_close(SafeTensors *st); /* NULL is a no-op */

/* The tensors, in the order of their data (by begin). */
int st_count(const SafeTensors *st);
const StTensor *st_at(const SafeTensors *st, int i);              /* NULL when out of range */
const StTensor *st_find(const SafeTensors *st, const char *name); /* NULL when absent */

/* The value of `key` in __metadata__, or NULL. */
const char *st_metadata(const SafeTensors *st, const char *key);

// ----------------------------------------------------------------------------
// a checkpoint folder: one file or shards

typedef struct StModel StModel;

/* Opens dir/model.safetensors, or else dir/model.safetensors.index.json
 * (its "weight_map": tensor name -> shard file in dir) and every shard it
 * names. Each shard is validated as st_open does; then a tensor in two
 * shards, a weight_map entry whose shard does not hold it, a shard name
 * that is not a plain file name, or a missing shard is refused in one line.
 * Free with st_model_close. */
StModel *st_open_dir(const char *dir, AvError *err);
void st_model_close(StModel *m); /* NULL is a no-op */

/* Every tensor of every shard, sorted by name. */
int st_model_count(const StModel *m);
const StTensor *st_model_at(const StModel *m, int i);
const StTensor *st_model_find(const StModel *m, const char *name); /* NULL when absent */
int st_model_files(const StModel *m);                              /* how many files: 1, or the shards */
/* The file ("model.safetensors" or a shard's name, escaped) that holds tensor `name`, or NULL. */
const char *st_model_file_of(const StModel *m, const char *name);

#endif
