#!/usr/bin/env python3
"""eee_check.py - graveyard export --eee's files checked against Every Eval
Ever's schemas (schemas/eee/, the version the files name), with Debian's
python3-jsonschema. Usage:

  eee_check.py OUT SCHEMA_DIR [--report report.json] [--rungs N]
               [--absent TEXT]...

Every OUT/data/**/UUID.json must validate against eval.schema.json and
every line of its samples file against instance_level_eval.schema.json;
the aggregate's detailed_evaluation_results must name its samples file
(path, sha256, rows) and each line its evaluation_id and model_id; a
line's is_correct must sum to the aggregate's right count. With
--report, each rung's right and n must equal report.json's (rungs and
side_rungs), its score and Wilson interval report.json's accuracy and
accuracy_ci95 (to report.json's 4 places). --rungs N: that many aggregates. --absent TEXT: no file
holds TEXT (a folder of this machine, a secret). Prints one line per
problem and exits 1 if any, else "eee ok: N rungs, M samples".
"""
import argparse
import glob
import hashlib
import json
import os
import sys

import jsonschema


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("schemas")
    ap.add_argument("--report")
    ap.add_argument("--rungs", type=int)
    ap.add_argument("--absent", action="append", default=[])
    a = ap.parse_args()
    agg_schema = json.load(open(os.path.join(a.schemas, "eval.schema.json")))
    inst_schema = json.load(
        open(os.path.join(a.schemas, "instance_level_eval.schema.json")))
    agg_v = jsonschema.Draft7Validator(agg_schema)
    inst_v = jsonschema.Draft7Validator(inst_schema)
    problems = []

    def bad(msg):
        problems.append(msg)

    report = {}
    if a.report:
        r = json.load(open(a.report))
        for x in r.get("rungs", []) + (r.get("side_rungs") or []):
            report[x["rung"]] = (x["right"], x["n"], x.get("accuracy"),
                                 x.get("accuracy_ci95"))
    files = sorted(glob.glob(os.path.join(a.out, "data", "**", "*.json"),
                             recursive=True))
    seen = set()
    nsamples = 0
    for f in files:
        rel = os.path.relpath(f, a.out)
        d = json.load(open(f))
        if d.get("schema_version") != agg_schema["version"]:
            bad(f"{rel}: schema_version {d.get('schema_version')!r}, "
                f"the schema is {agg_schema['version']}")
        for e in agg_v.iter_errors(d):
            bad(f"{rel}: {'/'.join(map(str, e.path))}: {e.message[:200]}")
        det = d.get("detailed_evaluation_results") or {}
        sp = os.path.join(a.out, det.get("file_path", "?"))
        if not os.path.isfile(sp):
            bad(f"{rel}: samples file {det.get('file_path')!r} not there")
            continue
        raw = open(sp, "rb").read()
        if hashlib.sha256(raw).hexdigest() != det.get("checksum"):
            bad(f"{rel}: the samples file's sha256 is not its checksum")
        lines = raw.decode("utf-8").split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        if len(lines) != det.get("total_rows"):
            bad(f"{rel}: total_rows {det.get('total_rows')}, "
                f"the file has {len(lines)}")
        right = 0
        for i, line in enumerate(lines, 1):
            try:
                s = json.loads(line)
            except ValueError as e:
                bad(f"{det['file_path']}:{i}: not JSON: {e}")
                continue
            for e in inst_v.iter_errors(s):
                bad(f"{det['file_path']}:{i}: "
                    f"{'/'.join(map(str, e.path))}: {e.message[:200]}")
            if s.get("evaluation_id") != d["evaluation_id"]:
                bad(f"{det['file_path']}:{i}: evaluation_id differs")
            if s.get("model_id") != d["model_info"]["id"]:
                bad(f"{det['file_path']}:{i}: model_id differs")
            right += bool(s.get("evaluation", {}).get("is_correct"))
        nsamples += len(lines)
        sd = d["evaluation_results"][0]["score_details"]
        rung = d["model_info"]["additional_details"].get("rung")
        seen.add(rung)
        if int(sd["details"]["right"]) != right:
            bad(f"{rel}: right {sd['details']['right']}, its samples "
                f"say {right}")
        if rung in report:
            right_n, acc, ci = report[rung][:2], report[rung][2], \
                report[rung][3]
            got = (int(sd["details"]["right"]),
                   sd["uncertainty"]["num_samples"])
            if got != right_n:
                bad(f"{rel}: {rung} right, n {got}; report.json {right_n}")
            # report.json rounds to 4 places: the same figure within that
            iv = sd["uncertainty"]["confidence_interval"]
            if acc is not None and abs(sd["score"] - acc) > 5e-4:
                bad(f"{rel}: {rung} score {sd['score']}; report.json {acc}")
            if ci is not None and (abs(iv["lower"] - ci[0]) > 5e-4 or
                                   abs(iv["upper"] - ci[1]) > 5e-4):
                bad(f"{rel}: {rung} interval {iv['lower']}, {iv['upper']}; "
                    f"report.json {ci}")
    if a.report:
        for rung in sorted(set(report) - seen):
            bad(f"rung {rung} of report.json has no record")
    if a.rungs is not None and len(files) != a.rungs:
        bad(f"{len(files)} aggregate records, not {a.rungs}")
    for text in a.absent:
        for f in glob.glob(os.path.join(a.out, "**"), recursive=True):
            if os.path.isfile(f) and text.encode() in open(f, "rb").read():
                bad(f"{os.path.relpath(f, a.out)} holds {text!r}")
    for p in problems[:20]:
        print(p)
    if problems:
        print(f"eee_check: {len(problems)} problems")
        return 1
    print(f"eee ok: {len(files)} rungs, {nsamples} samples")
    return 0


if __name__ == "__main__":
    sys.exit(main())
