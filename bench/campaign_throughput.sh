#!/usr/bin/env bash
# Evaluator throughput of a zero-latency scripted campaign with 1 and with N evaluators: the mock model
# server answers at once with known-correct kernels for the demo problems (configs/problems/demo), so the
# evaluators are the bottleneck. Prints evaluations per hour and each evaluator's busy share per setting.
#
# Usage: bench/campaign_throughput.sh --kforge PATH [--backend cuda|host] [--evaluators "1 2"] [--gpu ID]
#                                     [--samples S] [--out DIR]
#   --evaluators  the settings to compare (default "1 2"); on cuda, n evaluators share GPU ID (--gpus ID,ID,…)
#                 unless --spread is given, then they go on GPUs 0..n-1
#   --samples     samples per problem (default 20: 60 evaluations per setting)
# A benchmark, not a test: no thresholds. Environment: KFORGE_PYTHON (torch; CUDA build on cuda).
set -euo pipefail
kforge="" backend=cuda settings="1 2" gpu=0 samples=20 out="" spread=0
while [ $# -gt 0 ]; do
  case "$1" in
    --kforge) kforge=$(realpath "$2"); shift 2 ;;
    --backend) backend=$2; shift 2 ;;
    --evaluators) settings=$2; shift 2 ;;
    --gpu) gpu=$2; shift 2 ;;
    --spread) spread=1; shift ;;
    --samples) samples=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) sed -n '2,11p' "${BASH_SOURCE[0]}" >&2; exit 2 ;;
  esac
done
[ -x "$kforge" ] || { echo "campaign_throughput: pass --kforge PATH" >&2; exit 2; }
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
source scripts/python-env.sh
out=${out:-$(mktemp -d "${TMPDIR:-/tmp}/kforge-throughput.XXXXXX")}
mkdir -p "$out"
out=$(cd "$out" && pwd)
script=configs/problems/demo/mock-$backend.json
python3_=${KFORGE_PYTHON:-python3}
"$python3_" - "$script" "$out/script.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
for e in s:
    e.pop("delay_s", None)
json.dump(s, open(sys.argv[2], "w"))
PY
"$kforge" mock-server --script "$out/script.json" --port 0 --port-file "$out/port" >"$out/mock.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null' EXIT
for _ in $(seq 1 100); do [ -s "$out/port" ] && break; sleep 0.1; done
[ -s "$out/port" ] || { echo "campaign_throughput: mock server did not start" >&2; exit 3; }
"$python3_" - "$out/config.json" "$(cat "$out/port")" <<'PY'
import json, sys
json.dump({"name": "throughput", "provider": "openai-chat", "base_url": f"http://127.0.0.1:{sys.argv[2]}/v1",
           "api_key_env": "", "model": "scripted", "generation": {"max_output_tokens": 4096, "stream": True},
           "timeouts": {"connect_s": 5, "idle_s": 60, "total_s": 120},
           "rate_limits": {"requests_per_minute": 0, "tokens_per_minute": 0, "max_concurrent": 8},
           "prices": {"input": 0.0, "cached_input": 0.0, "output": 0.0, "reasoning": 0.0},
           "loop": {"turns": 1, "samples": 1, "stop_at_first_correct": True, "keep_last_attempts": 0}},
          open(sys.argv[1], "w"))
PY

rows=()
for n in $settings; do
  run=$out/run-$n
  rm -rf "$run"
  if [ "$backend" = cuda ]; then
    list=""
    for i in $(seq 0 $((n - 1))); do
      id=$gpu; [ $spread = 1 ] && id=$i
      list+="${list:+,}$id"
    done
    pool=(--gpus "$list")
  else
    pool=(--evaluators "$n")
  fi
  "$kforge" run --config "$out/config.json" --problems configs/problems/demo --samples "$samples" \
    --backend "$backend" "${pool[@]}" --no-progress --out "$run" >"$out/run-$n.log" 2>&1 || {
    echo "campaign_throughput: the run with $n evaluator(s) failed; see $out/run-$n.log" >&2; tail -5 "$out/run-$n.log" >&2; exit 1; }
  rows+=("$("$python3_" - "$out/run-$n.log" "$run" "$n" "${pool[*]}" <<'PY'
import json, re, sys
log, run, n, pool = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3], sys.argv[4]
busy = re.findall(r"(evaluator \d+[^\n]*?) busy ([\d.]+) s of ([\d.]+) s wall \((\d+)%\)", log)
evals = sum(1 for line in open(run + "/evaluations.jsonl") if '"kind":"evaluation"' in line)
correct = sum(1 for line in open(run + "/evaluations.jsonl") if '"kind":"evaluation"' in line and '"correct":true' in line)
wall = float(busy[0][2]) if busy else float("nan")
shares = " / ".join(f"{b[3]}%" for b in busy)
print(f"| {n} | {pool} | {evals} | {correct} | {wall:.1f} | {3600 * evals / wall:.0f} | {shares} |")
PY
)")
done
echo
echo "zero-latency scripted campaign, backend $backend, 3 demo problems x $samples samples, 1 turn"
echo "| evaluators | pool | evaluations | correct | wall s | evaluations/hour | busy share per evaluator |"
echo "|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
