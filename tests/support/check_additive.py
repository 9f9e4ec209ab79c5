#!/usr/bin/env python3
"""check_additive.py ATTNVIZ: additive scores at the edges of float32.

Q/K/V files whose entries are +-3.4e38, +-3e38, -1e38 and small numbers, 60
seeded draws (d_k 1..5, 4 tokens): attnviz's scores S = v^T tanh(W1 q + W2 k)
(--dump=json, its own W1, W2, v) must equal NumPy's float64 reference, where
tanh of the huge sums is exactly +-1, to 1e-5. Exit 1 with the worst case.
In float the products W1 q overflowed to infinity and their sum to NaN
(scores 1.1 away from the reference)."""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

binary = sys.argv[1]
rng = np.random.default_rng(1)
worst, where = 0.0, ""
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "edge.qkv")
    for t in range(60):
        n, dk = 4, int(rng.integers(1, 6))
        pick = lambda r, c: rng.choice([3.4e38, -3.4e38, 1.0, -2.0, 0.5, 3e38, -1e38], size=(r, c))
        Q, K, V = pick(n, dk), pick(n, dk), rng.normal(size=(n, 2))
        block = lambda name, a: name + ":\n" + "\n".join(" ".join(repr(float(x)) for x in r) for r in a) + "\n"
        with open(path, "w") as f:
            f.write(block("Q", Q) + block("K", K) + block("V", V))
        out = subprocess.run([binary, "--dump=json", "--qkv", path, "--score", "additive", "-s", str(t)],
                             capture_output=True, text=True)
        if out.returncode != 0:
            print("seed %d: exit %d: %s" % (t, out.returncode, out.stderr.strip()))
            sys.exit(1)
        h = json.loads(out.stdout)["heads"][0]
        W1, W2, v = np.array(h["w1"]), np.array(h["w2"]), np.array(h["v_a"])[0]
        S = np.array([[v @ np.tanh(W1 @ Q[i] + W2 @ K[j]) for j in range(n)] for i in range(n)])
        got = np.array(h["scores"], dtype=np.float64)
        if not np.all(np.isfinite(got)):
            print("seed %d: a score is not finite" % t)
            sys.exit(1)
        e = float(np.abs(S - got).max())
        if e > worst:
            worst, where = e, "seed %d, d_k %d" % (t, dk)
if worst > 1e-5:
    print("additive scores at the float edges: %.3g away from the saturated reference (%s)" % (worst, where))
    sys.exit(1)
print("additive scores at the float edges: within %.2g of the reference" % worst)
