#!/usr/bin/env python3
"""Write a synthetic run folder shaped like the published study's T4 ladder.

What the folder is for
----------------------
Tests of the report page (and of `graveyard report`, `compare` and the
cover) need a run folder the size and shape of a real one: ten rungs of 250
answers with realistic replies (worked arithmetic, cut-off answers, Q2_K's
loops and its text in the thinking block), identical texts where a real
greedy run gives identical texts, .done files, ladder.tsv, ladder.json,
manifest.json and a repeat/ run. Real rows cannot be committed for every
test and the GPU run cannot be repeated, so this script writes one that
`graveyard report` turns into the article's figures. Nothing here is typed
into a report: every figure is computed by graveyard from these rows.

Usage
-----
    make_study.py OUTDIR [--questions FILE] [--n N] [--gpu NAME]
                  [--variant t4|l4] [--seed S]

Default: the study's T4 ladder on the 250 questions of
data/gsm8k/heldout-250.jsonl; reference BF16; chain BF16 F16 Q8_0 Q6_K
Q5_K_M Q4_K_M Q4_0 Q3_K_M Q2_K; side rung QAT_Q4_0; repeat/ holds a second,
identical run of Q4_0 and Q8_0.

Figures of the T4 article (shared/seeds/1-t4-ladder.txt) it reproduces
exactly with 250 questions (any --seed):
  * right per rung 229 229 227 229 231 224 222 191 3, QAT_Q4_0 221;
    dead 0 1 4 4 3 9 15 42 226 (QAT 15); ghosts 0 1 2 4 5 4 8 4 0 (QAT 7);
  * first deaths F16 1, Q8_0 4, Q6_K 1, Q5_K_M 2, Q4_K_M 6, Q4_0 9,
    Q3_K_M 26, Q2_K 177 (226 tombstones); 11 ghost questions; 16 of the 23
    first deaths from F16 to Q4_0 right again lower; none below;
  * the autopsy: cut off / looped / thinking / dead / dead cut off per rung
    (F16 4,0,0,1,0 ... Q2_K 246,228,75,226,222; Q2_K empty content 63, of
    them 2 with the reference in the thinking block, dead looped 207, dead
    empty 60); BF16 cut off 4; QAT cut off 6, 2 of its deaths cut off; QAT
    and Q4_0 share 6 of their 15 dead; BF16's median tokens over the 44
    questions Q3_K_M gets wrong while cut off is 466.5;
  * test-687 (dies at F16 saying 17, right again at Q8_0 Q6_K Q5_K_M
    Q4_K_M), test-2 (dies at Q4_0 saying 120,000, never rises), test-564
    (dies at Q8_0 saying 3, right again Q6_K to Q4_0), test-1166 (BF16 says
    1,000; a ghost at Q8_0, Q6_K and Q4_0), when those ids are among the
    questions;
  * median decode tok/s per rung, mean tokens of BF16, Q4_0 and QAT_Q4_0,
    bytes and sha256 (ladder.tsv), GPU MiB after load (.done);
  * repeat: 0 mismatches at Q4_0 and Q8_0.
Made up where the article is silent: GPU MiB of F16, Q8_0 and Q6_K, the
QAT file's sha256 past "fa401b55", every text. Cut-off replies carry no
Answer line, except 5 of Q3_K_M's 49: they answer right and go on checking
until the cap (the article's "44 questions Q3_K_M got wrong while cut off").
--variant l4 (default --gpu "NVIDIA L4") writes the same ladder as the
second article (shared/seeds/2-l4-second-gpu.txt) ran it on an L4: same
files and build; right, lost and gained per rung (229 229 228 227 228 221
220 186 6, QAT 219); against the T4 folder the questions graded
differently (2 4 3 6 7 15 16 33 9) and lost on both (0 2 3 2 7 10 28 221,
QAT 10); 226 tombstones on each GPU, 222 on both, 180 first lost at the same
rung; test-687 wrong at the L4's BF16 (17) and right at Q8_0 Q6_K Q5_K_M
Q4_0; test-93 right at BF16 and lost from Q8_0 on; Q3_K_M 36 of 45 deaths
cut off; Q4_0 12 and QAT 8 cut off; Q2_K 218 looped, 71 thinking, 63
empty, test-194 an HTTP 500; L4 speeds; GPU MiB 101 above the T4's; its
repeat/ is BF16 on the first 50 questions, twice.
--n N (with --questions FILE, either {"id","question","answer"} or GSM8K's
{"question","answer": "... #### N"} with ids test-<line>): the first N
questions, the study's answer pattern tiled over them (the same proportions
and kinds of death; exact counts only at 250).

Standard library only; output is deterministic for given arguments.
"""
import argparse
import hashlib
import json
import math
import os
import random
import re
import sys
from fractions import Fraction

RUNGS = ["BF16", "F16", "Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M", "Q4_0",
         "Q3_K_M", "Q2_K", "QAT_Q4_0"]
CHAIN, SIDE = RUNGS[:9], RUNGS[9:]
BF16, F16, Q8, Q6, Q5, Q4K, Q40, Q3, Q2, QAT = range(10)
N_STUDY = 250

# ---- the files (ladder.tsv of the T4 article) ------------------------------
BYTES = [9311305152, 9311305152, 4967497152, 3845346752, 3630288320,
         3427880384, 3360161216, 3201351104, 2989088192, 3349516256]
SHA = ["9fe40af9a72302151a5abc28a5057c5fe335eb80145e795ba745085fc73a2ad6",
       "5ab927e4b24a248de319e70467fc74d4ab87347ee9d6fb3ee60b293b12198cf8",
       "6b0301104c89a43c3bec5bae4b14d744f6000bc21e00e46e887fbbfe024de38a",
       "e800e0389f48646994d8ff6d3409dbf0c13b3fc217d0647b481385da33bd3d99",
       "f6c3f4395a9d3839535d8c14ae48ab784096945cfc4485005853eede915cb4a9",
       "dd9dc465bb535989205f158d77f28f6f8348e47d8ac8870920c152b5996cbc16",
       "2d84758474be87d0a74edfa98efbeb602484e26f2e5fa8695fd9641ad323c7b2",
       "b10c1f38c93635ccee1c7f382e03f5d2f4e9516087d7d62a73ca7de0f52693ab",
       "65850f1a31efed2013ed148adc5dc937e973a8e79fd55cdba31edd53369fddb2",
       # QAT: the article gives only "fa401b55..."; the rest is made up
       "fa401b55" + hashlib.sha256(b"gemma-4-e2b-it-qat-q4_0").hexdigest()[8:]]
FILES = ["e2b-%s.gguf" % r for r in RUNGS[:9]] + ["gemma-4-e2b-it-qat-q4_0.gguf"]
BUILD = "version: 11699 (4f8a2a1c)"
PROMPT = ("Solve the following math problem step by step. At the end, write "
          "the final answer on its own line as \"Answer: <number>\", with the "
          "number only.\n\n{question}")

# ---- each GPU: speeds, memory, where the files live ------------------------
GPUS = {
    "t4": {"gpu": "Tesla T4", "dir": "/opt1/graveyard-gguf",
           "tps": [40.0, 39.6, 64.3, 70.8, 78.7, 84.1, 93.6, 74.2, 74.0, 87.8],
           # the article's where given; F16, Q8_0, Q6_K made up
           "mib": [4671, 4671, 2580, 2180, 1897, 1705, 1639, 1489, 1287,
                   1629],
           "pp_tps": 1450.0},
    "l4": {"gpu": "NVIDIA L4", "dir": "/opt/dlami/nvme/graveyard-gguf",
           "tps": [50.1, 50.0, 83.0, 98.1, 107.7, 118.7, 125.6, 111.1, 139.5,
                   125.7],
           "mib": [4772, 4772, 2681, 2281, 1998, 1806, 1740, 1590, 1388,
                   1730],
           "pp_tps": 2900.0},
}
# mean completion tokens the T4 article gives (BF16, Q4_0, QAT_Q4_0)
MEAN_TOKENS = {BF16: 391.2, Q40: 430.4, QAT: 391.9}
# share of a rung's replies that are BF16's text, where the answer is BF16's
P_SAME = {F16: 0.79, Q8: 0.79, Q6: 0.76, Q5: 0.74, Q4K: 0.71, Q40: 0.69,
          Q3: 0.50, QAT: 0.55}

# ---- the answer pattern: 250 roles --------------------------------------
# A role is one question's grade at every rung. BF16 gets 229 right (S) and
# 21 wrong (W). S: 3 survivors (right everywhere), 23 questions that first
# die between F16 and Q4_0 (dead at the rungs below), 26 that first die at
# Q3_K_M, 177 at Q2_K. W: 11 ghosts (right where listed) and 10 never right.
UP_DEAD = {
    "T687": {F16, Q40, Q3}, "A1": {Q8, Q6, Q5, Q4K, Q40, Q3},
    "T564": {Q8, Q3}, "A2": {Q8, Q6, Q3}, "A3": {Q8, Q6, Q3},
    "B1": {Q6, Q4K, Q3}, "C1": {Q5, Q4K, Q40, Q3}, "C2": {Q5, Q3},
    "D1": {Q4K, Q40, Q3}, "D2": {Q4K, Q40, Q3}, "D3": {Q4K, Q40, Q3},
    "D4": {Q4K, Q3}, "D5": {Q4K, Q3}, "D6": {Q4K, Q3},
    "T2": {Q40, Q3}, "E2": {Q40, Q3},
    "E3": {Q40}, "E4": {Q40}, "E5": {Q40}, "E6": {Q40}, "E7": {Q40},
    "E8": {Q40}, "E9": {Q40},
}
GHOST_RIGHT = {"G1": {Q8, Q6, Q40}, "G2": {Q6, Q5, Q4K, Q40, QAT},
               "G3": {F16, Q8, Q5, Q40, QAT}, "G4": {Q6, Q5, Q40, Q3, QAT},
               "G5": {Q6, Q4K, QAT}, "G6": {Q5, Q4K}, "G7": {Q5, Q40, QAT},
               "G8": {Q4K, Q40}, "G9": {Q40, Q3, QAT}, "G10": {Q40, Q3, QAT},
               "G11": {Q3}}
# QAT_Q4_0's 15 dead: 6 shared with Q4_0, 9 its own
QAT_DEAD = {"T2", "A1", "D1", "D2", "E2", "E5", "B1", "C2", "Q3F0", "Q3F1",
            "Q3F2", "Q3F3", "Q2F0", "Q2F1", "Q2F2"}
# answers cut off at 1,024 tokens (Q3_K_M and Q2_K: see cut_roles)
CUT = {BF16: "N1 N2 N3 N4", F16: "N1 N2 N3 N4",
       Q8: "N1 N2 N3 N4 N5 N6 N7 A1 A2", Q6: "N1 N2 N3 A1",
       Q5: "N1 N2 C1", Q4K: "N1 N2 N4 A1 D1 D4",
       Q40: "N1 N3 T687 A1 C1 D1 D2 E2 E3 E5",
       QAT: "N1 N2 N3 N4 Q3F0 Q3F1"}
# the questions the articles name, and the role each takes
NAMED = {"test-687": "T687", "test-2": "T2", "test-564": "T564",
         "test-1166": "G1", "test-93": "G2", "test-194": "Q2F170"}
# what they say when wrong (tag -> value)
NAMED_WRONG = {"test-687": {"w1": "17"}, "test-2": {"w1": "120,000"},
               "test-564": {"w1": "3"}, "test-1166": {"w0": "1,000"},
               "test-93": {"w0": "32.4"}}
# Q2_K's kinds of failure, over its 226 dead (the rest: see q2_kinds)
Q2_DEAD_KINDS = [("empty_stop_right", 2), ("empty_loop", 48),
                 ("empty_cut", 10), ("thought_loop", 12), ("wrong_stop", 2),
                 ("loop", 147), ("ramble", 5)]
LOOP_KINDS = {"loop", "loopright", "empty_loop", "thought_loop"}
THOUGHT_KINDS = {"empty_stop_right", "empty_loop", "empty_cut",
                 "thought_loop"}
EMPTY_KINDS = {"empty_stop_right", "empty_loop", "empty_cut"}
CUT_Q2 = {"loop", "loopright", "empty_loop", "empty_cut", "thought_loop",
          "ramble"}

# The L4 run, against the T4's pattern: at each rung the questions that
# die there on the L4 only ("dead": right on the T4), that the L4 gets
# right though the T4 lost them ("undead"), ghosts of the T4 the L4 misses
# ("unghost") and new ghosts ("ghost"). Chosen (by a search over these
# roles) so that every per-rung figure of the L4 article holds; test-687
# and test-93 follow their own story (l4_cells).
L4_FLIPS = {
    F16: {"dead": ["Q2F148"], "unghost": ["G3"], "ghost": ["G5"]},
    Q8: {"undead": ["A1", "A2"], "unghost": ["G3"]},
    Q6: {"dead": ["Q2F18", "Q3F20"], "undead": ["A2"], "unghost": ["G5"],
         "ghost": ["G11"]},
    Q5: {"dead": ["A2", "E8", "Q2F39"], "undead": ["A1"], "unghost": ["G3"],
         "ghost": ["G8"]},
    Q4K: {"dead": ["A3", "Q2F166", "Q2F26", "Q2F83", "Q3F17", "Q3F21"],
          "undead": ["A1", "D1"], "unghost": ["G8"],
          "ghost": ["G10", "G7", "N3", "N5"]},
    Q40: {"dead": ["Q2F124", "Q2F168", "Q2F44", "Q2F45", "Q2F86"],
          "undead": ["C1", "E5", "E6", "T2"], "unghost": ["G10", "G3", "G7"],
          "ghost": ["N5", "N9"]},
    Q3: {"dead": ["Q2F101", "Q2F110", "Q2F14", "Q2F141", "Q2F142", "Q2F16",
                  "Q2F28", "Q2F3", "Q2F31", "Q2F45", "Q2F47", "Q2F53",
                  "Q2F55", "Q2F62", "Q2F75", "Q2F98"],
         "undead": ["B1", "C2", "D1", "D3", "D4", "Q3F0", "Q3F1", "Q3F14",
                    "Q3F16", "Q3F2", "Q3F20", "Q3F4", "T2"],
         "unghost": ["G11", "G4", "G9"], "ghost": ["N9"]},
    Q2: {"dead": ["SURV0", "SURV1", "SURV2"],
         "undead": ["Q2F174", "Q2F175", "Q2F176", "Q3F8"],
         "ghost": ["G3", "N4"]},
    QAT: {"dead": ["A2", "Q2F4", "Q3F10", "Q3F5"],
          "undead": ["A1", "D1", "Q2F0", "Q3F0", "Q3F3"],
          "unghost": ["G3", "G7"]},
}
L4_T687_RIGHT = {Q8, Q6, Q5, Q40, QAT}
L4_G2_RIGHT = {BF16, F16}
# L4 autopsy figures the article gives (per 250 questions)
L4_CUT = {Q40: 12, QAT: 8}
L4_Q3_DEAD_CUT = 36
L4_Q2 = {"looped": 218, "thought": 71, "empty": 63}


def role_names():
    s = ["SURV0", "SURV1", "SURV2"] + list(UP_DEAD)
    s += ["Q3F%d" % i for i in range(26)] + ["Q2F%d" % i for i in range(177)]
    w = list(GHOST_RIGHT) + ["N%d" % i for i in range(1, 11)]
    return s + w


def build_roles():
    """name -> {"right": [10 bools], "cut": [10 bools], "q2": kind}."""
    roles = {}
    for n in role_names():
        if n in GHOST_RIGHT or n.startswith("N"):
            right = [r in GHOST_RIGHT.get(n, ()) for r in range(10)]
        else:
            dead = set(UP_DEAD.get(n, ()))
            if n.startswith("Q3F"):
                dead.add(Q3)
            if not n.startswith("SURV"):
                dead.add(Q2)
            if n in QAT_DEAD:
                dead.add(QAT)
            right = [r not in dead for r in range(10)]
        roles[n] = {"right": right, "cut": [False] * 10, "q2": None}
    for r, names in CUT.items():
        for n in names.split():
            roles[n]["cut"][r] = True
    # Q3_K_M: 49 cut off. 34 of its 42 dead (all but 3 upper tombstones and
    # 5 of its own first deaths), all 10 never-right questions, and 5 right
    # answers that go on checking after their Answer line.
    for n, ro in roles.items():
        if not ro["right"][0]:
            ro["cut"][Q3] = n.startswith("N")
        elif not ro["right"][Q3]:
            ro["cut"][Q3] = n not in ("T564", "T2", "A3", "Q3F0", "Q3F1",
                                      "Q3F2", "Q3F3", "Q3F4")
    for i in range(10, 15):
        roles["Q2F%d" % i]["cut"][Q3] = True   # right, then cut off
    # Q2_K: every way to fail, as the article counts them
    rng = random.Random("graveyard-q2-kinds")
    dead = [n for n, ro in roles.items() if ro["right"][0]
            and not ro["right"][Q2] and n != "Q2F170"]
    rng.shuffle(dead)
    dead.append("Q2F170")   # test-194: a plain loop on the T4
    kinds = [k for k, c in Q2_DEAD_KINDS for _ in range(c)]
    # keep "loop" last so test-194 (last) gets one
    kinds.sort(key=lambda k: k == "loop")
    for n, k in zip(dead, kinds):
        roles[n]["q2"] = k
    for n, ro in roles.items():
        if ro["right"][Q2]:
            ro["q2"] = "loopright"
        elif not ro["right"][0]:
            ro["q2"] = "empty_cut" if n in ("N8", "N9", "N10") else "loop"
        ro["cut"][Q2] = ro["q2"] in CUT_Q2
    return roles


# ---- questions --------------------------------------------------------------
def read_questions(path, n):
    out = []
    with open(path, encoding="utf-8") as f:
        for line_no, line in enumerate(f):
            if not line.strip():
                continue
            o = json.loads(line)
            ans = o["answer"]
            solution = None
            if isinstance(ans, str) and "####" in ans:
                solution, ref = ans.rsplit("####", 1)
                ref = ref.strip()
            else:
                ref = str(ans).strip()
            qid = o.get("id") or "test-%d" % line_no
            out.append({"id": str(qid), "question": o["question"], "ref": ref,
                        "solution": solution})
            if n is not None and len(out) >= n:
                break
    return out


# ---- numbers ---------------------------------------------------------------
def num(s):
    """A reference or a said value as a Fraction."""
    s = s.replace(",", "").replace("$", "").strip()
    return Fraction(s)


def fmt(x, comma=False):
    x = Fraction(x)
    if x.denominator == 1:
        v = int(x)
        return "{:,}".format(v) if comma and abs(v) >= 1000 else str(v)
    s = ("%.2f" % float(x)).rstrip("0").rstrip(".")
    return s


def canon(x):
    return fmt(Fraction(x))


ANSWER_RE = re.compile(r"[ \t*_]*([-+]?)\$?[ \t]*(\d{1,3}(?:,\d{3})+|\d+)"
                       r"(\.\d+)?")


def extract(text):
    """The grader's rule: the number after the last 'Answer:' (or None)."""
    if not text:
        return None
    low = text.lower()
    pos = len(text)
    while True:
        c = text.rfind(":", 0, pos)
        if c < 0:
            return None
        if c >= 6 and low[c - 6:c] == "answer":
            break
        pos = c
    m = ANSWER_RE.match(text, c + 1)
    if not m:
        return None
    v = Fraction(m.group(2).replace(",", "") + (m.group(3) or ""))
    return -v if m.group(1) == "-" else v


def loops(*texts):
    seen = {}
    for t in texts:
        for line in (t or "").split("\n"):
            line = line.strip()
            if line:
                seen[line] = seen.get(line, 0) + 1
                if seen[line] >= 5:
                    return True
    return False


STOP = {"and", "of", "the", "a", "an", "per", "to", "in", "for", "is",
        "are", "each", "times", "more", "less", "than", "if", "how", "what",
        "as", "at", "on", "with", "from", "by", "or", "but", "it", "he",
        "she", "they", "his", "her", "their", "that", "this", "was", "were"}
WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
         "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11,
         "twelve": 12, "twice": 2, "double": 2, "triple": 3, "half": "1/2",
         "dozen": 12, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
         "hundred": 100}
NUM_RE = re.compile(r"(?<![\w.])(\$?)(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(%?)"
                    r"|\b(" + "|".join(WORDS) + r")\b", re.I)


def question_numbers(text):
    """[(value, as written, the words after it)] in order, at most 8."""
    out = []
    for m in NUM_RE.finditer(text):
        if m.group(5):
            v = Fraction(WORDS[m.group(5).lower()])
            raw = m.group(5)
        else:
            v = Fraction(m.group(2).replace(",", "") + (m.group(3) or ""))
            raw = m.group(0)
        after = re.findall(r"[A-Za-z]+", text[m.end():m.end() + 40])[:2]
        out.append((v, raw, " ".join(after)))
        if len(out) >= 8:
            break
    return out


def sentences(text):
    return [s.strip() for s in re.split(r"(?<=[.?!])\s+", text.strip())
            if s.strip()]


def wrong_values(ref, rng):
    v = num(ref)
    cands = [v * 2, v + 10, v - 4, v * 3 / 2, v + 1, v - 1, v * 10, v + 25,
             v / 2, v - 12, v + 100, v * 4 / 5]
    out = []
    rng.shuffle(cands)
    for c in cands:
        if c != v and c >= 0 and c not in out and (
                c.denominator in (1, 2, 4, 5, 10) or v.denominator != 1):
            out.append(c)
    while len(out) < 3:
        out.append(v + 7 * (len(out) + 1))
    return [canon(x) for x in out[:3]]


# ---- replies -----------------------------------------------------------
INTROS = [
    "Here's how to solve this problem step by step:",
    "Let's break this problem down step by step.",
    "Let's solve this step by step.",
    "To solve this, we'll work through the information given one piece at "
    "a time.",
    "Here is a step-by-step solution:",
    "Let's work through the problem carefully.",
]
TITLES = ["Identify the given information", "Find the first quantity",
          "Work out the next amount", "Combine the amounts",
          "Account for the remaining part", "Calculate the total",
          "Adjust for the change", "Put the pieces together",
          "Compute the intermediate result", "Finish the calculation"]
CHECKS = [
    "Let's double-check step {i}: {res} {inv} {v} = {cur}, which matches.",
    "Check on step {i}: going backwards, {res} {inv} {v} gives {cur} again.",
    "Verifying step {i}: {res} {inv} {v} = {cur}. Good.",
]
FILLERS = [
    "Every value used here comes straight from the problem statement.",
    "The units stay consistent from one step to the next.",
    "It helps to write down each quantity before combining them.",
    "We only need the numbers that affect the final quantity.",
    "Nothing in the problem changes after this point.",
    "This matches what the question is asking for.",
    "Each step uses the result of the step before it.",
    "No other information in the problem is needed.",
    "Reading the question again confirms what is being asked.",
    "The order of the operations matters here, so we keep it as written.",
]
OPS = {"+": lambda a, b: a + b, "-": lambda a, b: a - b,
       "\u00d7": lambda a, b: a * b, "\u00f7": lambda a, b: a / b}
EXPLAIN = {"+": ["Adding {v} to {cur}:", "We add {v}:", "Together with {v}:"],
           "-": ["Taking away {v} from {cur}:", "We subtract {v}:",
                 "Removing {v}:"],
           "\u00d7": ["Multiplying {cur} by {v}:", "We multiply by {v}:",
                      "That is {v} times {cur}:"],
           "\u00f7": ["Dividing {cur} by {v}:", "We divide by {v}:",
                      "Splitting {cur} into {v} equal parts:"]}
VERBS = {"+": "and add", "-": "and subtract", "\u00d7": "and multiply by",
         "\u00f7": "and divide by"}
INVERSE = {"+": "-", "-": "+", "\u00d7": "\u00f7", "\u00f7": "\u00d7"}
SOLN_CLEAN = re.compile(r"<<[^>]*>>")


def steps_for(q, rng, target, count=None):
    """Arithmetic lines on the question's numbers, steered towards target
    and ending at it: [(text, cur, op, v, res)]."""
    nums = q["nums"]
    vals = [v for v, _, _ in nums] or [Fraction(rng.randint(2, 20))]
    if count is None:
        count = min(len(vals), rng.randint(3, 5))
    t = Fraction(target)
    cap = 4 * max([abs(t)] + [abs(v) for v in vals] + [10])
    out = []
    start = [v for v in vals if v >= 1] or vals
    cur = start[0]
    idx = vals.index(cur) + 1
    for _ in range(max(1, count - 1)):
        v = vals[idx % len(vals)] if len(vals) > 1 else Fraction(
            rng.randint(2, 9))
        idx += 1
        cands = {"+": cur + v}
        if cur - v >= 0:
            cands["-"] = cur - v
        if v not in (0, 1) and abs(cur * v) <= cap:
            cands["\u00d7"] = cur * v
        if v not in (0, 1) and (cur / v).denominator == 1:
            cands["\u00f7"] = cur / v
        if rng.random() < 0.6:
            op = min(cands, key=lambda o: abs(cands[o] - t))
        else:
            op = rng.choice(sorted(cands))
        res = cands[op]
        out.append(("%s %s %s = %s" % (fmt(cur), op, fmt(v), fmt(res)),
                    cur, op, v, res))
        cur = res
    if cur != t:
        if cur != 0 and t != 0 and (t / cur).denominator == 1 and \
                1 < t / cur <= 12:
            op, d = "\u00d7", t / cur
        elif t != 0 and (cur / t).denominator == 1 and 1 < cur / t <= 12:
            op, d = "\u00f7", cur / t
        else:
            op, d = ("+" if t > cur else "-"), abs(t - cur)
        out.append(("%s %s %s = %s" % (fmt(cur), op, fmt(d), fmt(t)),
                    cur, op, d, t))
    return out


def solution_lines(q, said):
    """GSM8K's own worked lines, the last number changed when wrong."""
    lines = [SOLN_CLEAN.sub("", l).strip()
             for l in q["solution"].strip().split("\n") if l.strip()]
    if said is not None and lines and num(q["ref"]) != Fraction(said):
        last = lines[-1]
        ms = list(re.finditer(r"\d[\d,]*(?:\.\d+)?", last))
        if ms:
            m = ms[-1]
            lines[-1] = last[:m.start()] + fmt(said) + last[m.end():]
        else:
            lines.append("That gives %s." % fmt(said))
    return lines


def heading(style, i, title, attempt=None):
    if attempt is not None:
        return "**Attempt %d, step %d: %s**" % (attempt, i, title)
    if style == 0:
        return "**Step %d: %s**" % (i, title)
    if style == 1:
        return "%d. **%s:**" % (i, title)
    return "**%s**" % title


LEADS = ["First, let's work out the starting amount.",
         "Next, we use that result.", "Now we bring in the next number.",
         "Then we take the change into account.",
         "After that, we combine what we have.",
         "Now we can finish the calculation.",
         "We keep going with the same idea.",
         "Next comes the following part of the problem.",
         "Then we work out what is left.", "Finally, we put it together."]
RESULTS = ["That gives {res}.", "So we have {res} at this point.",
           "Now we know this part is {res}.", "We carry {res} forward.",
           "This step gives us {res}."]


def working(q, rng, steps, uniq, style, start=1, attempt=None):
    """One worked block per step; no line twice (a repeat is left out)."""
    out = []
    sents = q["sents"]
    nums = q["nums"]
    i = start
    for text, cur, op, v, res in steps:
        title = TITLES[(i - 1) % len(TITLES)]
        block = [heading(style if attempt is None else 0, i, title, attempt)]
        if style == 2 and attempt is None and title in uniq:
            block = []
        if cur is None and attempt is None:
            block.append("   " + LEADS[(i - 1) % len(LEADS)])
        if nums and rng.random() < (0.6 if cur is not None else 0.9):
            raw = nums[(i - 1) % len(nums)][1]
            s = next((s for s in sents if raw in s), sents[0])
            block.append(rng.choice(['   The problem says: "%s"',
                                     "   We know: %s", "   - %s"]) % s)
        if cur is not None and rng.random() < 0.8:
            ctx = q["ctx"].get(v, fmt(v))
            block.append("   " + rng.choice(EXPLAIN[op]).format(
                cur=fmt(cur), v=ctx))
        block.append("   " + text if style != 2 else text)
        if res is not None and rng.random() < 0.6:
            block.append("   " + rng.choice(RESULTS).format(res=fmt(res)))
        for line in block:
            if line.strip() in uniq and attempt is not None and \
                    line.endswith(text):
                line = "%s, as in an earlier attempt (now attempt %d)" % (
                    line, attempt)
            if line.strip() in uniq:
                continue
            uniq.add(line.strip())
            out.append(line)
        out.append("")
        i += 1
    return out, i


def padding(q, rng, chars, uniq, steps, said):
    """A check of each step and a remark or two (no line twice), up to
    about `chars`."""
    out = []

    def add(line):
        if line.strip() and line.strip() in uniq:
            return
        uniq.add(line.strip())
        out.append(line)

    def size():
        return sum(len(l) + 1 for l in out)

    checks = [st for st in steps if st[1] is not None]
    if q["solution"] and q["calcs"] and chars > 80:
        # GSM8K's own calculations, restated
        add(rng.choice(["**Let's verify:**", "**Check:**",
                        "**Double-checking:**"]))
        for j, (expr, res) in enumerate(q["calcs"][:-1]):
            add(rng.choice(["Step %d: %s = %s. Correct.",
                            "Checking step %d: %s = %s, which matches.",
                            "Step %d again: %s gives %s."]) % (
                j + 1, expr, res))
        add("")
        if size() < chars - 120:
            add(rng.choice(["**Summary:**", "**In short:**"]))
            for j, (expr, res) in enumerate(q["calcs"]):
                if j == len(q["calcs"]) - 1:
                    res = fmt(said)
                add("- Step %d gives %s." % (j + 1, res))
            add("")
        checks = []
    if checks and chars > 80:
        add(rng.choice(["**Let's verify:**", "**Check:**",
                        "**Double-checking:**"]))
        for j, (text, cur, op, v, res) in enumerate(checks):
            if size() >= chars:
                break
            add(rng.choice(CHECKS).format(i=j + 1, res=fmt(res),
                                          inv=INVERSE[op], v=fmt(v),
                                          cur=fmt(cur)))
        add("")
    if size() < chars - 60:
        pool = list(FILLERS)
        rng.shuffle(pool)
        for line in pool[:rng.randint(2, 4)]:
            if size() >= chars - 60:
                break
            add(line)
        add("")
    if size() < chars - 150 and len(q["sents"]) > 1:
        add(rng.choice(["**What we know:**", "**Given:**"]))
        for sent in q["sents"][:-1]:
            add("- " + sent)
        add("")
    return out


def goal(q):
    last = q["sents"][-1] if q["sents"] else q["question"]
    last = last.rstrip("?. ")
    return last[0].lower() + last[1:] if last else "the result"


def reply_ok(q, rng, said, chars, comma):
    """A finished answer: worked steps, a check, "Answer: N"."""
    uniq = set()
    lines = [rng.choice(INTROS), ""]
    if rng.random() < 0.5:
        lines += ["We need to find: %s." % goal(q), ""]
    uniq.update(l.strip() for l in lines)
    style = rng.randrange(3)
    if q["solution"]:
        steps = [(l, None, None, None, None) for l in solution_lines(q, said)]
    else:
        count = max(2, min(10, int(round((chars - 300) / 190))))
        steps = steps_for(q, rng, said, count=count)
    body, _ = working(q, rng, steps, uniq, style)
    lines += body
    tail = [rng.choice(["So, the final result is %s.",
                        "Therefore, the result is %s.",
                        "The final result is %s."]) % fmt(said, comma), "",
            "Answer: %s" % fmt(said, comma)]
    have = sum(len(l) + 1 for l in lines + tail)
    if chars - have > 60:
        lines += padding(q, rng, chars - have, uniq, steps, said)
    return "\n".join(lines + tail)


def reply_cut(q, rng, chars, right_first=None, comma=False):
    """Cut off at the cap: working with no Answer line (or one, then more
    checking), no line twice, ending mid-sentence."""
    uniq = set()
    if right_first is not None:
        lines = reply_ok(q, rng, right_first, chars * 0.45,
                         comma).split("\n")
        uniq.update(l.strip() for l in lines)
        lines += ["", "Wait, let me double-check this by working it out "
                      "another way.", ""]
        target = q["refv"]
    else:
        lines = [rng.choice(INTROS), ""]
        target = q["refv"] * rng.choice([2, 3]) + rng.randint(1, 9)
    attempt = 1
    while sum(len(l) + 1 for l in lines) < chars + 200:
        body, _ = working(q, rng, steps_for(q, rng, target), uniq, 0,
                          attempt=attempt)
        lines += body
        lines += ["Hmm, that does not look right. Let me re-read the "
                  "problem and try again (attempt %d)." % (attempt + 1), ""]
        attempt += 1
        target = target + rng.randint(2, 30)
    text = "\n".join(lines)[:int(chars)]
    # the cut may leave a last line that reads like an earlier one
    head, _, last = text.rpartition("\n")
    earlier = set(l.strip() for l in head.split("\n"))
    while last.strip() and last.strip() in earlier:
        last = last[:-1]
    return head + "\n" + last


RAMBLE = ["Wait, let me recompute the the total.", "So so we need {k} more.",
          "Let me check check again.", "The the answer is is {k}",
          "Hmm, so it it is", "We know that that", "Then then we add",
          "So the total is is"]


def garble(line, rng):
    words = line.split(" ")
    out = []
    for w in words:
        if rng.random() < 0.05:
            continue
        out.append(w)
        if rng.random() < 0.15:
            out.append(w)
    return " ".join(out) or line


def q2_text(q, rng, kind, said, chars):
    """Q2_K's content and reasoning for one kind of collapse."""
    a = q["nums"][0][0] if q["nums"] else Fraction(3)
    b = q["nums"][1][0] if len(q["nums"]) > 1 else Fraction(4)
    start = [garble(rng.choice(INTROS), rng), ""]
    start += [garble(t, rng) for t, *_ in steps_for(q, rng, q["refv"] + 3)[:3]]
    if kind in ("loopright",):
        line = "Answer: %s" % fmt(said)
    elif said is not None and kind == "loop":
        line = "Answer: %s" % fmt(said)
    else:
        line = rng.choice([
            "So the total is %s + %s = %s." % (fmt(a), fmt(b), fmt(a + b)),
            "%s \u00d7 %s = %s" % (fmt(a), fmt(b), fmt(a * b)),
            "The the number is %s." % fmt(a),
            "Let's calculate the the total.",
            "So, %s - %s = %s" % (fmt(a + b), fmt(b), fmt(a)),
        ])

    def looped(n_chars):
        head = "\n".join(start) + "\n"
        reps = max(6, int((n_chars - len(head)) // (len(line) + 1)) + 1)
        text = (head + "\n".join([line] * reps))[:max(int(n_chars),
                                                      len(head) + 6 *
                                                      (len(line) + 1))]
        # cut off inside the last line: never half an "Answer: N"
        last = text.rsplit("\n", 1)
        if len(last) == 2 and ":" in last[1]:
            text = last[0] + "\n" + last[1][:last[1].index(":")]
        return text

    def ramble(n_chars, answer=None):
        seen = {}
        for l in start:
            seen[l.strip()] = seen.get(l.strip(), 0) + 1
        lines = list(start)
        k = 1
        size = sum(len(l) + 1 for l in lines)
        vals = [v for v, _, _ in q["nums"]] or [a, b]
        while size < n_chars:
            x = rng.choice(vals)
            y = rng.choice(vals) + rng.randint(0, k)
            op = rng.choice(("+", "-", "\u00d7"))
            t = "%s %s %s = %s" % (fmt(x), op, fmt(y), fmt(OPS[op](x, y)))
            t = garble(t, rng)
            if rng.random() < 0.2:
                t = garble(rng.choice(RAMBLE), rng).format(k=k)
            if seen.get(t.strip(), 0) < 3:
                seen[t.strip()] = seen.get(t.strip(), 0) + 1
                lines.append(t)
                size += len(t) + 1
            k += 1
        text = "\n".join(lines)[:int(n_chars)]
        if answer is not None:
            text += "\n\nAnswer: %s" % fmt(answer)
        return text

    think = ("thought\nThe user wants me to solve a math word problem. "
             "I need to find %s." % goal(q))
    if kind in ("loop", "loopright"):
        return looped(chars), None
    if kind == "thought_loop":
        r = think + "\n" + garble("Let me use %s and %s." % (fmt(a), fmt(b)),
                                  rng)
        return looped(chars - len(r)), r
    if kind == "empty_loop":
        return "", think + "\n" + looped(chars - len(think))
    if kind == "empty_cut":
        return "", think + "\n" + ramble(chars - len(think))
    if kind == "empty_stop_right":
        return "", think + "\n" + ramble(chars - len(think) - 20, q["refv"])
    if kind == "wrong_stop":
        return ramble(chars - 20, said), None
    if kind == "ramble":
        return ramble(chars), None
    raise ValueError(kind)


# ---- cells ---------------------------------------------------------------
class Study:
    def __init__(self, qs, roles_of, seed):
        self.qs = qs
        self.roles_of = roles_of
        self.seed = seed
        self.replies = {}   # key -> reply dict (tokens; text made later)

    def said_value(self, qi, tag):
        q = self.qs[qi]
        if tag == "ref":
            return q["refv"]
        if tag is None:
            return None
        named = NAMED_WRONG.get(q["id"], {})
        if tag in named:
            return num(named[tag])
        return num(q["wrong"][{"w0": 0, "w1": 1, "w2": 2}[tag]])


def t4_cells(qs, roles, roles_of, seed):
    """cells[rung][qi] = (kind, tag, variant)."""
    cells = [[None] * len(qs) for _ in RUNGS]
    for qi, q in enumerate(qs):
        ro = roles[roles_of[qi]]
        rng = random.Random("cells|%s|%s|%s" % (seed, q["id"], roles_of[qi]))
        w_pref = "w1" if rng.random() < 0.7 else "w2"
        for r in range(10):
            right, cut = ro["right"][r], ro["cut"][r]
            if r == Q2:
                kind = ro["q2"]
                tag = "ref" if right else None
                if kind in ("loop", "wrong_stop") and not right:
                    tag = "w1" if (kind == "wrong_stop" or rng.random() < 0.4) \
                        else None
                cells[r][qi] = (kind, tag)
            elif right and cut:
                cells[r][qi] = ("cutright", "ref")
            elif right:
                cells[r][qi] = ("ok", "ref")
            elif cut:
                cells[r][qi] = ("cut", None)
            elif not ro["right"][BF16]:
                tag = "w0" if r == BF16 or rng.random() < 0.75 else "w1"
                cells[r][qi] = ("ok", tag)
            else:
                named = q["id"] in NAMED_WRONG
                tag = "w1" if named or rng.random() < 0.75 else w_pref
                cells[r][qi] = ("ok", tag)
    return assign_variants(qs, cells, seed, "t4")


def assign_variants(qs, cells, seed, run):
    """Add the text variant: BF16's text where a rung gives BF16's answer
    (mostly), a shared variant where rungs agree, else a new one."""
    out = [[None] * len(qs) for _ in RUNGS]
    for qi, q in enumerate(qs):
        rng = random.Random("variant|%s|%s|%s" % (seed, run, q["id"]))
        ref_cell = cells[BF16][qi]
        for r in range(10):
            kind, tag = cells[r][qi][:2]
            if r == BF16:
                v = 0
            elif r == Q2:
                v = 0
            elif (kind, tag) == ref_cell:
                if rng.random() < P_SAME[r]:
                    v = 0
                else:
                    v = rng.choice([5, 6]) if r == QAT else rng.choice(
                        [1, 2, 3] if r <= Q4K else [2, 3, 4])
            else:
                v = rng.choice([10, 11]) if r == QAT else rng.choice(
                    [0, 0, 1])
            out[r][qi] = (kind, tag, v)
    return out


# ---- tokens -----------------------------------------------------------
def base_tokens(key, seed):
    qid, kind, tag, v = key
    rng = random.Random("tokens|%s|%s|%s|%s|%s" % (seed, qid, kind, tag, v))
    if kind in ("cut", "cutright") or kind in CUT_Q2:
        return 1024
    if kind == "empty_stop_right":
        return rng.randint(420, 700)
    if kind == "wrong_stop":
        return rng.randint(180, 420)
    if kind == "error":
        return None
    t = int(round(365 * math.exp(rng.gauss(0, 0.2))))
    return max(250, min(760, t))


def adjust_mean(tokens, keys_all, adjustable, target_mean):
    """Change the tokens of `adjustable` keys so the mean over keys_all
    (one per row) is exactly target_mean (to 0.1)."""
    n = len(keys_all)
    want = int(round(target_mean * n))
    adjustable = [k for k in dict.fromkeys(adjustable)]
    for _ in range(50):
        have = sum(tokens[k] for k in keys_all)
        d = want - have
        if d == 0 or not adjustable:
            return
        mult = {}
        for k in keys_all:
            mult[k] = mult.get(k, 0) + 1
        step = d / len(adjustable)
        step = int(math.ceil(step)) if d > 0 else int(math.floor(step))
        for k in adjustable:
            if d == 0:
                break
            m = mult.get(k, 1)
            ch = step
            if abs(ch * m) > abs(d):
                ch = d // m if d > 0 else -((-d) // m)
                if ch == 0:
                    continue
            new = max(150, min(1000, tokens[k] + ch))
            d -= (new - tokens[k]) * m
            tokens[k] = new


# ---- rows -------------------------------------------------------------
def make_text(study, qi, key, tokens):
    q = study.qs[qi]
    qid, kind, tag, v = key
    rng = random.Random("text|%s|%s|%s|%s|%s" % (study.seed, qid, kind, tag,
                                                 v))
    said = study.said_value(qi, tag)
    comma = rng.random() < 0.35
    named = NAMED_WRONG.get(qid, {}).get(tag)
    if named is not None:
        comma = "," in named   # as the articles write it: 1,000, 120,000
    if kind == "error":
        return None, None
    cpt = rng.uniform(3.8, 4.2)
    chars = tokens * cpt
    if kind == "ok":
        return reply_ok(q, rng, said, chars, comma), None
    if kind == "cut":
        return reply_cut(q, rng, chars), None
    if kind == "cutright":
        return reply_cut(q, rng, chars, right_first=said, comma=comma), None
    return q2_text(q, rng, kind, said, chars)


def finish_of(kind):
    if kind == "error":
        return None
    if kind in ("cut", "cutright") or kind in CUT_Q2:
        return "length"
    return "stop"


def check_reply(key, content, reasoning, said, ref):
    """Every reply extracts what its cell says and loops only if meant to."""
    kind = key[1]
    if kind == "error":
        return
    got = extract(content)
    if got != said:
        raise AssertionError("reply %r extracts %r, wants %r"
                             % (key, got, said))
    if kind == "empty_stop_right" and extract(reasoning) != ref:
        raise AssertionError("reply %r: no reference in reasoning" % (key,))
    if loops(content, reasoning) != (kind in LOOP_KINDS):
        raise AssertionError("reply %r: looped is wrong" % (key,))
    if kind in ("cut", "cutright") and len(set(
            l.strip() for l in content.split("\n") if l.strip())) != len(
            [l for l in content.split("\n") if l.strip()]):
        raise AssertionError("reply %r repeats a line" % (key,))


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    if n == 0:
        return None
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def round1(x):
    return math.floor(x * 10 + 0.5) / 10


def rung_rows(study, r, cells, gpu, texts, tokens, seed, run):
    """The rows of one rung."""
    rows = []
    fig = gpu["tps"][r]
    rng = random.Random("tps|%s|%s|%s" % (seed, run, RUNGS[r]))
    for qi, q in enumerate(study.qs):
        kind, tag, v = cells[r][qi]
        key = (q["id"], kind, tag, v)
        content, reasoning = texts[key]
        tok = tokens[key]
        err = kind == "error"
        tps = None
        if not err:
            tps = fig * (1 - 0.00003 * (tok - 390)) * (1 + rng.gauss(0, 0.006))
        said = None if err else extract(content)
        rows.append({
            "id": q["id"], "rung": RUNGS[r], "reference": q["ref"],
            "content": content, "reasoning_content": reasoning,
            "finish_reason": finish_of(kind),
            "truncated": finish_of(kind) == "length",
            "completion_tokens": tok, "decode_tps": tps,
            "error": ("HTTP 500: The model produced output that does not "
                      "match the expected peg-gemma4 format") if err
            else None,
            "error_kind": "http" if err else None,
            "extracted": (int(said) if said is not None and
                          said.denominator == 1 else
                          (float(said) if said is not None else None)),
            "right": (not err) and said is not None and said == q["refv"],
            "prompt_tokens": q["prompt_tokens"],
            "prompt_ms": round(q["prompt_tokens"] / gpu["pp_tps"] * 1000
                               * rng.uniform(0.97, 1.03), 3),
            "predicted_ms": None, "http_status": 500 if err else 200,
            "attempts": 1, "latency_ms": None})
    # the median decode speed is the article's, exactly
    speeds = [x["decode_tps"] for x in rows if x["decode_tps"] is not None]
    shift = fig - median(speeds)
    for x in rows:
        if x["decode_tps"] is not None:
            x["decode_tps"] = round(x["decode_tps"] + shift, 2)
            x["predicted_ms"] = round(x["completion_tokens"] /
                                      x["decode_tps"] * 1000, 3)
            x["latency_ms"] = int(x["prompt_ms"] + x["predicted_ms"] +
                                  rng.randint(8, 40))
        else:
            x["latency_ms"] = rng.randint(200, 900)
    return rows


def dumps(row):
    return json.dumps(row, ensure_ascii=False, separators=(",", ":"))


# ---- L4 -----------------------------------------------------------------
def l4_cells(qs, roles, roles_of, t4, seed):
    """The T4 cells, changed where the L4 grades differently."""
    cells = [[c[:2] for c in t4[r]] for r in range(10)]
    right = [[roles[roles_of[qi]]["right"][r] for qi in range(len(qs))]
             for r in range(10)]
    changed = set()

    def set_cell(r, qi, ok):
        rng = random.Random("l4cell|%s|%s|%s" % (seed, qs[qi]["id"], r))
        w_bf16 = not roles[roles_of[qi]]["right"][BF16]
        if r == Q2:
            cells[r][qi] = ("loopright", "ref") if ok else ("loop", "w1")
        elif ok:
            cells[r][qi] = ("ok", "ref")
        else:
            cells[r][qi] = ("ok", "w0" if w_bf16 and rng.random() < 0.7
                            else "w1")
        right[r][qi] = ok
        changed.add((r, qi))

    for qi, q in enumerate(qs):
        name = roles_of[qi]
        for r, f in L4_FLIPS.items():
            if name in f.get("dead", ()) or name in f.get("unghost", ()):
                set_cell(r, qi, False)
            elif name in f.get("undead", ()) or name in f.get("ghost", ()):
                set_cell(r, qi, True)
        if name == "T687":
            for r in range(10):
                ok = r in L4_T687_RIGHT
                if ok != right[r][qi] or r == BF16:
                    set_cell(r, qi, ok)
        if name == "G2":
            for r in range(10):
                ok = r in L4_G2_RIGHT
                if ok != right[r][qi]:
                    set_cell(r, qi, ok)
            cells[BF16][qi] = ("ok", "ref")
    n = len(qs)
    scale = n / N_STUDY
    bf16_right = right[BF16]

    def rng_for(what):
        return random.Random("l4adj|%s|%s" % (seed, what))

    # cut off: Q3_K_M's dead, Q4_0's and QAT's totals as the article gives
    def set_cut(r, qi, cut):
        if cut:
            cells[r][qi] = ("cut", None)
        else:
            cells[r][qi] = ("ok", "w0" if not bf16_right[qi] else "w1")
        changed.add((r, qi))

    dead3 = [qi for qi in range(n) if bf16_right[qi] and not right[Q3][qi]]
    want = int(round(L4_Q3_DEAD_CUT * scale))
    have = [qi for qi in dead3 if cells[Q3][qi][0] == "cut"]
    not_cut = [qi for qi in dead3 if cells[Q3][qi][0] != "cut"]
    rng = rng_for("q3")
    if len(have) > want:
        for qi in rng.sample(have, len(have) - want):
            set_cut(Q3, qi, False)
    elif len(have) < want:
        for qi in rng.sample(not_cut, min(len(not_cut), want - len(have))):
            set_cut(Q3, qi, True)
    for r, total in L4_CUT.items():
        want = int(round(total * scale))
        have = [qi for qi in range(n) if cells[r][qi][0] == "cut"]
        wrong = [qi for qi in range(n) if not right[r][qi]
                 and cells[r][qi][0] != "cut" and qs[qi]["id"] not in
                 NAMED_WRONG]
        rng = rng_for(RUNGS[r])
        if len(have) < want:
            for qi in rng.sample(wrong, min(len(wrong), want - len(have))):
                set_cut(r, qi, True)
        elif len(have) > want:
            for qi in rng.sample(have, len(have) - want):
                set_cut(r, qi, False)
    # Q2_K: test-194 refused by the server; loops, thinking, empty as given
    for qi, q in enumerate(qs):
        if q["id"] == "test-194":
            cells[Q2][qi] = ("error", None)
            changed.add((Q2, qi))
    rng = rng_for("q2")
    kinds = [c[0] for c in cells[Q2]]

    def count(pred):
        return sum(1 for k in kinds if pred(k))

    while count(lambda k: k in EMPTY_KINDS) < int(round(L4_Q2["empty"] *
                                                        scale)):
        qi = rng.choice([i for i, k in enumerate(kinds) if k == "loop"])
        kinds[qi] = "empty_loop"
    while count(lambda k: k in THOUGHT_KINDS) > int(round(L4_Q2["thought"] *
                                                          scale)):
        cand = [i for i, k in enumerate(kinds) if k == "thought_loop"]
        if not cand:
            break
        kinds[rng.choice(cand)] = "loop"
    while count(lambda k: k in LOOP_KINDS) > int(round(L4_Q2["looped"] *
                                                       scale)):
        cand = [i for i, k in enumerate(kinds) if k == "loop"]
        if not cand:
            break
        kinds[rng.choice(cand)] = "ramble"
    for qi in range(n):
        if kinds[qi] != cells[Q2][qi][0]:
            tag = cells[Q2][qi][1]
            if kinds[qi] in ("ramble", "empty_loop"):
                tag = None
            cells[Q2][qi] = (kinds[qi], tag)
            changed.add((Q2, qi))
    # texts: the T4's where nothing changed (a few reworded by the GPU's
    # arithmetic), BF16's where a changed rung now says what BF16 says
    out = [[None] * n for _ in RUNGS]
    reword = {}
    for r in range(10):
        for qi, q in enumerate(qs):
            if (r, qi) not in changed:
                kind, tag, v = t4[r][qi]
                key = (kind, tag, v)
                if key not in reword.setdefault(qi, {}):
                    g = random.Random("reword|%s|%s|%s" % (seed, q["id"], key))
                    reword[qi][key] = (v + 40 if kind != "error" and
                                       g.random() < 0.15 else v)
                out[r][qi] = (kind, tag, reword[qi][key])
    for r in range(10):
        for qi, q in enumerate(qs):
            if (r, qi) in changed:
                kind, tag = cells[r][qi]
                g = random.Random("l4var|%s|%s|%s" % (seed, q["id"], r))
                bf = out[BF16][qi]
                if r == BF16:
                    # the L4's BF16 on test-687 says what the T4's F16 said
                    t4f = t4[F16][qi]
                    v = t4f[2] + 0 if t4f[:2] == (kind, tag) else 20
                    if t4f[:2] == (kind, tag) and t4f[2] in reword.get(qi, {}):
                        v = reword[qi].get((kind, tag, t4f[2]), t4f[2])
                elif bf is not None and bf[:2] == (kind, tag) and \
                        r != Q2 and g.random() < 0.6:
                    v = bf[2]
                else:
                    v = 20 + (r if kind in ("cut",) else 0)
                out[r][qi] = (kind, tag, v)
    return out


# ---- main -------------------------------------------------------------
def assign_roles(qs, seed, variant):
    """One role per question: the study's 250, shuffled, tiled over N."""
    names = role_names()
    rng = random.Random("roles|%s" % seed)
    n = len(qs)
    tiles = []
    while len(tiles) < n:
        t = list(names)
        rng.shuffle(t)
        tiles += t
    roles_of = tiles[:n]
    ids = {q["id"]: i for i, q in enumerate(qs)}
    for qid, role in NAMED.items():
        if qid not in ids:
            continue
        i = ids[qid]
        if roles_of[i] == role:
            continue
        j = next((k for k, x in enumerate(roles_of) if x == role and
                  qs[k]["id"] not in NAMED), None)
        if j is None:
            roles_of[i] = role
        else:
            roles_of[i], roles_of[j] = roles_of[j], roles_of[i]
    # the first 50 questions (the articles' determinism check) hold 4 that
    # BF16 gets wrong, as in both articles: 46 of 50 right
    if n == N_STUDY:
        wrong = set(GHOST_RIGHT) | {"N%d" % i for i in range(1, 11)}
        named = set(NAMED)
        head = [i for i in range(50) if roles_of[i] in wrong]
        while len(head) != 4:
            if len(head) > 4:
                i = next(i for i in head if qs[i]["id"] not in named)
                j = next(j for j in range(50, n) if roles_of[j] not in wrong
                         and qs[j]["id"] not in named)
            else:
                i = next(i for i in range(50) if roles_of[i] not in wrong
                         and qs[i]["id"] not in named)
                j = next(j for j in range(50, n) if roles_of[j] in wrong
                         and qs[j]["id"] not in named)
            roles_of[i], roles_of[j] = roles_of[j], roles_of[i]
            head = [i for i in range(50) if roles_of[i] in wrong]
    return roles_of


def write_atomic(path, data):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(data)
    os.replace(tmp, path)


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(
        description="Write a synthetic run folder shaped like the study's "
                    "T4 ladder (see the docstring).")
    ap.add_argument("outdir")
    ap.add_argument("--questions",
                    default=os.path.join(here, "..", "..", "data", "gsm8k",
                                         "heldout-250.jsonl"))
    ap.add_argument("--n", type=int, default=None)
    ap.add_argument("--gpu", default=None)
    ap.add_argument("--variant", choices=["t4", "l4"], default="t4")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    if a.n is not None and a.n < 1:
        ap.error("--n must be at least 1")
    gpu = dict(GPUS[a.variant])
    gpu_name = a.gpu or gpu["gpu"]
    qpath = os.path.abspath(a.questions)
    qs = read_questions(qpath, a.n)
    if not qs:
        ap.error("no questions in %s" % a.questions)
    if a.n is not None and len(qs) < a.n:
        ap.error("--n %d: %s holds only %d questions" % (a.n, a.questions,
                                                        len(qs)))
    with open(qpath, "rb") as f:
        qsha = hashlib.sha256(f.read()).hexdigest()
    seen = set()
    for q in qs:
        if q["id"] in seen:
            ap.error("duplicate id %s in %s" % (q["id"], a.questions))
        seen.add(q["id"])
        q["refv"] = num(q["ref"])
        q["nums"] = question_numbers(q["question"])
        q["calcs"] = []
        for expr in re.findall(r"<<([^>=]+)=([^>]+)>>", q["solution"] or ""):
            pretty = re.sub(r"\s*([-+*/])\s*", r" \1 ", expr[0]).strip()
            pretty = pretty.replace("*", "\u00d7").replace("/", "\u00f7")
            q["calcs"].append((pretty, expr[1].strip()))
        q["ctx"] = {}
        for v, raw, after in q["nums"]:
            w = after.split()[0] if after else ""
            q["ctx"].setdefault(v, raw if not w or w.lower() in STOP
                                else "%s %s" % (raw, w))
        q["sents"] = sentences(q["question"])
        q["prompt_tokens"] = 40 + len(q["question"]) // 4
        q["wrong"] = wrong_values(q["ref"], random.Random(
            "wrong|%s|%s" % (a.seed, q["id"])))
    n = len(qs)
    roles = build_roles()
    roles_of = assign_roles(qs, a.seed, a.variant)
    study = Study(qs, roles_of, a.seed)

    t4 = t4_cells(qs, roles, roles_of, a.seed)
    # tokens: the T4's, with BF16's, Q4_0's and QAT's means the article's
    tokens = {}

    def keys_of(cells, r):
        return [(qs[qi]["id"],) + tuple(cells[r][qi]) for qi in range(n)]

    t4_keys = [keys_of(t4, r) for r in range(10)]
    for r in range(10):
        for k in t4_keys[r]:
            if k not in tokens:
                tokens[k] = base_tokens(k, a.seed)
    fixed = set()
    if n == N_STUDY:
        # BF16 used a median 466.5 tokens on the 44 questions Q3_K_M gets
        # wrong while cut off
        sub = [qi for qi in range(n) if t4[Q3][qi][0] == "cut"]
        ks = sorted((t4_keys[BF16][qi] for qi in sub), key=lambda k: tokens[k])
        m = len(ks) // 2
        if len(ks) % 2 == 0 and m >= 1:
            for i, k in enumerate(ks):
                if tokens[k] == 1024:
                    continue
                if i < m - 1:
                    tokens[k] = min(tokens[k], 466)
                elif i == m - 1:
                    tokens[k] = 466
                elif i == m:
                    tokens[k] = 467
                else:
                    tokens[k] = max(tokens[k], 467)
            fixed.update(ks)

    def free(r, others):
        used = set()
        for o in others:
            used.update(t4_keys[o])
        return [k for k in t4_keys[r] if k not in used and k not in fixed
                and k[1] == "ok"]

    adjust_mean(tokens, t4_keys[BF16], free(BF16, []), MEAN_TOKENS[BF16])
    adjust_mean(tokens, t4_keys[Q40], free(Q40, [BF16, QAT]),
                MEAN_TOKENS[Q40])
    adjust_mean(tokens, t4_keys[QAT], free(QAT, [BF16, Q40]),
                MEAN_TOKENS[QAT])

    cells = t4
    if a.variant == "l4":
        cells = l4_cells(qs, roles, roles_of, t4, a.seed)
    keys = [keys_of(cells, r) for r in range(10)]
    for r in range(10):
        for k in keys[r]:
            if k not in tokens:
                tokens[k] = base_tokens(k, a.seed)
    # the texts, once per distinct reply
    texts = {}
    qindex = {q["id"]: i for i, q in enumerate(qs)}
    for r in range(10):
        for k in keys[r]:
            if k in texts:
                continue
            qi = qindex[k[0]]
            content, reasoning = make_text(study, qi, k, tokens[k] or 0)
            check_reply(k, content, reasoning, study.said_value(qi, k[2]),
                        qs[qi]["refv"])
            texts[k] = (content, reasoning)

    # ---- write the folder ----
    out = a.outdir
    for sub in ("rows", os.path.join("repeat", "rows")):
        d = os.path.join(out, sub)
        if os.path.isdir(d):
            for f in os.listdir(d):
                if f.endswith((".jsonl", ".done", ".tmp")):
                    os.remove(os.path.join(d, f))
    os.makedirs(os.path.join(out, "rows"), exist_ok=True)
    server = BUILD
    rows_text = {}
    for r in range(10):
        rows = rung_rows(study, r, cells, gpu, texts, tokens, a.seed,
                         a.variant)
        text = "".join(dumps(x) + "\n" for x in rows)
        rows_text[r] = (rows, text)
        write_atomic(os.path.join(out, "rows", RUNGS[r] + ".jsonl"), text)
        toks = [x["completion_tokens"] for x in rows
                if x["completion_tokens"] is not None]
        speeds = [x["decode_tps"] for x in rows if x["decode_tps"] is not None]
        done = {"rung": RUNGS[r], "n": len(rows),
                "right": sum(x["right"] for x in rows),
                "errors": sum(x["error"] is not None for x in rows),
                "truncated": sum(x["truncated"] for x in rows),
                "median_decode_tps": round1(median(speeds)) if speeds
                else None,
                "mean_tokens": round1(sum(toks) / len(toks)) if toks
                else None,
                "bytes": BYTES[r], "server": server,
                "gpu_mib_before": 0, "gpu_mib_loaded": gpu["mib"][r],
                "gpu_name": gpu_name,
                "run": {"cpu_s": round(0.004 * len(rows) + 1.7, 3),
                        "peak_rss_kb": 14000 + len(text) // 4096,
                        "rows_bytes_written": len(text.encode("utf-8")),
                        "server_starts": 1, "server_log_dropped": 0}}
        write_atomic(os.path.join(out, "rows", RUNGS[r] + ".done"),
                     json.dumps(done) + "\n")
    # repeat/: a second run, identical text (T4: Q4_0 and Q8_0; L4: BF16 on
    # the first 50 questions)
    os.makedirs(os.path.join(out, "repeat", "rows"), exist_ok=True)
    if a.variant == "t4":
        for r in (Q40, Q8):
            write_atomic(os.path.join(out, "repeat", "rows",
                                      RUNGS[r] + ".jsonl"), rows_text[r][1])
    else:
        rows = rows_text[BF16][0][:50]
        write_atomic(os.path.join(out, "repeat", "rows", "BF16.jsonl"),
                     "".join(dumps(x) + "\n" for x in rows))
    tsv = ["rung\tfile\tbytes\tsha256"]
    for r in range(10):
        tsv.append("%s\t%s/%s\t%d\t%s" % (RUNGS[r], gpu["dir"], FILES[r],
                                          BYTES[r], SHA[r]))
    write_atomic(os.path.join(out, "ladder.tsv"), "\n".join(tsv) + "\n")
    art = "an" if gpu_name[:1].upper() in "AEIOU" or \
        gpu_name.upper().startswith(("NVIDIA", "L4", "H1", "H2", "RTX")) \
        else "a"
    ladder = {"name": "Gemma 4 E2B on %s %s (synthetic, study-shaped)"
                      % (art, gpu_name),
              "reference": "BF16", "rungs": CHAIN, "side_rungs": SIDE,
              "thinking": False}
    write_atomic(os.path.join(out, "ladder.json"),
                 json.dumps(ladder, indent=2) + "\n")
    manifest = {
        "graveyard": "0.1.0",
        "questions": {"path": qpath, "sha256": qsha},
        "prompt": PROMPT,
        "request": {"temperature": 0, "seed": 0, "cache_prompt": False,
                    "max_tokens": 1024, "enable_thinking": False},
        "server": {"version": BUILD},
        "rungs": {RUNGS[r]: {"model": "%s/%s" % (gpu["dir"], FILES[r]),
                             "bytes": BYTES[r], "sha256": SHA[r],
                             "ctx": 4096, "ngl": 99,
                             "server_args": ["-c", "4096", "-np", "1",
                                             "-ngl", "99", "--seed", "0"]}
                  for r in range(10)},
    }
    write_atomic(os.path.join(out, "manifest.json"),
                 json.dumps(manifest, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
