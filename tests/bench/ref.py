"""ref.py - the NumPy and PyTorch references of `make bench` (issue 7).

The same full forward attnviz computes, in float32, on the anchor shapes:

    X (n, d_model) -> Q, K, V = X W_Q, X W_K, X W_V   (d_model x d_model each)
    per head h: softmax(Q_h K_h^T / sqrt(d_k) + causal -inf mask) V_h
    concat (n, d_model) -> Y = concat W_O

Run with /usr/bin/python3 (Debian's python3-numpy, python3-torch):

    ref.py info                     the BLAS NumPy uses (and PyTorch's build)
    ref.py numpy [--shapes S] [--check]
    ref.py torch [--shapes S] [--check]
    ref.py llama FILE --impl numpy|torch --ids IDS [--check LOGITS] [--name NAME]
    ref.py hf DIR --impl torch --ids IDS --check LOGITS [--ids ... --check ...]
              [--name NAME] [--threads T] [--budget S] [--keep-bf16]

S is "64,512,8;256,768,12". Thread counts are not set here for NumPy: run.sh
sets OPENBLAS_NUM_THREADS / OMP_NUM_THREADS in the environment of each child
process (the BLAS reads them when it loads); for PyTorch torch.set_num_threads
takes the same count from --threads. Each result is one line:

    ref=numpy n=256 d_model=768 heads=12 threads=1 ms=14.4 reps=21 blas_threads=1 coretype=SkylakeX maxrel=3.1e-07

ms is the median of repeated runs after a warm-up; maxrel (with --check) is
max |Y - Y64| / max |Y64| against the same forward in float64 NumPy.
A benchmark: it never fails on a number.

`llama` (issue 12) is the forward of a llama2.c checkpoint (the legacy
layout of src/formats/llama2.h, read from the file with numpy.memmap) on the int32
token ids of IDS, every row's logits, as src/llama.h computes it: RMSNorm
(eps 1e-5), RoPE on the pairs (2i, 2i+1) of each head, grouped-query causal
attention, SwiGLU, the tied (or separate) classifier; float32, in NumPy or
PyTorch. --check compares its logits with attnviz's (LOGITS: float32,
tokens x vocab, written by bench llama):

    ref=llama impl=torch name=stories15M-shape threads=1 tokens=256 ms=61.2 reps=7 maxabs=2.1e-06 maxrel=1.9e-06

`hf` (issue 14) is the forward of a Hugging Face checkpoint folder
(config.json and model.safetensors, read here by the format's spec: json,
struct and numpy.memmap, BF16 as uint16 shifted into float32) as
transformers computes it, in PyTorch: GPT-2 (LayerNorm, Conv1D (in, out),
tanh GELU, learned positions) or the Llama family (RMSNorm, rotate-half RoPE
with rope_theta, repeat_kv, SwiGLU), causal SDPA, the last row's logits. The
weights are converted to float32 once, before the timing (from_pretrained's
default dtype); --keep-bf16 also times a BF16 folder with its weights kept
in bfloat16 (activations bfloat16, as torch_dtype=torch.bfloat16). Each
--ids (int32, written by bench hf) is timed in turn, within --budget seconds
for all of them, and compared with the --check beside it (float32, the last
row of attnviz's logits):

    ref=hf impl=torch name=gpt2-shape file_dtype=f32 weights=f32 threads=1 tokens=128 ms=146.4 reps=6 maxabs=4.3e-06 maxrel=1.8e-06

NumPy has no `hf` forward (PyTorch is issue 14's anchor): --impl numpy prints
a ref=missing line.
"""

import argparse
import os
import sys
import time

# The teaching sizes (the app's d_model 64 and 4 heads, n <= 64), then the anchors.
SHAPES = [(16, 64, 4), (64, 64, 4), (64, 512, 8), (256, 768, 12), (1024, 768, 12)]


def parse_shapes(s):
    out = []
    for part in s.split(";"):
        part = part.strip()
        if part:
            n, dm, h = (int(v) for v in part.split(","))
            out.append((n, dm, h))
    return out


def inputs(np, n, dm):
    """X from N(0, 1), weights from N(0, 1/d_model) (DESIGN.md section 2), float32."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((n, dm), dtype=np.float32)
    sd = np.float32(1.0 / np.sqrt(dm))
    w = [rng.standard_normal((dm, dm), dtype=np.float32) * sd for _ in range(4)]
    return x, w


def causal_add(np, n, dtype):
    """(n, n): 0 where key j <= query i, -inf above the diagonal."""
    m = np.zeros((n, n), dtype=dtype)
    m[np.triu_indices(n, 1)] = -np.inf
    return m


def forward_numpy(np, x, wq, wk, wv, wo, h, addmask):
    """One head at a time, as people write it (a batched (h, n, n) version
    measured the same or slower with OpenBLAS)."""
    n, dm = x.shape
    dk = dm // h
    scale = x.dtype.type(1.0 / np.sqrt(dk))
    q, k, v = x @ wq, x @ wk, x @ wv  # (n, dm) each; head i is columns i*dk..
    concat = np.empty((n, dm), dtype=x.dtype)
    for i in range(h):
        cols = slice(i * dk, (i + 1) * dk)
        s = q[:, cols] @ k[:, cols].T  # (n, n)
        s *= scale
        s += addmask
        s -= s.max(axis=-1, keepdims=True)
        np.exp(s, out=s)
        s /= s.sum(axis=-1, keepdims=True)
        concat[:, cols] = s @ v[:, cols]  # (n, dk)
    return concat @ wo  # (n, dm)


def reference64(np, x, w, h):
    n = x.shape[0]
    w64 = [a.astype(np.float64) for a in w]
    return forward_numpy(np, x.astype(np.float64), *w64, h, causal_add(np, n, np.float64))


def maxrel(np, y, y64):
    y = np.asarray(y, dtype=np.float64)
    return float(np.max(np.abs(y - y64)) / max(float(np.max(np.abs(y64))), 1e-30))


def time_median(fn, min_reps=5, max_reps=200, target_s=0.3, warmup=2):
    for _ in range(warmup):
        fn()
    t = []
    spent = 0.0
    while len(t) < max_reps:
        t0 = time.perf_counter()
        fn()
        dt = time.perf_counter() - t0
        t.append(dt)
        spent += dt
        if len(t) >= min_reps and spent >= target_s:
            break
    t.sort()
    k = len(t)
    med = t[k // 2] if k % 2 else 0.5 * (t[k // 2 - 1] + t[k // 2])
    return med * 1e3, k


def quote(s):
    return '"' + str(s).replace('"', "'").replace("\n", " ") + '"'


# ----------------------------------------------------------------------------
# which BLAS


def openblas_ctypes():
    """Core name and config of the OpenBLAS already loaded by NumPy, without
    threadpoolctl: the same shared object answers through ctypes."""
    import ctypes

    for name in ("libopenblas.so.0", "libopenblasp.so.0", "libblas.so.3"):
        try:
            lib = ctypes.CDLL(name, mode=os.RTLD_NOLOAD | os.RTLD_GLOBAL)
        except OSError:
            continue
        if not hasattr(lib, "openblas_get_corename"):
            continue
        lib.openblas_get_corename.restype = ctypes.c_char_p
        lib.openblas_get_config.restype = ctypes.c_char_p
        core = lib.openblas_get_corename().decode()
        config = lib.openblas_get_config().decode()
        version = config.split()[1] if config.startswith("OpenBLAS ") else "unknown"
        threads = lib.openblas_get_num_threads() if hasattr(lib, "openblas_get_num_threads") else "unknown"
        return {"internal_api": "openblas", "version": version, "architecture": core,
                "threading_layer": "unknown", "num_threads": threads, "source": "ctypes"}
    return None


def mapped_blas():
    """The BLAS shared object really mapped into this process (after numpy or
    torch is imported), from /proc/self/maps with symbolic links resolved:
    (name, path). Debian's /usr/lib/<triplet>/blas/libblas.so.3 is the
    reference BLAS (netlib), whatever numpy.show_config() says (it lists
    "blas_mkl_info: NOT AVAILABLE", which a search for "mkl" took for MKL)."""
    paths = []
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                parts = line.split(None, 5)
                if len(parts) == 6 and parts[5].strip().startswith("/"):
                    paths.append(os.path.realpath(parts[5].strip()))
    except OSError:
        return ("unknown", "")
    # the BLAS itself first (a LAPACK beside it is in the same folder)
    paths.sort(key=lambda p: not os.path.basename(p).startswith(("libblas", "libopenblas", "libmkl", "libblis",
                                                                   "libcblas")))
    for p in dict.fromkeys(paths):
        base = os.path.basename(p)
        if "openblas" in p:
            return ("openblas", p)
        if base.startswith("libmkl") or "/mkl/" in p:
            return ("mkl", p)
        if "blis" in base:
            return ("blis", p)
        if "atlas" in p:
            return ("atlas", p)
    for p in dict.fromkeys(paths):
        if os.path.basename(p).startswith("libblas.so") or os.path.basename(p).startswith("libcblas.so"):
            return ("reference", p)
    return ("unknown", "")


def blas_info():
    """A dict describing NumPy's BLAS: threadpoolctl when present, else
    OpenBLAS through ctypes, else the library mapped into the process
    (mapped_blas), never a guess from numpy.show_config()'s text."""
    import numpy  # noqa: F401  (loads the BLAS)

    try:
        from threadpoolctl import threadpool_info

        for d in threadpool_info():
            if d.get("user_api") == "blas":
                d = dict(d)
                d["source"] = "threadpoolctl"
                return d
    except ImportError:
        pass
    d = openblas_ctypes()
    if d:
        d["path"] = mapped_blas()[1]
        return d
    name, path = mapped_blas()
    return {"internal_api": name, "version": "unknown", "architecture": "unknown",
            "threading_layer": "unknown", "num_threads": "unknown", "source": "maps", "path": path}


def cmd_info():
    import numpy

    d = blas_info()
    print("ref=info numpy=%s blas=%s version=%s coretype=%s threading=%s num_threads=%s source=%s path=%s" % (
        numpy.__version__, d.get("internal_api", "unknown"), d.get("version") or "unknown",
        d.get("architecture") or "unknown", d.get("threading_layer") or "unknown",
        d.get("num_threads", "unknown"), d.get("source", "unknown"), d.get("path") or mapped_blas()[1] or "none"))


# ----------------------------------------------------------------------------
# the forwards


def cmd_numpy(shapes, check, threads):
    import numpy as np

    d = blas_info()
    for n, dm, h in shapes:
        x, w = inputs(np, n, dm)
        addmask = causal_add(np, n, np.float32)
        ms, reps = time_median(lambda: forward_numpy(np, x, *w, h, addmask))
        line = "ref=numpy n=%d d_model=%d heads=%d threads=%s ms=%.3f reps=%d blas_threads=%s coretype=%s" % (
            n, dm, h, threads, ms, reps, d.get("num_threads", "unknown"), d.get("architecture") or "unknown")
        if check:
            y = forward_numpy(np, x, *w, h, addmask)
            line += " maxrel=%.3g" % maxrel(np, y, reference64(np, x, w, h))
        print(line, flush=True)


def sdpa_function(torch):
    """(name, f(q, k, v) -> causal attention output) for this PyTorch."""
    F = torch.nn.functional
    if hasattr(F, "scaled_dot_product_attention"):  # PyTorch >= 2.0
        return "F.scaled_dot_product_attention", lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True)
    if hasattr(F, "_scaled_dot_product_attention"):  # PyTorch 1.13: the same, private
        return "F._scaled_dot_product_attention", lambda q, k, v: F._scaled_dot_product_attention(
            q, k, v, None, 0.0, False, True)[0]

    def manual(q, k, v):
        n = q.shape[-2]
        s = (q @ k.transpose(-2, -1)) / (q.shape[-1] ** 0.5)
        mask = torch.ones(n, n, dtype=torch.bool).triu(1)
        return torch.softmax(s.masked_fill(mask, float("-inf")), dim=-1) @ v

    return "manual softmax", manual


def cmd_torch(shapes, check, threads):
    import numpy as np
    import torch

    if threads:
        torch.set_num_threads(int(threads))
    name, sdpa = sdpa_function(torch)
    cfg = torch.__config__.show()
    blas = "unknown"
    for tok in cfg.replace(",", " ").split():
        if tok.startswith("BLAS_INFO="):
            blas = tok.split("=", 1)[1]
    mapped, path = mapped_blas()  # the library torch really calls, beside what it was built with
    print("ref=torch_info version=%s sdpa=%s blas_info=%s blas=%s blas_path=%s threads=%d" % (
        torch.__version__, quote(name), blas, mapped, path or "none", torch.get_num_threads()), flush=True)

    def forward(x, wq, wk, wv, wo, h):
        n, dm = x.shape
        dk = dm // h
        q = (x @ wq).view(n, h, dk).transpose(0, 1)  # (h, n, dk)
        k = (x @ wk).view(n, h, dk).transpose(0, 1)
        v = (x @ wv).view(n, h, dk).transpose(0, 1)
        o = sdpa(q, k, v)  # (h, n, dk)
        return o.transpose(0, 1).reshape(n, dm) @ wo

    with torch.no_grad():
        for n, dm, h in shapes:
            x, w = inputs(np, n, dm)
            tx = torch.from_numpy(x)
            tw = [torch.from_numpy(a) for a in w]
            ms, reps = time_median(lambda: forward(tx, *tw, h))
            line = "ref=torch n=%d d_model=%d heads=%d threads=%d ms=%.3f reps=%d" % (
                n, dm, h, torch.get_num_threads(), ms, reps)
            if check:
                y = forward(tx, *tw, h).numpy()
                line += " maxrel=%.3g" % maxrel(np, y, reference64(np, x, w, h))
            print(line, flush=True)


# ----------------------------------------------------------------------------
# llama2.c checkpoints (issue 12)


def llama_read(np, path):
    """(config dict, weights dict) of a legacy llama2.c checkpoint; the
    tensors are copied out of the memmap into memory (their load is not what
    is timed)."""
    hdr = np.fromfile(path, dtype="<i4", count=7)
    dim, hidden, layers, heads, kv_heads, vocab, seq_len = (int(v) for v in hdr)
    shared = vocab > 0
    vocab = abs(vocab)
    hs = dim // heads
    kv = kv_heads * hs
    mm = np.memmap(path, dtype="<f4", mode="r", offset=28)
    at = [0]

    def take(*shape):
        count = int(np.prod(shape))
        a = np.array(mm[at[0]:at[0] + count], dtype=np.float32).reshape(shape)
        at[0] += count
        return a

    w = {}
    w["embed"] = take(vocab, dim)
    w["rms_att"] = take(layers, dim)
    w["wq"] = take(layers, dim, dim)
    w["wk"] = take(layers, kv, dim)
    w["wv"] = take(layers, kv, dim)
    w["wo"] = take(layers, dim, dim)
    w["rms_ffn"] = take(layers, dim)
    w["w1"] = take(layers, hidden, dim)
    w["w2"] = take(layers, dim, hidden)
    w["w3"] = take(layers, hidden, dim)
    w["rms_final"] = take(dim)
    take(seq_len, hs // 2)  # the two RoPE tables: unused (computed)
    take(seq_len, hs // 2)
    w["cls"] = w["embed"] if shared else take(vocab, dim)
    cfg = {"dim": dim, "hidden": hidden, "layers": layers, "heads": heads, "kv_heads": kv_heads,
           "vocab": vocab, "seq_len": seq_len, "hs": hs}
    return cfg, w


def rope_tables(np, n, hs):
    """cos, sin (n, hs / 2) of position p and pair i: angle p * 10000^(-2i/hs)."""
    freq = 10000.0 ** (-(2.0 * np.arange(hs // 2)) / hs)
    ang = np.arange(n)[:, None] * freq[None, :]
    return np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)


def llama_numpy(np, cfg, w, ids, cos, sin, addmask):
    n, dim, hs = len(ids), cfg["dim"], cfg["hs"]
    heads, kvh = cfg["heads"], cfg["kv_heads"]
    group = heads // kvh
    scale = np.float32(1.0 / np.sqrt(hs))

    def rms(x, g):
        return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + np.float32(1e-5)) * g

    def rope(x):  # (n, h, hs): pairs (2i, 2i+1)
        x0, x1 = x[..., 0::2], x[..., 1::2]
        c, s = cos[:, None, :], sin[:, None, :]
        out = np.empty_like(x)
        out[..., 0::2] = x0 * c - x1 * s
        out[..., 1::2] = x0 * s + x1 * c
        return out

    x = w["embed"][ids]  # (n, dim)
    for layer in range(cfg["layers"]):
        xb = rms(x, w["rms_att"][layer])
        q = rope((xb @ w["wq"][layer].T).reshape(n, heads, hs)).transpose(1, 0, 2)  # (h, n, hs)
        k = rope((xb @ w["wk"][layer].T).reshape(n, kvh, hs)).transpose(1, 0, 2)
        v = (xb @ w["wv"][layer].T).reshape(n, kvh, hs).transpose(1, 0, 2)
        if group > 1:
            k, v = np.repeat(k, group, axis=0), np.repeat(v, group, axis=0)
        s = q @ k.transpose(0, 2, 1)  # (h, n, n)
        s *= scale
        s += addmask
        s -= s.max(axis=-1, keepdims=True)
        np.exp(s, out=s)
        s /= s.sum(axis=-1, keepdims=True)
        att = (s @ v).transpose(1, 0, 2).reshape(n, dim)
        x = x + att @ w["wo"][layer].T
        xb2 = rms(x, w["rms_ffn"][layer])
        h1 = xb2 @ w["w1"][layer].T
        h3 = xb2 @ w["w3"][layer].T
        x = x + (h1 / (np.float32(1.0) + np.exp(-h1)) * h3) @ w["w2"][layer].T
    return rms(x, w["rms_final"]) @ w["cls"].T  # (n, vocab)


def llama_torch(torch, sdpa, cfg, w, ids, cos, sin):
    n, dim, hs = len(ids), cfg["dim"], cfg["hs"]
    heads, kvh = cfg["heads"], cfg["kv_heads"]
    group = heads // kvh

    def rms(x, g):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) * g

    def rope(x):  # (n, h, hs)
        x0, x1 = x[..., 0::2], x[..., 1::2]
        c, s = cos[:, None, :], sin[:, None, :]
        return torch.stack((x0 * c - x1 * s, x0 * s + x1 * c), dim=-1).flatten(-2)

    x = w["embed"][ids]
    for layer in range(cfg["layers"]):
        xb = rms(x, w["rms_att"][layer])
        q = rope((xb @ w["wq"][layer].T).view(n, heads, hs)).transpose(0, 1)
        k = rope((xb @ w["wk"][layer].T).view(n, kvh, hs)).transpose(0, 1)
        v = (xb @ w["wv"][layer].T).view(n, kvh, hs).transpose(0, 1)
        if group > 1:
            k, v = k.repeat_interleave(group, dim=0), v.repeat_interleave(group, dim=0)
        att = sdpa(q, k, v).transpose(0, 1).reshape(n, dim)
        x = x + att @ w["wo"][layer].T
        xb2 = rms(x, w["rms_ffn"][layer])
        x = x + (torch.nn.functional.silu(xb2 @ w["w1"][layer].T) * (xb2 @ w["w3"][layer].T)) @ w["w2"][layer].T
    return rms(x, w["rms_final"]) @ w["cls"].T


def cmd_llama(path, impl, ids_path, check, name, threads):
    import numpy as np

    cfg, w = llama_read(np, path)
    ids = np.fromfile(ids_path, dtype="<i4").astype(np.int64)
    n = len(ids)
    cos, sin = rope_tables(np, n, cfg["hs"])
    if impl == "numpy":
        addmask = causal_add(np, n, np.float32)
        fn = lambda: llama_numpy(np, cfg, w, ids, cos, sin, addmask)  # noqa: E731
        shown = threads
    else:
        import torch

        if threads:
            torch.set_num_threads(int(threads))
        _, sdpa = sdpa_function(torch)
        tw = {k: torch.from_numpy(v) for k, v in w.items()}
        tids, tcos, tsin = torch.from_numpy(ids), torch.from_numpy(cos), torch.from_numpy(sin)

        def fn():
            with torch.no_grad():
                return llama_torch(torch, sdpa, cfg, tw, tids, tcos, tsin).numpy()

        shown = torch.get_num_threads()
    ms, reps = time_median(fn, min_reps=5, target_s=1.0, warmup=1)
    line = "ref=llama impl=%s name=%s threads=%s tokens=%d ms=%.3f reps=%d" % (impl, name, shown, n, ms, reps)
    if check:
        y = np.asarray(fn(), dtype=np.float64)
        ours = np.fromfile(check, dtype="<f4").astype(np.float64).reshape(y.shape)
        d = float(np.max(np.abs(y - ours)))
        line += " maxabs=%.3g maxrel=%.3g" % (d, d / max(float(np.max(np.abs(y))), 1e-30))
    print(line, flush=True)


# ----------------------------------------------------------------------------
# Hugging Face checkpoint folders (issue 14)


def safetensors_read(np, path):
    """{name: (dtype, shape, array)} of a .safetensors file, by the format's
    spec (a little-endian u64 N, N bytes of JSON, the data): F32 as float32,
    BF16 as its raw uint16 (the caller converts), F16 as float16. The arrays
    are read-only views of the file mapped with numpy.memmap: the caller
    converts (copies) them."""
    import json
    import struct

    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
    raw = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + n)
    kinds = {"F32": "<f4", "F16": "<f2", "BF16": "<u2"}
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        if t["dtype"] not in kinds:
            raise ValueError("%s: tensor %s: dtype %s not supported" % (path, name, t["dtype"]))
        b, e = t["data_offsets"]
        a = np.frombuffer(raw, dtype=kinds[t["dtype"]], count=(e - b) // np.dtype(kinds[t["dtype"]]).itemsize,
                          offset=b).reshape(t["shape"])
        out[name] = (t["dtype"], a)
    return out


def bf16_to_f32(np, a):
    """uint16 bfloat16 bits -> float32 (exact: the high half of an f32)."""
    return (a.astype(np.uint32) << 16).view(np.float32)


def hf_config(d):
    """The dimensions config.json implies, as transformers' GPT2Config / LlamaConfig read them."""
    import json

    with open(os.path.join(d, "config.json")) as f:
        cfg = json.load(f)
    if cfg.get("model_type") == "gpt2" or cfg.get("architectures") == ["GPT2LMHeadModel"]:
        dm, h = cfg["n_embd"], cfg["n_head"]
        return dict(arch="gpt2", dim=dm, hidden=cfg.get("n_inner") or 4 * dm, layers=cfg["n_layer"], heads=h,
                    kv_heads=h, hs=dm // h, vocab=cfg["vocab_size"], eps=cfg.get("layer_norm_epsilon", 1e-5))
    dm, h = cfg["hidden_size"], cfg["num_attention_heads"]
    return dict(arch="llama", dim=dm, hidden=cfg["intermediate_size"], layers=cfg["num_hidden_layers"], heads=h,
                kv_heads=cfg.get("num_key_value_heads", h), hs=cfg.get("head_dim") or dm // h,
                vocab=cfg["vocab_size"], eps=cfg.get("rms_norm_eps", 1e-6), theta=cfg.get("rope_theta", 10000.0),
                tied=cfg.get("tie_word_embeddings", False))


def hf_weights_torch(np, torch, path, dtype):
    """The tensors as torch tensors of `dtype` (float32: every weight
    converted once, as from_pretrained does by default; bfloat16: BF16 kept
    as it is, the rest converted), the "transformer." prefix dropped; and the
    file's dtype names."""
    out, kinds = {}, set()
    for name, (kind, a) in safetensors_read(np, path).items():
        kinds.add(kind)
        if kind == "BF16" and dtype == torch.bfloat16:
            t = torch.from_numpy(np.array(a.view(np.int16))).view(torch.bfloat16)
        else:
            t = torch.from_numpy(bf16_to_f32(np, a) if kind == "BF16" else a.astype(np.float32)).to(dtype)
        out[name[len("transformer."):] if name.startswith("transformer.") else name] = t
    return out, sorted(kinds)


def hf_gpt2_torch(torch, sdpa, c, w, ids):
    """modeling_gpt2's forward: learned positions, pre-LN blocks, Conv1D
    (x @ W + b with W (in, out)), tanh GELU, causal attention (SDPA, as
    attn_implementation="sdpa"); ln_f on every row, the tied lm_head on the
    last (as generate() asks with logits_to_keep=1)."""
    F = torch.nn.functional
    n, d, H, hs = ids.shape[0], c["dim"], c["heads"], c["hs"]
    x = w["wte.weight"][ids] + w["wpe.weight"][:n]
    for layer in range(c["layers"]):
        p = "h.%d." % layer
        h = F.layer_norm(x, (d,), w[p + "ln_1.weight"], w[p + "ln_1.bias"], c["eps"])
        qkv = torch.addmm(w[p + "attn.c_attn.bias"], h, w[p + "attn.c_attn.weight"])  # (n, 3d)
        q, k, v = (t.view(n, H, hs).transpose(0, 1) for t in qkv.split(d, dim=1))  # (H, n, hs)
        a = sdpa(q, k, v).transpose(0, 1).reshape(n, d)
        x = x + torch.addmm(w[p + "attn.c_proj.bias"], a, w[p + "attn.c_proj.weight"])
        h = F.layer_norm(x, (d,), w[p + "ln_2.weight"], w[p + "ln_2.bias"], c["eps"])
        f = F.gelu(torch.addmm(w[p + "mlp.c_fc.bias"], h, w[p + "mlp.c_fc.weight"]), approximate="tanh")
        x = x + torch.addmm(w[p + "mlp.c_proj.bias"], f, w[p + "mlp.c_proj.weight"])
    x = F.layer_norm(x, (d,), w["ln_f.weight"], w["ln_f.bias"], c["eps"])
    return F.linear(x[-1:], w["wte.weight"])  # (1, vocab)


def hf_rope_torch(torch, c, n, dtype):
    """cos, sin (n, hs) of LlamaRotaryEmbedding: inv_freq = theta^(-2i/hs),
    the angles of pair i in columns i and i + hs/2 (rotate-half layout)."""
    hs = c["hs"]
    inv_freq = 1.0 / (c["theta"] ** (torch.arange(0, hs, 2, dtype=torch.float64) / hs))
    freqs = torch.arange(n, dtype=torch.float64)[:, None] * inv_freq[None, :]
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos().to(dtype), emb.sin().to(dtype)


def hf_llama_torch(torch, sdpa, c, w, ids, cos, sin):
    """modeling_llama's forward: RMSNorm (in float32, then the weight),
    q/k/v/o nn.Linear (out, in), rotate-half RoPE, repeat_kv for grouped-query
    attention, causal SDPA, SwiGLU; the final norm, lm_head (the embedding
    when tied) on the last row."""
    F = torch.nn.functional
    n, H, G, hs = ids.shape[0], c["heads"], c["kv_heads"], c["hs"]

    def rms(x, g):
        x32 = x.float()
        return g * (x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + c["eps"])).to(x.dtype)

    def rotate_half(x):
        return torch.cat((-x[..., hs // 2:], x[..., :hs // 2]), dim=-1)

    x = w["model.embed_tokens.weight"][ids]
    for layer in range(c["layers"]):
        p = "model.layers.%d." % layer
        h = rms(x, w[p + "input_layernorm.weight"])
        q = F.linear(h, w[p + "self_attn.q_proj.weight"], w.get(p + "self_attn.q_proj.bias"))
        k = F.linear(h, w[p + "self_attn.k_proj.weight"], w.get(p + "self_attn.k_proj.bias"))
        v = F.linear(h, w[p + "self_attn.v_proj.weight"], w.get(p + "self_attn.v_proj.bias"))
        q, k, v = q.view(n, H, hs).transpose(0, 1), k.view(n, G, hs).transpose(0, 1), v.view(n, G, hs).transpose(0, 1)
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        if H > G:  # repeat_kv: query head h reads key/value head h // (H / G)
            k, v = k.repeat_interleave(H // G, dim=0), v.repeat_interleave(H // G, dim=0)
        a = sdpa(q, k, v).transpose(0, 1).reshape(n, H * hs)
        x = x + F.linear(a, w[p + "self_attn.o_proj.weight"], w.get(p + "self_attn.o_proj.bias"))
        h = rms(x, w[p + "post_attention_layernorm.weight"])
        g = F.silu(F.linear(h, w[p + "mlp.gate_proj.weight"])) * F.linear(h, w[p + "mlp.up_proj.weight"])
        x = x + F.linear(g, w[p + "mlp.down_proj.weight"])
    x = rms(x, w["model.norm.weight"])
    cls = w["model.embed_tokens.weight"] if c["tied"] else w["lm_head.weight"]
    return F.linear(x[-1:], cls)  # (1, vocab)


def cmd_hf(d, impl, ids_paths, checks, name, threads, budget_s, keep_bf16):
    import numpy as np

    if impl != "torch":
        print("ref=missing what=hf_%s reason=%s" % (impl, quote("ref.py hf has a PyTorch forward only")), flush=True)
        return
    import torch

    if threads:
        torch.set_num_threads(int(threads))
    _, sdpa = sdpa_function(torch)
    c = hf_config(d)
    path = os.path.join(d, "model.safetensors")
    runs = [np.fromfile(p, dtype="<i4").astype(np.int64) for p in ids_paths]
    total = sum(len(ids) for ids in runs) or 1
    w, kinds = hf_weights_torch(np, torch, path, torch.float32)
    sets = [("f32", torch.float32)]
    if keep_bf16 and kinds == ["BF16"]:  # the bf16 timing is for bf16 checkpoints only
        sets.append(("bf16", torch.bfloat16))
    for label, dtype in sets:
        if dtype != torch.float32:
            w = None  # the float32 copy freed first
            w, _ = hf_weights_torch(np, torch, path, dtype)
        for ids, check in zip(runs, checks):
            n = len(ids)
            tids = torch.from_numpy(ids)
            if c["arch"] == "llama":
                cos, sin = hf_rope_torch(torch, c, n, dtype)

                def forward():
                    with torch.no_grad():
                        return hf_llama_torch(torch, sdpa, c, w, tids, cos, sin)
            else:

                def forward():
                    with torch.no_grad():
                        return hf_gpt2_torch(torch, sdpa, c, w, tids)

            share = budget_s * n / total / len(sets)
            ms, reps = time_median(forward, min_reps=3, max_reps=50, target_s=share, warmup=1)
            line = "ref=hf impl=torch name=%s file_dtype=%s weights=%s threads=%d tokens=%d ms=%.3f reps=%d" % (
                name, "+".join(k.lower() for k in kinds), label, torch.get_num_threads(), n, ms, reps)
            if check:
                y = forward().float().numpy().astype(np.float64).reshape(-1)
                ours = np.fromfile(check, dtype="<f4").astype(np.float64)
                if ours.size != y.size:
                    line += " check=%s" % quote("%s has %d floats, expected %d (the last row)" % (check, ours.size,
                                                                                              y.size))
                else:
                    diff = float(np.max(np.abs(y - ours)))
                    line += " maxabs=%.3g maxrel=%.3g" % (diff, diff / max(float(np.max(np.abs(y))), 1e-30))
            print(line, flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("what", choices=["info", "numpy", "torch", "llama", "hf"])
    ap.add_argument("file", nargs="?", help="llama: the checkpoint; hf: the checkpoint folder")
    ap.add_argument("--impl", choices=["numpy", "torch"], default="numpy", help="llama, hf: which forward")
    ap.add_argument("--ids", action="append", help="llama: the token ids (int32); hf: once per run")
    ap.add_argument("--name", default="model", help="llama: its name in the line")
    ap.add_argument("--shapes", default=None, help='"n,d_model,heads;..." (default: the three anchors)')
    ap.add_argument("--threads", default="", help="thread count to report (numpy) or set (torch)")
    ap.add_argument("--check", nargs="?", const=True, default=None, action="append",
                    help="compare with float64 NumPy (llama, hf: with attnviz's logits in the file given; hf: "
                    "once per --ids, the last row)")
    ap.add_argument("--budget", type=float, default=4.0, help="hf: seconds of timed runs, split by tokens")
    ap.add_argument("--keep-bf16", action="store_true",
                    help="hf: also time the weights kept in bfloat16 (BF16 checkpoints; activations bfloat16)")
    a = ap.parse_args()
    shapes = parse_shapes(a.shapes) if a.shapes else SHAPES
    checks = [v for v in (a.check or []) if isinstance(v, str)]
    a.check = checks[0] if checks else bool(a.check)
    try:
        if a.what == "info":
            cmd_info()
        elif a.what == "llama":
            if not a.file or not a.ids:
                ap.error("llama needs FILE and --ids")
            check = a.check if isinstance(a.check, str) else None
            cmd_llama(a.file, a.impl, a.ids[0], check, a.name,
                      a.threads or os.environ.get("OPENBLAS_NUM_THREADS", "default"))
        elif a.what == "hf":
            if not a.file or not a.ids:
                ap.error("hf needs DIR and --ids")
            cmd_hf(a.file, a.impl, a.ids, checks + [None] * (len(a.ids) - len(checks)), a.name,
                   a.threads, a.budget, a.keep_bf16)
        elif a.what == "numpy":
            cmd_numpy(shapes, bool(a.check), a.threads or os.environ.get("OPENBLAS_NUM_THREADS", "default"))
        else:
            cmd_torch(shapes, bool(a.check), a.threads)
    except ImportError as e:
        what = a.impl if a.what in ("llama", "hf") else a.what
        print("ref=missing what=%s reason=%s" % (what, quote(e)), flush=True)
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
