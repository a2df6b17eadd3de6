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
    f.write("BF16\t/m/e2b-BF16.gguf\t9311305152\t9fe4\n")
    f.write("Q4_0\t/m/e2b-Q4_0.gguf\t3360161216\t2d84\n")

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
