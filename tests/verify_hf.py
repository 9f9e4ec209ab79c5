#!/usr/bin/env python3
"""Tiny Hugging Face checkpoints (config.json + safetensors, written here by
the format's spec: no torch or transformers) and an independent NumPy forward
pass of the HF conventions (float64, the whole sequence with a causal mask),
to check src/formats/hfcheckpoint.c and the engine (src/engine/transformer.c).

Usage:
  verify_hf.py write DIR CASE        writes DIR/config.json and the weights
  verify_hf.py check DIR DUMP ID...  compares DUMP with the reference
  verify_hf.py cases                 prints the case names

DUMP is float32 little-endian: logits (n, vocab), then for each layer its
input x (n, dim), q and k after RoPE (n, q_dim), (n, kv_dim), v (n, kv_dim),
then the final residual (n, dim) (tests/test_hfmodel.c writes it). The
attention weights of every layer and head are recomputed from the dumped q
and k and compared too. Exit 0 when all agree within 1e-4, 1 otherwise.
"""
import json
import os
import struct
import sys

import numpy as np

TOL = 1e-4

# name: (config.json, dtype, options)
CASES = {
    "gpt2_f32": ({"model_type": "gpt2", "n_embd": 16, "n_layer": 2, "n_head": 4, "vocab_size": 40,
                  "n_positions": 16, "n_inner": None, "layer_norm_epsilon": 1e-5,
                  "activation_function": "gelu_new"}, "F32", {"prefix": "transformer."}),
    "gpt2_bf16": ({"architectures": ["GPT2LMHeadModel"], "n_embd": 24, "n_layer": 3, "n_head": 3,
                   "vocab_size": 50, "n_positions": 12, "n_inner": 40, "layer_norm_epsilon": 1e-5},
                  "BF16", {"prefix": ""}),
    "llama_f32": ({"model_type": "llama", "hidden_size": 24, "intermediate_size": 40, "num_hidden_layers": 2,
                   "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 45,
                   "max_position_embeddings": 32, "rms_norm_eps": 1e-6, "rope_theta": 10000.0,
                   "tie_word_embeddings": False, "attention_bias": True, "hidden_act": "silu"},
                  "F32", {"unaligned": True}),
    "llama_bf16": ({"model_type": "llama", "hidden_size": 16, "intermediate_size": 24, "num_hidden_layers": 3,
                    "num_attention_heads": 2, "num_key_value_heads": 1, "vocab_size": 30,
                    "max_position_embeddings": 16, "rms_norm_eps": 1e-5, "rope_theta": 500000.0,
                    "tie_word_embeddings": True}, "BF16", {"shards": 2}),
    "qwen2_f32": ({"model_type": "qwen2", "hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 2,
                   "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 40,
                   "max_position_embeddings": 64, "rms_norm_eps": 1e-6, "rope_theta": 1000000.0,
                   "tie_word_embeddings": True, "use_sliding_window": False, "sliding_window": 8},
                  "F32", {}),
    "qwen2_bf16": ({"model_type": "qwen2", "hidden_size": 32, "intermediate_size": 48, "num_hidden_layers": 2,
                    "num_attention_heads": 4, "num_key_value_heads": 1, "vocab_size": 70,
                    "max_position_embeddings": 64, "rms_norm_eps": 1e-6, "rope_theta": 1000000.0,
                    "tie_word_embeddings": False}, "BF16", {}),
    "mistral_f16": ({"model_type": "mistral", "hidden_size": 16, "intermediate_size": 24, "num_hidden_layers": 2,
                     "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 8, "vocab_size": 33,
                     "max_position_embeddings": 64, "sliding_window": 4096, "rms_norm_eps": 1e-5,
                     "rope_theta": 10000.0}, "F16", {}),
    # Qwen3: q_norm and k_norm; heads x head_dim (4 x 32 = 128) is not hidden_size (48)
    "qwen3_f32": ({"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 48,
                   "intermediate_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
                   "num_key_value_heads": 2, "head_dim": 32, "vocab_size": 50, "max_position_embeddings": 64,
                   "rms_norm_eps": 1e-6, "rope_theta": 1000000.0, "tie_word_embeddings": False,
                   "attention_bias": False, "use_sliding_window": False, "sliding_window": None,
                   "hidden_act": "silu"}, "F32", {}),
    # no head_dim: Qwen3Config's 128 (2 x 128 on a width of 32); tied; transformers 5's rope_parameters
    "qwen3_bf16": ({"model_type": "qwen3", "hidden_size": 32, "intermediate_size": 40, "num_hidden_layers": 3,
                    "num_attention_heads": 2, "num_key_value_heads": 1, "vocab_size": 41,
                    "max_position_embeddings": 24, "rms_norm_eps": 1e-6, "tie_word_embeddings": True,
                    "rope_parameters": {"rope_type": "default", "rope_theta": 5000.0}}, "BF16", {}),
    # Llama 3.x's rope_scaling. head_dim 16, theta 10000: wavelengths 2 pi theta^(2p/16) = 6.3, 19.9, 62.8,
    # 199, ...; original context 64 with factors 1 and 4: 6.3 < 16 kept, 19.9 and 62.8 between 16 and 64
    # smoothed, from 199 on divided by 8
    "llama3_f32": ({"model_type": "llama", "hidden_size": 32, "intermediate_size": 48, "num_hidden_layers": 2,
                    "num_attention_heads": 2, "num_key_value_heads": 1, "vocab_size": 45,
                    "max_position_embeddings": 128, "rms_norm_eps": 1e-5, "rope_theta": 10000.0,
                    "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                                     "high_freq_factor": 4.0, "original_max_position_embeddings": 64},
                    "tie_word_embeddings": False}, "F32", {}),
    # the older "type"; head_dim 32, theta 500000: wavelengths 6.3, 14.3, 32.5, 73.7, ...; original 48 with
    # factors 1 and 4 (thresholds 12 and 48): one kept, two smoothed, the rest divided by 32
    "llama3_bf16": ({"model_type": "llama", "hidden_size": 64, "intermediate_size": 40, "num_hidden_layers": 2,
                     "num_attention_heads": 2, "num_key_value_heads": 2, "vocab_size": 38,
                     "max_position_embeddings": 40, "rms_norm_eps": 1e-5, "rope_theta": 500000.0,
                     "rope_scaling": {"type": "llama3", "factor": 32.0, "low_freq_factor": 1.0,
                                      "high_freq_factor": 4.0, "original_max_position_embeddings": 48},
                     "tie_word_embeddings": True}, "BF16", {}),
    # linear scaling: every frequency divided by the factor
    "qwen2_linear_f32": ({"model_type": "qwen2", "hidden_size": 16, "intermediate_size": 32,
                          "num_hidden_layers": 2, "num_attention_heads": 2, "num_key_value_heads": 2,
                          "vocab_size": 30, "max_position_embeddings": 48, "rope_theta": 10000.0,
                          "rope_scaling": {"type": "linear", "factor": 4.0}}, "F32", {}),
}


# ----------------------------------------------------------------------------
# configuration as the HF classes read it

def dims(cfg):
    if cfg.get("model_type", "gpt2") == "gpt2" or cfg.get("architectures") == ["GPT2LMHeadModel"]:
        d, h = cfg["n_embd"], cfg["n_head"]
        return dict(arch="gpt2", dim=d, hidden=cfg.get("n_inner") or 4 * d, layers=cfg["n_layer"], heads=h,
                    kv_heads=h, hs=d // h, vocab=cfg["vocab_size"], pos=cfg.get("n_positions", 1024),
                    eps=cfg.get("layer_norm_epsilon", 1e-5), tied=True, qkv_bias=True, o_bias=True)
    d, h = cfg["hidden_size"], cfg["num_attention_heads"]
    mt = cfg["model_type"]
    # RoPE: rope_scaling, or transformers 5's rope_parameters (with rope_theta inside)
    rope = cfg.get("rope_parameters") or cfg.get("rope_scaling")
    theta = (cfg.get("rope_parameters") or {}).get("rope_theta", cfg.get("rope_theta", 10000.0))
    return dict(arch="llama", dim=d, hidden=cfg["intermediate_size"], layers=cfg["num_hidden_layers"], heads=h,
                kv_heads=cfg.get("num_key_value_heads", h),
                hs=cfg.get("head_dim", 128 if mt == "qwen3" else d // h),  # Qwen3Config's head_dim is 128
                vocab=cfg["vocab_size"], eps=cfg.get("rms_norm_eps", 1e-6), theta=theta, rope=rope,
                tied=cfg.get("tie_word_embeddings", False), qk_norm=mt == "qwen3",
                qkv_bias=mt == "qwen2" or cfg.get("attention_bias", False), o_bias=cfg.get("attention_bias", False))


def tensor_shapes(c, prefix=""):
    """name -> shape, every tensor the architecture has."""
    d, hid, hs = c["dim"], c["hidden"], c["hs"]
    qd, kvd = c["heads"] * hs, c["kv_heads"] * hs
    s = {}
    if c["arch"] == "gpt2":
        p = prefix
        s[p + "wte.weight"] = (c["vocab"], d)
        s[p + "wpe.weight"] = (c["pos"], d)
        s[p + "ln_f.weight"], s[p + "ln_f.bias"] = (d,), (d,)
        for l in range(c["layers"]):
            h = "%sh.%d." % (p, l)
            s[h + "ln_1.weight"] = s[h + "ln_1.bias"] = (d,)
            s[h + "attn.c_attn.weight"], s[h + "attn.c_attn.bias"] = (d, 3 * d), (3 * d,)
            s[h + "attn.c_proj.weight"], s[h + "attn.c_proj.bias"] = (d, d), (d,)
            s[h + "ln_2.weight"] = s[h + "ln_2.bias"] = (d,)
            s[h + "mlp.c_fc.weight"], s[h + "mlp.c_fc.bias"] = (d, hid), (hid,)
            s[h + "mlp.c_proj.weight"], s[h + "mlp.c_proj.bias"] = (hid, d), (d,)
        return s
    s["model.embed_tokens.weight"] = (c["vocab"], d)
    s["model.norm.weight"] = (d,)
    if not c["tied"]:
        s["lm_head.weight"] = (c["vocab"], d)
    for l in range(c["layers"]):
        h = "model.layers.%d." % l
        s[h + "input_layernorm.weight"] = s[h + "post_attention_layernorm.weight"] = (d,)
        s[h + "self_attn.q_proj.weight"] = (qd, d)
        s[h + "self_attn.k_proj.weight"] = s[h + "self_attn.v_proj.weight"] = (kvd, d)
        s[h + "self_attn.o_proj.weight"] = (d, qd)
        if c["qkv_bias"]:
            s[h + "self_attn.q_proj.bias"] = (qd,)
            s[h + "self_attn.k_proj.bias"] = s[h + "self_attn.v_proj.bias"] = (kvd,)
        if c["o_bias"]:
            s[h + "self_attn.o_proj.bias"] = (d,)
        if c["qk_norm"]:
            s[h + "self_attn.q_norm.weight"] = s[h + "self_attn.k_norm.weight"] = (hs,)
        s[h + "mlp.gate_proj.weight"] = s[h + "mlp.up_proj.weight"] = (hid, d)
        s[h + "mlp.down_proj.weight"] = (d, hid)
    return s


# ----------------------------------------------------------------------------
# safetensors, by the spec

def encode(a, dtype):
    a = np.ascontiguousarray(a, dtype="<f4")
    if dtype == "F32":
        return a.tobytes()
    if dtype == "F16":
        return a.astype("<f2").tobytes()
    bits = a.view("<u4").astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype("<u2").tobytes()  # round to nearest even


def decode(raw, dtype, shape):
    if dtype == "F32":
        a = np.frombuffer(raw, dtype="<f4")
    elif dtype == "F16":
        a = np.frombuffer(raw, dtype="<f2")
    else:
        a = (np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16).view("<f4")
    return a.astype(np.float64).reshape(shape)


def write_safetensors(path, tensors, dtype, unaligned=False):
    header, blobs, at = {"__metadata__": {"format": "pt"}}, [], 0
    for name, a in tensors.items():
        b = encode(a, dtype)
        header[name] = {"dtype": dtype, "shape": list(a.shape), "data_offsets": [at, at + len(b)]}
        blobs.append(b)
        at += len(b)
    h = json.dumps(header).encode()
    pad = (-len(h)) % 8 + (2 if unaligned else 0)  # unaligned: data starts at 8 + 8k + 2
    h += b" " * pad
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


def read_safetensors(path):
    raw = open(path, "rb").read()
    n = struct.unpack_from("<Q", raw, 0)[0]
    header = json.loads(raw[8:8 + n])
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        b, e = t["data_offsets"]
        out[name] = decode(raw[8 + n + b:8 + n + e], t["dtype"], t["shape"])
    return out


def read_dir(d):
    index = os.path.join(d, "model.safetensors.index.json")
    if os.path.exists(index):
        out = {}
        for shard in sorted(set(json.load(open(index))["weight_map"].values())):
            out.update(read_safetensors(os.path.join(d, shard)))
        return out
    return read_safetensors(os.path.join(d, "model.safetensors"))


def write_case(d, name):
    cfg, dtype, opt = CASES[name]
    c = dims(cfg)
    rng = np.random.default_rng(sum(map(ord, name)))
    tensors = {}
    for tname, shape in tensor_shapes(c, opt.get("prefix", "")).items():
        if tname.endswith("norm.weight") or "ln_" in tname and tname.endswith(".weight"):
            a = 1.0 + 0.1 * rng.standard_normal(shape)
        elif tname.endswith(".bias"):
            a = 0.1 * rng.standard_normal(shape)
        else:
            a = rng.standard_normal(shape) / np.sqrt(shape[-1] if len(shape) == 2 else 1) * 0.8
        tensors[tname] = a.astype(np.float32)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    shards = opt.get("shards", 1)
    if shards == 1:
        write_safetensors(os.path.join(d, "model.safetensors"), tensors, dtype, opt.get("unaligned", False))
        return
    names = sorted(tensors)
    weight_map = {}
    for s in range(shards):
        fname = "model-%05d-of-%05d.safetensors" % (s + 1, shards)
        part = {n: tensors[n] for n in names[s::shards]}
        write_safetensors(os.path.join(d, fname), part, dtype)
        weight_map.update({n: fname for n in part})
    with open(os.path.join(d, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {}, "weight_map": weight_map}, f)


# ----------------------------------------------------------------------------
# the forward pass, as transformers' modeling_gpt2 / modeling_llama compute it

def layernorm(x, w, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def rmsnorm(x, w, eps):
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * w


def gelu_new(x):
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x ** 3)))


def rotate_half(x):
    h = x.shape[-1] // 2
    return np.concatenate([-x[..., h:], x[..., :h]], axis=-1)


def rope_inv_freq(c):
    """The inverse frequencies of modeling_rope_utils.py: default (theta^(-2i/hs)), "linear" (over factor) and
    "llama3" (_compute_llama3_parameters: wavelengths against the original context)."""
    hs = c["hs"]
    inv_freq = 1.0 / c["theta"] ** (np.arange(0, hs, 2) / hs)
    rope = c.get("rope") or {}
    kind = rope.get("rope_type", rope.get("type", "default"))
    if kind == "default":
        return inv_freq
    if kind == "linear":
        return inv_freq / rope["factor"]
    assert kind == "llama3", kind
    factor, low, high = rope["factor"], rope["low_freq_factor"], rope["high_freq_factor"]
    old = rope["original_max_position_embeddings"]
    low_wavelen, high_wavelen = old / low, old / high
    wavelen = 2 * np.pi / inv_freq
    scaled = np.where(wavelen > low_wavelen, inv_freq / factor, inv_freq)
    smooth = (old / wavelen - low) / (high - low)
    smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    medium = ~(wavelen < high_wavelen) & ~(wavelen > low_wavelen)
    return np.where(medium, smoothed, scaled)


def rope_bands(c):
    """How many of the frequencies llama3 kept, smoothed and divided (None for the other kinds)."""
    rope = c.get("rope") or {}
    if rope.get("rope_type", rope.get("type")) != "llama3":
        return None
    wavelen = 2 * np.pi * c["theta"] ** (np.arange(0, c["hs"], 2) / c["hs"])
    old = rope["original_max_position_embeddings"]
    high = wavelen < old / rope["high_freq_factor"]
    low = wavelen > old / rope["low_freq_factor"]
    return int(high.sum()), int((~high & ~low).sum()), int(low.sum())


def apply_rope(x, n_heads, c):
    n, hs = x.shape[0], c["hs"]
    inv_freq = rope_inv_freq(c)
    freqs = np.arange(n)[:, None] * inv_freq[None, :]
    emb = np.concatenate([freqs, freqs], axis=-1)  # (n, hs)
    cos, sin = np.cos(emb)[:, None, :], np.sin(emb)[:, None, :]
    x = x.reshape(n, n_heads, hs)
    return (x * cos + rotate_half(x) * sin).reshape(n, n_heads * hs)


def llama_qk(c, w, h, lin, xb):
    """q and k of layer h ("model.layers.L.") as the scores see them: projected, each head's RMSNorm times
    q_norm / k_norm (Qwen3, before RoPE), rotate-half RoPE."""
    n, hs = xb.shape[0], c["hs"]
    q, k = lin("self_attn.q_proj", xb), lin("self_attn.k_proj", xb)
    if c.get("qk_norm"):
        q = rmsnorm(q.reshape(n, c["heads"], hs), w[h + "self_attn.q_norm.weight"], c["eps"]).reshape(n, -1)
        k = rmsnorm(k.reshape(n, c["kv_heads"], hs), w[h + "self_attn.k_norm.weight"], c["eps"]).reshape(n, -1)
    return apply_rope(q, c["heads"], c), apply_rope(k, c["kv_heads"], c)


def attention_weights(q, k, heads, kv_heads, hs):
    """(heads, n, n) causal softmax(q k^T / sqrt(hs)), grouped-query."""
    n = q.shape[0]
    causal = np.tril(np.ones((n, n), dtype=bool))
    out = np.empty((heads, n, n))
    for h in range(heads):
        g = h // (heads // kv_heads)
        s = q[:, h * hs:(h + 1) * hs] @ k[:, g * hs:(g + 1) * hs].T / np.sqrt(hs)
        s = np.where(causal, s, -np.inf)
        a = np.exp(s - s.max(axis=1, keepdims=True))
        out[h] = a / a.sum(axis=1, keepdims=True)
    return out


def attend(a, v, heads, kv_heads, hs):
    return np.concatenate([a[h] @ v[:, (h // (heads // kv_heads)) * hs:(h // (heads // kv_heads) + 1) * hs]
                           for h in range(heads)], axis=1)


def forward(c, w, ids):
    """logits (n, vocab), and per layer (x, q, k, v, attention weights), and the final x."""
    n, hs, H, G = len(ids), c["hs"], c["heads"], c["kv_heads"]
    layers = []
    if c["arch"] == "gpt2":
        p = "transformer." if "transformer.wte.weight" in w else ""
        g = lambda name: w[p + name]
        x = g("wte.weight")[ids] + g("wpe.weight")[:n]
        d = c["dim"]
        for l in range(c["layers"]):
            h = "h.%d." % l
            xb = layernorm(x, g(h + "ln_1.weight"), g(h + "ln_1.bias"), c["eps"])
            qkv = xb @ g(h + "attn.c_attn.weight") + g(h + "attn.c_attn.bias")
            q, k, v = qkv[:, :d], qkv[:, d:2 * d], qkv[:, 2 * d:]
            a = attention_weights(q, k, H, G, hs)
            layers.append((x, q, k, v, a))
            x = x + attend(a, v, H, G, hs) @ g(h + "attn.c_proj.weight") + g(h + "attn.c_proj.bias")
            xb = layernorm(x, g(h + "ln_2.weight"), g(h + "ln_2.bias"), c["eps"])
            f = gelu_new(xb @ g(h + "mlp.c_fc.weight") + g(h + "mlp.c_fc.bias"))
            x = x + f @ g(h + "mlp.c_proj.weight") + g(h + "mlp.c_proj.bias")
        logits = layernorm(x, g("ln_f.weight"), g("ln_f.bias"), c["eps"]) @ g("wte.weight").T
        return logits, layers, x
    x = w["model.embed_tokens.weight"][ids]
    for l in range(c["layers"]):
        h = "model.layers.%d." % l
        lin = lambda name, inp: inp @ w[h + name + ".weight"].T + w.get(h + name + ".bias", 0.0)
        xb = rmsnorm(x, w[h + "input_layernorm.weight"], c["eps"])
        q, k = llama_qk(c, w, h, lin, xb)
        v = lin("self_attn.v_proj", xb)
        a = attention_weights(q, k, H, G, hs)
        layers.append((x, q, k, v, a))
        x = x + lin("self_attn.o_proj", attend(a, v, H, G, hs))
        xb = rmsnorm(x, w[h + "post_attention_layernorm.weight"], c["eps"])
        gate, up = lin("mlp.gate_proj", xb), lin("mlp.up_proj", xb)
        x = x + lin("mlp.down_proj", gate / (1.0 + np.exp(-gate)) * up)
    cls = w["model.embed_tokens.weight"] if c["tied"] else w["lm_head.weight"]
    return rmsnorm(x, w["model.norm.weight"], c["eps"]) @ cls.T, layers, x


def check(d, dump, ids):
    c = dims(json.load(open(os.path.join(d, "config.json"))))
    w = read_dir(d)
    n, dim, qd, kvd = len(ids), c["dim"], c["heads"] * c["hs"], c["kv_heads"] * c["hs"]
    logits, layers, xf = forward(c, w, np.array(ids))
    got = np.fromfile(dump, dtype="<f4").astype(np.float64)
    want = n * c["vocab"] + c["layers"] * n * (dim + qd + 2 * kvd) + n * dim
    if got.size != want:
        print("%s: %d floats, expected %d" % (dump, got.size, want), file=sys.stderr)
        return 1
    at = 0

    def take(cols):
        nonlocal at
        part = got[at:at + n * cols].reshape(n, cols)
        at += n * cols
        return part

    worst = {"logits": np.abs(take(c["vocab"]) - logits).max()}
    for l, (x, q, k, v, a) in enumerate(layers):
        cx, cq, ck, cv = take(dim), take(qd), take(kvd), take(kvd)
        for name, mine, ref in (("x", cx, x), ("q", cq, q), ("k", ck, k), ("v", cv, v)):
            worst["%s%d" % (name, l)] = np.abs(mine - ref).max()
        worst["att%d" % l] = np.abs(attention_weights(cq, ck, c["heads"], c["kv_heads"], c["hs"]) - a).max()
    worst["x_final"] = np.abs(take(dim) - xf).max()
    bad = {k: e for k, e in worst.items() if not e <= TOL}
    top = max(worst, key=worst.get)
    bands = rope_bands(c)
    print("numpy %s: %d tokens, %d layers: max |diff| %.3g (%s)%s" % (
        os.path.basename(d), n, c["layers"], worst[top], top,
        "" if bands is None else "; llama3 frequencies kept %d, smoothed %d, divided %d" % bands))
    if bands is not None and 0 in bands:
        print("numpy: a band of llama3's scaling is empty: %s" % (bands,), file=sys.stderr)
        return 1
    for k, e in bad.items():
        print("numpy: %s differs by %.6g" % (k, e), file=sys.stderr)
    return 1 if bad else 0


def main(argv):
    if len(argv) >= 4 and argv[1] == "write" and argv[3] in CASES:
        write_case(argv[2], argv[3])
        return 0
    if len(argv) >= 5 and argv[1] == "check":
        return check(argv[2], argv[3], [int(a) for a in argv[4:]])
    if len(argv) == 2 and argv[1] == "cases":
        print(" ".join(CASES))
        return 0
    print(__doc__.strip(), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
