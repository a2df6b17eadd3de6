#!/usr/bin/env python3
"""make bench (fourth part): graveyard ladder's schedule. Twelve fake rungs
of known durations (each measured alone with graveyard run), slowest first
as in a real ladder (BF16 decodes slowest), run as one ladder on 1, 2 and 4
fake GPUs; the wall time is reported against the ideal schedule's lower
bound, max(sum of durations / GPUs, longest rung). Figures only."""
import argparse
import json
import os
import shutil
import subprocess
import tempfile
import time


def lpt(durations, gpus):
    """The longest-first list schedule's wall time: what the ladder does
    when the rungs come slowest first, with no overhead."""
    free = [0.0] * gpus
    for d in sorted(durations, reverse=True):
        i = free.index(min(free))
        free[i] += d
    return max(free)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--graveyard", required=True)
    ap.add_argument("--fake", required=True)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="graveyard-sched-")
    try:
        q = os.path.join(tmp, "q.jsonl")
        with open(q, "w") as f:
            for i in range(8):
                f.write(json.dumps({"id": f"q{i}", "question": f"q {i}",
                                    "answer": "5"}) + "\n")
        rungs = []
        for i in range(12):
            m = os.path.join(tmp, f"R{i}.gguf")
            with open(m, "w") as f:  # 16 chunks a reply, 15 down to 4 ms
                json.dump({"fake_llama_server": 1, "token_ms": 15 - i,
                           "default": {"content": "x" * 55 + " Answer: 5"}},
                          f)
            rungs.append({"name": f"R{i}", "model": m})
        durations = []
        for r in rungs:
            t0 = time.monotonic()
            subprocess.run([args.graveyard, "run", r["name"], r["model"], q,
                            os.path.join(tmp, "solo"), "--llama", args.fake,
                            "--quiet"], check=True, stdout=subprocess.DEVNULL)
            durations.append(time.monotonic() - t0)
        print(f"12 rungs alone: {sum(durations):.2f} s in all, "
              f"{min(durations):.2f} to {max(durations):.2f} s each")
        print()
        print("| GPUs | wall s | lower bound s | wall / bound | longest-first "
              "s | wall / longest-first |")
        print("|---:|---:|---:|---:|---:|---:|")
        for gpus in (1, 2, 4):
            cfg = os.path.join(tmp, f"ladder{gpus}.json")
            with open(cfg, "w") as f:
                json.dump({"name": f"sched {gpus}", "questions": q,
                           "run_dir": os.path.join(tmp, f"run{gpus}"),
                           "rungs": rungs,
                           "server": {"binary": args.fake},
                           "gpus": [str(g) for g in range(gpus)]}, f)
            t0 = time.monotonic()
            subprocess.run([args.graveyard, "ladder", cfg, "--quiet"],
                           check=True, stdout=subprocess.DEVNULL)
            wall = time.monotonic() - t0
            ideal = max(sum(durations) / gpus, max(durations))
            best = lpt(durations, gpus)
            print(f"| {gpus} | {wall:.2f} | {ideal:.2f} | {wall / ideal:.3f} "
                  f"| {best:.2f} | {wall / best:.3f} |")
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
