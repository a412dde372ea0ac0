#pragma once
// The supervisor's helpers around a launch: finding the program, naming the job, handing its folder to
// the job's user, and warning about missing protections.
// Internal to sandbox/.
#include <sys/types.h>

#include <map>
#include <string>

namespace kf::sandbox {

// argv[0] resolved through the job environment's PATH ("" when not found; as is when it holds a '/').
std::string resolve_exe(const std::string& arg0, const std::map<std::string, std::string>& env);
// True when `path` (resolved) lies in one of the directories every job sees anyway.
bool under_system_paths(const std::string& path);
// "job-<owner>-N" (leftovers.h), unique within this process.
std::string job_name();
// Gives `dir` and everything in it to uid:gid (best effort).
void chown_tree(const std::string& dir, uid_t uid, gid_t gid);
// A protection the kernel or the cgroup setup does not give is worth one warning per process; one the
// caller turned off (Spec.namespaces, Spec.pid_namespace) is only a debug line.
void warn_once_unless_chosen(const std::string& missing);

}  // namespace kf::sandbox
