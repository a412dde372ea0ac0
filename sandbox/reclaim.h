#pragma once
// Taking back what a kforge process left behind: a job's control group (its processes killed, a frozen
// group thawed so that the kill is delivered, the group removed) and a private folder. Used by the guardian
// (guardian.h) when kforge ends, and by the sweep at start (sweep.h) for an owner that died with its
// guardian. Async-signal-safe: system calls and fixed buffers only, because the guardian runs this in a
// process forked from a threaded kforge. Internal to sandbox/.

namespace kf::sandbox::reclaim {

// SIGKILLs every process listed in DIR/cgroup.procs and lets a frozen group run, so that the kill is
// delivered (v1: freezer.state THAWED; v2: cgroup.kill, cgroup.freeze 0). True when no process is left.
bool kill_and_thaw(const char* dir);
// kill_and_thaw until the group is empty (about two seconds at most), then removes it. True when it is
// gone (or was never there).
bool remove_group(const char* dir);
// Removes PATH and everything under it without following symbolic links. True when it is gone.
bool remove_tree(const char* path);

}  // namespace kf::sandbox::reclaim
