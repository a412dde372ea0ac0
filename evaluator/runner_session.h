#pragma once
// The supervisor's side of one kforge-runner process: launch, request/response over two pipes, and a
// deadline for the whole evaluation; on expiry the runner's process tree is killed. The runner is
// launched through the sandbox (kf::sandbox::Job, Profile::runner); see docs/sandbox.md.
#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/result.h"
#include "evaluator/json_lines.h"
#include "sandbox/launcher.h"

namespace kf::eval {

struct RunnerEnd {
  // protocol: the runner sent something that is not a bounded, well-formed JSON object line (the
  // candidate's doing: it owns the runner's descriptors).
  enum class Kind { reply, crashed, timeout, protocol } kind = Kind::reply;
  nlohmann::json reply;         // kind == reply: the runner's JSON (ok true or false)
  std::string protocol_error;   // kind == protocol: what was wrong ("protocol.too_deep: ...")
  bool lifetime_limit = false;  // kind == timeout: the runner's whole lifetime ran out (else the command's)
  int signal = 0;               // crashed: terminating signal (0: exited)
  int exit_code = 0;
  std::string stderr_tail;
};

// How the runner is confined beyond the job folder (which it may read and write).
// The cuda runner's isolation: every namespace and an unprivileged user (full); the same without
// the PID namespace (shared-pid); or limits, clean environment and cgroup only, as kforge's user (none).
enum class CudaIsolation { full, shared_pid, none };
constexpr CudaIsolation kDefaultCudaIsolation = CudaIsolation::full;
Result<CudaIsolation> parse_cuda_isolation(const std::string& text);
std::string to_string(CudaIsolation isolation);

struct RunnerSandbox {
  bool cuda = false;  // GPU devices visible
  CudaIsolation cuda_isolation = CudaIsolation::full;
  std::vector<std::string> readonly_paths;  // e.g. the CUDA libraries, the python installation
};

class RunnerSession {
 public:
  ~RunnerSession();
  // `command` is the program and its first arguments (kforge-runner; or the python runner of kernelbench
  // solutions: interpreter, flags, script); --job, --cmd-fd and --report-fd follow. `env` is the runner's
  // complete environment (an allowlist: nothing of kforge's own environment).
  Status start(const std::vector<std::string>& command, const std::string& job_dir,
               std::map<std::string, std::string> env, double deadline_s, const RunnerSandbox& confinement);
  // Sends one command (null: none, just read) and waits for the answer, the crash, or the deadline (the
  // earlier of `deadline_s` and the runner's lifetime).
  RunnerEnd exchange(const nlohmann::json& cmd, double deadline_s);
  // The candidate's lifetime begins (its code is about to be loaded): from now on the runner must end by
  // `deadline_s`, and never later than the deadline it was started with (the sandbox's backstop follows that).
  void start_lifetime(double deadline_s);
  // Stops / resumes every process of the runner (between rounds, so that nothing of the candidate runs
  // while the trusted side prepares or checks). False when the runner could not be stopped.
  bool freeze();
  void thaw();
  // The concatenated /proc/<pid>/maps of the runner's processes ("" when unreadable).
  std::string maps() const;
  void finish();  // asks the runner to exit, then makes sure nothing of it survives
  // Kills every process of the runner's tree that was not there at its first answer (before any candidate
  // code ran): helpers a solution started (Triton's JIT) end before the next round and cannot outlive it.
  // Returns how many were killed. Called while the runner is frozen.
  int end_helpers();
  bool tree_empty() const { return tree_empty_; }
  // Every process id of the runner seen while it ran (host ids, read from its cgroup between rounds and at
  // the end): what must hold no GPU context any more before the baseline (evaluator/device_check.h).
  const std::vector<int>& pids_seen() const { return pids_seen_; }

 private:
  RunnerEnd ended();
  void stop_job(bool kill_now);
  std::unique_ptr<sandbox::Job> job_;
  sandbox::Outcome outcome_;
  JsonLinesChannel channel_;
  double deadline_ = 0;
  bool tree_empty_ = true;
  mutable std::vector<int> pids_seen_;
  void note_pids() const;
  std::vector<pid_t> first_pids_;  // the runner's processes at its first answer
  bool pids_marked_ = false;
};

}  // namespace kf::eval
