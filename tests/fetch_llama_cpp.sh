#!/bin/sh
# Prints the folder holding llama.cpp's prebuilt CPU libraries (libggml-base.so,
# libllama, the ggml-cpu variants; no GPU needed) and node-llama-cpp, the
# Node.js binding that loads them: the npm packages node-llama-cpp and
# @node-llama-cpp/linux-x64 (MIT), pinned, installed once with `npm install
# --prefix` into build/npm/llama-cpp/ (never committed; about 83 MB). The
# libraries are in FOLDER/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64.
# Exit 1 with a line on stderr when npm is absent, the machine is not
# x86-64 Linux, or the registry cannot be reached: the tests then skip, or
# fail under CI.
set -u
cd "$(dirname "$0")/.." || exit 1
VERSION=3.21.1
dir=build/npm/llama-cpp
bins=node_modules/@node-llama-cpp/linux-x64/bins/linux-x64
tmp=$dir.tmp.$$ # two runs at once each install into their own folder
have() {
    [ -s "$1/$bins/libggml-base.so" ] && [ -s "$1/node_modules/node-llama-cpp/package.json" ] &&
        grep -q "\"version\": \"$VERSION\"" "$1/node_modules/node-llama-cpp/package.json"
}
if have "$dir"; then
    echo "$PWD/$dir"
    exit 0
fi
[ "$(uname -s)-$(uname -m)" = Linux-x86_64 ] ||
    { echo "llama.cpp's prebuilt libraries (npm @node-llama-cpp/linux-x64) are for x86-64 Linux only" >&2; exit 1; }
command -v npm >/dev/null 2>&1 || { echo "npm is not installed: llama.cpp (node-llama-cpp) cannot be fetched" >&2; exit 1; }
rm -rf "$tmp" && mkdir -p "$tmp" || exit 1
# --omit=optional: the other platforms' and the GPU builds are optional
# dependencies; the x86-64 CPU build is asked for by name.
if ! timeout 180 npm install --prefix "$tmp" --no-audit --no-fund --no-save --silent -E --omit=optional \
    "node-llama-cpp@$VERSION" "@node-llama-cpp/linux-x64@$VERSION" >"$tmp.log" 2>&1; then
    echo "npm install node-llama-cpp@$VERSION failed: $(tail -1 "$tmp.log" 2>/dev/null)" >&2
    rm -rf "$tmp" "$tmp.log"
    exit 1
fi
rm -f "$tmp.log"
if have "$dir"; then rm -rf "$tmp"; else rm -rf "$dir" && mv "$tmp" "$dir" || exit 1; fi
have "$dir" || { echo "build/npm/llama-cpp: the packages are incomplete" >&2; exit 1; }
echo "$PWD/$dir"
