#!/bin/bash
# graveyard build against the fake converter and llama-quantize
# (tests/fake-tools): what it makes and records, what a second build does
# (nothing), faults of the tools, signals, SIGKILL at random moments, every
# bad config, the disk, --jobs, and graveyard ladder building first.
# Usage: build.sh BUILD_DIR [CASE...]   Ends with "build: N passed, M failed".
#
# Tests: orchestrator/cmd/cmd_build.c
# Tests: orchestrator/cmd/cmd_f16range.c
# Tests: orchestrator/forge/build.c
# Tests: orchestrator/forge/buildstep.c
# Tests: orchestrator/forge/buildtool.c
# Tests: rundir/buildrec.c
# Tests: rundir/ladderfile.c
set -u
. "$(dirname "$0")/lib.sh"
Q=$build/fake-llama-quantize
C=$build/fake-convert-hf
repo=$(cd "$(dirname "$0")/../.." && pwd)
cp -r "$repo/configs/demo/checkpoint" "$work/ckpt"
cp "$repo/tests/fake-tools/convert_hf_to_gguf.py" "$work/convert.py"
tools_left() { pgrep -f "$Q .*$work/|$C .*$work/" >/dev/null; }
no_tools_within() { wait_for "$1" "! tools_left"; }

# A ladder config NAME with its models in $work/NAME/m: BF16 and F16
# converted, Q8_0, Q4_0 and Q2_K quantized from BF16.
build_config() {
    local name=$1 extra=${2:-}
    mkdir -p "$work/$name"
    cat >"$work/$name.json" <<JSON
{"name": "$name", "questions": "$work/q.jsonl", "run_dir": "$work/$name/run",
 "build": {"checkpoint": "$work/ckpt", "python": "$C", "convert": "$work/convert.py",
           "quantize": "$Q", "threads": 4 $extra},
 "rungs": [
  {"name": "BF16", "model": "$work/$name/m/BF16.gguf", "convert": "bf16"},
  {"name": "F16", "model": "$work/$name/m/F16.gguf", "convert": "f16"},
  {"name": "Q8_0", "model": "$work/$name/m/Q8_0.gguf", "quantize": {"from": "BF16", "type": "Q8_0"}},
  {"name": "Q4_0", "model": "$work/$name/m/Q4_0.gguf", "quantize": {"from": "BF16", "type": "q4_0"}},
  {"name": "Q2_K", "model": "$work/$name/m/Q2_K.gguf", "quantize": {"from": "BF16", "type": "Q2_K"}}],
 "server": {"binary": "$FAKE"}, "gpus": ["0"]}
JSON
}
sums() { (cd "$1" && sha256sum BF16.gguf F16.gguf Q8_0.gguf Q4_0.gguf Q2_K.gguf 2>/dev/null); }
temps() { find "$1" -name '*.graveyard-tmp*' | wc -l; }

# the reference: one uninterrupted build
build_config ref
$GT build "$work/ref.json" --quiet >/dev/null 2>"$work/ref.err" || echo "  the reference build failed: $(cat "$work/ref.err")"
sums "$work/ref/m" >"$work/ref.sums"

case_fresh() {
    local r=$work/ref/run
    [ "$(wc -l <"$work/ref.sums")" = 5 ] || fail "not five files: $(cat "$work/ref.sums")"
    [ "$(tail -n +2 "$r/ladder.tsv" | cut -f1 | tr '\n' ' ')" = "BF16 F16 Q8_0 Q4_0 Q2_K " ] || fail "ladder.tsv: $(cat "$r/ladder.tsv")"
    # ladder.tsv's hashes are the files'
    while read -r sum file; do
        grep -q "$sum" "$r/ladder.tsv" || fail "$file: $sum not in ladder.tsv"
    done <"$work/ref.sums"
    /usr/bin/python3 - "$r/build.json" "$work/ref/m" <<'PY' || fail "build.json"
import json, sys
b = json.load(open(sys.argv[1]))["rungs"]
assert sorted(b) == ["BF16", "F16", "Q2_K", "Q4_0", "Q8_0"], sorted(b)
q = b["Q4_0"]
assert q["recipe"] == "quantize Q4_0 from BF16", q["recipe"]
assert q["tool"].endswith("fake-llama-quantize build = 4242 (fa4e0001)"), q["tool"]
assert q["argv"][-3:] == [q["argv"][-3], "Q4_0", "1"] or q["argv"][-2:] == ["Q4_0", "4"], q["argv"]
assert q["source_sha256"] == b["BF16"]["sha256"], "source of Q4_0 is BF16's file"
assert b["BF16"]["tool"].endswith(".py sha256:" + b["BF16"]["tool"].split("sha256:")[1])
for r in b.values():
    assert r["bytes"] > 0 and r["seconds"] >= 0 and len(r["sha256"]) == 64
PY
    # both files as their schemas say (schemas/build, f16-range-line)
    /usr/bin/python3 - "$repo/schemas" "$r/build.json" "$r/f16-range.jsonl" <<'PY' || fail "schemas"
import json, sys, jsonschema
def v(name):
    return jsonschema.Draft202012Validator(json.load(open(f"{sys.argv[1]}/{name}.schema.json")))
v("build").validate(json.load(open(sys.argv[2])))
for line in open(sys.argv[3]):
    v("f16-range-line").validate(json.loads(line))
PY
    # f16-range ran before F16 and says what graveyard f16-range says
    cmp -s "$r/f16-range.jsonl" <($G f16-range "$work/ckpt") || fail "f16-range.jsonl differs"
    for x in BF16 F16 Q8_0 Q4_0 Q2_K; do
        [ -s "$r/build/$x.log" ] || fail "no log for $x"
        $G f16-range "$work/ref/m/$x.gguf" >/dev/null || fail "$x is not a GGUF f16-range reads"
    done
    [ "$(temps "$work/ref")" = 0 ] || fail "temporary files left"
}

case_again_writes_nothing() {
    touch "$work/mark"; sleep 1
    $GT build "$work/ref.json" >"$work/out" 2>&1 || fail "exit $?"
    [ -z "$(find "$work/ref" -newer "$work/mark")" ] || fail "wrote: $(find "$work/ref" -newer "$work/mark")"
    grep -q "0 made, 5 there already" "$work/out" || fail "$(cat "$work/out")"
    ! grep -q "quantize Q" "$work/out" || fail "a tool was started"
}

case_deterministic() {
    build_config det
    $GT build "$work/det.json" --quiet 2>"$work/err" || fail "exit $? $(cat "$work/err")"
    cmp -s "$work/ref.sums" <(sums "$work/det/m") || fail "another folder, other bytes"
}

case_recipe_changed() {
    local rc=0
    build_config rc1
    $GT build "$work/rc1.json" --quiet || fail "first build: $?"
    sed -i 's/"type": "q4_0"/"type": "Q4_K_M"/' "$work/rc1.json"
    $GT build "$work/rc1.json" >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "was made as 'quantize Q4_0 from BF16'; the config now says 'quantize Q4_K_M from BF16': give --force Q4_0" "$work/err" || fail "changed recipe: exit $rc $(cat "$work/err")"
    $GT build "$work/rc1.json" --force Q4_0 --quiet 2>"$work/err" || fail "--force: $? $(cat "$work/err")"
    grep -q '"recipe": "quantize Q4_K_M from BF16"' "$work/rc1/run/build.json" || fail "build.json not updated"
    # a file that changed since it was made is refused too
    printf 'x' >>"$work/rc1/m/Q8_0.gguf"
    rc=0; $GT build "$work/rc1.json" >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "has changed since" "$work/err" || fail "changed file: exit $rc $(cat "$work/err")"
}

case_brought_file() {
    build_config bro
    mkdir -p "$work/bro/m"
    cp "$work/ref/m/Q2_K.gguf" "$work/bro/m/Q2_K.gguf"
    touch -d '2020-01-01' "$work/bro/m/Q2_K.gguf"
    $GT build "$work/bro.json" >"$work/out" 2>&1 || fail "exit $?"
    grep -q "Q2_K: .* is there, not made by graveyard build: used as is" "$work/out" || fail "$(cat "$work/out")"
    [ "$(stat -c %Y "$work/bro/m/Q2_K.gguf")" = "$(date -d 2020-01-01 +%s)" ] || fail "the brought file was rewritten"
}

case_tool_fails() {
    local rc=0
    build_config tf
    FAKE_TOOL_FAULT="Q4_0:exit1" $GT build "$work/tf.json" >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 1 ] || fail "exit $rc"
    grep -q "Q4_0: llama-quantize exited with status 1" "$work/err" || fail "no message: $(cat "$work/err")"
    grep -q "fake fault exit1 half way" "$work/err" || fail "log tail not quoted"
    [ ! -e "$work/tf/m/Q4_0.gguf" ] && [ "$(temps "$work/tf")" = 0 ] || fail "a partial file is left"
    [ -s "$work/tf/m/Q2_K.gguf" ] && [ -s "$work/tf/m/Q8_0.gguf" ] || fail "independent rungs not made"
    # a source that fails blocks what is made from it, not the rest
    build_config tf2
    rc=0; FAKE_TOOL_FAULT="BF16:exit1" $GT build "$work/tf2.json" >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 1 ] && grep -q "Q8_0: not made: its source BF16 was not made" "$work/err" || fail "blocked: $rc $(cat "$work/err")"
    [ -s "$work/tf2/m/F16.gguf" ] || fail "F16 (independent) not made"
    # the same command again makes what is missing
    $GT build "$work/tf2.json" --quiet 2>"$work/err" || fail "again: $? $(cat "$work/err")"
    cmp -s "$work/ref.sums" <(sums "$work/tf2/m") || fail "after the retry, other bytes"
}

case_garbage() {
    local rc=0
    build_config ga
    FAKE_TOOL_FAULT="Q8_0:garbage" $GT build "$work/ga.json" --only Q8_0 >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 1 ] && grep -q "Q8_0: exited 0, but what it wrote is not a GGUF: .*bad magic" "$work/err" || fail "exit $rc $(cat "$work/err")"
    [ ! -e "$work/ga/m/Q8_0.gguf" ] && [ "$(temps "$work/ga")" = 0 ] || fail "garbage left"
}

# Started with SIGINT at its default: a background job of a script
# inherits it ignored, as bash sets it, and graveyard keeps a disposition
# it was given (so would any program).
with_sigint() { exec /usr/bin/python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' "$@"; }

case_signals() {
    local pid t0 rc sig
    build_config sg
    # SIGTERM and SIGINT: the tool is stopped first, its partial removed
    for sig in TERM INT; do
        rm -f "$work/sg/run/build/BF16.log"
        FAKE_TOOL_FAULT="BF16:hang" with_sigint $G build "$work/sg.json" >/dev/null 2>"$work/err" &
        pid=$!
        wait_for 10 "grep -q hanging $work/sg/run/build/BF16.log 2>/dev/null" || fail "$sig: the tool never hung"
        kill -$sig $pid; rc=0; wait $pid || rc=$?
        [ $rc = $((128 + $(kill -l $sig))) ] || fail "SIG$sig: exit $rc"
        grep -q "stopping on signal" "$work/err" && grep -q "BF16: stopped; its partial file is removed" "$work/err" || fail "SIG$sig: $(cat "$work/err")"
        no_tools_within 3 || fail "SIG$sig: the converter outlived graveyard"
        [ "$(temps "$work/sg")" = 0 ] || fail "SIG$sig: partial left"
    done
    # a tool that ignores SIGTERM is killed after the grace period (10 s)
    rm -f "$work/sg/run/build/BF16.log"
    FAKE_TOOL_FAULT="BF16:ignore_term" $G build "$work/sg.json" >/dev/null 2>"$work/err" &
    pid=$!
    wait_for 10 "grep -q hanging $work/sg/run/build/BF16.log 2>/dev/null" || fail "never hung"
    t0=$(date +%s); kill -TERM $pid; rc=0; wait $pid || rc=$?
    [ $rc = 143 ] && [ $(($(date +%s) - t0)) -le 13 ] || fail "SIGTERM with a stubborn tool: exit $rc after $(($(date +%s) - t0)) s"
    no_tools_within 3 || fail "the stubborn tool outlived graveyard"
    [ "$(temps "$work/sg")" = 0 ] || fail "stubborn: partial left"
}

# SIGKILL at 10 random moments of a slow build (each tool takes 3 s; the
# whole process group half the time): no tool outlives graveyard, no final path ever holds a
# partial file, and the same command then finishes the same bytes.
case_kill_random() {
    local i pid ms sum file
    build_config kr
    for i in $(seq 1 10); do
        ms=$(( (RANDOM % 4000) + 50 ))
        FAKE_TOOL_FAULT="*:slow" FAKE_TOOL_SLOW_MS=60 setsid $G build "$work/kr.json" --jobs 2 --quiet >/dev/null 2>&1 &
        pid=$!
        sleep "$(printf '0.%03d' $((ms % 1000)))"; [ $ms -ge 1000 ] && sleep $((ms / 1000))
        if [ $((i % 2)) = 0 ]; then kill -KILL -- -$pid 2>/dev/null; else kill -KILL $pid 2>/dev/null; fi
        wait $pid 2>/dev/null
        # a tool takes 3 s: one still there a second later outlived us
        no_tools_within 1 || { fail "kill $i ($ms ms): a tool outlived graveyard"; pkill -KILL -f "$work/kr"; }
        while read -r sum file; do
            grep -q "^$sum  $file\$" "$work/ref.sums" || fail "kill $i ($ms ms): $file at its final path is not whole"
        done < <(sums "$work/kr/m")
    done
    FAKE_TOOL_SLOW_MS=15 $GT build "$work/kr.json" --quiet 2>"$work/err" || fail "the last build: $? $(cat "$work/err")"
    cmp -s "$work/ref.sums" <(sums "$work/kr/m") || fail "after the kills, other bytes"
    [ "$(temps "$work/kr")" = 0 ] || fail "temporary files left at the end"
}

case_bad_configs() {
    build_config bc
    refused_build() { # sed, want, what
        local rc=0
        sed "$1" "$work/bc.json" >"$work/bc-x.json"
        $GT build "$work/bc-x.json" >/dev/null 2>"$work/err" || rc=$?
        [ $rc = 2 ] && grep -q -- "$2" "$work/err" && grep -q "bc-x.json" "$work/err" || fail "$3: exit $rc $(cat "$work/err")"
    }
    refused_build 's/"type": "Q2_K"/"type": "Q9_X"/' "'rungs\[4\].quantize.type' 'Q9_X' is not a type llama-quantize knows" "unknown type"
    refused_build 's/"from": "BF16", "type": "Q2_K"/"from": "Q3", "type": "Q2_K"/' "'rungs\[4\].quantize.from' 'Q3' is not one of the rungs" "from no rung"
    refused_build 's/"from": "BF16", "type": "Q2_K"/"from": "Q2_K", "type": "Q2_K"/' "is not another rung" "from itself"
    refused_build 's/"from": "BF16", "type": "Q8_0"/"from": "Q4_0", "type": "Q8_0"/; s/"from": "BF16", "type": "q4_0"/"from": "Q8_0", "type": "q4_0"/' "through a cycle" "a cycle"
    refused_build 's/"checkpoint": "[^"]*", //' "'build.checkpoint' (the Hugging Face folder) is not set" "no checkpoint"
    refused_build 's/"convert": "[^"]*convert.py",//' "'build.convert' is not set" "no converter"
    refused_build 's/"quantize": "[^"]*", "threads"/"threads"/' "'build.quantize' is not set" "no quantizer"
    refused_build 's/"convert": "bf16"}/"convert": "bf16", "quantize": {"from": "F16", "type": "Q8_0"}}/' "has both" "convert and quantize"
    refused_build 's/"convert": "f16"/"convert": "fp8"/' "'rungs\[1\].convert' 'fp8' is not one of" "convert type"
    refused_build 's/"threads": 4/"threads": 4, "speed": 2/' "unknown key 'build.speed'" "unknown key"
    refused_build 's/"type": "Q2_K"}/"type": "Q2_K", "imatrix": "'"${work//\//\\/}"'\/none.dat"}/' "'quantize.imatrix' '.*none.dat' is not a file" "missing imatrix"
    refused_build 's/"quantize": "[^"]*"/"quantize": "'"${work//\//\\/}"'\/no-such-quantize"/' "'build.quantize': cannot find" "quantizer missing"
    refused_build 's/"checkpoint": "[^"]*"/"checkpoint": "'"${work//\//\\/}"'\/nothing"/' "'build.checkpoint': '.*nothing' is not a folder" "checkpoint missing"
    refused_build 's|"model": "[^"]*Q2_K.gguf"|"model": "'"$work"'/bc/m/Q4_0.gguf"|' "rungs Q4_0 and Q2_K name the same file" "one file for two rungs"
    # a target folder that is a file, then one that cannot be written
    printf x >"$work/afile"
    refused_build 's/"model": "[^"]*Q2_K.gguf"/"model": "'"${work//\//\\/}"'\/afile\/Q2_K.gguf"/' "rung Q2_K" "folder is a file"
    mkdir -p "$work/ro"
    if mount -t tmpfs -o ro,size=64k tmpfs "$work/ro" 2>/dev/null; then
        refused_build 's/"model": "[^"]*Q2_K.gguf"/"model": "'"${work//\//\\/}"'\/ro\/Q2_K.gguf"/' "rung Q2_K: cannot write into" "read-only folder"
        umount "$work/ro"
    elif [ "$(id -u)" != 0 ]; then
        chmod 555 "$work/ro"
        refused_build 's/"model": "[^"]*Q2_K.gguf"/"model": "'"${work//\//\\/}"'\/ro\/Q2_K.gguf"/' "rung Q2_K: cannot write into" "read-only folder"
    fi
    # nothing was started or made by any of them
    [ ! -e "$work/bc/m/BF16.gguf" ] && ! [ -e "$work/bc/run/build.json" ] || fail "a refused config made something"
    # a flag the command does not take
    local rc=0; $GT build "$work/bc.json" --jobs 0 >/dev/null 2>&1 || rc=$?
    [ $rc = 2 ] || fail "--jobs 0: exit $rc"
    rc=0; $GT build "$work/bc.json" --only NOPE >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "NOPE: no such rung" "$work/err" || fail "--only NOPE: $rc $(cat "$work/err")"
}

case_disk() {
    local mnt=$work/tiny rc=0
    mkdir -p "$mnt"
    if ! mount -t tmpfs -o size=1m tmpfs "$mnt" 2>/dev/null; then
        echo "  skip: cannot mount a small tmpfs here (root is needed)"
        return
    fi
    build_config dk
    sed -i "s|$work/dk/m/Q2_K.gguf|$mnt/Q2_K.gguf|" "$work/dk.json"
    $GT build "$work/dk.json" --only Q2_K >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 1 ] && grep -q "Q2_K: needs about .* in $mnt .*which has .* free: not started, rather than fill the disk" "$work/err" || fail "exit $rc $(cat "$work/err")"
    [ -z "$(ls -A "$mnt")" ] || fail "wrote into the small disk: $(ls -A "$mnt")"
    [ -s "$work/dk/m/BF16.gguf" ] || fail "BF16 (on the big disk) not made"
    umount "$mnt"
}

# The estimate for a conversion comes from the checkpoint's tables (a
# folder, not a file): 4 M weights fit a 76 MiB disk as BF16 (8 MB + the
# 64 MiB slack) and do not as F32 (16 MB + slack).
case_disk_convert() {
    local mnt=$work/mid rc=0
    mkdir -p "$mnt" "$work/bigckpt"
    if ! mount -t tmpfs -o size=76m tmpfs "$mnt" 2>/dev/null; then
        echo "  skip: cannot mount a tmpfs here (root is needed)"
        return
    fi
    cp "$work/ckpt/fake-ladder.json" "$work/bigckpt/"
    /usr/bin/python3 -c 'import json, struct, sys
h = json.dumps({"w": {"dtype": "BF16", "shape": [4194304], "data_offsets": [0, 8388608]}}).encode()
h += b" " * ((8 - len(h) % 8) % 8)
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<Q", len(h)) + h + bytes(8388608))' "$work/bigckpt/model.safetensors"
    build_config dc
    sed -i "s|\"checkpoint\": \"$work/ckpt\"|\"checkpoint\": \"$work/bigckpt\"|; s|$work/dc/m/BF16.gguf|$mnt/BF16.gguf|; s|$work/dc/m/F16.gguf|$mnt/F32.gguf|; s|\"convert\": \"f16\"|\"convert\": \"f32\"|" "$work/dc.json"
    $GT build "$work/dc.json" --only BF16 --quiet 2>"$work/err" || fail "BF16 should fit: $? $(cat "$work/err")"
    rm -f "$mnt/BF16.gguf"
    $GT build "$work/dc.json" --only F16 >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 1 ] && grep -q "F16: needs about 83.9 MB in $mnt" "$work/err" || fail "F32 should not fit: $rc $(cat "$work/err")"
    umount "$mnt"
}

case_jobs() {
    local most=0 n pid
    build_config jb
    $GT build "$work/jb.json" --only BF16 --quiet || fail "BF16: $?"
    FAKE_TOOL_FAULT="*:slow" FAKE_TOOL_SLOW_MS=40 $G build "$work/jb.json" --jobs 3 --quiet 2>"$work/err" &
    pid=$!
    while kill -0 $pid 2>/dev/null; do
        n=$(pgrep -fc "$Q .*$work/jb/") || n=0
        [ "$n" -gt "$most" ] && most=$n
        sleep 0.05
    done
    wait $pid || fail "exit $? $(cat "$work/err")"
    [ "$most" -ge 2 ] || fail "quantizations never ran at once (most $most)"
    grep -q "using 1 threads" "$work/jb/run/build/Q4_0.log" || fail "threads not split: $(head -3 "$work/jb/run/build/Q4_0.log")"
    cmp -s <(grep -v F16 "$work/ref.sums") <(sums "$work/jb/m" | grep -v F16) || fail "--jobs 3 made other bytes"
}

case_only_and_stale() {
    build_config os
    mkdir -p "$work/os/m"
    printf 'half a file' >"$work/os/m/.Q4_0.gguf.graveyard-tmp.99999"
    $GT build "$work/os.json" --only Q4_0 >"$work/out" 2>&1 || fail "exit $?"
    [ "$(ls "$work/os/m" | tr '\n' ' ')" = "BF16.gguf Q4_0.gguf " ] || fail "--only Q4_0 made: $(ls "$work/os/m")"
    grep -q "removed .*graveyard-tmp.99999, left by a build that was stopped" "$work/out" || fail "stale temp: $(cat "$work/out")"
    [ "$(temps "$work/os")" = 0 ] || fail "the stale temp is still there"
}

case_tmpdir() {
    mkdir -p "$work/bigtmp"
    build_config td ", \"tmpdir\": \"$work/bigtmp\""
    $GT build "$work/td.json" --only BF16 --quiet || fail "exit $?"
    grep -q "temporary files in $work/bigtmp" "$work/td/run/build/BF16.log" || fail "TMPDIR not passed: $(cat "$work/td/run/build/BF16.log")"
}

# A tool that neither logs nor writes for build.stall_s is stopped as
# hung, its rung failed; the others are still made.
case_stall() {
    local rc=0 t0
    build_config st ', "stall_s": 2'
    t0=$(date +%s)
    FAKE_TOOL_FAULT="Q8_0:hang" $GT build "$work/st.json" >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 1 ] && grep -q "Q8_0: the tool wrote nothing for [0-9]* s: stopped as hung (build.stall_s)" "$work/err" || fail "exit $rc $(cat "$work/err")"
    [ $(($(date +%s) - t0)) -le 15 ] || fail "took $(($(date +%s) - t0)) s"
    [ ! -e "$work/st/m/Q8_0.gguf" ] && [ "$(temps "$work/st")" = 0 ] || fail "partial left"
    [ -s "$work/st/m/Q2_K.gguf" ] || fail "the others not made"
}

case_ladder_builds_first() {
    build_config lb
    $GT ladder "$work/lb.json" --quiet >/dev/null 2>"$work/err" || fail "exit $? $(cat "$work/err")"
    [ -s "$work/lb/run/rows/Q2_K.jsonl" ] && [ -s "$work/lb/run/graveyard.json" ] || fail "no rows or bury"
    cmp -s "$work/ref.sums" <(sums "$work/lb/m") || fail "other bytes"
    # the report says what the F16 cast costs beside the F16 rung
    grep -q "^\*\*F16\*\* was converted from the checkpoint. Cast to F16, its 110,656 weights (18 tensors) lose: 1 overflow (finite, now infinite), 409 underflow (non-zero, now zero), 3,942 become subnormal" "$work/lb/run/REPORT.md" || fail "REPORT.md: $(grep -A1 'F16\*\*' "$work/lb/run/REPORT.md")"
    # the run and the build agree on ladder.tsv
    [ "$(tail -n +2 "$work/lb/run/ladder.tsv" | wc -l)" = 5 ] || fail "ladder.tsv: $(cat "$work/lb/run/ladder.tsv")"
}

cases=${*:-fresh again_writes_nothing deterministic recipe_changed brought_file tool_fails garbage signals kill_random bad_configs disk disk_convert jobs only_and_stale tmpdir stall ladder_builds_first}
for c in $cases; do
    ok=1
    if declare -F "case_$c" >/dev/null; then "case_$c"; else fail "no such case"; fi
    if ! no_tools_within 5; then fail "a fake tool is still running"; pkill -KILL -f "$work/"; fi
    if [ $ok = 1 ]; then passed=$((passed + 1)); echo "ok   build $c"
    else failed=$((failed + 1)); echo "FAIL build $c"; fi
done
echo "build: $passed passed, $failed failed"
[ $failed = 0 ]
