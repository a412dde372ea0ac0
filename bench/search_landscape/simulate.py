#!/usr/bin/env python3
"""A model check of the landscape's design (not a measurement): walks transitions.json with simple models of
the four strategies as docs/campaigns.md describes them ("Search strategies"), without kernels, kforge or
timings (a correct kernel's speed is its level), and prints how soon each finds the best variant.

Usage: bench/search_landscape/simulate.py [--transitions FILE] [--budget 40] [--runs 4000]

Models, per problem at a budget of evaluations: refine = samples of 10 turns, each following its previous
answer; best_of_n = 4 first turns, then one child of the best correct kernel so far (of the latest while none
is correct); beam = width 3: a child of each of the 3 best correct kernels per round, free places repairing
the last round's failures, then first turns; evolve = 2 islands x 2 children per round, repairs of the last
round's failures first, then parents by a tournament of 3 over the island's 4 best (no diversity term),
each island's best migrating to the next every 3 rounds. Use it to see what a table of transitions implies
before spending hours of real evaluations on run.sh; its numbers are a model's, never the bench's.
"""
import argparse
import json
import os
import random
import statistics

RANK = {"L0": 0, "L1": 1, "L2": 2, "L3": 3}


def draw(rng, row):
    items = list(row.items())
    x = rng.random() * sum(w for _, w in items)
    for variant, weight in items:
        x -= weight
        if x < 0:
            return variant
    return items[-1][0]


def correct(v):
    return v in RANK


class Walk:
    def __init__(self, table, rng, budget):
        self.table, self.rng, self.budget, self.seq = table, rng, budget, []

    def ask(self, parent):
        v = draw(self.rng, self.table["start"] if parent is None else self.table["children"][parent])
        self.seq.append(v)
        return v

    def left(self):
        return len(self.seq) < self.budget

    def best(self, among, k):
        return sorted((v for v in among if correct(v)), key=lambda v: (RANK[v], self.rng.random()), reverse=True)[:k]


def refine(w, turns=10):
    while w.left():
        parent = None
        for _ in range(turns):
            if not w.left():
                break
            parent = w.ask(parent)


def best_of_n(w, n=4):
    for _ in range(n):
        if w.left():
            w.ask(None)
    while w.left():
        best = w.best(w.seq, 1)
        w.ask(best[0] if best else w.seq[-1])


def beam(w, width=3):
    last = []
    while w.left():
        asks = w.best(w.seq, width)
        failed = [v for v in last if not correct(v)]
        while len(asks) < width and failed:
            asks.append(failed.pop(0))
        asks += [None] * (width - len(asks))
        last = [w.ask(p) for p in asks if w.left()]


def evolve(w, islands=2, population=4, children=2, tournament=3, migrate_every=3):
    members = [[] for _ in range(islands)]
    last = [[] for _ in range(islands)]
    rnd = 0
    while w.left():
        rnd += 1
        for i in range(islands):
            asks = [v for v in last[i] if not correct(v)][:children]
            pool = w.best(members[i], population)
            while len(asks) < children:
                asks.append(max((w.rng.choice(pool) for _ in range(tournament)), key=RANK.get) if pool else None)
            last[i] = [w.ask(p) for p in asks if w.left()]
            members[i] += [v for v in last[i] if correct(v)]
        if rnd % migrate_every == 0:
            bests = [w.best(m, 1) for m in members]
            for i, b in enumerate(bests):
                members[(i + 1) % islands] += b


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transitions", default=os.path.join(here, "transitions.json"))
    parser.add_argument("--budget", type=int, default=40)
    parser.add_argument("--runs", type=int, default=4000)
    args = parser.parse_args()
    table = json.load(open(args.transitions))
    budgets = [b for b in (5, 10, 20, 40, 80) if b <= args.budget]
    print(f"model of the strategies on {args.transitions}, budget {args.budget}, {args.runs} walks each")
    print("| strategy | found " + table["best"] + " | evaluations to it (median) | " + " | ".join(f"by {b}" for b in budgets) + " |")
    print("|---|---|---|" + "---|" * len(budgets))
    for name, strategy in [("refine", refine), ("best_of_n", best_of_n), ("beam", beam), ("evolve", evolve)]:
        to_best = []
        for run in range(args.runs):
            w = Walk(table, random.Random(run), args.budget)
            strategy(w)
            to_best.append(next((i + 1 for i, v in enumerate(w.seq) if v == table["best"]), None))
        found = [t for t in to_best if t is not None]
        print(f"| {name} | {len(found) / args.runs:.2f} | {statistics.median(found) if found else '-'} | " +
              " | ".join(f"{sum(t <= b for t in found) / args.runs:.2f}" for b in budgets) + " |")


if __name__ == "__main__":
    main()
