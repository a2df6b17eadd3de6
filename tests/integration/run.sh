#!/bin/bash
# Integration tests: the real graveyard binary runs rungs against the fake
# llama-server (tests/fake-llama-server) on 127.0.0.1. Each case has a time limit and
# ends by checking that no server is left behind.
# Usage: run.sh BUILD_DIR [CASE...]   Ends with "integration: N passed, M failed".
#
# Tests: orchestrator/cmd/main.c
# Tests: orchestrator/cmd/cmd_run.c
# Tests: orchestrator/cmd/cmd_ladder.c
# Tests: orchestrator/cmd/ladder_plan.c
# Tests: orchestrator/cmd/ladder_end.c
# Tests: orchestrator/cmd/cmd_canary.c
# Tests: orchestrator/run/runner.c
# Tests: orchestrator/run/runner_int.c
# Tests: orchestrator/run/serve.c
# Tests: orchestrator/run/ask.c
# Tests: orchestrator/run/prepare.c
# Tests: orchestrator/night/sched.c
# Tests: orchestrator/night/super.c
# Tests: rundir/beside.c
# Tests: rundir/ladderfile.c
set -u
. "$(dirname "$0")/lib.sh"

case_basic() {
    local d=$work/basic out
    out=$($GT run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --quiet) || fail "exit $?"
    case "$out" in
    '{"rung": "Q4_0", "n": 4, "right": 3, "errors": 0, "truncated": 0, "median_decode_tps": 50.0, "mean_tokens": 6.0, "bytes": '"$(stat -c %s "$work/good.gguf")"', "server": "version: 1 (fa4e0001)", "gpu_mib_before": null, "gpu_mib_loaded": null, "gpu_name": null, "layers_offloaded": "36/36", "model_buffers_mib": {"CUDA0": 1639.0}, "run": {"cpu_s": '*', "server_starts": 1, "server_log_dropped": 0}}') ;;
    *) fail "summary: $out" ;;
    esac
    [ "$(rows "$d" Q4_0)" = 4 ] || fail "rows: $(rows "$d" Q4_0)"
    [ "$(field "$d/rows/Q4_0.jsonl" pears extracted)" = 8 ] || fail "pears extracted"
    [ "$(field "$d/rows/Q4_0.jsonl" apples reasoning_content)" = '"count them"' ] || fail "reasoning"
    grep -q '"sha256"' "$d/manifest.json" || fail "manifest has no sha256"
    grep -q 'offloaded 36/36 layers' "$d/logs/Q4_0.server.log" || fail "no load lines in the server log"
    # a finished rung: the same summary, and no server started
    local before; before=$(wc -l <"$d/logs/Q4_0.server.log")
    [ "$($GT run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --quiet)" = "$out" ] || fail "second run differs"
    [ "$(wc -l <"$d/logs/Q4_0.server.log")" = "$before" ] || fail "a server was started for a finished rung"
    # the rows grade the same in bury
    $G bury "$d" Q4_0 >/dev/null || fail "bury refuses the rows"
}

case_limit_and_folder() {
    local d=$work/limit
    mkdir -p "$work/llama.cpp/build/bin"
    ln -sf "$FAKE" "$work/llama.cpp/build/bin/llama-server"
    $GT run Q8_0 "$work/good.gguf" "$work/q.jsonl" "$d" --llama "$work/llama.cpp" --limit 2 --gpu 3 --quiet >/dev/null || fail "exit $?"
    # a ladder config whose server.binary is a llama.cpp folder
    cat >"$work/folder.json" <<JSON
{"name": "folder", "questions": "$work/q.jsonl", "run_dir": "$work/folder",
 "rungs": [{"name": "A", "model": "$work/good.gguf"}],
 "server": {"binary": "$work/llama.cpp"}, "limit": 1}
JSON
    $GT ladder "$work/folder.json" --quiet >/dev/null || fail "a llama.cpp folder in the config: exit $?"
    [ "$(rows "$d" Q8_0)" = 2 ] || fail "rows: $(rows "$d" Q8_0)"
    grep -q "fake: CUDA_VISIBLE_DEVICES=3$" "$d/logs/Q8_0.server.log" || fail "--gpu 3 did not reach the server"
}

case_faults() {
    local d=$work/faults
    $GT run Q2_K "$work/faults.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --max-tokens 8 --quiet >/dev/null 2>"$work/err" || fail "exit $?"
    field "$d/rows/Q2_K.jsonl" apples error | grep -q "died 3 times" || fail "apples: $(field "$d/rows/Q2_K.jsonl" apples error)"
    [ "$(field "$d/rows/Q2_K.jsonl" apples attempts)" = 3 ] || fail "apples attempts"
    field "$d/rows/Q2_K.jsonl" apples error | grep -q "Failed to parse input" || fail "apples: no log line quoted"
    [ "$(field "$d/rows/Q2_K.jsonl" pears error)" = '"HTTP 500: the model produced output that does not match the expected format"' ] || fail "pears: $(field "$d/rows/Q2_K.jsonl" pears error)"
    [ "$(field "$d/rows/Q2_K.jsonl" pears attempts)" = 1 ] || fail "pears was retried"
    field "$d/rows/Q2_K.jsonl" plums error | grep -q "stream error" || fail "plums"
    [ "$(field "$d/rows/Q2_K.jsonl" figs truncated)" = true ] || fail "figs not truncated"
}

case_streak() {
    local d=$work/streak rc
    $GT run Q2_K "$work/allcrash.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --quiet >/dev/null 2>"$work/err"; rc=$?
    [ $rc = 1 ] || fail "exit $rc"
    grep -q "died on 3 questions in a row" "$work/err" || fail "message: $(cat "$work/err")"
    grep -q "run the same command to resume" "$work/err" || fail "no resume hint"
    [ "$(rows "$d" Q2_K)" = 2 ] || fail "rows: $(rows "$d" Q2_K) (two error rows expected)"
}

case_no_start() {
    local d=$work/nostart rc
    $GT run BF16 "$work/nostart.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --quiet >/dev/null 2>"$work/err"; rc=$?
    [ $rc = 1 ] || fail "exit $rc"
    grep -q "tensor data is corrupted" "$work/err" || fail "message: $(cat "$work/err")"
    rc=0; $GT run BF16 "$work/missing.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --quiet 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "missing.gguf" "$work/err" || fail "missing model: $rc $(cat "$work/err")"
    rc=0; $GT run BF16 "$work/good.gguf" "$work/q.jsonl" "$d" --llama /nonexistent/llama-server --quiet 2>"$work/err" || rc=$?
    [ $rc = 2 ] || fail "missing binary: $rc $(cat "$work/err")"
}

case_hang() {
    local d=$work/hang
    timeout 60 $GT run Q3_K_M "$work/hang.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --idle-timeout 1 --quiet >/dev/null 2>"$work/err" || fail "exit $?"
    field "$d/rows/Q3_K_M.jsonl" pears error | grep -q "no token from the server for 1 s, 3 times" || fail "pears: $(field "$d/rows/Q3_K_M.jsonl" pears error)"
    [ "$(field "$d/rows/Q3_K_M.jsonl" pears error_kind)" = '"hung"' ] || fail "pears: kind $(field "$d/rows/Q3_K_M.jsonl" pears error_kind)"
    [ "$(rows "$d" Q3_K_M)" = 4 ] || fail "rows"
}

case_ik() {
    local d=$work/ik
    $GT run Q4_0 "$work/ik.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --max-tokens 8 --quiet >/dev/null || fail "exit $?"
    [ "$(field "$d/rows/Q4_0.jsonl" apples finish_reason)" = '"stop"' ] || fail "finish"
    [ "$(field "$d/rows/Q4_0.jsonl" apples truncated)" = true ] || fail "ik truncation not seen"
}

case_sigterm_and_resume() {
    local d=$work/sig pid rc
    $G run Q6_K "$work/slow.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --quiet >/dev/null 2>"$work/err" &
    pid=$!
    wait_for 30 '[ -s "$d/rows/Q6_K.jsonl" ]' || fail "no row within 30 s"
    kill -TERM $pid; wait $pid; rc=$?
    [ $rc = 143 ] || fail "exit $rc after SIGTERM"
    servers_left && fail "a server outlived SIGTERM"
    # the terminal going away (SIGHUP) stops the server too (a default
    # SIGHUP given: the suite may run under nohup)
    $HUP_DEFAULT $G run Q6_K "$work/slow.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --quiet >/dev/null 2>&1 &
    pid=$!
    wait_for 30 'grep -q "server is listening" "$d/logs/Q6_K.server.log" 2>/dev/null' || fail "no server within 30 s"
    sleep 0.3
    kill -HUP $pid; wait $pid; rc=$?
    [ $rc = 129 ] || fail "exit $rc after SIGHUP"
    servers_left && fail "a server outlived SIGHUP"
    $G run Q6_K "$work/slow.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --quiet >/dev/null || fail "resume exit $?"
    [ "$(rows "$d" Q6_K)" = 4 ] || fail "rows after resume: $(rows "$d" Q6_K)"
    $G bury "$d" Q6_K >/dev/null || fail "duplicate or broken rows after resume"
}

# SIGKILL of graveyard run: its server dies with it (the parent-death
# signal), and the next run resumes, cutting back a torn row
case_kill9_and_resume() {
    local d=$work/k9 pid left
    $G run Q5_K_M "$work/slow.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --quiet >/dev/null 2>&1 &
    pid=$!
    wait_for 30 '[ -s "$d/rows/Q5_K_M.jsonl" ]' || fail "no row within 30 s"
    left=$(cut -d' ' -f1 "$d/Q5_K_M.server.pid")
    kill -KILL $pid; wait $pid 2>/dev/null
    gone_within 10 "$left" || fail "the server outlived a SIGKILLed graveyard run"
    printf '{"id": "figs", "ref' >>"$d/rows/Q5_K_M.jsonl"   # and a torn row
    $G run Q5_K_M "$work/slow.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" >/dev/null 2>"$work/err" || fail "resume exit $?"
    grep -q "cut back a torn last row" "$work/err" || fail "the torn row was not reported"
    [ "$(rows "$d" Q5_K_M)" = 4 ] || fail "rows after resume: $(rows "$d" Q5_K_M)"
    $G bury "$d" Q5_K_M >/dev/null || fail "duplicate or broken rows after resume"
}

case_manifest() {
    local d=$work/man rc
    $GT run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --limit 2 --quiet >/dev/null || fail "exit $?"
    cp "$work/q.jsonl" "$work/q2.jsonl"
    echo '{"id": "kiwis", "question": "2 kiwis and 2 kiwis?", "answer": "4"}' >>"$work/q2.jsonl"
    # the same question path with other contents: refused
    cp "$work/q.jsonl" "$work/q.bak"; cp "$work/q2.jsonl" "$work/q.jsonl"
    rc=0; $GT run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --quiet 2>"$work/err" >/dev/null || rc=$?
    [ $rc = 2 ] || fail "changed question file: exit $rc"
    grep -q "sha256" "$work/err" || fail "message: $(cat "$work/err")"
    rc=0; $GT run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --request '{"top_k": 1}' --force --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 0 ] || fail "--force: exit $rc $(cat "$work/err")"
    grep -q '"forced"' "$d/manifest.json" || fail "--force not recorded"
    grep -q '"top_k"' "$d/manifest.json" || fail "--request not recorded"
    cp "$work/q.bak" "$work/q.jsonl"
}

case_flaky_and_health() {
    local d=$work/flaky rc
    $GT run Q4_K_M "$work/flaky.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --quiet >/dev/null || fail "flaky: exit $?"
    [ "$(field "$d/rows/Q4_K_M.jsonl" plums attempts)" = 2 ] || fail "plums attempts: $(field "$d/rows/Q4_K_M.jsonl" plums attempts)"
    [ "$(field "$d/rows/Q4_K_M.jsonl" plums extracted)" = 5 ] || fail "plums not answered after the restart"
    rc=0; $GT run Q4_K_M "$work/never.gguf" "$work/q.jsonl" "$work/never" --llama "$FAKE" --health-timeout 2 --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 1 ] && grep -q "not ready after 2 s" "$work/err" || fail "never ready: $rc $(cat "$work/err")"
    # /health that hangs while loading (the ik fork): polls time out, then it is ready
    $GT run Q4_K_M "$work/ikload.gguf" "$work/q.jsonl" "$work/ikload" --llama "$FAKE" --quiet >/dev/null || fail "hanging health: exit $?"
}

# SIGKILL graveyard at 12 random moments of one rung, resuming each time;
# the rows must match an uninterrupted run's.
case_kill_many() {
    local d=$work/many ref=$work/many-ref i pid
    for i in $(seq 1 40); do
        echo "{\"id\": \"q$i\", \"question\": \"question number $i\", \"answer\": \"5\"}"
    done >"$work/q40.jsonl"
    $GT run Q8_0 "$work/long.gguf" "$work/q40.jsonl" "$ref" --llama "$FAKE" --quiet >/dev/null || fail "reference run: exit $?"
    for i in $(seq 1 12); do
        $G run Q8_0 "$work/long.gguf" "$work/q40.jsonl" "$d" --llama "$FAKE" --quiet >/dev/null 2>&1 &
        pid=$!
        sleep "0.$(( (RANDOM % 9) + 1 ))$(( RANDOM % 10 ))"
        kill -KILL $pid 2>/dev/null; wait $pid 2>/dev/null
    done
    $GT run Q8_0 "$work/long.gguf" "$work/q40.jsonl" "$d" --llama "$FAKE" --quiet >/dev/null || fail "final run: exit $?"
    /usr/bin/python3 - "$ref/rows/Q8_0.jsonl" "$d/rows/Q8_0.jsonl" <<'PY' || fail "rows differ from the uninterrupted run"
import json, sys
a = [json.loads(l) for l in open(sys.argv[1])]
b = [json.loads(l) for l in open(sys.argv[2])]
ids = [r["id"] for r in b]
assert len(ids) == len(set(ids)) == 40, ("lost or twice", len(ids), len(set(ids)))
assert [r["id"] for r in a] == ids
for x, y in zip(a, b):
    for k in ("content", "reasoning_content", "extracted", "right", "completion_tokens"):
        assert x[k] == y[k], (x["id"], k)
PY
}

case_bad_input() {
    local rc
    rc=0; $GT run Q4_0 "$work/good.gguf" "$work/nope.jsonl" "$work/b1" --llama "$FAKE" 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "nope.jsonl" "$work/err" || fail "missing questions: $rc $(cat "$work/err")"
    printf '{"id": "a", "question": "q", "answer": "1"}\n{"id": "b", "question":\n' >"$work/badq.jsonl"
    rc=0; $GT run Q4_0 "$work/good.gguf" "$work/badq.jsonl" "$work/b2" --llama "$FAKE" 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "badq.jsonl:2:" "$work/err" || fail "malformed questions: $rc $(cat "$work/err")"
    touch "$work/afile"
    rc=0; $GT run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$work/afile/run" --llama "$FAKE" 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "afile/run" "$work/err" || fail "unwritable RUNDIR: $rc $(cat "$work/err")"
    cp "$work/q.jsonl" "$work/notexec"; chmod 644 "$work/notexec"
    rc=0; $GT run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$work/b3" --llama "$work/notexec" 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "notexec" "$work/err" || fail "--llama not executable: $rc $(cat "$work/err")"
    [ -e "$work/b3/logs/Q4_0.server.log" ] && fail "a server log was written"
    true
}

# the server log keeps its head and tail within the cap, and says so
case_log_cap() {
    local d=$work/spam log size
    $GT run Q4_0 "$work/spam.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --log-cap 16384 --quiet >"$work/out" || fail "exit $?"
    log=$d/logs/Q4_0.server.log
    size=$(stat -c %s "$log")
    [ "$size" -le $((16384 + 200)) ] || fail "log is $size bytes, cap 16384"
    grep -q "offloaded 36/36 layers" "$log" || fail "load lines lost"
    grep -q "bytes of server output dropped here (log cap)" "$log" || fail "no drop note"
    tail -1 "$log" | grep -q "spam 0*32$" || fail "tail lost: $(tail -1 "$log")"
    grep -q '"server_log_dropped": [1-9]' "$work/out" || fail "summary does not report the cap: $(cat "$work/out")"
}

# a port found taken: the server is started again on another
case_port_taken() {
    local d=$work/port
    rm -f "$work/bind.mark"
    $GT run Q4_0 "$work/port.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" >/dev/null 2>"$work/err" || fail "exit $?: $(cat "$work/err")"
    grep -q "is taken; trying another" "$work/err" || fail "no second port: $(cat "$work/err")"
    [ "$(rows "$d" Q4_0)" = 4 ] || fail "rows"
}

# ladder.tsv, the sha256 cache, a changed model, and verify
case_ladder_files() {
    local d1=$work/lf1 d2=$work/lf2 d3=$work/lf3 rc sum
    cp "$work/good.gguf" "$work/m1.gguf"; cp "$work/ik.gguf" "$work/m2.gguf"
    $GT run Q4_0 "$work/m1.gguf" "$work/q.jsonl" "$d1" --llama "$FAKE" --limit 1 --quiet >/dev/null || fail "exit $?"
    $GT run Q8_0 "$work/m2.gguf" "$work/q.jsonl" "$d1" --llama "$FAKE" --quiet >/dev/null || fail "exit $?"
    sum=$(sha256sum "$work/m1.gguf" | cut -d' ' -f1)
    grep -q "^Q4_0	$work/m1.gguf	$(stat -c %s "$work/m1.gguf")	$sum\$" "$d1/ladder.tsv" || fail "ladder.tsv: $(cat "$d1/ladder.tsv")"
    # resuming hashes nothing: the cache knows the file
    $GT run Q4_0 "$work/m1.gguf" "$work/q.jsonl" "$d1" --llama "$FAKE" --limit 2 >/dev/null 2>"$work/err" || fail "exit $?"
    grep -q "(cached)" "$work/err" || fail "the model was hashed again: $(cat "$work/err")"
    # a new mtime: hashed again, same bytes, so the run goes on
    touch "$work/m1.gguf"
    $GT run Q4_0 "$work/m1.gguf" "$work/q.jsonl" "$d1" --llama "$FAKE" --limit 3 >/dev/null 2>"$work/err" || fail "exit $?"
    grep -q "(cached)" "$work/err" && fail "a touched model was not hashed again"
    # other bytes under the same name: refused, before any server starts
    echo " " >>"$work/m1.gguf"
    rc=0; $GT run Q4_0 "$work/m1.gguf" "$work/q.jsonl" "$d1" --llama "$FAKE" --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -qE "rungs.Q4_0.(bytes|sha256) differs" "$work/err" || fail "changed model: $rc $(cat "$work/err")"
    # verify: the same files elsewhere, then a different one
    cp "$work/good.gguf" "$work/m1b.gguf"
    $GT run Q4_0 "$work/m1b.gguf" "$work/q.jsonl" "$d2" --llama "$FAKE" --limit 1 --quiet >/dev/null || fail "exit $?"
    $GT run Q8_0 "$work/m2.gguf" "$work/q.jsonl" "$d2" --llama "$FAKE" --limit 1 --quiet >/dev/null || fail "exit $?"
    $G verify "$d2" --against "$d1/ladder.tsv" >"$work/out" || fail "verify same: exit $? $(cat "$work/out")"
    grep -q "2 rungs, the same bytes and sha256 in both" "$work/out" || fail "verify: $(cat "$work/out")"
    $GT run Q4_0 "$work/m2.gguf" "$work/q.jsonl" "$d3" --llama "$FAKE" --limit 1 --quiet >/dev/null || fail "exit $?"
    rc=0; $G verify "$d3" --against "$d1/ladder.tsv" >"$work/out" || rc=$?
    [ $rc = 1 ] || fail "verify different: exit $rc"
    grep -q "^Q4_0: " "$work/out" && grep -q "^Q8_0: only in $d1/ladder.tsv" "$work/out" || fail "verify: $(cat "$work/out")"
}

case_ladder_demo() {
    local d=$work/ld before
    $GT ladder configs/demo.json --run-dir "$d" --quiet >"$work/out" || fail "exit $?"
    grep -q '^{"first_deaths_by_rung": {"Q8_0": 1, "Q4_0": 2, "Q2_K": 8}, "tombstones": 11, "ghosts": 1}$' "$work/out" || fail "bury: $(cat "$work/out")"
    grep -q '"QAT_Q4_0"' "$d/graveyard-side.json" || fail "no side bury"
    [ "$(ls "$d"/rows/*.done | wc -l)" = 5 ] || fail "not every rung done"
    # (README's bury example is make demo's: tests/readme checks it)
    # the report: the ladder's shape, and the table from these rows
    grep -q '"side_rungs": \[$' "$d/ladder.json" || fail "ladder.json: $(cat "$d/ladder.json")"
    grep -q '^| Q2_K | .* | 3 | 25.0 (8.9–53.2) | 9 (75.0 %) | 12 (100.0 %) | 9 | 1 | ' "$d/REPORT.md" || fail "REPORT.md: $(grep '^| Q2_K' "$d/REPORT.md")"
    grep -q '^| QAT_Q4_0 | ' "$d/REPORT.md" || fail "REPORT.md: no side rung"
    grep -q '<svg' "$d/cover.svg" && [ -s "$d/report.json" ] || fail "no cover or report.json"
    before=$(cat "$d"/logs/*.server.log | wc -l)
    $GT ladder configs/demo.json --run-dir "$d" --quiet >"$work/out2" || fail "second exit $?"
    cmp -s "$work/out" "$work/out2" || fail "a second ladder buried differently"
    [ "$(cat "$d"/logs/*.server.log | wc -l)" = "$before" ] || fail "a finished ladder started servers"
}

case_ladder_gpus() {
    local d=$work/lg f
    ladder_config lg 6 '"0", "1", "2"' slow
    $GT ladder "$work/lg.json" >/dev/null 2>"$work/err" || fail "exit $?"
    # progress when not on a terminal: a line per finished rung, the end
    grep -q "^graveyard ladder: R6 finished: 1/4 right$" "$work/err" || fail "progress: $(cat "$work/err")"
    grep -q "^graveyard ladder: finished: R1, R2, R3, R4, R5, R6; failed: none$" "$work/err" || fail "last line: $(tail -1 "$work/err")"
    for f in "$d"/logs/R*.server.log; do
        [ "$(grep -c 'server is listening' "$f")" = 1 ] || fail "$f: not exactly one server"
        grep -qE "CUDA_VISIBLE_DEVICES=[012]$" "$f" || fail "$f: no GPU given"
    done
    [ "$(grep -h CUDA_VISIBLE "$d"/logs/*.log | sort -u | wc -l)" = 3 ] || fail "not all three GPUs used"
}

# "repeat_reference": the reference runs twice, the second time into
# RUNDIR/repeat/, with its own server and progress; the report's floor
# comes from it (the fake server is deterministic: 0). --repeat-reference
# does the same from the command line; a second night runs nothing; a
# value that is not a boolean is refused before anything starts.
case_ladder_repeat_reference() {
    local d=$work/rr n f
    ladder_config rr 2 '"0"' good
    sed -i 's|"gpus": \["0"\]}|"gpus": ["0"], "repeat_reference": true}|' "$work/rr.json"
    $GT ladder "$work/rr.json" >"$work/out" 2>"$work/err" || fail "ladder: exit $? $(tail -3 "$work/err")"
    [ -f "$d/repeat/rows/R1.done" ] || fail "no second run of the reference"
    [ ! -e "$d/repeat/rows/R2.jsonl" ] || fail "a rung other than the reference ran again"
    n=$(wc -l <"$d/repeat/rows/R1.jsonl")
    [ "$n" = "$(wc -l <"$d/rows/R1.jsonl")" ] || fail "the second run has $n rows"
    grep -q "R1 again started" "$work/err" || fail "no progress for the second run: $(cat "$work/err")"
    grep -q "^Noise floor: R1, run a second time, grades 0 questions differently" "$d/REPORT.md" || fail "no floor in REPORT.md"
    grep -q '"floor": 0' "$d/report.json" || fail "no floor in report.json"
    $GT ladder "$work/rr.json" >/dev/null 2>"$work/err" || fail "second night: exit $?"
    for f in "$d"/logs/R*.server.log "$d"/repeat/logs/R1.server.log; do
        [ "$(grep -c 'server is listening' "$f")" = 1 ] || fail "$f: a server started again on the second night"
    done
    # the flag: the same, into another folder
    $GT ladder "$work/rr.json" --run-dir "$work/rr2" --repeat-reference --quiet >/dev/null 2>&1 || fail "--repeat-reference: exit $?"
    sed 's|"repeat_reference": true|"repeat_reference": false|' "$work/rr.json" >"$work/rr3.json"
    $GT ladder "$work/rr3.json" --run-dir "$work/rr3" --repeat-reference --quiet >/dev/null 2>&1 || fail "flag over false: exit $?"
    [ -f "$work/rr2/repeat/rows/R1.done" ] && [ -f "$work/rr3/repeat/rows/R1.done" ] || fail "--repeat-reference ran no second run"
    # a share that finds every rung done but the second run of the
    # reference (another share's) must not bury yet: the floor is missing
    $GT ladder "$work/rr3.json" --run-dir "$work/rr4" --quiet >/dev/null 2>&1 || fail "rr4: exit $?"
    $GT ladder "$work/rr3.json" --run-dir "$work/rr4" --repeat-reference --shard 1/2 --quiet >"$work/out" 2>&1 || true
    ! grep -q "the report" "$work/out" || fail "a share buried before the reference's second run was done"
    refused_config rr 's|"repeat_reference": true|"repeat_reference": "yes"|' "'repeat_reference' must be true or false" "a string"
}

# graveyard canary: the same model against a trusted run passes; one
# whose answers drift is stopped, naming the questions; the verdict is in
# canary.json and the report. In a config, the ladder runs it before any
# rung and starts none when it fails; a night with nothing left to run
# runs no canary.
case_canary() {
    local t=$work/ct d=$work/cn rc
    $GT run R1 "$work/good.gguf" "$work/q.jsonl" "$t" --llama "$FAKE" --quiet >/dev/null || fail "trusted run: exit $?"
    $GT canary R1 "$work/good.gguf" "$t/rows/R1.jsonl" --run-dir "$d" --llama "$FAKE" --quiet >"$work/out" 2>"$work/err" || fail "same model: exit $? $(cat "$work/err")"
    grep -q '"questions": 4, "max_changed": 2, "compared": 4, "missing": 0, "changed": 0, .*"same_text": 4, "changed_ids": \[\], "passed": true}$' "$work/out" || fail "verdict: $(cat "$work/out")"
    [ "$(wc -l <"$work/out")" = 1 ] || fail "more than the verdict on stdout: $(cat "$work/out")"
    cmp -s "$d/canary/questions.jsonl" <(python3 -c 'import json,sys
for l in open(sys.argv[1]): q=json.loads(l); print(json.dumps({"id":q["id"],"question":q["question"],"answer":q["answer"]},separators=(",",":")))' "$work/q.jsonl") || fail "the canary's questions are not the trusted rows' first"
    rc=0; $GT canary R1 "$work/drift.gguf" "$t/rows/R1.jsonl" --run-dir "$d" --llama "$FAKE" --quiet --max-changed 1 >"$work/out" 2>"$work/err" || rc=$?
    [ $rc = 1 ] || fail "drift: exit $rc"
    grep -q "R1 changed 2 of 4 answers against $t/rows/R1.jsonl (at most 1 may change): pears, plums" "$work/err" || fail "drift message: $(cat "$work/err")"
    grep -q '"changed": 2, "changed_right": 2' "$d/canary/canary.json" || fail "canary.json: $(cat "$d/canary/canary.json")"
    [ "$(rows "$d/canary" R1)" = 4 ] || fail "the last canary's rows were not replaced"
    $GT canary R1 "$work/drift.gguf" "$t/rows/R1.jsonl" --run-dir "$d" --llama "$FAKE" --quiet --questions 1 >/dev/null 2>&1 || fail "--questions 1: exit $?"
    # run's switches pass through without eating the next option: a
    # batching build against a one-at-a-time trusted run
    rc=0; $GT canary R1 "$work/batch.gguf" "$t/rows/R1.jsonl" --run-dir "$work/cb" --allow-batching --server-arg -np --server-arg 4 --llama "$FAKE" --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 1 ] && grep -q '"in_flight": 4' "$work/cb/canary/manifest.json" || fail "batching canary: exit $rc $(cat "$work/err")"
    # the question file comes from the trusted run's manifest, or is given
    cp "$t/rows/R1.jsonl" "$work/loose.jsonl"
    rc=0; $GT canary R1 "$work/good.gguf" "$work/loose.jsonl" --run-dir "$d" --llama "$FAKE" --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "give it with --question-file" "$work/err" || fail "no manifest: exit $rc $(cat "$work/err")"
    $GT canary R1 "$work/good.gguf" "$work/loose.jsonl" --question-file "$work/q.jsonl" --run-dir "$d" --llama "$FAKE" --quiet >/dev/null || fail "--question-file: exit $?"
    rc=0; $GT canary R1 "$work/good.gguf" "$t/rows/R1.jsonl" --limit 2 >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "asks --questions N" "$work/err" || fail "--limit: exit $rc $(cat "$work/err")"
    # in a config: before the first rung
    cat >"$work/cl.json" <<JSON
{"name": "cl", "questions": "$work/q.jsonl", "run_dir": "$work/cl",
 "rungs": [{"name": "R1", "model": "$work/good.gguf"}, {"name": "R2", "model": "$work/drift.gguf"}],
 "server": {"binary": "$FAKE"}, "canary": {"rows": "$t/rows/R1.jsonl", "questions": 3, "max_changed": 1}}
JSON
    $GT ladder "$work/cl.json" >/dev/null 2>"$work/err" || fail "ladder: exit $? $(tail -3 "$work/err")"
    [ "$(grep -n 'canary (R1) passed' "$work/err" | cut -d: -f1)" -lt "$(grep -n 'R1 started' "$work/err" | cut -d: -f1)" ] || fail "the canary did not run first: $(cat "$work/err")"
    grep -q '^Before the night, R1 answered the first 3 questions of .*0 answers changed (at most 1 may), 3 replies the very same. \*\*Passed.\*\*$' "$work/cl/REPORT.md" || fail "REPORT.md: $(grep -A2 Canary "$work/cl/REPORT.md")"
    grep -q '"canary": {"rung": "R1"' "$work/cl/report.json" || fail "report.json has no canary"
    $GT ladder "$work/cl.json" >/dev/null 2>"$work/err" || fail "second night: exit $?"
    ! grep -q canary "$work/err" || fail "a night with nothing to run ran a canary"
    # a drifting reference: no rung starts, exit 1
    sed 's|"R1", "model": "[^"]*good.gguf"|"R1", "model": "'"$work"'/drift.gguf"|; s|"run_dir": "[^"]*"|"run_dir": "'"$work"'/cl2"|' "$work/cl.json" >"$work/cl2.json"
    rc=0; $GT ladder "$work/cl2.json" >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 1 ] && grep -q "the canary stopped the night before any rung" "$work/err" || fail "drifting canary: exit $rc $(tail -3 "$work/err")"
    [ ! -e "$work/cl2/rows/R1.jsonl" ] && [ ! -e "$work/cl2/rows/R2.jsonl" ] || fail "a rung ran after a failed canary"
    refused_config cl 's|"max_changed": 1|"max_changed": -1|' "'canary.max_changed' must be an integer from 0" "a negative limit"
    refused_config cl 's|"canary": {"rows"|"canary": {"row"|' "canary" "a misspelt key"
    no_servers_within 5 || fail "a server was left behind"
}

# A request with a grammar or a JSON schema: the fake server does not
# enforce it (as llama-server has not), and each reply is checked as its
# row is written; the report counts those that broke it.
case_constrained() {
    local d=$work/cs
    $GT run R1 "$work/good.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --quiet \
        --request '{"grammar": "root ::= \"Answer: \" [0-9]+"}' >/dev/null || fail "grammar: exit $?"
    [ "$(field "$d/rows/R1.jsonl" apples violations)" = 0 ] || fail "apples: $(field "$d/rows/R1.jsonl" apples violations)"
    [ "$(field "$d/rows/R1.jsonl" pears violations)" = 1 ] || fail "pears ('Answer: **8**.') held"
    [ "$(field "$d/rows/R1.jsonl" pears constrained)" = '"grammar"' ] || fail "no constrained field"
    $GT run R2 "$work/good.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --quiet --force \
        --request '{"grammar": "root ::= \"Answer: \" [0-9]+"}' >/dev/null || fail "R2: exit $?"
    $G report "$d" --rungs R1,R2 --no-html >/dev/null || fail "report: exit $?"
    grep -q '^| R2 | 4 | 1 | 25.0 |$' "$d/REPORT.md" || fail "REPORT.md: $(grep -A5 'Held to' "$d/REPORT.md")"
    $GT run J "$work/good.gguf" "$work/q.jsonl" "$work/cj" --llama "$FAKE" --quiet \
        --request '{"json_schema": {"type": "object", "required": ["answer"]}}' >/dev/null || fail "json_schema: exit $?"
    [ "$(field "$work/cj/rows/J.jsonl" plums violations)" = 1 ] || fail "plums is not JSON, yet held"
    grep -q '"violation":"not JSON' "$work/cj/rows/J.jsonl" || fail "no violation text"
    # a request without a constraint: rows as before
    $GT run P "$work/good.gguf" "$work/q.jsonl" "$work/cp" --llama "$FAKE" --quiet --limit 1 >/dev/null || fail "plain: exit $?"
    ! grep -q constrained "$work/cp/rows/P.jsonl" || fail "an unconstrained row says constrained"
}

# Batching only on purpose: a server with several slots is refused
# without it; with it, that many questions are in flight (the fake server
# answers a request that arrives while another is answered otherwise, as
# batched decoding does), a server that dies with several in flight loses
# no question and repeats none, a folder made one way does not resume the
# other, and a ladder runs its reference twice for the floor.
case_batching() {
    local d=$work/bt rc n
    rc=0; $GT run R1 "$work/batch.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --quiet --server-arg -np --server-arg 4 >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "the server would have 4 slots" "$work/err" || fail "-np 4 without batching: exit $rc $(cat "$work/err")"
    [ ! -e "$d/rows" ] || fail "a refused run wrote rows"
    rc=0; $GT run R1 "$work/batch.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --quiet --server-arg=--parallel=-1 >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "would have 4 slots" "$work/err" || fail "--parallel=-1 (auto): exit $rc $(cat "$work/err")"
    $GT run R1 "$work/batch.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --quiet --server-arg -np --server-arg 4 --allow-batching >/dev/null || fail "batching: exit $?"
    [ "$(rows "$d" R1)" = 4 ] || fail "rows: $(rows "$d" R1)"
    grep -q '"in_flight": 4' "$d/manifest.json" || fail "the manifest does not say 4 in flight"
    n=$(grep -c 'batched reply' "$d/logs/R1.server.log")
    [ "$n" -ge 1 ] || fail "no request was answered in a batch"
    # each batched reply is a row's answer, but for a question asked again
    # (its first stream lost before a byte: attempts 2), whose row is the
    # second, lone answer (seen once in a sanitized CI: 3 in the log, 2 in
    # the rows)
    [ "$(( $(grep -c '"extracted":6' "$d/rows/R1.jsonl") + $(grep -c '"attempts":[2-9]' "$d/rows/R1.jsonl") ))" -ge "$n" ] &&
        [ "$(grep -c '"extracted":6' "$d/rows/R1.jsonl")" -le "$n" ] ||
        fail "batched answers: $n in the log, $(grep -c '"extracted":6' "$d/rows/R1.jsonl") in the rows, $(grep -c '"attempts":[2-9]' "$d/rows/R1.jsonl") asked again"
    rc=0; $GT run R1 "$work/batch.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "manifest.request differs" "$work/err" || fail "one-at-a-time over batched rows: exit $rc $(cat "$work/err")"
    # a question that kills the server with others in flight: they are
    # asked again one at a time, so it dies alone and they are answered
    model poison '"token_ms": 20, "default": {"content": "Let me think about this, one step at a time.\nAnswer: 5"},
     "replies": [{"match": "plums", "content": "Let me think about this, one step at a time.", "fault": "exit"}]'
    $GT run R1 "$work/poison.gguf" "$work/q.jsonl" "$work/bf" --llama "$FAKE" --quiet --server-arg -np --server-arg 3 --allow-batching >/dev/null 2>"$work/err" || fail "poison batching: exit $? $(cat "$work/err")"
    [ "$(rows "$work/bf" R1)" = 4 ] && [ "$(cut -d, -f1 "$work/bf/rows/R1.jsonl" | sort -u | wc -l)" = 4 ] || fail "poison rows: $(cut -d, -f1 "$work/bf/rows/R1.jsonl")"
    [ "$(grep -c '"error_kind":"died"' "$work/bf/rows/R1.jsonl")" = 1 ] && [ "$(field "$work/bf/rows/R1.jsonl" plums error_kind)" = '"died"' ] || fail "not plums alone died: $(grep -o '"id":"[a-z]*"\|"error_kind":"[a-z]*"' "$work/bf/rows/R1.jsonl" | tr '\n' ' ')"
    [ "$(field "$work/bf/rows/R1.jsonl" apples attempts)" -le 2 ] || fail "apples was blamed: $(field "$work/bf/rows/R1.jsonl" apples attempts) attempts"
    # a ladder: refused without "batching", and with it the reference twice
    ladder_config lbt 2 '"0"' batch
    sed -i 's|"server": {"binary": "\([^"]*\)"}|"server": {"binary": "\1", "args": ["-np", "4"]}|' "$work/lbt.json"
    refused_config lbt 's|x|x|' "the server would have 4 slots" "a ladder with -np 4"
    sed -i 's|"gpus": \["0"\]}|"gpus": ["0"], "batching": true}|' "$work/lbt.json"
    $GT ladder "$work/lbt.json" >/dev/null 2>"$work/err" || fail "batching ladder: exit $? $(tail -3 "$work/err")"
    [ -f "$work/lbt/repeat/rows/R1.done" ] || fail "batching did not run the reference twice"
    grep -q "^Noise floor: R1, run a second time, grades [0-9]* question" "$work/lbt/REPORT.md" || fail "no floor in REPORT.md"
    no_servers_within 5 || fail "a server was left behind"
}

# abort_loops: the three looping replies are closed as they loop, their
# rows say so, and they grade as the full replies do; a SIGKILL while one
# is being cut resumes to the rows of an uninterrupted run, with no server
# left behind.
case_abort_loops() {
    local d=$work/al pid left k
    $GT run R1 "$work/loops.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --quiet --abort-loops >/dev/null || fail "abort: exit $?"
    $GT run R1 "$work/loopsfull.gguf" "$work/q.jsonl" "$work/alfull" --llama "$FAKE" --quiet >/dev/null || fail "full: exit $?"
    for k in apples pears plums; do
        [ "$(field "$d/rows/R1.jsonl" $k finish_reason)" = '"loop"' ] || fail "$k was not cut"
        [ "$(field "$d/rows/R1.jsonl" $k truncated)" = true ] || fail "$k: not truncated"
    done
    [ "$(field "$d/rows/R1.jsonl" pears aborted)" = '"tokens"' ] && [ "$(field "$d/rows/R1.jsonl" apples aborted)" = '"lines"' ] || fail "aborted kinds"
    [ "$(field "$d/rows/R1.jsonl" figs finish_reason)" = '"stop"' ] || fail "figs was cut"
    [ "$(field "$d/rows/R1.jsonl" apples tokens_saved)" -gt 900 ] || fail "apples saved $(field "$d/rows/R1.jsonl" apples tokens_saved)"
    grep -q '"abort_loops": true' "$d/manifest.json" || fail "the manifest does not say abort_loops"
    $G repeat "$d" "$work/alfull" R1 >"$work/out" || fail "repeat: exit $?"
    grep -q '"mismatched_extracted": 0, "mismatched_text": 3, "mismatched_right": 0' "$work/out" || fail "grades changed: $(cat "$work/out")"
    mkdir -p "$d/repeat/rows" && cp "$work/alfull/rows/R1.jsonl" "$d/repeat/rows/"
    $G report "$d" --rungs R1 --no-html >/dev/null || fail "report: exit $?"
    grep -q '^| R1 | 3 | [0-9,]* | [0-9.]* | 0 of 4 |$' "$d/REPORT.md" || fail "REPORT.md: $(grep -A6 'Loops cut' "$d/REPORT.md")"
    # a thinking loop that ends before the cap, and a right answer after
    # it: cut, it is wrong; the repeat with abort off says so
    $GT run R1 "$work/leaves.gguf" "$work/q.jsonl" "$work/lv" --llama "$FAKE" --quiet --abort-loops >/dev/null || fail "leaves: exit $?"
    $GT run R1 "$work/leaves.gguf" "$work/q.jsonl" "$work/lv/repeat" --llama "$FAKE" --quiet >/dev/null || fail "leaves, full: exit $?"
    $G report "$work/lv" --rungs R1 --no-html >/dev/null || fail "leaves report: exit $?"
    grep -q '^| R1 | 1 | [0-9,]* | [0-9.]* | 1 of 4 |$' "$work/lv/REPORT.md" || fail "a loop that ended: $(grep -A6 'Loops cut' "$work/lv/REPORT.md")"
    # SIGKILL while a loop streams: the resume gives the same rows
    $G run R1 "$work/loops.gguf" "$work/q.jsonl" "$work/alk" --llama "$FAKE" --quiet --abort-loops >/dev/null 2>&1 &
    pid=$!
    wait_for 30 '[ -s "$work/alk/rows/R1.jsonl" ]' || fail "no row within 30 s"
    left=$(cut -d' ' -f1 "$work/alk/R1.server.pid" 2>/dev/null)
    kill -KILL $pid; wait $pid 2>/dev/null
    [ -z "$left" ] || gone_within 10 "$left" || fail "the server outlived the SIGKILL"
    $GT run R1 "$work/loops.gguf" "$work/q.jsonl" "$work/alk" --llama "$FAKE" --quiet --abort-loops >/dev/null || fail "resume: exit $?"
    for k in apples pears plums figs; do
        for f in content reasoning_content finish_reason completion_tokens tokens_saved aborted; do
            [ "$(field "$work/alk/rows/R1.jsonl" $k $f 2>&1)" = "$(field "$d/rows/R1.jsonl" $k $f 2>&1)" ] || fail "$k.$f differs after the kill"
        done
    done
    cat >"$work/alc.json" <<JSON
{"name": "alc", "questions": "$work/q.jsonl", "run_dir": "$work/alc",
 "rungs": [{"name": "R1", "model": "$work/loops.gguf"}],
 "server": {"binary": "$FAKE"}, "request": {"abort_loops": true}}
JSON
    $GT ladder "$work/alc.json" --quiet >/dev/null 2>&1 || fail "ladder with abort_loops: exit $?"
    [ "$(grep -c '"finish_reason":"loop"' "$work/alc/rows/R1.jsonl")" = 3 ] || fail "the config's abort_loops did not reach the run"
    refused_config alc 's|"abort_loops": true|"abort_loops": 1|' "'request.abort_loops' must be true or false" "a number"
    no_servers_within 5 || fail "a server was left behind"
}

# rungs_per_gpu: rungs share a GPU (the fake models a shared GPU in
# FAKE_GPU_DIR, docs/fake-llama-server.md), each on its own server, and
# answer exactly as alone; who ran beside whom is recorded and reported.
# A rung whose server does not fit beside another waits and runs later;
# one whose recorded need exceeds the free memory nvidia-smi gives does
# not start beside. SIGKILL of a shared night resumes to the same rows.
case_ladder_per_gpu() {
    local d=$work/pg f k pid
    model share '"token_ms": 15, "default": {"content": "Working it out.\nAnswer: 5"}'
    ladder_config pg 4 '"0"' share
    mkdir -p "$work/gpus"
    FAKE_GPU_DIR=$work/gpus $GT ladder "$work/pg.json" --run-dir "$work/pg1" --quiet >/dev/null 2>&1 || fail "alone: exit $?"
    FAKE_GPU_DIR=$work/gpus $GT ladder "$work/pg.json" --per-gpu 2 >/dev/null 2>"$work/err" || fail "shared: exit $? $(tail -3 "$work/err")"
    grep -q "started on GPU 0 beside R" "$work/err" || fail "no rung ran beside another: $(cat "$work/err")"
    [ "$(wc -l <"$d/beside.jsonl")" -ge 1 ] || fail "beside.jsonl: $(cat "$d/beside.jsonl" 2>&1)"
    grep -q '^| Shared GPUs | R[0-9] beside R[0-9]' "$d/REPORT.md" || fail "REPORT.md: $(grep Shared "$d/REPORT.md")"
    grep -q '"shared_gpus": \[{"rung"' "$d/report.json" || fail "report.json has no shared_gpus"
    for k in 1 2 3 4; do
        for f in content finish_reason completion_tokens extracted; do
            [ "$(field "$d/rows/R$k.jsonl" apples $f)" = "$(field "$work/pg1/rows/R$k.jsonl" apples $f)" ] || fail "R$k.$f differs from the rung run alone"
        done
        cmp -s <(cut -d, -f1-8 "$d/rows/R$k.jsonl") <(cut -d, -f1-8 "$work/pg1/rows/R$k.jsonl") || fail "R$k's rows differ from alone"
    done
    # a GPU that holds one model: the second does not fit, waits, runs
    FAKE_GPU_DIR=$work/gpus FAKE_GPU_MIB=3000 $GT ladder "$work/pg.json" --per-gpu 2 --run-dir "$work/pg2" >/dev/null 2>"$work/err" || fail "full GPU: exit $? $(tail -3 "$work/err")"
    grep -q "did not fit on GPU 0 beside 1 other rung(s); it waits for room" "$work/err" || fail "no wait for room: $(cat "$work/err")"
    grep -q "finished: R1, R2, R3, R4; failed: none" "$work/err" || fail "not every rung ran: $(tail -2 "$work/err")"
    # a recorded need larger than nvidia-smi's free memory: not beside
    mkdir -p "$work/bin" "$work/pg3/gpu0/rows"
    cat >"$work/bin/nvidia-smi" <<SH
#!/bin/sh
# stand-in: free memory of the fake shared GPU, 10000 MiB less what its
# live servers hold
held=0
for f in $work/gpus/gpu0.*; do [ -f "\$f" ] && kill -0 "\${f##*.}" 2>/dev/null && held=\$((held + \$(cat "\$f"))); done
case "\$*" in *memory.free*) echo \$((10000 - held));; *) echo "\$held";; esac
SH
    chmod +x "$work/bin/nvidia-smi"
    echo '{"rung": "R2", "gpu_mib_loaded": 9000, "gpu_mib_before": 0}' >"$work/pg3/gpu0/rows/R2.done"
    PATH=$work/bin:$PATH FAKE_GPU_DIR=$work/gpus $GT ladder "$work/pg.json" --per-gpu 2 --run-dir "$work/pg3" >/dev/null 2>"$work/err" || fail "need: exit $? $(tail -3 "$work/err")"
    ! grep -q "R2 started on GPU 0 beside" "$work/err" || fail "R2 (9,000 MiB) started beside another with 8,361 free"
    grep -q "started on GPU 0 beside" "$work/err" || fail "nothing shared the GPU: $(cat "$work/err")"
    # SIGKILL while two share the GPU, then resume: the same rows
    FAKE_GPU_DIR=$work/gpus $G ladder "$work/pg.json" --per-gpu 2 --run-dir "$work/pg4" --quiet >/dev/null 2>&1 &
    pid=$!
    wait_for 30 '[ -s "$work/pg4/beside.jsonl" ]' || fail "nothing shared within 30 s"
    kill -KILL $pid; wait $pid 2>/dev/null
    no_servers_within 10 || fail "a server outlived the SIGKILLed ladder"
    FAKE_GPU_DIR=$work/gpus $GT ladder "$work/pg.json" --per-gpu 2 --run-dir "$work/pg4" --quiet >/dev/null 2>&1 || fail "resume: exit $?"
    for k in 1 2 3 4; do
        cmp -s <(cut -d, -f1-8 "$work/pg4/rows/R$k.jsonl" | sort) <(cut -d, -f1-8 "$work/pg1/rows/R$k.jsonl" | sort) || fail "R$k after the kill differs"
    done
    refused_config pg 's|"gpus": \["0"\]}|"gpus": ["0"], "rungs_per_gpu": 9}|' "'rungs_per_gpu' must be an integer from 1 to 8" "9 per GPU"
}

# Tasks (docs/tasks.md): lm-eval's gsm8k asked with its prompt and stop
# strings (the fake server honours "stop" as the real one does), every
# reply graded by both rules into the row, the report's rules side by
# side; a resume under another task refused; multiple choice on the
# shipped set; a task file and a config's "task"; bad tasks refused; an
# lm-eval log imported and buried; SIGKILL mid-run and the resume equal.
case_tasks() {
    local d=$work/tk rc
    model lm '"default": {"content": "So 3.\n#### 5\n\nQuestion: and 7?"},
 "replies": [{"match": "pears", "content": "It is 8. The answer is 8."}]'
    model lm2 '"default": {"content": "I say 5"}'
    $GT run A "$work/lm.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --quiet --task lm-eval-gsm8k >/dev/null || fail "lm-eval-gsm8k: exit $?"
    grep -q "stopped at a stop string" "$d/logs/A.server.log" || fail "the stops did not reach the server"
    [ "$(field "$d/rows/A.jsonl" apples content)" = '"So 3.\n#### 5\n\n"' ] || fail "the stop did not cut: $(field "$d/rows/A.jsonl" apples content)"
    [ "$(field "$d/rows/A.jsonl" apples grades)" = '{"strict-match": {"extracted": "5", "right": true}, "flexible-extract": {"extracted": "5", "right": true}}' ] || fail "apples grades: $(field "$d/rows/A.jsonl" apples grades)"
    [ "$(field "$d/rows/A.jsonl" pears grades)" = '{"strict-match": {"extracted": null, "right": false}, "flexible-extract": {"extracted": "8.", "right": true}}' ] || fail "pears grades: $(field "$d/rows/A.jsonl" pears grades)"
    /usr/bin/python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); assert m["task"]["name"]=="lm-eval-gsm8k" and m["request"]["max_tokens"]==256 and m["prompt"].startswith("Question: {question}")' "$d/manifest.json" || fail "manifest: $(head -c 400 "$d/manifest.json")"
    $GT run B "$work/lm2.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --quiet --task lm-eval-gsm8k >/dev/null || fail "B: exit $?"
    $G report "$d" --rungs A,B --no-html >/dev/null || fail "report: exit $?"
    grep -q '^| B | 0/4 (0.0 %) | 1/4 (25.0 %) | 1 |$' "$d/REPORT.md" || fail "By rule: $(grep -A9 '^## By rule' "$d/REPORT.md")"
    $G bury "$d" A B --rule flexible-extract | grep -q '"rung": "B", "n": 4, "right": 1,' || fail "bury --rule"
    # another task on the same folder: refused before any server starts
    rc=0; $GT run A "$work/lm.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --quiet --task boxed >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "differs from the run folder's manifest" "$work/err" || fail "another task resumed: $rc $(cat "$work/err")"
    # multiple choice on the shipped set
    model mc '"default": {"content": "Answer: B"}, "replies": [{"match": "prime", "content": "29.\nAnswer: (c)"}]'
    $GT run M "$work/mc.gguf" "$ROOT/data/choice/tiny.jsonl" "$work/mc" --llama "$FAKE" --quiet --task choice >/dev/null || fail "choice: exit $?"
    [ "$(field "$work/mc/rows/M.jsonl" tiny-1 right)" = true ] && [ "$(field "$work/mc/rows/M.jsonl" tiny-4 extracted)" = '"B"' ] || fail "choice rows"
    # the page reads the multiple-choice file as the task does: every
    # question's text, with its options
    $G report "$work/mc" --rungs M >/dev/null || fail "choice report: exit $?"
    /usr/bin/python3 -c 'import re,base64,gzip,json,sys
h=open(sys.argv[1]).read()
d=json.loads(gzip.decompress(base64.b64decode(re.search(r"id=\"gy-z\">(.*?)</script>",h,re.S).group(1).strip())))
assert "(8 of 8)" in d["qnote"], d["qnote"]
assert any("B. six" in t for t in d["T"] if isinstance(t, str)), "no options"' "$work/mc/REPORT.html" || fail "the choice page's question texts"
    $GT canary M "$work/mc.gguf" "$work/mc/rows/M.jsonl" --run-dir "$work/mcc" --questions 8 --llama "$FAKE" --task choice --quiet >"$work/out" 2>&1 || fail "choice canary: exit $? $(cat "$work/out")"
    grep -q '"compared": 8, "missing": 0, "changed": 0' "$work/out" || fail "choice canary: $(cat "$work/out")"
    rc=0; $GT run M "$work/mc.gguf" "$ROOT/data/choice/tiny.jsonl" "$work/mc2" --llama "$FAKE" --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q -- "--task choice" "$work/err" || fail "a choice file without the task: $rc $(cat "$work/err")"
    # a task file, in a config
    cat >"$work/mytask.json" <<'JSON'
{"name": "mine", "prompt": "Q: {question}", "rules": [
 {"name": "last", "kind": "regex", "pattern": "(\\d+)", "group_select": -1},
 {"name": "line", "kind": "answer-line"}]}
JSON
    ladder_config tkl 1 '"0"' good
    sed -i 's|"gpus": \["0"\]}|"gpus": ["0"], "task": "'"$work"'/mytask.json"}|' "$work/tkl.json"
    $GT ladder "$work/tkl.json" --quiet >/dev/null 2>"$work/err" || fail "config task: exit $? $(cat "$work/err")"
    grep -q '"last":{"extracted":"5","right":true}' "$work/tkl/rows/R1.jsonl" || fail "task file rule: $(head -c 600 "$work/tkl/rows/R1.jsonl")"
    grep -q '^| Task | `mine`, graded by rule `last`' "$work/tkl/REPORT.md" || fail "REPORT.md task row: $(grep Task "$work/tkl/REPORT.md")"
    refused_config tkl 's|mytask.json|nosuch.json|' "'task': .*nosuch.json" "a missing task file"
    refused_config tkl 's|"task": "[^"]*"|"task": "lm-eval-gsm9k"|' "no built-in task 'lm-eval-gsm9k'" "an unknown task"
    echo '{"name": "bad", "rules": [{"name": "r", "kind": "regex", "pattern": "(?<=x)y"}]}' >"$work/badtask.json"
    rc=0; $GT run X "$work/good.gguf" "$work/q.jsonl" "$work/btk" --llama "$FAKE" --task "$work/badtask.json" 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "not supported" "$work/err" && [ ! -e "$work/btk" ] || fail "a lookbehind: $rc $(cat "$work/err")"
    # SIGKILL while a task's rung runs; the resume equals an uninterrupted run
    model slowlm '"token_ms": 20, "default": {"content": "So 3.\n#### 5"}'
    $G run K "$work/slowlm.gguf" "$work/q.jsonl" "$work/tkk" --llama "$FAKE" --quiet --task lm-eval-gsm8k >/dev/null 2>&1 &
    local pid=$!
    wait_for 20 '[ -s "$work/tkk/rows/K.jsonl" ]' || fail "no row within 20 s"
    kill -KILL $pid; wait $pid 2>/dev/null
    no_servers_within 10 || fail "a server outlived the SIGKILLed run"
    $GT run K "$work/slowlm.gguf" "$work/q.jsonl" "$work/tkk" --llama "$FAKE" --quiet --task lm-eval-gsm8k >/dev/null || fail "resume: exit $?"
    $GT run K "$work/slowlm.gguf" "$work/q.jsonl" "$work/tku" --llama "$FAKE" --quiet --task lm-eval-gsm8k >/dev/null || fail "uninterrupted: exit $?"
    cmp -s <(cut -d, -f1-6 "$work/tkk/rows/K.jsonl" | sort) <(cut -d, -f1-6 "$work/tku/rows/K.jsonl" | sort) || fail "the resumed rows differ"
    [ "$(rows "$work/tkk" K)" = 4 ] || fail "rows after the resume: $(rows "$work/tkk" K)"
}

# Another tool's log imported: lm-eval's samples and llama-eval's state,
# graded by the matching task, buried and reported like a run; the tool's
# own extraction compared with graveyard's rules.
case_import() {
    local f=$ROOT/tests/golden/data/imports rc
    $GT import lm-eval "$f/samples_gsm8k_2026-11-01T10-00-00.jsonl" "$work/im" LM >"$work/out" || fail "lm-eval: exit $?"
    grep -q '"compared": 4, "extraction_differs": 0, "verdict_differs": 0' "$work/out" || fail "lm-eval cross-check: $(cat "$work/out")"
    cp "$f/samples_gsm8k_2026-11-01T10-00-00.jsonl" "$work/samples_gsm8k_2026-11-03T00-00-00.jsonl"
    sed -i 's|"filtered_resps": \["18"\]|"filtered_resps": ["17"]|' "$work/samples_gsm8k_2026-11-03T00-00-00.jsonl"
    $GT import lm-eval "$work/samples_gsm8k_2026-11-03T00-00-00.jsonl" "$work/im" LM2 >"$work/out" 2>"$work/err" || fail "lm-eval 2: exit $?"
    grep -q '"extraction_differs": 2' "$work/out" && grep -q "extracted '17'" "$work/err" || fail "a differing extraction unseen: $(cat "$work/out" "$work/err")"
    $G bury "$work/im" LM LM2 >/dev/null || fail "bury of imports: exit $?"
    $G report "$work/im" --rungs LM,LM2 --no-html >/dev/null || fail "report of imports: exit $?"
    grep -q "By rule" "$work/im/REPORT.md" || fail "no rules side by side"
    $GT import llama-eval "$f/llama-eval-gsm8k-state.json" "$work/ll" LL >"$work/out" || fail "llama-eval: exit $?"
    grep -q '"rows": 3, "right": 1' "$work/out" || fail "llama-eval: $(cat "$work/out")"
    [ "$(field "$work/ll/rows/LL.jsonl" test-704 truncated)" = true ] || fail "the length case is not cut off"
    rc=0; $GT import lm-eval "$f/samples_gsm8k_2026-11-01T10-00-00.jsonl" "$work/im" LM >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "never adds to or replaces" "$work/err" || fail "an existing rows file: $rc $(cat "$work/err")"
    rc=0; $GT import lm-eval "$work/q.jsonl" "$work/im" Z >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "give --task" "$work/err" || fail "no task in the name: $rc $(cat "$work/err")"
    [ ! -e "$work/im/rows/Z.jsonl" ] || fail "a refused import wrote rows"
}

case_ladder_shards() {
    local d=$work/ls p1 p2 f
    ladder_config ls 5 '"0"' slow
    $GT ladder "$work/ls.json" --shard 0/2 --quiet >/dev/null 2>&1 & p1=$!
    $GT ladder "$work/ls.json" --shard 1/2 --quiet >/dev/null 2>&1 & p2=$!
    wait $p1 || fail "shard 0: exit $?"
    wait $p2 || fail "shard 1: exit $?"
    for f in "$d"/logs/R*.server.log; do
        [ "$(grep -c 'server is listening' "$f")" = 1 ] || fail "$f: run more than once"
    done
    [ "$(ls "$d"/rows/*.done | wc -l)" = 5 ] || fail "not every rung done"
    $GT ladder "$work/ls.json" --quiet >"$work/out" || fail "bury run: exit $?"
    grep -q '"tombstones"' "$work/out" || fail "no bury"
}

case_ladder_bad() {
    local rc
    ladder_config lb 2 '"0"' good
    refused_config lb 's/"gpus"/"gpu"/' "unknown key 'gpu'" "unknown key"
    refused_config lb 's|"run_dir": "[^"]*"|"run_dir": "${GRAVEYARD_NO_SUCH_VAR}/x"|' 'GRAVEYARD_NO_SUCH_VAR' "missing var"
    refused_config lb 's|"binary": "[^"]*"|&, "version": "version: 9 (other)"|' "server.version is 'version: 9 (other)'" "pinned build"
    [ -e "$work/lb" ] && fail "a run folder was made before refusing"
    rc=0; $GT ladder "$work/lb.json" --only R9 2>"$work/err" || rc=$?
    [ $rc = 2 ] || fail "--only R9: $rc"
    true
}

# --replicate: the whole ladder once per GPU, a folder each, each buried
case_ladder_replicate() {
    local d=$work/lr g
    $GT ladder configs/demo.json --run-dir "$d" --replicate --gpus 4,7 --quiet >"$work/out" || fail "exit $?"
    for g in 4 7; do
        [ "$(ls "$d/gpu$g"/rows/*.done | wc -l)" = 5 ] || fail "gpu$g: not every rung"
        [ "$(grep -h "CUDA_VISIBLE_DEVICES" "$d/gpu$g"/logs/*.server.log | sort -u)" = "fake: CUDA_VISIBLE_DEVICES=$g" ] || fail "gpu$g: servers on other GPUs"
        [ -f "$d/gpu$g/graveyard.json" ] && [ -f "$d/gpu$g/graveyard-side.json" ] || fail "gpu$g: not buried"
    done
    [ "$(grep -c '"tombstones": 11' "$work/out")" = 2 ] || fail "bury: $(cat "$work/out")"
    # the two GPUs compared: the fake answers alike on both, so no
    # question is graded differently, and the files are the same
    grep -q '^{"rung": "Q2_K", "right": \[3, 3\], "dead": \[9, 9\], "lost_on_all": 9, ' "$work/out" || fail "compare: $(grep Q2_K "$work/out")"
    grep -q 'The runs used the same files' "$d/COMPARE.md" && [ -f "$d/compare.svg" ] || fail "no COMPARE.md"
}

# SIGKILL the ladder at random moments, resume each time; the bury must
# equal an uninterrupted ladder's, and no server may be left behind.
case_ladder_kill() {
    local d=$work/lk ref=$work/lkref i pid
    ladder_config lkref 4 '"0", "1"' slow
    ladder_config lk 4 '"0", "1"' slow
    $GT ladder "$work/lkref.json" --quiet >"$work/ref.out" || fail "reference: exit $?"
    for i in $(seq 1 10); do
        $G ladder "$work/lk.json" --quiet >/dev/null 2>&1 &
        pid=$!
        sleep "0.$(( RANDOM % 10 ))$(( RANDOM % 10 ))"
        kill -KILL $pid 2>/dev/null; wait $pid 2>/dev/null
    done
    # the children see their parent die and stop their servers; a server
    # whose run died too dies by its own parent-death signal
    no_servers_within 15 || fail "a server outlived a killed ladder"
    $GT ladder "$work/lk.json" --quiet >"$work/lk.out" || fail "final: exit $?"
    # the same bury lines and report (only the folder names differ)
    cmp -s <(grep -v '^#' "$work/ref.out" | sed 's/lkref/lk/') <(grep -v '^#' "$work/lk.out") || fail "bury differs: $(diff "$work/ref.out" "$work/lk.out")"
}

# GPU memory from nvidia-smi (a stand-in here) into .done and the bury
case_gpu_memory() {
    local d=$work/gm
    mkdir -p "$work/bin"
    cp "$work/good.gguf" "$work/gpumem.gguf"
    cat >"$work/bin/nvidia-smi" <<SH
#!/bin/sh
# stand-in: 1639 MiB in use while this case's fake server runs, else 0
# as the real one prints --query-gpu=memory.used[,name] as csv,noheader,nounits
# and 70.25 W for --query-gpu=power.draw (the rung's readings)
if pgrep -f "fake-llama-server -m $work/gpumem.gguf" >/dev/null; then mib=1639; else mib=0; fi
case "\$*" in *power.draw*) echo 70.25;; *name*) echo "\$mib, Tesla T4";; *) echo "\$mib";; esac
SH
    chmod +x "$work/bin/nvidia-smi"
    PATH=$work/bin:$PATH $GT run Q4_0 "$work/gpumem.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --gpu 0 --quiet >"$work/out" || fail "exit $?"
    grep -q '"gpu_mib_before": 0, "gpu_mib_loaded": 1639, "gpu_name": "Tesla T4", "layers_offloaded": "36/36"' "$work/out" || fail "summary: $(cat "$work/out")"
    grep -q '"gpu_name": "Tesla T4"' "$d/rows/Q4_0.done" || fail "gpu_name: $(cat "$d/rows/Q4_0.done")"
    $G bury "$d" Q4_0 | grep -q '"gpu_mib_loaded": 1639, "gpu_mib_before": 0}' || fail "bury: $($G bury "$d" Q4_0)"
    # the rung answers in well under a second: a reading may not be back
    # before it ends (areas/power.sh times one); any reading is 70.25 W
    [ ! -e "$d/rows/Q4_0.power" ] || ! grep -qv '^\(b [0-9]*\|e [0-9]*\|[0-9]* 70.25\)$' "$d/rows/Q4_0.power" || fail "power: $(cat "$d/rows/Q4_0.power")"
}

# the server's argv and environment from templates, and another prompt
case_templates() {
    local d=$work/tpl rc log
    $GT run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --quiet \
        --server-argv '["--model", "{model}", "--port", "{port}", "-c", "{ctx}", "--seed", "{seed}", "-ngl", "{ngl}"]' \
        --ngl auto --gpu 2 --server-env '{"CUDA_VISIBLE_DEVICES": "{gpu}"}' \
        --prompt 'Please answer: {question} (end with Answer: N)' >/dev/null || fail "exit $?"
    log=$d/logs/Q4_0.server.log
    grep -q "^fake: args: --model $work/good.gguf --port [0-9]* -c 4096 --seed 0 --host 127.0.0.1\$" "$log" || fail "argv: $(grep 'fake: args' "$log")"
    grep -q "fake: CUDA_VISIBLE_DEVICES=2$" "$log" || fail "env: $(grep CUDA "$log")"
    grep -q '"prompt": "Please answer: {question} (end with Answer: N)"' "$d/manifest.json" || fail "prompt not recorded"
    [ "$(field "$d/rows/Q4_0.jsonl" apples right)" = true ] || fail "the prompt lost the question"
    rc=0; $GT run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$work/tpl2" --llama "$FAKE" --server-argv '["-m", "{model}", "--port", "{port}", "--host", "0.0.0.0"]' 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "binds 127.0.0.1 only" "$work/err" || fail "--host 0.0.0.0: $rc $(cat "$work/err")"
    rc=0; $GT run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$work/tpl2" --llama "$FAKE" --server-argv '["-m", "{model}"]' 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "{port}" "$work/err" || fail "no {port}: $rc $(cat "$work/err")"
    rc=0; $GT run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$work/tpl2" --llama "$FAKE" --prompt 'no place' 2>"$work/err" || rc=$?
    [ $rc = 2 ] || fail "--prompt without {question}: $rc"
}

case_ladder_templates() {
    local d=$work/lt
    cat >"$work/lt.json" <<JSON
{"name": "templates", "questions": "$work/q.jsonl", "run_dir": "$d",
 "prompt": "Solve: {question}",
 "rungs": [{"name": "A", "model": "$work/good.gguf", "ngl": "auto"}],
 "server": {"binary": "$FAKE", "argv": ["-m", "{model}", "--port", "{port}", "-ngl", "{ngl}"],
            "env": {"CUDA_VISIBLE_DEVICES": "{gpu}"}},
 "gpus": ["3"]}
JSON
    $GT ladder "$work/lt.json" --quiet >/dev/null || fail "exit $?"
    grep -q "^fake: args: -m $work/good.gguf --port [0-9]* --host 127.0.0.1\$" "$d/logs/A.server.log" || fail "argv: $(grep 'fake: args' "$d/logs/A.server.log")"
    grep -q "fake: CUDA_VISIBLE_DEVICES=3$" "$d/logs/A.server.log" || fail "env"
    grep -q '"prompt": "Solve: {question}"' "$d/manifest.json" || fail "prompt"
}

# resuming a folder with another llama.cpp build stops: rows would mix
case_other_build() {
    local d=$work/ob rc
    cat >"$work/other-build" <<SH
#!/bin/sh
# the fake under another build number
if [ "\$1" = "--version" ]; then echo "version: 2 (0ther000)" >&2; exit 0; fi
exec "$FAKE" "\$@"
SH
    chmod +x "$work/other-build"
    $GT run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --limit 1 --quiet >/dev/null || fail "exit $?"
    rc=0; $GT run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$d" --llama "$work/other-build" --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q 'manifest.server differs' "$work/err" || fail "another build: $rc $(cat "$work/err")"
    [ "$(grep -c 'server is listening' "$d/logs/Q4_0.server.log")" = 1 ] || fail "a server started with the other build"
}

# graveyard run --config: one rung of a config, with the config's settings
# (what the ladder starts); a flag that would set one of them is refused;
# a config edited after its ladder started is refused by the next rung.
case_run_config() {
    local d=$work/rc rc pid
    ladder_config rc 2 '"0"' slow
    $GT run --config "$work/rc.json" --rung R2 --quiet >/dev/null || fail "exit $?"
    [ "$(rows "$d" R2)" = 4 ] || fail "rows: $(rows "$d" R2)"
    [ -e "$d/rows/R1.jsonl" ] && fail "R1 was run too"
    rc=0; $GT run --config "$work/rc.json" --rung R2 --max-tokens 5 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "set it in the config" "$work/err" || fail "--max-tokens with --config: $rc $(cat "$work/err")"
    rc=0; $GT run --config "$work/rc.json" --rung R9 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "no such rung" "$work/err" || fail "--rung R9: $rc"
    # the ladder's second rung sees the config changed under it
    rm -rf "$d"
    $G ladder "$work/rc.json" >/dev/null 2>"$work/err" &
    pid=$!
    wait_for 20 'grep -qs "server is listening" "$d/logs/R1.server.log"' || fail "R1 never started"
    echo " " >>"$work/rc.json"
    wait $pid; rc=$?
    [ $rc = 2 ] || fail "ladder exit $rc"
    grep -q "changed since the ladder started" "$work/err" || fail "no word of the edit: $(cat "$work/err")"
}

case_usage() {
    local rc
    rc=0; $GT run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$work/u" --bogus 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "unknown flag '--bogus'" "$work/err" || fail "unknown flag: $rc"
    rc=0; $GT run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$work/u" --ngl lots 2>"$work/err" || rc=$?
    [ $rc = 2 ] || fail "--ngl lots: $rc"
    rc=0; $GT run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$work/u" --request '[1]' 2>"$work/err" || rc=$?
    [ $rc = 2 ] || fail "--request [1]: $rc"
    $GT run --help | grep -q "usage: graveyard run" || fail "--help"
}

cases=${*:-basic limit_and_folder faults streak no_start hang ik flaky_and_health sigterm_and_resume kill9_and_resume kill_many manifest bad_input log_cap port_taken ladder_files ladder_demo ladder_gpus ladder_repeat_reference canary constrained batching abort_loops ladder_per_gpu tasks import ladder_shards ladder_bad ladder_replicate ladder_kill gpu_memory templates ladder_templates other_build run_config usage}
for c in $cases; do
    ok=1
    if declare -F "case_$c" >/dev/null; then "case_$c"; else fail "no such case"; fi
    if servers_left; then fail "a fake server is still running"; pkill -f "$FAKE -m $work/"; fi
    if [ $ok = 1 ]; then passed=$((passed + 1)); echo "ok   integration $c"
    else failed=$((failed + 1)); echo "FAIL integration $c"; fi
done
echo "integration: $passed passed, $failed failed"
[ $failed = 0 ]
