#!/usr/bin/env python3
# Tests: report/svg.c
"""The covers, read back as pixels. Writes small run folders with a known
right/wrong pattern, runs `graveyard report` (cover.svg) and `graveyard
compare --out` (compare.svg), renders each SVG to PNG with rsvg-convert
(Debian librsvg2-bin), decodes the PNG here (zlib, the five filter types,
8-bit RGB or RGBA) and checks the colour at the centre of every cell:
right marigold, wrong grey, the runs disagree violet; the background, the
gap between rows and (for cells 4 px wide or more) the gap between cells
white; the marks on the top 4 px of a cell (dark on the dead, sky blue on
the ghosts, against the reference row); a few questions filling the
picture; the legend's entries side by side. The geometry is
report/svg.c's: LEFT 96, TOP 40, rows 18 px with a 2 px gap, cell width
1000 / questions clamped to 1..40 px; the columns
follow the reference rows file's order, which this test shuffles (and
writes the other rungs in another order) so that a grid sorted any other
way fails.

Usage: python3 tests/report/cover_test.py build/graveyard
Ends with "cover: N passed, M failed" (one count per check group); exit 1
on any failure. Without rsvg-convert it prints why and skips (fails
under CI=..., where scripts/deps.sh installs it)."""
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

from suite import Suite, run

LEFT, TOP, ROW_H, GAP, WIDTH, CELL_MAX, MARK_H = 96, 40, 18, 2, 1000, 40, 4
MARIGOLD = (0xea, 0xa2, 0x21)
GREY = (0x8a, 0x8d, 0x91)
VIOLET = (0x8f, 0x5f, 0xbf)
WHITE = (0xff, 0xff, 0xff)
DEAD = (0x2e, 0x2f, 0x33)
GHOST = (0x7f, 0xc8, 0xe8)
NAMES = {MARIGOLD: "marigold", GREY: "grey", VIOLET: "violet",
         WHITE: "white", DEAD: "dead's cap", GHOST: "ghost's cap"}
RUNGS = ["BF16", "Q8_0", "Q4_K_M", "Q2_K"]

S = Suite("cover", show=8)
check = S.check


# ---------------------------------------------------------------- PNG

def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def read_png(path):
    """(width, height, rows): rows[y] is a bytes of RGB triples."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG")
    pos, idat, ihdr = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        crc = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])[0]
        if zlib.crc32(kind + body) & 0xffffffff != crc:
            raise ValueError(f"{path}: bad CRC in {kind!r}")
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        pos += 12 + length
    if ihdr is None:
        raise ValueError(f"{path}: no IHDR")
    w, h, depth, ctype, _, _, interlace = ihdr
    if depth != 8 or ctype not in (2, 6) or interlace != 0:
        raise ValueError(f"{path}: bit depth {depth}, colour type {ctype}, "
                         f"interlace {interlace}: only 8-bit RGB/RGBA, "
                         "not interlaced, is read here")
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = w * bpp
    if len(raw) != h * (stride + 1):
        raise ValueError(f"{path}: {len(raw)} bytes of image data, "
                         f"expected {h * (stride + 1)}")
    prev = bytearray(stride)
    rows = []
    for y in range(h):
        ft = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if ft == 0:
            pass
        elif ft == 1:  # Sub
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xff
        elif ft == 2:  # Up
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 0xff
        elif ft == 3:  # Average
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xff
        elif ft == 4:  # Paeth
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                ul = prev[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + paeth(left, prev[i], ul)) & 0xff
        else:
            raise ValueError(f"{path}: row {y}: filter type {ft}")
        prev = line
        if bpp == 4:  # composite on white (the cover is opaque anyway)
            rgb = bytearray(w * 3)
            for x in range(w):
                r, g, b, a = line[4 * x:4 * x + 4]
                for k, v in enumerate((r, g, b)):
                    rgb[3 * x + k] = (v * a + 255 * (255 - a) + 127) // 255
            rows.append(bytes(rgb))
        else:
            rows.append(bytes(line))
    return w, h, rows


def encode_png(w, h, pixels, alpha):
    """A PNG of pixels[y][x] (RGB or RGBA tuples), row y filtered with
    type y % 5: the decoder's own test, since rsvg-convert writes RGB and
    does not use every filter."""
    bpp = 4 if alpha else 3
    out, prev = bytearray(), bytearray(w * bpp)
    for y in range(h):
        line = bytearray(v for p in pixels[y] for v in p[:bpp])
        ft = y % 5
        f = bytearray(len(line))
        for i in range(len(line)):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            pred = (0, a, b, (a + b) >> 1, paeth(a, b, c))[ft]
            f[i] = (line[i] - pred) & 0xff
        out += bytes([ft]) + f
        prev = line

    def chunk(kind, body):
        return (struct.pack(">I", len(body)) + kind + body
                + struct.pack(">I", zlib.crc32(kind + body) & 0xffffffff))

    ihdr = struct.pack(">IIBBBBB", w, h, 8, 6 if alpha else 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr)
            + chunk(b"IDAT", zlib.compress(bytes(out)))
            + chunk(b"IEND", b""))


def check_decoder(tmp):
    rng = random.Random(0)
    problems = []
    for alpha in (False, True):
        w, h = 13, 11
        px = [[(rng.randrange(256), rng.randrange(256), rng.randrange(256),
                255) for _ in range(w)] for _ in range(h)]
        px[3][4] = (10, 20, 30, 0)      # transparent: white once composited
        px[5][6] = (0, 0, 0, 128)       # half black on white
        path = os.path.join(tmp, f"self-{'rgba' if alpha else 'rgb'}.png")
        with open(path, "wb") as f:
            f.write(encode_png(w, h, px, alpha))
        img = read_png(path)
        for y in range(h):
            for x in range(w):
                r, g, b, a = px[y][x]
                if not alpha:
                    a = 255
                want = tuple((v * a + 255 * (255 - a) + 127) // 255
                             for v in (r, g, b))
                if pixel(img, x, y) != want:
                    problems.append(f"{'RGBA' if alpha else 'RGB'} {x},{y} "
                                    f"(filter {y % 5}): {pixel(img, x, y)}, "
                                    f"want {want}")
    check("png decoder", problems,
          "RGB and RGBA, filters None, Sub, Up, Average, Paeth")


def pixel(img, x, y):
    w, h, rows = img
    if not (0 <= x < w and 0 <= y < h):
        return None
    return tuple(rows[y][3 * x:3 * x + 3])


def same(got, want):
    """Exact: the cells are opaque rectangles on whole pixels, so
    rsvg-convert draws them without any blending."""
    return got == want


def name(c):
    if c is None:
        return "outside the image"
    return NAMES.get(c, "#%02x%02x%02x" % c)


def render(svg, png):
    p = subprocess.run(["rsvg-convert", "-f", "png", "-o", png, svg],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"rsvg-convert {svg}: {p.stderr.strip()}")
    return read_png(png)


# ---------------------------------------------------------------- rows

def write_run(d, rungs, qids, refs, grid, rng, shuffle_ref=False):
    """A run folder: rows/<rung>.jsonl, the reference's rows in qids'
    order (shuffled too with shuffle_ref), the other rungs' in another.
    grid[rung][q]: True right."""
    os.makedirs(os.path.join(d, "rows"))
    for ri, rung in enumerate(rungs):
        order = list(qids)
        if ri > 0 or shuffle_ref:
            rng.shuffle(order)
        with open(os.path.join(d, "rows", rung + ".jsonl"), "w") as f:
            for q in order:
                ref = refs[q]
                row = {"id": q, "rung": rung, "reference": ref,
                       "reasoning_content": None, "finish_reason": "stop",
                       "truncated": False, "completion_tokens": 120,
                       "decode_tps": 40.0 + ri, "error": None}
                if grid[rung][q]:
                    row["content"] = f"Adding it up.\nAnswer: {ref}"
                else:
                    kind = rng.randrange(4)
                    if kind == 0:  # a wrong number
                        row["content"] = ("Adding it up.\nAnswer: "
                                          f"{int(ref.replace(',', '')) + 1}")
                    elif kind == 1:  # cut off at the cap
                        row["content"] = "Adding it up, and again, and"
                        row["finish_reason"] = "length"
                        row["truncated"] = True
                        row["completion_tokens"] = 1024
                    elif kind == 2:  # an error with a right-looking reply
                        row["content"] = f"Answer: {ref}"
                        row["error"] = "HTTP 500"
                    else:  # the right number, then a wrong last Answer:
                        row["content"] = (f"Answer: {ref}\nNo, wait.\n"
                                          "Answer: none")
                f.write(json.dumps(row) + "\n")


def questions(n, rng):
    qids = [f"test-{i}" for i in range(n)]
    rng.shuffle(qids)  # the columns must follow this order, not the ids'
    refs = {}
    for q in qids:
        v = rng.randrange(1, 5000)
        refs[q] = f"{v:,}"
    return qids, refs


def pattern(rungs, qids, rng, p_wrong):
    """right/wrong per rung and question, worse down the ladder; the
    first question right everywhere and the second wrong everywhere."""
    grid = {}
    for ri, r in enumerate(rungs):
        grid[r] = {}
        for k, q in enumerate(qids):
            if k == 0:
                grid[r][q] = True
            elif k == 1:
                grid[r][q] = False
            else:
                grid[r][q] = rng.random() >= p_wrong[ri]
    return grid


def cell_width(nq):
    return min(CELL_MAX, max(1, WIDTH // nq))


# ---------------------------------------------------------------- checks

def check_cover(label, img, rungs, qids, want, title_extra=""):
    """want(rung, q) -> colour. Checks every cell, the gaps, background."""
    nq = len(qids)
    cw = cell_width(nq)
    gap = 1 if cw >= 4 else 0
    w, h, _ = img
    problems = []
    counts = {}
    for i, r in enumerate(rungs):
        y = TOP + i * (ROW_H + GAP) + ROW_H // 2
        for j, q in enumerate(qids):
            x = LEFT + j * cw + (cw - gap - 1) // 2
            exp = want(r, q)
            got = pixel(img, x, y)
            counts[name(exp)] = counts.get(name(exp), 0) + 1
            if not same(got, exp):
                problems.append(f"{r} {q} (column {j}, pixel {x},{y}): "
                                f"want {name(exp)}, got {name(got)}")
    detail = (f"{len(rungs)} x {nq} cells, {cw} px wide ("
              + ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
              + ")")
    check(f"{label} cells", problems, detail)

    # the 2 px between rows, and the 1 px between headstones
    problems = []
    for i in range(len(rungs) - 1):
        for dy in range(GAP):
            y = TOP + i * (ROW_H + GAP) + ROW_H + dy
            for j in (0, nq // 2, nq - 1):
                x = LEFT + j * cw
                got = pixel(img, x, y)
                if not same(got, WHITE):
                    problems.append(f"between rows {rungs[i]} and "
                                    f"{rungs[i + 1]} at {x},{y}: {name(got)}")
    if gap:
        y = TOP + ROW_H // 2
        for j in range(nq - 1):
            x = LEFT + j * cw + cw - 1
            got = pixel(img, x, y)
            if not same(got, WHITE):
                problems.append(f"between columns {j} and {j + 1} at {x},{y}: "
                                f"{name(got)}")
    check(f"{label} gaps", problems,
          "white between rows" + (" and between cells" if gap else ""))

    # background: right of the grid, below the last row, above the first;
    # and the row one past the grid's last cell
    gw = cw * nq
    last = TOP + len(rungs) * (ROW_H + GAP) - GAP
    spots = [(LEFT + gw + 4, TOP + 5), (w - 2, h // 2), (LEFT + 2, TOP - 6),
             (LEFT + gw // 2, last + 4), (w - 2, h - 2)]
    problems = []
    for x, y in spots:
        got = pixel(img, x, y)
        if not same(got, WHITE):
            problems.append(f"background at {x},{y}: {name(got)}")
    min_h = TOP + len(rungs) * (ROW_H + GAP) + 12 + 22 + 8
    if h < min_h:
        problems.append(f"height {h} px: no room for the legend ({min_h})")
    if w < LEFT + gw + 16:
        problems.append(f"width {w} px: narrower than the grid")
    # a few questions fill the picture: no empty right half
    if nq * CELL_MAX >= 320 and LEFT + gw < w - 16 - cw:
        problems.append(f"the grid ends at {LEFT + gw} px of {w}")
    check(f"{label} background", problems, f"white, {w} x {h} px")


def check_marks(label, img, rungs, qids, want, mark):
    """The top MARK_H px of a cell: the dead's or the ghost's cap where
    mark(rung, q) says so, else the cell's own colour."""
    cw = cell_width(len(qids))
    gap = 1 if cw >= 4 else 0
    problems, n = [], {"dead": 0, "ghost": 0}
    for i, r in enumerate(rungs):
        y = TOP + i * (ROW_H + GAP) + 1
        for j, q in enumerate(qids):
            x = LEFT + j * cw + (cw - gap - 1) // 2
            m = mark(r, q) if i > 0 else None
            exp = DEAD if m == "dead" else GHOST if m == "ghost" else want(r, q)
            if m:
                n[m] += 1
            got = pixel(img, x, y)
            if not same(got, exp):
                problems.append(f"{r} {q} (column {j}, pixel {x},{y}): "
                                f"want {name(exp)}, got {name(got)}")
    check(f"{label} marks", problems,
          f"{n['dead']} dead and {n['ghost']} ghosts capped")


def check_legend(label, svg):
    """The legend's entries sit side by side: 'wrong' follows 'right'
    at the width of the word, not at a fixed 150 px."""
    import re
    with open(svg) as f:
        text = f.read()
    xs = {m.group(2): int(m.group(1)) for m in
          re.finditer(r'<text x="(\d+)" y="\d+">([^<]*)</text>', text)}
    problems = []
    right = xs.get("right", xs.get("right on every run"))
    wrong = xs.get("wrong", xs.get("wrong on every run"))
    if right is None or wrong is None:
        problems.append(f"no right/wrong entries among {sorted(xs)}")
    else:
        word = "right" if "right" in xs else "right on every run"
        room = 7 * len(word) + 22 + 20 + 2
        if not 0 < wrong - right <= room:
            problems.append(f"'wrong' starts {wrong - right} px after "
                            f"'right' (want at most {room})")
    check(f"{label} legend", problems, "entries side by side")


def report_case(g, tmp, label, rungs, nq, seed, p_wrong):
    rng = random.Random(seed)
    qids, refs = questions(nq, rng)
    grid = pattern(rungs, qids, rng, p_wrong)
    d = os.path.join(tmp, label)
    write_run(d, rungs, qids, refs, grid, rng)
    out = os.path.join(tmp, label + "-out")
    run([g, "report", d, "--rungs", ",".join(rungs), "--out", out])
    img = render(os.path.join(out, "cover.svg"),
                 os.path.join(tmp, label + ".png"))

    def colour(r, q):
        return MARIGOLD if grid[r][q] else GREY

    def mark(r, q):
        ref = grid[rungs[0]][q]
        if ref and not grid[r][q]:
            return "dead"
        if not ref and grid[r][q]:
            return "ghost"
        return None

    check_cover(f"report {label}", img, rungs, qids, colour)
    check_marks(f"report {label}", img, rungs, qids, colour, mark)
    check_legend(f"report {label}", os.path.join(out, "cover.svg"))


def compare_case(g, tmp, label, rungs, nq, nruns, seed):
    rng = random.Random(seed)
    qids, refs = questions(nq, rng)
    base = pattern(rungs, qids, rng, [0.1, 0.2, 0.3, 0.6][:len(rungs)])
    grids = [base]
    for k in range(1, nruns):  # flip some answers on each other run
        gk = {r: dict(base[r]) for r in rungs}
        for r in rungs:
            for j, q in enumerate(qids):
                if j >= 2 and rng.random() < 0.15:
                    gk[r][q] = not gk[r][q]
        grids.append(gk)
    dirs = []
    for k, gk in enumerate(grids):
        d = os.path.join(tmp, f"{label}-run{k}")
        # the columns are run 0's reference order: the other runs'
        # reference rows (and every other rung's) in other orders
        write_run(d, rungs, qids, refs, gk, rng, shuffle_ref=k > 0)
        dirs.append(d)
    out = os.path.join(tmp, label + "-out")
    labels = ",".join(f"R{k}" for k in range(nruns))
    run([g, "compare"] + dirs + ["--rungs", ",".join(rungs), "--labels",
                                 labels, "--out", out])

    def want(r, q):
        v = {gk[r][q] for gk in grids}
        if v == {True}:
            return MARIGOLD
        if v == {False}:
            return GREY
        return VIOLET

    def mark(r, q):
        ref, c = want(rungs[0], q), want(r, q)
        if ref == MARIGOLD and c == GREY:
            return "dead"  # dead on every run
        if ref == GREY and c == MARIGOLD:
            return "ghost"
        return None

    img = render(os.path.join(out, "compare.svg"),
                 os.path.join(tmp, label + ".png"))
    check_cover(f"compare {label}", img, rungs, qids, want)
    check_marks(f"compare {label}", img, rungs, qids, want, mark)
    return grids


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: cover_test.py GRAVEYARD")
    g = os.path.abspath(sys.argv[1])
    if shutil.which("rsvg-convert") is None:
        # CI installs it (scripts/deps.sh): there a missing renderer is a
        # missing install step, not a reason to skip
        if os.environ.get("CI"):
            print("FAIL cover: rsvg-convert not found under CI; "
                  "scripts/deps.sh should install librsvg2-bin")
            print("cover: 0 passed, 1 failed")
            return 1
        print("skip cover: rsvg-convert not found (Debian librsvg2-bin): "
              "the covers cannot be rendered to pixels here")
        print("cover: 0 passed, 0 failed")
        return 0
    if not os.access(g, os.X_OK):
        print(f"FAIL cover: {g} is not an executable")
        print("cover: 0 passed, 1 failed")
        return 1
    tmp = tempfile.mkdtemp(prefix="graveyard-cover-")
    try:
        cases = [
            lambda: check_decoder(tmp),
            # 4 x 12: 40 px headstones fill the picture
            lambda: report_case(g, tmp, "12q", RUNGS, 12, 6,
                                [0.2, 0.3, 0.4, 0.7]),
            # 4 x 30: 33 px headstones with a 1 px gap
            lambda: report_case(g, tmp, "30q", RUNGS, 30, 1,
                                [0.1, 0.2, 0.35, 0.7]),
            # 3 x 300: 3 px cells, runs of one colour merged
            lambda: report_case(g, tmp, "300q", RUNGS[:3], 300, 2,
                                [0.15, 0.3, 0.5]),
            # 2 x 1,500: 1,000 / 1,500 rounds to 0, clamped to 1 px
            lambda: report_case(g, tmp, "1500q", RUNGS[:2], 1500, 3,
                                [0.2, 0.5]),
            # two runs, some answers flipped on the second
            lambda: compare_case(g, tmp, "2runs", RUNGS, 30, 2, 4),
            # three runs of 250 questions: 4 px cells, still with a gap
            lambda: compare_case(g, tmp, "3runs", RUNGS, 250, 3, 5),
        ]
        for c in cases:
            try:
                c()
            except (RuntimeError, ValueError, OSError) as e:
                S.fail(e)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return S.end()


if __name__ == "__main__":
    sys.exit(main())
