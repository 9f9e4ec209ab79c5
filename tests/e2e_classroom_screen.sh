#!/bin/sh
# End-to-end: what a class sees on the screen, through the real binary in
# tmux: prompts whose offered value typing replaces, the cell page saying how
# much of a vector it leaves out, the seeded screens saying their weights are
# random (and w for the trained model), the colours of the ramps on dark and
# light backgrounds, and the max column in one format.
. tests/support/lib.sh
peer_need "tmux (apt-get install tmux)" command -v tmux || { finish; exit; }

EN="the cat sat on the mat"

# The trained model of the classroom (w, the max column of a trained model):
# under CI its absence fails; elsewhere those parts say "skipped" (lib.sh).
model_need stories260K.bin tok512.bin || MODEL=""

# --- prompts: the offered value is selected; the first key typed replaces it
tmx_start 80 24 LC_ALL=C.UTF-8 TERM=xterm-256color -- "$ATTNVIZ" "'$EN'"
tmx_expect "start" "d_k=16" ""
tmx_expect "d: the prompt offers d_k" "d_k (1..4096): 16" d
tmx_expect "d 8 Enter: d_k is 8, not 168" "d_k=8 " 8 Enter
expect_not_contains "d 8 Enter: not appended" "$(tmx_line 0)" "d_k=168"
# An editing key keeps the value: End, then 4 appends (d_k 8 -> 84).
tmx_expect "d End 4 Enter: appended" "d_k=84 " d End 4 Enter
# Backspace edits it: 84 -> 8 -> 82.
tmx_expect "d BSpace 2 Enter: edited" "d_k=82 " d BSpace 2 Enter
# e: typing replaces the sentence.
tmx_expect "e: the prompt offers the sentence" "sentence: $EN" e
tmx send-keys -l "dogs bark"
tmx_expect "e: typed text replaces the sentence" "2 tokens" Enter
# P: typing replaces the offered file name.
tmx_expect "P: the prompt offers a name" "picture (.svg .png .html): attnviz-head1-weights.svg" P
tmx send-keys -l "$TMP/mine.svg"
tmx_expect "P: the typed name is the file" "wrote $TMP/mine.svg" Enter
[ -s "$TMP/mine.svg" ] && pass || fail "P: $TMP/mine.svg not written"
tmx_stop

# --- the cell page says how many entries of a vector it leaves out, and which
# (-k 128 showed a dim "+1" at 80x24 where 104 were cut, nothing at 120x30)
tmx_start 80 24 LC_ALL=C.UTF-8 TERM=xterm-256color -- "$ATTNVIZ" -k 128 "'$EN'"
tmx_expect "cell page 80x24" "q_0  (d_k = 128)" Enter
screen=$(tmx_screen)
expect_contains "80x24: how many are left out" "$screen" "… 104 more not shown"
expect_contains "80x24: which" "$screen" "(entries 24..127)"
n=$(printf '%s\n' "$screen" | grep -c "… 104 more not shown")
[ "$n" = 3 ] && pass || fail "80x24: q, k and their products each say it: $n times"
expect_not_contains "80x24: no bare +1" "$screen" " +1"
tmx resize-window -x 120 -y 30
tmx_expect "120x30: how many are left out" "… 86 more not shown"
expect_contains "120x30: which" "$(tmx_screen)" "(entries 42..127)"
tmx resize-window -x 200 -y 50
tmx_expect "200x50: how many are left out" "… 53 more not shown"
expect_contains "200x50: which" "$(tmx_screen)" "(entries 75..127)"
tmx_stop
# d_k 16 fits in two lines at 80 columns: nothing is left out, nothing said.
tmx_start 80 24 LC_ALL=C.UTF-8 TERM=xterm-256color -- "$ATTNVIZ" "'$EN'"
tmx_expect "cell page, d_k 16" "q_0  (d_k = 16)" Enter
expect_not_contains "d_k 16: nothing left out" "$(tmx_screen)" "not shown"
tmx_stop

# --- the seeded screens say their weights are random, where the eye lands
# (the title, after the view's own); w offers the trained model
out=$("$ATTNVIZ" --once --width 80 --color never "$EN")
expect_contains "--once 80: random weights in the title" "$(printf '%s\n' "$out" | sed -n 2p)" "random weights · w: trained"
out=$("$ATTNVIZ" --once --width 120 --color never --seed 7 "$EN")
expect_contains "--once 120: and the seed" "$(printf '%s\n' "$out" | sed -n 2p)" "random weights (seed 7) · w: trained"
for view in heads pipeline gravity census; do
    out=$("$ATTNVIZ" --once --width 80 --color never --view $view "$EN" | sed -n 2,3p)
    case $out in *"random weights"* | *"  untrained"*) pass ;; *) fail "--once 80 --view $view: not said: $out" ;; esac
done
# A title that leaves no room for more: one word, still said.
out=$("$ATTNVIZ" --once --width 80 --color never --d-model 8 -H 2 -k 4 --stage x "I saw a movie yesterday" | sed -n 2p)
expect_contains "--once 80, a long title: untrained" "$out" "no positional encoding  (5, 8)  untrained"
out=$("$ATTNVIZ" --once --width 80 --color never --ascii "$EN" | sed -n 2p)
expect_contains "--ascii: no middle dot" "$out" "random weights; w: trained"
"$ATTNVIZ" --export "$TMP/random.html" --width 100 "$EN" && pass || fail "--export html"
expect_contains "the picture says it too" "$(cat "$TMP/random.html")" "random weights (seed 42)"
if [ -n "$MODEL" ]; then
    out=$("$ATTNVIZ" --once --width 120 --color never --model "$MODEL" "$EN")
    expect_not_contains "a trained model: no random weights" "$out" "random weights"
    # w: the trained model on the same sentence, and back; the sentence kept.
    tmx_start 80 24 LC_ALL=C.UTF-8 TERM=xterm-256color -- "$ATTNVIZ" "'Lily saw a cat. Lily'"
    tmx_expect "w: start" "random weights · w: trained" ""
    tmx_expect "w: the trained model" "model=stories260K d_model=64 heads=8 d_k=8 mask=causal" w
    screen=$(tmx_screen)
    expect_contains "w: says where it came from" "$screen" "w: trained weights: stories260K from "
    expect_contains "w: the same sentence, its tokenizer" "$screen" "▁Lily"
    expect_not_contains "w: no random weights now" "$(tmx_line 1)" "random weights"
    tmx_expect "w again: the random weights" "d_model=64 heads=4 d_k=16 mask=causal scale=on pos=none seed=42" w
    expect_contains "w again: said" "$(tmx_screen)" "w: random weights (seed 42) on this sentence; w again: stories260K"
    # The sentence edited on one side goes to the other.
    tmx send-keys e
    tmx send-keys -l "Tom ran"
    tmx_expect "e: 2 tokens" "2 tokens" Enter
    tmx_expect "w: the edited sentence" "model=stories260K" w
    expect_contains "w: Tom on the trained side" "$(tmx_screen)" "5 tokens, the model's own tokenizer"
    expect_contains "w: Tom on the trained side, its pieces" "$(tmx_line 3)" "▁T "
    tmx_stop
    # From a trained model, w gives random weights on its sentence.
    tmx_start 80 24 LC_ALL=C.UTF-8 TERM=xterm-256color -- "$ATTNVIZ" --model "$MODEL" "'Lily saw a cat'"
    tmx_expect "--model, w: start" "model=stories260K" ""
    tmx_expect "--model, w: random weights" "random weights · w: trained" w
    expect_contains "--model, w: seeded status" "$(tmx_line 0)" "seed=42"
    tmx_expect "--model, w again: the model" "model=stories260K" w
    tmx_stop
    # Where it is found: $ATTNVIZ_MODELS, then models/ here.
    mkdir -p "$TMP/mine" "$TMP/cwd/models"
    ln -s "$MODEL" "$TMP/mine/stories260K.bin"
    ln -s "$(dirname "$MODEL")/tok512.bin" "$TMP/mine/tok512.bin"
    tmx_start 80 24 LC_ALL=C.UTF-8 "ATTNVIZ_MODELS=$TMP/mine" -- "$ATTNVIZ" "'$EN'"
    tmx_expect "ATTNVIZ_MODELS: found there" "from $TMP/mine" w
    tmx_stop
    ln -s "$MODEL" "$TMP/cwd/models/stories260K.bin"
    ln -s "$(dirname "$MODEL")/tok512.bin" "$TMP/cwd/models/tok512.bin"
    tmx_start 80 24 LC_ALL=C.UTF-8 ATTNVIZ_MODELS= -- sh -c "\"cd '$TMP/cwd' && exec '$ATTNVIZ' '$EN'\""
    tmx_expect "models/ here: found" "model=stories260K" w
    expect_contains "models/ here: said" "$(tmx_screen)" "from models"
    tmx_stop
fi
# None anywhere: w says how to get one, and the random weights stay.
mkdir -p "$TMP/empty"
tmx_start 80 24 LC_ALL=C.UTF-8 "ATTNVIZ_MODELS=$TMP/empty" -- sh -c "\"cd '$TMP/empty' && exec '$ATTNVIZ' '$EN'\""
tmx_expect "no model: start" "random weights" ""
tmx_expect "no model: w says how to get one" "w: put stories260K.bin and tok512.bin (hf.co/karpathy/tinyllamas) in models/" w
expect_contains "no model: the random weights stay" "$(tmx_line 0)" "seed=42"
tmx_stop
# In a lesson w is refused, and the title does not offer it.
tmx_start 80 24 LC_ALL=C.UTF-8 -- "$ATTNVIZ" --lesson 1
tmx_expect "lesson: random weights" "random weights" ""
expect_not_contains "lesson: no offer" "$(tmx_line 1)" "w: trained"
tmx_expect "lesson: w refused" "w: not in a lesson" w
tmx_stop

# --- colours as the terminal shows them (capture-pane -e): every weight's
# background colour moves away from the terminal's background in lightness
# as the weight grows (L* of xterm's palette), the smallest weights on the
# background itself, in 256 and 8 colours, on a dark and a light background
# (--theme, and COLORFGBG's "0;15": black on white). The 8-colour ramp had
# red after blue and cyan after green, and a light background's zero was its
# darkest block.
LONG="the cat sat on the mat because the cat was tired"
if command -v python3 >/dev/null; then
    for term in xterm-256color xterm; do
        for theme in dark light fgbg; do
            case $theme in
            fgbg) opts="" env="COLORFGBG='0;15'" want=light ;;
            *) opts="--theme $theme" env="COLORFGBG=" want=$theme ;;
            esac
            tmx_start 120 30 LC_ALL=C.UTF-8 TERM=$term "$env" -- "$ATTNVIZ" $opts "'$LONG'"
            tmx_expect "colours $term $theme: start" "head 1/4" ""
            tmx send-keys j # the cursor (reversed) off row 0, whose weight is 1
            sleep 0.3
            if msg=$(tmx_screen_e | python3 tests/support/screen_ramp.py $want 5); then pass
            else fail "colours $term $theme: $msg"; fi
            # The largest weight (row 0: 1.00) gets the step farthest from the background.
            row0=$(tmx_screen_e | grep -m1 "1.000  0.00 1.00")
            case $term.$want in
            xterm-256color.dark) top="48;5;220m" ;; xterm-256color.light) top="48;5;17m" ;;
            xterm.dark) top="43m" ;; xterm.light) top="44m" ;;
            esac
            expect_contains "colours $term $theme: 1.00 on the farthest step ($top)" "$row0" "$top"
        done
    done
    tmx_stop
else
    fail "colours: python3 not found (tests/support/screen_ramp.py reads the screen's colours)"
fi

# --- the cursor in exports keeps its cell's colour: --once's ANSI text
# underlines it (the TUI reverses it; reverse video put the number's black
# where the weight's yellow was), P's picture frames it (test_picture.c).
out=$("$ATTNVIZ" --once --color always --width 80 "$EN" | grep -m1 "1.000  0.00 1.00")
expect_contains "--once: the cursor's cell keeps weight 1.00's colour, underlined" "$out" "$(printf '\033[0;1;4;38;5;16;48;5;220m')"
expect_not_contains "--once: the cursor's cell is not reversed" "$out" "$(printf ';7;38;5')"

# --- the max column: one format, two decimals ("1.00", "0.89"; it mixed
# "1.0" and ".89"), in the seeded heatmap and a trained model's
max_column() { # what width options...: every row's last field is d.dd
    what=$1 w=$2; shift 2
    out=$("$ATTNVIZ" --once --width "$w" --color never "$@" 2>&1)
    bad=$(printf '%s\n' "$out" | grep -E ' 1\.000 ' | awk '{print $NF}' | grep -vE '^[01]\.[0-9][0-9]$')
    rows=$(printf '%s\n' "$out" | grep -cE ' 1\.000 +[0-9.]+ [01]\.[0-9][0-9]$')
    [ -z "$bad" ] && [ "$rows" -gt 3 ] && pass || fail "max column ($what at $w): not d.dd: [$bad], $rows rows"
}
for w in 80 120 200; do
    max_column "seeded, causal" "$w" "$EN"
    [ -n "$MODEL" ] && max_column "stories260K" "$w" --model "$MODEL" "Lily saw a cat. Lily"
done
out=$("$ATTNVIZ" --once --width 80 --color never "$EN")
expect_contains "max column: 1.00 where a row is one-hot" "$out" "1.000  0.00 1.00"

finish
