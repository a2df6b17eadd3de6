#!/usr/bin/env python3
# Tests: grader/ruler.c
# Tests: grader/task.c
"""Parity of graveyard's RULER rules with lm-eval's scorers
(docs/longctx.md, docs/tasks.md "RULER's scorers"): every canned reply of
tests/tasks/ruler_cases.jsonl (hand-written hostile shapes) and its
variants (upper-cased, case-swapped, lower-cased, buried at the end of a
long reply) graded by the built-in task `ruler` through
tests/tasks/rule_driver and by the Python below, copied from
lm-eval-harness's lm_eval/tasks/ruler/common_utils.py at commit
3e9e457afaa4a3950c3ae0cfb5215c0ac2cc41c9 (postprocess_pred,
string_match_all, string_match_part) and NVIDIA/RULER's
scripts/eval/synthetic/constants.py (its string_match_part, max over the
references). Asserted on every case, with no exception:

  ruler-all  extracted "k/n" == lm-eval's string_match_all score;
             right == (that score is 1.0)
  ruler-part extracted "k/n" == lm-eval's string_match_part score (for
             one reply the same share); right == (that score > 0) ==
             (NVIDIA's string_match_part score is 100)
  both       said == (the post-processed reply is not empty)

Usage: ruler_diff.py DRIVER [--cases FILE]
Prints "ruler: N passed, M failed" and each difference whole."""
import argparse
import json
import os
import re
import subprocess
import sys


# ---- lm-eval, common_utils.py at 3e9e457a, copied ------------------------
def postprocess_pred(prediction: list[str]) -> list[str]:
    res = []
    for predict_str in prediction:
        predict_str = predict_str.strip()

        # Remove all non-printable characters
        np_pattern = re.compile(r"[\x00-\x1f]")
        predict_str = np_pattern.sub("\n", predict_str).strip()
        res.append(predict_str)

    return res


def string_match_all(preds: list[str], refs: list[list[str]]) -> float:
    score = sum(
        [
            sum([1.0 if r.lower() in pred.lower() else 0.0 for r in ref]) / len(ref)
            for pred, ref in zip(preds, refs)
        ]
    ) / len(preds)
    return score


def string_match_part(preds: list[str], refs: list[list[str]]) -> float:
    score = max(
        [
            sum([1.0 if r.lower() in pred.lower() else 0.0 for r in ref]) / len(ref)
            for pred, ref in zip(preds, refs)
        ]
    ) / len(preds)
    return score


# ---- NVIDIA/RULER, scripts/eval/synthetic/constants.py ---------------------
def nvidia_string_match_part(preds, refs):
    score = sum([max([1.0 if r.lower() in pred.lower() else 0.0 for r in ref])
                 for pred, ref in zip(preds, refs)]) / len(preds) * 100
    return round(score, 2)


# ---- the cases ---------------------------------------------------------------
FILLER = ("The quiet harbor carried the lantern near the station. " * 400)


def variants(case):
    """The canned case and its variants, each (why, text, answers)."""
    text, answers, why = case["text"], case["answers"], case["why"]
    if case.get("long"):
        answers = ["ab" * 512]  # 1,024 bytes: the cap on one answer
        yield why + " (1024 bytes)", FILLER + answers[0], answers
        yield why + " (cut by one)", FILLER + answers[0][:-1], answers
        return
    yield why, text, answers
    yield why + " [upper]", text.upper(), answers
    yield why + " [swapcase]", text.swapcase(), answers
    yield why + " [lower]", text.lower(), answers
    yield why + " [at the end of 22 KB]", FILLER + text, answers


def expected(text, answers):
    pred = postprocess_pred([text])
    all_ = string_match_all(pred, [answers])
    part = string_match_part(pred, [answers])
    nv = nvidia_string_match_part(pred, [answers])
    found = sum(1 for r in answers if r.lower() in pred[0].lower())
    return {"said": len(pred[0]) > 0, "all": all_, "part": part,
            "nvidia_part": nv, "share": "%d/%d" % (found, len(answers)),
            "found": found, "n": len(answers)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("driver")
    ap.add_argument("--cases", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "ruler_cases.jsonl"))
    args = ap.parse_args()
    cases = []
    with open(args.cases, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.strip():
                for v in variants(json.loads(line)):
                    cases.append((n,) + v)
    if len(cases) < 200:
        sys.exit("ruler: %d cases, fewer than 200" % len(cases))
    lines = []
    for _, _, text, answers in cases:
        for rule in ("ruler-all", "ruler-part"):
            lines.append(json.dumps({"task": "ruler", "rule": rule,
                                     "text": text,
                                     "ref": "\n".join(answers)}))
    out = subprocess.run([args.driver], input="\n".join(lines) + "\n",
                         capture_output=True, text=True, check=True)
    got = [json.loads(x) for x in out.stdout.splitlines()]
    if len(got) != len(lines):
        sys.exit("ruler: %d answers from the driver for %d lines"
                 % (len(got), len(lines)))
    passed = failed = 0
    for i, (line, why, text, answers) in enumerate(cases):
        e = expected(text, answers)
        a, p = got[2 * i], got[2 * i + 1]
        # lm-eval's numbers, the share graveyard keeps as "k/n"
        k_over_n = e["found"] / e["n"] if e["n"] else 0.0
        problems = []
        if "error" in a or "error" in p:
            problems.append("driver error %r %r" % (a, p))
        else:
            if k_over_n != e["all"] or a["extracted"] != e["share"]:
                problems.append("ruler-all extracted %r, lm-eval's score %r"
                                % (a["extracted"], e["all"]))
            if a["right"] != (e["all"] == 1.0):
                problems.append("ruler-all right %r, lm-eval's score %r"
                                % (a["right"], e["all"]))
            if p["extracted"] != e["share"] or k_over_n != e["part"]:
                problems.append("ruler-part extracted %r, lm-eval's score %r"
                                % (p["extracted"], e["part"]))
            if p["right"] != (e["part"] > 0) or \
                    p["right"] != (e["nvidia_part"] == 100.0):
                problems.append("ruler-part right %r, lm-eval's %r, "
                                "NVIDIA's %r" % (p["right"], e["part"],
                                                 e["nvidia_part"]))
            if a["said"] != e["said"] or p["said"] != e["said"]:
                problems.append("said %r/%r, post-processed reply %r"
                                % (a["said"], p["said"], e["said"]))
        if problems:
            failed += 1
            print("ruler: case at line %d (%s): %s\n  text %r\n  answers %r"
                  % (line, why, "; ".join(problems), text[-200:], answers))
        else:
            passed += 1
    print("ruler: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
