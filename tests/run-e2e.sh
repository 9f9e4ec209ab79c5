#!/bin/sh
# Runs every end-to-end script tests/e2e_*.sh against $ATTNVIZ, then fails
# when any process of the run is still running (every process started here
# carries ATTNVIZ_E2E_RUN=<id>: tests/support/lib.sh).
: "${ATTNVIZ:=./attnviz}"
export ATTNVIZ
ATTNVIZ_E2E_RUN="e2e-$$-$(date +%s)"
export ATTNVIZ_E2E_RUN
. tests/support/lib.sh
fail=0

# The leftover check must see a leftover: a process of this run that outlives
# its starter (a background sleep, detached from this shell's job list).
echo "== leftover check"
sh -c 'sleep 300 >/dev/null 2>&1 &'
out=$(e2e_check_leftovers "self-test" 2>&1)
case $out in
*"self-test: processes of this run still running"*"sleep 300"*) ;;
*) echo "FAIL: the leftover check missed a deliberate leftover: [$out]"; fail=1 ;;
esac
# ... and ended it: nothing is left now.
out=$(e2e_check_leftovers "self-test, after" 2>&1) || { echo "FAIL: $out"; fail=1; }

for t in tests/e2e_*.sh; do
    [ -e "$t" ] || continue
    echo "== $t"
    sh "$t" || fail=1
done
echo "== leftover processes"
e2e_check_leftovers "after the end-to-end scripts" || fail=1
if [ $fail = 0 ]; then echo "end-to-end tests: all passed"; else echo "end-to-end tests: FAILED"; exit 1; fi
