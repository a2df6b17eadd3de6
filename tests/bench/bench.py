#!/usr/bin/env python3
"""make bench: grade a synthetic ladder of 10 rungs x N questions with
graveyard (bury, then autopsy) and with the plain-Python bury beside it,
on the same rows, in one run; report MB/s, rows/s, peak memory and the
ratios. Then show that memory follows the number of questions, not the
length of the replies. Figures only: nothing here is asserted on time."""
import argparse
import json
import os
import subprocess
import sys
import tempfile

RUNGS = ["BF16", "F16", "Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M", "Q4_0",
         "Q3_K_M", "Q2_K", "IQ2_XS"]


def gen(args, questions, lines):
    run = os.path.join(args.dir, f"run-{questions}q-{lines}l")
    if not os.path.exists(os.path.join(run, "rows", RUNGS[-1] + ".jsonl")):
        subprocess.run([args.gen, run, str(questions), str(lines)],
                       check=True)
    size = sum(os.path.getsize(os.path.join(run, "rows", r + ".jsonl"))
               for r in RUNGS)
    return run, size


def timed(cmd):
    """Run cmd under GNU time: (seconds, peak RSS MiB, stdout)."""
    with tempfile.NamedTemporaryFile("r") as t:
        p = subprocess.run(["/usr/bin/time", "-f", "%e %M", "-o", t.name]
                           + cmd, capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"bench: {' '.join(cmd)} failed:\n{p.stderr}")
        secs, kib = t.read().split()[-2:]
    return float(secs), int(kib) / 1024.0, p.stdout


def fields(out):
    keep = ("rung", "n", "right", "errors", "truncated", "median_decode_tps",
            "mean_tokens", "dead", "ghosts", "answer_changed",
            "first_deaths_by_rung", "tombstones")
    return [{k: v for k, v in json.loads(line).items() if k in keep}
            for line in out.splitlines()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--graveyard", required=True)
    ap.add_argument("--gen", required=True)
    ap.add_argument("--questions", type=int, default=100000)
    ap.add_argument("--dir", default="build/bench")
    ap.add_argument("--python", default=sys.executable)
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)

    run, size = gen(args, args.questions, 5)
    rows = args.questions * len(RUNGS)
    mb = size / 1e6
    print(f"ladder: {len(RUNGS)} rungs x {args.questions} questions = "
          f"{rows} rows, {mb:.0f} MB ({run})")
    out_json = os.path.join(args.dir, "graveyard.json")
    b_s, b_mib, b_out = timed([args.graveyard, "bury", run] + RUNGS
                              + ["--json", out_json])
    a_s, a_mib, _ = timed([args.graveyard, "autopsy", run] + RUNGS)
    p_s, p_mib, p_out = timed([args.python, "tests/bench/bury.py", run]
                              + RUNGS)
    if fields(b_out) != fields(p_out):
        for x, y in zip(fields(b_out), fields(p_out)):
            if x != y:
                print(f"  graveyard: {x}\n  python:    {y}")
        sys.exit("bench: graveyard and the Python bury disagree")
    print("graveyard bury and the Python bury agree on every count")
    print()
    print("| what | seconds | MB/s | rows/s | peak MiB |")
    print("|---|---:|---:|---:|---:|")
    for name, s, mib in (("graveyard bury", b_s, b_mib),
                         ("graveyard autopsy", a_s, a_mib),
                         ("python json bury", p_s, p_mib)):
        print(f"| {name} | {s:.2f} | {mb / s:.0f} | {rows / s:,.0f} | "
              f"{mib:.0f} |")
    print()
    print(f"bury speed, graveyard / python: {p_s / b_s:.1f}x; "
          f"peak memory, python / graveyard: {p_mib / b_mib:.1f}x")

    # memory: the same questions with replies 8 times as long, and 5 times
    # the questions with the same replies
    small = max(args.questions // 5, 1000)
    r1, s1 = gen(args, small, 5)
    r2, s2 = gen(args, small, 40)
    _, m1, _ = timed([args.graveyard, "bury", r1] + RUNGS
                     + ["--json", out_json])
    _, m2, _ = timed([args.graveyard, "bury", r2] + RUNGS
                     + ["--json", out_json])
    print()
    print("| questions | MB of rows | peak MiB |")
    print("|---:|---:|---:|")
    print(f"| {small} | {s1 / 1e6:.0f} | {m1:.0f} |")
    print(f"| {small} (replies x8) | {s2 / 1e6:.0f} | {m2:.0f} |")
    print(f"| {args.questions} | {mb:.0f} | {b_mib:.0f} |")
    print(f"memory, replies x8 / x1: {m2 / m1:.2f}; "
          f"questions x{args.questions // small} : {b_mib / m1:.2f}")


if __name__ == "__main__":
    main()
