#!/bin/sh
# End-to-end: the Home/End/Insert/Delete/PgUp/PgDn sequences of PuTTY, rxvt,
# the Linux console and screen (ESC [ 1 ~, ESC [ 4 ~, ESC [ 7 ~, ...) are
# keys whatever TERM's terminfo says (issue 13, item 5). Sent raw into the
# pane under TERM=xterm-256color, whose terminfo has other strings for Home
# and End: before, End was Esc + '4' (the fourth head) and Home closed the
# sentence prompt with its text lost.
. tests/support/lib.sh
peer_need "tmux (apt-get install tmux)" command -v tmux || { finish; exit; }

raw() { tmx send-keys -l "$(printf "$1")"; }

EN="the cat sat on the mat"
for seq in '\033[4~' '\033[8~' '\033[F' '\033OF'; do
    tmx_start 80 24 LC_ALL=C.UTF-8 TERM=xterm-256color -- "$ATTNVIZ" "'$EN'"
    tmx_expect "start ($seq)" "head 1/4" ""
    raw "$seq"
    tmx_expect "End $seq: the last cell" "mat[5] → mat[5]" ""
    expect_contains "End $seq: still head 1" "$(tmx_screen)" "head 1/4"
    raw '\033[1~'
    tmx_expect "Home after End $seq" "the[0] → the[0]" ""
done

# Home and End inside the sentence prompt move the edit cursor; the prompt
# stays open and keeps the text.
for home in '\033[1~' '\033[7~' '\033[H' '\033OH'; do
    tmx_start 80 24 LC_ALL=C.UTF-8 TERM=xterm-256color -- "$ATTNVIZ" "'$EN'"
    tmx_expect "start prompt ($home)" "head 1/4" ""
    tmx send-keys e
    tmx_expect "prompt open ($home)" "the cat sat on the mat" ""
    raw "$home"
    tmx send-keys -l "big "
    raw '\033[4~'
    tmx send-keys -l " now"
    tmx send-keys Enter
    tmx_expect "Home $home in the prompt: text kept, edited at both ends" "big[0]" ""
    expect_contains "End in the prompt ($home)" "$(tmx_screen)" "now"
done

# Delete deletes under the cursor; Insert is swallowed whole (not Esc + 2 ~).
tmx_start 80 24 LC_ALL=C.UTF-8 TERM=xterm-256color -- "$ATTNVIZ" "'$EN'"
tmx_expect "start delete" "head 1/4" ""
tmx send-keys e
tmx_expect "prompt open (delete)" "the cat sat on the mat" ""
raw '\033[1~\033[3~\033[3~\033[3~\033[3~\033[2~'
tmx send-keys Enter
tmx_expect "Delete x4 in the prompt" "cat[0]" ""
expect_contains "Insert: the sentence has no '2~'" "$(tmx_screen)" "head 1/4"
expect_not_contains "Insert left nothing behind" "$(tmx_screen)" "2~"

# PgDn / PgUp of the Linux console style with a long sentence: a page down.
LONG="one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty"
tmx_start 80 24 LC_ALL=C.UTF-8 TERM=xterm-256color -- "$ATTNVIZ" "'$LONG'"
tmx_expect "start page" "head 1/4" ""
expect_contains "page: the cursor starts on row 0" "$(tmx_screen)" "one[0] → one[0]"
raw '\033[6~'
i=0
while [ $i -lt 100 ] && case $(tmx_screen) in *"one[0] → one[0]"*) true ;; *) false ;; esac; do
    sleep 0.05; i=$((i + 1))
done
expect_not_contains "PgDn: the cursor left row 0" "$(tmx_screen)" "one[0] → one[0]"
expect_contains "PgDn: head unchanged" "$(tmx_screen)" "head 1/4"
raw '\033[5~'
tmx_expect "PgUp: back to the first row" "one[0] → one[0]" ""

# A character whose bytes come in two reads: "a" and the first two bytes of
# 가 (EA B0 80), then its last byte a moment later. ncurses' get_wch, called
# without waiting for the rest, dropped the two bytes and then read the
# lone 80 as an error (a long paste of Korean lost a syllable at every cut
# of the terminal's writes). Typed, and inside a bracketed paste.
for how in typed pasted; do
    tmx_start 80 24 LC_ALL=C.UTF-8 TERM=xterm-256color -- "$ATTNVIZ" "'$EN'"
    tmx_expect "start split ($how)" "head 1/4" ""
    tmx send-keys e C-u
    tmx_expect "prompt open (split, $how)" "sentence:" ""
    [ $how = pasted ] && tmx send-keys -H 1b 5b 32 30 30 7e
    tmx send-keys -H 61 ea b0
    sleep 0.4
    tmx send-keys -H 80 62
    [ $how = pasted ] && tmx send-keys -H 1b 5b 32 30 31 7e
    tmx send-keys Enter
    tmx_expect "a character split between reads ($how) is whole" "a가b[0] → a가b[0]" ""
done

finish
