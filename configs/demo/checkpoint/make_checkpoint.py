#!/usr/bin/env python3
"""Write the demo's made-up Hugging Face checkpoint: model.safetensors.

A small decoder's BF16 tensors (two layers of attention and gated FFN,
token embeddings and an output head; graveyard build converts them with
the fake converter, tests/fake-tools) and one F32 norm, with weights like a
real checkpoint's: most near 0.02, a position table of tiny values of
which F16 loses many (as Gemma 4's vision tower did in the study), and one
weight past F16's range so that f16-range has an overflow to show.
Deterministic: the same bytes every time. Pure Python, no numpy.
usage: python3 make_checkpoint.py [OUT]   (default: model.safetensors here)
"""
import json
import os
import random
import struct
import sys


def bf16(x):
    u = struct.unpack("<I", struct.pack("<f", x))[0]
    u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16  # round to nearest even
    return struct.pack("<H", u)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "model.safetensors")
    rng = random.Random(20261027)
    tensors = []  # (name, dtype, shape, bytes)
    for layer in range(2):
        for part, n in (("attn_q", 4096), ("ffn_up", 8192)):
            w = [rng.gauss(0, 0.02) for _ in range(n)]
            if layer == 1 and part == "ffn_up":
                w[17] = 70000.0  # past 65504: the F16 rung loses it
            tensors.append(("model.layers.%d.%s.weight" % (layer, part),
                            "BF16", [n // 64, 64],
                            b"".join(bf16(x) for x in w)))
    pos = [rng.gauss(0, 2.0 ** -22) for _ in range(4096)]
    tensors.append(("model.vision_tower.position_embedding_table", "BF16",
                    [64, 64], b"".join(bf16(x) for x in pos)))
    tensors.append(("model.norm.weight", "F32", [64],
                    b"".join(struct.pack("<f", 1.0 + rng.gauss(0, 0.1))
                             for _ in range(64))))
    # the rest of a decoder's matrices, drawn after the tensors above so
    # that theirs stay the same bytes: keys and values for 2 of 4 heads
    # (grouped-query attention), the attention's output, the gated FFN's
    # other two, the token embeddings and the output head (256 x 64)
    for layer in range(2):
        for part, n in (("attn_k", 2048), ("attn_v", 2048),
                        ("attn_output", 4096), ("ffn_gate", 8192),
                        ("ffn_down", 8192)):
            w = [rng.gauss(0, 0.02) for _ in range(n)]
            tensors.append(("model.layers.%d.%s.weight" % (layer, part),
                            "BF16", [n // 64, 64],
                            b"".join(bf16(x) for x in w)))
    for name in ("model.embed_tokens.weight", "lm_head.weight"):
        w = [rng.gauss(0, 0.02) for _ in range(16384)]
        tensors.append((name, "BF16", [256, 64],
                        b"".join(bf16(x) for x in w)))
    header, off = {"__metadata__": {"format": "pt"}}, 0
    for name, dtype, shape, data in tensors:
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [off, off + len(data)]}
        off += len(data)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(out, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h)
        for t in tensors:
            f.write(t[3])


if __name__ == "__main__":
    main()
