#!/usr/bin/env bash
# KernelBench's allclose on the GPU: `kforge audit --backend cuda` with the KernelBench-emulating allclose columns
# on KernelBench level 1 (default flags) and, as optional steps, levels 2 and 3 (one kforge seed). Writes
# audit-<step>.json / .md into OUTDIR and prints a short table last (fooled and degenerate problems per check;
# the problems where all-zeros passes allclose; for level 1 whether that is exactly 23, 37, 39 and 53 at 1e-2).
#
# Also a step of scripts/gpu-acceptance.sh (kernelbench-allclose[:STEP+STEP...], KernelBench root: the folder
# above KFORGE_KERNELBENCH_LEVEL1).
#
# Usage: scripts/gpu/kernelbench-allclose.sh OUTDIR [KERNELBENCH_ROOT] [STEP...]
#   KERNELBENCH_ROOT: the folder holding level1/ level2/ level3/ (default ../shared/kernelbench)
#   STEP: level1 (default) | level1:FIRST-LAST | level2 | level3 | level2:FIRST-LAST | level3:FIRST-LAST | table
#   The table is printed after every run and covers every audit-*.json in OUTDIR (so parts add up).
# Programs: $KFORGE_BIN_DIR/kforge, else build/kforge (runner: kforge-runner beside it, or $KFORGE_RUNNER).
# Environment: KFORGE_PYTHON (torch with CUDA; default: scripts/python-env.sh), KFORGE_CHECK_TIMEOUT (seconds
#   per step, default 580), KFORGE_CHECK_KERNELBENCH_TRIALS (default 5, KernelBench's own default).
#   KFORGE_CHECK_BACKEND (default cuda; host only to try the script on a machine without a GPU).
#
# Runtime (H200, 16 cores, 2026-12-03): KernelBench draws its inputs on the CPU, one single-threaded
# torch.rand per tensor (13 s for level 1's 1.6 G-element inputs), so a large level-1 problem takes 75-90 s
# for its five trials and level 1 about an hour of one process; levels 2 and 3 about 6 and 2.5 minutes. Run
# level 1 as parts (level1:A-B) a few at a time into one OUTDIR: more than about five at once on one 141 GB
# GPU runs out of GPU memory on the largest problems (recorded as that problem's error; rerun it).
set -uo pipefail
if [ $# -lt 1 ]; then
  sed -n '2,23p' "${BASH_SOURCE[0]}" >&2
  exit 2
fi
out=$(mkdir -p "$1" && cd "$1" && pwd)
shift
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
kb=${1:-$root/../shared/kernelbench}
[ $# -gt 0 ] && shift
if [ ! -d "$kb/level1" ]; then
  echo "kernelbench-allclose: no level1/ under $kb (pass the KernelBench root as the second argument)" >&2
  exit 2
fi
kb=$(cd "$kb" && pwd)
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(level1)
cd "$root" || exit 2
source scripts/python-env.sh
if [ -n "${KFORGE_BIN_DIR:-}" ] && [ -x "$KFORGE_BIN_DIR/kforge" ]; then kforge=$KFORGE_BIN_DIR/kforge
elif [ -x build/kforge ]; then kforge=build/kforge
else echo "kernelbench-allclose: no kforge in \$KFORGE_BIN_DIR or build/" >&2; exit 2; fi
timeout_s=${KFORGE_CHECK_TIMEOUT:-580}
kb_trials=${KFORGE_CHECK_KERNELBENCH_TRIALS:-5}

# problem files of LEVEL whose leading number lies in [first, last], in numeric order
files_of() {
  local dir=$kb/$1 first=$2 last=$3 f n
  for f in "$dir"/*.py; do
    n=$(basename "$f"); n=${n%%_*}
    if [[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -ge "$first" ] && [ "$n" -le "$last" ]; then echo "$f"; fi
  done | sort -V
}

run_audit() {  # step name, level, first, last, extra flags...
  local name=$1 level=$2 first=$3 last=$4
  shift 4
  mapfile -t files < <(files_of "$level" "$first" "$last")
  if [ ${#files[@]} -eq 0 ]; then echo "kernelbench-allclose: no problems for $name" >&2; return 2; fi
  echo "==== $name: ${#files[@]} problems, flags: --kernelbench-trials $kb_trials $*"
  local t0=$SECONDS status=0
  timeout --kill-after=10 "$timeout_s" "$kforge" audit --backend "${KFORGE_CHECK_BACKEND:-cuda}" --python "$KFORGE_PYTHON" \
    --kernelbench-trials "$kb_trials" "$@" --json-file "$out/audit-$name.json" --problems "${files[@]}" \
    > "$out/audit-$name.md" 2> "$out/audit-$name.log" || status=$?
  echo "$name exit $status after $((SECONDS - t0)) s" | tee "$out/audit-$name.status"
  tail -n 12 "$out/audit-$name.md"
}

for step in "${steps[@]}"; do
  case "$step" in
    level1) run_audit level1 level1 1 100 ;;
    level1:*-*) r=${step#level1:}; run_audit "level1-${r%-*}-${r#*-}" level1 "${r%-*}" "${r#*-}" ;;
    level2|level3) run_audit "$step" "$step" 1 100 --seeds 1 ;;
    level2:*-*|level3:*-*)
      lv=${step%%:*}; r=${step#*:}; run_audit "$lv-${r%-*}-${r#*-}" "$lv" "${r%-*}" "${r#*-}" --seeds 1 ;;
    table) ;;
    *) echo "kernelbench-allclose: unknown step '$step' (level1, level1:A-B, level2, level3, level2:A-B, level3:A-B, table)" >&2
       exit 2 ;;
  esac
done

# The table: every audit-*.json in OUTDIR, grouped by level.
"$KFORGE_PYTHON" - "$out" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
levels = {}
for path in sorted(glob.glob(os.path.join(out, "audit-*.json"))):
    level = os.path.basename(path)[len("audit-"):].split("-")[0].split(".")[0]
    with open(path) as f:
        report = json.load(f)
    levels.setdefault(level, []).append(report)
print("\n== KernelBench allclose audit (%s)" % out)
print("| level | problems | errors | check | fooled | degenerate |")
print("|---|---|---|---|---|---|")
for level, reports in sorted(levels.items()):
    problems = sum(r["totals"]["problems"] for r in reports)
    errors = sum(r["totals"]["errors"] for r in reports)
    checks = {}
    for r in reports:
        for check, v in r["totals"]["checks"].items():
            c = checks.setdefault(check, {"fooled": [], "degenerate": []})
            c["fooled"] += v["fooled"]
            c["degenerate"] += v["degenerate"]
    for check, v in checks.items():
        fmt = lambda names: "%d: %s" % (len(names), ", ".join(n.split("_")[0] for n in names)) if names else "0"
        print("| %s | %d | %d | %s | %s | %s |" % (level, problems, errors, check, fmt(v["fooled"]), fmt(v["degenerate"])))
    for tol in ("1e-2", "1e-4"):
        zeros = sorted(int(p["name"].split("_")[0]) for r in reports for p in r["problems"]
                       if any(row["trivial"] == "zeros" and row["allclose"].get(tol, {}).get("passes")
                              for row in p["trivial"]))
        line = "%s: all-zeros passes allclose@%s (KernelBench's trials) on %s" % (level, tol, zeros)
        if level == "level1" and tol == "1e-2":
            line += "; expected [23, 37, 39, 53]: " + ("MATCH" if zeros == [23, 37, 39, 53] else "DIFFERENT")
            if problems < 100:
                line += " (partial run: %d problems)" % problems
        print(line)
PY
