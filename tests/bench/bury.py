#!/usr/bin/env python3
"""The baseline for `make bench`: the same bury as `graveyard bury`, in
plain Python with the json module, as the study's graveyard.py did it.

usage: bury.py RUNDIR REF RUNG...   (prints one JSON line per rung and
the summary line, with the fields the benchmark compares)"""
import json
import re
import statistics
import sys

NUM = re.compile(r"[ \t*_]*([+-]?)(?:(?:\$|\u00a3|\u20ac|\u00a5|\u20b9)[ \t]*)?"
                 r"(\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.(\d+))?")


def canonical(sign, whole, frac):
    whole = whole.replace(",", "").lstrip("0") or "0"
    frac = (frac or "").rstrip("0")
    s = whole + ("." + frac if frac else "")
    return "-" + s if sign == "-" and s != "0" else s


def extract(text):
    if not text:
        return None
    i = text.lower().rfind("answer:")
    if i < 0:
        return None
    m = NUM.match(text, i + 7)
    return canonical(*m.groups()) if m else None


def reference(ref):
    m = NUM.match(ref.strip().lstrip("$"))
    return canonical(*m.groups())


def load(rundir, rung):
    rows = {}
    with open(f"{rundir}/rows/{rung}.jsonl", encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            r = json.loads(line)
            said = extract(r.get("content"))
            right = (r.get("error") is None and said is not None
                     and said == reference(str(r["reference"])))
            rows[r["id"]] = (right, said, r)
    return rows


def main():
    rundir, names = sys.argv[1], sys.argv[2:]
    rungs = [load(rundir, n) for n in names]
    ref = rungs[0]
    first_deaths = {n: 0 for n in names[1:]}
    tombstones = 0
    ghost_ids = set()
    dead = [0] * len(names)
    ghosts = [0] * len(names)
    changed = [0] * len(names)
    for qid, (rright, rsaid, _) in ref.items():
        died = None
        for i in range(1, len(names)):
            right, said, _ = rungs[i][qid]
            if said != rsaid:
                changed[i] += 1
            if rright and not right:
                dead[i] += 1
                if died is None:
                    died = i
            elif not rright and right:
                ghosts[i] += 1
                ghost_ids.add(qid)
        if died is not None:
            tombstones += 1
            first_deaths[names[died]] += 1
    for i, name in enumerate(names):
        rows = rungs[i].values()
        tps = [r["decode_tps"] for _, _, r in rows
               if r.get("decode_tps") is not None]
        toks = [r["completion_tokens"] for _, _, r in rows
                if r.get("completion_tokens") is not None]
        print(json.dumps({
            "rung": name, "n": len(rungs[i]),
            "right": sum(1 for r, _, _ in rows if r),
            "errors": sum(1 for _, _, r in rows if r.get("error")),
            "truncated": sum(1 for _, _, r in rows if r.get("truncated")
                             or r.get("finish_reason") == "length"),
            "median_decode_tps": round(statistics.median(tps), 1)
            if tps else None,
            "mean_tokens": round(sum(toks) / len(toks), 1) if toks else None,
            "dead": dead[i], "ghosts": ghosts[i],
            "answer_changed": changed[i]}))
    print(json.dumps({"first_deaths_by_rung": first_deaths,
                      "tombstones": tombstones, "ghosts": len(ghost_ids)}))


if __name__ == "__main__":
    main()
