#!/usr/bin/env python3
"""Same-seed evaluations by two kforge builds, compared: the proof that a restructuring of the evaluator changed
no verdict and no JSON (issue 41). Runs `kforge eval --json` of each build on every problem/candidate pair below
(host backend; kf_forward host kernels and KernelBench solutions; honest, incorrect, rejected, crashing and
unbuildable candidates, a broken reference) with the same --seed and the same compile cache, and compares the
verdicts' JSON key for key after masking what is measured rather than decided (MASKED below says which and why) and
what a timed round draws whatever the seed (DRAWN_SLOT). Then `kforge report` of the test fixtures' corpora, in
every format, byte for byte.

  bench/compare_eval_builds.py OLD_KFORGE NEW_KFORGE --out DIR [--stage old|new|compare|reports|all]
                               [--only SUBSTRING]

NEW_KFORGE only needs to accept `eval` with kforge's arguments and print the verdict's JSON (for `report`, the
whole kforge). The builds share one compile cache (DIR/cache); whether a build was cached (the flag compile_cache_hit,
checks.build's cache hits) is masked, since the old build's evaluation of a pair runs first and fills it. The old
build's verdicts are kept in DIR/old.json, so that they can be recorded while the new build is still building
(--stage old) and are not evaluated again.
Exit status 0 when every pair and every report is identical. A report that only gained lines (every line of the
old one kept, in order) is printed as ADDED with the first lines added, and still counts as different.
"""
import argparse
import difflib
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ADV = "tests/adversarial"
EV = "tests/evaluator"

# (problem, candidate, extra arguments). --timeout 900 everywhere: on a loaded machine the runner's lifetime
# limit (120 s by default) is not what is compared.
PAIRS = [
    (f"{ADV}/problems/scale_add.py", f"{ADV}/host/honest_scale_add_loop.cpp", []),
    (f"{ADV}/problems/tiny_ref.py", f"{ADV}/host/honest_tiny_ref.cpp", []),
    (f"{ADV}/problems/tiny_ref.py", f"{ADV}/host/zeros_tiny.cpp", []),
    (f"{ADV}/problems/scale_add.py", f"{ADV}/host/partial_write.cpp", []),
    (f"{ADV}/problems/scale_add.py", f"{ADV}/host/input_mutation.cpp", []),
    (f"{ADV}/problems/scale_add.py", f"{ADV}/host/abort.cpp", []),
    (f"{ADV}/problems/scale_add.py", f"{ADV}/host/truncate_buffer.cpp", []),
    (f"{ADV}/problems/matmul_rand.py", f"{ADV}/host/fp16_matmul.cpp", []),
    (f"{ADV}/problems/scale_add.py", f"{ADV}/host/include_secret.cpp", []),
    (f"{EV}/problems/scale_add.py", f"{EV}/host/scale_add_one_nan.cpp", []),
    (f"{EV}/problems/embedding_bag_random_lengths.py", f"{EV}/host/embedding_bag_random_lengths_honest.cpp", []),
    (f"{EV}/problems/scale_add.py", f"{EV}/host/scale_add_honest.cpp", ["--no-timing"]),
    (f"{ADV}/problems/scale_add.py", f"{ADV}/kernelbench/host/honest_scale_add.py", []),
    (f"{ADV}/problems/relu.py", f"{ADV}/kernelbench/host/replay_honest_glue.py", []),
    (f"{ADV}/problems/relu.py", f"{ADV}/kernelbench/host/fallback_plain.py", []),
    (f"{ADV}/problems/scale_add.py", f"{ADV}/kernelbench/host/input_mutation.py", []),
    (f"{ADV}/problems/scale_add.py", f"{ADV}/kernelbench/host/no_model_new.py", []),
    # kf_forward: a second problem; a compile error; a crash and a non-zero return (runtime errors); a candidate
    # wrong only in the timed rounds (caught by the checked slots); an off-by-one element; a broken reference
    (f"{EV}/problems/linear.py", f"{EV}/host/linear_honest.cpp", []),
    (f"{EV}/problems/scale_add.py", f"{EV}/host/compile_error.cpp", []),
    (f"{EV}/problems/scale_add.py", f"{EV}/host/crash.cpp", []),
    (f"{EV}/problems/scale_add.py", f"{EV}/host/returns_error.cpp", []),
    (f"{EV}/problems/scale_add.py", f"{EV}/host/scale_add_wrong_when_timed.cpp", []),
    (f"{EV}/problems/scale_add.py", f"{EV}/host/scale_add_one_off.cpp", []),
    (f"{EV}/problems/reference_raises.py", f"{EV}/host/scale_add_honest.cpp", []),
    # KernelBench: timer tampering, a missing package, reduced precision, an honest ReLU
    (f"{ADV}/problems/scale_add.py", f"{ADV}/kernelbench/host/patch_timer.py", []),
    (f"{ADV}/problems/scale_add.py", f"{ADV}/kernelbench/host/missing_package.py", []),
    (f"{ADV}/problems/matmul_rand.py", f"{ADV}/kernelbench/host/fp16_matmul.py", []),
    (f"{ADV}/problems/relu.py", f"{ADV}/kernelbench/host/honest_relu.py", []),
]

# Measured, not decided: times and what is sized or drawn from them, masked where both verdicts have them (that
# both have them is still compared).
MASKED = {
    # the candidate's and the baselines' times, the speedups and fractions of peak computed from them
    "time_ms", "ref_time_ms", "speedup", "peak", "eval_s", "compile_s",
    "baselines.*.time_ms", "baselines.*.speedup", "baselines.*.peak", "baselines.*.compile_s",
    # every phase's seconds
    "checks.phases_s",
    # the device's peaks, measured (copy bandwidth, matmul throughput)
    "roofline.device",
    # buffer slots: sized from the reference's call time as the oracle measured it (the plan)
    "checks.timing.slots",
    # the timed rounds: their figures, how many there were (the timing policy stops on noise or time), the
    # calls per round (sized from the trials' times), which rounds were checked (drawn per round), the logs
    "checks.timing.candidate", "checks.timing.baseline", "checks.timing.baseline_compile",
    # each trial's trusted call time
    "checks.trials.*.call_ms",
    # the runner's count of kernel calls grows with the number of timed rounds
    "checks.custom_kernel_calls",
    # the replay's time, a build's time
    "checks.replay.seconds", "checks.build.*.seconds", "checks.build.*.compile_s",
    # whether the compile cache held a build (the old build's evaluation, which runs first, fills it; the flag
    # compile_cache_hit is taken out of flags for the same reason)
    "checks.build.*.cache_hit", "checks.build.*.pch",
}


def masked(path):
    for m in MASKED:
        mp = m.split(".")
        if len(mp) == len(path) and all(a == "*" or a == b for a, b in zip(mp, path)):
            return True
    return False


# A timed round's checked slot is drawn per round from the OS's entropy whatever --seed says (timed rounds draw their
# own seeds): which slot, its seed and its outputs' figures differ between two runs of one build. Such a trial (label
# "timed round N (slot S, checked at random)") keeps its keys, pass/fail fields and texts with the numbers taken out;
# so does a reason that quotes it.
DRAWN_SLOT = re.compile(r"\(slot \d+, checked at random\)")
NUMBER = re.compile(r"\d+(\.\d+)?(e[-+]?\d+)?")


def drawn(v):
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, (int, float)):
        return "<drawn>"
    if isinstance(v, str):
        return NUMBER.sub("#", v)
    if isinstance(v, dict):
        return {k: drawn(x) for k, x in v.items()}
    return [drawn(x) for x in v]


def mask(v, path=()):
    if masked(list(path)):
        return "<measured>"
    if path == ("checks", "trials", "*") and isinstance(v, dict) and DRAWN_SLOT.search(str(v.get("label", ""))):
        return drawn(v)
    if path == ("reasons", "*") and isinstance(v, dict) and DRAWN_SLOT.search(str(v.get("detail", ""))):
        return {k: drawn(x) if k == "detail" else x for k, x in v.items()}
    if path == ("flags",):
        # compile_cache_hit: whether the compile cache already held the build (the old build's evaluation, which
        # runs first, fills it); suspicious_speedup: the measured speedup above 10.
        return [f for f in v if f not in ("compile_cache_hit", "suspicious_speedup")]
    if isinstance(v, dict):
        return {k: mask(x, path + (k,)) for k, x in v.items()}
    if isinstance(v, list):
        return [mask(x, path + ("*",)) for x in v]
    return v


def evaluate(kforge, problem, candidate, extra, cache):
    cmd = [kforge, "eval", "--problem", problem, "--candidate", candidate, "--backend", "host", "--json",
           "--seed", "1234", "--timeout", "900", "--cache-dir", cache] + extra
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=900)
    try:
        return json.loads(r.stdout), r.returncode
    except json.JSONDecodeError:
        return {"unparsable_output": r.stdout[-2000:], "stderr": r.stderr[-2000:]}, r.returncode


def diff(a, b, path=""):
    if type(a) != type(b):
        return [f"{path}: {json.dumps(a)[:200]} != {json.dumps(b)[:200]}"]
    if isinstance(a, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append(f"{path}.{k}: only in {'old' if k in a else 'new'}")
            else:
                out += diff(a[k], b[k], f"{path}.{k}")
        return out
    if isinstance(a, list):
        if len(a) != len(b):
            return [f"{path}: {len(a)} entries != {len(b)}"]
        out = []
        for i, (x, y) in enumerate(zip(a, b)):
            out += diff(x, y, f"{path}[{i}]")
        return out
    return [] if a == b else [f"{path}: {json.dumps(a)[:200]} != {json.dumps(b)[:200]}"]


def report_corpora():
    """Every test fixture folder that holds a corpus (evaluations*.jsonl)."""
    found = set()
    for d, _, files in os.walk(os.path.join(ROOT, "tests")):
        if any(f.startswith("evaluations") and f.endswith(".jsonl") for f in files):
            found.add(os.path.relpath(d, ROOT))
    return sorted(found)


def report(kforge, corpus, fmt):
    r = subprocess.run([kforge, "report", corpus, "--format", fmt], cwd=ROOT, capture_output=True, timeout=300)
    return r.returncode, r.stdout, r.stderr


def added_lines(a, b):
    """The lines b adds where b is a with lines inserted and none removed or changed (a report that gained sections),
    else None."""
    x, y = a.decode(errors="replace").splitlines(), b.decode(errors="replace").splitlines()
    ops = difflib.SequenceMatcher(None, x, y, autojunk=False).get_opcodes()
    if any(op not in ("equal", "insert") for op, *_ in ops):
        return None
    return [line for op, _, _, j1, j2 in ops if op == "insert" for line in y[j1:j2]]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--only", default="")
    ap.add_argument("--out", required=True, help="folder for the compile cache, the old build's verdicts, results")
    ap.add_argument("--stage", choices=["old", "new", "compare", "reports", "all"], default="all",
                    help="old: record the old build's verdicts; new: record the new build's (and the old's where "
                         "missing) and compare them; compare: compare those recorded; reports: compare the reports "
                         "only; all: new and reports")
    args = ap.parse_args()
    old, new = os.path.abspath(args.old), os.path.abspath(args.new)
    os.makedirs(args.out, exist_ok=True)
    cache = os.path.join(os.path.abspath(args.out), "cache")
    recorded_path = os.path.join(args.out, "old.json")
    recorded = json.load(open(recorded_path)) if os.path.exists(recorded_path) else {}
    new_path = os.path.join(args.out, "new.json")
    recorded_new = json.load(open(new_path)) if os.path.exists(new_path) else {}
    pairs = [p for p in PAIRS if args.only in p[1]] if args.stage != "reports" else []
    if args.stage == "old":
        for problem, candidate, extra in pairs:
            key = " ".join([problem, candidate] + extra)
            if key in recorded:
                continue
            recorded[key] = evaluate(old, problem, candidate, extra, cache)
            print(f"recorded  {recorded[key][0].get('verdict', '?'):14s} {candidate}", flush=True)
            with open(recorded_path, "w") as f:
                json.dump(recorded, f)
        if args.stage == "old":
            return 0
    failures = 0
    results = []
    for problem, candidate, extra in pairs:
        key = " ".join([problem, candidate] + extra)
        if key not in recorded and args.stage == "compare":
            print(f"MISSING   {candidate}: the old build's verdict was not recorded (--stage old)")
            failures += 1
            continue
        if key not in recorded and args.stage in ("new", "all"):
            recorded[key] = evaluate(old, problem, candidate, extra, cache)
            with open(recorded_path, "w") as f:
                json.dump(recorded, f)
        a, ra = recorded[key]
        if args.stage == "compare":
            if key not in recorded_new:
                continue
        elif key not in recorded_new:  # DIR/new.json keeps them: delete it to evaluate the new build again
            recorded_new[key] = evaluate(new, problem, candidate, extra, cache)
            with open(new_path, "w") as f:
                json.dump(recorded_new, f)
        b, rb = recorded_new[key]
        d = diff(mask(a), mask(b))
        if ra != rb:
            d.insert(0, f"exit status {ra} != {rb}")
        same = not d
        failures += not same
        print(f"{'identical' if same else 'DIFFERENT'}  {a.get('verdict', '?'):14s} {candidate} on {problem}"
              f"{' ' + ' '.join(extra) if extra else ''}", flush=True)
        for line in d[:20]:
            print("    " + line)
        results.append({"problem": problem, "candidate": candidate, "extra": extra, "verdict": a.get("verdict"),
                        "identical": same, "differences": d, "old": a, "new": b})
    for corpus in report_corpora() if args.stage in ("reports", "all") else []:
        for fmt in ("md", "json", "csv", "html"):
            a, b = report(old, corpus, fmt), report(new, corpus, fmt)
            same = a == b
            failures += not same
            added = None if same or a[0] != b[0] or a[2] != b[2] else added_lines(a[1], b[1])
            word = "identical" if same else "ADDED" if added else "DIFFERENT"
            print(f"{word:9s}  report --format {fmt:4s} {corpus} (exit {a[0]}, {len(a[1])} bytes"
                  f"{f'; every line of the old report kept in order, {len(added)} lines added' if added else ''})",
                  flush=True)
            for line in (added or [])[:3]:
                print(f"    + {line[:160]}")
    with open(os.path.join(args.out, "compare.json"), "w") as f:
        json.dump(results, f, indent=1)
    print(f"{len(results)} pairs, {failures} different" if failures else f"{len(results)} pairs: all identical")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
