#!/usr/bin/env python3
"""make bench: what abort_loops saves on a rung shaped like the study's
Q2_K (T4: 246 of 250 answers cut off at 1,024 tokens, 228 of them
looping). The fake llama-server answers N questions, each with a few
lines of working and then, from a token between 150 and 400 (spread
evenly), one line repeated to the cap; a tenth of the questions answer
normally. The same rung is run by graveyard run with and without
--abort-loops, in one run of this script, at 2 ms a token. Prints the
wall time and tokens of each, their ratio, and graveyard repeat's
comparison of the two (any grade that differs fails the bench)."""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

CAP = 1024


def model(path, n, token_ms):
    replies = []
    for i in range(n):
        if i % 10 == 9:
            continue  # answers normally (the default)
        start = 150 + (250 * i) // max(n - 1, 1)  # tokens before the loop
        work = ("Let me work this out step by step. " * 200)[:4 * start]
        loop = f"So the total is {i + 7} apples again.\n" * 200
        replies.append({"match": f"Question number {i}:",
                        "content": work + "\n" + loop})
    with open(path, "w") as f:
        json.dump({"fake_llama_server": 1, "token_ms": token_ms,
                   "decode_tps": 1000.0 / token_ms,
                   "default": {"content": "Two lines of work.\nAnswer: 5"},
                   "replies": replies}, f)


def questions(path, n):
    with open(path, "w") as f:
        for i in range(n):
            f.write(json.dumps({"id": f"q{i}", "question":
                                f"Question number {i}: how many?",
                                "answer": "5"}) + "\n")


def run(g, fake, m, q, d, abort):
    argv = [g, "run", "Q2_K", m, q, d, "--llama", fake, "--quiet",
            "--max-tokens", str(CAP)]
    if abort:
        argv.append("--abort-loops")
    t0 = time.monotonic()
    p = subprocess.run(argv, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if p.returncode != 0:
        sys.exit(f"abort_bench: graveyard run failed:\n{p.stderr}")
    rows = [json.loads(l) for l in open(os.path.join(d, "rows",
                                                     "Q2_K.jsonl"))]
    return {"wall": wall, "tokens": sum(r["completion_tokens"] or 0
                                        for r in rows),
            "aborted": sum(r["finish_reason"] == "loop" for r in rows),
            "saved": sum(r.get("tokens_saved") or 0 for r in rows)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--graveyard", required=True)
    ap.add_argument("--fake", required=True)
    ap.add_argument("--questions", type=int, default=20)
    ap.add_argument("--token-ms", type=int, default=2)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="graveyard-abortbench-")
    try:
        m, q = os.path.join(tmp, "q2k.gguf"), os.path.join(tmp, "q.jsonl")
        model(m, a.questions, a.token_ms)
        questions(q, a.questions)
        full = run(a.graveyard, a.fake, m, q, os.path.join(tmp, "full"),
                   False)
        cut = run(a.graveyard, a.fake, m, q, os.path.join(tmp, "cut"), True)
        rep = subprocess.run([a.graveyard, "repeat", os.path.join(tmp, "cut"),
                              os.path.join(tmp, "full"), "Q2_K"],
                             capture_output=True, text=True)
        line = json.loads(rep.stdout)
        print(f"abort_bench: {a.questions} questions, loops from token 150 "
              f"to 400 of {CAP}, {a.token_ms} ms a token")
        print(f"  without abort_loops: {full['wall']:6.2f} s  "
              f"{full['tokens']:6d} tokens")
        print(f"  with abort_loops:    {cut['wall']:6.2f} s  "
              f"{cut['tokens']:6d} tokens  ({cut['aborted']} cut short, "
              f"{cut['saved']} tokens saved at most)")
        print(f"  wall {cut['wall'] / full['wall']:.2f}x, tokens "
              f"{cut['tokens'] / full['tokens']:.2f}x; grades differing: "
              f"{line['mismatched_right']} of {line['n']}, extracted "
              f"answers differing: {line['mismatched_extracted']}")
        if line["mismatched_right"] or line["mismatched_extracted"]:
            sys.exit("abort_bench: abort_loops changed an answer")
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
