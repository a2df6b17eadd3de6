#!/usr/bin/env python3
# By hand, not in make check (the real files are not committed): every
# tensor's type, element count and bytes and the quantize key-values as
# `graveyard tensors --json` gives them, against gguf-py's reader.
# Usage: PYTHONPATH=.../gguf-py python3 scripts/tensors-vs-gguf-py.py GRAVEYARD FILE.gguf...
import json, subprocess, sys
import gguf
files = sys.argv[2:]
doc = json.loads(subprocess.check_output([sys.argv[1], "tensors", "--json"] + files))
bad = 0
for path, rec in zip(files, doc["files"]):
    r = gguf.GGUFReader(path)
    ours = {t["name"]: t for t in rec["tensor_table"]}
    assert len(ours) == len(r.tensors), (path, len(ours), len(r.tensors))
    for t in r.tensors:
        o = ours[t.name]
        ty = t.tensor_type.name
        if o["type"] != ty or o["type_id"] != int(t.tensor_type) or o["bytes"] != int(t.n_bytes) or o["elements"] != int(t.n_elements):
            bad += 1; print("DIFF", path, t.name, o, ty, t.n_bytes)
    for k in ("general.quantization_version", "general.file_type"):
        f = r.fields.get(k)
        if f is not None:
            v = str(int(f.parts[f.data[0]][0]))
            if rec["metadata"].get(k) != v: bad += 1; print("META", path, k, v, rec["metadata"].get(k))
    print(path, len(r.tensors), "tensors,", sorted({t.tensor_type.name for t in r.tensors}), "all equal" if not bad else "")
sys.exit(1 if bad else 0)
