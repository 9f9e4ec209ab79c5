#!/usr/bin/env python3
"""A GPT-2 checkpoint whose heads are built by hand, for the head tests.

  planted.py write DIR     the folder (config.json, tokenizer.json: a 2000-token
                           byte-level BPE, model.safetensors)
  planted.py check DIR     NumPy's forward (hf_fixture.forward, float64) on ten
                           seeded repeated random sequences [BOS] r1..r50 r1..r50:
                           prints each head's induction stripe and previous-token
                           score; exit 1 unless they are as planted

Two layers of two heads, an attention-only circuit (the MLPs are zero):
  layer 1 head 1  previous token: its query is the position i, its key the
                  position j + 1, so it looks at i - 1; its value copies the
                  token there into a third block of the residual ("prev")
  layer 1 head 2  nothing (zero weights: uniform)
  layer 2 head 1  induction: its query is the current token, its key the prev
                  block, so row i looks at the key j whose previous token is
                  tok[i], the token after an earlier copy (K-composition with
                  layer 1 head 1)
  layer 2 head 2  a fixed token: a constant query (its bias) against the key of
                  position 0 only: every row looks at the first position
The residual is [token code (128) | position one-hot (128) | prev (128)]: a
token is a balanced +-1 code (mean 0, norm 1), so with unit LayerNorms every
position's vector has the same mean and spread, and the normalization scales
them alike and adds a constant the softmax does not see. 2000 tokens (the
fixture's BPE grown by seeded merges), so that 50 random ones rarely repeat. Expected on the repeated random battery: layer 2 head 1
scores > 0.9, layer 2 head 2 < 0.1; layer 1 head 1's previous-token score > 0.9.
"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from hf_fixture import forward, gpt2_tokenizer  # noqa: E402
from verify_hf import dims, read_dir, tensor_shapes, write_safetensors  # noqa: E402

V, P, M = 2000, 128, 128  # tokens, positions, the size of a token's code
TOK, POS, PREV = 0, M, M + P  # blocks of the residual
D = 2 * M + P  # 384
HS = D // 2  # two heads of 192
EOS = V - 1  # <|endoftext|>: the BOS of the battery


def tokenizer():
    """The gpt2 fixture's byte-level BPE grown to V tokens with seeded merges of
    pieces already in it (any pair is a valid merge), <|endoftext|> last."""
    tok, n = gpt2_tokenizer()
    vocab = tok["model"]["vocab"]
    del vocab["<|endoftext|>"]
    merges = tok["model"]["merges"]
    pieces = sorted(vocab, key=vocab.get)
    rng = np.random.default_rng(7)
    while len(vocab) < V - 1:
        a, b = pieces[rng.integers(len(pieces))], pieces[rng.integers(len(pieces))]
        if a + b in vocab or len(a + b) > 8:
            continue
        vocab[a + b] = len(vocab)
        merges.append("%s %s" % (a, b))
        pieces.append(a + b)
    vocab["<|endoftext|>"] = V - 1
    tok["added_tokens"][0]["id"] = V - 1
    return tok


def codes():
    """One code per token: M entries of +-1/sqrt(M), half of each sign, so
    that every code has mean 0 and norm 1 (the LayerNorm treats all alike);
    two different codes have a dot product of about +-0.09."""
    rng = np.random.default_rng(11)
    base = np.array([1.0] * (M // 2) + [-1.0] * (M // 2)) / np.sqrt(M)
    return np.stack([rng.permutation(base) for _ in range(V)])


def write(d):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tokenizer(), f, ensure_ascii=False)
    cfg = {"model_type": "gpt2", "n_embd": D, "n_layer": 2, "n_head": 2, "n_inner": 4, "vocab_size": V,
           "n_positions": P, "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new"}
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    c = dims(cfg)
    w = {name: np.zeros(shape, dtype=np.float32) for name, shape in tensor_shapes(c).items()}
    for name in w:
        if "ln_" in name and name.endswith(".weight"):
            w[name][:] = 1
    w["wte.weight"][:, TOK:TOK + M] = codes()
    w["wpe.weight"][np.arange(P), POS + np.arange(P)] = 1
    # Layer 1's input: a code (mean 0, norm 1) and a one-hot position, the
    # same mean and spread everywhere; the LayerNorm multiplies by a1.
    mean = 1 / D
    a1 = 1 / np.sqrt(2 / D - mean ** 2)
    qkv = lambda l: w["h.%d.attn.c_attn.weight" % l]  # (D, 3D): q | k | v, head h at h * HS
    bias = lambda l: w["h.%d.attn.c_attn.bias" % l]
    # layer 1 head 1: q_i = e(i), k_j = e(j + 1) over the position block
    for p in range(P):
        qkv(0)[POS + p, p] = 1
        if p + 1 < HS:
            qkv(0)[POS + p, D + p + 1] = 1
    # its value copies the code; c_proj writes it into prev, at unit size
    for t in range(M):
        qkv(0)[TOK + t, 2 * D + t] = 1
        w["h.0.attn.c_proj.weight"][t, PREV + t] = 1 / a1
    # layer 2 head 1: q_i = code(tok i), k_j = prev j (the code of tok j-1)
    for t in range(M):
        qkv(1)[TOK + t, t] = 2.0
        qkv(1)[PREV + t, D + t] = 2.0
    # layer 2 head 2: a constant query against position 0's key
    bias(1)[HS] = 6.0
    qkv(1)[POS + 0, D + HS] = 6.0
    write_safetensors(os.path.join(d, "model.safetensors"), w, "F32")


def battery(seed=42, count=10, s=50, lo=0, hi=EOS):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        r = rng.integers(lo, hi, size=s)
        yield [EOS] + list(r) + list(r), s


def stripe(a, s):
    n = a.shape[0]
    return float(np.mean([a[i, i - (s - 1)] for i in range(s - 1, n)]))


def prev_mul(a):
    n = a.shape[0]
    return float(sum(a[i, i - 1] for i in range(1, n)) / a.sum())


def check(d):
    with open(os.path.join(d, "config.json")) as f:
        c = dims(json.load(f))
    w = {k: v.astype(np.float64) for k, v in read_dir(d).items()}
    scores = {}
    for ids, s in battery():
        layers, _ = forward(c, w, ids, True, True)
        for l, heads in enumerate(layers):
            for h, hd in enumerate(heads):
                a = hd["weights"]
                scores.setdefault((l, h), []).append((stripe(a, s), prev_mul(a)))
    ok = True
    for (l, h), v in sorted(scores.items()):
        ind, prev = np.mean([x[0] for x in v]), np.mean([x[1] for x in v])
        print("layer %d head %d  induction %.4f  previous %.4f" % (l + 1, h + 1, ind, prev))
        if (l, h) == (1, 0) and not ind > 0.9:
            ok = False
        if (l, h) == (1, 1) and not ind < 0.1:
            ok = False
        if (l, h) == (0, 0) and not prev > 0.9:
            ok = False
    return ok


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("write", "check"):
        raise SystemExit(__doc__)
    if sys.argv[1] == "write":
        write(sys.argv[2])
    else:
        sys.exit(0 if check(sys.argv[2]) else 1)
