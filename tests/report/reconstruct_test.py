#!/usr/bin/env python3
# Tests: report/md.c
# Tests: report/json.c
"""The T4 ladder, reconstructed from rows and read back from the report.

Writes the rows of a 9-rung x 250-question ladder (test-0 .. test-249)
whose per-rung right / dead / ghosts are the T4 article's:

  BF16 229/0/0  F16 229/1/1  Q8_0 227/4/2  Q6_K 229/4/4  Q5_K_M 231/3/5
  Q4_K_M 224/9/4  Q4_0 222/15/8  Q3_K_M 191/42/4  Q2_K 3/226/0

(the dead and the ghosts drawn at random, with a fixed seed; the wrong
answers a mix of wrong numbers, cut-off replies, errors, empty content and
a right number followed by a wrong last "Answer:"; the right ones written
in the forms the extractor must accept: "$1,234", "**Answer:** 42.",
"2350.00" for "2,350"). Runs `graveyard report DIR --rungs BF16,...`,
parses the ladder table of REPORT.md ("## The ladder") and report.json,
and checks in both: the rungs in order, exactly those counts, the
identity right = 229 - dead + ghosts on every row, n and accuracy, and
the share of BF16's bytes (from ladder.tsv). `graveyard bury` on the same
rows is checked the same way, as a third reading.

Usage: python3 tests/report/reconstruct_test.py build/graveyard
Ends with "reconstruct: N passed, M failed" (one count per check group);
exit 1 on any failure."""
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

from suite import Suite, run

N = 250
T4 = [  # rung, right, dead, ghosts
    ("BF16", 229, 0, 0),
    ("F16", 229, 1, 1),
    ("Q8_0", 227, 4, 2),
    ("Q6_K", 229, 4, 4),
    ("Q5_K_M", 231, 3, 5),
    ("Q4_K_M", 224, 9, 4),
    ("Q4_0", 222, 15, 8),
    ("Q3_K_M", 191, 42, 4),
    ("Q2_K", 3, 226, 0),
]
REF_RIGHT = T4[0][1]
# GGUF sizes of a 4B model, roughly: % of BF16 bytes is checked from these
BYTES = {"BF16": 7_767_405_440, "F16": 7_767_405_440,
         "Q8_0": 4_130_402_176, "Q6_K": 3_190_565_760,
         "Q5_K_M": 2_829_696_896, "Q4_K_M": 2_489_894_272,
         "Q4_0": 2_371_888_512, "Q3_K_M": 2_098_058_624,
         "Q2_K": 1_729_959_296}

S = Suite("reconstruct", show=10)
check = S.check


# ---------------------------------------------------------------- rows

def plan(rng):
    """right[rung][q] for every rung and question, with the T4 counts."""
    qs = list(range(N))
    ref_right = set(rng.sample(qs, REF_RIGHT))
    ref_wrong = [q for q in qs if q not in ref_right]
    right = {}
    for rung, r, d, g in T4:
        if rung == "BF16":
            right[rung] = {q: q in ref_right for q in qs}
            continue
        dead = set(rng.sample(sorted(ref_right), d))
        ghosts = set(rng.sample(ref_wrong, g))
        right[rung] = {q: (q in ref_right and q not in dead) or q in ghosts
                       for q in qs}
        assert sum(right[rung].values()) == r, rung
    return right


def reference(q):
    # mostly small numbers, some in thousands groups as GSM8K writes them
    v = (q * 37) % 900 + 2
    if q % 7 == 0:
        v = v * 13 + 1000
        return f"{v:,}"
    return str(v)


def right_content(ref, rng):
    v = ref.replace(",", "")
    forms = [f"Let me add these.\nAnswer: {v}",
             f"Step one.\nStep two.\n**Answer:** {v}.",
             f"Working.\nanswer: ${ref}",
             f"The total.\nAnswer: {v}.00",
             f"Answer: 0\nLet me check that again.\nFinal answer: {v}"]
    return forms[rng.randrange(len(forms))]


def wrong_row(row, ref, rng):
    v = int(ref.replace(",", ""))
    kind = rng.randrange(6)
    if kind == 0:
        row["content"] = f"Adding up.\nAnswer: {v + rng.randrange(1, 50)}"
    elif kind == 1:  # cut off at the token cap
        row["content"] = "First, we note that " * 30
        row["finish_reason"] = "length"
        row["truncated"] = True
        row["completion_tokens"] = 1024
    elif kind == 2:  # a failed request: wrong whatever the text says
        row["content"] = f"Answer: {v}"
        row["error"] = "HTTP 500: server died"
    elif kind == 3:  # empty content, the right number only in the thinking
        row["content"] = None
        row["reasoning_content"] = f"Thinking.\nAnswer: {v}"
    elif kind == 4:  # the last Answer: decides
        row["content"] = f"Answer: {v}\nHmm, no.\nAnswer: {v - 1}"
    else:  # no number at all
        row["content"] = "Answer: I cannot tell."


def write_run(d, right, rng):
    os.makedirs(os.path.join(d, "rows"))
    for ri, (rung, _, _, _) in enumerate(T4):
        order = list(range(N))
        if ri > 0:  # the reference in file order; the others not
            rng.shuffle(order)
        with open(os.path.join(d, "rows", rung + ".jsonl"), "w") as f:
            for q in order:
                ref = reference(q)
                row = {"id": f"test-{q}", "rung": rung, "reference": ref,
                       "content": None, "reasoning_content": None,
                       "finish_reason": "stop", "truncated": False,
                       "completion_tokens": 150 + q % 200,
                       "decode_tps": round(30.0 + 4 * ri + (q % 5) / 10, 1),
                       "error": None}
                if right[rung][q]:
                    row["content"] = right_content(ref, rng)
                else:
                    wrong_row(row, ref, rng)
                f.write(json.dumps(row) + "\n")
    with open(os.path.join(d, "ladder.tsv"), "w") as f:
        f.write("rung\tfile\tbytes\tsha256\n")
        for rung, _, _, _ in T4:
            f.write(f"{rung}\tmodels/{rung}.gguf\t{BYTES[rung]}\t"
                    f"{hashlib.sha256(rung.encode()).hexdigest()}\n")


# ---------------------------------------------------------------- reading

def num(cell):
    """'1,319' -> 1319; '—' (the reference's dead, ghosts) -> None."""
    cell = cell.strip()
    if cell in ("—", "-", ""):
        return None
    return int(cell.replace(",", ""))


def ladder_table(md):
    """The rows of the first table under '## The ladder': dicts keyed by
    the header's cells."""
    lines = md.splitlines()
    try:
        start = lines.index("## The ladder")
    except ValueError:
        raise ValueError("REPORT.md has no '## The ladder' section")
    table = []
    for line in lines[start + 1:]:
        if line.startswith("## "):
            break
        if line.startswith("|"):
            table.append([c.strip() for c in line.strip().strip("|")
                          .split("|")])
        elif table:
            break
    if len(table) < 3:
        raise ValueError("no table under '## The ladder'")
    head = table[0]
    if not all(re.fullmatch(r":?-+:?", c) for c in table[1]):
        raise ValueError(f"the table's second line is not a rule: "
                         f"{table[1]}")
    return head, [dict(zip(head, r)) for r in table[2:]], table


def column(head, prefix):
    for h in head:
        if h.startswith(prefix):
            return h
    raise ValueError(f"the ladder table has no column '{prefix}...': "
                     f"{head}")


def check_counts(label, got):
    """got: list of (rung, right, dead, ghosts, n or None) as read."""
    problems = []
    names = [g[0] for g in got]
    want = [t[0] for t in T4]
    check(f"{label} rungs", [] if names == want else
          [f"rungs {names}, want {want}"], " ".join(names))
    by = {g[0]: g for g in got}
    problems = []
    for rung, r, d, g in T4:
        if rung not in by:
            problems.append(f"{rung}: missing")
            continue
        _, gr, gd, gg, _ = by[rung]
        if rung == "BF16":  # the reference: no dead or ghosts against itself
            gd = 0 if gd is None else gd
            gg = 0 if gg is None else gg
        if (gr, gd, gg) != (r, d, g):
            problems.append(f"{rung}: right/dead/ghosts {gr}/{gd}/{gg}, "
                            f"want {r}/{d}/{g}")
    check(f"{label} counts", problems, "right/dead/ghosts as the T4 article")
    problems = []
    for rung, gr, gd, gg, _ in got:
        if rung == "BF16":  # a dash there reads as 0
            gd = 0 if gd is None else gd
            gg = 0 if gg is None else gg
        if gr is None or gd is None or gg is None or \
                gr != REF_RIGHT - gd + gg:
            problems.append(f"{rung}: {gr} != {REF_RIGHT} - {gd} + {gg}")
    check(f"{label} identity", problems,
          f"right = {REF_RIGHT} - dead + ghosts on {len(got)} rows")
    problems = [f"{g[0]}: n = {g[4]}" for g in got
                if g[4] is not None and g[4] != N]
    if problems or any(g[4] is not None for g in got):
        check(f"{label} n", problems, f"{N} questions on every rung")


def from_md(path):
    with open(path, encoding="utf-8") as f:
        md = f.read()
    head, rows, _ = ladder_table(md)
    c_rung, c_right = column(head, "Rung"), column(head, "Right")
    c_dead, c_ghosts = column(head, "Dead"), column(head, "Ghosts")
    c_acc, c_bytes = column(head, "Accuracy"), column(head, "% of BF16")
    got, acc, pct = [], [], []
    for r in rows:
        got.append((r[c_rung], num(r[c_right]), num(r[c_dead]),
                    num(r[c_ghosts]), None))
        acc.append((r[c_rung], r[c_acc]))
        pct.append((r[c_rung], r[c_bytes]))
    check_counts("REPORT.md", got)
    problems = []
    for rung, cell in acc:
        m = re.match(r"([0-9.]+) \(", cell)
        right = dict((g[0], g[1]) for g in got)[rung]
        want = f"{100 * right / N:.1f}"
        if m is None or m.group(1) != want:
            problems.append(f"{rung}: accuracy '{cell}', want {want} (...)")
    check("REPORT.md accuracy", problems, "right / 250, one decimal")
    problems = []
    for rung, cell in pct:
        want = f"{100 * BYTES[rung] / BYTES['BF16']:.1f}"
        if cell != want:
            problems.append(f"{rung}: % of BF16 bytes '{cell}', want {want}")
    check("REPORT.md bytes", problems, "% of BF16 bytes from ladder.tsv")
    # the reference's own dead and ghosts: a dash or 0, nothing else
    ref = [r for r in rows if r[c_rung] == "BF16"]
    check("REPORT.md reference row",
          [] if ref and ref[0][c_dead] in ("—", "0") and
          ref[0][c_ghosts] in ("—", "0") else
          [f"BF16 row: {ref}"], "no dead or ghosts against itself")


def from_json(path):
    with open(path, encoding="utf-8") as f:
        rep = json.load(f)
    problems = []
    if rep.get("reference") != "BF16":
        problems.append(f"reference {rep.get('reference')!r}, want 'BF16'")
    check("report.json reference", problems, "BF16")
    rungs = rep.get("rungs")
    if not isinstance(rungs, list):
        raise ValueError("report.json: no \"rungs\" array")
    got = [(r.get("rung"), r.get("right"), r.get("dead"), r.get("ghosts"),
            r.get("n")) for r in rungs]
    check_counts("report.json", got)
    problems = []
    for r in rungs:
        a, want = r.get("accuracy"), r.get("right", -1) / N
        if not isinstance(a, (int, float)) or abs(a - want) > 1e-4:
            problems.append(f"{r.get('rung')}: accuracy {a}, want "
                            f"{want:.4f}")
        p, wp = r.get("pct_reference_bytes"), \
            100 * BYTES.get(r.get("rung"), 0) / BYTES["BF16"]
        if not isinstance(p, (int, float)) or abs(p - wp) > 1e-3:
            problems.append(f"{r.get('rung')}: pct_reference_bytes {p}, "
                            f"want {wp:.4f}")
        if r.get("bytes") != BYTES.get(r.get("rung")):
            problems.append(f"{r.get('rung')}: bytes {r.get('bytes')}, "
                            f"want {BYTES.get(r.get('rung'))}")
    check("report.json accuracy and bytes", problems,
          "accuracy, bytes, pct_reference_bytes")


def from_bury(out):
    lines = [json.loads(l) for l in out.splitlines() if l.strip()]
    rungs = [l for l in lines if "rung" in l]
    got = [(r["rung"], r["right"], r["dead"], r["ghosts"], r["n"])
           for r in rungs]
    check_counts("bury", got)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: reconstruct_test.py GRAVEYARD")
    g = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="graveyard-reconstruct-")
    try:
        d = os.path.join(tmp, "t4")
        rng = random.Random(4)
        write_run(d, plan(rng), rng)
        out = os.path.join(tmp, "out")
        steps = [
            lambda: run([g, "report", d, "--rungs",
                         ",".join(t[0] for t in T4), "--out", out]),
            lambda: from_md(os.path.join(out, "REPORT.md")),
            lambda: from_json(os.path.join(out, "report.json")),
            lambda: from_bury(run([g, "bury", d] + [t[0] for t in T4]
                                  + ["--json",
                                     os.path.join(tmp, "graveyard.json")])),
        ]
        for step in steps:
            try:
                step()
            except (RuntimeError, ValueError, OSError, KeyError,
                    TypeError) as e:
                S.fail(e)
                if step is steps[0]:
                    break  # no report: nothing to read
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return S.end()


if __name__ == "__main__":
    sys.exit(main())
