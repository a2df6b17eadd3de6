#!/usr/bin/python3
"""A run folder's rungs split into another folder, as if that machine had
run only those: merge_split.py RUNDIR OUT RUNG... copies RUNDIR to OUT
keeping the named rungs' rows (rows/, repeat/rows/), their manifest
entries, ladder.json's chain and side rungs and ladder.tsv's lines; the
reference is the first rung kept. Used by tests/integration/areas/merge.sh."""
import json
import os
import shutil
import sys

src, out, keep = sys.argv[1], sys.argv[2], sys.argv[3:]
shutil.copytree(src, out, symlinks=True)
for sub in ("rows", os.path.join("repeat", "rows")):
    d = os.path.join(out, sub)
    if not os.path.isdir(d):
        continue
    for f in os.listdir(d):
        if f.split(".")[0] not in keep and f.rsplit(".", 1)[0] not in keep:
            os.remove(os.path.join(d, f))
for f in ("REPORT.md", "report.json", "REPORT.html", "cover.svg", "pareto.svg"):
    if os.path.exists(os.path.join(out, f)):
        os.remove(os.path.join(out, f))
mp = os.path.join(out, "manifest.json")
m = json.load(open(mp))
m["rungs"] = {k: v for k, v in m["rungs"].items() if k in keep}
json.dump(m, open(mp, "w"), indent=2)
lp = os.path.join(out, "ladder.json")
lad = json.load(open(lp))
lad["rungs"] = [r for r in lad["rungs"] if r in keep]
lad["side_rungs"] = [r for r in lad.get("side_rungs", []) if r in keep]
lad["reference"] = (lad["rungs"] or keep)[0]
json.dump(lad, open(lp, "w"), indent=2)
tp = os.path.join(out, "ladder.tsv")
lines = open(tp).read().splitlines(True)
open(tp, "w").write("".join(lines[:1] + [l for l in lines[1:] if l.split("\t")[0] in keep]))
