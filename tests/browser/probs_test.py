#!/usr/bin/env python3
# Tests: report/page.c
# Tests: report/emit_probs.c
"""The page's "Where it split" view in a real browser (Debian's chromium,
headless, through browser.py), on a page built from a hand-made fixture:
test_report_probs (tests/unit) writes it with GY_PROBS_PAGE=PATH, the
study's ladder with split figures filled by hand, its one dead cell that
split carrying hostile token texts (quotes, <script>, \\x01, a lone 0xC3).

Checks, after a click on that dead cell (Q8_0):
- the split view: the reply up to the split as text, the rung's token
  marked (a <mark>, U+FFFD for the lone byte) and the reference's beside it;
- the two top-N lists as bars: the reference's three (the fourth was not
  sent), the rung's four, each bar as long as exp(logprob) of its track;
- both margins; the control character shown as an escape (\\x01);
- the grid: that cell keeps its dead cap and wears the darkest KLD band;
- nothing ran from the texts: no dialog, no console error (a CSP
  violation is one), no request but the file.

Usage: probs_test.py BUILD [OUTDIR]: BUILD holds tests/test_report_probs;
a screenshot of the panel goes to OUTDIR (default BUILD/tests/page-shots).
Ends with "probs-page: N passed, M failed"."""
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "report"))
from suite import Suite  # noqa: E402

DATA = "window.graveyardData"


def checks(g, b, path, shots):
    page = b.new_page()
    page.goto("file://" + path)
    page.wait_for("document.documentElement.getAttribute('data-ready')", 20)
    c = page.eval(f"{DATA}.pk.cells[0]")
    row, q = c["r"], c["q"]
    sel = f'#grid .row[data-row="{row}"] i[data-q="{q}"]'
    cls = page.eval(f"document.querySelector({sel!r}).className")
    shadow = page.eval(f"getComputedStyle(document.querySelector({sel!r}))"
                       ".boxShadow")
    g.check("grid: the dead cell keeps its cap and wears the darkest band",
            [] if "m1" in cls.split() and "k4" in cls.split() and
            "rgb(110, 13, 46)" in shadow else [f"class {cls!r}, {shadow}"])
    page.click_selector(sel)
    page.wait_for("document.querySelector('#panel .split')")
    v = page.eval("""(() => {
        const s = document.querySelector('#panel .split');
        const pre = s.querySelector('pre.splittext');
        const lists = [...s.querySelectorAll('.topn')].map(t => ({
            title: t.querySelector('h4').textContent,
            rows: [...t.querySelectorAll('.brow')].map(r => ({
                tok: r.querySelector('.btok').textContent,
                w: r.querySelector('.bfill').getBoundingClientRect().width,
                track: r.querySelector('.btrack').getBoundingClientRect().width,
                chosen: r.classList.contains('chosen')})),
            meta: t.querySelector('.meta').textContent}));
        return {pre: pre.textContent, mark: pre.querySelector('mark.tok').textContent,
                ref: pre.querySelector('.tok.ref').textContent,
                before: pre.firstChild.textContent, lists: lists}; })()""")
    want_before = 'x "q" <script>alert(1)</script>\\x01 \ufffd'
    g.check("split view: the reply up to the split, the token marked",
            [] if v["before"] == want_before and v["mark"] == "\ufffd" and
            v["ref"] == "<script>" else
            [f"before {v['before']!r}, mark {v['mark']!r}, ref {v['ref']!r}"])
    lists, bad = v["lists"], []
    if len(lists) != 2:
        bad.append(f"{len(lists)} lists")
    else:
        for lst, toks, lps in ((lists[0], ["<script>", "\ufffd", '"\\n"'],
                                [-0.2, -1.7, -3.0]),
                               (lists[1], ["\ufffd", "<script>", "\\x01",
                                           "&amp;"],
                                [-0.4, -1.2, -3.5, -4.0])):
            got = [r["tok"] for r in lst["rows"]]
            if got != toks:
                bad.append(f"{lst['title']}: tokens {got}")
                continue
            for r, lp in zip(lst["rows"], lps):
                want = math.exp(lp) * r["track"]
                if r["w"] <= 0 or abs(r["w"] - want) > 1.5:
                    bad.append(f"{lst['title']} {r['tok']!r}: bar {r['w']:.1f}"
                               f" px, want {want:.1f}")
            if not lst["rows"][0]["chosen"]:
                bad.append(f"{lst['title']}: the chosen token is not marked")
    g.check("split view: both top-N lists as bars of exp(logprob)", bad)
    metas = [t["meta"] for t in lists]
    g.check("split view: both margins",
            [] if len(metas) == 2 and metas[0].startswith("margin 1.50") and
            metas[1].startswith("margin 0.80") else [repr(metas)])
    page.screenshot(os.path.join(shots, "probs-split.png"))
    bad = [f"{lv}: {t}" for lv, t in page.console if lv in ("severe", "warning")]
    bad += [f"dialog: {d}" for d in page.dialogs]
    bad += [u for u in page.requests if u.split("#")[0] != "file://" + path]
    g.check("split view: nothing ran, nothing was asked for", bad)
    page.close()


def main():
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
    shots = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else
                            os.path.join(build, "tests", "page-shots"))
    g = Suite("probs-page")
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
    with tempfile.TemporaryDirectory(prefix="graveyard-probs-") as tmp:
        path = os.path.join(tmp, "REPORT.html")
        r = subprocess.run([os.path.join(build, "tests", "test_report_probs")],
                           env=dict(os.environ, GY_PROBS_PAGE=path),
                           capture_output=True, text=True)
        if not os.path.exists(path):
            g.fail(f"test_report_probs did not write the page: {r.stdout[-400:]}")
            return g.end()
        g.check("test_report_probs passes", [] if r.returncode == 0 else
                [r.stdout[-400:]])
        try:
            with browser.Browser(chromium) as b:
                checks(g, b, path, shots)
        except Exception as e:  # a broken page fails the suite
            g.fail(f"{type(e).__name__}: {e}")
    return g.end()


if __name__ == "__main__":
    sys.exit(main())
