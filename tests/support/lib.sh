# lib.sh - helpers of the end-to-end shell tests (sourced).
: "${ATTNVIZ:=./attnviz}"
case $ATTNVIZ in /*) ;; *) ATTNVIZ=$(pwd)/$ATTNVIZ ;; esac
TMP=$(mktemp -d /tmp/attnviz-test.XXXXXX)
FAILS=0
PASSES=0
trap 'rm -rf "$TMP"' EXIT
# Every process of this run carries ATTNVIZ_E2E_RUN (run-e2e.sh sets one id
# for the whole suite; a script run alone makes its own), so that what
# survives a script can be found by its environment and ended by pid.
: "${ATTNVIZ_E2E_RUN:=e2e-$$-$(date +%s)}"
export ATTNVIZ_E2E_RUN

pass() { PASSES=$((PASSES + 1)); }
fail() { FAILS=$((FAILS + 1)); echo "FAIL: $*"; }
expect_rc() { [ "$2" = "$3" ] && pass || fail "$1: exit status $3, expected $2"; }
expect_contains() { # name haystack needle
    case $2 in *"$3"*) pass ;; *) fail "$1: expected to find [$3] in:"; printf '%s\n' "$2" | head -20 ;; esac
}
expect_not_contains() {
    case $2 in *"$3"*) fail "$1: did not expect [$3] in:"; printf '%s\n' "$2" | head -20 ;; *) pass ;; esac
}
finish() {
    echo "$PASSES passed, $FAILS failed"
    [ "$FAILS" = 0 ]
}

# --- what a test needs from outside attnviz: a model, a program, a package
# Outside CI a missing one prints one "skipped: WHAT" line and the test goes
# on without it; under CI (CI set, not "false") the same words fail the test:
# CI has all of it (.ci/run installs the peers, shared/ has the models).
under_ci() { [ -n "${CI:-}" ] && [ "$CI" != false ]; }
missing() { # words
    if under_ci; then fail "missing under CI: $1"; else echo "skipped: $1"; fi
}
# model_need FILE...: MODEL is the absolute path of the first FILE and
# MODELS its folder, from $ATTNVIZ_MODELS (only there when it is set), else
# ../shared/models or ../../shared/models (a worktree); returns 1 after
# `missing` when one of the files is not there.
model_need() {
    for d in ${ATTNVIZ_MODELS:-../shared/models ../../shared/models}; do
        ok=1
        for f in "$@"; do [ -r "$d/$f" ] || ok=0; done
        if [ $ok = 1 ]; then
            MODELS=$(cd "$d" && pwd)
            MODEL=$MODELS/$1
            return 0
        fi
    done
    missing "$* not found in ${ATTNVIZ_MODELS:-../shared/models}"
    return 1
}
# peer_need WHAT CHECK...: 0 when the command CHECK succeeds (the peer is
# there), else 1 after `missing "WHAT not found"`.
peer_need() {
    what=$1
    shift
    "$@" >/dev/null 2>&1 && return 0
    missing "$what not found"
    return 1
}
# The peers most scripts ask for.
need_numpy() { peer_need "/usr/bin/python3 with numpy (apt-get install python3-numpy)" /usr/bin/python3 -c 'import numpy'; }
need_python() { peer_need "/usr/bin/python3 (apt-get install python3)" test -x /usr/bin/python3; }

# --- processes of this run
# e2e_pids VAR VALUE: the pids whose environment holds VAR=VALUE, but the
# caller and its ancestors (which carry ATTNVIZ_E2E_RUN themselves). The scan
# runs without the tags, so that it does not find itself; zombies have no
# environment left and are not listed (their parent reaps them).
E2E_SCAN='
skip=" "; p=$PPID
while [ -n "$p" ] && [ "$p" -gt 1 ] 2>/dev/null; do
    skip="$skip$p "
    p=$(sed "s/.*) //" "/proc/$p/stat" 2>/dev/null | cut -d" " -f2)
done
for f in $(grep -l -s -z -x -F "$1=$2" /proc/[0-9]*/environ); do
    pid=${f#/proc/}; pid=${pid%/environ}
    case $skip in *" $pid "*) ;; *) echo "$pid" ;; esac
done'
e2e_pids() { env -u ATTNVIZ_E2E_RUN -u ATTNVIZ_E2E_SERVER sh -c "$E2E_SCAN" e2e-scan "$1" "$2"; }
# One line per pid: pid, state, command line (for the failure message).
e2e_describe() {
    for pid in "$@"; do
        [ -r "/proc/$pid/cmdline" ] || continue
        st=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f1)
        echo "  pid $pid ($st): $(tr '\0' ' ' <"/proc/$pid/cmdline" | cut -c1-150)"
    done
}
# e2e_alive PID...: those of the pids still running (not gone, not zombies).
e2e_alive() {
    for pid in "$@"; do
        st=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f1)
        [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ] && echo "$pid"
    done
}
# e2e_end SECONDS PID...: SIGTERM, then SIGKILL to whatever still runs after
# SECONDS. Prints the pids that needed SIGKILL (nothing when all ended).
e2e_end() {
    limit=$(($1 * 10)); shift
    [ $# -gt 0 ] || return 0
    kill -TERM "$@" 2>/dev/null
    i=0
    while [ $i -lt $limit ] && [ -n "$(e2e_alive "$@")" ]; do sleep 0.1; i=$((i + 1)); done
    left=$(e2e_alive "$@")
    [ -n "$left" ] || return 0
    echo "$left"
    kill -KILL $left 2>/dev/null
}
# Fails when a process of this run is still running (the caller's ancestry
# aside), then ends it. Gives the processes a moment first: a tmux server
# that was just told to go is still on its way out.
e2e_check_leftovers() { # where
    i=0
    while [ $i -lt 30 ]; do
        left=$(e2e_alive $(e2e_pids ATTNVIZ_E2E_RUN "$ATTNVIZ_E2E_RUN"))
        [ -n "$left" ] || return 0
        sleep 0.1; i=$((i + 1))
    done
    fail "$1: processes of this run still running:"
    e2e_describe $left
    e2e_end 2 $left >/dev/null
    return 1
}

# --- a private tmux server per test (STYLE.md recipe)
# Each tmx_start gets a server of its own: a server that is still shutting
# down must never take the next test's session with it.
TMUX_N=0
TMUX_SOCK="attnviz-e2e-$$-0"
tmx() { tmux -L "$TMUX_SOCK" -f /dev/null "$@"; }
# tmx_start W H [VAR=value ...] -- command...   (the command runs in sh under
# env, as tmux sets TERM itself; after it ends the pane prints "EXITED rc=N"
# and stays, like a shell prompt would). The server and everything in it
# carry ATTNVIZ_E2E_SERVER=<socket name>, which tmx_stop ends by pid.
tmx_start() {
    w=$1 h=$2; shift 2
    envs=""
    while [ "$1" != "--" ]; do envs="$envs $1"; shift; done
    shift
    tmx_stop
    TMUX_N=$((TMUX_N + 1))
    TMUX_SOCK="attnviz-e2e-$$-$TMUX_N"
    ATTNVIZ_E2E_SERVER=$TMUX_SOCK tmx -u new-session -d -x "$w" -y "$h" \
        "env $envs $* ; echo EXITED rc=\$?; sleep 600"
}
tmx_screen() { tmx capture-pane -p 2>/dev/null; }
tmx_screen_e() { tmx capture-pane -p -e 2>/dev/null; }
tmx_line() { tmx capture-pane -p | sed -n "$(($1 + 1))p"; }
# Waits (at most 5 s) until the screen contains the text.
tmx_wait() {
    i=0
    while [ $i -lt 100 ]; do
        case $(tmx_screen) in *"$1"*) return 0 ;; esac
        sleep 0.05; i=$((i + 1))
    done
    return 1
}
# Sends keys and waits for the screen to contain the expected text.
tmx_expect() { # name text keys...
    name=$1 text=$2; shift 2
    [ $# -gt 0 ] && tmx send-keys "$@"
    if tmx_wait "$text"; then pass; else fail "$name: [$text] not on screen:"; tmx_screen; fi
}
# Ends the test's processes, then the server. The app gets SIGTERM while its
# terminal is still there (a clean exit, with the sanitizers' leak check) and
# must be gone within 10 s; then SIGKILL, and the test fails. Killing the
# server first instead hung ASan builds: the hangup makes the pane's shell
# send SIGHUP and SIGCONT to the app, and a SIGCONT that comes during
# LeakSanitizer's exit check leaves it waiting forever (this file's history,
# issue 10). The pane's shell and the server go last (their hangup is
# harmless once the app is gone).
tmx_stop() {
    server=$(e2e_pids ATTNVIZ_E2E_SERVER "$TMUX_SOCK")
    [ -n "$server" ] || return 0
    pane=$(tmx display-message -p '#{pane_pid}' 2>/dev/null)
    spid=$(tmx display-message -p '#{pid}' 2>/dev/null)
    apps=""
    for pid in $server; do [ "$pid" = "$pane" ] || [ "$pid" = "$spid" ] || apps="$apps $pid"; done
    killed=$(e2e_end 10 $apps)
    if [ -n "$killed" ]; then
        fail "tmx_stop: still running 10 s after SIGTERM (then SIGKILL): "$killed
    fi
    tmx kill-server 2>/dev/null
    killed=$(e2e_end 5 $(e2e_pids ATTNVIZ_E2E_SERVER "$TMUX_SOCK"))
    [ -z "$killed" ] || fail "tmx_stop: the tmux server's processes outlived kill-server: "$killed
}
# At the end of every script: its servers are stopped and none of its
# processes survives; either failure fails the script.
e2e_exit() {
    rc=$?
    tmx_stop
    e2e_check_leftovers "$0" || rc=1
    [ "$FAILS" = 0 ] || rc=1
    rm -rf "$TMP"
    exit $rc
}
trap e2e_exit EXIT
