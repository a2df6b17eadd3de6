# Round 3, area build (issue 24: G5, G17), sourced by round3.sh: what a
# build does with files made from a source that changed since (a new
# checkpoint and --force BF16, a build killed half way, a BF16 replaced
# by hand), and the build line of either lineage's llama-quantize in
# build.json. Helpers as tests/integration/build.sh's, prefixed r3b_.
R3B_Q=$build/fake-llama-quantize
R3B_C=$build/fake-convert-hf
cp "$ROOT/tests/fake-tools/convert_hf_to_gguf.py" "$work/r3b-convert.py"

# A ladder config NAME (BF16 and F16 converted from checkpoint CKPT, Q8_0,
# Q4_0 and Q2_K quantized from BF16), its models in $work/NAME/m.
r3b_config() {
    local name=$1 ckpt=$2
    mkdir -p "$work/$name"
    cat >"$work/$name.json" <<JSON
{"name": "$name", "questions": "$work/q.jsonl", "run_dir": "$work/$name/run",
 "build": {"checkpoint": "$ckpt", "python": "$R3B_C", "convert": "$work/r3b-convert.py",
           "quantize": "$R3B_Q", "threads": 4},
 "rungs": [
  {"name": "BF16", "model": "$work/$name/m/BF16.gguf", "convert": "bf16"},
  {"name": "F16", "model": "$work/$name/m/F16.gguf", "convert": "f16"},
  {"name": "Q8_0", "model": "$work/$name/m/Q8_0.gguf", "quantize": {"from": "BF16", "type": "Q8_0"}},
  {"name": "Q4_0", "model": "$work/$name/m/Q4_0.gguf", "quantize": {"from": "BF16", "type": "Q4_0"}},
  {"name": "Q2_K", "model": "$work/$name/m/Q2_K.gguf", "quantize": {"from": "BF16", "type": "Q2_K"}}],
 "server": {"binary": "$FAKE"}, "gpus": ["0"]}
JSON
}
r3b_sums() { (cd "$1" && sha256sum BF16.gguf F16.gguf Q8_0.gguf Q4_0.gguf Q2_K.gguf 2>/dev/null); }
r3b_temps() { find "$1" -name '*.graveyard-tmp*' | wc -l; }
r3b_tools_left() { pgrep -f "$R3B_Q .*$work/|$R3B_C .*$work/" >/dev/null; }

# Two checkpoints, the demo's and one with a weight changed (so each
# BF16, F16 and every quantization made from them differ), and the bytes
# a fresh build makes from each: what the cases must end with.
r3b_setup() {
    [ -e "$work/r3b-new.sums" ] && return 0
    cp -r "$ROOT/configs/demo/checkpoint" "$work/r3b-old"
    cp -r "$ROOT/configs/demo/checkpoint" "$work/r3b-new"
    /usr/bin/python3 - "$work/r3b-new/model.safetensors" <<'PY'
import struct, sys
with open(sys.argv[1], "r+b") as f:
    n = struct.unpack("<Q", f.read(8))[0]
    f.seek(8 + n)         # the first tensor's first weight (BF16)
    b = f.read(1)
    f.seek(8 + n)
    f.write(bytes([b[0] ^ 0x5a]))
PY
    r3b_config r3b-refold "$work/r3b-old"
    r3b_config r3b-refnew "$work/r3b-new"
    $GT build "$work/r3b-refold.json" --quiet || fail "the old reference build: $?"
    $GT build "$work/r3b-refnew.json" --quiet || fail "the new reference build: $?"
    r3b_sums "$work/r3b-refold/m" >"$work/r3b-old.sums"
    r3b_sums "$work/r3b-refnew/m" >"$work/r3b-new.sums"
    # every file differs between them, or the cases below prove nothing
    [ -z "$(comm -12 <(cut -d' ' -f1 "$work/r3b-old.sums" | sort) <(cut -d' ' -f1 "$work/r3b-new.sums" | sort))" ] ||
        fail "the changed checkpoint made some of the same bytes"
}

# G17: build.json's "tool" is the quantizer's path and its build line, for
# ik_llama.cpp's form ("main: build = N (C)", print_build_info in main)
# and for upstream's ("llama_print_build_info: build = N (C)", from
# common/build-info.cpp), both on stderr: the fake prints either
# (FAKE_QUANTIZE_LINEAGE=upstream).
case_tool_build_line() {
    r3b_setup
    for lineage in ik upstream; do
        r3b_config r3b-tl-$lineage "$work/r3b-old"
        FAKE_QUANTIZE_LINEAGE=$lineage $GT build "$work/r3b-tl-$lineage.json" --only Q4_0 --quiet 2>"$work/err" || fail "$lineage: exit $? $(cat "$work/err")"
    done
    head -1 "$work/r3b-tl-upstream/run/build/Q4_0.log" | grep -q "^llama_print_build_info: build = 6789 (abcdef12)$" ||
        fail "the fake's upstream log: $(head -3 "$work/r3b-tl-upstream/run/build/Q4_0.log")"
    head -1 "$work/r3b-tl-ik/run/build/Q4_0.log" | grep -q "^main: build = 4242 (fa4e0001)$" ||
        fail "the fake's ik log: $(head -3 "$work/r3b-tl-ik/run/build/Q4_0.log")"
    /usr/bin/python3 - "$work" "$R3B_Q" <<'PY' || fail "build.json's tool"
import json, sys
w, q = sys.argv[1], sys.argv[2]
for lineage, line in (("ik", "build = 4242 (fa4e0001)"), ("upstream", "build = 6789 (abcdef12)")):
    t = json.load(open(f"{w}/r3b-tl-{lineage}/run/build.json"))["rungs"]["Q4_0"]["tool"]
    assert t == f"{q} {line}", (lineage, t)
PY
}

round3_cases="$round3_cases tool_build_line"
