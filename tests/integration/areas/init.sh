# graveyard init (issue 35, "A quick path for anyone's files"): a folder
# of GGUF files made a ladder config, run with no edits; the folders it
# must refuse, one line each, exit 2.
# Tests: orchestrator/cmd/cmd_init.c
# Tests: orchestrator/input/ladderinit.c

# a ladder of the fake tools' GGUFs in $work/NAME: BF16 converted from the
# demo's checkpoint, Q8_0, Q4_0, Q2_K and a QAT Q4_0 quantized from it,
# named as a Hub repository names them
init_folder() { # name
    local m=$work/$1 t
    mkdir -p "$m"
    "$build/fake-convert-hf" "$ROOT/tests/fake-tools/convert_hf_to_gguf.py" \
        "$ROOT/configs/demo/checkpoint" --outtype bf16 \
        --outfile "$m/gemma-4-e2b-it-BF16.gguf" >/dev/null 2>&1 || return 1
    for t in Q8_0 Q4_0 Q2_K; do
        "$build/fake-llama-quantize" "$m/gemma-4-e2b-it-BF16.gguf" \
            "$m/gemma-4-e2b-it-$t.gguf" "$t" >/dev/null 2>&1 || return 1
    done
    "$build/fake-llama-quantize" --override-kv fake.rung=str:QAT_Q4_0 \
        "$m/gemma-4-e2b-it-BF16.gguf" "$m/gemma-4-e2b-it-qat-Q4_0.gguf" Q4_0 \
        >/dev/null 2>&1
}

# init on it, from another folder: the reference BF16, the chain by bits,
# the second Q4_0 beside it; then ladder runs the config with no edits to
# a report, and the config's paths hold from any working folder
case_init_folder() {
    local m=$work/ini out
    init_folder ini || { fail "the fake tools did not make the folder"; return; }
    out=$(cd "$work" && $GT init "$m" --llama "$FAKE" --out "$work/ini.json" 2>"$work/err") ||
        { fail "init: exit $? $(cat "$work/err")"; return; }
    printf '%s\n' "$out" | grep -q "^run it: graveyard ladder $work/ini.json$" ||
        fail "init did not print the command: $out"
    /usr/bin/python3 - "$work/ini.json" "$m" <<'PY' || fail "the config: $(cat "$work/ini.json")"
import json, sys
c = json.load(open(sys.argv[1]))
names = [r["name"] for r in c["rungs"]]
assert c["reference"] == "BF16", c["reference"]
assert names[0] == "BF16" and names[-1] == "Q2_K", names
assert names == ["BF16", "Q8_0", "Q4_0", "Q2_K"], names
sides = [r["name"] for r in c.get("side_rungs", [])]
assert sides == ["qat-Q4_0"], sides
assert c.get("duels") == [["Q4_0", "qat-Q4_0"]], c.get("duels")  # two files of one type
assert all(r["model"].startswith(sys.argv[2] + "/") for r in c["rungs"])
assert all("_comment" in r for r in c["rungs"] + c["side_rungs"])
assert c["questions"].endswith("data/gsm8k/heldout-250.jsonl"), c["questions"]
PY
    # a short night: the same folder with the suite's few questions
    $GT init "$m" --llama "$FAKE" --out "$work/ini-q.json" --questions "$work/q.jsonl" >/dev/null 2>"$work/err" ||
        { fail "init --questions: exit $? $(cat "$work/err")"; return; }
    sed 's|"runs/ini-q"|"runs/ini"|' "$work/ini-q.json" >"$work/ini.json"
    (cd / && $GT ladder "$work/ini.json" --quiet) >/dev/null 2>"$work/err" ||
        { fail "ladder on init's config: exit $? $(tail -3 "$work/err")"; return; }
    [ -s "$work/runs/ini/REPORT.md" ] || fail "no report in $work/runs/ini (run_dir is read against the config's folder)"
    grep -q "^## Duels" "$work/runs/ini/REPORT.md" || fail "init's duel of the two Q4_0 files is not in the report"
    rc=0; $GT init "$m" --llama "$FAKE" --out "$work/ini.json" >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "is there already: --force" "$work/err" || fail "an existing config: exit $rc $(cat "$work/err")"
}

# one clear line each, exit 2, nothing written
init_refused() { # folder want what
    local rc=0
    $GT init "$1" --llama "$FAKE" --out "$work/refused.json" >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && [ "$(wc -l <"$work/err")" = 1 ] && grep -q -- "$2" "$work/err" ||
        fail "$3: exit $rc $(cat "$work/err")"
    [ ! -e "$work/refused.json" ] || fail "$3: a config was written"
}

case_init_refused() {
    local d=$work/inr
    mkdir -p "$d/empty" "$d/text" "$d/split" "$d/link" "$d/whole"
    init_refused "$d/empty" "no .gguf file in it" "a folder without GGUF"
    init_refused "$d/none" "cannot read folder" "no folder"
    echo "not a model" >"$d/text/model-Q4_0.gguf"
    init_refused "$d/text" "model-Q4_0.gguf" "a text file named .gguf"
    init_folder inr-src || { fail "the fake tools did not make the folder"; return; }
    cp "$work/inr-src/gemma-4-e2b-it-Q8_0.gguf" "$d/split/big-Q8_0-00001-of-00003.gguf"
    echo part3 >"$d/split/big-Q8_0-00003-of-00003.gguf"
    init_refused "$d/split" "part 2 of 3 is missing" "a split without its second part"
    ln -s "$work/inr-src/gemma-4-e2b-it-Q8_0.gguf" "$d/link/x-Q8_0.gguf"
    init_refused "$d/link" "not a regular file" "a link"
    # a whole split is one rung, its parts' bytes added; two of one type
    # are one chain rung and one beside it
    cp "$work/inr-src/gemma-4-e2b-it-BF16.gguf" "$d/whole/"
    cp "$work/inr-src/gemma-4-e2b-it-Q8_0.gguf" "$d/whole/big-Q8_0-00001-of-00002.gguf"
    echo part2 >"$d/whole/big-Q8_0-00002-of-00002.gguf"
    cp "$work/inr-src/gemma-4-e2b-it-Q8_0.gguf" "$d/whole/"
    $GT init "$d/whole" --llama "$FAKE" --out "$work/whole.json" >"$work/out" 2>"$work/err" ||
        { fail "a whole split: exit $? $(cat "$work/err")"; return; }
    /usr/bin/python3 - "$work/whole.json" <<'PY' || fail "whole split: $(cat "$work/whole.json")"
import json, sys
c = json.load(open(sys.argv[1]))
rungs = c["rungs"] + c.get("side_rungs", [])
assert len(rungs) == 3, rungs
assert sum(1 for r in rungs if r["model"].endswith("-00001-of-00002.gguf")) == 1
assert not any("00002-of" in r["model"] for r in rungs)
assert len(c.get("side_rungs", [])) == 1, c.get("side_rungs")
assert any("in parts" in r["_comment"] for r in rungs)
PY
}
# graveyard ladder DIR: init's config written in the working folder, run;
# the same command again runs it again (a resume), saying so
case_init_ladder_dir() {
    local m=$work/ild
    init_folder ild || { fail "the fake tools did not make the folder"; return; }
    mkdir -p "$work/ild-here"
    (cd "$work/ild-here" && $GT ladder "$m" --llama "$FAKE" --quiet) >"$work/out" 2>"$work/err" ||
        { fail "ladder DIR: exit $? $(tail -3 "$work/err")"; return; }
    [ -s "$work/ild-here/ild.json" ] || fail "no config written in the working folder"
    [ -s "$work/ild-here/runs/ild/REPORT.md" ] || fail "no report"
    grep -q "^wrote ild.json: 5 files, the reference BF16" "$work/out" || fail "init's lines: $(head -3 "$work/out")"
    (cd "$work/ild-here" && $GT ladder "$m" --llama "$FAKE" --quiet) >/dev/null 2>"$work/err" ||
        fail "ladder DIR again: exit $? $(tail -3 "$work/err")"
    grep -q "is a folder: running ild.json, which graveyard init wrote" "$work/err" ||
        fail "the second night did not say it reused the config: $(head -3 "$work/err")"
}
area_cases="$area_cases init_folder init_refused init_ladder_dir"

# init --lengths (issue 36): the config asks long contexts in place of
# questions ("lengths", and below 2K the kinds that fit there); the ladder
# runs it with no edits, making its items in a server of the folder's
# smallest file. --lengths refused beside --questions and when bad, one
# line each, nothing written.
# Tests: orchestrator/cmd/cmd_init.c
case_init_lengths() {
    local m=$work/inl rc
    init_folder inl || { fail "the fake tools did not make the folder"; return; }
    rm -f "$m"/*qat* "$m"/*Q4_0* "$m"/*Q8_0*
    $GT init "$m" --llama "$FAKE" --lengths 1K,3K --out "$work/inl.json" >/dev/null 2>"$work/err" ||
        { fail "init --lengths: exit $? $(cat "$work/err")"; return; }
    /usr/bin/python3 - "$work/inl.json" "$ROOT" >"$work/inl-check" 2>&1 <<'PY' || fail "$(cat "$work/inl-check")"
import json, sys, jsonschema
c = json.load(open(sys.argv[1]))
assert "questions" not in c and c["lengths"] == [1024, 3072], c
assert c["long"]["kinds"] == ["niah-single", "niah-multikey", "niah-multivalue", "niah-multiquery", "vt"], c["long"]
assert list(c)[:4] == ["_comment", "name", "lengths", "run_dir"], list(c)
jsonschema.Draft202012Validator(json.load(open(sys.argv[2] + "/schemas/config.schema.json"))).validate(c)
PY
    python3 - "$work/inl.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["long"]["items"] = 2
json.dump(c, open(sys.argv[1], "w"))
PY
    (cd "$work" && timeout -k 5 180 $G ladder "$work/inl.json" --quiet >"$work/inl.out" 2>&1) ||
        { fail "ladder: exit $? $(tail -3 "$work/inl.out")"; return; }
    grep -q "long: counting in a server of rung Q2_K" "$work/inl.out" ||
        fail "not counted in the smallest file's server: $(grep long: "$work/inl.out")"
    [ "$(wc -l <"$work/runs/inl/long.jsonl")" = 20 ] || fail "$(wc -l <"$work/runs/inl/long.jsonl") items"
    $GT init "$m" --llama "$FAKE" --lengths 4K,16K --out "$work/inl4.json" --force >/dev/null 2>&1 ||
        fail "init --lengths 4K,16K"
    grep -q '"long"' "$work/inl4.json" && fail "\"long\" written at 4K: $(cat "$work/inl4.json")"
    for bad in "--lengths 0" "--lengths 1K --questions $work/q.jsonl"; do
        rc=0
        # shellcheck disable=SC2086
        $GT init "$m" --llama "$FAKE" $bad --out "$work/inlb.json" >/dev/null 2>"$work/err" || rc=$?
        [ $rc = 2 ] && [ "$(wc -l <"$work/err")" = 1 ] && [ ! -e "$work/inlb.json" ] ||
            fail "init $bad: exit $rc $(cat "$work/err")"
    done
}
area_cases="$area_cases init_lengths"
