#!/usr/bin/env python3
"""Hugging Face checkpoint folders for the end-to-end tests of --model DIR,
and the independent check of attnviz's --dump=json of them.

  hf_fixture.py write DIR KIND [GPT2_VOCAB_DIR]
      KIND gpt2: a 2-layer GPT-2 (dim 32, 4 heads, F32) with a byte-level BPE
                 tokenizer.json trained here (256 bytes, 43 merges,
                 <|endoftext|>: 300 tokens);
           llama: a 2-layer Llama (dim 32, 4 heads, 2 kv heads, BF16, q/k/v
                 biases, untied lm_head) with a SentencePiece-style
                 tokenizer.json (<unk> <s> </s>, 256 byte-fallback pieces,
                 "▁" metaspace, merges trained here; <s> first);
           qwen3: a 2-layer Qwen3 (dim 48, 4 heads of 32 on 2 kv heads:
                 heads x head_dim 128 is not dim; q_norm and k_norm, BF16,
                 tied), the llama kind's tokenizer;
           llama3: a 2-layer Llama (dim 32, 2 heads of 16, 1 kv head, F32)
                 with Llama 3's rope_scaling (factor 8, original context 64:
                 of its 8 frequencies 1 kept, 2 smoothed, 5 divided), the
                 llama kind's tokenizer;
           gpt2small: GPT-2 small's shape of attention, 12 layers of 12
                 heads (dim 48, heads of 4), the gpt2 kind's tokenizer;
           gpt2vocab: a 2-layer GPT-2 (dim 16) on the real GPT-2 vocabulary
                 (GPT2_VOCAB_DIR's encoder.json and vocab.bpe, from
                 tests/fetch_gpt2_vocab.sh, copied as vocab.json and
                 merges.txt), 50257 tokens.
  hf_fixture.py poison DIR KIND DTYPE TENSOR INDEX VALUE
      the folder of KIND (gpt2 or llama) in DTYPE (F32, F16, BF16), with
      element INDEX (flat, row-major) of TENSOR set to VALUE (nan, inf,
      -inf, or a number).
  hf_fixture.py many DIR N
      the gpt2 folder with N more one-element F32 tensors in its header (a
      header of a million tensors takes attnviz seconds to open).
  hf_fixture.py check DIR DUMP.json
      recomputes every layer's q, k, v, scores, weights and outputs of every
      head, and the ten likeliest next tokens after the last row, from the
      folder's files with verify_hf.py's NumPy forward (float64), honouring
      the dump's mask (causal or none) and scaling; exit 0 when all agree
      within 1e-4 of each tensor's largest |value| (at least 1), else 1.

Seeded: the same files every run. No torch, no transformers.
"""
import json
import os
import shutil
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from verify_hf import (dims, gelu_new, layernorm, llama_qk, read_dir, rmsnorm,  # noqa: E402
                       tensor_shapes, write_safetensors)

TOL = 1e-4
CORPUS = ("When Mary and John went to the store, John gave a drink to Mary. "
          "I saw a movie yesterday and the movie was fun. Lily saw a cat. Lily saw a dog. "
          "The cat sat on the mat. Attention is all you need.")


def bytes_to_unicode():
    """GPT-2's table: printable bytes as themselves, the rest from U+0100 on."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}


def train_bpe(words, n_merges):
    """Merges by the most frequent pair (ties: the smallest pair), deterministic."""
    seqs = {tuple(w): c for w, c in words.items()}
    merges = []
    while len(merges) < n_merges:
        pairs = {}
        for s, c in seqs.items():
            for a, b in zip(s, s[1:]):
                pairs[(a, b)] = pairs.get((a, b), 0) + c
        if not pairs:
            break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best)
        new = {}
        for s, c in seqs.items():
            out, i = [], 0
            while i < len(s):
                if i + 1 < len(s) and (s[i], s[i + 1]) == best:
                    out.append(s[i] + s[i + 1])
                    i += 2
                else:
                    out.append(s[i])
                    i += 1
            new[tuple(out)] = new.get(tuple(out), 0) + c
        seqs = new
    return merges


def gpt2_tokenizer():
    table = bytes_to_unicode()
    words = {}
    for i, w in enumerate(CORPUS.split(" ")):  # GPT-2's pieces: a space starts a word
        piece = ("" if i == 0 else " ") + w
        key = "".join(table[b] for b in piece.encode())
        words[key] = words.get(key, 0) + 1
    vocab = {table[b]: i for i, b in enumerate(sorted(table))}
    merges = train_bpe({tuple(k): c for k, c in words.items()}, 43)
    for a, b in merges:
        vocab[a + b] = len(vocab)
    assert len(vocab) == 299, len(vocab)
    vocab["<|endoftext|>"] = 299
    pattern = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"
    return {
        "version": "1.0",
        "added_tokens": [{"id": 299, "content": "<|endoftext|>", "special": True}],
        "normalizer": None,
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}]},
        "post_processor": None,
        "model": {"type": "BPE", "vocab": vocab, "merges": ["%s %s" % m for m in merges]},
    }, 300


def llama_tokenizer():
    words = {}
    for w in CORPUS.split(" "):
        key = "▁" + w
        words[key] = words.get(key, 0) + 1
    chars = sorted({ch for w in words for ch in w})
    vocab = {"<unk>": 0, "<s>": 1, "</s>": 2}
    for b in range(256):
        vocab["<0x%02X>" % b] = 3 + b
    for ch in chars:
        vocab[ch] = len(vocab)
    merges = train_bpe({tuple(k): c for k, c in words.items()}, 320 - len(vocab))
    for a, b in merges:
        vocab[a + b] = len(vocab)
    return {
        "version": "1.0",
        "added_tokens": [{"id": i, "content": t, "special": True} for i, t in enumerate(["<unk>", "<s>", "</s>"])],
        "normalizer": {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"},
                                                           {"type": "Replace", "pattern": {"String": " "},
                                                            "content": "▁"}]},
        "pre_tokenizer": None,
        "post_processor": {"type": "TemplateProcessing",
                           "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                                      {"Sequence": {"id": "A", "type_id": 0}}], "pair": [],
                           "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}}},
        "model": {"type": "BPE", "unk_token": "<unk>", "fuse_unk": True, "byte_fallback": True,
                  "vocab": vocab, "merges": ["%s %s" % m for m in merges]},
    }, len(vocab)


def weights(c, seed, prefix=""):
    rng = np.random.default_rng(seed)
    out = {}
    for name, shape in tensor_shapes(c, prefix).items():
        if name.endswith("norm.weight") or ("ln_" in name and name.endswith(".weight")):
            a = 1.0 + 0.1 * rng.standard_normal(shape)
        elif name.endswith(".bias"):
            a = 0.1 * rng.standard_normal(shape)
        else:
            a = rng.standard_normal(shape) / np.sqrt(shape[-1] if len(shape) == 2 else 1) * 1.5
        out[name] = a.astype(np.float32)
    return out


def write(d, kind, vocab_dir=None, hostile=None, dtype_as=None, poison=None):
    """hostile (gpt2 only): the bytes of a token 300 that greedy decoding always
    picks; dtype_as: the tensors' type instead of the kind's; poison: (tensor,
    flat index, value) set after the weights are drawn."""
    os.makedirs(d, exist_ok=True)
    if kind == "gpt2":
        tok, vocab = gpt2_tokenizer()
        if hostile is not None:
            table = bytes_to_unicode()
            tok["model"]["vocab"]["".join(table[b] for b in hostile)] = vocab
            vocab += 1
        cfg = {"model_type": "gpt2", "n_embd": 32, "n_layer": 2, "n_head": 4, "vocab_size": vocab,
               "n_positions": 128, "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new"}
        dtype = "F32"
    elif kind == "gpt2small":
        tok, vocab = gpt2_tokenizer()
        cfg = {"model_type": "gpt2", "n_embd": 48, "n_layer": 12, "n_head": 12, "vocab_size": vocab,
               "n_positions": 128, "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new"}
        dtype = "F32"
    elif kind == "llama":
        tok, vocab = llama_tokenizer()
        cfg = {"model_type": "llama", "hidden_size": 32, "intermediate_size": 48, "num_hidden_layers": 2,
               "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": vocab,
               "max_position_embeddings": 128, "rms_norm_eps": 1e-5, "rope_theta": 10000.0,
               "tie_word_embeddings": False, "attention_bias": True, "hidden_act": "silu"}
        dtype = "BF16"
    elif kind == "qwen3":
        tok, vocab = llama_tokenizer()
        cfg = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 48,
               "intermediate_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
               "head_dim": 32, "vocab_size": vocab, "max_position_embeddings": 128, "rms_norm_eps": 1e-6,
               "rope_theta": 1000000.0, "rope_scaling": None, "tie_word_embeddings": True,
               "attention_bias": False, "use_sliding_window": False, "hidden_act": "silu"}
        dtype = "BF16"
    elif kind == "llama3":
        tok, vocab = llama_tokenizer()
        cfg = {"model_type": "llama", "hidden_size": 32, "intermediate_size": 48, "num_hidden_layers": 2,
               "num_attention_heads": 2, "num_key_value_heads": 1, "vocab_size": vocab,
               "max_position_embeddings": 256, "rms_norm_eps": 1e-5, "rope_theta": 10000.0,
               "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                                "high_freq_factor": 4.0, "original_max_position_embeddings": 64},
               "tie_word_embeddings": False, "hidden_act": "silu"}
        dtype = "F32"
    elif kind == "gpt2vocab":
        tok = None
        for src, dst in (("encoder.json", "vocab.json"), ("vocab.bpe", "merges.txt")):
            shutil.copyfile(os.path.join(vocab_dir, src), os.path.join(d, dst))
        cfg = {"model_type": "gpt2", "n_embd": 16, "n_layer": 2, "n_head": 2, "vocab_size": 50257,
               "n_positions": 64, "layer_norm_epsilon": 1e-5}
        dtype = "F32"
    else:
        raise SystemExit("unknown kind " + kind)
    if tok is not None:
        with open(os.path.join(d, "tokenizer.json"), "w", encoding="utf-8") as f:
            json.dump(tok, f, ensure_ascii=False)
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    c = dims(cfg)
    w = weights(c, sum(map(ord, kind)))
    if hostile is not None:
        w["ln_f.weight"][:] = 0  # the final norm gives ones whatever the input...
        w["ln_f.bias"][:] = 1
        w["wte.weight"][vocab - 1] = 2.0  # ...and ones . wte[v] is largest for the hostile token
    if poison is not None:
        name, at, value = poison
        w[name].reshape(-1)[at] = value
    write_safetensors(os.path.join(d, "model.safetensors"), w, dtype_as or dtype)


def write_many(d, n):
    write(d, "gpt2")
    path = os.path.join(d, "model.safetensors")
    raw = open(path, "rb").read()
    hlen = struct.unpack_from("<Q", raw)[0]
    header = json.loads(raw[8:8 + hlen])
    data = raw[8 + hlen:]
    at = len(data)
    parts = [json.dumps(header)[:-1]]
    parts.append("".join(', "extra.%d": {"dtype": "F32", "shape": [1], "data_offsets": [%d, %d]}'
                         % (i, at + 4 * i, at + 4 * i + 4) for i in range(n)))
    h = ("".join(parts) + "}").encode()
    h += b" " * ((-len(h)) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + data + bytes(4 * n))


# ----------------------------------------------------------------------------
# the check of a dump

def forward(c, w, ids, causal, scale):
    """verify_hf.forward with the dump's mask and scaling: every head's tensors, the last row's probabilities."""
    n, hs, H, G = len(ids), c["hs"], c["heads"], c["kv_heads"]
    allowed = np.tril(np.ones((n, n), dtype=bool)) if causal else np.ones((n, n), dtype=bool)
    gpt2 = c["arch"] == "gpt2"
    p = "transformer." if "transformer.wte.weight" in w else ""

    def attention(q, k, v):
        out, heads = np.empty((n, H * hs)), []
        for h in range(H):
            g = h // (H // G)
            qh, kh, vh = q[:, h * hs:(h + 1) * hs], k[:, g * hs:(g + 1) * hs], v[:, g * hs:(g + 1) * hs]
            s = qh @ kh.T
            sc = s / np.sqrt(hs) if scale else s
            ms = np.where(allowed, sc, -np.inf)
            a = np.exp(ms - ms.max(axis=1, keepdims=True))
            a /= a.sum(axis=1, keepdims=True)
            o = a @ vh
            out[:, h * hs:(h + 1) * hs] = o
            heads.append({"q": qh, "k": kh, "v": vh, "scores": s, "scaled": sc, "weights": a, "output": o,
                          "row_sums": a.sum(axis=1)})
        return out, heads

    layers = []
    if gpt2:
        g = lambda name: w[p + name]
        x = g("wte.weight")[ids] + g("wpe.weight")[:n]
        d = c["dim"]
        for l in range(c["layers"]):
            h = "h.%d." % l
            xb = layernorm(x, g(h + "ln_1.weight"), g(h + "ln_1.bias"), c["eps"])
            qkv = xb @ g(h + "attn.c_attn.weight") + g(h + "attn.c_attn.bias")
            att, heads = attention(qkv[:, :d], qkv[:, d:2 * d], qkv[:, 2 * d:])
            layers.append(heads)
            x = x + att @ g(h + "attn.c_proj.weight") + g(h + "attn.c_proj.bias")
            xb = layernorm(x, g(h + "ln_2.weight"), g(h + "ln_2.bias"), c["eps"])
            x = x + gelu_new(xb @ g(h + "mlp.c_fc.weight") + g(h + "mlp.c_fc.bias")) @ g(h + "mlp.c_proj.weight") \
                + g(h + "mlp.c_proj.bias")
        logits = layernorm(x, g("ln_f.weight"), g("ln_f.bias"), c["eps"]) @ g("wte.weight").T
    else:
        x = w["model.embed_tokens.weight"][ids]
        for l in range(c["layers"]):
            h = "model.layers.%d." % l
            lin = lambda name, inp: inp @ w[h + name + ".weight"].T + w.get(h + name + ".bias", 0.0)
            xb = rmsnorm(x, w[h + "input_layernorm.weight"], c["eps"])
            q, k = llama_qk(c, w, h, lin, xb)
            att, heads = attention(q, k, lin("self_attn.v_proj", xb))
            layers.append(heads)
            x = x + lin("self_attn.o_proj", att)
            xb = rmsnorm(x, w[h + "post_attention_layernorm.weight"], c["eps"])
            gate, up = lin("mlp.gate_proj", xb), lin("mlp.up_proj", xb)
            x = x + lin("mlp.down_proj", gate / (1.0 + np.exp(-gate)) * up)
        cls = w["model.embed_tokens.weight"] if c["tied"] else w["lm_head.weight"]
        logits = rmsnorm(x, w["model.norm.weight"], c["eps"]) @ cls.T
    z = logits[-1] - logits[-1].max()
    probs = np.exp(z) / np.exp(z).sum()
    return layers, probs


def as_array(v):
    return np.array([[np.nan if e is None else e for e in row] for row in v], dtype=np.float64) \
        if v and isinstance(v[0], list) else np.array([np.nan if e is None else e for e in v], dtype=np.float64)


def check(d, dump_path):
    c = dims(json.load(open(os.path.join(d, "config.json"))))
    w = read_dir(d)
    dump = json.load(open(dump_path))
    cfg = dump["config"]
    ids = dump["ids"]
    causal, scale = cfg["mask"] == "causal", bool(cfg["scale"])
    layers, probs = forward(c, w, ids, causal, scale)
    worst, bad = 0.0, 0
    if len(dump["layers"]) != c["layers"]:
        print("%d layers in the dump, %d in the model" % (len(dump["layers"]), c["layers"]))
        return 1
    for l, L in enumerate(dump["layers"]):
        for h, hd in enumerate(L["heads"]):
            ref = layers[l][h]
            for key in ("q", "k", "v", "scores", "scaled", "weights", "output", "row_sums"):
                if key not in hd:
                    continue
                got, want = as_array(hd[key]), ref[key]
                if got.shape != want.shape:
                    print("layer %d head %d %s: shape %s, expected %s" % (l + 1, h + 1, key, got.shape, want.shape))
                    bad += 1
                    continue
                scale_ = max(1.0, np.nanmax(np.abs(want)))
                diff = np.nanmax(np.abs(got - want)) / scale_
                worst = max(worst, diff)
                if not diff <= TOL:
                    bad += 1
                    print("layer %d head %d %s: differs by %.3g (of %.3g)" % (l + 1, h + 1, key, diff, scale_))
    for t in dump.get("next_tokens", []):
        diff = abs(t["prob"] - probs[t["id"]])
        worst = max(worst, diff)
        if not diff <= TOL:
            bad += 1
            print("next token %d: probability %.6g, reference %.6g" % (t["id"], t["prob"], probs[t["id"]]))
    top = list(np.argsort(-probs, kind="stable")[:len(dump.get("next_tokens", []))])
    got_top = [t["id"] for t in dump.get("next_tokens", [])]
    if got_top and got_top != [int(i) for i in top]:
        # equal probabilities may order either way; the set must agree
        if sorted(got_top) != sorted(int(i) for i in top):
            bad += 1
            print("next tokens %s, reference %s" % (got_top, [int(i) for i in top]))
    print("checked %d layers of %d heads, %d tokens: worst %.3g%s" %
          (len(dump["layers"]), c["heads"], len(ids), worst, "" if not bad else ", %d bad" % bad))
    return 1 if bad else 0


def main(argv):
    if len(argv) >= 4 and argv[1] == "write":
        write(argv[2], argv[3], argv[4] if len(argv) > 4 else None)
        return 0
    if len(argv) == 8 and argv[1] == "poison":
        write(argv[2], argv[3], dtype_as=argv[4], poison=(argv[5], int(argv[6]), float(argv[7])))
        return 0
    if len(argv) == 4 and argv[1] == "many":
        write_many(argv[2], int(argv[3]))
        return 0
    if len(argv) == 4 and argv[1] == "check":
        return check(argv[2], argv[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
