/* quant.h - ggml's tensor types (the `type` of a GGUF tensor): their block
 * sizes, and rows of the ones attnviz reads dequantized into floats.
 *
 * Weights stay in the file's own type, in the mapping; a kernel turns a row
 * (or a range of whole blocks) into floats where it packs its panel. The
 * numbers are those of ggml's dequantize_row_* (ggml-common.h's block
 * layouts, ggml-quants.c's arithmetic, with the same order of float
 * operations and nothing fused: the build has -ffp-contract=off), so the
 * weights attnviz multiplies are the bits llama.cpp's reference gives.
 *
 * Block layouts (all little-endian; d, m, dmin are IEEE half floats):
 *   F32, F16, BF16   one element per "block"
 *   Q8_0   32 elements, 34 bytes: d, 32 x int8            x = q d
 *   Q4_0   32, 18: d, 16 bytes of nibbles (low: 0..15, high: 16..31)   x = (q - 8) d
 *   Q4_1   32, 20: d, m, 16 bytes of nibbles                x = q d + m
 *   Q5_0   32, 22: d, qh (32 fifth bits), 16 bytes of nibbles    x = (q - 16) d
 *   Q5_1   32, 24: d, m, qh, nibbles                        x = q d + m
 *   Q2_K   256, 84:  16 x (4-bit scale | 4-bit min), 64 bytes of 2-bit quants, d, dmin
 *   Q3_K   256, 110: 32 bytes of high bits, 64 of 2-bit quants, 12 of 6-bit scales, d
 *   Q4_K   256, 144: d, dmin, 12 bytes of 8 6-bit scales and mins, 128 of nibbles
 *   Q5_K   256, 176: d, dmin, 12 of scales and mins, 32 of high bits, 128 of nibbles
 *   Q6_K   256, 210: 128 bytes of low nibbles, 64 of 2-bit highs, 16 int8 scales, d
 * The other ggml types (IQ*, TQ*, MXFP4, the integers, ...) are known by
 * their sizes, so that a file holding them is read and described, but not
 * dequantized: quant_supported says which are. */
#ifndef ATTNVIZ_QUANT_H
#define ATTNVIZ_QUANT_H

#include <stddef.h>
#include <stdint.h>

/* ggml's type numbers (ggml.h enum ggml_type), as GGUF stores them. */
typedef enum {
    QT_F32 = 0,
    QT_F16 = 1,
    QT_Q4_0 = 2,
    QT_Q4_1 = 3,
    /* 4, 5: Q4_2, Q4_3, removed from ggml */
    QT_Q5_0 = 6,
    QT_Q5_1 = 7,
    QT_Q8_0 = 8,
    QT_Q8_1 = 9,
    QT_Q2_K = 10,
    QT_Q3_K = 11,
    QT_Q4_K = 12,
    QT_Q5_K = 13,
    QT_Q6_K = 14,
    QT_Q8_K = 15,
    QT_IQ2_XXS = 16,
    QT_IQ2_XS = 17,
    QT_IQ3_XXS = 18,
    QT_IQ1_S = 19,
    QT_IQ4_NL = 20,
    QT_IQ3_S = 21,
    QT_IQ2_S = 22,
    QT_IQ4_XS = 23,
    QT_I8 = 24,
    QT_I16 = 25,
    QT_I32 = 26,
    QT_I64 = 27,
    QT_F64 = 28,
    QT_IQ1_M = 29,
    QT_BF16 = 30,
    /* 31..33: the Q4_0_x_y repacks, no longer in GGUF files */
    QT_TQ1_0 = 34,
    QT_TQ2_0 = 35,
    /* 36..38: the IQ4_NL_x_y repacks */
    QT_MXFP4 = 39,
    QT_NVFP4 = 40,
    QT_Q1_0 = 41,
    QT_Q2_0 = 42,
    QT_COUNT = 43
} QuantType;

#define QK_K 256 /* the elements of a K-quant super-block */

/* "F32", "Q4_K", "IQ2_XXS", ... as gguf-py names them; NULL when `type`
 * is not a ggml type (a removed one, or past the table). */
const char *quant_name(int type);

/* Elements per block and bytes per block; 0 when `type` is not a ggml type. */
int quant_block_size(int type);
size_t quant_block_bytes(int type);

/* 1 for the types quant_dequantize reads: F32, F16, BF16, Q8_0, Q4_0,
 * Q4_1, Q5_0, Q5_1, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K. */
int quant_supported(int type);

/* "F32, F16, BF16, Q8_0, ..." (for a message naming what is read). */
const char *quant_supported_list(void);

/* Bytes of n elements of `type`, n a multiple of its block (a row, or the
 * offset of a block inside a row); 0 when it is not a ggml type. No
 * overflow check: n is a row the file was validated to hold. */
size_t quant_bytes(int type, uint64_t n);

/* out[0..n) = the n elements stored at src, a supported `type`; n a
 * multiple of its block size. src may be unaligned (it is read byte by byte
 * as little-endian); out must not overlap it. */
void quant_dequantize(float *out, const void *src, QuantType type, size_t n);

/* IEEE half and bfloat16 to float, exactly (F16 subnormals and infinities
 * included; a NaN stays a NaN, quieted as ggml's conversion does). */
float quant_f16_to_f32(uint16_t h);
float quant_bf16_to_f32(uint16_t h);

#endif
