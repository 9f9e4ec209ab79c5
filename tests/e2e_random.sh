#!/bin/sh
# End-to-end: thousands of random keys (prompts included) and random resizes
# between 20x6 and 250x70 sent to the real binary in tmux. After every batch
# attnviz must be alive and answer; at the end q must quit cleanly with the
# terminal restored. The sequence is pseudo-random with a fixed seed, so a
# failure can be replayed (RANDOM_SEED, RANDOM_BATCHES, RANDOM_KEYS).
. tests/support/lib.sh
peer_need "tmux (apt-get install tmux)" command -v tmux || { finish; exit; }

SEED=${RANDOM_SEED:-20261129}
BATCHES=${RANDOM_BATCHES:-100}
PER_BATCH=${RANDOM_KEYS:-100}

# tmux key names, weighted by repetition: navigation and views often, keys
# that change the model less often (w loads the trained model when one is
# found); never q (quit), C-c, C-z or C-\.
KEYS="Up Up Down Down Left Left Right Right h j k l Tab BTab Home End PPage NPage Enter Enter Escape Escape
a a c c v v m m s s r p t w w ? ? 1 2 3 9 + - < > d e BSpace DC C-u C-l Space x y z 7 0 . , 학 교 é"

# Random batches: one line per batch, the keys then the new size.
awk -v seed="$SEED" -v batches="$BATCHES" -v per="$PER_BATCH" -v keys="$KEYS" 'BEGIN {
    srand(seed); n = split(keys, k, /[ \n]+/)
    for (b = 0; b < batches; b++) {
        line = ""
        for (i = 0; i < per; i++) line = line " " k[1 + int(rand() * n)]
        printf "%d %d%s\n", 20 + int(rand() * 231), 6 + int(rand() * 65), line
    }
}' >"$TMP/batches"

tmx_start 80 24 LC_ALL=C.UTF-8 -- "$ATTNVIZ" --d-model 16 -H 2 -k 4 "'나는 학교에 간다 the cat sat'"
tmx_expect "start" "d_model=16" ""
pane_pid=$(tmx display-message -p '#{pane_pid}')
app_pid=$(pgrep -P "$pane_pid" -x attnviz)
[ -n "$app_pid" ] && pass || fail "attnviz is not running"
title0=$(tmx display-message -p '#{pane_title}')

sent=0 resizes=0 b=0
while read -r w h keys; do
    b=$((b + 1))
    # The new size first, so that the keys are handled at that size.
    tmx resize-window -x "$w" -y "$h"
    # shellcheck disable=SC2086
    tmx send-keys $keys
    sent=$((sent + PER_BATCH)); resizes=$((resizes + 1))
    # Responsive: back to a usable size, close any prompt, page or view, then
    # open the help. Input is handled in order, so when the help shows, every
    # key of the batch has been handled. 20 s at most.
    tmx resize-window -x 100 -y 30
    tmx send-keys Escape Escape Escape "?"
    ok=0 i=0
    while [ $i -lt 400 ]; do
        case $(tmx_screen) in *"help  (q, ? or Esc: back"*) ok=1; break ;; esac
        kill -0 "$app_pid" 2>/dev/null || break
        sleep 0.05; i=$((i + 1))
    done
    if ! kill -0 "$app_pid" 2>/dev/null; then
        fail "batch $b: attnviz died (seed $SEED)"; tmx_screen; break
    fi
    [ $ok = 1 ] || { fail "batch $b: no answer within 20 s after ${w}x${h} (seed $SEED)"; tmx_screen; break; }
    tmx send-keys Escape
done <"$TMP/batches"
[ "$sent" -ge $((BATCHES * PER_BATCH)) ] && pass || fail "only $sent keys sent"
echo "sent $sent random keys and $resizes random resizes"

# No input may have changed the pane title (an escape sequence written raw).
title=$(tmx display-message -p '#{pane_title}')
[ "$title" = "$title0" ] && pass || fail "pane title changed: [$title0] -> [$title]"
tmx resize-window -x 80 -y 24
tmx send-keys Escape Escape q
tmx_expect "q quits after the storm" "EXITED rc=0" ""
expect_not_contains "terminal restored" "$(tmx_screen)" "d_model="
tmx_stop
finish
