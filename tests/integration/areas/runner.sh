# shellcheck shell=bash
# Round 4, the runner (issue 33): a logprobs run whose last answer's record
# cannot be written (the disk full on it, the server leaving its
# log-probabilities out, an id a record cannot hold) hung for ever, deaf
# to SIGTERM, its server left running: each trigger ends the run with the
# error named and the server stopped, a failure on a row that is not the
# last too, and a SIGTERM in each state ends the run within 2 s. Then the
# log-probabilities reconciled with the reply (a hole, several entries for
# one token, a top N with one id twice), one rule for a probs file's
# damaged tail in run and report, and the report's word on a finished
# rung's missing or cut records.
# Sourced by tests/integration/cases.sh (lib.sh's helpers).
#
# Tests: orchestrator/run/runner.c
# Tests: orchestrator/run/runner_int.c
# Tests: orchestrator/run/record.c
# Tests: orchestrator/run/ask.c
# Tests: rundir/probsfile.c
# Tests: rundir/probsread.c

# three questions; the last one is "figs" (its reply as the rule given)
runner_q3() {
    head -n 3 "$work/q.jsonl" >"$work/rq3.jsonl"
    sed -n 4p "$work/q.jsonl" >>"$work/rq3.jsonl"
    sed -i 3d "$work/rq3.jsonl" # apples, pears, figs
}

# run a rung, killed past secs: its exit status in $runner_rc (124 or 137
# when it had to be killed), stderr in $work/err
runner_run_within() { # secs rung model questions dir [args...]
    local secs=$1; shift
    runner_rc=0
    timeout -k 2 "$secs" "$G" run "$@" --llama "$FAKE" --quiet >/dev/null 2>"$work/err" || runner_rc=$?
}

# after a run ended: no fake server of dir's model is left
runner_no_server() { # what
    if ! no_servers_within 3; then
        fail "$1: a server was left running"
        pkill -f "$FAKE -m $work/"
    fi
}

# The server leaves its log-probabilities out on the last answer only:
# the rung is refused (exit 2, the server named), within seconds, its
# server stopped. Before: the run waited for ever ("timed out").
case_last_no_logprobs() {
    runner_q3
    model rnolp '"default": {"content": "Answer: 5"},
     "replies": [{"match": "figs", "content": "Half is 15.\nAnswer: 15", "no_logprobs": true}]'
    runner_run_within 15 L "$work/rnolp.gguf" "$work/rq3.jsonl" "$work/rnolp" --logprobs 4
    [ $runner_rc = 2 ] || fail "exit $runner_rc (124: timed out): $(cat "$work/err")"
    grep -q "without log-probabilities" "$work/err" || fail "message: $(cat "$work/err")"
    runner_no_server "no logprobs on the last answer"
    [ "$(rows "$work/rnolp" L)" = 2 ] || fail "rows: $(rows "$work/rnolp" L), not 2"
}

# The same on the first of three answers (not the last): refused at
# once, the server stopped, no row for it.
case_first_no_logprobs() {
    runner_q3
    model rnolp1 '"default": {"content": "Answer: 5"},
     "replies": [{"match": "apples", "content": "Five.\nAnswer: 5", "no_logprobs": true}]'
    runner_run_within 15 L "$work/rnolp1.gguf" "$work/rq3.jsonl" "$work/rnolp1" --logprobs 4
    [ $runner_rc = 2 ] || fail "exit $runner_rc (124: timed out): $(cat "$work/err")"
    grep -q "without log-probabilities" "$work/err" || fail "message: $(cat "$work/err")"
    runner_no_server "no logprobs on the first answer"
    [ ! -s "$work/rnolp1/rows/L.jsonl" ] || fail "a row was written: $(cat "$work/rnolp1/rows/L.jsonl")"
}

# The disk fills on the last answer's record (a tmpfs left a few KB, the
# last record ~100 KB): exit 1, "disk full" naming the probs file, the
# server stopped; the resume with room finishes the rung.
case_last_record_full() {
    local mnt=$work/rfull d fill
    mkdir -p "$mnt"
    if ! mount -t tmpfs -o size=2m tmpfs "$mnt" 2>/dev/null; then
        echo "  skip: cannot mount a small tmpfs here (root is needed)"
        return
    fi
    d=$mnt/run
    runner_q3
    model rbig "\"default\": {\"content\": \"Answer: 5\"},
     \"replies\": [{\"match\": \"figs\", \"content\": \"$(printf 'half %.0s' $(seq 1 300))Answer: 15\"}]"
    # the first two answers, then the disk filled to within 16 KB
    runner_run_within 15 L "$work/rbig.gguf" "$work/rq3.jsonl" "$d" --logprobs 20 --limit 2
    [ $runner_rc = 0 ] || { fail "first two: exit $runner_rc $(cat "$work/err")"; umount "$mnt"; return; }
    dd if=/dev/zero of="$mnt/fill" bs=4k 2>/dev/null
    fill=$(stat -c %s "$mnt/fill")
    truncate -s $((fill - 16384)) "$mnt/fill"
    runner_run_within 15 L "$work/rbig.gguf" "$work/rq3.jsonl" "$d" --logprobs 20
    [ $runner_rc = 1 ] || fail "exit $runner_rc (124: timed out): $(cat "$work/err")"
    grep -q "L.probs.*disk full\|disk full.*L.probs" "$work/err" || fail "message: $(cat "$work/err")"
    runner_no_server "the last record on a full disk"
    rm -f "$mnt/fill"
    runner_run_within 15 L "$work/rbig.gguf" "$work/rq3.jsonl" "$d" --logprobs 20
    [ $runner_rc = 0 ] || fail "resume: exit $runner_rc $(cat "$work/err")"
    [ "$(rows "$d" L)" = 3 ] || fail "resume: $(rows "$d" L) rows, not 3"
    umount "$mnt"
}

# The same with logprobs off: the last row itself (40 KB) on the full
# disk, written on the thread pool: exit 1, "disk full" naming the rows
# file, the server stopped. Before: the run waited for ever.
case_last_row_full() {
    local mnt=$work/rrfull d fill
    mkdir -p "$mnt"
    if ! mount -t tmpfs -o size=2m tmpfs "$mnt" 2>/dev/null; then
        echo "  skip: cannot mount a small tmpfs here (root is needed)"
        return
    fi
    d=$mnt/run
    runner_q3
    model rlong "\"default\": {\"content\": \"Answer: 5\"},
     \"replies\": [{\"match\": \"figs\", \"content\": \"$(printf 'half %.0s' $(seq 1 8000))Answer: 15\"}]"
    runner_run_within 15 L "$work/rlong.gguf" "$work/rq3.jsonl" "$d" --max-tokens 20000 --limit 2
    [ $runner_rc = 0 ] || { fail "first two: exit $runner_rc $(cat "$work/err")"; umount "$mnt"; return; }
    dd if=/dev/zero of="$mnt/fill" bs=4k 2>/dev/null
    fill=$(stat -c %s "$mnt/fill")
    truncate -s $((fill - 16384)) "$mnt/fill"
    runner_run_within 15 L "$work/rlong.gguf" "$work/rq3.jsonl" "$d" --max-tokens 20000
    [ $runner_rc = 1 ] || fail "exit $runner_rc (124: timed out): $(cat "$work/err")"
    grep -q "L.jsonl.*disk full\|disk full.*L.jsonl" "$work/err" || fail "message: $(cat "$work/err")"
    runner_no_server "the last row on a full disk"
    [ "$(rows "$d" L)" = 2 ] || fail "rows: $(rows "$d" L), not 2"
    umount "$mnt"
}

# A question id of 256 bytes (the loader's cap; a record holds 255) with
# logprobs on: refused before any server starts, naming the file and its
# line; with logprobs off the same file runs.
case_id_256() {
    local id
    id=$(printf 'x%.0s' $(seq 1 256))
    runner_q3
    printf '{"id": "%s", "question": "Two and two?", "answer": "4"}\n' "$id" >>"$work/rq3.jsonl"
    runner_run_within 15 L "$work/good.gguf" "$work/rq3.jsonl" "$work/rid" --logprobs 4
    [ $runner_rc = 2 ] || fail "exit $runner_rc (124: timed out): $(cat "$work/err")"
    grep -q "rq3.jsonl:4: .*256 bytes" "$work/err" || fail "message: $(cat "$work/err")"
    [ ! -e "$work/rid/logs/L.log" ] || fail "a server was started: $(cat "$work/rid/logs/L.log")"
    runner_no_server "a 256-byte id"
    runner_run_within 15 L "$work/good.gguf" "$work/rq3.jsonl" "$work/rid0"
    [ $runner_rc = 0 ] || fail "logprobs off: exit $runner_rc $(cat "$work/err")"
}

# SIGTERM to a run while its server loads, while it answers (logprobs on
# and off) and before any server, while nvidia-smi hangs: each ends
# within 2 s with 143 and no server (or nvidia-smi) left. And a
# run whose last row has failed ends by itself within 5 s; if it has not
# (before: it waited for ever), a SIGTERM must still end it within 2 s
# (before: "stopping on signal 15" and nothing more).
runner_term_at() { # what model [args...] ; waits for the server, then TERM
    local what=$1 m=$2 pid; shift 2
    "$G" run L "$work/$m.gguf" "$work/rq3.jsonl" "$work/rt-$m$#" --llama "$FAKE" --quiet "$@" \
        >/dev/null 2>"$work/err" &
    pid=$!
    wait_for 10 "pgrep -f '$FAKE -m $work/$m.gguf' >/dev/null" || fail "$what: no server started"
    sleep 0.5
    kill -TERM $pid
    if ! gone_within 2 $pid; then
        fail "$what: SIGTERM did not end the run within 2 s: $(cat "$work/err")"
        kill -KILL $pid
    fi
    wait $pid
    runner_rc=$?
    [ $runner_rc = 143 ] || fail "$what: exit $runner_rc: $(cat "$work/err")"
    runner_no_server "$what"
}
case_term_states() {
    local pid h
    runner_q3
    model rtload '"load_ms": 5000, "default": {"content": "Answer: 5"}'
    runner_term_at "loading" rtload --logprobs 4
    model rtask '"token_ms": 500, "default": {"content": "Slowly it comes.\nAnswer: 5"}'
    runner_term_at "answering" rtask --logprobs 4
    runner_term_at "answering, logprobs off" rtask
    # before any server: nvidia-smi's question of the memory in use hangs
    h=611.$$
    PATH=$ROOT/tests/fake-tools:$PATH FAKE_SMI_HANG=memory.used FAKE_SMI_HANG_S=$h \
        "$G" run L "$work/rtask.gguf" "$work/rq3.jsonl" "$work/rt-smi" --llama "$FAKE" \
        --logprobs 4 --quiet >/dev/null 2>"$work/err" &
    pid=$!
    wait_for 10 "pgrep -f 'sleep $h' >/dev/null" || fail "probing: nvidia-smi was never asked"
    kill -TERM $pid
    gone_within 2 $pid || { fail "probing: SIGTERM did not end the run within 2 s"; kill -KILL $pid; }
    wait $pid
    runner_rc=$?
    [ $runner_rc = 143 ] || fail "probing: exit $runner_rc: $(cat "$work/err")"
    wait_for 3 "! pgrep -f 'sleep $h' >/dev/null" || { fail "probing: nvidia-smi outlived the run"; pkill -f "sleep $h"; }
    runner_no_server "probing"
    # the last row failed: it ends by itself, and quickly
    model rtlast '"default": {"content": "Answer: 5"},
     "replies": [{"match": "figs", "content": "Answer: 15", "no_logprobs": true}]'
    "$G" run L "$work/rtlast.gguf" "$work/rq3.jsonl" "$work/rt-last" --llama "$FAKE" \
        --logprobs 4 >/dev/null 2>"$work/err" &
    pid=$!
    if ! gone_within 5 $pid; then
        fail "the last row failed: the run did not end by itself within 5 s"
        kill -TERM $pid
        gone_within 2 $pid || { fail "the last row failed: SIGTERM did not end it within 2 s: $(tail -2 "$work/err")"; kill -KILL $pid; }
    fi
    wait $pid
    runner_rc=$?
    [ $runner_rc = 2 ] || fail "the last row failed: exit $runner_rc"
    runner_no_server "the last row failed"
}

# Log-probabilities that do not rebuild the reply (the fake's
# logprobs_fault: a hole, three entries for a one-token chunk, a top N of
# one id N times) refuse the rung at its first answer, exit 2, the fault
# named and the server stopped, no record and no row kept for it. Before:
# each was taken, and the report read 4 or 21 tokens for a 7-token reply.
# The same model without the fault runs (the rule passes what the fake
# streams, upstream's shape).
case_probs_mismatch() {
    local f want
    runner_q3
    for f in hole:"a hole" dup_entries:"3 entries for a chunk of 4 bytes" dup_top:"lists token [0-9]* twice"; do
        want=${f#*:}; f=${f%%:*}
        model "rm$f" "\"default\": {\"content\": \"Count them well.\\nAnswer: 5\", \"logprobs_fault\": \"$f\"}"
        runner_run_within 15 L "$work/rm$f.gguf" "$work/rq3.jsonl" "$work/rm$f" --logprobs 4
        [ $runner_rc = 2 ] || fail "$f: exit $runner_rc: $(cat "$work/err")"
        grep -q "do not match its reply to question 'apples': .*$want" "$work/err" || fail "$f: message: $(cat "$work/err")"
        [ ! -s "$work/rm$f/rows/L.probs" ] || fail "$f: a record was kept"
        [ ! -s "$work/rm$f/rows/L.jsonl" ] || fail "$f: a row was kept"
        runner_no_server "$f"
    done
    model rmnone '"default": {"content": "Count them well.\nAnswer: 5", "reasoning": "one, two"}'
    runner_run_within 15 L "$work/rmnone.gguf" "$work/rq3.jsonl" "$work/rmnone" --logprobs 4
    [ $runner_rc = 0 ] || fail "no fault: exit $runner_rc: $(cat "$work/err")"
}

# A record head at the probs file's end whose length is past the caps:
# report and run give one verdict (rundir's probsread_place), damaged,
# exit 2 both, the file named. Before: report said "'graveyard run' cuts
# it back when it resumes" and run refused the file as damaged.
case_probs_tail_rule() {
    local d=$work/rtail rc r
    runner_q3
    model rtail '"default": {"content": "Answer: 5"}'
    for r in R L; do
        runner_run_within 15 $r "$work/rtail.gguf" "$work/rq3.jsonl" "$d" --logprobs 4
        [ $runner_rc = 0 ] || { fail "$r: exit $runner_rc $(cat "$work/err")"; return; }
    done
    printf 'GYP1\377\377\377\377' >>"$d/rows/L.probs"
    rc=0; timeout -k 2 30 "$G" report "$d" --rungs R,L >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] || fail "report: exit $rc"
    grep -q "L.probs': the probs record at byte [0-9]* has a length past the caps (damaged" "$work/err" ||
        fail "report: $(cat "$work/err")"
    ! grep -q "cuts it back" "$work/err" || fail "report promises a cut that run will not make: $(cat "$work/err")"
    runner_run_within 15 L "$work/rtail.gguf" "$work/rq3.jsonl" "$d" --logprobs 4
    [ $runner_rc = 2 ] || fail "run: exit $runner_rc"
    grep -q "L.probs': the probs record at byte [0-9]* has a length past the caps (damaged" "$work/err" ||
        fail "run: $(cat "$work/err")"
}

# A finished logprobs rung whose answers lack records (its probs file
# emptied, removed, or its last record damaged and cut back by a run of
# the finished rung) is said in the report: a warning on stderr and in
# REPORT.md naming the rung and how many answers. Before: "0 of 0" or a
# dash, and not a word.
case_probs_report_missing() {
    local d=$work/rmiss r want how
    runner_q3
    model rmiss '"default": {"content": "Answer: 5"}'
    for r in R L; do
        runner_run_within 15 $r "$work/rmiss.gguf" "$work/rq3.jsonl" "$d" --logprobs 4
        [ $runner_rc = 0 ] || { fail "$r: exit $runner_rc $(cat "$work/err")"; return; }
    done
    cp "$d/rows/L.probs" "$work/rmiss.probs"
    for how in empty missing cut; do
        cp "$work/rmiss.probs" "$d/rows/L.probs"
        case $how in
        empty) : >"$d/rows/L.probs"; want="3 answers have no probs record (an empty probs file)";;
        missing) rm "$d/rows/L.probs"; want="3 answers have no probs record (no probs file)";;
        cut) # the last record's check broken: a run of the finished rung cuts it
            /usr/bin/python3 -c 'import sys
b = bytearray(open(sys.argv[1], "rb").read()); b[-3] ^= 0x5a
open(sys.argv[1], "wb").write(b)' "$d/rows/L.probs"
            runner_run_within 15 L "$work/rmiss.gguf" "$work/rq3.jsonl" "$d" --logprobs 4
            [ $runner_rc = 0 ] || fail "cut: the finished rung: exit $runner_rc $(cat "$work/err")"
            want="1 answer has no probs record (a record cut back or lost)";;
        esac
        timeout -k 2 30 "$G" report "$d" --rungs R,L >/dev/null 2>"$work/err" || fail "$how: report: exit $? $(cat "$work/err")"
        grep -q "warning: rung L: $want" "$work/err" || fail "$how: stderr: $(cat "$work/err")"
        grep -q "Warning:.* L: $want" "$d/REPORT.md" || fail "$how: REPORT.md says nothing"
    done
}

area_cases="$area_cases last_row_full probs_report_missing probs_tail_rule probs_mismatch last_no_logprobs first_no_logprobs last_record_full id_256 term_states"
