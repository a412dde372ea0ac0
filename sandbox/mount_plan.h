#pragma once
// The job's file system view, computed in the supervisor before the clone so that the child only
// replays plain system calls (no allocation between clone and exec: the supervisor may be
// multi-threaded). Every path the job can see is listed here; everything else is unreachable.
#include <string>
#include <vector>

namespace kf::sandbox {

struct MountOp {
  enum class Kind { mkdir, touch, symlink, bind_ro, bind_rw, bind_dev, tmpfs, proc };
  Kind kind;
  std::string target;     // path inside the new root (already prefixed with the root)
  std::string source;     // host path for binds, link text for symlinks, options for tmpfs
  bool optional = false;  // failure is ignored (e.g. a symlink under a read-only bind)
};

struct MountPlanInput {
  std::string root;  // empty directory used as the mount point of the new root
  std::string workdir;
  std::vector<std::string> readonly_paths;
  std::vector<std::string> writable_paths;
  bool allow_gpu = false;
  bool mount_proc = true;              // only with a new PID namespace
  bool expose_zero_and_random = true;  // the compile profile hides /dev/zero and /dev/*random
  unsigned long long tmp_bytes = 1ull << 30;
};

// Paths always visible read-only (when they exist on the host).
const std::vector<std::string>& system_readonly_paths();

std::vector<MountOp> plan_mounts(const MountPlanInput& in);

}  // namespace kf::sandbox
