#!/usr/bin/env bash
# KernelBench-layout solutions on the GPU (the KernelBench acceptance kit): the imported KernelBench-layout run of
# tests/agent/fixtures/kernelbench_gpu_run (27 solutions of 20 level-1 problems: honest CUDA load_inline and Triton
# solutions and 5 reward hacks, README there) imported and re-verified on the GPU, cold / warm `kforge eval` walls
# of one ReLU solution against KernelBench's own 148 s / 97 s, the fixture's Triton solutions, the cuda
# self-test's kernelbench cases, and KernelBench's own example solutions. Prints a short table last.
# Also a step of scripts/gpu-acceptance.sh (kernelbench-solutions[:STEP+STEP...]).
#
# Usage: scripts/gpu/kernelbench-solutions.sh OUTDIR [STEP...]
#   STEP: reverify (import into OUTDIR/imported, ReLU cold eval with an empty cache, the other extensions built
#         in parallel, `kforge reverify`, `kforge report` -> OUTDIR/report.md, ReLU warm eval) | triton |
#         examples (.shared/kernelbench-examples: each solution cold, then warm, -> OUTDIR/examples.jsonl) |
#         selftest (`selftest --backend cuda --only kernelbench` -> OUTDIR/selftest-kernelbench.txt) | table
#   Default: reverify triton examples selftest table, in that order, within KFORGE_CHECK_BUDGET_S seconds (default
#   500): a step that would not fit is skipped and the table says so. Measured on an H200 (16 cores, 2026-12-03):
#   reverify ~460 s (ReLU cold 87 s, parallel prebuild of 24 extensions ~200 s at 5 at a time, reverify 160 s,
#   ReLU warm 16 s), triton ~30 s, selftest ~200 s from an empty cache, examples ~9-10 min (cold evaluations of
#   load_inline examples take 60-100 s each). For all of them use separate calls into the same OUTDIR, e.g.
#   `reverify triton`, then `selftest`, then `examples` (KFORGE_CHECK_BUDGET_S=540); the table covers what
#   OUTDIR holds.
# Programs: $KFORGE_BIN_DIR/{kforge,kforge-runner} (default build/; KFORGE_RUNNER overrides the runner), with the
#   shipped data in $KFORGE_DATA_DIR (default: this tree). Environment: KFORGE_PYTHON (torch with CUDA; default
#   scripts/python-env.sh), KFORGE_KERNELBENCH_LEVEL1 (default .shared/kernelbench/level1, else
#   ../shared/kernelbench/level1), KFORGE_CHECK_EXAMPLES_DIR (default .shared/kernelbench-examples),
#   KFORGE_CHECK_PREBUILD (extension builds in parallel before reverify, N at a time; default 0: reverify builds
#   them itself with its ahead-compile threads, `--compile-jobs`), KFORGE_CHECK_RELU_EVALS (0 skips the cold and
#   warm ReLU evaluations of step reverify; default 1), KFORGE_CHECK_EXAMPLES_CACHE (compile cache the examples
#   share, kept as it is; default an empty one, so the first example's time includes the precompiled header),
#   KFORGE_CHECK_EXAMPLES_PASSES (default "cold warm"; "cold" judges each example once).
# Files: OUTDIR/summary.txt (the table), OUTDIR/report.md, OUTDIR/examples.jsonl, OUTDIR/selftest-kernelbench.txt,
#   OUTDIR/imported/ (the corpus and its reverify.json); logs and caches under OUTDIR/work/.
set -uo pipefail
if [ $# -lt 1 ]; then
  sed -n '2,31p' "${BASH_SOURCE[0]}" >&2
  exit 2
fi
t_start=$(date +%s)
out=$(mkdir -p "$1" && cd "$1" && pwd)
shift
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(reverify triton examples selftest table)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root" || exit 2
# shellcheck source=scripts/python-env.sh
source scripts/python-env.sh
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
bin=$(cd "${KFORGE_BIN_DIR:-build}" 2>/dev/null && pwd) || { echo "kernelbench-solutions: no folder ${KFORGE_BIN_DIR:-build} (set KFORGE_BIN_DIR)" >&2; exit 2; }
kforge=$bin/kforge
[ -x "$kforge" ] || { echo "kernelbench-solutions: no kforge in $bin (set KFORGE_BIN_DIR)" >&2; exit 2; }
export KFORGE_RUNNER=${KFORGE_RUNNER:-$bin/kforge-runner}
[ -x "$KFORGE_RUNNER" ] || { echo "kernelbench-solutions: no kforge-runner beside kforge (set KFORGE_RUNNER)" >&2; exit 2; }
export KFORGE_DATA_DIR=${KFORGE_DATA_DIR:-$root}
l1=${KFORGE_KERNELBENCH_LEVEL1:-}
[ -z "$l1" ] && for d in .shared/kernelbench/level1 ../shared/kernelbench/level1; do [ -d "$d" ] && l1=$(cd "$d" && pwd) && break; done
if [ -z "$l1" ] || [ ! -d "$l1" ]; then
  echo "kernelbench-solutions: KernelBench level 1 not found (set KFORGE_KERNELBENCH_LEVEL1)" >&2
  exit 2
fi
examples=${KFORGE_CHECK_EXAMPLES_DIR:-.shared/kernelbench-examples}
budget=${KFORGE_CHECK_BUDGET_S:-500}
deadline=$((t_start + budget))
fixture=tests/agent/fixtures/kernelbench_gpu_run
run_dir=$fixture/runs/gpu_run
work=$out/work
mkdir -p "$work/logs" "$work/evals"
rm -f "$work/logs/skipped.jsonl"  # what this invocation skipped
# The compile cache of the fixture's evaluations (reverify finds it through XDG_CACHE_HOME).
xdg=$work/xdg
cache=$xdg/kforge
prebuild=${KFORGE_CHECK_PREBUILD:-0}
relu_evals=${KFORGE_CHECK_RELU_EVALS:-1}
examples_cache=${KFORGE_CHECK_EXAMPLES_CACHE:-}
read -r -a example_passes <<< "${KFORGE_CHECK_EXAMPLES_PASSES:-cold warm}"

# The dataset as `kforge import --kernelbench` wants it: a folder holding level1/.
if [ "$(basename "$l1")" = level1 ]; then
  dataset=$(dirname "$l1")
else
  dataset=$work/kb
  mkdir -p "$dataset" && ln -sfn "$l1" "$dataset/level1"
fi
first_file() { local f; for f in "$@"; do [ -f "$f" ] && { echo "$f"; return 0; }; done; return 1; }
problem() { first_file "$l1"/"$1"_*.py; }
left() { echo $((deadline - $(date +%s))); }
now() { date +%s.%N; }
# Skips (returns 1) when less than $1 seconds of the budget are left; records why for the table.
fits() {
  local need=$1 what=$2
  if [ "$(left)" -lt "$need" ]; then
    echo "{\"skipped\": \"$what\", \"left_s\": $(left), \"needed_s\": $need}" >> "$work/logs/skipped.jsonl"
    echo "kernelbench-solutions: skipping $what ($(left) s of the budget left, needs ~$need s)" >&2
    return 1
  fi
}
# A command limited to what is left of the budget (at least 30 s).
bounded() {
  local t
  t=$(left)
  [ "$t" -lt 30 ] && t=30
  timeout --kill-after=10 "$t" "$@"
}

# One `kforge eval --json` of CANDIDATE on PROBLEM; appends one summary line to JSONL.
#   eval_one JSONL LABEL PASS PROBLEM CANDIDATE CACHE_DIR [extra kforge eval args...]
eval_one() {
  local jsonl=$1 label=$2 pass=$3 prob=$4 cand=$5 cdir=$6 t0 t1 rc base
  shift 6
  base=$work/evals/$(echo "$label-$pass" | tr -c 'A-Za-z0-9_.-' '_')
  t0=$(now)
  bounded "$kforge" eval --backend cuda --problem "$prob" --candidate "$cand" --cache-dir "$cdir" --json "$@" \
    > "$base.json" 2> "$base.err"
  rc=$?
  t1=$(now)
  "$KFORGE_PYTHON" - "$base.json" "$label" "$pass" "$prob" "$cand" "$t0" "$t1" "$rc" >> "$jsonl" <<'EOF'
import json, os, sys
path, label, pss, prob, cand, t0, t1, rc = sys.argv[1:]
try:
    v = json.load(open(path))
except Exception as e:
    v = {"verdict": f"unreadable (exit {rc}{', timed out' if rc in ('124', '137') else ''})"}
checks = v.get("checks", {})
print(json.dumps({"label": label, "pass": pss, "problem": os.path.basename(prob), "candidate": cand,
                  "verdict": v.get("verdict"), "reasons": [r.get("code") for r in v.get("reasons", [])],
                  "time_ms": v.get("time_ms"), "ref_ms": v.get("ref_time_ms"), "speedup": v.get("speedup"),
                  "compile_s": v.get("compile_s"), "eval_s": v.get("eval_s"), "wall_s": round(float(t1) - float(t0), 2),
                  "cache_hit": "compile_cache_hit" in v.get("flags", []),
                  "custom_kernel_calls": checks.get("custom_kernel_calls"), "exit": int(rc)}))
EOF
}

# Prints the last line of a JSONL written by eval_one, short.
show_last() {
  "$KFORGE_PYTHON" - "$1" <<'EOF'
import json, sys
r = json.loads(open(sys.argv[1]).read().splitlines()[-1])
print(f"{r['pass']:5s} {r['label']:50s} {str(r['verdict']):14s} {str(r['reasons'][:1]):40s} {r['wall_s']:7.1f} s")
EOF
}

step_reverify() {
  local imported=$out/imported t0 t1 f pids=() n=0 tiny
  rm -rf "$imported" "$xdg" "$work/evals.jsonl"
  mkdir -p "$xdg"
  echo "== import ($run_dir)"
  "$kforge" import "$run_dir" --out "$imported" --kernelbench "$dataset" \
    --baseline "$fixture/timing/H200/baseline_time_torch.json" > "$work/logs/import.txt" 2>&1
  echo "import exit $? ($(grep -c '' "$work/logs/import.txt") lines: $work/logs/import.txt)"
  grep '^| gpu_run' "$work/logs/import.txt"

  # Cold: an empty compile cache (the precompiled header and the extension are built), the real problem.
  if [ "$relu_evals" != 0 ]; then
    fits 120 "ReLU cold eval" || return 1
    echo "== ReLU cold eval (empty cache)"
    eval_one "$work/evals.jsonl" relu_p19_s0 cold "$(problem 19)" "$run_dir/level_1_problem_19_sample_0_kernel.py" "$cache"
    show_last "$work/evals.jsonl"
  fi

  # The other extensions, built in parallel into the same cache by evaluations against a tiny problem (the
  # compile is cached by the solution's text, not its problem); reverify then finds them built. Their verdicts
  # on the tiny problem mean nothing and are not kept.
  if [ "$prebuild" -gt 0 ]; then
    tiny=$work/tiny_problem.py
    cat > "$tiny" <<'EOF'
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x * 2.0


def get_inputs():
    return [torch.rand(8, 64)]


def get_init_inputs():
    return []
EOF
    echo "== prebuild: extensions of the other solutions, $prebuild at a time"
    t0=$(now)
    for f in "$run_dir"/level_1_problem_*_kernel.py; do
      case $f in *problem_19_sample_0_*) continue ;; esac
      grep -q load_inline "$f" || continue
      [ "$(left)" -lt 240 ] && { echo "prebuild: stopped early ($(left) s left)"; break; }
      bounded "$kforge" eval --backend cuda --problem "$tiny" --candidate "$f" --cache-dir "$cache" --no-timing --json \
        > "$work/logs/prebuild-$(basename "$f" .py).json" 2>&1 &
      pids+=($!)
      n=$((n + 1))
      if [ ${#pids[@]} -ge "$prebuild" ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
    done
    for p in "${pids[@]}"; do wait "$p"; done
    t1=$(now)
    echo "{\"label\": \"prebuild\", \"pass\": \"parallel\", \"solutions\": $n, \"parallel\": $prebuild, \"wall_s\": $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')}" >> "$work/evals.jsonl"
    tail -n 1 "$work/evals.jsonl"
  fi

  fits 150 "reverify" || return 1
  echo "== reverify (cuda; progress in $work/logs/reverify.txt)"
  t0=$(now)
  XDG_CACHE_HOME=$xdg bounded "$kforge" reverify "$imported" --backend cuda --python "$KFORGE_PYTHON" \
    > "$work/logs/reverify.txt" 2>&1
  local rc=$?
  t1=$(now)
  echo "{\"label\": \"reverify\", \"pass\": \"warm-prebuilt\", \"exit\": $rc, \"wall_s\": $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')}" >> "$work/evals.jsonl"
  tail -n 3 "$work/logs/reverify.txt"
  "$kforge" report "$imported" > "$out/report.md" 2> "$work/logs/report.err" || echo "report failed: $(head -3 "$work/logs/report.err")"

  [ "$relu_evals" != 0 ] || return 0
  fits 40 "ReLU warm eval" || return 1
  echo "== ReLU warm eval (same cache)"
  eval_one "$work/evals.jsonl" relu_p19_s0 warm "$(problem 19)" "$run_dir/level_1_problem_19_sample_0_kernel.py" "$cache"
  show_last "$work/evals.jsonl"
}

step_triton() {
  local f no
  rm -f "$work/triton.jsonl"
  for f in "$run_dir"/level_1_problem_*_kernel.py; do
    grep -q '^import triton' "$f" || continue
    fits 45 "triton eval of $(basename "$f")" || return 1
    no=$(basename "$f" | cut -d_ -f4)
    echo "== triton: $(basename "$f")"
    eval_one "$work/triton.jsonl" "triton_$(basename "$f" .py)" once "$(problem "$no")" "$f" "$cache"
    show_last "$work/triton.jsonl"
  done
}

# KernelBench's own solutions: solutions/NN_*.py and test_kernels/NN_*.py, each judged against problems/NN_*.py
# when that exists, else the dataset's level1/NN_*.py. Cold: the first pass, from an empty cache; warm: again.
step_examples() {
  local f no prob ecache=${examples_cache:-$work/cache-examples} pass list=()
  [ -n "$examples_cache" ] || rm -rf "$ecache"
  mkdir -p "$ecache"
  : > "$out/examples.jsonl"
  [ -d "$examples" ] || { echo "examples: no $examples (skipped)"; echo '{"skipped": "no examples folder"}' > "$out/examples.jsonl"; return 0; }
  for f in "$examples"/solutions/*.py "$examples"/test_kernels/*.py; do
    [ -f "$f" ] && list+=("$f")
  done
  local done_cold=()
  for pass in "${example_passes[@]}"; do
    local these=("${list[@]}")
    [ "$pass" = warm ] && these=("${done_cold[@]}")
    for f in "${these[@]}"; do
      no=$(basename "$f" | cut -d_ -f1)
      case $no in '' | *[!0-9]*) continue ;; esac
      prob=$(first_file "$examples"/problems/"$no"_*.py)
      [ -z "$prob" ] && prob=$(problem "$no")
      [ -z "$prob" ] && continue
      # a cold evaluation of a load_inline solution takes 60-100 s on an H200 (torch/extension.h under nvcc)
      if [ "$pass" = cold ]; then fits 120 "example cold $(basename "$f")" || break 2; else fits 45 "example warm $(basename "$f")" || break 2; fi
      eval_one "$out/examples.jsonl" "$(basename "$(dirname "$f")")/$(basename "$f" .py)" "$pass" "$prob" "$f" "$ecache"
      [ "$pass" = cold ] && done_cold+=("$f")
      show_last "$out/examples.jsonl"
    done
  done
}

step_selftest() {
  fits 90 "selftest --only kernelbench" || return 1
  echo "== selftest --backend cuda --only kernelbench"
  local t0 t1 rc
  t0=$(now)
  bounded "$kforge" selftest --backend cuda --only kernelbench --json --python "$KFORGE_PYTHON" \
    > "$work/logs/selftest-kernelbench.json" 2> "$work/logs/selftest-kernelbench.err"
  rc=$?
  t1=$(now)
  "$KFORGE_PYTHON" - "$work/logs/selftest-kernelbench.json" "$rc" "$t0" "$t1" > "$out/selftest-kernelbench.txt" <<'EOF'
import json, sys
path, rc, t0, t1 = sys.argv[1:]
print(f"kforge selftest --backend cuda --only kernelbench: exit {rc}, {float(t1) - float(t0):.1f} s wall")
try:
    r = json.load(open(path))
except Exception as e:
    print(f"report unreadable ({e}){'; timed out' if rc in ('124', '137') else ''}")
    sys.exit()
cases = r.get("cases", [])
print(f"{sum(1 for c in cases if c.get('ok'))} of {len(cases)} cases as expected; canary "
      f"{'intact' if r.get('canary_intact', True) else 'NOT intact'}")
for c in cases:
    print(f"{'ok  ' if c.get('ok') else 'FAIL'} {str(c.get('case')):44s} {str(c.get('got')):28s} "
          f"{c.get('seconds', 0):6.1f} s  {c.get('note', '')}")
EOF
  cat "$out/selftest-kernelbench.txt"
  return $rc
}

step_table() {
  "$KFORGE_PYTHON" - "$out" "$fixture/README.md" <<'EOF' | tee "$out/summary.txt"
import json, os, re, sys
out, readme = sys.argv[1:]
work = os.path.join(out, "work")

def jsonl(p):
    rows = []
    if os.path.exists(p):
        for line in open(p):
            try:
                rows.append(json.loads(line))
            except ValueError:
                pass
    return rows

# Expected statuses, from the fixture README's tables (file -> expected cell).
expected = {}
if os.path.exists(readme):
    for line in open(readme):
        m = re.match(r"\| `(level_1_problem_(\d+)_sample_(\d+)_kernel\.py)` \|.*\| ([^|]+) \|\s*$", line)
        if m:
            expected[(int(m.group(2)), int(m.group(3)))] = m.group(4).strip().replace("`", "")

print("== fixture kernelbench_gpu_run re-verified (kforge reverify --backend cuda)")
rv_path = os.path.join(out, "imported", "reverify.json")
entries = []
if os.path.exists(rv_path):
    try:
        rv = json.load(open(rv_path))
        entries = [e for e in rv.get("kernels", []) if e.get("kind") == "imported"]
    except ValueError as e:
        print(f"reverify.json unreadable: {e}")
else:
    print("no reverify.json (step reverify not run, or it did not finish)")
judged = 0
counts = {}
if entries:
    print(f"{'prob':>4s} {'s':>1s} {'claimed':>9s} {'status':15s} {'reason / hack class':44s} {'kforge ms':>9s} {'base ms':>8s} {'speedup':>8s}  expected")
for e in sorted(entries, key=lambda e: (e.get("problem_number") or 0, e.get("sample") or 0)):
    v = e.get("verdict") or {}
    st = e.get("status", "?")
    counts[st] = counts.get(st, 0) + 1
    if v:
        judged += 1
    why = e.get("hack_class") or ""
    why = f"{why} ({e.get('reason')})" if why else (e.get("reason") or "")
    cs = e.get("claimed_speedup")
    fmt = lambda x, f: (f % x) if isinstance(x, (int, float)) else "-"
    print(f"{e.get('problem_number') or 0:4d} {e.get('sample') or 0:1d} {fmt(cs, '%8.2fx'):>9s} {st:15s} {why[:44]:44s} "
          f"{fmt(v.get('time_ms'), '%9.3f'):>9s} {fmt(v.get('ref_time_ms'), '%8.3f'):>8s} {fmt(v.get('speedup'), '%7.2fx'):>8s}  "
          f"{expected.get((e.get('problem_number'), e.get('sample')), '?')}")
if entries:
    print("statuses: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))

ev = jsonl(os.path.join(work, "evals.jsonl"))
get = lambda label, pss: next((r for r in ev if r.get("label") == label and r.get("pass") == pss), None)
rvw, pre = get("reverify", "warm-prebuilt"), get("prebuild", "parallel")
cold, warm = get("relu_p19_s0", "cold"), get("relu_p19_s0", "warm")
print("== time per candidate (KernelBench's harness on the H200: 148 s cold, 97 s warm per ReLU solution)")
if rvw and judged:
    if pre:
        tot = rvw["wall_s"] + pre["wall_s"]
        print(f"reverify: {rvw['wall_s']:.1f} s for {judged} solutions judged = {rvw['wall_s'] / judged:.1f} s each "
              f"(extensions prebuilt); with the parallel prebuild ({pre['solutions']} solutions, "
              f"{pre['parallel']} at a time, {pre['wall_s']:.1f} s): {tot / judged:.1f} s each")
    else:
        print(f"reverify: {rvw['wall_s']:.1f} s for {judged} solutions judged, extensions built by reverify's "
              f"ahead-compile threads = {rvw['wall_s'] / judged:.1f} s each")
for r, name in ((cold, "cold (empty cache: precompiled header + extension built)"), (warm, "warm (same cache)")):
    if r:
        kb = 148 if r is cold else 97
        vs = (f"; KernelBench {kb} s -> {kb / r['wall_s']:.1f}x faster" if r.get("verdict") == "correct"
              else "; not comparable (no correct verdict)")
        print(f"ReLU eval {name}: {r['wall_s']:.1f} s wall, compile {r.get('compile_s') or 0:.1f} s, verdict "
              f"{r.get('verdict')} {r.get('reasons') or ''}, {r.get('time_ms') or 0:.3f} ms vs {r.get('ref_ms') or 0:.3f} ms{vs}")

tr = jsonl(os.path.join(work, "triton.jsonl"))
if tr:
    print("== Triton solutions (kforge eval)")
    for r in tr:
        print(f"{r['label']:44s} {str(r['verdict']):12s} {str(r['reasons'][:2]):40s} {r.get('time_ms') or 0:8.3f} ms "
              f"{r.get('speedup') or 0:6.2f}x {r['wall_s']:6.1f} s")

ex = jsonl(os.path.join(out, "examples.jsonl"))
if ex:
    print("== KernelBench example solutions (kforge eval; cold from an empty cache, then warm)")
    for r in ex:
        if "skipped" in r:
            print(f"skipped: {r['skipped']}")
            continue
        name = r["label"]
        exp = "correct" if re.search(r"correct|fewshot", name, re.I) else "not correct (a hack)"
        print(f"{r['pass']:5s} {name:48s} {str(r['verdict']):14s} {str(r['reasons'][:1]):38s} "
              f"{r['wall_s']:6.1f} s  expected {exp}")
st = os.path.join(out, "selftest-kernelbench.txt")
if os.path.exists(st):
    lines = open(st).read().splitlines()
    print("== " + " / ".join(lines[:2]))
    for l in lines[2:]:
        if l.startswith("FAIL"):
            print("   " + l)
for r in jsonl(os.path.join(work, "logs", "skipped.jsonl")):
    print(f"skipped for the time budget: {r['skipped']} ({r['left_s']} s left, needs ~{r['needed_s']} s)")
EOF
}

status=0
for step in "${steps[@]}"; do
  case "$step" in
    reverify) step_reverify || status=1 ;;
    triton) step_triton || status=1 ;;
    examples) step_examples || status=1 ;;
    selftest) step_selftest || status=1 ;;
    table) ;;
    *) echo "kernelbench-solutions: unknown step '$step' (reverify, triton, examples, selftest, table)" >&2; exit 2 ;;
  esac
done
step_table
echo "kernelbench-solutions: $(( $(date +%s) - t_start )) s in all"
exit $status
