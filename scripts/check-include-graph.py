#!/usr/bin/env python3
"""The include graph of the tree with folders as rooms: which room includes which, any cycle, and any arrow back
up the floors of docs (README's "How it fits together", ../shared/docs/architecture.md's "Layout"). Reads every
`#include "x/y.h"` of the tree's .h/.cpp files (not tests/, not build folders); the room of a file is its top
folder, and agent/'s five rooms are rooms of their own (--flat: agent is one room). An include is resolved against
the including file's folder, then the tree's root (kf_core's public include folder); one that resolves nowhere is
listed (a system or generated header) and not counted.

  scripts/check-include-graph.py [ROOT] [--flat] [--json] [--against OTHER_ROOT]

--against: the graph of another tree (e.g. a worktree of an older commit) too, and the arrows ROOT has that it
lacks. Exit status 1 when ROOT's graph has a cycle or an arrow back up, or a room that FLOORS does not place.
"""
import argparse
import json
import os
import re
import subprocess
import sys

# Bottom up; rooms on one floor may include each other (sideways) as long as no cycle forms.
FLOORS = [
    ["core"],
    ["verdict"],
    ["corpus", "sandbox", "providers", "mockserver"],
    ["evaluator", "profiler"],
    ["selftest", "audit", "agent/prompt"],
    ["agent/search"],
    ["agent/campaign"],
    ["agent/claims"],
    ["agent/report"],
    ["cli", "bench"],
]
FLAT_FLOORS = [
    ["core"],
    ["verdict"],
    ["corpus", "sandbox", "providers", "mockserver"],
    ["evaluator", "profiler"],
    ["selftest", "audit", "agent"],
    ["cli", "bench"],
]
SKIP = {"tests", ".git"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def room_of(rel, flat):
    parts = rel.split("/")
    if not flat and parts[0] == "agent" and len(parts) > 2:
        return "agent/" + parts[1]
    return parts[0]


def sources(root):
    # A checkout's tracked files only: what kforge writes into the tree (a demo's run folder holds candidate
    # sources) is no part of the architecture.
    tracked = subprocess.run(["git", "-C", root, "ls-files", "-z", "--", "*.h", "*.cpp"], capture_output=True)
    if tracked.returncode == 0 and tracked.stdout:
        for rel in sorted(tracked.stdout.decode().split("\0")):
            if rel and rel.split("/")[0] not in SKIP and not rel.startswith(("build", ".")) and \
                    os.path.isfile(os.path.join(root, rel)):
                yield rel
        return
    for top in sorted(os.listdir(root)):
        full = os.path.join(root, top)
        if not os.path.isdir(full) or top in SKIP or top.startswith("build") or top.startswith("."):
            continue
        for d, dirs, files in os.walk(full):
            dirs[:] = sorted(x for x in dirs if not x.startswith("build"))
            for f in sorted(files):
                if f.endswith((".h", ".cpp")):
                    yield os.path.relpath(os.path.join(d, f), root)


def graph(root, flat):
    edges = {}  # (from room, to room) -> [example "file -> include"]
    unresolved = set()
    rooms = set()
    for rel in sources(root):
        src = room_of(rel, flat)
        rooms.add(src)
        text = open(os.path.join(root, rel), encoding="utf-8", errors="replace").read()
        for inc in INCLUDE.findall(text):
            here = os.path.normpath(os.path.join(os.path.dirname(rel), inc))
            if os.path.isfile(os.path.join(root, here)):
                target = here
            elif os.path.isfile(os.path.join(root, inc)):
                target = os.path.normpath(inc)
            else:
                unresolved.add(inc)
                continue
            dst = room_of(target, flat)
            if target.split("/")[0] in SKIP:
                continue
            if dst != src:
                edges.setdefault((src, dst), []).append(f"{rel} -> {inc}")
    return rooms, edges, unresolved


def cycles(rooms, edges):
    """Strongly connected components of more than one room (Tarjan)."""
    succ = {r: sorted(b for (a, b) in edges if a == r) for r in rooms}
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in succ[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for r in sorted(rooms):
        if r not in index:
            visit(r)
    return out


def analyse(root, flat):
    rooms, edges, unresolved = graph(root, flat)
    floor = {r: i for i, f in enumerate(FLAT_FLOORS if flat else FLOORS) for r in f}
    unplaced = sorted(r for r in rooms if r not in floor)
    up = sorted(e for e in edges if e[0] in floor and e[1] in floor and floor[e[1]] > floor[e[0]])
    sideways = sorted(e for e in edges if e[0] in floor and e[1] in floor and floor[e[1]] == floor[e[0]])
    return {"rooms": sorted(rooms), "edges": edges, "cycles": cycles(rooms, edges), "up": up,
            "sideways": sideways, "unplaced": unplaced, "unresolved": sorted(unresolved)}


def show(name, g, verbose):
    print(f"== {name}: {len(g['rooms'])} rooms, {len(g['edges'])} arrows")
    by = {}
    for (a, b), ex in sorted(g["edges"].items()):
        by.setdefault(a, []).append(f"{b} ({len(ex)})")
    for a in g["rooms"]:
        print(f"  {a:16s} -> {', '.join(by.get(a, [])) or '-'}")
    print(f"  cycles: {g['cycles'] or 'none'}")
    print(f"  arrows back up: {['%s -> %s' % e for e in g['up']] or 'none'}")
    for e in g["up"]:
        for ex in g["edges"][e][:5]:
            print(f"      {ex}")
    print(f"  sideways (same floor): {['%s -> %s' % e for e in g['sideways']] or 'none'}")
    if g["unplaced"]:
        print(f"  rooms FLOORS does not place: {g['unplaced']}")
    if verbose:
        print(f"  unresolved includes (system, generated): {g['unresolved']}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("root", nargs="?", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--flat", action="store_true", help="agent/ as one room")
    ap.add_argument("--against", help="another tree: list the arrows ROOT has that it lacks")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--verbose", action="store_true", help="also list the includes that resolve nowhere")
    args = ap.parse_args()
    g = analyse(args.root, args.flat)
    other = analyse(args.against, args.flat) if args.against else None
    if args.json:
        enc = lambda x: {**x, "edges": {f"{a} -> {b}": ex for (a, b), ex in x["edges"].items()},
                         "up": [list(e) for e in x["up"]], "sideways": [list(e) for e in x["sideways"]]}
        print(json.dumps({"root": enc(g), "against": enc(other) if other else None}, indent=1))
    else:
        if other:
            show(args.against, other, args.verbose)
        show(args.root, g, args.verbose)
        if other:
            new = sorted(set(g["edges"]) - set(other["edges"]))
            gone = sorted(set(other["edges"]) - set(g["edges"]))
            print(f"== arrows new in {args.root}: {['%s -> %s' % e for e in new] or 'none'}")
            for e in new:
                for ex in g["edges"][e][:5]:
                    print(f"      {ex}")
            print(f"== arrows gone: {['%s -> %s' % e for e in gone] or 'none'}")
    return 1 if g["cycles"] or g["up"] or g["unplaced"] else 0


if __name__ == "__main__":
    sys.exit(main())
