#!/usr/bin/env bash
# Build comparison on one GPU: this build's trusted timing against an older build's, in the same run on the
# same GPU (old and new evaluations interleaved), and a zero-latency scripted campaign over 20 KernelBench
# level-1 problems for both builds (evaluations per GPU-hour). Prints a short table last.
# Also a step of scripts/gpu-acceptance.sh (compare-builds[:STEP+STEP...]).
#
# Usage: scripts/gpu/compare-builds.sh OUTDIR [STEP...]
#   STEP: medians (5 evaluations each of ReLU = level 1 problem 19 and cross-entropy = 95, old and new builds
#         interleaved, the first of each with an empty compile cache) | others (2 evaluations per build of the
#         other honest GPU-test kernels: matmul 1, softmax 23, layernorm 40, conv 50) | campaign | table
#   Default: medians others campaign table. Each step stays within ~5 minutes on an H200; run them as separate
#   calls into the same OUTDIR if one call is limited to 10 minutes (table covers what OUTDIR holds).
#   The cuda self-test and the evaluator's GPU tests are gpu-acceptance.sh's steps selftest and tests.
# Programs: $KFORGE_BIN_DIR/{kforge,kforge-runner} (this build), and for the comparison
#   $KFORGE_OLD_BIN_DIR/{kforge,kforge-runner} (the older build) with its shipped data (oracle, prompts,
#   configs) in $KFORGE_OLD_DATA_DIR (a checkout of that commit; default: this tree); without KFORGE_OLD_BIN_DIR
#   the old columns stay empty. Environment: KFORGE_PYTHON (torch with CUDA; default scripts/python-env.sh),
#   KFORGE_KERNELBENCH_LEVEL1 (default .shared/kernelbench/level1, else ../shared/kernelbench/level1),
#   KFORGE_CHECK_EVALS (evaluations per build and problem, default 5).
set -uo pipefail
if [ $# -lt 1 ]; then
  sed -n '2,19p' "${BASH_SOURCE[0]}" >&2
  exit 2
fi
out=$(mkdir -p "$1" && cd "$1" && pwd)
shift
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(medians others campaign table)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root" || exit 2
source scripts/python-env.sh
new=${KFORGE_BIN_DIR:-$root/build}
old=${KFORGE_OLD_BIN_DIR:-}
data_new=${KFORGE_DATA_DIR:-$root}
data_old=${KFORGE_OLD_DATA_DIR:-$data_new}
data_of() { if [ "$1" = old ]; then echo "$data_old"; else echo "$data_new"; fi; }
[ -x "$new/kforge" ] || { echo "compare-builds: no kforge in $new (set KFORGE_BIN_DIR)" >&2; exit 2; }
l1=${KFORGE_KERNELBENCH_LEVEL1:-}
[ -z "$l1" ] && for d in .shared/kernelbench/level1 ../shared/kernelbench/level1; do [ -d "$d" ] && l1=$(cd "$d" && pwd) && break; done
[ -d "$l1" ] || { echo "compare-builds: KernelBench level 1 not found (set KFORGE_KERNELBENCH_LEVEL1)" >&2; exit 2; }
export KFORGE_KERNELBENCH_LEVEL1=$l1
evals=${KFORGE_CHECK_EVALS:-5}
problem() { ls "$l1"/"$1"_*.py | head -1; }

# One `kforge eval` of BUILD on PROBLEM with CANDIDATE; appends a JSON line to $out/medians.jsonl.
one_eval() {  # build-name bin-dir problem-no candidate cache-dir run-index
  local name=$1 bin=$2 no=$3 cand=$4 cache=$5 idx=$6 t0 t1
  t0=$(date +%s.%N)
  KFORGE_DATA_DIR=$(data_of "$name") KFORGE_RUNNER=$bin/kforge-runner "$bin/kforge" eval --backend cuda --problem "$(problem "$no")" \
    --candidate "$cand" --cache-dir "$cache" --json > "$out/eval-$name-$no-$idx.json" 2> "$out/eval-$name-$no-$idx.err"
  t1=$(date +%s.%N)
  "$KFORGE_PYTHON" - "$out/eval-$name-$no-$idx.json" "$name" "$no" "$idx" "$t0" "$t1" >> "$out/medians.jsonl" <<'EOF'
import json, sys
path, name, no, idx, t0, t1 = sys.argv[1:]
try:
    v = json.load(open(path))
except Exception as e:
    v = {"verdict": f"unreadable ({e})"}
t = v.get("checks", {}).get("timing", {})
cand = t.get("candidate", t.get("candidate_events", {}))
def median_of(col):
    xs = sorted(r[col] for r in cand.get("rounds_log", []) if len(r) > col)
    return xs[len(xs) // 2] if xs else None
print(json.dumps({"build": name, "problem": int(no), "run": int(idx), "verdict": v.get("verdict"),
                  "time_ms": v.get("time_ms"), "ref_ms": v.get("ref_time_ms"), "wall_s": float(t1) - float(t0),
                  "compile_s": v.get("compile_s"), "noise": cand.get("noise"), "rounds": cand.get("rounds"),
                  "calls": cand.get("calls"), "channel_share": cand.get("channel_share"),
                  "calls_per_round": cand.get("calls_per_round"), "slots": t.get("slots"),
                  "base_calls_per_round": t.get("baseline", {}).get("calls_per_round"), "repeatable_inputs": t.get("repeatable_inputs"),
                  "base_noise": t.get("baseline", {}).get("noise"), "base_rounds": t.get("baseline", {}).get("rounds"),
                  "reasons": [r.get("code") for r in v.get("reasons", [])],
                  "overhead_ms": cand.get("round_overhead_ms"), "events_ms": cand.get("events_per_call_ms"),
                  "phases_s": v.get("checks", {}).get("phases_s"),
                  "prepare_ms": median_of(3), "check_ms": median_of(4),
                  "beyond_events_ms": sorted(r[0] - r[1] for r in cand.get("rounds_log", []))[len(cand.get("rounds_log", [])) // 2]
                  if cand.get("rounds_log") else None,
                  "calibration_ms": [round(c[0] - c[1], 3) for c in cand.get("calibration_log", [])]}))
EOF
}

step_medians() {
  rm -f "$out/medians.jsonl"
  local i no cand b dir
  for no in 19 95; do
    cand=tests/evaluator/cuda/relu.cu
    [ "$no" = 95 ] && cand=tests/evaluator/cuda/cross_entropy.cu
    for i in $(seq 1 "$evals"); do
      for b in new old; do
        dir=$new; [ "$b" = old ] && dir=$old
        [ -z "$dir" ] && continue
        # The first run of each build starts from an empty compile cache: its wall time includes the compile.
        [ "$i" = 1 ] && rm -rf "$out/cache-$b"
        one_eval "$b" "$dir" "$no" "$cand" "$out/cache-$b" "$i"
      done
    done
  done
}

step_others() {
  local i no cand b dir
  for no in 1 23 40 50; do
    case $no in 1) cand=matmul.cu ;; 23) cand=softmax.cu ;; 40) cand=layernorm.cu ;; 50) cand=conv2d.cu ;; esac
    for i in 1 2; do
      for b in new old; do
        dir=$new; [ "$b" = old ] && dir=$old
        [ -z "$dir" ] && continue
        one_eval "$b" "$dir" "$no" "tests/evaluator/cuda/$cand" "$out/cache-$b" "$i"
      done
    done
  done
}

# Zero-latency scripted campaign: one configuration, one sample, one turn, 20 level-1 problems (1-20); the
# problems with an honest candidate in tests/evaluator/cuda get it, the others a generic copy kernel.
step_campaign() {
  local work=$out/campaign-input b dir port pid t0
  rm -rf "$work" && mkdir -p "$work/problems"
  for no in $(seq 1 20); do cp "$(problem "$no")" "$work/problems/"; done
  "$KFORGE_PYTHON" - "$work" <<'EOF'
import json, os, sys
work = sys.argv[1]
honest = {"1": "matmul.cu", "19": "relu.cu"}
generic = r'''#include "kforge.h"
#include <cuda_runtime.h>
extern "C" int kf_forward(const kf_tensor* in, int32_t, kf_tensor* out, int32_t, void* stream) {
  int64_t n = 1, m = 1;
  for (int d = 0; d < out[0].ndim; ++d) n *= out[0].shape[d];
  for (int d = 0; d < in[0].ndim; ++d) m *= in[0].shape[d];
  size_t bytes = (size_t)(n < m ? n : m) * 4;
  return cudaMemcpyAsync(out[0].data, in[0].data, bytes, cudaMemcpyDeviceToDevice, (cudaStream_t)stream) == cudaSuccess ? 0 : 1;
}
'''
script = []
for f in sorted(os.listdir(os.path.join(work, "problems"))):
    stem = f[:-3]
    no = stem.split("_")[0]
    src = open(os.path.join("tests/evaluator/cuda", honest[no])).read() if no in honest else generic
    script.append({"match": f"Problem: {stem}\\b", "times": "unlimited",
                   "answer": "```cuda\n" + src + "\n```\n",
                   "usage": {"input": 1000, "cached": 0, "output": 500, "reasoning": 0}})
json.dump(script, open(os.path.join(work, "mock.json"), "w"), indent=1)
EOF
  for b in new old; do
    dir=$new; [ "$b" = old ] && dir=$old
    [ -z "$dir" ] && continue
    rm -rf "$out/campaign-$b" "$out/cache-campaign-$b"
    KFORGE_DATA_DIR=$(data_of "$b") "$dir/kforge" mock-server --script "$work/mock.json" --port 0 --port-file "$work/port-$b" > "$work/server-$b.log" 2>&1 &
    pid=$!
    for _ in $(seq 1 200); do [ -s "$work/port-$b" ] && break; sleep 0.05; done
    port=$(cat "$work/port-$b")
    t0=$(date +%s.%N)
    KFORGE_DATA_DIR=$(data_of "$b") KFORGE_MOCK_URL=http://127.0.0.1:$port XDG_CACHE_HOME=$out/cache-campaign-$b KFORGE_RUNNER=$dir/kforge-runner \
      "$dir/kforge" run --config configs/demo/qwen-coder-vllm.json --problems "$work/problems" --turns 1 --samples 1 \
      --backend cuda --out "$out/campaign-$b" --no-progress > "$out/campaign-$b.log" 2>&1
    "$KFORGE_PYTHON" -c "import sys, time; print('{\"build\": \"$b\", \"wall_s\": %.3f}' % (time.time() - float(sys.argv[1])))" "$t0" > "$out/campaign-$b.time"
    kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
  done
}

step_table() {
  "$KFORGE_PYTHON" - "$out" <<'EOF'
import glob, json, os, statistics, sys
out = sys.argv[1]
rows = [json.loads(l) for l in open(os.path.join(out, "medians.jsonl"))] if os.path.exists(os.path.join(out, "medians.jsonl")) else []
def spread(xs):
    xs = [x for x in xs if x]
    return (max(xs) - min(xs)) / statistics.median(xs) * 100 if len(xs) > 1 else float("nan")
print("== timing (evaluations per build as listed in medians.jsonl; spread = (max - min) / median of the medians)")
print(f"{'problem':8s} {'build':5s} {'verdicts':18s} {'median ms':>10s} {'spread %':>8s} {'base ms':>9s} {'base spr %':>10s} {'noise %':>8s} {'rtt share %':>11s} {'cold eval s':>11s} {'warm eval s':>11s}")
med = {}
problems = sorted(set(x["problem"] for x in rows))
for no in problems:
    for b in ("old", "new"):
        r = [x for x in rows if x["problem"] == no and x["build"] == b]
        if not r:
            continue
        t = [x["time_ms"] for x in r if x["time_ms"]]
        base = [x["ref_ms"] for x in r if x["ref_ms"]]
        noise = [x["noise"] for x in r if x.get("noise") is not None]
        share = [x["channel_share"] for x in r if x.get("channel_share") is not None]
        cold = [x["wall_s"] for x in r if x["run"] == 1]
        warm = [x["wall_s"] for x in r if x["run"] != 1]
        med[(no, b)] = statistics.median(t) if t else None
        print(f"{no:<8d} {b:5s} {','.join(sorted(set(x['verdict'] or '?' for x in r))):18s} "
              f"{statistics.median(t) if t else float('nan'):10.4f} {spread(t):8.2f} "
              f"{statistics.median(base) if base else float('nan'):9.4f} {spread(base):10.2f} "
              f"{statistics.median(noise) * 100 if noise else float('nan'):8.3f} "
              f"{statistics.median(share) * 100 if share else float('nan'):11.3f} "
              f"{cold[0] if cold else float('nan'):11.2f} {statistics.median(warm) if warm else float('nan'):11.2f}")
print("== where the new build's time goes (median per phase, s; round overhead and events per call, ms)")
for no in problems:
    r = [x for x in rows if x["problem"] == no and x["build"] == "new" and x.get("phases_s")]
    if r:
        phases = {k: statistics.median(x["phases_s"].get(k, 0) for x in r) for k in r[0]["phases_s"]}
        ov = [x["overhead_ms"] for x in r if x.get("overhead_ms") is not None]
        ev = [x["events_ms"] for x in r if x.get("events_ms") is not None]
        pm = [x["prepare_ms"] for x in r if x.get("prepare_ms") is not None]
        cm = [x["check_ms"] for x in r if x.get("check_ms") is not None]
        print(f"{no}: " + " ".join(f"{k} {v:.2f}" for k, v in phases.items()) +
              f" | compile {statistics.median(x['compile_s'] or 0 for x in r):.2f}"
              f" | overhead {statistics.median(ov) if ov else float('nan'):.3f} ({min(ov) if ov else float('nan'):.3f}-"
              f"{max(ov) if ov else float('nan'):.3f}) events/call {statistics.median(ev) if ev else float('nan'):.4f}"
              f" | per round: prepare {statistics.median(pm) if pm else float('nan'):.1f} ms,"
              f" check {statistics.median(cm) if cm else float('nan'):.1f} ms")
print("== per evaluation of the new build: median, overhead taken off, timed rounds' median beyond the events, "
      "calibration rounds beyond their memsets (ms)")
for x in rows:
    if x["build"] == "new":
        print(f"{x['problem']} #{x['run']}: {x['time_ms'] or float('nan'):.4f} base {x['ref_ms'] or float('nan'):.4f} "
              f"(noise {x.get('base_noise') or float('nan'):.4f}, {x.get('base_rounds')} rounds) "
              f"K {x.get('calls_per_round')} (baseline {x.get('base_calls_per_round')}, slots {x.get('slots')}) repeatable {x.get('repeatable_inputs')} overhead {x['overhead_ms'] or float('nan'):.3f} "
              f"timed {x.get('beyond_events_ms') or float('nan'):.3f} calibration {x.get('calibration_ms')}")
for no in problems:
    if med.get((no, "old")) and med.get((no, "new")):
        print(f"problem {no}: new median / old median = {med[(no, 'new')] / med[(no, 'old')]:.4f}")
print("== campaign (20 level-1 problems, 1 turn, zero-latency mock server)")
for b in ("old", "new"):
    tf = os.path.join(out, f"campaign-{b}.time")
    if not os.path.exists(tf):
        continue
    wall = json.load(open(tf))["wall_s"]
    n = 0
    verdicts = {}
    for f in [os.path.join(out, f"campaign-{b}", "evaluations.jsonl")]:
        for line in open(f) if os.path.exists(f) else []:
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            v = rec.get("verdict", {}).get("verdict") if isinstance(rec.get("verdict"), dict) else rec.get("verdict")
            if v:
                n += 1
                verdicts[v] = verdicts.get(v, 0) + 1
    print(f"{b:5s} evaluations {n:3d} wall {wall:7.1f} s -> {n / wall * 3600 if wall else 0:7.0f} evaluations per GPU-hour {verdicts}")
EOF
}

# The first process to import torch on a fresh machine reads its libraries from disk; do that once here, so that
# the first measured evaluation (new build, empty compile cache) is not charged for it and the old one not.
"$KFORGE_PYTHON" -c "import torch; torch.cuda.init()" >/dev/null 2>&1
status=0
for step in "${steps[@]}"; do
  case "$step" in
    medians) step_medians || status=1 ;;
    others) step_others || status=1 ;;
    campaign) step_campaign || status=1 ;;
    table) ;;
    *) echo "compare-builds: unknown step '$step' (medians, others, campaign, table)" >&2; exit 2 ;;
  esac
done
step_table
exit $status
