#include "sandbox/job_setup.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <set>

#include "core/log.h"
#include "sandbox/mount_plan.h"

namespace kf::sandbox {

std::string resolve_exe(const std::string& arg0, const std::map<std::string, std::string>& env) {
  if (arg0.find('/') != std::string::npos) return arg0;
  auto it = env.find("PATH");
  const std::string path = it == env.end() ? "/usr/local/bin:/usr/bin:/bin" : it->second;
  size_t pos = 0;
  while (pos <= path.size()) {
    size_t next = path.find(':', pos);
    if (next == std::string::npos) next = path.size();
    std::string dir = path.substr(pos, next - pos);
    if (dir.empty()) dir = ".";
    const std::string cand = dir + "/" + arg0;
    if (::access(cand.c_str(), X_OK) == 0) return cand;
    pos = next + 1;
  }
  return {};
}

bool under_system_paths(const std::string& path) {
  std::error_code ec;
  const std::string real = std::filesystem::canonical(path, ec).string();
  if (ec) return false;
  for (const auto& sys : system_readonly_paths()) {
    const std::string dir = std::filesystem::canonical(sys, ec).string();
    if (ec || dir.empty()) continue;
    if (real == dir || real.rfind(dir + "/", 0) == 0) return true;
  }
  return false;
}

std::string job_name() {
  static std::atomic<unsigned> counter{0};
  return "job-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

void chown_tree(const std::string& dir, uid_t uid, gid_t gid) {
  std::error_code ec;
  if (::lchown(dir.c_str(), uid, gid) != 0) return;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (::lchown(it->path().c_str(), uid, gid) != 0) {
      // Best effort: a file the job cannot write stays read-only to it.
    }
  }
}


void warn_once_unless_chosen(const std::string& missing) {
  if (missing.find("disabled by Spec.") != std::string::npos) {
    log::debug("sandbox: missing protection: " + missing);
    return;
  }
  static std::mutex mutex;
  static std::set<std::string> warned;
  std::lock_guard lock(mutex);
  if (warned.insert(missing).second) log::warn("sandbox: missing protection: " + missing);
}

void remove_stale_leftovers() {
  static std::once_flag once;
  std::call_once(once, [] {
    auto owner_dead = [](const std::string& name, const std::string& prefix) {
      if (name.rfind(prefix, 0) != 0) return false;
      const long pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
      return pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
    };
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator("/tmp", ec))
      if (owner_dead(e.path().filename().string(), "kforge-root-")) ::rmdir(e.path().c_str());
    for (const auto& ctrl : std::filesystem::directory_iterator("/sys/fs/cgroup", ec)) {
      std::error_code ec2;
      for (auto it = std::filesystem::recursive_directory_iterator(ctrl.path(), ec2);
           !ec2 && it != std::filesystem::recursive_directory_iterator(); it.increment(ec2)) {
        if (!it->is_directory(ec2)) continue;
        const std::string name = it->path().filename().string();
        if (owner_dead(name, "kforge-job-") || owner_dead(name, "job-")) {
          if (name.rfind("job-", 0) == 0 && it->path().parent_path().filename() != "kforge") continue;
          ::rmdir(it->path().c_str());
          it.disable_recursion_pending();
        }
      }
    }
  });
}

}  // namespace kf::sandbox
