# toolcall (issue 37, the asking side): tool items from the question file
# to the row. A ladder over a file of tool items against the fake's
# scripted tool calls (right, wrong name, wrong value, split inside a JSON
# string, parallel calls in another order, no call, a call leaked as text,
# an unclosed <tool_call>, arguments that are not JSON): each row keeps
# what the fake streamed byte for byte (helpers/toolcall_rows.py); a
# ladder killed -9 mid-rung and resumed; bad tool items and a rung with
# --no-jinja refused before anything runs; a 10 MB arguments stream and a
# split inside a UTF-8 character are error rows and the run goes on.
# Sourced by tests/integration/cases.sh (lib.sh's helpers).
#
# Tests: orchestrator/input/questions.c
# Tests: orchestrator/input/toolitem.c
# Tests: orchestrator/run/request.c
# Tests: orchestrator/run/runplan.c
# Tests: orchestrator/server/reply.c
# Tests: orchestrator/rows/rowwrite.c
# Tests: orchestrator/run/ask.c

TC_PY="/usr/bin/python3 $(dirname "${BASH_SOURCE[0]}")/../helpers/toolcall_rows.py"
TC_W='{"type": "function", "function": {"name": "get_weather", "description": "the weather in a city", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}'
TC_T='{"type": "function", "function": {"name": "get_time", "parameters": {"type": "object", "properties": {"tz": {"type": "string"}}}}}'
cat >"$work/tq.jsonl" <<Q
{"id": "weather", "question": "What is the weather in Paris?", "tools": [$TC_W, $TC_T], "tool_choice": "auto", "possible": [{"get_weather": {"city": ["Paris", "paris"]}}]}
{"id": "pair", "question": "The weather in Rome, and the time in CET?", "tools": [$TC_W, $TC_T], "possible": [{"get_weather": {"city": ["Rome"]}}, {"get_time": {"tz": ["CET"]}}]}
{"id": "hello", "question": "Say hello to me.", "tools": [$TC_T], "tool_choice": "none", "possible": []}
{"id": "forced", "question": "Which city is it? Oslo.", "tools": [$TC_W], "tool_choice": {"type": "function", "function": {"name": "get_weather"}}, "possible": [{"get_weather": {"city": ["Oslo"]}}]}
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
    tc_config tcl "$work/tq.jsonl" ruler R:tcright W:tcwrong S:tcsplit
    rm -rf "$work/tcl"
    timeout -k 5 120 $GT ladder "$work/tcl.json" --quiet >"$work/tcl.out" 2>&1 ||
        { fail "ladder: exit $? $(tail -3 "$work/tcl.out")"; return; }
    out=$(timeout -k 5 30 $TC_PY "$work/tcl.json" 2>&1) || fail "$out"
    grep -q 'fake: tools 2 tool_choice "auto"' "$work/tcl/logs/R.server.log" &&
        grep -q 'fake: tools 1 tool_choice "none"' "$work/tcl/logs/R.server.log" &&
        grep -q 'fake: tools 1 tool_choice {"type":"function","function":{"name":"get_weather"}}' "$work/tcl/logs/R.server.log" &&
        grep -q 'fake: tools 2 tool_choice (none)' "$work/tcl/logs/R.server.log" ||
        fail "the requests' tools: $(grep 'fake: tools' "$work/tcl/logs/R.server.log")"
    # the other rows of the file are as they were: no tool_calls key
    grep -c '"tool_calls"' "$work/tcl/rows/R.jsonl" | grep -qx 4 || fail "rows without tool_calls"
}
area_cases="$area_cases toolcall_ladder"

# A ladder killed -9 (its whole group) mid-rung, then run again: each item
# answered once, none lost, each row what the fake streamed.
case_toolcall_resume() {
    local pid out i
    : >"$work/tqr.jsonl"
    for i in $(seq -w 1 12); do
        echo "{\"id\": \"t$i\", \"question\": \"The weather in town $i?\", \"tools\": [$TC_W], \"possible\": [{\"get_weather\": {\"city\": [\"town $i\"]}}]}" >>"$work/tqr.jsonl"
    done
    model tcslow '"token_ms": 25, "default": {"content": "Looking.", "tool_calls": [{"name": "get_weather", "arguments": "{\"city\": \"a town with a long name\"}", "chunk": 2}]}'
    tc_config tcr "$work/tqr.jsonl" ruler A:tcslow B:tcslow
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
        tc_config "tcb$n" "$work/tqb$n.jsonl" ruler R:tcright
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
    [ $rc = 2 ] && grep -qF "$work/tq.jsonl:1: a tool item (it has \"tools\"): run it with a task that reads \"answers\"" "$work/tcb.out" ||
        fail "the numbers' task: exit $rc $(tail -2 "$work/tcb.out")"
    # --no-jinja: refused before the server starts; --jinja runs
    tc_config tcbj "$work/tq.jsonl" ruler 'A:tcright:, "server_args": ["--jinja"]' 'B:tcright:, "server_args": ["--jinja", "--no-jinja"]'
    rm -rf "$work/tcbj"
    rc=0
    timeout -k 5 60 $GT ladder "$work/tcbj.json" --quiet >"$work/tcb.out" 2>&1 || rc=$?
    [ $rc = 2 ] && grep -qF "rung B: tool item 'weather' ('$work/tq.jsonl' line 1) offers tools, and the server args turn templates off (--no-jinja)" "$work/tcb.out" &&
        ! grep -q "rung A:" "$work/tcb.out" ||
        fail "--no-jinja: exit $rc $(tail -3 "$work/tcb.out")"
    [ ! -e "$work/tcbj/rows/B.jsonl" ] || fail "a rung ran with --no-jinja"
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
    tc_config tcf "$work/tq.jsonl" ruler F:tcflood
    # a piece is a token to the fake: room for 10 MB of them
    sed -i 's/"task": "ruler",/"task": "ruler", "request": {"max_tokens": 100000},/' "$work/tcf.json"
    rm -rf "$work/tcf"
    timeout -k 5 120 $GT ladder "$work/tcf.json" --quiet >"$work/tcf.out" 2>&1 ||
        { fail "ladder: exit $? $(tail -3 "$work/tcf.out")"; return; }
    out=$(timeout -k 5 30 $TC_PY "$work/tcf.json" 2>&1) || fail "$out"
    grep -q '"id":"weather".*"error":"reply longer than a row holds' "$work/tcf/rows/F.jsonl" ||
        fail "the 10 MB row's error: $(grep -o '"id":"[a-z]*"\|"error":"[^"]*"' "$work/tcf/rows/F.jsonl")"
    [ "$(stat -c %s "$work/tcf/rows/F.jsonl")" -lt 100000 ] || fail "the rows file kept the flood"
}
area_cases="$area_cases toolcall_flood"

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
