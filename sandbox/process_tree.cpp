#include "sandbox/process_tree.h"

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "sandbox/cgroup.h"
#include "sandbox/proc_stat.h"

namespace kf::sandbox {
namespace {

std::string ns_of(pid_t pid) {
  char buf[64] = {0};
  const std::string link = "/proc/" + std::to_string(pid) + "/ns/pid";
  const ssize_t n = ::readlink(link.c_str(), buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

}  // namespace

std::vector<pid_t> job_processes(const TreeProbe& probe) {
  std::vector<pid_t> found;
  if (probe.pid_namespace.empty() && probe.session <= 0) return found;
  DIR* d = ::opendir("/proc");
  if (!d) return found;
  const pid_t self = ::getpid();
  while (dirent* e = ::readdir(d)) {
    char* end = nullptr;
    const long v = std::strtol(e->d_name, &end, 10);
    if (*end != 0 || v <= 0 || v == self) continue;
    const auto pid = static_cast<pid_t>(v);
    const auto status = ProcStat::read(pid);
    if (!status || status->zombie()) continue;
    bool mine = false;
    if (!probe.pid_namespace.empty() && ns_of(pid) == probe.pid_namespace) mine = true;
    if (probe.session > 0 && (status->session == probe.session || status->process_group == probe.session)) mine = true;
    if (mine) found.push_back(pid);
  }
  ::closedir(d);
  return found;
}

bool ensure_tree_gone(const TreeProbe& probe) {
  for (int attempt = 0; attempt < 200; ++attempt) {
    const bool group_empty = probe.cgroup == nullptr || probe.cgroup->empty();
    const auto left = job_processes(probe);
    if (group_empty && left.empty()) return true;
    if (probe.cgroup) probe.cgroup->kill_all();
    for (pid_t pid : left) ::kill(pid, SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

}  // namespace kf::sandbox
