#include "core/default_python.h"

#include <unistd.h>

#include <cstdlib>

namespace kf {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

}  // namespace

std::string default_venv_dir() {
  if (auto v = env("KFORGE_VENV"); !v.empty()) return v;
  if (auto x = env("XDG_CACHE_HOME"); !x.empty()) return x + "/kforge-venv";
  if (auto h = env("HOME"); !h.empty()) return h + "/.cache/kforge-venv";
  return {};
}

std::string default_python() {
  if (auto p = env("KFORGE_PYTHON"); !p.empty()) return p;
  if (auto venv = default_venv_dir(); !venv.empty()) {
    const std::string python = venv + "/bin/python";
    if (::access(python.c_str(), X_OK) == 0) return python;
  }
  return "python3";
}

}  // namespace kf
