#!/usr/bin/env bash
# Reverify and report on the GPU: the demo campaign on the cuda backend, `kforge reverify` of it (which writes
# DIR/reverify.json), then `kforge report` in md, json, csv and (where gnuplot is installed) html, and a
# headless-Chromium screenshot of the html (where Chromium is installed). Prints a table last: per
# configuration, units, correct, faster than baseline (unverified), verified speedups, why the others are
# not verified, and how many claims held under reverify.
#
# Also a step of scripts/gpu-acceptance.sh (reverify-report).
#
# Usage: scripts/gpu/reverify-report.sh OUTDIR
# Programs: $KFORGE_BIN_DIR/kforge and $KFORGE_BIN_DIR/kforge-runner, else build/ (or $KFORGE_RUNNER).
# Environment: KFORGE_PYTHON (torch with CUDA; default: scripts/python-env.sh), KFORGE_CHECK_BACKEND
#   (default cuda; host only to try the script on a machine without a GPU).
# Expected runtime: the demo campaign takes ~5 s of campaign time on an H200 (docs/campaigns.md), reverify
# about as long; under a minute in all.
set -uo pipefail
if [ $# -lt 1 ]; then
  sed -n '2,15p' "${BASH_SOURCE[0]}" >&2
  exit 2
fi
out=$(mkdir -p "$1" && cd "$1" && pwd)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root" || exit 2
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
# shellcheck source=scripts/python-env.sh
source scripts/python-env.sh
backend=${KFORGE_CHECK_BACKEND:-cuda}
bin=$(cd "${KFORGE_BIN_DIR:-build}" 2>/dev/null && pwd) || { echo "reverify-report: no folder ${KFORGE_BIN_DIR:-build}" >&2; exit 2; }
kforge=$bin/kforge
[ -x "$kforge" ] || { echo "reverify-report: no kforge at $kforge (set KFORGE_BIN_DIR)" >&2; exit 2; }
if [ -z "${KFORGE_RUNNER:-}" ]; then
  for r in "$bin/kforge-runner" "$bin/evaluator/kforge-runner"; do [ -x "$r" ] && { KFORGE_RUNNER=$r; break; }; done
fi
[ -n "${KFORGE_RUNNER:-}" ] || { echo "reverify-report: no kforge-runner beside kforge (set KFORGE_RUNNER)" >&2; exit 2; }
KFORGE_RUNNER=$(realpath "$KFORGE_RUNNER")
export KFORGE_RUNNER
demo=$out/demo
rm -rf "$demo"

echo "== demo campaign ($backend)"
scripts/run-demo.sh "$kforge" --backend "$backend" --out "$demo" >"$out/campaign.txt" 2>&1
echo "campaign exit $? (log: $out/campaign.txt)"

echo "== reverify"
"$kforge" reverify "$demo" --backend "$backend" --seed 16 >"$out/reverify.txt" 2>&1
echo "reverify exit $? (table: $out/reverify.txt; results: $demo/reverify.json)"
tail -n 2 "$out/reverify.txt"

echo "== report"
for f in md json csv; do
  "$kforge" report "$demo" --format "$f" >"$out/report.$f" 2>"$out/report-$f.err" || echo "report --format $f failed: $(cat "$out/report-$f.err")"
done
if command -v gnuplot >/dev/null 2>&1; then
  if "$kforge" report "$demo" --format html --figures "$out/figures" >"$out/report.html" 2>"$out/report-html.err"; then
    echo "html report: $out/report.html (figures in $out/figures)"
    browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
    if [ -n "$browser" ]; then
      profile=$(mktemp -d)
      timeout 120 "$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$profile" --hide-scrollbars \
        --window-size=1200,6300 --screenshot="$out/report.png" "file://$out/report.html" >/dev/null 2>&1
      rm -rf "$profile"
      [ -s "$out/report.png" ] && echo "screenshot: $out/report.png" || echo "screenshot: Chromium wrote none"
    else
      echo "screenshot: skipped (no Chromium on this machine)"
    fi
  else
    echo "html report failed: $(cat "$out/report-html.err")"
  fi
else
  echo "html report: skipped (no gnuplot on this machine; the md/json/csv carry the same counts)"
fi

echo
echo "== verified speedups ($backend demo campaign)"
"$KFORGE_PYTHON" - "$out/report.json" "$demo/reverify.json" <<'PY'
import json, sys
try:
    rep = json.load(open(sys.argv[1]))["configurations"]
except Exception as e:
    print("no report.json:", e); sys.exit(1)
try:
    rv = json.load(open(sys.argv[2]))
    held = {}
    for k in rv["kernels"]:
        h = held.setdefault(k["config"], [0, 0])
        h[0] += k["status"] == "holds"; h[1] += 1
except Exception:
    held = {}
print("| config | units | correct | faster (unverified) | verified | not verified because | reverify holds |")
print("|---|---|---|---|---|---|---|")
for c in rep:
    why = ", ".join("%s %d" % kv for kv in sorted(c["unverified_speedups"].items())) or "-"
    h = held.get(c["config"])
    print("| %s | %d | %d | %d | %d | %s | %s |" % (c["config"], c["units"], c["correct"]["count"],
          c["faster_than_baseline_unverified"], c["verified_speedups"], why, "%d/%d" % tuple(h) if h else "-"))
PY
