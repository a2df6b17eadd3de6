#!/usr/bin/python3
"""Check a tool-item ladder's rows against what the fake was scripted to
stream (tests/integration/areas/toolcall.sh): for each rung of CONFIG and
each question, the rule the fake answered it by (its model file's first
"replies" entry whose "match" is in the question, else "default"), and
the row: every id once; tool_calls the scripted calls in the order of
their index, each name and arguments' text equal byte for byte (the text
"repeat" times over); the content; finish_reason "tool_calls" when a call
was streamed, else "stop"; the reference the item's possible answers as
compact JSON. A rule with "expect_error" (a key the fake ignores) wants an
error row of that kind instead, its tool_calls null.
Usage: toolcall_rows.py CONFIG [RUNG...]; prints each problem, exit 1."""
import json
import sys

cfg = json.load(open(sys.argv[1]))
only = sys.argv[2:]
items = [json.loads(l) for l in open(cfg["questions"]) if l.strip()]
problems = []


def rule_for(model, text):
    for r in model.get("replies", []):
        if r.get("match") and r["match"] in text:
            return r
    return model.get("default", {})


for rung in cfg["rungs"]:
    if only and rung["name"] not in only:
        continue
    model = json.load(open(rung["model"]))
    path = f'{cfg["run_dir"]}/rows/{rung["name"]}.jsonl'
    rows = [json.loads(l) for l in open(path, "rb")]
    ids = [r["id"] for r in rows]
    if sorted(ids) != sorted(q["id"] for q in items):
        problems.append(f"{path}: ids {ids}, want each of the file's once")
    byid = {r["id"]: r for r in rows}
    for q in items:
        row, rule = byid.get(q["id"]), rule_for(model, q["question"])
        where = f'{rung["name"]} {q["id"]}'
        if row is None:
            continue
        ref = json.dumps(q["possible"], separators=(",", ":"),
                         ensure_ascii=False)
        if row["reference"] != ref:
            problems.append(f"{where}: reference {row['reference']!r}, want {ref!r}")
        if "expect_error" in rule:
            if row["error_kind"] != rule["expect_error"] or row["tool_calls"] is not None:
                problems.append(f"{where}: error_kind {row['error_kind']!r} "
                                f"tool_calls {str(row['tool_calls'])[:80]!r}, want "
                                f"{rule['expect_error']!r} and null")
            continue
        calls = rule.get("tool_calls", [])
        order = sorted(range(len(calls)), key=lambda i: calls[i].get("index", i))
        want = [{"name": calls[i]["name"],
                 "arguments": calls[i]["arguments"] * calls[i].get("repeat", 1)}
                for i in order]
        if row.get("tool_calls") != want:
            problems.append(f"{where}: tool_calls {row.get('tool_calls')!r}, want {want!r}")
        if row["content"] != (rule.get("content") or None):
            problems.append(f"{where}: content {row['content']!r}, want {rule.get('content')!r}")
        finish = "tool_calls" if calls else "stop"
        if row["finish_reason"] != finish or row["error"] is not None:
            problems.append(f"{where}: finish_reason {row['finish_reason']!r} "
                            f"error {row['error']!r}, want {finish!r} and no error")
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
