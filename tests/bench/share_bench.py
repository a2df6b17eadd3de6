#!/usr/bin/env python3
"""make bench: rungs_per_gpu. Ten fake rungs of one speed run as one
ladder with K = 1, 2 and 4 rungs per GPU, on 1 and 2 fake GPUs, in one run
of this script. The fake server models a shared GPU (FAKE_GPU_DIR,
docs/fake-llama-server.md): with k servers on a GPU each token takes
1 + 0.35 (k - 1) times as long (a small rung leaves most of a large GPU
idle), so K rungs give a GPU K / (1 + 0.35 (K - 1)) times the throughput.
The wall time is set against the best schedule under that model, a
rung's whole time alone taken as work that shares so: max(ten rungs /
(GPUs x that throughput), one rung), and against K = 1. Figures only."""
import argparse
import json
import os
import shutil
import subprocess
import tempfile
import time

COST = 0.35
RUNGS = 10


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--graveyard", required=True)
    ap.add_argument("--fake", required=True)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="graveyard-share-")
    env = dict(os.environ, FAKE_GPU_DIR=os.path.join(tmp, "gpus"),
               FAKE_GPU_SHARE_COST=str(COST))
    os.makedirs(env["FAKE_GPU_DIR"])
    try:
        q = os.path.join(tmp, "q.jsonl")
        with open(q, "w") as f:
            for i in range(6):
                f.write(json.dumps({"id": f"q{i}", "question": f"q {i}",
                                    "answer": "5"}) + "\n")
        m = os.path.join(tmp, "r.gguf")
        with open(m, "w") as f:  # 16 chunks a reply at 12 ms
            json.dump({"fake_llama_server": 1, "token_ms": 12,
                       "default": {"content": "x" * 55 + " Answer: 5"}}, f)
        rungs = [{"name": f"R{i}", "model": m} for i in range(RUNGS)]
        t0 = time.monotonic()
        subprocess.run([args.graveyard, "run", "solo", m, q,
                        os.path.join(tmp, "solo"), "--llama", args.fake,
                        "--quiet", "--gpu", "9"], check=True, env=env,
                       stdout=subprocess.DEVNULL)
        alone = time.monotonic() - t0
        decode = 6 * 16 * 0.012  # what a rung spends decoding
        print(f"share_bench: {RUNGS} rungs, each {alone:.2f} s alone "
              f"({decode:.2f} s of it decoding); sharing cost {COST} a "
              f"server")
        print()
        print("| GPUs | rungs per GPU | wall s | best s | wall / best | "
              "wall / K=1 |")
        print("|---:|---:|---:|---:|---:|---:|")
        for gpus in (1, 2):
            one = None
            for k in (1, 2, 4):
                cfg = os.path.join(tmp, f"l{gpus}{k}.json")
                with open(cfg, "w") as f:
                    json.dump({"name": f"share {gpus}x{k}", "questions": q,
                               "run_dir": os.path.join(tmp, f"run{gpus}{k}"),
                               "rungs": rungs,
                               "server": {"binary": args.fake},
                               "gpus": [str(g) for g in range(gpus)],
                               "rungs_per_gpu": k}, f)
                t0 = time.monotonic()
                subprocess.run([args.graveyard, "ladder", cfg, "--quiet"],
                               check=True, env=env,
                               stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
                wall = time.monotonic() - t0
                throughput = k / (1 + COST * (k - 1))
                best = max(RUNGS * alone / (gpus * throughput), alone)
                one = one or wall
                print(f"| {gpus} | {k} | {wall:.2f} | {best:.2f} | "
                      f"{wall / best:.2f} | {wall / one:.2f} |")
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
