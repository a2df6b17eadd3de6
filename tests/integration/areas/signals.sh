# Round 3, super (issue 25, item 2): one supervisor (orchestrator/night/super.c)
# owns the stop signals of every loop, `graveyard run`'s too. Sourced by
# tests/integration/cases.sh.
#
# Tests: orchestrator/night/super.c

# The stop signals have one handler: signal_cb is defined in super.c only,
# and no other file starts a signal handle but proc.c's SIGCHLD (a child's
# exit, not a stop). Failed while runner.c kept its own.
case_super_one_signal() {
    local f left=""
    for f in "$ROOT"/orchestrator/*/*.c; do
        case "$f" in */super.c) continue;; esac
        grep -q 'signal_cb' "$f" && left="$left $(basename "$f"):signal_cb"
        grep 'uv_signal_start' "$f" | grep -vq 'SIGCHLD' &&
            left="$left $(basename "$f"):uv_signal_start"
    done
    [ -z "$left" ] || fail "stop signals handled outside super.c:$left"
    [ "$(grep -c '^static void signal_cb' "$ROOT/orchestrator/night/super.c")" = 1 ] ||
        fail "super.c has no signal_cb"
}

# graveyard run on the supervisor: under nohup a hangup is not its to act
# on (it finishes, exit 0); two SIGTERMs (the second while the first
# stops the server: each goes to the rung, the first one's status stands)
# end it once, with 143, and no server is left.
case_super_run_signals() {
    local d=$work/sup pid rc
    setsid /usr/bin/python3 -c 'import os, signal, sys
signal.signal(signal.SIGHUP, signal.SIG_IGN)
os.execv(sys.argv[1], sys.argv[1:])' $G run R1 "$work/slow.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --quiet >/dev/null 2>"$work/err" &
    pid=$!
    wait_for 20 'grep -qs "server is listening" "$d"/logs/*.log' || fail "nohup: no server started"
    kill -HUP -- -$pid
    rc=0; wait $pid || rc=$?
    [ $rc = 0 ] && [ "$(rows "$d" R1)" = 4 ] || fail "nohup: exit $rc, $(rows "$d" R1) rows: $(tail -3 "$work/err")"
    $G run R2 "$work/slow.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" >/dev/null 2>"$work/err" &
    pid=$!
    wait_for 20 'grep -qs "server is listening" "$d"/logs/R2*.log' || fail "twice: no server started"
    kill -TERM $pid; kill -TERM $pid
    rc=0; wait $pid || rc=$?
    [ $rc = 143 ] || fail "twice: exit $rc"
    [ "$(grep -c 'stopping on signal 15' "$work/err")" -ge 1 ] || fail "twice: $(cat "$work/err")"
    no_servers_within 15 || fail "twice: a server outlived the run"
}

area_cases="$area_cases super_one_signal super_run_signals"

# From round 4 (issue 33; failed on 21b075f):
# The suite run under nohup (SIGHUP ignored on entry, inherited by every
# child, and not to be undone by a non-interactive bash's trap): the cases
# that send a hangup and expect its default give the process they test a
# default SIGHUP themselves ($HUP_DEFAULT), as the nohup cases set it
# ignored on purpose. Each failed under nohup before ("exit 0 after
# SIGHUP", "hangup without nohup: exit 0").
case_suite_nohup() {
    local rc=0
    timeout -k 10 150 nohup bash "$ROOT/tests/integration/run.sh" "$build" \
        sigterm_and_resume >"$work/nh-run.out" 2>&1 || rc=$?
    [ $rc = 0 ] || fail "run.sh sigterm_and_resume under nohup: exit $rc $(tail -4 "$work/nh-run.out")"
    rc=0
    timeout -k 10 150 nohup bash "$ROOT/tests/integration/hostile.sh" "$build" \
        nohup >"$work/nh-hostile.out" 2>&1 || rc=$?
    [ $rc = 0 ] || fail "hostile.sh nohup under nohup: exit $rc $(tail -4 "$work/nh-hostile.out")"
}
area_cases="$area_cases suite_nohup"
