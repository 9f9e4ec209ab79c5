#!/usr/bin/env python3
"""GGUF files for attnviz's tests, written with NumPy from the published format
(ggml's docs/gguf.md, gguf.h) and block layouts (ggml-common.h), with
quantizers written again from ggml's reference quantize_row_*_ref (the
functions llama.cpp's tools use to make files deterministically).

  gguf_writer.py write DIR
      DIR/types.gguf   one tensor "t.TYPE" per type (F32, F16, BF16, Q8_0,
                       Q4_0, Q4_1, Q5_0, Q5_1, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K) of
                       512 x 6 (rows of 512: two K-quant super-blocks), from
                       seeded values with awkward blocks (zeros, a constant,
                       one outlier, tiny values, all negative); and an
                       IQ2_XXS tensor "t.IQ2_XXS" of zero blocks (a type
                       attnviz knows but does not read)
      DIR/t.TYPE.f32   its rows dequantized by this file's own dequantizers
                       (little-endian float32, row after row): the values
                       attnviz must give, bit for bit
      DIR/t.TYPE.src.f32  the values before quantization
      DIR/meta.gguf    a value of every metadata type and an array of every
                       element type (test_gguf.c knows them), general.alignment
                       64, three small tensors
      DIR/nested.gguf  arrays of arrays (3 deep), version 2
  gguf_writer.py seeds DIR
      small inputs for the fuzzer's seed corpus (tests/fuzz/corpus/gguf/: a
      mode byte, then a file)
  gguf_writer.py ggml LIBDIR DIR
      llama.cpp's own ggml as the reference (LIBDIR holds libggml-base.so,
      e.g. npm node-llama-cpp's bins/linux-x64): its quantize_row_*_ref on
      the same values gives the same bytes as this file's quantizers, its
      dequantize_row_* the same floats as DIR/t.TYPE.f32, and its GGUF
      reader opens types.gguf and meta.gguf with the same keys, values and
      tensors (and refuses nested.gguf: ggml reads no arrays of arrays).
      Prints one line per check; exit 1 on a difference.

Float arithmetic is float32 in ggml's order (no FMA), so the bits match:
every constant is np.float32 (NumPy 1.x would widen a Python float).
"""
import ctypes
import os
import struct
import sys

import numpy as np

F = np.float32
QK_K = 256
GROUP_MAX_EPS = F(1e-15)

# ggml type numbers, block elements, block bytes
TYPES = {
    "F32": (0, 1, 4), "F16": (1, 1, 2), "Q4_0": (2, 32, 18), "Q4_1": (3, 32, 20),
    "Q5_0": (6, 32, 22), "Q5_1": (7, 32, 24), "Q8_0": (8, 32, 34),
    "Q2_K": (10, 256, 84), "Q3_K": (11, 256, 110), "Q4_K": (12, 256, 144),
    "Q5_K": (13, 256, 176), "Q6_K": (14, 256, 210), "IQ2_XXS": (16, 256, 66),
    "BF16": (30, 1, 2),
}
READ = ["F32", "F16", "BF16", "Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q5_1",
        "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K"]

# GGUF metadata value types
U8, I8, U16, I16, U32, I32, F32T, BOOL, STR, ARR, U64, I64, F64 = range(13)
SCALAR_FMT = {U8: "<B", I8: "<b", U16: "<H", I16: "<h", U32: "<I", I32: "<i",
              F32T: "<f", BOOL: "<B", U64: "<Q", I64: "<q", F64: "<d"}


# ---------------------------------------------------------------------------
# the file

def gguf_string(s):
    b = s.encode("utf-8") if isinstance(s, str) else bytes(s)
    return struct.pack("<Q", len(b)) + b


def gguf_value(vtype, value):
    """The bytes of a value. An array is (elem_type, [values]); an element
    of an array of arrays is again (elem_type, [values])."""
    if vtype == STR:
        return gguf_string(value)
    if vtype == ARR:
        etype, items = value
        out = struct.pack("<IQ", etype, len(items))
        return out + b"".join(gguf_value(etype, v) for v in items)
    return struct.pack(SCALAR_FMT[vtype], value)


class GGUFWriter:
    """Metadata and tensors, written in the order given. A tensor's values
    are a float32 array whose last axis is a row (ne[0]); it is quantized to
    its type here."""

    def __init__(self, version=3, alignment=32):
        self.version, self.alignment = version, alignment
        self.kvs, self.tensors = [], []

    def kv(self, key, vtype, value):
        self.kvs.append((key, vtype, value))

    def tensor(self, name, values, tname):
        values = np.ascontiguousarray(values, dtype=F)
        raw = quantize(values.reshape(-1, values.shape[-1]), tname)
        self.raw_tensor(name, list(reversed(values.shape)), TYPES[tname][0], raw)

    def raw_tensor(self, name, ne, type_id, raw, offset=None):
        self.tensors.append((name, ne, type_id, raw, offset))

    def data(self):
        head = b"GGUF" + struct.pack("<IQQ", self.version, len(self.tensors), len(self.kvs))
        for key, vtype, value in self.kvs:
            head += gguf_string(key) + struct.pack("<I", vtype) + gguf_value(vtype, value)
        body, infos = b"", b""
        for name, ne, type_id, raw, offset in self.tensors:
            if offset is None:
                body += b"\0" * (-len(body) % self.alignment)
                offset = len(body)
                body += raw
            infos += gguf_string(name) + struct.pack("<I", len(ne)) + b"".join(struct.pack("<Q", n) for n in ne)
            infos += struct.pack("<IQ", type_id, offset)
        head += infos
        if self.tensors:
            head += b"\0" * (-len(head) % self.alignment)
        return head + body

    def write(self, path):
        with open(path, "wb") as f:
            f.write(self.data())


# ---------------------------------------------------------------------------
# scalars as ggml computes them

def f16_bits(x):
    """float32 -> IEEE half bits, round to nearest even (ggml's FP32_TO_FP16)."""
    return np.asarray(x, dtype=F).astype(np.float16).view(np.uint16)


def f16_val(bits):
    return np.asarray(bits, dtype=np.uint16).view(np.float16).astype(F)


def nearest_int(v):
    """ggml's nearest_int: v + 1.5 * 2^23 in float32, its low mantissa bits."""
    s = (np.asarray(v, dtype=F) + F(12582912.0)).astype(F)
    return (s.view(np.int32) & 0x007FFFFF) - 0x00400000


def roundf(v):
    """C's roundf: halves away from zero (in float64, exact for a float32)."""
    v = np.asarray(v, dtype=np.float64)
    return (np.sign(v) * np.floor(np.abs(v) + 0.5)).astype(np.int64)


def trunc_int(v):
    """A C cast of a float to an integer: toward zero."""
    return np.trunc(np.asarray(v, dtype=np.float64)).astype(np.int64)


def first_absmax(x):
    """Per row of x: the first value of the largest |value| (ggml's `if (amax
    < fabsf(v))` scan) and that |value|."""
    idx = np.argmax(np.abs(x), axis=1)
    mx = x[np.arange(x.shape[0]), idx]
    return mx.astype(F), np.abs(mx).astype(F)


def safe_div(a, b):
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return (np.asarray(a, dtype=F) / np.asarray(b, dtype=F)).astype(F)


def recip_or_zero(d):
    with np.errstate(divide="ignore"):
        return np.where(d != 0, safe_div(F(1), d), F(0)).astype(F)


def u8(a):
    return np.asarray(a, dtype=np.int64).astype(np.uint8)


# ---------------------------------------------------------------------------
# blocks of 32 (x: (nb, 32) float32; each returns (nb, bytes) uint8)

def q8_0(x):
    amax = np.max(np.abs(x), axis=1).astype(F)
    d = (amax / F(127)).astype(F)
    q = roundf((x * recip_or_zero(d)[:, None]).astype(F))
    return np.concatenate([f16_bits(d)[:, None].view(np.uint8), q.astype(np.int8).view(np.uint8)], axis=1)


def q4_0(x):
    mx, _ = first_absmax(x)
    d = (mx / F(-8)).astype(F)
    idn = recip_or_zero(d)[:, None]
    x0 = (x[:, :16] * idn).astype(F)
    x1 = (x[:, 16:] * idn).astype(F)
    xi0 = np.minimum(15, trunc_int((x0 + F(8.5)).astype(F)))
    xi1 = np.minimum(15, trunc_int((x1 + F(8.5)).astype(F)))
    return np.concatenate([f16_bits(d)[:, None].view(np.uint8), u8(xi0 | xi1 << 4)], axis=1)


def q4_1(x):
    mn, mx = np.min(x, axis=1).astype(F), np.max(x, axis=1).astype(F)
    d = ((mx - mn) / F(15)).astype(F)
    idn = recip_or_zero(d)[:, None]
    x0 = ((x[:, :16] - mn[:, None]) * idn).astype(F)
    x1 = ((x[:, 16:] - mn[:, None]) * idn).astype(F)
    xi0 = np.minimum(15, trunc_int((x0 + F(0.5)).astype(F)))
    xi1 = np.minimum(15, trunc_int((x1 + F(0.5)).astype(F)))
    head = np.concatenate([f16_bits(d)[:, None], f16_bits(mn)[:, None]], axis=1).view(np.uint8)
    return np.concatenate([head, u8(xi0 | xi1 << 4)], axis=1)


def pack_qh(xi0, xi1):
    """The fifth bits: bit j of element j (j < 16), bit j + 16 of element j + 16."""
    bits = np.concatenate([(xi0 >> 4) & 1, (xi1 >> 4) & 1], axis=1).astype(np.uint64)
    qh = np.sum(bits << np.arange(32, dtype=np.uint64), axis=1).astype(np.uint32)
    return qh[:, None].view(np.uint8)


def q5_0(x):
    mx, _ = first_absmax(x)
    d = (mx / F(-16)).astype(F)
    idn = recip_or_zero(d)[:, None]
    xi0 = np.minimum(31, trunc_int(((x[:, :16] * idn).astype(F) + F(16.5)).astype(F)))
    xi1 = np.minimum(31, trunc_int(((x[:, 16:] * idn).astype(F) + F(16.5)).astype(F)))
    qs = u8((xi0 & 15) | (xi1 & 15) << 4)
    return np.concatenate([f16_bits(d)[:, None].view(np.uint8), pack_qh(xi0, xi1), qs], axis=1)


def q5_1(x):
    mn, mx = np.min(x, axis=1).astype(F), np.max(x, axis=1).astype(F)
    d = ((mx - mn) / F(31)).astype(F)
    idn = recip_or_zero(d)[:, None]
    xi0 = trunc_int((((x[:, :16] - mn[:, None]) * idn).astype(F) + F(0.5)).astype(F)) & 0xFF
    xi1 = trunc_int((((x[:, 16:] - mn[:, None]) * idn).astype(F) + F(0.5)).astype(F)) & 0xFF
    qs = u8((xi0 & 15) | (xi1 & 15) << 4)
    head = np.concatenate([f16_bits(d)[:, None], f16_bits(mn)[:, None]], axis=1).view(np.uint8)
    return np.concatenate([head, pack_qh(xi0, xi1), qs], axis=1)


# ---------------------------------------------------------------------------
# the K-quants' searches, vectorized over blocks: each loop over elements
# runs in ggml's order, for all blocks at once

def make_qkx2_quants(x, w, nmax, rmin, rdelta, nstep, use_mad):
    """x, w: (B, n). Returns (scale (B,), the_min (B,), L (B, n))."""
    B, n = x.shape
    with np.errstate(all="ignore"):
        mn, mx = x[:, 0].copy(), x[:, 0].copy()
        sum_w = w[:, 0].copy()
        sum_x = (sum_w * x[:, 0]).astype(F)
        for i in range(1, n):
            mn = np.where(x[:, i] < mn, x[:, i], mn)
            mx = np.where(x[:, i] > mx, x[:, i], mx)
            sum_w = (sum_w + w[:, i]).astype(F)
            sum_x = (sum_x + (w[:, i] * x[:, i]).astype(F)).astype(F)
        mn = np.where(mn > 0, F(0), mn).astype(F)
        flat = mx == mn
        iscale = safe_div(F(nmax), (mx - mn).astype(F))
        scale = safe_div(F(1), iscale)
        L = np.zeros((B, n), dtype=np.int64)
        best = np.zeros(B, dtype=F)
        for i in range(n):
            l = nearest_int((iscale * (x[:, i] - mn).astype(F)).astype(F))
            L[:, i] = np.clip(l, 0, nmax)
            diff = (((scale * L[:, i].astype(F)).astype(F) + mn).astype(F) - x[:, i]).astype(F)
            diff = np.abs(diff) if use_mad else (diff * diff).astype(F)
            best = (best + (w[:, i] * diff).astype(F)).astype(F)
        for step in range(nstep + 1):
            isc = safe_div((F(rmin) + (F(rdelta) * F(step)).astype(F) + F(nmax)).astype(F), (mx - mn).astype(F))
            sum_l = np.zeros(B, dtype=F)
            sum_l2 = np.zeros(B, dtype=F)
            sum_xl = np.zeros(B, dtype=F)
            Laux = np.zeros((B, n), dtype=np.int64)
            for i in range(n):
                l = np.clip(nearest_int((isc * (x[:, i] - mn).astype(F)).astype(F)), 0, nmax)
                Laux[:, i] = l
                lf = l.astype(F)
                wl = (w[:, i] * lf).astype(F)
                sum_l = (sum_l + wl).astype(F)
                sum_l2 = (sum_l2 + (wl * lf).astype(F)).astype(F)
                sum_xl = (sum_xl + (wl * x[:, i]).astype(F)).astype(F)
            D = ((sum_w * sum_l2).astype(F) - (sum_l * sum_l).astype(F)).astype(F)
            ok = D > 0
            this_scale = safe_div(((sum_w * sum_xl).astype(F) - (sum_x * sum_l).astype(F)).astype(F), D)
            this_min = safe_div(((sum_l2 * sum_x).astype(F) - (sum_l * sum_xl).astype(F)).astype(F), D)
            pos = this_min > 0
            this_scale = np.where(pos, safe_div(sum_xl, sum_l2), this_scale).astype(F)
            this_min = np.where(pos, F(0), this_min).astype(F)
            cur = np.zeros(B, dtype=F)
            for i in range(n):
                diff = (((this_scale * Laux[:, i].astype(F)).astype(F) + this_min).astype(F) - x[:, i]).astype(F)
                diff = np.abs(diff) if use_mad else (diff * diff).astype(F)
                cur = (cur + (w[:, i] * diff).astype(F)).astype(F)
            take = ok & (cur < best) & ~flat
            L = np.where(take[:, None], Laux, L)
            best = np.where(take, cur, best).astype(F)
            scale = np.where(take, this_scale, scale).astype(F)
            mn = np.where(take, this_min, mn).astype(F)
        L = np.where(flat[:, None], 0, L)
        scale = np.where(flat, F(0), scale).astype(F)
        return scale, (-mn).astype(F), L


def make_qx_quants_rmse1(x, nmax):
    """make_qx_quants(n, nmax, x, L, rmse_type = 1, NULL), per row of x."""
    B, n = x.shape
    with np.errstate(all="ignore"):
        mx, amax = first_absmax(x)
        zero = amax < GROUP_MAX_EPS
        w = (x * x).astype(F)

        def sums(iscale):
            sumlx = np.zeros(B, dtype=F)
            suml2 = np.zeros(B, dtype=F)
            Ls = np.zeros((B, n), dtype=np.int64)
            for i in range(n):
                l = np.clip(nearest_int((iscale * x[:, i]).astype(F)), -nmax, nmax - 1)
                Ls[:, i] = l + nmax
                lf = l.astype(F)
                sumlx = (sumlx + ((w[:, i] * x[:, i]).astype(F) * lf).astype(F)).astype(F)
                suml2 = (suml2 + ((w[:, i] * lf).astype(F) * lf).astype(F)).astype(F)
            return sumlx, suml2, Ls

        iscale = safe_div(F(-nmax), mx)
        sumlx, suml2, L = sums(iscale)
        scale = np.where(suml2 != 0, safe_div(sumlx, suml2), F(0)).astype(F)
        best = (scale * sumlx).astype(F)
        for step in range(-9, 10):
            if step == 0:
                continue
            isc = safe_div((-(F(nmax) + (F(0.1) * F(step)).astype(F))).astype(F), mx)
            slx, sl2, Ls = sums(isc)
            better = (sl2 > 0) & ((slx * slx).astype(F) > (best * sl2).astype(F))
            L = np.where(better[:, None], Ls, L)
            scale = np.where(better, safe_div(slx, sl2), scale).astype(F)
            best = np.where(better, (scale * slx).astype(F), best).astype(F)
        L = np.where(zero[:, None], 0, L)
        scale = np.where(zero, F(0), scale).astype(F)
        return scale, L


def make_q3_quants(x, nmax):
    """make_q3_quants(n, nmax, x, L, do_rmse = true), per row of x."""
    B, n = x.shape
    with np.errstate(all="ignore"):
        mx, amax = first_absmax(x)
        zero = amax < GROUP_MAX_EPS
        iscale = safe_div(F(-nmax), mx)
        w = (x * x).astype(F)
        L = np.zeros((B, n), dtype=np.int64)
        sumlx = np.zeros(B, dtype=F)
        suml2 = np.zeros(B, dtype=F)
        for i in range(n):
            l = np.clip(nearest_int((iscale * x[:, i]).astype(F)), -nmax, nmax - 1)
            L[:, i] = l
            lf = l.astype(F)
            sumlx = (sumlx + ((w[:, i] * x[:, i]).astype(F) * lf).astype(F)).astype(F)
            suml2 = (suml2 + ((w[:, i] * lf).astype(F) * lf).astype(F)).astype(F)
        # five passes; a block that changed nothing in a pass would change
        # nothing in the next either, so running them all equals ggml's break
        for _ in range(5):
            for i in range(n):
                wx = (w[:, i] * x[:, i]).astype(F)
                Lf = L[:, i].astype(F)
                slx = (sumlx - (wx * Lf).astype(F)).astype(F)
                sl2 = (suml2 - ((w[:, i] * Lf).astype(F) * Lf).astype(F)).astype(F)
                new_l = np.clip(nearest_int(safe_div((x[:, i] * sl2).astype(F), slx)), -nmax, nmax - 1)
                nf = new_l.astype(F)
                slx2 = (slx + (wx * nf).astype(F)).astype(F)
                sl22 = (sl2 + ((w[:, i] * nf).astype(F) * nf).astype(F)).astype(F)
                take = (slx > 0) & (new_l != L[:, i]) & (sl22 > 0) & \
                    (((slx2 * slx2).astype(F) * suml2).astype(F) > ((sumlx * sumlx).astype(F) * sl22).astype(F))
                L[:, i] = np.where(take, new_l, L[:, i])
                sumlx = np.where(take, slx2, sumlx).astype(F)
                suml2 = np.where(take, sl22, suml2).astype(F)
        L = L + nmax
        scale = np.where(suml2 > 0, safe_div(sumlx, suml2), F(0)).astype(F)
        L = np.where(zero[:, None], 0, L)
        scale = np.where(zero, F(0), scale).astype(F)
        return scale, L


def pack_2bit(L):
    """(nb, 256) values 0..3 -> (nb, 64): each 128 elements in 32 bytes, four planes."""
    out = []
    for j in (0, 128):
        out.append(L[:, j:j + 32] | L[:, j + 32:j + 64] << 2 | L[:, j + 64:j + 96] << 4 | L[:, j + 96:j + 128] << 6)
    return u8(np.concatenate(out, axis=1))


def k4_scale_min(scales, j):
    """get_scale_min_k4 over (nb, 12) uint8: (scale, min) of sub-block j."""
    q = scales.astype(np.int64)
    if j < 4:
        return q[:, j] & 63, q[:, j + 4] & 63
    return (q[:, j + 4] & 0xF) | (q[:, j - 4] >> 6) << 4, (q[:, j + 4] >> 4) | (q[:, j] >> 6) << 4


def k4_pack(ls, lm):
    """8 6-bit scales and mins -> 12 bytes (nb, 12)."""
    nb = ls.shape[0]
    s = np.zeros((nb, 12), dtype=np.int64)
    for j in range(8):
        if j < 4:
            s[:, j] = ls[:, j]
            s[:, j + 4] = lm[:, j]
        else:
            s[:, j + 4] = (ls[:, j] & 0xF) | (lm[:, j] & 0xF) << 4
            s[:, j - 4] |= (ls[:, j] >> 4) << 6
            s[:, j] |= (lm[:, j] >> 4) << 6
    return u8(s)


def qk_scales_mins(x, nmax, rmin, rdelta, nstep):
    """Q4_K and Q5_K: the 8 sub-blocks' searches, their scales and mins in
    6 bits, d, dmin, and L requantized with them."""
    nb = x.shape[0]
    sub = x.reshape(nb * 8, 32)
    sum_x2 = np.zeros(nb * 8, dtype=F)
    for l in range(32):
        sum_x2 = (sum_x2 + (sub[:, l] * sub[:, l]).astype(F)).astype(F)
    av_x = np.sqrt((sum_x2 / F(32)).astype(F)).astype(F)
    weights = (av_x[:, None] + np.abs(sub)).astype(F)
    scale, mins, L = make_qkx2_quants(sub, weights, nmax, rmin, rdelta, nstep, False)
    scale, mins, L = scale.reshape(nb, 8), mins.reshape(nb, 8), L.reshape(nb, 256)
    max_scale = np.zeros(nb, dtype=F)
    max_min = np.zeros(nb, dtype=F)
    for j in range(8):
        max_scale = np.where(scale[:, j] > max_scale, scale[:, j], max_scale).astype(F)
        max_min = np.where(mins[:, j] > max_min, mins[:, j], max_min).astype(F)
    inv_scale = np.where(max_scale > 0, safe_div(F(63), max_scale), F(0)).astype(F)
    inv_min = np.where(max_min > 0, safe_div(F(63), max_min), F(0)).astype(F)
    ls = np.minimum(63, nearest_int((inv_scale[:, None] * scale).astype(F)) & 0xFF)
    lm = np.minimum(63, nearest_int((inv_min[:, None] * mins).astype(F)) & 0xFF)
    scales = k4_pack(ls, lm)
    d = f16_bits((max_scale / F(63)).astype(F))
    dmin = f16_bits((max_min / F(63)).astype(F))
    with np.errstate(all="ignore"):
        for j in range(8):
            sc, m = k4_scale_min(scales, j)
            dd = (f16_val(d) * sc.astype(F)).astype(F)
            dm = (f16_val(dmin) * m.astype(F)).astype(F)
            xs = x[:, 32 * j:32 * j + 32]
            l = np.clip(nearest_int(safe_div((xs + dm[:, None]).astype(F), dd[:, None])), 0, nmax)
            L[:, 32 * j:32 * j + 32] = np.where((dd != 0)[:, None], l, L[:, 32 * j:32 * j + 32])
    head = np.concatenate([d[:, None], dmin[:, None]], axis=1).view(np.uint8)
    return head, scales, L


def q4_K(x):
    head, scales, L = qk_scales_mins(x, 15, -1.0, 0.1, 20)
    qs = np.concatenate([L[:, j:j + 32] | L[:, j + 32:j + 64] << 4 for j in range(0, 256, 64)], axis=1)
    return np.concatenate([head, scales, u8(qs)], axis=1)


def q5_K(x):
    head, scales, L = qk_scales_mins(x, 31, -0.5, 0.1, 15)
    nb = x.shape[0]
    qh = np.zeros((nb, 32), dtype=np.int64)
    ql = []
    for k, n in enumerate(range(0, 256, 64)):
        l1, l2 = L[:, n:n + 32], L[:, n + 32:n + 64]
        qh |= (l1 > 15) << (2 * k) | (l2 > 15) << (2 * k + 1)
        ql.append((l1 & 15) | (l2 & 15) << 4)
    return np.concatenate([head, scales, u8(qh), u8(np.concatenate(ql, axis=1))], axis=1)


def q6_K(x):
    nb = x.shape[0]
    scale, L = make_qx_quants_rmse1(x.reshape(nb * 16, 16), 32)
    scale, L = scale.reshape(nb, 16), L.reshape(nb, 256)
    max_scale = np.zeros(nb, dtype=F)
    max_abs = np.zeros(nb, dtype=F)
    for ib in range(16):
        a = np.abs(scale[:, ib])
        bigger = a > max_abs
        max_abs = np.where(bigger, a, max_abs).astype(F)
        max_scale = np.where(bigger, scale[:, ib], max_scale).astype(F)
    zero = max_abs < GROUP_MAX_EPS
    with np.errstate(all="ignore"):
        iscale = safe_div(F(-128), max_scale)
        d = f16_bits(safe_div(F(1), iscale))
        sc = np.minimum(127, nearest_int((iscale[:, None] * scale).astype(F)))
        for j in range(16):
            dd = (f16_val(d) * sc[:, j].astype(F)).astype(F)
            l = np.clip(nearest_int(safe_div(x[:, 16 * j:16 * j + 16], dd[:, None])), -32, 31) + 32
            L[:, 16 * j:16 * j + 16] = np.where((dd != 0)[:, None], l, L[:, 16 * j:16 * j + 16])
    ql, qh = [], []
    for j in (0, 128):
        q1, q2, q3, q4 = (L[:, j + 32 * k:j + 32 * k + 32] for k in range(4))
        ql += [(q1 & 15) | (q3 & 15) << 4, (q2 & 15) | (q4 & 15) << 4]
        qh.append(q1 >> 4 | (q2 >> 4) << 2 | (q3 >> 4) << 4 | (q4 >> 4) << 6)
    out = np.concatenate([u8(np.concatenate(ql, axis=1)), u8(np.concatenate(qh, axis=1)),
                          sc.astype(np.int8).view(np.uint8), d[:, None].view(np.uint8)], axis=1)
    out[zero] = 0  # ggml: memset of the block, d = +0
    return out


def q2_K(x):
    nb = x.shape[0]
    sub = x.reshape(nb * 16, 16)
    scale, mins, L = make_qkx2_quants(sub, np.abs(sub).astype(F), 3, -0.5, 0.1, 15, True)
    scale, mins, L = scale.reshape(nb, 16), mins.reshape(nb, 16), L.reshape(nb, 256)
    max_scale = np.zeros(nb, dtype=F)
    max_min = np.zeros(nb, dtype=F)
    for j in range(16):
        max_scale = np.where(scale[:, j] > max_scale, scale[:, j], max_scale).astype(F)
        max_min = np.where(mins[:, j] > max_min, mins[:, j], max_min).astype(F)
    q4scale = F(15)
    with np.errstate(all="ignore"):
        s_lo = np.where((max_scale > 0)[:, None], nearest_int((safe_div(q4scale, max_scale)[:, None] * scale).astype(F)), 0)
        d = f16_bits(np.where(max_scale > 0, safe_div(max_scale, q4scale), F(0)))
        s_hi = np.where((max_min > 0)[:, None], nearest_int((safe_div(q4scale, max_min)[:, None] * mins).astype(F)), 0)
        dmin = f16_bits(np.where(max_min > 0, safe_div(max_min, q4scale), F(0)))
        scales = u8((s_lo & 0xFF) | (s_hi << 4) & 0xFF)
        for j in range(16):
            dd = (f16_val(d) * (scales[:, j] & 0xF).astype(F)).astype(F)
            dm = (f16_val(dmin) * (scales[:, j] >> 4).astype(F)).astype(F)
            l = np.clip(nearest_int(safe_div((x[:, 16 * j:16 * j + 16] + dm[:, None]).astype(F), dd[:, None])), 0, 3)
            L[:, 16 * j:16 * j + 16] = np.where((dd != 0)[:, None], l, L[:, 16 * j:16 * j + 16])
    tail = np.concatenate([d[:, None], dmin[:, None]], axis=1).view(np.uint8)
    return np.concatenate([scales, pack_2bit(L), tail], axis=1)


def q3_K(x):
    nb = x.shape[0]
    scale, L = make_q3_quants(x.reshape(nb * 16, 16), 4)
    scale, L = scale.reshape(nb, 16), L.reshape(nb, 256)
    max_scale = np.zeros(nb, dtype=F)
    amax = np.zeros(nb, dtype=F)
    for j in range(16):
        a = np.abs(scale[:, j])
        bigger = a > amax
        amax = np.where(bigger, a, amax).astype(F)
        max_scale = np.where(bigger, scale[:, j], max_scale).astype(F)
    some = max_scale != 0
    s = np.zeros((nb, 12), dtype=np.int64)
    with np.errstate(all="ignore"):
        iscale = safe_div(F(-32), max_scale)
        for j in range(16):
            l = np.clip(nearest_int((iscale * scale[:, j]).astype(F)), -32, 31) + 32
            l = np.where(some, l, 0)
            if j < 8:
                s[:, j] = l & 0xF
            else:
                s[:, j - 8] |= (l & 0xF) << 4
            s[:, j % 4 + 8] |= (l >> 4) << (2 * (j // 4))
        d = f16_bits(np.where(some, safe_div(F(1), iscale), F(0)))
        for j in range(16):
            low = s[:, j] & 0xF if j < 8 else s[:, j - 8] >> 4
            sc = (low | ((s[:, 8 + j % 4] >> (2 * (j // 4))) & 3) << 4) - 32
            dd = (f16_val(d) * sc.astype(F)).astype(F)
            l = np.clip(nearest_int(safe_div(x[:, 16 * j:16 * j + 16], dd[:, None])), -4, 3) + 4
            L[:, 16 * j:16 * j + 16] = np.where((dd != 0)[:, None], l, L[:, 16 * j:16 * j + 16])
    hmask = np.zeros((nb, 32), dtype=np.int64)
    for j in range(256):
        hi = L[:, j] > 3
        hmask[:, j % 32] |= hi.astype(np.int64) << (j // 32)
        L[:, j] = np.where(hi, L[:, j] - 4, L[:, j])
    return np.concatenate([u8(hmask), pack_2bit(L), u8(s), d[:, None].view(np.uint8)], axis=1)


QUANTIZERS = {"Q8_0": q8_0, "Q4_0": q4_0, "Q4_1": q4_1, "Q5_0": q5_0, "Q5_1": q5_1,
              "Q2_K": q2_K, "Q3_K": q3_K, "Q4_K": q4_K, "Q5_K": q5_K, "Q6_K": q6_K}


def quantize(rows, tname):
    """rows: (r, ne0) float32 -> the tensor's bytes."""
    rows = np.asarray(rows, dtype=F)
    if tname == "F32":
        return rows.astype("<f4").tobytes()
    if tname == "F16":
        return rows.astype("<f2").tobytes()
    if tname == "BF16":  # round to nearest even on the high half (NaN-free values)
        u = rows.view(np.uint32).astype(np.uint64)
        return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype("<u2").tobytes()
    _, block, size = TYPES[tname]
    blocks = QUANTIZERS[tname](rows.reshape(-1, block))
    assert blocks.shape[1] == size, (tname, blocks.shape)
    return blocks.tobytes()


# ---------------------------------------------------------------------------
# dequantization, from the layouts (B: (nb, bytes) uint8 -> (nb, block) float32)

def half(B, at):
    return f16_val(B[:, at:at + 2].copy().view(np.uint16)[:, 0])


def deq_q8_0(B):
    return (B[:, 2:].view(np.int8).astype(F) * half(B, 0)[:, None]).astype(F)


def nibbles(qs):
    return np.concatenate([qs & 15, qs >> 4], axis=1).astype(np.int64)


def fifth_bits(B, at):
    qh = B[:, at:at + 4].copy().view(np.uint32)[:, 0].astype(np.int64)
    return (qh[:, None] >> np.arange(32)) & 1


def deq_q4_0(B):
    return ((nibbles(B[:, 2:18]) - 8).astype(F) * half(B, 0)[:, None]).astype(F)


def deq_q4_1(B):
    return ((nibbles(B[:, 4:20]).astype(F) * half(B, 0)[:, None]).astype(F) + half(B, 2)[:, None]).astype(F)


def deq_q5_0(B):
    q = nibbles(B[:, 6:22]) | fifth_bits(B, 2) << 4
    return ((q - 16).astype(F) * half(B, 0)[:, None]).astype(F)


def deq_q5_1(B):
    q = nibbles(B[:, 8:24]) | fifth_bits(B, 4) << 4
    return ((q.astype(F) * half(B, 0)[:, None]).astype(F) + half(B, 2)[:, None]).astype(F)


def unpack_2bit(qs):
    """(nb, 64) -> (nb, 256): each 128 elements from 32 bytes, planes at bits 0, 2, 4, 6."""
    q = qs.astype(np.int64)
    return np.concatenate([(q[:, h:h + 32] >> s) & 3 for h in (0, 32) for s in (0, 2, 4, 6)], axis=1)


def per16(v):
    return np.repeat(v, 16, axis=1)


def deq_q2_K(B):
    sc = B[:, :16].astype(np.int64)
    d, dmin = half(B, 80), half(B, 82)
    dl = (d[:, None] * (sc & 15).astype(F)).astype(F)
    ml = (dmin[:, None] * (sc >> 4).astype(F)).astype(F)
    return ((per16(dl) * unpack_2bit(B[:, 16:80]).astype(F)).astype(F) - per16(ml)).astype(F)


def deq_q3_K(B):
    s = B[:, 96:108].astype(np.int64)
    sc = np.stack([((s[:, j] & 15 if j < 8 else s[:, j - 8] >> 4) | ((s[:, 8 + j % 4] >> (2 * (j // 4))) & 3) << 4) - 32
                   for j in range(16)], axis=1)
    dl = (half(B, 108)[:, None] * sc.astype(F)).astype(F)
    hm = B[:, :32].astype(np.int64)
    high = np.concatenate([(hm >> k) & 1 for k in range(8)], axis=1)  # element 32 k + l: bit k of byte l
    q = unpack_2bit(B[:, 32:96]) - np.where(high == 1, 0, 4)
    return (per16(dl) * q.astype(F)).astype(F)


def deq_k4_scales(B):
    sm = [k4_scale_min(B[:, 4:16], j) for j in range(8)]
    d, dmin = half(B, 0), half(B, 2)
    dl = np.stack([(d * s.astype(F)).astype(F) for s, _ in sm], axis=1)
    ml = np.stack([(dmin * m.astype(F)).astype(F) for _, m in sm], axis=1)
    return np.repeat(dl, 32, axis=1), np.repeat(ml, 32, axis=1)


def deq_q4_K(B):
    dl, ml = deq_k4_scales(B)
    qs = B[:, 16:144].astype(np.int64)
    q = np.concatenate([part for c in range(4) for part in (qs[:, 32 * c:32 * c + 32] & 15, qs[:, 32 * c:32 * c + 32] >> 4)],
                       axis=1)
    return ((dl * q.astype(F)).astype(F) - ml).astype(F)


def deq_q5_K(B):
    dl, ml = deq_k4_scales(B)
    qh = B[:, 16:48].astype(np.int64)
    qs = B[:, 48:176].astype(np.int64)
    parts = []
    for c in range(4):
        ql = qs[:, 32 * c:32 * c + 32]
        parts.append((ql & 15) + ((qh >> (2 * c)) & 1) * 16)
        parts.append((ql >> 4) + ((qh >> (2 * c + 1)) & 1) * 16)
    q = np.concatenate(parts, axis=1)
    return ((dl * q.astype(F)).astype(F) - ml).astype(F)


def deq_q6_K(B):
    ql = B[:, :128].astype(np.int64)
    qh = B[:, 128:192].astype(np.int64)
    sc = B[:, 192:208].view(np.int8).astype(F)
    d = half(B, 208)
    parts = []
    for h in range(2):
        l0, l1, hh = ql[:, 64 * h:64 * h + 32], ql[:, 64 * h + 32:64 * h + 64], qh[:, 32 * h:32 * h + 32]
        parts += [(l0 & 15) | (hh & 3) << 4, (l1 & 15) | ((hh >> 2) & 3) << 4,
                  (l0 >> 4) | ((hh >> 4) & 3) << 4, (l1 >> 4) | ((hh >> 6) & 3) << 4]
    q = np.concatenate(parts, axis=1) - 32
    ds = per16((d[:, None] * sc).astype(F))
    return (ds * q.astype(F)).astype(F)


DEQUANTIZERS = {"Q8_0": deq_q8_0, "Q4_0": deq_q4_0, "Q4_1": deq_q4_1, "Q5_0": deq_q5_0, "Q5_1": deq_q5_1,
                "Q2_K": deq_q2_K, "Q3_K": deq_q3_K, "Q4_K": deq_q4_K, "Q5_K": deq_q5_K, "Q6_K": deq_q6_K}


def dequantize(raw, tname, count):
    if tname == "F32":
        return np.frombuffer(raw, dtype="<f4").astype(F)
    if tname == "F16":
        return np.frombuffer(raw, dtype="<f2").astype(F)
    if tname == "BF16":
        return (np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16).view(F)
    _, block, size = TYPES[tname]
    B = np.frombuffer(raw, dtype=np.uint8).reshape(-1, size)
    return DEQUANTIZERS[tname](B).reshape(count)


# ---------------------------------------------------------------------------
# the test files

ROWS, COLS = 6, 512  # rows of 512: 2 super-blocks of 256, 16 blocks of 32


def test_values():
    """Seeded values with blocks that stress the searches."""
    rng = np.random.default_rng(28)
    x = (rng.standard_normal((ROWS, COLS)) * np.array([0.02, 0.1, 1.0, 3.0, 0.5, 0.05])[:, None]).astype(F)
    x[0, :256] = 0                                     # a zero super-block
    x[0, 256:288] = F(0.25)                            # a constant block
    x[1, 0:32] = F(1e-3) * (np.arange(32, dtype=F) - F(16))
    x[1, 40] = F(7.5)                                  # one outlier in a block
    x[2, 256:512] = -np.abs(x[2, 256:512])             # all negative
    x[3, 64:96] = np.abs(x[3, 64:96])                  # all positive
    x[4, 0:32] = F(3e-6) * rng.standard_normal(32).astype(F)  # d a half subnormal
    x[5, 128:160] = x[5, 128:160].round(1)             # ties
    x[5, 300] = F(-40.0)
    return x.astype(F)


def f16_specials():
    """Values F16 and BF16 must carry: subnormals, the extremes, -0."""
    v = test_values()
    v[0, 0:8] = np.array([2.0 ** -24, 1023 * 2.0 ** -24, 65504.0, -65504.0, -0.0, 2.0 ** -14, 1.0 / 3, 0.1], dtype=F)
    return v


def write_types(d):
    w = GGUFWriter()
    w.kv("general.architecture", STR, "test")
    w.kv("general.name", STR, "every block type")
    for tname in READ:
        src = f16_specials() if tname in ("F16", "BF16") else test_values()
        raw = quantize(src, tname)
        w.raw_tensor("t." + tname, [COLS, ROWS], TYPES[tname][0], raw)
        back = dequantize(raw, tname, src.size)
        back.astype("<f4").tofile(os.path.join(d, "t.%s.f32" % tname))
        src.astype("<f4").tofile(os.path.join(d, "t.%s.src.f32" % tname))
        # a layout read wrongly on both sides would still be consistent: the
        # values must also come back close to where they started
        err = np.max(np.abs(back.reshape(ROWS, COLS) - src) / (np.max(np.abs(src), axis=1, keepdims=True) + 1e-30))
        limit = {"Q2_K": 0.35, "Q3_K": 0.2, "Q4_0": 0.1, "Q4_1": 0.1, "Q4_K": 0.1, "Q5_0": 0.05, "Q5_1": 0.05,
                 "Q5_K": 0.05, "Q6_K": 0.03, "Q8_0": 0.01}.get(tname, 0.004)
        if not err <= limit:
            sys.exit("gguf_writer: %s comes back %.3g of each row's largest value away (more than %g)" % (tname, err, limit))
    w.raw_tensor("t.IQ2_XXS", [256, 2], TYPES["IQ2_XXS"][0], bytes(2 * 66))
    w.write(os.path.join(d, "types.gguf"))


META = [  # key, type, value: test_gguf.c checks each
    ("general.architecture", STR, "llama"),
    ("general.alignment", U32, 64),
    ("t.u8", U8, 200), ("t.i8", I8, -100), ("t.u16", U16, 60000), ("t.i16", I16, -30000),
    ("t.u32", U32, 4000000000), ("t.i32", I32, -2000000000), ("t.f32", F32T, 0.15625),
    ("t.bool", BOOL, 1), ("t.false", BOOL, 0), ("t.str", STR, "h\u00e9llo \uc138\uacc4"), ("t.empty", STR, ""),
    ("t.u64", U64, 2 ** 64 - 1), ("t.i64", I64, -2 ** 63), ("t.f64", F64, 1 / 3),
    ("a.u8", ARR, (U8, [0, 1, 255])), ("a.i8", ARR, (I8, [-128, 0, 127])),
    ("a.u16", ARR, (U16, [0, 65535])), ("a.i16", ARR, (I16, [-32768, 32767])),
    ("a.u32", ARR, (U32, [1, 2, 3, 4294967295])), ("a.i32", ARR, (I32, [-1, 0, 2147483647])),
    ("a.f32", ARR, (F32T, [0.5, -1.25, 3e38])), ("a.bool", ARR, (BOOL, [1, 0, 1])),
    ("a.str", ARR, (STR, ["a", "", "\uc138\uacc4", "x" * 300])),
    ("a.u64", ARR, (U64, [0, 2 ** 63, 2 ** 64 - 1])), ("a.i64", ARR, (I64, [-2 ** 63, 2 ** 63 - 1])),
    ("a.f64", ARR, (F64, [1e300, -0.0])), ("a.empty", ARR, (U32, [])),
]


def write_meta(d):
    w = GGUFWriter(alignment=64)
    for key, vtype, value in META:
        w.kv(key, vtype, value)
    w.tensor("a", np.array([1.5, -2.0, 0.25], dtype=F), "F32")
    w.tensor("b", np.array([[1.0, 2.0], [3.0, 4.0]], dtype=F), "F16")
    w.raw_tensor("empty", [0, 3], 0, b"")
    w.write(os.path.join(d, "meta.gguf"))


def write_nested(d):
    w = GGUFWriter(version=2)
    w.kv("n.two", ARR, (ARR, [(U32, [1, 2]), (STR, ["x", "yz"]), (U8, [])]))
    w.kv("n.three", ARR, (ARR, [(ARR, [(I16, [-7])]), (ARR, [])]))
    w.kv("n.after", U32, 7)
    w.write(os.path.join(d, "nested.gguf"))


def write_seeds(d):
    """Small inputs for tests/fuzz/fuzz_gguf.c: byte 0 even, then a file
    (valid, or nearly); byte 0 odd, then the number of 64-byte blocks of data
    the target appends, then a header."""
    def seed(name, data, built=None):
        with open(os.path.join(d, name), "wb") as f:
            f.write(b"\x00" + data if built is None else b"\x01" + bytes([built]) + data)

    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 256)).astype(F)
    for tname in READ:
        w = GGUFWriter()
        w.kv("general.architecture", STR, "llama")
        w.tensor("w", x[:1, :256] if "K" in tname else x[:1, :64], tname)
        seed("type-" + tname.lower(), w.data())
    w = GGUFWriter(alignment=64)
    for key, vtype, value in META:
        if key != "a.str":
            w.kv(key, vtype, value)
    w.tensor("a", np.array([1.5, -2.0], dtype=F), "F32")
    seed("every-type", w.data())
    w = GGUFWriter(version=2)
    w.kv("n.two", ARR, (ARR, [(U32, [1, 2]), (STR, ["x", "yz"]), (U8, [])]))
    w.kv("n.three", ARR, (ARR, [(ARR, [(I16, [-7])]), (ARR, [])]))
    seed("nested-v2", w.data())
    w = GGUFWriter()
    w.tensor("a", x[:, :32], "Q8_0")
    w.tensor("b", x[:, :32], "Q4_0")
    w.raw_tensor("c", [32], 8, b"", offset=0)  # overlaps a
    seed("overlap", w.data())
    seed("empty", GGUFWriter().data())
    w = GGUFWriter()
    w.tensor("w", x[:1, :32], "Q8_0")
    w.raw_tensor("iq", [256], TYPES["IQ2_XXS"][0], bytes(66))
    seed("unread-type", w.data())
    # a header alone: the target appends 128 bytes of data for its tensors
    w = GGUFWriter()
    w.kv("general.alignment", U32, 32)
    w.raw_tensor("q", [64], TYPES["Q8_0"][0], b"", offset=0)
    w.raw_tensor("h", [16], TYPES["F16"][0], b"", offset=96)
    w.raw_tensor("k", [256], TYPES["Q4_K"][0], b"", offset=0)  # overlaps q
    seed("built-header", w.data(), built=2)


# ---------------------------------------------------------------------------
# llama.cpp's ggml as the reference

class GgufInitParams(ctypes.Structure):
    _fields_ = [("no_alloc", ctypes.c_bool), ("ctx", ctypes.c_void_p)]


def ggml_check(libdir, d):
    lib = ctypes.CDLL(os.path.join(libdir, "libggml-base.so"))
    bad = 0
    x = test_values()
    for tname in QUANTIZERS:
        _, block, size = TYPES[tname]
        q = getattr(lib, "quantize_row_%s_ref" % tname.lower().replace("_k", "_K"))
        dq = getattr(lib, "dequantize_row_%s" % tname.lower().replace("_k", "_K"))
        ours = np.frombuffer(quantize(x, tname), dtype=np.uint8)
        theirs = np.zeros(ours.size, dtype=np.uint8)
        src = np.ascontiguousarray(x.reshape(-1))
        q(src.ctypes.data_as(ctypes.c_void_p), theirs.ctypes.data_as(ctypes.c_void_p), ctypes.c_int64(src.size))
        differ = int(np.sum(np.any(ours.reshape(-1, size) != theirs.reshape(-1, size), axis=1)))
        back = np.zeros(src.size, dtype=F)
        dq(ours.ctypes.data_as(ctypes.c_void_p), back.ctypes.data_as(ctypes.c_void_p), ctypes.c_int64(src.size))
        same = np.array_equal(back.view(np.uint32), dequantize(ours.tobytes(), tname, src.size).view(np.uint32))
        lower = tname.lower().replace("_k", "_K")
        print("ggml %s: quantize_row_%s_ref gives %s; dequantize_row_%s gives %s" % (
            tname, lower, "the same bytes" if differ == 0 else "%d of %d blocks DIFFERENT" % (
                differ, src.size // block), lower, "the same bits" if same else "DIFFERENT bits"))
        if differ or not same:
            bad = 1
    bad |= ggml_read(lib, d)
    return bad


def ggml_read(lib, d):
    """ggml's GGUF reader on the files: the same keys, values and tensors."""
    lib.gguf_init_from_file.restype = ctypes.c_void_p
    lib.gguf_init_from_file.argtypes = [ctypes.c_char_p, GgufInitParams]
    for name, restype in [("gguf_get_n_kv", ctypes.c_int64), ("gguf_get_n_tensors", ctypes.c_int64),
                          ("gguf_get_key", ctypes.c_char_p), ("gguf_get_kv_type", ctypes.c_int),
                          ("gguf_get_arr_type", ctypes.c_int), ("gguf_get_arr_n", ctypes.c_size_t),
                          ("gguf_get_arr_data", ctypes.c_void_p), ("gguf_get_arr_str", ctypes.c_char_p),
                          ("gguf_get_val_data", ctypes.c_void_p), ("gguf_get_val_str", ctypes.c_char_p),
                          ("gguf_get_tensor_name", ctypes.c_char_p), ("gguf_get_tensor_type", ctypes.c_int),
                          ("gguf_get_tensor_offset", ctypes.c_size_t), ("gguf_get_tensor_size", ctypes.c_size_t),
                          ("gguf_get_alignment", ctypes.c_size_t), ("gguf_get_data_offset", ctypes.c_size_t),
                          ("gguf_get_version", ctypes.c_uint32)]:
        getattr(lib, name).restype = restype
    lib.gguf_get_arr_str.argtypes = [ctypes.c_void_p, ctypes.c_int64, ctypes.c_size_t]
    for name in ("gguf_get_key", "gguf_get_kv_type", "gguf_get_arr_type", "gguf_get_arr_n", "gguf_get_arr_data",
                 "gguf_get_val_data", "gguf_get_val_str", "gguf_get_tensor_name", "gguf_get_tensor_type",
                 "gguf_get_tensor_offset", "gguf_get_tensor_size"):
        getattr(lib, name).argtypes = [ctypes.c_void_p, ctypes.c_int64]
    for name in ("gguf_get_n_kv", "gguf_get_n_tensors", "gguf_get_alignment", "gguf_get_data_offset",
                 "gguf_get_version"):
        getattr(lib, name).argtypes = [ctypes.c_void_p]
    lib.gguf_free.argtypes = [ctypes.c_void_p]
    bad = 0
    for fname in ("meta.gguf", "types.gguf", "nested.gguf"):
        path = os.path.join(d, fname)
        ctx = lib.gguf_init_from_file(path.encode(), GgufInitParams(True, None))
        if fname == "nested.gguf":
            print("ggml %s: %s" % (fname, "refused (ggml reads no arrays of arrays)" if not ctx else "OPENED"))
            bad |= ctx is not None and ctx != 0
            if ctx:
                lib.gguf_free(ctx)
            continue
        if not ctx:
            print("ggml %s: NOT OPENED" % fname)
            bad = 1
            continue
        ours = read_back(path)
        got = []
        for i in range(lib.gguf_get_n_kv(ctx)):
            key = lib.gguf_get_key(ctx, i).decode()
            t = lib.gguf_get_kv_type(ctx, i)
            if t == ARR:
                et, n = lib.gguf_get_arr_type(ctx, i), lib.gguf_get_arr_n(ctx, i)
                if et == STR:
                    vals = [lib.gguf_get_arr_str(ctx, i, j).decode() for j in range(n)]
                else:
                    p = lib.gguf_get_arr_data(ctx, i) if n else None
                    size = struct.calcsize(SCALAR_FMT[et])
                    raw = ctypes.string_at(p, n * size) if n else b""
                    vals = [struct.unpack_from(SCALAR_FMT[et], raw, j * size)[0] for j in range(n)]
                got.append((key, t, (et, vals)))
            elif t == STR:
                got.append((key, t, lib.gguf_get_val_str(ctx, i).decode()))
            else:
                raw = ctypes.string_at(lib.gguf_get_val_data(ctx, i), struct.calcsize(SCALAR_FMT[t]))
                got.append((key, t, struct.unpack(SCALAR_FMT[t], raw)[0]))
        tensors = [(lib.gguf_get_tensor_name(ctx, i).decode(), lib.gguf_get_tensor_type(ctx, i),
                    lib.gguf_get_tensor_offset(ctx, i), lib.gguf_get_tensor_size(ctx, i))
                   for i in range(lib.gguf_get_n_tensors(ctx))]
        layout = (lib.gguf_get_version(ctx), lib.gguf_get_alignment(ctx), lib.gguf_get_data_offset(ctx))
        lib.gguf_free(ctx)
        same = got == ours["kv"] and tensors == ours["tensors"] and layout == ours["layout"]
        print("ggml %s: %d keys, %d tensors, data at %d: %s" % (fname, len(got), len(tensors), layout[2],
                                                                 "the same" if same else "DIFFERENT"))
        if not same:
            bad = 1
            for a, b in zip(got, ours["kv"]):
                if a != b:
                    print("  ggml %r\n  ours %r" % (a, b))
            if tensors != ours["tensors"] or layout != ours["layout"]:
                print("  ggml %r %r\n  ours %r %r" % (tensors, layout, ours["tensors"], ours["layout"]))
    return bad


def read_back(path):
    """This file's own reading of a (flat) GGUF file, for the comparison."""
    b = open(path, "rb").read()
    pos = [4]

    def take(fmt):
        v = struct.unpack_from(fmt, b, pos[0])
        pos[0] += struct.calcsize(fmt)
        return v[0]

    def string():
        n = take("<Q")
        s = b[pos[0]:pos[0] + n].decode()
        pos[0] += n
        return s

    def value(t):
        if t == STR:
            return string()
        if t == ARR:
            et, n = take("<I"), take("<Q")
            return (et, [value(et) for _ in range(n)])
        return take(SCALAR_FMT[t])

    version, nt, nkv = take("<I"), take("<Q"), take("<Q")
    kv, align = [], 32
    for _ in range(nkv):
        key = string()
        t = take("<I")
        v = value(t)
        kv.append((key, t, v))
        if key == "general.alignment":
            align = v
    tensors, shapes = [], []
    for _ in range(nt):
        name = string()
        ne = [take("<Q") for _ in range(take("<I"))]
        t, off = take("<I"), take("<Q")
        tname = [k for k, v in TYPES.items() if v[0] == t][0]
        _, block, size = TYPES[tname]
        tensors.append((name, t, off, int(np.prod(ne, dtype=np.int64)) // block * size))
        shapes.append(ne)
    data = pos[0] + (-pos[0] % align)
    return {"kv": kv, "tensors": tensors, "shapes": shapes, "layout": (version, align, data), "bytes": b}


def main(argv):
    if len(argv) == 3 and argv[1] == "write":
        os.makedirs(argv[2], exist_ok=True)
        write_types(argv[2])
        write_meta(argv[2])
        write_nested(argv[2])
        return 0
    if len(argv) == 3 and argv[1] == "seeds":
        os.makedirs(argv[2], exist_ok=True)
        write_seeds(argv[2])
        return 0
    if len(argv) == 4 and argv[1] == "ggml":
        return ggml_check(argv[2], argv[3])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
