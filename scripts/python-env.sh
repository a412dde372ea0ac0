# Sourced by the scripts: picks a python3 that has torch for the oracle (KFORGE_PYTHON), preferring
# one the user set, then the python3 on PATH, then Debian's.
if [ -z "${KFORGE_PYTHON:-}" ]; then
  for candidate in python3 /usr/bin/python3; do
    if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c 'import torch' >/dev/null 2>&1; then
      KFORGE_PYTHON=$(command -v "$candidate"); break
    fi
  done
fi
export KFORGE_PYTHON=${KFORGE_PYTHON:-python3}
