#!/usr/bin/env bash
# The field's published releases re-verified on this GPU, resumably across device calls and GPU loans: each
# RELEASE is imported into OUTDIR/RELEASE (`kforge import` gives the same records every time) and re-verified with
# `kforge reverify --resume`; the journal of an earlier call (STATE/RELEASE.journal) is put back first, and the
# journal is left as OUTDIR/RELEASE.journal for the next call. Prints one table row per release (docs/candidates.md,
# "Re-verifying published work") and the judged solutions per status. Also a step of scripts/gpu-acceptance.sh
# (releases:RELEASE+RELEASE...).
#
# Usage: scripts/gpu/releases.sh OUTDIR RELEASE...
#   RELEASE: cuda-l1-h100 (CUDA-L1's optimized_cuda_code/h100.json, every level) | leaderboard (the KernelBench
#            leaderboard's raw_data.json, levels 1 and 2) | technoabsurdist (technoabsurdist/KernelBench's runs)
# Environment: KFORGE_RELEASES (folder holding CUDA-L1/, KernelBenchLeaderboard/ and technoabsurdist-KernelBench/,
#   fetched with git elsewhere: the GPU machine has no network), KFORGE_KERNELBENCH (the dataset: level1..level3;
#   default .shared/kernelbench, else ../shared/kernelbench), KFORGE_RELEASES_STATE (journals of earlier calls,
#   RELEASE.journal; default none), KFORGE_RELEASES_SECONDS (time for all releases together, default 480),
#   KFORGE_RELEASES_SEED (default 7), KFORGE_COMPILE_JOBS (default: the cores less two), KFORGE_BIN_DIR, KFORGE_PYTHON.
set -uo pipefail
if [ $# -lt 2 ]; then
  sed -n '2,17p' "${BASH_SOURCE[0]}" >&2
  exit 2
fi
t_start=$SECONDS
out=$(mkdir -p "$1" && cd "$1" && pwd)
shift
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root" || exit 2
# shellcheck source=scripts/python-env.sh
source scripts/python-env.sh
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
bin=$(cd "${KFORGE_BIN_DIR:-build}" 2>/dev/null && pwd) || { echo "releases: no folder ${KFORGE_BIN_DIR:-build}" >&2; exit 2; }
kforge=$bin/kforge
export KFORGE_RUNNER=${KFORGE_RUNNER:-$bin/kforge-runner}
export KFORGE_DATA_DIR=${KFORGE_DATA_DIR:-$root}
releases=${KFORGE_RELEASES:?set KFORGE_RELEASES to the folder of fetched releases}
kb=${KFORGE_KERNELBENCH:-}
[ -z "$kb" ] && for d in .shared/kernelbench ../shared/kernelbench; do [ -d "$d/level1" ] && kb=$(cd "$d" && pwd) && break; done
[ -d "$kb/level1" ] || { echo "releases: KernelBench dataset not found (set KFORGE_KERNELBENCH)" >&2; exit 2; }
budget=${KFORGE_RELEASES_SECONDS:-480}
jobs=${KFORGE_COMPILE_JOBS:-$(( $(nproc) > 3 ? $(nproc) - 2 : 1 ))}

status=0
for release in "$@"; do
  levels=()
  case "$release" in
    cuda-l1-h100) src=$releases/CUDA-L1/optimized_cuda_code/h100.json ;;
    leaderboard) src=$releases/KernelBenchLeaderboard; levels=(--levels 1,2) ;;
    technoabsurdist) src=$releases/technoabsurdist-KernelBench/runs ;;
    *) echo "releases: unknown release '$release' (cuda-l1-h100, leaderboard, technoabsurdist)" >&2; exit 2 ;;
  esac
  corpus=$out/$release
  echo "== $release"
  "$kforge" import "$src" --out "$corpus" --kernelbench "$kb" >"$out/$release-import.txt" 2>&1 ||
    { echo "import failed:"; tail -5 "$out/$release-import.txt"; status=1; continue; }
  state=${KFORGE_RELEASES_STATE:-}/$release.journal
  [ -n "${KFORGE_RELEASES_STATE:-}" ] && [ -f "$state" ] && [ ! -f "$corpus/reverify.journal" ] &&
    cp "$state" "$corpus/reverify.journal"
  left=$((budget - (SECONDS - t_start)))
  if [ "$left" -lt 60 ]; then
    echo "(no time left for $release: resume it in another call)"
    [ -f "$corpus/reverify.journal" ] && cp "$corpus/reverify.journal" "$out/$release.journal"
    continue
  fi
  "$kforge" reverify "$corpus" --backend cuda --resume --seed "${KFORGE_RELEASES_SEED:-7}" --compile-jobs "$jobs" \
    --time-limit "$left" "${levels[@]}" >"$out/$release-reverify.txt" 2>"$out/$release-reverify.log"
  rc=$?
  echo "kforge reverify exit $rc"
  [ "$rc" -gt 1 ] && { status=1; tail -5 "$out/$release-reverify.log"; }
  [ -f "$corpus/reverify.journal" ] && cp "$corpus/reverify.journal" "$out/$release.journal"
done

"$KFORGE_PYTHON" - "$out" "$@" <<'PY'
import collections, json, os, sys
out, releases = sys.argv[1], sys.argv[2:]
device = None
print("| release | claimed correct | judged | holds | not reproduced | now incorrect | rejected (by class) | fails | harness error | reference differs (judged) |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for release in releases:
    try:
        doc = json.load(open(os.path.join(out, release, "reverify.json")))
    except (OSError, ValueError):
        print(f"| {release} | - | not run | | | | | | | |")
        continue
    entries = [k for k in doc.get("kernels", []) if k.get("kind") == "imported"]
    device = device or (doc.get("environment") or {}).get("gpu_name") or (doc.get("environment") or {}).get("device")
    st = collections.Counter(k.get("status") for k in entries)
    classes = collections.Counter(k.get("hack_class") or "other" for k in entries if k.get("status") == "rejected")
    claimed = (doc.get("imported") or {}).get("solutions", len(entries))
    judged = len(entries)
    ref = sum(1 for k in entries if k.get("reference_differs"))
    cls = ", ".join(f"{c} {n}" for c, n in classes.most_common())
    print(f"| {release} | {claimed} | {judged} | {st['holds']} | {st['not_reproduced']} | {st['now_incorrect']} | "
          f"{st['rejected']}{' (' + cls + ')' if cls else ''} | {st['fails']} | {st['harness_error']} | {ref} |")
print(f"device: {device}")
for release in releases:
    try:
        doc = json.load(open(os.path.join(out, release, "reverify.json")))
    except (OSError, ValueError):
        continue
    print(f"== {release}: every judged solution")
    for k in doc.get("kernels", []):
        if k.get("kind") != "imported":
            continue
        p = k.get("problem", {}).get("name", "?")
        print(f"{k.get('run')} L{k.get('level')} {p} s{k.get('sample')}: {k.get('status')} "
              f"{k.get('hack_class') or ''} {k.get('reason') or ''} claimed {k.get('claimed_speedup')} now {k.get('speedup')}")
PY
exit $status
