#!/bin/sh
# e2e_outputs.sh - the captured outputs of issue 11 (tests/outputs/check.sh):
# every --dump, --once and error case byte for byte, on one thread and on two
# (the numbers are documented the same for any thread count).
: "${ATTNVIZ:=./attnviz}"
export ATTNVIZ
sh tests/outputs/check.sh || exit 1
echo "-- the same cases on 2 threads"
OUTPUTS_THREADS=2 sh tests/outputs/check.sh
