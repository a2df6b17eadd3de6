#!/usr/bin/env python3
"""PCRE2 against pyre, measured (issue 25 item 6; docs/grading.md, "PCRE2
against pyre, measured"). Both builds of the drivers, pyre's
(BUILD/pyre_driver, BUILD/rule_driver) and the one with PCRE2 in pyre's
place (BUILD/pcre2/: tests/pyre/pcre2/pyre_pcre2.c), answer the same
questions, and CPython 3.11's re is the judge:

1. tests/pyre/diff.py's random cases (same generator, same seed): every
   disagreement with Python counted by class, not stopped at the first;
2. the patterns lm-eval ships for GSM8K (and the grader's own) over real
   texts: GSM8K's 1,319 test solutions and the held-out 250, the
   lm-eval and llama-eval replies the import tests keep, the gsm8k-cot
   context, and every reply of the golden run folders;
3. \\d \\w \\s over every code point, and IGNORECASE over every cased one;
4. tests/tasks/rule_diff.py (lm-eval's rules against its transcription)
   with each rule_driver;
5. time: each driver over the same random cases and the same real texts.

    python3 tests/pyre/pcre2/measure.py --build build --cases 200000 --seed 1
"""
import argparse
import glob
import json
import os
import random
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import diff  # noqa: E402  tests/pyre/diff.py: the generator and the judge

# lm-eval's regex filters and regexes_to_ignore for GSM8K (gsm8k.yaml,
# gsm8k-cot*.yaml, gsm8k-cot-llama.yaml at HEAD 4e7e0d4; peers-2.md 4.1,
# 4.2), llama-eval's grader pattern, the grader's own two (task.c), and
# the task-file example of docs/tasks.md.
SHIPPED = [
    r"#### (\-?[0-9\.\,]+)",
    r"The answer is (\-?[0-9\.\,]+).",
    r"(-?[$0-9.,]{2,})|(-?[0-9]+)",
    r"The final answer is ((-?[$0-9.,]{2,})|(-?[0-9]+))",
    r",", r"\$", r"(?s).*#### ", r"\.$",
    r"\b(\d+)\b",
    r"\A\s+|\s+\Z",
    r"The answer is (\-?[0-9\.\,]+)",
]


def utf8_ok(b):
    try:
        b.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def driver_run(driver, requests, env=None):
    """run_driver with its wall time."""
    t0 = time.monotonic()
    inp = "".join(json.dumps(q) + "\n" for q in requests)
    out = subprocess.run([driver], input=inp, capture_output=True, text=True,
                         env=env)
    if out.returncode != 0:
        sys.exit("measure: %s failed (%d): %s" % (driver, out.returncode,
                                                  out.stderr.strip()[:500]))
    return ([json.loads(line) for line in out.stdout.splitlines()],
            time.monotonic() - t0)


def inline_i(pattern):
    return re.search(r"\(\?[a-zA-Z]*i[a-zA-Z-]*[:)]", pattern) is not None


def valid_text(text):
    """The text with each byte that is not UTF-8 as U+FFFD, which is, as
    Python's U+DC00 + byte is, no digit, letter or space and caseless."""
    return text.decode("utf-8", "replace").encode("utf-8")


def classify(case, py, c, driver=None):
    """None when c answers as Python does (or is an allowed refusal or
    slowness); else the class of the difference. With the driver, a
    difference on a text that is not UTF-8 is put to the test: asked again
    with the stray bytes as U+FFFD, it is "non-UTF-8 bytes" only if the
    difference goes away, else classed as that case's."""
    pattern, flags, text = case
    v = diff.verdict(py, c)
    if v in ("same", "unsupported", "slow", "skip"):
        return None
    if v == "python refuses, we accept":
        return "refusal: Python refuses, accepted"
    if v.startswith("we refuse"):
        return "refusal: Python accepts, refused"
    if v.startswith("we ran out"):
        return "step budget"
    pm, cm = py["matches"], c["matches"]
    if [m[:2] for m in pm] == [m[:2] for m in cm]:
        return "group contents (same matches)"
    if flags & 1 and driver is not None and not inline_i(pattern):
        k = (pattern, flags & ~1, text)
        if classify(k, diff.python_side(*k),
                    driver_run(driver, [diff.request(k)])[0][0]) is None:
            return "case-insensitive"
    elif inline_i(pattern) and any(ord(ch) > 127 for ch in pattern) :
        return "case-insensitive"
    if re.search(r"\{0?,?0\}", pattern):
        return "PCRE2 10.42 bug: a group repeated {0}"
    if [m[:2] for m in pm if m[0] != m[1]] == \
            [m[:2] for m in cm if m[0] != m[1]]:
        return "empty-match iteration"
    if not utf8_ok(text):
        if driver is None:
            return "non-UTF-8 bytes"
        k = (pattern, flags, valid_text(text))
        cls = classify(k, diff.python_side(*k),
                       driver_run(driver, [diff.request(k)])[0][0], driver)
        return cls or "non-UTF-8 bytes"
    if flags & 1 or inline_i(pattern):
        return "case-insensitive"
    if re.search(r"\\[dDwWsSbB]", pattern) and any(b >= 0x80 for b in text):
        return r"Unicode classes \d \w \s \b"
    return "other match difference"


def shrink(driver, case, cls, seconds=15):
    """diff.py's shrink, kept to the class and to a few seconds."""
    pattern, flags, text = case

    def same_class(p, f, t):
        k = (p, f, t)
        try:
            c = driver_run(driver, [diff.request(k)])[0][0]
        except SystemExit:
            return False
        return classify(k, diff.python_side(*k), c, driver) == cls

    stop = time.monotonic() + seconds
    changed = True
    while changed and time.monotonic() < stop:
        changed = False
        for i in range(len(text)):
            t = text[:i] + text[i + 1:]
            if same_class(pattern, flags, t):
                text, changed = t, True
                break
        for i in range(len(pattern)):
            p = pattern[:i] + pattern[i + 1:]
            if same_class(p, flags, text):
                pattern, changed = p, True
                break
    return pattern, flags, text


def random_cases(drivers, n, seed, batch=5000):
    r = random.Random(seed)
    tally = {name: {} for name in drivers}
    first = {name: {} for name in drivers}
    seconds = {name: 0.0 for name in drivers}
    ok = {name: {"same": 0, "unsupported": 0, "slow": 0, "skip": 0}
          for name in drivers}
    unsup = {name: {} for name in drivers}
    lm = {name: [0, 0] for name in drivers}  # lm-eval-shaped, as shipped
    done = 0
    while done < n:
        k = min(batch, n - done)
        cases = [diff.rand_case(r) for _ in range(k)]
        pys = [diff.python_side(*c) for c in cases]
        for name, drv in drivers.items():
            answers, secs = driver_run(drv, [diff.request(c) for c in cases])
            seconds[name] += secs
            for case, py, c in zip(cases, pys, answers):
                cls = classify(case, py, c, drv)
                if case[0] in diff.LMEVAL and case[1] == 0:
                    lm[name][0] += 1
                    lm[name][1] += cls is not None
                if cls is None:
                    v = diff.verdict(py, c)
                    ok[name][v] += 1
                    if v == "unsupported":
                        why = re.sub(r" at position \d+.*", "", c["error"])
                        unsup[name][why] = unsup[name].get(why, 0) + 1
                    continue
                tally[name][cls] = tally[name].get(cls, 0) + 1
                first[name].setdefault(cls, case)
        done += k
        print("measure: %d/%d random cases" % (done, n), file=sys.stderr)
    return tally, first, seconds, ok, unsup, lm


def real_texts():
    texts = []
    for f in ("data/gsm8k/heldout-250.jsonl", "../shared/data/gsm8k/test.jsonl"):
        if os.path.exists(f):
            for line in open(f, encoding="utf-8"):
                d = json.loads(line)
                texts.append(d.get("answer", ""))
                texts.append(d.get("question", ""))
    for f in glob.glob("tests/golden/data/imports/samples_*.jsonl"):
        for line in open(f, encoding="utf-8"):
            d = json.loads(line)
            for resp in d.get("resps", []):
                for x in resp:
                    if isinstance(x, str):
                        texts.append(x)
    for f in glob.glob("tests/golden/data/imports/*.json"):
        d = json.load(open(f, encoding="utf-8"))
        for case in d.get("task_states", {}).get("cases", {}).values():
            texts.append(case.get("response", ""))
    texts.append(open("tests/tasks/lm-eval-gsm8k-cot-context-doc2.txt",
                      encoding="utf-8").read())
    for f in glob.glob("tests/golden/data/**/rows/*.jsonl", recursive=True):
        for line in open(f, encoding="utf-8", errors="surrogateescape"):
            try:
                d = json.loads(line)
            except ValueError:
                continue
            if isinstance(d, dict):
                for key in ("content", "reasoning_content"):
                    if isinstance(d.get(key), str):
                        texts.append(d[key])
    return [t.encode("utf-8", "surrogateescape") for t in texts if t]


def shipped_over_real(drivers):
    texts = real_texts()
    cases = [(p, 0, t) for p in SHIPPED for t in texts]
    pys = [diff.python_side(*c) for c in cases]
    out = {}
    for name, drv in drivers.items():
        answers, secs = driver_run(drv, [diff.request(c) for c in cases])
        bad = [(c, a) for c, py, a in zip(cases, pys, answers)
               if diff.verdict(py, a) != "same"]
        out[name] = (len(cases), bad, secs)
    return len(texts), out


def class_sweep(drivers):
    """\\d \\w \\s over every code point but the surrogates, and (?i) of
    each cased code point over all of them."""
    every = "".join(chr(c) for c in range(0x110000)
                    if not 0xD800 <= c <= 0xDFFF)
    reqs, pys, srcs, keys = [], [], [], []
    step = 4096  # the drivers read hex in time quadratic in a line's length
    for p in (r"\d", r"\w", r"\s"):
        for i in range(0, len(every), step):
            chunk = every[i:i + step]
            reqs.append({"pattern": p, "flags": 0,
                         "text": chunk.encode("utf-8").hex()})
            pys.append([m.start() for m in re.finditer(p, chunk)])
            srcs.append(chunk)
            keys.append(p)
    cased = "".join(c for c in every
                    if c.lower() != c or c.upper() != c or c.casefold() != c
                    or c in "\u0130\u0131\u017f\u212a\u03c2\u03d1\u00b5")
    cb = cased.encode("utf-8")
    for c in cased:
        reqs.append({"pattern": "(?i)\\U%08x" % ord(c), "flags": 0,
                     "text": cb.hex()})
        pys.append([m.start() for m in re.finditer(
            "(?i)\\U%08x" % ord(c), cased)])
        srcs.append(cased)
        keys.append(c)
    out = {}
    for name, drv in drivers.items():
        answers, _ = driver_run(drv, reqs)
        res = {}
        for q, want, a, src, key in zip(reqs, pys, answers, srcs, keys):
            idx = {}  # byte offsets back to characters
            o = 0
            for k, ch in enumerate(src):
                idx[o] = k
                o += len(ch.encode("utf-8"))
            got = [idx.get(m[0], -1) for m in a.get("matches", [])]
            diffs = sorted(set(want) ^ set(got))
            name_ = key if key.startswith("\\") else "(?i) cased"
            r = res.setdefault(name_, [0, []])
            if name_ == "(?i) cased":
                diffs = [] if not diffs else [0]
                if diffs and len(r[1]) < 12:
                    r[1].append("U+%04X" % ord(key))
            else:
                r[1] += ["U+%04X" % ord(src[k]) for k in diffs][:12 - len(r[1])]
            r[0] += len(diffs)
        out[name] = res
    return len(cased), out


def rule_diff(drivers, cases, seed):
    out = {}
    for name, drv in drivers.items():
        p = subprocess.run([sys.executable, "tests/tasks/rule_diff.py", drv,
                            "--cases", str(cases), "--seed", str(seed)],
                           capture_output=True, text=True)
        out[name] = p.stdout.strip().splitlines()
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--cases", type=int, default=200000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rule-cases", type=int, default=100000)
    ap.add_argument("--rule-seed", type=int, default=15)
    args = ap.parse_args()
    if sys.version_info[:2] != (3, 11):
        sys.exit("measure: needs CPython 3.11, this is %s"
                 % sys.version.split()[0])
    signal.signal(signal.SIGALRM, diff.on_alarm)
    b = args.build
    drivers = {"pyre": b + "/pyre_driver", "pcre2": b + "/pcre2/pyre_driver"}
    rules = {"pyre": b + "/rule_driver", "pcre2": b + "/pcre2/rule_driver"}

    tally, first, seconds, ok, unsup, lm = random_cases(drivers, args.cases, args.seed)
    print("== 1. diff.py's random cases: seed %d, %d cases"
          % (args.seed, args.cases))
    classes = sorted({k for t in tally.values() for k in t})
    print("%-40s %10s %10s" % ("", "pyre", "pcre2"))
    for k in ("same", "unsupported", "slow", "skip"):
        print("%-40s %10d %10d" % (k, ok["pyre"][k], ok["pcre2"][k]))
    for k in classes:
        print("%-40s %10d %10d" % (k, tally["pyre"].get(k, 0),
                                   tally["pcre2"].get(k, 0)))
    print("%-40s %10d %10d" % ("differences in all",
                               sum(tally["pyre"].values()),
                               sum(tally["pcre2"].values())))
    print("%-40s %10.1f %10.1f" % ("driver seconds", seconds["pyre"],
                                   seconds["pcre2"]))
    print("%-40s %10s %10s" % (
        "diff.py's lm-eval patterns, unmutated",
        "%d/%d" % (lm["pyre"][1], lm["pyre"][0]),
        "%d/%d" % (lm["pcre2"][1], lm["pcre2"][0])))
    for name in drivers:
        for why, count in sorted(unsup[name].items(), key=lambda x: -x[1]):
            print("  %s refuses as not supported, Python takes: %6d  %s"
                  % (name, count, why))
    for name in drivers:
        for k in sorted(first[name]):
            small = shrink(drivers[name], first[name][k], k)
            py = diff.python_side(*small)
            c = driver_run(drivers[name], [diff.request(small)])[0][0]
            py.pop("seconds", None)
            print("  %s, %s: pattern=%r flags=%d text=%r" % ((name, k) + small))
            print("    python %s" % json.dumps(py, ensure_ascii=True))
            print("    %s %s" % (name, json.dumps(c, ensure_ascii=True)))

    n, real = shipped_over_real(drivers)
    print("== 2. the shipped patterns (%d) over %d real texts"
          % (len(SHIPPED), n))
    for name, (cases, bad, secs) in real.items():
        print("%s: %d cases, %d differ from Python, %.2f s" % (
            name, cases, len(bad), secs))
        for c, a in bad[:5]:
            print("   pattern=%r text=%r -> %s" % (c[0], c[2][:80], a))

    ncased, sweep = class_sweep(drivers)
    print("== 3. classes over every code point; (?i) over %d cased ones"
          % ncased)
    for name, res in sweep.items():
        for k, (count, ex) in res.items():
            print("%s %-12s %6d code points differ %s" % (
                name, k, count, " ".join(ex)))

    print("== 4. tests/tasks/rule_diff.py, %d cases, seed %d"
          % (args.rule_cases, args.rule_seed))
    for name, lines in rule_diff(rules, args.rule_cases,
                                 args.rule_seed).items():
        for line in lines:
            print("%s: %s" % (name, line))
    return 0


if __name__ == "__main__":
    sys.exit(main())
