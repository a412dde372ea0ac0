#!/usr/bin/env bash
# Makes sure kforge has a python with the pinned torch (scripts/python-requirements.txt). Uses the python
# that scripts/python-env.sh picks; when that is kforge's own virtual environment, creates it (first run:
# about 2.7 GB downloaded, 4.7 GB on disk) and installs the pins, idempotently: a stamp of the requirements
# it was made from is kept inside it, so later runs only check the stamp. `--with-tests` also installs the
# SDKs that the tests drive (scripts/python-test-requirements.txt). A python the user named, or a GPU
# machine's own, is used as it is: nothing is installed into it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
with_tests=false
[ "${1:-}" = "--with-tests" ] && with_tests=true
source scripts/python-env.sh
venv=$(kforge_venv_dir)

if [ "$KFORGE_PYTHON" != "$venv/bin/python" ]; then
  "$KFORGE_PYTHON" -c 'import torch' 2>/dev/null ||
    { echo "setup: $KFORGE_PYTHON has no torch; unset KFORGE_PYTHON to let setup make kforge's own environment" >&2; exit 2; }
  echo "setup: using $KFORGE_PYTHON ($("$KFORGE_PYTHON" -c 'import torch; print("torch", torch.__version__)'))"
  exit 0
fi

requirements=(scripts/python-requirements.txt)
$with_tests && requirements+=(scripts/python-test-requirements.txt)
stamp="$venv/kforge-requirements.stamp"
for r in "${requirements[@]}"; do
  if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && grep -qx "$(sha256sum < "$r" | cut -d' ' -f1)" "$stamp"; then
    continue
  fi
  if [ ! -x "$venv/bin/python" ]; then
    echo "setup: creating kforge's python environment in $venv (torch 2.11.0 and its CUDA libraries: ~2.7 GB to download)"
    /usr/bin/python3 -m venv "$venv"
  fi
  echo "setup: installing $r into $venv"
  "$venv/bin/python" -m pip install -r "$r"
  sha256sum < "$r" | cut -d' ' -f1 >> "$stamp"
done
