# shellcheck shell=bash
# Issue 36's foundation, long contexts: a question file of long items of
# the user's own ({"id", "prompt", "answers": [...]}, RULER's or
# LongBench's shape) run with the built-in task `ruler` on the fake
# server, each row graded by lm-eval's RULER scorers (ruler-all, every
# expected string; ruler-part, one of them) with the share kept; and a
# bad "answers" list refused before anything is made, naming file and
# line.
# Sourced by tests/integration/cases.sh (lib.sh's helpers).
#
# Tests: orchestrator/input/questions.c
# Tests: orchestrator/input/taskfile.c
# Tests: grader/ruler.c

# three items: all strings said, one of two, none
longctx_items() {
    local filler
    filler=$(printf 'The quiet harbor carried the lantern near the station. %.0s' $(seq 300))
    cat >"$work/long.jsonl" <<Q
{"id": "niah-0", "prompt": "$filler One of the special magic numbers for alpha-key is: 1111111. $filler What is the special magic number for alpha-key?", "answers": ["1111111"]}
{"id": "niah-1", "prompt": "$filler beta-key is: 2222222 and 3333333. What are all the special magic numbers for beta-key?", "answers": ["2222222", "3333333"]}
{"id": "vt-2", "question": "$filler VAR QWERT = 12345 VAR ASDFG = VAR QWERT. Find all variables assigned 12345.", "outputs": ["QWERT", "ASDFG"]}
Q
}

case_longctx_ruler_task() {
    local d=$work/lc
    longctx_items
    model ruler '"default": {"content": "I could not find it."},
 "replies": [{"match": "alpha-key", "content": "The special magic number is 1111111."},
             {"match": "beta-key", "content": "It is 2222222, I think."}]'
    rm -rf "$d"
    $GT run R1 "$work/ruler.gguf" "$work/long.jsonl" "$d" --llama "$FAKE" \
        --task ruler --quiet >/dev/null 2>"$work/err" || fail "run: exit $? $(cat "$work/err")"
    [ "$(rows "$d" R1)" = 3 ] || { fail "$(rows "$d" R1) rows"; return; }
    /usr/bin/python3 - "$d/rows/R1.jsonl" >"$work/lc-grades" <<'PY' || fail "rows: $(cat "$work/lc-grades")"
import json, sys
want = {"niah-0": ("1/1", True, "1/1", True),
        "niah-1": ("1/2", False, "1/2", True),
        "vt-2": ("0/2", False, "0/2", False)}
for line in open(sys.argv[1]):
    r = json.loads(line)
    g = r["grades"] if "grades" in r else r
    a, p = g["ruler-all"], g["ruler-part"]
    got = (a["extracted"], a["right"], p["extracted"], p["right"])
    if got != want[r["id"]]:
        print(r["id"], got, "want", want[r["id"]], line[:400])
        sys.exit(1)
PY
    grep -q '"reference":"2222222\\n3333333"' "$d/rows/R1.jsonl" ||
        fail "the reference of niah-1: $(grep niah-1 "$d/rows/R1.jsonl" | head -c 400)"
}
area_cases="$area_cases longctx_ruler_task"

# A bad "answers" list: exit 2, one line naming the file and line, and no
# run folder made.
case_longctx_bad_answers() {
    local d=$work/lcbad rc=0
    model ruler '"default": {"content": "x"}'
    printf '{"id": "a", "prompt": "p", "answers": ["1"]}\n{"id": "b", "prompt": "p", "answers": "2"}\n' >"$work/bad.jsonl"
    rm -rf "$d"
    $GT run R1 "$work/ruler.gguf" "$work/bad.jsonl" "$d" --llama "$FAKE" \
        --task ruler --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] || fail "exit $rc, want 2: $(cat "$work/err")"
    grep -q "bad.jsonl:2: \"answers\" must be a list of 1 to 32 strings" "$work/err" ||
        fail "message: $(cat "$work/err")"
    [ ! -e "$d" ] || fail "a run folder was made: $(ls "$d")"
}
area_cases="$area_cases longctx_bad_answers"

# A task file of one's own over long items: "reference": "answers" and a
# RULER rule, recorded in the manifest as given; a rule that reads one
# answer on such a task refused with exit 2, naming the task and rule.
case_longctx_task_file() {
    local d=$work/lctf rc=0
    longctx_items
    model ruler '"default": {"content": "I could not find it."},
 "replies": [{"match": "beta-key", "content": "It is 2222222, I think."}]'
    printf '{"name": "my-long", "reference": "answers", "prompt": "{question}",
 "rules": [{"name": "any", "kind": "ruler-part"}]}\n' >"$work/my-long.json"
    rm -rf "$d"
    $GT run R1 "$work/ruler.gguf" "$work/long.jsonl" "$d" --llama "$FAKE" \
        --task "$work/my-long.json" --quiet >/dev/null 2>"$work/err" || fail "run: exit $? $(cat "$work/err")"
    [ "$(field "$d/rows/R1.jsonl" niah-1 right)" = true ] ||
        fail "niah-1 by ruler-part: $(grep niah-1 "$d/rows/R1.jsonl" | head -c 400)"
    [ "$(field "$d/rows/R1.jsonl" niah-1 extracted)" = '"1/2"' ] ||
        fail "niah-1's share: $(field "$d/rows/R1.jsonl" niah-1 extracted)"
    grep -q '"reference": "answers"' "$d/manifest.json" ||
        fail "manifest: $(grep -A3 '"task"' "$d/manifest.json" | head -c 400)"
    printf '{"name": "mixed", "reference": "answers", "prompt": "{question}",
 "rules": [{"name": "num", "kind": "answer-line"}]}\n' >"$work/mixed.json"
    rm -rf "$d.2"
    $GT run R1 "$work/ruler.gguf" "$work/long.jsonl" "$d.2" --llama "$FAKE" \
        --task "$work/mixed.json" --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] || fail "a number rule on lists: exit $rc, want 2"
    grep -q "task 'mixed': rule 'num' reads one answer, not a list" "$work/err" ||
        fail "message: $(cat "$work/err")"
    [ ! -e "$d.2" ] || fail "a run folder was made for the refused task"
}
area_cases="$area_cases longctx_task_file"

# Length as an axis (issue 36), end to end on the fake: `graveyard long`
# fits RULER-shaped items to 1K and 4K tokens by the fake's /tokenize; a
# ladder of three rungs asks them (the reference and a twin answer every
# needle; the third, a cliff at 3,000 tokens, answers wrong past it); the
# rows carry length, depth, seed and fill and no prompt; the report finds
# the cliff at 4,096 and nowhere else, says the twin is equivalent at both
# lengths, and counts the lost needles by depth; lengths.svg colours each
# cell by its verdict and frames the cliff, and the page shows it.
# Tests: orchestrator/cmd/cmd_long.c
# Tests: orchestrator/input/longitem.c
# Tests: orchestrator/server/tokenize.c
# Tests: report/md_lengths.c
# Tests: report/lengths_svg.c
# Tests: grader/lengths.c
case_longctx_cliff_ladder() {
    local d=$work/lcl
    model lclref '"needles": true, "default": {"content": "I do not know."}'
    model lcltwin '"needles": true, "decode_tps": 60.0, "default": {"content": "I do not know."}'
    model lclcliff '"needles": true, "cliff": {"tokens": 3000, "mode": "wrong"},
 "default": {"content": "I do not know."}'
    lc_start lclref
    rm -f "$work/lcl.jsonl"
    timeout -k 5 60 $GT long --tokenize "$lc_url" --lengths 1K,4096 \
        --kinds niah-single,niah-multikey --items 80 --out "$work/lcl.jsonl" \
        >"$work/lcl.out" 2>&1 || fail "long: exit $? $(cat "$work/lcl.out")"
    lc_stop
    [ "$(wc -l <"$work/lcl.jsonl")" = 320 ] || { fail "$(wc -l <"$work/lcl.jsonl") items"; return; }
    cat >"$work/lcl.json" <<JSON
{"name": "long cliff", "questions": "$work/lcl.jsonl", "run_dir": "$d",
 "task": "ruler", "ctx": 8192, "server": {"binary": "$FAKE"},
 "rungs": [{"name": "REF", "model": "$work/lclref.gguf"},
           {"name": "TWIN", "model": "$work/lcltwin.gguf"},
           {"name": "CLIFF", "model": "$work/lclcliff.gguf"}]}
JSON
    rm -rf "$d"
    timeout -k 5 240 $GT ladder "$work/lcl.json" --quiet >"$work/lcl.out" 2>&1 ||
        { fail "ladder: exit $? $(tail -5 "$work/lcl.out")"; return; }
    LC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd) \
    /usr/bin/python3 - "$d" >"$work/lcl-check" 2>&1 <<'PY' || fail "$(cat "$work/lcl-check")"
import json, sys
d = sys.argv[1]
rep = json.load(open(f"{d}/report.json"))
L = rep["lengths"]
assert L["lengths"] == [1024, 4096], L["lengths"]
r = {x["rung"]: x for x in L["rungs"]}
assert r["CLIFF"]["first_worse"] == 4096, r["CLIFF"]
assert r["CLIFF"]["first_not_equivalent"] == 4096, r["CLIFF"]
assert r["TWIN"]["first_not_equivalent"] is None, r["TWIN"]
assert r["TWIN"]["first_worse"] is None, r["TWIN"]
c = r["CLIFF"]["cells"]
assert c[0]["dead"] == 0 and c[0]["verdict"] == "equivalent", c[0]
assert c[1]["dead"] == 160 and c[1]["verdict"] == "worse", c[1]
assert sum(L["depth"]["dead"]["CLIFF"]) == 160, L["depth"]
assert sum(L["depth"]["asked"]) == 320, L["depth"]
assert L["items"] == 160 and L["items_first_dead_at"]["CLIFF"] == [0, 160], L
assert L["items_first_dead_at"]["TWIN"] == [0, 0], L
assert all(t["length"] == 4096 and t["died_at"] == "CLIFF" for t in rep["tombstones"]), rep["tombstones"][:2]
import re
svg = open(f"{d}/lengths.svg").read()
cells = re.findall(r'<rect data-rung="(\d+)" data-length="(\d+)" data-verdict="([^"]+)"[^>]*stroke-width="(\d)"', svg)
assert len(cells) == 6, cells
names = [x["rung"] for x in L["rungs"]]
for i, k, verdict, width in cells:
    want = L["rungs"][int(i)]["cells"][int(k)]["verdict"] or "the reference"
    assert verdict == want, (names[int(i)], k, verdict, want)
    cliff = L["rungs"][int(i)]["first_worse"] == L["lengths"][int(k)]
    assert (width == "3") == cliff, (names[int(i)], k, width)
html = open(f"{d}/REPORT.html").read()
assert html.count('data-verdict="') == 6, "the page does not show lengths.svg"
assert "](lengths.svg)" in open(f"{d}/REPORT.md").read()
import os, jsonschema
root = os.environ["LC_ROOT"]
for doc, name in ((rep, "report"), (json.load(open(f"{d}/graveyard.json")), "graveyard")):
    jsonschema.Draft202012Validator(json.load(open(f"{root}/schemas/{name}.schema.json"))).validate(doc)
for line in open(f"{d}/rows/CLIFF.jsonl"):
    row = json.loads(line)
    assert row["length"] in (1024, 4096) and "fill" in row and row["seed"] == 1, row
    assert row["id"].endswith("@%d" % row["length"]), row["id"]
    assert row["prompt_tokens"] > 0.9 * row["length"], row
    assert len(line) < 2000, len(line)  # the prompt is never in the row
md = open(f"{d}/REPORT.md").read()
assert "## Length: where each rung's answers die" in md
sec = md.split("## Length: where each rung's answers die")[1].split("\n## ")[0]
row = [x for x in sec.splitlines() if x.startswith("| CLIFF |")][0]
assert row.endswith("| 4,096 tokens (worse, by \u2265 96.7) | 4,096 tokens |"), row
PY
}
area_cases="$area_cases longctx_cliff_ladder"

# The depth view as a picture (issue 36): a rung whose cliff at 3,000
# tokens spares the needles in the first and last 30 % of the prompt
# (the fake's cliff_depth) loses, at 4,096 tokens, the middle tenths'
# needles and none at either end, and none at 1,024; depth.svg has a row
# for it at each length (none for the reference), each cell its dead of
# those it answered, the two lengths' cells summing to report.json's
# depth table, and the page shows it inline under lengths.svg.
# Tests: report/depth_svg.c
# Tests: orchestrator/figures/figures_report.c
case_longctx_depth_picture() {
    local d=$work/lcd
    model lcdref '"needles": true, "default": {"content": "I do not know."}'
    model lcdmid '"needles": true, "cliff": {"tokens": 3000, "mode": "wrong",
 "cliff_depth": 30}, "default": {"content": "I do not know."}'
    lc_start lcdref
    rm -f "$work/lcd.jsonl"
    timeout -k 5 60 $GT long --tokenize "$lc_url" --lengths 1K,4096 \
        --kinds niah-single --items 40 --out "$work/lcd.jsonl" \
        >"$work/lcd.out" 2>&1 || fail "long: exit $? $(cat "$work/lcd.out")"
    lc_stop
    cat >"$work/lcd.json" <<JSON
{"name": "long depth", "questions": "$work/lcd.jsonl", "run_dir": "$d",
 "task": "ruler", "ctx": 8192, "server": {"binary": "$FAKE"},
 "rungs": [{"name": "REF", "model": "$work/lcdref.gguf"},
           {"name": "MID", "model": "$work/lcdmid.gguf"}]}
JSON
    rm -rf "$d"
    timeout -k 5 180 $GT ladder "$work/lcd.json" --quiet >"$work/lcd.out" 2>&1 ||
        { fail "ladder: exit $? $(tail -5 "$work/lcd.out")"; return; }
    /usr/bin/python3 - "$d" >"$work/lcd-check" 2>&1 <<'PY' || fail "$(cat "$work/lcd-check")"
import json, sys, xml.etree.ElementTree as ET
d = sys.argv[1]
L = json.load(open(f"{d}/report.json"))["lengths"]
assert L["lengths"] == [1024, 4096], L["lengths"]
S = "{http://www.w3.org/2000/svg}"
cells = {}
for g in ET.parse(f"{d}/depth.svg").getroot().iter(S + "g"):
    if "data-bin" in g.attrib:
        key = (int(g.get("data-rung")), int(g.get("data-length")), int(g.get("data-bin")))
        cells[key] = (int(g.get("data-dead", -1)), int(g.get("data-answered", 0)))
assert sorted({k[:2] for k in cells}) == [(1, 0), (1, 1)], sorted(cells)
assert len(cells) == 20, len(cells)
asked, dead = L["depth"]["asked"], L["depth"]["dead"]["MID"]
for b in range(10):
    short, long = cells[1, 0, b], cells[1, 1, b]
    assert short[0] in (0, -1), ("1,024", b, short)
    assert short[1] + long[1] == asked[b], (b, short, long, asked[b])
    assert max(long[0], 0) == dead[b], (b, long, dead[b])
assert cells[1, 1, 0][0] == 0 and cells[1, 1, 9][0] == 0, (cells[1, 1, 0], cells[1, 1, 9])
for b in (4, 5):
    assert cells[1, 1, b][0] == cells[1, 1, b][1] > 0, (b, cells[1, 1, b])
html = open(f"{d}/REPORT.html").read()
assert html.count('data-bin="') == 20, "the page does not show depth.svg"
assert html.find('data-verdict="') < html.find('data-bin="'), "depth.svg above lengths.svg"
md = open(f"{d}/REPORT.md").read()
assert "](depth.svg)" in md.split("## Where the lost needles sat")[1], "not in REPORT.md"
PY
}
area_cases="$area_cases longctx_depth_picture"

# graveyard long's bad input: one line each, exit 2 (a count the server
# cannot make: exit 1), and nothing written.
case_longctx_long_bad_input() {
    local out=$work/lcb.jsonl rc bad
    model lclref '"needles": true, "default": {"content": "I do not know."}'
    model lclnotok '"tokenize": false, "default": {"content": "x"}'
    lc_start lclref
    for bad in 0 -1 abc 16777217 1K,1K ""; do
        rc=0
        timeout -k 5 30 $GT long --tokenize "$lc_url" --lengths "$bad" --out "$out" \
            >/dev/null 2>"$work/err" || rc=$?
        [ $rc = 2 ] && [ "$(wc -l <"$work/err")" = 1 ] && grep -q -- "--lengths" "$work/err" ||
            fail "--lengths '$bad': exit $rc $(cat "$work/err")"
    done
    rc=0 # a needle longer than the length: cwe's list does not fit 512
    timeout -k 5 30 $GT long --tokenize "$lc_url" --lengths 512 --kinds cwe --out "$out" \
        >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "a needle longer than the length" "$work/err" ||
        fail "cwe at 512: exit $rc $(cat "$work/err")"
    rc=0
    timeout -k 5 30 $GT long --tokenize "$lc_url" --lengths 1K --kinds nope --out "$out" \
        >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "no kind 'nope'" "$work/err" || fail "--kinds nope: exit $rc $(cat "$work/err")"
    lc_stop
    rc=0 # nothing listens there any more
    timeout -k 5 30 $GT long --tokenize "$lc_url" --lengths 1K --out "$out" \
        >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 1 ] && grep -q "cannot count tokens at '$lc_url/tokenize'" "$work/err" ||
        fail "no server: exit $rc $(cat "$work/err")"
    lc_start lclnotok
    rc=0
    timeout -k 5 30 $GT long --tokenize "$lc_url" --lengths 1K --out "$out" \
        >/dev/null 2>"$work/err" || rc=$?
    lc_stop
    [ $rc = 1 ] && grep -q "HTTP 404: this server has no /tokenize" "$work/err" ||
        fail "no /tokenize: exit $rc $(cat "$work/err")"
    [ ! -e "$out" ] || fail "a file was written: $(head -c 200 "$out")"
    rc=0 # a link where the file goes: refused before any count, untouched
    printf 'keep\n' >"$work/lcb-target"
    ln -sf "$work/lcb-target" "$work/lcb-link.jsonl"
    timeout -k 5 30 $GT long --tokenize http://127.0.0.1:1 --lengths 1K \
        --out "$work/lcb-link.jsonl" --force >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "is a symbolic link" "$work/err" &&
        [ "$(cat "$work/lcb-target")" = keep ] || fail "a link as --out: exit $rc $(cat "$work/err")"
}
area_cases="$area_cases longctx_long_bad_input"

# The server's context and a long question file (issue 36), before any
# server starts: no "ctx" given, each rung's -c is raised to hold the
# longest prompt (the 4,096-token items as the server counted them, a few
# under), the chat template's 256 and the token cap (ruler's 128), rounded
# up to 4,608; a "ctx" of 2,048
# given is refused, naming the rung and what would hold it; a GGUF that
# says it was trained on 4,096 tokens is refused, unless the rung asks for
# RoPE scaling.
# Tests: orchestrator/input/longitem.c
# Tests: orchestrator/run/runplan.c
# Tests: weights/gguf.c
case_longctx_ctx_sized() {
    local d=$work/lcs rc
    model lclref '"needles": true, "default": {"content": "I do not know."}'
    lc_start lclref
    rm -f "$work/lcs.jsonl"
    timeout -k 5 60 $GT long --tokenize "$lc_url" --lengths 1K,4096 --kinds niah-single \
        --items 3 --out "$work/lcs.jsonl" >"$work/lcs.out" 2>&1 || fail "long: $(cat "$work/lcs.out")"
    lc_stop
    lcs_config() { # name ctx-json model extra
        cat >"$work/$1.json" <<JSON
{"name": "$1", "questions": "$work/lcs.jsonl", "run_dir": "$work/$1", "task": "ruler",
 $2 "server": {"binary": "$FAKE"},
 "rungs": [{"name": "A", "model": "$3"}, {"name": "B", "model": "$3"$4}]}
JSON
    }
    lcs_config lcs1 "" "$work/lclref.gguf" ""
    rm -rf "$work/lcs1"
    timeout -k 5 120 $GT ladder "$work/lcs1.json" --quiet >"$work/lcs.out" 2>&1 ||
        { fail "ladder: exit $? $(tail -3 "$work/lcs.out")"; return; }
    grep -q "fake: n_ctx 4608" "$work/lcs1/logs/A.server.log" ||
        fail "the server's -c: $(grep -h 'n_ctx' "$work/lcs1/logs/A.server.log" | head -2)"
    lcs_config lcs2 '"ctx": 2048,' "$work/lclref.gguf" ""
    rc=0
    timeout -k 5 60 $GT ladder "$work/lcs2.json" --quiet >"$work/lcs.out" 2>&1 || rc=$?
    [ $rc = 2 ] && grep -q "rung A: ctx 2048 cannot hold .*longest prompt (40[0-9][0-9] tokens) with the token cap (128) .*give ctx 44[0-9][0-9] or more" "$work/lcs.out" ||
        fail "ctx 2048: exit $rc $(tail -3 "$work/lcs.out")"
    [ ! -e "$work/lcs2/rows/A.jsonl" ] || fail "a rung ran with ctx 2048"
    printf '{"fake_llama_server": 1, "needles": true, "default": {"content": "x"}}\n' >"$work/lcs-script.json"
    "$build/fake-gguf" "$work/lcs-script.json" "$work/lcs4k.gguf" demo 4096 || fail "fake-gguf"
    lcs_config lcs3 "" "$work/lcs4k.gguf" ""
    rc=0
    timeout -k 5 60 $GT ladder "$work/lcs3.json" --quiet >"$work/lcs.out" 2>&1 || rc=$?
    [ $rc = 2 ] && grep -q "is past what '$work/lcs4k.gguf' was trained on (context_length 4096)" "$work/lcs.out" ||
        fail "trained on 4,096: exit $rc $(tail -3 "$work/lcs.out")"
    [ ! -e "$work/lcs3/rows/A.jsonl" ] || fail "a rung ran past its trained context"
    lcs_config lcs4 "" "$work/lcs4k.gguf" ', "server_args": ["--rope-scaling", "yarn"]'
    rc=0
    timeout -k 5 60 $GT ladder "$work/lcs4.json" --quiet >"$work/lcs.out" 2>&1 || rc=$?
    [ $rc = 2 ] && grep -q "rung A: .*trained on" "$work/lcs.out" && ! grep -q "rung B:" "$work/lcs.out" ||
        fail "RoPE scaling on B: exit $rc $(tail -3 "$work/lcs.out")"
}
area_cases="$area_cases longctx_ctx_sized"

# A long ladder killed mid-night (SIGKILL to its whole process group) and
# run again: it resumes, asking only what has no row, each prompt made
# again from its recipe; no question is answered twice, and the report's
# length tables are a clean run's, figure for figure.
# Tests: orchestrator/input/longitem.c
case_longctx_resume() {
    local d=$work/lcr c=$work/lcrc pid
    model lcrref '"needles": true, "token_ms": 20, "default": {"content": "no"}'
    model lcrcliff '"needles": true, "token_ms": 20, "cliff": {"tokens": 3000, "mode": "wrong"},
 "default": {"content": "no"}'
    lc_start lcrref
    rm -f "$work/lcr.jsonl"
    timeout -k 5 60 $GT long --tokenize "$lc_url" --lengths 1K,4K --kinds niah-single,vt \
        --items 8 --out "$work/lcr.jsonl" >"$work/lcr.out" 2>&1 || fail "long: $(cat "$work/lcr.out")"
    lc_stop
    for name in lcr lcrc; do
        cat >"$work/$name.json" <<JSON
{"name": "long resume", "questions": "$work/lcr.jsonl", "run_dir": "$work/$name", "task": "ruler",
 "server": {"binary": "$FAKE"},
 "rungs": [{"name": "REF", "model": "$work/lcrref.gguf"}, {"name": "CLIFF", "model": "$work/lcrcliff.gguf"}]}
JSON
    done
    rm -rf "$d" "$c"
    setsid $G ladder "$work/lcr.json" --quiet >/dev/null 2>&1 &
    pid=$!
    wait_for 60 "[ \$(cat '$d'/rows/*.jsonl 2>/dev/null | wc -l) -ge 12 ]" || fail "no rows came"
    kill -KILL -- -$pid 2>/dev/null
    wait $pid 2>/dev/null
    no_servers_within 5 || fail "a server outlived the killed ladder"
    timeout -k 5 180 $G ladder "$work/lcr.json" --quiet >"$work/lcr.out" 2>&1 ||
        { fail "resume: exit $? $(tail -3 "$work/lcr.out")"; return; }
    timeout -k 5 180 $G ladder "$work/lcrc.json" --quiet >"$work/lcrc.out" 2>&1 ||
        { fail "clean: exit $? $(tail -3 "$work/lcrc.out")"; return; }
    /usr/bin/python3 - "$d" "$c" >"$work/lcr-check" 2>&1 <<'PY' || fail "$(cat "$work/lcr-check")"
import json, sys
d, c = sys.argv[1:]
for rung in ("REF", "CLIFF"):
    ids = [json.loads(l)["id"] for l in open(f"{d}/rows/{rung}.jsonl")]
    assert len(ids) == 32 and len(set(ids)) == 32, (rung, len(ids), len(set(ids)))
a = json.load(open(f"{d}/report.json"))["lengths"]
b = json.load(open(f"{c}/report.json"))["lengths"]
assert a == b, (a, b)
PY
}
area_cases="$area_cases longctx_resume"

# A config's "lengths" (issue 36): the ladder makes its long items itself,
# before its first rung, counted in a server of the ladder's smallest
# model file started for it (-c 2048, -ngl 0, --no-warmup, its log in
# logs/long.tokenizer.log) and stopped; the items land in the run folder's
# long.jsonl, graded by ruler without "task" said, and the cliff is found
# where it is. Run again, the file is reused, not made again; a config
# whose "long" changed since is refused naming the line; `graveyard long
# --config` writes the same bytes. Killed while counting (SIGKILL to the
# ladder's group), no server is left, nothing half-written.
# Tests: orchestrator/cmd/cmd_long.c
# Tests: orchestrator/input/config_long.c
# Tests: orchestrator/server/tokenize.c
# Tests: orchestrator/cmd/cmd_ladder.c
# Tests: orchestrator/run/runplan.c
case_longctx_lengths_config() {
    local d=$work/llc rc sum pid
    model llcref '"needles": true, "default": {"content": "I do not know."}'
    model llccliff '"needles": true, "cliff": {"tokens": 3000, "mode": "wrong"}, "decode_tps": 49.0,
 "default": {"content": "I do not know."}'
    llc_config() { # file items
        cat >"$1" <<JSON
{"name": "long config", "run_dir": "$d", "server": {"binary": "$FAKE"},
 "lengths": [1024, "4K"], "long": {"kinds": ["niah-single", "vt"], "items": $2, "seed": 7},
 "rungs": [{"name": "REF", "model": "$work/llcref.gguf"},
           {"name": "CLIFF", "model": "$work/llccliff.gguf"}]}
JSON
    }
    llc_config "$work/llc.json" 6
    rm -rf "$d"
    rc=0 # a rung run alone before the items are made: told how to make them
    timeout -k 5 30 $GT run --config "$work/llc.json" --rung REF >"$work/llc.out" 2>&1 || rc=$?
    [ $rc = 2 ] && grep -q "long items of its \"lengths\" are not made yet .*'graveyard ladder " "$work/llc.out" ||
        fail "run before the items: exit $rc $(cat "$work/llc.out")"
    timeout -k 5 180 $GT ladder "$work/llc.json" --quiet >"$work/llc.out" 2>&1 ||
        { fail "ladder: exit $? $(tail -5 "$work/llc.out")"; return; }
    no_servers_within 5 || fail "a server outlived the ladder"
    grep -q "long: counting in a server of rung REF" "$work/llc.out" ||
        fail "not counted in the smaller file's server: $(grep long: "$work/llc.out")"
    grep -q -- "-c 2048 .*--no-warmup\|--no-warmup.*-c 2048" "$d/logs/long.tokenizer.log" ||
        grep -q "fake: n_ctx 2048" "$d/logs/long.tokenizer.log" ||
        fail "the counting server's log: $(head -c 300 "$d/logs/long.tokenizer.log")"
    /usr/bin/python3 - "$d" >"$work/llc-check" 2>&1 <<'PY' || fail "$(cat "$work/llc-check")"
import json, sys
d = sys.argv[1]
items = [json.loads(l) for l in open(f"{d}/long.jsonl")]
assert len(items) == 24, len(items)
want = [f"{k}-{i}@{n}" for n in (1024, 4096) for k in ("niah-single", "vt") for i in range(6)]
assert [x["id"] for x in items] == want, [x["id"] for x in items][:4]
assert all(x["long"]["seed"] == 7 for x in items)
assert all(0.95 * x["long"]["length"] <= x["long"]["tokens"] <= x["long"]["length"] for x in items), items[0]
L = json.load(open(f"{d}/report.json"))["lengths"]
r = {x["rung"]: x for x in L["rungs"]}
assert L["lengths"] == [1024, 4096], L["lengths"]
assert r["CLIFF"]["first_worse"] == 4096, r["CLIFF"]
assert r["CLIFF"]["cells"][0]["dead"] == 0 and r["CLIFF"]["cells"][1]["dead"] == 12, r["CLIFF"]["cells"]
m = json.load(open(f"{d}/manifest.json"))
assert m["task"]["name"] == "ruler", m.get("task")
PY
    sum=$(sha256sum <"$d/long.jsonl")
    timeout -k 5 120 $GT ladder "$work/llc.json" --quiet >"$work/llc.out" 2>&1 ||
        fail "again: exit $? $(tail -3 "$work/llc.out")"
    ! grep -q "long: counting" "$work/llc.out" || fail "the items were made again"
    [ "$(sha256sum <"$d/long.jsonl")" = "$sum" ] || fail "long.jsonl changed"
    rm -f "$work/llc-long.jsonl"
    timeout -k 5 60 $GT long --config "$work/llc.json" --out "$work/llc-long.jsonl" \
        >"$work/llc.out" 2>&1 || fail "long --config: exit $? $(tail -3 "$work/llc.out")"
    cmp -s "$work/llc-long.jsonl" "$d/long.jsonl" || fail "long --config made other items"
    llc_config "$work/llc5.json" 5
    rc=0
    timeout -k 5 60 $GT ladder "$work/llc5.json" --quiet >"$work/llc.out" 2>&1 || rc=$?
    [ $rc = 2 ] && grep -q "long.jsonl: line 6 is not the item that .*llc5.json's \"lengths\" and \"long\" ask for" "$work/llc.out" ||
        fail "changed items: exit $rc $(tail -3 "$work/llc.out")"
    [ "$(sha256sum <"$d/long.jsonl")" = "$sum" ] || fail "long.jsonl changed by a refused config"
    # killed while it counts: 600 items a kind
    llc_config "$work/llck.json" 600
    rm -rf "$d"
    setsid $G ladder "$work/llck.json" --quiet >/dev/null 2>&1 &
    pid=$!
    wait_for 30 "servers_left" || fail "no counting server came"
    sleep 0.5
    kill -KILL -- -$pid 2>/dev/null
    wait $pid 2>/dev/null
    no_servers_within 5 || fail "the counting server outlived the killed ladder"
    [ ! -e "$d/long.jsonl" ] || fail "a long.jsonl was left by a killed count: $(wc -l <"$d/long.jsonl") lines"
    ls "$d"/long.jsonl.* >/dev/null 2>&1 && fail "a temporary file was left: $(ls "$d")"
    return 0
}
area_cases="$area_cases longctx_lengths_config"

# A config's "lengths", bad: one line each, exit 2, before any server
# starts (no counting server's log) and nothing written.
# Tests: orchestrator/input/config_long.c
case_longctx_lengths_bad() {
    local d=$work/llb rc body
    model llbref '"needles": true, "default": {"content": "x"}'
    printf '{"fake_llama_server": 1, "needles": true, "default": {"content": "x"}}\n' >"$work/llb-script.json"
    "$build/fake-gguf" "$work/llb-script.json" "$work/llb4k.gguf" demo 4096 || fail "fake-gguf"
    while IFS='|' read -r body want; do
        cat >"$work/llb.json" <<JSON
{"name": "bad", "run_dir": "$d", "server": {"binary": "$FAKE"}, $body
 "rungs": [{"name": "A", "model": "$work/llbref.gguf"}]}
JSON
        rm -rf "$d"
        rc=0
        timeout -k 5 60 $GT ladder "$work/llb.json" --quiet >"$work/llb.out" 2>&1 || rc=$?
        [ $rc = 2 ] && [ "$(wc -l <"$work/llb.out")" = 1 ] && grep -q -- "$want" "$work/llb.out" ||
            fail "$body: exit $rc $(cat "$work/llb.out")"
        [ ! -e "$d" ] || fail "$body: the run folder was made: $(ls -R "$d" | head -5)"
    done <<'CASES'
"lengths": [0],|'lengths': '0' is not a length
"lengths": [-5],|'lengths':
"lengths": ["abc"],|'lengths':
"lengths": [16777217],|'lengths':
"lengths": [1024, "1K"],|'lengths':
"lengths": [],|'lengths' must be a list
"lengths": 4096,|'lengths' must be a list
"lengths": [1.5],|'lengths\[0\]' is not a length
"lengths": [1024], "questions": "q.jsonl",|'questions' and 'lengths' both given
"lengths": [1024], "task": "lm-eval-gsm8k",|the long items made for 'lengths' are graded by the task ruler
"long": {"items": 3},|'long' says which long items to make at 'lengths'
"lengths": [1024], "long": {"kinds": ["nope"]},|'long.kinds\[0\]': no kind 'nope'
"lengths": [1024], "long": {"kinds": ["vt", "vt"]},|names 'vt' twice
"lengths": [1024], "long": {"items": 0},|long.items
"lengths": [1024], "long": {"seed": -1},|'long.seed'
"lengths": [1024], "long": {"depth": 3},|depth
CASES
    # past the trained context, refused before the counting server starts
    cat >"$work/llb.json" <<JSON
{"name": "bad", "run_dir": "$d", "server": {"binary": "$FAKE"}, "lengths": [1024, 8192],
 "rungs": [{"name": "A", "model": "$work/llb4k.gguf"}]}
JSON
    rm -rf "$d"
    rc=0
    timeout -k 5 60 $GT ladder "$work/llb.json" --quiet >"$work/llb.out" 2>&1 || rc=$?
    [ $rc = 2 ] && grep -q "rung A: the longest of 'lengths' (8192 tokens) .* trained on (context_length 4096)" "$work/llb.out" ||
        fail "past the trained context: exit $rc $(cat "$work/llb.out")"
    [ ! -e "$d/logs/long.tokenizer.log" ] || fail "a counting server was started"
    [ ! -e "$d/long.jsonl" ] || fail "items were made"
}
area_cases="$area_cases longctx_lengths_bad"

# Long rows as short ones (issue 36): a config's "lengths" with the
# reference run twice (the noise floor), log-probabilities (the split
# token, KLD) and a canary against a trusted folder's rows, end to end.
# The repeat's folder asks the ladder's own long.jsonl (it was asked
# RUNDIR/repeat/long.jsonl, which no one makes, before the ladder handed
# its children the file); the canary passes on the same server (its
# questions.jsonl wrote each long item as a question and an answer, which
# the ruler task refused, before each item was written as its record); the
# report has the floor, the repeat, the split tokens of the cliff's dead
# answers, each answer's cost, and the length table.
# Tests: orchestrator/cmd/ladder_plan.c
# Tests: orchestrator/run/runplan.c
# Tests: orchestrator/cmd/cmd_canary.c
case_longctx_floor_probs() {
    local d=$work/lfp e=$work/lfpc
    model lfpref '"needles": true, "default": {"content": "I do not know."}'
    model lfpcliff '"needles": true, "decode_tps": 40.0, "cliff": {"tokens": 3000, "mode": "wrong"},
 "default": {"content": "I do not know."}'
    lfp_config() { # file run_dir extra
        cat >"$1" <<JSON
{"name": "long floor", "run_dir": "$2", "server": {"binary": "$FAKE"},
 "lengths": [1024, "4K"], "long": {"kinds": ["niah-single"], "items": 6},
 "repeat_reference": true, "logprobs": 2, $3
 "rungs": [{"name": "REF", "model": "$work/lfpref.gguf"}, {"name": "CLIFF", "model": "$work/lfpcliff.gguf"}]}
JSON
    }
    lfp_config "$work/lfp.json" "$d" ""
    rm -rf "$d" "$e"
    timeout -k 5 180 $GT ladder "$work/lfp.json" --quiet >"$work/lfp.out" 2>&1 ||
        { fail "ladder: exit $? $(tail -5 "$work/lfp.out")"; return; }
    lfp_config "$work/lfpc.json" "$e" "\"canary\": {\"rows\": \"$d/rows/REF.jsonl\", \"questions\": 8},"
    timeout -k 5 180 $GT ladder "$work/lfpc.json" --quiet >"$work/lfpc.out" 2>&1 ||
        { fail "canary ladder: exit $? $(tail -5 "$work/lfpc.out")"; return; }
    /usr/bin/python3 - "$d" "$e" >"$work/lfp-check" 2>&1 <<'PY' || fail "$(cat "$work/lfp-check")"
import json, sys
d, e = sys.argv[1:]
rep = json.load(open(f"{d}/report.json"))
assert [len(open(f"{d}/{p}/rows/REF.jsonl").readlines()) for p in (".", "repeat")] == [12, 12]
ids = [json.loads(l)["id"] for l in open(f"{d}/repeat/rows/REF.jsonl")]
assert sorted(ids) == sorted(json.loads(l)["id"] for l in open(f"{d}/long.jsonl")), ids[:3]
assert rep["repeats"][0]["rung"] == "REF" and rep["repeats"][0]["n"] == 12, rep["repeats"]
assert rep["floor"] == 0, rep["floor"]
p = {x["rung"]: x for x in rep["probs"]["rungs"]}
assert p["CLIFF"]["split_died"] == 6 and p["CLIFF"]["compared"] == 12, p["CLIFF"]
assert all(x["id"].endswith("@4096") for x in rep["probs"]["dead"]), rep["probs"]["dead"][:2]
L = {x["rung"]: x for x in rep["lengths"]["rungs"]}
assert L["CLIFF"]["first_worse"] == 4096, L["CLIFF"]
md = open(f"{d}/REPORT.md").read()
for s in ("## What an answer costs", "## Above the noise?", "## Where they split",
          "## Repeat: the same rung run twice", "## Length: where each rung's answers die"):
    assert s in md, s
c = json.load(open(f"{e}/canary/canary.json"))
assert c.get("passed") is True or c.get("verdict") in ("pass", "passed"), c
assert len(open(f"{e}/canary/questions.jsonl").readlines()) == 8
PY
}
area_cases="$area_cases longctx_floor_probs"

# Issue 37, the question loader's readers: the report's pages and the
# canary's subset need a long item's summary and answers, never its
# prompt, so they do not make it (questions_load_texts); the runner still
# does, and refuses a recipe whose prompt cannot be made before any
# server starts. Two recipes laddered on the fake; then the second's fill is
# set past the 8 MiB prompt cap (its answers unchanged): `graveyard
# report`'s page shows both texts, the canary writes its subset (n0) and
# runs it, and `graveyard run` of the file exits 2 naming its line, with
# no rows file and no server started.
# Tests: orchestrator/figures/pages.c
# Tests: orchestrator/cmd/cmd_canary.c
case_longctx_page_no_render() {
    local d=$work/lpr rc
    model lprref '"needles": true, "default": {"content": "I do not know."}'
    lpr_item() { # index fill
        printf '{"id": "n%s", "long": {"kind": "niah-single", "seed": 7, "index": %s, "length": 1024, "fill": %s}}\n' \
            "$1" "$1" "$2"
    }
    { lpr_item 0 40; lpr_item 1 40; } >"$work/lpr.jsonl"
    cat >"$work/lpr.json" <<JSON
{"name": "page texts", "questions": "$work/lpr.jsonl", "run_dir": "$d",
 "task": "ruler", "server": {"binary": "$FAKE"},
 "rungs": [{"name": "REF", "model": "$work/lprref.gguf"},
           {"name": "R1", "model": "$work/lprref.gguf"}]}
JSON
    rm -rf "$d" "$work/lpr2"
    timeout -k 5 120 $GT ladder "$work/lpr.json" --quiet >"$work/lpr.out" 2>&1 ||
        { fail "ladder: exit $? $(tail -3 "$work/lpr.out")"; return; }
    { lpr_item 0 40; lpr_item 1 4194304; } >"$work/lpr.jsonl"
    timeout -k 5 60 $GT report "$d" >"$work/lpr.out" 2>&1 ||
        { fail "report: exit $? $(tail -3 "$work/lpr.out")"; return; }
    /usr/bin/python3 -c 'import re,base64,gzip,json,sys
h=open(sys.argv[1]).read()
d=json.loads(gzip.decompress(base64.b64decode(re.search(r"id=\"gy-z\">(.*?)</script>",h,re.S).group(1).strip())))
assert "(2 of 2)" in d["qnote"], d["qnote"]
assert any("niah-single item 1 (seed 7)" in t for t in d["T"] if isinstance(t, str)), "no summary of n1"' \
        "$d/REPORT.html" 2>"$work/err" || fail "the page's question texts: $(tail -1 "$work/err")"
    rc=0 # the canary's subset (its first question, n0) is written, and run
    timeout -k 5 60 $GT canary R1 "$work/lprref.gguf" "$d/rows/R1.jsonl" --run-dir "$work/lprc" \
        --questions 1 --llama "$FAKE" --task ruler --quiet >"$work/lpr.out" 2>&1 || rc=$?
    [ $rc = 0 ] && grep -q '"compared": 1, "missing": 0' "$work/lpr.out" ||
        fail "the canary: exit $rc $(tail -2 "$work/lpr.out")"
    rc=0
    timeout -k 5 60 $GT run R1 "$work/lprref.gguf" "$work/lpr.jsonl" "$work/lpr2" --llama "$FAKE" \
        --task ruler --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "lpr.jsonl:2: item 1 of niah-single at fill 4194304: over a cap" "$work/err" ||
        fail "the runner's load: exit $rc $(cat "$work/err")"
    [ ! -e "$work/lpr2/rows/R1.jsonl" ] && [ ! -e "$work/lpr2/logs/R1.server.log" ] ||
        fail "the runner went on: $(ls -R "$work/lpr2" | head -5)"
}
area_cases="$area_cases longctx_page_no_render"
