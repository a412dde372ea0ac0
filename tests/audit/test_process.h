#pragma once
// Audit test helpers on top of tests/support: the oracle's interpreter, GPU presence, paths.
#include <cstdlib>
#include <string>

#include "tests/support/command.h"

namespace kf::audit_test {

using testing::CommandResult;
using testing::quote;
inline CommandResult run_command(const std::string& command) { return testing::run_shell(command); }

// The oracle's interpreter (tests/support: kforge's default python with torch; empty without one).
inline std::string python() { return testing::python_with_torch(); }
using testing::kNoTorchAdvice;

inline bool gpu_present() {
  const auto r = run_command("nvidia-smi -L 2>/dev/null");
  return r.exit_code == 0 && r.out.find("GPU") != std::string::npos;
}

inline std::string source(const std::string& relative) { return testing::source_path(relative); }
inline std::string kforge() { return testing::kforge_binary(); }

}  // namespace kf::audit_test
