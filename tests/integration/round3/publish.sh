# shellcheck shell=bash
# Round 3, publish (issue 29, "Evidence to publish"): graveyard publish on
# the study-shaped T4 folder (tests/page/make_study.py, 10 rungs x 250):
# the card, the model-index front matter and the .eval_results YAML parsed
# back by PyYAML and the lm-eval files, each rung's figures checked against
# report.json; a model name made to break YAML read back whole; no path of
# the machine (the manifest's model folders, the question file's folder,
# the run folder) in any file. Sourced by round3.sh (lib.sh's helpers).

PUBLISH_CHECK="/usr/bin/python3 $ROOT/tests/integration/round3/publish_check.py"

case_publish_card() {
    local d=$work/pub-study name='T4: "quoted" #not-a-comment {x: [1]}
line two'
    /usr/bin/python3 "$ROOT/tests/page/make_study.py" "$d" >/dev/null ||
        { fail "make_study.py failed"; return; }
    "$G" report "$d" --out "$work/pub-report" --no-html >/dev/null ||
        { fail "report failed"; return; }
    "$G" publish "$d" --out "$work/pub-out" --dataset openai/gsm8k \
        --model "$name" >"$work/pub.out" 2>&1 ||
        { fail "publish failed: $(tail -2 "$work/pub.out")"; return; }
    PUBLISH_MODEL=$name $PUBLISH_CHECK "$work/pub-report/report.json" \
        "$work/pub-out" openai/gsm8k /opt1/ "$ROOT/data" "$d" \
        >"$work/pub-check.out" 2>&1 ||
        fail "publish_check: $(head -5 "$work/pub-check.out")"
    # no RUNDIR and no --out: usage, nothing written
    "$G" publish "$d" >/dev/null 2>&1
    [ $? = 2 ] || fail "publish without --out did not exit 2"
}
round3_cases="$round3_cases publish_card"
