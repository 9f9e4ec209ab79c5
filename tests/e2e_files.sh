#!/bin/sh
# End-to-end: the files of issue 10 — a FIFO never blocks (-f, --qkv,
# --mask-file, and W in the TUI), W replaces the mask file atomically (through
# a symbolic link, mode kept) in a format that reads back at any size, q asks
# once about unsaved painting, C can be undone with u, and standard input
# cannot be written.
. tests/support/lib.sh

bad() { # expected-substring args...
    want=$1; shift
    err=$(timeout 5 $ATTNVIZ "$@" 2>&1 >/dev/null); rc=$?
    expect_rc "exit 2: $*" 2 $rc
    expect_contains "message: $*" "$err" "$want"
    n=$(printf '%s\n' "$err" | grep -c .)
    [ "$n" -le 2 ] && pass || fail "more than one message line for $*: $err"
}

# --- a FIFO is refused at once (timeout 5 turns a hang into exit 124)
mkfifo "$TMP/fifo"
bad "-f: $TMP/fifo: not a regular file (a FIFO)" --dump -f "$TMP/fifo"
bad "--qkv: $TMP/fifo: not a regular file (a FIFO)" --dump --qkv "$TMP/fifo"
bad "--mask-file: $TMP/fifo: not a regular file (a FIFO)" --dump --mask-file "$TMP/fifo" "Bob saw Mary"
bad "--mask-file: $TMP/fifo: not a regular file (a FIFO)" --once --mask-file "$TMP/fifo" "Bob saw Mary"
# -f - is still standard input
out=$(printf 'Bob saw Mary\n' | timeout 5 $ATTNVIZ --dump -f -); rc=$?
expect_rc "-f - reads standard input" 0 $rc
expect_contains "-f -: the sentence" "$out" "Mary"
# only a file that does not exist is "no file yet"
ln -s nowhere "$TMP/dangling"
bad "--mask-file: $TMP/dangling: a symbolic link to a file that does not exist" --dump --mask-file "$TMP/dangling" "Bob saw Mary"
ln -s loop "$TMP/loop"
bad "--mask-file: $TMP/loop: Too many levels of symbolic links" --dump --mask-file "$TMP/loop" "Bob saw Mary"
printf '1 1 1\n' >"$TMP/plain"
bad "--mask-file: $TMP/plain/m.txt: Not a directory" --dump --mask-file "$TMP/plain/m.txt" "Bob saw Mary"
out=$(timeout 5 $ATTNVIZ --dump --mask-file "$TMP/absent.txt" "Bob saw Mary" 2>&1); rc=$?
expect_rc "a mask file that does not exist yet" 0 $rc

# --- W onto a FIFO (made after the start): a message, and q still quits
tmx_start 100 30 LC_ALL=C.UTF-8 -- "$ATTNVIZ" --mask-file "$TMP/later" "'Bob saw Mary'"
tmx_expect "start" "mask=painted" ""
mkfifo "$TMP/later"
tmx_expect "M: mask-edit" "mask-edit on" M
tmx_expect "Space: a cell hidden" "cell (0, 0) hidden" Space
tmx_expect "W onto a FIFO" "not a regular file (a FIFO)" W
tmx_expect "q asks once: painting not saved" "the painted mask is not saved" q
expect_not_contains "q asked, did not quit" "$(tmx_screen)" "EXITED"
tmx_expect "q again quits" "EXITED rc=0" q
tmx_stop

# --- C then u, W through a symbolic link (target replaced, mode kept)
printf '# my notes\n1 0 1\n1 1 1\n1 1 1\n' >"$TMP/real.txt"
chmod 600 "$TMP/real.txt"
ln -s real.txt "$TMP/link.txt"
tmx_start 100 30 LC_ALL=C.UTF-8 -- "$ATTNVIZ" --mask-file "$TMP/link.txt" "'Bob saw Mary'"
tmx_expect "start with the mask" "mask=painted" ""
tmx_expect "M" "mask-edit" M
tmx_expect "u: nothing to undo yet" "nothing to undo" u
tmx_expect "C: cleared" "painted mask cleared: every cell visible (u undoes)" C
tmx_expect "u: back" "undone: the painted mask is back as it was" u
tmx_expect "W: written" "mask written to $TMP/link.txt (3 x 3)" W
tmx_expect "q without unsaved painting quits" "EXITED rc=0" q
tmx_stop
content=$(cat "$TMP/real.txt")
expect_contains "undone C: the hidden cell is back" "$content" "1 0 1
1 1 1
1 1 1"
expect_contains "the user's comment kept" "$content" "# my notes"
[ -L "$TMP/link.txt" ] && pass || fail "the symbolic link was replaced by a file"
mode=$(stat -c %a "$TMP/real.txt")
[ "$mode" = 600 ] && pass || fail "mode of the mask file: $mode, expected 600"
[ "$(ls -A "$TMP" | grep -c '^\.')" = 0 ] && pass || fail "a temporary file was left: $(ls -A "$TMP")"

# --- W with --mask-file - (read from standard input) is refused with a message
tmx_start 100 30 LC_ALL=C.UTF-8 -- "$ATTNVIZ" --mask-file - "'Bob saw Mary'" "<" "$TMP/real.txt"
tmx_expect "--mask-file - read" "mask=painted" ""
tmx_expect "M" "mask-edit" M
tmx_expect "W: standard input cannot be written" "standard input cannot be written" W
[ -e ./- ] && fail "W created a file named -" || pass
tmx_expect "q: nothing painted, quits" "EXITED rc=0" q
tmx_stop

# --- a big mask (800 tokens, past the 1 MiB of 0/1 rows) is written and read back
seq 1 800 | tr '\n' ' ' >"$TMP/long.txt"
tmx_start 100 30 LC_ALL=C.UTF-8 -- "$ATTNVIZ" -H 1 --d-model 8 -f "$TMP/long.txt" --mask-file "$TMP/big.txt"
tmx_expect "800 tokens" "800 tokens" ""
tmx_expect "M" "mask-edit" M
tmx_expect "Space" "cell (0, 0) hidden" Space
tmx_expect "W: 800 x 800" "mask written to $TMP/big.txt (800 x 800)" W
tmx send-keys q
tmx_wait "EXITED rc=0" && pass || fail "quit after W"
tmx_stop
size=$(wc -c <"$TMP/big.txt")
[ "$size" -lt 1048576 ] && pass || fail "the 800 x 800 mask takes $size bytes"
# (--once, not a dump: 800 x 800 cells of every stage are 77 MB of CSV, 10 s
# under the sanitizers; the inspector is on cell (0, 0).)
out=$(timeout 30 $ATTNVIZ -H 1 --d-model 8 -f "$TMP/long.txt" --mask-file "$TMP/big.txt" --once --width 100 2>&1); rc=$?
expect_rc "the 800 x 800 mask reads back" 0 $rc
expect_contains "the painted cell is masked" "$out" "masked (painted)"

# --- a full disk (a 64 KiB tmpfs, when this machine lets us mount one): the old file stays
mkdir "$TMP/small"
if mount -t tmpfs -o size=64k tmpfs "$TMP/small" 2>/dev/null; then
    cp "$TMP/big.txt" "$TMP/small/m.txt"
    head -c 1048576 /dev/zero >"$TMP/small/filler" 2>/dev/null # fills it up
    tmx_start 100 30 LC_ALL=C.UTF-8 -- "$ATTNVIZ" -H 1 --d-model 8 -f "$TMP/long.txt" --mask-file "$TMP/small/m.txt"
    tmx_expect "full disk: start" "800 tokens" ""
    tmx_expect "full disk: M" "mask-edit" M
    tmx_expect "full disk: W says why" "cannot write: No space left on device" W
    tmx send-keys q q
    tmx_wait "EXITED rc=0" && pass || fail "full disk: quit"
    tmx_stop
    cmp -s "$TMP/big.txt" "$TMP/small/m.txt" && pass || fail "full disk: the old mask changed"
    umount "$TMP/small"
fi
finish
