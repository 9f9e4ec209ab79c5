#!/bin/sh
# End-to-end: text that terminals measure differently (zero-width format
# characters, emoji ZWJ sequences, VS16, flags, skin tones) lines up in a real
# tmux, and editing the sentence keeps every byte the user did not touch.
. tests/support/lib.sh

# Display columns of a string as wcwidth counts them (GNU wc -L). Every
# character that reaches the screen has the same width in tmux and wcwidth
# once the ambiguous ones are escaped, so a prefix's width is its column.
cols() { printf '%s\n' "$1" | LC_ALL=C.UTF-8 wc -L; }

# aligned NAME: on the current tmux screen, every row's Σ (1.000 or 0.000)
# starts at the same column, and the header's "sum" ends 4 columns to its
# right; no zero-width format character or VS16 was written raw.
aligned() {
    screen=$(tmx_screen)
    header=$(printf '%s\n' "$screen" | grep -m1 'sum  bits  max')
    if [ -z "$header" ]; then fail "$1: no header line"; printf '%s\n' "$screen"; return; fi
    want=$(($(cols "${header%%sum  bits*}") + 2 - 4))
    rows=$(printf '%s\n' "$screen" | grep -E ' [01]\.000  ')
    [ -n "$rows" ] || fail "$1: no rows"
    bad=0
    while IFS= read -r row; do
        pre=$(printf '%s\n' "$row" | sed -E 's/ [01]\.000  .*//')
        [ "$(($(cols "$pre") + 1))" = "$want" ] || bad=1
    done <<EOF
$rows
EOF
    if [ $bad = 0 ]; then pass; else fail "$1: the Σ column moves (header sum at $((want + 4))):"; printf '%s\n' "$screen"; fi
    # U+200B..U+200D, U+2060, U+FEFF, U+FE0F, U+00AD as UTF-8 bytes
    if printf '%s' "$screen" | LC_ALL=C grep -q "$(printf '\342\200[\213-\215]\|\342\201\240\|\357\273\277\|\357\270\217\|\302\255')"; then
        fail "$1: a zero-width format character reached the screen raw"
    else
        pass
    fi
}

# show NAME FILE W H: attnviz on FILE in a W x H tmux pane, checked aligned.
show() {
    tmx_start "$3" "$4" LC_ALL=C.UTF-8 -- "$ATTNVIZ" --color=never -H 1 -f "$2"
    if tmx_wait "bits  max"; then aligned "$1"; else fail "$1: no heatmap"; tmx_screen; fi
    tmx_stop
}

FAMILY=$(printf '\360\237\221\250\342\200\215\360\237\221\251\342\200\215\360\237\221\247')
ZWJ=$(printf '\342\200\215')
printf 'a %s b c\n' "$ZWJ" >"$TMP/zwj-alone.txt"
printf 'x %s y z\n' "$FAMILY" >"$TMP/family.txt"
# Many tokens: the labels are cut, inside sequences that must stay whole.
printf '%s%s a\342\200\213b \360\237\207\260\360\237\207\267\360\237\207\257\360\237\207\265 \340\244\225\340\244\276 \342\235\244\357\270\217 \360\237\221\215\360\237\217\275 c\357\273\277d e\342\201\240f g\302\255h %s w\n' \
    "$FAMILY" "$FAMILY" "$FAMILY" >"$TMP/many.txt"

for size in "80 24" "120 30" "200 50"; do
    set -- $size
    show "lone ZWJ ${1}x$2" "$TMP/zwj-alone.txt" "$1" "$2"
    show "family emoji ${1}x$2" "$TMP/family.txt" "$1" "$2"
    show "cut labels ${1}x$2" "$TMP/many.txt" "$1" "$2"
done

# The escapes are what the labels show.
tmx_start 80 24 LC_ALL=C.UTF-8 -- "$ATTNVIZ" --color=never -H 1 -f "$TMP/family.txt"
tmx_expect "ZWJ shown escaped" '\u{200D}'
tmx_stop

# --- e then Enter keeps the sentence: NULs and escape sequences included
printf 'one\000two three four five' >"$TMP/nul.txt"
printf 'red \033[31mgreen\033[0m blue\r\nand \033]0;t\007 more words here now' >"$TMP/csi.txt"
for f in nul csi; do
    n=$($ATTNVIZ --dump -f "$TMP/$f.txt" | sed -n 's/^tokens (\([0-9]*\))$/\1/p')
    tmx_start 100 30 LC_ALL=C.UTF-8 -- "$ATTNVIZ" --color=never -H 1 -f "$TMP/$f.txt"
    tmx_expect "$f: $n tokens at start" "$n tokens, words"
    tmx_expect "$f: the prompt opens" 'sentence: ' e
    tmx_expect "$f: Home" 'sentence: ' Home
    case $f in
    nul) tmx_expect "$f: NUL shown escaped in the prompt" 'one\x00two' ;;
    csi) tmx_expect "$f: CSI shown escaped in the prompt" 'red \x1B[31mgreen' ;;
    esac
    tmx send-keys Enter
    i=0
    while [ $i -lt 100 ] && tmx_screen | grep -q "Enter apply"; do sleep 0.05; i=$((i + 1)); done
    tmx_expect "$f: still $n tokens after e Enter" "$n tokens, words"
    line=$(tmx_screen | grep -c "^$n tokens *\$")
    [ "$line" = 1 ] && pass || { fail "$f: no message '$n tokens'"; tmx_screen; }
    tmx_stop
done

finish
