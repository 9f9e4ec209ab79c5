#!/bin/sh
# e2e_escape.sh - what attnviz prints that came from a file never reaches the
# terminal raw: a vocabulary piece that is an OSC retitling the terminal, a
# CSI, a C1 control, a bidi override and NUL (tests/support/hostile.py),
# printed by --generate (it used to write the bytes as they are), --dump of
# every format, --once, and a model file named so (--dump=text's header
# printed the name raw), and messages. Each output is checked byte by byte
# (hostile.py check: valid UTF-8, no control but a line feed, no C1, no bidi),
# the JSON dump parses, and the title of a tmux pane stays what it was.
. tests/support/lib.sh

need_python || finish
PY=/usr/bin/python3
H=tests/support/hostile.py
clean() { # name file
    if why=$($PY $H check "$2" "$1"); then pass; else fail "$why"; fi
}
SHOWN='\x1B]2;PWNED\x07\x1B[2J\u{009B}31m\u{202E}evil\x00X'

# --- a llama2.c vocabulary with the hostile piece where stories260K's first
# word from BOS is (" Once", id 403)
if model_need stories260K.bin tok512.bin; then
    $PY $H tokbin "$MODELS/tok512.bin" "$TMP/tok.bin" 403
    "$ATTNVIZ" --model "$MODEL" --vocab "$TMP/tok.bin" --generate 3 >"$TMP/gen" 2>"$TMP/gen.err"
    expect_rc "generate" 0 $?
    clean "--generate" "$TMP/gen"
    expect_contains "generate: the piece escaped" "$(cat "$TMP/gen")" "$SHOWN"
    # (from BOS alone: the piece is the likeliest next token)
    for fmt in text csv json tokens; do
        "$ATTNVIZ" --model "$MODEL" --vocab "$TMP/tok.bin" --dump=$fmt "" >"$TMP/d.$fmt"
        expect_rc "dump=$fmt" 0 $?
        clean "--dump=$fmt" "$TMP/d.$fmt"
    done
    expect_contains "dump=text: the piece escaped" "$(cat "$TMP/d.text")" 'PWNED\x07'
    $PY -c 'import json, sys; json.load(open(sys.argv[1]))' "$TMP/d.json" && pass || fail "dump=json: not JSON"
    expect_contains "dump=json: escaped per JSON" "$(cat "$TMP/d.json")" '\u001b]2;PWNED\u0007'
    "$ATTNVIZ" --model "$MODEL" --vocab "$TMP/tok.bin" --once --width 120 "" >"$TMP/once"
    clean "--once" "$TMP/once"

    # a model file whose name is the sequence: every header and message
    evil="$TMP/m$(printf '\033]2;PWNED\007\342\200\256')x.bin"
    cp "$MODEL" "$evil"
    for fmt in text csv json; do
        "$ATTNVIZ" --model "$evil" --vocab "$MODELS/tok512.bin" --dump=$fmt "Lily" >"$TMP/n.$fmt"
        expect_rc "named dump=$fmt" 0 $?
        clean "named --dump=$fmt" "$TMP/n.$fmt"
    done
    expect_contains "named dump=text: header" "$(head -1 "$TMP/n.text")" 'model=m\x1B]2;PWNED\x07\u{202E}x '
    $PY -c 'import json, sys; json.load(open(sys.argv[1]))' "$TMP/n.json" && pass || fail "named dump=json: not JSON"
    "$ATTNVIZ" --model "$evil" --vocab "$MODELS/tok512.bin" --once "Lily" >"$TMP/n.once"
    clean "named --once" "$TMP/n.once"
    "$ATTNVIZ" --model "$evil" --vocab "$MODELS/tok512.bin" --layer 9 "Lily" 2>"$TMP/n.err"
    expect_rc "named: a message" 2 $?
    clean "named: the message" "$TMP/n.err"
    "$ATTNVIZ" --model "$evil.missing" 2>"$TMP/n.err2"
    expect_rc "named: missing" 2 $?
    clean "named: missing's message" "$TMP/n.err2"

    # the terminal's title: the same before and after, in a tmux pane
    tmx_start 100 30 -- sh -c "'printf \"\\033]2;before\\007\"; $ATTNVIZ --model $MODEL --vocab $TMP/tok.bin --generate 3; $ATTNVIZ --model \"$evil\" --vocab $MODELS/tok512.bin --dump=text Lily | head -3'"
    tmx_wait "EXITED rc=0" || fail "title: the commands did not end"
    expect_contains "title: the escaped piece shown" "$(tmx_screen)" 'PWNED\x07'
    [ "$(tmx display-message -p '#{pane_title}')" = before ] && pass ||
        fail "title: pane_title is now [$(tmx display-message -p '#{pane_title}')]"
    tmx_stop
    # and in the interactive view (labels, status line, next tokens)
    tmx_start 120 30 -- sh -c "'printf \"\\033]2;before\\007\"; exec $ATTNVIZ --model \"$evil\" --vocab $TMP/tok.bin Once'"
    tmx_expect "tui: start" "model=m" ""
    tmx send-keys n
    sleep 0.3
    tmx send-keys q
    tmx_wait "EXITED rc=0" || fail "tui: did not end"
    [ "$(tmx display-message -p '#{pane_title}')" = before ] && pass ||
        fail "tui: pane_title is now [$(tmx display-message -p '#{pane_title}')]"
    tmx_stop
fi

# --- a Hugging Face folder whose tokenizer.json holds the piece
if need_numpy; then
    $PY $H hf "$TMP/hf"
    "$ATTNVIZ" --model "$TMP/hf" --generate 3 "Mary" >"$TMP/hgen"
    expect_rc "hf generate" 0 $?
    clean "hf --generate" "$TMP/hgen"
    expect_contains "hf generate: the piece escaped" "$(cat "$TMP/hgen")" "$SHOWN"
    for fmt in text csv json; do
        "$ATTNVIZ" --model "$TMP/hf" --dump=$fmt "Mary" >"$TMP/h.$fmt"
        expect_rc "hf dump=$fmt" 0 $?
        clean "hf --dump=$fmt" "$TMP/h.$fmt"
    done
    $PY -c 'import json, sys; json.load(open(sys.argv[1]))' "$TMP/h.json" && pass || fail "hf dump=json: not JSON"
    tmx_start 100 30 -- sh -c "'printf \"\\033]2;before\\007\"; $ATTNVIZ --model $TMP/hf --generate 3 Mary'"
    tmx_wait "EXITED rc=0" || fail "hf title: the command did not end"
    [ "$(tmx display-message -p '#{pane_title}')" = before ] && pass ||
        fail "hf title: pane_title is now [$(tmx display-message -p '#{pane_title}')]"
    tmx_stop
fi
finish
