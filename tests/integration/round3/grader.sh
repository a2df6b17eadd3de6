# Round 3, grader (issue 24: G3, G4): a rung whose answers are all in can
# always be finished, buried and reported. Sourced by round3.sh.

# G3: a server that reports 1e40 tokens/s. It ended the rung's summary and
# every bury with "out of memory" (SIGABRT, exit 134): 1e40 is inf as the
# answer's float, and no JSON holds inf. Now the row keeps null, and a row
# written by an older graveyard, or by hand, with 1e300 or 1e40 is read as
# unknown (docs/rows.md).
case_absurd_speed() {
    local d=$work/fast rc=0
    model fast1e40 '"decode_tps": 1e40, "default": {"content": "Answer: 5"}'
    ladder_config fast 2 '"0"' fast1e40
    $GT ladder "$work/fast.json" --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 0 ] || fail "ladder: exit $rc $(cat "$work/err")"
    [ -e "$d/rows/R1.done" ] && [ -e "$d/rows/R2.done" ] || fail "a rung was not finished"
    grep -q '"decode_tps":null' "$d/rows/R1.jsonl" || fail "row keeps the speed: $(head -c 400 "$d/rows/R1.jsonl")"
    grep -q '"median_decode_tps": *null' "$d/rows/R1.done" || fail ".done: $(cat "$d/rows/R1.done")"
    $G bury "$d" R1 R2 >"$work/out" 2>"$work/err" || fail "bury: exit $? $(cat "$work/err")"
    $G report "$d" >/dev/null 2>"$work/err" || fail "report: exit $? $(cat "$work/err")"
    # rows as an older graveyard wrote them, and one by hand: 1e300 and
    # 1e40 read as unknown, a speed within reason kept
    sed -i 's/"decode_tps":null/"decode_tps":1e300/' "$d/rows/R1.jsonl"
    sed -i '1s/"decode_tps":null/"decode_tps":1e40/; 2,$s/"decode_tps":null/"decode_tps":42.5/' "$d/rows/R2.jsonl"
    rc=0; $G bury "$d" R1 R2 >"$work/out" 2>"$work/err" || rc=$?
    [ $rc = 0 ] || fail "bury of 1e300 and 1e40: exit $rc $(cat "$work/err")"
    grep -q '"rung": "R1".*"median_decode_tps": null' "$work/out" || fail "R1's speed: $(cat "$work/out")"
    grep -q '"rung": "R2".*"median_decode_tps": 42.5' "$work/out" || fail "R2's speed: $(cat "$work/out")"
    rc=0; $G report "$d" >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 0 ] || fail "report of 1e300 and 1e40: exit $rc $(cat "$work/err")"
    grep -q '^| R2 |.* 42.5 |' "$d/REPORT.md" || fail "REPORT.md: $(grep '^| R' "$d/REPORT.md")"
}
round3_cases="$round3_cases absurd_speed"
