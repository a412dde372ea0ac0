#pragma once
// Which Linux namespaces the kernel lets kforge create (probed once per process), and the raw clone
// that starts a job in them. Internal to sandbox/.
#include <sched.h>
#include <sys/types.h>

#include <string>
#include <vector>

namespace kf::sandbox {

struct NamespaceSupport {
  int flags = 0;
  std::vector<std::string> missing;
};

struct NamespaceKind {
  int flag;
  const char* name;
};
// The namespaces a job gets, the PID namespace first, each with what the job keeps without it.
inline constexpr NamespaceKind kNamespaces[] = {
    {CLONE_NEWPID,
     "PID namespace (the job can see and signal other processes; tree kill relies on the cgroup/process group)"},
    {CLONE_NEWNS, "mount namespace (the job sees the whole file system; no private /tmp, /dev/shm or minimal root)"},
    {CLONE_NEWNET, "network namespace (the job can open network connections)"},
    {CLONE_NEWIPC, "IPC namespace (the job shares System V IPC and POSIX message queues)"},
    {CLONE_NEWUTS, "UTS namespace"},
    {CLONE_NEWCGROUP, "cgroup namespace"},
};

// clone(2) with SIGCHLD and the parent's stack, like fork() but with namespace flags.
pid_t raw_clone(int flags);
// The namespaces this process may create; the missing ones are logged once with what they cost.
const NamespaceSupport& namespace_support();
// The PID namespace of `pid` as its /proc/PID/ns/pid link names it ("" when unreadable).
std::string read_ns_id(pid_t pid);

}  // namespace kf::sandbox
