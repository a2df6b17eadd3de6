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

# Every file's includes, in one awk pass over them all (a shell loop
# forked six processes a file: 7 s a run, the guards' suite runs it a
# dozen times). Its input: the table's `header` lines, its use lines,
# then "UNIT FILE" for each file. Against its unit's lines and its
# module's (UNIT/NAME for NAME.c and NAME.h): in a library's folder
# "../LIB/" names a library; in a room "../ROOM/" a room (a climb into a
# sibling) and "../../LIB/" a library (out of the orchestrator); each
# <header> of an outside library (the `header` lines' shell patterns made
# anchored regular expressions) must be of a library the file's unit or
# module links; in a room, a climb past the orchestrator into it again or
# a bare path into a room is refused. Prints the number of files read.
check_files() {
    awk -v table="$table" '
    function words(u, verbs,   k, i, w, n, out) {
        out = ""
        for (k = 1; k <= nl; k++)
            if (lu[k] == u && lv[k] ~ verbs) {
                n = split(lw[k], w, " ")
                for (i = 1; i <= n; i++) if (w[i] != "-") out = out " " w[i]
            }
        return out " "
    }
    # the folder of a quoted include that climbs c times ("" none)
    function climbed(s, c,   re, t) {
        re = "^" sp "#" sp "include" sp "\"" (c == 1 ? "" : "\\.\\./") \
             "\\.\\./[a-z_]*/[^\"]*\""
        if (!match(s, re)) return ""
        t = s; sub(/^[^"]*"/, "", t); t = substr(t, 3 * c + 1)
        sub(/\/.*/, "", t)
        return "\001" t
    }
    # the file f of unit u includes folder t: one its lines let it use
    function may_use(t) {
        if (index(ok, " " t " ") != 0) return
        printf "check-rooms: '\''%s'\'' includes %s/, which %s may not use (%s)\n", f, t, u, table >"/dev/stderr"
        bad = 1
    }
    BEGIN { sp = "[ \t\r\f\v]*" }
    FILENAME == ARGV[1] {
        for (i = 3; i <= NF; i++) {
            p = $i; gsub(/\./, "\\.", p); gsub(/\*/, ".*", p)
            re[++nh] = "^" p "$"; lib[nh] = $2
        }
        next
    }
    FILENAME == ARGV[2] {
        lu[++nl] = $1; lv[nl] = $2; unit[$1] = 1
        $1 = $2 = ""; lw[nl] = $0
        next
    }
    {
        u = $1; f = $2; files++
        ok = words(u, "^(uses|includes)$"); links = words(u, "^links$")
        mod = f; sub(/\.[ch]$/, "", mod); sub(/.*\//, "", mod)
        mod = u "/" mod
        if (mod in unit) {
            ok = ok words(mod, "^(uses|includes)$")
            links = links words(mod, "^links$")
        }
        room = (u ~ /^orchestrator\//)
        while ((getline s < f) > 0) {
            if ((t = climbed(s, 1)) != "")
                may_use((room ? "orchestrator/" : "") substr(t, 2))
            if (room && (t = climbed(s, 2)) != "")
                may_use(substr(t, 2))
            if (s ~ ("^" sp "#" sp "include" sp "<")) {
                h = s; sub(/^[^<]*</, "", h); sub(/>.*/, "", h)
                for (i = 1; i <= nh; i++) if (h ~ re[i]) {
                    if (index(links, " " lib[i] " ") == 0) {
                        printf "check-rooms: '\''%s'\'' includes <%s> of library %s, which %s may not link (%s)\n", f, h, lib[i], u, table >"/dev/stderr"
                        bad = 1
                    }
                    break
                }
            }
            if (room && s ~ ("^" sp "#" sp "include" sp "\"(\\.\\./\\.\\./orchestrator/|[a-z_]+/)"))
                bare = 1
        }
        close(f)
        if (bare) {
            printf "check-rooms: '\''%s'\'' names a room by a path other than ../ROOM/\n", f >"/dev/stderr"
            bad = 1
            bare = 0
        }
    }
    END { print files + 0; exit bad }' "$tmp/headers" "$tmp/uses" "$tmp/files"
}

bad=0
awk '$1 == "header"' "$tmp/table" >"$tmp/headers"
awk 'NF >= 2 && $2 ~ /^(uses|includes|links)$/' "$tmp/table" >"$tmp/uses"
awk '{ print $1 }' "$tmp/uses" | sort -u >"$tmp/units"
grep -v / "$tmp/units" >"$tmp/libs"
: >"$tmp/files"
while read -r lib; do
    [ -d "$lib" ] || { echo "check-rooms: '$table' names '$lib', which is no folder" >&2; bad=1; continue; }
    for f in "$lib"/*.c "$lib"/*.h; do
        [ -e "$f" ] && echo "$lib $f" >>"$tmp/files"
    done
done <"$tmp/libs"
for dir in orchestrator/*/; do
    room=orchestrator/$(basename "$dir")
    if ! grep -qx "$room" "$tmp/units"; then
        echo "check-rooms: room '$room/' has no line in $table" >&2
        bad=1
        continue
    fi
    for f in "$dir"*.c "$dir"*.h; do
        [ -e "$f" ] && echo "$room $f" >>"$tmp/files"
    done
done
n=$(check_files) || bad=1
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
