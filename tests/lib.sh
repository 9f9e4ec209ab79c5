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
