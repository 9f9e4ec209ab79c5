#!/bin/sh
# End-to-end: the variants of issue 6 in the real TUI — score kinds, tied Q
# and K, the masks (window, prefix, padding, painted and its file), the three
# attention modes with a target sentence, and the word gravity view.
. tests/support/lib.sh
peer_need "tmux (apt-get install tmux)" command -v tmux || { finish; exit; }

tmx_start 100 30 LC_ALL=C.UTF-8 -- "$ATTNVIZ" --pad 2 --mask-file "$TMP/mask.txt" "'Bob saw Mary'"
tmx_expect "start" "score=scaled attn=self pad=2" ""
tmx_expect "a mask file means the painted mask" "mask=painted" ""
# score kinds
tmx_expect "o: cosine" "score=cosine" o
tmx_expect "o: cosine inspector" "cos(q,k) = " ""
tmx_expect "o: cosine title" "softmax(cos(q,k)×√" ""
tmx_expect "o: distance" "score=distance" o
tmx_expect "o: distance inspector" "−|q−k|²" ""
tmx_expect "o: distance title" "softmax(−|q−k|²÷√" ""
tmx_expect "o: additive" "score=additive" o
tmx_expect "o: additive inspector" "vᵀtanh(W1q+W2k)" ""
tmx_expect "o: additive title" "softmax(vᵀtanh(W1q+W2k), mask)" ""
tmx_expect "o: back to scaled" "score=scaled" o
# s then o keeps the scaling off (it turned it back on silently before).
tmx_expect "s: off" "scale=off" s
tmx_expect "s: the dot product unscaled" "score=dot" ""
tmx_expect "o after s: cosine, still off" "scale=off" o
expect_contains "o after s: the kind" "$(tmx_screen)" "score=cosine"
expect_contains "o after s: the title" "$(tmx_screen)" "softmax(cos(q,k), mask)"
tmx_expect "s: on again" "scale=on" s
tmx_expect "o x3: round to the scaled dot product" "score=scaled" o o o
# tied Q and K: the asymmetry goes to 0
asym=$(tmx_screen | sed -n 3p | sed 's/.*asym \([0-9.]*\).*/\1/')
if awk -v a="$asym" 'BEGIN { exit !(a > 0) }'; then pass; else fail "untied asymmetry is $asym"; fi
tmx_expect "T: tied" "tie-qk" T
tmx_expect "T: symmetric" "asym 0.00" ""
tmx_expect "T: untied" "score=scaled attn=self pad=2" T
# masks: none -> causal -> window -> prefix -> padding -> painted
tmx_expect "m: none" "mask=none" m
tmx_expect "m: causal" "mask=causal" m
tmx_expect "m: window" "mask=window:3" m
tmx_expect "]: window 4" "mask=window:4" "]"
tmx_expect "m: prefix" "mask=prefix:2" m
tmx_expect "m: padding" "mask=padding" m
tmx_expect "padding hides the <pad> keys" "<pad>" ""
tmx send-keys End
tmx_expect "a <pad> key is masked" "masked: a <pad> key" ""
tmx_expect "m: painted" "mask=painted" m
# paint a cell and write the mask file
tmx send-keys Home
tmx_expect "M: mask-edit" "mask-edit on" M
tmx_expect "Right" "Bob[0] → saw[1]" Right
tmx_expect "Space: hidden" "cell (0, 1) hidden" Space
tmx_expect "the painted cell is masked" "masked (painted)" ""
tmx_expect "W: written" "mask written to" W
expect_contains "the mask file" "$(cat "$TMP/mask.txt" 2>/dev/null)" "1 0 1 1 1"
tmx_expect "M: mask-edit off" "mask-edit off" M
tmx_stop

# the mask file is read back, and a bad one is refused with file:line
out=$($ATTNVIZ --pad 2 --mask-file "$TMP/mask.txt" --dump=json "Bob saw Mary")
expect_contains "mask file read back" "$out" '"masked": [[-'
printf '1 1 1\n1 1\n1 1 1\n' >"$TMP/bad-mask.txt"
err=$($ATTNVIZ --mask-file "$TMP/bad-mask.txt" --dump "Bob saw Mary" 2>&1); rc=$?
expect_rc "bad mask file" 2 $rc
expect_contains "bad mask file: file and line" "$err" "bad-mask.txt:2: 2 values, expected 3"

# attention modes with a target sentence typed with E
tmx_start 100 30 LC_ALL=C.UTF-8 -- "$ATTNVIZ" "'Bob saw Mary'"
tmx_expect "start 2" "attn=self" ""
tmx_expect "x: no target yet" "attn=causal-self" x
tmx_expect "x: cross refused without a target" "cross-attention needs a target sentence" x
tmx_expect "E: target prompt" "target (empty: none): " E
tmx send-keys "나는 밥을 보았다" Enter
tmx_expect "E: target set" "target: 3 tokens" ""
tmx_expect "x: causal-self on the target" "attn=causal-self" x
tmx_expect "x: causal mask" "mask=causal" ""
tmx_expect "x: the target's tokens" "나는[0] → 나는[0]" Home
tmx_expect "x: the target's tokens across" "보았다" ""
tmx_expect "x: cross" "attn=cross" x
tmx_expect "cross: 3 x 3, target down the side" "나는[0] → Bob[0]" Home
tmx_expect "cross: the causal rule does not apply" "allowed" End
tmx_expect "x: back to self" "attn=self" x
# the gravity view
tmx_expect "g: gravity" "word gravity" g
tmx_expect "g: caption" "where attention moves it" ""
tmx_expect "g: random weights said" "random weights (seed 42): the arithmetic of attention, not word meaning" ""
tmx_expect "g: all heads" "all 4 heads: D = Y = concat W_O" g
tmx_expect "Esc: back" "weights A = softmax" Escape
tmx send-keys q
tmx_expect "quit" "EXITED rc=0" ""
tmx_stop

# --once --view gravity, in ASCII
out=$($ATTNVIZ --once --view gravity --ascii --width 80 "Mary greeted Bob and Bob ignored Mary")
expect_contains "once gravity: caption" "$out" "X: a token's vector"
expect_contains "once gravity: the arrows' factor" "$out" "arrows x"
expect_contains "once gravity: label" "$out" "greeted"
finish
