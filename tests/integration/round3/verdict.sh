# shellcheck shell=bash
# Round 3, verdicts (issue 27): the equivalence margin, from the config's
# "margin_points" and from --margin on report and compare. Sourced by
# tests/integration/round3.sh.

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
round3_cases="$round3_cases margin_refused"
