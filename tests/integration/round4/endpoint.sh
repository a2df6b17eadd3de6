# endpoint (issue 33, round 4): a served model's key echoed back in every
# text graveyard keeps of an endpoint, and kept out of every file; an HTTP
# error with an empty body taken for the status it is; a stream lost
# before its first byte asked again on a fresh connection; a side rung
# served by an endpoint marked not pinned. The fake is started here as an
# endpoint, as in round3/endpoint.sh. Sourced by round4.sh (lib.sh).

# a key with characters JSON and URLs escape
R4_KEY='sk-Ep4/round+4"Zq7wXyZ0123456789abcdEFGH'
r4_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# the fake on model NAME as an endpoint: sets r4_pid, r4_url
r4_start() { # name [extra args...]
    local name=$1 port; shift
    port=$(r4_port)
    "$FAKE" -m "$work/$name.gguf" --host 127.0.0.1 --port "$port" "$@" >"$work/r4-$name.log" 2>&1 &
    r4_pid=$!
    r4_url="http://127.0.0.1:$port"
    wait_for 10 "curl -s -o /dev/null '$r4_url/health'" || fail "the endpoint $name did not start"
}
r4_stop() { kill "$r4_pid" 2>/dev/null; wait "$r4_pid" 2>/dev/null; }

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
    r4_start r4echo --api-key "$R4_KEY"
    cat >"$work/r4k.json" <<JSON
{"name": "r4k", "questions": "$work/r4q.jsonl", "run_dir": "$d",
 "rungs": [{"name": "L1", "model": "$work/good.gguf"},
           {"name": "EP", "endpoint": {"url": "$r4_url", "api_key_env": "R4_TEST_KEY"}}],
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
    r4_stop
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
    r4_start r4bare
    $GT run --url "$r4_url" B1 "$work/q.jsonl" "$d" >/dev/null 2>"$work/err" || fail "exit $? $(cat "$work/err")"
    [ "$(field "$d/rows/B1.jsonl" apples right)" = true ] || fail "429: $(field "$d/rows/B1.jsonl" apples error_kind) $(field "$d/rows/B1.jsonl" apples error)"
    grep -q "HTTP 429 (busy); asking again in 1 s" "$work/err" || fail "429: not asked again"
    [ "$(field "$d/rows/B1.jsonl" pears error_kind)" = '"http"' ] && [ "$(field "$d/rows/B1.jsonl" pears http_status)" = 500 ] ||
        fail "500: $(field "$d/rows/B1.jsonl" pears error_kind) status $(field "$d/rows/B1.jsonl" pears http_status)"
    [ "$(field "$d/rows/B1.jsonl" plums error_kind)" = '"redirect"' ] && [ "$(field "$d/rows/B1.jsonl" plums http_status)" = 302 ] ||
        fail "302: $(field "$d/rows/B1.jsonl" plums error_kind) status $(field "$d/rows/B1.jsonl" plums http_status)"
    r4_stop
    for st in 401 403; do
        model "r4bare$st" '"default": {"content": "Answer: 5"}, "replies": [{"match": "pears", "fault": "bare", "status": '$st'}]'
        r4_start "r4bare$st"
        rc=0
        $GT run --url "$r4_url" "K$st" "$work/q.jsonl" "$d" >/dev/null 2>"$work/err" || rc=$?
        [ $rc = 1 ] && grep -q "answered HTTP $st: the key was refused" "$work/err" && [ "$(rows "$d" "K$st")" = 1 ] ||
            fail "$st: exit $rc, $(rows "$d" "K$st") rows: $(tail -2 "$work/err")"
        r4_stop
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
    r4_start r4lost
    $GT run --url "$r4_url" C1 "$work/q.jsonl" "$d" >/dev/null 2>"$work/err" || fail "exit $? $(cat "$work/err")"
    [ "$(field "$d/rows/C1.jsonl" apples right)" = true ] && [ "$(field "$d/rows/C1.jsonl" apples attempts)" = 2 ] ||
        fail "lost once: right $(field "$d/rows/C1.jsonl" apples right), attempts $(field "$d/rows/C1.jsonl" apples attempts), $(field "$d/rows/C1.jsonl" apples error)"
    [ "$(field "$d/rows/C1.jsonl" figs error_kind)" = '"cut"' ] && [ "$(field "$d/rows/C1.jsonl" figs attempts)" = 1 ] ||
        fail "cut mid-answer: $(field "$d/rows/C1.jsonl" figs error_kind), attempts $(field "$d/rows/C1.jsonl" figs attempts)"
    r4_stop
    r4_start r4never
    $GT run --url "$r4_url" C2 "$work/q.jsonl" "$d" >/dev/null 2>"$work/err" || fail "always: exit $? $(cat "$work/err")"
    [ "$(field "$d/rows/C2.jsonl" pears error_kind)" = '"cut"' ] && [ "$(field "$d/rows/C2.jsonl" pears attempts)" = 3 ] ||
        fail "always lost: $(field "$d/rows/C2.jsonl" pears error_kind), attempts $(field "$d/rows/C2.jsonl" pears attempts)"
    # 3 asks of ours, and libcurl may ask again once itself on a
    # kept-alive connection found closed
    n=$(grep -c 'fake: closed before the first byte' "$work/r4-r4never.log")
    [ "$n" -ge 3 ] && [ "$n" -le 4 ] || fail "always lost: $n asks, want 3 (or 4)"
    grep -q "pears: the connection closed before the first byte; asking again on a new one (2 of 2)" "$work/err" || fail "always lost: not said"
    r4_stop
    # a started rung: the same rule
    $GT run C3 "$work/r4lost.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" >/dev/null 2>"$work/err" || fail "started: exit $? $(cat "$work/err")"
    [ "$(field "$d/rows/C3.jsonl" apples right)" = true ] && [ "$(field "$d/rows/C3.jsonl" apples attempts)" = 2 ] ||
        fail "started, lost once: attempts $(field "$d/rows/C3.jsonl" apples attempts), $(field "$d/rows/C3.jsonl" apples error)"
}

# A side rung served by an endpoint: the side table says not pinned, as
# the ladder table does for a chain rung.
case_endpoint_side_unpinned() {
    local d=$work/r4s
    r4_start good
    cat >"$work/r4s.json" <<JSON
{"name": "r4s", "questions": "$work/q.jsonl", "run_dir": "$d",
 "rungs": [{"name": "L1", "model": "$work/good.gguf"}, {"name": "L2", "model": "$work/drift.gguf"}],
 "side_rungs": [{"name": "SEP", "endpoint": {"url": "$r4_url"}}],
 "server": {"binary": "$FAKE"}}
JSON
    $GT ladder "$work/r4s.json" >/dev/null 2>"$work/err" || fail "ladder: exit $? $(tail -3 "$work/err")"
    grep -q "^| SEP | not pinned: the file and build are the server's word |" "$d/REPORT.md" ||
        fail "the side table does not mark SEP: $(grep '^| SEP' "$d/REPORT.md")"
    r4_stop
}

round4_cases="$round4_cases endpoint_key_echoed endpoint_empty_body endpoint_lost_first_byte endpoint_side_unpinned"

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
    r4_start r4echop --api-key "$R4_KEY"
    cat >"$work/r4kp.json" <<JSON
{"name": "r4kp", "questions": "$work/q.jsonl", "run_dir": "$d", "logprobs": 5,
 "rungs": [{"name": "EPP", "endpoint": {"url": "$r4_url", "api_key_env": "R4_TEST_KEY"}}],
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
    /usr/bin/python3 "$ROOT/tests/integration/round3/probs_check.py" texts \
        "$d" EPP >"$work/r4kp.texts" || fail "probs_check: $(tail -1 "$work/r4kp.texts")"
    grep -a -q "works" "$work/r4kp.texts" || fail "the tokens' texts are not the answer's: $(head -c 300 "$work/r4kp.texts")"
    r4_no_key "$work/r4kp.texts" "the probs file's tokens"
    r4_no_key "$work/r4kp.err" "stderr"
    r4_stop
}
round4_cases="$round4_cases endpoint_key_in_probs"
