#!/usr/bin/env python3
"""Recompute every layer's attention of a trained model from its llama2.c
checkpoint in NumPy (float64) and compare with attnviz's --dump=json of it:
per layer and head q and k (after RoPE), v, the scores, the scaled and
masked scores, the weights, the output and the row sums, then the ten
likeliest next tokens after the last row. The mask (causal or none: what
the model would do if it could see the future, every later layer fed from
it) and the scaling (on/off) are read from the dump's config, so a dump
with --mask none or --no-scale is checked against the same "what if".

Usage: verify_model_dump.py MODEL.bin DUMP.json
Exit 0 when everything agrees within 1e-4 (of the tensor's largest |value|,
at least 1: float32 through five layers drifts to ~1e-5 of it),
1 otherwise, 2 on bad usage.
"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from verify_llama2 import load, rmsnorm, rope  # noqa: E402


def forward(cfg, w, ids, causal, scale):
    """Every layer's per-head tensors, and the last row's probabilities."""
    n, hs, heads, kvh = len(ids), cfg["hs"], cfg["heads"], cfg["kv_heads"]
    allowed = np.tril(np.ones((n, n), dtype=bool)) if causal else np.ones((n, n), dtype=bool)
    x = w["embed"][ids]
    layers = []
    for l in range(cfg["layers"]):
        xb = rmsnorm(x, w["rms_att"][l])
        q = rope(xb @ w["wq"][l].T, heads, hs)
        k = rope(xb @ w["wk"][l].T, kvh, hs)
        v = xb @ w["wv"][l].T
        out = np.empty((n, cfg["dim"]))
        per_head = []
        for h in range(heads):
            g = h // (heads // kvh)
            qh, kh, vh = q[:, h * hs:(h + 1) * hs], k[:, g * hs:(g + 1) * hs], v[:, g * hs:(g + 1) * hs]
            s = qh @ kh.T
            sc = s / np.sqrt(hs) if scale else s
            ms = np.where(allowed, sc, -np.inf)
            a = np.exp(ms - ms.max(axis=1, keepdims=True))
            a /= a.sum(axis=1, keepdims=True)
            o = a @ vh
            out[:, h * hs:(h + 1) * hs] = o
            per_head.append({"q": qh, "k": kh, "v": vh, "scores": s, "scaled": sc, "masked": ms, "weights": a,
                             "output": o, "row_sums": a.sum(axis=1)})
        layers.append(per_head)
        x = x + out @ w["wo"][l].T
        xb = rmsnorm(x, w["rms_ffn"][l])
        h1, h3 = xb @ w["w1"][l].T, xb @ w["w3"][l].T
        x = x + (h1 / (1 + np.exp(-h1)) * h3) @ w["w2"][l].T
    z = rmsnorm(x[-1], w["rms_final"]) @ w["cls"].T
    p = np.exp(z - z.max())
    return layers, p / p.sum()


def as_array(value):
    """A dumped matrix: masked entries are null (-inf)."""
    return np.array([[-np.inf if x is None else x for x in row] for row in value], dtype=np.float64)


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    cfg, w = load(argv[1])
    d = json.load(open(argv[2], encoding="utf-8"))
    conf = d["config"]
    if conf["mask"] not in ("causal", "none"):
        print("%s: mask %s is not checked here" % (argv[2], conf["mask"]), file=sys.stderr)
        return 2
    ids = d["ids"]
    layers, probs = forward(cfg, w, ids, conf["mask"] == "causal", conf["scale"])
    if len(d["layers"]) != cfg["layers"]:
        print("%s: %d layers, the checkpoint has %d" % (argv[2], len(d["layers"]), cfg["layers"]), file=sys.stderr)
        return 1
    worst, where, checked = 0.0, "", 0
    for l, layer in enumerate(d["layers"]):
        for h, head in enumerate(layer["heads"]):
            for name, ref in layers[l][h].items():
                got = np.array(head[name], dtype=np.float64) if name == "row_sums" else as_array(head[name])
                if got.shape != ref.shape:
                    print("layer %d head %d %s: shape %s, expected %s" % (l + 1, h + 1, name, got.shape, ref.shape),
                          file=sys.stderr)
                    return 1
                fin = np.isfinite(ref)
                if not np.array_equal(fin, np.isfinite(got)):
                    print("layer %d head %d %s: masked cells differ" % (l + 1, h + 1, name), file=sys.stderr)
                    return 1
                size = max(1.0, np.abs(ref[fin]).max()) if fin.any() else 1.0
                diff = np.abs(got[fin] - ref[fin]) / size
                checked += diff.size
                if diff.size and diff.max() > worst:
                    worst, where = diff.max(), "layer %d head %d %s" % (l + 1, h + 1, name)
    top = np.argsort(-probs, kind="stable")[:10]
    got_ids = [t["id"] for t in d["next_tokens"]]
    got_p = np.array([t["prob"] for t in d["next_tokens"]])
    pdiff = np.abs(got_p - probs[got_ids]).max() if got_ids else 1.0
    print("numpy: %d tokens, mask=%s scale=%s, %d values: max rel diff %.3g (%s); next tokens max diff %.3g" %
          (len(ids), conf["mask"], conf["scale"], checked, worst, where, pdiff))
    bad = 0
    if worst > 1e-4:
        print("numpy: %s differs by %.6g" % (where, worst), file=sys.stderr)
        bad = 1
    # The same ranking, where probabilities are not within rounding of a tie.
    if pdiff > 1e-5 or any(probs[a] < probs[b] - 1e-6 for a, b in zip(got_ids, got_ids[1:])) or \
            probs[got_ids[-1]] < probs[top[-1]] - 1e-6:
        print("numpy: next tokens %s, expected %s" % (got_ids, list(top)), file=sys.stderr)
        bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv))
