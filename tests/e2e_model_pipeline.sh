#!/bin/sh
# End-to-end: a trained model's pipeline view (c) and cell page (Enter) in
# tmux (issue 12): the real chain of the layer shown, block by block with its
# shape, page by page at 80x24 and 200x50, no line running past the screen's
# edge; } shows the next layer's chain; Enter on a cell shows its q and k
# before and after RoPE. Without ../shared/models: one "skipped" line.
. tests/support/lib.sh

model_need stories260K.bin tok512.bin || { finish; exit; }
M=$MODELS

# Lines of the screen that reach its last column W (tmux drops trailing
# blanks), but the page's own "lines i-j of n" mark at the right edge.
edge_lines() { # W
    tmx_screen | LC_ALL=C.UTF-8 sed -n "/^.\{$1\}/p" | grep -v ' lines [0-9]*-[0-9]* of [0-9]*'
}

# Pages down through the document until text is on screen (at most 40
# pages), checking every page on the way for lines cut at column W.
page_to() { # name text W
    i=0
    while [ $i -lt 40 ]; do
        long=$(edge_lines "$3")
        [ -z "$long" ] || { fail "$1: a line runs to column $3: $long"; return; }
        case $(tmx_screen) in *"$2"*) pass; return ;; esac
        tmx send-keys NPage
        sleep 0.1
        i=$((i + 1))
    done
    fail "$1: [$2] not found paging down:"
    tmx_screen
}

CHAIN='x: the input of layer 1  (8, 64)
xb = RMSNorm(x) · g  (8, 64)
Q = xb W_qᵀ  (8, 64)
K = xb W_kᵀ  (8, 32)
V = xb W_vᵀ  (8, 32)
q, head 1, before RoPE  (8, 8)
k, kv head 1, before RoPE  (8, 8)
RoPE angle i·10000^(-2p/8), pair p  (8, 4)
q = RoPE(q), head 1  (8, 8)
k = RoPE(k), kv head 1  (8, 8)
v, kv head 1  (8, 8)
S = QKᵀ  (8, 8)
S'"'"' = S ÷ √8  (8, 8)
M = mask(S'"'"'), causal  (8, 8)
A = softmax(M)  (8, 8)
O = A V  (8, 8)
concat(O_1..O_8)  (8, 64)
att W_oᵀ  (8, 64)
mid = x + att W_oᵀ  (8, 64)
xb2 = RMSNorm(mid) · g  (8, 64)
h = silu(W_1 xb2) ⊙ W_3 xb2  (8, 172)
FFN = W_2 h  (8, 64)
x = mid + FFN: the input of layer 2  (8, 64)'

for size in "80 24" "200 50"; do
    set -- $size
    W=$1 H=$2
    tmx_start "$W" "$H" LC_ALL=C.UTF-8 -- "$ATTNVIZ" --color=never --model "$MODEL" "Lily saw a cat. Lily"
    tmx_wait "model=stories260K" || fail "${W}x$H: no screen"
    tmx_expect "${W}x$H: c shows the chain" "layer 1/5  head 1/8  the whole chain" c
    case $(tmx_screen) in *"cols 1+"*) fail "${W}x$H: the chain scrolls sideways" ;; *) pass ;; esac
    while IFS= read -r title; do # (a here-document: the counts stay in this shell)
        page_to "${W}x$H: $title" "$title" "$W"
    done <<EOF
$CHAIN
EOF
    # } : the next layer's chain, from its top
    tmx_expect "${W}x$H: } shows layer 2" "x: the input of layer 2  (8, 64)" Home '}'
    tmx_expect "${W}x$H: its title" "layer 2/5  head 1/8  the whole chain"
    page_to "${W}x$H: layer 2 ends in layer 3's input" "x = mid + FFN: the input of layer 3  (8, 64)" "$W"
    tmx_stop
done

# Enter on a cell of the heatmap: query 5 (at) -> key 2 (▁saw) of head 1.
tmx_start 80 24 LC_ALL=C.UTF-8 -- "$ATTNVIZ" --color=never --model "$MODEL" "Lily saw a cat. Lily"
tmx_wait "model=stories260K" || fail "cell: no screen"
tmx send-keys Down Down Down Down Down Right Right
tmx_expect "cell: q before RoPE" "q_5 before RoPE" Enter
tmx_expect "cell: the rotation" "RoPE, position 5: pair p turns by the angle 5·θ_p, θ_p = 10000^(−2p/8)"
tmx_expect "cell: pair 1" "  p 1  θ 0.100000  angle   0.5000  (  7.150,  -2.198) → (  7.328,   1.499)"
tmx_expect "cell: q after RoPE" "q_5 after RoPE"
tmx_expect "cell: k before RoPE" "k_2 before RoPE"
tmx_expect "cell: k's rotation" "RoPE, position 2: pair p turns by the angle 2·θ_p"
tmx_expect "cell: k after RoPE" "k_2 after RoPE"
long=$(edge_lines 80)
[ -z "$long" ] && pass || fail "cell: a line runs to column 80: $long"
tmx_expect "cell: the weight at the end" "weight        " End
long=$(edge_lines 80)
[ -z "$long" ] && pass || fail "cell, end: a line runs to column 80: $long"
tmx_stop

# ASCII glyphs: the same lines without θ, → or ᵀ.
tmx_start 80 24 LC_ALL=C.UTF-8 -- "$ATTNVIZ" --color=never --ascii --model "$MODEL" "Lily saw a cat. Lily"
tmx_wait "model=stories260K" || fail "ascii: no screen"
tmx_expect "ascii: RMSNorm" "xb = RMSNorm(x) * g  (8, 64)" c NPage
page_to "ascii: Q" "Q = xb W_q^T  (8, 64)" 80
tmx_expect "ascii: the cell's rotation" "turns by the angle 0*t_p, t_p = 10000^(-2p/8)" c Enter
tmx_stop
finish
