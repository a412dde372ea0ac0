#include "tests/support/command.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "core/child_process.h"
#include "core/default_python.h"

namespace kf::testing {

CommandResult run_shell(const std::string& command_line) {
  CommandResult result;
  auto run = run_captured(ChildCommand{{"/bin/sh", "-c", command_line}, {}, false, "", 0}, 0, size_t{1} << 30,
                          CaptureMode::stdout_only);
  if (!run) {
    ADD_FAILURE() << run.error().message;
    return result;
  }
  result.out = std::move(run->output);
  if (run->status == CapturedRun::Status::exited) result.exit_code = run->exit_code;
  return result;
}

std::string quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

namespace {
std::string from_env(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value && *value ? value : fallback;
}
}  // namespace

std::string source_path(const std::string& relative) {
  return from_env("KFORGE_SOURCE_DIR", KFORGE_TEST_SOURCE_DIR) + "/" + relative;
}

std::string kforge_binary() { return from_env("KFORGE_BIN", KFORGE_TEST_BINARY_DIR "/kforge"); }

std::string python_with_torch() {
  const std::string python = default_python();
  return run_shell(quote(python) + " -c 'import torch' >/dev/null 2>&1").exit_code == 0 ? python : std::string();
}

std::string make_temp_dir(const std::string& prefix) {
  std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed for " << pattern;
  return pattern;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::pair<std::string, std::string>> read_tree(const std::string& dir) {
  std::vector<std::pair<std::string, std::string>> out;
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec)) return out;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir, ec)) {
    if (entry.is_regular_file()) out.emplace_back(entry.path().string(), slurp(entry.path().string()));
  }
  return out;
}

}  // namespace kf::testing
