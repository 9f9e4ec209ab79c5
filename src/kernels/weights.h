/* weights.h - a tensor of weights as a file holds it: a view (StTensor) of
 * elements in the file's own type (StDtype), in a mapping, read as floats by
 * st_to_f32 where the kernels pack their panels. The readers of the formats
 * (src/formats/) make the views; the engine (src/engine/) reads them.
 *
 * Two kinds of type: element types (safetensors' F32, F16, BF16, ...), one
 * element a few bytes, and ggml's block types (GGUF's Q8_0, Q4_K, ...), a
 * block of 32 or 256 elements in so many bytes (quant.h). A block type stays
 * quantized in the mapping: st_to_f32 dequantizes whole blocks, a row or a
 * part of one, where a product packs it, so a quantized model is never floats
 * as a whole. */
#ifndef ATTNVIZ_WEIGHTS_H
#define ATTNVIZ_WEIGHTS_H

#include <stddef.h>
#include <stdint.h>

#define ST_MAX_DIMS 8

typedef enum {
    ST_F32 = 0,
    ST_F16,
    ST_BF16,
    /* known, validated, never converted: */
    ST_F64,
    ST_I64,
    ST_U64,
    ST_I32,
    ST_U32,
    ST_I16,
    ST_U16,
    ST_I8,
    ST_U8,
    ST_BOOL,
    ST_F8_E4M3,
    ST_F8_E5M2,
    /* ggml's block types (GGUF): dequantized a row at a time (quant.h) */
    ST_Q8_0,
    ST_Q4_0,
    ST_Q4_1,
    ST_Q5_0,
    ST_Q5_1,
    ST_Q2_K,
    ST_Q3_K,
    ST_Q4_K,
    ST_Q5_K,
    ST_Q6_K,
    ST_N_DTYPES
} StDtype;

typedef struct {
    const char *name;            /* as in the header (owned by the file) */
    StDtype dtype;               /* the file's element type */
    int ndim;                    /* 0 (a scalar) .. ST_MAX_DIMS */
    uint64_t shape[ST_MAX_DIMS]; /* row-major: shape[ndim - 1] varies fastest */
    uint64_t count;              /* elements: the product of the shape */
    const unsigned char *data;   /* count elements, little-endian, in the mapping */
    size_t bytes;                /* st_bytes(dtype, count) */
    uint64_t begin;              /* data_offsets[0], relative to the data start */
} StTensor;

/* "F32", "F16", "BF16", ..., "Q8_0", "Q4_K" / 4, 2, 2, ... bytes of an
 * element (0 for a block type: an element has no whole bytes). */
const char *st_dtype_name(StDtype d);
size_t st_dtype_size(StDtype d);
/* 1 for F32, F16 and BF16: the element types st_to_f32 converts. */
static inline int st_is_float(StDtype d) { return d == ST_F32 || d == ST_F16 || d == ST_BF16; }
/* 1 for a block type (ST_Q8_0 .. ST_Q6_K): st_to_f32 dequantizes them too. */
static inline int st_is_block(StDtype d) { return d >= ST_Q8_0 && d < ST_N_DTYPES; }
/* Elements of a block (1 for an element type; 32 or 256). */
int st_block_size(StDtype d);
/* Bytes of n elements (n a multiple of the block), 0 for an unknown type. */
size_t st_bytes(StDtype d, uint64_t n);
/* The block type of ggml's type number (quant.h's QuantType: Q8_0 is 8),
 * F32, F16 and BF16 their element types; -1 for a type the engine does not
 * read. */
int st_dtype_of_ggml(int ggml_type);

/* Elements first .. first + n - 1 of t as floats into out[n] (F16 with its
 * subnormals, infinities and NaNs; BF16 as the high 16 bits of an f32; a
 * block type as ggml's dequantize_row_*, bit for bit: first and n must then
 * be multiples of its block). The range must be inside t (first + n <=
 * t->count); another type gives zeros (never asked: the readers refuse it). */
void st_to_f32(const StTensor *t, size_t first, size_t n, float *out);

#endif
