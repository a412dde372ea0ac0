#!/usr/bin/env python3
"""A model check of the landscape's design (not a measurement): walks a transitions table with simple models of
the four strategies as docs/campaigns.md describes them ("Search strategies"), without kforge, and prints how
soon each finds the best variant.

Usage: bench/search_landscape/simulate.py [--transitions FILE] [--budget 40] [--runs 4000] [--noise 0.1]
                                          [--plain-beam] [--refine-workers 1]

A correct kernel's measured speed is its level (transitions.json), or 1 / its `time_ms` where the table gives
them (transitions-branching.json), times a log-normal measurement error of spread --noise (a fresh draw per
evaluation, so copies of one kernel rank in random order among themselves). Models, per problem at a budget of
evaluations: refine = samples of 10 turns, each following its previous answer, --refine-workers of them at a
time taking turns (kforge runs a configuration's samples on 2 x max_concurrent workers: 2 in the bench);
best_of_n = 4 first turns, then one child of the best correct kernel so far (of the latest while none is
correct); beam = width 3 as agent/search/beam.cpp plans it: the last round's kernels of a structure new to the
search first (followed up once), then the fastest kernel of each other structure, free places repairing the
last round's failures, then first turns; evolve = 2 islands x 2 children per round as agent/search/evolve.cpp
plans them: repairs of the last round's failures first (not of a repair), then follow-ups of the island's
children of a structure new to it, then parents by a tournament of 3 over the island's population (the fastest
kernel of each structure, the best 4), scored speed / the island's best + 0.25 x rarity (the share of the
island's correct kernels of another structure), each island's best migrating to the next every 3 rounds. A
variant's structure is its loop count as structure.cpp counts it (`for (` and `while (` at a word start; the
landscape's kernels use no shared memory, matrix or vector types). --plain-beam models `loop.beam.diverse:
false` (the width best distinct kernels, whatever their structure). Use it to see what a table implies before
spending hours of real evaluations on run.sh; its numbers are a model's, never the bench's.
"""
import argparse
import json
import math
import os
import random
import re
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
LADDER = {"L0": 1, "L1": 2, "L2": 3, "L3": 4}  # speeds in the order of the levels


class Eval:
    def __init__(self, variant, score, repair):
        self.v, self.score, self.repair = variant, score, repair


def draw(rng, row):
    items = list(row.items())
    x = rng.random() * sum(w for _, w in items)
    for variant, weight in items:
        x -= weight
        if x < 0:
            return variant
    return items[-1][0]


def structures(problem):
    """structure.cpp's signature of each variant of `problem`: its loop count (the landscape's kernels use no
    shared memory, matrix or vector types)."""
    folder = os.path.join(HERE, "kernels", problem)
    counts = {}
    for name in os.listdir(folder):
        if name.endswith(".cpp"):
            text = open(os.path.join(folder, name)).read()
            counts[name[:-4]] = len(re.findall(r"(?<![A-Za-z0-9_])(?:for|while)[ \t]*\(", text))
    return counts


class Walk:
    def __init__(self, table, speed, noise, rng, budget):
        self.table, self.speed, self.noise = table, speed, noise
        self.rng, self.budget, self.seq = rng, budget, []

    def ask(self, parent):
        row = self.table["start"] if parent is None else self.table["children"][parent.v]
        v = draw(self.rng, row)
        score = None
        if v in self.speed:
            score = self.speed[v] * (math.exp(self.rng.gauss(0, self.noise)) if self.noise > 0 else 1)
        e = Eval(v, score, parent is not None and parent.score is None)
        self.seq.append(e)
        return e

    def left(self):
        return len(self.seq) < self.budget

    def best(self, among, k, key=None):
        """The k best correct evaluations of `among`, one per `key` (a variant's source, or its structure)."""
        ranked = sorted((e for e in among if e.score is not None), key=lambda e: (e.score, self.rng.random()),
                        reverse=True)
        if key:
            seen, kept = set(), []
            for e in ranked:
                if key(e.v) not in seen:
                    seen.add(key(e.v))
                    kept.append(e)
            ranked = kept
        return ranked[:k]


def new_structures(among, before, shape):
    """The evaluations of `among` that are correct and of a structure no correct one of `before` has, one per
    structure (the earliest)."""
    seen = {shape[e.v] for e in before if e.score is not None}
    out = []
    for e in among:
        if e.score is not None and shape[e.v] not in seen:
            seen.add(shape[e.v])
            out.append(e)
    return out


def refine(w, turns=10, workers=1):
    while w.left():
        parents = [None] * max(1, workers)
        for _ in range(turns):
            for s in range(len(parents)):
                if w.left():
                    parents[s] = w.ask(parents[s])


def best_of_n(w, n=4):
    for _ in range(n):
        if w.left():
            w.ask(None)
    while w.left():
        best = w.best(w.seq, 1)
        w.ask(best[0] if best else w.seq[-1])


def beam(w, shape, width=3, diverse=True):
    last = []
    while w.left():
        asks = []
        if diverse:
            asks = new_structures(last, [e for e in w.seq if e not in last], shape)[:width]
        for e in w.best(w.seq, len(w.seq), key=(lambda v: shape[v]) if diverse else (lambda v: v)):
            if len(asks) < width and all(shape[a.v] != shape[e.v] or not diverse for a in asks) and e not in asks:
                asks.append(e)
        failed = [e for e in last if e.score is None]
        while len(asks) < width and failed:
            asks.append(failed.pop(0))
        asks += [None] * (width - len(asks))
        last = [w.ask(p) for p in asks if w.left()]


def evolve(w, shape, islands=2, population=4, children=2, tournament=3, diversity=0.25, migrate_every=3):
    members = [[] for _ in range(islands)]
    last = [[] for _ in range(islands)]
    rnd = 0
    while w.left():
        rnd += 1
        for i in range(islands):
            asks = [e for e in last[i] if e.score is None and not e.repair][:children]
            before = [e for e in members[i] if e not in last[i]]
            asks += new_structures(last[i], before, shape)[:children - len(asks)]
            pool = w.best(members[i], population, key=lambda v: shape[v])
            top = pool[0].score if pool else 1

            def score(e):
                rarity = sum(shape[o.v] != shape[e.v] for o in members[i]) / len(members[i])
                return e.score / top + diversity * rarity

            while len(asks) < children:
                if not pool:
                    asks.append(None)
                    continue
                drawn = [w.rng.choice(pool) for _ in range(tournament)]
                asks.append(max(drawn, key=score))
            last[i] = [w.ask(p) for p in asks if w.left()]
            members[i] += [e for e in last[i] if e.score is not None]
        if rnd % migrate_every == 0:
            bests = [w.best(m, 1) for m in members]
            for i, b in enumerate(bests):
                members[(i + 1) % islands] += b


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transitions", default=os.path.join(HERE, "transitions.json"))
    parser.add_argument("--budget", type=int, default=40)
    parser.add_argument("--runs", type=int, default=4000)
    parser.add_argument("--noise", type=float, default=0.1,
                        help="spread of a measured time (log-normal sigma); tables with time_ms only")
    parser.add_argument("--plain-beam", action="store_true",
                        help="beam as loop.beam.diverse: false (the width best distinct kernels)")
    parser.add_argument("--refine-workers", type=int, default=1,
                        help="refine samples running at once, taking turns (the bench's kforge runs 2)")
    args = parser.parse_args()
    table = json.load(open(args.transitions))
    if "time_ms" in table:
        speed, noise = {v: 1.0 / t for v, t in table["time_ms"].items()}, args.noise
    else:
        speed, noise = LADDER, 0.0
    shape = structures(table.get("problems", ["matmul"])[0])
    budgets = [b for b in (5, 10, 20, 30, 40, 80) if b <= args.budget]
    print(f"model of the strategies on {os.path.basename(args.transitions)}, budget {args.budget}, "
          f"{args.runs} walks each, noise {noise}, refine workers {args.refine_workers}"
          + (", plain beam" if args.plain_beam else ""))
    print("| strategy | found " + table["best"] + " | evaluations to it (median) | " +
          " | ".join(f"by {b}" for b in budgets) + " |")
    print("|---|---|---|" + "---|" * len(budgets))
    strategies = [("refine", lambda w: refine(w, workers=args.refine_workers)), ("best_of_n", best_of_n),
                  ("beam", lambda w: beam(w, shape, diverse=not args.plain_beam)), ("evolve", lambda w: evolve(w, shape))]
    for name, strategy in strategies:
        to_best = []
        for run in range(args.runs):
            w = Walk(table, speed, noise, random.Random(run), args.budget)
            strategy(w)
            to_best.append(next((i + 1 for i, e in enumerate(w.seq) if e.v == table["best"]), None))
        found = [t for t in to_best if t is not None]
        print(f"| {name} | {len(found) / args.runs:.2f} | {statistics.median(found) if found else '-'} | " +
              " | ".join(f"{sum(t <= b for t in found) / args.runs:.2f}" for b in budgets) + " |")


if __name__ == "__main__":
    main()
