#pragma once
// The child side of a launch: what runs between clone and exec (mounts, PID 1 of the job's namespace,
// descriptors, signals, limits, privileges). Internal to sandbox/; the supervisor side is launcher.cpp.
#include <sys/resource.h>
#include <sys/types.h>

#include <vector>

#include "sandbox/mount_plan.h"

namespace kf::sandbox {

// Everything the child needs, prepared before the clone: the child must not allocate.
struct ChildPlan {
  int clone_flags = 0;
  bool pid_ns = false;
  bool mount_ns = false;
  bool cgroup_ns = false;
  const char* exe = nullptr;
  std::vector<char*> argv, envp;
  const std::vector<MountOp>* mounts = nullptr;
  const char* root = nullptr;
  const char* workdir = nullptr;
  int go_r = -1;  // the supervisor writes one byte here once the child sits in the job's cgroups
  int stdin_r = -1, stdout_w = -1, stderr_w = -1, err_w = -1, status_w = -1;
  std::vector<int> job_keep;  // sorted: pass_fds + err_w
  std::vector<int> pass_fds;
  std::vector<int> init_keep;  // sorted: status_w
  struct Limit {
    int resource;
    rlim_t soft, hard;
  };
  std::vector<Limit> limits;
  bool drop_privileges = false;
  uid_t uid = 0;
  gid_t gid = 0;
};

// The cloned child's whole life: waits for the supervisor's go, builds the sandbox, execs the job (or
// becomes the namespace's init and execs it from a second child). Reports a failed step on err_w.
[[noreturn]] void child_main(const ChildPlan& p);

}  // namespace kf::sandbox
