#!/usr/bin/env bash
# The GPU acceptance run: everything that needs a GPU, step by step, each step's output in OUTDIR and one
# line per step in OUTDIR/summary.txt (printed last).
#
# Usage: scripts/gpu-acceptance.sh OUTDIR [STEP...]
#   STEP: env | selftest | tests | medians | latency | campaign | overhead | audit-dlrm | level1:FIRST-LAST
#   Without STEP: every step but the level-1 audit (run that with scripts/gpu-audit.sh or level1:1-100).
#   medians: KFORGE_MEDIAN_EVALS (default 5) evaluations of each honest candidate of tests/evaluator/cuda on
#   level-1 problems 1, 19, 23, 40, 50 and 95, both baselines timed: candidate, eager and torch.compile
#   medians with their spreads, and each one's fraction of the roofline (docs/evaluator.md, "Yardsticks").
# Programs are looked up in $KFORGE_BIN_DIR (for example a bundle's bin/), then in the build folder
# $KFORGE_BUILD_DIR (default build) and its tests/ and bench/ subfolders.
# Environment: KFORGE_RUNNER (default: found like the programs), KFORGE_PYTHON (python3 with torch,
#   default: scripts/python-env.sh), KFORGE_KERNELBENCH_LEVEL1 (default ../shared/kernelbench/level1),
#   KFORGE_STEP_TIMEOUT (seconds per step, default 300).
set -uo pipefail
self=$(realpath "${BASH_SOURCE[0]}")
# Internal: `--step NAME OUTDIR` runs one step's body (so that `timeout` can bound it).
inner=""
if [ "${1:-}" = "--step" ]; then inner=$2; shift 2; fi
if [ $# -lt 1 ]; then
  sed -n '2,15p' "$self" >&2
  exit 2
fi
out=$(mkdir -p "$1" && cd "$1" && pwd)
shift
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(env selftest tests medians latency campaign overhead audit-dlrm)

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
source scripts/python-env.sh  # KFORGE_PYTHON: the one named, else the GPU machine's python3 with torch
export KFORGE_SOURCE_DIR=$root KFORGE_DATA_DIR=${KFORGE_DATA_DIR:-$root}
export KFORGE_KERNELBENCH_LEVEL1=${KFORGE_KERNELBENCH_LEVEL1:-$root/../shared/kernelbench/level1}
export PYTHONUNBUFFERED=1
build=${KFORGE_BUILD_DIR:-build}
step_timeout=${KFORGE_STEP_TIMEOUT:-300}
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH

find_bin() {
  local name=$1 dir
  for dir in ${KFORGE_BIN_DIR:-} "$build" "$build"/tests/* "$build/bench"; do
    [ -n "$dir" ] && [ -x "$dir/$name" ] && { echo "$dir/$name"; return 0; }
  done
  echo "gpu-acceptance: $name not found (set KFORGE_BIN_DIR or KFORGE_BUILD_DIR)" >&2
  return 1
}
kforge=$(find_bin kforge) || exit 2
export KFORGE_BIN=$kforge
if [ -z "${KFORGE_RUNNER:-}" ]; then KFORGE_RUNNER=$(find_bin kforge-runner) || exit 2; fi
export KFORGE_RUNNER

summary() { echo "$*" | tee -a "$out/summary.txt"; }

# run_step NAME: runs this script's step NAME under a time limit; its output goes to OUTDIR/NAME.txt too.
run_step() {
  local name=$1 file=$2
  local t0=$SECONDS
  echo "==== $name"
  timeout --kill-after=10 "$step_timeout" "$self" --step "$name" "$out" 2>&1 | tee "$out/$file.txt"
  last_status=${PIPESTATUS[0]}
  [ "$last_status" -eq 124 ] && echo "(stopped after $step_timeout s)" | tee -a "$out/$file.txt"
  last_seconds=$((SECONDS - t0))
}

step_env() {
  nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv,noheader
  "$KFORGE_PYTHON" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name())'
  nvcc --version | tail -2
  echo "kforge: $kforge"
}

step_tests() {
  local status=0 t
  for t in evaluator_gpu_test audit_gpu_test; do
    echo "== $t"
    "$(find_bin $t)" || status=1
  done
  return $status
}

step_medians() {
  local n=${KFORGE_MEDIAN_EVALS:-5} pair num prob i
  mkdir -p "$out/medians"
  for pair in 1:matmul.cu 19:relu.cu 23:softmax.cu 40:layernorm.cu 50:conv2d.cu 95:cross_entropy.cu; do
    num=${pair%%:*}
    prob=$(ls "$KFORGE_KERNELBENCH_LEVEL1"/"${num}"_*.py | head -1)
    for i in $(seq 1 "$n"); do
      "$kforge" eval --backend cuda --compile-baseline on --json --problem "$prob" \
        --candidate "tests/evaluator/cuda/${pair#*:}" --cache-dir "$out/medians/cache" >"$out/medians/$num-$i.json"
    done
  done
  "$KFORGE_PYTHON" - "$out/medians" <<'PY'
import glob, json, os, statistics, sys
rows = {}
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*-*.json"))):
    try:
        rows.setdefault(int(os.path.basename(f).split("-")[0]), []).append(json.load(open(f)))
    except (ValueError, json.JSONDecodeError):
        pass
def spread(xs):
    xs = [x for x in xs if x]
    return f"{100 * (max(xs) - min(xs)) / statistics.median(xs):.2f}%" if xs else "-"
def med(xs, fmt="{:.4f}"):
    xs = [x for x in xs if x is not None]
    return fmt.format(statistics.median(xs)) if xs else "-"
print("| problem | verdicts | candidate ms (spread) | eager ms (spread) | compile ms (spread) | peak: candidate / eager / compile |")
print("| --- | --- | --- | --- | --- | --- |")
for num, vs in sorted(rows.items()):
    b = lambda v, k: ((v.get("baselines") or {}).get(k) or {})
    cand = [v.get("time_ms") for v in vs]
    eager = [b(v, "eager").get("time_ms") for v in vs]
    comp = [b(v, "compile").get("time_ms") for v in vs]
    frac = lambda xs: med([x.get("fraction") if x else None for x in xs], "{:.0%}")
    print(f"| {num} | {', '.join(sorted(set(v.get('verdict', '?') for v in vs)))} | {med(cand)} ({spread(cand)}) | "
          f"{med(eager)} ({spread(eager)}) | {med(comp)} ({spread(comp)}) | "
          f"{frac([v.get('peak') for v in vs])} / {frac([b(v, 'eager').get('peak') for v in vs])} / "
          f"{frac([b(v, 'compile').get('peak') for v in vs])} |")
PY
}

step_campaign() {
  local util=$out/campaign-gpu-util.csv status=0
  nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits -lms 100 >"$util" &
  local sampler=$!
  local t0=$SECONDS
  scripts/run-demo.sh "$kforge" --backend cuda --out "$out/campaign" || status=$?
  kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null
  echo "campaign wall: $((SECONDS - t0)) s"
  "$KFORGE_PYTHON" - "$util" <<'PY'
import sys
vals = [float(v) for v in open(sys.argv[1]).read().split() if v.replace('.', '', 1).isdigit()]
if vals:
    busy = sum(1 for v in vals if v > 0) / len(vals)
    print(f"GPU utilisation during the campaign: mean {sum(vals) / len(vals):.1f}%, "
          f"samples with a kernel running {100 * busy:.1f}% ({len(vals)} samples at 100 ms)")
PY
  echo "== reverify"
  "$kforge" reverify "$out/campaign" --backend cuda --out "$out/reverify.json" || status=$?
  return $status
}

run_body() {
  case "$1" in
    env) step_env ;;
    selftest) "$kforge" selftest --backend cuda ;;
    tests) step_tests ;;
    medians) step_medians ;;
    latency)
      bench/eval_latency.sh --kforge "$kforge" --level1 "$KFORGE_KERNELBENCH_LEVEL1" --out "$out/latency.json" ;;
    campaign) step_campaign ;;
    overhead) "$(find_bin bench_sandbox_overhead)" ;;
    audit-dlrm)
      "$kforge" audit --backend cuda --baseline --seeds 3 --python "$KFORGE_PYTHON" \
        --json-file "$out/audit-dlrm.json" --problems problems/dlrm ;;
    level1:*-*)
      KFORGE_BUILD_DIR=$(dirname "$kforge") scripts/gpu-audit.sh "$out" "$KFORGE_KERNELBENCH_LEVEL1" "$1" ;;
    *) echo "unknown step '$1'" >&2; return 2 ;;
  esac
}

if [ -n "$inner" ]; then
  run_body "$inner"
  exit $?
fi
for step in "${steps[@]}"; do
  case "$step" in
    env | selftest | tests | medians | latency | campaign | overhead | audit-dlrm | level1:*-*) ;;
    *) echo "unknown step '$step' (env, selftest, tests, medians, latency, campaign, overhead, audit-dlrm, level1:A-B)" >&2
       exit 2 ;;
  esac
done
for step in "${steps[@]}"; do
  run_step "$step" "${step/:/-}"
  summary "$(printf '%-22s exit %-3s %5s s' "$step" "$last_status" "$last_seconds")"
done
echo "==== summary"
cat "$out/summary.txt"
