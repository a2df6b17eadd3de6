#!/usr/bin/env python3
# Tests: pyre/pyre.c
# Tests: pyre/pyre_parse.c
# Tests: pyre/pyre_compile.c
# Tests: pyre/pyre_match.c
# Tests: pyre/pyre_uni.c
"""Differential test: the grader's regular expressions (pyre/pyre.h)
against the `re` of the CPython 3.11 that runs this script.

Random patterns from the supported grammar (a quarter of them shaped like
lm-eval-harness's GSM8K filters and their mutations, the rest anything,
now and then with a stray special character so that errors are compared
too) run over random texts (ASCII, digits, "$.,-#", newlines, letters and
digits outside ASCII, cased letters with odd foldings, and bytes that are
not UTF-8, which Python sees through errors="surrogateescape"). For each
case Python's finditer (every group's span, as byte offsets) and
re.sub(p, "", text) must equal what tests/pyre/pyre_driver prints; str.lower()
is compared on the texts too. A pattern Python refuses must be refused;
one we refuse with "not supported" in the message while Python takes it
is counted, not failed (pyre.h lists what is not supported).

The first difference stops the run: the case is shrunk (characters of
the text, then of the pattern, taken out while it still differs) and
printed as a reproducer. Last line: "pyre: N passed, M failed".

    python3 tests/pyre/diff.py --driver build/pyre_driver --cases 3000 --seed 1
"""
import argparse
import json
import random
import re
import signal
import subprocess
import sys
import time
import warnings

FLAG_BITS = ((1, re.IGNORECASE), (2, re.DOTALL), (4, re.MULTILINE))
PY_SECONDS = 1.0  # Python's time for one case; past it the case is skipped
# Our step budget ends some searches that Python finishes: fine when Python
# itself took this long, a failure (we are far slower) when it did not.
SLOW_SECONDS = 0.2

# ---- texts --------------------------------------------------------------

ASCII = "abcxyzABCXYZ_"
DIGITS = "0123456789"
PUNCT = "$.,-#:;!?()[]{}*+'\"/\\%&@"
SPACE = " \t\n\r\x0b\x0c"
# letters and digits past ASCII, and the case-folding oddities of re
# (dotted and dotless i, long s, sharp s, Kelvin, Greek sigma and micro)
UNI = ("é", "É", "İ", "ı", "ß", "ẞ", "ſ", "\u212a", "Σ", "σ", "ς", "µ", "μ",
       "α", "Ω", "ω", "θ", "ϑ", "٣", "٤", "०", "١", "²", "½", "\u00a0",
       "\u2028", "\x85", "\u3000", "ǅ", "ǆ", "Ǆ", "ﬅ", "ﬆ", "\u0345", "ι",
       "😀", "\U00010400", "\U00010428", "中", "\u0301")
BAD = (b"\xff", b"\xc3", b"\x80", b"\xe2\x82", b"\xed\xa0\x80", b"\xf4\x90")
PHRASES = ("The answer is ", "#### ", "The final answer is ", "Answer: ",
           "Question: ", " clips.", "Between ", " days", "\n\n", "$",
           "1,072", "3-4", "1072.00", "...", "-5", "42", "0.5", "1,000,000")


def rand_number(r):
    s = r.choice(["", "", "-", "$", "-$"])
    s += str(r.randint(0, 10 ** r.randint(1, 7)))
    if r.random() < 0.3:
        s = re.sub(r"(\d)(?=(\d{3})+$)", r"\1,", s)
    if r.random() < 0.3:
        s += "." + str(r.randint(0, 99))
    if r.random() < 0.2:
        s += r.choice([".", "..", ",", "."])
    return s


def rand_text(r):
    """Bytes: mostly UTF-8, sometimes not."""
    out = []
    n = r.choice([0, 1, 2, 3, 5, 8, 12, 20, 30, 40])
    for _ in range(n):
        k = r.random()
        if k < 0.25:
            out.append(r.choice(DIGITS).encode())
        elif k < 0.45:
            out.append(r.choice(ASCII).encode())
        elif k < 0.58:
            out.append(r.choice(PUNCT).encode())
        elif k < 0.68:
            out.append(r.choice(SPACE).encode())
        elif k < 0.80:
            out.append(r.choice(UNI).encode())
        elif k < 0.90:
            out.append(r.choice(PHRASES).encode())
        elif k < 0.97:
            out.append(rand_number(r).encode())
        else:
            out.append(r.choice(BAD))
    return b"".join(out)


# ---- patterns -------------------------------------------------------------
#
# Each generator returns (pattern, sample): a string the pattern has a fair
# chance to match, which the text then carries, so that most cases match
# something and groups, repeats and backtracking get exercised.

LMEVAL = (r"#### (\-?[0-9\.\,]+)", r"The answer is (\-?[0-9\.\,]+).",
          r"(-?[$0-9.,]{2,})|(-?[0-9]+)",
          r"The final answer is ((-?[$0-9.,]{2,})|(-?[0-9]+))",
          r",", r"\$", r"(?s).*#### ", r"\.$", r"\.0+$", r"(?i)answer: (\d+)",
          r"(\d+(?:,\d{3})*(?:\.\d+)?)", r"[-+]?\d*\.?\d+", r"\$?(\d[\d,]*)",
          r"^\s*(-?\d+)\s*$", r"(?m)^#### (.*)$", r"\b\d+\b")
SPECIAL = ".^$*+?{}[]\\|()"
LIT_CHARS = "abcxyzAB019_ $.,-#:\n" + "éİıßſΣσ٣\u212a😀"
ESCAPED = {r"\.": ".", r"\$": "$", r"\-": "-", r"\,": ",", "\\\\": "\\",
           r"\(": "(", r"\)": ")", r"\[": "[", r"\]": "]", r"\{": "{",
           r"\}": "}", r"\*": "*", r"\+": "+", r"\?": "?", r"\|": "|",
           r"\^": "^", r"\#": "#", r"\:": ":", r"\/": "/", r"\n": "\n",
           r"\t": "\t", r"\r": "\r", r"\f": "\f", r"\v": "\v", r"\a": "\a",
           r"\x41": "A", r"\x2e": ".", r"\u00e9": "é", r"\u0130": "İ",
           r"\U0001f600": "😀", r"\0": "\0", r"\012": "\n", r"\101": "A"}
# escapes Python refuses, or that we do not support
ODD_ESCAPES = (r"\e", r"\N{DIGIT ONE}", r"\9", r"\1", r"\400", r"\x4",
               r"\u12", r"\U00110000", "\\")
SHORT = {r"\d": "0٣7", r"\D": "a.é", r"\w": "aé_5", r"\W": " .-",
         r"\s": " \n\u00a0", r"\S": "x.٣"}
ANCHORS = {"^": "", "$": "\n", r"\b": "", r"\B": "", r"\A": "", r"\Z": ""}


def lit(r):
    if r.random() < 0.02:
        return r.choice(ODD_ESCAPES), ""
    if r.random() < 0.25:
        k = r.choice(sorted(ESCAPED))
        return k, ESCAPED[k]
    c = r.choice(LIT_CHARS)
    if r.random() < 0.15:
        c = c.swapcase()  # for IGNORECASE
    return ("\\" + c if c in SPECIAL else c), c


def class_char(r):
    k = r.random()
    if k < 0.15:
        c = r.choice(sorted(SHORT))
        return c, r.choice(SHORT[c])
    if k < 0.3:
        c = r.choice([r"\]", r"\\", r"\-", r"\^", r"\b", r"\n", r"\x41",
                      r"\u00e9", r"\d", "^", ".", "$", "*", "(", "|", r"\B",
                      r"\08", r"\1"])
        return c, {"\\]": "]", "\\\\": "\\", r"\-": "-", r"\^": "^",
                   r"\b": "\b", r"\n": "\n", r"\x41": "A", r"\u00e9": "é",
                   r"\d": "4"}.get(c, c[-1])
    c = r.choice("abcxyzAB0159$.,#é ßſİΣ٣\u212a")
    return c, c


def rand_class(r):
    s, pick = "[", []
    negate = r.random() < 0.25
    if negate:
        s += "^"
    if r.random() < 0.1:
        s += "]"
        pick.append("]")
    if r.random() < 0.1:
        s += "-"
        pick.append("-")
    for _ in range(r.randint(1, 4)):
        if r.random() < 0.3:
            lo, hi = sorted(r.sample("0123456789abcxyzAZ$,.-", 2))
            if r.random() < 0.05:
                lo, hi = hi, lo
            s += (lo if lo not in "]\\^" else "\\" + lo) + "-" + hi
            pick.append(chr(r.randint(ord(min(lo, hi)), ord(max(lo, hi)))))
        else:
            p, c = class_char(r)
            s += p
            pick.append(c)
    if r.random() < 0.1:
        s += "-"
    sample = r.choice("qé ;7") if negate else r.choice(pick)
    return s + "]", sample


def quantifier(r, sample):
    q, lo, hi = r.choice([("*", 0, 3), ("+", 1, 3), ("?", 0, 1),
                          ("{2}", 2, 2), ("{1,3}", 1, 3), ("{2,}", 2, 4),
                          ("{,2}", 0, 2), ("{,}", 0, 3), ("{0}", 0, 0),
                          ("{0,1}", 0, 1)])
    if r.random() < 0.1:
        # odd ones: literal braces, bounds Python refuses, possessive
        q, lo, hi = r.choice([("{3,1}", 1, 1), ("{", 1, 1), ("{x}", 1, 1),
                              ("{1,x}", 1, 1), ("{}", 1, 1), ("+", 1, 1),
                              ("{4294967295}", 0, 0), ("{4294967294}", 0, 0),
                              ("{99999999999}", 0, 0), ("{,2", 1, 1)])
    if r.random() < 0.3:
        q += "?"
    return q, sample * r.randint(lo, hi)


def group(r, depth):
    body, sample = rand_regex(r, depth - 1)
    k = r.random()
    if k < 0.35:
        return "(" + body + ")", sample
    if k < 0.55:
        return "(?:" + body + ")", sample
    if k < 0.62:
        return "(?P<g%d>" % r.randint(0, 3) + body + ")", sample
    if k < 0.74:
        return "(?=" + body + ")", ""
    if k < 0.84:
        return "(?!" + body + ")", ""
    if k < 0.94:
        flags = r.choice(["i", "s", "m", "-i", "i-s", "si", "-m", "-x", "u"]
                         if r.random() < 0.85 else
                         ["x", "a", "-u", "iL", "i-i", "t", "", "-", "q"])
        return "(?" + flags + ":" + body + ")", sample
    return "(?#" + r.choice(["note", "", "a)b", r"a\)"]) + ")", ""


def atom(r, depth):
    k = r.random()
    if k < 0.35:
        a, s = lit(r)
    elif k < 0.45:
        a, s = ".", r.choice("x\n.é")
    elif k < 0.62:
        a, s = rand_class(r)
    elif k < 0.72:
        a = r.choice(sorted(SHORT))
        s = r.choice(SHORT[a])
    elif k < 0.80:
        a = r.choice(sorted(ANCHORS))
        s = ANCHORS[a]
    elif depth > 0:
        a, s = group(r, depth)
    else:
        a, s = lit(r)
    # a repeated anchor is an error ("nothing to repeat"): now and then
    if r.random() < (0.03 if a in ANCHORS else 0.35):
        q, s = quantifier(r, s)
        a += q
    return a, s


def rand_regex(r, depth):
    alts = []
    for _ in range(r.choice([1, 1, 1, 2, 3])):
        parts = [atom(r, depth) for _ in range(r.randint(0, 4))]
        alts.append(("".join(p for p, _ in parts),
                     "".join(s for _, s in parts)))
    return "|".join(p for p, _ in alts), r.choice(alts)[1]


def mutate(r, p):
    """A stray special character, or one taken out."""
    i = r.randint(0, len(p))
    if r.random() < 0.5 and p:
        return p[:i] + p[i + 1:]
    return p[:i] + r.choice(SPECIAL + "-,^]}") + p[i:]


def rand_pattern(r):
    """(pattern, flags, sample)."""
    if r.random() < 0.25:
        p = r.choice(LMEVAL)
        sample = r.choice(PHRASES) + rand_number(r)
        if r.random() < 0.5:
            p = mutate(r, p)
    else:
        p, sample = rand_regex(r, 2)
    if r.random() < 0.1:
        p = mutate(r, p)
    if r.random() < 0.1:
        p = r.choice(["(?i)", "(?s)", "(?m)", "(?si)", "(?u)", "(?x)",
                      "(?a)", "(?L)", "(?-i)", "(?i"]) + p
    flags = r.choice([0] * 8 + [1, 2, 4, 3, 5, 7])
    return p, flags, sample


def rand_case(r):
    """(pattern, flags, text): the sample inside noise, most of the time."""
    pattern, flags, sample = rand_pattern(r)
    k = r.random()
    if k < 0.2:
        text = rand_text(r)
    else:
        s = sample.encode("utf-8", "surrogatepass")
        if r.random() < 0.3 and flags & 1:
            s = sample.swapcase().encode("utf-8", "surrogatepass")
        parts = [s] * r.choice([1, 1, 2, 3])
        text = rand_text(r)[:r.randint(0, 12)].join(parts)
        text = rand_text(r)[:r.randint(0, 8)] + text + \
            rand_text(r)[:r.randint(0, 8)]
    return pattern, flags, text


# ---- the two sides --------------------------------------------------------

class Timeout(Exception):
    pass


def on_alarm(signum, frame):
    raise Timeout()


def python_side(pattern, flags, text):
    """What re gives, in the driver's terms, with "seconds" it took; None
    when it took over PY_SECONDS."""
    fl = 0
    for bit, f in FLAG_BITS:
        if flags & bit:
            fl |= f
    s = text.decode("utf-8", "surrogateescape")
    off = [0]
    for ch in s:
        off.append(off[-1] + len(ch.encode("utf-8", "surrogateescape")))
    t0 = time.monotonic()
    signal.setitimer(signal.ITIMER_REAL, PY_SECONDS)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                rx = re.compile(pattern, fl)
            except (re.error, OverflowError, ValueError, RecursionError) as e:
                return {"error": str(e), "seconds": 0}
        ms = []
        for m in rx.finditer(s):
            sp = []
            for g in range(rx.groups + 1):
                a, b = m.span(g)
                sp += [off[a] if a >= 0 else -1, off[b] if b >= 0 else -1]
            ms.append(sp)
        sub = rx.sub("", s).encode("utf-8", "surrogateescape").hex()
        return {"matches": ms, "sub": sub,
                "seconds": time.monotonic() - t0}
    except Timeout:
        return None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def run_driver(driver, requests):
    inp = "".join(json.dumps(q) + "\n" for q in requests)
    out = subprocess.run([driver], input=inp, capture_output=True, text=True,
                         timeout=600)
    if out.returncode != 0:
        sys.exit("pyre: the driver failed (%d): %s" % (out.returncode,
                                                       out.stderr.strip()))
    return [json.loads(line) for line in out.stdout.splitlines()]


def request(case):
    pattern, flags, text = case
    return {"pattern": pattern, "flags": flags, "text": text.hex()}


def verdict(py, c):
    """'same', 'unsupported', 'slow', 'skip' or why they differ."""
    if py is None:
        return "skip"
    if "error" in py:
        return "same" if "error" in c else "python refuses, we accept"
    if "error" in c:
        if "not supported" in c["error"]:
            return "unsupported"
        return "we refuse (%s), python accepts" % c["error"]
    if "limit" in c:
        if py["seconds"] >= SLOW_SECONDS:
            return "slow"
        return "we ran out of steps, python took %.3f s" % py["seconds"]
    if c["matches"] != py["matches"]:
        return "matches differ"
    if c["sub"] != py["sub"]:
        return "sub differs"
    return "same"


def differs(driver, case):
    v = verdict(python_side(*case), run_driver(driver, [request(case)])[0])
    return v not in ("same", "unsupported", "slow", "skip")


def shrink(driver, case):
    """Take characters out of the text, then the pattern, while the case
    still differs."""
    pattern, flags, text = case
    changed = True
    stop = time.monotonic() + 120  # a reproducer a little long is fine
    while changed and time.monotonic() < stop:
        changed = False
        for i in range(len(text)):
            t = text[:i] + text[i + 1:]
            if differs(driver, (pattern, flags, t)):
                text, changed = t, True
                break
        for i in range(len(pattern)):
            p = pattern[:i] + pattern[i + 1:]
            if differs(driver, (p, flags, text)):
                pattern, changed = p, True
                break
    return pattern, flags, text


def report(driver, case, why):
    small = shrink(driver, case)
    py = python_side(*small)
    c = run_driver(driver, [request(small)])[0]
    print("pyre: DIFFERENCE (%s)" % why)
    print("  original: pattern=%r flags=%d text=%r" % case)
    print("  shrunk:   pattern=%r flags=%d text=%r" % small)
    print("  python: %s" % json.dumps(py))
    print("  ours:   %s" % json.dumps(c))
    print("  reproduce: echo '%s' | %s" % (json.dumps(request(small)), driver))


def check_lower(driver, texts):
    reqs = [{"lower": t.hex()} for t in texts]
    for t, c in zip(texts, run_driver(driver, reqs)):
        want = t.decode("utf-8", "surrogateescape").lower().encode(
            "utf-8", "surrogateescape").hex()
        if c.get("lower") != want:
            print("pyre: DIFFERENCE in lower() of %r: python %s, ours %s"
                  % (t, want, c.get("lower")))
            return False
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--driver", default="build/pyre_driver")
    ap.add_argument("--cases", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--batch", type=int, default=2000)
    args = ap.parse_args()
    if sys.version_info[:2] != (3, 11):
        print("pyre: needs CPython 3.11 (the tables are its), this is %s"
              % sys.version.split()[0])
        print("pyre: 0 passed, 1 failed")
        return 1
    gen = subprocess.run([sys.executable, "scripts/gen-pyre-tables.py",
                          "--check"], capture_output=True, text=True)
    if gen.returncode != 0:
        print(gen.stderr.strip())
        print("pyre: 0 passed, 1 failed")
        return 1
    signal.signal(signal.SIGALRM, on_alarm)
    r = random.Random(args.seed)
    counts = {"same": 0, "unsupported": 0, "slow": 0, "skip": 0}
    done = 0
    while done < args.cases:
        n = min(args.batch, args.cases - done)
        cases = [rand_case(r) for _ in range(n)]
        answers = run_driver(args.driver, [request(c) for c in cases])
        for case, c in zip(cases, answers):
            v = verdict(python_side(*case), c)
            if v not in counts:
                report(args.driver, case, v)
                print("pyre: %d passed, 1 failed" % counts["same"])
                return 1
            counts[v] += 1
        if not check_lower(args.driver, [c[2] for c in cases]):
            print("pyre: %d passed, 1 failed" % counts["same"])
            return 1
        done += n
    print("pyre: seed %d, %d cases: %d the same, %d refused as not "
          "supported, %d over our step budget and %.1f s in Python, "
          "%d skipped (Python over %.0f s)"
          % (args.seed, args.cases, counts["same"], counts["unsupported"],
             counts["slow"], SLOW_SECONDS, counts["skip"], PY_SECONDS))
    print("pyre: %d passed, 0 failed" % counts["same"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
