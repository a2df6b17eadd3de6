#!/usr/bin/env python3
# Tests: grader/task.c
# Tests: grader/task_builtin.c
# Tests: grader/task_grade.c
# Tests: grader/rules.c
# Tests: grader/extract.c
"""Differential test of graveyard's lm-eval rules (docs/tasks.md): random
replies and references graded by graveyard's built-in tasks
lm-eval-gsm8k, lm-eval-gsm8k-cot and lm-eval-gsm8k-cot-zeroshot (through
tests/tasks/rule_driver) and by a Python transcription, written here, of
lm-eval's own code at HEAD 4e7e0d4 (not lm-eval itself):

  lm_eval/filters/extraction.py  RegexFilter.apply, per response
  lm_eval/filters/selection.py   TakeFirstFilter (one response: itself)
  lm_eval/api/metrics.py         exact_match_hf_evaluate

with the one step graveyard adds before them, documented: the reply cut
where the first of the task's stop strings begins (what a server sent the
same "until" returns). lm-eval raises IndexError for a group_select past
the matches; graveyard gives the fallback, and so does the transcription.

Usage: rule_diff.py DRIVER [--cases N] [--seed S]
Prints "rules: N passed, M failed"; the first difference is printed whole
with its inputs, so it can be replayed."""
import argparse
import json
import random
import re
import subprocess
import sys

IGNORE = [",", "\\$", "(?s).*#### ", "\\.$"]
FLEX = "(-?[$0-9.,]{2,})|(-?[0-9]+)"
TASKS = {
    "lm-eval-gsm8k": (["Question:", "</s>", "<|im_end|>"],
                      {"strict-match": ("#### (\\-?[0-9\\.\\,]+)", 0),
                       "flexible-extract": (FLEX, -1)}),
    "lm-eval-gsm8k-cot": (["Q:", "</s>", "<|im_end|>"],
                          {"strict-match": ("The answer is (\\-?[0-9\\.\\,]+).", 0),
                           "flexible-extract": (FLEX, -1)}),
    "lm-eval-gsm8k-cot-zeroshot": (["Q:", "</s>", "<|im_end|>"],
                                   {"strict-match": ("The answer is (\\-?[0-9\\.\\,]+).", 0),
                                    "flexible-extract": (FLEX, -1)}),
}


# ---- lm-eval, transcribed ------------------------------------------------
def regex_filter(resp, regex_pattern, group_select, fallback="[invalid]"):
    """RegexFilter.apply's inner filter_set, for one response."""
    regex = re.compile(regex_pattern)
    if not isinstance(resp, str):
        resp = ""
    match = regex.findall(resp)
    if match:
        try:
            match = match[group_select]
        except IndexError:  # lm-eval raises; graveyard's documented fallback
            return fallback
        if isinstance(match, tuple):
            match = [m for m in match if m]
            if match:
                match = match[0]
            else:
                match = fallback
        match = match.strip()
    else:
        match = fallback
    return match


def exact_match_hf_evaluate(predictions, references, regexes_to_ignore=None,
                            ignore_case=False, ignore_punctuation=False):
    """metrics.py's exact_match_hf_evaluate, without numpy (its string
    arrays compare as these lists do for the texts generated here)."""
    if regexes_to_ignore is not None:
        for s in regexes_to_ignore:
            predictions = [re.sub(s, "", x) for x in predictions]
            references = [re.sub(s, "", x) for x in references]
    if ignore_case:
        predictions = [x.lower() for x in predictions]
        references = [x.lower() for x in references]
    score_list = [p == r for p, r in zip(predictions, references)]
    return {"exact_match": sum(score_list) / len(score_list)}


def server_cut(text, until):
    """The server stops where the first stop string begins."""
    cut = len(text)
    for s in until:
        i = text.find(s)
        if i >= 0:
            cut = min(cut, i)
    return text[:cut]


def lm_eval(task, rule, text, ref):
    until, rules = TASKS[task]
    pattern, gs = rules[rule]
    got = regex_filter(server_cut(text, until), pattern, gs)
    em = exact_match_hf_evaluate([got], [ref], IGNORE, ignore_case=True)
    return got, em["exact_match"] == 1.0


# ---- random inputs ---------------------------------------------------------
def number(r):
    n = r.choice([r.randint(0, 9), r.randint(10, 999), r.randint(1000, 10**7)])
    s = f"{n:,}" if r.random() < 0.4 else str(n)
    if r.random() < 0.15:
        s += "." + "".join(r.choice("0123456789") for _ in range(r.randint(1, 3)))
    if r.random() < 0.15:
        s = "-" + s
    if r.random() < 0.15:
        s = "$" + s
    return s


PIECES = ["The answer is ", "#### ", "Answer: ", "Question: ", "Q: ", "A: ",
          "so ", " and ", "\n", "\n\n", ".", "...", ",", " ", "$", "-",
          "apples", "It is ", "between 3-4 days ", "</s>", "<|im_end|>",
          "x", "١٢", "ß", "İ", "\t", "..", "5.", "$-"]


def reply(r):
    parts = []
    for _ in range(r.randint(0, 14)):
        parts.append(number(r) if r.random() < 0.35 else r.choice(PIECES))
    return "".join(parts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("driver")
    ap.add_argument("--cases", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=15)
    args = ap.parse_args()
    r = random.Random(args.seed)
    cases = []
    for _ in range(args.cases):
        task = r.choice(sorted(TASKS))
        rule = r.choice(sorted(TASKS[task][1]))
        ref = number(r).lstrip("$")
        if r.random() < 0.3:  # the reply says the reference somewhere
            text = reply(r) + r.choice(["#### ", "The answer is ", " "]) + \
                ref + r.choice(["", ".", "\n", " dollars"]) + reply(r)
        else:
            text = reply(r)
        cases.append({"task": task, "rule": rule, "text": text, "ref": ref})
    p = subprocess.run([args.driver], input="".join(
        json.dumps(c) + "\n" for c in cases), capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"rules: the driver failed: {p.stderr}")
    outs = [json.loads(l) for l in p.stdout.splitlines()]
    passed = failed = 0
    for c, o in zip(cases, outs):
        want, right = lm_eval(c["task"], c["rule"], c["text"], c["ref"])
        ours = o.get("extracted") if o.get("said") else "[invalid]"
        # graveyard keeps the extracted text's first 63 bytes
        same = ("error" not in o and o["right"] == right and
                (ours == want or (len(want.encode()) >= 63 and
                                  want.encode().startswith(ours.encode()))))
        if same:
            passed += 1
        else:
            failed += 1
            if failed == 1:
                print("rules: first difference:", json.dumps(c))
                print(f"  lm-eval: {want!r} right={right}; graveyard: {o}")
    if len(outs) != len(cases):
        failed += 1
        print(f"rules: {len(outs)} answers for {len(cases)} cases")
    print(f"rules: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
