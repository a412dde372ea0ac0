#!/usr/bin/env bash
# Sets everything up, builds, and runs the main job on the embedded default: the scripted model server
# answers one `kforge ask` round trip.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup.sh
source scripts/python-env.sh
exec scripts/run-demo.sh "${KFORGE_BUILD_DIR:-build}/kforge"
