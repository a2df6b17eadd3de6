# endpoint (issue 28, "A served model, not spawned"): a rung whose server
# graveyard does not start. The fake server is started here, by the test,
# with --api-key, and graveyard runs against it with --url or a config's
# "endpoint": the rows, a kill -9 and its resume, the manifest's record of
# what the endpoint said, the key in no file of the run folder, plain http
# to another machine refused before any connection, and each bad input
# (down, slow, 401, 429 with Retry-After, 5xx, a cut stream, non-JSON, a
# redirect) a named error row, a retry or one clear failure.
# Sourced by round3.sh (lib.sh's helpers).

EP_KEY="ep-key-$$-Zq7"
# a port nothing listens on
ep_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# start the fake on model NAME as an endpoint: sets ep_pid, ep_url
ep_start() { # name [extra args...]
    local name=$1 port; shift
    port=$(ep_port)
    "$FAKE" -m "$work/$name.gguf" --host 127.0.0.1 --port "$port" "$@" >"$work/ep-$name.log" 2>&1 &
    ep_pid=$!
    ep_url="http://127.0.0.1:$port"
    wait_for 10 "curl -s -o /dev/null '$ep_url/health'" || fail "the endpoint $name did not start"
}
ep_stop() { kill "$ep_pid" 2>/dev/null; wait "$ep_pid" 2>/dev/null; }
# the key in no file of folder d (names nor contents)
ep_no_key() { # dir what
    if grep -rqa -- "$EP_KEY" "$1"; then fail "$2: the key is in $(grep -rla -- "$EP_KEY" "$1")"; fi
    if find "$1" | grep -q -- "$EP_KEY"; then fail "$2: the key is in a file name"; fi
}

model epslow '"token_ms": 40, "default": {"content": "Working it out slowly.\nAnswer: 5"}'
model epfaults '"default": {"content": "Answer: 5"},
 "replies": [{"match": "apples", "content": "Answer: 5", "fault": "http429", "times": 2, "retry_after": 1},
             {"match": "pears", "fault": "redirect"},
             {"match": "plums", "content": "xxxxxxxxxxxxxxxxxxxx", "fault": "garbage"},
             {"match": "figs", "content": "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz", "fault": "close"}]'
model ep5xx '"default": {"content": "Answer: 5"}, "replies": [{"match": "pears", "fault": "http500"}]'
model ep429 '"default": {"content": "Answer: 5"}, "replies": [{"match": "pears", "fault": "http429", "retry_after": 1}]'
model epnohealth '"no_health": true, "default": {"content": "Answer: 5"}'
model ephang '"default": {"content": "Answer: 5"},
 "replies": [{"match": "pears", "content": "wwwwwwwwwwwwwwwwwwwwwwwwwwwwww", "fault": "hang"}]'
model ep401 '"default": {"content": "Answer: 5"}, "replies": [{"match": "pears", "fault": "http401"}]'

# run --url against an endpoint with a key: four rows, the manifest's
# record (URL, the key's variable and sha256, /props and /v1/models), not
# pinned in the summary; kill -9 mid-run, and the resume answers each
# question once; the key is in no file of the folder.
case_endpoint_run() {
    local d=$work/epr pid sha n
    ep_start epslow --api-key "$EP_KEY"
    export EP_TEST_KEY="$EP_KEY"
    $G run --url "$ep_url" E1 "$work/q.jsonl" "$d" --api-key-env EP_TEST_KEY >/dev/null 2>&1 &
    pid=$!
    wait_for 20 "[ -s '$d/rows/E1.jsonl' ]" || fail "no first row"
    kill -KILL $pid; wait $pid 2>/dev/null
    n=$(rows "$d" E1)
    [ "$n" -ge 1 ] && [ "$n" -lt 4 ] || fail "kill -9: $n rows (want 1 to 3)"
    $GT run --url "$ep_url" E1 "$work/q.jsonl" "$d" --api-key-env EP_TEST_KEY >/dev/null 2>"$work/err" || fail "resume: exit $? $(cat "$work/err")"
    procs_once "$d/rows/E1.jsonl" "endpoint resume"
    sha=$(printf '%s' "$EP_KEY" | sha256sum | cut -c1-64)
    /usr/bin/python3 - "$d/manifest.json" "$ep_url" "$sha" "$work/epslow.gguf" <<'PY' || fail "manifest: $(cat "$d/manifest.json")"
import json, sys
m = json.load(open(sys.argv[1]))
r = m["rungs"]["E1"]
e = r["endpoint"]
assert e["url"] == sys.argv[2] and e["pinned"] is False, e
assert e["api_key_env"] == "EP_TEST_KEY" and e["api_key_sha256"] == sys.argv[3], e
said = r["endpoint_said"]
assert said["props"]["model_path"] == sys.argv[4], said
assert said["models"]["data"][0]["id"] == sys.argv[4], said
assert r["sha256"] == "" and "server" not in m, r
PY
    grep -q '"pinned": false' "$d/rows/E1.done" || fail "the summary does not say not pinned"
    grep -q '"bytes": null' "$d/rows/E1.done" || fail "the summary claims bytes"
    ep_no_key "$d" "run"
    ep_no_key "$work/err" "stderr"
    unset EP_TEST_KEY
    ep_stop
}

# plain http to another machine (192.0.2.1, TEST-NET-1, RFC 5737) is
# refused before any connection: exit 2 at once, nothing created, by the
# flag and by a config; https and loopback pass the check.
case_endpoint_plain_http() {
    local d=$work/epp rc=0 t0
    t0=$(date +%s)
    $GT run --url http://192.0.2.1:8080 E1 "$work/q.jsonl" "$d" >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "plain http to another machine" "$work/err" || fail "--url: exit $rc $(cat "$work/err")"
    [ $(( $(date +%s) - t0 )) -le 2 ] || fail "the refusal waited for a connection"
    [ ! -e "$d" ] || fail "a refused run created its folder"
    cat >"$work/epp.json" <<JSON
{"name": "epp", "questions": "$work/q.jsonl", "run_dir": "$d",
 "rungs": [{"name": "E1", "endpoint": {"url": "http://192.0.2.1:8080"}}], "server": {"binary": "$FAKE"}}
JSON
    refused_config epp 's/x/x/' "plain http to another machine" "config"
    refused_config epp 's|"http://192.0.2.1:8080"}|"https://192.0.2.1", "api_key_env": "MY KEY"}|' "not a variable" "a key variable's name"
    refused_config epp 's|"endpoint": {"url": "http:|"server_args": ["-fa"], "endpoint": {"url": "https:|' "takes no" "server_args on an endpoint"
    refused_config epp 's|http://192.0.2.1:8080|https://user:pw@192.0.2.1|' "may not hold a user" "a password in the URL"
    rc=0
    $GT run --url http://192.0.2.1:9 E1 "$work/q.jsonl" "$d" --api-key-env NOT_SET_HERE_X >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] || fail "plain http with a key: exit $rc"
}

# each bad input: 429 twice with Retry-After 1 then the answer (no row
# for the 429s), a redirect (error_kind redirect, not followed: the fake's
# Location is a closed port), non-JSON (bad_stream), a cut stream (cut);
# 5xx (http); a /health that is 404 (/v1/models then).
case_endpoint_faults() {
    local d=$work/epf t0 el
    ep_start epfaults --api-key "$EP_KEY"
    t0=$(date +%s%N)
    EP_TEST_KEY=$EP_KEY $GT run --url "$ep_url" F1 "$work/q.jsonl" "$d" --api-key-env EP_TEST_KEY >/dev/null 2>"$work/err" || fail "exit $? $(cat "$work/err")"
    el=$(( ($(date +%s%N) - t0) / 1000000 ))
    [ "$(field "$d/rows/F1.jsonl" apples right)" = true ] || fail "429: $(field "$d/rows/F1.jsonl" apples error)"
    [ "$(grep -c 'fake: 429 sent (Retry-After 1)' "$work/ep-epfaults.log")" = 2 ] || fail "429: not asked three times"
    [ "$el" -ge 2000 ] || fail "429: Retry-After 1 not honoured (${el} ms in all)"
    grep -q "HTTP 429 (busy); asking again in 1 s" "$work/err" || fail "429: not said"
    [ "$(field "$d/rows/F1.jsonl" pears error_kind)" = '"redirect"' ] || fail "redirect: $(field "$d/rows/F1.jsonl" pears error_kind)"
    [ "$(field "$d/rows/F1.jsonl" plums error_kind)" = '"bad_stream"' ] || fail "non-JSON: $(field "$d/rows/F1.jsonl" plums error_kind)"
    [ "$(field "$d/rows/F1.jsonl" figs error_kind)" = '"cut"' ] || fail "cut: $(field "$d/rows/F1.jsonl" figs error_kind)"
    [ "$(rows "$d" F1)" = 4 ] || fail "$(rows "$d" F1) rows"
    ep_no_key "$d" "faults"
    ep_stop
    ep_start ep5xx
    $GT run --url "$ep_url" F2 "$work/q.jsonl" "$d" >/dev/null 2>"$work/err" || fail "5xx: exit $?"
    [ "$(field "$d/rows/F2.jsonl" pears error_kind)" = '"http"' ] || fail "5xx: $(field "$d/rows/F2.jsonl" pears error_kind)"
    ep_stop
    # busy for ever: 5 waits of its Retry-After, then an http row (no hang)
    ep_start ep429
    t0=$(date +%s)
    $GT run --url "$ep_url" F4 "$work/q.jsonl" "$d" >/dev/null 2>"$work/err" || fail "429 cap: exit $?"
    el=$(( $(date +%s) - t0 ))
    [ "$(field "$d/rows/F4.jsonl" pears error_kind)" = '"http"' ] && field "$d/rows/F4.jsonl" pears error | grep -q "HTTP 429" || fail "429 cap: $(field "$d/rows/F4.jsonl" pears error)"
    [ "$(grep -c 'fake: 429 sent' "$work/ep-ep429.log")" = 6 ] || fail "429 cap: $(grep -c 'fake: 429 sent' "$work/ep-ep429.log") asks, want 6"
    [ $el -ge 5 ] && [ $el -le 12 ] || fail "429 cap: took $el s"
    ep_stop
    ep_start epnohealth
    $GT run --url "$ep_url/" F3 "$work/q.jsonl" "$d" 2>"$work/err" >/dev/null || fail "no /health: exit $? $(cat "$work/err")"
    grep -q "(/v1/models answered)" "$work/err" || fail "no /health: $(cat "$work/err")"
    [ "$(rows "$d" F3)" = 4 ] || fail "no /health: $(rows "$d" F3) rows"
    ep_stop
}

# the key refused (a wrong key; a 401 mid-run): exit 1 at once, one line
# naming the rung and the URL, not a row a question.
case_endpoint_key_refused() {
    local d=$work/epk rc=0
    ep_start epslow --api-key "$EP_KEY"
    EP_TEST_KEY=wrong $GT run --url "$ep_url" K1 "$work/q.jsonl" "$d" --api-key-env EP_TEST_KEY >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 1 ] || fail "wrong key: exit $rc"
    [ "$(grep -c "graveyard run K1: the endpoint $ep_url answered HTTP 401: the key was refused" "$work/err")" = 1 ] || fail "wrong key: $(cat "$work/err")"
    [ "$(rows "$d" K1)" = 0 ] || fail "wrong key: $(rows "$d" K1) rows"
    rc=0
    $GT run --url "$ep_url" K2 "$work/q.jsonl" "$d" >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 1 ] && grep -q "api_key_env not set" "$work/err" || fail "no key: exit $rc $(cat "$work/err")"
    ep_stop
    ep_start ep401
    rc=0
    $GT run --url "$ep_url" K3 "$work/q.jsonl" "$d" >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 1 ] && [ "$(rows "$d" K3)" = 1 ] || fail "401 mid-run: exit $rc, $(rows "$d" K3) rows"
    ep_stop
}

# down: connection refused, polled with backoff until the health timeout,
# then one clear failure; slow: a hang is the idle timeout's (hung rows
# after 3 asks, the endpoint's health waited for again between them).
case_endpoint_down_slow() {
    local d=$work/epd rc=0 t0 el port
    port=$(ep_port)
    t0=$(date +%s)
    $GT run --url "http://127.0.0.1:$port" D1 "$work/q.jsonl" "$d" --health-timeout 3 >/dev/null 2>"$work/err" || rc=$?
    el=$(( $(date +%s) - t0 ))
    [ $rc = 1 ] && grep -q "not ready after 3 s" "$work/err" && grep -qi "refused\|connect" "$work/err" || fail "down: exit $rc $(cat "$work/err")"
    [ $el -le 6 ] || fail "down: took $el s"
    ep_start ephang
    $GT run --url "$ep_url" D2 "$work/q.jsonl" "$d" --idle-timeout 1 >/dev/null 2>"$work/err" || fail "slow: exit $? $(cat "$work/err")"
    [ "$(field "$d/rows/D2.jsonl" pears error_kind)" = '"hung"' ] || fail "slow: $(field "$d/rows/D2.jsonl" pears error_kind)"
    [ "$(field "$d/rows/D2.jsonl" figs content)" = '"Answer: 5"' ] || fail "slow: the next question after the hang"
    ep_stop
}

# a ladder with a local rung and an endpoint rung (the key from the
# environment): the report marks the endpoint not pinned, and claims no
# bytes for it.
case_endpoint_ladder() {
    local d=$work/epl
    ep_start good --api-key "$EP_KEY"
    cat >"$work/epl.json" <<JSON
{"name": "epl", "questions": "$work/q.jsonl", "run_dir": "$d",
 "rungs": [{"name": "L1", "model": "$work/good.gguf"},
           {"name": "EP", "endpoint": {"url": "$ep_url", "api_key_env": "EP_TEST_KEY"}}],
 "server": {"binary": "$FAKE"}}
JSON
    EP_TEST_KEY=$EP_KEY $GT ladder "$work/epl.json" >/dev/null 2>"$work/err" || fail "ladder: exit $? $(cat "$work/err")"
    grep -q "^| EP | not pinned: the file and build are the server's word |" "$d/REPORT.md" || fail "the report does not mark EP: $(grep '^| EP' "$d/REPORT.md")"
    /usr/bin/python3 -c 'import json,sys
r=json.load(open(sys.argv[1]))
e=[x for x in r["rungs"] if x["rung"]=="EP"][0]
assert e["pinned"] is False and e["bytes"] is None, e' "$d/report.json" 2>/dev/null || fail "report.json: EP pinned or with bytes"
    ep_no_key "$d" "ladder"
    ep_stop
}

round3_cases="$round3_cases endpoint_run endpoint_plain_http endpoint_faults endpoint_key_refused endpoint_down_slow endpoint_ladder"

# graveyard audit on the demo ladder: a fake started by hand on the demo's
# Q4_0 file is named Q4_0 (0 changed), with every local rung's count,
# sorted; --json says the same; its rows are in RUNDIR/audit/NAME/, and
# the ladder's own rows are untouched.
case_endpoint_audit() {
    local d=$work/epa before out
    sed "s|\"run_dir\": \"../runs/demo-ladder\"|\"run_dir\": \"$d\"|; s|\"demo/|\"$ROOT/configs/demo/|g; s|\"../build/fake-llama-server\"|\"$FAKE\"|" \
        "$ROOT/configs/demo.json" >"$work/epa.json"
    $GT ladder "$work/epa.json" >/dev/null 2>"$work/err" || { fail "demo ladder: exit $? $(tail -3 "$work/err")"; return; }
    before=$(cat "$d"/rows/*.jsonl | sha256sum)
    ep_start_file "$ROOT/configs/demo/Q4_0.gguf"
    out=$($GT audit SVC --url "$ep_url" --against "$d" --limit 12 --quiet 2>"$work/err") || fail "audit: exit $? $(cat "$work/err")"
    case "$out" in
        "audit SVC: answers like Q4_0: 0 changed; like "*"best match Q4_0 (over 12 questions)") ;;
        *) fail "audit: $out" ;;
    esac
    /usr/bin/python3 -c 'import json,sys
v=json.loads(sys.argv[1])
c=[r["changed"] for r in v["rungs"]]
assert v["best"]=="Q4_0" and not v["tie"] and c==sorted(c) and c[0]==0 and c[1]>0, v
assert sorted(r["rung"] for r in v["rungs"])==["BF16","Q2_K","Q4_0","Q8_0","QAT_Q4_0"], v' \
        "$($G audit SVC --url "$ep_url" --against "$d" --limit 12 --quiet --json)" || fail "audit --json"
    [ "$(rows "$d/audit/SVC" SVC)" = 12 ] || fail "audit rows: $(rows "$d/audit/SVC" SVC)"
    [ "$(cat "$d"/rows/*.jsonl | sha256sum)" = "$before" ] || fail "the audit touched the ladder's rows"
    ep_stop
    ep_start_file "$ROOT/configs/demo/Q2_K.gguf"
    out=$($GT audit SVC2 --url "$ep_url" --against "$d" --quiet 2>"$work/err") || fail "audit Q2_K: exit $?"
    case "$out" in *"best match Q2_K "*) ;; *) fail "audit Q2_K: $out" ;; esac
    ep_stop
}
# start the fake on a model file path as an endpoint (ep_start's twin)
ep_start_file() {
    local port; port=$(ep_port)
    "$FAKE" -m "$1" --host 127.0.0.1 --port "$port" >"$work/ep-file.log" 2>&1 &
    ep_pid=$!
    ep_url="http://127.0.0.1:$port"
    wait_for 10 "curl -s -o /dev/null '$ep_url/health'" || fail "the endpoint $1 did not start"
}
round3_cases="$round3_cases endpoint_audit"
