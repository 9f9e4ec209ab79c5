#!/usr/bin/env python3
"""GGUF models for attnviz's tests (issue 28), written with gguf_writer.py's
writer and ggml reference quantizers, and a NumPy forward pass of a GGUF
model on its dequantized weights.

  gguf_model.py bin2gguf MODEL.bin TOK.bin OUT.gguf TYPE
      a llama2.c checkpoint and its tokenizer.bin as a GGUF of architecture
      "llama" (llama.cpp's keys and tensor names; llama2.c's q and k rows are
      already Meta's consecutive pairs, which GGUF's llama stores), the
      tokenizer as tokenizer.ggml.model "llama" (pieces with "▁", scores,
      token types: <unk> unknown, <s> and </s> control, <0xHH> byte). The
      matrices in TYPE where their rows are whole blocks of it, else F32
      (stories260K's ffn_down has rows of 172); vectors F32. Prints the
      tensors that stayed F32.
  gguf_model.py synth ARCH TYPE OUT.gguf
      a seeded synthetic model of ARCH (llama: GQA, a separate output;
      qwen2: q/k/v biases, RoPE on halves, base 1e6, tied; gpt2: LayerNorm,
      fused attn_qkv, learned positions, GELU) whose rows are multiples of
      256 (dim 256, hidden 512 or 1024: every K-quant fits), every matrix
      in TYPE; llama with a SentencePiece vocabulary of 512 ("llama"),
      qwen2 and gpt2 with a byte-level BPE of 512 ("gpt2", pre "qwen2" and
      "gpt-2"), both trained here on a fixed text.
  gguf_model.py forward FILE.gguf DUMP ID...
      the forward pass of FILE in NumPy (float64, from the weights as
      ggml's dequantize_row_* gives them) over the ids, compared with DUMP
      (float32: the logits of every row, then each layer's K after RoPE and
      V): exit 0 when every number is within 1e-4 of its array's largest
      magnitude (at least 1), else 1. Prints the largest differences.
  gguf_model.py top FILE.gguf exact|llama.cpp ID...
      the ten most likely next tokens after the ids as JSON [[id, p], ...]:
      exact (the weights' values, float64), or llama.cpp's rounding of the
      activations before each product (llama_cpp_rounding: F16, BF16, Q8_0,
      Q8_1 or Q8_K by the weight's type), to tell what a difference from
      llama.cpp is made of.
  gguf_model.py dequant IN.gguf OUT.gguf
      IN again with every tensor F32: its values as ggml's dequantize_row_*
      gives them (the engine must compute the same bits from either).
  gguf_model.py bad DIR
      refused files DIR/bad-*.gguf (small llama models, one thing wrong
      each); prints "NAME<TAB>the words attnviz's line must hold" per file.
  gguf_model.py seeds DIR
      tiny valid models for fuzz_ggufmodel's seed corpus
      (tests/fuzz/corpus/ggufmodel/): llama (Q8_0, F16), qwen2 (Q4_0,
      a vocabulary of about 270), gpt2 (F32, fused q/k/v), each 15 to 40 KB.
  gguf_model.py tokenizer SRC OUT.gguf PRE
      the real tokenizer SRC (a tokenizer.json, or a vocab.json whose
      merges.txt is beside it: GPT-2's encoder.json + vocab.bpe too) as the
      tokenizer.ggml.* metadata of a GGUF without tensors ("gpt2", PRE the
      pre-tokenizer's name; added special tokens control, others
      user-defined).
"""
import json
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gguf_writer as gw  # noqa: E402

F = np.float32
STR, ARR, U32, I32, F32T, BOOL = gw.STR, gw.ARR, gw.U32, gw.I32, gw.F32T, gw.BOOL
META = "\u2581"

# ---------------------------------------------------------------------------
# llama2.c files


def read_llama2(path):
    raw = open(path, "rb").read()
    dim, hidden, layers, heads, kvh, vocab, seq = struct.unpack_from("<7i", raw, 0)
    shared, vocab = vocab > 0, abs(vocab)
    hs = dim // heads
    kv = kvh * hs
    f = np.frombuffer(raw, dtype="<f4", offset=28).astype(F)
    at = [0]

    def take(*shape):
        n = int(np.prod(shape))
        t = f[at[0]:at[0] + n].reshape(shape)
        at[0] += n
        return t

    w = {"embed": take(vocab, dim), "rms_att": take(layers, dim), "wq": take(layers, dim, dim),
         "wk": take(layers, kv, dim), "wv": take(layers, kv, dim), "wo": take(layers, dim, dim),
         "rms_ffn": take(layers, dim), "w1": take(layers, hidden, dim), "w2": take(layers, dim, hidden),
         "w3": take(layers, hidden, dim), "rms_final": take(dim)}
    take(seq, hs // 2)
    take(seq, hs // 2)
    w["cls"] = None if shared else take(vocab, dim)
    cfg = dict(dim=dim, hidden=hidden, layers=layers, heads=heads, kv_heads=kvh, vocab=vocab, ctx=seq, hs=hs)
    return cfg, w


def read_tokbin(path):
    b = open(path, "rb").read()
    pos, out = 4, []
    while pos < len(b):
        score, n = struct.unpack_from("<fi", b, pos)
        pos += 8
        out.append((b[pos:pos + n], score))
        pos += n
    return out


def spm_vocab_of_tokbin(pieces):
    """tokenizer.bin pieces (spaces) -> GGUF tokens ("▁"), scores, types."""
    toks, scores, types = [], [], []
    for i, (p, s) in enumerate(pieces):
        t = p.decode("utf-8", "replace")
        if i in (1, 2):
            t = "<s>" if i == 1 else "</s>"
        kind = 2 if i == 0 else 3 if i in (1, 2) else 6 if (len(p) == 6 and p.startswith(b"<0x")) else 1
        toks.append(t.replace(" ", META))
        scores.append(s)
        types.append(kind)
    return toks, scores, types


# ---------------------------------------------------------------------------
# vocabularies trained here

TEXT = ("Once upon a time, there was a little girl named Lily. She loved to play outside in the park. "
        "One day, she saw a big, red ball. She wanted to play with it, but it was too high. "
        "Lily's mom said, \"Let's go to the park.\" They're happy; we'll see 12 dogs and 345 cats! "
        "The quick brown fox jumps over the lazy dog. 2024-06-01: I've been there, you'd know it.\n"
        "Tom and Ben were friends. They liked to run and jump and laugh together in the sun.\n")


def train_merges(words, n_merges):
    """Byte-pair merges over a list of symbol tuples (the most frequent
    pair first, then the smallest): the merged strings in rank order."""
    words = [list(w) for w in words]
    merges = []
    for _ in range(n_merges):
        counts = {}
        for w in words:
            for a, b in zip(w, w[1:]):
                counts[(a, b)] = counts.get((a, b), 0) + 1
        if not counts:
            break
        best = min(counts, key=lambda p: (-counts[p], p))
        merges.append(best)
        for w in words:
            i = 0
            while i + 1 < len(w):
                if (w[i], w[i + 1]) == best:
                    w[i:i + 2] = [w[i] + w[i + 1]]
                i += 1
    return merges


def byte_chars():
    cp = {}
    nxt = 256
    for b in range(256):
        if 0x21 <= b <= 0x7E or 0xA1 <= b <= 0xAC or 0xAE <= b <= 0xFF:
            cp[b] = chr(b)
        else:
            cp[b] = chr(nxt)
            nxt += 1
    return cp


def bpe_vocab(size):
    """A byte-level BPE of `size` tokens: the 256 byte characters, merges
    learned on TEXT (GPT-2's split), <|endoftext|> last (control)."""
    import re
    cp = byte_chars()
    words = [tuple(cp[b] for b in w.encode()) for w in re.findall(r" ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+", TEXT)]
    merges = train_merges(words, size - 257)
    toks = [cp[b] for b in range(256)] + [a + b for a, b in merges] + ["<|endoftext|>"]
    types = [1] * (len(toks) - 1) + [3]
    return toks, ["%s %s" % m for m in merges], types


def spm_vocab(size):
    """A SentencePiece-style vocabulary of `size`: <unk>, <s>, </s>, the 256
    byte pieces, then pieces learned on TEXT ("▁" for spaces), scores -rank."""
    words = [tuple(META + w) for w in TEXT.replace("\n", " ").split(" ") if w]
    merges = train_merges(words, size - 259)
    pieces = []
    for a, b in merges:
        if a + b not in pieces:
            pieces.append(a + b)
    chars = sorted({c for w in words for c in w})
    extra = [c for c in chars if c not in pieces]
    toks = ["<unk>", "<s>", "</s>"] + ["<0x%02X>" % b for b in range(256)]
    body = (extra + pieces)[:size - len(toks)]
    toks += body
    scores = [0.0] * 259 + [-float(i) for i in range(len(body))]
    types = [2, 3, 3] + [6] * 256 + [1] * len(body)
    return toks, scores, types


# ---------------------------------------------------------------------------
# writing models


def add_tokenizer(w, kind, toks, scores=None, types=None, merges=None, pre=None, bos=1, eos=2, add_bos=True):
    w.kv("tokenizer.ggml.model", STR, kind)
    if pre:
        w.kv("tokenizer.ggml.pre", STR, pre)
    w.kv("tokenizer.ggml.tokens", ARR, (STR, toks))
    if scores is not None:
        w.kv("tokenizer.ggml.scores", ARR, (F32T, [float(s) for s in scores]))
    if types is not None:
        w.kv("tokenizer.ggml.token_type", ARR, (I32, types))
    if merges is not None:
        w.kv("tokenizer.ggml.merges", ARR, (STR, merges))
    if bos is not None:
        w.kv("tokenizer.ggml.bos_token_id", U32, bos)
    if eos is not None:
        w.kv("tokenizer.ggml.eos_token_id", U32, eos)
    if add_bos is not None:
        w.kv("tokenizer.ggml.add_bos_token", BOOL, 1 if add_bos else 0)


def fits(tname, ne0):
    return ne0 % gw.TYPES[tname][1] == 0


def matrix(w, name, values, tname, kept):
    t = tname if fits(tname, values.shape[-1]) else "F32"
    if t != tname:
        kept.append(name)
    w.tensor(name, values, t)


def llama_keys(w, arch, cfg, eps, theta=None):
    a = arch
    w.kv("general.architecture", STR, a)
    w.kv("general.name", STR, cfg.get("name", "test"))
    w.kv(a + ".context_length", U32, cfg["ctx"])
    w.kv(a + ".embedding_length", U32, cfg["dim"])
    w.kv(a + ".block_count", U32, cfg["layers"])
    w.kv(a + ".feed_forward_length", U32, cfg["hidden"])
    w.kv(a + ".attention.head_count", U32, cfg["heads"])
    w.kv(a + ".attention.head_count_kv", U32, cfg["kv_heads"])
    if arch != "gpt2":
        w.kv(a + ".rope.dimension_count", U32, cfg["hs"])
        w.kv(a + ".attention.layer_norm_rms_epsilon", F32T, eps)
        if theta is not None:
            w.kv(a + ".rope.freq_base", F32T, theta)
    else:
        w.kv(a + ".attention.layer_norm_epsilon", F32T, eps)
    w.kv("general.file_type", U32, 0)


def llama_tensors(w, cfg, wt, tname, kept, skip=()):
    """llama2.c-named weights wt (per layer stacks) as llama.cpp's tensors."""
    if "token_embd.weight" not in skip:
        matrix(w, "token_embd.weight", wt["embed"], tname, kept)
    w.tensor("output_norm.weight", wt["rms_final"], "F32")
    if wt.get("cls") is not None and "output.weight" not in skip:
        matrix(w, "output.weight", wt["cls"], tname, kept)
    for l in range(cfg["layers"]):
        p = "blk.%d." % l
        parts = [("attn_norm.weight", wt["rms_att"][l], 0), ("attn_q.weight", wt["wq"][l], 1),
                 ("attn_k.weight", wt["wk"][l], 1), ("attn_v.weight", wt["wv"][l], 1),
                 ("attn_output.weight", wt["wo"][l], 1), ("ffn_norm.weight", wt["rms_ffn"][l], 0),
                 ("ffn_gate.weight", wt["w1"][l], 1), ("ffn_down.weight", wt["w2"][l], 1),
                 ("ffn_up.weight", wt["w3"][l], 1)]
        for bias in ("bq", "bk", "bv"):
            if bias in wt:
                parts.append(({"bq": "attn_q.bias", "bk": "attn_k.bias", "bv": "attn_v.bias"}[bias], wt[bias][l], 0))
        for name, v, mat in parts:
            if p + name in skip:
                continue
            if mat:
                matrix(w, p + name, v, tname, kept)
            else:
                w.tensor(p + name, v, "F32")


def bin2gguf(model, tok, out, tname):
    cfg, wt = read_llama2(model)
    cfg["name"] = os.path.basename(model)
    toks, scores, types = spm_vocab_of_tokbin(read_tokbin(tok))
    w = gw.GGUFWriter()
    llama_keys(w, "llama", cfg, 1e-5)
    add_tokenizer(w, "llama", toks, scores, types, bos=1, eos=2, add_bos=True)
    w.kv("tokenizer.ggml.unknown_token_id", U32, 0)
    kept = []
    llama_tensors(w, cfg, wt, tname, kept)
    w.write(out)
    if kept and tname != "F32":
        print("F32 (rows not whole %s blocks): %s" % (tname, " ".join(kept)))


def synth_weights(arch, cfg, seed=28):
    rng = np.random.default_rng(seed)
    d, hid, L, V = cfg["dim"], cfg["hidden"], cfg["layers"], cfg["vocab"]
    qd, kvd = cfg["heads"] * cfg["hs"], cfg["kv_heads"] * cfg["hs"]

    def mat(*shape, scale=1.0):
        return (rng.standard_normal(shape) * scale / np.sqrt(shape[-1])).astype(F)

    def norm(*shape):
        return (1.0 + 0.1 * rng.standard_normal(shape)).astype(F)

    w = {"embed": (rng.standard_normal((V, d)) * 0.125).astype(F), "rms_att": norm(L, d), "rms_ffn": norm(L, d),
         "rms_final": norm(d), "wq": mat(L, qd, d, scale=2.0), "wk": mat(L, kvd, d, scale=2.0), "wv": mat(L, kvd, d),
         "wo": mat(L, d, qd), "w1": mat(L, hid, d), "w2": mat(L, d, hid), "w3": mat(L, hid, d)}
    w["cls"] = mat(V, d, scale=2.0) if arch == "llama" else None
    if arch in ("qwen2", "gpt2"):
        for b, n in (("bq", qd), ("bk", kvd), ("bv", kvd)):
            w[b] = (0.1 * rng.standard_normal((L, n))).astype(F)
    if arch == "gpt2":
        for b, n in (("b_att", d), ("b_ffn", d), ("bo", d), ("b_fc", hid), ("b_down", d)):
            w[b] = (0.1 * rng.standard_normal((L, n))).astype(F)
        w["b_final"] = (0.1 * rng.standard_normal(d)).astype(F)
        w["wpe"] = (rng.standard_normal((cfg["ctx"], d)) * 0.1).astype(F)
    return w


SYNTH = {
    "llama": dict(dim=256, hidden=512, layers=2, heads=4, kv_heads=2, hs=64, vocab=512, ctx=64),
    "qwen2": dict(dim=256, hidden=512, layers=2, heads=4, kv_heads=2, hs=64, vocab=512, ctx=64),
    "gpt2": dict(dim=256, hidden=1024, layers=2, heads=4, kv_heads=4, hs=64, vocab=512, ctx=64),
}


def synth(arch, tname, out, shape=None):
    cfg = dict(shape or SYNTH[arch], name="synthetic " + arch)
    if arch == "llama":
        toks, scores, types = spm_vocab(cfg["vocab"])
    else:
        toks, merges, types = bpe_vocab(cfg["vocab"])
    cfg["vocab"] = len(toks)  # as many as the text gave merges for
    wt = synth_weights(arch, cfg)
    w = gw.GGUFWriter()
    kept = []
    end = len(toks) - 1
    if arch == "gpt2":
        llama_keys(w, "gpt2", cfg, 1e-5)
        add_tokenizer(w, "gpt2", toks, types=types, merges=merges, pre="gpt-2", bos=end, eos=end, add_bos=False)
        matrix(w, "token_embd.weight", wt["embed"], tname, kept)
        w.tensor("position_embd.weight", wt["wpe"], "F32")
        w.tensor("output_norm.weight", wt["rms_final"], "F32")
        w.tensor("output_norm.bias", wt["b_final"], "F32")
        for l in range(cfg["layers"]):
            p = "blk.%d." % l
            w.tensor(p + "attn_norm.weight", wt["rms_att"][l], "F32")
            w.tensor(p + "attn_norm.bias", wt["b_att"][l], "F32")
            matrix(w, p + "attn_qkv.weight", np.concatenate([wt["wq"][l], wt["wk"][l], wt["wv"][l]]), tname, kept)
            w.tensor(p + "attn_qkv.bias", np.concatenate([wt["bq"][l], wt["bk"][l], wt["bv"][l]]), "F32")
            matrix(w, p + "attn_output.weight", wt["wo"][l], tname, kept)
            w.tensor(p + "attn_output.bias", wt["bo"][l], "F32")
            w.tensor(p + "ffn_norm.weight", wt["rms_ffn"][l], "F32")
            w.tensor(p + "ffn_norm.bias", wt["b_ffn"][l], "F32")
            matrix(w, p + "ffn_up.weight", wt["w1"][l], tname, kept)
            w.tensor(p + "ffn_up.bias", wt["b_fc"][l], "F32")
            matrix(w, p + "ffn_down.weight", wt["w2"][l], tname, kept)
            w.tensor(p + "ffn_down.bias", wt["b_down"][l], "F32")
    else:
        llama_keys(w, arch, cfg, 1e-6 if arch == "qwen2" else 1e-5, 1e6 if arch == "qwen2" else None)
        if arch == "llama":
            add_tokenizer(w, "llama", toks, scores, types)
        else:
            add_tokenizer(w, "gpt2", toks, types=types, merges=merges, pre="qwen2", bos=None, eos=end, add_bos=False)
        llama_tensors(w, cfg, wt, tname, kept)
    w.write(out)


# ---------------------------------------------------------------------------
# reading a GGUF back and its forward pass


def read_gguf(path):
    """The metadata (key -> value, "types": tensor -> type name) and every
    tensor dequantized to float64 in its row-major shape, from gguf_writer's
    reading of the file."""
    g = gw.read_back(path)

    def plain(v):
        return [plain(x) for x in v[1]] if isinstance(v, tuple) else v

    kv = {key: plain(v) for key, _, v in g["kv"]}
    data, b = g["layout"][2], g["bytes"]
    tensors, types = {}, {}
    for (name, t, off, size), ne in zip(g["tensors"], g["shapes"]):
        tname = [k for k, v in gw.TYPES.items() if v[0] == t][0]
        count = int(np.prod(ne, dtype=np.int64))
        vals = gw.dequantize(b[data + off:data + off + size], tname, count).astype(np.float64)
        tensors[name] = vals.reshape(list(reversed(ne)))
        types[name] = tname
    kv["types"] = types
    return kv, tensors


def norm(x, w, b, eps, layer):
    if layer:
        mu = x.mean(axis=-1, keepdims=True)
        var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
        return (x - mu) / np.sqrt(var + eps) * w + b
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * w


def rope(x, heads, hs, theta, halves):
    n = x.shape[0]
    freq = theta ** (-np.arange(0, hs, 2) / hs)
    ang = np.arange(n)[:, None] * freq[None, :]
    c, s = np.cos(ang)[:, None, :], np.sin(ang)[:, None, :]
    if halves:
        x = x.reshape(n, heads, 2, hs // 2)
        a, b = x[:, :, 0], x[:, :, 1]
        return np.concatenate([a * c - b * s, b * c + a * s], axis=-1).reshape(n, heads * hs)
    x = x.reshape(n, heads, hs // 2, 2)
    a, b = x[..., 0], x[..., 1]
    return np.stack([a * c - b * s, a * s + b * c], axis=-1).reshape(n, heads * hs)


def gelu(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def llama_cpp_rounding(x, wtype):
    """x as llama.cpp's CPU backend hands it to a product with a weight of
    wtype: converted to the weight's vec_dot_type (ggml-cpu's type traits):
    F16 and BF16 rounded to those, Q8_0 (blocks of 32, d = amax/127 as a
    half) for Q4_0, Q5_0, Q8_0, Q8_1 (the same values) for Q4_1 and Q5_1,
    Q8_K (blocks of 256, d = max/-127 as a float) for the K-quants."""
    xf = x.astype(F)
    if wtype == "F32":
        return x
    if wtype == "F16":
        return xf.astype(np.float16).astype(np.float64)
    if wtype == "BF16":
        u = xf.view(np.uint32).astype(np.uint64)
        return (((u + 0x7FFF + ((u >> 16) & 1)) >> 16 << 16).astype(np.uint32)).view(F).astype(np.float64)
    if wtype in ("Q8_0", "Q4_0", "Q5_0", "Q4_1", "Q5_1"):
        b = xf.reshape(-1, 32)
        d = (np.abs(b).max(axis=1) / F(127)).astype(F)
        inv = np.where(d > 0, F(1) / np.where(d > 0, d, F(1)), F(0)).astype(F)
        q = np.round((b * inv[:, None]).astype(F))
        return (q * d.astype(np.float16).astype(np.float64)[:, None]).reshape(x.shape)
    b = xf.reshape(-1, 256)
    big = b[np.arange(b.shape[0]), np.abs(b).argmax(axis=1)]
    iscale = np.where(big != 0, F(-127) / np.where(big != 0, big, F(1)), F(0)).astype(F)
    q = np.minimum(np.round((b * iscale[:, None]).astype(F)), 127)
    d = np.where(iscale != 0, F(1) / np.where(iscale != 0, iscale, F(1)), F(0)).astype(F)
    return (q * d.astype(np.float64)[:, None]).reshape(x.shape)


def forward(kv, t, ids, like_llama_cpp=False):
    types = kv["types"]

    def mm(x, name):
        w = t[name]
        if like_llama_cpp:
            x = llama_cpp_rounding(x, types[name])
        return x @ w.T

    arch = kv["general.architecture"]
    dim, L = kv[arch + ".embedding_length"], kv[arch + ".block_count"]
    heads = kv[arch + ".attention.head_count"]
    kvh = kv.get(arch + ".attention.head_count_kv", heads)
    hs = dim // heads
    layer = arch == "gpt2"
    # the decimal the file's float32 stands for (1e-05), as attnviz reads it
    eps = float(str(np.float32(kv[arch + (".attention.layer_norm_epsilon" if layer else ".attention.layer_norm_rms_epsilon")])))
    theta = float(kv.get(arch + ".rope.freq_base", 10000.0))
    n = len(ids)
    x = t["token_embd.weight"][ids]
    if layer:
        x = x + t["position_embd.weight"][:n]
    causal = np.tril(np.ones((n, n), dtype=bool))
    ks, vs = [], []
    g = lambda name, l: t.get("blk.%d.%s" % (l, name))  # noqa: E731
    for l in range(L):
        xb = norm(x, g("attn_norm.weight", l), g("attn_norm.bias", l), eps, layer)
        if g("attn_qkv.weight", l) is not None:
            qkv = mm(xb, "blk.%d.attn_qkv.weight" % l)
            if g("attn_qkv.bias", l) is not None:
                qkv = qkv + g("attn_qkv.bias", l)
            q, k, v = qkv[:, :heads * hs], qkv[:, heads * hs:(heads + kvh) * hs], qkv[:, (heads + kvh) * hs:]
        else:
            q, k, v = (mm(xb, "blk.%d.attn_%s.weight" % (l, c)) for c in "qkv")
            if g("attn_q.bias", l) is not None:
                q, k, v = q + g("attn_q.bias", l), k + g("attn_k.bias", l), v + g("attn_v.bias", l)
        if not layer:
            q = rope(q, heads, hs, theta, arch != "llama")
            k = rope(k, kvh, hs, theta, arch != "llama")
        ks.append(k)
        vs.append(v)
        out = np.empty((n, heads * hs))
        for h in range(heads):
            gi = h // (heads // kvh)
            s = q[:, h * hs:(h + 1) * hs] @ k[:, gi * hs:(gi + 1) * hs].T / np.sqrt(hs)
            s = np.where(causal, s, -np.inf)
            a = np.exp(s - s.max(axis=1, keepdims=True))
            a /= a.sum(axis=1, keepdims=True)
            out[:, h * hs:(h + 1) * hs] = a @ v[:, gi * hs:(gi + 1) * hs]
        o = mm(out, "blk.%d.attn_output.weight" % l)
        if g("attn_output.bias", l) is not None:
            o = o + g("attn_output.bias", l)
        x = x + o
        xb = norm(x, g("ffn_norm.weight", l), g("ffn_norm.bias", l), eps, layer)
        if layer:
            hb = gelu(mm(xb, "blk.%d.ffn_up.weight" % l) + g("ffn_up.bias", l))
            x = x + mm(hb, "blk.%d.ffn_down.weight" % l) + g("ffn_down.bias", l)
        else:
            h1, h3 = mm(xb, "blk.%d.ffn_gate.weight" % l), mm(xb, "blk.%d.ffn_up.weight" % l)
            x = x + mm(h1 / (1 + np.exp(-h1)) * h3, "blk.%d.ffn_down.weight" % l)
    xf = norm(x, t["output_norm.weight"], t.get("output_norm.bias"), eps, layer)
    return mm(xf, "output.weight" if "output.weight" in t else "token_embd.weight"), ks, vs


def top_probs(path, ids, like_llama_cpp):
    """The ten most likely next tokens after ids: [[id, p], ...] as JSON."""
    kv, t = read_gguf(path)
    logits = forward(kv, t, ids, like_llama_cpp)[0][-1]
    p = np.exp(logits - logits.max())
    p /= p.sum()
    top = np.argsort(-p, kind="stable")[:10]
    print(json.dumps([[int(i), float(p[i])] for i in top]))


def check_forward(path, dump, ids):
    kv, t = read_gguf(path)
    logits, ks, vs = forward(kv, t, ids)
    got = np.fromfile(dump, dtype="<f4").astype(np.float64)
    want = [("logits", logits)] + [(nm % l, a) for l in range(len(ks)) for nm, a in (("k%d", ks[l]), ("v%d", vs[l]))]
    total = sum(a.size for _, a in want)
    if got.size != total:
        print("%s: %d floats, expected %d" % (dump, got.size, total), file=sys.stderr)
        return 1
    at, worst = 0, {}
    for name, ref in want:
        part = got[at:at + ref.size].reshape(ref.shape)
        at += ref.size
        worst[name] = np.abs(part - ref).max() / max(1.0, np.abs(ref).max())
    top = max(worst, key=worst.get)
    print("numpy: %s, %d tokens: max relative |diff| %.3g (%s)" % (os.path.basename(path), len(ids), worst[top], top))
    bad = {k: d for k, d in worst.items() if not d <= 1e-4}
    for k, d in bad.items():
        print("numpy: %s differs by %.6g" % (k, d), file=sys.stderr)
    return 1 if bad else 0


# ---------------------------------------------------------------------------
# refused files


def bad_files(d):
    cfg = dict(SYNTH["llama"], layers=1, name="bad")
    wt = synth_weights("llama", cfg)
    toks, scores, types = spm_vocab(cfg["vocab"])
    cases = []

    def make(name, expect, keys=None, drop_keys=(), skip=(), extra=None, tname="Q8_0", arch="llama"):
        w = gw.GGUFWriter()
        llama_keys(w, arch, cfg, 1e-5)
        add_tokenizer(w, "llama", toks, scores, types)
        w.kvs = [kv for kv in w.kvs if kv[0] not in drop_keys]
        for k, vt, v in keys or []:
            w.kvs = [kv for kv in w.kvs if kv[0] != k]
            w.kv(k, vt, v)
        llama_tensors(w, cfg, wt, tname, [], skip)
        if extra:
            extra(w)
        w.write(os.path.join(d, "bad-%s.gguf" % name))
        cases.append((name, expect))

    make("arch", 'architecture "mamba"', keys=[("general.architecture", STR, "mamba")])
    make("qwen3", 'architecture "qwen3"', keys=[("general.architecture", STR, "qwen3")])
    make("no-arch", "no key general.architecture", drop_keys=("general.architecture",))
    make("no-heads", "no key llama.attention.head_count", drop_keys=("llama.attention.head_count",))
    make("no-eps", "no key llama.attention.layer_norm_rms_epsilon",
         drop_keys=("llama.attention.layer_norm_rms_epsilon",))
    make("eps-type", "key llama.attention.layer_norm_rms_epsilon",
         keys=[("llama.attention.layer_norm_rms_epsilon", STR, "1e-5")])
    make("heads", "not a multiple of 3 key/value heads", keys=[("llama.attention.head_count_kv", U32, 3)])
    make("rope-dims", "RoPE on 32 of a head's 64 elements", keys=[("llama.rope.dimension_count", U32, 32)])
    make("rope-scaling", "RoPE scaling is not supported", keys=[("llama.rope.scaling.type", STR, "linear")])
    make("ffn-shape", "tensor blk.0.ffn_down.weight: shape [512, 256], expected [640, 256]",
         keys=[("llama.feed_forward_length", U32, 640)])
    make("missing", "tensor blk.0.attn_k.weight is missing", skip=("blk.0.attn_k.weight",))
    make("no-embd", "tensor token_embd.weight is missing", skip=("token_embd.weight",))
    make("iq2", "tensor blk.0.attn_k.weight: type IQ2_XXS is not one attnviz reads",
         skip=("blk.0.attn_k.weight",),
         extra=lambda w: w.raw_tensor("blk.0.attn_k.weight", [256, 128], gw.TYPES["IQ2_XXS"][0], bytes(128 * 66)))
    make("extra", "tensor blk.0.attn_q_norm.weight is not one the llama architecture uses",
         extra=lambda w: w.tensor("blk.0.attn_q_norm.weight", np.ones(64, dtype=F), "F32"))
    make("rope-freqs", "RoPE frequency factors",
         extra=lambda w: w.tensor("rope_freqs.weight", np.ones(32, dtype=F), "F32"))

    def nan_scale(w):  # attn_v's second block: its scale a half NaN
        name, ne, t, raw, off = [x for x in w.tensors if x[0] == "blk.0.attn_v.weight"][0]
        raw = bytearray(raw)
        raw[34:36] = b"\x00\x7e"
        w.tensors = [x if x[0] != name else (name, ne, t, bytes(raw), off) for x in w.tensors]
    make("nan-scale", "tensor blk.0.attn_v.weight: block 1 (row 0) has a scale that is not finite", extra=nan_scale)

    def nan_f32(w):
        name, ne, t, raw, off = [x for x in w.tensors if x[0] == "blk.0.attn_v.weight"][0]
        raw = bytearray(raw)
        raw[4 * 300:4 * 301] = struct.pack("<f", float("inf"))
        w.tensors = [x if x[0] != name else (name, ne, t, bytes(raw), off) for x in w.tensors]
    make("inf", "tensor blk.0.attn_v.weight: element 300 (row 1, column 44) is infinite", extra=nan_f32, tname="F32")
    make("vocab", "key llama.vocab_size is 500", keys=[("llama.vocab_size", U32, 500)])
    make("tokens", "key tokenizer.ggml.tokens: 511 tokens",
         extra=lambda w: w.kvs.__setitem__(
             [i for i, kv in enumerate(w.kvs) if kv[0] == "tokenizer.ggml.tokens"][0],
             ("tokenizer.ggml.tokens", ARR, (STR, toks[:511]))))
    make("tokenizer", 'tokenizer "bert" is not supported',
         keys=[("tokenizer.ggml.model", STR, "bert")])
    make("pre", 'pre-tokenizer "klingon" is not supported',
         keys=[("tokenizer.ggml.model", STR, "gpt2"), ("tokenizer.ggml.pre", STR, "klingon")])
    make("bos", "key tokenizer.ggml.bos_token_id: id 9999", keys=[("tokenizer.ggml.bos_token_id", U32, 9999)])
    for name, expect in cases:
        print("%s\t%s" % (name, expect))


# ---------------------------------------------------------------------------
# real tokenizers as metadata


def tokenizer_gguf(src, out, pre):
    if src.endswith("tokenizer.json"):
        j = json.load(open(src, encoding="utf-8"))
        vocab, merges = j["model"]["vocab"], j["model"]["merges"]
        added = {a["id"]: a for a in j.get("added_tokens", [])}
    else:
        vocab = json.load(open(src, encoding="utf-8"))
        side = os.path.join(os.path.dirname(src), "vocab.bpe" if src.endswith("encoder.json") else "merges.txt")
        merges = [m for m in open(side, encoding="utf-8").read().split("\n")[1:] if m]
        added = {}
    n = max(list(vocab.values()) + list(added)) + 1
    toks, types = ["[PAD%d]" % i for i in range(n)], [5] * n
    for t, i in vocab.items():
        toks[i], types[i] = t, 1
    for i, a in added.items():
        toks[i], types[i] = a["content"], 3 if a.get("special") else 4
    for i in range(n):
        if toks[i] == "<|endoftext|>":
            types[i] = 3
    merges = [m if isinstance(m, str) else " ".join(m) for m in merges]
    w = gw.GGUFWriter()
    # the keys llama.cpp reads before the vocabulary (a model of no tensors)
    llama_keys(w, "llama", dict(ctx=64, dim=64, layers=1, hidden=64, heads=1, kv_heads=1, hs=64), 1e-5)
    bos = next((i for i in range(n) if toks[i] in ("<|begin_of_text|>", "<|endoftext|>")), None)
    add_tokenizer(w, "gpt2", toks, types=types, merges=merges, pre=pre, bos=bos, eos=bos, add_bos=None)
    w.write(out)


def dequant(src, out):
    kv, t = read_gguf(src)
    b = open(src, "rb").read()
    nkv = struct.unpack_from("<Q", b, 16)[0]
    raw_kvs = b[24:skip_kvs(b, 24, nkv)]  # the metadata byte for byte
    w = gw.GGUFWriter(alignment=kv.get("general.alignment", 32))
    for name, vals in t.items():
        w.tensor(name, vals.astype(F), "F32")
    head = b"GGUF" + struct.pack("<IQQ", 3, len(w.tensors), nkv) + raw_kvs
    open(out, "wb").write(rebuild(head, w))


def skip_kvs(b, pos, n):
    def skip_value(t, pos):
        if t == STR:
            return pos + 8 + struct.unpack_from("<Q", b, pos)[0]
        if t == ARR:
            et, cnt = struct.unpack_from("<IQ", b, pos)
            pos += 12
            for _ in range(cnt):
                pos = skip_value(et, pos)
            return pos
        return pos + struct.calcsize(gw.SCALAR_FMT[t])
    for _ in range(n):
        pos += 8 + struct.unpack_from("<Q", b, pos)[0]
        t = struct.unpack_from("<I", b, pos)[0]
        pos = skip_value(t, pos + 4)
    return pos


def rebuild(head, w):
    body, infos = b"", b""
    for name, ne, type_id, raw, offset in w.tensors:
        body += b"\0" * (-len(body) % w.alignment)
        infos += gw.gguf_string(name) + struct.pack("<I", len(ne)) + b"".join(struct.pack("<Q", n) for n in ne)
        infos += struct.pack("<IQ", type_id, len(body))
        body += raw
    head += infos
    head += b"\0" * (-len(head) % w.alignment)
    return head + body


TINY = dict(dim=32, hidden=64, layers=1, heads=2, kv_heads=1, hs=16, vocab=300, ctx=8)


def seeds(d):
    synth("llama", "Q8_0", os.path.join(d, "llama-q8_0"), TINY)
    small = dict(TINY, dim=16, hidden=32, hs=8)
    synth("llama", "F16", os.path.join(d, "llama-f16"), dict(small, vocab=262))
    synth("qwen2", "Q4_0", os.path.join(d, "qwen2-q4_0"), dict(TINY, vocab=270))
    synth("gpt2", "F32", os.path.join(d, "gpt2-f32"), dict(small, vocab=270, kv_heads=2))


def main(argv):
    if len(argv) == 6 and argv[1] == "bin2gguf":
        bin2gguf(argv[2], argv[3], argv[4], argv[5])
        return 0
    if len(argv) == 5 and argv[1] == "synth" and argv[2] in SYNTH:
        synth(argv[2], argv[3], argv[4])
        return 0
    if len(argv) >= 5 and argv[1] == "forward":
        return check_forward(argv[2], argv[3], [int(a) for a in argv[4:]])
    if len(argv) >= 5 and argv[1] == "top" and argv[3] in ("exact", "llama.cpp"):
        top_probs(argv[2], [int(a) for a in argv[4:]], argv[3] == "llama.cpp")
        return 0
    if len(argv) == 4 and argv[1] == "dequant":
        dequant(argv[2], argv[3])
        return 0
    if len(argv) == 3 and argv[1] == "bad":
        os.makedirs(argv[2], exist_ok=True)
        bad_files(argv[2])
        return 0
    if len(argv) == 3 and argv[1] == "seeds":
        os.makedirs(argv[2], exist_ok=True)
        seeds(argv[2])
        return 0
    if len(argv) == 5 and argv[1] == "tokenizer":
        tokenizer_gguf(argv[2], argv[3], argv[4])
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
