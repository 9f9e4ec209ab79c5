#!/bin/sh
# End-to-end: the layers x heads grid (issue 12, tui/views/grid.c) of stories260K
# through the real binary: --once --view heads prints all of it; in tmux at
# 200x50, a on the model shows the grid (half blocks in colour),
# arrows choose, Enter opens the heatmap of the layer and head chosen;
# NO_COLOR=1 falls back to shade glyphs, TERM=xterm to 8 colours. Without
# ../shared/models: one "skipped" line. Where the thumbnails do not all fit
# (80x24) the view is the class map (tests/e2e_classes.sh).
. tests/support/lib.sh

model_need stories260K.bin tok512.bin || { finish; exit; }
M=$MODELS
S="Lily saw a cat. Lily"

# --once: every layer, the head labels, the kv groups; no page hidden.
out=$("$ATTNVIZ" --color=never --once --view heads --width 80 --model "$MODEL" "$S")
expect_rc "--once --view heads" 0 $?
expect_contains "once: title" "$out" "layer 1/5  5 layers x 8 heads, weights  (arrows choose, Enter opens)  head 1/8"
expect_contains "once: head labels" "$out" "    head 1   head 2   head 3   head 4   head 5   head 6   head 7   head 8"
expect_contains "once: kv groups" "$out" "   ┌───── kv1 ─────┐ ┌───── kv2 ─────┐ ┌───── kv3 ─────┐ ┌───── kv4 ─────┐"
for l in 1 2 3 4 5; do
    [ "$(printf '%s\n' "$out" | grep -c "^L$l")" = 1 ] && pass || fail "once: no row L$l"
done
expect_not_contains "once: nothing hidden" "$out" "layers 1-"
# One query row a line without colours: 5 layers of 8 rows and a blank, under
# the 5 header lines, then the 5 of the legend. The first query sees only <s>:
# a full shade and 7 masked keys, in every head of every layer.
[ "$(printf '%s\n' "$out" | wc -l)" = 55 ] && pass || fail "once: $(printf '%s\n' "$out" | wc -l) lines, not 55"
n=$(printf '%s\n' "$out" | grep -c "█·······[ │]█······· █······· █······· █······· █······· █······· █·······")
[ "$n" = 5 ] && pass || fail "once: the first row of each layer: $n, not 5"
# The seeded model: its heads side by side, as before.
out=$("$ATTNVIZ" --color=never --once --view heads --width 80 "the cat sat")
expect_contains "seeded: side by side" "$out" "all 4 heads, weights"

# 80x24 cannot hold the 40 thumbnails: a shows the class map (every head as
# its class and sink share, tests/e2e_classes.sh); arrows choose, Enter opens.
tmx_start 80 24 LC_ALL=C.UTF-8 TERM=xterm-256color -- "$ATTNVIZ" --model "'$MODEL'" "'$S'"
tmx_wait "layer=1/5" || fail "80x24: no screen"
tmx_expect "80x24: the class map" "5 layers x 8 heads: each head's class on this text and sink share" a
tmx_wait "L1 H1 " || fail "80x24: the map not drawn whole"
scr=$(tmx_screen)
for l in 1 2 3 4 5; do expect_contains "80x24: L$l" "$scr" "L$l  "; done
expect_not_contains "80x24: no thumbnails" "$scr" "▀"
tmx_expect "80x24: right" "layer 4/5" Down Down Down Right Right Right
tmx_expect "80x24: up" "L3 H4 " Up
tmx_expect "80x24: Enter opens" "layer=3/5" Enter
tmx_expect "80x24: the heatmap of layer 3 head 4" "layer 3/5  head 4/8  weights"
expect_not_contains "80x24: the heatmap, not the map" "$(tmx_screen)" "sink share"
tmx_stop

# 200x50: all of it, in wider cells.
tmx_start 200 50 LC_ALL=C.UTF-8 TERM=xterm-256color -- "$ATTNVIZ" --model "'$MODEL'" "'$S'"
tmx_wait "layer=1/5" || fail "200x50: no screen"
tmx_expect "200x50: the grid" "5 layers x 8 heads, weights  (arrows choose, Enter opens)  head 1/8" a
tmx_wait "L5" || fail "200x50: L5 not drawn"
scr=$(tmx_screen)
for l in 1 2 3 4 5; do expect_contains "200x50: L$l" "$scr" "L$l"; done
expect_not_contains "200x50: nothing hidden" "$scr" "layers 1-"
expect_contains "200x50: two columns a key" "$(tmx_line 6)" "L1│    ▀▀▄▄        │▀▀▀▀▀▀▄▄"
tmx_expect "200x50: PgDn" "layer 5/5  5 layers" PgDn
tmx_expect "200x50: Enter" "layer 5/5  head 1/8  weights" Enter
tmx_stop

# NO_COLOR=1: one query row a line, shade glyphs; no colour codes.
tmx_start 200 60 LC_ALL=C.UTF-8 TERM=xterm-256color NO_COLOR=1 -- "$ATTNVIZ" --model "'$MODEL'" "'$S'"
tmx_wait "layer=1/5" || fail "NO_COLOR: no screen"
tmx_expect "NO_COLOR: the grid" "5 layers x 8 heads, weights" a
tmx_wait "L5" || fail "NO_COLOR: L5 not drawn"
scr=$(tmx_screen)
expect_not_contains "NO_COLOR: no half blocks" "$scr" "▀"
expect_contains "NO_COLOR: shades, masked" "$(tmx_line 5)" "│█ · · · · · · · │"
expect_contains "NO_COLOR: every layer" "$scr" "L5"
case $(tmx_screen_e) in *"[38;5"*|*"[48;5"*|*"[4"[0-7]"m"*) fail "NO_COLOR: colour codes" ;; *) pass ;; esac
tmx_stop

# TERM=xterm: 8 colours still read, in half blocks of the basic colours.
tmx_start 200 50 LC_ALL=C.UTF-8 TERM=xterm -- "$ATTNVIZ" --model "'$MODEL'" "'$S'"
tmx_wait "layer=1/5" || fail "TERM=xterm: no screen"
tmx_expect "TERM=xterm: the grid" "5 layers x 8 heads, weights" a
tmx_wait "L5" || fail "TERM=xterm: L5 not drawn"
scr=$(tmx_screen_e)
case $scr in *"[38;5"*|*"[48;5"*) fail "TERM=xterm: 256-colour codes used" ;; *) pass ;; esac
case $scr in *"[4"[0-7]"m▀"*|*"[4"[0-7]";"*"m▀"*) pass ;; *) fail "TERM=xterm: no half block on an 8-colour background" ;; esac
tmx_stop
finish
