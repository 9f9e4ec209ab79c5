#!/bin/sh
# e2e_inputs.sh - the text and model files attnviz reads, as a hostile tester
# hands them over: a UTF-8 byte order mark (Notepad's) is no text, in every
# text file (lesson, Q/K/V, mask, sentence; JSON took it already); a folder's
# tokenizer.json or config.json that is a directory or a FIFO is said as
# such (it was "missing", or "use '-'" for a file nobody named); a JSON file
# with a key twice is refused naming the file and the key (the first value
# was kept in silence). Each bad input: one line, exit status 2.
. tests/support/lib.sh

BOM=$(printf '\357\273\277')
bad() { # name needle args...
    b_name=$1 b_needle=$2
    shift 2
    err=$(LC_ALL=C.UTF-8 "$ATTNVIZ" "$@" 2>&1 >/dev/null)
    expect_rc "$b_name" 2 $?
    expect_contains "$b_name" "$err" "$b_needle"
    [ "$(printf '%s\n' "$err" | grep -c '^attnviz:')" = 1 ] && pass || fail "$b_name: not one line: $err"
}
same() { # name file-a file-b
    cmp -s "$2" "$3" && pass || fail "$1: the output differs with the byte order mark"
}

# --- a byte order mark, in each text file: the same as without
printf 'title: with a mark\n== one\nA caption.\n> view heatmap\n' >"$TMP/plain.lesson"
{ printf '%s' "$BOM"; cat "$TMP/plain.lesson"; } >"$TMP/bom.lesson"
LC_ALL=C.UTF-8 "$ATTNVIZ" --lesson "$TMP/bom.lesson" --lang en --once --width 100 >"$TMP/l2"
expect_rc "lesson with a BOM" 0 $?
LC_ALL=C.UTF-8 "$ATTNVIZ" --lesson "$TMP/plain.lesson" --lang en --once --width 100 >"$TMP/l1"
same "lesson" "$TMP/l1" "$TMP/l2"
{ printf '%s' "$BOM"; cat samples/worked-example.qkv; } >"$TMP/bom.qkv"
"$ATTNVIZ" --qkv "$TMP/bom.qkv" --dump=json >"$TMP/q2"
expect_rc "qkv with a BOM" 0 $?
"$ATTNVIZ" --qkv samples/worked-example.qkv --dump=json >"$TMP/q1"
same "qkv" "$TMP/q1" "$TMP/q2"
printf 'Mary greeted Bob\n' >"$TMP/plain.txt"
{ printf '%s' "$BOM"; cat "$TMP/plain.txt"; } >"$TMP/bom.txt"
"$ATTNVIZ" -f "$TMP/bom.txt" --dump=json >"$TMP/s2"
expect_rc "sentence with a BOM" 0 $?
"$ATTNVIZ" -f "$TMP/plain.txt" --dump=json >"$TMP/s1"
same "sentence file" "$TMP/s1" "$TMP/s2"
printf '1 0 0\n1 1 0\n0 1 1\n' >"$TMP/plain.mask"
{ printf '%s' "$BOM"; cat "$TMP/plain.mask"; } >"$TMP/bom.mask"
"$ATTNVIZ" --mask-file "$TMP/bom.mask" --dump=json "Mary greeted Bob" >"$TMP/m2"
expect_rc "mask with a BOM" 0 $?
"$ATTNVIZ" --mask-file "$TMP/plain.mask" --dump=json "Mary greeted Bob" >"$TMP/m1"
same "mask file" "$TMP/m1" "$TMP/m2"

# --- scores near the float limit: the status line's asym stays a short
# number (it was 42 characters of digits, and at 80 columns it did not fit:
# the entropy and asym were left out)
printf 'Q:\n1e38 1e38\n-1e38 3e38\nK:\n3e38 -1e38\n1e38 2e38\nV:\n1\n2\n' >"$TMP/big.qkv"
line=$("$ATTNVIZ" --qkv "$TMP/big.qkv" --once --width 80 --color=never | sed -n 3p)
expect_contains "asym: short" "$line" "asym 6.81e38"

# --- counts with their noun: one of a thing is singular
out=$("$ATTNVIZ" --once --width 80 --color=never alone)
expect_contains "1 token" "$out" " 1 token, words"
printf 'runs\n2\n' >"$TMP/one.mask"
bad "1 row" "one.mask: 1 row, expected 2 (one per query)" --mask-file "$TMP/one.mask" --dump "two words"

# --- a FIFO where a file is read: an option that takes '-' says so, a
# model's own file does not
mkfifo "$TMP/pipe"
bad "-f FIFO" "-f: $TMP/pipe: not a regular file (a FIFO); use '-' to read standard input" -f "$TMP/pipe" --dump
bad "--qkv FIFO" "$TMP/pipe: not a regular file (a FIFO); use '-' to read standard input" --qkv "$TMP/pipe" --dump

if need_numpy; then
    /usr/bin/python3 tests/support/hf_fixture.py write "$TMP/hf" gpt2
    for kind in dir fifo; do
        for f in tokenizer.json config.json; do
            cp -r "$TMP/hf" "$TMP/$kind"
            rm "$TMP/$kind/$f"
            if [ $kind = dir ]; then mkdir "$TMP/$kind/$f"; want="$TMP/$kind/$f: is a directory, not a file"
            else mkfifo "$TMP/$kind/$f"; want="$TMP/$kind/$f: not a regular file (a FIFO)"; fi
            bad "$f as a $kind" "$want" --model "$TMP/$kind" --dump
            err=$("$ATTNVIZ" --model "$TMP/$kind" --dump 2>&1)
            expect_not_contains "$f as a $kind: not missing" "$err" "missing"
            expect_not_contains "$f as a $kind: no '-'" "$err" "use '-'"
            rm -r "$TMP/$kind"
        done
    done

    # a key twice: config.json, tokenizer.json, the shard index
    cp -r "$TMP/hf" "$TMP/d1"
    sed 's/"n_layer": 2,/"n_layer": 2, "n_layer": 3,/' "$TMP/hf/config.json" >"$TMP/d1/config.json"
    bad "config.json key twice" "$TMP/d1/config.json: the key \"n_layer\" appears twice (at the top level); each key must be unique" --model "$TMP/d1" --dump
    cp -r "$TMP/hf" "$TMP/d2"
    /usr/bin/python3 -c 'import sys; s = open(sys.argv[1]).read(); open(sys.argv[2], "w").write(s.replace("\"vocab\": {", "\"vocab\": {\"a\": 5, ", 1))' "$TMP/hf/tokenizer.json" "$TMP/d2/tokenizer.json"
    bad "tokenizer.json key twice" "$TMP/d2/tokenizer.json: the key \"a\" appears twice (in model.vocab)" --model "$TMP/d2" --dump
    cp -r "$TMP/hf" "$TMP/d3"
    mv "$TMP/d3/model.safetensors" "$TMP/d3/shard-1.safetensors"
    /usr/bin/python3 - "$TMP/d3" <<'PY'
import json, struct, sys
d = sys.argv[1]
raw = open(d + "/shard-1.safetensors", "rb").read()
names = [k for k in json.loads(raw[8:8 + struct.unpack_from("<Q", raw)[0]]) if k != "__metadata__"]
body = ", ".join('"%s": "shard-1.safetensors"' % n for n in names + names[:1])
open(d + "/model.safetensors.index.json", "w").write('{"metadata": {}, "weight_map": {%s}}' % body)
PY
    bad "index key twice" "model.safetensors.index.json: the key \"wte.weight\" appears twice (in weight_map)" --model "$TMP/d3" --dump
fi
finish
