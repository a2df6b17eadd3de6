#!/bin/sh
# check-sleep: nothing sleeps in the rooms that run on the loop
# (docs/design.md, "nothing sleeps or blocks on the loop thread"): no
# sleep, usleep, nanosleep, clock_nanosleep or thrd_sleep call in a C file
# of orchestrator/run/, server/, night/ or sandbox/. A wait there is a
# timer on the loop (files.lock: base/lockwait.h) or a wait on an event with a time
# limit (poll on a descriptor, a pidfd), never a nap. Comments and string
# literals are skipped, so a file may say why it does not sleep.
# Usage: check-sleep.sh [ORCHESTRATOR_DIR]   (default: orchestrator/ of
# this checkout; the test of this check runs it on a copy with a planted
# call). Exit 0, or 1 naming each call as FILE:LINE.
set -eu
if [ $# -gt 0 ]; then
    orch=$1
else
    orch=$(cd "$(dirname "$0")/.." && pwd)/orchestrator
fi
if [ ! -d "$orch" ]; then
    echo "check-sleep: '$orch' is not a folder" >&2
    exit 2
fi

n=0
for room in run server night sandbox; do
    if [ ! -d "$orch/$room" ]; then
        echo "check-sleep: '$orch/$room' is missing" >&2
        exit 2
    fi
    for f in "$orch/$room"/*.c "$orch/$room"/*.h; do
        [ -e "$f" ] && n=$((n + 1))
    done
done
if [ $n = 0 ]; then
    echo "check-sleep: no C file under '$orch/run', 'server', 'night'" >&2
    exit 2
fi

# each file's code without its comments and literals, line for line,
# then every sleeping call in it as FILE:LINE: text
hits=$(for room in run server night sandbox; do
    for f in "$orch/$room"/*.c "$orch/$room"/*.h; do
        [ -e "$f" ] || continue
        awk '
        BEGIN { incomment = 0 }
        {
            line = $0; out = ""; i = 1; n = length(line)
            while (i <= n) {
                c = substr(line, i, 1); two = substr(line, i, 2)
                if (incomment) {
                    if (two == "*/") { incomment = 0; i += 2 } else i++
                    continue
                }
                if (two == "/*") { incomment = 1; i += 2; continue }
                if (two == "//") break
                if (c == "\"" || c == "\047") {
                    q = c; i++
                    while (i <= n && substr(line, i, 1) != q) {
                        if (substr(line, i, 1) == "\\") i++
                        i++
                    }
                    i++; out = out q q; continue
                }
                out = out c; i++
            }
            if (out ~ /(^|[^A-Za-z0-9_])(sleep|usleep|nanosleep|clock_nanosleep|thrd_sleep)[ \t]*\(/)
                printf "%s:%d: %s\n", FILENAME, FNR, line
        }' "$f"
    done
done)

if [ -n "$hits" ]; then
    printf '%s\n' "$hits" | sed 's/^/check-sleep: a sleep on the loop: /' >&2
    echo "check-sleep: wait with a timer on the loop (base/lockwait.h for files.lock) or on an event with a time limit, never a nap" >&2
    exit 1
fi
echo "check-sleep: no sleep in $n files of run/, server/, night/, sandbox/"
