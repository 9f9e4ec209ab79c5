/* weights.c - the element types of a tensor of weights and their
 * conversion to floats (weights.h). */
#include "weights.h"

#include <string.h>

#include "quant.h"

/* size: bytes of an element (0 for a block type); ggml: its number in quant.h */
static const struct {
    const char *name;
    size_t size;
    int ggml;
} dtypes[ST_N_DTYPES] = {
    [ST_F32] = {"F32", 4, QT_F32},    [ST_F16] = {"F16", 2, QT_F16},     [ST_BF16] = {"BF16", 2, QT_BF16},
    [ST_F64] = {"F64", 8, QT_F64},    [ST_I64] = {"I64", 8, QT_I64},     [ST_U64] = {"U64", 8, -1},
    [ST_I32] = {"I32", 4, QT_I32},    [ST_U32] = {"U32", 4, -1},         [ST_I16] = {"I16", 2, QT_I16},
    [ST_U16] = {"U16", 2, -1},        [ST_I8] = {"I8", 1, QT_I8},        [ST_U8] = {"U8", 1, -1},
    [ST_BOOL] = {"BOOL", 1, -1},      [ST_F8_E4M3] = {"F8_E4M3", 1, -1}, [ST_F8_E5M2] = {"F8_E5M2", 1, -1},
    [ST_Q8_0] = {"Q8_0", 0, QT_Q8_0}, [ST_Q4_0] = {"Q4_0", 0, QT_Q4_0},  [ST_Q4_1] = {"Q4_1", 0, QT_Q4_1},
    [ST_Q5_0] = {"Q5_0", 0, QT_Q5_0}, [ST_Q5_1] = {"Q5_1", 0, QT_Q5_1},  [ST_Q2_K] = {"Q2_K", 0, QT_Q2_K},
    [ST_Q3_K] = {"Q3_K", 0, QT_Q3_K}, [ST_Q4_K] = {"Q4_K", 0, QT_Q4_K},  [ST_Q5_K] = {"Q5_K", 0, QT_Q5_K},
    [ST_Q6_K] = {"Q6_K", 0, QT_Q6_K},
};

const char *st_dtype_name(StDtype d) { return (unsigned)d < (unsigned)ST_N_DTYPES ? dtypes[d].name : "?"; }
size_t st_dtype_size(StDtype d) { return (unsigned)d < (unsigned)ST_N_DTYPES ? dtypes[d].size : 0; }

int st_block_size(StDtype d) { return st_is_block(d) ? quant_block_size(dtypes[d].ggml) : 1; }

size_t st_bytes(StDtype d, uint64_t n) {
    if ((unsigned)d >= (unsigned)ST_N_DTYPES) return 0;
    return st_is_block(d) ? quant_bytes(dtypes[d].ggml, n) : (size_t)n * dtypes[d].size;
}

int st_dtype_of_ggml(int ggml_type) {
    for (int d = 0; d < ST_N_DTYPES; d++)
        if ((st_is_float((StDtype)d) || st_is_block((StDtype)d)) && dtypes[d].ggml == ggml_type) return d;
    return -1;
}

static float bits_f32(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static float f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 0x1F, m = h & 0x3FF;
    if (e == 0) { /* zero and subnormals: m * 2^-24, exact in a float */
        float v = (float)m * 0x1p-24f;
        return sign ? -v : v;
    }
    if (e == 31) return bits_f32(sign | 0x7F800000u | m << 13); /* inf, NaN (payload kept) */
    return bits_f32(sign | (e + 112) << 23 | m << 13);
}

void st_to_f32(const StTensor *t, size_t first, size_t n, float *out) {
    size_t size = st_dtype_size(t->dtype);
    const unsigned char *p = t->data + first * size;
    switch (t->dtype) {
    case ST_F32:
        for (size_t i = 0; i < n; i++, p += 4)
            out[i] = bits_f32((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
        break;
    case ST_F16:
        for (size_t i = 0; i < n; i++, p += 2) out[i] = f16_to_f32((uint16_t)(p[0] | p[1] << 8));
        break;
    case ST_BF16:
        for (size_t i = 0; i < n; i++, p += 2) out[i] = bits_f32(((uint32_t)p[0] | (uint32_t)p[1] << 8) << 16);
        break;
    default:
        if (st_is_block(t->dtype)) { /* whole blocks: first and n multiples of the block */
            int qt = dtypes[t->dtype].ggml;
            quant_dequantize(out, t->data + quant_bytes(qt, first), (QuantType)qt, n);
        } else memset(out, 0, sizeof *out * n);
        break;
    }
}
