#pragma once
// Test helpers: run a shell command, capture its stdout, return its exit status.
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace kf::audit_test {

struct CommandResult {
  int exit_code = -1;
  std::string out;
};

inline CommandResult run_command(const std::string& command) {
  CommandResult result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  size_t n = 0;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) result.out.append(buffer, n);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

inline std::string quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// The oracle's interpreter: $KFORGE_PYTHON (set by scripts/python-env.sh), else python3.
inline std::string python() {
  const char* configured = std::getenv("KFORGE_PYTHON");
  return configured != nullptr && *configured != '\0' ? configured : "python3";
}

inline bool python_has_torch() {
  return run_command(quote(python()) + " -c 'import torch' >/dev/null 2>&1").exit_code == 0;
}

inline bool gpu_present() {
  const auto r = run_command("nvidia-smi -L 2>/dev/null");
  return r.exit_code == 0 && r.out.find("GPU") != std::string::npos;
}

// KFORGE_SOURCE_DIR and KFORGE_BIN override the configure-time folders (tests run from a copied tree).
inline std::string from_env(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value && *value ? value : fallback;
}
inline std::string source(const std::string& relative) {
  return from_env("KFORGE_SOURCE_DIR", KFORGE_TEST_SOURCE_DIR) + "/" + relative;
}
inline std::string kforge() { return from_env("KFORGE_BIN", KFORGE_TEST_BINARY_DIR "/kforge"); }

}  // namespace kf::audit_test
