# code (issue 38, the items): the built-in code problems (data/code) found
# by name from any folder, as the tool-call set is, with the task their
# items ask for. The reader itself (HumanEval's and MBPP's lines, the
# split, the reference, the refusals) is unit-tested
# (tests/unit/test_input_codeitem.c).
# Sourced by tests/integration/cases.sh (lib.sh's helpers).

# `graveyard init --questions data/code/problems.jsonl` from another folder
# writes the shipped file's path and the code task into the config.
# Tests: orchestrator/cmd/cmd_init.c
case_code_builtin_set() {
    local m=$work/cdini
    init_folder cdini || { fail "the fake tools did not make the folder"; return; }
    (cd "$work" && $GT init "$m" --llama "$FAKE" --out "$work/cdini.json" \
        --questions data/code/problems.jsonl >/dev/null 2>"$work/err") ||
        { fail "init --questions data/code/problems.jsonl: exit $? $(cat "$work/err")"; return; }
    timeout -k 5 30 /usr/bin/python3 - "$work/cdini.json" "$ROOT" <<'PY' || fail "the config: $(cat "$work/cdini.json")"
import json, sys
c = json.load(open(sys.argv[1]))
assert c["questions"] == sys.argv[2] + "/data/code/problems.jsonl", c["questions"]
assert c.get("task") == "code", c.get("task")
PY
}
area_cases="$area_cases code_builtin_set"
