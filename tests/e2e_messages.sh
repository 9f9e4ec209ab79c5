#!/bin/sh
# End-to-end: each failure gets one line that says what was wrong and where,
# and the exit status tells bad input (2) from a runtime failure (1).
. tests/support/lib.sh

# run NAME RC MESSAGE args...: exit status RC and MESSAGE on standard error.
run() {
    name=$1 want_rc=$2 want=$3; shift 3
    err=$("$ATTNVIZ" "$@" 2>&1 >/dev/null); rc=$?
    expect_rc "$name" "$want_rc" "$rc"
    expect_contains "$name" "$err" "$want"
}

# --- too many tokens: how many, how many fit, and the option that keeps them
run "too many tokens" 2 "TEXT: 5000 tokens, more than the 4096 that fit (4096 tokens at most): --max-tokens 4096 keeps the first 4096" \
    -H 1 --dump "$(seq 1 5000 | tr '\n' ' ')"
run "too many for the heads" 2 "TEXT: 3000 tokens, more than the 2048 that fit d_model=64 heads=4 (heads x tokens x tokens, memory and work): --max-tokens 2048 keeps the first 2048" \
    --dump "$(seq 1 3000 | tr '\n' ' ')"

# --- invalid UTF-8 says what is wrong, standard input is named so
err=$(printf 'abc\n\303' | "$ATTNVIZ" -f - --dump 2>&1 >/dev/null); rc=$?
expect_rc "stdin UTF-8" 2 $rc
expect_contains "stdin UTF-8" "$err" "attnviz: standard input: invalid UTF-8 at byte offset 4: the text ends inside a 2-byte character"
expect_not_contains "stdin UTF-8: PCRE2's words" "$err" "missing at end"
err=$(printf 'Q:\n1\n' | "$ATTNVIZ" --qkv - --dump 2>&1 >/dev/null)
expect_contains "stdin Q/K/V" "$err" "--qkv: standard input:"
run "UTF-8: a stray continuation byte" 2 "invalid UTF-8 at byte offset 1: byte 0x80 continues a character" \
    --dump "$(printf 'a\200')"

# --- --target says it once
err=$("$ATTNVIZ" --target "$(printf '\377')" --dump x 2>&1 >/dev/null); rc=$?
expect_rc "--target" 2 $rc
expect_contains "--target" "$err" "attnviz: --target: invalid UTF-8 at byte offset 0: byte 0xFF never occurs in UTF-8"
expect_not_contains "--target once" "$err" "target: target"

# --- --view lists every view
run "--view" 2 "(expected heatmap, heads, pipeline, gravity, census, classes, zoom or lens)" --view x

# --- a Q/K/V file with CR line endings only is read by lines
printf 'Q:\n1 2\n3 4\nK:\n1 0\n0 1\nV:\n1\n2\n' >"$TMP/lf.qkv"
tr '\n' '\r' <"$TMP/lf.qkv" >"$TMP/cr.qkv"
lf=$("$ATTNVIZ" --qkv "$TMP/lf.qkv" --dump 2>&1)
cr=$("$ATTNVIZ" --qkv "$TMP/cr.qkv" --dump 2>&1); rc=$?
expect_rc "CR-only Q/K/V" 0 $rc
[ "$lf" = "$cr" ] && pass || fail "CR-only Q/K/V: a different dump: $cr"
printf 'Q:\r1 2\rK:\r1 2\rV:\r1\r2\r' >"$TMP/cr-bad.qkv"
run "CR-only Q/K/V: lines named" 2 "cr-bad.qkv:5:1: K has 1 row but V has 2" --qkv "$TMP/cr-bad.qkv" --dump

# --- writing to a full disk is a runtime failure
if [ -w /dev/full ]; then
    for args in --help --version "--dump x" "--once x"; do
        # shellcheck disable=SC2086
        err=$("$ATTNVIZ" $args 2>&1 >/dev/full); rc=$?
        expect_rc "$args to /dev/full" 1 $rc
        expect_contains "$args to /dev/full" "$err" "attnviz: cannot write"
    done
    err=$("$ATTNVIZ" --help 2>&1 >/dev/full)
    expect_contains "--help to /dev/full" "$err" "attnviz: cannot write to standard output: No space left on device"
fi

# --- out of memory: exit 1, naming the configuration asked for. Skipped
# where an address-space limit cannot be set (AddressSanitizer reserves
# terabytes of it).
if (ulimit -v 150000 && "$ATTNVIZ" --version) >/dev/null 2>&1; then
    T=$(seq 1 4000 | tr '\n' ' ')
    err=$( (ulimit -v 150000; "$ATTNVIZ" -H 1 --dump "$T") 2>&1 >/dev/null); rc=$?
    expect_rc "out of memory" 1 $rc
    expect_contains "out of memory" "$err" "out of memory for d_model=64 heads=1 d_k=64 d_v=64 and 4000 tokens"
    { echo "Q:"; seq 1 4000; echo "K:"; seq 1 4000; echo "V:"; seq 1 4000; } >"$TMP/big.qkv"
    err=$( (ulimit -v 150000; "$ATTNVIZ" --qkv "$TMP/big.qkv" --dump) 2>&1 >/dev/null); rc=$?
    expect_rc "out of memory, Q/K/V" 1 $rc
    expect_contains "out of memory, Q/K/V" "$err" "out of memory for Q/K/V of 4000 x 4000 tokens, d_k=1 d_v=1"
    expect_not_contains "out of memory, Q/K/V: no d_model" "$err" "d_model"
else
    echo "(out of memory: skipped, no address-space limit here)"
fi

# --- a saturated score is a number in the pipeline
printf 'Q:\n3e19 3e19\n1 1\nK:\n-3e19 -3e19\n1 1\nV:\n1\n2\n' >"$TMP/sat.qkv"
out=$("$ATTNVIZ" --once --view pipeline --qkv "$TMP/sat.qkv" --width 100 --color=never)
expect_contains "pipeline: -3.4e38 as a number" "$out" "-3e38"

finish
