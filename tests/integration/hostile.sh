#!/bin/bash
# Hostile nights: the ways a ladder broke when it was attacked (issue 9),
# each a case that failed before its fix. Kills of a child, of a whole
# process group and of the ladder; servers that trickle, flood, send what
# is not a chat stream, or cut the connection; tools that hang; a full
# disk; planted links; arguments and paths meant to escape.
# Usage: hostile.sh BUILD_DIR [CASE...]   Ends with "hostile: N passed, M failed".
#
# Tests: orchestrator/night/super.c
# Tests: orchestrator/night/sched.c
# Tests: orchestrator/cmd/cmd_ladder.c
# Tests: orchestrator/cmd/cmd_run.c
# Tests: orchestrator/run/runner.c
# Tests: orchestrator/run/serve.c
# Tests: orchestrator/server/proc.c
# Tests: orchestrator/server/spawn.c
# Tests: rundir/pidfile.c
set -u
. "$(dirname "$0")/lib.sh"

boot_id() { cat /proc/sys/kernel/random/boot_id; }
start_time() { awk '{print $22}' "/proc/$1/stat"; }

# 1. A child `graveyard run` killed with SIGKILL: its server dies with it,
# and the ladder sees the exit (not the end of a pipe the server used to
# hold), goes on with the next rung and ends. Servers hold none of
# graveyard's descriptors or variables.
case_child_kill() {
    local d=$work/ck pid run srv rc
    ladder_config ck 2 '"0"' slow
    $G ladder "$work/ck.json" >/dev/null 2>"$work/err" &
    pid=$!
    wait_for 20 'grep -q "server is listening" "$d/logs/R1.server.log" 2>/dev/null' || fail "R1 never started"
    srv=$(cut -d' ' -f1 "$d/R1.server.pid")
    run=$(pgrep -f "$G run --config $work/ck.json .* --rung R1 ")
    [ -n "$run" ] || fail "no graveyard run for R1"
    kill -KILL $run
    if ! gone_within 60 $pid; then
        fail "the ladder hung after its child was killed"
        kill -KILL $pid
    fi
    wait $pid; rc=$?
    [ $rc = 1 ] || fail "exit $rc"
    gone_within 10 "$srv" || fail "R1's server outlived its graveyard run"
    grep -q "R1 was stopped by signal 9" "$work/err" || fail "no word of R1: $(cat "$work/err")"
    grep -q "^graveyard ladder: R2 finished" "$work/err" || fail "R2 did not run: $(cat "$work/err")"
    grep -q "^fake: fds: 0 1 2$" "$d/logs/R2.server.log" || fail "a server holds more: $(grep -h 'fake: fds' "$d"/logs/*.log)"
    grep -q "^fake: env GRAVEYARD_" "$d"/logs/*.log && fail "a server got graveyard's variables"
    true
}

# 2. kill -9 of the ladder's whole process group: ladder and runs die at
# once, and every server dies with its run.
case_kill_group() {
    local d=$work/kg pid
    ladder_config kg 3 '"0", "1"' slow
    setsid $G ladder "$work/kg.json" --quiet >/dev/null 2>&1 &
    pid=$!
    wait_for 20 '[ "$(cat "$d"/logs/*.log 2>/dev/null | grep -c "server is listening")" -ge 2 ]' || fail "servers never started"
    kill -KILL -- -$pid
    wait $pid 2>/dev/null
    no_servers_within 10 || fail "a server outlived kill -9 of the process group"
    # and the ladder resumes to the end
    $GT ladder "$work/kg.json" --quiet >/dev/null 2>&1 || fail "resume: exit $?"
}

# 2. The same with the ladder alone SIGKILLed, several times, under load:
# its runs stop their servers, and no server is left.
case_kill_ladder_only() {
    local d=$work/kl pid i
    ladder_config kl 4 '"0", "1"' slow
    for i in 1 2 3; do
        $G ladder "$work/kl.json" --quiet >/dev/null 2>&1 &
        pid=$!
        wait_for 20 'grep -qs "server is listening" "$d"/logs/*.log' || fail "no server started ($i)"
        sleep "0.$(( RANDOM % 5 ))"
        kill -KILL $pid; wait $pid 2>/dev/null
        no_servers_within 15 || fail "a server outlived the ladder ($i)"
    done
}

# 3. A server left running is stopped when it is the very process the pid
# file names (pid, start time, boot), however the binary is named now;
# a pid the kernel gave to another process is never touched.
case_stale_identity() {
    local d=$work/stale srv other rc
    mkdir -p "$d"
    setsid "$FAKE" -m "$work/good.gguf" --host 127.0.0.1 --port 0 >/dev/null 2>&1 &
    srv=$!
    wait_for 5 '[ -e /proc/$srv/stat ]'
    echo "$srv $(start_time $srv) $(boot_id)" >"$d/Q4_0.server.pid"
    # named another way: relative to the build folder
    (cd "$build" && $GT run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$d" --llama ./fake-llama-server --limit 1) >/dev/null 2>"$work/err" || fail "exit $?: $(cat "$work/err")"
    grep -q "stopped server pid $srv left by an earlier run" "$work/err" || fail "not stopped: $(cat "$work/err")"
    gone_within 5 "$srv" || { fail "the stale server is alive"; kill -KILL $srv; }
    # a pid reused by another process (other start time), and one of
    # another boot: both left alone
    sleep 300 &
    other=$!
    echo "$other 12345 $(boot_id)" >"$d/Q4_0.server.pid"
    $GT run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --limit 2 >/dev/null 2>"$work/err" || fail "exit $?"
    kill -0 $other 2>/dev/null || fail "another process with the recorded pid was killed"
    echo "$other $(start_time $other) 00000000-0000-0000-0000-000000000000" >"$d/Q4_0.server.pid"
    $GT run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --limit 3 >/dev/null 2>"$work/err" || fail "exit $?"
    kill -0 $other 2>/dev/null || fail "a process of another boot's pid file was killed"
    kill $other; wait $other 2>/dev/null
    true
}

# A SIGTERM "seen at once": within 3 s, where a wait in a callback would
# take the 10 s grace or the 30 s lock; a loaded machine (CI's sanitized
# pass, two suites a core) takes past 1 s to start and end graveyard.
TERM_SEEN_MS=3000

# 3b. A left server that ignores SIGTERM: stopped with SIGKILL after the
# grace, and meanwhile a SIGTERM to graveyard is seen at once (the wait is
# on the loop, never a sleep in a callback).
case_stale_stubborn() {
    local d=$work/stubborn srv pid rc t0
    mkdir -p "$d"
    setsid bash -c 'trap "" TERM; exec sleep 300' >/dev/null 2>&1 &
    srv=$!
    wait_for 5 '[ "$(readlink /proc/$srv/exe)" = "$(readlink -f "$(command -v sleep)")" ]'
    echo "$srv $(start_time $srv) $(boot_id)" >"$d/Q4_0.server.pid"
    $G run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --limit 1 >/dev/null 2>"$work/err" &
    pid=$!
    sleep 1
    t0=$(date +%s%N)
    kill -TERM $pid
    rc=0; wait $pid || rc=$?
    [ $rc = 143 ] || fail "SIGTERM while a left server was stopped: exit $rc $(cat "$work/err")"
    [ $(( ($(date +%s%N) - t0) / 1000000 )) -lt $TERM_SEEN_MS ] || fail "SIGTERM took $(( ($(date +%s%N) - t0) / 1000000 )) ms to be seen"
    kill -0 $srv 2>/dev/null || fail "the stubborn process went on SIGTERM?"
    # the whole wait: SIGKILL after the grace, then the run goes on
    $GT run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --limit 1 >/dev/null 2>"$work/err" || fail "exit $?: $(cat "$work/err")"
    grep -q "stopped server pid $srv left by an earlier run" "$work/err" || fail "not stopped: $(cat "$work/err")"
    gone_within 2 "$srv" || { fail "the stubborn process is alive"; kill -KILL $srv; }
}

# 3c. files.lock held by another process: the run waits for it without
# blocking the loop (a SIGTERM meanwhile is seen at once), and goes on
# once it is free.
case_files_lock() {
    local d=$work/flock holder pid rc t0
    mkdir -p "$d/locks"
    # -o: flock itself holds the lock, not the sleep, so that killing
    # flock frees it (a sleep holding it kept the next part 30 s waiting)
    flock -o "$d/locks/files.lock" sleep 30 &
    holder=$!
    wait_for 5 '! flock -n "$d/locks/files.lock" true'
    $G run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --limit 1 >/dev/null 2>"$work/err" &
    pid=$!
    sleep 1
    kill -0 $pid 2>/dev/null || fail "the run did not wait for files.lock: $(cat "$work/err")"
    t0=$(date +%s%N)
    kill -TERM $pid
    rc=0; wait $pid || rc=$?
    [ $rc = 143 ] || fail "SIGTERM while files.lock was held: exit $rc $(cat "$work/err")"
    [ $(( ($(date +%s%N) - t0) / 1000000 )) -lt $TERM_SEEN_MS ] || fail "SIGTERM took $(( ($(date +%s%N) - t0) / 1000000 )) ms to be seen"
    pkill -P $holder sleep 2>/dev/null; kill $holder 2>/dev/null; wait $holder 2>/dev/null
    # held for a moment: the run waits, then goes on
    flock "$d/locks/files.lock" sleep 2 &
    holder=$!
    wait_for 5 '! flock -n "$d/locks/files.lock" true'
    $GT run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --limit 1 --quiet >/dev/null 2>"$work/err" || fail "after the lock: exit $? $(cat "$work/err")"
    wait $holder 2>/dev/null
    [ "$(rows "$d" Q4_0)" = 1 ] || fail "rows after the lock was free"
}

# 4. A server that sends bytes but no tokens (comments, empty events) has
# hung: it is restarted, and after 3 times the question gets a "hung" row.
case_trickle() {
    local d=$work/tr
    model trickle '"default": {"content": "Answer: 5"},
     "replies": [{"match": "pears", "content": "12 - 4 = 8 Answer: 8", "fault": "comments", "trickle_ms": 100},
                 {"match": "plums", "content": "6 x 10 = 60 Answer: 60", "fault": "empty", "trickle_ms": 100}]'
    timeout -k 5 60 $G run Q4_0 "$work/trickle.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --idle-timeout 2 --quiet >"$work/out" 2>"$work/err" || fail "exit $?: $(cat "$work/err")"
    [ "$(field "$d/rows/Q4_0.jsonl" pears error_kind)" = '"hung"' ] || fail "comments: $(field "$d/rows/Q4_0.jsonl" pears error)"
    [ "$(field "$d/rows/Q4_0.jsonl" plums error_kind)" = '"hung"' ] || fail "empty events: $(field "$d/rows/Q4_0.jsonl" plums error)"
    [ "$(field "$d/rows/Q4_0.jsonl" apples extracted)" = 5 ] || fail "apples"
    # 1 + 3 restarts for each hung question
    grep -q '"server_starts": 7' "$work/out" || fail "server starts: $(cat "$work/out")"
}

# 4. Tokens slower than the deadline allows: a "deadline" row, and the
# server, alive and well, is not restarted for it.
case_deadline() {
    local d=$work/dl
    model crawl '"default": {"content": "Answer: 5"},
     "replies": [{"match": "figs", "content": "Half of thirty figs is fifteen figs, so fifteen are ripe. Answer: 15", "fault": "bytes", "trickle_ms": 2}]'
    # a token every quarter second (under the idle limit), the whole
    # answer in about 5 s (over the deadline)
    timeout -k 5 60 $G run Q4_0 "$work/crawl.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --idle-timeout 2 --request-timeout 3 --quiet >"$work/out" 2>"$work/err" || fail "exit $?: $(cat "$work/err")"
    [ "$(field "$d/rows/Q4_0.jsonl" figs error_kind)" = '"deadline"' ] || fail "bytes: $(field "$d/rows/Q4_0.jsonl" figs error)"
    [ "$(field "$d/rows/Q4_0.jsonl" figs attempts)" = 1 ] || fail "the slow server was asked again"
    grep -q '"server_starts": 1' "$work/out" || fail "server starts: $(cat "$work/out")"
}

# 5. Tools that hang: nvidia-smi is killed when its time is up; a hung
# --version or nvidia-smi does not keep SIGTERM waiting, and is killed.
case_hung_tools() {
    # durations no other run of this suite sleeps ($$), so that a checkout
    # testing beside this one cannot be taken for a tool left here
    local d=$work/ht pid rc h1=601.$$ h2=602.$$
    mkdir -p "$work/hangbin"
    printf '#!/bin/sh\nexec sleep %s\n' "$h1" >"$work/hangbin/nvidia-smi"
    printf '#!/bin/sh\nif [ "$1" = --version ]; then exec sleep %s; fi\nexec %s "$@"\n' "$h2" "$FAKE" >"$work/hangbin/llama-hangs"
    chmod +x "$work/hangbin/nvidia-smi" "$work/hangbin/llama-hangs"
    # a hung nvidia-smi is killed after its time: the rung goes on
    PATH=$work/hangbin:$PATH GRAVEYARD_PROBE_MS=300 timeout -k 5 40 $G run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --gpu 0 >"$work/out" 2>"$work/err" || fail "hung nvidia-smi: exit $?"
    grep -q '"gpu_mib_before": null, "gpu_mib_loaded": null' "$work/out" || fail "summary: $(cat "$work/out")"
    grep -q "nvidia-smi did not answer" "$work/err" || fail "no word of nvidia-smi: $(cat "$work/err")"
    pgrep -f "sleep $h1" >/dev/null && fail "a hung nvidia-smi is left"
    # SIGTERM while nvidia-smi hangs (on the loop), while --version hangs
    # (before the loop), and while the ladder's --version check hangs
    term_while_hung "sleep $h1" "run, nvidia-smi" env PATH="$work/hangbin:$PATH" $G run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$d/2" --llama "$FAKE" --gpu 0
    term_while_hung "sleep $h2" "run, --version" $G run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$d/3" --llama "$work/hangbin/llama-hangs"
    [ -e "$d/3" ] && fail "a run folder was made before --version answered"
    ladder_config hv 1 '"0"' good
    sed -i "s|\"binary\": \"[^\"]*\"|\"binary\": \"$work/hangbin/llama-hangs\"|" "$work/hv.json"
    term_while_hung "sleep $h2" "ladder, --version" $G ladder "$work/hv.json"
    pkill -f "sleep (601|602)\\.$$"
    true
}

# 5b. The ladder never waits on nvidia-smi on its loop. With rungs
# sharing a GPU, one whose recorded need must be weighed against the free
# memory asks nvidia-smi as a child of the loop; while it hangs there the
# loop goes on (a rung that finishes is seen, the next starts), SIGTERM
# is acted on at once (the ladder gone within 1 s, nothing started after
# it), and the hung nvidia-smi goes with the ladder.
case_ladder_hung_probe() {
    local pid h3=603.$$
    mkdir -p "$work/probebin" "$work/hp/gpu0/rows" "$work/hq/gpu0/rows"
    # memory.used (the run's own probe) answers; memory.free (the
    # ladder's question before a rung starts beside another) hangs
    printf '#!/bin/sh\ncase "$*" in *memory.free*) exec sleep %s;; esac\necho 100\n' "$h3" >"$work/probebin/nvidia-smi"
    chmod +x "$work/probebin/nvidia-smi"
    model brisk '"token_ms": 25, "default": {"content": "Working it out.\nAnswer: 5"}'
    ladder_config hp 2 '"0"' slow
    ladder_config hq 2 '"0"' brisk
    echo '{"rung": "R2", "gpu_mib_loaded": 900, "gpu_mib_before": 0}' >"$work/hp/gpu0/rows/R2.done"
    cp "$work/hp/gpu0/rows/R2.done" "$work/hq/gpu0/rows/R2.done"
    # the loop goes on: R1 finishes and R2 starts while nvidia-smi hangs
    PATH=$work/probebin:$PATH $G ladder "$work/hq.json" --per-gpu 2 >/dev/null 2>"$work/err" &
    pid=$!
    wait_for 30 "pgrep -f 'sleep $h3' >/dev/null" || fail "the ladder never asked nvidia-smi for free memory: $(cat "$work/err")"
    wait_for 3 'grep -q "R2 started on GPU 0$" "$work/err"' || fail "the loop waited for a hung nvidia-smi: $(cat "$work/err")"
    wait $pid || fail "exit $?: $(tail -3 "$work/err")"
    wait_for 3 "! pgrep -f 'sleep $h3' >/dev/null" || fail "a hung nvidia-smi outlived the ladder"
    # SIGTERM while nvidia-smi hangs
    PATH=$work/probebin:$PATH $G ladder "$work/hp.json" --per-gpu 2 >/dev/null 2>"$work/err" &
    pid=$!
    wait_for 30 "pgrep -f 'sleep $h3' >/dev/null" || fail "the ladder never asked nvidia-smi for free memory: $(cat "$work/err")"
    kill -TERM $pid
    gone_within 1 $pid || { fail "SIGTERM waited for a hung nvidia-smi"; kill -KILL $pid; }
    wait $pid 2>/dev/null
    grep -q "R2 started" "$work/err" && fail "a rung started after SIGTERM: $(cat "$work/err")"
    wait_for 3 "! pgrep -f 'sleep $h3' >/dev/null" || fail "the hung nvidia-smi outlived the ladder"
    no_servers_within 5 || fail "a server outlived the ladder"
    pkill -f "sleep $h3"
    true
}

# 6. A finished rung is checked against the manifest like any other: a
# changed question file, prompt, token cap or model is refused.
case_done_settings() {
    local d=$work/ds rc before
    cp "$work/q.jsonl" "$work/dsq.jsonl"; cp "$work/good.gguf" "$work/ds.gguf"
    $GT run Q4_0 "$work/ds.gguf" "$work/dsq.jsonl" "$d" --llama "$FAKE" --limit 2 --quiet >/dev/null || fail "exit $?"
    before=$(stat -c %Y.%s "$d/manifest.json")
    sleep 1.1
    $GT run Q4_0 "$work/ds.gguf" "$work/dsq.jsonl" "$d" --llama "$FAKE" --limit 2 --quiet >/dev/null || fail "unchanged: exit $?"
    [ "$(stat -c %Y.%s "$d/manifest.json")" = "$before" ] || fail "an unchanged finished rung rewrote the manifest"
    rc=0; $GT run Q4_0 "$work/ds.gguf" "$work/dsq.jsonl" "$d" --llama "$FAKE" --limit 2 --max-tokens 99 --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "max_tokens" "$work/err" || fail "max_tokens: $rc $(cat "$work/err")"
    rc=0; $GT run Q4_0 "$work/ds.gguf" "$work/dsq.jsonl" "$d" --llama "$FAKE" --limit 2 --prompt 'Now: {question}' --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "prompt" "$work/err" || fail "prompt: $rc $(cat "$work/err")"
    echo '{"id": "kiwis", "question": "2 kiwis and 2 kiwis?", "answer": "4"}' >>"$work/dsq.jsonl"
    rc=0; $GT run Q4_0 "$work/ds.gguf" "$work/dsq.jsonl" "$d" --llama "$FAKE" --limit 2 --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "sha256" "$work/err" || fail "question file: $rc $(cat "$work/err")"
    cp "$work/q.jsonl" "$work/dsq.jsonl"
    echo " " >>"$work/ds.gguf"
    rc=0; $GT run Q4_0 "$work/ds.gguf" "$work/dsq.jsonl" "$d" --llama "$FAKE" --limit 2 --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -qE "rungs.Q4_0.(bytes|sha256)" "$work/err" || fail "model: $rc $(cat "$work/err")"
}

# 7, 8. Each fault of a live server has its own name, one attempt, no
# restart; a reply of control characters stops where its row still fits
# the reader's cap, and the rung can be buried.
case_named_faults() {
    local d=$work/nf out q
    for q in a b c d e f g h; do
        echo "{\"id\": \"$q\", \"question\": \"question $q-$q\", \"answer\": \"5\"}"
    done >"$work/q8.jsonl"
    model named '"default": {"content": "Answer: 5"},
     "replies": [{"match": "a-a", "content": "xxxxxxxxxxxxxxxx", "fault": "garbage"},
                 {"match": "b-b", "content": "xxxxxxxxxxxxxxxx", "fault": "bad_utf8"},
                 {"match": "c-c", "content": "xxxxxxxxxxxxxxxx", "fault": "nul"},
                 {"match": "d-d", "content": "xxxxxxxxxxxxxxxx", "fault": "close"},
                 {"match": "e-e", "content": "xxxxxxxxxxxxxxxx", "fault": "no_finish"},
                 {"match": "f-f", "content": "x", "fault": "flood", "flood": 1600000},
                 {"match": "g-g", "content": "x", "fault": "flood", "flood": -1, "flood_char": "a"}]'
    timeout -k 5 60 $G run Q4_0 "$work/named.gguf" "$work/q8.jsonl" "$d" --llama "$FAKE" --quiet >"$work/out" 2>"$work/err" || fail "exit $?: $(cat "$work/err")"
    out=$(/usr/bin/python3 -c 'import json,sys
print(" ".join("%s=%s/%s" % (r["id"], r.get("error_kind"), r["attempts"]) for r in map(json.loads, open(sys.argv[1]))))' "$d/rows/Q4_0.jsonl")
    [ "$out" = "a=bad_stream/1 b=bad_utf8/1 c=nul/1 d=cut/1 e=bad_stream/1 f=too_long/1 g=too_long/1 h=None/1" ] || fail "kinds: $out"
    grep -q '"server_starts": 1' "$work/out" || fail "a live server was restarted: $(cat "$work/out")"
    [ "$(wc -c <"$d/rows/Q4_0.jsonl")" -lt 100000 ] || fail "rows hold $(wc -c <"$d/rows/Q4_0.jsonl") bytes"
    $G bury "$d" Q4_0 >/dev/null || fail "bury refuses the rows"
    # and a reply of 1.3 MB of control characters, under the cap, is kept
    model ctl '"default": {"content": "x", "fault": "flood", "flood": 1300000}'
    timeout -k 5 60 $G run Q8_0 "$work/ctl.gguf" "$work/q8.jsonl" "$d" --llama "$FAKE" --limit 1 --quiet >/dev/null 2>"$work/err" || fail "exit $?: $(cat "$work/err")"
    [ "$(field "$d/rows/Q8_0.jsonl" a error_kind)" = null ] || fail "1.3 MB of controls refused: $(field "$d/rows/Q8_0.jsonl" a error)"
    $G bury "$d" Q8_0 >/dev/null || fail "bury refuses a 7.8 MB row"
}

# 9. A full disk: "disk full", exit 1 (a failure that resumes), and the
# resumed rung equals an uninterrupted one.
case_disk_full() {
    local mnt=$work/small d ref=$work/dfref rc i
    mkdir -p "$mnt"
    if ! mount -t tmpfs -o size=96k tmpfs "$mnt" 2>/dev/null; then
        echo "  skip: cannot mount a small tmpfs here (root is needed)"
        return
    fi
    d=$mnt/run
    for i in $(seq 1 40); do
        echo "{\"id\": \"q$i\", \"question\": \"question number $i\", \"answer\": \"5\"}"
    done >"$work/q40.jsonl"
    model wordy "\"default\": {\"content\": \"$(printf 'words %.0s' $(seq 1 300))Answer: 5\"}"
    $GT run Q4_0 "$work/wordy.gguf" "$work/q40.jsonl" "$ref" --llama "$FAKE" --quiet >/dev/null || fail "reference: exit $?"
    rc=0; $GT run Q4_0 "$work/wordy.gguf" "$work/q40.jsonl" "$d" --llama "$FAKE" --log-cap 1024 --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 1 ] || fail "a full disk: exit $rc"
    grep -q "disk full" "$work/err" || fail "message: $(cat "$work/err")"
    grep -q "run the same command to resume" "$work/err" || fail "no resume hint"
    mount -o remount,size=4m "$mnt"
    $GT run Q4_0 "$work/wordy.gguf" "$work/q40.jsonl" "$d" --llama "$FAKE" --log-cap 1024 --quiet >/dev/null 2>"$work/err" || fail "resume: exit $? $(cat "$work/err")"
    cmp -s <(cut -d, -f1-4 "$ref/rows/Q4_0.jsonl") <(cut -d, -f1-4 "$d/rows/Q4_0.jsonl") || fail "rows differ from the uninterrupted run"
    # full before the rung's lock is written
    rm -rf "$d"
    dd if=/dev/zero of="$mnt/fill" bs=4k 2>/dev/null
    rc=0; $GT run Q4_0 "$work/wordy.gguf" "$work/q40.jsonl" "$d" --llama "$FAKE" --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 1 ] && grep -q "disk full" "$work/err" || fail "full at the lock: $rc $(cat "$work/err")"
    umount "$mnt"
}

# 10. Links planted where graveyard's files go are refused, never
# followed: their targets stay as they were.
case_symlinks() {
    local d=$work/sl rc what
    printf 'precious\nlast line' >"$work/victim"
    for what in rows/Q4_0.jsonl locks/Q4_0.lock logs/Q4_0.server.log manifest.json; do
        rm -rf "$d"; mkdir -p "$d/rows" "$d/locks" "$d/logs"
        ln -s "$work/victim" "$d/$what"
        rc=0; $GT run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --quiet >/dev/null 2>"$work/err" || rc=$?
        [ $rc = 2 ] && grep -q "symbolic link" "$work/err" || fail "$what: exit $rc $(cat "$work/err")"
        [ "$(cat "$work/victim")" = "$(printf 'precious\nlast line')" ] || fail "$what: the link's target was changed"
    done
    rm -rf "$d"; mkdir -p "$d" "$work/elsewhere"; ln -s "$work/elsewhere" "$d/rows"
    rc=0; $GT run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "symbolic link" "$work/err" || fail "rows/ a link: exit $rc $(cat "$work/err")"
    [ -z "$(ls "$work/elsewhere")" ] || fail "wrote through a linked folder"
    # the run folder itself may be a link: the user's choice of disk
    rm -rf "$d"; mkdir -p "$work/realrun"; ln -s "$work/realrun" "$d"
    $GT run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --limit 1 --quiet >/dev/null 2>"$work/err" || fail "a linked run folder: exit $? $(cat "$work/err")"
}

# 11. The server binds 127.0.0.1, whatever the extra arguments say.
case_host() {
    local rc how
    for how in "--server-arg --host --server-arg 0.0.0.0" "--server-arg --host=0.0.0.0" "--server-arg --port --server-arg 80" \
               "--server-argv [\"-m\",\"{model}\",\"--port\",\"{port}\",\"--host\",\"127.0.0.1\",\"--host\",\"0.0.0.0\"]"; do
        rc=0; $GT run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$work/host" --llama "$FAKE" $how >/dev/null 2>"$work/err" || rc=$?
        [ $rc = 2 ] || fail "$how: exit $rc $(cat "$work/err")"
    done
    [ -e "$work/host" ] && fail "a run folder was made"
    ladder_config hc 1 '"0"' good
    refused_config hc 's|"binary": "[^"]*"|&, "args": ["--host", "0.0.0.0"]|' "graveyard's to set" "config server.args"
    refused_config hc 's|"model": "[^"]*"|&, "server_args": ["--port=9"]|' "rungs\[0\].server_args" "rung server_args"
    refused_config hc 's|"binary": "[^"]*"|&, "env": {"LLAMA_ARG_HOST": "0.0.0.0"}|' "LLAMA_ARG_HOST" "server.env"
    [ -e "$work/hc" ] && fail "the ladder made a run folder"
    true
}

# 12. Secrets given to the server are not written in clear; a change of
# one is still seen.
case_secrets() {
    local d=$work/sec rc
    $GT run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --limit 1 --quiet \
        --server-arg --hf-token --server-arg hf_SECRET1 --gpu 0 \
        --server-env '{"HF_TOKEN": "hf_SECRET2", "CUDA_VISIBLE_DEVICES": "{gpu}"}' >/dev/null || fail "exit $?"
    grep -q SECRET "$d/manifest.json" && fail "a secret in manifest.json: $(grep SECRET "$d/manifest.json")"
    grep -q '"<redacted sha256:' "$d/manifest.json" || fail "nothing redacted"
    grep -q '"CUDA_VISIBLE_DEVICES": "{gpu}"' "$d/manifest.json" || fail "a GPU setting was hidden"
    rc=0; $GT run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --limit 2 --quiet \
        --server-arg --hf-token --server-arg hf_OTHER --gpu 0 \
        --server-env '{"HF_TOKEN": "hf_SECRET2", "CUDA_VISIBLE_DEVICES": "{gpu}"}' >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "server_args differs" "$work/err" || fail "a changed key was not seen: $rc $(cat "$work/err")"
    grep -q OTHER "$work/err" && fail "the message shows the secret"
    true
}

# 13. What becomes a path is checked; what becomes markup is escaped.
case_paths() {
    local rc
    rc=0; $GT ladder configs/demo.json --run-dir "$work/pr" --replicate --gpus '0,../../evil' 2>"$work/err" || rc=$?
    [ $rc = 2 ] || fail "--gpus ../../evil: $rc $(cat "$work/err")"
    [ -e "$work/evil" ] || [ -e "$work/pr" ] && fail "a folder was made"
    ladder_config pg 1 '"a/../../b"' good
    rc=0; $GT ladder "$work/pg.json" 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "is not a GPU id" "$work/err" || fail "gpus a/../../b: $rc $(cat "$work/err")"
    cp "$work/good.gguf" "$work/new
line.gguf"
    rc=0; $GT run Q4_0 "$work/new
line.gguf" "$work/q.jsonl" "$work/pn" --llama "$FAKE" 2>"$work/err" || rc=$?
    [ $rc = 2 ] && [ ! -e "$work/pn" ] || fail "a newline in the model path: $rc $(cat "$work/err")"
    # ids and the ladder's name are escaped in REPORT.md
    printf '{"id": "<img src=x onerror=alert(1)>|*x*", "question": "q?", "answer": "5"}\n' >"$work/evilq.jsonl"
    model five '"default": {"content": "Answer: 5"}'
    cat >"$work/ev.json" <<JSON
{"name": "<b>ladder</b> | # x", "questions": "$work/evilq.jsonl", "run_dir": "$work/ev",
 "rungs": [{"name": "A", "model": "$work/five.gguf"}, {"name": "B", "model": "$work/good.gguf"}],
 "server": {"binary": "$FAKE"}}
JSON
    $GT ladder "$work/ev.json" --quiet >/dev/null 2>"$work/err" || fail "exit $?: $(cat "$work/err")"
    grep -q "<img\|<b>" "$work/ev/REPORT.md" && fail "markup in REPORT.md: $(grep '<img\|<b>' "$work/ev/REPORT.md")"
    grep -qF '**&lt;img src=x onerror=alert\(1\)&gt;\|\*x\***' "$work/ev/REPORT.md" || fail "the id was not escaped: $(grep -i img "$work/ev/REPORT.md")"
    true
}

# 14. Bad input writes nothing: no run folder, no lock, no empty rows.
case_nothing_written() {
    local rc
    rc=0; $GT run Q4_0 "$work/missing.gguf" "$work/q.jsonl" "$work/nw1" --llama "$FAKE" 2>/dev/null || rc=$?
    [ $rc = 2 ] && [ ! -e "$work/nw1" ] || fail "missing model: $rc, $(find "$work/nw1" 2>/dev/null)"
    rc=0; $GT run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$work/nw2" --llama "$work/no-such-server" 2>/dev/null || rc=$?
    [ $rc = 2 ] && [ ! -e "$work/nw2" ] || fail "missing binary: $rc, $(find "$work/nw2" 2>/dev/null)"
    rc=0; $GT run Q4_0 "$work/good.gguf" "$work/nope.jsonl" "$work/nw3" --llama "$FAKE" 2>/dev/null || rc=$?
    [ $rc = 2 ] && [ ! -e "$work/nw3" ] || fail "missing questions: $rc"
}

# 15. A rung named like a flag is refused; a child that refuses its input
# makes the ladder exit 2, with no advice to resume.
case_ladder_input() {
    local rc
    ladder_config li 2 '"0"' good
    sed 's/"name": "R1"/"name": "-h"/' "$work/li.json" >"$work/li-h.json"
    rc=0; $GT ladder "$work/li-h.json" 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "not a usable rung name" "$work/err" || fail "rung -h: $rc $(cat "$work/err")"
    printf '{"id": "a", "question": "q", "answer": "1"}\n{"id": "b", "question":\n' >"$work/badq.jsonl"
    sed "s|\"questions\": \"[^\"]*\"|\"questions\": \"$work/badq.jsonl\"|" "$work/li.json" >"$work/li-q.json"
    rc=0; $GT ladder "$work/li-q.json" 2>"$work/err" || rc=$?
    [ $rc = 2 ] || fail "bad questions: exit $rc"
    grep -q "badq.jsonl:2:" "$work/err" || fail "no line named: $(cat "$work/err")"
    grep -q "resume" "$work/err" && fail "resume advice for bad input: $(cat "$work/err")"
    sed 's|"binary": "[^"]*"|&, "argv": ["-m", "{model}"]|' "$work/li.json" >"$work/li-a.json"
    rc=0; $GT ladder "$work/li-a.json" 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "{port}" "$work/err" && [ ! -e "$work/li" ] || fail "argv without {port}: $rc $(cat "$work/err")"
    true
}

# 16. Numbers out of range are errors, never truncated.
case_ranges() {
    local rc a
    for a in "--ngl 99999999999" "--ngl 2147483648" "--max-tokens 99999999999" "--ctx 99999999999" "--idle-timeout 0" "--log-cap 99999999999999999999"; do
        rc=0; $GT run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$work/rg" --llama "$FAKE" $a 2>"$work/err" || rc=$?
        [ $rc = 2 ] || fail "$a: exit $rc"
    done
    ladder_config rg 1 '"0"' good
    sed 's|"gpus"|"ngl": 99999999999, "gpus"|' "$work/rg.json" >"$work/rg2.json"
    rc=0; $GT ladder "$work/rg2.json" 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "'ngl' must be an integer from 0 to 10000" "$work/err" || fail "config ngl: $rc $(cat "$work/err")"
    rc=0; SLURM_ARRAY_TASK_ID=x SLURM_ARRAY_TASK_COUNT=2 $GT ladder "$work/rg.json" 2>/dev/null || rc=$?
    [ $rc = 2 ] || fail "SLURM_ARRAY_TASK_ID=x: exit $rc"
    # a model path longer than ladder.tsv keeps whole: refused, not cut
    rc=0; $GT run Q4_0 "$work/$(printf 'x%.0s' $(seq 1 4100)).gguf" "$work/q.jsonl" "$work/rg" --llama "$FAKE" 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "too long" "$work/err" || fail "a 4 KB model path: $rc"
    [ -e "$work/rg" ] && fail "a run folder was made"
    true
}

# 18. The server log's cap is the rung's, however many servers it starts.
case_log_cap_rung() {
    local d=$work/lc size
    model crashy '"log_spam": 20000, "default": {"content": "Answer: 5"},
     "replies": [{"match": "pears", "content": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "fault": "exit"}]'
    $GT run Q4_0 "$work/crashy.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --log-cap 16384 --quiet >"$work/out" || fail "exit $?"
    grep -q '"server_starts": 4' "$work/out" || fail "server starts: $(cat "$work/out")"
    size=$(stat -c %s "$d/logs/Q4_0.server.log")
    [ "$size" -le $((16384 + 300)) ] || fail "log is $size bytes for a cap of 16384"
    # a resume adds its tail in place of the old one
    $GT run Q8_0 "$work/crashy.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --log-cap 16384 --limit 2 --quiet >/dev/null || fail "exit $?"
    $GT run Q8_0 "$work/crashy.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --log-cap 16384 --quiet >/dev/null || fail "exit $?"
    size=$(stat -c %s "$d/logs/Q8_0.server.log")
    [ "$size" -le $((16384 + 300)) ] || fail "resumed log is $size bytes for a cap of 16384"
    grep -q "offloaded 36/36 layers" "$d/logs/Q8_0.server.log" || fail "the head was lost"
}

# 19. A run whose ladder is gone starts nothing.
case_ladder_gone() {
    local rc dead
    sh -c 'exit 0' & dead=$!; wait $dead
    rc=0; GRAVEYARD_LADDER_PID=$dead $GT run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$work/lg" --llama "$FAKE" 2>"$work/err" || rc=$?
    [ $rc = 143 ] || fail "exit $rc"
    grep -q "the ladder that started it is gone" "$work/err" || fail "message: $(cat "$work/err")"
    [ -e "$work/lg" ] && fail "it made a run folder (started a server: $(ls "$work/lg/logs" 2>/dev/null))"
    true
}

# 21. A newcomer's stumbles.
case_newcomer() {
    local rc
    rc=0; $G ladder "$work/nope.json" 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "cannot read config '$work/nope.json': No such file or directory" "$work/err" || fail "missing config: $rc $(cat "$work/err")"
    # the resume hint is the command as given, --run-dir and all
    ladder_config nc 2 '"0"' allcrash
    rc=0; $GT ladder "$work/nc.json" --run-dir "$work/nc-elsewhere" --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 1 ] || fail "failing rung: exit $rc"
    grep -q "resume: graveyard ladder $work/nc.json --run-dir $work/nc-elsewhere --quiet$" "$work/err" || fail "hint: $(tail -2 "$work/err")"
    # --llama stands in for a server.binary whose variable is not set
    ladder_config nl 1 '"0"' good
    sed 's|"binary": "[^"]*"|"binary": "${GRAVEYARD_UNSET_LLAMA_CPP}/build/bin/llama-server"|' "$work/nl.json" >"$work/nl2.json"
    $GT ladder "$work/nl2.json" --llama "$FAKE" --quiet >/dev/null 2>"$work/err" || fail "--llama over \${VAR}: exit $? $(cat "$work/err")"
    # rungs out of order by bytes: a warning
    head -c 5000 /dev/zero >>"$work/big.gguf"
    cat >"$work/order.json" <<JSON
{"name": "order", "questions": "$work/q.jsonl", "run_dir": "$work/order", "limit": 1,
 "rungs": [{"name": "A", "model": "$work/good.gguf"}, {"name": "B", "model": "$work/big.gguf"}],
 "server": {"binary": "$FAKE"}}
JSON
    cp "$work/good.gguf" "$work/big.gguf"; head -c 5000 /dev/zero | tr '\0' ' ' >>"$work/big.gguf"
    $GT ladder "$work/order.json" >/dev/null 2>"$work/err" || fail "order: exit $?"
    grep -q "warning: rung B .* is bigger than A above it" "$work/err" || fail "no order warning: $(head -3 "$work/err")"
    $G bury "$work/order" A B 2>"$work/err" >/dev/null || fail "bury: exit $?"
    grep -q "warning: rung B .* is bigger than A" "$work/err" || fail "bury gave no order warning: $(cat "$work/err")"
    rc=0; $G sha256 "$work/missing.gguf" 2>/dev/null || rc=$?
    [ $rc = 2 ] || fail "sha256 of a missing file: exit $rc"
    $G autopsy --help | grep -q -- "--partial" || fail "autopsy --help says nothing of --partial"
    # make install puts graveyard on a PATH (the plain build only: make
    # must not rebuild the sanitizer's folder without its flags)
    if [ "$build" = "$(pwd)/build" ]; then
        make -s install PREFIX="$work/prefix" >/dev/null 2>&1 || fail "make install: exit $?"
        "$work/prefix/bin/graveyard" --version | grep -q "^graveyard " || fail "the installed graveyard does not run"
    fi
    true
}

# nohup: a ladder started with SIGHUP ignored gets the terminal's hangup
# (SIGHUP to its whole process group, as a shell sends its jobs) and goes
# on, rungs and servers with it, to the end. Started without nohup, the
# same hangup stops it (exit 129) and takes its servers with it.
case_nohup() {
    local pid rc
    ladder_config nh 2 '"0"' slow
    setsid /usr/bin/python3 -c 'import os, signal, sys
signal.signal(signal.SIGHUP, signal.SIG_IGN)
os.execv(sys.argv[1], sys.argv[1:])' $G ladder "$work/nh.json" --quiet >/dev/null 2>"$work/err" &
    pid=$!
    wait_for 20 'grep -qs "server is listening" "$work/nh"/logs/*.log' || fail "nohup: no server started"
    kill -HUP -- -$pid
    rc=0; wait $pid || rc=$?
    [ $rc = 0 ] || fail "nohup: exit $rc $(tail -3 "$work/err")"
    [ "$(rows "$work/nh" R1)" = 4 ] && [ "$(rows "$work/nh" R2)" = 4 ] || fail "nohup: rows $(rows "$work/nh" R1) and $(rows "$work/nh" R2)"
    [ -s "$work/nh/graveyard.json" ] || fail "nohup: not buried"
    ladder_config hu 2 '"0"' slow
    # the default SIGHUP given: the suite itself may run under nohup
    setsid $HUP_DEFAULT $G ladder "$work/hu.json" --quiet >/dev/null 2>"$work/err" &
    pid=$!
    wait_for 20 'grep -qs "server is listening" "$work/hu"/logs/*.log' || fail "hangup: no server started"
    kill -HUP -- -$pid
    rc=0; wait $pid || rc=$?
    [ $rc = 129 ] || fail "hangup without nohup: exit $rc"
    no_servers_within 15 || fail "hangup: a server outlived the ladder"
}

cases=${*:-child_kill kill_group kill_ladder_only stale_identity stale_stubborn files_lock trickle deadline hung_tools ladder_hung_probe done_settings named_faults disk_full symlinks host secrets paths nothing_written ladder_input ranges log_cap_rung ladder_gone newcomer nohup}
for c in $cases; do
    ok=1
    if declare -F "case_$c" >/dev/null; then "case_$c"; else fail "no such case"; fi
    if ! no_servers_within 5; then fail "a fake server is still running"; pkill -f "$FAKE -m $work/"; fi
    if [ $ok = 1 ]; then passed=$((passed + 1)); echo "ok   hostile $c"
    else failed=$((failed + 1)); echo "FAIL hostile $c"; fi
done
echo "hostile: $passed passed, $failed failed"
[ $failed = 0 ]
