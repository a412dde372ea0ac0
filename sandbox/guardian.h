#pragma once
// The guardian: a small process kforge forks on its first job, outside every job's control group and
// session, which ignores Ctrl-C and SIGTERM and outlives kforge. kforge tells it (through a socket) which job
// groups and private folders exist; when the socket closes, because kforge ended in any way (exit, abort,
// SIGKILL), it thaws, kills and removes every group still listed and removes every folder still listed,
// then exits. So a frozen job never outlives kforge, and the process that thaws it is never inside the
// frozen group. When the guardian died too (a whole Slurm job killed), the sweep at the next start
// (leftovers.h) takes over. Internal to sandbox/.
#include <string>

namespace kf::sandbox::guardian {

// Registers a job group (an absolute cgroup directory) or a private folder; best effort (a guardian that
// cannot be started leaves it to the next sweep).
void guard_group(const std::string& dir);
void guard_folder(const std::string& path);
// Unregisters it once kforge has removed it itself.
void release_group(const std::string& dir);
void release_folder(const std::string& path);
// The guardian's PID once it runs (0 before the first registration, or when it could not start); for tests
// and the debug log.
int process_id();

}  // namespace kf::sandbox::guardian
