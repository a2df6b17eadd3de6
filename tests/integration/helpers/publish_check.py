"""Check graveyard publish's files against report.json (tests/integration/
areas/publish.sh): model-index.yaml and eval_results.yaml parsed back by
PyYAML, the lm-eval files and CARD.md, each rung's figures the report's;
and no path of the machine in any of them.
Usage: publish_check.py REPORT_JSON PUBLISH_DIR DATASET FORBIDDEN...
Prints "publish_check: ok" or one line per mismatch and exits 1."""
import json
import os
import sys

import yaml

report_path, out, dataset = sys.argv[1:4]
forbidden = sys.argv[4:]
rep = json.load(open(report_path))
rungs = rep["rungs"] + rep["side_rungs"]
bad = []


def want(cond, msg):
    if not cond:
        bad.append(msg)


front = open(os.path.join(out, "model-index.yaml")).read()
want(front.startswith("---\n") and front.endswith("---\n"),
     "model-index.yaml: not between two --- lines")
mi = yaml.safe_load(front.strip().strip("-"))["model-index"]
results = mi[0]["results"]
model = os.environ.get("PUBLISH_MODEL")
want(model is None or mi[0]["name"] == model,
     "model-index name %r, not %r" % (mi[0]["name"], model))
want(len(results) == len(rungs), "model-index: %d results for %d rungs"
     % (len(results), len(rungs)))
er = yaml.safe_load(open(os.path.join(out, "eval_results.yaml")))
want(len(er) == len(rungs), "eval_results: %d entries" % len(er))
card = open(os.path.join(out, "CARD.md")).read()

for i, r in enumerate(rungs):
    name, acc = r["rung"], r["accuracy"]
    m = results[i]["metrics"][0]
    want(m["name"] == name and abs(m["value"] - acc) < 5e-5,
         "model-index %s: %r against accuracy %r" % (name, m, acc))
    want(results[i]["dataset"]["type"] == dataset, "model-index dataset")
    e = er[i]
    want(e["dataset"]["id"] == dataset, "eval_results %s: dataset" % name)
    want(abs(e["value"] - 100 * acc) < 0.005 + 1e-9,
         "eval_results %s: %r against %r" % (name, e["value"], 100 * acc))
    want(r["sha256"] in e["notes"] and ("rung %s," % name) in e["notes"],
         "eval_results %s: notes %r" % (name, e["notes"]))
    lm = json.load(open(os.path.join(out, "lm-eval-%s.json" % name)))
    task = next(iter(lm["results"]))
    want(abs(lm["results"][task]["acc,none"] - acc) < 5e-5 and
         task in lm["configs"] and
         lm["n-samples"][task]["effective"] == r["n"],
         "lm-eval %s: %r" % (name, lm["results"]))
    row = [ln for ln in card.splitlines() if ln.startswith("| %s |" % name)]
    want(len(row) == 1, "CARD.md: %d rows for %s" % (len(row), name))
    if row:
        cells = [c.strip() for c in row[0].strip("|").split("|")]
        want(cells[2] == "`%s`" % r["sha256"], "CARD %s sha256" % name)
        pct = "%.1f" % (100 * acc)
        want(cells[4].startswith(pct + " "), "CARD %s accuracy %r, report %s"
             % (name, cells[4], pct))
        if i > 0:
            want(cells[5] == str(r["dead"]) and cells[6] == str(r["ghosts"]),
                 "CARD %s dead/ghosts %r" % (name, cells[5:7]))
            want(r["verdict"] is None or cells[8].startswith(r["verdict"]),
                 "CARD %s verdict %r, report %r" % (name, cells[8],
                                                    r["verdict"]))

for f in sorted(os.listdir(out)):
    text = open(os.path.join(out, f), errors="replace").read()
    for s in forbidden:
        want(s not in text, "%s holds %r" % (f, s))

for b in bad:
    print("publish_check: " + b)
print("publish_check: ok" if not bad else "publish_check: %d bad" % len(bad))
sys.exit(1 if bad else 0)
