/* gguf.h - a GGUF file (llama.cpp's, Ollama's blobs, LM Studio's models),
 * mapped read-only and validated completely before any value or tensor is
 * used (issue 28).
 *
 * The format (little-endian; versions 2 and 3 read the same way):
 *   "GGUF", u32 version, u64 tensor count, u64 metadata count,
 *   metadata: key (a string), u32 value type, the value;
 *   tensor infos: name (a string), u32 n_dims, n_dims x u64 dims (the
 *     innermost, a row, first), u32 ggml type, u64 offset (relative to the
 *     data section);
 *   padding to general.alignment (u32, a power of two; 32 when absent),
 *   the data section: each tensor at its offset, a multiple of the alignment.
 * A string is a u64 length and that many bytes (no NUL); a value types is
 * one of GgufType; an array is u32 element type, u64 count, the elements
 * (arrays of arrays too: nested).
 *
 * Checked before gguf_open returns: the magic and the version; the counts
 * against what the bytes left could hold (no allocation of a count the file
 * cannot back); every key non-empty, without a NUL byte, at most 65535 bytes,
 * unique; every value type known, every string and array inside the file,
 * bools 0 or 1, arrays nested at most GGUF_MAX_DEPTH deep; general.alignment
 * a u32 power of two; every tensor name 1..63 bytes (ggml's limit), without
 * NUL, unique; at most 4 dims; its type a ggml type (quant.h), its rows a
 * multiple of the type's block, its element count and size without
 * overflow; its offset a multiple of the alignment, its bytes inside the
 * data section, no two tensors overlapping. Each failure is one line naming
 * the file, the key or tensor and what was wrong, e.g.
 *   "m.gguf: tensor blk.0.attn_q.weight: Q4_K rows of 100 elements are not a multiple of its block of 256"
 * Names and keys in messages are escaped (utf8_escape): safe on a terminal.
 *
 * A type that is a ggml type but not one attnviz dequantizes (IQ2_XXS, ...)
 * is accepted here, so that a file can be described; gguf_tensor_readable
 * refuses it in one line where the weights are needed. */
#ifndef ATTNVIZ_GGUF_H
#define ATTNVIZ_GGUF_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "quant.h"

#define GGUF_MAX_DIMS          4  /* ggml's GGML_MAX_DIMS */
#define GGUF_MAX_NAME          63 /* bytes of a tensor name (ggml's GGML_MAX_NAME - 1) */
#define GGUF_MAX_KEY           65535
#define GGUF_MAX_DEPTH         8 /* arrays of arrays of ... */
#define GGUF_DEFAULT_ALIGNMENT 32

/* The metadata value types (gguf.h's enum gguf_type). */
typedef enum {
    GGUF_UINT8 = 0,
    GGUF_INT8 = 1,
    GGUF_UINT16 = 2,
    GGUF_INT16 = 3,
    GGUF_UINT32 = 4,
    GGUF_INT32 = 5,
    GGUF_FLOAT32 = 6,
    GGUF_BOOL = 7,
    GGUF_STRING = 8,
    GGUF_ARRAY = 9,
    GGUF_UINT64 = 10,
    GGUF_INT64 = 11,
    GGUF_FLOAT64 = 12,
    GGUF_TYPE_COUNT
} GgufType;

/* A string in the mapping: len bytes, not NUL-terminated, any bytes. */
typedef struct {
    const char *s;
    size_t len;
} GgufStr;

/* A metadata value (or an element of an array of arrays). */
typedef struct {
    const char *key;           /* NUL-terminated (owned by the file) */
    GgufType type;             /* the value's type */
    GgufType elem;             /* an array's element type (GGUF_ARRAY: nested); else = type */
    uint64_t n;                /* an array's length; 1 for a scalar */
    const unsigned char *data; /* the value in the mapping (an array: its first element) */
    size_t bytes;              /* of the value (an array: of all its elements, without the count) */
} GgufKv;

typedef struct {
    const char *name;           /* NUL-terminated (owned by the file) */
    QuantType type;             /* a ggml type (quant_name gives its name) */
    int ndim;                   /* 0..GGUF_MAX_DIMS as the file says */
    uint64_t ne[GGUF_MAX_DIMS]; /* ne[0] innermost (a row); the unused ones 1 */
    uint64_t count;             /* elements: the product of ne */
    uint64_t rows;              /* ne[1] * ne[2] * ne[3] */
    size_t row_bytes;           /* quant_bytes(type, ne[0]) */
    size_t bytes;               /* row_bytes * rows (0 when any ne is 0) */
    uint64_t offset;            /* relative to the data section */
    const unsigned char *data;  /* in the mapping, aligned as the file says */
} GgufTensor;

typedef struct Gguf Gguf;

/* Maps `path` (a regular file) and validates it. Returns the file (free with
 * gguf_close: every GgufKv, GgufStr and GgufTensor becomes invalid), or NULL
 * with one line. */
Gguf *gguf_open(const char *path, AvError *err);

/* The same over buf[0..size), which must stay valid and unchanged until
 * gguf_close (not freed by it); `name` is used in messages (escaped). */
Gguf *gguf_open_mem(const void *buf, size_t size, const char *name, AvError *err);

void gguf_close(Gguf *g); /* NULL is a no-op */

uint32_t gguf_version(const Gguf *g);
uint64_t gguf_alignment(const Gguf *g);
uint64_t gguf_data_offset(const Gguf *g); /* of the data section in the file */
const char *gguf_file(const Gguf *g);     /* the name used in messages (escaped) */

/* "u8", "i8", ..., "str", "arr", "u64", "i64", "f64"; "?" past the table. */
const char *gguf_type_name(int type);

// ----------------------------------------------------------------------------
// metadata

int gguf_kv_count(const Gguf *g);
const GgufKv *gguf_kv_at(const Gguf *g, int i);             /* in the file's order; NULL out of range */
const GgufKv *gguf_kv_find(const Gguf *g, const char *key); /* NULL when absent */

/* Typed getters. Each returns 0 with *out set when the key is there with a
 * fitting type, 1 when it is absent (*out untouched: a default stays), -1
 * with one line ("FILE: key K: ...") when it is there but of another type
 * or out of range. */
/* Any integer type (u8 .. i64), its value in [min, max]. */
int gguf_get_int(const Gguf *g, const char *key, int64_t min, int64_t max, int64_t *out, AvError *err);
/* f32 or f64 (or an integer), finite. */
int gguf_get_float(const Gguf *g, const char *key, double *out, AvError *err);
int gguf_get_bool(const Gguf *g, const char *key, int *out, AvError *err);
int gguf_get_str(const Gguf *g, const char *key, GgufStr *out, AvError *err);
/* An array whose elements are `elem` (GGUF_UINT8 .. GGUF_INT64 as `elem`
 * accepts any integer type when `any_int` is set). */
int gguf_get_array(const Gguf *g, const char *key, GgufType elem, int any_int, const GgufKv **out, AvError *err);

/* One line "FILE: no key K" (for a key a caller needs); returns -1. */
int gguf_missing(const Gguf *g, const char *key, AvError *err);

/* The elements of an array, all of them (kv->n into out[]): strings, as
 * pointers into the mapping; integers (any integer type) as int64 (a u64
 * above INT64_MAX as INT64_MAX); floats (f32, f64, or integers) as float;
 * nested arrays as GgufKv (key: the parent's). Another element type leaves
 * out untouched and returns -1; else 0. */
int gguf_array_strings(const GgufKv *kv, GgufStr *out);
int gguf_array_ints(const GgufKv *kv, int64_t *out);
int gguf_array_floats(const GgufKv *kv, float *out);
int gguf_array_arrays(const GgufKv *kv, GgufKv *out);

/* A scalar's value (the type must match: else 0). */
int64_t gguf_kv_int(const GgufKv *kv);  /* any integer or bool */
double gguf_kv_float(const GgufKv *kv); /* f32, f64 */
GgufStr gguf_kv_str(const GgufKv *kv);  /* a string; {NULL, 0} otherwise */

// ----------------------------------------------------------------------------
// tensors

int gguf_tensor_count(const Gguf *g);
const GgufTensor *gguf_tensor_at(const Gguf *g, int i);              /* in the file's order */
const GgufTensor *gguf_tensor_find(const Gguf *g, const char *name); /* NULL when absent */

/* 0 when quant_dequantize reads t's type; else -1 with
 * "FILE: tensor NAME: type IQ2_XXS is not one attnviz reads (F32, F16, ...)". */
int gguf_tensor_readable(const Gguf *g, const GgufTensor *t, AvError *err);

/* Row r of t (r < t->rows), in the file's type: row_bytes bytes. */
static inline const unsigned char *gguf_row(const GgufTensor *t, uint64_t r) {
    return t->data + (size_t)r * t->row_bytes;
}

#endif
