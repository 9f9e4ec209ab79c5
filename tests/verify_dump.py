#!/usr/bin/env python3
"""Recompute every stage of an attnviz --dump=json from its own q, k, v in
NumPy (float64) and compare: scores, scaling, mask, softmax, row sums, A V.

Usage: verify_dump.py DUMP.json   (exit 0 when everything agrees to 1e-5)
"""
import json
import math
import sys

import numpy as np


def main(path):
    with open(path, encoding="utf-8") as f:
        d = json.load(f)
    cfg = d["config"]
    worst = 0.0
    for h, hd in enumerate(d["heads"]):
        q = np.array(hd["q"], dtype=np.float64)
        k = np.array(hd["k"], dtype=np.float64)
        v = np.array(hd["v"], dtype=np.float64)
        n_q, n_k = q.shape[0], k.shape[0]
        s = q @ k.T
        scaled = s / math.sqrt(cfg["d_k"]) if cfg["scale"] else s
        allowed = np.ones((n_q, n_k), dtype=bool)
        if cfg["mask"] == "causal":
            allowed = np.tril(allowed)
        masked = np.where(allowed, scaled, -np.inf)
        a = np.zeros_like(masked)
        for i in range(n_q):
            if allowed[i].any():
                e = np.exp(masked[i] - masked[i][allowed[i]].max())
                a[i] = e / e.sum()
        out = a @ v
        got = {k2: np.array(hd[k2], dtype=np.float64) for k2 in ("scores", "scaled", "weights", "output")}
        got_masked = np.array([[np.nan if x is None else x for x in row] for row in hd["masked"]])
        if not np.array_equal(np.isnan(got_masked), ~allowed):
            sys.exit(f"head {h}: null entries of 'masked' are not the mask")
        checks = [
            ("scores", got["scores"], s, 1e-5 * max(1.0, np.abs(s).max())),
            ("scaled", got["scaled"], scaled, 1e-5 * max(1.0, np.abs(scaled).max())),
            ("weights", got["weights"], a, 1e-5),
            ("row_sums", np.array(hd["row_sums"]), a.sum(axis=1), 1e-5),
        ]
        for name, g, want, tol in checks:
            err = np.abs(g - want).max() if g.size else 0.0
            worst = max(worst, err if name != "scores" else 0.0)
            if err > tol:
                sys.exit(f"head {h}: {name} differs by {err:g} (tolerance {tol:g})")
        rel = np.abs(got["output"] - out).max() / max(1e-30, np.abs(out).max()) if out.size else 0.0
        if rel > 1e-4:
            sys.exit(f"head {h}: output differs by {rel:g} relative (tolerance 1e-4)")
        if (a[~allowed] != 0).any() or (got["weights"][~allowed] != 0).any():
            sys.exit(f"head {h}: a masked weight is not exactly 0")
    print(f"ok {path}: {len(d['heads'])} heads, {len(d['tokens'])} tokens, worst weight error {worst:.2g}")


if __name__ == "__main__":
    main(sys.argv[1])
