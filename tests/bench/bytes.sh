#!/bin/sh
# bytes.sh - what attnviz sends to a real terminal (issue 7): the bytes of one
# cursor move (Right), a head switch (Tab), a mask toggle (m) and 5 s idle,
# at 80x24 and 200x50, on the default sentence; whether the idle process woke
# up; and the peak memory (VmHWM) of the interactive app at 80x24.
#
# usage: sh tests/bench/bytes.sh ATTNVIZ
#
# The app runs in a private tmux server (a real pty). Each figure is taken
# with `pipe-pane -o 'cat >> FILE'` opened after the app has drawn and gone
# quiet, the key sent, ~0.5 s waited, the pipe closed and the file measured;
# a fresh file for every figure. Prints
#   bench=bytes size=80x24 term=tmux-256color cursor=N head_switch=N mask_toggle=N idle_5s=N idle_wakeups=N idle_cpu_ticks=N
#   raw=tui_vmhwm kib=N
# or bench=skip lines saying why. A benchmark: never fails on a number.
set -u

A=${1:-./attnviz}
case $A in /*) ;; *) A=$(pwd)/$A ;; esac

if ! command -v tmux >/dev/null 2>&1; then
    echo 'bench=skip what=bytes reason="tmux is not installed (apt-get install tmux)"'
    echo 'bench=skip what=tui_vmhwm reason="tmux is not installed"'
    exit 0
fi
if [ ! -x "$A" ]; then
    echo "bench=skip what=bytes reason=\"no binary at $A\""
    exit 0
fi

TMPD=$(mktemp -d /tmp/attnviz-bytes.XXXXXX)
SOCK="attnviz-bench-$$"
tmx() { tmux -L "$SOCK" -f /dev/null "$@"; }
trap 'tmx kill-server 2>/dev/null; rm -rf "$TMPD"' EXIT
trap 'exit 130' INT TERM

# Waits (at most 5 s) until the screen shows the text.
wait_screen() {
    i=0
    while [ $i -lt 100 ]; do
        case $(tmx capture-pane -p 2>/dev/null) in *"$1"*) return 0 ;; esac
        sleep 0.05
        i=$((i + 1))
    done
    return 1
}

# Bytes the pane sends while the keys are handled (no keys: while idle for
# $WAIT seconds). A new file each time: nothing carries over.
N=0
WAIT=0.5
measure() {
    N=$((N + 1))
    f="$TMPD/m$N.out"
    : >"$f"
    tmx pipe-pane -o "cat >> '$f'"
    [ $# -gt 0 ] && tmx send-keys "$@"
    sleep "$WAIT"
    tmx pipe-pane # closes the pipe; cat sees EOF and exits
    sleep 0.1
    wc -c <"$f" | tr -d ' '
}

# CPU ticks (utime + stime) and context switches summed over every thread.
proc_ticks() { awk '{ s += $14 + $15 } END { print s + 0 }' /proc/"$1"/task/*/stat 2>/dev/null; }
proc_switches() {
    cat /proc/"$1"/task/*/status 2>/dev/null |
        awk '/^(voluntary|nonvoluntary)_ctxt_switches:/ { s += $2 } END { print s + 0 }'
}

run_size() { # W H
    w=$1 h=$2
    tmx kill-server 2>/dev/null
    if ! tmx -u new-session -d -s bench -x "$w" -y "$h" -e LC_ALL=C.UTF-8 "exec '$A'" 2>"$TMPD/err"; then
        echo "bench=skip what=bytes size=${w}x$h reason=\"tmux new-session failed: $(head -c 200 "$TMPD/err")\""
        return
    fi
    if ! wait_screen "d_model="; then
        echo "bench=skip what=bytes size=${w}x$h reason=\"attnviz did not draw its status line within 5 s\""
        return
    fi
    sleep 0.5 # the first frame fully out
    pid=$(tmx display -p -t bench '#{pane_pid}')
    term=$(tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | sed -n 's/^TERM=//p')
    [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = attnviz ] || pid=""

    WAIT=0.5
    cursor=$(measure Right)
    head_switch=$(measure Tab)
    mask_toggle=$(measure m)

    WAIT=5
    t0="" c0="" t1="" c1=""
    if [ -n "$pid" ]; then t0=$(proc_ticks "$pid"); c0=$(proc_switches "$pid"); fi
    idle=$(measure)
    if [ -n "$pid" ]; then t1=$(proc_ticks "$pid"); c1=$(proc_switches "$pid"); fi
    if [ -n "$pid" ]; then
        wake="idle_wakeups=$((c1 - c0)) idle_cpu_ticks=$((t1 - t0))"
    else
        wake='idle_wakeups=unknown idle_cpu_ticks=unknown'
    fi
    echo "bench=bytes size=${w}x$h term=${term:-unknown} cursor=$cursor head_switch=$head_switch mask_toggle=$mask_toggle idle_5s=$idle $wake"

    # Peak memory of the interactive app (the default size), read before quitting.
    if [ "$w" = 80 ] && [ -n "$pid" ]; then
        hwm=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$pid/status")
        echo "raw=tui_vmhwm kib=${hwm:-unknown}"
    fi
    tmx send-keys q
    i=0
    while [ $i -lt 40 ] && [ -n "$pid" ] && [ -d "/proc/$pid" ]; do
        sleep 0.05
        i=$((i + 1))
    done
    tmx kill-server 2>/dev/null
}

run_size 80 24
run_size 200 50
