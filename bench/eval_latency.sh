#!/usr/bin/env bash
# Candidate-to-verdict wall time of `kforge eval` per KernelBench level-1 problem on the GPU, with the
# compile included (empty cache) and excluded (second run, cache hit). Each run is a fresh `kforge eval`
# process, so the oracle's start (python + torch import) is included in both figures.
#
# usage: bench/eval_latency.sh [--kforge PATH] [--level1 DIR] [--candidates DIR] [--out FILE]
#   defaults: build/kforge, ../shared/kernelbench/level1, tests/evaluator/cuda, no JSON file
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
kforge=$here/build/kforge
level1=$here/../shared/kernelbench/level1
cands=$here/tests/evaluator/cuda
out=
while [ $# -gt 0 ]; do
  case $1 in
    --kforge) kforge=$2; shift 2 ;;
    --level1) level1=$2; shift 2 ;;
    --candidates) cands=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
py=${KFORGE_PYTHON:-python3}
pairs="1:matmul.cu 19:relu.cu 23:softmax.cu 40:layernorm.cu 50:conv2d.cu 95:cross_entropy.cu"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rows=()
for pair in $pairs; do
  num=${pair%%:*}; cand=${pair#*:}
  prob=$(ls "$level1"/${num}_*.py | head -1)
  cache=$tmp/cache-$num
  for run in cold warm; do
    t0=$(date +%s.%N)
    "$kforge" eval --problem "$prob" --candidate "$cands/$cand" --json --cache-dir "$cache" >"$tmp/$num-$run.json" || true
    t1=$(date +%s.%N)
    echo "$t0 $t1" >"$tmp/$num-$run.wall"
  done
  rows+=("$num")
done
"$py" - "$tmp" "$out" ${rows[@]} <<'PY'
import json, sys, os
tmp, out, nums = sys.argv[1], sys.argv[2], sys.argv[3:]
table = []
for n in nums:
    r = {"problem": n}
    for run in ("cold", "warm"):
        t0, t1 = map(float, open(os.path.join(tmp, f"{n}-{run}.wall")).read().split())
        try:
            j = json.load(open(os.path.join(tmp, f"{n}-{run}.json")))
        except Exception:
            j = {}
        r[run] = {"wall_s": t1 - t0, "verdict": j.get("verdict"), "compile_s": j.get("compile_s"),
                  "eval_s": j.get("eval_s"), "time_ms": j.get("time_ms"), "ref_time_ms": j.get("ref_time_ms"),
                  "speedup": j.get("speedup"), "problem": os.path.basename(j.get("problem") or "")}
    table.append(r)
f = lambda x, p=2: "-" if x is None else f"{x:.{p}f}"
print(f"{'problem':<42} {'verdict':<9} {'cold_s':>7} {'warm_s':>7} {'compile_s':>9} {'eval_s':>7} {'cand_ms':>9} {'eager_ms':>9} {'speedup':>7}")
for r in table:
    c, w = r["cold"], r["warm"]
    print(f"{c['problem'] or r['problem']:<42} {str(c['verdict']):<9} {f(c['wall_s']):>7} {f(w['wall_s']):>7} "
          f"{f(c['compile_s']):>9} {f(w['eval_s']):>7} {f(w['time_ms'],3):>9} {f(w['ref_time_ms'],3):>9} {f(w['speedup']):>7}")
if out:
    json.dump(table, open(out, "w"), indent=1)
PY
