#!/bin/sh
# End-to-end: projector mode (issue 16): --present and B. Bigger cells,
# bold numbers, no inspector or key hints under the map, and a lesson's step
# title in large type (half blocks) where the screen is big enough; B again
# gives the full chrome back. At 80x24 the caption is normal type.
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
