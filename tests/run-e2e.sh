#!/bin/sh
# Runs every end-to-end script tests/e2e_*.sh against $ATTNVIZ.
: "${ATTNVIZ:=./attnviz}"
export ATTNVIZ
fail=0
for t in tests/e2e_*.sh; do
    [ -e "$t" ] || continue
    echo "== $t"
    sh "$t" || fail=1
done
if [ $fail = 0 ]; then echo "end-to-end tests: all passed"; else echo "end-to-end tests: FAILED"; exit 1; fi
