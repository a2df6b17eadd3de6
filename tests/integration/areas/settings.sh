# shellcheck shell=bash
# Issue 28, ladders of settings: rungs that share one file and differ by
# their server arguments, their environment or their server binary. The
# settings ladder runs on the fake server (which takes -ctk/-ctv, -fa on
# and -md and logs them); the manifest pins each rung's args, env and own
# build, so a resume with any of them changed is refused. Sourced by
# tests/integration/cases.sh.
#
# Tests: orchestrator/input/config_rungs.c
# Tests: orchestrator/server/launch.c
# Tests: rundir/manifest_rec.c
# Tests: rundir/differs.c
# Tests: report/md_differs.c

# settings_config NAME [EXTRA_RUNG_JSON] -> $work/NAME.json: the file
# "good" five times (plain, KV q8_0 with an env, KV q4_0, flash attention,
# a draft model), plus a rung on its own build ($work/s-fork, which says
# another --version), and EXTRA_RUNG_JSON's rungs
settings_config() {
    local name=$1 extra=${2:-}
    cat >"$work/s-fork" <<SH
#!/bin/sh
[ "\$1" = --version ] && { echo "version: 2 (f0f0f0f0)" >&2; exit 0; }
exec "$FAKE" "\$@"
SH
    chmod +x "$work/s-fork"
    cat >"$work/$name.json" <<JSON
{"name": "$name", "questions": "$work/q.jsonl", "run_dir": "$work/$name",
 "reference": "G",
 "rungs": [{"name": "G", "model": "$work/good.gguf"},
  {"name": "G-kv8", "model": "$work/good.gguf", "server_args": ["-ctk", "q8_0", "-ctv", "q8_0"],
   "env": {"GGML_SETTING": "kv8"}},
  {"name": "G-kv4", "model": "$work/good.gguf", "server_args": ["-ctk", "q4_0", "-ctv", "q4_0"]},
  {"name": "G-fa", "model": "$work/good.gguf", "server_args": ["-fa", "on"]},
  {"name": "G-draft", "model": "$work/good.gguf", "server_args": ["-md", "$work/drift.gguf", "--draft-max", "4"]},
  {"name": "G-fork", "model": "$work/good.gguf", "binary": "$work/s-fork",
   "version": "version: 2 (f0f0f0f0)"}$extra],
 "server": {"binary": "$FAKE", "version": "version: 1 (fa4e0001)", "args": ["-fa", "off"],
            "env": {"GGML_BASE": "1"}},
 "gpus": ["0", "1"]}
JSON
}

# The ladder runs, each server given its own settings; the manifest pins
# them; every rung's file is hashed once (one sha256.cache line).
case_settings_ladder() {
    local rc=0 d=$work/sl
    settings_config sl
    $GT ladder "$work/sl.json" --quiet >"$work/out" 2>"$work/err" || rc=$?
    [ $rc = 0 ] || { fail "ladder: exit $rc $(tail -3 "$work/err")"; return; }
    grep -q -- "-fa off -ctk q8_0 -ctv q8_0$" "$d/logs/G-kv8.server.log" ||
        fail "G-kv8's server args: $(grep 'fake: args' "$d/logs/G-kv8.server.log")"
    grep -q -- "-fa off -fa on$" "$d/logs/G-fa.server.log" || fail "G-fa's server args"
    grep -q -- "-md $work/drift.gguf --draft-max 4$" "$d/logs/G-draft.server.log" || fail "G-draft's server args"
    [ "$(grep -c . "$d/sha256.cache")" = 1 ] || fail "the shared file hashed more than once: $(cat "$d/sha256.cache")"
    /usr/bin/python3 - "$d/manifest.json" <<'PY' || fail "the manifest does not pin the settings"
import json, sys
m = json.load(open(sys.argv[1]))
r = m["rungs"]
assert m["server"]["version"] == "version: 1 (fa4e0001)", m["server"]
assert r["G-kv8"]["server_args"] == ["-fa", "off", "-ctk", "q8_0", "-ctv", "q8_0"], r["G-kv8"]
assert r["G-kv8"]["server_env"]["GGML_SETTING"] == "kv8" and r["G-kv8"]["server_env"]["GGML_BASE"] == "1", r["G-kv8"]
assert "GGML_SETTING" not in r["G"]["server_env"], r["G"]
assert r["G-fork"]["server_version"] == "version: 2 (f0f0f0f0)", r["G-fork"]
assert "server_version" not in r["G"], r["G"]
assert len({x["sha256"] for x in r.values()}) == 1
PY
}

# A resume with a rung's arg, env or build changed is refused (exit 2,
# the key named), as a changed file is; the rows stay as they were.
case_settings_resume_refused() {
    local rc d=$work/sr
    settings_config sr
    $GT ladder "$work/sr.json" --quiet >/dev/null 2>"$work/err" || { fail "first night: $(tail -2 "$work/err")"; return; }
    cp "$d/rows/G-kv8.jsonl" "$work/kv8.rows"
    sed 's/"-ctk", "q8_0", "-ctv", "q8_0"/"-ctk", "q8_0", "-ctv", "f16"/' "$work/sr.json" >"$work/sr-arg.json"
    rc=0; $GT run --config "$work/sr-arg.json" --rung G-kv8 --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "rungs.G-kv8.server_args differs from the run folder's manifest" "$work/err" ||
        fail "a changed arg: exit $rc $(cat "$work/err")"
    sed 's/"GGML_SETTING": "kv8"/"GGML_SETTING": "kv4"/' "$work/sr.json" >"$work/sr-env.json"
    rc=0; $GT run --config "$work/sr-env.json" --rung G-kv8 --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "rungs.G-kv8.server_env differs" "$work/err" ||
        fail "a changed env: exit $rc $(cat "$work/err")"
    cmp -s "$d/rows/G-kv8.jsonl" "$work/kv8.rows" || fail "the refused resumes touched the rows"
    # another build under the same rung: its pin first, then the manifest
    sed 's/echo "version: 2 (f0f0f0f0)"/echo "version: 3 (0e0e0e0e)"/' "$work/s-fork" >"$work/s-fork3"
    chmod +x "$work/s-fork3"
    sed "s|\"binary\": \"$work/s-fork\"|\"binary\": \"$work/s-fork3\"|" "$work/sr.json" >"$work/sr-bin.json"
    rc=0; $GT run --config "$work/sr-bin.json" --rung G-fork --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "rung 'G-fork': its version is 'version: 2 (f0f0f0f0)' but '$work/s-fork3' says 'version: 3 (0e0e0e0e)'" "$work/err" ||
        fail "a build against its pin: exit $rc $(cat "$work/err")"
    sed -e "s|\"binary\": \"$work/s-fork\"|\"binary\": \"$work/s-fork3\"|" \
        -e 's/"version": "version: 2 (f0f0f0f0)"/"version": "version: 3 (0e0e0e0e)"/' "$work/sr.json" >"$work/sr-bin.json"
    rc=0; $GT run --config "$work/sr-bin.json" --rung G-fork --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "rungs.G-fork.server_version differs" "$work/err" ||
        fail "another build: exit $rc $(cat "$work/err")"
    # the same settings resume: nothing left to run, exit 0
    rc=0; $GT run --config "$work/sr.json" --rung G-kv8 --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 0 ] || fail "the same settings: exit $rc $(cat "$work/err")"
}

area_cases="$area_cases settings_ladder settings_resume_refused"

# The report of a ladder of settings: a "What differs" column (file,
# settings, env, build), "same file" for the bytes, and the speculative
# rung's answers against its rung without the draft: zero differ, as
# greedy decoding must; a plain ladder's report has none of it.
case_settings_report() {
    local d=$work/sp
    settings_config sp
    $GT ladder "$work/sp.json" --quiet >/dev/null 2>"$work/err" || { fail "ladder: $(tail -2 "$work/err")"; return; }
    grep -q "^| Rung | What differs | % of G bytes | Right |" "$d/REPORT.md" || fail "no What differs column: $(grep '^| Rung' "$d/REPORT.md" | head -1)"
    grep -q "^| G | reference | 100.0 |" "$d/REPORT.md" || fail "the reference's row"
    grep -q "^| G-kv8 | settings -ctk q8_0 -ctv q8_0; env GGML_SETTING=kv8 | same file |" "$d/REPORT.md" ||
        fail "G-kv8's row: $(grep '^| G-kv8' "$d/REPORT.md" | head -1)"
    grep -q "^| G-fork | build version: 2 (f0f0f0f0) | same file |" "$d/REPORT.md" ||
        fail "G-fork's row: $(grep '^| G-fork' "$d/REPORT.md" | head -1)"
    grep -q "^| G-draft | G | 4 | 0 | — |$" "$d/REPORT.md" ||
        fail "the speculative line: $(grep -A4 '## Speculative' "$d/REPORT.md")"
    grep -q "leaves out the 5 rungs on G's own file" "$d/REPORT.md" || fail "no note under the picture"
    /usr/bin/python3 - "$d/report.json" <<'PY' || fail "report.json"
import json, sys
r = json.load(open(sys.argv[1]))
rungs = {x["rung"]: x for x in r["rungs"]}
assert rungs["G-fa"]["what_differs"] == "settings -fa on" and rungs["G-fa"]["same_file"], rungs["G-fa"]
assert rungs["G-fa"]["pct_reference_bytes"] is None
assert r["speculative"] == [{"rung": "G-draft", "without_draft": "G", "n": 4, "differ": 0,
                             "extracted_differ": 0, "first_differing": None}], r["speculative"]
PY
    grep -q "G-draft" "$d/REPORT.html" && grep -q "Speculative decoding" "$d/REPORT.html" || fail "the page has no speculative table"
    # a plain ladder: nothing of this
    cat >"$work/plainl.json" <<JSON
{"name": "plainl", "questions": "$work/q.jsonl", "run_dir": "$work/plainl",
 "rungs": [{"name": "R1", "model": "$work/good.gguf"}, {"name": "R2", "model": "$work/drift.gguf"}],
 "server": {"binary": "$FAKE", "args": ["-fa", "on"]}, "gpus": ["0"]}
JSON
    $GT ladder "$work/plainl.json" --quiet >/dev/null 2>&1 || fail "plain ladder"
    grep -q "What differs\|same file\|Speculative" "$work/plainl/REPORT.md" && fail "a plain ladder's report changed"
    grep -q "what_differs\|speculative" "$work/plainl/report.json" && fail "a plain ladder's report.json changed"
    true
}

# The fault switch: a draft model that changes an answer (the fake under
# FAKE_DRAFT_DIFFERS) is counted and its first question named.
case_settings_spec_fault() {
    local d=$work/sf
    settings_config sf
    FAKE_DRAFT_DIFFERS=pears $GT ladder "$work/sf.json" --quiet >/dev/null 2>"$work/err" || { fail "ladder: $(tail -2 "$work/err")"; return; }
    grep -q "fake: draft changed this reply" "$d/logs/G-draft.server.log" || fail "the fault switch did nothing"
    grep -q "^| G-draft | G | 4 | 1 | \*\*pears\*\* |$" "$d/REPORT.md" ||
        fail "the speculative line: $(grep -A4 '## Speculative' "$d/REPORT.md")"
    grep -q '"differ": 1,' "$d/report.json" || fail "report.json's count"
}

area_cases="$area_cases settings_report settings_spec_fault"
