#!/usr/bin/env bash
# The search-strategy bench (a benchmark, not a test): every strategy searches the landscape of
# bench/search_landscape/ on the host backend, against `kforge mock-server` answering from the landscape's
# script, at the same per-problem budget of evaluations, once per seed (the seed draws the scripted model's
# answers); then prints how soon each strategy found the best kernel and the best speedup reached within
# fixed budgets (bench_search_landscape_table). README.md beside this file says what the landscape is.
#
# Usage: bench/search_landscape/run.sh --kforge PATH [--seeds "1 2 3"] [--budget 40] [--budgets 5,10,20,40]
#                                      [--strategies "refine best_of_n beam evolve"] [--out DIR]
#                                      [--timing-budget-ms MS] [--problems DIR] [--transitions FILE]
#   --budget      evaluations per problem for every strategy (loop.budget.evaluations; refine: budget / turns samples)
#   --transitions the landscape's table (default transitions.json, the ladder; transitions-branching.json is the
#                 branching one); a table that names its problems runs on those only; its `best` is the best kernel
#   --out         work folder (default: a new temporary one); each run is OUT/<strategy>-s<seed>; rerunning
#                 with the same OUT resumes what is unfinished
# Environment: KFORGE_PYTHON (torch for the evaluator). The table tool is built beside kforge
# (build/bench/bench_search_landscape_table).
set -euo pipefail
kforge="" seeds="1 2 3" budget=40 budgets="5,10,20,40" strategies="refine best_of_n beam evolve" out="" timing="" problems=""
transitions=""
while [ $# -gt 0 ]; do
  case "$1" in
    --kforge) kforge=$(realpath "$2"); shift 2 ;;
    --seeds) seeds=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --budgets) budgets=$2; shift 2 ;;
    --strategies) strategies=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --timing-budget-ms) timing=$2; shift 2 ;;
    --problems) problems=$(realpath "$2"); shift 2 ;;
    --transitions) transitions=$(realpath "$2"); shift 2 ;;
    *) sed -n '2,17p' "${BASH_SOURCE[0]}" >&2; exit 2 ;;
  esac
done
[ -x "$kforge" ] || { echo "search_landscape: pass --kforge PATH" >&2; exit 2; }
table=$(dirname "$kforge")/bench/bench_search_landscape_table
[ -x "$table" ] || { echo "search_landscape: $table is missing; build it (cmake --build build --target bench_search_landscape_table)" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
transitions=${transitions:-$here/transitions.json}
cd "$root"
source scripts/python-env.sh
python3_=${KFORGE_PYTHON:-python3}
out=${out:-$(mktemp -d "${TMPDIR:-/tmp}/kforge-landscape.XXXXXX")}
mkdir -p "$out"
out=$(cd "$out" && pwd)
best=$("$python3_" -c 'import json, sys; print(json.load(open(sys.argv[1]))["best"])' "$transitions")
if [ -z "$problems" ]; then
  # The problems the table has kernels for (all of problems/ unless it names them).
  problems=$out/problems
  mkdir -p "$problems"
  "$python3_" - "$transitions" "$here/problems" "$problems" <<'PY'
import json, os, re, shutil, sys
table, source, target = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
for name in sorted(os.listdir(source)):
    if name.endswith(".py") and re.sub(r"^[0-9]+_landscape_", "", name[:-3]) in table.get("problems", [re.sub(r"^[0-9]+_landscape_", "", name[:-3])]):
        shutil.copyfile(os.path.join(source, name), os.path.join(target, name))
PY
fi
"$python3_" "$here/make_script.py" --transitions "$transitions" --out "$out/script.json"
"$kforge" mock-server --script "$out/script.json" --check >/dev/null

server=""
stop_server() { [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null; server=""; }
trap stop_server EXIT

runs=()
for seed in $seeds; do
  for strategy in $strategies; do
    run=$out/$strategy-s$seed
    runs+=("$run")
    # One server per run: its draws then depend only on this run's requests.
    rm -f "$out/port"
    "$kforge" mock-server --script "$out/script.json" --seed "$seed" --port 0 --port-file "$out/port" \
      --log "$out/$strategy-s$seed.requests.jsonl" >"$out/$strategy-s$seed.mock.log" 2>&1 &
    server=$!
    for _ in $(seq 1 100); do [ -s "$out/port" ] && break; sleep 0.1; done
    [ -s "$out/port" ] || { echo "search_landscape: mock server did not start (see $out/$strategy-s$seed.mock.log)" >&2; exit 3; }
    "$python3_" - "$here/strategies.json" "$strategy" "$budget" "$(cat "$out/port")" "$out/$strategy-s$seed.json" "$seed" <<'PY'
import json, math, sys
strategies, strategy, budget, port, path = json.load(open(sys.argv[1])), sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
seed = int(sys.argv[6])
if strategy not in strategies:
    sys.exit(f"search_landscape: no strategy {strategy!r} in strategies.json")
loop = dict(strategies[strategy])
loop.setdefault("budget", {})["evaluations"] = budget
loop["seed"] = seed
if strategy == "refine":
    loop["samples"] = math.ceil(budget / loop.get("turns", 5))
else:
    loop["rounds"] = budget
json.dump({"name": f"landscape-{strategy}", "provider": "openai-chat", "base_url": f"http://127.0.0.1:{port}/v1",
           "api_key_env": "", "model": "scripted-landscape",
           "generation": {"max_output_tokens": 4096, "stream": True},
           "timeouts": {"connect_s": 5, "idle_s": 60, "total_s": 120},
           "retry": {"max_attempts": 1},
           "rate_limits": {"requests_per_minute": 0, "tokens_per_minute": 0, "max_concurrent": 1},
           "prices": {"input": 1.0, "cached_input": 0.1, "output": 4.0, "reasoning": 4.0},
           "loop": loop}, open(path, "w"), indent=1)
PY
    extra_args=()
    [ -n "$timing" ] && extra_args=(--timing-budget-ms "$timing")
    # A resumed run talks to a new server on a new port, so its configuration's base_url has changed (logged in
    # its run.json); nothing else in it has.
    [ -e "$run/run.json" ] && extra_args+=(--allow-changed)
    echo "search_landscape: $strategy, seed $seed -> $run" >&2
    "$kforge" run --config "$out/$strategy-s$seed.json" --problems "$problems" --backend host --no-progress \
      "${extra_args[@]}" --out "$run" >"$run.log" 2>&1 || {
      echo "search_landscape: the $strategy run (seed $seed) failed; see $run.log" >&2; tail -5 "$run.log" >&2; exit 1; }
    stop_server
  done
done
echo
echo "search landscape $(basename "$transitions"): strategies ($strategies), seeds ($seeds), $budget evaluations per problem, host backend"
"$table" --best "$best" --budgets "$budgets" "${runs[@]}"
