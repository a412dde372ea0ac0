#!/usr/bin/env bash
# Sets everything up, builds, and runs every test. GPU tests (label `gpu`) skip themselves when no GPU
# is present. Extra arguments go to ctest (e.g. `-L unit`).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup.sh
scripts/python-setup.sh --with-tests
# The style check fails the run, but only after the tests have run: a stray space hides no test result.
format=0
scripts/check-format.sh || format=$?
source scripts/python-env.sh
cd "${KFORGE_BUILD_DIR:-build}"
ctest --output-on-failure -j "$(nproc)" --timeout 900 "$@"
if ((format != 0)); then
  echo "test: the tests passed, but the C++ style check failed (above); scripts/check-format.sh --fix applies it" >&2
  exit "$format"
fi
