#!/bin/sh
# End-to-end: pictures (issue 15) through the real binary. --export of the
# screen as SVG, PNG and HTML (valid, self-contained, escaped), --figure as
# SVG, PNG and PDF; an existing file kept (and --force), a read-only
# folder, a device, a full disk: one line each, the old file intact, no
# temporary file left; cairo or pango missing: one line naming the Debian
# package, nothing written; and P in the TUI (tmux): the prompt with its
# default name, the file written, an existing one kept unless y.
. tests/support/lib.sh

TMP=$(mktemp -d)
trap 'chmod -R u+w "$TMP" 2>/dev/null; umount "$TMP/full" 2>/dev/null; rm -rf "$TMP"' EXIT
S="the cat sat on the mat"

for ext in svg png html; do
    "$ATTNVIZ" --export "$TMP/s.$ext" "$S"
    expect_rc "export $ext" 0 $?
    [ -s "$TMP/s.$ext" ] && pass || fail "export $ext: no file"
done
head -c 8 "$TMP/s.png" | od -An -c | grep -q "P   N   G" && pass || fail "s.png is no PNG"
if peer_need "xmllint (apt-get install libxml2-utils)" command -v xmllint; then
    xmllint --noout "$TMP/s.svg" && pass || fail "s.svg is not valid XML"
    xmllint --noout --html "$TMP/s.html" 2>/dev/null && pass || fail "s.html does not parse"
fi
grep -q "<script" "$TMP/s.html" && fail "s.html has a script" || pass
grep -q "http" "$TMP/s.html" && fail "s.html refers to the network" || pass
grep -q ">sat<\|>s<" "$TMP/s.svg" && pass || fail "s.svg: no token text"

# Hostile labels: escaped, never markup.
"$ATTNVIZ" --export "$TMP/h.svg" 'a<b & "c" '"'"'d'"'"' </text><script>alert(1)</script> 나는 🌍'
expect_rc "export hostile labels" 0 $?
grep -q "<script" "$TMP/h.svg" && fail "h.svg: markup injected" || pass
grep -q "&lt;" "$TMP/h.svg" && pass || fail "h.svg: < not escaped"
command -v xmllint >/dev/null 2>&1 && { xmllint --noout "$TMP/h.svg" && pass || fail "h.svg is not valid XML"; }

# --head, --stage, --view, --width, --theme choose what is drawn.
"$ATTNVIZ" --export "$TMP/v.svg" --view heads --stage scores --width 120 --theme light "$S"
expect_rc "export heads scores" 0 $?
grep -q 'width="1200"' "$TMP/v.svg" && pass || fail "v.svg: not 120 columns wide"
grep -q 'fill="#ffffff"' "$TMP/v.svg" && pass || fail "v.svg: not the light theme"
grep -q "scores" "$TMP/v.svg" && pass || fail "v.svg: not the scores"

# Figures: SVG, PNG, PDF.
for ext in svg png pdf; do
    "$ATTNVIZ" --export "$TMP/f.$ext" --figure=heads --numbers "$S"
    expect_rc "figure $ext" 0 $?
done
head -c 4 "$TMP/f.pdf" | grep -q "%PDF" && pass || fail "f.pdf is no PDF"
command -v xmllint >/dev/null 2>&1 && { xmllint --noout "$TMP/f.svg" && pass || fail "f.svg is not valid XML"; }
# The figure is not the screen: no key hints, and its own page size in points.
grep -q "q quit" "$TMP/f.svg" && fail "f.svg is the screen, not a figure" || pass
grep -q 'width="[0-9.]*pt"' "$TMP/f.svg" && pass || fail "f.svg: no size in points"
head -c 8 "$TMP/f.png" | od -An -c | grep -q "P   N   G" && pass || fail "f.png is no PNG"
if model_need stories260K.bin tok512.bin; then
    "$ATTNVIZ" --export "$TMP/m.png" --figure=layers --model "$MODEL" "Lily saw a cat. Lily" 2>/dev/null
    expect_rc "figure of layers x heads" 0 $?
fi

# Bad input: one line, exit 2, nothing written.
bad() { # name needle args...
    name=$1 needle=$2; shift 2
    err=$("$ATTNVIZ" "$@" 2>&1 >/dev/null); rc=$?
    expect_rc "$name" 2 $rc
    expect_contains "$name" "$err" "$needle"
    [ "$(printf '%s\n' "$err" | grep -c '^attnviz:')" = 1 ] && pass || fail "$name: not one line: $err"
}
bad "unknown extension" "no picture extension" --export "$TMP/x.jpg" "$S"
bad "pdf screen" "a PDF is a --figure" --export "$TMP/x.pdf" "$S"
bad "html figure" "not HTML" --export "$TMP/x.html" --figure "$S"
bad "figure without export" "--figure: needs --export" --figure "$S"
bad "numbers without figure" "--numbers: goes with --figure" --export "$TMP/x.svg" --numbers "$S"
bad "unknown figure kind" "--figure: unknown kind" --export "$TMP/x.svg" --figure=all "$S"
bad "export and dump" "not with --dump" --export "$TMP/x.svg" --dump "$S"
bad "head out of range" "--head: 9 is out of range 1..4" --export "$TMP/x.svg" --head 9 "$S"
bad "unknown stage" "--stage: unknown stage" --export "$TMP/x.svg" --stage nope "$S"
[ -e "$TMP/x.svg" ] && fail "a refused export wrote a file" || pass

# cairo or pango not installed (gfx.h's test knob ATTNVIZ_GFX_MISSING): a PNG
# or a figure names the library and its Debian package in one line, exit 2,
# nothing written; the screen's SVG and HTML need neither.
export ATTNVIZ_GFX_MISSING=libcairo.so.2
bad "no cairo: png" "libcairo.so.2 is missing (install the Debian package libcairo2)" --export "$TMP/nogfx.png" "$S"
bad "no cairo: figure" "libcairo.so.2 is missing" --export "$TMP/nogfx.svg" --figure "$S"
for ext in svg html; do
    "$ATTNVIZ" --export "$TMP/nogfx-screen.$ext" "$S"
    expect_rc "no cairo: the screen as $ext" 0 $?
done
ATTNVIZ_GFX_MISSING=libpangocairo-1.0.so.0
bad "no pangocairo: pdf" "libpangocairo-1.0.so.0 is missing (install the Debian package libpangocairo-1.0-0)" \
    --export "$TMP/nogfx.pdf" --figure=heads "$S"
unset ATTNVIZ_GFX_MISSING
[ -e "$TMP/nogfx.png" ] || [ -e "$TMP/nogfx.svg" ] || [ -e "$TMP/nogfx.pdf" ] && fail "no cairo: a file written" || pass
[ -z "$(ls -A "$TMP" | grep nogfx | grep -v '^nogfx-screen.svg$\|^nogfx-screen.html$')" ] && pass ||
    fail "no cairo: a temporary file left: $(ls -A "$TMP")"

# An existing file stays unless --force.
printf 'old\n' >"$TMP/keep.svg"
bad "existing file" "keep.svg exists (--force replaces it)" --export "$TMP/keep.svg" "$S"
[ "$(cat "$TMP/keep.svg")" = old ] && pass || fail "the existing file changed"
"$ATTNVIZ" --export "$TMP/keep.svg" --force "$S"
expect_rc "--force" 0 $?
grep -q "<svg" "$TMP/keep.svg" && pass || fail "--force did not replace the file"

# Write failures: one line, exit 1, the old file intact, no temporary left.
ln -s /dev/full "$TMP/full.svg"
err=$("$ATTNVIZ" --export "$TMP/full.svg" --force "$S" 2>&1 >/dev/null)
expect_rc "a device (/dev/full)" 2 $?
expect_contains "a device (/dev/full)" "$err" "full.svg"
err=$("$ATTNVIZ" --export /proc/attnviz-test.svg "$S" 2>&1 >/dev/null)
expect_rc "a folder nothing can be written to" 1 $?
expect_contains "a folder nothing can be written to" "$err" "/proc"
mkdir "$TMP/ro" && printf 'old\n' >"$TMP/ro/p.svg" && chmod 555 "$TMP/ro"
if [ "$(id -u)" != 0 ]; then
    err=$("$ATTNVIZ" --export "$TMP/ro/p.svg" --force "$S" 2>&1 >/dev/null)
    expect_rc "a read-only folder" 1 $?
    expect_contains "a read-only folder" "$err" "ro"
    [ "$(cat "$TMP/ro/p.svg")" = old ] && pass || fail "the read-only folder's file changed"
else
    echo "SKIP the read-only folder: root writes there anyway (the /proc case stands for it)"
fi
chmod 755 "$TMP/ro"
# A full disk: a 64 KiB tmpfs (where mounting is allowed), an old file in it.
mkdir "$TMP/full"
if mount -t tmpfs -o size=64k tmpfs "$TMP/full" 2>/dev/null; then
    printf 'old\n' >"$TMP/full/p.png"
    err=$("$ATTNVIZ" --export "$TMP/full/p.png" --force --width 300 --view heads "$S $S $S $S" 2>&1 >/dev/null)
    expect_rc "a full disk" 1 $?
    expect_contains "a full disk" "$err" "No space left"
    [ "$(cat "$TMP/full/p.png")" = old ] && pass || fail "the full disk's old file changed"
    [ "$(ls -A "$TMP/full")" = p.png ] && pass || fail "a temporary file left on the full disk: $(ls -A "$TMP/full")"
    umount "$TMP/full"
else
    echo "SKIP the full disk: mounting a small tmpfs is not allowed here"
fi

# P in the TUI: the prompt, the default name, written; again: kept unless y.
mkdir "$TMP/tui"
case $ATTNVIZ in /*) BIN=$ATTNVIZ ;; *) BIN=$PWD/$ATTNVIZ ;; esac
printf '#!/bin/sh\ncd "%s" && exec "%s" "%s"\n' "$TMP/tui" "$BIN" "$S" >"$TMP/run.sh"
tmx_start 100 30 LC_ALL=C.UTF-8 -- sh "$TMP/run.sh"
tmx_wait "d_model=64" || fail "tui: no screen"
tmx_expect "P prompt" "picture (.svg .png .html): attnviz-head1-weights.svg" P
tmx_expect "P writes" "wrote attnviz-head1-weights.svg (svg, 100 x 30 cells)" Enter
tmx_expect "P again" "attnviz-head1-weights.svg exists: y replaces it" P Enter
tmx_expect "kept" "nothing written" n
tmx_expect "P png" "wrote shot.png (png" P C-u "shot.png" Enter
tmx_expect "P bad name" "a picture is .svg, .png or .html" P C-u "shot.gif" Enter
tmx_expect "P replaces with y" "wrote attnviz-head1-weights.svg" P Enter y
tmx_stop
# P without cairo: said on the status line, nothing written, the TUI goes on.
tmx_start 100 30 LC_ALL=C.UTF-8 ATTNVIZ_GFX_MISSING=libcairo.so.2 -- sh "$TMP/run.sh"
tmx_wait "d_model=64" || fail "tui without cairo: no screen"
tmx_expect "P png without cairo" "libcairo.so.2 is missing" P C-u "nogfx.png" Enter
tmx_expect "P svg without cairo" "wrote nogfx.svg (svg" P C-u "nogfx.svg" Enter
tmx_stop
[ -e "$TMP/tui/nogfx.png" ] && fail "P without cairo wrote a PNG" || pass
rm -f "$TMP/tui/nogfx.svg"
[ -s "$TMP/tui/attnviz-head1-weights.svg" ] && pass || fail "P: no svg"
grep -q 'width="1000" height="600"' "$TMP/tui/attnviz-head1-weights.svg" && pass || fail "P: not the screen's size"
head -c 8 "$TMP/tui/shot.png" | od -An -c | grep -q "P   N   G" && pass || fail "P: shot.png is no PNG"
[ -z "$(ls -A "$TMP/tui" | grep -v '^attnviz-head1-weights.svg$\|^shot.png$')" ] && pass ||
    fail "P left other files: $(ls -A "$TMP/tui")"
finish
