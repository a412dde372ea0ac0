#pragma once
// The state of one launched job, shared by its preparation (job_prepare.cpp) and its supervision
// (launcher.cpp). Internal to sandbox/.
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "sandbox/cgroup.h"
#include "sandbox/child_setup.h"
#include "sandbox/guardian.h"
#include "sandbox/job_io.h"
#include "sandbox/launcher.h"

namespace kf::sandbox {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

struct Job::Impl {
  Spec spec;
  Outcome out;
  ChildPlan plan;
  std::vector<MountOp> mounts;
  std::string workdir, exe, root_dir, ns_id;
  std::vector<std::string> env_strings, argv_strings;
  JobCgroup cgroup;
  Pipe in_p, out_p, err_p, report_p, status_p, go_p;
  pid_t child = -1;
  int pidfd = -1;
  Clock::time_point t0;
  std::thread monitor;
  std::atomic<bool> kill_requested{false};
  std::mutex pidfd_mutex;  // Job::kill() may run on another thread than the monitor
  std::atomic<bool> done{false};
  bool waited = false;
  bool setup_failed = false;  // the child could not build the sandbox (kforge's fault, not the job's)
  std::string report, status_bytes;
  int child_status = 0;
  bool timed_out = false;
  rusage usage{};
  int frozen_by = 0;  // 1: cgroup freezer, 2: SIGSTOP to `stopped`
  std::vector<pid_t> stopped;

  ~Impl() {
    if (monitor.joinable()) {
      kill_requested = true;
      monitor.join();
    }
    if (pidfd >= 0) ::close(pidfd);
    remove_root_dir();
  }
  void remove_root_dir() {
    if (root_dir.empty()) return;
    if (::rmdir(root_dir.c_str()) == 0) guardian::release_folder(root_dir);
    root_dir.clear();
  }

  Status prepare();
  void launch(std::promise<Status>& started);
  void supervise();
  bool reap_if_exited();
  void enforce_limits(double elapsed);
  void pump_io(Capture& cap_out, Capture& cap_err, size_t& stdin_off, std::vector<char>& buf, int timeout_ms);
  void kill_tree() {
    std::lock_guard lock(pidfd_mutex);
    cgroup.kill_all();
    if (pidfd >= 0)
      ::syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, nullptr, 0);
    else if (child > 0 && !done)
      ::kill(child, SIGKILL);
    if (!plan.pid_ns && child > 0) ::kill(-child, SIGKILL);
  }
  void finish();
};

}  // namespace kf::sandbox
