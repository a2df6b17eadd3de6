# shellcheck shell=bash
# Issue 26, the vocabulary: with "logprobs" on, KLD is never taken across
# rungs whose tokenizers differ. A ladder with one rung of another
# vocabulary is refused before any server starts (not even --version);
# `run --config` of that rung too, and a rung whose vocabulary differs from
# one the run folder's manifest recorded; the same ladder with logprobs
# off runs as before. Sourced by tests/integration/cases.sh.
#
# Tests: orchestrator/cmd/ladder_plan.c
# Tests: rundir/manifest.c
# Tests: weights/gguf.c
# Tests: orchestrator/cmd/cmd_sha256.c

# The fake models as GGUFs with a vocabulary (tests/fake-tools/fake-gguf.c):
# "demo" for most, "other" a second tokenizer's, "none" without one.
vocab_models() {
    [ -e "$work/v-other.gguf" ] && return 0
    "$build/fake-gguf" "$work/good.gguf" "$work/v-a.gguf" demo &&
        "$build/fake-gguf" "$work/drift.gguf" "$work/v-b.gguf" demo &&
        "$build/fake-gguf" "$work/drift.gguf" "$work/v-none.gguf" none &&
        "$build/fake-gguf" "$work/drift.gguf" "$work/v-other.gguf" other ||
        fail "fake-gguf failed"
    # a server binary that notes every start, --version included
    cat >"$work/v-server" <<SH
#!/bin/sh
echo "\$*" >>"$work/v-started"
exec "$FAKE" "\$@"
SH
    chmod +x "$work/v-server"
}

# vocab_config NAME LOGPROBS MODEL... -> $work/NAME.json, rungs R1.. on
# the models given (v-a v-b ...), logprobs N (0: the key left out)
vocab_config() {
    local name=$1 lp=$2 rungs="" i=0 m; shift 2
    for m in "$@"; do
        i=$((i + 1))
        rungs="$rungs${rungs:+, }{\"name\": \"R$i\", \"model\": \"$work/$m.gguf\"}"
    done
    cat >"$work/$name.json" <<JSON
{"name": "$name", "questions": "$work/q.jsonl", "run_dir": "$work/$name",
 "rungs": [$rungs], "server": {"binary": "$work/v-server"}, "gpus": ["0"]
 $([ "$lp" = 0 ] || echo ", \"logprobs\": $lp")}
JSON
}

case_vocab_refused() {
    local rc=0
    vocab_models
    rm -f "$work/v-started"
    vocab_config vr 2 v-a v-b v-other
    $GT ladder "$work/vr.json" --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] || fail "exit $rc, not 2: $(cat "$work/err")"
    [ "$(wc -l <"$work/err")" = 1 ] || fail "not one line: $(cat "$work/err")"
    grep -q "rungs R1 and R3 have different vocabularies ('$work/v-a.gguf', vocabulary [0-9a-f]\{12\}; '$work/v-other.gguf', vocabulary [0-9a-f]\{12\})" "$work/err" ||
        fail "the line does not name both rungs and both files: $(cat "$work/err")"
    [ -e "$work/v-started" ] && fail "a server was started: $(cat "$work/v-started")"
    [ -e "$work/vr" ] && fail "a run folder was made"
    # the rung alone, as the ladder's children run it: the reference's
    # vocabulary is the config's first rung's
    rc=0; $GT run --config "$work/vr.json" --rung R3 --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "rungs R1 and R3 have different vocabularies" "$work/err" ||
        fail "run --config --rung R3: exit $rc $(cat "$work/err")"
    # (run asks the binary its --version first, as it always has; no -m)
    [ -e "$work/v-started" ] && grep -q -- -m "$work/v-started" && fail "run: a server was started: $(cat "$work/v-started")"
    [ -e "$work/vr/rows" ] && fail "run: a rows folder was made"
    true
}

# A GGUF without a vocabulary cannot be compared: refused by name with
# logprobs on. A file that is not a GGUF at all (the fake's bare JSON
# script; no llama-server loads one) passes unread, with a note.
case_vocab_none() {
    local rc=0
    vocab_models
    rm -f "$work/v-started"
    vocab_config vn 2 v-a v-none
    $GT ladder "$work/vn.json" --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "rung R2: $work/v-none.gguf: no vocabulary: no tokenizer.ggml.tokens" "$work/err" ||
        fail "no vocabulary: exit $rc $(cat "$work/err")"
    [ -e "$work/v-started" ] && fail "a server was started: $(cat "$work/v-started")"
    vocab_config vj 2 v-a good
    rc=0; $GT ladder "$work/vj.json" >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 0 ] && grep -q "rung R2: '$work/good.gguf' is not a GGUF: its vocabulary is not checked" "$work/err" ||
        fail "not a GGUF: exit $rc $(cat "$work/err")"
    [ "$(rows "$work/vj" R2)" = 4 ] || fail "R2 did not answer"
    rc=0; $GT run --config "$work/vj.json" --rung R2 --run-dir "$work/vj2" >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 0 ] && grep -q "R2: rung R2: '$work/good.gguf' is not a GGUF: its vocabulary is not checked" "$work/err" ||
        fail "the run's note: exit $rc $(cat "$work/err")"
    true
}

# Logprobs off: the same ladder runs as it always did, no vocabulary read
# or recorded.
case_vocab_off() {
    local rc=0
    vocab_models
    vocab_config vo 0 v-a v-b v-other
    $GT ladder "$work/vo.json" --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 0 ] || fail "exit $rc: $(cat "$work/err")"
    [ "$(rows "$work/vo" R3)" = 4 ] || fail "R3 did not answer"
    grep -q vocab_sha256 "$work/vo/manifest.json" && fail "a vocabulary recorded with logprobs off"
    true
}

# One vocabulary: the ladder runs, each rung's vocabulary sha256 is in the
# manifest (graveyard sha256 --vocab's); then a rung of another vocabulary
# run into that folder (its config's reference is itself) is refused by
# what the manifest recorded.
case_vocab_recorded() {
    local rc=0 want
    vocab_models
    vocab_config vs 2 v-a v-b
    $GT ladder "$work/vs.json" --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 0 ] || fail "exit $rc: $(cat "$work/err")"
    want=$($G sha256 --vocab "$work/v-b.gguf" | cut -d' ' -f1)
    [ "$($G sha256 --vocab "$work/v-a.gguf" | cut -d' ' -f1)" = "$want" ] || fail "one vocabulary, two hashes"
    [ "$($G sha256 --vocab "$work/v-other.gguf" | cut -d' ' -f1)" = "$want" ] && fail "two vocabularies, one hash"
    /usr/bin/python3 - "$work/vs/manifest.json" "$want" <<'PY' || fail "manifest: $(cat "$work/vs/manifest.json")"
import json, sys
m = json.load(open(sys.argv[1]))
assert all(m["rungs"][r]["vocab_sha256"] == sys.argv[2] for r in ("R1", "R2")), m["rungs"]
PY
    rm -f "$work/v-started"
    # a new rung R7, the reference of its own config: only the manifest
    # can tell
    vocab_config vx 2 v-other
    sed -i 's|"R1"|"R7"|' "$work/vx.json"
    rc=0; $GT run --config "$work/vx.json" --rung R7 --run-dir "$work/vs" --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] || fail "another vocabulary into the folder: exit $rc $(cat "$work/err")"
    grep -q "rungs R[12] and R7 have different vocabularies ('$work/v-[ab].gguf', vocabulary ${want:0:12}; '$work/v-other.gguf'" "$work/err" ||
        fail "the line: $(cat "$work/err")"
    # the same by hand: run's positional form, --logprobs
    rc=0; $GT run R8 "$work/v-other.gguf" "$work/q.jsonl" "$work/vs" --llama "$work/v-server" --logprobs 3 \
        --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "rungs R[12] and R8 have different vocabularies" "$work/err" ||
        fail "run R8 --logprobs 3: exit $rc $(cat "$work/err")"
    [ -e "$work/v-started" ] && grep -q -- -m "$work/v-started" && fail "a server was started: $(cat "$work/v-started")"
    [ -e "$work/vs/rows/R8.jsonl" ] && fail "R8's rows were made"
    true
}

# The fake converter and quantizer give a ladder one vocabulary, and
# FAKE_VOCAB another to the type it names: what a built ladder's check
# sees.
case_vocab_fake_tools() {
    local d=$work/vft h
    mkdir -p "$d"
    cp "$ROOT/tests/fake-tools/convert_hf_to_gguf.py" "$d/convert.py"
    "$build/fake-convert-hf" "$d/convert.py" "$ROOT/configs/demo/checkpoint" --outtype bf16 \
        --outfile "$d/BF16.gguf" >/dev/null || fail "convert failed"
    "$build/fake-llama-quantize" "$d/BF16.gguf" "$d/Q8_0.gguf" Q8_0 >/dev/null 2>&1 || fail "Q8_0 failed"
    FAKE_VOCAB=q4_0:other "$build/fake-llama-quantize" "$d/BF16.gguf" "$d/Q4_0.gguf" Q4_0 >/dev/null 2>&1 ||
        fail "Q4_0 failed"
    FAKE_VOCAB='*:none' "$build/fake-llama-quantize" "$d/BF16.gguf" "$d/Q2_K.gguf" Q2_K >/dev/null 2>&1 ||
        fail "Q2_K failed"
    h=$($G sha256 --vocab "$d/BF16.gguf" "$d/Q8_0.gguf" "$d/Q4_0.gguf" 2>&1 | cut -d' ' -f1 | sort | uniq -c | sort -n | tr -s ' ')
    [ "$(echo "$h" | wc -l)" = 2 ] && echo "$h" | head -1 | grep -q '^ 1 ' && echo "$h" | tail -1 | grep -q '^ 2 ' ||
        fail "BF16 and Q8_0 one vocabulary, Q4_0 another: $h"
    $G sha256 --vocab "$d/Q2_K.gguf" >/dev/null 2>"$work/err" && fail "Q2_K has a vocabulary"
    grep -q "no vocabulary" "$work/err" || fail "Q2_K: $(cat "$work/err")"
    true
}

# N outside 1..20 (GRADER_PROBS_TOPN_MAX, OpenAI's own cap on
# top_logprobs) is refused before anything starts, as any bad value.
case_vocab_logprobs_range() {
    local v
    vocab_models
    vocab_config lr 8 v-a v-b
    for v in 0 21 -1 '"8"' 2.5 true; do
        refused_config lr "s|\"logprobs\": 8|\"logprobs\": $v|" "'logprobs' must be an integer from 1 to 20" "logprobs $v"
    done
    [ -e "$work/lr" ] && fail "a run folder was made"
    true
}

area_cases="$area_cases vocab_refused vocab_none vocab_off vocab_recorded vocab_fake_tools vocab_logprobs_range"
