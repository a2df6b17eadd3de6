# procs (issue 24, G1 and G19): a site's wrapper script that does not
# exec (it sets LD_LIBRARY_PATH and runs the real binary as its child)
# around llama-server and llama-quantize. kill -9 of graveyard run, of
# graveyard ladder, of graveyard build and of their whole process groups:
# the real server or quantizer dies with them within seconds, and the
# resume answers each question once on one server. A group whose leader
# is gone but whose members live is stopped by the next run. The keeper
# is not taken for graveyard by its command line. A server's
# last log line reaches the terminal printable.
# Sourced by tests/integration/cases.sh (lib.sh's helpers).
#
# Tests: orchestrator/server/spawn.c
# Tests: orchestrator/server/proc.c
# Tests: rundir/pidfile.c
# Tests: orchestrator/forge/buildtool.c
# Tests: util/printable.c

# pid runs (a zombie does not: here init may never reap an orphan)
procs_running() {
    case "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" in Z|X|"") return 1;; esac
}
procs_boot_id() { cat /proc/sys/kernel/random/boot_id; }
procs_start_time() { awk '{print $22}' "/proc/$1/stat"; }
# a wrapper that does not exec: REAL runs as its child
procs_wrapper() { # path real
    printf '#!/bin/sh\nexport LD_LIBRARY_PATH=/x\n"%s" "$@"\n' "$2" >"$1"
    chmod +x "$1"
}
# each of the four questions answered exactly once in rows file f
procs_once() { # file what
    local ids
    ids=$(/usr/bin/python3 -c 'import json,sys
print(" ".join(sorted(json.loads(l)["id"] for l in open(sys.argv[1]))))' "$1")
    [ "$ids" = "apples figs pears plums" ] || fail "$2: rows are not each question once: $ids"
}
# the server logs of rung log ROOT say one start per resume (never two
# servers at once: each "server start" line is followed by its stop)
procs_servers() { pgrep -f "$FAKE -m $work/" | wc -l; }

# kill -9 of `graveyard run` (then of its whole group), three times each:
# the wrapped server is gone within 3 s; the resume ends with each answer
# once and one server at a time.
case_wrap_kill_run() {
    local d=$work/wr i pid how
    procs_wrapper "$work/wrap-server" "$FAKE"
    for i in 1 2 3 4 5 6; do
        how=run; [ $((i % 2)) = 0 ] && how=group
        setsid $G run R1 "$work/slow.gguf" "$work/q.jsonl" "$d" --llama "$work/wrap-server" >/dev/null 2>&1 &
        pid=$!
        wait_for 20 'grep -qs "server is listening" "$d/logs/R1.server.log" && [ "$(procs_servers)" -ge 1 ]' || fail "no server ($i)"
        [ "$(pgrep -f "$G run R1 $work/slow.gguf" | wc -l)" = 1 ] || fail "graveyard run is not one process by its command line: $(pgrep -af "$G run R1")"
        sleep "0.$((RANDOM % 5))"
        if [ $how = group ]; then kill -KILL -- -$pid; else kill -KILL $pid; fi
        wait $pid 2>/dev/null
        no_servers_within 3 || { fail "kill $i of the $how: the wrapped server outlived graveyard run"; pkill -KILL -f "$FAKE -m $work/"; }
    done
    $GT run R1 "$work/slow.gguf" "$work/q.jsonl" "$d" --llama "$work/wrap-server" >/dev/null 2>"$work/err" || fail "resume: exit $? $(cat "$work/err")"
    procs_once "$d/rows/R1.jsonl" "run"
}

# The same for graveyard ladder: kill -9 of the ladder alone (its runs
# stop their servers) and of the ladder's whole group (runs and ladder at
# once), then the ladder resumes to the end.
case_wrap_kill_ladder() {
    local d=$work/wl i pid how r
    procs_wrapper "$work/wrap-server" "$FAKE"
    ladder_config wl 2 '"0", "1"' slow
    sed -i "s|\"binary\": \"$FAKE\"|\"binary\": \"$work/wrap-server\"|" "$work/wl.json"
    for i in 1 2 3 4; do
        how=ladder; [ $((i % 2)) = 0 ] && how=group
        setsid $G ladder "$work/wl.json" --quiet >/dev/null 2>&1 &
        pid=$!
        wait_for 20 '[ "$(procs_servers)" -ge 1 ]' || fail "no server ($i)"
        sleep "0.$((RANDOM % 5))"
        if [ $how = group ]; then kill -KILL -- -$pid; else kill -KILL $pid; fi
        wait $pid 2>/dev/null
        no_servers_within 3 || { fail "kill $i of the $how: a wrapped server outlived the ladder"; pkill -KILL -f "$FAKE -m $work/"; }
    done
    $GT ladder "$work/wl.json" --quiet >/dev/null 2>"$work/err" || fail "resume: exit $? $(cat "$work/err")"
    for r in R1 R2; do procs_once "$d/rows/$r.jsonl" "ladder $r"; done
}

# A group whose leader (a wrapper) is gone while its member, the real
# server, still runs: what graveyard run and its keeper leave when
# someone kills both (pkill -9 -f of the command line). The pid file
# names the wrapper; the resume stops the whole group, and a resume
# after a reboot's or another start time's pid file leaves it alone.
case_wrap_orphan_group() {
    local d=$work/wo lead srv
    mkdir -p "$d"
    # a leader that records itself, starts the server and exits
    setsid sh -c 'echo "$$ $(cut -d" " -f22 /proc/$$/stat)" >"$1"; "$2" -m "$3" --host 127.0.0.1 --port 0 >/dev/null 2>&1 & echo $! >"$4"' \
        sh "$work/wo.lead" "$FAKE" "$work/good.gguf" "$work/wo.srv" &
    wait_for 5 '[ -s "$work/wo.srv" ] && [ -s "$work/wo.lead" ]' || fail "no group"
    lead=$(cut -d' ' -f1 "$work/wo.lead"); srv=$(cat "$work/wo.srv")
    wait_for 5 '! procs_running $lead' || fail "the leader did not exit"
    procs_running "$srv" || fail "the server is not running"
    # another boot's file: left alone
    echo "$(cat "$work/wo.lead") 00000000-0000-0000-0000-000000000000" >"$d/R1.server.pid"
    $GT run R1 "$work/good.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --limit 1 >/dev/null 2>"$work/err" || fail "exit $? $(cat "$work/err")"
    procs_running "$srv" || fail "a group of another boot's pid file was stopped"
    # a start time after the server's: the group is not the one recorded
    echo "$lead $(( $(procs_start_time "$srv") + 100 )) $(procs_boot_id)" >"$d/R1.server.pid"
    $GT run R1 "$work/good.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --limit 2 >/dev/null 2>"$work/err" || fail "exit $? $(cat "$work/err")"
    procs_running "$srv" || fail "a group that started later than the record was stopped"
    # the record: stopped
    echo "$(cat "$work/wo.lead") $(procs_boot_id)" >"$d/R1.server.pid"
    $GT run R1 "$work/good.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --limit 3 >/dev/null 2>"$work/err" || fail "exit $? $(cat "$work/err")"
    grep -q "stopped server pid $lead left by an earlier run" "$work/err" || fail "not stopped: $(cat "$work/err")"
    gone_within 5 "$srv" || { fail "the group's server is alive"; kill -KILL "$srv"; }
}

# graveyard run and its keeper (a child named graveyard-keep) killed:
# the resume finds the wrapper's group through the pid file and stops it
# before it starts its own server.
case_wrap_kill_all() {
    local d=$work/wa pid srv
    procs_wrapper "$work/wrap-server" "$FAKE"
    $G run R1 "$work/slow.gguf" "$work/q.jsonl" "$d" --llama "$work/wrap-server" >/dev/null 2>&1 &
    pid=$!
    wait_for 20 'grep -qs "server is listening" "$d/logs/R1.server.log" && [ "$(procs_servers)" -ge 1 ]' || fail "no server"
    srv=$(pgrep -f "$FAKE -m $work/slow")
    # its keeper first (when there is one), then graveyard run
    pkill -KILL -P $pid -x graveyard-keep
    kill -KILL $pid
    wait $pid 2>/dev/null
    $GT run R1 "$work/slow.gguf" "$work/q.jsonl" "$d" --llama "$work/wrap-server" >/dev/null 2>"$work/err" || fail "resume: exit $? $(cat "$work/err")"
    [ -n "$srv" ] || fail "no first server found"
    ! procs_running "$srv" || fail "the first server is still running"
    procs_once "$d/rows/R1.jsonl" "run"
}

# A build config NAME whose Q8_0 and Q4_0 are made by quantizer QUANT
# from a BF16 that the fake converter makes first.
procs_build_config() { # name quant
    local name=$1
    [ -d "$work/ckpt" ] || cp -r "$ROOT/configs/demo/checkpoint" "$work/ckpt"
    cp "$ROOT/tests/fake-tools/convert_hf_to_gguf.py" "$work/convert.py"
    mkdir -p "$work/$name"
    cat >"$work/$name.json" <<JSON
{"name": "$name", "questions": "$work/q.jsonl", "run_dir": "$work/$name/run",
 "build": {"checkpoint": "$work/ckpt", "python": "$build/fake-convert-hf", "convert": "$work/convert.py",
           "quantize": "$2", "threads": 4},
 "rungs": [
  {"name": "BF16", "model": "$work/$name/m/BF16.gguf", "convert": "bf16"},
  {"name": "Q8_0", "model": "$work/$name/m/Q8_0.gguf", "quantize": {"from": "BF16", "type": "Q8_0"}},
  {"name": "Q4_0", "model": "$work/$name/m/Q4_0.gguf", "quantize": {"from": "BF16", "type": "Q4_0"}}],
 "server": {"binary": "$FAKE"}, "gpus": ["0"]}
JSON
    $GT build "$work/$name.json" --only BF16 --quiet >/dev/null 2>"$work/err" || fail "BF16: exit $? $(cat "$work/err")"
}

# graveyard build with a wrapped llama-quantize: kill -9 of the build and
# of its group, three times each; no quantizer is left a second later,
# and the build then finishes.
case_wrap_kill_build() {
    local Q=$build/fake-llama-quantize i pid how
    procs_wrapper "$work/wrap-quantize" "$Q"
    procs_build_config wb "$work/wrap-quantize"
    for i in 1 2 3 4 5 6; do
        how=build; [ $((i % 2)) = 0 ] && how=group
        FAKE_TOOL_FAULT="*:slow" FAKE_TOOL_SLOW_MS=100 setsid $G build "$work/wb.json" --jobs 2 --quiet >/dev/null 2>&1 &
        pid=$!
        wait_for 20 "pgrep -f '$Q .*$work/wb' >/dev/null" || fail "no quantizer ($i)"
        sleep "0.$((RANDOM % 5))"
        if [ $how = group ]; then kill -KILL -- -$pid; else kill -KILL $pid; fi
        wait $pid 2>/dev/null
        wait_for 1 "! pgrep -f '$Q .*$work/wb' >/dev/null" || { fail "kill $i of the $how: a wrapped quantizer outlived graveyard build"; pkill -KILL -f "$Q .*$work/wb"; }
    done
    FAKE_TOOL_SLOW_MS=5 $GT build "$work/wb.json" --quiet >/dev/null 2>"$work/err" || fail "the last build: exit $? $(cat "$work/err")"
    [ "$(find "$work/wb" -name '*.graveyard-tmp*' | wc -l)" = 0 ] || fail "temporary files left"
}

# graveyard build and its keeper killed while a wrapped quantizer runs:
# the next build stops the orphan (TMP.group names its group) before it
# removes its temporary file, and makes the files whole. Uses wb.json,
# from wrap_kill_build.
case_wrap_build_kill_all() {
    local Q=$build/fake-llama-quantize pid orphan
    [ -e "$work/wb.json" ] || case_wrap_kill_build
    rm -f "$work/wb/m/Q8_0.gguf" "$work/wb/m/Q4_0.gguf"
    FAKE_TOOL_FAULT="*:slow" FAKE_TOOL_SLOW_MS=400 $G build "$work/wb.json" --jobs 1 --quiet >/dev/null 2>&1 &
    pid=$!
    wait_for 20 "pgrep -f '$Q .*$work/wb' >/dev/null" || fail "no quantizer"
    orphan=$(pgrep -f "$Q .*$work/wb")
    pkill -KILL -P $pid -x graveyard-keep
    kill -KILL $pid
    wait $pid 2>/dev/null
    sleep 0.3
    procs_running "$orphan" || fail "the quantizer died with its keeper: nothing left to test"
    FAKE_TOOL_SLOW_MS=5 $GT build "$work/wb.json" >/dev/null 2>"$work/err" || fail "the next build: exit $? $(cat "$work/err")"
    grep -q "killed process group .* a tool left by a build that was stopped" "$work/err" || fail "no word of the orphan: $(cat "$work/err")"
    gone_within 1 "$orphan" || { fail "the orphaned quantizer outlived the next build"; kill -KILL "$orphan"; }
    for f in Q8_0 Q4_0; do "$G" f16-range "$work/wb/m/$f.gguf" >/dev/null || fail "$f is not a whole GGUF"; done
    [ "$(find "$work/wb" -name '*.graveyard-tmp*' | wc -l)" = 0 ] || fail "temporary files left"
}

# G19: a server that prints an escape sequence as its last line before it
# fails: graveyard's message shows it escaped, never the raw bytes.
case_last_line_printable() {
    local d=$work/esc
    printf '{"fake_llama_server": 1, "fail_start": "load failed \\u001b[2J\\u001b]0;owned\\u0007 \\u00e9t\\u00e9 \\u009b1m end"}\n' >"$work/esc.gguf"
    $GT run R1 "$work/esc.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" >/dev/null 2>"$work/err" && fail "a server that cannot start: exit 0"
    grep -q "load failed" "$work/err" || fail "no last line: $(cat "$work/err")"
    LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$work/err" && fail "control bytes reach the terminal: $(cat -v "$work/err")"
    LC_ALL=C grep -q $'\xc2\x9b' "$work/err" && fail "a C1 control reaches the terminal: $(cat -v "$work/err")"
    grep -qF 'load failed \x1b[2J\x1b]0;owned\x07 été \xc2\x9b1m end' "$work/err" || fail "not escaped as \\xNN: $(cat -v "$work/err")"
}

# ... and a tool's last lines, quoted when it fails
case_tool_lines_printable() {
    printf '#!/bin/sh\nprintf "quantize: bad \\033[2J\\033]0;owned\\007 end\\n"\nexit 3\n' >"$work/esc-quantize"
    chmod +x "$work/esc-quantize"
    procs_build_config eq "$work/esc-quantize"
    $GT build "$work/eq.json" --only Q8_0 >/dev/null 2>"$work/err" && fail "a tool that fails: exit 0"
    grep -q "quantize: bad" "$work/err" || fail "no quoted line: $(cat "$work/err")"
    LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$work/err" && fail "control bytes reach the terminal: $(cat -v "$work/err")"
    grep -qF 'quantize: bad \x1b[2J\x1b]0;owned\x07 end' "$work/err" || fail "not escaped as \\xNN: $(cat -v "$work/err")"
}

area_cases="$area_cases wrap_kill_run wrap_kill_ladder wrap_orphan_group wrap_kill_all wrap_kill_build wrap_build_kill_all last_line_printable tool_lines_printable"
