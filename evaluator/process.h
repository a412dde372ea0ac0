#pragma once
// Process control for the evaluator's toolchain probes (nvcc --version, nvidia-smi): a child in its own
// process group (so the whole tree can be killed), chosen descriptors passed through, and a
// run-to-completion helper with a wall-clock limit and capped output. Compile jobs, the runner and the
// oracle go through kf::sandbox instead.
#include <sys/types.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/result.h"

namespace kf::eval {

struct ChildSpec {
  std::vector<std::string> argv;
  std::map<std::string, std::string> env;   // complete environment
  std::string workdir;
  std::vector<std::pair<int, int>> fds;     // (parent fd, child fd): dup2'ed in the child
  std::string stderr_file;                  // empty: inherit; else stdout and stderr go there (fds win)
  double cpu_limit_s = 0;                   // RLIMIT_CPU when > 0
};

// Starts the child in a new process group (pgid == pid). The child's other descriptors are closed.
Result<pid_t> spawn(const ChildSpec& spec);
// SIGKILL to the whole process group, then reaps the leader. Safe to call twice.
void kill_tree(pid_t pid);
// True when no process of the group survives.
bool tree_gone(pid_t pid);

struct JobResult {
  enum class Status { exited, signaled, timeout } status = Status::exited;
  int exit_code = -1;
  int signal = 0;
  std::string output;     // stdout and stderr merged, capped (the start is kept)
  bool truncated = false;
  double wall_s = 0;
};

// Runs to completion or `timeout_s` (then kills the tree). Output beyond `cap` bytes is dropped.
Result<JobResult> run_job(ChildSpec spec, double timeout_s, size_t cap);

// The current environment as a map, with `overrides` applied.
std::map<std::string, std::string> environment_with(const std::map<std::string, std::string>& overrides);

double now_s();

}  // namespace kf::eval
