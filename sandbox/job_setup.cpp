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
#include "sandbox/leftovers.h"
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
  return "job-" + owner_tag() + "-" + std::to_string(counter++);
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

}  // namespace kf::sandbox
