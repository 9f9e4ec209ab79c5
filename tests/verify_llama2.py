#!/usr/bin/env python3
"""Recompute a llama2.c checkpoint's forward pass in NumPy (float64, the
whole sequence at once with a causal mask, as PyTorch's model.py does) and
compare with what attnviz's engine wrote: every layer's K (after RoPE) and V,
and the logits of every row.

Usage: verify_llama2.py MODEL.bin DUMP ID [ID...]
  DUMP is float32 little-endian: logits (n, vocab), then for each layer
  K (n, kv_dim) and V (n, kv_dim) (tests/test_llama2.c writes it).
Exit 0 when everything agrees within 1e-4, 1 otherwise, 2 on bad usage.
"""
import struct
import sys

import numpy as np


def load(path):
    raw = open(path, "rb").read()
    dim, hidden, layers, heads, kv_heads, vocab, seq = struct.unpack_from("<7i", raw, 0)
    shared = vocab > 0
    vocab = abs(vocab)
    hs = dim // heads
    kv = kv_heads * hs
    f = np.frombuffer(raw, dtype="<f4", offset=28).astype(np.float64)
    at = 0

    def take(*shape):
        nonlocal at
        n = int(np.prod(shape))
        t = f[at:at + n].reshape(shape)
        at += n
        return t

    w = {"embed": take(vocab, dim), "rms_att": take(layers, dim), "wq": take(layers, dim, dim),
         "wk": take(layers, kv, dim), "wv": take(layers, kv, dim), "wo": take(layers, dim, dim),
         "rms_ffn": take(layers, dim), "w1": take(layers, hidden, dim), "w2": take(layers, dim, hidden),
         "w3": take(layers, hidden, dim), "rms_final": take(dim)}
    take(seq, hs // 2)
    take(seq, hs // 2)
    w["cls"] = w["embed"] if shared else take(vocab, dim)
    if at != f.size:
        sys.exit("%s: %d floats left over: not a llama2.c checkpoint of this header" % (path, f.size - at))
    cfg = dict(dim=dim, hidden=hidden, layers=layers, heads=heads, kv_heads=kv_heads, vocab=vocab, hs=hs, kv=kv)
    return cfg, w


def rmsnorm(x, w):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + 1e-5) * w


def rope(x, n_heads, hs):
    """x (n, n_heads * hs): rotate each pair (2i, 2i+1) by pos * 10000^(-2i/hs)."""
    n = x.shape[0]
    freq = 10000.0 ** (-np.arange(0, hs, 2) / hs)
    ang = np.arange(n)[:, None] * freq[None, :]  # (n, hs/2)
    c, s = np.cos(ang)[:, None, :], np.sin(ang)[:, None, :]
    x = x.reshape(n, n_heads, hs // 2, 2)
    a, b = x[..., 0], x[..., 1]
    return np.stack([a * c - b * s, a * s + b * c], axis=-1).reshape(n, n_heads * hs)


def forward(cfg, w, ids):
    n, hs, heads, kvh = len(ids), cfg["hs"], cfg["heads"], cfg["kv_heads"]
    x = w["embed"][ids]
    causal = np.tril(np.ones((n, n), dtype=bool))
    ks, vs = [], []
    for l in range(cfg["layers"]):
        xb = rmsnorm(x, w["rms_att"][l])
        q = rope(xb @ w["wq"][l].T, heads, hs)
        k = rope(xb @ w["wk"][l].T, kvh, hs)
        v = xb @ w["wv"][l].T
        ks.append(k)
        vs.append(v)
        out = np.empty((n, cfg["dim"]))
        for h in range(heads):
            g = h // (heads // kvh)
            s = q[:, h * hs:(h + 1) * hs] @ k[:, g * hs:(g + 1) * hs].T / np.sqrt(hs)
            s = np.where(causal, s, -np.inf)
            a = np.exp(s - s.max(axis=1, keepdims=True))
            a /= a.sum(axis=1, keepdims=True)
            out[:, h * hs:(h + 1) * hs] = a @ v[:, g * hs:(g + 1) * hs]
        x = x + out @ w["wo"][l].T
        xb = rmsnorm(x, w["rms_ffn"][l])
        h1, h3 = xb @ w["w1"][l].T, xb @ w["w3"][l].T
        x = x + (h1 / (1 + np.exp(-h1)) * h3) @ w["w2"][l].T
    return rmsnorm(x, w["rms_final"]) @ w["cls"].T, ks, vs


def main(argv):
    if len(argv) < 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    cfg, w = load(argv[1])
    ids = [int(a) for a in argv[3:]]
    n, kv, vocab = len(ids), cfg["kv"], cfg["vocab"]
    got = np.fromfile(argv[2], dtype="<f4").astype(np.float64)
    want_floats = n * vocab + 2 * cfg["layers"] * n * kv
    if got.size != want_floats:
        print("%s: %d floats, expected %d" % (argv[2], got.size, want_floats), file=sys.stderr)
        return 1
    logits, ks, vs = forward(cfg, w, ids)
    at, worst = n * vocab, {"logits": np.abs(got[:n * vocab].reshape(n, vocab) - logits).max()}
    for l in range(cfg["layers"]):
        for name, ref in (("k", ks[l]), ("v", vs[l])):
            part = got[at:at + n * kv].reshape(n, kv)
            at += n * kv
            worst["%s%d" % (name, l)] = np.abs(part - ref).max()
    bad = {k: d for k, d in worst.items() if not d <= 1e-4}
    print("numpy: %d tokens, %d layers: max |diff| %.3g (%s)" % (n, cfg["layers"], max(worst.values()),
                                                               max(worst, key=worst.get)))
    for k, d in bad.items():
        print("numpy: %s differs by %.6g" % (k, d), file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
