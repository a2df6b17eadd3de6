#!/bin/sh
# check-rooms: the orchestrator's rooms include only downward
# (docs/design.md, "Rooms of the orchestrator"). Every `#include "..."`
# in orchestrator/*/ that names another room must name one its room may
# use; a room's own headers and the other modules (grader/, rundir/,
# report/, weights/, util/) are always allowed here (their own checks
# guard them). A room missing from the table fails too, so a new folder
# is placed on purpose, not by accident.
set -eu
cd "$(dirname "$0")/.."

# room: the rooms it may include (lower floors only).
allowed() {
    case "$1" in
    cmd)     echo "run forge figures night rows input server base" ;;
    run)     echo "night rows input server base" ;;
    forge)   echo "night input server base" ;;
    figures) echo "rows input base" ;;
    night)   echo "server base" ;;
    rows)    echo "input server base" ;;
    input)   echo "base" ;;
    server)  echo "base" ;;
    base)    echo "" ;;
    *)       return 1 ;;
    esac
}

bad=0
n=0
for dir in orchestrator/*/; do
    room=$(basename "$dir")
    if ! ok=$(allowed "$room"); then
        echo "check-rooms: room 'orchestrator/$room/' has no border rule in scripts/check-rooms.sh" >&2
        bad=1
        continue
    fi
    for f in "$dir"*.c "$dir"*.h; do
        [ -e "$f" ] || continue
        n=$((n + 1))
        # each quoted include that climbs into a sibling room: ../ROOM/x.h
        for to in $(sed -n 's|^[[:space:]]*#[[:space:]]*include[[:space:]]*"\.\./\([a-z_]*\)/[^"]*".*|\1|p' "$f"); do
            case " $ok " in *" $to "*) continue ;; esac
            echo "check-rooms: '$f' includes orchestrator/$to/, which room '$room' may not use" >&2
            bad=1
        done
        # a climb past the orchestrator into it again, or a bare path into a room
        if grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"(\.\./\.\./orchestrator/|[a-z_]+/)' "$f" >/dev/null; then
            echo "check-rooms: '$f' names a room by a path other than ../ROOM/" >&2
            bad=1
        fi
    done
done
if [ -n "$(find orchestrator -maxdepth 1 -type f -name '*.[ch]')" ]; then
    echo "check-rooms: files left outside every room:" >&2
    find orchestrator -maxdepth 1 -type f -name '*.[ch]' >&2
    bad=1
fi
[ "$n" -gt 0 ] || { echo "check-rooms: no file read in orchestrator/*/" >&2; exit 1; }
[ "$bad" = 0 ] || exit 1
echo "check-rooms: $n files in orchestrator's rooms include only the rooms below them"
