# toolcall (issue 37, the asking side): tool items from the question file
# to the row. A ladder over a file of tool items against the fake's
# scripted tool calls (right, wrong name, wrong value, split inside a JSON
# string, parallel calls in another order, no call, a call leaked as text,
# an unclosed <tool_call>, arguments that are not JSON): each row keeps
# what the fake streamed byte for byte (helpers/toolcall_rows.py); a
# ladder killed -9 mid-rung and resumed; bad tool items and a rung with
# --no-jinja refused before anything runs; a 10 MB arguments stream and a
# split inside a UTF-8 character are error rows and the run goes on.
# With "logprobs": the lineages' refusal of tools + logprobs stops the
# rung; calls streamed without log-probabilities stop it; calls with them
# are kept, and a dead call's split is named.
# Sourced by tests/integration/cases.sh (lib.sh's helpers).
#
# Tests: orchestrator/input/questions.c
# Tests: orchestrator/input/toolitem.c
# Tests: orchestrator/run/request.c
# Tests: orchestrator/run/runplan.c
# Tests: orchestrator/server/reply.c
# Tests: orchestrator/rows/rowwrite.c
# Tests: orchestrator/run/ask.c
# Tests: orchestrator/input/tooldocs.c
# Tests: orchestrator/input/taskfile.c
# Tests: report/md_toolcalls.c
# Tests: report/emit.c
# Tests: grader/bury.c
# Tests: orchestrator/cmd/cmd_canary.c
# Tests: orchestrator/cmd/cmd_import.c
# Tests: orchestrator/run/serve.c
# Tests: orchestrator/run/runner.c

TC_PY="/usr/bin/python3 $(dirname "${BASH_SOURCE[0]}")/../helpers/toolcall_rows.py"
TC_W='{"type": "function", "function": {"name": "get_weather", "description": "the weather in a city", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}'
TC_T='{"type": "function", "function": {"name": "get_time", "parameters": {"type": "object", "properties": {"tz": {"type": "string"}}}}}'
cat >"$work/tq.jsonl" <<Q
{"id": "weather", "question": "What is the weather in Paris?", "tools": [$TC_W, $TC_T], "tool_choice": "auto", "possible": [{"get_weather": {"city": ["Paris", "paris"]}}]}
{"id": "pair", "question": "The weather in Rome, and the time in CET?", "tools": [$TC_W, $TC_T], "possible": [{"get_weather": {"city": ["Rome"]}}, {"get_time": {"tz": ["CET"]}}]}
{"id": "hello", "question": "Say hello to me.", "tools": [$TC_T], "tool_choice": "none", "possible": []}
{"id": "forced", "question": "Which city is it? Oslo.", "tools": [$TC_W], "tool_choice": "required", "possible": [{"get_weather": {"city": ["Oslo"]}}]}
Q
model tcright '"default": {"content": "Hello!"},
 "replies": [{"match": "Paris", "tool_calls": [{"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}]},
             {"match": "Rome", "content": "Both, then.", "tool_calls": [{"name": "get_weather", "arguments": "{\"city\": \"Rome\"}"}, {"name": "get_time", "arguments": "{\"tz\": \"CET\"}"}]},
             {"match": "Oslo", "tool_calls": [{"name": "get_weather", "arguments": "{\"city\":\"Oslo\"}", "chunk": 1}]}]'
model tcwrong '"default": {"content": "<tool_call>{\"name\": \"get_time\", \"arguments\": {\"tz\": \"CET\"}}</tool_call>"},
 "replies": [{"match": "Paris", "tool_calls": [{"name": "get_wether", "arguments": "{\"city\": \"Paris\"}"}]},
             {"match": "Rome", "tool_calls": [{"index": 1, "name": "get_weather", "arguments": "{\"city\": \"Rome\"}"}, {"index": 0, "name": "get_time", "arguments": "{\"tz\": \"CET\"}"}]},
             {"match": "Oslo", "tool_calls": [{"name": "get_weather", "arguments": "{\"city\": \"Bergen\"}"}]}]'
model tcsplit '"default": {"content": "<tool_call>{\"name\": \"get_time\", "},
 "replies": [{"match": "Paris", "tool_calls": [{"name": "get_weather", "arguments": "{\"city\": \"Z\u00fcrich \\\\\"\\u00e9t\u00e9\\\\\"\"}", "split": [3, 11, 14, 20]}]},
             {"match": "Rome", "tool_calls": [{"name": "get_weather", "arguments": "{\"city\": \"Rome\""}, {"name": "get_time", "arguments": "tz=CET"}]},
             {"match": "Oslo", "content": "Calling.", "tool_calls": [{"name": "get_weather", "arguments": "{\"city\": \"Oslo\"}", "split": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]}]}]'
tc_config() { # name questions task [rung:model[:extra]...]
    local name=$1 q=$2 task=$3 rungs="" r; shift 3
    for r in "$@"; do
        rungs="$rungs${rungs:+, }{\"name\": \"${r%%:*}\", \"model\": \"$work/$(echo "$r" | cut -d: -f2).gguf\"$(echo "$r" | cut -s -d: -f3-)}"
    done
    cat >"$work/$name.json" <<JSON
{"name": "$name", "questions": "$q", "run_dir": "$work/$name", "task": "$task",
 "server": {"binary": "$FAKE"}, "rungs": [$rungs]}
JSON
}

# A ladder of three rungs over four tool items: each row keeps the calls
# as the fake streamed them (names, arguments' text byte for byte, in the
# order of their index), the content beside them, finish_reason, and the
# possible answers as its reference; the request carried each item's
# tools and tool_choice (the fake logs them).
case_toolcall_ladder() {
    local out
    tc_config tcl "$work/tq.jsonl" tool-call R:tcright W:tcwrong S:tcsplit
    rm -rf "$work/tcl"
    timeout -k 5 120 $GT ladder "$work/tcl.json" --quiet >"$work/tcl.out" 2>&1 ||
        { fail "ladder: exit $? $(tail -3 "$work/tcl.out")"; return; }
    out=$(timeout -k 5 30 $TC_PY "$work/tcl.json" 2>&1) || fail "$out"
    grep -q 'fake: tools 2 tool_choice "auto"' "$work/tcl/logs/R.server.log" &&
        grep -q 'fake: tools 1 tool_choice "none"' "$work/tcl/logs/R.server.log" &&
        grep -q 'fake: tools 1 tool_choice "required"' "$work/tcl/logs/R.server.log" &&
        grep -q 'fake: tools 2 tool_choice (none)' "$work/tcl/logs/R.server.log" ||
        fail "the requests' tools: $(grep 'fake: tools' "$work/tcl/logs/R.server.log")"
    # the other rows of the file are as they were: no tool_calls key
    grep -c '"tool_calls"' "$work/tcl/rows/R.jsonl" | grep -qx 4 || fail "rows without tool_calls"
}
area_cases="$area_cases toolcall_ladder"

# The same ladder graded (the built-in task tool-call): each reply's
# verdict and bucket, per rung and of the dead, in report.json's autopsy
# and REPORT.md's "Tool calls" table, computed from the rows against the
# question file's function docs. R is right on all four; W names an
# unknown function and gives a wrong value (its parallel calls in another
# order are right, and a call leaked as text where no call is right is
# no call: right, as BFCL's function-calling mode grades it); S's
# arguments are twice malformed (an escape that ends the string early,
# and arguments cut short; its unclosed leaked tag where no call is right
# is right too).
case_toolcall_graded() {
    local out
    tc_config tcg "$work/tq.jsonl" tool-call R:tcright W:tcwrong S:tcsplit
    rm -rf "$work/tcg"
    timeout -k 5 120 $GT ladder "$work/tcg.json" --quiet >"$work/tcg.out" 2>&1 ||
        { fail "ladder: exit $? $(tail -3 "$work/tcg.out")"; return; }
    [ -n "${TC_KEEP:-}" ] && cp -r "$work/tcg" "$TC_KEEP"
    out=$(timeout -k 5 30 /usr/bin/python3 - "$work/tcg" "$(dirname "${BASH_SOURCE[0]}")/../../../schemas" <<'PY' 2>&1
import json, sys
d = sys.argv[1]
rep = json.load(open(d + "/report.json"))
lines = {l["rung"]: l for l in rep["rungs"]}
want = {"R": ({"right": 4}, {}),
        "W": ({"right": 2, "unknown_function": 1, "wrong_value": 1},
              {"unknown_function": 1, "wrong_value": 1}),
        "S": ({"right": 2, "malformed_call": 2}, {"malformed_call": 2})}
for rung, (b, dead) in want.items():
    tc = lines[rung]["tool_calls"]
    got = {k: v for k, v in tc["buckets"].items() if v}
    gotd = {k: v for k, v in tc["dead_buckets"].items() if v}
    if tc["answers"] != 4 or got != b or gotd != dead:
        sys.exit("%s: %s, want %s / dead %s" % (rung, tc, b, dead))
    if lines[rung]["right"] != b.get("right", 0):
        sys.exit("%s: right %s" % (rung, lines[rung]["right"]))
    if rung != "R" and lines[rung]["dead"] != 2:
        sys.exit("%s: dead %s" % (rung, lines[rung]["dead"]))
md = open(d + "/REPORT.md").read()
table = md[md.find("## Tool calls: how each rung's calls fail"):]
rows = {l.split("|")[1].strip(): [c.strip() for c in l.split("|")[2:-1]]
        for l in table.splitlines() if l.startswith("| ")}
# replies, made a call, then the buckets in toolcall.h's order
if rows.get("W") != ["4", "3", "2", "0", "0", "0", "0", "1 (1 dead)", "0", "0",
                     "0", "1 (1 dead)", "0", "0"] or \
   rows.get("S") != ["4", "3", "2", "0", "0", "2 (2 dead)", "0", "0", "0", "0",
                     "0", "0", "0", "0"]:
    sys.exit("REPORT.md's table: %s" % rows)
# an epitaph shows the possible calls as written and what the rung said,
# never the reference's hash or "gave no number"
if '- **weather**, answer `[{"get_weather":{"city":["Paris","paris"]}}]`. Died at W, said `get_wether({"city":"Paris"})`.' not in md:
    sys.exit("tombstone: " + md[md.find("## Tombstones"):][:600])
# the rows say what the runner graded: the bucket beside each grade
for line in open(d + "/rows/W.jsonl"):
    r = json.loads(line)
    if r["id"] == "weather" and r["grades"]["ast"].get("bucket") != "unknown_function":
        sys.exit("row: %s" % r["grades"])
# rows and report.json as their schemas say
try:
    import jsonschema
except ImportError:
    sys.exit(0)
schemas = sys.argv[2]
row = json.load(open(schemas + "/row.schema.json"))
for rung in ("R", "W", "S"):
    for line in open(d + "/rows/%s.jsonl" % rung):
        jsonschema.validate(json.loads(line), row)
jsonschema.validate(rep, json.load(open(schemas + "/report.schema.json")))
PY
) || fail "$out"
    # the docs come from the question file the manifest pins: moved away,
    # it is found by its name in the run folder (a bundle keeps it so);
    # changed or gone, the report says so and grades nothing
    cp "$work/tq.jsonl" "$work/tcg/tq.jsonl"
    mv "$work/tq.jsonl" "$work/tq.away"
    timeout -k 5 60 $G report "$work/tcg" >"$work/tcg.rep" 2>&1 ||
        fail "report with the file in the run folder: $(tail -2 "$work/tcg.rep")"
    echo >>"$work/tcg/tq.jsonl"
    timeout -k 5 60 $G report "$work/tcg" >"$work/tcg.rep" 2>&1 &&
        fail "report with a changed question file: exit 0"
    grep -qF "grading tool calls needs the function docs of the question file the run asked, '$work/tq.jsonl' (sha256 " "$work/tcg.rep" &&
        grep -qF "the file found there has other bytes now" "$work/tcg.rep" ||
        fail "a changed file: $(cat "$work/tcg.rep")"
    rm "$work/tcg/tq.jsonl"
    timeout -k 5 60 $G report "$work/tcg" >"$work/tcg.rep" 2>&1 &&
        fail "report without the question file: exit 0"
    grep -qF "no such file as named or in the run folder" "$work/tcg.rep" ||
        fail "no file: $(cat "$work/tcg.rep")"
    mkfifo "$work/tcg/tq.jsonl" # a FIFO in its place: refused, never read
    timeout -k 5 20 $G report "$work/tcg" >"$work/tcg.rep" 2>&1 &&
        fail "report with a FIFO for the question file: exit 0"
    grep -qF "$work/tcg/tq.jsonl': not a regular file" "$work/tcg.rep" ||
        fail "a FIFO: $(cat "$work/tcg.rep")"
    rm -f "$work/tcg/tq.jsonl"
    mv "$work/tq.away" "$work/tq.jsonl"
}
area_cases="$area_cases toolcall_graded"

# Tool items through the features around a rung: the reference asked
# twice (the noise floor: the same calls, graded the same) and a canary
# of a later ladder against the first one's trusted rows (its subset
# writes each tool item as the file gave it, and passes on the same
# server).
case_toolcall_floor_canary() {
    local d=$work/tcfl e=$work/tcflc
    tcfl_config() { # file run_dir extra
        cat >"$1" <<JSON
{"name": "tool floor", "questions": "$work/tq.jsonl", "run_dir": "$2", "task": "tool-call",
 "server": {"binary": "$FAKE"}, "repeat_reference": true, $3
 "rungs": [{"name": "R", "model": "$work/tcright.gguf"}, {"name": "W", "model": "$work/tcwrong.gguf"}]}
JSON
    }
    tcfl_config "$work/tcfl.json" "$d" ""
    rm -rf "$d" "$e"
    timeout -k 5 120 $GT ladder "$work/tcfl.json" --quiet >"$work/tcfl.out" 2>&1 ||
        { fail "ladder: exit $? $(tail -5 "$work/tcfl.out")"; return; }
    tcfl_config "$work/tcflc.json" "$e" "\"canary\": {\"rows\": \"$d/rows/R.jsonl\", \"questions\": 4},"
    timeout -k 5 120 $GT ladder "$work/tcflc.json" --quiet >"$work/tcflc.out" 2>&1 ||
        { fail "canary ladder: exit $? $(tail -5 "$work/tcflc.out")"; return; }
    /usr/bin/python3 - "$d" "$e" >"$work/tcfl-check" 2>&1 <<'PY' || fail "$(cat "$work/tcfl-check")"
import json, sys
d, e = sys.argv[1:]
rep = json.load(open(f"{d}/report.json"))
assert rep["repeats"][0]["rung"] == "R" and rep["repeats"][0]["n"] == 4, rep["repeats"]
assert rep["repeats"][0]["mismatched_right"] == 0, rep["repeats"]
assert rep["floor"] == 0, rep["floor"]
c = json.load(open(f"{e}/canary/canary.json"))
assert c.get("passed") is True or c.get("verdict") in ("pass", "passed"), c
sub = [json.loads(l) for l in open(f"{e}/canary/questions.jsonl")]
src = {json.loads(l)["id"]: json.loads(l) for l in open(sys.argv[1] + "/../tq.jsonl")}
for q in sub:
    for k in ("tools", "possible", "question"):
        assert q[k] == src[q["id"]][k], (q["id"], k, q[k])
    assert q.get("tool_choice") == src[q["id"]].get("tool_choice"), q["id"]
PY
}
area_cases="$area_cases toolcall_floor_canary"

# Every bucket of the checker's taxonomy from a real stream, each counted
# as itself: X leaks a call as text (no structured call), gives one call
# of two, a number for a string, and a call where none is right; Y calls
# the other function offered, adds an argument not asked, answers in
# text, and is right; Z's arguments nest 40 deep (over the checker's cap
# of 32) and it answers the rest in text; C's call is cut at the token
# cap (malformed, counted as cut off too). R (right on all) is the
# reference, so each failure is dead.
case_toolcall_buckets() {
    model tcx '"default": {"content": "Hello!"},
 "replies": [{"match": "Paris", "content": "<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}</tool_call>"},
             {"match": "Rome", "tool_calls": [{"name": "get_weather", "arguments": "{\"city\": \"Rome\"}"}]},
             {"match": "Oslo", "tool_calls": [{"name": "get_weather", "arguments": "{\"city\": 7}"}]},
             {"match": "hello", "tool_calls": [{"name": "get_time", "arguments": "{\"tz\": \"CET\"}"}]}]'
    model tcy '"default": {"content": "Hello!"},
 "replies": [{"match": "Paris", "tool_calls": [{"name": "get_time", "arguments": "{\"tz\": \"CET\"}"}]},
             {"match": "Rome", "tool_calls": [{"name": "get_weather", "arguments": "{\"city\": \"Rome\", \"days\": 2}"}, {"name": "get_time", "arguments": "{\"tz\": \"CET\"}"}]},
             {"match": "Oslo", "content": "It is Oslo."}]'
    local deep out
    deep="$(printf '{\\"a\\":%.0s' $(seq 40))1$(printf '}%.0s' $(seq 40))"
    model tcz '"default": {"content": "I cannot say."},
 "replies": [{"match": "Paris", "tool_calls": [{"name": "get_weather", "arguments": "'"$deep"'"}]}]'
    # C's call is cut at the task's token cap (512; a piece is a token to
    # the fake): malformed, and said to be cut off
    model tcc '"default": {"content": "I cannot say."},
 "replies": [{"match": "Paris", "tool_calls": [{"name": "get_weather", "arguments": "{\"city\": \"'"$(printf 'Paris %.0s' $(seq 120))"'\"}", "chunk": 1}]}]'
    tc_config tcbk "$work/tq.jsonl" tool-call R:tcright X:tcx Y:tcy Z:tcz C:tcc
    rm -rf "$work/tcbk"
    timeout -k 5 120 $GT ladder "$work/tcbk.json" --quiet >"$work/tcbk.out" 2>&1 ||
        { fail "ladder: exit $? $(tail -3 "$work/tcbk.out")"; return; }
    [ -n "${TC_KEEP:-}" ] && cp -r "$work/tcbk" "$TC_KEEP"
    out=$(timeout -k 5 30 /usr/bin/python3 - "$work/tcbk" <<'PY' 2>&1
import json, sys
d = sys.argv[1]
lines = {l["rung"]: l["tool_calls"] for l in json.load(open(d + "/report.json"))["rungs"]}
want = {"R": {"right": 4},
        "X": {"leaked_call": 1, "wrong_count": 1, "wrong_type": 1, "call_not_expected": 1},
        "Y": {"wrong_function": 1, "wrong_arguments": 1, "no_call": 1, "right": 1},
        "Z": {"over_cap": 1, "no_call": 2, "right": 1},
        "C": {"malformed_call": 1, "no_call": 2, "right": 1}}
bad = []
for rung, b in want.items():
    got = {k: v for k, v in lines[rung]["buckets"].items() if v}
    dead = {k: v for k, v in lines[rung]["dead_buckets"].items() if v}
    wd = {k: v for k, v in b.items() if k != "right"}
    if got != b or dead != wd:
        bad.append("%s: %s dead %s, want %s" % (rung, got, dead, b))
cut = {r: {k: v for k, v in l["cut_off_buckets"].items() if v} for r, l in lines.items()}
if cut != {"R": {}, "X": {}, "Y": {}, "Z": {}, "C": {"malformed_call": 1}}:
    bad.append("cut off: %s" % cut)
md = open(d + "/REPORT.md").read()
if "| C | 4 | 1 | 1 | 2 (2 dead) | 0 | 1 (1 dead, 1 cut off) |" not in md:
    bad.append("REPORT.md: " + md[md.find("## Tool calls"):][:1500])
every = set(json.load(open(d + "/report.json"))["rungs"][0]["tool_calls"]["buckets"])
seen = {k for b in want.values() for k in b} | {"unknown_function", "wrong_value", "malformed_call"}
if every - seen:
    bad.append("buckets no case shows: %s" % sorted(every - seen))
if bad:
    sys.exit("\n".join(bad))
PY
) || fail "$out"
}
area_cases="$area_cases toolcall_buckets"

# A ladder killed -9 (its whole group) mid-rung, then run again: each item
# answered once, none lost, each row what the fake streamed.
case_toolcall_resume() {
    local pid out i
    : >"$work/tqr.jsonl"
    for i in $(seq -w 1 12); do
        echo "{\"id\": \"t$i\", \"question\": \"The weather in town $i?\", \"tools\": [$TC_W], \"possible\": [{\"get_weather\": {\"city\": [\"town $i\"]}}]}" >>"$work/tqr.jsonl"
    done
    model tcslow '"token_ms": 25, "default": {"content": "Looking.", "tool_calls": [{"name": "get_weather", "arguments": "{\"city\": \"a town with a long name\"}", "chunk": 2}]}'
    tc_config tcr "$work/tqr.jsonl" tool-call A:tcslow B:tcslow
    rm -rf "$work/tcr"
    setsid $G ladder "$work/tcr.json" --quiet >/dev/null 2>&1 &
    pid=$!
    wait_for 60 "[ \$(cat '$work/tcr'/rows/A.jsonl 2>/dev/null | wc -l) -ge 3 ]" || fail "no rows came"
    kill -KILL -- -$pid 2>/dev/null
    wait $pid 2>/dev/null
    no_servers_within 5 || fail "a server outlived the killed ladder"
    [ "$(wc -l <"$work/tcr/rows/A.jsonl")" -lt 12 ] || fail "the kill came after rung A"
    timeout -k 5 120 $G ladder "$work/tcr.json" --quiet >"$work/tcr.out" 2>&1 ||
        { fail "resume: exit $? $(tail -3 "$work/tcr.out")"; return; }
    out=$(timeout -k 5 30 $TC_PY "$work/tcr.json" 2>&1) || fail "$out"
}
area_cases="$area_cases toolcall_resume"

# Bad tool items: one line naming the file, its line and the key, exit 2,
# nothing run or written; a rung whose server args turn templates off
# (--no-jinja) refused before it starts, and --jinja taken.
case_toolcall_bad_input() {
    local n=0 line want rc
    while IFS='|' read -r line want; do
        n=$((n + 1))
        printf '%s\n%s\n' "{\"id\": \"ok\", \"question\": \"q\", \"tools\": [$TC_T], \"possible\": []}" "$line" >"$work/tqb$n.jsonl"
        tc_config "tcb$n" "$work/tqb$n.jsonl" tool-call R:tcright
        rm -rf "$work/tcb$n"
        rc=0
        timeout -k 5 60 $GT ladder "$work/tcb$n.json" --quiet >"$work/tcb.out" 2>&1 || rc=$?
        [ $rc = 2 ] && grep -qF -- "$work/tqb$n.jsonl:2: $want" "$work/tcb.out" ||
            fail "bad item $n: exit $rc, want '$want': $(tail -2 "$work/tcb.out")"
        [ "$(grep -c "tqb$n.jsonl:" "$work/tcb.out")" = 1 ] || fail "bad item $n: not one line: $(cat "$work/tcb.out")"
        [ ! -e "$work/tcb$n/rows" ] || fail "bad item $n: rows were written"
    done <<BAD
{"id": "b", "question": "q", "tools": [], "possible": []}|"tools" must be a list of 1 to 128 functions
{"id": "b", "question": "q", "tools": [{"type": "function", "function": {"name": "no spaces"}}], "possible": []}|"tools" item 1: "function"."name" must be 1 to 64 of A-Z a-z 0-9 _ . -
{"id": "b", "question": "q", "tools": [{"type": "function", "function": {"name": "f", "parameters": "x"}}], "possible": []}|"tools" item 1: "function"."parameters" must be a JSON object
{"id": "b", "question": "q", "tools": [$TC_T], "tool_choice": "always", "possible": []}|"tool_choice" must be "auto", "required", "none"
{"id": "b", "question": "q", "tools": [$TC_T], "tool_choice": {"type": "function", "function": {"name": "get_weather"}}, "possible": []}|"tool_choice" names 'get_weather', which is not in "tools"
{"id": "b", "question": "q", "tools": [$TC_T]}|"possible" must be a list of calls
{"id": "b", "question": "q", "tools": [$TC_T], "possible": [{"get_weather": {"city": ["Paris"]}}]}|"possible" item 1 names 'get_weather', which is not in "tools"
{"id": "b", "question": "q", "tools": [$TC_T], "possible": [{"get_time": {"tz": "CET"}}]}|"possible" item 1 must be {"FUNCTION": {"ARG": [VALUES...]}}
{"id": "ok", "question": "q", "tools": [$TC_T], "possible": []}|duplicate id 'ok'
BAD
    # the numbers' task cannot read a tool item's reference
    tc_config tcbn "$work/tq.jsonl" answer-line R:tcright
    rc=0
    timeout -k 5 60 $GT ladder "$work/tcbn.json" --quiet >"$work/tcb.out" 2>&1 || rc=$?
    [ $rc = 2 ] && grep -qF "$work/tq.jsonl:1: a tool item (it has \"tools\"): run it with a task that grades tool calls (--task tool-call" "$work/tcb.out" ||
        fail "the numbers' task: exit $rc $(tail -2 "$work/tcb.out")"
    # --no-jinja: refused before the server starts; --jinja runs
    tc_config tcbj "$work/tq.jsonl" tool-call 'A:tcright:, "server_args": ["--jinja"]' 'B:tcright:, "server_args": ["--jinja", "--no-jinja"]'
    rm -rf "$work/tcbj"
    rc=0
    timeout -k 5 60 $GT ladder "$work/tcbj.json" --quiet >"$work/tcb.out" 2>&1 || rc=$?
    [ $rc = 2 ] && grep -qF "rung B: tool item 'weather' ('$work/tq.jsonl' line 1) offers tools, and the server args turn templates off (--no-jinja)" "$work/tcb.out" &&
        ! grep -q "rung A:" "$work/tcb.out" ||
        fail "--no-jinja: exit $rc $(tail -3 "$work/tcb.out")"
    [ ! -e "$work/tcbj/rows/B.jsonl" ] || fail "a rung ran with --no-jinja"
    # import: no other tool's log keeps calls
    echo '{"doc_id": 0}' >"$work/tcb-samples.jsonl"
    rc=0
    timeout -k 5 60 $G import lm-eval "$work/tcb-samples.jsonl" "$work/tcbi" R --task tool-call >"$work/tcb.out" 2>&1 || rc=$?
    [ $rc = 2 ] && grep -qF "a tool-call task grades calls, which no imported log keeps" "$work/tcb.out" &&
        [ ! -e "$work/tcbi" ] || fail "import --task tool-call: exit $rc $(cat "$work/tcb.out")"
}
area_cases="$area_cases toolcall_bad_input"

# A 10 MB arguments stream is a "too_long" error row, a split inside a
# UTF-8 character (raw bytes no server sends) a "bad_utf8" one; each
# costs its item only: the other items are answered and the rung ends.
case_toolcall_flood() {
    local out
    model tcflood '"default": {"content": "Hello!"},
 "replies": [{"match": "Paris", "expect_error": "too_long", "tool_calls": [{"name": "get_weather", "arguments": "'"$(printf 'x%.0s' $(seq 1024))"'", "repeat": 10240, "chunk": 16384}]},
             {"match": "Oslo", "expect_error": "bad_utf8", "tool_calls": [{"name": "get_weather", "arguments": "{\"city\": \"\u00d8slo\"}", "split": [11]}]},
             {"match": "Rome", "tool_calls": [{"name": "get_weather", "arguments": "{\"city\": \"Rome\"}"}, {"name": "get_time", "arguments": "{\"tz\": \"CET\"}"}]}]'
    tc_config tcf "$work/tq.jsonl" tool-call F:tcflood
    # a piece is a token to the fake: room for 10 MB of them
    sed -i 's/"task": "tool-call",/"task": "tool-call", "request": {"max_tokens": 100000},/' "$work/tcf.json"
    rm -rf "$work/tcf"
    timeout -k 5 120 $GT ladder "$work/tcf.json" --quiet >"$work/tcf.out" 2>&1 ||
        { fail "ladder: exit $? $(tail -3 "$work/tcf.out")"; return; }
    out=$(timeout -k 5 30 $TC_PY "$work/tcf.json" 2>&1) || fail "$out"
    grep -q '"id":"weather".*"error":"reply longer than a row holds' "$work/tcf/rows/F.jsonl" ||
        fail "the 10 MB row's error: $(grep -o '"id":"[a-z]*"\|"error":"[^"]*"' "$work/tcf/rows/F.jsonl")"
    [ "$(stat -c %s "$work/tcf/rows/F.jsonl")" -lt 100000 ] || fail "the rows file kept the flood"
}
area_cases="$area_cases toolcall_flood"

# Templates off without --no-jinja (a build whose default is off: the ik
# fork, older upstream): both lineages answer every request with "tools"
# HTTP 500 "tools param requires --jinja flag" (seen on ik 8337e4cd).
# The rung stops at its first tool item, one line naming the rung, the
# item and the flag, exit 1, no row a question; the rung given --jinja
# answers every item.
case_toolcall_jinja_off() {
    local rc=0
    model tcik '"jinja": false, "default": {"content": "Hello!"},
 "replies": [{"match": "Paris", "tool_calls": [{"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}]}]'
    tc_config tcj "$work/tq.jsonl" tool-call A:tcik 'B:tcik:, "server_args": ["--jinja"]'
    rm -rf "$work/tcj"
    timeout -k 5 120 $GT ladder "$work/tcj.json" --quiet >"$work/tcj.out" 2>&1 || rc=$?
    [ $rc = 1 ] || fail "exit $rc, want 1: $(tail -3 "$work/tcj.out")"
    grep -qF "graveyard run A: the server refused tool item 'weather' (HTTP 500: tools param requires --jinja flag): its chat templates are off; give \"--jinja\" in the rung's server_args (docs/toolcalls.md); stopping the rung" "$work/tcj.out" ||
        fail "no line naming the flag: $(tail -5 "$work/tcj.out")"
    [ ! -s "$work/tcj/rows/A.jsonl" ] || fail "rung A wrote $(rows "$work/tcj" A) rows"
    [ "$(grep -c 'request: POST /v1/chat/completions' "$work/tcj/logs/A.server.log")" = 1 ] ||
        fail "rung A asked $(grep -c 'request: POST /v1/chat/completions' "$work/tcj/logs/A.server.log") questions, want 1"
    [ "$(rows "$work/tcj" B)" = 4 ] && grep -q '"tool_calls":\[{"name":"get_weather"' "$work/tcj/rows/B.jsonl" ||
        fail "rung B (--jinja): $(head -c 300 "$work/tcj/rows/B.jsonl")"
}
area_cases="$area_cases toolcall_jinja_off"

# A chat template that cannot take tools: upstream (a135ec0ba) with a
# GGUF whose template never renders "tools" takes them silently, asks the
# model without them and with no grammar, and every row is text with
# "tool_calls": [] and exit 0 (seen: 12 of 12 items). Its /props says so
# (chat_template_caps.supports_tools false): the rung stops before its
# first question, one line, exit 1; caps that say true, or none (the ik
# fork's /props has an empty chat_template_caps), run as before.
case_toolcall_caps_no_tools() {
    local rc=0
    model tcnocaps '"props_extra": {"chat_template_caps": {"supports_tools": false, "supports_tool_calls": false}},
 "default": {"content": "Hello!"}'
    model tccaps '"props_extra": {"chat_template_caps": {"supports_tools": true}}, "default": {"content": "Hello!"},
 "replies": [{"match": "Paris", "tool_calls": [{"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}]}]'
    model tcikcaps '"props_extra": {"chat_template_caps": {}}, "default": {"content": "Hello!"}'
    tc_config tcc "$work/tq.jsonl" tool-call N:tcnocaps Y:tccaps I:tcikcaps
    rm -rf "$work/tcc"
    timeout -k 5 120 $GT ladder "$work/tcc.json" --quiet >"$work/tcc.out" 2>&1 || rc=$?
    [ $rc = 1 ] || fail "exit $rc, want 1: $(tail -3 "$work/tcc.out")"
    grep -qF "graveyard run N: the server's chat template cannot take tools (its /props: chat_template_caps.supports_tools false), so its tool items would be asked without them: give a template that renders \"tools\" (--chat-template-file) in the rung's server_args (docs/toolcalls.md); stopping the rung" "$work/tcc.out" ||
        fail "no line for the template: $(grep -v '^wrote' "$work/tcc.out" | tail -4)"
    [ "$(grep -c 'request: POST /v1/chat/completions' "$work/tcc/logs/N.server.log")" = 0 ] ||
        fail "rung N asked $(grep -c 'request: POST /v1/chat/completions' "$work/tcc/logs/N.server.log") questions"
    [ "$(rows "$work/tcc" Y)" = 4 ] && grep -q '"tool_calls":\[{"name":"get_weather"' "$work/tcc/rows/Y.jsonl" ||
        fail "rung Y (supports_tools true): $(head -c 300 "$work/tcc/rows/Y.jsonl")"
    [ "$(rows "$work/tcc" I)" = 4 ] || fail "rung I (no caps): $(rows "$work/tcc" I) rows"
}
area_cases="$area_cases toolcall_caps_no_tools"

# A function named in "tool_choice" (an object) on a rung graveyard
# starts: both lineages read tool_choice only as text and take an object
# as "auto" (upstream a135ec0ba and ik 8337e4cd log "Wrong type supplied
# for parameter 'tool_choice'" and answered in text), so the item would
# be asked as another: refused before the rung starts, one line naming
# the file, its line and the fix, exit 2, nothing run.
case_toolcall_named_choice() {
    local rc=0
    printf '%s\n%s\n' "{\"id\": \"ok\", \"question\": \"Paris?\", \"tools\": [$TC_W], \"tool_choice\": \"required\", \"possible\": []}" \
        "{\"id\": \"named\", \"question\": \"Oslo?\", \"tools\": [$TC_W, $TC_T], \"tool_choice\": {\"type\": \"function\", \"function\": {\"name\": \"get_weather\"}}, \"possible\": []}" >"$work/tqn.jsonl"
    tc_config tcn "$work/tqn.jsonl" tool-call R:tcright
    rm -rf "$work/tcn"
    timeout -k 5 60 $GT ladder "$work/tcn.json" --quiet >"$work/tcn.out" 2>&1 || rc=$?
    [ $rc = 2 ] && grep -qF "rung R: tool item 'named' ('$work/tqn.jsonl' line 2) names its function in \"tool_choice\" (an object), which llama-server reads as \"auto\" (it takes tool_choice only as text): give \"required\" and only that function in \"tools\" (docs/toolcalls.md)" "$work/tcn.out" ||
        fail "exit $rc: $(grep -v '^wrote' "$work/tcn.out" | tail -3)"
    [ ! -e "$work/tcn/rows/R.jsonl" ] || fail "the rung ran"
}
area_cases="$area_cases toolcall_named_choice"

# BFCL's own files (docs/toolcalls.md, "BFCL's files"): each bad input of
# a BFCL file or its possible answers refused by `graveyard run` before
# anything runs, one line naming the file, its line and the key, exit 2,
# no rows written.
# Tests: orchestrator/input/bfclitem.c
case_toolcall_bfcl_bad() {
    local n=0 q pa where want rc d
    model tcbfcl '"default": {"content": "Hello!"}'
    while IFS='|' read -r q pa where want; do
        n=$((n + 1))
        d=$work/bfcl$n
        mkdir -p "$d/possible_answer"
        printf '%s\n' "$q" >"$d/BFCL_v4_x.json"
        [ "$pa" = - ] || printf '%s\n' "$pa" >"$d/possible_answer/BFCL_v4_x.json"
        rc=0
        timeout -k 5 60 $G run R "$work/tcbfcl.gguf" "$d/BFCL_v4_x.json" "$d/run" --llama "$FAKE" --task tool-call --quiet >"$d/out" 2>&1 || rc=$?
        [ $rc = 2 ] && grep -qF -- "$d/$where" "$d/out" && grep -qF -- "$want" "$d/out" &&
            [ "$(grep -c "BFCL_v4_x.json" "$d/out")" = 1 ] ||
            fail "bfcl $n: exit $rc, want '$d/$where' and '$want' on one line: $(cat "$d/out")"
        [ ! -e "$d/run/rows" ] || fail "bfcl $n: rows were written"
    done <<BAD
{"id": "x_0", "question": "call f", "function": [{"name": "f", "parameters": {"type": "dict", "properties": {}}}]}|{"id": "x_0", "ground_truth": [{"f": {}}]}|BFCL_v4_x.json:1|"question" must be a list of turn lists
{"id": "x_0", "question": [[{"role": "user", "content": "call f"}]], "function": [{"description": "no name", "parameters": {"type": "dict", "properties": {}}}]}|{"id": "x_0", "ground_truth": [{"f": {}}]}|BFCL_v4_x.json:1|"function" item 1 has no "name"
{"id": "x_0", "question": [[{"role": "user", "content": "call f"}]], "function": [{"name": "f.g", "parameters": {"type": "dict", "properties": {}}}]}|{"id": "x_0", "ground_truth": [{"nope": {}}]}|possible_answer/BFCL_v4_x.json:1|"ground_truth" item 1 names 'nope', which is not one of 'x_0''s "function"s
{"id": "x_0", "question": [[{"role": "user", "content": "call f"}]], "function": [{"name": "f.g", "parameters": {"type": "dict", "properties": {}}}]}|{"id": "x_0", "ground_truth": {"f.g": {}}}|possible_answer/BFCL_v4_x.json:1|"ground_truth" must be a list of calls
{"id": "x_0", "question": [[{"role": "user", "content": "call f"}]], "function": [{"name": "f.g", "parameters": {"type": "dict", "properties": {}}}]}|-|possible_answer/BFCL_v4_x.json': No such file|only an irrelevance file has none
BAD
}
area_cases="$area_cases toolcall_bfcl_bad"

# The built-in items (data/toolcalls) found by name from any folder:
# `graveyard init --questions data/toolcalls/items.jsonl` writes the
# shipped file's path and the tool-call task into the config, and the
# file loads under that task (a run of it refused for no item).
# Tests: orchestrator/cmd/cmd_init.c
case_toolcall_builtin_set() {
    local m=$work/tcini rc
    init_folder tcini || { fail "the fake tools did not make the folder"; return; }
    (cd "$work" && $GT init "$m" --llama "$FAKE" --out "$work/tcini.json" \
        --questions data/toolcalls/items.jsonl >/dev/null 2>"$work/err") ||
        { fail "init --questions data/toolcalls/items.jsonl: exit $? $(cat "$work/err")"; return; }
    /usr/bin/python3 - "$work/tcini.json" "$ROOT" <<'PY' || fail "the config: $(cat "$work/tcini.json")"
import json, sys
c = json.load(open(sys.argv[1]))
assert c["questions"] == sys.argv[2] + "/data/toolcalls/items.jsonl", c["questions"]
assert c["task"] == "tool-call", c.get("task")
PY
    # the study's numbers are still init's default, with no task
    (cd "$work" && $GT init "$m" --llama "$FAKE" --out "$work/tcini2.json" >/dev/null 2>"$work/err") ||
        { fail "init: exit $? $(cat "$work/err")"; return; }
    grep -q '"task"' "$work/tcini2.json" && fail "a task in the default config: $(cat "$work/tcini2.json")"
    # a name that is neither here nor shipped: refused, one line
    rc=0; (cd "$work" && $GT init "$m" --llama "$FAKE" --out "$work/tcini3.json" \
        --questions data/toolcalls/nope.jsonl >/dev/null 2>"$work/err") || rc=$?
    [ $rc = 2 ] && grep -q "cannot read questions 'data/toolcalls/nope.jsonl'" "$work/err" ||
        fail "an unknown name: exit $rc $(cat "$work/err")"
}
area_cases="$area_cases toolcall_builtin_set"

# "logprobs" with tool items: both lineages refuse every streamed request
# with "tools" and "logprobs": true, "logprobs is not supported with tools
# + stream" (upstream a135ec0ba HTTP 400, ik 8337e4cd HTTP 500; by curl,
# docs/toolcalls.md "Logprobs"), so every tool item would be an error row
# and a night of them said nothing of why. The rung stops at its first
# tool item, one line naming the item, the server's words and the fix,
# exit 1, no row; the same rungs without logprobs answer every item.
case_toolcall_logprobs_refused() {
    local rc=0 r
    model tclpup '"logprobs_tools": 400, "default": {"content": "Hello!"},
 "replies": [{"match": "Paris", "tool_calls": [{"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}]}]'
    model tclpik '"logprobs_tools": 500, "ik": true, "default": {"content": "Hello!"},
 "replies": [{"match": "Paris", "tool_calls": [{"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}]}]'
    tc_config tclr "$work/tq.jsonl" tool-call U:tclpup I:tclpik
    sed -i 's/"task": "tool-call"/"task": "tool-call", "logprobs": 4/' "$work/tclr.json"
    rm -rf "$work/tclr"
    timeout -k 5 120 $GT ladder "$work/tclr.json" --quiet >"$work/tclr.out" 2>&1 || rc=$?
    [ $rc = 1 ] || fail "exit $rc, want 1: $(grep -v '^wrote' "$work/tclr.out" | tail -3)"
    for r in U:400 I:500; do
        grep -qF "graveyard run ${r%:*}: the server refused tool item 'weather' (HTTP ${r#*:}: logprobs is not supported with tools + stream): llama-server streams no log-probabilities beside tools, so no split can be shown for tool items; leave \"logprobs\" off for them (docs/toolcalls.md, \"Logprobs\"); stopping the rung" "$work/tclr.out" ||
            fail "rung ${r%:*}: no line naming the refusal: $(grep -v '^wrote' "$work/tclr.out" | tail -4)"
        [ ! -s "$work/tclr/rows/${r%:*}.jsonl" ] || fail "rung ${r%:*} wrote $(rows "$work/tclr" "${r%:*}") rows"
    done
    sed -i 's/"task": "tool-call", "logprobs": 4/"task": "tool-call"/' "$work/tclr.json"
    rm -rf "$work/tclr"
    timeout -k 5 120 $GT ladder "$work/tclr.json" --quiet >"$work/tclr.out" 2>&1 ||
        fail "without logprobs: exit $? $(grep -v '^wrote' "$work/tclr.out" | tail -3)"
    [ "$(rows "$work/tclr" U)" = 4 ] && [ "$(rows "$work/tclr" I)" = 4 ] ||
        fail "without logprobs: rows U $(rows "$work/tclr" U), I $(rows "$work/tclr" I), want 4 each"
}
area_cases="$area_cases toolcall_logprobs_refused"

# "logprobs" with tool items on a server that takes them but sends its
# entries on content chunks only, none on the chunks of its calls (the
# fake by default; an endpoint may): each tool reply's record held the
# content's tokens and not one of its calls', so the report compared
# records of nothing and called a dead call's replies agreeing, no
# split, as if the rung had answered as the reference did. Such a reply
# is a build that sends no log-probabilities for calls: the rung stops
# at it, as for a build that sends none at all, exit 2, one line naming
# the server, the item and why, no record and no row of it.
case_toolcall_logprobs_bare() {
    local rc=0
    tc_config tclb "$work/tq.jsonl" tool-call R:tcright W:tcwrong
    sed -i 's/"task": "tool-call"/"task": "tool-call", "logprobs": 4/' "$work/tclb.json"
    rm -rf "$work/tclb"
    timeout -k 5 120 $GT ladder "$work/tclb.json" --quiet >"$work/tclb.out" 2>&1 || rc=$?
    [ $rc = 2 ] || fail "exit $rc, want 2: $(grep -v '^wrote' "$work/tclb.out" | tail -3)"
    grep -qF "graveyard run R: the server '$FAKE' (" "$work/tclb.out" &&
        grep -qF ") streamed the calls of tool item 'weather' without log-probabilities though \"logprobs\": 4 was asked: a record would hold none of their tokens, and the report would call a dead call's replies agreeing; no split can be shown for tool items with this server (leave \"logprobs\" off for them; docs/toolcalls.md, \"Logprobs\")" "$work/tclb.out" ||
        fail "no line naming the calls: $(grep -v '^wrote' "$work/tclb.out" | tail -4)"
    [ ! -s "$work/tclb/rows/R.jsonl" ] && [ ! -s "$work/tclb/rows/R.probs" ] ||
        fail "rung R wrote $(rows "$work/tclb" R) rows, $(wc -c <"$work/tclb/rows/R.probs") probs bytes"
}
area_cases="$area_cases toolcall_logprobs_bare"

# "logprobs" with tool items on a server that sends the log-probabilities
# of its calls' tokens (the fake's "logprobs_calls": each call delta
# carries the tokens of the raw text the model generated, Llama 3.1's
# '{"name": "get_weather", "parameters": {"city": "Paris"}}', so a head
# delta of '{"ci' holds eleven tokens; no lineage sends them: both refuse
# the request, toolcall_logprobs_refused). Each tool reply's record holds
# its calls' tokens and the report's split view works on a dead call:
# report.json's probs names the split of the item whose call died, at the
# token where the rung's call text left the reference's (' "Ro' for
# ' "Pa'). Was: the chunk's several entries against its 0 bytes of text
# refused the rung (exit 2) as a mismatch.
case_toolcall_logprobs_split() {
    local out
    head -1 "$work/tq.jsonl" >"$work/tq1.jsonl"
    model tclpright '"logprobs_calls": true, "default": {"content": "Hello!"},
 "replies": [{"match": "Paris", "tool_calls": [{"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}]}]'
    model tclpwrong '"logprobs_calls": true, "default": {"content": "Hello!"},
 "replies": [{"match": "Paris", "tool_calls": [{"name": "get_weather", "arguments": "{\"city\": \"Rome\"}"}]}]'
    tc_config tcls "$work/tq1.jsonl" tool-call R:tclpright W:tclpwrong
    sed -i 's/"task": "tool-call"/"task": "tool-call", "logprobs": 4/' "$work/tcls.json"
    rm -rf "$work/tcls"
    timeout -k 5 120 $GT ladder "$work/tcls.json" --quiet >"$work/tcls.out" 2>&1 ||
        { fail "ladder: exit $? $(grep -v '^wrote' "$work/tcls.out" | tail -3)"; return; }
    out=$(timeout -k 5 30 /usr/bin/python3 - "$work/tcls/report.json" <<'PY' 2>&1
import json, sys
p = json.load(open(sys.argv[1]))["probs"]
w = [r for r in p["rungs"] if r["rung"] == "W"][0]
assert w["compared"] == 1 and w["split"] == 1 and w["split_died"] == 1, w
d = p["dead"]
assert len(d) == 1 and d[0]["rung"] == "W" and d[0]["id"] == "weather", d
d = d[0]
assert d["split"] == 12 and d["ref_token"][2] == ' "Pa' and d["rung_token"][2] == ' "Ro', d
assert d["before"].endswith('"parameters": {"city":'), d["before"]
PY
) || fail "report.json's probs: $out"
    grep -q '^| W | 1 | .* | 1 of 1 | 1 | 0 |' "$work/tcls/REPORT.md" ||
        fail "REPORT.md's split row: $(grep '^| W |' "$work/tcls/REPORT.md")"
}
area_cases="$area_cases toolcall_logprobs_split"
