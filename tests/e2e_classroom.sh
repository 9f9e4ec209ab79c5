#!/bin/sh
# End-to-end: the classroom fixes of issue 13 that a test can see through the
# real binary in tmux.
. tests/support/lib.sh
peer_need "tmux (apt-get install tmux)" command -v tmux || { finish; exit; }

EN="the cat sat on the mat"

# Item 18: q in the pipeline, all heads or gravity goes back to the heatmap;
# q from the heatmap quits (as less and htop users expect); Esc goes back too.
tmx_start 80 24 LC_ALL=C.UTF-8 TERM=xterm-256color -- "$ATTNVIZ" "'$EN'"
tmx_expect "start" "head 1/4  weights" ""
for key in c a g; do
    tmx send-keys "$key"
    case $key in
    c) tmx_expect "$key opens the pipeline" "the whole chain" "" ;;
    a) tmx_expect "$key opens all heads" "all 4 heads" "" ;;
    g) tmx_expect "$key opens gravity" "gravity" "" ;;
    esac
    tmx_expect "q in view $key: back to the heatmap" "head 1/4  weights" q
    expect_not_contains "q in view $key: still running" "$(tmx_screen)" "EXITED"
    tmx send-keys "$key"
    sleep 0.2
    tmx_expect "Esc in view $key: back to the heatmap" "head 1/4  weights" Escape
done
tmx_expect "q from the heatmap quits" "EXITED rc=0" q

finish
