#!/usr/bin/env python3
"""make bench-longctx: what a long answer costs the client, in one run.

`graveyard long` fits 20 niah-single items to 1,024 and to 65,536 tokens
by the fake llama-server's /tokenize; `graveyard run` asks each set of
one rung on the fake (needles mode: it finds the needle, answers at once,
prompt time simulated, not slept). From each rung's .done (the runner's
own figures: its CPU seconds, its peak RSS, the bytes it wrote to rows/)
the bench reports, per answer: client CPU milliseconds, bytes written,
peak RSS; the 64K figures over the 1K ones (the baseline, same run); and
`graveyard long`'s seconds per 64K item (its /tokenize counts included).
Then the question loader on 540 64K items (the 20 made, each 27 times
under other ids), by qload (tests/bench/qload.c): as the runner loads
them (each prompt made once, to be sure it can be) against as the
report's pages do (no prompt made), best of 3 each, and the ratio.

It fails (exit 1) when a 64K answer's row passes 2 KiB (the prompt must
never be in the row: docs/longctx.md), the fake's needles are not all
found (the prompt not the one fitted), or the pages' load is not at least
5x the runner's (a prompt made where none is needed). The generator alone, under 50 ms
a 64K item, is make bench-haystack's (it runs first).
Usage: longctx_bench.py --graveyard G --fake F --qload Q."""
import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

ITEMS = 20


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start_fake(fake, model, ctx):
    port = free_port()
    p = subprocess.Popen([fake, "-m", model, "--host", "127.0.0.1", "--port",
                          str(port), "-c", str(ctx)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(100):
        try:
            urllib.request.urlopen(url + "/health", timeout=1).read()
            return p, url
        except OSError:
            time.sleep(0.1)
    p.kill()
    sys.exit("longctx_bench: the fake did not start")


def make(g, url, length, out):
    t0 = time.monotonic()
    subprocess.run([g, "long", "--tokenize", url, "--lengths", str(length),
                    "--kinds", "niah-single", "--items", str(ITEMS), "--out",
                    out], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=600)
    return (time.monotonic() - t0) / ITEMS


def run(g, fake, model, qfile, rundir):
    subprocess.run([g, "run", "R", model, qfile, rundir, "--llama", fake,
                    "--task", "ruler", "--quiet"], check=True,
                   stdout=subprocess.DEVNULL, timeout=600)
    done = json.load(open(os.path.join(rundir, "rows", "R.done")))
    rows = os.path.join(rundir, "rows", "R.jsonl")
    with open(rows) as f:
        longest = max(len(line) for line in f)
    return done, longest


LOAD_ITEMS = 540


def load_times(qload, src, dst):
    """The best of 3 loads of LOAD_ITEMS long items from src's, each way."""
    lines = [json.loads(x) for x in open(src) if x.strip()]
    with open(dst, "w") as f:
        for k in range(LOAD_ITEMS):
            o = dict(lines[k % len(lines)])
            o["id"] = f"{o['id']}#{k}"
            f.write(json.dumps(o) + "\n")
    best = {}
    for mode in ("render", "texts"):
        for _ in range(3):
            out = subprocess.run([qload, "--long", mode, dst], check=True,
                                 capture_output=True, text=True,
                                 timeout=600).stdout.split()
            if int(out[0]) != LOAD_ITEMS:
                sys.exit(f"longctx_bench: qload read {out[0]} items")
            best[mode] = min(best.get(mode, 1e9), float(out[1]))
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--graveyard", required=True)
    ap.add_argument("--fake", required=True)
    ap.add_argument("--qload", required=True)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="graveyard-longbench-")
    try:
        model = os.path.join(tmp, "needles.gguf")
        with open(model, "w") as f:
            json.dump({"fake_llama_server": 1, "decode_tps": 1000.0,
                       "needles": True, "prompt_tps": 1e6,
                       "default": {"content": "no"}}, f)
        p, url = start_fake(a.fake, model, 80000)
        try:
            per_item = {}
            for n in (1024, 65536):
                per_item[n] = make(a.graveyard, url, n,
                                   os.path.join(tmp, f"q{n}.jsonl"))
        finally:
            p.kill()
            p.wait()
        fig = {}
        for n in (1024, 65536):
            done, longest = run(a.graveyard, a.fake, model,
                                os.path.join(tmp, f"q{n}.jsonl"),
                                os.path.join(tmp, f"r{n}"))
            r = done["run"]
            fig[n] = (1000 * r["cpu_s"] / done["n"],
                      r["rows_bytes_written"] / done["n"], r["peak_rss_kb"],
                      longest, done["right"], done["n"])
        print("longctx bench: one rung of 20 niah-single items on the fake "
              "(needles mode), graveyard run's own figures (.done)")
        print(f"{'length':>8} {'CPU ms/answer':>14} {'bytes/answer':>13} "
              f"{'longest row':>12} {'peak RSS KiB':>13} {'right':>7} "
              f"{'long: s/item':>13}")
        for n in (1024, 65536):
            c, b, rss, longest, right, total = fig[n]
            print(f"{n:>8} {c:>14.2f} {b:>13.0f} {longest:>12} {rss:>13} "
                  f"{right:>3}/{total:<3} {per_item[n]:>13.3f}")
        s, l = fig[1024], fig[65536]
        print(f"64K over 1K: CPU {l[0] / s[0]:.2f}x, bytes {l[1] / s[1]:.2f}x, "
              f"peak RSS {l[2] / s[2]:.2f}x")
        load = load_times(a.qload, os.path.join(tmp, "q65536.jsonl"),
                          os.path.join(tmp, "q540.jsonl"))
        print(f"question load, {LOAD_ITEMS} items at 64K: as the runner "
              f"(each prompt made once) {load['render']:.3f} s, as the "
              f"report's pages (none made) {load['texts']:.3f} s: "
              f"{load['render'] / load['texts']:.1f}x")
        bad = []
        if load["render"] < 5 * load["texts"]:
            bad.append(f"the pages' load is {load['texts']:.3f} s, not 5x "
                       f"under the runner's {load['render']:.3f} s")
        if l[3] > 2048:
            bad.append(f"a 64K row of {l[3]} bytes (over 2 KiB: a prompt?)")
        if l[4] != l[5]:
            bad.append(f"{l[4]} of {l[5]} right at 64K on the fake")
        for b in bad:
            print("longctx bench: FAIL " + b)
        return 1 if bad else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
