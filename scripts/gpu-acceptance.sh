#!/usr/bin/env bash
# The GPU acceptance run: everything that needs a GPU, step by step, each step's output in OUTDIR and one
# line per step in OUTDIR/summary.txt (printed last).
#
# Usage: scripts/gpu-acceptance.sh OUTDIR [STEP...]
#   STEP: env | selftest | tests | latency | campaign | overhead | audit-dlrm | level1:FIRST-LAST
#   Without STEP: every step but the level-1 audit (run that with scripts/gpu-audit.sh or level1:1-100).
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
  sed -n '2,12p' "$self" >&2
  exit 2
fi
out=$(mkdir -p "$1" && cd "$1" && pwd)
shift
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(env selftest tests latency campaign overhead audit-dlrm)

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
    env | selftest | tests | latency | campaign | overhead | audit-dlrm | level1:*-*) ;;
    *) echo "unknown step '$step' (env, selftest, tests, latency, campaign, overhead, audit-dlrm, level1:A-B)" >&2
       exit 2 ;;
  esac
done
for step in "${steps[@]}"; do
  run_step "$step" "${step/:/-}"
  summary "$(printf '%-22s exit %-3s %5s s' "$step" "$last_status" "$last_seconds")"
done
echo "==== summary"
cat "$out/summary.txt"
