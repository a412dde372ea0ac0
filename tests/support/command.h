#pragma once
// What tests share for running commands: a shell command line with its stdout captured (stderr goes to
// the test's own), quoting, the binaries under test, and temporary folders. Children start through
// core/child_process.h (Boost.Process), like the product's own ordinary children.
#include <string>
#include <utility>
#include <vector>

namespace kf::testing {

struct CommandResult {
  int exit_code = -1;  // -1 when a signal ended it or it could not start
  std::string out;     // stdout
};

// Runs `/bin/sh -c command_line` to completion (ctest's timeout is the limit).
CommandResult run_shell(const std::string& command_line);

// `text` in single quotes for a shell command line.
std::string quote(const std::string& text);

// KFORGE_SOURCE_DIR and KFORGE_BIN override the configure-time folders (tests run from a copied tree).
std::string source_path(const std::string& relative);
// The kforge binary under test: $KFORGE_BIN when set, else the build tree's.
std::string kforge_binary();

// The python kforge runs by default (kf::default_python(): $KFORGE_PYTHON, else kforge's virtual
// environment) when it imports torch; empty otherwise. Tests that need torch fail, not skip, without it:
// scripts/test.sh always provides one, so a missing torch is a broken setup, never a reason to pass.
std::string python_with_torch();
inline constexpr const char* kNoTorchAdvice =
    "no python with torch: run scripts/python-setup.sh (kforge's environment) or set KFORGE_PYTHON";

// A fresh empty directory under the system temp folder.
std::string make_temp_dir(const std::string& prefix);
// Contents of every regular file under `dir` (recursively), as (path, text).
std::vector<std::pair<std::string, std::string>> read_tree(const std::string& dir);
std::string slurp(const std::string& path);

}  // namespace kf::testing
