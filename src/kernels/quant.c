/* quant.c - see quant.h. One function per block layout, each written from
 * ggml-common.h's struct and doing ggml-quants.c's dequantize_row_*
 * arithmetic in the same order (a scale times a small integer, then minus
 * or plus a float: two roundings, never fused), so that the floats are the
 * same bits. Blocks are read byte by byte: a block of 18, 22 or 34 bytes
 * leaves its halves at any address, and the file is little-endian whatever
 * the machine. */
#include "quant.h"

#include <string.h>

// ----------------------------------------------------------------------------
// the types

static const struct {
    const char *name;
    int block;   /* elements per block */
    size_t size; /* bytes per block */
} types[QT_COUNT] = {
    [QT_F32] = {"F32", 1, 4},
    [QT_F16] = {"F16", 1, 2},
    [QT_Q4_0] = {"Q4_0", 32, 18},
    [QT_Q4_1] = {"Q4_1", 32, 20},
    [QT_Q5_0] = {"Q5_0", 32, 22},
    [QT_Q5_1] = {"Q5_1", 32, 24},
    [QT_Q8_0] = {"Q8_0", 32, 34},
    [QT_Q8_1] = {"Q8_1", 32, 36},
    [QT_Q2_K] = {"Q2_K", QK_K, 84},
    [QT_Q3_K] = {"Q3_K", QK_K, 110},
    [QT_Q4_K] = {"Q4_K", QK_K, 144},
    [QT_Q5_K] = {"Q5_K", QK_K, 176},
    [QT_Q6_K] = {"Q6_K", QK_K, 210},
    [QT_Q8_K] = {"Q8_K", QK_K, 292},
    [QT_IQ2_XXS] = {"IQ2_XXS", QK_K, 66},
    [QT_IQ2_XS] = {"IQ2_XS", QK_K, 74},
    [QT_IQ3_XXS] = {"IQ3_XXS", QK_K, 98},
    [QT_IQ1_S] = {"IQ1_S", QK_K, 50},
    [QT_IQ4_NL] = {"IQ4_NL", 32, 18},
    [QT_IQ3_S] = {"IQ3_S", QK_K, 110},
    [QT_IQ2_S] = {"IQ2_S", QK_K, 82},
    [QT_IQ4_XS] = {"IQ4_XS", QK_K, 136},
    [QT_I8] = {"I8", 1, 1},
    [QT_I16] = {"I16", 1, 2},
    [QT_I32] = {"I32", 1, 4},
    [QT_I64] = {"I64", 1, 8},
    [QT_F64] = {"F64", 1, 8},
    [QT_IQ1_M] = {"IQ1_M", QK_K, 56},
    [QT_BF16] = {"BF16", 1, 2},
    [QT_TQ1_0] = {"TQ1_0", QK_K, 54},
    [QT_TQ2_0] = {"TQ2_0", QK_K, 66},
    [QT_MXFP4] = {"MXFP4", 32, 17},
    [QT_NVFP4] = {"NVFP4", 64, 36},
    [QT_Q1_0] = {"Q1_0", 128, 18},
    [QT_Q2_0] = {"Q2_0", 64, 18},
};

static int known(int type) { return type >= 0 && type < QT_COUNT && types[type].name; }

const char *quant_name(int type) { return known(type) ? types[type].name : NULL; }
int quant_block_size(int type) { return known(type) ? types[type].block : 0; }
size_t quant_block_bytes(int type) { return known(type) ? types[type].size : 0; }

size_t quant_bytes(int type, uint64_t n) {
    return known(type) ? (size_t)(n / (uint64_t)types[type].block) * types[type].size : 0;
}

int quant_supported(int type) {
    switch (type) {
    case QT_F32:
    case QT_F16:
    case QT_BF16:
    case QT_Q8_0:
    case QT_Q4_0:
    case QT_Q4_1:
    case QT_Q5_0:
    case QT_Q5_1:
    case QT_Q2_K:
    case QT_Q3_K:
    case QT_Q4_K:
    case QT_Q5_K:
    case QT_Q6_K: return 1;
    default: return 0;
    }
}

const char *quant_supported_list(void) {
    return "F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K";
}

// ----------------------------------------------------------------------------
// scalars

static float bits_f32(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t rd32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint32_t f32_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* Exact, without a branch (so that a row of them vectorizes): a normal half
 * is its bits moved into a float's place and scaled by 2^-112 (which also
 * carries infinities and NaNs over); a subnormal m * 2^-24 is built as the
 * float 0.5 + m * 2^-24 minus 0.5 (Maratyszcza's FP16, as ggml does it). */
float quant_f16_to_f32(uint16_t h) {
    const uint32_t w = (uint32_t)h << 16, sign = w & 0x80000000u, two_w = w + w;
    const float normal = bits_f32((two_w >> 4) + (0xE0u << 23)) * 0x1p-112f;
    const float subnormal = bits_f32((two_w >> 17) | (126u << 23)) - 0.5f;
    return bits_f32(sign | (two_w < (1u << 27) ? f32_bits(subnormal) : f32_bits(normal)));
}

float quant_bf16_to_f32(uint16_t h) { return bits_f32((uint32_t)h << 16); }

static inline float f16(const uint8_t *p) { return quant_f16_to_f32(rd16(p)); }

// ----------------------------------------------------------------------------
// blocks of 32: each function reads one block b and writes y[0..32)

/* Q8_0: d, qs[32] int8. */
static void block_q8_0(float *y, const uint8_t *b) {
    const float d = f16(b);
    for (int j = 0; j < 32; j++) y[j] = (float)(int8_t)b[2 + j] * d;
}

/* Q4_0: d, qs[16]; byte j holds element j (low nibble) and j + 16 (high). */
static void block_q4_0(float *y, const uint8_t *b) {
    const float d = f16(b);
    const uint8_t *qs = b + 2;
    for (int j = 0; j < 16; j++) {
        y[j] = (float)((qs[j] & 0x0F) - 8) * d;
        y[j + 16] = (float)((qs[j] >> 4) - 8) * d;
    }
}

/* Q4_1: d, m, qs[16]. */
static void block_q4_1(float *y, const uint8_t *b) {
    const float d = f16(b), m = f16(b + 2);
    const uint8_t *qs = b + 4;
    for (int j = 0; j < 16; j++) {
        y[j] = (float)(qs[j] & 0x0F) * d + m;
        y[j + 16] = (float)(qs[j] >> 4) * d + m;
    }
}

/* Q5_0: d, qh (bit j = the fifth bit of element j), qs[16]. */
static void block_q5_0(float *y, const uint8_t *b) {
    const float d = f16(b);
    const uint32_t qh = rd32(b + 2);
    const uint8_t *qs = b + 6;
    for (int j = 0; j < 16; j++) {
        int h0 = (int)((qh >> j) << 4 & 0x10), h1 = (int)((qh >> (j + 12)) & 0x10);
        y[j] = (float)(((qs[j] & 0x0F) | h0) - 16) * d;
        y[j + 16] = (float)(((qs[j] >> 4) | h1) - 16) * d;
    }
}

/* Q5_1: d, m, qh, qs[16]. */
static void block_q5_1(float *y, const uint8_t *b) {
    const float d = f16(b), m = f16(b + 2);
    const uint32_t qh = rd32(b + 4);
    const uint8_t *qs = b + 8;
    for (int j = 0; j < 16; j++) {
        int h0 = (int)((qh >> j) << 4 & 0x10), h1 = (int)((qh >> (j + 12)) & 0x10);
        y[j] = (float)((qs[j] & 0x0F) | h0) * d + m;
        y[j + 16] = (float)((qs[j] >> 4) | h1) * d + m;
    }
}

// ----------------------------------------------------------------------------
// super-blocks of 256: y[0..256)

/* Q2_K: scales[16] (low nibble a scale, high a min), qs[64], d, dmin. Each
 * 128 elements take 32 bytes of qs, four 2-bit planes of them, 16 elements
 * per scale. */
static void block_q2_K(float *y, const uint8_t *b) {
    const uint8_t *sc = b, *q = b + 16;
    const float d = f16(b + 80), min = f16(b + 82);
    int is = 0;
    for (int n = 0; n < QK_K; n += 128, q += 32) {
        for (int shift = 0; shift < 8; shift += 2) {
            for (int half = 0; half < 2; half++) {
                const uint8_t s = sc[is++];
                const float dl = d * (float)(s & 0xF), ml = min * (float)(s >> 4);
                for (int l = 0; l < 16; l++) *y++ = dl * (float)((q[l + 16 * half] >> shift) & 3) - ml;
            }
        }
    }
}

/* The 16 6-bit scales of Q3_K, minus 32: scale j has its low 4 bits in byte
 * j (j < 8, low nibble) or j - 8 (high nibble), its high 2 bits in byte
 * 8 + j % 4 at bit 2 (j / 4). */
static void q3_K_scales(int *out, const uint8_t *s) {
    for (int j = 0; j < 16; j++) {
        int low = j < 8 ? s[j] & 0xF : s[j - 8] >> 4;
        int high = (s[8 + j % 4] >> (2 * (j / 4))) & 3;
        out[j] = (low | high << 4) - 32;
    }
}

/* Q3_K: hmask[32] (bit k of byte l: the high bit of element 32 k + l), qs[64]
 * as Q2_K's, scales[12], d. An element is (2 low bits) - 4 when its high bit
 * is 0. */
static void block_q3_K(float *y, const uint8_t *b) {
    const uint8_t *hm = b, *q = b + 32;
    const float d = f16(b + 108);
    int scale[16];
    q3_K_scales(scale, b + 96);
    int is = 0;
    unsigned m = 1;
    for (int n = 0; n < QK_K; n += 128, q += 32) {
        for (int shift = 0; shift < 8; shift += 2, m <<= 1) {
            for (int half = 0; half < 2; half++) {
                const float dl = d * (float)scale[is++];
                const uint8_t *qq = q + 16 * half, *hh = hm + 16 * half;
                for (int l = 0; l < 16; l++) *y++ = dl * (float)(((qq[l] >> shift) & 3) - ((hh[l] & m) ? 0 : 4));
            }
        }
    }
}

/* Scale and min j (0..7) of Q4_K and Q5_K, 6 bits each in 12 bytes: j < 4 in
 * the low 6 bits of bytes j and j + 4; j >= 4 as a nibble of byte j + 4 with
 * its top 2 bits in the top of byte j - 4 (scale) or j (min). */
static void k4_scale_min(int j, const uint8_t *q, int *sc, int *mn) {
    if (j < 4) {
        *sc = q[j] & 63, *mn = q[j + 4] & 63;
    } else {
        *sc = (q[j + 4] & 0xF) | (q[j - 4] >> 6) << 4;
        *mn = (q[j + 4] >> 4) | (q[j] >> 6) << 4;
    }
}

/* Q4_K: d, dmin, scales[12], qs[128]; each 64 elements: 32 bytes, the low
 * nibbles first (scale 2i), then the high (scale 2i + 1). */
static void block_q4_K(float *y, const uint8_t *b) {
    const float d = f16(b), min = f16(b + 2);
    const uint8_t *scales = b + 4, *q = b + 16;
    for (int is = 0; is < 8; is += 2, q += 32) {
        int sc, mn;
        k4_scale_min(is, scales, &sc, &mn);
        const float d1 = d * (float)sc, m1 = min * (float)mn;
        k4_scale_min(is + 1, scales, &sc, &mn);
        const float d2 = d * (float)sc, m2 = min * (float)mn;
        for (int l = 0; l < 32; l++) *y++ = d1 * (float)(q[l] & 0xF) - m1;
        for (int l = 0; l < 32; l++) *y++ = d2 * (float)(q[l] >> 4) - m2;
    }
}

/* Q5_K: d, dmin, scales[12], qh[32], qs[128]; as Q4_K, plus 16 where bit
 * is (low nibbles) or is + 1 (high) of qh[l] is set. */
static void block_q5_K(float *y, const uint8_t *b) {
    const float d = f16(b), min = f16(b + 2);
    const uint8_t *scales = b + 4, *qh = b + 16, *ql = b + 48;
    unsigned u1 = 1, u2 = 2;
    for (int is = 0; is < 8; is += 2, ql += 32, u1 <<= 2, u2 <<= 2) {
        int sc, mn;
        k4_scale_min(is, scales, &sc, &mn);
        const float d1 = d * (float)sc, m1 = min * (float)mn;
        k4_scale_min(is + 1, scales, &sc, &mn);
        const float d2 = d * (float)sc, m2 = min * (float)mn;
        for (int l = 0; l < 32; l++) *y++ = d1 * (float)((ql[l] & 0xF) + (qh[l] & u1 ? 16 : 0)) - m1;
        for (int l = 0; l < 32; l++) *y++ = d2 * (float)((ql[l] >> 4) + (qh[l] & u2 ? 16 : 0)) - m2;
    }
}

/* Q6_K: ql[128], qh[64], scales[16] int8, d. Each 128 elements: 64 bytes of
 * ql (elements l and l + 64 in byte l, l + 32 and l + 96 in byte l + 32),
 * 32 of qh (two high bits of each of the four), 8 scales of 16 elements. */
static void block_q6_K(float *y, const uint8_t *b) {
    const uint8_t *ql = b, *qh = b + 128;
    const int8_t *sc = (const int8_t *)(b + 192);
    const float d = f16(b + 208);
    for (int n = 0; n < QK_K; n += 128, y += 128, ql += 64, qh += 32, sc += 8) {
        for (int l = 0; l < 32; l++) {
            const int is = l / 16;
            const int q1 = ((ql[l] & 0xF) | ((qh[l] >> 0) & 3) << 4) - 32;
            const int q2 = ((ql[l + 32] & 0xF) | ((qh[l] >> 2) & 3) << 4) - 32;
            const int q3 = ((ql[l] >> 4) | ((qh[l] >> 4) & 3) << 4) - 32;
            const int q4 = ((ql[l + 32] >> 4) | ((qh[l] >> 6) & 3) << 4) - 32;
            y[l] = d * (float)sc[is] * (float)q1;
            y[l + 32] = d * (float)sc[is + 2] * (float)q2;
            y[l + 64] = d * (float)sc[is + 4] * (float)q3;
            y[l + 96] = d * (float)sc[is + 6] * (float)q4;
        }
    }
}

// ----------------------------------------------------------------------------
// rows

typedef void (*BlockFn)(float *y, const uint8_t *b);

static BlockFn block_fn(QuantType type) {
    switch (type) {
    case QT_Q8_0: return block_q8_0;
    case QT_Q4_0: return block_q4_0;
    case QT_Q4_1: return block_q4_1;
    case QT_Q5_0: return block_q5_0;
    case QT_Q5_1: return block_q5_1;
    case QT_Q2_K: return block_q2_K;
    case QT_Q3_K: return block_q3_K;
    case QT_Q4_K: return block_q4_K;
    case QT_Q5_K: return block_q5_K;
    case QT_Q6_K: return block_q6_K;
    default: return NULL;
    }
}

void quant_dequantize(float *out, const void *src, QuantType type, size_t n) {
    const uint8_t *p = src;
    switch (type) {
    case QT_F32:
        for (size_t i = 0; i < n; i++, p += 4) out[i] = bits_f32(rd32(p));
        return;
    case QT_F16:
        for (size_t i = 0; i < n; i++, p += 2) out[i] = quant_f16_to_f32(rd16(p));
        return;
    case QT_BF16:
        for (size_t i = 0; i < n; i++, p += 2) out[i] = quant_bf16_to_f32(rd16(p));
        return;
    default: break;
    }
    BlockFn fn = block_fn(type);
    if (!fn) { /* never asked: callers check quant_supported */
        memset(out, 0, sizeof *out * n);
        return;
    }
    const size_t block = (size_t)types[type].block, size = types[type].size;
    for (size_t i = 0; i + block <= n; i += block, p += size) fn(out + i, p);
}
