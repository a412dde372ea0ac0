#!/usr/bin/env bash
# Runs the verifier-strictness audit on a GPU machine: KernelBench level 1 and DLRM-Bench, plus the
# gpu tests of the DLRM-Bench CUDA solutions. Writes JSON reports and tables into OUTDIR.
#
# Usage: scripts/gpu-audit.sh OUTDIR LEVEL1_DIR [PART...]
#   PART: level1-a | level1-b | level1-c | level1-d (problems 1-25, 26-50, 51-75, 76-100),
#         level1:FIRST-LAST (e.g. level1:1-10), dlrm, tests.
#   Without PART, everything runs (long: split it over several calls where a call is time-limited).
# Environment: KFORGE_BUILD_DIR (default: build), KFORGE_PYTHON (default: see scripts/python-env.sh),
#   KFORGE_AUDIT_SEEDS (default 3), KFORGE_AUDIT_PRECISION (default fp32).
set -euo pipefail
if [ $# -lt 2 ]; then
  sed -n '2,11p' "${BASH_SOURCE[0]}" >&2
  exit 2
fi
out=$1
level1=$2
shift 2
parts=("$@")
[ ${#parts[@]} -eq 0 ] && parts=(level1-a level1-b level1-c level1-d dlrm tests)

cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/python-env.sh
build=${KFORGE_BUILD_DIR:-build}
kforge="$build/kforge"
seeds=${KFORGE_AUDIT_SEEDS:-3}
precision=${KFORGE_AUDIT_PRECISION:-fp32}
if [ ! -x "$kforge" ]; then
  echo "no kforge binary at $kforge: build first (cmake --build $build) or set KFORGE_BUILD_DIR" >&2
  exit 2
fi
if [ ! -d "$level1" ]; then
  echo "KernelBench level-1 folder $level1 does not exist" >&2
  exit 2
fi
mkdir -p "$out"

# level-1 problem files whose leading number lies in [first, last]
level1_files() {
  local first=$1 last=$2 f n
  for f in "$level1"/*.py; do
    n=$(basename "$f"); n=${n%%_*}
    if [[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -ge "$first" ] && [ "$n" -le "$last" ]; then echo "$f"; fi
  done | sort -V
}

audit() {  # name, files...
  local name=$1; shift
  echo "== audit $name ($# problems, $seeds seeds, $precision) =="
  local status=0
  "$kforge" audit --backend cuda --precision "$precision" --seeds "$seeds" --python "$KFORGE_PYTHON" \
    --json-file "$out/audit-$name.json" --problems "$@" | tee "$out/audit-$name.txt" || status=$?
  echo "audit $name exit $status" | tee -a "$out/audit-$name.txt"
}

status_all=0
for part in "${parts[@]}"; do
  case "$part" in
    level1-a) mapfile -t files < <(level1_files 1 25); audit level1-a "${files[@]}" ;;
    level1-b) mapfile -t files < <(level1_files 26 50); audit level1-b "${files[@]}" ;;
    level1-c) mapfile -t files < <(level1_files 51 75); audit level1-c "${files[@]}" ;;
    level1-d) mapfile -t files < <(level1_files 76 100); audit level1-d "${files[@]}" ;;
    level1:*-*)
      range=${part#level1:}
      mapfile -t files < <(level1_files "${range%-*}" "${range#*-}")
      audit "level1-${range}" "${files[@]}" ;;
    dlrm) audit dlrm problems/dlrm ;;
    tests)
      echo "== gpu tests: DLRM-Bench CUDA solutions =="
      "$build/tests/audit/audit_gpu_test" 2>&1 | tee "$out/dlrm-cuda-tests.txt" || status_all=1
      ;;
    *) echo "unknown part '$part' (level1-a..d, level1:FIRST-LAST, dlrm, tests)" >&2; exit 2 ;;
  esac
done

# Totals across every JSON written so far (the per-part tables carry their own totals).
"$KFORGE_PYTHON" - "$out" <<'PY' | tee "$out/audit-totals.txt"
import glob, json, os, sys
out = sys.argv[1]
for path in sorted(glob.glob(os.path.join(out, "audit-*.json"))):
    r = json.load(open(path))
    t = r["totals"]
    loose = {k: v["problems"] for k, v in t["allclose"].items()}
    print(f"{os.path.basename(path)}: {t['problems']} problems audited, {t['errors']} errors; "
          f"a trivial output passes allclose on {loose} problems; kforge's verifier on {t['kforge']['problems']}")
    for p in r["problems"]:
        if p["error"]:
            print(f"  error {p['name']}: {p['error']['message']}")
        elif p["trivial_passes_kforge"]:
            print(f"  KFORGE ADMITS A TRIVIAL OUTPUT: {p['name']}")
PY
exit $status_all
