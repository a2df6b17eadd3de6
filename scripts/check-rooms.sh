#!/bin/sh
# check-rooms: every part of graveyard includes only the parts below it
# (docs/design.md, "The map" and "Rooms of the orchestrator"), as the
# one table, scripts/rooms.table, says; check-edges.sh holds the symbols
# to the same table. Every `#include "../X/..."` in a library's folder
# (util/, grader/, ...) must name a unit its lines let it use or
# include; in a room of the orchestrator, `"../ROOM/..."` a room and
# `"../../LIB/..."` a library it may use; and an `#include <...>` that
# a `header` line gives to an outside library (<curl/curl.h>, <uv.h>...)
# one the file's unit, or its module, may link. A room or library folder
# missing from the table fails too, so a new folder is placed on
# purpose, not by accident; so does a file left loose in orchestrator/,
# and a row of docs/design.md's room table that says other than the
# table's `uses` lines.
set -eu
cd "$(dirname "$0")/.."
table=scripts/rooms.table
[ -r "$table" ] || { echo "check-rooms: cannot read '$table'" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the table without its comments
sed 's/#.*//' "$table" >"$tmp/table"

# lines VERBS UNIT: what UNIT's lines of the VERBS (a regular
# expression) name, on one line; status 1 when UNIT has no line at all
lines() {
    awk -v u="$2" -v v="^($1)\$" '$1 == u && $2 ~ v {
            for (i = 3; i <= NF; i++) if ($i != "-") print $i
        }' "$tmp/table" | tr '\n' ' '
    awk -v u="$2" '$1 == u { f = 1 } END { exit !f }' "$tmp/table"
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

# check_headers FILE UNIT LINKS: each <header> of an outside library
# (the table's `header` lines, each shell pattern made an anchored
# regular expression) must be of one in LINKS
check_headers() {
    awk -v links=" $3 " 'NR == FNR {
            for (i = 3; i <= NF; i++) {
                p = $i; gsub(/\./, "\\.", p); gsub(/\*/, ".*", p)
                re[++n] = "^" p "$"; lib[n] = $2
            }
            next
        }
        /^[ \t]*#[ \t]*include[ \t]*</ {
            h = $0; sub(/^[^<]*</, "", h); sub(/>.*/, "", h)
            for (i = 1; i <= n; i++) if (h ~ re[i]) {
                if (index(links, " " lib[i] " ") == 0) print h, lib[i]
                break
            }
        }' "$tmp/headers" "$1" >"$tmp/hdr"
    while read -r h l; do
        echo "check-rooms: '$1' includes <$h> of library $l, which $2 may not link ($table)" >&2
        bad=1
    done <"$tmp/hdr"
}

# check_file FILE UNIT USES LINKS: FILE's includes against its unit's
# lines (USES: its uses and includes; LINKS) and its module's (UNIT/NAME
# for NAME.c and NAME.h). In a library's folder "../LIB/" names a
# library; in a room "../ROOM/" a room (a climb into a sibling) and
# "../../LIB/" a library (out of the orchestrator). (sh has no locals:
# its names are its own, so that a module's lines stay its own.)
check_file() {
    n=$((n + 1))
    fok=$3 flinks=$4
    mod=${1%.[ch]}
    mod=$2/${mod##*/}
    case " $modules " in *" $mod "*)
        fok="$fok $(lines 'uses|includes' "$mod")"
        flinks="$flinks $(lines links "$mod")" ;;
    esac
    case $2 in
    orchestrator/*)
        check_includes "$1" "$2" "$fok" "$climb" orchestrator/
        check_includes "$1" "$2" "$fok" "$climb2" "" ;;
    *)  check_includes "$1" "$2" "$fok" "$climb" "" ;;
    esac
    check_headers "$1" "$2" "$flinks"
}

bad=0
n=0
climb='s|^[[:space:]]*#[[:space:]]*include[[:space:]]*"\.\./\([a-z_]*\)/[^"]*".*|\1|p'
climb2='s|^[[:space:]]*#[[:space:]]*include[[:space:]]*"\.\./\.\./\([a-z_]*\)/[^"]*".*|\1|p'
awk '$1 == "header"' "$tmp/table" >"$tmp/headers"
awk 'NF >= 2 && $2 ~ /^(uses|includes|links)$/ { print $1 }' "$tmp/table" |
    sort -u >"$tmp/units"
# a module is a unit inside a unit (report/page, orchestrator/base/hash)
awk 'NR == FNR { u[$1] = 1; next }
    { d = $1; sub(/\/[^\/]*$/, "", d); if (d != $1 && (d in u)) print $1 }' \
    "$tmp/units" "$tmp/units" >"$tmp/modules"
modules=$(tr '\n' ' ' <"$tmp/modules")
grep -v / "$tmp/units" >"$tmp/libs"
while read -r lib; do
    [ -d "$lib" ] || { echo "check-rooms: '$table' names '$lib', which is no folder" >&2; bad=1; continue; }
    ok=$(lines 'uses|includes' "$lib")
    links=$(lines links "$lib")
    for f in "$lib"/*.c "$lib"/*.h; do
        [ -e "$f" ] || continue
        check_file "$f" "$lib" "$ok" "$links"
    done
done <"$tmp/libs"
for dir in orchestrator/*/; do
    room=orchestrator/$(basename "$dir")
    if ! ok=$(lines 'uses|includes' "$room"); then
        echo "check-rooms: room '$room/' has no line in $table" >&2
        bad=1
        continue
    fi
    links=$(lines links "$room")
    for f in "$dir"*.c "$dir"*.h; do
        [ -e "$f" ] || continue
        check_file "$f" "$room" "$ok" "$links"
        # a climb past the orchestrator into it again, or a bare path into a room
        if grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"(\.\./\.\./orchestrator/|[a-z_]+/)' "$f" >/dev/null; then
            echo "check-rooms: '$f' names a room by a path other than ../ROOM/" >&2
            bad=1
        fi
    done
done
# docs/design.md's table of the rooms, for people, says what this one
# does: each row's rooms are the room's `uses` lines' rooms
doc=docs/design.md
[ -r "$doc" ] || { echo "check-rooms: cannot read '$doc'" >&2; exit 1; }
awk -F'|' '/^\| room \| may include \|/ { on = 1; next }
    on && !/^\|/ { exit }
    on && $2 !~ /^-+$/ {
        gsub(/[ \/]/, "", $2); printf "orchestrator/%s:", $2
        n = split($3, r, ",")
        for (i = 1; i <= n; i++) {
            gsub(/[ \/]/, "", r[i])
            if (r[i] !~ /^nothing/) printf " orchestrator/%s", r[i]
        }
        print ""
    }' "$doc" >"$tmp/doc"
[ -s "$tmp/doc" ] || { echo "check-rooms: no '| room | may include |' table in '$doc'" >&2; exit 1; }
for dir in orchestrator/*/; do
    room=orchestrator/$(basename "$dir")
    said=$(sed -n "s|^$room:||p" "$tmp/doc" | tr ' ' '\n' | grep . | sort | tr '\n' ' ') || true
    have=$(lines uses "$room" 2>/dev/null | tr ' ' '\n' | grep '^orchestrator/' | sort | tr '\n' ' ') || true
    if [ "$said" != "$have" ]; then
        echo "check-rooms: '$doc' says $room/ may include '${said% }', '$table' '${have% }'" >&2
        bad=1
    fi
done
if [ -n "$(find orchestrator -maxdepth 1 -type f -name '*.[ch]')" ]; then
    echo "check-rooms: files left outside every room:" >&2
    find orchestrator -maxdepth 1 -type f -name '*.[ch]' >&2
    bad=1
fi
[ "$n" -gt 0 ] || { echo "check-rooms: no file read in orchestrator/*/" >&2; exit 1; }
[ "$bad" = 0 ] || exit 1
echo "check-rooms: $n files include only the parts and outside libraries $table lets them use; $doc's room table says the same"
