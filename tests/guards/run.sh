#!/bin/sh
# The guards' own tests: each structure check that reads the table
# (check-edges, check-rooms), the files' lengths (check-lines) or the
# tests' Tests: lines (check-tests-map) run on
# the breach it guards, expecting it to refuse with the message that
# names it; and on today's tree, expecting it to pass. Breaches are
# planted in copies: objects added to or replacing members of copies of
# the archives (no rebuild of the tree), files in a scratch copy of the
# sources; check-tools with a PATH that has none of the test stack.
# Ends with "guards: N passed, M failed".
# Usage: run.sh BUILD "CC FLAGS" (the orchestrator's compile line)
set -u
build=$1 cc=$2
here=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

# expect NAME STATUS TEXT CMD...: CMD exits STATUS (0, or 1 for a
# refusal) and, for a refusal, says TEXT (a fixed string) on stderr
expect() {
    name=$1 want=$2 text=$3
    shift 3
    "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -eq "$want" ] && { [ "$want" -eq 0 ] || grep -qF -- "$text" "$tmp/err"; }; then
        passed=$((passed + 1))
        echo "ok   $name"
        [ "$want" -eq 0 ] || sed 's/^/     /' "$tmp/err"
    else
        failed=$((failed + 1))
        echo "FAIL $name: exit $rc, wanted $want and '$text'"
        cat "$tmp/out" "$tmp/err"
    fi
}

libs="libutil.a librundir.a libweights.a libgrader.a libpyre.a libhaystack.a libtoolcall.a libreport.a liborch.a"
# a copy of the seven archives in DIR, to plant objects in
copy_libs() {
    mkdir -p "$1"
    for l in $libs; do cp "$build/$l" "$1/$l"; done
}
edges() {
    d=$1
    shift
    sh "$here/scripts/check-edges.sh" "$@" "$d/libutil.a" "$d/librundir.a" \
        "$d/libweights.a" "$d/libgrader.a" "$d/libpyre.a" "$d/libhaystack.a" \
        "$d/libtoolcall.a" "$d/libreport.a" "$d/liborch.a" "$build/orchestrator/cmd/main.o"
}
# plant DIR LIB MEMBER: compile the C on stdin as MEMBER and put it in
# DIR's copy of LIB, replacing a member of that name; a plant that does
# not build ends the suite as a failure
plant() {
    mkdir -p "$tmp/obj"
    cat >"$tmp/obj/${3%.o}.c"
    # shellcheck disable=SC2086
    if ! $cc -c -o "$tmp/obj/$3" "$tmp/obj/${3%.o}.c" ||
        ! ar r "$1/$2" "$tmp/obj/$3" 2>/dev/null; then
        echo "FAIL cannot plant '$3' in a copy of '$2'"
        echo "guards: $passed passed, $((failed + 1)) failed"
        exit 1
    fi
}

# --- check-edges ----------------------------------------------------
expect "edges: today's tree" 0 "" edges "$build"

# figures/ calling into run/ by a prototype written by hand: figures.c
# as it is, and one function more
copy_libs "$tmp/e1"
plant "$tmp/e1" liborch.a figures.o <<EOF
#include "$here/orchestrator/figures/figures.c"
struct runplan;
int runplan_execute(struct runplan *p);
int figures_plant(struct runplan *p);
int figures_plant(struct runplan *p) { return runplan_execute(p); }
EOF
expect "edges: figures/ calls run/ by a hand-made prototype" 1 \
    "'orchestrator/figures/figures.o' (liborch.a) calls 'runplan_execute' of 'orchestrator/run/runplan.o' (liborch.a): orchestrator/figures may not use orchestrator/run" \
    edges "$tmp/e1"

# report/fmt.c calling cli_error, a room of the orchestrator above it
copy_libs "$tmp/e2"
plant "$tmp/e2" libreport.a fmt.o <<EOF
#include "$here/report/fmt.c"
void cli_error(const char *cmd, const char *fmt, ...);
void fmt_plant(void);
void fmt_plant(void) { cli_error("report", "%s", "up"); }
EOF
expect "edges: report/fmt.c calls cli_error" 1 \
    "'report/fmt.o' (libreport.a) calls 'cli_error' of 'orchestrator/base/cli.o' (liborch.a): report may not use orchestrator/base" \
    edges "$tmp/e2"

# rundir/ may include the grader's structs, never call it
copy_libs "$tmp/e3"
plant "$tmp/e3" librundir.a plant_rundir.o <<'EOF'
struct grader_qset *grader_qset_new(void);
void *plant_rundir(void);
void *plant_rundir(void) { return grader_qset_new(); }
EOF
expect "edges: rundir/ calls the grader" 1 \
    "'rundir/plant_rundir.o' (librundir.a) calls 'grader_qset_new' of 'grader/qset.o' (libgrader.a): rundir may not use grader" \
    edges "$tmp/e3"

# the grader links libc and libm alone
copy_libs "$tmp/e4"
plant "$tmp/e4" libgrader.a plant_json.o <<'EOF'
void *json_loads(const char *s, unsigned long flags, void *error);
void *plant_json(void);
void *plant_json(void) { return json_loads("1", 0, 0); }
EOF
expect "edges: the grader needs jansson" 1 \
    "'grader/plant_json.o' (libgrader.a) needs 'json_loads' of library jansson: it may link only c m" \
    edges "$tmp/e4"

# libcurl is server/http's alone, not the rest of its room's
copy_libs "$tmp/e8"
plant "$tmp/e8" liborch.a reply.o <<EOF
#include "$here/orchestrator/server/reply.c"
void *curl_easy_init(void);
void *reply_plant(void);
void *reply_plant(void) { return curl_easy_init(); }
EOF
expect "edges: server/reply.c calls libcurl" 1 \
    "'orchestrator/server/reply.o' (liborch.a) needs 'curl_easy_init' of library curl: it may link only c jansson m uv" \
    edges "$tmp/e8"

# an object of liborch.a without a source in a room
copy_libs "$tmp/e5"
plant "$tmp/e5" liborch.a plant_loose.o <<'EOF'
int plant_loose(void);
int plant_loose(void) { return 0; }
EOF
expect "edges: an object in no room" 1 \
    "'plant_loose.o' of liborch.a is in no room (orchestrator/*/plant_loose.c)" \
    edges "$tmp/e5"

# a symbol defined twice, and a table without a room's lines
copy_libs "$tmp/e6"
plant "$tmp/e6" libutil.a plant_twice.o <<'EOF'
void cli_error(void);
void cli_error(void) {}
EOF
expect "edges: a symbol defined twice" 1 \
    "'cli_error' is defined by both" edges "$tmp/e6"

# --- a scratch copy of the sources, for the rest ---------------------
tree() {
    rm -rf "$tmp/tree"
    mkdir -p "$tmp/tree"
    mkdir "$tmp/tree/docs"
    cp "$here/docs/design.md" "$tmp/tree/docs/"
    cp "$here/.clang-format" "$tmp/tree/"
    (cd "$here" && cp -R grader pyre haystack toolcall report orchestrator rundir \
        util weights scripts "$tmp/tree/")
}
tree
sed 's|^orchestrator/input  *uses  orchestrator/base$|& orchestrator/nigth|' \
    "$here/scripts/rooms.table" >"$tmp/tree/scripts/rooms.table"
expect "edges: a table naming a unit it has no line for" 1 \
    "check-edges: 'scripts/rooms.table': orchestrator/input uses 'orchestrator/nigth', which has no line of its own" \
    edges "$build" -C "$tmp/tree"
sed 's|^orchestrator/server/http |orchestrator/server/htp |' \
    "$here/scripts/rooms.table" >"$tmp/tree/scripts/rooms.table"
expect "edges: a table naming a module that is no file" 1 \
    "check-edges: 'scripts/rooms.table': module 'orchestrator/server/htp' names no file" \
    edges "$build" -C "$tmp/tree"

# a new room, orchestrator/attic/, without its lines in the table
tree
mkdir "$tmp/tree/orchestrator/attic"
copy_libs "$tmp/e7"
plant "$tmp/e7" liborch.a plant_attic.o <<'EOF'
int plant_attic(void);
int plant_attic(void) { return 0; }
EOF
cp "$tmp/obj/plant_attic.c" "$tmp/tree/orchestrator/attic/"
expect "edges: a room without a line in the table" 1 \
    "check-edges: unit 'orchestrator/attic' of 'orchestrator/attic/plant_attic.o' (liborch.a) has no line in scripts/rooms.table" \
    edges "$tmp/e7" -C "$tmp/tree"
expect "rooms: a room without a line in the table" 1 \
    "check-rooms: room 'orchestrator/attic/' has no line in scripts/rooms.table" \
    sh "$tmp/tree/scripts/check-rooms.sh"

# --- check-rooms ----------------------------------------------------
tree
expect "rooms: today's tree" 0 "" sh "$tmp/tree/scripts/check-rooms.sh"
printf '#include "../night/sched.h"\n' >>"$tmp/tree/orchestrator/server/http.c"
expect "rooms: server/ includes night/" 1 \
    "check-rooms: 'orchestrator/server/http.c' includes orchestrator/night/, which orchestrator/server may not use (scripts/rooms.table)" \
    sh "$tmp/tree/scripts/check-rooms.sh"
tree
sed 's#^| night/ | server/, base/ |$#| night/ | rows/, server/, base/ |#' \
    "$here/docs/design.md" >"$tmp/tree/docs/design.md"
expect "rooms: docs/design.md's table and rooms.table disagree" 1 \
    "check-rooms: 'docs/design.md' says orchestrator/night/ may include 'orchestrator/base orchestrator/rows orchestrator/server', 'scripts/rooms.table' 'orchestrator/base orchestrator/server'" \
    sh "$tmp/tree/scripts/check-rooms.sh"
tree
printf '#include <curl/curl.h>\n' >>"$tmp/tree/orchestrator/server/proc.c"
printf '#include <jansson.h>\n' >>"$tmp/tree/grader/stats.c"
expect "rooms: server/proc.c includes <curl/curl.h>" 1 \
    "check-rooms: 'orchestrator/server/proc.c' includes <curl/curl.h> of library curl, which orchestrator/server may not link (scripts/rooms.table)" \
    sh "$tmp/tree/scripts/check-rooms.sh"
expect "rooms: the grader includes <jansson.h>" 1 \
    "check-rooms: 'grader/stats.c' includes <jansson.h> of library jansson, which grader may not link (scripts/rooms.table)" \
    sh "$tmp/tree/scripts/check-rooms.sh"
tree
printf '#include "../../report/fmt.h"\n' >>"$tmp/tree/orchestrator/base/cli.c"
expect "rooms: base/ includes report/ (allowed)" 0 "" \
    sh "$tmp/tree/scripts/check-rooms.sh"
tree
printf '#include "../report/fmt.h"\n' >>"$tmp/tree/grader/stats.c"
expect "rooms: the grader includes report/" 1 \
    "check-rooms: 'grader/stats.c' includes report/, which grader may not use (scripts/rooms.table)" \
    sh "$tmp/tree/scripts/check-rooms.sh"
tree
printf '#include "../orchestrator/base/cli.h"\n' >>"$tmp/tree/report/fmt.c"
expect "rooms: report/ includes the orchestrator" 1 \
    "check-rooms: 'report/fmt.c' includes orchestrator/, which report may not use" \
    sh "$tmp/tree/scripts/check-rooms.sh"
tree
printf '#include "night/sched.h"\n' >>"$tmp/tree/orchestrator/run/runner.c"
expect "rooms: a room named by a bare path" 1 \
    "check-rooms: 'orchestrator/run/runner.c' names a room by a path other than ../ROOM/" \
    sh "$tmp/tree/scripts/check-rooms.sh"
tree
echo "int plant_loose;" >"$tmp/tree/orchestrator/plant_loose.c"
expect "rooms: a file outside every room" 1 \
    "check-rooms: files left outside every room:" \
    sh "$tmp/tree/scripts/check-rooms.sh"

# --- check-lines ----------------------------------------------------
tree
expect "lines: today's tree" 0 "" sh "$tmp/tree/scripts/check-lines.sh"
awk 'BEGIN { for (i = 1; i <= 800; i++) print "/* " i " */" }' \
    >"$tmp/tree/report/plant_long.c"
expect "lines: a file of 800 lines" 0 "" sh "$tmp/tree/scripts/check-lines.sh"
echo "/* 801 */" >>"$tmp/tree/report/plant_long.c"
expect "lines: a file of 801 lines" 1 \
    "check-lines: 'report/plant_long.c' has 801 lines, over 800 (split it, or name it in scripts/lines.exceptions with the reason)" \
    sh "$tmp/tree/scripts/check-lines.sh"
tree
head -n 10 "$here/pyre/pyre_parse.c" >"$tmp/tree/pyre/pyre_parse.c"
expect "lines: an exception back under the limit" 1 \
    "check-lines: 'pyre/pyre_parse.c' is within 800 lines: take it out of 'scripts/lines.exceptions'" \
    sh "$tmp/tree/scripts/check-lines.sh"
tree
echo "pyre/pyre_uni.c" >>"$tmp/tree/scripts/lines.exceptions"
expect "lines: an exception without its reason" 1 \
    "check-lines: 'scripts/lines.exceptions' names a file without its reason" \
    sh "$tmp/tree/scripts/check-lines.sh"

# --- check-format ---------------------------------------------------
tree
expect "format: today's tree" 0 "" sh "$tmp/tree/scripts/check-format.sh" "$tmp/tree"
printf 'static int  planted( void ){return 1;}\n' >>"$tmp/tree/report/fmt.c"
expect "format: a function laid out by hand" 1 \
    "  report/fmt.c:$(wc -l <"$tmp/tree/report/fmt.c")" \
    sh "$tmp/tree/scripts/check-format.sh" "$tmp/tree"

# --- check-tools ----------------------------------------------------
expect "tools: this machine has the test stack" 0 "" sh "$here/scripts/check-tools.sh"
mkdir -p "$tmp/nopath"
expect "tools: a PATH without the test stack" 2 \
    "make check: install the test stack with: sh scripts/deps.sh --test" \
    env PATH="$tmp/nopath" /bin/sh "$here/scripts/check-tools.sh"
expect "tools: each one missing is named" 2 "missing: clang clang-tidy" \
    env PATH="$tmp/nopath" /bin/sh "$here/scripts/check-tools.sh"

# --- check-tests-map ------------------------------------------------
# the scratch tree with the tests and docs/testing.md beside the sources
maptree() {
    tree
    cp "$here/docs/testing.md" "$tmp/tree/docs/"
    (cd "$here" && cp -R tests "$tmp/tree/")
}
maptree
expect "tests-map: today's tree" 0 "" sh "$tmp/tree/scripts/check-tests-map.sh"
echo "int plant_new(void) { return 0; }" >"$tmp/tree/orchestrator/forge/plant_new.c"
expect "tests-map: a new module no test names" 1 \
    "check-tests-map: 'orchestrator/forge/plant_new.c' is named by no test: add ' * Tests: orchestrator/forge/plant_new.c'" \
    sh "$tmp/tree/scripts/check-tests-map.sh"
maptree
echo "// Tests: orchestrator/night/plant_gone.c" >>"$tmp/tree/tests/unit/test_night_sched.c"
expect "tests-map: a test naming a module that is gone" 1 \
    "check-tests-map: 'tests/unit/test_night_sched.c' says Tests: 'orchestrator/night/plant_gone.c', which is no product module" \
    sh "$tmp/tree/scripts/check-tests-map.sh"
maptree
grep -v '^| orchestrator/night/sched.c |' "$here/docs/testing.md" >"$tmp/tree/docs/testing.md"
expect "tests-map: a map that is not what the lines say" 1 \
    "check-tests-map: the module map in 'docs/testing.md' is not what the tests' Tests: lines say: run make tests-map" \
    sh "$tmp/tree/scripts/check-tests-map.sh"

# --- check-leftovers ------------------------------------------------
# each leftover planted once in a scratch tree: the check names it
tree
expect "leftovers: today's tree" 0 "" sh "$tmp/tree/scripts/check-leftovers.sh" "$tmp/tree"
printf 'struct plant {\n    char path[4096];\n};\n' >"$tmp/tree/rundir/plant.h"
expect "leftovers: a char[4096] path in rundir/" 1 \
    "a fixed path array in rundir/ (use a struct buf: rundir_path_buf): rundir/plant.h:2:    char path[4096];" \
    sh "$tmp/tree/scripts/check-leftovers.sh" "$tmp/tree"
tree
sed 's|    struct buf dir; /\* capped|    char dir[4300]; /* capped|' \
    "$here/orchestrator/figures/figures_int.h" \
    >"$tmp/tree/orchestrator/figures/figures_int.h"
expect "leftovers: a fixed array in the bundle's stage" 1 \
    "a fixed array in the bundle's stage (use a struct buf: buf_path): orchestrator/figures/figures_int.h:" \
    sh "$tmp/tree/scripts/check-leftovers.sh" "$tmp/tree"
tree
old=grader
old="${old}_re_"
printf 'int %sfree_planted(void);\n' "$old" >>"$tmp/tree/grader/task_int.h"
expect "leftovers: pyre's old prefix" 1 \
    "pyre's old prefix (pyre_*, pyre__*): grader/task_int.h:$(wc -l <"$tmp/tree/grader/task_int.h"):" \
    sh "$tmp/tree/scripts/check-leftovers.sh" "$tmp/tree"
tree
old=GRADER
printf '#define %s__RE_PLANTED 1\n' "$old" >>"$tmp/tree/pyre/pyre_impl.h"
expect "leftovers: pyre's old macro prefix" 1 \
    "pyre's old prefix (pyre_*, pyre__*): pyre/pyre_impl.h:$(wc -l <"$tmp/tree/pyre/pyre_impl.h"):" \
    sh "$tmp/tree/scripts/check-leftovers.sh" "$tmp/tree"
tree
printf 'static void planted(CURL *e)\n{\n    curl_easy_setopt(e, CURLOPT_VERBOSE, 1L);\n}\n' \
    >>"$tmp/tree/orchestrator/server/http.c"
expect "leftovers: a curl option set unchecked" 1 \
    "a curl option set unchecked (check its CURLcode, name the option): orchestrator/server/http.c:$(($(wc -l <"$tmp/tree/orchestrator/server/http.c") - 1)):    curl_easy_setopt(e, CURLOPT_VERBOSE, 1L);" \
    sh "$tmp/tree/scripts/check-leftovers.sh" "$tmp/tree"
tree
printf 'static void planted(CURLM *m)\n{\n    (void)curl_multi_setopt(m, CURLMOPT_PIPELINING, 0L);\n}\n' \
    >>"$tmp/tree/orchestrator/server/http.c"
expect "leftovers: a curl option's result cast away" 1 \
    "orchestrator/server/http.c:$(($(wc -l <"$tmp/tree/orchestrator/server/http.c") - 1)):    (void)curl_multi_setopt(m, CURLMOPT_PIPELINING, 0L);" \
    sh "$tmp/tree/scripts/check-leftovers.sh" "$tmp/tree"

# --- check-haystack-deps: the long-context items stand on libc alone --
hsdeps() { (cd "$here" && sh scripts/check-haystack-deps.sh "$1" "$cc"); }
expect "haystack-deps: today's libhaystack.a" 0 "" hsdeps "$build/libhaystack.a"
copy_libs "$tmp/hs1"
plant "$tmp/hs1" libhaystack.a haystack_planted.o <<'EOF'
#include <stdio.h>
int haystack_planted(void);
int haystack_planted(void)
{
    FILE *f = fopen("/etc/hostname", "r");
    return f != NULL;
}
EOF
expect "haystack-deps: a file opened in libhaystack.a" 1 \
    "uses symbols it must not (files, outside libraries, the grader):" \
    hsdeps "$tmp/hs1/libhaystack.a"
copy_libs "$tmp/hs2"
plant "$tmp/hs2" libhaystack.a haystack_planted.o <<'EOF'
int pyre_compile(void);
int haystack_planted(void);
int haystack_planted(void)
{
    return pyre_compile();
}
EOF
expect "haystack-deps: the grader's regular expressions called" 1 \
    "pyre_compile" hsdeps "$tmp/hs2/libhaystack.a"

echo "guards: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
