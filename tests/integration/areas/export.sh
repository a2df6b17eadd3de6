# shellcheck shell=bash
# Issue 39, the commons: graveyard export --eee writes a run folder's
# answers as Every Eval Ever records, each validated here against the
# schema version the files name (schemas/eee/, python3-jsonschema): the
# demo ladder on the fake server, the study-shaped T4 folder
# (tests/page/make_study.py, 10 rungs x 250) whose per-rung counts must be
# report.json's, a hostile folder, a DIR that holds other files, a bad
# RUNDIR. Sourced by tests/integration/cases.sh (lib.sh's helpers).
#
# Tests: orchestrator/cmd/cmd_export.c
# Tests: orchestrator/figures/figures_export.c
# Tests: report/eee.c
# Tests: rundir/exported.c

EEE_CHECK="/usr/bin/python3 $ROOT/tests/integration/helpers/eee_check.py"

# the files under $1 and their sizes, to see that nothing changed there
eee_listing() { find "$1" -printf '%p %s %l\n' 2>/dev/null | sort; }

# the demo ladder, exported: every record valid, five rungs (four of the
# chain and the QAT side rung), no folder of this machine in any file
case_export_demo() {
    local d=$work/eee-demo
    $GT ladder "$ROOT/configs/demo.json" --run-dir "$d" --llama "$FAKE" \
        --quiet >/dev/null 2>"$work/err" ||
        { fail "the demo ladder: exit $? $(tail -3 "$work/err")"; return; }
    (cd "$ROOT" && "$G" export --eee "$d" --out "$work/eee-demo-out" \
        >"$work/eee.out" 2>&1) ||
        { fail "export: $(tail -3 "$work/eee.out")"; return; }
    $EEE_CHECK "$work/eee-demo-out" "$ROOT/schemas/eee" --rungs 5 \
        --report "$d/report.json" --absent "$work" --absent "$ROOT" \
        >"$work/eee-check.out" 2>&1 ||
        fail "eee_check: $(head -5 "$work/eee-check.out")"
    # the inputs are the questions' texts, found from the source folder
    grep -q '"raw":"Mia picks 14 apples' "$work"/eee-demo-out/data/graveyard/*/*/*_samples.jsonl ||
        fail "no question text in the samples"
    # the same bytes again with SOURCE_DATE_EPOCH, into a new folder
    (cd "$ROOT" && SOURCE_DATE_EPOCH=1700000000 "$G" export --eee "$d" \
        --out "$work/eee-d1" >/dev/null 2>&1 &&
        SOURCE_DATE_EPOCH=1700000000 "$G" export --eee "$d" \
            --out "$work/eee-d2" >/dev/null 2>&1) || fail "export with SOURCE_DATE_EPOCH"
    diff -r "$work/eee-d1" "$work/eee-d2" >/dev/null ||
        fail "two exports with one SOURCE_DATE_EPOCH differ"
}
area_cases="$area_cases export_demo"

# eee_gguf OUT IMATRIX -> a GGUF v3 of one tensor with general.file_type 2
# (Q4_0) and an imatrix by the paths llama-quantize records: its file
# IMATRIX, its dataset /opt1/calib/calibration.txt, 125 chunks
eee_gguf() {
    /usr/bin/python3 - "$@" <<'PY'
import struct, sys
out, im = sys.argv[1], sys.argv[2].encode()
def s(x): return struct.pack("<Q", len(x)) + x
h = b"GGUF" + struct.pack("<IQQ", 3, 1, 4)
h += s(b"general.file_type") + struct.pack("<II", 4, 2)
h += s(b"quantize.imatrix.file") + struct.pack("<I", 8) + s(im)
h += s(b"quantize.imatrix.dataset") + struct.pack("<I", 8) + s(b"/opt1/calib/calibration.txt")
h += s(b"quantize.imatrix.chunks_count") + struct.pack("<Ii", 5, 125)
h += s(b"blk.0.attn_q.weight") + struct.pack("<IQQIQ", 2, 64, 2, 2, 0)
h += b"\0" * (-len(h) % 32)
open(out, "wb").write(h + b"\0" * 512)
PY
}

# the study-shaped T4 folder: 10 records of 250 answers, each rung's
# right and n those of report.json, the model and dataset as named; the
# one rung whose GGUF is readable here carries its type and imatrix
case_export_study() {
    local d=$work/eee-study
    /usr/bin/python3 "$ROOT/tests/page/make_study.py" "$d" >/dev/null ||
        { fail "make_study.py failed"; return; }
    # Q4_0's file here: a GGUF with an imatrix, named in ladder.tsv by a
    # path under a folder of this machine
    mkdir -p "$work/eee-gguf" && eee_gguf "$work/eee-gguf/e2b-Q4_0.gguf" \
        "$work/imatrix/e2b.imatrix" || { fail "eee_gguf failed"; return; }
    sed -i "s|^Q4_0\t/opt1/graveyard-gguf/e2b-Q4_0.gguf|Q4_0\t$work/eee-gguf/e2b-Q4_0.gguf|" "$d/ladder.tsv"
    grep -q "$work/eee-gguf" "$d/ladder.tsv" || { fail "ladder.tsv not edited"; return; }
    "$G" report "$d" --out "$work/eee-study-rep" --no-html >/dev/null ||
        { fail "report failed"; return; }
    "$G" export --eee "$d" --out "$work/eee-study-out" \
        --model google/gemma-3-4b-it --dataset openai/gsm8k \
        >"$work/eee.out" 2>&1 ||
        { fail "export: $(tail -3 "$work/eee.out")"; return; }
    $EEE_CHECK "$work/eee-study-out" "$ROOT/schemas/eee" --rungs 10 \
        --report "$work/eee-study-rep/report.json" --absent /opt1/ \
        --absent "$work" >"$work/eee-check.out" 2>&1 ||
        fail "eee_check: $(head -5 "$work/eee-check.out")"
    [ "$(find "$work/eee-study-out/data/graveyard/google/gemma-3-4b-it" -name '*_samples.jsonl' | wc -l)" = 10 ] ||
        fail "not 10 samples files under data/graveyard/google/gemma-3-4b-it"
    [ "$(cat "$work"/eee-study-out/data/graveyard/google/gemma-3-4b-it/*_samples.jsonl | wc -l)" = 2500 ] ||
        fail "not 2500 samples"
    # the readable file's type and imatrix in Q4_0's record, no other's
    /usr/bin/python3 - "$work/eee-study-out" >"$work/eee-py.out" 2>&1 <<'PY' || fail "the GGUF's key-values: $(tail -1 "$work/eee-py.out")"
import glob, json, sys
for f in glob.glob(sys.argv[1] + "/data/**/*.json", recursive=True):
    d = json.load(open(f))["model_info"]["additional_details"]
    if d["rung"] == "Q4_0":
        assert d.get("general.file_type") == "2", d
        assert d.get("quantize.imatrix.file") == "e2b.imatrix", d
        assert d.get("quantize.imatrix.dataset") == "calibration.txt", d
        assert d.get("quantize.imatrix.chunks_count") == "125", d
    else:
        assert "general.file_type" not in d and not any(
            k.startswith("quantize.imatrix.") for k in d), d
PY
}
area_cases="$area_cases export_study"

# hostile: a rows file that is a link out of the folder is refused with
# nothing written; a reply with control characters and a server argv
# with a path, a key and a hashed value export as valid JSON with none of
# them; a data/ folder that is a link out of DIR is refused, nothing
# written through it
case_export_hostile() {
    local d=$work/eee-h secret="sk-$$-s3cr3t"
    /usr/bin/python3 "$ROOT/tests/page/make_study.py" "$d" --n 20 \
        --questions "$ROOT/data/gsm8k/heldout-250.jsonl" >/dev/null ||
        { fail "make_study.py failed"; return; }
    /usr/bin/python3 - "$d" "$secret" <<'PY' || { fail "hostile edit"; return; }
import json, sys
d, secret = sys.argv[1], sys.argv[2]
p = d + "/rows/Q4_0.jsonl"
rows = [json.loads(l) for l in open(p)]
rows[0]["content"] = "ctl \x01\x02\x1b[31m\x7f tab\t nul-free\nAnswer: 7\u2028x"
open(p, "w").write("".join(json.dumps(r) + "\n" for r in rows))
m = json.load(open(d + "/manifest.json"))
m["rungs"]["Q4_0"]["server_argv"] = [
    "/opt1/secret-dir/llama-server", "-m", "/opt1/graveyard-gguf/e2b-Q4_0.gguf",
    "--api-key", secret, "--hf-token=" + secret,
    "--x", "<redacted sha256:0123456789abcdef>"]
json.dump(m, open(d + "/manifest.json", "w"), indent=2)
PY
    "$G" export --eee "$d" --out "$work/eee-h-out" >"$work/eee.out" 2>&1 ||
        { fail "export: $(tail -3 "$work/eee.out")"; return; }
    $EEE_CHECK "$work/eee-h-out" "$ROOT/schemas/eee" --rungs 10 \
        --absent "$secret" --absent /opt1/ --absent 0123456789abcdef \
        --absent "$work" >"$work/eee-check.out" 2>&1 ||
        fail "eee_check: $(head -5 "$work/eee-check.out")"
    grep -q 'llama-server\\",\\"-m\\",\\"e2b-Q4_0.gguf' "$work"/eee-h-out/data/graveyard/*/*/*.json ||
        fail "the argv is not there as file names: $(grep -h execution_command "$work"/eee-h-out/data/graveyard/*/*/*.json | head -2)"
    # a rows file linked to a copy outside the folder: refused, nothing
    cp "$d/rows/Q8_0.jsonl" "$work/eee-outside.jsonl"
    rm "$d/rows/Q8_0.jsonl"
    ln -s "$work/eee-outside.jsonl" "$d/rows/Q8_0.jsonl"
    "$G" export --eee "$d" --out "$work/eee-h2" >"$work/eee.out" 2>&1
    local rc=$?
    [ $rc = 2 ] || fail "a linked rows file: exit $rc, not 2"
    grep -qF "$d/rows/Q8_0.jsonl' is a symbolic link" "$work/eee.out" ||
        fail "a linked rows file not named: $(head -2 "$work/eee.out")"
    [ ! -e "$work/eee-h2" ] || fail "a refused export made its folder"
    rm "$d/rows/Q8_0.jsonl" && cp "$work/eee-outside.jsonl" "$d/rows/Q8_0.jsonl"
    # DIR's data/ a link to a folder outside: refused, nothing there
    mkdir -p "$work/eee-h3" "$work/eee-elsewhere"
    ln -s "$work/eee-elsewhere" "$work/eee-h3/data"
    "$G" export --eee "$d" --out "$work/eee-h3" --force >"$work/eee.out" 2>&1
    rc=$?
    [ $rc = 2 ] || fail "data/ a link: exit $rc, not 2"
    grep -q "eee-h3/data' is not a folder of export's own" "$work/eee.out" ||
        fail "data/ a link not named: $(head -2 "$work/eee.out")"
    [ -z "$(ls -A "$work/eee-elsewhere")" ] || fail "written through a link out of DIR"
    # --out itself a link: refused
    ln -s "$work/eee-elsewhere" "$work/eee-h4"
    "$G" export --eee "$d" --out "$work/eee-h4" >"$work/eee.out" 2>&1
    [ $? = 2 ] && grep -q "is a symbolic link" "$work/eee.out" ||
        fail "--out a link: $(head -2 "$work/eee.out")"
    [ -z "$(ls -A "$work/eee-elsewhere")" ] || fail "written through --out's link"
}
area_cases="$area_cases export_hostile"

# a DIR that holds other files: refused without --force (exit 2, DIR
# named, nothing changed there); with --force the records go beside them
case_export_refused() {
    local d=$work/eee-r before
    /usr/bin/python3 "$ROOT/tests/page/make_study.py" "$d" --n 20 \
        --questions "$ROOT/data/gsm8k/heldout-250.jsonl" >/dev/null ||
        { fail "make_study.py failed"; return; }
    mkdir -p "$work/eee-r-out" && echo mine >"$work/eee-r-out/notes.txt"
    before=$(eee_listing "$work/eee-r-out")
    "$G" export --eee "$d" --out "$work/eee-r-out" >"$work/eee.out" 2>&1
    local rc=$?
    [ $rc = 2 ] || fail "a DIR with other files: exit $rc, not 2"
    grep -qF "'$work/eee-r-out' holds other files" "$work/eee.out" ||
        fail "DIR not named: $(head -2 "$work/eee.out")"
    [ "$(eee_listing "$work/eee-r-out")" = "$before" ] ||
        fail "a refused export changed DIR"
    "$G" export --eee "$d" --out "$work/eee-r-out" --force >/dev/null 2>&1 ||
        fail "--force refused"
    [ "$(cat "$work/eee-r-out/notes.txt")" = mine ] || fail "--force touched notes.txt"
    $EEE_CHECK "$work/eee-r-out" "$ROOT/schemas/eee" --rungs 10 \
        >"$work/eee-check.out" 2>&1 || fail "eee_check: $(head -3 "$work/eee-check.out")"
}
area_cases="$area_cases export_refused"

# a RUNDIR that is no run folder, and no format named: exit 2, said
case_export_bad_rundir() {
    "$G" export --eee "$work/no-such-run" --out "$work/eee-b" >"$work/eee.out" 2>&1
    local rc=$?
    [ $rc = 2 ] || fail "a missing RUNDIR: exit $rc, not 2"
    grep -qF "$work/no-such-run" "$work/eee.out" ||
        fail "the RUNDIR not named: $(head -2 "$work/eee.out")"
    mkdir -p "$work/eee-notrun" && echo x >"$work/eee-notrun/file"
    "$G" export --eee "$work/eee-notrun" --out "$work/eee-b" >"$work/eee.out" 2>&1
    [ $? = 2 ] && grep -qF "$work/eee-notrun" "$work/eee.out" ||
        fail "a folder with no rows: $(head -2 "$work/eee.out")"
    "$G" export "$work/eee-notrun" --out "$work/eee-b" >"$work/eee.out" 2>&1
    [ $? = 2 ] && grep -q -- "--eee" "$work/eee.out" ||
        fail "no format: $(head -2 "$work/eee.out")"
    [ ! -e "$work/eee-b" ] || fail "a refused export made its folder"
}
area_cases="$area_cases export_bad_rundir"
