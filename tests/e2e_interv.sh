#!/bin/sh
# End-to-end: the interventions on a trained model (issue 27), checked
# against an independent NumPy forward (tests/support/interv.py, float64):
#   head ablation   --ablate L.H,...[:zero|:mean]: its option's messages (one
#                   line, exit 2); --dump=json names the heads ("ablated") and
#                   gives the next tokens before and after, within 1e-4 of
#                   NumPy's forward with the heads' outputs zeroed or set to
#                   their mean over the text battery, on the hand-built GPT-2
#                   (tests/support/planted.py) and on stories260K; the status
#                   line names the ablation; in the TUI X cycles the head
#                   shown through zero, mean and on, the next tokens showing
#                   before -> after and the change of the logit.
#   logit lens      --dump=lens [--lens-token PIECE]: every layer's residual
#                   through the final norm and the unembedding, the top token
#                   and its probability (and the chosen token's) at every
#                   position within 1e-4 of NumPy's, with and without heads
#                   switched off; its last row is the model's prediction; the
#                   view (U, --view lens) shows the same grid.
#   ablation sweep  --dump=sweep: each head alone off, the logit of the
#                   likeliest next token (or --lens-token's) and its drop,
#                   within 1e-4 of NumPy's; the census's drop column shows it.
#   patching        --dump=patch --patch-from CORRUPT --metric A,B: each head's
#                   outputs and each layer's input at each position copied
#                   from the clean run into the corrupted one, normalised,
#                   within 1e-4 of NumPy's.
# All four also on the random GPT-2 and Llama (rotate-half RoPE) of
# tests/support/hf_fixture.py, so each architecture's path is checked.
# Without NumPy or ../shared/models: "skipped", a failure under CI.
. tests/support/lib.sh

# --- the options
out=$("$ATTNVIZ" --ablate 1.1 x 2>&1)
expect_rc "--ablate without a model" 2 $?
expect_contains "--ablate without a model: the message" "$out" "--ablate: needs --model PATH"
for bad in "1.x|'1.x' is not layer.head with layer 1..128 and head 1..64" "5|'5' is not layer.head (as 5.6; a list: 2.1,5.6)" \
    "1.1:half|unknown mode 'half' (expected zero or mean)" "1.1,1.1|head 1.1 is listed twice" "1.1,|'' is not layer.head"; do
    out=$("$ATTNVIZ" --model x --ablate "${bad%%|*}" 2>&1)
    expect_rc "--ablate ${bad%%|*}" 2 $?
    expect_contains "--ablate ${bad%%|*}: the message" "$out" "${bad#*|}"
done

check() { # name model dump
    if msg=$(ATTNVIZ="$ATTNVIZ" /usr/bin/python3 tests/support/interv.py "$@" 2>&1); then pass
    else fail "interv.py $1 $2 (NumPy): $msg"; fi
}

if need_numpy; then
    /usr/bin/python3 tests/support/planted.py write "$TMP/planted" || fail "planted.py write"
    for spec in 2.1 2.1:mean 1.1,2.2:mean 1.2,2.1; do
        "$ATTNVIZ" --model "$TMP/planted" --ablate "$spec" --dump=json "one two three one two" >"$TMP/p.json"
        expect_rc "planted --ablate $spec --dump=json" 0 $?
        check ablate "$TMP/planted" "$TMP/p.json"
    done
    expect_contains "planted: the dump names the heads" "$(cat "$TMP/p.json")" '"ablated": ["1.2:zero", "2.1:zero"]'
    for args in "" "--lens-token on" "--ablate 2.1:mean --lens-token ▁t"; do
        # shellcheck disable=SC2086
        "$ATTNVIZ" --model "$TMP/planted" --dump=lens $args "one two three one two" >"$TMP/pl.json"
        expect_rc "planted --dump=lens $args" 0 $?
        check lens "$TMP/planted" "$TMP/pl.json"
    done
    "$ATTNVIZ" --model "$TMP/planted" --dump=sweep "one two three one two" >"$TMP/ps.json"
    expect_rc "planted --dump=sweep" 0 $?
    check sweep "$TMP/planted" "$TMP/ps.json"
    for kind in gpt2 llama; do
        /usr/bin/python3 tests/support/hf_fixture.py write "$TMP/$kind" $kind || fail "hf_fixture.py write $kind"
        F=$TMP/$kind
        "$ATTNVIZ" --model "$F" --ablate 1.2,2.1:mean --dump=json "the cat sat on the mat" >"$TMP/f.json" &&
            check ablate "$F" "$TMP/f.json"
        "$ATTNVIZ" --model "$F" --ablate 1.1 --dump=lens --lens-token at "the cat sat" >"$TMP/f.json" &&
            check lens "$F" "$TMP/f.json"
        "$ATTNVIZ" --model "$F" --dump=sweep "the cat sat" >"$TMP/f.json" && check sweep "$F" "$TMP/f.json"
        "$ATTNVIZ" --model "$F" --dump=patch --patch-from "the mat sat" --metric "▁c,▁m" "the cat sat" >"$TMP/f.json" &&
            check patch "$F" "$TMP/f.json"
    done
    "$ATTNVIZ" --model "$TMP/planted" --ablate 9.1 --dump=json x >/dev/null 2>"$TMP/err"
    expect_rc "planted --ablate 9.1" 2 $?
    expect_contains "planted --ablate 9.1: the message" "$(cat "$TMP/err")" \
        "--ablate: head 9.1 is not in the model (2 layers of 2 heads)"
fi

if model_need stories260K.bin tok512.bin; then
    S="Lily saw a cat. Lily"
    if need_numpy; then
        for spec in 5.6 5.6:mean 1.4,2.7,3.1 2.3,4.1:mean; do
            "$ATTNVIZ" --model "$MODEL" --ablate "$spec" --dump=json "$S" >"$TMP/s.json"
            expect_rc "stories260K --ablate $spec --dump=json" 0 $?
            check ablate "$MODEL" "$TMP/s.json"
        done
    fi
    if need_numpy; then
        for args in "" "--lens-token ▁was" "--ablate 5.6,2.3:mean --lens-token ▁saw"; do
            # shellcheck disable=SC2086
            "$ATTNVIZ" --model "$MODEL" --dump=lens $args "$S" >"$TMP/sl.json"
            expect_rc "stories260K --dump=lens $args" 0 $?
            check lens "$MODEL" "$TMP/sl.json"
        done
    fi
    if need_numpy; then
        for args in "" "--ablate 2.3:mean --lens-token ▁saw"; do
            # shellcheck disable=SC2086
            "$ATTNVIZ" --model "$MODEL" --dump=sweep $args "$S" >"$TMP/ss.json"
            expect_rc "stories260K --dump=sweep $args" 0 $?
            check sweep "$MODEL" "$TMP/ss.json"
        done
    fi
    if need_numpy; then
        "$ATTNVIZ" --model "$MODEL" --dump=patch --patch-from "Tim saw a cat. Tim" --metric ▁Lily,▁Tim "$S" >"$TMP/sp.json"
        expect_rc "stories260K --dump=patch" 0 $?
        check patch "$MODEL" "$TMP/sp.json"
        # doc/dumps.md: layer 3 head 7 restores the most (0.35); the last position's input restores 0.74 at layer 1
        if msg=$(/usr/bin/python3 - "$TMP/sp.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
best = max((v, l + 1, h + 1) for l, r in enumerate(d["heads"]) for h, v in enumerate(r))
assert best[1:] == (3, 7) and round(best[0], 2) == 0.35, best
assert round(d["resid_pre"][0][-1], 2) == 0.74 and round(d["resid_pre"][0][1], 2) == 0.28, d["resid_pre"][0]
PY
        ); then pass; else fail "stories260K --dump=patch: $msg"; fi
    fi
    out=$("$ATTNVIZ" --model "$MODEL" --dump=patch --patch-from "Tim saw a cat" --metric ▁Lily,▁Tim "$S" 2>&1)
    expect_rc "--patch-from of another length" 2 $?
    expect_contains "--patch-from of another length: the message" "$out" \
        "--patch-from: 6 tokens, the sentence 8: patching needs prompts of the same length"
    out=$("$ATTNVIZ" --model "$MODEL" --dump=patch --metric ▁Lily,▁Tim "$S" 2>&1)
    expect_rc "--dump=patch without --patch-from" 2 $?
    expect_contains "--dump=patch without --patch-from: the message" "$out" "needs --patch-from TEXT"
    out=$("$ATTNVIZ" --model "$MODEL" --dump=patch --patch-from x --metric Lily "$S" 2>&1)
    expect_rc "--metric of one token" 2 $?
    expect_contains "--metric of one token: the message" "$out" "--metric: expected two tokens A,B"
    # doc/models.md: ▁was 14.96, layer 5 heads 3 and 6 drop it most, 0.5
    "$ATTNVIZ" --model "$MODEL" --dump=sweep "$S" >"$TMP/ss.json"
    if msg=$(/usr/bin/python3 - "$TMP/ss.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["token"]["piece"] == " was" and round(d["logit"], 2) == 14.96, (d["token"], d["logit"])
top = sorted(d["heads"], key=lambda e: -e["drop"])[:2]
assert {(e["layer"], e["head"]) for e in top} == {(5, 3), (5, 6)}, top
assert all(round(e["drop"], 1) == 0.5 for e in top), top
PY
    ); then pass; else fail "stories260K --dump=sweep: $msg"; fi
    # the census's drop: layer 5 head 6 off, ▁was's logit falls by 0.53 (as X shows)
    out=$("$ATTNVIZ" --model "$MODEL" --once --width 80 --color=never --view census "$S")
    expect_contains "census: the drop column" "$out" "│ 0.29  0.30  0.98       0.5"
    expect_contains "census: the drop's legend" "$out" "drop: the fall of ▁was's logit after ▁Lily[7] (14.96), the head alone off"
    # the lens's last row is the prediction: after the last ▁Lily, ▁was 0.60
    "$ATTNVIZ" --model "$MODEL" --dump=lens --lens-token ▁was "$S" >"$TMP/sl.json"
    if msg=$(/usr/bin/python3 - "$TMP/sl.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
top, tok = d["lens"]["top"], d["lens"]["token"]
assert len(top) == 6 and len(top[0]) == 8, (len(top), len(top[0]))
assert top[-1][-1]["piece"] == " was" and abs(top[-1][-1]["prob"] - 0.596) < 1e-3, top[-1][-1]
assert tok["id"] == 286 and abs(tok["prob"][-1][-1] - top[-1][-1]["prob"]) < 1e-7
assert tok["prob"][-2][-1] < 0.3, tok["prob"]  # doc/models.md: 0.60 only in the last layer
assert d["ablated"] == [] and d["ids"][0] == 1
PY
    ); then pass; else fail "stories260K --dump=lens: $msg"; fi
    out=$("$ATTNVIZ" --model "$MODEL" --dump=lens --lens-token xyzzy "$S" 2>&1)
    expect_rc "--lens-token xyzzy" 2 $?
    expect_contains "--lens-token xyzzy: the message" "$out" "--lens-token: 'xyzzy' is no piece of the model's vocabulary"
    out=$("$ATTNVIZ" --model "$MODEL" --once --width 80 --color=never --view lens "$S")
    expect_contains "the lens view: its rows" "$out" "layer 5 ▁Once"
    expect_contains "the lens view: the prediction" "$out" "▁She███ ▁was"
    expect_contains "the lens view: the choice by layer" "$out" "the model's choice ▁Once, layer by layer: 0.00 0.75 0.91 0.72 0.52 0.78"
    # before: the model's own prediction (lesson 7: ▁was 0.60)
    "$ATTNVIZ" --model "$MODEL" --ablate 5.6 --dump=json "$S" >"$TMP/s.json"
    expect_contains "stories260K: before" "$(cat "$TMP/s.json")" '"next_tokens_before": [{"id": 286, "piece": " was"'
    out=$("$ATTNVIZ" --model "$MODEL" --ablate 5.6,1.1:mean --once --width 100 --color=never "$S")
    expect_contains "the status line names the ablation" "$out" "layer=1/5 ablate=5.6:mean,1.1:mean"
    out=$("$ATTNVIZ" --model "$MODEL" --ablate 5.6 --dump "$S" | head -1)
    expect_contains "the text dump's status names it" "$out" "ablate=5.6:zero"
    # the TUI: X on layer 5 head 6, the last row
    tmx_start 100 30 LC_ALL=C.UTF-8 -- "$ATTNVIZ" --model "$MODEL" --layer 5 --head 6 "\"$S\""
    tmx_wait "model=stories260K" || fail "X: no screen"
    tmx_expect "X: zero ablation" "layer=5/5 ablate=5.6:zero" End X
    tmx_expect "X: the message" "layer 5 head 6 off (its output zeroed)"
    tmx_expect "X: before -> after" "next after ▁Lily[7], ablated:  ▁was 0.60→0.44 Δ-0.53"
    tmx_expect "X again: mean ablation" "layer=5/5 ablate=5.6:mean" X
    tmx_expect "X again: on" "next after ▁Lily[7]:  ▁was 0.60" X
    case $(tmx_line 0) in *ablate=*) fail "X three times: still ablated: $(tmx_line 0)" ;; *) pass ;; esac
    tmx_stop
    # U: the lens, the cursor on the last row; X from there is the same model's
    tmx_start 100 30 LC_ALL=C.UTF-8 -- "$ATTNVIZ" --model "$MODEL" "\"$S\""
    tmx_wait "model=stories260K" || fail "U: no screen"
    tmx_expect "U: the lens" "logit lens: every layer through the unembedding" End U
    tmx_expect "U: the last position" "layer 5 after ▁Lily[7]: ▁was 0.60"
    tmx_expect "U: ↑ a layer down the stream" "layer 4 after ▁Lily[7]:" Up
    tmx_expect "U again: the heatmap" "weights A = softmax" U
    tmx_stop
    out=$("$ATTNVIZ" --once --width 80 --color=never --view lens "the cat sat")
    expect_contains "the lens of the seeded model" "$out" "the logit lens reads a trained model's layers (--model PATH)"
    out=$("$ATTNVIZ" --model "$MODEL" --ablate 5.6 --generate 8 "$S")
    expect_rc "--generate with an ablation" 0 $?
fi
finish
