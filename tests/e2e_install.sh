#!/bin/sh
# End-to-end: `make install` / `make uninstall` with PREFIX and DESTDIR, and
# the man page: it renders without a warning, and every option of --help is
# in it (issue 13, item 23).
. tests/support/lib.sh
TMP=$(mktemp -d)
MAKE=${MAKE:-make}

# Every long option of --help is in the man page (written \-\-name there).
opts=$("$ATTNVIZ" --help | grep -o -- '--[a-z][a-z-]*' | sort -u)
[ -n "$opts" ] && pass || fail "no options in --help"
for o in $opts; do
    esc=$(printf '%s' "$o" | sed 's/-/\\\\-/g')
    grep -q -- "$esc" doc/attnviz.1 && pass || fail "man page: $o of --help is missing"
done
for o in -f -t -H -k -m -s -h -V; do
    grep -q -- "\\\\fB\\\\$o\\\\fR" doc/attnviz.1 && pass || fail "man page: short option $o is missing"
done

if peer_need "groff (apt-get install groff-base)" command -v groff; then
    warn=$(groff -k -man -Tutf8 -ww -z doc/attnviz.1 2>&1)
    [ -z "$warn" ] && pass || fail "man page: groff warns: $warn"
    page=$(groff -k -man -Tutf8 -P-c doc/attnviz.1 2>/dev/null)
    expect_contains "man page: name" "$page" "attnviz - interactive terminal visualizer of transformer attention"
    expect_contains "man page: Korean example" "$page" "나는 어제 친구와 영화를 봤는데"
fi

# make install into a DESTDIR, with a PREFIX; the installed binary runs.
$MAKE -s --no-print-directory install DESTDIR="$TMP/root" PREFIX=/opt/av INSTALL_BIN="$ATTNVIZ" >"$TMP/log" 2>&1
expect_rc "make install" 0 $?
[ -x "$TMP/root/opt/av/bin/attnviz" ] && pass || fail "make install: no bin/attnviz: $(cat "$TMP/log")"
[ -f "$TMP/root/opt/av/share/man/man1/attnviz.1" ] && pass || fail "make install: no man1/attnviz.1"
out=$("$TMP/root/opt/av/bin/attnviz" --version)
expect_contains "installed binary runs" "$out" "attnviz"
if command -v man >/dev/null; then
    out=$(MANPATH="$TMP/root/opt/av/share/man" MANWIDTH=80 man attnviz 2>/dev/null | head -5)
    expect_contains "man attnviz finds the installed page" "$out" "ATTNVIZ(1)"
fi
$MAKE -s --no-print-directory uninstall DESTDIR="$TMP/root" PREFIX=/opt/av >"$TMP/log" 2>&1
expect_rc "make uninstall" 0 $?
[ ! -e "$TMP/root/opt/av/bin/attnviz" ] && [ ! -e "$TMP/root/opt/av/share/man/man1/attnviz.1" ] && pass ||
    fail "make uninstall left files: $(find "$TMP/root" -type f)"

finish
