# Sourced by the scripts: sets KFORGE_PYTHON, the python3 with torch that kforge runs the oracle, the
# KernelBench runner and load_inline builds with. In order: the one the user named (KFORGE_PYTHON); a
# python3 on PATH whose torch sees a GPU (a GPU machine's own); kforge's virtual environment
# (KFORGE_VENV, default ${XDG_CACHE_HOME:-~/.cache}/kforge-venv: beside, not inside, kforge's
# compile cache, which sandboxed build jobs write to), which scripts/python-setup.sh creates.
# kforge itself falls back to the same environment when KFORGE_PYTHON is unset (core/default_python.h).
kforge_venv_dir() { echo "${KFORGE_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/kforge-venv}"; }

# Prints the python3 that already has a CUDA torch with a GPU, or nothing.
kforge_gpu_python() {
  if command -v python3 >/dev/null 2>&1 &&
     python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' >/dev/null 2>&1; then
    command -v python3
  fi
}

if [ -z "${KFORGE_PYTHON:-}" ]; then
  KFORGE_PYTHON=$(kforge_gpu_python)
  [ -n "$KFORGE_PYTHON" ] || KFORGE_PYTHON="$(kforge_venv_dir)/bin/python"
fi
export KFORGE_PYTHON
