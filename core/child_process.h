#pragma once
// Ordinary child processes, started through Boost.Process: toolchain probes (nvcc --version,
// nvidia-smi), the program `kforge profile` runs, gnuplot, servers started by tests. A child here is
// trusted code with no isolation; every job that needs isolation (compile jobs, the runner, the oracle)
// goes through kf::sandbox instead.
#include <csignal>
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/result.h"

namespace kf {

struct ChildCommand {
  std::vector<std::string> argv;           // argv[0]: a path, or a name looked up in PATH
  std::map<std::string, std::string> env;  // set on top of the current environment
  bool replace_environment = false;        // true: `env` is the child's whole environment
  std::string workdir;                     // "" = the current folder
  double cpu_limit_s = 0;                  // RLIMIT_CPU when > 0
};

// Runs with stdin/stdout/stderr inherited and waits. Returns the exit status, 128 + the signal number
// when a signal ended it. With `ignore_interrupts`, this process ignores SIGINT and SIGQUIT meanwhile:
// Ctrl-C reaches the child through the terminal and the caller stays to collect what it left.
Result<int> run_attached(const ChildCommand& command, bool ignore_interrupts);

struct CapturedRun {
  enum class Status { exited, signaled, timeout } status = Status::exited;
  int exit_code = -1;
  int signal = 0;
  std::string output;  // stdout and stderr merged (or stdout alone); the first `cap` bytes are kept
  bool truncated = false;
  double wall_s = 0;
};

enum class CaptureMode { stdout_and_stderr, stdout_only };  // stdout_only: stderr is inherited

// Runs in its own process group with stdin from /dev/null and no other inherited descriptors, until it
// exits or `timeout_s` passes (0 = no limit); then (and after it exits) the whole group is killed, so
// nothing it started outlives the call.
Result<CapturedRun> run_captured(const ChildCommand& command, double timeout_s, size_t cap,
                                 CaptureMode capture = CaptureMode::stdout_and_stderr);

// A child that runs beside the caller (a server for a test): stdout and stderr go to files.
class BackgroundChild {
 public:
  static Result<std::unique_ptr<BackgroundChild>> start(const ChildCommand& command, const std::string& stdout_path,
                                                        const std::string& stderr_path);
  ~BackgroundChild();
  BackgroundChild(const BackgroundChild&) = delete;
  BackgroundChild& operator=(const BackgroundChild&) = delete;

  bool running();
  // Sends `signal` (when still running; 0 sends none), waits, and returns the exit status (128 + signal number when a
  // signal ended it); safe to call twice.
  int stop(int signal = SIGTERM);
  // Waits for the exit and returns the exit status as stop() does.
  int wait() { return stop(0); }

 private:
  struct Impl;
  explicit BackgroundChild(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The current environment as a map, with `overrides` applied.
std::map<std::string, std::string> environment_with(const std::map<std::string, std::string>& overrides);

// The absolute path of `name` (as is when it holds a '/'); "" when PATH has no executable of that name.
std::string find_executable(const std::string& name);

}  // namespace kf
