# shellcheck shell=bash
# Round 4, config: what a config or the command line may tell the server
# (issue 33). Sourced by tests/integration/cases.sh.
#
# Tests: orchestrator/input/config.c
# Tests: orchestrator/input/config_check.c
# Tests: orchestrator/input/config_json.c
# Tests: orchestrator/input/config_rungs.c
# Tests: orchestrator/base/owned.c
# Tests: orchestrator/base/hash.c
# Tests: orchestrator/server/launch.c
# Tests: orchestrator/server/runopts.c

# A ladder config $work/NAME.json (two rungs of the good model on GPUs 0
# and 1, run folder $work/NAME): a refused config makes no folder.
r4c_config() {
    ladder_config "$1" 2 '"0", "1"' good
}
r4c_nothing_started() { # NAME WHAT
    [ -e "$work/$1" ] && fail "$2: a run folder was made"
    servers_left && fail "$1: a server was started"
    true
}

# A command-line run that must be refused before anything starts: exit
# 2, want in the message, no folder. Usage: r4c_run_refused WANT WHAT ARGS...
r4c_run_refused() {
    local want=$1 what=$2 rc=0; shift 2
    timeout -k 5 60 "$G" run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$work/r4c-run" --llama "$FAKE" \
        --limit 1 --quiet "$@" >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -qF -- "$want" "$work/err" || fail "$what: exit $rc $(cat "$work/err")"
    [ -e "$work/r4c-run" ] && { fail "$what: a run folder was made"; rm -rf "$work/r4c-run"; }
    true
}

# -m FILE in a rung's server_args made the server load FILE while the
# manifest, ladder.tsv, REPORT.md and the bundle named the rung's model
# (a Q8_0 rung answered as the Q4_0 file); --api-key made every answer a
# 401 row in a rung that "succeeded". Every model-choosing flag, --api-key
# and their variables are refused wherever the server's arguments or
# environment come from: the config's server.args, server.argv and
# server.env, a rung's server_args and env, and run's --server-arg,
# --server-argv and --server-env.
case_config_model_flags() {
    r4c_config r4m
    refused_config r4m "0,/\"model\": \"[^\"]*\"/s||&, \"server_args\": [\"-m\", \"$work/drift.gguf\"]|" \
        "r4m-x.json: 'rungs\[0\].server_args': '-m' would make the server load other weights than the rung's model" "rung -m"
    refused_config r4m "0,/\"model\": \"[^\"]*\"/s||&, \"server_args\": [\"--model=$work/drift.gguf\"]|" \
        "'--model=$work/drift.gguf' would make the server load other weights" "rung --model="
    refused_config r4m 's|"binary": "[^"]*"|&, "args": ["-hf", "org/repo:Q8_0"]|' \
        "'server.args': '-hf' would make" "server.args -hf"
    refused_config r4m 's|"binary": "[^"]*"|&, "args": ["--hf_file", "x.gguf"]|' \
        "'--hf_file' would make" "server.args --hf_file"
    refused_config r4m "s|\"binary\": \"[^\"]*\"|&, \"argv\": [\"-m\", \"{model}\", \"--port\", \"{port}\", \"-m\", \"$work/drift.gguf\"]|" \
        "'server.argv'\\[4\\]: '-m' must be followed by \"{model}\"" "server.argv second -m"
    refused_config r4m "s|\"binary\": \"[^\"]*\"|&, \"env\": {\"LLAMA_ARG_MODEL\": \"$work/drift.gguf\"}|" \
        "'server.env': 'LLAMA_ARG_MODEL' would make" "server.env LLAMA_ARG_MODEL"
    refused_config r4m '0,/"model": "[^"]*"/s||&, "env": {"LLAMA_ARG_HF_REPO": "org/repo"}|' \
        "'rungs\[0\].env': 'LLAMA_ARG_HF_REPO' would make" "rung env LLAMA_ARG_HF_REPO"
    refused_config r4m 's|"binary": "[^"]*"|&, "args": ["--api-key", "k"]|' \
        "'server.args': '--api-key' would make the server refuse graveyard's requests (every answer a 401 row)" "server.args --api-key"
    refused_config r4m '0,/"model": "[^"]*"/s||&, "server_args": ["--api-key-file", "/k"]|' \
        "'--api-key-file' would make the server refuse" "rung --api-key-file"
    refused_config r4m '0,/"model": "[^"]*"/s||&, "env": {"LLAMA_API_KEY": "k"}|' \
        "'LLAMA_API_KEY' would make the server refuse" "rung env LLAMA_API_KEY"
    r4c_nothing_started r4m "config"
    r4c_run_refused "--server-arg: '-m' would make the server load other weights" "--server-arg -m" \
        --server-arg -m --server-arg "$work/drift.gguf"
    r4c_run_refused "--server-arg: '--model=$work/drift.gguf' would make" "--server-arg --model=" \
        --server-arg "--model=$work/drift.gguf"
    r4c_run_refused "--server-arg: '-hfr' would make" "--server-arg -hfr" --server-arg -hfr --server-arg org/repo
    r4c_run_refused "--server-argv[4]: '-m' must be followed by \"{model}\"" "--server-argv second -m" \
        --server-argv "[\"-m\", \"{model}\", \"--port\", \"{port}\", \"-m\", \"$work/drift.gguf\"]"
    r4c_run_refused "--server-argv[4]: '-mu' would make" "--server-argv -mu" \
        --server-argv '["-m", "{model}", "--port", "{port}", "-mu", "https://example.com/x.gguf"]'
    r4c_run_refused "--server-env: 'LLAMA_ARG_MODEL' would make" "--server-env LLAMA_ARG_MODEL" \
        --server-env "{\"LLAMA_ARG_MODEL\": \"$work/drift.gguf\"}"
    r4c_run_refused "--server-arg: '--api_key' would make the server refuse" "--server-arg --api_key" \
        --server-arg --api_key --server-arg k
    r4c_run_refused "--server-env: 'LLAMA_API_KEY' would make" "--server-env LLAMA_API_KEY" \
        --server-env '{"LLAMA_API_KEY": "k"}'
    # what only looks like them still runs: the rung's model, one slot
    $GT run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$work/r4c-ok" --llama "$FAKE" --limit 1 --quiet \
        --server-argv '["--model", "{model}", "--port", "{port}", "-a", "m"]' >/dev/null 2>"$work/err" ||
        fail "--model {model}: exit $? $(cat "$work/err")"
    true
}

# CUDA_VISIBLE_DEVICES (and its kin) in a rung's env or server.env put
# two rungs on GPU 0 at once, with no memory check and no "(shared)"
# mark; -dev chose devices past the scheduler. The variables are allowed
# only as "{gpu}" (the rung's GPU under that backend's name); the device
# flags are refused. Each rung then runs on the GPU the scheduler gave.
case_config_gpu_env() {
    local d=$work/r4g
    r4c_config r4g
    refused_config r4g '0,/"model": "[^"]*"/s||&, "env": {"CUDA_VISIBLE_DEVICES": "0"}|' \
        "'rungs\[0\].env': 'CUDA_VISIBLE_DEVICES' may only be \"{gpu}\", the rung's GPU" "rung env CUDA_VISIBLE_DEVICES"
    refused_config r4g 's|"binary": "[^"]*"|&, "env": {"HIP_VISIBLE_DEVICES": "1{gpu}"}|' \
        "'server.env': 'HIP_VISIBLE_DEVICES' may only be \"{gpu}\"" "server.env HIP_VISIBLE_DEVICES"
    refused_config r4g 's|"binary": "[^"]*"|&, "env": {"GGML_VK_VISIBLE_DEVICES": "0"}|' \
        "'GGML_VK_VISIBLE_DEVICES' may only be" "server.env GGML_VK_VISIBLE_DEVICES"
    refused_config r4g '0,/"model": "[^"]*"/s||&, "env": {"ROCR_VISIBLE_DEVICES": "0"}|' \
        "'ROCR_VISIBLE_DEVICES' may only be" "rung env ROCR_VISIBLE_DEVICES"
    refused_config r4g '0,/"model": "[^"]*"/s||&, "server_args": ["-dev", "CUDA1"]|' \
        "'-dev' picks the server's devices past the scheduler" "rung -dev"
    refused_config r4g 's|"binary": "[^"]*"|&, "env": {"LLAMA_ARG_DEVICE": "CUDA1"}|' \
        "'LLAMA_ARG_DEVICE' picks the server's devices" "server.env LLAMA_ARG_DEVICE"
    r4c_nothing_started r4g "config"
    r4c_run_refused "--server-env: 'CUDA_VISIBLE_DEVICES' may only be \"{gpu}\"" "--server-env CUDA_VISIBLE_DEVICES" \
        --gpu 3 --server-env '{"CUDA_VISIBLE_DEVICES": "0"}'
    r4c_run_refused "--server-arg: '--device' picks" "--server-arg --device" --server-arg --device --server-arg CUDA1
    # "{gpu}" is the scheduler's GPU: each rung on its own
    sed 's|"binary": "[^"]*"|&, "env": {"CUDA_VISIBLE_DEVICES": "{gpu}"}|' "$work/r4g.json" >"$work/r4g-g.json"
    $GT ladder "$work/r4g-g.json" --quiet >/dev/null 2>"$work/err" || fail "{gpu}: exit $? $(cat "$work/err")"
    [ "$(grep -h 'fake: CUDA_VISIBLE_DEVICES=' "$d"/logs/R1.server.log "$d"/logs/R2.server.log | sort | tr '\n' ' ')" = \
        "fake: CUDA_VISIBLE_DEVICES=0 fake: CUDA_VISIBLE_DEVICES=1 " ] ||
        fail "{gpu}: $(grep -h 'fake: CUDA' "$d"/logs/*.server.log)"
    true
}

# docs/run.md says LLAMA_ARG_N_PARALLEL in the environment counts as
# -np, yet a rung's env was never counted: a template without -np and a
# rung's LLAMA_ARG_N_PARALLEL=4 gave the server 4 slots with batching
# off. And a rung's env handed the server GRAVEYARD_* variables (docs:
# none). Both refused before anything starts.
case_config_env_slots() {
    r4c_config r4s
    sed -i 's|"binary": "[^"]*"|&, "argv": ["-m", "{model}", "--port", "{port}"]|' "$work/r4s.json"
    refused_config r4s '0,/"model": "[^"]*"/s||&, "env": {"LLAMA_ARG_N_PARALLEL": "4"}|' \
        "rung 'R1': the server would have 4 slots" "rung env LLAMA_ARG_N_PARALLEL"
    refused_config r4s '0,/"model": "[^"]*"/s||&, "env": {"GRAVEYARD_LADDER_PID": "1"}|' \
        "'rungs\[0\].env': 'GRAVEYARD_LADDER_PID' is graveyard's own variable" "rung env GRAVEYARD_LADDER_PID"
    refused_config r4s 's|"binary": "[^"]*"|&, "env": {"GRAVEYARD_PROGRESS_FD": "1"}|' \
        "'server.env': 'GRAVEYARD_PROGRESS_FD' is graveyard's own" "server.env GRAVEYARD_PROGRESS_FD"
    r4c_nothing_started r4s "config"
    r4c_run_refused "--server-env: 'GRAVEYARD_X' is graveyard's own variable" "--server-env GRAVEYARD_X" \
        --server-env '{"GRAVEYARD_X": "1"}'
    true
}

area_cases="$area_cases config_model_flags config_gpu_env config_env_slots"

# A script that answers --version as the fake does and then is the fake:
# another binary with the same --version line, as every tarball build's
# "version: 0 (unknown)". Usage: r4c_wrapper PATH [VERSION-LINE]
r4c_wrapper() {
    printf '#!/bin/sh\n# %s\n[ "$1" = --version ] && { echo "%s" >&2; exit 0; }\nexec %s "$@"\n' \
        "$1" "${2:-version: 1 (fa4e0001)}" "$FAKE" >"$1"
    chmod +x "$1"
}

# A rung's build was known only by its --version line: a resume with
# --llama pointed at another binary that prints the same line was
# accepted, and the rows mixed two builds. Its sha256 is recorded beside
# the line; a resume with other bytes is refused naming the rung, both
# hashes and the binary (--force goes on, and says so in "forced"), and
# a rung's own binary the same.
case_config_binary_sha() {
    local d=$work/r4b rc a b
    r4c_wrapper "$work/r4b-wrap"
    a=$(sha256sum "$FAKE" | cut -d' ' -f1); b=$(sha256sum "$work/r4b-wrap" | cut -d' ' -f1)
    $GT run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --limit 1 --quiet >/dev/null 2>"$work/err" ||
        fail "first run: exit $? $(cat "$work/err")"
    rc=0; $GT run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$d" --llama "$work/r4b-wrap" --limit 2 --quiet \
        >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "graveyard run Q4_0: manifest.server_binary differs" "$work/err" && grep -q "$a" "$work/err" && grep -q "$b" "$work/err" &&
        grep -qF "$work/r4b-wrap" "$work/err" || fail "another binary, the same --version: exit $rc $(cat "$work/err")"
    [ "$(rows "$d" Q4_0)" = 1 ] || fail "rows were added: $(rows "$d" Q4_0)"
    rc=0; $GT run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$d" --llama "$work/r4b-wrap" --limit 2 --quiet --force \
        >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 0 ] && grep -q '"forced"' "$d/manifest.json" || fail "--force: exit $rc $(cat "$work/err")"
    # a rung's own binary: its bytes pinned with the rung
    r4c_wrapper "$work/r4b-fork" "version: 2 (f0f0f0f0)"
    cat >"$work/r4b.json" <<JSON
{"name": "r4b", "questions": "$work/q.jsonl", "run_dir": "$work/r4b-l", "limit": 1,
 "rungs": [{"name": "A", "model": "$work/good.gguf"},
           {"name": "A-fork", "model": "$work/good.gguf", "binary": "$work/r4b-fork",
            "version": "version: 2 (f0f0f0f0)"}],
 "server": {"binary": "$FAKE"}}
JSON
    $GT ladder "$work/r4b.json" --quiet >/dev/null 2>"$work/err" || fail "ladder: exit $? $(cat "$work/err")"
    sed -i 's|^# .*|# rebuilt|' "$work/r4b-fork"
    sed -i 's|"limit": 1|"limit": 2|' "$work/r4b.json"
    rc=0; $GT ladder "$work/r4b.json" --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "rungs.A-fork.server_binary differs" "$work/err" && grep -qF "$work/r4b-fork" "$work/err" ||
        fail "a rung's own binary rebuilt: exit $rc $(cat "$work/err")"
    true
}

# A rung's binary of the wrong version was found only when that rung
# started, after the rungs before it had run for hours. Every rung's
# binary answers --version, and matches its "version", before the first
# rung starts: nothing runs.
case_config_rung_binary_first() {
    local d=$work/r4v rc
    r4c_wrapper "$work/r4v-fork" "version: 2 (f0f0f0f0)"
    cat >"$work/r4v.json" <<JSON
{"name": "r4v", "questions": "$work/q.jsonl", "run_dir": "$d", "limit": 1,
 "rungs": [{"name": "A", "model": "$work/good.gguf"}, {"name": "B", "model": "$work/good.gguf"},
           {"name": "C", "model": "$work/good.gguf", "binary": "$work/r4v-fork",
            "version": "version: 3 (0e0e0e0e)"}],
 "server": {"binary": "$FAKE"}}
JSON
    rc=0; $GT ladder "$work/r4v.json" --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "rung 'C': its version is 'version: 3 (0e0e0e0e)' but '$work/r4v-fork' says 'version: 2 (f0f0f0f0)'" "$work/err" ||
        fail "wrong version on rung 3: exit $rc $(cat "$work/err")"
    [ -e "$d/logs" ] && fail "a server ran: $(ls "$d/logs")"
    [ -e "$d/rows" ] && fail "rows were written: $(ls "$d/rows")"
    # and a rung binary that does not run at all
    sed -i "s|\"binary\": \"$work/r4v-fork\"|\"binary\": \"$work/r4v-none\"|" "$work/r4v.json"
    rc=0; $GT ladder "$work/r4v.json" --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -qF "$work/r4v-none" "$work/err" || fail "no binary on rung 3: exit $rc $(cat "$work/err")"
    [ -e "$d/logs" ] && fail "a server ran: $(ls "$d/logs")"
    true
}

area_cases="$area_cases config_binary_sha config_rung_binary_first"

# --margin 0x10 was read as 16 (strtod takes hexadecimal), " 2" was
# accepted while "2 " was refused, and 99.99999 was printed "±100" (four
# digits). Every number a flag takes is read by one strict parser
# (decimal digits, a '.' for a margin, no sign, space or hexadecimal,
# range checked, the flag named), and a margin is printed with the digits
# it needs.
case_config_numbers() {
    local d=$work/r4n rc v c out
    ladder_config r4n 2 '' good
    sed -i "0,/\"model\": \"[^\"]*\"/s||\"model\": \"$work/good.gguf\"|; s|\"R2\", \"model\": \"[^\"]*\"|\"R2\", \"model\": \"$work/drift.gguf\"|" "$work/r4n.json"
    $GT ladder "$work/r4n.json" --quiet >/dev/null 2>"$work/err" || fail "ladder: exit $? $(cat "$work/err")"
    for v in 0x10 ' 2' '2 ' '+2' 1e1 inf nan '' 100 0; do
        for c in report compare; do
            rc=0
            if [ $c = report ]; then $GT report "$d" --out "$work/r4n-o" --no-html --margin "$v" >/dev/null 2>"$work/err" || rc=$?
            else $GT compare "$d" "$d" --out "$work/r4n-o" --no-html --margin "$v" >/dev/null 2>"$work/err" || rc=$?; fi
            [ $rc = 2 ] && grep -qF -- "--margin wants a number of points above 0 and below 100, not '$v'" "$work/err" ||
                fail "$c --margin '$v': exit $rc $(cat "$work/err")"
        done
    done
    [ -e "$work/r4n-o" ] && fail "a refused --margin wrote $(ls "$work/r4n-o")"
    for v in ' 1' 0x2 '1 ' +1; do
        rc=0; $GT run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$work/r4n-run" --llama "$FAKE" --quiet --limit "$v" \
            >/dev/null 2>"$work/err" || rc=$?
        [ $rc = 2 ] && grep -qF -- "--limit wants a whole number from 1 to" "$work/err" || fail "run --limit '$v': exit $rc $(cat "$work/err")"
        rc=0; $GT ladder "$work/r4n.json" --per-gpu "$v" >/dev/null 2>"$work/err" || rc=$?
        [ $rc = 2 ] && grep -qF -- "--per-gpu wants" "$work/err" || fail "ladder --per-gpu '$v': exit $rc $(cat "$work/err")"
    done
    [ -e "$work/r4n-run" ] && fail "a refused --limit made a run folder"
    # a margin under 100 is never shown as 100
    $GT report "$d" --out "$work/r4n-m" --margin 99.99999 >/dev/null 2>"$work/err" || fail "report 99.99999: exit $? $(cat "$work/err")"
    $GT compare "$d" "$d" --out "$work/r4n-m" --margin 99.99999 >/dev/null 2>"$work/err" || fail "compare 99.99999: exit $? $(cat "$work/err")"
    out=$(grep -rlF '±100' "$work/r4n-m")
    [ -z "$out" ] || fail "99.99999 shown as ±100 in: $out"
    grep -qF '±99.99999 points' "$work/r4n-m/REPORT.md" || fail "REPORT.md: $(grep -o '±[0-9.]*' "$work/r4n-m/REPORT.md" | sort -u | tr '\n' ' ')"
    grep -qF '±99.99999' "$work/r4n-m/COMPARE.md" || fail "COMPARE.md: $(grep -o '±[0-9.]*' "$work/r4n-m/COMPARE.md" | sort -u | tr '\n' ' ')"
    $GT report "$d" --out "$work/r4n-2" --no-html --margin 2.5 >/dev/null 2>&1 || fail "report 2.5"
    grep -qF '±2.5 points' "$work/r4n-2/REPORT.md" || fail "2.5: $(grep -o '±[0-9.]*' "$work/r4n-2/REPORT.md" | sort -u | tr '\n' ' ')"
    true
}

area_cases="$area_cases config_numbers"

# What a config may not tell the server came through graveyard's own
# environment all the same: LLAMA_API_KEY set in the shell (the servers
# read it) made every answer a 401 error row in a rung that finished,
# and LLAMA_ARG_HF_REPO would load other weights over -m. They are not
# handed on, as GRAVEYARD_* are not.
case_config_inherited_env() {
    local d=$work/r4e
    LLAMA_API_KEY=k-from-the-shell $GT run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --quiet \
        >/dev/null 2>"$work/err" || fail "exit $? $(cat "$work/err")"
    [ "$(field "$d/rows/Q4_0.jsonl" apples right)" = true ] ||
        fail "the server asked for the shell's key: $(field "$d/rows/Q4_0.jsonl" apples error_kind) $(field "$d/rows/Q4_0.jsonl" apples error)"
    grep -q '"errors": 0' "$d/rows/Q4_0.done" || fail "error rows: $(cat "$d/rows/Q4_0.done")"
    true
}

area_cases="$area_cases config_inherited_env"

# Round 3, config: what a config or the command line may say (issue 24,
# G7, G9, G11, G18). Sourced by tests/integration/cases.sh.

# G7: a GPU named twice would be shared with none of rungs_per_gpu's
# checks; the config's "gpus" and --gpus are refused before anything runs.
case_config_gpus_twice() {
    local rc
    ladder_config gt 2 '"0", "1"' good
    refused_config gt 's|"gpus": \["0", "1"\]|"gpus": ["0", "0"]|' "'gpus' names GPU '0' twice" "gpus [0, 0]"
    refused_config gt 's|"gpus": \["0", "1"\]|"gpus": ["0,1", "1"]|' "'gpus' names GPU '1' twice" "gpus [0,1, 1]"
    rc=0; $GT ladder "$work/gt.json" --gpus 0,0 >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q -- "--gpus names GPU '0' twice" "$work/err" && grep -q '"rungs_per_gpu"' "$work/err" ||
        fail "--gpus 0,0: exit $rc $(cat "$work/err")"
    [ -e "$work/gt" ] && fail "a run folder was made"
    true
}

# G9: "run_dir": "-rd" ran the whole ladder, then bury read "-rd" as a
# flag (exit 2, no report). Refused before anything starts; "./-rd" runs.
# In $work: a relative run folder is made where the ladder runs.
case_config_run_dir_dash() {
    local rc here=$PWD
    ladder_config rdd 1 '"0"' good
    cd "$work" || return
    refused_config rdd 's|"run_dir": "[^"]*"|"run_dir": "-rd"|' "rdd-x.json: 'run_dir' '-rd' starts with '-'" "run_dir -rd"
    rc=0; $GT ladder rdd.json --run-dir -rd2 >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q -- "--run-dir '-rd2' starts with '-'" "$work/err" || fail "--run-dir -rd2: exit $rc $(cat "$work/err")"
    [ -e "$work/-rd" ] || [ -e "$work/-rd2" ] && fail "a run folder was made"
    rc=0; $GT ladder rdd-x.json --run-dir ./-rd3 --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 0 ] && [ -s "$work/-rd3/REPORT.md" ] || fail "--run-dir ./-rd3: exit $rc $(cat "$work/err")"
    cd "$here" || return
    true
}

# G11: the fork's and upstream's short -hft (--hf-token) was kept in clear
# in manifest.json; so was a secret in the config's server.argv template.
case_config_secret_flags() {
    local d=$work/hft
    $GT run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --limit 1 --quiet \
        --server-argv '["-m", "{model}", "--port", "{port}", "--hf-token", "hf_SECRET1"]' \
        --server-arg -hft --server-arg hf_SECRET2 --server-arg --hf-token --server-arg hf_SECRET3 \
        >/dev/null 2>"$work/err" || fail "exit $? $(cat "$work/err")"
    grep -q SECRET "$d/manifest.json" && fail "a secret in manifest.json: $(grep -o '"[^"]*SECRET[^"]*"' "$d/manifest.json" | tr '\n' ' ')"
    tr -d ' \n' <"$d/manifest.json" | grep -q '"-hft","<redactedsha256:' || fail "-hft's value not redacted"
    true
}

# G18: --request and "request.extra" may not set what graveyard owns
# (messages replaced every question; stream false made every row an
# error): each key refused by name, exit 2, nothing made.
case_config_request_owned() {
    local i rc
    local reqs=('{"messages": [{"role": "user", "content": "hi"}]}' '{"prompt": "hi"}'
        '{"stream": false}' '{"n": 2}' '{"max_tokens": 9}' '{"n_predict": 9}'
        '{"max_completion_tokens": 9}' '{"chat_template_kwargs": {"enable_thinking": true}}')
    local keys=(messages prompt stream n max_tokens n_predict max_completion_tokens
        chat_template_kwargs.enable_thinking)
    for i in "${!reqs[@]}"; do
        rc=0; $GT run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$work/ro" --llama "$FAKE" --limit 1 --quiet \
            --request "${reqs[$i]}" >/dev/null 2>"$work/err" || rc=$?
        [ $rc = 2 ] && grep -q -- "--request '${keys[$i]}' is graveyard's to set" "$work/err" ||
            fail "--request ${reqs[$i]}: exit $rc $(cat "$work/err")"
    done
    [ -e "$work/ro" ] && fail "a run folder was made"
    ladder_config rq 1 '"0"' good
    refused_config rq 's|"gpus"|"request": {"extra": {"stream": false}}, &|' "'request.extra.stream' is graveyard's to set" "request.extra stream"
    refused_config rq 's|"gpus"|"request": {"extra": {"messages": []}}, &|' "'request.extra.messages' is graveyard's to set" "request.extra messages"
    # sampling settings and the template's other kwargs are the user's
    $GT run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$work/ok" --llama "$FAKE" --limit 1 --quiet \
        --request '{"top_k": 1, "seed": 7, "chat_template_kwargs": {"reasoning_effort": "low"}}' \
        >/dev/null 2>"$work/err" || fail "allowed --request: exit $? $(cat "$work/err")"
    true
}

area_cases="$area_cases config_gpus_twice config_run_dir_dash config_secret_flags config_request_owned"
