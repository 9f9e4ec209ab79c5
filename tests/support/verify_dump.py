#!/usr/bin/env python3
"""Recompute every stage of an attnviz --dump=json from its own q, k, v in
NumPy (float64) and compare: Q, K, V from the embeddings and each head's W_Q,
W_K, W_V (Q from the queries' sentence in cross-attention), scores (dot,
cosine, distance, and additive from its W1, W2 and v), scaling, the mask (from its kind, or for padding and painted
masks from the dump's nulls, checked against the <pad> tokens), softmax, row
sums, entropy, largest weight and A V.

Usage: verify_dump.py DUMP.json   (exit 0 when everything agrees to 1e-5)
"""
import json
import math
import sys

import numpy as np


def mask_of(cfg, n_q, n_k, tokens, given):
    kind = cfg["mask"]
    cross = cfg.get("attn") == "cross"
    i = np.arange(n_q)[:, None]
    j = np.arange(n_k)[None, :]
    if cross and (kind == "causal" or kind.startswith("window") or kind.startswith("prefix")):
        kind = "none"  # position rules do not apply to cross-attention
    if kind == "none":
        return np.ones((n_q, n_k), dtype=bool)
    if kind == "causal":
        return j <= i
    if kind.startswith("window:"):
        w = int(kind.split(":")[1])
        return (j <= i) & (j > i - w)
    if kind.startswith("prefix:"):
        p = int(kind.split(":")[1])
        return ((i < p) & (j < p)) | (j <= i)
    if kind == "padding":
        pad = cfg.get("pad", 0)
        is_pad = np.array([t == "<pad>" and k >= n_k - pad for k, t in enumerate(tokens)])
        return np.broadcast_to(~is_pad[None, :], (n_q, n_k))
    return given  # painted: what the dump says


def close(what, got, want, tol):
    """Exits unless got equals want within tol of want's largest |value| (at least 1)."""
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    if got.shape != want.shape:
        sys.exit(f"{what}: shape {got.shape}, expected {want.shape}")
    err = np.abs(got - want).max() if got.size else 0.0
    if err > tol * max(1.0, np.abs(want).max() if want.size else 1.0):
        sys.exit(f"{what}: differs by {err:g}")


def main(path):
    with open(path, encoding="utf-8") as f:
        d = json.load(f)
    cfg = d["config"]
    kind = cfg.get("score", "scaled" if cfg["scale"] else "dot")
    dk = cfg["d_k"]
    worst = 0.0
    x = np.array(d["embeddings"], dtype=np.float64) if d.get("embeddings") is not None else None
    xq = np.array(d["query_embeddings"], dtype=np.float64) if d.get("query_embeddings") is not None else x
    if x is not None and d.get("pe") is not None and d.get("embed") is not None:
        close("X = E + PE", x, np.array(d["embed"]) + np.array(d["pe"]), 1e-6)
    for h, hd in enumerate(d["heads"]):
        q = np.array(hd["q"], dtype=np.float64)
        k = np.array(hd["k"], dtype=np.float64)
        v = np.array(hd["v"], dtype=np.float64)
        n_q, n_k = q.shape[0], k.shape[0]
        if x is not None and hd.get("w_q") is not None:  # the projections, from the dump's own weights
            close(f"head {h}: Q = X W_Q", q, xq @ np.array(hd["w_q"]), 1e-4)
            close(f"head {h}: K = X W_K", k, x @ np.array(hd["w_k"]), 1e-4)
            close(f"head {h}: V = X W_V", v, x @ np.array(hd["w_v"]), 1e-4)
        if kind in ("dot", "scaled"):
            s = q @ k.T
        elif kind == "cosine":
            qn = np.linalg.norm(q, axis=1)[:, None]
            kn = np.linalg.norm(k, axis=1)[None, :]
            s = np.where((qn > 0) & (kn > 0), (q @ k.T) / np.maximum(qn * kn, 1e-300), 0.0)
        elif kind == "distance":
            s = -((q[:, None, :] - k[None, :, :]) ** 2).sum(axis=2)
        else:  # additive: v^T tanh(W1 q + W2 k)
            w1, w2 = np.array(hd["w1"], dtype=np.float64), np.array(hd["w2"], dtype=np.float64)
            va = np.array(hd["v_a"], dtype=np.float64)[0]
            s = np.tanh((q @ w1.T)[:, None, :] + (k @ w2.T)[None, :, :]) @ va
        if cfg["scale"] and kind in ("dot", "scaled", "distance"):
            scaled = s / math.sqrt(dk)
        elif cfg["scale"] and kind == "cosine":
            scaled = s * math.sqrt(dk)
        else:
            scaled = s
        given = np.array([[x is not None for x in row] for row in hd["masked"]], dtype=bool).reshape(n_q, n_k)
        allowed = mask_of(cfg, n_q, n_k, d["tokens"], given)
        if not np.array_equal(given, allowed):
            sys.exit(f"head {h}: the null entries of 'masked' are not the {cfg['mask']} mask")
        masked = np.where(allowed, scaled, -np.inf)
        a = np.zeros_like(masked)
        for i in range(n_q):
            if allowed[i].any():
                e = np.exp(masked[i] - masked[i][allowed[i]].max())
                a[i] = e / e.sum()
        out = a @ v
        with np.errstate(divide="ignore", invalid="ignore"):
            ent = -np.where(a > 0, a * np.log2(np.where(a > 0, a, 1)), 0).sum(axis=1)
        got = {k2: np.array(hd[k2], dtype=np.float64) for k2 in ("scores", "scaled", "weights", "output")}
        checks = [
            ("scores", got["scores"], s, 1e-5 * max(1.0, np.abs(s).max() if s.size else 1.0)),
            ("scaled", got["scaled"], scaled, 1e-5 * max(1.0, np.abs(scaled).max() if s.size else 1.0)),
            ("weights", got["weights"], a, 1e-5),
            ("row_sums", np.array(hd["row_sums"]), a.sum(axis=1), 1e-5),
            ("entropy", np.array(hd["entropy"]), ent, 1e-4),
            ("max_weight", np.array(hd["max_weight"]), a.max(axis=1) if n_k else np.zeros(n_q), 1e-5),
        ]
        for name, g, want, tol in checks:
            err = np.abs(g - want).max() if g.size else 0.0
            if name == "weights":
                worst = max(worst, err)
            if err > tol:
                sys.exit(f"head {h}: {name} differs by {err:g} (tolerance {tol:g})")
        rel = np.abs(got["output"] - out).max() / max(1e-30, np.abs(out).max()) if out.size else 0.0
        if rel > 1e-4:
            sys.exit(f"head {h}: output differs by {rel:g} relative (tolerance 1e-4)")
        if (a[~allowed] != 0).any() or (got["weights"][~allowed] != 0).any():
            sys.exit(f"head {h}: a masked weight is not exactly 0")
        if cfg.get("tie_qk") and kind in ("dot", "scaled", "cosine") and n_q == n_k:
            if np.abs(got["scores"] - got["scores"].T).max() > 1e-5 * max(1.0, np.abs(s).max()):
                sys.exit(f"head {h}: tied Q and K but the raw scores are not symmetric")
    if d.get("concat") is not None and d.get("w_o") is not None:
        concat = np.concatenate([np.array(hd["output"], dtype=np.float64) for hd in d["heads"]], axis=1)
        close("concat of the heads' outputs", np.array(d["concat"]), concat, 1e-6)
        close("Y = concat W_O", np.array(d["output"]), concat @ np.array(d["w_o"]), 1e-4)
    print(f"ok {path}: {len(d['heads'])} heads, score {kind}, mask {cfg['mask']}, "
          f"worst weight error {worst:.2g}")


if __name__ == "__main__":
    main(sys.argv[1])
