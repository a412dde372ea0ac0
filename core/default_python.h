#pragma once
// The python3 with torch that kforge runs its oracle, KernelBench runner and load_inline builds with when
// the user names none (--python): $KFORGE_PYTHON; else kforge's own virtual environment, made by
// scripts/python-setup.sh with the pinned torch, where it exists ($KFORGE_VENV, else
// ${XDG_CACHE_HOME:-~/.cache}/kforge-venv); else python3 from PATH.
#include <string>

namespace kf {

std::string default_python();

// Where kforge's own virtual environment lives (whether or not it exists).
std::string default_venv_dir();

}  // namespace kf
