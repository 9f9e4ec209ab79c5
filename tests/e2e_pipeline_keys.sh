#!/bin/sh
# End-to-end: the pipeline view's keys and its query side in the real TUI at
# 80x24 (issue 13 items 8 and 17), in 256 colours, with NO_COLOR=1 and with
# TERM=xterm: [ and ] put the previous or next stage at the top of the page
# and the footer names it; -> scrolls the columns while the block's title
# and token labels stay; cross-attention shows the target's tokens, ids, E
# and X, and Q = X_target W_Q; causal-self attention on a target shows the
# target's chain; a trained model's chain (when ../shared/models has
# stories260K) jumps the same way. No line runs to the last column but the
# footer.
. tests/support/lib.sh
peer_need "tmux (apt-get install tmux)" command -v tmux || { finish; exit; }

TOP=3 FOOT=21 # rows (0-based) of the page's first line and of its footer at 80x24

# Waits (at most 5 s) until row N of the screen starts with the text.
row_starts() { # name row text keys...
    name=$1 n=$2 text=$3; shift 3
    [ $# -gt 0 ] && tmx send-keys "$@"
    i=0
    while [ $i -lt 100 ]; do
        case $(tmx_line "$n") in "$text"*) pass; return ;; esac
        sleep 0.05; i=$((i + 1))
    done
    fail "$name: row $n is [$(tmx_line "$n")], expected it to start with [$text]"
    tmx_screen
}

# No line reaches column 80 but the footer (its mark is right-aligned).
nothing_cut() { # name
    long=$(tmx_screen | LC_ALL=C.UTF-8 sed -n '/^.\{80\}/p' | grep -v ' lines [0-9]*-[0-9]* of [0-9]*')
    [ -z "$long" ] && pass || fail "$1: a line runs to column 80: $long"
}

for envs in "TERM=tmux-256color" "NO_COLOR=1" "TERM=xterm"; do
    # shellcheck disable=SC2086
    tmx_start 80 24 LC_ALL=C.UTF-8 $envs -- "$ATTNVIZ" --target "'le chat le dort'" --attn cross "'the cat sleeps'"
    tmx_expect "$envs cross: start" "attn=cross" ""
    row_starts "$envs cross: c" $TOP "sentence tokens → ids  (3)" c
    row_starts "$envs cross: the title names the keys" 1 "head 1/4  the whole chain (Tab: head, [ ]: stage"
    row_starts "$envs cross: the footer" $FOOT " [ ] stage 1/17: sentence tokens → ids  (3)"
    row_starts "$envs cross: ] ]: the target's tokens" $TOP "target tokens → ids  (4)" ']' ']'
    row_starts "$envs cross: le -> 0" $((TOP + 2)) "le               → 0"
    row_starts "$envs cross: chat -> 1" $((TOP + 3)) "chat             → 1"
    row_starts "$envs cross: le again -> 0" $((TOP + 4)) "le               → 0"
    row_starts "$envs cross: dort -> 2" $((TOP + 5)) "dort             → 2"
    row_starts "$envs cross: ]: the target's E" $TOP "E_target = embedding(target ids)  (4, 64)" ']'
    row_starts "$envs cross: its rows" $((TOP + 3)) "chat" ""
    nothing_cut "$envs cross, E_target"
    row_starts "$envs cross: ] x4: Q from the target" $TOP "Q = X_target W_Q  (4, 16)" ']' ']' ']' ']'
    row_starts "$envs cross: the footer names Q" $FOOT " [ ] stage 8/17: Q = X_target W_Q  (4, 16)"
    row_starts "$envs cross: Q's rows are the target's" $((TOP + 2)) "le" ""
    row_starts "$envs cross: ]: K from the sentence" $TOP "K = X W_K  (3, 16)" ']'
    row_starts "$envs cross: K's rows are the sentence's" $((TOP + 2)) "the" ""
    row_starts "$envs cross: [: Q again" $TOP "Q = X_target W_Q  (4, 16)" '['
    # -> : the columns move, the title and the labels stay
    row_starts "$envs cross: -> header" $((TOP + 1)) "<4            4      5" Right
    row_starts "$envs cross: -> title stays" $TOP "Q = X_target W_Q  (4, 16)" ""
    row_starts "$envs cross: -> labels stay" $((TOP + 2)) "le" ""
    row_starts "$envs cross: -> labels stay (2)" $((TOP + 3)) "chat" ""
    tmx_expect "$envs cross: -> the footer says where" "cols 5+" ""
    nothing_cut "$envs cross, Q after ->"
    row_starts "$envs cross: <- back" $((TOP + 1)) "              0      1" Left
    row_starts "$envs cross: Home" $TOP "sentence tokens → ids  (3)" Home
    tmx send-keys q
    tmx_expect "$envs cross: q back to the map" "weights A = softmax" ""
    tmx_stop

    # causal-self attention on a target: the target's chain
    # shellcheck disable=SC2086
    tmx_start 80 24 LC_ALL=C.UTF-8 $envs -- "$ATTNVIZ" --attn causal-self --target "'le chat dort'" "'the cat sleeps'"
    tmx_expect "$envs causal-self: start" "attn=causal-self" ""
    row_starts "$envs causal-self: c" $TOP "target tokens → ids  (3)" c
    row_starts "$envs causal-self: ]: E_target" $TOP "E_target = embedding(target ids)  (3, 64)" ']'
    row_starts "$envs causal-self: ] x5: K" $TOP "K = X_target W_K  (3, 16)" ']' ']' ']' ']' ']'
    row_starts "$envs causal-self: K's rows" $((TOP + 2)) "le" ""
    tmx_stop
done

# A trained model's chain
model_need stories260K.bin tok512.bin || { finish; exit; }
M=$MODELS
for envs in "TERM=tmux-256color" "NO_COLOR=1"; do
    # shellcheck disable=SC2086
    tmx_start 80 24 LC_ALL=C.UTF-8 $envs -- "$ATTNVIZ" --model "$M/stories260K.bin" "'Lily saw a cat. Lily'"
    tmx_wait "model=stories260K" || fail "$envs model: no screen"
    row_starts "$envs model: c" $TOP "x: the input of layer 1  (8, 64)" c
    row_starts "$envs model: the footer" $FOOT " [ ] stage 1/23: x: the input of layer 1"
    row_starts "$envs model: ] x3: K" $TOP "K = xb W_kᵀ  (8, 32)" ']' ']' ']'
    row_starts "$envs model: -> header" $((TOP + 1)) "<4            4      5" Right
    row_starts "$envs model: -> labels stay" $((TOP + 2)) "<s>" ""
    row_starts "$envs model: -> labels stay (2)" $((TOP + 3)) "▁Lily" ""
    nothing_cut "$envs model, K after ->"
    row_starts "$envs model: [: Q" $TOP "Q = xb W_qᵀ  (8, 64)" '['
    row_starts "$envs model: ] x9: S" $TOP "S = QKᵀ  (8, 8)" ']' ']' ']' ']' ']' ']' ']' ']' ']'
    row_starts "$envs model: ]: S'" $TOP "S' = S ÷ √8  (8, 8)" ']'
    row_starts "$envs model: ]: M" $TOP "M = mask(S'), causal  (8, 8)" ']'
    row_starts "$envs model: }: layer 2, the same stage" 1 "layer 2/5  head 1/8  the whole chain" '}'
    row_starts "$envs model: Home: layer 2's input" $TOP "x: the input of layer 2  (8, 64)" Home
    tmx_stop
done
finish
