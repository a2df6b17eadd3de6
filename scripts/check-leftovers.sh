#!/bin/sh
# check-leftovers: four leftovers of before, each a grep that must find
# nothing (issue 34; docs/design.md):
#   - a fixed path array in rundir/ (char x[4096]): a run-folder path is
#     a capped struct buf (rundir_path_buf, util.h's buf_path), refused
#     past RUNDIR_PATH_MAX with a message naming it, never cut short;
#   - a fixed array in the bundle's stage (orchestrator/figures/
#     figures_stage.c, struct figures__stage in figures_int.h): its
#     folder's path is a struct buf too;
#   - pyre's names from when it lived in the grader (the prefix "grader"
#     + "_re_", its macros' upper-case forms, and the grader-named
#     str_lower and utf8_seq): pyre's calls are pyre_*, its private ones
#     pyre__*;
#   - a curl_easy_setopt / curl_multi_setopt whose result is not used (a
#     statement of its own, or cast to void): every option set is checked
#     and a failure names the option (orchestrator/server/http.c).
# Usage: check-leftovers.sh [ROOT]   (default: this checkout; the guards'
# test runs it on a copy with each leftover planted). Exit 0, or 1 naming
# each hit as FILE:LINE: text; 2 when ROOT is not a checkout.
set -eu
if [ $# -gt 0 ]; then
    root=$1
else
    root=$(cd "$(dirname "$0")/.." && pwd)
fi
for d in rundir orchestrator/figures pyre grader; do
    if [ ! -d "$root/$d" ]; then
        echo "check-leftovers: '$root/$d' is missing" >&2
        exit 2
    fi
done
cd "$root"

# spelt in pieces so that this file is no hit of its own: the functions,
# their private macros (GRADER__RE_NIL...) and the two helpers pyre's
# header gave the grader's name (str_lower, utf8_seq)
old="grader""_re_|GRADER""_{1,2}RE_|GRADER""__SET_|grader""_(str_lower|utf8_seq)"
found=0
# hits WHAT PATTERN FILE...: each line of FILE... that PATTERN (ERE)
# matches, named as FILE:LINE: text
hits() {
    what=$1 pat=$2
    shift 2
    out=$(grep -nE -- "$pat" "$@" 2>/dev/null || true)
    if [ -n "$out" ]; then
        printf '%s\n' "$out" | sed "s|^|check-leftovers: $what: |" >&2
        found=$((found + $(printf '%s\n' "$out" | wc -l)))
    fi
}

# the C files under those of the folders given that are there, the build
# folder left out
cfiles() {
    for d in "$@"; do [ -d "$d" ] && echo "$d"; done |
        xargs -r sh -c 'find "$@" -name build -prune -o -type f \( -name "*.c" -o -name "*.h" \) -print' sh |
        sort
}

# shellcheck disable=SC2046
hits "a fixed path array in rundir/ (use a struct buf: rundir_path_buf)" \
    '\[4096\]' $(cfiles rundir)
hits "a fixed array in the bundle's stage (use a struct buf: buf_path)" \
    'stage\[4200\]|char [A-Za-z_]+\[[0-9]{4,}\]' \
    orchestrator/figures/figures_stage.c orchestrator/figures/figures_int.h
# shellcheck disable=SC2046
hits "pyre's old prefix (pyre_*, pyre__*)" "$old" \
    $(cfiles grader pyre report rundir util weights orchestrator tests) \
    $(for d in scripts tests docs; do [ -d "$d" ] && echo "$d"; done |
        xargs -r sh -c 'find "$@" -type f \( -name "*.sh" -o -name "*.py" \
            -o -name "*.md" \) ! -name check-leftovers.sh \
            ! -path tests/guards/run.sh -print' sh | sort) \
    $([ -f Makefile ] && echo Makefile)
# shellcheck disable=SC2046
hits "a curl option set unchecked (check its CURLcode, name the option)" \
    '^[[:space:]]*(\(void\)[[:space:]]*)?curl_(easy|multi|share)_setopt[[:space:]]*\(' \
    $(cfiles orchestrator report rundir util tests/unit)

if [ "$found" -gt 0 ]; then
    echo "check-leftovers: $found leftover(s), each a grep that must find nothing" >&2
    exit 1
fi
echo "check-leftovers: no fixed path array in rundir/ or the stage, no old pyre name, no unchecked curl option"
