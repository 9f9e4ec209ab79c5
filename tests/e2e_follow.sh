#!/bin/sh
# End-to-end: a class (issue 16) in one tmux server. A teacher (--publish) and
# three followers (--follow) of three sizes, each in its own window: a change
# at the teacher (m, Tab, s) reaches every follower (the time is printed; the
# 200 ms figure is `make bench`'s, here the limit is generous for the
# sanitizer build); a follower detaches with a key and follows again with F;
# a lesson's caption and step go with the state, and a Q/K/V file's matrices;
# the teacher quitting leaves the followers usable and removes the socket, a
# new teacher is followed again; SIGTERM removes the socket too; the socket's
# mode (0600 by default, --publish-mode); a path that is a file or a live
# socket is refused (exit 2, one line); a hostile stream (a python3 listener
# writing garbage blocks) is refused line by line and the follower keeps its
# state and its keys.
. tests/support/lib.sh
peer_need "tmux (apt-get install tmux)" command -v tmux || { finish; exit; }

SOCK=$TMP/class
EN="the cat sat on the mat"
ENVS="LC_ALL=C.UTF-8 TERM=xterm-256color"

# Window W of the one server: its screen, a wait for a text (10 s), an expectation.
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
# window W running attnviz ARGS (after it ends the pane says EXITED and stays)
window() { # index args...
    w=$1; shift
    tmx new-window -d -t "0:$w" "env $ENVS $ATTNVIZ --color=never $* ; echo EXITED rc=\$?; sleep 600"
}
app_pid() { pgrep -P "$(tmx display-message -p -t "0:$1" '#{pane_pid}')" | head -1; }
now_ms() { date +%s%3N; }
LIMIT_MS=3000 # per follower, generous: ASan, a loaded machine

# reach NAME TEXT KEY: sends KEY to the teacher, then polls the three
# followers in turn until TEXT is on each; prints the times, fails past LIMIT_MS.
reach() {
    name=$1 text=$2 key=$3
    t0=$(now_ms)
    tmx send-keys -t 0:0 "$key"
    d1="" d2="" d3=""
    while :; do
        for w in 1 2 3; do
            eval "got=\$d$w"
            [ -n "$got" ] && continue
            case $(scr $w) in *"$text"*) eval "d$w=$(($(now_ms) - t0))" ;; esac
        done
        [ -n "$d1" ] && [ -n "$d2" ] && [ -n "$d3" ] && break
        [ $(($(now_ms) - t0)) -gt 10000 ] && break
    done
    echo "follow: $name ($text) on the followers after ${d1:-never} ${d2:-never} ${d3:-never} ms"
    for w in 1 2 3; do
        eval "got=\$d$w"
        if [ -n "$got" ] && [ "$got" -le $LIMIT_MS ]; then pass
        else fail "$name: follower $w: [$text] after ${got:-never} ms (limit $LIMIT_MS):"; scr $w; fi
    done
}

# ---------------------------------------------------------------- a teacher, three followers
tmx_start 100 30 $ENVS -- "$ATTNVIZ" --color=never --publish "$SOCK" "'$EN'"
tmx_expect "teacher starts" "publishing: attnviz --follow $SOCK"
expect_contains "socket file" "$(ls -l "$SOCK" 2>&1)" "srw-------"
[ "$(stat -c %a "$SOCK")" = 600 ] && pass || fail "socket mode: $(stat -c %a "$SOCK"), expected 600"
window 1 --follow "$SOCK"
window 2 --follow "$SOCK"
window 3 --follow "$SOCK"
tmx resize-window -t 0:1 -x 80 -y 24
tmx resize-window -t 0:2 -x 120 -y 40
tmx resize-window -t 0:3 -x 90 -y 26
for w in 1 2 3; do
    expect_in "follower $w connects" $w "following the teacher (any key: explore alone; F: follow again)"
    expect_in "follower $w has the sentence" $w "6 tokens, words"
    expect_in "follower $w has the state" $w "mask=causal scale=on"
done
expect_contains "F in the hints" "$(scr 1)" "F follow"
expect_contains "follower 2 at its own size" "$(tmx display-message -p -t 0:2 '#{window_width}x#{window_height}')" "120x40"

reach "m" "mask=window:3" m
reach "Tab" "head 2/4" Tab
reach "s" "scale=off" s

# ---------------------------------------------------------------- detach, F
tmx send-keys -t 0:1 j
expect_in "a key detaches" 1 "detached: F follows again"
tmx send-keys -t 0:0 s
expect_in "others follow" 2 "scale=on"
expect_in "others follow" 3 "scale=on"
expect_contains "the detached one explores on its own" "$(scr 1)" "scale=off"
tmx send-keys -t 0:1 F
expect_in "F follows again" 1 "following the teacher again"
expect_in "F: the teacher's state at once" 1 "scale=on"

# ---------------------------------------------------------------- a second teacher on the same path
out=$("$ATTNVIZ" --publish "$SOCK" </dev/null 2>&1 >/dev/null); rc=$?
expect_rc "live socket refused" 2 $rc
expect_contains "live socket refused" "$out" "listens there"
[ "$(printf '%s\n' "$out" | wc -l)" = 1 ] && pass || fail "live socket: not one line: $out"

# ---------------------------------------------------------------- the teacher quits
tmx send-keys -t 0:0 q
expect_in "teacher quits" 0 "EXITED rc=0"
for w in 1 2 3; do expect_in "follower $w is told" $w "the teacher's attnviz ended"; done
[ ! -e "$SOCK" ] && pass || fail "the socket outlived the teacher"
tmx send-keys -t 0:2 s
expect_in "a follower stays usable" 2 "scale=off"
expect_in "and is detached" 2 "detached: F follows again"
# A new teacher: the followers that still follow connect again (every second).
tmx respawn-window -k -t 0:0 "env $ENVS $ATTNVIZ --color=never --publish $SOCK 'dogs chase cats' ; echo EXITED rc=\$?; sleep 600"
expect_in "follower 1 finds the new teacher" 1 "3 tokens, words"
expect_in "follower 3 finds the new teacher" 3 "3 tokens, words"
expect_contains "the detached follower does not" "$(scr 2)" "6 tokens, words"
tmx send-keys -t 0:2 F
expect_in "until F" 2 "3 tokens, words"

# ---------------------------------------------------------------- SIGTERM removes the socket
pid=$(app_pid 0)
if [ -n "$pid" ]; then
    kill -TERM "$pid"
    expect_in "SIGTERM ends the teacher" 0 "EXITED rc=143"
    [ ! -e "$SOCK" ] && pass || fail "SIGTERM: the socket is still there"
    expect_in "follower told after SIGTERM" 1 "the teacher's attnviz ended"
else
    fail "no pid for the teacher"
fi

# ---------------------------------------------------------------- a lesson's caption and step
cat >"$TMP/lesson.txt" <<'EOF'
title: Following
== First
The caption of the first step.
> mask none
== Second
The caption of the second step.
> mask causal
EOF
tmx respawn-window -k -t 0:0 "env $ENVS $ATTNVIZ --color=never --lesson $TMP/lesson.txt --publish $SOCK '$EN' ; echo EXITED rc=\$?; sleep 600"
expect_in "lesson teacher" 0 "Following 1/2: First"
expect_in "the caption follows" 3 "Following 1/2: First"
expect_in "its text" 3 "The caption of the first step."
expect_not_contains "no lesson keys at the follower" "$(scr 3)" "Space next"
tmx send-keys -t 0:0 Space
expect_in "the next step follows" 3 "Following 2/2: Second"
expect_in "its text" 3 "The caption of the second step."
expect_in "its state" 3 "mask=causal"
tmx send-keys -t 0:0 L
expect_in "the teacher leaves the lesson" 0 "left the lesson"
i=0
while [ $i -lt 100 ] && scr 3 | grep -q "Following 2/2"; do sleep 0.05; i=$((i + 1)); done
expect_not_contains "no caption then" "$(scr 3)" "Following 2/2"
tmx send-keys -t 0:0 q
expect_in "lesson teacher quits" 0 "EXITED rc=0"

# ---------------------------------------------------------------- a teacher on a Q/K/V file
# The matrices go with the state: the follower needs no file.
tmx respawn-window -k -t 0:0 "env $ENVS $ATTNVIZ --color=never --qkv $(pwd)/samples/worked-example.qkv --publish $SOCK ; echo EXITED rc=\$?; sleep 600"
expect_in "qkv teacher" 0 "3 x 3 from file"
expect_in "the follower has its matrices" 3 "3 x 3 from file"
expect_in "and its shape" 3 "d_model=- heads=1 d_k=3"
tmx send-keys -t 0:0 q
expect_in "qkv teacher quits" 0 "EXITED rc=0"

# ---------------------------------------------------------------- modes
for mode in 0660 0666; do
    window 5 --publish "$TMP/m$mode" --publish-mode $mode
    expect_in "mode $mode" 5 "publishing: attnviz --follow $TMP/m$mode"
    want=${mode#0}
    [ "$(stat -c %a "$TMP/m$mode" 2>&1)" = "$want" ] && pass || fail "mode $mode: $(stat -c %a "$TMP/m$mode" 2>&1)"
    tmx send-keys -t 0:5 q
    expect_in "mode $mode quits" 5 "EXITED rc=0"
    tmx kill-window -t 0:5
done

# ---------------------------------------------------------------- paths refused (no terminal needed)
printf 'keep me\n' >"$TMP/file"
out=$("$ATTNVIZ" --publish "$TMP/file" 2>&1 >/dev/null); rc=$?
expect_rc "a regular file" 2 $rc
expect_contains "a regular file" "$out" "attnviz: --publish: $TMP/file exists and is not a socket"
[ "$(printf '%s\n' "$out" | wc -l)" = 1 ] && pass || fail "a regular file: not one line: $out"
[ "$(cat "$TMP/file")" = "keep me" ] && pass || fail "the file was touched"
out=$("$ATTNVIZ" --publish-mode 0644x --publish "$TMP/x" 2>&1); rc=$?
expect_rc "a bad mode" 2 $rc
expect_contains "a bad mode" "$out" "--publish-mode: '0644x' is not an octal mode"
out=$("$ATTNVIZ" --publish-mode 0066 --publish "$TMP/x" 2>&1); rc=$?
expect_rc "a mode without the owner" 2 $rc
out=$("$ATTNVIZ" --follow "$SOCK" --once 2>&1); rc=$?
expect_rc "--follow --once" 2 $rc
expect_contains "--follow --once" "$out" "goes with the interactive view"
out=$("$ATTNVIZ" --follow "$SOCK" --publish "$TMP/y" 2>&1); rc=$?
expect_rc "--follow --publish" 2 $rc

# ---------------------------------------------------------------- a hostile stream
PY=/usr/bin/python3
if need_python; then
    cat >"$TMP/hostile.py" <<'EOF'
# Listens at argv[1]; for each line of standard input, writes that payload.
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1])
s.listen(1)
c, _ = s.accept()
payloads = {
    "rm": b"attnviz-state 1\nhead 2\nrm -rf /\nend\n",
    "key": b"attnviz-state 1\nkey quit\nend\n",
    "ctrl": b"attnviz-state 1\nsentence \"\x1b]2;pwned\x07\x1b[2J\"\nend\n",
    "utf8": b"attnviz-state 1\nsentence \"\xff\xfe\"\nend\n",
    "http": b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
    "big": b"attnviz-state 1\nsentence \"" + b"a" * 10_000_000 + b"\"\nend\n",
    "good": b"attnviz-state 1\nsentence \"valid after all that\"\nend\n",
}
for line in sys.stdin:
    c.sendall(payloads[line.strip()])
c.close()
EOF
    HS=$TMP/hostile
    mkfifo "$TMP/ctl"
    "$PY" "$TMP/hostile.py" "$HS" <"$TMP/ctl" &
    HPID=$!
    exec 3>"$TMP/ctl"
    i=0
    while [ ! -S "$HS" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
    window 6 --follow "$HS" "'$EN'"
    tmx resize-window -t 0:6 -x 100 -y 30
    expect_in "connects to the listener" 6 "following the teacher (any key: explore alone"
    hostile() { # name payload message
        echo "$2" >&3
        expect_in "hostile $1" 6 "$3"
    }
    hostile "unknown command" rm "teacher's state ignored — line 3: unknown command 'rm'"
    expect_contains "hostile: the state kept" "$(scr 6)" "head 1/4"
    hostile "key quit" key "teacher's state ignored — line 2: key runs an action: not part of a state"
    hostile "control bytes" ctrl "line 2: a control character (U+001B) at byte 11"
    expect_not_contains "hostile: no title set" "$(tmx display-message -p -t 0:6 '#{pane_title}')" "pwned"
    hostile "invalid UTF-8" utf8 "line 2: invalid UTF-8 at byte 11"
    hostile "not the format" http "line 1: expected \"attnviz-state 1\""
    hostile "a 10 MB line" big "line 2: longer than 4194368 bytes"
    expect_contains "hostile: still the sentence" "$(scr 6)" "6 tokens, words"
    expect_not_contains "hostile: still running" "$(scr 6)" "EXITED"
    hostile "a valid block still applies" good "4 tokens, words"
    tmx send-keys -t 0:6 s
    expect_in "hostile: keys still work" 6 "scale=off"
    exec 3>&-
    expect_in "hostile: its end" 6 "the teacher's attnviz ended"
    wait "$HPID" 2>/dev/null
fi

finish
