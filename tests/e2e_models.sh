#!/bin/sh
# End-to-end: the models already on a disk (issue 28, src/formats/discover.h)
# in a fake HOME built here: an Ollama store (manifests naming hash-named
# blobs, a library model and a namespaced one), LM Studio's folders, the
# Hugging Face cache (refs/main, a snapshot whose GGUF is a symlink into
# blobs/, a folder whose config.json names an architecture attnviz does not
# run) and $ATTNVIZ_MODELS. `attnviz --models` lists each with its name,
# architecture, types, size and whether it opens; --model ollama:NAME:TAG
# and hf:ORG/NAME open them (stories260K's greedy text, its name as the
# title); a name not there says where it looked, exit 2.
. tests/support/lib.sh

model_need stories260K.bin tok512.bin || { finish; exit; }
need_numpy || { finish; exit; }
M=$MODELS
G=tests/support/gguf_model.py
/usr/bin/python3 $G bin2gguf "$MODEL" "$M/tok512.bin" "$TMP/s.gguf" F32 >/dev/null
/usr/bin/python3 $G bin2gguf "$MODEL" "$M/tok512.bin" "$TMP/q.gguf" Q8_0 >/dev/null
/usr/bin/python3 $G bad "$TMP/bad" >/dev/null
H=$TMP/home

# Ollama: blobs/sha256-HEX, and manifests that name them
O=$H/.ollama/models
mkdir -p "$O/blobs" "$O/manifests/registry.ollama.ai/library/stories" "$O/manifests/registry.ollama.ai/someone/tiny"
sum=$(sha256sum "$TMP/s.gguf" | cut -d' ' -f1)
cp "$TMP/s.gguf" "$O/blobs/sha256-$sum"
qsum=$(sha256sum "$TMP/q.gguf" | cut -d' ' -f1)
cp "$TMP/q.gguf" "$O/blobs/sha256-$qsum"
manifest() { # blob hash
    printf '{"schemaVersion":2,"mediaType":"application/vnd.docker.distribution.manifest.v2+json",'
    printf '"config":{"mediaType":"application/vnd.docker.container.image.v1+json","digest":"sha256:%064d","size":1},' 0
    printf '"layers":[{"mediaType":"application/vnd.ollama.image.template","digest":"sha256:%064d","size":2},' 1
    printf '{"mediaType":"application/vnd.ollama.image.model","digest":"sha256:%s","size":3}]}\n' "$1"
}
manifest "$sum" >"$O/manifests/registry.ollama.ai/library/stories/260k"
manifest "$qsum" >"$O/manifests/registry.ollama.ai/someone/tiny/latest"

# LM Studio: PUBLISHER/REPO/FILE.gguf; one it cannot run
mkdir -p "$H/.lmstudio/models/karpathy/tinyllamas-GGUF" "$H/.lmstudio/models/other/mamba-GGUF"
cp "$TMP/q.gguf" "$H/.lmstudio/models/karpathy/tinyllamas-GGUF/stories260K-Q8_0.gguf"
cp "$TMP/bad/bad-arch.gguf" "$H/.lmstudio/models/other/mamba-GGUF/mamba-Q8_0.gguf"

# The Hugging Face cache: refs/main, snapshots/REV/FILE -> ../../blobs/HASH
R=$H/.cache/huggingface/hub/models--karpathy--stories260K-gguf
mkdir -p "$R/refs" "$R/blobs" "$R/snapshots/0123abcd" "$R/snapshots/ffff0000"
cp "$TMP/s.gguf" "$R/blobs/$sum"
ln -s "../../blobs/$sum" "$R/snapshots/0123abcd/stories260K.gguf"
printf '0123abcd' >"$R/refs/main"
B=$H/.cache/huggingface/hub/models--google--bert-tiny/snapshots/1
mkdir -p "$B"
printf '{"model_type": "bert", "architectures": ["BertModel"]}\n' >"$B/config.json"

# $ATTNVIZ_MODELS: a folder of files
mkdir -p "$TMP/mine"
cp "$MODEL" "$M/tok512.bin" "$TMP/mine/"

run() { env -u OLLAMA_MODELS -u HF_HOME -u HF_HUB_CACHE HOME="$H" "$@"; }
out=$(run ATTNVIZ_MODELS="$TMP/mine" "$ATTNVIZ" --models)
expect_rc "--models" 0 $?
line() { printf '%s\n' "$out" | grep "^$1	" | cut -f1-5; }
[ "$(printf '%s\n' "$out" | wc -l)" = 7 ] && pass || fail "--models: not 7 lines: $out"
[ "$(line "$TMP/mine/stories260K.bin")" = "$TMP/mine/stories260K.bin	llama2.c	F32	1.1 MB	yes" ] && pass ||
    fail "--models: the folder's .bin: [$(line "$TMP/mine/stories260K.bin")]"
[ "$(line ollama:stories:260k)" = "ollama:stories:260k	llama	F32	1.1 MB	yes" ] && pass ||
    fail "--models: ollama library: [$(line ollama:stories:260k)]"
[ "$(line ollama:someone/tiny:latest)" = "ollama:someone/tiny:latest	llama	F32+Q8_0	454.3 KB	yes" ] && pass ||
    fail "--models: ollama namespace: [$(line ollama:someone/tiny:latest)]"
[ "$(line hf:karpathy/stories260K-gguf)" = "hf:karpathy/stories260K-gguf	llama	F32	1.1 MB	yes" ] && pass ||
    fail "--models: hf: [$(line hf:karpathy/stories260K-gguf)]"
expect_contains "--models: a config.json it cannot run" "$(line hf:google/bert-tiny)" 'bert	safetensors'
expect_contains "--models: why not" "$out" 'model_type "bert" is not supported'
expect_contains "--models: LM Studio" "$out" "stories260K-Q8_0.gguf	llama	F32+Q8_0	454.3 KB	yes"
expect_contains "--models: an architecture it does not run" "$out" 'mamba	Q8_0	'
expect_contains "--models: and why" "$out" 'architecture "mamba" (general.architecture) is not one attnviz runs'
out=$(run "$ATTNVIZ" --models)
[ "$(printf '%s\n' "$out" | wc -l)" = 6 ] && pass || fail "--models without ATTNVIZ_MODELS: $out"
out=$(run OLLAMA_MODELS="$TMP/none" HOME="$TMP/nohome" "$ATTNVIZ" --models)
expect_contains "--models: nothing" "$out" "no models found (looked in $TMP/none, $TMP/nohome/.lmstudio/models"

# The names --model takes
cat >"$TMP/want" <<'TEXT'
Once upon a time, there was a little girl named Lily. She loved to play outside in the park. One day, she saw a big, red ball. She wanted to play with it, but it was too high.
Lily's mom said, "Lily, let's go to the park." Lily was sad and didn't know what to do. She said, "I want to play with your ball, but I can't find it."
Lily was sad and didn't know what to do. She said, "I'm sorry, Lily. I didn't know what to do."
Lily didn't want to help her mom, so she
TEXT
for name in ollama:stories:260k hf:karpathy/stories260K-gguf; do
    run "$ATTNVIZ" --model "$name" --generate 200 >"$TMP/got"
    expect_rc "$name" 0 $?
    cmp -s "$TMP/got" "$TMP/want" && pass || fail "$name: not llama2.c's text"
done
out=$(run "$ATTNVIZ" --model ollama:someone/tiny --generate 5 "Lily saw a cat. Lily")
expect_contains "ollama: the latest tag" "$out" " was"
out=$(run "$ATTNVIZ" --model ollama:stories:260k --dump=json "Lily" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["config"]["model"]["name"])')
[ "$out" = "stories:260k" ] && pass || fail "ollama: the title is [$out]"
bad() { # name needle args...
    name=$1 needle=$2
    shift 2
    err=$(run "$@" 2>&1 >/dev/null)
    expect_rc "$name" 2 $?
    expect_contains "$name" "$err" "$needle"
    [ "$(printf '%s\n' "$err" | grep -c '^attnviz:')" = 1 ] && pass || fail "$name: not one line: $err"
}
bad "ollama: not there" "ollama:llama3.2:1b: not found (no manifest $O/manifests/registry.ollama.ai/library/llama3.2/1b)" \
    "$ATTNVIZ" --model ollama:llama3.2:1b --dump
bad "hf: not there" "hf:HuggingFaceTB/SmolLM2-135M: not in the Hugging Face cache (no $H/.cache/huggingface/hub/models--HuggingFaceTB--SmolLM2-135M)" \
    "$ATTNVIZ" --model hf:HuggingFaceTB/SmolLM2-135M --dump
bad "ollama: a path in the name" "not an Ollama name" "$ATTNVIZ" --model "ollama:../../etc:passwd" --dump
bad "hf: a bad name" "not a Hugging Face name (ORG/NAME)" "$ATTNVIZ" --model hf:noslash --dump
bad "hf: an architecture it does not run" 'model_type "bert" is not supported' "$ATTNVIZ" --model hf:google/bert-tiny --dump
finish
