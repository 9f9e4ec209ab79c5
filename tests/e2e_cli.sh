#!/bin/sh
# End-to-end tests of the command line: exit status and message of every bad
# value, the dumps of the worked example, and (when NumPy is present) every
# stage of --dump=json recomputed independently.
. tests/support/lib.sh

# --- help and version
out=$($ATTNVIZ --help); rc=$?
expect_rc "--help" 0 $rc
expect_contains "--help lists --d-k" "$out" "--d-k N"
expect_contains "--help gives ranges" "$out" "1..64"
out=$($ATTNVIZ -V); expect_contains "--version" "$out" "attnviz "

# --- every bad value: one line on stderr naming option and range, exit 2
bad() { # expected-substring args...
    want=$1; shift
    err=$($ATTNVIZ "$@" 2>&1 >/dev/null); rc=$?
    expect_rc "bad: $*" 2 $rc
    expect_contains "message for: $*" "$err" "$want"
}
bad "--heads: 65 is out of range 1..64" -H 65 --dump
bad "--heads: 'x' is not a whole number (expected 1..64)" --heads x --dump
bad "--d-k: 0 is out of range 1..4096" -k 0 --dump
bad "--d-model: 5000 is out of range 1..4096" --d-model 5000 --dump
bad "--d-v: '' is not a whole number" --d-v= --dump
bad "--mask: unknown mask 'diag'" -m diag --dump
bad "--pos: unknown positional encoding" --pos abs --dump
bad "--seed: 'abc' is not a whole number" -s abc --dump
bad "--tokenizer: unknown tokenizer 'bpe'" -t bpe --dump
bad "--pattern: missing closing parenthesis at offset" --pattern "(ab" --dump
bad "--dump: unknown format 'yaml'" --dump=yaml
bad "--width: 3 is out of range 20..1000" --once --width 3
bad "--frobnicate: unknown or ambiguous option" --frobnicate
bad "cannot open" -f /nonexistent/file --dump
bad "is a directory" -f samples --dump
bad "is a directory" --qkv samples --dump
bad "too large" -H 64 --d-model 4096 -k 4096 --dump hello
# The limits judge the final shape: cross-attention from a short target over
# a 4096-word source with 64 heads is small (1 x 4096 x 64 cells), the same
# source in self-attention is not (4096 x 4096 x 64).
awk 'BEGIN { for (i = 0; i < 4096; i++) printf "w%d ", i % 50; print "" }' >"$TMP/long.txt"
$ATTNVIZ -f "$TMP/long.txt" --target x --attn cross -H 64 --d-model 64 -k 16 --once --width 80 >/dev/null 2>"$TMP/err"
expect_rc "cross-attention over a long source, 64 heads" 0 $?
bad "4096 tokens, more than the 512 that fit d_model=64 heads=64 (heads x tokens x tokens, memory and work): --max-tokens 512 keeps the first 512" -f "$TMP/long.txt" -H 64 --d-model 64 -k 16 --once --width 80
printf 'ab\377cd' >"$TMP/bad.txt"
bad "invalid UTF-8 at byte offset 2" -f "$TMP/bad.txt" --dump
printf 'Q:\n1 2\nK:\n1 2 3\nV:\n1\n' >"$TMP/bad.qkv"
bad "bad.qkv:4:" --qkv "$TMP/bad.qkv" --dump
printf 'Q:\n1 nan\nK:\n1 2\nV:\n1\n' >"$TMP/nan.qkv"
bad "not a finite number" --qkv "$TMP/nan.qkv" --dump
# An escape sequence in a bad value is shown escaped, never raw.
err=$($ATTNVIZ --mask "$(printf 'x\033]0;pwned\007')" 2>&1)
expect_contains "escaped value" "$err" '\x1B]0;pwned\x07'
case $err in *"$(printf '\033')"*) fail "raw ESC in the message";; esac

# --- dumps
out=$($ATTNVIZ --qkv samples/worked-example.qkv --dump); rc=$?
expect_rc "worked example dump" 0 $rc
expect_contains "worked: scores shape" "$out" "scores = Q K^T (3, 3)"
expect_contains "worked: weights row 1" "$out" "나는          0.2953    0.3432    0.3615"
expect_contains "worked: output row 3" "$out" "간다          0.6550    0.5099    0.4840"
out=$($ATTNVIZ --qkv samples/worked-example.qkv --mask causal --dump=csv)
expect_contains "csv causal masked cell" "$out" "0,masked,0,1,-inf"
expect_contains "csv causal weight" "$out" "0,weights,1,0,0.45680666"
out=$(printf '나는 학교에 간다\n' | $ATTNVIZ -f - --dump=json -H 2 --d-model 8)
expect_contains "stdin sentence" "$out" '"tokens": ["나는", "학교에", "간다"]'

# --- --once draws the view the TUI shows, plain when piped
out=$($ATTNVIZ --once --width 80 -m causal "나는 학교에 간다"); rc=$?
expect_rc "--once" 0 $rc
expect_contains "--once status" "$out" "d_model=64 heads=4 d_k=16 mask=causal scale=on pos=none seed=42"
expect_contains "--once title" "$out" "head 1/4"
expect_contains "--once row sum" "$out" "1.000"
expect_contains "--once hints" "$out" "q quit"
case $out in *"$(printf '\033')"*) fail "--once piped: escape sequences in plain output";; *) pass;; esac
out=$($ATTNVIZ --once --color=always --width 100 "나는 학교에 간다")
expect_contains "--once --color=always" "$out" "$(printf '\033')[0"
expect_contains "--once 256 colours" "$out" "48;5;"
out=$(NO_COLOR=1 $ATTNVIZ --once --view heads "Mary greeted Bob")
expect_contains "--once --view heads" "$out" "all 4 heads"
lines=$($ATTNVIZ --once --width 120 "$(printf 'w%d ' $(seq 1 40))" | wc -l)
[ "$lines" -ge 48 ] && pass || fail "--once shows every row: $lines lines for 40 tokens"

# --- every stage recomputed in NumPy, over sentences, seeds, heads, d_k,
# masks and scaling (DESIGN.md §2 tolerances)
if need_numpy; then
    i=0
    for args in \
        "-H 1 -k 1 --d-model 8 Mary greeted Bob" \
        "-H 2 -k 3 -m causal --d-model 16 -s 7 나는 어제 친구와 영화를 봤는데, 그 영화는 정말 재미있었다" \
        "-H 4 -k 16 --no-scale -s 1 the cat sat on the mat because the cat was tired" \
        "-H 12 -k 128 --d-model 96 -m causal -s 123456789 Bob ignored Mary" \
        "-H 3 -k 64 --d-v 5 --no-scale -m causal --pos sinusoidal -s 99 -t gpt2 I'm here, it's 2024!" \
        "-H 8 -k 32 --d-model 128 -t chars 나는 회사에 간다." \
        "--qkv samples/worked-example.qkv -m causal" \
        "--qkv samples/worked-example.qkv --no-scale" \
        "--qkv samples/worked-example.qkv --score cosine" \
        "--qkv samples/worked-example.qkv --score distance -m window:2" \
        "--qkv samples/worked-example.qkv --score additive" \
        "-H 3 --score cosine -m prefix:2 the cat sat on the mat" \
        "-H 2 --score cosine --no-scale Bob saw Mary" \
        "-H 2 --score distance --no-scale -m window:3 Bob saw Mary and Mary saw Bob" \
        "-H 2 --score additive -m causal Bob saw Mary" \
        "-H 2 --tie-qk Mary greeted Bob and Bob ignored Mary" \
        "-H 2 --tie-qk --score cosine Mary greeted Bob" \
        "-H 2 --pad 3 -m padding Bob saw Mary" \
        "-H 2 --target 나는 밥을 보았다 --attn cross -m causal Bob saw Mary" \
        "-H 2 --target 나는 밥을 보았다 --attn causal-self Bob saw Mary" \
        "-H 2 --target 나는 밥을 보았다 --attn cross --pad 2 -m padding Bob saw Mary"; do
        i=$((i + 1))
        # shellcheck disable=SC2086
        $ATTNVIZ $args --dump=json >"$TMP/d$i.json" || fail "dump $args"
        if msg=$(/usr/bin/python3 tests/support/verify_dump.py "$TMP/d$i.json" 2>&1); then pass "numpy: $args"
        else fail "numpy: $args: $msg"; fi
    done
    # additive scores where W1 q + W2 k leaves the float range: tanh saturates
    if msg=$(/usr/bin/python3 tests/support/check_additive.py "$ATTNVIZ" 2>&1); then pass
    else fail "numpy: $msg"; fi
fi

finish
