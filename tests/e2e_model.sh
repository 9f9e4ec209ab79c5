#!/bin/sh
# End-to-end: a trained model (issue 12) through the real binary: stories260K's
# greedy text (llama2.c's own test), its tokens, the Llama 2 vocabulary alone,
# every bad file and option in one line with exit status 2, and the model's
# layers in tmux. Without ../shared/models: one "skipped" line.
. tests/support/lib.sh

model_need stories260K.bin tok512.bin || { finish; exit; }
M=$MODELS

# Greedy decoding of 200 tokens from BOS: exactly llama2.c's 464 bytes (the
# models' README), and a final line break.
cat >"$TMP/want" <<'TEXT'
Once upon a time, there was a little girl named Lily. She loved to play outside in the park. One day, she saw a big, red ball. She wanted to play with it, but it was too high.
Lily's mom said, "Lily, let's go to the park." Lily was sad and didn't know what to do. She said, "I want to play with your ball, but I can't find it."
Lily was sad and didn't know what to do. She said, "I'm sorry, Lily. I didn't know what to do."
Lily didn't want to help her mom, so she
TEXT
"$ATTNVIZ" --model "$MODEL" --generate 200 >"$TMP/got"
expect_rc "generate 200" 0 $?
if cmp -s "$TMP/got" "$TMP/want"; then pass; else fail "generate 200: not llama2.c's text"; diff "$TMP/got" "$TMP/want" | head -5; fi
out=$("$ATTNVIZ" --model "$MODEL" --generate 5 "Lily saw a cat. Lily")
expect_rc "generate after a sentence" 0 $?
expect_contains "generate after a sentence" "$out" " was"

# Tokens: id, tab, piece; BOS first.
out=$("$ATTNVIZ" --model "$MODEL" --dump=tokens "Lily saw a cat. Lily" | cut -f1 | tr '\n' ' ')
[ "$out" = "1 317 394 261 280 294 426 317 " ] && pass || fail "dump=tokens: ids [$out]"
if [ -r "$M/tokenizer-llama2-32k.bin" ]; then
    out=$("$ATTNVIZ" --vocab "$M/tokenizer-llama2-32k.bin" --dump=tokens "I believe the meaning of life is" | cut -f1 | tr '\n' ' ')
    [ "$out" = "1 306 4658 278 6593 310 2834 338 " ] && pass || fail "vocab alone: ids [$out]"
fi

# Every layer in the JSON dump, with the next tokens.
"$ATTNVIZ" --model "$MODEL" --dump=json "Lily saw a cat. Lily" >"$TMP/d.json"
expect_rc "dump=json" 0 $?
if command -v python3 >/dev/null; then
    out=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); c=d["config"]; print(len(d["layers"]), len(d["layers"][4]["heads"]), d["next_tokens"][0]["piece"], c["source"], c["d_model"], c["model"]["name"], c["model"]["n_kv_heads"], c["model"]["hidden_dim"], "query_tokens" in d)' "$TMP/d.json")
    [ "$out" = "5 8  was model 64 stories260K 4 172 False" ] && pass || fail "dump=json: [$out]"
fi

# An independent recomputation (NumPy, float64, from the checkpoint file) of
# every layer's q, k, v, scores, weights and outputs and the next tokens, for
# a few sentences, the mask off (every later layer fed from it) and no scaling.
if need_numpy; then
    i=0
    for args in '"Lily saw a cat. Lily"' '--mask none "Lily saw a cat. Lily"' '--no-scale "Once upon a time"' \
        '"나는 어제 친구와 영화를 봤는데"' '--layer 3 "Tom had a red ball. Tom"'; do
        i=$((i + 1))
        eval "\"\$ATTNVIZ\" --model \"\$MODEL\" --dump=json $args" >"$TMP/v$i.json"
        if msg=$(/usr/bin/python3 tests/verify_model_dump.py "$MODEL" "$TMP/v$i.json" 2>&1); then pass "numpy: $args"
        else fail "numpy: $args: $msg"; fi
    done
fi

# The CSV and text dumps carry the ids and the next tokens too.
"$ATTNVIZ" --model "$MODEL" --dump=csv "Lily saw a cat. Lily" >"$TMP/d.csv"
expect_rc "dump=csv" 0 $?
out=$(grep -c '^,,token_id,' "$TMP/d.csv")
[ "$out" = 8 ] && pass || fail "dump=csv: $out token_id rows"
expect_contains "dump=csv next token" "$(cat "$TMP/d.csv")" ',,next_token,0,286,"▁was"'
out=$(grep -c '^,,next_prob,' "$TMP/d.csv")
[ "$out" = 10 ] && pass || fail "dump=csv: $out next_prob rows"
out=$("$ATTNVIZ" --model "$MODEL" --dump=text "Lily saw a cat. Lily" | sed -n '/^next tokens after/,$p')
expect_contains "dump=text next tokens" "$out" "next tokens after ▁Lily (10)"
expect_contains "dump=text likeliest" "$out" "    1  id 286     0.5964  ▁was"

# Bad input: one line, exit 2.
bad() { # name needle args...
    name=$1 needle=$2; shift 2
    err=$("$ATTNVIZ" "$@" 2>&1 >/dev/null); rc=$?
    expect_rc "$name" 2 $rc
    expect_contains "$name" "$err" "$needle"
    [ "$(printf '%s\n' "$err" | grep -c '^attnviz:')" = 1 ] && pass || fail "$name: not one line: $err"
}
head -c 1000 "$MODEL" >"$TMP/short.bin"
bad "truncated checkpoint" "short.bin" --model "$TMP/short.bin" --vocab "$M/tok512.bin" --dump
bad "missing checkpoint" "nothere.bin" --model "$TMP/nothere.bin" --dump
# Another kind of file given as a checkpoint is said as such (it was "header
# field dim is 1702240891"); one field out of range is still that field.
cp README.md "$TMP/readme.bin"
bad "a text as a checkpoint" "readme.bin: not a llama2.c checkpoint (it starts with text: \"# attnviz...\")" --model "$TMP/readme.bin" --vocab "$M/tok512.bin" --dump
printf '\030\000\000\000\000\000\000\000{"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}\000\000\000\000' >"$TMP/st.bin"
bad "a safetensors file as a checkpoint" "st.bin: not a llama2.c checkpoint (it looks like a safetensors file" --model "$TMP/st.bin" --vocab "$M/tok512.bin" --dump
bad "a tokenizer as a checkpoint" "tok512.bin: not a llama2.c checkpoint (3 of the 7 header fields" --model "$M/tok512.bin" --vocab "$M/tok512.bin" --dump
head -c 1056540 "$MODEL" >"$TMP/dim.bin" && printf '\377\377\377\177' | dd of="$TMP/dim.bin" conv=notrunc 2>/dev/null
bad "one field out of range" "dim.bin: header field dim is 2147483647, more than the limit of 65536" --model "$TMP/dim.bin" --vocab "$M/tok512.bin" --dump
cp "$MODEL" "$TMP/alone.bin"
bad "no vocabulary beside" "give --vocab FILE" --model "$TMP/alone.bin" --dump
bad "layer out of range" "--layer: 9 is out of range 1..5" --model "$MODEL" --layer 9 --dump
bad "knob that does not apply" "--model: the model gives" --model "$MODEL" -k 4 --dump
bad "model and qkv" "choose one" --model "$MODEL" --qkv samples/worked-example.qkv --dump
bad "vocab without model" "--vocab: needs --model" --vocab "$M/tok512.bin" --dump
bad "generate past the context" "past the model's context" --model "$MODEL" --generate 600

# The same model as a GGUF (issue 28; tests/support/gguf_model.py writes it):
# the same greedy text and tokens through its own tokenizer; bad GGUF files
# (a missing key, a wrong shape, an unknown architecture, a type the engine
# does not read) in one line, exit 2.
if need_numpy; then
    /usr/bin/python3 tests/support/gguf_model.py bin2gguf "$MODEL" "$M/tok512.bin" "$TMP/s.gguf" F32 >/dev/null
    "$ATTNVIZ" --model "$TMP/s.gguf" --generate 200 >"$TMP/got"
    expect_rc "gguf generate 200" 0 $?
    cmp -s "$TMP/got" "$TMP/want" && pass || fail "gguf generate 200: not llama2.c's text"
    out=$("$ATTNVIZ" --model "$TMP/s.gguf" --dump=tokens "Lily saw a cat. Lily" | cut -f1 | tr '\n' ' ')
    [ "$out" = "1 317 394 261 280 294 426 317 " ] && pass || fail "gguf dump=tokens: ids [$out]"
    cp "$TMP/s.gguf" "$TMP/blob" # an Ollama blob has no extension: the magic says GGUF
    out=$("$ATTNVIZ" --model "$TMP/blob" --generate 5 "Lily saw a cat. Lily")
    expect_contains "gguf by its magic" "$out" " was"
    /usr/bin/python3 tests/support/gguf_model.py bad "$TMP/bad" >"$TMP/bad.txt"
    while IFS="$(printf '\t')" read -r name needle; do
        case $name in arch | no-eps | ffn-shape | iq2 | extra | nan-scale | pre) ;; *) continue ;; esac
        bad "gguf $name" "$needle" --model "$TMP/bad/bad-$name.gguf" --dump
    done <"$TMP/bad.txt"
    head -c 3000 "$TMP/s.gguf" >"$TMP/cut.gguf"
    bad "gguf truncated" "cut.gguf: " --model "$TMP/cut.gguf" --dump
fi

# In tmux: the model's first layer, then the last; knobs that do not apply
# say so and change nothing.
tmx_start 100 30 LC_ALL=C.UTF-8 -- "$ATTNVIZ" --color=never --model "$MODEL" "Lily saw a cat. Lily"
tmx_expect "model on screen" "model=stories260K d_model=64 heads=8 d_k=8 mask=causal scale=on layer=1/5"
tmx_expect "labels" "▁Lily"
tmx_expect "last layer" "layer=5/5" '{'
tmx_expect "title" "layer 5/5  head 1/8"
tmx_expect "d_k refused" "a trained model's weights are its own" '+'
tmx_expect "still d_k 8" "d_k=8"
tmx_expect "head 2" "head 2/8" Tab
tmx_expect "mask none" "mask=none" m m m m m
tmx_stop

# The model writes: n shows its next tokens after the cursor's row, N
# appends the likeliest (" was" after "Lily saw a cat. Lily") and recomputes.
tmx_start 110 40 LC_ALL=C.UTF-8 -- "$ATTNVIZ" --color=never --model "$MODEL" "Lily saw a cat. Lily"
tmx_wait "model=stories260K" || fail "model: no screen"
tmx_expect "next tokens" "next after ▁Lily[7]:  ▁was 0.60" n End
tmx_expect "continue" 'appended " was"' N
tmx_expect "the new row" "▁was[8]"
tmx_stop
tmx_start 110 130 LC_ALL=C.UTF-8 -- "$ATTNVIZ" --color=never --model "$MODEL" "Lily saw a cat. Lily"
tmx_wait "model=stories260K" || fail "model: no screen"
tmx_expect "help lists n and N" "append the likeliest next token" '?'
tmx_expect "help lists the layer keys" "next layer (a model of several layers)"
tmx_stop
out=$("$ATTNVIZ" --color=never --once --width 100 "Lily saw a cat")
expect_not_contains "no n/N for the seeded model" "$out" "next after"
finish
