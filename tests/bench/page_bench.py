#!/usr/bin/env python3
"""make bench (page part): REPORT.html at the study's size (9 + 1 rungs x
250 questions) and at GSM8K's whole test set (1,319), written by
tests/page/make_study.py.

Figures, each beside its baseline from the same run:
- size: REPORT.html against the rows it shows (rows/*.jsonl of the ladder's
  rungs; the repeat folder is not shown), and gzipped;
- writing it: `graveyard report` against `graveyard report --no-html`,
  best of 3 wall seconds;
- time to interactive in headless chromium (selenium and chromedriver:
  tests/browser/browser.py, so /usr/bin/python3), over 5 fresh tabs: the moment the grid is drawn and answers (the page's
  data-ready, ms after navigation start), against the same file with its
  script taken out (domContentLoaded: what the browser needs just to read
  that many bytes).
Figures only: nothing here is asserted on time.

usage: page_bench.py --graveyard build/graveyard [--dir build/bench-page]
                     [--loads 5]"""
import argparse
import glob
import gzip
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "browser"))


def best_of(cmd, n=3):
    best = None
    for _ in range(n):
        t = time.monotonic()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        dt = time.monotonic() - t
        best = dt if best is None else min(best, dt)
    return best


def loads(browser, url, expr, n):
    out = []
    for _ in range(n):
        page = browser.new_page()
        page.goto(url)
        out.append(float(page.wait_for(expr, timeout=30)))
        page.close()
    return out


def fmt(v):
    return f"min {min(v):.0f} / median {statistics.median(v):.0f} / max {max(v):.0f} ms"


def one(args, label, extra, browser):
    d = os.path.join(args.dir, label)
    shutil.rmtree(d, ignore_errors=True)
    subprocess.run([sys.executable, os.path.join(ROOT, "tests", "page",
                                                 "make_study.py"), d, *extra],
                   check=True, stdout=subprocess.DEVNULL)
    with_html = best_of([args.graveyard, "report", d])
    without = best_of([args.graveyard, "report", d, "--no-html"])
    subprocess.run([args.graveyard, "report", d], check=True,
                   stdout=subprocess.DEVNULL)
    page = os.path.join(d, "REPORT.html")
    rows = sum(os.path.getsize(f) for f in glob.glob(os.path.join(d, "rows", "*.jsonl")))
    size = os.path.getsize(page)
    with open(page, "rb") as f:
        body = f.read()
    gz = len(gzip.compress(body, 6))
    nq = json.load(open(os.path.join(d, "report.json")))["rungs"][0]["n"]
    print(f"page {label}: {nq} questions x 10 rungs")
    print(f"  size: REPORT.html {size / 1e6:.2f} MB against rows {rows / 1e6:.2f} MB"
          f" = {size / rows:.2f}x the rows (target < 2x); gzipped {gz / 1e6:.2f} MB")
    print(f"  graveyard report: {with_html:.3f} s with the page, {without:.3f} s "
          f"with --no-html ({with_html / without:.2f}x)")
    if browser is None:
        return
    # the baseline: the same bytes without the script that draws the grid
    bare = os.path.join(d, "bare.html")
    stripped = re.sub(rb"<script>.*?</script>\n</body>", b"</body>", body,
                      flags=re.S)
    with open(bare, "wb") as f:
        f.write(stripped)
    ours = loads(browser, "file://" + os.path.abspath(page),
                 "document.documentElement.getAttribute('data-ready')", args.loads)
    dcl = "(e => e && e.domContentLoadedEventEnd > 0 && e.domContentLoadedEventEnd)" \
          "(performance.getEntriesByType('navigation')[0])"
    base = loads(browser, "file://" + os.path.abspath(bare), dcl, args.loads)
    print(f"  ready to use (grid drawn, handlers on): {fmt(ours)}")
    print(f"  the same file without its script (domContentLoaded): {fmt(base)}")
    print(f"  ratio of medians: {statistics.median(ours) / statistics.median(base):.2f}x;"
          f" target: under 1,000 ms at 1,319 x 10")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--graveyard", required=True)
    ap.add_argument("--dir", default="build/bench-page")
    ap.add_argument("--loads", type=int, default=5)
    args = ap.parse_args()
    args.graveyard = os.path.abspath(args.graveyard)
    os.makedirs(args.dir, exist_ok=True)
    browser = None
    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    try:
        import browser as chrome
        why = chrome.missing(chromium)
    except ImportError as e:
        why = f"{e} in {sys.executable}"
    if why is None:
        browser = chrome.Browser(chromium)
        print(f"page bench: {browser.version()}, headless, 1280 x 900")
    else:
        print(f"page bench: {why}: sizes and write times only")
    try:
        one(args, "250", [], browser)
        from page_test import questions_1319  # ../shared's, or made
        one(args, "1319", ["--questions", questions_1319(args.dir), "--n",
                           "1319"], browser)
    finally:
        if browser is not None:
            browser.close()


if __name__ == "__main__":
    main()
