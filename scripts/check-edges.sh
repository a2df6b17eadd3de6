#!/bin/sh
# check-edges: every call between graveyard's parts is one the design
# table allows (scripts/rooms.table, docs/design.md). check-rooms reads
# `#include` lines, so a prototype declared by hand crosses a room
# unseen; this reads symbols. For each object of the libraries given
# (nm), each symbol it needs is resolved to the object that defines it,
# across all of them, or else to the outside library (the table's
# `library` lines) that does; each object is placed in its unit (a
# library's folder, or for liborch.a and main.o the room of
# orchestrator/ROOM/NAME.c), and every edge from one unit to another must
# be a `uses` line of the table, every outside library a `links` line.
# A symbol nobody defines, or two objects define, an object in no room,
# and a unit without a line are refused too.
# Usage: check-edges.sh [-C ROOT] LIBRARY.a... [main.o]
#   ROOT (default: this tree) holds scripts/rooms.table and the
#   orchestrator/*/ sources that place liborch.a's objects; CC (default
#   cc) finds the outside libraries' files.
set -eu
root=$(dirname "$0")/..
if [ "${1:-}" = "-C" ]; then root=$2; shift 2; fi
[ $# -gt 0 ] || { echo "usage: check-edges.sh [-C ROOT] LIBRARY.a... [main.o]" >&2; exit 2; }
exec python3 - "$root" "${CC:-cc}" "$@" <<'PY'
import fnmatch, glob, os, subprocess, sys

root, cc, inputs = sys.argv[1], sys.argv[2], sys.argv[3:]
TABLE = "scripts/rooms.table"
errors = []

def fail(msg):
    sys.stderr.write("check-edges: %s\n" % msg)
    sys.exit(1)

def read_table():
    """The table's lines: units' uses and links, libraries, patterns."""
    t = {"uses": {}, "includes": {}, "links": {}, "library": [],
         "header": [], "toolchain": []}
    try:
        lines = open(os.path.join(root, TABLE)).read().splitlines()
    except OSError as e:
        fail("cannot read '%s': %s" % (TABLE, e.strerror))
    for n, line in enumerate(lines, 1):
        f = line.split("#")[0].split()
        if not f:
            continue
        if f[0] in ("library", "header") and len(f) >= 3:
            t[f[0]].append((f[1], f[2:]))
        elif f[0] == "toolchain":
            t["toolchain"] += f[1:]
        elif len(f) >= 3 and f[1] in ("uses", "includes", "links"):
            t[f[1]].setdefault(f[0], set()).update(x for x in f[2:] if x != "-")
            for v in ("uses", "includes", "links"):
                t[v].setdefault(f[0], set())
        else:
            fail("'%s' line %d: cannot read '%s'" % (TABLE, n, line))
    validate(t)
    return t

def validate(t):
    """Every name a line uses has a line of its own; a module (a unit
    inside a unit: report/page) names a file of the tree."""
    units = set(t["uses"])
    folders = {u for u in units if os.path.dirname(u) not in units}
    libraries = {name for name, _ in t["library"]}
    for u in sorted(units - folders):
        if not glob.glob(os.path.join(root, u + ".[ch]")):
            fail("'%s': module '%s' names no file (%s.c or %s.h)" %
                 (TABLE, u, u, u))
    for verb, names in (("uses", folders), ("includes", folders),
                        ("links", libraries)):
        for unit, to in sorted(t[verb].items()):
            for x in sorted(to - names):
                fail("'%s': %s %s '%s', which has no line of its own" %
                     (TABLE, unit, verb, x))
    for name, _ in t["header"]:
        if name not in libraries:
            fail("'%s': header of '%s', which has no library line" %
                 (TABLE, name))

def allowed(t, verb, unit, member):
    """What an object may use or link: its unit's lines and its
    module's (UNIT/NAME for NAME.o), if the table has any."""
    module = unit + "/" + member[:-2]
    return t[verb][unit] | t[verb].get(module, set())

def nm(args, path):
    r = subprocess.run(["nm"] + args + [path], capture_output=True,
                       text=True)
    if r.returncode != 0:
        fail("nm cannot read '%s': %s" % (path, r.stderr.strip()))
    return r.stdout.splitlines()

def room_of(member):
    """orchestrator/ROOM of an object of liborch.a (by its source)."""
    src = member[:-2] + ".c"
    found = glob.glob(os.path.join(root, "orchestrator", "*", src))
    if len(found) != 1:
        errors.append("'%s' of liborch.a is in %s (orchestrator/*/%s)" %
                      (member, "no room" if not found else
                       "%d rooms" % len(found), src))
        return None
    return "orchestrator/" + os.path.basename(os.path.dirname(found[0]))

def unit_of(path, member):
    lib = os.path.basename(path)
    if lib in ("liborch.a", "main.o") or not lib.endswith(".a"):
        return room_of(member)
    if not (lib.startswith("lib") and lib.endswith(".a")):
        fail("'%s' is not a library of the table" % path)
    return lib[3:-2]

def read_objects():
    """Each object: (its unit, its shown name); defined and needed."""
    defs, needs, objs = {}, {}, {}
    for path in inputs:
        for line in nm(["-A"], path):
            head, _, rest = line.rpartition(":")
            f = rest.split()
            if path.endswith(".a"):
                member = head.split(":")[-1] if head != path else None
            else:
                member = os.path.basename(path)
            if member is None or len(f) < 2:
                continue
            key = (path, member)
            if key not in objs:
                unit = unit_of(path, member)
                objs[key] = (unit, "'%s/%s' (%s)" % (unit, member,
                             os.path.basename(path)))
            kind, sym = f[-2], f[-1]
            if kind in ("U", "w"):
                needs.setdefault(key, set()).add(sym)
            elif kind.isupper() or kind in ("i", "u"):
                if sym in defs and defs[sym] != key:
                    errors.append("'%s' is defined by both %s and %s" %
                                  (sym, objs[defs[sym]][1], objs[key][1]))
                defs.setdefault(sym, key)
    return defs, needs, objs

def outside(table):
    """Symbol -> the first library line whose files define it."""
    owner = {}
    for name, files in table["library"]:
        for fname in files:
            p = subprocess.run([cc, "-print-file-name=" + fname],
                               capture_output=True, text=True).stdout.strip()
            if not os.path.isabs(p) or not os.path.exists(p):
                fail("library '%s': %s finds no '%s'" % (name, cc, fname))
            args = ["--defined-only"] + ([] if p.endswith(".a") else ["-D"])
            for line in nm(args, p):
                f = line.split()
                if len(f) >= 2 and f[-2] not in ("U", "w"):
                    owner.setdefault(f[-1].split("@")[0], name)
    return owner

def check(table, defs, needs, objs, owner):
    edges = set()
    for key in sorted(objs):
        unit, shown = objs[key]
        if unit is None:
            continue
        if unit not in table["uses"]:
            errors.append("unit '%s' of %s has no line in %s" %
                          (unit, shown, TABLE))
            continue
        uses = allowed(table, "uses", unit, key[1])
        links = allowed(table, "links", unit, key[1])
        for sym in sorted(needs.get(key, ())):
            if sym in defs:
                to, to_shown = objs[defs[sym]]
                if to is None or to == unit:
                    continue
                edges.add((unit, to))
                if to not in uses:
                    errors.append("%s calls '%s' of %s: %s may not use "
                                  "%s (%s)" % (shown, sym, to_shown, unit,
                                               to, TABLE))
            elif sym in owner:
                if owner[sym] not in links:
                    errors.append("%s needs '%s' of library %s: it may link "
                                  "only %s (%s)" % (shown, sym, owner[sym],
                                  " ".join(sorted(links)) or "nothing",
                                  TABLE))
            elif not any(fnmatch.fnmatchcase(sym, p)
                         for p in table["toolchain"]):
                errors.append("%s needs '%s', which no library of %s "
                              "defines" % (shown, sym, TABLE))
    return edges

table = read_table()
defs, needs, objs = read_objects()
edges = check(table, defs, needs, objs, outside(table))
if errors:
    for e in dict.fromkeys(errors):
        sys.stderr.write("check-edges: %s\n" % e)
    sys.exit(1)
print("check-edges: %d objects in %d files, %d edges between %d units, "
      "each one %s allows" % (len(objs), len(inputs), len(edges),
      len({u for u, _ in objs.values()}), TABLE))
PY
