#!/bin/sh
# End-to-end: the pipeline view and the cell arithmetic in the real TUI, their
# numbers checked against --dump of the same configuration.
. tests/support/lib.sh
peer_need "tmux (apt-get install tmux)" command -v tmux || { finish; exit; }

ARGS="-H 2 --d-model 8 -k 4 -m causal --seed 5"
TEXT="Mary greeted Bob"
# shellcheck disable=SC2086
$ATTNVIZ $ARGS --dump "$TEXT" >"$TMP/dump.txt" || fail "dump"
# The value of a stage of head H at (row label R, column C) in the text dump.
dump_value() { # head stage-title-prefix row col
    awk -v h="== head $1/2 ==" -v st="$2" -v row="$3" -v col="$4" '
        $0 == h { inhead = 1; next }
        /^== head / { inhead = 0 }
        inhead && index($0, st) == 1 { instage = 1; next }
        instage && $1 == row { print $(col + 2); exit }
        instage && /^$/ { instage = 0 }' "$TMP/dump.txt"
}

# shellcheck disable=SC2086
tmx_start 100 40 LC_ALL=C.UTF-8 -- "$ATTNVIZ" $ARGS "'$TEXT'"
tmx_expect "start" "d_model=8 heads=2 d_k=4 mask=causal" ""
tmx_expect "c: pipeline" "the whole chain" c
tmx_expect "pipeline: Q" "Q = X W_Q  (3, 4)" ""
tmx_expect "pipeline: tokens" "tokens → ids  (3)" ""
tmx_expect "pipeline: W_Q" "W_Q  (8, 4)" ""
tmx_expect "Tab: head 2" "head 2/2  the whole chain" Tab
tmx_expect "pipeline: scroll to the end" "Y = concat W_O  (3, 8)" End
tmx_expect "pipeline: weights" "A = softmax(M)  (3, 3)" ""
tmx_expect "c: back" "weights A = softmax" c

# head 2 (kept from the pipeline), cell greeted -> Mary, then Enter
tmx send-keys Down
tmx_expect "cursor" "greeted[1] → Mary[0]" ""
tmx_expect "Enter: cell arithmetic" "cell arithmetic  head 2/2  query 1 greeted → key 0 Mary" Enter
raw=$(dump_value 2 "scores = Q K^T" greeted 0)
scaled=$(dump_value 2 "scaled = scores" greeted 0)
weight=$(dump_value 2 "weights A" greeted 0)
tmx_expect "raw score as in the dump ($raw)" "raw score     q·k = $raw" ""
tmx_expect "scaled score as in the dump ($scaled)" "= $scaled   (what the softmax sees)" ""
tmx_expect "weight as in the dump ($weight)" "= $weight" ""
tmx_expect "bar chart" "the weights of row 1 greeted" ""
tmx_expect "Esc closes" "weights A = softmax" Escape
# a masked cell says so
tmx send-keys Right Right
tmx_expect "masked cell" "masked: key 2 hidden from query 1" ""
tmx_expect "Enter on a masked cell" "masked: score −∞, weight 0" Enter
tmx_expect "Esc: back to the map" "H̄" Escape

# saturation: scaling off and a larger d_k lower the mean entropy
h_on=$(tmx_screen | sed -n 3p | sed 's/.*H̄ \([0-9.]*\) of.*/\1/')
tmx send-keys s
tmx_expect "scale off" "scale=off" ""
tmx send-keys + + +
tmx_expect "d_k 32" "d_k=32" ""
h_off=$(tmx_screen | sed -n 3p | sed 's/.*H̄ \([0-9.]*\) of.*/\1/')
if awk -v a="$h_on" -v b="$h_off" 'BEGIN { exit !(b < a) }'; then pass; else fail "entropy did not fall: $h_on -> $h_off"; fi

# positional encoding: the PE stage appears with p
tmx send-keys p
tmx_expect "p: pos on" "pos=sinusoidal" ""
tmx send-keys v v v v v v
tmx_expect "PE stage" "PE: sinusoidal positional encoding  (3, 8)" ""
tmx_expect "PE inspector" "position 0, dimension 0:  PE = sin(0 / 10000^(0/8)) = 0.0000" Home
tmx send-keys q
tmx_expect "quit" "EXITED rc=0" ""
tmx_stop

# --once --view pipeline on the worked example
out=$($ATTNVIZ --once --view pipeline --qkv samples/worked-example.qkv --width 120 --color=never)
expect_contains "once pipeline: S" "$out" "S = QKᵀ  (3, 3)"
expect_contains "once pipeline: scaled" "$out" "S' = S ÷ √3  (3, 3)"
expect_contains "once pipeline: softmax" "$out" "A = softmax(S')  (3, 3)"
expect_contains "once pipeline: weights row 3" "$out" "0.23 ░ 0.36 ▒ 0.41  1.000"
expect_contains "once pipeline: output" "$out" "O = A V  (3, 3)"
expect_not_contains "once pipeline: no W_Q for a file" "$out" "W_Q"

finish
