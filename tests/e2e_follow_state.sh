#!/bin/sh
# End-to-end: a student follows a teacher's state that is valid only as a
# whole (issue 25): the teacher runs one head on 3000 words (`-H 1 -f`), the
# student starts with 4 heads on its own sentence; 4 heads with 3000 words
# would be too large, so a block checked line by line against the student's
# previous state was refused ("line 3: too large"). The block is one
# configuration now: the student shows heads=1 and the 3000 words. And the
# follow messages fit an 80x24 screen whole (they were cut at 80 columns):
# the teacher's "publishing ... attnviz --follow PATH" and the student's
# "following the teacher (...)", "detached: F follows again".
. tests/support/lib.sh
peer_need "tmux (apt-get install tmux)" command -v tmux || { finish; exit; }

SOCK=/tmp/av-follow-$$ # a path of a usual length (the messages hold it)
trap 'rm -rf "$TMP" "$SOCK"' EXIT
ENVS="LC_ALL=C.UTF-8 TERM=xterm-256color"
awk 'BEGIN { for (i = 0; i < 3000; i++) printf "%s%s", i ? " " : "", (i % 3 == 0 ? "the" : i % 3 == 1 ? "cat" : "sat") }' \
    >"$TMP/words.txt"

scr() { tmx capture-pane -p -t "0:$1" 2>/dev/null; }
wait_in() { # window text
    i=0
    while [ $i -lt 200 ]; do
        case $(scr "$1") in *"$2"*) return 0 ;; esac
        sleep 0.05; i=$((i + 1))
    done
    return 1
}
expect_in() { # name window text
    if wait_in "$2" "$3"; then pass; else fail "$1: [$3] not in window $2:"; scr "$2"; fi
}
# the message line (the one holding TEXT) is whole: no ellipsis, within 80 columns
expect_whole() { # name window text
    line=$(scr "$2" | grep -F -- "$3")
    case $line in
    *"…"*) fail "$1: the message is cut: [$line]" ;;
    "") fail "$1: [$3] not on screen" ;;
    *) pass ;;
    esac
}

tmx_start 80 24 $ENVS -- "$ATTNVIZ" --color=never -H 1 -f "$TMP/words.txt" --publish "$SOCK"
tmx_expect "the teacher publishes" "publishing: attnviz --follow $SOCK (mode 0600: only you)"
expect_whole "the teacher's message fits 80 columns" 0 "publishing: attnviz"
tmx new-window -d -t 0:1 "env $ENVS $ATTNVIZ --color=never --follow $SOCK 'the student'; echo EXITED rc=\$?; sleep 600"
tmx resize-window -t 0:1 -x 80 -y 24
expect_in "the student takes the whole state" 1 "heads=1 d_k=64"
expect_in "with the 3000 words" 1 "3000 tokens"
expect_not_contains "no refusal" "$(scr 1)" "too large"
expect_in "the student is told it follows" 1 "following the teacher (any key: explore alone; F: follow again)"
expect_whole "the student's message fits 80 columns" 1 "following the teacher"
# A key detaches; F follows again: each message whole at 80 columns.
tmx send-keys -t 0:1 j
expect_in "a key detaches" 1 "detached: F follows again"
expect_whole "the detach message fits" 1 "detached: F follows again"
tmx send-keys -t 0:1 F
expect_in "F follows again" 1 "following the teacher again (any key: explore alone)"
expect_whole "the follow-again message fits" 1 "following the teacher again"
# The teacher changes to 4 heads on its sentence's first words: followed too.
tmx send-keys -t 0:0 e C-u 'a dog ran' Enter
tmx send-keys -t 0:0 '>' '>' '>'
expect_in "the teacher's 4 heads on 3 words reach the student" 1 "heads=4"
expect_in "and its 3 words" 1 "3 tokens"
# The teacher quits: the student is told, in 80 columns.
tmx send-keys -t 0:0 q
expect_in "the teacher quits" 0 "EXITED rc=0"
expect_in "the student is told" 1 "the teacher's attnviz ended"
expect_whole "the end message fits" 1 "the teacher's attnviz ended"
tmx_stop
finish
