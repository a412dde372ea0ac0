#pragma once
// The python that builds and runs kernelbench solutions (the oracle's interpreter), probed once per
// evaluator by evaluator/kernelbench/probe.py: what the extension build needs from its torch and which
// folders sandboxed jobs must see for it to work there. docs/candidates.md.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"

namespace kf::eval::kernelbench {

struct PythonEnv {
  std::string executable;  // absolute path (sys.executable): sandboxed jobs start it by this path
  std::string python_version;
  std::string torch_version;
  std::string torch_cuda;                  // torch.version.cuda, "" for a CPU build
  std::vector<std::string> include_paths;  // torch.utils.cpp_extension.include_paths()
  std::vector<std::string> library_paths;  // torch.utils.cpp_extension.library_paths()
  std::string python_include;
  int cxx11_abi = 1;  // torch._C._GLIBCXX_USE_CXX11_ABI
  // torch._C._PYBIND11_{COMPILER_TYPE,STDLIB,BUILD_ABI}: extensions must be built with the same values.
  std::map<std::string, std::string> pybind11;
  std::map<std::string, std::optional<std::string>> packages;  // triton, tilelang, cutlass: version or absent
  std::vector<std::string> readonly_paths;  // the interpreter's folders outside the sandbox's system folders

  bool has_package(const std::string& name) const;
  // What an extension built for this python depends on (part of every build cache key).
  std::string identity() const;
};

// Runs probe_script with `python` (trusted: it reads no candidate input).
Result<PythonEnv> probe_python_env(const std::string& python, const std::string& probe_script, double timeout_s);

}  // namespace kf::eval::kernelbench
