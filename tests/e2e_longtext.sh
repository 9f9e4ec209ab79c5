#!/bin/sh
# End-to-end: long texts (tui/views/zoom.c, tui/views/longtext.c, src/core/model_fit.c)
# through the real binary, on the Korean source texts of ../shared/sources.
# A text past the limits is refused in one line that names --max-tokens and
# the N that fits (exit 2), and --max-tokens N keeps its first N tokens; in
# tmux at 80x24 and 200x50, Z zooms out (blocks of the size that fits, max
# pooling said, each row's words), arrows move a block, / jumps to a token by
# position and by text, Enter opens the heatmap there; a text pasted into e
# past the limits is offered cut (another key: nothing changes; y: kept).
# Without ../shared/sources: one "skipped" line (a failure under CI).
. tests/support/lib.sh

SRC=${ATTNVIZ_SOURCES:-../shared/sources}
[ -r "$SRC/002_dd9f133426795a7b.txt" ] || SRC=../../shared/sources
if [ ! -r "$SRC/002_dd9f133426795a7b.txt" ] || [ ! -r "$SRC/000_1a9bf0141c076182.txt" ]; then
    missing "../shared/sources not found"
    finish
    exit
fi
SRC=$(cd "$SRC" && pwd)
T653=$SRC/002_dd9f133426795a7b.txt   # 653 tokens with the words tokenizer
T4265=$SRC/000_1a9bf0141c076182.txt  # 4265

# The command line: refused with the N that fits and the option; kept with it.
err=$("$ATTNVIZ" --once -f "$T4265" 2>&1 >/dev/null)
expect_rc "4265 tokens refused" 2 $?
expect_contains "the count and the option" "$err" \
    "000_1a9bf0141c076182.txt: 4265 tokens, more than the 2048 that fit d_model=64 heads=4 (heads x tokens x tokens, memory and work): --max-tokens 2048 keeps the first 2048"
[ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && pass || fail "one line: $err"
err=$("$ATTNVIZ" -H 1 --once -f "$T4265" 2>&1 >/dev/null)
expect_contains "one head: 4096 fit" "$err" "4265 tokens, more than the 4096 that fit (4096 tokens at most): --max-tokens 4096 keeps the first 4096"
out=$("$ATTNVIZ" --max-tokens 2048 --once --width 80 -f "$T4265")
expect_rc "--max-tokens 2048" 0 $?
expect_contains "2048 kept" "$out" "2048 tokens, words"
err=$("$ATTNVIZ" --max-tokens 3000 --once -f "$T4265" 2>&1 >/dev/null)
expect_rc "--max-tokens 3000: too many for 4 heads" 2 $?
expect_contains "--max-tokens 3000" "$err" "--max-tokens 3000: more than the 2048 that fit d_model=64 heads=4"
n=$("$ATTNVIZ" --max-tokens 100 --dump=json --d-model 4 -H 1 -f "$T653" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["tokens"]))')
[ "$n" = 100 ] && pass || fail "--max-tokens 100: $n tokens"

# Z at 80x24 and 200x50: every block of the 653 tokens, its words.
for size in 80x24 200x50; do
    w=${size%x*} h=${size#*x}
    b=$([ "$w" = 80 ] && echo 44 || echo 16)
    tmx_start "$w" "$h" LC_ALL=C.UTF-8 TERM=xterm-256color -- "$ATTNVIZ" -f "'$T653'"
    tmx_wait "653 tokens" || fail "$size: no screen"
    tmx_expect "$size: Z zooms out" "zoomed out: 653 tokens in blocks of $b, max of each" Z
    tmx_wait "rows 0-$((b - 1)) x keys" || fail "$size: the view not drawn whole"
    scr=$(tmx_screen)
    expect_contains "$size: the first row: its token and words" "$(tmx_line 4)" "  0 어텐션"
    expect_contains "$size: the pooling said" "$scr" "(max pooling)"
    expect_contains "$size: the cursor's block" "$scr" "rows 0-$((b - 1)) x keys 0-$((b - 1)): largest 1.0 (어텐션[0] → 어텐션[0])"
    last=$(( (652 / b) * b ))
    expect_contains "$size: the last row of blocks" "$scr" "$last "
    tmx_expect "$size: Down Right: a block" "rows $b-$((2 * b - 1)) x keys $b-$((2 * b - 1))" Down Right
    tmx_expect "$size: / 400 Enter" "token 400: " / 4 0 0 Enter
    expect_contains "$size: the row of token 400" "$(tmx_screen)" "rows $(( (400 / b) * b ))-"
    tmx_expect "$size: / a word" "token " / C-u 중력 Enter
    expect_contains "$size: which match" "$(tmx_screen)" " of "
    tmx_expect "$size: Enter: the heatmap" "head 1/4  weights" Enter
    tmx_expect "$size: Z back in" "zoomed out" Z
    tmx_expect "$size: Z again: the heatmap" "head 1/4  weights" Z
    tmx_stop
done

# NO_COLOR: the blocks in shade glyphs, the masked look above the diagonal.
tmx_start 80 24 LC_ALL=C.UTF-8 NO_COLOR=1 -- "$ATTNVIZ" -f "'$T653'"
tmx_wait "653 tokens" || fail "NO_COLOR: no screen"
tmx_expect "NO_COLOR: Z" "zoomed out" Z
expect_contains "NO_COLOR: the first block full, the next masked" "$(tmx_line 4)" "██· ·"
tmx_stop

# A text pasted into e past the limits: offered cut; n: nothing changes; y: kept.
# 21 KB of Korean: the terminal cuts it into writes that end inside a
# syllable, and every syllable must arrive (the count says so).
awk 'BEGIN { for (i = 0; i < 3000; i++) printf "말%d ", i % 500; printf "끝" }' >"$TMP/words.txt"
tmx_start 80 24 LC_ALL=C.UTF-8 -- "$ATTNVIZ" "'나는 학교에 간다'"
tmx_wait "3 tokens" || fail "paste: no screen"
for answer in n y; do
    tmx_expect "paste ($answer): the prompt" "sentence:" e C-u
    tmx load-buffer "$TMP/words.txt"
    tmx paste-buffer -p
    tmx_wait "말499 끝" || fail "paste ($answer): the text's end not in the prompt"
    tmx_expect "paste ($answer): the offer" "3001 tokens, 2048 fit: y keeps the first 2048" Enter
    if [ $answer = n ]; then
        tmx_expect "n: the sentence stays" "the sentence stays as it was" n
        expect_contains "n: 3 tokens still" "$(tmx_screen)" "3 tokens, words"
    else
        tmx_expect "y: the first 2048 kept" "kept the first 2048 of 3001 tokens" y
        expect_contains "y: 2048 tokens" "$(tmx_screen)" "2048 tokens, words"
        tmx_expect "y: the zoomed-out view of them" "zoomed out: 2048 tokens" Z
    fi
done
tmx_stop
finish
