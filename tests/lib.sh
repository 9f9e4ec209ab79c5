# lib.sh - helpers of the end-to-end shell tests (sourced).
: "${ATTNVIZ:=./attnviz}"
case $ATTNVIZ in /*) ;; *) ATTNVIZ=$(pwd)/$ATTNVIZ ;; esac
TMP=$(mktemp -d /tmp/attnviz-test.XXXXXX)
FAILS=0
PASSES=0
trap 'rm -rf "$TMP"' EXIT

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

# --- a private tmux server per test (STYLE.md recipe)
# Each tmx_start gets a server of its own: a server that is still shutting
# down must never take the next test's session with it.
TMUX_N=0
TMUX_SOCK="attnviz-e2e-$$-0"
tmx() { tmux -L "$TMUX_SOCK" -f /dev/null "$@"; }
# tmx_start W H [VAR=value ...] -- command...   (the command runs in sh under
# env, as tmux sets TERM itself; after it ends the pane prints "EXITED rc=N"
# and stays, like a shell prompt would)
tmx_start() {
    w=$1 h=$2; shift 2
    envs=""
    while [ "$1" != "--" ]; do envs="$envs $1"; shift; done
    shift
    tmx kill-server 2>/dev/null
    TMUX_N=$((TMUX_N + 1))
    TMUX_SOCK="attnviz-e2e-$$-$TMUX_N"
    tmx -u new-session -d -x "$w" -y "$h" "env $envs $* ; echo EXITED rc=\$?; sleep 600"
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
tmx_stop() { tmx kill-server 2>/dev/null; }
trap 'tmx_stop; rm -rf "$TMP"' EXIT
