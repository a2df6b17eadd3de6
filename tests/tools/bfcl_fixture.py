#!/usr/bin/env python3
"""BFCL's own verdicts on tests/tools/bfcl_cases.jsonl, written to
tests/tools/bfcl_verdicts.json (docs/grading.md, "Tool calls (BFCL's AST
checker)"): the cases graded by the Berkeley Function Calling
Leaderboard's code, run from a checkout of gorilla given by path, none of
it copied here.

From the checkout, unchanged:
  bfcl_eval/eval_checker/ast_eval/ast_checker.py   imported whole (its
      type_mappings, enums and type convertors with it)
  bfcl_eval/eval_checker/eval_runner.py            _evaluate_single_ast_entry
      and _evaluate_single_relevance_entry, the code around the checker
      (decoding, the format check, irrelevance), read from the file and
      compiled alone (the module imports every model handler)
  bfcl_eval/utils.py                               is_function_calling_format_output
      and is_empty_output, likewise (the module needs filelock)
  bfcl_eval/model_handler/api_inference/openai_completion.py
      OpenAICompletionsHandler.decode_ast, likewise, on a handler in
      function-calling mode: each call's arguments through json.loads
One module is stood in for: bfcl_eval.constants.model_config (it imports
every model handler), whose MODEL_CONFIG_MAPPING the checker reads only
for a function name with a dot (none here): the model "graveyard", no
underscore_to_dot.

What graveyard hands BFCL is what BFCL's OpenAI handler would: the model
result a list of {name: arguments text} when the server gave calls, else
the message's content (its _parse_query_response_FC); the function docs
in BFCL's own shape (an OpenAI tool unwrapped, OpenAI's "number" and
"object" back to BFCL's "float" and "dict", the inverse of its
GORILLA_TO_OPENAPI). The category decides the runner: irrelevance goes
to the relevance entry, every other to the AST entry, as BFCL's
evaluate_task does.

Usage: bfcl_fixture.py CHECKOUT [--cases FILE] [--out FILE] [--commit SHA]
  CHECKOUT holds berkeley-function-call-leaderboard/ (or is it); the
  commit is read with git, else from CHECKOUT/COMMIT, else --commit."""
import argparse
import ast
import copy
import json
import os
import subprocess
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))


def bfcl_root(checkout):
    sub = os.path.join(checkout, "berkeley-function-call-leaderboard")
    root = sub if os.path.isdir(sub) else checkout
    if not os.path.isfile(os.path.join(
            root, "bfcl_eval", "eval_checker", "ast_eval", "ast_checker.py")):
        sys.exit("bfcl_fixture: no bfcl_eval/eval_checker/ast_eval/"
                 "ast_checker.py under '%s'" % checkout)
    return root


def commit_of(checkout, given):
    if given:
        return given
    try:
        return subprocess.run(["git", "-C", checkout, "rev-parse", "HEAD"],
                              check=True, capture_output=True,
                              text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    try:
        with open(os.path.join(checkout, "COMMIT")) as f:
            return f.read().strip()
    except OSError:
        sys.exit("bfcl_fixture: cannot tell the commit of '%s': "
                 "give --commit" % checkout)


def functions_of(path, names, namespace, cls=None):
    """The functions names (of class cls) from the source file at path,
    compiled alone into namespace: BFCL's own code, nothing copied."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    body = tree.body
    if cls is not None:
        body = next(n.body for n in tree.body
                    if isinstance(n, ast.ClassDef) and n.name == cls)
    found = [n for n in body
             if isinstance(n, ast.FunctionDef) and n.name in names]
    if sorted(n.name for n in found) != sorted(names):
        sys.exit("bfcl_fixture: '%s' lacks one of %s" % (path, names))
    mod = ast.Module(body=found, type_ignores=[])
    exec(compile(mod, path, "exec"), namespace)


def load_bfcl(root):
    sys.path.insert(0, root)
    stub = types.ModuleType("bfcl_eval.constants.model_config")
    stub.MODEL_CONFIG_MAPPING = {
        "graveyard": types.SimpleNamespace(underscore_to_dot=False)}
    sys.modules["bfcl_eval.constants.model_config"] = stub
    from bfcl_eval.constants.enums import Language, ReturnFormat
    from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker
    ns = {"ast_checker": ast_checker, "Language": Language,
          "ReturnFormat": ReturnFormat, "BaseHandler": object}
    pkg = os.path.join(root, "bfcl_eval")
    functions_of(os.path.join(pkg, "utils.py"),
                 ["is_function_calling_format_output", "is_empty_output"], ns)
    functions_of(os.path.join(pkg, "eval_checker", "eval_runner.py"),
                 ["_evaluate_single_ast_entry",
                  "_evaluate_single_relevance_entry"], ns)
    hns = {"json": json}
    functions_of(os.path.join(pkg, "model_handler", "api_inference",
                              "openai_completion.py"), ["decode_ast"], hns,
                 cls="OpenAICompletionsHandler")
    handler = types.SimpleNamespace(is_fc_model=True)
    handler.decode_ast = types.MethodType(hns["decode_ast"], handler)
    return ns, handler, Language, ReturnFormat


BFCL_TYPE = {"number": "float", "object": "dict"}


def to_bfcl(schema):
    """OpenAI's type names back to BFCL's, all the way down."""
    if isinstance(schema, dict):
        out = {k: to_bfcl(v) for k, v in schema.items()}
        if isinstance(schema.get("type"), str):
            out["type"] = BFCL_TYPE.get(schema["type"], schema["type"])
        return out
    if isinstance(schema, list):
        return [to_bfcl(v) for v in schema]
    return schema


def bfcl_doc(doc):
    if isinstance(doc.get("function"), dict):
        doc = doc["function"]
    doc = to_bfcl(copy.deepcopy(doc))
    doc.setdefault("parameters", {"type": "dict", "properties": {}})
    doc["parameters"].setdefault("required", [])
    return doc


def model_result(case):
    """What BFCL's OpenAI handler keeps of the reply."""
    if case["calls"]:
        return [{c["name"]: c["arguments"]} for c in case["calls"]]
    return case["content"] if case["content"] is not None else ""


def grade(case, ns, handler, language, return_format):
    prompt = {"id": case["id"],
              "function": [bfcl_doc(d) for d in case["docs"]]}
    result = model_result(case)
    if case["category"] == "irrelevance":
        r = ns["_evaluate_single_relevance_entry"](
            handler, case["id"], result, prompt, "graveyard",
            case["category"])
    else:
        r = ns["_evaluate_single_ast_entry"](
            handler, case["id"], result, case["answers"], prompt,
            "graveyard", case["category"], language, return_format)
    out = {"valid": bool(r["valid"]), "error_type": r.get("error_type")}
    subs = []
    for e in r.get("error", []) if not r["valid"] else []:
        if isinstance(e, dict):
            for v in e.values():
                if isinstance(v, dict) and "sub_error_type" in v:
                    subs.append(v["sub_error_type"])
    if subs:
        out["sub_error_types"] = subs
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("checkout")
    ap.add_argument("--cases", default=os.path.join(HERE,
                                                    "bfcl_cases.jsonl"))
    ap.add_argument("--out", default=os.path.join(HERE,
                                                  "bfcl_verdicts.json"))
    ap.add_argument("--commit")
    a = ap.parse_args()
    root = bfcl_root(a.checkout)
    ns, handler, language, return_format = load_bfcl(root)
    verdicts = {}
    with open(a.cases, encoding="utf-8") as f:
        for line in f:
            case = json.loads(line)
            verdicts[case["id"]] = grade(case, ns, handler,
                                         language.PYTHON,
                                         return_format.PYTHON)
    doc = {"bfcl": "ShishirPatil/gorilla",
           "commit": commit_of(a.checkout, a.commit),
           "checker": "berkeley-function-call-leaderboard/bfcl_eval/"
                      "eval_checker/ast_eval/ast_checker.py",
           "cases": os.path.relpath(a.cases, os.path.dirname(a.out)),
           "verdicts": verdicts}
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, sort_keys=True, ensure_ascii=False)
        f.write("\n")
    right = sum(v["valid"] for v in verdicts.values())
    print("bfcl_fixture: %d cases, %d right by BFCL (commit %s), in '%s'"
          % (len(verdicts), right, doc["commit"][:12], a.out))


if __name__ == "__main__":
    main()
