/* weights.h - a tensor of weights as a file holds it: a view (StTensor) of
 * elements in the file's own type (StDtype), in a mapping, read as floats by
 * st_to_f32 where the kernels pack their panels. The readers of the formats
 * (src/formats/) make the views; the engine (src/engine/) reads them. */
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
    ST_N_DTYPES
} StDtype;

typedef struct {
    const char *name;            /* as in the header (owned by the file) */
    StDtype dtype;               /* the file's element type */
    int ndim;                    /* 0 (a scalar) .. ST_MAX_DIMS */
    uint64_t shape[ST_MAX_DIMS]; /* row-major: shape[ndim - 1] varies fastest */
    uint64_t count;              /* elements: the product of the shape */
    const unsigned char *data;   /* count elements, little-endian, in the mapping */
    size_t bytes;                /* count * st_dtype_size(dtype) */
    uint64_t begin;              /* data_offsets[0], relative to the data start */
} StTensor;

/* "F32", "F16", "BF16", ... / 4, 2, 2, ... bytes. */
const char *st_dtype_name(StDtype d);
size_t st_dtype_size(StDtype d);
/* 1 for F32, F16 and BF16: the types st_to_f32 converts. */
static inline int st_is_float(StDtype d) { return d == ST_F32 || d == ST_F16 || d == ST_BF16; }

/* Elements first .. first + n - 1 of t as floats into out[n] (F16 with its
 * subnormals, infinities and NaNs; BF16 as the high 16 bits of an f32).
 * The range must be inside t (first + n <= t->count); another type gives
 * zeros (never asked: the readers refuse it). */
void st_to_f32(const StTensor *t, size_t first, size_t n, float *out);

#endif
