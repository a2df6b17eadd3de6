# shellcheck shell=bash
# Issue 29, what is in each file: `graveyard tensors` reads GGUF tables
# (the files written here by a few lines of Python's struct, the format of
# ggml's docs/gguf.md): two files that differ in one tensor, side by side
# in text and JSON; a bad table refused with one line naming the file; a
# 300 GB sparse file read by its table only. Sourced by
# tests/integration/cases.sh.
#
# Tests: orchestrator/cmd/cmd_tensors.c
# Tests: weights/tensors.c
# Tests: weights/gguf.c
# Tests: orchestrator/figures/figures_recipes.c
# Tests: report/md_recipes.c

# tensors_gguf OUT SIZE NAME:TYPE:D0:D1... -> a GGUF v3 with
# general.file_type 2 and general.quantization_version 2, the tensors one
# after another (32-aligned, the block sizes of F32 0, Q4_0 2, Q8_0 8),
# then zeros up to SIZE bytes (0: just the data; truncate makes the rest
# sparse).
tensors_gguf() {
    python3 - "$@" <<'PY'
import struct, sys, os
out, size, specs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
bsz = {0: (1, 4), 2: (32, 18), 8: (32, 34)}
def s(x): return struct.pack("<Q", len(x)) + x.encode()
h = b"GGUF" + struct.pack("<IQQ", 3, len(specs), 2)
h += s("general.file_type") + struct.pack("<II", 4, 2)
h += s("general.quantization_version") + struct.pack("<II", 4, 2)
off = 0
for sp in specs:
    name, ty, d0, d1 = sp.split(":")
    ty, d0, d1 = int(ty), int(d0), int(d1)
    h += s(name) + struct.pack("<IQQIQ", 2, d0, d1, ty, off)
    blk, by = bsz[ty]
    off += (d0 * d1 // blk * by + 31) // 32 * 32
h += b"\0" * (-len(h) % 32)
with open(out, "wb") as f:
    f.write(h)
    if size == 0:
        f.write(b"\0" * off)
if size:
    os.truncate(out, size)
PY
}

case_tensors_differ() {
    local t="blk.0.attn_q.weight:2:64:2 blk.0.attn_norm.weight:0:64:1"
    # shellcheck disable=SC2086
    tensors_gguf "$work/ta.gguf" 0 $t blk.0.attn_v.weight:2:64:2 ||
        { fail "python3 could not write a GGUF"; return; }
    # shellcheck disable=SC2086
    tensors_gguf "$work/tb.gguf" 0 $t blk.0.attn_v.weight:8:64:2
    "$G" tensors "$work/ta.gguf" "$work/tb.gguf" >"$work/t.out" 2>"$work/t.err" ||
        fail "tensors exited $? ($(cat "$work/t.err"))"
    grep -q "^differences: 1 tensors differ in type" "$work/t.out" ||
        fail "no one difference: $(cat "$work/t.out")"
    grep -Eq "^  blk.0.attn_v.weight +\[1\] Q4_0 +72  \[2\] Q8_0 +136$" \
        "$work/t.out" || fail "not the tensor side by side: $(cat "$work/t.out")"
    grep -Eq "^  attn_v +1 +128 +72 +4.500  Q4_0$" "$work/t.out" ||
        fail "no attn_v kind at 4.5 bpw: $(cat "$work/t.out")"
    grep -q "general.file_type = 2" "$work/t.out" || fail "no file type"
    "$G" tensors --json "$work/ta.gguf" "$work/tb.gguf" >"$work/t.json" ||
        fail "tensors --json exited $?"
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["differences"]
assert [e["tensor"] for e in d["differ"]] == ["blk.0.attn_v.weight"], d
assert d["bytes"] == [72, 136], d
' "$work/t.json" || fail "the JSON differences are not the one tensor"
    "$G" tensors "$work/ta.gguf" "$work/ta.gguf" | grep -q "^differences: 0 " ||
        fail "a file differs from itself"
}

case_tensors_bad() {
    local e
    tensors_gguf "$work/tc.gguf" 0 w:2:64:2 x:2:64:2 ||
        { fail "python3 could not write a GGUF"; return; }
    head -c 150 "$work/tc.gguf" >"$work/tcut.gguf"
    "$G" tensors "$work/ta.gguf" "$work/tcut.gguf" >/dev/null 2>"$work/t.err"
    e=$?
    [ $e = 2 ] || fail "a truncated table exited $e, not 2"
    [ "$(wc -l <"$work/t.err")" = 1 ] && grep -q "tcut.gguf" "$work/t.err" ||
        fail "not one line naming the file: $(cat "$work/t.err")"
    echo "not a gguf" >"$work/tn.gguf"
    "$G" tensors "$work/tn.gguf" >/dev/null 2>"$work/t.err"
    e=$?
    [ $e = 2 ] && grep -q "tn.gguf.*bad magic" "$work/t.err" ||
        fail "not a GGUF: exit $e, $(cat "$work/t.err")"
    "$G" tensors "$work/absent.gguf" >/dev/null 2>&1
    e=$?
    [ $e = 2 ] || fail "a missing file exited $e, not 2"
    "$G" tensors >/dev/null 2>&1
    e=$?
    [ $e = 2 ] || fail "no file exited $e, not 2"
}

# 300 GB (sparse: no disk taken) of one F32 tensor: the table alone read,
# within seconds.
case_tensors_sparse() {
    local n=$((300 * 1000 * 1000 * 1000 / 4 / 4096)) start end
    tensors_gguf "$work/big.gguf" 300000000000 "w:0:4096:$n" ||
        { fail "could not write the sparse GGUF"; return; }
    start=$(date +%s)
    "$G" tensors "$work/big.gguf" >"$work/t.out" 2>&1 || fail "exited $?: $(cat "$work/t.out")"
    end=$(date +%s)
    [ $((end - start)) -le 5 ] || fail "300 GB took $((end - start)) s: the data read?"
    grep -q "^  total .* 32.000$" "$work/t.out" || fail "no total: $(cat "$work/t.out")"
    rm -f "$work/big.gguf"
}
area_cases="$area_cases tensors_differ tensors_bad tensors_sparse"

# The report's "Recipes": the golden t4-fewer folder with its ladder.tsv
# pointed at GGUFs written here (Q2_K's left absent, QAT_Q4_0 a Q4_0 with
# one tensor at Q8_0); then the files gone: REPORT.md and report.json are
# the folder's report without them, byte for byte.
case_tensors_report() {
    local d="$work/rf" g="$work/rf-gone" t="a:2:64:2 blk.0.attn_q.weight:2:64:2"
    rm -rf "$d" "$g"
    cp -r tests/golden/data/t4-fewer "$d" && cp -r tests/golden/data/t4-fewer "$g" ||
        { fail "no golden folder"; return; }
    tensors_gguf "$work/r-BF16.gguf" 0 a:0:64:2 blk.0.attn_q.weight:0:64:2 &&
        tensors_gguf "$work/r-Q8_0.gguf" 0 a:8:64:2 blk.0.attn_q.weight:8:64:2 &&
        tensors_gguf "$work/r-Q4_0.gguf" 0 $t &&
        tensors_gguf "$work/r-QAT_Q4_0.gguf" 0 a:2:64:2 blk.0.attn_q.weight:8:64:2 ||
        { fail "python3 could not write a GGUF"; return; }
    sed -i "s|/m/e2b-\([A-Z0-9_]*\).gguf|$work/r-\1.gguf|" "$d/ladder.tsv" "$g/ladder.tsv"
    "$G" report "$d" >/dev/null 2>"$work/t.err" || fail "report exited $?: $(cat "$work/t.err")"
    grep -q "^## Recipes" "$d/REPORT.md" || fail "no Recipes section"
    grep -q "^| Q2_K .* file not here" "$d/REPORT.md" || fail "Q2_K's absent file not said"
    grep -Eq "^\| Q4_0 \| [0-9,]+ \| 4.50 \| 4.50 " "$d/REPORT.md" ||
        fail "Q4_0 not at 4.50 bpw: $(grep -A9 '^## Recipes' "$d/REPORT.md")"
    grep -q "^| QAT_Q4_0 .*beside Q4_0: 1 tensors differ, 136 bytes against 72" "$d/REPORT.md" ||
        fail "the side rung's difference not said: $(grep -A9 '^## Recipes' "$d/REPORT.md")"
    python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["recipes"]
assert [e["here"] for e in r] == [True, True, True, False, True], r
assert r[4]["differ"] == 1 and r[4]["differ_bytes"] == [136, 72], r[4]
import jsonschema
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))
' "$d/report.json" schemas/report.schema.json || fail "report.json's recipes are not the files' (or not as its schema says)"
    rm -f "$work"/r-*.gguf
    "$G" report "$d" >/dev/null 2>&1 && "$G" report "$g" >/dev/null 2>&1 ||
        fail "report without the files failed"
    # the same but for the folder's own path
    sed "s|$d|$g|g" "$d/REPORT.md" | cmp -s - "$g/REPORT.md" &&
        sed "s|$d|$g|g" "$d/report.json" | cmp -s - "$g/report.json" ||
        fail "with the files gone the report is not what it was"
    ! grep -q "Recipes" "$d/REPORT.md" && ! grep -q '"recipes"' "$d/report.json" ||
        fail "with no file here a Recipes section is still written"
}
area_cases="$area_cases tensors_report"

# From round 4 (issue 33; each failed on 21b075f):
# misc_gguf OUT NAME:TYPE... -> a GGUF v3 whose tensor names are given
# with Python's escapes (\x1b, \xff), each 64 x 2 elements, 512 bytes
# apart, with quantize.imatrix.file "im\x1b]0;x\x07\xc2\x9b\xff.dat".
misc_gguf() {
    /usr/bin/python3 - "$@" <<'PY'
import struct, sys
out, specs = sys.argv[1], sys.argv[2:]
def s(x): return struct.pack("<Q", len(x)) + x
h = b"GGUF" + struct.pack("<IQQ", 3, len(specs), 2)
h += s(b"general.file_type") + struct.pack("<II", 4, 2)
h += s(b"quantize.imatrix.file") + struct.pack("<I", 8) + s(b"im\x1b]0;x\x07\xc2\x9b\xff.dat")
for i, sp in enumerate(specs):
    name, ty = sp.rsplit(":", 1)
    name = name.encode().decode("unicode_escape").encode("latin-1")
    h += s(name) + struct.pack("<IQQIQ", 2, 64, 2, int(ty), 512 * i)
h += b"\0" * (-len(h) % 32)
open(out, "wb").write(h + b"\0" * (512 * len(specs)))
PY
}

# graveyard tensors shows a tensor name holding ESC, BEL or bytes that
# are not UTF-8 by the server log lines' rule (\xNN), never raw and never
# "(null)"; a type id neither lineage has leaves '?' and every line its
# end; --json keeps every name, shown, with its bytes in name_hex.
case_tensors_shown() {
    local rc=0
    misc_gguf "$work/h1.gguf" 'blk.0.attn_q.\x1b[31mred\x07:0' \
        'blk.0.attn_k.\xff\xfe:0' 'blk.0.attn_v.weight:200' ||
        { fail "python3 could not write a GGUF"; return; }
    misc_gguf "$work/h2.gguf" 'blk.0.attn_q.\x1b[31mred\x07:2' \
        'blk.0.attn_k.\xff\xfe:2' 'blk.0.attn_v.weight:0'
    timeout -k 5 30 "$G" tensors "$work/h1.gguf" "$work/h2.gguf" \
        >"$work/t.out" 2>"$work/t.err" || rc=$?
    [ $rc = 0 ] || fail "tensors exited $rc ($(cat "$work/t.err"))"
    if LC_ALL=C grep -q '[^ -~]' "$work/t.out"; then
        fail "a byte that is not printable ASCII: $(LC_ALL=C grep -n '[^ -~]' "$work/t.out" | cat -A)"
    fi
    grep -q '(null)' "$work/t.out" && fail "a name printed as (null)"
    grep -Fq 'blk.0.attn_q.\x1b[31mred\x07 ' "$work/t.out" ||
        fail "the ESC/BEL name not shown: $(cat -A "$work/t.out")"
    grep -Fq 'blk.0.attn_k.\xff\xfe ' "$work/t.out" ||
        fail "the bad UTF-8 name not shown: $(cat -A "$work/t.out")"
    grep -Fxq '  quantize.imatrix.file = im\x1b]0;x\x07\xc2\x9b\xff.dat' "$work/t.out" ||
        fail "the imatrix file not shown: $(cat -A "$work/t.out")"
    grep -q '^/.*h1.gguf: 3 tensors, ? bytes, ? bits per weight$' "$work/t.out" ||
        fail "the unknown size's line ran on: $(head -2 "$work/t.out" | cat -A)"
    [ "$(grep -c '^  total ' "$work/t.out")" = 2 ] &&
        ! grep -q '^  total .*h2.gguf' "$work/t.out" ||
        fail "a total line ran on: $(grep 'total' "$work/t.out" | cat -A)"
    rc=0
    timeout -k 5 30 "$G" tensors --json "$work/h1.gguf" "$work/h2.gguf" \
        >"$work/t.json" 2>"$work/t.err" || rc=$?
    [ $rc = 0 ] || fail "tensors --json exited $rc ($(cat "$work/t.err"))"
    /usr/bin/python3 - "$work/t.json" >"$work/t.py" 2>&1 <<'PY' || fail "--json: $(cat "$work/t.py")"
import json, sys
d = json.load(open(sys.argv[1]))
want = [b"blk.0.attn_q.\x1b[31mred\x07", b"blk.0.attn_k.\xff\xfe", b"blk.0.attn_v.weight"]
shown = ["blk.0.attn_q.\\x1b[31mred\\x07", "blk.0.attn_k.\\xff\\xfe", "blk.0.attn_v.weight"]
for f in d["files"]:
    t = f["tensor_table"]
    assert [e.get("name") for e in t] == shown, [e.get("name") for e in t]
    raw = [bytes.fromhex(e["name_hex"]) if "name_hex" in e else e["name"].encode() for e in t]
    assert raw == want, raw
    m = f["metadata"]["quantize.imatrix.file"]
    assert m == "im\\x1b]0;x\\x07\\xc2\\x9b\\xff.dat", m
diff = d["differences"]["differ"]
assert [e.get("tensor") for e in diff] == shown, diff
PY
}
area_cases="$area_cases tensors_shown"
