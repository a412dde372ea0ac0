#pragma once
// Finding (and killing) whatever is left of a job after it ended, to verify that nothing survived.
#include <sys/types.h>

#include <string>
#include <vector>

namespace kf::sandbox {

class JobCgroup;

struct TreeProbe {
  const JobCgroup* cgroup = nullptr;  // every process of the job, when there is a group
  std::string pid_namespace;          // "pid:[inode]" of the job's PID namespace, or empty
  pid_t session = 0;                  // the job's session/process-group id when not in a namespace
};

// Live processes that belong to the job according to the probe (by /proc scan).
std::vector<pid_t> job_processes(const TreeProbe& probe);

// Kills what is left (repeatedly, for up to about two seconds) and returns true when nothing remains.
bool ensure_tree_gone(const TreeProbe& probe);

}  // namespace kf::sandbox
