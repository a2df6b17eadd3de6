# endpoint (issue 28, "A served model, not spawned"): a rung whose server
# graveyard does not start. The fake server is started here, by the test,
# with --api-key, and graveyard runs against it with --url or a config's
# "endpoint": the rows, a kill -9 and its resume, the manifest's record of
# what the endpoint said, the key in no file of the run folder, plain http
# to another machine refused before any connection, and each bad input
# (down, slow, 401, 429 with Retry-After, 5xx, a cut stream, non-JSON, a
# redirect) a named error row, a retry or one clear failure.
# Sourced by tests/integration/cases.sh (lib.sh's helpers).
#
# Tests: orchestrator/input/config_endpoint.c
# Tests: orchestrator/base/endpoint.c
# Tests: orchestrator/run/serve.c
# Tests: orchestrator/run/record.c
# Tests: orchestrator/server/http.c
# Tests: orchestrator/cmd/cmd_audit.c
# Tests: orchestrator/input/redact.c

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

area_cases="$area_cases endpoint_run endpoint_plain_http endpoint_faults endpoint_key_refused endpoint_down_slow endpoint_ladder"

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
area_cases="$area_cases endpoint_audit"

# endpoint (issue 33, round 4): a served model's key echoed back in every
# text graveyard keeps of an endpoint, and kept out of every file; an HTTP
# error with an empty body taken for the status it is; a stream lost
# before its first byte asked again on a fresh connection; a side rung
# served by an endpoint marked not pinned. The fake is started here as an
# endpoint, with ep_start above. Sourced by tests/integration/cases.sh (lib.sh).

# a key with characters JSON and URLs escape
R4_KEY='sk-Ep4/round+4"Zq7wXyZ0123456789abcdEFGH'
# the key's traces, one a line: the key, its JSON-escaped and URL-encoded
# forms, every 10-byte piece of each, its first 20 bytes, the masked forms
# OpenAI echoes (a prefix, "..." or stars, the last four)
r4_key_traces() {
    /usr/bin/python3 - "$R4_KEY" <<'PY'
import json, sys, urllib.parse
k = sys.argv[1]
forms = {k, json.dumps(k)[1:-1], json.dumps(k)[1:-1].replace("/", "\\/"),
         urllib.parse.quote(k, safe=""), urllib.parse.quote(k, safe="").lower()}
out = set(forms) | {k[:20], k[:6] + "..." + k[-4:], k[:6] + "*" * 24 + k[-4:]}
for f in forms:
    out |= {f[i:i + 10] for i in range(len(f) - 9)}
print("\n".join(sorted(out)))
PY
}
# the key in no byte of folder/file $1 (nor in a name)
r4_no_key() { # path what
    local hits
    hits=$(grep -r -a -l -F -f "$work/r4-traces" "$1" 2>/dev/null)
    [ -z "$hits" ] || fail "$2: the key is in $hits: $(grep -r -a -o -h -F -f "$work/r4-traces" "$1" | sort -u | head -5 | tr '\n' ' ')"
    if find "$1" | grep -q -F -f "$work/r4-traces"; then fail "$2: the key is in a file name"; fi
}

# An endpoint that echoes its key everywhere it can: in content and
# reasoning (whole, JSON-escaped, URL-encoded, its tail), a 400's body
# (OpenAI's masked form), a 500's (cut at 20 bytes), a 400 with stars, an
# SSE error event, a 429's body, /props (a member named by the key, a
# value holding it) and /v1/models. A ladder with a local rung and the
# endpoint, its report, and publish's bundle: no trace of the key in any
# byte of the run folder, the report, the bundle unpacked, or stderr.
case_endpoint_key_echoed() {
    local d=$work/r4k
    r4_key_traces >"$work/r4-traces"
    cat >"$work/r4q.jsonl" <<'Q'
{"id": "apples", "question": "Tom has 3 apples and gets 2 more. How many apples?", "answer": "5"}
{"id": "pears", "question": "A box holds 12 pears; 4 are eaten. How many pears are left?", "answer": "8"}
{"id": "plums", "question": "Sam buys 6 bags of 10 plums. How many plums?", "answer": "60"}
{"id": "figs", "question": "Half of 30 figs are ripe. How many figs are ripe?", "answer": "15"}
{"id": "dates", "question": "A tray of 7 dates, 2 trays. How many dates?", "answer": "14"}
{"id": "limes", "question": "9 limes less 4 limes. How many limes?", "answer": "5"}
{"id": "kiwis", "question": "2 kiwis and 2 kiwis. How many kiwis?", "answer": "4"}
Q
    /usr/bin/python3 - "$R4_KEY" "$work/r4echo.gguf" <<'PY'
import json, sys, urllib.parse
k, path = sys.argv[1], sys.argv[2]
masked = k[:6] + "..." + k[-4:]
m = {"fake_llama_server": 1, "decode_tps": 50.0,
     "default": {"content": "Answer: 5"},
     "props_extra": {k: "a member named by the key", "echo": "auth " + k,
                     "hint": "key " + masked, "cut": k[:20]},
     "models_extra": {"owned_by": k, "key_json": json.dumps({"k": k})},
     "replies": [
  {"match": "apples", "content": "Your key " + k + " works.\nAnswer: 5",
   "reasoning": "the header said " + json.dumps({"key": k}).replace("/", "\\/")
                + " and the URL ?key=" + urllib.parse.quote(k, safe="")},
  {"match": "pears", "fault": "http400",
   "message": "Incorrect API key provided: " + masked + ". You can find your API key at https://example.invalid."},
  {"match": "plums", "fault": "http500", "message": "quota exceeded for key " + k[:20]},
  {"match": "figs", "content": "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz", "fault": "error_event",
   "message": "stream failed for " + k},
  {"match": "dates", "fault": "http400", "message": "bad key " + k[:6] + "*" * 24 + k[-4:]},
  {"match": "limes", "content": "it ends in " + k[-14:] + "\nAnswer: 5"},
  {"match": "kiwis", "content": "Answer: 4", "fault": "http429", "times": 1, "retry_after": 0,
   "message": "slow down, " + k}]}
open(path, "w").write(json.dumps(m))
PY
    ep_start r4echo --api-key "$R4_KEY"
    cat >"$work/r4k.json" <<JSON
{"name": "r4k", "questions": "$work/r4q.jsonl", "run_dir": "$d",
 "rungs": [{"name": "L1", "model": "$work/good.gguf"},
           {"name": "EP", "endpoint": {"url": "$ep_url", "api_key_env": "R4_TEST_KEY"}}],
 "server": {"binary": "$FAKE"}}
JSON
    R4_TEST_KEY=$R4_KEY $GT ladder "$work/r4k.json" >"$work/r4k.out" 2>"$work/r4k.err" || fail "ladder: exit $? $(tail -3 "$work/r4k.err")"
    [ "$(rows "$d" EP)" = 7 ] || fail "$(rows "$d" EP) rows, want 7"
    [ "$(field "$d/rows/EP.jsonl" pears error_kind)" = '"http"' ] || fail "400: $(field "$d/rows/EP.jsonl" pears error_kind)"
    field "$d/rows/EP.jsonl" pears error | grep -q "Incorrect API key provided" || fail "400: the message is lost: $(field "$d/rows/EP.jsonl" pears error)"
    field "$d/rows/EP.jsonl" apples content | grep -q "works" || fail "content: lost: $(field "$d/rows/EP.jsonl" apples content)"
    timeout -k 5 60 "$G" report "$d" --out "$work/r4k-report" --no-html >/dev/null 2>>"$work/r4k.err" || fail "report: exit $?"
    timeout -k 5 60 "$G" publish "$d" --out "$work/r4k-pub" --dataset openai/gsm8k >/dev/null 2>>"$work/r4k.err" || fail "publish: exit $? $(tail -2 "$work/r4k.err")"
    mkdir -p "$work/r4k-bundle"
    tar -xzf "$work/r4k-pub/bundle.tar.gz" -C "$work/r4k-bundle" || fail "the bundle does not unpack"
    [ -n "$(find "$work/r4k-bundle" -name 'EP.jsonl')" ] || fail "the bundle holds no EP rows"
    r4_no_key "$d" "run folder"
    r4_no_key "$work/r4k-report" "report"
    r4_no_key "$work/r4k-pub" "publish"
    r4_no_key "$work/r4k-bundle" "bundle"
    r4_no_key "$work/r4k.err" "stderr"
    r4_no_key "$work/r4k.out" "stdout"
    ep_stop
}

# An HTTP error with an empty body, on the chat endpoint: 401 and 403 stop
# the rung (exit 1, one line, no row); 429 is asked again after its
# Retry-After, then answers; 500 an http row with its status; 302 a
# redirect row. Each as the same status with a body does.
case_endpoint_empty_body() {
    local d=$work/r4e st rc
    model r4bare '"default": {"content": "Answer: 5"},
 "replies": [{"match": "apples", "content": "Answer: 5", "fault": "bare", "status": 429, "times": 1, "retry_after": 1},
             {"match": "pears", "fault": "bare", "status": 500},
             {"match": "plums", "fault": "bare", "status": 302}]'
    ep_start r4bare
    $GT run --url "$ep_url" B1 "$work/q.jsonl" "$d" >/dev/null 2>"$work/err" || fail "exit $? $(cat "$work/err")"
    [ "$(field "$d/rows/B1.jsonl" apples right)" = true ] || fail "429: $(field "$d/rows/B1.jsonl" apples error_kind) $(field "$d/rows/B1.jsonl" apples error)"
    grep -q "HTTP 429 (busy); asking again in 1 s" "$work/err" || fail "429: not asked again"
    [ "$(field "$d/rows/B1.jsonl" pears error_kind)" = '"http"' ] && [ "$(field "$d/rows/B1.jsonl" pears http_status)" = 500 ] ||
        fail "500: $(field "$d/rows/B1.jsonl" pears error_kind) status $(field "$d/rows/B1.jsonl" pears http_status)"
    [ "$(field "$d/rows/B1.jsonl" plums error_kind)" = '"redirect"' ] && [ "$(field "$d/rows/B1.jsonl" plums http_status)" = 302 ] ||
        fail "302: $(field "$d/rows/B1.jsonl" plums error_kind) status $(field "$d/rows/B1.jsonl" plums http_status)"
    ep_stop
    for st in 401 403; do
        model "r4bare$st" '"default": {"content": "Answer: 5"}, "replies": [{"match": "pears", "fault": "bare", "status": '$st'}]'
        ep_start "r4bare$st"
        rc=0
        $GT run --url "$ep_url" "K$st" "$work/q.jsonl" "$d" >/dev/null 2>"$work/err" || rc=$?
        [ $rc = 1 ] && grep -q "answered HTTP $st: the key was refused" "$work/err" && [ "$(rows "$d" "K$st")" = 1 ] ||
            fail "$st: exit $rc, $(rows "$d" "K$st") rows: $(tail -2 "$work/err")"
        ep_stop
    done
}

# A stream lost before its first byte, the server up: asked again on a
# fresh connection, a right answer with attempts 2; a stream cut mid-answer
# keeps today's cut row (attempts 1, not asked again); a server that
# always closes before the first byte gives today's cut row after the
# retries (attempts 3). The same for a started rung.
case_endpoint_lost_first_byte() {
    local d=$work/r4l n
    model r4lost '"default": {"content": "Answer: 5"},
 "replies": [{"match": "apples", "content": "3 + 2 = 5\nAnswer: 5", "fault": "close_first", "times": 1},
             {"match": "figs", "content": "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz", "fault": "close"}]'
    model r4never '"default": {"content": "Answer: 5"},
 "replies": [{"match": "pears", "fault": "close_first"}]'
    ep_start r4lost
    $GT run --url "$ep_url" C1 "$work/q.jsonl" "$d" >/dev/null 2>"$work/err" || fail "exit $? $(cat "$work/err")"
    [ "$(field "$d/rows/C1.jsonl" apples right)" = true ] && [ "$(field "$d/rows/C1.jsonl" apples attempts)" = 2 ] ||
        fail "lost once: right $(field "$d/rows/C1.jsonl" apples right), attempts $(field "$d/rows/C1.jsonl" apples attempts), $(field "$d/rows/C1.jsonl" apples error)"
    [ "$(field "$d/rows/C1.jsonl" figs error_kind)" = '"cut"' ] && [ "$(field "$d/rows/C1.jsonl" figs attempts)" = 1 ] ||
        fail "cut mid-answer: $(field "$d/rows/C1.jsonl" figs error_kind), attempts $(field "$d/rows/C1.jsonl" figs attempts)"
    ep_stop
    ep_start r4never
    $GT run --url "$ep_url" C2 "$work/q.jsonl" "$d" >/dev/null 2>"$work/err" || fail "always: exit $? $(cat "$work/err")"
    [ "$(field "$d/rows/C2.jsonl" pears error_kind)" = '"cut"' ] && [ "$(field "$d/rows/C2.jsonl" pears attempts)" = 3 ] ||
        fail "always lost: $(field "$d/rows/C2.jsonl" pears error_kind), attempts $(field "$d/rows/C2.jsonl" pears attempts)"
    # 3 asks of ours, and libcurl may ask again once itself on a
    # kept-alive connection found closed
    n=$(grep -c 'fake: closed before the first byte' "$work/ep-r4never.log")
    [ "$n" -ge 3 ] && [ "$n" -le 4 ] || fail "always lost: $n asks, want 3 (or 4)"
    grep -q "pears: the connection closed before the first byte; asking again on a new one (2 of 2)" "$work/err" || fail "always lost: not said"
    ep_stop
    # a started rung: the same rule
    $GT run C3 "$work/r4lost.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" >/dev/null 2>"$work/err" || fail "started: exit $? $(cat "$work/err")"
    [ "$(field "$d/rows/C3.jsonl" apples right)" = true ] && [ "$(field "$d/rows/C3.jsonl" apples attempts)" = 2 ] ||
        fail "started, lost once: attempts $(field "$d/rows/C3.jsonl" apples attempts), $(field "$d/rows/C3.jsonl" apples error)"
}

# A side rung served by an endpoint: the side table says not pinned, as
# the ladder table does for a chain rung.
case_endpoint_side_unpinned() {
    local d=$work/r4s
    ep_start good
    cat >"$work/r4s.json" <<JSON
{"name": "r4s", "questions": "$work/q.jsonl", "run_dir": "$d",
 "rungs": [{"name": "L1", "model": "$work/good.gguf"}, {"name": "L2", "model": "$work/drift.gguf"}],
 "side_rungs": [{"name": "SEP", "endpoint": {"url": "$ep_url"}}],
 "server": {"binary": "$FAKE"}}
JSON
    $GT ladder "$work/r4s.json" >/dev/null 2>"$work/err" || fail "ladder: exit $? $(tail -3 "$work/err")"
    grep -q "^| SEP | not pinned: the file and build are the server's word |" "$d/REPORT.md" ||
        fail "the side table does not mark SEP: $(grep '^| SEP' "$d/REPORT.md")"
    ep_stop
}

area_cases="$area_cases endpoint_key_echoed endpoint_empty_body endpoint_lost_first_byte endpoint_side_unpinned"

# The same key echoed in an answer's text with logprobs on: the tokens'
# texts in rows/RUNG.probs hold it too (spread over several tokens), and
# none may keep a trace of it; the record still holds every token.
case_endpoint_key_in_probs() {
    local d=$work/r4kp n
    r4_key_traces >"$work/r4-traces"
    /usr/bin/python3 - "$R4_KEY" "$work/r4echop.gguf" <<'PY'
import json, sys
k, path = sys.argv[1], sys.argv[2]
m = {"fake_llama_server": 1, "decode_tps": 50.0,
     "default": {"content": "Answer: 5"},
     "replies": [{"match": "apples", "content": "Your key " + k + " works.\nAnswer: 5"},
                 {"match": "pears", "content": "it ends in " + k[-14:] + "\nAnswer: 8"}]}
open(path, "w").write(json.dumps(m))
PY
    ep_start r4echop --api-key "$R4_KEY"
    cat >"$work/r4kp.json" <<JSON
{"name": "r4kp", "questions": "$work/q.jsonl", "run_dir": "$d", "logprobs": 5,
 "rungs": [{"name": "EPP", "endpoint": {"url": "$ep_url", "api_key_env": "R4_TEST_KEY"}}],
 "server": {"binary": "$FAKE"}}
JSON
    R4_TEST_KEY=$R4_KEY $GT ladder "$work/r4kp.json" >/dev/null 2>"$work/r4kp.err" ||
        fail "ladder: exit $? $(tail -3 "$work/r4kp.err")"
    [ "$(rows "$d" EPP)" = 4 ] || fail "$(rows "$d" EPP) rows, want 4"
    n=$(wc -c <"$d/rows/EPP.probs" 2>/dev/null || echo 0)
    [ "$n" -gt 100 ] || fail "the probs file holds $n bytes"
    r4_no_key "$d" "run folder (probs)"
    # a record's texts sit in a table by token id: the answer rebuilt from
    # its tokens in order, as any reader of the file can
    /usr/bin/python3 "$ROOT/tests/integration/helpers/probs_check.py" texts \
        "$d" EPP >"$work/r4kp.texts" || fail "probs_check: $(tail -1 "$work/r4kp.texts")"
    grep -a -q "works" "$work/r4kp.texts" || fail "the tokens' texts are not the answer's: $(head -c 300 "$work/r4kp.texts")"
    r4_no_key "$work/r4kp.texts" "the probs file's tokens"
    r4_no_key "$work/r4kp.err" "stderr"
    ep_stop
}
area_cases="$area_cases endpoint_key_in_probs"
