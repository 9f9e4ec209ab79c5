#!/bin/sh
# End-to-end: the head census (issue 12) through the real binary. In tmux at
# 80x24 on stories260K and "Lily saw a cat. Lily": H opens the census, sorted
# by ind@text (the weight after an earlier copy on your text: not the field's
# induction score, which e2e_heads tests) its top row is a head of the last
# layer, Enter opens it (the
# status line, the title, and the heatmap's last row heaviest on ▁saw); the
# same with NO_COLOR and TERM=xterm; --once --view census for the seeded model
# (any source: one layer), with and without colour; cross-attention refused.
# Without ../shared/models the seeded part still runs.
. tests/support/lib.sh

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# ---- the seeded model: one layer, random heads, headless
out=$("$ATTNVIZ" --once --width 80 --color=never --view census "the cat sat on the mat")
expect_rc "seeded census" 0 $?
expect_contains "seeded title" "$out" "head census, 4 heads by layer"
expect_contains "seeded heading" "$out" "layer↓ head  prev"
expect_contains "seeded first row selected" "$out" ">   1/1   1/4  "
expect_contains "seeded last row" "$out" "    1/1   4/4  "
expect_contains "seeded repeat (the ... the)" "$out" "ind@text: 1 row with an earlier copy of its token"
out=$("$ATTNVIZ" --once --width 80 --color=never --view census "the cat sat")
expect_contains "no repeat: induction undefined" "$out" "ind@text —: no token of this sentence repeats"
[ "$(printf '%s\n' "$out" | grep -c '  —  ')" = 4 ] && pass || fail "no repeat: every head's ind@text is —: $out"
out=$("$ATTNVIZ" --once --width 80 --ascii --color=never --view census "the cat sat")
expect_contains "ascii: sort mark and undefined" "$out" "layerv head"
expect_not_contains "ascii: no em dash" "$out" "—"
# Colour: the numbers on the weights' ramp; NO_COLOR: none, still readable.
out=$(TERM=xterm-256color "$ATTNVIZ" --once --width 80 --color=always --view census "the cat sat on the mat")
expect_contains "colour: ramp backgrounds" "$out" "48;5;"
out=$(NO_COLOR=1 "$ATTNVIZ" --once --width 80 --view census "the cat sat on the mat")
case $out in *"$(printf '\033')"*) fail "NO_COLOR: escape sequences in --once" ;; *) pass ;; esac
expect_contains "NO_COLOR: the rows" "$out" ">   1/1   1/4  "
out=$("$ATTNVIZ" --once --width 80 --color=never --view census --target "le chat" --attn cross "the cat")
expect_contains "cross refused" "$out" "census needs self-attention"
err=$("$ATTNVIZ" --once --view nosuch 2>&1 >/dev/null)
expect_contains "--view lists census" "$err" "gravity, census, classes, zoom or lens"

model_need stories260K.bin tok512.bin || { finish; exit; }
M=$MODELS
S="Lily saw a cat. Lily"

# ---- --once: all 40 heads, no line past 80 columns
"$ATTNVIZ" --once --width 80 --color=never --view census --model "$MODEL" "$S" >"$TMP/once"
expect_rc "model census --once" 0 $?
[ "$(grep -c '^[ >]   [1-5]/5   [1-8]/8  ' "$TMP/once")" = 40 ] && pass || fail "--once: not 40 head rows"
long=$(LC_ALL=C.UTF-8 sed 's/./x/g' "$TMP/once" | awk 'length($0) > 80')
[ -z "$long" ] && pass || fail "--once: lines past 80 columns: $long"

# The heatmap's last row: its largest weight is on the third key (▁saw):
# the first 8 numbers of the last ▁Lily row (glyphs and masks are not numbers).
last_row_argmax() {
    tmx_screen | grep '^▁Lily ' | tail -1 |
        awk '{ k = 0; for (f = 2; f <= NF && k < 8; f++) if ($f ~ /^[0-9.]+$/) { k++; if (k == 1 || $f + 0 > best) { best = $f + 0; at = k } } print at }'
}

# ---- in tmux, 80x24: find the head that copies on this sentence and open it
census_run() { # run env...  (not $name: tmx_expect sets that)
    run=$1; shift
    tmx_start 80 24 LC_ALL=C.UTF-8 "$@" -- "$ATTNVIZ" --model "$MODEL" "\"$S\""
    tmx_wait "model=stories260K" || fail "$run: no screen"
    tmx_expect "$run: census" "head census, 40 heads by layer" H
    tmx_expect "$run: 13 rows of 40" "rows 1-13 of 40"
    tmx_expect "$run: sorted by ind@text" "40 heads by ind@text, largest first" Left Left
    top=$(tmx_line 6)
    layer=$(printf '%s\n' "$top" | awk '{print $2}') head=$(printf '%s\n' "$top" | awk '{print $3}')
    [ "$layer" = "5/5" ] && pass || fail "$run: the top ind@text head is not in the last layer: [$top]"
    case $top in ">"*) pass ;; *) fail "$run: the top row is not selected: [$top]" ;; esac
    tmx_expect "$run: the status line" "layer=5/5" Enter
    tmx_expect "$run: the title" "layer 5/5  head $head  weights"
    tmx_expect "$run: the inspector on ▁saw" "▁Lily[7] → ▁saw[2]"
    [ "$(last_row_argmax)" = 3 ] && pass || fail "$run: the last row's largest weight is not on ▁saw: $(tmx_screen)"
    # Back: the sort stays, the selection follows the head shown (Tab: the next one).
    tmx_expect "$run: back in the census" "40 heads by ind@text" Tab H
    sel=$(tmx_screen | grep '^>')
    case $sel in *"5/5   "*) pass ;; *) fail "$run: the selection did not follow the head shown: [$sel]" ;; esac
    tmx_expect "$run: Esc to the heatmap" "weights A = softmax" Escape
    tmx_expect "$run: c from the census" "the whole chain" H c
    tmx_stop
}
census_run "colour"
census_run "NO_COLOR xterm" NO_COLOR=1 TERM=xterm

# Scrolling: End selects the 40th row, and the screen shows it.
tmx_start 80 24 LC_ALL=C.UTF-8 -- "$ATTNVIZ" --model "$MODEL" "\"$S\""
tmx_wait "model=stories260K" || fail "scroll: no screen"
tmx_expect "scroll: End" "rows 28-40 of 40" H End
tmx_expect "scroll: the last head selected" ">   5/5   8/8"
tmx_expect "scroll: Home" "rows 1-13 of 40" Home
tmx_stop

# The help lists the key and the view.
tmx_start 100 130 LC_ALL=C.UTF-8 -- "$ATTNVIZ" --color=never --model "$MODEL" "\"$S\""
tmx_wait "model=stories260K" || fail "help: no screen"
tmx_expect "help lists H" "head census: the field's head tests on batteries, and scores on your text" '?'
tmx_expect "help lists the view" "Every layer and head scored on this sentence."
tmx_stop
finish
