#pragma once
// The one process launcher for everything kforge runs on a candidate's behalf: compile jobs, the
// untrusted runner and (with looser limits) the oracle. See docs/sandbox.md.
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/result.h"

namespace kf::sandbox {

struct Limits {
  double wall_s = 60;
  double cpu_s = 60;
  uint64_t file_size_bytes = 64ull << 20;
  int open_files = 256;
  int processes = 64;                  // RLIMIT_NPROC-style cap on the job's process tree
  uint64_t memory_bytes = 4ull << 30;  // through a cgroup where available; never RLIMIT_AS for CUDA jobs
  size_t output_bytes = 1 << 20;       // stdout and stderr each captured up to exactly this many bytes
};

enum class Profile {
  compile,  // nvcc/g++: private TMPDIR, no network, sees only the job folder + toolchain
  runner,   // kforge-runner: no network, sees the job folder; seccomp applied by the runner itself
  oracle,   // trusted python: looser limits, no network
};

struct Spec {
  std::vector<std::string> argv;            // argv[0] is resolved through PATH of `env`
  std::map<std::string, std::string> env;   // the complete environment (allowlist applied by caller)
  std::string workdir;                      // job folder: private, writable
  std::vector<std::string> readonly_paths;  // extra paths the job may read (toolchain, python, data)
  std::vector<std::string> writable_paths;  // extra writable paths (normally none)
  std::vector<int> pass_fds;                // descriptors kept open in the child (e.g. a report pipe)
  std::string stdin_data;                   // written to the child's stdin, then closed
  Limits limits;
  Profile profile = Profile::runner;
  bool allow_gpu = false;  // expose /dev/nvidia* (runner and oracle on cuda)
  // false: a plain fork with limits only (benchmarks, debugging); every namespace is then listed
  // in Outcome.missing_protections.
  bool namespaces = true;
  // false: every namespace but the PID one (the job then sees other processes; no /proc is mounted in
  // its minimal root). For drivers whose handles name processes by PID.
  bool pid_namespace = true;
  // When kforge runs as root the job runs as this unprivileged user (the job folder is handed to
  // it); root ignores RLIMIT_NPROC and file permissions, an unprivileged user does not.
  uint32_t run_as_uid = 65534;
  uint32_t run_as_gid = 65534;
};

struct Outcome {
  enum class Status { exited, signaled, timeout, launch_failed };
  Status status = Status::launch_failed;
  int exit_code = -1;
  int signal = 0;
  std::string stdout_text;
  std::string stderr_text;
  bool stdout_truncated = false;
  bool stderr_truncated = false;
  double wall_s = 0;
  double cpu_s = 0;
  uint64_t peak_memory_bytes = 0;
  bool tree_empty_after = true;                  // verified: no process of the job survives
  bool cpu_limit_hit = false;                    // status timeout (or SIGXCPU) because of limits.cpu_s
  bool memory_limit_hit = false;                 // the cgroup's OOM killer fired
  std::string launch_error;                      // launch_failed: what failed (e.g. "exec: No such file")
  std::vector<std::string> missing_protections;  // e.g. "network namespace (EPERM)" — logged once
};

// Runs the job to completion (or its limits) and returns what happened. Err only when kforge itself
// cannot set up the launch (e.g. cannot create a pipe); a job that fails to exec is launch_failed.
Result<Outcome> run(const Spec& spec);

// A job that runs while the caller talks to it (e.g. the runner, through pass_fds). A monitor thread
// feeds stdin, captures stdout/stderr and enforces the limits from start() on; run() is
// start() + wait(). The job is killed if the Job is destroyed before wait().
class Job {
 public:
  // Returns once the job's program has been exec'ed (or failed to start: then wait() returns
  // launch_failed at once).
  static Result<Job> start(const Spec& spec);
  Job(Job&&) noexcept;
  Job& operator=(Job&&) noexcept;
  ~Job();

  bool finished() const;  // the job (all of it) has ended; wait() will not block
  void kill();            // SIGKILL to the whole tree now (wait() then reports signaled 9)
  // Stops every process of the job until thaw(): the cgroup freezer where the job has one, otherwise
  // SIGSTOP to each process, waiting (at most timeout_s) until all are stopped. False when that failed.
  bool freeze(double timeout_s);
  void thaw();
  // Host PIDs of the job's processes (its cgroup's, else its process tree), for /proc/<pid>/maps.
  std::vector<pid_t> pids() const;
  // Waits for the end (or a limit), verifies that nothing survives and returns what happened.
  // Call once.
  Outcome wait();

  struct Impl;

 private:
  explicit Job(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace kf::sandbox
