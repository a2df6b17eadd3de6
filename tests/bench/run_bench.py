#!/usr/bin/env python3
"""make bench (second half): one rung of N questions x 300 streamed tokens
against the fake llama-server in its fastest mode, asked by graveyard run
and by a plain Python client (http.client, one request at a time, a row
appended and synced per answer: the way a study script talks to the
server), in one run. Reports CPU seconds per 1,000 tokens, requests per
second, peak RSS and bytes written per question, and how soon after the
server became healthy graveyard sent its first question. Figures only."""
import argparse
import http.client
import json
import os
import re
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time

TOKENS = 300


def fake_model(path):
    body = ("x" * (4 * (TOKENS - 3) - 1)) + " Answer: 5"
    with open(path, "w") as f:
        json.dump({"fake_llama_server": 1, "decode_tps": 1000.0,
                   "default": {"content": body}}, f)


def questions(path, n):
    with open(path, "w") as f:
        for i in range(n):
            f.write(json.dumps({"id": f"q{i}", "question":
                                f"Question number {i}: how many?",
                                "answer": "5"}) + "\n")


def python_client(fake, model, qpath, rows_path):
    """The baseline: what a study script does, in plain Python."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    server = subprocess.Popen([fake, "-m", model, "--host", "127.0.0.1",
                               "--port", str(port)],
                              stderr=subprocess.DEVNULL)
    try:
        while True:
            try:
                c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
                c.request("GET", "/health")
                if c.getresponse().status == 200:
                    break
            except OSError:
                pass
            time.sleep(0.05)
        qs = [json.loads(l) for l in open(qpath)]
        ru0 = resource.getrusage(resource.RUSAGE_SELF)
        t0 = time.monotonic()
        out = open(rows_path, "a")
        tokens = 0
        for q in qs:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            body = json.dumps({"messages": [{"role": "user",
                                             "content": q["question"]}],
                               "stream": True, "temperature": 0, "seed": 0,
                               "cache_prompt": False, "max_tokens": 1024})
            c.request("POST", "/v1/chat/completions", body,
                      {"Content-Type": "application/json"})
            resp = c.getresponse()
            content, finish, timings = [], None, {}
            for line in resp:
                line = line.strip()
                if not line.startswith(b"data: ") or line == b"data: [DONE]":
                    continue
                chunk = json.loads(line[6:])
                for ch in chunk.get("choices", []):
                    d = ch.get("delta", {})
                    if d.get("content"):
                        content.append(d["content"])
                    finish = ch.get("finish_reason") or finish
                timings = chunk.get("timings", timings)
            text = "".join(content)
            m = re.search(r"Answer:\s*([-\d,.]+)", text)
            tokens += timings.get("predicted_n", 0)
            out.write(json.dumps({"id": q["id"], "content": text,
                                  "finish_reason": finish,
                                  "extracted": m.group(1) if m else None,
                                  "decode_tps": timings.get(
                                      "predicted_per_second")}) + "\n")
            out.flush()
            os.fsync(out.fileno())
            c.close()
        wall = time.monotonic() - t0
        ru = resource.getrusage(resource.RUSAGE_SELF)
        out.close()
        cpu = (ru.ru_utime - ru0.ru_utime) + (ru.ru_stime - ru0.ru_stime)
        return {"cpu": cpu, "wall": wall, "rss_kb": ru.ru_maxrss,
                "tokens": tokens, "bytes": os.path.getsize(rows_path)}
    finally:
        server.terminate()
        server.wait()


def graveyard(g, fake, model, qpath, rundir):
    t0 = time.monotonic()
    p = subprocess.run([g, "run", "BENCH", model, qpath, rundir, "--llama",
                        fake, "--quiet"], capture_output=True, text=True)
    wall = time.monotonic() - t0
    if p.returncode != 0:
        sys.exit(f"bench: graveyard run failed:\n{p.stderr}")
    done = json.loads(p.stdout)
    log = open(os.path.join(rundir, "logs", "BENCH.server.log")).read()
    ready = int(re.search(r"health ok at (\d+) ms", log).group(1))
    first = int(re.search(r"first chat request at (\d+) ms", log).group(1))
    rows = os.path.join(rundir, "rows", "BENCH.jsonl")
    tokens = sum(json.loads(l)["completion_tokens"] for l in open(rows))
    return {"cpu": done["run"]["cpu_s"], "wall": wall,
            "rss_kb": done["run"]["peak_rss_kb"], "tokens": tokens,
            "bytes": done["run"]["rows_bytes_written"], "n": done["n"],
            "first_ms": first - ready}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--graveyard", required=True)
    ap.add_argument("--fake", required=True)
    ap.add_argument("--questions", type=int, default=2000)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="graveyard-runbench-")
    try:
        model = os.path.join(tmp, "fast.gguf")
        fake_model(model)
        results = {}
        for n in (args.questions // 4, args.questions):
            q = os.path.join(tmp, f"q{n}.jsonl")
            questions(q, n)
            results[n] = graveyard(args.graveyard, args.fake, model, q,
                                   os.path.join(tmp, f"run{n}"))
        n = args.questions
        py = python_client(args.fake, model, q, os.path.join(tmp, "py.jsonl"))
        g = results[n]
        print(f"one rung: {n} questions x {TOKENS} streamed tokens, "
              f"fake llama-server at full speed")
        print()
        print("| client | CPU s / 1,000 tokens | requests/s | peak RSS MiB "
              "| bytes written / question |")
        print("|---|---:|---:|---:|---:|")
        for name, r in (("graveyard run", g), ("python http.client", py)):
            print(f"| {name} | {1000 * r['cpu'] / r['tokens']:.4f} | "
                  f"{n / r['wall']:.0f} | {r['rss_kb'] / 1024:.1f} | "
                  f"{r['bytes'] / n:.0f} |")
        print()
        print(f"CPU per token, python / graveyard: "
              f"{(py['cpu'] / py['tokens']) / (g['cpu'] / g['tokens']):.1f}x")
        small = results[args.questions // 4]
        print(f"graveyard peak RSS: {small['rss_kb'] / 1024:.1f} MiB at "
              f"{args.questions // 4} questions, {g['rss_kb'] / 1024:.1f} MiB "
              f"at {n}")
        print(f"first question sent {g['first_ms']} ms after the server "
              f"answered /health 200 (the fake's clock, 1 ms resolution)")
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
