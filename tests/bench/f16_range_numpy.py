#!/usr/bin/env python3
"""A plain numpy f16-range: the baseline `make bench` times graveyard
f16-range against, and the second opinion the bench checks its counts with.

Reads a safetensors file the way the study's f16_range.py did: each BF16 or
F32 tensor widened to float32, cast to float16 by numpy (round to nearest,
ties to even), and counted. Prints the same lines as graveyard f16-range
(without "skipped" detail beyond names and dtypes).
usage: f16_range_numpy.py FILE.safetensors
"""
import json
import struct
import sys

import numpy as np

np.seterr(over="ignore")


def counts(x32):
    fin = np.isfinite(x32)
    h = x32.astype(np.float16)
    a = np.abs(x32)
    ah = np.abs(h)
    over = int(np.count_nonzero(fin & np.isinf(h)))
    under = int(np.count_nonzero((x32 != 0) & (h == 0)))
    sub = int(np.count_nonzero((ah > 0) & (ah < np.float16(2.0 ** -14))))
    finite = a[fin]
    absmax = float(finite.max()) if finite.size else 0.0
    nonfinite = int(x32.size - np.count_nonzero(fin))
    return over, under, sub, absmax, nonfinite


def main():
    path = sys.argv[1]
    with open(path, "rb") as f:
        (hlen,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(hlen))
    base = 8 + hlen
    mm = np.memmap(path, dtype=np.uint8, mode="r")
    tot = dict(tensors=0, n=0, overflow=0, underflow=0, subnormal=0,
               absmax=0.0, nonfinite=0)
    skipped = []
    items = [(k, v) for k, v in header.items() if k != "__metadata__"]
    items.sort(key=lambda kv: kv[1]["data_offsets"][0])
    for name, t in items:
        b, e = t["data_offsets"]
        raw = mm[base + b: base + e]
        if t["dtype"] == "BF16":
            x32 = (raw.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
        elif t["dtype"] == "F32":
            x32 = raw.view(np.float32)
        elif t["dtype"] == "F16":
            x32 = raw.view(np.float16).astype(np.float32)
        else:
            skipped.append({"tensor": name, "dtype": t["dtype"]})
            continue
        o, u, s, m, nf = counts(x32)
        if t["dtype"] == "F16":  # already binary16: nothing to lose
            o = u = s = 0
        print(json.dumps({"tensor": name, "n": int(x32.size), "overflow": o,
                          "underflow": u, "subnormal": s, "absmax": m,
                          "nonfinite": nf, "dtype": t["dtype"]}))
        tot["tensors"] += 1
        tot["n"] += int(x32.size)
        tot["overflow"] += o
        tot["underflow"] += u
        tot["subnormal"] += s
        tot["absmax"] = max(tot["absmax"], m)
        tot["nonfinite"] += nf
    line = {"tensor": "TOTAL"}
    line.update(tot)
    line["skipped"] = skipped
    print(json.dumps(line))


if __name__ == "__main__":
    main()
