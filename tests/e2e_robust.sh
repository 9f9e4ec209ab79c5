#!/bin/sh
# End-to-end: every kind of bad input gets a clear message (exit 2) or a
# defined result, and nothing from the input reaches the terminal raw.
. tests/support/lib.sh

bad() { # expected-substring args...
    want=$1; shift
    err=$($ATTNVIZ "$@" 2>&1 >/dev/null); rc=$?
    expect_rc "exit 2: $*" 2 $rc
    expect_contains "message: $*" "$err" "$want"
    n=$(printf '%s\n' "$err" | grep -c .)
    [ "$n" -le 2 ] && pass || fail "more than one message line for $*: $err"
    case $err in *"$(printf '\033')"*) fail "raw ESC in the message for $*";; *) pass;; esac
}
# no_raw NAME TEXT: TEXT has no ESC, BEL or C1 control.
no_raw() {
    if printf '%s' "$2" | LC_ALL=C grep -q "$(printf '[\033\007]')"; then fail "$1: raw control character"; else pass; fi
    if printf '%s' "$2" | LC_ALL=C grep -q "$(printf '\302[\200-\237]')"; then fail "$1: raw C1 control"; else pass; fi
}

# --- limits
bad "4097 tokens, more than the 4096 that fit" -H 1 --dump "$(seq 1 4097 | tr '\n' ' ')"
bad "4096 tokens, more than the 2048 that fit d_model=64 heads=4" --dump "$(seq 1 4096 | tr '\n' ' ')"
head -c 1048577 /dev/zero | tr '\0' 'a' >"$TMP/big.txt"
bad "larger than the limit of 1048576 bytes" -f "$TMP/big.txt" --dump
head -c 1048577 /dev/zero | tr '\0' '1' >"$TMP/big.qkv"
bad "larger than the limit of 1048576 bytes" --qkv "$TMP/big.qkv" --dump
bad "heads: 65 is out of range 1..64" -H 65
bad "--d-model: 4097 is out of range 1..4096" --d-model 4097
bad "MiB of weights and stages, the limit is 1024 MiB" -H 64 --d-model 4096 -k 4096 --dump hello
# 4096 tokens fit with one head: the view says so
out=$($ATTNVIZ -H 1 --once --width 100 "$(seq 1 4096 | tr '\n' ' ')"); rc=$?
expect_rc "4096 tokens" 0 $rc
expect_contains "4096 tokens drawn" "$out" "4096 tokens"

# --- text: invalid UTF-8, NUL, controls and escape sequences
bad "invalid UTF-8 at byte offset 3" --dump "$(printf 'abc\377')"
printf 'ok\n\300\200' >"$TMP/overlong.txt"
bad "invalid UTF-8 at byte offset 3" -f "$TMP/overlong.txt" --dump
printf 'a\000b c' >"$TMP/nul.txt"
out=$($ATTNVIZ -f "$TMP/nul.txt" --dump); rc=$?
expect_rc "NUL in a file" 0 $rc
expect_contains "NUL shown escaped" "$out" '\x00'
HOSTILE=$(printf 'x\033]0;pwned\007 y\033[2J z\033P1;2q\033\\ w\302\23331m v\177 u\001')
for fmt in text json csv; do
    out=$($ATTNVIZ --pattern '\S+' --dump=$fmt "$HOSTILE"); rc=$?
    expect_rc "hostile --dump=$fmt" 0 $rc
    no_raw "hostile --dump=$fmt" "$out"
done
out=$($ATTNVIZ --pattern '\S+' --dump "$HOSTILE")
expect_contains "OSC escaped" "$out" 'x\x1B]0;pwned\x07'
expect_contains "C1 escaped" "$out" '\u{009B}31m'
expect_contains "DEL escaped" "$out" 'v\x7F'
for color in never always; do
    out=$($ATTNVIZ --pattern '\S+' --once --color=$color "$HOSTILE")
    # with colour the output has our own SGR sequences: remove them, then look
    stripped=$(printf '%s' "$out" | sed 's/\x1b\[[0-9;]*m//g')
    no_raw "hostile --once --color=$color" "$stripped"
done
printf '%s' "$HOSTILE" >"$TMP/hostile.txt"
err=$($ATTNVIZ -f "$TMP/hostile.txt" --pattern '(' 2>&1)
no_raw "hostile error message" "$err"
err=$($ATTNVIZ -m "$HOSTILE" 2>&1)
no_raw "hostile option value" "$err"
expect_contains "hostile option value escaped" "$err" '\x1B]0;pwned'
err=$($ATTNVIZ -f "$(printf 'no\033[31mfile')" 2>&1)
no_raw "hostile file name" "$err"

# --- zero tokens, one token
out=$($ATTNVIZ --dump "   ,  " -t words); rc=$?
expect_rc "punctuation only" 0 $rc
expect_contains "punctuation is a token" "$out" "tokens (1)"
out=$($ATTNVIZ --dump "    "); rc=$?
expect_rc "spaces only" 0 $rc
expect_contains "zero tokens" "$out" "tokens (0)"
expect_not_contains "zero tokens: no NaN" "$out" "nan"
out=$($ATTNVIZ --once "    ")
expect_contains "zero tokens: the view says so" "$out" "no tokens"
out=$($ATTNVIZ --dump=json "word")
expect_contains "one token: weight 1" "$out" '"weights": [[1]]'
expect_contains "one token: entropy 0" "$out" '"entropy": [0]'

# --- Q/K/V files
qkv() { printf "$2" >"$TMP/$1.qkv"; }
qkv nan 'Q:\n1 nan\nK:\n1 2\nV:\n1\n';        bad "nan.qkv:2:3: 'nan' is not a finite number" --qkv "$TMP/nan.qkv" --dump
qkv inf 'Q:\n1 2\nK:\n-inf 2\nV:\n1\n';       bad "inf.qkv:4:1: '-inf' is not a finite number" --qkv "$TMP/inf.qkv" --dump
qkv big 'Q:\n1 1e39\nK:\n1 2\nV:\n1\n';       bad "big.qkv:2:3:" --qkv "$TMP/big.qkv" --dump
qkv empty_block 'Q:\nK:\n1 2\nV:\n1\n';       bad "block Q: has no rows" --qkv "$TMP/empty_block.qkv" --dump
qkv ragged 'Q:\n1 2\n3\nK:\n1 2\n3 4\nV:\n1\n2\n'; bad "ragged.qkv:3:" --qkv "$TMP/ragged.qkv" --dump
qkv widths 'Q:\n1 2\nK:\n1 2 3\nV:\n1\n';     bad "Q and K must have the same width" --qkv "$TMP/widths.qkv" --dump
qkv rows 'Q:\n1 2\nK:\n1 2\nV:\n1\n2\n';      bad "rows" --qkv "$TMP/rows.qkv" --dump
: >"$TMP/empty.qkv";                           bad "empty.qkv:1:1: no Q: block" --qkv "$TMP/empty.qkv" --dump
bad "is a directory" --qkv "$TMP" --dump
bad "cannot open" --qkv "$TMP/missing.qkv" --dump
if [ "$(id -u)" = 0 ]; then
    bad "/proc/self/mem: read error" --qkv /proc/self/mem --dump # unreadable even for root
else
    qkv locked 'Q:\n1\nK:\n1\nV:\n1\n'; chmod 000 "$TMP/locked.qkv"
    bad "cannot open" --qkv "$TMP/locked.qkv" --dump
fi
qkv esc "Q:\n1 2\033]0;x\007\nK:\n1 2\nV:\n1\n"
err=$($ATTNVIZ --qkv "$TMP/esc.qkv" --dump 2>&1)
no_raw "escape sequence in a Q/K/V file" "$err"

# --- scores that overflow float without scaling: defined, finite results
qkv huge 'Q:\n1e30 1e30\n-1e30 1e30\nK:\n1e30 1e30\n1e30 -1e30\nV:\n1\n2\n'
out=$($ATTNVIZ --qkv "$TMP/huge.qkv" --no-scale --dump=json); rc=$?
expect_rc "huge scores" 0 $rc
expect_contains "scores saturate at the float limit" "$out" "3.40282347e+38"
expect_not_contains "no NaN" "$out" "nan"
expect_not_contains "no inf" "$out" "inf"
if need_numpy; then
    printf '%s' "$out" >"$TMP/huge.json"
    /usr/bin/python3 - "$TMP/huge.json" <<'PY' && pass || fail "huge scores: weights outside [0,1] or sums not 1"
import json, sys
d = json.load(open(sys.argv[1]))
for h in d["heads"]:
    for row, s in zip(h["weights"], h["row_sums"]):
        assert all(0.0 <= w <= 1.0 for w in row), row
        assert abs(s - 1.0) < 1e-6, s
PY
fi
out=$($ATTNVIZ -H 1 --d-model 512 -k 4096 --no-scale --dump=csv "Mary greeted Bob"); rc=$?
expect_rc "d_k 4096 without scaling" 0 $rc
expect_not_contains "d_k 4096: no NaN" "$out" "nan"

finish
