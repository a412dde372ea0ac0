#!/usr/bin/env bash
# Installs what kforge needs from Debian's packages (only what is missing) and its python with the pinned
# torch (scripts/python-setup.sh), then configures and builds it into ./build. Safe to run again: a second
# run installs nothing and rebuilds only changes.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

packages=(build-essential cmake ninja-build pkg-config git
          libcurl4-openssl-dev libssl-dev nlohmann-json3-dev libcpp-httplib-dev libcli11-dev libboost-dev
          libgtest-dev libgmock-dev libseccomp-dev
          python3 python3-venv  # kforge's python environment with the pinned torch (scripts/python-setup.sh)
          python3-dev  # Python's headers, for KernelBench solutions' load_inline extensions
          gnuplot-nox chromium
          clang-format  # scripts/check-format.sh
          slurm-wlm munge)  # slurm-wlm, munge: the Slurm array test (tests/cluster)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=(); [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

scripts/python-setup.sh

build_dir=${KFORGE_BUILD_DIR:-build}
cmake_args=(-S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo)
[ "${CI:-}" = "true" ] && cmake_args+=(-DKFORGE_WERROR=ON)
cmake "${cmake_args[@]}" >/dev/null
cmake --build "$build_dir" -j "$(nproc)"
