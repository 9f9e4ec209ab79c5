#!/bin/sh
# End-to-end: projector mode (issue 16): --present and B. Bigger cells,
# bold numbers, no inspector or key hints under the map, and a lesson's step
# title in large type (half blocks) where the screen is big enough; B again
# gives the full chrome back. At 80x24 the caption is normal type, the
# cells twice as tall and wider than without it; at 64x20 (too small
# otherwise) the heatmap fits whole.
. tests/support/lib.sh

S="I saw a movie yesterday"
tmx_start 160 48 LC_ALL=C.UTF-8 -- "$ATTNVIZ" --color=never --present "'$S'"
tmx_wait "d_model=64" || fail "present: no screen"
out=$(tmx_screen)
expect_not_contains "present: no key hints" "$out" "q quit"
expect_not_contains "present: no inspector" "$out" "raw q·k"
# cells of 20 columns: "1.00" then 16 more columns before the next cell
echo "$out" | grep -q "^I .*1\.00" && pass || fail "present: no first row"
w=$(echo "$out" | awk '/^saw /{ a = index($0, "0."); b = index(substr($0, a + 1), "0."); print b; exit }')
[ "${w:-0}" -ge 12 ] && pass || fail "present: cells not bigger (next value $w columns on)"
tmx_expect "B: the full chrome" "q quit" B
tmx_expect "B again: projector" "projector mode: B again" B
tmx_stop

# 80x24: clearly bigger than without it: cells of 6 columns and 2 rows (5 x 1
# without), no row statistics, no info line, one line under the map; the
# title names the cursor's cell (there is no inspector).
S10="I saw a movie yesterday and the movie was fun"
tmx_start 80 24 LC_ALL=C.UTF-8 -- "$ATTNVIZ" --color=never --present "'$S10'"
tmx_wait "d_model=64" || fail "present 80x24: no screen"
scr=$(tmx_screen)
expect_contains "80x24: the title names the cursor's cell" "$(tmx_line 1)" "head 1/4  weights  I → I"
expect_contains "80x24: the header on the info line's row" "$(tmx_line 2)" "0I    1saw  2a    3movi"
expect_not_contains "80x24: no row statistics" "$scr" "bits"
expect_not_contains "80x24: no info line" "$scr" "score=scaled"
# (without colours a cell's shade fills its rows: █ for 1.00, blank for .11)
expect_contains "80x24: two rows a cell" "$(tmx_line 3)" "I         █1.00   ·     ·"
[ "$(tmx_line 4)" = "          █████" ] && pass || fail "80x24: the cell's second row: [$(tmx_line 4)]"
expect_contains "80x24: the next row under it" "$(tmx_line 5)" "saw        0.11 █0.89   ·"
expect_contains "80x24: every row, the last at row 21" "$(tmx_line 21)" "fun        0.09  0.19  0.05  0.09 ░0.25"
expect_contains "80x24: the legend on the last line" "$(tmx_line 23)" "0    ░ .25 ░░▒▒ .5 ▒▒▓▓ .75 ▓███ 1  · masked: weight 0"
expect_not_contains "80x24: no flag without the row statistics" "$(tmx_line 23)" "all masked"
tmx_expect "80x24: the cursor named" "head 1/4  weights  saw → I" Down
tmx_expect "80x24: B: the full chrome" "q quit" B
tmx_wait "saw        .11 █.89" || fail "80x24: B: cells of one row again: $(tmx_line 6)"
tmx_stop

# 64x20: below 80x24 the heatmap still fits in projector mode (the whole
# map of 10 tokens, numbers, legend); without it the screen is too small; a
# view that needs 80x24 says so and how to get back.
tmx_start 64 20 LC_ALL=C.UTF-8 -- "$ATTNVIZ" --color=never "'$S10'"
tmx_wait "too small" || fail "64x20: no message"
expect_contains "64x20 without B: too small" "$(tmx_screen)" "need 80x24, have 64x20"
tmx_expect "64x20: B fits" "head 1/4  weights  I → I" B
tmx_wait "fun        .09" || fail "64x20: the map not drawn whole"
scr=$(tmx_screen)
expect_not_contains "64x20: not too small now" "$scr" "too small"
for w in I saw a movie yesterday and the was fun; do
    printf '%s\n' "$scr" | grep -q "^$w " && pass || fail "64x20: no row $w"
done
expect_contains "64x20: the last row's numbers" "$scr" "fun        .09  .19  .05  .09 ░.25  .05  .10  .09  .04  .05"
expect_contains "64x20: the legend" "$scr" "0    ░ .25 ░░▒▒ .5 ▒▒▓▓ .75 ▓███ 1  · masked: weight 0"
tmx_expect "64x20: a needs 80x24" "q: the heatmap, which fits here in projector mode" a
tmx_expect "64x20: q back" "head 1/4  weights" q
tmx_stop
tmx_start 64 20 LC_ALL=C.UTF-8 -- "$ATTNVIZ" --color=never --present "'나는 어제 친구와 영화를 봤는데, 그 영화는 정말 재미있었다'"
tmx_wait "d_model=64" || fail "64x20 Korean: no screen"
expect_contains "64x20 Korean: position labels" "$(tmx_line 2)" "0나  1어  2친  3영  4봤  5,   6그  7영  8정  9재"
tmx_expect "64x20 Korean: the cursor's full tokens in the title" "head 1/4  weights  영화는 → 영화를" Down Down Down Down Down Down Down Right Right Right
tmx_stop

tmx_start 160 48 LC_ALL=C.UTF-8 -- "$ATTNVIZ" --color=never --present --lesson 1
tmx_wait "From a sentence to attention weights" || fail "present lesson: no caption"
n=$(tmx_screen | grep -c "███")
[ "$n" -ge 3 ] && pass || fail "present lesson: no large type ($n rows of blocks)"
tmx_stop
tmx_start 80 24 LC_ALL=C.UTF-8 -- "$ATTNVIZ" --color=never --present --lesson 1
tmx_wait "From a sentence" || fail "present lesson 80x24: no caption"
n=$(tmx_screen | grep -c "███")
[ "$n" = 0 ] && pass || fail "present lesson 80x24: large type does not fit there"
tmx_stop
finish
