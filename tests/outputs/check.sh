#!/bin/sh
# check.sh - runs every case of tests/outputs/cases.txt against $ATTNVIZ and
# compares stdout, stderr and the exit status byte for byte with
# tests/outputs/expected/. Issue 11 restructures the code "with no change of
# behaviour": this is the record of the behaviour it must keep.
#
#   sh tests/outputs/check.sh                   # compare (ATTNVIZ=./attnviz)
#   UPDATE_OUTPUTS=1 sh tests/outputs/check.sh  # rewrite expected/ (review the diff)
#   OUTPUTS_THREADS=2 sh tests/outputs/check.sh # same outputs on 2 threads
#
# Expected files per case NAME: NAME.out (stdout, always), NAME.err (stderr,
# only when not empty) and NAME.rc (exit status, only when not 0): an absent
# .err means "nothing on stderr", an absent .rc means "exit 0", so that the
# common case is one file and a new message or status is a new file in the diff.
#
# Each case line is a name and the arguments, shell-quoted; the arguments are
# expanded with eval, so cases.txt is code: review it like code.
cd "$(dirname "$0")/../.." || exit 1
: "${ATTNVIZ:=./attnviz}"
case $ATTNVIZ in /*) ;; *) ATTNVIZ=$(pwd)/$ATTNVIZ ;; esac
# The binary uses every CPU by default; the outputs are documented the same
# for any thread count, and the record is made on one.
: "${OUTPUTS_THREADS:=1}"
CASES=tests/outputs/cases.txt
EXP=tests/outputs/expected

# A fixed environment: the locale and terminal the expected files were made
# in; COLUMNS and NO_COLOR would change --once's width and colours.
LC_ALL=C.UTF-8
TERM=xterm-256color
export LC_ALL TERM
unset COLUMNS NO_COLOR

TMP=$(mktemp -d /tmp/attnviz-outputs.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT
ESC=$(printf '\033')

PASSES=0
FAILS=0
fail() { FAILS=$((FAILS + 1)); echo "FAIL: $*"; }

# Shows the first lines of a difference, ESC made visible so that a
# --color=always case cannot repaint the terminal the log is read in.
show_diff() { # expected actual
    diff -u "$1" "$2" | sed -n '3,22p' | sed "s/$ESC/\\\\e/g"
}

# Compares file $2 (what the case did) with expected $1, where an absent
# expected file stands for an empty one.
same() { # expected actual
    if [ -e "$1" ]; then cmp -s "$1" "$2"; else [ ! -s "$2" ]; fi
}

: >"$TMP/names"
n=0
while IFS= read -r line || [ -n "$line" ]; do
    n=$((n + 1))
    case $line in '' | '#'*) continue ;; esac
    name=${line%%[ 	]*}
    args=${line#"$name"}
    shown="attnviz $(printf '%s' "$args" | sed 's/^[[:space:]]*//')"
    case $name in *[!A-Za-z0-9._-]* | .*)
        fail "$CASES:$n: bad case name '$name'"; continue ;;
    esac
    if grep -qxF "$name" "$TMP/names"; then fail "$CASES:$n: case '$name' given twice"; continue; fi
    echo "$name" >>"$TMP/names"
    if ! eval "set -- $args" 2>"$TMP/eval"; then
        fail "$CASES:$n: cannot parse the arguments: $(cat "$TMP/eval")"; continue
    fi
    # No terminal on either side; a case that hangs fails instead of
    # holding the suite (60 s: ASan on two loaded cores).
    timeout 60 "$ATTNVIZ" --threads "$OUTPUTS_THREADS" "$@" </dev/null >"$TMP/out" 2>"$TMP/err"
    echo $? >"$TMP/rc"
    [ "$(cat "$TMP/rc")" = 0 ] && : >"$TMP/rc"

    if [ -n "${UPDATE_OUTPUTS:-}" ]; then
        mkdir -p "$EXP"
        cp "$TMP/out" "$EXP/$name.out"
        for s in err rc; do
            if [ -s "$TMP/$s" ]; then cp "$TMP/$s" "$EXP/$name.$s"; else rm -f "$EXP/$name.$s"; fi
        done
        PASSES=$((PASSES + 1))
        continue
    fi

    ok=1
    if [ ! -e "$EXP/$name.out" ]; then
        fail "$name: no $EXP/$name.out (run with UPDATE_OUTPUTS=1)"; continue
    fi
    if ! cmp -s "$EXP/$name.out" "$TMP/out"; then
        ok=0; fail "$name: stdout differs ($shown)"; show_diff "$EXP/$name.out" "$TMP/out"
    fi
    if ! same "$EXP/$name.err" "$TMP/err"; then
        ok=0; fail "$name: stderr differs ($shown)"
        if [ -e "$EXP/$name.err" ]; then show_diff "$EXP/$name.err" "$TMP/err"; else show_diff /dev/null "$TMP/err"; fi
    fi
    if ! same "$EXP/$name.rc" "$TMP/rc"; then
        ok=0
        fail "$name: exit status $(cat "$TMP/rc"; [ -s "$TMP/rc" ] || echo 0), expected $(cat "$EXP/$name.rc" 2>/dev/null || echo 0) ($shown)"
    fi
    [ $ok = 1 ] && PASSES=$((PASSES + 1))
done <"$CASES"

# An expected file whose case is gone would be kept for nothing: removed on
# update, a failure otherwise.
for f in "$EXP"/*; do
    [ -e "$f" ] || continue
    base=${f##*/}
    base=${base%.*}
    grep -qxF "$base" "$TMP/names" && continue
    if [ -n "${UPDATE_OUTPUTS:-}" ]; then rm -f "$f"; else fail "$f: no case '$base' in $CASES"; fi
done

[ -n "${UPDATE_OUTPUTS:-}" ] && echo "rewrote $EXP: review it with git diff"
echo "$PASSES passed, $FAILS failed"
[ "$FAILS" = 0 ]
