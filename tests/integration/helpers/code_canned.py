#!/usr/bin/python3
"""code_canned.py - the built-in code set's canned replies (data/code/canned.jsonl)
as fake llama-server models, and graveyard's recorded verdicts checked against
what each problem's tests said when run by hand (data/code/canned-expected.jsonl,
made by data/code/make_problems.py --expect).

  code_canned.py models PROBLEMS CANNED DIR     one fake model a kind: DIR/KIND.gguf
  code_canned.py check EXPECTED ROWS KIND [N]   each row of ROWS (a rung's rows file)
                                                against the expected verdict of KIND;
                                                N: that many rows (a --limit run)
Exits 1 naming every row that differs.
"""
import json
import sys


def load(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def models(problems, canned, out):
    probs = load(problems)
    entry = {p["task_id"]: p["entry_point"] for p in probs}
    # the fake matches a substring of the prompt: "def ENTRY(" must name
    # one problem's prompt alone, or a reply would answer another item
    for p in probs:
        key = "def %s(" % p["entry_point"]
        hits = [q["task_id"] for q in probs if key in q["prompt"]]
        if hits != [p["task_id"]]:
            sys.exit("%s: %r is in the prompts of %s" % (p["task_id"], key, hits))
    kinds = {}
    for c in load(canned):
        kinds.setdefault(c["kind"], []).append(
            {"match": "def %s(" % entry[c["task_id"]], "content": c["reply"]})
    for kind, replies in kinds.items():
        with open("%s/%s.gguf" % (out, kind), "w", encoding="utf-8") as f:
            json.dump({"fake_llama_server": 1, "decode_tps": 50.0,
                       "default": {"content": "I cannot answer that."},
                       "replies": replies}, f)
            f.write("\n")


def check(expected, rows, kind, limit):
    want = {e["task_id"]: e for e in load(expected) if e["kind"] == kind}
    got = load(rows)
    bad = []
    if len(got) != (limit or len(want)):
        bad.append("%d rows, want %d" % (len(got), limit or len(want)))
    for r in got:
        e = want.get(r["id"])
        if e is None:
            bad.append("%s: no expected verdict" % r["id"])
            continue
        mine = (r.get("exec"), r.get("exception") or "")
        theirs = (e["outcome"], e["exception"])
        if e["outcome"] in ("passed", "failed", "error"):
            mine += (r.get("tests_passed"), r.get("tests_total"))
            theirs += (e["passed"], e["total"])
        if mine != theirs:
            bad.append("%s (%s): graveyard %s, by hand %s" % (r["id"], kind, mine, theirs))
        if r.get("right") != (e["outcome"] == "passed"):
            bad.append("%s: right %s with %s" % (r["id"], r.get("right"), r.get("exec")))
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "models":
        models(sys.argv[2], sys.argv[3], sys.argv[4])
    elif len(sys.argv) in (5, 6) and sys.argv[1] == "check":
        sys.exit(check(sys.argv[2], sys.argv[3], sys.argv[4],
                       int(sys.argv[5]) if len(sys.argv) == 6 else 0))
    else:
        sys.exit(__doc__)
