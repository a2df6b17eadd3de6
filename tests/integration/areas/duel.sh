# shellcheck shell=bash
# Duels (issue 39): two rungs of one type, A against B answer by answer,
# in a ladder's report (config "duels") and from graveyard duel, per run
# folder and per prompt length. Sourced by tests/integration/cases.sh.
#
# Tests: grader/duel.c
# Tests: report/md_duel.c
# Tests: orchestrator/figures/figures_duel.c
# Tests: orchestrator/cmd/cmd_duel.c
# Tests: orchestrator/input/config_duels.c
# Tests: rundir/run.c

# duel_table.py ROWS_A ROWS_B: the paired table counted from the rows
# themselves (right: the last "Answer: N" is the reference), printed as
# JSON {"both_right", "a_only", "b_only", "neither", "n", "only_one",
# "disagree"}, so a case sets graveyard's counts against it.
cat >"$work/duel_table.py" <<'PY'
import json, re, sys
said_of = {}
def right(path):
    out, said_of[path] = {}, {}
    for line in open(path):
        r = json.loads(line)
        said = re.findall(r"Answer:\s*\**(-?[0-9][0-9,]*)", r.get("content") or "")
        out[r["id"]] = bool(said) and said[-1].replace(",", "") == r["reference"]
        said_of[path][r["id"]] = said[-1].replace(",", "") if said else None
    return out
a, b = right(sys.argv[1]), right(sys.argv[2])
sa, sb = said_of[sys.argv[1]], said_of[sys.argv[2]]
both = [q for q in a if q in b]
t = {"both_right": sum(a[q] and b[q] for q in both),
     "a_only": sum(a[q] and not b[q] for q in both),
     "b_only": sum(b[q] and not a[q] for q in both),
     "neither": sum(not a[q] and not b[q] for q in both),
     "neither_apart": sum(not a[q] and not b[q] and sa[q] != sb[q] for q in both),
     "n": len(both), "only_one": len(set(a) ^ set(b)),
     "disagree": sorted(q for q in both if a[q] != b[q])}
print(json.dumps(t))
PY

# A ladder of four rungs: REF and SAME the good model (one file, named
# twice), A another copy of it, B the drifting one, with "duels" A-B and
# A-SAME. Writes $work/NAME.json; its folder is $work/NAME.
duel_ladder_config() {
    local name=$1
    model dgood '"default": {"content": "Answer: 0"},
 "replies": [{"match": "apples", "content": "Answer: 5"},
             {"match": "pears", "content": "Answer: 8"},
             {"match": "plums", "content": "Answer: 61"}]'
    model ddrift '"default": {"content": "Answer: 0"},
 "replies": [{"match": "apples", "content": "Answer: 5"},
             {"match": "pears", "content": "Answer: 9"},
             {"match": "figs", "content": "Answer: 15"}]'
    cat >"$work/$name.json" <<JSON
{"name": "$name", "questions": "$work/q.jsonl", "run_dir": "$work/$name",
 "rungs": [{"name": "REF", "model": "$work/dgood.gguf"},
           {"name": "A", "model": "$work/dgood.gguf"},
           {"name": "SAME", "model": "$work/dgood.gguf"},
           {"name": "B", "model": "$work/ddrift.gguf"}],
 "duels": [["A", "B"], ["A", "SAME"]],
 "server": {"binary": "$FAKE"}, "gpus": ["0"]}
JSON
}

# A ladder with "duels": REPORT.md's "Duels" and report.json's "duels"
# (valid as the schema says), A-B's table as the rows count it, A-SAME
# (one file twice) with nothing discordant and never better or worse;
# graveyard duel on the folder says the same figures (--json), and
# ladder.json keeps the pairs for a report made again.
case_duel_ladder() {
    local d=$work/dl
    duel_ladder_config dl
    $GT ladder "$work/dl.json" >/dev/null 2>"$work/err" || { fail "ladder: $(tail -3 "$work/err")"; return; }
    grep -q "^## Duels" "$d/REPORT.md" || { fail "no Duels section in REPORT.md"; return; }
    python3 "$work/duel_table.py" "$d/rows/A.jsonl" "$d/rows/B.jsonl" >"$work/ab.json" || { fail "duel_table.py"; return; }
    $GT duel "$d" A B --json >"$work/cli.json" 2>"$work/err" || { fail "duel --json: $(cat "$work/err")"; return; }
    $GT duel "$d" A B >"$work/cli.txt" 2>"$work/err" || { fail "duel: $(cat "$work/err")"; return; }
    python3 - "$d" "$work/ab.json" "$work/cli.json" "$ROOT/schemas/report.schema.json" \
        >"$work/out" 2>&1 <<'PY' || fail "$(cat "$work/out")"
import json, sys, jsonschema
d, want, cli, schema = sys.argv[1:]
rep = json.load(open(d + "/report.json"))
md = open(d + "/REPORT.md").read()
want = json.load(open(want))
cli = json.loads(open(cli).read())
bad = []
duels = rep.get("duels")
if not duels or len(duels) != 2:
    print(f"report.json's duels: {duels}"); sys.exit(1)
try:
    jsonschema.validate(duels, json.load(open(schema))["properties"]["duels"])
except jsonschema.ValidationError as e:
    bad.append(f"duels not as the schema says: {e.message}")
ab, same = duels
if (ab["a"], ab["b"], same["a"], same["b"]) != ("A", "B", "A", "SAME"):
    bad.append(f"pairs {ab['a']}-{ab['b']}, {same['a']}-{same['b']}")
for k in ("both_right", "a_only", "b_only", "neither", "neither_apart", "n", "only_one"):
    if ab[k] != want[k]:
        bad.append(f"A-B {k}: {ab[k]}, the rows say {want[k]}")
if sorted(ab["disagree"]) != want["disagree"]:
    bad.append(f"A-B disagree {ab['disagree']}, the rows say {want['disagree']}")
if abs(ab["change"] - 100 * (want["a_only"] - want["b_only"]) / want["n"]) > 1e-3:
    bad.append(f"A-B change {ab['change']}")
if same["a_only"] + same["b_only"] != 0 or same["disagree"]:
    bad.append(f"A-SAME discordant: {same['a_only']}, {same['b_only']}")
if same["verdict"] not in ("equivalent", "cannot tell"):
    bad.append(f"A-SAME verdict {same['verdict']}")
if same["p_mcnemar"] != 1 or same["change"] != 0:
    bad.append(f"A-SAME p {same['p_mcnemar']}, change {same['change']}")
if same["provenance"]["a"]["sha256"] != same["provenance"]["b"]["sha256"]:
    bad.append("one file, two sha256s")
for k in ab:
    if k != "provenance" and cli[k] != ab[k]:
        bad.append(f"graveyard duel's {k} {cli[k]}, the report's {ab[k]}")
cells = f"| A | B | {want['both_right']} | {want['a_only']} | {want['b_only']} | {want['neither']} |"
if not any(x.startswith(cells) for x in md.splitlines()):
    bad.append(f"REPORT.md has no A-B row {cells}")
print("; ".join(bad))
sys.exit(1 if bad else 0)
PY
    grep -q '"duels"' "$d/ladder.json" || fail "ladder.json does not keep the duels"
    # the page's duel view gets the config's pairs, in REPORT.md's words
    python3 - "$d/REPORT.html" >"$work/out" 2>&1 <<'PY' || fail "the page's duels: $(cat "$work/out")"
import base64, json, re, sys, zlib
html = open(sys.argv[1]).read()
m = re.search(r'<script type="application/gzip" id="gy-z">([^<]*)</script>', html)
if m:
    data = json.loads(zlib.decompress(base64.b64decode(m.group(1)), 47))
else:
    data = json.loads(re.search(r'<script type="application/json" id="gy-data">(.*?)</script>', html, re.S).group(1))
duels = data.get("duels")
assert duels and len(duels) == 2, f"duels in the data block: {duels}"
rep = json.load(open(sys.argv[1].replace("REPORT.html", "report.json")))
for x, r in zip(duels, rep["duels"]):
    words = {"equivalent": f"{r['a']} \u2261 {r['b']} within", "a better": f"{r['a']} better",
             "b better": f"{r['b']} better", "cannot tell": "cannot tell"}[r["verdict"]]
    assert x["v"] and x["v"].startswith(words), f"verdict words {x['v']!r}, report.json {r['verdict']}"
    want = f"{r['a']} right only: {r['a_only']} \u00b7 {r['b']} right only: {r['b_only']}"
    assert x["n"] == want, f"counts {x['n']!r}, want {want!r}"
PY
    grep -q "^verdict: " "$work/cli.txt" && grep -q "^provenance:" "$work/cli.txt" &&
        grep -q "^they disagree on [0-9]* questions: " "$work/cli.txt" ||
        fail "graveyard duel's text lacks a part: $(cat "$work/cli.txt")"
    $GT report "$d" --out "$work/dl-again" --no-html >/dev/null 2>&1 &&
        grep -q "^## Duels" "$work/dl-again/REPORT.md" || fail "a report made again has no Duels"
    # --rungs without B: A-B is left out (said), A-SAME stays
    $GT report "$d" --rungs REF,A,SAME --out "$work/dl-some" --no-html >/dev/null 2>"$work/err" ||
        { fail "report --rungs without B: $(cat "$work/err")"; return; }
    grep -q "the duel A against B is left out: B is not among the rungs reported" "$work/err" ||
        fail "the left-out duel not said: $(cat "$work/err")"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["duels"]; sys.exit([(x["a"], x["b"]) for x in d] != [("A", "SAME")])' \
        "$work/dl-some/report.json" || fail "report --rungs without B: not A-SAME alone"
}
area_cases="$area_cases duel_ladder"

# Without "duels" nothing changes: no section, no key (the golden reports
# stay byte for byte, tests/golden/run.sh).
case_duel_none() {
    $GT report "$ROOT/tests/golden/data/t4" --out "$work/dn" --no-html >/dev/null 2>&1 || { fail "report"; return; }
    grep -q "Duels" "$work/dn/REPORT.md" && fail "a Duels section without duels"
    grep -q '"duels"' "$work/dn/report.json" && fail "report.json has duels without any"
    true
}
area_cases="$area_cases duel_none"

# Refused in one line, exit 2, naming what is wrong: a rung the folder
# has not (and the rungs it has), A the same as B, a folder without rows
# for one of them, and a config's duel naming no rung of it or one rung
# twice (naming the file).
case_duel_errors() {
    local t4=$ROOT/tests/golden/data/t4 rc
    rc=0; $GT duel "$t4" Q8_0 Q9_X >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && [ "$(wc -l <"$work/err")" = 1 ] &&
        grep -q "no rung 'Q9_X' (the rungs there: BF16, Q8_0, Q4_0, Q2_K, QAT_Q4_0)" "$work/err" ||
        fail "unknown rung: exit $rc $(cat "$work/err")"
    # a name with a control character: refused as a name, shown as \x1b,
    # never written raw to the terminal
    rc=0; $GT duel "$t4" Q4_0 "$(printf 'X\033[31mY')" >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -qF "invalid rung name 'X\x1b[31mY'" "$work/err" &&
        ! grep -q "$(printf '\033')" "$work/err" ||
        fail "a name with ESC: exit $rc $(od -c "$work/err" | head -3)"
    rc=0; $GT duel "$t4" Q4_0 Q4_0 >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "A and B are the same rung 'Q4_0'" "$work/err" ||
        fail "A same as B: exit $rc $(cat "$work/err")"
    rm -rf "$work/de" && cp -r "$t4" "$work/de" && rm "$work/de/rows/Q2_K.jsonl"
    rc=0; $GT duel "$t4" Q4_0 Q2_K --also "$work/de" >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "de: no rows for 'Q2_K'" "$work/err" ||
        fail "no rows: exit $rc $(cat "$work/err")"
    duel_ladder_config dbad
    refused_config dbad 's|\["A", "SAME"\]|["A", "NOPE"]|' \
        "dbad-x.json: duels\[1\]: 'NOPE' is no rung of this config" "a duel of no rung"
    refused_config dbad 's|\["A", "SAME"\]|["B", "B"]|' \
        "dbad-x.json: duels\[1\]: 'B' against itself" "a duel of one rung"
    [ -e "$work/dbad" ] && fail "a run folder was made"
    true
}
area_cases="$area_cases duel_errors"

# The noise floor raises the margin as the ladder's verdicts do: the
# golden T4 folder has a repeat of its reference (1 of 8 questions, 12.5
# points), and graveyard duel judges at the margin its report uses.
case_duel_floor() {
    local t4=$ROOT/tests/golden/data/t4
    $GT duel "$t4" Q8_0 Q4_0 --json >"$work/df.json" 2>"$work/err" || { fail "duel: $(cat "$work/err")"; return; }
    $GT report "$t4" --out "$work/df" --no-html >/dev/null 2>&1 || { fail "report"; return; }
    python3 - "$work/df.json" "$work/df/report.json" >"$work/out" 2>&1 <<'PY' || fail "$(cat "$work/out")"
import json, sys
d, r = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
bad = []
if (d["margin_asked"], d["margin"]) != (r["margin_points"], r["margin_points_used"]):
    bad.append(f"margin {d['margin_asked']} -> {d['margin']}, the report's "
               f"{r['margin_points']} -> {r['margin_points_used']}")
if d["floor"] != 12.5:
    bad.append(f"floor {d['floor']}")
print("; ".join(bad))
sys.exit(1 if bad else 0)
PY
}
area_cases="$area_cases duel_floor"

# --also: each run folder a subject (two folders of one task told apart
# by their labels), a folder of long items also one per length, the
# lengths summing to their folder and the folders to the whole; the ids
# they disagree on carry their subject.
case_duel_also() {
    local t4=$ROOT/tests/golden/data/t4 long=$work/dlong
    rm -rf "$long"; mkdir -p "$long/rows"
    python3 - "$long" <<'PY' || { fail "could not write the long folder"; return; }
import json, sys
d = sys.argv[1]
json.dump({"name": "long", "reference": "REF", "rungs": ["REF", "Q8_0", "Q4_0"],
           "side_rungs": [], "thinking": False}, open(d + "/ladder.json", "w"))
for rung, wrong in (("REF", set()), ("Q8_0", {1, 7}), ("Q4_0", {2, 3, 7, 12, 13})):
    with open(f"{d}/rows/{rung}.jsonl", "w") as f:
        for i in range(16):
            n = 1024 if i < 8 else 4096
            f.write(json.dumps({"id": f"niah-{i}@{n}", "reference": "7",
                "content": "Answer: %d" % (8 if i in wrong else 7),
                "length": n, "depth": i * 5}) + "\n")
PY
    $GT duel "$t4" Q8_0 Q4_0 --also "$long" --also "$t4" --json >"$work/da.json" 2>"$work/err" ||
        { fail "duel --also: $(cat "$work/err")"; return; }
    $GT duel "$t4" Q8_0 Q4_0 --also "$long" >"$work/da.txt" 2>"$work/err" || { fail "duel --also text"; return; }
    python3 - "$work/da.json" >"$work/out" 2>&1 <<'PY' || fail "$(cat "$work/out")"
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
subs = [s["subject"] for s in d["subjects"]]
want = ["answer-line", "answer-line (dlong)", "1024 tokens", "4096 tokens", "answer-line (t4)"]
if subs != want:
    bad.append(f"subjects {subs}, want {want}")
keys = ("both_right", "a_only", "b_only", "neither", "n")
s = {x["subject"]: x for x in d["subjects"]}
lf = s.get("answer-line (dlong)", {})
for k in keys:
    if s["1024 tokens"][k] + s["4096 tokens"][k] != lf.get(k):
        bad.append(f"lengths' {k} do not sum to the folder's")
    folders = [x for x in d["subjects"] if not x["subject"].endswith(" tokens")]
    if sum(x[k] for x in folders) != d[k]:
        bad.append(f"folders' {k} do not sum to the whole")
# Q8_0 wrong on 1 7, Q4_0 on 2 3 7 12 13: A only 2 3 12 13, B only 1
if (lf.get("a_only"), lf.get("b_only"), lf.get("neither")) != (4, 1, 1):
    bad.append(f"the long folder's table {lf}")
if not any(x.startswith("answer-line (dlong):niah-") for x in d["disagree"]):
    bad.append(f"ids without their subject: {d['disagree'][:4]}")
print("; ".join(bad))
sys.exit(1 if bad else 0)
PY
    grep -q "^  1024 tokens " "$work/da.txt" || fail "no length line in the text: $(cat "$work/da.txt")"
}
area_cases="$area_cases duel_also"

# The provenance panel, read from the files: two GGUFs of one name in two
# folders (a re-upload), one with an imatrix and a tensor at another
# type, 3 % bigger: both sha256s shown, the size flagged, the tensor
# named; a file gone is said, its sha256 still the manifest's.
case_duel_provenance() {
    local d=$work/dp t4=$ROOT/tests/golden/data/t4
    rm -rf "$d" && cp -r "$t4" "$d" && mkdir -p "$work/pa" "$work/pb"
    python3 - "$work/pa/m-Q4_K_M.gguf" "$work/pb/m-Q4_K_M.gguf" "$d/manifest.json" <<'PY' || { fail "could not write the GGUFs"; return; }
import hashlib, json, struct, sys
def s(x): return struct.pack("<Q", len(x)) + x.encode()
def kv_str(k, v): return s(k) + struct.pack("<I", 8) + s(v)
def kv_u32(k, v): return s(k) + struct.pack("<II", 4, v)
def gguf(out, vtype, imatrix, pad):
    kv = [kv_str("general.name", "Model"), kv_u32("general.file_type", 15)]
    if imatrix:
        kv += [kv_str("quantize.imatrix.file", "calib.imatrix"),
               kv_str("quantize.imatrix.dataset", "wiki.train.raw"),
               kv_u32("quantize.imatrix.entries_count", 196),
               kv_u32("quantize.imatrix.chunks_count", 125)]
    t = [("blk.0.attn_q.weight", 2), ("blk.0.attn_v.weight", vtype)]
    h = b"GGUF" + struct.pack("<IQQ", 3, len(t), len(kv)) + b"".join(kv)
    off = 0
    for name, ty in t:
        h += s(name) + struct.pack("<IQQIQ", 2, 64, 64, ty, off)
        off += (64 * 64 // 32 * {2: 18, 8: 34}[ty] + 31) // 32 * 32
    h += b"\0" * (-len(h) % 32)
    data = h + b"\0" * (off + pad)
    open(out, "wb").write(data)
    return hashlib.sha256(data).hexdigest(), len(data)
a = gguf(sys.argv[1], 2, False, 0)
b = gguf(sys.argv[2], 8, True, 0)
m = json.load(open(sys.argv[3]))
m["rungs"] = {"Q8_0": {"model": sys.argv[1], "sha256": a[0], "bytes": a[1]},
              "Q4_0": {"model": sys.argv[2], "sha256": b[0], "bytes": b[1]}}
json.dump(m, open(sys.argv[3], "w"))
PY
    $GT duel "$d" Q8_0 Q4_0 >"$work/dp.txt" 2>"$work/err" || { fail "duel: $(cat "$work/err")"; return; }
    $GT duel "$d" Q8_0 Q4_0 --json >"$work/dp.json" 2>"$work/err" || { fail "duel --json"; return; }
    python3 - "$work/dp.json" >"$work/out" 2>&1 <<'PY' || fail "$(cat "$work/out")"
import json, sys
p = json.load(open(sys.argv[1]))["provenance"]
bad = []
a, b = p["a"], p["b"]
if not (a["here"] and b["here"]):
    bad.append(f"files not read: {a.get('error')} {b.get('error')}")
if (a["general.name"], b["general.file_type"]) != ("Model", "15"):
    bad.append(f"metadata {a['general.name']} {b['general.file_type']}")
if (a["quantize.imatrix.file"], b["quantize.imatrix.dataset"], b["quantize.imatrix.chunks_count"]) != \
        (None, "wiki.train.raw", "125"):
    bad.append(f"imatrix {a['quantize.imatrix.file']} {b['quantize.imatrix.dataset']}")
if p["tensors_differ"] != 1 or p["differ_first"] != ["blk.0.attn_v.weight"]:
    bad.append(f"differ {p['tensors_differ']} {p['differ_first']}")
if not p["size_differs"]:
    bad.append("the size difference not flagged")
if not p["same_name_other_sha256"]:
    bad.append("one name, two sha256s not said")
print("; ".join(bad))
sys.exit(1 if bad else 0)
PY
    grep -q "^  one name, two files: sha256 [0-9a-f]\{12\} (A) and [0-9a-f]\{12\} (B)$" "$work/dp.txt" &&
        grep -q "sizes differ by more than 2 %" "$work/dp.txt" &&
        grep -q "tensors of another type in A and B: 1 (blk.0.attn_v.weight)" "$work/dp.txt" ||
        fail "the panel: $(sed -n '/^provenance/,$p' "$work/dp.txt")"
    rm "$work/pb/m-Q4_K_M.gguf"
    $GT duel "$d" Q8_0 Q4_0 >"$work/dp.txt" 2>&1 || { fail "duel without a file"; return; }
    grep -q "^  B = Q4_0: .*(file not here: sha256 from the manifest)" "$work/dp.txt" ||
        fail "a file gone not said: $(sed -n '/^provenance/,$p' "$work/dp.txt")"
}
area_cases="$area_cases duel_provenance"
