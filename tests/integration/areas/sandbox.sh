# shellcheck shell=bash
# sandbox (issue 38, "Code that runs"): `graveyard sandbox` runs Python a
# model wrote with its tests under bubblewrap (docs/sandbox.md). The
# plain outcomes, the refusal where the sandbox cannot run, and the
# hostile corpus: each case is contained within its timeout plus 1 s
# (measured here) and changes nothing outside the sandbox.
# Sourced by tests/integration/cases.sh (lib.sh's helpers).

# graveyard sandbox ARGS... with a time limit: stdout in $work/sb.out,
# stderr in $work/sb.err, the exit status in $sb_rc, seconds in $sb_ms
sb() {
    local t0 t1
    t0=$(date +%s%N)
    sb_rc=0
    (cd "$work" && timeout -k 2 60 "$G" sandbox "$@") >"$work/sb.out" 2>"$work/sb.err" || sb_rc=$?
    t1=$(date +%s%N)
    sb_ms=$(((t1 - t0) / 1000000))
}
# FIELD of the result of FILE in $work/sb.out, as JSON
sb_field() { # file field
    python3 -c 'import json,sys
for l in open(sys.argv[1]):
    r=json.loads(l)
    if r["file"].endswith(sys.argv[2]): print(json.dumps(r[sys.argv[3]]))' "$work/sb.out" "$1" "$2"
}
# FILE's output, its first 300 bytes, for a failure's line
sb_short() { sb_field "$1" output | cut -c1-300; }
# FILE's outcome, limit and exception as "outcome/limit/exception"
sb_verdict() {
    echo "$(sb_field "$1" outcome | tr -d '"')/$(sb_field "$1" limit | tr -d '"')/$(sb_field "$1" exception | tr -d '"')"
}
# no process of ours left with marker in its command line or environment
sb_none_left() { # marker
    ! pgrep -f "$1" >/dev/null
}

# Pass, fail (assertion), error (its type), syntax error and timeout, one
# JSON object each in the FILEs' order, with passed of total and the
# failing test's traceback; exit 1 when one did not pass, 0 when all did.
# Tests: orchestrator/cmd/cmd_sandbox.c
# Tests: orchestrator/sandbox/pool.c
# Tests: orchestrator/sandbox/harness.c
case_sandbox_outcomes() {
    printf 'def f(x):\n    return x + 1\nprint("hello")\n' >"$work/ok.py"
    printf 'def f(x):\n    return x + 2\n' >"$work/wrong.py"
    printf 'def f(x):\n    return x / 0\n' >"$work/crash.py"
    printf 'def f(x):\n  return x +\n' >"$work/syntax.py"
    printf 'def f(x):\n    while True:\n        pass\n' >"$work/spin.py"
    sb --timeout 2 --jobs 2 ok.py wrong.py crash.py syntax.py spin.py \
        --test 'assert f(1) == 2' --test 'assert f(2) == 3'
    [ $sb_rc = 1 ] || fail "exit $sb_rc, not 1: $(cat "$work/sb.err")"
    [ "$(wc -l <"$work/sb.out")" = 5 ] || fail "not 5 results: $(cat "$work/sb.out")"
    head -n 1 "$work/sb.out" | grep -q '"file":"ok.py"' || fail "the first result is not ok.py's"
    [ "$(sb_verdict ok.py)" = "passed//" ] || fail "ok.py: $(sb_verdict ok.py)"
    [ "$(sb_field ok.py passed)/$(sb_field ok.py total)" = 2/2 ] || fail "ok.py: not 2 of 2"
    [ "$(sb_short ok.py)" = '"hello\n"' ] || fail "ok.py's output: $(sb_short ok.py)"
    [ "$(sb_verdict wrong.py)" = "failed//" ] || fail "wrong.py: $(sb_verdict wrong.py)"
    [ "$(sb_field wrong.py failed_test)" = 0 ] || fail "wrong.py: failed_test $(sb_field wrong.py failed_test)"
    sb_field wrong.py output | grep -q AssertionError || fail "wrong.py: no traceback: $(sb_short wrong.py)"
    [ "$(sb_verdict crash.py)" = "error//ZeroDivisionError" ] || fail "crash.py: $(sb_verdict crash.py)"
    [ "$(sb_verdict syntax.py)" = "syntax_error//SyntaxError" ] || fail "syntax.py: $(sb_verdict syntax.py)"
    [ "$(sb_verdict spin.py)" = "timeout//" ] || fail "spin.py: $(sb_verdict spin.py)"
    # stopped near its 2 s, not left to spin: loose, as a loaded machine
    # reaps it late
    [ "$(sb_field spin.py ms)" -lt 8000 ] || fail "spin.py took $(sb_field spin.py ms) ms"
    sb ok.py --test 'assert f(1) == 2'
    [ $sb_rc = 0 ] || fail "all passed: exit $sb_rc"
    sb missing.py
    [ $sb_rc = 2 ] && grep -q "cannot open 'missing.py'" "$work/sb.err" || fail "a missing FILE: exit $sb_rc $(cat "$work/sb.err")"
    true
}

# Where bubblewrap cannot run (here: /bin/false in its place, and a PATH
# without bwrap), graveyard refuses to run code, naming the binary and
# the way out; --unsafe-exec runs it, said so by --check.
# Tests: orchestrator/sandbox/probe.c
# Tests: orchestrator/cmd/cmd_sandbox.c
case_sandbox_refuses() {
    printf 'print("ran")\n' >"$work/p.py"
    sb --bwrap /bin/false p.py
    [ $sb_rc = 1 ] || fail "--bwrap /bin/false: exit $sb_rc"
    [ -s "$work/sb.out" ] && fail "--bwrap /bin/false ran it: $(cat "$work/sb.out")"
    grep -q "^graveyard sandbox: bubblewrap ('/bin/false') cannot run python3" "$work/sb.err" &&
        grep -q -- "--unsafe-exec knowingly" "$work/sb.err" || fail "--bwrap /bin/false said: $(cat "$work/sb.err")"
    mkdir -p "$work/nobwrap"
    sb_rc=0
    (cd "$work" && timeout -k 2 60 env PATH="$work/nobwrap" "$G" sandbox p.py) >"$work/sb.out" 2>"$work/sb.err" || sb_rc=$?
    [ $sb_rc = 1 ] && grep -q "bubblewrap ('bwrap') cannot run python3.*No such file" "$work/sb.err" ||
        fail "no bwrap on PATH: exit $sb_rc $(cat "$work/sb.err")"
    sb --bwrap /bin/false --unsafe-exec p.py
    [ $sb_rc = 0 ] && [ "$(sb_short p.py)" = '"ran\n"' ] || fail "--unsafe-exec: exit $sb_rc $(cat "$work/sb.out" "$work/sb.err")"
    sb --unsafe-exec --check
    [ $sb_rc = 0 ] && grep -q "^sandbox: unsafe: no sandbox, Python 3" "$work/sb.out" || fail "--unsafe-exec --check: $(cat "$work/sb.out")"
    sb --check
    [ $sb_rc = 0 ] && grep -q "^sandbox: bwrap [0-9.]*, Python 3" "$work/sb.out" || fail "--check: exit $sb_rc $(cat "$work/sb.out" "$work/sb.err")"
    true
}


# ---- the hostile corpus (docs/sandbox.md, "The hostile corpus") ----

# processes of the sandbox's users (sandbox.h: uids from 2000000000, one
# a slot) still running: none may be left after a run (a zombie has
# ended: here init may never reap an orphan of a killed graveyard)
sb_users_left() {
    ps -eo uid=,pid=,stat=,args= | awk '$1 >= 2000000000 && $1 < 2000000064 && $3 !~ /^Z/' | grep -q .
}
# the run took at most S seconds + 1 (the timeout's, plus the bar)
sb_within() { # seconds what
    [ "$sb_ms" -le $((($1 + 1) * 1000)) ] || fail "$2: $sb_ms ms, past the timeout ($1 s) + 1 s"
}

# A fork bomb: contained by RLIMIT_NPROC (each slot has a user of its
# own, so the count holds) and the PID namespace; nothing of it is left.
# bomb.py forks in every process and ignores the refusals: it runs to
# its timeout. bomb2.py forks sleepers from the candidate's own process,
# whose fork is refused at the limit (EAGAIN): killed "processes". (When
# every child forked too, whether the candidate's own fork was the one
# refused before the timeout was the scheduler's to say: CI's loaded
# run once saw timeout.)
# Tests: orchestrator/sandbox/pool.c
# Tests: orchestrator/server/spawn.c
case_sandbox_fork_bomb() {
    printf 'import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n' >"$work/bomb.py"
    printf 'import os, time\nwhile True:\n    if os.fork() == 0:\n        time.sleep(60)\n' >"$work/bomb2.py"
    sb --timeout 3 --jobs 2 bomb.py bomb2.py
    sb_within 3 "the fork bombs"
    [ "$(sb_verdict bomb.py)" = "timeout//" ] || fail "bomb.py (forks ignoring errors): $(sb_verdict bomb.py)"
    [ "$(sb_verdict bomb2.py)" = "killed/processes/" ] || fail "bomb2.py: $(sb_verdict bomb2.py)"
    # every process of the namespace is SIGKILLed when bwrap goes; the
    # kernel tears its 64 down after graveyard has its outcome, in a
    # second or two more under load (seen: still there 1 s after
    # graveyard returned at a load of 6 on 2 cores, and 2 s after under
    # a whole CI's): they never run again, but they must go
    wait_for 10 '! sb_users_left' || fail "the bomb's processes are left 10 s after: $(ps -eo uid=,pid=,stat=,args= | awk '$1 >= 2000000000 && $3 !~ /^Z/' | cut -c1-120 | head -3)"
    # and the machine still forks: the next run is as usual
    printf 'print("after")\n' >"$work/after.py"
    sb after.py
    [ "$(sb_verdict after.py)" = "passed//" ] || fail "a run after the bomb: $(sb_verdict after.py) $(cat "$work/sb.err")"
    true
}

# A connection to a listener this test sets up on 127.0.0.1: refused in
# the sandbox's own network namespace; the listener sees nothing.
# Tests: orchestrator/sandbox/sandbox.c
case_sandbox_network() {
    local lpid port
    python3 -c 'import socket,sys
s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(8)
open(sys.argv[1]+".port","w").write(str(s.getsockname()[1]))
s.settimeout(8)
try:
    c,a=s.accept(); open(sys.argv[1],"w").write("connected from %s\n" % (a,))
except socket.timeout: pass' "$work/seen" &
    lpid=$!
    wait_for 5 '[ -s "$work/seen.port" ]' || fail "no listener"
    port=$(cat "$work/seen.port")
    cat >"$work/net.py" <<P
import socket
s = socket.create_connection(("127.0.0.1", $port), timeout=2)
s.sendall(b"escaped")
P
    cat >"$work/net2.py" <<P
import socket
try:
    socket.create_connection(("1.1.1.1", 53), timeout=1)
    print("reached 1.1.1.1")
except OSError as e:
    print("no route:", e)
print(socket.if_nameindex())
P
    sb --timeout 3 net.py net2.py
    sb_within 3 "the connection"
    [ "$(sb_verdict net.py)" = "error//ConnectionRefusedError" ] || fail "net.py: $(sb_verdict net.py)"
    sb_field net2.py output | grep -q "no route" || fail "net2.py: $(sb_short net2.py)"
    sb_field net2.py output | grep -q "'lo'" || fail "net2.py: interfaces: $(sb_short net2.py)"
    sb_field net2.py output | grep -qv "eth\|ens" || fail "net2.py sees a host interface"
    kill "$lpid" 2>/dev/null; wait "$lpid" 2>/dev/null
    [ -e "$work/seen" ] && fail "the listener saw: $(cat "$work/seen")"
    true
}

# Writing outside the work folder: a file under the test's own folder
# (not in the sandbox's view) and under /usr (read-only): neither exists
# after; /tmp inside is the sandbox's own tmpfs, gone with it.
# Tests: orchestrator/sandbox/sandbox.c
case_sandbox_write_outside() {
    mkdir -p "$work/outside"
    cat >"$work/write.py" <<P
import os
for path in ["$work/outside/planted", "/usr/graveyard-planted", "/usr/bin/graveyard-planted", "/planted", "/tmp/planted"]:
    try:
        with open(path, "w") as f:
            f.write("planted")
        print("wrote", path)
    except OSError as e:
        print("refused", path, type(e).__name__)
P
    sb --timeout 3 write.py
    sb_within 3 "the writes"
    [ "$(sb_verdict write.py)" = "passed//" ] || fail "write.py: $(sb_verdict write.py) $(cat "$work/sb.err")"
    for f in "$work/outside/planted" /usr/graveyard-planted /usr/bin/graveyard-planted /planted; do
        [ -e "$f" ] && { fail "planted $f"; rm -f "$f"; }
        sb_field write.py output | grep -q "refused $f" || fail "$f: $(sb_short write.py)"
    done
    [ -e /tmp/planted ] && fail "planted /tmp/planted on the host"
    # its own /tmp is the one place it writes
    sb_field write.py output | grep -q "wrote /tmp/planted" || fail "its own /tmp was not writable: $(sb_short write.py)"
    true
}

# Reading a file in $HOME (a temporary HOME graveyard is given, and
# /root), and files under graveyard's cwd (a run folder): none is in the
# sandbox's view; its environment is only what the sandbox sets. The
# files are world-readable and outside /tmp (the sandbox's /tmp is a
# tmpfs of its own), so only the view keeps them out.
# Tests: orchestrator/sandbox/sandbox.c
# Tests: orchestrator/sandbox/pool.c
case_sandbox_read_secrets() {
    local sec
    sec=$(mktemp -d /var/tmp/gy-sandbox-XXXXXX) || { fail "no folder under /var/tmp"; return; }
    chmod 755 "$sec"
    mkdir -p "$sec/home" "$sec/run/rows"
    echo "home-secret-4711" >"$sec/home/secret"
    echo "run-secret-4712" >"$sec/run/rows/Q4_0.jsonl"
    chmod -R a+rX "$sec"
    cat >"$sec/run/read.py" <<P
import os
for path in ["$sec/home/secret", os.path.expanduser("~/secret"), "/root",
             "/root/.bashrc", "$sec/run/rows/Q4_0.jsonl", "rows/Q4_0.jsonl",
             "/etc/shadow", "/etc/passwd", "/proc/1/environ", "/var/tmp"]:
    try:
        if os.path.isdir(path):
            print("listed", path, os.listdir(path))
        else:
            print("read", path, open(path).read())
    except OSError as e:
        print("refused", path, type(e).__name__)
print("env", sorted(os.environ))
print("cwd", os.getcwd())
P
    sb_rc=0
    (cd "$sec/run" && HOME=$sec/home GRAVEYARD_TEST_SECRET=env-secret-4713 timeout -k 2 60 "$G" sandbox --timeout 3 read.py) >"$work/sb.out" 2>"$work/sb.err" || sb_rc=$?
    [ "$(sb_verdict read.py)" = "passed//" ] || fail "read.py: $(sb_verdict read.py) $(cat "$work/sb.err")"
    for s in home-secret-4711 run-secret-4712 env-secret-4713 GRAVEYARD_TEST_SECRET root:; do
        grep -q -- "$s" "$work/sb.out" && fail "read $s: $(sb_short read.py)"
    done
    for p in "$sec/home/secret" /root/.bashrc "$sec/run/rows/Q4_0.jsonl" rows/Q4_0.jsonl /etc/shadow /var/tmp; do
        sb_field read.py output | grep -q "refused $p" || fail "$p: $(sb_short read.py)"
    done
    sb_field read.py output | grep -q "cwd /tmp" || fail "its cwd: $(sb_short read.py)"
    rm -rf "$sec"
    true
}

# 10 GB allocated: RLIMIT_AS refuses it (MemoryError), killed "memory";
# the machine's memory is never asked for.
# Tests: orchestrator/sandbox/harness.c
case_sandbox_memory() {
    printf 'x = bytearray(10 * 1024 ** 3)\n' >"$work/mem.py"
    printf 'xs = []\nwhile True:\n    xs.append(bytearray(64 * 1024 ** 2))\n' >"$work/mem2.py"
    # a wall clock well past what filling the limit takes (0.3 s quiet):
    # under CI's load mem2.py's zeroed 64 MiB blocks once took past 3 s
    # and timed out before the limit killed it
    sb --timeout 15 mem.py mem2.py
    sb_within 15 "10 GB"
    [ "$(sb_verdict mem.py)" = "killed/memory/" ] || fail "mem.py: $(sb_verdict mem.py)"
    [ "$(sb_verdict mem2.py)" = "killed/memory/" ] || fail "mem2.py: $(sb_verdict mem2.py)"
    true
}

# Sleep forever: the timeout kills the namespace, within it + 1 s.
# Tests: orchestrator/sandbox/pool.c
case_sandbox_sleep_forever() {
    printf 'import time\nwhile True:\n    time.sleep(3600)\n' >"$work/sleep.py"
    printf 'import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nsignal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGINT, signal.SIGTERM])\ntime.sleep(3600)\n' >"$work/stubborn.py"
    sb --timeout 2 --jobs 2 sleep.py stubborn.py
    sb_within 2 "sleep forever"
    [ "$(sb_verdict sleep.py)" = "timeout//" ] || fail "sleep.py: $(sb_verdict sleep.py)"
    [ "$(sb_verdict stubborn.py)" = "timeout//" ] || fail "stubborn.py: $(sb_verdict stubborn.py)"
    wait_for 1 '! sb_users_left' || fail "a sleeper is left"
    true
}

# 1 GB of output: killed "output" at the cap (64 KiB), long before 1 GB
# is written anywhere; the result keeps its tail.
# Tests: orchestrator/server/proc.c
case_sandbox_output_flood() {
    printf 'import sys\nfor i in range(16384):\n    sys.stdout.write("y" * 65536)\n' >"$work/flood.py"
    printf 'import os\nfor i in range(16384):\n    os.write(2, b"z" * 65536)\n' >"$work/flood2.py"
    sb --timeout 5 flood.py flood2.py
    sb_within 5 "1 GB of output"
    [ "$(sb_verdict flood.py)" = "killed/output/" ] || fail "flood.py: $(sb_verdict flood.py)"
    [ "$(sb_verdict flood2.py)" = "killed/output/" ] || fail "flood2.py: $(sb_verdict flood2.py)"
    [ "$(sb_field flood.py output | wc -c)" -lt 2100 ] || fail "flood.py's output past its room"
    [ "$(wc -c <"$work/sb.out")" -lt 10000 ] || fail "sb.out is $(wc -c <"$work/sb.out") bytes"
    true
}

# A daemon: double fork and setsid, exec'd into a sleep with a marker,
# trying to outlive its parent: gone when the run ends (the PID namespace
# dies with its first process).
# Tests: orchestrator/sandbox/pool.c
case_sandbox_daemon() {
    local marker=4242.$$
    cat >"$work/daemon.py" <<P
import os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv("/usr/bin/sleep", ["sleep", "$marker"])
    os._exit(0)
time.sleep(0.5)
print("parent done")
P
    sb --timeout 3 daemon.py
    sb_within 3 "the daemon"
    [ "$(sb_verdict daemon.py)" = "passed//" ] || fail "daemon.py: $(sb_verdict daemon.py)"
    wait_for 1 'sb_none_left "sleep $marker"' || { fail "the daemon outlived its run: $(pgrep -af "sleep $marker")"; pkill -f "sleep $marker"; }
    true
}

# os.kill of graveyard's own PID (given in the program's text) and of PID
# 1: in the sandbox's PID namespace neither is reachable; graveyard
# answers as usual.
# Tests: orchestrator/sandbox/sandbox.c
case_sandbox_kill_parent() {
    sb_rc=0
    (cd "$work" && timeout -k 2 60 sh -c '
cat >kill.py <<P
import os, signal
for pid in [$$, 1, -1]:
    try:
        os.kill(pid, signal.SIGKILL)
        print("sent", pid)
    except OSError as e:
        print("refused", pid, type(e).__name__)
print("alive")
P
exec "$0" sandbox --timeout 3 kill.py' "$G") >"$work/sb.out" 2>"$work/sb.err" || sb_rc=$?
    [ $sb_rc = 0 ] || fail "graveyard: exit $sb_rc $(cat "$work/sb.err")"
    [ "$(sb_verdict kill.py)" = "passed//" ] || fail "kill.py: $(sb_verdict kill.py) $(cat "$work/sb.out")"
    sb_field kill.py output | grep -q "alive" || fail "kill.py: $(sb_short kill.py)"
    true
}

# kill -9 of graveyard while 4 sandboxes run: none of their processes is
# left within 1 s (spawn's keeper and the parent-death signal take bwrap,
# and the namespace goes with it).
# Tests: orchestrator/server/spawn.c
case_sandbox_kill9() {
    local gpid i marker=4343.$$
    for i in 1 2 3 4; do
        printf 'import os\nos.execv("/usr/bin/sleep", ["sleep", "%s"])\n' "$marker" >"$work/k$i.py"
    done
    (cd "$work" && exec timeout -k 2 60 "$G" sandbox --timeout 30 --jobs 4 k1.py k2.py k3.py k4.py) >/dev/null 2>&1 &
    wait_for 10 '[ "$(pgrep -f "sleep $marker" | wc -l)" = 4 ]' || fail "the 4 sandboxes did not start: $(pgrep -af "sleep $marker")"
    gpid=$(pgrep -f "^$G sandbox --timeout 30 --jobs 4")
    [ -n "$gpid" ] || fail "no graveyard"
    kill -9 "$gpid"
    wait_for 1 'sb_none_left "sleep $marker" && ! sb_users_left' ||
        { fail "left 1 s after kill -9: $(pgrep -af "sleep $marker") $(ps -eo uid=,pid=,stat=,args= | awk '$1 >= 2000000000 && $3 !~ /^Z/' | head -4)"; pkill -9 -f "sleep $marker"; }
    wait 2>/dev/null
    true
}

# 60 candidates back to back, --nproc 8: each passes. bwrap leaves a
# zombie of its user behind, which PID 1 here reaps only seconds later
# (20 to 50 of them were seen at once), and RLIMIT_NPROC counts it: with
# one user a slot, back-to-back runs at the default 64 failed at random,
# and at 8 55 of these 60 failed ("bwrap: Can't fork for pid 1: Resource
# temporarily unavailable"); each execution now has a user of its own.
# Tests: orchestrator/sandbox/pool.c
case_sandbox_back_to_back() {
    local i files=""
    for i in $(seq 60); do
        printf 'def f(x):\n    return x + %d\n' "$i" >"$work/b$i.py"
        files="$files b$i.py"
    done
    # shellcheck disable=SC2086
    sb --jobs 1 --nproc 8 $files --test 'assert f(0) > 0'
    [ $sb_rc = 0 ] || fail "exit $sb_rc: $(grep -v '"outcome":"passed"' "$work/sb.out" | head -n 2 | cut -c1-300)"
    [ "$(grep -c '"outcome":"passed"' "$work/sb.out")" = 60 ] || fail "not 60 passed"
    true
}

area_cases="$area_cases sandbox_outcomes sandbox_refuses sandbox_fork_bomb sandbox_network"
area_cases="$area_cases sandbox_write_outside sandbox_read_secrets sandbox_memory"
area_cases="$area_cases sandbox_sleep_forever sandbox_output_flood sandbox_daemon"
area_cases="$area_cases sandbox_kill_parent sandbox_kill9 sandbox_back_to_back"
