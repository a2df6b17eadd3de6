# The usual manners (issue 35): a bury by hand never writes over the
# ladder's graveyard.json; verify on a run folder or publish's folder says
# what it expected and what to run; a user's Ctrl-C stops the ladder's
# rungs "as asked", never "failed".
# Tests: orchestrator/figures/figures.c
# Tests: orchestrator/figures/figures_verify.c
# Tests: orchestrator/cmd/ladder_plan.c

# the demo ladder into $work/NAME, whole
manners_ladder() { # name
    $GT ladder "$ROOT/configs/demo.json" --run-dir "$work/$1" --llama "$FAKE" --quiet >/dev/null 2>"$work/err"
}

case_bury_keeps_graveyard() {
    local d=$work/bk before rc
    manners_ladder bk || { fail "the demo ladder: exit $? $(tail -3 "$work/err")"; return; }
    before=$(sha256sum <"$d/graveyard.json")
    $G bury "$d" BF16 Q2_K Q8_0 >"$work/out" 2>"$work/err" || fail "bury: exit $? $(cat "$work/err")"
    grep -q '"tombstones"' "$work/out" || fail "bury printed no summary: $(cat "$work/out")"
    [ "$(sha256sum <"$d/graveyard.json")" = "$before" ] ||
        fail "a bury by hand in another order wrote over the ladder's graveyard.json"
    $G bury "$d" BF16 Q2_K --json "$work/bk-mine.json" >/dev/null 2>&1 || fail "bury --json: exit $?"
    grep -q '"died_at": "Q2_K"' "$work/bk-mine.json" || fail "bury --json FILE wrote no tombstones there"
    [ "$(sha256sum <"$d/graveyard.json")" = "$before" ] || fail "bury --json FILE touched graveyard.json"
}

case_verify_says_what() {
    local d=$work/vs rc
    manners_ladder vs || { fail "the demo ladder: exit $? $(tail -3 "$work/err")"; return; }
    rc=0; $G verify "$d" >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "is a run folder, not a bundle (no SHA256SUMS): compare its files with another machine's: graveyard verify $d --against OTHER/ladder.tsv" "$work/err" ||
        fail "verify RUNDIR: exit $rc $(cat "$work/err")"
    $GT publish "$d" --out "$work/vs-out" >/dev/null 2>"$work/err" || { fail "publish: exit $? $(tail -2 "$work/err")"; return; }
    rc=0; $G verify "$work/vs-out" >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "is graveyard publish's folder, not a bundle: verify the bundle in it: graveyard verify $work/vs-out/bundle.tar.gz" "$work/err" ||
        fail "verify on publish's folder: exit $rc $(cat "$work/err")"
    $G verify "$work/vs-out/bundle.tar.gz" >/dev/null 2>"$work/err" || fail "the bundle itself: exit $? $(cat "$work/err")"
}

# Ctrl-C reaches the ladder's whole group, as a terminal sends it
case_ctrl_c_not_failed() {
    local d=$work/cc pid rc=0
    model ccslow '"token_ms": 40, "default": {"content": "Let me count.\nAnswer: 7"}'
    ladder_config cc 2 '"0", "1"' ccslow
    setsid $G ladder "$work/cc.json" >/dev/null 2>"$work/cc.err" &
    pid=$!
    wait_for 10 "[ -s $work/cc/rows/R1.jsonl ] && [ -s $work/cc/rows/R2.jsonl ]" || fail "no rows came"
    kill -INT -- -"$pid"
    wait "$pid" || rc=$?
    [ $rc = 130 ] || fail "the ladder exited $rc after SIGINT, not 130"
    grep -q "R1 stopped as asked: [0-9]* of [0-9]* answered, kept; the same command resumes it" "$work/cc.err" ||
        fail "R1 not said stopped as asked: $(tail -5 "$work/cc.err")"
    ! grep -q "failed" "$work/cc.err" || fail "a Ctrl-C was called a failure: $(grep failed "$work/cc.err")"
}
area_cases="$area_cases bury_keeps_graveyard verify_says_what ctrl_c_not_failed"

# graveyard run on a terminal draws its rung's line as the ladder does
# (done/total, right, tok/s, ETA), redrawn in place; off a terminal, plain
# lines as before, no escape sequences
case_run_progress_tty() {
    local d=$work/rpt
    model rpslow '"token_ms": 60, "default": {"content": "Let me count it.\nAnswer: 7"}'
    timeout -k 5 60 script -qefc "$G run R1 $work/rpslow.gguf $work/q.jsonl $d --llama $FAKE" \
        /dev/null >"$work/rpt.tty" 2>&1 || fail "run on a terminal: exit $?"
    grep -aq "R1  [0-9]*/4 answered  [0-9]* right  [0-9.]* tok/s  ETA [0-9]*m[0-9][0-9]s" "$work/rpt.tty" ||
        fail "no live line on a terminal: $(tr -d '\033' <"$work/rpt.tty" | tail -5)"
    grep -aq "$(printf '\033')\[1A" "$work/rpt.tty" || fail "the live line is not drawn in place"
    $GT run R1 "$work/rpslow.gguf" "$work/q.jsonl" "$work/rpt2" --llama "$FAKE" >/dev/null 2>"$work/rpt.err" ||
        fail "run off a terminal: exit $?"
    ! grep -q "$(printf '\033')" "$work/rpt.err" || fail "escape sequences off a terminal"
    ! grep -q "answered  " "$work/rpt.err" || fail "a live line off a terminal: $(cat "$work/rpt.err")"
}
area_cases="$area_cases run_progress_tty"
