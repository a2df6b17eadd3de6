#!/bin/sh
# check-rooms: every part of graveyard includes only the parts below it
# (docs/design.md, "The map" and "Rooms of the orchestrator"), as the
# one table, scripts/rooms.table, says; check-edges.sh holds the symbols
# to the same table. Every `#include "../X/..."` in a library's folder
# (util/, grader/, ...) must name a unit its lines let it use or
# include; in a room of the orchestrator, `"../ROOM/..."` a room and
# `"../../LIB/..."` a library it may use. A room or library folder
# missing from the table fails too, so a new folder is placed on
# purpose, not by accident; so does a file left loose in orchestrator/.
set -eu
cd "$(dirname "$0")/.."
table=scripts/rooms.table
[ -r "$table" ] || { echo "check-rooms: cannot read '$table'" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the units UNIT may include (its `uses` and `includes` lines) on one
# line; status 1 when UNIT has no line in the table
allowed() {
    awk -v u="$1" '{ sub(/#.*/, "") }
        $1 == u && ($2 == "uses" || $2 == "includes") {
            for (i = 3; i <= NF; i++) if ($i != "-") print $i
        }' "$table" | tr '\n' ' '
    awk -v u="$1" '{ sub(/#.*/, "") } $1 == u { f = 1 } END { exit !f }' "$table"
}

# check FILE UNIT ALLOWED PATTERN PREFIX: each include that PATTERN's sed
# turns into a folder name must be PREFIX<name>, one of ALLOWED
check_includes() {
    # (the loop runs in this shell: its folders come from a file)
    sed -n "$4" "$1" >"$tmp/to"
    while read -r to; do
        case " $3 " in *" $5$to "*) continue ;; esac
        echo "check-rooms: '$1' includes $5$to/, which $2 may not use ($table)" >&2
        bad=1
    done <"$tmp/to"
}

bad=0
n=0
climb='s|^[[:space:]]*#[[:space:]]*include[[:space:]]*"\.\./\([a-z_]*\)/[^"]*".*|\1|p'
climb2='s|^[[:space:]]*#[[:space:]]*include[[:space:]]*"\.\./\.\./\([a-z_]*\)/[^"]*".*|\1|p'
libs=$(awk '{ sub(/#.*/, "") } NF >= 2 && $2 ~ /^(uses|includes|links)$/ && $1 !~ /\// { print $1 }' "$table" | sort -u)
for lib in $libs; do
    [ -d "$lib" ] || { echo "check-rooms: '$table' names '$lib', which is no folder" >&2; bad=1; continue; }
    ok=$(allowed "$lib")
    for f in "$lib"/*.c "$lib"/*.h; do
        [ -e "$f" ] || continue
        n=$((n + 1))
        check_includes "$f" "$lib" "$ok" "$climb" ""
    done
done
for dir in orchestrator/*/; do
    room=orchestrator/$(basename "$dir")
    if ! ok=$(allowed "$room"); then
        echo "check-rooms: room '$room/' has no line in $table" >&2
        bad=1
        continue
    fi
    for f in "$dir"*.c "$dir"*.h; do
        [ -e "$f" ] || continue
        n=$((n + 1))
        # a climb into a sibling room (../ROOM/x.h), and out to a
        # library (../../LIB/x.h)
        check_includes "$f" "$room" "$ok" "$climb" orchestrator/
        check_includes "$f" "$room" "$ok" "$climb2" ""
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
echo "check-rooms: $n files include only the parts $table lets them use"
