# shellcheck shell=bash
# Energy (issue 27): the GPU's power read once a second while a rung
# answers, as a child of the loop (tests/fake-tools/nvidia-smi, 50 + 10 x
# the GPU's index watts), into rows/<RUNG>.power; no nvidia-smi, no file
# and no failure; a hung one never holds the loop or a stop.
#
# Tests: orchestrator/run/energy.c
# Tests: orchestrator/night/gpu.c
# Tests: rundir/power.c

# 4 questions of 10 tokens at 100 ms: about 4 s of answering
power_model() {
    model powered '"token_ms": 100, "default": {"content": "one two three four five six seven eight\nAnswer: 5"}'
    mkdir -p "$work/smi"
    cp "$ROOT/tests/fake-tools/nvidia-smi" "$work/smi/nvidia-smi"
}

# The file's lines and its integral, checked against the rows: readings
# every second at GPU 1's 60 W, joules 60 x the answering seconds within
# one reading's worth (60 J), the answering seconds those of the rows'
# requests within a second. Prints the joules.
power_check() { # file, rows
    /usr/bin/python3 - "$1" "$2" <<'PY'
import json, re, sys
lines = open(sys.argv[1]).read().split("\n")
assert lines[-1] == "", "the file ends without a newline"
lines = lines[:-1]
assert re.fullmatch(r"b \d{13}", lines[0]), lines[0]
assert re.fullmatch(r"e \d+", lines[-1]), lines[-1]
end = int(lines[-1][2:])
reads = [l.split(" ") for l in lines[1:-1]]
ts = [int(t) for t, w in reads]
assert all(w == "60.00" for t, w in reads), reads
assert ts[0] < 100, "the first reading %d ms after the start" % ts[0]
gaps = [b - a for a, b in zip(ts, ts[1:])]
assert all(900 <= g <= 1600 for g in gaps), gaps
assert end // 1000 <= len(ts) <= end // 1000 + 2, (len(ts), end)
joules = 60.0 * end / 1000.0  # constant power: the segment times 60 W
busy = sum(json.loads(l)["latency_ms"] for l in open(sys.argv[2])) / 1000.0
assert busy > 3, busy
assert abs(joules - 60.0 * busy) <= 60.0, (joules, busy)
print("%.1f" % joules)
PY
}

case_power_samples() {
    local d=$work/pw f j
    power_model
    PATH=$work/smi:$PATH $GT run Q4_0 "$work/powered.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --gpu 1 --quiet >/dev/null 2>"$work/err" || fail "exit $?: $(cat "$work/err")"
    f=$d/rows/Q4_0.power
    [ -f "$f" ] || { fail "no power samples: $(ls "$d/rows")"; return; }
    j=$(power_check "$f" "$d/rows/Q4_0.jsonl") || fail "samples: $(cat "$f")"
    # a resume that has nothing to ask adds no segment
    PATH=$work/smi:$PATH $GT run Q4_0 "$work/powered.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --gpu 1 --quiet >/dev/null 2>&1 || fail "resume: exit $?"
    [ "$(grep -c '^b ' "$f")" = 1 ] || fail "a finished rung sampled again: $(cat "$f")"
    $G report "$d" --rungs Q4_0 >/dev/null 2>"$work/err" || fail "report: exit $? $(cat "$work/err")"
    # the report's integral: the file's (constant power: 60 W x the
    # segment) to a tenth of a joule, and the one right answer's Wh
    /usr/bin/python3 - "$d/report.json" "$j" <<'PY' || fail "report.json's cost: $(grep -o '"cost": {[^}]*}' "$d/report.json")"
import json, sys
r = json.load(open(sys.argv[1]))["rungs"][0]
c, right = r["cost"], r["right"]
want = float(sys.argv[2])
assert right == 1, right  # apples; the others say 5
assert c["power"] == "nvidia-smi", c
assert abs(c["joules"] - want) <= 0.1, (c["joules"], want)
assert abs(c["wh_per_right"] - c["joules"] / 3600 / right) <= 1e-5, c
assert c["tokens_per_right"] == 4 * 13 / right, c
assert c["seconds_per_right"] > 0, c
PY
    grep -q '^| Rung | Tokens / right | Seconds / right | Cap hit % | Tokens × Q4_0 | Wh / right |$' "$d/REPORT.md" || fail "REPORT.md's cost table: $(grep -A3 'What an answer costs' "$d/REPORT.md")"
    [ -n "$j" ] && echo "  power: $j J over the rung"
}

case_power_absent() {
    local d=$work/pa rc=0
    power_model
    # no nvidia-smi on the PATH at all (the test's own PATH has none)
    if command -v nvidia-smi >/dev/null; then fail "this machine has an nvidia-smi: $(command -v nvidia-smi)"; return; fi
    $GT run Q4_0 "$work/powered.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --gpu 0 --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 0 ] || fail "no nvidia-smi: exit $rc $(cat "$work/err")"
    [ "$(rows "$d" Q4_0)" = 4 ] || fail "rows: $(rows "$d" Q4_0)"
    [ ! -e "$d/rows/Q4_0.power" ] || fail "a power file without nvidia-smi: $(cat "$d/rows/Q4_0.power")"
    $G report "$d" --rungs Q4_0 >/dev/null 2>"$work/err" || fail "report without power: exit $? $(cat "$work/err")"
    grep -q "Wh per right answer: no power readings (no nvidia-smi)." "$d/REPORT.md" || fail "REPORT.md does not say there were no readings"
    grep -q '"joules": null, "wh_per_right": null, "power": "no readings"' "$d/report.json" || fail "report.json: $(grep -o '"cost": {[^}]*}' "$d/report.json")"
    # a GPU that does not tell its power ("[N/A]"): no reading, no file
    mkdir -p "$work/nasmi"
    printf '#!/bin/sh\ncase "$*" in *power.draw*) echo "[N/A]";; *) echo 0;; esac\n' >"$work/nasmi/nvidia-smi"
    chmod +x "$work/nasmi/nvidia-smi"
    PATH=$work/nasmi:$PATH $GT run Q4_0 "$work/powered.gguf" "$work/q.jsonl" "$d/na" --llama "$FAKE" --gpu 0 --quiet >/dev/null 2>"$work/err" || fail "[N/A]: exit $? $(cat "$work/err")"
    [ ! -e "$d/na/rows/Q4_0.power" ] || fail "a power file of [N/A]: $(cat "$d/na/rows/Q4_0.power")"
}

case_power_hung() {
    local d=$work/powhung h pid t0 t1
    power_model
    h=$((600 + RANDOM % 300)).$((RANDOM % 90 + 10))
    # the rung answers on while every power reading hangs: each is killed
    # after 3 s, said once, and the rows come at their pace
    t0=$(date +%s%N)
    PATH=$work/smi:$PATH FAKE_SMI_HANG=power.draw FAKE_SMI_HANG_S=$h $GT run Q4_0 "$work/powered.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --gpu 1 >/dev/null 2>"$work/err" || fail "hung power: exit $? $(cat "$work/err")"
    t1=$(date +%s%N)
    [ "$(rows "$d" Q4_0)" = 4 ] || fail "rows: $(rows "$d" Q4_0)"
    [ $(((t1 - t0) / 1000000)) -lt 9000 ] || fail "the run took $(((t1 - t0) / 1000000)) ms: it waited for nvidia-smi"
    grep -q "nvidia-smi did not say the power draw in 3.0 s" "$work/err" || fail "no word of the hung nvidia-smi: $(cat "$work/err")"
    [ "$(grep -c "did not say the power draw" "$work/err")" = 1 ] || fail "said more than once"
    [ ! -e "$d/rows/Q4_0.power" ] || fail "a power file without a reading"
    wait_for 3 "! pgrep -f 'sleep $h' >/dev/null" || fail "a hung nvidia-smi outlived the run"
    # SIGTERM while a reading hangs: the run is gone within 1 s
    PATH=$work/smi:$PATH FAKE_SMI_HANG=power.draw FAKE_SMI_HANG_S=$h $G run Q4_0 "$work/powered.gguf" "$work/q.jsonl" "$d/2" --llama "$FAKE" --gpu 1 >/dev/null 2>&1 &
    pid=$!
    wait_for 15 "pgrep -f 'sleep $h' >/dev/null" || fail "the power reading never ran"
    kill -TERM $pid
    gone_within 1 $pid || { fail "SIGTERM waited for a hung nvidia-smi"; kill -KILL $pid; }
    wait $pid 2>/dev/null
    wait_for 3 "! pgrep -f 'sleep $h' >/dev/null" || fail "the hung nvidia-smi outlived the run"
}

area_cases="$area_cases power_samples power_absent power_hung"
