#!/usr/bin/env python3
"""Write the golden tests' run folders (run once by hand; the output is
committed). Each row is spelled out here so a reader can check every
expected count in ../cases by hand: see the comments."""
import json, os

Q = [("test-687", "13"), ("test-2", "70000"), ("test-1166", "2,350"),
     ("test-564", "240"), ("test-93", "18"), ("test-147", "5"),
     ("test-194", "64"), ("test-358", "12")]


def row(qid, ref, content, reasoning=None, finish="stop", tokens=200,
        tps=40.0, error=None, truncated=None):
    if truncated is None:
        truncated = finish == "length"
    return {"id": qid, "reference": ref, "content": content,
            "reasoning_content": reasoning, "finish_reason": finish,
            "truncated": truncated, "completion_tokens": tokens,
            "decode_tps": tps, "error": error, "extracted": None,
            "right": None}


def ans(x, work="Let me work it out.\n"):
    return f"{work}Answer: {x}"


LOOP = "\n".join(["Then we add the apples again."] * 6)

rungs = {
    # BF16: 7 of 8 right; test-1166 says 1,000
    "BF16": [ans(13), ans("70,000"), ans("1,000"), ans(240), ans(18),
             ans(5), ans(64), ans(12)],
    # Q8_0: test-564 dies (says 3); test-1166 is a ghost
    "Q8_0": [ans(13), ans(70000), ans("2,350"), ans(3), ans(18), ans(5),
             ans(64), ans(12)],
    # Q4_0: test-2 says 120,000; test-687 is cut off with no answer;
    # test-93 is an HTTP 500; test-564 rises again; test-1166 a ghost
    "Q4_0": [("cut", "Twins and triplets..."), ans("120,000"),
             "**Answer:** $2,350", ans(240), ("err", None), ans(5), ans(64),
             ans(12)],
    # Q2_K: collapse. Loops, cut off, thinking text with thinking off,
    # an empty content with the right answer in the thinking block
    "Q2_K": [("loop", None), ("loop", None), ("loop", None),
             ("loop", None), ("loop", None), ("empty", "Answer: 5"),
             ("think", ans(64)), ("loopright", None)],
    # QAT_Q4_0, a side rung: test-2 dies (says 60,000)
    "QAT_Q4_0": [ans(13), ans("60,000"), ans("1,000"), ans(240), ans(18),
                 ans(5), ans(64), ans(12)],
}

TPS = {"BF16": 40.0, "Q8_0": 64.3, "Q4_0": 93.6, "Q2_K": 74.0,
       "QAT_Q4_0": 87.8}


def rows_for(rung, spec):
    out = []
    for i, ((qid, ref), s) in enumerate(zip(Q, spec)):
        tps = TPS[rung] + i * 0.1
        tokens = 100 + 10 * i
        if isinstance(s, str):
            out.append(row(qid, ref, s, tokens=tokens, tps=tps))
        elif s[0] == "cut":
            out.append(row(qid, ref, s[1], finish="length", tokens=1024,
                           tps=tps))
        elif s[0] == "err":
            out.append(row(qid, ref, None, finish=None, tokens=None,
                           tps=None, error="HTTP 500: the model produced "
                           "output that does not match the expected format"))
        elif s[0] == "loop":
            out.append(row(qid, ref, LOOP, finish="length", tokens=1024,
                           tps=tps))
        elif s[0] == "loopright":
            out.append(row(qid, ref, "\n".join([ans(12, "")] * 5),
                           finish="length", tokens=1024, tps=tps))
        elif s[0] == "empty":
            out.append(row(qid, ref, "", reasoning=s[1], tokens=tokens,
                           tps=tps))
        elif s[0] == "think":
            out.append(row(qid, ref, s[1], reasoning="The user wants 64.",
                           tokens=tokens, tps=tps))
    return out


def write(folder, rung, rows, torn=None):
    os.makedirs(f"{folder}/rows", exist_ok=True)
    with open(f"{folder}/rows/{rung}.jsonl", "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
        if torn:
            f.write(torn)


for rung, spec in rungs.items():
    write("ladder", rung, rows_for(rung, spec))

# a second run: Q4_0 identical but for the words of test-147's reply,
# Q8_0 identical but test-564 now right
again = rows_for("Q4_0", rungs["Q4_0"])
again[5]["content"] = ans(5, "Five, I think.\n")
write("ladder-again", "Q4_0", again)
again = rows_for("Q8_0", rungs["Q8_0"])
again[3]["content"] = ans(240)
write("ladder-again", "Q8_0", again)
# a short run of Q4_0: the first 3 questions only (--limit 3)
write("ladder-short", "Q4_0", rows_for("Q4_0", rungs["Q4_0"])[:3])

# a ladder whose Q4_0 stopped 2 questions short, with .done and ladder.tsv
write("partial", "BF16", rows_for("BF16", rungs["BF16"]))
write("partial", "Q4_0", rows_for("Q4_0", rungs["Q4_0"])[:6])
with open("partial/rows/BF16.done", "w") as f:
    f.write(json.dumps({"rung": "BF16", "n": 8, "bytes": 9311305152,
                        "gpu_mib_loaded": 4671, "gpu_mib_before": 0}) + "\n")
with open("partial/ladder.tsv", "w") as f:
    f.write("rung\tfile\tbytes\tsha256\n")
    # sha256 not known (an empty field)
    f.write("BF16\t/m/e2b-BF16.gguf\t9311305152\t\n")
    f.write("Q4_0\t/m/e2b-Q4_0.gguf\t3360161216\t\n")

# a ladder whose requests carried a grammar (checked by the runner:
# violations), with the canary's verdict before it. BF16 held to it on
# all 8; Q4_0 broke it on test-1166 ("**Answer:** $2,350", graded right
# all the same) and test-687 (cut off), and test-93's error row was not
# checked (violations null): 7 checked, 2 did not hold.
for rung in ("BF16", "Q4_0"):
    rs = rows_for(rung, rungs[rung])
    for r in rs:
        r["constrained"] = "grammar"
        r["violations"] = None if r["error"] else 0
        r["violation"] = None
    if rung == "Q4_0":
        rs[0]["violations"] = 1
        rs[0]["violation"] = "the last line is not \"Answer: <number>\""
        rs[2]["violations"] = 1
        rs[2]["violation"] = "the last line is not \"Answer: <number>\""
    write("constrained", rung, rs)
os.makedirs("constrained/canary", exist_ok=True)
with open("constrained/canary/canary.json", "w") as f:
    f.write(json.dumps({
        "rung": "BF16", "model": "/m/e2b-BF16.gguf",
        "rows": "runs/t4/rows/BF16.jsonl", "rows_sha256": "ab" * 32,
        "questions": 20, "max_changed": 2, "compared": 20, "missing": 0,
        "changed": 1, "changed_right": 1, "right_trusted": 17,
        "right_now": 16, "same_text": 18, "changed_ids": ["test-564"],
        "passed": True}))

# bad inputs
bf16 = rows_for("BF16", rungs["BF16"])
write("bad", "BF16", bf16)
lines = [json.dumps(r) for r in bf16]
os.makedirs("bad/rows", exist_ok=True)
with open("bad/rows/MALFORMED.jsonl", "w") as f:
    f.write("\n".join(lines[:3] + ['{"id": "test-93", "reference": '] +
                      lines[4:]) + "\n")
noid = dict(bf16[2]); del noid["id"]
with open("bad/rows/NOID.jsonl", "w") as f:
    f.write("\n".join(lines[:2] + [json.dumps(noid)] + lines[3:]) + "\n")
with open("bad/rows/DUP.jsonl", "w") as f:
    f.write("\n".join(lines[:5] + [lines[1]] + lines[5:]) + "\n")
with open("bad/rows/TORN.jsonl", "w") as f:
    f.write("\n".join(lines[:7]) + "\n" + lines[7][:40])

# ---- run folders for report, compare and think -------------------------
# t4/: the ladder above as graveyard ladder leaves it: ladder.json,
# manifest.json, ladder.tsv, a .done per rung, and repeat/ (a second run
# of Q4_0 and Q8_0, as ladder-again). Counts, by hand from `rungs`:
#   BF16 7 right (test-1166 says 1,000)
#   Q8_0 7 right, dead {564}, ghosts {1166}
#   Q4_0 5 right, dead {687 cut off, 2, 93 error}, ghosts {1166}
#   Q2_K 2 right (194, 358), dead {687, 2, 564, 93, 147}, no ghost
#   tombstones: 564@Q8_0 (right again at Q4_0), 687, 2, 93 @Q4_0, 147@Q2_K
SHA = {"BF16": "9fe40af9a72302151a5abc28a5057c5fe335eb80145e795ba745085fc73a2ad6",
       "Q8_0": "6b0301104c89a43c3bec5bae4b14d744f6000bc21e00e46e887fbbfe024de38a",
       "Q4_0": "2d84758474be87d0a74edfa98efbeb602484e26f2e5fa8695fd9641ad323c7b2",
       "Q2_K": "65850f1a31efed2013ed148adc5dc937e973a8e79fd55cdba31edd53369fddb2",
       "QAT_Q4_0": "fa401b55" + "0" * 56}
BYTES = {"BF16": 9311305152, "Q8_0": 4967497152, "Q4_0": 3360161216,
         "Q2_K": 2989088192, "QAT_Q4_0": 3349516256}
MIB = {"BF16": 4671, "Q8_0": 2580, "Q4_0": 1639, "Q2_K": 1287,
       "QAT_Q4_0": 1629}


def run_folder(folder, specs, gpu, extra_mib=0, sha=SHA, think=False,
               name="golden ladder", build="version: 11699 (4f8a2a1c)"):
    chain = [r for r in specs if r != "QAT_Q4_0"]
    side = [r for r in specs if r == "QAT_Q4_0"]
    for rung, spec in specs.items():
        rows = rows_for(rung, spec)
        if think:  # thinking on: twice the tokens, 0.8 of the speed
            for r in rows:
                if r["completion_tokens"] is not None:
                    r["completion_tokens"] *= 2
                if r["decode_tps"] is not None:
                    r["decode_tps"] = round(r["decode_tps"] * 0.8, 2)
                r["reasoning_content"] = "Let me think."
        write(folder, rung, rows)
        with open(f"{folder}/rows/{rung}.done", "w") as f:
            f.write(json.dumps({"rung": rung, "n": len(rows),
                                "bytes": BYTES[rung],
                                "gpu_mib_before": 0,
                                "gpu_mib_loaded": MIB[rung] + extra_mib,
                                "gpu_name": gpu}) + "\n")
    with open(f"{folder}/ladder.tsv", "w") as f:
        f.write("rung\tfile\tbytes\tsha256\n")
        for rung in specs:
            f.write(f"{rung}\t/m/e2b-{rung}.gguf\t{BYTES[rung]}\t{sha[rung]}\n")
    with open(f"{folder}/ladder.json", "w") as f:
        json.dump({"name": name, "reference": "BF16", "rungs": chain,
                   "side_rungs": side, "thinking": think}, f, indent=2)
    with open(f"{folder}/manifest.json", "w") as f:
        json.dump({"questions": {"path": "../shared/data/gsm8k/heldout-250.jsonl",
                                 "sha256": "5e1c" + "0" * 60},
                   "prompt": "Solve: {question}",
                   "request": {"temperature": 0, "seed": 0,
                               "cache_prompt": False,
                               "max_tokens": 4096 if think else 1024,
                               "enable_thinking": think},
                   "server": {"version": build},
                   "graveyard": "0.1.0"}, f, indent=2)


run_folder("t4", rungs, "Tesla T4", name="golden ladder on a T4")
write("t4/repeat", "Q4_0", [json.loads(l) for l in
                            open("ladder-again/rows/Q4_0.jsonl")])
write("t4/repeat", "Q8_0", [json.loads(l) for l in
                            open("ladder-again/rows/Q8_0.jsonl")])
# and BF16 again, its noise floor: test-1166 now says 2,350 (right), so
# the reference grades 1 question differently on its own
again = rows_for("BF16", rungs["BF16"])
again[2]["content"] = ans("2,350")
write("t4/repeat", "BF16", again)

# l4/: the same files on a second GPU. Against its own BF16:
#   BF16 6 right (687 says 17, 1166 says 1,000)
#   Q8_0 7 right (1166 wrong): ghosts {687}, no dead
#   Q4_0 6 right (687 cut off, 2 says 120,000): dead {2}, ghosts {1166}
#   Q2_K as on the T4: dead {2, 564, 93, 147}
# T4 against L4, graded differently: BF16 {687}, Q8_0 {564, 1166},
# Q4_0 {93}, Q2_K none. Lost on both: Q8_0 0, Q4_0 {2}, Q2_K 4.
# Tombstones T4 {564@Q8_0, 687@Q4_0, 2@Q4_0, 93@Q4_0, 147@Q2_K},
# L4 {2@Q4_0, 564@Q2_K, 93@Q2_K, 147@Q2_K}: die on some 5, on both 4,
# first at the same rung 2 (test-2, test-147); on one only: test-687 (T4).
# At BF16: right on both 6, wrong on both 1 (test-1166).
l4 = dict(rungs)
l4["BF16"] = [ans(17), ans(70000), ans("1,000"), ans(240), ans(18), ans(5),
              ans(64), ans(12)]
l4["Q8_0"] = [ans(13), ans(70000), ans("1,000"), ans(240), ans(18), ans(5),
              ans(64), ans(12)]
l4["Q4_0"] = [("cut", "Twins and triplets..."), ans("120,000"),
              ans("2,350"), ans(240), ans(18), ans(5), ans(64), ans(12)]
TPS.update({"BF16": 50.1, "Q8_0": 83.0, "Q4_0": 125.6, "Q2_K": 139.5,
            "QAT_Q4_0": 125.7})
run_folder("l4", l4, "NVIDIA L4", extra_mib=101, name="golden ladder on an L4")
# l4-other/: the L4 run, but its Q4_0 file is not the T4's
other = dict(SHA)
other["Q4_0"] = "0" * 64
run_folder("l4-other", l4, "NVIDIA L4", extra_mib=101, sha=other)
# l4-build/: the L4 run, made with another llama.cpp build
run_folder("l4-build", l4, "NVIDIA L4", extra_mib=101,
           build="version: 11983 (0c5e9d1b)")
# l4-norung/: the L4 run without its Q4_0 rows
run_folder("l4-norung", l4, "NVIDIA L4", extra_mib=101)
os.remove("l4-norung/rows/Q4_0.jsonl")
# t4-fewer/: the T4 ladder on the first 6 questions only
few = {r: s[:6] for r, s in rungs.items()}
run_folder("t4-fewer", few, "Tesla T4")

# t4-think/: BF16, Q8_0 and Q4_0 with thinking on, against BF16 thinking
# on (7 right: test-2 says 7,000):
#   BF16 right in both passes 6 (off misses 1166, on misses test-2)
#   Q8_0 on 7 right, dead {564} (dead in both), ghosts {2}
#   Q4_0 on 7 right (test-2 wrong, not dead: BF16 on misses it too);
#        off dead {687 cut off, 2, 93}: 1 cut off, right with thinking on
TPS.update({"BF16": 40.0, "Q8_0": 64.3, "Q4_0": 93.6, "Q2_K": 74.0,
            "QAT_Q4_0": 87.8})
think = {
    "BF16": [ans(13), ans("7,000"), ans("2,350"), ans(240), ans(18), ans(5),
             ans(64), ans(12)],
    "Q8_0": [ans(13), ans(70000), ans("2,350"), ans(3), ans(18), ans(5),
             ans(64), ans(12)],
    "Q4_0": [ans(13), ans("120,000"), ans("2,350"), ans(240), ans(18),
             ans(5), ans(64), ans(12)],
}
run_folder("t4-think", think, "Tesla T4", think=True,
           name="golden ladder on a T4, thinking on")

# ---- tasks (docs/tasks.md) ------------------------------------------------
# lm2/: a ladder asked lm-eval's gsm8k (task lm-eval-gsm8k), graded by its
# two rules. strict-match reads "#### N", flexible-extract the last number
# (the task's stop "Question:" cuts what follows it). By hand:
#   BF16 strict 7 (test-1166 says 1,000), flexible 7: no question differs
#   Q4_0 says "The answer is N." without "####" on test-2, test-93 and
#        test-147: strict 4 (wrong there, and on test-1166), flexible 7
#        (only test-1166): 3 questions graded differently
#   Q2_K "#### 13" on test-687, then prose whose last number is wrong or
#        missing; test-564 writes "#### 240" and then a "Question:" line
#        with 5 in it: strict 2 (687, 564), flexible 2 (687, 564: the
#        stop cuts the 5): none differs
LM_TASK = {
    "name": "lm-eval-gsm8k", "reference": "number",
    "prompt": "Question: {question}\nAnswer:",
    "stop": ["Question:", "</s>", "<|im_end|>"], "max_tokens": 256,
    "rules": [
        {"name": "strict-match", "kind": "regex",
         "pattern": "#### (\\-?[0-9\\.\\,]+)", "group_select": 0,
         "fallback": "[invalid]",
         "ignore": [",", "\\$", "(?s).*#### ", "\\.$"], "ignore_case": True},
        {"name": "flexible-extract", "kind": "regex",
         "pattern": "(-?[$0-9.,]{2,})|(-?[0-9]+)", "group_select": -1,
         "fallback": "[invalid]",
         "ignore": [",", "\\$", "(?s).*#### ", "\\.$"], "ignore_case": True},
    ]}


def hashes(x):
    return f"So that is it.\n#### {x}"


def answer_is(x):
    return f"So that is it. The answer is {x}."


lm2 = {
    "BF16": [hashes(13), hashes("70,000"), hashes("1,000"), hashes(240),
             hashes(18), hashes(5), hashes(64), hashes(12)],
    "Q4_0": [hashes(13), answer_is("70,000"), hashes("1,000"), hashes(240),
             answer_is(18), answer_is(5), hashes(64), hashes(12)],
    "Q2_K": [hashes(13), "It is 7 or so", "about 2", hashes(240) +
             "\n\nQuestion: and 5?", "no idea", "3 then", "65 maybe",
             "11"],
}


def task_folder(folder, specs, task, refs=None):
    for rung, spec in specs.items():
        rows = []
        for i, ((qid, ref), s) in enumerate(zip(Q, spec)):
            if refs is not None:
                qid, ref = refs[i]
            rows.append(row(qid, ref, s, tokens=100 + 10 * i,
                            tps=TPS.get(rung, 50.0) + i * 0.1))
        write(folder, rung, rows)
    with open(f"{folder}/ladder.json", "w") as f:
        json.dump({"name": f"golden {task['name']} ladder",
                   "reference": list(specs)[0], "rungs": list(specs),
                   "side_rungs": [], "thinking": False}, f, indent=2)
    with open(f"{folder}/manifest.json", "w") as f:
        json.dump({"questions": {"path": "q.jsonl", "sha256": "7a5c" + "0" * 60},
                   "prompt": task["prompt"], "task": task,
                   "request": {"temperature": 0, "seed": 0,
                               "cache_prompt": False,
                               "max_tokens": task.get("max_tokens", 1024),
                               "enable_thinking": False},
                   "server": {"version": "version: 11699 (4f8a2a1c)"},
                   "graveyard": "0.1.0"}, f, indent=2)


task_folder("lm2", lm2, LM_TASK)

# choice/: multiple choice (task choice), references are letters. By hand:
#   BF16 right on all 6 but mc-4 (says B); Q4_0 loses mc-2 (says "Answer:
#   a total"... no letter) and mc-5 (D), and wins mc-4 (a ghost)
CHOICE_TASK = {
    "name": "choice", "reference": "letter",
    "prompt": "Answer the following multiple-choice question. Think it "
              "through step by step. At the end, write the letter of the "
              "right option on its own line as \"Answer: <letter>\", with "
              "the letter only.\n\n{question}\n\n{choices}",
    "stop": [], "rules": [{"name": "choice", "kind": "choice"}]}
MC = [("mc-1", "C"), ("mc-2", "A"), ("mc-3", "B"), ("mc-4", "D"),
      ("mc-5", "A"), ("mc-6", "B")]
choice = {
    "BF16": ["Answer: C", "Answer: A", "**Answer:** (B)", "Answer: B",
             "Answer: A", "Answer: B"],
    "Q4_0": ["Answer: C", "Answer: a total of two", "Answer: [b]",
             "Answer: D", "Answer: D", "Answer: B"],
}
task_folder("choice", choice, CHOICE_TASK, refs=MC)
