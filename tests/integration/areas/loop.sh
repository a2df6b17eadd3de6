# shellcheck shell=bash
# Round 4, the loop (issue 34, "Nothing asleep on the loop"): an endpoint
# rung recording what its endpoint said waited for files.lock asleep on
# the loop thread (record.c, 50 naps of 20 ms), so a SIGTERM meanwhile
# was seen only when it gave up. Now every wait for files.lock is
# base/lockwait.h's: a timer on the loop for run and build, a blocking
# wait only for import, which has no loop. And the check that keeps
# sleeps out of run/, server/ and night/ (scripts/check-sleep.sh) is
# seen to refuse one planted there.
# Sourced by tests/integration/cases.sh (lib.sh's helpers).
#
# Tests: orchestrator/base/lockwait.c
# Tests: orchestrator/run/record.c
# Tests: orchestrator/run/runner.c

# the time now in milliseconds
loop_ms() { echo $(($(date +%s%N) / 1000000)); }

# hold RUNDIR/locks/files.lock from outside until killed: sets loop_holder
loop_hold() { # lockfile
    /usr/bin/python3 -c '
import fcntl, sys, time
f = open(sys.argv[1], "a")
fcntl.flock(f, fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(120)' "$1" >"$work/loop-held" 2>&1 &
    loop_holder=$!
    wait_for 10 "grep -q held '$work/loop-held'" || fail "the lock holder did not take $1"
}
loop_release() { kill "$loop_holder" 2>/dev/null; wait "$loop_holder" 2>/dev/null; }

# A served model comes up while another process holds files.lock: the
# rung, recording what the endpoint said (/props, /v1/models), waits for
# the lock; a SIGTERM then ends it within LOOP_TERM_MS (the issue asks
# under 100 ms; measured 10 to 50 ms plain, 24 to 69 ms under ASan and
# UBSan, on the 2-core machine at a load average of 10: 400 ms leaves
# margin), with 143, and nothing of the endpoint's word written. Before:
# the loop slept through the signal until its second was up (648 to
# 762 ms measured).
LOOP_TERM_MS=${LOOP_TERM_MS:-400}
case_loop_term_lock_wait() {
    local d=$work/ltw port url fake pid guard t0 t1 rc=0
    model ltwslow '"load_ms": 2500, "default": {"content": "Answer: 5"}'
    port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    url="http://127.0.0.1:$port"
    "$FAKE" -m "$work/ltwslow.gguf" --host 127.0.0.1 --port "$port" >"$work/ltw-fake.log" 2>&1 &
    fake=$!
    wait_for 10 "curl -s -o /dev/null '$url/health'" || fail "the endpoint did not start"
    "$G" run --url "$url" E1 "$work/q.jsonl" "$d" >/dev/null 2>"$work/ltw-err" &
    pid=$!
    # what the rung is made with is recorded (files.lock taken and let
    # go): then the lock is taken from outside, before the endpoint is up
    wait_for 20 "grep -q 'questions answered' '$work/ltw-err'" || fail "the rung was not prepared: $(cat "$work/ltw-err")"
    loop_hold "$d/locks/files.lock"
    wait_for 20 "grep -q 'ready (/health answered)' '$work/ltw-err'" || fail "the endpoint was never ready: $(cat "$work/ltw-err")"
    # /props and /v1/models are local and quick: the rung waits for the
    # lock well before 250 ms are up, and gives up at 1 s
    /usr/bin/python3 -c 'import time; time.sleep(0.25)'
    # a watchdog: the rung is killed if the SIGTERM does not end it
    /usr/bin/python3 -c 'import os, sys, time; time.sleep(10); os.kill(int(sys.argv[1]), 9)' $pid 2>/dev/null &
    guard=$!
    t0=$(loop_ms)
    kill -TERM $pid
    wait $pid || rc=$?
    t1=$(loop_ms)
    kill $guard 2>/dev/null; wait $guard 2>/dev/null
    loop_release
    kill "$fake" 2>/dev/null; wait "$fake" 2>/dev/null
    [ $rc = 143 ] || fail "exit $rc (want 143): $(cat "$work/ltw-err")"
    [ $((t1 - t0)) -le "$LOOP_TERM_MS" ] || fail "SIGTERM took $((t1 - t0)) ms to end the rung waiting for files.lock (limit $LOOP_TERM_MS ms)"
    grep -q 'stopping on signal 15' "$work/ltw-err" || fail "the signal was not said: $(cat "$work/ltw-err")"
    if grep -q '"endpoint_said"' "$d/manifest.json"; then fail "the endpoint's word was written after the stop"; fi
    echo "  (SIGTERM to exit: $((t1 - t0)) ms)"
}

area_cases="$area_cases loop_term_lock_wait"

# scripts/check-sleep.sh, the check that keeps naps out of run/, server/
# and night/, on a copy of them: clean it passes; a usleep planted in
# night/super.c is refused naming its file and line, and so is a
# nanosleep in server/ and a sleep in run/; the same words in a comment
# or a string pass. Before the fix the clean copy failed (record.c's
# nanosleep, spawn.c's two).
case_loop_check_sleep() {
    local o=$work/lcs rc=0 n
    mkdir -p "$o"
    cp -r "$ROOT/orchestrator/run" "$ROOT/orchestrator/server" "$ROOT/orchestrator/night" "$ROOT/orchestrator/sandbox" "$o/"
    timeout -k 5 60 sh "$ROOT/scripts/check-sleep.sh" "$o" >"$work/lcs-out" 2>&1 || rc=$?
    [ $rc = 0 ] || fail "the clean tree is refused (exit $rc): $(cat "$work/lcs-out")"
    # a comment and a string that name a sleep are not calls
    printf '/* usleep(10) is never called */\nstatic const char *lcs_s = "sleep(1)";\n// nanosleep(&t, NULL)\n' >>"$o/night/super.c"
    rc=0; timeout -k 5 60 sh "$ROOT/scripts/check-sleep.sh" "$o" >"$work/lcs-out" 2>&1 || rc=$?
    [ $rc = 0 ] || fail "a comment or a string is taken for a call (exit $rc): $(cat "$work/lcs-out")"
    n=$(($(wc -l <"$o/night/super.c") + 1))
    printf 'static void lcs_nap(void) { usleep(1000); }\n' >>"$o/night/super.c"
    printf 'static void lcs_nap2(void) {\n    struct timespec t = {0, 1};\n    nanosleep (&t, NULL);\n}\n' >>"$o/server/proc.c"
    printf 'static void lcs_nap3(void) { (void)sleep(1); }\n' >>"$o/run/ask.c"
    rc=0; timeout -k 5 60 sh "$ROOT/scripts/check-sleep.sh" "$o" >"$work/lcs-out" 2>&1 || rc=$?
    [ $rc = 1 ] || fail "a planted usleep passes (exit $rc): $(cat "$work/lcs-out")"
    grep -q "night/super.c:$n: static void lcs_nap" "$work/lcs-out" || fail "the usleep is not named at super.c:$n: $(cat "$work/lcs-out")"
    grep -q "server/proc.c:[0-9]*:     nanosleep (&t" "$work/lcs-out" || fail "the nanosleep is not named: $(cat "$work/lcs-out")"
    grep -q "run/ask.c:[0-9]*: static void lcs_nap3" "$work/lcs-out" || fail "the sleep is not named: $(cat "$work/lcs-out")"
    [ "$(grep -c 'a sleep on the loop' "$work/lcs-out")" = 3 ] || fail "want 3 calls named: $(cat "$work/lcs-out")"
}

area_cases="$area_cases loop_check_sleep"

# import, which has no loop, waits for files.lock with the same module
# (lockwait_block): held past its 2 s, the import fails with exit 1 (try
# again: not bad input) and names the lock file, writing no rows; let go,
# the same import goes through. Before: exit 2 and "RUNDIR: its lock
# stays held", the file unnamed.
case_loop_import_lock() {
    local d=$work/lil f=$ROOT/tests/golden/data/imports rc=0 t0 t1
    mkdir -p "$d/locks"
    loop_hold "$d/locks/files.lock"
    t0=$(loop_ms)
    timeout -k 5 60 "$G" import lm-eval "$f/samples_gsm8k_2026-11-01T10-00-00.jsonl" "$d" A >/dev/null 2>"$work/lil-err" || rc=$?
    t1=$(loop_ms)
    loop_release
    [ $rc = 1 ] || fail "a held lock: exit $rc (want 1): $(cat "$work/lil-err")"
    grep -q "graveyard import: '$d/locks/files.lock' was held by another process for 2 s" "$work/lil-err" || fail "the lock is not named: $(cat "$work/lil-err")"
    [ $((t1 - t0)) -ge 2000 ] || fail "gave up after $((t1 - t0)) ms (want 2 s)"
    [ -e "$d/rows/A.jsonl" ] && fail "rows were written without the lock"
    rc=0; timeout -k 5 60 "$G" import lm-eval "$f/samples_gsm8k_2026-11-01T10-00-00.jsonl" "$d" A >/dev/null 2>"$work/lil-err" || rc=$?
    [ $rc = 0 ] || fail "the lock let go: exit $rc $(cat "$work/lil-err")"
    [ -s "$d/rows/A.jsonl" ] || fail "no rows after the lock was let go"
}

area_cases="$area_cases loop_import_lock"

# Issue 25 (no blocking call on a loop thread): a row is graded as it is
# written, and a user's pattern past its step budget takes about 0.7 s a
# rule. Graded on the run's loop thread, four such rules (a task's most)
# held the loop near 3 s:
# a SIGTERM waited for all of them. Rows are graded on libuv's thread pool
# now, the rest of their step waiting, and a stop ends the grading before
# its next rule: the run is gone within what is left of one rule (0.5 s on
# an idle machine; the case allows 2 s, 4 under the sanitizers, where a
# rule takes longer, against about 2.6 s before), the unwritten question
# asked again on resume.
case_term_while_grading() {
    local d=$work/tg rc=0 a rules="" i lim=2 pid
    case $build in *sanitize*) lim=4 ;; esac
    a=$(printf 'a%.0s' $(seq 34))
    model backtrack6 '"default": {"content": "Answer: 5"},
 "replies": [{"match": "apples", "content": "'"$a"'b"}]'
    for i in 1 2 3 4; do
        rules="$rules{\"name\": \"t$i\", \"kind\": \"regex\", \"pattern\": \"(a+)+\$|Answer: (\\\\d+)\", \"group_select\": -1}, "
    done
    printf '{"name": "bt6", "prompt": "Q: {question}", "rules": [%s]}\n' \
        "${rules%, }" >"$work/bt6-task.json"
    rm -rf "$d"
    $G run R1 "$work/backtrack6.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" \
        --task "$work/bt6-task.json" --quiet >/dev/null 2>"$work/err" &
    pid=$!
    wait_for 10 "grep -q 'first chat request' '$d/logs/R1.server.log' 2>/dev/null" ||
        fail "the question was never asked: $(cat "$work/err")"
    sleep 0.2 # the reply is in: its row is being graded
    kill -TERM $pid
    gone_within $lim $pid || fail "SIGTERM while a row was graded: not gone within $lim s"
    wait $pid || rc=$?
    [ $rc = 143 ] || fail "stopped: exit $rc $(cat "$work/err")"
    [ ! -s "$d/rows/R1.jsonl" ] || [ "$(tail -c 1 "$d/rows/R1.jsonl" | od -An -c | tr -d ' ')" = '\n' ] ||
        fail "a partial row: $(tail -c 200 "$d/rows/R1.jsonl")"
    # the resume asks what was not written, and grades it as ever
    $GT run R1 "$work/backtrack6.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" \
        --task "$work/bt6-task.json" --quiet >/dev/null 2>"$work/err" || fail "resume: exit $? $(cat "$work/err")"
    [ "$(rows "$d" R1)" = 4 ] || fail "resume: $(rows "$d" R1) rows"
    grep -q '"t4":{"extracted":null,"right":false,"error":"step limit"}' "$d/rows/R1.jsonl" ||
        fail "row's grades: $(grep apples "$d/rows/R1.jsonl" | head -c 600)"
    grep -q '"step_limit": 1' "$d/rows/R1.done" || fail ".done: $(cat "$d/rows/R1.done")"
}
area_cases="$area_cases term_while_grading"
