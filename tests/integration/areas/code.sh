# code (issue 38, the items): the built-in code problems (data/code) found
# by name from any folder, as the tool-call set is, with the task their
# items ask for. The reader itself (HumanEval's and MBPP's lines, the
# split, the reference, the refusals) is unit-tested
# (tests/unit/test_input_codeitem.c).
# The run (issue 38, the runner): a code ladder on the fake server, each
# answer's code run with its item's tests in the sandbox. The built-in
# set's canned replies (right, wrong, crash, timeout, no code) graded as
# the problems' tests say when run by hand (data/code/canned-expected.jsonl);
# a ladder killed -9 while its code runs resumes without losing or asking
# anything twice; the report's table of causes; no sandbox outlives a
# killed graveyard; a machine without bubblewrap is refused, and
# --unsafe-exec is knowing.
# Sourced by tests/integration/cases.sh (lib.sh's helpers).
#
# Tests: orchestrator/run/execs.c
# Tests: orchestrator/run/runner.c
# Tests: orchestrator/run/runner_int.c
# Tests: orchestrator/rows/rowwrite.c
# Tests: rundir/candidates.c
# Tests: report/md_code.c
# Tests: report/md.c
# Tests: report/md_epitaph.c
# Tests: orchestrator/cmd/ladder_plan.c
# Tests: orchestrator/cmd/cmd_import.c

# `graveyard init --questions data/code/problems.jsonl` from another folder
# writes the shipped file's path and the code task into the config.
# Tests: orchestrator/cmd/cmd_init.c
case_code_builtin_set() {
    local m=$work/cdini
    init_folder cdini || { fail "the fake tools did not make the folder"; return; }
    (cd "$work" && $GT init "$m" --llama "$FAKE" --out "$work/cdini.json" \
        --questions data/code/problems.jsonl >/dev/null 2>"$work/err") ||
        { fail "init --questions data/code/problems.jsonl: exit $? $(cat "$work/err")"; return; }
    timeout -k 5 30 /usr/bin/python3 - "$work/cdini.json" "$ROOT" <<'PY' || fail "the config: $(cat "$work/cdini.json")"
import json, sys
c = json.load(open(sys.argv[1]))
assert c["questions"] == sys.argv[2] + "/data/code/problems.jsonl", c["questions"]
assert c.get("task") == "code", c.get("task")
PY
}
area_cases="$area_cases code_builtin_set"

CODE_PY="/usr/bin/python3 $(dirname "${BASH_SOURCE[0]}")/../helpers/code_canned.py"
CODE_DATA="$ROOT/data/code"
code_config() { # name questions [rung:model[:extra]...]
    local name=$1 q=$2 rungs="" r; shift 2
    for r in "$@"; do
        rungs="$rungs${rungs:+, }{\"name\": \"${r%%:*}\", \"model\": \"$work/$(echo "$r" | cut -d: -f2).gguf\"$(echo "$r" | cut -s -d: -f3-)}"
    done
    cat >"$work/$name.json" <<JSON
{"name": "$name", "questions": "$q", "run_dir": "$work/$name", "task": "code",
 "server": {"binary": "$FAKE"}, "rungs": [$rungs], "exec": {"jobs": 2, "timeout_s": 5}}
JSON
}
# the canned replies as fake models: right.gguf, wrong.gguf, ...
$CODE_PY models "$CODE_DATA/problems.jsonl" "$CODE_DATA/canned.jsonl" "$work" ||
    echo "  code: cannot make the canned models"

# Every canned reply of the built-in set, run in the sandbox through a
# ladder, against what its problem's tests said by hand: outcome, the
# exception's type, tests passed of total, right. The timeout replies at a
# 1 s limit (each one is its limit long: 45 of them, two at once).
case_code_canned() {
    local k out
    code_config cc "$CODE_DATA/problems.jsonl" R:right W:wrong C:crash N:no_code
    rm -rf "$work/cc"
    timeout -k 5 600 $GT ladder "$work/cc.json" --quiet >"$work/cc.out" 2>&1 ||
        { fail "ladder: exit $? $(tail -3 "$work/cc.out")"; return; }
    # the config's "exec" reached each rung's run (the manifest records it)
    grep -q '"timeout_ms": 5000' "$work/cc/manifest.json" ||
        fail "the config's exec.timeout_s: $(grep -A5 sandbox "$work/cc/manifest.json")"
    for k in R:right W:wrong C:crash N:no_code; do
        out=$($CODE_PY check "$CODE_DATA/canned-expected.jsonl" "$work/cc/rows/${k%%:*}.jsonl" "${k#*:}" 2>&1) ||
            fail "rung ${k%%:*}: $out"
    done
    rm -rf "$work/cct"
    timeout -k 5 200 $G run T "$work/timeout.gguf" "$CODE_DATA/problems.jsonl" "$work/cct" \
        --llama "$FAKE" --task code --exec-timeout 1 --exec-jobs 2 --quiet >"$work/cct.out" 2>&1 ||
        { fail "timeouts: exit $? $(tail -3 "$work/cct.out")"; return; }
    out=$($CODE_PY check "$CODE_DATA/canned-expected.jsonl" "$work/cct/rows/T.jsonl" timeout 2>&1) ||
        fail "timeouts: $out"
    # each timeout took its limit, not more: the namespace was killed
    out=$(/usr/bin/python3 -c '
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if not 900 <= r["exec_ms"] <= 2000:
        print(r["id"], r["exec_ms"], "ms")' "$work/cct/rows/T.jsonl")
    [ -z "$out" ] || fail "a timeout not at its limit: $out"
}
area_cases="$area_cases code_canned"

# Rows and report.json as their schemas say, and the report's table of
# causes cell by cell from the rows (one ladder of the canned kinds).
case_code_report() {
    local out
    code_config cr "$CODE_DATA/problems.jsonl" R:right W:wrong C:crash
    # a duel of two ways to fail: REPORT.md's Duels, the page's code view
    sed -i 's|"rungs": \[|"duels": [["R", "W"]], "rungs": [|' "$work/cr.json"
    rm -rf "$work/cr"
    timeout -k 5 600 $GT ladder "$work/cr.json" --quiet >"$work/cr.out" 2>&1 ||
        { fail "ladder: exit $? $(tail -3 "$work/cr.out")"; return; }
    timeout -k 5 60 $GT report "$work/cr" >"$work/cr.rep" 2>&1 ||
        { fail "report: exit $? $(tail -3 "$work/cr.rep")"; return; }
    out=$(timeout -k 5 60 /usr/bin/python3 - "$work/cr" "$(dirname "${BASH_SOURCE[0]}")/../../../schemas" <<'PY' 2>&1
import collections, json, re, sys
import jsonschema
run, schemas = sys.argv[1], sys.argv[2]
row = json.load(open(schemas + "/row.schema.json"))
rep = json.load(open(schemas + "/report.schema.json"))
count = {}
for rung in ("R", "W", "C"):
    c = collections.Counter()
    for line in open("%s/rows/%s.jsonl" % (run, rung)):
        r = json.loads(line)
        jsonschema.validate(r, row)
        c[r["exec"]] += 1
    count[rung] = c
report = json.load(open(run + "/report.json"))
jsonschema.validate(report, rep)
names = ["passed", "failed", "error", "syntax_error", "timeout", "killed", "no_code"]
for line in report["rungs"]:
    code = line["code"]
    want = {k: count[line["rung"]].get(k, 0) for k in names}
    if code["outcomes"] != want:
        print(line["rung"], "report.json", code["outcomes"], "rows", want)
md = open(run + "/REPORT.md").read()
if "## Code: how each rung's code fails" not in md:
    print("no table of causes in REPORT.md")
for rung in ("R", "W", "C"):
    m = re.search(r"^\| %s \| ([^\n]*)$" % rung, md.split("## Code:")[1], re.M)
    cells = [c.strip() for c in m.group(1).split("|")][:8] if m else []
    want = [str(sum(count[rung].values()))] + [str(count[rung].get(k, 0)) for k in names]
    if [c.split(" ")[0] for c in cells] != want:
        print(rung, "REPORT.md", cells, "rows", want)
duel = report.get("duels", [{}])[0]
# R passes every problem's tests and W fails them: R right only on all
if (duel.get("a"), duel.get("b"), duel.get("a_only")) != ("R", "W", duel.get("n")) or duel.get("n", 0) == 0:
    print("the R-W duel:", {k: duel.get(k) for k in ("a", "b", "n", "a_only")})
if "## Duels" not in md:
    print("no Duels section in REPORT.md")
PY
) || fail "$out"
    [ -z "$out" ] || fail "$out"
    grep -q "its code failed\|its code raised" "$work/cr/REPORT.md" ||
        fail "no epitaph says what came of the code: $(grep -m2 'Died at' "$work/cr/REPORT.md")"
}
area_cases="$area_cases code_report"

# A ladder killed -9 (the whole group) while its code runs: the resume
# runs the candidates that had no row, asks nothing twice, loses nothing;
# no sandbox is left behind.
case_code_resume() {
    local pid i asked out
    : >"$work/cq.jsonl"
    for i in $(seq 1 8); do
        echo "{\"task_id\": \"s/$i\", \"prompt\": \"def slow$i(x):\\n    \\\"\\\"\\\"x, slowly\\\"\\\"\\\"\\n\", \"test\": \"def check(candidate):\\n    assert candidate(1) == 1\\n    assert candidate(2) == 2\\n\", \"entry_point\": \"slow$i\"}" >>"$work/cq.jsonl"
    done
    model codeslow '"default": {"content": "Here.\n```python\nimport time\ndef _s(x):\n    time.sleep(0.6)\n    return x\nslow1 = slow2 = slow3 = slow4 = slow5 = slow6 = slow7 = slow8 = _s  # graveyard-code-resume\n```"}'
    code_config crs "$work/cq.jsonl" A:codeslow
    # with log-probabilities: the probs records of candidates without
    # their rows must stay through the resume
    sed -i 's|"task": "code",|"task": "code", "logprobs": 2,|' "$work/crs.json"
    rm -rf "$work/crs"
    setsid $G ladder "$work/crs.json" --quiet --exec-jobs 2 >/dev/null 2>&1 &
    pid=$!
    wait_for 60 "[ \$(cat '$work/crs'/rows/A.jsonl 2>/dev/null | wc -l) -ge 2 ]" || fail "no rows came"
    kill -KILL -- -$pid 2>/dev/null
    wait $pid 2>/dev/null
    gone_within 2 "pgrep -f graveyard-code-resume" || fail "a sandbox outlived the killed ladder: $(pgrep -af graveyard-code-resume | head -3)"
    cp "$work/crs/logs/A.server.log" "$work/crs.log1"
    [ "$(wc -l <"$work/crs/rows/A.jsonl")" -lt 8 ] || fail "the kill came after the rung"
    [ "$(wc -l <"$work/crs/rows/A.candidates")" -gt "$(wc -l <"$work/crs/rows/A.jsonl")" ] ||
        fail "the kill left no candidate without its row"
    timeout -k 5 120 $G ladder "$work/crs.json" --quiet >"$work/crs.out" 2>&1 ||
        { fail "resume: exit $? $(tail -3 "$work/crs.out")"; return; }
    out=$(/usr/bin/python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
ids = [r["id"] for r in rows]
if sorted(ids) != sorted(set(ids)) or len(ids) != 8:
    print("rows:", ids)
for r in rows:
    if r["exec"] != "passed" or r["tests_passed"] != 2:
        print(r["id"], r["exec"], r["tests_passed"])' "$work/crs/rows/A.jsonl")
    [ -z "$out" ] || fail "$out"
    out=$(timeout -k 5 30 /usr/bin/python3 "$(dirname "${BASH_SOURCE[0]}")/../helpers/probs_check.py" records "$work/crs" A 2>&1)
    [ "$out" = "A records 8 rows 8" ] || fail "probs records after the resume: $out"
    # each question asked once over both runs: the fake logs every ask
    # (the log is the second run's, or both runs' when kept whole)
    asked=$(grep -c 'POST /v1/chat/completions' "$work/crs/logs/A.server.log")
    cmp -s -n "$(wc -c <"$work/crs.log1")" "$work/crs.log1" "$work/crs/logs/A.server.log" ||
        asked=$((asked + $(grep -c 'POST /v1/chat/completions' "$work/crs.log1")))
    [ "$asked" = 8 ] || fail "questions asked $asked times over both runs, want 8"
}
area_cases="$area_cases code_resume"

# Code that sleeps forever, as many at once as the cores (at most four):
# kill -9 of graveyard alone (not its group) leaves no sandbox process
# within 1 s (--die-with-parent).
case_code_no_orphans() {
    local pid n
    head -4 "$CODE_DATA/problems.jsonl" >"$work/co.jsonl"
    # the program comes on a descriptor, so the marker is put in argv:
    # the code becomes a sleep named for it
    model codehang '"default": {"content": "```python\nimport os\nos.execv(\"/usr/bin/sleep\", [\"graveyard-code-orphan\", \"1000\"])\n```"}'
    rm -rf "$work/co"
    $G run O "$work/codehang.gguf" "$work/co.jsonl" "$work/co" --llama "$FAKE" --task code \
        --exec-jobs 4 --exec-timeout 60 --quiet >"$work/co.out" 2>&1 &
    pid=$!
    # --exec-jobs 4 runs as many as the cores allow, at most 4
    n=$(nproc); [ "$n" -le 4 ] || n=4
    wait_for 30 "[ \$(pgrep -f graveyard-code-orphan | wc -l) -ge $n ]" || fail "$n sandboxes did not start: $(cat "$work/co.out")"
    kill -KILL $pid
    wait $pid 2>/dev/null
    gone_within 1 "pgrep -f graveyard-code-orphan" ||
        fail "sandboxes outlived graveyard: $(pgrep -af graveyard-code-orphan | head -3)"
    no_servers_within 5 || fail "a server outlived graveyard"
}
area_cases="$area_cases code_no_orphans"

# No bubblewrap on PATH: refused before anything is made, saying why and
# what to do; --unsafe-exec runs the code as a plain child, knowingly.
case_code_refused() {
    local rc=0 bin
    bin=$(mktemp -d "$work/nobwrap.XXXX")
    # a config's "exec" out of its range: refused naming the key
    code_config cfx "$CODE_DATA/problems.jsonl" R:right
    sed -i 's|"jobs": 2|"jobs": 0|' "$work/cfx.json"
    timeout -k 5 60 $G ladder "$work/cfx.json" --quiet >"$work/cf.out" 2>&1 || rc=$?
    [ $rc = 2 ] && grep -q "'exec.jobs' must be an integer from 1 to 64" "$work/cf.out" ||
        fail "exec.jobs 0: exit $rc $(tail -2 "$work/cf.out")"
    rc=0
    rm -rf "$work/cf"
    timeout -k 5 60 env PATH="$bin" $G run F "$work/right.gguf" "$CODE_DATA/problems.jsonl" "$work/cf" \
        --llama "$FAKE" --task code --limit 2 --quiet >"$work/cf.out" 2>&1 || rc=$?
    [ $rc = 2 ] && grep -q "bubblewrap" "$work/cf.out" && grep -q -- "--unsafe-exec" "$work/cf.out" ||
        fail "without bwrap: exit $rc: $(tail -2 "$work/cf.out")"
    [ ! -e "$work/cf/rows" ] || fail "without bwrap: rows were made"
    timeout -k 5 60 env PATH="$bin" $G run F "$work/right.gguf" "$CODE_DATA/problems.jsonl" "$work/cf" \
        --llama "$FAKE" --task code --limit 2 --unsafe-exec >"$work/cf.out" 2>&1 ||
        { fail "--unsafe-exec: exit $? $(tail -2 "$work/cf.out")"; return; }
    grep -q "unsafe" "$work/cf.out" || fail "--unsafe-exec did not say so: $(head -3 "$work/cf.out")"
    [ "$(grep -c '"exec":"passed"' "$work/cf/rows/F.jsonl")" = 2 ] || fail "--unsafe-exec: $(cut -c1-200 "$work/cf/rows/F.jsonl")"
    # the folder records where its code ran: a resume in the sandbox, or
    # with another time limit, is refused as any changed setting is
    rc=0
    timeout -k 5 60 $G run F "$work/right.gguf" "$CODE_DATA/problems.jsonl" "$work/cf" \
        --llama "$FAKE" --task code --limit 3 --quiet >"$work/cf.out" 2>&1 || rc=$?
    [ $rc = 2 ] && grep -q "manifest.sandbox differs" "$work/cf.out" ||
        fail "a resume in the sandbox after --unsafe-exec: exit $rc $(tail -2 "$work/cf.out")"
    [ "$(wc -l <"$work/cf/rows/F.jsonl")" = 2 ] || fail "the refused resume wrote rows"
    # import: no other tool's log keeps a run of the code in the sandbox
    echo '{"doc_id": 0}' >"$work/cf-samples.jsonl"
    rc=0
    timeout -k 5 60 $G import lm-eval "$work/cf-samples.jsonl" "$work/cfi" R --task code >"$work/cf.out" 2>&1 || rc=$?
    [ $rc = 2 ] && grep -qF "a code task grades each reply's code as run in graveyard's sandbox" "$work/cf.out" &&
        [ ! -e "$work/cfi" ] || fail "import --task code: exit $rc $(cat "$work/cf.out")"
}
area_cases="$area_cases code_refused"

# The reference run twice (its noise floor: 0 for code that runs the same)
# and a canary on code items: the canary's subset holds each code item as
# the file gave it (its tests, its reference), and passes against the
# trusted rows.
# Tests: orchestrator/cmd/cmd_canary.c
case_code_floor_canary() {
    local d=$work/cfl e=$work/cflc
    head -6 "$CODE_DATA/problems.jsonl" >"$work/cfl.jsonl"
    cfl_config() { # file run_dir extra
        cat >"$1" <<JSON
{"name": "code floor", "questions": "$work/cfl.jsonl", "run_dir": "$2", "task": "code",
 "server": {"binary": "$FAKE"}, "repeat_reference": true, $3
 "rungs": [{"name": "R", "model": "$work/right.gguf"}, {"name": "W", "model": "$work/wrong.gguf"}]}
JSON
    }
    cfl_config "$work/cfl.json" "$d" ""
    rm -rf "$d" "$e"
    timeout -k 5 120 $GT ladder "$work/cfl.json" --quiet >"$work/cfl.out" 2>&1 ||
        { fail "ladder: exit $? $(tail -5 "$work/cfl.out")"; return; }
    cfl_config "$work/cflc.json" "$e" "\"canary\": {\"rows\": \"$d/rows/R.jsonl\", \"questions\": 4},"
    timeout -k 5 120 $GT ladder "$work/cflc.json" --quiet >"$work/cflc.out" 2>&1 ||
        { fail "canary ladder: exit $? $(tail -5 "$work/cflc.out")"; return; }
    /usr/bin/python3 - "$d" "$e" "$work/cfl.jsonl" >"$work/cfl-check" 2>&1 <<'PY' || fail "$(cat "$work/cfl-check")"
import json, sys
d, e, qf = sys.argv[1:]
rep = json.load(open(f"{d}/report.json"))
assert rep["repeats"][0]["rung"] == "R" and rep["repeats"][0]["n"] == 6, rep["repeats"]
assert rep["floor"] == 0, rep["floor"]
c = json.load(open(f"{e}/canary/canary.json"))
assert c.get("passed") is True or c.get("verdict") in ("pass", "passed"), c
sub = [json.loads(l) for l in open(f"{e}/canary/questions.jsonl")]
src = {json.loads(l)["task_id"]: json.loads(l) for l in open(qf)}
assert len(sub) == 4, len(sub)
for q in sub:
    assert q == src[q["task_id"]], q
PY
}
area_cases="$area_cases code_floor_canary"

# A reply whose program is over the sandbox's 1 MiB (a reply may be 8 MiB):
# recorded as killed by the limit on its size, not run, and the rung ends
# (before, its code could not be submitted and the rung failed, again on
# every resume).
# Tests: orchestrator/sandbox/pool.c
case_code_huge_program() {
    head -2 "$CODE_DATA/problems.jsonl" >"$work/chp.jsonl"
    /usr/bin/python3 -c '
import json, sys
code = "x = 1\n# " + "a" * 1600000 + "\n"
json.dump({"fake_llama_server": 1, "decode_tps": 50.0, "chunk_bytes": 16384,
           "default": {"content": "```python\n" + code + "```"}}, open(sys.argv[1], "w"))' "$work/codehuge.gguf"
    rm -rf "$work/chp"
    timeout -k 5 120 $G run H "$work/codehuge.gguf" "$work/chp.jsonl" "$work/chp" --llama "$FAKE" \
        --task code --max-tokens 1000 --ctx 500000 --quiet >"$work/chp.out" 2>&1 ||
        { fail "run: exit $? $(tail -2 "$work/chp.out" | cut -c1-300)"; return; }
    [ "$(grep -c '"exec":"killed".*"limit":"program"' "$work/chp/rows/H.jsonl")" = 2 ] ||
        fail "rows: $(cut -c1-100 "$work/chp/rows/H.jsonl")"
}
area_cases="$area_cases code_huge_program"
