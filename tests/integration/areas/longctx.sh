# shellcheck shell=bash
# Issue 36's foundation, long contexts: a question file of long items of
# the user's own ({"id", "prompt", "answers": [...]}, RULER's or
# LongBench's shape) run with the built-in task `ruler` on the fake
# server, each row graded by lm-eval's RULER scorers (ruler-all, every
# expected string; ruler-part, one of them) with the share kept; and a
# bad "answers" list refused before anything is made, naming file and
# line.
# Sourced by tests/integration/cases.sh (lib.sh's helpers).
#
# Tests: orchestrator/input/questions.c
# Tests: orchestrator/input/taskfile.c
# Tests: grader/ruler.c

# three items: all strings said, one of two, none
longctx_items() {
    local filler
    filler=$(printf 'The quiet harbor carried the lantern near the station. %.0s' $(seq 300))
    cat >"$work/long.jsonl" <<Q
{"id": "niah-0", "prompt": "$filler One of the special magic numbers for alpha-key is: 1111111. $filler What is the special magic number for alpha-key?", "answers": ["1111111"]}
{"id": "niah-1", "prompt": "$filler beta-key is: 2222222 and 3333333. What are all the special magic numbers for beta-key?", "answers": ["2222222", "3333333"]}
{"id": "vt-2", "question": "$filler VAR QWERT = 12345 VAR ASDFG = VAR QWERT. Find all variables assigned 12345.", "outputs": ["QWERT", "ASDFG"]}
Q
}

case_longctx_ruler_task() {
    local d=$work/lc
    longctx_items
    model ruler '"default": {"content": "I could not find it."},
 "replies": [{"match": "alpha-key", "content": "The special magic number is 1111111."},
             {"match": "beta-key", "content": "It is 2222222, I think."}]'
    rm -rf "$d"
    $GT run R1 "$work/ruler.gguf" "$work/long.jsonl" "$d" --llama "$FAKE" \
        --task ruler --quiet >/dev/null 2>"$work/err" || fail "run: exit $? $(cat "$work/err")"
    [ "$(rows "$d" R1)" = 3 ] || { fail "$(rows "$d" R1) rows"; return; }
    /usr/bin/python3 - "$d/rows/R1.jsonl" >"$work/lc-grades" <<'PY' || fail "rows: $(cat "$work/lc-grades")"
import json, sys
want = {"niah-0": ("1/1", True, "1/1", True),
        "niah-1": ("1/2", False, "1/2", True),
        "vt-2": ("0/2", False, "0/2", False)}
for line in open(sys.argv[1]):
    r = json.loads(line)
    g = r["grades"] if "grades" in r else r
    a, p = g["ruler-all"], g["ruler-part"]
    got = (a["extracted"], a["right"], p["extracted"], p["right"])
    if got != want[r["id"]]:
        print(r["id"], got, "want", want[r["id"]], line[:400])
        sys.exit(1)
PY
    grep -q '"reference":"2222222\\n3333333"' "$d/rows/R1.jsonl" ||
        fail "the reference of niah-1: $(grep niah-1 "$d/rows/R1.jsonl" | head -c 400)"
}
area_cases="$area_cases longctx_ruler_task"

# A bad "answers" list: exit 2, one line naming the file and line, and no
# run folder made.
case_longctx_bad_answers() {
    local d=$work/lcbad rc=0
    model ruler '"default": {"content": "x"}'
    printf '{"id": "a", "prompt": "p", "answers": ["1"]}\n{"id": "b", "prompt": "p", "answers": "2"}\n' >"$work/bad.jsonl"
    rm -rf "$d"
    $GT run R1 "$work/ruler.gguf" "$work/bad.jsonl" "$d" --llama "$FAKE" \
        --task ruler --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] || fail "exit $rc, want 2: $(cat "$work/err")"
    grep -q "bad.jsonl:2: \"answers\" must be a list of 1 to 32 strings" "$work/err" ||
        fail "message: $(cat "$work/err")"
    [ ! -e "$d" ] || fail "a run folder was made: $(ls "$d")"
}
area_cases="$area_cases longctx_bad_answers"

# A task file of one's own over long items: "reference": "answers" and a
# RULER rule, recorded in the manifest as given; a rule that reads one
# answer on such a task refused with exit 2, naming the task and rule.
case_longctx_task_file() {
    local d=$work/lctf rc=0
    longctx_items
    model ruler '"default": {"content": "I could not find it."},
 "replies": [{"match": "beta-key", "content": "It is 2222222, I think."}]'
    printf '{"name": "my-long", "reference": "answers", "prompt": "{question}",
 "rules": [{"name": "any", "kind": "ruler-part"}]}\n' >"$work/my-long.json"
    rm -rf "$d"
    $GT run R1 "$work/ruler.gguf" "$work/long.jsonl" "$d" --llama "$FAKE" \
        --task "$work/my-long.json" --quiet >/dev/null 2>"$work/err" || fail "run: exit $? $(cat "$work/err")"
    [ "$(field "$d/rows/R1.jsonl" niah-1 right)" = true ] ||
        fail "niah-1 by ruler-part: $(grep niah-1 "$d/rows/R1.jsonl" | head -c 400)"
    [ "$(field "$d/rows/R1.jsonl" niah-1 extracted)" = '"1/2"' ] ||
        fail "niah-1's share: $(field "$d/rows/R1.jsonl" niah-1 extracted)"
    grep -q '"reference": "answers"' "$d/manifest.json" ||
        fail "manifest: $(grep -A3 '"task"' "$d/manifest.json" | head -c 400)"
    printf '{"name": "mixed", "reference": "answers", "prompt": "{question}",
 "rules": [{"name": "num", "kind": "answer-line"}]}\n' >"$work/mixed.json"
    rm -rf "$d.2"
    $GT run R1 "$work/ruler.gguf" "$work/long.jsonl" "$d.2" --llama "$FAKE" \
        --task "$work/mixed.json" --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] || fail "a number rule on lists: exit $rc, want 2"
    grep -q "task 'mixed': rule 'num' reads one answer, not a list" "$work/err" ||
        fail "message: $(cat "$work/err")"
    [ ! -e "$d.2" ] || fail "a run folder was made for the refused task"
}
area_cases="$area_cases longctx_task_file"
