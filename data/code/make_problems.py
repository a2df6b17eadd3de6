#!/usr/bin/env python3
"""make_problems.py - graveyard's built-in code problems (data/code).

Run from the repository root (Python 3, standard library only):

  python3 data/code/make_problems.py --write
      writes problems.jsonl from source.py (the problems as written), then
      checks it and writes canned.jsonl, as below.
  python3 data/code/make_problems.py
      checks problems.jsonl: every task_id unique, every entry point defined
      by its prompt ("def ENTRY("), 5 to 10 asserts each, one statement
      each; every canonical solution passes every assert, each run by hand
      (prompt + solution, then the assert, in a subprocess, timeout 5 s);
      then writes canned.jsonl: five replies a problem as a chat model
      would write them (right, wrong, crash, timeout, no_code).
  python3 data/code/make_problems.py --expect
      the verdict of each canned reply by hand into canned-expected.jsonl:
      its fenced block's code run after the prompt, each assert in a plain
      subprocess (timeout 5 s); and checks each kind got the verdict it is
      for (right passed, wrong failed with some asserts passed, crash an
      error, timeout a timeout, no_code no code).

The verdict of a reply (docs/code.md): no_code when it has no fenced block;
syntax_error when prompt + code does not compile; else each assert runs on
its own: timeout when one ran past 5 s (the later ones are not run, and
count as not passed); else error when one raised anything but an
AssertionError (exception: the first such one's type); else failed when
one failed; else passed. passed counts the asserts that passed, total all.
The output is deterministic; commit the files after a change.
"""
import ast
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PROBLEMS = os.path.join(HERE, "problems.jsonl")
CANNED = os.path.join(HERE, "canned.jsonl")
EXPECTED = os.path.join(HERE, "canned-expected.jsonl")
TIMEOUT = 5
KINDS = ("right", "wrong", "crash", "timeout", "no_code")

# a crash reply's first line raises; the exceptions vary from problem to
# problem, each line a slip a model makes (a helper it never wrote, a
# lookup in an empty table, ...)
CRASHES = [
    ("TypeError", "    size = len(None)  # nothing seen yet\n"),
    ("IndexError", "    first = [][0]\n"),
    ("ZeroDivisionError", "    scale = 1 // 0\n"),
    ("KeyError", "    mode = {}[\"mode\"]\n"),
    ("ValueError", "    base = int(\"ten\")\n"),
    ("AttributeError", "    cache = None.copy()\n"),
    ("NameError", "    helper = prepare_input()\n"),
]
PROSE = [
    ("Here is a solution:", "It handles the edge cases from the docstring."),
    ("Sure! Here's the implementation:", "Let me know if you need anything else."),
    ("This can be done in a few lines:", "The examples in the docstring pass."),
]


def write_problems():
    sys.path.insert(0, HERE)
    import source  # the problems as written

    with open(PROBLEMS, "w", encoding="utf-8") as f:
        for i, p in enumerate(source.PROBLEMS):
            doc = "\n".join(("    " + l) if l else "" for l in p["doc"].split("\n"))
            prompt = (p["imports"] + "\n\n\n" if p["imports"] else "") + \
                p["sig"] + '\n    """ ' + doc.lstrip() + '\n    """\n'
            test = (p["preamble"] + "\n\n\n" if p["preamble"] else "") + \
                "def check(candidate):\n" + \
                "".join("    assert " + t + "\n" for t in p["tests"])
            line = {"task_id": "graveyard/%d" % i, "prompt": prompt,
                    "canonical_solution": p["body"], "test": test,
                    "entry_point": p["entry"]}
            f.write(json.dumps(line, ensure_ascii=False) + "\n")


def load():
    out = []
    with open(PROBLEMS, encoding="utf-8") as f:
        for n, text in enumerate(f, 1):
            p = json.loads(text)
            if sorted(p) != ["canonical_solution", "entry_point", "prompt",
                             "task_id", "test"]:
                sys.exit("problems.jsonl:%d: keys are not HumanEval's" % n)
            out.append(p)
    return out


def split(test):
    """The test's preamble (its text before def check) and its asserts'
    sources, dedented; as graveyard splits them (docs/code.md)."""
    tree = ast.parse(test)
    check = [s for s in tree.body
             if isinstance(s, ast.FunctionDef) and s.name == "check"]
    if len(check) != 1:
        raise ValueError("no single def check")
    pre = test[:test.index("def check(candidate):")]
    asserts = []
    for stmt in check[0].body:
        if not isinstance(stmt, ast.Assert):
            raise ValueError("check holds a statement that is not an assert")
        asserts.append(ast.get_source_segment(test, stmt))
    return pre, asserts


def run_one(program):
    """Run program in a plain subprocess: 'passed', 'timeout', or the name
    of the exception it ended with."""
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False,
                                     encoding="utf-8") as f:
        f.write(program)
        path = f.name
    try:
        r = subprocess.run([sys.executable, "-I", path], capture_output=True,
                           text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return "timeout"
    finally:
        os.unlink(path)
    if r.returncode == 0:
        return "passed"
    last = r.stderr.strip().split("\n")[-1]
    return last.split(":")[0].strip() or "error"


def verdict(p, code):
    """The verdict of code (a reply's fenced block, or None) for problem p."""
    pre, asserts = split(p["test"])
    v = {"task_id": p["task_id"], "outcome": "", "passed": 0,
         "total": len(asserts), "exception": ""}
    if code is None:
        v["outcome"] = "no_code"
        return v
    program = p["prompt"] + "\n" + code + "\n"
    try:
        compile(program, "candidate.py", "exec")
    except SyntaxError:
        v["outcome"] = "syntax_error"
        return v
    results = []
    for a in asserts:
        r = run_one(program + "\n" + pre + "candidate = " + p["entry_point"] +
                    "\n" + a + "\n")
        results.append(r)
        if r == "timeout":
            break
    v["passed"] = results.count("passed")
    errors = [r for r in results if r not in ("passed", "timeout", "AssertionError")]
    if "timeout" in results:
        v["outcome"] = "timeout"
    elif errors:
        v["outcome"] = "error"
        v["exception"] = errors[0]
    elif "AssertionError" in results:
        v["outcome"] = "failed"
    else:
        v["outcome"] = "passed"
    return v


def fenced(reply):
    """The first fenced block's code, or None (graveyard's rule too)."""
    start = reply.find("```")
    if start < 0:
        return None
    nl = reply.find("\n", start)
    end = reply.find("```", nl)
    if nl < 0 or end < 0:
        return None
    return reply[nl + 1:end]


def header(p):
    """The prompt's imports and def line, without the docstring."""
    prompt = p["prompt"]
    d = prompt.index("def " + p["entry_point"] + "(")
    sig = prompt[d:prompt.index("\n", d)]
    imports = prompt[:d].strip()
    return (imports + "\n\n\n" if imports else "") + sig + "\n"


def wrong_bodies():
    sys.path.insert(0, HERE)
    import source

    return {"graveyard/%d" % i: p["wrong"] for i, p in enumerate(source.PROBLEMS)}


def canned(problems):
    wrong = wrong_bodies()
    out = []
    for i, p in enumerate(problems):
        first, last = PROSE[i % len(PROSE)]
        head = header(p)

        def block(body):
            return "%s\n\n```python\n%s%s```\n\n%s" % (first, head, body, last)

        crash = CRASHES[i % len(CRASHES)][1]
        replies = {
            "right": block(p["canonical_solution"]),
            "wrong": block(wrong[p["task_id"]]),
            "crash": block(crash + p["canonical_solution"]),
            "timeout": block("    while True:\n        pass\n" + p["canonical_solution"]),
            "no_code": "To write %s I would read the docstring carefully, handle "
                       "the empty input first, then walk the input once and build "
                       "the result as I go, checking the examples at the end."
                       % p["entry_point"],
        }
        for kind in KINDS:
            out.append({"task_id": p["task_id"], "kind": kind, "reply": replies[kind]})
    return out


def check(problems):
    seen = set()
    bad = 0
    for n, p in enumerate(problems, 1):
        where = "problems.jsonl:%d ('%s')" % (n, p["task_id"])
        if p["task_id"] in seen:
            sys.exit("%s: duplicate task_id" % where)
        seen.add(p["task_id"])
        if "def " + p["entry_point"] + "(" not in p["prompt"]:
            sys.exit("%s: the prompt does not define '%s'" % (where, p["entry_point"]))
        _, asserts = split(p["test"])
        if not 5 <= len(asserts) <= 10:
            sys.exit("%s: %d asserts, not 5 to 10" % (where, len(asserts)))
        v = verdict(p, p["canonical_solution"])
        if v["outcome"] != "passed":
            print("%s: the canonical solution %s (%d of %d passed) %s" %
                  (where, v["outcome"], v["passed"], v["total"], v["exception"]))
            bad += 1
    if bad:
        sys.exit("%d problems fail their own tests" % bad)


def expect(problems):
    by_id = {p["task_id"]: p for p in problems}
    want = {"right": "passed", "wrong": "failed", "crash": "error",
            "timeout": "timeout", "no_code": "no_code"}
    bad = 0
    with open(CANNED, encoding="utf-8") as f, \
            open(EXPECTED, "w", encoding="utf-8") as out:
        for text in f:
            c = json.loads(text)
            v = verdict(by_id[c["task_id"]], fenced(c["reply"]))
            row = {"task_id": c["task_id"], "kind": c["kind"],
                   "outcome": v["outcome"], "passed": v["passed"],
                   "total": v["total"], "exception": v["exception"]}
            out.write(json.dumps(row) + "\n")
            ok = v["outcome"] == want[c["kind"]]
            if c["kind"] == "wrong":
                ok = ok and 0 < v["passed"] < v["total"]
            if not ok:
                print("'%s' %s: got %s" % (c["task_id"], c["kind"], json.dumps(v)))
                bad += 1
    if bad:
        sys.exit("%d canned replies do not get the verdict they are for" % bad)


def main():
    args = sys.argv[1:]
    if args not in ([], ["--write"], ["--expect"]):
        sys.exit("usage: make_problems.py [--write | --expect]")
    if args == ["--write"]:
        write_problems()
    problems = load()
    if args == ["--expect"]:
        expect(problems)
        return
    check(problems)
    with open(CANNED, "w", encoding="utf-8") as f:
        for c in canned(problems):
            f.write(json.dumps(c, ensure_ascii=False) + "\n")
    print("%d problems checked; canned.jsonl written" % len(problems))


if __name__ == "__main__":
    main()
