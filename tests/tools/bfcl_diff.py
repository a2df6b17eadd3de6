#!/usr/bin/env python3
# Tests: toolcall/toolcall.c
# Tests: toolcall/check.c
"""Parity of graveyard's tool-call checker (toolcall/) with BFCL's own
AST checker (docs/grading.md, "Tool calls (BFCL's AST checker)"): every
case of tests/tools/bfcl_cases.jsonl graded by tests/tools/toolcall_driver
and compared with BFCL's verdict in tests/tools/bfcl_verdicts.json (BFCL's
code run from a checkout by tests/tools/bfcl_fixture.py, its verdicts
committed).

  verdict  right == BFCL's valid, on every case but those KNOWN names
           (each explained in docs/grading.md); a KNOWN case that agrees
           fails too (the list is stale); fewer than 99 % agreeing fails
  bucket   graveyard's bucket is one of those BFCL's error type maps to
           (BUCKETS below); counted and printed, each difference named,
           never a failure (the precedence of the two differs by design)

Usage: bfcl_diff.py DRIVER [--cases FILE] [--verdicts FILE]
Prints "bfcl: N passed, M failed" and each difference whole."""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# The verdicts graveyard gives otherwise than BFCL, by design
# (docs/grading.md, "Where graveyard differs").
KNOWN = {
    "irrelevance-weather/malformed-call":
        "a call with arguments that are not JSON, where none is right: "
        "BFCL's relevance runner counts a decoding failure as no call",
    "irrelevance-weather/not-an-object":
        "a call with arguments '[]', where none is right: BFCL's "
        "is_empty_output counts a call it cannot read as no call",
}

# BFCL's error type -> the buckets it corresponds to. "wrong_count" with
# no call at all is graveyard's no_call.
BUCKETS = {
    "ast_decoder:decoder_failed": {"no_call", "leaked_call",
                                   "malformed_call"},
    "ast_decoder:decoder_wrong_output_format": {"malformed_call"},
    "simple_function_checker:wrong_func_name": {"wrong_function",
                                                "unknown_function"},
    "simple_function_checker:missing_required": {"wrong_arguments"},
    "simple_function_checker:unexpected_param": {"wrong_arguments"},
    "simple_function_checker:missing_optional": {"wrong_arguments"},
    "type_error:simple": {"wrong_type"},
    "type_error:nested": {"wrong_type"},
    "value_error:string": {"wrong_value"},
    "value_error:list/tuple": {"wrong_value"},
    "value_error:dict_key": {"wrong_value"},
    "value_error:dict_value": {"wrong_value"},
    "value_error:list_dict_count": {"wrong_value"},
    "value_error:others": {"wrong_value"},
    "dict_checker:unclear": {"wrong_value"},
    "list_dict_checker:unclear": {"wrong_value"},
    "irrelevance_error:decoder_success": {"call_not_expected"},
}


def expected_buckets(case, v):
    if v["valid"]:
        return {"right"}
    et = v["error_type"]
    if et.endswith(":wrong_count"):
        return {"wrong_count"} if case["calls"] else {"no_call"}
    if et == "parallel_function_checker_no_order:cannot_find_match":
        out = set()
        for s in v.get("sub_error_types", []):
            out |= BUCKETS.get(s, set())
        return out
    return BUCKETS.get(et, set())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("driver")
    ap.add_argument("--cases", default=os.path.join(HERE,
                                                    "bfcl_cases.jsonl"))
    ap.add_argument("--verdicts", default=os.path.join(
        HERE, "bfcl_verdicts.json"))
    a = ap.parse_args()
    with open(a.cases, encoding="utf-8") as f:
        cases = [json.loads(line) for line in f]
    with open(a.verdicts, encoding="utf-8") as f:
        bfcl = json.load(f)
    p = subprocess.run([a.driver, a.cases], capture_output=True, text=True)
    if p.returncode != 0:
        print(p.stderr, end="")
        print("bfcl: 0 passed, 1 failed")
        return 1
    ours = {}
    for line in p.stdout.splitlines():
        o = json.loads(line)
        ours[o["id"]] = o
    passed = failed = agree = bucket_agree = 0
    for case in cases:
        cid = case["id"]
        v = bfcl["verdicts"].get(cid)
        o = ours.get(cid)
        if v is None or o is None:
            print("FAIL %s: %s" % (cid, "no BFCL verdict (run "
                                   "bfcl_fixture.py)" if v is None
                                   else "no graveyard verdict"))
            failed += 1
            continue
        if "error" in o:
            print("FAIL %s: graveyard refused the item: %s" %
                  (cid, o["error"]))
            failed += 1
            continue
        same = o["right"] == v["valid"]
        agree += same
        if same and cid in KNOWN:
            print("FAIL %s: listed as a known difference, but graveyard "
                  "now agrees with BFCL (%s)" % (cid, o["bucket"]))
            failed += 1
        elif not same and cid not in KNOWN:
            print("FAIL %s: BFCL says %s (%s), graveyard %s (%s: %s)" %
                  (cid, "right" if v["valid"] else "wrong",
                   v["error_type"], "right" if o["right"] else "wrong",
                   o["bucket"], o["detail"]))
            failed += 1
        else:
            passed += 1
        if not same:
            continue
        want = expected_buckets(case, v)
        if o["bucket"] in want:
            bucket_agree += 1
        else:
            print("bucket %s: BFCL %s (%s), graveyard %s" %
                  (cid, v["error_type"], "/".join(sorted(want)),
                   o["bucket"]))
    n = len(cases)
    rate = 100.0 * agree / n if n else 0.0
    print("bfcl: verdicts agree on %d of %d cases (%.1f %%), %d known "
          "differences; buckets correspond on %d of %d agreeing (%.1f %%)"
          % (agree, n, rate, len(KNOWN), bucket_agree, agree,
             100.0 * bucket_agree / agree if agree else 0.0))
    if n < 300 or rate < 99.0:
        print("FAIL: %d cases, %.1f %% agreeing (at least 300 and 99 %%)"
              % (n, rate))
        failed += 1
    print("bfcl: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
