#pragma once
// A per-job control group: memory limit and peak, process cap, CPU accounting and a kill that
// reaches every process of the job (also those that left its session or process group).
// Works on cgroup v2 (unified) and on v1 (one hierarchy per controller); whatever cannot be
// set up is reported in missing() so the launcher can say which protection is absent.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kf::sandbox {

class JobCgroup {
 public:
  // Never fails: a controller that cannot be used is listed in missing().
  static JobCgroup create(const std::string& name, uint64_t memory_bytes, int max_processes);
  JobCgroup() = default;
  JobCgroup(JobCgroup&& other) noexcept;
  JobCgroup& operator=(JobCgroup&& other) noexcept;
  JobCgroup(const JobCgroup&) = delete;
  JobCgroup& operator=(const JobCgroup&) = delete;
  ~JobCgroup();

  // Moves a process into every group of the job; returns one message per group it could not join.
  std::vector<std::string> add_process(pid_t pid) const;
  const std::vector<std::string>& missing() const { return missing_; }
  bool limits_memory() const { return memory_limited_; }
  bool limits_processes() const { return pids_limited_; }
  bool can_kill() const { return !kill_dirs_.empty(); }

  std::optional<uint64_t> peak_memory_bytes() const;
  std::optional<double> cpu_seconds() const;
  bool oom_killed() const;
  // SIGKILLs every process in the group (cgroup.kill on v2; freeze, kill, thaw on v1).
  void kill_all() const;
  // Stops every process of the job (cgroup.freeze on v2, the freezer on v1) and waits, at most
  // `timeout_s`, until the kernel reports the group frozen. False when the group cannot be frozen.
  bool freeze(double timeout_s) const;
  void thaw() const;
  // Host PIDs of the job's processes (from its groups' cgroup.procs).
  std::vector<pid_t> pids() const;
  // True when no process is left in any of the job's groups (true when there are no groups).
  bool empty() const;
  // Removes the groups (after the job is gone); safe to call twice.
  void destroy();

 private:
  bool v2_ = false;
  std::string v2_dir_;
  std::string memory_dir_, pids_dir_, cpuacct_dir_, freezer_dir_;
  std::vector<std::string> procs_files_;
  std::vector<std::string> kill_dirs_;  // groups whose cgroup.procs lists the job's processes
  std::vector<std::string> created_;    // directories to remove, deepest last
  std::vector<std::string> missing_;
  bool memory_limited_ = false;
  bool pids_limited_ = false;
};

}  // namespace kf::sandbox
