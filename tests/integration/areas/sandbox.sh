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
    [ "$(sb_field ok.py output)" = '"hello\n"' ] || fail "ok.py's output: $(sb_field ok.py output)"
    [ "$(sb_verdict wrong.py)" = "failed//" ] || fail "wrong.py: $(sb_verdict wrong.py)"
    [ "$(sb_field wrong.py failed_test)" = 0 ] || fail "wrong.py: failed_test $(sb_field wrong.py failed_test)"
    sb_field wrong.py output | grep -q AssertionError || fail "wrong.py: no traceback: $(sb_field wrong.py output)"
    [ "$(sb_verdict crash.py)" = "error//ZeroDivisionError" ] || fail "crash.py: $(sb_verdict crash.py)"
    [ "$(sb_verdict syntax.py)" = "syntax_error//SyntaxError" ] || fail "syntax.py: $(sb_verdict syntax.py)"
    [ "$(sb_verdict spin.py)" = "timeout//" ] || fail "spin.py: $(sb_verdict spin.py)"
    [ "$(sb_field spin.py ms)" -lt 3000 ] || fail "spin.py took $(sb_field spin.py ms) ms"
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
    [ $sb_rc = 0 ] && [ "$(sb_field p.py output)" = '"ran\n"' ] || fail "--unsafe-exec: exit $sb_rc $(cat "$work/sb.out" "$work/sb.err")"
    sb --unsafe-exec --check
    [ $sb_rc = 0 ] && grep -q "^sandbox: unsafe: no sandbox, Python 3" "$work/sb.out" || fail "--unsafe-exec --check: $(cat "$work/sb.out")"
    sb --check
    [ $sb_rc = 0 ] && grep -q "^sandbox: bwrap [0-9.]*, Python 3" "$work/sb.out" || fail "--check: exit $sb_rc $(cat "$work/sb.out" "$work/sb.err")"
    true
}

area_cases="$area_cases sandbox_outcomes sandbox_refuses"
