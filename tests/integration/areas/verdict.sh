# shellcheck shell=bash
# Round 3, verdicts (issue 27): the equivalence margin, from the config's
# "margin_points" and from --margin on report and compare. Sourced by
# tests/integration/cases.sh.
#
# Tests: grader/verdict.c
# Tests: report/md_verdict.c
# Tests: orchestrator/cmd/cmd_report.c
# Tests: orchestrator/figures/figures_compare.c
# Tests: orchestrator/figures/pages.c

# A margin that is not a number above 0 and below 100 is refused in one
# line before anything is read or written: in a config (naming the file),
# and on report and compare.
case_margin_refused() {
    local m rc t4=$ROOT/tests/golden/data/t4
    ladder_config mrg 1 '"0"' good
    for m in 0 -2 100 '"2"' true; do
        refused_config mrg "s|\"gpus\"|\"margin_points\": $m, \"gpus\"|" \
            "mrg-x.json: 'margin_points' must be a number of points above 0 and below 100" "margin_points $m"
    done
    [ -e "$work/mrg" ] && fail "a run folder was made"
    for m in 0 100 x 2x -1 nan inf ''; do
        rc=0; $GT report "$t4" --out "$work/mr" --margin "$m" >/dev/null 2>"$work/err" || rc=$?
        [ $rc = 2 ] && [ "$(wc -l <"$work/err")" = 1 ] &&
            grep -q -- "graveyard report: --margin wants a number of points above 0 and below 100" "$work/err" ||
            fail "report --margin '$m': exit $rc $(cat "$work/err")"
        rc=0; $GT compare "$t4" "$t4" --out "$work/mc" --margin "$m" >/dev/null 2>"$work/err" || rc=$?
        [ $rc = 2 ] && grep -q -- "graveyard compare: --margin wants" "$work/err" ||
            fail "compare --margin '$m': exit $rc $(cat "$work/err")"
    done
    [ -e "$work/mr" ] || [ -e "$work/mc" ] && fail "an output folder was made"
    true
}
area_cases="$area_cases margin_refused"

# The study-shaped T4 ladder (tests/page/make_study.py) at 2 and 5 points:
# each rung's verdict in report.json and in REPORT.md's ladder table as
# docs/grading.md's table gives them, the questions Q8_0 would need, and
# the decision block ("Which file?") naming the smallest equivalent file
# at the run's margin.
case_margin_report() {
    local m
    python3 "$ROOT/tests/page/make_study.py" "$work/t4s" >/dev/null || { fail "make_study.py"; return; }
    for m in 2 5; do
        $GT report "$work/t4s" --out "$work/v$m" --no-html --margin $m >/dev/null 2>"$work/err" ||
            { fail "report --margin $m: $(cat "$work/err")"; return; }
    done
    python3 - "$work/v2" "$work/v5" >"$work/out" 2>&1 <<'PY' || fail "$(cat "$work/out")"
import json, sys
want = {
    2: {"F16": "equivalent", "Q8_0": "cannot tell", "Q6_K": "cannot tell",
        "Q5_K_M": "cannot tell", "Q4_K_M": "cannot tell", "Q4_0": "cannot tell",
        "Q3_K_M": "worse", "Q2_K": "worse", "QAT_Q4_0": "cannot tell"},
    5: {"F16": "equivalent", "Q8_0": "equivalent", "Q6_K": "equivalent",
        "Q5_K_M": "equivalent", "Q4_K_M": "equivalent", "Q4_0": "cannot tell",
        "Q3_K_M": "worse", "Q2_K": "worse", "QAT_Q4_0": "cannot tell"},
}
bad = []
for d, folder in zip((2, 5), sys.argv[1:]):
    rep = json.load(open(folder + "/report.json"))
    md = open(folder + "/REPORT.md").read()
    if rep["margin_points"] != d:
        bad.append(f"margin_points {rep['margin_points']} at {d}")
    rungs = rep["rungs"] + rep["side_rungs"]
    if rungs[0]["verdict"] is not None:
        bad.append("the reference has a verdict")
    for r in rungs[1:]:
        if r["verdict"] != want[d][r["rung"]]:
            bad.append(f"{r['rung']} at {d}: {r['verdict']}")
    if f"Verdict at \u00b1{d} points" not in md:
        bad.append(f"no verdict column at {d}")
    q8 = [r for r in rungs if r["rung"] == "Q8_0"][0]
    if d == 2 and q8["n_needed"] != {"mcnemar_80": 469, "equivalence": 564}:
        bad.append(f"Q8_0 n_needed {q8['n_needed']}")
    eq = [r for r in rungs if r["verdict"] == "equivalent"]
    small = min(eq, key=lambda r: r["pct_reference_bytes"])["rung"] if eq else None
    if d == 5 and rep["which_one"]["smallest"] != small:
        bad.append(f"smallest {rep['which_one']['smallest']}, want {small}")
    own = [x for x in md.splitlines() if "(this run's) |" in x]
    if d == 5 and not (own and own[0].startswith(f"| **\u00b15** (this run's) | {small}: ")):
        bad.append(f"the decision block does not name {small}: {own}")
print("; ".join(bad))
sys.exit(1 if bad else 0)
PY
}
area_cases="$area_cases margin_report"

# compare --margin: each run's verdict and whether it holds, at the margin
# asked (the golden T4 and L4 folders: a floor of 1 of 8 questions, 12.5
# points, so 20 stands and 2 is raised).
case_margin_compare() {
    local m g=$ROOT/tests/golden/data
    for m in 2 20; do
        $GT compare "$g/t4" "$g/l4" --labels T4,L4 --out "$work/c$m" --no-html --margin $m \
            >/dev/null 2>"$work/err" || { fail "compare --margin $m: $(cat "$work/err")"; return; }
    done
    python3 - "$work/c2" "$work/c20" >"$work/out" 2>&1 <<'PY' || fail "$(cat "$work/out")"
import json, sys
bad = []
for m, used, folder in ((2, 12.5, sys.argv[1]), (20, 20, sys.argv[2])):
    c = json.load(open(folder + "/compare.json"))
    md = open(folder + "/COMPARE.md").read()
    if (c["margin_points"], c["margin_points_used"]) != (m, used):
        bad.append(f"margins {c['margin_points']}, {c['margin_points_used']} at {m}")
    if f"Verdicts at \u00b1{used:g} points" not in md:
        bad.append(f"COMPARE.md has no verdicts at {used:g}")
    for r in c["rungs"][1:]:
        if len(r["verdict"]) != 2 or r["verdict_holds"] != (r["verdict"][0] == r["verdict"][1]):
            bad.append(f"{r['rung']} at {m}: {r['verdict']} {r['verdict_holds']}")
    if c["rungs"][0]["verdict_holds"] is not None:
        bad.append("the reference has a verdict")
q2k = [json.load(open(f + "/compare.json"))["rungs"][3]["verdict"] for f in sys.argv[1:]]
if q2k[0] != ["worse", "worse"]:
    bad.append(f"Q2_K at 2: {q2k[0]}")
print("; ".join(bad))
sys.exit(1 if bad else 0)
PY
}
area_cases="$area_cases margin_compare"

# A ladder's "margin_points" reaches the report it ends with, and (through
# ladder.json) a report made again from its folder.
case_margin_ladder() {
    model vm '"default": {"content": "Answer: 5"}'
    ladder_config mlad 2 '"0"' vm
    sed -i 's|"gpus"|"margin_points": 7.5, "gpus"|' "$work/mlad.json"
    $GT ladder "$work/mlad.json" >/dev/null 2>"$work/err" || { fail "ladder: $(cat "$work/err")"; return; }
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(r["margin_points"] != 7.5)' \
        "$work/mlad/report.json" || fail "margin_points not 7.5 in report.json"
    grep -q "Verdict at ±7.5 points" "$work/mlad/REPORT.md" || fail "no ±7.5 column"
    # ladder.json keeps it: a report made again later gives the same
    # verdicts, unless --margin says otherwise
    $GT report "$work/mlad" --out "$work/mlad-again" --no-html >/dev/null 2>&1 || fail "report again"
    grep -q "Verdict at ±7.5 points" "$work/mlad-again/REPORT.md" || fail "report again: not at ±7.5"
    $GT report "$work/mlad" --out "$work/mlad-3" --no-html --margin 3 >/dev/null 2>&1 || fail "report --margin 3"
    grep -q "Verdict at ±3 points" "$work/mlad-3/REPORT.md" || fail "--margin 3 did not win"
}
area_cases="$area_cases margin_ladder"
