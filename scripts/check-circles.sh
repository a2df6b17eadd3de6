#!/bin/sh
# check-circles: calls inside the orchestrator run one way. Object A
# depends on object B when A needs a symbol B defines (nm); no object of
# liborch.a may depend on itself round a circle (config.c called
# config_rungs.c, which called config.c's helpers back, before
# config_json.c held them). A circle is printed, object by object.
# Usage: check-circles.sh LIBORCH
set -eu
lib=$1
nm -A "$lib" | python3 -c '
import sys
defs, uses = {}, {}
for line in sys.stdin:
    # "LIB:OBJ:ADDRESS TYPE NAME", the address blank when undefined
    f = line.split()
    if len(f) != 3 or f[0].count(":") < 2:
        continue
    obj = f[0].split(":")[1]
    if f[1] in ("T", "D", "B", "R"):
        defs[f[2]] = obj
    elif f[1] == "U":
        uses.setdefault(obj, set()).add(f[2])
edges = {o: sorted({defs[s] for s in u if s in defs and defs[s] != o})
         for o, u in uses.items()}
# a circle: a path from an object back to it (depth-first, colours)
colour, stack = {}, []
def visit(o):
    colour[o] = 1
    stack.append(o)
    for n in edges.get(o, []):
        if colour.get(n) == 1:
            return stack[stack.index(n):] + [n]
        if n not in colour:
            c = visit(n)
            if c:
                return c
    stack.pop()
    colour[o] = 2
    return None
for o in sorted(edges):
    if o not in colour:
        c = visit(o)
        if c:
            sys.stderr.write("check-circles: calls go round a circle: %s\n"
                             % " -> ".join(c))
            sys.exit(1)
print("check-circles: %d objects of the orchestrator call one way" % len(edges))
'
