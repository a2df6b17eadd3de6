#!/usr/bin/python3
"""Validate what graveyard reads and writes against schemas/: the golden
rows, every golden case's stdout (by command) and written files. Also
checks that each schema refuses a broken instance, so this test can fail.
Prints "schemas: N passed, M failed"; exit 1 on any failure.

Needs Debian's python3-jsonschema (scripts/deps.sh installs it)."""
import glob
import json
import os
import sys

import jsonschema

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
passed = failed = 0


def schema(name):
    with open(os.path.join(ROOT, "schemas", name + ".schema.json")) as f:
        s = json.load(f)
    jsonschema.Draft202012Validator.check_schema(s)
    return jsonschema.Draft202012Validator(s)


S = {n: schema(n) for n in ("row", "bury-line", "bury-summary", "graveyard",
                            "autopsy-line", "repeat-line", "config",
                            "report", "compare-line", "compare-summary",
                            "compare", "think-line", "think", "ladder",
                            "build", "f16-range-line", "task",
                            "import-line")}
# files a command writes, by name; any other .json is graveyard.json
FILES = {"report.json": "report", "compare.json": "compare",
         "think.json": "think", "ladder.json": "ladder"}


def check(name, instance, where, expect_ok=True):
    global passed, failed
    errors = list(S[name].iter_errors(instance))
    if bool(errors) == expect_ok:
        failed += 1
        why = errors[0].message if errors else "accepted a broken instance"
        print(f"schemas: {where}: {name}: {why}")
    else:
        passed += 1


data = os.path.join(ROOT, "tests", "golden", "data")
for path in sorted(glob.glob(os.path.join(data, "*", "rows", "*.jsonl"))):
    if "/bad/" in path and not path.endswith("BF16.jsonl"):
        continue  # broken on purpose
    with open(path) as f:
        for i, line in enumerate(f, 1):
            check("row", json.loads(line), f"{path}:{i}")

cases = os.path.join(ROOT, "tests", "golden", "cases")
for case in sorted(os.listdir(cases)):
    d = os.path.join(cases, case)
    with open(os.path.join(d, "rc")) as f:
        if f.read().strip() != "0":
            continue
    with open(os.path.join(d, "cmd")) as f:
        command = f.read().split()[0]
    with open(os.path.join(d, "stdout")) as f:
        # the files written are not JSON, nor report's decision block
        # ("Which file?"): each of its lines, unlike a JSON line, opens
        # with a letter or a space
        lines = [json.loads(x) for x in f
                 if x.strip() and not x.startswith("wrote ") and
                 (command != "report" or x[0] == "{")]
    for i, obj in enumerate(lines, 1):
        if command in ("bury", "compare") and i == len(lines):
            name = command + "-summary"
        else:
            name = command + "-line"
        check(name, obj, f"{case} stdout line {i}")
    for path in glob.glob(os.path.join(d, "files", "**", "*.json"),
                          recursive=True):
        with open(path) as f:
            obj = json.load(f)
        if os.path.basename(path) == "manifest.json":
            if "task" in obj:  # the task a run folder records
                check("task", obj["task"], path)
            continue
        check(FILES.get(os.path.basename(path), "graveyard"), obj, path)

# the ladder shapes in the golden run folders
for path in sorted(glob.glob(os.path.join(data, "*", "ladder.json"))):
    with open(path) as f:
        check("ladder", json.load(f), path)

# the tasks the golden run folders record, and every shipped task file
for path in sorted(glob.glob(os.path.join(data, "*", "manifest.json"))):
    with open(path) as f:
        m = json.load(f)
    if "task" in m:
        check("task", m["task"], path)
for path in sorted(glob.glob(os.path.join(ROOT, "tasks", "*.json"))):
    with open(path) as f:
        check("task", json.load(f), path)

# every shipped ladder config
for path in sorted(glob.glob(os.path.join(ROOT, "configs", "*.json"))):
    with open(path) as f:
        check("config", json.load(f), path)

# report.json with split figures: test_report_probs writes one from its
# hand-filled figures (no run makes probs files until the capture side
# lands), when built ($BUILD, default build)
probs_bin = os.path.join(ROOT, os.environ.get("BUILD", "build"), "tests",
                         "test_report_probs")
if os.path.exists(probs_bin):
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "report.json")
        subprocess.run([probs_bin], env=dict(os.environ, GY_PROBS_JSON=out),
                       capture_output=True, check=False)
        if os.path.exists(out):
            with open(out) as f:
                rep = json.load(f)
            check("report", rep, "test_report_probs report.json")
            rep["probs"]["dead"][0]["ref_top"][0][2] = 7
            check("report", rep, "a token text that is a number", False)
        else:
            failed += 1
            print("schemas: test_report_probs wrote no report.json")

# each schema must refuse something
check("row", {"reference": "1"}, "row without id", expect_ok=False)
check("bury-line", {"rung": "Q4_0"}, "bury line without counts", False)
check("bury-summary", {"tombstones": -1, "ghosts": 0,
                       "first_deaths_by_rung": {}}, "negative count", False)
check("graveyard", {"reference": "BF16"}, "graveyard without records", False)
check("autopsy-line", {"rung": "x", "n": "8"}, "autopsy with a string", False)
check("repeat-line", {"rung": "x"}, "repeat without counts", False)
check("report", {"reference": "BF16", "rungs": []}, "report without rungs",
      False)
# report.json's "duels" (docs/duel.md): a duel as graveyard writes it is
# taken, one whose verdict is the ladder's word ("better") is refused
DUEL = {"a": "A", "b": "B", "n": 4, "only_one": 0, "both_right": 1,
        "a_only": 2, "b_only": 1, "neither": 0, "neither_apart": 0,
        "p_mcnemar": 1.0,
        "change": 25.0, "ci95": [-46.1, 74.7], "ci90": [-38.3, 70.6],
        "verdict": "cannot tell", "margin": 2.0, "margin_asked": 2.0,
        "n_equiv": None, "n_power": 14715, "floor": None,
        "disagree": ["q1"], "subjects": [], "provenance": None}
DUELS = jsonschema.Draft202012Validator(
    S["report"].schema["properties"]["duels"])
for duel, ok, what in ((DUEL, True, "a duel"),
                       (dict(DUEL, verdict="better"), False,
                        "a duel whose verdict is the ladder's word")):
    if bool(list(DUELS.iter_errors([duel]))) == ok:
        failed += 1
        print(f"schemas: report duels: {what}: wrong")
    else:
        passed += 1
check("compare-line", {"rung": "Q4_0", "right": [1, -1]}, "negative right",
      False)
check("compare-summary", {"runs": 2, "same_files": "yes"}, "string flag",
      False)
check("compare", {"runs": []}, "compare without rungs", False)
check("think-line", {"rung": "Q4_0", "n": 8}, "think without counts", False)
check("think", {"rungs": []}, "think without settings", False)
check("ladder", {"name": "x", "reference": "BF16", "rungs": [],
                 "side_rungs": [], "thinking": False}, "no rungs", False)
check("config", {"name": "x", "questions": "q", "run_dir": "r",
                 "rungs": [{"name": "A", "model": "a.gguf"}],
                 "server": {"binary": "b"}, "gpu": ["0"]},
      "config with an unknown key", False)

check("config", {"name": "x", "questions": "q", "run_dir": "r",
                 "rungs": [{"name": "A", "model": "a.gguf", "convert": "bf16",
                            "quantize": {"from": "B", "type": "Q4_0"}}],
                 "server": {"binary": "b"}}, "convert and quantize", False)
for bad, what in ((dict(gpus=["0", "0"]), "a GPU named twice"),
                  (dict(run_dir="-rd"), "run_dir like a flag"),
                  (dict(request={"extra": {"stream": False}}),
                   "request.extra setting stream"),
                  (dict(request={"extra": {"chat_template_kwargs":
                                           {"enable_thinking": True}}}),
                   "request.extra setting enable_thinking")):
    check("config", {"name": "x", "questions": "q", "run_dir": "r",
                     "rungs": [{"name": "A", "model": "a.gguf"}],
                     "server": {"binary": "b"}, **bad}, what, False)
check("build", {"graveyard_build": 1, "rungs": {"Q4_0": {"file": "f"}}},
      "build record without a hash", False)
check("f16-range-line", {"tensor": "w", "n": 1, "overflow": -1,
                         "underflow": 0, "subnormal": 0, "absmax": 0.0,
                         "nonfinite": 0, "dtype": "BF16"},
      "negative count", False)
check("f16-range-line", {"tensor": "TOTAL", "n": 1, "overflow": 0,
                         "underflow": 0, "subnormal": 0, "absmax": 0.0,
                         "nonfinite": 0}, "TOTAL without skipped", False)

check("task", {"name": "x", "rules": [{"name": "r", "kind": "regex"}]},
      "regex rule without a pattern", False)
check("task", {"name": "x", "rules": [{"name": "r", "kind": "boxed",
                                       "pattern": "p"}]},
      "pattern on a boxed rule", False)
check("import-line", {"rung": "LM", "rows": 0}, "import without counts",
      False)

print(f"schemas: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
