#!/bin/sh
# Prove each run-folder format has one owner (docs/design.md, "rundir/"):
#  1. no C file outside rundir/ reads or writes a manifest key by hand: a
#     key of rundir/manifest_keys.h's table (its `#define MK_...` lines,
#     read from the table itself) spelt as a string literal in a
#     json_object_* or json_pack call, or the table's MK_ names used at
#     all, or the table included;
#  2. no C file outside rundir/ spells ".done" or "ladder.tsv" as a
#     literal a path or a name is made of (a literal without a space that
#     ends in either: a suffix compared, a file named); prose that names
#     the files (help, messages) is allowed.
# EXCEPTIONS below names a file, the key or spelling it may use (* for
# all) and why. Usage: check-formats.sh [ROOT] (the source tree, default
# .); tests/formats/run.sh runs it on a scratch tree with a planted breach.
set -eu
root=${1:-.}
keys=$root/rundir/manifest_keys.h
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# FILE KEY REASON: a file outside rundir/ that may spell KEY
cat >"$tmp/exceptions" <<'EOF'
orchestrator/input/config.c server a ladder config's "server" (docs/config.md), not the manifest's
orchestrator/input/config_request.c request a ladder config's "request" (docs/config.md)
orchestrator/input/config_request.c extra a ladder config's request.extra
orchestrator/input/config_request.c abort_loops a ladder config's request.abort_loops
orchestrator/input/config_request.c enable_thinking chat_template_kwargs.enable_thinking in a config's extra (the chat API's)
orchestrator/input/config_endpoint.c endpoint a config rung's "endpoint" (docs/config.md)
orchestrator/input/config_endpoint.c allow_plain_http a config rung's endpoint.allow_plain_http
orchestrator/input/config_endpoint.c ngl a config rung's "ngl", refused beside an endpoint
orchestrator/input/config_endpoint.c server_args a config rung's "server_args", refused beside an endpoint
orchestrator/input/config_json.c ngl a config rung's "ngl" (docs/config.md)
orchestrator/input/config_paths.c rungs a config's "rungs", read back for their paths (docs/config.md, "Paths")
orchestrator/input/ladderinit.c questions the ladder config graveyard init writes (docs/init.md), not the manifest
orchestrator/input/ladderinit.c model a config rung's "model", written by graveyard init
orchestrator/input/ladderinit.c rungs a config's "rungs", written by graveyard init
orchestrator/input/ladderinit.c server a config's "server", written by graveyard init
orchestrator/cmd/cmd_init.c task a config's "task", written by graveyard init for a file of tool items (docs/init.md)
report/json.c questions report.json's decide.questions and each margin's questions that would tell (docs/report.md)
orchestrator/input/taskfile.c prompt a task file's "prompt" (docs/tasks.md), the format taskfile.c owns
orchestrator/input/taskfile.c max_tokens a task file's "max_tokens" (docs/tasks.md)
orchestrator/input/taskfile.c endpoint a task file's "endpoint" (docs/tasks.md, docs/code.md), not a rung's
orchestrator/run/request.c prompt a /v1/completions request's "prompt" (the server's API), not the manifest's
orchestrator/input/questions.c prompt a long item's "prompt" in a question file (docs/longctx.md), not the manifest's
orchestrator/input/codeitem.c prompt HumanEval's "prompt" and the sanitized MBPP's (docs/code.md), not the manifest's
orchestrator/cmd/cmd_canary.c prompt a long item's "prompt" in the canary's question file (docs/longctx.md), not the manifest's
orchestrator/input/config_long.c seed a ladder config's "long"."seed" (docs/config.md), not the manifest's
orchestrator/input/longitem.c seed a long item's "long"."seed" in a question file (docs/longctx.md), the format longitem.c owns, not the manifest's
orchestrator/input/longitem.c prompt a long item's "prompt" in a question file of one's own, read for its length (docs/longctx.md), not the manifest's
orchestrator/run/request.c enable_thinking the chat request's chat_template_kwargs (the server's API), not the manifest
orchestrator/server/reply.c logprobs a chat reply's choice.logprobs (the server's API)
report/json.c rungs report.json's own "rungs" (docs/report.md)
report/emit_probs.c rungs report.json's probs.rungs (docs/report.md)
report/md_differs.c rungs report.json's differs.rungs, read back by its own writer's module
report/card.c task lm-eval's results file (the harness's "task" and configs), not the manifest
report/card.c model lm-eval's config_general ("model": "graveyard")
report/card.c graveyard lm-eval's config_general ("model": "graveyard")
orchestrator/cmd/cmd_audit.c questions the audit's verdict line (--json): questions compared
orchestrator/cmd/cmd_audit.c rungs the audit's verdict line (--json): the rungs compared
orchestrator/figures/figures_bundle.c model publish.json's "model" (the bundle's own record of publish's names, docs/publish.md), not the manifest's
orchestrator/figures/figures_bundle.c rungs publish.json's "rungs" (the report's --rungs choice publish rendered with)
orchestrator/figures/figures_bundle_write.c model publish.json's "model", written where figures_bundle.c reads it
orchestrator/figures/figures_bundle_write.c rungs publish.json's "rungs", written where figures_bundle.c reads it
EOF

if [ ! -f "$keys" ]; then
    echo "check-formats: cannot read the key table '$keys'" >&2
    exit 2
fi
sed -n 's/^#define[ \t]\{1,\}MK_[A-Z0-9_]*[ \t]\{1,\}"\([a-z0-9_]*\)".*/\1/p' "$keys" >"$tmp/keys"
if [ ! -s "$tmp/keys" ]; then
    echo "check-formats: no key in '$keys'" >&2
    exit 2
fi

# the C files outside rundir/, relative to root
(cd "$root" && for f in grader/*.[ch] pyre/*.[ch] report/*.[ch] \
    orchestrator/*/*.[ch] util/*.[ch] weights/*.[ch]; do
    [ -f "$f" ] && printf '%s\n' "$f"
done) >"$tmp/files"

: >"$tmp/bad"
while IFS= read -r f; do
    # FILE:LINE:WHAT for each json_object_* or json_pack statement that
    # spells a key of the table (joined up to its ';'), each MK_ name,
    # each include of the table, each ".done"/"ladder.tsv" literal
    awk -v file="$f" -v keyfile="$tmp/keys" '
        BEGIN { while ((getline k < keyfile) > 0) key["\"" k "\""] = k }
        function report(line, what) { print file ":" line ":" what }
        function scan(text, line,   s, m) {
            s = text
            while (match(s, /"[a-z0-9_]+"/)) {
                m = substr(s, RSTART, RLENGTH)
                if (m in key)
                    report(line, key[m])
                s = substr(s, RSTART + RLENGTH)
            }
        }
        /^[ \t]*(\/\*|\*)/ { next }   # a comment line
        {
            if (open == 0 && $0 ~ /json_(object_(get|set|set_new|del)|pack)[ \t]*\(/) {
                open = 1; start = NR; stmt = ""
            }
            if (open) {
                stmt = stmt " " $0
                if ($0 ~ /;/) { scan(stmt, start); open = 0 }
            }
            if ($0 ~ /(^|[^A-Za-z0-9_])MKS?_[A-Z0-9_]+/)
                report(NR, "manifest_keys.h name")
            if ($0 ~ /#[ \t]*include[ \t]*"[^"]*manifest_keys\.h"/)
                report(NR, "manifest_keys.h included")
            if ($0 ~ /"[^" ]*\.done"/)
                report(NR, ".done")
            if ($0 ~ /"[^" ]*ladder\.tsv"/)
                report(NR, "ladder.tsv")
        }' "$root/$f"
done <"$tmp/files" >"$tmp/found"

# drop what EXCEPTIONS allows: the file with * or with that key
awk 'NR == FNR { ok[$1 " " $2] = 1; next }
     {
         split($0, p, ":")
         if (ok[p[1] " *"] || ok[p[1] " " p[3]]) next
         print
     }' "$tmp/exceptions" "$tmp/found" >"$tmp/bad"

if [ -s "$tmp/bad" ]; then
    echo "check-formats: a run-folder format read or written outside rundir/" \
         "(rundir/manifest.h's readers and writers, rundir/ladderfile.h," \
         "rundir/meta.h own them):" >&2
    sed 's/^/  /' "$tmp/bad" >&2
    exit 1
fi
n=$(wc -l <"$tmp/keys")
echo "check-formats: no manifest key ($n in rundir/manifest_keys.h), .done or ladder.tsv spelt outside rundir/"
