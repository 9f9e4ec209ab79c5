#!/usr/bin/env python3
"""verify_safetensors.py ONE_DIR SHARDED_DIR - safetensors files written from
the format's specification with NumPy alone (not with attnviz's code), for
tests/test_safetensors.c to read back.

ONE_DIR/model.safetensors holds every tensor; SHARDED_DIR holds the same
tensors in two shards with model.safetensors.index.json. Beside each,
expected.txt ("name count" per tensor) and expected.f32 (their values as
float32, in that order, as NumPy converts them: F16 by astype, BF16 as the
high half of an f32).

The format: u64 little-endian N, N bytes of JSON (padded with spaces to a
multiple of 8, as the reference writer does), then the data; data_offsets
relative to the data start."""
import json
import os
import struct
import sys

import numpy as np


def tensors():
    rng = np.random.default_rng(14)
    out = []
    a = rng.standard_normal((3, 4)).astype("<f4")
    a[0, 0] = 1e-40  # an f32 subnormal
    out.append(("model.embed.weight", "F32", a.shape, a.tobytes(), a))
    h = (rng.standard_normal((2, 3, 2)) * 100).astype("<f2")
    h.flat[0] = np.float16(6e-8)  # an f16 subnormal
    h.flat[1] = np.float16(np.inf)
    h.flat[2] = np.float16(-65504)
    h.flat[3] = np.float16(np.nan)
    out.append(("layers.0.q.weight", "F16", h.shape, h.tobytes(), h.astype(np.float32)))
    f = rng.standard_normal(7).astype(np.float32) * 1000
    bits = (f.view(np.uint32) >> 16).astype("<u2")
    out.append(("layers.0.k.weight", "BF16", f.shape, bits.tobytes(), (bits.astype(np.uint32) << 16).view(np.float32)))
    s = np.array(2.5, dtype="<f4")
    out.append(("scale", "F32", (), s.tobytes(), s.reshape(1)))
    z = np.zeros((0, 4), dtype="<f2")
    out.append(("empty", "F16", z.shape, b"", z.astype(np.float32)))
    return out


def write_file(path, items):
    header, data = {"__metadata__": {"format": "pt"}}, b""
    for name, dtype, shape, raw, _ in items:
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


def write_expected(folder, items):
    with open(os.path.join(folder, "expected.txt"), "w") as names, open(os.path.join(folder, "expected.f32"), "wb") as vals:
        for name, _, _, _, values in items:
            v = np.asarray(values, dtype="<f4").reshape(-1)
            names.write("%s %d\n" % (name, v.size))
            vals.write(v.tobytes())


def main():
    one, sharded = sys.argv[1], sys.argv[2]
    items = tensors()
    write_file(os.path.join(one, "model.safetensors"), items)
    write_expected(one, items)
    halves = {"model-00001-of-00002.safetensors": items[:2], "model-00002-of-00002.safetensors": items[2:]}
    weight_map = {}
    for shard, part in halves.items():
        write_file(os.path.join(sharded, shard), part)
        weight_map.update({name: shard for name, *_ in part})
    with open(os.path.join(sharded, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": 0}, "weight_map": weight_map}, f, indent=2)
    write_expected(sharded, items)


if __name__ == "__main__":
    main()
