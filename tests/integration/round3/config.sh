# shellcheck shell=bash
# Round 3, config: what a config or the command line may say (issue 24,
# G7, G9, G11, G18). Sourced by tests/integration/round3.sh.

# G7: a GPU named twice would be shared with none of rungs_per_gpu's
# checks; the config's "gpus" and --gpus are refused before anything runs.
case_config_gpus_twice() {
    local rc
    ladder_config gt 2 '"0", "1"' good
    refused_config gt 's|"gpus": \["0", "1"\]|"gpus": ["0", "0"]|' "'gpus' names GPU '0' twice" "gpus [0, 0]"
    refused_config gt 's|"gpus": \["0", "1"\]|"gpus": ["0,1", "1"]|' "'gpus' names GPU '1' twice" "gpus [0,1, 1]"
    rc=0; $GT ladder "$work/gt.json" --gpus 0,0 >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q -- "--gpus names GPU '0' twice" "$work/err" && grep -q '"rungs_per_gpu"' "$work/err" ||
        fail "--gpus 0,0: exit $rc $(cat "$work/err")"
    [ -e "$work/gt" ] && fail "a run folder was made"
    true
}

# G9: "run_dir": "-rd" ran the whole ladder, then bury read "-rd" as a
# flag (exit 2, no report). Refused before anything starts; "./-rd" runs.
# In $work: a relative run folder is made where the ladder runs.
case_config_run_dir_dash() {
    local rc here=$PWD
    ladder_config rdd 1 '"0"' good
    cd "$work" || return
    refused_config rdd 's|"run_dir": "[^"]*"|"run_dir": "-rd"|' "rdd-x.json: 'run_dir' '-rd' starts with '-'" "run_dir -rd"
    rc=0; $GT ladder rdd.json --run-dir -rd2 >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q -- "--run-dir '-rd2' starts with '-'" "$work/err" || fail "--run-dir -rd2: exit $rc $(cat "$work/err")"
    [ -e "$work/-rd" ] || [ -e "$work/-rd2" ] && fail "a run folder was made"
    rc=0; $GT ladder rdd-x.json --run-dir ./-rd3 --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 0 ] && [ -s "$work/-rd3/REPORT.md" ] || fail "--run-dir ./-rd3: exit $rc $(cat "$work/err")"
    cd "$here" || return
    true
}

# G11: the fork's and upstream's short -hft (--hf-token) was kept in clear
# in manifest.json; so was a secret in the config's server.argv template.
case_config_secret_flags() {
    local d=$work/hft
    $GT run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --limit 1 --quiet \
        --server-argv '["-m", "{model}", "--port", "{port}", "--hf-token", "hf_SECRET1"]' \
        --server-arg -hft --server-arg hf_SECRET2 --server-arg --hf-token --server-arg hf_SECRET3 \
        >/dev/null 2>"$work/err" || fail "exit $? $(cat "$work/err")"
    grep -q SECRET "$d/manifest.json" && fail "a secret in manifest.json: $(grep -o '"[^"]*SECRET[^"]*"' "$d/manifest.json" | tr '\n' ' ')"
    tr -d ' \n' <"$d/manifest.json" | grep -q '"-hft","<redactedsha256:' || fail "-hft's value not redacted"
    true
}

# G18: --request and "request.extra" may not set what graveyard owns
# (messages replaced every question; stream false made every row an
# error): each key refused by name, exit 2, nothing made.
case_config_request_owned() {
    local i rc
    local reqs=('{"messages": [{"role": "user", "content": "hi"}]}' '{"prompt": "hi"}'
        '{"stream": false}' '{"n": 2}' '{"max_tokens": 9}' '{"n_predict": 9}'
        '{"max_completion_tokens": 9}' '{"chat_template_kwargs": {"enable_thinking": true}}')
    local keys=(messages prompt stream n max_tokens n_predict max_completion_tokens
        chat_template_kwargs.enable_thinking)
    for i in "${!reqs[@]}"; do
        rc=0; $GT run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$work/ro" --llama "$FAKE" --limit 1 --quiet \
            --request "${reqs[$i]}" >/dev/null 2>"$work/err" || rc=$?
        [ $rc = 2 ] && grep -q -- "--request '${keys[$i]}' is graveyard's to set" "$work/err" ||
            fail "--request ${reqs[$i]}: exit $rc $(cat "$work/err")"
    done
    [ -e "$work/ro" ] && fail "a run folder was made"
    ladder_config rq 1 '"0"' good
    refused_config rq 's|"gpus"|"request": {"extra": {"stream": false}}, &|' "'request.extra.stream' is graveyard's to set" "request.extra stream"
    refused_config rq 's|"gpus"|"request": {"extra": {"messages": []}}, &|' "'request.extra.messages' is graveyard's to set" "request.extra messages"
    # sampling settings and the template's other kwargs are the user's
    $GT run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$work/ok" --llama "$FAKE" --limit 1 --quiet \
        --request '{"top_k": 1, "seed": 7, "chat_template_kwargs": {"reasoning_effort": "low"}}' \
        >/dev/null 2>"$work/err" || fail "allowed --request: exit $? $(cat "$work/err")"
    true
}

round3_cases="$round3_cases config_gpus_twice config_run_dir_dash config_secret_flags config_request_owned"
