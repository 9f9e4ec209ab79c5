#!/bin/sh
# End-to-end: a Korean class reads Korean in every string (po/ko.po, GNU
# gettext; tui/language.c). The catalogue holds every text the sources mark
# and translates each one (msgcmp); every view, the help, the cell page, the
# prompts, the lesson list and the messages are drawn with --lang ko and with
# LANG=ko_KR.UTF-8, and tests/support/english_words.py finds no English word
# on them but those tests/support/ko_allowed.txt lists (symbols, key names,
# formats) and the words of the text shown. A ko_KR.UTF-8 that is not
# installed is said in one line, and the screen stays Korean and UTF-8.
. tests/support/lib.sh

ALLOW=tests/support/ko_allowed.txt
# english NAME SCREEN [TEXT]: no English word left on SCREEN
english() {
    printf '%s\n' "$2" >"$TMP/screen"
    printf '%s\n' "${3:-}" >"$TMP/text"
    if out=$(/usr/bin/python3 tests/support/english_words.py "$ALLOW" "$TMP/screen" "$TMP/text"); then
        pass
    else
        fail "$1: English on a Korean screen:"
        printf '%s\n' "$out" | head -15
    fi
}

# --- the catalogue: up to date with the sources, every text translated
if peer_need "xgettext and msgcmp (apt-get install gettext)" command -v xgettext; then
    make -s --no-print-directory pot-check >"$TMP/pot" 2>&1 && pass || { fail "po/: $(cat "$TMP/pot")"; }
fi

need_python || exit 1

KO="나는 어제 친구와 영화를 봤는데 그 영화는 정말 재미있었다"
EN_DEFAULT="the cat sat on the mat"

# --- every view, at 80 and 200 columns, seeded weights
for v in heatmap heads pipeline gravity census classes zoom; do
    for w in 80 200; do
        scr=$("$ATTNVIZ" --once --lang ko --width $w --color=never --view $v "$KO" 2>&1)
        english "--view $v at $w" "$scr" "$KO"
        scr=$("$ATTNVIZ" --once --lang ko --width $w --color=never --view $v -m causal --stage scores -H 2 "$KO" 2>&1)
        english "--view $v causal scores at $w" "$scr" "$KO"
    done
done
# the cross attention, the cell's arithmetic stages
scr=$("$ATTNVIZ" --once --lang ko --width 100 --color=never --target '나는 밥을 보았다' --attn cross --pad 2 -m padding "$KO" 2>&1)
english "cross attention" "$scr" "$KO 나는 밥을 보았다"

# --- a trained model (its text is English: its words are allowed)
if model_need stories260K.bin tok512.bin; then
    S="Once upon a time there was a little girl named Lily. Lily saw a cat"
    for v in heatmap heads census classes zoom pipeline lens; do
        scr=$("$ATTNVIZ" --once --lang ko --width 120 --color=never --model "$MODEL" --view $v "$S" 2>&1)
        english "model --view $v" "$scr" "$S"
    done
fi

# --- the lesson list, and its captions
scr=$("$ATTNVIZ" --lesson list --lang ko 2>&1)
english "--lesson list" "$scr"
LANG=ko_KR.UTF-8 "$ATTNVIZ" --lesson list >"$TMP/list" 2>&1
expect_contains "--lesson list in a Korean locale" "$(cat "$TMP/list")" "단계"

# --- messages on standard error
scr=$("$ATTNVIZ" --lang ko -H 99 2>&1)
english "-H 99" "$scr"
scr=$("$ATTNVIZ" --lang ko --model /nonexistent 2>&1)
english "--model missing" "$scr" "/nonexistent"

# --- the interactive screens in tmux, in a Korean locale
if locale -a 2>/dev/null | grep -qi '^ko_KR\.utf-\?8$'; then KOENV=LANG=ko_KR.UTF-8; else KOENV="LC_ALL=C.UTF-8 LANGUAGE=ko"; fi
for size in 80x24 200x50; do
    w=${size%x*} h=${size#*x}
    # each key on a fresh start: the views it opens, the help, the cell page
    for k in '' '?' Enter c g a H A Z n w; do
        tmx_start "$w" "$h" $KOENV TERM=xterm-256color -- "$ATTNVIZ" "'$KO'"
        tmx_wait "d_k=" || fail "$size: no screen"
        [ -n "$k" ] && tmx send-keys "$k"
        sleep 0.5
        english "$size: after [$k]" "$(tmx_screen)" "$KO"
    done
    # the prompts and a refused value
    tmx send-keys Escape d
    sleep 0.3
    english "$size: the d_k prompt" "$(tmx_screen)" "$KO"
    tmx send-keys C-u abc Enter
    sleep 0.3
    english "$size: a refused d_k" "$(tmx_screen)" "$KO abc"
    tmx send-keys Escape e
    sleep 0.3
    english "$size: the edit prompt" "$(tmx_screen)" "$KO"
    tmx send-keys Escape
    tmx_stop
done

# --- a Korean locale that is not installed: said, and still Korean UTF-8
out=$(env -u LC_ALL -u LANGUAGE LANG=ko_ZZ.UTF-8 "$ATTNVIZ" --once --width 80 --color=never "$KO" 2>&1)
expect_contains "missing locale: the reason" "$out" "ko_ZZ.UTF-8"
expect_contains "missing locale: UTF-8 glyphs" "$out" "·"
english "missing locale" "$out" "$KO ko_ZZ"
out=$(env -u LC_ALL -u LANGUAGE LANG=xx_ZZ.UTF-8 "$ATTNVIZ" --once --width 80 --color=never 2>&1 >/dev/null)
expect_contains "missing locale in English" "$out" "the locale xx_ZZ.UTF-8 is not installed"
# English stays English
out=$("$ATTNVIZ" --once --lang en --width 80 --color=never "$KO" 2>&1)
expect_contains "--lang en" "$out" "d_k"
LANG=ko_KR.UTF-8 "$ATTNVIZ" --once --lang en --width 80 --color=never "$KO" >"$TMP/en" 2>&1
english_count=$(grep -c '[A-Za-z]\{4,\}' "$TMP/en")
[ "$english_count" -gt 0 ] && pass || fail "--lang en in a Korean locale: no English"
finish
