#!/bin/sh
# End-to-end tests of the interactive TUI: the real binary in a private tmux
# server of a fixed size, driven by keys, read back with capture-pane.
. tests/support/lib.sh
peer_need "tmux (apt-get install tmux)" command -v tmux || { finish; exit; }

EN="the cat sat on the mat because the cat was tired"
KO="나는 어제 친구와 영화를 봤는데, 그 영화는 정말 재미있었다"

# --- English at 80x24: every key of the contract changes what it says
# (from no mask: the default is causal, checked at the end)
tmx_start 80 24 LC_ALL=C.UTF-8 TERM=xterm-256color -- "$ATTNVIZ" -m none "'$EN'"
tmx_expect "start" "d_model=64 heads=4 d_k=16 mask=none scale=on pos=none seed=42"
tmx_expect "tokens" "because"
tmx_expect "row sums" "1.000"
tmx_expect "m: causal" "mask=causal" m
tmx_expect "m: masked cells" "· masked" ""
tmx_expect "+: d_k 32" "d_k=32" +
tmx_expect "-: d_k 16" "d_k=16" -
tmx_expect ">: 5 heads" "heads=5" ">"
tmx_expect "<: 4 heads" "heads=4" "<"
tmx_expect "s: scale off" "scale=off" s
tmx_expect "s: title says raw" "scaling off" ""
tmx_expect "s: scale on" "scale=on" s
tmx_expect "r: next seed" "seed=43" r
tmx_expect "p: pos on" "pos=sinusoidal" p
tmx_expect "v: raw scores" "raw scores S = QK" v
tmx_expect "v: scaled" "scaled scores" v
tmx_expect "v: masked" "masked scores" v
tmx_expect "v: output" "output O = A V" v
tmx_expect "v: X" "X = E + PE  (11, 64)" v
tmx_expect "v: PE" "PE: sinusoidal positional encoding" v
tmx_expect "v: heads joined" "concat(O_1 .. O_4)" v
tmx_expect "v: Y" "Y = concat W_O  (11, 64)" v
tmx_expect "v: back to weights" "weights A = softmax" v
tmx_expect "Tab: head 2" "head 2/4" Tab
tmx_expect "BTab: head 1" "head 1/4" BTab
tmx_expect "3: head 3" "head 3/4" 3
tmx_expect "a: all heads" "all 4 heads" a
tmx_expect "a: head blocks, each with its mean entropy" "h4 H" ""
tmx_expect "Enter opens" "head 3/4  weights" Enter
# the cursor: the inspector names the cell
tmx_expect "cursor start" "the[0] → the[0]" ""
tmx_expect "Right" "the[0] → cat[1]" Right
tmx_expect "Down" "cat[1] → cat[1]" Down
tmx_expect "j/l" "sat[2] → sat[2]" j l
tmx_expect "k/h" "cat[1] → cat[1]" k h
# masked cell under the causal mask
tmx_expect "masked cell" "masked: key 2 hidden from query 1" Right
# a masked row's weights read exactly 0 and each row sums to 1.000
screen=$(tmx_screen)
expect_contains "causal row 0" "$(printf '%s\n' "$screen" | grep -m1 '^the ')" "1.00"
sums=$(printf '%s\n' "$screen" | grep -c ' 1\.000  ')
[ "$sums" -eq 11 ] && pass || fail "expected 11 row sums of 1.000, got $sums"

# --- prompts: an exact d_k, an invalid one, the sentence
tmx_expect "d: prompt" "d_k (1..4096): 16" d
tmx send-keys BSpace BSpace 8 Enter
tmx_expect "d: d_k 8" "d_k=8" ""
tmx send-keys d C-u x y z Enter
tmx_expect "d: invalid" "not a whole number" ""
tmx_expect "d: unchanged" "d_k=8" ""
tmx send-keys d C-u 9 9 9 9 9 Enter
tmx_expect "d: out of range" "out of range 1..4096" ""
tmx send-keys d 3 Escape
tmx_expect "d: Esc cancels" "cancelled" ""
tmx_expect "e: prompt" "sentence: " e
tmx send-keys C-u "Mary greeted Bob" Enter
tmx_expect "e: new sentence" "greeted" ""
tmx_expect "e: 3 tokens" "3 tokens" ""
tmx send-keys e C-u "나는 학교에 간다다" BSpace Enter
tmx_expect "e: Korean, Backspace removed one syllable" "간다[2]" End
expect_not_contains "e: no 간다다" "$(tmx_screen)" "간다다"

# --- resize below the minimum and back
tmx resize-window -x 40 -y 10
tmx_expect "too small" "too small: 40x10" ""
tmx resize-window -x 80 -y 24
tmx_expect "back to normal" "d_model=64" ""
tmx resize-window -x 200 -y 50
tmx_expect "big" "d_model=64" ""
tmx resize-window -x 80 -y 24

# --- help, then quit: the terminal is restored (the shell line is back)
tmx_expect "help" "What am I looking at" "?"
tmx_expect "help closes" "d_model=64" q
tmx_expect "quit" "EXITED rc=0" q
expect_not_contains "screen restored" "$(tmx_screen)" "d_model=64"
tmx_stop

# --- Korean at 80x24, 256 colours: labels line up (the sum column is straight)
tmx_start 80 24 LC_ALL=C.UTF-8 TERM=xterm-256color -- "$ATTNVIZ" -m causal "'$KO'"
tmx_expect "ko start" "재미있었다" ""
screen=$(tmx_screen)
cols=$(printf '%s\n' "$screen" | grep ' 1\.000  ' | while IFS= read -r l; do
    printf '%s' "${l%% 1.000  *}" | LC_ALL=C.UTF-8 wc -L; done | sort -u | wc -l)
[ "$cols" -eq 1 ] && pass || fail "Korean rows: the sum column is not straight"
expect_contains "ko 256 colours" "$(tmx_screen_e)" "48;5;"
tmx send-keys q
tmx_stop

# --- NO_COLOR: no colour at all, shade glyphs instead
tmx_start 80 24 LC_ALL=C.UTF-8 TERM=xterm-256color NO_COLOR=1 -- "$ATTNVIZ" -m causal "'$EN'"
tmx_expect "no_color start" "mask=causal" ""
scr=$(tmx_screen_e)
case $scr in *"[38;5"*|*"[48;5"*|*"[4"[0-7]m*|*";4"[0-7]m*) fail "NO_COLOR: colours found";; *) pass;; esac
expect_contains "no_color shades" "$(tmx_screen)" "█"
tmx send-keys q
tmx_expect "no_color quit" "EXITED rc=0" ""
tmx_stop

# --- TERM=xterm: 8 colours
tmx_start 80 24 LC_ALL=C.UTF-8 TERM=xterm -- "$ATTNVIZ" "'$EN'"
tmx_expect "xterm start" "d_model=64" ""
scr=$(tmx_screen_e)
case $scr in *"[38;5"*|*"[48;5"*) fail "TERM=xterm: 256-colour codes used";; *) pass;; esac
case $scr in *"4"[0-7]"m"*|*"4"[0-7]";"*) pass;; *) fail "TERM=xterm: no 8-colour background";; esac
tmx send-keys q
tmx_stop

# --- LC_ALL=C: still readable; Korean labels, ASCII glyphs
tmx_start 80 24 LC_ALL=C TERM=xterm-256color -- "$ATTNVIZ" "'$KO'"
tmx_expect "C locale start" "d_model=64" ""
tmx_expect "C locale Korean" "영화를" ""
tmx_expect "C locale ASCII glyphs" "sum" ""
tmx send-keys q
tmx_expect "C locale quit" "EXITED rc=0" ""
tmx_stop

# --- escape sequences in the sentence never reach the terminal
tmx_start 80 24 LC_ALL=C.UTF-8 TERM=xterm-256color -- "$ATTNVIZ" --pattern "'\\S+'" "\"\$(printf 'a\\033]0;pwned\\007 b\\033[2J c')\""
tmx_expect "escape start" "d_model=64" ""
title=$(tmx display-message -p '#{pane_title}')
expect_not_contains "pane title untouched" "$title" "pwned"
tmx_expect "shown escaped" 'a\x1B]0;pwned' ""
tmx send-keys q
tmx_stop

# --- signals restore the terminal
for sig in INT TERM HUP; do
    tmx_start 80 24 LC_ALL=C.UTF-8 -- "$ATTNVIZ" --seed 777 "'$EN'"
    tmx_expect "signal $sig start" "seed=777" ""
    pid=$(pgrep -P "$(tmx display-message -p '#{pane_pid}')" -x attnviz)
    [ -n "$pid" ] && kill -"$sig" "$pid"
    tmx_expect "SIG$sig exits" "EXITED rc=" ""
    expect_not_contains "SIG$sig restores" "$(tmx_screen)" "seed=777"
    tmx_stop
done

# --- the terminal goes away (the server is killed under the app): attnviz
# must end by itself, also built with the sanitizers, whose exit-time leak
# check used to wait forever for the SIGCONT the pane's shell sends after
# SIGHUP (issue 10). Five times: it was about four runs in six.
for run in 1 2 3 4 5; do
    tmx_start 80 24 LC_ALL=C.UTF-8 -- "$ATTNVIZ" --seed 777 "'$EN'"
    tmx_expect "hangup $run: start" "seed=777" ""
    sock=$TMUX_SOCK
    tmx kill-server 2>/dev/null
    i=0
    while [ $i -lt 100 ] && [ -n "$(e2e_alive $(e2e_pids ATTNVIZ_E2E_SERVER "$sock"))" ]; do
        sleep 0.1; i=$((i + 1))
    done
    left=$(e2e_alive $(e2e_pids ATTNVIZ_E2E_SERVER "$sock"))
    if [ -z "$left" ]; then pass; else
        fail "hangup $run: still running 10 s after the terminal went away:"
        e2e_describe $left
        e2e_end 2 $left >/dev/null
    fi
done

# --- a resize or a signal that comes while a frame is computed is not lost
# (additive scores on 200 tokens: a recompute takes a few hundred ms). The
# app must redraw at the new size by itself, with no further key.
awk 'BEGIN { for (i = 0; i < 200; i++) printf "w%d ", i % 97; print "" }' >"$TMP/slow.txt"
tmx_start 80 24 LC_ALL=C.UTF-8 -- "$ATTNVIZ" -f "$TMP/slow.txt" --score additive -H 4 --d-model 256
tmx_expect "slow start" "d_model=256" ""
tmx send-keys r
sleep 0.1
tmx resize-window -x 200 -y 50
tmx resize-window -x 100 -y 30
i=0
while [ $i -lt 100 ]; do
    case $(tmx_line 29) in *"q quit"*) break ;; esac
    sleep 0.05; i=$((i + 1))
done
case $(tmx_line 29) in *"q quit"*) pass ;; *) fail "resize during a recompute: not redrawn at 100x30"; tmx_screen ;; esac
tmx send-keys r
sleep 0.1
pid=$(pgrep -P "$(tmx display-message -p '#{pane_pid}')" -x attnviz)
[ -n "$pid" ] && kill -TERM "$pid"
tmx_expect "SIGTERM during a recompute exits" "EXITED rc=143" ""
tmx_stop

# --- the sentence from standard input, keys from the terminal
tmx_start 80 24 LC_ALL=C.UTF-8 -- "printf 'hello world' |" "$ATTNVIZ" -f -
tmx_expect "-f -: interactive" "2 tokens, words" ""
tmx_expect "-f -: starts causal" "mask=causal" ""
tmx_expect "-f -: keys work" "mask=window" m
tmx_expect "-f -: quit" "EXITED rc=0" q
tmx_stop

# --- a terminal that cannot address the cursor is refused, not garbled
tmx_start 80 24 LC_ALL=C.UTF-8 -- TERM=dumb "$ATTNVIZ"
tmx_expect "TERM=dumb refused" "cannot move the cursor; use --once or --dump" ""
tmx_expect "TERM=dumb exit status" "EXITED rc=1" ""
tmx_stop

finish
