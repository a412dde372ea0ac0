#!/usr/bin/env bash
# Several evaluators in one process on the cuda backend (one GPU is enough).
#   1. verdicts: the demo campaign (configs/problems/demo, known-correct CUDA kernels from the scripted
#      server, 2 samples) with --gpus all and with --gpus 0,0 (two evaluators sharing GPU 0); every record
#      must name its GPU (index, name, UUID) and the verdicts must match (all correct, as the demo expects);
#   2. reverify --gpus 0,0 of the --gpus all run, and audit --gpus 0,0 of the demo problems (each problem
#      names its evaluator);
#   3. throughput: bench/campaign_throughput.sh with 1 and 2 evaluators on GPU 0 (evaluations per hour,
#      busy share per evaluator).
# Prints a short table last. Also a step of scripts/gpu-acceptance.sh (evaluators).
# Usage: scripts/gpu/evaluators.sh OUTDIR
# Programs: $KFORGE_BIN_DIR/kforge and kforge-runner (else build/). Environment: KFORGE_PYTHON (torch with
# CUDA; default: scripts/python-env.sh), KFORGE_CHECK_SAMPLES (throughput samples per problem, default 20).
set -uo pipefail
[ $# -ge 1 ] || { sed -n '2,13p' "${BASH_SOURCE[0]}" >&2; exit 2; }
out=$(mkdir -p "$1" && cd "$1" && pwd)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root" || exit 2
source scripts/python-env.sh
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
bin=${KFORGE_BIN_DIR:-build}
kforge=$(realpath "$bin/kforge" 2>/dev/null) || { echo "evaluators: no kforge in $bin" >&2; exit 2; }
[ -x "$kforge" ] || { echo "evaluators: no kforge in $bin" >&2; exit 2; }
export KFORGE_RUNNER=${KFORGE_RUNNER:-$(dirname "$kforge")/kforge-runner}
[ -x "$KFORGE_RUNNER" ] || { echo "evaluators: no kforge-runner beside kforge (set KFORGE_RUNNER)" >&2; exit 2; }
nvidia-smi -L | tee "$out/gpus.txt"

rows=()
row() { rows+=("| $1 | $2 | $3 |"); }

# ---- 1. verdicts with --gpus all and --gpus 0,0 ----
python3_=${KFORGE_PYTHON:-python3}
"$kforge" mock-server --script configs/problems/demo/mock-cuda.json --port 0 --port-file "$out/port" >"$out/mock.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null' EXIT
for _ in $(seq 1 100); do [ -s "$out/port" ] && break; sleep 0.1; done
"$python3_" - "$out/config.json" "$(cat "$out/port")" <<'PY'
import json, sys
json.dump({"name": "evaluators-check", "provider": "openai-chat", "base_url": f"http://127.0.0.1:{sys.argv[2]}/v1",
           "api_key_env": "", "model": "scripted", "generation": {"max_output_tokens": 4096, "stream": True},
           "timeouts": {"connect_s": 5, "idle_s": 60, "total_s": 120},
           "rate_limits": {"requests_per_minute": 0, "tokens_per_minute": 0, "max_concurrent": 4},
           "prices": {"input": 0.0, "cached_input": 0.0, "output": 0.0, "reasoning": 0.0},
           "loop": {"turns": 1, "samples": 2, "stop_at_first_correct": True, "keep_last_attempts": 0}},
          open(sys.argv[1], "w"))
PY
summary() {  # run folder -> "verdicts ...; GPUs named: yes/no"
  "$python3_" - "$1" <<'PY'
import collections, json, sys
recs = [json.loads(l) for l in open(sys.argv[1] + "/evaluations.jsonl") if l.strip()]
ev = [r for r in recs if r["kind"] == "evaluation"]
verdicts = collections.Counter(r["verdict"]["verdict"] for r in ev)
named = all(r.get("evaluator", {}).get("gpu_uuid") and r["evaluator"].get("gpu_index") is not None
            and r["evaluator"].get("gpu_name") for r in ev if r["verdict"]["verdict"] != "no_code")
slots = collections.Counter(r.get("evaluator", {}).get("slot") for r in ev)
print(", ".join(f"{k} {v}" for k, v in sorted(verdicts.items())) +
      f"; every record names its GPU: {'yes' if named else 'NO'}; per slot: " +
      ", ".join(f"{k}:{v}" for k, v in sorted(slots.items(), key=lambda x: str(x[0]))))
PY
}
for gpus in all 0,0; do
  run=$out/verdicts-${gpus/,/-}
  rm -rf "$run"
  echo "== kforge run --gpus $gpus"
  if "$kforge" run --config "$out/config.json" --problems configs/problems/demo --backend cuda --gpus "$gpus" \
      --no-progress --out "$run" >"$run.log" 2>&1; then
    row "run --gpus $gpus" ok "$(summary "$run")"
  else
    row "run --gpus $gpus" "FAILED (rc $?)" "$(tail -2 "$run.log" | tr '\n' ' ')"
  fi
  grep -E 'evaluator [0-9]+ on GPU' "$run.log" | tail -4
done
a=$(summary "$out/verdicts-all" 2>/dev/null | cut -d';' -f1)
b=$(summary "$out/verdicts-0-0" 2>/dev/null | cut -d';' -f1)
row "same verdicts (all vs 0,0)" "$([ -n "$a" ] && [ "$a" = "$b" ] && echo yes || echo NO)" "$a | $b"

# ---- 2. reverify and audit on two evaluators ----
echo "== kforge reverify --gpus 0,0"
"$kforge" reverify "$out/verdicts-all" --gpus 0,0 --seed 11 --out "$out/reverify.json" >"$out/reverify.log" 2>&1
rc=$?
row "reverify --gpus 0,0" "rc $rc" "$("$python3_" -c '
import collections, json, sys
d = json.load(open(sys.argv[1]))
print(", ".join(f"{k} {v}" for k, v in collections.Counter(k["status"] for k in d["kernels"]).items()),
      "; slots", dict(collections.Counter(k.get("evaluator", {}).get("slot") for k in d["kernels"])))' "$out/reverify.json" 2>&1)"
echo "== kforge audit --gpus 0,0"
"$kforge" audit --problems configs/problems/demo --backend cuda --gpus 0,0 --json-file "$out/audit.json" >"$out/audit.txt" 2>"$out/audit.log"
rc=$?
row "audit --gpus 0,0" "rc $rc" "$("$python3_" -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(len(d["problems"]), "problems;", "slots", sorted({p.get("evaluator", {}).get("slot") for p in d["problems"]}, key=str),
      "; GPU named:", all(p.get("evaluator", {}).get("gpu_uuid") for p in d["problems"]))' "$out/audit.json" 2>&1)"

# ---- 3. throughput, 1 vs 2 evaluators on GPU 0 ----
echo "== bench/campaign_throughput.sh"
bench/campaign_throughput.sh --kforge "$kforge" --backend cuda --evaluators "1 2" --gpu 0 \
  --samples "${KFORGE_CHECK_SAMPLES:-20}" --out "$out/throughput" | tee "$out/throughput.md"

echo
echo "## several evaluators ($(nvidia-smi --query-gpu=name --format=csv,noheader | head -1))"
echo "| check | status | detail |"
echo "|---|---|---|"
printf '%s\n' "${rows[@]}"
echo
tail -4 "$out/throughput.md"
