#!/usr/bin/env python3
# Tests: report/pareto.c
# Tests: grader/pick.c
"""pareto.svg, checked like the cover: every point where the figures put
it, the fronts, the words, and the picture as rendered.

Builds the study-shaped T4 ladder (tests/page/make_study.py), runs
graveyard report, and from report.json alone (the grader's figures):

- places each rung by the geometry of docs/report.md (the panel's plot
  box and ranges are on its <g data-panel>) and checks the SVG's point is
  there, within 0.1 px, on all three panels; a rung more than 20 points
  under the reference sits on the floor, marked as below;
- computes each Pareto front here, from accuracy and % of bytes, decode
  speed or cost per right answer (the server's seconds, the study's rows
  having no power readings; then Wh once power files are added, by hand
  here as the runner writes them), and checks both report.json's
  which_one and the dashed line's vertices against it;
- computes "which one?" here (the smallest and the fastest of the
  reference and the rungs report.json calls equivalent, at a margin of 4
  points so that the pick is a rung) and checks the words under the
  picture;
- renders the SVG with rsvg-convert and reads the pixel at each point's
  centre: marigold for a chain rung, dark for the reference, white inside
  a side rung's diamond;
- checks every name clear of the picture's marks: no name's box (the
  width pareto.c reserves, 7.2 px a character) touches a point, its ring
  or its floor marker, and neither the dashed front nor an interval runs
  through a name (names touched their rings, and the front crossed them);
- removes the bytes (ladder.tsv, .done) and checks the file-size panel is
  left out with a sentence that says why, the speed panel still drawn.

Usage: pareto_test.py GRAVEYARD. Ends with "pareto: N passed, M failed".
Without rsvg-convert it says why and skips (fails under CI=...)."""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

from cover_test import pixel, render
from suite import Suite, run

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SVG = "{http://www.w3.org/2000/svg}"
MARIGOLD = (0xea, 0xa2, 0x21)
DARK = (0x2e, 0x2f, 0x33)
WHITE = (0xff, 0xff, 0xff)


def figures(rep):
    """name -> (accuracy %, % bytes or None, tok/s or None, equivalent, side,
    cost per right answer or None: Wh when which_one says so, else s,
    None, the accuracy's 95 % interval low and high, as fractions)"""
    out = {}
    unit = "wh_per_right" if rep["which_one"]["cost_unit"] == "Wh" \
        else "seconds_per_right"
    for i, r in enumerate(rep["rungs"] + rep["side_rungs"]):
        within = i == 0 or r["verdict"] == "equivalent"
        out[r["rung"]] = (r["accuracy"] * 100, r["pct_reference_bytes"],
                          r["median_decode_tps"], within, i >= len(rep["rungs"]),
                          r["cost"][unit], None, r["accuracy_ci95"][0],
                          r["accuracy_ci95"][1])
    return out


def front(fig, axis):
    """Rungs no other rung beats: axis 1 bytes (smaller better), 2 speed,
    5 cost (smaller better)."""
    sign = -1 if axis in (1, 5) else 1
    names = [n for n, f in fig.items() if f[axis] is not None]
    keep = []
    for n in names:
        a, x = fig[n][0], sign * fig[n][axis]
        beaten = any(m != n and sign * fig[m][axis] >= x and fig[m][0] >= a and
                     (sign * fig[m][axis] > x or fig[m][0] > a) for m in names)
        if not beaten:
            keep.append(n)
    return sorted(keep)


def panels(svg_path):
    root = ET.parse(svg_path).getroot()
    out = {}
    for g in root.iter(SVG + "g"):
        if "data-panel" not in g.attrib:
            continue
        a = g.attrib
        box = {k: float(a["data-" + k]) for k in
               ("xmin", "xmax", "ymin", "ymax", "x0", "y0", "w", "h")}
        pts = {}
        for el in g:
            r = el.attrib.get("data-rung")
            if r is None:
                continue
            # a point moved apart from another (dodge) says how far: its
            # figure is where it is drawn less data-dx
            dx = float(el.attrib.get("data-dx", "0"))
            if el.tag == SVG + "circle":
                pts[r] = (float(el.attrib["cx"]) - dx, float(el.attrib["cy"]),
                          "circle", dx)
            elif "data-below" in el.attrib:
                pts[r] = (None, None, "below", el.attrib.get("data-off"))
            else:
                pts[r] = (float(el.attrib["data-cx"]) - dx,
                          float(el.attrib["data-cy"]), "diamond", dx)
        line = [el for el in g if el.tag == SVG + "polyline"]
        verts = []
        if line:
            for p in line[0].attrib["points"].split():
                x, y = p.split(",")
                verts.append((float(x), float(y)))
        out[a["data-panel"]] = (box, pts, verts)
    words = " ".join(t.text or "" for t in root.iter(SVG + "text"))
    return out, words


CHAR_W = 7.2  # pareto.c's width of a character at font-size 11


def crosses(seg, b):
    """Segment seg ((x0, y0), (x1, y1)) meets box b (x0, y0, x1, y1)."""
    (x0, y0), (x1, y1) = seg
    t0, t1 = 0.0, 1.0
    for p, q in ((x0 - x1, x0 - b[0]), (x1 - x0, b[2] - x0),
                 (y0 - y1, y0 - b[1]), (y1 - y0, b[3] - y0)):
        if p == 0:
            if q < 0:
                return False
            continue
        t = q / p
        if p < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return False
    return True


def name_clashes(svg_path):
    """Each name that touches a mark of the picture, in words."""
    root = ET.parse(svg_path).getroot()
    out = []
    for g in root.iter(SVG + "g"):
        if "data-panel" not in g.attrib:
            continue
        marks, lines, names = [], [], []
        for el in g:
            a = el.attrib
            if el.tag == SVG + "circle":  # a point (r 5) or its ring
                r = float(a["r"]) + float(a.get("stroke-width", "1")) / 2
                marks.append((float(a["cx"]) - r, float(a["cy"]) - r,
                              float(a["cx"]) + r, float(a["cy"]) + r))
            elif el.tag == SVG + "path" and "data-below" in a:
                x, y = (float(v) for v in a["d"].split()[0][1:].split(",")) \
                    if "," in a["d"].split()[0] else \
                    (float(a["d"].split()[0][1:]), float(a["d"].split()[1]))
                marks.append((x - 6, y - 8, x + 6, y))
            elif el.tag == SVG + "path" and "data-cx" in a:
                x, y = float(a["data-cx"]), float(a["data-cy"])
                marks.append((x - 7, y - 7, x + 7, y + 7))
            elif el.tag == SVG + "polyline":
                v = [tuple(float(c) for c in p.split(","))
                     for p in a["points"].split()]
                lines += list(zip(v, v[1:]))
            elif el.tag == SVG + "line" and a.get("stroke-width") == "2":
                lines.append(((float(a["x1"]), float(a["y1"])),
                              (float(a["x2"]), float(a["y2"]))))
            elif el.tag == SVG + "text" and a.get("font-size") == "11":
                w = CHAR_W * len(el.text.encode()) + \
                    (6 if a.get("font-weight") == "bold" else 0)
                x, y = float(a["x"]), float(a["y"])
                names.append((el.text, (x, y - 10, x + w, y + 2)))
        x0, w = float(g.attrib["data-x0"]), float(g.attrib["data-w"])
        for text, b in names:
            # inside its panel's plot: a name past its right edge is cut
            # off the picture (the cost panel's floor marker at the edge)
            if b[0] < x0 or b[2] > x0 + w:
                out.append(f"{g.attrib['data-panel']}: {text!r} outside "
                           f"the plot ({b[0]:.1f} to {b[2]:.1f})")
            # a name may sit against a mark, never on it
            inner = (b[0] + 0.5, b[1] + 0.5, b[2] - 0.5, b[3] - 0.5)
            for m in marks:
                if inner[0] < m[2] and m[0] < inner[2] and \
                        inner[1] < m[3] and m[1] < inner[3]:
                    out.append(f"{g.attrib['data-panel']}: {text!r} on a "
                               f"mark at ({(m[0] + m[2]) / 2:.1f}, "
                               f"{(m[1] + m[3]) / 2:.1f})")
            for seg in lines:
                if crosses(seg, inner):
                    out.append(f"{g.attrib['data-panel']}: {text!r} crossed "
                               f"by the line {seg}")
    return out


def where(box, v, acc):
    x = box["x0"] + (v - box["xmin"]) / (box["xmax"] - box["xmin"]) * box["w"]
    y = box["y0"] + (box["ymax"] - acc) / (box["ymax"] - box["ymin"]) * box["h"]
    return x, y


DODGE = 6.0  # pareto.c's least distance between two intervals' bars


def apart(box, pts, fig):
    """Two intervals that share some height are drawn at least DODGE px
    apart (BF16 and F16 at 100 % of the bytes lay on one another), and no
    point is moved further than its group needs."""
    drawn = {r: (p[0] + p[3], fig[r][7] * 100, fig[r][8] * 100, p[3])
             for r, p in pts.items() if p[2] != "below"}
    problems, moved = [], 0
    names = sorted(drawn)
    for i, a in enumerate(names):
        xa, loa, hia, dxa = drawn[a]
        moved += dxa != 0
        if abs(dxa) > 3 * DODGE:
            problems.append(f"{a} moved {dxa} px")
        for b in names[i + 1:]:
            xb, lob, hib, _ = drawn[b]
            if loa <= hib and lob <= hia and abs(xa - xb) < DODGE - 0.11:
                problems.append(f"{a} and {b}: bars {abs(xa - xb):.1f} px "
                                f"apart, intervals {loa:.1f}-{hia:.1f} and "
                                f"{lob:.1f}-{hib:.1f}")
    return problems, f"{moved} moved"


def off_scale(svg, panel, box, pts, fig, axis, rep):
    """A point off the scale says so on each axis: under the y range on the
    floor with its accuracy and a down arrow (the name's text), and, when
    its x figure lies past the panel's x range too (the cost panel leaves
    such points out of it), at that edge with its figure, unit and an
    arrow that way."""
    root = ET.parse(svg).getroot()
    texts = [t.text or "" for g in root.iter(SVG + "g")
             if g.attrib.get("data-panel") == panel
             for t in g.iter(SVG + "text")]
    unit = {1: "% of the bytes", 2: "tok/s",
            5: "Wh" if rep["which_one"]["cost_unit"] == "Wh" else "s"}[axis]
    problems, said = [], []
    for r, p in pts.items():
        if p[2] != "below":
            continue
        f = fig[r]
        text = [t for t in texts if t.startswith(r + " ") or
                t.startswith("\u2190 " + r + " ")]
        if not text or f"{f[0]:.1f} % \u2193" not in text[0]:
            problems.append(f"{r}: on the floor, named {text}")
            continue
        v = f[axis]
        past = "right" if v > box["xmax"] else "left" if v < box["xmin"] else None
        if p[3] != past:
            problems.append(f"{r}: x {v} in {box['xmin']}..{box['xmax']}, "
                            f"drawn as off {p[3]}")
        arrow = {"right": "\u2192", "left": "\u2190"}.get(past)
        if past and (unit not in text[0] or arrow not in text[0] or
                     not any(c.isdigit() for c in text[0].split("\u2193")[1])):
            problems.append(f"{r}: past the {past} edge, named {text[0]!r}")
        if past:
            said.append(text[0])
    return problems, "; ".join(said)


def check_panels(g, d, tmp, what):
    """Every panel's points and front against report.json's figures."""
    rep = json.load(open(os.path.join(d, "report.json")))
    fig = figures(rep)
    svg = os.path.join(d, "pareto.svg")
    pan, words = panels(svg)
    img = render(svg, os.path.join(tmp, "pareto.png"))
    g.check(f"{what}: three panels drawn",
            [] if set(pan) == {"bytes", "speed", "cost"} else
            [f"panels {sorted(pan)}"])
    ref_acc = fig[rep["reference"]][0]
    for name, axis in (("bytes", 1), ("speed", 2), ("cost", 5)):
        box, pts, verts = pan[name]
        problems = []
        for rung, f in fig.items():
            if rung not in pts:
                problems.append(f"{rung}: no point")
                continue
            x, y, kind, _ = pts[rung]
            if f[0] < box["ymin"]:
                if kind != "below" or f[0] >= ref_acc - 20:
                    problems.append(f"{rung}: {f[0]:.1f} % drawn as {kind}")
                continue
            wx, wy = where(box, f[axis], f[0])
            if abs(x - wx) > 0.1 or abs(y - wy) > 0.1:
                problems.append(f"{rung}: at ({x}, {y}), figures say "
                                f"({wx:.1f}, {wy:.1f})")
            want_kind = "diamond" if f[4] else "circle"
            if kind != want_kind:
                problems.append(f"{rung}: a {kind}, want a {want_kind}")
            # points are drawn from the last rung up, the reference last: a
            # rung whose centre a later one covers (its mark, or its
            # interval's bar, 2 px wide) is looked at no further
            order = list(fig)
            dx = pts[rung][3]
            later = [m for m in order[:order.index(rung)] if m in pts and
                     pts[m][2] != "below" and
                     abs(pts[m][0] + pts[m][3] - x - dx) < 7 and
                     (abs(pts[m][1] - y) < 7 or
                      abs(pts[m][0] + pts[m][3] - x - dx) < 1.5)]
            colour = pixel(img, int(round(wx + pts[rung][3])), int(round(wy)))
            want = WHITE if f[4] else DARK if rung == rep["reference"] else MARIGOLD
            if colour != want and not later:
                problems.append(f"{rung}: pixel {colour} at its centre, want {want}")
        g.check(f"{what}, {name}: every rung where its figures put it",
                problems, f"{len(fig)} rungs")
        g.check(f"{what}, {name}: overlapping intervals drawn apart",
                *apart(box, pts, fig))
        g.check(f"{what}, {name}: off the scale, said so on each axis",
                *off_scale(svg, name, box, pts, fig, axis, rep))
        want_front = front(fig, axis)
        got = sorted(rep["which_one"][name + "_front"])
        on_line = sorted(r for r, f in fig.items() for v in verts
                         if r in pts and pts[r][2] != "below" and
                         abs(pts[r][0] + pts[r][3] - v[0]) < 0.05 and
                         abs(pts[r][1] - v[1]) < 0.05)
        below = sorted(r for r in want_front if pts.get(r, (0, 0, ""))[2] == "below")
        problems = []
        if got != want_front:
            problems.append(f"report.json {got}, computed {want_front}")
        if sorted(on_line + below) != want_front or len(verts) != len(want_front):
            problems.append(f"dashed line through {on_line} (+ floor {below}), "
                            f"want {want_front}")
        g.check(f"{what}, {name}: the Pareto front", problems,
                ", ".join(want_front))
    return rep, fig, words


def check_study(g, graveyard, tmp):
    d = os.path.join(tmp, "t4")
    run([sys.executable, os.path.join(ROOT, "tests", "page", "make_study.py"), d])
    run([graveyard, "report", d, "--no-html", "--margin", "4"])
    rep, fig, words = check_panels(g, d, tmp, "seconds")
    unit = rep["which_one"]["cost_unit"]
    g.check("no power readings: the cost panel in seconds",
            [] if unit == "s" else [f"unit {unit}"])
    within = {n: f for n, f in fig.items() if f[3]}
    smallest = min(within, key=lambda n: (within[n][1], -within[n][0]))
    fastest = max(within, key=lambda n: (within[n][2], within[n][0]))
    problems = []
    if rep["which_one"]["smallest"] != smallest:
        problems.append(f"report.json smallest {rep['which_one']['smallest']}")
    if rep["which_one"]["fastest"] != fastest:
        problems.append(f"report.json fastest {rep['which_one']['fastest']}")
    if smallest == rep["reference"]:
        problems.append("the pick is the reference: the check says little")
    for s in (f"The smallest equivalent file: {smallest},",
              f"The fastest equivalent file: {fastest},"):
        if s not in words:
            problems.append(f"words lack {s!r}")
    md = open(os.path.join(d, "REPORT.md")).read()
    if "](pareto.svg)" not in md:
        problems.append("REPORT.md does not show the picture")
    # REPORT.md names them once, in its decision block's row for the run's
    # margin (the picture's caption is the words)
    own = [x for x in md.splitlines() if "(this run's) |" in x]
    if not own or f"| {smallest}: " not in own[0] or not (
            f"| {fastest}: " in own[0] or
            (fastest == smallest and own[0].endswith("| the same |"))):
        problems.append(f"REPORT.md's decision block: {own}")
    if f"equivalent file: {smallest}," in md:
        problems.append("REPORT.md says the picture's words again")
    g.check("which one: the smallest and the fastest equivalent",
            problems, f"{smallest}, {fastest}")
    g.check("every name clear of the points, rings, front and intervals",
            name_clashes(os.path.join(d, "pareto.svg")))
    demo = os.path.join(ROOT, "runs", "demo", "pareto.svg")
    if os.path.exists(demo):  # make demo's, when it has been made
        g.check("the demo's names clear of the marks too", name_clashes(demo))

    # power readings for every rung, as the runner writes them: the cost
    # panel turns to Wh per right answer, its front computed again
    pw = os.path.join(tmp, "power")
    shutil.copytree(d, pw)
    for k, name in enumerate(fig):
        watts = 60 + 7 * k
        secs = 2 + (k * 3) % 5
        with open(os.path.join(pw, "rows", name + ".power"), "w") as f:
            f.write("b 1733400000000\n" + "".join(
                f"{t * 1000} {watts:.2f}\n" for t in range(secs + 1)) +
                    f"e {secs * 1000}\n")
    run([graveyard, "report", pw, "--no-html", "--margin", "4"])
    prep, pfig, _ = check_panels(g, pw, tmp, "Wh")
    problems = []
    if prep["which_one"]["cost_unit"] != "Wh":
        problems.append(f"unit {prep['which_one']['cost_unit']}")
    for k, name in enumerate(pfig):
        c = [r for r in prep["rungs"] + prep["side_rungs"]
             if r["rung"] == name][0]
        want = (60 + 7 * k) * (2 + (k * 3) % 5)
        if c["cost"]["joules"] is None or abs(c["cost"]["joules"] - want) > 1e-6:
            problems.append(f"{name}: {c['cost']['joules']} J, want {want}")
    g.check("power files: joules and the Wh panel", problems)

    # a folder named with bytes that are not UTF-8 and a control character,
    # and no ladder name: the title is the folder's path, and both pictures
    # must stay XML
    odd = os.path.join(tmp, "odd-\udcff-\x01-<&>")
    shutil.copytree(d, odd)
    shape = json.load(open(os.path.join(odd, "ladder.json")))
    del shape["name"]
    json.dump(shape, open(os.path.join(odd, "ladder.json"), "w"))
    subprocess.run([graveyard, "report", odd, "--no-html"], check=True,
                   stdout=subprocess.DEVNULL)
    problems = []
    for pic in ("pareto.svg", "cover.svg"):
        try:
            ET.parse(os.path.join(odd, pic))
        except ET.ParseError as e:
            problems.append(f"{pic}: {e}")
    g.check("a folder name that is not UTF-8 leaves both pictures XML",
            problems)

    # no bytes anywhere: that panel goes, and the picture says why
    nb = os.path.join(tmp, "nobytes")
    shutil.copytree(d, nb)
    os.remove(os.path.join(nb, "ladder.tsv"))
    for f in glob.glob(os.path.join(nb, "rows", "*.done")):
        os.remove(f)
    run([graveyard, "report", nb, "--no-html"])
    pan, words = panels(os.path.join(nb, "pareto.svg"))
    g.check("no bytes: the file-size panel is left out, saying why",
            ([] if set(pan) == {"speed", "cost"} else [f"panels {sorted(pan)}"]) +
            ([] if "No file-size panel" in words else ["no reason given"]))

    # no timings: the cost panel goes too, and the picture says why
    nt = os.path.join(tmp, "notimes")
    shutil.copytree(nb, nt)
    for path in glob.glob(os.path.join(nt, "rows", "*.jsonl")):
        rows = [json.loads(line) for line in open(path)]
        with open(path, "w") as f:
            for r in rows:
                r["prompt_ms"] = r["predicted_ms"] = None
                f.write(json.dumps(r) + "\n")
    run([graveyard, "report", nt, "--no-html"])
    pan, words = panels(os.path.join(nt, "pareto.svg"))
    g.check("no timings: the cost panel is left out, saying why",
            ([] if set(pan) == {"speed"} else [f"panels {sorted(pan)}"]) +
            ([] if "No cost panel" in words else ["no reason given"]))


def main():
    graveyard = os.path.abspath(sys.argv[1])
    g = Suite("pareto")
    if shutil.which("rsvg-convert") is None:
        return g.unavailable("rsvg-convert not found (Debian's librsvg2-bin)")
    tmp = tempfile.mkdtemp(prefix="graveyard-pareto-")
    try:
        check_study(g, graveyard, tmp)
    except (RuntimeError, ValueError, OSError, KeyError, ET.ParseError) as e:
        g.fail(f"{type(e).__name__}: {e}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return g.end()


if __name__ == "__main__":
    sys.exit(main())
