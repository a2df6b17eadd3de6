#!/usr/bin/env python3
"""make bench: loading question files of 10,000 and 100,000 questions, as
graveyard run does (tests/bench/qload.c, through questions.h), beside a
plain Python reader of the same files (json.loads per line, the ids in a
set to refuse duplicates), in one run. Reports the best of 3 for each and
two ratios: 100k / 10k for graveyard (10 when loading is linear; it was
quadratic, 22 s for 100,000, before issue 9), and graveyard against
Python. Figures only: it fails no build."""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time


def write(path, n):
    with open(path, "w") as f:
        for i in range(n):
            f.write(json.dumps({"id": f"test-{i}", "question":
                                f"Question {i}: Tom has {i} apples and gets "
                                "2 more. How many apples does he have?",
                                "answer": str(i + 2)}) + "\n")


def python_load(path):
    seen, qs = set(), []
    with open(path) as f:
        for line in f:
            o = json.loads(line)
            if o["id"] in seen:
                raise SystemExit("duplicate")
            seen.add(o["id"])
            qs.append(o)
    return len(qs)


def best(fn, runs=3):
    t = []
    for _ in range(runs):
        a = time.perf_counter()
        fn()
        t.append(time.perf_counter() - a)
    return min(t)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qload", required=True)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        out = {}
        for n in (10000, 100000):
            path = os.path.join(d, f"q{n}.jsonl")
            write(path, n)

            def ours():
                r = subprocess.run([a.qload, path], capture_output=True,
                                   text=True, check=True)
                assert int(r.stdout) == n
            out[n] = (best(ours), best(lambda: python_load(path)))
            print(f"questions {n:>7,}: graveyard {out[n][0]:.3f} s, "
                  f"python {out[n][1]:.3f} s")
        print(f"questions: 100k / 10k = {out[100000][0] / out[10000][0]:.1f} "
              f"for graveyard (10 is linear), "
              f"{out[100000][1] / out[10000][1]:.1f} for python; graveyard "
              f"takes {out[100000][0] / out[100000][1]:.2f}x python's time "
              "on 100,000")


if __name__ == "__main__":
    sys.exit(main())
