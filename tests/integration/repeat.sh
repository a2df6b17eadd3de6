#!/bin/bash
# Run integration or hostile cases many times, each time in a fresh work
# folder, under one or more builds: a race that shows once in a hundred
# runs (a server outliving a killed ladder under ASan) needs this, not one
# pass of make check. Every run's verdict is printed; the summary says how
# many failed, and the exit status is 1 when any did.
#
# usage: tests/integration/repeat.sh N SUITE BUILD[,BUILD...] CASE...
#   SUITE is run (run.sh), hostile (hostile.sh), build (build.sh) or cases
#   (cases.sh: the cases of tests/integration/areas/)
#   e.g. tests/integration/repeat.sh 20 run build,build/sanitize ladder_kill
set -u
[ $# -ge 4 ] || { sed -n '2,13p' "$0" >&2; exit 2; }
n=$1 suite=$2 builds=$3; shift 3
here=$(cd "$(dirname "$0")" && pwd)
script=$here/$suite.sh
[ -f "$script" ] || { echo "repeat: no suite '$suite' ($script)" >&2; exit 2; }
case $n in ''|*[!0-9]*) echo "repeat: N must be a number, not '$n'" >&2; exit 2;; esac
runs=0 bad=0
for i in $(seq 1 "$n"); do
    for b in ${builds//,/ }; do
        [ -x "$b/graveyard" ] || { echo "repeat: no $b/graveyard (build it first)" >&2; exit 2; }
        runs=$((runs + 1))
        if out=$(bash "$script" "$b" "$@" 2>&1); then
            echo "run $i $b: ok"
        else
            bad=$((bad + 1))
            echo "run $i $b: FAILED"
            printf '%s\n' "$out" | grep -E '^(FAIL|  )' | sed 's/^/    /'
        fi
    done
done
echo "repeat: $runs runs of $suite $*, $bad failed"
[ $bad = 0 ]
