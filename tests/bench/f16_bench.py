#!/usr/bin/env python3
"""graveyard f16-range against a plain numpy scan of the same bytes.

Writes a BF16 safetensors file of --gib GiB (tensors of 32 MiB, weights
like a checkpoint's: normal with a spread of scales, a few huge and tiny
ones so every count is non-zero), checks that both give the same lines,
then times each --runs times with warm page cache and prints the ratio and
graveyard's GB/s (one core: f16-range is single-threaded).

usage: f16_bench.py --graveyard BUILD/graveyard [--gib 1] [--runs 3]
       [--numpy-runs 1]
"""
import argparse
import json
import os
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def write_file(path, gib):
    per = 16 << 20  # elements a tensor: 32 MiB of BF16
    count = max(1, (gib << 30) // (2 * per))
    header = {}
    for i in range(count):
        header["model.layers.%d.weight" % i] = {
            "dtype": "BF16", "shape": [4096, per // 4096],
            "data_offsets": [i * 2 * per, (i + 1) * 2 * per]}
    h = json.dumps(header).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    rng = np.random.default_rng(7)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h)
        for i in range(count):
            scale = np.float32(2.0) ** rng.uniform(-30, 14, per // 4096)
            x = rng.standard_normal(per, dtype=np.float32)
            x *= np.repeat(scale, 4096).astype(np.float32)
            b = (x.view(np.uint32) >> 16).astype(np.uint16)
            f.write(b.tobytes())
    return count * 2 * per


def timed(argv, runs):
    best = []
    for _ in range(runs):
        t = time.perf_counter()
        out = subprocess.run(argv, stdout=subprocess.PIPE, check=True).stdout
        best.append(time.perf_counter() - t)
    return sorted(best), out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--graveyard", required=True)
    ap.add_argument("--gib", type=int, default=1)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--numpy-runs", type=int, default=1,
                    help="numpy takes ~30 s a GiB: once is enough")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="graveyard-f16bench-") as d:
        path = os.path.join(d, "model.safetensors")
        nbytes = write_file(path, a.gib)
        ours = [a.graveyard, "f16-range", "--quiet", path]
        theirs = ["/usr/bin/python3", os.path.join(HERE, "f16_range_numpy.py"),
                  path]
        subprocess.run(["cat", path], stdout=subprocess.DEVNULL, check=True)
        t_ours, out_ours = timed(ours, a.runs)
        # its peak memory, from GNU time (a forked Python child would
        # count the parent's pages too)
        tfile = os.path.join(d, "rss")
        subprocess.run(["/usr/bin/time", "-o", tfile, "-f", "%M"] + ours,
                       stdout=subprocess.DEVNULL, check=True)
        with open(tfile) as f:
            rss_kb = int(f.read().split()[-1])
        t_np, out_np = timed(theirs, a.numpy_runs)
        if out_ours != out_np:
            sys.exit("f16-bench: graveyard and numpy disagree on %s" % path)
        med_o, med_n = t_ours[len(t_ours) // 2], t_np[len(t_np) // 2]
        total = json.loads(out_ours.splitlines()[-1])
        print("f16-range bench: %.2f GiB BF16, %d tensors, %d overflow, "
              "%d underflow, %d subnormal (numpy agrees line for line)"
              % (nbytes / 2**30, total["tensors"], total["overflow"],
                 total["underflow"], total["subnormal"]))
        print("  graveyard f16-range: median %.3f s (min %.3f max %.3f), "
              "%.2f GB/s, peak RSS %.1f MB for a %.2f GB file"
              % (med_o, t_ours[0], t_ours[-1], nbytes / med_o / 1e9,
                 rss_kb / 1e3, nbytes / 1e9))
        print("  numpy (plain scan):  median %.3f s (min %.3f max %.3f), "
              "%.2f GB/s" % (med_n, t_np[0], t_np[-1], nbytes / med_n / 1e9))
        print("  ratio numpy/graveyard: %.1fx (aim: >= 10x and >= 2 GB/s)"
              % (med_n / med_o))


if __name__ == "__main__":
    main()
