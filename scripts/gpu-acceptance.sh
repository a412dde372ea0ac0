#!/usr/bin/env bash
# The GPU acceptance run: everything that needs a GPU, step by step, each step's output in OUTDIR and one
# line per step in OUTDIR/summary.txt (printed last).
#
# Usage: scripts/gpu-acceptance.sh OUTDIR [STEP...]
#   STEP: env | selftest | tests | eval | medians | yardsticks | latency | campaign | overhead | audit-dlrm
#         | level1:FIRST-LAST | compare-builds | kernelbench-allclose | kernelbench-solutions | evaluators
#         | reverify-report | releases
#   Without STEP: env selftest tests eval medians latency campaign overhead audit-dlrm (level1:1-100 is the
#   level-1 audit, also scripts/gpu-audit.sh; the last five are the longer checks of scripts/gpu/, below).
#   selftest: `kforge selftest --backend cuda` (more arguments in KFORGE_SELFTEST_ARGS, e.g. "--skip
#   kernelbench"), one line per case and whether the canary stayed intact. tests: evaluator_gpu_test and
#   audit_gpu_test (GTEST_FILTER picks tests). eval: one `kforge eval` of an honest candidate (expected correct;
#   it compiles for the architecture nvidia-smi reports, a failed probe shows as harness.gpu_arch).
#   medians: KFORGE_MEDIAN_EVALS (default 5) evaluations of each honest candidate of tests/evaluator/cuda on
#   level-1 problems 1, 19, 23, 40, 50 and 95, both baselines timed: candidate, eager and torch.compile
#   medians with their spreads, and each one's fraction of the roofline (docs/evaluator.md, "Yardsticks"); the
#   first evaluation of each problem starts with an empty compile cache, so the step also prints cold and warm
#   walls and the median seconds per evaluation phase. yardsticks: eager and torch.compile baselines of level-1
#   problems 1-20 (KFORGE_YARDSTICK_PROBLEMS, default "1-20") with their fractions of peak (`kforge audit
#   --compile-baseline`).
#   The checks of scripts/gpu/NAME.sh run as step NAME into OUTDIR/NAME/, their own steps after a colon joined
#   by '+' (e.g. kernelbench-solutions:reverify+triton, kernelbench-allclose:level1:1-10); each file's first
#   lines say what it checks: compare-builds (timing against an older build, KFORGE_OLD_BIN_DIR),
#   kernelbench-allclose (KernelBench's allclose in the audit, levels 1-3), kernelbench-solutions (imported
#   KernelBench-layout solutions, reverify, Triton, KernelBench's examples), evaluators (several evaluators on
#   one GPU), reverify-report (the demo campaign re-verified and reported in every format), releases (the
#   published releases re-verified, resumably: releases:cuda-l1-h100+leaderboard+technoabsurdist).
# Programs are looked up in $KFORGE_BIN_DIR (for example a bundle's bin/), then in the build folder
# $KFORGE_BUILD_DIR (default build) and its tests/ and bench/ subfolders.
# Environment: KFORGE_RUNNER (default: found like the programs), KFORGE_PYTHON (python3 with torch,
#   default: scripts/python-env.sh), KFORGE_KERNELBENCH_LEVEL1 (default ../shared/kernelbench/level1),
#   KFORGE_STEP_TIMEOUT (seconds per step, default 300; 600 for the steps of scripts/gpu/).
set -uo pipefail
self=$(realpath "${BASH_SOURCE[0]}")
# Internal: `--step NAME OUTDIR` runs one step's body (so that `timeout` can bound it).
inner=""
if [ "${1:-}" = "--step" ]; then inner=$2; shift 2; fi
if [ $# -lt 1 ]; then
  sed -n '2,32p' "$self" >&2
  exit 2
fi
steps=("${@:2}")
[ ${#steps[@]} -eq 0 ] && steps=(env selftest tests eval medians latency campaign overhead audit-dlrm)
for step in "${steps[@]}"; do
  case "$step" in
    env | selftest | tests | eval | medians | yardsticks | latency | campaign | overhead | audit-dlrm | level1:*-*) ;;
    compare-builds | compare-builds:* | kernelbench-allclose | kernelbench-allclose:* | kernelbench-solutions \
      | kernelbench-solutions:* | evaluators | reverify-report | releases:*) ;;
    *) echo "unknown step '$step' (env, selftest, tests, eval, medians, yardsticks, latency, campaign, overhead," \
         "audit-dlrm, level1:A-B, compare-builds, kernelbench-allclose, kernelbench-solutions, evaluators," \
         "reverify-report, releases:RELEASE+...)" >&2
       exit 2 ;;
  esac
done
out=$(mkdir -p "$1" && cd "$1" && pwd)

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 2
source scripts/python-env.sh  # KFORGE_PYTHON: the one named, else the GPU machine's python3 with torch
export KFORGE_SOURCE_DIR=$root KFORGE_DATA_DIR=${KFORGE_DATA_DIR:-$root}
export KFORGE_KERNELBENCH_LEVEL1=${KFORGE_KERNELBENCH_LEVEL1:-$root/../shared/kernelbench/level1}
export PYTHONUNBUFFERED=1
build=${KFORGE_BUILD_DIR:-build}
step_timeout() {  # NAME: the seconds step NAME may take
  case "$1" in
    compare-builds* | kernelbench-* | evaluators | reverify-report | releases*) echo "${KFORGE_STEP_TIMEOUT:-600}" ;;
    *) echo "${KFORGE_STEP_TIMEOUT:-300}" ;;
  esac
}
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
  local t0=$SECONDS limit
  limit=$(step_timeout "$name")
  echo "==== $name"
  timeout --kill-after=10 "$limit" "$self" --step "$name" "$out" 2>&1 | tee "$out/$file.txt"
  last_status=${PIPESTATUS[0]}
  [ "$last_status" -eq 124 ] && echo "(stopped after $limit s)" | tee -a "$out/$file.txt"
  last_seconds=$((SECONDS - t0))
}

step_env() {
  nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv,noheader
  "$KFORGE_PYTHON" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name())'
  nvcc --version | tail -2
  echo "kforge: $kforge"
}

step_selftest() {
  local rc
  # shellcheck disable=SC2086  # KFORGE_SELFTEST_ARGS is a list of arguments
  "$kforge" selftest --backend cuda --json --python "$KFORGE_PYTHON" --cache-dir "$out/selftest-cache" \
    ${KFORGE_SELFTEST_ARGS:-} >"$out/selftest.json" 2>"$out/selftest.log"
  rc=$?
  "$KFORGE_PYTHON" - "$out/selftest.json" "$rc" <<'PY'
import json, sys
path, rc = sys.argv[1:]
try:
    r = json.load(open(path))
except Exception as e:
    print(f"kforge selftest exit {rc}, report unreadable ({e})")
    sys.exit()
cases = r.get("cases", [])
for c in cases:
    print(f"{'ok  ' if c.get('ok') else 'FAIL'} {str(c.get('case')):40s} {str(c.get('got')):15s} "
          f"{c.get('seconds', 0):6.1f} s  {c.get('note', '')}")
ok = sum(1 for c in cases if c.get("ok") or c.get("xfail"))
print(f"kforge selftest exit {rc}: {ok}/{len(cases)} cases as expected, canary "
      f"{'intact' if r.get('canary_intact') else 'NOT intact: ' + str(r.get('canary_note'))}")
PY
  [ "$rc" -ne 0 ] && tail -n 5 "$out/selftest.log"
  return $rc
}

step_eval() {
  "$kforge" eval --backend cuda --problem tests/adversarial/problems/scale_add.py --python "$KFORGE_PYTHON" \
    --candidate tests/adversarial/cuda/honest_scale_add_2d.cu --cache-dir "$out/eval-cache" --json \
    >"$out/eval.json" 2>"$out/eval.err"
  local rc=$?
  "$KFORGE_PYTHON" - "$out/eval.json" "$rc" <<'PY'
import json, sys
path, rc = sys.argv[1:]
try:
    v = json.load(open(path))
except Exception as e:
    print(f"kforge eval exit {rc}, unreadable ({e})")
    sys.exit(1)
codes = [r.get("code") for r in v.get("reasons", [])]
print(f"kforge eval exit {rc}, verdict {v.get('verdict')} (expected correct), reasons {codes}")
sys.exit(0 if v.get("verdict") == "correct" else 1)
PY
  local judged=$?
  [ "$rc" -eq 0 ] && return $judged
  return $rc
}

# step_subject NAME[:STEP+STEP...]: the check of scripts/gpu/NAME.sh into OUTDIR/NAME, with those steps.
step_subject() {
  local name=${1%%:*} args=()
  [ "$name" != "$1" ] && IFS=+ read -r -a args <<<"${1#*:}"
  [ "$name" = kernelbench-allclose ] && args=("$(dirname "$KFORGE_KERNELBENCH_LEVEL1")" "${args[@]}")
  KFORGE_BIN_DIR=$(dirname "$kforge") scripts/gpu/"$name".sh "$out/$name" "${args[@]}"
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
      local t0=$EPOCHREALTIME
      "$kforge" eval --backend cuda --compile-baseline on --json --problem "$prob" \
        --candidate "tests/evaluator/cuda/${pair#*:}" --cache-dir "$out/medians/cache-$num" >"$out/medians/$num-$i.json"
      echo "$t0 $EPOCHREALTIME" >"$out/medians/$num-$i.wall"
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
def wall(num, i):
    try:
        t0, t1 = map(float, open(os.path.join(sys.argv[1], f"{num}-{i}.wall")).read().split())
        return t1 - t0
    except (OSError, ValueError):
        return None
print()
print("Cold (empty compile cache) and warm `kforge eval` per problem, and the median seconds of each phase of the warm ones:")
print("| problem | cold wall s | warm wall s (median) | compile s cold / warm | phases of the warm evaluations (s) |")
print("| --- | --- | --- | --- | --- |")
for num, vs in sorted(rows.items()):
    n = len(vs)
    warm = [w for w in (wall(num, i) for i in range(2, n + 1)) if w is not None]
    phases = {}
    for v in vs[1:]:
        for k, x in ((v.get("checks") or {}).get("phases_s") or {}).items():
            if isinstance(x, (int, float)):
                phases.setdefault(k, []).append(x)
    ph = ", ".join(f"{k} {statistics.median(x):.2f}" for k, x in phases.items())
    cold = wall(num, 1)
    print(f"| {num} | {cold:.2f} | {statistics.median(warm) if warm else float('nan'):.2f} | "
          f"{vs[0].get('compile_s') or 0:.2f} / {statistics.median([v.get('compile_s') or 0 for v in vs[1:]]) if n > 1 else float('nan'):.2f} | {ph} |"
          if cold is not None else f"| {num} | - | - | - | {ph} |")
PY
}

# The yardsticks without a candidate: eager and torch.compile baselines of level-1 problems (default 1-20), timed
# as `kforge eval` times them, with both fractions of peak.
step_yardsticks() {
  local range=${KFORGE_YARDSTICK_PROBLEMS:-1-20} files=() no
  for no in $(seq "${range%-*}" "${range#*-}"); do
    files+=("$(ls "$KFORGE_KERNELBENCH_LEVEL1"/"${no}"_*.py | head -1)")
  done
  "$kforge" audit --backend cuda --compile-baseline --seeds 1 --kernelbench-trials 1 --python "$KFORGE_PYTHON" \
    --json-file "$out/yardsticks.json" --problems "${files[@]}" >"$out/yardsticks-audit.txt"
  local rc=$?
  sed -n '/PyTorch baselines/,$p' "$out/yardsticks-audit.txt"
  return $rc
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
    selftest) step_selftest ;;
    tests) step_tests ;;
    eval) step_eval ;;
    medians) step_medians ;;
    yardsticks) step_yardsticks ;;
    latency)
      bench/eval_latency.sh --kforge "$kforge" --level1 "$KFORGE_KERNELBENCH_LEVEL1" --out "$out/latency.json" ;;
    campaign) step_campaign ;;
    overhead) "$(find_bin bench_sandbox_overhead)" ;;
    audit-dlrm)
      "$kforge" audit --backend cuda --baseline --seeds 3 --python "$KFORGE_PYTHON" \
        --json-file "$out/audit-dlrm.json" --problems problems/dlrm ;;
    level1:*-*)
      KFORGE_BUILD_DIR=$(dirname "$kforge") scripts/gpu-audit.sh "$out" "$KFORGE_KERNELBENCH_LEVEL1" "$1" ;;
    compare-builds | compare-builds:* | kernelbench-allclose | kernelbench-allclose:* | kernelbench-solutions \
      | kernelbench-solutions:* | evaluators | reverify-report | releases:*) step_subject "$1" ;;
    *) echo "unknown step '$1'" >&2; return 2 ;;
  esac
}

if [ -n "$inner" ]; then
  run_body "$inner"
  exit $?
fi
for step in "${steps[@]}"; do
  run_step "$step" "${step//[:+]/-}"
  summary "$(printf '%-22s exit %-3s %5s s' "$step" "$last_status" "$last_seconds")"
done
echo "==== summary"
cat "$out/summary.txt"
