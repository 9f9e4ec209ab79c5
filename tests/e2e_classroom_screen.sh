#!/bin/sh
# End-to-end: what a class sees on the screen, through the real binary in
# tmux: prompts whose offered value typing replaces, the cell page saying how
# much of a vector it leaves out, the seeded screens saying their weights are
# random (and w for the trained model), the colours of the ramps on dark and
# light backgrounds, and the max column in one format.
. tests/support/lib.sh
command -v tmux >/dev/null || { echo "SKIP: tmux not installed"; exit 0; }

EN="the cat sat on the mat"

# --- prompts: the offered value is selected; the first key typed replaces it
tmx_start 80 24 LC_ALL=C.UTF-8 TERM=xterm-256color -- "$ATTNVIZ" "'$EN'"
tmx_expect "start" "d_k=16" ""
tmx_expect "d: the prompt offers d_k" "d_k (1..4096): 16" d
tmx_expect "d 8 Enter: d_k is 8, not 168" "d_k=8 " 8 Enter
expect_not_contains "d 8 Enter: not appended" "$(tmx_line 0)" "d_k=168"
# An editing key keeps the value: End, then 4 appends (d_k 8 -> 84).
tmx_expect "d End 4 Enter: appended" "d_k=84 " d End 4 Enter
# Backspace edits it: 84 -> 8 -> 82.
tmx_expect "d BSpace 2 Enter: edited" "d_k=82 " d BSpace 2 Enter
# e: typing replaces the sentence.
tmx_expect "e: the prompt offers the sentence" "sentence: $EN" e
tmx send-keys -l "dogs bark"
tmx_expect "e: typed text replaces the sentence" "2 tokens" Enter
# P: typing replaces the offered file name.
tmx_expect "P: the prompt offers a name" "picture (.svg .png .html): attnviz-head1-weights.svg" P
tmx send-keys -l "$TMP/mine.svg"
tmx_expect "P: the typed name is the file" "wrote $TMP/mine.svg" Enter
[ -s "$TMP/mine.svg" ] && pass || fail "P: $TMP/mine.svg not written"
tmx_stop

finish
