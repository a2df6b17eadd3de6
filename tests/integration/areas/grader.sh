# Round 3, grader (issue 24: G3, G4): a rung whose answers are all in can
# always be finished, buried and reported. Sourced by tests/integration/cases.sh.
#
# Tests: grader/bury.c
# Tests: grader/rows.c
# Tests: orchestrator/cmd/cmd_grade.c

# G3: a server that reports 1e40 tokens/s. It ended the rung's summary and
# every bury with "out of memory" (SIGABRT, exit 134): 1e40 is inf as the
# answer's float, and no JSON holds inf. Now the row keeps null, and a row
# written by an older graveyard, or by hand, with 1e300 or 1e40 is read as
# unknown (docs/rows.md).
case_absurd_speed() {
    local d=$work/fast rc=0
    model fast1e40 '"decode_tps": 1e40, "default": {"content": "Answer: 5"}'
    ladder_config fast 2 '"0"' fast1e40
    $GT ladder "$work/fast.json" --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 0 ] || fail "ladder: exit $rc $(cat "$work/err")"
    [ -e "$d/rows/R1.done" ] && [ -e "$d/rows/R2.done" ] || fail "a rung was not finished"
    grep -q '"decode_tps":null' "$d/rows/R1.jsonl" || fail "row keeps the speed: $(head -c 400 "$d/rows/R1.jsonl")"
    grep -q '"median_decode_tps": *null' "$d/rows/R1.done" || fail ".done: $(cat "$d/rows/R1.done")"
    $G bury "$d" R1 R2 >"$work/out" 2>"$work/err" || fail "bury: exit $? $(cat "$work/err")"
    $G report "$d" >/dev/null 2>"$work/err" || fail "report: exit $? $(cat "$work/err")"
    # rows as an older graveyard wrote them, and one by hand: 1e300 and
    # 1e40 read as unknown, a speed within reason kept
    sed -i 's/"decode_tps":null/"decode_tps":1e300/' "$d/rows/R1.jsonl"
    sed -i '1s/"decode_tps":null/"decode_tps":1e40/; 2,$s/"decode_tps":null/"decode_tps":42.5/' "$d/rows/R2.jsonl"
    rc=0; $G bury "$d" R1 R2 >"$work/out" 2>"$work/err" || rc=$?
    [ $rc = 0 ] || fail "bury of 1e300 and 1e40: exit $rc $(cat "$work/err")"
    grep -q '"rung": "R1".*"median_decode_tps": null' "$work/out" || fail "R1's speed: $(cat "$work/out")"
    grep -q '"rung": "R2".*"median_decode_tps": 42.5' "$work/out" || fail "R2's speed: $(cat "$work/out")"
    rc=0; $G report "$d" >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 0 ] || fail "report of 1e300 and 1e40: exit $rc $(cat "$work/err")"
    grep -q '^| R2 |.* 42.5 |' "$d/REPORT.md" || fail "REPORT.md: $(grep '^| R' "$d/REPORT.md")"
    # a rung whose rows say 1e300 resumes to its summary (every resume
    # ended in SIGABRT)
    rm "$d/rows/R1.done"
    rc=0; $GT ladder "$work/fast.json" --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 0 ] && grep -q '"median_decode_tps": *null' "$d/rows/R1.done" ||
        fail "resume: exit $rc $(cat "$work/err" "$d/rows/R1.done")"
}
area_cases="$area_cases absurd_speed"

# G4: a user's rule that backtracks ((a+)+$) over a reply of a's then a b
# runs past its step budget. The reply was an error on every read ("took
# too long"): the rung could never be finished, buried or reported. Now
# the reply is graded by the rule's fallback, the row's grades say "step
# limit", and bury and the report count such replies.
case_step_limit() {
    local d=$work/bt rc=0 a
    a=$(printf 'a%.0s' $(seq 34))
    model backtrack '"default": {"content": "Answer: 5"},
 "replies": [{"match": "apples", "content": "'"$a"'b"}]'
    cat >"$work/bt-task.json" <<'JSON'
{"name": "bt", "prompt": "Q: {question}", "rules": [
 {"name": "tail", "kind": "regex", "pattern": "(a+)+$|Answer: (\\d+)", "group_select": -1},
 {"name": "line", "kind": "answer-line"}]}
JSON
    ladder_config bt 2 '"0"' backtrack
    sed -i 's|"gpus": \["0"\]}|"gpus": ["0"], "task": "'"$work"'/bt-task.json"}|' "$work/bt.json"
    $GT ladder "$work/bt.json" --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 0 ] || fail "ladder: exit $rc $(cat "$work/err")"
    [ -e "$d/rows/R1.done" ] && [ -e "$d/rows/R2.done" ] || fail "a rung was not finished"
    grep -q '"tail":{"extracted":null,"right":false,"error":"step limit"}' "$d/rows/R1.jsonl" ||
        fail "row's grades: $(grep apples "$d/rows/R1.jsonl" | head -c 600)"
    grep -q '"step_limit": 1' "$d/rows/R1.done" || fail ".done: $(cat "$d/rows/R1.done")"
    rc=0; $G bury "$d" R1 R2 >"$work/out" 2>"$work/err" || rc=$?
    [ $rc = 0 ] || fail "bury: exit $rc $(cat "$work/err")"
    grep -q '"rung": "R2", "n": 4, "right": 0,.*"step_limit": 1' "$work/out" || fail "bury line: $(cat "$work/out")"
    # the other rule counts none, and grades that reply as ever
    rc=0; $G bury "$d" R1 R2 --rule line >"$work/out" 2>"$work/err" || rc=$?
    [ $rc = 0 ] && ! grep -q step_limit "$work/out" || fail "bury --rule line: exit $rc $(cat "$work/out" "$work/err")"
    rc=0; $G report "$d" >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 0 ] || fail "report: exit $rc $(cat "$work/err")"
    grep -q '^## Past the step limit' "$d/REPORT.md" && grep -q '^| R1 | 1 | 0 |$' "$d/REPORT.md" ||
        fail "REPORT.md: $(grep -A6 'step limit' "$d/REPORT.md")"
    /usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))
assert [x.get("step_limit") for x in r["rungs"]] == [1, 1], r["rungs"]
assert [c.get("step_limit") for c in r["rules"][0]["rungs"]] == [1, 1]' "$d/report.json" || fail "report.json"
}
area_cases="$area_cases step_limit"
