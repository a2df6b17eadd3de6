#!/usr/bin/env python3
# Tests: report/page.c
"""The page's code view (docs/report.md, "The code view"; issue 38) in a
real browser (Debian's chromium, headless, through browser.py), on a code
ladder of three HumanEval-shaped problems run here by the runner against
the fake llama-server, the code run in the sandbox: R right on all, W a
line changed in add (its tests fail), no code for rev, C a NameError in
add and markup in sq's code.

Checks:
- W, add (a dead cell, clicked): the heading in the row's words ("Code
  \u00b7 failed 0/3"), R's code and W's side by side, each the code the
  grader took from the reply, the changed line marked and no other, and
  the traceback the row kept under "what it printed";
- W, rev: "no code in the reply", no columns; its chip and the reply's
  line say "no code" (not "no number"); the heading's long reference (the
  tests' sha256) wraps inside the panel;
- R, add: the reference's code alone, nothing marked, no output;
- C, sq: the markup in the code shown as text; nothing ran, nothing was
  asked for;
- a GSM8K-style page (the default task) has no code view;
- at 420 px the two columns stand one above the other.

Usage: code_test.py BUILD [OUTDIR]: BUILD holds graveyard and
fake-llama-server; screenshots of W's panel (1280 and 420 px wide) go to
OUTDIR (default BUILD/tests/page-shots). Ends with "code-page: N passed,
M failed"."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "report"))
from suite import Suite  # noqa: E402


def problem(name, doc, asserts):
    return {"task_id": "t/" + name,
            "prompt": f'def {name}(*args):\n    """{doc}"""\n',
            "test": "def check(candidate):\n" +
                    "".join(f"    assert {a}\n" for a in asserts),
            "entry_point": name}


PROBLEMS = [
    problem("add", "a plus b", ["candidate(1, 2) == 3", "candidate(5, 5) == 10",
                                "candidate(2, 7) == 9"]),
    problem("rev", "s reversed", ["candidate('ab') == 'ba'"]),
    problem("sq", "x squared", ["candidate(3) == 9"]),
]
ADD_R = "def add(a, b):\n    total = a + b\n    return total\n"
ADD_W = "def add(a, b):\n    total = a - b\n    return total\n"
ADD_C = "def add(a, b):\n    return a + c\n"
REV = "def rev(s):\n    return s[::-1]\n"
SQ = "def sq(x):\n    return x * x\n"
SQ_H = ('def sq(x):\n    # </pre><img src=x onerror=alert(1)><script>alert(2)'
        '</script>\n    return x * x\n')


def fenced(code):
    return f"Here is the function.\n\n```python\n{code}```\n\nIt should work."


def models():
    def m(add, rev, sq):
        return [{"match": "def add(", "content": add},
                {"match": "def rev(", "content": rev},
                {"match": "def sq(", "content": sq}]
    return {"R": m(fenced(ADD_R), fenced(REV), fenced(SQ)),
            "W": m(fenced(ADD_W), "I cannot write that one.", fenced(SQ)),
            "C": m(fenced(ADD_C), fenced(REV), fenced(SQ_H))}


def ladder(build, tmp, name, task, questions, rungs):
    q = os.path.join(tmp, name + ".jsonl")
    with open(q, "w") as f:
        for it in questions:
            f.write(json.dumps(it) + "\n")
    spec = []
    for rung, replies in rungs.items():
        m = os.path.join(tmp, f"{name}-{rung}.gguf")
        with open(m, "w") as f:
            json.dump({"fake_llama_server": 1, "decode_tps": 50.0,
                       "default": {"content": "Answer: 3"}, "replies": replies}, f)
        spec.append({"name": rung, "model": m})
    cfg, run = os.path.join(tmp, name + ".json"), os.path.join(tmp, name)
    with open(cfg, "w") as f:
        json.dump(dict({"name": name, "questions": q, "run_dir": run,
                        "rungs": spec, "server": {
                            "binary": os.path.join(build, "fake-llama-server")}},
                       **task), f)
    g = os.path.join(build, "graveyard")
    r = subprocess.run([g, "ladder", cfg, "--quiet"], capture_output=True,
                       text=True, timeout=300)
    if r.returncode in (0, 1):  # the ladder's page, made again by report
        r = subprocess.run([g, "report", run], capture_output=True, text=True,
                           timeout=120)
    return run, r


VIEW = """(() => {
    const s = document.querySelector('#panel .code');
    if (!s) return null;
    const col = c => ({head: c.querySelector('.head') ? c.querySelector('.head').textContent : null,
        lines: [...c.querySelectorAll('pre > span')].map(l => [l.textContent,
                                                              l.classList.contains('diff')]),
        left: c.getBoundingClientRect().left, top: c.getBoundingClientRect().top});
    const out = s.querySelector('pre.out');
    return {h: s.querySelector('h4').textContent,
            cols: [...s.querySelectorAll('.col')].map(col),
            note: [...s.querySelectorAll('p.note')].map(p => p.textContent),
            out: out ? out.textContent : null,
            outHead: s.querySelector('.outhead') ? s.querySelector('.outhead').textContent : null};
})()"""


def rows_of(run, rung):
    with open(os.path.join(run, "rows", rung + ".jsonl")) as f:
        return {r["id"]: r for r in map(json.loads, f)}


def open_hash(page, path, q, at):
    page.goto(f"file://{path}#q={q}&at={at}")
    page.wait_for("document.querySelector('#panel .reply') !== null", 20)
    return page.eval(VIEW)


def lines_of(code):
    return code[:-1].split("\n") if code.endswith("\n") else code.split("\n")


def check_w(g, page, path, run):
    w = rows_of(run, "W")["t/add"]
    # click the dead cell: W's row, add's column
    page.goto(f"file://{path}")
    page.wait_for("document.querySelector('#grid .row') !== null", 20)
    # the grid's rows are the rungs in the ladder's order, its questions
    # the file's: W is row 1, add question 0 (dead: wrong, c2, where the
    # reference was right)
    row, q = 1, 0
    cls = page.eval(f"document.querySelector('#grid .row[data-row=\"{row}\"] "
                    f"i[data-q=\"{q}\"]').className")
    if not cls.startswith("c2"):
        g.fail(f"W add's cell is {cls!r}, not wrong (c2)")
    page.click_selector(f'#grid .row[data-row="{row}"] i[data-q="{q}"]')
    page.wait_for("document.querySelector('#panel .reply') !== null", 20)
    v = page.eval(VIEW)
    want_h = f"Code \u00b7 failed {w['tests_passed']}/{w['tests_total']}"
    bad = [] if v and v["h"] == want_h else [f"heading {v and v['h']!r}, want {want_h!r}"]
    if v:
        cols = v["cols"]
        want = [[[t, t == "    total = a - b"] for t in lines_of(ADD_W)],
                [[t, False] for t in lines_of(ADD_R)]]
        if [c["lines"] for c in cols] != want:
            bad.append(f"columns {[c['lines'] for c in cols]!r}, want {want!r}")
        if [c["head"] for c in cols] != ["W", "R, the reference"]:
            bad.append(f"column heads {[c['head'] for c in cols]!r}")
        if v["out"] != w["exec_output"] or "AssertionError" not in (v["out"] or ""):
            bad.append(f"output {v['out']!r}, the row's {w['exec_output']!r}")
        if v["outHead"] != "what it printed":
            bad.append(f"output heading {v['outHead']!r}")
        if len(cols) == 2 and not cols[0]["left"] < cols[1]["left"]:
            bad.append(f"not side by side at 1280 px: {cols[0]['left']}, {cols[1]['left']}")
    g.check("W add (clicked): heading, both codes side by side, the changed line "
            "marked, the traceback", bad)


def checks(g, b, path, run, shots):
    page = b.new_page()
    check_w(g, page, path, run)
    page.eval("(document.querySelector('#panel .code') || document.body).scrollIntoView()")
    page.screenshot(os.path.join(shots, "code-add-W-1280.png"))
    v = open_hash(page, path, "t/rev", "W")
    g.check("W rev: no code in the reply, no columns",
            [] if v and v["h"] == "Code \u00b7 no code" and not v["cols"] and
            v["note"] == ["no code in the reply"] else [repr(v)])
    # the strip's chip and the reply's line say "no code", not "no number"
    # (a code row says no number); the heading's long reference (the
    # tests' sha256) wraps inside the panel
    said = page.eval("""[document.querySelector('#panel .chip.on .said').textContent,
                         document.querySelector('#panel .reply .meta:last-of-type').textContent]""")
    wide = page.eval("""(h => h.scrollWidth - h.clientWidth)(document.querySelector('#panel h2'))""")
    g.check("W rev: the chip says no code; the heading fits the panel",
            [] if "no code" in said[0] and "no number" not in " ".join(said) and
            wide <= 0 else [f"said {said!r}, heading {wide} px too wide"])
    v = open_hash(page, path, "t/add", "R")
    g.check("R add: the reference's code alone, nothing marked, no output",
            [] if v and v["h"].startswith("Code \u00b7 passed") and
            [c["lines"] for c in v["cols"]] == [[[t, False] for t in lines_of(ADD_R)]]
            and v["out"] is None else [repr(v)])
    page.close()
    page = b.new_page()
    v = open_hash(page, path, "t/sq", "C")
    texts = [t for c in (v["cols"] if v else []) for t, _ in c["lines"]]
    bad = [] if lines_of(SQ_H)[1] in texts else [repr(texts)]
    bad += [f"{lv}: {t}" for lv, t in page.console if lv in ("severe", "warning")]
    bad += [f"dialog: {d}" for d in page.dialogs]
    bad += [u for u in page.requests if u.split("#")[0] != "file://" + path]
    g.check("C sq: markup in the code is text; nothing ran, nothing was asked for", bad)
    page.close()


def narrow(g, b, path, shots):
    page = b.new_page()
    v = open_hash(page, path, "t/add", "W")
    cols = v["cols"] if v else []
    g.check("420 px: the two columns one above the other",
            [] if len(cols) == 2 and cols[0]["top"] < cols[1]["top"] and
            abs(cols[0]["left"] - cols[1]["left"]) < 2 else [repr(cols)])
    page.eval("(document.querySelector('#panel .code') || document.body).scrollIntoView()")
    page.screenshot(os.path.join(shots, "code-add-W-420.png"))
    page.close()


def gsm8k(g, b, path):
    page = b.new_page()
    page.goto(f"file://{path}#q=g1&at=A")
    page.wait_for("document.querySelector('#panel .reply') !== null", 20)
    g.check("a GSM8K page: no code view",
            [] if page.eval("document.querySelector('#panel .code')") is None
            else ["a code view on a page of another task"])
    page.close()


def main():
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
    shots = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else
                            os.path.join(build, "tests", "page-shots"))
    g = Suite("code-page")
    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    try:
        import browser
        why = browser.missing(chromium)
    except ImportError as e:
        why = f"{e} in {sys.executable} (Debian's python3-selenium)"
    if why:
        return g.unavailable(why)
    browser.quit_on_sigterm()
    os.makedirs(shots, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="graveyard-code-") as tmp:
        run, r = ladder(build, tmp, "code", {"task": "code"}, PROBLEMS, models())
        grun, gr = ladder(build, tmp, "gsm", {}, [
            {"id": "g1", "question": "What is 1 + 2?", "answer": "3"}],
            {"A": [], "B": []})
        path, gpath = (os.path.join(x, "REPORT.html") for x in (run, grun))
        for p, x in ((path, r), (gpath, gr)):
            if not os.path.exists(p):
                g.fail(f"no page at {p} (exit {x.returncode}): {x.stderr[-400:]}")
                return g.end()
        try:
            with browser.Browser(chromium) as b:
                checks(g, b, path, run, shots)
                gsm8k(g, b, gpath)
            with browser.Browser(chromium, width=420, height=900) as b:
                narrow(g, b, path, shots)
        except Exception as e:  # a broken page fails the suite
            g.fail(f"{type(e).__name__}: {e}")
    return g.end()


if __name__ == "__main__":
    sys.exit(main())
