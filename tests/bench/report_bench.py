#!/usr/bin/env python3
"""make bench (report part): the reports of a whole GSM8K ladder. Writes
4 run folders of 10 rungs x 1,319 questions (rows shaped like real ones:
a few hundred bytes of working ending "Answer: N", wrong answers getting
more common down the ladder, replies cut off at the token cap, errors,
a thinking block now and then, decode_tps; .done files and ladder.tsv
with the same sha256 in every folder, as four GPUs running one ladder
would write), then times `graveyard report` on one folder and `graveyard
compare` over the 4 with --out: wall seconds, best of 3, peak RSS, rows
and MB per second, and the ratio to the 2 s target; and the whole of it
again with --no-html, to show what the pages cost. Figures only:
nothing here is asserted on time.

usage: report_bench.py --graveyard build/graveyard [--dir build/bench]
                       [--questions 1319] [--runs 4] [--repeat 3]"""
import argparse
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

RUNGS = ["BF16", "F16", "Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M", "Q4_0",
         "Q3_K_M", "Q2_K", "IQ2_XS"]
WRONG = [0.085, 0.085, 0.09, 0.09, 0.095, 0.11, 0.12, 0.24, 0.90, 0.95]
CUT = [0.01, 0.01, 0.01, 0.012, 0.012, 0.015, 0.02, 0.05, 0.45, 0.55]
TPS = [21.0, 20.5, 38.0, 44.0, 47.0, 52.0, 55.0, 58.0, 61.0, 63.0]
BYTES = [7767405440, 7767405440, 4130402176, 3190565760, 2829696896,
         2489894272, 2371888512, 2098058624, 1729959296, 1536000000]
TARGET_S = 2.0
MAX_TOKENS = 1024
WORDS = ("the", "apples", "each", "costs", "so", "total", "left", "she",
         "buys", "hours", "per", "week", "then", "twice", "remaining",
         "dollars", "minutes", "boxes", "of", "and")


def sentence(rng):
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 14)))


def working(rng, ref):
    a = rng.randint(2, 90)
    lines = [sentence(rng).capitalize() + "." for _ in range(rng.randint(3, 6))]
    lines.insert(1, f"{a} + {ref - a} = {ref}")
    return "\n".join(lines)


def gen_run(d, nq, run_k):
    """One run folder. The questions' references and the reference
    rung's pattern are shared by every run; each run flips a few answers
    (a different GPU's rounding), so compare has disagreements to find."""
    os.makedirs(os.path.join(d, "rows"), exist_ok=True)
    base = random.Random(1319)
    refs = [base.randint(1, 5000) for _ in range(nq)]
    # a question's difficulty: the same question dies first on every run
    hard = [base.random() for _ in range(nq)]
    rng = random.Random(1000 + run_k)
    for ri, rung in enumerate(RUNGS):
        out = []
        n_tok = []
        for q in range(nq):
            ref = refs[q]
            wrong = hard[q] < WRONG[ri]
            if rng.random() < 0.02:  # this run's noise
                wrong = not wrong
            cut = wrong and rng.random() < CUT[ri] / max(WRONG[ri], 1e-9)
            tps = round(TPS[ri] * (1 + 0.04 * (rng.random() - 0.5))
                        * (1.08 if run_k % 2 else 1.0), 2)
            row = {"id": f"test-{q}", "rung": rung,
                   "reference": f"{ref:,}" if ref >= 1000 else str(ref),
                   "content": None, "reasoning_content": None,
                   "finish_reason": "stop", "truncated": False,
                   "completion_tokens": None, "decode_tps": tps,
                   "error": None}
            if cut:  # a loop until the cap
                line = sentence(rng) + "."
                row["content"] = working(rng, ref) + "\n" + \
                    "\n".join([line] * rng.randint(8, 40))
                row["finish_reason"] = "length"
                row["truncated"] = True
                row["completion_tokens"] = MAX_TOKENS
            elif wrong and rng.random() < 0.03:
                row["error"] = "HTTP 500: server closed the connection"
                row["decode_tps"] = None
            else:
                said = ref if not wrong else ref + rng.choice(
                    (-10, -2, -1, 1, 2, 5, 100))
                row["content"] = working(rng, ref) + f"\nAnswer: {said}"
                row["completion_tokens"] = len(row["content"]) // 4
                if rng.random() < 0.01:
                    row["reasoning_content"] = working(rng, ref)
            tok = row["completion_tokens"] or 0
            row.update({"extracted": None, "right": False,
                        "prompt_tokens": 90 + q % 60,
                        "prompt_ms": 41.5, "predicted_ms":
                        round(1000 * tok / tps, 1) if tps else None,
                        "http_status": 500 if row["error"] else 200,
                        "attempts": 1, "latency_ms": 30 + q % 17})
            n_tok.append(tok)
            out.append(json.dumps(row, separators=(",", ":")) + "\n")
        path = os.path.join(d, "rows", rung + ".jsonl")
        with open(path + ".tmp", "w") as f:
            f.writelines(out)
        os.replace(path + ".tmp", path)
        with open(os.path.join(d, "rows", rung + ".done"), "w") as f:
            json.dump({"rung": rung, "n": nq, "bytes": BYTES[ri],
                       "gpu_mib_before": 310,
                       "gpu_mib_loaded": 310 + BYTES[ri] // 1048576 + 900},
                      f)
    with open(os.path.join(d, "ladder.tsv"), "w") as f:
        f.write("rung\tfile\tbytes\tsha256\n")
        for ri, rung in enumerate(RUNGS):
            f.write(f"{rung}\tmodels/{rung}.gguf\t{BYTES[ri]}\t"
                    f"{hashlib.sha256(rung.encode()).hexdigest()}\n")
    with open(os.path.join(d, "ladder.json"), "w") as f:
        json.dump({"name": f"report bench, run {run_k}", "reference": "BF16",
                   "rungs": RUNGS}, f)
    with open(os.path.join(d, "ok"), "w") as f:
        f.write(f"{nq}\n")


def ensure(args, k):
    d = os.path.join(args.dir, f"report-{args.questions}q", f"gpu{k}")
    try:
        with open(os.path.join(d, "ok")) as f:
            if f.read().strip() == str(args.questions):
                return d
    except OSError:
        pass
    shutil.rmtree(d, ignore_errors=True)
    gen_run(d, args.questions, k)
    return d


def rows_bytes(d):
    return sum(os.path.getsize(os.path.join(d, "rows", r + ".jsonl"))
               for r in RUNGS)


def timed(cmd, repeat):
    """Best wall seconds of repeat runs, and the largest peak RSS (MiB)."""
    best, peak = None, 0.0
    for _ in range(repeat):
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.monotonic() - t0
        err = p.stderr.read().decode()
        p.stderr.close()
        p.returncode = os.waitstatus_to_exitcode(status)
        if p.returncode != 0:
            sys.exit(f"report bench: {' '.join(cmd)} failed "
                     f"({p.returncode}):\n{err}")
        best = wall if best is None else min(best, wall)
        peak = max(peak, ru.ru_maxrss / 1024.0)
    return best, peak


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--graveyard", required=True)
    ap.add_argument("--dir", default="build/bench")
    ap.add_argument("--questions", type=int, default=1319)
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    g = os.path.abspath(args.graveyard)
    t0 = time.monotonic()
    dirs = [ensure(args, k) for k in range(args.runs)]
    gen_s = time.monotonic() - t0
    one = len(RUNGS) * args.questions
    mb1 = rows_bytes(dirs[0]) / 1e6
    mball = sum(rows_bytes(d) for d in dirs) / 1e6
    print(f"reports: {args.runs} runs of {len(RUNGS)} rungs x "
          f"{args.questions} questions = {one:,} rows, {mb1:.1f} MB a run "
          f"({os.path.dirname(dirs[0])}, ready in {gen_s:.1f} s)")
    out = tempfile.mkdtemp(prefix="graveyard-report-bench-")
    try:
        r_s, r_mib = timed([g, "report", dirs[0], "--out",
                            os.path.join(out, "report")], args.repeat)
        c_s, c_mib = timed([g, "compare"] + dirs +
                           ["--out", os.path.join(out, "compare")],
                           args.repeat)
        # the whole deliverable: every run's report, then the comparison
        script = "".join(f'"$1" report "{d}" --out "{out}/all{k}" && '
                         for k, d in enumerate(dirs))
        script += f'"$1" compare {" ".join(chr(34) + d + chr(34) for d in dirs)} --out "{out}/all"'
        a_s, a_mib = timed(["sh", "-c", script, "sh", g], args.repeat)
        # the same without the pages (REPORT.html, COMPARE.html): what the
        # page costs, and the figures alone for scripts
        nh_s, nh_mib = timed(["sh", "-c", script.replace(
            '--out "', '--no-html --out "'), "sh", g], args.repeat)
        # the baseline: the study's way to the same counts, a plain-Python
        # bury of each run (tests/bench/bury.py), which writes no report
        here = os.path.dirname(os.path.abspath(__file__))
        base = "".join(f'python3 "{here}/bury.py" "{d}" {" ".join(RUNGS)} && '
                       for d in dirs) + "true"
        b_s, b_mib = timed(["sh", "-c", base], 1)
        for name in ("report/REPORT.md", "report/report.json",
                     "report/cover.svg", "report/REPORT.html",
                     "report/pareto.svg", "compare/COMPARE.md",
                     "compare/COMPARE.html",
                     "compare/compare.json", "compare/compare.svg"):
            if not os.path.isfile(os.path.join(out, name)):
                sys.exit(f"report bench: {name} was not written")
        sizes = {n: os.path.getsize(os.path.join(out, n))
                 for n in ("report/cover.svg", "compare/compare.svg")}
    finally:
        shutil.rmtree(out, ignore_errors=True)
    print()
    print(f"| what | seconds (best of {args.repeat}) | rows/s | MB/s | "
          f"peak MiB | / {TARGET_S:g} s target |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, s, rows, mb, mib in (
            ("graveyard report, 1 run", r_s, one, mb1, r_mib),
            (f"graveyard compare --out, {args.runs} runs", c_s,
             one * args.runs, mball, c_mib),
            (f"all of it: {args.runs} reports + compare", a_s,
             one * args.runs * 2, mball * 2, a_mib),
            ("the same with --no-html (no REPORT.html, COMPARE.html)", nh_s,
             one * args.runs * 2, mball * 2, nh_mib),
            (f"baseline: Python bury of {args.runs} runs (no report)", b_s,
             one * args.runs, mball, b_mib)):
        print(f"| {name} | {s:.3f} | {rows / s:,.0f} | {mb / s:.0f} | "
              f"{mib:.0f} | {s / TARGET_S:.3f} |")
    print()
    print(f"cover.svg {sizes['report/cover.svg'] / 1024:.0f} KiB, "
          f"compare.svg {sizes['compare/compare.svg'] / 1024:.0f} KiB")
    print(f"{args.runs} reports and their comparison in {a_s:.3f} s "
          f"({a_s / TARGET_S:.3f} of the {TARGET_S:g} s target); "
          f"{b_s / a_s:.1f}x the speed of the Python bury alone ({b_s:.2f} s); "
          f"without the pages {nh_s:.3f} s, {b_s / nh_s:.1f}x")
    print(f"report {r_s:.3f} s, compare of {args.runs} runs {c_s:.3f} s: "
          f"{r_s / TARGET_S:.3f} and {c_s / TARGET_S:.3f} of the "
          f"{TARGET_S:g} s target")


if __name__ == "__main__":
    main()
