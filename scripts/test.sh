#!/usr/bin/env bash
# Sets everything up, builds, and runs every test. GPU tests (label `gpu`) skip themselves when no GPU
# is present. Extra arguments go to ctest (e.g. `-L unit`).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup.sh
scripts/python-setup.sh --with-tests
# The style and layering checks fail the run, but only after the tests have run: a stray space hides no test result.
checks=0
scripts/check-format.sh || checks=$?
# The layering (README, "How it fits together"): no cycle and no include back up a floor.
scripts/check-include-graph.py >/dev/null || { scripts/check-include-graph.py; checks=1; }
source scripts/python-env.sh
cd "${KFORGE_BUILD_DIR:-build}"
ctest --output-on-failure -j "$(nproc)" --timeout 900 "$@"
if ((checks != 0)); then
  echo "test: the tests passed, but the style or the include-graph check failed (above)" >&2
  exit "$checks"
fi
