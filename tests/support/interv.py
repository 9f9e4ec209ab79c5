#!/usr/bin/env python3
"""The interventions of attnviz recomputed by an independent NumPy forward
pass (float64, the whole sequence with a causal mask), for a llama2.c
checkpoint (stories260K.bin) or a Hugging Face folder (GPT-2, Llama):

  interv.py ablate MODEL DUMP.json   DUMP is `attnviz --model MODEL --ablate
        L.H,...[:mode] --dump=json TEXT`: its "ids" are run again with each
        listed head's output (before W_O) zeroed, or set to its mean over
        every position of the text battery's sentences ("mean"); the logits
        before (no ablation) and after of the last row must match
        "next_tokens_before" (logit, logit_after, prob, prob_after) and the
        probabilities of "next_tokens" (after) within 1e-4.
  interv.py lens MODEL LENS.json     LENS is `attnviz --model MODEL
        --dump=lens [--lens-token PIECE] [--ablate ...] TEXT`: for every row
        (0: the embeddings, l: after layer l) and position, the residual
        through the final norm and the unembedding: the top token's id and
        probability, and the chosen token's probability, within 1e-4 (the
        heads of "ablated" switched off as above).

  interv.py sweep MODEL SWEEP.json   SWEEP is `attnviz --model MODEL
        --dump=sweep [--lens-token PIECE] [--ablate ...] TEXT`: each head
        switched off alone (zeroed, the "ablated" ones too), the token's
        logit after "row", and its drop, within 1e-4.

  interv.py patch MODEL PATCH.json   PATCH is `attnviz --model MODEL
        --dump=patch --patch-from CORRUPT --metric A,B CLEAN`: the metric
        logit(A) - logit(B) of both prompts, and the corrupted run with each
        head's outputs (every position) or each layer's input at one
        position taken from the clean run, normalised as (patched -
        corrupt) / (clean - corrupt), within 1e-4.

Mean ablation needs the text battery's token ids: the sentences are in
batteries.py, tokenized by `$ATTNVIZ --model MODEL --dump=tokens` (the
tokenizers are tested elsewhere), and their count must equal the count
`--dump=heads` reports for text-en, so the two lists cannot drift apart.
Exit 0 when everything agrees, 1 otherwise (each difference printed).
"""
import json
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from batteries import TEXT_EN  # noqa: E402
from verify_hf import dims, llama_qk, gelu_new, layernorm, read_dir, rmsnorm  # noqa: E402
import verify_llama2  # noqa: E402

TOL = 1e-4


# ----------------------------------------------------------------------------
# the model, whatever its file: per layer the attention's input, q, k, v
# (after RoPE), the output projection and the MLP; the final norm and the
# classifier

class Model:
    def __init__(self, path):
        if os.path.isdir(path):
            self.c = dims(json.load(open(os.path.join(path, "config.json"))))
            self.w = {k: v.astype(np.float64) for k, v in read_dir(path).items()}
            self.kind = self.c["arch"]
        else:
            cfg, self.w = verify_llama2.load(path)
            self.c = dict(arch="llama2.c", dim=cfg["dim"], layers=cfg["layers"], heads=cfg["heads"],
                          kv_heads=cfg["kv_heads"], hs=cfg["hs"], vocab=cfg["vocab"])
            self.kind = "llama2.c"
        self.c["layers"] = int(self.c["layers"])

    def g(self, name):
        p = "transformer." if "transformer.wte.weight" in self.w else ""
        return self.w[p + name]

    def embed(self, ids):
        if self.kind == "gpt2":
            return self.g("wte.weight")[ids] + self.g("wpe.weight")[:len(ids)]
        if self.kind == "llama2.c":
            return self.w["embed"][ids]
        return self.w["model.embed_tokens.weight"][ids]

    def qkv(self, l, x):
        c, H, G, hs = self.c, self.c["heads"], self.c["kv_heads"], self.c["hs"]
        if self.kind == "gpt2":
            h = "h.%d." % l
            xb = layernorm(x, self.g(h + "ln_1.weight"), self.g(h + "ln_1.bias"), c["eps"])
            qkv = xb @ self.g(h + "attn.c_attn.weight") + self.g(h + "attn.c_attn.bias")
            d = c["dim"]
            return qkv[:, :d], qkv[:, d:2 * d], qkv[:, 2 * d:]
        if self.kind == "llama2.c":
            w = self.w
            xb = verify_llama2.rmsnorm(x, w["rms_att"][l])
            q = verify_llama2.rope(xb @ w["wq"][l].T, H, hs)
            k = verify_llama2.rope(xb @ w["wk"][l].T, G, hs)
            return q, k, xb @ w["wv"][l].T
        h = "model.layers.%d." % l
        lin = lambda name, inp: inp @ self.w[h + name + ".weight"].T + self.w.get(h + name + ".bias", 0.0)
        xb = rmsnorm(x, self.w[h + "input_layernorm.weight"], c["eps"])
        q, k = llama_qk(c, self.w, h, lin, xb)  # verify_hf's: q/k norm (Qwen3), scaled RoPE (Llama 3)
        return q, k, lin("self_attn.v_proj", xb)

    def finish(self, l, x, att):
        c = self.c
        if self.kind == "gpt2":
            h = "h.%d." % l
            x = x + att @ self.g(h + "attn.c_proj.weight") + self.g(h + "attn.c_proj.bias")
            xb = layernorm(x, self.g(h + "ln_2.weight"), self.g(h + "ln_2.bias"), c["eps"])
            f = gelu_new(xb @ self.g(h + "mlp.c_fc.weight") + self.g(h + "mlp.c_fc.bias"))
            return x + f @ self.g(h + "mlp.c_proj.weight") + self.g(h + "mlp.c_proj.bias")
        if self.kind == "llama2.c":
            w = self.w
            x = x + att @ w["wo"][l].T
            xb = verify_llama2.rmsnorm(x, w["rms_ffn"][l])
            h1, h3 = xb @ w["w1"][l].T, xb @ w["w3"][l].T
            return x + (h1 / (1 + np.exp(-h1)) * h3) @ w["w2"][l].T
        h = "model.layers.%d." % l
        lin = lambda name, inp: inp @ self.w[h + name + ".weight"].T + self.w.get(h + name + ".bias", 0.0)
        x = x + lin("self_attn.o_proj", att)
        xb = rmsnorm(x, self.w[h + "post_attention_layernorm.weight"], c["eps"])
        gate, up = lin("mlp.gate_proj", xb), lin("mlp.up_proj", xb)
        return x + lin("mlp.down_proj", gate / (1.0 + np.exp(-gate)) * up)

    def unembed(self, x):
        """The final norm and the classifier: logits (n, vocab)."""
        c = self.c
        if self.kind == "gpt2":
            return layernorm(x, self.g("ln_f.weight"), self.g("ln_f.bias"), c["eps"]) @ self.g("wte.weight").T
        if self.kind == "llama2.c":
            return verify_llama2.rmsnorm(x, self.w["rms_final"]) @ self.w["cls"].T
        cls = self.w["model.embed_tokens.weight"] if c["tied"] else self.w["lm_head.weight"]
        return rmsnorm(x, self.w["model.norm.weight"], c["eps"]) @ cls.T

    def forward(self, ids, ablate=None, resid_patch=None):
        """Every layer's residual (layers + 1, n, dim: the input of layer l,
        the last the final one) and every layer's heads' outputs joined (n,
        q_dim); ablate {(layer, head): None (zero), a mean (hs,) or every
        position's output (n, hs)}; resid_patch (layer, position, vector):
        that layer's input at that position replaced."""
        n, H, G, hs = len(ids), self.c["heads"], self.c["kv_heads"], self.c["hs"]
        causal = np.tril(np.ones((n, n), dtype=bool))
        x = self.embed(ids)
        resid, outs = [x], []
        for l in range(self.c["layers"]):
            if resid_patch and resid_patch[0] == l:
                x = x.copy()
                x[resid_patch[1]] = resid_patch[2]
            q, k, v = self.qkv(l, x)
            att = np.empty((n, H * hs))
            for h in range(H):
                g = h // (H // G)
                s = q[:, h * hs:(h + 1) * hs] @ k[:, g * hs:(g + 1) * hs].T / np.sqrt(hs)
                s = np.where(causal, s, -np.inf)
                a = np.exp(s - s.max(axis=1, keepdims=True))
                a /= a.sum(axis=1, keepdims=True)
                att[:, h * hs:(h + 1) * hs] = a @ v[:, g * hs:(g + 1) * hs]
            outs.append(att.copy())
            for (al, ah), mean in (ablate or {}).items():
                if al == l:
                    att[:, ah * hs:(ah + 1) * hs] = 0.0 if mean is None else mean
            x = self.finish(l, x, att)
            resid.append(x)
        return resid, outs


def softmax(z):
    e = np.exp(z - z.max())
    return e / e.sum()


def attnviz():
    return os.environ.get("ATTNVIZ", "build/release/attnviz")


def battery_ids(path):
    """The text battery's sentences as the model's tokenizer cuts them, and
    the count of their tokens --dump=heads reports (they must agree)."""
    out = []
    for s in TEXT_EN:
        r = subprocess.run([attnviz(), "--model", path, "--dump=tokens", s], capture_output=True, check=True)
        out.append([int(line.split(b"\t")[0]) for line in r.stdout.splitlines()])
    r = subprocess.run([attnviz(), "--model", path, "--dump=heads", "--lang", "en"], capture_output=True, check=True)
    reported = json.loads(r.stdout)["batteries"]["text-en"]["tokens"]
    return out, reported


def head_means(m, path):
    seqs, reported = battery_ids(path)
    total = sum(len(s) for s in seqs)
    if total != reported:
        raise SystemExit("batteries.py: %d tokens, attnviz's text-en battery %d: the sentences differ"
                         % (total, reported))
    acc = None
    for ids in seqs:
        _, outs = m.forward(ids)
        part = np.stack([o.sum(axis=0) for o in outs])  # (layers, q_dim)
        acc = part if acc is None else acc + part
    return acc / total


def ablation_of(m, path, d):
    """{(layer, head): None or the head's mean} of a dump's "ablated"."""
    ablate, means, hs = {}, None, m.c["hs"]
    for item in d.get("ablated", []):
        lh, mode = item.split(":")
        l, h = (int(v) - 1 for v in lh.split("."))
        if mode == "mean" and means is None:
            means = head_means(m, path)
        ablate[(l, h)] = means[l, h * hs:(h + 1) * hs] if mode == "mean" else None
    return ablate


def check_ablate(path, dump_path):
    m = Model(path)
    d = json.load(open(dump_path))
    ids = d["ids"]
    ablate = ablation_of(m, path, d)
    before = m.unembed(m.forward(ids)[0][-1])[-1]
    after = m.unembed(m.forward(ids, ablate)[0][-1])[-1]
    pb, pa = softmax(before), softmax(after)
    worst, bad = 0.0, []
    for t in d["next_tokens_before"]:
        i = t["id"]
        for name, got, want in (("logit", t["logit"], before[i]), ("logit_after", t["logit_after"], after[i]),
                                ("prob", t["prob"], pb[i]), ("prob_after", t["prob_after"], pa[i])):
            diff = abs(got - want)
            worst = max(worst, diff)
            if not diff <= TOL:
                bad.append("token %d %s: attnviz %.7g, numpy %.7g" % (i, name, got, want))
    for t in d["next_tokens"]:
        diff = abs(t["prob"] - pa[t["id"]])
        worst = max(worst, diff)
        if not diff <= TOL:
            bad.append("next_tokens %d: attnviz %.7g, numpy %.7g" % (t["id"], t["prob"], pa[t["id"]]))
    top_b, top_a = int(np.argmax(before)), int(np.argmax(after))
    if d["next_tokens_before"][0]["id"] != top_b or d["next_tokens"][0]["id"] != top_a:
        bad.append("top tokens: attnviz %d -> %d, numpy %d -> %d"
                   % (d["next_tokens_before"][0]["id"], d["next_tokens"][0]["id"], top_b, top_a))
    print("numpy: ablated %s on %d tokens: max |diff| %.3g (%d values)"
          % (",".join(d["ablated"]), len(ids), worst, 4 * len(d["next_tokens_before"]) + len(d["next_tokens"])))
    for b in bad:
        print("numpy: " + b, file=sys.stderr)
    return not bad


def check_lens(path, lens_path):
    m = Model(path)
    d = json.load(open(lens_path))
    ids, lens = d["ids"], d["lens"]
    resid, _ = m.forward(ids, ablation_of(m, path, d))
    token = lens.get("token")
    worst, bad, count = 0.0, [], 0
    if len(lens["top"]) != m.c["layers"] + 1:
        bad.append("%d rows in the lens, expected %d" % (len(lens["top"]), m.c["layers"] + 1))
    for l, row in enumerate(lens["top"]):
        logits = m.unembed(resid[l])
        for i, cell in enumerate(row):
            p = softmax(logits[i])
            top = int(np.argmax(p))
            # a tie within the tolerance may name either token
            if cell["id"] != top and abs(p[cell["id"]] - p[top]) > TOL:
                bad.append("row %d position %d: top %d, numpy %d" % (l, i, cell["id"], top))
            checks = [("prob", cell["prob"], p[cell["id"]])]
            if token is not None:
                checks.append(("token prob", token["prob"][l][i], p[token["id"]]))
            for name, got, want in checks:
                diff = abs(got - want)
                worst, count = max(worst, diff), count + 1
                if not diff <= TOL:
                    bad.append("row %d position %d %s: attnviz %.7g, numpy %.7g" % (l, i, name, got, want))
    print("numpy: logit lens%s, %d rows x %d positions: max |diff| %.3g (%d values)"
          % (" (ablated %s)" % ",".join(d["ablated"]) if d.get("ablated") else "", len(lens["top"]), len(ids),
             worst, count))
    for b in bad[:20]:
        print("numpy: " + b, file=sys.stderr)
    return not bad


def check_patch(path, patch_path):
    m = Model(path)
    d = json.load(open(patch_path))
    clean, corrupt, hs = d["clean_ids"], d["corrupt_ids"], m.c["hs"]
    a, b = d["metric"]["a"]["id"], d["metric"]["b"]["id"]
    metric = lambda resid: (lambda z: z[a] - z[b])(m.unembed(resid[-1])[-1])
    resid_c, outs_c = m.forward(clean)
    mc, mx = metric(resid_c), metric(m.forward(corrupt)[0])
    worst = max(abs(d["metric"]["clean"] - mc), abs(d["metric"]["corrupt"] - mx))
    bad = [] if worst <= TOL else ["the metrics: attnviz %.7g %.7g, numpy %.7g %.7g"
                                   % (d["metric"]["clean"], d["metric"]["corrupt"], mc, mx)]
    for l, row in enumerate(d["heads"]):
        for h, got in enumerate(row):
            want = (metric(m.forward(corrupt, {(l, h): outs_c[l][:, h * hs:(h + 1) * hs]})[0]) - mx) / (mc - mx)
            worst = max(worst, abs(got - want))
            if not abs(got - want) <= TOL:
                bad.append("head %d.%d: attnviz %.7g, numpy %.7g" % (l + 1, h + 1, got, want))
    for l, row in enumerate(d["resid_pre"]):
        for p, got in enumerate(row):
            want = (metric(m.forward(corrupt, None, (l, p, resid_c[l][p]))[0]) - mx) / (mc - mx)
            worst = max(worst, abs(got - want))
            if not abs(got - want) <= TOL:
                bad.append("resid_pre of layer %d at %d: attnviz %.7g, numpy %.7g" % (l + 1, p, got, want))
    print("numpy: patching, %d x %d heads and %d x %d positions: max |diff| %.3g"
          % (len(d["heads"]), len(d["heads"][0]), len(d["resid_pre"]), len(clean), worst))
    for e in bad[:20]:
        print("numpy: " + e, file=sys.stderr)
    return not bad


def check_sweep(path, sweep_path):
    m = Model(path)
    d = json.load(open(sweep_path))
    ids, row, tok = d["ids"], d["row"], d["token"]["id"]
    base = ablation_of(m, path, d)
    logit = m.unembed(m.forward(ids, base)[0][-1])[row][tok]
    worst, bad = abs(d["logit"] - logit), []
    if not worst <= TOL:
        bad.append("the logit: attnviz %.7g, numpy %.7g" % (d["logit"], logit))
    for e in d["heads"]:
        abl = dict(base)
        abl[(e["layer"] - 1, e["head"] - 1)] = None
        want = m.unembed(m.forward(ids, abl)[0][-1])[row][tok]
        for name, got, ref in (("logit", e["logit"], want), ("drop", e["drop"], logit - want)):
            diff = abs(got - ref)
            worst = max(worst, diff)
            if not diff <= TOL:
                bad.append("head %d.%d %s: attnviz %.7g, numpy %.7g" % (e["layer"], e["head"], name, got, ref))
    print("numpy: ablation sweep of %d heads on %d tokens: max |diff| %.3g" % (len(d["heads"]), len(ids), worst))
    for b in bad[:20]:
        print("numpy: " + b, file=sys.stderr)
    return not bad


if __name__ == "__main__":
    checks = {"ablate": check_ablate, "lens": check_lens, "sweep": check_sweep, "patch": check_patch}
    if len(sys.argv) != 4 or sys.argv[1] not in checks:
        raise SystemExit(__doc__)
    sys.exit(0 if checks[sys.argv[1]](sys.argv[2], sys.argv[3]) else 1)
