#!/usr/bin/env python3
# Tests: report/depth_svg.c
# Tests: report/md_lengths.c
# Tests: orchestrator/figures/figures_report.c
"""depth.svg, where in the prompt each rung lost its needles, checked
cell by cell against the rows of a canned folder.

Writes a run folder of long items by hand (rows only, the folder's name
holding & and <): 12 needles at 1,024 tokens (depths 0 to 77: no needle in
the last two tenths) and 12 at 4,096 (depths 100 to 12: none in the first
tenth), a common-words item with no depth, and one short question. REF
answers every one right but one (which is then asked of no rung); A loses
the 4,096 needles between 40 % and 70 % deep and never answered two of
the 4,096 items (the only needle of the 10-19 % tenth among them); B loses
one needle at 1,024; SHORT answered the short question alone. graveyard
report --partial, then:

- the cells: computes here, from the rows alone, each (rung, length,
  tenth)'s questions REF answered right with the needle there, those the
  rung answered and those it got wrong, and checks each cell's dead and
  answered (its data- attributes, its written "D of N" and its <title>)
  against them; a tenth with no needle at that length, or none the rung
  answered, is an empty cell (dashed, no number), never "0 of 0";
- the rows: A and B at each length, in the chain's order; no row for the
  reference nor for SHORT (no long row);
- the numbers agree with report.json's depth table (the grader's) summed
  over the lengths;
- the shades: rendered with rsvg-convert, a cell's centre is the shade
  its share says (all lost: the cover's dead dark; none: the pale), an
  empty cell white;
- REPORT.md shows it under "Where the lost needles sat" and the page
  inline (every cell there);
- a folder of short questions only gets no depth.svg and no such section;
  a long run of common words only (no needle has a depth) gets lengths.svg
  and no depth.svg.

Usage: depth_test.py GRAVEYARD. Ends with "depth: N passed, M failed".
Without rsvg-convert it says why and skips (fails under CI=...)."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

from cover_test import pixel, render
from suite import Suite

SVG = "{http://www.w3.org/2000/svg}"
DEAD = (0x2e, 0x2f, 0x33)
PALE = (0xee, 0xf0, 0xf2)
WHITE = (0xff, 0xff, 0xff)
SHADES = ["#eef0f2", "#c9cbd0", "#9a9da3", "#62656b", "#2e2f33"]
RUNGS = ["REF", "A", "B", "SHORT"]


def items():
    """(id, length, depth or None) of the long items, then the short one"""
    out = [(f"n{i}@1024", 1024, i * 7) for i in range(12)]
    out += [(f"n{i}@4096", 4096, 100 - i * 8) for i in range(12)]
    out += [("cwe-0@1024", 1024, None), ("cwe-0@4096", 4096, None)]
    return out


def answers(rung, qid, length, depth):
    """True right, False wrong, None not answered"""
    if rung == "SHORT":
        return None if length else True
    if qid == "n3@1024":
        return False  # REF wrong too: asked of no rung
    if rung == "A" and length == 4096:
        if qid in ("n10@4096", "n11@4096"):
            return None
        if depth is not None and 40 <= depth < 70:
            return False
    if rung == "B" and qid == "n1@1024":
        return False
    return True


def write_folder(d, long_items=True, depths=True):
    os.makedirs(os.path.join(d, "rows"))
    qs = (items() if long_items else []) + [("s1", None, None)]
    for rung in RUNGS:
        with open(os.path.join(d, "rows", rung + ".jsonl"), "w") as f:
            for qid, length, depth in qs:
                if not depths and depth is not None:
                    continue
                a = answers(rung, qid, length, depth)
                if a is None:
                    continue
                row = {"id": qid, "reference": "7",
                       "content": "Answer: %d" % (7 if a else 8)}
                if length:
                    row["length"] = length
                if depth is not None:
                    row["depth"] = depth
                f.write(json.dumps(row) + "\n")


def expected():
    """(rung, length, bin) -> (answered, dead); asked (length, bin) -> n"""
    asked, cells = {}, {}
    for qid, length, depth in items():
        if depth is None or not answers("REF", qid, length, depth):
            continue
        b = min(depth // 10, 9)
        asked[length, b] = asked.get((length, b), 0) + 1
        for rung in RUNGS[1:]:
            a = answers(rung, qid, length, depth)
            n, dead = cells.get((rung, length, b), (0, 0))
            if a is not None:
                cells[rung, length, b] = (n + 1, dead + (not a))
    return asked, cells


def report(graveyard, d, *extra):
    p = subprocess.run([graveyard, "report", d, "--rungs",
                        ",".join(RUNGS), "--partial", *extra],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"report {d}: exit {p.returncode}: "
                           f"{p.stderr.strip()}")


def cells_of(svg):
    root = ET.fromstring(svg)
    return [g for g in root.iter(SVG + "g") if "data-bin" in g.attrib]


def check_cells(g, d, rep):
    L = rep["lengths"]
    names = [x["rung"] for x in L["rungs"]]
    asked, want = expected()
    svg = open(os.path.join(d, "depth.svg")).read()
    got = cells_of(svg)
    seen, problems, empties = {}, [], 0
    for c in got:
        rung = names[int(c.get("data-rung"))]
        length = L["lengths"][int(c.get("data-length"))]
        b = int(c.get("data-bin"))
        seen[rung, length, b] = c
        n, dead = want.get((rung, length, b), (0, 0))
        title = c.find(SVG + "title").text
        texts = [t.text for t in c.iter(SVG + "text")]
        rect = c.find(SVG + "rect")
        where = f"{rung} at {length}, tenth {b}"
        if n == 0:
            empties += 1
            kind = "no needle" if asked.get((length, b), 0) == 0 else "none"
            if c.get("data-empty") != kind or texts or \
                    rect.get("fill") != "#ffffff" or \
                    "stroke-dasharray" not in rect.attrib:
                problems.append(f"{where}: not drawn empty ({kind}): "
                                f"{c.attrib} {texts} {rect.attrib}")
            continue
        if (c.get("data-answered"), c.get("data-dead")) != (str(n), str(dead)):
            problems.append(f"{where}: {c.get('data-dead')} of "
                            f"{c.get('data-answered')}, rows say {dead} of {n}")
        if texts != [f"{dead} of {n}"]:
            problems.append(f"{where}: writes {texts}, rows say {dead} of {n}")
        if f": {dead} of {n} dead (" not in title or \
                not title.startswith(f"{rung} at {length:,} tokens"):
            problems.append(f"{where}: title {title!r}")
        share = dead / n
        shade = 0 if share == 0 else 1 if share < .25 else 2 if share < .5 \
            else 3 if share < .75 else 4
        if rect.get("fill") != SHADES[shade]:
            problems.append(f"{where}: {rect.get('fill')} for {dead} of {n}")
    rows = sorted({(r, ln) for r, ln, _ in seen})
    if rows != [("A", 1024), ("A", 4096), ("B", 1024), ("B", 4096)] or \
            len(got) != 40:
        problems.append(f"rows {rows}, {len(got)} cells: want A and B at "
                        "1,024 and 4,096, 40 cells")
    if ">SHORT<" in svg or ">REF<" in svg:
        problems.append("a row for SHORT (no long row) or for the reference")
    # no needle: the last two tenths at 1,024 and the first at 4,096, at
    # A and at B; and A's 10-19 % at 4,096, asked and never answered
    if empties != 7:
        problems.append(f"{empties} empty cells, want 7")
    g.check("cells against the rows", problems,
            f"{len(got)} cells, {empties} empty")
    problems = []
    for rung in ("A", "B"):
        total = [sum(want.get((rung, ln, b), (0, 0))[1] for ln in (1024, 4096))
                 for b in range(10)]
        if L["depth"]["dead"][rung] != total:
            problems.append(f"{rung}: report.json {L['depth']['dead'][rung]}"
                            f", the cells {total}")
    g.check("the grader's depth table summed", problems)
    return seen


def check_shades(g, d, seen, tmp):
    img = render(os.path.join(d, "depth.svg"), os.path.join(tmp, "d.png"))
    problems = []
    for key, want, what in ((("A", 4096, 4), DEAD, "all lost"),
                            (("B", 1024, 1), PALE, "none lost"),
                            (("A", 4096, 1), WHITE, "none answered"),
                            (("B", 1024, 9), WHITE, "no needle")):
        r = seen[key].find(SVG + "rect")
        x = int(float(r.get("x")) + 6)
        y = int(float(r.get("y")) + 4)
        got = pixel(img, x, y)
        if got != want:
            problems.append(f"{key} ({what}): {got} at {x},{y}, want {want}")
    g.check("the shades as rendered", problems)


def check_table(g, d):
    """REPORT.md's depth table: each rung's dead of the questions it
    answered there (the rows' count, over both lengths), an em dash where
    it answered none, and SHORT's row all dashes"""
    _, want = expected()
    sec = open(os.path.join(d, "REPORT.md")).read().split(
        "## Where the lost needles sat")[1].split("\n## ")[0]
    rows = {ln.split("|")[1].strip(): [c.strip() for c in ln.split("|")[2:-1]]
            for ln in sec.splitlines() if ln.startswith("| ")}
    problems = []
    for rung in RUNGS[1:]:
        cells = [[sum(want.get((rung, ln, b), (0, 0))[j]
                      for ln in (1024, 4096)) for j in (0, 1)]
                 for b in range(10)]
        exp = [f"{dead} of {n}" if n else "\u2014" for n, dead in cells]
        got = rows.get(rung)
        if got != exp:
            problems.append(f"{rung}: {got}, the rows say {exp}")
    g.check("REPORT.md's depth table against the rows", problems)


def check_shown(g, d):
    md = open(os.path.join(d, "REPORT.md")).read()
    html = open(os.path.join(d, "REPORT.html")).read()
    problems = []
    sec = md.split("## Where the lost needles sat")
    if len(sec) != 2 or "](depth.svg)" not in sec[1].split("\n## ")[0]:
        problems.append("REPORT.md: depth.svg not under 'Where the lost "
                        "needles sat'")
    if html.count('data-bin="') != 40:
        problems.append(f"the page: {html.count('data-bin=')} cells inline")
    if html.find('data-bin="') < html.find('data-verdict="'):
        problems.append("the page: depth.svg above lengths.svg")
    g.check("in REPORT.md and inline on the page", problems)


def check_absent(g, graveyard, tmp):
    problems = []
    for name, kw in (("short", {"long_items": False}),
                     ("words", {"depths": False})):
        d = os.path.join(tmp, name)
        write_folder(d, **kw)
        report(graveyard, d)
        md = open(os.path.join(d, "REPORT.md")).read()
        if os.path.exists(os.path.join(d, "depth.svg")):
            problems.append(f"{name}: depth.svg written")
        if "depth.svg" in md or "Where the lost needles sat" in md:
            problems.append(f"{name}: REPORT.md names depth.svg or its "
                            "section")
        if "data-bin=" in open(os.path.join(d, "REPORT.html")).read():
            problems.append(f"{name}: the page shows depth cells")
        if (name == "words") != os.path.exists(os.path.join(d,
                                                            "lengths.svg")):
            problems.append(f"{name}: lengths.svg where it should not be, "
                            "or not where it should")
    g.check("no needle, no picture", problems)


def main():
    graveyard = os.path.abspath(sys.argv[1])
    g = Suite("depth")
    if shutil.which("rsvg-convert") is None:
        return g.unavailable("rsvg-convert not found (Debian's librsvg2-bin)")
    tmp = tempfile.mkdtemp(prefix="graveyard-depth-")
    try:
        d = os.path.join(tmp, "long & <deep>")
        write_folder(d)
        report(graveyard, d)
        rep = json.load(open(os.path.join(d, "report.json")))
        if not os.path.exists(os.path.join(d, "depth.svg")):
            g.fail("no depth.svg for a run of long items with needles")
        else:
            seen = check_cells(g, d, rep)
            check_shades(g, d, seen, tmp)
        check_shown(g, d)
        check_table(g, d)
        check_absent(g, graveyard, tmp)
    except (RuntimeError, ValueError, OSError, KeyError, ET.ParseError) as e:
        g.fail(f"{type(e).__name__}: {e}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return g.end()


if __name__ == "__main__":
    sys.exit(main())
