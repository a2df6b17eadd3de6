#!/usr/bin/env python3
# Tests: report/page.c
# Tests: report/md_toolcalls.c
"""The page's tool-call view (docs/toolcalls.md) in a real browser
(Debian's chromium, headless, through browser.py), on a ladder of four
tool items run here against the fake llama-server: R right on all, W with
an unknown function, a wrong value and parallel calls in another order,
H with a call whose name and arguments carry markup.

Checks, each after a click on the cell:
- W, weather: the bucket named in the heading ("unknown function"), the
  name cell marked as differing from R, the equal argument not marked;
- W, pair: right, its two calls aligned with R's by name (parallel calls
  are a set), nothing marked;
- W, forced: the wrong value's cell marked, holding "Bergen";
- R: one column, nothing marked (the reference has none to differ from);
- H: the markup shown as text, nothing ran (no dialog, no console error,
  no request but the file).

Usage: calls_test.py BUILD [OUTDIR]: BUILD holds graveyard and
fake-llama-server; a screenshot of W's panel goes to OUTDIR (default
BUILD/tests/page-shots). Ends with "calls-page: N passed, M failed"."""
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

W = {"type": "function", "function": {
    "name": "get_weather", "parameters": {"type": "object", "properties": {
        "city": {"type": "string"}}, "required": ["city"]}}}
T = {"type": "function", "function": {
    "name": "get_time", "parameters": {"type": "object", "properties": {
        "tz": {"type": "string"}}}}}
ITEMS = [
    {"id": "weather", "question": "What is the weather in Paris?",
     "tools": [W, T], "possible": [{"get_weather": {"city": ["Paris"]}}]},
    {"id": "pair", "question": "The weather in Rome, and the time in CET?",
     "tools": [W, T], "possible": [{"get_weather": {"city": ["Rome"]}},
                                   {"get_time": {"tz": ["CET"]}}]},
    {"id": "forced", "question": "Which city is it? Oslo.", "tools": [W],
     "possible": [{"get_weather": {"city": ["Oslo"]}}]},
    {"id": "hello", "question": "Say hello to me.", "tools": [T],
     "tool_choice": "none", "possible": []},
]


def call(name, args):
    return {"name": name, "arguments": json.dumps(args)}


def models():
    right = [{"match": "Paris", "tool_calls": [call("get_weather", {"city": "Paris"})]},
             {"match": "Rome", "tool_calls": [call("get_weather", {"city": "Rome"}),
                                              call("get_time", {"tz": "CET"})]},
             {"match": "Oslo", "tool_calls": [call("get_weather", {"city": "Oslo"})]}]
    wrong = [{"match": "Paris", "tool_calls": [call("get_wether", {"city": "Paris"})]},
             {"match": "Rome", "tool_calls": [call("get_time", {"tz": "CET"}),
                                              call("get_weather", {"city": "Rome"})]},
             {"match": "Oslo", "tool_calls": [call("get_weather", {"city": "Bergen"})]}]
    hostile = [{"match": "Paris", "tool_calls": [
        call("get_weather", {"city": "<img src=x onerror=alert(1)>",
                             "<b>x</b>": "</table><script>alert(2)</script>"})]}]
    return {"R": right, "W": wrong, "H": hostile}


def build_run(build, tmp):
    q = os.path.join(tmp, "q.jsonl")
    with open(q, "w") as f:
        for it in ITEMS:
            f.write(json.dumps(it) + "\n")
    rungs = []
    for name, replies in models().items():
        m = os.path.join(tmp, name + ".gguf")
        with open(m, "w") as f:
            json.dump({"fake_llama_server": 1, "decode_tps": 50.0,
                       "default": {"content": "Hello!"}, "replies": replies}, f)
        rungs.append({"name": name, "model": m})
    cfg = os.path.join(tmp, "c.json")
    run = os.path.join(tmp, "run")
    with open(cfg, "w") as f:
        json.dump({"name": "calls", "questions": q, "run_dir": run,
                   "task": "tool-call", "rungs": rungs,
                   "server": {"binary": os.path.join(build, "fake-llama-server")}}, f)
    r = subprocess.run([os.path.join(build, "graveyard"), "ladder", cfg, "--quiet"],
                       capture_output=True, text=True, timeout=120)
    return run, r


VIEW = """((q, at) => {
    const s = document.querySelector('#panel .calls');
    if (!s) return null;
    return {h: s.querySelector('h4').textContent,
            heads: [...s.querySelectorAll('tr:first-child th')].map(t => t.textContent),
            rows: [...s.querySelectorAll('tr')].slice(1).map(tr =>
                [...tr.children].map(c => [c.textContent, c.classList.contains('diff')]))};
})()"""


def panel(page, path, q, at):
    page.goto(f"file://{path}#q={q}&at={at}")
    page.wait_for("document.querySelector('#panel .calls') !== null", 20)
    return page.eval(VIEW)


def checks(g, b, path, shots):
    page = b.new_page()
    v = panel(page, path, "weather", "W")
    rows = v["rows"]
    g.check("W weather: the bucket named, the name marked, the equal argument not",
            [] if "unknown function" in v["h"] and
            rows[0] == [["call 1", False], ["get_wether", True], ["get_weather", False]] and
            rows[1][1] == ['"Paris"', False] else [repr(v)])
    page.screenshot(os.path.join(shots, "calls-weather-W.png"))
    v = panel(page, path, "pair", "W")
    marked = [c for r in v["rows"] for c in r if c[1]]
    names = [r[1][0] + "/" + r[2][0] for r in v["rows"] if r[0][0].startswith("call")]
    g.check("W pair: right, its calls aligned with R's by name, nothing marked",
            [] if "right" in v["h"] and not marked and
            names == ["get_time/get_time", "get_weather/get_weather"] else [repr(v)])
    v = panel(page, path, "forced", "W")
    g.check("W forced: the wrong value marked",
            [] if "wrong value" in v["h"] and
            v["rows"][1][1] == ['"Bergen"', True] else [repr(v)])
    v = panel(page, path, "weather", "R")
    g.check("R: one column, nothing marked",
            [] if v["heads"] == ["", "R"] and
            not [c for r in v["rows"] for c in r if c[1]] else [repr(v)])
    page.close()
    page = b.new_page()
    v = panel(page, path, "weather", "H")
    texts = [c[0] for r in v["rows"] for c in r]
    bad = [] if '"<img src=x onerror=alert(1)>"' in texts and \
        '"</table><script>alert(2)</script>"' in texts else [repr(texts)]
    bad += [f"{lv}: {t}" for lv, t in page.console if lv in ("severe", "warning")]
    bad += [f"dialog: {d}" for d in page.dialogs]
    bad += [u for u in page.requests if u.split("#")[0] != "file://" + path]
    g.check("H: markup in a call is text; nothing ran, nothing was asked for", bad)
    page.close()


def main():
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
    shots = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else
                            os.path.join(build, "tests", "page-shots"))
    g = Suite("calls-page")
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
    with tempfile.TemporaryDirectory(prefix="graveyard-calls-") as tmp:
        run, r = build_run(build, tmp)
        path = os.path.join(run, "REPORT.html")
        if not os.path.exists(path):
            g.fail(f"the ladder made no page (exit {r.returncode}): {r.stderr[-400:]}")
            return g.end()
        try:
            with browser.Browser(chromium) as b:
                checks(g, b, path, shots)
        except Exception as e:  # a broken page fails the suite
            g.fail(f"{type(e).__name__}: {e}")
    return g.end()


if __name__ == "__main__":
    sys.exit(main())
