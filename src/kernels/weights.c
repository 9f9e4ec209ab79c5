/* weights.c - the element types of a tensor of weights and their
 * conversion to floats (weights.h). */
#include "weights.h"

#include <string.h>

static const struct {
    const char *name;
    size_t size;
} dtypes[] = {{"F32", 4}, {"F16", 2}, {"BF16", 2}, {"F64", 8}, {"I64", 8},  {"U64", 8},     {"I32", 4},    {"U32", 4},
              {"I16", 2}, {"U16", 2}, {"I8", 1},   {"U8", 1},  {"BOOL", 1}, {"F8_E4M3", 1}, {"F8_E5M2", 1}};
#define N_DTYPES (int)(sizeof dtypes / sizeof *dtypes)

const char *st_dtype_name(StDtype d) { return (unsigned)d < (unsigned)N_DTYPES ? dtypes[d].name : "?"; }
size_t st_dtype_size(StDtype d) { return (unsigned)d < (unsigned)N_DTYPES ? dtypes[d].size : 0; }

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
    default: memset(out, 0, sizeof *out * n); break;
    }
}
