#!/usr/bin/env python3
"""make bench (probs part): what logprobs cost the grading. Writes one run
folder of 10 rungs x 1,319 questions (report_bench.py's rows), copies it,
and gives the copy a probs file per rung (probsgen, the runner's encoder;
top N = 8 by default), then runs `graveyard report --no-html` on each in
turn, A B A B ..., and prints the median wall and CPU seconds, the peak
RSS, their ratios, and the probs files' size beside the peak's growth: the
grading holds one question's tokens at a time, so the peak must not grow
with the files. Exits 1 when the peak grows by more than a tenth of the
probs files' bytes; the time against the issue's target (under 3x) is a
figure, printed, not asserted (a shared machine's timing is no test).

usage: probs_bench.py --graveyard build/graveyard --probsgen build/probsgen
                      [--dir build/bench] [--questions 1319] [--topn 8]
                      [--runs 5]"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report_bench  # noqa: E402  (the rows generator)


def run_once(cmd, peak_file):
    """Wall seconds, CPU seconds and peak RSS (MiB) of one run. The peak
    is /usr/bin/time's: wait4's would be at least the forked Python's
    (the child's size before it execs)."""
    t0 = time.monotonic()
    p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", peak_file]
                         + cmd, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    err = p.stderr.read().decode()
    p.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"probs bench: {' '.join(cmd)} failed:\n{err}")
    with open(peak_file) as f:
        peak = int(f.read().split()[-1]) / 1024.0
    return wall, ru.ru_utime + ru.ru_stime, peak


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--graveyard", required=True)
    ap.add_argument("--probsgen", required=True)
    ap.add_argument("--dir", default="build/bench")
    ap.add_argument("--questions", type=int, default=1319)
    ap.add_argument("--topn", type=int, default=8)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    g = os.path.abspath(args.graveyard)
    base = os.path.join(args.dir, f"probs-{args.questions}q-{args.topn}")
    plain, probs = os.path.join(base, "plain"), os.path.join(base, "probs")
    if not os.path.exists(os.path.join(probs, "ok")):
        shutil.rmtree(base, ignore_errors=True)
        report_bench.gen_run(plain, args.questions, 0)
        shutil.copytree(plain, probs)
        os.remove(os.path.join(probs, "ok"))
        subprocess.run([args.probsgen, probs, str(args.topn)]
                       + report_bench.RUNGS, check=True)
        with open(os.path.join(probs, "ok"), "w") as f:
            f.write("ok\n")
    pbytes = sum(os.path.getsize(os.path.join(probs, "rows", r + ".probs"))
                 for r in report_bench.RUNGS)
    out = tempfile.mkdtemp(prefix="graveyard-probs-bench-")
    try:
        a, b = [], []
        for k in range(args.runs + 1):  # the first pair warms the cache
            pf = os.path.join(out, "peak")
            ra = run_once([g, "report", probs, "--no-html", "--out", out], pf)
            rb = run_once([g, "report", plain, "--no-html", "--out", out], pf)
            if k:
                a.append(ra)
                b.append(rb)
    finally:
        shutil.rmtree(out, ignore_errors=True)
    med = [statistics.median(x[i] for x in a) for i in range(3)]
    medb = [statistics.median(x[i] for x in b) for i in range(3)]
    ratio = statistics.median(x[1] / y[1] for x, y in zip(a, b))
    peak_a, peak_b = max(x[2] for x in a), max(x[2] for x in b)
    grow = peak_a - peak_b
    print(f"probs bench: {len(report_bench.RUNGS)} rungs x {args.questions} "
          f"questions, top {args.topn}, probs files {pbytes / 1e6:.1f} MB")
    print(f"  report with probs:    wall {med[0]:.3f} s  cpu {med[1]:.3f} s  "
          f"peak {peak_a:.1f} MiB")
    print(f"  report without:       wall {medb[0]:.3f} s  cpu {medb[1]:.3f} s"
          f"  peak {peak_b:.1f} MiB")
    print(f"  cpu ratio (median of pairs) {ratio:.2f}x (target < 3x); peak "
          f"+{grow:.1f} MiB against {pbytes / 1048576:.0f} MiB of probs")
    print(f"  time: {'within' if ratio < 3 else 'past'} the 3x target")
    if grow * 1048576 > pbytes / 10:
        sys.exit("probs bench: the peak grew with the probs files")


if __name__ == "__main__":
    main()
