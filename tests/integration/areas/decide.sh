# shellcheck shell=bash
# Round 4, the answer first (issue 35): "Which file?" opens graveyard
# report's and the ladder's terminal output, REPORT.md and report.json
# say the same figures, every line fits 80 columns, and the ladder's JSON
# lines still parse. Sourced by tests/integration/cases.sh.

# decide_check.py FOLDER STDOUT: the block on stdout before the files'
# names, within 80 columns; REPORT.md's first section is the block, its
# margin rows as report.json's "decide" says (the pick by name, or the
# questions that would tell and the rung), and the same words on stdout;
# the pick sentence is no longer in REPORT.md.
cat >"$work/decide_check.py" <<'PY'
import json, sys
folder, out = sys.argv[1], open(sys.argv[2]).read().splitlines()
rep = json.load(open(folder + "/report.json"))
md = open(folder + "/REPORT.md").read()
bad = []
start = next((i for i, x in enumerate(out) if x.startswith("Which file?")), -1)
wrote = next((i for i, x in enumerate(out) if i > start and
              x.startswith("wrote ")), -1)
if start < 0 or wrote < 0:
    bad.append(f"the block does not come before the files: {out[:3]}")
block = out[start:wrote]
wide = [x for x in block if len(x) > 80]
if wide:
    bad.append(f"{len(wide)} line(s) past 80 columns: {wide[0]!r}")
heads = [x for x in md.splitlines() if x.startswith("## ")]
if not heads or heads[0] != "## Which file?":
    bad.append(f"REPORT.md's first section is {heads[:1]}")
if "is shown equivalent within" in md or "equivalent file: " in md:
    bad.append("REPORT.md says the pick sentence again")
dec = rep.get("decide", {"questions": 0, "margins": []})
if not dec["margins"]:
    bad.append("report.json has no \"decide\"")
own = [m for m in dec["margins"] if m["own"]]
if len(own) != 1 or own[0]["margin_points"] != rep["margin_points"]:
    bad.append(f"own margin {own}, report's {rep['margin_points']}")
for m in dec["margins"]:
    pm = f"\u00b1{m['margin_points']:g}"
    row = [x for x in md.splitlines() if x.startswith(f"| {pm}") or
           x.startswith(f"| **{pm}")]
    if not row:
        bad.append(f"no REPORT.md row for {pm}")
        continue
    for side in ("smallest", "fastest"):
        tell = m[side + "_would_tell"]
        if tell:
            want = (f"none can be told with {dec['questions']:,} questions; "
                    f"{tell['questions']:,} would tell {tell['rung']}")
        elif m[side] and m[side] != rep["reference"]:
            want = m[side] + ": "
        else:
            continue
        if want not in row[0] and not (side == "fastest" and
                                       row[0].endswith("| the same |")):
            bad.append(f"{pm} {side}: REPORT.md row {row[0]!r} lacks {want!r}")
        flat = " ".join(" ".join(block).split())
        if want not in flat and not (side == "fastest" and
                                     "fastest: the same" in flat):
            bad.append(f"{pm} {side}: stdout lacks {want!r}")
print("; ".join(bad))
sys.exit(1 if bad else 0)
PY

# graveyard report on the study-shaped T4 ladder at its margin and at
# 2.5 (a fourth row, marked), and on the golden ladder with a rung's name
# 40 characters long: the block first, within 80 columns, the same
# figures in REPORT.md and report.json (at 2 points none of the smaller
# files can be told with 250 questions, and 283 would tell Q6_K; at 5
# Q4_K_M is the smallest).
case_decide_report() {
    local long=Q8_0_with_a_name_long_enough_to_wrap_it
    python3 "$ROOT/tests/page/make_study.py" "$work/dst" >/dev/null || { fail "make_study.py"; return; }
    $GT report "$work/dst" --no-html >"$work/dr.out" 2>"$work/err" || { fail "report: $(cat "$work/err")"; return; }
    python3 "$work/decide_check.py" "$work/dst" "$work/dr.out" >"$work/out" 2>&1 || fail "study: $(cat "$work/out")"
    grep -q "^  ±2 \*  *smallest: none can be told with 250 questions; 283 would tell Q6_K$" "$work/dr.out" ||
        fail "the run's margin: $(grep -A1 '±2' "$work/dr.out")"
    grep -q "^  ±5  *smallest: Q4_K_M: 36.8 % of the bytes, 84.1 tok/s$" "$work/dr.out" ||
        fail "at 5: $(grep -A1 '±5' "$work/dr.out")"
    $GT report "$work/dst" --no-html --margin 2.5 --out "$work/dr25" >"$work/dr25.out" 2>"$work/err" ||
        { fail "report --margin 2.5: $(cat "$work/err")"; return; }
    python3 "$work/decide_check.py" "$work/dr25" "$work/dr25.out" >"$work/out" 2>&1 || fail "2.5: $(cat "$work/out")"
    [ "$(grep -c '^  ±[0-9.]* ' "$work/dr25.out")" = 4 ] && grep -q "^  ±2.5 \* " "$work/dr25.out" ||
        fail "2.5 not a fourth, marked row: $(grep '^  ±' "$work/dr25.out")"
    mkdir -p "$work/dlong/rows"
    cp "$ROOT"/tests/golden/data/ladder/rows/*.jsonl "$work/dlong/rows/"
    mv "$work/dlong/rows/Q8_0.jsonl" "$work/dlong/rows/$long.jsonl"
    $GT report "$work/dlong" --rungs "BF16,$long,Q4_0,Q2_K" --side QAT_Q4_0 --no-html \
        >"$work/dl.out" 2>"$work/err" || { fail "long name: $(cat "$work/err")"; return; }
    python3 "$work/decide_check.py" "$work/dlong" "$work/dl.out" >"$work/out" 2>&1 || fail "long name: $(cat "$work/out")"
    grep -q "would tell$" "$work/dl.out" && grep -q "^            $long$" "$work/dl.out" ||
        fail "the long name not wrapped: $(cat "$work/dl.out")"
}
area_cases="$area_cases decide_report"

# The ladder's end: its report opens with the block on stdout, after the
# "# ...: the report" line and before the files' names; every line that
# opens with "{" is still one JSON object (scripts read them), and the
# block is the one graveyard report prints for the folder.
case_decide_ladder() {
    local d=$work/dlad
    (cd "$ROOT" && $GT ladder configs/demo.json --run-dir "$d" --llama "$FAKE" --quiet) \
        >"$work/dlad.out" 2>"$work/err" || { fail "ladder: exit $? $(tail -3 "$work/err")"; return; }
    python3 - "$work/dlad.out" >"$work/out" 2>&1 <<'PY' || fail "$(cat "$work/out")"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
bad = []
for x in lines:
    if x.startswith("{"):
        try:
            json.loads(x)
        except ValueError as e:
            bad.append(f"not JSON: {x[:60]!r}: {e}")
rep = next((i for i, x in enumerate(lines) if x.endswith(": the report")), -1)
which = next((i for i, x in enumerate(lines) if x.startswith("Which file?")), -1)
wrote = next((i for i, x in enumerate(lines) if i > which and
              x.startswith("wrote ")), -1)
if not 0 <= rep < which < wrote:
    bad.append(f"order: report {rep}, block {which}, wrote {wrote}")
print("; ".join(bad))
sys.exit(1 if bad else 0)
PY
    python3 "$work/decide_check.py" "$d" "$work/dlad.out" >"$work/out" 2>&1 || fail "ladder: $(cat "$work/out")"
    $GT report "$d" >"$work/dlr.out" 2>"$work/err" || { fail "report: $(cat "$work/err")"; return; }
    sed -n '/^Which file?/,/^wrote /p' "$work/dlad.out" | sed '$d' >"$work/a"
    sed -n '/^Which file?/,/^wrote /p' "$work/dlr.out" | sed '$d' >"$work/b"
    [ -s "$work/a" ] && cmp -s "$work/a" "$work/b" || fail "the ladder's block is not report's: $(diff "$work/a" "$work/b")"
}
area_cases="$area_cases decide_ladder"
