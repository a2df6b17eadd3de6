#!/bin/sh
# Commands over a library (docs/design.md): no command calls another
# command's entry point, and nothing points standard output elsewhere.
#  1. no object of liborch.a (every orchestrator module but main.c, whose
#     table is the one place that names the commands) needs a cmd_*
#     symbol: bury, report, compare... are figures.h's functions, a run is
#     runplan.h's, and the ladder and the canary call those;
#  2. no dup2 onto descriptor 1 in orchestrator/ (a quiet run is a flag
#     of its plan, not standard output sent to /dev/null).
# Usage: check-commands.sh LIBORCH
set -eu
lib=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if nm -A -u "$lib" | grep -E ' U cmd_[a-z0-9_]+$' >"$tmp/calls"; then
    echo "check-commands: a command calls another command's entry point:" >&2
    cat "$tmp/calls" >&2
    exit 1
fi
if grep -nE 'dup2 *\([^;]*, *(1|STDOUT_FILENO|fileno *\( *stdout *\)) *\)' \
        orchestrator/*/*.c >"$tmp/dup2"; then
    echo "check-commands: standard output redirected in-process:" >&2
    cat "$tmp/dup2" >&2
    exit 1
fi
echo "check-commands: no command calls another's entry point; stdout is never redirected"
