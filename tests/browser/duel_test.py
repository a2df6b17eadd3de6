#!/usr/bin/env python3
# Tests: report/page.c
"""The page's duels (docs/page.md, "Duels"; issue 39) in a real browser
(Debian's chromium, headless, through browser.py), on a page built from a
hand-made fixture: test_report_page_duels (tests/unit) writes it with
GY_DUEL_PAGE=PATH. Three rungs over six questions; two duels on the page
(A against B with a verdict in words holding markup, the reference against
A with the grader's counts in words), and two pairs the page leaves out
(a rung not on the page, one rung twice):

             d-0 d-1 d-2 d-3 d-4 d-5
    REF       .   .   .   .   .   x
    A         .   .   x   .   .   x       (x: wrong)
    B         .   x   .   x   x   .

Checks:
- the Duels section and its button in the bar; one tab a duel, in the
  config's order; A against B first: its questions d-1 to d-5 in the
  grid's order, the counts line ("A right only: 3 · B right only: 2")
  and the verdict as given;
- each question: its id and reference, its text (d-3: "not available"),
  A's reply left and B's right, each the row's content as text (B's d-2
  holds </script><script>alert(1)</script> and an <img onerror>), the
  right one marked;
- the "Show" filter: A right only d-1, d-3, d-4; B right only d-2, d-5;
- the second tab (REF against A): the grader's counts in words in place
  of the page's, no verdict, d-2 alone, REF right;
- a question's id opens its panel at A, the list kept in view, and
  Escape gives the focus back to the id;
- nothing ran from the texts: no dialog, no console error, no request but
  the file; the page holds its own two scripts and no image;
- a page with no duels (test_report_probs's) has no Duels section;
- at 1280 px the two replies side by side, at 420 px one above the other
  and nothing wider than the window.

Usage: duel_test.py BUILD [OUTDIR]: BUILD holds tests/test_report_page_duels
and tests/test_report_probs; screenshots of the duel (1280 and 420 px wide)
go to OUTDIR (default BUILD/tests/page-shots). Ends with "duel-page: N
passed, M failed"."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "report"))
from suite import Suite  # noqa: E402

A, B, REF = "Q4_K_M (alpha)", "Q4_K_M <beta>", "REF"
RIGHT = {REF: [1, 1, 1, 1, 1, 0], A: [1, 1, 0, 1, 1, 0], B: [1, 0, 1, 0, 0, 1]}
VERDICT = "cannot tell at \u00b12 points </script><b>bold</b>"
COUNTS = "REF right only on 1, alpha on 0"
HOSTILE = "</script><script>alert(1)</script>\n<img src=x onerror=alert(2)>"

VIEW = """(() => {
    const s = document.querySelector('#duels');
    if (!s) return null;
    const d = s.querySelector('.duel');
    const side = x => ({name: x.querySelector('.name').textContent,
        mark: x.querySelector('.mark').textContent, won: x.classList.contains('won'),
        text: x.querySelector('pre.text') ? x.querySelector('pre.text').textContent : null,
        left: x.getBoundingClientRect().left, top: x.getBoundingClientRect().top,
        right: x.getBoundingClientRect().right});
    return {tabs: [...s.querySelectorAll('.tab')].map(t => [t.textContent,
                                                            t.getAttribute('aria-selected')]),
        h: d.querySelector('h3') ? d.querySelector('h3').textContent : null,
        count: d.querySelector('.dcount').textContent,
        verdict: d.querySelector('.dverdict') ? d.querySelector('.dverdict').textContent : null,
        n: d.querySelector('.dn').textContent,
        items: [...d.querySelectorAll('li.dq')].map(li => ({
            id: li.querySelector('.dqh a').textContent,
            head: li.querySelector('.dqh').textContent,
            href: li.querySelector('.dqh a').getAttribute('href'),
            qtext: li.querySelector('.qtext') ? li.querySelector('.qtext').textContent : null,
            note: li.querySelector(':scope > .note') ? li.querySelector(':scope > .note').textContent : null,
            sides: [...li.querySelectorAll('.side')].map(side)})),
        button: [...document.querySelectorAll('.bar .todu')].map(b => b.textContent),
        wide: document.documentElement.scrollWidth - document.documentElement.clientWidth};
})()"""


def data_text(page, row, q):
    """Row row's content of question q, as the data block holds it."""
    return page.eval(f"(D => D.T[D.runs[0].r[{row}].x[{q}]])(window.graveyardData)")


def check_items(g, page, v, a, b, want_q):
    """The list holds want_q's questions in order, each with a's reply left
    and b's right, each as the rows wrote it, the right one marked."""
    names = page.eval("window.graveyardData.rows.map(r => r.name)")
    qtexts = page.eval("(D => D.qt.map(i => i < 0 ? null : D.T[i]))(window.graveyardData)")
    bad = []
    ids = [it["id"] for it in v["items"]]
    if ids != [f"d-{q}" for q in want_q]:
        bad.append(f"questions {ids}, want {[f'd-{q}' for q in want_q]}")
    for it, q in zip(v["items"], want_q):
        s = it["sides"]
        if [x["name"] for x in s] != [a, b]:
            bad.append(f"{it['id']}: sides {[x['name'] for x in s]}, want {[a, b]}")
            continue
        for x, who in zip(s, (a, b)):
            want = data_text(page, names.index(who), q)
            if x["text"] != want:
                bad.append(f"{it['id']} {who}: shown {x['text']!r}, the row's {want!r}")
            ok = bool(RIGHT[who][q])
            if x["won"] != ok or x["mark"] != ("\u2713 right" if ok else "\u2717 wrong"):
                bad.append(f"{it['id']} {who}: marked {x['mark']!r} (won {x['won']}), right {ok}")
        if q == 3:
            if it["qtext"] is not None or "not available" not in (it["note"] or ""):
                bad.append(f"d-3: text {it['qtext']!r}, note {it['note']!r}")
        elif it["qtext"] != qtexts[q]:
            bad.append(f"{it['id']}: question {it['qtext']!r}, want {qtexts[q]!r}")
        if not it["head"].endswith(f"answer {10 + q}"):
            bad.append(f"{it['id']}: head {it['head']!r}")
    return bad


def scroll_to_duels(page):
    """Click the bar's Duels button: the section's heading in view, and
    the sticky bar (four lines at 420 px) not over it."""
    page.click_selector(".bar .todu")
    page.wait_for("(() => { const h = document.querySelector('#duels > h2')"
                  ".getBoundingClientRect(); return h.top > 0 && "
                  "h.bottom < innerHeight; })()", 5)
    r = page.eval("[document.querySelector('.bar').getBoundingClientRect().bottom, "
                  "document.querySelector('#duels > h2').getBoundingClientRect().top]")
    return [] if r[0] <= r[1] else [f"bar's bottom at {r[0]}, over the heading at {r[1]}"]


def choose(page, way):
    """The duel's "Show" filter set to way (both, a, b)."""
    page.eval(f"""(s => {{ s.value = {way!r};
        s.dispatchEvent(new Event('change')); return 1; }})(
        document.querySelector('#duels .dbar select'))""")
    return page.eval(VIEW)


def checks(g, b, path, shots):
    page = b.new_page()
    page.goto("file://" + path)
    page.wait_for("document.documentElement.getAttribute('data-ready')", 20)
    v = page.eval(VIEW)
    if v is None:
        g.fail("no Duels section on a page with duels")
        page.close()
        return
    g.check("the section: a tab a duel in order, the bar's button, pairs "
            "of missing rungs left out",
            [] if v["tabs"] == [[f"{A} against {B}", "true"],
                                [f"{REF} against {A}", "false"]] and
            v["button"] == ["Duels (2) \u2193"]
            else [f"tabs {v['tabs']!r}, button {v['button']!r}"])
    want_count = f"{A} right only: 3 \u00b7 {B} right only: 2"
    # two duels: the tabs name them, no heading repeats the tab
    bad = [] if v["h"] is None and v["count"] == want_count and \
        v["verdict"] == VERDICT and v["n"] == "5 questions" else \
        [f"head {v['h']!r}, count {v['count']!r}, verdict {v['verdict']!r}, n {v['n']!r}"]
    g.check("A against B: the counts the filter found, the verdict as given", bad)
    bad = check_items(g, page, v, A, B, [1, 2, 3, 4, 5])
    b2 = [it for it in v["items"] if it["id"] == "d-2"]
    if not b2 or b2[0]["sides"][1]["text"] is None or \
            HOSTILE not in b2[0]["sides"][1]["text"]:
        bad.append(f"B's d-2 reply not shown as its text: {b2!r}")
    if v["items"] and v["items"][0]["sides"] and not (
            v["items"][0]["sides"][0]["right"] <= v["items"][0]["sides"][1]["left"] and
            abs(v["items"][0]["sides"][0]["top"] - v["items"][0]["sides"][1]["top"]) < 2):
        bad.append(f"not side by side at 1280 px: {v['items'][0]['sides']!r}")
    g.check("A against B: each question's text, A's reply beside B's as text, "
            "the right one marked", bad)
    bad = scroll_to_duels(page)
    g.check("the bar's button shows the section, the sticky bar not over it", bad)
    page.screenshot(os.path.join(shots, "duel-1280.png"))
    va, vb = choose(page, "a"), choose(page, "b")
    ids = [[it["id"] for it in x["items"]] for x in (va, vb)]
    g.check("the filter: A right only, B right only",
            [] if ids == [["d-1", "d-3", "d-4"], ["d-2", "d-5"]] and
            va["n"] == "3 questions" and vb["n"] == "2 questions"
            else [f"{ids!r}, {va['n']!r}, {vb['n']!r}"])
    page.click_selector("#duels .tab:nth-child(2)")
    v = page.eval(VIEW)
    bad = [] if v["count"] == COUNTS and v["verdict"] is None and \
        v["tabs"][1][1] == "true" else \
        [f"count {v['count']!r}, verdict {v['verdict']!r}, tabs {v['tabs']!r}"]
    bad += check_items(g, page, v, REF, A, [2])
    g.check("REF against A: the grader's counts in words, no verdict, d-2 alone", bad)
    page.click_selector("#duels li.dq .dqh a")
    page.wait_for("document.querySelector('#panel .reply') !== null", 20)
    link = "document.querySelector('#duels li.dq .dqh a')"
    inview = f"(r => r.top >= 0 && r.bottom <= innerHeight)({link}.getBoundingClientRect())"
    h = page.eval(f"[document.querySelector('#panel h2').textContent, location.hash, {inview}]")
    page.key("Escape")
    back = page.eval(f"[document.activeElement === {link}, {inview}, "
                     "document.querySelector('#panel').classList.contains('hidden')]")
    g.check("a question's id opens its panel at the duel's first rung, the list "
            "kept in view; Escape gives the focus back to the id",
            [] if h[0].startswith("d-2 \u00b7") and "at=REF" in h[1] and h[2] and
            back == [True, True, True] else [f"{h!r}, after Escape {back!r}"])
    bad = [f"{lv}: {t}" for lv, t in page.console if lv in ("severe", "warning")]
    bad += [f"dialog: {d}" for d in page.dialogs]
    bad += [u for u in page.requests if u.split("#")[0] != "file://" + path]
    n = page.eval("[document.scripts.length, document.images.length]")
    if n != [2, 0]:
        bad.append(f"scripts and images: {n}")
    g.check("nothing ran, nothing was asked for", bad)
    page.close()


def narrow(g, b, path, shots):
    page = b.new_page()
    page.goto("file://" + path)
    page.wait_for("document.documentElement.getAttribute('data-ready')", 20)
    v = page.eval(VIEW)
    s = v["items"][0]["sides"] if v and v["items"] else []
    g.check("420 px: the two replies one above the other, nothing wider than "
            "the window",
            [] if len(s) == 2 and s[0]["top"] < s[1]["top"] and
            abs(s[0]["left"] - s[1]["left"]) < 2 and v["wide"] <= 0
            else [repr(s), f"{v and v['wide']} px too wide"])
    g.check("420 px: the bar's button shows the section, the bar not over it",
            scroll_to_duels(page))
    page.screenshot(os.path.join(shots, "duel-420.png"))
    page.close()


def none(g, b, path):
    page = b.new_page()
    page.goto("file://" + path)
    page.wait_for("document.documentElement.getAttribute('data-ready')", 20)
    n = page.eval("[document.querySelectorAll('#duels').length, "
                  "document.querySelectorAll('.todu').length]")
    g.check("a page with no duels: no Duels section, no button",
            [] if n == [0, 0] else [repr(n)])
    page.close()


def fixture(build, name, env, path):
    r = subprocess.run([os.path.join(build, "tests", name)],
                       env=dict(os.environ, **{env: path}),
                       capture_output=True, text=True)
    return None if r.returncode == 0 and os.path.exists(path) else \
        f"{name} did not write the page: {r.stdout[-400:]}"


def main():
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
    shots = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else
                            os.path.join(build, "tests", "page-shots"))
    g = Suite("duel-page")
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
    with tempfile.TemporaryDirectory(prefix="graveyard-duel-") as tmp:
        path, plain = (os.path.join(tmp, x) for x in ("REPORT.html", "NONE.html"))
        for why in (fixture(build, "test_report_page_duels", "GY_DUEL_PAGE", path),
                    fixture(build, "test_report_probs", "GY_PROBS_PAGE", plain)):
            if why:
                g.fail(why)
                return g.end()
        try:
            with browser.Browser(chromium) as b:
                checks(g, b, path, shots)
                none(g, b, plain)
            with browser.Browser(chromium, width=420, height=900) as b:
                narrow(g, b, path, shots)
        except Exception as e:  # a broken page fails the suite
            g.fail(f"{type(e).__name__}: {e}")
    return g.end()


if __name__ == "__main__":
    sys.exit(main())
