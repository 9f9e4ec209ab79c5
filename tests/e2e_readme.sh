#!/bin/sh
# End-to-end: every "$ ./attnviz ..." example of the README is run against the
# binary and its shown lines must be in the output (issue 13 item 22), and
# the README's option list is --help, line for line.
. tests/support/lib.sh
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)
if [ -z "$PY" ]; then echo "SKIP: python3 not found (tests/support/check_readme.py)"; finish; fi
if out=$("$PY" tests/support/check_readme.py README.md "$ATTNVIZ" 2>&1); then pass; else fail "README examples: $out"; fi
case $out in *" 0 failing"*) pass ;; *) fail "README examples: [$out]" ;; esac
# The option list in the README is exactly --help.
TMP=$(mktemp -d)
"$ATTNVIZ" --help >"$TMP/help"
awk '/^## Command line/{on=1; next} on && /^```$/{if (blk) exit; blk=1; next} blk{print}' README.md >"$TMP/readme"
if diff "$TMP/help" "$TMP/readme" >"$TMP/diff"; then pass; else fail "README option list differs from --help:"; cat "$TMP/diff"; fi
finish
