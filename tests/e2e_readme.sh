#!/bin/sh
# End-to-end: every "$ ./attnviz ..." example of the manual (README.md and
# doc/*.md) is run against the binary and its shown lines must be in the
# output; the option list of doc/cli.md is --help, line for line; the README
# stays a manual one reads in ten minutes, and its picture is the binary's own.
. tests/support/lib.sh
PY=/usr/bin/python3
need_python || { finish; exit; }
if out=$("$PY" tests/support/check_readme.py "$ATTNVIZ" README.md doc/*.md 2>&1); then pass; else fail "manual examples: $out"; fi
case $out in *" 0 failing"*) pass ;; *) fail "manual examples: [$out]" ;; esac
# The option list in doc/cli.md is exactly --help.
"$ATTNVIZ" --help >"$TMP/help"
awk '/^## Every option/{on=1; next} on && /^```$/{if (blk) exit; blk=1; next} blk{print}' doc/cli.md >"$TMP/cli"
if diff "$TMP/help" "$TMP/cli" >"$TMP/diff"; then pass; else fail "doc/cli.md's option list differs from --help:"; cat "$TMP/diff"; fi
# A manual, not lab notes: at most 500 lines, no dated runs or issue numbers.
n=$(wc -l <README.md)
[ "$n" -le 500 ] && pass || fail "README.md is $n lines (at most 500: the rest goes under doc/)"
expect_not_contains "README without issue references" "$(grep -in 'issue [0-9]' README.md)" "issue"
# Every page of doc/ the README links to exists, and every doc/*.md is linked.
for f in $(grep -o '](doc/[a-z0-9_-]*\.md' README.md | sed 's/^](//' | sort -u); do
    [ -f "$f" ] && pass || fail "README links to $f, which does not exist"
done
for f in doc/*.md; do
    expect_contains "README links to $f" "$(cat README.md)" "]($f"
done
# The README's picture is the binary's own export, made by `make doc-images`.
args=$(sed -n 's/^DOC_IMAGES_CMD *= *//p' Makefile | sed 's|doc/img/screen.png|'"$TMP"'/screen.png|')
# shellcheck disable=SC2086
if "$ATTNVIZ" $args 2>"$TMP/err"; then
    cmp -s "$TMP/screen.png" doc/img/screen.png && pass ||
        fail "doc/img/screen.png is not what the binary draws: run make doc-images (and look at it)"
else
    fail "the README's picture cannot be drawn: $(cat "$TMP/err")"
fi
finish
