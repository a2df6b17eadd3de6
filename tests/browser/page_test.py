#!/usr/bin/env python3
# Tests: report/page.c
# Tests: report/assets/embed.c
# Tests: report/depth_svg.c
"""The page in a real browser: REPORT.html, COMPARE.html and THINK.html
opened from disk in Debian's chromium, driven headless through selenium
and chromedriver (browser.py: Debian's python3-selenium and
chromium-driver, so run it with /usr/bin/python3).

Builds the study-shaped T4 ladder (tests/page/make_study.py: 250
questions, BF16 to Q2_K and a QAT side rung, every figure of the article)
and its L4 twin, runs graveyard report / compare / think, and checks on
each page, against report.json and compare.json (the grader's figures):

- the cells: one per question on every rung; known cells' colours and caps
  (test-687 right at BF16, dead at F16 with the dark cap, right at Q8_0);
- hovering test-687's F16 cell shows "dead", its reference and what it said;
  clicking it opens the panel, whose strip shows it right again at Q8_0;
- every filter's count, at any rung and at each rung, equals the grader's
  (dead, ghosts, first deaths, cut off, looped, errors; runs disagree);
- the keyboard: arrows move the focus, Enter opens, Escape closes and
  gives the focus back;
- the URL fragment restores a selection, and the report's table links
  filter the grid;
- no request leaves the page (every request recorded: only the file
  itself) and no console error or warning; no dialog ever opens;
- hostile replies (</script>, <img onerror>, quotes, U+2028) and a folder
  name with bytes that are not UTF-8 show as text and run nothing;
- question ids with < > & " ' # a space or a line end (a ladder on the fake
  server): each epitaph's link opens that very question's panel;
- the page at 1,319 questions x 10 rungs still draws every cell and opens
  its panel;
- at 1280 x 800 (issue 35): the decision block above the fold, the ladder's
  tables without a scrollbar (the rest of a rung's figures in its drawer),
  and the grid painted from the markup with the script off.

Screenshots for a person go to OUTDIR (default build/tests/page-shots).
Usage: page_test.py GRAVEYARD [OUTDIR]. Ends with "page: N passed, M
failed". Without chromium or chromedriver it says why and skips; under
CI=... that is a failure (.ci/run installs them)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "report"))
from suite import Suite, run  # noqa: E402
from cover_test import pixel, read_png  # noqa: E402

MARIGOLD = "rgb(234, 162, 33)"
GREY = "rgb(138, 141, 145)"
VIOLET = "rgb(143, 95, 191)"
MARIGOLD_RGB, DEAD_RGB = (0xea, 0xa2, 0x21), (0x2e, 0x2f, 0x33)
CHAIN = ["BF16", "F16", "Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M", "Q4_0",
         "Q3_K_M", "Q2_K"]
FULL_TEST = os.path.join(ROOT, "..", "shared", "data", "gsm8k", "test.jsonl")


def study(out, *extra):
    run([sys.executable, os.path.join(ROOT, "tests", "page", "make_study.py"),
         out, *extra])


def url(path, frag=""):
    return "file://" + os.path.abspath(path) + frag


# ---- helpers on a page ------------------------------------------------------

DATA = "window.graveyardData"


def qindex(page, qid):
    return page.eval(f"{DATA}.ids.indexOf({json.dumps(qid)})")


def cell_sel(row, q):
    return f'#grid .row[data-row="{row}"] i[data-q="{q}"]'


def set_filter(page, f, r="", s="order"):
    page.eval(f"""(() => {{
        for (const [id, v] of [['f', {json.dumps(f)}], ['r', {json.dumps(r)}],
                               ['s', {json.dumps(s)}]]) {{
            const el = document.getElementById(id);
            el.value = v; el.dispatchEvent(new Event('change'));
        }} }})()""")
    return shown(page)


def shown(page):
    text = page.eval("document.getElementById('count').textContent")
    return int(text.split(" of ")[0].replace(",", ""))


def cells_per_row(page):
    return page.eval("""(() => {
        const n = {};
        document.querySelectorAll('#grid .row').forEach(r => {
            n[r.dataset.row] = (n[r.dataset.row] || 0) + r.lastChild.children.length;
        });
        return n; })()""")


def style(page, sel, prop):
    return page.eval(f"getComputedStyle(document.querySelector({json.dumps(sel)}))"
                     f".getPropertyValue({json.dumps(prop)})")


def no_leaks(g, page, what, path):
    own = url(path).split("#")[0]
    others = [u for u in page.requests if u.split("#")[0] != own]
    res = page.eval("performance.getEntriesByType('resource').length")
    g.check(f"{what}: no request leaves the page", others +
            ([f"{res} resource entries"] if res else []),
            f"{len(page.requests)} request(s), the file itself")
    bad = [f"{lv}: {t}" for lv, t in page.console if lv in ("severe", "warning")]
    g.check(f"{what}: no console error", bad)
    g.check(f"{what}: no dialog", [f"dialog: {d}" for d in page.dialogs])


def ready(page):
    return int(page.wait_for(
        "document.documentElement.getAttribute('data-ready')", timeout=20))


def shot_checks(g, page, png, q687):
    """The screenshot itself, decoded (cover_test's PNG reader): a
    1280 x 900 viewport, and under test-687's cells the colours the grid
    means: marigold at BF16, the dark cap of the dead at F16, marigold
    again at Q8_0."""
    w, h, _ = img = read_png(png)
    problems = [] if (w, h) == (1280, 900) else [f"{w} x {h} px"]
    for row, part, want in ((0, 0.7, MARIGOLD_RGB), (1, 0.15, DEAD_RGB),
                            (2, 0.7, MARIGOLD_RGB)):
        x, y = page.eval(f"""(r => [Math.floor(r.left + r.width / 2),
            Math.floor(r.top + r.height * {part})])(document.querySelector(
            {json.dumps(cell_sel(row, q687))}).getBoundingClientRect())""")
        got = pixel(img, x, y)
        if got != want:
            problems.append(f"{CHAIN[row]} at ({x}, {y}): {got}, want {want}")
    g.check("report: the screenshot shows test-687's cells in their colours",
            problems, os.path.basename(png))


# ---- the answer first: "Which file?" above the fold ------------------------

def fold_checks(g, chromium, pages, shots):
    """At 1280 x 800, the decision block (#decide, issue 35) lies whole in
    the viewport on load, before any scroll: the page's first section after
    its header, one row per margin (1, 2, 5 and the run's own) and one per
    rung; and "which one?" is said in words once (pareto.svg's caption),
    not again in a paragraph. pages: (name, REPORT.html, report.json)."""
    import browser
    live = {}
    with browser.Browser(chromium, 1280, 800) as b:
        for name, path, rep_path in pages:
            rep = json.load(open(rep_path))
            page = b.new_page()
            page.goto(url(path))
            ready(page)
            page.eval("window.scrollTo(0, 0)")
            box = page.eval("""(e => e && (r => [r.left, r.top, r.right,
                r.bottom])(e.getBoundingClientRect()))(
                document.getElementById('decide'))""")
            view = page.eval("[innerWidth, innerHeight]")
            problems = []
            if not box:
                problems.append("no #decide on the page")
            elif (box[0] < 0 or box[1] < 0 or box[2] > view[0]
                  or box[3] > view[1]):
                problems.append(f"#decide at {box}, viewport {view}")
            g.check(f"{name}: the decision block is above the fold at "
                    f"1280 x 800", problems,
                    f"bottom edge at y {box[3]:.0f} of {view[1]}"
                    if box else "")
            # and under it the live grid, every rung's row whole
            rows = page.eval("""[...document.querySelectorAll('#grid .row')]
                .map(r => r.getBoundingClientRect().bottom)""")
            g.check(f"{name}: the grid is above the fold too, every row",
                    [] if rows and max(rows) <= view[1] else
                    [f"rows end at y {max(rows or [0]):.0f} of {view[1]}"],
                    f"last row's bottom at y {max(rows or [0]):.0f}")
            order = page.eval("""[...document.body.children].map(
                e => e.id || e.tagName.toLowerCase()).slice(0, 3)""")
            rows = page.eval("""[...document.querySelectorAll(
                '#decide table')].map(t => t.tBodies[0].rows.length)""")
            want = [len(rep.get("decide", {}).get("margins", [])),
                    len(rep["rungs"]) + len(rep["side_rungs"])]
            g.check(f"{name}: the block comes first, a row per margin and "
                    "per rung",
                    ([] if order == ["header", "decide", "app"]
                     else [f"the page opens {order}"]) +
                    ([] if rows == want else [f"rows {rows}, want {want}"]))
            said = page.eval("""[...document.querySelectorAll('#report p')]
                .filter(p => /shown equivalent within|equivalent file:/
                .test(p.textContent)).length""")
            caption = page.eval("""[...document.querySelectorAll(
                '#report svg text')].some(t => t.textContent.startsWith(
                'Which one?'))""")
            g.check(f"{name}: \"which one?\" said once, in pareto.svg",
                    ([f"{said} paragraph(s) say it again"] if said else []) +
                    ([] if caption else ["pareto.svg's caption lost it"]))
            page.screenshot(os.path.join(shots, f"decide-{name}-1280x800.png"))
            table_fit_checks(g, page, name, rep, shots)
            live[name] = page.eval(f"""({{labels: [...document.querySelectorAll(
                '#grid .row .lab')].map(l => l.textContent),
                first: !!document.getElementById('first'),
                ncols: {DATA}.order.length,
                col687: {DATA}.order.indexOf({DATA}.ids.indexOf('test-687'))}})""")
            no_leaks(g, page, name, path)
    return live


def table_fit_checks(g, page, name, rep, shots):
    """The ladder table (and the side rungs' table) fit 1280 px without a
    scrollbar (issue 35): the figures that do not fit are folded into each
    rung's drawer, hidden until its fold opens, and the drawer holds the
    rung's own figures (report.json's)."""
    fit = page.eval("""[...document.querySelectorAll('#report h2')]
        .filter(h => /^(The ladder|Beside the ladder)$/.test(h.textContent))
        .map(h => { let t = h.nextElementSibling;
            while (t && !t.classList.contains('tw')) t = t.nextElementSibling;
            return [h.textContent, t ? t.clientWidth : -1,
                    t ? t.scrollWidth : -1]; })""")
    problems = [f"{h}: {sw} px wide in {cw} px" for h, cw, sw in fit
                if cw < 0 or sw > cw]
    if not fit:
        problems.append("no ladder table")
    g.check(f"{name}: the ladder's tables fit 1280 px, no scrollbar",
            problems, ", ".join(f"{h} {sw} px" for h, _, sw in fit))
    rung = rep["rungs"][-1]
    drawer = page.eval(f"""(() => {{
        const row = [...document.querySelectorAll('#report table.folds tr')]
            .find(r => r.cells[0] && r.cells[0].textContent ===
                  {json.dumps(rung["rung"])});
        if (!row) return null;
        const d = row.nextElementSibling, shut = getComputedStyle(d).display;
        row.querySelector('details.fold > summary').click();
        const open = getComputedStyle(d).display;
        const lines = [...d.querySelectorAll('dl > div')].map(
            x => [x.children[0].textContent, x.children[1].textContent]);
        return {{shut, open, lines}};
    }})()""")
    problems = []
    if drawer is None:
        problems.append(f"no folding row for {rung['rung']}")
    else:
        got = dict(drawer["lines"])
        if drawer["shut"] != "none" or drawer["open"] != "table-row":
            problems.append(f"drawer {drawer['shut']} then {drawer['open']}")
        if got.get("Right") != f"{rung['right']:,}":
            problems.append(f"Right {got.get('Right')!r}, report.json "
                            f"{rung['right']}")
        if "GPU MiB" not in got or "McNemar p" not in got:
            problems.append(f"drawer lines {sorted(got)}")
    g.check(f"{name}: {rung['rung']}'s drawer opens on its figures", problems)
    page.screenshot(os.path.join(shots, f"ladder-{name}-drawer.png"))


def first_paint_checks(g, chromium, pages, live, shots):
    """The grid is in the page's markup (issue 35): with the page's script
    off, as a headless screenshot or a reader without JavaScript sees it,
    a picture of the grid stands above the fold at 1280 x 800, its rows
    labelled as the live grid labels them (verdict glyphs included), and
    the screenshot shows test-687's cells in their colours; with the
    script on, the live grid has taken its place (live)."""
    import browser
    with browser.Browser(chromium, 1280, 800, script=False) as b:
        for name, path, _ in pages:
            page = b.new_page()
            page.goto(url(path))
            got = page.eval("""(f => f && {labels: [...f.querySelectorAll(
                '.row .lab')].map(l => l.textContent), box: (r => [r.top,
                r.bottom])(f.getBoundingClientRect()),
                strips: [...f.querySelectorAll('svg.strip')].map(s => (r =>
                [r.left, r.top, r.width, r.height])(
                s.getBoundingClientRect()))})(document.getElementById(
                'first'))""")
            want = live[name]
            problems = []
            if got is None:
                problems.append("no #first in the page's markup")
            else:
                if got["labels"] != want["labels"]:
                    problems.append(f"labels {got['labels']}, the live "
                                    f"grid's {want['labels']}")
                if got["box"][0] > 800 or got["box"][0] < 0:
                    problems.append(f"the picture starts at y {got['box'][0]}")
            if want["first"]:
                problems.append("the live page kept the picture")
            png = os.path.join(shots, f"first-paint-{name}-1280x800.png")
            page.screenshot(png)
            if got is not None and want["col687"] >= 0:
                img = read_png(png)
                for row, part, rgb in ((0, 0.7, MARIGOLD_RGB),
                                       (1, 0.15, DEAD_RGB),
                                       (2, 0.7, MARIGOLD_RGB)):
                    left, top, width, height = got["strips"][row]
                    x = int(left + (want["col687"] + 0.5) * width /
                            want["ncols"])
                    y = int(top + height * part)
                    if pixel(img, x, y) != rgb:
                        problems.append(f"{CHAIN[row]} at ({x}, {y}): "
                                        f"{pixel(img, x, y)}, want {rgb}")
            g.check(f"{name}: the grid is painted without the script",
                    problems, os.path.basename(png))
            page.close()


def demo_ladder(graveyard, tmp):
    """configs/demo.json's ladder on the fake llama-server (the demo's
    shape: 12 questions, four rungs and a QAT side rung), reported."""
    d = os.path.join(tmp, "demo")
    fake = os.path.join(os.path.dirname(graveyard), "fake-llama-server")
    subprocess.run([graveyard, "ladder", "configs/demo.json", "--run-dir", d,
                    "--llama", fake, "--quiet"], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL, timeout=120)
    return d


# ---- the report page --------------------------------------------------------

def report_checks(g, b, rundir, shots):
    rep = json.load(open(os.path.join(rundir, "report.json")))
    path = os.path.join(rundir, "REPORT.html")
    page = b.new_page()
    page.goto(url(path))
    tti = ready(page)
    nq = rep["rungs"][0]["n"]
    rows = CHAIN + [s["rung"] for s in rep["side_rungs"]]
    names = page.eval(f"{DATA}.rows.map(r => r.name)")
    g.check("report: one grid row per rung, side rungs below",
            [] if names == rows else [f"rows {names}, want {rows}"])
    # each rung's label carries its verdict, visibly: a glyph of its class
    # before the name (the reference none), the words in the title
    marks = page.eval("""Array.from(document.querySelectorAll('#grid .band')[0]
        .querySelectorAll('.row')).map(r => {
          const v = r.querySelector('.lab .vm');
          return [r.querySelector('.lab').textContent, v ? v.className : '',
                  r.querySelector('.lab').title];
        })""")
    want_class = {"equivalent": "v-eq", "worse": "v-worse",
                  "better": "v-better", "cannot tell": "v-tell"}
    bad = []
    for i, (text, cls, title) in enumerate(marks):
        words = (page.eval(f"{DATA}.rows[{i}].verdict") or "")
        want = next((c for w, c in want_class.items() if words.startswith(w)), "")
        if (want and want not in cls) or (not want and cls):
            bad.append(f"{rows[i]}: mark '{cls}' for '{words}'")
        if not text.endswith(rows[i]):
            bad.append(f"{rows[i]}: label '{text}'")
    g.check("report: each rung's label carries its verdict (a glyph, coloured)",
            bad if len(marks) == len(rows) else [f"{len(marks)} labels"])
    per = cells_per_row(page)
    g.check("report: one cell per question on every rung",
            [f"{rows[int(i)]}: {n} cells, want {nq}" for i, n in per.items()
             if n != nq] + ([] if len(per) == len(rows) else ["rows missing"]),
            f"{len(rows)} x {nq}")
    q687 = qindex(page, "test-687")
    want = [(0, MARIGOLD, False), (1, GREY, True), (2, MARIGOLD, False),
            (6, GREY, True), (8, GREY, True)]
    problems = []
    for row, colour, dead in want:
        sel = cell_sel(row, q687)
        got = style(page, sel, "background-color")
        img = style(page, sel, "background-image")
        if got != colour:
            problems.append(f"{rows[row]}: {got}, want {colour}")
        if dead != ("gradient" in img):
            problems.append(f"{rows[row]}: cap {img!r}, dead {dead}")
    g.check("report: test-687's cells (right, dead with a cap, right again)",
            problems)

    page.hover_selector(cell_sel(1, q687))
    tip = page.wait_for("(t => !t.classList.contains('hidden') && t.textContent)"
                        "(document.getElementById('tip'))")
    g.check("report: hovering test-687 at F16 says dead and its answers",
            [f"tooltip {tip!r} lacks {w!r}" for w in
             ("test-687", "F16", "reference 13", "said 17", "dead",
              "first death", "F16 against BF16: equivalent at \u00b12 points")
             if w not in tip])
    page.click_selector(cell_sel(1, q687))
    page.wait_for("!document.getElementById('panel').classList.contains('hidden')")
    strip = page.eval("""[...document.querySelectorAll('#panel .chip')].map(
        c => c.textContent)""")
    want_strip = {"BF16": "\u2713 13", "F16": "\u2717 17",
                  "Q8_0": "\u2713 13", "Q4_K_M": "\u2713 13"}
    problems = []
    for i, name in enumerate(rows[:len(strip)]):
        if name in want_strip and want_strip[name] not in strip[i]:
            problems.append(f"{name}: {strip[i]!r}")
    if "right again" not in strip[2]:
        problems.append(f"Q8_0 chip {strip[2]!r} does not say right again")
    if "died here" not in strip[1]:
        problems.append(f"F16 chip {strip[1]!r} does not say died here")
    g.check("report: the strip shows test-687 dead at F16, right again at Q8_0",
            problems, " | ".join(s.replace("\n", " ") for s in strip[:3]))
    panel = page.eval("document.getElementById('panel').textContent")
    g.check("report: the panel shows the question and F16's reply",
            [w for w in ("twins", "Answer: 17", "finish: stop",
                         "the rung: equivalent at \u00b12 points against BF16")
             if w not in panel])
    frag = page.eval("location.hash")
    g.check("report: the fragment keeps the open question",
            [] if "q=test-687" in frag and "at=F16" in frag else [frag])
    page.screenshot(os.path.join(shots, "report-250-panel.png"))
    page.key("Escape")
    page.wait_for("document.getElementById('panel').classList.contains('hidden')")

    # every filter's count against the grader's figures
    problems = []
    expect = [("tomb", "", rep["summary"]["tombstones"]),
              ("ghost", "", rep["summary"]["ghosts"]),
              ("dead", "", rep["summary"]["tombstones"]),
              ("all", "", nq)]
    lines = rep["rungs"] + rep["side_rungs"]
    for ln in lines:
        r = ln["rung"]
        expect += [("dead", r, ln["dead"]), ("ghost", r, ln["ghosts"]),
                   ("cut", r, ln["cut_off"]), ("loop", r, ln["looped"]),
                   ("error", r, ln["errors"])]
        if ln in rep["rungs"]:
            expect.append(("tomb", r, ln["first_deaths"]))
    for f, r, n in expect:
        got = set_filter(page, f, r)
        if got != n:
            problems.append(f"{f} at {r or 'any rung'}: {got}, want {n}")
    g.check("report: every filter's count is the grader's", problems,
            f"{len(expect)} filters")
    set_filter(page, "all", "", "death")
    first = page.eval("""[...document.querySelector('#grid .row[data-row="1"]')
        .lastChild.children].slice(0, 1).map(c => +c.dataset.q)""")
    g.check("report: sorted by first death, F16's tombstone comes first",
            [] if first == [q687] else [f"first column {first}"])
    set_filter(page, "all", "", "order")

    # keyboard
    order = page.eval(f"{DATA}.order")
    page.eval(f"document.querySelector({json.dumps(cell_sel(0, order[0]))}).focus()")
    steps = [("ArrowRight", 0, 1), ("ArrowRight", 0, 2), ("ArrowDown", 1, 2),
             ("ArrowLeft", 1, 1), ("ArrowUp", 0, 1), ("End", 0, nq - 1),
             ("Home", 0, 0)]
    problems = []
    for key, row, pos in steps:
        page.key(key)
        got = page.eval("""(a => a.tagName === 'I' ? [+a.parentNode.parentNode
            .dataset.row, +a.dataset.q] : null)(document.activeElement)""")
        if got != [row, order[pos]]:
            problems.append(f"{key}: focus {got}, want {[row, order[pos]]}")
    label = page.eval("document.activeElement.getAttribute('aria-label')") or ""
    first_id = page.eval(f"{DATA}.ids[{order[0]}]")
    if not label.startswith(first_id + " \u00b7 BF16;"):
        problems.append(f"the focused cell reads {label!r} to a screen reader")
    page.key("ArrowDown")
    page.key("Enter")
    opened = page.eval("!document.getElementById('panel').classList.contains('hidden')"
                       " && document.querySelector('#panel h2').textContent")
    if not opened or not opened.startswith(json.loads(page.eval(
            f"JSON.stringify({DATA}.ids[{order[0]}])"))):
        problems.append(f"Enter opened {opened!r}")
    page.key("Escape")
    back = page.eval("""(a => a.tagName === 'I' && [+a.parentNode.parentNode
        .dataset.row, +a.dataset.q])(document.activeElement)""")
    if back != [1, order[0]]:
        problems.append(f"Escape left the focus on {back}")
    g.check("report: arrows move, Enter opens, Escape closes", problems)

    # a link in the report's ladder table filters the grid
    page.click_selector('#report a[href="#f=dead&r=Q4_0"]')
    # the hashchange handler sets the controls and redraws in one task
    page.wait_for("document.getElementById('r').value === 'Q4_0' && "
                  "document.getElementById('f').value === 'dead'")
    q40 = next(x for x in rep["rungs"] if x["rung"] == "Q4_0")["dead"]
    g.check("report: the ladder table's Q4_0 links to its dead",
            [] if shown(page) == q40 else [f"{shown(page)} shown, want {q40}"])
    no_leaks(g, page, "report", path)
    page.close()

    # a shared link opens on its question
    page = b.new_page()
    page.goto(url(path, "#f=tomb&q=test-564&at=Q6_K"))
    ready(page)
    head = page.eval("document.querySelector('#panel h2') && "
                     "document.querySelector('#panel h2').textContent")
    g.check("report: a link with #q= opens that question",
            [] if head and head.startswith("test-564") and
            shown(page) == rep["summary"]["tombstones"] else
            [f"panel {head!r}, {shown(page)} shown"])
    page.screenshot(os.path.join(shots, "report-250-link.png"))
    no_leaks(g, page, "report link", path)
    page.close()
    page = b.new_page()
    page.goto(url(path))
    ready(page)
    page.screenshot(os.path.join(shots, "report-250.png"))
    shot_checks(g, page, os.path.join(shots, "report-250.png"), q687)
    page.screenshot(os.path.join(shots, "report-250-full.png"), full_page=True)
    page.close()
    return tti


# ---- the compare and think pages --------------------------------------------

def compare_checks(g, b, cmpdir, shots, kind="compare"):
    name = "COMPARE" if kind == "compare" else "THINK"
    path = os.path.join(cmpdir, f"{name}.html")
    page = b.new_page()
    page.goto(url(path))
    ready(page)
    d = page.eval(f"(d => ({{kind: d.kind, nq: d.ids.length, rows: d.rows.length, "
                  f"runs: d.runs.map(r => r.label), g: d.g}}))({DATA})")
    per = cells_per_row(page)
    g.check(f"{kind}: one cell per question on every rung",
            [f"row {i}: {n}" for i, n in per.items() if n != d["nq"]] +
            ([] if len(per) == d["rows"] else ["rows missing"]),
            f"{d['rows']} x {d['nq']}, runs {d['runs']}")
    problems = []
    split = []
    for i in range(d["rows"]):
        codes = [ord(c) - 97 for c in d["g"][i]]
        split.append(sum(1 for c in codes if c // 3 == 3))
        got = set_filter(page, "split", page.eval(f"{DATA}.rows[{i}].name"))
        if got != split[-1]:
            problems.append(f"row {i}: {got} shown, {split[-1]} violet")
    if kind == "compare":
        c = json.load(open(os.path.join(cmpdir, "compare.json")))
        for i, r in enumerate(c["rungs"]):
            want = r["graded_differently"][0][1]
            if want != split[i]:
                problems.append(f"{r['rung']}: {split[i]} violet, compare.json "
                                f"says {want} graded differently")
    g.check(f"{kind}: 'runs disagree' shows every violet cell", problems,
            f"per rung {split}")
    set_filter(page, "all")
    row = max(range(d["rows"]), key=lambda i: split[i])
    q = next(j for j, ch in enumerate(d["g"][row]) if (ord(ch) - 97) // 3 == 3)
    sel = cell_sel(row, q)
    colour = style(page, sel, "background-color")
    page.hover_selector(sel)
    tip = page.wait_for("(t => !t.classList.contains('hidden') && t.textContent)"
                        "(document.getElementById('tip'))")
    problems = [] if colour == VIOLET else [f"split cell {colour}"]
    problems += [f"tooltip lacks {lab!r}" for lab in d["runs"] if lab not in tip]
    page.click_selector(sel)
    page.wait_for("!document.getElementById('panel').classList.contains('hidden')")
    rows_in_strip = page.eval("document.querySelectorAll('#panel .strip tr').length")
    if rows_in_strip != len(d["runs"]):
        problems.append(f"strip has {rows_in_strip} rows")
    g.check(f"{kind}: a violet cell shows every run's answer", problems)
    page.screenshot(os.path.join(shots, f"{kind}-panel.png"))
    page.key("Escape")
    no_leaks(g, page, kind, path)
    page.close()
    return d


# ---- hostile replies ---------------------------------------------------------

HOSTILE = ["</script><script>alert(1)</script>Answer: 7",
           "<img src=x onerror=\"alert(2)\">Answer: 7",
           "\"quotes\" 'single' `back` \\ &amp; &lt;b&gt; Answer: 7",
           "line\u2028sep\u2029 <!-- </SCRIPT > Answer: 7"]


def depth_checks(g, b, graveyard, tmp, shots):
    """A run of long items (tests/report/depth_test.py's canned folder):
    depth.svg inline in the page, under lengths.svg, drawn at its own size
    in a 1280 px window (no scroll bar, not shrunk), every cell with its
    <title> naming rung, length and count, and on the screenshot a cell
    all lost is the dead dark, one with nothing to count white."""
    import depth_test
    folder = os.path.join(tmp, "long")
    depth_test.write_folder(folder)
    depth_test.report(graveyard, folder)
    path = os.path.join(folder, "REPORT.html")
    page = b.new_page()
    page.goto(url(path))
    ready(page)
    if not page.eval("!!document.querySelector('figure g[data-bin]')"):
        g.check("long run: depth.svg inline under lengths.svg",
                ["no depth.svg cell on the page"])
        page.close()
        return
    page.eval("document.querySelector('g[data-bin]').closest('figure')"
              ".scrollIntoView()")
    got = page.eval("""(() => {
        const f = document.querySelector('g[data-bin]').closest('figure');
        const l = document.querySelector('rect[data-verdict]')
            .closest('figure');
        const svg = f.querySelector('svg'), r = svg.getBoundingClientRect();
        const at = (i, k, b) => (e => e && (q => [q.left, q.top])(
            e.querySelector('rect').getBoundingClientRect()))(
            f.querySelector(`g[data-rung="${i}"][data-length="${k}"]` +
                            `[data-bin="${b}"]`));
        return {under: l.getBoundingClientRect().bottom <= r.top,
                scroll: [f.scrollWidth, f.clientWidth],
                size: [r.width, +svg.getAttribute('width')],
                titles: [...f.querySelectorAll('g[data-bin]')].map(
                    g => g.querySelector('title').textContent),
                dead: at(1, 1, 4), empty: at(1, 1, 1)};
    })()""")
    problems = []
    if not got["under"]:
        problems.append("depth.svg is not under lengths.svg")
    if got["scroll"][0] > got["scroll"][1]:
        problems.append(f"the figure scrolls: {got['scroll']}")
    if abs(got["size"][0] - got["size"][1]) > 0.5:
        problems.append(f"drawn {got['size'][0]} px wide, not its "
                        f"{got['size'][1]}")
    bad = [t for t in got["titles"]
           if not (t.startswith("A at ") or t.startswith("B at "))
           or " tokens, needles at " not in t]
    if len(got["titles"]) != 40 or bad:
        problems.append(f"{len(got['titles'])} cells, titles {bad[:3]}")
    png = os.path.join(shots, "depth-1280x900.png")
    page.screenshot(png)
    img = read_png(png)
    for name, xy, rgb in (("A at 4,096, 40-49 %: all lost", got["dead"],
                           DEAD_RGB),
                          ("A at 4,096, 10-19 %: none answered",
                           got["empty"], (0xff, 0xff, 0xff))):
        x, y = int(xy[0] + 6), int(xy[1] + 4)
        if pixel(img, x, y) != rgb:
            problems.append(f"{name}: {pixel(img, x, y)} at ({x}, {y})")
    g.check("long run: depth.svg inline under lengths.svg", problems,
            f"{got['size'][0]:.0f} px wide, 40 cells")
    no_leaks(g, page, "long run", path)
    page.close()


def hostile_checks(g, b, graveyard, tmp, shots):
    # bytes 0xff 0xfe in the folder's name (surrogateescape): not UTF-8
    folder = os.path.join(tmp, "bad-\udcff\udcfe-<script>alert(3)</script>")
    os.makedirs(os.path.join(folder, "rows"))
    for rung in ("REF", "LOW"):
        with open(os.path.join(folder, "rows", rung + ".jsonl"), "w") as f:
            for i, text in enumerate(HOSTILE):
                f.write(json.dumps({
                    "id": f"q{i}<b>", "reference": "7",
                    "content": text if rung == "REF" else text[:-1] + "8",
                    "reasoning_content": "<script>alert(4)</script>",
                    "finish_reason": "stop", "completion_tokens": 5,
                    "error": None}) + "\n")
    out = os.path.join(tmp, "bad-out")
    run([graveyard, "report", folder, "--rungs", "REF,LOW", "--out", out])
    path = os.path.join(out, "REPORT.html")
    page = b.new_page()
    page.goto(url(path))
    ready(page)
    problems = []
    for i, text in enumerate(HOSTILE):
        page.click_selector(cell_sel(0, i))
        page.wait_for("!document.getElementById('panel').classList.contains('hidden')")
        got = page.eval("document.querySelector('#panel pre.text').textContent")
        if got != text:
            problems.append(f"reply {i}: {got!r}")
    scripts = page.eval("document.scripts.length")
    imgs = page.eval("document.images.length")
    if scripts != 2:
        problems.append(f"{scripts} script elements")
    if imgs != 0:
        problems.append(f"{imgs} img elements")
    title = page.eval("document.title")
    if "<script>alert(3)</script>" not in title or "\ufffd" not in title:
        problems.append(f"title {title!r}")
    g.check("hostile: replies, ids and a folder name show as text", problems)
    page.screenshot(os.path.join(shots, "hostile-panel.png"))
    no_leaks(g, page, "hostile", path)
    page.close()


# ---- question ids that are not words ----------------------------------------

# Ids with characters that HTML, Markdown and the URL fragment each treat
# specially (and one that looks like an entity, and two that differ only by
# a newline against a space): each epitaph's link must open its own panel.
ODD_IDS = [("a<b", "Tom has 3 apples and gets 2 more. How many apples?", "5"),
           ("x&y", "A box holds 12 pears; 4 are eaten. How many pears are left?", "8"),
           ("q\"1", "Sam buys 6 bags of 10 plums. How many plums?", "60"),
           ("line\nbreak", "Half of 30 figs are ripe. How many figs are ripe?", "15"),
           ("line break", "Two baskets hold 7 lemons each. How many lemons?", "14"),
           ("#frag", "A cat has 4 legs. How many legs do 3 cats have?", "12"),
           ("it's a>b &amp; c", "Ann reads 9 pages a day for 2 days. How many pages?", "18")]


def odd_id_checks(g, b, graveyard, tmp, shots):
    """A two-rung ladder on the fake server whose question ids hold < > &
    " ' # a space and a newline: REF right but on the last (a ghost), LOW
    wrong but on the last (six tombstones). Clicking each epitaph's id in
    the report opens the panel of that very question."""
    d = os.path.join(tmp, "odd")
    os.makedirs(d)
    qfile = os.path.join(d, "q.jsonl")
    with open(qfile, "w") as f:
        for qid, text, answer in ODD_IDS:
            f.write(json.dumps({"id": qid, "question": text, "answer": answer}) + "\n")
    keys = ["apples", "pears", "plums", "figs", "lemons", "cats", "pages"]
    ref = [{"match": k, "content": f"Answer: {a}"} for k, (_, _, a) in
           zip(keys, ODD_IDS)]
    ref[-1]["content"] = "Answer: 17"
    models = {"REF": ref, "LOW": [{"match": "pages", "content": "Answer: 18"}]}
    rungs = []
    for name, replies in models.items():
        m = os.path.join(d, name + ".gguf")
        with open(m, "w") as f:
            json.dump({"fake_llama_server": 1, "load_ms": 50, "decode_tps": 50.0,
                       "default": {"content": "Answer: 0"},
                       "replies": replies}, f)
        rungs.append({"name": name, "model": m})
    cfg = os.path.join(d, "odd.json")
    with open(cfg, "w") as f:
        json.dump({"name": "odd ids", "questions": qfile,
                   "run_dir": os.path.join(d, "run"), "rungs": rungs,
                   "server": {"binary": os.path.join(os.path.dirname(graveyard),
                                                     "fake-llama-server")},
                   "gpus": ["0"]}, f)
    run([graveyard, "ladder", cfg, "--quiet"])
    path = os.path.join(d, "run", "REPORT.html")
    page = b.new_page()
    page.goto(url(path))
    ready(page)
    links = page.eval("""[...document.querySelectorAll('#report li > a')].map(
        (a, i) => (a.dataset.t = i, a.textContent))""")
    problems, opened = [], []
    heads = {f"{q} \u00b7 answer {a}": q for q, _, a in ODD_IDS}
    if len(links) != len(ODD_IDS):
        problems.append(f"{len(links)} epitaph links: {links!r}")
    for i, text in enumerate(links):
        page.eval("document.getElementById('panel').classList.add('hidden')")
        page.click_selector(f'#report a[data-t="{i}"]')
        try:
            head = page.wait_for("(p => !p.classList.contains('hidden') && "
                                 "p.querySelector('h2').textContent)"
                                 "(document.getElementById('panel'))", timeout=3)
        except TimeoutError:
            head = None
        # the link shows its id with a newline as white space
        if head not in heads or heads[head].split() != text.split():
            problems.append(f"the link {text!r} opened {head!r}")
            continue
        opened.append(heads[head])
        if heads[head].startswith("line\n"):
            page.screenshot(os.path.join(shots, "odd-ids-panel.png"))
    if sorted(opened) != sorted(heads.values()):
        problems.append(f"opened {opened!r}, not every id once")
    g.check("odd ids: each epitaph's link opens its own question's panel",
            problems, f"{len(links)} links")
    page.eval("document.getElementById('panel').classList.add('hidden'), "
              "document.querySelector('#report ul').scrollIntoView()")
    page.screenshot(os.path.join(shots, "odd-ids-epitaphs.png"))
    page.eval("window.scrollTo(0, 0)")
    page.screenshot(os.path.join(shots, "odd-ids-full.png"), full_page=True)
    no_leaks(g, page, "odd ids", path)
    page.close()


# ---- 1,319 questions ---------------------------------------------------------

def questions_1319(tmp):
    """GSM8K's whole test set from ../shared when it is there; else (a
    clone alone) 1,319 questions made from the shipped 250, renumbered."""
    if os.path.exists(FULL_TEST):
        return FULL_TEST
    with open(os.path.join(ROOT, "data", "gsm8k", "heldout-250.jsonl")) as f:
        base = [json.loads(line) for line in f if line.strip()]
    path = os.path.join(tmp, "questions-1319.jsonl")
    with open(path, "w") as f:
        for i in range(1319):
            q = dict(base[i % len(base)], id=f"test-{i}")
            f.write(json.dumps(q) + "\n")
    return path


def big_checks(g, b, graveyard, tmp, shots):
    d = os.path.join(tmp, "big")
    study(d, "--questions", questions_1319(tmp), "--n", "1319")
    run([graveyard, "report", d])
    path = os.path.join(d, "REPORT.html")
    page = b.new_page()
    page.goto(url(path))
    tti = ready(page)
    nq = page.eval(f"{DATA}.ids.length")
    per = cells_per_row(page)
    problems = [f"row {i}: {n}" for i, n in per.items() if n != nq]
    if nq != 1319:
        problems.append(f"{nq} questions")
    sel = cell_sel(6, page.eval(f"{DATA}.order[1318]"))
    page.click_selector(sel)
    page.wait_for("!document.getElementById('panel').classList.contains('hidden')")
    page.screenshot(os.path.join(shots, "report-1319-panel.png"))
    page.key("Escape")
    g.check("1,319: every cell drawn, the last column's panel opens", problems,
            f"{len(per)} rows x {nq}, ready at {tti} ms")
    page.screenshot(os.path.join(shots, "report-1319.png"))
    no_leaks(g, page, "1,319", path)
    page.close()
    return tti


def think_checks(g, b, graveyard, tmp, shots):
    """THINK.html over the golden folders, thinking off (t4) against on:
    the compare page's checks, and the two passes named as such."""
    data = os.path.join(ROOT, "tests", "golden", "data")
    out = os.path.join(tmp, "think")
    run([graveyard, "think", os.path.join(data, "t4"),
         os.path.join(data, "t4-think"), "--out", out])
    d = compare_checks(g, b, out, shots, "think")
    g.check("think: both passes on one grid, named",
            [] if d["kind"] == "think" and
            d["runs"] == ["thinking off", "thinking on"] else
            [f"kind {d['kind']}, runs {d['runs']}"])


def main():
    graveyard = os.path.abspath(sys.argv[1])
    shots = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else
                            os.path.join(os.path.dirname(graveyard), "tests",
                                         "page-shots"))
    g = Suite("page")
    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    try:
        import browser
        why = browser.missing(chromium)
    except ImportError as e:
        why = (f"{e} in {sys.executable} (Debian's python3-selenium, for "
               "/usr/bin/python3: scripts/deps.sh)")
    if why:
        return g.unavailable(why)
    browser.quit_on_sigterm()
    os.makedirs(shots, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="graveyard-page-")
    try:
        t4, l4 = os.path.join(tmp, "t4"), os.path.join(tmp, "l4")
        study(t4)
        study(l4, "--variant", "l4")
        run([graveyard, "report", t4])
        run([graveyard, "compare", t4, l4, "--labels", "T4,L4", "--out",
             os.path.join(tmp, "cmp")])
        with browser.Browser(chromium) as b:
            tti = report_checks(g, b, t4, shots)
            compare_checks(g, b, os.path.join(tmp, "cmp"), shots)
            think_checks(g, b, graveyard, tmp, shots)
            hostile_checks(g, b, graveyard, tmp, shots)
            depth_checks(g, b, graveyard, tmp, shots)
            odd_id_checks(g, b, graveyard, tmp, shots)
            big = big_checks(g, b, graveyard, tmp, shots)
        demo = demo_ladder(graveyard, tmp)
        pages = [
            (n, os.path.join(d, "REPORT.html"), os.path.join(d, "report.json"))
            for n, d in (("study", t4), ("demo", demo))]
        live = fold_checks(g, chromium, pages, shots)
        first_paint_checks(g, chromium, pages, live, shots)
        print(f"page: ready at {tti} ms (250 x 10), {big} ms (1,319 x 10); "
              f"screenshots in {shots}")
    except Exception as e:  # a broken page must fail the suite, not crash it
        g.fail(f"{type(e).__name__}: {e}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return g.end()


if __name__ == "__main__":
    sys.exit(main())
