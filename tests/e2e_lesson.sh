#!/bin/sh
# End-to-end: the built-in lessons (issue 16) through the real binary. Lessons
# 1 and 3 driven in tmux at 80x24 with Space, b, R and L, in English and in
# Korean: each step's caption and the state it sets (the status line); the
# last step, leaving and coming back; --step; --lesson list in both
# languages (and from the locale); a broken lesson file, a bad --step or
# --lesson: one line, exit 2; lesson 2's Q/K/V and lesson 7's trained model
# with --once (lesson 7 without the model file: its message).
. tests/support/lib.sh
peer_need "tmux (apt-get install tmux)" command -v tmux || { finish; exit; }

# --- lesson 1, English, 80x24
tmx_start 80 24 LC_ALL=C.UTF-8 TERM=xterm-256color -- "$ATTNVIZ" --lesson 1 --lang en
tmx_expect "1.1 caption" "From a sentence to attention weights 1/12: Tokens"
tmx_expect "1.1 text" "A transformer never reads letters."
tmx_expect "1.1 state" "d_model=8 heads=2 d_k=4 mask=causal scale=on pos=none seed=42"
tmx_expect "1.1 the chain" "[ ] stage 1/16: tokens → ids  (10)"
expect_not_contains "1.1 fits" "$(tmx_screen)" "terminal too small"
tmx_expect "1.2 Space" "2/12: Embeddings" Space
tmx_expect "1.2 state" "X = E: token embeddings, no positional encoding  (10, 8)"
tmx_expect "1.3 Space" "3/12: Queries, keys and values" Space
tmx_expect "1.3 state" "stage 3/16: W_Q  (8, 4)"
tmx_expect "1.4 Space" "4/12: Scores: Q Kᵀ" Space
tmx_expect "1.4 state" "raw scores S = QKᵀ (before scaling)"
tmx_expect "1.3 b" "3/12: Queries, keys and values" b
tmx_expect "1.3 b: the chain again" "stage 3/16: W_Q  (8, 4)"
tmx_expect "1.1 R" "1/12: Tokens" R
tmx_expect "1.1 R: the chain's top" "stage 1/16: tokens → ids"
for k in 2 3 4 5 6 7 8; do tmx send-keys Space; tmx_wait "$k/12:" || fail "1: step $k not reached"; done
tmx_expect "1.8 the cell" "8/12: One cell, by hand"
tmx_expect "1.8 the cell page" "weight        0.557655 ÷ 2.264075 = 0.2463"
tmx_expect "1.8 the caption's numbers" "row's sum) gives the weight 0.2463"
tmx_expect "1.9 Space closes the page" "output O = A V  (10, 4)" Space
# L: the lesson left, the state stays, keys explore; L again: the step back
tmx_expect "1 L" "left the lesson: explore from here; L goes back to step 9" L
expect_not_contains "1 L: no caption" "$(tmx_screen)" "9/12:"
tmx_expect "1 L: the state stays" "output O = A V  (10, 4)"
tmx_expect "1 L: m explores" "mask=window" m
tmx_expect "1 L again" "9/12: The output: A V" L
tmx_expect "1 L again: the step's state" "mask=causal"
tmx_expect "1 q quits" "EXITED rc=0" q
tmx_stop

# --- lesson 3, English: d_k and the scaling of each step, H̄ in the status line
tmx_start 80 24 LC_ALL=C.UTF-8 TERM=xterm-256color -- "$ATTNVIZ" --lesson 3 --lang en
tmx_expect "3.1 caption" "Why divide by √d_k 1/8: Without scaling, d_k = 4"
tmx_expect "3.1 state" "d_model=64 heads=1 d_k=4 mask=none scale=off pos=none seed=42"
tmx_expect "3.1 entropy" "H̄ 2.20 of 3.32 bits"
tmx_expect "3.2 Space" "2/8: d_k = 16" Space
tmx_expect "3.2 state" "d_k=16 mask=none scale=off"
tmx_expect "3.2 entropy" "H̄ 1.26 of 3.32 bits"
tmx_expect "3.3 Space" "d_k=64 mask=none scale=off" Space
tmx_expect "3.3 entropy" "H̄ 0.81 of 3.32 bits"
tmx_expect "3.4 Space" "d_k=256 mask=none scale=off" Space
tmx_expect "3.4 entropy" "H̄ 0.09 of 3.32 bits"
tmx_expect "3.5 Space" "scaled scores S' = QKᵀ (scaling off)" Space
tmx_expect "3.5 the scores' size" "+43.4 = ±max|x|"
tmx_expect "3.6 Space" "d_k=256 mask=none scale=on" Space
tmx_expect "3.6 the scores' size" "+2.71 = ±max|x|"
tmx_expect "3.7 Space" "H̄ 2.89 of 3.32 bits" Space
tmx_expect "3.8 Space" "8/8: At every d_k" Space
tmx_expect "3.8 state" "d_k=64 mask=none scale=on"
tmx_expect "3.8 entropy" "H̄ 2.92 of 3.32 bits"
tmx_expect "3 the last step" "the last step: b goes back, R to the start, L leaves the lesson" Space
tmx_expect "3.7 b" "d_k=256 mask=none scale=on" b
tmx_expect "3.6 b" "6/8:" b
tmx_expect "3.1 R" "d_k=4 mask=none scale=off" R
tmx_expect "3.1 R: entropy" "H̄ 2.20 of 3.32 bits"
tmx_stop

# --- the same in Korean
tmx_start 80 24 LC_ALL=C.UTF-8 TERM=xterm-256color -- "$ATTNVIZ" --lesson 1 --lang ko
tmx_expect "ko 1.1 caption" "문장에서 어텐션 가중치까지 1/12: 토큰"
tmx_expect "ko 1.1 text" "트랜스포머는 글자를 읽지 않습니다"
tmx_expect "ko 1.1 the sentence" "재미있었다       → 9"
tmx_expect "ko 1.2 Space" "2/12: 임베딩" Space
tmx_expect "ko 1.2 state" "X = E: 토큰 임베딩, 위치 인코딩 없음  (10, 8)"
tmx_expect "ko 1.3 Space" "3/12: 쿼리, 키, 값" Space
tmx_expect "ko 1.2 b" "2/12: 임베딩" b
tmx_stop
tmx_start 80 24 LC_ALL=C.UTF-8 TERM=xterm-256color -- "$ATTNVIZ" --lesson 3 --lang ko
tmx_expect "ko 3.1 caption" "왜 √d_k로 나누는가 1/8: 스케일링 없이, d_k = 4"
tmx_expect "ko 3.1 entropy" "H̄ 2.25 / 3.32 비트"
tmx_expect "ko 3.2 Space" "d_k=16 mask=none scale=off" Space
tmx_expect "ko 3.2 entropy" "H̄ 1.29 / 3.32 비트"
tmx_expect "ko 3.2 text" "H̄가 1.29 비트로 떨어집니다"
tmx_send() { tmx send-keys "$@"; }
tmx_send Space Space Space Space
tmx_expect "ko 3.6 scale on" "6/8: ÷ √256 = ÷ 16"
tmx_expect "ko 3.6 state" "d_k=256 mask=none scale=on"
tmx_expect "ko 3.6 the scores' size" "+3.1 = ±max|x|"
tmx_stop

# --- --step: the lesson starts there (Korean from the locale)
tmx_start 80 24 LANG=ko_KR.UTF-8 LC_ALL= TERM=xterm-256color -- "$ATTNVIZ" --lesson 1 --step 3
tmx_expect "--step 3, locale ko" "3/12: 쿼리, 키, 값"
tmx_expect "--step 3: its state" "W_Q  (8, 4)"
tmx_expect "--step 3: b" "2/12: 임베딩" b
tmx_stop
out=$(LC_ALL=C.UTF-8 "$ATTNVIZ" --lesson 3 --step 4 --lang en --once --width 100)
expect_rc "--step 4 --once" 0 $?
expect_contains "--step 4 --once: state" "$out" "d_k=256 mask=none scale=off"
expect_contains "--step 4 --once: caption" "$out" "Why divide by √d_k 4/8: d_k = 256"

# --- --lesson list, in both languages
out=$(LC_ALL=C.UTF-8 "$ATTNVIZ" --lesson list)
expect_rc "list" 0 $?
expect_contains "list en" "$out" "1  From a sentence to attention weights (12 steps)"
expect_contains "list en 7" "$out" "7  What a trained model learned  [--model stories260K.bin] (7 steps)"
[ "$(printf '%s\n' "$out" | wc -l)" = 7 ] && pass || fail "list: not 7 lines: $out"
out=$(LC_ALL=C.UTF-8 "$ATTNVIZ" --lesson list --lang ko)
expect_contains "list ko" "$out" "1  문장에서 어텐션 가중치까지 (12단계)"
expect_contains "list ko 2" "$out" "2  3x3 예제, 다시 계산하기 (7단계)"
out=$(env -u LC_ALL LC_MESSAGES=ko_KR.UTF-8 "$ATTNVIZ" --lesson list)
expect_contains "list from the locale" "$out" "3  왜 √d_k로 나누는가 (8단계)"

# --- lesson 2: the worked example's Q/K/V, recomputed
out=$(LC_ALL=C.UTF-8 "$ATTNVIZ" --lesson 2 --step 2 --lang en --once --width 100)
expect_rc "lesson 2 --once" 0 $?
expect_contains "lesson 2: a Q/K/V source" "$out" "3 x 3 from file"
expect_contains "lesson 2: S, row 2" "$out" "1.27 ###### 1.51"
expect_contains "lesson 2: the text's numbers" "$out" "The text prints 0.26 0.41 0.65"

# --- broken lessons and options: one line, exit 2
bad() { # name needle args...
    name=$1 needle=$2; shift 2
    err=$(LC_ALL=C.UTF-8 "$ATTNVIZ" "$@" 2>&1 >/dev/null); rc=$?
    expect_rc "$name" 2 $rc
    expect_contains "$name" "$err" "$needle"
    [ "$(printf '%s\n' "$err" | grep -c '^attnviz:')" = 1 ] && pass || fail "$name: not one line: $err"
}
printf 'title: broken\n== one\nA caption.\n> view heatmap\n> frobnicate 3\n' >"$TMP/broken.lesson"
bad "unknown command" "$TMP/broken.lesson:5: unknown command 'frobnicate'" --lesson "$TMP/broken.lesson" --once
printf 'title: broken\n== one\nA caption.\n> head 99\n' >"$TMP/bad-value.lesson"
bad "bad value" "$TMP/bad-value.lesson:4: head: expected a number 1..64" --lesson "$TMP/bad-value.lesson"
printf 'title: broken\n== one\nok\n> head 9\n' >"$TMP/refused.lesson"
bad "refused by the model" "$TMP/refused.lesson step 1: head 9: the model has 4" --lesson "$TMP/refused.lesson" --once
printf 'title: broken\n== one\nok\ntitle: again\n' >"$TMP/header.lesson"
bad "header in a step" "$TMP/header.lesson:4: title: is a header line" --lesson "$TMP/header.lesson"
printf 'title: broken\n' >"$TMP/empty.lesson"
bad "no step" "$TMP/empty.lesson:2: no step" --lesson "$TMP/empty.lesson"
printf 'title: t\n== one\nok\n> qkv "Q:\\n1 x\\n"\n' >"$TMP/qkv.lesson"
bad "bad qkv" "$TMP/qkv.lesson:4: qkv:2:3: expected a number, found 'x'" --lesson "$TMP/qkv.lesson"
bad "no such lesson" "--lesson: 9 is not a lesson (1..7, or a file; --lesson list)" --lesson 9
bad "no such file" "$TMP/none.lesson" --lesson "$TMP/none.lesson"
bad "--step past the end" "--step: 13 is out of range 1..12 (the lesson's steps)" --lesson 1 --step 13 --once
bad "--lang" "--lang: unknown language 'fr' (expected en or ko)" --lesson 1 --lang fr

# --- lesson 7: a trained model (its file found, or its message)
if model_need stories260K.bin; then
    M=$MODELS
    out=$(LC_ALL=C.UTF-8 ATTNVIZ_MODELS="$M" "$ATTNVIZ" --lesson 7 --step 5 --lang en --once --width 100)
    expect_rc "lesson 7" 0 $?
    expect_contains "lesson 7: the model" "$out" "model=stories260K d_model=64 heads=8 d_k=8 mask=causal scale=on layer=5/5"
    expect_contains "lesson 7: the head that looks like copying" "$out" "raw q·k = 47.6548"
    # the caption's claim is e2e_heads's: layer 5 head 6 scores < 0.1 on repeated random tokens
    expect_contains "lesson 7: its caption" "$out" "scores 0.01, and no head of this model reaches 0.4"
fi
mkdir -p "$TMP/a/b/c" # no ../shared/models, ../../shared/models or models/ from there
err=$(cd "$TMP/a/b/c" && env -u ATTNVIZ_MODELS LC_ALL=C.UTF-8 "$ATTNVIZ" --lesson 7 --once 2>&1 >/dev/null); rc=$?
expect_rc "lesson 7 without the model" 2 $rc
expect_contains "lesson 7 without the model" "$err" "needs a trained model: stories260K.bin is not in"

finish
