#!/usr/bin/env bash
# Issue 17's GPU check (structure: the split sandbox launcher, selftest/ as its own module, toolchain probes
# through Boost.Process): the cuda self-test through the split launcher, the gpu-labelled test programs, and
# one `kforge eval` of an honest candidate on the cuda backend (it compiles for the architecture that
# nvidia-smi, now run through core/child_process, reported; a failed probe shows as harness.gpu_arch).
# Prints a short table last.
#
# Usage: scripts/gpu-check-17.sh OUTDIR
# Programs: $KFORGE_BIN_DIR/{kforge,kforge-runner,evaluator_gpu_test,audit_gpu_test} (default build/).
# Environment: KFORGE_PYTHON (torch with CUDA; default scripts/python-env.sh).
set -uo pipefail
if [ $# -lt 1 ]; then
  sed -n '2,11p' "${BASH_SOURCE[0]}" >&2
  exit 2
fi
out=$(mkdir -p "$1" && cd "$1" && pwd)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
source scripts/python-env.sh
bin=${KFORGE_BIN_DIR:-$root/build}
[ -x "$bin/kforge" ] || { echo "gpu-check-17: no kforge in $bin (set KFORGE_BIN_DIR)" >&2; exit 2; }
export PATH=/usr/local/cuda/bin:$PATH KFORGE_RUNNER=$bin/kforge-runner KFORGE_BIN=$bin/kforge KFORGE_SOURCE_DIR=$root
declare -A result

"$bin/kforge" selftest --backend cuda --json --python "$KFORGE_PYTHON" --cache-dir "$out/cache" \
  > "$out/selftest.json" 2> "$out/selftest.log"
rc=$?
result[selftest]=$("$KFORGE_PYTHON" - "$out/selftest.json" "$rc" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
    cases = r["cases"]
    ok = sum(1 for c in cases if c["ok"] or c.get("xfail"))
    print(f"exit {sys.argv[2]}, {ok}/{len(cases)} cases as expected, canary {'intact' if r.get('canary_intact') else 'BROKEN'}")
except Exception as e:
    print(f"exit {sys.argv[2]}, report unreadable ({e})")
PY
)

for t in evaluator_gpu_test audit_gpu_test; do
  if [ -x "$bin/tests/evaluator/$t" ] || [ -x "$bin/tests/audit/$t" ] || [ -x "$bin/$t" ]; then
    exe=$(ls "$bin/tests/evaluator/$t" "$bin/tests/audit/$t" "$bin/$t" 2>/dev/null | head -1)
    "$exe" > "$out/$t.log" 2>&1
    result[$t]="exit $? ($(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$out/$t.log" | tr '\n' ' '))"
  else
    result[$t]="not built"
  fi
done

"$bin/kforge" eval --backend cuda --problem tests/adversarial/problems/scale_add.py --python "$KFORGE_PYTHON" \
  --candidate tests/adversarial/cuda/honest_scale_add_2d.cu --cache-dir "$out/cache" --json > "$out/eval.json" 2> "$out/eval.err"
rc=$?
result[eval]=$("$KFORGE_PYTHON" - "$out/eval.json" "$rc" <<'PY'
import json, sys
try:
    v = json.load(open(sys.argv[1]))
    codes = [r.get("code") for r in v.get("reasons", [])]
    print(f"exit {sys.argv[2]}, verdict {v.get('verdict')} (expected correct), reasons {codes}")
except Exception as e:
    print(f"exit {sys.argv[2]}, unreadable ({e})")
PY
)

printf '\n%-20s %s\n' step result
for k in selftest evaluator_gpu_test audit_gpu_test eval; do printf '%-20s %s\n' "$k" "${result[$k]}"; done
